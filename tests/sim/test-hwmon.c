// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hwmon source on the simulated BlueField-2 and -3 (the mlxbf-pmc
 * driver's files, sim/platform/bluefield.c): discovery of every block kind,
 * counts equal to the scenario's truth, rotation when a block has fewer
 * counters than events, the l3cache stop-read-start protocol (no torn
 * value), 32-bit CRSPACE wraps, register statistics never written, the
 * lock against a second instance, a block going away, every slot put back
 * as found, and bad events refused with the reason.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define SEC 1000000000ull
#define H "sys/class/hwmon/hwmon1/"

static uint64_t truth(struct pm_sim *sim, const char *key, int inst, uint64_t t)
{
	double v;

	assert_int_equal(pm_sim__truth(sim, key, inst, t, &v), 0);
	return (uint64_t)floor(v + 1e-9);
}

static void read_sim_file(struct pm_sim *sim, const char *path, char *buf, size_t size)
{
	int fd = pm_sim__ops()->open(sim, path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = pm_sim__ops()->pread(sim, fd, buf, size - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	pm_sim__ops()->close(sim, fd);
}

static void write_sim_file(struct pm_sim *sim, const char *path, const char *text)
{
	int fd = pm_sim__ops()->open(sim, path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pm_sim__ops()->pwrite(sim, fd, text, strlen(text), 0),
			 (ssize_t)strlen(text));
	pm_sim__ops()->close(sim, fd);
}

static void assert_file(struct pm_sim *sim, const char *path, const char *want)
{
	char buf[128];

	read_sim_file(sim, path, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("%s reads '%s', expected '%s'", path, buf, want);
}

static const struct pm_pmu *pmu(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++)
		if (!strcmp(pm_pmu__name(pm_ctx__pmu(ctx, i)), name))
			return pm_ctx__pmu(ctx, i);
	fail_msg("no PMU %s", name);
	return NULL;
}

static const struct pm_alias *alias(const struct pm_pmu *p, const char *name)
{
	for (size_t i = 0; i < pm_pmu__alias_count(p); i++)
		if (!strcmp(pm_alias__name(pm_pmu__alias(p, i)), name))
			return pm_pmu__alias(p, i);
	return NULL;
}

static void test_discover_bluefield2(void **state)
{
	struct pm_ctx *ctx = th_ctx_sim(th_sim_platform("bluefield2"));
	const struct pm_pmu *p;

	assert_int_equal(pm_ctx__discover(ctx), 0);
	/* hwmon0 is acpitz: bfperf is found by name, at hwmon1 */
	p = pmu(ctx, "bfperf/tile2");
	assert_string_equal(pm_pmu__family(p), "bfperf/tile");
	assert_string_equal(pm_pmu__source(p), "hwmon");
	assert_string_equal(pm_pmu__identifier(p), "MLNXBFD1");
	assert_int_equal(pm_pmu__counters(p), 4);
	assert_int_equal(pm_pmu__counter_width(p), 64);
	assert_string_equal(pm_alias__terms(alias(p, "HNF_REQUESTS")), "event=0x45");
	assert_string_equal(pm_alias__origin(alias(p, "HNF_REQUESTS")), "sysfs");
	assert_int_equal(pm_pmu__alias_count(p), 56); /* the hnf table */
	p = pmu(ctx, "bfperf/l3cachehalf1");
	assert_int_equal(pm_pmu__counters(p), 5);
	assert_int_equal(pm_pmu__counter_width(p), 57);
	assert_string_equal(pm_alias__terms(alias(p, "HITS_BANK0")), "event=0x17");
	p = pmu(ctx, "bfperf/triogen0");
	assert_int_equal(pm_pmu__counters(p), 1);
	assert_null(alias(p, "DISABLE")); /* smgen: 0x0 is AW_REQ */
	p = pmu(ctx, "bfperf/pcie0");
	assert_int_equal(pm_pmu__counters(p), 0); /* statistics, no programmable counters */
	assert_int_equal(pm_pmu__counter_width(p), 64);
	assert_int_equal(pm_pmu__alias_count(p), 12);
	assert_non_null(alias(p, "IN_P_BYTE_CNT"));
	assert_int_equal(pm_pmu__counter_width(pmu(ctx, "bfperf/ecc")), 32);
	pm_ctx__free(ctx);
}

/* BlueField-3's mss and llt event_list stop at 4 KiB; the pack has the rest. */
static void test_discover_bluefield3_completes_tables(void **state)
{
	struct pm_ctx *ctx = th_ctx_sim(th_sim_platform("bluefield3"));
	const struct pm_pmu *mss, *llt;

	th_log_clear();
	assert_int_equal(pm_ctx__discover(ctx), 0);
	mss = pmu(ctx, "bfperf/mss0");
	llt = pmu(ctx, "bfperf/llt3");
	assert_int_equal(pm_pmu__counter_width(mss), 32);
	assert_int_equal(pm_pmu__counter_width(pmu(ctx, "bfperf/clock_measure")), 32);
	/* listed by the driver: codes 0-135 and 0-161 */
	assert_string_equal(pm_alias__origin(alias(mss, "SKYLIB_CDN_TX_FLITS")), "sysfs");
	assert_string_equal(pm_alias__origin(alias(llt, "GDC_BANK1_MISS_INARB_WAIT")), "sysfs");
	/* cut off, from the pack (kernel-facts §2.2) */
	assert_string_equal(pm_alias__terms(alias(mss, "HISTOGRAM_HISTOGRAM_BIN9")), "event=0x9a");
	assert_string_equal(pm_alias__origin(alias(mss, "HISTOGRAM_HISTOGRAM_BIN9")), "bluefield3");
	assert_string_equal(pm_alias__terms(alias(llt, "GDC_BANK1_G_FIFO_FF_GGA_RSP_WR3")),
			    "event=0xa1");
	assert_int_equal(pm_pmu__alias_count(mss), 155);
	assert_int_equal(pm_pmu__alias_count(llt), 172);
	assert_int_equal(pm_pmu__alias_count(pmu(ctx, "bfperf/llt_miss0")), 76); /* not cut */
	assert_true(th_logged("bfperf/mss0: event_list is cut at 4 KiB"));
	pm_ctx__free(ctx);
}

/* The done-when, per block and per interval: the scenario's truth. */
static void test_done_when(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/tile*/MEMORY_READS/",
					     "bfperf/l3cachehalf*/HITS_BANK0/", NULL };
	struct th_run r;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_DEVICE, NULL, 0), 0);
	for (uint64_t iv = 1; iv <= 5; iv++) {
		const struct pm_report *rep;

		th_run_until(&r, pm_sim__scenario_start(sim) + iv * SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		assert_int_equal(rep->n_rows, 6);
		for (int t = 0; t < 4; t++) {
			assert_string_equal(rep->rows[t].source, "hwmon");
			assert_int_equal(rep->rows[t].raw,
					 truth(sim, "tile.mem_reads", t, iv * SEC) -
						 truth(sim, "tile.mem_reads", t, (iv - 1) * SEC));
			assert_true(rep->rows[t].running == 1.0);
		}
		/* l3cachehalfH bank 0 is instance 2H */
		for (int h = 0; h < 2; h++) {
			double acc = (double)(truth(sim, "l3.access", 2 * h, iv * SEC) -
					      truth(sim, "l3.access", 2 * h, (iv - 1) * SEC));

			/* hits = access x 0.6, floored per part: within a count */
			th_assert_near((double)rep->rows[4 + h].raw, acc * 0.6, 1.0);
		}
	}
	th_stop(&r);
}

