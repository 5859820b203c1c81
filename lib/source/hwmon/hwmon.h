/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hwmon source: NVIDIA BlueField's mlxbf-pmc counters, plain sysfs files
 * under the hwmon device whose `name` is `bfperf` (kernel-facts §2). Each
 * block of that device (tile2, l3cachehalf0, pcie0, llt3, ...) is a PMU
 * named "bfperf/<block>" whose events are its event table (counter blocks:
 * `event=CODE`) or its register files (register blocks: `reg=INDEX`).
 */
#ifndef PM_SOURCE_HWMON_H
#define PM_SOURCE_HWMON_H

#include <stdbool.h>
#include <stddef.h>

#include "pmu.h"

struct pm_ctx;

/* How a block counts (kernel-facts §2.3-§2.6); the access paths differ. */
enum pm_hwmon_kind {
	PM_HWMON_COUNTER, /* eventN/counterN, 64 bits: programming clears and starts one counter */
	PM_HWMON_L3CACHE, /* the same files plus `enable`, 57 bits: all counters start together */
	PM_HWMON_CRSPACE, /* plus `enable` and `count_clock`, 32 bits */
	PM_HWMON_REGISTER, /* one read-only statistic per file (pcie 64 bits; ecc, clock_measure 32) */
};

struct pm_hwmon_block {
	char *dir; /* "sys/class/hwmon/hwmon1/tile2" */
	enum pm_hwmon_kind kind;
	unsigned counters; /* eventN/counterN pairs; 0 for register blocks */
	unsigned width;	   /* counter (or register) width in bits */
	char **regs;	   /* REGISTER: the statistics' file names; reg=i is regs[i] */
	size_t n_regs, cap_regs;
	bool truncated; /* event_list was cut before PAGE_SIZE (kernel-facts §2.4) */
};

/* Add a PMU per block of every hwmon device named bfperf. */
int pm_hwmon__discover(struct pm_ctx *ctx);
bool pm_hwmon__present(struct pm_ctx *ctx, const struct pm_pmu *p);
void pm_hwmon_block__free(struct pm_hwmon_block *b);

/* A hwmon PMU's block: its private data (pm_pmu.priv). */
static inline struct pm_hwmon_block *pm_hwmon__block(const struct pm_pmu *p)
{
	return p->priv;
}
const char *pm_hwmon_kind_name(enum pm_hwmon_kind kind);

#endif
