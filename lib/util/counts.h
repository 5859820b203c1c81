/* SPDX-License-Identifier: GPL-2.0-only */
/* Pure arithmetic on a counter's (value, enabled, running) readings. */
#ifndef PM_COUNTS_H
#define PM_COUNTS_H

#include <stdint.h>

/*
 * A multiplexed count scaled to the whole enabled time: val * ena / run
 * (perf's scaling, kernel-facts §0.2). Computed in double as val * (ena / run), so
 * no 64-bit product can overflow. A counter that ran all the time it was
 * enabled (run >= ena) is its value as it is; one that never ran (run == 0)
 * has no value: NaN, never a division by zero.
 */
double pm_counts__scale(uint64_t val, uint64_t ena, uint64_t run);
/* v in its unit: v * scale, or v / N where scale is 1/N (ns to msec: / 1e6, the
 * nearest double to the decimal, where * 1e-6 may be an ulp off it). */
double pm_counts__unit(double v, double scale);

#endif
