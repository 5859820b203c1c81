// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last minutes of samples, in memory, for the live page: the sampler's
 * hook keeps a reference to each interval's snapshot in a ring (the oldest
 * dropped), and /api/v1/range renders the last N seconds of it as JSON
 * (docs/serve.md): every row's series, and the screen top shows of them
 * (cli/screen.c: kinds, places told apart, values in the units shown,
 * totals per die, socket and machine). The lock covers only the ring's
 * pointers (a sample is never held up by a render); names_lock the packs'
 * names the screen is made with.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-text.h"
#include "screen.h"
#include "serve.h"

struct ring {
	pthread_mutex_t lock, names_lock;
	struct pm_snapshot **snap;
	size_t cap, head, n;
	struct screen_info *info; /* the counting's packs' names for their metrics */
};

int ring_new(size_t cap, struct ring **ret)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r || !(r->snap = calloc(cap, sizeof(*r->snap)))) {
		free(r);
		return -ENOMEM;
	}
	r->cap = cap;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->names_lock, NULL);
	*ret = r;
	return 0;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		pm_snapshot__unref(r->snap[(r->head + i) % r->cap]);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->names_lock);
	screen_info_free(r->info);
	free(r->snap);
	free(r);
}

void ring_clear(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n; i++)
		pm_snapshot__unref(r->snap[(r->head + i) % r->cap]);
	r->n = 0;
	r->head = 0;
	pthread_mutex_unlock(&r->lock);
}

int ring_set_names(struct ring *r, struct pm_ctx *ctx)
{
	struct screen_info *in = NULL, *old;
	int ret = screen_info_new(ctx, &in);

	pthread_mutex_lock(&r->names_lock);
	old = r->info;
	r->info = in; /* NULL when out of memory: the metrics keep their own names */
	pthread_mutex_unlock(&r->names_lock);
	screen_info_free(old);
	return ret;
}

void ring_push(struct ring *r, struct pm_snapshot *snap)
{
	struct pm_snapshot *old = NULL;

	pthread_mutex_lock(&r->lock);
	if (r->n == r->cap) {
		old = r->snap[r->head];
		r->head = (r->head + 1) % r->cap;
		r->n--;
	}
	r->snap[(r->head + r->n) % r->cap] = pm_snapshot__ref(snap);
	r->n++;
	pthread_mutex_unlock(&r->lock);
	pm_snapshot__unref(old);
}

/* JSON string: quotes, backslashes and control characters escaped. */
static void put_json_str(struct sbuf *b, const char *s)
{
	sbuf_put(b, "\"", 1);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sbuf_printf(b, "\\%c", c);
		else if (c < 0x20)
			sbuf_printf(b, "\\u%04x", c);
		else
			sbuf_put(b, s, 1);
	}
	sbuf_put(b, "\"", 1);
}

static void put_num(struct sbuf *b, double v)
{
	if (!isfinite(v))
		sbuf_puts(b, "null"); /* not counted: a gap, never 0 */
	else
		sbuf_printf(b, "%.15g", v);
}

/* One series (row i of the newest snapshot) over the k snapshots s. */
static void put_series(struct sbuf *b, struct pm_snapshot **s, size_t k, size_t i,
		       const char *label)
{
	const struct pm_report *last = pm_snapshot__report(s[k - 1]);
	const struct pm_row *r = &last->rows[i];
	char place[256];

	cli_row_where(r, place, sizeof(place));
	sbuf_puts(b, "{\"name\":");
	put_json_str(b, r->event);
	sbuf_puts(b, ",\"place\":");
	put_json_str(b, place);
	sbuf_puts(b, ",\"unit\":");
	put_json_str(b, r->unit ? r->unit : "");
	sbuf_printf(b, ",\"socket\":%d,\"die\":%d,\"channel\":%d,\"subchannel\":%d", r->socket,
		    r->die, r->channel, r->subchannel);
	sbuf_puts(b, ",\"label\":");
	put_json_str(b, label ? label : place);
	sbuf_printf(b, ",\"metric\":%s,\"values\":[", r->flags & PM_ROW_METRIC ? "true" : "false");
	for (size_t j = 0; j < k; j++) {
		const struct pm_report *rep = pm_snapshot__report(s[j]);

		sbuf_puts(b, j ? "," : "");
		put_num(b, rep->n_rows == last->n_rows ? rep->rows[i].value : NAN);
	}
	sbuf_puts(b, "],\"flags\":[");
	for (size_t j = 0; j < k; j++) {
		const struct pm_report *rep = pm_snapshot__report(s[j]);

		sbuf_printf(b, "%s%u", j ? "," : "",
			    rep->n_rows == last->n_rows ? rep->rows[i].flags : PM_ROW_NOT_COUNTED);
	}
	sbuf_puts(b, "]}");
}

