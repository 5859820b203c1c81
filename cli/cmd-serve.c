// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon serve: a Prometheus exporter. A sampler thread counts on its own
 * clock (cli/sampler.c) and publishes immutable snapshots; libmicrohttpd's
 * threads (cli/serve/http.c) answer scrapes from the latest one and never
 * touch the counters, so a slow client never delays a sample and a sample
 * never waits for a client. This file is the main thread: it builds the
 * counting, and builds it again on SIGHUP (--config and --web.config.file
 * read again, the machine looked at again), when a lost device comes back,
 * and when a reload's places are too many for --max-series. SIGTERM or
 * Ctrl-C end it with every counter put back, as stat does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-commands.h"
#include "cli-live.h"
#include "cli-sampler.h"
#include "cli-values.h"
#include "cli-signals.h"
#include "util.h"
#include "config.h"
#include "serve/rw.h"
#include "serve/server.h"
#include "store/store.h"

#define NS_PER_MS 1000000ull
#define SERVE_PORT 9811 /* docs/serve.md: why this one */
#define SERVE_MAX_SERIES 20000

struct serve_args {
	struct cli_count count;
	struct cli_live_args live;
	const char *listen;
	unsigned long max_series;
	const char *store;	  /* --store FILE.db */
	double store_max_age_s;	  /* --store.max-age (0: keep) */
	uint64_t store_max_bytes; /* --store.max-size (0: no limit) */
	const char *web_config;	  /* --web.config.file FILE */
	const char *config;	  /* --config FILE */
	struct serve_args_rw rw;  /* --remote-write URL..., its file and queue */
	struct serve_config file; /* its options: count and live point into them */
	/* the command line alone: the codes of the options it gave (cli_getopt's), so that
	 * the file's value of one of them is passed over (the command line wins) */
	int given[64];
	size_t n_given;
};

/* The main thread's: what counts now, and how to build it again. */
struct run {
	struct server sv;
	struct serve_args cmdline; /* the command line alone: every reload starts from it */
	struct serve_args *a;	   /* the command line and the file, counting now */
	struct cli_live lv;
	struct cli_sampler *sp;
	struct http *http;
	struct sockaddr_storage addr; /* where http listens */
	sigset_t ending;
	int hup[2];	    /* SIGHUP's self-pipe */
	uint64_t built_seq; /* sv.published when the counting was (re)built */
	bool checked;	    /* its first sample was checked against --max-series */
	bool started;	    /* serving: past the first check, READY sent */
	long series_before; /* a coarsening's series count before it, or 0 */
};

static void usage(FILE *f)
{
	fputs("usage: pmumon serve [OPTIONS]\n"
	      "\n"
	      "Counts the machine on its own clock and serves the counts to Prometheus:\n"
	      "raw events as counters (pmumon_event_total), the packs' metrics as gauges in\n"
	      "base units, and how far to trust each value (running ratio, quality flags,\n"
	      "devices up). docs/serve.md lists every series. Runs until SIGTERM or\n"
	      "Ctrl-C, then puts every counter back. SIGHUP reads --config and\n"
	      "--web.config.file again and looks at the machine again; a device that\n"
	      "went away is counted again when it comes back.\n"
	      "\n"
	      "What to count (default: the metrics the platform pack's screen names, as\n"
	      "pmumon top shows them, and the events they read, per device):\n",
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
	      "      --max-series N    refuse to start with more series than N (20000); after\n"
	      "                        a reload, count coarser places instead (counted in\n"
	      "                        pmumon_series_dropped_total)\n"
	      "      --config FILE     more options, one per line (metrics = NAME,...;\n"
	      "                        per-channel; define = channel_peak=25.6e9), read\n"
	      "                        after the command line's, and again on SIGHUP: a bad\n"
	      "                        file keeps what runs (docs/serve.md)\n"
	      "      --web.config.file FILE  TLS and basic authentication, in the format\n"
	      "                        every Prometheus exporter reads (docs/serve.md)\n"
	      "      --store FILE.db   also record every interval there (pmumon record's\n"
	      "                        format; a slow disk drops intervals, counted, and\n"
	      "                        never delays a sample)\n"
	      "      --store.max-age SECONDS, --store.max-size BYTES[k|M|G]  drop the\n"
	      "                        recording's oldest intervals past these (as record's\n"
	      "                        --max-age, --max-size)\n"
	      "      --remote-write URL  also push every sample there with Prometheus remote\n"
	      "                        write 1.0 (repeatable; Prometheus, Thanos, Mimir...)\n"
	      "      --remote-write.config FILE  the targets' credentials, TLS and queues, in\n"
	      "                        Prometheus's remote_write format (docs/deploy.md)\n"
	      "      --remote-write.queue N  samples each target keeps while it cannot send\n"
	      "                        (100000); past that the oldest are dropped, counted\n"
	      "A value given on the command line and in --config: the command line's wins.\n",
	      f);
	cli_count__usage_show(f, "one row per PMU instance (--per-device)");
	fputs("\n"
	      "Endpoints: /metrics (Prometheus text 0.0.4 or OpenMetrics 1.0.0, as the\n"
	      "Accept header asks; gzip when accepted), /healthz (200 while the last\n"
	      "sample is younger than 3 intervals), /api/v1/snapshot (the last interval\n"
	      "as stat -j's JSON Lines), /api/v1/range (the live page's memory), / (the\n"
	      "live page). GET and HEAD only.\n"
	      "\n"
	      "Examples:\n"
	      "  pmumon serve\n"
	      "  pmumon serve -M ddr_read_bandwidth.all,ddr_write_bandwidth.all -I 5000\n"
	      "  pmumon serve --listen 0.0.0.0:9811 --per-channel\n"
	      "  pmumon serve --config /etc/pmumon/serve.conf   # then: kill -HUP <pid>\n",
	      f);
}

