/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libpmumon: discover the machine's counting hardware, turn event specs into
 * counters, count, and report scaled values with their quality.
 *
 * Conventions: functions that can fail return 0 (or a count) or -errno;
 * out-parameters are named ret_* (reterr_* for diagnostics), come last and
 * are untouched on failure. Objects are opaque; getters return borrowed
 * pointers valid until their owner is freed. The library never prints: it
 * reports through the context's log callback and pm_diag.
 *
 * Options: struct pm_ctx_opts, pm_session_opts, pm_replay_opts and
 * pm_out_opts open with `size_t size`, which the caller sets to the size of
 * the struct it was built with:
 *
 *	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
 *
 * The library reads only the fields within size and gives every field after
 * them its default (zero), so a caller built against an older header keeps
 * working when fields are added. A size of 0 (not set) is -EINVAL; bytes
 * beyond the fields this library knows must be zero (else -E2BIG: an option
 * it cannot honour is refused, not ignored).
 *
 * Threads. The library starts no threads and has no global mutable state, so
 * separate contexts may be used from separate threads freely. One context and
 * everything made from it (PMUs, event lists, sessions, outputs, the reports
 * a session returns) is used by one thread at a time: the caller serialises
 * (e.g. a sampler thread owns them). What crosses threads is a snapshot
 * (pm_session__snapshot): an immutable copy of a report, with its own
 * strings, reference counted with atomics. Any thread may take a reference,
 * read it and drop it, concurrently and after the session, event list and
 * context are gone. A pm_out writes to one FILE from one thread at a time;
 * each reader thread renders with its own pm_out. docs/library.md has more.
 *
 * Linking: pkg-config --cflags --libs pmumon. Only the functions marked
 * PM_API are exported (lib/libpmumon.map, version PMUMON_0).
 */
#ifndef PMUMON_PMUMON_H
#define PMUMON_PMUMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The library's exported functions; everything else in it is hidden. */
#ifndef PM_API
#define PM_API __attribute__((visibility("default")))
#endif

#include "pmumon/os.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pm_ctx;
struct pm_pmu;
struct pm_alias;
struct pm_evlist;
struct pm_session;
struct pm_out;
struct pm_replay;
struct pm_snapshot;

/* ---- context ---------------------------------------------------------- */

enum pm_log_level {
	PM_LOG_WARN,
	PM_LOG_INFO,
	PM_LOG_DEBUG,
};

typedef void (*pm_log_fn)(enum pm_log_level level, const char *msg, void *userdata);
struct pm_diag;
/* A warning with a reason, as a diag (pm_ctx_opts.log_diag_fn). */
typedef void (*pm_log_diag_fn)(enum pm_log_level level, const struct pm_diag *d, void *userdata);

/*
 * A file given to the context (a pack from --events-dir): in memory, or
 * (data NULL) read through pm_ctx_opts.read_file only when a pack needs it,
 * as for a whole perf pmu-events tree of which one CPU uses a few files.
 * Messages about the file name it by its path: the user's name for it.
 */
struct pm_file {
	const char *path; /* '/'-separated: "mydir/mypack/pack.json" */
	const char *data; /* NULL: read it when needed */
	size_t len;
};

/* Read a pm_file whose data is NULL: a malloc'd buffer the library frees. Return: 0 or
 * -errno. */
typedef int (*pm_read_file_fn)(const char *path, char **ret_data, size_t *ret_len, void *userdata);

struct pm_ctx_opts {
	size_t size; /* sizeof(struct pm_ctx_opts): see the top of this file */
	/* Root of the machine's files for the real os ("/" when NULL). */
	const char *root;
	/* Another os behind the seam (the simulator); the context owns it. */
	const struct pm_os_ops *os_ops;
	void *os;
	bool simulated; /* numbers come from a simulation: say so everywhere */
	/*
	 * More packs, read after the built-in ones (the context copies them):
	 * directories with a pack.json, or a checkout of perf's pmu-events
	 * tree (its arch/<arch>/mapfile.csv picks the CPU's directory; sys/
	 * tables match PMUs by Compat). Later definitions of a metric win.
	 */
	const struct pm_file *extra_files;
	size_t n_extra_files;
	/*
	 * Count from a recording instead of this machine (pmumon import): the
	 * context takes it over, and its PMUs, CPUs and clock are the
	 * recording's. packs: the platform packs the recording's machine had,
	 * comma separated (NULL: the packs whose PMU family the file names).
	 */
	struct pm_replay *replay;
	const char *packs;
	pm_log_fn log_fn; /* NULL: silent */
	void *log_userdata;
	enum pm_log_level log_level;
	/*
	 * The messages that carry a reason (enum pm_reason: "run again with
	 * the reclaim option to reset it"), as a diag with msg, hint, reason
	 * and device, for a program with its own names for the library's
	 * options; called with log_userdata, at log_level. NULL: they go to
	 * log_fn like the rest, as "msg (hint)". Messages name the library's
	 * options, never pmumon's command-line flags.
	 */
	pm_log_diag_fn log_diag_fn;
	/*
	 * A recording's CPU, as perf's get_cpuid_str() prints it (x86
	 * "GenuineIntel-6-8F-8", arm64 the MIDR "0x00000000410fd490"): what
	 * the mapfile of a perf pmu-events tree and strcmp_cpuid_str() match.
	 * It wins over the CPU id the recording names; NULL: the recording's, if
	 * it names one. A live machine's is read from the machine.
	 */
	const char *cpuid;
	/*
	 * Reads the extra files given without data, when a pack needs them
	 * (called with read_file_userdata, during discovery; both must outlive
	 * the context). NULL: such files are missing.
	 */
	pm_read_file_fn read_file;
	void *read_file_userdata;
};

PM_API int pm_ctx__new(const struct pm_ctx_opts *opts, struct pm_ctx **ret_ctx);
PM_API void pm_ctx__free(struct pm_ctx *ctx);
/* The os the context counts through; NULL for a recording's context (it has
 * no files, counters or processes: only its own clock). */