static const char *const measure_names[] = {
	[SCREEN_RATE] = "rate",		  [SCREEN_AMOUNT] = "amount", [SCREEN_RATIO] = "ratio",
	[SCREEN_FREQUENCY] = "frequency", [SCREEN_LEVEL] = "level",   [SCREEN_OTHER] = "other",
};
static const char *const level_names
	[] = { [SCREEN_DIE] = "die", [SCREEN_SOCKET] = "socket", [SCREEN_MACHINE] = "machine" };

/* A snapshot's report if its rows are the newest's (a reload clears the ring), else NULL. */
static const struct pm_report *same_rows(struct pm_snapshot *s, const struct pm_report *last)
{
	const struct pm_report *rep = pm_snapshot__report(s);

	return rep->n_rows == last->n_rows ? rep : NULL;
}

/* A ratio row's numerators and denominators over the k snapshots (null: no parts). */
static void put_parts(struct sbuf *b, struct pm_snapshot **s, size_t k,
		      const struct pm_report *last, size_t row)
{
	for (int part = 0; part < 2; part++) {
		sbuf_puts(b, part ? "],\"den\":[" : "],\"num\":[");
		for (size_t j = 0; j < k; j++) {
			const struct pm_report *rep = same_rows(s[j], last);
			const struct pm_row *r = rep ? &rep->rows[row] : NULL;

			sbuf_puts(b, j ? "," : "");
			put_num(b, r && (r->flags & PM_ROW_RATIO) ? (part ? r->den : r->num) : NAN);
		}
	}
}

/* A row's 95 % interval (docs/bounds.md), for its marks: ,"bound":"measured","bound_pct":1.2
 * (the interval's wider side in % of the value; null where there is none). */
static void put_bound(struct sbuf *b, const struct pm_row *r)
{
	double pct = fmax(r->hi - r->value, r->value - r->lo) / fabs(r->value) * 100;

	sbuf_puts(b, ",\"bound\":");
	put_json_str(b, pm_row_bound_name(r->bound) ? pm_row_bound_name(r->bound) : "");
	sbuf_puts(b, ",\"bound_pct\":");
	put_num(b, r->bound == PM_BOUND_MEASURED ? pct : NAN);
}

/* The screen's kinds over the k snapshots: each item's and total's values as shown. */
static void put_kinds(struct sbuf *b, struct pm_snapshot **s, size_t k, const struct screen *scr)
{
	const struct pm_report *last = pm_snapshot__report(s[k - 1]);

	sbuf_puts(b, ",\"kinds\":[");
	for (size_t i = 0; i < scr->n_kinds; i++) {
		const struct screen_kind *kd = &scr->kind[i];

		sbuf_puts(b, i ? ",{\"name\":" : "{\"name\":");
		put_json_str(b, kd->name);
		sbuf_puts(b, ",\"what\":");
		put_json_str(b, kd->what);
		sbuf_puts(b, ",\"unit\":");
		put_json_str(b, kd->unit);
		sbuf_puts(b, ",\"from\":");
		put_json_str(b, kd->from);
		sbuf_printf(b, ",\"measure\":\"%s\",\"metric\":%s,\"no_total\":",
			    measure_names[kd->measure], kd->metric ? "true" : "false");
		put_json_str(b, kd->no_total);
		sbuf_puts(b, ",\"items\":[");
		for (size_t it = kd->item0; it < kd->item0 + kd->n_items; it++) {
			sbuf_printf(b, "%s{\"series\":%zu,\"label\":", it > kd->item0 ? "," : "",
				    scr->item[it].row);
			put_json_str(b, scr->item[it].label);
			sbuf_printf(b, ",\"socket\":%d,\"values\":[", scr->item[it].socket);
			for (size_t j = 0; j < k; j++) {
				const struct pm_report *rep = same_rows(s[j], last);

				sbuf_puts(b, j ? "," : "");
				put_num(b, rep ? screen_value(scr, rep, it) : NAN);
			}
			if (kd->measure == SCREEN_RATIO) /* a ratio's parts, for its totals */
				put_parts(b, s, k, last, scr->item[it].row);
			/* the newest's share of the time counted and its interval, for its marks */
			sbuf_puts(b, "],\"running\":");
			put_num(b, last->rows[scr->item[it].row].running);
			put_bound(b, &last->rows[scr->item[it].row]);
			sbuf_puts(b, "}");
		}
		sbuf_puts(b, "],\"totals\":[");
		for (size_t t = kd->total0; t < kd->total0 + kd->n_totals; t++) {
			struct pm_row q = { 0 };

			sbuf_printf(b, "%s{\"label\":", t > kd->total0 ? "," : "");
			put_json_str(b, scr->total[t].label);
			sbuf_printf(b, ",\"level\":\"%s\",\"socket\":%d,\"values\":[",
				    level_names[scr->total[t].level], scr->total[t].socket);
			for (size_t j = 0; j < k; j++) {
				const struct pm_report *rep = same_rows(s[j], last);

				if (rep)
					screen_total_value(scr, rep, t, &q);
				sbuf_puts(b, j ? "," : "");
				put_num(b, rep ? q.value : NAN);
			}
			sbuf_puts(b, "],\"flags\":[");
			for (size_t j = 0; j < k; j++) {
				const struct pm_report *rep = same_rows(s[j], last);

				if (rep)
					screen_total_value(scr, rep, t, &q);
				sbuf_printf(b, "%s%u", j ? "," : "",
					    rep ? q.flags : PM_ROW_NOT_COUNTED);
			}
			/* the newest's quality, as the marks under a chart say it */
			screen_total_value(scr, last, t, &q);
			sbuf_printf(b, "],\"covered\":%u,\"instances\":%u,\"running\":", q.covered,
				    q.instances);
			put_num(b, q.running);
			put_bound(b, &q);
			sbuf_puts(b, "}");
		}
		sbuf_puts(b, "]}");
	}
	sbuf_puts(b, "]");
}