enum {
	OPT_LISTEN = 2000,
	OPT_MAX_SERIES,
	OPT_STORE,
	OPT_WEB_CONFIG,
	OPT_CONFIG,
	OPT_STORE_MAX_AGE,
	OPT_STORE_MAX_SIZE,
	OPT_RW,
	OPT_RW_CONFIG,
	OPT_RW_QUEUE,
};

static const struct option serve_options[] = {
	CLI_EVENT_OPTIONS,
	CLI_COUNT_OPTIONS,
	CLI_LIVE_OPTIONS,
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "max-series", required_argument, NULL, OPT_MAX_SERIES },
	{ "store", required_argument, NULL, OPT_STORE },
	{ "web.config.file", required_argument, NULL, OPT_WEB_CONFIG },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "store.max-age", required_argument, NULL, OPT_STORE_MAX_AGE },
	{ "store.max-size", required_argument, NULL, OPT_STORE_MAX_SIZE },
	{ "remote-write", required_argument, NULL, OPT_RW },
	{ "remote-write.config", required_argument, NULL, OPT_RW_CONFIG },
	{ "remote-write.queue", required_argument, NULL, OPT_RW_QUEUE },
	CLI_GLOBAL_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* What a --config file may not hold: fixed for the process, or not serve's to change. */
static const char *const not_in_file[] = {
	"config",	   "help", "root", "sim", "events-dir", "verbose", "output",
	"field-separator", "json",
};

/* The options that add up when given again (the command line's and the file's both count). */
static bool repeatable(int c)
{
	static const int codes[] = { 'e',   'M', 'g', CLI_OPT_DEFINE, 'G', CLI_OPT_FOR_EACH_CGROUP,
				     OPT_RW };

	for (size_t i = 0; i < PM_ARRAY_SIZE(codes); i++)
		if (codes[i] == c)
			return true;
	return false;
}

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
	case OPT_CONFIG:
		a->config = val;
		return 0;
	case OPT_STORE_MAX_AGE:
		if (pm_parse_double_str(val, &a->store_max_age_s) < 0 ||
		    !(a->store_max_age_s > 0)) {
			cli_error("--store.max-age wants seconds above 0, not '%s'", val);
			return -EINVAL;
		}
		return 0;
	case OPT_STORE_MAX_SIZE:
		return cli_parse_size("--store.max-size", val, &a->store_max_bytes);
	case OPT_RW:
		for (size_t i = 0; i < a->rw.n_url; i++)
			if (!strcmp(a->rw.url[i], val)) {
				cli_error("--remote-write %s is given twice", val);
				return -EINVAL;
			}
		if (a->rw.n_url == RW_MAX_URLS) {
			cli_error("more than %d --remote-write targets", RW_MAX_URLS);
			return -EINVAL;
		}
		a->rw.url[a->rw.n_url++] = val;
		return 0;
	case OPT_RW_CONFIG:
		a->rw.config = val;
		return 0;
	case OPT_RW_QUEUE:
		if (cli_parse_uint("--remote-write.queue", val, 100000000, &a->rw.queue) < 0)
			return -EINVAL;
		if (!a->rw.queue) {
			cli_error("--remote-write.queue wants 1 sample or more, not 0");
			return -EINVAL;
		}
		return 0;
	case OPT_MAX_SERIES:
		return cli_parse_uint("--max-series", val, 10000000, &a->max_series) < 0 ? -EINVAL :
											   0;
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

static const struct cli_command_options serve_co = { "serve",
						     CLI_EVENT_SHORT CLI_COUNT_SHORT CLI_LIVE_SHORT
						     "vh",
						     serve_options, usage, serve_option };

/* The codes of the options the command line gave (it parsed already): 0, -EINVAL. */
static int given_options(int argc, char **argv, struct serve_args *a)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int c, saved = opterr;

	if (!copy) {
		cli_error("out of memory");
		return -EINVAL;
	}
	memcpy(copy, argv, (size_t)argc * sizeof(*copy)); /* getopt permutes what it reads */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, copy, serve_co.shortopts, serve_options, NULL)) != -1)
		if (a->n_given < PM_ARRAY_SIZE(a->given))
			a->given[a->n_given++] = c;
	opterr = saved;
	free(copy);
	return 0;
}

/* The command line: 0, 1 for --help, -EINVAL (said). */
static int parse_cmdline(int argc, char **argv, struct serve_args *a)
{
	int r;

	a->listen = "127.0.0.1:9811";
	a->max_series = SERVE_MAX_SERIES;
	a->live.interval_ms = 1000;
	/* a default this machine cannot count would be a series that never has a value */
	a->live.leave_out_unsupported_defaults = true;
	a->rw.queue = RW_QUEUE_DEFAULT;
	/* a place is a label, never merged away: a core PMU's rows per socket too */
	a->live.device_per_socket = true;
	r = cli_getopt(argc, argv, &serve_co, &a->count, &a->live, a);
	if (r)
		return r;
	if (optind < argc) {
		cli_error("serve takes no command ('%s'): it counts the whole machine until SIGTERM",
			  argv[optind]);
		return -EINVAL;
	}
	return given_options(argc, argv, a);
}

