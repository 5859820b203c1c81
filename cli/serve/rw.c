// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve --remote-write: every sample pushed with Prometheus remote write
 * 1.0 (prometheus.io/docs/specs/remote_write_spec): a WriteRequest
 * (remote.proto, packed by libprotobuf-c), compressed with snappy's block
 * format (libsnappy), POSTed by libcurl with the specification's headers.
 *
 * Threads. The sampler's hook (rw_hook) only takes references to the
 * sample and its counters (struct expo_counts, added up by the sampler's
 * hook for /metrics) into a small inbox and never waits. A feeder thread
 * walks each sample's exposition (rw_walk: expo_walk with a sink that hands
 * series over, the same families, labels and values /metrics shows, this
 * file's own families among them) and appends the series to each target's
 * queue, bounded in samples: when it is full the oldest samples go,
 * counted.
 * One sender thread per target takes batches from the head of its queue
 * and sends them, one request at a time: each sample once, in order per
 * series. 5xx, 429 and a failed connection are retried with a doubling
 * backoff (min_backoff to max_backoff); any other 4xx is never retried and
 * its samples are counted failed. A series that is gone from one sample to
 * the next gets the specification's stale marker, and so does every series
 * when serve stops.
 *
 * libcurl and libsnappy are loaded when the first target starts (dlopen),
 * as libmicrohttpd is (mhd.c): no other command pays for them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <snappy-c.h>

#include "config.h" /* PMUMON_VERSION, PMUMON_CURL_SONAME, PMUMON_SNAPPY_SONAME */
#include "remote.pb-c.h"
#include "rw.h"
#include "cli-global.h"
#include "cli-sampler.h"
#include "cli-values.h"
#include "util.h"

#define INBOX 16	       /* samples the feeder may be behind */
#define FLUSH_NS 5000000000ull /* at the end: how long the senders may still send */
#define NOTE_EVERY_S 60	       /* a failing target is said at most once a minute */
#define STALE_NAN 0x7ff0000000000002ull

/* ---- the libraries, loaded ------------------------------------------------------- */

static struct {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(snappy_compress) *snappy_compress;
	__typeof__(snappy_max_compressed_length) *snappy_max_compressed_length;
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_err[256];

static void lib_load(void)
{
	static const struct {
		const char *name;
		size_t off;
		int which;
	} fns[] = {
#define F(field, name, w) { name, offsetof(__typeof__(lib), field), w }
		F(global_init, "curl_global_init", 0),
		F(easy_init, "curl_easy_init", 0),
		F(easy_setopt, "curl_easy_setopt", 0),
		F(easy_perform, "curl_easy_perform", 0),
		F(easy_getinfo, "curl_easy_getinfo", 0),
		F(easy_cleanup, "curl_easy_cleanup", 0),
		F(easy_strerror, "curl_easy_strerror", 0),
		F(slist_append, "curl_slist_append", 0),
		F(slist_free_all, "curl_slist_free_all", 0),
		F(snappy_compress, "snappy_compress", 1),
		F(snappy_max_compressed_length, "snappy_max_compressed_length", 1),
#undef F
	};
	static const char *const sonames[] = { PMUMON_CURL_SONAME, PMUMON_SNAPPY_SONAME };
	static const char *const packages[] = { "libcurl3-gnutls", "libsnappy1v5" };
	void *h[2];

	for (int i = 0; i < 2; i++) {
		h[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!h[i]) {
			snprintf(lib_err, sizeof(lib_err),
				 "remote write needs %s (Debian: apt install %s): %s", sonames[i],
				 packages[i], dlerror());
			return;
		}
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *f = dlsym(h[fns[i].which], fns[i].name);

		if (!f) {
			snprintf(lib_err, sizeof(lib_err),
				 "%s has no %s: not the library pmumon was built with",
				 sonames[fns[i].which], fns[i].name);
			memset(&lib, 0, sizeof(lib));
			return;
		}
		memcpy((char *)&lib + fns[i].off, &f, sizeof(f));
	}
	if (lib.global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
		snprintf(lib_err, sizeof(lib_err), "libcurl would not start (curl_global_init)");
		memset(&lib, 0, sizeof(lib));
	}
}

/* ---- series and queues ----------------------------------------------------------- */

/* A series, interned: its sorted labels (__name__ among them), shared by the queues. */
struct rw_series {
	struct rw_series *next; /* the table's chain */
	uint64_t hash;
	atomic_uint refs; /* the table's (while it is in the latest sample) and each queued sample */
	uint64_t seen;	  /* the feeder's: the last frame it was in */
	size_t n_labels;
	Prometheus__Label *labels; /* names and values point into key */
	size_t key_len;
	char key[]; /* name\0value\0name\0value\0... */
};

struct entry {
	struct rw_series *s;
	double v;
	int64_t ts_ms;
};

static void series_unref(struct rw_series *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
		free(s->labels);
		free(s);
	}
}

struct target {
	struct rw *rw;
	struct rw_target cfg; /* its own copy (strings owned) */
	struct rw_counts *counts;
	char *password, *credentials; /* from their files, when given there */
	char label_url[512];	      /* the url without credentials */
	pthread_t thread;
	pthread_mutex_t lock; /* the queue, stop */
	pthread_cond_t more;
	struct entry *q;
	size_t cap, head, n, max;
	bool stop;
	uint64_t stop_by_ns;
	bool failing;
	time_t noted;
};

/* A sample handed over, with its counters. */
struct inbox {
	struct cli_sample smp;
	struct expo_counts *counts;
};

