// SPDX-License-Identifier: GPL-2.0-only
/*
 * How much of the machine a row covers (issue 12, item 8), and the one
 * answer to 0/0 (item 10). A CPU list that leaves out a die's uncore PMUs
 * must not pass half the machine off as the total: the row says 8 of 16 and
 * is flagged partial, and so is every metric computed from it. A formula that
 * divides by zero although every input counted is undefined, not "not
 * counted" and never 0.
 */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util/util.h"

#define SEC 1000000000ull

static const struct pm_row *find(const struct pm_report *rep, const char *event, size_t nth)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, event) && nth-- == 0)
			return &rep->rows[i];
	fail_msg("no row %zu of %s", nth, event);
	return NULL;
}

static size_t count_rows(const struct pm_report *rep, const char *event)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->n_rows; i++)
		n += !strcmp(rep->rows[i].event, event);
	return n;
}

/* Count ali_drw/hif_rd/ and the read bandwidth for 1 s on the CPUs given (NULL: -a). */
static const struct pm_report *yitian(struct th_run *r, const char *cpus, enum pm_aggr aggr)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = cpus ? PM_TARGET_CPUS : PM_TARGET_SYSTEM,
				     .cpus = cpus,
				     .aggr = aggr };

	assert_int_equal(th_start_opts(r, th_sim_platform_with("yitian710", "ddr.read 6.4G\n"),
				       specs, "ddr_read_bandwidth.all", &o),
			 0);
	pm_sim__advance(r->sim, SEC);
	assert_int_equal(pm_session__read(r->s), 0);
	return pm_session__report(r->s, true);
}

static void test_cpu_list_leaves_out_a_die(void **state)
{
	struct th_run all, one;
	const struct pm_report *rep;
	const struct pm_row *row, *bw;
	double whole;

	th_log_clear();
	rep = yitian(&all, NULL, PM_AGGR_FAMILY);
	row = find(rep, "ali_drw/hif_rd/", 0);
	assert_int_equal(row->covered, 16);
	assert_int_equal(row->instances, 16);
	assert_false(row->flags & PM_ROW_PARTIAL);
	whole = row->value;
	assert_false(th_logged("leave out"));

	/* CPU 0 is on die 0: only die 0's 8 sub-channel PMUs have a CPU to count on */
	rep = yitian(&one, "0", PM_AGGR_FAMILY);
	row = find(rep, "ali_drw/hif_rd/", 0);
	assert_int_equal(row->covered, 8);
	assert_int_equal(row->instances, 16);
	assert_true(row->flags & PM_ROW_PARTIAL);
	assert_false(row->flags & PM_ROW_NOT_COUNTED);
	/* every channel reads 6.4 GB/s: what is counted is exactly die 0's half */
	th_assert_near(row->value, whole / 2, 1);
	bw = find(rep, "ddr_read_bandwidth.all", 0);
	assert_true(bw->flags & PM_ROW_PARTIAL);
	assert_int_equal(bw->covered, 8);
	assert_int_equal(bw->instances, 16);
	assert_true(th_logged("CPU(s) 0 leave out 8 uncore devices"));
	assert_true(th_logged("ali_drw_40021000"));
	th_stop(&one);
	th_stop(&all);

	/* per die, die 0's row is whole: the missing die has no row to be partial */
	rep = yitian(&one, "0", PM_AGGR_DIE);
	assert_int_equal(count_rows(rep, "ali_drw/hif_rd/"), 1);
	row = find(rep, "ali_drw/hif_rd/", 0);
	assert_int_equal(row->die, 0);
	assert_int_equal(row->covered, 8);
	assert_int_equal(row->instances, 8);
	assert_false(row->flags & PM_ROW_PARTIAL);
	th_stop(&one);

	/* per device: each row is its one PMU, whole */
	rep = yitian(&one, "0", PM_AGGR_DEVICE);
	assert_int_equal(count_rows(rep, "ali_drw/hif_rd/"), 8);
	for (size_t i = 0; i < 8; i++) {
		row = find(rep, "ali_drw/hif_rd/", i);
		assert_int_equal(row->covered, 1);
		assert_int_equal(row->instances, 1);
	}
	th_stop(&one);
}

