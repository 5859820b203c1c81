// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated BlueField-2 and BlueField-3 (sim/platform/bluefield.c)
 * through the os seam, as pmumon's hwmon source sees them: discovery of the
 * bfperf device, event_list text and its PAGE_SIZE truncation, the write
 * semantics and error codes of mlxbf-pmc (kernel-facts §2.4-§2.7), the
 * l3cache enable protocol, CRSPACE counters and their 32-bit wrap, register
 * blocks, a non-root user and a block that vanishes. Expected counts come
 * from the scenario's integrals (pm_sim__truth): what is checked here is the
 * driver model's mapping of events to quantities and its register
 * semantics; the integrator itself is checked with hand-computed numbers in
 * test-platform.c.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

#define SEC 1000000000ull
#define H "sys/class/hwmon/hwmon1/"

/* ---- file helpers over the os seam --------------------------------------------------- */

static const struct pm_os_ops *ops(void)
{
	return pm_sim__ops();
}

/* Write text to path; the write's result (or the open's error). */
static ssize_t wr(struct pm_sim *sim, const char *path, const char *text)
{
	int fd = ops()->open(sim, path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = ops()->write(sim, fd, text, strlen(text));
	ops()->close(sim, fd);
	return n;
}

static void wr_ok(struct pm_sim *sim, const char *path, const char *text)
{
	ssize_t n = wr(sim, path, text);

	if (n != (ssize_t)strlen(text))
		fail_msg("write '%s' to %s: %zd", text, path, n);
}

/* counterN and register files: "0x%llx\n" */
static uint64_t rd_hex(struct pm_sim *sim, const char *path)
{
	const char *s = th_sim_text(sim, path);
	char *end;
	uint64_t v;

	if (strncmp(s, "0x", 2) != 0)
		fail_msg("%s: '%s' is not 0x...", path, s);
	v = strtoull(s + 2, &end, 16);
	assert_string_equal(end, "\n");
	return v;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The count a counter shows for a scenario integral: floor, as the model. */
static uint64_t count_of(double integral)
{
	return (uint64_t)floor(integral + 1e-9);
}

static uint64_t truth(struct pm_sim *sim, const char *key, int inst, uint64_t t)
{
	double v;

	assert_int_equal(pm_sim__truth(sim, key, inst, t, &v), 0);
	return count_of(v);
}

struct names {
	char s[64][32];
	size_t n;
};

static int collect(const char *name, bool is_dir, void *ud)
{
	struct names *l = ud;

	if (l->n < PM_ARRAY_SIZE(l->s))
		snprintf(l->s[l->n++], sizeof(l->s[0]), "%s%s", name, is_dir ? "/" : "");
	return 0;
}

static bool has(const struct names *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->s[i], name))
			return true;
	return false;
}

static struct names list(struct pm_sim *sim, const char *dir)
{
	struct names l = { .n = 0 };

	assert_int_equal(ops()->list_dir(sim, dir, collect, &l), 0);
	return l;
}

/* ---- discovery ----------------------------------------------------------------------- */

