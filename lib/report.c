// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reports: the top of a session's pipeline. Opening a session opens its
 * counters (session.c), then builds the rows the reports show, each layer
 * from the one below: the event rows' buckets (aggr.c), the metric rows in
 * those buckets (metric/metric.c), the event rows themselves in room for the
 * metric rows after them, and the metric rows' labels. A report computes
 * them again from the counters' latest reads.
 */
#include <errno.h>
#include <stdlib.h>

#include "aggr.h"
#include "attrib.h"
#include "metric/metric.h"
#include "session.h"
#include "source/tool/tool.h"

static int build_rows(struct pm_session *s)
{
	int r = pm_aggr__build(s);

	if (r == 0)
		r = pm_metric__build_rows(s);
	if (r == 0)
		r = pm_attrib__build_rows(s);
	if (r == 0)
		r = pm_aggr__fill(s);
	if (r == 0) {
		pm_metric__label_rows(s, s->rows->rows_iv);
		pm_metric__label_rows(s, s->rows->rows_tot);
		pm_attrib__label_rows(s, s->rows->rows_iv);
		pm_attrib__label_rows(s, s->rows->rows_tot);
	}
	return r;
}

int pm_session__open(struct pm_session *s, struct pm_diag *reterr)
{
	int r = pm_session__open_counters(s, reterr);

	return r < 0 ? r : build_rows(s);
}

void pm_session__free(struct pm_session *s)
{
	if (!s)
		return;
	if (s->rows) {
		pm_attrib__rows_done(s);
		pm_metric__rows_done(s);
	}
	pm_aggr__done(s);
	pm_session__destroy(s);
}

const struct pm_report *pm_session__report(struct pm_session *s, bool interval)
{
	struct pm_rows *rw = s->rows;
	struct pm_report *rep;
	struct pm_row *rows;

	if (!rw)
		return NULL; /* not opened: no rows yet */
	rep = interval ? &rw->rep_iv : &rw->rep_tot;
	rows = interval ? rw->rows_iv : rw->rows_tot;
	pm_aggr__compute(s, interval, rows);
	rep->interval = interval;
	rep->t_ns = s->t_now_ns - s->t_enable_ns;
	rep->duration_ns = interval ? s->t_now_ns - s->t_prev_ns : rep->t_ns;
	rep->wall_ns = s->wall_now_ns;
	rep->aggr = s->opts.aggr;
	/* perf's ru_display (builtin-stat.c): the command's times, when one is the target */
	rep->task_times = !interval && s->opts.target == PM_TARGET_TASK &&
			  pm_tool__task_times(s, &rep->user_ns, &rep->system_ns);
	pm_metric__compute(s, rep, rows);
	pm_attrib__compute(s, rep, rows);
	rep->n_rows = rw->n_rows + rw->n_mrows + rw->n_arows;
	rep->rows = rows;
	return rep;
}
