// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 95 % intervals through the whole library (docs/bounds.md), on the
 * simulator: exact counts have themselves as their interval; perf's
 * multiplexed counters are read between reports to measure their spread
 * (the first interval included), at a bounded rate; the msr source's
 * rotated counters are interpolated and measured; a row adds its inputs'
 * half-widths, a metric moves each input to its ends; too few phases, and
 * counts that may be missing, have no bound where none is honest.
 */
#include "helpers.h"

#include <math.h>
#include <string.h>

#define SEC 1000000000ull
#define MS 1000000ull

static const struct pm_row *row(const struct pm_report *rep, const char *event)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, event))
			return &rep->rows[i];
	fail_msg("no row %s", event);
	return NULL;
}

static const char steady[] = "jitter 0\ndram.read 4G\ndram.write 640M\n";

/* Nothing multiplexed: every interval is its value, and perf reads only at its checkpoints. */
static void test_exact(void **state)
{
	static const char *const four[] = { "amd_df/event=0x7,umask=0x38/",
					    "amd_df/event=0x47,umask=0x38/", NULL };
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, th_sim_platform_with("amdzen2", steady), four, NULL,
				  PM_AGGR_FAMILY, NULL, 0),
			 0);
	th_run_until(&r, pm_sim__now(r.sim) + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	for (size_t i = 0; i < rep->n_rows; i++) {
		assert_int_equal(rep->rows[i].bound, PM_BOUND_EXACT);
		assert_true(rep->rows[i].lo == rep->rows[i].value &&
			    rep->rows[i].hi == rep->rows[i].value);
	}
	/* no counter multiplexed: no reads in between, the next is the checkpoint's */
	assert_int_equal(pm_session__next_poll(r.s) - pm_sim__now(r.sim), SEC);
	th_stop(&r);
}

/*
 * perf multiplexes 8 DF events on 4 counters: a read of every counter 75 to
 * 125 ms after the start finds them, then those are read as often until
 * the end; every interval, the first too, is measured and holds the truth.
 */
static void test_perf_multiplexed(void **state)
{
	const struct pm_report *rep;
	struct th_run r;
	uint64_t start, next;
	int polls = 0;

	assert_int_equal(th_start(&r, th_sim_platform_with("amdzen2", steady), th_df8, NULL,
				  PM_AGGR_FAMILY, NULL, 0),
			 0);
	start = pm_sim__now(r.sim);
	next = pm_session__next_poll(r.s);
	assert_true(next >= start + 75 * MS && next <= start + 125 * MS);
	for (int iv = 0; iv < 3; iv++) {
		uint64_t end = pm_sim__now(r.sim) + SEC;

		while ((next = pm_session__next_poll(r.s)) < end) {
			pm_sim__advance(r.sim, next - pm_sim__now(r.sim));
			assert_int_equal(pm_session__poll(r.s), 0);
			polls++;
		}
		pm_sim__advance(r.sim, end - pm_sim__now(r.sim));
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		for (int ch = 0; ch < 8; ch++) {
			const struct pm_row *w = row(rep, th_df8[ch]);
			double truth = 4e9 / 64 + 640e6 / 64;

			assert_true(w->flags & PM_ROW_MULTIPLEXED);
			assert_int_equal(w->bound, PM_BOUND_MEASURED);
			assert_true(w->lo <= truth && truth <= w->hi);
			assert_true(w->lo <= w->value && w->value <= w->hi && w->lo < w->hi);
			/* steady traffic: as narrow as the integer counts leave it */
			assert_true((w->hi - w->lo) / w->value < 1e-4);
		}
	}
	/* 8 to 13 reads a second between the reports */
	assert_true(polls >= 3 * 8 && polls <= 3 * 13);
	th_stop(&r);
}