struct rw {
	struct server *sv;
	pthread_mutex_t lock; /* targets, counts, inbox */
	pthread_cond_t inbox_more, inbox_done;
	struct inbox inbox[INBOX];
	size_t in_head, in_n;
	bool busy; /* the feeder is on a sample it took */
	bool stop;
	pthread_t feeder;
	struct target **t;
	size_t n_t;
	struct rw_counts **counts; /* per url, for the process's life (never moved) */
	size_t n_counts;
	char instance[300];
	/* the feeder's */
	struct rw_series **table;
	size_t table_cap, table_n;
	struct rw_series **frame, **prev; /* the series of the last sample, the one before */
	size_t n_frame, n_prev, cap_frame, cap_prev;
	double *values;
	size_t cap_values;
	uint64_t gen;
	long last_frame_n;
	int64_t last_ts_ms; /* the last sample's (INT64_MIN: none yet) */
	bool clock_back;    /* the clock went back: said once, until it passes last_ts_ms */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The url as a label: without user:password@. */
static void url_label(const char *url, char *buf, size_t size)
{
	const char *host = strstr(url, "://"), *at, *slash;

	host = host ? host + 3 : url;
	slash = strchr(host, '/');
	at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	if (at)
		snprintf(buf, size, "%.*s%s", (int)(host - url), url, at + 1);
	else
		snprintf(buf, size, "%s", url);
}

/* Samples into t's queue (the feeder's, under t->lock): the oldest dropped past max. */
static void push(struct target *t, struct rw_series *s, double v, int64_t ts_ms)
{
	if (t->n == t->max) {
		series_unref(t->q[t->head].s);
		t->head = (t->head + 1) % t->cap;
		t->n--;
		atomic_fetch_add(&t->counts->dropped, 1);
	}
	if (t->n == t->cap) { /* grows up to max */
		size_t ncap = t->cap ? PM_MIN(t->cap * 2, t->max) : PM_MIN((size_t)1024, t->max);
		struct entry *q = malloc(ncap * sizeof(*q));

		if (!q) {
			atomic_fetch_add(&t->counts->dropped, 1);
			return;
		}
		for (size_t i = 0; i < t->n; i++)
			q[i] = t->q[(t->head + i) % t->cap];
		free(t->q);
		t->q = q;
		t->cap = ncap;
		t->head = 0;
	}
	atomic_fetch_add(&s->refs, 1);
	t->q[(t->head + t->n) % t->cap] = (struct entry){ s, v, ts_ms };
	t->n++;
}

/* ---- the feeder: samples to series ----------------------------------------------- */

struct walk {
	struct rw *rw;
	struct sbuf key;
	int r;
};

static int by_name(const void *a, const void *b)
{
	const struct rw_label *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int grow(void **arr, size_t *cap, size_t need, size_t elsz)
{
	return pm_grow(arr, cap, need, elsz) < 0 ? -ENOMEM : 0;
}

/* The interned series of these labels (a new one the first time): NULL when out of memory. */
static struct rw_series *intern(struct rw *rw, const char *key, size_t len, size_t n_labels)
{
	uint64_t h = fnv(key, len);
	size_t b;
	struct rw_series *s;
	const char *p;

	if (rw->table_n * 2 >= rw->table_cap) { /* rehash */
		size_t ncap = rw->table_cap ? rw->table_cap * 2 : 1024;
		struct rw_series **nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < rw->table_cap; i++)
			while (rw->table[i]) {
				struct rw_series *x = rw->table[i];

				rw->table[i] = x->next;
				x->next = nt[x->hash % ncap];
				nt[x->hash % ncap] = x;
			}
		free(rw->table);
		rw->table = nt;
		rw->table_cap = ncap;
	}
	b = h % rw->table_cap;
	for (s = rw->table[b]; s; s = s->next)
		if (s->hash == h && s->key_len == len && !memcmp(s->key, key, len))
			return s;
	s = malloc(sizeof(*s) + len);
	if (!s)
		return NULL;
	s->labels = calloc(n_labels, sizeof(*s->labels));
	if (!s->labels) {
		free(s);
		return NULL;
	}
	memcpy(s->key, key, len);
	s->key_len = len;
	s->hash = h;
	s->n_labels = n_labels;
	s->seen = 0;
	atomic_init(&s->refs, 1); /* the table's */
	p = s->key;
	for (size_t i = 0; i < n_labels; i++) {
		prometheus__label__init(&s->labels[i]);
		s->labels[i].name = (char *)p;
		p += strlen(p) + 1;
		s->labels[i].value = (char *)p;
		p += strlen(p) + 1;
	}
	s->next = rw->table[b];
	rw->table[b] = s;
	rw->table_n++;
	return s;
}

/* A series the latest sample no longer has: out of the table (its queued samples keep it). */
static void forget(struct rw *rw, struct rw_series *s)
{
	struct rw_series **pp = &rw->table[s->hash % rw->table_cap];

	while (*pp && *pp != s)
		pp = &(*pp)->next;
	if (*pp) {
		*pp = s->next;
		rw->table_n--;
		series_unref(s);
	}
}

/* rw_walk's: one series into the frame. */
static int on_series(void *arg, const char *name, const struct rw_label *labels, size_t n,
		     double value)
{
	struct walk *w = arg;
	struct rw *rw = w->rw;
	struct rw_label all[RW_MAX_LABELS + 2];
	struct rw_series *s;
	size_t k = 0;

	all[k++] = (struct rw_label){ "__name__", name };
	for (size_t i = 0; i < n && k < PM_ARRAY_SIZE(all); i++)
		if (labels[i].value[0]) /* remote write sends no empty value: absent is the same */
			all[k++] = labels[i];
	qsort(all, k, sizeof(all[0]), by_name);
	w->key.len = 0;
	for (size_t i = 0; i < k; i++) {
		sbuf_put(&w->key, all[i].name, strlen(all[i].name) + 1);
		sbuf_put(&w->key, all[i].value, strlen(all[i].value) + 1);
	}
	if (w->key.err ||
	    grow((void **)&rw->frame, &rw->cap_frame, rw->n_frame + 1, sizeof(*rw->frame)) < 0 ||
	    grow((void **)&rw->values, &rw->cap_values, rw->n_frame + 1, sizeof(*rw->values)) < 0)
		return -ENOMEM;
	s = intern(rw, w->key.data, w->key.len, k);
	if (!s)
		return -ENOMEM;
	if (s->seen == rw->gen)
		return 0; /* the same series twice in one exposition: the first is kept */
	s->seen = rw->gen;
	rw->frame[rw->n_frame] = s;
	rw->values[rw->n_frame++] = value;
	return 0;
}

/* The frame's samples, and stale markers for the series the sample before had and this one
 * has not, into every target's queue. */
static void enqueue(struct rw *rw, int64_t ts_ms, bool stale_all)
{
	double stale;
	uint64_t bits = STALE_NAN;

	memcpy(&stale, &bits, sizeof(stale));
	pthread_mutex_lock(&rw->lock);
	for (size_t i = 0; i < rw->n_t; i++) {
		struct target *t = rw->t[i];

		pthread_mutex_lock(&t->lock);
		for (size_t j = 0; j < rw->n_frame && !stale_all; j++)
			push(t, rw->frame[j], rw->values[j], ts_ms);
		for (size_t j = 0; j < rw->n_prev; j++)
			if (stale_all || rw->prev[j]->seen != rw->gen)
				push(t, rw->prev[j], stale, ts_ms);
		pthread_cond_signal(&t->more);
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&rw->lock);
}

/* One sample turned into series and queued (the feeder's). */
/* The frame just walked becomes prev (what the next sample's series are matched against,
 * and what goes stale when they are gone); prev's array is reused as the next frame. */
static void frame_to_prev(struct rw *rw)
{
	struct rw_series **f = rw->prev;
	size_t c = rw->cap_prev;

	rw->prev = rw->frame;
	rw->n_prev = rw->n_frame;
	rw->cap_prev = rw->cap_frame;
	rw->frame = f;
	rw->cap_frame = c;
	rw->n_frame = 0;
}

static void feed(struct rw *rw, const struct cli_sample *smp, const struct expo_counts *counts)
{
	struct server *sv = rw->sv;
	struct walk w = { .rw = rw };
	struct expo_health h;
	struct expo_meta m;
	char platform[sizeof(sv->platform)];
	const struct pm_report *iv = pm_snapshot__report(smp->interval);
	struct expo_sample es = { .interval = iv,
				  .counts = counts,
				  .meta = &m,
				  .health = &h,
				  .more = rw_families,
				  .more_arg = rw };
	int64_t ts_ms;
	bool dated = rw_sample_ms(iv->wall_ns, rw->last_ts_ms, (int64_t)(sv->interval_ns / 1000000),
				  &ts_ms);

	/* what the HTTP threads read too: the counting's description, the health (the
	 * counting does not change while a sample of it is in the inbox: rw_counting) */
	pthread_mutex_lock(&sv->lock);
	server_health(sv, smp, &h);
	m = sv->meta;
	snprintf(platform, sizeof(platform), "%s", sv->platform);
	pthread_mutex_unlock(&sv->lock);
	m.platform = platform;
	m.names = NULL; /* the plan's (counts->plan), not the walk's */
	m.n_names = 0;
	frame_to_prev(rw);
	rw->gen++;
	if (!dated) {
		w.r = -ERANGE;
		if (!rw->clock_back)
			cli_error("remote write: the machine's clock went back %.3f s; samples are "
				  "dropped (counted) until it passes the last one sent",
				  (double)(rw->last_ts_ms - (int64_t)(iv->wall_ns / 1000000)) /
					  1e3);
		rw->clock_back = true;
	} else {
		rw->clock_back = false;
		w.r = counts ? (int)PM_MIN(0, rw_walk(&es, on_series, &w)) : -ENOMEM;
	}
	sbuf_free(&w.key);
	if (w.r < 0) {
		/* the sample is lost, counted as the last one's series in every queue; the
		 * last one stays the last (its series are not stale) */
		struct rw_series **f = rw->frame;
		size_t c = rw->cap_frame;

		pthread_mutex_lock(&rw->lock);
		for (size_t i = 0; i < rw->n_t; i++)
			atomic_fetch_add(&rw->t[i]->counts->dropped, (uint64_t)rw->n_prev);
		pthread_mutex_unlock(&rw->lock);
		rw->frame = rw->prev;
		rw->cap_frame = rw->cap_prev;
		rw->n_frame = rw->n_prev;
		rw->prev = f;
		rw->cap_prev = c;
		rw->n_prev = 0;
		for (size_t j = 0; j < rw->n_frame; j++)
			rw->frame[j]->seen = rw->gen;
		return;
	}
	rw->last_frame_n = (long)rw->n_frame;
	rw->last_ts_ms = ts_ms;
	enqueue(rw, ts_ms, false);
	for (size_t j = 0; j < rw->n_prev; j++)
		if (rw->prev[j]->seen != rw->gen)
			forget(rw, rw->prev[j]);
}

static void *feeder(void *arg)
{
	struct rw *rw = arg;

	pthread_mutex_lock(&rw->lock);
	for (;;) {
		struct inbox in;

		while (!rw->in_n && !rw->stop)
			pthread_cond_wait(&rw->inbox_more, &rw->lock);
		if (!rw->in_n)
			break;
		in = rw->inbox[rw->in_head];
		rw->in_head = (rw->in_head + 1) % INBOX;
		rw->in_n--;
		rw->busy = true;
		pthread_mutex_unlock(&rw->lock);
		feed(rw, &in.smp, in.counts);
		cli_sample__release(&in.smp);
		expo_counts_unref(in.counts);
		pthread_mutex_lock(&rw->lock);
		rw->busy = false;
		if (!rw->in_n)
			pthread_cond_broadcast(&rw->inbox_done);
	}
	pthread_mutex_unlock(&rw->lock);
	return NULL;
}

void rw_hook(struct rw *rw, const struct cli_sample *smp, struct expo_counts *counts)
{
	struct inbox keep = { *smp, NULL };

	pthread_mutex_lock(&rw->lock);
	if (!rw->n_t) {
		pthread_mutex_unlock(&rw->lock);
		return;
	}
	if (rw->in_n == INBOX) { /* the feeder is that far behind: this sample goes */
		for (size_t i = 0; i < rw->n_t; i++)
			atomic_fetch_add(&rw->t[i]->counts->dropped, (uint64_t)rw->last_frame_n);
	} else {
		pm_snapshot__ref(keep.smp.interval);
		pm_snapshot__ref(keep.smp.total);
		keep.counts = expo_counts_ref(counts);
		rw->inbox[(rw->in_head + rw->in_n) % INBOX] = keep;
		rw->in_n++;
		pthread_cond_signal(&rw->inbox_more);
	}
	pthread_mutex_unlock(&rw->lock);
}

void rw_counting(struct rw *rw)
{
	if (!rw)
		return;
	pthread_mutex_lock(&rw->lock);
	while (rw->in_n || rw->busy)
		pthread_cond_wait(&rw->inbox_done, &rw->lock);
	pthread_mutex_unlock(&rw->lock);
}

/* ---- the senders ----------------------------------------------------------------- */

static int by_series(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->s != y->s)
		return (uintptr_t)x->s < (uintptr_t)y->s ? -1 : 1;
	return x->ts_ms < y->ts_ms ? -1 : x->ts_ms > y->ts_ms; /* a series' samples in order */
}

