// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon report --html: one self-contained page. The run (its command,
 * machine, start, end and length), a chart per event or metric over wall
 * time, a line per place and the machine's total, marks on values in
 * doubt, and the statistics table. uPlot, its style sheet and the page's
 * script are the ones built into pmumon for serve's live page
 * (web-assets.c): inlined, so the page loads nothing from anywhere.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-global.h"
#include "util.h"
#include "config.h"
#include "report.h"
#include "serve.h"

static const struct web_asset *asset(const char *path)
{
	for (const struct web_asset *a = web_assets; a->path; a++)
		if (!strcmp(a->path, path))
			return a;
	return NULL;
}

/* Text in HTML. */
static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* A JSON string that is safe inside <script>: < > & as \u escapes too. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void js_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

/* The data the page's script draws, as JSON. */
static void data_json(FILE *f, const struct rep_data *d)
{
	long offset = d->start_wall_ns > 0 ? cli_zone_offset(d->start_wall_ns, d->utc) : 0;
	char zone[32] = "";

	if (d->start_wall_ns > 0)
		cli_zone_text(d->start_wall_ns + d->t_ns[0], d->utc, zone, sizeof(zone));
	fputs("{\"file\":", f);
	js_str(f, d->file);
	fputs(",\"zone\":", f);
	js_str(f, zone);
	fprintf(f, ",\"wall\":%s,\"offset_s\":%ld,\"t\":[", d->start_wall_ns > 0 ? "true" : "false",
		offset);
	/* x: the interval's end, in seconds, shifted to the zone shown (the page draws it as
	 * UTC, so every viewer sees the recording's times) */
	for (size_t i = 0; i < d->n; i++)
		fprintf(f, "%s%.3f", i ? "," : "",
			d->start_wall_ns > 0 ?
				(double)(d->start_wall_ns + d->t_ns[i]) / 1e9 + (double)offset :
				(double)d->t_ns[i] / 1e9);
	fputs("],\"series\":[", f);
	for (size_t i = 0; i < d->n_s; i++) {
		const struct rep_series *s = &d->s[i];
		char q[256];
		bool first = true;

		rep_quality_text(s->worst, q, sizeof(q));
		fprintf(f, "%s{\"name\":", i ? "," : "");
		js_str(f, s->name);
		fputs(",\"unit\":", f);
		js_str(f, s->unit);
		fputs(",\"place\":", f);
		js_str(f, s->total ? "total" : s->place);
		fprintf(f, ",\"total\":%s,\"quality\":", s->total ? "true" : "false");
		js_str(f, q);
		fputs(",\"values\":[", f);
		for (size_t k = 0; k < d->n; k++) {
			if (k)
				fputc(',', f);
			js_num(f, s->v[k]);
		}
		fputs("],\"doubt\":[", f);
		for (size_t k = 0; k < d->n; k++)
			if (rep_doubtful(s->v[k], s->flags[k])) {
				fprintf(f, "%s%zu", first ? "" : ",", k);
				first = false;
			}
		fputs("]}", f);
	}
	fputs("]}", f);
}

static void stats_row(FILE *f, const struct rep_series *s, bool above_given)
{
	const double v[] = { s->min, s->mean, s->p50, s->p95, s->max };
	char q[256], b[96];

	rep_quality_text(s->worst, q, sizeof(q));
	fputs("<tr><td>", f);
	html_text(f, s->name);
	fputs("</td><td>", f);
	html_text(f, s->place);
	fputs("</td>", f);
	for (size_t i = 0; i < PM_ARRAY_SIZE(v); i++) {
		if (isnan(v[i]))
			fputs("<td class=\"num\">-</td>", f);
		else
			fprintf(f, "<td class=\"num\">%.6g</td>", v[i]);
	}
	fputs("<td>", f);
	html_text(f, s->unit);
	fputs("</td>", f);
	if (above_given && isnan(s->above_s))
		fputs("<td class=\"num\">-</td>", f);
	else if (above_given)
		fprintf(f, "<td class=\"num\">%.3f</td>", s->above_s);
	fputs(q[0] ? "<td class=\"doubt\">" : "<td>", f);
	html_text(f, q[0] ? q : "-");
	rep_bound_text(s, b, sizeof(b));
	fputs("</td><td>", f);
	html_text(f, b[0] ? b : "exact");
	fputs("</td></tr>\n", f);
}

