// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metrics from the platform packs on the simulated machines: values equal
 * the formula over the scenario's truth in every aggregation, a metric
 * against each sub-channel's own clock is summed per device (not computed
 * on summed clocks), quality flags pass through, and the errors a user
 * meets name the metric and the fix.
 */
#include "helpers.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

#define SEC 1000000000ull

static const struct pm_row *metric_row(const struct pm_report *rep, const char *name, size_t nth)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, name) && nth-- == 0) {
			assert_true(rep->rows[i].flags & PM_ROW_METRIC);
			return &rep->rows[i];
		}
	fail_msg("no row %zu of metric %s", nth, name);
	return NULL;
}

static void assert_near(double got, double want)
{
	th_assert_near(got, want, 1e-9 * fabs(want) + 1e-9);
}

/* 6.4 GB/s read and 1.28 GB/s write per channel: half of each per sub-channel. */
static const char *const steady = "ddr.read 6.4G\nddr.write 1.28G\nddr.rmw 0.32G\n";

static void test_yitian_bandwidth_every_aggregation(void **state)
{
	static const struct {
		enum pm_aggr aggr;
		size_t rows;
		double read_mbs; /* each row */
	} cases[] = {
		{ PM_AGGR_DEVICE, 16, 3200 }, /* a sub-channel */
		{ PM_AGGR_DIE, 2, 4 * 6400 }, /* 4 channels per die */
		{ PM_AGGR_FAMILY, 1, 8 * 6400 },
	};

	for (size_t c = 0; c < PM_ARRAY_SIZE(cases); c++) {
		struct pm_sim *sim = th_sim_platform_with("yitian710", steady);
		const struct pm_report *rep;
		struct th_run r;

		assert_int_equal(th_start(&r, sim, NULL, "ali_drw", cases[c].aggr, NULL, 0), 0);
		for (int iv = 0; iv < 3; iv++) {
			pm_sim__advance(sim, SEC);
			assert_int_equal(pm_session__read(r.s), 0);
			rep = pm_session__report(r.s, true);
			for (size_t k = 0; k < cases[c].rows; k++) {
				const struct pm_row *rd = metric_row(rep, "ddr_read_bandwidth.all",
								     k);
				const struct pm_row *wr = metric_row(rep, "ddr_write_bandwidth.all",
								     k);

				assert_near(rd->value, cases[c].read_mbs);
				/* (hif_wr + hif_rmw) x 64: write and read-modify-write bytes */
				assert_near(wr->value, cases[c].read_mbs * (1.28 + 0.32) / 6.4);
				assert_string_equal(rd->unit, "MB/s");
				assert_true(rd->running == 1.0);
				assert_false(rd->flags & (PM_ROW_MULTIPLEXED | PM_ROW_NOT_COUNTED));
			}
		}
		th_stop(&r);
	}
}

/* value within 0.1% of want */
static void assert_within_permille(double got, double want)
{
	th_assert_rel(got, want, 1e-3);
}

/* The metric row whose place (or, with no place, die) is where; fails when there is none. */
static const struct pm_row *placed_row(const struct pm_report *rep, const char *name,
				       const char *where, int die)
{
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *row = &rep->rows[i];

		if (strcmp(row->event, name) || !(row->flags & PM_ROW_METRIC))
			continue;
		if (where ? row->place && !strcmp(row->place, where) : row->die == die)
			return row;
	}
	fail_msg("no row of %s at %s (die %d)", name, where ? where : "-", die);
	return NULL;
}

/*
 * One Yitian channel driven at 12.8 GB/s read, the others idle: the sim's
 * channel 5 is die 1's second channel (ali_drw_40023000 and _40023080), each
 * sub-channel carrying half. ddr_read_bandwidth.all says 12.8 GB/s for the
 * channel, its die and the machine, 6.4 GB/s per sub-channel, 0 elsewhere.
 */
static void test_yitian_one_channel_every_scope(void **state)
{
	static const char *const scn = "jitter 0\nddr.read 0\nddr.read[5] 12.8G\n";
	static const struct {
		enum pm_aggr aggr;
		size_t rows;
		const char *where; /* the driven row's place (NULL: by die) */
		int die;
		double mbs;
	} cases[] = {
		{ PM_AGGR_DEVICE, 16, "die1/ch1/sub0", 1, 6400 },
		{ PM_AGGR_DEVICE, 16, "die1/ch1/sub1", 1, 6400 },
		{ PM_AGGR_CHANNEL, 8, "die1/ch1", 1, 12800 },
		{ PM_AGGR_DIE, 2, NULL, 1, 12800 },
		{ PM_AGGR_FAMILY, 1, NULL, -1, 12800 },
	};

	for (size_t c = 0; c < PM_ARRAY_SIZE(cases); c++) {
		struct pm_sim *sim = th_sim_platform_with("yitian710", scn);
		const struct pm_report *rep;
		const struct pm_row *row;
		double total = 0;
		size_t n = 0;
		struct th_run r;

		assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bandwidth.all", cases[c].aggr,
					  NULL, 0),
				 0);
		pm_sim__advance(sim, 2 * SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, false);
		row = placed_row(rep, "ddr_read_bandwidth.all", cases[c].where, cases[c].die);
		assert_within_permille(row->value, cases[c].mbs);
		for (size_t i = 0; i < rep->n_rows; i++) {
			if (!(rep->rows[i].flags & PM_ROW_METRIC))
				continue;
			n++;
			total += rep->rows[i].value;
			if (&rep->rows[i] != row && !(cases[c].aggr == PM_AGGR_DEVICE &&
						      !strncmp(rep->rows[i].place, "die1/ch1/", 9)))
				assert_true(rep->rows[i].value == 0);
		}
		assert_int_equal(n, cases[c].rows);
		/* whatever the scope, the rows add up to the one channel's 12.8 GB/s */
		assert_within_permille(total, 12800);
		th_stop(&r);
	}
}

