// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's MetricExpr: precedence as bison's expr.y, the lexer's longest
 * match, escapes and literals, NaN and division semantics, errors with
 * their position, and every MetricExpr of perf's AMD Zen and arm64 files
 * (tests/data/metric-exprs.txt).
 */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric/expr.h"
#include "util/util.h"

/* Names a..z are slots 0..25 with value (index + 1); #smt_on is 1; others fail. */
static double slots[32];

static int resolve(const char *name, enum pm_expr_ref ref, void *ud)
{
	if (ref == PM_EXPR_LITERAL)
		return !strcmp(name, "#smt_on") ? 26 : !strcmp(name, "#slots") ? 27 : -ENOENT;
	if (strlen(name) == 1 && name[0] >= 'a' && name[0] <= 'z')
		return name[0] - 'a';
	if (!strcmp(name, "nan"))
		return 28;
	if (!strcmp(name, "zero"))
		return 29;
	if (!strcmp(name, "amd_df@event=0x7,umask=0x38@"))
		return 30;
	if (!strcmp(name, "duration_time"))
		return 31;
	return -ENOENT;
}

static void setup_slots(void)
{
	for (int i = 0; i < 26; i++)
		slots[i] = i + 1;
	slots[26] = 1;
	slots[27] = 6;
	slots[28] = NAN;
	slots[29] = 0;
	slots[30] = 1000;
	slots[31] = 2;
}

static double eval(const char *text)
{
	struct pm_expr *e = NULL;
	struct pm_diag d;
	double v;

	pm_diag__init(&d);
	setup_slots();
	if (pm_expr__compile(text, resolve, NULL, &e, &d) < 0)
		fail_msg("'%s': %s", text, d.msg);
	v = pm_expr__eval(e, slots);
	pm_expr__free(e);
	return v;
}

