// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the screens show of a report (cli/screen.c): kinds under the packs'
 * neutral names, places labelled by their topology, values in the units
 * shown, and totals per die, socket and machine — sums of rates and
 * amounts, a ratio's summed parts (never an average of ratios), marked
 * partial when a place was not counted, none for a frequency or a ratio
 * without parts (with why). Table-driven, on reports made by hand.
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
#include <cmocka.h>

#include "util.h"
#include "screen.h"

#define ROWP(ev, un, dev, so, di, ch, val, fl, n, d)                                            \
	{                                                                                       \
		.event = ev, .unit = un, .device = dev, .socket = so, .die = di, .channel = ch, \
		.subchannel = -1, .cpu = -1, .value = val, .running = 1, .covered = 1,          \
		.instances = 1, .flags = PM_ROW_METRIC | (fl), .num = n, .den = d               \
	}
#define ROW(ev, un, dev, so, di, ch, val, fl) ROWP(ev, un, dev, so, di, ch, val, fl, NAN, NAN)

/*
 * EPYC-like: DF channels per socket (neutral "memory", channel=N); ratios with their parts
 * (the ScaleUnit on the numerator: 2 misses of 10 accesses are 200 / 10 = 20 %); amounts;
 * a frequency.
 */
static struct pm_row epyc[] = {
	ROW("DF_CH0_GBps", "GB/s", "amd_df", 0, -1, -1, 8, 0),
	ROW("DF_CH0_GBps", "GB/s", "amd_df", 1, -1, -1, 9, 0),
	ROW("DF_CH1_GBps", "GB/s", "amd_df", 0, -1, -1, 10, 0),
	ROW("DF_CH1_GBps", "GB/s", "amd_df", 1, -1, -1, NAN, PM_ROW_LOST),
	ROWP("L3_Cache_Miss_Ratio", "%", "amd_l3", 0, -1, -1, 20, PM_ROW_RATIO, 200, 10),
	ROWP("L3_Cache_Miss_Ratio", "%", "amd_l3", 1, -1, -1, 80, PM_ROW_RATIO, 80000, 1000),
	ROW("links", "MiB", "amd_df", 0, -1, -1, 100, PM_ROW_MULTIPLEXED | PM_ROW_AMOUNT),
	ROW("links", "MiB", "amd_df", 1, -1, -1, 50, PM_ROW_AMOUNT),
	ROWP("CPI", "", "cpu", 0, -1, -1, 0.6, PM_ROW_RATIO, 6, 10),
	ROW("CPI", "", "cpu", 1, -1, -1, NAN, PM_ROW_NOT_COUNTED), /* no parts: not counted */
	ROW("cycles", "", "cpu", 0, -1, -1, 4e9, PM_ROW_AMOUNT),
	ROW("cycles", "", "cpu", 1, -1, -1, 2e9, PM_ROW_AMOUNT),
	ROW("EffectiveFrequency", "GHz", "msr", 0, -1, -1, 3, 0),
	ROW("EffectiveFrequency", "GHz", "msr", 1, -1, -1, 2, 0),
};

static struct screen_info *epyc_info(void)
{
	struct screen_info *in = NULL;

	assert_int_equal(screen_info_empty(&in), 0);
	assert_int_equal(screen_info_add_name(in, "DF_CH0_GBps", "memory", "channel=0"), 0);
	assert_int_equal(screen_info_add_name(in, "DF_CH1_GBps", "memory", "channel=1"), 0);
	assert_int_equal(screen_info_add_name(in, "L3_Cache_Miss_Ratio", "l3_miss", ""), 0);
	return in;
}

static const struct screen_kind *kind(const struct screen *s, const char *name)
{
	for (size_t k = 0; k < s->n_kinds; k++)
		if (!strcmp(s->kind[k].name, name))
			return &s->kind[k];
	fail_msg("no kind '%s'", name);
	return NULL;
}

