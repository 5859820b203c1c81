// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the simulator's scenario parser (`--sim P:scenario=FILE`) with every
 * platform's quantities: any bytes, no crash, no leak, no undefined
 * behaviour; an error names the file; what parses integrates to finite,
 * non-negative, nondecreasing truths whose counts convert cleanly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "platform.h"

static const struct sim_platform *const platforms[] = {
	&sim_platform_yitian710,  &sim_platform_amdzen2,    &sim_platform_bluefield2,
	&sim_platform_bluefield3, &sim_platform_merrifield,
};

/* Scenario times up to past the longest run: the last phase forever, a freeze of years. */
static const uint64_t times[] = {
	0, 1, 999999999, 1000000000, 3600000000000ull, SIM_TIME_MAX, 2 * SIM_TIME_MAX + 12345
};

static void check_truths(const struct sim_scenario *s, const struct sim_quantity *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int last = q[i].instances > 1 ? q[i].instances - 1 : 0;
		double prev = 0;

		for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++) {
			double v = sim_scenario__integral(s, (int)i, last, times[k]);
			double v2 = sim_scenario__integral2(s, (int)i, 0, (int)(n - 1 - i), 0,
							    times[k]);

			if (!isfinite(v) || v < 0 || v < prev || !isfinite(v2) || v2 < 0)
				abort();
			prev = v;
			(void)sim_count(v, 1.0 / 64);
			(void)sim_count(v2, 1e3);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t p = 0; p < sizeof(platforms) / sizeof(platforms[0]); p++) {
		const struct sim_platform *plat = platforms[p];
		struct sim_scenario *s = NULL;
		char err[512] = "";
		int r;

		if (sim_scenario__new(plat->quantities, plat->n_quantities, &s) < 0)
			abort();
		r = sim_scenario__parse(s, (const char *)data, size, "fuzz.scn", err, sizeof(err));
		if (r < 0 && r != -ENOMEM && strncmp(err, "fuzz.scn:", 9) != 0)
			abort(); /* every error names the file and line */
		if (r == 0) {
			uint64_t t = 0;

			for (size_t i = 0; i < sim_scenario__fault_count(s); i++) {
				const struct sim_fault *f = sim_scenario__fault(s, i);

				if (f->t_ns < t || !f->what[0] || f->line < 1)
					abort(); /* in time order, each from a line */
				t = f->t_ns;
			}
			if (sim_scenario__fault(s, sim_scenario__fault_count(s)) != NULL)
				abort();
			check_truths(s, plat->quantities, plat->n_quantities);
		}
		sim_scenario__free(s);
	}
	return 0;
}
