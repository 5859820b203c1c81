// SPDX-License-Identifier: GPL-2.0-only
/*
 * Output writers: JSON escaping and non-finite numbers, CSV quoting and
 * fixed columns, and that a value never counted never prints as 0.
 */
#include "helpers.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/jsonw.h"
#include "out/out.h"

static char *capture_json(void (*fn)(struct pm_jw *w))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pm_obuf b = { 0 };
	struct pm_jw w;

	pm_jw__init(&w, &b);
	fn(&w);
	assert_int_equal(pm_obuf__flush(&b, f), 0);
	free(b.p);
	fclose(f);
	return buf;
}

static void write_sample(struct pm_jw *w)
{
	pm_jw__object_begin(w);
	pm_jw__key(w, "s");
	pm_jw__string(w, "a\"b\\c\nd\x01");
	pm_jw__key(w, "nan");
	pm_jw__double(w, NAN);
	pm_jw__key(w, "inf");
	pm_jw__double(w, INFINITY);
	pm_jw__key(w, "x");
	pm_jw__double(w, 0.1);
	pm_jw__key(w, "n");
	pm_jw__u64(w, UINT64_MAX);
	pm_jw__key(w, "arr");
	pm_jw__array_begin(w);
	pm_jw__int(w, -1);
	pm_jw__null(w);
	pm_jw__bool(w, true);
	pm_jw__array_end(w);
	pm_jw__key(w, "null");
	pm_jw__string(w, NULL);
	pm_jw__object_end(w);
}

static void test_jsonw(void **state)
{
	char *s = capture_json(write_sample);

	assert_string_equal(s, "{\"s\":\"a\\\"b\\\\c\\nd\\u0001\",\"nan\":null,\"inf\":null,"
			       "\"x\":0.1,\"n\":18446744073709551615,\"arr\":[-1,null,true],"
			       "\"null\":null}");
	free(s);
}

