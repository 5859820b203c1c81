// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording's run written back out as pmumon CSV (stat -x,'s format,
 * through the library's own writer): what import reads, so a recording
 * feeds the import source exactly as a CSV of the same run would. Event
 * series only: import computes the metrics again.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "store-db.h"
#include "store.h"

struct xseries {
	long long id;
	char *name, *unit, *device, *place, *domain, *source, *cgroup;
	int socket, die, channel, subchannel, cpu;
	bool snapshot;
};

struct export
{
	struct store *st;
	long long run;
	struct xseries *s;
	size_t n, cap;
	struct pm_row *rows;
	struct pm_out *out;
	const char *err;
};

static char *text_col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);

	return t ? strdup((const char *)t) : NULL;
}

static int int_col(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_int(q, i);
}

/* The run's event series, by id. */
static int load_series(struct export *x)
{
	sqlite3_stmt *q;
	int r = 0;

	if (sqlite3_prepare_v2(store_db(x->st),
			       store_has_cgroups(x->st) ?
				       "SELECT id, name, unit, device, place, domain, source, socket,"
				       " die, channel, subchannel, cpu, snapshot, cgroup FROM series"
				       " WHERE run = ? AND NOT metric ORDER BY id" :
				       "SELECT id, name, unit, device, place, domain, source, socket,"
				       " die, channel, subchannel, cpu, snapshot, NULL FROM series"
				       " WHERE run = ? AND NOT metric ORDER BY id",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, x->run);
	while (r == 0 && sqlite3_step(q) == SQLITE_ROW) {
		struct xseries *s;

		r = PM_GROW(x->s, x->cap, x->n + 1);
		if (r < 0)
			break;
		s = &x->s[x->n++];
		*s = (struct xseries){ .id = sqlite3_column_int64(q, 0),
				       .name = text_col(q, 1),
				       .unit = text_col(q, 2),
				       .device = text_col(q, 3),
				       .place = text_col(q, 4),
				       .domain = text_col(q, 5),
				       .source = text_col(q, 6),
				       .socket = int_col(q, 7),
				       .die = int_col(q, 8),
				       .channel = int_col(q, 9),
				       .subchannel = int_col(q, 10),
				       .cpu = int_col(q, 11),
				       .snapshot = sqlite3_column_int(q, 12),
				       .cgroup = text_col(q, 13) };
		if (!s->name)
			r = sqlite3_column_type(q, 1) == SQLITE_NULL ? -EINVAL : -ENOMEM;
		else if (sqlite3_column_type(q, 13) != SQLITE_NULL && !s->cgroup)
			r = -ENOMEM; /* its rows would pass for another cgroup's */
	}
	sqlite3_finalize(q);
	return r;
}

static size_t series_at(const struct export *x, long long id)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->s[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && x->s[lo].id == id ? lo : SIZE_MAX;
}

/* Every row of a sample not counted until its value says otherwise. */
static void blank_rows(struct export *x)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct xseries *s = &x->s[i];

		x->rows[i] = (struct pm_row){ .event = s->name,
					      .unit = s->unit ? s->unit : "",
					      .device = s->device,
					      .place = s->place,
					      .domain = s->domain,
					      .source = s->source,
					      .cgroup = s->cgroup,
					      .socket = s->socket,
					      .die = s->die,
					      .channel = s->channel,
					      .subchannel = s->subchannel,
					      .cpu = s->cpu,
					      .value = NAN,
					      .running = NAN,
					      .flags = PM_ROW_NOT_COUNTED |
						       (s->snapshot ? PM_ROW_SNAPSHOT : 0) };
	}
}

static void take_value(struct export *x, sqlite3_stmt *q)
{
	size_t i = series_at(x, sqlite3_column_int64(q, 1));
	struct pm_row *r;

	if (i == SIZE_MAX)
		return; /* a metric's */
	r = &x->rows[i];
	r->raw = (uint64_t)sqlite3_column_int64(q, 2);
	r->enabled_ns = (uint64_t)sqlite3_column_int64(q, 3);
	r->running_ns = (uint64_t)sqlite3_column_int64(q, 4);
	r->value = sqlite3_column_type(q, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 5);
	r->flags = (unsigned)sqlite3_column_int(q, 6);
	r->covered = (unsigned)sqlite3_column_int(q, 7);
	r->instances = (unsigned)sqlite3_column_int(q, 8);
	r->running = r->enabled_ns ? (double)r->running_ns / (double)r->enabled_ns : NAN;
	/* what import makes of it is counts: their intervals are its own to find */
	r->lo = r->hi = r->running_ns < r->enabled_ns ? NAN : r->value;
	r->bound = r->running_ns < r->enabled_ns ? PM_BOUND_UNMEASURED : PM_BOUND_EXACT;
}