/* The die the name says, not the die of the cpumask CPU: here every PMU is probed by CPU 0. */
static void test_yitian_die_from_name(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710", "jitter 0\nddr.read 0\n"
							       "ddr.read[4-7] 6.4G\n");
	static const char *const die1[] = { "40021000", "40021080", "40023000", "40023080",
					    "40025000", "40025080", "40027000", "40027080" };
	const struct pm_report *rep;
	struct th_run r;

	for (size_t i = 0; i < PM_ARRAY_SIZE(die1); i++) {
		char path[128];

		snprintf(path, sizeof(path), "sys/bus/event_source/devices/ali_drw_%s/cpumask",
			 die1[i]);
		assert_int_equal(pm_sim__write_file(sim, path, "0\n"), 0);
	}
	assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bandwidth.all", PM_AGGR_DIE, NULL, 0),
			 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_within_permille(placed_row(rep, "ddr_read_bandwidth.all", NULL, 1)->value, 4 * 6400);
	assert_true(placed_row(rep, "ddr_read_bandwidth.all", NULL, 0)->value == 0);
	th_stop(&r);
}

/*
 * Against the DDRC cycle counter: each sub-channel's bytes x DDRC_freq over
 * its own cycles, added up. With the clock at 1.6 GHz and --define
 * ddrc_freq=3.2e9 each sub-channel reads twice its wall-clock bandwidth.
 */
static void test_yitian_ddrc_sum_of_devices(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710", "ddr.read 6.4G\nddr.clock 1.6G\n");
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bandwidth.ddrc", PM_AGGR_FAMILY,
				  "ddrc_freq", 3.2e9),
			 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* 16 x 3200 MB/s x 2; on the summed cycles (16 x) it would be 16 times too small */
	assert_near(metric_row(rep, "ddr_read_bandwidth.ddrc", 0)->value, 16 * 3200.0 * 2);
	th_stop(&r);
}

/* SumOfDevices per channel: the two sub-channels, each over its own cycles, added. */
static void test_yitian_ddrc_per_channel(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710",
						  "jitter 0\nddr.read 0\n"
						  "ddr.read[5] 12.8G\nddr.clock 1.6G\n");
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bandwidth.ddrc", PM_AGGR_CHANNEL,
				  "ddrc_freq", 1.6e9),
			 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* on the channel's summed cycles (2 x) it would be half */
	assert_within_permille(placed_row(rep, "ddr_read_bandwidth.ddrc", "die1/ch1", 1)->value,
			       12800);
	assert_true(placed_row(rep, "ddr_read_bandwidth.ddrc", "die0/ch1", 0)->value == 0);
	th_stop(&r);
}

static void test_define_missing(void **state)
{
	struct pm_sim *sim = th_sim_platform("yitian710");
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bandwidth.ddrc", PM_AGGR_FAMILY, NULL,
				  0),
			 -EINVAL);
	assert_non_null(strstr(r.d.msg,
			       "metric 'ddr_read_bandwidth.ddrc' (pack yitian710) cannot "
			       "be used here: it needs 'ddrc_freq', which nothing defines"));
	/* the fix is a constant defined: the reason and its name say so, for a CLI's flag,
	 * and the pack's note says what it is and where its value comes from */
	assert_int_equal(r.d.reason, PM_REASON_NEEDS_DEFINE);
	assert_string_equal(r.d.subject, "ddrc_freq");
	assert_non_null(strstr(r.d.hint, "'ddrc_freq' is a constant no counter gives (Hz: the "
					 "DDR controller's core clock"));
	assert_non_null(strstr(r.d.hint, "vendor documentation does; ddr_read_bandwidth.all needs "
					 "none): define ddrc_freq (pm_evlist__define)"));
	assert_string_equal(r.d.hint + r.d.fix_at, "define ddrc_freq (pm_evlist__define)");
	th_stop(&r);
}

static void test_unknown_metric(void **state)
{
	struct pm_sim *sim = th_sim_platform("yitian710");
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bw", PM_AGGR_FAMILY, NULL, 0), -ENOENT);
	assert_string_equal(r.d.msg, "no metric or metric group 'ddr_read_bw' on this machine "
				     "(packs: yitian710)");
	th_stop(&r);
}