/* The options a --config file may hold: serve's, less not_in_file. */
static const struct option *file_options(void)
{
	static struct option allowed[PM_ARRAY_SIZE(serve_options)];
	size_t n = 0;

	if (allowed[0].name)
		return allowed;
	for (const struct option *o = serve_options; o->name; o++) {
		bool fixed = false;

		for (size_t i = 0; i < PM_ARRAY_SIZE(not_in_file) && !fixed; i++)
			fixed = !strcmp(o->name, not_in_file[i]);
		if (!fixed)
			allowed[n++] = *o;
	}
	return allowed;
}

/* A file's "--name[=value]" that the command line gave a value of already: its option. */
static const struct option *passed_over(const struct serve_args *a, const char *arg)
{
	size_t n = strcspn(arg + 2, "=");

	for (const struct option *o = serve_options; o->name; o++) {
		if (strlen(o->name) != n || strncmp(o->name, arg + 2, n))
			continue;
		if (o->has_arg != required_argument || repeatable(o->val))
			return NULL;
		for (size_t i = 0; i < a->n_given; i++)
			if (a->given[i] == o->val)
				return o;
		return NULL;
	}
	return NULL;
}

/* That the command line's value wins over the file's: said once for each option. */
static void said_over(const struct option *o, const char *path, unsigned line)
{
	static bool said[PM_ARRAY_SIZE(serve_options)];
	size_t i = (size_t)(o - serve_options);

	if (said[i])
		return;
	said[i] = true;
	cli_info("%s:%u: '%s' is given on the command line too: the command line's value wins",
		 path, line, o->name);
}

/* --config's options read into a (after the command line's): 0 or -EINVAL (said). */
static int read_config(struct serve_args *a)
{
	char *text = NULL, err[512], **argv;
	unsigned *line;
	int argc = 1;
	size_t len;
	int r = cli_read_file(a->config, 1u << 20, &text, &len);

	if (r < 0) {
		cli_error("cannot read the options file '%s' (--config): %s", a->config,
			  r == -EFBIG ? "over 1 MiB" : strerror(-r));
		return -EINVAL;
	}
	r = serve_config_parse(a->config, text, len, file_options(), &a->file, err, sizeof(err));
	free(text);
	if (r < 0) {
		cli_error("%s", r == -EINVAL ? err : "out of memory");
		return -EINVAL;
	}
	argv = calloc(a->file.argc + 2, sizeof(*argv));
	line = calloc(a->file.argc + 1, sizeof(*line));
	if (!argv || !line) {
		free(argv);
		free(line);
		cli_error("out of memory");
		return -EINVAL;
	}
	argv[0] = (char *)"serve";
	for (size_t i = 0, n = 0; i < a->file.argc; i++) {
		const struct option *o = passed_over(a, a->file.argv[i]);

		if (o) {
			said_over(o, a->config, a->file.line[i]);
			continue;
		}
		argv[n + 1] = a->file.argv[i];
		line[n++] = a->file.line[i];
		argc = (int)n + 1;
	}
	optind = 0; /* glibc: start a new scan */
	r = cli_getopt(argc, argv, &serve_co, &a->count, &a->live, a);
	if (r < 0 && optind >= 2 && argc > 1)
		cli_error("(that is %s:%u)", a->config, line[PM_MIN(optind - 2, argc - 2)]);
	free(argv);
	free(line);
	return r < 0 ? -EINVAL : 0;
}

/* Checks of the whole: 0 or -EINVAL (said). */
static int check_args(struct serve_args *a)
{
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
	if (cli_count__check(&a->count) < 0 || cli_live__check(&a->live) < 0 ||
	    cli_count__table_only(&a->count, "serve") < 0)
		return -EINVAL;
	return 0;
}

static void free_args(struct serve_args *a)
{
	if (!a)
		return;
	serve_config_free(&a->file);
	free(a);
}

/* The command line's options, then the file's (read now): NULL after saying why. */
static struct serve_args *load_args(const struct serve_args *cmdline)
{
	struct serve_args *a = malloc(sizeof(*a));

	if (!a) {
		cli_error("out of memory");
		return NULL;
	}
	*a = *cmdline;
	if ((a->config && read_config(a) < 0) || check_args(a) < 0) {
		free_args(a);
		return NULL;
	}
	return a;
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

/* A web configuration file, read and checked: 0 or -EINVAL (said). */
static int load_web_config(const char *path, struct webcfg *ret)
{
	char *text = NULL, err[512];
	size_t len;
	int r;

	*ret = (struct webcfg){ 0 };
	if (!path)
		return 0;
	r = cli_read_file(path, 1u << 20, &text, &len);
	if (r < 0) {
		cli_error("cannot read the web configuration '%s': %s", path, strerror(-r));
		return -EINVAL;
	}
	r = webcfg_parse(path, text, len, ret, err, sizeof(err));
	free(text);
	if (r < 0)
		cli_error("%s", r == -EINVAL ? err : "out of memory");
	return r < 0 ? -EINVAL : 0;
}

/* Why the HTTP front could not start on listen (http_start's r); a TLS file: said already. */
static void say_listen(const char *listen, int r)
{
	if (r == -EINVAL)
		return;
	cli_error("cannot listen on %s (--listen): %s", listen,
		  r == -EADDRINUSE    ? "another program listens there (ss -ltnp shows which)" :
		  r == -EACCES	      ? "a port below 1024 needs root or CAP_NET_BIND_SERVICE; "
					"take a higher one (pmumon's default is 9811)" :
		  r == -EADDRNOTAVAIL ? "not an address of this machine (ip -br addr lists them)" :
					strerror(-r));
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	size_t n = a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					      sizeof(struct sockaddr_in);

	return a->ss_family == b->ss_family && !memcmp(a, b, n);
}

static uint16_t port_of(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)a)->sin6_port :
						((const struct sockaddr_in *)a)->sin_port);
}

