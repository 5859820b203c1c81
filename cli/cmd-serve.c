// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon serve: a Prometheus exporter. A sampler thread counts on its own
 * clock (cli/sampler.c) and publishes immutable snapshots; libmicrohttpd's
 * threads answer scrapes from the latest one and never touch the counters,
 * so a slow client never delays a sample and a sample never waits for a
 * client. The exposition of a sample is rendered once per format and kept
 * until the next sample. SIGTERM or Ctrl-C end it with every counter put
 * back, as stat does.
 */
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "cli.h"
#include "config.h"
#include "serve/serve.h"
#include "store/store.h"

#define NS_PER_MS 1000000ull
#define SERVE_PORT 9811 /* docs/serve.md: why this one */
#define SERVE_MAX_SERIES 20000

struct serve_args {
	struct cli_count count;
	struct cli_live_args live;
	const char *listen;
	unsigned long max_series;
	const char *store;	/* --store FILE.db */
	const char *web_config; /* --web.config.file FILE */
};

/* One format's exposition of the latest sample, and its gzip, rendered on first demand. */
struct rendered {
	uint64_t seq;
	struct sbuf body, gz;
	bool gz_done;
	long series;
};

struct server {
	struct cli_live lv;
	struct cli_sampler *sp;
	struct MHD_Daemon *daemon;
	struct expo_meta meta;
	uint64_t interval_ns;
	unsigned long max_series;
	atomic_ullong http_errors[4]; /* 404, 405, 413, 503 */
	pthread_mutex_t lock;	      /* the renders and the hold state, not the sampler */
	struct rendered render[2];
	struct expo_hold hold;
	atomic_bool too_many_series;
	struct storeq *store; /* --store */
	struct ring *ring;    /* the live page\'s last minutes */
	struct webcfg web;    /* --web.config.file: TLS, users */
	struct web_tls tls;
	char no_body, had_body; /* their addresses mark a request */
};

static void usage(FILE *f)
{
	fputs("usage: pmumon serve [OPTIONS]\n"
	      "\n"
	      "Counts the machine on its own clock and serves the counts to Prometheus:\n"
	      "raw events as counters (pmumon_event_total), the packs' metrics as gauges in\n"
	      "base units, and how far to trust each value (running ratio, quality flags,\n"
	      "devices up). docs/serve.md lists every series. Runs until SIGTERM or\n"
	      "Ctrl-C, then puts every counter back.\n"
	      "\n"
	      "What to count (default: the platform pack's defaults, per device):\n",
	      f);
	cli_count__usage_events(f);
	cli_count__usage_metrics(f);
	cli_live__usage_source(f);
	fputs("Where:\n", f);
	cli_live__usage_where(f);
	fputs("Serving:\n"
	      "  -I, --interval MS     sample every MS milliseconds, 10 to 60000 (1000)\n"
	      "      --listen ADDR:PORT  where to listen (127.0.0.1:9811); listening on\n"
	      "                        another address is explicit: 0.0.0.0:9811, [::]:9811\n"
	      "      --max-series N    refuse to serve more series than N (20000)\n"
	      "      --web.config.file FILE  TLS and basic authentication, in the format\n"
	      "                        every Prometheus exporter reads (docs/serve.md)\n"
	      "      --store FILE.db   also record every interval there (pmumon record's\n"
	      "                        format; a slow disk drops intervals, counted, and\n"
	      "                        never delays a sample)\n",
	      f);
	cli_count__usage_show(f, "one row per PMU instance (--per-device)");
	fputs("\n"
	      "Endpoints: /metrics (Prometheus text 0.0.4 or OpenMetrics 1.0.0, as the\n"
	      "Accept header asks; gzip when accepted), /healthz (200 while the last\n"
	      "sample is younger than 3 intervals), /api/v1/snapshot (the last interval\n"
	      "as stat -j's JSON Lines), / (links). GET and HEAD only.\n"
	      "\n"
	      "Examples:\n"
	      "  pmumon serve\n"
	      "  pmumon serve -M ddr_read_bandwidth.all,ddr_write_bandwidth.all -I 5000\n"
	      "  pmumon serve --listen 0.0.0.0:9811 --per-channel\n",
	      f);
}

enum {
	OPT_LISTEN = 2000,
	OPT_MAX_SERIES,
	OPT_STORE,
	OPT_WEB_CONFIG,
};