static void test_arithmetic(void **state)
{
	static const struct {
		const char *text;
		double want;
	} cases[] = {
		{ "1 + 2 * 3", 7 },
		{ "(1 + 2) * 3", 9 },
		{ "10 - 4 - 3", 3 }, /* left-associative */
		{ "64 / 4 / 2", 8 },
		{ "-a * b", -2 }, /* unary minus binds tighter */
		{ "- -c", 3 },
		{ "7 % 4 + 1", 4 },
		{ "2.5e3", 2500 },
		{ "1e-3 * 1000", 1 },
		{ ".5 + 1.", 1.5 },
		{ "6 | 1", 7 },
		{ "6 & 3", 2 },
		{ "6 ^ 3", 5 },
		{ "1 | 2 ^ 3 & 1", 1 | (2 ^ (3 & 1)) }, /* & over ^ over | */
		{ "1 + 2 < 4", 1 },			/* + over < */
		{ "a > b", 0 },
		{ "b < b", 0 }, /* strict: equal is not less (perf's <), nor more */
		{ "b > b", 0 },
		{ "min(a, b) + max(a, b)", 3 },
		{ "d_ratio(a, b)", 0.5 },
		{ "d_ratio(a, zero)", 0 }, /* perf's d_ratio */
		{ "a if b > a else c", 1 },
		{ "a if zero else b if zero else c", 3 }, /* right-nested */
		{ "(a if zero else b) * 10", 20 },
		{ "#slots * #smt_on", 6 },
		{ "amd_df@event\\=0x7\\,umask\\=0x38@ * 64 / 1e6 / duration_time", 0.032 },
		{ "a+b*c-d/e", 1 + 6 - 0.8 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		double v = eval(cases[i].text);

		print_message("%s\n", cases[i].text);
		th_assert_near(v, cases[i].want, 1e-12);
	}
}

static void test_nan(void **state)
{
	static const char *const nan_cases[] = {
		"a / zero",
		"a % zero",
		"nan + 1",
		"nan * 0",
		"min(nan, 1)",
		"max(1, nan)",
		"nan < 1",
		"nan | 1",
		"a if nan else b",
		"d_ratio(a, nan)",
		"d_ratio(nan, zero)",
		"1e300 * 1e300 | 1",
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(nan_cases); i++)
		if (!isnan(eval(nan_cases[i])))
			fail_msg("'%s' is %g, want NaN", nan_cases[i], eval(nan_cases[i]));
	/* a division by zero in the branch not taken costs nothing */
	assert_true(eval("a if b else a / zero") == 1);
}

static void test_errors(void **state)
{
	static const struct {
		const char *text, *msg;
		int pos;
	} bad[] = {
		{ "", "empty", 0 },
		{ "a +", "ends where a value was expected", 3 },
		{ "a b", "expected an operator here", 2 },
		{ "(a + b", "expected ')' to close the '('", 6 },
		{ "a + b)", "a ')' without its '('", 5 },
		{ "a if b", "expected 'else'", 6 },
		{ "min(a b)", "expected ',' between the two arguments", 6 },
		{ "a + unknown_event", "'unknown_event' is not an event, metric or constant", 4 },
		{ "#nope", "'#nope' is not an event", 0 },
		{ "a $ b", "unexpected character", 2 },
		{ "source_count(1)", "expected a name", 13 },
		{ "1e999 + a", "number out of range", 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(bad); i++) {
		struct pm_expr *e = NULL;
		struct pm_diag d;

		pm_diag__init(&d);
		assert_int_equal(pm_expr__compile(bad[i].text, resolve, NULL, &e, &d), -EINVAL);
		assert_null(e);
		if (!strstr(d.msg, bad[i].msg) || d.pos != bad[i].pos)
			fail_msg("'%s': '%s' at %d, want '%s' at %d", bad[i].text, d.msg, d.pos,
				 bad[i].msg, bad[i].pos);
	}
}

static void test_depth_bounded(void **state)
{
	char text[4096];
	struct pm_diag d;
	size_t n = 0;

	for (int i = 0; i < 1000; i++)
		text[n++] = '(';
	text[n++] = 'a';
	for (int i = 0; i < 1000; i++)
		text[n++] = ')';
	text[n] = '\0';
	pm_diag__init(&d);
	assert_int_equal(pm_expr__check(text, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "too deeply nested"));
}

static void test_refs(void **state)
{
	struct pm_expr *e = NULL;
	enum pm_expr_ref kind;
	int slot;

	assert_int_equal(pm_expr__compile("a + b * a + #smt_on", resolve, NULL, &e, NULL), 0);
	assert_int_equal(pm_expr__ref_count(e), 3); /* a once */
	assert_string_equal(pm_expr__ref(e, 0, &kind, &slot), "a");
	assert_int_equal(kind, PM_EXPR_VALUE);
	assert_string_equal(pm_expr__ref(e, 2, &kind, &slot), "#smt_on");
	assert_int_equal(kind, PM_EXPR_LITERAL);
	assert_int_equal(slot, 26);
	pm_expr__free(e);
}

/*
 * perf 6.1's own expression test (tools/perf/tests/expr.c, test__expr): its
 * values, with FOO = a = 1 and BAR = b = 2.
 */
static void test_perf_expr_values(void **state)
{
	static const struct {
		const char *text;
		double want;
	} cases[] = {
		{ "1+1", 2 },
		{ "a+b", 3 },
		{ "(b/2)%2", 1 },
		{ "1 - -4", 5 },
		{ "(a-1)*2 + (b/2)%2 - -4", 5 },
		{ "1-1 | 1", 1 },
		{ "1-1 & 1", 0 },
		{ "min(1,2) + 1", 2 },
		{ "max(1,2) + 1", 3 },
		{ "1+1 if 3*4 else 0", 2 },
		{ "100 if 1 else 200 if 1 else 300", 100 },
		{ "100 if 0 else 200 if 1 else 300", 200 },
		{ "100 if 1 else 200 if 0 else 300", 100 },
		{ "100 if 0 else 200 if 0 else 300", 300 },
		{ "1.1 + 2.1", 3.2 },
		{ ".1 + 2.", 2.1 },
		{ "d_ratio(1, 2)", 0.5 },
		{ "d_ratio(2.5, 0)", 0 },
		{ "1.1 < 2.2", 1 },
		{ "2.2 > 1.1", 1 },
		{ "1.1 < 1.1", 0 },
		{ "2.2 > 2.2", 0 },
		{ "2.2 < 1.1", 0 },
		{ "1.1 > 2.2", 0 },
		{ "1.1e10 < 1.1e100", 1 },
		{ "1.1e2 > 1.1e-2", 1 },
	};
	struct pm_expr *e = NULL;
	struct pm_diag d;

	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		double v = eval(cases[i].text);

		/* perf compares with ==: the same double */
		if (!(v == cases[i].want))
			fail_msg("'%s' is %.17g, want %.17g", cases[i].text, v, cases[i].want);
	}
	/* "FOO/0": perf 6.1 aborts the parse, later perf gives NaN, as pmumon does */
	assert_true(isnan(eval("a/0")));
	pm_diag__init(&d);
	assert_int_equal(pm_expr__compile("b/", resolve, NULL, &e, &d), -EINVAL);
	assert_null(e);
}

/* Any name is a slot, counted; #smt_on and has_event() are constants (folding tests). */
static int any_name(const char *name, enum pm_expr_ref ref, void *ud)
{
	int *n = ud;

	return (*n)++;
}

static double smt;

static int constants(const char *name, enum pm_expr_ref ref, void *ud, double *ret)
{
	if (ref == PM_EXPR_LITERAL && !strcmp(name, "#smt_on")) {
		*ret = smt;
		return 1;
	}
	if (ref == PM_EXPR_HAS_EVENT) {
		*ret = !strcmp(name, "EVENT1");
		return 1;
	}
	return 0;
}

/* The names an expression still needs once folded, comma separated. */
static void folded_ids(const char *text, char *buf, size_t size)
{
	struct pm_expr *e = NULL;
	struct pm_diag d;
	int n = 0;

	pm_diag__init(&d);
	if (pm_expr__compile_folded(text, constants, any_name, &n, &e, &d) < 0)
		fail_msg("'%s': %s", text, d.msg);
	buf[0] = '\0';
	for (size_t i = 0; i < pm_expr__ref_count(e); i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? "," : "",
			 pm_expr__ref(e, i, NULL, NULL));
	/* a name the folding dropped was never resolved */
	assert_int_equal(n, (int)pm_expr__ref_count(e));
	pm_expr__free(e);
}

/*
 * perf's expr__find_ids cases (tools/perf/tests/expr.c, 6.1 and later): the
 * events a metric needs once its constants are folded, so that a branch
 * that cannot be taken opens nothing, and names nothing knows there are no
 * error; and the values of folded expressions are the unfolded ones'.
 */
static void test_perf_find_ids(void **state)
{
	static const struct {
		double smt;
		const char *text, *ids;
	} cases[] = {
		{ 0, "FOO + BAR + BAZ + BOZO", "FOO,BAR,BAZ,BOZO" },
		{ 0, "EVENT1\\,param\\=?@ + EVENT2\\,param\\=?@",
		  "EVENT1,param=?@,EVENT2,param=?@" },
		{ 0, "dash\\-event1 - dash\\-event2", "dash-event1,dash-event2" },
		/* only EVENT1 or EVENT2 is needed, as #smt_on says */
		{ 1, "EVENT1 if #smt_on else EVENT2", "EVENT1" },
		{ 0, "EVENT1 if #smt_on else EVENT2", "EVENT2" },
		/* a constant 1.0 without EVENT1 */
		{ 0, "1.0 if EVENT1 > 100.0 else 1.0", "" },
		{ 0, "source_count(EVENT1)", "EVENT1" },
		/* later perf's (6.4 on): x & 0 is 0 without x */
		{ 0, "0 & EVENT1 > 0", "" },
		{ 0, "EVENT1 > 0 & 0", "" },
		{ 0, "1 & EVENT1 > 0", "EVENT1" },
		{ 0, "EVENT1 > 0 & 1", "EVENT1" },
		{ 0, "0 | EVENT1 > 0", "EVENT1" },
		{ 0, "EVENT1 > 0 | 0", "EVENT1" },
		/* d_ratio by a constant 0 is 0, x / 0 no number: x is not needed */
		{ 0, "d_ratio(EVENT1, 0)", "" },
		{ 0, "EVENT1 / (2 - 2)", "" },
		/* has_event() guards a name this machine lacks */
		{ 0, "NOSUCH if has_event(NOSUCH) else EVENT1", "EVENT1" },
		{ 0, "EVENT1 if has_event(EVENT1) else NOSUCH", "EVENT1" },
		/* an event-free metric: no event at all */
		{ 1, "#smt_on", "" },
		{ 1, "2 * #smt_on + 1", "" },
	};
	char ids[512];

	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		smt = cases[i].smt;
		folded_ids(cases[i].text, ids, sizeof(ids));
		if (strcmp(ids, cases[i].ids))
			fail_msg("'%s' (smt %g): ids '%s', want '%s'", cases[i].text, smt, ids,
				 cases[i].ids);
	}
}

