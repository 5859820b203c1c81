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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "mhd.h"
#include "rw.h"
#include "server.h"
#include "cli-global.h"
#include "cli-sampler.h"
#include "util.h"

/* libmicrohttpd's connection limit: twice the front's (front.c), as each of its 2 threads
 * takes half; so it never refuses a connection the front would have let in. */
#define MHD_LIMIT 512

struct http {
	struct server *sv;
	struct front *front; /* shared with the daemon a reload replaces, until it stops */
	struct MHD_Daemon *daemon;
	struct webcfg web;
	struct web_tls tls;
	struct web_auth *auth; /* the credentials web's users were checked against */
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

static enum MHD_Result ask_credentials(struct http *h, struct MHD_Connection *c)
{
	static const char text[] = "credentials are needed (basic authentication)\n";
	struct MHD_Response *resp = mhd.create_response_from_buffer(sizeof(text) - 1, (void *)text,
								    MHD_RESPMEM_PERSISTENT);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	front_count_code(h->front, MHD_HTTP_UNAUTHORIZED);
	r = mhd.queue_basic_auth_fail_response(c, "pmumon", resp);
	mhd.destroy_response(resp);
	return r;
}

static enum MHD_Result answer_text(struct MHD_Connection *c, unsigned status, const char *text)
{
	return answer(c, status, "text/plain; charset=utf-8", text, strlen(text), NULL);
}

static enum MHD_Result error(struct http *h, struct MHD_Connection *c, unsigned status,
			     const char *text)
{
	front_count_code(h->front, status);
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

void server_health(struct server *sv, const struct cli_sample *smp, struct expo_health *ret)
{
	struct expo_health h = { 0 };

	h.samples = smp->seq;
	h.samples_late = atomic_load(&sv->samples_late);
	h.read_s = (double)smp->read_ns / 1e9;
	h.late_s = (double)smp->late_ns / 1e9;
	h.last_sample_s = (double)pm_snapshot__report(smp->interval)->wall_ns / 1e9;
	for (size_t i = 0; i < HTTP__N; i++)
		h.access.errors[i] = atomic_load(&sv->http_errors[i]);
	for (size_t i = 0; i < REFUSED__N; i++)
		h.access.refused[i] = atomic_load(&sv->http_refused[i]);
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
	*ret = h;
}

/* The latest sample's exposition in f, rendered if it is newer than the kept one. Under
 * sv->lock. 0, -EAGAIN before the first sample, -ENOMEM. */
int server_render(struct server *sv, enum expo_format f, const struct cli_sample *smp,
		  const struct expo_counts *c)
{
	struct rendered *rd = &sv->render[f];
	struct expo_health h;
	struct expo_sample es = { .interval = pm_snapshot__report(smp->interval),
				  .counts = c,
				  .meta = &sv->meta,
				  .health = &h,
				  .more = sv->rw ? rw_families : NULL, /* remote write's own */
				  .more_arg = sv->rw };
	long n;

	if (rd->seq == smp->seq && rd->body.data)
		return 0;
	if (!c)
		return -ENOMEM; /* the sampler could not add it up */
	server_health(sv, smp, &h);
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

static enum MHD_Result serve_metrics(struct http *h, struct MHD_Connection *c)
{
	struct server *sv = h->sv;
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
		return error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	}
	pthread_mutex_lock(&sv->lock);
	r = server_render(sv, f, &smp, counts);
	if (r == 0 && expo_accepts_gzip(enc) && !rd->gz_done)
		rd->gz_done = gzip(&rd->body, &rd->gz) == 0;
	if (r < 0)
		ret = error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
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

static enum MHD_Result serve_health(struct http *h, struct MHD_Connection *c)
{
	struct server *sv = h->sv;
	uint64_t age = server_sample_age_ns(sv), interval_ns;
	char text[128];

	if (age == UINT64_MAX)
		return error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	pthread_mutex_lock(&sv->lock);
	interval_ns = sv->interval_ns;
	pthread_mutex_unlock(&sv->lock);
	snprintf(text, sizeof(text), "%s: last sample %.3f s ago (interval %.3f s)\n",
		 age < 3 * interval_ns ? "ok" : "stale", (double)age / 1e9,
		 (double)interval_ns / 1e9);
	if (age < 3 * interval_ns)
		return answer_text(c, MHD_HTTP_OK, text);
	return error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, text);
}

/* The last interval as the JSON Lines stat -j prints. */
static enum MHD_Result serve_snapshot(struct http *h, struct MHD_Connection *c)
{
	struct server *sv = h->sv;
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
		return error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
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
		  error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	free(buf);
	return r;
}

/* A file of the live page (cli/serve/page, third_party/uplot), built in. */
static enum MHD_Result serve_asset(struct http *h, struct MHD_Connection *c, const char *url)
{
	for (const struct web_asset *a = web_assets; a->path; a++)
		if (!strcmp(a->path, url))
			return answer(c, MHD_HTTP_OK, a->type, (const char *)a->data, a->len, NULL);
	return error(h, c, MHD_HTTP_NOT_FOUND, "not found: see / for the endpoints\n");
}

/* /api/v1/range?seconds=N: the last N seconds the page's memory holds, as JSON. */
static enum MHD_Result serve_range(struct http *h, struct MHD_Connection *c)
{
	struct server *sv = h->sv;
	const char *arg = mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
	double max_s, seconds = 60;
	struct sbuf b = { 0 };
	struct expo_meta m;
	char platform[sizeof(sv->platform)];
	enum MHD_Result r;

	if (arg && (pm_parse_double_str(arg, &seconds) < 0 || !(seconds > 0)))
		return error(h, c, MHD_HTTP_BAD_REQUEST,
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
		return error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	}
	r = answer(c, MHD_HTTP_OK, "application/json; charset=utf-8", b.data, b.len, NULL);
	sbuf_free(&b);
	return r;
}

/* Whether the request says a body follows (which nothing here reads). */
static bool declares_body(struct MHD_Connection *c)
{
	const char *len = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (len && len[strspn(len, "0")]) || /* a length of 0 ("0", "00") is none */
	       mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

static enum MHD_Result respond(struct http *h, struct MHD_Connection *c, const char *url,
			       const char *method, bool body)
{
	bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");

	if (!web_client_ok(&h->web, c))
		return error(h, c, MHD_HTTP_FORBIDDEN,
			     "a client certificate this server trusts is needed\n");
	if (!web_user_ok(&h->web, h->auth, c))
		return ask_credentials(h, c);
	if (!get)
		return error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n");
	if (body)
		return error(h, c, MHD_HTTP_CONTENT_TOO_LARGE, "no request body is accepted\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(h, c);
	if (!strcmp(url, "/healthz"))
		return serve_health(h, c);
	if (!strcmp(url, "/api/v1/snapshot"))
		return serve_snapshot(h, c);
	if (!strcmp(url, "/api/v1/range"))
		return serve_range(h, c);
	if (!strcmp(url, "/") || !strncmp(url, "/assets/", 8))
		return serve_asset(h, c, url);
	return error(h, c, MHD_HTTP_NOT_FOUND, "not found: see / for the endpoints\n");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *ci;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	if (*req)
		return respond(h, c, url, method, false); /* the request is whole */
	/* its headers are in: the front stops its clock */
	ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	front_request(h->front, ci ? ci->socket_context : NULL);
	*req = &h->sv->no_body;
	/* a body is never read: answered now, not once a body that may never come is in
	 * (libmicrohttpd then closes the connection rather than read it) */
	return declares_body(c) ? respond(h, c, url, method, true) : MHD_YES;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		front_started(h->front, c, socket_context);
	else
		front_closed(h->front, *socket_context);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req,
			 enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;
	const union MHD_ConnectionInfo *ci =
		mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)req;
	(void)toe;
	front_answered(h->front, ci ? ci->socket_context : NULL);
}

/*
 * libmicrohttpd's options for h: the front door's notifications and log, its
 * connections (MHD_LIMIT: the front keeps the tighter bounds, and closes rather than
 * refuses), their inactivity time, a request's size (the headers fit in the pool); TLS
 * from h's web configuration. listen_fd: the socket a renewed daemon takes over, or -1.
 */
static int start_daemon(struct http *h, const struct sockaddr_storage *addr, int listen_fd)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL_INTERNALLY |
			 MHD_USE_ERROR_LOG | MHD_USE_ITC;
	struct MHD_OptionItem opts[24] = {
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)front_log, h->front }, /* first: all */
		{ MHD_OPTION_THREAD_POOL_SIZE, 2, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, MHD_LIMIT, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, 10, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32768, NULL },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h },
	};
	size_t n = 7;

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
	if (addr->ss_family == AF_INET6) {
		/* [::] is every address, IPv4's too (where the kernel allows IPv6 sockets
		 * IPv4 peers); any other is its own only */
		int only = !IN6_IS_ADDR_UNSPECIFIED(
			&((const struct sockaddr_in6 *)addr)->sin6_addr);

		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof(only));
	}
	if (bind(fd, (const struct sockaddr *)addr, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* h, its daemon stopped (the front is freed by whoever owns it last). */
static void http_free(struct http *h)
{
	web_auth_free(h->auth);
	webcfg_free(&h->web);
	web_tls_free(&h->tls);
	free(h);
}

int http_url(const struct http *h, char *buf, size_t size)
{
	const union MHD_DaemonInfo *info = mhd.get_daemon_info(h->daemon,
							       MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN];
	const void *a;
	unsigned port;

	if (!info || getsockname(info->listen_fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	if (ss.ss_family == AF_INET6) {
		a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		a = &((struct sockaddr_in *)&ss)->sin_addr;
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	if (!inet_ntop(ss.ss_family, a, host, sizeof(host)))
		return -errno;
	snprintf(buf, size, "%s://%s%s%s:%u", h->web.tls ? "https" : "http",
		 ss.ss_family == AF_INET6 ? "[" : "", host, ss.ss_family == AF_INET6 ? "]" : "",
		 port);
	return 0;
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
	r = web_auth_new(&h->auth);
	if (r == 0 && (r = cli_mhd_load(err, sizeof(err))) < 0)
		cli_error("%s", err);
	if (r == 0)
		r = front_new(sv, &h->front);
	if (r == 0)
		r = listen_on(addr);
	if (r >= 0) {
		int fd = r;

		r = start_daemon(h, addr, fd);
		if (r < 0)
			close(fd);
	}
	if (r < 0) {
		front_free(h->front);
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
		web_auth_clear(old->auth); /* what was checked is checked again */
		return 0;
	}
	h->sv = old->sv;
	h->front = old->front; /* the old daemon's connections stay followed until it stops */
	h->web = *web;
	*web = (struct webcfg){ 0 };
	info = mhd.get_daemon_info(old->daemon, MHD_DAEMON_INFO_LISTEN_FD);
	fd = info ? info->listen_fd : -1;
	/* the new daemon listens before the old one stops accepting: a connection
	 * made meanwhile waits in the socket's backlog for whichever accepts it */
	r = fd < 0 ? -EBADF : web_auth_new(&h->auth);
	if (r == 0)
		r = start_daemon(h, NULL, fd);
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
	mhd.stop_daemon(h->daemon); /* its connections' closed notifications go to the front */
	front_free(h->front);
	http_free(h);
}
