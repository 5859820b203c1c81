// SPDX-License-Identifier: GPL-2.0-only
/* The recording parsers' pure pieces (source/replay/replay-parse.c), table-driven. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "source/replay/replay.h"

static void test_aggr_id(void **state)
{
	static const struct {
		const char *s;
		int r, cpu, socket, die, core;
	} t[] = {
		{ "CPU0", 0, 0, -1, -1, -1 },
		{ "CPU17", 0, 17, -1, -1, -1 },
		{ "S0", 0, -1, 0, -1, -1 },
		{ "S1-D0", 0, -1, 1, 0, -1 },
		{ "S0-D1-C3", 0, -1, 0, 1, 3 },
		{ "CPU", -EINVAL, 0, 0, 0, 0 },
		{ "CPU1x", -EINVAL, 0, 0, 0, 0 },
		{ "S0-D", -EINVAL, 0, 0, 0, 0 },
		{ "S0-X1", -EINVAL, 0, 0, 0, 0 },
		{ "N0", -EINVAL, 0, 0, 0, 0 },
		{ "summary", -EINVAL, 0, 0, 0, 0 },
		{ "0.200323643", -EINVAL, 0, 0, 0, 0 },
		{ "CPU01", -EINVAL, 0, 0, 0, 0 },
		{ "CPU-1", -EINVAL, 0, 0, 0, 0 },
		{ "S", -EINVAL, 0, 0, 0, 0 },
		{ "S0-D1-C3-X", -EINVAL, 0, 0, 0, 0 },
		{ "S0-C1", -EINVAL, 0, 0, 0, 0 },
		/* numbers pmumon's CPU sets hold (an import sized its machine from them) */
		{ "CPU8191", 0, 8191, -1, -1, -1 },
		{ "S8191-D8191-C8191", 0, -1, 8191, 8191, 8191 },
		{ "CPU8192", -ERANGE, 0, 0, 0, 0 },
		{ "CPU2147483647", -ERANGE, 0, 0, 0, 0 },
		{ "S0-D8192", -ERANGE, 0, 0, 0, 0 },
		{ "S0-D0-C99999999999999999999", -ERANGE, 0, 0, 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int cpu = 99, socket = 99, die = 99, core = 99;
		int r = pm_replay_parse_aggr_id(t[i].s, &cpu, &socket, &die, &core);

		assert_int_equal(r, t[i].r);
		if (r < 0)
			continue;
		assert_int_equal(cpu, t[i].cpu);
		assert_int_equal(socket, t[i].socket);
		assert_int_equal(die, t[i].die);
		assert_int_equal(core, t[i].core);
	}
}