/* Folding never changes a value: every arithmetic case, folded, evaluates the same. */
static void test_folded_values(void **state)
{
	static const char *const texts[] = {
		"1 + 2 * 3",
		"(1 + 2) * 3",
		"-a * b",
		"7 % 4 + 1",
		"6 | 1",
		"6 & 3",
		"1 | 2 ^ 3 & 1",
		"a if b > a else c",
		"a if zero else b if zero else c",
		"d_ratio(a, zero)",
		"min(2, 3) * a",
		"a / zero",
		"nan + 1",
		"2 & a",
		"0 & nan",
		"1e300 * 1e300 | 1",
	};
	int n = 0;

	(void)n;
	for (size_t i = 0; i < PM_ARRAY_SIZE(texts); i++) {
		struct pm_expr *e = NULL;
		struct pm_diag d;
		double want = eval(texts[i]), got;

		pm_diag__init(&d);
		setup_slots();
		assert_int_equal(pm_expr__compile_folded(texts[i], constants, resolve, NULL, &e,
							 &d),
				 0);
		got = pm_expr__eval(e, slots);
		pm_expr__free(e);
		/* 0 & nan: perf's folding makes it 0 (the name is never read); else the same */
		if (!strcmp(texts[i], "0 & nan"))
			want = 0;
		if (!(got == want) && !(isnan(got) && isnan(want)))
			fail_msg("'%s': folded %g, unfolded %g", texts[i], got, want);
	}
}

