// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon report: look back at a recording. Per event or metric and place:
 * min, mean, p50, p95, max over the intervals counted, the time above a
 * threshold, and the worst quality seen; and time-series plots through
 * gnuplot, with a gap (never a 0) where a value was not counted. A
 * recording is a pmumon recording (FILE.db), or any file import reads
 * (perf stat -x, or -j output, pmumon CSV or JSON Lines), imported into a
 * recording in memory first, so both are reported by the same code.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "store/store.h"

struct report_args {
	const char *path;
	const char *names[CLI_MAX_ARGS]; /* -M/-e NAME or GLOB: which series */
	int place_w; /* the table's PLACE column: 16, or the longest place shown ("in CGROUP") */
	size_t n_names;
	struct cli_count count; /* a text recording's -M metrics and --define constants */
	const char *packs;	/* a text recording's --pack */
	double from_s, to_s;
	bool above_given, above_pct; /* --above VALUE, or N% of channel_peak */
	double above;
	const char *plot;
	char sep;  /* -x: CSV */
	bool json; /* -j: JSON Lines */
	long long run;
};

struct stats {
	size_t n, counted;
	double min, mean, p50, p95, max, above_s;
	unsigned flags;
	/* the mean's 95 % interval: the mean of the intervals' ends (no independence
	 * assumed, docs/bounds.md), NaN when an interval had none; the widest interval
	 * in % of its value; the worst bound */
	double mean_lo, mean_hi, widest_pct;
	unsigned bound;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmumon report FILE [OPTIONS]\n"
		"\n"
		"Statistics of a recording, per event or metric and place,\n"
		"over the intervals that counted: min, mean, p50, p95, max, the time above\n"
		"a threshold, and the worst quality seen (a value extrapolated, a device\n"
		"lost...). Values not counted are left out of the statistics and shown\n"
		"as gaps in plots, never as 0. FILE is a pmumon recording (FILE.db: record,\n"
		"serve --store), or what pmumon import reads: perf stat -x, or -j output\n"
		"(with -I: one interval each), pmumon CSV or JSON Lines, a counts CSV.\n"
		"\n"
		"  -M, -e NAME           only these events or metrics (a glob; repeatable); of\n"
		"                        a file import reads, -M NAME also computes metric NAME\n"
		"      --define NAME=VALUE  a constant: channel_peak=B/s for --above N%%, or\n"
		"                        what a metric of a file import reads needs\n"
		"      --pack NAMES      a file import reads: the packs of its machine\n"
		"      --from SECONDS    from this many seconds into the run (0)\n"
		"      --to SECONDS      up to this many seconds into the run (the end)\n"
		"      --above VALUE     also the time each series spent above VALUE (its unit),\n"
		"      --above N%%        or above N%% of --define channel_peak=B/s (bandwidths)\n"
		"      --run N           the run N of the file (the last)\n"
		"      --plot OUT.png|OUT.svg  draw the series, one line per place (gnuplot)\n"
		"  -x, --field-separator SEP  CSV with a header row\n"
		"  -j, --json            JSON Lines, an object per series\n"
		"\n"
		"Examples:\n"
		"  pmumon report run.db -M ddr_read_bandwidth.all --above 25600\n"
		"  pmumon report run.db -M 'ddr_*' --from 60 --to 120 --plot ddr.svg\n"
		"  pmumon report run.db -M ddr_bandwidth.all --define channel_peak=25.6e9 \\\n"
		"                --above 80%%\n"
		"  pmumon report perf.csv --pack yitian710 -M ddr_read_bandwidth.all\n");
}

enum { OPT_FROM = 4000, OPT_TO, OPT_ABOVE, OPT_PLOT, OPT_RUN, OPT_PACK };

static int seconds(const char *opt, const char *arg, double *ret)
{
	if (pm_parse_double_str(arg, ret) < 0 || *ret < 0) {
		cli_error("%s wants seconds into the run (0 or more), not '%s'", opt, arg);
		return -EINVAL;
	}
	return 0;
}

