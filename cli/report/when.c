// SPDX-License-Identifier: GPL-2.0-only
/*
 * The times and thresholds pmumon report takes (--from, --to, --above) and
 * the wall clocks it shows: strict parsers of user input (table-driven
 * tests in tests/unit/test-report-args.c, fuzz/fuzz-when.c), and local
 * time (or UTC) for people.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli-values.h"
#include "util.h"
#include "report.h"

#define NS 1000000000ll
#define DAY_NS (86400 * NS)

/* n digits at s into *ret: the characters after them, or NULL. */
static const char *digits(const char *s, int n, int *ret)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return NULL;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return s + n;
}

/* ":SS" or ":SS.fff" (optional) after HH:MM: the rest, or NULL. */
static const char *seconds_part(const char *s, double *ret)
{
	int sec;
	double frac = 0, scale = 0.1;

	*ret = 0;
	if (*s != ':')
		return s;
	s = digits(s + 1, 2, &sec);
	if (!s || sec > 59)
		return NULL;
	if (*s == '.') {
		if (!isdigit((unsigned char)s[1]))
			return NULL;
		for (s++; isdigit((unsigned char)*s); s++, scale /= 10)
			frac += (*s - '0') * scale;
	}
	*ret = sec + frac;
	return s;
}

/* "HH:MM[:SS[.fff]]" (H may be one digit in a time of day alone): the rest, or NULL. */
static const char *clock_part(const char *s, bool one_digit_hour, struct cli_when *w)
{
	const char *p = digits(s, 2, &w->hour);

	if (!p && one_digit_hour)
		p = digits(s, 1, &w->hour);
	if (!p || *p != ':' || !(p = digits(p + 1, 2, &w->minute)))
		return NULL;
	if (w->hour > 23 || w->minute > 59)
		return NULL;
	return seconds_part(p, &w->second);
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* "Z", "+HH:MM", "+HHMM", "+HH" or nothing: the rest, or NULL. */
static const char *zone_part(const char *s, struct cli_when *w)
{
	int h, m = 0, sign;

	if (*s == 'Z') {
		w->zoned = true;
		return s + 1;
	}
	if (*s != '+' && *s != '-')
		return s;
	sign = *s == '-' ? -1 : 1;
	s = digits(s + 1, 2, &h);
	if (!s)
		return NULL;
	if (*s == ':' || isdigit((unsigned char)*s)) {
		s = digits(s + (*s == ':'), 2, &m);
		if (!s)
			return NULL;
	}
	if (h > 14 || m > 59)
		return NULL;
	w->zoned = true;
	w->offset_s = sign * (h * 3600 + m * 60);
	return s;
}

int cli_when_parse(const char *s, struct cli_when *ret, char *why, size_t size)
{
	struct cli_when w = { 0 };
	const char *p;

	if (!s)
		goto bad;
	/* a date and time: YYYY-MM-DDTHH:MM[:SS[.fff]][zone] (or a space for the T) */
	p = digits(s, 4, &w.year);
	if (p && *p == '-') {
		w.kind = CLI_WHEN_DATE_TIME;
		if (!(p = digits(p + 1, 2, &w.month)) || *p != '-' ||
		    !(p = digits(p + 1, 2, &w.day)) || (*p != 'T' && *p != ' ') ||
		    !(p = clock_part(p + 1, false, &w)) || !(p = zone_part(p, &w)) || *p)
			goto bad;
		if (w.year < 1970 || w.year > 9999 || w.month < 1 || w.month > 12 || w.day < 1 ||
		    w.day > days_in(w.year, w.month))
			goto bad;
		*ret = w;
		return 0;
	}
	if (strchr(s, ':')) {
		w.kind = CLI_WHEN_TIME_OF_DAY;
		p = clock_part(s, true, &w);
		if (!p || *p)
			goto bad;
		*ret = w;
		return 0;
	}
	w.kind = CLI_WHEN_SECONDS;
	{
		char num[64];
		size_t n = strlen(s);

		if (n && s[n - 1] == 's')
			n--; /* "90s" */
		if (!n || n >= sizeof(num))
			goto bad;
		memcpy(num, s, n);
		num[n] = '\0';
		if (pm_parse_double_str(num, &w.seconds) < 0 || !(w.seconds >= 0) ||
		    !(w.seconds < 1e10))
			goto bad;
	}
	*ret = w;
	return 0;
bad:
	snprintf(why, size,
		 "expected seconds into the run (90), a time of day (02:03, 02:03:30) or a date "
		 "and time (2026-01-31T02:03:30, with Z or +01:00 for a zone other than local "
		 "time), not '%s'",
		 s ? s : "");
	return -EINVAL;
}

/* Days since 1970-01-01 of a date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (unsigned)((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* A date and time of day in UTC, or local time: ns since the epoch. */
static int64_t wall_of(int y, int mo, int d, int h, int mi, double sec, bool utc)
{
	double whole = floor(sec);
	int64_t frac_ns = (int64_t)llround((sec - whole) * 1e9);

	if (utc)
		return ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + (int64_t)whole) *
			NS) +
		       frac_ns;
	{
		struct tm tm = { .tm_year = y - 1900,
				 .tm_mon = mo - 1,
				 .tm_mday = d,
				 .tm_hour = h,
				 .tm_min = mi,
				 .tm_sec = (int)whole,
				 .tm_isdst = -1 };
		time_t t = mktime(&tm);

		return (int64_t)t * NS + frac_ns;
	}
}

