// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording's run played back by the library (pm_replay__feed): its
 * event series as the rows that were recorded name them, and each
 * interval's values read from SQLite as the session asks for them. Only
 * the series the session reads (the events asked for, and those a metric
 * needs) are read at all: one cursor each, walking its (series, t_ns)
 * primary key in step with the run's samples. Metrics are never taken
 * from the file: the library computes them again from the raw deltas, the
 * same engine as stat, at whatever rows the session groups by.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store-db.h"
#include "store.h"

struct feed_series {
	long long id;
	char *name, *unit, *device, *cgroup;
	sqlite3_stmt *cur; /* NULL: not read */
	int64_t at;	   /* the t_ns of the row cur is on; -1: none left */
};

struct store_feed {
	struct store *st;
	struct store_sample *axis;
	size_t n_axis, next;
	struct feed_series *s;
	size_t n;
	struct pm_replay_feed_series *desc;
	char sim_platform[64], cpuid[128];
	char name[4200];
	char err[256];
};

static char *dup_col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);

	return t ? strdup((const char *)t) : NULL;
}

static int int_col(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_int(q, i);
}

/* The run's event series (snapshots are levels, not counts: left out) and how the run's
 * rows were grouped. */
static int load_series(struct store_feed *f, long long run, bool per_channel)
{
	sqlite3_stmt *q;
	char sql[512];
	size_t cap = 0, cap_desc = 0;
	int r = 0;

	snprintf(sql, sizeof(sql),
		 "SELECT id, name, unit, device, socket, die, channel, cpu, %s FROM series"
		 " WHERE run = ? AND NOT metric AND NOT snapshot ORDER BY id",
		 store_has_column(f->st, "series", "cgroup") ? "cgroup" : "NULL");
	if (sqlite3_prepare_v2(store_db(f->st), sql, -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, run);
	while (r == 0 && sqlite3_step(q) == SQLITE_ROW) {
		struct feed_series *s;
		struct pm_replay_feed_series *d;

		r = cli_grow((void **)&f->s, &cap, f->n + 1, sizeof(*f->s));
		if (r == 0)
			r = cli_grow((void **)&f->desc, &cap_desc, f->n + 1, sizeof(*f->desc));
		if (r < 0)
			break;
		s = &f->s[f->n];
		d = &f->desc[f->n];
		*s = (struct feed_series){ .id = sqlite3_column_int64(q, 0),
					   .name = dup_col(q, 1),
					   .unit = dup_col(q, 2),
					   .device = dup_col(q, 3),
					   .cgroup = dup_col(q, 8),
					   .at = -1 };
		f->n++;
		if (!s->name)
			r = sqlite3_column_type(q, 1) == SQLITE_NULL ? -EINVAL : -ENOMEM;
		*d = (struct pm_replay_feed_series){
			.event = s->name,
			.unit = s->unit,
			.device = s->device && s->device[0] ? s->device : NULL,
			.cgroup = s->cgroup,
			.cpu = int_col(q, 7),
			.socket = int_col(q, 4),
			.die = int_col(q, 5),
			/* a channel row adds up the PMUs of a channel: one PMU there stands for it */
			.channel = per_channel && !(s->device && s->device[0]) ? int_col(q, 6) : -1,
		};
	}
	sqlite3_finalize(q);
	return r;
}

/* Interval k of n of the block row q is on, its columns raw, enabled_ns, running_ns,
 * value, flags, covered, instances from column at: numbers (n = 1) or BLOBs of n. */
static void row_value(sqlite3_stmt *q, int at, unsigned k, unsigned n,
		      struct pm_replay_feed_value *v)
{
	static const int width[7] = { 8, 8, 8, 8, 4, 4, 4 };
	uint64_t x[7];

	if (n > 1 && sqlite3_column_type(q, at) == SQLITE_BLOB) {
		for (int c = 0; c < 7; c++) {
			const unsigned char *p = sqlite3_column_blob(q, at + c);

			if (!p || sqlite3_column_bytes(q, at + c) < (int)(width[c] * n)) {
				v->value = NAN; /* not a block pmumon wrote: not counted */
				v->flags = PM_ROW_NOT_COUNTED;
				return;
			}
			x[c] = store_le(p + width[c] * k, width[c]);
		}
		v->raw = x[0];
		v->enabled_ns = x[1];
		v->running_ns = x[2];
		memcpy(&v->value, &x[3], sizeof(v->value));
		v->flags = (unsigned)x[4];
		v->covered = (unsigned)x[5];
		v->instances = (unsigned)x[6];
		return;
	}
	v->raw = (uint64_t)sqlite3_column_int64(q, at);
	v->enabled_ns = (uint64_t)sqlite3_column_int64(q, at + 1);
	v->running_ns = (uint64_t)sqlite3_column_int64(q, at + 2);
	v->value = sqlite3_column_type(q, at + 3) == SQLITE_NULL ? NAN :
								   sqlite3_column_double(q, at + 3);
	v->flags = (unsigned)sqlite3_column_int(q, at + 4);
	v->covered = (unsigned)CLI_MAX(sqlite3_column_int(q, at + 5), 0);
	v->instances = (unsigned)CLI_MAX(sqlite3_column_int(q, at + 6), 0);
}

/* Each series' scale, instances and whether it ever counted, from the window's first
 * interval (a recording's rows are the same every interval); a scale from a later value
 * where that one did not run throughout. */
static int describe(struct store_feed *f)
{
	sqlite3 *db = store_db(f->st);
	sqlite3_stmt *q, *later;
	int r = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT raw, enabled_ns, running_ns, value, flags, covered, instances"
			       " FROM value WHERE series = ? AND t_ns = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_prepare_v2(db,
			       "SELECT value / raw FROM value WHERE series = ? AND raw > 0 AND"
			       " running_ns = enabled_ns AND typeof(value) = 'real' LIMIT 1",
			       -1, &later, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return -EIO;
	}
	for (size_t i = 0; i < f->n && r == 0; i++) {
		struct pm_replay_feed_series *d = &f->desc[i];
		struct pm_replay_feed_value v = { 0 };

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, f->s[i].id);
		sqlite3_bind_int64(q, 2, f->axis[0].block_t_ns);
		if (sqlite3_step(q) == SQLITE_ROW) {
			row_value(q, 0, f->axis[0].k, f->axis[0].n, &v);
			d->instances = v.instances;
			d->unsupported = v.flags & PM_ROW_UNSUPPORTED;
			if (v.raw > 0 && !isnan(v.value) && v.enabled_ns == v.running_ns)
				d->scale = v.value / (double)v.raw;
		}
		if (d->scale > 0 || d->unsupported)
			continue;
		sqlite3_reset(later);
		sqlite3_bind_int64(later, 1, f->s[i].id);
		if (sqlite3_step(later) == SQLITE_ROW)
			d->scale = sqlite3_column_double(later, 0);
	}
	sqlite3_finalize(q);
	sqlite3_finalize(later);
	return r;
}

