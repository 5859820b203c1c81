// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve's exposition contracts (cli/serve/plan.c, acc.c, expo.c), on reports
 * made by hand: every amount is a counter of its intervals (a rate's value x
 * its length, a ratio's parts, an amount's values), in base units; a counter
 * never goes down and never restarts while serve runs, also when the
 * counting is built again; what had no value is counted apart, never as 0;
 * label values are escaped; the two text formats name families as their
 * specifications say.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "serve/serve.h"

#define SEC 1000000000ull

static const struct expo_meta meta = { .version = "test",
				       .platform = "lab",
				       .interval_s = 1,
				       .channel_peak = NAN };

/* A row: an event (count) unless flags say a metric. */
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
				.enabled_ns = SEC,
				.running_ns = SEC,
				.running = 1,
				.flags = flags };
}

static struct pm_report report(struct pm_row *rows, size_t n, uint64_t duration_ns)
{
	return (struct pm_report){ .interval = true,
				   .duration_ns = duration_ns,
				   .n_rows = n,
				   .rows = rows };
}

/* The exposition of one sample (its interval and its counting's totals) added to acc, in
 * format f (caller frees). */
static char *render2(struct expo_acc *acc, const struct pm_report *rep, const struct pm_report *tot,
		     enum expo_format f)
{
	struct expo_health h = { .samples = 1 };
	struct expo_counts *c = NULL;
	struct expo_sample s = { .interval = rep, .meta = &meta, .health = &h };
	struct sbuf b = { 0 };

	assert_int_equal(expo_acc_add(acc, rep, tot, &meta, &c), 0);
	s.counts = c;
	assert_true(expo_render(&b, f, &s) > 0);
	expo_counts_unref(c);
	return b.data;
}

/* A counting's first sample: its interval is its totals. */
static char *render(struct expo_acc *acc, const struct pm_report *rep, enum expo_format f)
{
	struct pm_report tot = *rep;

	tot.interval = false;
	return render2(acc, rep, &tot, f);
}

/* The value of the series line that starts with `series` ("name{labels}"), or NaN. */
static double value_of(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return NAN;
}

static void assert_value(const char *text, const char *series, double want)
{
	double got = value_of(text, series);

	if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-12))
		fail_msg("%s: %.17g, want %.17g\n%s", series, got, want, text);
}

/* Each kind of row is its kind of counter, in base units, from the counting's totals. */
static void test_kinds(void **state)
{
	struct pm_row rows[] = {
		row("ali_drw/hif_rd/", "", 0, 1000),
		row("cpu-clock", "msec", 0, 2000), /* 2 s of CPU time */
		row("bw", "MB/s", PM_ROW_METRIC, 50),
		row("miss", "%", PM_ROW_METRIC | PM_ROW_RATIO, 25),
		row("lines", "MiB", PM_ROW_METRIC | PM_ROW_AMOUNT, 3),
		row("residency", "%", PM_ROW_METRIC, 40),
		row("freq", "GHz", PM_ROW_METRIC, 2.5),
	};
	enum { N = sizeof(rows) / sizeof(rows[0]) };
	struct pm_row tot[N];
	struct expo_acc *acc = NULL;
	struct pm_report rep, trep;
	char *text = NULL;

	rows[3].num = 2500; /* the ScaleUnit's 100 on the numerator: 25 misses */
	rows[3].den = 100;
	assert_int_equal(expo_acc_new(&acc), 0);
	for (int i = 1; i <= 2; i++) { /* two intervals of 2 s: the totals of i of them */
		memcpy(tot, rows, sizeof(tot));
		tot[0].value *= i;
		tot[1].value *= i;
		tot[3].num *= i;
		tot[3].den *= i;
		tot[4].value *= i;
		for (int k = 0; k < N; k++)
			tot[k].enabled_ns = tot[k].running_ns = i * SEC;
		free(text);
		rep = report(rows, N, 2 * SEC);
		trep = report(tot, N, 2 * SEC * i);
		trep.interval = false;
		text = render2(acc, &rep, &trep, EXPO_TEXT);
		assert_value(text, "pmumon_event_total{pmu=\"ali_drw\",event=\"ali_drw/hif_rd/\"}",
			     1000 * i);
		/* msec in seconds, said by the unit label */
		assert_value(text, "pmumon_event_total{event=\"cpu-clock\",unit=\"seconds\"}",
			     2.0 * i);
		/* 50 MB/s for 2 s: 100 MB, in bytes */
		assert_value(text, "pmumon_bw_bytes_total{metric=\"bw\"}", 100e6 * i);
		/* a ratio's parts, in base units (a share of 1, not %) */
		assert_value(text, "pmumon_miss_ratio_numerator_total{metric=\"miss\"}", 25.0 * i);
		assert_value(text, "pmumon_miss_ratio_denominator_total{metric=\"miss\"}",
			     100.0 * i);
		/* an amount, in bytes */
		assert_value(text, "pmumon_lines_bytes_total{metric=\"lines\"}", 3 * 1048576.0 * i);
		/* a share: 40 % of 2 s */
		assert_value(text, "pmumon_residency_seconds_total{metric=\"residency\"}", 0.8 * i);
		/* a frequency: cycles */
		assert_value(text, "pmumon_freq_cycles_total{metric=\"freq\"}", 5e9 * i);
		assert_value(text, "pmumon_sampled_seconds_total", 2.0 * i);
		assert_value(text, "pmumon_enabled_seconds_total{metric=\"bw\"}", 1.0 * i);
	}
	/* no gauge of a rate over the last interval */
	assert_null(strstr(text, "_per_second"));
	free(text);
	expo_acc_free(acc);
}