static void test_discovery_bf2(void **state)
{
	static const char *const blocks[] = {
		"tile0/",	 "tile1/",    "tile2/",	   "tile3/", "tilenet0/",
		"tilenet1/",	 "tilenet2/", "tilenet3/", "trio0/", "trio1/",
		"triogen0/",	 "triogen1/", "pcie0/",	   "pcie1/", "l3cachehalf0/",
		"l3cachehalf1/", "gic0/",     "smmu0/",	   "ecc/",
	};
	struct pm_sim *sim = th_sim_platform("bluefield2");
	struct names hw = list(sim, "sys/class/hwmon"), l;
	char path[128], found[64] = "";

	/* the bfperf device is found by its name, not its number */
	for (size_t i = 0; i < hw.n; i++) {
		snprintf(path, sizeof(path), "sys/class/hwmon/%.*s/name", (int)strlen(hw.s[i]) - 1,
			 hw.s[i]);
		if (!strcmp(th_sim_text(sim, path), "bfperf\n"))
			snprintf(found, sizeof(found), "%s", hw.s[i]);
	}
	assert_string_equal(found, "hwmon1/");
	assert_string_equal(th_sim_text(sim, "sys/class/hwmon/hwmon0/name"), "acpitz\n");
	assert_string_equal(th_sim_text(sim, H "device/modalias"), "acpi:MLNXBFD1:\n");

	/* seed 003's BF-2 listing: ACPI's tile4-7 are beyond tile_num */
	l = list(sim, H);
	for (size_t i = 0; i < PM_ARRAY_SIZE(blocks); i++)
		if (!has(&l, blocks[i]))
			fail_msg("no block %s", blocks[i]);
	assert_true(has(&l, "name") && has(&l, "power/") && has(&l, "device/"));
	assert_false(has(&l, "tile4/") || has(&l, "tilenet7/") || has(&l, "mss0/"));
	assert_int_equal(l.n, PM_ARRAY_SIZE(blocks) + 4); /* + name uevent power device */

	/* files per block (kernel-facts §2.3) */
	l = list(sim, H "tile0");
	assert_int_equal(l.n, 9);
	assert_true(has(&l, "event_list") && has(&l, "event3") && has(&l, "counter3"));
	assert_false(has(&l, "enable") || has(&l, "counter4"));
	l = list(sim, H "l3cachehalf1");
	assert_int_equal(l.n, 12);
	assert_true(has(&l, "enable") && has(&l, "counter4") && has(&l, "event4"));
	assert_int_equal(list(sim, H "triogen0").n, 3);
	assert_int_equal(list(sim, H "trio1").n, 9);
	l = list(sim, H "pcie0");
	assert_int_equal(l.n, 12);
	assert_true(has(&l, "IN_P_PKT_CNT") && has(&l, "OUT_C_BYTE_CNT"));
	l = list(sim, H "ecc");
	assert_int_equal(l.n, 10);
	assert_true(has(&l, "DISABLE") && has(&l, "ECC_SINGLE_ERROR_CNT"));

	/* the CPUs: 8 A72 */
	assert_string_equal(th_sim_text(sim, "sys/devices/system/cpu/online"), "0-7\n");
	assert_non_null(strstr(th_sim_text(sim, "proc/cpuinfo"), "CPU implementer\t: 0x41\n"));
	pm_sim__free(sim);
}

static void test_event_list(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	const char *s = th_sim_text(sim, H "tile0/event_list");
	unsigned code, n = 0, last = 0;
	char name[64];

	assert_true(strncmp(s, "0x0: DISABLE\n0x45: HNF_REQUESTS\n0x46: HNF_REJECTS\n", 50) == 0);
	assert_non_null(strstr(s, "\n0x4c: MEMORY_READS\n"));
	assert_non_null(strstr(s, "\n0x72: A72_READ\n")); /* not the doc's A72_Read */
	for (const char *p = s; *p; p = strchr(p, '\n') + 1) {
		assert_int_equal(sscanf(p, "0x%x: %63[A-Z0-9_]\n", &code, name), 2);
		last = code;
		n++;
	}
	assert_int_equal(n, 56);
	assert_int_equal(last, 0x85);

	/* the other BF-2 tables: entries and last code */
	static const struct {
		const char *block, *last;
		unsigned n;
	} tabs[] = {
		{ "tilenet2", "0x44: NDN_DIAG_CORE_SENT\n", 52 },
		{ "trio0", "0xbc: TRIO_RING_RX_FLIT_CH3\n", 30 },
		{ "triogen1", "0x11: RETRYQ_CRED\n", 17 },
		{ "smmu0", "0x11: RETRYQ_CRED\n", 17 },
		{ "l3cachehalf0", "0x2b: ANY_REJECT_BANK1\n", 44 },
	};
	for (size_t i = 0; i < PM_ARRAY_SIZE(tabs); i++) {
		char path[128];
		size_t lines = 0;

		snprintf(path, sizeof(path), H "%s/event_list", tabs[i].block);
		s = th_sim_text(sim, path);
		for (const char *p = s; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, tabs[i].n);
		assert_true(ends_with(s, tabs[i].last));
	}
	/* reads honour the offset: past the end is EOF */
	{
		char buf[16];
		int fd = ops()->open(sim, H "tile0/event_list", O_RDONLY);

		assert_int_equal(ops()->pread(sim, fd, buf, 4, 5), 4);
		assert_memory_equal(buf, "DISA", 4);
		assert_int_equal(ops()->pread(sim, fd, buf, 4, 1 << 20), 0);
		ops()->close(sim, fd);
	}
	pm_sim__free(sim);
}

/* ---- COUNTER blocks ------------------------------------------------------------------ */