static void test_numbers(void **state)
{
	static const struct {
		double v;
		int decimals;
		const char *grouped;
	} g[] = {
		{ 0, 0, "0" },
		{ 999, 0, "999" },
		{ 1000, 0, "1,000" },
		{ 4009862308.0, 0, "4,009,862,308" },
		{ 1200.904, 2, "1,200.90" },
		{ 0.5, 2, "0.50" },
		{ -1234567, 0, "-1,234,567" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		pm_fmt_grouped(buf, sizeof(buf), g[i].v, g[i].decimals);
		assert_string_equal(buf, g[i].grouped);
	}
	pm_fmt_double(buf, sizeof(buf), 4009862308.0);
	assert_string_equal(buf, "4009862308");
	pm_fmt_double(buf, sizeof(buf), 0.1);
	assert_string_equal(buf, "0.1");
	pm_fmt_double(buf, sizeof(buf), 1.0 / 3.0);
	assert_true(strtod(buf, NULL) == 1.0 / 3.0);
	pm_fmt_timestamp(buf, sizeof(buf), 1767225600ull * 1000000000ull + 3000000ull);
	assert_string_equal(buf, "2026-01-01T00:00:00.003Z");
}

/* A report as the session would produce it: one counted row, one not counted. */
static const struct pm_row rows[] = {
	{ .event = "msr/tsc/",
	  .unit = "",
	  .cpu = -1,
	  .die = -1,
	  .socket = -1,
	  .value = 4009862308.0,
	  .raw = 4009862308ull,
	  .enabled_ns = 1000,
	  .running_ns = 1000,
	  .running = 1.0 },
	{ .event = "amd_df/dram,x/",
	  .unit = "",
	  .cpu = -1,
	  .die = -1,
	  .socket = -1,
	  .value = NAN,
	  .raw = 0,
	  .enabled_ns = 1000,
	  .running_ns = 0,
	  .running = 0.0,
	  .flags = PM_ROW_NOT_COUNTED },
	{ .event = "ch0",
	  .unit = "MiB",
	  .device = "amd_df",
	  .cpu = 3,
	  .die = 0,
	  .socket = 1,
	  .value = 1234.5,
	  .raw = 20,
	  .enabled_ns = 1000,
	  .running_ns = 500,
	  .running = 0.5,
	  .flags = PM_ROW_MULTIPLEXED,
	  .lo = 1200.25,
	  .hi = 1260.5,
	  .bound = PM_BOUND_MEASURED },
};

static char *render_rows(enum pm_out_format fmt, const struct pm_row *r, size_t n);

static const struct pm_report rep = {
	.interval = false,
	.t_ns = 1002358130,
	.duration_ns = 1002358130,
	.wall_ns = 1767225600ull * 1000000000ull,
	.aggr = PM_AGGR_FAMILY,
	.n_rows = 3,
	.rows = rows,
};

static char *render(enum pm_out_format fmt, char sep, bool sim)
{
	struct pm_out_opts o = { .size = sizeof(o),
				 .format = fmt,
				 .sep = sep,
				 .target = "'system wide'",
				 .simulated = sim,
				 .sim_platform = sim ? "yitian710" : NULL };
	struct pm_out *out = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(pm_out__new(f, &o, &out), 0);
	assert_int_equal(pm_out__report(out, &rep), 0);
	pm_out__free(out);
	fclose(f);
	return buf;
}

static void test_csv(void **state)
{
	char *s = render(PM_OUT_CSV, ',', false);

	assert_string_equal(
		s,
		"type,time_s,timestamp,event,device,socket,die,cpu,value,unit,raw,enabled_ns,"
		"running_ns,running_pct,flags,simulated,covered,instances,sim_platform,cpuid,"
		"spread_pct,cgroup,lo,hi,bound,proxy_error_pct\n"
		"total,1.002358130,2026-01-01T00:00:00.000Z,msr/tsc/,,,,,4009862308,,4009862308,"
		"1000,1000,100.00,,0,,,,,,,4009862308,4009862308,exact,\n"
		"total,1.002358130,2026-01-01T00:00:00.000Z,\"amd_df/dram,x/\",,,,,,,0,1000,0,0.00,"
		"not_counted,0,,,,,,,,,no_value,\n"
		"total,1.002358130,2026-01-01T00:00:00.000Z,ch0,amd_df,1,0,3,1234.5,MiB,20,1000,500,"
		"50.00,multiplexed,0,,,,,,,1200.25,1260.5,measured,\n");
	free(s);
	s = render(PM_OUT_CSV, ';', true);
	/* the header first, as csv.DictReader and pandas read it: no comment line */
	assert_true(!strncmp(s, "type;time_s;timestamp;", 22));
	assert_null(strchr(s, '#'));
	assert_non_null(strstr(s, "amd_df/dram,x/;")); /* no quotes needed with ';' */
	assert_non_null(strstr(s, ";1;;;yitian710;;;;4009862308;4009862308;exact;\n"));
	free(s);
}

static void test_json(void **state)
{
	char *s = render(PM_OUT_JSON, 0, false), *line2;

	assert_true(!strncmp(s, "{\"schema\":4,\"type\":\"total\"", 26));
	/* the 95 % interval: the value itself when exact, null and why when there is none */
	assert_non_null(strstr(s, "\"value\":4009862308,\"lo\":4009862308,\"hi\":4009862308,"
				  "\"bound\":\"exact\","));
	assert_non_null(strstr(s, "\"value\":1234.5,\"lo\":1200.25,\"hi\":1260.5,"
				  "\"bound\":\"measured\","));
	line2 = strchr(s, '\n') + 1;
	assert_non_null(
		strstr(line2, "\"value\":null,\"lo\":null,\"hi\":null,\"bound\":\"no_value\""));
	assert_non_null(strstr(line2, "\"counted\":false"));
	assert_null(strstr(s, "\"value\":0,"));
	assert_non_null(strstr(s, "\"value\":4009862308"));
	assert_non_null(strstr(s, "\"device\":\"amd_df\",\"socket\":1,\"die\":0,\"cpu\":3"));
	/* who counted it; these rows do not say */
	assert_non_null(strstr(s, "\"source\":null,\"simulated\":false"));
	free(s);
}

static void test_table(void **state)
{
	char *s = render(PM_OUT_TABLE, 0, true);

	assert_non_null(
		strstr(s, "Performance counter stats for 'system wide' [SIMULATED: yitian710]"));
	assert_non_null(strstr(s, "     4,009,862,308        msr/tsc/\n"));
	assert_non_null(strstr(s, "     <not counted>        amd_df/dram,x/\n"));
	/* the interval as its wider side in % of the value: (1234.5 - 1200.25) / 1234.5 */
	assert_non_null(
		strstr(s, "ch0                                      (50.00%) \u00b1 2.8 %\n"));
	assert_null(strstr(s, "msr/tsc/ \u00b1")); /* exact: nothing to say */
	assert_non_null(strstr(s, "1.002358130 seconds time elapsed"));
	free(s);
}

/* The table's interval: its precision, and its marks where there is no honest one. */
static void test_table_bounds(void **state)
{
	static const struct {
		double lo, hi;
		unsigned bound;
		const char *text;
	} t[] = {
		{ 90, 110, PM_BOUND_MEASURED, "(50.00%) \u00b1 10 %\n" },
		{ 99.5, 100.1, PM_BOUND_MEASURED, "(50.00%) \u00b1 0.5 %\n" },
		{ 99.96, 100.01, PM_BOUND_MEASURED, "(50.00%) \u00b1 0.04 %\n" },
		{ 99.999, 100.001, PM_BOUND_MEASURED, "(50.00%) \u00b1 <0.01 %\n" },
		{ 98.77, 100, PM_BOUND_MEASURED, "(50.00%) \u00b1 1.2 %\n" },
		{ NAN, NAN, PM_BOUND_FEW, "(50.00%) \u00b1 ? %\n" },
		{ NAN, NAN, PM_BOUND_UNMEASURED, "(50.00%) \u00b1 ? %\n" },
		{ 95, NAN, PM_BOUND_MISSING, "(50.00%) \u00b1 ?+ %\n" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_row r = rows[2];
		char *s;

		r.value = 100;
		r.lo = t[i].lo;
		r.hi = t[i].hi;
		r.bound = t[i].bound;
		s = render_rows(PM_OUT_TABLE, &r, 1);
		if (!strstr(s, t[i].text))
			fail_msg("%zu: %s", i, s);
		free(s);
	}
}

/* A small non-zero value is not printed as a true zero's 0.00. */
static void test_table_small_values(void **state)
{
	static const struct {
		double v;
		const char *text;
	} t[] = {
		{ 0.00421, "0.00421" }, { 0.5, "0.500" },	  { 0.0, "0.00" },
		{ 1234.5, "1,234.50" }, { -0.00421, "-0.00421" }, { 4.21e-9, "4.21e-09" },
		{ 1.0, "1.00" },	{ 0.0999, "0.0999" },
	};
	struct pm_row row[sizeof(t) / sizeof(t[0])];
	struct pm_report r = rep;
	struct pm_out_opts o = { .size = sizeof(o),
				 .format = PM_OUT_TABLE,
				 .target = "'system wide'" };
	struct pm_out *out = NULL;
	char *buf = NULL, line[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		row[i] = (struct pm_row){ .event = "DF_CH0_BW_GB",
					  .unit = "GB",
					  .cpu = -1,
					  .die = -1,
					  .socket = -1,
					  .value = t[i].v,
					  .running = 1.0,
					  .flags = PM_ROW_METRIC };
	r.rows = row;
	r.n_rows = sizeof(t) / sizeof(t[0]);
	assert_int_equal(pm_out__new(f, &o, &out), 0);
	assert_int_equal(pm_out__report(out, &r), 0);
	pm_out__free(out);
	fclose(f);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(line, sizeof(line), "\n%18s GB     DF_CH0_BW_GB\n", t[i].text);
		if (!strstr(buf, line))
			fail_msg("%g: no '%s' in\n%s", t[i].v, line + 1, buf);
	}
	free(buf);
}

/* Per CPU, an uncore row is labelled by its domain, not by the CPU that read it. */
static void test_table_domain_labels(void **state)
{
	struct pm_row row[2] = {
		{ .event = "amd_l3/l3_accesses/",
		  .unit = "",
		  .domain = "L3 CPUs 4-7,68-71",
		  .cpu = 4,
		  .die = 0,
		  .socket = 0,
		  .value = 10,
		  .raw = 10,
		  .running = 1.0 },
		{ .event = "msr/tsc/",
		  .unit = "",
		  .cpu = 3,
		  .die = 0,
		  .socket = 0,
		  .value = 20,
		  .raw = 20,
		  .running = 1.0 },
	};
	struct pm_report r = rep;
	struct pm_out_opts o = { .size = sizeof(o),
				 .format = PM_OUT_TABLE,
				 .target = "'system wide'" };
	struct pm_out *out = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	r.aggr = PM_AGGR_CPU;
	r.rows = row;
	r.n_rows = 2;
	assert_int_equal(pm_out__new(f, &o, &out), 0);
	assert_int_equal(pm_out__report(out, &r), 0);
	pm_out__free(out);
	fclose(f);
	assert_non_null(strstr(buf, "\nL3 CPUs 4-7,68-71                 10        amd_l3/"));
	assert_non_null(strstr(buf, "\nCPU3                              20        msr/tsc/"));
	assert_null(strstr(buf, "CPU4"));
	free(buf);
}

/* Every reason to doubt a value reaches every format (issue 12: a flag on the row). */
static const struct pm_row doubtful[] = {
	{ .event = "bw",
	  .unit = "MB/s",
	  .cpu = -1,
	  .die = -1,
	  .socket = -1,
	  .value = 250.0,
	  .enabled_ns = 1000,
	  .running_ns = 1000,
	  .running = 1.0,
	  .covered = 8,
	  .instances = 16,
	  .flags = PM_ROW_METRIC | PM_ROW_PARTIAL | PM_ROW_WRAP_UNCERTAIN | PM_ROW_LOST,
	  .lo = NAN,
	  .hi = NAN,
	  .bound = PM_BOUND_MISSING },
	{ .event = "hit_ratio",
	  .unit = "%",
	  .cpu = -1,
	  .die = -1,
	  .socket = -1,
	  .value = NAN,
	  .enabled_ns = 1000,
	  .running_ns = 1000,
	  .running = 1.0,
	  .flags = PM_ROW_METRIC | PM_ROW_UNDEFINED | PM_ROW_REPROGRAMMED | PM_ROW_RESET },
};

static char *render_rows(enum pm_out_format fmt, const struct pm_row *r, size_t n)
{
	struct pm_report q = rep;
	struct pm_out_opts o = { .size = sizeof(o),
				 .format = fmt,
				 .sep = ',',
				 .target = "'system wide'" };
	struct pm_out *out = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	q.rows = r;
	q.n_rows = n;
	assert_int_equal(pm_out__new(f, &o, &out), 0);
	assert_int_equal(pm_out__report(out, &q), 0);
	pm_out__free(out);
	fclose(f);
	return buf;
}

static void test_quality_flags(void **state)
{
	char *s = render_rows(PM_OUT_CSV, doubtful, 2);

	assert_non_null(
		strstr(s, ",250,MB/s,,1000,1000,100.00,"
			  "metric|wrap_uncertain|partial|lost,0,8,16,,,,,,,counts_missing,\n"));
	/* undefined: no value, but counted, and the flag says why */
	assert_non_null(strstr(s, ",hit_ratio,,,,,,%,,1000,1000,100.00,"
				  "metric|undefined|reprogrammed|reset,0,,,,,,,,,no_value,\n"));
	free(s);

	s = render_rows(PM_OUT_JSON, doubtful, 2);
	assert_non_null(strstr(s, "\"wrap_uncertain\":true,\"reprogrammed\":false,\"reset\":false,"
				  "\"partial\":true,\"lost\":true,\"unsupported\":false,"
				  "\"covered\":8,\"instances\":16"));
	assert_non_null(strstr(s, "\"value\":null,\"lo\":null,\"hi\":null,\"bound\":\"no_value\","
				  "\"unit\":\"%\""));
	assert_non_null(strstr(s, "\"value\":250,\"lo\":null,\"hi\":null,"
				  "\"bound\":\"counts_missing\","));
	assert_non_null(
		strstr(s, "\"counted\":true,\"snapshot\":false,\"metric\":true,"
			  "\"approximate\":false,\"undefined\":true,\"wrap_uncertain\":false,"
			  "\"reprogrammed\":true,\"reset\":true,\"partial\":false,\"lost\":false,"
			  "\"unsupported\":false,\"covered\":null,\"instances\":null"));
	free(s);

	s = render_rows(PM_OUT_TABLE, doubtful, 2);
	assert_non_null(strstr(s, "bw                                       [partial 8/16] [wrap?] "
				  "[lost]\n"));
	assert_non_null(strstr(s, "undefined (0/0) %      hit_ratio"));
	assert_non_null(strstr(s, "[reprogrammed] [reset]\n"));
	assert_null(strstr(s, "<not counted>"));
	free(s);
}

/* What pm_fmt_double printed before its whole numbers left printf: the reference. */
static void reference_double(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, size, "%.0f", v);
		return;
	}
	snprintf(buf, size, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, size, "%.17g", v);
}