static int report_option(void *arg_, int c, const char *arg)
{
	struct report_args *a = arg_;
	unsigned long run;

	switch (c) {
	case 'M':
	case 'e':
		if (a->n_names == CLI_MAX_ARGS) {
			cli_error("at most %d -M/-e", CLI_MAX_ARGS);
			return -EINVAL;
		}
		a->names[a->n_names++] = arg;
		/* a metric named (not a glob) is computed from a text recording's events */
		if (c == 'M' && !strpbrk(arg, "*?["))
			a->count.metrics[a->count.n_metrics++] = arg;
		return 0;
	case CLI_OPT_DEFINE:
		return cli_count__option(&a->count, c, arg) < 0 ? -EINVAL : 0;
	case OPT_PACK:
		a->packs = arg;
		return 0;
	case 'j':
		a->json = true;
		return 0;
	case OPT_FROM:
		return seconds("--from", arg, &a->from_s);
	case OPT_TO:
		return seconds("--to", arg, &a->to_s);
	case OPT_ABOVE: {
		size_t n = strlen(arg);
		char num[64];

		a->above_given = true;
		a->above_pct = n && arg[n - 1] == '%';
		snprintf(num, sizeof(num), "%.*s", (int)(n - a->above_pct), arg);
		if (pm_parse_double_str(num, &a->above) < 0 || (a->above_pct && !(a->above > 0))) {
			cli_error("--above wants a number in the series' unit, or a share of the "
				  "channel peak such as 80%%, not '%s'",
				  arg);
			return -EINVAL;
		}
		return 0;
	}
	case OPT_PLOT:
		a->plot = arg;
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
		{ "pack", required_argument, NULL, OPT_PACK },
		{ "json", no_argument, NULL, 'j' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "above", required_argument, NULL, OPT_ABOVE },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "run", required_argument, NULL, OPT_RUN },
		{ "field-separator", required_argument, NULL, 'x' },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = { "report", "M:e:x:jvh", opts, usage,
						       report_option };
	int r;

	a->to_s = 1e10;
	r = cli_getopt(argc, argv, &co, NULL, NULL, a);
	if (r)
		return r;
	if (optind + 1 != argc) {
		cli_error("report reads one recording: pmumon report FILE");
		return -EINVAL;
	}
	if (a->above_pct && !(cli_count__defined(&a->count, "channel_peak") > 0)) {
		cli_error("--above %g%% is a share of a channel's peak: give the peak with --define "
			  "channel_peak=BYTES/S (pmumon knows none)",
			  a->above);
		return -EINVAL;
	}
	if (a->sep && a->json) {
		cli_error("give -x or -j, not both");
		return -EINVAL;
	}
	a->path = argv[optind];
	if (a->to_s < a->from_s) {
		cli_error("--to (%g) is before --from (%g)", a->to_s, a->from_s);
		return -EINVAL;
	}
	if (a->plot && !strstr(a->plot, ".png") && !strstr(a->plot, ".svg")) {
		cli_error("--plot draws OUT.png or OUT.svg, not '%s'", a->plot);
		return -EINVAL;
	}
	return 0;
}

static bool wanted(const struct report_args *a, const struct store_series *s)
{
	if (!a->n_names)
		return true;
	for (size_t i = 0; i < a->n_names; i++)
		if (!fnmatch(a->names[i], s->name, 0))
			return true;
	return false;
}

/* Nearest rank: the smallest value with at least q of the n values at or below it. */
static size_t rank_of(size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	return rank ? rank - 1 : 0;
}

/* --above's threshold for a series in its unit: NAN for none (not given, or a share of
 * the peak for a series that is no bandwidth). */
static double threshold(const struct report_args *a, const struct store_series *s)
{
	double bytes = cli_unit_bytes(s->unit);

	if (!a->above_given)
		return NAN;
	if (!a->above_pct)
		return a->above;
	return bytes > 0 ? a->above / 100 * cli_count__defined(&a->count, "channel_peak") / bytes :
			   NAN;
}

