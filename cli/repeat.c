// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon stat -r N: each run's totals kept as perf stat -r keeps them
 * (tools/perf/util/stat.c: update_stats on the scaled count, the enabled
 * and the running time; stddev_stats, rel_stddev_stats), and one report of
 * their means with each row's spread: the standard deviation of the mean
 * as a percentage of the mean. The elapsed time likewise (perf's
 * walltime_nsecs_stats). The mean's 95 % interval is the mean of the runs'
 * ends (docs/bounds.md: no independence assumed), its bound their worst.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli-repeat.h"

enum { V_VALUE, V_RAW, V_ENABLED, V_RUNNING, V_LO, V_HI, V__N };

static int first_run(struct cli_repeat *rp, const struct pm_report *r)
{
	rp->n_rows = r->n_rows;
	rp->stats = calloc(r->n_rows ? r->n_rows * V__N : 1, sizeof(*rp->stats));
	rp->flags = calloc(r->n_rows ? r->n_rows : 1, sizeof(*rp->flags));
	rp->bound = calloc(r->n_rows ? r->n_rows : 1, sizeof(*rp->bound));
	rp->rows = calloc(r->n_rows ? r->n_rows : 1, sizeof(*rp->rows));
	return rp->stats && rp->flags && rp->bound && rp->rows ? 0 : -ENOMEM;
}

int cli_repeat__add(struct cli_repeat *rp, const struct pm_report *r)
{
	int ret = rp->runs ? 0 : first_run(rp, r);

	if (ret < 0)
		return ret;
	if (r->n_rows != rp->n_rows)
		return -EINVAL; /* the same events, the same rows: else nothing to average */
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_row *w = &r->rows[i];
		struct cli_stats *st = &rp->stats[i * V__N];

		rp->flags[i] |= w->flags;
		/* a run that did not count it adds nothing (perf: a 0 count is not averaged
		 * in either, counter->supported) */
		if (!isfinite(w->value) || w->flags & PM_ROW_NOT_COUNTED)
			continue;
		cli_stats__add(&st[V_VALUE], w->value);
		cli_stats__add(&st[V_RAW], (double)w->raw);
		cli_stats__add(&st[V_ENABLED], (double)w->enabled_ns);
		cli_stats__add(&st[V_RUNNING], (double)w->running_ns);
		rp->bound[i] = w->bound > rp->bound[i] ? w->bound : rp->bound[i];
		cli_stats__add(&st[V_LO], w->bound == PM_BOUND_EXACT ? w->value : w->lo);
		cli_stats__add(&st[V_HI], w->bound == PM_BOUND_EXACT ? w->value : w->hi);
	}
	cli_stats__add(&rp->t, (double)r->t_ns);
	rp->runs++;
	return 0;
}

const struct pm_report *cli_repeat__report(struct cli_repeat *rp, const struct pm_report *last)
{
	rp->rep = *last;
	rp->rep.rows = rp->rows;
	rp->rep.runs = rp->runs;
	rp->rep.t_ns = (uint64_t)llround(rp->t.mean);
	rp->rep.duration_ns = rp->rep.t_ns;
	rp->rep.t_stddev_ns = cli_stats__stddev_mean(&rp->t);
	for (size_t i = 0; i < rp->n_rows && i < last->n_rows; i++) {
		const struct cli_stats *st = &rp->stats[i * V__N];
		struct pm_row *w = &rp->rows[i];

		*w = last->rows[i]; /* its labels: the last run's, alive until it is freed */
		w->flags = rp->flags[i];
		if (!st[V_VALUE].n) {
			w->value = NAN;
			w->flags |= PM_ROW_NOT_COUNTED;
			continue;
		}
		w->flags &= ~(unsigned)PM_ROW_NOT_COUNTED; /* some run counted it */
		w->value = st[V_VALUE].mean;
		w->raw = (uint64_t)llround(st[V_RAW].mean);
		w->enabled_ns = (uint64_t)llround(st[V_ENABLED].mean);
		w->running_ns = (uint64_t)llround(st[V_RUNNING].mean);
		w->running = st[V_ENABLED].mean > 0 ? st[V_RUNNING].mean / st[V_ENABLED].mean :
						      w->running;
		w->spread_pct = cli_stats__spread_pct(&st[V_VALUE]);
		w->bound = rp->bound[i];
		w->lo = w->bound == PM_BOUND_EXACT ? w->value : st[V_LO].mean;
		w->hi = w->bound == PM_BOUND_EXACT ? w->value : st[V_HI].mean;
		if (!isfinite(w->lo) || !isfinite(w->hi)) /* some run had no such end */
			w->lo = w->bound == PM_BOUND_MISSING && isfinite(w->lo) ? w->lo : NAN,
			w->hi = NAN;
	}
	return &rp->rep;
}

void cli_repeat__free(struct cli_repeat *rp)
{
	free(rp->stats);
	free(rp->flags);
	free(rp->bound);
	free(rp->rows);
	*rp = (struct cli_repeat){ 0 };
}