/* A counter never goes down: an interval's negative estimate is held, the sum goes on. */
static void test_never_down(void **state)
{
	static const double vals[] = { 10, -4, 3, 5 };	  /* each interval's estimate */
	static const double totals[] = { 10, 6, 9, 14 };  /* the counting's */
	static const double shown[] = { 10, 10, 10, 14 }; /* 6 and 9 held */
	static const double held[] = { 0, 1, 2, 2 };
	struct expo_acc *acc = NULL;
	char *text;

	assert_int_equal(expo_acc_new(&acc), 0);
	for (size_t i = 0; i < 4; i++) {
		struct pm_row r = row("diff", "", PM_ROW_METRIC | PM_ROW_AMOUNT, vals[i]);
		struct pm_row t = row("diff", "", PM_ROW_METRIC | PM_ROW_AMOUNT, totals[i]);
		struct pm_report rep = report(&r, 1, SEC), trep = report(&t, 1, (i + 1) * SEC);

		text = render2(acc, &rep, &trep, EXPO_TEXT);
		assert_value(text, "pmumon_diff_total{metric=\"diff\"}", shown[i]);
		assert_value(text, "pmumon_estimates_held_total", held[i]);
		free(text);
	}
	expo_acc_free(acc);
}

/* A series whose value is not counted: absent until it has one, its gap counted; an
 * interval that was not a rotated event's turn is no gap (the totals scale over it). */
