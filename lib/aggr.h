/* SPDX-License-Identifier: GPL-2.0-only */
/* Aggregation (aggr.c): which row each counter adds to, and the rows' values. */
#ifndef PM_AGGR_H
#define PM_AGGR_H

#include <stdbool.h>
#include <stdint.h>

#include "pmumon/pmumon.h"
#include "source/counters.h"
#include "util/util.h"

/* Sums that become one row's value. */
struct pm_row_acc {
	size_t event;	      /* the row's event (set when rows are built) */
	long key;	      /* its aggregation bucket (device, CPU, die, socket) */
	unsigned n_in;	      /* inputs enabled during the report */
	unsigned n_uncounted; /* of those, inputs that never ran */
	unsigned instances;   /* PMU instances the row stands for (set when rows are built) */
	unsigned covered;     /* of those, instances with a live counter in the report */
	double sum;
	double half, seen; /* the inputs' 95 % half-widths added up, their counts seen */
	unsigned bound;	   /* the inputs' worst PM_BOUND_* */
};

struct pm_metric_row;
struct pm_attrib_rows;

/* A session's rows: event rows (aggr.c), then metric rows (metric/metric.c). */
struct pm_rows {
	struct pm_row *rows_iv, *rows_tot; /* event rows, then metric rows */
	struct pm_row_acc *acc;		   /* per event row scratch for pm_aggr__compute */
	size_t n_rows;			   /* event rows */
	struct pm_metric_row *mrows;	   /* metric rows, after the event rows (metric.h) */
	size_t n_mrows;
	double *mvals;	   /* slot values while evaluating one metric row */
	double *mlo, *mhi; /* and their intervals (metric/metric.c) */
	unsigned *mbound;
	double core_wide; /* #core_wide for this session (metric/literal.h) */
	struct pm_report rep_iv, rep_tot;
	struct pm_attrib_rows *arows; /* memory traffic per cgroup, after the metric rows */
	size_t n_arows;
	struct pm_names domains; /* the rows' domain labels (aggr.c) */
};

/* aggr.c: rows for the session's aggregation mode, and their values. */
/* A counter's deltas over the report; false when it was not enabled in it. */
bool pm_aggr__delta(const struct pm_session *s, const struct pm_counter *c, bool interval,
		    uint64_t *ret_val, uint64_t *ret_ena, uint64_t *ret_run);
/*
 * A counter's count over the report (its deltas from pm_aggr__delta), with
 * its 95 % interval: its track's estimate where its source tracked it
 * (source/estimate.h), else exact when it ran all the time it was enabled,
 * and unmeasured when it was scaled with nothing to measure the spread.
 */
void pm_aggr__estimate(const struct pm_session *s, const struct pm_counter *c, bool interval,
		       uint64_t val, uint64_t ena, uint64_t run, struct pm_estimate *ret);
/* The event rows' buckets: which row each counter adds to (s->rows made here). */
int pm_aggr__build(struct pm_session *s);
/* The event rows themselves, in room for the metric rows after them too. */
int pm_aggr__fill(struct pm_session *s);
/* Free the rows (after the metric rows). */
void pm_aggr__done(struct pm_session *s);
void pm_aggr__compute(struct pm_session *s, bool interval, struct pm_row *rows);

#endif
