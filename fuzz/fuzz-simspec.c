// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the --sim PLATFORM[:KEY=VALUE,...] parser (sim/platform.c) and the
 * machine it builds from what parses: any bytes, no crash, no leak, no
 * undefined behaviour; a refusal says why; a machine built has its
 * settings files (docs/simulator.md). Specs naming files (scenario=,
 * state=) are left out: the fuzzer must not read or write the host's.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pmumon/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = malloc(size + 1), err[256];
	struct pm_sim *sim = NULL;
	int r;

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (strlen(spec) != size || strstr(spec, "scenario") || strstr(spec, "state")) {
		free(spec);
		return 0;
	}
	r = pm_sim__new_platform(spec, &sim, err, sizeof(err));
	if (r < 0 && (sim || !err[0]))
		abort(); /* refused without a reason, or half built */
	if (r == 0) {
		const struct pm_os_ops *ops = pm_sim__ops();
		int fd = ops->open(sim, "proc/self/status", 0);

		if (fd < 0)
			abort(); /* every machine says who runs pmumon */
		ops->close(sim, fd);
		pm_sim__free(sim);
	}
	free(spec);
	return 0;
}
