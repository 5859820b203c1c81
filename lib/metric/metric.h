/* SPDX-License-Identifier: GPL-2.0-only */
/* Metric rows (metric.c): a compiled metric evaluated per bucket of the event rows. */
#ifndef PM_METRIC_H
#define PM_METRIC_H

#include "aggr.h"
#include "metric/compiled.h"

/* A metric's row in one bucket: which rows feed each of its slots. */
struct pm_metric_row {
	size_t metric;
	long key;
	size_t *in; /* per slot: a row index, SIZE_MAX for none (or not a row input) */
	/* SumOfDevices metrics: the PMU instances (index within their event) in this bucket,
	 * and an index of their counters: unit u's of slot k are
	 * ctr[ctr_at[u * n_slots + k] .. ctr_at[u * n_slots + k + 1]) */
	size_t *units;
	size_t n_units;
	size_t *ctr, *ctr_at;
};

/* metric/metric.c: the metric rows after the event rows. */
int pm_metric__build_rows(struct pm_session *s);
void pm_metric__label_rows(struct pm_session *s, struct pm_row *rows);
void pm_metric__compute(struct pm_session *s, const struct pm_report *rep, struct pm_row *rows);
void pm_metric__rows_done(struct pm_session *s);

#endif