static void test_uncounted(void **state)
{
	struct expo_acc *acc = NULL;
	struct pm_row r = row("bw", "MB/s", PM_ROW_METRIC | PM_ROW_NOT_COUNTED, NAN);
	struct pm_row t = r;
	struct pm_report rep = report(&r, 1, SEC), trep = report(&t, 1, SEC);
	char *text;

	assert_int_equal(expo_acc_new(&acc), 0);
	text = render2(acc, &rep, &trep, EXPO_TEXT);
	assert_null(strstr(text, "pmumon_bw_bytes_total{"));
	assert_value(text, "pmumon_uncounted_seconds_total{metric=\"bw\"}", 1);
	assert_value(text, "pmumon_quality_flag{metric=\"bw\",flag=\"not_counted\"}", 1);
	free(text);
	/* counted in its second second: 3.5 MB/s over the counting's 2 s */
	r = row("bw", "MB/s", PM_ROW_METRIC, 7);
	t = row("bw", "MB/s", PM_ROW_METRIC, 3.5);
	trep = report(&t, 1, 2 * SEC);
	text = render2(acc, &rep, &trep, EXPO_TEXT);
	assert_value(text, "pmumon_bw_bytes_total{metric=\"bw\"}", 7e6);
	assert_value(text, "pmumon_uncounted_seconds_total{metric=\"bw\"}", 1);
	free(text);
	/* not its turn in the third: enabled, never running; the totals go on */
	r = row("bw", "MB/s", PM_ROW_METRIC | PM_ROW_NOT_COUNTED, NAN);
	r.running_ns = 0;
	t = row("bw", "MB/s", PM_ROW_METRIC | PM_ROW_MULTIPLEXED, 4);
	trep = report(&t, 1, 3 * SEC);
	text = render2(acc, &rep, &trep, EXPO_TEXT);
	assert_value(text, "pmumon_bw_bytes_total{metric=\"bw\"}", 12e6);
	assert_value(text, "pmumon_uncounted_seconds_total{metric=\"bw\"}", 1);
	free(text);
	/* its device gone: no value, and a gap */
	r = row("bw", "MB/s", PM_ROW_METRIC | PM_ROW_LOST | PM_ROW_NOT_COUNTED, NAN);
	r.running_ns = 0;
	text = render2(acc, &rep, &trep, EXPO_TEXT);
	assert_value(text, "pmumon_bw_bytes_total{metric=\"bw\"}", 12e6);
	assert_value(text, "pmumon_uncounted_seconds_total{metric=\"bw\"}", 2);
	free(text);
	expo_acc_free(acc);
}

/*
 * A counting built again (a reload, a device back): a series it shares with
 * the one before goes on from where it was; one it drops is not shown; one
 * that comes back later goes on too.
 */
static void test_restart_goes_on(void **state)
{
	struct pm_row ab[] = { row("a", "MB/s", PM_ROW_METRIC, 1),
			       row("b", "MB/s", PM_ROW_METRIC, 2) };
	struct pm_row bc[] = { row("c", "MB/s", PM_ROW_METRIC, 4),
			       row("b", "MB/s", PM_ROW_METRIC, 2) };
	struct expo_acc *acc = NULL;
	struct pm_report rep;
	char *text;

	assert_int_equal(expo_acc_new(&acc), 0);
	rep = report(ab, 2, SEC);
	free(render(acc, &rep, EXPO_TEXT));
	expo_acc_restart(acc);
	rep = report(bc, 2, SEC);
	text = render(acc, &rep, EXPO_TEXT);
	assert_value(text, "pmumon_b_bytes_total{metric=\"b\"}", 4e6);
	assert_value(text, "pmumon_c_bytes_total{metric=\"c\"}", 4e6);
	assert_null(strstr(text, "pmumon_a_bytes_total"));
	free(text);
	expo_acc_restart(acc);
	rep = report(ab, 2, SEC);
	text = render(acc, &rep, EXPO_TEXT);
	assert_value(text, "pmumon_a_bytes_total{metric=\"a\"}", 2e6);
	assert_value(text, "pmumon_b_bytes_total{metric=\"b\"}", 6e6);
	free(text);
	expo_acc_free(acc);
}

/*
 * The time counters of a series never go down either: a metric's are its least
 * running input's, and which input that is may change from one counting's
 * totals to the next (a rotation's phase): what was shown stays.
 */
static void test_seconds_never_down(void **state)
{
	/* the totals' least running (ms), and the seconds shown: exactly, to the ns */
	static const uint64_t running_ms[] = { 3500, 2250, 5125 };
	static const char *const shown[] = { " 3.5\n", " 3.5\n", " 5.125\n" };
	struct expo_acc *acc = NULL;
	char *text, want[128];

	assert_int_equal(expo_acc_new(&acc), 0);
	for (size_t i = 0; i < 3; i++) {
		struct pm_row r = row("bw", "MB/s", PM_ROW_METRIC | PM_ROW_MULTIPLEXED, 1);
		struct pm_row t = r;
		struct pm_report rep = report(&r, 1, SEC), trep = report(&t, 1, (i + 6) * SEC);

		t.enabled_ns = (i + 6) * SEC;
		t.running_ns = running_ms[i] * 1000000;
		trep.interval = false;
		text = render2(acc, &rep, &trep, EXPO_TEXT);
		snprintf(want, sizeof(want), "\npmumon_running_seconds_total{metric=\"bw\"}%s",
			 shown[i]);
		if (!strstr(text, want))
			fail_msg("no '%s' in\n%s", want + 1, text);
		assert_value(text, "pmumon_enabled_seconds_total{metric=\"bw\"}", i + 6.0);
		free(text);
	}
	expo_acc_free(acc);
}