static void test_kinds_labels_and_totals(void **state)
{
	struct pm_report rep = { .n_rows = PM_ARRAY_SIZE(epyc),
				 .rows = epyc,
				 .duration_ns = 500000000 };
	struct screen_info *in = epyc_info();
	struct screen s = { 0 };
	const struct screen_kind *k;
	struct pm_row q;
	static const char *const mem_labels[] = { "S0/ch0", "S0/ch1", "S1/ch0", "S1/ch1" };
	static const struct {
		const char *label;
		double value;
		unsigned covered, instances;
		bool partial;
	} mem_totals[] = {
		{ "S0 total", 18, 2, 2, false },
		{ "S1 total", 9, 1, 2, true }, /* S1/ch1 lost: said, never a silent 9 */
		{ "machine total", 27, 3, 4, true },
	};

	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	/* the DF channels of both sockets: one kind, the places in socket, channel order */
	k = kind(&s, "memory");
	assert_string_equal(k->what, "DF_CH0_GBps, DF_CH1_GBps");
	assert_string_equal(k->unit, "GB/s");
	assert_int_equal(k->n_items, 4);
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(s.item[k->item0 + i].label, mem_labels[i]);
	assert_int_equal(k->n_totals, 3);
	for (size_t i = 0; i < k->n_totals; i++) {
		assert_string_equal(s.total[k->total0 + i].label, mem_totals[i].label);
		screen_total_value(&s, &rep, k->total0 + i, &q);
		assert_true(q.value == mem_totals[i].value);
		assert_int_equal(q.covered, mem_totals[i].covered);
		assert_int_equal(q.instances, mem_totals[i].instances);
		assert_int_equal(!!(q.flags & PM_ROW_PARTIAL), mem_totals[i].partial);
	}
	assert_true(isnan(screen_value(&s, &rep, k->item0 + 3)));
	/* a ratio: per socket its own, for the machine its summed parts: 80200 / 1010,
	 * 79.4 %, never the average of 20 % and 80 % */
	k = kind(&s, "l3 miss");
	assert_string_equal(k->what, "L3_Cache_Miss_Ratio");
	assert_string_equal(s.item[k->item0].label, "S0/amd_l3"); /* nothing else tells it */
	assert_true(k->parts);
	assert_string_equal(k->no_total, "");
	assert_int_equal(k->n_totals, 1);
	assert_string_equal(s.total[k->total0].label, "machine total");
	screen_total_value(&s, &rep, k->total0, &q);
	assert_true(q.value == 80200.0 / 1010);
	assert_true(q.num == 80200 && q.den == 1010);
	assert_int_equal(q.flags, PM_ROW_RATIO);
	assert_int_equal(q.covered, 2);
	/* a ratio of one place counted: its parts alone, and partial */
	k = kind(&s, "CPI");
	assert_string_equal(k->unit, "ratio");
	screen_total_value(&s, &rep, k->total0, &q);
	assert_true(q.value == 0.6);
	assert_true(q.flags & PM_ROW_PARTIAL);
	assert_int_equal(q.covered, 1);
	assert_int_equal(q.instances, 2);
	/* a frequency: no total, and why */
	k = kind(&s, "EffectiveFrequency");
	assert_int_equal(k->n_totals, 0);
	assert_non_null(strstr(k->no_total, "frequencies"));
	/* an amount in the interval: per second (0.5 s), and its total adds, multiplexed */
	k = kind(&s, "links");
	assert_string_equal(k->unit, "MiB/s");
	assert_string_equal(k->from, "MiB");
	assert_true(screen_value(&s, &rep, k->item0) == 200);
	assert_int_equal(k->n_totals, 1);
	screen_total_value(&s, &rep, k->total0, &q);
	assert_true(q.value == 300);
	assert_true(q.flags & PM_ROW_MULTIPLEXED);
	/* a count (the library says it is an amount): per second, adds */
	k = kind(&s, "cycles");
	assert_string_equal(k->unit, "/s");
	screen_total_value(&s, &rep, k->total0, &q);
	assert_true(q.value == 12e9);
	/* the same rows again: the screen fits; other rows: it does not */
	assert_true(screen_fits(&s, &rep));
	epyc[0].event = "DF_CH2_GBps";
	assert_false(screen_fits(&s, &rep));
	epyc[0].event = "DF_CH0_GBps";
	screen_free(&s);
	screen_info_free(in);
}