/* The date (in the zone shown) of a wall clock. */
static void date_of(int64_t wall_ns, bool utc, int *y, int *mo, int *d)
{
	time_t t = (time_t)(wall_ns / NS - (wall_ns % NS < 0));
	struct tm tm;

	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	*y = tm.tm_year + 1900;
	*mo = tm.tm_mon + 1;
	*d = tm.tm_mday;
}

/* The day after y-mo-d. */
static void next_day(int *y, int *mo, int *d)
{
	if (++*d <= days_in(*y, *mo))
		return;
	*d = 1;
	if (++*mo <= 12)
		return;
	*mo = 1;
	++*y;
}

int cli_when_resolve(const struct cli_when *w, int64_t start_wall_ns, int64_t end_wall_ns,
		     int64_t not_before_ns, bool utc, int64_t *ret_wall_ns, char *why, size_t size)
{
	int y, mo, d;
	int64_t first = INT64_MIN, second = INT64_MIN;

	switch (w->kind) {
	case CLI_WHEN_SECONDS:
		*ret_wall_ns = start_wall_ns + (int64_t)llround(w->seconds * 1e9);
		return 0;
	case CLI_WHEN_DATE_TIME:
		*ret_wall_ns = wall_of(w->year, w->month, w->day, w->hour, w->minute, w->second,
				       utc || w->zoned) -
			       (int64_t)w->offset_s * NS;
		return 0;
	case CLI_WHEN_TIME_OF_DAY:
		break;
	}
	/* the first day whose time of day is at or after not_before, and the next one */
	date_of(not_before_ns - DAY_NS, utc, &y, &mo, &d);
	for (int k = 0; k < 4 && second == INT64_MIN; k++, next_day(&y, &mo, &d)) {
		int64_t t = wall_of(y, mo, d, w->hour, w->minute, w->second, utc);

		if (t < not_before_ns)
			continue;
		if (first == INT64_MIN)
			first = t;
		else
			second = t;
	}
	if (first == INT64_MIN)
		first = not_before_ns; /* not reached: four days hold every time of day */
	if (not_before_ns == start_wall_ns && second != INT64_MIN && second <= end_wall_ns) {
		char a[32], b[32];

		cli_wall_text(first, utc, false, a, sizeof(a));
		cli_wall_text(second, utc, false, b, sizeof(b));
		snprintf(why, size,
			 "the run holds %02d:%02d more than once (%s, %s, ...): give the date, as "
			 "in %.10sT%.8s",
			 w->hour, w->minute, a, b, b, b + 11);
		return -ERANGE;
	}
	*ret_wall_ns = first;
	return 0;
}

