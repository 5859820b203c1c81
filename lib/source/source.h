/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a counter source is: one file (source/NAME.c, with its discovery) that
 * defines a struct pm_source_ops, and one line in the registry
 * (source/id.h). The session asks the registry, never a source by name:
 * which source counts an event instance (claims), and then opens, enables,
 * polls, reads, disables and closes them all in registry order.
 */
#ifndef PM_SOURCE_H
#define PM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctx.h"
#include "source/id.h"

struct pm_ctx;
struct pm_diag;
struct pm_evinst;
struct pm_pmu;
struct pm_session;

/* A counter someone else holds: what (one line) and the fix, which ends with
 * its connector when a reason's words follow it (pm_diag_reason). */
typedef void (*pm_survey_fn)(void *ud, const char *what, const char *fix, enum pm_reason reason);

struct pm_source_ops {
	enum pm_source_origin origin; /* the machine whose PMUs it finds (ctx.h) */
	/*
	 * Can it count an event only while a cgroup's tasks run (pm_event.cgroup)?
	 * The kernel's perf events can; a source that reads hardware registers
	 * counts whatever runs, and the scheduler refuses its events in a cgroup.
	 */
	bool cgroups;
	/* Add the PMUs this source provides to ctx (pm_ctx__add_pmu); NULL: none. */
	int (*discover)(struct pm_ctx *ctx);
	/*
	 * Does this source count the event instance in, given the session's
	 * options? Asked in registry order; perf, whose claims is NULL, counts
	 * what no other source claims.
	 */
	bool (*claims)(const struct pm_session *s, const struct pm_evinst *in);
	/*
	 * Place the session's counters itself, instead of the scheduler placing
	 * every event instance on its CPUs (a recording: one counter per series
	 * it has). NULL: the scheduler places them.
	 */
	int (*plan)(struct pm_session *s, struct pm_diag *reterr);
	/* Open the session's counters of this source, all disabled. */
	int (*open)(struct pm_session *s, struct pm_diag *reterr);
	/* Start / stop every counter together. */
	int (*enable)(struct pm_session *s);
	int (*disable)(struct pm_session *s);
	/* Read every counter into counter->cur. */
	int (*read)(struct pm_session *s);
	/* Set the counters that are the session's clock itself (the tool's
	 * duration_time) from s->t_now_ns, the read's one clock, which the session
	 * takes once every source has read (a recording's read moves its clock):
	 * they are the report's time to the ns. NULL: it has none. */
	void (*clock)(struct pm_session *s);
	/* Close its counters and free its state (pm_session__state); NULL-safe. */
	void (*close)(struct pm_session *s);
	/* Sources pmumon polls itself (rotation, wrap): when next, and the poll. */
	uint64_t (*next_poll)(const struct pm_session *s);
	int (*poll)(struct pm_session *s);
	/* Is a PMU of this source that was lost there again (discovery would find it)?
	 * NULL: the source cannot tell. */
	bool (*present)(struct pm_ctx *ctx, const struct pm_pmu *p);
	/* The counters of its PMUs another program has programmed, found by reading only
	 * (nothing opened for counting, nothing written), each said to fn: pmumon doctor.
	 * NULL: the kernel shares them (perf) or the source cannot tell. */
	void (*survey)(struct pm_ctx *ctx, pm_survey_fn fn, void *ud);
};

/* Every source's ops, indexed by its id (source/registry.c). */
extern const struct pm_source_ops *const pm_sources[PM_SRC__N];

/* Source i if it counts on ctx's kind of machine (a live source never runs on a
 * recording, nor the recording's on a live machine), else NULL. */
static inline const struct pm_source_ops *pm_source__on(const struct pm_ctx *ctx, size_t i)
{
	return pm_sources[i]->origin == ctx->machine->origin ? pm_sources[i] : NULL;
}

#endif
