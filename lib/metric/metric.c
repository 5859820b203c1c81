// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metrics: adding a pack's metrics to an event list, and their rows in a
 * session. A metric row exists for every aggregation bucket (device, CPU,
 * die, socket, or the one machine-wide bucket) in which one of its events
 * has a row; its value is the expression over the values of those rows,
 * its quality the worst of its inputs'.
 */
#include "metric/compiled.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/pack.h"
#include "evlist.h"
#include "pmu.h"
#include "source/replay/replay.h"
#include "metric/literal.h"
#include "metric/metric.h"
#include "source/tool/tool.h"
#include "topo.h"
#include "util/counts.h"
#include "util/util.h"

int pm_evlist__define(struct pm_evlist *l, const char *name, double value)
{
	struct pm_define *d;

	/* every constant a pack names is a clock rate or a size */
	if (!l || !name || !isfinite(value) || !(value > 0))
		return -EINVAL;
	for (size_t i = 0; i < l->n_defines; i++) {
		if (!strcmp(l->defines[i].name, name)) {
			l->defines[i].value = value;
			return 0;
		}
	}
	if (pm_grow((void **)&l->defines, &l->cap_defines, l->n_defines + 1, sizeof(*d)) < 0)
		return -ENOMEM;
	d = &l->defines[l->n_defines];
	d->name = strdup(name);
	if (!d->name)
		return -ENOMEM;
	d->value = value;
	l->n_defines++;
	return 0;
}

/* ---- binding names ---------------------------------------------------------------- */

struct binder {
	struct pm_evlist *l;
	size_t metric;
	struct pm_diag *err;
	int r;			  /* an error the resolver met besides "unknown" */
	char unknown[128];	  /* a name nothing answered to */
	const char *unknown_note; /* a pack's Note on it (a Required constant), or NULL */
	struct pm_strbuf guarded; /* the names has_event() asks about, each followed by '\n' */
};

static int add_metric(struct pm_evlist *l, const struct pm_metric_def *def, struct pm_diag *err,
		      size_t *ret_idx);

static int add_slot(struct pm_metric *m, enum pm_metric_slot_kind kind, size_t idx, double v)
{
	for (size_t i = 0; i < m->n_slots; i++)
		if (m->slots[i].kind == kind && m->slots[i].idx == idx &&
		    (kind != PM_SLOT_CONST || m->slots[i].value == v))
			return (int)i;
	if (pm_grow((void **)&m->slots, &m->cap_slots, m->n_slots + 1, sizeof(*m->slots)) < 0)
		return -ENOMEM;
	m->slots[m->n_slots] = (struct pm_metric_slot){ .kind = kind, .idx = idx, .value = v };
	return (int)m->n_slots++;
}

/* The spec an expression's event name stands for: pmu@terms@ -> pmu/terms/. */
static int event_spec(const struct pm_metric_def *def, const char *name, char *buf, size_t size)
{
	if (strchr(name, '@')) {
		size_t n = strlen(name);

		if (n + 1 > size)
			return -ENAMETOOLONG;
		for (size_t i = 0; i <= n; i++)
			buf[i] = name[i] == '@' ? '/' : name[i];
		return 0;
	}
	if (def && def->family)
		return pm_snprintf(buf, size, "%s/%s/", def->family, name);
	return pm_snprintf(buf, size, "%s", name);
}

/* Does some PMU of the family name this event? */
static bool family_has(struct pm_ctx *ctx, const char *family, const char *name)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->family, family) && pm_pmu__find_alias(ctx->pmus[i], name))
			return true;
	return false;
}

static int bind_event(struct binder *b, struct pm_metric *m, const char *name)
{
	struct pm_evlist *l = b->l;
	char spec[512];
	int r = event_spec(m->def, name, spec, sizeof(spec));

	if (r < 0)
		return r;
	/* a bare name its family does not have: a constant the user must --define (a
	 * recording's PMUs have the pack's aliases only: its own events count too) */
	if (!strchr(name, '@') && m->def->family && !family_has(l->ctx, m->def->family, name) &&
	    !(l->ctx->replay && pm_replay__recorded(l->ctx, m->def->family, name))) {
		snprintf(b->unknown, sizeof(b->unknown), "%s", name);
		return -ENOENT;
	}
	for (size_t e = 0; e < l->n_ev; e++)
		if (!strcmp(l->ev[e].spec, spec) || !strcmp(l->ev[e].label, spec))
			return add_slot(m, PM_SLOT_EVENT, e, 0);
	if (l->ctx->machine->bind_event) { /* a recording has it, or it was not counted */
		size_t e;

		r = l->ctx->machine->bind_event(l, spec, &e);
		if (r < 0) {
			b->r = r;
			return r;
		}
		return add_slot(m, PM_SLOT_EVENT, e, 0);
	}
	r = pm_evlist__add(l, spec, b->err);
	if (r < 0) {
		b->r = r;
		return r;
	}
	return add_slot(m, PM_SLOT_EVENT, l->n_ev - 1, 0);
}

/* The metric cannot be computed here: say what it needs and why, and give NaN. */
static int unknown_value(struct pm_metric *m, const char *what, const char *why)
{
	char text[320];

	if (!m->unknown) {
		snprintf(text, sizeof(text), "%s is unknown here: %s", what, why);
		m->unknown = strdup(text);
		if (!m->unknown)
			return -ENOMEM;
	}
	return add_slot(m, PM_SLOT_CONST, 0, NAN);
}

/* A #literal: the machine's value, the session's (#core_wide), or unknown. */
static int bind_literal(struct binder *b, struct pm_metric *m, const char *name)
{
	char why[192] = "";
	double v = NAN;
	int r = pm_literal__value(b->l->ctx, name, &v, why, sizeof(why));

	if (r == PM_LITERAL_SESSION)
		return add_slot(m, PM_SLOT_CORE_WIDE, 0, 0);
	if (r == -ENODATA)
		return unknown_value(m, name, why);
	return r < 0 ? r : add_slot(m, PM_SLOT_CONST, 0, v);
}

/* has_event(name): 1 when the event resolves on this machine (perf: it parses), else 0. */
static double has_event(struct pm_evlist *l, const struct pm_metric_def *def, const char *name)
{
	struct pm_evlist *trial = NULL;
	char spec[512];
	double v = 0;

	if (event_spec(def, name, spec, sizeof(spec)) < 0 || pm_evlist__new(l->ctx, &trial) < 0)
		return 0;
	v = pm_evlist__add(trial, spec, NULL) == 0;
	pm_evlist__free(trial);
	return v;
}

/* strcmp_cpuid_str(pattern): 1 when the CPU id matches, as perf's x86 regex match. */
static int bind_cpuid(struct binder *b, struct pm_metric *m, const char *pattern)
{
	const char *cpuid = pm_db__cpuid(b->l->ctx->db);

	if (!cpuid[0])
		return unknown_value(m, "the CPU id (strcmp_cpuid_str)",
				     "neither proc/cpuinfo nor a recording names it");
	return add_slot(m, PM_SLOT_CONST, 0, pm_db_cpuid_match(pattern, cpuid) == 1);
}

/* The dry pass: note each name has_event() asks about; bind nothing. */
static int find_guards(const char *name, enum pm_expr_ref ref, void *ud)
{
	struct pm_strbuf *guarded = ud;

	if (ref == PM_EXPR_HAS_EVENT)
		pm_strbuf__printf(guarded, "%s\n", name);
	return 0;
}

static bool is_guarded(const struct binder *b, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = b->guarded.s; p && *p; p = strchr(p, '\n') + 1)
		if (!strncmp(p, name, n) && p[n] == '\n')
			return true;
	return false;
}

