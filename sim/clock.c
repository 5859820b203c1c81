// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's clock: virtual (moved only by pm_sim__advance and the
 * kernel's waits), or the real monotonic clock from where the virtual one
 * stood. The kernel (kernel.c), its perf core (perf.c) and the platforms
 * read it here, so none of them needs another's file for the time.
 */
#include <time.h>

#include "sim-internal.h"

static uint64_t real_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void pm_sim__use_real_clock(struct pm_sim *sim, bool real)
{
	sim->real_clock = real;
	sim->real_base = real_mono() - sim->now_ns;
}

bool pm_sim__real_clock(const struct pm_sim *sim)
{
	return sim->real_clock;
}

uint64_t pm_sim__now(const struct pm_sim *sim)
{
	return sim->real_clock ? real_mono() - sim->real_base : sim->now_ns;
}