/* Each sample of the run, its rows reported in order. */
static int write_samples(struct export *x)
{
	sqlite3_stmt *q;
	struct pm_report rep = { .interval = true, .aggr = PM_AGGR_DEVICE, .rows = x->rows };
	long long t = -1;
	int r = 0, step;

	if (sqlite3_prepare_v2(store_db(x->st),
			       "SELECT v.t_ns, v.series, v.raw, v.enabled_ns, v.running_ns, v.value,"
			       " v.flags, v.covered, v.instances, m.wall_ns, m.duration_ns"
			       " FROM value v JOIN series s ON v.series = s.id"
			       " JOIN sample m ON m.run = s.run AND m.t_ns = v.t_ns"
			       " WHERE s.run = ? AND NOT s.metric ORDER BY v.t_ns, v.series",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, x->run);
	rep.n_rows = x->n;
	while (r == 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
		if (sqlite3_column_int64(q, 0) != t) {
			if (t >= 0)
				r = pm_out__report(x->out, &rep);
			t = sqlite3_column_int64(q, 0);
			rep.t_ns = (uint64_t)t;
			rep.wall_ns = (uint64_t)sqlite3_column_int64(q, 9);
			rep.duration_ns = (uint64_t)sqlite3_column_int64(q, 10);
			blank_rows(x);
		}
		take_value(x, q);
	}
	if (r == 0 && step != SQLITE_DONE)
		r = -EIO;
	if (r == 0 && t >= 0)
		r = pm_out__report(x->out, &rep);
	sqlite3_finalize(q);
	return r;
}

/* Whether the run is simulated, and on what: into oo (sim_platform in buf); the packs its
 * machine matched into packs. */
static int run_machine(struct export *x, struct pm_out_opts *oo, char *buf, size_t size,
		       char *packs, size_t packs_size)
{
	sqlite3_stmt *q;
	int r = -ENOENT;

	if (sqlite3_prepare_v2(store_db(x->st),
			       "SELECT simulated, sim_platform, platform, aggr FROM run WHERE id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(q, 1, x->run);
	if (sqlite3_step(q) == SQLITE_ROW) {
		const unsigned char *p = sqlite3_column_text(q, 1);
		const unsigned char *pk = sqlite3_column_text(q, 2);

		oo->simulated = sqlite3_column_int(q, 0);
		snprintf(buf, size, "%s", p ? (const char *)p : "");
		oo->sim_platform = buf[0] ? buf : NULL;
		snprintf(packs, packs_size, "%s", pk ? (const char *)pk : "");
		/* a channel row adds up PMUs an import cannot tell apart again */
		r = sqlite3_column_text(q, 3) &&
				    !strcmp((const char *)sqlite3_column_text(q, 3), "channel") ?
			    -EDOM :
			    0;
	}
	sqlite3_finalize(q);
	return r;
}

/* The run's CPU id into buf ("" for none, or a file of version 1, before the column). */
static void run_cpuid(struct export *x, char *buf, size_t size)
{
	sqlite3_stmt *q;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(store_db(x->st), "SELECT cpuid FROM run WHERE id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(q, 1, x->run);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
}

static void export_done(struct export *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->s[i].name);
		free(x->s[i].unit);
		free(x->s[i].device);
		free(x->s[i].place);
		free(x->s[i].domain);
		free(x->s[i].source);
		free(x->s[i].cgroup);
	}
	free(x->s);
	free(x->rows);
	store_close(x->st);
}

int store_export_csv(const char *path, long long run, int *ret_fd, char *ret_packs,
		     size_t packs_size, const char **ret_err)
{
	struct pm_out_opts oo = { .size = sizeof(oo), .format = PM_OUT_CSV, .target = "" };
	struct export x = { 0 };
	const char *why = NULL;
	char platform[128], cpuid[128];
	FILE *f = NULL;
	int r = store_open_read(path, &x.st, ret_err);

	if (r < 0)
		return r;
	x.run = run ? run : store_last_run(x.st);
	r = run_machine(&x, &oo, platform, sizeof(platform), ret_packs, packs_size);
	run_cpuid(&x, cpuid, sizeof(cpuid));
	oo.cpuid = cpuid[0] ? cpuid : NULL;
	if (r == -ENOENT)
		*ret_err = run ? "it has no such run (--run)" : "it holds no run";
	if (r == -EDOM)
		*ret_err = "its run was recorded per channel (--per-channel), whose rows add up "
			   "PMUs that import cannot tell apart again: record with --per-device "
			   "(import regroups by channel itself), or read it with pmumon report";
	if (r == 0)
		r = load_series(&x);
	if (r == 0 && !x.n) {
		*ret_err = "its run has no event series";
		r = -ENOENT;
	}
	x.rows = r == 0 ? calloc(x.n, sizeof(*x.rows)) : NULL;
	if (r == 0 && !x.rows)
		r = -ENOMEM;
	/* a temporary file, not memory: a run may be larger than memory */
	f = r == 0 ? tmpfile() : NULL;
	if (r == 0 && !f) {
		why = "cannot create a temporary file (is /tmp writable?)";
		r = -EIO;
	}
	if (r == 0 && pm_out__new(f, &oo, &x.out) < 0)
		r = -ENOMEM;
	if (r == 0)
		r = write_samples(&x);
	pm_out__free(x.out);
	if (r == 0 && (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_SET) != 0)) {
		why = "writing its copy to a temporary file failed (is /tmp full?)";
		r = -EIO;
	}
	if (r == 0) {
		*ret_fd = dup(fileno(f));
		r = *ret_fd >= 0 ? 0 : -errno;
	}
	if (f)
		fclose(f);
	if (r < 0 && why)
		*ret_err = why;
	else if (r < 0 && r != -ENOENT && r != -EDOM)
		*ret_err = r == -ENOMEM ? "out of memory" :
			   r == -EINVAL ? "a series has no name: not a recording pmumon wrote" :
					  "reading its values failed";
	export_done(&x);
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
