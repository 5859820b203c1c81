// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated Merrifield through its files, as a tool with no kernel
 * module would drive it: debugfs iosf_sb/{mcrx,mdr,mcr} (and the host
 * bridge's config space), the SIMULATION-ONLY register map of
 * sim/platform/merrifield-map.h replayed as a programming list, START,
 * SAMPLE and a read of each 32-bit DATA register. Expected counts are worked
 * out here from the scenario's truth and seed 001's definitions of the
 * events, not taken from the model: every group exactly, the one-channel
 * SKU, 32-bit wrap, STOP, the latch, unknown selects, the debugfs formats
 * and parsing of mainline iosf_mbi.c / libfs.c, and a non-root user.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/platform/merrifield-map.h"
#include "util/util.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define DBG "sys/kernel/debug/iosf_sb/"
#define CONFIG "sys/bus/pci/devices/0000:00:00.0/config"

/* ---- files through the os seam ---------------------------------------------------- */

static int put(struct pm_sim *sim, const char *path, const char *text)
{
	const struct pm_os_ops *ops = pm_sim__ops();
	int fd = ops->open(sim, path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = ops->write(sim, fd, text, strlen(text));
	ops->close(sim, fd);
	if (n < 0)
		return (int)n;
	assert_int_equal(n, (ssize_t)strlen(text)); /* simple_attr_write claims it all */
	return 0;
}

static void get(struct pm_sim *sim, const char *path, char *buf, size_t size)
{
	const struct pm_os_ops *ops = pm_sim__ops();
	int fd = ops->open(sim, path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = ops->read(sim, fd, buf, size - 1);
	ops->close(sim, fd);
	assert_true(n >= 0);
	buf[n] = '\0';
}

static void set32(struct pm_sim *sim, const char *name, uint32_t v)
{
	char path[64], text[16];

	snprintf(path, sizeof(path), DBG "%s", name);
	snprintf(text, sizeof(text), "0x%x\n", v);
	assert_int_equal(put(sim, path, text), 0);
}

static uint32_t get_mdr(struct pm_sim *sim)
{
	char text[32];

	get(sim, DBG "mdr", text, sizeof(text));
	assert_int_equal(strlen(text), 11); /* "0x%08llx\n" */
	return (uint32_t)strtoul(text, NULL, 16);
}

/* One sideband write through debugfs: mcrx, mdr, then mcr fires it. */
static int sb_write(struct pm_sim *sim, uint8_t port, uint8_t op, uint32_t off, uint32_t v)
{
	char text[16];

	set32(sim, "mcrx", MF_MCRX(off));
	set32(sim, "mdr", v);
	snprintf(text, sizeof(text), "0x%08x\n", MF_MCR(op, port, off));
	return put(sim, DBG "mcr", text);
}

static uint32_t sb_read(struct pm_sim *sim, uint8_t port, uint32_t off)
{
	char text[16];

	set32(sim, "mcrx", MF_MCRX(off));
	snprintf(text, sizeof(text), "0x%08x\n", MF_MCR(MF_OP_READ, port, off));
	assert_int_equal(put(sim, DBG "mcr", text), 0);
	return get_mdr(sim);
}

/* The same through config space 0xD0/0xD4/0xD8 (x86: little-endian dwords). */
static void cfg_put(struct pm_sim *sim, int fd, unsigned off, uint32_t v)
{
	assert_int_equal(pm_sim__ops()->pwrite(sim, fd, &v, 4, off), 4);
}

static void pci_write(struct pm_sim *sim, uint8_t port, uint8_t op, uint32_t off, uint32_t v)
{
	int fd = pm_sim__ops()->open(sim, CONFIG, O_RDWR);

	assert_true(fd >= 0);
	cfg_put(sim, fd, MF_PCI_MDR, v);
	cfg_put(sim, fd, MF_PCI_MCRX, MF_MCRX(off));
	cfg_put(sim, fd, MF_PCI_MCR, MF_MCR(op, port, off));
	pm_sim__ops()->close(sim, fd);
}

static uint32_t pci_read(struct pm_sim *sim, uint8_t port, uint32_t off)
{
	int fd = pm_sim__ops()->open(sim, CONFIG, O_RDWR);
	uint32_t v = 0;

	assert_true(fd >= 0);
	cfg_put(sim, fd, MF_PCI_MCRX, MF_MCRX(off));
	cfg_put(sim, fd, MF_PCI_MCR, MF_MCR(MF_OP_READ, port, off));
	assert_int_equal(pm_sim__ops()->pread(sim, fd, &v, 4, MF_PCI_MDR), 4);
	pm_sim__ops()->close(sim, fd);
	return v;
}

/* ---- the truth, from seed 001's definitions -------------------------------------- */

static uint64_t scn_now(struct pm_sim *sim)
{
	return pm_sim__now(sim) - pm_sim__scenario_start(sim);
}

static double truth(struct pm_sim *sim, const char *key, int inst, uint64_t t)
{
	double v = 0;

	assert_int_equal(pm_sim__truth(sim, key, inst, t, &v), 0);
	return v;
}

/* floor, as a count is (sim_count: the 1e-9 keeps exact products exact) */
static uint64_t cnt(double integral, double factor)
{
	double v = floor(integral * factor + 1e-9);

	return v > 0 ? (uint64_t)v : 0;
}

static double dflt(const char *key)
{
	const char *k, *unit, *doc;
	int inst;
	double d;

	for (size_t i = 0; pm_sim__platform_quantity("merrifield", i, &k, &unit, &inst, &d, &doc);
	     i++)
		if (!strcmp(k, key))
			return d;
	fail_msg("no quantity %s", key);
	return 0;
}

/* agent.* instances in the documented order */
static const char *const agents[] = { "Mod0", "Disp", "GFX", "Imaging", "LowSpeedPF" };

static double agent(struct pm_sim *sim, const char *what, int a, uint64_t t)
{
	char key[64];

	snprintf(key, sizeof(key), "agent.%s", what);
	return truth(sim, key, a, t);
}

/* The cumulative count of an event at scenario time t on a SKU with `channels`. */
static uint64_t expect(struct pm_sim *sim, int channels, const char *ev, uint64_t t)
{
	const char *kind;

	if (!strcmp(ev, "Clock_Counter"))
		return cnt(truth(sim, "soc.clock", 0, t), 1); /* the SoC clock */
	if (!strncmp(ev, "DDR_Chan", 8)) {
		int ch = ev[8] - '0';

		kind = ev + 9;
		if (ch >= channels)
			return 0;	       /* known behaviour 1 */
		if (!strcmp(kind, "-Read32B")) /* bandwidth = count * 32 bytes */
			return cnt(truth(sim, "ddr.read", ch, t), 1.0 / 32);
		if (!strcmp(kind, "-Write32B"))
			return cnt(truth(sim, "ddr.write", ch, t), 1.0 / 32);
		/* residency * DRAM clock: ratios and clocks are the defaults here */
		if (!strcmp(kind, "_Deep_Self_Refresh"))
			return cnt(dflt("ddr.deep_selfref") * dflt("ddr.clock") * (double)t / 1e9,
				   1);
		if (!strcmp(kind, "_Shallow_Self_Refresh"))
			return cnt(dflt("ddr.shallow_selfref") * dflt("ddr.clock") * (double)t /
					   1e9,
				   1);
		fail_msg("unknown DDR event %s", ev);
	}
	if (!strcmp(ev, "Mod0_Snoop_Replies"))
		return cnt(truth(sim, "mod0.snoop_replies", 0, t), 1);
	if (!strcmp(ev, "Mod0_Snoop_Reqs"))
		return cnt(truth(sim, "mod0.snoop_reqs", 0, t), 1);
	for (int a = 0; a < 5; a++) {
		size_t l = strlen(agents[a]);

		if (strncmp(ev, agents[a], l) != 0 || ev[l] != '_')
			continue;
		kind = ev + l + 1;
		if (!strcmp(kind, "Reqs")) /* any size, reads and writes */
			return cnt(agent(sim, "read_partial", a, t) + agent(sim, "read32", a, t) +
					   agent(sim, "read64", a, t) +
					   agent(sim, "write_partial", a, t) +
					   agent(sim, "write32", a, t) +
					   agent(sim, "write64", a, t),
				   1);
		/* Module0's partial events count every request; the others' only partials */
		if (!strcmp(kind, "ReadPartial"))
			return cnt(a == 0 ? agent(sim, "read_partial", a, t) +
						    agent(sim, "read32", a, t) +
						    agent(sim, "read64", a, t) :
					    agent(sim, "read_partial", a, t),
				   1);
		if (!strcmp(kind, "WritePartial"))
			return cnt(a == 0 ? agent(sim, "write_partial", a, t) +
						    agent(sim, "write32", a, t) +
						    agent(sim, "write64", a, t) :
					    agent(sim, "write_partial", a, t),
				   1);
		if (!strcmp(kind, "Read32B"))
			return cnt(agent(sim, "read32", a, t), 1);
		if (!strcmp(kind, "Read64B"))
			return cnt(agent(sim, "read64", a, t), 1);
		if (!strcmp(kind, "Write32B"))
			return cnt(agent(sim, "write32", a, t), 1);
		if (!strcmp(kind, "Write64B"))
			return cnt(agent(sim, "write64", a, t), 1);
	}
	fail_msg("unknown event %s", ev);
	return 0;
}

/* ---- a group: program, run, sample, compare ------------------------------------------ */

static void program(struct pm_sim *sim, const char *group, bool pci)
{
	struct mf_sim_write list[MF_SIM_MAX_LIST];
	int n = mf_sim_group_list(group, list, PM_ARRAY_SIZE(list));

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		if (pci)
			pci_write(sim, list[i].port, list[i].opcode, list[i].offset, list[i].value);
		else
			assert_int_equal(sb_write(sim, list[i].port, list[i].opcode, list[i].offset,
						  list[i].value),
					 0);
	}
}

static void sample(struct pm_sim *sim, int ctr)
{
	assert_int_equal(sb_write(sim, MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(ctr), MF_CMD_SAMPLE),
			 0);
}

/* Run a group for `ns` and check every counter; returns how many there were. */
static int check_group(struct pm_sim *sim, const char *group, int channels, uint64_t ns, bool pci)
{
	uint64_t t0, t1;
	int n = 0;

	program(sim, group, pci);
	t0 = scn_now(sim);
	pm_sim__advance(sim, ns);
	for (size_t i = 0; i < MF_SIM_N_EVENTS; i++)
		if (!strcmp(mf_sim_events[i].group, group))
			sample(sim, mf_sim_events[i].counter);
	t1 = scn_now(sim);
	for (size_t i = 0; i < MF_SIM_N_EVENTS; i++) {
		const struct mf_sim_event *e = &mf_sim_events[i];
		uint64_t want;
		uint32_t got;

		if (strcmp(e->group, group) != 0)
			continue;
		want = expect(sim, channels, e->event, t1) - expect(sim, channels, e->event, t0);
		got = pci ? pci_read(sim, MF_CHAP_PORT, MF_SIM_DATA(e->counter)) :
			    sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(e->counter));
		if (got != (uint32_t)want)
			fail_msg("%s %s (counter %d): read %u, truth %llu", group, e->event,
				 e->counter, got, (unsigned long long)want);
		if (channels == 2)
			assert_true(want > 0); /* every event counts something by default */
		n++;
	}
	return n;
}

/* ---- tests -------------------------------------------------------------------------- */

static void test_map(void **state)
{
	/* seed 001: events per group, clock included, on counters 0..n-1 */
	static const int events[] = { 5, 5, 6, 7, 3, 7, 7, 7, 7 };

	assert_int_equal(MF_SIM_N_GROUPS, PM_ARRAY_SIZE(events));
	for (size_t g = 0; g < MF_SIM_N_GROUPS; g++) {
		int n = 0, clock = -1;

		for (size_t i = 0; i < MF_SIM_N_EVENTS; i++) {
			if (strcmp(mf_sim_events[i].group, mf_sim_groups[g]) != 0)
				continue;
			assert_int_equal(mf_sim_events[i].counter, n);
			if (!strcmp(mf_sim_events[i].event, "Clock_Counter"))
				clock = n;
			n++;
		}
		assert_int_equal(n, events[g]);
		assert_int_equal(clock, n - 1);
	}
	assert_int_equal(mf_sim_group_list("UNC_SOC_Nope", NULL, 0), -1);
}

static void test_groups_exact(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	int total = 0;

	pm_sim__advance(sim, 250 * MS); /* counting starts mid-scenario */
	for (size_t g = 0; g < MF_SIM_N_GROUPS; g++) {
		total += check_group(sim, mf_sim_groups[g], 2, 1500 * MS, false);
		pm_sim__advance(sim, 10 * MS);
	}
	assert_int_equal(total, 54);
	pm_sim__free(sim);
}

static void test_pci_config_path(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	const struct pm_os_ops *ops = pm_sim__ops();
	uint8_t id[4];
	uint32_t v = 0;
	char text[32];
	int fd;

	fd = ops->open(sim, CONFIG, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ops->pread(sim, fd, id, 4, 0), 4);
	assert_int_equal(id[0] | id[1] << 8, 0x8086);
	assert_int_equal(id[2] | id[3] << 8, 0x1170);
	assert_int_equal(ops->pread(sim, fd, id, 4, 256), 0); /* past the 256 bytes */
	ops->close(sim, fd);
	get(sim, "sys/bus/pci/devices/0000:00:00.0/device", text, sizeof(text));
	assert_string_equal(text, "0x1170\n");

	pm_sim__advance(sim, 100 * MS);
	assert_int_equal(check_group(sim, "UNC_SOC_All_Reqs", 2, SEC, true), 6);
	assert_int_equal(check_group(sim, "UNC_SOC_Graphics_BW", 2, SEC, true), 7);
	/* both paths reach the same block */
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2)),
			 pci_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2)));
	/* MCRX applies to one transaction: a later one without it is not redirected */
	fd = ops->open(sim, CONFIG, O_RDWR);
	assert_true(fd >= 0);
	cfg_put(sim, fd, MF_PCI_MCRX, MF_MCRX(MF_SIM_SRC(2)));
	cfg_put(sim, fd, MF_PCI_MCR, MF_MCR(MF_OP_READ, MF_SIM_MUX_PORT, MF_SIM_SRC(2)));
	assert_int_equal(ops->pread(sim, fd, &v, 4, MF_PCI_MDR), 4);
	assert_int_equal(v, MF_SIM_SRC_GFX);
	cfg_put(sim, fd, MF_PCI_MCR, MF_MCR(MF_OP_READ, MF_CHAP_PORT, MF_SIM_CCCR(2)));
	assert_int_equal(ops->pread(sim, fd, &v, 4, MF_PCI_MDR), 4);
	assert_int_equal(v, MF_CMD_SAMPLE);
	assert_int_equal(ops->pread(sim, fd, &v, 4, MF_PCI_MCRX), 4);
	assert_int_equal(v, 0);
	/* a write past the 256 bytes */
	assert_int_equal(ops->pwrite(sim, fd, &v, 4, 256), -EFBIG);
	ops->close(sim, fd);
	pm_sim__free(sim);
}