/* amd_l3 is one PMU with a cpumask CPU per CCX; amd_df one per socket: each is a domain. */
static void test_two_sockets_count_domains(void **state)
{
	static const char *const specs[] = { "amd_l3/event=0x4,umask=0xff/",
					     "amd_df/event=0x7,umask=0x38/", "cycles", NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_CPUS,
				     .cpus = "0",
				     .aggr = PM_AGGR_SOCKET };
	struct th_run r;
	const struct pm_report *rep;
	const struct pm_row *l3, *df, *cyc;

	assert_int_equal(th_start_opts(&r, th_sim_platform("amdzen2:sockets=2"), specs, NULL, &o),
			 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	/* socket 0's row: its 16 CCXs, of which CPU 0 reaches one */
	l3 = find(rep, "amd_l3/event=0x4,umask=0xff/", 0);
	assert_int_equal(l3->socket, 0);
	assert_int_equal(l3->covered, 1);
	assert_int_equal(l3->instances, 16);
	assert_true(l3->flags & PM_ROW_PARTIAL);
	df = find(rep, "amd_df/event=0x7,umask=0x38/", 0);
	assert_int_equal(df->covered, 1);
	assert_int_equal(df->instances, 1);
	assert_false(df->flags & PM_ROW_PARTIAL);
	/* a core event on the CPUs asked for is what was asked: whole */
	cyc = find(rep, "cycles", 0);
	assert_int_equal(cyc->covered, cyc->instances);
	assert_false(cyc->flags & PM_ROW_PARTIAL);
	th_stop(&r);

	o.aggr = PM_AGGR_FAMILY;
	assert_int_equal(th_start_opts(&r, th_sim_platform("amdzen2:sockets=2"), specs, NULL, &o),
			 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	l3 = find(rep, "amd_l3/event=0x4,umask=0xff/", 0);
	assert_int_equal(l3->covered, 1);
	assert_int_equal(l3->instances, 32);
	df = find(rep, "amd_df/event=0x7,umask=0x38/", 0);
	assert_int_equal(df->covered, 1);
	assert_int_equal(df->instances, 2);
	assert_true(df->flags & PM_ROW_PARTIAL);
	th_stop(&r);
}

/* Two sockets, every CPU: one row per socket (and per die), each with its own socket's counts. */
static void test_two_sockets_keys(void **state)
{
	static const char *const specs[] = { "cycles", "amd_df/event=0x7,umask=0x38/", NULL };
	static const enum pm_aggr aggrs[] = { PM_AGGR_SOCKET, PM_AGGR_DIE };

	for (size_t a = 0; a < PM_ARRAY_SIZE(aggrs); a++) {
		struct pm_session_opts o = { .size = sizeof(o),
					     .target = PM_TARGET_SYSTEM,
					     .aggr = aggrs[a] };
		struct th_run r;
		const struct pm_report *rep;

		assert_int_equal(th_start_opts(&r,
					       th_sim_platform_with("amdzen2:sockets=2",
								    "core.cycles 1e9\n"),
					       specs, NULL, &o),
				 0);
		pm_sim__advance(r.sim, SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		assert_int_equal(count_rows(rep, "cycles"), 2);
		assert_int_equal(count_rows(rep, "amd_df/event=0x7,umask=0x38/"), 2);
		for (int sock = 0; sock < 2; sock++) {
			const struct pm_row *cyc = find(rep, "cycles", (size_t)sock);
			const struct pm_row *df = find(rep, "amd_df/event=0x7,umask=0x38/",
						       (size_t)sock);

			assert_int_equal(cyc->socket, sock);
			assert_int_equal(df->socket, sock);
			/* an EPYC 7742 socket: 64 cores, 128 threads, each at 1 GHz */
			th_assert_near(cyc->value, 128 * 1e9, 128);
			assert_int_equal(df->covered, 1);
			assert_int_equal(df->instances, 1);
			assert_false((cyc->flags | df->flags) & PM_ROW_PARTIAL);
		}
		th_stop(&r);
	}
}

/*
 * One ali_drw PMU of 16 vanishes mid-run: the other 15 keep counting
 * exactly, the merged row says 15 of 16 and lost, and the totals are the
 * same whether or not the run read intervals (issue 12, item 9).
 */
static void test_vanished_pmu_leaves_the_rest(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", NULL };
	const char *scn = "ddr.read 6.4G\nat 2500ms vanish ali_drw_40021000\n";
	double totals[2];

	for (int intervals = 0; intervals < 2; intervals++) {
		struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
		struct pm_sim *sim = th_sim_platform_with("yitian710", scn);
		uint64_t t0 = pm_sim__scenario_start(sim);
		const struct pm_report *rep;
		struct th_run r;

		assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
		for (int s = 1; s <= 4; s++) {
			if (!intervals && s < 4)
				continue;
			th_run_until(&r, t0 + (uint64_t)s * SEC);
			assert_int_equal(pm_session__read(r.s), 0);
			rep = pm_session__report(r.s, true);
			if (s >= 3) {
				const struct pm_row *row = find(rep, "ali_drw/hif_rd/", 0);

				assert_int_equal(row->covered, 15);
				assert_int_equal(row->instances, 16);
				assert_true(row->flags & PM_ROW_LOST);
				assert_true(row->flags & PM_ROW_PARTIAL);
			}
		}
		if (intervals) {
			/* the 4th second: 15 sub-channels at 3.2 GB/s, 64-byte reads */
			rep = pm_session__report(r.s, true);
			th_assert_near(find(rep, "ali_drw/hif_rd/", 0)->value, 15 * 3.2e9 / 64, 1);
		}
		assert_int_equal(pm_session__lost_count(r.s), 1);
		assert_string_equal(pm_session__lost_device(r.s, 0), "ali_drw_40021000");
		totals[intervals] =
			find(pm_session__report(r.s, false), "ali_drw/hif_rd/", 0)->value;
		th_stop(&r);
	}
	th_assert_near(totals[1], totals[0], 0);
}

/*
 * A vanished PMU that comes back: the session that lost it says so
 * (pm_session__lost_back) and keeps it lost; pm_ctx__rediscover on the
 * same simulated machine (its clock and scenario go on) finds 15 while it
 * is gone and 16 once it is back, and a new session on the context counts
 * all 16 again. Rediscovery is refused while an event list still points
 * into the old discovery.
 */
static void test_a_pmu_that_came_back_is_found_again(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", NULL };
	const char *scn = "ddr.read 6.4G\nat 1500ms vanish ali_drw_40021000\n"
			  "at 3500ms return ali_drw_40021000\n";
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	struct pm_sim *sim = th_sim_platform_with("yitian710", scn);
	uint64_t t0 = pm_sim__scenario_start(sim);
	const struct pm_row *row;
	struct th_run r;
	size_t n;

	(void)state;
	assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
	n = pm_ctx__pmu_count(r.ctx);
	th_run_until(&r, t0 + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__lost_count(r.s), 1);
	assert_int_equal(pm_session__lost_back(r.s), 0);
	th_run_until(&r, t0 + 4 * SEC);
	assert_int_equal(pm_session__lost_back(r.s), 1); /* its sysfs directory is back */
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__lost_count(r.s), 1); /* this session's stays lost */
	assert_int_equal(pm_ctx__rediscover(r.ctx), -EBUSY);
	th_stop(&r);

	sim = th_sim_platform_with("yitian710", scn);
	t0 = pm_sim__scenario_start(sim);
	assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
	pm_session__free(r.s);
	pm_evlist__free(r.l);
	r.s = NULL;
	r.l = NULL;
	pm_sim__advance(r.sim, t0 + 2 * SEC - pm_sim__now(r.sim));
	assert_int_equal(pm_ctx__rediscover(r.ctx), 0);
	assert_int_equal(pm_ctx__pmu_count(r.ctx), n - 1);
	pm_sim__advance(r.sim, t0 + 4 * SEC - pm_sim__now(r.sim));
	assert_int_equal(pm_ctx__rediscover(r.ctx), 0);
	assert_int_equal(pm_ctx__pmu_count(r.ctx), n);
	assert_int_equal(pm_evlist__new(r.ctx, &r.l), 0);
	assert_int_equal(pm_evlist__add(r.l, specs[0], &r.d), 0);
	assert_int_equal(pm_session__new(r.l, &o, &r.s, &r.d), 0);
	assert_int_equal(pm_session__open(r.s, &r.d), 0);
	assert_int_equal(pm_session__enable(r.s), 0);
	th_run_until(&r, t0 + 5 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	row = find(pm_session__report(r.s, true), "ali_drw/hif_rd/", 0);
	assert_int_equal(row->covered, 16);
	assert_false(row->flags & (PM_ROW_LOST | PM_ROW_PARTIAL));
	/* 16 sub-channels at 3.2 GB/s, 64-byte reads, over the last second */
	th_assert_near(row->value, 16 * 3.2e9 / 64, 1);
	assert_int_equal(pm_session__lost_count(r.s), 0);
	th_stop(&r);
}

/* perf's checkpoints between reads: every second, or as often as the caller says. */
static void test_checkpoint_period(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", NULL };
	const uint64_t periods[] = { 0, 15 * SEC };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct pm_session_opts o = { .size = sizeof(o),
					     .target = PM_TARGET_SYSTEM,
					     .checkpoint_ns = periods[i] };
		struct th_run r;
		uint64_t now;

		assert_int_equal(th_start_opts(&r, th_sim_platform("yitian710"), specs, NULL, &o),
				 0);
		assert_int_equal(pm_session__read(r.s), 0);
		now = pm_sim__now(r.sim);
		assert_int_equal(pm_session__next_poll(r.s) - now, periods[i] ? periods[i] : SEC);
		th_stop(&r);
	}
}

/* BlueField's L3 hit ratio is HITS / (HITS + MISSES): an idle bank is 0/0. */
static void test_zero_over_zero_is_undefined(void **state)
{
	struct th_run r;
	const struct pm_report *rep;
	const struct pm_row *idle, *busy;

	/* bank 0 of half 0 idle (instance 0), the others busy */
	assert_int_equal(th_start(&r, th_sim_platform_with("bluefield2", "l3.access[0] 0\n"), NULL,
				  "l3_hit_ratio_bank0", PM_AGGR_DEVICE, NULL, 0),
			 0);
	th_run_until(&r, pm_sim__now(r.sim) + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	idle = find(rep, "l3_hit_ratio_bank0", 0);
	busy = find(rep, "l3_hit_ratio_bank0", 1);
	assert_true(isnan(idle->value));
	assert_true(idle->flags & PM_ROW_UNDEFINED);
	assert_false(idle->flags & PM_ROW_NOT_COUNTED);
	assert_true(isfinite(busy->value));
	assert_false(busy->flags & (PM_ROW_UNDEFINED | PM_ROW_NOT_COUNTED));
	th_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_list_leaves_out_a_die),
		cmocka_unit_test(test_two_sockets_count_domains),
		cmocka_unit_test(test_two_sockets_keys),
		cmocka_unit_test(test_vanished_pmu_leaves_the_rest),
		cmocka_unit_test(test_a_pmu_that_came_back_is_found_again),
		cmocka_unit_test(test_checkpoint_period),
		cmocka_unit_test(test_zero_over_zero_is_undefined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
