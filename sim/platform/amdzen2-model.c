// SPDX-License-Identifier: GPL-2.0-only
/*
 * The amdzen2 machine's model, shared by its perf view (amdzen2.c) and its
 * MSR view (amdzen2-msr.c): the CPU numbering, the scenario's quantities
 * and every counter's cumulative truth. The hardware facts each rests on
 * are named in amdzen2.c's header comment and beside each function here.
 */
#include "amdzen2-model.h"

#include <errno.h>
#include <stdint.h>

#include "util/util.h"

const struct sim_quantity amdzen2_quantities[AMD_Q__N] = {
	[AMD_Q_DRAM_READ] = { "dram.read", "B/s", AMD_MAX_SOCKETS * 8, 6e9,
			      "DRAM read bytes per second per channel (socket * 8 + channel)" },
	[AMD_Q_DRAM_WRITE] = { "dram.write", "B/s", AMD_MAX_SOCKETS * 8, 3e9,
			       "DRAM write bytes per second per channel" },
	[AMD_Q_REMOTE_OUT] = { "remote.out", "B/s", AMD_MAX_SOCKETS * 4, 1e9,
			       "outbound bytes per second per remote link (socket * 4 + link)" },
	[AMD_Q_L3_ACCESS] = { "l3.access", "1/s", AMD_MAX_SOCKETS *AMD_CCX_PER_SOCKET, 2e8,
			      "L3 accesses per second per CCX (socket * 16 + ccx)" },
	[AMD_Q_L3_HIT] = { "l3.hit_ratio", "ratio", AMD_MAX_SOCKETS *AMD_CCX_PER_SOCKET, 0.8,
			   "share of L3 accesses that hit, per CCX" },
	[AMD_Q_CYCLES] = { "core.cycles", "Hz", AMD_MAX_CPUS, 1.6e9,
			   "unhalted core cycles per second per CPU (APERF, cycles)" },
	[AMD_Q_MPERF] = { "core.mperf", "Hz", AMD_MAX_CPUS, 1.2e9,
			  "unhalted cycles at the P0 frequency per second per CPU (MPERF)" },
	[AMD_Q_TSC] = { "core.tsc", "Hz", 1, 2.25e9, "time-stamp counter frequency" },
	[AMD_Q_INSTR] = { "core.instructions", "1/s", AMD_MAX_CPUS, 2.4e9,
			  "retired instructions per second per CPU" },
	[AMD_Q_OPS] = { "core.macro_ops", "1/s", AMD_MAX_CPUS, 2.6e9,
			"retired macro-ops per second per CPU" },
	[AMD_Q_FLOPS] = { "core.flops", "1/s", AMD_MAX_CPUS, 4e8,
			  "retired SSE/AVX floating-point operations per second per CPU" },
	[AMD_Q_L2_ACCESS] = { "l2.access", "1/s", AMD_MAX_CPUS, 5e7,
			      "demand L2 accesses per second per CPU" },
	[AMD_Q_L2_HIT] = { "l2.hit_ratio", "ratio", AMD_MAX_CPUS, 0.7,
			   "share of demand L2 accesses that hit" },
	[AMD_Q_L2_PF] = { "l2.prefetch", "1/s", AMD_MAX_CPUS, 2e7,
			  "L2 prefetches per second per CPU" },
	[AMD_Q_L2_PF_HIT] = { "l2.prefetch_hit_ratio", "ratio", AMD_MAX_CPUS, 0.5,
			      "share of L2 prefetches that hit the L2 (the misses split evenly "
			      "between L3 hits and L3 misses)" },
};

/* ---- topology ---------------------------------------------------------------------- */

/* CPU numbers: socket s core c is CPU s*64+c; its SMT sibling is +64*sockets. */
int amd_socket_of(const struct amd *a, int cpu)
{
	return (cpu % (a->sockets * AMD_CORES)) / AMD_CORES;
}

int amd_core_of(const struct amd *a, int cpu)
{
	return cpu % AMD_CORES;
}

int amd_ccx_of(const struct amd *a, int cpu)
{
	return amd_socket_of(a, cpu) * AMD_CCX_PER_SOCKET + amd_core_of(a, cpu) / AMD_CORES_PER_CCX;
}

/* ---- truth ------------------------------------------------------------------------- */

static uint64_t integral(const struct amd *a, int q, int inst, uint64_t t, double factor)
{
	return sim_count(sim_scenario__integral(sim_scn(a->sim), q, inst, t), factor);
}