PM_API const struct pm_os_ops *pm_ctx__os_ops(const struct pm_ctx *ctx);
PM_API void *pm_ctx__os(const struct pm_ctx *ctx);
PM_API bool pm_ctx__simulated(const struct pm_ctx *ctx);
/*
 * After discovery, what became of the packs' files: how many files or
 * entries the loader refused (each said through the log, with its file,
 * line and column: malformed JSON, a key of the wrong type, an entry that
 * is no event or metric), and whether extra file i (pm_ctx_opts.extra_files)
 * was read at all (a pack that matched named it, or perf's mapfile picked
 * its directory). A program decides whether counting with the rest is
 * right; pmumon refuses unless asked to be lenient, as perf always is.
 */
PM_API size_t pm_ctx__refused(const struct pm_ctx *ctx);
PM_API bool pm_ctx__extra_read(const struct pm_ctx *ctx, size_t i);

/*
 * Why a diag's fix is what it is, for a program that has its own names for
 * the library's options (pmumon's command line: its flags). The set is
 * stable: codes are only added, at the end. A hint with a reason ends with
 * the library's words for it, in the API's terms (from pm_diag.fix_at on);
 * such a program may put its own words in their place.
 */
enum pm_reason {
	PM_REASON_NONE,
	/* a counter programmed exactly as pmumon programs the events asked, which is
	 * what a pmumon killed with SIGKILL leaves: pm_session_opts.reclaim resets it */
	PM_REASON_NEEDS_RECLAIM,
	/* such a counter was reset because pm_session_opts.reclaim asked for it */
	PM_REASON_RECLAIMED,
	/* /dev/cpu/N/msr cannot count here: the kernel's perf PMUs may (PM_SOURCE_PERF) */
	PM_REASON_USE_SOURCE_PERF,
	/* the kernel has no perf PMU for it: /dev/cpu/N/msr can (PM_SOURCE_MSR or AUTO) */
	PM_REASON_USE_SOURCE_MSR,
	/* a sideband group needs a programming list (pm_session_opts.program) */
	PM_REASON_NEEDS_PROGRAM,
	/* no iosf_mbi: the host bridge's config space may carry the sideband
	 * (pm_session_opts.sideband_pci) */
	PM_REASON_SIDEBAND_PCI,
	/* iosf_mbi drives the bridge: pm_session_opts.sideband_pci would race it */
	PM_REASON_NO_SIDEBAND_PCI,
	/* a metric needs a constant no counter gives: pm_evlist__define (subject: its name) */
	PM_REASON_NEEDS_DEFINE,
	/* a recording needs its machine's pack named: pm_ctx_opts.packs (subject:
	 * the packs built in, comma separated, or "") */
	PM_REASON_NEEDS_PACK,
	/* the event counts whole CPUs or the uncore, not one task:
	 * PM_TARGET_SYSTEM or PM_TARGET_CPUS */
	PM_REASON_SYSTEM_WIDE,
	/* the CPUs asked leave out those the event counts on: PM_TARGET_SYSTEM,
	 * or PM_TARGET_CPUS with them (subject: the CPUs it counts on, or "") */
	PM_REASON_CPUS,
	/* after open: the device went away (the session goes on without it) */
	PM_REASON_DEVICE_LOST,
	/* after open: a read, a write or a control failed (the device, its driver, or
	 * the recording played) */
	PM_REASON_DEVICE_ERROR,
	/* what this machine has would show the right name: its PMUs (pm_ctx__pmu),
	 * their events (pm_pmu__alias), the packs' metrics (pm_ctx__metric)
	 * (subject: what to look at, as pmumon list takes it: "pmus", "events",
	 * "events PMU", "metrics"; "" for all) */
	PM_REASON_SEE_LIST,
	/* rows per NUMA node (PM_AGGR_NODE), and the machine lists no node:
	 * PM_AGGR_SOCKET or PM_AGGR_DIE */
	PM_REASON_NO_NODES,
	/* rows per cache of a level no CPU lists: pm_session_opts.cache_level a
	 * level they list, or 0 for each CPU's last (subject: the level asked, "3") */
	PM_REASON_CACHE_LEVEL,
	/* rows per cache (PM_AGGR_CACHE), and no CPU lists a cache: PM_AGGR_CORE,
	 * PM_AGGR_DIE or PM_AGGR_SOCKET */
	PM_REASON_NO_CACHES,
};

/*
 * What went wrong, for a person: msg names the thing, hint says how to fix
 * it (may be empty), and when the problem is in a text the user gave
 * (an event spec), input holds that text and pos/len the bad part.
 * reason says what kind of fix the hint ends with (hint[fix_at..] are the
 * library's words for it; fix_at is -1 without a reason), subject what
 * those words name beyond the device (see enum pm_reason), device the PMU
 * or device the failure is about ("" when none).
 */
struct pm_diag {
	char msg[512];
	char hint[512];
	char input[1024];
	int pos, len; /* -1 when there is no position */
	enum pm_reason reason;
	int fix_at;
	char device[64];
	char subject[128];
};

PM_API void pm_diag__init(struct pm_diag *d);

/* ---- discovery -------------------------------------------------------- */

/* Find every PMU and the CPU topology (done once; later calls are cheap). */
PM_API int pm_ctx__discover(struct pm_ctx *ctx);
/*
 * Forget what discovery found and look again, on the same machine (the
 * same os: a simulated machine keeps its clock and scenario): PMUs that
 * went away or came back since, the topology, the packs that match.
 * -EBUSY while an event list of the context is alive (it points into what
 * discovery found); a failure is remembered as pm_ctx__discover's is.
 */
PM_API int pm_ctx__rediscover(struct pm_ctx *ctx);
PM_API size_t pm_ctx__pmu_count(struct pm_ctx *ctx);
PM_API const struct pm_pmu *pm_ctx__pmu(struct pm_ctx *ctx, size_t i);
PM_API int pm_ctx__cpu_count(struct pm_ctx *ctx);
PM_API int pm_ctx__package_count(struct pm_ctx *ctx);
PM_API int pm_ctx__die_count(struct pm_ctx *ctx);
/* Names of the platform packs that match this machine, comma separated. */
PM_API const char *pm_ctx__packs(struct pm_ctx *ctx);
/* The CPU id its packs were matched with (perf's get_cpuid_str(); a recording's: the one
 * pm_ctx_opts.cpuid gave, else the recording's); "" when none is known. */