/* One of serve's own options: 0, 1 for --help, -EINVAL (said). */
static int serve_option(void *arg, int c, const char *val)
{
	struct serve_args *a = arg;

	switch (c) {
	case OPT_LISTEN:
		a->listen = val;
		return 0;
	case OPT_STORE:
		a->store = val;
		return 0;
	case OPT_WEB_CONFIG:
		a->web_config = val;
		return 0;
	case OPT_MAX_SERIES:
		return cli_parse_uint("--max-series", val, 10000000, &a->max_series) < 0 ? -EINVAL :
											   0;
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

static int parse_args(int argc, char **argv, struct serve_args *a)
{
	static const struct option opts[] = {
		CLI_EVENT_OPTIONS,
		CLI_COUNT_OPTIONS,
		CLI_LIVE_OPTIONS,
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "max-series", required_argument, NULL, OPT_MAX_SERIES },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "web.config.file", required_argument, NULL, OPT_WEB_CONFIG },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = {
		"serve", CLI_EVENT_SHORT CLI_COUNT_SHORT CLI_LIVE_SHORT "vh", opts, usage,
		serve_option
	};
	int r;

	a->listen = "127.0.0.1:9811";
	a->max_series = SERVE_MAX_SERIES;
	a->live.interval_ms = 1000;
	r = cli_getopt(argc, argv, &co, &a->count, &a->live, a);
	if (r)
		return r;
	if (optind < argc) {
		cli_error("serve takes no command ('%s'): it counts the whole machine until SIGTERM",
			  argv[optind]);
		return -EINVAL;
	}
	if (a->live.interval_ms < 10 || a->live.interval_ms > 60000) {
		cli_error("serve samples every 10 to 60000 ms, not %lu (-I)", a->live.interval_ms);
		return -EINVAL;
	}
	if (a->count.format != PM_OUT_TABLE || a->count.output) {
		cli_error("serve answers over HTTP: -x, -j and -o are stat's (the JSON Lines are "
			  "at /api/v1/snapshot)");
		return -EINVAL;
	}
	if (!a->count.n_aggr)
		a->count.aggr = PM_AGGR_DEVICE;
	if (cli_count__check(&a->count) < 0 || cli_live__check(&a->live) < 0)
		return -EINVAL;
	return 0;
}

/* ADDR:PORT, [V6ADDR]:PORT: 0 or -EINVAL (said). */
static int parse_listen(const char *s, struct sockaddr_storage *ret)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	unsigned long port;
	size_t n;

	if (!colon || colon == s || cli_parse_uint("--listen", colon + 1, 65535, &port) < 0)
		goto bad;
	n = (size_t)(colon - s);
	if (s[0] == '[' && colon[-1] == ']') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ret;

		if (n - 2 >= sizeof(host))
			goto bad;
		memcpy(host, s + 1, n - 2);
		host[n - 2] = '\0';
		memset(in6, 0, sizeof(*in6));
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			goto bad;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ret;

		if (n >= sizeof(host))
			goto bad;
		memcpy(host, s, n);
		host[n] = '\0';
		memset(in, 0, sizeof(*in));
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			goto bad;
	}
	return 0;
bad:
	cli_error("--listen wants ADDR:PORT (127.0.0.1:9811, [::1]:9811), not '%s'", s);
	return -EINVAL;
}

/* ---- answers ----------------------------------------------------------------------- */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type,
			      const char *body, size_t len, const char *encoding)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body,
								    MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (encoding)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, encoding);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result ask_credentials(struct MHD_Connection *c)
{
	static const char text[] = "credentials are needed (basic authentication)\n";
	struct MHD_Response *resp = MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
								    MHD_RESPMEM_PERSISTENT);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	r = MHD_queue_basic_auth_fail_response(c, "pmumon", resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	return answer(c, status, "text/plain; charset=utf-8", text, strlen(text), NULL);
}

static enum MHD_Result error(struct server *sv, struct MHD_Connection *c, unsigned status,
			     const char *text)
{
	int i = status == 404 ? 0 : status == 405 ? 1 : status == 413 ? 2 : 3;

	atomic_fetch_add(&sv->http_errors[i], 1);
	return answer_text(c, status, text);
}

