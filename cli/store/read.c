// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recordings in SQLite: reading, for pmumon report and import. Every read
 * is a walk of a primary key in its order — a run's samples by (run,
 * t_ns), a series' values by (series, t_ns) — so a report of a day reads
 * each value once and looks nothing up per value.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-text.h"
#include "util.h"
#include "pmumon/pmumon.h"
#include "store-db.h"
#include "store.h"

int store_open_read(const char *path, struct store **ret, const char **ret_err)
{
	struct store *st;
	int r = store_open_db(path, SQLITE_OPEN_READONLY, &st, ret_err);

	if (r < 0)
		return r;
	r = store_check_version(st, false, ret_err);
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
	long long v = store_query_int(st, "SELECT max(id) FROM run");

	return v > 0 ? v : 0;
}

static void text_col(sqlite3_stmt *q, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(q, i);

	snprintf(buf, size, "%s", t ? (const char *)t : "");
}

int store_run(struct store *st, long long run, struct store_run_info *ret)
{
	bool v4 = store_has_column(st, "run", "lost"), v2 = store_has_column(st, "run", "cpuid");
	char sql[512];
	sqlite3_stmt *q;
	int r = -ENOENT;

	if (!run)
		run = store_last_run(st);
	snprintf(sql, sizeof(sql),
		 "SELECT id, started_wall_ns, command, version, platform, simulated, sim_platform,"
		 " interval_ms, aggr, %s, %s FROM run WHERE id = ?",
		 v2 ? "cpuid" : "NULL", v4 ? "defines, ended_wall_ns, lost" : "NULL, NULL, NULL");
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run);
	if (sqlite3_step(q) == SQLITE_ROW) {
		struct store_run_info *i = ret;

		memset(i, 0, sizeof(*i));
		i->id = sqlite3_column_int64(q, 0);
		i->started_wall_ns = sqlite3_column_int64(q, 1);
		text_col(q, 2, i->command, sizeof(i->command));
		text_col(q, 3, i->version, sizeof(i->version));
		text_col(q, 4, i->platform, sizeof(i->platform));
		i->simulated = sqlite3_column_int(q, 5);
		text_col(q, 6, i->sim_platform, sizeof(i->sim_platform));
		i->interval_ms = (uint64_t)sqlite3_column_int64(q, 7);
		text_col(q, 8, i->aggr, sizeof(i->aggr));
		text_col(q, 9, i->cpuid, sizeof(i->cpuid));
		text_col(q, 10, i->defines, sizeof(i->defines));
		i->ended_wall_ns = sqlite3_column_int64(q, 11);
		text_col(q, 12, i->lost, sizeof(i->lost));
		r = 0;
	}
	sqlite3_finalize(q);
	return r;
}

uint64_t store_le(const unsigned char *p, int width)
{
	uint64_t v = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, (size_t)width); /* the host's order is the file's */
#else
	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | p[i];
#endif
	return v;
}

/* A block's intervals, whose ends are in [from_ns, to_ns], onto out: 0 or -errno. */
static int expand(sqlite3_stmt *q, int64_t from_ns, int64_t to_ns, struct store_sample **out,
		  size_t *n, size_t *cap)
{
	int64_t key = sqlite3_column_int64(q, 0), wall = sqlite3_column_int64(q, 1);
	int count = sqlite3_column_int(q, 3);
	const unsigned char *len = sqlite3_column_blob(q, 4);
	unsigned k, blocks = count > 1 && len && sqlite3_column_bytes(q, 4) == 8 * count ?
				     (unsigned)count :
				     1;
	int64_t last = key, end = key;

	/* interval k ends its length after interval k - 1; the wall clock is the last's */
	for (k = 1; k < blocks; k++)
		last += (int64_t)store_le(len + 8 * k, 8);
	for (k = 0; k < blocks; k++) {
		int64_t dur = blocks > 1 ? (int64_t)store_le(len + 8 * k, 8) :
					   sqlite3_column_int64(q, 2);

		if (k)
			end += dur;
		if (end < from_ns || end > to_ns)
			continue;
		if (pm_grow((void **)out, cap, *n + 1, sizeof(**out)) < 0)
			return -ENOMEM;
		(*out)[(*n)++] = (struct store_sample){ .t_ns = end,
							.wall_ns = wall > 0 ? wall - (last - end) :
									      0,
							.duration_ns = dur,
							.block_t_ns = key,
							.k = k,
							.n = blocks };
	}
	return 0;
}

long store_samples(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
		   struct store_sample **ret)
{
	struct store_sample *out = NULL;
	size_t n = 0, cap = 0;
	bool blocks = store_has_column(st, "sample", "n");
	int64_t start = from_ns;
	sqlite3_stmt *q;
	int rc, r = 0;

