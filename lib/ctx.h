/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library context, at the bottom of lib/'s layers: the os seam, the
 * machine the counts come from, logging and diagnostics, and what discovery
 * found (filled in by machine.c, through the machine's ops).
 */
#ifndef PM_CTX_H
#define PM_CTX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmumon/pmumon.h"

struct pm_pmu;
struct pm_db;
struct pm_source_ops;
struct pm_embedded;
struct pm_evlist;
struct pm_topo;

/* Where a machine's PMUs are, and so which sources find and count them. */
enum pm_source_origin {
	PM_SOURCE_LIVE,	    /* on the machine this runs on */
	PM_SOURCE_RECORDED, /* in a recording (pm_ctx_opts.replay) instead of the machine */
};

/*
 * What the counts come from: the live machine behind the os seam, or a
 * recording (import is a source: source/replay/replay.c). A recording supplies what
 * it can: a clock, its PMUs and CPUs, which packs match it, the events it
 * has; it has no files and opens no counters (ctx->ops is NULL). Packs,
 * metrics and the session ask this interface and never which machine it
 * is. Chosen by pm_ctx__new (machine.c). A NULL member: the live way.
 */
struct pm_machine_ops {
	enum pm_source_origin origin;	 /* the sources that find its PMUs and count */
	const char *here;		 /* where its events are, for messages */
	enum pm_reason no_metric_reason; /* a metric not there: where to look, or what to give */
	const char *no_metric_subject;	 /* that reason's subject (pm_diag.subject) */
	bool changes;			 /* PMUs may come and go: rediscovery looks again */
	/* Find its PMUs, CPUs and packs into the context; forget them again. */
	int (*discover)(struct pm_ctx *ctx);
	void (*forget)(struct pm_ctx *ctx);
	/* Its clocks, in ns: monotonic (intervals) and wall (timestamps). */
	uint64_t (*mono_ns)(struct pm_ctx *ctx);
	uint64_t (*wall_ns)(struct pm_ctx *ctx);
	/*
	 * Does a pack match it? has_match: the pack has a Match at all; family
	 * and compat: its Match's Pmu and Compat. NULL: as the PMUs and the CPU
	 * id found say (db/pack.c).
	 */
	bool (*pack_matches)(struct pm_ctx *ctx, const char *pack, bool has_match,
			     const char *family, const char *compat);
	/* A matching pack has events on this PMU family: have a PMU of it. NULL: none to add. */
	int (*need_family)(struct pm_ctx *ctx, const char *family, const char *compat);
	/* The event of list l a metric names by spec. NULL: resolve the spec and add it. */
	int (*bind_event)(struct pm_evlist *l, const char *spec, size_t *ret_event);
	/* Its CPU id (perf's get_cpuid_str()) into buf. NULL: read from its files (db/pack.c). */
	void (*cpuid)(struct pm_ctx *ctx, char *buf, size_t size);
};

#define PM_CTX_ADDED_SOURCES 4 /* room for sources a context adds (pm_ctx__add_source) */

struct pm_ctx {
	const struct pm_os_ops *ops; /* NULL: no live machine (a recording's) */
	void *os;
	const struct pm_machine_ops *machine;

	pm_log_fn log_fn;
	pm_log_diag_fn log_diag_fn;
	void *log_userdata;
	enum pm_log_level log_level;

	bool discovered;
	int discover_err;     /* why discovery failed, if it did */
	struct pm_pmu **pmus; /* sorted by name; owned */
	size_t n_pmus, cap_pmus;
	struct pm_topo *topo; /* owned; allocated by pm_ctx__new */
	struct pm_db *db;     /* platform packs; owned */
	char *tracefs;	      /* "sys/kernel/tracing" or NULL when not mounted */
	bool simulated;
	struct pm_embedded *extra; /* packs given (--events-dir), data NULL: unread; owned */
	size_t n_extra;
	bool *extra_read;	   /* per extra file: a pack or perf table read it (db/pack.c) */
	size_t refused;		   /* files or entries the packs' loader refused, each said */
	pm_read_file_fn read_file; /* reads an extra file with NULL data (db/pack.c) */
	void *read_file_userdata;
	struct pm_replay
		*replay; /* import: the recording (machine.c, source/replay/replay.c); owned */
	size_t evlists;	 /* alive on this context: they point into what discovery found */
	/* sources this context counts with besides the registry's (source/id.h), added before
	 * discovery by pm_ctx__add_source (source/registry.c: a test's own source), with
	 * their names; their ids follow the registry's */
	const struct pm_source_ops *added_sources[PM_CTX_ADDED_SOURCES];
	const char *added_source_names[PM_CTX_ADDED_SOURCES];
	size_t n_added_sources;
};

/* Its machine's clocks (ns): monotonic and wall. */
uint64_t pm_ctx__mono_ns(struct pm_ctx *ctx);
uint64_t pm_ctx__wall_ns(struct pm_ctx *ctx);

/* Take ownership of a discovered PMU. */
int pm_ctx__add_pmu(struct pm_ctx *ctx, struct pm_pmu *p);

void pm_log(struct pm_ctx *ctx, enum pm_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A message with a reason (enum pm_reason) about a device: to the context's
 * log_diag_fn as a diag, else to log_fn as "msg (hint)". hint ends with its
 * own connector ("" or "stop it, or "): the reason's words follow it.
 */
void pm_log_reason(struct pm_ctx *ctx, enum pm_log_level level, enum pm_reason reason,
		   const char *device, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Read a whole small file into buf (NUL-terminated, trailing whitespace
 * dropped). Return: its length, -EFBIG when it does not fit, or -errno. */
ssize_t pm_read_file(struct pm_ctx *ctx, const char *path, char *buf, size_t size);
/* Read at most size-1 bytes of a file (NUL-terminated), however long it is. */
ssize_t pm_read_prefix(struct pm_ctx *ctx, const char *path, char *buf, size_t size);
/* The cgroup2 mount's path from the root, as /proc/self/mountinfo names it (its fifth
 * field; the type follows " - "), as perf's cgroupfs_find_mountpoint takes it when no
 * v1 perf_event hierarchy is mounted; else sys/fs/cgroup. */
void pm_cgroup_root(struct pm_ctx *ctx, char *buf, size_t size);
/* "/a/b/" as "a/b": a cgroup's path under the cgroup2 mount, its slashes at either end
 * trimmed ("" and "/" the root); *ret its start, the length returned. */
size_t pm_cgroup_trim(const char *p, const char **ret);
/* Read a file holding one unsigned number (base 0). */
int pm_read_u64(struct pm_ctx *ctx, const char *path, uint64_t *ret);
/* Does path exist (can it be opened for reading)? */
bool pm_path_exists(struct pm_ctx *ctx, const char *path);

/* The entries of a directory, from pm_list_names(). */
struct pm_names {
	char **name;
	size_t n, cap;
};

#define PM_DIR_MAX 8192 /* bound on the entries read from one directory */

/*
 * List the entries of a directory under the root, sorted: only directories
 * when dirs_only, only names matching glob unless it is NULL. A missing
 * directory is an empty list. Return: 0, -E2BIG (over PM_DIR_MAX) or -errno.
 */
int pm_list_names(struct pm_ctx *ctx, const char *path, bool dirs_only, const char *glob,
		  struct pm_names *ret);
void pm_names__done(struct pm_names *n);

/* A diag message into msg: the user's quoted texts longer than 64 bytes cut
 * in their middle ('ali_drw_...hif_rd'), so the reason is never cut off. */
void pm_diag_vformat(char *msg, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Fill a pm_diag; the printf-style text goes to msg, hint may be NULL. */
void pm_diag_set(struct pm_diag *d, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Give a diag pm_diag_set filled its reason and the device it is about
 * (NULL: none): the reason's words, in the API's terms and naming subject
 * where the reason has one (NULL: ""), are appended to its hint, which ends
 * with its own connector ("load it with 'modprobe msr', or ").
 */
void pm_diag_reason(struct pm_diag *d, enum pm_reason reason, const char *device,
		    const char *subject);
/* Append the reason's words (naming subject, NULL: none) to text: where they
 * start, or -1 for no reason. */
int pm_reason_append(char *text, size_t size, enum pm_reason reason, const char *subject);
/* Record the input text a diag position refers to. */
void pm_diag_point(struct pm_diag *d, const char *input, size_t pos, size_t len);

#endif
