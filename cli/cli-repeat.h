/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * stat -r's statistics over runs (cli/util.c, cli/repeat.c). */
#ifndef PMUMON_CLI_REPEAT_H
#define PMUMON_CLI_REPEAT_H

#include <stddef.h>

#include "pmumon/pmumon.h"

/*
 * perf stat -r's statistics of one value over the runs (tools/perf/util/stat.c:
 * update_stats, stddev_stats, rel_stddev_stats): the running mean, the
 * standard deviation of that mean (0 below two runs), and that as a
 * percentage of the mean (0 for a mean of 0).
 */
struct cli_stats {
	double n, mean, m2;
};
void cli_stats__add(struct cli_stats *s, double v);
double cli_stats__stddev_mean(const struct cli_stats *s);
double cli_stats__spread_pct(const struct cli_stats *s);

/*
 * pmumon stat -r (cli/repeat.c): each run's totals added (0; -EINVAL when a
 * run's rows are not the first's; -ENOMEM), then one report of their means,
 * each row's spread_pct and the elapsed time's spread set, its labels taken
 * from last (the last run's totals, which must stay alive while it is used).
 */
struct cli_repeat {
	unsigned runs;
	size_t n_rows;
	struct cli_stats *stats; /* per row: value, raw, enabled, running, lo, hi */
	unsigned *flags;	 /* per row: every run's flags */
	unsigned *bound;	 /* per row: the runs' worst PM_BOUND_* */
	struct pm_row *rows;
	struct cli_stats t; /* elapsed */
	struct pm_report rep;
};
int cli_repeat__add(struct cli_repeat *rp, const struct pm_report *r);
const struct pm_report *cli_repeat__report(struct cli_repeat *rp, const struct pm_report *last);
void cli_repeat__free(struct cli_repeat *rp);

#endif
