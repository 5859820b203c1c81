// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's own helpers (cli/util.c): user text escaped before it reaches a
 * terminal, perf's option grammars, the statistics of -r. Table-driven;
 * out-parameters untouched on failure. (Numbers, arrays and formatting are
 * the helper library's, tested in tests/unit/test-util.c.)
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli-values.h"
#include "cli-repeat.h"
#include "cli-text.h"
#include "util.h"

static void test_escape(void **state)
{
	static const struct {
		const char *in, *out;
		int width;
	} t[] = {
		{ "msr/tsc/", "msr/tsc/", 8 },
		/* a terminal escape sequence is shown, never obeyed */
		{ "\x1b[31mred\x1b[0m/x/", "\\x1b[31mred\\x1b[0m/x/", 21 },
		{ "a\tb\nc\rd\x7f", "a\\tb\\nc\\rd\\x7f", 14 },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 8 },
		/* C1 CSI as UTF-8 (U+009B), a lone C1 byte, a cut sequence, an overlong '/' */
		{ "\xc2\x9b"
		  "2J",
		  "\\xc2\\x9b"
		  "2J",
		  10 },
		{ "\x9b"
		  "2J",
		  "\\x9b"
		  "2J",
		  6 },
		{ "x\xe2\x82", "x\\xe2\\x82", 9 },
		{ "\xc0\xaf", "\\xc0\\xaf", 8 },
		{ "", "", 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		char *s = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&s, &len);

		assert_non_null(f);
		cli_escape(f, t[i].in, strlen(t[i].in));
		assert_int_equal(fclose(f), 0);
		assert_string_equal(s, t[i].out);
		assert_int_equal(cli_escaped_width(t[i].in, strlen(t[i].in)), t[i].width);
		free(s);
	}
}