static int bind(const char *name, enum pm_expr_ref ref, void *ud)
{
	struct binder *b = ud;
	struct pm_evlist *l = b->l;
	const struct pm_metric_def *child;
	const struct pm_constant_def *constant;

	if (ref == PM_EXPR_LITERAL)
		return bind_literal(b, &l->metrics[b->metric], name);
	if (ref == PM_EXPR_HAS_EVENT)
		return add_slot(&l->metrics[b->metric], PM_SLOT_CONST, 0,
				has_event(l, l->metrics[b->metric].def, name));
	if (ref == PM_EXPR_CPUID)
		return bind_cpuid(b, &l->metrics[b->metric], name);
	if (ref == PM_EXPR_SOURCE_COUNT) {
		int slot = bind_event(b, &l->metrics[b->metric], name);

		if (slot < 0)
			return slot;
		return add_slot(&l->metrics[b->metric], PM_SLOT_SOURCES,
				l->metrics[b->metric].slots[slot].idx, 0);
	}
	if (!strcmp(name, "duration_time"))
		return add_slot(&l->metrics[b->metric], PM_SLOT_DURATION, 0, 0);
	if (!strcmp(name, "user_time") || !strcmp(name, "system_time"))
		return add_slot(&l->metrics[b->metric],
				name[1] == 's' ? PM_SLOT_USER_TIME : PM_SLOT_SYSTEM_TIME, 0, 0);
	for (size_t i = 0; i < l->n_defines; i++)
		if (!strcmp(l->defines[i].name, name))
			return add_slot(&l->metrics[b->metric], PM_SLOT_CONST, 0,
					l->defines[i].value);
	constant = pm_db__find_constant(l->ctx->db, name);
	if (constant && !constant->has_value && constant->required) {
		/* the metric means nothing without it: refused until --define gives it */
		snprintf(b->unknown, sizeof(b->unknown), "%s", name);
		b->unknown_note = constant->note;
		return -ENOENT;
	}
	if (constant) {
		/* the platform's value, or NaN until --define gives one */
		if (!constant->has_value)
			l->metrics[b->metric].missing = constant;
		return add_slot(&l->metrics[b->metric], PM_SLOT_CONST, 0,
				constant->has_value ? constant->value : NAN);
	}
	child = pm_db__find_metric(l->ctx->db, name);
	if (child) {
		const char *family = l->metrics[b->metric].def->family;
		size_t idx;
		int r;

		/* a hybrid's metric names its own PMU's definition (perf looks a referenced
		 * metric up in the referring one's PMU table): cpu_core's CPI, cpu_core's IPC */
		for (size_t i = 0; family && i < pm_db__metric_count(l->ctx->db); i++) {
			const struct pm_metric_def *o = pm_db__metric(l->ctx->db, i);

			if (o->pack == child->pack && !strcmp(o->name, name) && o->family &&
			    !strcmp(o->family, family))
				child = o;
		}
		r = add_metric(l, child, b->err, &idx);

		if (r < 0) {
			b->r = r;
			return r;
		}
		return add_slot(&l->metrics[b->metric], PM_SLOT_METRIC, idx, 0);
	}
	/*
	 * An event has_event() asks about, that this machine does not have: perf's
	 * parser leaves out the ids of the branch a constant condition does not
	 * take (tools/perf/util/expr.y), so `A if has_event(A) else B` is B here,
	 * not an error. A stands as 0, which the untaken branch never reads.
	 */
	if (is_guarded(b, name) && !has_event(l, l->metrics[b->metric].def, name))
		return add_slot(&l->metrics[b->metric], PM_SLOT_CONST, 0, 0);
	return bind_event(b, &l->metrics[b->metric], name);
}

/*
 * What is a constant when the metric is added (pm_expr_const_fn): the
 * machine's #literals, has_event(), strcmp_cpuid_str() of a known CPU,
 * --define's and the pack's constants with a value. The folder takes the
 * branches they decide and drops the others' names, as perf's expr.y does.
 */