/* -M names a metric or group in any case, as perf's match_metric (strcasestr). */
static void test_metric_names_any_case(void **state)
{
	static const char *const asked[] = { "DDR_Read_Bandwidth.All", "ALI_DRW_POWER" };
	static const char *const row0[] = { "ddr_read_bandwidth.all", "ddr_selfref_entries" };

	for (size_t i = 0; i < PM_ARRAY_SIZE(asked); i++) {
		struct pm_sim *sim = th_sim_platform_with("yitian710", steady);
		const struct pm_report *rep;
		struct th_run r;

		assert_int_equal(th_start(&r, sim, NULL, asked[i], PM_AGGR_FAMILY, NULL, 0), 0);
		pm_sim__advance(sim, SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, false);
		/* the pack's name, whatever case asked for it */
		assert_non_null(metric_row(rep, row0[i], 0));
		if (i == 0)
			assert_near(metric_row(rep, row0[i], 0)->value, 8 * 6400);
		th_stop(&r);
	}
}

/* Power entries: the rank events summed over wall time. */
static void test_yitian_entries(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710", "ddr.selfref_entries 400\n"
							       "ddr.powerdown_entries 8000\n");
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "ali_drw_power", PM_AGGR_DEVICE, NULL, 0), 0);
	pm_sim__advance(sim, 5 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* half a channel's entries per sub-channel, over its 4 ranks */
	assert_near(metric_row(rep, "ddr_selfref_entries", 3)->value, 200);
	assert_near(metric_row(rep, "ddr_powerdown_entries", 15)->value, 4000);
	th_stop(&r);
}

/* A metric whose input never ran is not a number, never 0. */
static void test_not_counted_input(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710", steady);
	const struct pm_report *rep;
	struct th_run r;

	/* someone else holds every common counter of one sub-channel */
	pm_sim__steal_counters(sim, "ali_drw_21000", 0, 16);
	assert_int_equal(th_start(&r, sim, NULL, "ddr_read_bandwidth.all", PM_AGGR_DEVICE, NULL, 0),
			 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_true(isnan(metric_row(rep, "ddr_read_bandwidth.all", 0)->value));
	assert_true(metric_row(rep, "ddr_read_bandwidth.all", 0)->flags & PM_ROW_NOT_COUNTED);
	assert_near(metric_row(rep, "ddr_read_bandwidth.all", 1)->value, 3200);
	th_stop(&r);
}

/* ---- amdzen2 (seed 004) ------------------------------------------------------------- */

static void test_amd_df_channels(void **state)
{
	/* channel c: (c + 1) GB/s read, 1 GB/s write -> (c + 2) GB/s of 64-byte requests */
	struct pm_sim *sim = th_sim_platform_with(
		"amdzen2", "dram.read[0] 1G\ndram.read[1] 2G\ndram.read[2] 3G\ndram.read[3] 4G\n"
			   "dram.read[4] 5G\ndram.read[5] 6G\ndram.read[6] 7G\ndram.read[7] 8G\n"
			   "dram.write 1G\nremote.out 3.2G\n");
	const struct pm_report *rep;
	double total = 0;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "amd_df", PM_AGGR_FAMILY, NULL, 0), 0);
	pm_sim__advance(sim, 4 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	for (int ch = 0; ch < 8; ch++) {
		char name[32];
		const struct pm_row *w;
		double want = (ch + 2) * 4.0; /* GB in 4 s */

		snprintf(name, sizeof(name), "DF_CH%d_BW_GB", ch);
		w = metric_row(rep, name, 0);
		/* 12 DF events on 4 counters: extrapolated, within 1% with steady traffic */
		assert_true(w->flags & PM_ROW_MULTIPLEXED);
		assert_true(w->flags & PM_ROW_APPROXIMATE); /* the seed marks it approximate */
		th_assert_rel(w->value, want, 0.01);
		assert_string_equal(w->unit, "GB");
		total += want;
	}
	th_assert_rel(metric_row(rep, "DF_DRAM_BYTES_GB", 0)->value, total, 0.01);
	/* 4 links x 3.2 GB/s x 4 s in 32-byte beats */
	th_assert_rel(metric_row(rep, "Remote_Links_Outbound_GB", 0)->value, 51.2, 0.01);
	th_stop(&r);
}

