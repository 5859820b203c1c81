// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve --remote-write's seam and parser: the exposition's walk handed over
 * as series (cli/serve/rwwalk.c: the same series, labels and values the
 * text format shows, its labels strings parsed back) and
 * --remote-write.config, Prometheus's remote_write entries
 * (cli/serve/webconfig.c). Table-driven.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util.h"
#include "serve/serve.h"

#define SEC 1000000000ull

/* rw_labels_parse's pairs as "name=value|name=value" */
static void pairs(const struct rw_label *l, long n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (long i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s=%s", i ? "|" : "", l[i].name,
					l[i].value);
}

static void test_labels_parse(void **state)
{
	static const struct {
		const char *in, *out;
		long n;
	} t[] = {
		{ "", "", 0 },
		{ "{pmu=\"ali_drw\",event=\"hif_rd\"", "pmu=ali_drw|event=hif_rd", 2 },
		/* escapes: backslash, quote, newline */
		{ "{cgroup=\"a\\\\b\\\"c\\nd\"", "cgroup=a\\b\"c\nd", 1 },
		{ "{a=\"\",_b9=\"x,y=\\\"z\\\"\"", "a=|_b9=x,y=\"z\"", 2 },
		/* refused */
		{ "{a=\"1\"}", NULL, -EINVAL }, /* the brace is not the exposition's */
		{ "a=\"1\"", NULL, -EINVAL },
		{ "{", NULL, -EINVAL },
		{ "{a=\"1\",", NULL, -EINVAL },
		{ "{a=\"1\"b=\"2\"", NULL, -EINVAL },
		{ "{a=\"1", NULL, -EINVAL },
		{ "{a=\"1\\", NULL, -EINVAL },
		{ "{a=\"1\\q\"", NULL, -EINVAL },
		{ "{a=1", NULL, -EINVAL },
		{ "{9a=\"1\"", NULL, -EINVAL },
		{ "{a:b=\"1\"", NULL, -EINVAL },
		{ "{a =\"1\"", NULL, -EINVAL },
		{ "{a=\"1\",b=\"2\",c=\"3\"", NULL, -EINVAL }, /* more than max (2) */
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct rw_label l[3] = { { "untouched", "untouched" } };
		char scratch[256], got[256];
		long n = rw_labels_parse(t[i].in, scratch, l, 2);

		if (n != t[i].n)
			fail_msg("case %zu (%s): %ld, not %ld", i, t[i].in, n, t[i].n);
		if (t[i].out) {
			pairs(l, n, got, sizeof(got));
			assert_string_equal(got, t[i].out);
		} else {
			assert_string_equal(l[0].name, "untouched");
		}
	}
}

/* Any value the exposition escapes (expo_put_label) parses back to itself. */
static void test_labels_round_trip(void **state)
{
	static const char *const values[] = { "",	 "plain",	"\\",	     "\"",
					      "\n",	 "a\\\"\nb\\n", "{x=\"y\"}", ",",
					      "ünïcödé", "\\\\\\" };

	for (size_t i = 0; i < PM_ARRAY_SIZE(values); i++) {
		struct sbuf b = { 0 };
		struct rw_label l[RW_MAX_LABELS];
		bool first = true;
		char scratch[256];

		expo_put_label(&b, &first, "a", values[i]);
		expo_put_label(&b, &first, "b", values[PM_ARRAY_SIZE(values) - 1 - i]);
		sbuf_put(&b, "", 0);
		assert_int_equal(rw_labels_parse(b.data, scratch, l, RW_MAX_LABELS), 2);
		assert_string_equal(l[0].name, "a");
		assert_string_equal(l[0].value, values[i]);
		assert_string_equal(l[1].name, "b");
		assert_string_equal(l[1].value, values[PM_ARRAY_SIZE(values) - 1 - i]);
		sbuf_free(&b);
	}
}

/* ---- the walk: the same series /metrics shows -------------------------------------- */

static const struct expo_meta meta = { .version = "test",
				       .platform = "lab",
				       .interval_s = 1,
				       .channel_peak = 51.2e9 };

static struct pm_row row(const char *event, const char *unit, unsigned flags, double value)
{
	return (struct pm_row){ .event = event,
				.unit = unit,
				.channel = -1,
				.subchannel = -1,
				.cpu = -1,
				.die = -1,
				.socket = -1,
				.value = value,
				.enabled_ns = 3 * SEC,
				.running_ns = 2 * SEC + 1,
				.running = 1,
				.flags = flags };
}

