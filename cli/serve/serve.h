/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmumon serve's parts that are not HTTP plumbing: the exposition of a
 * sample in the Prometheus text format 0.0.4 and OpenMetrics 1.0.0
 * (expo.c), the choice between them from an Accept header (accept.c), and
 * a growable byte buffer they write into. docs/serve.md lists every family
 * and label.
 */
#ifndef PMUMON_CLI_SERVE_H
#define PMUMON_CLI_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmumon/pmumon.h"

/* A growable buffer; err latches the first failure (-ENOMEM), later writes do nothing. */
struct sbuf {
	char *data;
	size_t len, cap;
	int err;
};
void sbuf_put(struct sbuf *b, const char *s, size_t n);
/* Room for n bytes at the end (NULL: err), which sbuf_commit then adds (n or fewer): a
 * line written in place, without a call per piece. */
char *sbuf_room(struct sbuf *b, size_t n);
void sbuf_commit(struct sbuf *b, size_t n);
void sbuf_puts(struct sbuf *b, const char *s);
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_free(struct sbuf *b);

enum expo_format {
	EXPO_TEXT,	  /* text/plain; version=0.0.4 */
	EXPO_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};
#define EXPO_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define EXPO_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/*
 * The format an Accept header asks for: OpenMetrics when it accepts
 * application/openmetrics-text (version 1.0.0 or none given) with a q
 * higher than text/plain's, the text format otherwise (also for a missing,
 * empty or malformed header: Prometheus's own fallback).
 */
enum expo_format expo_negotiate(const char *accept);
/* Whether an Accept-Encoding header accepts gzip (a q of 0 refuses it). */
bool expo_accepts_gzip(const char *accept_encoding);

/* A pack metric's platform-neutral name (pm_monitor_name), the exposition's copy. */
struct expo_name {
	char *metric, *name, *labels;
};

/* What a sample's exposition says besides its rows. */
struct expo_meta {
	const char *version;  /* pmumon's */
	const char *platform; /* the pack or simulated platform; "" when none */
	bool simulated;
	double interval_s;
	const struct expo_name *names; /* the packs' neutral names of their metrics */
	size_t n_names;
	double channel_peak; /* B/s (--define channel_peak), NAN: none known */
};

/* The rebuilds of the counting since serve started. */
struct expo_reloads {
	uint64_t ok, failed;	 /* SIGHUP: the configuration read again */
	bool last_failed;	 /* the last SIGHUP's configuration was refused */
	double last_ok_s;	 /* wall clock of the last good one (0: none yet) */
	uint64_t devices_back;	 /* rebuilds for a lost device that came back */
	uint64_t series_dropped; /* series --max-series dropped (coarser places) */
};

/* A SIGHUP's reload into rl: ok when its options were taken, at wall clock now_s. */
void expo_reloads_note(struct expo_reloads *rl, bool ok, double now_s);

/* The error answers pmumon_http_errors_total counts, by code, and why the HTTP front
 * closed connections (pmumon_http_refused_total, by reason: docs/serve.md). */
enum {
	HTTP_400,
	HTTP_401,
	HTTP_403,
	HTTP_404,
	HTTP_405,
	HTTP_413,
	HTTP_414,
	HTTP_431,
	HTTP_500,
	HTTP_503,
	HTTP_505,
	HTTP__N
};
enum { REFUSED_HEADER_TIMEOUT, REFUSED_ADDRESS_LIMIT, REFUSED_CONNECTION_LIMIT, REFUSED__N };
struct expo_http {
	uint64_t errors[HTTP__N];     /* by code, as the enum above */
	uint64_t refused[REFUSED__N]; /* by reason, likewise */
};

/* What the sampler and the server counted, for the health series. */
struct expo_health {
	uint64_t samples;	 /* samples published */
	uint64_t samples_late;	 /* of them, read more than half an interval late */
	double read_s;		 /* the last sample's read and snapshot time */
	double late_s;		 /* how late after its deadline the last read started */
	double last_sample_s;	 /* wall clock of the last sample, seconds since the epoch */
	struct expo_http access; /* the HTTP front's counts */
	bool store;		 /* --store: the three below are shown */
	uint64_t store_written, store_dropped;
	bool store_failed;
	struct expo_reloads reloads;
};