PM_API const char *pm_ctx__cpuid(struct pm_ctx *ctx);
/*
 * What a platform pack says its live view (pmumon top) shows: a title, its
 * metrics (comma separated, as -M takes them), how to group the rows
 * ("device", "channel", "die", "socket"; NULL: device) and a note (NULL:
 * none). pm_ctx__screen: the first matching pack's, or NULL when none has
 * one. Valid while the context lives.
 */
struct pm_screen {
	const char *title, *metrics, *group, *note;
};
PM_API const struct pm_screen *pm_ctx__screen(struct pm_ctx *ctx);
/*
 * A pack's platform-neutral name for one of its metrics (its "Monitor"
 * list), for exporters: so that one query finds memory traffic per channel
 * on every platform. name is the concept without a unit ("memory_read",
 * "l3_hit"; [a-z0-9_], the exporter adds the unit's suffix), labels what
 * the metric's name says about its place ("channel=0", comma separated;
 * "" when none). pm_ctx__monitor: the i-th of every matching pack's, NULL
 * past the end. Valid while the context lives (until pm_ctx__rediscover).
 */
struct pm_monitor_name {
	const char *metric, *name, *labels;
};
PM_API const struct pm_monitor_name *pm_ctx__monitor(struct pm_ctx *ctx, size_t i);

PM_API const char *pm_pmu__name(const struct pm_pmu *p);
/* The family: the name without an instance suffix (ali_drw_21000 -> ali_drw). */
PM_API const char *pm_pmu__family(const struct pm_pmu *p);
PM_API uint32_t pm_pmu__type(const struct pm_pmu *p); /* 0 for a PMU only MSRs provide */
/* Who counts it: "perf" (the kernel), or "msr" (pmumon through /dev/cpu/N/msr). */
PM_API const char *pm_pmu__source(const struct pm_pmu *p);
/* The CPUs its events open on, as a list; "" for per-CPU (core) PMUs. */
PM_API int pm_pmu__cpus(const struct pm_pmu *p, char *buf, size_t size);
PM_API int pm_pmu__cpu_count(const struct pm_pmu *p); /* 0 for per-CPU (core) PMUs */
/* General-purpose counters per instance, -1 when no pack knows. */
PM_API int pm_pmu__counters(const struct pm_pmu *p);
PM_API int pm_pmu__fixed_counters(const struct pm_pmu *p);
PM_API int pm_pmu__counter_width(const struct pm_pmu *p);	  /* bits, 0 unknown */
PM_API const char *pm_pmu__identifier(const struct pm_pmu *p);	  /* NULL when absent */
PM_API int pm_pmu__mux_interval_ms(const struct pm_pmu *p);	  /* -1 when absent */
PM_API const char *pm_pmu__traits_source(const struct pm_pmu *p); /* which pack, or NULL */
PM_API size_t pm_pmu__format_count(const struct pm_pmu *p);
/* Term name and its sysfs text ("config:0-7"). */
PM_API int pm_pmu__format(const struct pm_pmu *p, size_t i, const char **ret_name,
			  const char **ret_spec);
PM_API size_t pm_pmu__alias_count(const struct pm_pmu *p);
PM_API const struct pm_alias *pm_pmu__alias(const struct pm_pmu *p, size_t i);

PM_API const char *pm_alias__name(const struct pm_alias *a);
PM_API const char *pm_alias__terms(const struct pm_alias *a); /* "event=0x7,umask=0x38" */
PM_API const char *pm_alias__desc(const struct pm_alias *a);  /* NULL when none */
PM_API const char *pm_alias__unit(const struct pm_alias *a);  /* NULL when a plain count */
PM_API double pm_alias__scale(const struct pm_alias *a);
PM_API bool pm_alias__per_pkg(const struct pm_alias *a);
PM_API bool pm_alias__snapshot(const struct pm_alias *a);
PM_API const char *pm_alias__origin(const struct pm_alias *a); /* "sysfs" or a pack name */
/* The encoding on its PMU, "config=0x100003807[,config1=..]". */
PM_API int pm_alias__encoding(const struct pm_alias *a, const struct pm_pmu *p, char *buf,
			      size_t size);

/* The platform packs' metrics that match this machine, for listing. */
struct pm_metric_info {
	const char *name, *expr, *groups, *desc, *unit, *scope, *pack;
	const char *unavailable; /* why it cannot be counted here, or NULL */
	bool approximate;	 /* a vendor estimate, flagged on every value */
	bool sum_of_devices;	 /* computed per PMU instance, then added up */
	const char *note;	 /* what to know when reading it, or NULL */
};

PM_API size_t pm_ctx__metric_count(struct pm_ctx *ctx);
PM_API int pm_ctx__metric(struct pm_ctx *ctx, size_t i, struct pm_metric_info *ret);

/*
 * Does the kernel count this event spec for the calling process (opened on
 * it and closed again, as perf list asks before listing a generic event)? 1
 * yes, 0 no, -EINVAL when the spec does not resolve here.
 */
PM_API int pm_ctx__event_supported(struct pm_ctx *ctx, const char *spec);

/* perf's generic event names (cycles, page-faults, ...), for listing. */
PM_API size_t pm_generic_event_count(void);
/* Its name; *ret_kind gets "hardware" or "software". NULL past the end. */
PM_API const char *pm_generic_event(size_t i, const char **ret_kind);

/* ---- doctor: what this machine can count, and why not ------------------ */

enum pm_verdict {
	PM_VERDICT_OK,
	PM_VERDICT_WARNING, /* counting works, with a limit worth knowing */
	PM_VERDICT_PROBLEM, /* something cannot be counted until the fix is applied */
};

struct pm_finding {
	enum pm_verdict verdict;
	char topic[16]; /* "user", "perf", "lockdown", "driver", "msr", "machine",
			 * "watchdog", "container", "counters", "metrics" */
	char what[600]; /* one line: what was found */
	char fix[520];	/* the command or change that fixes it; "" when none is needed */
	/* as in struct pm_diag: the reason fix ends with (fix[fix_at..] are the
	 * library's words for it; fix_at -1: none) and what those words name */
	enum pm_reason reason;
	int fix_at;
	char subject[128];
};

