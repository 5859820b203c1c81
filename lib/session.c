// SPDX-License-Identifier: GPL-2.0-only
#include "session.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ctx.h"
#include "source/replay/replay.h"
#include "pmu.h"
#include "sched.h"
#include "topo.h"
#include "util/opts.h"
#include "util/util.h"

uint64_t pm_session__next_poll(const struct pm_session *s)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; s->enabled && i < pm_source__count(s->ctx); i++) {
		const struct pm_source_ops *src = pm_source__on(s->ctx, i);

		if (src && src->next_poll)
			next = PM_MIN(next, src->next_poll(s));
	}
	return next;
}

/* A device went away under a source that cannot go on without it: its counters are lost. */
static void mark_lost(struct pm_session *s, const char *device)
{
	for (size_t k = 0; k < s->n_c; k++)
		if (!strcmp(s->l->inst[s->c[k].inst].device, device))
			s->c[k].lost = true;
}

/*
 * The end of an enable, read, poll or disable that failed with r (doing:
 * what it was doing, for a message no source gave): pm_session__last_error
 * gets the reason, a lost device (lost, or r says it went away) or another
 * error, and the device.
 */
static int failed(struct pm_session *s, const char *doing, int r, bool lost)
{
	struct pm_diag *d = &s->last_error;
	const char *dev = s->failed_device;

	lost |= r == -ENODEV || r == -ENXIO;

	if (!d->msg[0] && lost)
		pm_diag_set(d, NULL, "%s%s went away while counting (%s)", dev ? "PMU " : "a PMU",
			    dev ? dev : "",
			    r == -ENODEV ? "device removed or driver unloaded" : strerror(-r));
	else if (!d->msg[0])
		pm_diag_set(d, NULL, "%s%s%s failed: %s", doing, dev ? " on " : "", dev ? dev : "",
			    strerror(-r));
	pm_diag_reason(d, lost ? PM_REASON_DEVICE_LOST : PM_REASON_DEVICE_ERROR, dev, NULL);
	return r;
}

/*
 * After a good read: each tracked counter's estimates of the interval and
 * of the run (source/estimate.h), and its next interval begins. The perf
 * scaling is kept where the kernel multiplexed, so the track is given the
 * counts as the reports take them.
 */
static void estimate(struct pm_session *s)
{
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];
		struct pm_track_obs iv = { .ena = c->cur.ena - c->prev.ena,
					   .run = c->cur.run - c->prev.run,
					   .val = c->cur.val - c->prev.val },
				    tot = { .ena = c->cur.ena,
					    .run = c->cur.run,
					    .val = c->cur.val };

		if (!c->track)
			continue;
		pm_track__report(c->track, &iv, &tot, &c->est_iv, &c->est_tot);
		pm_track__next_interval(c->track);
	}
}

int pm_session__poll(struct pm_session *s)
{
	pm_diag__init(&s->last_error);
	for (size_t i = 0; s->enabled && i < pm_source__count(s->ctx); i++) {
		const struct pm_source_ops *src = pm_source__on(s->ctx, i);
		int r = src && src->poll ? src->poll(s) : 0;

		if (r == -ENODEV && s->failed_device)
			mark_lost(s, s->failed_device);
		if (r < 0)
			return failed(s, "polling the counters", r, false);
	}
	return 0;
}

const struct pm_diag *pm_session__last_error(const struct pm_session *s)
{
	return &s->last_error;
}

const char *pm_session__event_source(const struct pm_session *s, size_t event)
{
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].event == event && s->c[k].open)
			return pm_source__name(s->ctx, s->c[k].source);
	return NULL;
}

/*
 * Rows per NUMA node or cache instance need what sysfs says of them, read
 * once: 0, or -ENOENT / -EINVAL with reterr saying what is missing.
 */
static int read_grouping(struct pm_ctx *ctx, const struct pm_session_opts *o,
			 struct pm_diag *reterr)
{
	int r = 0;