/*
 * What each row of a counting is exported as (plan.c), decided on its
 * first sample: its kind, the factor to base units, its labels
 * ('{metric="...",channel="3"' without the closing brace; "" for none),
 * and the families the rows fall in, in the order they are shown. A ratio
 * row is in two families: its numerator's (fam) and its denominator's.
 * Immutable once made; shared by reference between the sampler thread and
 * the HTTP threads.
 */
enum expo_kind {
	EXPO_COUNT,  /* an event's count: pmumon_event_total */
	EXPO_VALUE,  /* an event's current value (.snapshot): pmumon_event_value, a gauge */
	EXPO_RATE,   /* a metric per second: value x interval added */
	EXPO_RATIO,  /* a ratio of counted amounts: numerator and denominator added */
	EXPO_AMOUNT, /* a metric that is an amount of its interval: its values added */
	EXPO_MEAN,   /* anything else: value x interval added, "_seconds_total" */
};
struct expo_plan_row {
	enum expo_kind kind;
	double factor; /* the value (or numerator) times this is in base units */
	char *labels;
	size_t fam; /* its family (a ratio's numerator's) */
};
struct expo_family {
	char *name;
	const char *type; /* "counter" or "gauge" */
	char *help;
	size_t *rows, n_rows; /* the plan's rows it shows, in order */
	bool den;	      /* a ratio's denominator: its rows show their den */
};
struct expo_plan {
	atomic_uint refs;
	struct expo_plan_row *rows;
	size_t n_rows;
	struct expo_family *fams;
	size_t n_fams, cap_fams;
};
int expo_plan_new(const struct pm_report *rep, const struct expo_meta *m, struct expo_plan **ret);
struct expo_plan *expo_plan_ref(struct expo_plan *p);
void expo_plan_unref(struct expo_plan *p);
/* ',name="value"' (or '{name=...' when *first) into b, the value escaped as both formats
 * want: backslash, double quote, newline. */
void expo_put_label(struct sbuf *b, bool *first, const char *name, const char *value);
/* printf's %.15g of a (or %.17g where 15 digits do not read back), for 1 <= a < 1e14 not
 * whole, into num (32 bytes): its length, 0 for another a. */
size_t expo_fmt_fraction(char *num, double a);
/* pmumon_ + name in snake_case + suffix ("DF_CH0_GBps", "_bytes_total"). */
void expo_metric_name(char *buf, size_t size, const char *name, const char *suffix);

/*
 * The counters of one sample (acc.c): per row of its plan, the amount (a
 * ratio's numerator) and a ratio's denominator in base units since serve
 * started, the seconds its counters were enabled and ran, and the seconds
 * of intervals it had no value (uncounted); seen once it had one. Never
 * less than the sample before's for the same series, across rebuilds of
 * the counting. Immutable, shared by reference.
 */
struct expo_count {
	double amount, den;
	uint64_t running_ns, enabled_ns, uncounted_ns;
	bool seen;
};
struct expo_counts {
	atomic_uint refs;
	struct expo_plan *plan;
	size_t n;
	uint64_t held;	     /* times a counter held instead of going down, since serve started */
	uint64_t sampled_ns; /* the intervals' lengths added, by the counting's own clock */
	struct expo_count v[];
};
struct expo_counts *expo_counts_ref(struct expo_counts *c);
void expo_counts_unref(struct expo_counts *c);

/*
 * The counters, kept by series (family and labels) for serve's whole run:
 * the sampler thread hands each sample (its interval and its totals since
 * the counting began: expo_acc_add, 0, -EINVAL when they are not one
 * session's, -ENOMEM) and gets the counts to publish with it: amounts from
 * the totals (a rotated event may have no value in an interval), gaps
 * from the interval. expo_acc_restart: a new counting (a reload, a device
 * back) is coming; its rows are mapped to their series on its first
 * sample, and series it shares with the ones before go on from there.
 */
