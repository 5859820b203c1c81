// SPDX-License-Identifier: GPL-2.0-only
/*
 * Alibaba Yitian 710: 128 CPUs on 2 dies, 8 DDR channels (4 per die), each
 * split into 2 sub-channels with one ali_drw PMU each (kernel-facts §1).
 *
 * Hardware facts (§1.1-§1.5): the PMU names, 53 events with their sysfs
 * text "config=0x%x", format config:0-7, the identifier file
 * ali_drw_pmu_identifier, 16 common 32-bit counters plus the 56-bit cycle
 * counter for event 0x80, config masked to 6 bits except 0x80, one DRW
 * event per group, counters reset on every open, no sampling, no exclude
 * bits, CPU-wide only.
 *
 * Model choices (not hardware facts; docs/simulator.md): die 0's PMUs are
 * probed by CPU 0 and die 1's by CPU 64; x000/x080 are sub-channels 0/1 of
 * one channel; each sub-channel carries half its channel's traffic; HIF
 * events count 64-byte requests (§1.4); hif_rd_or_wr counts reads plus
 * writes; the entry events of a channel are spread evenly over its 4 ranks;
 * events the scenario does not describe count at a small seeded rate.
 *
 * The cores (Neoverse N2): a core PMU armv8_pmuv3_0 (docs/attribution.md).
 * Facts: the sysfs format event config:0-15, long config1:0, rdpmc
 * config1:1, and the event text "event=0x%04x" (arch/arm64/kernel/
 * perf_event.c of Linux 6.1); the event codes (its asm/perf_event.h):
 * LL_CACHE_RD 0x36, LL_CACHE_MISS_RD 0x37, BUS_ACCESS 0x19, CPU_CYCLES 0x11
 * (perf's generic cycles, with instructions INST_RETIRED 0x08 and the rest
 * of armv8_pmuv3_perf_map). Model choices: 6 event counters and the cycle
 * counter (the TRM's PMCR_EL0.N was not read here), 64-bit counts, the
 * listed events are those of perf's neoverse-n2 JSON that the kernel names;
 * LL_CACHE_MISS_RD counts the DDR read requests of the tasks on the CPU
 * (the system-level cache's misses: CPUECTLR.EXTLLC set, which nothing
 * public says for Yitian), LL_CACHE_RD half as many again (hits of the
 * SLC), BUS_ACCESS their reads, writes and read-modify-writes and half as
 * many again; the background traffic (outside the scenario's cgroups: the
 * kernel, devices, DMA) raises none of them; other events count at a
 * seeded rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "util/util.h"

enum { Q_READ, Q_WRITE, Q_RMW, Q_CLOCK, Q_SELFREF, Q_POWERDOWN };

static const struct sim_quantity quantities[] = {
	[Q_READ] = { "ddr.read", "B/s", 8, 4e9, "read bytes per second per channel (0-7)" },
	[Q_WRITE] = { "ddr.write", "B/s", 8, 2e9, "write bytes per second per channel" },
	[Q_RMW] = { "ddr.rmw", "B/s", 8, 1e8, "read-modify-write bytes per second per channel" },
	[Q_CLOCK] = { "ddr.clock", "Hz", 1, 1.6e9, "DDRC clock (the cycle event's rate)" },
	[Q_SELFREF] = { "ddr.selfref_entries", "1/s", 8, 20,
			"self-refresh entries per second per channel" },
	[Q_POWERDOWN] = { "ddr.powerdown_entries", "1/s", 8, 2000,
			  "power-down entries per second per channel" },
};

/* kernel-facts §1.4: sysfs name -> config, 53 entries */
static const struct {
	const char *name;
	unsigned code;
} events[] = {
	{ "hif_rd_or_wr", 0x00 },
	{ "hif_wr", 0x01 },
	{ "hif_rd", 0x02 },
	{ "hif_rmw", 0x03 },
	{ "hif_hi_pri_rd", 0x04 },
	{ "dfi_wr_data_cycles", 0x07 },
	{ "dfi_rd_data_cycles", 0x08 },
	{ "hpr_xact_when_critical", 0x09 },
	{ "lpr_xact_when_critical", 0x0a },
	{ "wr_xact_when_critical", 0x0b },
	{ "op_is_activate", 0x0c },
	{ "op_is_rd_or_wr", 0x0d },
	{ "op_is_rd_activate", 0x0e },
	{ "op_is_rd", 0x0f },
	{ "op_is_wr", 0x10 },
	{ "op_is_mwr", 0x11 },
	{ "op_is_precharge", 0x12 },
	{ "precharge_for_rdwr", 0x13 },
	{ "precharge_for_other", 0x14 },
	{ "rdwr_transitions", 0x15 },
	{ "write_combine", 0x16 },
	{ "war_hazard", 0x17 },
	{ "raw_hazard", 0x18 },
	{ "waw_hazard", 0x19 },
	{ "op_is_enter_selfref_rk0", 0x1a },
	{ "op_is_enter_selfref_rk1", 0x1b },
	{ "op_is_enter_selfref_rk2", 0x1c },
	{ "op_is_enter_selfref_rk3", 0x1d },
	{ "op_is_enter_powerdown_rk0", 0x1e },
	{ "op_is_enter_powerdown_rk1", 0x1f },
	{ "op_is_enter_powerdown_rk2", 0x20 },
	{ "op_is_enter_powerdown_rk3", 0x21 },
	{ "selfref_mode_rk0", 0x26 },
	{ "selfref_mode_rk1", 0x27 },
	{ "selfref_mode_rk2", 0x28 },
	{ "selfref_mode_rk3", 0x29 },
	{ "op_is_refresh", 0x2a },
	{ "op_is_crit_ref", 0x2b },
	{ "op_is_load_mode", 0x2d },
	{ "op_is_zqcl", 0x2e },
	{ "visible_window_limit_reached_rd", 0x30 },
	{ "visible_window_limit_reached_wr", 0x31 },
	{ "op_is_dqsosc_mpc", 0x34 },
	{ "op_is_dqsosc_mrr", 0x35 },
	{ "op_is_tcr_mrr", 0x36 },
	{ "op_is_zqstart", 0x37 },
	{ "op_is_zqlatch", 0x38 },
	{ "chi_txreq", 0x39 },
	{ "chi_txdat", 0x3a },
	{ "chi_rxdat", 0x3b },
	{ "chi_rxrsp", 0x3c },
	{ "tsz_vio", 0x3d },
	{ "cycle", 0x80 },
};

