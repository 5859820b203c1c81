// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon report: look back at a recording. Per event or metric and place:
 * min, mean, p50, p95, max over the intervals counted, the time above a
 * threshold, and the worst quality seen; plots through gnuplot and one
 * self-contained HTML page, with a gap (never a 0) where a value was not
 * counted, on a wall-clock axis.
 *
 * Rows are the machine's total unless a --per-* says otherwise, as in
 * stat. What the recording kept at those rows is read as it is; any other
 * rows, and any metric it did not keep, are computed again from its raw
 * deltas by the library (the replay source fed from SQLite, store/feed.c:
 * the same engine as stat), never by adding up or averaging its values. A
 * file import reads (perf stat -x, or -j output, pmumon CSV or JSON Lines)
 * is played back the same way.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-commands.h"
#include "cli-replay.h"
#include "cli-values.h"
#include "cli-text.h"
#include "util.h"
#include "config.h"
#include "report/report.h"
#include "store/store.h"

struct report_args {
	const char *path;
	const char *names[CLI_MAX_ARGS]; /* -M/-e NAME or GLOB: which series */
	size_t n_names;
	struct cli_count count; /* -M NAMEs to compute, --define, --per-* */
	const char *packs;	/* a text recording's --pack */
	const char *from, *to;	/* as given */
	bool utc;
	bool above_given;
	struct cli_above above;
	const char *plot, *html;
	char sep;  /* -x: CSV */
	bool json; /* -j: JSON Lines */
	long long run;
	int place_w;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmumon report FILE [OPTIONS]\n"
		"\n"
		"Statistics of a recording, per event or metric and place, over the\n"
		"intervals that counted: min, mean, p50, p95, max, the time above a\n"
		"threshold, and the worst quality seen (a value extrapolated, a device\n"
		"lost...); with the run's start, end and length in local time. Events are\n"
		"shown as rates (count/s). Values not counted are left out of the statistics\n"
		"and shown as gaps in plots, never as 0. FILE is a pmumon recording (record,\n"
		"serve --store), or what pmumon import reads: perf stat -x, or -j output\n"
		"(with -I: one interval each), pmumon CSV or JSON Lines, a counts CSV.\n"
		"\n"
		"What and where (rows: the machine's total, as stat gives it):\n"
		"  -M, -e NAME           only these events or metrics (a glob; repeatable);\n"
		"                        -M NAME also computes metric NAME from the events the\n"
		"                        recording holds (the same formulas as stat)\n"
		"      --per-device, --per-channel, --per-die, --per-socket, -A\n"
		"                        rows per place, computed again from the recorded\n"
		"                        deltas where the recording kept other rows\n"
		"      --define NAME=VALUE  a constant: channel_peak=B/s for --above N%%, or\n"
		"                        what a metric needs (the recording's own are used)\n"
		"      --pack NAMES      a file import reads: the packs of its machine\n"
		"      --run N           the run N of the file (the last)\n"
		"When:\n"
		"      --from WHEN, --to WHEN  the intervals that overlap this window: seconds\n"
		"                        into the run (90), a time of day (02:03, 02:03:30), or a\n"
		"                        date and time (2026-01-31T02:03:30, Z or +01:00 for a\n"
		"                        zone); local time unless --utc\n"
		"      --utc             times in and out in UTC, not local time\n"
		"      --above VALUE     also the time each series spent above VALUE, in the unit\n"
		"                        of the series shown (they must have one unit), or\n"
		"      --above VALUEUNIT  of the series in UNIT (25.6GB/s, '6400 MB/s':\n"
		"                        bandwidths convert),\n"
		"      --above N%%        or above N%% of --define channel_peak=B/s (bandwidths)\n"
		"Output (a table by default):\n"
		"      --plot OUT.png|OUT.svg  a panel per unit, a line per place (gnuplot)\n"
		"      --html OUT.html   one page, charts and statistics, that opens offline\n"
		"  -x, --field-separator SEP  CSV with a header row\n"
		"  -j, --json            JSON Lines, an object per series\n"
		"\n"
		"Examples:\n"
		"  pmumon report run.db -M ddr_read_bandwidth.all --from 02:03 --to 02:05\n"
		"  pmumon report run.db -M 'ddr_*' --per-channel --plot ddr.svg\n"
		"  pmumon report run.db -M ddr_bandwidth.all --per-channel \\\n"
		"                --define channel_peak=25.6e9 --above 80%% --html run.html\n"
		"  pmumon report perf.csv --pack yitian710 -M ddr_read_bandwidth.all\n");
}

enum {
	OPT_FROM = 4000,
	OPT_TO,
	OPT_ABOVE,
	OPT_PLOT,
	OPT_RUN,
	OPT_PACK,
	OPT_HTML,
	OPT_UTC,
};

