// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recordings in SQLite: writing. WAL mode, synchronous=NORMAL, prepared
 * statements, and intervals in transactions of at most 100 ms
 * (store_set_batch), so a pmumon killed with SIGKILL loses at most that,
 * and a reader may open the file while recording goes on. An interval is
 * a row per series, keyed (run, t_ns, series): an interval's rows side by
 * side, in time; every 16 intervals (or a transaction's, when shorter)
 * become one row per series holding all of them (a block). The schema is
 * docs/record.md's; PRAGMA user_version is its version. Reading is
 * store/read.c.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli-text.h"
#include "util.h"
#include "store-db.h"
#include "store.h"

static const char schema[] =
	"CREATE TABLE run (id INTEGER PRIMARY KEY, started_wall_ns INTEGER, command TEXT,"
	" version TEXT, platform TEXT, simulated INTEGER, sim_platform TEXT,"
	" interval_ms INTEGER, aggr TEXT, cpuid TEXT, defines TEXT, ended_wall_ns INTEGER,"
	" lost TEXT);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES run(id),"
	" name TEXT NOT NULL, unit TEXT, metric INTEGER, snapshot INTEGER, device TEXT,"
	" place TEXT, socket INTEGER, die INTEGER, channel INTEGER, subchannel INTEGER,"
	" cpu INTEGER, domain TEXT, source TEXT, cgroup TEXT);"
	"CREATE TABLE sample (run INTEGER NOT NULL REFERENCES run(id), t_ns INTEGER NOT NULL,"
	" wall_ns INTEGER, duration_ns INTEGER, n INTEGER NOT NULL DEFAULT 1, lengths BLOB,"
	" PRIMARY KEY (run, t_ns)) WITHOUT ROWID;"
	"CREATE TABLE value (run INTEGER NOT NULL REFERENCES run(id), t_ns INTEGER NOT NULL,"
	" series INTEGER NOT NULL REFERENCES series(id), raw INTEGER, enabled_ns INTEGER,"
	" running_ns INTEGER, value REAL, flags INTEGER, covered INTEGER, instances INTEGER,"
	" lo REAL, hi REAL, bound INTEGER, PRIMARY KEY (run, t_ns, series)) WITHOUT ROWID;"
	"CREATE INDEX series_run ON series (run);"
	"CREATE INDEX sample_wall ON sample (wall_ns);";

int store_fail(struct store *st, const char **ret_err, const char *what)
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

int store_exec(struct store *st, const char *sql, const char **ret_err)
{
	return sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK ?
		       0 :
		       store_fail(st, ret_err, sql);
}

sqlite3 *store_db(struct store *st)
{
	return st->db;
}

long long store_query_int(struct store *st, const char *sql)
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

bool store_has_column(struct store *st, const char *table, const char *column)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
		 table, column);
	return store_query_int(st, sql) > 0;
}

/* Before SQLite's first use: no count of memory in use, whose mutex every allocation took
 * (a connection is only ever used by one thread at a time: NOMUTEX below). */
static void configure(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/*
 * A store on path, opened with flags; the schema's version checked. One thread uses a
 * connection at a time (record's, serve's writer, report's): no SQLite mutexes.
 */
int store_open_db(const char *path, int flags, struct store **ret, const char **ret_err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	static char msg[512];
	struct store *st = calloc(1, sizeof(*st));

	pthread_once(&once, configure);

	if (!st || !(st->path = strdup(path))) {
		free(st);
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	st->batch = 1;
	if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(msg, sizeof(msg), "%s", st->db ? sqlite3_errmsg(st->db) : "out of memory");
		*ret_err = msg;
		store_close(st);
		return -EACCES;
	}
	sqlite3_busy_timeout(st->db, 5000);
	*ret = st;
	return 0;
}

int store_check_version(struct store *st, bool create, const char **ret_err)
{
	long long v = store_query_int(st, "PRAGMA user_version");
	long long tables = store_query_int(st, "SELECT count(*) FROM sqlite_master");

	if (v < 0 || tables < 0)
		return store_fail(st, ret_err, "reading the recording's version");
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
		/* a file record created and never got an interval into (killed at once) */
		*ret_err = "a recording with no intervals (its first was never written)";
		return -ENODATA;
	}
	return (int)v;
}

