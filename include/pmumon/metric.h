/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The platform packs' metrics, and which events this machine counts.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_METRIC_H
#define PMUMON_METRIC_H

#include "pmumon/context.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
