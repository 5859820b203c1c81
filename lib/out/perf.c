// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf stat 6.1's own layouts (PM_OUT_PERF_TABLE, _CSV, _JSON): what `perf
 * stat`, `perf stat -x SEP` and `perf stat -j` print, byte for byte, for the
 * same rows, so that every parser of perf's output reads pmumon's (pmumon
 * under the name perf, docs/output.md "perf mode"). Each format string,
 * width and rule below is perf's, from tools/perf/util/stat-display.c
 * (printout, abs_printout, aggr_printout, print_running, print_noise_pct,
 * print_metric_std/_csv/_json, print_interval, print_header, print_footer)
 * and util/stat-shadow.c (perf_stat__print_shadow_stats) of Linux 6.1
 * (docs/facts-perf-tools.md §16). Numbers follow the environment's locale
 * (LC_NUMERIC), as perf's printf does after its setlocale(LC_ALL, ""): the
 * table groups digits with the locale's separator, and the decimal point is
 * the locale's, in the CSV and JSON too (perf's; LC_ALL=C gives '.').
 *
 * Where perf's layout has no room for a doubt pmumon knows (a counter that
 * may have wrapped unseen, was reprogrammed or reset, a device lost or not
 * covered), the row says so after perf's fields: the table's marks
 * ("[partial 8/16]"), a CSV field, a JSON key "pmumon-flags"; a row without
 * doubt is perf's exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"

#define METRIC_LEN 35 /* stat-display.c */
#define NOT_SUPPORTED "<not supported>"
#define NOT_COUNTED "<not counted>"

/* perf's aggr_mode, from the report's aggregation */
enum perf_aggr {
	AGGR_GLOBAL,
	AGGR_NONE,
	AGGR_SOCKET,
	AGGR_DIE,
	AGGR_CORE,
	AGGR_NODE,
	AGGR_THREAD,
	AGGR_CACHE
};

struct perf_out {
	struct pm_out *o;
	FILE *f;
	const struct pm_report *r;
	enum pm_out_format fmt;
	enum perf_aggr aggr;
	const char *sep; /* csv_sep: -x's, or " " for the table */
	bool csv, json;
	int unit_width;
	bool any_cgroup; /* perf's nr_cgroups: every row gets the cgroup field */
	double wall_ns;	 /* walltime_nsecs_stats: what "CPUs utilized" divides by */
	char prefix[64]; /* an interval's time, "" for the totals */
};

/* A comment (perf's print_metric call): fmt NULL prints none, unit NULL neither. */
struct metric {
	const char *fmt, *unit;
	double val;
	char unit_buf[64];
};

static enum perf_aggr perf_aggr_of(enum pm_aggr a)
{
	switch (a) {
	case PM_AGGR_CPU:
		return AGGR_NONE;
	case PM_AGGR_SOCKET:
		return AGGR_SOCKET;
	case PM_AGGR_DIE:
		return AGGR_DIE;
	case PM_AGGR_CORE:
		return AGGR_CORE;
	case PM_AGGR_NODE:
		return AGGR_NODE;
	case PM_AGGR_THREAD:
		return AGGR_THREAD;
	case PM_AGGR_CACHE:
		return AGGR_CACHE;
	default: /* per device and channel: perf's --no-merge, rows of the global mode */
		return AGGR_GLOBAL;
	}
}

static bool counted(const struct pm_row *row)
{
	return !(row->flags & PM_ROW_NOT_COUNTED) && isfinite(row->value) && row->running_sum_ns &&
	       row->enabled_sum_ns;
}

/* ---- the aggregation prefix (aggr_printout) ------------------------------------------- */

static void aggr_printout(struct perf_out *p, const struct pm_row *row, int nr)
{
	FILE *f = p->f;
	bool csv = p->csv;

	if (p->json && !p->r->interval)
		fputs("{", f);
	switch (p->aggr) {
	case AGGR_CORE:
		if (p->json)
			fprintf(f, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ",
				row->socket, row->die, row->core, nr);
		else
			fprintf(f, "S%d-D%d-C%*d%s%*d%s", row->socket, row->die, csv ? 0 : -8,
				row->core, p->sep, csv ? 0 : 4, nr, p->sep);
		break;
	case AGGR_DIE:
		if (p->json)
			fprintf(f, "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ",
				row->socket, row->die, nr);
		else
			fprintf(f, "S%d-D%*d%s%*d%s", row->socket, csv ? 0 : -8, row->die, p->sep,
				csv ? 0 : 4, nr, p->sep);
		break;
	case AGGR_SOCKET:
		if (p->json)
			fprintf(f, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", row->socket,
				nr);
		else
			fprintf(f, "S%*d%s%*d%s", csv ? 0 : -5, row->socket, p->sep, csv ? 0 : 4,
				nr, p->sep);
		break;
	case AGGR_NODE:
		if (p->json)
			fprintf(f, "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", row->node,
				nr);
		else
			fprintf(f, "N%*d%s%*d%s", csv ? 0 : -5, row->node, p->sep, csv ? 0 : 4, nr,
				p->sep);
		break;
	case AGGR_CACHE: /* newer than perf 6.1: its later print_aggr_id_std's label */
		if (p->json)
			fprintf(f, "\"cache\" : \"%s\", \"aggregate-number\" : %d, ",
				row->domain ? row->domain : "", nr);
		else
			fprintf(f, "%-*s%s%*d%s", csv ? 0 : 16, row->domain ? row->domain : "",
				p->sep, csv ? 0 : 4, nr, p->sep);
		break;
	case AGGR_NONE:
		if (row->cpu < 0)
			break;
		if (p->json)
			fprintf(f, "\"cpu\" : \"%d\", ", row->cpu);
		else
			fprintf(f, "CPU%*d%s", csv ? 0 : -7, row->cpu, p->sep);
		break;
	case AGGR_THREAD:
		if (p->json)
			fprintf(f, "\"thread\" : \"%s-%d\", ", row->comm ? row->comm : "",
				(int)row->tid);
		else
			fprintf(f, "%*s-%*d%s", csv ? 0 : 16, row->comm ? row->comm : "",
				csv ? 0 : -8, (int)row->tid, p->sep);
		break;
	default:
		break;
	}
}

/* ---- the comment column (print_metric_std, _csv, _json) ------------------------------ */

/* m->fmt is always one of the literal formats above, perf's */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void print_metric(struct perf_out *p, const struct metric *m)
{
	FILE *f = p->f;

	if (p->json) {
		/* perf prints the unit whatever it is: a NULL one as glibc's "(null)" */
		fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}", m->val,
			m->unit ? m->unit : "(null)");
	} else if (p->csv) {
		char buf[64], *vals, *ends;

		if (!m->unit || !m->fmt) {
			fprintf(f, "%s%s", p->sep, p->sep);
			return;
		}
		snprintf(buf, sizeof(buf), m->fmt, m->val);
		for (vals = buf; *vals == ' '; vals++)
			;
		for (ends = vals; (*ends >= '0' && *ends <= '9') || *ends == '.'; ends++)
			;
		*ends = '\0';
		fprintf(f, "%s%s%s%s", p->sep, vals, p->sep, m->unit + strspn(m->unit, " "));
	} else {
		int n;

		if (!m->unit || !m->fmt) {
			fprintf(f, "%-*s", METRIC_LEN, "");
			return;
		}
		n = fprintf(f, " # ");
		n += fprintf(f, m->fmt, m->val);
		fprintf(f, " %-*s", METRIC_LEN - n - 1, m->unit);
	}
}
#pragma GCC diagnostic pop

static void set_metric(struct metric *m, const char *fmt, const char *unit, double val)
{
	m->fmt = fmt;
	m->unit = unit;
	m->val = val;
}

/* The rows perf's shadow stats pair: one aggregation bucket, one cgroup. */
static bool same_bucket(const struct pm_row *a, const struct pm_row *b)
{
	return a->cpu == b->cpu && a->socket == b->socket && a->die == b->die &&
	       a->core == b->core && a->node == b->node && a->tid == b->tid &&
	       (a->cgroup && b->cgroup ? !strcmp(a->cgroup, b->cgroup) : a->cgroup == b->cgroup) &&
	       (a->domain && b->domain ? !strcmp(a->domain, b->domain) : a->domain == b->domain);
}

/* perf's runtime_stat_n and _avg of a kind in row i's bucket: every row of the kind
 * (one not counted adds its 0, as perf updates its stats with it), with i's exclude
 * bits except for the clocks, whose values are their nanoseconds */
static unsigned stat_of(const struct perf_out *p, size_t i, unsigned kind, double *ret_avg)
{
	const struct pm_row *rows = p->r->rows, *me = &rows[i];
	double avg = 0;
	unsigned n = 0;

	for (size_t k = 0; k < p->r->n_rows; k++) {
		const struct pm_row *r = &rows[k];
		double v;

		if (r->shadow != kind || r->flags & PM_ROW_METRIC || !same_bucket(r, me) ||
		    (kind != PM_SHADOW_CLOCK && r->shadow_ctx != me->shadow_ctx))
			continue;
		v = counted(r) ? r->value : 0;
		if (kind == PM_SHADOW_CLOCK && r->scale > 0)
			v /= r->scale; /* the count before its scale: ns */
		n++;
		avg += (v - avg) / n;
	}
	*ret_avg = avg;
	return n;
}

/* perf's convert_unit_double (tools/perf/util/units.c) */
static double convert_unit(double v, char *unit)
{
	static const char units[] = "KMG";

	*unit = ' ';
	for (int i = 0; i < 3 && v > 1000.0; i++) {
		v /= 1000.0;
		*unit = units[i];
	}
	return v;
}

/* A miss ratio: print_branch_misses and the cache ones, when their total has a stat. */
static void miss_ratio(struct perf_out *p, size_t i, unsigned total_kind, const char *what,
		       struct metric *m)
{
	double total, ratio = 0;

	if (!stat_of(p, i, total_kind, &total)) {
		set_metric(m, NULL, what, 0);
		return;
	}
	if (total)
		ratio = p->r->rows[i].value / total * 100.0;
	set_metric(m, "%7.2f%%", what, ratio);
}

/*
 * perf_stat__print_shadow_stats for the kinds pmumon's rows carry (pm_row.shadow):
 * the same chain, formats, words and fall-backs. Not here: the stalled cycles per
 * instruction line, TSX, topdown and SMI comments, an event's own MetricExpr.
 */
static bool shadow_metric(struct perf_out *p, size_t i, struct metric *m)
{
	const struct pm_row *row = &p->r->rows[i];
	double avg = row->value, total, ratio = 0;
	static const struct {
		unsigned miss, total;
		const char *what;
	} misses[] = {
		{ PM_SHADOW_BRANCH_MISSES, PM_SHADOW_BRANCHES, "of all branches" },
		{ PM_SHADOW_L1D_MISSES, PM_SHADOW_L1D, "of all L1-dcache accesses" },
		{ PM_SHADOW_L1I_MISSES, PM_SHADOW_L1I, "of all L1-icache accesses" },
		{ PM_SHADOW_DTLB_MISSES, PM_SHADOW_DTLB, "of all dTLB cache accesses" },
		{ PM_SHADOW_ITLB_MISSES, PM_SHADOW_ITLB, "of all iTLB cache accesses" },
		{ PM_SHADOW_LL_MISSES, PM_SHADOW_LL, "of all LL-cache accesses" },
	};

	set_metric(m, NULL, NULL, 0);
	for (size_t k = 0; k < sizeof(misses) / sizeof(misses[0]); k++)
		if (row->shadow == misses[k].miss) {
			miss_ratio(p, i, misses[k].total, misses[k].what, m);
			return true;
		}
	switch (row->shadow) {
	case PM_SHADOW_INSTRUCTIONS:
		stat_of(p, i, PM_SHADOW_CYCLES, &total);
		if (total)
			set_metric(m, "%7.2f ", "insn per cycle", avg / total);
		else
			set_metric(m, NULL, "insn per cycle", 0);
		return true;
	case PM_SHADOW_CACHE_MISSES:
		if (!stat_of(p, i, PM_SHADOW_CACHE_REFS, &total)) {
			set_metric(m, NULL, "of all cache refs", 0);
			return true;
		}
		set_metric(m, "%8.3f %%", "of all cache refs", total ? avg * 100 / total : 0);
		return true;
	case PM_SHADOW_STALLED_FRONTEND:
	case PM_SHADOW_STALLED_BACKEND: {
		bool fe = row->shadow == PM_SHADOW_STALLED_FRONTEND;
		const char *what = fe ? "frontend cycles idle" : "backend cycles idle";

		stat_of(p, i, PM_SHADOW_CYCLES, &total);
		if (total)
			ratio = avg / total * 100.0;
		if (fe && !ratio)
			set_metric(m, NULL, what, 0);
		else
			set_metric(m, "%7.2f%%", what, ratio);
		return true;
	}
	case PM_SHADOW_CYCLES:
		stat_of(p, i, PM_SHADOW_CLOCK, &total);
		if (total)
			set_metric(m, "%8.3f", "GHz", avg / total);
		else
			set_metric(m, NULL, "Ghz", 0); /* sic, perf 6.1 */
		return true;
	case PM_SHADOW_CLOCK:
		if (p->wall_ns && row->scale > 0)
			set_metric(m, "%8.3f", "CPUs utilized", avg / (p->wall_ns * row->scale));
		else
			set_metric(m, NULL, "CPUs utilized", 0);
		return true;
	case PM_SHADOW_NONE:
		return false;
	default: {
		char unit;

		if (!stat_of(p, i, PM_SHADOW_CLOCK, &total))
			return false;
		snprintf(m->unit_buf, sizeof(m->unit_buf), "/sec");
		if (total) {
			ratio = convert_unit(1e9 * avg / total, &unit);
			if (unit != ' ')
				snprintf(m->unit_buf, sizeof(m->unit_buf), "%c/sec", unit);
		}
		set_metric(m, "%8.3f", m->unit_buf, ratio);
		return true;
	}
	}
}

static int cmp_str(const char *a, const char *b);
static int bucket_cmp(const struct perf_out *p, const struct pm_row *a, const struct pm_row *b);
static void print_metric_row(struct perf_out *p, size_t i);

/* ---- one row (printout) --------------------------------------------------------------- */

/* perf's evsel name; with --no-merge, its uniquify_event_name: the PMU instance's */
static const char *event_name(const struct pm_row *row, char *buf, size_t size)
{
	const char *slash;

	if (!row->device || !strncmp(row->event, row->device, strlen(row->device)))
		return row->event;
	slash = strchr(row->event, '/');
	if (slash)
		snprintf(buf, size, "%s%s", row->device, slash);
	else
		snprintf(buf, size, "%s [%s]", row->event, row->device);
	return buf;
}

static void print_cgroup(struct perf_out *p, const struct pm_row *row)
{
	if (!p->any_cgroup)
		return;
	if (p->json)
		fprintf(p->f, "\"cgroup\" : \"%s\", ", row->cgroup ? row->cgroup : "");
	else
		fprintf(p->f, "%s%s", p->sep, row->cgroup ? row->cgroup : "");
}

static void print_noise(struct perf_out *p, const struct pm_row *row)
{
	double pct = row->spread_pct;

	if (p->r->runs <= 1)
		return;
	if (p->json)
		fprintf(p->f, "\"variance\" : %.2f, ", pct);
	else if (p->csv)
		fprintf(p->f, "%s%.2f%%", p->sep, pct);
	else if (pct)
		fprintf(p->f, "  ( +-%6.2f%% )", pct);
}

static void print_running(struct perf_out *p, uint64_t run, uint64_t ena)
{
	/* perf's integer percentage: 100 * run / ena in u64, then %.2f */
	double pct = run != ena && ena ? (double)(100 * run / ena) : 100;

	if (p->json)
		fprintf(p->f, "\"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f, ", run,
			pct);
	else if (p->csv)
		fprintf(p->f, "%s%" PRIu64 "%s%.2f", p->sep, run, p->sep, pct);
	else if (run != ena)
		fprintf(p->f, "  (%.2f%%)", ena ? 100.0 * (double)run / (double)ena : 0.0);
}

/* What pmumon knows of a row that perf's fields cannot say: the table's marks. */
static void pmumon_marks(const struct pm_row *row, char *buf, size_t size)
{
	static const struct {
		unsigned flag;
		const char *mark;
	} marks[] = {
		{ PM_ROW_WRAP_UNCERTAIN, "[wrap?]" },
		{ PM_ROW_REPROGRAMMED, "[reprogrammed]" },
		{ PM_ROW_RESET, "[reset]" },
		{ PM_ROW_LOST, "[lost]" },
	};
	size_t n = 0;

	buf[0] = '\0';
	if (row->flags & PM_ROW_PARTIAL)
		n += (size_t)snprintf(buf, size, "[partial %u/%u]", row->covered, row->instances);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && n < size; i++)
		if (row->flags & marks[i].flag)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "",
					      marks[i].mark);
}

/* The doubt after perf's fields: CSV a field of flag names, JSON a key; the table's marks. */
static void print_doubt(struct perf_out *p, const struct pm_row *row)
{
	unsigned doubt = row->flags & (PM_ROW_WRAP_UNCERTAIN | PM_ROW_REPROGRAMMED | PM_ROW_RESET |
				       PM_ROW_LOST | PM_ROW_PARTIAL);
	char buf[128];
	bool first = true;

	if (!doubt)
		return;
	if (!p->csv && !p->json) {
		pmumon_marks(row, buf, sizeof(buf));
		fprintf(p->f, "  %s", buf);
		return;
	}
	fputs(p->json ? "\"pmumon-flags\" : \"" : p->sep, p->f);
	for (unsigned bit = 1; bit; bit <<= 1) {
		if (!(doubt & bit) || !pm_row_flag_name(bit))
			continue;
		fprintf(p->f, "%s%s", first ? "" : "|", pm_row_flag_name(bit));
		first = false;
	}
	if (p->json)
		fputs("\", ", p->f);
}

/* A row perf's printout prints; i indexes the report's rows (SIZE_MAX: a row made up
 * for an event that has no counter in a bucket, which is never counted). */
static void printout_row(struct perf_out *p, const struct pm_row *row, size_t i)
{
	FILE *f = p->f;
	char name_buf[256];
	const char *name = event_name(row, name_buf, sizeof(name_buf));
	uint64_t run = row->running_sum_ns, ena = row->enabled_sum_ns;
	struct metric m;
	int nr = (int)row->n_cpus;

	if (p->prefix[0])
		fputs(p->prefix, f);
	if (p->csv && p->o->opts.perf_summary && !p->r->interval && !p->o->opts.perf_no_csv_summary)
		fprintf(f, "%16s%s", "summary", p->sep);
	if (!counted(row)) {
		const char *what = row->flags & PM_ROW_UNSUPPORTED ? NOT_SUPPORTED : NOT_COUNTED;

		/* perf's aggr_cb stops at the first CPU that did not count: nr is 1 there;
		 * 0 in a bucket with none of the event's CPUs */
		aggr_printout(p, row, row->n_cpus ? 1 : 0);
		if (p->json)
			fprintf(f, "\"counter-value\" : \"%s\", ", what);
		else
			fprintf(f, "%*s%s", p->csv ? 0 : 18, what, p->sep);
		if (p->json)
			fprintf(f, "\"unit\" : \"%s\", ", row->unit);
		else
			fprintf(f, "%-*s%s", p->csv ? 0 : p->unit_width, row->unit, p->sep);
		if (p->json)
			fprintf(f, "\"event\" : \"%s\", ", name);
		else
			fprintf(f, "%*s", p->csv ? 0 : -25, name);
		print_cgroup(p, row);
		set_metric(&m, NULL, "", 0);
		if (!p->csv && !p->json) {
			m.unit = NULL;
			print_metric(p, &m);
		}
		/* perf's aggr_cb zeroes both when a CPU did not count (per socket, die, core,
		 * node); the global and per-CPU rows keep the sums */
		if (row->flags & PM_ROW_UNSUPPORTED ||
		    (p->aggr != AGGR_GLOBAL && p->aggr != AGGR_NONE && p->aggr != AGGR_THREAD))
			run = ena = 0;
		print_noise(p, row);
		print_running(p, run, ena);
		if (p->csv) {
			m.fmt = NULL;
			print_metric(p, &m);
		} else if (p->json) {
			print_doubt(p, row);
			print_metric(p, &m);
			fputc('\n', f);
			return;
		}
		print_doubt(p, row);
		fputc('\n', f);
		return;
	}
	aggr_printout(p, row, nr);
	if (p->json) {
		fprintf(f, "\"counter-value\" : \"%f\", ", row->value);
	} else {
		bool frac = floor(row->scale) != row->scale;

		if (p->csv)
			fprintf(f, frac ? "%.2f%s" : "%.0f%s", row->value, p->sep);
		else if (!p->o->opts.no_grouping)
			fprintf(f, frac ? "%'18.2f%s" : "%'18.0f%s", row->value, p->sep);
		else
			fprintf(f, frac ? "%18.2f%s" : "%18.0f%s", row->value, p->sep);
	}
	if (p->json)
		fprintf(f, "\"unit\" : \"%s\", ", row->unit);
	else
		fprintf(f, "%-*s%s", p->csv ? 0 : p->unit_width, row->unit, p->sep);
	if (p->json)
		fprintf(f, "\"event\" : \"%s\", ", name);
	else
		fprintf(f, "%-*s", p->csv ? 0 : 32, name);
	print_cgroup(p, row);
	if (p->csv || p->json) {
		print_noise(p, row);
		print_running(p, run, ena);
	}
	if (i == SIZE_MAX || !shadow_metric(p, i, &m))
		set_metric(&m, NULL, NULL, 0);
	if (p->json) {
		print_doubt(p, row);
		print_metric(p, &m);
	} else {
		print_metric(p, &m);
		if (!p->csv) {
			print_noise(p, row);
			print_running(p, run, ena);
		}
		print_doubt(p, row);
	}
	fputc('\n', f);
}

static void printout(struct perf_out *p, size_t i)
{
	printout_row(p, &p->r->rows[i], i);
}

/*
 * perf's print_aggr prints every event in every bucket (aggr_map id): an
 * event none of whose CPUs is in a bucket (an uncore event's cpumask CPU, a
 * tool event's CPU 0) is <not counted> there, with 0 CPUs. The same event's
 * other rows give the rest; b, the bucket's, where.
 */
static void print_missing(struct perf_out *p, const struct pm_row *ev, const struct pm_row *b)
{
	struct pm_row row = *ev;

	row.socket = b->socket;
	row.die = b->die;
	row.core = b->core;
	row.node = b->node;
	row.cpu = b->cpu;
	row.domain = b->domain;
	row.flags = PM_ROW_NOT_COUNTED;
	row.value = NAN;
	row.n_cpus = 0;
	row.enabled_sum_ns = row.running_sum_ns = 0;
	printout_row(p, &row, SIZE_MAX);
}

/* Two rows of one event (perf's evsel): the same label, instance and cgroup. */
static bool same_event(const struct pm_row *a, const struct pm_row *b)
{
	return !strcmp(a->event, b->event) && !cmp_str(a->device, b->device) &&
	       !cmp_str(a->cgroup, b->cgroup);
}

/* The bucket modes' rows: each bucket (order, sorted by bucket), every event in it. */
static void print_buckets(struct perf_out *p, const size_t *order, size_t n)
{
	const struct pm_row *rows = p->r->rows;

	for (size_t a = 0, b; a < n; a = b) {
		const struct pm_row *first = &rows[order[a]];

		for (b = a + 1; b < n && !bucket_cmp(p, first, &rows[order[b]]); b++)
			;
		/* the events in the report's order, each found in the bucket or made up */
		for (size_t e = 0; e < p->r->n_rows; e++) {
			const struct pm_row *ev = &rows[e];
			bool seen = false, found = false;

			if (ev->flags & PM_ROW_METRIC)
				continue;
			for (size_t k = 0; k < e && !seen; k++)
				seen = !(rows[k].flags & PM_ROW_METRIC) && same_event(&rows[k], ev);
			if (seen)
				continue;
			for (size_t k = a; k < b && !found; k++)
				if (!(rows[order[k]].flags & PM_ROW_METRIC) &&
				    same_event(&rows[order[k]], ev)) {
					printout(p, order[k]);
					found = true;
				}
			if (!found)
				print_missing(p, ev, first);
		}
		for (size_t k = a; k < b; k++)
			if (rows[order[k]].flags & PM_ROW_METRIC)
				print_metric_row(p, order[k]);
	}
}

/*
 * A metric row of pmumon's (-M): perf prints a metric in the comment column
 * of the event that leads it, and every further one on a line of its own
 * (new_line_std/_csv/_json, then generic_metric's "%8.1f" and "UNIT  NAME", or
 * "%8.2f" and NAME); pmumon's metrics are rows of their own, each printed as
 * such a line after the events of its bucket.
 */
static void print_metric_row(struct perf_out *p, size_t i)
{
	static const int aggr_fields[] = {
		[AGGR_GLOBAL] = 0, [AGGR_NONE] = 1, [AGGR_SOCKET] = 2, [AGGR_DIE] = 2,
		[AGGR_CORE] = 2,   [AGGR_NODE] = 1, [AGGR_THREAD] = 1, [AGGR_CACHE] = 2,
	};
	const struct pm_row *row = &p->r->rows[i];
	struct metric m;
	bool value = !(row->flags & (PM_ROW_NOT_COUNTED | PM_ROW_UNDEFINED)) &&
		     isfinite(row->value);

	if (row->unit[0]) {
		snprintf(m.unit_buf, sizeof(m.unit_buf), "%s  %s", row->unit, row->event);
		set_metric(&m, "%8.1f", m.unit_buf, row->value);
	} else {
		set_metric(&m, "%8.2f", row->event, row->value);
	}
	if (p->prefix[0])
		fputs(p->prefix, p->f);
	aggr_printout(p, row, (int)row->n_cpus);
	if (p->csv) {
		for (int k = 0; k < 3 + aggr_fields[p->aggr] + (row->cgroup ? 1 : 0); k++)
			fputs(p->sep, p->f);
		if (value) {
			print_metric(p, &m);
		} else {
			fprintf(p->f, "%s%s%s", p->sep, p->sep, m.unit);
		}
	} else if (p->json) {
		if (value)
			fprintf(p->f, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}", m.val,
				m.unit);
		else
			fprintf(p->f, "\"metric-value\" : null, \"metric-unit\" : \"%s\"}", m.unit);
	} else {
		if (p->aggr == AGGR_NONE)
			fputs("        ", p->f);
		fputs("                                                 ", p->f);
		if (value) {
			print_metric(p, &m);
		} else {
			int n = fprintf(p->f, " # %8s", NOT_COUNTED);

			fprintf(p->f, " %-*s", METRIC_LEN - n - 1, m.unit);
		}
	}
	fputc('\n', p->f);
}

/* ---- a report ------------------------------------------------------------------------- */

/* The order perf prints rows in: by bucket for --per-socket/-die/-core/-node (its aggr_map),
 * by thread count for --per-thread, else the rows' own (event by event). */
struct order_ctx {
	const struct pm_report *r;
	enum perf_aggr aggr;
};

static int cmp_int(int a, int b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

/* The order of two rows' buckets (their aggr_map ids), 0 for one bucket. */
static int bucket_cmp_aggr(enum perf_aggr aggr, const struct pm_row *a, const struct pm_row *b)
{
	int c = 0;

	switch (aggr) {
	case AGGR_NODE:
		c = cmp_int(a->node, b->node);
		break;
	case AGGR_CACHE:
		c = cmp_int(a->socket, b->socket);
		if (!c)
			c = cmp_int(a->die, b->die);
		if (!c)
			c = cmp_str(a->domain, b->domain);
		break;
	case AGGR_THREAD: {
		/* one event's threads by value, largest first (sort_aggr_thread) */
		double va = isfinite(a->value) ? a->value : -1,
		       vb = isfinite(b->value) ? b->value : -1;

		c = (va < vb) - (va > vb);
		break;
	}
	default:
		c = cmp_int(a->socket, b->socket);
		if (!c && aggr != AGGR_SOCKET)
			c = cmp_int(a->die, b->die);
		if (!c && aggr == AGGR_CORE)
			c = cmp_int(a->core, b->core);
		break;
	}
	return c;
}

static int bucket_cmp(const struct perf_out *p, const struct pm_row *a, const struct pm_row *b)
{
	return bucket_cmp_aggr(p->aggr, a, b);
}

/* qsort_r's comparator: index arrays, by bucket, then the report's order */
static int by_bucket(const void *x, const void *y, void *arg)
{
	const struct order_ctx *oc = arg;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = bucket_cmp_aggr(oc->aggr, &oc->r->rows[i], &oc->r->rows[j]);

	return c ? c : (i > j) - (i < j);
}

static size_t *print_order(const struct perf_out *p, size_t *ret_n)
{
	const struct pm_report *r = p->r;
	size_t *order = malloc((r->n_rows + 1) * sizeof(*order)), n = 0;
	struct order_ctx oc = { r, p->aggr };

	if (!order)
		return NULL;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_row *row = &r->rows[i];

		/* perf's global --per-thread leaves out the threads that counted 0 */
		if (p->aggr == AGGR_THREAD && p->o->opts.perf_all_threads &&
		    !(row->flags & PM_ROW_METRIC) && counted(row) && row->value == 0)
			continue;
		order[n++] = i;
	}
	if (p->aggr != AGGR_GLOBAL && p->aggr != AGGR_NONE && p->aggr != AGGR_THREAD) {
		qsort_r(order, n, sizeof(*order), by_bucket, &oc);
	} else if (p->aggr == AGGR_THREAD) {
		/* each event's rows (a run of them) on their own; metric rows stay after */
		for (size_t a = 0, b; a < n; a = b) {
			const struct pm_row *first = &r->rows[order[a]];

			for (b = a + 1; b < n && !(first->flags & PM_ROW_METRIC) &&
					!(r->rows[order[b]].flags & PM_ROW_METRIC) &&
					!strcmp(r->rows[order[b]].event, first->event);
			     b++)
				;
			if (!(first->flags & PM_ROW_METRIC))
				qsort_r(order + a, b - a, sizeof(*order), by_bucket, &oc);
		}
	}
	*ret_n = n;
	return order;
}

/* print_interval: the time prefix, and the table's header every 25 intervals */
static void interval_start(struct perf_out *p)
{
	const struct pm_report *r = p->r;
	unsigned long sec = (unsigned long)(r->t_ns / 1000000000ull),
		      nsec = (unsigned long)(r->t_ns % 1000000000ull);
	FILE *f = p->f;
	int uw = p->unit_width;

	if (p->json)
		snprintf(p->prefix, sizeof(p->prefix), "{\"interval\" : %lu.%09lu, ", sec, nsec);
	else
		snprintf(p->prefix, sizeof(p->prefix), "%6lu.%09lu%s", sec, nsec, p->sep);
	if (p->csv || p->json || (p->o->n_reports % 25 && !p->o->opts.clear_screen))
		return;
	if (p->o->opts.clear_screen)
		fputs("\033[H\033[2J\n", f); /* perf: puts(CONSOLE_CLEAR) */
	switch (p->aggr) {
	case AGGR_NODE:
		fprintf(f, "#           time node   cpus             counts %*s events\n", uw,
			"unit");
		break;
	case AGGR_SOCKET:
		fprintf(f, "#           time socket cpus             counts %*s events\n", uw,
			"unit");
		break;
	case AGGR_DIE:
		fprintf(f, "#           time die          cpus             counts %*s events\n", uw,
			"unit");
		break;
	case AGGR_CORE:
	case AGGR_CACHE:
		fprintf(f, "#           time core            cpus             counts %*s events\n",
			uw, "unit");
		break;
	case AGGR_NONE:
		fprintf(f, "#           time CPU                    counts %*s events\n", uw,
			"unit");
		break;
	case AGGR_THREAD:
		fprintf(f,
			"#           time             comm-pid                  counts %*s events\n",
			uw, "unit");
		break;
	default:
		fprintf(f, "#           time             counts %*s events\n", uw, "unit");
		break;
	}
}

static void print_header(struct perf_out *p)
{
	const struct pm_report *r = p->r;
	char runs[32] = "", sim[96] = "";

	if (p->csv || p->json)
		return;
	if (r->runs > 1)
		snprintf(runs, sizeof(runs), " (%u runs)", r->runs);
	if (p->o->opts.simulated)
		snprintf(sim, sizeof(sim), " [SIMULATED%s%s]", p->o->opts.sim_platform ? ": " : "",
			 p->o->opts.sim_platform ? p->o->opts.sim_platform : "");
	fprintf(p->f, "\n Performance counter stats for %s%s%s:\n\n", p->o->opts.target, runs, sim);
}

/* print_footer; get_precision of the stddev (2 digits past its first significant one) */
static void print_footer(struct perf_out *p)
{
	const struct pm_report *r = p->r;
	double avg = (double)r->t_ns / 1e9;
	FILE *f = p->f;

	fputc('\n', f);
	if (r->runs <= 1) {
		fprintf(f, " %17.9f seconds time elapsed", avg);
		if (r->task_times) {
			fputs("\n\n", f);
			fprintf(f, " %17.9f seconds user\n", (double)r->user_ns / 1e9);
			fprintf(f, " %17.9f seconds sys\n", (double)r->system_ns / 1e9);
		}
	} else {
		double sd = r->t_stddev_ns / 1e9;
		int prec = (sd > 1 ? 0 : sd > 0 ? (int)lround(ceil(-log10(sd))) : 7) + 2;

		fprintf(f, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		if (avg > 0 && sd > 0)
			fprintf(f, "  ( +-%6.2f%% )", sd / avg * 100.0);
	}
	fputs("\n\n", f);
}

/* A simulated run says so, in a line perf's readers skip as they skip its "# started on". */
static void sim_line(struct perf_out *p)
{
	/* the totals' table says it in its header line */
	if (!p->o->opts.simulated || p->o->header_done || (!p->csv && !p->json && !p->r->interval))
		return;
	fprintf(p->f, "# SIMULATED%s%s: numbers come from pmumon's simulator, not hardware\n",
		p->o->opts.sim_platform ? ": " : "",
		p->o->opts.sim_platform ? p->o->opts.sim_platform : "");
	p->o->header_done = true;
}

static int perf_report(struct pm_out *o, const struct pm_report *r)
{
	/* perf's printf follows the locale its setlocale(LC_ALL, "") chose: the
	 * environment's numbers (digit grouping for %', the decimal point) */
	locale_t c = uselocale(o->perf_locale != (locale_t)0 ? o->perf_locale : o->c_locale);
	struct perf_out p = {
		.o = o,
		.f = o->f,
		.r = r,
		.fmt = o->opts.format,
		.aggr = perf_aggr_of(r->aggr),
		.csv = o->opts.format == PM_OUT_PERF_CSV,
		.json = o->opts.format == PM_OUT_PERF_JSON,
		.unit_width = 4, /* strlen("unit") */
		.wall_ns = (double)(r->interval ? r->duration_ns : r->t_ns),
	};
	size_t n = 0, *order;
	char sep1[2] = { o->opts.sep ? o->opts.sep : ',', '\0' };

	p.sep = !p.csv ? " " : o->opts.perf_sep ? o->opts.perf_sep : sep1;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_row *row = &r->rows[i];
		int w = (int)strlen(row->unit);

		if (!(row->flags & (PM_ROW_UNSUPPORTED | PM_ROW_METRIC)) && w > p.unit_width)
			p.unit_width = w;
		p.any_cgroup |= row->cgroup != NULL;
	}
	order = print_order(&p, &n);
	if (!order) {
		uselocale(c);
		return -ENOMEM;
	}
	sim_line(&p);
	if (r->interval)
		interval_start(&p);
	else
		print_header(&p);
	if (p.aggr == AGGR_SOCKET || p.aggr == AGGR_DIE || p.aggr == AGGR_CORE ||
	    p.aggr == AGGR_NODE || p.aggr == AGGR_CACHE)
		print_buckets(&p, order, n);
	else
		for (size_t k = 0; k < n; k++) {
			if (r->rows[order[k]].flags & PM_ROW_METRIC)
				print_metric_row(&p, order[k]);
			else
				printout(&p, order[k]);
		}
	if (!r->interval && !p.csv && !p.json)
		print_footer(&p);
	free(order);
	uselocale(c);
	return ferror(o->f) ? -EIO : 0;
}

const struct pm_out_ops pm_out_perf = { .report = perf_report };