static int report_option(void *arg_, int c, const char *arg)
{
	struct report_args *a = arg_;
	unsigned long run;
	char why[512];

	switch (c) {
	case 'M':
	case 'e':
		if (a->n_names == CLI_MAX_ARGS) {
			cli_error("at most %d -M/-e", CLI_MAX_ARGS);
			return -EINVAL;
		}
		a->names[a->n_names++] = arg;
		/* a metric named (not a glob) is computed from the recording's events */
		if (c == 'M' && !strpbrk(arg, "*?["))
			a->count.metrics[a->count.n_metrics++] = arg;
		return 0;
	case CLI_OPT_DEFINE:
	case CLI_OPT_PER_DEVICE:
	case CLI_OPT_PER_CHANNEL:
	case CLI_OPT_PER_DIE:
	case CLI_OPT_PER_SOCKET:
	case 'A':
		return cli_count__option(&a->count, c, arg) < 0 ? -EINVAL : 0;
	case OPT_PACK:
		a->packs = arg;
		return 0;
	case 'j':
		a->json = true;
		return 0;
	case OPT_FROM:
	case OPT_TO: {
		struct cli_when w;

		if (cli_when_parse(arg, &w, why, sizeof(why)) < 0) {
			cli_error("%s: %s", c == OPT_FROM ? "--from" : "--to", why);
			return -EINVAL;
		}
		*(c == OPT_FROM ? &a->from : &a->to) = arg;
		return 0;
	}
	case OPT_UTC:
		a->utc = true;
		return 0;
	case OPT_ABOVE:
		if (cli_above_parse(arg, &a->above, why, sizeof(why)) < 0) {
			cli_error("--above: %s", why);
			return -EINVAL;
		}
		a->above_given = true;
		return 0;
	case OPT_PLOT:
		a->plot = arg;
		return 0;
	case OPT_HTML:
		a->html = arg;
		return 0;
	case OPT_RUN:
		if (cli_parse_uint("--run", arg, 1000000000, &run) < 0)
			return -EINVAL;
		a->run = (long long)run;
		return 0;
	case 'x':
		return cli_parse_separator("-x", arg, &a->sep);
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "metrics", required_argument, NULL, 'M' },
		{ "event", required_argument, NULL, 'e' },
		{ "define", required_argument, NULL, CLI_OPT_DEFINE },
		{ "per-device", no_argument, NULL, CLI_OPT_PER_DEVICE },
		{ "per-channel", no_argument, NULL, CLI_OPT_PER_CHANNEL },
		{ "per-die", no_argument, NULL, CLI_OPT_PER_DIE },
		{ "per-socket", no_argument, NULL, CLI_OPT_PER_SOCKET },
		{ "per-cpu", no_argument, NULL, 'A' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "pack", required_argument, NULL, OPT_PACK },
		{ "json", no_argument, NULL, 'j' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "utc", no_argument, NULL, OPT_UTC },
		{ "above", required_argument, NULL, OPT_ABOVE },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "run", required_argument, NULL, OPT_RUN },
		{ "field-separator", required_argument, NULL, 'x' },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = { "report", "M:e:x:jAvh", opts, usage,
						       report_option };
	int r = cli_getopt(argc, argv, &co, NULL, NULL, a);

	if (r)
		return r;
	if (optind + 1 != argc) {
		cli_error("report reads one recording: pmumon report FILE");
		return -EINVAL;
	}
	if (a->above_given && a->above.pct &&
	    !(cli_count__defined(&a->count, "channel_peak") > 0)) {
		cli_error("--above %g%% is a share of a channel's peak: give the peak with --define "
			  "channel_peak=BYTES/S (pmumon knows none)",
			  a->above.value);
		return -EINVAL;
	}
	if (a->sep && a->json) {
		cli_error("give -x or -j, not both");
		return -EINVAL;
	}
	a->path = argv[optind];
	if (a->plot && !strstr(a->plot, ".png") && !strstr(a->plot, ".svg")) {
		cli_error("--plot draws OUT.png or OUT.svg, not '%s'", a->plot);
		return -EINVAL;
	}
	return 0;
}

static bool wanted(const struct report_args *a, const char *name)
{
	if (!a->n_names)
		return true;
	for (size_t i = 0; i < a->n_names; i++)
		if (!fnmatch(a->names[i], name, 0))
			return true;
	return false;
}

/* The rows asked for: a --per-*, or the machine's total. */
static enum pm_aggr rows_of(const struct report_args *a)
{
	return a->count.n_aggr ? a->count.aggr : PM_AGGR_FAMILY;
}

static const char *rows_text(enum pm_aggr aggr)
{
	switch (aggr) {
	case PM_AGGR_FAMILY:
		return "the machine's total";
	case PM_AGGR_DEVICE:
		return "per device";
	case PM_AGGR_CHANNEL:
		return "per channel";
	case PM_AGGR_DIE:
		return "per die";
	case PM_AGGR_SOCKET:
		return "per socket";
	case PM_AGGR_CPU:
		return "per CPU";
	default:
		return cli_aggr_name(aggr);
	}
}

/* ---- the data ------------------------------------------------------------------------- */

static void series_free(struct rep_series *s)
{
	free(s->v);
	free(s->flags);
	free(s->lo);
	free(s->hi);
	free(s->bound);
}

static void data_free(struct rep_data *d)
{
	for (size_t i = 0; i < d->n_s; i++)
		series_free(&d->s[i]);
	free(d->s);
	free(d->t_ns);
	free(d->wall_ns);
	free(d->dur_ns);
}

/* A new series of n intervals (not counted until given): its index, or -ENOMEM. */
static long add_series(struct rep_data *d, const char *name, const char *unit, const char *place,
		       bool metric, bool rate, bool total, size_t n)
{
	struct rep_series *s;

	if (pm_grow((void **)&d->s, &d->cap_s, d->n_s + 1, sizeof(*d->s)) < 0)
		return -ENOMEM;
	s = &d->s[d->n_s];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	/* an event's count is shown per second: count/s, or its unit per second */
	if (rate)
		snprintf(s->unit, sizeof(s->unit), "%s/s", unit[0] ? unit : "count");
	else
		snprintf(s->unit, sizeof(s->unit), "%s", unit);
	snprintf(s->place, sizeof(s->place), "%s", place);
	s->metric = metric;
	s->rate = rate;
	s->total = total;
	s->v = malloc((n + 1) * sizeof(*s->v));
	s->flags = malloc((n + 1) * sizeof(*s->flags));
	s->lo = malloc((n + 1) * sizeof(*s->lo));
	s->hi = malloc((n + 1) * sizeof(*s->hi));
	s->bound = malloc((n + 1) * sizeof(*s->bound));
	if (!s->v || !s->flags || !s->lo || !s->hi || !s->bound) {
		series_free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		s->v[i] = s->lo[i] = s->hi[i] = NAN;
		s->flags[i] = PM_ROW_NOT_COUNTED;
		s->bound[i] = PM_BOUND_NO_VALUE;
	}
	return (long)d->n_s++;
}

/* The intervals axis of n entries. */
static int axis_alloc(struct rep_data *d, size_t n)
{
	d->t_ns = calloc(n + 1, sizeof(*d->t_ns));
	d->wall_ns = calloc(n + 1, sizeof(*d->wall_ns));
	d->dur_ns = calloc(n + 1, sizeof(*d->dur_ns));
	d->n = n;
	return d->t_ns && d->wall_ns && d->dur_ns ? 0 : -ENOMEM;
}

