// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD EPYC 7742-like (Zen 2, family 17h): one or two sockets of 64 cores /
 * 128 threads, 8 DRAM channels and 4 remote links per socket, 16 CCXs of 4
 * cores per socket.
 *
 * Hardware facts: the PMUs and their sysfs formats (kernel-facts §3.2;
 * core: docs/facts-perf-tools.md §9), 4 DF and 6 L3 counters of 48 bits
 * (§3.1, §3.4), no sampling, no exclude bits, CPU-wide only, events moved to
 * the domain's CPU (DF: one per socket, L3: one per CCX), the DF event
 * layout and what its events count (§3.5: umask 0x38 = 64-byte requests of
 * a channel, umask 0x02 = 32-byte beats of a remote link), the L3 mask
 * defaults (§3.3), the msr PMU's format and its tsc/aperf/mperf events (§4;
 * which further events a Rome's msr PMU lists — irperf needs
 * X86_FEATURE_IRPERF — is not in the facts, so the model lists none), the
 * MSR addresses and layouts
 * (docs/facts-sim-platforms.md), and the FLOPS event's merged counter pair.
 *
 * Model choices (docs/simulator.md): perf types, which CPU numbers the SMT
 * siblings get (Linux's usual x86 order: all first threads, then the
 * second), the default rates, how a partial L3 slice/thread mask scales the
 * count (by the share of slices and threads selected), and events the
 * scenario does not describe counting at a small seeded rate. The perf view
 * and the MSR view of the uncore counters are independent here.
 *
 * The proxies of memory traffic per cgroup (docs/attribution.md): facts
 * (perf's amdzen2 memory.json and cache.json): ls_refills_from_sys (0x43)
 * counts demand data-cache fills by source, umask 0x08 DRAM or IO of this
 * thread's die, 0x40 of another die; l2_pf_miss_l2_l3 (0x72) the L2
 * prefetches that miss the L2 and the L3. Model choices: the scenario
 * cgroups' DRAM reads are their only source (the background traffic, the
 * kernel's and devices', raises none; writes raise none), shared evenly by
 * the CPUs each cgroup runs on; a quarter of them are L2 prefetches (0x72),
 * the rest demand fills (0x43), local when the channel is on the CPU's
 * socket (Rome: one IO die per socket), remote otherwise
 * (amdzen2_cgroup_proxy in amdzen2-model.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdzen2-model.h"
#include "amdzen2-msr.h"
#include "util/util.h"

#define CORES AMD_CORES
#define CCX_PER_SOCKET AMD_CCX_PER_SOCKET
#define CORES_PER_CCX AMD_CORES_PER_CCX

/* perf types are dynamic; these are illustrative (the cpu PMU is PERF_TYPE_RAW) */
enum { TYPE_CPU = 4, TYPE_MSR = 10, TYPE_DF = 12, TYPE_L3 = 13 };

/* ---- topology ---------------------------------------------------------------------- */

static void where(int cpu, int *pkg, int *die, int *core, void *ud)
{
	const struct amd *a = ud;

	*pkg = amd_socket_of(a, cpu);
	*die = 0;
	*core = amd_core_of(a, cpu);
}

/* ---- perf models -------------------------------------------------------------------- */

/* A task (cpu -1, `sleep`) runs for a thousandth of CPU 0's time. */
static uint64_t task_share(uint64_t v, int cpu)
{
	return cpu < 0 ? v / 1000 : v;
}

static int cpu_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		     uint64_t *ret)
{
	const struct amd *a = data;

	*ret = task_share(amdzen2_cpu_truth(a, cpu < 0 ? 0 : cpu, attr->config,
					    sim_scn_time(a->sim, t_ns)),
			  cpu);
	return 0;
}

/* An event in a scenario cgroup: its tasks' proxies (0x43, 0x72), else the CPU-wide share. */
static int cpu_count_cgroup(void *data, const struct perf_event_attr *attr, int cpu, size_t c,
			    uint64_t t_ns, uint64_t *ret)
{
	const struct amd *a = data;
	uint64_t config = attr->config;
	unsigned ev = (unsigned)((config & 0xff) | ((config >> 24) & 0xf00));

	return amdzen2_cgroup_proxy(a, cpu, c, ev, (unsigned)(config >> 8) & 0xff,
				    sim_scn_time(a->sim, t_ns), ret);
}

