// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz the sysfs format parser; what parses must encode and decode back. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "source/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_format f;
	size_t col;

	if (pm_format__parse((const char *)data, size, &f, &col) == 0) {
		uint64_t config[PM_CONFIG_WORDS] = { 0 };
		uint64_t v = 0;

		if (size >= 8)
			memcpy(&v, data, 8);
		v &= pm_format__max(&f);
		if (pm_format__encode(&f, v, config) != 0 || pm_format__decode(&f, config) != v)
			abort();
	} else if (col > size) {
		abort();
	}
	return 0;
}