/*
 * SIGHUP's HTTP front for next: the new web configuration on the same
 * socket, or, when listen changed, a new socket bound before the old one
 * closes. On the same port (127.0.0.1:9811 to 0.0.0.0:9811) the two
 * cannot both be bound: the old one closes first, and is bound again when
 * the new one cannot be. cur: the options the front has now (rn->a, or the
 * refused ones when it goes back to rn->a's). 0, or -errno when the front is
 * as it was (said).
 */
static int front_renew(struct run *rn, const struct serve_args *next, const struct serve_args *cur,
		       const struct sockaddr_storage *addr, struct webcfg *web)
{
	struct webcfg again = { 0 };
	struct http *h = NULL;
	int r;

	if (same_addr(addr, &rn->addr))
		return http_renew(&rn->http, web);
	r = http_start(&rn->sv, addr, web, &h);
	if (r == -EADDRINUSE && port_of(addr) == port_of(&rn->addr)) {
		http_stop(rn->http);
		rn->http = NULL;
		if (load_web_config(next->web_config, web) < 0) /* http_start took it */
			r = -EINVAL;
		else
			r = http_start(&rn->sv, addr, web, &h);
		if (r < 0 && load_web_config(cur->web_config, &again) == 0 &&
		    http_start(&rn->sv, &rn->addr, &again, &rn->http) < 0) {
			say_listen(next->listen, r);
			cli_error("cannot listen on %s again either: serve stops", cur->listen);
			return -EIO;
		}
	}
	if (r < 0) {
		say_listen(next->listen, r);
		return r;
	}
	cli_info("listening on %s now (was %s)", next->listen, cur->listen);
	http_stop(rn->http);
	rn->http = h;
	rn->addr = *addr;
	return 0;
}

/* The remote write targets of a: --remote-write.config's entries and each --remote-write
 * URL (a URL in both takes the file's settings). 0 or -EINVAL (said). */
static int load_rw(const struct serve_args *a, struct rwcfg *ret)
{
	char *text = NULL, err[512];
	size_t len;
	int r = 0;

	*ret = (struct rwcfg){ 0 };
	if (a->rw.config) {
		r = cli_read_file(a->rw.config, 1u << 20, &text, &len);
		if (r < 0) {
			cli_error("cannot read the remote write configuration '%s': %s",
				  a->rw.config, strerror(-r));
			return -EINVAL;
		}
		r = rwcfg_parse(a->rw.config, text, len, ret, err, sizeof(err));
		free(text);
		if (r < 0) {
			cli_error("%s", r == -EINVAL ? err : "out of memory");
			return -EINVAL;
		}
	}
	for (size_t i = 0; r == 0 && i < a->rw.n_url; i++) {
		r = rwcfg_add_url(ret, a->rw.url[i]);
		if (r == -EINVAL)
			cli_error("--remote-write wants http://HOST[:PORT]/PATH or https://..., not "
				  "'%s'",
				  a->rw.url[i]);
		else if (r < 0)
			cli_error("out of memory");
	}
	if (r < 0)
		rwcfg_free(ret);
	return r < 0 ? -EINVAL : 0;
}

/* a's remote write targets, pushing from now on (the sampler stopped): 0, or -errno with
 * the targets as they were (said). */
static int apply_rw(struct run *rn, const struct serve_args *a)
{
	struct rwcfg cfg;
	char host[256] = "", instance[300];
	int r = load_rw(a, &cfg);

	if (r < 0)
		return r;
	if (!rn->sv.rw && cfg.n) {
		gethostname(host, sizeof(host) - 1);
		snprintf(instance, sizeof(instance), "%s:%u", host[0] ? host : "localhost",
			 (unsigned)port_of(&rn->addr));
		r = rw_new(&rn->sv, instance, &rn->sv.rw);
		if (r < 0)
			cli_error("cannot start remote write: %s", strerror(-r));
	}
	if (r == 0 && rn->sv.rw)
		r = rw_configure(rn->sv.rw, &cfg, a->rw.queue);
	rwcfg_free(&cfg);
	return r;
}

/* ---- counting ---------------------------------------------------------------------- */

/* The sampler's hook: the latest sample (numbered across rebuilds), the page's memory, and
 * --store's queue. It must not block: the locks it takes are held for a swap. */
static void on_sample(void *arg, const struct cli_sample *smp)
{
	struct server *sv = arg;
	struct cli_sample keep = *smp, old;
	struct expo_counts *counts = NULL, *old_counts;

	keep.seq = ++sv->published;
	pm_snapshot__ref(keep.interval);
	pm_snapshot__ref(keep.total);
	/* every interval into the counters, scraped or not (NULL: out of memory, a 503) */
	expo_acc_add(sv->acc, pm_snapshot__report(smp->interval), pm_snapshot__report(smp->total),
		     &sv->meta, &counts);
	if (smp->late_ns > sv->interval_ns / 2)
		atomic_fetch_add(&sv->samples_late, 1);
	pthread_mutex_lock(&sv->latest_lock);
	old = sv->latest;
	old_counts = sv->latest_counts;
	sv->latest = keep;
	sv->latest_counts = counts;
	pthread_mutex_unlock(&sv->latest_lock);
	cli_sample__release(&old);
	expo_counts_unref(old_counts);
	ring_push(sv->ring, smp->interval);
	if (sv->store)
		storeq_hook(sv->store, smp); /* the sampler is stopped while it changes */
	if (sv->rw)
		rw_hook(sv->rw, &keep, counts); /* likewise; numbered as /metrics numbers it */
}