static uint64_t background(const struct amd *a, uint64_t what, uint64_t where_, uint64_t t)
{
	double rate = sim_scenario__background(sim_scn(a->sim), what, where_, 1e3, 1e6);

	return sim_count((double)t / 1e9, rate);
}

/* DF event code (14 bits) from a config or DF_PERF_CTL value: kernel-facts §3.5, §3.6. */
static unsigned df_event(uint64_t config)
{
	return (unsigned)((config & 0xff) | ((config >> 24) & 0xf00) | ((config >> 47) & 0x3000));
}

uint64_t amdzen2_df_truth(const struct amd *a, int socket, uint64_t config, uint64_t t)
{
	unsigned ev = df_event(config), umask = (unsigned)(config >> 8) & 0xff;
	static const unsigned remote[] = { 0x7c7, 0x807, 0x847, 0x887 };
	const struct sim_scenario *s = sim_scn(a->sim);

	/* dram_channel_data_controller_N: 0x07 + N << 6, umask 0x38, 64 B each */
	if ((ev & 0x3f) == 0x07 && (ev >> 6) < 8 && umask == 0x38) {
		int ch = socket * 8 + (int)(ev >> 6);

		return sim_count(sim_scenario__integral(s, AMD_Q_DRAM_READ, ch, t) +
					 sim_scenario__integral(s, AMD_Q_DRAM_WRITE, ch, t),
				 1.0 / 64);
	}
	/* remote_outbound_data_controller_N, umask 0x02, 32 B beats */
	for (int l = 0; l < 4; l++)
		if (ev == remote[l] && umask == 0x02)
			return integral(a, AMD_Q_REMOTE_OUT, socket * 4 + l, t, 1.0 / 32);
	return background(a, config & 0x300000000ffffull, 0xdf00u + (unsigned)socket, t);
}

/* L3 (F17h layout): event 7:0, umask 15:8, slicemask 51:48, threadmask 63:56. */
uint64_t amdzen2_l3_truth(const struct amd *a, int ccx, uint64_t config, uint64_t t)
{
	unsigned ev = config & 0xff, umask = (config >> 8) & 0xff;
	unsigned slices = (config >> 48) & 0xf, threads = (config >> 56) & 0xff;
	const struct sim_scenario *s = sim_scn(a->sim);
	double share, acc;

	/* §3.3: the kernel selects all slices and threads when the mask is 0 */
	if (!slices)
		slices = 0xf;
	if (!threads)
		threads = 0xff;
	share = __builtin_popcount(slices) / 4.0 * __builtin_popcount(threads) / 8.0;
	if (ev != 0x04 || (umask != 0xff && umask != 0x01))
		return background(a, config & 0xffff, 0x1300u + (unsigned)ccx, t);
	acc = sim_scenario__integral(s, AMD_Q_L3_ACCESS, ccx, t);
	if (umask == 0xff) /* l3_accesses (§3.5) */
		return sim_count(acc, share);
	/* l3_misses: accesses that did not hit */
	return sim_count(acc - sim_scenario__integral2(s, AMD_Q_L3_ACCESS, ccx, AMD_Q_L3_HIT, ccx,
						       t),
			 share);
}

#define PREFETCH_SHARE 0.25 /* model choice: the share of a cgroup's DRAM reads prefetched */

int amdzen2_cgroup_proxy(const struct amd *a, int cpu, size_t c, unsigned ev, unsigned umask,
			 uint64_t t, uint64_t *ret)
{
	const struct sim_scenario *s = sim_scn(a->sim);
	double lcl = 0, rmt = 0, v;
	int n_cpus, socket;

	if (ev != 0x43 && ev != 0x72)
		return -ENOENT;
	if (cpu < 0 || !sim_cgroup_cpu(a->sim, c, cpu, &n_cpus)) {
		*ret = 0;
		return 0;
	}
	socket = amd_socket_of(a, cpu);
	for (int ch = 0; ch < a->sockets * 8; ch++) {
		double rd = sim_scenario__cgroup_integral(s, c, AMD_Q_DRAM_READ, ch, t, true);

		*(ch / 8 == socket ? &lcl : &rmt) += rd;
	}
	if (ev == 0x72)
		v = (lcl + rmt) * PREFETCH_SHARE;
	else
		v = ((umask & 0x08 ? lcl : 0) + (umask & 0x40 ? rmt : 0)) * (1 - PREFETCH_SHARE);
	*ret = sim_count(v, 1.0 / 64 / n_cpus);
	return 0;
}

