/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf source: discovery of perf PMUs (counting is pm_source_perf, session.h). */
#ifndef PM_SOURCE_PERF_H
#define PM_SOURCE_PERF_H

#include <stddef.h>
#include <stdint.h>

struct pm_ctx;

/* Add every PMU under sys/bus/event_source/devices to the context. */
int pm_perf__discover(struct pm_ctx *ctx);
bool pm_perf__present(struct pm_ctx *ctx, const struct pm_pmu *p);
/* kernel.perf_event_paranoid: 0, or -ENOENT (unreadable), -EINVAL. */
int pm_perf__paranoid(struct pm_ctx *ctx, int *ret);
/* The most events a group read with read_format (PERF_FORMAT_*, GROUP included) may hold
 * on any kernel (docs/kernel-facts.md 0.2); pm_perf__group_max: with the perf source's. */
size_t pm_perf__group_max_for(uint64_t read_format);
size_t pm_perf__group_max(void);

#endif