/* Resolved and scheduled on the machine as discovered: every check, nothing changed yet.
 * 0 or the exit status (said). */
static int count_check(struct run *rn, struct serve_args *a)
{
	int r = cli_live__machine(&rn->lv, &a->live, &a->count);
	const struct pm_screen *sc;
	struct cli_count c;

	if (r == 0 && arg_global.sim_virtual_clock) {
		cli_error("the simulated machine's clock is virtual: serve runs on real time; "
			  "add clock=real to --sim");
		return EXIT_USAGE;
	}
	if (r)
		return r;
	/* serve reads every interval: no perf checkpoint between (a wakeup a second) */
	rn->lv.so.checkpoint_ns = a->live.interval_ms * NS_PER_MS;
	/* without -e or -M: the metrics the pack's platform is watched for (its screen:
	 * memory per channel, caches, PCIe) and the events they read; else its defaults */
	c = a->count;
	sc = pm_ctx__screen(rn->lv.ctx);
	if (!c.n_events && !c.n_metrics && sc && sc->metrics) {
		c.metrics[c.n_metrics++] = sc->metrics;
		cli_info("counting the %s pack's screen: %s", pm_ctx__packs(rn->lv.ctx),
			 sc->metrics);
	}
	r = cli_live__events(&rn->lv, &c);
	if (r == 0)
		r = cli_live__session(&rn->lv);
	return r;
}

/* --store's run for a (a new run after each rebuild): 0 or the exit status (said). */
static int open_store(struct run *rn, const struct serve_args *a, struct storeq **ret)
{
	struct store_run run = { .command = "pmumon serve",
				 .version = PMUMON_VERSION,
				 .platform = pm_ctx__packs(rn->lv.ctx),
				 .cpuid = pm_ctx__cpuid(rn->lv.ctx),
				 .sim_platform = arg_global.sim_platform,
				 .simulated = pm_ctx__simulated(rn->lv.ctx),
				 .interval_ms = a->live.interval_ms,
				 .aggr = cli_aggr_name(a->count.aggr) };
	const char *why = "";

	*ret = NULL;
	if (!a->store)
		return 0;
	if (storeq_start(a->store, &run, a->store_max_age_s, a->store_max_bytes, ret, &why) < 0) {
		cli_error("cannot record into '%s' (--store): %s", a->store, why);
		return EXIT_FAIL;
	}
	return 0;
}

/* The counters opened and started, and the sampler on them: 0 or the exit status (said). */
static int count_go(struct run *rn)
{
	int r = cli_live__open(&rn->lv, &rn->ending);

	if (r == 0)
		r = cli_live__enable(&rn->lv);
	if (r)
		return r;
	rn->built_seq = rn->sv.published;
	rn->checked = false;
	r = cli_sampler__start_hooked(&rn->lv, rn->sv.interval_ns, 0, on_sample, &rn->sv, &rn->sp);
	if (r < 0) {
		cli_error("cannot start the sampler thread: %s", strerror(-r));
		return EXIT_FAIL;
	}
	return 0;
}

static void free_names(struct expo_name *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(names[i].metric);
		free(names[i].name);
		free(names[i].labels);
	}
	free(names);
}

/* The packs' platform-neutral metric names, copied (the context's go with a rediscovery);
 * none when out of memory (the metrics keep their own names). */
static struct expo_name *copy_names(struct pm_ctx *ctx, size_t *ret_n)
{
	struct expo_name *names;
	size_t n = 0;

	while (pm_ctx__monitor(ctx, n))
		n++;
	names = calloc(n + 1, sizeof(*names));
	for (size_t i = 0; names && i < n; i++) {
		const struct pm_monitor_name *m = pm_ctx__monitor(ctx, i);

		names[i] = (struct expo_name){ strdup(m->metric), strdup(m->name),
					       strdup(m->labels) };
		if (!names[i].metric || !names[i].name || !names[i].labels) {
			free_names(names, i + 1);
			names = NULL;
		}
	}
	*ret_n = names ? n : 0;
	return names;
}

/* What the HTTP threads read of a counting, for args a (under the lock); a new counting's
 * renders start again: its rows, and what its counters showed, are its own. */
static void server_counting(struct run *rn, const struct serve_args *a, struct storeq *store)
{
	struct server *sv = &rn->sv;
	const char *platform = arg_global.sim_platform ? arg_global.sim_platform :
							 pm_ctx__packs(rn->lv.ctx);
	size_t n_names, n_old;
	struct expo_name *names = copy_names(rn->lv.ctx, &n_names), *old;

	rw_counting(sv->rw); /* what it has of the old counting is walked with the old meta */
	pthread_mutex_lock(&sv->lock);
	old = sv->names;
	n_old = sv->n_names;
	sv->names = names;
	sv->n_names = n_names;
	snprintf(sv->platform, sizeof(sv->platform), "%s", platform ? platform : "");
	sv->meta = (struct expo_meta){ .version = PMUMON_VERSION,
				       .platform = sv->platform,
				       .simulated = pm_ctx__simulated(rn->lv.ctx),
				       .interval_s = (double)a->live.interval_ms / 1e3,
				       .names = sv->names,
				       .n_names = sv->n_names,
				       .channel_peak = cli_count__defined(&a->count,
									  "channel_peak") };
	sv->interval_ns = a->live.interval_ms * NS_PER_MS;
	sv->max_series = a->max_series;
	sv->store_path = a->store;
	expo_acc_restart(sv->acc); /* its series go on where the new rows are the same */
	for (size_t i = 0; i < 2; i++)
		sv->render[i].seq = 0;
	sv->store = store;
	pthread_mutex_unlock(&sv->lock);
	free_names(old, n_old);
	ring_clear(sv->ring);
	ring_set_names(sv->ring, rn->lv.ctx); /* the page's kinds: the packs' names */
}

