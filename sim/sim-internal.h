/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the simulator's kernel (kernel.c), its clock (clock.c), its perf core (perf.c)
 * and the machine (platform.c), which the kernel calls through sim_machine_ops only. */
#ifndef PM_SIM_INTERNAL_H
#define PM_SIM_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scenario.h"
#include "sim.h"
#include "vfs.h"

#define SIM_MAX_FDS 65536

struct sim_platform;
struct sim_cgroups;
struct sim_node;
struct pm_sim;

/* A scenario cgroup an event opened in a cgroup directory counts, and what share of it. */
struct sim_cg_part {
	size_t cgroup;
	double frac;
};

/*
 * What a whole machine (platform.c) adds to the kernel: the kernel calls it
 * through this table only, so the kernel needs no platform's code.
 */
struct sim_machine_ops {
	/* Run the scenario's faults that are due by now. */
	void (*run_faults)(struct pm_sim *sim);
	/* The simulator time of the next fault not yet run; false when none is left. */
	bool (*next_fault_ns)(const struct pm_sim *sim, uint64_t *ret_ns);
	/* At pm_sim__free, before the kernel's own parts: write --sim state=PATH, free
	 * the platform's data and scenario. */
	void (*free)(struct pm_sim *sim);
	/* The scenario's cgroups made and removed as time passes (sim/cgroups.c). */
	void (*cgroups_tick)(struct pm_sim *sim);
	/* Which scenario cgroups (and what share of each) an event opened in directory
	 * node on cpu counts, with its share of the time (*ret_share_ppm, set only when
	 * it counts any); *ret_n 0: none (sim/cgroups.c). */
	int (*cgroup_parts)(struct pm_sim *sim, const struct sim_node *node, int cpu,
			    struct sim_cg_part **ret, size_t *ret_n, uint32_t *ret_share_ppm);
};

struct sim_pmu {
	char *name;
	struct pm_sim_pmu_model m;
	int fail_next;		    /* fault injection: errno for the next open */
	int fail_reads;		    /* fault injection: errno for every read */
	int stolen[SIM_STEAL_CPUS]; /* counters taken by someone else, per CPU */
	bool gone;		    /* vanished: opens fail with ENOENT until it returns */
	unsigned gen;		    /* bumped when it vanishes: older events read ENODEV */
};

struct sim_ctx;

struct sim_event {
	struct perf_event_attr attr;
	struct sim_pmu *pmu;
	struct sim_ctx *ctx;	  /* the context its group is in (its leader's PMU and CPU) */
	unsigned gen;		  /* the PMU's generation at open */
	int cpu;		  /* -1: follows a task */
	pid_t pid;		  /* -1: CPU-wide */
	struct sim_event *leader; /* itself for a leader */
	/* a leader's group, itself first, in open order (found without a scan) */
	struct sim_event **members;
	size_t n_members, cap_members;
	bool enabled;
	bool scheduled; /* on the hardware now (meaningful on leaders) */
	uint64_t count, ena, run;
	uint64_t t_acct; /* accounted up to here */
	/* the model's count at truth_t (the last asked: where the next segment starts) */
	uint64_t truth_t, truth_v;
	bool truth_known;
	bool exec_pending; /* enable_on_exec, waiting for its task's exec */
	/* a cgroup's event: the millionths of the time the cgroup's tasks run on its CPU
	 * (the directory's sim.share); the kernel's enabled and running times of a cgroup
	 * event advance only then, so the three read scaled by it. 1000000: CPU-wide */
	uint32_t share_ppm;
	const struct sim_node *cgroup; /* its cgroup's directory, NULL: none */
	/* the scenario's cgroups it counts (sim/cgroups.c): itself, its descendants, or
	 * a container's share of its pod; none: the model's CPU-wide count x share */
	struct sim_cg_part *cg_parts;
	size_t n_cg_parts;
	/* a stale cgroup clock (pm_sim__cgroup_clock_stale): the idle spell its enable took
	 * on, added to its enabled (and, on the counter then, running) time at its next read
	 * or the next enable of a cgroup event on its CPU; what was added */
	uint64_t gap_pending, gap_ena, gap_run;
	bool gap_lazy;	/* its cgroup's clock is not marked active: no read takes the gap */
	uint64_t gap_t; /* when it was enabled */
};

/* One PMU's events on one CPU: the kernel's flexible groups, rotated. */
struct sim_ctx {
	struct sim_pmu *pmu;
	int cpu;
	struct sim_event **groups; /* leaders, in rotation order */
	size_t n_groups, cap_groups;
	uint64_t t_acct;
	/* a CPU-wide group that a cgroup's group, ahead of it, kept off while the cgroup's
	 * tasks run here: the kernel rotates then too (merge_sched_in: rotate_necessary) */
	bool rotate_cg;
};

enum { SIM_FD_FILE = 1, SIM_FD_PERF };