/* Six events on a tile's four counters, seven on an L3 half's five. */
static void test_rotation(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/tile0/MEMORY_READS/",
					     "bfperf/tile0/MEMORY_WRITES/",
					     "bfperf/tile0/HNF_REQUESTS/",
					     "bfperf/tile0/A72_READ/",
					     "bfperf/tile0/A72_WRITE/",
					     "bfperf/tile0/IO_READ/",
					     "bfperf/l3cachehalf0/CYCLES/",
					     "bfperf/l3cachehalf0/HITS_BANK0/",
					     "bfperf/l3cachehalf0/MISSES_BANK0/",
					     "bfperf/l3cachehalf0/HITS_BANK1/",
					     "bfperf/l3cachehalf0/MISSES_BANK1/",
					     "bfperf/l3cachehalf0/TOTAL_CDN_REQ_IN_BANK0/",
					     "bfperf/l3cachehalf0/TOTAL_CDN_REQ_IN_BANK1/",
					     NULL };
	static const struct {
		const char *key;
		int inst;
	} want[] = { { "tile.mem_reads", 0 }, { "tile.mem_writes", 0 }, { "tile.requests", 0 },
		     { "tile.a72_reads", 0 }, { "tile.a72_writes", 0 }, { "tile.io_reads", 0 } };
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + 10 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	for (size_t i = 0; i < PM_ARRAY_SIZE(want); i++) {
		double t = (double)truth(sim, want[i].key, want[i].inst, 10 * SEC);

		/* 4 of 6 in 100 ms phases: two thirds of the time, scaled back */
		th_assert_near(rep->rows[i].running, 4.0 / 6, 0.02);
		assert_true(rep->rows[i].flags & PM_ROW_MULTIPLEXED);
		th_assert_rel(rep->rows[i].value, t, 0.01);
	}
	/* CYCLES at the 1 GHz L3 clock, 5 of 7 */
	th_assert_near(rep->rows[6].running, 5.0 / 7, 0.02);
	th_assert_rel(rep->rows[6].value, 1e10, 0.01);
	/* hits + misses = requests in bank 0, each scaled from its own share */
	th_assert_rel(rep->rows[7].value + rep->rows[8].value, rep->rows[11].value, 0.01);
	th_stop(&r);
}

/*
 * The L3 protocol: programming stops the block, enable starts it from 0;
 * every read stops it first. A clock set so that a running counter is 500
 * counts below 2^32 at the 5 s read would tear (the driver reads LOW, then
 * HIGH 1 us later): the value must still be exact.
 */