/* --store's current run taken out (its counts kept for the series) and ended. */
static void end_store(struct run *rn)
{
	struct server *sv = &rn->sv;
	struct storeq_counts c = { 0 };
	struct storeq *sq;

	pthread_mutex_lock(&sv->lock);
	sq = sv->store;
	sv->store = NULL;
	pthread_mutex_unlock(&sv->lock);
	if (!sq)
		return;
	storeq_stop(sq, &c); /* what is queued is written */
	pthread_mutex_lock(&sv->lock);
	sv->stored.written += c.written;
	sv->stored.dropped += c.dropped;
	sv->stored.failed |= c.failed;
	pthread_mutex_unlock(&sv->lock);
}

/* ---- building again ---------------------------------------------------------------- */

/*
 * The counting built again for a (the sampler stopped by the caller): the
 * counters put back, the machine looked at again (devices gone or back),
 * the counters of a opened and started, --store on a new run. 0 or the
 * exit status (said).
 */
static int rebuild(struct run *rn, struct serve_args *a)
{
	struct storeq *store = NULL;
	int r;

	end_store(rn);
	cli_live__close(&rn->lv, true);
	r = pm_ctx__rediscover(rn->lv.ctx);
	if (r < 0) {
		cli_error("cannot look at the machine again: %s", strerror(-r));
		return EXIT_FAIL;
	}
	r = count_check(rn, a);
	if (r == 0)
		r = open_store(rn, a, &store);
	if (r == 0) {
		server_counting(rn, a, store);
		r = count_go(rn);
	}
	return r;
}

/* a's events resolved and scheduled on the machine as it is, beside the session that
 * counts (its sampler stopped): every check, nothing changed. 0 or the exit status. */
static int dry_run(struct run *rn, struct serve_args *a)
{
	struct cli_live tmp = { .ctx = rn->lv.ctx };
	int r = cli_live__machine(&tmp, &a->live, &a->count);

	if (r == 0)
		r = cli_live__events(&tmp, &a->count);
	if (r == 0)
		r = cli_live__session(&tmp);
	cli_live__close(&tmp, true); /* the machine stays rn's */
	return r;
}

/* The stopped sampler started again on the session that counted: 0 or EXIT_FAIL (said). */
static int resume(struct run *rn)
{
	int r;

	rn->lv.next_ns = 0;
	r = cli_sampler__start_hooked(&rn->lv, rn->sv.interval_ns, 0, on_sample, &rn->sv, &rn->sp);
	if (r < 0)
		cli_error("cannot start the sampler thread: %s", strerror(-r));
	return r < 0 ? EXIT_FAIL : 0;
}

/* After a reload whose counting failed: the HTTP front and remote write as rn->a has them
 * again, so that the refused options change nothing (a failure at the counters' open, such
 * as --bpf-counters refused, comes after both took them). 0, or EXIT_FAIL when nothing
 * listens any more (said). */
static int front_back(struct run *rn, const struct serve_args *refused)
{
	struct sockaddr_storage addr;
	struct webcfg web = { 0 };
	int r;

	if (parse_listen(rn->a->listen, &addr) < 0 || load_web_config(rn->a->web_config, &web) < 0)
		return 0; /* said: the front stays as the refused options have it */
	r = front_renew(rn, rn->a, refused, &addr, &web);
	webcfg_free(&web); /* what the front did not take */
	if (r == -EIO)
		return EXIT_FAIL;
	if (apply_rw(rn, rn->a) < 0)
		cli_error("remote write stays as the refused options have it");
	return 0;
}

static void note_reload(struct run *rn, bool ok)
{
	struct expo_reloads *rl = &rn->sv.reloads;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&rn->sv.lock);
	expo_reloads_note(rl, ok, (double)now.tv_sec + (double)now.tv_nsec / 1e9);
	pthread_mutex_unlock(&rn->sv.lock);
}

/*
 * SIGHUP: --config and --web.config.file read again and checked against the
 * machine before anything changes; a refused one leaves everything as it
 * was (said, and counted). Then the HTTP front takes the web configuration
 * and the counting is built again. 0, or the exit status (said) when
 * nothing can count any more.
 */