static void test_program_and_count(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	uint64_t v;

	/* after boot: event register 0 (DISABLE), not counting */
	assert_string_equal(th_sim_text(sim, H "tile0/event0"), "0x0: DISABLE\n");
	assert_string_equal(th_sim_text(sim, H "tile0/counter0"), "0x0\n");

	/* programmed at scenario time 0, read after 2 s: the truth itself */
	wr_ok(sim, H "tile0/event0", "0x4c\n");
	assert_string_equal(th_sim_text(sim, H "tile0/event0"), "0x4c: MEMORY_READS\n");
	pm_sim__advance(sim, 2 * SEC);
	v = rd_hex(sim, H "tile0/counter0");
	assert_true(v > 0);
	assert_true(v == truth(sim, "tile.mem_reads", 0, 2 * SEC));
	/* a never-programmed counter stayed at 0 */
	assert_string_equal(th_sim_text(sim, H "tile0/counter1"), "0x0\n");

	/* by name, with or without echo's newline; programming restarts at 0 */
	wr_ok(sim, H "tile2/event1", "HNF_REQUESTS\n");
	assert_string_equal(th_sim_text(sim, H "tile2/event1"), "0x45: HNF_REQUESTS\n");
	assert_string_equal(th_sim_text(sim, H "tile2/counter1"), "0x0\n");
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "tile2/counter1") ==
		    truth(sim, "tile.requests", 2, 3 * SEC) -
			    truth(sim, "tile.requests", 2, 2 * SEC));
	wr_ok(sim, H "tile2/event2", "A72_READ");
	wr_ok(sim, H "tile2/event3", "116"); /* decimal 0x74 */
	assert_string_equal(th_sim_text(sim, H "tile2/event3"), "0x74: IO_READ\n");
	wr_ok(sim, H "tile2/event3", "+0x5d\n");
	assert_string_equal(th_sim_text(sim, H "tile2/event3"), "0x5d: A72_ACCESS\n");

	/* A72_ACCESS counts reads plus writes */
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "tile2/counter3") ==
		    truth(sim, "tile.a72_reads", 2, 4 * SEC) -
			    truth(sim, "tile.a72_reads", 2, 3 * SEC) +
			    truth(sim, "tile.a72_writes", 2, 4 * SEC) -
			    truth(sim, "tile.a72_writes", 2, 3 * SEC));

	/* counterN takes only 0, which re-programs the same event: back to 0 */
	assert_int_equal(wr(sim, H "tile0/counter0", "1\n"), -EINVAL);
	assert_int_equal(wr(sim, H "tile0/counter0", "zero"), -EINVAL);
	assert_true(rd_hex(sim, H "tile0/counter0") == truth(sim, "tile.mem_reads", 0, 4 * SEC));
	wr_ok(sim, H "tile0/counter0", "0\n");
	assert_string_equal(th_sim_text(sim, H "tile0/counter0"), "0x0\n");
	assert_string_equal(th_sim_text(sim, H "tile0/event0"), "0x4c: MEMORY_READS\n");
	pm_sim__advance(sim, SEC / 2);
	assert_true(rd_hex(sim, H "tile0/counter0") ==
		    truth(sim, "tile.mem_reads", 0, 4 * SEC + SEC / 2) -
			    truth(sim, "tile.mem_reads", 0, 4 * SEC));

	/* trio: TDMA_DATA_BEAT per trio */
	wr_ok(sim, H "trio1/event0", "TDMA_DATA_BEAT\n");
	pm_sim__advance(sim, SEC);
	v = rd_hex(sim, H "trio1/counter0");
	assert_true(v == truth(sim, "trio.dma_beats", 1, 5 * SEC + SEC / 2) -
				 truth(sim, "trio.dma_beats", 1, 4 * SEC + SEC / 2));

	/* SMGEN's code 0 is AW_REQ, not DISABLE */
	assert_string_equal(th_sim_text(sim, H "gic0/event0"), "0x0: AW_REQ\n");
	wr_ok(sim, H "gic0/event0", "TBU_MISS\n");
	assert_string_equal(th_sim_text(sim, H "gic0/event0"), "0xe: TBU_MISS\n");
	pm_sim__free(sim);
}