	if (!run)
		run = store_last_run(st);
	/* the block that holds from_ns starts before it */
	if (blocks &&
	    sqlite3_prepare_v2(st->db, "SELECT max(t_ns) FROM sample WHERE run = ? AND t_ns <= ?",
			       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, run);
		sqlite3_bind_int64(q, 2, from_ns);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
			start = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	if (sqlite3_prepare_v2(st->db,
			       blocks ? "SELECT t_ns, wall_ns, duration_ns, n, lengths FROM sample"
					" WHERE run = ? AND t_ns >= ? AND t_ns <= ? ORDER BY t_ns" :
					"SELECT t_ns, wall_ns, duration_ns, 1, NULL FROM sample"
					" WHERE run = ? AND t_ns >= ? AND t_ns <= ? ORDER BY t_ns",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, start);
	sqlite3_bind_int64(q, 3, to_ns);
	while (r == 0 && (rc = sqlite3_step(q)) == SQLITE_ROW)
		r = expand(q, from_ns, to_ns, &out, &n, &cap);
	sqlite3_finalize(q);
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = -EIO;
	if (r < 0) {
		free(out);
		return r;
	}
	*ret = out;
	return (long)n;
}

static int int_col(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_int(q, i);
}

long store_series(struct store *st, long long run, struct store_series **ret)
{
	sqlite3_stmt *q;
	struct store_series *out = NULL;
	size_t n = 0, cap = 0;
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "SELECT id, name, unit, place, metric, %s, snapshot, device, socket, die,"
		 " channel, cpu FROM series WHERE run = ? ORDER BY id",
		 store_has_column(st, "series", "cgroup") ? "cgroup" : "NULL");
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run ? run : store_last_run(st));
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct store_series *s;
		char place[384];

		if (pm_grow((void **)&out, &cap, n + 1, sizeof(*out)) < 0) {
			sqlite3_finalize(q);
			free(out);
			return -ENOMEM;
		}
		s = &out[n++];
		memset(s, 0, sizeof(*s));
		s->id = sqlite3_column_int64(q, 0);
		text_col(q, 1, s->name, sizeof(s->name));
		text_col(q, 2, s->unit, sizeof(s->unit));
		text_col(q, 3, place, sizeof(place));
		s->metric = sqlite3_column_int(q, 4);
		text_col(q, 5, s->cgroup, sizeof(s->cgroup));
		/* counted in a cgroup: the place says which, as top and serve's page say it */
		cli_place_in(place, s->cgroup, s->place, sizeof(s->place));
		s->snapshot = sqlite3_column_int(q, 6);
		text_col(q, 7, s->device, sizeof(s->device));
		s->socket = int_col(q, 8);
		s->die = int_col(q, 9);
		s->channel = int_col(q, 10);
		s->cpu = int_col(q, 11);
	}
	sqlite3_finalize(q);
	*ret = out;
	return (long)n;
}