static int const_value(const char *name, enum pm_expr_ref ref, void *ud, double *ret)
{
	struct binder *b = ud;
	struct pm_evlist *l = b->l;
	const struct pm_metric_def *def = l->metrics[b->metric].def;
	const struct pm_constant_def *c;
	char why[192];
	double v = NAN;

	switch (ref) {
	case PM_EXPR_LITERAL:
		if (pm_literal__value(l->ctx, name, &v, why, sizeof(why)) != 0)
			return 0; /* the session's (#core_wide), or unknown: bound, said */
		*ret = v;
		return 1;
	case PM_EXPR_HAS_EVENT:
		*ret = has_event(l, def, name);
		return 1;
	case PM_EXPR_CPUID:
		if (!pm_db__cpuid(l->ctx->db)[0])
			return 0;
		*ret = pm_db_cpuid_match(name, pm_db__cpuid(l->ctx->db)) == 1;
		return 1;
	case PM_EXPR_VALUE:
		/* bind's order: the tool events, then --define's, then the pack's */
		if (!strcmp(name, "duration_time") || !strcmp(name, "user_time") ||
		    !strcmp(name, "system_time"))
			return 0;
		for (size_t i = 0; i < l->n_defines; i++)
			if (!strcmp(l->defines[i].name, name)) {
				*ret = l->defines[i].value;
				return 1;
			}
		c = pm_db__find_constant(l->ctx->db, name);
		if (c && c->has_value) {
			*ret = c->value;
			return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* A slot's degree in time (time: duration_time counts) or in counts only. */
static int slot_degree(const struct pm_evlist *l, const struct pm_metric_slot *sl, bool time)
{
	switch (sl->kind) {
	case PM_SLOT_EVENT:
		return l->ev[sl->idx].snapshot ? 0 : 1; /* a current value does not grow */
	case PM_SLOT_METRIC:
		return time ? l->metrics[sl->idx].degree : l->metrics[sl->idx].count_degree;
	case PM_SLOT_DURATION:
	case PM_SLOT_USER_TIME:
	case PM_SLOT_SYSTEM_TIME:
		return time ? 1 : 0;
	default:
		return 0; /* constants, source_count, #literals */
	}
}

/*
 * m's dimension (pm_metric.degree, count_degree, ratio) from its slots',
 * once its inputs are compiled: 0, or -ENOMEM.
 */
static int classify(const struct pm_evlist *l, struct pm_metric *m)
{
	int *time = calloc(m->n_slots + 1, sizeof(*time));
	int *count = calloc(m->n_slots + 1, sizeof(*count));

	if (!time || !count) {
		free(time);
		free(count);
		return -ENOMEM;
	}
	for (size_t k = 0; k < m->n_slots; k++) {
		time[k] = slot_degree(l, &m->slots[k], true);
		count[k] = slot_degree(l, &m->slots[k], false);
	}
	m->degree = pm_expr__degree(m->expr, PM_EXPR_WHOLE, time);
	m->count_degree = pm_expr__degree(m->expr, PM_EXPR_WHOLE, count);
	/* parts summed per device would not be the device sums' ratio */
	m->ratio = !m->def->sum_of_devices && m->degree == 0 &&
		   pm_expr__degree(m->expr, PM_EXPR_NUM, time) == 1 &&
		   pm_expr__degree(m->expr, PM_EXPR_DEN, time) == 1 &&
		   pm_expr__degree(m->expr, PM_EXPR_DEN, count) == 1;
	free(time);
	free(count);
	return 0;
}

static int add_metric(struct pm_evlist *l, const struct pm_metric_def *def, struct pm_diag *err,
		      size_t *ret_idx)
{
	struct binder b = { .l = l, .err = err };
	struct pm_metric *m;
	struct pm_expr *e = NULL;
	struct pm_diag d;
	int r;

	if (def->unavailable) {
		pm_diag_set(err, NULL, "metric '%s' (pack %s) is not available: %s", def->name,
			    def->pack, def->unavailable);
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < l->n_metrics; i++) {
		if (l->metrics[i].def != def)
			continue;
		if (l->metrics[i].busy) {
			pm_diag_set(err, "the pack's metrics refer to each other in a circle",
				    "metric '%s' depends on itself", def->name);
			return -ELOOP;
		}
		*ret_idx = i;
		return 0;
	}
	if (pm_grow((void **)&l->metrics, &l->cap_metrics, l->n_metrics + 1, sizeof(*m)) < 0)
		return -ENOMEM;
	b.metric = l->n_metrics++;
	m = &l->metrics[b.metric];
	*m = (struct pm_metric){ .def = def, .scale = def->scale, .busy = true };
	m->unit = strdup(def->unit);
	if (!m->unit)
		return -ENOMEM;
	pm_diag__init(&d);
	/* children land after this slot; l->metrics may move, so index, never point */
	if (pm_expr__compile(def->expr, find_guards, &b.guarded, &e, &d) == 0)
		pm_expr__free(e);
	e = NULL;
	if (b.guarded.oom) {
		pm_strbuf__done(&b.guarded);
		return -ENOMEM;
	}
	pm_diag__init(&d);
	r = pm_expr__compile_folded(def->expr, const_value, bind, &b, &e, &d);
	pm_strbuf__done(&b.guarded);
	m = &l->metrics[b.metric];
	m->busy = false;
	if (r < 0) {
		if (b.r < 0) /* an event or metric it needs failed; err already says which */
			return b.r;
		char hint[384];

		if (b.unknown[0])
			snprintf(hint, sizeof(hint),
				 "'%s' is a constant no counter gives%s%s%s: ", b.unknown,
				 b.unknown_note ? " (" : "", b.unknown_note ? b.unknown_note : "",
				 b.unknown_note ? ")" : "");
		else
			hint[0] = '\0';
		if (b.unknown_note) /* known, and not given: the compiler's "unknown" is wrong */
			pm_diag_set(err, hint,
				    "metric '%s' (pack %s) cannot be used here: it needs '%s', which "
				    "nothing defines",
				    def->name, def->pack, b.unknown);
		else
			pm_diag_set(err, hint, "metric '%s' (pack %s) cannot be used here: %s",
				    def->name, def->pack, d.msg);
		pm_diag_reason(err, b.unknown[0] ? PM_REASON_NEEDS_DEFINE : PM_REASON_SEE_LIST,
			       NULL, b.unknown[0] ? b.unknown : "metrics");
		return r;
	}
	m->expr = e;
	r = classify(l, m);
	if (r < 0)
		return r;
	*ret_idx = b.metric;
	/* computed per PMU instance, from rows that added several up: it cannot be */
	if (def->sum_of_devices && l->ctx->replay && def->family &&
	    pm_replay__adds_instances(l->ctx, def->family))
		pm_log(l->ctx, PM_LOG_WARN,
		       "%s is computed on each %s PMU on its own and added up, and this recording "
		       "added their counts up already (a row per channel, die or socket): it is not "
		       "counted; record per device for it",
		       def->name, def->family);
	return 0;
}

/* A note; with a reason (subject: what its words name), they end it. */
static int add_note(struct pm_evlist *l, const char *text, enum pm_reason reason,
		    const char *subject)
{
	char words[512] = "";
	struct pm_strbuf b = { 0 };
	int at = pm_reason_append(words, sizeof(words), reason, subject);

	pm_strbuf__printf(&b, "%s%s", text, words);
	if (b.oom)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_notes; i++)
		if (!strcmp(l->notes[i].text, b.s)) {
			pm_strbuf__done(&b);
			return 0;
		}
	if (pm_grow((void **)&l->notes, &l->cap_notes, l->n_notes + 1, sizeof(*l->notes)) < 0) {
		pm_strbuf__done(&b);
		return -ENOMEM;
	}
	l->notes[l->n_notes++] = (struct pm_note){ .text = b.s,
						   .reason = reason,
						   .fix_at = at < 0 ? -1 : (int)strlen(text) + at,
						   .subject = subject ? subject : "" };
	return 0;
}

/* The notes of the list's metrics, rebuilt after each change: packs' notes, missing constants. */
static int build_notes(struct pm_evlist *l)
{
	int r = 0;

	for (size_t i = 0; i < l->n_notes; i++)
		free(l->notes[i].text);
	l->n_notes = 0;
	for (size_t i = 0; i < l->n_metrics && r == 0; i++)
		if (l->metrics[i].def->note)
			r = add_note(l, l->metrics[i].def->note, PM_REASON_NONE, NULL);
	for (size_t i = 0; i < l->n_metrics && r == 0; i++) {
		const struct pm_constant_def *c = l->metrics[i].missing;
		struct pm_strbuf b = { 0 };

		if (!c)
			continue;
		pm_strbuf__printf(&b,
				  "%s is not known: no counter gives it and pack %s does not fix it",
				  c->name, c->pack);
		if (c->note)
			pm_strbuf__printf(&b, " (%s)", c->note);
		pm_strbuf__printf(&b, "; metrics that need it show as not counted:");
		for (size_t j = 0; j < l->n_metrics; j++)
			if (l->metrics[j].missing == c)
				pm_strbuf__printf(&b, " %s", l->metrics[j].def->name);
		pm_strbuf__printf(&b, "; ");
		r = b.oom ? -ENOMEM : add_note(l, b.s, PM_REASON_NEEDS_DEFINE, c->name);
		pm_strbuf__done(&b);
	}
	for (size_t i = 0; i < l->n_metrics && r == 0; i++) {
		char text[512];

		if (!l->metrics[i].unknown)
			continue;
		snprintf(text, sizeof(text), "metric %s shows as not counted: %s",
			 l->metrics[i].def->name, l->metrics[i].unknown);
		r = add_note(l, text, PM_REASON_NONE, NULL);
	}
	return r;
}

size_t pm_evlist__note_count(const struct pm_evlist *l)
{
	return l ? l->n_notes : 0;
}

const char *pm_evlist__note(const struct pm_evlist *l, size_t i)
{
	return l && i < l->n_notes ? l->notes[i].text : NULL;
}

enum pm_reason pm_evlist__note_reason(const struct pm_evlist *l, size_t i, int *ret_fix_at,
				      const char **ret_subject)
{
	if (!l || i >= l->n_notes)
		return PM_REASON_NONE;
	if (ret_fix_at)
		*ret_fix_at = l->notes[i].fix_at;
	if (ret_subject)
		*ret_subject = l->notes[i].subject;
	return l->notes[i].reason;
}

static int split_by_cgroup(struct pm_evlist *l, size_t from);

/* A name the list computes once per PMU family (a hybrid's pair): each labelled with its
 * family, so no two rows, series or columns share a name for different numbers. */
static int label_pairs(struct pm_evlist *l)
{
	for (size_t i = 0; i < l->n_metrics; i++) {
		const struct pm_metric_def *d = l->metrics[i].def;
		struct pm_strbuf b = { 0 };
		bool pair = false;

		for (size_t j = 0; j < l->n_metrics && !pair; j++)
			pair = j != i && l->metrics[j].def != d &&
			       !strcmp(l->metrics[j].def->name, d->name) && d->family &&
			       l->metrics[j].def->family &&
			       strcmp(l->metrics[j].def->family, d->family);
		if (!pair || l->metrics[i].label)
			continue;
		pm_strbuf__printf(&b, "%s (%s)", d->name, d->family);
		if (b.oom)
			return -ENOMEM;
		l->metrics[i].label = b.s;
	}
	return 0;
}

int pm_evlist__add_metrics(struct pm_evlist *l, const char *names, struct pm_diag *reterr)
{
	const struct pm_db *db = l->ctx->db;
	char *copy = strdup(names ? names : ""), *save = NULL;
	/* all or nothing: a metric that fails leaves no half-made metric or event behind */
	size_t n_metrics = l->n_metrics, n_ev = l->n_ev, n_inst = l->n_inst;
	int n_groups = l->n_groups, r = 0;

	if (!copy)
		return -ENOMEM;
	if (!copy[strspn(copy, ", ")]) {
		pm_diag_set(reterr, "", "a metric or metric group name is wanted, not '%s'",
			    names ? names : "");
		pm_diag_reason(reterr, PM_REASON_SEE_LIST, NULL, "metrics");
		free(copy);
		return -EINVAL;
	}
	for (char *n = strtok_r(copy, ",", &save); n && r == 0; n = strtok_r(NULL, ",", &save)) {
		const struct pm_metric_def *def = pm_db__find_metric_nocase(db, n);
		size_t idx, found = 0;

		if (def) {
			/* and the pack's other definitions of the name: a hybrid has one per
			 * core PMU (Unit cpu_core, cpu_atom), and perf computes each */
			for (size_t i = 0; i < pm_db__metric_count(db) && r == 0; i++) {
				const struct pm_metric_def *o = pm_db__metric(db, i);

				if (o == def ||
				    (o->pack == def->pack && !strcmp(o->name, def->name)))
					r = add_metric(l, o, reterr, &idx);
			}
			continue;
		}
		for (size_t i = 0; i < pm_db__metric_count(db) && r == 0; i++) {
			/* a group brings its usable metrics; -M NAME explains the others */
			if (!pm_metric_def__in_group(pm_db__metric(db, i), n) ||
			    pm_db__metric(db, i)->unavailable)
				continue;
			found++;
			r = add_metric(l, pm_db__metric(db, i), reterr, &idx);
		}
		if (r == 0 && !found) {
			const struct pm_metric_def *why = NULL;

			for (size_t i = 0; i < pm_db__metric_count(db) && !why; i++)
				if (pm_metric_def__in_group(pm_db__metric(db, i), n))
					why = pm_db__metric(db, i);
			if (why)
				pm_diag_set(reterr, NULL,
					    "metric group '%s' has no metric usable here: %s, for one, "
					    "is not available: %s",
					    n, why->name, why->unavailable);
			else
				pm_diag_set(reterr, "",
					    "no metric or metric group '%s' %s (packs: %s)", n,
					    l->ctx->machine->here,
					    pm_db__matched_names(db)[0] ? pm_db__matched_names(db) :
									  "none");
			if (!why && l->ctx->machine->no_metric_reason)
				pm_diag_reason(reterr, l->ctx->machine->no_metric_reason, NULL,
					       l->ctx->machine->no_metric_subject);
			r = why ? -EOPNOTSUPP : -ENOENT;
		}
	}
	free(copy);
	if (r == 0)
		r = split_by_cgroup(l, n_metrics);
	if (r < 0) {
		for (size_t i = n_metrics; i < l->n_metrics; i++)
			pm_metric__done(&l->metrics[i]);
		l->n_metrics = n_metrics;
		pm_evlist_truncate(l, n_ev, n_inst, n_groups);
	}
	if (r == 0)
		r = label_pairs(l);
	if (r == 0)
		r = build_notes(l);
	return r;
}

/* ---- cgroups ---------------------------------------------------------------------- */

/* Metric m once more at the list's end, in cgroup, its event and metric slots moved by
 * d_ev and d_m (where the same events and metrics sit for that cgroup): 0 or -ENOMEM. */
static int copy_metric(struct pm_evlist *l, size_t m, const char *cgroup, size_t d_ev, size_t d_m)
{
	struct pm_metric *c;
	int r;

	if (pm_grow((void **)&l->metrics, &l->cap_metrics, l->n_metrics + 1, sizeof(*c)) < 0)
		return -ENOMEM;
	c = &l->metrics[l->n_metrics++];
	*c = (struct pm_metric){ .def = l->metrics[m].def,
				 .scale = l->metrics[m].scale,
				 .missing = l->metrics[m].missing,
				 .degree = l->metrics[m].degree,
				 .count_degree = l->metrics[m].count_degree,
				 .ratio = l->metrics[m].ratio,
				 .n_slots = l->metrics[m].n_slots,
				 .cap_slots = l->metrics[m].n_slots + 1 };
	c->unit = pm_strdup0(l->metrics[m].unit);
	c->unknown = pm_strdup0(l->metrics[m].unknown);
	c->cgroup = pm_strdup0(cgroup);
	c->label = pm_strdup0(l->metrics[m].label);
	c->slots = calloc(c->cap_slots, sizeof(*c->slots));
	if (!c->unit || (l->metrics[m].unknown && !c->unknown) || (cgroup && !c->cgroup) ||
	    (l->metrics[m].label && !c->label) || !c->slots)
		return -ENOMEM;
	r = pm_expr__copy(l->metrics[m].expr, &c->expr);
	for (size_t i = 0; i < c->n_slots; i++) {
		c->slots[i] = l->metrics[m].slots[i];
		if (c->slots[i].kind == PM_SLOT_EVENT || c->slots[i].kind == PM_SLOT_SOURCES)
			c->slots[i].idx += d_ev;
		else if (c->slots[i].kind == PM_SLOT_METRIC)
			c->slots[i].idx += d_m;
	}
	return r;
}

static const char *cg(const char *cgroup)
{
	return cgroup ? cgroup : "";
}

/* Event e's counterpart in cgroup: itself, or the first event of its label and spec
 * counted there; SIZE_MAX: none. */
static size_t event_in(const struct pm_evlist *l, size_t e, const char *cgroup)
{
	if (!strcmp(cg(l->ev[e].cgroup), cg(cgroup)))
		return e;
	for (size_t i = 0; i < l->n_ev; i++)
		if (!strcmp(cg(l->ev[i].cgroup), cg(cgroup)) &&
		    !strcmp(l->ev[i].label, l->ev[e].label) &&
		    !strcmp(l->ev[i].spec, l->ev[e].spec))
			return i;
	return SIZE_MAX;
}

/* Does some event slot of metrics [from, n_metrics) have a counterpart in cgroup? */
static bool counted_in(const struct pm_evlist *l, size_t from, const char *cgroup)
{
	for (size_t m = from; m < l->n_metrics; m++)
		for (size_t i = 0; i < l->metrics[m].n_slots; i++)
			if ((l->metrics[m].slots[i].kind == PM_SLOT_EVENT ||
			     l->metrics[m].slots[i].kind == PM_SLOT_SOURCES) &&
			    event_in(l, l->metrics[m].slots[i].idx, cgroup) != SIZE_MAX)
				return true;
	return false;
}

/* Metric m's slots bound in cgroup: each event its counterpart there (none: NaN, its row
 * not counted), each metric the one of that definition computed there. */
static void bind_in(struct pm_evlist *l, struct pm_metric *m, const char *cgroup)
{
	for (size_t i = 0; i < m->n_slots; i++) {
		struct pm_metric_slot *sl = &m->slots[i];

		if (sl->kind == PM_SLOT_EVENT || sl->kind == PM_SLOT_SOURCES) {
			size_t e = event_in(l, sl->idx, cgroup);

			if (e == SIZE_MAX)
				*sl = (struct pm_metric_slot){ .kind = PM_SLOT_CONST,
							       .value = NAN };
			else
				sl->idx = e;
		} else if (sl->kind == PM_SLOT_METRIC) {
			for (size_t k = 0; k < l->n_metrics; k++)
				if (l->metrics[k].def == l->metrics[sl->idx].def &&
				    !strcmp(cg(l->metrics[k].cgroup), cg(cgroup))) {
					sl->idx = k;
					break;
				}
		}
	}
}

/*
 * Metrics [from, n_metrics) of a list whose events were counted in several cgroups (an
 * import of perf's or pmumon's rows per cgroup): one per cgroup, each computed from that
 * cgroup's events, as perf computes a metric per cgroup (metricgroup__copy_metric_events).
 * The metrics were bound to the first events of their names.
 */
static int split_by_cgroup(struct pm_evlist *l, size_t from)
{
	size_t n_new = l->n_metrics - from, n_cg = 0, n_used = 0;
	const char **cgroups = calloc(l->n_ev + 1, sizeof(*cgroups));
	int r = cgroups ? 0 : -ENOMEM;

	for (size_t e = 0; r == 0 && e < l->n_ev; e++) {
		bool seen = false;

		for (size_t k = 0; k < n_cg && !seen; k++)
			seen = !strcmp(cg(cgroups[k]), cg(l->ev[e].cgroup));
		if (!seen)
			cgroups[n_cg++] = l->ev[e].cgroup;
	}
	for (size_t k = 0; r == 0 && n_cg > 1 && k < n_cg; k++)
		if (counted_in(l, from, cgroups[k]))
			cgroups[n_used++] = cgroups[k];
	if (r < 0 || n_used < 2 || !n_new) {
		free(cgroups);
		return r;
	}
	for (size_t k = 1; k < n_used && r == 0; k++)
		for (size_t m = from; m < from + n_new && r == 0; m++)
			r = copy_metric(l, m, cgroups[k], 0, 0);
	for (size_t m = from; m < from + n_new && r == 0; m++) {
		l->metrics[m].cgroup = pm_strdup0(cgroups[0]);
		r = !cgroups[0] || l->metrics[m].cgroup ? 0 : -ENOMEM;
	}
	for (size_t k = 0; k < n_used && r == 0; k++)
		for (size_t m = 0; m < n_new; m++)
			bind_in(l, &l->metrics[from + (k ? n_new * (k - 1) + n_new : 0) + m],
				cgroups[k]);
	free(cgroups);
	return r;
}

int pm_evlist__expand_cgroups(struct pm_evlist *l, const char *const *names, size_t n)
{
	size_t n_ev, n_inst, n_metrics;
	int n_groups, r = 0;

	if (!l || !names || !n)
		return -EINVAL;
	for (size_t c = 0; c < n; c++)
		if (!names[c] || !names[c][0] || strstr(names[c], ".."))
			return -EINVAL;
	for (size_t e = 0; e < l->n_ev; e++)
		if (l->ev[e].cgroup)
			return -EINVAL; /* perf: --cgroup and --for-each-cgroup, not both */
	n_ev = l->n_ev, n_inst = l->n_inst, n_metrics = l->n_metrics, n_groups = l->n_groups;
	/* the events and metrics again for each further cgroup, then the first's named */
	for (size_t c = 1; c < n && r == 0; c++)
		r = pm_evlist_repeat(l, n_ev, names[c]);
	for (size_t c = 1; c < n && r == 0; c++)
		for (size_t m = 0; m < n_metrics && r == 0; m++)
			r = copy_metric(l, m, names[c], c * n_ev, c * n_metrics);
	for (size_t e = 0; e < n_ev && r == 0; e++)
		r = pm_evlist__set_cgroup(l, e, names[0]);
	for (size_t m = 0; m < n_metrics && r == 0; m++) {
		l->metrics[m].cgroup = strdup(names[0]);
		r = l->metrics[m].cgroup ? 0 : -ENOMEM;
	}
	if (r < 0) {
		for (size_t i = n_metrics; i < l->n_metrics; i++)
			pm_metric__done(&l->metrics[i]);
		l->n_metrics = n_metrics;
		for (size_t m = 0; m < n_metrics; m++) {
			free(l->metrics[m].cgroup);
			l->metrics[m].cgroup = NULL;
		}
		pm_evlist_truncate(l, n_ev, n_inst, n_groups);
		for (size_t e = 0; e < n_ev; e++) {
			free(l->ev[e].cgroup);
			l->ev[e].cgroup = NULL;
		}
	}
	return r;
}

/* ---- rows ------------------------------------------------------------------------- */

/* The event row of event e in bucket key, or SIZE_MAX. Event rows are sorted by (event, key). */
static size_t event_row(const struct pm_session *s, size_t e, long key)
{
	size_t lo = 0, hi = s->rows->n_rows;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct pm_row_acc *a = &s->rows->acc[mid];

		if (a->event < e || (a->event == e && a->key < key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->rows->n_rows && s->rows->acc[lo].event == e && s->rows->acc[lo].key == key ?
		       lo :
		       SIZE_MAX;
}

static bool has_key(const long *keys, size_t n, long key)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] == key)
			return true;
	return false;
}

/* The buckets of metric m: those of its events, and of the metrics it uses. */
static int metric_keys(const struct pm_session *s, size_t m, long **keys, size_t *n, size_t *cap)
{
	const struct pm_metric *mt = &s->l->metrics[m];

	for (size_t i = 0; i < mt->n_slots; i++) {
		const struct pm_metric_slot *sl = &mt->slots[i];

		if (sl->kind == PM_SLOT_EVENT) {
			for (size_t r = 0; r < s->rows->n_rows; r++) {
				if (s->rows->acc[r].event != sl->idx ||
				    has_key(*keys, *n, s->rows->acc[r].key))
					continue;
				if (pm_grow((void **)keys, cap, *n + 1, sizeof(**keys)) < 0)
					return -ENOMEM;
				(*keys)[(*n)++] = s->rows->acc[r].key;
			}
		} else if (sl->kind == PM_SLOT_METRIC) {
			int e = metric_keys(s, sl->idx, keys, n, cap);

			if (e < 0)
				return e;
		}
	}
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

void pm_metric__rows_done(struct pm_session *s)
{
	for (size_t i = 0; i < s->rows->n_mrows; i++) {
		free(s->rows->mrows[i].in);
		free(s->rows->mrows[i].units);
		free(s->rows->mrows[i].ctr);
		free(s->rows->mrows[i].ctr_at);
	}
	free(s->rows->mrows);
	free(s->rows->mvals);
	free(s->rows->mlo);
	free(s->rows->mhi);
	free(s->rows->mbound);
	s->rows->mrows = NULL;
	s->rows->mvals = s->rows->mlo = s->rows->mhi = NULL;
	s->rows->mbound = NULL;
	s->rows->n_mrows = 0;
}

static bool uses_event(const struct pm_metric *m, size_t e)
{
	for (size_t i = 0; i < m->n_slots; i++)
		if (m->slots[i].kind == PM_SLOT_EVENT && m->slots[i].idx == e)
			return true;
	return false;
}

/* Counter c's unit in a SumOfDevices row, and whether it feeds the row at all. */
static bool unit_of(const struct pm_session *s, const struct pm_metric_row *mr,
		    const struct pm_counter *c, size_t *ret)
{
	size_t j = c->inst - s->l->ev[c->event].first_inst;

	if (!c->open || !uses_event(&s->l->metrics[mr->metric], c->event) ||
	    s->rows->acc[c->row].key != mr->key)
		return false;
	for (size_t u = 0; u < mr->n_units; u++)
		if (mr->units[u] == j) {
			*ret = u;
			return true;
		}
	return false;
}

/*
 * The counters of each (unit, slot) of a SumOfDevices row, found once: an
 * interval then costs O(inputs) (issue 19: scanning every counter per
 * unit and slot was quadratic in the PMU instances). Two passes: count,
 * then place.
 */
static int index_counters(const struct pm_session *s, struct pm_metric_row *mr)
{
	const struct pm_metric *m = &s->l->metrics[mr->metric];
	size_t cells = mr->n_units * m->n_slots, *fill;

	mr->ctr_at = calloc(cells + 1, sizeof(*mr->ctr_at));
	fill = calloc(cells + 1, sizeof(*fill));
	if (!mr->ctr_at || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < s->n_c; k++) {
			const struct pm_counter *c = &s->c[k];
			size_t u;

			if (!unit_of(s, mr, c, &u))
				continue;
			for (size_t sl = 0; sl < m->n_slots; sl++) {
				size_t cell = u * m->n_slots + sl;

				if (m->slots[sl].kind != PM_SLOT_EVENT ||
				    m->slots[sl].idx != c->event)
					continue;
				if (pass)
					mr->ctr[mr->ctr_at[cell] + fill[cell]++] = k;
				else
					mr->ctr_at[cell + 1]++;
			}
		}
		if (pass)
			break;
		for (size_t cell = 0; cell < cells; cell++)
			mr->ctr_at[cell + 1] += mr->ctr_at[cell];
		mr->ctr = calloc(mr->ctr_at[cells] + 1, sizeof(*mr->ctr));
		if (!mr->ctr) {
			free(fill);
			return -ENOMEM;
		}
	}
	free(fill);
	return 0;
}

/* The PMU instances whose counters feed a SumOfDevices metric's row, and their index. */
static int find_units(const struct pm_session *s, struct pm_metric_row *mr)
{
	const struct pm_metric *m = &s->l->metrics[mr->metric];
	size_t cap = 0;

	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];
		size_t j;
		bool have = false;

		if (!c->open || !uses_event(m, c->event) || s->rows->acc[c->row].key != mr->key)
			continue;
		j = c->inst - s->l->ev[c->event].first_inst;
		for (size_t u = 0; u < mr->n_units; u++)
			have |= mr->units[u] == j;
		if (have)
			continue;
		if (pm_grow((void **)&mr->units, &cap, mr->n_units + 1, sizeof(*mr->units)) < 0)
			return -ENOMEM;
		mr->units[mr->n_units++] = j;
	}
	return index_counters(s, mr);
}