/* --per-cache=LEVEL as perf's parse_cache_level takes it: [lL][1-4], nothing else */
static void test_parse_cache_level(void **state)
{
	static const struct {
		const char *in;
		int want; /* 0: refused */
	} cases[] = {
		{ "L1", 1 }, { "l2", 2 }, { "L3", 3 },	{ "L4", 4 },  { "L5", 0 },  { "L0", 0 },
		{ "L", 0 },  { "3", 0 },  { "LLC", 0 }, { "L3 ", 0 }, { " L3", 0 }, { "L-1", 0 },
		{ "", 0 },   { "M3", 0 }, { "L12", 0 }, { "l9", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = -7, r = cli_parse_cache_level(cases[i].in, &got);

		if (cases[i].want) {
			assert_int_equal(r, 0);
			assert_int_equal(got, cases[i].want);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_int_equal(got, -7); /* untouched */
		}
	}
	assert_int_equal(cli_parse_cache_level(NULL, &(int){ 0 }), -EINVAL);
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* select is sort's k-th, on random arrays with many repeats, sorted and reversed ones. */
/* The "did you mean" distance: each kind of edit counts one, capped at 3; long names too. */
static void test_edits(void **state)
{
	static const struct {
		const char *a, *b;
		int want;
	} t[] = {
		{ "metrics", "metrics", 0 },
		{ "metircs", "metrics", 1 },		  /* two neighbours swapped */
		{ "interval-cont", "interval-count", 1 }, /* one left out */
		{ "metrics-only", "metric-only", 1 },	  /* one too many */
		{ "pmus", "pmvs", 1 },			  /* one changed */
		{ "events", "groups", 3 },		  /* far: capped */
		{ "interval-print-and-more", "interval-print-and-mor", 1 },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++)
		if (cli_edits(t[i].a, t[i].b) != t[i].want)
			fail_msg("'%s' -> '%s': %d, want %d", t[i].a, t[i].b,
				 cli_edits(t[i].a, t[i].b), t[i].want);
}

static void test_select_kth(void **state)
{
	unsigned seed = 12345;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		size_t n = 1 + (size_t)(rand_r(&seed) % 200), k = (size_t)rand_r(&seed) % n;
		double v[200], sorted[200];
		int kind = round % 4;

		for (size_t i = 0; i < n; i++)
			v[i] = kind == 0 ? (double)(rand_r(&seed) % 5) :
			       kind == 1 ? (double)i :
			       kind == 2 ? (double)(n - i) :
					   (double)rand_r(&seed) / 7.0;
		memcpy(sorted, v, n * sizeof(*v));
		qsort(sorted, n, sizeof(*sorted), cmp);
		if (!(cli_select_kth(v, n, k) == sorted[k]))
			fail_msg("round %d: n %zu k %zu: %g, sorted %g", round, n, k, v[k],
				 sorted[k]);
		for (size_t i = 0; i < n; i++)
			if ((i < k && v[i] > v[k]) || (i > k && v[i] < v[k]))
				fail_msg("round %d: v[%zu] on the wrong side of v[%zu]", round, i,
					 k);
	}
}

/* -p/-t lists: perf's comma list, strict; out-parameters untouched on failure. */
static void test_parse_pid_list(void **state)
{
	static const struct {
		const char *in;
		int r;
		size_t n;
		pid_t want[4];
	} t[] = {
		{ "1", 0, 1, { 1 } },
		{ "123,456", 0, 2, { 123, 456 } },
		{ "7,7,8", 0, 2, { 7, 8 } }, /* a repeat kept once, as perf's strlist */
		{ "2147483647", 0, 1, { 2147483647 } },
		{ "1,2,3,4", 0, 4, { 1, 2, 3, 4 } },
		{ "1,2,3,4,5", -E2BIG, 0, { 0 } },
		{ "2147483648", -ERANGE, 0, { 0 } },
		{ "99999999999999999999999", -ERANGE, 0, { 0 } },
		{ "0", -EINVAL, 0, { 0 } },
		{ "", -EINVAL, 0, { 0 } },
		{ ",", -EINVAL, 0, { 0 } },
		{ "1,", -EINVAL, 0, { 0 } },
		{ ",1", -EINVAL, 0, { 0 } },
		{ "1,,2", -EINVAL, 0, { 0 } },
		{ "-1", -EINVAL, 0, { 0 } },
		{ "+1", -EINVAL, 0, { 0 } },
		{ " 1", -EINVAL, 0, { 0 } },
		{ "1 ", -EINVAL, 0, { 0 } },
		{ "1, 2", -EINVAL, 0, { 0 } },
		{ "0x10", -EINVAL, 0, { 0 } },
		{ "12a", -EINVAL, 0, { 0 } },
		{ "1;2", -EINVAL, 0, { 0 } },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		pid_t got[4] = { -1, -1, -1, -1 };
		size_t n = 99;
		int r = cli_parse_pid_list(t[i].in, got, 4, &n);

		if (r != t[i].r)
			fail_msg("'%s': %d, want %d", t[i].in, r, t[i].r);
		if (r < 0 && (n != 99 || got[0] != -1))
			fail_msg("'%s': out-parameters touched on failure", t[i].in);
		if (r == 0 && (n != t[i].n || memcmp(got, t[i].want, n * sizeof(pid_t))))
			fail_msg("'%s': %zu PIDs, first %d", t[i].in, n, got[0]);
	}
	assert_int_equal(cli_parse_pid_list(NULL, NULL, 0, NULL), -EINVAL);
}

/* -r's spread as perf computes it: the values of perf stat -r 3 by hand. */
static void test_stats(void **state)
{
	struct cli_stats s = { 0 };

	(void)state;
	assert_true(cli_stats__stddev_mean(&s) == 0.0);
	assert_true(cli_stats__spread_pct(&s) == 0.0);
	cli_stats__add(&s, 10);
	assert_true(cli_stats__stddev_mean(&s) == 0.0); /* one run: no spread */
	cli_stats__add(&s, 20);
	cli_stats__add(&s, 30);
	/* mean 20; sample variance 100; of the mean 100/3; stddev sqrt(100/3) */
	assert_true(fabs(s.mean - 20.0) < 1e-12);
	assert_true(fabs(cli_stats__stddev_mean(&s) - sqrt(100.0 / 3)) < 1e-12);
	assert_true(fabs(cli_stats__spread_pct(&s) - 100.0 * sqrt(100.0 / 3) / 20) < 1e-12);
	s = (struct cli_stats){ 0 };
	cli_stats__add(&s, -5);
	cli_stats__add(&s, 5);
	assert_true(cli_stats__spread_pct(&s) == 0.0); /* a mean of 0: perf says 0 */
	s = (struct cli_stats){ 0 };
	for (int i = 0; i < 4; i++)
		cli_stats__add(&s, 7);
	assert_true(cli_stats__spread_pct(&s) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),	       cmocka_unit_test(test_select_kth),
		cmocka_unit_test(test_edits),	       cmocka_unit_test(test_parse_cache_level),
		cmocka_unit_test(test_parse_pid_list), cmocka_unit_test(test_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