/* The exposition of one sample with these reloads (caller frees). */
static char *render_reloads(const struct expo_reloads *rl)
{
	struct pm_row r = row("bw", "MB/s", PM_ROW_METRIC, 1);
	struct pm_report rep = report(&r, 1, SEC);
	struct expo_health h = { .samples = 1, .reloads = *rl };
	struct expo_counts *c = NULL;
	struct expo_sample s = { .interval = &rep, .meta = &meta, .health = &h };
	struct expo_acc *acc = NULL;
	struct sbuf b = { 0 };

	assert_int_equal(expo_acc_new(&acc), 0);
	assert_int_equal(expo_acc_add(acc, &rep, &rep, &meta, &c), 0);
	s.counts = c;
	assert_true(expo_render(&b, EXPO_TEXT, &s) > 0);
	expo_counts_unref(c);
	expo_acc_free(acc);
	return b.data;
}

/*
 * SIGHUP's reloads as Prometheus's own: last_reload_successful is the last
 * one's result (a good one after a refused one is 1 again), the results
 * are counted, the success timestamp is the last good one's and absent
 * before any.
 */
static void test_reloads(void **state)
{
	static const struct {
		bool ok;
		double now_s, successful, ok_n, failed_n, ts;
	} steps[] = {
		{ false, 100, 0, 0, 1, NAN },	{ true, 200.5, 1, 1, 1, 200.5 },
		{ false, 300, 0, 1, 2, 200.5 }, { false, 400, 0, 1, 3, 200.5 },
		{ true, 500, 1, 2, 3, 500 },
	};
	struct expo_reloads rl = { 0 };
	char *text = render_reloads(&rl);

	assert_value(text, "pmumon_config_last_reload_successful", 1);
	assert_null(strstr(text, "pmumon_config_last_reload_success_timestamp_seconds "));
	free(text);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		expo_reloads_note(&rl, steps[i].ok, steps[i].now_s);
		text = render_reloads(&rl);
		assert_value(text, "pmumon_config_last_reload_successful", steps[i].successful);
		assert_value(text, "pmumon_config_reloads_total{result=\"success\"}",
			     steps[i].ok_n);
		assert_value(text, "pmumon_config_reloads_total{result=\"failure\"}",
			     steps[i].failed_n);
		if (isnan(steps[i].ts))
			assert_null(strstr(text, "pmumon_config_last_reload_success_timestamp"
						 "_seconds "));
		else
			assert_value(text, "pmumon_config_last_reload_success_timestamp_seconds",
				     steps[i].ts);
		free(text);
	}
}

/* Label values are escaped as both formats say: backslash, double quote, newline. */
static void test_label_escaping(void **state)
{
	struct pm_row r = row("a\\b\"c\nd", "", 0, 1);
	struct expo_acc *acc = NULL;
	struct pm_report rep = report(&r, 1, SEC);
	char *text;

	r.device = "dev\nice";
	assert_int_equal(expo_acc_new(&acc), 0);
	text = render(acc, &rep, EXPO_TEXT);
	assert_value(text, "pmumon_event_total{event=\"a\\\\b\\\"c\\nd\",device=\"dev\\nice\"}", 1);
	for (const char *p = text; *p; p++)
		assert_false(p[0] == '\n' && p[1] == 'd'); /* no raw newline inside a value */
	free(text);
	expo_acc_free(acc);
}

/* The text format and OpenMetrics: a counter's family without _total in OpenMetrics,
 * info as a gauge in text, UNIT lines, and # EOF. */