struct sim_fd {
	bool used;
	int kind;
	struct sim_node *node;
	uint64_t off;
	struct sim_event *ev;
};

/* A lock file: it stays when its holder lets go, as on a real machine. */
struct sim_lock {
	char *path;
	uid_t owner;
	unsigned mode; /* type and permissions */
	pid_t holder;  /* 0: nobody holds it */
};

/* Capability bits (include/uapi/linux/capability.h) */
#define SIM_CAP_SYS_RAWIO (1ull << 17)
#define SIM_CAP_SYS_ADMIN (1ull << 21)
#define SIM_CAP_PERFMON (1ull << 38)
#define SIM_CAPS_ALL 0x1ffffffffffull /* CAP_LAST_CAP 40 */

/* the simulated daemon's PID (its threads: this and the next two), for -p/-t */
#define SIM_DAEMON_PID 1000

struct pm_sim {
	struct sim_vfs *vfs;
	struct sim_fd *fds;
	size_t n_fds, cap_fds;

	struct sim_pmu **pmus;
	size_t n_pmus, cap_pmus;
	struct sim_event **ev;
	size_t n_ev, cap_ev;
	struct sim_ctx **ctx;
	size_t n_ctx, cap_ctx;
	unsigned opens;
	/* per CPU: how long the cgroups' clocks there have not run (pm_sim__cgroup_clock_stale) */
	uint64_t cg_stale[SIM_STEAL_CPUS];
	bool cg_stale_lazy[SIM_STEAL_CPUS]; /* ... and are not marked active */
	bool enabled_before_open;
	bool any_enabled;

	bool real_clock;
	uint64_t now_ns, real_base;
	bool have_wait_mask;
	sigset_t wait_mask; /* pm_wait_sigmask at the first wait */
	pid_t next_pid;

	struct sim_lock *locks;
	size_t n_locks, cap_locks;
	uid_t uid;		/* the user pmumon runs as: 0, or 65534 (user=nobody) */
	uint64_t caps;		/* its effective capabilities (CapEff; SIM_CAP_*) */
	int paranoid;		/* kernel.perf_event_paranoid */
	bool ro_sys;		/* sysfs is mounted read-only (container=1) */
	const char *hypervisor; /* "none", "kvm", "kvm-nopmu" */
	int n_cpus;		/* as sim_topology made them */
	char *kmods;		/* modules.dep, as the platform's drivers were added */

	/* a whole platform (sim/platform/), its scenario and its faults; NULL: a bare kernel */
	const struct sim_machine_ops *machine;
	const struct sim_platform *plat;
	void *plat_data;
	void (*plat_free)(void *);
	struct sim_scenario *scn;
	uint64_t scn_start_ns;
	size_t next_fault;
	bool in_faults;
	char *state_path;	     /* --sim state=PATH: the control files, written at the end */
	struct sim_cgroups *cgroups; /* the scenario's cgroups on the machine (sim/cgroups.c) */

	/* the real os, for commands other than `sleep N` under the real clock */
	const struct pm_os_ops *real_ops;
	void *real_os;
};

/* sim/cgroups.c: the scenario's cgroups made (kubelet: "systemd", "cgroupfs" or NULL;
 * err says what is wrong), made and removed as time passes, freed; and which of them an
 * event in a directory counts (the machine's ops call these, the kernel does not). */
int sim_cgroups_build(struct pm_sim *sim, const char *kubelet, char *err, size_t errsz);
void sim_cgroups_tick(struct pm_sim *sim);
void sim_cgroups_free(struct pm_sim *sim);
int sim_cgroups_parts(struct pm_sim *sim, const struct sim_node *node, int cpu,
		      struct sim_cg_part **ret, size_t *ret_n, uint32_t *ret_share_ppm);
/* The context of ev's PMU and CPU scheduled again (its cgroup was set after open). */
void sim_perf_reschedule(struct pm_sim *sim, struct sim_event *ev);

/* Look a perf PMU up by name (NULL if the simulator has none). */
struct sim_pmu *sim_pmu_by_name(struct pm_sim *sim, const char *name);

int sim_fd_alloc(struct pm_sim *sim, struct sim_fd **ret);

int sim_perf_open(struct pm_sim *sim, const struct perf_event_attr *attr, pid_t pid, int cpu,
		  struct sim_event *leader, struct sim_event **ret);
ssize_t sim_perf_read(struct pm_sim *sim, struct sim_event *ev, void *buf, size_t len);
int sim_perf_ioctl(struct pm_sim *sim, struct sim_event *ev, unsigned long req, unsigned long arg);
void sim_perf_close(struct pm_sim *sim, struct sim_event *ev);
/* A task execs: its enable_on_exec events start. */
void sim_perf_exec(struct pm_sim *sim, pid_t pid);
/* A task exits (at the current virtual time): its events stop. */
void sim_perf_task_exit(struct pm_sim *sim, pid_t pid);
void sim_perf_done(struct pm_sim *sim);

#endif
