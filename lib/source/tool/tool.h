/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's tool events (source/tool/tool.c): duration_time, user_time and
 * system_time, on the PMU "tool" that pmumon counts itself.
 */
#ifndef PM_SOURCE_TOOL_H
#define PM_SOURCE_TOOL_H

#include <stdbool.h>
#include <stdint.h>

struct pm_session;

/* The tool PMU's type: no kernel PMU has it (perf's PERF_PMU_TYPE_TOOL, pmu.h). */
#define PM_TOOL_PMU_TYPE 0xffffffffu

/*
 * The counted command's user (system: kernel) CPU time in seconds, as a
 * metric's user_time and system_time take it (perf's stat-shadow.c
 * prepare_metric: a tool time event's ns x 1e-9). False while the command
 * runs, with no command, and for an interval: the rusage covers the run.
 */
bool pm_tool__task_time(const struct pm_session *s, bool system, bool interval,
			double *ret_seconds);
/* The same times in ns, both: false until pm_session__task_times gave them. */
bool pm_tool__task_times(const struct pm_session *s, uint64_t *ret_user_ns,
			 uint64_t *ret_system_ns);

#endif
