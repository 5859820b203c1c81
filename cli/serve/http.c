// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon serve's HTTP front, on libmicrohttpd: /metrics (rendered once
 * per sample and format, gzip on demand), /healthz, /api/v1/snapshot,
 * /api/v1/range and the live page. Requests are answered from the latest
 * sample only: nothing here touches the counters, so a slow client never
 * delays a sample. A daemon answers with one web configuration (TLS,
 * users); a new one takes over the listening socket when SIGHUP brings a
 * new configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "mhd.h"
#include "server.h"

struct http {
	struct server *sv;
	struct MHD_Daemon *daemon;
	struct webcfg web;
	struct web_tls tls;
};

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type,
			      const char *body, size_t len, const char *encoding)
{
	struct MHD_Response *resp = mhd.create_response_from_buffer(len, (void *)body,
								    MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (encoding)
		mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, encoding);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	mhd.add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	r = mhd.queue_response(c, status, resp);
	mhd.destroy_response(resp);
	return r;
}

static enum MHD_Result ask_credentials(struct MHD_Connection *c)
{
	static const char text[] = "credentials are needed (basic authentication)\n";
	struct MHD_Response *resp = mhd.create_response_from_buffer(sizeof(text) - 1, (void *)text,
								    MHD_RESPMEM_PERSISTENT);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	r = mhd.queue_basic_auth_fail_response(c, "pmumon", resp);
	mhd.destroy_response(resp);
	return r;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	return answer(c, status, "text/plain; charset=utf-8", text, strlen(text), NULL);
}

static enum MHD_Result error(struct server *sv, struct MHD_Connection *c, unsigned status,
			     const char *text)
{
	int i = status == 404 ? HTTP_404 :
		status == 405 ? HTTP_405 :
		status == 413 ? HTTP_413 :
				HTTP_503;

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

bool server_latest(struct server *sv, struct cli_sample *ret, struct expo_counts **ret_counts)
{
	pthread_mutex_lock(&sv->latest_lock);
	*ret = sv->latest;
	pm_snapshot__ref(ret->interval);
	pm_snapshot__ref(ret->total);
	if (ret_counts)
		*ret_counts = expo_counts_ref(sv->latest_counts);
	pthread_mutex_unlock(&sv->latest_lock);
	return ret->seq != 0;
}

/* The latest sample's exposition in f, rendered if it is newer than the kept one. Under
 * sv->lock. 0, -EAGAIN before the first sample, -ENOMEM. */
int server_render(struct server *sv, enum expo_format f, const struct cli_sample *smp,
		  const struct expo_counts *c)
{
	struct rendered *rd = &sv->render[f];
	struct expo_health h = { 0 };
	struct expo_sample es = { .interval = pm_snapshot__report(smp->interval),
				  .counts = c,
				  .meta = &sv->meta,
				  .health = &h };
	long n;

	if (rd->seq == smp->seq && rd->body.data)
		return 0;
	if (!c)
		return -ENOMEM; /* the sampler could not add it up */
	h.samples = smp->seq;
	h.samples_late = atomic_load(&sv->samples_late);
	h.read_s = (double)smp->read_ns / 1e9;
	h.late_s = (double)smp->late_ns / 1e9;
	h.last_sample_s = (double)pm_snapshot__report(smp->interval)->wall_ns / 1e9;
	for (size_t i = 0; i < HTTP__N; i++)
		h.http_errors[i] = atomic_load(&sv->http_errors[i]);
	if (sv->store_path) {
		h.store = true;
		struct storeq_counts now = { 0 };

		if (sv->store)
			storeq_counts(sv->store, &now);
		h.store_written = sv->stored.written + now.written;
		h.store_dropped = sv->stored.dropped + now.dropped;
		h.store_failed = sv->stored.failed || now.failed;
	}
	h.reloads = sv->reloads;
	rd->body.len = 0;
	rd->body.err = 0;
	n = expo_render(&rd->body, f, &es);
	if (n < 0)
		return (int)n;
	rd->seq = smp->seq;
	rd->series = n;
	rd->gz_done = false;
	return 0;
}

static enum MHD_Result serve_metrics(struct server *sv, struct MHD_Connection *c)
{
	const char *accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	const char *enc = mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding");
	enum expo_format f = expo_negotiate(accept);
	struct rendered *rd = &sv->render[f];
	struct expo_counts *counts = NULL;
	struct cli_sample smp;
	enum MHD_Result ret;
	int r;

	if (!server_latest(sv, &smp, &counts)) {
		cli_sample__release(&smp);
		expo_counts_unref(counts);
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	}
	pthread_mutex_lock(&sv->lock);
	r = server_render(sv, f, &smp, counts);
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
	expo_counts_unref(counts);
	return ret;
}

uint64_t server_sample_age_ns(struct server *sv)
{
	struct cli_sample smp;
	struct timespec now;
	uint64_t age = UINT64_MAX;

	if (server_latest(sv, &smp, NULL)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		age = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - smp.published_ns;
	}
	cli_sample__release(&smp);
	return age;
}

static enum MHD_Result serve_health(struct server *sv, struct MHD_Connection *c)
{
	uint64_t age = server_sample_age_ns(sv), interval_ns;
	char text[128];

	if (age == UINT64_MAX)
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	pthread_mutex_lock(&sv->lock);
	interval_ns = sv->interval_ns;
	pthread_mutex_unlock(&sv->lock);
	snprintf(text, sizeof(text), "%s: last sample %.3f s ago (interval %.3f s)\n",
		 age < 3 * interval_ns ? "ok" : "stale", (double)age / 1e9,
		 (double)interval_ns / 1e9);
	if (age < 3 * interval_ns)
		return answer_text(c, MHD_HTTP_OK, text);
	return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, text);
}