static void test_one_channel(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield:channels=1");

	pm_sim__advance(sim, 50 * MS);
	check_group(sim, "UNC_SOC_Memory_DDR_BW", 1, 2 * SEC, false);
	check_group(sim, "UNC_SOC_DDR_Self_Refresh", 1, 2 * SEC, false);
	/* channel 1's counters read zero although the scenario has traffic there */
	for (int c = 2; c <= 3; c++)
		assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(c)), 0);
	assert_true(truth(sim, "ddr.read", 1, scn_now(sim)) > 0);
	assert_true(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(0)) > 0);
	pm_sim__free(sim);
}

static void test_wrap(void **state)
{
	/* 200 GB/s on channel 0: 6.25e9 32-byte reads a second, past 2^32 in 0.7 s */
	struct pm_sim *sim = th_sim_platform_with("merrifield", "ddr.read[0] 200G\nsoc.clock 3G\n");
	uint64_t t0, t1, want;

	pm_sim__advance(sim, 300 * MS);
	program(sim, "UNC_SOC_Memory_DDR_BW", false);
	t0 = scn_now(sim);
	pm_sim__advance(sim, 2 * SEC);
	sample(sim, 0);
	sample(sim, 4);
	t1 = scn_now(sim);
	want = expect(sim, 2, "DDR_Chan0-Read32B", t1) - expect(sim, 2, "DDR_Chan0-Read32B", t0);
	assert_true(want > 2 * (1ull << 32));
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(0)), (uint32_t)want);
	want = expect(sim, 2, "Clock_Counter", t1) - expect(sim, 2, "Clock_Counter", t0);
	assert_true(want > (1ull << 32));
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(4)), (uint32_t)want);
	pm_sim__free(sim);
}