/* The metrics in an order where every metric comes after the metrics it uses. */
static void dependency_order(const struct pm_evlist *l, size_t m, bool *seen, size_t *order,
			     size_t *n)
{
	if (seen[m])
		return;
	seen[m] = true;
	for (size_t i = 0; i < l->metrics[m].n_slots; i++)
		if (l->metrics[m].slots[i].kind == PM_SLOT_METRIC)
			dependency_order(l, l->metrics[m].slots[i].idx, seen, order, n);
	order[(*n)++] = m;
}

/* After the event rows are built: one row per (metric, bucket), inputs first. */
int pm_metric__build_rows(struct pm_session *s)
{
	const struct pm_evlist *l = s->l;
	size_t cap = 0, max_slots = 0, n_order = 0;
	size_t *order = calloc(l->n_metrics + 1, sizeof(*order));
	bool *seen = calloc(l->n_metrics + 1, sizeof(*seen));
	int r = order && seen ? 0 : -ENOMEM;

	pm_metric__rows_done(s);
	s->rows->core_wide = pm_literal__core_wide(s);
	for (size_t m = 0; r == 0 && m < l->n_metrics; m++)
		dependency_order(l, m, seen, order, &n_order);
	for (size_t o = 0; o < n_order && r == 0; o++) {
		size_t m = order[o];
		long *keys = NULL;
		size_t n = 0, kcap = 0;

		max_slots = PM_MAX(max_slots, l->metrics[m].n_slots);
		r = metric_keys(s, m, &keys, &n, &kcap);
		if (r == 0 && n == 0) /* constants and duration only: one machine-wide row */
			keys = calloc(1, sizeof(*keys)), n = keys ? 1 : 0, r = keys ? 0 : -ENOMEM;
		if (r == 0)
			qsort(keys, n, sizeof(*keys), cmp_long);
		for (size_t k = 0; k < n && r == 0; k++) {
			struct pm_metric_row *mr;

			if (pm_grow((void **)&s->rows->mrows, &cap, s->rows->n_mrows + 1,
				    sizeof(*mr)) < 0) {
				r = -ENOMEM;
				break;
			}
			mr = &s->rows->mrows[s->rows->n_mrows];
			*mr = (struct pm_metric_row){ .metric = m, .key = keys[k] };
			mr->in = calloc(l->metrics[m].n_slots + 1, sizeof(*mr->in));
			if (!mr->in) {
				r = -ENOMEM;
				break;
			}
			s->rows->n_mrows++;
			if (l->metrics[m].def->sum_of_devices)
				r = find_units(s, mr);
			for (size_t i = 0; r == 0 && i < l->metrics[m].n_slots; i++) {
				const struct pm_metric_slot *sl = &l->metrics[m].slots[i];

				mr->in[i] = SIZE_MAX;
				if (sl->kind == PM_SLOT_EVENT || sl->kind == PM_SLOT_SOURCES)
					mr->in[i] = event_row(s, sl->idx, keys[k]);
				for (size_t j = 0;
				     sl->kind == PM_SLOT_METRIC && j + 1 < s->rows->n_mrows; j++)
					if (s->rows->mrows[j].metric == sl->idx &&
					    s->rows->mrows[j].key == keys[k])
						mr->in[i] = s->rows->n_rows + j;
			}
		}
		free(keys);
	}
	if (r == 0) {
		s->rows->mvals = calloc(max_slots + 1, sizeof(*s->rows->mvals));
		s->rows->mlo = calloc(max_slots + 1, sizeof(*s->rows->mlo));
		s->rows->mhi = calloc(max_slots + 1, sizeof(*s->rows->mhi));
		s->rows->mbound = calloc(max_slots + 1, sizeof(*s->rows->mbound));
		if (!s->rows->mvals || !s->rows->mlo || !s->rows->mhi || !s->rows->mbound)
			r = -ENOMEM;
	}
	free(order);
	free(seen);
	return r;
}