/* A batch as a WriteRequest, packed and compressed into out: 0 or -ENOMEM. */
static int encode(const struct target *t, struct entry *b, size_t n, struct sbuf *out)
{
	Prometheus__WriteRequest req = PROMETHEUS__WRITE_REQUEST__INIT;
	Prometheus__TimeSeries *ts = NULL, **tsp = NULL;
	Prometheus__Sample *sm = NULL, **smp = NULL;
	Prometheus__Label *ext = NULL, **lp = NULL;
	size_t n_ts = 0, n_lp = 0, packed, zlen;
	uint8_t *buf = NULL;
	int r = -ENOMEM;

	qsort(b, n, sizeof(*b), by_series);
	for (size_t i = 0; i < n; i++)
		if (!i || b[i].s != b[i - 1].s) {
			n_ts++;
			n_lp += b[i].s->n_labels + t->cfg.n_labels;
		}
	ts = calloc(n_ts + 1, sizeof(*ts));
	tsp = calloc(n_ts + 1, sizeof(*tsp));
	sm = calloc(n + 1, sizeof(*sm));
	smp = calloc(n + 1, sizeof(*smp));
	lp = calloc(n_lp + 1, sizeof(*lp));
	ext = calloc(t->cfg.n_labels + 1, sizeof(*ext));
	if (!ts || !tsp || !sm || !smp || !lp || !ext)
		goto out;
	for (size_t i = 0; i < t->cfg.n_labels; i++) {
		prometheus__label__init(&ext[i]);
		ext[i].name = t->cfg.labels[i].name;
		ext[i].value = t->cfg.labels[i].value;
	}
	n_ts = 0;
	n_lp = 0;
	for (size_t i = 0; i < n; i++) {
		Prometheus__TimeSeries *x;

		if (!i || b[i].s != b[i - 1].s) {
			const struct rw_series *s = b[i].s;
			size_t a = 0, e = 0;

			x = &ts[n_ts];
			prometheus__time_series__init(x);
			tsp[n_ts++] = x;
			x->labels = &lp[n_lp];
			/* the series' labels and the target's external ones, merged in name
			 * order; a series' own label of a name wins */
			while (a < s->n_labels || e < t->cfg.n_labels) {
				int c = a == s->n_labels ? 1 :
					e == t->cfg.n_labels ?
							   -1 :
							   strcmp(s->labels[a].name, ext[e].name);

				if (c <= 0)
					lp[n_lp++] = &s->labels[a++];
				else
					lp[n_lp++] = &ext[e];
				if (c >= 0)
					e++;
			}
			x->n_labels = (size_t)(&lp[n_lp] - x->labels);
			x->samples = &smp[i];
		}
		x = tsp[n_ts - 1];
		prometheus__sample__init(&sm[i]);
		sm[i].value = b[i].v;
		sm[i].timestamp = b[i].ts_ms;
		smp[i] = &sm[i];
		x->n_samples++;
	}
	req.n_timeseries = n_ts;
	req.timeseries = tsp;
	packed = prometheus__write_request__get_packed_size(&req);
	buf = malloc(packed + 1);
	if (!buf)
		goto out;
	prometheus__write_request__pack(&req, buf);
	zlen = lib.snappy_max_compressed_length(packed);
	out->len = 0;
	sbuf_put(out, "", 0);
	if (!out->err && out->cap < zlen) {
		char *p = realloc(out->data, zlen);

		if (!p)
			goto out;
		out->data = p;
		out->cap = zlen;
	}
	if (out->err ||
	    lib.snappy_compress((const char *)buf, packed, out->data, &zlen) != SNAPPY_OK)
		goto out;
	out->len = zlen;
	r = 0;
out:
	free(buf);
	free(ts);
	free(tsp);
	free(sm);
	free(smp);
	free(lp);
	free(ext);
	return r;
}