/* kernel-facts §1.1: die 0's sub-channel PMUs; die 1's start ali_drw_400... */
static const char *const die0_names[] = { "21000", "21080", "23000", "23080",
					  "25000", "25080", "27000", "27080" };

#define FIRST_TYPE 11 /* perf types are dynamic; these are illustrative */

struct drw {
	struct pm_sim *sim;
	int subchannel; /* 0..15: die * 8 + channel-in-die * 2 + half */
};

struct yitian {
	struct drw pmu[16];
	struct pm_sim *sim;
};

/* The N2 core PMU's events as arch/arm64/kernel/perf_event.c names them (a subset). */
static const struct {
	const char *name;
	unsigned code;
} core_events[] = {
	{ "sw_incr", 0x00 },	      { "l1i_cache_refill", 0x01 },
	{ "l1i_tlb_refill", 0x02 },   { "l1d_cache_refill", 0x03 },
	{ "l1d_cache", 0x04 },	      { "l1d_tlb_refill", 0x05 },
	{ "inst_retired", 0x08 },     { "exc_taken", 0x09 },
	{ "exc_return", 0x0a },	      { "cid_write_retired", 0x0b },
	{ "pc_write_retired", 0x0c }, { "br_mis_pred", 0x10 },
	{ "cpu_cycles", 0x11 },	      { "br_pred", 0x12 },
	{ "mem_access", 0x13 },	      { "l1i_cache", 0x14 },
	{ "l1d_cache_wb", 0x15 },     { "l2d_cache", 0x16 },
	{ "l2d_cache_refill", 0x17 }, { "l2d_cache_wb", 0x18 },
	{ "bus_access", 0x19 },	      { "memory_error", 0x1a },
	{ "inst_spec", 0x1b },	      { "ttbr_write_retired", 0x1c },
	{ "bus_cycles", 0x1d },	      { "l2d_cache_allocate", 0x20 },
	{ "br_retired", 0x21 },	      { "br_mis_pred_retired", 0x22 },
	{ "stall_frontend", 0x23 },   { "stall_backend", 0x24 },
	{ "l1d_tlb", 0x25 },	      { "l1i_tlb", 0x26 },
	{ "remote_access", 0x31 },    { "dtlb_walk", 0x34 },
	{ "itlb_walk", 0x35 },	      { "ll_cache_rd", 0x36 },
	{ "ll_cache_miss_rd", 0x37 },
};