/* Yitian-like: one socket, two dies, channels decoded by the pack; a ratio of nothing counted. */
static void test_dies_one_socket(void **state)
{
	struct pm_row rows[8];
	struct pm_report rep = { .n_rows = 8, .rows = rows, .duration_ns = 1000000000 };
	static const char *const places[] = { "die0/ch0", "die0/ch1", "die0/ch2", "die0/ch3",
					      "die1/ch0", "die1/ch1", "die1/ch2", "die1/ch3" };
	struct screen s = { 0 };
	const struct screen_kind *k;
	struct pm_row q;

	for (int i = 0; i < 8; i++) {
		rows[i] = (struct pm_row)ROW("ddr_read_bandwidth.all", "MB/s", NULL, 0, i / 4,
					     i % 4, 100 * (i + 1), 0);
		rows[i].place = places[i];
	}
	assert_int_equal(screen_build(&s, &rep, NULL, SCREEN_ALL), 0);
	k = kind(&s, "ddr_read_bandwidth.all");
	assert_string_equal(k->what, ""); /* its own name: nothing more to say */
	for (int i = 0; i < 8; i++)	  /* one socket: not said on every line */
		assert_string_equal(s.item[k->item0 + i].label, places[i]);
	assert_int_equal(k->n_totals, 3);
	assert_string_equal(s.total[k->total0].label, "die0 total");
	assert_string_equal(s.total[k->total0 + 1].label, "die1 total");
	assert_string_equal(s.total[k->total0 + 2].label, "machine total");
	screen_total_value(&s, &rep, k->total0 + 1, &q);
	assert_true(q.value == 500 + 600 + 700 + 800);
	assert_int_equal(q.flags, 0);
	for (int i = 0; i < 8; i++)
		rows[i].value = NAN, rows[i].flags |= PM_ROW_NOT_COUNTED;
	screen_total_value(&s, &rep, k->total0 + 2, &q);
	assert_true(isnan(q.value)); /* nothing counted: no number, never 0 */
	assert_true(q.flags & PM_ROW_NOT_COUNTED);
	screen_free(&s);
}

/* Places the topology does not tell apart keep their device; cgroups are never added up. */
static void test_devices_and_cgroups(void **state)
{
	struct pm_row rows[] = {
		/* ratios whose rows give no parts: no total */
		ROW("l3_hit_ratio_bank0", "%", "bfperf/l3cachehalf0", -1, -1, -1, 60, 0),
		ROW("l3_hit_ratio_bank0", "%", "bfperf/l3cachehalf1", -1, -1, -1, 60, 0),
		ROW("l3_hit_ratio_bank1", "%", "bfperf/l3cachehalf0", -1, -1, -1, 60, 0),
		ROW("cpu-clock", "msec", "software", -1, -1, -1, 1000, 0),
		ROW("cpu-clock", "msec", "software", -1, -1, -1, 2000, 0),
	};
	struct pm_report rep = { .n_rows = PM_ARRAY_SIZE(rows),
				 .rows = rows,
				 .duration_ns = 1000000000 };
	struct screen_info *in = NULL;
	struct screen s = { 0 };
	const struct screen_kind *k;

	rows[3].flags = rows[4].flags = 0; /* events */
	rows[3].cgroup = "user.slice";
	rows[4].cgroup = "user.slice/a.service"; /* inside the other: a sum would count twice */
	assert_int_equal(screen_info_empty(&in), 0);
	assert_int_equal(screen_info_add_name(in, "l3_hit_ratio_bank0", "l3_hit", "bank=0"), 0);
	assert_int_equal(screen_info_add_name(in, "l3_hit_ratio_bank1", "l3_hit", "bank=1"), 0);
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_ALL), 0);
	k = kind(&s, "l3 hit");
	assert_int_equal(k->n_items, 3);
	assert_string_equal(s.item[k->item0].label, "bfperf/l3cachehalf0/bank0");
	assert_string_equal(s.item[k->item0 + 1].label, "bfperf/l3cachehalf1/bank0");
	assert_string_equal(s.item[k->item0 + 2].label, "bfperf/l3cachehalf0/bank1");
	assert_false(k->parts);
	assert_int_equal(k->n_totals, 0);
	assert_non_null(strstr(k->no_total, "ratio"));
	/* their parts given later: the screen is made again, with totals */
	assert_true(screen_fits(&s, &rep));
	rows[0].flags |= PM_ROW_RATIO, rows[0].num = 6000, rows[0].den = 100;
	assert_false(screen_fits(&s, &rep));
	k = kind(&s, "cpu-clock");
	assert_false(k->metric);
	assert_string_equal(k->unit, "msec/s");
	assert_string_equal(s.item[k->item0].label, "software in user.slice");
	assert_int_equal(k->n_totals, 0);
	screen_free(&s);
	screen_info_free(in);
}