struct answer {
	char body[512];
	size_t len;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t k = PM_MIN(size * n, sizeof(a->body) - 1 - a->len);

	memcpy(a->body + a->len, data, k);
	a->len += k;
	a->body[a->len] = '\0';
	return size * n;
}

/* curl's progress callback: a request in flight ends once serve stops and the flush time
 * is over. */
static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct target *t = arg;
	bool end;

	pthread_mutex_lock(&t->lock);
	end = t->stop && now_ns() >= t->stop_by_ns;
	pthread_mutex_unlock(&t->lock);
	return end;
}

static CURL *easy_for(struct target *t, struct curl_slist **ret_headers)
{
	CURL *c = lib.easy_init();
	struct curl_slist *h = NULL;
	char line[1024];

	if (!c)
		return NULL;
	h = lib.slist_append(h, "Content-Encoding: snappy");
	h = lib.slist_append(h, "Content-Type: application/x-protobuf");
	h = lib.slist_append(h, "User-Agent: pmumon/" PMUMON_VERSION);
	h = lib.slist_append(h, "X-Prometheus-Remote-Write-Version: 0.1.0");
	h = lib.slist_append(h, "Expect:"); /* no 100-continue round trip */
	if (t->credentials) {
		snprintf(line, sizeof(line), "Authorization: %s %s",
			 t->cfg.auth_type ? t->cfg.auth_type : "Bearer", t->credentials);
		h = lib.slist_append(h, line);
	}
	lib.easy_setopt(c, CURLOPT_URL, t->cfg.url);
	lib.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	lib.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	lib.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	lib.easy_setopt(c, CURLOPT_XFERINFODATA, t);
	lib.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	lib.easy_setopt(c, CURLOPT_HTTPHEADER, h);
	lib.easy_setopt(c, CURLOPT_POST, 1L);
	lib.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(t->cfg.timeout_s * 1000));
	lib.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(PM_MIN(t->cfg.timeout_s, 10) * 1000));
	if (t->cfg.username) {
		lib.easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		lib.easy_setopt(c, CURLOPT_USERNAME, t->cfg.username);
		lib.easy_setopt(c, CURLOPT_PASSWORD, t->password);
	}
	if (t->cfg.ca_file)
		lib.easy_setopt(c, CURLOPT_CAINFO, t->cfg.ca_file);
	if (t->cfg.cert_file) {
		lib.easy_setopt(c, CURLOPT_SSLCERT, t->cfg.cert_file);
		lib.easy_setopt(c, CURLOPT_SSLKEY, t->cfg.key_file);
	}
	if (t->cfg.insecure_skip_verify) {
		lib.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		lib.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	{
		/* TLS 1.2 and up unless told (Prometheus's default) */
		static const long lo[] = { CURL_SSLVERSION_TLSv1_0, CURL_SSLVERSION_TLSv1_1,
					   CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_3 };
		static const long hi[] = { CURL_SSLVERSION_MAX_TLSv1_0, CURL_SSLVERSION_MAX_TLSv1_1,
					   CURL_SSLVERSION_MAX_TLSv1_2,
					   CURL_SSLVERSION_MAX_TLSv1_3 };
		int a = t->cfg.min_version ? t->cfg.min_version : 12;
		int b = t->cfg.max_version ? t->cfg.max_version : 13;

		lib.easy_setopt(c, CURLOPT_SSLVERSION, lo[a - 10] | hi[b - 10]);
	}
	*ret_headers = h;
	return c;
}

