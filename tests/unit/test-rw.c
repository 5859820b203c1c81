// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve --remote-write's parsers: the text exposition walked into series
 * (cli/serve/rwtext.c, the seam remote write reads the exposition through)
 * and --remote-write.config, Prometheus's remote_write entries
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

#include "cli.h"
#include "serve/serve.h"

/* What the walk handed over, one line per sample: name|l=v|l=v value */
struct got {
	char text[2048];
	size_t len;
};

static int collect(void *arg, const char *name, const struct rw_label *labels, size_t n,
		   double value)
{
	struct got *g = arg;

	g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len, "%s", name);
	for (size_t i = 0; i < n; i++)
		g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len, "|%s=%s",
					   labels[i].name, labels[i].value);
	g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len, " %.17g\n", value);
	return 0;
}

static void test_text_walk(void **state)
{
	static const struct {
		const char *in, *out;
		long n;
		size_t line; /* of the refused line */
	} t[] = {
		{ "", "", 0, 0 },
		{ "# HELP a b\n# TYPE a counter\na 1\n", "a 1\n", 1, 0 },
		{ "pmumon_event_total{pmu=\"ali_drw\",event=\"hif_rd\"} 12345\n",
		  "pmumon_event_total|pmu=ali_drw|event=hif_rd 12345\n", 1, 0 },
		/* escapes: backslash, quote, newline */
		{ "x{cgroup=\"a\\\\b\\\"c\\nd\"} 0.5\n", "x|cgroup=a\\b\"c\nd 0.5\n", 1, 0 },
		{ "x{a=\"\"} 1\nx{a=\"1\",} 2", "x|a= 1\nx|a=1 2\n", 2, 0 },
		{ "a +Inf\nb -Inf\nc NaN\nd 1e-3\n", "a inf\nb -inf\nc nan\nd 0.001\n", 4, 0 },
		{ "a:b_c 7\n\n", "a:b_c 7\n", 1, 0 },
		/* refused, with the line */
		{ "a 1\nb{x=\"1\" 2\n", NULL, -EINVAL, 2 },
		{ "a 1 1700000000000\n", NULL, -EINVAL, 1 }, /* a timestamp: expo writes none */
		{ "a one\n", NULL, -EINVAL, 1 },
		{ "9a 1\n", NULL, -EINVAL, 1 },
		{ "a{x=\"1\\q\"} 1\n", NULL, -EINVAL, 1 },
		{ "a{x:y=\"1\"} 1\n", NULL, -EINVAL, 1 },
		{ "a{x=1} 1\n", NULL, -EINVAL, 1 },
		{ "a{x=\"1\"}1\n", NULL, -EINVAL, 1 },
		{ "a\n", NULL, -EINVAL, 1 },
	};

	for (size_t i = 0; i < CLI_ARRAY_SIZE(t); i++) {
		struct got g = { .len = 0 };
		size_t line = 0;
		long n = rw_text_walk(t[i].in, strlen(t[i].in), collect, &g, &line);

		g.text[g.len] = '\0';
		if (n != t[i].n)
			fail_msg("case %zu: %ld samples, not %ld", i, n, t[i].n);
		if (t[i].out)
			assert_string_equal(g.text, t[i].out);
		else
			assert_int_equal(line, t[i].line);
	}
}

static int stop_at_two(void *arg, const char *name, const struct rw_label *l, size_t n, double v)
{
	int *k = arg;

	return ++*k == 2 ? -ECANCELED : 0;
}

static void test_text_walk_stops(void **state)
{
	int k = 0;
	const char *in = "a 1\nb 2\nc 3\n";

	assert_int_equal(rw_text_walk(in, strlen(in), stop_at_two, &k, NULL), -ECANCELED);
	assert_int_equal(k, 2);
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

	for (size_t i = 0; i < CLI_ARRAY_SIZE(t); i++) {
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
		cmocka_unit_test(test_text_walk),
		cmocka_unit_test(test_text_walk_stops),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
