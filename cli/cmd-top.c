// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon top: the live view. A sampler thread counts (cli/sampler.c); this
 * thread draws the latest interval as a screen the platform pack describes
 * (its "Screen": title, metrics, grouping; docs/top.md), with each value's
 * quality beside it, and answers keys. --batch prints the same screens as
 * text, without terminal control, for scripts and tests.
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-commands.h"
#include "cli-live.h"
#include "cli-sampler.h"
#include "cli-values.h"
#include "cli-text.h"
#include "cli-signals.h"
#include "util.h"
#include "screen.h"

#define NS_PER_MS 1000000ull
#define BAR_WIDTH 20
#define LINE_MAX_COLS 1024
#define SIDE_MAX 8 /* sockets side by side at most */
#define MAXI(a, b) ((a) > (b) ? (a) : (b))

struct top_args {
	struct cli_count count;
	struct cli_live_args live;
	bool batch;
	unsigned long screens; /* -n: 0 until q */
};

/* What the screen shows now; keys change it. */
struct view {
	const char *title, *note, *platform;
	bool simulated, unicode, color;
	bool raw;    /* raw events too, not only the screen's metrics */
	bool sorted; /* by value, largest first, not in place order */
	bool paused, help;
	enum pm_aggr aggr;
	unsigned long interval_ms;
	bool has_screen_metrics;
	double peak_bps; /* --define channel_peak=BYTES/S: a channel's peak; 0: none known */
	int cols;	 /* the terminal's width (--batch: $COLUMNS, else 80) */
};

/* The screen as lines of text; both the terminal and --batch print them. */
struct lines {
	char (*line)[LINE_MAX_COLS];
	size_t n, cap;
};

static void usage(FILE *f)
{
	fputs("usage: pmumon top [OPTIONS]\n"
	      "\n"
	      "Shows, every interval, how hard the memory channels, caches and links work,\n"
	      "with how far to trust each value: the platform pack's screen (Yitian 710\n"
	      "DDR per channel, EPYC DF and L3, BlueField L3/tile/PCIe, Merrifield DDR)\n"
	      "or the events given, with totals per die, socket and machine of what adds\n"
	      "up. Runs until q or Ctrl-C, then puts every counter back.\n"
	      "\n"
	      "What to count (default: the pack's screen, else the events given):\n",
	      f);
	cli_count__usage_events(f);
	cli_count__usage_metrics(f);
	cli_live__usage_source(f);
	fputs("Where:\n", f);
	cli_live__usage_where(f);
	fputs("Showing:\n"
	      "  -I, --interval MS     a new screen every MS milliseconds (1000), 100 to 60000\n"
	      "      --per-device, --per-channel, --per-die, --per-socket\n"
	      "                        the grouping to start with (the pack's otherwise)\n"
	      "  -b, --batch           no terminal control: screens as text on standard output,\n"
	      "                        $COLUMNS wide (80 without it)\n"
	      "  -n, --screens N       stop after N screens (top's -n, not perf's --null)\n"
	      "\n"
	      "Keys: q quit, space pause, + and - interval, g grouping (device, channel,\n"
	      "die, socket, CPU: an uncore event per CPU shows per L3, die or socket, as\n"
	      "EPYC's L3 per CCX), s sort by value, r raw events, h help.\n"
	      "\n"
	      "Marks: (52%) counted part of the time, scaled; ~ an approximate formula;\n"
	      "wrap? a read came late, wraps may be missing; partial c/i of its devices;\n"
	      "not counted / lost / undefined where there is no honest value (never 0).\n"
	      "NO_COLOR turns colours off; a terminal that is not UTF-8 gets ASCII bars.\n",
	      f);
}