/* A total's interval: its items' ends added (per second for an amount), the worst bound;
 * none where an item has none. */
static void test_total_interval(void **state)
{
	struct pm_row rows[] = {
		ROW("DF_CH0_GBps", "GB/s", "amd_df", 0, -1, -1, 8, PM_ROW_MULTIPLEXED),
		ROW("DF_CH1_GBps", "GB/s", "amd_df", 0, -1, -1, 10, PM_ROW_MULTIPLEXED),
		ROW("links", "MiB", "amd_df", 0, -1, -1, 100, PM_ROW_AMOUNT),
		ROW("links", "MiB", "amd_df", 1, -1, -1, 60, PM_ROW_AMOUNT),
	};
	struct pm_report rep = { .n_rows = PM_ARRAY_SIZE(rows),
				 .rows = rows,
				 .duration_ns = 2000000000 };
	struct screen_info *in = epyc_info();
	struct screen s = { 0 };
	const struct screen_kind *k;
	struct pm_row q;

	rows[0].lo = 7, rows[0].hi = 9, rows[0].bound = PM_BOUND_MEASURED;
	rows[1].lo = 9.5, rows[1].hi = 10.5, rows[1].bound = PM_BOUND_MEASURED;
	rows[2].lo = 90, rows[2].hi = 110, rows[2].bound = PM_BOUND_MEASURED;
	rows[3].lo = rows[3].hi = 60; /* exact */
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "memory");
	assert_int_equal(k->n_totals, 1); /* one socket: the machine's */
	screen_total_value(&s, &rep, k->total0, &q);
	assert_true(fabs(q.value - 18) <= 1e-12);
	assert_true(fabs(q.lo - 16.5) <= 1e-12 && fabs(q.hi - 19.5) <= 1e-12);
	assert_int_equal(q.bound, PM_BOUND_MEASURED);
	k = kind(&s, "links"); /* MiB in 2 s, shown per second: 50 +- 5 and 30 */
	screen_total_value(&s, &rep, k->total0 + k->n_totals - 1, &q);
	assert_true(fabs(q.value - 80) <= 1e-12);
	assert_true(fabs(q.lo - 75) <= 1e-12 && fabs(q.hi - 85) <= 1e-12);
	/* an item with no interval: the total has none */
	rows[1].lo = rows[1].hi = NAN, rows[1].bound = PM_BOUND_UNMEASURED;
	k = kind(&s, "memory");
	screen_total_value(&s, &rep, k->total0, &q);
	assert_true(isnan(q.lo) && isnan(q.hi));
	assert_int_equal(q.bound, PM_BOUND_UNMEASURED);
	screen_free(&s);
	screen_info_free(in);
}

/* Attributed shares (docs/attribution.md): a block of their own, by cgroup or pod, labelled
 * by whose share it is, <unattributed> last; they add up (a total per socket and the
 * machine's), where rows of cgroups that may nest never do. */