static int stats_of(const struct store_point *p, size_t n, double above, struct stats *st)
{
	double *v = malloc((n + 1) * sizeof(*v)), sum = 0, sum_lo = 0, sum_hi = 0, w;

	if (!v)
		return -ENOMEM;
	*st = (struct stats){ .n = n,
			      .min = NAN,
			      .mean = NAN,
			      .p50 = NAN,
			      .p95 = NAN,
			      .max = NAN,
			      .above_s = isnan(above) ? NAN : 0,
			      .mean_lo = NAN,
			      .mean_hi = NAN,
			      .widest_pct = NAN };
	for (size_t i = 0; i < n; i++) {
		st->flags |= p[i].flags;
		if (isnan(p[i].value))
			continue;
		v[st->counted++] = p[i].value;
		sum += p[i].value;
		sum_lo += p[i].lo; /* NaN from an interval without an end on */
		sum_hi += p[i].hi;
		st->bound = p[i].bound > st->bound ? p[i].bound : st->bound;
		/* the widest: NaN once an interval has no end (unknown is wider than any) */
		w = p[i].value ? 100 * (fmax(p[i].value - p[i].lo, p[i].hi - p[i].value) /
					fabs(p[i].value)) :
				 0;
		if (st->counted == 1 || w > st->widest_pct || isnan(w))
			st->widest_pct = isnan(st->widest_pct) && st->counted > 1 ? NAN : w;
		if (p[i].value > above) /* false for a NAN threshold */
			st->above_s += p[i].duration_s;
	}
	if (st->counted) {
		size_t k95 = rank_of(st->counted, 0.95), k50 = rank_of(st->counted, 0.50);

		st->mean = sum / (double)st->counted;
		st->mean_lo = sum_lo / (double)st->counted;
		st->mean_hi = sum_hi / (double)st->counted;
		st->p95 = cli_select_kth(v, st->counted, k95);
		/* what is left of the 95th is at or below it: the median is there */
		st->p50 = cli_select_kth(v, k95 + 1, k50);
		st->min = st->max = v[0];
		for (size_t i = 1; i < st->counted; i++) {
			st->min = v[i] < st->min ? v[i] : st->min;
			st->max = v[i] > st->max ? v[i] : st->max;
		}
	}
	free(v);
	return 0;
}

/* The worst quality seen, as flag names joined by '|' ("" when none). */
static void quality_text(unsigned flags, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	flags &= PM_ROW_QUALITY | PM_ROW_APPROXIMATE;
	for (unsigned bit = 1; flags && off < size; bit <<= 1)
		if (flags & bit) {
			flags &= ~bit;
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? "|" : "",
						pm_row_flag_name(bit));
		}
}

static void print_header(const struct report_args *a)
{
	if (a->json)
		return;
	if (a->sep)
		printf("name%cplace%cunit%cintervals%ccounted%cmin%cmean%cp50%cp95%cmax%c"
		       "above_s%cquality%cmean_lo%cmean_hi%cwidest_pct%cbound\n",
		       a->sep, a->sep, a->sep, a->sep, a->sep, a->sep, a->sep, a->sep, a->sep,
		       a->sep, a->sep, a->sep, a->sep, a->sep, a->sep);
	else
		printf("%-28s %-*s %12s %12s %12s %12s %12s %-6s%s %s\n", "NAME", a->place_w,
		       "PLACE", "MIN", "MEAN", "P50", "P95", "MAX", "UNIT",
		       a->above_given ? "  ABOVE_S" : "", "QUALITY");
}

static void json_str(const char *s)
{
	cli_json_str(stdout, s);
}

/* A number, or null for NaN (not counted, not asked). */
static void json_num(const char *key, double v)
{
	printf(",\"%s\":", key);
	if (isfinite(v))
		printf("%.17g", v);
	else
		fputs("null", stdout);
}