static void test_stop_sample_reset(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	const char *ev = "Mod0_Read64B"; /* counter 2 of UNC_SOC_Module0_BW */
	uint64_t t0, t1, t2, t3, run1;
	uint32_t v;

	program(sim, "UNC_SOC_Module0_BW", false);
	t0 = scn_now(sim);
	pm_sim__advance(sim, SEC);
	t1 = scn_now(sim);
	assert_int_equal(sb_write(sim, MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(2), MF_CMD_STOP), 0);
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_CCCR(2)), MF_CMD_STOP);
	pm_sim__advance(sim, SEC);
	sample(sim, 2);
	run1 = expect(sim, 2, ev, t1) - expect(sim, 2, ev, t0);
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2)), (uint32_t)run1);

	/* START again: it goes on from where it stopped */
	t2 = scn_now(sim);
	assert_int_equal(sb_write(sim, MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(2), MF_CMD_START), 0);
	pm_sim__advance(sim, 500 * MS);
	sample(sim, 2);
	t3 = scn_now(sim);
	v = sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2));
	assert_int_equal(v, (uint32_t)(run1 + expect(sim, 2, ev, t3) - expect(sim, 2, ev, t2)));

	/* DATA holds the last SAMPLE until the next one */
	pm_sim__advance(sim, SEC);
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2)), v);

	/* writing 0 to DATA resets the count */
	t0 = scn_now(sim);
	assert_int_equal(sb_write(sim, MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_DATA(2), 0), 0);
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2)), 0);
	pm_sim__advance(sim, 250 * MS);
	sample(sim, 2);
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(2)),
			 (uint32_t)(expect(sim, 2, ev, scn_now(sim)) - expect(sim, 2, ev, t0)));
	pm_sim__free(sim);
}