int store_value_scan(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
		     const long long *ids, size_t n_ids, sqlite3_stmt **ret)
{
	const char *table = "value";
	size_t size = 512 + 22 * n_ids, off;
	char *sql = malloc(size);
	int r = 0;

	if (!sql)
		return -ENOMEM;

	if (!store_has_column(st, "value", "run")) {
		/* version 3 or older: rows by series, each an interval; the same columns */
		if (sqlite3_exec(
			    st->db,
			    store_has_column(st, "value", "bound") ?
				    "CREATE TEMP VIEW IF NOT EXISTS value_by_time AS SELECT"
				    " s.run AS run, v.t_ns AS t_ns, v.series AS series, v.raw AS"
				    " raw, v.enabled_ns AS enabled_ns, v.running_ns AS running_ns,"
				    " v.value AS value, v.flags AS flags, v.covered AS covered,"
				    " v.instances AS instances, v.lo AS lo, v.hi AS hi, v.bound AS"
				    " bound FROM value v JOIN series s ON s.id = v.series" :
				    "CREATE TEMP VIEW IF NOT EXISTS value_by_time AS SELECT"
				    " s.run AS run, v.t_ns AS t_ns, v.series AS series, v.raw AS"
				    " raw, v.enabled_ns AS enabled_ns, v.running_ns AS running_ns,"
				    " v.value AS value, v.flags AS flags, v.covered AS covered,"
				    " v.instances AS instances, NULL AS lo, NULL AS hi, NULL AS"
				    " bound FROM value v JOIN series s ON s.id = v.series",
			    NULL, NULL, NULL) != SQLITE_OK) {
			free(sql);
			return -EIO;
		}
		table = "value_by_time";
	}
	/* the rows of the series asked for alone: the others are skipped by SQLite without
	 * a row made of them (a report of 16 of a recording's 96 series) */
	/* many: a pass over all is as quick, and the caller skips the others itself */
	if (n_ids > 32)
		n_ids = 0;
	/* a few: a seek to each of their rows in each block, the blocks from sample */
	off = (size_t)snprintf(sql, size,
			       "SELECT t_ns, series, raw, enabled_ns, running_ns, value, flags,"
			       " covered, instances, %s FROM %s WHERE run = ?1 AND %s",
			       /* a file before version 4 kept no intervals */
			       strcmp(table, "value") || store_has_column(st, "value", "bound") ?
				       "lo, hi, bound" :
				       "NULL, NULL, NULL",
			       table,
			       n_ids && !strcmp(table, "value") ?
				       "t_ns IN (SELECT t_ns FROM sample WHERE run = ?1 AND"
				       " t_ns >= ?2 AND t_ns <= ?3)" :
				       "t_ns >= ?2 AND t_ns <= ?3");
	for (size_t i = 0; i < n_ids && off < size; i++)
		off += (size_t)snprintf(sql + off, size - off, "%s%lld",
					i ? "," : " AND series IN (", ids[i]);
	if (off < size)
		snprintf(sql + off, size - off, "%s ORDER BY t_ns, series", n_ids ? ")" : "");
	if (sqlite3_prepare_v2(st->db, sql, -1, ret, NULL) != SQLITE_OK)
		r = -EIO;
	free(sql);
	if (r < 0)
		return r;
	sqlite3_bind_int64(*ret, 1, run);
	sqlite3_bind_int64(*ret, 2, from_ns);
	sqlite3_bind_int64(*ret, 3, to_ns);
	return 0;
}

/* Column at of a block row: n values of width bytes, or one for all n (*step 0), or none
 * (NULL, or the wrong size: -1). */
static const unsigned char *block_col(sqlite3_stmt *q, int at, int width, unsigned n, int *step)
{
	const unsigned char *p = sqlite3_column_blob(q, at);
	int bytes = sqlite3_column_bytes(q, at);

	*step = bytes == width * (int)n ? width : bytes == width ? 0 : -1;
	return p && *step >= 0 ? p : NULL;
}