static void test_attributed_blocks(void **state)
{
	struct pm_row rows[] = {
		ROW("DF_CH0_GBps", "GB/s", "amd_df", 0, -1, -1, 8, 0),
		ROW("DF_CH0_GBps", "GB/s", "amd_df", 1, -1, -1, 9, 0),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 0, -1, -1, 6, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 0, -1, -1, 2, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 1, -1, -1, 1, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 1, -1, -1, 7, PM_ROW_AMOUNT),
	};
	struct pm_report rep = { .n_rows = PM_ARRAY_SIZE(rows),
				 .rows = rows,
				 .duration_ns = 2000000000 };
	struct screen_info *in = epyc_info();
	struct screen s = { 0 };
	const struct screen_kind *k;
	struct pm_row q;

	for (size_t i = 2; i < 6; i++) {
		rows[i].flags |= PM_ROW_ATTRIBUTED | PM_ROW_APPROXIMATE;
		rows[i].cgroup = i % 2 ? PM_ATTRIB_UNATTRIBUTED :
					 "kubepods.slice/kubepods-pod1.slice";
		rows[i].pod_namespace = i % 2 ? NULL : "default";
		rows[i].pod = i % 2 ? NULL : "web-0";
		rows[i].lo = rows[i].hi = rows[i].value;
	}
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "memory");
	assert_int_equal(k->n_items, 2); /* the channels only */
	/* no proxy error declared: the block says its intervals exclude the proxies' bias */
	k = kind(&s, "DF_DRAM_BYTES_GB by pod (proxy bias excluded)");
	assert_int_equal(k->n_items, 4);
	assert_string_equal(k->unit, "GB/s");
	assert_string_equal(s.item[k->item0].label, "S0 default/web-0");
	assert_string_equal(s.item[k->item0 + 1].label, "S0 <unattributed>");
	assert_string_equal(s.item[k->item0 + 2].label, "S1 default/web-0");
	assert_string_equal(s.item[k->item0 + 3].label, "S1 <unattributed>");
	assert_int_equal(k->n_totals, 3); /* S0, S1, the machine */
	assert_string_equal(s.total[k->total0 + 2].label, "machine total");
	screen_total_value(&s, &rep, k->total0, &q); /* S0: 8 GB in 2 s */
	assert_true(fabs(q.value - 4) <= 1e-12);
	screen_total_value(&s, &rep, k->total0 + 2, &q);
	assert_true(fabs(q.value - 8) <= 1e-12);
	assert_true(q.flags & PM_ROW_APPROXIMATE);
	/* containers: their own block's name and label */
	rows[2].container = rows[4].container = "nginx";
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "DF_DRAM_BYTES_GB by container (proxy bias excluded)");
	assert_string_equal(s.item[k->item0].label, "S0 default/web-0/nginx");
	/* plain cgroups: the path */
	for (size_t i = 2; i < 6; i++)
		rows[i].pod = rows[i].pod_namespace = rows[i].container = NULL;
	rows[2].cgroup = rows[4].cgroup = "system.slice";
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "DF_DRAM_BYTES_GB by cgroup (proxy bias excluded)");
	assert_string_equal(s.item[k->item0].label, "S0 system.slice");
	/* declared: the block says at what */
	for (size_t i = 2; i < 6; i++) {
		rows[i].flags |= PM_ROW_PROXY_BIAS_INCLUDED;
		rows[i].proxy_error = 0.1;
	}
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "DF_DRAM_BYTES_GB by cgroup (\u00b110 % proxy error declared)");
	assert_int_equal(k->n_items, 4);
	/* a pack metric's long name and the longest "by": the title whole, not cut (67 bytes) */
	for (size_t i = 2; i < 6; i++) {
		rows[i].event = "ddr_write_bandwidth.all";
		rows[i].proxy_error = 0.125;
		rows[i].pod_namespace = "default";
		rows[i].pod = "web-0";
		rows[i].container = "nginx";
	}
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "ddr_write_bandwidth.all by container (\u00b112.5 % proxy error declared)");
	assert_int_equal(k->n_items, 4);
	screen_free(&s);
	screen_info_free(in);
}

/* An attributed block's total is the total its shares were cut from: its interval and
 * doubts are that total's rows' (added per socket as the plain block's), not the shares'
 * ends added, which move against each other; without those rows, no interval. */