static void test_unknown_select(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	static const uint32_t sel[][2] = {
		{ 0x77, MF_SIM_EVT_CLOCK },		   /* no such source */
		{ MF_SIM_SRC_GFX, 0x99 },		   /* no such event */
		{ MF_SIM_SRC_GFX, MF_SIM_EVT_SNOOP_REQS }, /* snoops are Module0's */
		{ MF_SIM_SRC_DDR0, MF_SIM_EVT_REQS },	   /* an agent event on a channel */
		{ 0, 0 },				   /* never selected */
	};
	uint64_t t0;

	for (int i = 0; i < (int)PM_ARRAY_SIZE(sel); i++) {
		assert_int_equal(sb_write(sim, MF_SIM_MUX_PORT, MF_OP_WRITE, MF_SIM_SRC(i),
					  sel[i][0]),
				 0);
		assert_int_equal(sb_write(sim, MF_SIM_MUX_PORT, MF_OP_WRITE, MF_SIM_EVT(i),
					  sel[i][1]),
				 0);
		assert_int_equal(sb_write(sim, MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(i),
					  MF_CMD_START),
				 0);
	}
	pm_sim__advance(sim, SEC);
	for (int i = 0; i < (int)PM_ARRAY_SIZE(sel); i++) {
		sample(sim, i);
		assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(i)), 0);
		/* the registers still read back */
		assert_int_equal(sb_read(sim, MF_SIM_MUX_PORT, MF_SIM_SRC(i)), sel[i][0]);
		assert_int_equal(sb_read(sim, MF_SIM_MUX_PORT, MF_SIM_EVT(i)), sel[i][1]);
	}
	/* a running counter switched to a known event counts from then on */
	t0 = scn_now(sim);
	assert_int_equal(sb_write(sim, MF_SIM_MUX_PORT, MF_OP_WRITE, MF_SIM_EVT(1),
				  MF_SIM_EVT_WRITE_PARTIAL),
			 0);
	pm_sim__advance(sim, SEC);
	sample(sim, 1);
	assert_int_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(1)),
			 (uint32_t)(expect(sim, 2, "GFX_WritePartial", scn_now(sim)) -
				    expect(sim, 2, "GFX_WritePartial", t0)));
	/* opcodes other than 0/1 do nothing on the counter block; other ports read 0 */
	assert_int_equal(sb_write(sim, MF_CHAP_PORT, 0x11, MF_SIM_DATA(1), 5), 0);
	assert_int_not_equal(sb_read(sim, MF_CHAP_PORT, MF_SIM_DATA(1)), 5);
	assert_int_equal(sb_read(sim, 0x04, 0x10), 0);
	pm_sim__free(sim);
}

