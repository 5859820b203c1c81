// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon report --plot: small multiples through gnuplot. A panel per unit
 * (per name within a unit, when one panel would hold too many lines to
 * read); up to MAX_LINES places in a panel, else the top ones by mean and
 * the machine's total; a colour each, the key beside the plot, a mark on
 * every value in doubt, a gap (never a 0) where a value was not counted,
 * and wall-clock time on the x axis.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "util.h"
#include "report.h"

#define MAX_LINES 8
#define PANEL_H 300

/* Okabe and Ito's colours that read on white, and two more; the total is black. */
static const char *const colours[MAX_LINES] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7",
						"#E69F00", "#56B4E9", "#8C564B", "#7F7F7F" };

struct panel {
	char title[512];
	size_t line[MAX_LINES + 1]; /* series indexes: places, then the total(s) */
	size_t same[MAX_LINES + 1]; /* how many other places each line stands for (equal) */
	size_t n;
	bool one_name; /* the lines differ by place only */
};

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

/* Series by their mean, highest first (not counted last). */
static const struct rep_data *sort_d;
static int by_mean(const void *a, const void *b)
{
	double x = sort_d->s[*(const size_t *)a].mean, y = sort_d->s[*(const size_t *)b].mean;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Do two series have the same values (and gaps) throughout? Their lines would hide each
 * other: one is drawn, its key naming how many it stands for. */
static bool equal(const struct rep_data *d, const struct rep_series *a, const struct rep_series *b)
{
	for (size_t i = 0; i < d->n; i++) {
		if (isnan(a->v[i]) != isnan(b->v[i]))
			return false;
		if (!isnan(a->v[i]) &&
		    !(fabs(a->v[i] - b->v[i]) <= 1e-9 * fmax(fabs(a->v[i]), fabs(b->v[i]))))
			return false;
	}
	return true;
}

/* The largest value of a series (NaN: none). */
static double top(const struct rep_data *d, const struct rep_series *s)
{
	double m = NAN;

	for (size_t i = 0; i < d->n; i++)
		if (!isnan(s->v[i]) && !(s->v[i] <= m))
			m = s->v[i];
	return m;
}

/*
 * The places of one name (or of every name of a unit) into a panel: equal ones once, the
 * highest on average when there are more than fit; and its totals, into the same panel, or
 * into *tot (ret: true) when they dwarf the places (a total of 16 channels is 16 times one).
 */
static bool fill(const struct rep_data *d, struct panel *p, struct panel *tot, const char *unit,
		 const char *name, size_t *idx)
{
	size_t places = 0, totals = 0, total_at[MAX_LINES], distinct = 0;
	size_t *same = calloc(d->n_s + 1, sizeof(*same));
	double top_places = NAN, top_total = NAN;
	bool apart;

	for (size_t i = 0; i < d->n_s; i++) {
		const struct rep_series *s = &d->s[i];

		if (strcmp(s->unit, unit) != 0 || (name && strcmp(s->name, name) != 0))
			continue;
		if (s->total && totals < MAX_LINES)
			total_at[totals++] = i;
		else if (!s->total)
			idx[places++] = i;
	}
	/* equal places: the first stands for the rest */
	for (size_t i = 0; i < places; i++) {
		size_t k = 0;

		while (k < distinct && !(same && !strcmp(d->s[idx[k]].name, d->s[idx[i]].name) &&
					 equal(d, &d->s[idx[k]], &d->s[idx[i]])))
			k++;
		if (k < distinct && same) {
			same[idx[k]]++;
			continue;
		}
		idx[distinct++] = idx[i];
	}
	p->n = 0;
	if (distinct > MAX_LINES) {
		sort_d = d;
		qsort(idx, distinct, sizeof(*idx), by_mean);
		snprintf(p->title + strlen(p->title), sizeof(p->title) - strlen(p->title),
			 ": the %d of %zu places highest on average", MAX_LINES - 1, places);
		distinct = MAX_LINES - 1;
	}
	/* a line for many equal places under the ones for a place alone, which it would hide */
	for (size_t i = 1; same && i < distinct; i++)
		for (size_t k = i; k > 0 && same[idx[k]] > same[idx[k - 1]]; k--) {
			size_t t = idx[k];

			idx[k] = idx[k - 1];
			idx[k - 1] = t;
		}
	for (size_t i = 0; i < distinct; i++) {
		p->same[p->n] = same ? same[idx[i]] : 0;
		p->line[p->n++] = idx[i];
		top_places = fmax(top_places, top(d, &d->s[idx[i]]));
	}
	for (size_t i = 0; i < totals; i++)
		top_total = fmax(top_total, top(d, &d->s[total_at[i]]));
	apart = totals && distinct && top_total > 2 * top_places;
	if (apart) {
		snprintf(tot->title, sizeof(tot->title), "%s in %s: the machine's total",
			 name ? name : d->s[total_at[0]].name, unit[0] ? unit : "-");
		tot->one_name = p->one_name;
		tot->n = 0;
		p = tot;
	}
	for (size_t i = 0; i < totals && p->n < MAX_LINES + 1; i++) {
		p->same[p->n] = 0;
		p->line[p->n++] = total_at[i];
	}
	free(same);
	return apart;
}

/* The panels: a unit each, or a name each where its unit has more than MAX_LINES lines;
 * and the totals that dwarf their places, in a panel of their own above them. */
static size_t panels_of(const struct rep_data *d, struct panel **ret)
{
	struct panel *p = calloc(2 * d->n_s + 2, sizeof(*p));
	size_t *idx = calloc(d->n_s + 1, sizeof(*idx)), n = 0;

	if (!p || !idx) {
		free(p);
		free(idx);
		return 0;
	}
	for (size_t i = 0; i < d->n_s; i++) {
		const char *unit = d->s[i].unit;
		size_t lines = 0, n_names = 0;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(d->s[j].unit, unit);
		if (seen)
			continue;
		for (size_t j = i; j < d->n_s; j++) {
			bool first = true;

			if (strcmp(d->s[j].unit, unit) != 0 || d->s[j].total)
				continue;
			lines++;
			for (size_t k = i; k < j && first; k++)
				first = strcmp(d->s[k].unit, unit) != 0 || d->s[k].total ||
					strcmp(d->s[k].name, d->s[j].name) != 0;
			n_names += first;
		}
		if (lines <= MAX_LINES || n_names <= 1) {
			struct panel tot;

			snprintf(p[n].title, sizeof(p[n].title), "%s%s%s",
				 n_names <= 1 ? d->s[i].name : unit, n_names <= 1 ? " in " : "",
				 n_names <= 1 ? (unit[0] ? unit : "-") : "");
			p[n].one_name = n_names <= 1;
			if (fill(d, &p[n], &tot, unit, NULL, idx)) {
				p[n + 1] = p[n];
				p[n++] = tot;
			}
			n++;
			continue;
		}
		for (size_t j = i; j < d->n_s; j++) {
			struct panel tot;
			bool first = true;

			if (strcmp(d->s[j].unit, unit) != 0)
				continue;
			for (size_t k = i; k < j && first; k++)
				first = strcmp(d->s[k].unit, unit) != 0 ||
					strcmp(d->s[k].name, d->s[j].name) != 0;
			if (!first)
				continue;
			snprintf(p[n].title, sizeof(p[n].title), "%s in %s", d->s[j].name, unit);
			p[n].one_name = true;
			if (fill(d, &p[n], &tot, unit, d->s[j].name, idx)) {
				p[n + 1] = p[n];
				p[n++] = tot;
			}
			n++;
		}
	}
	free(idx);
	*ret = p;
	return n;
}

/* An interval's x: its end as local (or UTC) wall time, or seconds into the run. */
static double x_of(const struct rep_data *d, size_t i, long offset)
{
	if (d->start_wall_ns <= 0)
		return (double)d->t_ns[i] / 1e9;
	return (double)(d->start_wall_ns + d->t_ns[i]) / 1e9 + (double)offset;
}

/* One series as gnuplot inline data: a blank line breaks the line where a value was not
 * counted; with only_doubtful, the values in doubt alone (drawn as marks). */
static void gp_data(FILE *gp, const struct rep_data *d, const struct rep_series *s, long offset,
		    bool only_doubtful)
{
	bool gap = false;

	for (size_t i = 0; i < d->n; i++) {
		if (isnan(s->v[i]) || (only_doubtful && !rep_doubtful(s->v[i], s->flags[i]))) {
			if (!gap)
				fputs("\n", gp);
			gap = true;
			continue;
		}
		gap = false;
		fprintf(gp, "%.3f %.9g\n", x_of(d, i, offset), s->v[i]);
	}
	fputs("e\n", gp);
}

static bool has_doubts(const struct rep_data *d, const struct rep_series *s)
{
	for (size_t i = 0; i < d->n; i++)
		if (rep_doubtful(s->v[i], s->flags[i]))
			return true;
	return false;
}

/* The x axis: wall time of the span shown, its zone and first date; or seconds. */
static void gp_xaxis(FILE *gp, const struct rep_data *d)
{
	int64_t span = d->t_ns[d->n - 1] - d->t_ns[0];
	char zone[32], day[40];

	if (d->start_wall_ns <= 0) {
		fputs("set xlabel 'seconds into the run'\n", gp);
		return;
	}
	cli_zone_text(d->start_wall_ns + d->t_ns[0], d->utc, zone, sizeof(zone));
	cli_wall_text(d->start_wall_ns + d->t_ns[0], d->utc, false, day, sizeof(day));
	day[10] = '\0';
	/* the axis spans the intervals shown, not to the next round tick */
	fputs("set xdata time\nset timefmt '%s'\nset autoscale xfix\n", gp);
	fprintf(gp, "set format x '%s'\n",
		span > 86400ll * 1000000000 ? "%m-%d %H:%M" :
		span > 3600ll * 1000000000  ? "%H:%M" :
					      "%H:%M:%S");
	/* ticks a whole number of seconds, minutes or hours apart: never two the same label */
	{
		static const double steps[] = { 1,     2,     5,     10,    15,	    30,	   60,
						120,   300,   600,   900,   1800,   3600,  7200,
						10800, 21600, 43200, 86400, 172800, 604800 };
		double want = (double)span / 1e9 / 8, step = steps[0];

		for (size_t i = 0; i < PM_ARRAY_SIZE(steps) && steps[i] < want; i++)
			step = i + 1 < PM_ARRAY_SIZE(steps) ? steps[i + 1] : steps[i];
		fprintf(gp, "set xtics %.0f\n", step);
	}
	fprintf(gp, "set xlabel '%s (%s), from %s'\n", d->utc ? "UTC" : "local time", zone, day);
}

static void gp_panel(FILE *gp, const struct rep_data *d, const struct panel *p, long offset)
{
	bool marked = false, nonneg = true;

	for (size_t i = 0; i < p->n; i++)
		nonneg &= !(d->s[p->line[i]].min < 0);
	fputs("set title ", gp);
	gp_quote(gp, p->title);
	fputs("\nset ylabel ", gp);
	gp_quote(gp, d->s[p->line[0]].unit[0] ? d->s[p->line[0]].unit : "-");
	/* room above the highest line: one at the top edge is hard to see */
	fprintf(gp, "\nset yrange [%s:*]\nset offsets 0, 0, graph 0.08, 0\nplot ",
		nonneg ? "0" : "*");
	for (size_t i = 0; i < p->n; i++) {
		const struct rep_series *s = &d->s[p->line[i]];
		char title[700];

		if (s->total)
			snprintf(title, sizeof(title), "%s%stotal", p->one_name ? "" : s->name,
				 p->one_name ? "" : " ");
		else if (p->same[i])
			snprintf(title, sizeof(title), "%s%s%s and %zu equal",
				 p->one_name ? "" : s->name, p->one_name ? "" : " ", s->place,
				 p->same[i]);
		else
			snprintf(title, sizeof(title), "%s%s%s", p->one_name ? "" : s->name,
				 p->one_name ? "" : " ", s->place);
		fprintf(gp, "%s'-' using 1:2 with lines lw %s lc rgb '%s' title ", i ? ", " : "",
			s->total ? "2.5" : "1.5", s->total ? "#000000" : colours[i % MAX_LINES]);
		gp_quote(gp, title);
	}
	/* the marks over the lines, in each line's colour, one key entry after the lines' */
	for (size_t i = 0; i < p->n; i++) {
		const struct rep_series *s = &d->s[p->line[i]];

		if (!has_doubts(d, s))
			continue;
		fprintf(gp, ", '-' using 1:2 with points pt 6 ps 0.8 lc rgb '%s' %s",
			s->total ? "#000000" : colours[i % MAX_LINES],
			marked ? "notitle" : "title 'value in doubt'");
		marked = true;
	}
	fputs("\n", gp);
	for (size_t i = 0; i < p->n; i++)
		gp_data(gp, d, &d->s[p->line[i]], offset, false);
	for (size_t i = 0; i < p->n; i++)
		if (has_doubts(d, &d->s[p->line[i]]))
			gp_data(gp, d, &d->s[p->line[i]], offset, true);
}

int rep_plot(const struct rep_data *d, const char *path)
{
	bool svg = strstr(path, ".svg") != NULL;
	struct panel *p = NULL;
	size_t n = panels_of(d, &p);
	long offset = d->start_wall_ns > 0 ? cli_zone_offset(d->start_wall_ns, d->utc) : 0;
	FILE *gp = n ? popen("gnuplot", "w") : NULL;
	int status = -1;

	if (n && !gp)
		cli_error("--plot needs gnuplot (Debian: gnuplot-nox): %s", strerror(errno));
	if (gp) {
		fprintf(gp, "set terminal %s noenhanced size 1000,%zu font 'sans,10'\nset output ",
			svg ? "svg" : "pngcairo", 40 + PANEL_H * n);
		gp_quote(gp, path);
		fprintf(gp,
			"\nset grid\nset key outside right top vertical Left reverse "
			"samplen 2 spacing 1.1 font ',9'\n"
			"set lmargin at screen 0.09\nset rmargin at screen 0.74\n"
			"set multiplot layout %zu,1\n",
			n);
		gp_xaxis(gp, d);
		for (size_t i = 0; i < n; i++)
			gp_panel(gp, d, &p[i], offset);
		fputs("unset multiplot\n", gp);
		status = pclose(gp);
	}
	free(p);
	if (!n)
		cli_error("nothing to plot into '%s'", path);
	else if (gp && status != 0)
		cli_error("gnuplot failed drawing '%s' (is gnuplot-nox installed?)", path);
	return status == 0 ? 0 : -EIO;
}