static void test_write_errors(void **state)
{
	static const struct {
		const char *text;
		int err;
	} bad[] = {
		{ "0xff\n", -EINVAL },	   /* the doc's "stop": not in the table (§2.8) */
		{ "0x7f", -EINVAL },	   /* between 0x75 and 0x80 */
		{ "A72_Read\n", -EINVAL }, /* the doc's spelling; names are case-sensitive */
		{ "memory_reads", -EINVAL },
		{ "MEMORY_READS \n", -EINVAL }, /* only the newline is stripped */
		{ "MEMORY_READS\n\n", -EINVAL },
		{ "0x4c junk", -EINVAL },
		{ " 0x4c", -EINVAL },
		{ "-1", -EINVAL },
		{ "0x", -EINVAL },
		{ "\n", -EINVAL },
		{ "4294967296", -ERANGE }, /* kstrtouint */
		{ "99999999999999999999999", -ERANGE },
	};
	struct pm_sim *sim = th_sim_platform("bluefield2");

	wr_ok(sim, H "tile1/event0", "0x4d");
	for (size_t i = 0; i < PM_ARRAY_SIZE(bad); i++) {
		ssize_t r = wr(sim, H "tile1/event0", bad[i].text);

		if (r != bad[i].err)
			fail_msg("'%s': %zd, expected %d", bad[i].text, r, bad[i].err);
	}
	/* nothing changed */
	assert_string_equal(th_sim_text(sim, H "tile1/event0"), "0x4d: MEMORY_WRITES\n");
	/* a tile code means nothing to a tilenet or l3cache block */
	assert_int_equal(wr(sim, H "tilenet1/event0", "0x4c"), -EINVAL);
	assert_int_equal(wr(sim, H "l3cachehalf0/event0", "MEMORY_READS"), -EINVAL);
	wr_ok(sim, H "tilenet1/event0", "DDN_DIAG_CORE_SENT\n");
	assert_string_equal(th_sim_text(sim, H "tilenet1/event0"), "0x34: DDN_DIAG_CORE_SENT\n");
	/* event_list is 0444: no write open even for root */
	assert_int_equal(wr(sim, H "tile1/event_list", "0"), -EACCES);
	/* files beyond the block's counters do not exist */
	assert_int_equal(ops()->open(sim, H "tile1/event4", O_WRONLY), -ENOENT);
	assert_int_equal(ops()->open(sim, H "gic0/counter1", O_RDONLY), -ENOENT);
	pm_sim__free(sim);
}

/* ---- l3cache ------------------------------------------------------------------------- */

static void test_l3cache(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	uint64_t hits, misses, cdn, cyc, t;

	assert_string_equal(th_sim_text(sim, H "l3cachehalf1/enable"), "0\n");
	assert_string_equal(th_sim_text(sim, H "l3cachehalf1/event4"), "0x0: DISABLE\n");
	wr_ok(sim, H "l3cachehalf1/event0", "HITS_BANK1\n");
	wr_ok(sim, H "l3cachehalf1/event1", "0x1a\n"); /* MISSES_BANK1 */
	wr_ok(sim, H "l3cachehalf1/event2", "TOTAL_CDN_REQ_IN_BANK1");
	wr_ok(sim, H "l3cachehalf1/event3", "CYCLES");
	wr_ok(sim, H "l3cachehalf1/event4", "TOTAL_RD_REQ_OUT");

	/* programmed but not enabled: nothing counts */
	pm_sim__advance(sim, SEC);
	for (int i = 0; i < 5; i++) {
		char path[64];

		snprintf(path, sizeof(path), H "l3cachehalf1/counter%d", i);
		assert_string_equal(th_sim_text(sim, path), "0x0\n");
	}

	/* enable=1 at 1 s, enable=0 at 3 s: a stopped read is exact */
	wr_ok(sim, H "l3cachehalf1/enable", "1\n");
	assert_string_equal(th_sim_text(sim, H "l3cachehalf1/enable"), "1\n");
	pm_sim__advance(sim, 2 * SEC);
	wr_ok(sim, H "l3cachehalf1/enable", "0\n");
	pm_sim__advance(sim, SEC);
	hits = rd_hex(sim, H "l3cachehalf1/counter0");
	misses = rd_hex(sim, H "l3cachehalf1/counter1");
	cdn = rd_hex(sim, H "l3cachehalf1/counter2");
	cyc = rd_hex(sim, H "l3cachehalf1/counter3");
	assert_true(hits > 0 && misses > 0);
	assert_true(hits + misses == cdn);			       /* floor-consistent */
	assert_true(rd_hex(sim, H "l3cachehalf1/counter4") >= misses); /* both banks' misses */
	assert_true(cyc == 2000000000ull);			       /* l3.clock 1 GHz, 2 s */
	/* half 1, bank 1 is scenario instance 3; the hit ratio is 0.6 */
	t = truth(sim, "l3.access", 3, 3 * SEC) - truth(sim, "l3.access", 3, SEC);
	assert_true(cdn >= t - 1 && cdn <= t + 1);
	/* hits: the integral of accesses x hit ratio, counted from enable */
	{
		double h1, h3;

		assert_int_equal(pm_sim__truth2(sim, "l3.access", 3, "l3.hit_ratio", 3, SEC, &h1),
				 0);
		assert_int_equal(pm_sim__truth2(sim, "l3.access", 3, "l3.hit_ratio", 3, 3 * SEC,
						&h3),
				 0);
		assert_int_equal(hits, count_of(h3) - count_of(h1));
	}
	/* frozen */
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "l3cachehalf1/counter0") == hits);

	/* counters take no writes at all; enable is kstrtobool */
	assert_int_equal(wr(sim, H "l3cachehalf1/counter0", "0"), -EINVAL);
	assert_int_equal(wr(sim, H "l3cachehalf1/counter0", "1"), -EINVAL);
	assert_int_equal(wr(sim, H "l3cachehalf1/enable", "2"), -EINVAL);
	assert_int_equal(wr(sim, H "l3cachehalf1/enable", "x"), -EINVAL);
	assert_string_equal(th_sim_text(sim, H "l3cachehalf1/enable"), "0\n");

	/* enable=1 resets every counter to 0 and starts them */
	wr_ok(sim, H "l3cachehalf1/enable", "on");
	assert_string_equal(th_sim_text(sim, H "l3cachehalf1/counter0"), "0x0\n");
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "l3cachehalf1/counter3") == 1000000000ull);

	/* programming one counter stops all of them, values kept */
	wr_ok(sim, H "l3cachehalf1/event4", "DISABLE");
	assert_string_equal(th_sim_text(sim, H "l3cachehalf1/enable"), "0\n");
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "l3cachehalf1/counter3") == 1000000000ull);
	/* the other half is independent */
	assert_string_equal(th_sim_text(sim, H "l3cachehalf0/event0"), "0x0: DISABLE\n");
	pm_sim__free(sim);
}