/*
 * pm_fmt_double prints exactly what printf did, on a million doubles: whole
 * numbers of every size below and around 1e15 (both signs, -0 too), counts
 * as they come, values near and across the edges, and random bit patterns.
 * Under valgrind (PMUMON_VALGRIND, meson's valgrind setup) a fiftieth of
 * each sweep, the same first values: it looks for memory errors there, and
 * the whole sweep took 223 s of its 300 on a loaded 2-core machine.
 */
/*
 * pm_fmt_grouped as it was before its fast path wrote the digits and commas backwards in
 * one loop: the reference the fast one must match byte for byte, cut to any size.
 */
static void reference_grouped(char *buf, size_t size, double v, int decimals)
{
	char digits[64], *dot;
	size_t n, out = 0, first;
	bool neg = v < 0;

	if (decimals >= 0 && decimals <= 2 && fabs(v) < 1e15) {
		uint64_t scale = decimals == 2 ? 100 : decimals == 1 ? 10 : 1;
		uint64_t x = (uint64_t)llround(fabs(v) * (double)scale);

		snprintf(digits, sizeof(digits), "%llu", (unsigned long long)(x / scale));
		if (decimals) {
			size_t k = strlen(digits);

			digits[k++] = '.';
			for (int d = decimals - 1; d >= 0; d--) {
				digits[k + (size_t)d] = (char)('0' + x % 10);
				x /= 10;
			}
			digits[k + (size_t)decimals] = '\0';
		}
	} else {
		snprintf(digits, sizeof(digits), "%.*f", decimals, fabs(v));
	}
	dot = strchr(digits, '.');
	n = dot ? (size_t)(dot - digits) : strlen(digits);
	if (size == 0)
		return;
	if (neg && out + 1 < size)
		buf[out++] = '-';
	first = n % 3 ? n % 3 : 3;
	for (size_t i = 0, left = first; i < n && out + 1 < size; i++, left--) {
		if (left == 0) {
			buf[out++] = ',';
			left = 3;
			if (out + 1 >= size)
				break;
		}
		buf[out++] = digits[i];
	}
	for (const char *p = dot; p && *p && out + 1 < size; p++)
		buf[out++] = *p;
	buf[out] = '\0';
}

