/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Metrics in an event list (the expr layer, below the event list that holds
 * them; metric.c compiles them and computes their rows): a pack's MetricExpr
 * compiled once, its names
 * bound to slots — an event of the list (added for it when needed), another
 * metric, duration_time, a topology literal or a --define constant — and
 * evaluated per output row (device, die, socket or the whole machine) on
 * the same multiplex-scaled values the event rows show.
 */
#ifndef PM_METRIC_COMPILED_H
#define PM_METRIC_COMPILED_H

#include <stdbool.h>
#include <stddef.h>

#include "metric/expr.h"

struct pm_evlist;
struct pm_metric_def;
struct pm_constant_def;

enum pm_metric_slot_kind {
	PM_SLOT_EVENT,	     /* the value of event idx in the same row's bucket */
	PM_SLOT_METRIC,	     /* the value of metric idx in the same bucket */
	PM_SLOT_DURATION,    /* duration_time: the report's seconds */
	PM_SLOT_CONST,	     /* a literal or --define: value */
	PM_SLOT_SOURCES,     /* source_count(event idx): the counters in its row */
	PM_SLOT_USER_TIME,   /* user_time: the command's user CPU seconds (totals) */
	PM_SLOT_SYSTEM_TIME, /* system_time: its system CPU seconds (totals) */
	PM_SLOT_CORE_WIDE,   /* #core_wide: the session's (metric/literal.h) */
};

struct pm_metric_slot {
	enum pm_metric_slot_kind kind;
	size_t idx;
	double value;
};

struct pm_metric {
	const struct pm_metric_def *def;
	char *unit;   /* "MB/s", "%" or "" */
	double scale; /* ScaleUnit's factor */
	struct pm_expr *expr;
	struct pm_metric_slot *slots;
	size_t n_slots, cap_slots;
	bool busy; /* being compiled: a reference back to it is a cycle */
	/* a pack constant it uses that has no value and no --define: it is NaN */
	const struct pm_constant_def *missing;
	/* a #literal (or CPU id) this machine cannot tell, and why: it is NaN; owned */
	char *unknown;
	/* the cgroup whose events it is computed from (--for-each-cgroup, an import of rows
	 * per cgroup), NULL: its inputs' rows name it; owned */
	char *cgroup;
	/* its rows' name where the list holds its name once per PMU family (a hybrid's
	 * "IpCall (cpu_core)" and "IpCall (cpu_atom)"), NULL: the definition's; owned */
	char *label;
	/*
	 * Its dimension (classify): the degree in time of its value (1: an
	 * amount that grows with the interval, a count or bytes; 0: a rate, a
	 * ratio, a share; PM_EXPR_NO_DEGREE: neither), the same counting only
	 * what counters count (duration_time as 0), and whether it is a ratio
	 * of two amounts that count something (misses / accesses, cycles /
	 * instructions: pm_row.num and den), not a rate over duration_time.
	 */
	int degree, count_degree;
	bool ratio;
};

/* A name=value constant for metrics (--define ddrc_freq=1.6e9). */
struct pm_define {
	char *name;
	double value;
};

/* compiled.c: free what a compiled metric holds. */
void pm_metric__done(struct pm_metric *m);

#endif
