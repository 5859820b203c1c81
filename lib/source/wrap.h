/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Narrow counters that pmumon reads itself (hwmon CRSPACE and ecc, 32 bits;
 * Merrifield's SoC counters, 32 bits; AMD's DF and L3 MSRs, 48 bits): how
 * often to read one so it cannot wrap twice unseen, and how much to trust a
 * read that came later than that.
 *
 * Polling: at most every PM_WRAP_MAX_POLL_NS whatever the traffic did since
 * (2^32 per 250 ms = 17 G counts/s: no public source bounds these blocks'
 * clocks, so this is a model choice), and sooner when the fastest rate seen
 * so far would use half the range first (at least every
 * PM_WRAP_MIN_POLL_NS); the first read after PM_WRAP_FIRST_POLL_NS.
 * Counters of 48 bits and more need no polling for wraps.
 *
 * Trust: a read can still come late (pmumon stopped with SIGSTOP or Ctrl-Z,
 * a paused VM, a starved process). Each read's difference is taken modulo
 * 2^width, which is right only if the counter wrapped at most once since the
 * read before. pm_wrap__delta compares the gap with the time the counter
 * takes to wrap at the fastest rate it was seen counting, and says when the
 * read is too late to trust (PM_ROW_WRAP_UNCERTAIN); and it tells a counter
 * that was reset (went down where it cannot wrap) from one that wrapped
 * (PM_ROW_RESET).
 */
#ifndef PM_SOURCE_WRAP_H
#define PM_SOURCE_WRAP_H

#include <stdbool.h>
#include <stdint.h>

#define PM_WRAP_FIRST_POLL_NS 100000000ull /* before any rate is known: 43 G counts/s */
#define PM_WRAP_MAX_POLL_NS 250000000ull
#define PM_WRAP_MIN_POLL_NS 1000000ull
#define PM_WRAP_WIDTH 48 /* wider counters are not polled for wraps (57 bits: 4.5 years at 1 GHz) */

/*
 * A read is doubted when the counter, at the fastest rate seen before it,
 * would have gone through more than PM_WRAP_LATE_NUM / PM_WRAP_LATE_DEN of
 * its range since the read before. Why 3/4:
 * - polls come at half the wrap time at that rate (or sooner), so a
 *   regularly polled counter reaches 3/4 only when a poll is late by half
 *   its interval or more: ordinary scheduling delay never flags a read;
 * - a wrap is lost once the gap reaches the whole wrap time at the true
 *   rate; stopping at 3/4 leaves room for a rate up to a third above the
 *   fastest seen before the flag would come too late.
 * Nothing is doubted before a rate is known (the first 100 ms) or while a
 * counter has counted nothing: there is no wrap time to compare with.
 */
#define PM_WRAP_LATE_NUM 3
#define PM_WRAP_LATE_DEN 4

struct pm_wrap_poll {
	double max_rate; /* fastest counts per ns seen */
};

/* A counter advanced by delta in dt_ns. */
void pm_wrap_poll__note(struct pm_wrap_poll *w, uint64_t delta, uint64_t dt_ns);
/* How long after a read the next one is due; UINT64_MAX: never. */
uint64_t pm_wrap_poll__interval(const struct pm_wrap_poll *w, unsigned width);
/*
 * Did a read dt_ns after the one before come too late to trust a counter
 * width bits wide, at the fastest rate w has seen (PM_WRAP_LATE_NUM/DEN of
 * its wrap time)? Never for 64-bit counters.
 */
bool pm_wrap_poll__late(const struct pm_wrap_poll *w, unsigned width, uint64_t dt_ns);

/*
 * One read of a counter width bits wide: it read last dt_ns ago and val now.
 * Stores the counts in between in *ret_delta and returns the PM_ROW_* flags
 * to raise on the counter (0: none):
 * - PM_ROW_WRAP_UNCERTAIN: pm_wrap_poll__late, with the rate of the reads
 *   before this one (a read that lost whole wraps understates its own);
 * - PM_ROW_RESET: val is below last where the counter cannot wrap (wraps
 *   false: a statistic only a write takes down, such as BlueField's pcie
 *   and ecc registers; or a 64-bit counter): someone reset or reprogrammed
 *   it. The counts of the stretch are unknown: *ret_delta is 0, and
 *   counting goes on from val.
 * Then w learns this read's rate.
 */
unsigned pm_wrap__delta(struct pm_wrap_poll *w, unsigned width, bool wraps, uint64_t last,
			uint64_t val, uint64_t dt_ns, uint64_t *ret_delta);

#endif