static void test_l3cache_no_torn_value(void **state)
{
	/* (2^32 - 500) / 5 s */
	struct pm_sim *sim = th_sim_platform_with("bluefield2", "l3.clock 858993359.2\n");
	static const char *const specs[] = { "bfperf/l3cachehalf0/CYCLES/", NULL };
	const struct pm_report *rep;
	struct th_run r;
	char buf[64];

	/* the control: a plain read of the running counter tears */
	write_sim_file(sim, H "l3cachehalf0/event0", "0x1");
	write_sim_file(sim, H "l3cachehalf0/enable", "1");
	pm_sim__advance(sim, 5 * SEC);
	read_sim_file(sim, H "l3cachehalf0/counter0", buf, sizeof(buf));
	assert_true(strtoull(buf, NULL, 16) > (1ull << 32) + 4000000000ull); /* 2^32 too high */
	write_sim_file(sim, H "l3cachehalf0/enable", "0");
	write_sim_file(sim, H "l3cachehalf0/event0", "0x0");

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	assert_file(sim, H "l3cachehalf0/enable", "1\n");
	assert_file(sim, H "l3cachehalf0/event0", "0x1: CYCLES\n");
	th_run_until(&r, pm_sim__now(sim) + 5 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_int_equal(rep->rows[0].raw, (1ull << 32) - 500);
	assert_true(rep->rows[0].running == 1.0);
	/* started again after the read, from 0; the next 5 s would tear again */
	assert_file(sim, H "l3cachehalf0/enable", "1\n");
	th_run_until(&r, pm_sim__now(sim) + 5 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_int_equal(rep->rows[0].raw, (1ull << 32) - 500);
	pm_session__free(r.s);
	r.s = NULL;
	/* put back: DISABLE, stopped */
	assert_file(sim, H "l3cachehalf0/enable", "0\n");
	assert_file(sim, H "l3cachehalf0/event0", "0x0: DISABLE\n");
	th_stop(&r);
}

/* BF-3 CRSPACE counters are 32 bits: at 4 GHz they wrap every 1.07 s. */
static void test_crspace_wraps(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield3", "llt.clock 4G\n");
	static const char *const specs[] = { "bfperf/llt2/HNF0_CYCLES/",
					     "bfperf/mss1/SKYLIB_DDN_TX_FLITS/", NULL };
	const struct pm_report *rep;
	struct th_run r;
	uint64_t t0;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	t0 = pm_sim__now(sim);
	assert_file(sim, H "llt2/enable", "1\n");
	th_run_until(&r, t0 + 20 * SEC); /* polled as the session asks, read only now */
	assert_true(pm_session__next_poll(r.s) - pm_sim__now(sim) < (uint64_t)(1.07 * SEC));
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->rows[0].raw, 80000000000ull); /* 4 GHz x 20 s, 18 wraps */
	assert_int_equal(rep->rows[1].raw, truth(sim, "mss.ddn_tx_flits", 1, 20 * SEC));
	pm_session__free(r.s);
	r.s = NULL;
	/* put back: the select as found (no DISABLE in BF-3 tables), stopped */
	assert_file(sim, H "llt2/event0", "0x0: HNF0_CYCLES\n");
	assert_file(sim, H "llt2/enable", "0\n");
	assert_file(sim, H "mss1/event0", "0x0: SKYLIB_CDN_TX_FLITS\n");
	th_stop(&r);
}

/* A 32-bit counter idle for 3 s, then at 1 G/s: no wrap lost when the rate jumps. */
static void test_crspace_rate_jump(void **state)
{
	struct pm_sim *sim = th_sim_platform_with(
		"bluefield3",
		"phase idle 3s\nmss.ddn_tx_flits 1k\nphase busy 30s\nmss.ddn_tx_flits 1G\n");
	static const char *const specs[] = { "bfperf/mss1/SKYLIB_DDN_TX_FLITS/", NULL };
	const struct pm_report *rep;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + 25 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->rows[0].raw, truth(sim, "mss.ddn_tx_flits", 1, 25 * SEC));
	th_stop(&r);
}

/* count_clock bit i: counter i counts cycles whatever its event; not ours to use. */
static void test_count_clock_slot_left_alone(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield3");
	static const char *const specs[] = { "bfperf/llt0/HNF0_MEM_READS/", NULL };
	const struct pm_report *rep;
	struct th_run r;

	th_log_clear();
	write_sim_file(sim, H "llt0/count_clock", "1");
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	assert_true(th_logged("bfperf/llt0 counter 0 counts clock cycles"));
	th_run_until(&r, pm_sim__scenario_start(sim) + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* HNF0 gets half of llt.mem_reads (the model), not 1.5 G cycles/s */
	th_assert_near((double)rep->rows[0].raw,
		       (double)truth(sim, "llt.mem_reads", 0, 2 * SEC) / 2, 1.0);
	assert_file(sim, H "llt0/event0", "0x0: HNF0_CYCLES\n");
	th_stop(&r);
}

/* Statistics registers: differences of what they read, never written. */
static void test_registers(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/pcie1/IN_P_BYTE_CNT/",
					     "bfperf/pcie*/OUT_C_PKT_CNT/", "bfperf/ecc/SERR_INJ/",
					     NULL };
	const struct pm_report *rep;
	struct th_run r;
	char before[64], after[64];

	pm_sim__advance(sim, 2 * SEC);
	read_sim_file(sim, H "pcie1/IN_P_BYTE_CNT", before, sizeof(before));
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	th_run_until(&r, pm_sim__now(sim) + 3 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->rows[0].raw, truth(sim, "pcie.in_p_bytes", 1, 5 * SEC) -
						   truth(sim, "pcie.in_p_bytes", 1, 2 * SEC));
	assert_int_equal(rep->rows[1].raw, truth(sim, "pcie.out_c_pkts", 0, 5 * SEC) -
						   truth(sim, "pcie.out_c_pkts", 0, 2 * SEC) +
						   truth(sim, "pcie.out_c_pkts", 1, 5 * SEC) -
						   truth(sim, "pcie.out_c_pkts", 1, 2 * SEC));
	/* a value, not a count: an ecc setting shows what it holds */
	assert_true(rep->rows[2].flags & PM_ROW_SNAPSHOT);
	assert_true(rep->rows[2].value == 0);
	/* never cleared: it went on from where it was */
	read_sim_file(sim, H "pcie1/IN_P_BYTE_CNT", after, sizeof(after));
	assert_int_equal(strtoull(after, NULL, 16) - strtoull(before, NULL, 16), rep->rows[0].raw);
	th_stop(&r);
}

/* Every slot as found: DISABLE where the table has it, else the event that was there. */
static void test_put_back_as_found(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/tile1/MEMORY_READS/",
					     "bfperf/triogen0/AR_BEATS/",
					     "bfperf/l3cachehalf1/CYCLES/",
					     "bfperf/l3cachehalf1/HITS_BANK1/", NULL };
	struct th_run r;

	write_sim_file(sim, H "triogen0/event0", "0x5");      /* AW_LAT, left by someone before */
	write_sim_file(sim, H "l3cachehalf1/event3", "0x17"); /* programmed, not started */
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	assert_file(sim, H "tile1/event0", "0x4c: MEMORY_READS\n");
	assert_file(sim, H "triogen0/event0", "0x9: AR_BEATS\n");
	th_run_until(&r, pm_sim__now(sim) + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__disable(r.s), 0);
	pm_session__free(r.s); /* pmumon's exit path, also taken on SIGINT and SIGTERM */
	r.s = NULL;
	assert_file(sim, H "tile1/event0", "0x0: DISABLE\n");
	assert_file(sim, H "triogen0/event0", "0x5: AW_LAT\n");
	assert_file(sim, H "l3cachehalf1/event0", "0x0: DISABLE\n");
	assert_file(sim, H "l3cachehalf1/event3", "0x17: HITS_BANK0\n");
	assert_file(sim, H "l3cachehalf1/enable", "0\n");
	/* nothing else touched */
	for (int j = 1; j < 4; j++) {
		char path[64];

		snprintf(path, sizeof(path), H "tile1/event%d", j);
		assert_file(sim, path, "0x0: DISABLE\n");
	}
	th_stop(&r);
}