/* The row a series' cursor is on: its t_ns, or -1 when it has no more. */
static void advance(struct feed_series *s)
{
	s->at = sqlite3_step(s->cur) == SQLITE_ROW ? sqlite3_column_int64(s->cur, 0) : -1;
}

static int feed_start(void *arg, const bool *read, size_t n, char *why, size_t size)
{
	struct store_feed *f = arg;
	sqlite3 *db = store_db(f->st);

	f->next = 0;
	for (size_t i = 0; i < f->n && i < n; i++) {
		struct feed_series *s = &f->s[i];

		sqlite3_finalize(s->cur);
		s->cur = NULL;
		s->at = -1;
		if (!read[i])
			continue;
		if (sqlite3_prepare_v2(db,
				       "SELECT t_ns, raw, enabled_ns, running_ns, value, flags,"
				       " covered, instances FROM value WHERE series = ? AND"
				       " t_ns >= ? AND t_ns <= ? ORDER BY t_ns",
				       -1, &s->cur, NULL) != SQLITE_OK) {
			snprintf(why, size, "reading its values: %s", sqlite3_errmsg(db));
			return -EIO;
		}
		sqlite3_bind_int64(s->cur, 1, s->id);
		sqlite3_bind_int64(s->cur, 2, f->axis[0].block_t_ns);
		sqlite3_bind_int64(s->cur, 3, f->axis[f->n_axis - 1].block_t_ns);
		advance(s);
	}
	return 0;
}

static int feed_next(void *arg, uint64_t *ret_t_ns, uint64_t *ret_wall_ns,
		     struct pm_replay_feed_value *vals, char *why, size_t size)
{
	struct store_feed *f = arg;
	const struct store_sample *smp;

