/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU topology from sys/devices/system/cpu: which package and die each CPU is on. */
#ifndef PM_TOPO_H
#define PM_TOPO_H

#include "util/cpus.h"

struct pm_ctx;

struct pm_cpu_topo {
	int package; /* physical_package_id */
	int die;     /* die_id within the package (0 where the kernel has no die_id) */
	int core;    /* core_id */
};

struct pm_topo {
	struct pm_cpus online;	 /* the CPUs we count on */
	int nr_cpu_ids;		 /* highest online CPU + 1 */
	struct pm_cpu_topo *cpu; /* indexed by CPU number, nr_cpu_ids entries */
	int n_packages;
	int n_dies; /* distinct (package, die) pairs */
};

/* Read the topology of every online CPU. Return: 0 or -errno. */
int pm_topo__read(struct pm_ctx *ctx, struct pm_topo *ret);
void pm_topo__done(struct pm_topo *t);
/* The topology of an online CPU; NULL for any other number. */
const struct pm_cpu_topo *pm_topo__cpu(const struct pm_topo *t, int cpu);
/* A number for (package, die) that is unique on the machine: package * 256 + die. */
int pm_topo__die_key(const struct pm_topo *t, int cpu);

#endif