static void print_json(const struct store_series *s, const struct stats *st, const char *q)
{
	fputs("{\"name\":", stdout);
	json_str(s->name);
	fputs(",\"place\":", stdout);
	json_str(s->place);
	fputs(",\"unit\":", stdout);
	json_str(s->unit);
	printf(",\"metric\":%s,\"intervals\":%zu,\"counted\":%zu", s->metric ? "true" : "false",
	       st->n, st->counted);
	json_num("min", st->min);
	json_num("mean", st->mean);
	json_num("p50", st->p50);
	json_num("p95", st->p95);
	json_num("max", st->max);
	json_num("above_s", st->above_s);
	fputs(",\"quality\":", stdout);
	json_str(q);
	json_num("mean_lo", st->mean_lo);
	json_num("mean_hi", st->mean_hi);
	json_num("widest_pct", st->widest_pct);
	fputs(",\"bound\":", stdout);
	json_str(st->counted && pm_row_bound_name(st->bound) ? pm_row_bound_name(st->bound) :
							       "no_value");
	puts("}");
}

/*
 * The table's words for the intervals (docs/bounds.md): the mean's as its
 * wider side in % of it, and the widest interval's; "" when every value
 * was exact. "?" where an interval had no end.
 */
static void bound_text(const struct stats *st, char *buf, size_t size)
{
	double m = st->mean ? 100 * fmax(st->mean - st->mean_lo, st->mean_hi - st->mean) /
				      fabs(st->mean) :
			      0;

	buf[0] = '\0';
	if (!st->counted || st->bound == PM_BOUND_EXACT)
		return;
	if (isfinite(m))
		snprintf(buf, size, "mean \u00b1 %.2g %%, widest \u00b1 %.2g %%", m,
			 st->widest_pct);
	else
		snprintf(buf, size, "mean \u00b1 ? %%");
}

static void print_stats(const struct report_args *a, const struct store_series *s,
			const struct stats *st)
{
	char q[256], b[96];

	quality_text(st->flags, q, sizeof(q));
	if (a->json) {
		print_json(s, st, q);
		return;
	}
	if (a->sep) {
		printf("%s%c%s%c%s%c%zu%c%zu%c%.17g%c%.17g%c%.17g%c%.17g%c%.17g%c%.17g%c%s",
		       s->name, a->sep, s->place, a->sep, s->unit, a->sep, st->n, a->sep,
		       st->counted, a->sep, st->min, a->sep, st->mean, a->sep, st->p50, a->sep,
		       st->p95, a->sep, st->max, a->sep, st->above_s, a->sep, q);
		/* the intervals: empty where there are none */
		const double ends[] = { st->mean_lo, st->mean_hi, st->widest_pct };

		for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++)
			if (isfinite(ends[k]))
				printf("%c%.17g", a->sep, ends[k]);
			else
				printf("%c", a->sep);
		printf("%c%s\n", a->sep,
		       st->counted && pm_row_bound_name(st->bound) ? pm_row_bound_name(st->bound) :
								     "no_value");
		return;
	}
	if (!st->counted) {
		printf("%-28s %-*s %12s %s\n", s->name, a->place_w, s->place, "not counted", q);
		return;
	}
	printf("%-28s %-*s %12.6g %12.6g %12.6g %12.6g %12.6g %-6s", s->name, a->place_w, s->place,
	       st->min, st->mean, st->p50, st->p95, st->max, s->unit);
	if (a->above_given && isnan(st->above_s))
		printf(" %8s", "-"); /* a share of the peak, of a series that is no bandwidth */
	else if (a->above_given)
		printf(" %8.3f", st->above_s);
	bound_text(st, b, sizeof(b));
	printf(" %s%s%s\n", q[0] ? q : "-", b[0] ? ", " : "", b);
}

/* ---- plots -------------------------------------------------------------------------- */

/* gnuplot's string: single quotes, a quote doubled. */
static void gp_quote(FILE *gp, const char *s)
{
	fputc('\'', gp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', gp);
		fputc(*s, gp);
	}
	fputc('\'', gp);
}

