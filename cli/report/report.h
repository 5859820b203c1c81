/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmumon report's parts: what a report holds (a run's intervals and, per
 * series, a value each), the times and thresholds users give it (when.c),
 * its series in words (series.c), its plots (plot.c) and its HTML page (html.c).
 */
#ifndef PMUMON_CLI_REPORT_H
#define PMUMON_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- when.c: --from/--to, --above, and wall clocks for people ----------------------- */

/*
 * A moment as the user gives it: seconds into the run ("90", "1.5"), a time of day
 * ("02:03", "02:03:30", "02:03:30.25"), or an ISO 8601 date-time ("2026-01-31T02:03",
 * "2026-01-31 02:03:30", with "Z" or "+01:00" or local time without a zone).
 */
enum cli_when_kind { CLI_WHEN_SECONDS, CLI_WHEN_TIME_OF_DAY, CLI_WHEN_DATE_TIME };
struct cli_when {
	enum cli_when_kind kind;
	double seconds;	      /* CLI_WHEN_SECONDS */
	int year, month, day; /* CLI_WHEN_DATE_TIME */
	int hour, minute;     /* the last two kinds */
	double second;	      /* with its fraction */
	bool zoned;	      /* a date-time with Z or an offset: offset_s is it */
	int offset_s;	      /* east of UTC */
};
/* 0, or -EINVAL with why (size bytes) saying what was expected. */
int cli_when_parse(const char *s, struct cli_when *ret, char *why, size_t size);
/*
 * Its wall clock (ns since the epoch) for a run that began at start_wall_ns (t = 0) and
 * ended at end_wall_ns: seconds into the run from its start; a time of day, the first at
 * or after not_before_ns (the run's start, or --from's moment for --to); a date-time
 * without a zone in local time (or UTC with utc). A time of day the run has twice
 * (a run of more than a day) is refused: -ERANGE with why naming the dates to choose from.
 */
int cli_when_resolve(const struct cli_when *w, int64_t start_wall_ns, int64_t end_wall_ns,
		     int64_t not_before_ns, bool utc, int64_t *ret_wall_ns, char *why, size_t size);
/* A wall clock for people: "2026-01-31 02:03:30" in local time (or UTC with utc); with
 * ms, ".250" too. */
void cli_wall_text(int64_t wall_ns, bool utc, bool ms, char *buf, size_t size);
/* The zone a wall clock is shown in: "UTC", "UTC+01:00" (local time, at that moment). */
void cli_zone_text(int64_t wall_ns, bool utc, char *buf, size_t size);
/* Seconds east of UTC of local time at wall_ns (0 with utc). */
long cli_zone_offset(int64_t wall_ns, bool utc);
/* ISO 8601 in UTC: "2026-01-31T02:03:30.250Z". */
void cli_wall_iso(int64_t wall_ns, char *buf, size_t size);

/*
 * --above: a share of the channel peak ("80%"), a bare value in the unit of the series
 * shown ("6400"), or a value with its unit ("25.6GB/s", "6400 MB/s", "3e7 count/s").
 */
struct cli_above {
	double value;
	bool pct;
	char unit[32]; /* "" when bare */
};
int cli_above_parse(const char *s, struct cli_above *ret, char *why, size_t size);
/*
 * The threshold of an --above with a unit for a series in unit: value itself in the same
 * unit, or converted between bandwidths (25.6GB/s is 25600 MB/s); NaN when it does not
 * apply.
 */
double cli_above_in(const struct cli_above *a, const char *unit);

/* ---- what a report holds (cmd-report.c builds it; plot.c and html.c draw it) ----------- */

struct rep_series {
	char name[256], unit[40], place[384];
	bool metric;
	bool rate;  /* an event's count shown per second of its interval */
	bool total; /* the machine's total of a name shown per place (plots, the page) */
	double *v;  /* per interval of the axis; NaN: not counted */
	unsigned *flags;
	double *lo, *hi; /* its 95 % interval (docs/bounds.md); NaN: none */
	unsigned *bound; /* PM_BOUND_* */
	/* the statistics over the intervals counted */
	size_t counted;
	double min, mean, p50, p95, max, above_s;
	unsigned worst;	  /* every flag an interval had */
	double threshold; /* --above's in its unit; NaN: none */
	/* the mean's 95 % interval: the mean of the intervals' ends (no independence
	 * assumed, docs/bounds.md), NaN when an interval had none; the widest interval in %
	 * of its value; the worst bound */
	double mean_lo, mean_hi, widest_pct;
	unsigned worst_bound;
};

struct rep_data {
	const char *file;
	long long run;
	char command[4096], platform[256], sim_platform[64], cpuid[128], lost[1024], aggr[16];
	bool simulated;
	bool utc;
	int64_t start_wall_ns; /* t = 0 of the run: counting began */
	/* the intervals shown: end since the run's start, wall clock at the end, length */
	int64_t *t_ns, *wall_ns, *dur_ns;
	size_t n;
	struct rep_series *s;
	size_t n_s, cap_s;
	const char *rows; /* how the rows are grouped: "total", "per device" ... */
};

/* series.c: a value in doubt: extrapolated, partial, of a lost device... (not one not counted). */
bool rep_doubtful(double v, unsigned flags);
/* The worst quality as flag names joined by '|' ("" when none). */
void rep_quality_text(unsigned flags, char *buf, size_t size);
/* The intervals in words (docs/bounds.md): "mean ± 1.2 %, widest ± 3.4 %", "mean ± ? %"
 * where an interval had no end; "" when every value was exact. */
void rep_bound_text(const struct rep_series *s, char *buf, size_t size);

/* plot.c: the series drawn with gnuplot into path (.png or .svg): 0 or -errno (said). */
int rep_plot(const struct rep_data *d, const char *path);
/* html.c: one self-contained page into path: 0 or -errno (said). */
int rep_html(const struct rep_data *d, const char *path, bool above_given);

#endif