/* What to do after a request. */
enum outcome { SENT, RETRY, GIVE_UP };

static enum outcome post(struct target *t, CURL *c, const struct sbuf *body, char *why, size_t size)
{
	struct answer a = { .len = 0 };
	long status = 0;
	CURLcode r;

	lib.easy_setopt(c, CURLOPT_POSTFIELDS, body->data);
	lib.easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body->len);
	lib.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	lib.easy_setopt(c, CURLOPT_WRITEDATA, &a);
	a.body[0] = '\0';
	r = lib.easy_perform(c);
	if (r != CURLE_OK) {
		snprintf(why, size, "%s", lib.easy_strerror(r));
		return RETRY; /* the connection or TLS: the receiver may be back later */
	}
	lib.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	while (a.len && (a.body[a.len - 1] == '\n' || a.body[a.len - 1] == '\r'))
		a.body[--a.len] = '\0';
	snprintf(why, size, "HTTP %ld%s%s", status, a.len ? ": " : "", a.body);
	if (status >= 200 && status < 300)
		return SENT;
	if (status >= 500 || (status == 429 && t->cfg.retry_429))
		return RETRY;
	return GIVE_UP; /* the specification: never another 4xx (nor a 1xx or 3xx) */
}

/* A failure said at most once a minute per target, with the count since. */
static void note(struct target *t, const char *what, const char *why, size_t n)
{
	time_t now = time(NULL);

	if (t->noted && now - t->noted < NOTE_EVERY_S)
		return;
	t->noted = now;
	cli_error("remote write to %s: %s; %zu samples %s (said at most once a minute)",
		  t->label_url, why, n, what);
}