	if (o->aggr == PM_AGGR_NODE) {
		r = pm_topo__read_nodes(ctx, ctx->topo);
		if (r == -ENOENT) {
			pm_diag_set(reterr, NULL,
				    "rows per NUMA node: this machine lists no node "
				    "(sys/devices/system/node/node<N>/cpulist is missing: a kernel "
				    "without NUMA, or a recording)");
			pm_diag_reason(reterr, PM_REASON_NO_NODES, NULL, NULL);
		}
	} else if (o->aggr == PM_AGGR_CACHE) {
		if (o->cache_level < 0 || o->cache_level > 15) {
			pm_diag_set(reterr, NULL,
				    "cache level %d: a level is 1 to 15 (0: the last)",
				    o->cache_level);
			return -EINVAL;
		}
		r = pm_topo__read_caches(ctx, ctx->topo, o->cache_level);
		if (r == -ENOENT && o->cache_level) {
			char level[16];

			pm_diag_set(reterr, NULL,
				    "rows per L%d cache: no CPU lists an L%d cache in "
				    "sys/devices/system/cpu/cpu*/cache/index*/level",
				    o->cache_level, o->cache_level);
			snprintf(level, sizeof(level), "%d", o->cache_level);
			pm_diag_reason(reterr, PM_REASON_CACHE_LEVEL, NULL, level);
		} else if (r == -ENOENT) {
			pm_diag_set(reterr, NULL,
				    "rows per cache: no CPU lists a cache in "
				    "sys/devices/system/cpu/cpu*/cache/index*/{level,shared_cpu_list} "
				    "(a recording, or a kernel or VM that does not describe them)");
			pm_diag_reason(reterr, PM_REASON_NO_CACHES, NULL, NULL);
		}
	}
	if (r < 0 && r != -ENOENT)
		pm_diag_set(reterr, NULL, "reading the CPU topology failed: %s", strerror(-r));
	return r;
}

/* The caller's source options, the session's own copies (its strings may go away). */
static int copy_source_opts(struct pm_session *s, const struct pm_session_opts *o)
{
	s->source_opts = o->n_source_opts ? calloc(o->n_source_opts, sizeof(*s->source_opts)) :
					    NULL;
	if (o->n_source_opts && !s->source_opts)
		return -ENOMEM;
	for (size_t k = 0; k < o->n_source_opts; k++) {
		const struct pm_source_opt *in = &o->source_opts[k];
		size_t ls = strlen(in->source) + 1, lk = strlen(in->key) + 1,
		       lv = in->value_len ? in->value_len : strlen(in->value);
		char *b = malloc(ls + lk + lv + 1);

		if (!b)
			return -ENOMEM;
		memcpy(b, in->source, ls);
		memcpy(b + ls, in->key, lk);
		memcpy(b + ls + lk, in->value, lv);
		b[ls + lk + lv] = '\0';
		s->source_opts[s->n_source_opts++] = (struct pm_source_opt){ b, b + ls, b + ls + lk,
									     lv };
	}
	s->opts.source_opts = NULL;
	s->opts.n_source_opts = 0;
	return 0;
}

int pm_session__new(struct pm_evlist *l, const struct pm_session_opts *opts,
		    struct pm_session **ret_session, struct pm_diag *reterr)
{
	struct pm_session_opts o;
	struct pm_session *s;
	int r;