static int reload(struct run *rn)
{
	struct serve_args *next;
	struct webcfg web = { 0 };
	struct sockaddr_storage addr;
	struct timespec now;
	char state[64];
	bool ok = false;
	int r;

	cli_info("SIGHUP: reading the options again%s%s", rn->cmdline.config ? " from " : "",
		 rn->cmdline.config ? rn->cmdline.config : "");
	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(state, sizeof(state), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)now.tv_sec * 1000000ull +
			 (unsigned long long)now.tv_nsec / 1000);
	notify_send(state); /* systemd's reload protocol (sd_notify(3)) */
	cli_sampler__stop(rn->sp);
	rn->sp = NULL;
	next = load_args(&rn->cmdline);
	if (next && parse_listen(next->listen, &addr) == 0 &&
	    load_web_config(next->web_config, &web) == 0) {
		struct rwcfg rw;

		ok = dry_run(rn, next) == 0 && load_rw(next, &rw) == 0;
		if (ok) {
			rwcfg_free(&rw); /* read: the targets change with the front, below */
			r = front_renew(rn, next, rn->a, &addr, &web);
			if (r == -EIO) {
				webcfg_free(&web);
				free_args(next);
				return EXIT_FAIL; /* nothing listens any more (said) */
			}
			ok = r == 0 && apply_rw(rn, next) == 0;
		}
		webcfg_free(&web); /* what the front did not take */
	}
	if (!ok) {
		note_reload(rn, false);
		cli_error("the new options are refused: serving goes on as before");
		free_args(next);
		r = resume(rn);
	} else {
		r = rebuild(rn, next);
		note_reload(rn, r == 0);
		if (r == 0) {
			free_args(rn->a);
			rn->a = next;
		} else {
			cli_error("counting with the new options failed: back to the ones before");
			cli_sampler__stop(rn->sp);
			rn->sp = NULL;
			r = front_back(rn, next);
			free_args(next);
			if (r)
				return r; /* nothing listens any more (said) */
			r = rebuild(rn, rn->a);
		}
	}
	notify_send("READY=1");
	return r;
}

/* A lost device is there again: the same options, counted on the machine as it is now. */
static int device_back(struct run *rn)
{
	cli_info("a device that went away is back: counting again on every device");
	cli_sampler__stop(rn->sp);
	rn->sp = NULL;
	pthread_mutex_lock(&rn->sv.lock);
	rn->sv.reloads.devices_back++;
	pthread_mutex_unlock(&rn->sv.lock);
	return rebuild(rn, rn->a);
}

/* --attribute-pods: a pod came or went: counted again with the pods there now (a new
 * series for a new pod; a gone pod's series end). */
static int pods_changed(struct run *rn)
{
	cli_info("the kubelet's pods changed: counting their memory traffic again");
	cli_sampler__stop(rn->sp);
	rn->sp = NULL;
	return rebuild(rn, rn->a);
}

/* The next coarser places, for --max-series after a reload; PM_AGGR_FAMILY stays. */
static enum pm_aggr coarser(enum pm_aggr a)
{
	static const enum pm_aggr order[] = { PM_AGGR_CPU,    PM_AGGR_CORE,    PM_AGGR_CACHE,
					      PM_AGGR_DEVICE, PM_AGGR_CHANNEL, PM_AGGR_DIE,
					      PM_AGGR_NODE,   PM_AGGR_SOCKET,  PM_AGGR_FAMILY };

	for (size_t i = 0; i + 1 < PM_ARRAY_SIZE(order); i++)
		if (order[i] == a)
			return order[i + 1];
	return PM_AGGR_FAMILY;
}

/* The series of the counting's first sample, rendered now; -1 before it, -ENOMEM. */
static long first_series(struct run *rn)
{
	struct expo_counts *counts = NULL;
	struct cli_sample smp;
	long n = -1;

	if (server_latest(&rn->sv, &smp, &counts) && smp.seq > rn->built_seq) {
		pthread_mutex_lock(&rn->sv.lock);
		n = server_render(&rn->sv, EXPO_TEXT, &smp, counts);
		if (n == 0)
			n = rn->sv.render[EXPO_TEXT].series;
		pthread_mutex_unlock(&rn->sv.lock);
	}
	cli_sample__release(&smp);
	expo_counts_unref(counts);
	return n;
}

/*
 * A counting's first sample against --max-series: at the start, too many
 * refuse the run; after a reload or a device's return, the places become
 * coarser until they fit, and the series that went are counted. READY=1
 * once the first counting passed. 0 or the exit status (said).
 */
static int check_first(struct run *rn)
{
	long n = rn->checked ? -1 : first_series(rn);
	unsigned long max = rn->a->max_series;

	if (n == -1)
		return 0;
	rn->checked = true;
	if (n < 0) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if ((unsigned long)n > max && !rn->started) {
		cli_error("%ld series, more than %lu (--max-series): count fewer events, or drop a "
			  "--per-* option",
			  n, max);
		return EXIT_FAIL;
	}
	if ((unsigned long)n > max && rn->a->count.aggr != PM_AGGR_FAMILY) {
		if (!rn->series_before)
			rn->series_before = n;
		rn->a->count.aggr = coarser(rn->a->count.aggr);
		cli_error("%ld series, more than %lu (--max-series): counting coarser places", n,
			  max);
		cli_sampler__stop(rn->sp);
		rn->sp = NULL;
		return rebuild(rn, rn->a);
	}
	if (rn->series_before) {
		pthread_mutex_lock(&rn->sv.lock);
		rn->sv.reloads.series_dropped += (uint64_t)(rn->series_before - n);
		pthread_mutex_unlock(&rn->sv.lock);
		rn->series_before = 0;
	}
	if (!rn->started) {
		notify_send("READY=1");
		rn->started = true;
	}
	/* checked: the HTTP side takes the samples from the hook; this thread wakes for
	 * news only (SIGHUP, a device back, the end) and the watchdog */
	cli_sampler__quiet(rn->sp);
	return 0;
}

/* ---- the run ----------------------------------------------------------------------- */

static int hup_fd = -1;

static void on_hup(int sig)
{
	char c = 1;

	(void)sig;
	if (write(hup_fd, &c, 1) < 0) {
		/* full: a reload is asked for already */
	}
}

/* SIGHUP caught into a pipe the main loop reads, blocked in every thread but while the
 * main loop and the sampler wait; the ending signals are every other: 0 or -errno. */