/* Every MetricExpr perf ships for AMD Zen and arm64 parses. */
static void test_perf_vectors(void **state)
{
	char path[4096], line[8192];
	const char *src = getenv("PMUMON_SOURCE_ROOT");
	size_t n = 0, failed = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/metric-exprs.txt", src ? src : ".");
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *expr = strrchr(line, '\t');
		struct pm_diag d;

		if (line[0] == '#' || !expr)
			continue;
		expr++;
		expr[strcspn(expr, "\n")] = '\0';
		pm_diag__init(&d);
		n++;
		if (pm_expr__check(expr, &d) < 0) {
			failed++;
			print_message("%s: %s at %d\n", line, d.msg, d.pos);
		}
	}
	fclose(f);
	print_message("%zu perf MetricExprs parsed, %zu failed\n", n, failed);
	assert_true(n > 0);
	assert_int_equal(failed, 0);
}

/*
 * Ratios: the parts of a / b or d_ratio(a, b) under constant factors, whose
 * sums over intervals give the ratio of the whole stretch; no parts where the
 * top is not a division (a sum, a product of names, an if).
 */
static void test_ratio_parts(void **state)
{
	static const struct {
		const char *text;
		bool ratio;
		double num, den;
	} cases[] = {
		{ "d_ratio(a, b)", true, 1, 2 },
		{ "b / (b + c)", true, 2, 5 }, /* BlueField's hit ratio */
		{ "a * 64 / 1e6 / duration_time", true, 64e-6, 2 },
		{ "h * 64 * c / b / 1e6", true, 8 * 64 * 3e-6, 2 }, /* constants peeled off */
		{ "100 * (a / d)", true, 100, 4 },
		{ "(a * 100) / (duration_time * b)", true, 100, 4 },
		{ "2 * 3 * (d / e)", true, 24, 5 },
		{ "a / b * c / d / duration_time / 1e9", true, 3.75e-10, 2 }, /* a frequency */
		{ "a + b", false, NAN, NAN },
		{ "a * b", false, NAN, NAN },
		{ "a", false, NAN, NAN },
		{ "a / zero if b else c", false, NAN, NAN },
		{ "64 * 2", false, NAN, NAN },
		{ "a / 0", false, NAN, NAN }, /* no constant factor of 1 / 0 */
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		struct pm_expr *e = NULL;
		struct pm_diag d;
		double num, den;

		pm_diag__init(&d);
		setup_slots();
		print_message("%s\n", cases[i].text);
		assert_int_equal(pm_expr__compile(cases[i].text, resolve, NULL, &e, &d), 0);
		assert_int_equal(pm_expr__is_ratio(e), cases[i].ratio);
		assert_int_equal(pm_expr__eval_ratio(e, slots, &num, &den), cases[i].ratio);
		if (cases[i].ratio) {
			th_assert_near(num, cases[i].num, 1e-15);
			th_assert_near(den, cases[i].den, 1e-15);
			/* the parts give the value */
			th_assert_near(num / den, pm_expr__eval(e, slots), 1e-15);
		} else {
			assert_true(isnan(num) && isnan(den));
		}
		pm_expr__free(e);
	}
}