/* The end of a transaction begun with BEGIN: COMMIT when r is 0, else ROLLBACK. */
static int end_transaction(struct store *st, int r, const char **ret_err)
{
	if (r == 0)
		return store_exec(st, "COMMIT", ret_err);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static int migrate(struct store *st, int v, const char **ret_err)
{
	char sql[128];
	int r = 0;

	if (v >= STORE_VERSION)
		return v;
	r = store_exec(st, "BEGIN", ret_err);
	if (r == 0 && v < 2 && !store_has_column(st, "run", "cpuid"))
		r = store_exec(st, "ALTER TABLE run ADD COLUMN cpuid TEXT", ret_err);
	if (r == 0 && v < 3 && !store_has_column(st, "series", "cgroup"))
		r = store_exec(st, "ALTER TABLE series ADD COLUMN cgroup TEXT", ret_err);
	/* version 4: the 95 % intervals (docs/bounds.md); a file of version 5 has them */
	if (r == 0 && v < 4 && !store_has_column(st, "value", "bound"))
		r = store_exec(st,
			       "ALTER TABLE value ADD COLUMN lo REAL; ALTER TABLE value ADD COLUMN hi"
			       " REAL; ALTER TABLE value ADD COLUMN bound INTEGER",
			       ret_err);
	if (r == 0 && v < 5) {
		static const char *const cols[][2] = { { "defines", "TEXT" },
						       { "ended_wall_ns", "INTEGER" },
						       { "lost", "TEXT" } };

		for (size_t i = 0; r == 0 && i < PM_ARRAY_SIZE(cols); i++) {
			if (store_has_column(st, "run", cols[i][0]))
				continue;
			snprintf(sql, sizeof(sql), "ALTER TABLE run ADD COLUMN %s %s", cols[i][0],
				 cols[i][1]);
			r = store_exec(st, sql, ret_err);
		}
		/* a block's rows side by side, in time: PRIMARY KEY (run, t_ns, series) */
		if (r == 0 && !store_has_column(st, "value", "run"))
			r = store_exec(
				st,
				"CREATE TABLE value5 (run INTEGER NOT NULL REFERENCES run(id),"
				" t_ns INTEGER NOT NULL, series INTEGER NOT NULL REFERENCES series(id),"
				" raw INTEGER, enabled_ns INTEGER, running_ns INTEGER, value REAL,"
				" flags INTEGER, covered INTEGER, instances INTEGER, lo REAL, hi REAL,"
				" bound INTEGER, PRIMARY KEY (run, t_ns, series)) WITHOUT ROWID;"
				"INSERT INTO value5 SELECT s.run, v.t_ns, v.series, v.raw, v.enabled_ns,"
				" v.running_ns, v.value, v.flags, v.covered, v.instances, v.lo, v.hi,"
				" v.bound FROM value v JOIN series s ON s.id = v.series;"
				"DROP TABLE value;"
				"ALTER TABLE value5 RENAME TO value;",
				ret_err);
		if (r == 0 && !store_has_column(st, "sample", "n"))
			r = store_exec(st,
				       "ALTER TABLE sample ADD COLUMN n INTEGER NOT NULL DEFAULT 1;"
				       "ALTER TABLE sample ADD COLUMN lengths BLOB;",
				       ret_err);
		if (r == 0)
			r = store_exec(st,
				       "CREATE INDEX IF NOT EXISTS series_run ON series (run);"
				       "CREATE INDEX IF NOT EXISTS sample_wall ON sample (wall_ns);",
				       ret_err);
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", STORE_VERSION);
	if (r == 0)
		r = store_exec(st, sql, ret_err);
	r = end_transaction(st, r, ret_err);
	return r < 0 ? r : STORE_VERSION;
}

/* The tables of a new recording, in the transaction open. */
static int create_schema(struct store *st, const char **ret_err)
{
	char sql[64];
	int r = store_exec(st, schema, ret_err);

	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", STORE_VERSION);
	if (r == 0)
		r = store_exec(st, sql, ret_err);
	return r;
}

static void bind_text_or_null(sqlite3_stmt *q, int i, const char *s)
{
	sqlite3_bind_text(q, i, s && s[0] ? s : NULL, -1, SQLITE_STATIC);
}

static int add_run(struct store *st, const struct store_run *run, const char **ret_err)
{
	sqlite3_stmt *q;
	struct timespec ts;
	uint64_t started = run->started_wall_ns;
	int rc;

	if (!started) {
		clock_gettime(CLOCK_REALTIME, &ts);
		started = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO run (started_wall_ns, command, version, platform,"
			       " simulated, sim_platform, interval_ms, aggr, cpuid, defines)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &q, NULL) != SQLITE_OK)
		return store_fail(st, ret_err, "recording the run");
	sqlite3_bind_int64(q, 1, (long long)started);
	sqlite3_bind_text(q, 2, run->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, run->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, run->platform, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, run->simulated);
	sqlite3_bind_text(q, 6, run->sim_platform, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 7, (long long)run->interval_ms);
	sqlite3_bind_text(q, 8, run->aggr, -1, SQLITE_STATIC);
	bind_text_or_null(q, 9, run->cpuid);
	bind_text_or_null(q, 10, run->defines);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_fail(st, ret_err, "recording the run");
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

/* path, path-wal, path-shm and path-journal removed (those that are there). */
static void remove_files(const char *path)
{
	static const char *const sides[] = { "", "-wal", "-shm", "-journal" };
	char side[4200];

	for (size_t i = 0; i < PM_ARRAY_SIZE(sides); i++) {
		snprintf(side, sizeof(side), "%s%s", path, sides[i]);
		unlink(side);
	}
}

/* A copy of the run's words, for a store that opens its file later. */
static int keep_run(struct store *st, const struct store_run *run)
{
	const char *const *in[] = { &run->command,	&run->version, &run->platform,
				    &run->sim_platform, &run->aggr,    &run->cpuid,
				    &run->defines };
	char **out[] = { &st->run_text[0], &st->run_text[1], &st->run_text[2], &st->run_text[3],
			 &st->run_text[4], &st->run_text[5], &st->run_text[6] };
	const char **keep[] = { &st->pending_run.command,  &st->pending_run.version,
				&st->pending_run.platform, &st->pending_run.sim_platform,
				&st->pending_run.aggr,	   &st->pending_run.cpuid,
				&st->pending_run.defines };

	st->pending_run = *run;
	for (size_t i = 0; i < PM_ARRAY_SIZE(in); i++) {
		*out[i] = *in[i] ? strdup(*in[i]) : NULL;
		if (*in[i] && !*out[i])
			return -ENOMEM;
		*keep[i] = *out[i];
	}
	return 0;
}

/* Create or open path for writing, WAL on; the run added, in a transaction left open for
 * the first interval when lazy. 0 or -errno. */
static int open_now(struct store *st, const char **ret_err)
{
	struct store *db = NULL;
	struct stat sb;
	bool existed;
	int r;

	if (st->overwrite)
		remove_files(st->path); /* a WAL of the file replaced would be replayed into it */
	existed = stat(st->path, &sb) == 0 && sb.st_size > 0;
	r = store_open_db(st->path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db, ret_err);
	if (r < 0) {
		why_not_writable(st->path, ret_err);
		return r;
	}
	st->db = db->db;
	db->db = NULL;
	store_close(db);
	st->created = !existed;
	/* auto_vacuum before anything is written, WAL after: a page of the file once written
	 * fixes it (retention gives space back only with it) */
	r = existed ? 0 : store_exec(st, "PRAGMA auto_vacuum=INCREMENTAL", ret_err);
	if (r == 0)
		r = store_exec(st, "PRAGMA journal_mode=WAL", ret_err);
	if (r == 0)
		r = store_check_version(st, true, ret_err);
	if (r > 0)
		r = migrate(st, r, ret_err);
	if (r >= 0)
		r = store_exec(st, "PRAGMA synchronous=NORMAL", ret_err);
	if (r == 0 && st->max_bytes)
		r = store_exec(st, "PRAGMA journal_size_limit=0", ret_err);
	if (r < 0)
		return r;
	r = store_exec(st, "BEGIN", ret_err);
	st->in_tx = r == 0;
	if (r == 0 && store_query_int(st, "PRAGMA user_version") == 0)
		r = create_schema(st, ret_err);
	if (r == 0)
		r = add_run(st, &st->pending_run, ret_err);
	if (r == 0 &&
	    sqlite3_prepare_v3(st->db, "INSERT OR FAIL INTO sample VALUES (?, ?, ?, ?, ?, ?)", -1,
			       SQLITE_PREPARE_PERSISTENT, &st->ins_sample, NULL) != SQLITE_OK)
		r = store_fail(st, ret_err, "preparing the writes");
	if (r == 0 &&
	    (sqlite3_prepare_v3(st->db,
				"DELETE FROM value WHERE run = ? AND t_ns >= ? AND t_ns <= ?", -1,
				SQLITE_PREPARE_PERSISTENT, &st->del_values, NULL) != SQLITE_OK ||
	     sqlite3_prepare_v3(st->db,
				"DELETE FROM sample WHERE run = ? AND t_ns >= ? AND t_ns <= ?", -1,
				SQLITE_PREPARE_PERSISTENT, &st->del_samples, NULL) != SQLITE_OK))
		r = store_fail(st, ret_err, "preparing the writes");
	return r;
}

/* Words from the store kept past it (static). */
static void keep_words(struct store *st, const char **ret_err)
{
	static char msg[512];

	if (*ret_err == st->err) {
		snprintf(msg, sizeof(msg), "%s", st->err);
		*ret_err = msg;
	}
}

static int new_store(const char *path, bool overwrite, const struct store_run *run,
		     struct store **ret, const char **ret_err)
{
	struct store *st = calloc(1, sizeof(*st));

	if (!st || !(st->path = strdup(path)) || keep_run(st, run) < 0) {
		store_close(st);
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	st->batch = 1;
	st->overwrite = overwrite;
	*ret = st;
	return 0;
}

int store_open_write(const char *path, bool overwrite, const struct store_run *run,
		     struct store **ret, const char **ret_err)
{
	struct store *st;
	int r = new_store(path, overwrite, run, &st, ret_err);

	if (r < 0)
		return r;
	r = open_now(st, ret_err);
	if (r == 0) {
		st->in_tx = false;
		r = store_exec(st, "COMMIT", ret_err);
	}
	if (r < 0) {
		keep_words(st, ret_err);
		store_close(st);
		return r;
	}
	*ret = st;
	return 0;
}

/* An existing file at path that a run could be appended to: 0 (or no file), -errno. */
static int check_existing(const char *path, const char **ret_err)
{
	struct store *st = NULL;
	struct stat sb;
	int r;

	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
		return 0; /* nothing there yet (or a directory: said when it is opened) */
	if (access(path, W_OK) < 0) {
		why_not_writable(path, ret_err);
		return -EACCES;
	}
	r = store_open_db(path, SQLITE_OPEN_READONLY, &st, ret_err);
	if (r == 0)
		r = store_check_version(st, true, ret_err);
	if (r < 0 && st)
		keep_words(st, ret_err);
	store_close(st);
	return r < 0 ? r : 0;
}

int store_open_lazy(const char *path, bool overwrite, const struct store_run *run,
		    struct store **ret, const char **ret_err)
{
	const char *why = NULL;
	struct store *st;
	int r;

	/* what opening would say, without creating anything */
	why_not_writable(path, &why);
	if (why) {
		*ret_err = why;
		return -EACCES;
	}
	r = overwrite ? 0 : check_existing(path, ret_err);
	if (r < 0)
		return r;
	r = new_store(path, overwrite, run, &st, ret_err);
	if (r < 0)
		return r;
	st->lazy = true;
	*ret = st;
	return 0;
}

void store_set_started(struct store *st, uint64_t wall_ns)
{
	st->pending_run.started_wall_ns = wall_ns;
}

/*
 * A block's most intervals when intervals are 100 ms or longer: each interval is written
 * as rows of its own (a row per series), and when 16 are there they become one row per
 * series (docs/record.md), in the transaction of the 16th. So a day of 1 s intervals is
 * 5,400 rows a series, not 86,400, every page written full, and an interval's write is
 * its own rows, not a block's grown again; a row of 16 x 44 bytes stays on its page (a
 * WITHOUT ROWID row over 1,002 bytes of a 4 KiB page spills into overflow pages).
 */
#define BLOCK_MAX 16u

void store_set_blocks(struct store *st, unsigned n)
{
	if (!st->labels) /* before the first interval: its block's room is made then */
		st->blocks = PM_MIN(n, BLOCK_MAX);
}

void store_set_batch(struct store *st, unsigned n)
{
	if (!st->labels) /* before the first interval: its block's room is made then */
		st->batch = n ? n : 1;
}

void store_set_max_bytes(struct store *st, uint64_t max_bytes)
{
	st->max_bytes = max_bytes;
}

unsigned store_pending(const struct store *st)
{
	return st->n_blk - st->committed;
}

bool store_written(const struct store *st)
{
	return st->written;
}

static void bind_opt_int(sqlite3_stmt *q, int i, int v)
{
	if (v >= 0)
		sqlite3_bind_int(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

/* The series of the first report's rows, kept until the first block is written. */
static int keep_labels(struct store *st, const struct pm_report *rep, const char **ret_err)
{
	st->labels = calloc(rep->n_rows + 1, sizeof(*st->labels));
	st->series = calloc(rep->n_rows + 1, sizeof(*st->series));
	if (!st->labels || !st->series) {
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	st->n_series = rep->n_rows;
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *r = &rep->rows[i];
		struct store_label *l = &st->labels[i];

		cli_row_place(r, l->place, sizeof(l->place));
		l->event = strdup(r->event ? r->event : "");
		l->unit = strdup(r->unit ? r->unit : "");
		l->device = r->device ? strdup(r->device) : NULL;
		l->domain = r->domain ? strdup(r->domain) : NULL;
		l->source = r->source ? strdup(r->source) : NULL;
		l->cgroup = r->cgroup ? strdup(r->cgroup) : NULL;
		l->socket = r->socket;
		l->die = r->die;
		l->channel = r->channel;
		l->subchannel = r->subchannel;
		l->cpu = r->cpu;
		l->flags = r->flags;
		if (!l->event || !l->unit || (r->device && !l->device) ||
		    (r->domain && !l->domain) || (r->source && !l->source) ||
		    (r->cgroup && !l->cgroup)) {
			*ret_err = "out of memory";
			return -ENOMEM;
		}
	}
	return 0;
}

static void free_labels(struct store *st)
{
	for (size_t i = 0; st->labels && i < st->n_series; i++) {
		free(st->labels[i].event);
		free(st->labels[i].unit);
		free(st->labels[i].device);
		free(st->labels[i].domain);
		free(st->labels[i].source);
		free(st->labels[i].cgroup);
	}
	free(st->labels);
	st->labels = NULL;
}

/* The run's series, in the first block's transaction. */
static int add_series(struct store *st, const char **ret_err)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO series (run, name, unit, metric, snapshot, device, place,"
			       " socket, die, channel, subchannel, cpu, domain, source, cgroup)"
			       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &q, NULL) != SQLITE_OK)
		return store_fail(st, ret_err, "recording the series");
	for (size_t i = 0; i < st->n_series; i++) {
		const struct store_label *l = &st->labels[i];

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, st->run);
		sqlite3_bind_text(q, 2, l->event, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, l->unit, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 4, !!(l->flags & PM_ROW_METRIC));
		sqlite3_bind_int(q, 5, !!(l->flags & PM_ROW_SNAPSHOT));
		sqlite3_bind_text(q, 6, l->device, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 7, l->place, -1, SQLITE_STATIC);
		bind_opt_int(q, 8, l->socket);
		bind_opt_int(q, 9, l->die);
		bind_opt_int(q, 10, l->channel);
		bind_opt_int(q, 11, l->subchannel);
		bind_opt_int(q, 12, l->cpu);
		sqlite3_bind_text(q, 13, l->domain, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 14, l->source, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 15, l->cgroup, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return store_fail(st, ret_err, "recording the series");
		}
		st->series[i] = sqlite3_last_insert_rowid(st->db);
	}
	sqlite3_finalize(q);
	st->series_written = true;
	return 0;
}

#define VALUE_COLS 13

/* INSERT INTO value of n rows, prepared into *ret: 0 or -errno. */
static int prepare_rows(struct store *st, size_t n, sqlite3_stmt **ret, const char **ret_err)
{
	static const char row[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?)";
	size_t size = sizeof("INSERT OR FAIL INTO value VALUES ") + n * sizeof(row) + 1;
	char *sql = malloc(size);
	size_t off;
	int rc;

	if (!sql) {
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	off = (size_t)snprintf(sql, size, "INSERT OR FAIL INTO value VALUES ");
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(sql + off, size - off, "%s%s", i ? "," : "", row);
	rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : store_fail(st, ret_err, "preparing the writes");
}

/* The statements that write a block's values, once the rows are known. */
static int prepare_values(struct store *st, const char **ret_err)
{
	int limit = sqlite3_limit(st->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1);
	size_t most = limit >= VALUE_COLS ? (size_t)limit / VALUE_COLS : 1;
	int r;

	/* at most 256 rows a statement: longer ones cost more to prepare than they save */
	st->chunk = PM_MIN(PM_MIN(most, (size_t)256), PM_MAX(st->n_series, (size_t)1));
	r = prepare_rows(st, st->chunk, &st->ins_rows, ret_err);
	if (r == 0 && st->n_series % st->chunk)
		r = prepare_rows(st, st->n_series % st->chunk, &st->ins_rest, ret_err);
	return r;
}

/* Room for a block of every series. */
static int block_alloc(struct store *st, const char **ret_err)
{
	/* intervals of less than 100 ms: a block is a transaction's */
	st->block_cap = st->batch > 1 ? st->batch : PM_MAX(st->blocks, 1u);
	st->blk = calloc((st->n_series + 1) * st->block_cap, sizeof(*st->blk));
	st->blk_t = calloc(st->block_cap, sizeof(*st->blk_t));
	/* a block's BLOBs: 8 bytes per interval for the 64-bit columns, 4 for the others */
	st->scratch = malloc((st->n_series + 1) * st->block_cap * (6 * 8 + 4 * 4) +
			     st->block_cap * 8);
	if (!st->blk || !st->blk_t || !st->scratch) {
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	return 0;
}

/* Little-endian, as docs/record.md gives a block's BLOBs. */
static unsigned char *put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return p + bytes;
}

static uint64_t double_bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/*
 * A block's 95 % intervals (docs/bounds.md) from column at: lo and hi NULL when every
 * value is exact (they are the values then), else BLOBs of n doubles (NaN: none); bound
 * a BLOB of n uint32, or of one for all n.
 */
static unsigned char *bind_bounds(sqlite3_stmt *q, int at, const struct store_cell *c, unsigned n,
				  unsigned char *scratch)
{
	bool exact = true, same = true;
	unsigned char *start;

	for (unsigned k = 0; k < n; k++) {
		exact &= c[k].bound == PM_BOUND_EXACT;
		same &= c[k].bound == c[0].bound;
	}
	for (int end = 0; end < 2; end++) {
		if (exact) {
			sqlite3_bind_null(q, at + end);
			continue;
		}
		start = scratch;
		for (unsigned k = 0; k < n; k++) {
			double v = c[k].bound == PM_BOUND_EXACT ? c[k].value :
				   end				? c[k].hi :
								  c[k].lo;

			scratch = put_le(scratch, double_bits(isfinite(c[k].value) ? v : NAN), 8);
		}
		sqlite3_bind_blob(q, at + end, start, (int)(scratch - start), SQLITE_STATIC);
	}
	start = scratch;
	for (unsigned k = 0; k < (same ? 1 : n); k++)
		scratch = put_le(scratch, c[k].bound, 4);
	sqlite3_bind_blob(q, at + 2, start, (int)(scratch - start), SQLITE_STATIC);
	return scratch;
}

/* Series i's values of intervals [from, from + n) into the statement at column at:
 * numbers for one interval, else a BLOB each of its n values. */
static unsigned char *bind_block_row(struct store *st, sqlite3_stmt *q, int at, size_t i,
				     unsigned from, unsigned n, unsigned char *scratch)
{
	const struct store_cell *c = &st->blk[i * st->block_cap + from];

	sqlite3_bind_int64(q, at + 1, st->run);
	sqlite3_bind_int64(q, at + 2, (long long)st->blk_t[from].t_ns);
	sqlite3_bind_int64(q, at + 3, st->series[i]);
	at++; /* the values from at + 3 on */
	if (n == 1) {
		sqlite3_bind_int64(q, at + 3, (long long)c->raw);
		sqlite3_bind_int64(q, at + 4, (long long)c->ena);
		sqlite3_bind_int64(q, at + 5, (long long)c->run);
		if (isnan(c->value))
			sqlite3_bind_null(q, at + 6);
		else
			sqlite3_bind_double(q, at + 6, c->value);
		sqlite3_bind_int(q, at + 7, (int)c->flags);
		sqlite3_bind_int(q, at + 8, (int)c->covered);
		sqlite3_bind_int(q, at + 9, (int)c->instances);
		/* the interval: NULL where there is none (its bound says why) */
		for (int end = 0; end < 2; end++) {
			double v = c->bound == PM_BOUND_EXACT ? c->value : end ? c->hi : c->lo;

			if (isfinite(v) && isfinite(c->value))
				sqlite3_bind_double(q, at + 10 + end, v);
			else
				sqlite3_bind_null(q, at + 10 + end);
		}
		sqlite3_bind_int(q, at + 12, (int)c->bound);
		return scratch;
	}
	for (int col = 0; col < 7; col++) {
		unsigned char *start = scratch;
		int bytes = col < 4 ? 8 : 4;
		bool same = true;

		for (size_t k = 0; k < n; k++) {
			const struct store_cell *x = &c[k];
			uint64_t v = col == 0 ? x->raw :
				     col == 1 ? x->ena :
				     col == 2 ? x->run :
				     col == 3 ? double_bits(x->value) :
				     col == 4 ? x->flags :
				     col == 5 ? x->covered :
						x->instances;

			scratch = put_le(scratch, v, bytes);
			same &= !k || !memcmp(scratch - bytes, start, (size_t)bytes);
		}
		/* n values the same (enabled and running times, flags, coverage, mostly): one */
		if (same)
			scratch = start + bytes;
		sqlite3_bind_blob(q, at + 3 + col, start, (int)(scratch - start), SQLITE_STATIC);
	}
	return bind_bounds(q, at + 10, c, n, scratch);
}

/* The sample row of intervals [from, from + n): the first's end (the key), the last's wall
 * clock, their length; with more than one, n and each one's length. */
static int put_sample(struct store *st, unsigned from, unsigned n, const char **ret_err)
{
	sqlite3_stmt *q = st->ins_sample;
	uint64_t length = 0;
	unsigned char *p = st->scratch;
	int rc;

	for (unsigned k = from; k < from + n; k++) {
		length += st->blk_t[k].duration_ns;
		p = put_le(p, st->blk_t[k].duration_ns, 8);
	}
	sqlite3_bind_int64(q, 1, st->run);
	sqlite3_bind_int64(q, 2, (long long)st->blk_t[from].t_ns);
	sqlite3_bind_int64(q, 3, (long long)st->blk_t[from + n - 1].wall_ns);
	sqlite3_bind_int64(q, 4, (long long)length);
	sqlite3_bind_int(q, 5, (int)n);
	if (n > 1)
		sqlite3_bind_blob(q, 6, st->scratch, (int)(8 * n), SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 6);
	rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : store_fail(st, ret_err, "recording an interval");
}

/* The value rows of intervals [from, from + n), a row per series. */
static int put_values(struct store *st, unsigned from, unsigned n, const char **ret_err)
{
	unsigned char *scratch = st->scratch + 8 * n;

	for (size_t i = 0; i < st->n_series;) {
		size_t rows = PM_MIN(st->chunk, st->n_series - i);
		sqlite3_stmt *q = rows == st->chunk ? st->ins_rows : st->ins_rest;
		int rc;

		for (size_t k = 0; k < rows; k++, i++)
			scratch = bind_block_row(st, q, (int)(k * VALUE_COLS), i, from, n, scratch);
		rc = sqlite3_step(q);
		sqlite3_reset(q);
		if (rc != SQLITE_DONE)
			return store_fail(st, ret_err, "recording an interval");
	}
	return 0;
}

/* The rows of the block's intervals written on their own so far, which its rows replace:
 * 0 or -errno. */
static int drop_singles(struct store *st, const char **ret_err)
{
	sqlite3_stmt *q[2] = { st->del_values, st->del_samples };
	int rc = SQLITE_DONE;

	for (int i = 0; i < 2 && rc == SQLITE_DONE; i++) {
		sqlite3_bind_int64(q[i], 1, st->run);
		sqlite3_bind_int64(q[i], 2, (long long)st->blk_t[0].t_ns);
		sqlite3_bind_int64(q[i], 3, (long long)st->blk_t[st->committed - 1].t_ns);
		rc = sqlite3_step(q[i]);
		sqlite3_reset(q[i]);
	}
	return rc == SQLITE_DONE ? 0 : store_fail(st, ret_err, "recording an interval");
}

/* With a size limit, what is on disk is the file: the WAL back in it after each commit
 * (as far as readers let: one holding an old snapshot is not waited for). */
static void checkpoint(struct store *st)
{
	sqlite3_busy_timeout(st->db, 0);
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(st->db, 5000);
}

/* The first interval of a lazy store could not be written: nothing of it stays. */
static void undo_lazy(struct store *st)
{
	sqlite3_finalize(st->ins_sample);
	sqlite3_finalize(st->ins_rows);
	sqlite3_finalize(st->ins_rest);
	sqlite3_finalize(st->del_values);
	sqlite3_finalize(st->del_samples);
	st->ins_sample = st->ins_rows = st->ins_rest = st->del_values = st->del_samples = NULL;
	if (st->db && st->in_tx)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->in_tx = false;
	sqlite3_close(st->db);
	st->db = NULL;
	if (st->created)
		remove_files(st->path);
}

/*
 * The intervals since the last commit, in one transaction (the first one of a lazy store
 * creates the file and the run in it): each as rows of its own, or, when they fill the
 * block, the block as one row per series in place of the rows its first ones were written
 * as. 0 or -errno. A full block is done with: the next interval starts another.
 */
static int write_block(struct store *st, const char **ret_err)
{
	bool first = !st->db, full = st->n_blk == st->block_cap && st->block_cap > 1;
	int r = 0;

	if (st->n_blk == st->committed)
		return 0;
	if (first && !st->lazy) {
		*ret_err = "the recording is closed";
		return -EBADF;
	}
	if (first) {
		r = open_now(st, ret_err); /* the transaction open, the run in it */
	} else {
		r = store_exec(st, "BEGIN", ret_err);
		st->in_tx = r == 0;
	}
	if (r == 0 && !st->series_written)
		r = add_series(st, ret_err);
	if (r == 0 && !st->ins_rows && st->n_series)
		r = prepare_values(st, ret_err);
	if (r == 0 && full && st->committed)
		r = drop_singles(st, ret_err);
	if (r == 0 && full) {
		r = put_sample(st, 0, st->n_blk, ret_err);
		if (r == 0)
			r = put_values(st, 0, st->n_blk, ret_err);
	}
	for (unsigned k = st->committed; r == 0 && !full && k < st->n_blk; k++) {
		r = put_sample(st, k, 1, ret_err);
		if (r == 0)
			r = put_values(st, k, 1, ret_err);
	}
	if (r == 0) {
		st->in_tx = false;
		r = store_exec(st, "COMMIT", ret_err);
	}
	if (r < 0 && st->in_tx) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		st->in_tx = false;
	}
	if (r < 0) {
		/* what was not committed is lost with the transaction, the rest stays */
		st->n_blk = st->committed;
		if (first) {
			keep_words(st, ret_err);
			undo_lazy(st);
			st->series_written = false;
			st->lazy = false; /* nothing more is written */
		}
		return r;
	}
	st->committed = st->n_blk;
	if (st->n_blk == st->block_cap)
		st->n_blk = st->committed = 0;
	st->written = true;
	if (st->max_bytes)
		checkpoint(st);
	return 0;
}

int store_flush(struct store *st, const char **ret_err)
{
	return write_block(st, ret_err);
}

int store_append(struct store *st, const struct pm_report *rep, const char **ret_err)
{
	bool first = !st->labels;
	int r = 0;

	if (!first && rep->n_rows != st->n_series) {
		*ret_err = "the rows changed within a run";
		return -EINVAL;
	}
	if (!st->db && !st->lazy) {
		*ret_err = "the recording is closed";
		return -EBADF;
	}
	if (first) {
		r = keep_labels(st, rep, ret_err);
		if (r == 0)
			r = block_alloc(st, ret_err);
		if (r < 0)
			return r;
	}
	st->blk_t[st->n_blk] = (struct store_when){ .t_ns = rep->t_ns,
						    .wall_ns = rep->wall_ns,
						    .duration_ns = rep->duration_ns };
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *row = &rep->rows[i];

		st->blk[i * st->block_cap + st->n_blk] = (struct store_cell){
			.raw = row->raw,
			.ena = row->enabled_ns,
			.run = row->running_ns,
			.value = row->value,
			.flags = row->flags,
			.covered = row->covered,
			.instances = row->instances,
			.lo = row->lo,
			.hi = row->hi,
			.bound = row->bound
		};
	}
	st->n_blk++;
	/* a transaction holds batch intervals, or ends a full block; the first of a lazy
	 * store is written at once: then the file exists, with an interval in it */
	if (st->n_blk - st->committed >= st->batch || st->n_blk == st->block_cap || !st->written)
		r = write_block(st, ret_err);
	return r;
}

int store_end_run(struct store *st, uint64_t ended_wall_ns, const char *lost, const char **ret_err)
{
	sqlite3_stmt *q;
	int r = store_flush(st, ret_err);

	if (r < 0 || !st->db || !st->written)
		return r;
	if (sqlite3_prepare_v2(st->db, "UPDATE run SET ended_wall_ns = ?, lost = ? WHERE id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return store_fail(st, ret_err, "recording the run's end");
	sqlite3_bind_int64(q, 1, (long long)ended_wall_ns);
	bind_text_or_null(q, 2, lost);
	sqlite3_bind_int64(q, 3, st->run);
	r = sqlite3_step(q) == SQLITE_DONE ? 0 : store_fail(st, ret_err, "recording the run's end");
	sqlite3_finalize(q);
	if (r == 0 && st->max_bytes)
		checkpoint(st);
	return r;
}

uint64_t store_bytes(struct store *st)
{
	long long pages = store_query_int(st, "PRAGMA page_count");
	long long size = store_query_int(st, "PRAGMA page_size");

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/*
 * Drop the blocks that ended before wall clock `before` (ns), of every run, the oldest
 * first; give the space back. A few at a time, each step checkpointed, so that the WAL
 * never holds more than a step: a drop of a tenth of the file at once would double it.
 */
static int drop_before(struct store *st, long long before, const char **ret_err)
{
	char sql[768];
	int r = 0, changed = 1;

	snprintf(sql, sizeof(sql),
		 "DELETE FROM value WHERE (run, t_ns) IN (SELECT run, t_ns FROM sample"
		 " WHERE wall_ns < %lld ORDER BY wall_ns, run, t_ns LIMIT 4);"
		 "DELETE FROM sample WHERE (run, t_ns) IN (SELECT run, t_ns FROM sample"
		 " WHERE wall_ns < %lld ORDER BY wall_ns, run, t_ns LIMIT 4);",
		 before, before);
	while (r == 0 && changed) {
		r = store_exec(st, "BEGIN", ret_err);
		if (r == 0 && sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			r = store_fail(st, ret_err, "dropping the oldest intervals");
		changed = r == 0 ? sqlite3_changes(st->db) : 0;
		r = end_transaction(st, r, ret_err);
		if (r == 0)
			checkpoint(st);
	}
	while (r == 0 && store_query_int(st, "PRAGMA freelist_count") > 0) {
		r = store_exec(st, "PRAGMA incremental_vacuum(16)", ret_err);
		if (r == 0)
			checkpoint(st);
	}
	return r;
}

int store_trim(struct store *st, double max_age_s, uint64_t max_bytes, const char **ret_err)
{
	long long last, first;
	int r = 0;

	if (!st->db || st->in_tx)
		return 0; /* nothing yet, or an open batch: trimmed after its commit */
	last = store_query_int(st, "SELECT max(wall_ns) FROM sample");
	if (last <= 0)
		return 0;
	first = store_query_int(st, "SELECT min(wall_ns) FROM sample");
	if (max_age_s > 0 && first < last - (long long)(max_age_s * 1e9))
		r = drop_before(st, last - (long long)(max_age_s * 1e9), ret_err);
	/* past the size, the oldest tenth of what is left, until it fits (or one interval) */
	for (int round = 0; r == 0 && max_bytes && store_bytes(st) > max_bytes && round < 64;
	     round++) {
		first = store_query_int(st, "SELECT min(wall_ns) FROM sample");
		if (first <= 0 || first >= last)
			break;
		r = drop_before(st, first + (last - first) / 10 + 1, ret_err);
	}
	return r;
}

void store_close(struct store *st)
{
	const char *why = "";

	if (!st)
		return;
	if (st->n_blk != st->committed)
		write_block(st, &why);
	sqlite3_finalize(st->ins_sample);
	sqlite3_finalize(st->ins_rows);
	sqlite3_finalize(st->ins_rest);
	sqlite3_finalize(st->del_values);
	sqlite3_finalize(st->del_samples);
	sqlite3_close(st->db);
	free_labels(st);
	free(st->blk);
	free(st->blk_t);
	free(st->scratch);
	free(st->series);
	for (size_t i = 0; i < PM_ARRAY_SIZE(st->run_text); i++)
		free(st->run_text[i]);
	free(st->path);
	free(st);
}