static void test_split_name(void **state)
{
	static const struct {
		const char *printed, *name, *pmu;
	} t[] = {
		/* perf's uniquify_event_name: instance/terms/, or name [instance] */
		{ "ali_drw_27080/hif_rd/", "ali_drw/hif_rd/", "ali_drw_27080" },
		{ "hif_rd [ali_drw_27080]", "hif_rd", "ali_drw_27080" },
		{ "amd_df/event=0x7,umask=0x38/", "amd_df/event=0x7,umask=0x38/", "amd_df" },
		{ "msr/tsc/", "msr/tsc/", "msr" },
		{ "dram_channel_data_controller_4", "dram_channel_data_controller_4", NULL },
		{ "cycles", "cycles", NULL },
		{ "sched:sched_switch", "sched:sched_switch", NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *name = NULL, *pmu = NULL;

		assert_int_equal(pm_replay_split_name(t[i].printed, &name, &pmu), 0);
		assert_string_equal(name, t[i].name);
		if (t[i].pmu)
			assert_string_equal(pmu, t[i].pmu);
		else
			assert_null(pmu);
		free(name);
		free(pmu);
	}
}

/*
 * A perf line's count, run time and running percentage, read by the parser's inline fast
 * paths (whole numbers, "%.2f" percentages), against strtod/strtoull over varied fields:
 * every percentage perf can print, counts of 1 to 20 digits and with fractions.
 */
static void test_perf_fields_as_strtod(void **state)
{
	enum { N = 12000 };
	size_t cap = (size_t)N * 96, len = 0;
	char *text = malloc(cap), (*count)[32] = calloc(N, sizeof(*count)),
	     (*pct)[16] = calloc(N, sizeof(*pct));
	uint64_t *run = calloc(N, sizeof(*run));
	struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv" };
	struct pm_replay *rp = NULL;
	struct pm_diag d;
	unsigned seed = 77;

	(void)state;
	assert_non_null(text);
	assert_non_null(count);
	assert_non_null(pct);
	assert_non_null(run);
	for (int k = 0; k < N; k++) {
		unsigned long long c = ((unsigned long long)rand_r(&seed) << 31) ^
				       (unsigned long long)rand_r(&seed);
		int h = k < 10000 ? k + 1 : 1 + rand_r(&seed) % 10000; /* 0.01 to 100.00 */

		c >>= rand_r(&seed) % 62;
		if (k % 5 == 1)
			snprintf(count[k], sizeof(count[k]), "%llu.%02d", c, k % 100);
		else if (k % 5 == 2) /* 16 to 20 digits: read as a double */
			snprintf(count[k], sizeof(count[k]), "%llu%04d", c | 1ull << 40, k % 10000);
		else
			snprintf(count[k], sizeof(count[k]), "%llu", c);
		snprintf(pct[k], sizeof(pct[k]), "%d.%02d", h / 100, h % 100);
		run[k] = 1 + (uint64_t)rand_r(&seed) * (k % 3 ? 1 : 997);
		len += (size_t)snprintf(text + len, cap - len,
					"%14.9f,%s,,ali_drw_21000/hif_rd/,%llu,%s,,\n", 1.0 + k,
					count[k], (unsigned long long)run[k], pct[k]);
	}
	assert_int_equal(pm_replay__parse(text, len, &o, &rp, &d), 0);
	assert_int_equal(rp->n_samples, N);
	for (int k = 0; k < N; k++) {
		double p = strtod(pct[k], NULL), ena = (double)run[k] * 100.0 / p;

		assert_int_equal(pm_replay__next_sample(rp), 0);
		if (!(rp->vals[0].value == strtod(count[k], NULL)))
			fail_msg("line %d: count '%s' read as %.17g", k + 1, count[k],
				 rp->vals[0].value);
		assert_int_equal(rp->vals[0].run, run[k]);
		if (rp->vals[0].ena != (p < 100 ? (uint64_t)llround(ena) : run[k]))
			fail_msg("line %d: %llu ns at %s%% enabled %llu ns", k + 1,
				 (unsigned long long)run[k], pct[k],
				 (unsigned long long)rp->vals[0].ena);
	}
	pm_replay__free(rp);
	free(text);
	free(count);
	free(pct);
	free(run);
}

/* An event whose terms hold the separator spans fields: perf does not quote. */
static void test_unquoted_terms(void **state)
{
	static const char text[] =
		"     1.000000000,100,,amd_df/event=0x7,umask=0x38/,500000000,50.00,,\n"
		"     1.000000000,<not counted>,,amd_df/event=0x47,umask=0x38/,0,0.00,,\n";
	struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv" };
	struct pm_replay *rp = NULL;
	struct pm_diag d;

	(void)state;
	assert_int_equal(pm_replay__parse(text, strlen(text), &o, &rp, &d), 0);
	assert_int_equal(rp->n_series, 2);
	assert_string_equal(rp->series[0].name, "amd_df/event=0x7,umask=0x38/");
	assert_int_equal(rp->n_samples, 1);
	assert_true(rp->intervals);
	assert_int_equal(pm_replay__next_sample(rp), 0);
	assert_int_equal(rp->vals[0].run, 500000000);
	assert_int_equal(rp->vals[0].ena, 1000000000); /* from 50.00% */
	assert_true(rp->vals[1].not_counted);
	pm_replay__free(rp);
}

/* Parse text as file "t.csv"; the replay and the diag for the caller. */
static int parse(enum pm_replay_format fmt, const char *text, struct pm_replay **rp,
		 struct pm_diag *d)
{
	struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv", .format = fmt };

	*rp = NULL;
	return pm_replay__parse(text, strlen(text), &o, rp, d);
}

#define PM_HEADER                                                                                 \
	"type,time_s,timestamp,event,device,socket,die,cpu,value,unit,raw,enabled_ns,running_ns," \
	"running_pct,flags,simulated"
#define PM_ROW(value, ena, run, sim)                                                        \
	"total,1.000000000,2026-01-01T00:00:02.000Z,msr/tsc/,,,,," value ",,5," ena "," run \
	",100.00,," sim "\n"
#define JSON_LINE(value, pct)                                                             \
	"{\"counter-value\" : \"" value "\", \"unit\" : \"\", \"event\" : \"msr/tsc/\", " \
	"\"event-runtime\" : 1000, \"pcnt-running\" : " pct "}\n"

/*
 * What no recording holds is refused, naming the file and line: rows cut short
 * (and headers of one column, which have no separator), numbers with two
 * signs, negative counts, and shares of time no counter ran.
 */
static void test_refused(void **state)
{
	static const struct {
		enum pm_replay_format fmt;
		const char *text, *msg;
	} t[] = {
		/* a row shorter than its header: a column of it was NULL (a crash) */
		{ PM_REPLAY_AUTO, "count,event\n5\n",
		  "t.csv:2: expected 2 fields, as the header (line 1) has, not 1" },
		{ PM_REPLAY_AUTO, "time_s,event,count,enabled_ns,running_ns\n1,msr/tsc/,5\n",
		  "t.csv:2: expected 5 fields, as the header (line 1) has, not 3" },
		{ PM_REPLAY_AUTO, PM_HEADER "\ntotal,1.0,,msr/tsc/\n",
		  "t.csv:2: expected 16 fields, as the header (line 1) has, not 4" },
		{ PM_REPLAY_AUTO, "event,count\nmsr/tsc/,5,6\n",
		  "t.csv:2: expected 2 fields, as the header (line 1) has, not 3" },
		/* a header of one column: its separator was NUL, the splitter ran off the line */
		{ PM_REPLAY_AUTO, "event\n", "t.csv:1: the header has no 'count' column" },
		{ PM_REPLAY_AUTO, "event", "t.csv:1: the header has no 'count' column" },
		{ PM_REPLAY_COUNTS_CSV, "event\n", "t.csv:1: the header has no 'count' column" },
		{ PM_REPLAY_PMUMON_CSV, "+ 2\n", "t.csv:1: the header has no 'type' column" },
		{ PM_REPLAY_PMUMON_CSV, "+ 2", "t.csv:1: the header has no 'type' column" },
		{ PM_REPLAY_PMUMON_CSV, "type\n", "t.csv:1: the header has no 'time_s' column" },
		{ PM_REPLAY_AUTO, "event,count,count\nmsr/tsc/,5,6\n",
		  "t.csv:1: the header names 'count' twice" },
		/* one sign at most: "--5" was 5 */
		{ PM_REPLAY_AUTO, "--5,,msr/tsc/,1000,100.00,,\n",
		  "t.csv:1: expected a count or <not counted>, not '--5'" },
		{ PM_REPLAY_AUTO, JSON_LINE("--5", "100.00"),
		  "t.csv:1: expected \"counter-value\" to be a count or <not counted>, not '--5'" },
		{ PM_REPLAY_AUTO, PM_HEADER "\n" PM_ROW("--5", "10", "10", "0"),
		  "t.csv:2: expected a value, not '--5'" },
		/* a byte next to the digits ('/' and ':') in a block of eight read at once */
		{ PM_REPLAY_AUTO, "1234567:9,,msr/tsc/,1000,100.00,,\n",
		  "t.csv:1: expected a count or <not counted>, not '1234567:9'" },
		{ PM_REPLAY_AUTO, "12/45678,,msr/tsc/,1000,100.00,,\n",
		  "t.csv:1: expected a count or <not counted>, not '12/45678'" },
		{ PM_REPLAY_AUTO, "5,,msr/tsc/,1000000:00,100.00,,\n",
		  "t.csv:1: expected the counter's run time (ns) and running percentage after "
		  "event 'msr/tsc/'" },
		/* counts are never negative: -100 was read as 0 */
		{ PM_REPLAY_AUTO, "-5,,msr/tsc/,1000,100.00,,\n",
		  "t.csv:1: expected a count or <not counted>, not '-5'" },
		{ PM_REPLAY_AUTO, JSON_LINE("-100", "100.00"),
		  "t.csv:1: expected \"counter-value\" to be a count or <not counted>, not '-100'" },
		{ PM_REPLAY_AUTO, PM_HEADER "\n" PM_ROW("-5", "10", "10", "0"),
		  "t.csv:2: expected a value, not '-5'" },
		/* perf's share of the time it ran: 0 to 100, and more than 0 for a count */
		{ PM_REPLAY_AUTO, "5,,msr/tsc/,1000,200.00,,\n",
		  "t.csv:1: expected the running percentage, not 200.00%" },
		{ PM_REPLAY_AUTO, "5,,msr/tsc/,1000,-5.00,,\n",
		  "t.csv:1: expected the running percentage, not -5.00%" },
		{ PM_REPLAY_AUTO, "5,,msr/tsc/,1000,0.00,,\n",
		  "t.csv:1: a count that ran 0.00% of the time" },
		{ PM_REPLAY_AUTO, "5,,msr/tsc/,0,100.00,,\n", "t.csv:1: a count that ran 0 ns" },
		{ PM_REPLAY_AUTO, "<not counted>,,msr/tsc/,0,200.00,,\n",
		  "t.csv:1: expected the running percentage, not 200.00%" },
		{ PM_REPLAY_AUTO, JSON_LINE("5", "200.00"),
		  "t.csv:1: expected the running percentage, not 200.00%" },
		{ PM_REPLAY_AUTO, JSON_LINE("5", "-5"),
		  "t.csv:1: expected the running percentage, not -5.00%" },
		{ PM_REPLAY_AUTO, JSON_LINE("5", "0.00"),
		  "t.csv:1: a count that ran 0.00% of the time" },
		{ PM_REPLAY_AUTO, PM_HEADER "\n" PM_ROW("5", "10", "20", "0"),
		  "t.csv:2: running_ns 20 is more than enabled_ns 10" },
		{ PM_REPLAY_AUTO, PM_HEADER "\n" PM_ROW("5", "10", "0", "0"),
		  "t.csv:2: a count that ran 0 ns" },
		{ PM_REPLAY_AUTO, "event,count,enabled_ns,running_ns\nmsr/tsc/,5,10,20\n",
		  "t.csv:2: running_ns 20 is more than enabled_ns 10" },
		{ PM_REPLAY_AUTO, "event,count,enabled_ns,running_ns\nmsr/tsc/,5,10,0\n",
		  "t.csv:2: a count that ran 0 ns" },
		/* CPUs, sockets and dies pmumon can hold: CPU 2147483647 overflowed, and
		 * CPU 200000000 took 17 s and 2.3 GB before it was refused */
		{ PM_REPLAY_AUTO, "cpu,event,count\n8192,msr/tsc/,5\n",
		  "t.csv:2: expected cpu to be a number below 8192, not '8192'" },
		{ PM_REPLAY_AUTO, PM_HEADER "\ntotal,1.0,,msr/tsc/,,2147483647,,,5,,5,10,10,,,0\n",
		  "t.csv:2: expected socket to be a number below 8192, not '2147483647'" },
		{ PM_REPLAY_AUTO, "CPU2147483647,5,,msr/tsc/,1000,100.00,,\n",
		  "t.csv:1: 'CPU2147483647' numbers a CPU, socket, die or core of 8192 or more" },
		{ PM_REPLAY_AUTO,
		  "{\"cpu\" : \"8192\", \"counter-value\" : \"5\", \"unit\" : \"\", "
		  "\"event\" : \"msr/tsc/\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00}\n",
		  "t.csv:1: expected \"cpu\" to be a CPU number below 8192 in a string" },
		/* simulated or not, never a third thing read as real */
		{ PM_REPLAY_AUTO, PM_HEADER "\n" PM_ROW("5", "10", "10", "yes"),
		  "t.csv:2: expected simulated to be 0 or 1, not 'yes'" },
		/* pmumon's JSON Lines: each field a CSV row has; a newer schema refused */
		{ PM_REPLAY_AUTO, "{\"schema\":2,\"type\":\"total\",\"event\":\"msr/tsc/\"}\n",
		  "t.csv:1: expected time_s in seconds" },
		{ PM_REPLAY_AUTO, "{\"schema\":5,\"type\":\"total\",\"event\":\"msr/tsc/\"}\n",
		  "t.csv:1: a record of schema 5: this pmumon reads schema 1 to 4" },
		/* and are not perf's */
		{ PM_REPLAY_PERF_JSON, "{\"schema\":2,\"type\":\"total\",\"event\":\"msr/tsc/\"}\n",
		  "t.csv:1: a pmumon JSON Lines record among perf stat -j's" },
		{ PM_REPLAY_PERF_JSON, "[1]\n", "t.csv:1: expected a JSON object" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_replay *rp;
		struct pm_diag d;
		int r = parse(t[i].fmt, t[i].text, &rp, &d);

		if (r != -EINVAL || !strstr(d.msg, t[i].msg))
			fail_msg("%zu: '%s': got %d '%s', want '%s'", i, t[i].text, r,
				 r < 0 ? d.msg : "", t[i].msg);
		assert_null(rp);
	}
}

/* What counters that did not run say stays accepted, as not counted. */
static void test_not_counted_accepted(void **state)
{
	static const char *const t[] = {
		/* perf: <not counted> at 0.00% (never scheduled) or 100.00% (ran 0 of 0 ns) */
		"<not counted>,,msr/tsc/,0,0.00,,\n",
		"<not counted>,,msr/tsc/,0,100.00,,\n",
		JSON_LINE("<not counted>", "0.00"),
		/* a counts CSV: what the kernel reads for a counter it never scheduled */
		"event,count,enabled_ns,running_ns\nmsr/tsc/,0,1000,0\n",
		PM_HEADER "\ntotal,1.0,,msr/tsc/,,,,,,,0,1000,0,0.00,not_counted,0\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_replay *rp;
		struct pm_diag d;
		int r = parse(PM_REPLAY_AUTO, t[i], &rp, &d);

		if (r != 0)
			fail_msg("'%s': %s", t[i], d.msg);
		assert_int_equal(rp->n_series, 1);
		assert_int_equal(pm_replay__next_sample(rp), 0);
		assert_true(rp->vals[0].not_counted);
		/* a row of its own, not counted (not left out as <not supported> is) */
		assert_true(rp->series[0].counted);
		pm_replay__free(rp);
	}
}

/* <not supported> (perf) or a row flagged unsupported (pmumon): no row. */
static void test_not_supported_left_out(void **state)
{
	static const char *const t[] = {
		"<not supported>,,cycles,0,100.00,,\n",
		JSON_LINE("<not supported>", "100.00"),
		PM_HEADER "\ntotal,1.0,,cycles,,,,,,,0,0,0,,not_counted|unsupported,0\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_replay *rp;
		struct pm_diag d;

		if (parse(PM_REPLAY_AUTO, t[i], &rp, &d) != 0)
			fail_msg("'%s': %s", t[i], d.msg);
		assert_int_equal(rp->n_series, 1);
		assert_false(rp->series[0].counted);
		pm_replay__free(rp);
	}
}

/* An event given twice is printed twice: two series, in order, each with its counts; a
 * counts CSV has no repeats. */
static void test_repeats(void **state)
{
	static const char *const t[] = {
		"5,,page-faults,10,100.00,,\n1,,task-clock,10,100.00,,\n"
		"6,,page-faults,11,100.00,,\n",
		"     1.000000000,5,,page-faults,10,100.00,,\n     1.000000000,6,,page-faults,11,"
		"100.00,,\n     2.000000000,7,,page-faults,12,100.00,,\n"
		"     2.000000000,8,,page-faults,13,100.00,,\n",
		/* the repeats of a sample in the order first printed, whatever comes between */
		"     1.000000000,5,,page-faults,10,100.00,,\n     1.000000000,1,msec,task-clock,10,"
		"100.00,,\n     1.000000000,6,,page-faults,11,100.00,,\n     2.000000000,2,msec,"
		"task-clock,10,100.00,,\n     2.000000000,7,,page-faults,12,100.00,,\n"
		"     2.000000000,8,,page-faults,13,100.00,,\n",
	};
	struct pm_replay *rp;
	struct pm_diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t last = i == 1 ? 1 : 2;

		if (parse(PM_REPLAY_AUTO, t[i], &rp, &d) != 0)
			fail_msg("'%s': %s", t[i], d.msg);
		assert_int_equal(rp->n_series, last + 1);
		assert_int_equal(rp->series[0].repeat, 0);
		assert_int_equal(rp->series[last].repeat, 1);
		assert_string_equal(rp->series[last].name, "page-faults");
		for (size_t k = 0; k < rp->n_samples; k++) {
			assert_int_equal(pm_replay__next_sample(rp), 0);
			assert_int_equal(rp->vals[0].value, 5 + 2 * k);
			assert_int_equal(rp->vals[last].value, 6 + 2 * k);
			assert_int_equal(rp->vals[last].run, 11 + 2 * k);
		}
		pm_replay__free(rp);
	}
	assert_int_equal(parse(PM_REPLAY_AUTO, "event,count\nhif_rd,5\nhif_rd,6\n", &rp, &d),
			 -EINVAL);
	assert_non_null(strstr(d.msg, "a second count of 'hif_rd'"));
}

/*
 * Rows per cgroup (perf -G, --for-each-cgroup): perf 6.1 prints the cgroup after the event
 * on every line of such a run ("" for an event in none) and before -r's variance; pmumon
 * writes a cgroup column or key. One series per cgroup, whatever the cgroup is called (a
 * number, a percentage-like name), and a file is one kind of run or the other.
 */
static void test_cgroups(void **state)
{
	static const struct {
		const char *text;
		const char *cgroup[2];
		double value[2];
	} t[] = {
		{ "5,,page-faults,A,10,100.00,,\n6,,page-faults,B,10,100.00,,\n",
		  { "A", "B" },
		  { 5, 6 } },
		/* a cgroup named like a run time, then the run time and percentage */
		{ "5,,page-faults,7,10,100.00,,\n6,,page-faults,8,10,100.00,,\n",
		  { "7", "8" },
		  { 5, 6 } },
		{ "<not counted>,,page-faults,7,0,100.00,,\n6,,page-faults,1.00,10,100.00,,\n",
		  { "7", "1.00" },
		  { 0, 6 } },
		/* "" for an event in no cgroup, and -r's variance after the cgroup */
		{ "5,,page-faults,,1.00%,10,100.00,,\n6,,page-faults,A,0.00%,10,100.00,,\n",
		  { NULL, "A" },
		  { 5, 6 } },
		{ "     1.000000000,CPU0,5,,page-faults,A,10,100.00,,\n"
		  "     1.000000000,CPU0,6,,page-faults,B,10,100.00,,\n",
		  { "A", "B" },
		  { 5, 6 } },
		{ "{\"counter-value\" : \"5\", \"unit\" : \"\", \"event\" : \"page-faults\", "
		  "\"cgroup\" : \"A\", \"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n"
		  "{\"counter-value\" : \"6\", \"unit\" : \"\", \"event\" : \"page-faults\", "
		  "\"cgroup\" : \"\", \"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
		  { "A", NULL },
		  { 5, 6 } },
		{ PM_HEADER ",cgroup\n"
			    "total,1.0,,page-faults,,,,,5,,5,10,10,100.00,,0,A\n"
			    "total,1.0,,page-faults,,,,,6,,6,10,10,100.00,,0,B\n",
		  { "A", "B" },
		  { 5, 6 } },
	};
	static const char *const refused[] = {
		/* a line without the field among lines with one, and the other way round */
		"5,,page-faults,A,10,100.00,,\n6,,task-clock,10,100.00,,\n",
		"5,,page-faults,10,100.00,,\n6,,task-clock,A,10,100.00,,\n",
		"{\"counter-value\" : \"5\", \"unit\" : \"\", \"event\" : \"page-faults\", "
		"\"cgroup\" : 7, \"event-runtime\" : 10, \"pcnt-running\" : 100.00}\n",
	};
	struct pm_replay *rp;
	struct pm_diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (parse(PM_REPLAY_AUTO, t[i].text, &rp, &d) != 0)
			fail_msg("%zu: '%s': %s", i, t[i].text, d.msg);
		assert_int_equal(rp->n_series, 2);
		assert_int_equal(pm_replay__next_sample(rp), 0);
		for (size_t k = 0; k < 2; k++) {
			assert_string_equal(rp->series[k].name, "page-faults");
			assert_int_equal(rp->series[k].repeat,
					 0); /* not a repeat: another cgroup */
			if (t[i].cgroup[k])
				assert_string_equal(rp->series[k].cgroup, t[i].cgroup[k]);
			else
				assert_null(rp->series[k].cgroup);
			assert_true(rp->vals[k].value == t[i].value[k]);
		}
		pm_replay__free(rp);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (parse(PM_REPLAY_AUTO, refused[i], &rp, &d) != -EINVAL)
			fail_msg("%zu: '%s' accepted", i, refused[i]);
		assert_true(strstr(d.msg, "t.csv:2: a line with") ||
			    strstr(d.msg, "t.csv:2: a line without") ||
			    strstr(d.msg, "\"cgroup\" to be a string"));
	}
}