/* gzip of in into out (windowBits 31: the gzip wrapper): 0 or -errno. */
static int gzip(const struct sbuf *in, struct sbuf *out)
{
	z_stream z = { 0 };
	uLong bound;
	int r;

	if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, in->len) + 32;
	out->len = 0;
	sbuf_put(out, "", 0);
	if (!out->err && out->cap < bound) {
		char *p = realloc(out->data, bound);

		if (!p)
			out->err = -ENOMEM;
		else
			out->data = p, out->cap = bound;
	}
	if (out->err) {
		deflateEnd(&z);
		return out->err;
	}
	z.next_in = (Bytef *)in->data;
	z.avail_in = (uInt)in->len;
	z.next_out = (Bytef *)out->data;
	z.avail_out = (uInt)out->cap;
	r = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	deflateEnd(&z);
	return r == Z_STREAM_END ? 0 : -EIO;
}

/*
 * The latest sample, references taken (release with cli_sample__release):
 * false before the first, and before the sampler started — HTTP answers
 * from the moment it listens, which is before the counting starts.
 */
static bool latest_sample(struct server *sv, struct cli_sample *ret)
{
	struct cli_sampler *sp = __atomic_load_n(&sv->sp, __ATOMIC_ACQUIRE);

	*ret = (struct cli_sample){ 0 };
	return sp && cli_sampler__latest(sp, ret);
}

/* The latest sample's exposition in f, rendered if it is newer than the kept one. Under
 * sv->lock. 0, -EAGAIN before the first sample, -ENOMEM. */
static int render(struct server *sv, enum expo_format f, const struct cli_sample *smp)
{
	struct rendered *rd = &sv->render[f];
	struct expo_health h = { 0 };
	long n;

	if (rd->seq == smp->seq && rd->body.data)
		return 0;
	h.samples = smp->seq;
	h.read_s = (double)smp->read_ns / 1e9;
	h.late_s = (double)smp->late_ns / 1e9;
	h.last_sample_s = (double)pm_snapshot__report(smp->interval)->wall_ns / 1e9;
	for (size_t i = 0; i < 4; i++)
		h.http_errors[i] = atomic_load(&sv->http_errors[i]);
	if (sv->store) {
		h.store = true;
		storeq_counts(sv->store, &h.store_written, &h.store_dropped, &h.store_failed);
	}
	rd->body.len = 0;
	rd->body.err = 0;
	n = expo_render(&rd->body, f, pm_snapshot__report(smp->interval),
			pm_snapshot__report(smp->total), &sv->meta, &h, &sv->hold);
	if (n < 0)
		return (int)n;
	rd->seq = smp->seq;
	rd->series = n;
	rd->gz_done = false;
	if ((unsigned long)n > sv->max_series)
		atomic_store(&sv->too_many_series, true);
	return 0;
}

static enum MHD_Result serve_metrics(struct server *sv, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	const char *enc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding");
	enum expo_format f = expo_negotiate(accept);
	struct rendered *rd = &sv->render[f];
	struct cli_sample smp;
	enum MHD_Result ret;
	int r;

	if (!latest_sample(sv, &smp)) {
		cli_sample__release(&smp);
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	}
	pthread_mutex_lock(&sv->lock);
	r = render(sv, f, &smp);
	if (r == 0 && expo_accepts_gzip(enc) && !rd->gz_done)
		rd->gz_done = gzip(&rd->body, &rd->gz) == 0;
	if (r < 0)
		ret = error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	else if (expo_accepts_gzip(enc) && rd->gz_done)
		ret = answer(c, MHD_HTTP_OK,
			     f == EXPO_OPENMETRICS ? EXPO_OPENMETRICS_TYPE : EXPO_TEXT_TYPE,
			     rd->gz.data, rd->gz.len, "gzip");
	else
		ret = answer(c, MHD_HTTP_OK,
			     f == EXPO_OPENMETRICS ? EXPO_OPENMETRICS_TYPE : EXPO_TEXT_TYPE,
			     rd->body.data, rd->body.len, NULL);
	pthread_mutex_unlock(&sv->lock);
	cli_sample__release(&smp);
	return ret;
}

/* How long ago the latest sample was published; UINT64_MAX before the first. */
static uint64_t sample_age_ns(struct server *sv)
{
	struct cli_sample smp;
	struct timespec now;
	uint64_t age = UINT64_MAX;

	if (latest_sample(sv, &smp)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		age = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - smp.published_ns;
	}
	cli_sample__release(&smp);
	return age;
}