/* A slot someone else programmed, or reprogrammed mid-run, is theirs. */
static void test_someone_elses_counters(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/tile3/MEMORY_READS/",
					     "bfperf/tile3/MEMORY_WRITES/",
					     "bfperf/tile3/HNF_REQUESTS/", "bfperf/tile3/A72_READ/",
					     NULL };
	const struct pm_report *rep;
	struct th_run r;

	th_log_clear();
	write_sim_file(sim, H "tile3/event2", "0x74"); /* IO_READ, another tool's */
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	assert_true(
		th_logged("bfperf/tile3 counter 2 is counting IO_READ (0x74) for another program"));
	assert_file(sim, H "tile3/event2", "0x74: IO_READ\n");
	th_run_until(&r, pm_sim__now(sim) + 3 * SEC);
	/* four events rotate on the three slots left */
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	th_assert_near(rep->rows[0].running, 0.75, 0.05);
	/* the other tool takes counter 1 back mid-run */
	write_sim_file(sim, H "tile3/event1", "0x73");
	pm_session__free(r.s);
	r.s = NULL;
	assert_true(th_logged("bfperf/tile3 counter 1 was reprogrammed by another program"));
	assert_file(sim, H "tile3/event1", "0x73: IO_WRITE\n");
	assert_file(sim, H "tile3/event2", "0x74: IO_READ\n");
	assert_file(sim, H "tile3/event0", "0x0: DISABLE\n");
	th_stop(&r);
}

/*
 * What a pmumon killed with SIGKILL leaves: a tile slot counting an asked
 * event, an l3cache block enabled with only asked codes. Without reclaim
 * they are named as probably pmumon's and left alone; with it, reset, used,
 * and at the end as at power-up. A slot counting anything else stays left
 * alone either way.
 */
static void test_reclaim(void **state)
{
	static const char *const specs[] = { "bfperf/tile1/MEMORY_READS/",
					     "bfperf/l3cachehalf0/CYCLES/", NULL };

	for (int reclaim = 0; reclaim < 2; reclaim++) {
		struct pm_sim *sim = th_sim_platform("bluefield2");
		struct pm_session_opts o = { .size = sizeof(o),
					     .target = PM_TARGET_SYSTEM,
					     .reclaim = reclaim };
		const struct pm_report *rep;
		struct th_run r;

		th_log_clear();
		write_sim_file(sim, H "tile1/event0", "0x4c"); /* MEMORY_READS */
		write_sim_file(sim, H "tile1/event1", "0x74"); /* IO_READ: not asked */
		write_sim_file(sim, H "l3cachehalf0/event0", "0x1");
		write_sim_file(sim, H "l3cachehalf0/enable", "1");
		assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
		assert_true(th_logged("bfperf/tile1 counter 1 is counting IO_READ (0x74) for "
				      "another program: left alone"));
		if (reclaim) {
			assert_true(th_logged("bfperf/tile1 counter 0 was counting MEMORY_READS "
					      "(0x4c), as a pmumon that was killed leaves it: "
					      "reclaimed"));
			assert_true(th_logged_reason(PM_REASON_RECLAIMED, "bfperf/tile1"));
			assert_true(th_logged_reason(PM_REASON_RECLAIMED, "bfperf/l3cachehalf0"));
			assert_true(th_logged("bfperf/l3cachehalf0 was counting exactly the events "
					      "asked, as a pmumon that was killed leaves it: "
					      "reclaimed"));
		} else {
			assert_true(th_logged("bfperf/tile1 counter 0 is counting MEMORY_READS "
					      "(0x4c), exactly what pmumon programs for the events "
					      "asked: a pmumon that was killed (SIGKILL) left it"));
			assert_true(
				th_logged("bfperf/l3cachehalf0 is counting exactly what pmumon "
					  "programs for the events asked (its enable file reads "
					  "1)"));
			assert_true(th_logged_reason(PM_REASON_NEEDS_RECLAIM, "bfperf/tile1"));
			assert_true(
				th_logged_reason(PM_REASON_NEEDS_RECLAIM, "bfperf/l3cachehalf0"));
			assert_false(th_logged("--reclaim"));
		}
		th_run_until(&r, pm_sim__scenario_start(sim) + 2 * SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, false);
		assert_true(rep->rows[0].running == 1.0);
		if (reclaim)
			assert_true(rep->rows[1].running == 1.0 && rep->rows[1].value > 0);
		else
			assert_true(isnan(rep->rows[1].value));
		pm_session__free(r.s);
		r.s = NULL;
		assert_file(sim, H "tile1/event0",
			    reclaim ? "0x0: DISABLE\n" : "0x4c: MEMORY_READS\n");
		assert_file(sim, H "tile1/event1", "0x74: IO_READ\n");
		assert_file(sim, H "l3cachehalf0/enable", reclaim ? "0\n" : "1\n");
		assert_file(sim, H "l3cachehalf0/event0",
			    reclaim ? "0x0: DISABLE\n" : "0x1: CYCLES\n");
		th_stop(&r);
	}
}