/* Reads in between are bounded: 320 multiplexed units are read at most 1000 a second. */
static void test_perf_reads_bounded(void **state)
{
	static const char *const specs[] = {
		"ali_drw/hif_rd/",
		"ali_drw/hif_wr/",
		"ali_drw/hif_rmw/",
		"ali_drw/hif_rd_or_wr/",
		"ali_drw/hif_hi_pri_rd/",
		"ali_drw/dfi_wr_data_cycles/",
		"ali_drw/dfi_rd_data_cycles/",
		"ali_drw/op_is_activate/",
		"ali_drw/op_is_rd_or_wr/",
		"ali_drw/op_is_rd/",
		"ali_drw/op_is_wr/",
		"ali_drw/op_is_mwr/",
		"ali_drw/op_is_precharge/",
		"ali_drw/war_hazard/",
		"ali_drw/raw_hazard/",
		"ali_drw/waw_hazard/",
		"ali_drw/write_combine/",
		"ali_drw/rdwr_transitions/",
		"ali_drw/op_is_refresh/",
		"ali_drw/chi_txreq/",
		NULL,
	};
	struct th_run r;
	uint64_t now, next;

	assert_int_equal(th_start(&r, th_sim_platform("yitian710"), specs, NULL, PM_AGGR_FAMILY,
				  NULL, 0),
			 0);
	th_run_until(&r, pm_sim__now(r.sim) + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_true(row(pm_session__report(r.s, true), specs[0])->flags & PM_ROW_MULTIPLEXED);
	/* 20 events on 16 PMUs: 320 units, read every 0.75 to 1.25 x 320 ms */
	now = pm_sim__now(r.sim);
	next = pm_session__next_poll(r.s);
	assert_true(next >= now + 240 * MS && next <= now + 400 * MS);
	th_stop(&r);
}

/*
 * msr: pmumon rotates 8 channels over 4 counters in 25 ms phases. A ramp
 * (2 to 18 GB/s over 2 s, in 10 ms steps) is interpolated between each
 * channel's own phases: nearer the truth than scaling the phases on, and
 * inside its interval, never below what was counted; the pack's metric
 * adding the channels has their half-widths added up.
 */
static void test_msr_ramp_and_sum(void **state)
{
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .source = PM_SOURCE_MSR };
	const struct pm_report *rep;
	const struct pm_row *sum;
	double half = 0, v = 0, truth = 0;
	char text[16384];
	size_t n = 0;
	struct th_run r;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "jitter 0\ndram.write 0\n");
	for (int k = 0; k < 200; k++) {
		double rate = 2e9 + 16e9 * (k + 0.5) / 200;

		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "phase p 10ms\n  dram.read %.0f\n", rate);
		truth += rate * 0.01 / 64;
	}
	assert_true(n < sizeof(text));
	assert_int_equal(th_start_opts(&r, th_sim_platform_with("amdzen2", text), NULL,
				       "DF_DRAM_BYTES_GB", &o),
			 0);
	th_run_until(&r, pm_sim__now(r.sim) + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	for (int ch = 0; ch < 8; ch++) {
		char name[64];
		const struct pm_row *w;
		double scaled;

		snprintf(name, sizeof(name), "amd_df/dram_channel_data_controller_%d/", ch);
		w = row(rep, name);
		scaled = (double)w->raw * (double)w->enabled_ns / (double)w->running_ns;
		assert_true(w->flags & PM_ROW_MULTIPLEXED);
		assert_int_equal(w->bound, PM_BOUND_MEASURED);
		if (!(w->lo <= truth && truth <= w->hi))
			fail_msg("%s: %.0f not in [%.0f, %.0f]", name, truth, w->lo, w->hi);
		assert_true(fabs(w->value - truth) < fabs(scaled - truth));
		assert_true(w->lo >= (double)w->raw); /* never below what was counted */
		half += (w->hi - w->lo) / 2;
		v += w->value;
	}
	/* DF_DRAM_BYTES_GB: the 8 channels' requests x 64 B, in GB */
	sum = row(rep, "DF_DRAM_BYTES_GB");
	assert_int_equal(sum->bound, PM_BOUND_MEASURED);
	th_assert_rel(sum->value, v * 64 / 1e9, 1e-12);
	th_assert_rel(sum->hi - sum->value, half * 64 / 1e9, 1e-6);
	th_assert_rel(sum->value - sum->lo, half * 64 / 1e9, 1e-6);
	th_stop(&r);
}

