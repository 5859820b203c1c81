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

#include "cli.h"
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
		 " interval_ms, aggr, %s, %s, (SELECT count(*) FROM sample WHERE run = run.id)"
		 " FROM run WHERE id = ?",
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
		i->n_samples = (size_t)sqlite3_column_int64(q, 13);
		r = 0;
	}
	sqlite3_finalize(q);
	return r;
}

uint64_t store_le(const unsigned char *p, int width)
{
	uint64_t v = 0;

	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A block's intervals, whose ends are in [from_ns, to_ns], onto out: 0 or -errno. */
static int expand(sqlite3_stmt *q, int64_t from_ns, int64_t to_ns, struct store_sample **out,
		  size_t *n, size_t *cap)
{
	int64_t last = sqlite3_column_int64(q, 0), wall = sqlite3_column_int64(q, 1);
	int blocks = sqlite3_column_int(q, 3);
	const unsigned char *len = sqlite3_column_blob(q, 4);
	unsigned count = blocks > 1 && len && sqlite3_column_bytes(q, 4) == 8 * blocks ?
				 (unsigned)blocks :
				 1;
	int64_t end = last;

	/* each interval's end: the block's, less the lengths of the ones after it */
	for (unsigned k = count; k-- > 0;) {
		int64_t dur = count > 1 ? (int64_t)store_le(len + 8 * k, 8) :
					  sqlite3_column_int64(q, 2);
		struct store_sample *s;

		if (end >= from_ns && end <= to_ns) {
			if (cli_grow((void **)out, cap, *n + 1, sizeof(**out)) < 0)
				return -ENOMEM;
			s = &(*out)[(*n)++];
			*s = (struct store_sample){ .t_ns = end,
						    .wall_ns = wall > 0 ? wall - (last - end) : 0,
						    .duration_ns = dur,
						    .block_t_ns = last,
						    .k = k,
						    .n = count };
		}
		end -= dur;
	}
	return 0;
}

static int by_t(const void *a, const void *b)
{
	const struct store_sample *x = a, *y = b;

	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

long store_samples(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
		   struct store_sample **ret)
{
	struct store_sample *out = NULL;
	size_t n = 0, cap = 0;
	bool blocks = store_has_column(st, "sample", "n");
	sqlite3_stmt *q;
	int rc, r = 0;

	if (sqlite3_prepare_v2(st->db,
			       blocks ? "SELECT t_ns, wall_ns, duration_ns, n, lengths FROM sample"
					" WHERE run = ? AND t_ns >= ? ORDER BY t_ns" :
					"SELECT t_ns, wall_ns, duration_ns, 1, NULL FROM sample"
					" WHERE run = ? AND t_ns >= ? ORDER BY t_ns",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run ? run : store_last_run(st));
	sqlite3_bind_int64(q, 2, from_ns);
	while (r == 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		/* a block's first interval ends a block's length before its last */
		if (sqlite3_column_int64(q, 0) - sqlite3_column_int64(q, 2) >= to_ns)
			break;
		r = expand(q, from_ns, to_ns, &out, &n, &cap);
	}
	sqlite3_finalize(q);
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = -EIO;
	if (r < 0) {
		free(out);
		return r;
	}
	/* a block's intervals came out last first */
	qsort(out, n, sizeof(*out), by_t);
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

		if (cli_grow((void **)&out, &cap, n + 1, sizeof(*out)) < 0) {
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

/* Value k of a block's row (or the row's own, of a block of one). */
static void take_value(sqlite3_stmt *q, unsigned k, unsigned n, double *ret_value,
		       unsigned *ret_flags)
{
	const unsigned char *v = NULL, *f = NULL;

	if (n > 1 && sqlite3_column_type(q, 1) == SQLITE_BLOB) {
		v = sqlite3_column_blob(q, 1);
		if (!v || sqlite3_column_bytes(q, 1) < (int)(8 * n))
			return;
		f = sqlite3_column_blob(q, 2);
		if (!f || sqlite3_column_bytes(q, 2) < (int)(4 * n))
			return;
		{
			uint64_t bits = store_le(v + 8 * k, 8);

			memcpy(ret_value, &bits, sizeof(*ret_value));
		}
		*ret_flags = (unsigned)store_le(f + 4 * k, 4);
		return;
	}
	*ret_value = sqlite3_column_type(q, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 1);
	*ret_flags = (unsigned)sqlite3_column_int(q, 2);
}

int store_values(struct store *st, long long series, const struct store_sample *axis, size_t n,
		 double *ret_value, unsigned *ret_flags)
{
	sqlite3_stmt *q;
	size_t j = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		ret_value[i] = NAN;
		ret_flags[i] = PM_ROW_NOT_COUNTED;
	}
	if (!n)
		return 0;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT t_ns, value, flags FROM value"
			       " WHERE series = ? AND t_ns >= ? AND t_ns <= ? ORDER BY t_ns",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, series);
	sqlite3_bind_int64(q, 2, axis[0].block_t_ns);
	sqlite3_bind_int64(q, 3, axis[n - 1].block_t_ns);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(q, 0);

		while (j < n && axis[j].block_t_ns < t)
			j++;
		if (j == n)
			break;
		/* a value of no sample is not one pmumon wrote */
		for (; j < n && axis[j].block_t_ns == t; j++)
			take_value(q, axis[j].k, axis[j].n, &ret_value[j], &ret_flags[j]);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
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