/* The table's counts and values (pm_fmt_grouped) over every magnitude, sign, tie,
 * decimals 0 to 4 and buffer sizes that cut them, against the reference above. */
static void test_grouped_is_reference(void **state)
{
	size_t div = getenv("PMUMON_VALGRIND") ? 20 : 1;
	static const double edges[] = {
		0.0,  -0.0,  0.5,   1.5,  0.125,    0.005, 999.995,
		999,  1000,  99999, 1e15, 1e15 - 1, -1e15, 9007199254740992.0,
		1e17, -0.001
	};
	unsigned seed = 3232;

	(void)state;
	for (size_t i = 0; i < 400000 / div; i++) {
		uint64_t bits = ((uint64_t)rand_r(&seed) << 33) ^ ((uint64_t)rand_r(&seed) << 11) ^
				(uint64_t)rand_r(&seed);
		int decimals = (int)(i % 5);
		size_t size = i % 7 == 0 ? 1 + (size_t)(bits % 30) : 64;
		char got[64], want[64];
		double v;

		switch (i / 5 % 4) {
		case 0: /* a whole count of any number of digits */
			v = (double)(bits >> (bits % 64));
			break;
		case 1: /* a count scaled, as multiplexing does, either sign */
			v = (double)(bits >> 24) * ((double)(bits & 0xffff) / 65536.0 + 0.5) *
			    (bits & 0x10000 ? -1 : 1);
			break;
		case 2:
			v = i / 20 < sizeof(edges) / sizeof(edges[0]) ?
				    edges[i / 20] :
				    (double)(bits >> 20) / 1000.0;
			break;
		default: /* hundredths and ties of a rate */
			v = (double)(bits % 100000000) / 200.0;
		}
		memset(got, 'x', sizeof(got));
		memset(want, 'x', sizeof(want));
		pm_fmt_grouped(got, size, v, decimals);
		reference_grouped(want, size, v, decimals);
		if (memcmp(got, want, sizeof(got)) != 0)
			fail_msg("%.17g, %d decimals, size %zu: '%s', reference '%s'", v, decimals,
				 size, got, want);
	}
}