/* Degrees in time: counts and duration_time 1, constants 0; a mix is none. */
static void test_degree(void **state)
{
	static const struct {
		const char *text;
		int whole, num, den;
	} cases[] = {
		{ "a * 64", 1, PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE },
		{ "a * 64 / 1e6 / duration_time", 0, 1, 1 },
		{ "d_ratio(a, b)", 0, 1, 1 },
		{ "a - b - c", 1, PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE },
		{ "a + duration_time * a", PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE,
		  PM_EXPR_NO_DEGREE },
		{ "a / b * c / #slots / duration_time", 0, 1, 1 }, /* aperf, mperf, tsc */
		{ "(a if b > c else d) / duration_time", 0, 1, 1 },
		{ "a % b", PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE },
		{ "#slots * a / b", 0, 1, 1 },
		{ "min(a, 5)", PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE, PM_EXPR_NO_DEGREE },
	};
	int deg[32] = { 0 };

	for (int i = 0; i < 26; i++)
		deg[i] = 1; /* counts */
	deg[31] = 1;	    /* duration_time */
	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		struct pm_expr *e = NULL;
		struct pm_diag d;

		pm_diag__init(&d);
		print_message("%s\n", cases[i].text);
		assert_int_equal(pm_expr__compile(cases[i].text, resolve, NULL, &e, &d), 0);
		assert_int_equal(pm_expr__degree(e, PM_EXPR_WHOLE, deg), cases[i].whole);
		assert_int_equal(pm_expr__degree(e, PM_EXPR_NUM, deg), cases[i].num);
		assert_int_equal(pm_expr__degree(e, PM_EXPR_DEN, deg), cases[i].den);
		pm_expr__free(e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_nan),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_depth_bounded),
		cmocka_unit_test(test_refs),
		cmocka_unit_test(test_perf_vectors),
		cmocka_unit_test(test_perf_expr_values),
		cmocka_unit_test(test_perf_find_ids),
		cmocka_unit_test(test_folded_values),
		cmocka_unit_test(test_ratio_parts),
		cmocka_unit_test(test_degree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
