// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve's front door (docs/serve.md, "The front door"): the bounds
 * libmicrohttpd does not keep. Its own are an inactivity timeout, which a
 * client sending a byte every few seconds never meets, and connection
 * limits that refuse the newest connection while the oldest hold every
 * slot: slow clients kept every scrape out. So the front follows each
 * connection through libmicrohttpd's notifications (accepted, a request's
 * headers in, an answer done, closed) and closes what overstays: a
 * connection with no whole request (TLS handshake and headers) 5 s after
 * its accept, or 10 s after its last answer; and, when too many wait at
 * once, the oldest waiting one of the address that has the most (victim says
 * when the newest goes instead). Closing
 * is shutdown(2) of the socket, under the lock the closed notification
 * takes, so the descriptor is still that connection's; libmicrohttpd then
 * sees the end of its stream and frees the connection as any other.
 *
 * It also counts the answers libmicrohttpd makes itself (400, 414, 431,
 * 505: its log line names the code) and says each kind of log line at most
 * once a minute, with how many there were: a client must not choose how
 * much goes to the journal.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "mhd.h"
#include "server.h"
#include "cli-global.h"

#define SLOTS 1024		/* two daemons' (a reload's) MHD_LIMIT each */
#define HEADER_NS 5000000000ull /* a first request's TLS handshake and headers, from accept */
#define IDLE_NS 10000000000ull	/* the next request's headers, from the last answer */
#define WAITING_PER_ADDRESS 64	/* connections of one address with no whole request */
#define WAITING 128		/* the same, of all addresses */
#define CONNECTIONS 256		/* all, whatever their state */
#define SLOW_NS 1000000000ull	/* waited this long without a whole request: slow */
#define LOG_NS 60000000000ull	/* a kind of log line: at most once per minute */
#define KINDS 32

struct slot {
	struct MHD_Connection *c; /* NULL: free */
	int fd;
	unsigned char addr[16]; /* IPv4 (4 bytes) or an IPv6 /64 (8): what limits count by */
	unsigned char addr_len;
	bool waiting; /* for a whole request: TLS handshake, headers */
	bool served;  /* answered a request before: kept alive for the next */
	bool closing; /* shut down here: on its way out, counted nowhere */
	uint64_t since_ns;
};

/* A tally of connections by address (victim). */
struct tally {
	const struct slot *at;
	size_t n;
};

struct kind {
	const void *key; /* the format's address: one per kind of line */
	uint64_t last_ns;
	uint64_t more; /* lines since the last said */
	char text[192];
};