/* debugfs attributes are opened nonseekable: pread and pwrite fail, read and write work. */
static void test_debugfs_nonseekable(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	const struct pm_os_ops *ops = pm_sim__ops();
	char buf[16];
	int fd = ops->open(sim, DBG "mdr", O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(ops->pread(sim, fd, buf, sizeof(buf), 0), -ESPIPE);
	assert_int_equal(ops->pwrite(sim, fd, "0x1\n", 4, 0), -ESPIPE);
	assert_int_equal(ops->read(sim, fd, buf, sizeof(buf)), 11); /* "0x00000000\n" */
	ops->close(sim, fd);
	pm_sim__free(sim);
}

static void test_debugfs_files(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	static const struct {
		const char *in;
		int err;
		const char *out;
	} parse[] = {
		/* simple_attr_write: kstrtoull(buf, 0), then debugfs_u32_set truncates */
		{ "0x1234\n", 0, "0x00001234\n" },
		{ "4660", 0, "0x00001234\n" },
		{ "010", 0, "0x00000008\n" },
		{ "+0x10", 0, "0x00000010\n" },
		{ "0x1ffffffff", 0, "0xffffffff\n" },
		{ "abc", -EINVAL, NULL },
		{ "-1", -EINVAL, NULL },
		{ " 1", -EINVAL, NULL },
		{ "1\n\n", -EINVAL, NULL },
		{ "99999999999999999999999", -ERANGE, NULL },
	};
	const struct pm_os_ops *ops = pm_sim__ops();
	char text[32];
	int fd;

	for (size_t i = 0; i < PM_ARRAY_SIZE(parse); i++) {
		set32(sim, "mdr", 0x5a5a5a5a);
		assert_int_equal(put(sim, DBG "mdr", parse[i].in), parse[i].err);
		get(sim, DBG "mdr", text, sizeof(text));
		assert_string_equal(text, parse[i].out ? parse[i].out : "0x5a5a5a5a\n");
	}
	/* only 23 bytes are parsed: a longer write is cut, and claimed whole */
	assert_int_equal(put(sim, DBG "mcrx", "0x0000000000000000000100"), 0);
	get(sim, DBG "mcrx", text, sizeof(text));
	assert_string_equal(text, "0x00000010\n"); /* not 0x100 */

	/* mcr: "%llx\n", no 0x; the value is kept as written */
	assert_int_equal(sb_write(sim, MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(0), MF_CMD_STOP), 0);
	get(sim, DBG "mcr", text, sizeof(text));
	assert_string_equal(text, "11710f0\n");
	/* so writing back what mcr reads is decimal, or no number at all */
	assert_int_equal(put(sim, DBG "mcr", "11710f0\n"), -EINVAL);

	/* the byte enables are the kernel's, whatever the command word says */
	set32(sim, "mcrx", 0);
	assert_int_equal(put(sim, DBG "mcr", "0x00171000"), 0);
	assert_int_equal(get_mdr(sim), MF_CMD_STOP);

	/* mcrx is ORed into the offset: its low bits too */
	assert_int_equal(sb_write(sim, MF_SIM_MUX_PORT, MF_OP_WRITE, MF_SIM_EVT(0), 0x42), 0);
	set32(sim, "mcrx", 0x1004);
	assert_int_equal(put(sim, DBG "mcr", "0x001800f0"), 0);
	assert_int_equal(get_mdr(sim), 0x42);

	/* port 0x06 (GFX) is refused by iosf_mbi_read/write; mcr keeps the word */
	assert_int_equal(put(sim, DBG "mcr", "0x000600f0"), -EPERM);
	get(sim, DBG "mcr", text, sizeof(text));
	assert_string_equal(text, "600f0\n");

	/* a read in pieces: the first formats, the next continue the same text */
	set32(sim, "mdr", 0xabcdef12);
	fd = ops->open(sim, DBG "mdr", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ops->read(sim, fd, text, 4), 4);
	assert_int_equal(ops->read(sim, fd, text + 4, 20), 7);
	assert_int_equal(ops->read(sim, fd, text + 11, 20), 0);
	text[11] = '\0';
	assert_string_equal(text, "0xabcdef12\n");
	ops->close(sim, fd);
	pm_sim__free(sim);
}

static void test_not_root(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield:user=nobody");
	const struct pm_os_ops *ops = pm_sim__ops();
	uint8_t b[4] = { 0 };
	int fd;

	/* debugfs is root's (mode 0700): nothing in it opens */
	assert_int_equal(put(sim, DBG "mcr", "0x001710f0"), -EACCES);
	assert_int_equal(ops->open(sim, DBG "mdr", O_RDONLY), -EACCES);
	assert_int_equal(ops->open(sim, DBG "mcrx", O_WRONLY), -EACCES);
	/* config is 0644: reads show the first 64 bytes, writes are refused */
	assert_int_equal(ops->open(sim, CONFIG, O_RDWR), -EACCES);
	assert_int_equal(ops->open(sim, CONFIG, O_WRONLY), -EACCES);
	fd = ops->open(sim, CONFIG, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(ops->pread(sim, fd, b, 4, 0), 4);
	assert_int_equal(b[0] | b[1] << 8, 0x8086);
	assert_int_equal(ops->pread(sim, fd, b, 4, MF_PCI_MDR), 0);
	assert_int_equal(ops->pread(sim, fd, b, 4, 62), 2);
	ops->close(sim, fd);
	pm_sim__free(sim);
}

static void test_machine(void **state)
{
	struct pm_sim *sim = th_sim_platform("merrifield");
	char text[512];

	get(sim, "proc/cpuinfo", text, sizeof(text));
	assert_non_null(strstr(text, "vendor_id\t: GenuineIntel\n"));
	assert_non_null(strstr(text, "cpu family\t: 6\n"));
	assert_non_null(strstr(text, "model\t\t: 74\n"));
	assert_non_null(strstr(text, "processor\t: 1\n"));
	get(sim, "sys/devices/system/cpu/online", text, sizeof(text));
	assert_string_equal(text, "0-1\n");
	get(sim, "sys/devices/system/cpu/cpu1/topology/physical_package_id", text, sizeof(text));
	assert_string_equal(text, "0\n");
	assert_string_equal(pm_sim__platform_name(sim), "merrifield");
	pm_sim__free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_groups_exact),
		cmocka_unit_test(test_pci_config_path),
		cmocka_unit_test(test_one_channel),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_stop_sample_reset),
		cmocka_unit_test(test_unknown_select),
		cmocka_unit_test(test_debugfs_files),
		cmocka_unit_test(test_debugfs_nonseekable),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
