// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential fuzzing of the fast reader of perf's event files
 * (db/jsonflat.c) against jansson: whatever it returns must be what
 * json_loadb(JSON_REJECT_DUPLICATES), the path it stands in for, gives; it
 * may decline (NULL), never differ. The text is copied to a buffer of its
 * exact size, so a read past the end is a sanitizer's report.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "db/jsonflat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	json_t *flat, *ref;

	if (!text)
		return 0;
	memcpy(text, data, size);
	flat = pm_json_flat_load(text, size);
	ref = json_loadb(text, size, JSON_REJECT_DUPLICATES, NULL);
	if (flat && (!ref || !json_is_array(flat) || !json_equal(flat, ref)))
		abort();
	json_decref(flat);
	json_decref(ref);
	free(text);
	return 0;
}