static void test_amd_core_and_l3(void **state)
{
	/* 1 socket: 128 CPUs and 16 CCXs, every one at the same rates */
	struct pm_sim *sim = th_sim_platform_with(
		"amdzen2", "core.cycles 3G\ncore.mperf 2G\ncore.tsc 2.5G\ncore.instructions 1.5G\n"
			   "core.flops 0.5G\nl2.access 100M\nl2.hit_ratio 60%\nl2.prefetch 40M\n"
			   "l2.prefetch_hit_ratio 50%\nl3.access 200M\nl3.hit_ratio 75%\n");
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "amd_core,amd_l3,amd_l2", PM_AGGR_FAMILY, NULL, 0),
			 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* 3 GHz x APERF/MPERF is the TSC's 2.5 GHz x 3/2 */
	assert_near(metric_row(rep, "EffectiveFrequency", 0)->value, 3.75);
	assert_near(metric_row(rep, "CPI", 0)->value, 2.0);
	assert_near(metric_row(rep, "L3_Cache_Miss_Ratio", 0)->value, 25.0);
	assert_near(metric_row(rep, "L3_Cache_Access", 0)->value, 16 * 200e6 * 2);
	/* the core events share 6 counters with the 6 L2 events: scaled, within 1% */
	{
		double acc = 128 * 2 * (100e6 + 40e6), hit = 128 * 2 * (60e6 + 20e6);
		double flops = 128 * 2 * 0.5e9 / 1e9;

		th_assert_rel(metric_row(rep, "All_L2_Cache_Accesses", 0)->value, acc, 0.01);
		th_assert_rel(metric_row(rep, "All_L2_Cache_Hits", 0)->value, hit, 0.01);
		th_assert_rel(metric_row(rep, "All_L2_Cache_Misses", 0)->value, acc - hit, 0.01);
		th_assert_rel(metric_row(rep, "RETIRED_SSE_AVX_GFLOPS_ALL", 0)->value, flops, 0.01);
	}
	th_stop(&r);
}

/*
 * What each pack metric is, for an exporter's counters (issue 27): an
 * amount of its interval (a count, bytes: PM_ROW_AMOUNT), a ratio of two
 * counted amounts with its parts (PM_ROW_RATIO: num / den is the value, and
 * the parts are the inputs' counts), or neither (a rate over duration_time,
 * a frequency, a share of time).
 */
static void test_amd_dimensions(void **state)
{
	static const struct {
		const char *metric;
		unsigned flags; /* of PM_ROW_AMOUNT | PM_ROW_RATIO */
	} cases[] = {
		{ "L3_Cache_Miss_Ratio", PM_ROW_RATIO },
		{ "CPI", PM_ROW_RATIO },
		{ "L3_Cache_Access", PM_ROW_AMOUNT },
		{ "All_L2_Cache_Accesses", PM_ROW_AMOUNT },
		{ "InstructionRetired", PM_ROW_AMOUNT },
		{ "EffectiveFrequency", 0 }, /* aperf / mperf x tsc / duration_time */
		{ "DF_CH0_GBps", 0 },	     /* bytes / duration_time: a rate */
		{ "DF_CH0_BW_GB", PM_ROW_AMOUNT },
		{ "nps1_die_to_dram", PM_ROW_AMOUNT },
	};
	struct pm_sim *sim =
		th_sim_platform_with("amdzen2",
				     "jitter 0\ncore.cycles 3G\ncore.mperf 2G\ncore.tsc 2.5G\n"
				     "core.instructions 1.5G\nl3.access 200M\nl3.hit_ratio 75%\n");
	const struct pm_report *rep;
	const struct pm_row *row;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL,
				  "amd_core,L3_Cache_Miss_Ratio,L3_Cache_Access,All_L2_Cache_Accesses,"
				  "DF_CH0_GBps,DF_CH0_BW_GB,nps1_die_to_dram",
				  PM_AGGR_FAMILY, NULL, 0),
			 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		row = metric_row(rep, cases[i].metric, 0);
		print_message("%s\n", cases[i].metric);
		assert_int_equal(row->flags & (PM_ROW_AMOUNT | PM_ROW_RATIO), cases[i].flags);
	}
	/* the parts: 100 x misses (the "100%" ScaleUnit) over accesses, 16 CCXs x 2 s */
	row = metric_row(rep, "L3_Cache_Miss_Ratio", 0);
	assert_near(row->num, 100 * 16 * 2 * 50e6);
	assert_near(row->den, 16 * 2 * 200e6);
	assert_near(row->num / row->den, row->value);
	/* cycles over instructions, as the input metrics count them */
	row = metric_row(rep, "CPI", 0);
	assert_near(row->num, metric_row(rep, "CpuClockUnhalted", 0)->value);
	assert_near(row->den, metric_row(rep, "InstructionRetired", 0)->value);
	assert_near(row->num / row->den, 2.0);
	th_stop(&r);
}

/* BlueField-2's L3 hit ratio, HITS / (HITS + MISSES), is a ratio of its counts. */
static void test_bluefield_hit_ratio_parts(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	const struct pm_report *rep;
	const struct pm_row *row;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "l3_hit_ratio_bank0", PM_AGGR_DEVICE, NULL, 0), 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	row = metric_row(rep, "l3_hit_ratio_bank0", 0);
	assert_true(row->flags & PM_ROW_RATIO);
	assert_false(row->flags & PM_ROW_AMOUNT);
	assert_true(row->den > 0);
	assert_near(row->num / row->den, row->value);
	th_stop(&r);
}

/*
 * Per device, a core PMU's rows are one for the machine (perf's --no-merge),
 * or one per socket with device_per_socket (serve: a place is never merged
 * away): an EPYC's effective frequency and CPI on each of its 2 sockets.
 */
