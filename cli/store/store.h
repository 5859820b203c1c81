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
 * 4 value.lo, value.hi, value.bound (the 95 % intervals) */
#define STORE_VERSION 4

struct store;

struct store_run {
	const char *command; /* the command line */
	const char *version, *platform, *sim_platform;
	bool simulated;
	uint64_t interval_ms;
	const char *aggr;
	const char *cpuid; /* the machine's CPU id (pm_ctx__cpuid), NULL or "": unknown */
};

/*
 * Open FILE for recording: create it (or, with overwrite, replace it), or
 * append a run to a recording of this version or an older one (migrated
 * in one transaction). A newer file is refused. 0 or -errno; *ret_err
 * says why in words (static or owned by the store: valid until free).
 */
int store_open_write(const char *path, bool overwrite, const struct store_run *run,
		     struct store **ret, const char **ret_err);
/* One interval's report in one transaction: 0 or -errno. */
int store_append(struct store *st, const struct pm_report *rep, const char **ret_err);
/* Drop intervals older than max_age_s (0: keep) and, past max_bytes of file and
 * WAL (0: no limit), the oldest until it fits; give the space back. */
int store_trim(struct store *st, double max_age_s, uint64_t max_bytes, const char **ret_err);
void store_close(struct store *st);

/* Reading (pmumon report): one series' values over [from, to] seconds of its run. */
struct store_series {
	long long id, run;
	char name[256], unit[32];
	char place[384]; /* with the cgroup it was counted in: "all in user.slice" */
	bool metric;
};
struct store_point {
	double t_s; /* seconds since the run's start, at the interval's end */
	double duration_s;
	double value; /* NaN: not counted */
	unsigned flags;
	double lo, hi;	/* its 95 % interval; NaN: none (bound says why) */
	unsigned bound; /* PM_BOUND_*; PM_BOUND_UNMEASURED for a recording before version 4 */
};

int store_open_read(const char *path, struct store **ret, const char **ret_err);
/* Does the recording have series.cgroup (version 3 on, or migrated)? */
bool store_has_cgroups(struct store *st);
/* Does it have value.lo, hi and bound (version 4 on, or migrated)? */
bool store_has_bounds(struct store *st);
/* The series of the last run (run 0) or of run N, in recording order: a count, or -errno. */
long store_series(struct store *st, long long run, struct store_series **ret);
long store_points(struct store *st, long long series, double from_s, double to_s,
		  struct store_point **ret);
/* The last run's id, 0 if none. */
long long store_last_run(struct store *st);

/* Does path hold an SQLite database (a pmumon recording, or refused as one)? */
bool store_is_recording(const char *path);
/*
 * Run N (0: the last) of the recording at path as pmumon CSV, what stat -x,
 * wrote: its event series, every interval (export.c), in a temporary file
 * open at its start (*ret_fd, the caller's to close); and the packs its
 * machine matched (in ret_packs). 0, -errno with *ret_err saying why.
 */
int store_export_csv(const char *path, long long run, int *ret_fd, char *ret_packs,
		     size_t packs_size, const char **ret_err);

#endif
