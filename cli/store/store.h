/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A recording in SQLite (docs/record.md has the schema): the runs, the
 * series (an event or metric at a place) and every interval's values with
 * their quality. The command line's only store; lib/ never sees SQLite.
 */
#ifndef PMUMON_CLI_STORE_H
#define PMUMON_CLI_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmumon/pmumon.h"

/* PRAGMA user_version of the files this pmumon writes: 2 added run.cpuid, 3 series.cgroup,
 * 4 value.lo, value.hi, value.bound (the 95 % intervals), 5 run.defines, run.ended_wall_ns,
 * run.lost, sample.n and sample.lengths (blocks), value keyed by time (and two indexes) */
#define STORE_VERSION 5

struct store;

struct store_run {
	const char *command; /* the command line */
	const char *version, *platform, *sim_platform;
	bool simulated;
	uint64_t interval_ms;
	const char *aggr;
	const char *cpuid;   /* the machine's CPU id (pm_ctx__cpuid), NULL or "": unknown */
	const char *defines; /* the constants metrics were given: "name=value,..."; NULL: none */
	uint64_t started_wall_ns; /* the machine's wall clock when counting began; 0: now */
};

/*
 * Open FILE for recording: create it (or, with overwrite, replace it), or
 * append a run to a recording of this version or an older one (migrated
 * in one transaction). A newer file is refused. 0 or -errno; *ret_err
 * says why in words (static or owned by the store: valid until free).
 */
int store_open_write(const char *path, bool overwrite, const struct store_run *run,
		     struct store **ret, const char **ret_err);
/*
 * The same, but nothing is created, replaced or changed until the first interval is
 * written (store_append): until then only checked (a directory that can take the file, a
 * recording that can take a run). If that first write fails, what it created is removed:
 * a failed start leaves no file, and an existing recording as it was.
 */
int store_open_lazy(const char *path, bool overwrite, const struct store_run *run,
		    struct store **ret, const char **ret_err);
/* The wall clock at which counting began, for the run's row (before its first interval). */
void store_set_started(struct store *st, uint64_t wall_ns);
/*
 * Intervals per transaction (1, the default: each its own). A pmumon killed outright loses
 * the intervals of the transaction still open: record keeps n x interval <= 100 ms.
 */
void store_set_batch(struct store *st, unsigned n);
/* Intervals a block holds (1, the default: each interval its own rows): n intervals of its
 * own rows become one row per series in the transaction of the n-th (docs/record.md). */
void store_set_blocks(struct store *st, unsigned n);
/* With max_bytes: the WAL is checkpointed into the file after every transaction, so what
 * is on disk is the file (and one transaction's WAL). */
void store_set_max_bytes(struct store *st, uint64_t max_bytes);
/* One interval's report, in the transaction open (begun if none; committed when it holds
 * the batch): 0 or -errno. */
int store_append(struct store *st, const struct pm_report *rep, const char **ret_err);
/* Intervals appended and not committed yet. */
unsigned store_pending(const struct store *st);
/* Commit what is open: 0 or -errno. */
int store_flush(struct store *st, const char **ret_err);
/* The run ended at wall clock ended_wall_ns; lost: the devices that went away during it
 * (comma separated, NULL or "": none). Written in the run's row: 0 or -errno. */
int store_end_run(struct store *st, uint64_t ended_wall_ns, const char *lost, const char **ret_err);
/* Has anything been written (the first interval committed)? */
bool store_written(const struct store *st);
/* Drop intervals older than max_age_s (0: keep) and, while the recording holds more than
 * max_bytes (0: no limit), the oldest tenth; give the space back. */
int store_trim(struct store *st, double max_age_s, uint64_t max_bytes, const char **ret_err);
/* Bytes the recording holds: its pages, the WAL's new ones included. */
uint64_t store_bytes(struct store *st);
void store_close(struct store *st);

/* ---- reading (store/read.c): pmumon report and import ------------------------------- */

int store_open_read(const char *path, struct store **ret, const char **ret_err);
/* The last run's id, 0 if none. */
long long store_last_run(struct store *st);

struct store_run_info {
	long long id;
	char command[4096], version[64], platform[256], sim_platform[64], aggr[16], cpuid[128];
	char defines[1024], lost[1024];
	bool simulated;
	uint64_t interval_ms;
	int64_t started_wall_ns, ended_wall_ns; /* 0: not recorded */
};
/* Run N (0: the last): 0, -ENOENT (no such run), -errno. */
int store_run(struct store *st, long long run, struct store_run_info *ret);

/* An interval of a run: its end since counting began, its wall clock and length; and
 * where it is kept: the block (the row of sample and value) whose t_ns is block_t_ns, as
 * its k-th interval of n (docs/record.md). */
struct store_sample {
	int64_t t_ns, wall_ns, duration_ns;
	int64_t block_t_ns;
	unsigned k, n;
};
/* A block's k-th value of a column that holds n of them: a BLOB of n little-endian values
 * of width bytes, or (n = 1) the number itself. */
uint64_t store_le(const unsigned char *p, int width);
/* The run's intervals whose end is in [from_ns, to_ns], in time order: a count or -errno. */
long store_samples(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
		   struct store_sample **ret);

struct store_series {
	long long id;
	char name[256], unit[32];
	char place[384]; /* with the cgroup it was counted in: "all in user.slice" */
	char device[128], cgroup[256];
	int socket, die, channel, cpu; /* -1: not part of the row */
	bool metric, snapshot;
};
/* The series of the last run (run 0) or of run N, in recording order: a count, or -errno. */
long store_series(struct store *st, long long run, struct store_series **ret);
/*
 * The values of the series ids[0..n_ids) of run at the intervals of axis (n of them, in
 * time order), in one pass over the run's rows there: ret_value[i][j] and ret_flags[i][j]
 * of series i at interval j, NaN and PM_ROW_NOT_COUNTED where it has none, and (where not
 * NULL) its 95 % interval and PM_BOUND_* (docs/bounds.md). 0 or -errno.
 */
int store_values(struct store *st, long long run, const struct store_sample *axis, size_t n,
		 const long long *ids, size_t n_ids, double *const *ret_value,
		 unsigned *const *ret_flags, double *const *ret_lo, double *const *ret_hi,
		 unsigned *const *ret_bound);

/*
 * A run's event series as a recording the library plays back (pm_replay__feed), over the
 * intervals whose end is in [from_ns, to_ns]: the replay in *ret_replay (the caller's, or
 * the context's once given to one); the store must stay open while it plays, and
 * store_feed_free after the replay is freed. 0, -ENODATA (no intervals there), or -errno
 * with *ret_err saying why.
 */
struct store_feed;
int store_feed(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
	       struct pm_replay **ret_replay, struct store_feed **ret_feed, const char **ret_err);
void store_feed_free(struct store_feed *f);

/* Does path hold an SQLite database (a pmumon recording, or refused as one)? */
bool store_is_recording(const char *path);
/* Is path an empty file (0 bytes: a recording that never got its first interval, or no
 * file at all of anything)? */
bool store_is_empty(const char *path);

#endif
