// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon report's parsers of user input (cli/report/when.c): --from/--to's
 * moments, their wall clocks for a run, and --above's thresholds.
 * Table-driven; out-parameters untouched on failure.
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
#include <time.h>
#include <cmocka.h>

#include "report/report.h"

#define S 1000000000ll
/* 2026-01-01T00:00:00Z */
#define Y2026 (1767225600ll * S)

/* the rows of test_when_parse's table */
#define SECONDS(s, v)                                                    \
	{                                                                \
		.in = s, .ok = 1, .kind = CLI_WHEN_SECONDS, .seconds = v \
	}
#define CLOCK(s, k, hh, mm, ss, z, off)                                               \
	{                                                                             \
		.in = s, .ok = 1, .kind = k, .h = hh, .m = mm, .sec = ss, .zoned = z, \
		.offset = off                                                         \
	}
#define BAD(s)          \
	{               \
		.in = s \
	}

static void test_when_parse(void **state)
{
	static const struct {
		const char *in;
		int ok;
		enum cli_when_kind kind;
		double seconds;
		int h, m;
		double sec;
		bool zoned;
		int offset;
	} t[] = {
		SECONDS("90", 90),
		SECONDS("1.5", 1.5),
		SECONDS("90s", 90),
		SECONDS("0", 0),
		CLOCK("02:03", CLI_WHEN_TIME_OF_DAY, 2, 3, 0, false, 0),
		CLOCK("2:03", CLI_WHEN_TIME_OF_DAY, 2, 3, 0, false, 0),
		CLOCK("02:03:30", CLI_WHEN_TIME_OF_DAY, 2, 3, 30, false, 0),
		CLOCK("23:59:59.25", CLI_WHEN_TIME_OF_DAY, 23, 59, 59.25, false, 0),
		CLOCK("2026-01-31T02:03", CLI_WHEN_DATE_TIME, 2, 3, 0, false, 0),
		CLOCK("2026-01-31 02:03:30", CLI_WHEN_DATE_TIME, 2, 3, 30, false, 0),
		CLOCK("2026-01-31T02:03:30Z", CLI_WHEN_DATE_TIME, 2, 3, 30, true, 0),
		CLOCK("2026-01-31T02:03:30.5+01:00", CLI_WHEN_DATE_TIME, 2, 3, 30.5, true, 3600),
		CLOCK("2026-01-31T02:03-0530", CLI_WHEN_DATE_TIME, 2, 3, 0, true, -19800),
		CLOCK("2024-02-29T00:00", CLI_WHEN_DATE_TIME, 0, 0, 0, false, 0),
		BAD(""),
		BAD("-5"),
		BAD("s"),
		BAD("1e20"),
		BAD("nan"),
		BAD("24:00"),
		BAD("02:60"),
		BAD("02:03:60"),
		BAD("02:3"),
		BAD("123:00"),
		BAD("02:03:"),
		BAD("02:03:30."),
		BAD("02:03 "),
		BAD("2026-13-01T00:00"),
		BAD("2025-02-29T00:00"),
		BAD("2026-01-32T00:00"),
		BAD("2026-01-31"),
		BAD("2026-01-31T02:03+15:00"),
		BAD("2026-01-31T02:03Zx"),
		BAD("1969-12-31T23:59"),
		BAD("yesterday"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cli_when w = { .kind = 99 }, old = w;
		char why[512] = "";
		int r = cli_when_parse(t[i].in, &w, why, sizeof(why));

		if (!t[i].ok) {
			if (r != -EINVAL || !strstr(why, "expected seconds into the run") ||
			    memcmp(&w, &old, sizeof(w)) != 0)
				fail_msg("'%s' should be refused, untouched", t[i].in);
			continue;
		}
		if (r != 0)
			fail_msg("'%s': %s", t[i].in, why);
		assert_int_equal(w.kind, t[i].kind);
		if (w.kind == CLI_WHEN_SECONDS) {
			assert_true(w.seconds == t[i].seconds);
			continue;
		}
		assert_int_equal(w.hour, t[i].h);
		assert_int_equal(w.minute, t[i].m);
		assert_true(w.second == t[i].sec);
		assert_int_equal(w.zoned, t[i].zoned);
		assert_int_equal(w.offset_s, t[i].offset);
	}
}

static void test_when_resolve(void **state)
{
	/* a run from 2026-01-01T00:00:01Z, two days long, or ten seconds */
	static const struct {
		const char *in;
		int64_t end, not_before;
		bool utc;
		int r;
		int64_t want;
	} t[] = {
		{ .in = "90",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = true,
		  .r = 0,
		  .want = Y2026 + S + 90 * S },
		{ .in = "00:00:04",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = true,
		  .r = 0,
		  .want = Y2026 + 4 * S },
		{ .in = "00:00:04.5",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = true,
		  .r = 0,
		  .want = Y2026 + 4 * S + S / 2 },
		/* before the run's start: the next day's */
		{ .in = "00:00:00",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = true,
		  .r = 0,
		  .want = Y2026 + 86400 * S },
		{ .in = "2026-01-01T00:00:04Z",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = false,
		  .r = 0,
		  .want = Y2026 + 4 * S },
		{ .in = "2026-01-01T09:00:04+09:00",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = false,
		  .r = 0,
		  .want = Y2026 + 4 * S },
		{ .in = "2026-01-01 00:00:04",
		  .end = Y2026 + 10 * S,
		  .not_before = 0,
		  .utc = true,
		  .r = 0,
		  .want = Y2026 + 4 * S },
		/* a run of two days holds 12:00 twice: the date is needed */
		{ .in = "12:00",
		  .end = Y2026 + 2 * 86400 * S,
		  .not_before = 0,
		  .utc = true,
		  .r = -ERANGE,
		  .want = 0 },
		/* but not after --from: the first one from it */
		{ .in = "12:00",
		  .end = Y2026 + 2 * 86400 * S,
		  .not_before = Y2026 + 86400 * S,
		  .utc = true,
		  .r = 0,
		  .want = Y2026 + (86400 + 43200) * S },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cli_when w;
		char why[512] = "";
		int64_t got = -1;
		int64_t start = Y2026 + S;
		int r;

		assert_int_equal(cli_when_parse(t[i].in, &w, why, sizeof(why)), 0);
		r = cli_when_resolve(&w, start, t[i].end, t[i].not_before ? t[i].not_before : start,
				     t[i].utc, &got, why, sizeof(why));
		if (r != t[i].r)
			fail_msg("'%s': %d (%s), not %d", t[i].in, r, why, t[i].r);
		if (r < 0) {
			assert_true(got == -1);
			assert_non_null(strstr(why, "give the date, as in 2026-01-02T12:00:00"));
			continue;
		}
		if (got != t[i].want)
			fail_msg("'%s': %lld, not %lld", t[i].in, (long long)got,
				 (long long)t[i].want);
	}
}

static void test_wall_text(void **state)
{
	char buf[64];

	(void)state;
	cli_wall_text(Y2026 + 3723 * S + 250000000, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "2026-01-01 01:02:03.250");
	cli_wall_text(Y2026 + 3723 * S, true, false, buf, sizeof(buf));
	assert_string_equal(buf, "2026-01-01 01:02:03");
	cli_wall_iso(Y2026 + 3723 * S, buf, sizeof(buf));
	assert_string_equal(buf, "2026-01-01T01:02:03.000Z");
	cli_zone_text(Y2026, true, buf, sizeof(buf));
	assert_string_equal(buf, "UTC");
	setenv("TZ", "JST-9", 1);
	tzset();
	cli_zone_text(Y2026, false, buf, sizeof(buf));
	assert_string_equal(buf, "UTC+09:00");
	cli_wall_text(Y2026, false, false, buf, sizeof(buf));
	assert_string_equal(buf, "2026-01-01 09:00:00");
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_above(void **state)
{
	static const struct {
		const char *in;
		int ok;
		double value;
		bool pct;
		const char *unit;
		/* its threshold for a series in this unit */
		const char *series_unit;
		double in_unit;
	} t[] = {
		{ .in = "6400",
		  .ok = 1,
		  .value = 6400,
		  .pct = false,
		  .unit = "",
		  .series_unit = "MB/s",
		  .in_unit = 6400 },
		{ .in = "80%",
		  .ok = 1,
		  .value = 80,
		  .pct = true,
		  .unit = "",
		  .series_unit = "MB/s",
		  .in_unit = 80 },
		{ .in = "25.6GB/s",
		  .ok = 1,
		  .value = 25.6,
		  .pct = false,
		  .unit = "GB/s",
		  .series_unit = "MB/s",
		  .in_unit = 25600 },
		{ .in = "6400 MB/s",
		  .ok = 1,
		  .value = 6400,
		  .pct = false,
		  .unit = "MB/s",
		  .series_unit = "GB/s",
		  .in_unit = 6.4 },
		{ .in = "3e7 count/s",
		  .ok = 1,
		  .value = 3e7,
		  .pct = false,
		  .unit = "count/s",
		  .series_unit = "count/s",
		  .in_unit = 3e7 },
		{ .in = "3e7count/s",
		  .ok = 1,
		  .value = 3e7,
		  .pct = false,
		  .unit = "count/s",
		  .series_unit = "MB/s",
		  .in_unit = NAN },
		{ .in = "1e8 count/s",
		  .ok = 1,
		  .value = 1e8,
		  .pct = false,
		  .unit = "count/s",
		  .series_unit = "msec/s",
		  .in_unit = NAN },
		{ .in = "-1",
		  .ok = 1,
		  .value = -1,
		  .pct = false,
		  .unit = "",
		  .series_unit = "x",
		  .in_unit = -1 },
		{ .in = "5 W",
		  .ok = 1,
		  .value = 5,
		  .pct = false,
		  .unit = "W",
		  .series_unit = "W",
		  .in_unit = 5 },
		{ .in = "" },
		{ .in = "%" },
		{ .in = "0%" },
		{ .in = "-5%" },
		{ .in = "GB/s" },
		{ .in = "6400 MB/s x" },
		{ .in = "nan" },
		{ .in = "1e999" },
		{ .in = "5 %W" },
		{ .in = "5 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cli_above a = { .value = 42 }, old = a;
		char why[512] = "";
		int r = cli_above_parse(t[i].in, &a, why, sizeof(why));
		double v;

		if (!t[i].ok) {
			if (r != -EINVAL || !strstr(why, "expected a value") ||
			    memcmp(&a, &old, sizeof(a)) != 0)
				fail_msg("'%s' should be refused, untouched", t[i].in);
			continue;
		}
		if (r != 0)
			fail_msg("'%s': %s", t[i].in, why);
		assert_true(a.value == t[i].value);
		assert_int_equal(a.pct, t[i].pct);
		assert_string_equal(a.unit, t[i].unit);
		if (a.pct)
			continue;
		v = cli_above_in(&a, t[i].series_unit);
		if (isnan(t[i].in_unit) ? !isnan(v) : !(fabs(v - t[i].in_unit) <= 1e-9 * fabs(v)))
			fail_msg("'%s' in %s: %g, not %g", t[i].in, t[i].series_unit, v,
				 t[i].in_unit);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_when_parse),
		cmocka_unit_test(test_when_resolve),
		cmocka_unit_test(test_wall_text),
		cmocka_unit_test(test_above),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