static void test_device_per_socket(void **state)
{
	for (int split = 0; split <= 1; split++) {
		struct pm_sim *sim =
			th_sim_platform_with("amdzen2:sockets=2",
					     "jitter 0\ncore.cycles 3G\ncore.mperf 2G\n"
					     "core.tsc 2.5G\ncore.instructions 1.5G\n");
		struct pm_session_opts o = { .size = sizeof(o),
					     .target = PM_TARGET_SYSTEM,
					     .aggr = PM_AGGR_DEVICE,
					     .device_per_socket = split };
		const struct pm_report *rep;
		struct th_run r;
		size_t n = 0;

		assert_int_equal(th_start_opts(&r, sim, NULL, "EffectiveFrequency,CPI", &o), 0);
		pm_sim__advance(sim, 2 * SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, false);
		for (size_t i = 0; i < rep->n_rows; i++) {
			const struct pm_row *row = &rep->rows[i];

			if (strcmp(row->event, "EffectiveFrequency"))
				continue;
			assert_int_equal(row->socket, split ? (int)n : -1);
			assert_near(row->value, 3.75); /* each socket's CPUs at 3 GHz x 2.5 / 2 */
			n++;
		}
		assert_int_equal(n, split ? 2 : 1);
		assert_near(metric_row(rep, "CPI", split)->value, 2.0);
		th_stop(&r);
	}
}

/* A metric of metrics asked for alone: its inputs' rows are built first. */
static void test_metric_of_metrics_alone(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("amdzen2",
						  "core.cycles 3G\ncore.instructions 2G\n");
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "CPI", PM_AGGR_FAMILY, NULL, 0), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_near(metric_row(rep, "CPI", 0)->value, 1.5);
	th_stop(&r);
}

/*
 * issue 14 item 1: a metric that names another takes the other's value
 * before its ScaleUnit, as perf does (tools/perf/util/expr.c
 * expr__resolve_id evaluates a referenced metric's MetricExpr; only
 * stat-shadow.c generic_metric multiplies the printed metric by its
 * ScaleUnit). Three levels over a simulated EPYC's L3, with "100%" units:
 * A = misses / accesses, B = 1 - A, C = B x A. Each CCX sees 200 M
 * accesses/s with 75% hits (jitter 0), so the counts over 2 s are 400 M
 * accesses and 100 M misses on each of the 16 CCXs.
 */
static void test_metric_of_metrics_before_scale_unit(void **state)
{
	static const char metrics[] =
		"[{\"MetricName\": \"lab_a\", \"ScaleUnit\": \"100%\", "
		"\"MetricExpr\": \"l3_misses / l3_accesses\"},\n"
		" {\"MetricName\": \"lab_b\", \"ScaleUnit\": \"100%\", \"MetricExpr\": \"1 - lab_a\"},\n"
		" {\"MetricName\": \"lab_c\", \"ScaleUnit\": \"100%\", "
		"\"MetricExpr\": \"lab_b * lab_a\"}]";
	struct pm_sim *sim = th_sim_platform_with("amdzen2", "jitter 0\nl3.access 200M\n"
							     "l3.hit_ratio 75%\n");
	const struct pm_report *rep;
	struct th_run r;
	double accesses = 16 * 200e6 * 2, misses = 16 * 50e6 * 2, a, b, c;

	(void)state;
	th_lab(&r, sim, metrics);
	if (pm_evlist__add_metrics(r.l, "lab_c", &r.d) < 0)
		fail_msg("%s", r.d.msg);
	assert_int_equal(pm_session__new(r.l,
					 &(struct pm_session_opts){
						 .size = sizeof(struct pm_session_opts),
						 .target = PM_TARGET_SYSTEM },
					 &r.s, &r.d),
			 0);
	assert_int_equal(pm_session__open(r.s, &r.d), 0);
	assert_int_equal(pm_session__enable(r.s), 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* by hand, before any ScaleUnit: a = 0.25, b = 0.75, c = 0.1875 */
	a = misses / accesses;
	b = 1 - a;
	c = b * a;
	assert_near(metric_row(rep, "lab_a", 0)->value, 100 * a); /* 25 % */
	assert_near(metric_row(rep, "lab_b", 0)->value, 100 * b); /* 75 %, not 1 - 25 */
	/* 18.75 %: from the percentages it would be 75 x 25 x 100 */
	assert_near(metric_row(rep, "lab_c", 0)->value, 100 * c);
	assert_string_equal(metric_row(rep, "lab_c", 0)->unit, "%");
	th_stop(&r);
}

/* A session over a context with one more pack, "lab", whose metrics are the JSON given. */
static void start_lab(struct th_run *r, struct pm_sim *sim, const char *metrics_json,
		      const char *specs, const char *metrics, pid_t pid)
{
	struct pm_session_opts so = { .size = sizeof(so),
				      .target = pid ? PM_TARGET_TASK : PM_TARGET_SYSTEM,
				      .pid = pid };

	th_lab(r, sim, metrics_json);
	if (specs && pm_evlist__add(r->l, specs, &r->d) < 0)
		fail_msg("%s: %s", specs, r->d.msg);
	if (metrics && pm_evlist__add_metrics(r->l, metrics, &r->d) < 0)
		fail_msg("%s: %s", metrics, r->d.msg);
	assert_int_equal(pm_session__new(r->l, &so, &r->s, &r->d), 0);
	assert_int_equal(pm_session__open(r->s, &r->d), 0);
	assert_int_equal(pm_session__enable(r->s), 0);
}

static const struct pm_row *event_row(const struct pm_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, name) && !(rep->rows[i].flags & PM_ROW_METRIC))
			return &rep->rows[i];
	fail_msg("no row of event %s", name);
	return NULL;
}