/*
 * Look the machine over (docs/doctor.md): privileges, kernel lockdown, the
 * drivers the matching packs read through, msr writes, a hypervisor, the
 * NMI watchdog, a container, counters another pmumon holds, and which of
 * the packs' metrics can be computed here. Reads only: nothing is opened
 * for counting. *ret (free() it) gets *ret_n findings. 0, or -errno.
 */
PM_API int pm_ctx__doctor(struct pm_ctx *ctx, struct pm_finding **ret, size_t *ret_n);

/* ---- event lists ------------------------------------------------------ */

PM_API int pm_evlist__new(struct pm_ctx *ctx, struct pm_evlist **ret_list);
PM_API void pm_evlist__free(struct pm_evlist *l);
/* Parse and resolve one event spec in perf's syntax and add its events. */
PM_API int pm_evlist__add(struct pm_evlist *l, const char *spec, struct pm_diag *reterr);
/*
 * Add the default events: the platform pack's (memory bandwidth first) or
 * perf stat 6.1's generic ones (cpu-clock when system_wide, else
 * task-clock, as perf; then context-switches, cpu-migrations, page-faults,
 * cycles, instructions, branches, branch-misses) and the msr PMU's tsc,
 * aperf and mperf where it lists them. ret_desc gets what was chosen, for
 * the user. One this machine cannot count is a <not supported> row, as in
 * perf, or left out (pm_session_opts.leave_out_unsupported_defaults).
 */
PM_API int pm_evlist__add_defaults(struct pm_evlist *l, bool system_wide, char *ret_desc,
				   size_t desc_size, struct pm_diag *reterr);
/*
 * Add an event spec as the defaults are added: one this machine cannot count
 * (the kernel refuses it as perf stat shows <not supported>, EINVAL too) is a
 * <not supported> row, said at PM_LOG_INFO only, or left out
 * (pm_session_opts.leave_out_unsupported_defaults). For a program that picks
 * its own defaults (pmumon's perf mode: perf stat 6.1's list).
 */
PM_API int pm_evlist__add_optional(struct pm_evlist *l, const char *spec, struct pm_diag *reterr);
/* perf stat's defaults alone, never a pack's: for counting in cgroups, which a pack's
 * uncore defaults cannot be (they count the whole die, whoever runs). */
PM_API int pm_evlist__add_perf_defaults(struct pm_evlist *l, bool system_wide, char *ret_desc,
					size_t desc_size, struct pm_diag *reterr);
/*
 * Add perf stat's detailed event sets (its -d levels) up to level (1 to 3;
 * more is 3, 0 adds none), after the events already listed: the L1 data
 * and last-level cache loads and misses; then the L1 instruction cache and
 * TLBs'; then L1 data prefetches. Events this machine cannot count stay,
 * as <not supported> rows, said at PM_LOG_INFO only.
 */
PM_API int pm_evlist__add_detailed(struct pm_evlist *l, int level, struct pm_diag *reterr);
/*
 * Count event (an index below pm_evlist__count) only while tasks of one
 * cgroup run, as perf stat's cgroup options do: name is the cgroup's path
 * under the cgroup2 mount ("system.slice", "/" for the root). A cgroup is
 * counted on CPUs, so only for PM_TARGET_SYSTEM and PM_TARGET_CPUS; its
 * rows carry the name (pm_row.cgroup). -EINVAL for an empty name or "..".
 */
PM_API int pm_evlist__set_cgroup(struct pm_evlist *l, size_t event, const char *name);
/*
 * perf stat --for-each-cgroup: the whole list once for each of the n
 * cgroups named (as pm_evlist__set_cgroup takes them), in perf's order:
 * every event in the first cgroup, then every event again in the next
 * (tools/perf/util/cgroup.c, evlist__expand_cgroup), and every metric once
 * per cgroup, computed from that cgroup's events. Call it once every
 * event and metric is in the list. 0; -EINVAL for no name, an empty one or
 * "..", or a list with an event in a cgroup already; -ENOMEM (the list as
 * it was).
 */
PM_API int pm_evlist__expand_cgroups(struct pm_evlist *l, const char *const *names, size_t n);
/*
 * Memory traffic per cgroup (docs/attribution.md): the machine's uncore
 * total, as the platform pack's "Attribution" names it (a Yitian 710's DDR
 * reads, an EPYC's DRAM traffic), apportioned to the n cgroups (paths
 * under the cgroup2 mount, as pm_evlist__set_cgroup takes them; none
 * inside another: a cgroup's counts include its children's) by the core
 * proxy events the pack names, counted in each cgroup on every CPU. A
 * cgroup's share is its proxies x their bytes, capped so that the cgroups
 * never add up to more than the total; the rest is a row of its own whose
 * cgroup is PM_ATTRIB_UNATTRIBUTED (what raises no proxy event of a listed
 * cgroup: the kernel, devices, DMA, other cgroups), last in each bucket;
 * when the proxies exceed the total, the shares are scaled down to it and
 * flagged PM_ROW_ATTRIB_SCALED. Every attributed row is PM_ROW_ATTRIBUTED
 * and PM_ROW_APPROXIMATE. Rows are per machine, or per socket where the
 * session's rows are per socket and the proxies tell local from remote DRAM
 * (a 2-socket EPYC). target's pod fields (NULL: none) go to the rows'. Call
 * it once every other event and metric is in the list, and with no event in
 * a cgroup (-EINVAL). -EOPNOTSUPP (reterr says why) where no pack says how;
 * -EINVAL for a nested, repeated or empty path.
 */
#define PM_ATTRIB_UNATTRIBUTED "<unattributed>"
struct pm_attrib_target {
	const char *cgroup;
	const char *pod_namespace, *pod, *container; /* NULL: not a pod's */
};
PM_API int pm_evlist__attribute_cgroups(struct pm_evlist *l, const struct pm_attrib_target *t,
					size_t n, struct pm_diag *reterr);
/*
 * The pods of this machine's kubelet, from its files alone (no API
 * server): every directory named as the kubelet names a pod's cgroup, at
 * any depth under the cgroup2 mount's kubepods directories, for either
 * cgroup driver (cgroupfs: pod<UID>; systemd: kubepods[-QOS]-pod<UID with
 * '_' for '-'>.slice); the namespace and name from
 * /var/log/pods/NAMESPACE_NAME_UID; with containers, each container's own
 * cgroup instead (cri-containerd-ID.scope, crio-ID.scope, docker-ID.scope
 * or ID), named from /var/log/containers/POD_NAMESPACE_CONTAINER-ID.log.
 * A pod whose log directory is missing keeps its UID as its name. *ret
 * (free()) gets *ret_n of them, sorted by cgroup path.
 */