/* A metric row's labels: those of its first input row. */
void pm_metric__label_rows(struct pm_session *s, struct pm_row *rows)
{
	for (size_t i = 0; i < s->rows->n_mrows; i++) {
		const struct pm_metric_row *mr = &s->rows->mrows[i];
		const struct pm_metric *m = &s->l->metrics[mr->metric];
		struct pm_row *row = &rows[s->rows->n_rows + i];

		*row = (struct pm_row){ .event = m->label ? m->label : m->def->name,
					.unit = m->unit,
					.cgroup = m->cgroup,
					.cpu = -1,
					.die = -1,
					.socket = -1,
					.channel = -1,
					.subchannel = -1 };
		for (size_t k = 0; k < m->n_slots; k++) {
			if (mr->in[k] == SIZE_MAX)
				continue;
			row->device = rows[mr->in[k]].device;
			row->place = rows[mr->in[k]].place;
			row->domain = rows[mr->in[k]].domain;
			row->channel = rows[mr->in[k]].channel;
			row->subchannel = rows[mr->in[k]].subchannel;
			row->cpu = rows[mr->in[k]].cpu;
			row->die = rows[mr->in[k]].die;
			row->socket = rows[mr->in[k]].socket;
			if (!row->cgroup) /* -G: its inputs' cgroup */
				row->cgroup = rows[mr->in[k]].cgroup;
			break;
		}
	}
}

