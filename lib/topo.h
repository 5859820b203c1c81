/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU topology from sys/devices/system/cpu: which package and die each CPU is on. */
#ifndef PM_TOPO_H
#define PM_TOPO_H

#include <stdbool.h>

#include "util/cpus.h"

struct pm_ctx;

struct pm_cpu_topo {
	int package; /* physical_package_id */
	int die;     /* die_id within the package (0 where the kernel has no die_id) */
	int core;    /* core_id */
	/* read only when asked (pm_topo__read_nodes, pm_topo__read_caches): */
	int node;      /* the NUMA node whose cpulist has the CPU; -1: none does */
	int cache_lvl; /* the level of the cache its rows go by (3: L3); 0: none */
	int cache_id;  /* the first CPU of that cache's shared_cpu_list; -1: no such cache */
};

struct pm_topo {
	struct pm_cpus online;	 /* the CPUs we count on */
	int nr_cpu_ids;		 /* highest online CPU + 1 */
	struct pm_cpu_topo *cpu; /* indexed by CPU number, nr_cpu_ids entries */
	int n_packages;
	int n_dies; /* distinct (package, die) pairs */
	bool nodes_read;
	int caches_level; /* the level pm_topo__read_caches was last asked for; -1: never */
};

/* Read the topology of every online CPU. Return: 0 or -errno. */
int pm_topo__read(struct pm_ctx *ctx, struct pm_topo *ret);
void pm_topo__done(struct pm_topo *t);
/* The topology of an online CPU; NULL for any other number. */
const struct pm_cpu_topo *pm_topo__cpu(const struct pm_topo *t, int cpu);
/*
 * Each online CPU's NUMA node, from sys/devices/system/node/node<N>/cpulist
 * (a CPU in none of them: node -1). -ENOENT when there is no node at all
 * (a kernel without NUMA); 0 or -errno. Once per topology.
 */
int pm_topo__read_nodes(struct pm_ctx *ctx, struct pm_topo *t);
/*
 * Each online CPU's cache of the given level (0: its highest, the last
 * level, as perf takes it), from cpu<N>/cache/index<I>/{level,
 * shared_cpu_list}: the level, and the instance as the lowest CPU sharing
 * it (perf's cache ID). A CPU with no cache of that level: cache_id -1.
 * -ENOENT when no CPU has one; 0 or -errno.
 */
int pm_topo__read_caches(struct pm_ctx *ctx, struct pm_topo *t, int level);
/* A number for (package, die) that is unique on the machine: package * 256 + die. */
int pm_topo__die_key(const struct pm_topo *t, int cpu);

#endif