struct expo_acc;
int expo_acc_new(struct expo_acc **ret);
void expo_acc_free(struct expo_acc *a);
void expo_acc_restart(struct expo_acc *a);
int expo_acc_add(struct expo_acc *a, const struct pm_report *interval,
		 const struct pm_report *total, const struct expo_meta *m,
		 struct expo_counts **ret);

/* What one sample's exposition shows. */
struct expo_sink;
struct expo_sample {
	const struct pm_report *interval; /* the last interval: flags, current values */
	const struct expo_counts *counts;
	const struct expo_meta *meta;
	const struct expo_health *health;
	/* families of another part of serve (remote write's), walked after the exposition's
	 * own to the same sink: it returns the number of series it gave; NULL: none */
	long (*more)(void *arg, const struct expo_sink *k);
	void *more_arg;
};

/*
 * The exposition's families and series, in order, to a sink: the text
 * formats (expo_render) and remote write take them alike. labels as in
 * expo_plan_row (extra: one more label, or NULL). A value in seconds that
 * is a whole number of nanoseconds goes to seconds_ns when the sink has
 * it (the text formats print it exactly, without a float's formatting),
 * else to series. The sample's `more` families come last (before
 * OpenMetrics's "# EOF", which expo_render writes). expo_walk returns the
 * number of series.
 */
struct expo_sink {
	void (*family)(void *ud, const char *name, const char *type, const char *unit,
		       const char *help);
	void (*series)(void *ud, const char *name, const char *labels, const char *extra,
		       const char *extra_value, double v);
	void (*seconds_ns)(void *ud, const char *name, const char *labels, uint64_t ns);
	void *ud;
};
long expo_walk(const struct expo_sample *s, const struct expo_sink *sink);

/*
 * The exposition of one sample into b: every family with HELP and TYPE (and
 * UNIT in OpenMetrics), then "# EOF" in OpenMetrics. Returns the number of
 * series written, or -ENOMEM.
 */
long expo_render(struct sbuf *b, enum expo_format f, const struct expo_sample *s);

/*
 * --web.config.file (webconfig.c): the exporter-toolkit's format, the TLS
 * and basic-auth parts. webcfg_parse: text of path (for messages) into
 * *ret; -EINVAL with "FILE:LINE: why" in err, -ENOMEM. webcfg_check_user:
 * the user is there and the password matches its bcrypt hash.
 */
enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_REQUEST_CLIENT_CERT,
	WEB_REQUIRE_ANY_CLIENT_CERT,
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
};
struct webcfg {
	bool tls;
	char *cert_file, *key_file, *client_ca_file;
	enum web_client_auth client_auth;
	int min_version, max_version; /* 10..13 for TLS 1.0..1.3; 0: not given */
	struct {
		char *name, *hash;
	} * users;
	size_t n_users;
};
int webcfg_parse(const char *path, const char *text, size_t len, struct webcfg *ret, char *err,
		 size_t errsz);
void webcfg_free(struct webcfg *c);
bool webcfg_check_user(const struct webcfg *c, const char *user, const char *pass);

/*
 * An Authorization header's Basic credentials (RFC 7617; the scheme in any case): the
 * base64 decoded into buf (size bytes), split at its first colon. 0, or -EINVAL for
 * another scheme, base64 that is not canonical, no colon, more than buf holds, or a NUL
 * anywhere (a C string would end the password there).
 */
int web_basic_credentials(const char *header, char *buf, size_t size, const char **ret_user,
			  const char **ret_pass);

/*
 * The credentials checked so far, kept by a hash of user and password (the caller's
 * key, SHA-256 in tls.c; never the password itself), as the exporter-toolkit keeps
 * them: a good one costs one bcrypt until the web configuration is read again, a wrong
 * one one bcrypt while it is among the last WEB_AUTH_BAD wrong ones. One bcrypt runs at
 * a time. web_auth_bcrypts counts them (tests).
 */
#define WEB_AUTH_KEY 32
#define WEB_AUTH_OK 64
#define WEB_AUTH_BAD 256
struct web_auth;
int web_auth_new(struct web_auth **ret);
void web_auth_free(struct web_auth *a);
void web_auth_clear(struct web_auth *a);
uint64_t web_auth_bcrypts(struct web_auth *a);
bool web_auth_check(const struct webcfg *c, struct web_auth *a,
		    const unsigned char key[WEB_AUTH_KEY], const char *user, const char *pass);