static int catch_hup(struct run *rn)
{
	struct sigaction sa = { .sa_handler = on_hup, .sa_flags = SA_RESTART };
	sigset_t hup;

	if (pipe2(rn->hup, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	hup_fd = rn->hup[1];
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &hup, NULL);
	sigaction(SIGHUP, &sa, NULL);
	cli_signals_ending(&rn->ending);
	sigdelset(&rn->ending, SIGHUP);
	return 0;
}

static bool hup_came(struct run *rn)
{
	char buf[16];
	bool came = false;

	while (read(rn->hup[0], buf, sizeof(buf)) > 0)
		came = true;
	return came;
}

/*
 * Until the sampler ends (a signal, a failure): SIGHUP reloads, a device's
 * return rebuilds, each counting's first sample is checked; WATCHDOG=1
 * every half watchdog period while samples are fresh (a stuck sampler is
 * not vouched for); STOPPING=1 at the end.
 */
static int serve_loop(struct run *rn)
{
	uint64_t wd_usec = notify_watchdog_usec();
	struct timespec wd = { .tv_sec = (time_t)(wd_usec / 2000000),
			       .tv_nsec = (long)(wd_usec / 2 % 1000000) * 1000 };
	sigset_t hup_in;
	int r = 0;

	pthread_sigmask(SIG_SETMASK, NULL, &hup_in);
	sigdelset(&hup_in, SIGHUP);
	while (r == 0 && rn->sp && !cli_sampler__done(rn->sp)) {
		struct pollfd p[2] = { { .fd = cli_sampler__fd(rn->sp), .events = POLLIN },
				       { .fd = rn->hup[0], .events = POLLIN } };

		ppoll(p, 2, wd_usec ? &wd : NULL, &hup_in);
		cli_sampler__ack(rn->sp);
		if (hup_came(rn))
			r = reload(rn);
		else if (cli_sampler__device_back(rn->sp))
			r = device_back(rn);
		else if (cli_sampler__pods_changed(rn->sp))
			r = pods_changed(rn);
		else
			r = check_first(rn);
		if (wd_usec && server_sample_age_ns(&rn->sv) < 3 * rn->sv.interval_ns)
			notify_send("WATCHDOG=1");
	}
	notify_send("STOPPING=1");
	return r;
}

/* Every check, the HTTP front, then the counting: 0 or the exit status (said). */
static int start(struct run *rn, const struct sockaddr_storage *addr, struct webcfg *web)
{
	struct storeq *store = NULL;
	int r = catch_hup(rn);

	if (r == 0)
		r = ring_new(RING_SAMPLES, &rn->sv.ring);
	if (r == 0)
		r = expo_acc_new(&rn->sv.acc);
	if (r < 0) {
		cli_error("cannot set up serving: %s", strerror(-r));
		return EXIT_FAIL;
	}
	r = count_check(rn, rn->a);
	if (r == 0)
		r = open_store(rn, rn->a, &store); /* before any counter is programmed */
	if (r)
		return r;
	server_counting(rn, rn->a, store);
	r = http_start(&rn->sv, addr, web, &rn->http);
	if (r < 0) {
		say_listen(rn->a->listen, r);
		return EXIT_FAIL;
	}
	rn->addr = *addr;
	if (apply_rw(rn, rn->a) < 0)
		return EXIT_FAIL;
	return count_go(rn);
}

static void finish(struct run *rn)
{
	struct server *sv = &rn->sv;

	http_stop(rn->http); /* no scrape after this: the snapshots can go */
	cli_sampler__stop(rn->sp);
	rw_free(sv->rw); /* stale markers, and what is queued sent (for 5 s at most) */
	sv->rw = NULL;
	end_store(rn); /* what is queued is written */
	ring_free(sv->ring);
	if (rn->lv.s)
		pm_session__disable(rn->lv.s);
	for (size_t i = 0; i < 2; i++) {
		sbuf_free(&sv->render[i].body);
		sbuf_free(&sv->render[i].gz);
	}
	expo_acc_free(sv->acc);
	free_names(sv->names, sv->n_names);
	cli_sample__release(&sv->latest);
	expo_counts_unref(sv->latest_counts);
	for (int i = 0; i < 2; i++)
		if (rn->hup[i] >= 0)
			close(rn->hup[i]);
}

int cmd_serve(int argc, char **argv)
{
	struct run rn = { .sv = { .lock = PTHREAD_MUTEX_INITIALIZER,
				  .latest_lock = PTHREAD_MUTEX_INITIALIZER },
			  .hup = { -1, -1 } };
	struct sockaddr_storage addr;
	struct webcfg web = { 0 };
	int ret;

	ret = parse_cmdline(argc, argv, &rn.cmdline);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	rn.a = load_args(&rn.cmdline);
	if (!rn.a || parse_listen(rn.a->listen, &addr) < 0 ||
	    load_web_config(rn.a->web_config, &web) < 0) {
		free_args(rn.a);
		return EXIT_USAGE;
	}
	ret = start(&rn, &addr, &web);
	if (ret == 0) {
		char url[96];

		if (http_url(rn.http, url, sizeof(url)) < 0) /* the bound port, not --listen's 0 */
			snprintf(url, sizeof(url), "http://%s", rn.a->listen);
		cli_info("serving on %s/metrics every %lu ms", url, rn.a->live.interval_ms);
		ret = serve_loop(&rn);
	}
	finish(&rn);
	if (ret == 0 && (cli_live__say_lost(&rn.lv) || rn.lv.failed))
		ret = EXIT_FAIL;
	webcfg_free(&web);
	cli_live__free(&rn.lv);
	free_args(rn.a);
	return ret;
}
