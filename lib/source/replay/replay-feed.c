// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording fed by its reader (pm_replay__feed): pmumon's own recordings,
 * which the command line reads out of SQLite. Its series are given as the
 * recorded rows named them, and each sample's values come from the
 * caller, turned into what a parser would have made of the same rows in
 * pmumon's CSV (replay-parse.c, pmumon_fields): so a recording plays back
 * exactly as its CSV would, without printing and parsing it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "pmu.h"
#include "source/replay/replay.h"
#include "util/cpus.h"
#include "util/opts.h"
#include "util/util.h"

struct pm_replay_feeder {
	struct pm_replay_feed f; /* the caller's, without its series */
	struct pm_replay_feed_value *in;
	bool *read;
	size_t played;
	struct pm_diag err;
};

/* What a recorded row's flags say of its value and keeps (replay-parse.c's quality_of). */
#define KEPT_QUALITY                                                                   \
	(PM_ROW_WRAP_UNCERTAIN | PM_ROW_REPROGRAMMED | PM_ROW_RESET | PM_ROW_PARTIAL | \
	 PM_ROW_LOST | PM_ROW_UNSUPPORTED)

/* The series' repeat: the n-th of its name, PMU, place and cgroup (an event given twice). */
static void set_repeat(struct pm_replay *rp, size_t i)
{
	struct pm_replay_series *s = &rp->series[i];

	s->repeat = 0;
	s->prev = SIZE_MAX;
	for (size_t j = 0; j < i; j++) {
		const struct pm_replay_series *o = &rp->series[j];

		if (!strcmp(o->name, s->name) &&
		    !strcmp(o->pmu ? o->pmu : "", s->pmu ? s->pmu : "") && o->cpu == s->cpu &&
		    o->socket == s->socket && o->die == s->die && o->channel == s->channel &&
		    !strcmp(o->cgroup ? o->cgroup : "", s->cgroup ? s->cgroup : "")) {
			s->repeat = o->repeat + 1;
			s->prev = j;
		}
	}
}

/* A channel row's PMU: its family's name and the channel it stands for ("ali_drw:die0/ch2"). */
static int channel_pmu(const struct pm_replay_feed_series *in, char **pmu)
{
	struct pm_strbuf b = { 0 };
	char *family = *pmu;

	if (!family)
		return -EINVAL; /* a channel of no PMU family: not a row pmumon wrote */
	pm_strbuf__printf(&b, "%s:die%d/ch%d", family, PM_MAX(in->die, 0), in->channel);
	free(family);
	*pmu = pm_strbuf__steal(&b);
	return *pmu ? 0 : -ENOMEM;
}

static int add_series(struct pm_replay *rp, const struct pm_replay_feed_series *in,
		      struct pm_diag *reterr)
{
	struct pm_replay_series *s = &rp->series[rp->n_series];
	int r;

	*s = (struct pm_replay_series){ .cpu = in->cpu < 0 ? -1 : in->cpu,
					.socket = in->socket < 0 ? -1 : in->socket,
					.die = in->die < 0 ? -1 : in->die,
					.core = -1,
					.channel = in->channel < 0 ? -1 : in->channel,
					.line = rp->n_series + 1,
					.counted = !in->unsupported,
					.scale = in->scale > 0 && isfinite(in->scale) ? in->scale :
											0,
					.max_instances = in->instances,
					.last_sample = SIZE_MAX,
					.event = SIZE_MAX,
					.q_event = SIZE_MAX,
					.counter = SIZE_MAX,
					.q_counter = SIZE_MAX,
					.topo_cpu = -1 };
	rp->n_series++;
	if (!in->event || !in->event[0]) {
		pm_diag_set(reterr, NULL, "%s: series %zu has no event name", rp->name,
			    rp->n_series);
		return -EINVAL;
	}
	if (s->cpu >= PM_CPU_MAX || s->socket >= PM_CPU_MAX || s->die >= PM_CPU_MAX) {
		pm_diag_set(reterr, NULL, "%s: series %zu (%s) is on CPU, socket or die %d or more",
			    rp->name, rp->n_series, in->event, PM_CPU_MAX);
		return -EINVAL;
	}
	r = pm_replay_split_name(in->event, &s->name, &s->pmu);
	if (r == 0 && in->device && in->device[0]) {
		free(s->pmu);
		s->pmu = strdup(in->device);
		r = s->pmu ? 0 : -ENOMEM;
	} else if (r == 0 && s->channel >= 0) {
		r = channel_pmu(in, &s->pmu);
		if (r == -EINVAL)
			pm_diag_set(reterr, NULL, "%s: the channel row %s names no PMU family",
				    rp->name, in->event);
	}
	if (r == 0) {
		s->unit = strdup(in->unit ? in->unit : "");
		s->printed = strdup(in->event);
		s->device = strdup(in->device ? in->device : "");
		s->cgroup = pm_strdup0(in->cgroup && in->cgroup[0] ? in->cgroup : NULL);
		if (!s->unit || !s->printed || !s->device ||
		    (in->cgroup && in->cgroup[0] && !s->cgroup))
			r = -ENOMEM;
	}
	return r;
}