/* Playing a recording into d: each interval's rows into its series. */
struct play {
	struct rep_data *d;
	const struct report_args *a;
	bool total;	 /* a second pass: the machine's totals for the plots */
	bool grow;	 /* a file import reads: the axis grows as its intervals come */
	size_t k;	 /* the interval being taken */
	size_t n_rows;	 /* the first report's */
	long *map;	 /* row -> series, -1: not shown */
	size_t first_s;	 /* this pass's first series */
	size_t cap_axis; /* grow: room in the axis */
};

static int grow_axis(struct play *p, const struct pm_report *r)
{
	struct rep_data *d = p->d;
	size_t need = p->k + 1;

	if (need > p->cap_axis) {
		size_t cap = p->cap_axis ? p->cap_axis * 2 : 64;

		if (!(d->t_ns = realloc(d->t_ns, cap * sizeof(*d->t_ns))) ||
		    !(d->wall_ns = realloc(d->wall_ns, cap * sizeof(*d->wall_ns))) ||
		    !(d->dur_ns = realloc(d->dur_ns, cap * sizeof(*d->dur_ns))))
			return -ENOMEM;
		for (size_t i = p->first_s; i < d->n_s; i++) {
			struct rep_series *s = &d->s[i];

			if (!(s->v = realloc(s->v, cap * sizeof(*s->v))) ||
			    !(s->flags = realloc(s->flags, cap * sizeof(*s->flags))) ||
			    !(s->lo = realloc(s->lo, cap * sizeof(*s->lo))) ||
			    !(s->hi = realloc(s->hi, cap * sizeof(*s->hi))) ||
			    !(s->bound = realloc(s->bound, cap * sizeof(*s->bound))))
				return -ENOMEM;
		}
		p->cap_axis = cap;
	}
	d->t_ns[p->k] = (int64_t)r->t_ns;
	d->wall_ns[p->k] = (int64_t)r->wall_ns;
	d->dur_ns[p->k] = (int64_t)r->duration_ns;
	d->n = need;
	return 0;
}

/* The series of the first report's rows that are shown. */
static int map_rows(struct play *p, const struct pm_report *r)
{
	struct rep_data *d = p->d;

	p->n_rows = r->n_rows;
	p->map = calloc(r->n_rows + 1, sizeof(*p->map));
	if (!p->map)
		return -ENOMEM;
	p->first_s = d->n_s;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_row *row = &r->rows[i];
		bool metric = row->flags & PM_ROW_METRIC;
		char place[512];
		long s;

		p->map[i] = -1;
		if (!wanted(p->a, row->event))
			continue;
		cli_row_where(row, place, sizeof(place));
		s = add_series(d, row->event, row->unit ? row->unit : "", place, metric,
			       !metric && !(row->flags & PM_ROW_SNAPSHOT), p->total,
			       p->grow ? p->cap_axis : d->n);
		if (s < 0)
			return (int)s;
		p->map[i] = s;
	}
	return 0;
}

static int take_report(void *arg, const struct pm_report *r)
{
	struct play *p = arg;
	struct rep_data *d = p->d;
	double dur_s = (double)r->duration_ns / 1e9;
	int e = 0;

	if (!r->interval)
		return 0; /* the totals of the intervals taken */
	if (!p->map)
		e = map_rows(p, r);
	if (e == 0 && r->n_rows != p->n_rows) {
		cli_error("the rows of '%s' changed within its run", p->a->path);
		return -EINVAL;
	}
	if (e == 0 && p->grow)
		e = grow_axis(p, r);
	if (e == 0 && p->k >= d->n) {
		cli_error("'%s' played more intervals than it holds", p->a->path);
		return -EINVAL;
	}
	if (e < 0) {
		cli_error("out of memory");
		return e;
	}
	for (size_t i = 0; i < r->n_rows; i++) {
		struct rep_series *s = p->map[i] >= 0 ? &d->s[p->map[i]] : NULL;
		const struct pm_row *row = &r->rows[i];

		if (!s)
			continue;
		/* an event's count per second of its interval, its interval with it */
		double per = s->rate ? (dur_s > 0 ? dur_s : NAN) : 1;

		s->v[p->k] = row->value / per;
		s->lo[p->k] = (row->bound == PM_BOUND_EXACT ? row->value : row->lo) / per;
		s->hi[p->k] = (row->bound == PM_BOUND_EXACT ? row->value : row->hi) / per;
		s->bound[p->k] = row->bound;
		s->flags[p->k] = row->flags;
	}
	p->k++;
	return 0;
}

/* The stored series' names, events and metrics, matching -M/-e (all without). */
struct names {
	const char **v;
	size_t n, cap;
};

static int names_add(struct names *n, const char *name)
{
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i], name))
			return 0;
	if (pm_grow((void **)&n->v, &n->cap, n->n + 1, sizeof(*n->v)) < 0)
		return -ENOMEM;
	n->v[n->n++] = name;
	return 0;
}

/*
 * The recording (from_ns..to_ns of its run, or all of a file) played back through the
 * library at the rows asked for (or the total, for plots), its intervals into d: 0 or the
 * exit status (said).
 */