/* A ratio of two multiplexed inputs: each moved to its ends, the moves added. */
static void test_metric_ratio(void **state)
{
	static const char metrics[] =
		"[{\"MetricName\": \"lab_ratio\", \"MetricExpr\": "
		"\"amd_df@event\\\\=0x7\\\\,umask\\\\=0x38@ / amd_df@event\\\\=0x47\\\\,umask\\\\=0x38@\"}]";
	struct pm_sim *sim = th_sim_platform_with("amdzen2", "dram.read[0] 2G\ndram.read[1] 6G\n"
							     "phase a 300ms\nphase b 200ms\n"
							     "  dram.read[1] 9G\nrepeat\n");
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	const struct pm_report *rep;
	const struct pm_row *a, *b, *m;
	double want_lo, want_hi;
	struct th_run r;

	th_lab(&r, sim, metrics);
	for (int i = 0; th_df8[i]; i++)
		assert_int_equal(pm_evlist__add(r.l, th_df8[i], &r.d), 0);
	if (pm_evlist__add_metrics(r.l, "lab_ratio", &r.d) < 0)
		fail_msg("%s", r.d.msg);
	assert_int_equal(pm_session__new(r.l, &o, &r.s, &r.d), 0);
	assert_int_equal(pm_session__open(r.s, &r.d), 0);
	assert_int_equal(pm_session__enable(r.s), 0);
	th_run_until(&r, pm_sim__now(sim) + 3 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	a = row(rep, th_df8[0]);
	b = row(rep, th_df8[1]);
	m = row(rep, "lab_ratio");
	assert_int_equal(a->bound, PM_BOUND_MEASURED);
	assert_int_equal(m->bound, PM_BOUND_MEASURED);
	/* a/b moves down with a's lo and b's hi, up with a's hi and b's lo */
	want_lo = m->value - (m->value - a->lo / b->value) - (m->value - a->value / b->hi);
	want_hi = m->value + (a->hi / b->value - m->value) + (a->value / b->lo - m->value);
	th_assert_rel(m->lo, want_lo, 1e-12);
	th_assert_rel(m->hi, want_hi, 1e-12);
	th_stop(&r);
}

/* An interval shorter than a phase: each channel seen once, no honest bound. */
static void test_msr_one_phase(void **state)
{
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .source = PM_SOURCE_MSR };
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start_opts(&r, th_sim_platform_with("amdzen2", steady), th_df8, NULL,
				       &o),
			 0);
	th_run_until(&r, pm_sim__now(r.sim) + 30 * MS);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	for (int ch = 0; ch < 8; ch++) {
		const struct pm_row *w = row(rep, th_df8[ch]);

		assert_true(isfinite(w->value));
		assert_int_equal(w->bound, PM_BOUND_FEW);
		assert_true(isnan(w->lo) && isnan(w->hi));
	}
	th_stop(&r);
}

/* A device that goes away: its counts stop there, no upper bound (lo holds). */
static void test_lost_has_no_upper_bound(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", NULL };
	const struct pm_report *rep;
	const struct pm_row *w;
	struct th_run r;

	assert_int_equal(th_start(&r,
				  th_sim_platform_with("yitian710", "at 1500ms vanish "
								    "ali_drw_21000\n"),
				  specs, NULL, PM_AGGR_DEVICE, NULL, 0),
			 0);
	th_run_until(&r, pm_sim__now(r.sim) + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	w = NULL;
	for (size_t i = 0; i < rep->n_rows; i++)
		if (rep->rows[i].device && !strcmp(rep->rows[i].device, "ali_drw_21000"))
			w = &rep->rows[i];
	assert_non_null(w);
	assert_true(w->flags & PM_ROW_LOST);
	assert_int_equal(w->bound, PM_BOUND_MISSING);
	assert_true(w->lo == w->value && isnan(w->hi));
	th_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_perf_multiplexed),
		cmocka_unit_test(test_perf_reads_bounded),
		cmocka_unit_test(test_msr_ramp_and_sum),
		cmocka_unit_test(test_metric_ratio),
		cmocka_unit_test(test_msr_one_phase),
		cmocka_unit_test(test_lost_has_no_upper_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