static int feed_rewind(struct pm_replay *rp);
static int feed_next(struct pm_replay *rp);
static const struct pm_diag *feed_error(const struct pm_replay *rp);
static void feed_free(struct pm_replay_feeder *f);

/* pm_replay__rewind, __next_sample, __play_error and __free of a feed's recording */
static const struct pm_replay_player feed_player = {
	.rewind = feed_rewind,
	.next = feed_next,
	.error = feed_error,
	.free = feed_free,
};

int pm_replay__feed(const struct pm_replay_feed *feed, struct pm_replay **ret_replay,
		    struct pm_diag *reterr)
{
	struct pm_replay *rp = calloc(1, sizeof(*rp));
	struct pm_replay_feeder *f = calloc(1, sizeof(*f));
	int r = rp && f ? 0 : -ENOMEM;

	pm_diag__init(reterr);
	if (r == 0 && (!feed || !ret_replay || feed->size < sizeof(*feed) || !feed->next ||
		       (feed->n_series && !feed->series) || feed->start_ns > feed->first_t_ns))
		r = -EINVAL;
	if (r < 0) {
		free(rp);
		free(f);
		return r;
	}
	rp->feeder = f;
	rp->player = &feed_player;
	f->f = *feed;
	f->f.series = NULL;
	rp->format = PM_REPLAY_FEED;
	rp->name = strdup(feed->name ? feed->name : "<recording>");
	rp->intervals = true;
	rp->duration_known = true;
	rp->n_samples = feed->n_samples;
	rp->first = (struct pm_replay_sample){ .t_ns = feed->first_t_ns,
					       .wall_ns = feed->first_wall_ns };
	rp->start_ns = feed->start_ns;
	rp->simulated = feed->sim_platform != NULL;
	rp->sim_platform = feed->sim_platform && feed->sim_platform[0] ?
				   strdup(feed->sim_platform) :
				   NULL;
	rp->cpuid = feed->cpuid && feed->cpuid[0] ? strdup(feed->cpuid) : NULL;
	rp->series = calloc(feed->n_series + 1, sizeof(*rp->series));
	rp->cap_series = feed->n_series + 1;
	rp->vals = calloc(feed->n_series + 1, sizeof(*rp->vals));
	f->in = calloc(feed->n_series + 1, sizeof(*f->in));
	f->read = calloc(feed->n_series + 1, sizeof(*f->read));
	if (!rp->name || !rp->series || !rp->vals || !f->in || !f->read ||
	    (feed->sim_platform && feed->sim_platform[0] && !rp->sim_platform) ||
	    (feed->cpuid && feed->cpuid[0] && !rp->cpuid))
		r = -ENOMEM;
	for (size_t i = 0; i < feed->n_series && r == 0; i++) {
		r = add_series(rp, &feed->series[i], reterr);
		if (r == 0)
			set_repeat(rp, i);
	}
	if (r == 0 && !rp->n_samples) {
		pm_diag_set(reterr, NULL, "%s holds no intervals", rp->name);
		r = -ENODATA;
	}
	if (r < 0) {
		pm_replay__free(rp);
		return r;
	}
	*ret_replay = rp;
	return 0;
}

/* The caller's failure, said in its words (or the errno's). */
static int feed_failed(struct pm_replay_feeder *f, const char *what, int r, const char *why)
{
	pm_diag_set(&f->err, NULL, "%s: %s", what, why[0] ? why : strerror(-r));
	return -EINVAL;
}