static void take_quality(struct pm_row *row, double running, uint64_t ena, uint64_t run)
{
	if (!isnan(running) && (isnan(row->running) || running < row->running)) {
		row->running = running;
		row->enabled_ns = ena;
		row->running_ns = run;
	}
}

/*
 * Slot k's event, multiplex-scaled (or interpolated: its counters'
 * estimates), on the u-th PMU instance of a metric row's bucket; its
 * interval into s->rows->mlo[k], mhi[k], mbound[k].
 */
static double unit_value(const struct pm_session *s, const struct pm_metric_row *mr, size_t k,
			 size_t u, bool interval, struct pm_row *row)
{
	const struct pm_metric *m = &s->l->metrics[mr->metric];
	const struct pm_event *ev = &s->l->ev[m->slots[k].idx];
	size_t cell = u * m->n_slots + k;
	double sum = 0, half = 0, seen = 0;
	unsigned bound = PM_BOUND_EXACT;
	bool any = false;

	s->rows->mlo[k] = s->rows->mhi[k] = NAN;
	s->rows->mbound[k] = PM_BOUND_NO_VALUE;
	for (size_t i = mr->ctr_at[cell]; i < mr->ctr_at[cell + 1]; i++) {
		const struct pm_counter *c = &s->c[mr->ctr[i]];
		uint64_t val, ena, run;
		struct pm_estimate e;

		if (!pm_aggr__delta(s, c, interval, &val, &ena, &run))
			continue;
		if (c->rec_instances > 1) {
			/* a recorded row of several PMUs: not one instance's counts */
			row->flags |= PM_ROW_NOT_COUNTED;
			return NAN;
		}
		take_quality(row, (double)run / (double)ena, ena, run);
		row->flags |= interval ? c->qual_iv : c->qual_tot;
		if (run == 0) {
			row->flags |= PM_ROW_NOT_COUNTED;
			return NAN;
		}
		if (run < ena)
			row->flags |= PM_ROW_MULTIPLEXED;
		pm_aggr__estimate(s, c, interval, val, ena, run, &e);
		sum += e.count;
		half += e.half;
		seen += e.seen;
		bound = PM_MAX(bound, e.bound);
		if ((interval ? c->qual_iv : c->qual_tot) &
		    (PM_ROW_WRAP_UNCERTAIN | PM_ROW_RESET | PM_ROW_LOST | PM_ROW_REPROGRAMMED))
			bound = PM_MAX(bound, PM_BOUND_MISSING); /* counts may be missing */
		any = true;
	}
	if (!any) {
		row->flags |= PM_ROW_NOT_COUNTED;
		return NAN;
	}
	s->rows->mbound[k] = bound;
	if (bound == PM_BOUND_EXACT) {
		s->rows->mlo[k] = s->rows->mhi[k] = sum * ev->scale;
	} else if (bound == PM_BOUND_MEASURED) {
		s->rows->mlo[k] = fmax(sum - half, seen) * ev->scale;
		s->rows->mhi[k] = (sum + half) * ev->scale;
	}
	return sum * ev->scale;
}

