/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's #literals in metric expressions, each with this machine's value:
 * #num_cpus, #num_cpus_online, #num_cores, #num_dies, #num_packages,
 * #smt_on, #has_pmem, #slots, #system_tsc_freq (case-insensitive, as perf's
 * tool_pmu__str_to_event), and #core_wide (a session's: see below).
 */
#ifndef PM_METRIC_LITERAL_H
#define PM_METRIC_LITERAL_H

#include <stdbool.h>
#include <stddef.h>

struct pm_ctx;
struct pm_session;

#define PM_LITERAL_SESSION 1 /* #core_wide: the value depends on what a session counts */

/*
 * The value of literal name ("#smt_on") on ctx's machine. Return: 0 with
 * *ret; PM_LITERAL_SESSION for #core_wide; -ENOENT when perf has no such
 * literal; -ENODATA when this machine cannot tell (a recording, a file the
 * kernel does not have, a CPU without a TSC frequency in /proc/cpuinfo):
 * why says so, for the metric's note. Never a guess.
 */
int pm_literal__value(struct pm_ctx *ctx, const char *name, double *ret, char *why,
		      size_t why_size);

/*
 * #core_wide for a session (perf's core_wide(), tools/perf/util/smt.c): its
 * counters see everything that runs on the cores they count, so per-core
 * events may be read as the core's. System-wide: yes; a task: no; a CPU
 * list: yes when SMT is off, or when the list takes each core's threads
 * all or none.
 */
bool pm_literal__core_wide(const struct pm_session *s);

#endif
