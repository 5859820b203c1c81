/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sessions: counting an event list.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_SESSION_H
#define PMUMON_SESSION_H

#include "pmumon/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- counting ----------------------------------------------------------- */

enum pm_target_kind {
	PM_TARGET_SYSTEM, /* every online CPU (-a) */
	PM_TARGET_CPUS,	  /* a CPU list (-C) */
	PM_TARGET_TASK,	  /* one process and its children (-- command) */
	/* running processes and threads (perf stat -p, -t): pm_session_opts.pids, .tids */
	PM_TARGET_THREADS,
};

enum pm_aggr {
	PM_AGGR_FAMILY, /* one row per event, PMU instances merged (default) */
	PM_AGGR_DEVICE, /* one row per PMU instance */
	PM_AGGR_CPU,
	PM_AGGR_DIE, /* the die a pack decodes from the PMU's name, else its CPU's */
	PM_AGGR_SOCKET,
	PM_AGGR_CHANNEL, /* one row per memory channel a pack places PMUs in (its
			  * sub-channels added up); one per device for other PMUs */
	/* by the CPU a counter counts on, as perf stat's --per-core, --per-node and
	 * --per-cache; the row's domain names it ("S0-D0-C3", "N1", "S0-D0-L3-ID8") */
	PM_AGGR_CORE,  /* a physical core: (socket, die, core_id) */
	PM_AGGR_NODE,  /* a NUMA node (sys/devices/system/node/node<N>/cpulist) */
	PM_AGGR_CACHE, /* a cache instance of pm_session_opts.cache_level */
	/* one row per thread counted (PM_TARGET_THREADS), as perf stat's --per-thread:
	 * pm_row.tid and .comm name it */
	PM_AGGR_THREAD,
};

/* Where uncore counts come from (AMD DF and L3; APERF/MPERF). */
enum pm_source_choice {
	PM_SOURCE_AUTO, /* perf PMUs where the kernel has them */
	PM_SOURCE_PERF,
	PM_SOURCE_MSR, /* /dev/cpu/N/msr directly, as seed 004's monitor does */
};