/* LOW then HIGH: a running counter read just before its low word carries
 * comes back 2^32 too high; the same counter stopped reads exactly. */
static void test_l3cache_torn_read(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2");
	const uint64_t t = (1ull << 32) - 500; /* CYCLES at 1 GHz: the count in ns */
	uint64_t exact, torn;

	wr_ok(sim, H "l3cachehalf0/event0", "CYCLES");
	wr_ok(sim, H "l3cachehalf0/enable", "1"); /* scenario time 0 */
	pm_sim__advance(sim, t);
	exact = truth(sim, "l3.clock", 0, t);
	torn = rd_hex(sim, H "l3cachehalf0/counter0");
	assert_true(exact < (1ull << 32));
	assert_true(torn ==
		    ((exact & 0xffffffffull) | (truth(sim, "l3.clock", 0, t + 1000) >> 32) << 32));
	assert_true(torn - exact == 1ull << 32);
	wr_ok(sim, H "l3cachehalf0/enable", "0");
	assert_true(rd_hex(sim, H "l3cachehalf0/counter0") == exact);

	/* away from a carry a running read is exact */
	wr_ok(sim, H "l3cachehalf0/enable", "1");
	pm_sim__advance(sim, 10 * SEC);
	assert_true(rd_hex(sim, H "l3cachehalf0/counter0") ==
		    truth(sim, "l3.clock", 0, t + 10 * SEC) - truth(sim, "l3.clock", 0, t));
	pm_sim__free(sim);
}

/* ---- register blocks ----------------------------------------------------------------- */

static void test_registers(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2", "ecc.single 10\n");
	uint64_t a, b;

	/* pcie statistics count from boot: take differences */
	a = rd_hex(sim, H "pcie1/IN_P_BYTE_CNT");
	pm_sim__advance(sim, 2 * SEC);
	b = rd_hex(sim, H "pcie1/IN_P_BYTE_CNT");
	assert_true(b - a == truth(sim, "pcie.in_p_bytes", 1, 2 * SEC));
	assert_true(b - a > 3000000000ull);
	/* only 0 may be written (the driver's generic rule); it clears */
	assert_int_equal(wr(sim, H "pcie1/IN_P_BYTE_CNT", "5"), -EINVAL);
	wr_ok(sim, H "pcie1/IN_P_BYTE_CNT", "0\n");
	assert_string_equal(th_sim_text(sim, H "pcie1/IN_P_BYTE_CNT"), "0x0\n");
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "pcie1/IN_P_BYTE_CNT") ==
		    truth(sim, "pcie.in_p_bytes", 1, 3 * SEC) -
			    truth(sim, "pcie.in_p_bytes", 1, 2 * SEC));

	/* ecc: 32-bit registers that take any value */
	assert_true(rd_hex(sim, H "ecc/ECC_SINGLE_ERROR_CNT") == 30);
	assert_string_equal(th_sim_text(sim, H "ecc/ECC_DOUBLE_ERROR_CNT"), "0x0\n");
	wr_ok(sim, H "ecc/ECC_SINGLE_ERROR_CNT", "0x7\n");
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "ecc/ECC_SINGLE_ERROR_CNT") == 17);
	wr_ok(sim, H "ecc/SERR_INJ", "4294967295");
	assert_string_equal(th_sim_text(sim, H "ecc/SERR_INJ"), "0xffffffff\n");
	assert_string_equal(th_sim_text(sim, H "ecc/DISABLE"), "0x0\n");
	assert_int_equal(wr(sim, H "ecc/SERR_INJ", "4294967296"), -ERANGE);
	pm_sim__free(sim);
}

