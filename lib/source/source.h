/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a counter source is: one folder (source/NAME/, with its discovery and
 * its meson.build) that defines a struct pm_source_ops, one line in the
 * registry (source/id.h) and one subdir() line in lib/meson.build. The
 * session asks the registry, never a source by name: which source counts an
 * event instance (claims), and then opens, enables, polls, reads, disables
 * and closes them all in registry order. What the scheduler, aggregation
 * and doctor need to know of a source are its ops and traits below, never
 * its id. A context may add sources of its own (pm_ctx__add_source: a
 * test's, defined outside lib/), after the registry's.
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

/* Which of perf stat's comments (aggr.c shadow_of) its counters feed. */
enum pm_source_shadow {
	PM_SOURCE_SHADOW_NONE, /* none: its counts are no kernel event perf knows */
	PM_SOURCE_SHADOW_ANY,  /* as any event, by name (the tool's duration_time: a rate) */
	PM_SOURCE_SHADOW_ATTR, /* by the perf_event_attr it opened (perf's own events) */
};

/* A finding of pmumon doctor a source makes: under topic,
 * what (one line) and the fix (may be NULL), ending with its connector when a reason's
 * words follow it (pm_diag_reason). */
typedef void (*pm_doctor_fn)(void *ud, enum pm_verdict verdict, const char *topic, const char *what,
			     const char *fix, enum pm_reason reason);

/* Who pmumon doctor runs as (/proc/self/status), for a source's findings. */
struct pm_doctor_who {
	long uid;      /* effective; -1 unknown */
	uint64_t caps; /* CapEff */
	bool caps_known;
};

/* Has it capability cap (include/uapi/linux/capability.h)? Caps unknown: root has all. */
static inline bool pm_doctor_who__has(const struct pm_doctor_who *w, int cap)
{
	return w->caps_known ? (w->caps >> cap) & 1 : w->uid == 0;
}

struct pm_source_ops {
	enum pm_source_origin origin; /* the machine whose PMUs it finds (ctx.h) */
	/*
	 * Traits the scheduler and aggregation ask about. batch_sw_reads: pmumon
	 * may put its counters of PMUs in the kernel's software context into read
	 * groups of its own (one read(2) for many: perf's fds). device_per_socket:
	 * a counter's socket is its own (a recording's row was recorded on one),
	 * so a device's rows stay per socket. shadow: which perf stat comments
	 * its rows feed.
	 */
	bool batch_sw_reads;
	bool device_per_socket;
	enum pm_source_shadow shadow;
	/*
	 * The advisory lock it holds while it programs shared registers
	 * ("run/pmumon/msr.lock", pm_session__lock), which doctor checks; NULL:
	 * none (the kernel shares its counters).
	 */
	const char *lock_path;
	/* What a read-only /sys keeps it from, when it has PMUs here (doctor):
	 * "hwmon counters (BlueField) cannot be programmed"; NULL: nothing. */
	const char *needs_writable_sys;
	/*
	 * Can it count an event only while a cgroup's tasks run (pm_event.cgroup)?
	 * The kernel's perf events can; a source that reads hardware registers
	 * counts whatever runs, and the scheduler refuses its events in a cgroup.
	 */
	bool cgroups;
	/*
	 * Does it take option key=value (pm_session_opts.source_opts, value
	 * len bytes)? 0, or -EINVAL with reterr saying which it takes.
	 * pm_session__new asks before anything else; the source reads them
	 * back with pm_session__source_opt. NULL: it takes none.
	 */
	int (*option)(const char *key, const char *value, size_t len, struct pm_diag *reterr);
	/* Add the PMUs this source provides to ctx (pm_ctx__add_pmu); NULL: none. */
	int (*discover)(struct pm_ctx *ctx);
	/*
	 * Does this source count the event instance in, given the session's
	 * options? Asked in registry order; perf, whose claims is NULL, counts
	 * what no other source claims.
	 */
	bool (*claims)(const struct pm_session *s, const struct pm_evinst *in);
	/*
	 * May the instance it claimed be counted under the session's options?
	 * 0, or -EOPNOTSUPP with reterr saying why (msr's PMUs with
	 * PM_SOURCE_PERF: the kernel has none for them). NULL: always.
	 */
	int (*check)(const struct pm_session *s, const struct pm_evinst *in,
		     struct pm_diag *reterr);
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
	/* Its other findings for pmumon doctor, reading only, each said to fn: whether
	 * who can reach its devices (msr), what it needs from the user (the sideband's
	 * programming list). NULL: none. */
	void (*doctor)(struct pm_ctx *ctx, const struct pm_doctor_who *who, pm_doctor_fn fn,
		       void *ud);
};

/* The registry's sources' ops, indexed by their id (source/registry.c). */
extern const struct pm_source_ops *const pm_sources[PM_SRC__N];

/* How many sources ctx counts with: the registry's, then those it added. */
static inline size_t pm_source__count(const struct pm_ctx *ctx)
{
	return PM_SRC__N + ctx->n_added_sources;
}

/* Source i's ops (i < pm_source__count). */
static inline const struct pm_source_ops *pm_source__ops(const struct pm_ctx *ctx, size_t i)
{
	return i < PM_SRC__N ? pm_sources[i] : ctx->added_sources[i - PM_SRC__N];
}

/* Source i's name, as --source, list and messages call it ("?": none). */
static inline const char *pm_source__name(const struct pm_ctx *ctx, size_t i)
{
	return i < PM_SRC__N		 ? pm_source_name((enum pm_source_id)i) :
	       i < pm_source__count(ctx) ? ctx->added_source_names[i - PM_SRC__N] :
					   "?";
}

/* Source i if it counts on ctx's kind of machine (a live source never runs on a
 * recording, nor the recording's on a live machine), else NULL. */
static inline const struct pm_source_ops *pm_source__on(const struct pm_ctx *ctx, size_t i)
{
	const struct pm_source_ops *o = pm_source__ops(ctx, i);

	return o->origin == ctx->machine->origin ? o : NULL;
}

/*
 * Count with a source of the caller's besides the registry's (a test's,
 * defined outside lib/), named name (both borrowed: they must outlive ctx),
 * before discovery: *ret_id is its id, what its PMUs and counters name it by.
 * -EINVAL when it lacks an op the session calls of every source (open,
 * enable, disable, read, close); -EBUSY after discovery, -ENOSPC past PM_CTX_ADDED_SOURCES, -EEXIST for a
 * name taken.
 */
int pm_ctx__add_source(struct pm_ctx *ctx, const char *name, const struct pm_source_ops *ops,
		       size_t *ret_id);

struct pm_session_opts;
/* Each of opts' source options asked of its source (pm_source_ops.option): 0, or
 * -EINVAL with reterr naming the source, key or value not taken. */
int pm_source__check_opts(struct pm_ctx *ctx, const struct pm_session_opts *opts,
			  struct pm_diag *reterr);
/* Source id's option key, as the session's caller gave it (its copy): true with
 * *ret_value (len *ret_len), or false when not given. */
bool pm_session__source_opt(const struct pm_session *s, size_t id, const char *key,
			    const char **ret_value, size_t *ret_len);

#endif
