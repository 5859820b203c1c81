/* SPDX-License-Identifier: GPL-2.0-only */
/* The perf source: discovery of perf PMUs (counting is pm_source_perf, session.h). */
#ifndef PM_SOURCE_PERF_H
#define PM_SOURCE_PERF_H

struct pm_ctx;

/* Add every PMU under sys/bus/event_source/devices to the context. */
int pm_perf__discover(struct pm_ctx *ctx);
bool pm_perf__present(struct pm_ctx *ctx, const struct pm_pmu *p);

#endif