/* The same users and no TLS in either (a TLS file may have changed behind its name). */
bool webcfg_same(const struct webcfg *a, const struct webcfg *b);

/*
 * The HTTP front's side of the web configuration (tls.c): libmicrohttpd's
 * TLS options appended to opts (*n grows; the PEM texts and priorities
 * live in *w until web_tls_free); whether a connection's client
 * certificate satisfies client_auth_type; whether its basic credentials
 * are a user's. 0/true, or -EINVAL when a file cannot be read (said).
 */
struct MHD_OptionItem;
struct MHD_Connection;
struct web_tls {
	char *pem[3]; /* cert, key, client CA */
	char priorities[128];
};
int web_tls_options(const struct webcfg *c, struct web_tls *w, struct MHD_OptionItem *opts,
		    size_t *n);
void web_tls_free(struct web_tls *w);
bool web_client_ok(const struct webcfg *c, struct MHD_Connection *conn);
bool web_user_ok(const struct webcfg *c, struct web_auth *a, struct MHD_Connection *conn);

/*
 * serve --store (storeq.c): a writer thread recording each sample's
 * interval, fed by storeq_hook (a cli_sample_hook) through a bounded queue
 * that drops (and counts) rather than waits. storeq_stop writes what is
 * queued, then closes.
 */
struct storeq;
struct store_run;
struct cli_sample;
/* max_age_s, max_bytes: store_trim's limits after each interval (0: none) */
int storeq_start(const char *path, const struct store_run *run, double max_age_s,
		 uint64_t max_bytes, struct storeq **ret, const char **ret_err);
void storeq_hook(void *arg, const struct cli_sample *smp);
struct storeq_counts {
	uint64_t written, dropped;
	bool failed;
};
void storeq_counts(struct storeq *sq, struct storeq_counts *ret);
/* ret (may be NULL): the counts once everything queued is written */
void storeq_stop(struct storeq *sq, struct storeq_counts *ret);

/*
 * The live page's memory (ring.c): the last cap intervals' snapshots;
 * ring_push keeps a reference (from the sampler's hook); ring_render
 * writes the last `seconds` of them as /api/v1/range's JSON, with the
 * screen top shows of them (cli/screen.h), made with the packs' names for
 * their metrics that ring_set_names copies from a counting's context
 * (0, or -ENOMEM: then the metrics keep their own names).
 */
struct ring;
int ring_new(size_t cap, struct ring **ret);
int ring_set_names(struct ring *r, struct pm_ctx *ctx);
void ring_free(struct ring *r);
void ring_push(struct ring *r, struct pm_snapshot *snap);
int ring_render(struct ring *r, double seconds, const struct expo_meta *m, struct sbuf *b);
/* Forget every interval (a reload changed what the rows are). */
void ring_clear(struct ring *r);

/*
 * serve --config FILE (config.c): each option line as one "--name=value"
 * argument (argv[i] came from line line[i]), for the getopt loop that
 * reads the command line. Names not in allowed are refused. 0, -EINVAL
 * with "FILE:LINE: why" in err, -ENOMEM.
 */
struct option;
struct serve_config {
	char **argv;
	unsigned *line;
	size_t argc;
};
int serve_config_parse(const char *path, const char *text, size_t len, const struct option *allowed,
		       struct serve_config *ret, char *err, size_t errsz);
void serve_config_free(struct serve_config *c);

/*
 * serve --remote-write (rw.c): every sample pushed with Prometheus remote
 * write 1.0 (protobuf, snappy) to each target, from a bounded queue per
 * target fed without ever blocking the sampler; a sender thread per target
 * retries 5xx and 429 with backoff and never another 4xx. The targets'
 * settings: --remote-write URL, and Prometheus's remote_write entries in
 * --remote-write.config FILE (rwcfg_parse, in webconfig.c beside the web
 * configuration's YAML walk).
 */
