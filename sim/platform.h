/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Simulated platforms: each builds a machine inside a pm_sim — its sysfs,
 * procfs, device and debugfs files and its PMU models — and derives every
 * count from the simulation's scenario (scenario.h). Builders use the
 * helpers below so the text formats stay the drivers' own.
 */
#ifndef PM_SIM_PLATFORM_H
#define PM_SIM_PLATFORM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"
#include "sim.h"

/* Options from the --sim spec ("amdzen2:sockets=2,msr=locked"). */
struct sim_platform_opts {
	int sockets;	    /* amdzen2: 1 or 2 */
	int channels;	    /* merrifield: memory channels of the SKU, 1 or 2 */
	const char *msr;    /* amdzen2: "rw" (default), "none", "noperm", "locked" */
	bool root;	    /* the user is root (default); false: privileged files refuse */
	bool no_uncore;	    /* amdzen2: no amd_uncore loaded (no amd_df, amd_l3) */
	bool uncore_absent; /* amdzen2 uncore=none: not even in the kernel's modules */
	/* what every platform takes (docs/simulator.md): the user's capabilities, kernel
	 * settings, where the machine runs */
	const char *user;	/* "root" (default), "nobody", "perfmon" */
	int paranoid;		/* kernel.perf_event_paranoid (2) */
	const char *lockdown;	/* "none" (default), "integrity", "confidentiality" */
	bool watchdog;		/* the NMI watchdog holds a core counter on every CPU */
	const char *hypervisor; /* amdzen2: "none" (default), "kvm", "kvm-nopmu" */
	bool container;		/* in a container: sysfs read-only, no debugfs */
	const char *kubelet;	/* a kubelet hierarchy: "systemd", "cgroupfs"; NULL: none */
};

#define SIM_OSRELEASE "6.1.0-sim" /* the simulated kernel's uname -r */

/* A kernel module the platform's devices come from: loaded (/sys/module/NAME), in
 * modules.dep but not loaded, or not in the kernel at all. */
enum sim_kmod_state { SIM_KMOD_LOADED, SIM_KMOD_UNLOADED, SIM_KMOD_ABSENT };
int sim_kmod(struct pm_sim *sim, const char *module, const char *file, enum sim_kmod_state st);
/* The "flags" line a platform's /proc/cpuinfo has for the hypervisor option ("" none). */
const char *sim_cpuinfo_flags(const struct pm_sim *sim);

struct sim_platform {
	const char *name;
	const char *summary;
	const struct sim_quantity *quantities;
	size_t n_quantities;
	const char *scenario; /* built-in scenario text, used without scenario=FILE */
	/* which of the generic options it takes, e.g. "sockets,msr" */
	const char *options;
	int (*build)(struct pm_sim *sim, const struct sim_platform_opts *o);
	/*
	 * --sim state=PATH: the control registers of its devices that are not
	 * files (MSRs, the sideband's counter block), one "name: value" line
	 * each, after the hwmon control files; NULL: none. data is the
	 * platform data (sim_set_platform_data).
	 */
	void (*state)(void *data, FILE *f);
};

extern const struct sim_platform sim_platform_yitian710;
extern const struct sim_platform sim_platform_amdzen2;
extern const struct sim_platform sim_platform_bluefield2;
extern const struct sim_platform sim_platform_bluefield3;
extern const struct sim_platform sim_platform_merrifield;

/* ---- for builders ---------------------------------------------------------------- */

/* Write a text file at a printf-formatted path. */
int sim_writef(struct pm_sim *sim, const char *text, const char *path_fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* CPU topology: cpu/online, each CPU's package, die and core ids. */
typedef void (*sim_cpu_fn)(int cpu, int *ret_pkg, int *ret_die, int *ret_core, void *ud);
int sim_topology(struct pm_sim *sim, int n_cpus, sim_cpu_fn where, void *ud);

/* One of a CPU's caches as sysfs lists it, each file with its newline:
 * cpu<cpu>/cache/index<index>/{level,type,shared_cpu_list} ("Data",
 * "Instruction" or "Unified"; a CPU list such as "0-3,64-67"). */
int sim_cache(struct pm_sim *sim, int cpu, int index, int level, const char *type,
	      const char *shared_cpu_list);

/* A perf PMU's sysfs directory; formats and events are NULL-terminated
 * {name, value} pairs written with a trailing newline. */
struct sim_kv {
	const char *k, *v;
};
int sim_pmu_sysfs(struct pm_sim *sim, const char *name, uint32_t type, const char *cpumask,
		  const struct sim_kv *formats, const struct sim_kv *events);
/* software, tracepoint and perf_event_paranoid: what every kernel has. */
int sim_add_common(struct pm_sim *sim);

/* The scenario and the time it has run for at "now" (0 before it starts). */
const struct sim_scenario *sim_scn(const struct pm_sim *sim);
uint64_t sim_scn_now(const struct pm_sim *sim);
/* The same for an absolute simulator time (a perf model's t_ns). */
uint64_t sim_scn_time(const struct pm_sim *sim, uint64_t t_ns);
/* floor(integral * factor): a count from a scenario integral, never negative. */
uint64_t sim_count(double integral, double factor);

/* Does scenario cgroup c run on cpu? *ret_n_cpus: on how many CPUs it runs (its traffic is
 * shared evenly by them). */
bool sim_cgroup_cpu(const struct pm_sim *sim, size_t c, int cpu, int *ret_n_cpus);

/* Keep platform state with the simulator; freed with it by free_fn. */
void sim_set_platform_data(struct pm_sim *sim, void *data, void (*free_fn)(void *));

#endif
