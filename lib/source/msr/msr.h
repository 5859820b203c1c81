/* SPDX-License-Identifier: GPL-2.0-only */
/* The msr source's PMUs: amd_df and amd_l3 where the kernel has no amd_uncore. */
#ifndef PM_SOURCE_MSR_H
#define PM_SOURCE_MSR_H

#include <stdbool.h>

#include "source/source.h"

/* Is this an AMD family 17h CPU, whose register layouts the msr source knows? */
bool pm_msr__supported_cpu(struct pm_ctx *ctx);
/* On an AMD family 17h CPU with the msr driver, add the PMUs perf lacks. */
int pm_msr__discover(struct pm_ctx *ctx);

/* pmumon doctor: can who open the devices, may pmumon write them (msr-doctor.c). */
void pm_msr__doctor(struct pm_ctx *ctx, const struct pm_doctor_who *who, pm_doctor_fn fn, void *ud);

#endif