struct pm_session_opts {
	size_t size; /* sizeof(struct pm_session_opts) */
	enum pm_target_kind target;
	enum pm_source_choice source;
	const char *cpus; /* PM_TARGET_CPUS */
	pid_t pid;	  /* PM_TARGET_TASK: counting starts at its exec */
	enum pm_aggr aggr;
	/*
	 * The sideband source (Merrifield's SoC counters): the programming list
	 * the user captured (docs/sideband.md), its name for messages, and
	 * whether the host bridge's PCI config space may carry the sideband
	 * where debugfs iosf_sb is absent (it races with the kernel's own users
	 * of the bus). The list is read during pm_session__open only.
	 */
	const char *program;
	size_t program_len;
	const char *program_name;
	bool sideband_pci;
	/*
	 * A counter someone else programmed is left alone. With reclaim, one
	 * programmed exactly as pmumon programs the events asked (a BlueField
	 * slot's event code, a block enabled with only those codes, a DF/L3
	 * control value), which is what a pmumon killed with SIGKILL leaves, is
	 * reset and used. Without it such a counter is named as probably
	 * pmumon's. Safe only because the lock says no other pmumon runs.
	 */
	bool reclaim;
	/*
	 * Between reads, perf counters are read into their last good values at
	 * least this often (0: every second), so that a PMU that goes away
	 * keeps its counts up to then. A daemon reading on a long interval of
	 * its own may set it to that interval: fewer wakeups, and a vanished
	 * PMU's counts end at its last read instead.
	 */
	uint64_t checkpoint_ns;
	/*
	 * PM_AGGR_CACHE: the cache level whose instances make the rows (2: L2);
	 * 0: each CPU's highest level (its last-level cache), as perf's
	 * --per-cache without a level.
	 */
	int cache_level;
	/*
	 * Every event that can tell user space from the kernel counts only one
	 * of them, as perf stat's --all-user and --all-kernel set
	 * exclude_kernel or exclude_user on every counter (util/stat.c
	 * create_perf_stat_counter). PMUs that cannot exclude (uncore) count
	 * as ever, and the log says so once.
	 */
	enum pm_space {
		PM_SPACE_ALL,
		PM_SPACE_USER,
		PM_SPACE_KERNEL,
	} space;
	/*
	 * PM_TARGET_TASK: the counters start at pm_session__enable, called
	 * after the task's exec (perf stat -D: the command runs from the
	 * start, counting begins after the delay), not at the exec.
	 */
	bool task_enable_late;
	/*
	 * PM_TARGET_THREADS: every thread of these processes (their
	 * proc/PID/task, read when the session is made, as perf stat -p) and
	 * these threads (as -t), each counted on whatever CPU it runs, with the
	 * children it makes from then on, from pm_session__enable. A PID
	 * whose proc/PID/task cannot be listed is -ESRCH.
	 */
	const pid_t *pids;
	size_t n_pids;
	const pid_t *tids;
	size_t n_tids;
	/*
	 * The default events (pm_evlist__add_defaults) this machine cannot
	 * count (the kernel refuses them as perf stat shows <not supported>:
	 * ENOENT, EOPNOTSUPP, ENXIO, ENOSYS, EINVAL; ENODEV of a core PMU) are
	 * <not supported> rows, flagged PM_ROW_UNSUPPORTED, as perf stat prints
	 * its own defaults (cycles on a guest without a virtual PMU). With
	 * this they are left out instead: no counter, no row, named by
	 * pm_session__dropped; for an exporter or a recording, where a series
	 * that can never have a value is noise. Events added otherwise keep
	 * their <not supported> rows either way.
	 */
	bool leave_out_unsupported_defaults;
	/*
	 * PM_AGGR_DEVICE: a core PMU's counters (cpu, msr) give a row per
	 * socket, as those of an uncore PMU whose cpumask spans sockets do,
	 * not one row for the whole machine, so that no place is merged away
	 * (serve: an EPYC's effective frequency per socket). perf's --no-merge
	 * keeps one row per core PMU; stat does too.
	 */
	bool device_per_socket;
	/*
	 * A row per PMU instance within each aggregation bucket, as perf
	 * stat's --no-merge (with PM_AGGR_CPU: -A --no-merge); pm_row.device
	 * names the instance. PM_AGGR_DEVICE is the same without a bucket.
	 */
	bool no_merge;
	/*
	 * PM_TARGET_THREADS with neither pids nor tids: every thread of every
	 * process (proc/PID/task of each proc/PID), as perf stat -a
	 * --per-thread. A thread gone before its counter opened is left out.
	 */
	bool all_threads;
	/*
	 * Open even when this machine can count none of the events (every row
	 * <not supported>), as perf stat runs on; without it pm_session__open
	 * fails with -ENOENT ("none of the events is supported here").
	 */
	bool allow_none_counted;
	/*
	 * Events counted in a cgroup (pm_evlist__set_cgroup, __repeat,
	 * __attribute_cgroups) are opened once per CPU, not once per cgroup per
	 * CPU, and a BPF program on the sched_switch tracepoint (Linux 5.10+)
	 * adds what each counted to the cgroup that ran and its listed
	 * ancestors, as perf stat --bpf-counters --for-each-cgroup
	 * (docs/attribution.md). cgroup v2 only; needs a library built with
	 * libbpf (else -EOPNOTSUPP, said), the real kernel (not the
	 * simulator: its os has no bpf()), CAP_BPF and CAP_PERFMON. It sits in
	 * the padding that ended the struct before it: read only from a caller
	 * whose size reaches source_opts (an older caller's padding is not asked).
	 */
	bool bpf_counters;
	/* ---- the sources' own options (struct pm_source_opt, below) ---- */
	const struct pm_source_opt *source_opts;
	size_t n_source_opts;
};

/*
 * An option of one source, which the session passes to that source
 * (pm_session_opts.source_opts): the source's name (as pm_pmu__source says
 * it), a key it takes and its value: value_len bytes, or the string when
 * value_len is 0 (the sideband's "program" is a whole programming list). Each source's keys are
 * in docs/sources.md; a source, key or value the context's sources do not
 * take is -EINVAL at pm_session__new. The session keeps its own copy.
 * The sideband's options also keep their older fields above (program,
 * program_len, program_name, sideband_pci); an option given here wins.
 */
struct pm_source_opt {
	const char *source; /* "sideband" */
	const char *key;    /* "program" */
	const char *value;
	size_t value_len;
};

