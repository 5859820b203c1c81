/* SPDX-License-Identifier: GPL-2.0-only */
/* The store's insides, for its own files (store.c writes, read.c reads, feed.c plays). */
#ifndef PMUMON_CLI_STORE_DB_H
#define PMUMON_CLI_STORE_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* A row's labels, kept from the first report until its series are written. */
struct store_label {
	char *event, *unit, *device, *domain, *source, *cgroup;
	char place[128];
	int socket, die, channel, subchannel, cpu;
	unsigned flags;
};
/* One value of a block, and one interval's times. */
struct store_cell {
	uint64_t raw, ena, run;
	double value;
	unsigned flags, covered, instances;
	double lo, hi; /* the 95 % interval (docs/bounds.md) */
	unsigned bound;
};
struct store_when {
	uint64_t t_ns, wall_ns, duration_ns;
};

struct store {
	sqlite3 *db; /* NULL: a lazy store before its first interval */
	char *path;
	long long run;
	long long *series; /* per row of the reports */
	size_t n_series;
	struct store_label *labels; /* from the first report on */
	bool series_written;
	sqlite3_stmt *ins_sample;
	/* a block's values in as few statements as SQLite's limit on parameters allows:
	 * ins_rows of chunk rows each, and ins_rest for the rest (per-statement work is most
	 * of an insert's) */
	sqlite3_stmt *ins_rows, *ins_rest;
	size_t chunk;
	sqlite3_stmt *del_values, *del_samples; /* a block's single rows it replaces */
	char err[512];
	/* writing: intervals are kept in a block of up to batch and written as one row per
	 * series (docs/record.md), one transaction */
	unsigned batch;		   /* intervals a transaction holds at most */
	unsigned blocks;	   /* store_set_blocks's (0: 1) */
	unsigned block_cap;	   /* intervals a block holds at most */
	unsigned n_blk, committed; /* intervals in the block, and of them committed */
	struct store_cell *blk;	   /* [series * block_cap + interval] */
	struct store_when *blk_t;  /* [interval] */
	unsigned char *scratch;	   /* the BLOBs of a block being written */
	bool in_tx, written, lazy, created, overwrite;
	uint64_t max_bytes;
	struct store_run pending_run; /* its words in run_text */
	char *run_text[7];
};

sqlite3 *store_db(struct store *st);
/*
 * The run's value rows of the blocks whose key is in [from_ns, to_ns], of the series ids
 * (n_ids 0: all), in (t_ns, series) order, one pass: a statement whose columns are t_ns, series, raw, enabled_ns,
 * running_ns, value, flags, covered, instances (a file of version 3 or older, whose rows
 * were by series, through a temporary view): 0 or -errno.
 */
int store_value_scan(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
		     const long long *ids, size_t n_ids, sqlite3_stmt **ret);
/* A value read back: what the replay takes, and its 95 % interval (docs/bounds.md). */
struct store_value {
	struct pm_replay_feed_value v;
	double lo, hi;	/* NaN: none */
	unsigned bound; /* PM_BOUND_*; PM_BOUND_UNMEASURED where a file kept none */
};
/* The n intervals of the block row q is on (n as its sample row says): their raw,
 * enabled_ns, running_ns, value, flags, covered, instances, lo, hi, bound from column at on
 * (numbers when n is 1, else BLOBs of n values, or of one for all n; lo and hi NULL when
 * every value is exact), into out[0..n); a row pmumon did not write is not counted. */
void store_row_values(sqlite3_stmt *q, int at, unsigned n, struct store_value *out);
int store_open_db(const char *path, int flags, struct store **ret, const char **ret_err);
int store_check_version(struct store *st, bool create, const char **ret_err);
int store_fail(struct store *st, const char **ret_err, const char *what);
int store_exec(struct store *st, const char *sql, const char **ret_err);
long long store_query_int(struct store *st, const char *sql);
bool store_has_column(struct store *st, const char *table, const char *column);

#endif
