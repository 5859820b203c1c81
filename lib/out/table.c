// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table people read: perf stat's layout, units scaled for people,
 * thousands grouped, the running share in parentheses when a value was
 * extrapolated from multiplexed counting, <not counted> rather than 0,
 * "undefined (0/0)" for a formula with no value although its inputs counted
 * (any division by zero), and a mark in brackets for every other reason to
 * doubt a value: [partial 8/16] (it covers 8 of the 16 devices it stands
 * for), [wrap?], [reprogrammed], [reset], [lost].
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "util/util.h"

static void aggr_label(enum pm_aggr aggr, const struct pm_row *row, char *buf, size_t size)
{
	switch (aggr) {
	case PM_AGGR_DEVICE:
	case PM_AGGR_CHANNEL:
		/* "ali_drw_25080 die0/ch2/sub1", "die0/ch2", or a device no pack places */
		snprintf(buf, size, "%s%s%s", row->device ? row->device : "",
			 row->device && row->place ? " " : "", row->place ? row->place : "");
		if (!buf[0])
			snprintf(buf, size, "-");
		break;
	case PM_AGGR_CPU:
		/* an uncore count read on one CPU for its L3, die or socket says which */
		if (row->domain)
			snprintf(buf, size, "%s", row->domain);
		else if (row->cpu < 0)
			snprintf(buf, size, "task");
		else
			snprintf(buf, size, "CPU%d", row->cpu);
		break;
	case PM_AGGR_DIE:
		snprintf(buf, size, "S%d-D%d", row->socket, row->die);
		break;
	case PM_AGGR_SOCKET:
		snprintf(buf, size, "S%d", row->socket);
		break;
	case PM_AGGR_CORE:
	case PM_AGGR_NODE:
	case PM_AGGR_CACHE:
	case PM_AGGR_THREAD: /* a thread: "bash-1234" */
		/* "S0-D0-C3", "N1", "S0-D0-L3-ID8", or the domain an uncore count is */
		snprintf(buf, size, "%s", row->domain ? row->domain : "-");
		break;
	default:
		buf[0] = '\0';
	}
	/* --no-merge within a bucket (-A --no-merge): the PMU instance too */
	if (row->device && aggr != PM_AGGR_DEVICE && aggr != PM_AGGR_CHANNEL && buf[0]) {
		size_t n = strlen(buf);

		snprintf(buf + n, size - n, " %s", row->device);
	}
}

/*
 * A value: counts whole and grouped (4,009,862,308); other values with 2
 * decimals (1,200.90 MB/s), except that a non-zero value below 1 shows 3
 * significant digits (0.500, 0.00421 GB), and one below 1e-6 in exponent
 * form (4.21e-09): a small rate never prints as 0.00, which only a true
 * zero does.
 */
static void value_text(const struct pm_row *row, char *buf, size_t size)
{
	double a = fabs(row->value);

	if (row->flags & PM_ROW_UNDEFINED && !(row->flags & PM_ROW_NOT_COUNTED))
		snprintf(buf, size, "undefined (0/0)");
	else if (row->flags & PM_ROW_UNSUPPORTED && row->flags & PM_ROW_NOT_COUNTED)
		snprintf(buf, size, "<not supported>");
	else if (row->flags & PM_ROW_NOT_COUNTED || !isfinite(row->value))
		snprintf(buf, size, "<not counted>");
	else if (!row->unit[0] && !(row->flags & PM_ROW_SNAPSHOT) &&
		 (!(row->flags & PM_ROW_METRIC) || row->value == round(row->value)))
		pm_fmt_grouped(buf, size, round(row->value), 0); /* a count */
	else if (a > 0 && a < 1e-6)
		snprintf(buf, size, "%.2e", row->value);
	else if (a > 0 && a < 1)
		pm_fmt_grouped(buf, size, row->value, 2 - (int)floor(log10(a)));
	else
		pm_fmt_grouped(buf, size, row->value, 2);
}

/* The aggregation column's text, kept per row (pm_out__label): made once per session. */
static void make_aggr_label(const struct pm_out *o, struct pm_obuf *b, enum pm_aggr aggr,
			    const struct pm_row *row)
{
	char buf[128];

	(void)o;
	aggr_label(aggr, row, buf, sizeof(buf));
	pm_obuf__puts(b, buf);
}