/* Waits until the deadline or a stop; true when stopped past the flush deadline. */
static bool backoff(struct target *t, double s)
{
	struct timespec until;
	bool gone;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)s;
	until.tv_nsec += (long)((s - floor(s)) * 1e9);
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&t->lock);
	while (!t->stop && pthread_cond_timedwait(&t->more, &t->lock, &until) != ETIMEDOUT)
		; /* woken by a new sample: the backoff goes on */
	gone = t->stop && now_ns() >= t->stop_by_ns;
	pthread_mutex_unlock(&t->lock);
	return gone;
}

static void *sender(void *arg)
{
	struct target *t = arg;
	struct curl_slist *headers = NULL;
	CURL *c = easy_for(t, &headers);
	struct entry *batch = malloc(t->cfg.max_per_send * sizeof(*batch));
	struct sbuf body = { 0 };
	double wait = t->cfg.min_backoff_s;
	char why[640];

	for (;;) {
		size_t n = 0;
		bool gone = false;
		enum outcome o = RETRY;

		pthread_mutex_lock(&t->lock);
		while (!t->n && !t->stop)
			pthread_cond_wait(&t->more, &t->lock);
		if (!t->n || (t->stop && now_ns() >= t->stop_by_ns) || !c || !batch) {
			pthread_mutex_unlock(&t->lock);
			break;
		}
		for (; n < t->cfg.max_per_send && t->n; n++, t->n--) {
			batch[n] = t->q[t->head];
			t->head = (t->head + 1) % t->cap;
		}
		pthread_mutex_unlock(&t->lock);
		if (encode(t, batch, n, &body) < 0) {
			snprintf(why, sizeof(why), "out of memory");
			o = GIVE_UP;
		}
		while (o == RETRY && !gone) {
			o = post(t, c, &body, why, sizeof(why));
			if (o == RETRY) {
				atomic_fetch_add(&t->counts->retried, n);
				if (!t->failing)
					t->noted = 0; /* a new outage is said at once */
				t->failing = true;
				note(t, "retried", why, n);
				gone = backoff(t, wait);
				wait = PM_MIN(wait * 2, t->cfg.max_backoff_s);
			}
		}
		if (o == SENT) {
			atomic_fetch_add(&t->counts->sent, n);
			if (t->failing)
				cli_info("remote write to %s: sending again", t->label_url);
			t->failing = false;
			wait = t->cfg.min_backoff_s;
		} else if (o == GIVE_UP) {
			atomic_fetch_add(&t->counts->failed, n);
			t->noted = 0;
			note(t, "refused: not sent again", why, n);
		} else {
			atomic_fetch_add(&t->counts->dropped, n); /* stopping, still failing */
		}
		for (size_t i = 0; i < n; i++)
			series_unref(batch[i].s);
	}
	/* what is left when serve stops (or cannot send at all) */
	pthread_mutex_lock(&t->lock);
	atomic_fetch_add(&t->counts->dropped, t->n);
	for (; t->n; t->n--, t->head = (t->head + 1) % t->cap)
		series_unref(t->q[t->head].s);
	pthread_mutex_unlock(&t->lock);
	sbuf_free(&body);
	free(batch);
	if (c)
		lib.easy_cleanup(c);
	lib.slist_free_all(headers);
	return NULL;
}

/* ---- targets --------------------------------------------------------------------- */