/* "# SIMULATED: PLATFORM: ...": the platform where it says one, never the next line. */
static void test_simulated_comment(void **state)
{
	static const struct {
		const char *text, *platform;
	} t[] = {
		{ "# SIMULATED: yitian710: numbers come from pmumon's simulator\nevent,count\n"
		  "msr/tsc/,5\n",
		  "yitian710" },
		{ "event,count\nmsr/tsc/,5\n# SIMULATED: amdzen2: numbers\n", "amdzen2" },
		/* the last line, no newline: was read one byte past the file */
		{ "event,count\nmsr/tsc/,5\n# SIMULATED:", "" },
		{ "event,count\nmsr/tsc/,5\n# SIMULATED", "" },
		/* no platform: was taken from the next line ("vent,count") */
		{ "# SIMULATED:\nevent,count\nmsr/tsc/,5\n", "" },
		{ "# SIMULATED:  \nevent,count\nmsr/tsc/,5\n", "" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_replay *rp;
		struct pm_diag d;

		if (parse(PM_REPLAY_AUTO, t[i].text, &rp, &d) != 0)
			fail_msg("'%s': %s", t[i].text, d.msg);
		assert_non_null(pm_replay__sim_platform(rp));
		assert_string_equal(pm_replay__sim_platform(rp), t[i].platform);
		pm_replay__free(rp);
	}
}

/*
 * pmumon stat -x, before and after it put its header first: a "# SIMULATED"
 * line first, anywhere or nowhere; 16 columns, or more after 'simulated'
 * (columns are read by name). Each reads as the same recording.
 */
static void test_pmumon_csv_layouts(void **state)
{
#define ROWS(extra)                                                                         \
	"interval,1.000000000,2026-01-01T00:00:02.000Z,ali_drw/hif_rd/,ali_drw_21000,0,0,," \
	"29157931,,29157931,1000000000,1000000000,100.00,,1" extra "\n"                     \
	"interval,1.000000000,2026-01-01T00:00:02.000Z,ali_drw/hif_wr/,ali_drw_21000,0,0,," \
	"100,,100,1000000000,500000000,50.00,multiplexed,1" extra "\n"                      \
	"interval,2.000000000,2026-01-01T00:00:03.000Z,ali_drw/hif_rd/,ali_drw_21000,0,0,," \
	"29678570,,29678570,1000000000,1000000000,100.00,,1" extra "\n"                     \
	"interval,2.000000000,2026-01-01T00:00:03.000Z,ali_drw/hif_wr/,ali_drw_21000,0,0,," \
	",,0,1000000000,0,0.00,not_counted,1" extra "\n"                                    \
	"total,2.000000000,2026-01-01T00:00:03.000Z,ali_drw/hif_rd/,ali_drw_21000,0,0,,"    \
	"58836501,,58836501,2000000000,2000000000,100.00,,1" extra "\n"
#define SIM "# SIMULATED: yitian710: numbers come from pmumon's simulator, not hardware\n"
	static const struct {
		const char *text, *platform;
	} t[] = {
		/* before: the comment, then the header */
		{ SIM PM_HEADER "\n" ROWS(""), "yitian710" },
		/* after: the header first, the comment after it, at the end, or none */
		{ PM_HEADER "\n" SIM ROWS(""), "yitian710" },
		{ PM_HEADER "\n" ROWS("") SIM, "yitian710" },
		{ PM_HEADER "\n" ROWS(""), "" },
		/* and columns after 'simulated', quoted ones too */
		{ PM_HEADER ",place,note\n" ROWS(",die0/ch2/sub0,\"a,b\"") SIM, "yitian710" },
		{ PM_HEADER ",schema\n" ROWS(",2"), "" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_replay *rp;
		struct pm_diag d;

		if (parse(PM_REPLAY_AUTO, t[i].text, &rp, &d) != 0)
			fail_msg("%zu: %s", i, d.msg);
		assert_int_equal(rp->format, PM_REPLAY_PMUMON_CSV);
		assert_string_equal(pm_replay__sim_platform(rp), t[i].platform);
		assert_true(rp->intervals);
		assert_int_equal(rp->n_samples, 2);
		assert_int_equal(rp->n_series, 2);
		assert_string_equal(rp->series[1].name, "ali_drw/hif_wr/");
		assert_string_equal(rp->series[1].pmu, "ali_drw_21000");
		assert_int_equal(rp->last.t_ns, 2000000000);
		assert_int_equal(pm_replay__next_sample(rp), 0);
		assert_int_equal(rp->vals[0].raw, 29157931);
		assert_int_equal(rp->vals[1].raw, 100);
		assert_int_equal(rp->vals[1].ena, 1000000000);
		assert_int_equal(rp->vals[1].run, 500000000);
		assert_int_equal(pm_replay__next_sample(rp), 0);
		assert_int_equal(rp->cur.t_ns, 2000000000);
		assert_int_equal(rp->vals[0].raw, 29678570);
		assert_true(rp->vals[1].not_counted);
		assert_int_equal(pm_replay__next_sample(rp), -ENODATA);
		pm_replay__free(rp);
	}
#undef ROWS
#undef SIM
}

/* Two intervals of two series, as perf stat -x, -I prints them. */
static const char two_intervals[] = "     1.000000000,100,,msr/tsc/,1000000000,100.00,,\n"
				    "     1.000000000,7,,msr/aperf/,1000000000,100.00,,\n"
				    "     2.000000000,200,,msr/tsc/,1000000000,100.00,,\n"
				    "     2.000000000,9,,msr/aperf/,1000000000,100.00,,\n";

/* Both intervals of two_intervals, played from rp, then the end; twice (a rewind). */
static void assert_two_intervals(struct pm_replay *rp)
{
	for (int round = 0; round < 2; round++) {
		assert_int_equal(rp->n_samples, 2);
		assert_int_equal(rp->n_series, 2);
		assert_int_equal(pm_replay__next_sample(rp), 0);
		assert_int_equal(rp->cur.t_ns, 1000000000);
		assert_true(rp->vals[0].value == 100 && rp->vals[1].value == 7);
		assert_int_equal(pm_replay__next_sample(rp), 0);
		assert_int_equal(rp->cur.t_ns, 2000000000);
		assert_true(rp->vals[0].value == 200 && rp->vals[1].value == 9);
		assert_int_equal(pm_replay__next_sample(rp), -ENODATA);
		assert_int_equal(pm_replay__rewind(rp), 0);
	}
}

/* A file descriptor of a file with text, at its start. */
static int file_with(const char *text)
{
	FILE *f = tmpfile();
	int fd;

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fflush(f), 0);
	fd = dup(fileno(f));
	fclose(f);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/*
 * Nothing is held whole: a file and a pipe (copied as the first pass reads it)
 * play the same samples again, as often as the session opens.
 */
static void test_read_fd(void **state)
{
	struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv" };
	struct pm_replay *rp = NULL;
	struct pm_diag d;
	int pipefd[2];

	(void)state;
	assert_int_equal(pm_replay__read(file_with(two_intervals), &o, &rp, &d), 0);
	assert_two_intervals(rp);
	pm_replay__free(rp);

	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(write(pipefd[1], two_intervals, strlen(two_intervals)),
			 (ssize_t)strlen(two_intervals));
	close(pipefd[1]);
	assert_int_equal(pm_replay__read(pipefd[0], &o, &rp, &d), 0);
	assert_two_intervals(rp);
	pm_replay__free(rp);
}

/*
 * The file is read once: what plays is what was read and checked, parsed,
 * whatever the file holds by then (cut short, or another event in it).
 */
static void test_plays_what_was_read(void **state)
{
	static const char *const then[] = {
		"     1.000000000,100,,msr/tsc/,1000000000,100.00,,\n", /* cut short */
		"     1.000000000,100,,msr/tsc/,1000000000,100.00,,\n"
		"     1.000000000,7,,msr/mperf/,1000000000,100.00,,\n", /* another event */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(then) / sizeof(then[0]); i++) {
		struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv" };
		struct pm_replay *rp = NULL;
		struct pm_diag d;
		int fd = file_with(two_intervals);

		assert_int_equal(pm_replay__read(dup(fd), &o, &rp, &d), 0);
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(pwrite(fd, then[i], strlen(then[i]), 0), (ssize_t)strlen(then[i]));
		close(fd);
		assert_two_intervals(rp);
		pm_replay__free(rp);
	}
}

/* Does this process hold the spill's temporary file ("pmumon-import-XXXXXX (deleted)")? */
static bool holds_spill_file(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool found = false;

	assert_non_null(d);
	while (!found && (e = readdir(d))) {
		char path[300], target[4096];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = strstr(target, "/pmumon-import-") != NULL;
	}
	closedir(d);
	return found;
}

/*
 * Past 4 MiB of parsed values the spill is a temporary file: 200,000 intervals
 * of two events (about 8.6 MB kept: whole counts, fractions, run times equal
 * to the enabled times and not) play back exactly, twice.
 */
static void test_spill_to_a_file(void **state)
{
	struct pm_replay_opts o = { .size = sizeof(o), .name = "big.csv" };
	struct pm_replay *rp = NULL;
	struct pm_diag d;
	size_t n = 200000, len = 0;
	char *text = malloc(n * 120);

	(void)state;
	assert_non_null(text);
	for (size_t i = 1; i <= n; i++)
		len += (size_t)sprintf(text + len,
				       "%zu.000000000,%zu,,msr/tsc/,1000000000,100.00,,\n"
				       "%zu.000000000,%zu.5,,msr/mperf/,500000000,50.00,,\n",
				       i, i * 3, i, i * 5 + 1);
	assert_false(holds_spill_file());
	assert_int_equal(pm_replay__parse(text, len, &o, &rp, &d), 0);
	free(text);
	assert_true(holds_spill_file());
	assert_int_equal(rp->n_samples, n);
	for (int round = 0; round < 2; round++) {
		for (size_t i = 1; i <= n; i++) {
			assert_int_equal(pm_replay__next_sample(rp), 0);
			if (rp->cur.t_ns != i * 1000000000ull ||
			    rp->vals[0].value != (double)(i * 3) ||
			    rp->vals[1].value != (double)(i * 5 + 1) + 0.5 ||
			    rp->vals[0].ena != 1000000000 || rp->vals[0].run != 1000000000 ||
			    rp->vals[1].ena != 1000000000 || rp->vals[1].run != 500000000)
				fail_msg("interval %zu played back as %.1f, %.1f at %llu ns", i,
					 rp->vals[0].value, rp->vals[1].value,
					 (unsigned long long)rp->cur.t_ns);
		}
		assert_int_equal(pm_replay__next_sample(rp), -ENODATA);
		assert_int_equal(pm_replay__rewind(rp), 0);
	}
	pm_replay__free(rp);
	assert_false(holds_spill_file()); /* the spill's file went with it */
}

/* The limits that keep memory bounded are said, with the line they were met on. */
static void test_limits(void **state)
{
	char long_line[200];
	struct pm_replay_opts o = { .size = sizeof(o), .name = "t.csv", .max_line = 64 };
	struct pm_replay *rp = NULL;
	struct pm_diag d;
	char *text;

	(void)state;
	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	text = malloc(strlen(two_intervals) + sizeof(long_line) + 1);
	assert_non_null(text);
	sprintf(text, "%s%s\n", two_intervals, long_line);
	assert_int_equal(pm_replay__parse(text, strlen(text), &o, &rp, &d), -EINVAL);
	assert_null(rp);
	assert_string_equal(d.msg, "t.csv:5: a line longer than 64 bytes");
	/* the whole file within the limit */
	o.max_line = 52;
	assert_int_equal(pm_replay__parse(two_intervals, strlen(two_intervals), &o, &rp, &d), 0);
	assert_two_intervals(rp);
	pm_replay__free(rp);
	rp = NULL;
	free(text);

	o.max_line = 0;
	o.max_series = 1;
	assert_int_equal(pm_replay__parse(two_intervals, strlen(two_intervals), &o, &rp, &d),
			 -EINVAL);
	assert_non_null(strstr(d.msg, "t.csv:2: more than 1 distinct series"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggr_id),
		cmocka_unit_test(test_split_name),
		cmocka_unit_test(test_unquoted_terms),
		cmocka_unit_test(test_perf_fields_as_strtod),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_not_counted_accepted),
		cmocka_unit_test(test_not_supported_left_out),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_simulated_comment),
		cmocka_unit_test(test_pmumon_csv_layouts),
		cmocka_unit_test(test_read_fd),
		cmocka_unit_test(test_plays_what_was_read),
		cmocka_unit_test(test_spill_to_a_file),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
