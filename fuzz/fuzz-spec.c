// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz the event-spec parser: any bytes, no crash, no leak, positions inside the input. */
#include <stdlib.h>

#include "fuzz.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_spec s;
	struct pm_spec_event ev;
	struct pm_spec_err err = { 0 };

	if (pm_spec__parse((const char *)data, size, &s, &err) == 0) {
		for (size_t i = 0; i < s.n; i++)
			if (s.ev[i].pos + s.ev[i].len > size)
				abort();
		pm_spec__done(&s);
	} else if (err.msg && err.pos > size) {
		abort();
	}
	if (pm_spec__parse_terms((const char *)data, size, &ev, &err) == 0)
		pm_spec__done_event(&ev);
	return 0;
}