static int replay_into(const struct report_args *a, struct rep_data *d,
		       const struct store_series *stored, size_t n_stored, int64_t from_ns,
		       int64_t to_ns, bool total)
{
	struct cli_replay_args in = { .file = a->path,
				      .packs = a->packs,
				      .run = a->run,
				      .from_ns = from_ns,
				      .to_ns = to_ns };
	struct cli_count *c = calloc(1, sizeof(*c));
	struct names events = { 0 };
	struct play p = { .d = d, .a = a, .total = total, .grow = !stored };
	struct cli_replay rp;
	int r = c ? 0 : -ENOMEM;

	if (r == 0) {
		*c = a->count;
		c->aggr = total ? PM_AGGR_FAMILY : rows_of(a);
		c->n_aggr = 1;
	}
	/* a recording's: the events shown and the stored metrics shown, computed again (a -M
	 * NAME is in c already); the events those metrics read come with them */
	for (size_t i = 0; r == 0 && stored && i < n_stored; i++) {
		const struct store_series *s = &stored[i];

		if (!wanted(a, s->name) || s->snapshot)
			continue;
		if (!s->metric)
			r = names_add(&events, s->name);
		else if (c->n_metrics < CLI_MAX_ARGS) {
			bool have = false;

			for (size_t k = 0; k < c->n_metrics && !have; k++)
				have = !strcmp(c->metrics[k], s->name);
			if (!have)
				c->metrics[c->n_metrics++] = s->name;
		}
	}
	if (r < 0) {
		cli_error("out of memory");
		free(events.v);
		free(c);
		return EXIT_FAIL;
	}
	if (stored && !events.n && !c->n_metrics) {
		cli_error("no series of '%s' matches -M/-e (pmumon report %s --per-%s lists them)",
			  a->path, a->path, d->aggr[0] ? d->aggr : "device");
		free(c);
		return EXIT_FAIL;
	}
	if (stored) {
		in.events_named = true;
		in.events = events.v;
		in.n_events = events.n;
	}
	r = cli_replay__open(&rp, &in, c);
	if (r == 0) {
		r = cli_replay__play(&rp, take_report, &p) < 0 ? EXIT_FAIL : 0;
		if (r == 0 && stored && p.k != d->n) {
			cli_error("'%s' played %zu intervals of the %zu it holds there", a->path,
				  p.k, d->n);
			r = EXIT_FAIL;
		}
	}
	cli_replay__close(&rp);
	free(p.map);
	free(events.v);
	free(c);
	return r;
}

/* The stored series shown, read as they were recorded, at the intervals of d's axis: one
 * pass over the run's rows. */
static int stored_into(const struct report_args *a, struct store *st, long long run,
		       struct rep_data *d, const struct store_series *s, size_t n_s,
		       const struct store_sample *axis)
{
	long long *ids = calloc(n_s + 1, sizeof(*ids));
	double **v = calloc(n_s + 1, sizeof(*v)), **lo = calloc(n_s + 1, sizeof(*lo));
	double **hi = calloc(n_s + 1, sizeof(*hi));
	unsigned **fl = calloc(n_s + 1, sizeof(*fl)), **bound = calloc(n_s + 1, sizeof(*bound));
	size_t first = d->n_s, n = 0;
	int r = ids && v && fl && lo && hi && bound ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n_s; i++) {
		long k;

		if (!wanted(a, s[i].name))
			continue;
		k = add_series(d, s[i].name, s[i].unit, s[i].place, s[i].metric,
			       !s[i].metric && !s[i].snapshot, false, d->n);
		if (k < 0) {
			r = (int)k;
			break;
		}
		ids[n++] = s[i].id;
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		v[i] = d->s[first + i].v;
		fl[i] = d->s[first + i].flags;
		lo[i] = d->s[first + i].lo;
		hi[i] = d->s[first + i].hi;
		bound[i] = d->s[first + i].bound;
	}
	if (r == 0)
		r = store_values(st, run, axis, d->n, ids, n, v, fl, lo, hi, bound);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct rep_series *rs = &d->s[first + i];

		for (size_t j = 0; rs->rate && j < d->n; j++) {
			double per = d->dur_ns[j] > 0 ? (double)d->dur_ns[j] / 1e9 : NAN;

			rs->v[j] /= per;
			rs->lo[j] /= per;
			rs->hi[j] /= per;
		}
	}
	free(ids);
	free(v);
	free(fl);
	free(lo);
	free(hi);
	free(bound);
	if (r < 0) {
		cli_error("reading '%s' failed%s", a->path, r == -ENOMEM ? ": out of memory" : "");
		return EXIT_FAIL;
	}
	return 0;
}

/* --from/--to as wall clocks of the run: 0 or the exit status (said). */
static int window(const struct report_args *a, const struct rep_data *d, int64_t end_wall,
		  int64_t *from, int64_t *to)
{
	struct cli_when w;
	char why[512];
	int r = 0;

	*from = INT64_MIN;
	*to = INT64_MAX;
	for (int k = 0; k < 2 && r == 0; k++) {
		const char *arg = k ? a->to : a->from;

		if (!arg)
			continue;
		cli_when_parse(arg, &w, why, sizeof(why)); /* checked with the option */
		if (w.kind != CLI_WHEN_SECONDS && d->start_wall_ns <= 0) {
			cli_error("%s %s: '%s' has no wall clock (perf's files have none): give "
				  "seconds into the run",
				  k ? "--to" : "--from", arg, a->path);
			return EXIT_USAGE;
		}
		r = cli_when_resolve(&w, d->start_wall_ns, end_wall,
				     k && *from != INT64_MIN ? *from : d->start_wall_ns, a->utc,
				     k ? to : from, why, sizeof(why));
		if (r < 0) {
			cli_error("%s %s: %s", k ? "--to" : "--from", arg, why);
			return EXIT_USAGE;
		}
	}
	if (*to < *from) {
		char f[40], t[40];

		cli_wall_text(*from, a->utc, true, f, sizeof(f));
		cli_wall_text(*to, a->utc, true, t, sizeof(t));
		cli_error("--to (%s) is before --from (%s)", t, f);
		return EXIT_USAGE;
	}
	return 0;
}

/* Does an interval ending at wall clock end, dur long, overlap [from, to]? */
static bool overlaps(int64_t end, int64_t dur, int64_t from, int64_t to)
{
	return end > from && end - dur < to;
}

/* A whole recording (FILE.db): the run's intervals in the window, its series read as they
 * were kept or computed again. 0 or the exit status (said). */
