// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last minutes of samples, in memory, for the live page: the sampler's
 * hook keeps a reference to each interval's snapshot in a ring (the oldest
 * dropped), and /api/v1/range renders the last N seconds of it as JSON
 * (docs/serve.md). The lock covers only the ring's pointers.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "serve.h"

struct ring {
	pthread_mutex_t lock;
	struct pm_snapshot **snap;
	size_t cap, head, n;
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
static void put_series(struct sbuf *b, struct pm_snapshot **s, size_t k, size_t i)
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

int ring_render(struct ring *r, double seconds, const struct expo_meta *m, struct sbuf *b)
{
	size_t want = (size_t)ceil(seconds / (m->interval_s > 0 ? m->interval_s : 1)), k;
	struct pm_snapshot **s;

	pthread_mutex_lock(&r->lock);
	k = want < r->n ? want : r->n;
	s = calloc(k + 1, sizeof(*s));
	for (size_t i = 0; s && i < k; i++)
		s[i] = pm_snapshot__ref(r->snap[(r->head + r->n - k + i) % r->cap]);
	pthread_mutex_unlock(&r->lock);
	if (!s)
		return -ENOMEM;
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
		put_series(b, s, k, i);
	}
	sbuf_puts(b, "]}\n");
	for (size_t j = 0; j < k; j++)
		pm_snapshot__unref(s[j]);
	free(s);
	return b->err;
}