/* Row i's aggregation label into buf (copied from the kept one). */
static const char *row_aggr(struct pm_out *o, const struct pm_report *r, size_t i, char *buf,
			    size_t size)
{
	const struct pm_out_label *l = pm_out__label(o, i, r->aggr, &r->rows[i], make_aggr_label);

	if (l)
		return l->text;
	aggr_label(r->aggr, &r->rows[i], buf, size); /* out of memory: made again */
	return buf;
}

/* The aggregation column's width; *ret_kept: every row's label is o->labels[i], made or
 * checked here for this report (then the rows take it from there, not checking again). */
static int aggr_width(struct pm_out *o, const struct pm_report *r, bool *ret_kept)
{
	int w = 0;

	*ret_kept = true;
	if (r->aggr == PM_AGGR_FAMILY)
		return 0;
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct pm_out_label *l = pm_out__label(o, i, r->aggr, &r->rows[i],
							     make_aggr_label);
		char buf[128];
		int n = l ? (int)l->len : (int)strlen(row_aggr(o, r, i, buf, sizeof(buf)));

		*ret_kept = *ret_kept && l;

		w = n > w ? n : w;
	}
	return w;
}

/*
 * The 95 % interval of an estimate (docs/bounds.md), as its half-width in %
 * of the value: " ± 1.2 %", " ± 0.04 %" (two significant digits below 1 %;
 * " ± <0.01 %" below that),
 * " ± ? %" where no honest bound exists (too few phases, an import), and
 * " ± ?+ %" where counts may be missing (no upper bound). Its length.
 */
static size_t bound_text(const struct pm_row *row, char *buf, size_t size)
{
	double pct = pm_out__bound_pct(row);
	int n;

	if (row->bound == PM_BOUND_MISSING)
		n = snprintf(buf, size, " \u00b1 ?+ %%");
	else if (!isfinite(pct))
		n = snprintf(buf, size, " \u00b1 ? %%");
	else if (pct >= 9.95)
		n = snprintf(buf, size, " \u00b1 %.0f %%", pct);
	else if (pct >= 0.995)
		n = snprintf(buf, size, " \u00b1 %.1f %%", pct);
	else if (pct >= 0.01)
		n = snprintf(buf, size, " \u00b1 %.2g %%", pct);
	else /* steady traffic: the integer counts' uncertainty, nothing to see */
		n = snprintf(buf, size, " \u00b1 <0.01 %%");
	return n > 0 ? PM_MIN((size_t)n, size - 1) : 0;
}

/* What follows the event: " (50.00%)" when extrapolated, its interval " ± 1.2 %", then the
 * marks; "" for none. */
static void suffix_text(const struct pm_row *row, char *buf, size_t size)
{
	static const struct {
		unsigned flag;
		const char *mark;
	} marks[] = {
		{ PM_ROW_WRAP_UNCERTAIN, " [wrap?]" },
		{ PM_ROW_REPROGRAMMED, " [reprogrammed]" },
		{ PM_ROW_RESET, " [reset]" },
		{ PM_ROW_LOST, " [lost]" },
	};
	size_t n = 0;

	buf[0] = '\0';
	if (row->flags & PM_ROW_MULTIPLEXED && !(row->flags & PM_ROW_NOT_COUNTED))
		n += (size_t)snprintf(buf, size, " (%.2f%%)", 100.0 * row->running);
	/* an estimate's interval; counts missing from a count, its mark says ([wrap?]) */
	if (!(row->flags & PM_ROW_NOT_COUNTED) && isfinite(row->value) &&
	    row->bound != PM_BOUND_EXACT &&
	    (row->bound != PM_BOUND_MISSING || row->flags & PM_ROW_MULTIPLEXED) && n < size)
		n += bound_text(row, buf + n, size - n);
	if (row->flags & PM_ROW_PARTIAL && n < size)
		n += (size_t)snprintf(buf + n, size - n, " [partial %u/%u]", row->covered,
				      row->instances);
	/* an attributed row: whether its interval holds the proxies' bias (docs/attribution.md) */
	if (row->flags & PM_ROW_PROXY_BIAS_EXCLUDED && n < size)
		n += (size_t)snprintf(buf + n, size - n, " [proxy bias excluded]");
	else if (row->flags & PM_ROW_PROXY_BIAS_INCLUDED && n < size)
		n += (size_t)snprintf(buf + n, size - n, " [\u00b1%g %% proxy error declared]",
				      100 * row->proxy_error);
	if (!(row->flags &
	      (PM_ROW_WRAP_UNCERTAIN | PM_ROW_REPROGRAMMED | PM_ROW_RESET | PM_ROW_LOST)))
		return; /* most rows have no mark */
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && n < size; i++)
		if (row->flags & marks[i].flag)
			n += (size_t)snprintf(buf + n, size - n, "%s", marks[i].mark);
}