static void header(FILE *f, const struct rep_data *d)
{
	char from[40], to[40], zone[32];
	int64_t first = d->start_wall_ns + d->t_ns[0] - d->dur_ns[0];
	int64_t last = d->start_wall_ns + d->t_ns[d->n - 1];

	fputs("<header><h1>pmumon report</h1>", f);
	if (d->simulated) {
		fputs("<span class=\"sim\">SIMULATED: ", f);
		html_text(f, d->sim_platform[0] ? d->sim_platform : "?");
		fputs("</span>", f);
	}
	fputs("</header>\n<table class=\"run\"><tr><th>recording</th><td>", f);
	html_text(f, d->file);
	if (d->run)
		fprintf(f, ", run %lld", d->run);
	fputs("</td></tr>\n<tr><th>command</th><td><code>", f);
	html_text(f, d->command);
	fputs("</code></td></tr>\n<tr><th>machine</th><td>", f);
	html_text(f, d->platform[0] ? d->platform : "?");
	if (d->cpuid[0]) {
		fputs(", CPU ", f);
		html_text(f, d->cpuid);
	}
	fputs("</td></tr>\n<tr><th>time</th><td>", f);
	if (d->start_wall_ns > 0) {
		cli_wall_text(first, d->utc, true, from, sizeof(from));
		cli_wall_text(last, d->utc, true, to, sizeof(to));
		cli_zone_text(first, d->utc, zone, sizeof(zone));
		fprintf(f, "%s to %s %s: %.3f s, %zu intervals", from, to, zone,
			(double)(last - first) / 1e9, d->n);
	} else {
		fprintf(f, "%.3f to %.3f s into the run (no wall clock), %zu intervals",
			(double)(first) / 1e9, (double)last / 1e9, d->n);
	}
	fputs("</td></tr>\n<tr><th>rows</th><td>", f);
	html_text(f, d->rows);
	fputs("; events as rates per second; the machine's total in black</td></tr>\n", f);
	if (d->lost[0]) {
		fputs("<tr><th>devices lost</th><td class=\"doubt\">", f);
		html_text(f, d->lost);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int rep_html(const struct rep_data *d, const char *path, bool above_given)
{
	const struct web_asset *js = asset("/assets/uPlot.iife.min.js");
	const struct web_asset *css = asset("/assets/uPlot.min.css");
	const struct web_asset *page = asset("/assets/report.js");
	FILE *f;
	int r = 0;

	if (!js || !css || !page) {
		cli_error("this pmumon was built without its page's files (web-assets.c)");
		return -ENOENT;
	}
	f = fopen(path, "w");
	if (!f) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		return -errno;
	}
	fputs("<!DOCTYPE html>\n<!-- pmumon report " PMUMON_VERSION
	      ": self-contained, uPlot (MIT) inlined -->\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>pmumon report: ",
	      f);
	html_text(f, d->file);
	fputs("</title>\n<style>\n", f);
	fwrite(css->data, 1, css->len, f);
	fputs("\n</style>\n<style>\n"
	      "body { font-family: sans-serif; margin: 1em 2em; color: #222; }\n"
	      "header { display: flex; gap: 2em; align-items: baseline; }\n"
	      "h1 { margin: 0; font-size: 1.4em; }\n"
	      ".sim { background: #b00; color: #fff; padding: 0.1em 0.5em; font-weight: bold; }\n"
	      "table.run th { text-align: left; padding-right: 1em; font-weight: normal; "
	      "color: #666; }\n"
	      ".chart { margin: 1.5em 0; }\n.chart h2 { font-size: 1.05em; margin: 0 0 0.3em 0; }\n"
	      ".quality, .doubt { color: #a60; }\n.quality { font-size: 0.85em; }\n"
	      "table.stats { border-collapse: collapse; font-size: 0.9em; }\n"
	      "table.stats th, table.stats td { padding: 0.2em 0.6em; border-bottom: 1px solid "
	      "#ddd; }\n"
	      "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	      "</style>\n</head>\n<body>\n",
	      f);
	header(f, d);
	fputs("<p>A chart per event or metric, a line per place; a gap is a value that was not "
	      "counted, a ring a value in doubt (extrapolated, partial, of a device lost...).</p>\n"
	      "<div id=\"charts\"></div>\n<h2>Statistics</h2>\n<table class=\"stats\"><tr>"
	      "<th>name</th><th>place</th><th>min</th><th>mean</th><th>p50</th><th>p95</th>"
	      "<th>max</th><th>unit</th>",
	      f);
	if (above_given)
		fputs("<th>above (s)</th>", f);
	fputs("<th>quality</th><th>95 % interval</th></tr>\n", f);
	for (size_t i = 0; i < d->n_s; i++)
		if (!d->s[i].total)
			stats_row(f, &d->s[i], above_given);
	fputs("</table>\n<script id=\"report-data\" type=\"application/json\">", f);
	data_json(f, d);
	fputs("</script>\n<script>\n", f);
	fwrite(js->data, 1, js->len, f);
	fputs("\n</script>\n<script>\n", f);
	fwrite(page->data, 1, page->len, f);
	fputs("\n</script>\n</body>\n</html>\n", f);
	if (fflush(f) != 0 || ferror(f))
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r < 0)
		cli_error("writing '%s' failed (is the disk full?)", path);
	return r;
}