/* One of top's own options: 0, 1 for --help, -EINVAL (said). */
static int top_option(void *arg, int c, const char *val)
{
	struct top_args *a = arg;

	switch (c) {
	case 'b':
		a->batch = true;
		return 0;
	case 'n':
		return cli_parse_uint("-n", val, 1000000, &a->screens) < 0 ? -EINVAL : 0;
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

static int parse_args(int argc, char **argv, struct top_args *a)
{
	static const struct option opts[] = {
		CLI_EVENT_OPTIONS,
		CLI_COUNT_OPTIONS,
		CLI_LIVE_OPTIONS,
		{ "batch", no_argument, NULL, 'b' },
		{ "screens", required_argument, NULL, 'n' },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = {
		"top", CLI_EVENT_SHORT CLI_COUNT_SHORT CLI_LIVE_SHORT "bn:vh", opts, usage,
		top_option
	};
	int r;

	a->live.interval_ms = 1000;
	r = cli_getopt(argc, argv, &co, &a->count, &a->live, a);
	if (r)
		return r;
	if (optind < argc) {
		cli_error("top takes no command ('%s'): it shows the whole machine", argv[optind]);
		return -EINVAL;
	}
	if (a->live.interval_ms < 100 || a->live.interval_ms > 60000) {
		cli_error("top shows a screen every 100 to 60000 ms, not %lu (-I)",
			  a->live.interval_ms);
		return -EINVAL;
	}
	if (a->count.format != PM_OUT_TABLE || a->count.output || a->count.metric_only) {
		cli_error("top draws a screen: -x, -j, -o and --metric-only are stat's");
		return -EINVAL;
	}
	if (!a->batch && !isatty(STDOUT_FILENO)) {
		cli_error("top draws on a terminal; standard output is not one: add --batch "
			  "(and -n N) for text");
		return -EINVAL;
	}
	return cli_count__check(&a->count) < 0 || cli_live__check(&a->live) < 0 ||
			       cli_count__table_only(&a->count, "top") < 0 ?
		       -EINVAL :
		       0;
}

/* ---- the screen as lines ------------------------------------------------------------ */

static char *add_line(struct lines *ls)
{
	if (PM_GROW(ls->line, ls->cap, ls->n + 1) < 0)
		return NULL;
	ls->line[ls->n][0] = '\0';
	return ls->line[ls->n++];
}

static void put_line(struct lines *ls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(struct lines *ls, const char *fmt, ...)
{
	char *l = add_line(ls);
	va_list ap;

	if (!l)
		return;
	va_start(ap, fmt);
	vsnprintf(l, LINE_MAX_COLS, fmt, ap);
	va_end(ap);
	for (size_t n = strlen(l); n > 0 && l[n - 1] == ' '; n--)
		l[n - 1] = '\0'; /* a padded bar with no marks after it */
}

/* How the screen's rows are made: the row mode, "merged" for one row per event. */
static const char *aggr_name(enum pm_aggr a)
{
	return a == PM_AGGR_FAMILY ? "merged" : cli_aggr_name(a);
}

/*
 * A value in its kind's unit as two columns: the number, and the unit with
 * the SI prefix of a plain count per second ("18.378" "M/s").
 */
static void value_parts(double v, const char *unit, char *num, size_t nsize, char *u, size_t usize)
{
	const char *prefix = "";

	if (unit[0] == '/' && fabs(v) >= 1e9)
		v /= 1e9, prefix = "G";
	else if (unit[0] == '/' && fabs(v) >= 1e6)
		v /= 1e6, prefix = "M";
	if (fabs(v) >= 1e8)
		snprintf(num, nsize, "%.4e", v);
	else
		snprintf(num, nsize, "%.3f", v);
	snprintf(u, usize, "%s%s", prefix, unit);
}

/* The marks of a row's quality: empty when it is a plain, whole count; an estimate's
 * interval after its running share (" (33%) ±1.2%"). */
static void marks_text(const struct pm_row *r, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	if (r->flags & PM_ROW_MULTIPLEXED && !isnan(r->running))
		off += (size_t)snprintf(buf + off, size - off, " (%.0f%%)", r->running * 100);
	/* an estimate's 95 % interval (docs/bounds.md): its wider side in % of the value, or
	 * "?" where none could be measured */
	if (!isnan(r->value) && r->bound != PM_BOUND_EXACT && r->bound != PM_BOUND_NO_VALUE &&
	    off < size) {
		double w = fmax(r->hi - r->value, r->value - r->lo) / fabs(r->value) * 100;

		if (r->bound == PM_BOUND_MEASURED && isfinite(w))
			off += (size_t)snprintf(buf + off, size - off,
						w < 0.01 ? " \u00b1<0.01%%" :
						w < 9.95 ? " \u00b1%.1f%%" :
							   " \u00b1%.0f%%",
						w);
		else if (r->flags & PM_ROW_MULTIPLEXED)
			off += (size_t)snprintf(buf + off, size - off, " \u00b1?%%");
	}
	if (r->flags & PM_ROW_APPROXIMATE && off < size)
		off += (size_t)snprintf(buf + off, size - off, " ~");
	if (r->flags & PM_ROW_PARTIAL && off < size)
		off += (size_t)snprintf(buf + off, size - off, " partial %u/%u", r->covered,
					r->instances);
	for (unsigned bit = PM_ROW_WRAP_UNCERTAIN; bit <= PM_ROW_RESET && off < size; bit <<= 1)
		if (r->flags & bit)
			off += (size_t)snprintf(buf + off, size - off, " %s",
						bit == PM_ROW_WRAP_UNCERTAIN ?
							"wrap?" :
							pm_row_flag_name(bit));
}

/* A bar of v against max, width cells: Unicode eighths or ASCII. */
static void bar_text(double v, double max, int width, bool unicode, char *buf, size_t size)
{
	static const char *eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int cells = max > 0 && v > 0 ? (int)lround(fmin(v / max, 1) * width * 8) : 0;
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < cells / 8 && off + 4 < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s", unicode ? "█" : "#");
	if (cells % 8 && off + 4 < size)
		off += (size_t)snprintf(buf + off, size - off, "%s",
					unicode ? eighths[cells % 8] : (cells % 8 >= 4 ? "#" : ""));
}

/* Columns of UTF-8 text (one per character). */
static int text_cols(const char *s)
{
	return cli_escaped_width(s, strlen(s));
}

/* The screen's columns, the same for every block so that they line up. */
struct cols {
	int label, num, unit, bar, marks; /* marks: 0 in one column (nothing after them) */
};

/* One cell: label, value, unit, bar and marks, padded to the columns' width. */
struct cell {
	char label[160];
	double v;
	struct pm_row q; /* the quality: flags, running, covered, instances */
	bool total;	 /* a total: no bar */
};

static size_t put_cell(char *buf, size_t size, const struct view *v, const struct cols *c,
		       const struct cell *e, const char *unit, double max)
{
	char num[32], u[32], bar[BAR_WIDTH * 3 + 8], marks[96];
	int w;

	marks_text(&e->q, marks, sizeof(marks));
	if (isnan(e->v)) {
		const char *why = e->q.flags & PM_ROW_LOST	  ? "lost" :
				  e->q.flags & PM_ROW_UNSUPPORTED ? "not supported" :
				  e->q.flags & PM_ROW_UNDEFINED	  ? "undefined" :
								    "not counted";

		w = snprintf(buf, size, "%-*s %*s %*s%-*s", c->label, e->label,
			     c->num + 1 + c->unit, why, c->bar + 1, "", c->marks, marks);
		return w < 0 ? 0 : PM_MIN((size_t)w, size - 1);
	}
	value_parts(e->v, unit, num, sizeof(num), u, sizeof(u));
	if (e->total)
		bar[0] = '\0';
	else
		bar_text(e->v, max, c->bar, v->unicode, bar, sizeof(bar));
	/* a bar's Unicode cells take 3 bytes and one column each: pad by columns */
	w = snprintf(buf, size, "%-*s %*s %-*s %s%*s%-*s", c->label, e->label, c->num, num, c->unit,
		     u, bar, c->bar - text_cols(bar) + 1, "", c->marks, marks);
	return w < 0 ? 0 : PM_MIN((size_t)w, size - 1);
}

/* A line of cells side by side (or one), three spaces apart. */
static void put_cells(struct lines *ls, const struct view *v, const struct cols *c,
		      const struct cell *const *e, size_t n, const char *unit, double max)
{
	char line[LINE_MAX_COLS];
	size_t off = 0;

	line[0] = '\0';
	for (size_t i = 0; i < n && off + 4 < sizeof(line); i++) {
		if (i)
			off += (size_t)snprintf(line + off, sizeof(line) - off, "   ");
		if (e[i])
			off += put_cell(line + off, sizeof(line) - off, v, c, e[i], unit, max);
		else /* a column shorter than the others */
			off += (size_t)snprintf(line + off, sizeof(line) - off, "%*s",
						c->label + c->num + c->unit + c->bar + c->marks + 4,
						"");
	}
	put_line(ls, "%s", line);
}

/* Sort cells by value, largest first (NaN last): a screen's worth, insertion sort. */
static void sort_cells(struct cell *e, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			struct cell t;

			if (!(e[j].v > e[j - 1].v) && !(isnan(e[j - 1].v) && !isnan(e[j].v)))
				break;
			t = e[j], e[j] = e[j - 1], e[j - 1] = t;
		}
}

/* A kind of one place on one line ("L3_Cache_Miss_Ratio S0"), where it is short. */
#define ONE_LINE_LABEL 32

static bool one_line(const struct screen_kind *k, const struct screen_item *it, char *buf,
		     size_t size)
{
	if (k->n_items != 1)
		return false;
	snprintf(buf, size, "%s %s", k->what[0] ? k->what : k->name, it->label);
	return text_cols(buf) <= ONE_LINE_LABEL;
}

/* The widths every block's lines share, for the screen s. */
static void measure_cols(const struct screen *s, struct cols *c)
{
	char buf[256];

	*c = (struct cols){ .label = 8, .num = 11, .unit = 1, .bar = BAR_WIDTH };
	for (size_t k = 0; k < s->n_kinds; k++) {
		const struct screen_kind *kd = &s->kind[k];

		c->unit = MAXI(c->unit, text_cols(kd->unit) + 1); /* and a prefix: M/s */
		if (one_line(kd, &s->item[kd->item0], buf, sizeof(buf))) {
			c->label = MAXI(c->label, text_cols(buf));
			continue;
		}
		for (size_t i = 0; i < kd->n_items; i++)
			c->label = MAXI(c->label, 2 + text_cols(s->item[kd->item0 + i].label));
		for (size_t i = 0; i < kd->n_totals; i++)
			c->label = MAXI(c->label, 2 + text_cols(s->total[kd->total0 + i].label));
	}
}

/* The widest marks of this interval's values, for columns side by side to line up. */
static int marks_cols(const struct screen *s, const struct pm_report *rep)
{
	char m[96];
	int w = 0;

	for (size_t i = 0; i < s->n_items; i++) {
		marks_text(&rep->rows[s->item[i].row], m, sizeof(m));
		w = MAXI(w, text_cols(m));
	}
	for (size_t i = 0; i < s->n_totals; i++) {
		struct pm_row q;

		screen_total_value(s, rep, i, &q);
		marks_text(&q, m, sizeof(m));
		w = MAXI(w, text_cols(m));
	}
	return w;
}

/* A block's title: the kind, the pack metrics it shows, and what its values are. */
static void put_title(struct lines *ls, const struct screen_kind *k)
{
	char amount[64] = "";

	if (k->measure == SCREEN_AMOUNT && k->metric)
		snprintf(amount, sizeof(amount), "  (%s in each interval, shown per second)",
			 k->from[0] ? k->from : "a count");
	put_line(ls, "%s%s%s%s%s", k->name, k->what[0] ? ": " : "", k->what,
		 k->metric ? "" : "  (event: counts shown per second)", amount);
}

/* One kind's block: its title, a line per place (sockets side by side where they fit),
 * its totals, or why it has none. */
static void put_block(struct lines *ls, const struct view *v, const struct screen *s,
		      const struct pm_report *rep, size_t k, const struct cols *c0,
		      struct cell *cells, const struct cell **line)
{
	const struct screen_kind *kd = &s->kind[k];
	size_t n = kd->n_items, nt = kd->n_totals, per[SIDE_MAX] = { 0 };
	int nsock = s->n_sockets, cols_w;
	struct cols c = *c0;
	double max = 0;
	char label[256];

	for (size_t i = 0; i < n; i++) {
		struct cell *e = &cells[i];
		const struct screen_item *it = &s->item[kd->item0 + i];

		snprintf(e->label, sizeof(e->label), "  %s", it->label);
		e->v = screen_value(s, rep, kd->item0 + i);
		e->q = rep->rows[it->row];
		e->total = false;
		if (e->v > max)
			max = e->v;
	}
	for (size_t i = 0; i < nt; i++) {
		struct cell *e = &cells[n + i];

		snprintf(e->label, sizeof(e->label), "  %s", s->total[kd->total0 + i].label);
		screen_total_value(s, rep, kd->total0 + i, &e->q);
		e->v = e->q.value;
		e->total = true;
	}
	if (!strcmp(kd->unit, "%"))
		max = 100; /* a share: its bar is against the whole */
	else if (v->peak_bps > 0 && v->aggr == PM_AGGR_CHANNEL && cli_unit_bytes(kd->unit) > 0)
		max = v->peak_bps / cli_unit_bytes(kd->unit); /* a channel's bandwidth: its peak */
	if (one_line(kd, &s->item[kd->item0], label, sizeof(label))) {
		snprintf(cells[0].label, sizeof(cells[0].label), "%s", label);
		line[0] = &cells[0];
		put_cells(ls, v, &c, line, 1, kd->unit, max);
		return;
	}
	put_title(ls, kd);
	/* sockets side by side: every item has one, and their columns fit */
	for (size_t i = 0; i < n && nsock > 1; i++)
		if (s->item[kd->item0 + i].socket < 0 || nsock > SIDE_MAX)
			nsock = 1;
	if (nsock > 1) {
		cols_w = nsock * (c.label + c.num + c.unit + c.bar + c.marks + 4) + (nsock - 1) * 3;
		if (cols_w > v->cols)
			nsock = 1;
	}
	if (nsock <= 1) {
		c.marks = 0;
		if (v->sorted)
			sort_cells(cells, n);
		for (size_t i = 0; i < n + nt; i++) {
			line[0] = &cells[i];
			put_cells(ls, v, &c, line, 1, kd->unit, max);
		}
	} else {
		/* each socket's items, then its die and socket totals, in its column; the
		 * machine's total under them */
		struct cell *col[SIDE_MAX];
		size_t rows = 0, at = n + nt;

		for (int sk = 0; sk < nsock; sk++) {
			col[sk] = &cells[at];
			for (size_t i = 0; i < n; i++)
				if (s->item[kd->item0 + i].socket == sk)
					cells[at + per[sk]++] = cells[i];
			if (v->sorted)
				sort_cells(col[sk], per[sk]);
			for (size_t i = 0; i < nt; i++)
				if (s->total[kd->total0 + i].level != SCREEN_MACHINE &&
				    s->total[kd->total0 + i].socket == sk)
					cells[at + per[sk]++] = cells[n + i];
			at += per[sk];
			rows = MAXI(rows, per[sk]);
		}
		for (size_t r = 0; r < rows; r++) {
			for (int sk = 0; sk < nsock; sk++)
				line[sk] = r < per[sk] ? &col[sk][r] : NULL;
			put_cells(ls, v, &c, line, (size_t)nsock, kd->unit, max);
		}
		c.marks = 0;
		for (size_t i = 0; i < nt; i++)
			if (s->total[kd->total0 + i].level == SCREEN_MACHINE) {
				line[0] = &cells[n + i];
				put_cells(ls, v, &c, line, 1, kd->unit, max);
			}
	}
	if (kd->no_total[0])
		put_line(ls, "  no total: %s", kd->no_total);
}

/* The screen's layout, kept while the rows stay the same, and room to lay out a block. */
struct top_screen {
	struct screen_info *info; /* the packs' names for their metrics */
	struct screen s;
	enum screen_rows which;
	struct cell *cells;
	size_t cap_cells;
	const struct cell **line;
	size_t cap_line;
};

static void build_screen(struct lines *ls, struct top_screen *ts, const struct view *v,
			 const struct pm_report *rep, uint64_t seq)
{
	enum screen_rows which = SCREEN_METRICS |
				 (v->raw || !v->has_screen_metrics ? SCREEN_EVENTS : 0);
	struct cols c;

	ls->n = 0;
	put_line(ls, "pmumon top - %s%s", v->title, v->paused ? "  PAUSED" : "");
	if (v->peak_bps > 0 && v->aggr == PM_AGGR_CHANNEL)
		put_line(ls, "%s%s%s#%llu %.1f s by %s%s; bars vs a channel's peak, %.3g GB/s",
			 v->simulated ? "[SIMULATED: " : "", v->simulated ? v->platform : "",
			 v->simulated ? "] " : "", (unsigned long long)seq,
			 (double)rep->duration_ns / 1e9, aggr_name(v->aggr),
			 v->sorted ? ", sorted" : "", v->peak_bps / 1e9);
	else
		put_line(ls, "%s%s%s#%llu %.1f s by %s%s; no peak known: bars vs largest",
			 v->simulated ? "[SIMULATED: " : "", v->simulated ? v->platform : "",
			 v->simulated ? "] " : "", (unsigned long long)seq,
			 (double)rep->duration_ns / 1e9, aggr_name(v->aggr),
			 v->sorted ? ", sorted" : "");
	if (v->note)
		put_line(ls, "%s", v->note);
	/* the screen's layout is made again only when the rows change */
	if (ts->which != which || !screen_fits(&ts->s, rep)) {
		ts->which = which;
		if (screen_build(&ts->s, rep, ts->info, which) < 0 ||
		    PM_GROW(ts->cells, ts->cap_cells, 2 * (ts->s.n_items + ts->s.n_totals) + 2) <
			    0 ||
		    PM_GROW(ts->line, ts->cap_line, SIDE_MAX + 1) < 0) {
			screen_free(&ts->s);
			put_line(ls, "out of memory");
			return;
		}
	}
	measure_cols(&ts->s, &c);
	c.marks = marks_cols(&ts->s, rep);
	for (size_t k = 0; k < ts->s.n_kinds; k++)
		put_block(ls, v, &ts->s, rep, k, &c, ts->cells, ts->line);
}

/* ---- the terminal ------------------------------------------------------------------- */

static const char *const help_text[] = {
	"pmumon top keys",
	"  q        quit (every counter is put back)",
	"  space    pause the screen (counting goes on)",
	"  + / -    a longer / shorter interval",
	"  g        grouping: device, channel, die, socket, CPU",
	"  s        sort each block by value / by place",
	"  r        raw events too / the screen's metrics only",
	"  h ?      this help (any key closes it)",
};

/* How many bytes of UTF-8 text s fill at most cols columns (one per character). */
static int bytes_for_cols(const char *s, int cols)
{
	int n = 0;

	for (int c = 0; s[n] && c <= cols; n++)
		if (((unsigned char)s[n] & 0xc0) != 0x80 && ++c > cols)
			break;
	return n;
}

enum { PAIR_DOUBT = 1, PAIR_NONE = 2 }; /* colour pairs: a value to doubt, no value */

/* A line's attributes: the header reversed; with colour, a doubted value yellow and one
 * not counted red (the marks say the same in words: colour only helps find them). */
static int line_attr(const struct view *v, const char *line, int y)
{
	if (y == 0)
		return A_REVERSE;
	if (!v->color)
		return 0;
	if (strstr(line, "not counted") || strstr(line, " lost") || strstr(line, "undefined"))
		return COLOR_PAIR(PAIR_NONE);
	if (strstr(line, "%)") || strstr(line, "wrap?") || strstr(line, " partial ") ||
	    strstr(line, "reprogrammed") || strstr(line, " reset"))
		return COLOR_PAIR(PAIR_DOUBT);
	return 0;
}

static void draw(const struct view *v, const struct lines *ls)
{
	int rows, cols, fit;
	char overflow[80];

	getmaxyx(stdscr, rows, cols);
	/* a screen longer than the terminal: its last row says how many lines did not fit,
	 * in place of a line (not written over one) */
	fit = ls->n > (size_t)rows ? rows - 1 : rows;
	erase();
	for (int y = 0; y < fit && (size_t)y < ls->n; y++) {
		int attr = line_attr(v, ls->line[y], y);

		attron(attr);
		mvaddnstr(y, 0, ls->line[y], bytes_for_cols(ls->line[y], cols));
		attroff(attr);
	}
	if (ls->n > (size_t)rows && rows > 0) {
		snprintf(overflow, sizeof(overflow), "... %zu more lines: a larger terminal",
			 ls->n - (size_t)fit);
		mvaddnstr(rows - 1, 0, overflow, cols);
	}
	if (v->help) {
		int w = cols > 62 ? 60 : cols - 2;

		attron(A_REVERSE);
		for (size_t i = 0; i < PM_ARRAY_SIZE(help_text) && (int)i + 2 < rows; i++)
			mvprintw((int)i + 2, 2, "%-*.*s", w, w, help_text[i]);
		attroff(A_REVERSE);
	}
	refresh();
}

/* ---- the run ------------------------------------------------------------------------ */

struct top {
	struct cli_live lv;
	struct cli_sampler *sp;
	struct view v;
	struct lines ls;
	struct top_screen ts;
	sigset_t ending;
	uint64_t shown_seq;
	unsigned long screens, max_screens;
};

/* The pack's screen, where no events were given: its metrics and grouping. */
static void choose_screen(struct top *t, struct top_args *a)
{
	const struct pm_screen *sc = pm_ctx__screen(t->lv.ctx);
	static const struct {
		const char *name;
		enum pm_aggr aggr;
	} groups[] = { { "device", PM_AGGR_DEVICE },
		       { "channel", PM_AGGR_CHANNEL },
		       { "die", PM_AGGR_DIE },
		       { "socket", PM_AGGR_SOCKET } };

	if (cli_count__defined(&a->count, "channel_peak") > 0)
		t->v.peak_bps = cli_count__defined(&a->count, "channel_peak");
	t->v.title = "the events given";
	t->v.aggr = a->count.n_aggr ? a->count.aggr : PM_AGGR_DEVICE;
	if (a->count.n_events || a->count.n_metrics || !sc) {
		if (!a->count.n_events && !a->count.n_metrics)
			t->v.title = "the default events";
		t->lv.so.aggr = t->v.aggr;
		return;
	}
	t->v.title = sc->title;
	t->v.note = sc->note;
	if (sc->metrics) {
		a->count.metrics[a->count.n_metrics++] = sc->metrics;
		t->v.has_screen_metrics = true;
	}
	for (size_t i = 0; !a->count.n_aggr && sc->group && i < PM_ARRAY_SIZE(groups); i++)
		if (!strcmp(sc->group, groups[i].name))
			t->v.aggr = groups[i].aggr;
	t->lv.so.aggr = t->v.aggr;
}

static int start_counting(struct top *t, struct top_args *a)
{
	uint64_t cols;
	const char *lang;
	int r = cli_live__machine(&t->lv, &a->live, &a->count);

	if (r)
		return r;
	if (arg_global.sim_virtual_clock && !(a->batch && a->screens)) {
		cli_error("the simulated machine's clock is virtual: add clock=real to --sim, or "
			  "--batch -n N for N screens at once");
		return EXIT_USAGE;
	}
	choose_screen(t, a);
	r = cli_live__events(&t->lv, &a->count);
	if (r == 0)
		r = cli_live__session(&t->lv);
	if (r)
		return r;
	t->v.simulated = pm_ctx__simulated(t->lv.ctx);
	t->v.platform = arg_global.sim_platform ? arg_global.sim_platform : "";
	t->v.interval_ms = a->live.interval_ms;
	t->v.cols = 80; /* --batch: $COLUMNS, as procps top -b reads it */
	if (getenv("COLUMNS") && pm_parse_u64_str(getenv("COLUMNS"), 10, &cols) == 0 &&
	    cols >= 20 && cols <= LINE_MAX_COLS / 4)
		t->v.cols = (int)cols;
	if (screen_info_new(t->lv.ctx, &t->ts.info) < 0) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	lang = setlocale(LC_CTYPE, "") ? nl_langinfo(CODESET) : "";
	t->v.unicode = lang && !strcmp(lang, "UTF-8");
	t->v.color = !getenv("NO_COLOR");
	cli_signals_ending(&t->ending);
	r = cli_live__open(&t->lv, &t->ending);
	if (r == 0)
		r = cli_live__enable(&t->lv);
	if (r == 0 && !a->batch &&
	    cli_sampler__start(&t->lv, t->v.interval_ms * NS_PER_MS, 0, &t->sp) < 0) {
		cli_error("cannot start the sampler thread");
		r = EXIT_FAIL;
	}
	return r;
}

/* A new grouping: the counters are put back and opened again with it. */
static int regroup(struct top *t)
{
	/* per CPU last: an uncore event's rows are then its domains (EPYC's L3 per CCX) */
	static const enum pm_aggr order[] = { PM_AGGR_DEVICE, PM_AGGR_CHANNEL, PM_AGGR_DIE,
					      PM_AGGR_SOCKET, PM_AGGR_CPU };
	size_t i = 0;
	int r;

	while (i < PM_ARRAY_SIZE(order) && order[i] != t->v.aggr)
		i++;
	t->v.aggr = order[(i + 1) % PM_ARRAY_SIZE(order)];
	cli_sampler__stop(t->sp);
	t->sp = NULL;
	cli_live__close(&t->lv, false);
	t->lv.so.aggr = t->v.aggr;
	r = cli_live__session(&t->lv);
	if (r == 0)
		r = cli_live__open(&t->lv, &t->ending);
	if (r == 0)
		r = cli_live__enable(&t->lv);
	if (r == 0)
		r = cli_sampler__start(&t->lv, t->v.interval_ms * NS_PER_MS, 0, &t->sp) < 0 ?
			    EXIT_FAIL :
			    0;
	t->shown_seq = 0;
	return r;
}

static int set_interval(struct top *t, unsigned long ms)
{
	if (ms < 100 || ms > 60000 || ms == t->v.interval_ms)
		return 0;
	cli_sampler__stop(t->sp);
	t->sp = NULL;
	t->v.interval_ms = ms;
	t->shown_seq = 0;
	return cli_sampler__start(&t->lv, ms * NS_PER_MS, 0, &t->sp) < 0 ? EXIT_FAIL : 0;
}

/* The latest sample into t->ls when it is new (or force): true if there is one. */
static bool refresh_lines(struct top *t, bool force)
{
	struct cli_sample smp;
	bool fresh;

	if (!cli_sampler__latest(t->sp, &smp)) {
		cli_sample__release(&smp);
		return false;
	}
	fresh = smp.seq != t->shown_seq;
	if (fresh || force) {
		t->v.cols = getmaxx(stdscr); /* a resized terminal: laid out again */
		build_screen(&t->ls, &t->ts, &t->v, pm_snapshot__report(smp.interval), smp.seq);
		t->shown_seq = smp.seq;
	}
	cli_sample__release(&smp);
	return fresh || force;
}

/*
 * --batch: this thread counts (no sampler), so every interval makes a screen,
 * one after the other, also on a simulated machine's virtual clock.
 */
static int run_batch(struct top *t)
{
	uint64_t seq = 0;

	while (!t->max_screens || t->screens < t->max_screens) {
		int r = cli_live__tick(&t->lv, t->v.interval_ms * NS_PER_MS);

		if (r < 0)
			return EXIT_FAIL;
		if (r == 0) {
			if (cli_signals_caught())
				break;
			continue;
		}
		build_screen(&t->ls, &t->ts, &t->v, pm_session__report(t->lv.s, true), ++seq);
		for (size_t i = 0; i < t->ls.n; i++)
			printf("%s\n", t->ls.line[i]);
		printf("\n");
		if (fflush(stdout) != 0)
			return EXIT_FAIL;
		t->screens++;
	}
	return 0;
}

/* A key: 1 to quit, 0 to go on, or an exit status > 1 (said). */
static int key(struct top *t, int ch)
{
	if (t->v.help) {
		t->v.help = false;
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return 1;
	case ' ':
	case 'p':
		t->v.paused = !t->v.paused;
		return 0;
	case '+':
		return set_interval(t, t->v.interval_ms * 2);
	case '-':
		return set_interval(t, t->v.interval_ms / 2);
	case 'g':
		return regroup(t);
	case 's':
		t->v.sorted = !t->v.sorted;
		return 0;
	case 'r':
		t->v.raw = !t->v.raw;
		return 0;
	case 'h':
	case '?':
		t->v.help = true;
		return 0;
	default:
		return 0;
	}
}

static int run_terminal(struct top *t)
{
	struct pollfd p[2] = { { .fd = cli_sampler__fd(t->sp), .events = POLLIN },
			       { .fd = STDIN_FILENO, .events = POLLIN } };
	int ret = 0;

	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	t->v.color = t->v.color && has_colors();
	if (t->v.color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_DOUBT, COLOR_YELLOW, -1);
		init_pair(PAIR_NONE, COLOR_RED, -1);
	}
	while (ret == 0 && !cli_sampler__done(t->sp) &&
	       (!t->max_screens || t->screens < t->max_screens)) {
		int ch;

		poll(p, 2, -1);
		cli_sampler__ack(t->sp);
		while (ret == 0 && (ch = getch()) != ERR)
			ret = ch == KEY_RESIZE ? 0 : key(t, ch);
		if (ret == 0 && !t->v.paused && refresh_lines(t, false))
			t->screens++;
		else
			refresh_lines(t, true);
		draw(&t->v, &t->ls);
		p[0].fd = cli_sampler__fd(t->sp);
	}
	endwin();
	return ret == 1 ? 0 : ret;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a = { 0 };
	struct top t = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	t.max_screens = a.screens;
	ret = start_counting(&t, &a);
	if (ret == 0)
		ret = a.batch ? run_batch(&t) : run_terminal(&t);
	cli_sampler__stop(t.sp);
	if (t.lv.s)
		pm_session__disable(t.lv.s);
	if (ret == 0 && (cli_live__say_lost(&t.lv) || t.lv.failed))
		ret = EXIT_FAIL;
	cli_live__free(&t.lv);
	free(t.ls.line);
	screen_free(&t.ts.s);
	screen_info_free(t.ts.info);
	free(t.ts.cells);
	free(t.ts.line);
	return ret;
}