/* ---- BlueField-3 --------------------------------------------------------------------- */

static void test_bf3_layout(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield3");
	struct names l = list(sim, H);
	const char *s;
	size_t len;

	assert_string_equal(th_sim_text(sim, H "name"), "bfperf\n");
	assert_string_equal(th_sim_text(sim, H "device/modalias"), "acpi:MLNXBFD2:\n");
	assert_string_equal(th_sim_text(sim, "sys/devices/system/cpu/online"), "0-15\n");
	assert_true(has(&l, "llt0/") && has(&l, "llt7/") && has(&l, "llt_miss7/") &&
		    has(&l, "mss1/") && has(&l, "clock_measure/"));
	assert_false(has(&l, "tile0/") || has(&l, "l3cachehalf0/") || has(&l, "trio0/"));
	l = list(sim, H "llt_miss3");
	assert_int_equal(l.n, 3 + 2 * 8);
	assert_true(has(&l, "enable") && has(&l, "count_clock") && has(&l, "event7"));
	assert_int_equal(list(sim, H "clock_measure").n, 28);

	/* event_list stops before the running length reaches PAGE_SIZE (§2.4) */
	s = th_sim_text(sim, H "mss0/event_list");
	len = strlen(s);
	assert_true(len < 4096 && len + strlen("0x88: SKYLIB_CR_RESP_RX_STALL\n") >= 4096);
	assert_true(ends_with(s, "\n0x87: SKYLIB_CR_REQ_RX_STALL\n"));
	s = th_sim_text(sim, H "llt5/event_list");
	len = strlen(s);
	assert_true(len < 4096 && len + strlen("0xa2: HISTOGRAM_HISTOGRAM_BIN0\n") >= 4096);
	assert_true(ends_with(s, "\n0xa1: GDC_BANK1_G_FIFO_FF_GGA_RSP_WR3\n"));
	s = th_sim_text(sim, H "llt_miss0/event_list");
	assert_true(ends_with(s, "\n0x4b: HISTOGRAM_HISTOGRAM_BIN9\n"));

	/* the codes event_list cuts off are still programmable */
	wr_ok(sim, H "mss0/event3", "HISTOGRAM_HISTOGRAM_BIN9\n");
	assert_string_equal(th_sim_text(sim, H "mss0/event3"), "0x9a: HISTOGRAM_HISTOGRAM_BIN9\n");
	wr_ok(sim, H "llt0/event1", "104");
	assert_string_equal(th_sim_text(sim, H "llt0/event1"),
			    "0x68: GDC_BANK0_G_RSE_PIPE_CACHE_DATA1\n");
	wr_ok(sim, H "llt_miss0/event0", "GDC_MISS_MACHINE_G_FIFO_FF_EXEC0_1\n");
	assert_int_equal(wr(sim, H "llt0/event0", "172"), -EINVAL);
	assert_int_equal(wr(sim, H "mss0/event0", "0x9b"), -EINVAL);

	/* clock_measure: read-only 32-bit registers */
	assert_true(rd_hex(sim, H "clock_measure/REFERENCE_WINDOW_WIDTH_REF_156") > 0);
	assert_int_equal(wr(sim, H "clock_measure/FMON_CLK_LAST_COUNT_PLL_A0", "0"), -EINVAL);
	pm_sim__free(sim);
}