/*
 * The comment column (out/shadow.c), made once per report: the rows of an
 * aggregation bucket (same label, same cgroup) pair; note[i] is row i's
 * comment, "" for none. No notes when no row has a comment kind (uncore and
 * metric reports) or memory ran out.
 */
struct notes {
	char (*note)[64];
	bool any; /* some row has one: a row without one but with a suffix leaves its room */
};

struct bucket_key {
	const char *label, *cgroup;
	size_t i;
};

static int str_cmp(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

static int bucket_cmp(const void *x, const void *y)
{
	const struct bucket_key *a = x, *b = y;
	int c = str_cmp(a->label, b->label);

	if (!c)
		c = str_cmp(a->cgroup, b->cgroup);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Sort the rows by bucket into b (its arrays sized for n): 0 or -ENOMEM. */
static int buckets_sort(struct pm_out_buckets *b, size_t n)
{
	struct bucket_key *k = malloc(n * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct bucket_key){ b->label[i], b->cgroup[i], i };
	qsort(k, n, sizeof(*k), bucket_cmp);
	for (size_t i = 0; i < n; i++)
		b->order[i] = k[i].i;
	free(k);
	return 0;
}

/*
 * The rows' buckets, kept in o from one report to the next: the labels are o's own
 * (pm_out__label makes each once) and the cgroups the session's, so while every row
 * has the same two the sorted order stands, and an interval sorts nothing.
 */
static int buckets_of(struct pm_out *o, const struct pm_report *r, int aw)
{
	struct pm_out_buckets *b = &o->buckets;
	size_t n = r->n_rows;
	bool same = b->n == n;

	if (b->n != n) {
		const char **label = realloc(b->label, n * sizeof(*label));

		if (label)
			b->label = label;
		b->cgroup = label ? realloc(b->cgroup, n * sizeof(*b->cgroup)) : NULL;
		b->order = b->cgroup ? realloc(b->order, n * sizeof(*b->order)) : NULL;
		b->group = b->order ? realloc(b->group, n * sizeof(*b->group)) : NULL;
		b->note = b->group ? realloc(b->note, n * sizeof(*b->note)) : NULL;
		if (!b->note) { /* what was reallocated stays b's; start over next time */
			b->n = 0;
			return -ENOMEM;
		}
		b->n = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pm_out_label *l = aw ? pm_out__label(o, i, r->aggr, &r->rows[i],
								  make_aggr_label) :
						    NULL;
		const char *text = l ? l->text : "";

		if (aw && !l)
			return -ENOMEM;
		/* (after a resize the arrays hold nothing yet: not read) */
		same = same && b->label[i] == text && b->cgroup[i] == r->rows[i].cgroup;
		b->label[i] = text;
		b->cgroup[i] = r->rows[i].cgroup;
	}
	return same ? 0 : buckets_sort(b, n);
}

static void notes_make(struct pm_out *o, const struct pm_report *r, int aw, struct notes *nt)
{
	/* perf's walltime_nsecs_stats: the run's elapsed time (the runs' mean), or the
	 * interval's (perf: the -I it was asked for; pmumon: the one measured) */
	double wall_ns = (double)(r->interval ? r->duration_ns : r->t_ns);
	struct pm_out_buckets *b = &o->buckets;
	size_t n = r->n_rows, j = 0;
	bool need = false;

	*nt = (struct notes){ NULL, false };
	for (size_t i = 0; i < n && !need; i++)
		need = r->rows[i].shadow != PM_SHADOW_NONE;
	if (!need || buckets_of(o, r, aw) < 0)
		return;
	nt->note = b->note;
	for (size_t i = 0; i < n; i = j) {
		size_t first = b->order[i];

		for (j = i; j < n && !str_cmp(b->label[b->order[j]], b->label[first]) &&
			    !str_cmp(b->cgroup[b->order[j]], b->cgroup[first]);
		     j++)
			b->group[j] = b->order[j];
		for (size_t m = i; m < j; m++) {
			b->note[b->order[m]][0] = '\0';
			if (pm_out__shadow(r->rows, b->group + i, j - i, b->order[m], wall_ns,
					   b->note[b->order[m]], sizeof(b->note[0])))
				nt->any = true;
		}
	}
}

/* Spaces at l's end, n of them. */
static inline void pad(struct pm_line *l, size_t n)
{
	memset(l->buf + l->n, ' ', n);
	l->n += n;
}

/* pm_line__put with s's length known: the table's rows are most of an import's output. */
static inline void put(struct pm_line *l, const char *s, size_t len, int width, bool right)
{
	size_t n = width > 0 && (size_t)width > len ? (size_t)width - len : 0;

	if (l->n + len + n >= sizeof(l->buf))
		return; /* a line this long is a bug upstream; drop the field, not the line */
	if (right)
		pad(l, n);
	memcpy(l->buf + l->n, s, len);
	l->n += len;
	if (!right)
		pad(l, n);
}

/* One row: [prefix] [aggregation] value unit event [# comment] [(running%)] [marks]. */
static void print_row(struct pm_out *o, const struct pm_report *r, size_t i, int aw, bool kept,
		      const struct pm_line *prefix, const struct notes *nt)
{
	const struct pm_row *row = &r->rows[i];
	struct pm_line l;
	char agg[128], val[64], suffix[128];
	const char *note = nt->note ? nt->note[i] : "";
	size_t event_len = strlen(row->event);

	l.n = 0;
	value_text(row, val, sizeof(val));
	if (o->opts.no_grouping) /* the separators out: 4,009,862,308 -> 4009862308 */
		for (char *p = val, *q = val;; p++)
			if (*p != ',' && !(*q++ = *p))
				break;
	if (prefix)
		put(&l, prefix->buf, prefix->n, 0, false);
	if (aw) {
		const struct pm_out_label *lab = kept ? &o->labels[i] :
							pm_out__label(o, i, r->aggr, row,
								      make_aggr_label);

		if (lab) {
			put(&l, lab->text, lab->len, aw, false);
		} else { /* out of memory: made again */
			aggr_label(r->aggr, row, agg, sizeof(agg));
			put(&l, agg, strlen(agg), aw, false);
		}
		put(&l, " ", 1, 0, false);
	}
	put(&l, val, strlen(val), 18, true);
	put(&l, " ", 1, 0, false);
	put(&l, row->unit, strlen(row->unit), 6, false);
	put(&l, " ", 1, 0, false);
	suffix_text(row, suffix, sizeof(suffix));
	if (r->runs > 1 && row->spread_pct != 0 && !(row->flags & PM_ROW_NOT_COUNTED)) {
		/* perf's print_noise_pct (util/stat-display.c); a 0 shows nothing, as there */
		size_t n = strlen(suffix);

		snprintf(suffix + n, sizeof(suffix) - n, "  ( +-%6.2f%% )", row->spread_pct);
	}
	/*
	 * The event padded to 40 when a suffix follows; with a comment column,
	 * perf's: the event in 32, then " # " and the comment in METRIC_LEN (38,
	 * util/stat-display.c), blank on rows without one when a suffix follows.
	 */
	bool comment = note[0] || (nt->any && suffix[0]);
	int ew = comment ? 32 : suffix[0] ? 40 : 0;

	if (row->cgroup) { /* perf's column: the cgroup after the event */
		put(&l, row->event, event_len, 0, false);
		put(&l, " ", 1, 0, false);
		int w = ew ? ew - 1 - (int)event_len : 0;

		put(&l, row->cgroup, strlen(row->cgroup), w > 0 ? w : 0, false);
	} else {
		put(&l, row->event, event_len, ew, false);
	}
	if (note[0]) {
		put(&l, " # ", 3, 0, false);
		put(&l, note, strlen(note), suffix[0] ? 35 : 0, false);
	} else if (comment) {
		put(&l, "", 0, 38, false);
	}
	if (suffix[0])
		put(&l, suffix, strlen(suffix), 0, false);
	put(&l, "\n", 1, 0, false);
	pm_obuf__put(&o->buf, l.buf, l.n); /* the report's rows, written at once */
}

static void sim_note(struct pm_out *o, char *buf, size_t size)
{
	if (o->opts.simulated)
		snprintf(buf, size, " [SIMULATED%s%s]", o->opts.sim_platform ? ": " : "",
			 o->opts.sim_platform ? o->opts.sim_platform : "");
	else
		buf[0] = '\0';
}

/*
 * The runs' mean elapsed time with its mean's stddev, as perf's print_footer
 * (util/stat-display.c): two more digits than the stddev's first
 * significant one (get_precision), then the spread in percent.
 */
static void print_elapsed_spread(struct pm_out *o, const struct pm_report *r)
{
	double avg = (double)r->t_ns / 1e9, sd = r->t_stddev_ns / 1e9;
	int prec = sd > 1 ? 2 : sd > 0 ? (int)lround(ceil(-log10(sd))) + 2 : 9;

	prec = prec > 9 ? 9 : prec;
	fprintf(o->f, "\n %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
	if (avg > 0 && sd > 0)
		fprintf(o->f, "  ( +-%6.2f%% )", 100.0 * sd / avg);
	fputs("\n\n", o->f);
}

static int table_report(struct pm_out *o, const struct pm_report *r)
{
	bool kept;
	int r_out, aw = aggr_width(o, r, &kept);
	char sim[128], t[32];
	struct notes nt;

	notes_make(o, r, aw, &nt);
	sim_note(o, sim, sizeof(sim));
	if (r->interval) {
		char tod[32];

		if (o->opts.clear_screen) { /* perf's CONSOLE_CLEAR, then the header again */
			fputs("\033[H\033[2J", o->f);
			o->header_done = false;
		}
		if (!o->header_done) {
			if (sim[0])
				fprintf(o->f,
					"#%s numbers come from pmumon's simulator, not hardware\n",
					sim);
			fprintf(o->f, "# %14s %-12s %*s%s%18s %-6s %s\n", "time", "wall-clock", aw,
				aw ? "aggr" : "", aw ? " " : "", "counts", "unit", "events");
			o->header_done = true;
		}
		struct pm_line prefix;

		prefix.n = 0;
		pm_out__time_of_day(o, r->wall_ns, tod, sizeof(tod));
		pm_fmt_seconds(t, sizeof(t), r->t_ns);
		pm_line__put(&prefix, t, 16, true);
		pm_line__put(&prefix, " ", 0, false);
		pm_line__put(&prefix, tod, 12, false);
		pm_line__put(&prefix, " ", 0, false);
		for (size_t i = 0; i < r->n_rows; i++)
			print_row(o, r, i, aw, kept, &prefix, &nt);
		return pm_obuf__flush(&o->buf, o->f);
	}
	if (r->runs > 1)
		snprintf(t, sizeof(t), " (%u runs)", r->runs);
	else
		t[0] = '\0';
	fprintf(o->f, "\n Performance counter stats for %s%s%s:\n\n", o->opts.target, t, sim);
	for (size_t i = 0; i < r->n_rows; i++)
		print_row(o, r, i, aw, kept, NULL, &nt);
	r_out = pm_obuf__flush(&o->buf, o->f);
	if (r_out < 0)
		return r_out;
	if (r->runs > 1) {
		print_elapsed_spread(o, r);
		return 0;
	}
	pm_fmt_seconds(t, sizeof(t), r->t_ns);
	fprintf(o->f, "\n %17s seconds time elapsed\n\n", t);
	if (r->task_times) {
		/* perf's print_footer with ru_display (util/stat-display.c; builtin-stat.c
		 * sets it for one run of a command, no -a, -C, -p or -t): two lines and
		 * one more blank line */
		pm_fmt_seconds(t, sizeof(t), r->user_ns);
		fprintf(o->f, " %17s seconds user\n", t);
		pm_fmt_seconds(t, sizeof(t), r->system_ns);
		fprintf(o->f, " %17s seconds sys\n\n\n", t);
	}
	return 0;
}

const struct pm_out_ops pm_out_table = { .report = table_report };