#define RW_MAX_URLS 16
#define RW_QUEUE_DEFAULT 100000
struct serve_args_rw {
	const char *url[RW_MAX_URLS];
	size_t n_url;
	const char *config;  /* --remote-write.config FILE */
	unsigned long queue; /* --remote-write.queue SAMPLES */
};
struct rw_target {
	char *url;
	char *username, *password, *password_file;	  /* basic_auth */
	char *auth_type, *credentials, *credentials_file; /* authorization (Bearer) */
	char *ca_file, *cert_file, *key_file;		  /* tls_config */
	bool insecure_skip_verify;
	int min_version, max_version;	     /* 10..13 for TLS 1.0..1.3; 0: not given */
	double timeout_s;		     /* remote_timeout: 30 */
	unsigned long capacity;		     /* queue_config.capacity; 0: --remote-write.queue */
	unsigned long max_per_send;	     /* queue_config.max_samples_per_send: 2000 */
	double min_backoff_s, max_backoff_s; /* queue_config: 0.03, 5 */
	bool retry_429;			     /* queue_config.retry_on_http_429: true */
	struct {
		char *name, *value;
	} * labels; /* external_labels, added where a series has no label of the name */
	size_t n_labels;
};
struct rwcfg {
	struct rw_target *t;
	size_t n;
};
int rwcfg_parse(const char *path, const char *text, size_t len, struct rwcfg *ret, char *err,
		size_t errsz);
void rwcfg_free(struct rwcfg *c);
void rw_target_free(struct rw_target *t);
/* A target for a bare --remote-write URL: Prometheus's defaults. 0, -ENOMEM. */
int rwcfg_add_url(struct rwcfg *c, const char *url);
/* Whether two targets' settings are the same (a reload keeps such a target's queue). */
bool rw_target_same(const struct rw_target *a, const struct rw_target *b);

/*
 * The seam between the exposition and remote write (rwwalk.c): the series
 * of one sample as expo_walk gives them, each as its family's name, its
 * labels (unescaped, NUL-terminated, in the exposition's order, an extra
 * one last) and its value, handed to fn (which returns 0, or -errno to stop
 * the walk: the sink takes no series after that). rw_walk: the number of
 * series, -EINVAL for labels that are not of the form below (a bug: said by
 * nothing but the result), -ENOMEM, or fn's error.
 * rw_labels_parse: an exposition's labels string ('{name="value",...'
 * without the closing brace, "" for none: expo_plan_row's) as at most max
 * pairs pointing into scratch (room for strlen(labels) + 1): their number,
 * or -EINVAL (labels left untouched).
 */
struct rw_label {
	const char *name, *value;
};
typedef int (*rw_sample_fn)(void *arg, const char *name, const struct rw_label *labels,
			    size_t n_labels, double value);
long rw_walk(const struct expo_sample *s, rw_sample_fn fn, void *arg);
#define RW_MAX_LABELS 32
long rw_labels_parse(const char *labels, char *scratch, struct rw_label *ret_labels, size_t max);
/*
 * The timestamp (ms) a sample read at wall_ns is pushed with, after one pushed at last_ms
 * (INT64_MIN: none yet): remote write wants each series' timestamps increasing, and a
 * receiver drops, or refuses the batch of, a sample not after its series' last. Its own
 * when it is later; one ms after the last when it is not, by less than interval_ms (two
 * reads in one millisecond: a late read and the next one on time); false when the clock
 * went back further (the sample is not sent).
 */
bool rw_sample_ms(uint64_t wall_ns, int64_t last_ms, int64_t interval_ms, int64_t *ret_ms);

/* The live page's files, built into pmumon (web-assets.c, generated). */
struct web_asset {
	const char *path, *type;
	const unsigned char *data;
	size_t len;
};
extern const struct web_asset web_assets[];

/*
 * sd_notify(3)'s protocol (notify.c): send "READY=1", "WATCHDOG=1",
 * "STOPPING=1" to the service manager when NOTIFY_SOCKET names one (0, or
 * -errno); the watchdog period WATCHDOG_USEC asks for, 0 when none.
 */
int notify_send(const char *state);
uint64_t notify_watchdog_usec(void);

#endif