/*
 * perf's generic events on Zen 2: arch/x86/events/amd/core.c
 * amd_zen2_perfmon_event_map (docs/facts-sim-platforms.md §2), in the cpu
 * PMU's layout (umask << 8 | event).
 */
static int cpu_hw_config(void *data, uint64_t hw, uint64_t *ret)
{
	static const uint64_t map[] = {
		[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
		[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
		[PERF_COUNT_HW_CACHE_REFERENCES] = 0xff60,
		[PERF_COUNT_HW_CACHE_MISSES] = 0x0964,
		[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
		[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
		[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x00a9,
	};

	if (hw >= PM_ARRAY_SIZE(map) || !map[hw])
		return -ENOENT;
	*ret = map[hw];
	return 0;
}

/* kernel-facts §3 / facts-sim-platforms §2: event 0x03 takes a merged counter pair */
static int cpu_cost(void *data, const struct perf_event_attr *attr)
{
	return (attr->config & 0xf000000ffull) == 0x03 ? 2 : 1;
}

static int msr_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		     uint64_t *ret)
{
	const struct amd *a = data;

	if (attr->config > 2)
		return -ENOENT; /* §4: only tsc, aperf, mperf are listed here */
	*ret = task_share(amdzen2_core_truth(a, cpu < 0 ? 0 : cpu, (int)attr->config,
					     sim_scn_time(a->sim, t_ns)),
			  cpu);
	return 0;
}

static int df_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		    uint64_t *ret)
{
	const struct amd *a = data;

	*ret = amdzen2_df_truth(a, amd_socket_of(a, cpu), attr->config, sim_scn_time(a->sim, t_ns));
	return 0;
}

static int l3_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		    uint64_t *ret)
{
	const struct amd *a = data;

	*ret = amdzen2_l3_truth(a, amd_ccx_of(a, cpu), attr->config, sim_scn_time(a->sim, t_ns));
	return 0;
}

/* §3.4: the DF serves a socket (refactored driver), the L3 a CCX */
static int df_domain(void *data, int cpu)
{
	return amd_socket_of(data, cpu) * CORES;
}

static int l3_domain(void *data, int cpu)
{
	const struct amd *a = data;

	return amd_socket_of(a, cpu) * CORES + amd_core_of(a, cpu) / CORES_PER_CCX * CORES_PER_CCX;
}

/* ---- the machine --------------------------------------------------------------------- */

/* The machine: the model its views share, and its MSR devices (NULL: no msr driver). */
struct machine {
	struct amd a; /* first: the perf models' data */
	struct amd_msr *msr;
};

static void amd_free(void *data)
{
	struct machine *m = data;

	amdzen2_msr_free(m->msr);
	free(m);
}

static int add_pmus(struct pm_sim *sim, struct amd *a)
{
	/* facts-perf-tools §9: arch/x86/events/amd/core.c amd_format_attr */
	static const struct sim_kv cpu_fmt[] = {
		{ "event", "config:0-7,32-35" }, { "umask", "config:8-15" },
		{ "edge", "config:18" },	 { "inv", "config:23" },
		{ "cmask", "config:24-31" },	 { NULL, NULL },
	};
	/* kernel-facts §4: the sysfs file is format/event */
	static const struct sim_kv msr_fmt[] = { { "event", "config:0-63" }, { NULL, NULL } };
	static const struct sim_kv msr_ev[] = {
		{ "tsc", "event=0x00" },
		{ "aperf", "event=0x01" },
		{ "mperf", "event=0x02" },
		{ NULL, NULL },
	};
	/* kernel-facts §3.2: F17h-F19h without PerfMonV2; F17h amd_l3 */
	static const struct sim_kv df_fmt[] = { { "event", "config:0-7,32-35,59-60" },
						{ "umask", "config:8-15" },
						{ NULL, NULL } };
	static const struct sim_kv l3_fmt[] = {
		{ "event", "config:0-7" },
		{ "umask", "config:8-15" },
		{ "slicemask", "config:48-51" },
		{ "threadmask", "config:56-63" },
		{ NULL, NULL },
	};
	const unsigned uncore = PM_SIM_NO_EXCLUDE | PM_SIM_NO_SAMPLING | PM_SIM_CPU_WIDE_ONLY;
	struct pm_sim_pmu_model cpu = { .type = TYPE_CPU,
					.counters = 6,
					.width = 48,
					.count = cpu_count,
					.count_cgroup = cpu_count_cgroup,
					.cost = cpu_cost,
					.hw_config = cpu_hw_config,
					.data = a };
	struct pm_sim_pmu_model msr = { .type = TYPE_MSR, .count = msr_count, .data = a };
	struct pm_sim_pmu_model df = { .type = TYPE_DF,
				       .counters = 4,
				       .width = 48,
				       .flags = uncore,
				       .task_err = -EINVAL,
				       .count = df_count,
				       .domain_cpu = df_domain,
				       .data = a };
	struct pm_sim_pmu_model l3 = { .type = TYPE_L3,
				       .counters = 6,
				       .width = 48,
				       .flags = uncore,
				       .task_err = -EINVAL,
				       .count = l3_count,
				       .domain_cpu = l3_domain,
				       .data = a };
	struct pm_strbuf dfm = { 0 }, l3m = { 0 };
	int r;

	for (int s = 0; s < a->sockets; s++) {
		pm_strbuf__printf(&dfm, "%s%d", s ? "," : "", s * CORES);
		for (int c = 0; c < CCX_PER_SOCKET; c++)
			pm_strbuf__printf(&l3m, "%s%d", s || c ? "," : "",
					  s * CORES + c * CORES_PER_CCX);
	}
	r = dfm.oom || l3m.oom ? -ENOMEM : 0;
	if (r == 0 && a->core_pmu)
		r = sim_pmu_sysfs(sim, "cpu", TYPE_CPU, NULL, cpu_fmt, NULL);
	if (r == 0)
		r = sim_pmu_sysfs(sim, "msr", TYPE_MSR, NULL, msr_fmt, msr_ev);
	/* a kernel without amd_uncore has neither (uncore=none) */
	if (r == 0 && a->uncore)
		r = sim_pmu_sysfs(sim, "amd_df", TYPE_DF, dfm.s, df_fmt, NULL);
	if (r == 0 && a->uncore)
		r = sim_pmu_sysfs(sim, "amd_l3", TYPE_L3, l3m.s, l3_fmt, NULL);
	pm_strbuf__done(&dfm);
	pm_strbuf__done(&l3m);
	if (r == 0 && a->core_pmu)
		r = pm_sim__add_pmu(sim, "cpu", &cpu);
	if (r == 0)
		r = pm_sim__add_pmu(sim, "msr", &msr);
	if (r == 0 && a->uncore)
		r = pm_sim__add_pmu(sim, "amd_df", &df);
	if (r == 0 && a->uncore)
		r = pm_sim__add_pmu(sim, "amd_l3", &l3);
	return r;
}

/*
 * Each CPU's caches as sysfs lists them (cpu<N>/cache/index<I>/{level,type,
 * shared_cpu_list}): L1d, L1i and L2 per core (its two threads), L3 per CCX
 * (facts §3.6: the 8 threads of its 4 cores); and one NUMA node per socket
 * (NPS1, the EPYC default: node<S>/cpulist).
 */
static int add_caches(struct pm_sim *sim, const struct amd *a)
{
	static const struct {
		const char *type;
		int level;
	} idx[] = { { "Data", 1 }, { "Instruction", 1 }, { "Unified", 2 }, { "Unified", 3 } };
	int n_cpus = a->sockets * CORES * 2, threads = a->sockets * CORES, r = 0;

	for (int c = 0; c < n_cpus && r == 0; c++) {
		int core = c % threads, first = amd_socket_of(a, c) * CORES +
						amd_core_of(a, c) / CORES_PER_CCX * CORES_PER_CCX;
		char text[4][64];

		for (int i = 0; i < 3; i++)
			snprintf(text[i], sizeof(text[i]), "%d,%d", core, core + threads);
		snprintf(text[3], sizeof(text[3]), "%d-%d,%d-%d", first, first + CORES_PER_CCX - 1,
			 first + threads, first + threads + CORES_PER_CCX - 1);
		for (int i = 0; i < 4 && r == 0; i++)
			r = sim_cache(sim, c, i, idx[i].level, idx[i].type, text[i]);
	}
	for (int s = 0; s < a->sockets && r == 0; s++) {
		char text[64];

		snprintf(text, sizeof(text), "%d-%d,%d-%d\n", s * CORES, s * CORES + CORES - 1,
			 threads + s * CORES, threads + s * CORES + CORES - 1);
		r = sim_writef(sim, text, "sys/devices/system/node/node%d/cpulist", s);
	}
	return r;
}

static int build(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	struct machine *mach = calloc(1, sizeof(*mach));
	struct amd *a = mach ? &mach->a : NULL;
	struct pm_strbuf info = { 0 };
	const char *msr;
	bool guest;
	int r, n_cpus;

	if (!mach)
		return -ENOMEM;
	a->sim = sim;
	a->sockets = o->sockets;
	/* a guest (hypervisor=kvm) gets no uncore PMUs, and its MSR device reaches no Data
	 * Fabric; kernel lockdown refuses MSR writes (kernel-facts 0.5) */
	guest = strcmp(o->hypervisor, "none") != 0;
	msr = guest						   ? "none" :
	      strcmp(o->lockdown, "none") && !strcmp(o->msr, "rw") ? "locked" :
								     o->msr;
	a->uncore = !o->no_uncore && !guest;
	a->core_pmu = strcmp(o->hypervisor, "kvm-nopmu") != 0;
	sim_set_platform_data(sim, mach, amd_free);
	n_cpus = a->sockets * CORES * 2;
	r = sim_topology(sim, n_cpus, where, a);
	if (r == 0)
		r = sim_add_common(sim);
	/* perf's CPUID string AuthenticAMD-23-31-0 (facts-perf-tools §3) */
	for (int c = 0; r == 0 && c < 2; c++)
		pm_strbuf__printf(&info,
				  "processor\t: %d\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n"
				  "model\t\t: 49\nmodel name\t: AMD EPYC 7742 64-Core Processor\n"
				  "stepping\t: 0\n%s\n",
				  c, sim_cpuinfo_flags(sim));
	if (r == 0)
		r = info.oom ? -ENOMEM : sim_writef(sim, info.s, "proc/cpuinfo");
	pm_strbuf__done(&info);
	if (r == 0)
		r = add_pmus(sim, a);
	if (r == 0)
		r = add_caches(sim, a);
	if (r == 0)
		r = amdzen2_msr_build(a, msr, o->root, &mach->msr);
	if (r == 0)
		r = sim_kmod(sim, "amd_uncore", "kernel/arch/x86/events/amd/amd-uncore.ko",
			     a->uncore	      ? SIM_KMOD_LOADED :
			     o->uncore_absent ? SIM_KMOD_ABSENT :
						SIM_KMOD_UNLOADED);
	if (r == 0)
		r = sim_kmod(sim, "msr", "kernel/arch/x86/kernel/msr.ko",
			     strcmp(msr, "none") ? SIM_KMOD_LOADED : SIM_KMOD_UNLOADED);
	/* msr=locked without lockdown: the module's allow_writes=off */
	if (r == 0 && strcmp(msr, "none"))
		r = sim_writef(sim, !strcmp(o->msr, "locked") ? "off\n" : "default\n",
			       "sys/module/msr/parameters/allow_writes");
	return r;
}

static void state(void *data, FILE *f)
{
	const struct machine *m = data;

	if (m->msr)
		amdzen2_msr_state(m->msr, f);
}

const struct sim_platform sim_platform_amdzen2 = {
	.name = "amdzen2",
	.summary = "AMD EPYC 7742 (Zen 2): 1-2 sockets, amd_df, amd_l3, msr, /dev/cpu/N/msr",
	.quantities = amdzen2_quantities,
	.n_quantities = AMD_Q__N,
	.scenario = "# built-in: steady traffic, channels and CCXs differ by up to 10%\n"
		    "seed 1\n"
		    "jitter 10%\n",
	.options = "sockets,msr,uncore,user,hypervisor",
	.build = build,
	.state = state,
};