static void test_formats(void **state)
{
	struct pm_row r = row("bw", "MB/s", PM_ROW_METRIC, 1);
	struct pm_report rep = report(&r, 1, SEC);
	struct expo_acc *acc = NULL;
	char *text, *om;

	assert_int_equal(expo_acc_new(&acc), 0);
	text = render(acc, &rep, EXPO_TEXT);
	om = render(acc, &rep, EXPO_OPENMETRICS);
	assert_non_null(strstr(text, "# TYPE pmumon_bw_bytes_total counter\n"));
	assert_non_null(strstr(text, "# TYPE pmumon_build_info gauge\n"));
	assert_null(strstr(text, "# EOF"));
	assert_non_null(strstr(om, "# TYPE pmumon_bw_bytes counter\n"));
	assert_non_null(strstr(om, "# TYPE pmumon_build info\n"));
	assert_non_null(strstr(om, "# UNIT pmumon_sampled_seconds seconds\n"));
	assert_non_null(strstr(om, "pmumon_build_info{version=\"test\",platform=\"lab\""));
	assert_true(strlen(om) > 6 && !strcmp(om + strlen(om) - 6, "# EOF\n"));
	free(text);
	free(om);
	expo_acc_free(acc);
}

/* A platform-neutral name: the pack's concept and its labels, the metric label kept. */
static void test_neutral_names(void **state)
{
	struct expo_name names[] = { { "DF_CH3_GBps", "memory", "channel=3" } };
	struct expo_meta m = meta;
	struct pm_row r = row("DF_CH3_GBps", "GB/s", PM_ROW_METRIC, 2);
	struct pm_report rep = report(&r, 1, SEC);
	struct expo_health h = { 0 };
	struct expo_counts *c = NULL;
	struct expo_sample s = { .interval = &rep, .meta = &m, .health = &h };
	struct expo_acc *acc = NULL;
	struct sbuf b = { 0 };

	m.names = names;
	m.n_names = 1;
	m.platform = ""; /* no empty label */
	r.channel = 5;	 /* the name's channel says more than the row's */
	r.socket = 1;
	assert_int_equal(expo_acc_new(&acc), 0);
	assert_int_equal(expo_acc_add(acc, &rep, &rep, &m, &c), 0);
	s.counts = c;
	assert_true(expo_render(&b, EXPO_TEXT, &s) > 0);
	assert_value(b.data,
		     "pmumon_memory_bytes_total{metric=\"DF_CH3_GBps\",channel=\"3\",socket=\"1\"}",
		     2e9);
	assert_null(strstr(b.data, "platform=\"\""));
	sbuf_free(&b);
	expo_counts_unref(c);
	expo_acc_free(acc);
}

/* Another part's families (an expo_sample's more): after the exposition's own, to the same
 * sink, counted, escaped and named as the format says, before OpenMetrics's # EOF. */
static long more_families(void *arg, const struct expo_sink *k)
{
	int *calls = arg;

	++*calls;
	k->family(k->ud, "pmumon_x_sent_total", "counter", NULL, "Sent");
	k->series(k->ud, "pmumon_x_sent_total", "", "url", "http://a/\"b\"", 7);
	k->series(k->ud, "pmumon_x_sent_total", "", "url", "http://c/", 8);
	return 2;
}

static void test_more(void **state)
{
	struct pm_row r = row("bw", "MB/s", PM_ROW_METRIC, 1);
	struct pm_report rep = report(&r, 1, SEC);
	struct expo_health h = { 0 };
	struct expo_counts *c = NULL;
	int calls = 0;
	struct expo_sample s = { .interval = &rep, .meta = &meta, .health = &h, .more_arg = &calls };
	struct expo_acc *acc = NULL;
	struct sbuf text = { 0 }, om = { 0 }, without = { 0 };
	long n_without, n;

	assert_int_equal(expo_acc_new(&acc), 0);
	assert_int_equal(expo_acc_add(acc, &rep, &rep, &meta, &c), 0);
	s.counts = c;
	n_without = expo_render(&without, EXPO_TEXT, &s);
	s.more = more_families;
	n = expo_render(&text, EXPO_TEXT, &s);
	assert_true(expo_render(&om, EXPO_OPENMETRICS, &s) == n);
	assert_int_equal(calls, 2);
	assert_int_equal(n, n_without + 2);
	/* the exposition's own, unchanged, then the others' */
	assert_true(text.len > without.len && !memcmp(text.data, without.data, without.len));
	assert_string_equal(text.data + without.len,
			    "# HELP pmumon_x_sent_total Sent\n# TYPE pmumon_x_sent_total counter\n"
			    "pmumon_x_sent_total{url=\"http://a/\\\"b\\\"\"} 7\n"
			    "pmumon_x_sent_total{url=\"http://c/\"} 8\n");
	assert_non_null(strstr(om.data, "# TYPE pmumon_x_sent counter\n"
					"pmumon_x_sent_total{url=\"http://a/\\\"b\\\"\"} 7\n"
					"pmumon_x_sent_total{url=\"http://c/\"} 8\n# EOF\n"));
	assert_ptr_equal(strstr(om.data, "# EOF"), om.data + om.len - 6); /* once, at the end */
	sbuf_free(&text);
	sbuf_free(&om);
	sbuf_free(&without);
	expo_counts_unref(c);
	expo_acc_free(acc);
}