static void test_attributed_total_interval(void **state)
{
	struct pm_row rows[] = {
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 0, -1, -1, 8,
		    PM_ROW_AMOUNT | PM_ROW_MULTIPLEXED),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 1, -1, -1, 8, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 0, -1, -1, 6, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 0, -1, -1, 2, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 1, -1, -1, 1, PM_ROW_AMOUNT),
		ROW("DF_DRAM_BYTES_GB", "GB", NULL, 1, -1, -1, 7, PM_ROW_AMOUNT),
	};
	struct pm_report rep = { .n_rows = PM_ARRAY_SIZE(rows),
				 .rows = rows,
				 .duration_ns = 2000000000 };
	struct screen_info *in = epyc_info();
	struct screen s = { 0 };
	const struct screen_kind *k;
	struct pm_row q;

	rows[0].lo = 7, rows[0].hi = 9, rows[0].bound = PM_BOUND_MEASURED;
	rows[1].lo = rows[1].hi = 8; /* exact */
	for (size_t i = 2; i < 6; i++) {
		rows[i].flags |= PM_ROW_ATTRIBUTED | PM_ROW_APPROXIMATE;
		rows[i].cgroup = i % 2 ? PM_ATTRIB_UNATTRIBUTED : "system.slice";
		rows[i].lo = rows[i].value * 0.5, rows[i].hi = rows[i].value * 1.5;
		rows[i].bound = PM_BOUND_MEASURED;
	}
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "DF_DRAM_BYTES_GB by cgroup (proxy bias excluded)");
	assert_int_equal(k->n_items, 4);
	assert_int_equal(k->n_totals, 3);	     /* S0, S1, the machine */
	screen_total_value(&s, &rep, k->total0, &q); /* S0: 8 GB in 2 s, 7..9 GB counted */
	assert_true(fabs(q.value - 4) <= 1e-12);
	assert_true(fabs(q.lo - 3.5) <= 1e-12 && fabs(q.hi - 4.5) <= 1e-12);
	assert_int_equal(q.bound, PM_BOUND_MEASURED);
	assert_true(q.flags & PM_ROW_MULTIPLEXED);
	assert_false(q.flags & PM_ROW_APPROXIMATE); /* the total is measured, not apportioned */
	screen_total_value(&s, &rep, k->total0 + 1, &q); /* S1: exact */
	assert_true(fabs(q.value - 4) <= 1e-12);
	assert_true(fabs(q.lo - 4) <= 1e-12 && fabs(q.hi - 4) <= 1e-12);
	assert_int_equal(q.bound, PM_BOUND_EXACT);
	assert_false(q.flags & (PM_ROW_APPROXIMATE | PM_ROW_MULTIPLEXED));
	screen_total_value(&s, &rep, k->total0 + 2, &q); /* the machine: both sockets' */
	assert_true(fabs(q.value - 8) <= 1e-12);
	assert_true(fabs(q.lo - 7.5) <= 1e-12 && fabs(q.hi - 8.5) <= 1e-12);
	assert_false(q.flags & PM_ROW_PARTIAL);
	/* S1 not counted (its total, so its shares): the machine's total is S0's alone, and
	 * says so (partial), with S0's interval, not NaN's */
	rows[1].value = rows[1].lo = rows[1].hi = NAN;
	rows[1].flags |= PM_ROW_NOT_COUNTED, rows[1].bound = PM_BOUND_NO_VALUE;
	for (size_t i = 4; i < 6; i++) {
		rows[i].value = rows[i].lo = rows[i].hi = NAN;
		rows[i].flags |= PM_ROW_NOT_COUNTED, rows[i].bound = PM_BOUND_NO_VALUE;
	}
	screen_total_value(&s, &rep, k->total0 + 2, &q);
	assert_true(fabs(q.value - 4) <= 1e-12);
	assert_true(q.flags & PM_ROW_PARTIAL);
	assert_true(fabs(q.lo - 3.5) <= 1e-12 && fabs(q.hi - 4.5) <= 1e-12);
	assert_int_equal(q.bound, PM_BOUND_MEASURED);
	rows[1].value = rows[1].lo = rows[1].hi = 8;
	rows[1].flags &= ~PM_ROW_NOT_COUNTED, rows[1].bound = PM_BOUND_EXACT;
	for (size_t i = 4; i < 6; i++) {
		rows[i].value = i == 4 ? 1 : 7;
		rows[i].lo = rows[i].value * 0.5, rows[i].hi = rows[i].value * 1.5;
		rows[i].flags &= ~PM_ROW_NOT_COUNTED, rows[i].bound = PM_BOUND_MEASURED;
	}
	/* without the total's own rows nothing says where it is */
	rep.rows = rows + 2, rep.n_rows = 4;
	assert_int_equal(screen_build(&s, &rep, in, SCREEN_METRICS), 0);
	k = kind(&s, "DF_DRAM_BYTES_GB by cgroup (proxy bias excluded)");
	screen_total_value(&s, &rep, k->total0 + 2, &q);
	assert_true(fabs(q.value - 8) <= 1e-12);
	assert_true(isnan(q.lo) && isnan(q.hi));
	assert_int_equal(q.bound, PM_BOUND_UNMEASURED);
	assert_true(q.flags & PM_ROW_APPROXIMATE);
	screen_free(&s);
	screen_info_free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_labels_and_totals),
		cmocka_unit_test(test_dies_one_socket),
		cmocka_unit_test(test_devices_and_cgroups),
		cmocka_unit_test(test_total_interval),
		cmocka_unit_test(test_attributed_blocks),
		cmocka_unit_test(test_attributed_total_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
