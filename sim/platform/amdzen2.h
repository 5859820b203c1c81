/* SPDX-License-Identifier: GPL-2.0-only */
/* The amdzen2 platform's parts: the machine (amdzen2.c) and its MSR devices (amdzen2-msr.c). */
#ifndef PM_SIM_AMDZEN2_H
#define PM_SIM_AMDZEN2_H

#include <stdbool.h>
#include <stdint.h>

#include "platform.h"

#define AMD_CORES 64 /* per socket */
#define AMD_CCX_PER_SOCKET 16
#define AMD_CORES_PER_CCX 4
#define AMD_MAX_SOCKETS 2

struct amd_msr;

struct amd {
	struct pm_sim *sim;
	int sockets;
	bool uncore;	     /* the kernel has amd_uncore: amd_df and amd_l3 perf PMUs */
	bool core_pmu;	     /* a "cpu" PMU (a guest may have none: hypervisor=kvm-nopmu) */
	struct amd_msr *msr; /* the /dev/cpu/N/msr devices */
};

int amd_socket_of(const struct amd *a, int cpu);
int amd_ccx_of(const struct amd *a, int cpu);

/* Cumulative truths at scenario time t, shared by the perf and MSR views. */
uint64_t amdzen2_df_truth(const struct amd *a, int socket, uint64_t config, uint64_t t);
uint64_t amdzen2_l3_truth(const struct amd *a, int ccx, uint64_t config, uint64_t t);
/* what: 0 TSC, 1 APERF, 2 MPERF */
uint64_t amdzen2_core_truth(const struct amd *a, int cpu, int what, uint64_t t);

/* mode: "rw", "none" (no msr driver), "noperm" (opens refused), "locked" (writes refused) */
int amdzen2_msr_build(struct amd *a, const char *mode, bool root);
void amdzen2_msr_free(struct amd_msr *m);
/* --sim state=PATH: every DF and L3 control register, and whether its counter counts. */
void amdzen2_msr_state(const struct amd_msr *m, FILE *f);

#endif