/* A value that is less than it seems: extrapolated, partial, of a lost device... */
static bool doubtful(const struct store_point *p)
{
	return !isnan(p->value) &&
	       (p->flags & (PM_ROW_QUALITY | PM_ROW_APPROXIMATE) & ~PM_ROW_NOT_COUNTED);
}

/* One series' points as gnuplot inline data: a blank line breaks the line where a value
 * was not counted; with only_doubtful, the doubtful points alone (drawn as marks). */
static void gp_data(FILE *gp, const struct store_point *p, size_t n, bool only_doubtful)
{
	bool gap = false;

	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i].value) || (only_doubtful && !doubtful(&p[i]))) {
			if (!gap)
				fputs("\n", gp);
			gap = true;
			continue;
		}
		gap = false;
		fprintf(gp, "%.9g %.17g\n", p[i].t_s, p[i].value);
	}
	fputs("e\n", gp);
}

struct plotted {
	const struct store_series *s;
	struct store_point *p;
	size_t n;
	bool doubts; /* some of its values are in doubt */
};

/* The plot command: a line per series, and marks on its doubtful values (one legend entry
 * for all the marks); then their data. */
static void gp_plot(FILE *gp, const struct plotted *pl, size_t n)
{
	bool marked = false;

	fprintf(gp, "set ylabel ");
	gp_quote(gp, pl[0].s->unit[0] ? pl[0].s->unit : "count per interval");
	fputs("\nplot ", gp);
	for (size_t i = 0; i < n; i++) {
		char title[sizeof(pl[i].s->name) + sizeof(pl[i].s->place) + 1];

		snprintf(title, sizeof(title), "%s %s", pl[i].s->name, pl[i].s->place);
		fprintf(gp, "%s'-' using 1:2 with lines lt %zu title ", i ? ", " : "", i + 1);
		gp_quote(gp, title);
		if (pl[i].doubts) {
			fprintf(gp, ", '-' using 1:2 with points pt 6 ps 0.7 lt %zu %s", i + 1,
				marked ? "notitle" :
					 "title 'value in doubt (extrapolated, partial, lost...)'");
			marked = true;
		}
	}
	fputs("\n", gp);
	for (size_t i = 0; i < n; i++) {
		gp_data(gp, pl[i].p, pl[i].n, false);
		if (pl[i].doubts)
			gp_data(gp, pl[i].p, pl[i].n, true);
	}
}

/* The wanted series and their points in the window: how many, or -errno. */
static long load_plotted(const struct report_args *a, struct store *st,
			 const struct store_series *s, size_t n, struct plotted **ret)
{
	struct plotted *pl = calloc(n + 1, sizeof(*pl));
	size_t k = 0;

	if (!pl)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		long m;

		if (!wanted(a, &s[i]))
			continue;
		pl[k].s = &s[i];
		m = store_points(st, s[i].id, a->from_s, a->to_s, &pl[k].p);
		pl[k].n = m > 0 ? (size_t)m : 0;
		for (size_t j = 0; j < pl[k].n && !pl[k].doubts; j++)
			pl[k].doubts = doubtful(&pl[k].p[j]);
		k++;
	}
	*ret = pl;
	return (long)k;
}

static int plot(const struct report_args *a, struct store *st, const struct store_series *s,
		size_t n)
{
	bool svg = strstr(a->plot, ".svg") != NULL;
	struct plotted *pl = NULL;
	long shown = load_plotted(a, st, s, n, &pl);
	FILE *gp = shown > 0 ? popen("gnuplot", "w") : NULL;
	int status = -1;

	if (shown > 0 && !gp)
		cli_error("--plot needs gnuplot (Debian: gnuplot-nox): %s", strerror(errno));
	if (gp) {
		fprintf(gp, "set terminal %s noenhanced size 1000,560\nset output ",
			svg ? "svg" : "pngcairo");
		gp_quote(gp, a->plot);
		fprintf(gp, "\nset xlabel 'seconds into the run'\nset key below\n"
			    "set grid\n");
		gp_plot(gp, pl, (size_t)shown);
		status = pclose(gp);
	}
	for (long i = 0; i < shown; i++)
		free(pl[i].p);
	free(pl);
	if (shown == 0)
		cli_error("nothing to plot into '%s': no series matches -M/-e", a->plot);
	else if (gp && status != 0)
		cli_error("gnuplot failed drawing '%s' (is gnuplot-nox installed?)", a->plot);
	return status == 0 ? 0 : -EIO;
}