static int load_recording(const struct report_args *a, struct rep_data *d)
{
	struct store_run_info *info = calloc(1, sizeof(*info));
	struct store_series *s = NULL;
	struct store_sample *all = NULL;
	struct store *st = NULL;
	const char *why = "";
	size_t i0 = 0, i1 = 0;
	int64_t from, to;
	long n_all = 0, n_s = 0;
	char level[512];
	bool as_kept, has_events = false;
	int r;

	r = info ? store_open_read(a->path, &st, &why) : -ENOMEM;
	if (r == 0)
		r = store_run(st, a->run, info);
	if (r == -ENOENT)
		why = a->run ? "it has no such run (--run)" : "it holds no run";
	if (r == 0 && (n_all = store_samples(st, info->id, 0, INT64_MAX, &all)) <= 0) {
		r = n_all ? (int)n_all : -ENODATA;
		why = n_all ? "reading its intervals failed" :
			      "a recording with no intervals (in this run)";
	}
	if (r == 0 && (n_s = store_series(st, info->id, &s)) <= 0) {
		r = n_s ? (int)n_s : -ENODATA;
		why = n_s ? "reading its series failed" : "its run holds no series";
	}
	if (r < 0) {
		cli_error("cannot read the recording '%s': %s", a->path, why);
		r = EXIT_FAIL;
		goto out;
	}
	d->run = info->id;
	snprintf(d->command, sizeof(d->command), "%s", info->command);
	snprintf(d->platform, sizeof(d->platform), "%s", info->platform);
	snprintf(d->sim_platform, sizeof(d->sim_platform), "%s", info->sim_platform);
	snprintf(d->cpuid, sizeof(d->cpuid), "%s", info->cpuid);
	snprintf(d->lost, sizeof(d->lost), "%s", info->lost);
	snprintf(d->aggr, sizeof(d->aggr), "%s", info->aggr);
	d->simulated = info->simulated;
	/* t = 0 on the wall clock: from the intervals themselves, which the run's start agrees
	 * with since version 4 (a simulated machine's clock is its own) */
	d->start_wall_ns = all[0].wall_ns > 0 ? all[0].wall_ns - all[0].t_ns :
						info->started_wall_ns;
	r = window(a, d, all[n_all - 1].wall_ns, &from, &to);
	if (r)
		goto out;
	for (i0 = 0; i0 < (size_t)n_all &&
		     !overlaps(d->start_wall_ns + all[i0].t_ns, all[i0].duration_ns, from, to);
	     i0++)
		;
	for (i1 = i0; i1 < (size_t)n_all &&
		      overlaps(d->start_wall_ns + all[i1].t_ns, all[i1].duration_ns, from, to);
	     i1++)
		;
	if (i0 == i1) {
		char f[40], t[40];

		cli_wall_text(from == INT64_MIN ? d->start_wall_ns : from, a->utc, true, f,
			      sizeof(f));
		cli_wall_text(to == INT64_MAX ? all[n_all - 1].wall_ns : to, a->utc, true, t,
			      sizeof(t));
		cli_error("run %lld of '%s' has no intervals from %s to %s", d->run, a->path, f, t);
		r = EXIT_FAIL;
		goto out;
	}
	r = axis_alloc(d, i1 - i0) < 0 ? EXIT_FAIL : 0;
	for (size_t i = i0; r == 0 && i < i1; i++) {
		d->t_ns[i - i0] = all[i].t_ns;
		d->wall_ns[i - i0] = all[i].wall_ns;
		d->dur_ns[i - i0] = all[i].duration_ns;
	}
	/* what the run kept is read as it is when its rows are the ones asked for and it kept
	 * every metric named; else all is computed again from its events */
	as_kept = !strcmp(info->aggr, cli_aggr_name(rows_of(a)));
	for (size_t k = 0; as_kept && k < a->count.n_metrics; k++) {
		bool have = false;

		for (long i = 0; i < n_s && !have; i++)
			have = s[i].metric && !strcmp(s[i].name, a->count.metrics[k]);
		as_kept = have;
	}
	if (r == 0 && !as_kept &&
	    cli_replay__can_give(info->aggr, rows_of(a), level, sizeof(level)) < 0) {
		cli_error("'%s': %s", a->path, level);
		r = EXIT_USAGE;
	}
	if (r == 0 && as_kept)
		r = stored_into(a, st, info->id, d, s, (size_t)n_s, all + i0);
	else if (r == 0)
		r = replay_into(a, d, s, (size_t)n_s, all[i0].t_ns, all[i1 - 1].t_ns, false);
	/* the plots and the page show the machine's total with the places, computed from the
	 * events (a recording of metrics alone has none to compute it from) */
	for (long i = 0; i < n_s && !has_events; i++)
		has_events = !s[i].metric;
	if (r == 0 && (a->plot || a->html) && rows_of(a) != PM_AGGR_FAMILY && has_events)
		r = replay_into(a, d, s, (size_t)n_s, all[i0].t_ns, all[i1 - 1].t_ns, true);
	else if (r == 0 && (a->plot || a->html) && rows_of(a) != PM_AGGR_FAMILY)
		cli_info("'%s' kept no events to compute the machine's total from: the plots show "
			 "the places alone",
			 a->path);
out:
	free(s);
	free(all);
	free(info);
	store_close(st);
	return r;
}

