/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Narrow counters that pmumon reads itself (hwmon CRSPACE and ecc, 32 bits;
 * Merrifield's SoC counters, 32 bits): how often to read one so it cannot
 * wrap twice unseen. At most every PM_WRAP_MAX_POLL_NS whatever the traffic
 * did since (2^32 per 250 ms = 17 G counts/s: no public source bounds these
 * blocks' clocks, so this is a model choice), and sooner when the fastest
 * rate seen so far would use half the range first (at least every
 * PM_WRAP_MIN_POLL_NS); the first read after PM_WRAP_FIRST_POLL_NS. Counters
 * of 48 bits and more need no polling.
 */
#ifndef PM_SOURCE_WRAP_H
#define PM_SOURCE_WRAP_H

#include <stdint.h>

#define PM_WRAP_FIRST_POLL_NS 100000000ull /* before any rate is known: 43 G counts/s */
#define PM_WRAP_MAX_POLL_NS 250000000ull
#define PM_WRAP_MIN_POLL_NS 1000000ull
#define PM_WRAP_WIDTH 48 /* wider counters do not wrap in a run (57 bits: 4.5 years at 1 GHz) */

struct pm_wrap_poll {
	double max_rate; /* fastest counts per ns seen */
};

/* A counter advanced by delta in dt_ns. */
void pm_wrap_poll__note(struct pm_wrap_poll *w, uint64_t delta, uint64_t dt_ns);
/* How long after a read the next one is due; UINT64_MAX: never. */
uint64_t pm_wrap_poll__interval(const struct pm_wrap_poll *w, unsigned width);

#endif