/*
 * issue 14 item 11: perf's tool events. duration_time is the run's (an
 * interval's) wall-clock ns; user_time and system_time are the command's
 * CPU times from its rusage (pm_session__task_times), in the totals only;
 * in a metric all three are seconds (perf's stat-shadow.c prepare_metric).
 */
static void test_tool_events_command(void **state)
{
	static const char m[] = "[{\"MetricName\": \"lab_cpu\", \"ScaleUnit\": \"100%\", "
				"\"MetricExpr\": \"(user_time + system_time) / duration_time\"}]";
	struct pm_sim *sim = th_sim_platform("amdzen2");
	const struct pm_report *rep;
	struct th_run r;

	(void)state;
	start_lab(&r, sim, m, "duration_time,user_time,tool/system_time/", "lab_cpu", 4242);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	th_assert_near(event_row(rep, "duration_time")->value, 1e9, 0);
	assert_string_equal(event_row(rep, "duration_time")->unit, "ns");
	/* the command still runs: no CPU times yet, and the metric is not counted */
	assert_true(event_row(rep, "user_time")->flags & PM_ROW_NOT_COUNTED);
	assert_true(isnan(metric_row(rep, "lab_cpu", 0)->value));
	assert_true(metric_row(rep, "lab_cpu", 0)->flags & PM_ROW_NOT_COUNTED);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	/* it ended after 2 s: 0.3 s in user mode, 0.1 s in the kernel */
	assert_int_equal(pm_session__task_times(r.s, 300000000, 100000000), 0);
	rep = pm_session__report(r.s, false);
	th_assert_near(event_row(rep, "duration_time")->value, 2e9, 0);
	th_assert_near(event_row(rep, "user_time")->value, 3e8, 0);
	th_assert_near(event_row(rep, "tool/system_time/")->value, 1e8, 0);
	/* (0.3 + 0.1) / 2 seconds: 20 % */
	assert_near(metric_row(rep, "lab_cpu", 0)->value, 100 * (0.3 + 0.1) / 2);
	/* the report's own times, which the outputs print with the totals */
	assert_true(rep->task_times);
	assert_int_equal(rep->user_ns, 300000000);
	assert_int_equal(rep->system_ns, 100000000);
	/* the interval has no share of the run's CPU times */
	rep = pm_session__report(r.s, true);
	assert_false(rep->task_times);
	th_assert_near(event_row(rep, "duration_time")->value, 1e9, 0);
	assert_true(event_row(rep, "user_time")->flags & PM_ROW_NOT_COUNTED);
	assert_true(isnan(metric_row(rep, "lab_cpu", 0)->value));
	th_stop(&r);
}

/* Counting the machine, there is no command to time: CPU times are <not supported>. */
static void test_tool_events_system_wide(void **state)
{
	struct pm_sim *sim = th_sim_platform("amdzen2");
	const struct pm_report *rep;
	struct th_run r;

	(void)state;
	start_lab(&r, sim, "[]", "duration_time,user_time,system_time,amd_l3/l3_accesses/", NULL,
		  0);
	pm_sim__advance(sim, SEC / 2);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* one row, not one per CPU: the wall-clock time, once */
	th_assert_near(event_row(rep, "duration_time")->value, 5e8, 0);
	assert_true(event_row(rep, "user_time")->flags & PM_ROW_UNSUPPORTED);
	assert_true(event_row(rep, "system_time")->flags & PM_ROW_UNSUPPORTED);
	assert_true(isnan(event_row(rep, "system_time")->value));
	assert_string_equal(pm_session__event_source(r.s, 0), "tool");
	th_stop(&r);
}

/*
 * duration_time is the report's own clock: on a clock that moves while the
 * sources read (clock=real), its row is the interval's duration and the
 * totals' time to the ns, and a metric's duration_time is that row in
 * seconds. It took a clock read of its own, some microseconds earlier.
 */