PM_API int pm_session__new(struct pm_evlist *l, const struct pm_session_opts *opts,
			   struct pm_session **ret_session, struct pm_diag *reterr);
PM_API void pm_session__free(struct pm_session *s);
/* Open every counter, disabled. */
PM_API int pm_session__open(struct pm_session *s, struct pm_diag *reterr);
/* Start every counter together (ali_drw resets its counters on each open). */
PM_API int pm_session__enable(struct pm_session *s);
PM_API int pm_session__disable(struct pm_session *s);
/*
 * Read every counter now; the interval runs from the previous read. On
 * failure nothing changes: reports still show the last good read. A device
 * that goes away or fails mid-run while others still count is no failure:
 * its counters are lost (their counts stop at their last good read, their
 * rows are marked lost and partial, pm_session__lost_count says which),
 * the rest go on, and the read returns 0; it fails with the last loss's
 * error once no device counts any more.
 */
PM_API int pm_session__read(struct pm_session *s);
/* The PMU (or device) whose read failed in the last pm_session__read, or NULL. */
PM_API const char *pm_session__failed_device(const struct pm_session *s);
/*
 * Why the last pm_session__enable, __read, __poll or __disable failed, for
 * a person, as pm_session__open's reterr says why it did: msg names what
 * failed and where, device the PMU or device (as pm_session__failed_device
 * names it; "" when none), reason PM_REASON_DEVICE_LOST (it went away) or
 * PM_REASON_DEVICE_ERROR (it or its driver refused). Each of those calls
 * starts it afresh: after one that succeeded, msg is "" and the reason
 * PM_REASON_NONE (one made out of order, -EINVAL, leaves it as it was).
 * Valid until the next of those calls or the session's end.
 */
PM_API const struct pm_diag *pm_session__last_error(const struct pm_session *s);
/*
 * Devices lost since the session opened (went away, or their driver failed
 * a read: a BlueField block's EIO, EBUSY, EACCES, EINVAL, ENODEV), each
 * once: how many, and the i-th's PMU name ("bfperf/tile1", in counter
 * order; NULL past the end). The library logged each loss with its error.
 */
PM_API size_t pm_session__lost_count(const struct pm_session *s);
PM_API const char *pm_session__lost_device(const struct pm_session *s, size_t i);
/*
 * How many of the lost devices are there again (a PMU's sysfs directory,
 * a BlueField block's files): a new session, after pm_ctx__rediscover,
 * counts them again. The lost ones of this session stay lost.
 */
PM_API size_t pm_session__lost_back(const struct pm_session *s);
/*
 * Sources pmumon drives itself (the msr source rotates 8 DF events over 4
 * counters and keeps 48-bit counters from wrapping unseen) need to be
 * polled: by this monotonic time (UINT64_MAX: never), call
 * pm_session__poll. Reads poll too.
 */
PM_API uint64_t pm_session__next_poll(const struct pm_session *s);
PM_API int pm_session__poll(struct pm_session *s);
/* Which source counts event i of the list: "perf", "msr", or NULL (none opened). */
PM_API const char *pm_session__event_source(const struct pm_session *s, size_t event);
/* PM_TARGET_THREADS: how many of its threads are still there (proc/TID, as perf's
 * is_target_alive); 1 for any other target. */
PM_API size_t pm_session__threads_alive(const struct pm_session *s);
/* Counters actually opened (not the <not supported> or left-out ones). */
PM_API size_t pm_session__counter_count(const struct pm_session *s);
/* Names of the default events left out because this machine does not support
 * them (pm_session_opts.leave_out_unsupported_defaults), comma separated ("" if
 * none). Return: 0 or -ENAMETOOLONG (truncated). */
PM_API int pm_session__dropped(const struct pm_session *s, char *buf, size_t size);
/*
 * The counted command's CPU times, user and system (kernel), in
 * nanoseconds, once it has ended: wait4(2)'s rusage (or
 * getrusage(RUSAGE_CHILDREN) after it was waited for), as perf takes them.
 * From then on the tool events user_time and system_time and the metrics
 * that name them have these values, in the totals only (an interval has no
 * share of them). -EINVAL before pm_session__open.
 */
PM_API int pm_session__task_times(struct pm_session *s, uint64_t user_ns, uint64_t system_ns);

#ifdef __cplusplus
}
#endif
#endif