static void test_fmt_double_is_printf(void **state)
{
	size_t div = getenv("PMUMON_VALGRIND") ? 50 : 1;
	static const double edges[] = {
		0.0, -0.0,  1.0, -1.0, 999999999999999.0, 1e15, -1e15, 1e15 - 1, 9007199254740992.0,
		0.5, 1e-300
	};
	unsigned seed = 4242;

	(void)state;
	for (size_t i = 0; i < 1000000 / div; i++) {
		char got[64], want[64];
		uint64_t bits = ((uint64_t)rand_r(&seed) << 33) ^ ((uint64_t)rand_r(&seed) << 11) ^
				(uint64_t)rand_r(&seed);
		double v;

		switch (i % 4) {
		case 0: /* a whole number up to 2^52, either sign */
			v = (double)(bits >> 12) * (bits & 1 ? -1 : 1);
			break;
		case 1: /* a count scaled, as multiplexing does */
			v = (double)(bits >> 30) * ((double)(bits & 0xffff) / 65536.0 + 0.5);
			break;
		case 2:
			v = i / 4 < sizeof(edges) / sizeof(edges[0]) ?
				    edges[i / 4] :
				    (double)(bits >> 14) / 1000.0;
			break;
		default: /* any finite double */
			memcpy(&v, &bits, sizeof(v));
			if (!isfinite(v))
				v = 1.0;
		}
		pm_fmt_double(got, sizeof(got), v);
		reference_double(want, sizeof(want), v);
		if (strcmp(got, want) != 0)
			fail_msg("%.17g: '%s', printf '%s'", v, got, want);
	}
	/* exact ties at the 15th digit (x.5 with 15 digits before the point: 16
	 * significant, the last a 5), both ways of rounding to even; binary fractions
	 * of few digits, small values */
	for (int i = 0; i < 200000 / (int)div; i++) {
		char got[64], want[64];
		double v = i % 4 == 0 ? 1e14 + (double)i + 0.5 :
			   i % 4 == 1 ? (double)(i + 1) / 1024.0 + 1e9 :
			   i % 4 == 2 ? ((double)i + 0.5) * 1e-4 :
					-((double)i / 64.0 + 123456.0);

		pm_fmt_double(got, sizeof(got), v);
		reference_double(want, sizeof(want), v);
		if (strcmp(got, want) != 0)
			fail_msg("%.17g: '%s', printf '%s'", v, got, want);
	}
	/* 15 digits do not read back: 17 are printed; exact ties at the 17th digit
	 * (14 digits before the point, sixteenths after it: 18 significant, the last a 5) */
	for (int i = 0; i < 100000 / (int)div; i++) {
		char got[64], want[64];
		double v = 1e13 + (double)i + (double)((i & 7) * 2 + 1) / 16.0;

		pm_fmt_double(got, sizeof(got), v);
		reference_double(want, sizeof(want), v);
		if (strcmp(got, want) != 0)
			fail_msg("%.17g: '%s', printf '%s'", v, got, want);
	}
}

