// SPDX-License-Identifier: GPL-2.0-only
/* Strict number parsing and CPU lists: table-driven, out-parameters untouched on failure. */
#include "helpers.h"
#include "pmumon/pmumon.h"
#include "source/source.h"
#include "source/wrap.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "util/counts.h"
#include "util/cpus.h"
#include "util/util.h"

static void test_parse_u64(void **state)
{
	static const struct {
		const char *in;
		int base;
		int ret;
		uint64_t want;
	} t[] = {
		{ "0", 0, 0, 0 },
		{ "42", 0, 0, 42 },
		{ "0x45", 0, 0, 0x45 },
		{ "0X1c7", 0, 0, 0x1c7 },
		{ "017", 0, 0, 017 },
		{ "017", 10, 0, 17 }, /* decimal, not octal */
		{ "0x10", 10, -EINVAL, 0 },
		{ "ff", 16, 0, 0xff },
		{ "0xff", 16, 0, 0xff },
		{ "18446744073709551615", 10, 0, UINT64_MAX },
		{ "18446744073709551616", 10, -ERANGE, 0 },
		{ "0x10000000000000000", 0, -ERANGE, 0 },
		{ "", 0, -EINVAL, 0 },
		{ "-1", 0, -EINVAL, 0 },
		{ "+1", 0, -EINVAL, 0 },
		{ " 1", 0, -EINVAL, 0 },
		{ "1 ", 0, -EINVAL, 0 },
		{ "0x", 0, -EINVAL, 0 },
		{ "12a", 10, -EINVAL, 0 },
		{ "08", 0, -EINVAL, 0 },
		{ "1", 7, -EINVAL, 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		uint64_t v = 0xdeadbeef;
		int r = pm_parse_u64(t[i].in, strlen(t[i].in), t[i].base, &v);

		if (r != t[i].ret)
			fail_msg("'%s': got %d, want %d", t[i].in, r, t[i].ret);
		assert_int_equal(v, r == 0 ? t[i].want : 0xdeadbeef);
	}
}

static void test_parse_int(void **state)
{
	int v = 7;

	assert_int_equal(pm_parse_int_str("-1", &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(pm_parse_int_str("2147483647", &v), 0);
	assert_int_equal(v, 2147483647);
	v = 7;
	assert_int_equal(pm_parse_int_str("2147483648", &v), -ERANGE);
	assert_int_equal(pm_parse_int_str("--1", &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_parse_double(void **state)
{
	static const struct {
		const char *in;
		int ret;
		double want;
	} t[] = {
		{ "1", 0, 1.0 },
		{ "2.3283064365386962890625e-10", 0, 2.3283064365386962890625e-10 },
		{ "6.1e-5", 0, 6.1e-5 },
		{ "1e3", 0, 1000.0 },
		{ "1,5", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 },
		{ "nan", -EINVAL, 0 },
		{ "0x1p3", -EINVAL, 0 },
		{ "1e999", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "1.5x", -EINVAL, 0 },
		/* one sign at most, and only a minus (import read "--5" as 5) */
		{ "-5", 0, -5.0 },
		{ "-0.25e-2", 0, -0.25e-2 },
		{ "--5", -EINVAL, 0 },
		{ "-+5", -EINVAL, 0 },
		{ "+-5", -EINVAL, 0 },
		{ "+5", -EINVAL, 0 },
		{ "5-", -EINVAL, 0 },
		{ "-", -EINVAL, 0 },
		/* a point needs a digit on one side; an exponent needs its digits */
		{ ".5", 0, 0.5 },
		{ "5.", 0, 5.0 },
		{ ".", -EINVAL, 0 },
		{ "-.", -EINVAL, 0 },
		{ "1e+3", 0, 1000.0 },
		{ "1E-3", 0, 1e-3 },
		{ "1e", -EINVAL, 0 },
		{ "1e+", -EINVAL, 0 },
		{ "1e--3", -EINVAL, 0 },
		{ "e5", -EINVAL, 0 },
		{ "1.2.3", -EINVAL, 0 },
		{ "1e3.5", -EINVAL, 0 },
		{ "- 5", -EINVAL, 0 },
	};

	/* a comma locale must not change anything (if the machine has one) */
	setlocale(LC_NUMERIC, "de_DE.UTF-8");
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		double v = -7;
		int r = pm_parse_double(t[i].in, strlen(t[i].in), &v);

		if (r != t[i].ret)
			fail_msg("'%s': got %d, want %d", t[i].in, r, t[i].ret);
		if (r == 0)
			assert_true(v == t[i].want);
		else
			assert_true(v == -7);
	}
	setlocale(LC_NUMERIC, "C");
}

/*
 * The decimals pm_parse_double reads without strtod (15 digits or fewer, no
 * exponent) read to the same double, bit for bit, on 10^6 random ones of 1 to
 * 17 digits with the point anywhere; those it leaves to strtod too.
 */
static void test_parse_double_fast(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int i = 0; i < 1000000; i++) {
		char s[32];
		size_t n = 0, digits;
		double got = NAN, want;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		digits = 1 + x % 17;
		if (x >> 63)
			s[n++] = '-';
		for (size_t d = 0, point = (x >> 8) % (digits + 1); d < digits; d++) {
			if (d == point && d)
				s[n++] = '.';
			s[n++] = (char)('0' + (x >> (10 + 3 * (d % 16))) % 10);
		}
		s[n] = '\0';
		want = strtod(s, NULL);
		assert_int_equal(pm_parse_double(s, n, &got), 0);
		if (memcmp(&got, &want, sizeof(got)) != 0)
			fail_msg("'%s': %.17g, strtod says %.17g", s, got, want);
	}
}

static void test_cpus(void **state)
{
	static const struct {
		const char *in;
		int ret;
		const char *out;
		size_t n;
	} t[] = {
		{ "0", 0, "0", 1 },
		{ "0-3\n", 0, "0-3", 4 },
		{ "0-3,8,10-11", 0, "0-3,8,10-11", 7 },
		{ "3,1,2", 0, "1-3", 3 },
		{ "1,1", 0, "1", 1 },
		{ "", 0, "", 0 },
		{ "\n", 0, "", 0 },
		{ "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60", 0,
		  "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60", 16 },
		{ "0-", -EINVAL, NULL, 0 },
		{ "3-1", -EINVAL, NULL, 0 },
		{ "1,", -EINVAL, NULL, 0 },
		{ ",1", -EINVAL, NULL, 0 },
		{ "a", -EINVAL, NULL, 0 },
		{ "1-2-3", -EINVAL, NULL, 0 },
		{ "99999", -ERANGE, NULL, 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_cpus c = { .n = 77 };
		char buf[256];
		int r = pm_cpus__parse(t[i].in, strlen(t[i].in), &c);

		if (r != t[i].ret)
			fail_msg("'%s': got %d, want %d", t[i].in, r, t[i].ret);
		if (r < 0) {
			assert_int_equal(c.n, 77);
			continue;
		}
		assert_int_equal(c.n, t[i].n);
		assert_int_equal(pm_cpus__format(&c, buf, sizeof(buf)), 0);
		assert_string_equal(buf, t[i].out);
		pm_cpus__done(&c);
	}
}

static void test_cpus_ops(void **state)
{
	struct pm_cpus a, b, c;
	char buf[8];

	assert_int_equal(pm_cpus__parse("0-7", 3, &a), 0);
	assert_int_equal(pm_cpus__parse("4-11", 4, &b), 0);
	assert_int_equal(pm_cpus__intersect(&a, &b, &c), 0);
	assert_int_equal(c.n, 4);
	assert_true(pm_cpus__has(&c, 4) && pm_cpus__has(&c, 7) && !pm_cpus__has(&c, 8));
	assert_int_equal(pm_cpus__format(&a, buf, 3), -ENAMETOOLONG);
	pm_cpus__done(&a);
	pm_cpus__done(&b);
	pm_cpus__done(&c);
}

static void test_affixes(void **state)
{
	assert_true(pm_str_has_prefix("ali_drw_21000", "ali_drw"));
	assert_false(pm_str_has_prefix("ali", "ali_drw"));
	assert_true(pm_str_has_suffix("hif_rd.scale", ".scale"));
	assert_true(pm_str_has_suffix("ECC_SINGLE_ERROR_CNT", "_CNT"));
	assert_false(pm_str_has_suffix(".json", ".json")); /* nothing before it */
	assert_false(pm_str_has_suffix("SERR_INJ", "_CNT"));
	assert_false(pm_str_has_suffix("x", "_CNT"));
}

static void test_strbuf(void **state)
{
	struct pm_strbuf b = { 0 };
	char *s;

	pm_strbuf__puts(&b, "ali_drw");
	pm_strbuf__printf(&b, "/%s/%d", "hif_rd", 2);
	s = pm_strbuf__steal(&b);
	assert_string_equal(s, "ali_drw/hif_rd/2");
	assert_null(b.s);
	free(s);
}

/* The one digit writer of lib/out's numbers and jevents' encodings. */
static void test_u64_digits(void **state)
{
	static const struct {
		uint64_t v;
		unsigned base;
		const char *want;
	} t[] = {
		{ 0, 10, "0" },
		{ 9, 10, "9" },
		{ 10, 10, "10" },
		{ 1000000000, 10, "1000000000" },
		{ UINT64_MAX, 10, "18446744073709551615" },
		{ 0, 16, "0" },
		{ 0xa, 16, "a" },
		{ 0x100003807, 16, "100003807" },
		{ UINT64_MAX, 16, "ffffffffffffffff" },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		char buf[PM_U64_DIGITS];
		size_t n = pm_u64_digits(t[i].v, t[i].base, buf);

		assert_string_equal(buf, t[i].want);
		assert_int_equal(n, strlen(t[i].want));
	}
}

/*
 * A read's difference modulo the width, the doubt of a read later than 3/4
 * of the wrap time at the fastest rate seen before it, and a counter that
 * cannot wrap going down: a reset, its stretch left out (issue 12 items 4, 6).
 */
static void test_wrap_delta(void **state)
{
	static const struct {
		double rate; /* counts per ns seen before */
		unsigned width;
		bool wraps;
		uint64_t last, val, dt;
		uint64_t delta;
		unsigned flags;
	} t[] = {
		/* a wrap, before any rate is known: nothing to doubt */
		{ 0, 32, true, 10, 5, 1000000000, 0xfffffffbull, 0 },
		/* 1 G/s: 2^32 in 4.295 s, doubted past 3.221 s */
		{ 1.0, 32, true, 0, 100, 3200000000ull, 100, 0 },
		{ 1.0, 32, true, 0, 100, 3250000000ull, 100, PM_ROW_WRAP_UNCERTAIN },
		{ 1.0, 32, true, 4000000000ull, 100, 3250000000ull, 294967396ull,
		  PM_ROW_WRAP_UNCERTAIN },
		/* 48 bits at 1.5625e12/s: 180 s to wrap, doubted past 135 s */
		{ 1562.5, 48, true, 5, 4, 130000000000ull, (1ull << 48) - 1, 0 },
		{ 1562.5, 48, true, 5, 4, 140000000000ull, (1ull << 48) - 1,
		  PM_ROW_WRAP_UNCERTAIN },
		/* a statistic that went down: reset, whatever its width */
		{ 1.0, 32, false, 100, 7, 1000000, 0, PM_ROW_RESET },
		{ 0, 64, false, 100, 0, 1000000, 0, PM_ROW_RESET },
		{ 0, 32, false, 100, 107, 1000000, 7, 0 },
		/* a 64-bit counter does not wrap: going down is a reset, and never late */
		{ 1e9, 64, true, 100, 7, 1000000, 0, PM_ROW_RESET },
		{ 1e9, 64, true, 7, 100, 1000000000000ull, 93, 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_wrap_poll w = { .max_rate = t[i].rate };
		uint64_t delta = 12345;
		unsigned flags = pm_wrap__delta(&w, t[i].width, t[i].wraps, t[i].last, t[i].val,
						t[i].dt, &delta);

		if (flags != t[i].flags || delta != t[i].delta)
			fail_msg("case %zu: flags %#x delta %llu, want %#x %llu", i, flags,
				 (unsigned long long)delta, t[i].flags,
				 (unsigned long long)t[i].delta);
		/* the rate is learned after the check, from what was counted */
		if (!(w.max_rate >= t[i].rate) ||
		    (t[i].dt && !(w.max_rate >= (double)t[i].delta / (double)t[i].dt)))
			fail_msg("case %zu: rate %g", i, w.max_rate);
	}
}

/* count * enabled / running, the one multiplex scaling (aggr.c, metric.c) */
static void test_counts_scale(void **state)
{
	static const struct {
		uint64_t val, ena, run;
		double want; /* NAN: no value */
	} t[] = {
		{ 100, 1000, 1000, 100 }, /* ran all the time */
		{ 100, 1000, 2000, 100 }, /* run > ena (clock skew): as it is */
		{ 100, 1000, 500, 200 },  /* ran half: twice */
		{ 0, 1000, 500, 0 },	  /* counted nothing */
		{ 100, 1000, 0, NAN },	  /* never ran: no value, not inf */
		{ 0, 0, 0, NAN },	  /* never enabled either */
		{ 5, 0, 1, 5 },		  /* enabled 0 but ran: as it is */
		{ 3, 10, 4, 7.5 },	  /* not an integer */
		/* val * ena overflows 64 bits; the double form does not */
		{ UINT64_MAX, UINT64_MAX, UINT64_MAX / 2, 2.0 * (double)UINT64_MAX },
		{ 1ULL << 62, 1ULL << 40, 1ULL << 20, 0x1p82 },
		{ UINT64_MAX, 1, 1, (double)UINT64_MAX },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		double got = pm_counts__scale(t[i].val, t[i].ena, t[i].run);

		if (isnan(t[i].want) ? !isnan(got) :
				       !(fabs(got - t[i].want) <= 1e-9 * fabs(t[i].want)))
			fail_msg("case %zu: %g, want %g", i, got, t[i].want);
		if (!isnan(t[i].want) && !isfinite(got))
			fail_msg("case %zu: not finite", i);
	}
}

/* A count in its unit: ns to msec is the decimal's nearest double, so it prints short. */
static void test_counts_unit(void **state)
{
	char buf[64];

	(void)state;
	assert_true(pm_counts__unit(300764871, 1e-6) == 300.764871);
	pm_fmt_double(buf, sizeof(buf), pm_counts__unit(300764871, 1e-6));
	assert_string_equal(buf, "300.764871"); /* * 1e-6: 300.76487099999997 */
	assert_true(pm_counts__unit(1500, 1e-3) == 1.5);
	assert_true(pm_counts__unit(3, 64) == 192);	   /* not 1/N: multiplied */
	assert_true(pm_counts__unit(10, 0.3) == 10 * 0.3); /* 1/0.3 is no integer */
	assert_true(pm_counts__unit(7, 1) == 7);
	assert_true(isnan(pm_counts__unit(NAN, 1e-6)));
}

/* The registry: every id has a source with the whole lifecycle and its own name. */
static void test_source_registry(void **state)
{
	size_t recorded = 0, unclaiming = 0, locks = 0;

	(void)state;
	for (size_t i = 0; i < PM_SRC__N; i++) {
		const struct pm_source_ops *o = pm_sources[i];

		assert_non_null(o);
		assert_true(o->open && o->enable && o->read && o->disable && o->close &&
			    o->discover);
		assert_string_not_equal(pm_source_name((enum pm_source_id)i), "?");
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(pm_source_name((enum pm_source_id)i),
						pm_source_name((enum pm_source_id)j));
		recorded += o->origin == PM_SOURCE_RECORDED;
		unclaiming += !o->claims && o->origin == PM_SOURCE_LIVE;
		/* a lock of its own in run/pmumon/NAME.lock: doctor finds an older pmumon's
		 * at run/lock/pmumon-NAME.lock */
		if (!o->lock_path)
			continue;
		locks++;
		assert_true(pm_str_has_prefix(o->lock_path, "run/pmumon/"));
		assert_string_equal(o->lock_path + strlen(o->lock_path) - 5, ".lock");
		for (size_t j = 0; j < i; j++)
			assert_false(pm_sources[j]->lock_path &&
				     !strcmp(pm_sources[j]->lock_path, o->lock_path));
	}
	assert_true(locks > 0); /* msr, hwmon, sideband: a new source changes no count here */
	assert_int_equal(recorded, 1);	 /* replay */
	assert_int_equal(unclaiming, 1); /* perf: counts what no other source claims */
	assert_null(pm_sources[PM_SRC_PERF]->claims);
	assert_string_equal(pm_source_name(PM_SRC_MSR), "msr");
	assert_string_equal(pm_source_name(PM_SRC__N), "?");
}

/* Growable arrays, the element size taken from the array; snprintf that says it cut. */
static void test_grow_and_snprintf(void **state)
{
	int *a = NULL;
	size_t cap = 0;
	char buf[4];

	assert_int_equal(PM_GROW(a, cap, 3), 0);
	assert_true(cap >= 3);
	a[2] = 7;
	assert_int_equal(PM_GROW(a, cap, 100), 0);
	assert_true(cap >= 100);
	assert_int_equal(a[2], 7);
	assert_int_equal(a[99], 0); /* new room is zeroed */
	assert_int_equal(PM_GROW(a, cap, SIZE_MAX), -ENOMEM);
	assert_true(cap >= 100); /* untouched */
	free(a);
	assert_int_equal(pm_parse_double_str(NULL, &(double){ 0 }), -EINVAL);
	assert_int_equal(pm_snprintf(buf, sizeof(buf), "%s", "abc"), 0);
	assert_int_equal(pm_snprintf(buf, sizeof(buf), "%s", "abcd"), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),    cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_parse_double), cmocka_unit_test(test_parse_double_fast),
		cmocka_unit_test(test_cpus),	     cmocka_unit_test(test_cpus_ops),
		cmocka_unit_test(test_strbuf),	     cmocka_unit_test(test_affixes),
		cmocka_unit_test(test_wrap_delta),   cmocka_unit_test(test_counts_scale),
		cmocka_unit_test(test_counts_unit),  cmocka_unit_test(test_source_registry),
		cmocka_unit_test(test_u64_digits),   cmocka_unit_test(test_grow_and_snprintf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