struct pm_pod {
	char cgroup[512]; /* its path under the cgroup2 mount */
	char pod_namespace[256], pod[256], uid[64];
	char container[256]; /* "" for a pod's own */
};
PM_API int pm_ctx__pods(struct pm_ctx *ctx, bool containers, struct pm_pod **ret, size_t *ret_n);
PM_API size_t pm_evlist__count(const struct pm_evlist *l);
/*
 * Add the platform packs' metrics named (or in the MetricGroups named),
 * comma separated; the events they need join the list. Rows follow for
 * every bucket the events have rows in, flagged PM_ROW_METRIC.
 */
PM_API int pm_evlist__add_metrics(struct pm_evlist *l, const char *names, struct pm_diag *reterr);
/* A constant metrics may use by name, for what no counter gives (a DDRC clock).
 * Every pack constant is a clock rate or a size: -EINVAL unless finite and > 0. */
PM_API int pm_evlist__define(struct pm_evlist *l, const char *name, double value);
/*
 * What a reader of the list's metrics should know: each pack note of the
 * metrics added (a seed's known behaviours), and each constant a metric
 * needs that neither the pack nor pm_evlist__define gives (those metrics are NaN).
 * Borrowed; valid until the next pm_evlist__add_metrics or the list's end.
 */
PM_API size_t pm_evlist__note_count(const struct pm_evlist *l);
PM_API const char *pm_evlist__note(const struct pm_evlist *l, size_t i);
/*
 * The reason a note ends with, as in struct pm_diag: PM_REASON_NEEDS_DEFINE
 * for a missing constant, *ret_subject its name, and the note's text from
 * *ret_fix_at on the library's words for it; PM_REASON_NONE for a pack's
 * note (or i past the end). ret_* may be NULL.
 */
PM_API enum pm_reason pm_evlist__note_reason(const struct pm_evlist *l, size_t i, int *ret_fix_at,
					     const char **ret_subject);
PM_API const char *pm_evlist__name(const struct pm_evlist *l, size_t i);

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

/* ---- importing counts recorded elsewhere (docs/import.md) --------------- */

enum pm_replay_format {
	PM_REPLAY_AUTO,
	PM_REPLAY_PERF_CSV,    /* perf stat -x SEP (Linux 6.1's layout) */
	PM_REPLAY_PERF_JSON,   /* perf stat -j */
	PM_REPLAY_PMUMON_CSV,  /* pmumon stat -x */
	PM_REPLAY_COUNTS_CSV,  /* raw counts from other collectors */
	PM_REPLAY_PMUMON_JSON, /* pmumon stat -j (JSON Lines) */
	PM_REPLAY_FEED,	       /* a recording the caller reads itself (pm_replay__feed) */
};

struct pm_replay_opts {
	size_t size; /* sizeof(struct pm_replay_opts) */
	enum pm_replay_format format;
	char sep;	      /* perf stat -x separator; 0: ',' (the CSVs say theirs) */
	const char *name;     /* the file's name, for messages */
	uint64_t duration_ns; /* what totals without timestamps cover; 0: unknown */
	size_t max_line;      /* the longest line, in bytes; 0: 1 MiB */
	size_t max_series;    /* distinct events x devices x CPUs; 0: 100000 */
};

/*
 * Parse a recording. Errors name the file and line and what was expected
 * there. The result goes to pm_ctx_opts.replay (which frees it) or to
 * pm_replay__free.
 *
 * pm_replay__read reads the file fd once, now: it checks every line, learns
 * its series and keeps each value, parsed, in a spill (memory up to 4 MiB,
 * then an unlinked temporary file in $TMPDIR or /tmp) that the counting
 * plays back a sample at a time; memory stays the same whatever the file's
 * size. It takes fd over and closes it (a pipe reads the same way).
 * pm_replay__parse reads a buffer (copied).
 */
PM_API int pm_replay__read(int fd, const struct pm_replay_opts *opts, struct pm_replay **ret_replay,
			   struct pm_diag *reterr);
PM_API int pm_replay__parse(const char *buf, size_t len, const struct pm_replay_opts *opts,
			    struct pm_replay **ret_replay, struct pm_diag *reterr);
PM_API void pm_replay__free(struct pm_replay *r);
/* "perf stat -x", "perf stat -j", "pmumon CSV", "counts CSV", "pmumon JSON Lines" */
PM_API const char *pm_replay__format_name(const struct pm_replay *r);
PM_API size_t pm_replay__sample_count(const struct pm_replay *r);
PM_API bool pm_replay__intervals(const struct pm_replay *r);	  /* else one total */
PM_API bool pm_replay__duration_known(const struct pm_replay *r); /* duration_time has a value */
PM_API const char *pm_replay__sim_platform(const struct pm_replay *r); /* NULL: real counts */
/* The CPU id a pmumon recording names (its cpuid column or key, a "# cpuid: ID" comment
 * line in any format); NULL: none. */
PM_API const char *pm_replay__cpuid(const struct pm_replay *r);
/* The finest rows the file has: per device, CPU, die, socket, or merged. */
PM_API enum pm_aggr pm_replay__aggr(const struct pm_replay *r);
/* Events the file only has as <not supported>, comma separated ("" if none). */
PM_API int pm_replay__unsupported(const struct pm_replay *r, char *buf, size_t size);
/* Add every event of the context's recording (counted ones) to the list. */
PM_API int pm_evlist__add_recorded(struct pm_evlist *l, struct pm_diag *reterr);
/*
 * Add the recording's event of this name (as the recording names it: "ali_drw/hif_rd/"),
 * on every place it was counted: 0, -ENOENT when the recording has no counts of it. A
 * metric's events need not be added first: a metric takes them from the recording.
 */
PM_API int pm_evlist__add_recorded_event(struct pm_evlist *l, const char *name,
					 struct pm_diag *reterr);