/* A secret from its file, as Prometheus reads one (spaces around it trimmed). */
static int read_secret(const char *what, const char *path, char **ret)
{
	char *text = NULL;
	size_t len, a = 0;
	int r = cli_read_file(path, 1u << 16, &text, &len);

	if (r < 0) {
		cli_error("cannot read the remote write %s '%s': %s", what, path, strerror(-r));
		return -EINVAL;
	}
	while (len && strchr(" \t\r\n", text[len - 1]))
		len--;
	while (a < len && strchr(" \t\r\n", text[a]))
		a++;
	memmove(text, text + a, len - a);
	text[len - a] = '\0';
	*ret = text;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int copy_target(const struct rw_target *from, struct rw_target *to)
{
	*to = *from;
	to->url = dup_or_null(from->url);
	to->username = dup_or_null(from->username);
	to->password = dup_or_null(from->password);
	to->password_file = dup_or_null(from->password_file);
	to->auth_type = dup_or_null(from->auth_type);
	to->credentials = dup_or_null(from->credentials);
	to->credentials_file = dup_or_null(from->credentials_file);
	to->ca_file = dup_or_null(from->ca_file);
	to->cert_file = dup_or_null(from->cert_file);
	to->key_file = dup_or_null(from->key_file);
	to->labels = calloc(from->n_labels + 1, sizeof(*to->labels));
	if (!to->labels)
		return -ENOMEM;
	for (size_t i = 0; i < from->n_labels; i++) {
		to->labels[i].name = strdup(from->labels[i].name);
		to->labels[i].value = strdup(from->labels[i].value);
		if (!to->labels[i].name || !to->labels[i].value)
			return -ENOMEM;
	}
	return 0;
}

static void target_stop(struct target *t, uint64_t flush_ns)
{
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	t->stop_by_ns = now_ns() + flush_ns;
	pthread_cond_signal(&t->more);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	free(t->q);
	free(t->password);
	free(t->credentials);
	pthread_cond_destroy(&t->more);
	pthread_mutex_destroy(&t->lock);
	rw_target_free(&t->cfg);
	free(t);
}

/* The counts of url, made the first time: counters never restart while serve runs. Under
 * rw->lock; NULL when out of memory. */
static struct rw_counts *counts_of(struct rw *rw, const char *label_url)
{
	struct rw_counts *c;
	void *grown;

	for (size_t i = 0; i < rw->n_counts; i++)
		if (!strcmp(rw->counts[i]->url, label_url))
			return rw->counts[i];
	grown = realloc(rw->counts, (rw->n_counts + 1) * sizeof(*rw->counts));
	if (!grown)
		return NULL;
	rw->counts = grown;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	snprintf(c->url, sizeof(c->url), "%s", label_url);
	rw->counts[rw->n_counts++] = c;
	return c;
}

/* The external labels a target adds: its own, then job and instance where not given. */
static int default_labels(struct rw *rw, struct rw_target *c)
{
	static const char *const names[] = { "instance", "job" };
	const char *values[] = { rw->instance, "pmumon" };

	for (size_t k = 0; k < 2; k++) {
		bool has = false;
		void *grown;

		for (size_t i = 0; i < c->n_labels; i++)
			has |= !strcmp(c->labels[i].name, names[k]);
		if (has)
			continue;
		grown = realloc(c->labels, (c->n_labels + 1) * sizeof(*c->labels));
		if (!grown)
			return -ENOMEM;
		c->labels = grown;
		c->labels[c->n_labels].name = strdup(names[k]);
		c->labels[c->n_labels].value = strdup(values[k]);
		if (!c->labels[c->n_labels].name || !c->labels[c->n_labels].value)
			return -ENOMEM;
		c->n_labels++;
	}
	/* sorted by name, for the merge in encode */
	for (size_t i = 1; i < c->n_labels; i++)
		for (size_t j = i; j > 0 && strcmp(c->labels[j - 1].name, c->labels[j].name) > 0;
		     j--) {
			__typeof__(*c->labels) x = c->labels[j];

			c->labels[j] = c->labels[j - 1];
			c->labels[j - 1] = x;
		}
	return 0;
}

static int target_start(struct rw *rw, const struct rw_target *cfg, unsigned long queue,
			struct target **ret)
{
	struct target *t = calloc(1, sizeof(*t));
	int r;

	if (!t || copy_target(cfg, &t->cfg) < 0 || default_labels(rw, &t->cfg) < 0) {
		cli_error("out of memory");
		free(t);
		return -ENOMEM;
	}
	t->rw = rw;
	t->max = cfg->capacity ? cfg->capacity : queue;
	url_label(cfg->url, t->label_url, sizeof(t->label_url));
	if ((cfg->password_file &&
	     read_secret("password_file", cfg->password_file, &t->password) < 0) ||
	    (cfg->credentials_file &&
	     read_secret("credentials_file", cfg->credentials_file, &t->credentials) < 0)) {
		free(t->password);
		free(t);
		return -EINVAL;
	}
	if (!t->password && cfg->password)
		t->password = strdup(cfg->password);
	if (!t->credentials && cfg->credentials)
		t->credentials = strdup(cfg->credentials);
	pthread_mutex_lock(&rw->lock);
	t->counts = counts_of(rw, t->label_url);
	pthread_mutex_unlock(&rw->lock);
	if (!t->counts) {
		cli_error("out of memory");
		rw_target_free(&t->cfg);
		free(t->password);
		free(t->credentials);
		free(t);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->more, NULL);
	r = -pthread_create(&t->thread, NULL, sender, t);
	if (r < 0) {
		cli_error("cannot start the remote write thread: %s", strerror(-r));
		free(t);
		return r;
	}
	cli_info("remote write to %s: %zu samples of queue", t->label_url, t->max);
	*ret = t;
	return 0;
}

int rw_new(struct server *sv, const char *instance, struct rw **ret)
{
	struct rw *rw = calloc(1, sizeof(*rw));
	int r;

	if (!rw)
		return -ENOMEM;
	rw->sv = sv;
	rw->last_ts_ms = INT64_MIN;
	snprintf(rw->instance, sizeof(rw->instance), "%s", instance);
	pthread_mutex_init(&rw->lock, NULL);
	pthread_cond_init(&rw->inbox_more, NULL);
	pthread_cond_init(&rw->inbox_done, NULL);
	r = -pthread_create(&rw->feeder, NULL, feeder, rw);
	if (r < 0) {
		free(rw);
		return r;
	}
	*ret = rw;
	return 0;
}

int rw_configure(struct rw *rw, const struct rwcfg *cfg, unsigned long queue)
{
	struct target **next = calloc(cfg->n + 1, sizeof(*next)), **old;
	size_t n_old;
	int r = 0;

	if (!next)
		return -ENOMEM;
	if (cfg->n) {
		pthread_once(&lib_once, lib_load);
		if (!lib.easy_init) {
			cli_error("%s", lib_err);
			free(next);
			return -ENOENT;
		}
	}
	pthread_mutex_lock(&rw->lock);
	old = rw->t;
	n_old = rw->n_t;
	pthread_mutex_unlock(&rw->lock);
	/* kept: a target whose settings are the same, with its queue */
	for (size_t i = 0; i < cfg->n; i++)
		for (size_t j = 0; j < n_old; j++) {
			struct rw_target want;

			if (!old[j] || next[i])
				continue;
			if (copy_target(&cfg->t[i], &want) == 0 && default_labels(rw, &want) == 0 &&
			    rw_target_same(&want, &old[j]->cfg) &&
			    (cfg->t[i].capacity ? cfg->t[i].capacity : queue) == old[j]->max) {
				next[i] = old[j];
				old[j] = NULL;
			}
			rw_target_free(&want);
		}
	for (size_t i = 0; i < cfg->n && r == 0; i++)
		if (!next[i])
			r = target_start(rw, &cfg->t[i], queue, &next[i]);
	if (r < 0) {
		for (size_t i = 0; i < cfg->n; i++)
			for (size_t j = 0; j < n_old && next[i]; j++)
				if (!old[j] && next[i] == rw->t[j]) {
					old[j] = next[i]; /* kept: give it back */
					next[i] = NULL;
				}
		for (size_t i = 0; i < cfg->n; i++)
			if (next[i])
				target_stop(next[i], 0);
		free(next);
		return r;
	}
	pthread_mutex_lock(&rw->lock);
	rw->t = next;
	rw->n_t = cfg->n;
	pthread_mutex_unlock(&rw->lock);
	for (size_t j = 0; j < n_old; j++)
		if (old[j]) {
			cli_info("remote write to %s: stopped (no longer configured)",
				 old[j]->label_url);
			target_stop(old[j], 0);
		}
	free(old);
	return 0;
}

void rw_free(struct rw *rw)
{
	if (!rw)
		return;
	rw_counting(rw); /* what the sampler handed over is queued */
	/* every series the last sample had is stale from now on (the specification) */
	if (rw->n_frame) {
		frame_to_prev(rw);
		/* dated an interval after the last sample, on the machine's clock (a simulated
		 * machine's own) */
		enqueue(rw, rw->last_ts_ms + (int64_t)(rw->sv->interval_ns / 1000000), true);
	}
	pthread_mutex_lock(&rw->lock);
	rw->stop = true;
	pthread_cond_signal(&rw->inbox_more);
	pthread_mutex_unlock(&rw->lock);
	pthread_join(rw->feeder, NULL);
	for (size_t i = 0; i < rw->n_t; i++)
		target_stop(rw->t[i], FLUSH_NS);
	free(rw->t);
	for (size_t i = 0; i < rw->table_cap; i++)
		while (rw->table[i]) {
			struct rw_series *s = rw->table[i];

			rw->table[i] = s->next;
			series_unref(s);
		}
	free(rw->table);
	free(rw->frame);
	free(rw->prev);
	free(rw->values);
	for (size_t i = 0; i < rw->n_counts; i++)
		free(rw->counts[i]);
	free(rw->counts);
	pthread_cond_destroy(&rw->inbox_more);
	pthread_cond_destroy(&rw->inbox_done);
	pthread_mutex_destroy(&rw->lock);
	free(rw);
}

/* ---- its series ------------------------------------------------------------------ */

long rw_families(void *arg, const struct expo_sink *k)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} fams[] = {
		{ "pmumon_remote_write_sent_samples_total",
		  "Samples remote write sent, answered with 2xx",
		  offsetof(struct rw_counts, sent) },
		{ "pmumon_remote_write_failed_samples_total",
		  "Samples remote write gave up on: a 4xx answer other than 429 (never sent again)",
		  offsetof(struct rw_counts, failed) },
		{ "pmumon_remote_write_retried_samples_total",
		  "Samples sent again after a 5xx, a 429 or a failed connection (each time)",
		  offsetof(struct rw_counts, retried) },
		{ "pmumon_remote_write_dropped_samples_total",
		  "Samples remote write dropped unsent: the queue was full, or serve stopped",
		  offsetof(struct rw_counts, dropped) },
	};
	struct rw *rw = arg;
	long n = 0;

	if (!rw)
		return 0;
	pthread_mutex_lock(&rw->lock);
	if (!rw->n_counts) {
		pthread_mutex_unlock(&rw->lock);
		return 0;
	}
	for (size_t f = 0; f < PM_ARRAY_SIZE(fams); f++) {
		k->family(k->ud, fams[f].name, "counter", NULL, fams[f].help);
		for (size_t i = 0; i < rw->n_counts; i++, n++)
			k->series(k->ud, fams[f].name, "", "url", rw->counts[i]->url,
				  (double)atomic_load(
					  (atomic_ullong *)((char *)rw->counts[i] + fams[f].off)));
	}
	k->family(k->ud, "pmumon_remote_write_queue_samples", "gauge", NULL,
		  "Samples waiting in a remote write target's queue (the batch being sent "
		  "not included)");
	for (size_t i = 0; i < rw->n_t; i++, n++) {
		struct target *t = rw->t[i];
		size_t q;

		pthread_mutex_lock(&t->lock);
		q = t->n;
		pthread_mutex_unlock(&t->lock);
		k->series(k->ud, "pmumon_remote_write_queue_samples", "", "url", t->label_url,
			  (double)q);
	}
	k->family(k->ud, "pmumon_remote_write_queue_capacity_samples", "gauge", NULL,
		  "The samples a remote write target's queue holds at most (--remote-write.queue)");
	for (size_t i = 0; i < rw->n_t; i++, n++)
		k->series(k->ud, "pmumon_remote_write_queue_capacity_samples", "", "url",
			  rw->t[i]->label_url, (double)rw->t[i]->max);
	pthread_mutex_unlock(&rw->lock);
	return n;
}