/* Where an imported file's reports go: the recording in memory. */
struct into_memory {
	struct store *st;
	bool intervals; /* the file has them: its totals are their sum, not kept */
};

static int append_report(void *arg, const struct pm_report *r)
{
	struct into_memory *m = arg;
	const char *why = "";
	int e;

	if (!r->interval && m->intervals)
		return 0; /* the totals of the intervals appended */
	e = store_append(m->st, r, &why);
	if (e < 0)
		cli_error("keeping the imported recording in memory failed: %s", why);
	return e;
}

/*
 * A file import reads (perf or pmumon output), imported into a recording
 * in memory: its intervals (or its totals, as one), with -M's metrics
 * computed. 0 or the exit status (said).
 */
static int import_to_memory(const struct report_args *a, struct store **ret)
{
	struct cli_replay_args in = { .file = a->path, .packs = a->packs };
	struct store_run run = { .command = "pmumon report", .version = PMUMON_VERSION };
	struct cli_replay rp;
	const char *why = "";
	struct into_memory m;
	int r = cli_replay__open(&rp, &in, &a->count);

	if (r) {
		cli_replay__close(&rp);
		return r;
	}
	run.simulated = rp.oo.simulated;
	run.sim_platform = rp.oo.sim_platform;
	run.cpuid = rp.oo.cpuid;
	if (store_open_write(":memory:", false, &run, ret, &why) < 0) {
		cli_error("cannot keep the recording in memory: %s", why);
		cli_replay__close(&rp);
		return EXIT_FAIL;
	}
	m = (struct into_memory){ .st = *ret, .intervals = rp.intervals };
	r = cli_replay__play(&rp, append_report, &m) < 0 ? EXIT_FAIL : 0;
	cli_replay__close(&rp);
	return r;
}

/* The recording: a pmumon recording read in place, any other file imported. */
static int open_recording(const struct report_args *a, struct store **ret)
{
	const char *why = "";

	if (!store_is_recording(a->path))
		return import_to_memory(a, ret);
	if (store_open_read(a->path, ret, &why) < 0) {
		cli_error("cannot read the recording '%s': %s", a->path, why);
		return EXIT_FAIL;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct store_series *s = NULL;
	struct store *st = NULL;
	long n;
	int r;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	r = open_recording(&a, &st);
	if (r) {
		store_close(st);
		return r;
	}
	n = store_series(st, a.run, &s);
	if (n <= 0) {
		cli_error("'%s' holds no series%s", a.path, a.run ? " in that run (--run)" : "");
		store_close(st);
		return EXIT_FAIL;
	}
	a.place_w = 16;
	for (long i = 0; i < n; i++)
		if (wanted(&a, &s[i]))
			if ((int)strlen(s[i].place) > a.place_w)
				a.place_w = (int)strlen(s[i].place);
	print_header(&a);
	for (long i = 0; i < n && r == 0; i++) {
		struct store_point *p = NULL;
		struct stats stt = { 0 };
		long m;

		if (!wanted(&a, &s[i]))
			continue;
		m = store_points(st, s[i].id, a.from_s, a.to_s, &p);
		r = m < 0 ? (int)m : stats_of(p, (size_t)m, threshold(&a, &s[i]), &stt);
		if (r == 0)
			print_stats(&a, &s[i], &stt);
		free(p);
	}
	if (r == 0 && a.plot)
		r = plot(&a, st, s, (size_t)n);
	free(s);
	store_close(st);
	return r < 0 ? EXIT_FAIL : 0;
}