/* A file import reads, played back whole, then cut to the window: 0 or the exit status. */
static int load_file(const struct report_args *a, struct rep_data *d)
{
	int64_t from, to;
	size_t k = 0;
	int r;

	r = replay_into(a, d, NULL, 0, 0, 0, false);
	if (r == 0 && (a->plot || a->html) && rows_of(a) != PM_AGGR_FAMILY) {
		struct rep_data t = { 0 };

		/* the totals, on the same intervals */
		r = replay_into(a, &t, NULL, 0, 0, 0, true);
		for (size_t i = 0; r == 0 && i < t.n_s; i++) {
			if (pm_grow((void **)&d->s, &d->cap_s, d->n_s + 1, sizeof(*d->s)) < 0) {
				r = EXIT_FAIL;
				break;
			}
			d->s[d->n_s++] = t.s[i];
			t.s[i].v = t.s[i].lo = t.s[i].hi = NULL;
			t.s[i].flags = t.s[i].bound = NULL;
		}
		data_free(&t);
	}
	if (r || !d->n)
		return r ? r : (cli_error("'%s' holds no intervals", a->path), EXIT_FAIL);
	snprintf(d->command, sizeof(d->command), "pmumon import %s", a->path);
	d->start_wall_ns = d->wall_ns[0] > 0 ? d->wall_ns[0] - d->t_ns[0] : 0;
	r = window(a, d, d->wall_ns[d->n - 1], &from, &to);
	if (r)
		return r;
	if (d->start_wall_ns <= 0) { /* no wall clock: seconds into the run */
		from = from == INT64_MIN ? INT64_MIN : from - d->start_wall_ns;
		to = to == INT64_MAX ? INT64_MAX : to - d->start_wall_ns;
	}
	for (size_t i = 0; i < d->n; i++) {
		int64_t end = d->start_wall_ns + d->t_ns[i];

		if (!overlaps(end, d->dur_ns[i], from, to))
			continue;
		d->t_ns[k] = d->t_ns[i];
		d->wall_ns[k] = d->wall_ns[i];
		d->dur_ns[k] = d->dur_ns[i];
		for (size_t j = 0; j < d->n_s; j++) {
			struct rep_series *s = &d->s[j];

			s->v[k] = s->v[i];
			s->flags[k] = s->flags[i];
			s->lo[k] = s->lo[i];
			s->hi[k] = s->hi[i];
			s->bound[k] = s->bound[i];
		}
		k++;
	}
	d->n = k;
	if (!k) {
		cli_error("'%s' has no intervals in that window", a->path);
		return EXIT_FAIL;
	}
	return 0;
}

/* ---- statistics --------------------------------------------------------------------- */

/* Nearest rank: the smallest value with at least q of the n values at or below it. */
static size_t rank_of(size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	return rank ? rank - 1 : 0;
}

static int stats_of(const struct rep_data *d, struct rep_series *s)
{
	double *v = malloc((d->n + 1) * sizeof(*v)), sum = 0, sum_lo = 0, sum_hi = 0, w;

	if (!v)
		return -ENOMEM;
	s->counted = 0;
	s->worst = 0;
	s->worst_bound = PM_BOUND_EXACT;
	s->min = s->mean = s->p50 = s->p95 = s->max = NAN;
	s->mean_lo = s->mean_hi = s->widest_pct = NAN;
	s->above_s = isnan(s->threshold) ? NAN : 0;
	for (size_t i = 0; i < d->n; i++) {
		s->worst |= s->flags[i];
		if (isnan(s->v[i]))
			continue;
		v[s->counted++] = s->v[i];
		sum += s->v[i];
		sum_lo += s->lo[i]; /* NaN from an interval without an end on */
		sum_hi += s->hi[i];
		s->worst_bound = PM_MAX(s->worst_bound, s->bound[i]);
		/* the widest: NaN once an interval has no end (unknown is wider than any) */
		w = s->v[i] ? 100 * (fmax(s->v[i] - s->lo[i], s->hi[i] - s->v[i]) / fabs(s->v[i])) :
			      0;
		if (s->counted == 1 || w > s->widest_pct || isnan(w))
			s->widest_pct = isnan(s->widest_pct) && s->counted > 1 ? NAN : w;
		if (s->v[i] > s->threshold) /* false for a NaN threshold */
			s->above_s += (double)d->dur_ns[i] / 1e9;
	}
	if (s->counted) {
		size_t k95 = rank_of(s->counted, 0.95), k50 = rank_of(s->counted, 0.50);

		s->mean = sum / (double)s->counted;
		s->mean_lo = sum_lo / (double)s->counted;
		s->mean_hi = sum_hi / (double)s->counted;
		s->min = s->max = v[0];
		for (size_t i = 1; i < s->counted; i++) {
			s->min = v[i] < s->min ? v[i] : s->min;
			s->max = v[i] > s->max ? v[i] : s->max;
		}
		s->p95 = cli_select_kth(v, s->counted, k95);
		/* what is left of the 95th is at or below it: the median is there */
		s->p50 = cli_select_kth(v, k95 + 1, k50);
	}
	free(v);
	return 0;
}

/*
 * --above's threshold of each series in its unit (NaN: none): a share of the channel peak
 * for bandwidths; a bare value for series of one unit (refused when they have several); a
 * value with its unit for the series of that unit (the others said). 0 or the exit status.
 */