static long more_families(void *arg, const struct expo_sink *k)
{
	k->family(k->ud, "pmumon_remote_write_sent_samples_total", "counter", NULL, "Sent");
	k->series(k->ud, "pmumon_remote_write_sent_samples_total", "", "url", "http://u:p@a/\"w\"",
		  12345);
	return 1;
}

/* What the walk handed over, as text lines (re-escaped): "name{labels} value" with the
 * value's 17 digits */
struct got {
	struct sbuf text;
	long calls, stop_at;
};

static int collect(void *arg, const char *name, const struct rw_label *labels, size_t n,
		   double value)
{
	struct got *g = arg;
	bool first = true;

	sbuf_puts(&g->text, name);
	for (size_t i = 0; i < n; i++)
		expo_put_label(&g->text, &first, labels[i].name, labels[i].value);
	sbuf_printf(&g->text, "%s %.17g\n", first ? "" : "}", value);
	return ++g->calls == g->stop_at ? -ECANCELED : 0;
}

/* The text exposition's series lines, their values as doubles with 17 digits. */
static void text_lines(const char *text, struct sbuf *out)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *sp;

		if (*p != '#') {
			sp = p + (nl - p);
			while (sp > p && sp[-1] != ' ')
				sp--;
			sbuf_put(out, p, (size_t)(sp - p));
			sbuf_printf(out, "%.17g\n", strtod(sp, NULL));
		}
		p = nl + 1;
	}
}

/* A sample of every kind of row, flags, a device, escapes, gaps and a ratio. */
struct fixture {
	struct pm_row rows[5];
	struct pm_report rep;
	struct expo_acc *acc;
	struct expo_counts *c;
	struct expo_health h;
	struct expo_sample s;
};

static void fixture(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->rows[0] = row("ali_drw/hif_rd/", "", 0, 1234567);
	f->rows[0].device = "ali_drw_21080";
	f->rows[0].channel = 3;
	f->rows[0].flags |= PM_ROW_MULTIPLEXED;
	f->rows[1] = row("cpu-clock", "msec", 0, 2000.5);
	f->rows[1].cgroup = "/a\\b\"c\nd";
	f->rows[2] = row("bw", "MB/s", PM_ROW_METRIC, 1.0 / 3);
	f->rows[3] = row("miss", "%", PM_ROW_METRIC | PM_ROW_RATIO, 25);
	f->rows[3].num = 2500;
	f->rows[3].den = 100;
	f->rows[4] = row("gone", "", PM_ROW_NOT_COUNTED, NAN);
	f->rep = (struct pm_report){ .interval = true,
				     .duration_ns = 3 * SEC,
				     .n_rows = 5,
				     .rows = f->rows };
	f->h = (struct expo_health){ .samples = 3, .read_s = 0.000123, .last_sample_s = 1.7e9 };
	f->h.reloads.last_ok_s = 1.7e9 + 0.5;
	assert_int_equal(expo_acc_new(&f->acc), 0);
	assert_int_equal(expo_acc_add(f->acc, &f->rep, &f->rep, &meta, &f->c), 0);
	f->s = (struct expo_sample){ .interval = &f->rep,
				     .counts = f->c,
				     .meta = &meta,
				     .health = &f->h };
	f->s.more = more_families;
}

static void fixture_free(struct fixture *f)
{
	expo_counts_unref(f->c);
	expo_acc_free(f->acc);
}

static void test_walk_is_the_exposition(void **state)
{
	struct fixture f;
	struct sbuf text = { 0 }, want = { 0 };
	struct got g = { .stop_at = -1 };
	long n, n_text;

	fixture(&f);
	n_text = expo_render(&text, EXPO_TEXT, &f.s);
	assert_true(n_text > 20);
	n = rw_walk(&f.s, collect, &g);
	assert_int_equal(n, n_text);
	assert_int_equal(g.calls, n);
	text_lines(text.data, &want);
	assert_string_equal(g.text.data, want.data);
	/* what the walk covers: escapes, an extra label, seconds, remote write's own */
	assert_non_null(strstr(g.text.data, "cgroup=\"/a\\\\b\\\"c\\nd\""));
	assert_non_null(strstr(g.text.data, ",flag=\"multiplexed\"} 1\n"));
	assert_non_null(strstr(g.text.data, "pmumon_running_seconds_total{"));
	assert_non_null(strstr(g.text.data, "pmumon_remote_write_sent_samples_total{url="));
	sbuf_free(&text);
	sbuf_free(&want);
	sbuf_free(&g.text);
	fixture_free(&f);
}