/*
 * A metric's interval from its inputs' (docs/bounds.md): the expression is
 * evaluated with each input at its lo and at its hi, the others at their
 * values, and the moves down and up are added up, input by input. Adding
 * them up assumes nothing of how the inputs' errors go together (inputs
 * counted at the same time err together): it is the interval of the worst
 * case, exact for a sum, wider than needed for a ratio of inputs that err
 * alike. A slot whose interval is unknown makes the metric's unknown.
 * Returns the worst PM_BOUND_* of the inputs; *down and *up grow.
 */
static unsigned propagate(const struct pm_metric *m, double *vals, const double *lo,
			  const double *hi, const unsigned *bound, double v, double *down,
			  double *up)
{
	unsigned worst = PM_BOUND_EXACT;

	for (size_t k = 0; k < m->n_slots; k++) {
		double x = vals[k], a, b;

		/* an input with no value the formula still had one without (a if c else b) */
		if (bound[k] != PM_BOUND_NO_VALUE)
			worst = PM_MAX(worst, bound[k]);
		if (bound[k] != PM_BOUND_MEASURED || (lo[k] == x && hi[k] == x))
			continue;
		vals[k] = lo[k];
		a = pm_expr__eval(m->expr, vals);
		vals[k] = hi[k];
		b = pm_expr__eval(m->expr, vals);
		vals[k] = x;
		if (!isfinite(a) || !isfinite(b)) {
			*down = *up = NAN; /* the formula has no value somewhere in the interval */
			continue;
		}
		*down += v - fmin(v, fmin(a, b));
		*up += fmax(v, fmax(a, b)) - v;
	}
	return worst;
}

/* The slot's value is exact (a constant, the duration): its interval is itself. */
static void exact_slot(struct pm_session *s, size_t k)
{
	s->rows->mlo[k] = s->rows->mhi[k] = s->rows->mvals[k];
	s->rows->mbound[k] = isnan(s->rows->mvals[k]) ? PM_BOUND_NO_VALUE : PM_BOUND_EXACT;
}

/* A metric row's lo, hi and bound from its value, the moves of propagate, its scale. */
static void metric_bounds(const struct pm_metric *m, unsigned worst, double down, double up,
			  struct pm_row *row)
{
	double v = row->value, a, b;

	row->bound = worst;
	if (!isfinite(v)) {
		row->lo = row->hi = NAN;
		row->bound = PM_BOUND_NO_VALUE;
		return;
	}
	if (worst == PM_BOUND_EXACT) {
		row->lo = row->hi = v;
		return;
	}
	if (worst != PM_BOUND_MEASURED || !isfinite(down) || !isfinite(up)) {
		row->lo = row->hi = NAN;
		if (worst == PM_BOUND_MEASURED)
			row->bound = PM_BOUND_FEW; /* no value at an end of an input's interval */
		return;
	}
	a = v - down * fabs(m->scale);
	b = v + up * fabs(m->scale);
	row->lo = m->scale < 0 ? v - up * fabs(m->scale) : a;
	row->hi = m->scale < 0 ? v + down * fabs(m->scale) : b;
}

/*
 * A user_time or system_time slot: the command's CPU seconds (source/tool/tool.c),
 * or NaN and not counted while it runs, without a command, in an interval.
 * False for any other slot.
 */
static bool task_time(const struct pm_session *s, const struct pm_metric_slot *sl,
		      const struct pm_report *rep, struct pm_row *row, double *ret)
{
	if (sl->kind != PM_SLOT_USER_TIME && sl->kind != PM_SLOT_SYSTEM_TIME)
		return false;
	if (!pm_tool__task_time(s, sl->kind == PM_SLOT_SYSTEM_TIME, rep->interval, ret)) {
		*ret = NAN;
		row->flags |= PM_ROW_NOT_COUNTED;
	}
	return true;
}

/* A SumOfDevices metric: the expression per PMU instance, added up; *worst,
 * *down and *up: the interval's, as propagate gives them, over the instances. */
static double sum_of_devices(struct pm_session *s, const struct pm_metric_row *mr,
			     const struct pm_report *rep, struct pm_row *row, unsigned *worst,
			     double *down, double *up)
{
	const struct pm_metric *m = &s->l->metrics[mr->metric];
	double total = 0;

	if (!mr->n_units) {
		row->flags |= PM_ROW_NOT_COUNTED;
		return NAN;
	}
	for (size_t u = 0; u < mr->n_units; u++) {
		double v;

		for (size_t k = 0; k < m->n_slots; k++) {
			const struct pm_metric_slot *sl = &m->slots[k];

			if (sl->kind == PM_SLOT_EVENT) {
				s->rows->mvals[k] = unit_value(s, mr, k, u, rep->interval, row);
				continue;
			}
			if (sl->kind == PM_SLOT_DURATION)
				s->rows->mvals[k] = (double)rep->duration_ns / 1e9;
			else if (sl->kind == PM_SLOT_CONST)
				s->rows->mvals[k] = sl->value;
			else if (sl->kind == PM_SLOT_CORE_WIDE)
				s->rows->mvals[k] = s->rows->core_wide;
			else if (!task_time(s, sl, rep, row, &s->rows->mvals[k]))
				s->rows->mvals[k] = NAN; /* metrics of metrics are not per device */
			exact_slot(s, k);
		}
		v = pm_expr__eval(m->expr, s->rows->mvals);
		total += v;
		*worst = PM_MAX(*worst, propagate(m, s->rows->mvals, s->rows->mlo, s->rows->mhi,
						  s->rows->mbound, v, down, up));
	}
	return total * m->scale;
}