#define CORE_TYPE 10 /* illustrative, as the others */

/* What scenario cgroup c's tasks raise of a proxy event on cpu: its DDR traffic's 64-byte
 * requests, shared evenly by the CPUs it runs on, through its proxy factor. */
static int core_cgroup(void *data, const struct perf_event_attr *attr, int cpu, size_t c,
		       uint64_t t_ns, uint64_t *ret)
{
	struct yitian *y = data;
	const struct sim_scenario *s = sim_scn(y->sim);
	uint64_t t = sim_scn_time(y->sim, t_ns);
	unsigned code = (unsigned)(attr->config & 0xffff);
	double rd = 0, all = 0;
	int n_cpus;

	if (code != 0x36 && code != 0x37 && code != 0x19)
		return -ENOENT;
	if (cpu < 0 || !sim_cgroup_cpu(y->sim, c, cpu, &n_cpus)) {
		*ret = 0;
		return 0;
	}
	for (int ch = 0; ch < 8; ch++) {
		rd += sim_scenario__cgroup_integral(s, c, Q_READ, ch, t, true);
		all += sim_scenario__cgroup_integral(s, c, Q_WRITE, ch, t, true) +
		       sim_scenario__cgroup_integral(s, c, Q_RMW, ch, t, true);
	}
	all += rd;
	*ret = sim_count(code == 0x37 ? rd :
			 code == 0x36 ? rd * 1.5 :
					all * 1.5,
			 1.0 / 64 / n_cpus);
	return 0;
}

/* CPU-wide: every cgroup's share on the CPU (the background raises none); the rest seeded. */
static int core_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		      uint64_t *ret)
{
	struct yitian *y = data;
	const struct sim_scenario *s = sim_scn(y->sim);
	unsigned code = (unsigned)(attr->config & 0xffff);
	uint64_t v = 0, part;

	if (code == 0x36 || code == 0x37 || code == 0x19) {
		for (size_t c = 0; cpu >= 0 && c < sim_scenario__cgroup_count((void *)s); c++)
			if (core_cgroup(data, attr, cpu, c, t_ns, &part) == 0)
				v += part;
		*ret = v;
		return 0;
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(core_events); i++)
		if (core_events[i].code == code) {
			uint64_t t = sim_scn_time(y->sim, t_ns);

			v = sim_count((double)t / 1e9,
				      sim_scenario__background(s, 0xc0u + code, 0, 1e6, 1e8));
			*ret = cpu < 0 ? v / 1000 : v; /* a task (sleep): a thousandth */
			return 0;
		}
	return -ENOENT;
}

