/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports and their rows: what a session counted, and snapshots of them.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_REPORT_H
#define PMUMON_REPORT_H

#include "pmumon/context.h"
#include "pmumon/session.h"

#ifdef __cplusplus
extern "C" {
#endif

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
	/* an attributed row (PM_ROW_PROXY_BIAS_INCLUDED): the proxies' declared relative
	 * error its lo and hi hold (0.1: 10 %); NaN: none declared, 0 for another row */
	double proxy_error;
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
	/* an attributed row whose interval holds the counting error only: no proxy error was
	 * declared (pm_evlist__attribute_proxy_error), so the proxies' bias is not in it */
	PM_ROW_PROXY_BIAS_EXCLUDED = 1 << 16,
	/* an attributed row whose interval holds the proxies' declared relative error too
	 * (pm_row.proxy_error, a model input no counter measures) */
	PM_ROW_PROXY_BIAS_INCLUDED = 1 << 17,
};

/* The flags that say a value is less than it seems (each shown in every output). */
#define PM_ROW_QUALITY                                                                            \
	(PM_ROW_MULTIPLEXED | PM_ROW_NOT_COUNTED | PM_ROW_UNDEFINED | PM_ROW_WRAP_UNCERTAIN |     \
	 PM_ROW_REPROGRAMMED | PM_ROW_RESET | PM_ROW_PARTIAL | PM_ROW_LOST | PM_ROW_UNSUPPORTED | \
	 PM_ROW_ATTRIB_SCALED | PM_ROW_PROXY_BIAS_EXCLUDED)

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
 * and may cross threads (pmumon/pmumon.h's top comment): nothing in it changes after
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

#ifdef __cplusplus
}
#endif
#endif
