/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmumon's simulated kernel and hardware. It implements the os seam
 * (pmumon/os.h), so discovery, encoding, sources and sampling run against it
 * line for line as against a real kernel:
 *
 *  - files: a virtual tree (sim/vfs.h) with sysfs text and driver-backed files;
 *  - perf: events on PMU models with hardware counter limits, the kernel's
 *    multiplex rotation every mux interval, time_enabled/time_running, group
 *    reads, ioctls, and the drivers' rules (config masks, group limits,
 *    no exclude bits, CPU-wide only, ali_drw's reset on open);
 *  - time: a virtual clock (a 60 s run takes milliseconds and is the same on
 *    every run) or the real one;
 *  - processes: `sleep N` as a virtual process (other commands run for real
 *    under the real clock);
 *  - platforms (sim/platform/): whole machines — Yitian 710, EPYC Zen 2,
 *    BlueField-2/3, Merrifield — with their hwmon, MSR and sideband devices,
 *    driven by a workload scenario (sim/scenario.h) and its scheduled faults.
 *
 * Every count comes from a model's cumulative count function, so a test
 * knows the true answer.
 */
#ifndef PM_SIM_H
#define PM_SIM_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmumon/os.h"
#include "pmumon/sim.h"

/* Driver rules a PMU model can have (kernel-facts §0.4, §1.5, §3.4). */
enum {
	PM_SIM_NO_EXCLUDE = 1 << 0,    /* exclude_user/kernel/hv -> EINVAL */
	PM_SIM_NO_SAMPLING = 1 << 1,   /* a sample period -> EOPNOTSUPP */
	PM_SIM_ONE_PER_GROUP = 1 << 2, /* no other hardware event in its group -> EINVAL */
	PM_SIM_RESET_ON_OPEN = 1 << 3, /* every open resets the PMU's counters */
	PM_SIM_CPU_WIDE_ONLY = 1 << 4, /* pid != -1 -> task_err */
};

struct pm_sim_pmu_model {
	uint32_t type;	/* perf type the PMU answers to */
	int counters;	/* general counters per CPU context; 0: no limit */
	bool has_fixed; /* one dedicated counter for fixed_config */
	uint64_t fixed_config;
	uint64_t config_mask;	  /* the driver keeps these bits of config (0: all) */
	bool has_snapshot;	  /* snapshot_config's count is SET to the model's value */
	uint64_t snapshot_config; /* (msr cpu_thermal_margin, kernel-facts §4) */
	unsigned width;		  /* hardware counter width, for reset artefacts */
	unsigned flags;		  /* PM_SIM_* */
	int task_err;		  /* errno for per-task opens under CPU_WIDE_ONLY */
	uint64_t mux_ns;	  /* rotation period (0: 4 ms, HZ=250) */
	/* The CPU whose context an event opened on cpu lands in (amd_df and
	 * amd_l3 redirect to their domain's CPU, kernel-facts §3.4); NULL: cpu. */
	int (*domain_cpu)(void *data, int cpu);
	/* The core PMU: PERF_TYPE_HARDWARE event hw as this PMU's config, as the
	 * kernel's event map does; -ENOENT for one the CPU has no map for. */
	int (*hw_config)(void *data, uint64_t hw, uint64_t *ret_config);
	/* General counters an event takes (2 for a merged pair); NULL: 1. */
	int (*cost)(void *data, const struct perf_event_attr *attr);
	/*
	 * The cumulative count of an event at virtual time t_ns (monotonic,
	 * never decreasing): the model's truth. cpu is -1 for a task's event.
	 * Return 0, or -ENOENT for a config the hardware does not have.
	 */
	int (*count)(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		     uint64_t *ret);
	/*
	 * The same for an event opened in a cgroup, of scenario cgroup `cgroup`'s
	 * tasks on cpu (sim/cgroups.c); -ENOENT: the event counts the CPU-wide
	 * count's share instead (NULL: always).
	 */
	int (*count_cgroup)(void *data, const struct perf_event_attr *attr, int cpu, size_t cgroup,
			    uint64_t t_ns, uint64_t *ret);
	void *data;
};

/*
 * The building blocks below are the simulator's own, for pmumon's tests:
 * the platform-level API an embedder uses is in pmumon/sim.h (installed,
 * exported from libpmumon-sim); these are not exported.
 */

/* A bare simulator, with no platform: add files and PMU models by hand. */
int pm_sim__new(struct pm_sim **ret);

/* Files. */
int pm_sim__write_file(struct pm_sim *sim, const char *path, const char *text);
int pm_sim__load_tree(struct pm_sim *sim, const char *host_dir, const char *path);
int pm_sim__remove(struct pm_sim *sim, const char *path);
struct sim_vfs *pm_sim__vfs(struct pm_sim *sim);

/* perf: a PMU whose sysfs entry is at sys/bus/event_source/devices/<name>. */
int pm_sim__add_pmu(struct pm_sim *sim, const char *name, const struct pm_sim_pmu_model *m);
/* Make the next perf_event_open on PMU `name` fail with err (fault injection). */
void pm_sim__fail_next_open(struct pm_sim *sim, const char *name, int err);
/* From now on, reads of `name`'s events fail with err (0: work again): a device gone. */
/* A PMU goes away (its open events read ENODEV, new opens fail) or comes back. */
void pm_sim__pmu_presence(struct pm_sim *sim, const char *name, bool present);
void pm_sim__fail_reads(struct pm_sim *sim, const char *name, int err);
/* Counters of `name` on cpu taken by someone else: fewer left for us. */
void pm_sim__steal_counters(struct pm_sim *sim, const char *name, int cpu, int n);
/*
 * The kernel's clocks of the cgroups on cpu last ran gap_ns ago (the end of a session
 * that counted them; docs/kernel-facts.md, "A cgroup's clock after an idle spell"):
 * the next enable that makes a cgroup event the only one enabled on cpu gives that event
 * the gap, added to its enabled time (and to its running time, when it is on the counter)
 * when the clock is next brought up to date: at the next enable of a cgroup event on cpu,
 * open of an enabled event there or close of one, or at its next read while active (the
 * kernel marks the clock active); not active, at its first read after the clock moved
 * (the CPU's next cgroup switch: a busy CPU switches tasks between any two instants).
 * cpu below SIM_STEAL_CPUS; once.
 */
void pm_sim__cgroup_clock_stale(struct pm_sim *sim, int cpu, uint64_t gap_ns, bool active);
/* Opens and enables seen so far (tests check ordering). */
unsigned pm_sim__opens(const struct pm_sim *sim);
/* Did any ENABLE ioctl come before the last open? (ali_drw's reset would bite.) */
bool pm_sim__enabled_before_open(const struct pm_sim *sim);

/*
 * Locks (pm_os_ops.lock): a lock file as someone else left it, or holds it
 * now. mode has the file type (S_IFREG | 0644; S_IFLNK for a symbolic link;
 * 0: it cannot be made, as in a read-only /run, -EROFS); holder 0: nobody
 * holds it. The simulated pmumon runs as root, or as nobody (65534) with
 * user=nobody.
 */
int pm_sim__lock_file(struct pm_sim *sim, const char *path, uid_t owner, unsigned mode,
		      pid_t holder);

/* Time (pm_sim__now and pm_sim__advance are public). */
void pm_sim__use_real_clock(struct pm_sim *sim, bool real);

#endif
