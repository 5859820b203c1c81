// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file counter (file-counter.h): a whole counter source in one file
 * outside lib/, added to a context by pm_ctx__add_source. It uses what
 * every source has (the PMU's private slot, the session's state by source
 * id, the lock, doctor's survey and findings) and nothing lib/ knows of it.
 */
#include "file-counter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "evlist.h"
#include "pmu.h"
#include "source/counters.h"
#include "util/util.h"

/* The PMU's private data (pm_pmu.priv): its files, by event number. */
struct fc_pmu {
	struct pm_names files;
};

/* The session's (pm_session.state): the lock, and each counter's count at enable. */
struct fc_state {
	int lock;
	uint64_t t0;
	uint64_t *base; /* by counter index */
};

static size_t fc_id(const struct pm_ctx *ctx)
{
	for (size_t i = 0; i < pm_source__count(ctx); i++)
		if (pm_source__ops(ctx, i) == &pm_test_source_filecount)
			return i;
	return SIZE_MAX;
}

static void fc_pmu_free(void *priv)
{
	struct fc_pmu *f = priv;

	if (f)
		pm_names__done(&f->files);
	free(f);
}

static int fc_discover(struct pm_ctx *ctx)
{
	struct fc_pmu *f = calloc(1, sizeof(*f));
	struct pm_pmu *p = NULL;
	int r = f ? pm_list_names(ctx, PM_FILECOUNT_DIR, false, "[!.]*", &f->files) : -ENOMEM;

	if (r < 0 || !f->files.n) { /* no directory: no PMU */
		fc_pmu_free(f);
		return r < 0 ? r : 0;
	}
	r = pm_pmu__new("filecount", &p);
	if (r < 0) {
		fc_pmu_free(f);
		return r;
	}
	p->source = (enum pm_source_id)fc_id(ctx);
	p->source_name = "filecount";
	p->cpuless = true; /* a counter each, on no CPU */
	p->priv = f;
	p->priv_free = fc_pmu_free;
	r = pm_pmu__add_format_text(p, "event", "config:0-15");
	for (size_t i = 0; r == 0 && i < f->files.n; i++) {
		char terms[32];
		struct pm_alias a = { .name = f->files.name[i],
				      .terms = terms,
				      .desc = (char *)"a count in a file",
				      .scale = 1.0,
				      .origin = "filecount" };

		snprintf(terms, sizeof(terms), "event=%zu", i);
		r = pm_pmu__add_alias(p, &a);
	}
	if (r == 0)
		r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	return r;
}

static bool fc_claims(const struct pm_session *s, const struct pm_evinst *in)
{
	return in->pmu && in->pmu->source == fc_id(s->ctx);
}

/* The count in counter c's file now. */
static int fc_value(struct pm_session *s, const struct pm_counter *c, uint64_t *ret)
{
	const struct pm_evinst *in = &s->l->inst[c->inst];
	const struct fc_pmu *f = in->pmu->priv;
	uint64_t ev = in->attr.config;
	char path[512], buf[64];
	ssize_t n;

	if (ev >= f->files.n)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", PM_FILECOUNT_DIR, f->files.name[ev]);
	n = pm_read_file(s->ctx, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return pm_parse_u64(buf, (size_t)n, 10, ret);
}

static int fc_open(struct pm_session *s, struct pm_diag *reterr)
{
	size_t id = fc_id(s->ctx), n = 0;
	struct fc_state *st;
	int r;

	for (size_t k = 0; k < s->n_c; k++)
		n += s->c[k].source == id;
	if (!n)
		return 0;
	st = calloc(1, sizeof(*st));
	if (!st || !(st->base = calloc(s->n_c, sizeof(*st->base)))) {
		free(st);
		return -ENOMEM;
	}
	st->lock = -1;
	s->state[id] = st;
	r = pm_session__lock(s, PM_FILECOUNT_LOCK, "the file counters",
			     "wait for that pmumon to finish, or stop it", &st->lock, reterr);
	for (size_t k = 0; r == 0 && k < s->n_c; k++)
		s->c[k].open |= s->c[k].source == id;
	return r;
}

/* Its one option: since=enable (the default) counts what a file's count grew by since
 * enable, since=zero the count itself. */
static int fc_option(const char *key, const char *value, size_t len, struct pm_diag *reterr)
{
	if (!strcmp(key, "since") &&
	    (!strncmp(value, "enable", len) || !strncmp(value, "zero", len)))
		return 0;
	pm_diag_set(reterr, "give since=enable or since=zero", "filecount does not take %s", key);
	return -EINVAL;
}

static int fc_enable(struct pm_session *s)
{
	size_t id = fc_id(s->ctx), len;
	struct fc_state *st = s->state[id];
	const char *since = "enable";
	int r = 0;

	if (!st)
		return 0;
	pm_session__source_opt(s, id, "since", &since, &len);
	st->t0 = pm_ctx__mono_ns(s->ctx);
	for (size_t k = 0; k < s->n_c && r == 0; k++)
		if (s->c[k].source == id && s->c[k].open && strcmp(since, "zero") != 0)
			r = fc_value(s, &s->c[k], &st->base[k]);
	return r;
}

static int fc_nothing(struct pm_session *s)
{
	(void)s;
	return 0;
}

/* Each counter: what its file's count grew by since enable, counted all the time. */
static int fc_read(struct pm_session *s)
{
	size_t id = fc_id(s->ctx);
	struct fc_state *st = s->state[id];
	uint64_t t, v;
	int r = 0;

	if (!st)
		return 0;
	t = pm_ctx__mono_ns(s->ctx) - st->t0;
	for (size_t k = 0; k < s->n_c && r == 0; k++) {
		struct pm_counter *c = &s->c[k];

		if (c->source != id || !c->open)
			continue;
		r = fc_value(s, c, &v);
		if (r < 0)
			pm_session__fail(s, NULL, "cannot read the count of '%s'",
					 s->l->ev[c->event].label);
		else
			c->cur = (struct pm_reading){ v - st->base[k], t, t };
	}
	return r;
}

static void fc_close(struct pm_session *s)
{
	size_t id = fc_id(s->ctx);
	struct fc_state *st = s->state[id];

	if (!st)
		return;
	if (st->lock >= 0)
		s->ctx->ops->unlock(s->ctx->os, st->lock);
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == id)
			s->c[k].open = false;
	free(st->base);
	free(st);
	s->state[id] = NULL;
}

/* pmumon doctor: the counters someone else holds, as the .owner file names them. */
static void fc_survey(struct pm_ctx *ctx, pm_survey_fn fn, void *ud)
{
	char owner[64], what[160];

	if (pm_read_file(ctx, PM_FILECOUNT_DIR "/.owner", owner, sizeof(owner)) <= 0)
		return;
	snprintf(what, sizeof(what), "the file counters are counting for %s", owner);
	fn(ud, what, "stop it, or ", PM_REASON_NONE);
}

/* pmumon doctor: how many counts it found. */
static void fc_doctor(struct pm_ctx *ctx, const struct pm_doctor_who *who, pm_doctor_fn fn,
		      void *ud)
{
	char what[160];

	(void)who;
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct fc_pmu *f = ctx->pmus[i]->priv;

		if (ctx->pmus[i]->source != fc_id(ctx))
			continue;
		snprintf(what, sizeof(what), "%s counts %zu file%s of /%s", ctx->pmus[i]->name,
			 f->files.n, f->files.n == 1 ? "" : "s", PM_FILECOUNT_DIR);
		fn(ud, PM_VERDICT_OK, "filecount", what, NULL, PM_REASON_NONE);
	}
}

const struct pm_source_ops pm_test_source_filecount = {
	.origin = PM_SOURCE_LIVE,
	.lock_path = PM_FILECOUNT_LOCK,
	.option = fc_option,
	.discover = fc_discover,
	.claims = fc_claims,
	.open = fc_open,
	.enable = fc_enable,
	.disable = fc_nothing,
	.read = fc_read,
	.close = fc_close,
	.survey = fc_survey,
	.doctor = fc_doctor,
};

int pm_test_filecount__add(struct pm_ctx *ctx, size_t *ret_id)
{
	return pm_ctx__add_source(ctx, "filecount", &pm_test_source_filecount, ret_id);
}
