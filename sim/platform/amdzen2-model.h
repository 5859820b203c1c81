/* SPDX-License-Identifier: GPL-2.0-only */
/* The amdzen2 machine's model (amdzen2-model.c), shared by its perf view (amdzen2.c) and
 * its MSR devices (amdzen2-msr.c). */
#ifndef PM_SIM_AMDZEN2_MODEL_H
#define PM_SIM_AMDZEN2_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

#define AMD_CORES 64 /* per socket */
#define AMD_CCX_PER_SOCKET 16
#define AMD_CORES_PER_CCX 4
#define AMD_MAX_SOCKETS 2
#define AMD_MAX_CPUS (AMD_MAX_SOCKETS * AMD_CORES * 2)

enum amd_quantity {
	AMD_Q_DRAM_READ,
	AMD_Q_DRAM_WRITE,
	AMD_Q_REMOTE_OUT,
	AMD_Q_L3_ACCESS,
	AMD_Q_L3_HIT,
	AMD_Q_CYCLES,
	AMD_Q_MPERF,
	AMD_Q_TSC,
	AMD_Q_INSTR,
	AMD_Q_OPS,
	AMD_Q_FLOPS,
	AMD_Q_L2_ACCESS,
	AMD_Q_L2_HIT,
	AMD_Q_L2_PF,
	AMD_Q_L2_PF_HIT,
	AMD_Q__N
};
extern const struct sim_quantity amdzen2_quantities[AMD_Q__N];

struct amd {
	struct pm_sim *sim;
	int sockets;
	bool uncore;   /* the kernel has amd_uncore: amd_df and amd_l3 perf PMUs */
	bool core_pmu; /* a "cpu" PMU (a guest may have none: hypervisor=kvm-nopmu) */
};

int amd_socket_of(const struct amd *a, int cpu);
int amd_ccx_of(const struct amd *a, int cpu);
int amd_core_of(const struct amd *a, int cpu);

/* Cumulative truths at scenario time t, shared by the perf and MSR views. */
uint64_t amdzen2_df_truth(const struct amd *a, int socket, uint64_t config, uint64_t t);
uint64_t amdzen2_l3_truth(const struct amd *a, int ccx, uint64_t config, uint64_t t);
/* A core PMU event's config (the cpu PMU's layout) on cpu. */
uint64_t amdzen2_cpu_truth(const struct amd *a, int cpu, uint64_t config, uint64_t t);
/* Scenario cgroup c's proxies on cpu at scenario time t: 0x43's umask 0x08 (local DRAM) and
 * 0x40 (remote), or 0x72 (ev); -ENOENT for any other event. */
int amdzen2_cgroup_proxy(const struct amd *a, int cpu, size_t c, unsigned ev, unsigned umask,
			 uint64_t t, uint64_t *ret);
/* what: 0 TSC, 1 APERF, 2 MPERF */
uint64_t amdzen2_core_truth(const struct amd *a, int cpu, int what, uint64_t t);

#endif
