// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording's run played back by the library (pm_replay__feed): its
 * event series as the rows that were recorded name them, and each
 * interval's values read from SQLite as the session asks for them: one
 * pass over the run's rows in their primary key's order (run, t_ns,
 * series), a block's rows side by side, each decoded once, only those of
 * the series the session reads (the events asked for, and those a metric
 * needs). Metrics are never taken from the file: the library computes them
 * again from the raw deltas, the same engine as stat, at whatever rows the
 * session groups by.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "store-db.h"
#include "store.h"

struct feed_series {
	long long id;
	char *name, *unit, *device, *cgroup;
	bool read;		 /* the session reads it */
	bool have;		 /* the current block has a row of it */
	struct store_value *blk; /* that row's values, decoded */
	size_t cap_blk, n_blk;
};

struct store_feed {
	struct store *st;
	long long run;
	struct store_sample *axis;
	size_t n_axis, next;
	struct feed_series *s; /* by id */
	size_t n;
	sqlite3_stmt *cur; /* the pass over the rows */
	int rc;		   /* its last step's */
	int64_t block;	   /* the block whose rows are decoded; -1: none yet */
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

		r = pm_grow((void **)&f->s, &cap, f->n + 1, sizeof(*f->s));
		if (r == 0)
			r = pm_grow((void **)&f->desc, &cap_desc, f->n + 1, sizeof(*f->desc));
		if (r < 0)
			break;
		s = &f->s[f->n];
		d = &f->desc[f->n];
		*s = (struct feed_series){ .id = sqlite3_column_int64(q, 0),
					   .name = dup_col(q, 1),
					   .unit = dup_col(q, 2),
					   .device = dup_col(q, 3),
					   .cgroup = dup_col(q, 8) };
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

/* value / raw of an interval that ran throughout: its event's scale (0: none). */
static double scale_of(const struct pm_replay_feed_value *v)
{
	return v->raw > 0 && !isnan(v->value) && v->enabled_ns == v->running_ns ?
		       v->value / (double)v->raw :
		       0;
}

static long series_at(const struct store_feed *f, long long id);

/* The intervals of the block whose key is key, as its sample row says (0: none). */
static unsigned block_n(const struct store_feed *f, int64_t key)
{
	size_t lo = 0, hi = f->n_axis;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->axis[mid].block_t_ns < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n_axis && f->axis[lo].block_t_ns == key ? f->axis[lo].n : 0;
}

/*
 * Each series' scale, instances and whether it ever counted, from the window's first
 * interval (a recording's rows are the same every interval); a scale from the first
 * interval that ran throughout with a count among its first 1,024 where that one did
 * not (the first intervals of an event that rarely counts may have none).
 */
static int describe(struct store_feed *f)
{
	size_t last = PM_MIN(f->n_axis, (size_t)1024) - 1, cap = 0;
	struct store_value *v = NULL;
	sqlite3_stmt *q = NULL;
	int r = store_value_scan(f->st, f->run, f->axis[0].block_t_ns, f->axis[last].block_t_ns,
				 NULL, 0, &q);

	while (r == 0 && sqlite3_step(q) == SQLITE_ROW) {
		int64_t key = sqlite3_column_int64(q, 0);
		bool first = key == f->axis[0].block_t_ns;
		long i = series_at(f, sqlite3_column_int64(q, 1));
		struct pm_replay_feed_series *d = i >= 0 ? &f->desc[i] : NULL;
		unsigned n = block_n(f, key);

		if (!d || !n || (!first && d->scale > 0))
			continue;
		if (pm_grow((void **)&v, &cap, n, sizeof(*v)) < 0) {
			r = -ENOMEM;
			break;
		}
		store_row_values(q, 2, n, v);
		if (first && f->axis[0].k < n) {
			d->instances = v[f->axis[0].k].v.instances;
			d->unsupported = v[f->axis[0].k].v.flags & PM_ROW_UNSUPPORTED;
		}
		for (unsigned k = first ? f->axis[0].k : 0; k < n && !(d->scale > 0); k++)
			d->scale = scale_of(&v[k].v);
	}
	sqlite3_finalize(q);
	free(v);
	return r;
}

/* Series id's index in f->s (sorted by id), or -1. */
static long series_at(const struct store_feed *f, long long id)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->s[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->s[lo].id == id ? (long)lo : -1;
}

static int feed_start(void *arg, const bool *read, size_t n, char *why, size_t size)
{
	struct store_feed *f = arg;
	int r;

	f->next = 0;
	f->block = -1;
	for (size_t i = 0; i < f->n; i++)
		f->s[i].read = i < n && read[i];
	sqlite3_finalize(f->cur);
	f->cur = NULL;
	{
		long long *ids = calloc(f->n + 1, sizeof(*ids));
		size_t n_ids = 0;

		if (!ids) {
			snprintf(why, size, "out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < f->n; i++)
			if (f->s[i].read)
				ids[n_ids++] = f->s[i].id;
		/* none read: the pass is only for the intervals' times (ids of none) */
		if (!n_ids)
			ids[n_ids++] = -1;
		r = store_value_scan(f->st, f->run, f->axis[0].block_t_ns,
				     f->axis[f->n_axis - 1].block_t_ns, ids, n_ids, &f->cur);
		free(ids);
	}
	if (r < 0) {
		snprintf(why, size, "reading its values: %s", sqlite3_errmsg(store_db(f->st)));
		return r;
	}
	f->rc = sqlite3_step(f->cur);
	return 0;
}

/* The rows of block key decoded for the series read: the pass moves on to them. 0, or
 * -ENOMEM. */
static int take_block(struct store_feed *f, int64_t key, unsigned n)
{
	for (size_t i = 0; i < f->n; i++)
		f->s[i].have = false;
	f->block = key;
	while (f->rc == SQLITE_ROW && sqlite3_column_int64(f->cur, 0) < key)
		f->rc = sqlite3_step(f->cur); /* a row of no sample: not one pmumon wrote */
	for (; f->rc == SQLITE_ROW && sqlite3_column_int64(f->cur, 0) == key;
	     f->rc = sqlite3_step(f->cur)) {
		long i = series_at(f, sqlite3_column_int64(f->cur, 1));
		struct feed_series *s = i >= 0 ? &f->s[i] : NULL;

		if (!s || !s->read)
			continue;
		if (pm_grow((void **)&s->blk, &s->cap_blk, n, sizeof(*s->blk)) < 0)
			return -ENOMEM;
		store_row_values(f->cur, 2, n, s->blk);
		s->n_blk = n;
		s->have = true;
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
	*ret_wall_ns = (uint64_t)PM_MAX(smp->wall_ns, 0);
	if (smp->block_t_ns != f->block && take_block(f, smp->block_t_ns, smp->n) < 0) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct feed_series *s = &f->s[i];

		if (!s->read)
			continue;
		if (!s->have || smp->k >= s->n_blk) {
			vals[i].value = NAN; /* no value in this interval: not counted */
			vals[i].flags = PM_ROW_NOT_COUNTED;
			vals[i].bounded = false;
			continue;
		}
		const struct store_value *x = &s->blk[smp->k];

		vals[i] = x->v;
		/* its interval, as recorded: none in a file before version 4 (unmeasured) */
		vals[i].bounded = x->bound != PM_BOUND_UNMEASURED;
		vals[i].lo = x->lo;
		vals[i].hi = x->hi;
		vals[i].bound = x->bound;
	}
	return 0;
}

void store_feed_free(struct store_feed *f)
{
	if (!f)
		return;
	sqlite3_finalize(f->cur);
	for (size_t i = 0; i < f->n; i++) {
		free(f->s[i].blk);
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
	f->run = info->id;
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
		feed.first_wall_ns = (uint64_t)PM_MAX(f->axis[0].wall_ns, 0);
		feed.start_ns = (uint64_t)PM_MAX(f->axis[0].t_ns - f->axis[0].duration_ns, 0);
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
