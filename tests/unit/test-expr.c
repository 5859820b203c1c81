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
		cmocka_unit_test(test_arithmetic),  cmocka_unit_test(test_nan),
		cmocka_unit_test(test_errors),	    cmocka_unit_test(test_depth_bounded),
		cmocka_unit_test(test_refs),	    cmocka_unit_test(test_perf_vectors),
		cmocka_unit_test(test_ratio_parts), cmocka_unit_test(test_degree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