/* BlueField-3's CRSPACE: a block left enabled with asked codes; one with another code is not. */
static void test_reclaim_crspace(void **state)
{
	static const char *const specs[] = { "bfperf/llt0/HNF0_MEM_READS/",
					     "bfperf/llt1/HNF0_MEM_READS/", NULL };
	struct pm_sim *sim = th_sim_platform("bluefield3");
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .reclaim = true };
	struct th_run r;

	th_log_clear();
	write_sim_file(sim, H "llt0/event0", "0xb"); /* HNF0_MEM_READS */
	write_sim_file(sim, H "llt0/enable", "1");
	write_sim_file(sim, H "llt1/event0", "0xb");
	write_sim_file(sim, H "llt1/event3", "0x7"); /* HNF0_DIR_VICTIM: not asked */
	write_sim_file(sim, H "llt1/enable", "1");
	assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
	assert_true(th_logged("bfperf/llt0 was counting exactly the events asked"));
	assert_true(th_logged("bfperf/llt1 is counting for another program"));
	pm_session__free(r.s);
	r.s = NULL;
	assert_file(sim, H "llt0/enable", "0\n");
	assert_file(sim, H "llt0/event0", "0x0: HNF0_CYCLES\n");
	assert_file(sim, H "llt1/enable", "1\n");
	assert_file(sim, H "llt1/event3", "0x7: HNF0_DIR_VICTIM\n");
	th_stop(&r);
}

/* Two sessions on one machine: the second is told who holds the counters. */
static void test_second_instance(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/tile0/MEMORY_READS/", NULL };
	static const char *const regs[] = { "bfperf/pcie0/IN_P_BYTE_CNT/", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	struct pm_session *s2;
	struct pm_evlist *l2;
	struct th_run r;
	char want[96];

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	assert_int_equal(pm_evlist__new(r.ctx, &l2), 0);
	assert_int_equal(pm_evlist__add(l2, specs[0], &r.d), 0);
	assert_int_equal(pm_session__new(l2, &o, &s2, &r.d), 0);
	assert_int_equal(pm_session__open(s2, &r.d), -EBUSY);
	snprintf(want, sizeof(want), "the BlueField counters are in use by pid %d", (int)getpid());
	assert_non_null(strstr(r.d.msg, want));
	pm_session__free(s2);
	pm_evlist__free(l2);
	/* statistics registers need no lock */
	assert_int_equal(pm_evlist__new(r.ctx, &l2), 0);
	assert_int_equal(pm_evlist__add(l2, regs[0], &r.d), 0);
	assert_int_equal(pm_session__new(l2, &o, &s2, &r.d), 0);
	assert_int_equal(pm_session__open(s2, &r.d), 0);
	pm_session__free(s2);
	pm_evlist__free(l2);
	/* the first one ends: the lock is free again */
	pm_session__free(r.s);
	assert_int_equal(pm_evlist__new(r.ctx, &l2), 0);
	assert_int_equal(pm_evlist__add(l2, specs[0], &r.d), 0);
	assert_int_equal(pm_session__new(l2, &o, &r.s, &r.d), 0);
	assert_int_equal(pm_session__open(r.s, &r.d), 0);
	pm_evlist__free(r.l);
	r.l = l2;
	th_stop(&r);
}

/*
 * Lock files someone else made in the lock's directory: held by another
 * user's process (named, with its made-up pid), or left there unheld
 * (named, with the fix: never a silent wait, never truncated).
 */
static void test_lock_of_another_user(void **state)
{
	static const char *const specs[] = { "bfperf/tile0/MEMORY_READS/", NULL };
	static const struct {
		uid_t owner;
		unsigned mode;
		pid_t holder;
		int err;
		const char *msg, *hint;
	} cases[] = {
		{ 1001, S_IFREG | 0644, 1, -EBUSY,
		  "the BlueField counters are in use by pid 1 of uid 1001 (it holds "
		  "/run/pmumon/bfperf.lock)",
		  "stop that pmumon first" },
		{ 65534, S_IFREG | 0644, 4242, -EBUSY,
		  "in use by pid 4242 of user nobody (uid 65534)", "stop that pmumon first" },
		{ 1001, S_IFREG | 0644, 0, -EPERM,
		  "the lock file /run/pmumon/bfperf.lock belongs to uid 1001, and no process "
		  "holds it: pmumon will not use it to guard the BlueField counters",
		  "remove it (rm /run/pmumon/bfperf.lock) and run again" },
		{ 1001, S_IFLNK | 0777, 0, -EPERM,
		  "the lock file /run/pmumon/bfperf.lock is a symbolic link", "remove it" },
		{ 0, S_IFREG | 0666, 0, -EPERM, "is writable by group or others (mode 0666)",
		  "remove it" },
		/* root's own, left behind: simply taken */
		{ 0, S_IFREG | 0644, 0, 0, "", "" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		struct pm_sim *sim = th_sim_platform("bluefield2");
		struct th_run r;
		int e;

		assert_int_equal(pm_sim__lock_file(sim, "run/pmumon/bfperf.lock", cases[i].owner,
						   cases[i].mode, cases[i].holder),
				 0);
		e = th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0);
		if (e != cases[i].err || !strstr(r.d.msg, cases[i].msg) ||
		    !strstr(r.d.hint, cases[i].hint))
			fail_msg("case %zu: %d '%s' (hint '%s')", i, e, r.d.msg, r.d.hint);
		th_stop(&r);
	}
}

/* A block that went away and came back with its driver: the session sees it back. */
static void test_block_comes_back(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2", "at 1500ms vanish " H "tile1\n"
								"at 2500ms return " H "tile1\n");
	static const char *const specs[] = { "bfperf/tile*/MEMORY_READS/", NULL };
	uint64_t t0 = pm_sim__scenario_start(sim);
	struct th_run r;

	(void)state;
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_DEVICE, NULL, 0), 0);
	th_run_until(&r, t0 + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__lost_count(r.s), 1);
	assert_int_equal(pm_session__lost_back(r.s), 0);
	th_run_until(&r, t0 + 3 * SEC);
	assert_int_equal(pm_session__lost_back(r.s), 1);
	th_stop(&r);
}