static void test_crspace(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield3");
	uint64_t v, w;

	/* after boot: select fields 0, control word 0 */
	assert_string_equal(th_sim_text(sim, H "llt2/event0"), "0x0: HNF0_CYCLES\n");
	assert_string_equal(th_sim_text(sim, H "llt2/event1"), "0x0: HNF0_CYCLES\n");
	assert_string_equal(th_sim_text(sim, H "llt2/enable"), "0\n");
	assert_string_equal(th_sim_text(sim, H "llt2/count_clock"), "0\n");
	wr_ok(sim, H "llt2/event0", "HNF0_MEM_READS\n");
	wr_ok(sim, H "llt2/event1", "0x35\n"); /* HNF1_MEM_READS */
	pm_sim__advance(sim, SEC);
	assert_string_equal(th_sim_text(sim, H "llt2/counter0"), "0x0\n");

	/* enable sets EN and CLR: counting from 0 */
	wr_ok(sim, H "llt2/enable", "1");
	pm_sim__advance(sim, SEC);
	v = rd_hex(sim, H "llt2/counter0");
	assert_true(v > 0 && v < (1ull << 32));
	assert_true(rd_hex(sim, H "llt2/counter1") == v); /* HNF0 and HNF1 share evenly */
	/* llt.mem_reads is split over HNF0 and HNF1 */
	w = truth(sim, "llt.mem_reads", 2, 2 * SEC) - truth(sim, "llt.mem_reads", 2, SEC);
	assert_true(2 * v >= w - 2 && 2 * v <= w + 2);

	/* a new event keeps the value and counts on */
	wr_ok(sim, H "llt2/event0", "HNF0_CYCLES");
	pm_sim__advance(sim, SEC / 10);
	assert_true(rd_hex(sim, H "llt2/counter0") == v + 150000000ull); /* llt.clock 1.5 GHz */

	/* counterN: 0 clears that counter only; anything else is refused */
	assert_int_equal(wr(sim, H "llt2/counter0", "5"), -EINVAL);
	wr_ok(sim, H "llt2/counter0", "0");
	assert_string_equal(th_sim_text(sim, H "llt2/counter0"), "0x0\n");
	assert_true(rd_hex(sim, H "llt2/counter1") > 0);

	/* count_clock: bit i makes counter i count clock cycles */
	wr_ok(sim, H "llt2/count_clock", "0x2\n");
	assert_string_equal(th_sim_text(sim, H "llt2/count_clock"), "2\n");
	w = rd_hex(sim, H "llt2/counter1");
	pm_sim__advance(sim, SEC / 10);
	assert_true(rd_hex(sim, H "llt2/counter1") == w + 150000000ull);
	assert_int_equal(wr(sim, H "llt2/count_clock", "-1"), -EINVAL);

	/* enable=0 freezes; enable=1 clears again */
	wr_ok(sim, H "llt2/enable", "0\n");
	w = rd_hex(sim, H "llt2/counter1");
	pm_sim__advance(sim, SEC);
	assert_true(rd_hex(sim, H "llt2/counter1") == w);
	assert_int_equal(wr(sim, H "llt2/enable", "3"), -EINVAL);
	wr_ok(sim, H "llt2/enable", "Y");
	assert_string_equal(th_sim_text(sim, H "llt2/counter1"), "0x0\n");

	/* llt_miss RD_REQ counts the GDC misses of both banks */
	wr_ok(sim, H "llt4/event0", "GDC_BANK0_MISS");
	wr_ok(sim, H "llt4/event1", "GDC_BANK1_MISS");
	wr_ok(sim, H "llt4/event2", "GDC_BANK0_HIT");
	wr_ok(sim, H "llt_miss4/event5", "GDC_MISS_MACHINE_RD_REQ");
	wr_ok(sim, H "llt4/enable", "1");
	wr_ok(sim, H "llt_miss4/enable", "1");
	pm_sim__advance(sim, SEC);
	v = rd_hex(sim, H "llt4/counter0");
	assert_true(v + rd_hex(sim, H "llt4/counter1") == rd_hex(sim, H "llt_miss4/counter5"));
	w = rd_hex(sim, H "llt4/counter2");
	th_assert_near((double)w / (double)(w + v), 0.7, 1e-6);
	pm_sim__free(sim);
}

static void test_crspace_wrap(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield3",
						  "llt.clock 4G\nmss.ddn_tx_flits[1] 3G\n");
	uint64_t t = 3 * SEC + 123456789;

	wr_ok(sim, H "llt0/enable", "1"); /* event0 is HNF0_CYCLES after boot */
	wr_ok(sim, H "mss1/event2", "SKYLIB_DDN_TX_FLITS\n");
	wr_ok(sim, H "mss1/enable", "1");
	pm_sim__advance(sim, t);
	assert_true(truth(sim, "llt.clock", 0, t) > 2 * (1ull << 32));
	assert_true(rd_hex(sim, H "llt0/counter0") ==
		    (truth(sim, "llt.clock", 0, t) & 0xffffffffull));
	assert_true(rd_hex(sim, H "mss1/counter2") ==
		    (truth(sim, "mss.ddn_tx_flits", 1, t) & 0xffffffffull));
	pm_sim__free(sim);
}

/* ---- users and faults ---------------------------------------------------------------- */