/* What a metric row's value inherits from its input rows: flags and the least coverage. */
#define PM_ROW_INHERITED                                                                        \
	(PM_ROW_MULTIPLEXED | PM_ROW_NOT_COUNTED | PM_ROW_APPROXIMATE | PM_ROW_WRAP_UNCERTAIN | \
	 PM_ROW_REPROGRAMMED | PM_ROW_RESET | PM_ROW_PARTIAL | PM_ROW_LOST)

static void take_input(struct pm_row *row, const struct pm_row *in)
{
	row->flags |= in->flags & PM_ROW_INHERITED;
	take_quality(row, in->running, in->enabled_ns, in->running_ns);
	/* the least covered input: a smaller share covered, compared without division */
	if (in->instances && (!row->instances || (uint64_t)in->covered * row->instances <
							 (uint64_t)row->covered * in->instances)) {
		row->covered = in->covered;
		row->instances = in->instances;
	}
}

/*
 * A value that is NaN although every input counted and every constant is
 * known is undefined (0/0, x/0: perf gives no value either); otherwise it is
 * not counted.
 */
static void no_value(const struct pm_metric *m, const double *vals, struct pm_row *row)
{
	bool known = !(row->flags & PM_ROW_NOT_COUNTED);

	for (size_t k = 0; known && k < m->n_slots; k++)
		known = m->slots[k].kind != PM_SLOT_CONST || !isnan(vals[k]);
	row->flags |= known ? PM_ROW_UNDEFINED : PM_ROW_NOT_COUNTED;
}

/* A ratio's parts, in the unit of its value (the ScaleUnit on the numerator): PM_ROW_RATIO
 * where both are numbers (0 / 0 too: an interval with nothing to divide adds nothing). */
static void ratio_parts(const struct pm_metric *m, const double *vals, struct pm_row *row)
{
	double num, den;

	pm_expr__eval_ratio(m->expr, vals, &num, &den);
	if (isfinite(num) && isfinite(den)) {
		row->num = num * m->scale;
		row->den = den;
		row->flags |= PM_ROW_RATIO;
	}
}

/* After the event rows' values: the metric rows', in order (a metric's inputs come first). */
void pm_metric__compute(struct pm_session *s, const struct pm_report *rep, struct pm_row *rows)
{
	for (size_t i = 0; i < s->rows->n_mrows; i++) {
		const struct pm_metric_row *mr = &s->rows->mrows[i];
		const struct pm_metric *m = &s->l->metrics[mr->metric];
		struct pm_row *row = &rows[s->rows->n_rows + i];
		unsigned worst = PM_BOUND_EXACT;
		double v, down = 0, up = 0;

		row->raw = 0;
		row->running = NAN;
		row->enabled_ns = row->running_ns = 0;
		row->covered = row->instances = 0;
		row->num = row->den = NAN;
		row->flags = PM_ROW_METRIC | (m->def->approximate ? PM_ROW_APPROXIMATE : 0) |
			     (m->degree == 1 ? PM_ROW_AMOUNT : 0);
		if (m->def->sum_of_devices) {
			for (size_t k = 0; k < m->n_slots; k++)
				if (mr->in[k] != SIZE_MAX && m->slots[k].kind == PM_SLOT_EVENT)
					take_input(row, &rows[mr->in[k]]);
			row->flags &= ~PM_ROW_NOT_COUNTED; /* each device's own inputs decide */
			v = sum_of_devices(s, mr, rep, row, &worst, &down, &up);
		} else {
			for (size_t k = 0; k < m->n_slots; k++) {
				const struct pm_metric_slot *sl = &m->slots[k];

				switch (sl->kind) {
				case PM_SLOT_DURATION:
					s->rows->mvals[k] = (double)rep->duration_ns / 1e9;
					exact_slot(s, k);
					continue;
				case PM_SLOT_CONST:
					s->rows->mvals[k] = sl->value;
					exact_slot(s, k);
					continue;
				case PM_SLOT_CORE_WIDE:
					s->rows->mvals[k] = s->rows->core_wide;
					exact_slot(s, k);
					continue;
				case PM_SLOT_USER_TIME:
				case PM_SLOT_SYSTEM_TIME:
					task_time(s, sl, rep, row, &s->rows->mvals[k]);
					exact_slot(s, k);
					continue;
				default:
					break;
				}
				if (mr->in[k] == SIZE_MAX) {
					s->rows->mvals[k] =
						NAN; /* that input has no row in this bucket */
					row->flags |= PM_ROW_NOT_COUNTED;
					exact_slot(s, k);
					continue;
				}
				if (sl->kind == PM_SLOT_SOURCES) {
					s->rows->mvals[k] = s->rows->acc[mr->in[k]].n_in;
					exact_slot(s, k);
					continue;
				}
				s->rows->mvals[k] = rows[mr->in[k]].value;
				s->rows->mlo[k] = rows[mr->in[k]].lo;
				s->rows->mhi[k] = rows[mr->in[k]].hi;
				s->rows->mbound[k] = rows[mr->in[k]].bound;
				/* a metric of metrics takes its inputs before their ScaleUnit, as
				 * perf does: a "100%" ratio enters as 0..1, not as a percentage
				 * (tools/perf/util/expr.c expr__resolve_id parses the referenced
				 * MetricExpr; only stat-shadow.c generic_metric scales, to print;
				 * docs/facts-metrics.md) */
				if (sl->kind == PM_SLOT_METRIC &&
				    s->l->metrics[sl->idx].scale != 0) {
					double sc = s->l->metrics[sl->idx].scale, lo, hi;

					s->rows->mvals[k] /= sc;
					lo = s->rows->mlo[k] / sc;
					hi = s->rows->mhi[k] / sc;
					s->rows->mlo[k] = fmin(lo, hi);
					s->rows->mhi[k] = fmax(lo, hi);
				}
				take_input(row, &rows[mr->in[k]]);
			}
			v = pm_expr__eval(m->expr, s->rows->mvals);
			worst = propagate(m, s->rows->mvals, s->rows->mlo, s->rows->mhi,
					  s->rows->mbound, v, &down, &up);
			v *= m->scale;
			if (m->ratio)
				ratio_parts(m, s->rows->mvals, row);
		}
		row->value = v;
		if (!isfinite(v)) {
			row->value = NAN;
			no_value(m, s->rows->mvals, row);
		}
		metric_bounds(m, worst, down, up, row);
	}
}

/* ---- listing ---------------------------------------------------------------------- */

size_t pm_ctx__metric_count(struct pm_ctx *ctx)
{
	return pm_ctx__discover(ctx) < 0 ? 0 : pm_db__metric_count(ctx->db);
}

int pm_ctx__metric(struct pm_ctx *ctx, size_t i, struct pm_metric_info *ret)
{
	const struct pm_metric_def *d = pm_db__metric(ctx->db, i);

	if (!d)
		return -ENOENT;
	*ret = (struct pm_metric_info){ .name = d->name,
					.expr = d->expr,
					.groups = d->groups,
					.desc = d->desc,
					.unit = d->unit,
					.scope = d->scope,
					.pack = d->pack,
					.unavailable = d->unavailable,
					.approximate = d->approximate,
					.sum_of_devices = d->sum_of_devices,
					.note = d->note };
	return 0;
}
