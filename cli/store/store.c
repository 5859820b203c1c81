// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recordings in SQLite. WAL mode and one transaction per interval: a
 * pmumon killed with SIGKILL loses at most the interval it was writing, and
 * a reader may open the file while recording goes on. The schema is
 * docs/record.md's; PRAGMA user_version is its version.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "store-db.h"
#include "store.h"

struct store {
	sqlite3 *db;
	char *path;
	long long run;
	long long *series; /* per row of the reports, once the first is in */
	size_t n_series;
	sqlite3_stmt *ins_sample, *ins_value;
	char err[512];
	/* reading: the samples of one run (t_ns, duration_ns), sorted, for store_points */
	long long samples_run;
	long long (*samples)[2];
	size_t n_samples;
};

static const char schema[] =
	"CREATE TABLE run (id INTEGER PRIMARY KEY, started_wall_ns INTEGER, command TEXT,"
	" version TEXT, platform TEXT, simulated INTEGER, sim_platform TEXT,"
	" interval_ms INTEGER, aggr TEXT, cpuid TEXT);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES run(id),"
	" name TEXT NOT NULL, unit TEXT, metric INTEGER, snapshot INTEGER, device TEXT,"
	" place TEXT, socket INTEGER, die INTEGER, channel INTEGER, subchannel INTEGER,"
	" cpu INTEGER, domain TEXT, source TEXT, cgroup TEXT);"
	"CREATE TABLE sample (run INTEGER NOT NULL REFERENCES run(id), t_ns INTEGER NOT NULL,"
	" wall_ns INTEGER, duration_ns INTEGER, PRIMARY KEY (run, t_ns)) WITHOUT ROWID;"
	"CREATE TABLE value (series INTEGER NOT NULL REFERENCES series(id),"
	" t_ns INTEGER NOT NULL, raw INTEGER, enabled_ns INTEGER, running_ns INTEGER,"
	" value REAL, flags INTEGER, covered INTEGER, instances INTEGER,"
	" lo REAL, hi REAL, bound INTEGER,"
	" PRIMARY KEY (series, t_ns)) WITHOUT ROWID;";

