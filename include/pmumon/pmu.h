/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Discovery: the machine's PMUs, their events (aliases), its topology and its packs' screens.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_PMU_H
#define PMUMON_PMU_H

#include "pmumon/context.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
