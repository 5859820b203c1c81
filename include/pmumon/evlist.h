/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event lists: the events and metrics a session counts.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_EVLIST_H
#define PMUMON_EVLIST_H

#include "pmumon/context.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * The proxies' relative error against each cgroup's traffic, declared (a
 * model input: no counter measures it; docs/attribution.md): each cgroup's
 * traffic is taken to lie within [P / (1 + rel), P / (1 - rel)] of its
 * proxies' P, one more input of the attributed rows' intervals, which then
 * hold it (PM_ROW_PROXY_BIAS_INCLUDED, pm_row.proxy_error). Without it, the
 * pack's ProxyError if it declares one, else none: the intervals exclude the
 * proxies' bias (PM_ROW_PROXY_BIAS_EXCLUDED). NaN takes back a declaration.
 * After pm_evlist__attribute_cgroups, before the session. 0; -EINVAL for a
 * list without attribution or rel outside [0, 1).
 */
PM_API int pm_evlist__attribute_proxy_error(struct pm_evlist *l, double rel);
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

#ifdef __cplusplus
}
#endif
#endif