/*
 * A recording the caller reads itself, a sample at a time: pmumon's own
 * recordings (SQLite files, which the library does not open). Nothing is
 * parsed: the series are described up front, as the rows that were
 * recorded named them, and each sample's values come from next(). Played
 * back like a file's counts, through the same machine, events, metrics and
 * rows (pm_ctx_opts.replay).
 */
struct pm_replay_feed_series {
	const char *event;    /* as the rows named it: "ali_drw/hif_rd/", "cpu-clock" */
	const char *unit;     /* NULL or "": a plain count */
	const char *device;   /* the PMU instance of a row per device, else NULL */
	const char *cgroup;   /* counted in this cgroup; NULL: none */
	int cpu, socket, die; /* -1: not part of the row */
	/* a row per memory channel (--per-channel): its channel within die, else -1; it
	 * stands for a PMU of the event's family placed there */
	int channel;
	double scale;	    /* value / raw of a value that ran throughout; 0: unknown */
	unsigned instances; /* the PMU instances its row stood for (0: not said) */
	bool unsupported;   /* it never counted (<not supported>): no event */
};
struct pm_replay_feed_value {
	uint64_t raw, enabled_ns, running_ns;
	double value;		     /* scaled for multiplexing and unit; NaN: not counted */
	unsigned flags;		     /* the row's PM_ROW_* */
	unsigned covered, instances; /* of the row (instances 0: not said) */
	/* bounded: lo and hi are the value's 95 % interval in its unit (NaN: none) and bound
	 * how it was found (PM_BOUND_*), as they were recorded; played as the estimates they
	 * were, so totals and metrics have the interval stat gave them (docs/bounds.md).
	 * Not bounded: the replay's own (exact, or unmeasured where it was scaled). */
	bool bounded;
	double lo, hi;
	unsigned bound;
};
struct pm_replay_feed {
	size_t size;				    /* sizeof(struct pm_replay_feed) */
	const char *name;			    /* the recording, for messages */
	const struct pm_replay_feed_series *series; /* copied */
	size_t n_series;
	size_t n_samples; /* how many next() gives */
	/* the first sample's end (since counting began) and wall clock (0: none), and when
	 * it began: playing starts there (a recording's window need not start at 0) */
	uint64_t first_t_ns, first_wall_ns, start_ns;
	const char *sim_platform; /* simulated: the platform ("" unknown); NULL: real */
	const char *cpuid;	  /* the CPU id of the machine that counted; NULL: unknown */
	/*
	 * Playing starts (again): read[i] says whether the session reads series i (an
	 * event of the list, or one a metric reads); the others' values need not be given.
	 * 0 or -errno (with a message in why, NUL-terminated, size bytes).
	 */
	int (*start)(void *arg, const bool *read, size_t n, char *why, size_t size);
	/* The next sample: its end and wall clock, and each series' value in vals (zeroed
	 * before; a series the sample has no value of is flagged PM_ROW_NOT_COUNTED with a
	 * NaN value). 0 or -errno (with a message in why). */
	int (*next)(void *arg, uint64_t *ret_t_ns, uint64_t *ret_wall_ns,
		    struct pm_replay_feed_value *vals, char *why, size_t size);
	void *arg; /* must outlive the replay */
};
PM_API int pm_replay__feed(const struct pm_replay_feed *feed, struct pm_replay **ret_replay,
			   struct pm_diag *reterr);

/* One value of one event in one aggregation bucket. */
struct pm_row {
	const char *event;  /* label as the user sees it */
	const char *unit;   /* "" for a plain count */
	const char *device; /* PMU instance under PM_AGGR_DEVICE, else NULL */
	/* where the row's PMU sits, when a pack decodes its name: "die0/ch2/sub1" per
	 * device, "die0/ch2" per channel; NULL otherwise */
	const char *place;
	/* per CPU (-A), an uncore PMU's row: the domain its CPU reads for, as the
	 * PMU's cpumask (one CPU per domain) and sysfs say: "S0", "S0-D1",
	 * "L3 CPUs 4-7,68-71"; NULL for a CPU's own counts */
	const char *domain;
	int channel, subchannel; /* -1 when not part of the aggregation */
	const char *source;	 /* "perf", "msr" or "hwmon": who counted it; NULL for a metric */
	int cpu, die, socket;	 /* -1 when not part of the aggregation */
	double value;		 /* multiplex-scaled and unit-scaled; NaN when not counted */
	uint64_t raw;		 /* sum of the raw counts */
	uint64_t enabled_ns, running_ns; /* of the input with the least running share */
	double running; /* smallest running/enabled of the inputs, 0..1 (NaN: never enabled) */
	/*
	 * The PMU instances (devices) the value covers, of those the row stands
	 * for: 8 of 16 when -C leaves out a die's uncore PMUs, or a device was
	 * lost or held by another program (then PM_ROW_PARTIAL). A metric
	 * takes its least covered input's. 0 of 0: no instances (a metric of
	 * constants only).
	 */
	unsigned covered, instances;
	/*
	 * What perf stat's own layouts print (PM_OUT_PERF_*): the CPUs (or
	 * threads) whose counters add into the row, perf's "aggregate-number";
	 * their enabled and running times summed (perf's "event-runtime" is the
	 * running sum); the event's scale (perf prints 2 decimals for a
	 * fractional one); a --per-core row's core_id and a --per-node row's
	 * node (-1 otherwise); a --per-thread row's thread and its comm (else 0
	 * and NULL). A metric row has 0s.
	 */
	unsigned n_cpus;
	uint64_t enabled_sum_ns, running_sum_ns;
	double scale;
	int core, node;
	pid_t tid;
	const char *comm;
	unsigned flags; /* PM_ROW_* */
	/*
	 * A report of several runs averaged (pm_report.runs > 1, as perf stat
	 * -r): the value is the runs' mean and this the standard deviation of
	 * that mean as a percentage of it (perf's rel_stddev_stats); else 0.
	 */
	double spread_pct;
	const char *cgroup; /* the cgroup counted in (pm_evlist__set_cgroup), else NULL */
	/*
	 * What perf stat's comments take the row's event for (perf's shadow
	 * stats, tools/perf/util/stat-shadow.c of perf 6.1): PM_SHADOW_*, from
	 * the event's perf_event_attr; PM_SHADOW_NONE for a metric and what
	 * perf does not count (msr, hwmon, replayed rows). The table's comment
	 * column ("# 1.50 insn per cycle") pairs rows of one aggregation bucket.
	 */
	unsigned shadow;
	/* the attr's exclude_* bits perf pairs a comment's inputs by (PM_SHADOW_CTX_*) */
	unsigned shadow_ctx;
	/*
	 * A metric that is a ratio of two amounts (PM_ROW_RATIO: a hit or miss
	 * ratio, CPI; not a rate over duration_time): value = num / den, the
	 * ScaleUnit on num. Summed over intervals, the parts give the ratio of
	 * any stretch of time. Only with PM_ROW_RATIO do they mean anything.
	 */
	double num, den;
	/*
	 * The value's 95 % interval, in its unit (docs/bounds.md): lo <= value
	 * <= hi. lo == hi == value when every input counted all the time it
	 * was enabled; else measured from the spread of the rates pmumon saw
	 * of each input (its phases on the counters, its reads). A count's lo
	 * is never below what was counted on the hardware. A metric's
	 * interval comes from its inputs' without assuming their errors are
	 * independent. NaN where no honest bound exists, and bound says why
	 * (PM_BOUND_*): both for too few phases or an import, hi alone when
	 * counts may be missing (lo still holds). The error of an approximate
	 * formula itself (PM_ROW_APPROXIMATE) is not in it.
	 */
	double lo, hi;
	unsigned bound; /* PM_BOUND_* */
	/* an attributed row's pod (pm_evlist__attribute_cgroups), NULL when none */
	const char *pod_namespace, *pod, *container;
};

