/* SPDX-License-Identifier: GPL-2.0-only */
/* The amdzen2 machine's /dev/cpu/N/msr devices (amdzen2-msr.c). */
#ifndef PM_SIM_AMDZEN2_MSR_H
#define PM_SIM_AMDZEN2_MSR_H

#include <stdbool.h>
#include <stdio.h>

#include "amdzen2-model.h"

struct amd_msr;

/* mode: "rw", "none" (no msr driver: *ret_msr NULL), "noperm" (opens refused), "locked"
 * (writes refused) */
int amdzen2_msr_build(struct amd *a, const char *mode, bool root, struct amd_msr **ret_msr);
void amdzen2_msr_free(struct amd_msr *m);
/* --sim state=PATH: every DF and L3 control register, and whether its counter counts. */
void amdzen2_msr_state(const struct amd_msr *m, FILE *f);

#endif