	if (f->next >= f->n_axis) {
		snprintf(why, size, "it has fewer intervals than it had");
		return -ENODATA;
	}
	smp = &f->axis[f->next++];
	*ret_t_ns = (uint64_t)smp->t_ns;
	*ret_wall_ns = (uint64_t)CLI_MAX(smp->wall_ns, 0);
	for (size_t i = 0; i < f->n; i++) {
		struct feed_series *s = &f->s[i];
		struct pm_replay_feed_value *v = &vals[i];

		if (!s->cur)
			continue;
		/* a block's row serves each of its intervals; past it, the next */
		while (s->at >= 0 && s->at < smp->block_t_ns)
			advance(s); /* a value of no sample: not one pmumon wrote */
		if (s->at != smp->block_t_ns) {
			v->value = NAN; /* no value in this interval: not counted */
			v->flags = PM_ROW_NOT_COUNTED;
			continue;
		}
		row_value(s->cur, 1, smp->k, smp->n, v);
	}
	return 0;
}

void store_feed_free(struct store_feed *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		sqlite3_finalize(f->s[i].cur);
		free(f->s[i].name);
		free(f->s[i].unit);
		free(f->s[i].device);
		free(f->s[i].cgroup);
	}
	free(f->s);
	free(f->desc);
	free(f->axis);
	free(f);
}

int store_feed(struct store *st, long long run, int64_t from_ns, int64_t to_ns,
	       struct pm_replay **ret_replay, struct store_feed **ret_feed, const char **ret_err)
{
	static char msg[768];
	struct store_feed *f = calloc(1, sizeof(*f));
	struct store_run_info *info = calloc(1, sizeof(*info));
	struct pm_replay_feed feed = { .size = sizeof(feed) };
	struct pm_diag d;
	long n = 0;
	int r = f && info ? 0 : -ENOMEM;

	if (r == 0) {
		f->st = st;
		r = store_run(st, run, info);
		if (r == -ENOENT)
			*ret_err = run ? "it has no such run (--run)" : "it holds no run";
	}
	if (r == 0) {
		n = store_samples(st, info->id, from_ns, to_ns, &f->axis);
		r = n < 0 ? (int)n : n == 0 ? -ENODATA : 0;
		f->n_axis = n > 0 ? (size_t)n : 0;
		if (r == -ENODATA)
			*ret_err = "a recording with no intervals there";
	}
	if (r == 0)
		r = load_series(f, info->id, !strcmp(info->aggr, "channel"));
	if (r == 0 && !f->n) {
		*ret_err = "its run has no event series";
		r = -ENOENT;
	}
	if (r == 0)
		r = describe(f);
	if (r == 0) {
		snprintf(f->name, sizeof(f->name), "%s", st->path);
		snprintf(f->sim_platform, sizeof(f->sim_platform), "%s", info->sim_platform);
		snprintf(f->cpuid, sizeof(f->cpuid), "%s", info->cpuid);
		feed.name = f->name;
		feed.series = f->desc;
		feed.n_series = f->n;
		feed.n_samples = f->n_axis;
		feed.first_t_ns = (uint64_t)f->axis[0].t_ns;
		feed.first_wall_ns = (uint64_t)CLI_MAX(f->axis[0].wall_ns, 0);
		feed.start_ns = (uint64_t)CLI_MAX(f->axis[0].t_ns - f->axis[0].duration_ns, 0);
		feed.sim_platform = info->simulated ? f->sim_platform : NULL;
		feed.cpuid = f->cpuid[0] ? f->cpuid : NULL;
		feed.start = feed_start;
		feed.next = feed_next;
		feed.arg = f;
		r = pm_replay__feed(&feed, ret_replay, &d);
		if (r < 0) {
			snprintf(msg, sizeof(msg), "%s", d.msg[0] ? d.msg : strerror(-r));
			*ret_err = msg;
		}
	}
	if (r < 0 && r != -ENOENT && r != -ENODATA && *ret_err && !(*ret_err)[0])
		*ret_err = r == -ENOMEM ? "out of memory" :
			   r == -EINVAL ? "a series has no name: not a recording pmumon wrote" :
					  "reading its values failed";
	free(info);
	if (r < 0) {
		store_feed_free(f);
		return r;
	}
	*ret_feed = f;
	return 0;
}