static int fail(struct store *st, const char **ret_err, const char *what)
{
	snprintf(st->err, sizeof(st->err), "%s: %s", what, sqlite3_errmsg(st->db));
	*ret_err = st->err;
	switch (sqlite3_errcode(st->db)) {
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_CANTOPEN:
		return -EACCES;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static int exec(struct store *st, const char *sql, const char **ret_err)
{
	return sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
									  fail(st, ret_err, sql);
}

sqlite3 *store_db(struct store *st)
{
	return st->db;
}

static long long query_int(struct store *st, const char *sql)
{
	sqlite3_stmt *q;
	long long v = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* A store on path, opened with flags; the schema's version checked. */
static int open_db(const char *path, int flags, struct store **ret, const char **ret_err)
{
	static char msg[512];
	struct store *st = calloc(1, sizeof(*st));

	if (!st || !(st->path = strdup(path))) {
		free(st);
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		snprintf(msg, sizeof(msg), "%s", st->db ? sqlite3_errmsg(st->db) : "out of memory");
		*ret_err = msg;
		store_close(st);
		return -EACCES;
	}
	sqlite3_busy_timeout(st->db, 5000);
	*ret = st;
	return 0;
}

/* user_version: 0 a new file, or the schema migrated to STORE_VERSION; newer refused. */
static int check_version(struct store *st, bool create, const char **ret_err)
{
	long long v = query_int(st, "PRAGMA user_version");
	long long tables = query_int(st, "SELECT count(*) FROM sqlite_master");

	if (v < 0 || tables < 0)
		return fail(st, ret_err, "reading the recording's version");
	if (v > STORE_VERSION) {
		snprintf(st->err, sizeof(st->err),
			 "the recording is of schema version %lld, newer than this pmumon's (%d): "
			 "read it with a newer pmumon",
			 v, STORE_VERSION);
		*ret_err = st->err;
		return -EPROTONOSUPPORT;
	}
	if (v == 0 && tables > 0) {
		*ret_err = "not a pmumon recording (a SQLite file of other tables)";
		return -EINVAL;
	}
	if (v == 0 && !create) {
		*ret_err = "an empty file, not a pmumon recording";
		return -EINVAL;
	}
	return (int)v;
}

/* The end of a transaction begun with BEGIN: COMMIT when r is 0, else ROLLBACK. */
static int end_transaction(struct store *st, int r, const char **ret_err)
{
	if (r == 0)
		return exec(st, "COMMIT", ret_err);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

bool store_has_bounds(struct store *st);

static int migrate(struct store *st, int v, const char **ret_err)
{
	char sql[64];
	int r = 0;

	if (v >= STORE_VERSION)
		return v;
	r = exec(st, "BEGIN", ret_err);
	if (r == 0 && v < 2)
		r = exec(st, "ALTER TABLE run ADD COLUMN cpuid TEXT", ret_err);
	if (r == 0 && v < 3)
		r = exec(st, "ALTER TABLE series ADD COLUMN cgroup TEXT", ret_err);
	if (r == 0 && v < 4 && !store_has_bounds(st)) /* the 95 % intervals (docs/bounds.md) */
		r = exec(st,
			 "ALTER TABLE value ADD COLUMN lo REAL; ALTER TABLE value ADD COLUMN hi REAL;"
			 " ALTER TABLE value ADD COLUMN bound INTEGER",
			 ret_err);
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", STORE_VERSION);
	if (r == 0)
		r = exec(st, sql, ret_err);
	r = end_transaction(st, r, ret_err);
	return r < 0 ? r : STORE_VERSION;
}

static int create_schema(struct store *st, const char **ret_err)
{
	char sql[64];
	int r = exec(st, "PRAGMA auto_vacuum=INCREMENTAL", ret_err);

	if (r == 0)
		r = exec(st, "BEGIN", ret_err);
	if (r == 0)
		r = exec(st, schema, ret_err);
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", STORE_VERSION);
	if (r == 0)
		r = exec(st, sql, ret_err);
	if (r == 0)
		r = exec(st, "COMMIT", ret_err);
	return r;
}

static int add_run(struct store *st, const struct store_run *run, const char **ret_err)
{
	sqlite3_stmt *q;
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO run (started_wall_ns, command, version, platform,"
			       " simulated, sim_platform, interval_ms, aggr, cpuid)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &q, NULL) != SQLITE_OK)
		return fail(st, ret_err, "recording the run");
	sqlite3_bind_int64(q, 1, (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec);
	sqlite3_bind_text(q, 2, run->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, run->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, run->platform, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, run->simulated);
	sqlite3_bind_text(q, 6, run->sim_platform, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 7, (long long)run->interval_ms);
	sqlite3_bind_text(q, 8, run->aggr, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 9, run->cpuid && run->cpuid[0] ? run->cpuid : NULL, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return fail(st, ret_err, "recording the run");
	st->run = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* Why path cannot be a recording, in the file system's words and with the fix, where
 * SQLite says only "unable to open database file"; *ret_err left as it was otherwise. */
static void why_not_writable(const char *path, const char **ret_err)
{
	static char msg[4400];
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat sb;

	if (snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + !(slash - path) : 1,
		     slash ? path : ".") >= (int)sizeof(dir))
		return;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(msg, sizeof(msg), "it is a directory: name a file in it (%s/pmumon.db)",
			 path);
	else if (stat(dir, &sb) < 0)
		snprintf(msg, sizeof(msg), "its directory %s: %s (create it first)", dir,
			 strerror(errno));
	else if (!S_ISDIR(sb.st_mode))
		snprintf(msg, sizeof(msg), "%s is not a directory", dir);
	else if (access(dir, W_OK) < 0)
		snprintf(msg, sizeof(msg),
			 "cannot write in %s (%s): record into a directory you may write", dir,
			 strerror(errno));
	else if (access(path, F_OK) == 0 && access(path, W_OK) < 0)
		snprintf(msg, sizeof(msg), "the file is not writable (%s)", strerror(errno));
	else
		return;
	*ret_err = msg;
}

int store_open_write(const char *path, bool overwrite, const struct store_run *run,
		     struct store **ret, const char **ret_err)
{
	struct store *st;
	int r;

	if (overwrite && unlink(path) < 0 && errno != ENOENT) {
		*ret_err = strerror(errno);
		return -errno;
	}
	if (overwrite) { /* a WAL of the file replaced would be replayed into the new one */
		char side[4096];

		snprintf(side, sizeof(side), "%s-wal", path);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", path);
		unlink(side);
	}
	r = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &st, ret_err);
	if (r < 0) {
		why_not_writable(path, ret_err);
		return r;
	}
	/* before WAL: switching to WAL writes the new file's header, and auto_vacuum is
	 * fixed from then on (left at NONE, --max-size could drop every interval and the
	 * file would not shrink); a no-op on a file that has one */
	r = exec(st, "PRAGMA auto_vacuum=INCREMENTAL", ret_err);
	if (r == 0)
		r = exec(st, "PRAGMA journal_mode=WAL", ret_err);
	if (r == 0)
		r = check_version(st, true, ret_err);
	if (r > 0)
		r = migrate(st, r, ret_err);
	if (r == 0)
		r = create_schema(st, ret_err);
	if (r >= 0)
		r = exec(st, "PRAGMA synchronous=NORMAL", ret_err);
	if (r == 0)
		r = add_run(st, run, ret_err);
	if (r == 0 &&
	    (sqlite3_prepare_v2(st->db, "INSERT INTO sample VALUES (?, ?, ?, ?)", -1,
				&st->ins_sample, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(st->db,
				"INSERT INTO value (series, t_ns, raw, enabled_ns, running_ns, value,"
				" flags, covered, instances, lo, hi, bound)"
				" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				-1, &st->ins_value, NULL) != SQLITE_OK))
		r = fail(st, ret_err, "preparing the writes");
	if (r < 0) {
		if (*ret_err == st->err) { /* keep the words past the store */
			static char msg[512];

			snprintf(msg, sizeof(msg), "%s", st->err);
			*ret_err = msg;
		}
		store_close(st);
		return r;
	}
	*ret = st;
	return 0;
}

static void bind_opt_int(sqlite3_stmt *q, int i, int v)
{
	if (v >= 0)
		sqlite3_bind_int(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

/* The series of the first report's rows: one per row, in order. */
static int add_series(struct store *st, const struct pm_report *rep, const char **ret_err)
{
	sqlite3_stmt *q;
	char place[128];

	st->series = calloc(rep->n_rows + 1, sizeof(*st->series));
	if (!st->series) {
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO series (run, name, unit, metric, snapshot, device, place,"
			       " socket, die, channel, subchannel, cpu, domain, source, cgroup)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &q, NULL) != SQLITE_OK)
		return fail(st, ret_err, "recording the series");
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *r = &rep->rows[i];

		cli_row_place(r, place, sizeof(place));
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, st->run);
		sqlite3_bind_text(q, 2, r->event, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, r->unit ? r->unit : "", -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 4, !!(r->flags & PM_ROW_METRIC));
		sqlite3_bind_int(q, 5, !!(r->flags & PM_ROW_SNAPSHOT));
		sqlite3_bind_text(q, 6, r->device, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 7, place, -1, SQLITE_TRANSIENT);
		bind_opt_int(q, 8, r->socket);
		bind_opt_int(q, 9, r->die);
		bind_opt_int(q, 10, r->channel);
		bind_opt_int(q, 11, r->subchannel);
		bind_opt_int(q, 12, r->cpu);
		sqlite3_bind_text(q, 13, r->domain, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 14, r->source, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 15, r->cgroup, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return fail(st, ret_err, "recording the series");
		}
		st->series[i] = sqlite3_last_insert_rowid(st->db);
	}
	sqlite3_finalize(q);
	st->n_series = rep->n_rows;
	return 0;
}

static int put_values(struct store *st, const struct pm_report *rep, const char **ret_err)
{
	sqlite3_stmt *q = st->ins_value;

	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *r = &rep->rows[i];

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, st->series[i]);
		sqlite3_bind_int64(q, 2, (long long)rep->t_ns);
		sqlite3_bind_int64(q, 3, (long long)r->raw);
		sqlite3_bind_int64(q, 4, (long long)r->enabled_ns);
		sqlite3_bind_int64(q, 5, (long long)r->running_ns);
		if (isnan(r->value))
			sqlite3_bind_null(q, 6);
		else
			sqlite3_bind_double(q, 6, r->value);
		sqlite3_bind_int(q, 7, (int)r->flags);
		sqlite3_bind_int(q, 8, (int)r->covered);
		sqlite3_bind_int(q, 9, (int)r->instances);
		/* the interval: NULL where there is none (its bound says why) */
		for (int end = 0; end < 2; end++) {
			double v = r->bound == PM_BOUND_EXACT ? r->value : end ? r->hi : r->lo;

			if (isfinite(v) && isfinite(r->value))
				sqlite3_bind_double(q, 10 + end, v);
			else
				sqlite3_bind_null(q, 10 + end);
		}
		sqlite3_bind_int(q, 12, (int)r->bound);
		if (sqlite3_step(q) != SQLITE_DONE)
			return fail(st, ret_err, "recording an interval");
	}
	return 0;
}

int store_append(struct store *st, const struct pm_report *rep, const char **ret_err)
{
	int r;

	if (st->series && rep->n_rows != st->n_series) {
		*ret_err = "the rows changed within a run";
		return -EINVAL;
	}
	r = exec(st, "BEGIN", ret_err);
	if (r == 0 && !st->series)
		r = add_series(st, rep, ret_err);
	if (r == 0) {
		sqlite3_reset(st->ins_sample);
		sqlite3_bind_int64(st->ins_sample, 1, st->run);
		sqlite3_bind_int64(st->ins_sample, 2, (long long)rep->t_ns);
		sqlite3_bind_int64(st->ins_sample, 3, (long long)rep->wall_ns);
		sqlite3_bind_int64(st->ins_sample, 4, (long long)rep->duration_ns);
		if (sqlite3_step(st->ins_sample) != SQLITE_DONE)
			r = fail(st, ret_err, "recording an interval");
	}
	if (r == 0)
		r = put_values(st, rep, ret_err);
	return end_transaction(st, r, ret_err);
}

/* Bytes of the file and its WAL. */
static uint64_t bytes_used(const struct store *st)
{
	char wal[4096];
	struct stat sb;
	uint64_t n = 0;

	if (stat(st->path, &sb) == 0)
		n += (uint64_t)sb.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", st->path);
	if (stat(wal, &sb) == 0)
		n += (uint64_t)sb.st_size;
	return n;
}

/* Drop the intervals that ended before wall clock `before` (ns), of every run. */
static int drop_before(struct store *st, long long before, const char **ret_err)
{
	char sql[512];
	int r = exec(st, "BEGIN", ret_err);

	snprintf(sql, sizeof(sql),
		 "DELETE FROM value WHERE EXISTS (SELECT 1 FROM sample s JOIN series x ON"
		 " x.run = s.run WHERE x.id = value.series AND s.t_ns = value.t_ns AND"
		 " s.wall_ns < %lld);"
		 "DELETE FROM sample WHERE wall_ns < %lld;",
		 before, before);
	if (r == 0)
		r = exec(st, sql, ret_err);
	r = end_transaction(st, r, ret_err);
	if (r == 0)
		r = exec(st, "PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);",
			 ret_err);
	return r;
}

int store_trim(struct store *st, double max_age_s, uint64_t max_bytes, const char **ret_err)
{
	long long last = query_int(st, "SELECT max(wall_ns) FROM sample");
	int r = 0;

	if (last <= 0)
		return 0;
	if (max_age_s > 0 &&
	    query_int(st, "SELECT min(wall_ns) FROM sample") < last - (long long)(max_age_s * 1e9))
		r = drop_before(st, last - (long long)(max_age_s * 1e9), ret_err);
	/* past the size, the oldest tenth of what is left, until it fits (or one interval) */
	for (int round = 0; r == 0 && max_bytes && bytes_used(st) > max_bytes && round < 64;
	     round++) {
		long long first = query_int(st, "SELECT min(wall_ns) FROM sample");

		if (first <= 0 || first >= last)
			break;
		r = drop_before(st, first + (last - first) / 10 + 1, ret_err);
	}
	return r;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->ins_sample);
	sqlite3_finalize(st->ins_value);
	sqlite3_close(st->db);
	free(st->samples);
	free(st->series);
	free(st->path);
	free(st);
}

/* ---- reading ------------------------------------------------------------------------ */

int store_open_read(const char *path, struct store **ret, const char **ret_err)
{
	struct store *st;
	int r = open_db(path, SQLITE_OPEN_READONLY, &st, ret_err);

	if (r < 0)
		return r;
	r = check_version(st, false, ret_err);
	if (r < 0) {
		static char msg[512];

		snprintf(msg, sizeof(msg), "%s", *ret_err);
		*ret_err = msg;
		store_close(st);
		return r;
	}
	*ret = st;
	return 0;
}

long long store_last_run(struct store *st)
{
	long long v = query_int(st, "SELECT max(id) FROM run");

	return v > 0 ? v : 0;
}

bool store_has_cgroups(struct store *st)
{
	return query_int(st, "SELECT count(*) FROM pragma_table_info('series')"
			     " WHERE name = 'cgroup'") > 0;
}

bool store_has_bounds(struct store *st)
{
	return query_int(st, "SELECT count(*) FROM pragma_table_info('value')"
			     " WHERE name = 'bound'") > 0;
}

long store_series(struct store *st, long long run, struct store_series **ret)
{
	sqlite3_stmt *q;
	struct store_series *out = NULL;
	size_t n = 0, cap = 0;

	if (sqlite3_prepare_v2(st->db,
			       store_has_cgroups(st) ?
				       "SELECT id, run, name, unit, place, metric, cgroup FROM series"
				       " WHERE run = ? ORDER BY id" :
				       "SELECT id, run, name, unit, place, metric, NULL FROM series"
				       " WHERE run = ? ORDER BY id",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run ? run : store_last_run(st));
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct store_series *s;

		if (PM_GROW(out, cap, n + 1) < 0) {
			sqlite3_finalize(q);
			free(out);
			return -ENOMEM;
		}
		s = &out[n++];
		s->id = sqlite3_column_int64(q, 0);
		s->run = sqlite3_column_int64(q, 1);
		snprintf(s->name, sizeof(s->name), "%s", sqlite3_column_text(q, 2));
		snprintf(s->unit, sizeof(s->unit), "%s",
			 sqlite3_column_text(q, 3) ? (const char *)sqlite3_column_text(q, 3) : "");
		/* counted in a cgroup: the place says which, as top and serve's page say it */
		cli_place_in(sqlite3_column_text(q, 4) ? (const char *)sqlite3_column_text(q, 4) :
							 "",
			     (const char *)sqlite3_column_text(q, 6), s->place, sizeof(s->place));
		s->metric = sqlite3_column_int(q, 5);
	}
	sqlite3_finalize(q);
	*ret = out;
	return (long)n;
}

/* The samples of the run series belongs to, kept (a report reads every series of a run). */
static int load_samples(struct store *st, long long series)
{
	long long run = -1;
	sqlite3_stmt *q;
	size_t cap = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT run FROM series WHERE id = ?", -1, &q, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, series);
	if (sqlite3_step(q) == SQLITE_ROW)
		run = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (run == st->samples_run)
		return 0;
	free(st->samples);
	st->samples = NULL;
	st->n_samples = 0;
	st->samples_run = -1;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT t_ns, duration_ns FROM sample WHERE run = ? ORDER BY t_ns",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run);
	while (sqlite3_step(q) == SQLITE_ROW) {
		if (PM_GROW(st->samples, cap, st->n_samples + 1) < 0) {
			sqlite3_finalize(q);
			return -ENOMEM;
		}
		st->samples[st->n_samples][0] = sqlite3_column_int64(q, 0);
		st->samples[st->n_samples++][1] = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	st->samples_run = run;
	return 0;
}

/*
 * A series' values in [from, to], each with its interval's duration: the
 * values by their primary key, the durations from the run's samples read
 * once (a walk of both, in time order: no lookup per value).
 */
long store_points(struct store *st, long long series, double from_s, double to_s,
		  struct store_point **ret)
{
	struct store_point *out = NULL;
	size_t n = 0, cap = 0, k = 0;
	sqlite3_stmt *q;
	int r = load_samples(st, series);

	if (r < 0)
		return r;
	if (sqlite3_prepare_v2(st->db,
			       store_has_bounds(st) ?
				       "SELECT t_ns, value, flags, lo, hi, bound FROM value"
				       " WHERE series = ? AND t_ns >= ? AND t_ns <= ? ORDER BY t_ns" :
				       "SELECT t_ns, value, flags, NULL, NULL, NULL FROM value"
				       " WHERE series = ? AND t_ns >= ? AND t_ns <= ? ORDER BY t_ns",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, series);
	sqlite3_bind_int64(q, 2, (long long)(from_s * 1e9));
	sqlite3_bind_int64(q, 3, to_s >= 9e9 ? INT64_MAX : (long long)(to_s * 1e9));
	while (sqlite3_step(q) == SQLITE_ROW) {
		long long t = sqlite3_column_int64(q, 0);
		struct store_point *p;

		while (k < st->n_samples && st->samples[k][0] < t)
			k++;
		if (k == st->n_samples || st->samples[k][0] != t)
			continue; /* a value of no sample: not one pmumon wrote */
		if (PM_GROW(out, cap, n + 1) < 0) {
			sqlite3_finalize(q);
			free(out);
			return -ENOMEM;
		}
		p = &out[n++];
		p->t_s = (double)t / 1e9;
		p->duration_s = (double)st->samples[k][1] / 1e9;
		p->value = sqlite3_column_type(q, 1) == SQLITE_NULL ? NAN :
								      sqlite3_column_double(q, 1);
		p->flags = (unsigned)sqlite3_column_int(q, 2);
		/* a recording before version 4 kept no interval: none known */
		p->lo = sqlite3_column_type(q, 3) == SQLITE_NULL ? NAN :
								   sqlite3_column_double(q, 3);
		p->hi = sqlite3_column_type(q, 4) == SQLITE_NULL ? NAN :
								   sqlite3_column_double(q, 4);
		p->bound = sqlite3_column_type(q, 5) == SQLITE_NULL ?
				   PM_BOUND_UNMEASURED :
				   (unsigned)sqlite3_column_int(q, 5);
	}
	sqlite3_finalize(q);
	*ret = out;
	return (long)n;
}