/* A block that goes away is reported; the others keep counting. */
static void test_block_goes_away(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	static const char *const specs[] = { "bfperf/tile*/MEMORY_READS/", NULL };
	const struct pm_report *rep;
	struct th_run r;

	th_log_clear();
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_DEVICE, NULL, 0), 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_sim__remove(sim, H "tile1"), 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_true(th_logged("bfperf/tile1 went away"));
	/* counting goes on, yet the session says a device was lost */
	assert_int_equal(pm_session__lost_count(r.s), 1);
	assert_string_equal(pm_session__lost_device(r.s, 0), "bfperf/tile1");
	rep = pm_session__report(r.s, true);
	assert_true(rep->rows[1].enabled_ns == 0 || isnan(rep->rows[1].value));
	/* a device gone is a device lost: its rows say so, the session names it */
	assert_true(rep->rows[1].flags & PM_ROW_LOST);
	assert_true(rep->rows[1].flags & PM_ROW_PARTIAL);
	assert_int_equal(pm_session__lost_count(r.s), 1);
	assert_string_equal(pm_session__lost_device(r.s, 0), "bfperf/tile1");
	for (int t = 0; t < 4; t += 2)
		assert_int_equal(rep->rows[t].raw, truth(sim, "tile.mem_reads", t, 2 * SEC) -
							   truth(sim, "tile.mem_reads", t, SEC));
	th_stop(&r);
}

/*
 * Issue 12 item 4: a read later than a 32-bit counter's wrap time at its rate
 * (pmumon stopped by SIGSTOP or Ctrl-Z, a paused VM) loses whole wraps
 * unseen. The counter that could have wrapped is marked; one that counts
 * too slowly to wrap in the gap is not; with the polls the session asks
 * for, nothing is.
 */