/* perf's generic events on the N2 (armv8_pmuv3_perf_map). */
static int core_hw_config(void *data, uint64_t hw, uint64_t *ret)
{
	static const uint64_t map[] = {
		[PERF_COUNT_HW_CPU_CYCLES] = 0x11,
		[PERF_COUNT_HW_INSTRUCTIONS] = 0x08,
		[PERF_COUNT_HW_CACHE_REFERENCES] = 0x04,
		[PERF_COUNT_HW_CACHE_MISSES] = 0x03,
		[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x0c,
		[PERF_COUNT_HW_BRANCH_MISSES] = 0x10,
		[PERF_COUNT_HW_BUS_CYCLES] = 0x1d,
		[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x23,
		[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x24,
	};

	if (hw >= PM_ARRAY_SIZE(map) || (!map[hw] && hw != PERF_COUNT_HW_CPU_CYCLES))
		return -ENOENT;
	*ret = map[hw];
	return 0;
}

static int add_core_pmu(struct pm_sim *sim, struct yitian *y)
{
	static const struct sim_kv formats[] = { { "event", "config:0-15" },
						 { "long", "config1:0" },
						 { "rdpmc", "config1:1" },
						 { NULL, NULL } };
	struct sim_kv ev[PM_ARRAY_SIZE(core_events) + 1];
	char text[PM_ARRAY_SIZE(core_events)][16];
	struct pm_sim_pmu_model m = { .type = CORE_TYPE,
				      .counters = 6,
				      .has_fixed = true,
				      .fixed_config = 0x11,
				      .width = 64,
				      .count = core_count,
				      .count_cgroup = core_cgroup,
				      .hw_config = core_hw_config,
				      .data = y };
	int r;

	for (size_t i = 0; i < PM_ARRAY_SIZE(core_events); i++) {
		snprintf(text[i], sizeof(text[i]), "event=0x%04x", core_events[i].code);
		ev[i] = (struct sim_kv){ core_events[i].name, text[i] };
	}
	ev[PM_ARRAY_SIZE(core_events)] = (struct sim_kv){ NULL, NULL };
	r = sim_pmu_sysfs(sim, "armv8_pmuv3_0", CORE_TYPE, NULL, formats, ev);
	if (r == 0)
		r = pm_sim__add_pmu(sim, "armv8_pmuv3_0", &m);
	return r;
}

static bool known_code(unsigned code)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(events); i++)
		if (events[i].code == code)
			return true;
	return false;
}

static int drw_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		     uint64_t *ret)
{
	const struct drw *d = data;
	const struct sim_scenario *s = sim_scn(d->sim);
	uint64_t t = sim_scn_time(d->sim, t_ns);
	int ch = d->subchannel / 2;
	unsigned code = (unsigned)attr->config; /* already masked by the driver's rule */
	double half = 0.5;

	switch (code) {
	case 0x80: /* the DDRC cycle counter */
		*ret = sim_count(sim_scenario__integral(s, Q_CLOCK, 0, t), 1);
		return 0;
	case 0x02:
		*ret = sim_count(sim_scenario__integral(s, Q_READ, ch, t), half / 64);
		return 0;
	case 0x01:
		*ret = sim_count(sim_scenario__integral(s, Q_WRITE, ch, t), half / 64);
		return 0;
	case 0x03:
		*ret = sim_count(sim_scenario__integral(s, Q_RMW, ch, t), half / 64);
		return 0;
	case 0x00:
		*ret = sim_count(sim_scenario__integral(s, Q_READ, ch, t) +
					 sim_scenario__integral(s, Q_WRITE, ch, t),
				 half / 64);
		return 0;
	case 0x1a ... 0x1d: /* op_is_enter_selfref_rk0..3 */
		*ret = sim_count(sim_scenario__integral(s, Q_SELFREF, ch, t), half / 4);
		return 0;
	case 0x1e ... 0x21: /* op_is_enter_powerdown_rk0..3 */
		*ret = sim_count(sim_scenario__integral(s, Q_POWERDOWN, ch, t), half / 4);
		return 0;
	default:
		/* the hardware counts whatever the 6-bit select names; codes without
		 * an alias count too, at the same kind of small seeded rate */
		*ret = sim_count((double)t / 1e9,
				 sim_scenario__background(s, code, (uint64_t)d->subchannel,
							  known_code(code) ? 1e3 : 10, 1e6));
		return 0;
	}
}

static void where(int cpu, int *pkg, int *die, int *core, void *ud)
{
	*pkg = 0;
	*die = cpu / 64;
	*core = cpu % 64;
}

/*
 * Illustrative: one NUMA node per die, and each core's own L1d, L1i and L2
 * (one thread per core). The model's firmware tables describe no L3: the
 * system-level cache sits in the mesh, and a kernel lists only what PPTT
 * says, so rows per L3 have nothing to go by here.
 */