static void test_tool_duration_is_the_reports(void **state)
{
	static const char m[] = "[{\"MetricName\": \"lab_dur\", "
				"\"MetricExpr\": \"duration_time * 1e9\"}]";
	struct pm_sim *sim = th_sim_platform("amdzen2:clock=real");
	const struct pm_report *rep;
	struct th_run r;

	(void)state;
	start_lab(&r, sim, m, "duration_time,amd_l3/l3_accesses/", "lab_dur", 0);
	for (int i = 0; i < 3; i++) {
		usleep(2000);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		assert_true(rep->duration_ns > 0);
		if (event_row(rep, "duration_time")->value != (double)rep->duration_ns)
			fail_msg("interval %d: duration_time %.0f ns, the interval %" PRIu64 " ns",
				 i, event_row(rep, "duration_time")->value, rep->duration_ns);
		assert_int_equal(event_row(rep, "duration_time")->enabled_ns, rep->duration_ns);
		/* through seconds: within the half ns a double's rounding may leave */
		th_assert_near(metric_row(rep, "lab_dur", 0)->value, (double)rep->duration_ns, 0.5);
		rep = pm_session__report(r.s, false);
		if (event_row(rep, "duration_time")->value != (double)rep->t_ns)
			fail_msg("totals %d: duration_time %.0f ns, the run %" PRIu64 " ns", i,
				 event_row(rep, "duration_time")->value, rep->t_ns);
	}
	th_stop(&r);
}

/*
 * A metric row's quality is its worst input's (pmumon.h: the smallest
 * running/enabled of the inputs): DF channel 0, rotating with the other 7
 * over 4 counters, beside the L3's accesses, which run all the time.
 */
static void test_metric_worst_input_share(void **state)
{
	static const char m[] = "[{\"MetricName\": \"lab_mix\", "
				"\"MetricExpr\": \"dram_channel_data_controller_0 + l3_accesses\"}]";
	struct pm_sim *sim = th_sim_platform("amdzen2");
	const struct pm_row *df, *l3, *mix;
	const struct pm_report *rep;
	struct th_run r;

	(void)state;
	start_lab(&r, sim, m,
		  "amd_df/dram_channel_data_controller_1/,amd_df/dram_channel_data_controller_2/,"
		  "amd_df/dram_channel_data_controller_3/,amd_df/dram_channel_data_controller_4/,"
		  "amd_df/dram_channel_data_controller_5/,amd_df/dram_channel_data_controller_6/,"
		  "amd_df/dram_channel_data_controller_7/",
		  "lab_mix", 0);
	pm_sim__advance(sim, 1000000000ull);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	mix = metric_row(rep, "lab_mix", 0);
	df = l3 = NULL;
	for (size_t i = 0; i < rep->n_rows; i++) {
		if (rep->rows[i].flags & PM_ROW_METRIC)
			continue;
		if (strstr(rep->rows[i].event, "dram_channel_data_controller_0"))
			df = &rep->rows[i];
		else if (strstr(rep->rows[i].event, "l3_accesses"))
			l3 = &rep->rows[i];
	}
	assert_non_null(df);
	assert_non_null(l3);
	th_assert_near(l3->running, 1, 0);
	th_assert_near(df->running, 0.5, 0.01);
	assert_true(mix->running == df->running);
	assert_int_equal(mix->running_ns, df->running_ns);
	assert_int_equal(mix->enabled_ns, df->enabled_ns);
	assert_true(mix->flags & PM_ROW_MULTIPLEXED);
	th_stop(&r);
}