static void test_locale(void **state)
{
	char *s;

	/* the program's locale must not turn 1234.5 into 1234,5 */
	if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "fr_FR.UTF-8"))
		skip();
	s = render(PM_OUT_CSV, ';', false);
	assert_non_null(strstr(s, ";1234.5;"));
	free(s);
	setlocale(LC_ALL, "C");
}

/* A row counted in a cgroup names it: after the event in the table (perf's column), the
 * last CSV column, the JSON key "cgroup". */
static void test_cgroup_rows(void **state)
{
	static const struct pm_row r[] = { { .event = "cpu-clock",
					     .unit = "msec",
					     .cgroup = "system.slice",
					     .cpu = -1,
					     .die = -1,
					     .socket = -1,
					     .channel = -1,
					     .subchannel = -1,
					     .value = 12.5,
					     .raw = 12500000,
					     .enabled_ns = 1000,
					     .running_ns = 1000,
					     .running = 1.0 } };
	char *s = render_rows(PM_OUT_CSV, r, 1);

	assert_non_null(strstr(s, ",cpuid,spread_pct,cgroup,lo,hi,bound,proxy_error_pct\n"));
	assert_non_null(strstr(s, ",,system.slice,12.5,12.5,exact,\n"));
	free(s);
	s = render_rows(PM_OUT_JSON, r, 1);
	assert_non_null(strstr(s, "\"source\":null,\"cgroup\":\"system.slice\""));
	free(s);
	s = render_rows(PM_OUT_TABLE, r, 1);
	assert_non_null(strstr(s, " msec   cpu-clock system.slice\n"));
	free(s);
	(void)state;
}

/* Attributed rows (docs/attribution.md): their flags, cgroup, pod keys and interval in CSV
 * and JSON; <unattributed> has no pod keys. */
static void test_attributed_rows(void **state)
{
	static const struct pm_row r[] = {
		{ .event = "DF_DRAM_BYTES_GB",
		  .unit = "GB",
		  .cgroup = "kubepods.slice/kubepods-pod1.slice",
		  .pod_namespace = "default",
		  .pod = "web-0",
		  .cpu = -1,
		  .die = -1,
		  .socket = -1,
		  .channel = -1,
		  .subchannel = -1,
		  .value = 12,
		  .lo = 11,
		  .hi = 13.5,
		  .bound = PM_BOUND_MEASURED,
		  .enabled_ns = 1000,
		  .running_ns = 500,
		  .running = 0.5,
		  .proxy_error = 0.1,
		  .flags = PM_ROW_METRIC | PM_ROW_APPROXIMATE | PM_ROW_ATTRIBUTED |
			   PM_ROW_ATTRIB_SCALED | PM_ROW_MULTIPLEXED | PM_ROW_PROXY_BIAS_INCLUDED },
		{ .event = "DF_DRAM_BYTES_GB",
		  .unit = "GB",
		  .cgroup = PM_ATTRIB_UNATTRIBUTED,
		  .cpu = -1,
		  .die = -1,
		  .socket = -1,
		  .channel = -1,
		  .subchannel = -1,
		  .value = 0,
		  .lo = 0,
		  .hi = 0.5,
		  .bound = PM_BOUND_MEASURED,
		  .enabled_ns = 1000,
		  .running_ns = 500,
		  .running = 0.5,
		  .proxy_error = NAN,
		  .flags = PM_ROW_METRIC | PM_ROW_APPROXIMATE | PM_ROW_ATTRIBUTED |
			   PM_ROW_ATTRIB_SCALED | PM_ROW_MULTIPLEXED | PM_ROW_PROXY_BIAS_EXCLUDED },
	};
	char *s = render_rows(PM_OUT_CSV, r, 2);

	assert_non_null(strstr(s, ",12,GB,,1000,500,50.00,"
				  "multiplexed|metric|approximate|attributed|proxies_exceed_total|"
				  "proxy_bias_included,"));
	/* the declared proxy error the interval holds, or none: the flag says it is not in it */
	assert_non_null(strstr(s, ",kubepods.slice/kubepods-pod1.slice,11,13.5,measured,10\n"));
	assert_non_null(strstr(s, "proxies_exceed_total|proxy_bias_excluded,"));
	assert_non_null(strstr(s, ",<unattributed>,0,0.5,measured,\n"));
	free(s);
	s = render_rows(PM_OUT_JSON, r, 2);
	assert_non_null(strstr(s, "\"value\":12,\"lo\":11,\"hi\":13.5,\"bound\":\"measured\""));
	assert_non_null(strstr(s, "\"cgroup\":\"kubepods.slice/kubepods-pod1.slice\","
				  "\"attributed\":true,\"proxies_exceed_total\":true,"
				  "\"proxy_bias_excluded\":false,\"proxy_error_pct\":10,"
				  "\"pod_namespace\":\"default\",\"pod\":\"web-0\""));
	assert_non_null(strstr(s, "\"metric\":true,\"approximate\":true,"));
	assert_non_null(strstr(s, "\"cgroup\":\"<unattributed>\",\"attributed\":true,"
				  "\"proxies_exceed_total\":true,\"proxy_bias_excluded\":true,"
				  "\"proxy_error_pct\":null"));
	assert_null(strstr(s, "\"container\""));
	assert_null(strstr(strstr(s, "<unattributed>"), "\"pod\""));
	free(s);
	/* the table says it after the interval */
	s = render_rows(PM_OUT_TABLE, r, 2);
	assert_non_null(strstr(s, " [\u00b110 % proxy error declared]"));
	assert_non_null(strstr(s, " [proxy bias excluded]"));
	free(s);
	(void)state;
}