int ring_render(struct ring *r, double seconds, const struct expo_meta *m, struct sbuf *b)
{
	size_t want = (size_t)ceil(seconds / (m->interval_s > 0 ? m->interval_s : 1)), k;
	struct screen scr = { 0 }, all = { 0 };
	struct pm_snapshot **s;
	const char **label = NULL;
	int err = 0;

	pthread_mutex_lock(&r->lock);
	k = want < r->n ? want : r->n;
	s = calloc(k + 1, sizeof(*s));
	for (size_t i = 0; s && i < k; i++)
		s[i] = pm_snapshot__ref(r->snap[(r->head + r->n - k + i) % r->cap]);
	pthread_mutex_unlock(&r->lock);
	if (s && k) { /* the page shows the metrics where there are any, else the events */
		const struct pm_report *last = pm_snapshot__report(s[k - 1]);
		bool metrics = false;

		for (size_t i = 0; i < last->n_rows; i++)
			metrics |= !!(last->rows[i].flags & PM_ROW_METRIC);
		pthread_mutex_lock(&r->names_lock);
		err = screen_build(&scr, last, r->info, metrics ? SCREEN_METRICS : SCREEN_EVENTS);
		/* every series' label, as a screen of all of them says it */
		if (err == 0)
			err = screen_build(&all, last, r->info, SCREEN_ALL);
		pthread_mutex_unlock(&r->names_lock);
		if (err == 0 && !(label = calloc(last->n_rows + 1, sizeof(*label))))
			err = -ENOMEM;
		for (size_t i = 0; err == 0 && i < all.n_items; i++)
			label[all.item[i].row] = all.item[i].label;
	}
	if (!s || err < 0) {
		for (size_t j = 0; s && j < k; j++)
			pm_snapshot__unref(s[j]);
		free(s);
		free(label);
		screen_free(&scr);
		screen_free(&all);
		return -ENOMEM;
	}
	sbuf_printf(b, "{\"interval_s\":%.15g,\"simulated\":%s,\"platform\":", m->interval_s,
		    m->simulated ? "true" : "false");
	put_json_str(b, m->platform);
	sbuf_puts(b, ",\"flag_names\":{");
	for (unsigned bit = 1, first = 1; bit; bit <<= 1) /* every flag that has a name */
		if (pm_row_flag_name(bit)) {
			sbuf_printf(b, "%s\"%u\":", first ? "" : ",", bit);
			put_json_str(b, pm_row_flag_name(bit));
			first = 0;
		}
	sbuf_puts(b, "},\"t\":[");
	for (size_t j = 0; j < k; j++)
		sbuf_printf(b, "%s%.3f", j ? "," : "",
			    (double)pm_snapshot__report(s[j])->wall_ns / 1e9);
	sbuf_puts(b, "],\"series\":[");
	for (size_t i = 0; k && i < pm_snapshot__report(s[k - 1])->n_rows; i++) {
		sbuf_puts(b, i ? "," : "");
		put_series(b, s, k, i, label[i]);
	}
	sbuf_puts(b, "]");
	if (k)
		put_kinds(b, s, k, &scr);
	else
		sbuf_puts(b, ",\"kinds\":[]");
	sbuf_puts(b, "}\n");
	for (size_t j = 0; j < k; j++)
		pm_snapshot__unref(s[j]);
	free(s);
	free(label);
	screen_free(&scr);
	screen_free(&all);
	return b->err;
}