	if (!l || !opts || !ret_session)
		return -EINVAL;
	pm_diag__init(reterr);
	r = PM_OPTS_COPY(&o, opts);
	if (r < 0) {
		pm_diag_set(reterr, "set it to sizeof(struct pm_session_opts) (pmumon.h, Options)",
			    "struct pm_session_opts: size %zu is not one this library takes",
			    opts->size);
		return r;
	}
	/* bpf_counters lies in the trailing padding of the struct a caller built before it has
	 * (allow_none_counted last: 128 bytes on LP64), bytes that caller never set: only a
	 * caller whose struct reaches source_opts, added after it, can have asked for it */
	if (opts->size <= offsetof(struct pm_session_opts, source_opts))
		o.bpf_counters = false;
	opts = &o;
	if (l->n_ev == 0 && l->n_metrics == 0) {
		pm_diag_set(reterr, "add events or metrics to the list", "no events to count");
		return -EINVAL;
	}
	if (opts->target == PM_TARGET_TASK && opts->pid <= 0)
		return -EINVAL;
	if (opts->target == PM_TARGET_THREADS && !opts->n_pids && !opts->n_tids &&
	    !opts->all_threads)
		return -EINVAL;
	r = read_grouping(l->ctx, opts, reterr);
	if (r == 0)
		r = pm_source__check_opts(l->ctx, opts, reterr);
	if (r < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pm_diag__init(&s->last_error);
	s->ctx = l->ctx;
	s->l = l;
	s->opts = *opts;
	r = copy_source_opts(s, opts);
	if (r == 0)
		r = pm_sched__plan(s, reterr);
	s->opts.cpus = NULL; /* parsed into s->cpus; the caller's string may go away */
	s->opts.pids = s->opts.tids = NULL; /* into s->tids */
	if (r < 0) {
		pm_session__destroy(s);
		return r;
	}
	*ret_session = s;
	return 0;
}

void pm_session__destroy(struct pm_session *s)
{
	if (!s)
		return;
	if (s->opened)
		for (size_t i = 0; i < pm_source__count(s->ctx); i++)
			if (pm_source__on(s->ctx, i))
				pm_source__ops(s->ctx, i)->close(s);
	for (size_t k = 0; k < s->n_c; k++)
		pm_track__free(s->c[k].track);
	free(s->c);
	free(s->ru);
	free(s->ru_idx);
	free(s->readbuf);
	pm_cpus__done(&s->cpus);
	free(s->tids);
	for (size_t k = 0; k < s->n_source_opts; k++)
		free((char *)s->source_opts[k].source); /* its key and value with it */
	free(s->source_opts);
	free(s);
}

int pm_session__open_counters(struct pm_session *s, struct pm_diag *reterr)
{
	int r;

	pm_diag__init(reterr);
	if (s->opened)
		return -EALREADY;
	s->opened = true;
	for (size_t i = 0; i < pm_source__count(s->ctx); i++) {
		r = pm_source__on(s->ctx, i) ? pm_source__ops(s->ctx, i)->open(s, reterr) : 0;
		if (r < 0)
			return r;
	}
	/* a list of event-free metrics (#smt_on) has nothing to open, and needs nothing */
	if (pm_session__counter_count(s) == 0 && s->l->n_ev && s->ctx->replay) {
		pm_diag_set(reterr, "",
			    "%s has no counts of the events asked for, or of those "
			    "the metrics read",
			    s->ctx->replay->name);
		return -ENOENT;
	}
	if (pm_session__counter_count(s) == 0 && s->l->n_ev && !s->opts.allow_none_counted) {
		pm_diag_set(reterr, "", "none of the events is supported here");
		pm_diag_reason(reterr, PM_REASON_SEE_LIST, NULL, "");
		return -ENOENT;
	}
	return 0;
}

int pm_session__enable(struct pm_session *s)
{
	int r = 0;

	if (!s->opened || s->enabled)
		return -EINVAL;
	pm_diag__init(&s->last_error);
	/* the start of every interval: just before the counters start */
	s->t_enable_ns = pm_ctx__mono_ns(s->ctx);
	for (size_t i = 0; i < pm_source__count(s->ctx) && r == 0; i++)
		r = pm_source__on(s->ctx, i) ? pm_source__ops(s->ctx, i)->enable(s) : 0;
	s->t_prev_ns = s->t_now_ns = s->t_enable_ns;
	/* a report before any good read (every device gone) is dated at the start, not 1970 */
	s->wall_now_ns = pm_ctx__wall_ns(s->ctx);
	s->enabled = r == 0;
	return r < 0 ? failed(s, "starting the counters", r, false) : r;
}

int pm_session__disable(struct pm_session *s)
{
	int r = 0;

	pm_diag__init(&s->last_error);
	if (!s->enabled)
		return 0;
	for (size_t i = 0; i < pm_source__count(s->ctx); i++) {
		int e = pm_source__on(s->ctx, i) ? pm_source__ops(s->ctx, i)->disable(s) : 0;

		if (e < 0 && r == 0)
			r = e;
	}
	s->enabled = false;
	return r < 0 ? failed(s, "stopping the counters", r, false) : r;
}

int pm_session__read(struct pm_session *s)
{
	int r;

	if (!s->opened)
		return -EINVAL;
	pm_diag__init(&s->last_error);
	for (size_t k = 0; k < s->n_c; k++)
		s->c[k].prev = s->c[k].cur;
	s->t_prev_ns = s->t_now_ns;
	for (size_t i = 0; i < pm_source__count(s->ctx); i++) {
		r = pm_source__on(s->ctx, i) ? pm_source__ops(s->ctx, i)->read(s) : 0;
		if (r == -ENODEV && s->failed_device)
			mark_lost(s, s->failed_device);
		if (r < 0) {
			/* all or nothing: the last good read stays, so totals stay true */
			for (size_t k = 0; k < s->n_c; k++)
				s->c[k].cur = s->c[k].prev;
			return failed(s, "reading the counters", r, false);
		}
	}
	/* what the sources saw since the last read belongs to this interval */
	for (size_t k = 0; k < s->n_c; k++) {
		struct pm_counter *c = &s->c[k];

		c->qual_iv = c->qual_new | (c->lost ? PM_ROW_LOST : 0);
		c->qual_tot |= c->qual_iv;
		c->qual_new = 0;
	}
	/* devices lost mid-run leave the rest counting; with none left, it failed */
	if (s->lost_err && !pm_session__any_live(s)) {
		for (size_t k = 0; k < s->n_c; k++)
			s->c[k].cur = s->c[k].prev;
		s->failed_device = pm_session__lost_device(s, pm_session__lost_count(s) - 1);
		pm_diag__init(&s->last_error); /* the last loss says it, not a source's words */
		return failed(s, "reading the counters", s->lost_err, true);
	}
	s->t_now_ns = pm_ctx__mono_ns(s->ctx);
	s->wall_now_ns = pm_ctx__wall_ns(s->ctx);
	for (size_t i = 0; i < pm_source__count(s->ctx); i++)
		if (pm_source__on(s->ctx, i) && pm_source__ops(s->ctx, i)->clock)
			pm_source__ops(s->ctx, i)->clock(s);
	estimate(s);
	return 0;
}

const char *pm_session__failed_device(const struct pm_session *s)
{
	return s->failed_device;
}

/* The i-th PMU with a lost counter, in counter order, or NULL. */
static const struct pm_pmu *lost_pmu(const struct pm_session *s, size_t i)
{
	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_pmu *p = s->l->inst[s->c[k].inst].pmu;
		bool seen = false;

		if (!s->c[k].lost)
			continue;
		for (size_t j = 0; j < k && !seen; j++)
			seen = s->c[j].lost && s->l->inst[s->c[j].inst].pmu == p;
		if (!seen && i-- == 0)
			return p;
	}
	return NULL;
}