static void test_walk_stops(void **state)
{
	struct fixture f;
	struct got g = { .stop_at = 2 };

	fixture(&f);
	assert_int_equal(rw_walk(&f.s, collect, &g), -ECANCELED);
	assert_int_equal(g.calls, 2); /* none after the error */
	sbuf_free(&g.text);
	fixture_free(&f);
}

static long bad_labels(void *arg, const struct expo_sink *k)
{
	k->series(k->ud, "x", "{a=\"1\"}", NULL, NULL, 1);
	return 1;
}

static void test_walk_refuses_bad_labels(void **state)
{
	struct fixture f;
	struct got g = { .stop_at = -1 };
	long before;

	fixture(&f);
	f.s.more = NULL;
	before = rw_walk(&f.s, collect, &g);
	assert_true(before > 0);
	g.calls = 0;
	f.s.more = bad_labels;
	assert_int_equal(rw_walk(&f.s, collect, &g), -EINVAL);
	assert_int_equal(g.calls, before); /* every good one, then the bad one stops it */
	sbuf_free(&g.text);
	fixture_free(&f);
}

/* A series' pushed timestamps only go up: a read in the millisecond of the last is dated
 * one ms after it, a clock gone back further is not sent. */
static void test_sample_ms(void **state)
{
	static const struct {
		uint64_t wall_ns;
		int64_t last_ms;
		bool ok;
		int64_t ms;
	} t[] = {
		{ 1767225600123456789ull, INT64_MIN, true, 1767225600123 },
		{ 1767225600223999999ull, 1767225600123, true, 1767225600223 },
		{ 1767225600123999999ull, 1767225600123, true, 1767225600124 }, /* same ms */
		{ 1767225600100000000ull, 1767225600123, true, 1767225600124 }, /* 23 ms back */
		{ 1767225600024000000ull, 1767225600123, true, 1767225600124 }, /* 99 ms back */
		{ 1767225600023000000ull, 1767225600123, false, 0 }, /* an interval back */
		{ 1767225500000000000ull, 1767225600123, false, 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		int64_t ms = -7;

		if (rw_sample_ms(t[i].wall_ns, t[i].last_ms, 100, &ms) != t[i].ok)
			fail_msg("case %zu: %s", i, t[i].ok ? "refused" : "accepted");
		assert_int_equal(ms, t[i].ok ? t[i].ms : -7); /* untouched when refused */
	}
}

static void test_config(void **state)
{
	static const char full[] = "remote_write:\n"
				   "  - url: https://mimir.example/api/v1/push\n"
				   "    remote_timeout: 1m30s\n"
				   "    basic_auth:\n"
				   "      username: pmumon\n"
				   "      password_file: /etc/pmumon/mimir.pass\n"
				   "    tls_config:\n"
				   "      ca_file: /etc/pmumon/ca.crt\n"
				   "      cert_file: c.crt\n"
				   "      key_file: c.key\n"
				   "      min_version: TLS13\n"
				   "    queue_config:\n"
				   "      capacity: 5000\n"
				   "      max_samples_per_send: 500\n"
				   "      min_backoff: 100ms\n"
				   "      max_backoff: 10s\n"
				   "      retry_on_http_429: false\n"
				   "    external_labels:\n"
				   "      instance: dpu7\n"
				   "  - url: http://thanos.example:19291/api/v1/receive\n"
				   "    authorization:\n"
				   "      credentials_file: /etc/pmumon/token\n";
	struct rwcfg c;
	char err[512];

	assert_int_equal(rwcfg_parse("rw.yml", full, strlen(full), &c, err, sizeof(err)), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.t[0].url, "https://mimir.example/api/v1/push");
	assert_true(c.t[0].timeout_s == 90);
	assert_string_equal(c.t[0].username, "pmumon");
	assert_string_equal(c.t[0].password_file, "/etc/pmumon/mimir.pass");
	assert_string_equal(c.t[0].ca_file, "/etc/pmumon/ca.crt");
	assert_int_equal(c.t[0].min_version, 13);
	assert_int_equal(c.t[0].capacity, 5000);
	assert_int_equal(c.t[0].max_per_send, 500);
	assert_true(c.t[0].min_backoff_s == 0.1 && c.t[0].max_backoff_s == 10);
	assert_false(c.t[0].retry_429);
	assert_int_equal(c.t[0].n_labels, 1);
	assert_string_equal(c.t[0].labels[0].value, "dpu7");
	/* the second: Prometheus's defaults */
	assert_string_equal(c.t[1].credentials_file, "/etc/pmumon/token");
	assert_true(c.t[1].timeout_s == 30 && c.t[1].max_per_send == 2000);
	assert_true(c.t[1].min_backoff_s == 0.03 && c.t[1].max_backoff_s == 5);
	assert_true(c.t[1].retry_429);
	assert_int_equal(c.t[1].capacity, 0);
	/* a --remote-write URL the file has takes its settings; another is a target */
	assert_int_equal(rwcfg_add_url(&c, "http://thanos.example:19291/api/v1/receive"), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(rwcfg_add_url(&c, "http://127.0.0.1:9090/api/v1/write"), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(rwcfg_add_url(&c, "ftp://x/"), -EINVAL);
	assert_false(rw_target_same(&c.t[0], &c.t[1]));
	assert_true(rw_target_same(&c.t[1], &c.t[1]));
	rwcfg_free(&c);
}

static void test_config_refused(void **state)
{
	static const struct {
		const char *in, *err;
	} t[] = {
		{ "remote_write:\n  - url: x\n", "rw.yml:2: url wants http://" },
		{ "remote_write:\n  - remote_timeout: 5s\n", "needs its url" },
		{ "remote_write:\n  - url: http://a/\n    remote_timeout: 5\n",
		  "rw.yml:3: remote_timeout wants a duration" },
		{ "remote_write:\n  - url: http://a/\n    remote_timeout: -5s\n",
		  "wants a duration above 0" },
		{ "remote_write:\n  - url: http://a/\n    write_relabel_configs: []\n",
		  "rw.yml:3: remote_write: 'write_relabel_configs' is not a setting" },
		{ "remote_write:\n  - url: http://a/\n    tls_config:\n      server_name: b\n",
		  "rw.yml:4: tls_config: 'server_name' is not a setting" },
		{ "remote_write:\n  - url: http://a/\n    basic_auth:\n      username: u\n",
		  "basic_auth needs password or password_file" },
		{ "remote_write:\n  - url: http://a/\n    basic_auth:\n      username: u\n"
		  "      password: p\n    bearer_token: t\n",
		  "basic_auth or authorization, not both" },
		{ "remote_write:\n  - url: http://a/\n    queue_config:\n      capacity: 0\n",
		  "capacity wants a whole number from 1" },
		{ "remote_write:\n  - url: http://a/\n    queue_config:\n      min_backoff: 10s\n",
		  "min_backoff is above max_backoff" },
		{ "remote_write:\n  - url: http://a/\n    tls_config:\n      cert_file: c\n",
		  "cert_file and key_file go together" },
		{ "remote_write:\n  - url: http://a/\n    external_labels:\n      __x: y\n",
		  "'__x' is not a label name" },
		{ "remote_write:\n  - url: http://a/\n  - url: http://a/\n",
		  "http://a/ is there twice" },
		{ "remote_write:\n  url: http://a/\n", "rw.yml:2: remote_write wants a list" },
		{ "global:\n  scrape_interval: 1m\n", "rw.yml:2: 'global' is not a setting of" },
		{ "remote_write: [", "rw.yml:" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct rwcfg c = { .n = 99 };
		char err[512];

		if (rwcfg_parse("rw.yml", t[i].in, strlen(t[i].in), &c, err, sizeof(err)) !=
		    -EINVAL)
			fail_msg("case %zu: accepted", i);
		if (!strstr(err, t[i].err))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, t[i].err);
		assert_int_equal(c.n, 99); /* untouched */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels_parse),
		cmocka_unit_test(test_labels_round_trip),
		cmocka_unit_test(test_walk_is_the_exposition),
		cmocka_unit_test(test_walk_stops),
		cmocka_unit_test(test_walk_refuses_bad_labels),
		cmocka_unit_test(test_sample_ms),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