/* The last interval as the JSON Lines stat -j prints. */
static enum MHD_Result serve_snapshot(struct server *sv, struct MHD_Connection *c)
{
	struct pm_out_opts oo = { .size = sizeof(oo),
				  .format = PM_OUT_JSON,
				  .target = "'system wide'",
				  /* set before serving, never changed: read without the lock */
				  .simulated = arg_global.sim_platform != NULL,
				  .sim_platform = arg_global.sim_platform };
	struct cli_sample smp;
	struct pm_out *o = NULL;
	enum MHD_Result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!server_latest(sv, &smp, NULL)) {
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
	const char *arg = mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	double max_s, seconds = 60;
	struct sbuf b = { 0 };
	struct expo_meta m;
	char platform[sizeof(sv->platform)];
	enum MHD_Result r;

	if (arg && (pm_parse_double_str(arg, &seconds) < 0 || !(seconds > 0)))
		return answer_text(
			c, MHD_HTTP_BAD_REQUEST,
			"seconds is a number of seconds above 0 (/api/v1/range?seconds=60)\n");
	pthread_mutex_lock(&sv->lock);
	m = sv->meta; /* a reload changes it: the page renders a copy */
	memcpy(platform, sv->platform, sizeof(platform));
	m.platform = platform;
	m.names = NULL;
	m.n_names = 0;
	pthread_mutex_unlock(&sv->lock);
	max_s = RING_SAMPLES * m.interval_s;
	if (seconds > max_s)
		seconds = max_s; /* bounded by what the page's memory holds */
	if (ring_render(sv->ring, seconds, &m, &b) < 0) {
		sbuf_free(&b);
		return error(sv, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	}
	r = answer(c, MHD_HTTP_OK, "application/json; charset=utf-8", b.data, b.len, NULL);
	sbuf_free(&b);
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req)
{
	struct http *h = cls;
	struct server *sv = h->sv;
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
	if (!web_client_ok(&h->web, c))
		return answer_text(c, MHD_HTTP_FORBIDDEN,
				   "a client certificate this server "
				   "trusts is needed\n");
	if (!web_user_ok(&h->web, c))
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

/* libmicrohttpd's options for h: bounded connections, their time, a request's size (the
 * headers fit in the pool); TLS from h's web configuration. listen_fd: the socket a
 * renewed daemon takes over, or -1. */
static int start_daemon(struct http *h, const struct sockaddr_storage *addr, int listen_fd)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_INTERNALLY |
			 MHD_USE_ERROR_LOG | MHD_USE_ITC;
	struct MHD_OptionItem opts[16] = {
		{ MHD_OPTION_THREAD_POOL_SIZE, 2, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, 128, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, 64, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, 10, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32768, NULL },
	};
	size_t n = 5;

	if (listen_fd >= 0)
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL };
	else
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)addr };
	if (addr && addr->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (h->web.tls) {
		flags |= MHD_USE_TLS;
		if (web_tls_options(&h->web, &h->tls, opts, &n) < 0)
			return -EINVAL;
	}
	opts[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	h->daemon = mhd.start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts,
				     MHD_OPTION_END);
	return h->daemon ? 0 : -EIO;
}