static void test_nonroot(void **state)
{
	struct pm_sim *sim = th_sim_platform("bluefield2:user=nobody");

	/* 0644 root: everyone reads, only root writes */
	assert_string_equal(th_sim_text(sim, H "tile0/event0"), "0x0: DISABLE\n");
	assert_int_equal(wr(sim, H "tile0/event0", "0x4c"), -EACCES);
	assert_int_equal(ops()->open(sim, H "tile0/counter0", O_RDWR), -EACCES);
	assert_int_equal(wr(sim, H "l3cachehalf0/enable", "1"), -EACCES);
	assert_int_equal(wr(sim, H "ecc/SERR_INJ", "1"), -EACCES);
	assert_string_equal(th_sim_text(sim, H "tile0/event0"), "0x0: DISABLE\n");
	assert_non_null(strstr(th_sim_text(sim, H "tile0/event_list"), "0x4c: MEMORY_READS\n"));
	pm_sim__free(sim);

	sim = th_sim_platform("bluefield3:user=nobody");
	assert_int_equal(wr(sim, H "llt0/count_clock", "1"), -EACCES);
	pm_sim__free(sim);
}

static void test_vanish(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2", "at 2s vanish " H "trio0\n");
	char buf[64];
	int fd;

	wr_ok(sim, H "tile3/event0", "MEMORY_WRITES");
	fd = ops()->open(sim, H "tile3/counter0", O_RDONLY);
	assert_true(fd >= 0);
	assert_true(ops()->pread(sim, fd, buf, sizeof(buf), 0) > 0);
	assert_int_equal(pm_sim__remove(sim, H "tile3"), 0);
	assert_int_equal(ops()->pread(sim, fd, buf, sizeof(buf), 0), -ENODEV);
	assert_int_equal(ops()->close(sim, fd), 0);
	assert_int_equal(ops()->open(sim, H "tile3/counter0", O_RDONLY), -ENOENT);

	/* a scheduled fault does the same */
	fd = ops()->open(sim, H "trio0/counter0", O_RDONLY);
	assert_true(fd >= 0);
	pm_sim__advance(sim, 3 * SEC);
	assert_int_equal(ops()->pread(sim, fd, buf, sizeof(buf), 0), -ENODEV);
	ops()->close(sim, fd);
	pm_sim__free(sim);
}

/*
 * A block that vanished comes back (the `return` fault): what was open
 * before stays gone, a new open reads the counter, and what it counts from
 * then on is the scenario's truth.
 */
static void test_return(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2", "at 2s vanish " H "tile3\n"
								"at 4s return " H "tile3\n");
	uint64_t before, after;
	char buf[64];
	int fd;

	wr_ok(sim, H "tile3/event0", "MEMORY_WRITES");
	fd = ops()->open(sim, H "tile3/counter0", O_RDONLY);
	assert_true(fd >= 0);
	pm_sim__advance(sim, 3 * SEC);
	assert_int_equal(ops()->pread(sim, fd, buf, sizeof(buf), 0), -ENODEV);
	assert_int_equal(ops()->open(sim, H "tile3/counter0", O_RDONLY), -ENOENT);
	pm_sim__advance(sim, 2 * SEC); /* 5 s: back since 4 s */
	assert_int_equal(ops()->pread(sim, fd, buf, sizeof(buf), 0), -ENODEV);
	ops()->close(sim, fd);
	before = rd_hex(sim, H "tile3/counter0");
	pm_sim__advance(sim, 2 * SEC);
	after = rd_hex(sim, H "tile3/counter0");
	assert_true(after - before == truth(sim, "tile.mem_writes", 3, 7 * SEC) -
					      truth(sim, "tile.mem_writes", 3, 5 * SEC));
	assert_true(after > before);
	pm_sim__free(sim);
}

/* Another tool reprograms a counter behind our back (the `write` fault). */
static void test_someone_else(void **state)
{
	struct pm_sim *sim = th_sim_platform_with("bluefield2",
						  "at 1s write " H "tile1/event2 0x4d\n");

	wr_ok(sim, H "tile1/event2", "0x4c");
	pm_sim__advance(sim, SEC); /* the fault fires at 1 s */
	pm_sim__advance(sim, SEC);
	assert_string_equal(th_sim_text(sim, H "tile1/event2"), "0x4d: MEMORY_WRITES\n");
	assert_true(rd_hex(sim, H "tile1/counter2") ==
		    truth(sim, "tile.mem_writes", 1, 2 * SEC) -
			    truth(sim, "tile.mem_writes", 1, SEC));
	pm_sim__free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discovery_bf2),
		cmocka_unit_test(test_event_list),
		cmocka_unit_test(test_program_and_count),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_l3cache),
		cmocka_unit_test(test_l3cache_torn_read),
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_bf3_layout),
		cmocka_unit_test(test_crspace),
		cmocka_unit_test(test_crspace_wrap),
		cmocka_unit_test(test_nonroot),
		cmocka_unit_test(test_vanish),
		cmocka_unit_test(test_return),
		cmocka_unit_test(test_someone_else),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
