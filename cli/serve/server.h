/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What pmumon serve's threads share. cmd-serve.c's main thread builds the
 * counting and rebuilds it (SIGHUP, a device back); the sampler thread
 * feeds the latest sample through its hook; libmicrohttpd's threads
 * (http.c) answer from the latest sample and never touch the counters.
 * Each field says which lock covers it.
 */
#ifndef PMUMON_CLI_SERVE_SERVER_H
#define PMUMON_CLI_SERVE_SERVER_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "cli-sampler.h"
#include "serve.h"

#define RING_SAMPLES 600 /* the live page's memory: 10 minutes at -I 1000 */

/* One format's exposition of the latest sample, and its gzip, rendered on first demand. */
struct rendered {
	uint64_t seq;
	struct sbuf body, gz;
	bool gz_done;
	long series;
};

struct server {
	pthread_mutex_t lock; /* the fields up to latest_lock */
	struct rendered render[2];
	struct expo_meta meta;
	char platform[128];
	struct expo_name *names; /* meta's: the packs' neutral names, copied */
	size_t n_names;
	uint64_t interval_ns;
	unsigned long max_series;
	const char *store_path;	     /* --store, or NULL */
	struct storeq *store;	     /* its current run: a new one after each rebuild */
	struct storeq_counts stored; /* of the runs before the current one */
	struct expo_reloads reloads;
	struct rw *rw; /* --remote-write (rw.h), or NULL; set before the first sample */

	pthread_mutex_t latest_lock;	   /* latest, latest_counts */
	struct cli_sample latest;	   /* seq counts every sample since serve started */
	struct expo_counts *latest_counts; /* its counters (NULL: out of memory) */

	uint64_t published;	    /* the sampler thread's (hook), and: */
	struct expo_acc *acc;	    /* the counters' sums (restarted, not reset, by a rebuild) */
	atomic_ullong samples_late; /* read more than half an interval late */
	struct ring *ring;	    /* its own lock */
	atomic_ullong http_errors[HTTP__N];
	atomic_ullong http_refused[REFUSED__N];
	char no_body; /* its address marks a request whose headers are in */
};

/* The latest sample, references taken (cli_sample__release), and its counters when
 * ret_counts is not NULL (a reference: expo_counts_unref): false before the first. */
bool server_latest(struct server *sv, struct cli_sample *ret, struct expo_counts **ret_counts);
/* How long ago the latest sample was published; UINT64_MAX before the first. */
uint64_t server_sample_age_ns(struct server *sv);
/* smp's exposition (its counters c) in format f, kept in sv->render[f] (unless it is
 * there already); under sv->lock. 0, -ENOMEM. */
int server_render(struct server *sv, enum expo_format f, const struct cli_sample *smp,
		  const struct expo_counts *c);
/* What the health series of smp's exposition say (under sv->lock): the one place they are
 * gathered, for /metrics and remote write alike. */
void server_health(struct server *sv, const struct cli_sample *smp, struct expo_health *ret);

/*
 * The HTTP front (http.c): one libmicrohttpd daemon and the web
 * configuration it answers with. http_start takes web over; -EINVAL (a TLS
 * file, said) or -EADDRINUSE. http_renew starts a daemon with a new web
 * configuration on the old one's listening socket, then stops the old
 * one: no connection is refused meanwhile; on failure the old one goes on
 * (and web is freed).
 */
struct http;
int http_start(struct server *sv, const struct sockaddr_storage *addr, struct webcfg *web,
	       struct http **ret);
int http_renew(struct http **h, struct webcfg *web);
void http_stop(struct http *h);
/* Where h listens, as a URL's start: "https://127.0.0.1:9811" (the bound port, the scheme
 * its web configuration says). 0 or -errno. */
int http_url(const struct http *h, char *buf, size_t size);

/*
 * The HTTP front door (front.c): follows every connection through
 * libmicrohttpd's notifications, closes those that send no whole request
 * in time or are too many at once, counts error answers and refusals into
 * sv, and says libmicrohttpd's log lines at most once a minute per kind.
 * front_started's socket context is the connection's slot for the others.
 */
struct front;
struct MHD_Connection;
int front_new(struct server *sv, struct front **ret);
void front_free(struct front *f);
void front_started(struct front *f, struct MHD_Connection *c, void **socket_context);
void front_request(struct front *f, void *slot);  /* its headers are in */
void front_answered(struct front *f, void *slot); /* it waits for the next request */
void front_closed(struct front *f, void *slot);
void front_count_code(struct front *f, unsigned code);
void front_log(void *cls, const char *fmt, va_list ap); /* MHD_OPTION_EXTERNAL_LOGGER's */

#endif