/* Every scenario cgroup's proxies on cpu: what its tasks add to the CPU-wide count. */
static uint64_t cgroups_proxy(const struct amd *a, int cpu, unsigned ev, unsigned umask, uint64_t t)
{
	uint64_t v = 0, part;

	for (size_t c = 0; c < sim_scenario__cgroup_count(sim_scn(a->sim)); c++)
		if (amdzen2_cgroup_proxy(a, cpu, c, ev, umask, t, &part) == 0)
			v += part;
	return v;
}

/* Core events of seed 004's metrics; codes from docs/facts-sim-platforms.md §2. */
uint64_t amdzen2_cpu_truth(const struct amd *a, int cpu, uint64_t config, uint64_t t)
{
	unsigned ev = (unsigned)((config & 0xff) | ((config >> 24) & 0xf00));
	unsigned umask = (config >> 8) & 0xff;
	const struct sim_scenario *s = sim_scn(a->sim);
	double acc, hit;

	switch (ev) {
	case 0x76: /* ls_not_halted_cyc */
		return integral(a, AMD_Q_CYCLES, cpu, t, 1);
	case 0xc0: /* ex_ret_instr */
		return integral(a, AMD_Q_INSTR, cpu, t, 1);
	case 0xc1: /* ex_ret_cops (perf's amdzen2 name; the seed's "Macro-ops Retired") */
		return integral(a, AMD_Q_OPS, cpu, t, 1);
	case 0x03: /* fp_ret_sse_avx_ops.all (umask 0xff): the merged pair's count */
		if (umask == 0xff)
			return integral(a, AMD_Q_FLOPS, cpu, t, 1);
		break;
	case 0x60: /* l2_request_g1: demand accesses (umask 0xf9) */
		if (umask == 0xf9)
			return integral(a, AMD_Q_L2_ACCESS, cpu, t, 1);
		break;
	case 0x64: /* l2_cache_req_stat: misses (0x09), hits (0xf6) */
		acc = sim_scenario__integral(s, AMD_Q_L2_ACCESS, cpu, t);
		hit = sim_scenario__integral2(s, AMD_Q_L2_ACCESS, cpu, AMD_Q_L2_HIT, cpu, t);
		if (umask == 0xf6)
			return sim_count(hit, 1);
		if (umask == 0x09)
			return sim_count(acc, 1) - sim_count(hit, 1);
		break;
	case 0x70: /* l2_pf_hit_l2 */
	case 0x71: /* l2_pf_miss_l2_hit_l3 */
	case 0x72: /* l2_pf_miss_l2_l3 */
		/* perf's JSON uses umask 0xff, seed 004 and libpfm4's "ANY" 0x1f
		 * (facts-sim-platforms §2.4): both count every prefetch here */
		if (umask != 0x1f && umask != 0xff)
			break;
		acc = sim_scenario__integral(s, AMD_Q_L2_PF, cpu, t);
		hit = sim_scenario__integral2(s, AMD_Q_L2_PF, cpu, AMD_Q_L2_PF_HIT, cpu, t);
		if (ev == 0x70)
			return sim_count(hit, 1);
		/* the misses, split so that 0x71 + 0x72 == misses exactly */
		if (ev == 0x71)
			return sim_count(acc - hit, 0.5);
		/* 0x72: the misses' half, and the cgroups' prefetches from DRAM */
		return sim_count(acc - hit, 1) - sim_count(acc - hit, 0.5) +
		       cgroups_proxy(a, cpu, 0x72, umask, t);
	case 0x43: /* ls_refills_from_sys: the cgroups' DRAM fills; other sources seeded */
		return cgroups_proxy(a, cpu, 0x43, umask, t) +
		       (umask & ~0x48u ? background(a, config & 0xf0000ffffull, (uint64_t)cpu, t) :
					 0);
	default:
		break;
	}
	return background(a, config & 0xf0000ffffull, (uint64_t)cpu, t);
}

uint64_t amdzen2_core_truth(const struct amd *a, int cpu, int what, uint64_t t)
{
	/* what: 0 TSC, 1 APERF, 2 MPERF (the msr PMU's configs, kernel-facts §4) */
	switch (what) {
	case 0:
		return integral(a, AMD_Q_TSC, 0, t, 1);
	case 1:
		return integral(a, AMD_Q_CYCLES, cpu, t, 1);
	default:
		return integral(a, AMD_Q_MPERF, cpu, t, 1);
	}
}
