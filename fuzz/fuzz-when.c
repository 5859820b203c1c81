// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz pmumon report's parsers of --from/--to (a moment: seconds, a time
 * of day, a date-time) and --above (a threshold with its unit), and what
 * report does with what parses: a wall clock for a run, a threshold in a
 * series' unit. Any bytes: no crash, no undefined behaviour; a refusal says
 * what was expected and leaves its out-parameter alone.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const int64_t start = 1767225601000000000ll, end = start + 2 * 86400000000000ll;
	char *s = malloc(size + 1), why[512];
	struct cli_when w, w0;
	struct cli_above a, a0;
	int64_t wall;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&w0, 0x5a, sizeof(w0));
	w = w0;
	why[0] = '\0';
	if (cli_when_parse(s, &w, why, sizeof(why)) == 0) {
		if (cli_when_resolve(&w, start, end, start, true, &wall, why, sizeof(why)) < 0 &&
		    !why[0])
			abort(); /* refused without a reason */
		if (cli_when_resolve(&w, start, end, start + 3600000000000ll, true, &wall, why,
				     sizeof(why)) < 0)
			abort(); /* from a moment on, every time of day resolves */
	} else if (!why[0] || memcmp(&w, &w0, sizeof(w)) != 0) {
		abort();
	}
	memset(&a0, 0x5a, sizeof(a0));
	a = a0;
	why[0] = '\0';
	if (cli_above_parse(s, &a, why, sizeof(why)) == 0) {
		if (!isfinite(a.value) || strlen(a.unit) >= sizeof(a.unit))
			abort();
		(void)cli_above_in(&a, "MB/s");
		(void)cli_above_in(&a, "count/s");
	} else if (!why[0] || memcmp(&a, &a0, sizeof(a)) != 0) {
		abort();
	}
	free(s);
	return 0;
}