static double as_double(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* A number column (NULL: NaN). */
static double col_double(sqlite3_stmt *q, int at)
{
	return sqlite3_column_type(q, at) == SQLITE_NULL ? NAN : sqlite3_column_double(q, at);
}

void store_row_values(sqlite3_stmt *q, int at, unsigned n, struct store_value *out)
{
	static const int width[7] = { 8, 8, 8, 8, 4, 4, 4 };
	const unsigned char *p[10];
	int step[10];

	if (n > 1 && sqlite3_column_type(q, at) == SQLITE_BLOB) {
		bool ok = true, exact;

		for (int c = 0; c < 7 && ok; c++)
			ok = (p[c] = block_col(q, at + c, width[c], n, &step[c])) != NULL;
		/* lo and hi NULL: every value exact */
		exact = sqlite3_column_type(q, at + 7) == SQLITE_NULL;
		for (int c = 7; c < 9 && ok && !exact; c++)
			ok = (p[c] = block_col(q, at + c, 8, n, &step[c])) != NULL;
		p[9] = ok ? block_col(q, at + 9, 4, n, &step[9]) : NULL;
		if (!ok) {
			for (unsigned k = 0; k < n; k++)
				out[k] = (struct store_value){ .v = { .value = NAN,
								      .flags = PM_ROW_NOT_COUNTED },
							       .lo = NAN,
							       .hi = NAN,
							       .bound = PM_BOUND_NO_VALUE };
			return;
		}
		for (unsigned k = 0; k < n; k++) {
			struct pm_replay_feed_value *v = &out[k].v;

			v->raw = store_le(p[0] + step[0] * k, 8);
			v->enabled_ns = store_le(p[1] + step[1] * k, 8);
			v->running_ns = store_le(p[2] + step[2] * k, 8);
			v->value = as_double(store_le(p[3] + step[3] * k, 8));
			v->flags = (unsigned)store_le(p[4] + step[4] * k, 4);
			v->covered = (unsigned)store_le(p[5] + step[5] * k, 4);
			v->instances = (unsigned)store_le(p[6] + step[6] * k, 4);
			out[k].lo = exact ? v->value : as_double(store_le(p[7] + step[7] * k, 8));
			out[k].hi = exact ? v->value : as_double(store_le(p[8] + step[8] * k, 8));
			out[k].bound = p[9] ? (unsigned)store_le(p[9] + step[9] * k, 4) :
					      PM_BOUND_UNMEASURED;
		}
		return;
	}
	for (unsigned k = 1; k < n; k++) /* numbers in a row of a block: not pmumon's */
		out[k] = (struct store_value){ .v = { .value = NAN, .flags = PM_ROW_NOT_COUNTED },
					       .lo = NAN,
					       .hi = NAN,
					       .bound = PM_BOUND_NO_VALUE };
	out->v.raw = (uint64_t)sqlite3_column_int64(q, at);
	out->v.enabled_ns = (uint64_t)sqlite3_column_int64(q, at + 1);
	out->v.running_ns = (uint64_t)sqlite3_column_int64(q, at + 2);
	out->v.value = col_double(q, at + 3);
	out->v.flags = (unsigned)sqlite3_column_int(q, at + 4);
	out->v.covered = (unsigned)PM_MAX(sqlite3_column_int(q, at + 5), 0);
	out->v.instances = (unsigned)PM_MAX(sqlite3_column_int(q, at + 6), 0);
	out->lo = col_double(q, at + 7);
	out->hi = col_double(q, at + 8);
	/* a recording before version 4 kept no interval: none known */
	out->bound = sqlite3_column_type(q, at + 9) == SQLITE_NULL ?
			     PM_BOUND_UNMEASURED :
			     (unsigned)sqlite3_column_int(q, at + 9);
}

/* Where series id is in ids, sorted by id with its place (id, index) pairs: its index, or
 * -1. */
static long find_id(const long long (*sorted)[2], size_t n, long long id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sorted[mid][0] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sorted[lo][0] == id ? (long)sorted[lo][1] : -1;
}

static int by_id(const void *a, const void *b)
{
	const long long *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int store_values(struct store *st, long long run, const struct store_sample *axis, size_t n,
		 const long long *ids, size_t n_ids, double *const *ret_value,
		 unsigned *const *ret_flags, double *const *ret_lo, double *const *ret_hi,
		 unsigned *const *ret_bound)
{
	long long(*sorted)[2] = calloc(n_ids + 1, sizeof(*sorted));
	struct store_value *blk = NULL;
	sqlite3_stmt *q = NULL;
	size_t j = 0, cap = 0;
	int rc = SQLITE_DONE, r = sorted ? 0 : -ENOMEM;

	for (size_t i = 0; i < n_ids; i++)
		for (size_t k = 0; k < n; k++) {
			ret_value[i][k] = NAN;
			ret_flags[i][k] = PM_ROW_NOT_COUNTED;
			if (ret_lo)
				ret_lo[i][k] = ret_hi[i][k] = NAN;
			if (ret_bound)
				ret_bound[i][k] = PM_BOUND_NO_VALUE;
		}
	if (r < 0 || !n || !n_ids) {
		free(sorted);
		return r;
	}
	for (size_t i = 0; i < n_ids; i++) {
		sorted[i][0] = ids[i];
		sorted[i][1] = (long long)i;
	}
	qsort(sorted, n_ids, sizeof(*sorted), by_id);
	r = store_value_scan(st, run, axis[0].block_t_ns, axis[n - 1].block_t_ns, ids, n_ids, &q);
	while (r == 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(q, 0);
		long i = find_id(sorted, n_ids, sqlite3_column_int64(q, 1));
		unsigned rows;

		while (j < n && axis[j].block_t_ns < t)
			j++;
		if (j == n)
			break;
		if (i < 0 || axis[j].block_t_ns != t)
			continue; /* a series not shown, or a row of no sample */
		rows = axis[j].n; /* the block's intervals, as its sample row says */
		if (pm_grow((void **)&blk, &cap, rows, sizeof(*blk)) < 0) {
			r = -ENOMEM;
			break;
		}
		store_row_values(q, 2, rows, blk);
		/* a row of no sample is not one pmumon wrote */
		for (size_t jj = j; jj < n && axis[jj].block_t_ns == t; jj++) {
			if (axis[jj].k >= rows)
				continue;
			const struct store_value *x = &blk[axis[jj].k];

			ret_value[i][jj] = x->v.value;
			ret_flags[i][jj] = x->v.flags;
			if (ret_lo) {
				ret_lo[i][jj] = x->lo;
				ret_hi[i][jj] = x->hi;
			}
			if (ret_bound)
				ret_bound[i][jj] = x->bound;
		}
	}
	sqlite3_finalize(q);
	free(sorted);
	free(blk);
	if (r == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = -EIO;
	return r;
}

bool store_is_recording(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	bool is = f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		  !memcmp(head, magic, sizeof(head));

	if (f)
		fclose(f);
	return is;
}

bool store_is_empty(const char *path)
{
	struct stat sb;

	return strcmp(path, "-") && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0;
}