/* A table report of rows, aggregated as aggr. */
static char *render_table(const struct pm_row *r, size_t n, enum pm_aggr aggr)
{
	struct pm_report q = rep;
	struct pm_out_opts o = { .size = sizeof(o),
				 .format = PM_OUT_TABLE,
				 .target = "'system wide'" };
	struct pm_out *out = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	q.rows = r;
	q.n_rows = n;
	q.aggr = aggr;
	assert_int_equal(pm_out__new(f, &o, &out), 0);
	assert_int_equal(pm_out__report(out, &q), 0);
	pm_out__free(out);
	fclose(f);
	return buf;
}

/* An event row of kind, counted in full, not per CPU. */
static struct pm_row srow(const char *ev, const char *unit, double v, unsigned kind)
{
	return (struct pm_row){ .event = ev,
				.unit = unit,
				.value = v,
				.raw = isfinite(v) ? (uint64_t)v : 0,
				.cpu = -1,
				.die = -1,
				.socket = -1,
				.channel = -1,
				.subchannel = -1,
				.running = 1.0,
				.shadow = kind,
				.flags = isfinite(v) ? 0 : PM_ROW_NOT_COUNTED };
}

/*
 * perf 6.1's comment column (stat-shadow.c): each formula and printf format,
 * from the other rows of the bucket; none where an input was not counted or
 * has other exclude bits, none on metric rows; no trailing blanks.
 * The report's elapsed time is 1.002358130 s.
 */