/* pm_row.bound: how lo and hi were found, in order of doubt (a row takes its inputs' worst). */
enum {
	PM_BOUND_EXACT = 0, /* every input counted all the time: lo = hi = value */
	PM_BOUND_MEASURED,  /* a 95 % interval from the spread of the rates seen */
	/* an input's counts may be missing (wrap_uncertain, reset, lost, reprogrammed):
	 * no upper bound, hi NaN (a metric: both NaN) */
	PM_BOUND_MISSING,
	/* an input was seen in too few phases or reads to measure its spread: lo, hi NaN */
	PM_BOUND_FEW,
	/* an input was extrapolated and nothing measured its spread (an import of
	 * scaled counts, a multiplexed gauge): lo, hi NaN */
	PM_BOUND_UNMEASURED,
	PM_BOUND_NO_VALUE, /* the value is NaN: so are lo and hi */
};

/* Each PM_BOUND_*'s name in CSV and JSON Lines ("exact", "measured",
 * "counts_missing", "few_samples", "unmeasured", "no_value"); NULL for another number. */
PM_API const char *pm_row_bound_name(unsigned bound);

/* pm_row.shadow: perf 6.1's stat_type of an event, and "any other event". */
enum {
	PM_SHADOW_NONE = 0,
	PM_SHADOW_OTHER,  /* counted by perf_event_open (or a tool event): the rate */
	PM_SHADOW_CLOCK,  /* cpu-clock, task-clock */
	PM_SHADOW_CYCLES, /* cycles (PERF_COUNT_HW_CPU_CYCLES) */
	PM_SHADOW_INSTRUCTIONS,
	PM_SHADOW_BRANCHES,
	PM_SHADOW_BRANCH_MISSES,
	PM_SHADOW_CACHE_REFS,
	PM_SHADOW_CACHE_MISSES,
	PM_SHADOW_STALLED_FRONTEND,
	PM_SHADOW_STALLED_BACKEND,
	PM_SHADOW_L1D,	      /* L1-dcache-loads (type HW_CACHE, config 0) */
	PM_SHADOW_L1D_MISSES, /* L1-dcache-load-misses */
	PM_SHADOW_L1I,
	PM_SHADOW_L1I_MISSES,
	PM_SHADOW_LL,
	PM_SHADOW_LL_MISSES,
	PM_SHADOW_DTLB,
	PM_SHADOW_DTLB_MISSES,
	PM_SHADOW_ITLB,
	PM_SHADOW_ITLB_MISSES,
};

/* pm_row.shadow_ctx: perf's evsel_context bits */
enum {
	PM_SHADOW_CTX_KERNEL = 1 << 0, /* exclude_kernel */
	PM_SHADOW_CTX_USER = 1 << 1,   /* exclude_user */
	PM_SHADOW_CTX_HV = 1 << 2,     /* exclude_hv */
	PM_SHADOW_CTX_HOST = 1 << 3,   /* exclude_host */
	PM_SHADOW_CTX_IDLE = 1 << 4,   /* exclude_idle */
};

enum {
	PM_ROW_MULTIPLEXED = 1 << 0, /* an input ran part of the time: value is extrapolated */
	PM_ROW_NOT_COUNTED = 1 << 1, /* an enabled input never ran: no honest value */
	PM_ROW_SNAPSHOT = 1 << 2,    /* a current value (.snapshot), not a count */
	PM_ROW_METRIC = 1 << 3,	     /* a metric computed from the event rows */
	PM_ROW_APPROXIMATE = 1 << 4, /* a vendor formula known to be an estimate */
	/* every input counted, but the formula has no value (0/0, x/0): NaN */
	PM_ROW_UNDEFINED = 1 << 5,
	/* a read came later than an input counter's wrap time at its rate (a
	 * stopped or starved pmumon): whole wraps may be missing, the value may be low */
	PM_ROW_WRAP_UNCERTAIN = 1 << 6,
	/* another program changed an input's event: pmumon stopped counting it there */
	PM_ROW_REPROGRAMMED = 1 << 7,
	/* an input went down (someone reset it): its counts in that interval are left out */
	PM_ROW_RESET = 1 << 8,
	/* the value covers fewer PMU instances than the row stands for (covered < instances) */
	PM_ROW_PARTIAL = 1 << 9,
	/* an input's device went away: its counts stop at its last good read */
	PM_ROW_LOST = 1 << 10,
	/* this machine cannot count the event (the kernel has no such event or PMU, as
	 * cycles on a VM without a virtual PMU): perf's <not supported>; with NOT_COUNTED */
	PM_ROW_UNSUPPORTED = 1 << 11,
	/* what a metric is (its formula's dimension), not a doubt: an amount of its
	 * interval (a count, bytes: intervals add up), as event rows are but for
	 * PM_ROW_SNAPSHOT; a ratio with its parts in pm_row.num and den */
	PM_ROW_AMOUNT = 1 << 12,
	PM_ROW_RATIO = 1 << 13,
	/* memory traffic apportioned to a cgroup by proxy events, not counted in it
	 * (pm_evlist__attribute_cgroups), or the rest of the total; approximate */
	PM_ROW_ATTRIBUTED = 1 << 14,
	/* the cgroups' proxies added up to more than the total: their shares were scaled
	 * down to it */
	PM_ROW_ATTRIB_SCALED = 1 << 15,
};

