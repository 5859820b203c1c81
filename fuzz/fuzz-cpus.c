// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz the CPU-list parser; what parses must format and parse back to the same set. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/cpus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_cpus a, b;
	static char buf[1 << 16];

	if (pm_cpus__parse((const char *)data, size, &a) != 0)
		return 0;
	if (pm_cpus__format(&a, buf, sizeof(buf)) == 0) {
		if (pm_cpus__parse(buf, strlen(buf), &b) != 0 || b.n != a.n ||
		    (a.n && memcmp(a.cpu, b.cpu, a.n * sizeof(int)) != 0))
			abort();
		pm_cpus__done(&b);
	}
	pm_cpus__done(&a);
	return 0;
}