static enum MHD_Result serve_health(struct server *sv, struct MHD_Connection *c)
{
	uint64_t age = sample_age_ns(sv);
	char text[128];

	if (age == UINT64_MAX)
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	snprintf(text, sizeof(text), "%s: last sample %.3f s ago (interval %.3f s)\n",
		 age < 3 * sv->interval_ns ? "ok" : "stale", (double)age / 1e9,
		 (double)sv->interval_ns / 1e9);
	if (age < 3 * sv->interval_ns)
		return answer_text(c, MHD_HTTP_OK, text);
	return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, text);
}

/* The last interval as the JSON Lines stat -j prints. */
static enum MHD_Result serve_snapshot(struct server *sv, struct MHD_Connection *c)
{
	struct pm_out_opts oo = { .size = sizeof(oo),
				  .format = PM_OUT_JSON,
				  .target = "'system wide'",
				  .simulated = sv->meta.simulated,
				  .sim_platform = arg_global.sim_platform };
	struct cli_sample smp;
	struct pm_out *o = NULL;
	enum MHD_Result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!latest_sample(sv, &smp)) {
		cli_sample__release(&smp);
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	}
	f = open_memstream(&buf, &len);
	if (f && pm_out__new(f, &oo, &o) == 0) {
		pm_out__report(o, pm_snapshot__report(smp.interval));
		pm_out__free(o);
	}
	if (f)
		fclose(f);
	cli_sample__release(&smp);
	r = buf ? answer(c, MHD_HTTP_OK, "application/jsonl; charset=utf-8", buf, len, NULL) :
		  error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	free(buf);
	return r;
}

#define RING_SAMPLES 600 /* the live page's memory: 10 minutes at -I 1000 */

/* A file of the live page (cli/serve/page, third_party/uplot), built in. */
static enum MHD_Result serve_asset(struct server *sv, struct MHD_Connection *c, const char *url)
{
	for (const struct web_asset *a = web_assets; a->path; a++)
		if (!strcmp(a->path, url))
			return answer(c, MHD_HTTP_OK, a->type, (const char *)a->data, a->len, NULL);
	return error(sv, c, MHD_HTTP_NOT_FOUND, "not found: see / for the endpoints\n");
}

/* /api/v1/range?seconds=N: the last N seconds the page's memory holds, as JSON. */
static enum MHD_Result serve_range(struct server *sv, struct MHD_Connection *c)
{
	const char *arg = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	double max_s, seconds = 60;
	struct sbuf b = { 0 };
	enum MHD_Result r;

	/* the ring and meta are set before the sampler is published (release/acquire) */
	if (!__atomic_load_n(&sv->sp, __ATOMIC_ACQUIRE))
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	if (arg && (cli_parse_double(arg, &seconds) < 0 || !(seconds > 0)))
		return answer_text(
			c, MHD_HTTP_BAD_REQUEST,
			"seconds is a number of seconds above 0 (/api/v1/range?seconds=60)\n");
	max_s = RING_SAMPLES * sv->meta.interval_s;
	if (seconds > max_s)
		seconds = max_s; /* bounded by what the page's memory holds */
	if (ring_render(sv->ring, seconds, &sv->meta, &b) < 0) {
		sbuf_free(&b);
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	}
	r = answer(c, MHD_HTTP_OK, "application/json; charset=utf-8", b.data, b.len, NULL);
	sbuf_free(&b);
	return r;
}