static int thresholds(const struct report_args *a, struct rep_data *d)
{
	const char *first = NULL, *other = NULL;
	char skipped[1024] = "";
	size_t off = 0, used = 0;

	for (size_t i = 0; i < d->n_s; i++) {
		struct rep_series *s = &d->s[i];
		double bytes = cli_unit_bytes(s->unit);

		s->threshold = NAN;
		if (!a->above_given || s->total)
			continue;
		if (a->above.pct) {
			if (bytes > 0)
				s->threshold = a->above.value / 100 *
					       cli_count__defined(&a->count, "channel_peak") /
					       bytes;
			continue;
		}
		if (!a->above.unit[0]) {
			if (!first)
				first = s->unit;
			else if (strcmp(first, s->unit) != 0)
				other = s->unit;
			s->threshold = a->above.value;
			continue;
		}
		s->threshold = cli_above_in(&a->above, s->unit);
		used += !isnan(s->threshold);
		if (isnan(s->threshold) && !strstr(skipped, s->name) && off < sizeof(skipped))
			off += (size_t)snprintf(skipped + off, sizeof(skipped) - off, "%s%s (%s)",
						off ? ", " : "", s->name,
						s->unit[0] ? s->unit : "-");
	}
	if (other) {
		cli_error("--above %g has no unit, and the series shown have several (%s, %s): give "
			  "it one (--above %g%s) or choose the series with -M/-e",
			  a->above.value, first[0] ? first : "none", other[0] ? other : "none",
			  a->above.value, first[0] ? first : "count/s");
		return EXIT_USAGE;
	}
	if (a->above_given && a->above.unit[0] && skipped[0])
		cli_info("--above %g%s applies to series in %s%s; not to %s", a->above.value,
			 a->above.unit, a->above.unit,
			 cli_unit_bytes(a->above.unit) > 0 ? " (or another bandwidth unit)" : "",
			 skipped);
	if (a->above_given && a->above.unit[0] && !used) {
		cli_error("--above %g%s: no series shown is in %s", a->above.value, a->above.unit,
			  a->above.unit);
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- the table, CSV and JSON Lines ----------------------------------------------------- */

/* Digits grouped by thousands: "31,153.11" (decimals kept). */
static void grouped(double v, int decimals, char *buf, size_t size)
{
	char raw[64], *dot;
	size_t n, lead, out = 0;
	const char *p = raw;

	snprintf(raw, sizeof(raw), "%.*f", decimals, fabs(v));
	dot = strchr(raw, '.');
	n = dot ? (size_t)(dot - raw) : strlen(raw);
	if (v < 0 && out + 1 < size)
		buf[out++] = '-';
	lead = n % 3 ? n % 3 : 3;
	for (size_t i = 0; i < n && out + 2 < size; i++) {
		if (i && (i - lead) % 3 == 0 && i >= lead)
			buf[out++] = ',';
		buf[out++] = p[i];
	}
	snprintf(buf + out, size - out, "%s", dot ? dot : "");
}

/* A number for people: grouped digits, two decimals below 100,000, four significant
 * digits below 1; "-" for none. */
static void human(double v, char *buf, size_t size)
{
	double m = fabs(v);

	if (isnan(v))
		snprintf(buf, size, "-");
	else if (m >= 1e15 || (m > 0 && m < 1e-3))
		snprintf(buf, size, "%.4g", v);
	else if (m >= 1e5)
		grouped(v, 0, buf, size);
	else if (m >= 1)
		grouped(v, 2, buf, size);
	else
		snprintf(buf, size, "%.4g", v);
}

static void json_num(const char *key, double v)
{
	printf(",\"%s\":", key);
	if (isfinite(v))
		printf("%.17g", v);
	else
		fputs("null", stdout);
}

/* The window shown, first interval's start to the last's end, as ISO 8601 (UTC). */
static void window_iso(const struct rep_data *d, char *from, char *to, size_t size)
{
	if (d->start_wall_ns <= 0) {
		from[0] = to[0] = '\0';
		return;
	}
	cli_wall_iso(d->start_wall_ns + d->t_ns[0] - d->dur_ns[0], from, size);
	cli_wall_iso(d->start_wall_ns + d->t_ns[d->n - 1], to, size);
}

static void print_json(const struct rep_data *d, const struct rep_series *s, const char *q)
{
	char from[48], to[48];

	window_iso(d, from, to, sizeof(from));
	fputs("{\"name\":", stdout);
	cli_json_str(stdout, s->name);
	fputs(",\"place\":", stdout);
	cli_json_str(stdout, s->place);
	fputs(",\"unit\":", stdout);
	cli_json_str(stdout, s->unit);
	printf(",\"metric\":%s,\"intervals\":%zu,\"counted\":%zu", s->metric ? "true" : "false",
	       d->n, s->counted);
	json_num("min", s->min);
	json_num("mean", s->mean);
	json_num("p50", s->p50);
	json_num("p95", s->p95);
	json_num("max", s->max);
	json_num("above_s", s->above_s);
	fputs(",\"quality\":", stdout);
	cli_json_str(stdout, q);
	json_num("mean_lo", s->mean_lo);
	json_num("mean_hi", s->mean_hi);
	json_num("widest_pct", s->widest_pct);
	fputs(",\"bound\":", stdout);
	cli_json_str(stdout, s->counted && pm_row_bound_name(s->worst_bound) ?
				     pm_row_bound_name(s->worst_bound) :
				     "no_value");
	fputs(",\"from\":", stdout);
	cli_json_str(stdout, from);
	fputs(",\"to\":", stdout);
	cli_json_str(stdout, to);
	puts("}");
}

/* s as one CSV field, quoted as RFC 4180 says when it holds sep, a quote or a line end
 * (an event's name holds commas: amd_df/event=0x7,umask=0x38/), then sep unless last. */
static void csv_field(const char *s, char sep, bool last)
{
	const char stop[] = { sep, '"', '\n', '\r', '\0' };

	if (!s[strcspn(s, stop)]) {
		fputs(s, stdout);
	} else {
		putchar('"');
		for (const char *p = s; *p; p++) {
			if (*p == '"')
				putchar('"');
			putchar(*p);
		}
		putchar('"');
	}
	if (!last)
		putchar(sep);
}

static void print_csv(const struct rep_data *d, const struct rep_series *s, char sep, const char *q,
		      const char *from, const char *to)
{
	/* the intervals: empty where there are none */
	const double ends[] = { s->mean_lo, s->mean_hi, s->widest_pct };

	csv_field(s->name, sep, false);
	csv_field(s->place, sep, false);
	csv_field(s->unit, sep, false);
	printf("%zu%c%zu%c%.17g%c%.17g%c%.17g%c%.17g%c%.17g%c%.17g%c", d->n, sep, s->counted, sep,
	       s->min, sep, s->mean, sep, s->p50, sep, s->p95, sep, s->max, sep, s->above_s, sep);
	csv_field(q, sep, true);
	for (size_t k = 0; k < PM_ARRAY_SIZE(ends); k++)
		if (isfinite(ends[k]))
			printf("%c%.17g", sep, ends[k]);
		else
			printf("%c", sep);
	printf("%c%s%c%s%c%s\n", sep,
	       s->counted && pm_row_bound_name(s->worst_bound) ? pm_row_bound_name(s->worst_bound) :
								 "no_value",
	       sep, from, sep, to);
}

/* The run and the window, before the table. */
static void print_run(const struct report_args *a, const struct rep_data *d)
{
	char from[40], to[40], zone[32];
	int64_t first = d->start_wall_ns + d->t_ns[0] - d->dur_ns[0];
	int64_t last = d->start_wall_ns + d->t_ns[d->n - 1];

	printf("run %lld of %s: %s", d->run ? d->run : 1, a->path, d->command);
	if (d->simulated)
		printf(" [SIMULATED: %s]", d->sim_platform[0] ? d->sim_platform : "?");
	putchar('\n');
	if (d->start_wall_ns > 0) {
		cli_wall_text(first, a->utc, true, from, sizeof(from));
		cli_wall_text(last, a->utc, true, to, sizeof(to));
		cli_zone_text(first, a->utc, zone, sizeof(zone));
		printf("%s to %s %s: %.3f s, %zu interval%s\n", from, to, zone,
		       (double)(last - first) / 1e9, d->n, d->n == 1 ? "" : "s");
	} else {
		printf("%.3f to %.3f s into the run: %zu interval%s\n",
		       (double)(d->t_ns[0] - d->dur_ns[0]) / 1e9, (double)d->t_ns[d->n - 1] / 1e9,
		       d->n, d->n == 1 ? "" : "s");
	}
	printf("rows: %s; events as rates per second", d->rows);
	if (d->aggr[0])
		printf(" (recorded per %s)", d->aggr);
	putchar('\n');
	if (d->lost[0])
		printf("devices that went away during the run: %s\n", d->lost);
	putchar('\n');
}

static void print_table(const struct report_args *a, const struct rep_data *d)
{
	char q[256], b[96], min[32], mean[32], p50[32], p95[32], max[32];

	if (a->json || a->sep) {
		char from[48], to[48];
		char sep = a->sep;

		window_iso(d, from, to, sizeof(from));
		if (sep)
			printf("name%cplace%cunit%cintervals%ccounted%cmin%cmean%cp50%cp95%cmax%c"
			       "above_s%cquality%cmean_lo%cmean_hi%cwidest_pct%cbound%cfrom%cto\n",
			       sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep,
			       sep, sep, sep);
		for (size_t i = 0; i < d->n_s; i++) {
			const struct rep_series *s = &d->s[i];

			if (s->total)
				continue;
			rep_quality_text(s->worst, q, sizeof(q));
			if (a->json)
				print_json(d, s, q);
			else
				print_csv(d, s, sep, q, from, to);
		}
		return;
	}
	print_run(a, d);
	printf("%-28s %-*s %14s %14s %14s %14s %14s %-8s%s %s\n", "NAME", a->place_w, "PLACE",
	       "MIN", "MEAN", "P50", "P95", "MAX", "UNIT", a->above_given ? "  ABOVE_S" : "",
	       "QUALITY");
	for (size_t i = 0; i < d->n_s; i++) {
		const struct rep_series *s = &d->s[i];

		if (s->total)
			continue;
		rep_quality_text(s->worst, q, sizeof(q));
		if (!s->counted) {
			printf("%-28s %-*s %14s %s\n", s->name, a->place_w, s->place, "not counted",
			       q);
			continue;
		}
		human(s->min, min, sizeof(min));
		human(s->mean, mean, sizeof(mean));
		human(s->p50, p50, sizeof(p50));
		human(s->p95, p95, sizeof(p95));
		human(s->max, max, sizeof(max));
		printf("%-28s %-*s %14s %14s %14s %14s %14s %-8s", s->name, a->place_w, s->place,
		       min, mean, p50, p95, max, s->unit);
		if (a->above_given && isnan(s->above_s))
			printf(" %8s", "-"); /* --above does not apply to it */
		else if (a->above_given)
			printf(" %8.3f", s->above_s);
		rep_bound_text(s, b, sizeof(b));
		printf(" %s%s%s\n", q[0] ? q : "-", b[0] ? ", " : "", b);
	}
}

/* A -M NAME that no interval could compute: why, and exit 1 (the library said which
 * events the recording lacks, where that is why). */
static int uncomputed(const struct report_args *a, const struct rep_data *d)
{
	int r = 0;

	for (size_t k = 0; k < a->count.n_metrics; k++) {
		const char *m = a->count.metrics[k];
		bool rows = false, counted = false;

		for (size_t i = 0; i < d->n_s; i++)
			if (!d->s[i].total && !strcmp(d->s[i].name, m)) {
				rows = true;
				counted |= d->s[i].counted > 0;
			}
		if (!rows)
			cli_error("'%s' gives no rows of %s", a->path, m);
		else if (!counted)
			cli_error("%s could not be computed from '%s' in any interval (the warning "
				  "above says why: an event it reads is not in the recording, or was "
				  "never counted)",
				  m, a->path);
		if (!rows || !counted)
			r = EXIT_FAIL;
	}
	return r;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct rep_data d = { 0 };
	size_t shown = 0;
	int r;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	d.file = a.path;
	d.utc = a.utc;
	d.rows = rows_text(rows_of(&a));
	r = store_is_recording(a.path) ? load_recording(&a, &d) : load_file(&a, &d);
	for (size_t i = 0; r == 0 && i < d.n_s; i++)
		shown += !d.s[i].total;
	if (r == 0 && !shown) {
		cli_error("no series of '%s' matches %s", a.path,
			  a.n_names ? "-M/-e" : "(it holds none)");
		r = EXIT_FAIL;
	}
	if (r == 0)
		r = thresholds(&a, &d);
	for (size_t i = 0; r == 0 && i < d.n_s; i++)
		if (stats_of(&d, &d.s[i]) < 0)
			r = EXIT_FAIL;
	a.place_w = 16;
	for (size_t i = 0; i < d.n_s; i++)
		if (!d.s[i].total && (int)strlen(d.s[i].place) > a.place_w)
			a.place_w = (int)strlen(d.s[i].place);
	if (r == 0)
		print_table(&a, &d);
	if (r == 0 && a.plot && rep_plot(&d, a.plot) < 0)
		r = EXIT_FAIL;
	if (r == 0 && a.html && rep_html(&d, a.html, a.above_given) < 0)
		r = EXIT_FAIL;
	if (r == 0)
		r = uncomputed(&a, &d);
	data_free(&d);
	return r;
}