/* A metric that cannot be added leaves nothing half-made behind. */
static void test_failed_metric_rolls_back(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710", steady);
	struct th_run r;
	struct pm_diag d;

	memset(&r, 0, sizeof(r));
	r.ctx = th_ctx_sim(sim);
	assert_int_equal(pm_evlist__new(r.ctx, &r.l), 0);
	pm_diag__init(&d);
	/* it adds hif_rd, then fails on ddrc_freq */
	assert_int_equal(pm_evlist__add_metrics(r.l, "ddr_read_bandwidth.ddrc", &d), -EINVAL);
	assert_int_equal(pm_evlist__count(r.l), 0);
	/* a clock is finite and > 0: the rest would make every value a lie */
	assert_int_equal(pm_evlist__define(r.l, "ddrc_freq", -1), -EINVAL);
	assert_int_equal(pm_evlist__define(r.l, "ddrc_freq", 0), -EINVAL);
	assert_int_equal(pm_evlist__define(r.l, "ddrc_freq", NAN), -EINVAL);
	assert_int_equal(pm_evlist__define(r.l, "ddrc_freq", INFINITY), -EINVAL);
	/* after the fix the user was told, it works */
	assert_int_equal(pm_evlist__define(r.l, "ddrc_freq", 1.6e9), 0);
	assert_int_equal(pm_evlist__add_metrics(r.l, "ddr_read_bandwidth.ddrc", &d), 0);
	assert_int_equal(pm_session__new(r.l,
					 &(struct pm_session_opts){
						 .size = sizeof(struct pm_session_opts),
						 .target = PM_TARGET_SYSTEM },
					 &r.s, &d),
			 0);
	assert_int_equal(pm_session__open(r.s, &d), 0);
	assert_int_equal(pm_session__enable(r.s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	/* 16 sub-channels x 3200 MB/s, each against its own 1.6 GHz clock */
	assert_near(metric_row(pm_session__report(r.s, false), "ddr_read_bandwidth.ddrc", 0)->value,
		    16 * 3200.0);
	th_stop(&r);
}

/*
 * Every pack's platform-neutral names (its "Monitor") name a metric of the
 * pack that resolves on its platform, with a plain name; a platform's
 * names are the concepts its seed is watched for.
 */
static void test_monitor_names_resolve(void **state)
{
	static const struct {
		const char *platform, *names;
	} t[] = {
		{ "yitian710", "memory_read,memory_write,memory" },
		{ "amdzen2", "memory,l3_miss" },
		{ "bluefield2",
		  "memory_read_requests,memory_write_requests,pcie_in,pcie_out,l3_hit" },
		{ "bluefield3", "memory_read_requests,memory_write_requests" },
		{ "merrifield", "memory_read,memory_write,memory" },
	};

	(void)state;
	for (size_t p = 0; p < PM_ARRAY_SIZE(t); p++) {
		struct pm_ctx *ctx = th_ctx_sim(th_sim_platform(t[p].platform));
		const struct pm_monitor_name *m;
		char seen[256] = "";
		size_t i;

		for (i = 0; (m = pm_ctx__monitor(ctx, i)) != NULL; i++) {
			struct pm_evlist *l;
			struct pm_diag d;
			char name[64];

			pm_diag__init(&d);
			assert_int_equal(pm_evlist__new(ctx, &l), 0);
			if (pm_evlist__add_metrics(l, m->metric, &d) < 0)
				fail_msg("%s: Monitor names %s: %s", t[p].platform, m->metric,
					 d.msg);
			pm_evlist__free(l);
			assert_true(strspn(m->name, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
				    strlen(m->name));
			snprintf(name, sizeof(name), ",%s,", m->name);
			if (!strstr(seen, name))
				snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s",
					 seen[0] ? "" : ",", name + 1);
		}
		assert_true(i > 0);
		seen[strlen(seen) - 1] = '\0';
		assert_string_equal(seen + 1, t[p].names);
		pm_ctx__free(ctx);
	}
}

/* ddr_bandwidth.all, the neutral "memory" of Yitian 710, is its read and write added. */
static void test_yitian_bandwidth_all(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("yitian710", "jitter 0\nddr.read 6.4G\n"
							       "ddr.write 3.2G\nddr.rmw 0.8G\n");
	const struct pm_report *rep;
	struct th_run r;

	(void)state;
	assert_int_equal(th_start(&r, sim, NULL,
				  "ddr_read_bandwidth.all,ddr_write_bandwidth.all,ddr_bandwidth.all",
				  PM_AGGR_FAMILY, NULL, 0),
			 0);
	pm_sim__advance(sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	/* 8 channels: 6.4 GB/s read, 3.2 + 0.8 GB/s written, in MB/s */
	assert_near(metric_row(rep, "ddr_bandwidth.all", 0)->value, 8 * (6400.0 + 3200 + 800));
	assert_near(metric_row(rep, "ddr_bandwidth.all", 0)->value,
		    metric_row(rep, "ddr_read_bandwidth.all", 0)->value +
			    metric_row(rep, "ddr_write_bandwidth.all", 0)->value);
	th_stop(&r);
}

/* The seed's per-channel read and write rows have no cited encoding: listed, not counted. */
static void test_amd_rd_wr_unavailable(void **state)
{
	struct pm_sim *sim = th_sim_platform("amdzen2");
	struct th_run r;

	assert_int_equal(th_start(&r, sim, NULL, "DF_CH0_RD_BW_GB", PM_AGGR_FAMILY, NULL, 0),
			 -EOPNOTSUPP);
	assert_non_null(strstr(r.d.msg, "is not available: neither seed 004 nor the kernel facts "
					"give a DF encoding"));
	th_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yitian_bandwidth_every_aggregation),
		cmocka_unit_test(test_yitian_ddrc_sum_of_devices),
		cmocka_unit_test(test_yitian_one_channel_every_scope),
		cmocka_unit_test(test_yitian_die_from_name),
		cmocka_unit_test(test_yitian_ddrc_per_channel),
		cmocka_unit_test(test_define_missing),
		cmocka_unit_test(test_unknown_metric),
		cmocka_unit_test(test_metric_names_any_case),
		cmocka_unit_test(test_yitian_entries),
		cmocka_unit_test(test_not_counted_input),
		cmocka_unit_test(test_amd_df_channels),
		cmocka_unit_test(test_amd_core_and_l3),
		cmocka_unit_test(test_amd_dimensions),
		cmocka_unit_test(test_device_per_socket),
		cmocka_unit_test(test_bluefield_hit_ratio_parts),
		cmocka_unit_test(test_amd_rd_wr_unavailable),
		cmocka_unit_test(test_monitor_names_resolve),
		cmocka_unit_test(test_yitian_bandwidth_all),
		cmocka_unit_test(test_metric_of_metrics_alone),
		cmocka_unit_test(test_metric_of_metrics_before_scale_unit),
		cmocka_unit_test(test_tool_events_command),
		cmocka_unit_test(test_tool_events_system_wide),
		cmocka_unit_test(test_tool_duration_is_the_reports),
		cmocka_unit_test(test_metric_worst_input_share),
		cmocka_unit_test(test_failed_metric_rolls_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