void cli_wall_text(int64_t wall_ns, bool utc, bool ms, char *buf, size_t size)
{
	time_t t = (time_t)(wall_ns / NS - (wall_ns % NS < 0));
	long rem = (long)((wall_ns % NS + NS) % NS);
	struct tm tm;
	char text[64];

	if (utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
	if (ms)
		snprintf(buf, size, "%s.%03ld", text, rem / 1000000);
	else
		snprintf(buf, size, "%s", text);
}

long cli_zone_offset(int64_t wall_ns, bool utc)
{
	time_t t = (time_t)(wall_ns / NS);
	struct tm tm;

	if (utc)
		return 0;
	localtime_r(&t, &tm);
	return tm.tm_gmtoff;
}

void cli_zone_text(int64_t wall_ns, bool utc, char *buf, size_t size)
{
	long off = cli_zone_offset(wall_ns, utc);

	if (utc)
		snprintf(buf, size, "UTC");
	else
		snprintf(buf, size, "UTC%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 3600,
			 labs(off) % 3600 / 60);
}

void cli_wall_iso(int64_t wall_ns, char *buf, size_t size)
{
	char text[64];

	cli_wall_text(wall_ns, true, true, text, sizeof(text));
	text[10] = 'T';
	snprintf(buf, size, "%sZ", text);
}

/* ---- --above ------------------------------------------------------------------------- */

/* The length of the number at the start of s (a sign, digits, a point, an exponent). */
static size_t number_len(const char *s)
{
	size_t i = 0;

	if (s[i] == '+' || s[i] == '-')
		i++;
	while (isdigit((unsigned char)s[i]) || s[i] == '.')
		i++;
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (isdigit((unsigned char)s[i + 1]) ||
	     ((s[i + 1] == '+' || s[i + 1] == '-') && isdigit((unsigned char)s[i + 2])))) {
		i += 2;
		while (isdigit((unsigned char)s[i]))
			i++;
	}
	return i;
}

int cli_above_parse(const char *s, struct cli_above *ret, char *why, size_t size)
{
	struct cli_above a = { 0 };
	size_t n = s ? number_len(s) : 0;
	char num[64];
	const char *unit;

	if (!n || n >= sizeof(num))
		goto bad;
	memcpy(num, s, n);
	num[n] = '\0';
	if (pm_parse_double_str(num, &a.value) < 0 || !isfinite(a.value))
		goto bad;
	unit = s + n;
	while (*unit == ' ')
		unit++;
	if (!strcmp(unit, "%")) {
		if (!(a.value > 0))
			goto bad;
		a.pct = true;
	} else if (*unit) {
		size_t len = strlen(unit);

		if (len >= sizeof(a.unit))
			goto bad;
		for (size_t i = 0; i < len; i++)
			if (!isgraph((unsigned char)unit[i]) || unit[i] == '%')
				goto bad;
		memcpy(a.unit, unit, len + 1);
	}
	*ret = a;
	return 0;
bad:
	snprintf(why, size,
		 "expected a value in the unit of the series shown (6400), a value with its "
		 "unit (25.6GB/s, 6400 MB/s, 3e7 count/s) or a share of the channel peak (80%%), "
		 "not '%s'",
		 s ? s : "");
	return -EINVAL;
}

double cli_above_in(const struct cli_above *a, const char *unit)
{
	double have = cli_unit_bytes(a->unit), want = cli_unit_bytes(unit);

	if (!a->unit[0] || !strcmp(a->unit, unit))
		return a->value;
	if (have > 0 && want > 0)
		return a->value * have / want;
	return NAN;
}