/* What put_value printed before expo_fmt_fraction: %.15g, or %.17g where that does not read
 * back. */
static void reference(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, size, "%.17g", v);
}

/* One value the fast path must print as printf did (or leave to it: 0). */
static void fraction_as_printf(double v)
{
	char want[40], got[40];
	size_t n = expo_fmt_fraction(got, v);

	if (!(v >= 1 && v < 1e14) || v == floor(v)) {
		if (n != 0)
			fail_msg("%.17g is not the fast path's, yet it wrote '%s'", v, got);
		return;
	}
	reference(want, sizeof(want), v);
	if (n == 0 || strcmp(got, want) != 0 || n != strlen(got))
		fail_msg("%.17g: '%s' (%zu), printf '%s'", v, n ? got : "", n, want);
}

/*
 * A fractional value (a multiplexed count's amount, a metric's) is printed without printf
 * and must be printf's bytes: edge cases (ties, 15 digits that read back or not, the
 * smallest binade's gap below a power of two, rounding into another digit), then values
 * drawn the ways an exposition has them (seeded).
 */
static void test_fraction_as_printf(void **state)
{
	static const double edge[] = { 1.5,
				       1.0000000000000002,
				       1.9999999999999998,
				       2.0000000000000004,
				       9.9999999999999982,
				       99999999999999.984,
				       9999999.9999999981,
				       0.5,
				       1e14,
				       0.1 + 0.2 + 1,
				       953887.68115942029,
				       123456789.123456789,
				       4503599627370495.5,
				       3.0000000000000004,
				       1234.5,
				       10.000000000000002,
				       65536.000000000007,
				       -2.5 };
	unsigned seed = 2718;

	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		fraction_as_printf(edge[i]);
	for (int k = 0; k < 40; k++) { /* around powers of two and ten, both sides */
		double p2 = ldexp(1, k), p10 = pow(10, k % 14), a = p2, b = p2, c = p10, d = p10;

		for (int s = 0; s < 50; s++) {
			fraction_as_printf(a = nextafter(a, 0));
			fraction_as_printf(b = nextafter(b, INFINITY));
			fraction_as_printf(c = nextafter(c, 0));
			fraction_as_printf(d = nextafter(d, INFINITY));
		}
	}
	for (int i = 0; i < 30000; i++) {
		uint64_t x = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed) << 11 ^
			     (uint64_t)rand_r(&seed);
		uint64_t bits = (uint64_t)(1023 + rand_r(&seed) % 47) << 52 |
				(x & ((1ull << 52) - 1));
		double v;

		memcpy(&v, &bits, sizeof(v)); /* any double of 1 to 2^47 */
		fraction_as_printf(v);
		/* a count scaled by a running share; a decimal with 1 to 14 places */
		fraction_as_printf((double)(x % 10000000000ull) * 1e9 /
				   (double)(1 + (unsigned)rand_r(&seed) % 1000000000u));
		fraction_as_printf((double)(x % 1000000000000000ull) /
				   pow(10, 1 + rand_r(&seed) % 14));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_never_down),
		cmocka_unit_test(test_uncounted),
		cmocka_unit_test(test_restart_goes_on),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_neutral_names),
		cmocka_unit_test(test_more),
		cmocka_unit_test(test_seconds_never_down),
		cmocka_unit_test(test_reloads),
		cmocka_unit_test(test_fraction_as_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