struct front {
	struct server *sv;
	pthread_mutex_t lock; /* slot, stop */
	pthread_cond_t wake;
	pthread_t thread;
	bool stop, running;
	struct slot slot[SLOTS];
	struct tally tally[SLOTS];
	pthread_mutex_t log_lock; /* kind */
	struct kind kind[KINDS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- one line per kind per minute --------------------------------------------------- */

static void say_now(struct kind *k)
{
	if (k->more)
		cli_info("http: %s (and %llu more like it since the last such line)", k->text,
			 (unsigned long long)k->more);
	else
		cli_info("http: %s", k->text);
	k->more = 0;
}

/* text, of the kind key: said now if its kind was not said for a minute, else counted. */
static void say(struct front *f, const void *key, const char *text)
{
	uint64_t now = now_ns();
	struct kind *k = NULL;

	pthread_mutex_lock(&f->log_lock);
	for (size_t i = 0; i < KINDS && !k; i++)
		if (f->kind[i].key == key || !f->kind[i].key || i == KINDS - 1)
			k = &f->kind[i]; /* the last one takes every kind the others did not */
	k->key = k->key ? k->key : key;
	snprintf(k->text, sizeof(k->text), "%s", text);
	if (!k->last_ns || now - k->last_ns >= LOG_NS) {
		k->last_ns = now;
		say_now(k);
	} else {
		k->more++;
	}
	pthread_mutex_unlock(&f->log_lock);
}

/* The counts of the kinds whose minute is over. */
static void say_counted(struct front *f, uint64_t now)
{
	pthread_mutex_lock(&f->log_lock);
	for (size_t i = 0; i < KINDS; i++) {
		struct kind *k = &f->kind[i];

		if (k->more && now - k->last_ns >= LOG_NS) {
			k->last_ns = now;
			say_now(k);
		}
	}
	pthread_mutex_unlock(&f->log_lock);
}

/* ---- counts ---------------------------------------------------------------------------- */

static const unsigned codes[HTTP__N] = {
	[HTTP_400] = 400, [HTTP_401] = 401, [HTTP_403] = 403, [HTTP_404] = 404,
	[HTTP_405] = 405, [HTTP_413] = 413, [HTTP_414] = 414, [HTTP_431] = 431,
	[HTTP_500] = 500, [HTTP_503] = 503, [HTTP_505] = 505,
};

void front_count_code(struct front *f, unsigned code)
{
	for (size_t i = 0; i < HTTP__N; i++)
		if (codes[i] == code)
			atomic_fetch_add(&f->sv->http_errors[i], 1);
}

static void count_refused(struct front *f, int reason)
{
	static const char *const why[REFUSED__N] = {
		[REFUSED_HEADER_TIMEOUT] =
			"closed connections that sent no whole request within 5 s "
			"of their accept (slow or stalled clients)",
		[REFUSED_ADDRESS_LIMIT] = "closed a connection: its address had 64 more waiting for "
					  "a whole request (the oldest goes once it waited 1 s, "
					  "else the newest)",
		[REFUSED_CONNECTION_LIMIT] =
			"closed a connection: too many at once (128 waiting for "
			"a whole request, or 256 in all; the oldest of the "
			"address with the most goes, or the newest when it is of that address)",
	};

	atomic_fetch_add(&f->sv->http_refused[reason], 1);
	say(f, why[reason], why[reason]);
}

/* ---- the connections ------------------------------------------------------------------- */

/* The address limits count by: IPv4 (also mapped into IPv6), or an IPv6 address's /64
 * (one host's share: a machine may have every address of its /64). */
static void address_key(const struct sockaddr *sa, struct slot *s)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	s->addr_len = 0;
	if (sa && sa->sa_family == AF_INET) {
		memcpy(s->addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		s->addr_len = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		const unsigned char *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		if (!memcmp(a, mapped, sizeof(mapped))) {
			memcpy(s->addr, a + 12, 4);
			s->addr_len = 4;
		} else {
			memcpy(s->addr, a, 8);
			s->addr_len = 8;
		}
	}
}

static bool same_address(const struct slot *a, const struct slot *b)
{
	return a->addr_len == b->addr_len && !memcmp(a->addr, b->addr, a->addr_len);
}

/* Shut s's socket: libmicrohttpd reads its end and closes it. Under f->lock. */
static void close_slot(struct front *f, struct slot *s, int reason)
{
	(void)shutdown(s->fd, SHUT_RDWR);
	s->closing = true;
	if (reason >= 0)
		count_refused(f, reason);
}

/* Of the live connections (waiting ones only, if waiting), how many are at like's address
 * (all, when like is NULL). */
static size_t count(const struct front *f, const struct slot *like, bool waiting)
{
	size_t n = 0;

	for (size_t i = 0; i < SLOTS; i++) {
		const struct slot *s = &f->slot[i];

		if (s->c && !s->closing && (!waiting || s->waiting) &&
		    (!like || same_address(s, like)))
			n++;
	}
	return n;
}

/* Which goes first: one kept alive after its answer (its client may well have gone, and
 * reconnects if not), then one that waits for its first request, then one being answered. */
static int rank(const struct slot *s)
{
	return s->waiting ? s->served ? 2 : 1 : 0;
}

/*
 * The connection to close when too many are open, nw having just come. Per address
 * (mine): of nw's address, the first by rank, the one that has waited longest among
 * equals, if it is slow (waited SLOW_NS without a whole request; else nw itself: a burst
 * is refused at its accept, before any TLS work, rather than churn its own address's
 * connections). In all: of the address with the most (waiting ones only, if waiting),
 * the same first; nw itself when nw's address is one with the most, so a newcomer from
 * an address with fewer always gets in. Under f->lock.
 */
static struct slot *victim(struct front *f, struct slot *nw, bool mine, bool waiting)
{
	const struct slot *at = nw;
	struct slot *best = NULL;
	size_t d = 0, most = 0, own = 0;

	for (size_t i = 0; i < SLOTS && !mine; i++) {
		const struct slot *s = &f->slot[i];
		size_t j = 0;

		if (!s->c || s->closing || (waiting && !s->waiting))
			continue;
		while (j < d && !same_address(f->tally[j].at, s))
			j++;
		if (j == d)
			f->tally[d++] = (struct tally){ .at = s };
		if (++f->tally[j].n > most) {
			most = f->tally[j].n;
			at = f->tally[j].at;
		}
		if (same_address(s, nw))
			own++;
	}
	if (!mine && own >= most)
		return nw;
	for (size_t i = 0; i < SLOTS; i++) {
		struct slot *s = &f->slot[i];

		if (!s->c || s->closing || s == nw || (waiting && !s->waiting) ||
		    !same_address(s, at))
			continue;
		if (!best || rank(s) > rank(best) ||
		    (rank(s) == rank(best) && s->since_ns < best->since_ns))
			best = s;
	}
	if (mine && best && rank(best) == 1 && nw->since_ns - best->since_ns < SLOW_NS)
		return nw;
	return best ? best : nw;
}

void front_started(struct front *f, struct MHD_Connection *c, void **socket_context)
{
	const union MHD_ConnectionInfo *fd =
		mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *addr =
		mhd.get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct slot *s = NULL, *v;

	*socket_context = NULL;
	if (!fd)
		return;
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < SLOTS && !s; i++)
		if (!f->slot[i].c)
			s = &f->slot[i];
	if (!s) { /* cannot happen with MHD_LIMIT per daemon: refuse rather than not follow */
		(void)shutdown(fd->connect_fd, SHUT_RDWR);
		count_refused(f, REFUSED_CONNECTION_LIMIT);
		pthread_mutex_unlock(&f->lock);
		return;
	}
	*s = (struct slot){ .c = c, .fd = fd->connect_fd, .waiting = true, .since_ns = now_ns() };
	address_key(addr ? addr->client_addr : NULL, s);
	*socket_context = s;
	/* each bound closes one (nw itself, or an older one: victim), and nw only once */
	if (count(f, s, true) > WAITING_PER_ADDRESS && (v = victim(f, s, true, true)))
		close_slot(f, v, v->served ? -1 : REFUSED_ADDRESS_LIMIT);
	if (!s->closing && count(f, NULL, true) > WAITING && (v = victim(f, s, false, true)))
		close_slot(f, v, v->served ? -1 : REFUSED_CONNECTION_LIMIT);
	if (!s->closing && count(f, NULL, false) > CONNECTIONS && (v = victim(f, s, false, false)))
		close_slot(f, v, v->served ? -1 : REFUSED_CONNECTION_LIMIT);
	pthread_mutex_unlock(&f->lock);
}

void front_request(struct front *f, void *slot)
{
	struct slot *s = slot;

	if (!s)
		return;
	pthread_mutex_lock(&f->lock);
	s->waiting = false;
	pthread_mutex_unlock(&f->lock);
}

void front_answered(struct front *f, void *slot)
{
	struct slot *s = slot;

	if (!s)
		return;
	pthread_mutex_lock(&f->lock);
	s->waiting = true;
	s->served = true;
	s->since_ns = now_ns();
	pthread_mutex_unlock(&f->lock);
}

void front_closed(struct front *f, void *slot)
{
	struct slot *s = slot;

	if (!s)
		return;
	pthread_mutex_lock(&f->lock);
	*s = (struct slot){ 0 };
	pthread_mutex_unlock(&f->lock);
}

/* The connections past their deadline, closed; the next deadline (or in a second). */
static uint64_t expire(struct front *f, uint64_t now)
{
	uint64_t next = now + 1000000000u;

	for (size_t i = 0; i < SLOTS; i++) {
		struct slot *s = &f->slot[i];
		uint64_t deadline;

		if (!s->c || s->closing || !s->waiting)
			continue;
		deadline = s->since_ns + (s->served ? IDLE_NS : HEADER_NS);
		if (now >= deadline)
			/* a kept-alive connection's end is no refusal: its client reconnects */
			close_slot(f, s, s->served ? -1 : REFUSED_HEADER_TIMEOUT);
		else if (deadline < next)
			next = deadline;
	}
	return next;
}

static void *watch(void *arg)
{
	struct front *f = arg;

	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		uint64_t now = now_ns(), next = expire(f, now);
		struct timespec at;

		pthread_mutex_unlock(&f->lock);
		say_counted(f, now);
		pthread_mutex_lock(&f->lock);
		clock_gettime(CLOCK_MONOTONIC, &at); /* the condition's clock (front_new) */
		next -= now;
		at.tv_sec += (time_t)(next / 1000000000u);
		at.tv_nsec += (long)(next % 1000000000u);
		if (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		if (!f->stop)
			pthread_cond_timedwait(&f->wake, &f->lock, &at);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* ---- libmicrohttpd's log ------------------------------------------------------------- */

void front_log(void *cls, const char *fmt, va_list ap)
{
	static const char code_fmt[] = "Error processing request (HTTP response code is %u";
	struct front *f = cls;
	char text[192];
	size_t n;
	va_list copy;

	if (!strncmp(fmt, code_fmt, sizeof(code_fmt) - 1)) {
		/* an answer it made itself: said by code (its text is an HTML page) */
		unsigned code;
		const void *key = fmt;

		va_copy(copy, ap);
		code = va_arg(copy, unsigned);
		va_end(copy);
		front_count_code(f, code);
		for (size_t i = 0; i < HTTP__N; i++)
			if (codes[i] == code)
				key = &codes[i];
		snprintf(text, sizeof(text), "answered %u to a request it could not take (%s)",
			 code,
			 code == 400 ? "malformed" :
			 code == 413 ? "too large" :
			 code == 414 ? "its path too long" :
			 code == 431 ? "its headers too large" :
			 code == 505 ? "not HTTP/1.0 or 1.1" :
				       "libmicrohttpd's own answer");
		say(f, key, text);
		return;
	}
	if (strstr(fmt, "reached connection limit")) {
		atomic_fetch_add(&f->sv->http_refused[REFUSED_CONNECTION_LIMIT], 1);
	}
	vsnprintf(text, sizeof(text), fmt, ap);
	n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	say(f, fmt, text);
}

/* ---- its life ------------------------------------------------------------------------ */

int front_new(struct server *sv, struct front **ret)
{
	struct front *f = calloc(1, sizeof(*f));
	pthread_condattr_t ca;
	int r;

	if (!f)
		return -ENOMEM;
	f->sv = sv;
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->log_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->wake, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&f->thread, NULL, watch, f);
	if (r) {
		front_free(f);
		return -r;
	}
	f->running = true;
	*ret = f;
	return 0;
}

void front_free(struct front *f)
{
	if (!f)
		return;
	if (f->running) {
		pthread_mutex_lock(&f->lock);
		f->stop = true;
		pthread_cond_signal(&f->wake);
		pthread_mutex_unlock(&f->lock);
		pthread_join(f->thread, NULL);
		say_counted(f, now_ns() + LOG_NS); /* what is counted and not said yet */
	}
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->log_lock);
	free(f);
}