/* A socket listening on addr: its fd, or -errno of the bind (EADDRINUSE, EACCES for a
 * port below 1024, EADDRNOTAVAIL for another machine's address), which the caller says;
 * libmicrohttpd binding it itself would print "Failed to bind to port 0" and lose it. */
static int listen_on(const struct sockaddr_storage *addr)
{
	socklen_t len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						      sizeof(struct sockaddr_in);
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, r;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->ss_family == AF_INET6) /* the v6 address only, as MHD_USE_IPv6 alone */
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)addr, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static void http_free(struct http *h)
{
	webcfg_free(&h->web);
	web_tls_free(&h->tls);
	free(h);
}

int http_start(struct server *sv, const struct sockaddr_storage *addr, struct webcfg *web,
	       struct http **ret)
{
	struct http *h = calloc(1, sizeof(*h));
	char err[512];
	int r;

	if (!h) {
		webcfg_free(web);
		return -ENOMEM;
	}
	h->sv = sv;
	h->web = *web;
	*web = (struct webcfg){ 0 };
	r = cli_mhd_load(err, sizeof(err));
	if (r < 0)
		cli_error("%s", err);
	else
		r = listen_on(addr);
	if (r >= 0) {
		int fd = r;

		r = start_daemon(h, addr, fd);
		if (r < 0)
			close(fd);
	}
	if (r < 0) {
		http_free(h);
		return r;
	}
	*ret = h;
	return 0;
}

/* The requests a quiesced daemon is answering, finished (for at most 2 s). */
static void drain(struct MHD_Daemon *d)
{
	struct timespec tick = { .tv_nsec = 10 * 1000000 };

	for (int i = 0; i < 200; i++) {
		const union MHD_DaemonInfo *info =
			mhd.get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

		if (!info || !info->num_connections)
			return;
		nanosleep(&tick, NULL);
	}
}

int http_renew(struct http **hp, struct webcfg *web)
{
	struct http *old = *hp, *h = calloc(1, sizeof(*h));
	const union MHD_DaemonInfo *info;
	int fd, r;

	if (!h) {
		webcfg_free(web);
		return -ENOMEM;
	}
	if (webcfg_same(&old->web, web)) {
		free(h); /* nothing changed: the daemon goes on, its connections too */
		webcfg_free(web);
		return 0;
	}
	h->sv = old->sv;
	h->web = *web;
	*web = (struct webcfg){ 0 };
	info = mhd.get_daemon_info(old->daemon, MHD_DAEMON_INFO_LISTEN_FD);
	fd = info ? info->listen_fd : -1;
	/* the new daemon listens before the old one stops accepting: a connection
	 * made meanwhile waits in the socket's backlog for whichever accepts it */
	r = fd < 0 ? -EBADF : start_daemon(h, NULL, fd);
	if (r < 0) {
		http_free(h);
		return r;
	}
	mhd.quiesce_daemon(old->daemon); /* the socket is the new daemon's now */
	drain(old->daemon);
	mhd.stop_daemon(old->daemon);
	http_free(old);
	*hp = h;
	return 0;
}

void http_stop(struct http *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->daemon);
	http_free(h);
}