size_t pm_session__lost_count(const struct pm_session *s)
{
	size_t n = 0;

	while (lost_pmu(s, n))
		n++;
	return n;
}

const char *pm_session__lost_device(const struct pm_session *s, size_t i)
{
	const struct pm_pmu *p = lost_pmu(s, i);

	return p ? p->name : NULL;
}

size_t pm_session__lost_back(const struct pm_session *s)
{
	size_t n = 0;

	for (size_t i = 0; lost_pmu(s, i); i++) {
		const struct pm_pmu *p = lost_pmu(s, i);
		const struct pm_source_ops *src = pm_source__ops(s->ctx, p->source);

		n += src->present && src->present(s->ctx, p);
	}
	return n;
}

size_t pm_session__threads_alive(const struct pm_session *s)
{
	size_t n = 0;
	char path[64];

	if (!s || s->opts.target != PM_TARGET_THREADS)
		return 1;
	for (size_t i = 0; i < s->n_tids; i++) {
		char stat[256];
		ssize_t len;
		const char *paren;

		/* as perf's is_target_alive, but a zombie (state Z, X) has exited too */
		snprintf(path, sizeof(path), "proc/%d/stat", (int)s->tids[i]);
		len = pm_read_file(s->ctx, path, stat, sizeof(stat));
		paren = len > 0 ? strrchr(stat, ')') : NULL;
		if (len > 0 && (!paren || (paren[1] && !strchr("ZX", paren[2]))))
			n++;
		else if (len < 0 && len != -ENOENT && len != -ESRCH)
			n++; /* unreadable, not gone: counted as there */
	}
	return n;
}

size_t pm_session__counter_count(const struct pm_session *s)
{
	size_t n = 0;

	for (size_t k = 0; k < s->n_c; k++)
		n += s->c[k].open;
	return n;
}

int pm_session__dropped(const struct pm_session *s, char *buf, size_t size)
{
	size_t off = 0;
	int r = 0;

	if (size)
		buf[0] = '\0';
	for (size_t e = 0; e < s->l->n_ev; e++) {
		bool dropped = false;

		for (size_t k = 0; k < s->n_c && !dropped; k++)
			dropped = s->c[k].event == e && s->c[k].dropped;
		/* an event repeated per cgroup (--for-each-cgroup) is named once */
		for (size_t k = 0; k < e && dropped && s->l->ev[e].cgroup; k++)
			dropped = !s->l->ev[k].cgroup ||
				  strcmp(s->l->ev[k].label, s->l->ev[e].label);
		if (!dropped)
			continue;
		r = pm_snprintf(buf + off, size - off, "%s%s", off ? ", " : "", s->l->ev[e].label);
		if (r < 0)
			return r;
		off += strlen(buf + off);
	}
	return 0;
}