static void test_late_read_doubted(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield3", "jitter 0\nllt.clock 1.5G\n");
	static const char *const specs[] = { "bfperf/llt2/HNF0_CYCLES/",
					     "bfperf/mss1/SKYLIB_DDN_TX_FLITS/", NULL };
	const struct pm_report *rep;
	uint64_t t0;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	t0 = pm_sim__scenario_start(sim);
	th_run_until(&r, t0 + 5 * SEC); /* polled as the session asks */
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_int_equal(rep->rows[0].raw, 7500000000ull); /* 1.5 GHz x 5 s: 1.7 wraps */
	assert_false(rep->rows[0].flags & PM_ROW_WRAP_UNCERTAIN);
	assert_false(rep->rows[1].flags & PM_ROW_WRAP_UNCERTAIN);
	/* stopped for 10 s: 2^32 cycles take 2.86 s at 1.5 GHz, 3 wraps go unseen */
	pm_sim__advance(sim, 10 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_int_equal(rep->rows[0].raw, 15000000000ull - 3 * (1ull << 32));
	assert_true(rep->rows[0].flags & PM_ROW_WRAP_UNCERTAIN);
	/* 3e7 flits/s take 143 s to wrap: 10 s late loses nothing */
	assert_int_equal(rep->rows[1].raw, truth(sim, "mss.ddn_tx_flits", 1, 15 * SEC) -
						   truth(sim, "mss.ddn_tx_flits", 1, 5 * SEC));
	assert_false(rep->rows[1].flags & PM_ROW_WRAP_UNCERTAIN);
	/* polled again: the next interval is trusted, the totals keep the doubt */
	th_run_until(&r, t0 + 20 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_int_equal(rep->rows[0].raw, 7500000000ull);
	assert_false(rep->rows[0].flags & PM_ROW_WRAP_UNCERTAIN);
	rep = pm_session__report(r.s, false);
	assert_true(rep->rows[0].flags & PM_ROW_WRAP_UNCERTAIN);
	assert_false(rep->rows[1].flags & PM_ROW_WRAP_UNCERTAIN);
	th_stop(&r);
}

/*
 * Issue 12 item 5: another tool writes a different event to a slot pmumon
 * counts on. Its counts must not pass for ours (a COUNTER slot restarts
 * from 0: 2^64 - x), pmumon stops counting there, and the slot is the
 * other tool's after pmumon ends, through disable and close as stat does.
 */
static void test_reprogrammed_mid_run(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2", "jitter 0\nat 1500ms write " H
								"tile3/event0 0x73\n");
	static const char *const specs[] = { "bfperf/tile3/MEMORY_READS/", NULL };
	const struct pm_report *rep;
	uint64_t t0;
	struct th_run r;

	th_log_clear();
	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	t0 = pm_sim__scenario_start(sim);
	assert_file(sim, H "tile3/event0", "0x4c: MEMORY_READS\n");
	th_run_until(&r, t0 + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_false(pm_session__report(r.s, true)->rows[0].flags & PM_ROW_REPROGRAMMED);
	th_run_until(&r, t0 + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_true(th_logged("bfperf/tile3 counter 0 was reprogrammed by another program (it "
			      "counts IO_WRITE (0x73) now)"));
	rep = pm_session__report(r.s, true);
	/* nothing of IO_WRITE under MEMORY_READS: the stretch since the last look is left out */
	assert_int_equal(rep->rows[0].raw, 0);
	assert_true(rep->rows[0].flags & PM_ROW_REPROGRAMMED);
	th_run_until(&r, t0 + 3 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->rows[0].raw, truth(sim, "tile.mem_reads", 3, SEC));
	assert_true(rep->rows[0].flags & PM_ROW_REPROGRAMMED);
	/* stat's exit path: disable, then close */
	assert_int_equal(pm_session__disable(r.s), 0);
	pm_session__free(r.s);
	r.s = NULL;
	assert_file(sim, H "tile3/event0", "0x73: IO_WRITE\n");
	assert_file(sim, H "tile3/event1", "0x0: DISABLE\n");
	th_stop(&r);

	/* BF-3 CRSPACE: the counter goes on from its value with their event; polled
	 * every 250 ms, pmumon keeps what it counted up to its last look before */
	sim = th_sim_platform_with("bluefield3",
				   "jitter 0\nat 1100ms write " H "llt0/event0 0x2\n");
	static const char *const llt[] = { "bfperf/llt0/HNF0_MEM_READS/",
					   "bfperf/llt0/HNF0_MEM_WRITES/", NULL };
	assert_int_equal(th_start(&r, sim, llt, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	t0 = pm_sim__scenario_start(sim);
	assert_file(sim, H "llt0/event0", "0xb: HNF0_MEM_READS\n");
	th_run_until(&r, t0 + 3 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_true(rep->rows[0].raw <= truth(sim, "llt.mem_reads", 0, 1100 * 1000000ull) / 2);
	assert_true(rep->rows[0].raw >= truth(sim, "llt.mem_reads", 0, 850 * 1000000ull) / 2);
	assert_true(rep->rows[0].flags & PM_ROW_REPROGRAMMED);
	/* the other slot is still ours, and exact */
	assert_int_equal(rep->rows[1].raw, truth(sim, "llt.mem_writes", 0, 3 * SEC) / 2);
	assert_false(rep->rows[1].flags & PM_ROW_REPROGRAMMED);
	assert_int_equal(pm_session__disable(r.s), 0);
	pm_session__free(r.s);
	r.s = NULL;
	assert_file(sim, H "llt0/event0", "0x2: HNF0_REQS_PROCESSED\n");
	assert_file(sim, H "llt0/event1", "0x0: HNF0_CYCLES\n"); /* ours, put back */
	th_stop(&r);
}

/*
 * Issue 12 item 6: a statistic register someone resets ("write 0", seed
 * 003) went down: that is a reset, not a 2^64 wrap (1.8e13 MB/s). The
 * counts of the stretch it happened in are left out, the row says reset,
 * and counting goes on from the new value. pcie registers (64 bits) are
 * read at each interval only: the whole interval is left out; ecc ones (32
 * bits) are polled every 250 ms: only the poll's stretch is.
 */
static void test_register_reset(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2",
						  "jitter 0\necc.single 1k\n"
						  "at 1500ms write " H "pcie0/IN_P_BYTE_CNT 0\n"
						  "at 1500ms write " H
						  "ecc/ECC_SINGLE_ERROR_CNT 0\n");
	static const char *const specs[] = { "bfperf/pcie0/IN_P_BYTE_CNT/",
					     "bfperf/ecc/ECC_SINGLE_ERROR_CNT/", NULL };
	static const char *const keys[] = { "pcie.in_p_bytes", "ecc.single" };
	const struct pm_report *rep;
	uint64_t t0, ecc_total;
	struct th_run r;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	t0 = pm_sim__scenario_start(sim);
	th_run_until(&r, t0 + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	th_run_until(&r, t0 + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_int_equal(rep->rows[0].raw, 0);
	/* 500 errors before the reset, polled; at most 250 ms of them after it left out */
	assert_true(rep->rows[1].raw >= 500 + 250 && rep->rows[1].raw < 1000);
	for (int i = 0; i < 2; i++)
		assert_true(rep->rows[i].flags & PM_ROW_RESET);
	ecc_total = 1000 + rep->rows[1].raw;
	th_run_until(&r, t0 + 3 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rep->rows[i].raw,
				 truth(sim, keys[i], 0, 3 * SEC) - truth(sim, keys[i], 0, 2 * SEC));
		assert_false(rep->rows[i].flags & PM_ROW_RESET);
	}
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->rows[0].raw, truth(sim, keys[0], 0, SEC) +
						   truth(sim, keys[0], 0, 3 * SEC) -
						   truth(sim, keys[0], 0, 2 * SEC));
	assert_int_equal(rep->rows[1].raw, ecc_total + 1000);
	for (int i = 0; i < 2; i++)
		assert_true(rep->rows[i].flags & PM_ROW_RESET);
	th_stop(&r);
}

/*
 * Issue 12 item 9: one block's EIO, EBUSY, EACCES or EINVAL mid-run stops
 * that block only. Its rows are marked lost and partial and keep the
 * counts up to its last good read; the other blocks count on; the totals
 * are the sum of the intervals; the session names the lost device. With
 * nothing left counting, the read fails.
 */
static void test_block_fails_mid_run(void **state)
{
	static const char *const errs[] = { "EIO", "EBUSY", "EACCES", "EINVAL" };
	static const char *const specs[] = { "bfperf/tile*/MEMORY_READS/", NULL };

	for (size_t e = 0; e < PM_ARRAY_SIZE(errs); e++) {
		char scn[128], want[96];
		uint64_t sum[4] = { 0 }, t0;
		const struct pm_report *rep;
		struct pm_sim *sim;
		struct th_run r;

		snprintf(scn, sizeof(scn), "jitter 0\nat 1500ms error " H "tile1/counter0 %s\n",
			 errs[e]);
		sim = th_sim_platform_with("bluefield2", scn);
		th_log_clear();
		assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_DEVICE, NULL, 0), 0);
		t0 = pm_sim__scenario_start(sim);
		for (int i = 1; i <= 3; i++) {
			th_run_until(&r, t0 + (uint64_t)i * SEC);
			assert_int_equal(pm_session__read(r.s), 0);
			rep = pm_session__report(r.s, true);
			for (int t = 0; t < 4; t++) {
				sum[t] += rep->rows[t].raw;
				if (t == 1 && i > 1) {
					assert_true(rep->rows[t].flags & PM_ROW_LOST);
					assert_true(rep->rows[t].flags & PM_ROW_PARTIAL);
					assert_true(rep->rows[t].flags & PM_ROW_NOT_COUNTED);
					continue;
				}
				assert_false(rep->rows[t].flags & (PM_ROW_LOST | PM_ROW_PARTIAL));
				assert_int_equal(rep->rows[t].raw,
						 truth(sim, "tile.mem_reads", t,
						       (uint64_t)i * SEC) -
							 truth(sim, "tile.mem_reads", t,
							       (uint64_t)(i - 1) * SEC));
			}
		}
		snprintf(want, sizeof(want), "bfperf/tile1: reading its counters failed: %s",
			 !strcmp(errs[e], "EIO")    ? "Input/output error" :
			 !strcmp(errs[e], "EBUSY")  ? "Device or resource busy" :
			 !strcmp(errs[e], "EACCES") ? "permission denied" :
						      "the driver rejected the value");
		if (!th_logged(want))
			fail_msg("%s: not logged: %s\nlog: %s", errs[e], want, th_log);
		assert_null(strstr(strstr(th_log, want) + 1, "bfperf/tile1:")); /* once */
		rep = pm_session__report(r.s, false);
		for (int t = 0; t < 4; t++)
			assert_int_equal(rep->rows[t].raw, sum[t]);
		assert_int_equal(rep->rows[1].raw, truth(sim, "tile.mem_reads", 1, SEC));
		assert_true(rep->rows[1].flags & PM_ROW_LOST);
		assert_int_equal(rep->rows[1].covered, 0);
		assert_int_equal(rep->rows[1].instances, 1);
		assert_int_equal(pm_session__lost_count(r.s), 1);
		assert_string_equal(pm_session__lost_device(r.s, 0), "bfperf/tile1");
		assert_null(pm_session__lost_device(r.s, 1));
		th_stop(&r);
	}

	/* the only block fails: nothing counts any more, and the read says so */
	static const char *const one[] = { "bfperf/tile1/MEMORY_READS/", NULL };
	struct pm_sim *sim = th_sim_platform_with("bluefield2",
						  "at 1500ms error " H "tile1/counter0 EIO\n");
	struct th_run r;

	assert_int_equal(th_start(&r, sim, one, NULL, PM_AGGR_FAMILY, NULL, 0), 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), -EIO);
	assert_string_equal(pm_session__failed_device(r.s), "bfperf/tile1");
	assert_int_equal(pm_session__report(r.s, false)->rows[0].raw,
			 truth(sim, "tile.mem_reads", 1, SEC));
	th_stop(&r);
}

static void test_bad_events(void **state)
{
	struct pm_ctx *ctx = th_ctx_sim(th_sim_platform("bluefield2"));
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	struct pm_session *s;
	struct pm_evlist *l;
	struct pm_diag d;

	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	/* the NVIDIA doc's spelling: names are case-sensitive in the driver, not here */
	assert_int_equal(pm_evlist__add(l, "bfperf/tile0/A72_Read/", &d), 0);
	assert_int_equal(pm_evlist__add(l, "bfperf/tile0/NO_SUCH/", &d), -ENOENT);
	assert_non_null(strstr(d.msg, "NO_SUCH"));
	assert_int_equal(pm_evlist__add(l, "bfperf/tilenet*/MEMORY_READS/", &d), -ENOENT);
	/* a code the table lacks: the seed's 0xff */
	assert_int_equal(pm_evlist__add(l, "bfperf/tile0/event=0xff/", &d), 0);
	assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "bfperf/tile0 has no event code 0xff"));
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

static void test_not_root(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2:user=nobody");
	static const char *const specs[] = { "bfperf/tile0/MEMORY_READS/", NULL };
	struct th_run r;

	assert_int_equal(th_start(&r, sim, specs, NULL, PM_AGGR_FAMILY, NULL, 0), -EACCES);
	assert_non_null(strstr(r.d.msg, "no permission to open /" H "tile0/event0 for writing"));
	assert_non_null(strstr(r.d.hint, "run pmumon as root"));
	th_stop(&r);
}

/* The pack's metrics through this source, against the truth. */
static void test_metrics(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	const struct pm_report *rep;
	struct th_run r;
	int checked = 0;

	assert_int_equal(th_start(&r, sim, NULL, "bf_l3,bf_pcie,bf_trio", PM_AGGR_FAMILY, NULL, 0),
			 0);
	th_run_until(&r, pm_sim__scenario_start(sim) + 4 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *row = &rep->rows[i];
		double want;

		if (!(row->flags & PM_ROW_METRIC))
			continue;
		if (!strncmp(row->event, "l3_hit_ratio", 12))
			want = 60.0; /* l3.hit_ratio 0.6 */
		else if (!strcmp(row->event, "pcie_in_bandwidth"))
			want = (double)(truth(sim, "pcie.in_p_bytes", 0, 4 * SEC) +
					truth(sim, "pcie.in_p_bytes", 1, 4 * SEC) +
					truth(sim, "pcie.in_np_bytes", 0, 4 * SEC) +
					truth(sim, "pcie.in_np_bytes", 1, 4 * SEC) +
					truth(sim, "pcie.in_c_bytes", 0, 4 * SEC) +
					truth(sim, "pcie.in_c_bytes", 1, 4 * SEC)) /
			       4 / 1e6;
		else if (!strcmp(row->event, "trio_dma_data_beats"))
			want = (double)(truth(sim, "trio.dma_beats", 0, 4 * SEC) +
					truth(sim, "trio.dma_beats", 1, 4 * SEC)) /
			       4;
		else
			continue;
		th_assert_rel(row->value, want, 1e-6);
		checked++;
	}
	assert_int_equal(checked, 4);
	th_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover_bluefield2),
		cmocka_unit_test(test_discover_bluefield3_completes_tables),
		cmocka_unit_test(test_done_when),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_l3cache_no_torn_value),
		cmocka_unit_test(test_crspace_wraps),
		cmocka_unit_test(test_crspace_rate_jump),
		cmocka_unit_test(test_count_clock_slot_left_alone),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_put_back_as_found),
		cmocka_unit_test(test_someone_elses_counters),
		cmocka_unit_test(test_reclaim),
		cmocka_unit_test(test_reclaim_crspace),
		cmocka_unit_test(test_second_instance),
		cmocka_unit_test(test_lock_of_another_user),
		cmocka_unit_test(test_block_goes_away),
		cmocka_unit_test(test_block_comes_back),
		cmocka_unit_test(test_late_read_doubted),
		cmocka_unit_test(test_reprogrammed_mid_run),
		cmocka_unit_test(test_register_reset),
		cmocka_unit_test(test_block_fails_mid_run),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
