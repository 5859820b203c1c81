/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a counter source is: one file (source/NAME.c, with its discovery) that
 * defines a struct pm_source_ops, and one line in the registry
 * (source/registry.c). The session asks the registry, never a source by name:
 * which source counts an event instance (claims), and then opens, enables,
 * polls, reads, disables and closes them all in registry order.
 */
#ifndef PM_SOURCE_H
#define PM_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

struct pm_ctx;
struct pm_diag;
struct pm_evinst;
struct pm_session;

/*
 * The registry: one line a source, (ID, ops-name suffix), in the order they
 * are discovered, opened, enabled and read (perf's PMUs come first). Each
 * defines const struct pm_source_ops pm_source_NAME in its own file.
 *   perf:     the kernel's PMUs, sys/bus/event_source/devices (source/perf.c)
 *   msr:      AMD DF/L3 and APERF/MPERF through /dev/cpu/N/msr (source/msr.c)
 *   hwmon:    BlueField hwmon blocks (source/hwmon.c)
 *   replay:   counts recorded elsewhere (source/replay.c)
 *   sideband: Merrifield's SoC counters over the IOSF sideband (source/sideband.c)
 */
#define PM_SOURCE_REGISTRY(X) \
	X(PERF, perf)         \
	X(MSR, msr)           \
	X(HWMON, hwmon)       \
	X(REPLAY, replay)     \
	X(SIDEBAND, sideband)

/* A source's index in the registry: what counters and PMUs name theirs by. */
enum pm_source_id {
#define PM_SOURCE_ID(id, name) PM_SRC_##id,
	PM_SOURCE_REGISTRY(PM_SOURCE_ID)
#undef PM_SOURCE_ID
		PM_SRC__N,
};

/* Where a source finds its PMUs. */
enum pm_source_origin {
	PM_SOURCE_LIVE,	    /* on the machine this runs on */
	PM_SOURCE_RECORDED, /* in a recording (pm_ctx_opts.replay) instead of the machine */
};

struct pm_source_ops {
	const char *name; /* "perf", "msr": what --source, list and messages call it */
	enum pm_source_origin origin;
	/* Add the PMUs this source provides to ctx (pm_ctx__add_pmu); NULL: none. */
	int (*discover)(struct pm_ctx *ctx);
	/*
	 * Does this source count the event instance in, given the session's
	 * options? Asked in registry order; perf, whose claims is NULL, counts
	 * what no other source claims.
	 */
	bool (*claims)(const struct pm_session *s, const struct pm_evinst *in);
	/* Open the session's counters of this source, all disabled. */
	int (*open)(struct pm_session *s, struct pm_diag *reterr);
	/* Start / stop every counter together. */
	int (*enable)(struct pm_session *s);
	int (*disable)(struct pm_session *s);
	/* Read every counter into counter->cur. */
	int (*read)(struct pm_session *s);
	/* Close its counters and free its state (pm_session__state); NULL-safe. */
	void (*close)(struct pm_session *s);
	/* Sources pmumon polls itself (rotation, wrap): when next, and the poll. */
	uint64_t (*next_poll)(const struct pm_session *s);
	int (*poll)(struct pm_session *s);
};

/* Every source's ops, indexed by its id (source/registry.c). */
extern const struct pm_source_ops *const pm_sources[PM_SRC__N];

/* "perf", "msr": a source's name. */
const char *pm_source_name(enum pm_source_id id);

#endif