/* The flags that say a value is less than it seems (each shown in every output). */
#define PM_ROW_QUALITY                                                                            \
	(PM_ROW_MULTIPLEXED | PM_ROW_NOT_COUNTED | PM_ROW_UNDEFINED | PM_ROW_WRAP_UNCERTAIN |     \
	 PM_ROW_REPROGRAMMED | PM_ROW_RESET | PM_ROW_PARTIAL | PM_ROW_LOST | PM_ROW_UNSUPPORTED | \
	 PM_ROW_ATTRIB_SCALED)

/*
 * Each PM_ROW_* flag's name in CSV, JSON Lines and exposition
 * ("multiplexed", "wrap_uncertain", ...), NULL for a bit that is no flag.
 */
PM_API const char *pm_row_flag_name(unsigned flag);

struct pm_report {
	bool interval;	      /* one interval, or the totals since enable */
	uint64_t t_ns;	      /* end of the report, nanoseconds since enable */
	uint64_t duration_ns; /* what the report covers */
	uint64_t wall_ns;     /* wall clock at the read, ns since the epoch */
	enum pm_aggr aggr;
	size_t n_rows;
	const struct pm_row *rows;
	/* the runs this report averages (perf stat -r): 0 or 1 for one run; then
	 * t_ns is the runs' mean elapsed time and t_stddev_ns its mean's stddev */
	unsigned runs;
	double t_stddev_ns;
	/*
	 * The counted command's CPU times in user and kernel mode, ns: in the
	 * totals of a PM_TARGET_TASK session once pm_session__task_times gave
	 * them (its rusage). The table prints them under the elapsed time as
	 * perf stat's "seconds user" and "seconds sys" lines (one run only).
	 */
	bool task_times;
	uint64_t user_ns, system_ns;
};

/* The rows of the last interval or of the totals; valid until the next read.
 * NULL before the session is opened (pm_session__snapshot: -EINVAL). */
PM_API const struct pm_report *pm_session__report(struct pm_session *s, bool interval);

/*
 * A snapshot: an immutable copy of the report pm_session__report(s,
 * interval) gives now, with copies of every string its rows point to, in
 * one allocation. It outlives the session, its event list and its context,
 * and may cross threads (the top of this file): nothing in it changes after
 * pm_session__snapshot returns, and its reference count is atomic. The
 * caller holds the first reference; pm_snapshot__ref takes another (for
 * another thread), each pm_snapshot__unref drops one and the last frees it.
 */
PM_API int pm_session__snapshot(struct pm_session *s, bool interval,
				struct pm_snapshot **ret_snapshot);
/* Take a reference to a snapshot the caller holds one of; returns snap. */
PM_API struct pm_snapshot *pm_snapshot__ref(struct pm_snapshot *snap);
/* Drop one (NULL: nothing to do). */
PM_API void pm_snapshot__unref(struct pm_snapshot *snap);
/* Its report, valid while the caller holds a reference. */
PM_API const struct pm_report *pm_snapshot__report(const struct pm_snapshot *snap);

/* ---- output ------------------------------------------------------------- */

enum pm_out_format {
	PM_OUT_TABLE,
	PM_OUT_CSV,
	PM_OUT_JSON, /* JSON Lines */
	/* perf stat 6.1's own layouts, byte for byte (lib/out/perf.c; docs/output.md,
	 * "perf mode"): its table, its -x CSV (no header) and its -j JSON, numbers in
	 * the environment's LC_NUMERIC as perf prints them */
	PM_OUT_PERF_TABLE,
	PM_OUT_PERF_CSV,
	PM_OUT_PERF_JSON,
};

#define PM_JSON_SCHEMA 4 /* "schema" field of every JSON line (docs/output.md) */

struct pm_out_opts {
	size_t size; /* sizeof(struct pm_out_opts) */
	enum pm_out_format format;
	char sep;		  /* CSV separator, ',' by default */
	const char *target;	  /* "system wide", "CPU(s) 0-3", "'sleep 1'" */
	bool simulated;		  /* mark every record SIMULATED */
	const char *sim_platform; /* platform name when simulated */
	/* the table's numbers without thousands grouping (4009862308, not
	 * 4,009,862,308): perf stat's --no-big-num; CSV and JSON never group */
	bool no_grouping;
	/* the table: clear the screen (ANSI ESC[H ESC[2J) and repeat the header before
	 * each interval, as perf stat's --interval-clear; for a terminal only */
	bool clear_screen;
	/* the CPU id of the machine that counted (pm_ctx__cpuid): CSV's cpuid column,
	 * JSON's "cpuid" key, so an import finds its perf events again; NULL: none */
	const char *cpuid;
	/*
	 * PM_OUT_PERF_*: -x's separator as perf takes it, any string (NULL:
	 * sep); --summary (the totals after intervals: the CSV's rows start
	 * with "summary" unless no_csv_summary, as perf's --no-csv-summary);
	 * and rows per thread of the whole machine (perf stat -a --per-thread),
	 * whose threads that counted 0 perf leaves out.
	 */
	const char *perf_sep;
	bool perf_summary;
	bool perf_no_csv_summary;
	bool perf_all_threads;
};

PM_API int pm_out__new(FILE *f, const struct pm_out_opts *opts, struct pm_out **ret_out);
/* Write one report (an interval or the totals). */
PM_API int pm_out__report(struct pm_out *o, const struct pm_report *r);
PM_API void pm_out__free(struct pm_out *o);

#ifdef __cplusplus
}
#endif
#endif