static int add_nodes_caches(struct pm_sim *sim)
{
	static const char *const type[] = { "Data", "Instruction", "Unified" };
	int r = 0;

	for (int c = 0; c < 128 && r == 0; c++)
		for (int i = 0; i < 3 && r == 0; i++) {
			char v[16];

			snprintf(v, sizeof(v), "%d", c);
			r = sim_cache(sim, c, i, i < 2 ? 1 : 2, type[i], v);
		}
	if (r == 0)
		r = sim_writef(sim, "0-63\n", "sys/devices/system/node/node0/cpulist");
	if (r == 0)
		r = sim_writef(sim, "64-127\n", "sys/devices/system/node/node1/cpulist");
	return r;
}

static int build(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	static const struct sim_kv formats[] = { { "event", "config:0-7" }, { NULL, NULL } };
	struct sim_kv ev[PM_ARRAY_SIZE(events) + 1];
	char text[PM_ARRAY_SIZE(events)][16];
	struct yitian *y = calloc(1, sizeof(*y));
	int r;

	if (!y)
		return -ENOMEM;
	y->sim = sim;
	sim_set_platform_data(sim, y, free);
	for (size_t i = 0; i < PM_ARRAY_SIZE(events); i++) {
		snprintf(text[i], sizeof(text[i]), "config=0x%x", events[i].code);
		ev[i] = (struct sim_kv){ events[i].name, text[i] };
	}
	ev[PM_ARRAY_SIZE(events)] = (struct sim_kv){ NULL, NULL };
	r = sim_topology(sim, 128, where, NULL);
	if (r == 0)
		r = add_nodes_caches(sim);
	if (r == 0)
		r = sim_add_common(sim);
	if (r == 0)
		r = sim_writef(sim, "processor\t: 0\nBogoMIPS\t: 100.00\nCPU implementer\t: 0x41\n",
			       "proc/cpuinfo");
	if (r == 0)
		r = add_core_pmu(sim, y);
	if (r == 0)
		r = sim_kmod(sim, "alibaba_uncore_drw_pmu",
			     "kernel/drivers/perf/alibaba_uncore_drw_pmu.ko", SIM_KMOD_LOADED);
	for (int i = 0; r == 0 && i < 16; i++) {
		int die = i / 8;
		struct pm_sim_pmu_model m = {
			.type = FIRST_TYPE + (uint32_t)i,
			.counters = 16,
			.has_fixed = true,
			.fixed_config = 0x80,
			.config_mask = 0x3f,
			.width = 32,
			.flags = PM_SIM_NO_EXCLUDE | PM_SIM_NO_SAMPLING | PM_SIM_ONE_PER_GROUP |
				 PM_SIM_RESET_ON_OPEN | PM_SIM_CPU_WIDE_ONLY,
			.task_err = -EOPNOTSUPP,
			.count = drw_count,
			.data = &y->pmu[i],
		};
		char name[32];

		y->pmu[i] = (struct drw){ .sim = sim, .subchannel = i };
		snprintf(name, sizeof(name), "ali_drw_%s%s", die ? "400" : "", die0_names[i % 8]);
		r = sim_pmu_sysfs(sim, name, m.type, die ? "64" : "0", formats, ev);
		if (r == 0)
			r = sim_writef(sim, "ali_drw_pmu\n",
				       "sys/bus/event_source/devices/%s/ali_drw_pmu_identifier",
				       name);
		if (r == 0)
			r = pm_sim__add_pmu(sim, name, &m);
	}
	return r;
}

const struct sim_platform sim_platform_yitian710 = {
	.name = "yitian710",
	.summary = "Alibaba Yitian 710: 2 dies, 8 DDR channels, 16 ali_drw PMUs",
	.quantities = quantities,
	.n_quantities = PM_ARRAY_SIZE(quantities),
	.scenario = "# built-in: steady traffic, channels differ by up to 10%\n"
		    "seed 1\n"
		    "jitter 10%\n",
	.build = build,
};