static int feed_rewind(struct pm_replay *rp)
{
	struct pm_replay_feeder *f = rp->feeder;
	char why[256] = "";
	int r = 0;

	for (size_t i = 0; i < rp->n_series; i++) {
		const struct pm_replay_series *s = &rp->series[i];

		rp->series[i].last_sample = SIZE_MAX;
		f->read[i] = s->event != SIZE_MAX &&
			     (s->counter != SIZE_MAX || s->q_counter != SIZE_MAX);
	}
	f->played = 0;
	pm_diag__init(&f->err);
	if (f->f.start)
		r = f->f.start(f->f.arg, f->read, rp->n_series, why, sizeof(why));
	return r < 0 ? feed_failed(f, rp->name, r, why) : 0;
}

/* A recorded row's value as the pmumon CSV parser takes it (pmumon_fields). */
static int take(struct pm_replay_feeder *f, const struct pm_replay *rp, size_t i,
		struct pm_replay_val *v)
{
	const struct pm_replay_feed_value *x = &f->in[i];

	*v = (struct pm_replay_val){ .raw = x->raw,
				     .ena = x->enabled_ns,
				     .run = x->running_ns,
				     .have = PM_RV_RAW | PM_RV_TIMES,
				     .quality = x->flags & KEPT_QUALITY };
	if (x->instances && x->covered <= x->instances) {
		v->covered = x->covered;
		v->instances = x->instances;
	}
	if (x->bounded && x->bound <= PM_BOUND_NO_VALUE) {
		v->bounded = true;
		v->lo = x->lo;
		v->hi = x->hi;
		v->bound = x->bound;
	}
	if (isnan(x->value) || (x->flags & PM_ROW_NOT_COUNTED))
		v->not_counted = true;
	else {
		v->value = x->value;
		v->have |= PM_RV_VALUE;
	}
	if (x->flags & PM_ROW_UNSUPPORTED)
		v->have = 0;
	/* what no counter can have read (replay-parse.c's check_times) */
	if (v->not_counted || !v->have)
		return 0;
	if (v->run > v->ena || v->run == 0) {
		pm_diag_set(&f->err, "a counter runs at most as long as it is enabled, and some",
			    "%s: %s at %.9f s ran %llu ns of %llu enabled", rp->name,
			    rp->series[i].printed, (double)rp->cur.t_ns / 1e9,
			    (unsigned long long)v->run, (unsigned long long)v->ena);
		return -EINVAL;
	}
	return 0;
}

static int feed_next(struct pm_replay *rp)
{
	struct pm_replay_feeder *f = rp->feeder;
	uint64_t t = 0, wall = 0;
	char why[256] = "";
	int r;

	if (f->played >= rp->n_samples)
		return -ENODATA;
	/* only what the session reads: a report of 16 series of 96 zeroes 16 */
	for (size_t i = 0; i < rp->n_series; i++)
		if (f->read[i]) {
			f->in[i] = (struct pm_replay_feed_value){ 0 };
			rp->vals[i] = (struct pm_replay_val){ 0 };
		}
	r = f->f.next(f->f.arg, &t, &wall, f->in, why, sizeof(why));
	if (r < 0)
		return feed_failed(f, rp->name, r, why);
	if (t < rp->now_ns) {
		pm_diag_set(&f->err, NULL, "%s: an interval ending at %.9f s after one at %.9f s",
			    rp->name, (double)t / 1e9, (double)rp->now_ns / 1e9);
		return -EINVAL;
	}
	rp->cur = (struct pm_replay_sample){ .t_ns = t, .wall_ns = wall, .line = f->played + 1 };
	for (size_t i = 0; i < rp->n_series; i++) {
		if (!f->read[i])
			continue;
		r = take(f, rp, i, &rp->vals[i]);
		if (r < 0)
			return r;
		rp->series[i].last_sample = f->played;
	}
	f->played++;
	return 0;
}

static const struct pm_diag *feed_error(const struct pm_replay *rp)
{
	return &rp->feeder->err;
}

static void feed_free(struct pm_replay_feeder *f)
{
	if (!f)
		return;
	free(f->in);
	free(f->read);
	free(f);
}