static void test_table_comments(void **state)
{
	struct pm_row r[] = {
		/* 2,004,716,260 ns over 1,002,358,130 ns elapsed: 2 CPUs */
		srow("task-clock", "msec", 2004.71626, PM_SHADOW_CLOCK),
		srow("cycles", "", 6014148780.0, PM_SHADOW_CYCLES),
		srow("instructions", "", 9021223170.0, PM_SHADOW_INSTRUCTIONS),
		srow("branches", "", 1e9, PM_SHADOW_BRANCHES),
		srow("branch-misses", "", 25e6, PM_SHADOW_BRANCH_MISSES),
		srow("cache-references", "", 0, PM_SHADOW_CACHE_REFS),
		srow("cache-misses", "", 10, PM_SHADOW_CACHE_MISSES),
		srow("LLC-loads", "", NAN, PM_SHADOW_LL),
		srow("LLC-load-misses", "", 5, PM_SHADOW_LL_MISSES),
		srow("L1-dcache-loads", "", 400, PM_SHADOW_L1D),
		srow("L1-dcache-load-misses", "", 10, PM_SHADOW_L1D_MISSES),
		srow("stalled-cycles-backend", "", 1503537195.0, PM_SHADOW_STALLED_BACKEND),
		srow("stalled-cycles-frontend", "", 0, PM_SHADOW_STALLED_FRONTEND),
		/* instructions:u: no cycles:u counted */
		srow("instructions:u", "", 5, PM_SHADOW_INSTRUCTIONS),
		srow("page-faults", "", 48, PM_SHADOW_OTHER),
		srow("msr/tsc/", "", 7, PM_SHADOW_OTHER),
		srow("ipc", "", 1.5, PM_SHADOW_NONE),
		srow("hwmon/power/", "W", 12, PM_SHADOW_NONE),
		srow("context-switches", "", 0, PM_SHADOW_OTHER),
		srow("cpu-clock", "msec", NAN, PM_SHADOW_CLOCK),
	};
	static const char *const want[] = {
		"          2,004.72 msec   task-clock                       #    2.000 CPUs utilized\n",
		"     6,014,148,780        cycles                           #    3.000 GHz\n",
		"     9,021,223,170        instructions                     #    1.50  insn per cycle\n",
		"     1,000,000,000        branches                         #  498.824 M/sec\n",
		"        25,000,000        branch-misses                    #    2.50% of all branches\n",
		"                 0        cache-references                 #    0.000 /sec\n",
		"                10        cache-misses                     #    0.000 % of all cache refs\n",
		"     <not counted>        LLC-loads\n",
		"                 5        LLC-load-misses\n",
		"               400        L1-dcache-loads                  #  199.529 /sec\n",
		"                10        L1-dcache-load-misses            #    2.50% of all L1-dcache "
		"accesses\n",
		"     1,503,537,195        stalled-cycles-backend           #   25.00% backend cycles "
		"idle\n",
		"                 0        stalled-cycles-frontend\n",
		"                 5        instructions:u\n",
		/* a suffix after a comment: the comment in perf's METRIC_LEN (38) */
		"                48        page-faults                      #   23.944 /sec            "
		"           (50.00%)\n",
		"                 7        msr/tsc/                         #    3.492 /sec            "
		"           (25.00%)\n",
		"              1.50        ipc\n",
		"             12.00 W      hwmon/power/\n",
		"                 0        context-switches                 #    0.000 /sec\n",
		"     <not counted> msec   cpu-clock\n",
	};
	char *s;
	const char *p;

	r[13].shadow_ctx = PM_SHADOW_CTX_KERNEL | PM_SHADOW_CTX_HV;
	r[14].flags = PM_ROW_MULTIPLEXED;
	r[14].running = 0.5;
	r[15].flags = PM_ROW_MULTIPLEXED;
	r[15].running = 0.25;
	r[16].flags = PM_ROW_METRIC;
	s = render_table(r, sizeof(r) / sizeof(r[0]), PM_AGGR_FAMILY);
	p = strstr(s, ":\n\n") + 3;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strncmp(p, want[i], strlen(want[i])) != 0)
			fail_msg("row %zu:\n got '%.*s'\nwant '%s'", i, (int)strcspn(p, "\n"), p,
				 want[i]);
		p += strlen(want[i]);
	}
	free(s);
	(void)state;
}

/* Per CPU, the bucket is the CPU; a cgroup's rows are a bucket of their own (perf keys
 * its shadow stats by CPU and cgroup); a suffix on a row without a comment keeps the
 * comment's room when others have one. */
static void test_table_comment_buckets(void **state)
{
	struct pm_row r[] = {
		srow("cpu-clock", "msec", 1000, PM_SHADOW_CLOCK),
		srow("cpu-clock", "msec", 500, PM_SHADOW_CLOCK),
		srow("page-faults", "", 10, PM_SHADOW_OTHER),
		srow("page-faults", "", 10, PM_SHADOW_OTHER),
		srow("page-faults", "", 10, PM_SHADOW_OTHER),
		srow("amd_l3/l3_accesses/", "", 10, PM_SHADOW_NONE),
	};
	static const int cpu[] = { 0, 1, 0, 1, 1, 1 };
	char *s;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		r[i].cpu = cpu[i];
	r[4].cgroup = "user.slice";
	r[5].flags = PM_ROW_MULTIPLEXED;
	r[5].running = 0.5;
	s = render_table(r, sizeof(r) / sizeof(r[0]), PM_AGGR_CPU);

	assert_non_null(strstr(s, "CPU0           1,000.00 msec   cpu-clock                        "
				  "#    0.998 CPUs utilized\n"));
	assert_non_null(strstr(s, "CPU0                 10        page-faults                      "
				  "#   10.000 /sec\n"));
	assert_non_null(strstr(s, "CPU1                 10        page-faults                      "
				  "#   20.000 /sec\n"));
	/* no clock counted in user.slice on CPU1: no rate */
	assert_non_null(strstr(s, "CPU1                 10        page-faults user.slice\n"));
	assert_non_null(strstr(s, "CPU1                 10        amd_l3/l3_accesses/" /* 19 */
				  "             "
				  "                                       (50.00%)\n"));
	assert_null(strstr(s, " \n"));
	free(s);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jsonw),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_cgroup_rows),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_bounds),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_fmt_double_is_printf),
		cmocka_unit_test(test_grouped_is_reference),
		cmocka_unit_test(test_quality_flags),
		cmocka_unit_test(test_attributed_rows),
		cmocka_unit_test(test_table_small_values),
		cmocka_unit_test(test_table_domain_labels),
		cmocka_unit_test(test_table_comments),
		cmocka_unit_test(test_table_comment_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