/* The sampler's hook: the page's memory, and --store's queue. */
static void on_sample(void *arg, const struct cli_sample *smp)
{
	struct server *sv = arg;

	ring_push(sv->ring, smp->interval);
	if (sv->store)
		storeq_hook(sv->store, smp);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req)
{
	struct server *sv = cls;
	bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");

	(void)version;
	(void)upload_data;
	/* the headers are in: answer once the request is whole, its body (if any) read
	 * and dropped — nothing here reads one (*req marks a request that had one) */
	if (!*req) {
		*req = &sv->no_body;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		*req = &sv->had_body;
		return MHD_YES;
	}
	if (!web_client_ok(&sv->web, c))
		return answer_text(c, MHD_HTTP_FORBIDDEN,
				   "a client certificate this server "
				   "trusts is needed\n");
	if (!web_user_ok(&sv->web, c))
		return ask_credentials(c);
	if (!get)
		return error(sv, c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n");
	if (*req == &sv->had_body)
		return error(sv, c, MHD_HTTP_CONTENT_TOO_LARGE, "no request body is accepted\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(sv, c);
	if (!strcmp(url, "/healthz"))
		return serve_health(sv, c);
	if (!strcmp(url, "/api/v1/snapshot"))
		return serve_snapshot(sv, c);
	if (!strcmp(url, "/api/v1/range"))
		return serve_range(sv, c);
	if (!strcmp(url, "/") || !strncmp(url, "/assets/", 8))
		return serve_asset(sv, c, url);
	return error(sv, c, MHD_HTTP_NOT_FOUND, "not found: see / for the endpoints\n");
}

/* ---- the run ----------------------------------------------------------------------- */

static int start_http(struct server *sv, const struct sockaddr_storage *addr)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_INTERNALLY |
			 MHD_USE_ERROR_LOG;
	/* bounded: connections, their time, and a request's size (headers fit in the pool) */
	struct MHD_OptionItem opts[16] = {
		{ MHD_OPTION_SOCK_ADDR, 0, (void *)addr },
		{ MHD_OPTION_THREAD_POOL_SIZE, 2, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, 64, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, 32, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, 10, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32768, NULL },
	};
	size_t n = 6;

	if (addr->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (sv->web.tls) {
		flags |= MHD_USE_TLS;
		if (web_tls_options(&sv->web, &sv->tls, opts, &n) < 0)
			return -EINVAL;
	}
	opts[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	sv->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, sv, MHD_OPTION_ARRAY, opts,
				      MHD_OPTION_END);
	return sv->daemon ? 0 : -EADDRINUSE;
}

/* --web.config.file: read and checked before anything else: 0 or -EINVAL (said). */
static int load_web_config(struct server *sv, const char *path)
{
	char *text = NULL, err[512];
	size_t len;
	int r = cli_read_file(path, 1u << 20, &text, &len);

	if (r < 0) {
		cli_error("cannot read the web configuration '%s': %s", path, strerror(-r));
		return -EINVAL;
	}
	r = webcfg_parse(path, text, len, &sv->web, err, sizeof(err));
	free(text);
	if (r < 0)
		cli_error("%s", r == -EINVAL ? err : "out of memory");
	return r;
}

/* --store FILE.db, opened before any counter is programmed: 0 or the exit status (said). */
static int open_store(struct server *sv, const struct serve_args *a)
{
	static const char *aggr[] = { "family", "device", "cpu", "die", "socket", "channel" };
	struct store_run run = { .command = "pmumon serve",
				 .version = PMUMON_VERSION,
				 .platform = pm_ctx__packs(sv->lv.ctx),
				 .sim_platform = arg_global.sim_platform,
				 .simulated = pm_ctx__simulated(sv->lv.ctx),
				 .interval_ms = a->live.interval_ms,
				 .aggr = (size_t)a->count.aggr < CLI_ARRAY_SIZE(aggr) ?
						 aggr[a->count.aggr] :
						 "?" };
	const char *why = "";

	if (storeq_start(a->store, &run, &sv->store, &why) < 0) {
		cli_error("cannot record into '%s' (--store): %s", a->store, why);
		return EXIT_FAIL;
	}
	return 0;
}

/* Every check and the counters opened and started; 0 or the exit status (said). */
static int prepare(struct server *sv, struct serve_args *a, const struct sockaddr_storage *addr)
{
	sigset_t ending;
	int r;

	r = cli_live__machine(&sv->lv, &a->live, &a->count);
	if (r == 0 && arg_global.sim_virtual_clock) {
		cli_error("the simulated machine's clock is virtual: serve runs on real time; "
			  "add clock=real to --sim");
		return EXIT_USAGE;
	}
	if (r == 0)
		r = cli_live__events(&sv->lv, &a->count);
	if (r == 0)
		r = cli_live__session(&sv->lv);
	if (r == 0 && a->store)
		r = open_store(sv, a);
	if (r)
		return r;
	cli_signals_ending(&ending);
	r = cli_live__open(&sv->lv, &ending);
	if (r == 0)
		r = cli_live__enable(&sv->lv);
	if (r)
		return r;
	r = start_http(sv, addr);
	if (r == -EINVAL)
		return EXIT_FAIL; /* a TLS file (said) */
	if (r < 0) {
		cli_error("cannot listen on %s: the address is in use or not this machine's "
			  "(--listen)",
			  a->listen);
		return EXIT_FAIL;
	}
	return 0;
}

/* Render the first sample before anyone asks: it says whether --max-series holds. */
static void check_first(struct server *sv)
{
	struct cli_sample smp;

	if (!latest_sample(sv, &smp)) {
		cli_sample__release(&smp);
		return;
	}
	pthread_mutex_lock(&sv->lock);
	if (render(sv, EXPO_TEXT, &smp) < 0)
		sv->lv.failed = true;
	pthread_mutex_unlock(&sv->lock);
	cli_sample__release(&smp);
}

/*
 * Until the sampler ends (a signal, a failure): the first sample checked
 * against --max-series, then READY=1 to a service manager; WATCHDOG=1 every
 * half watchdog period while samples are fresh (a stuck sampler is not
 * vouched for); STOPPING=1 at the end.
 */
static void wait_end(struct server *sv)
{
	struct pollfd p = { .fd = cli_sampler__fd(sv->sp), .events = POLLIN };
	uint64_t wd_usec = notify_watchdog_usec();
	int timeout_ms = wd_usec ? (int)CLI_MIN(wd_usec / 2000, 3600000) : -1;
	bool ready = false;

	while (!cli_sampler__done(sv->sp)) {
		poll(&p, 1, timeout_ms);
		cli_sampler__ack(sv->sp);
		if (!ready && sample_age_ns(sv) != UINT64_MAX) {
			check_first(sv);
			if (atomic_load(&sv->too_many_series)) {
				cli_error("more than %lu series (--max-series): count fewer events, "
					  "or drop a --per-* option",
					  sv->max_series);
				sv->lv.failed = true;
				break;
			}
			notify_send("READY=1");
			ready = true;
		}
		if (wd_usec && sample_age_ns(sv) < 3 * sv->interval_ns)
			notify_send("WATCHDOG=1");
	}
	notify_send("STOPPING=1");
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args a = { 0 };
	struct server sv = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct sockaddr_storage addr;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (parse_listen(a.listen, &addr) < 0)
		return EXIT_USAGE;
	if (a.web_config && load_web_config(&sv, a.web_config) < 0)
		return EXIT_USAGE;
	sv.interval_ns = a.live.interval_ms * NS_PER_MS;
	sv.max_series = a.max_series;
	ret = prepare(&sv, &a, &addr);
	if (ret == 0) {
		sv.meta = (struct expo_meta){ .version = PMUMON_VERSION,
					      .platform = arg_global.sim_platform ?
								  arg_global.sim_platform :
								  pm_ctx__packs(sv.lv.ctx),
					      .simulated = pm_ctx__simulated(sv.lv.ctx),
					      .interval_s = (double)a.live.interval_ms / 1e3 };
		if (!sv.meta.platform)
			sv.meta.platform = "";
		struct cli_sampler *sp = NULL;

		ret = ring_new(RING_SAMPLES, &sv.ring);
		if (ret == 0)
			ret = cli_sampler__start_hooked(&sv.lv, sv.interval_ns, 0, on_sample, &sv,
							&sp);
		/* published to the HTTP threads, which may be answering already */
		__atomic_store_n(&sv.sp, sp, __ATOMIC_RELEASE);
		if (ret < 0) {
			cli_error("cannot start the sampler thread: %s", strerror(-ret));
			ret = EXIT_FAIL;
		}
	}
	if (ret == 0) {
		cli_info("serving on http://%s/metrics every %lu ms", a.listen, a.live.interval_ms);
		wait_end(&sv);
	}
	if (sv.daemon)
		MHD_stop_daemon(sv.daemon); /* no scrape after this: the snapshots can go */
	cli_sampler__stop(sv.sp);
	storeq_stop(sv.store); /* what is queued is written */
	ring_free(sv.ring);
	if (sv.lv.s)
		pm_session__disable(sv.lv.s);
	if (ret == 0 && (cli_live__say_lost(&sv.lv) || sv.lv.failed))
		ret = EXIT_FAIL;
	for (size_t i = 0; i < 2; i++) {
		sbuf_free(&sv.render[i].body);
		sbuf_free(&sv.render[i].gz);
	}
	expo_hold_free(&sv.hold);
	webcfg_free(&sv.web);
	web_tls_free(&sv.tls);
	cli_live__free(&sv.lv);
	return ret;
}
