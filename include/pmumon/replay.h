/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Replays: counts recorded elsewhere, played back as a session counts.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_REPLAY_H
#define PMUMON_REPLAY_H

#include "pmumon/context.h"
#include "pmumon/session.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
