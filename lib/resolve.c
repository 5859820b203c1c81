// SPDX-License-Identifier: GPL-2.0-only
/*
 * From event specs to concrete events: find the PMUs a spec names, expand
 * aliases, and encode every term through the PMU's format bitfields into
 * config/config1/config2 exactly as the kernel expects. Errors name the bad
 * part of the spec and say how to fix it.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctx.h"
#include "db/pack.h"
#include "evlist.h"
#include "pmu.h"
#include "topo.h"
#include "spec.h"
#include "util/util.h"

#define ALIAS_DEPTH_MAX 4 /* an alias naming an alias naming ... */

/* Generic events (tools/perf/util/parse-events.c event_symbols_hw/sw;
 * docs/facts-perf-tools.md §4). */
static const struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic_events[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, 10 /* PERF_COUNT_SW_BPF_OUTPUT */ },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */ },
};

size_t pm_generic_event_count(void)
{
	return PM_ARRAY_SIZE(generic_events);
}

const char *pm_generic_event(size_t i, const char **ret_kind)
{
	if (i >= PM_ARRAY_SIZE(generic_events))
		return NULL;
	if (ret_kind)
		*ret_kind = generic_events[i].type == PERF_TYPE_HARDWARE ? "hardware" : "software";
	return generic_events[i].name;
}

/*
 * perf's config terms that set how an event samples or is recorded
 * (parse-events.l 6.1, <config> state): perf stat counts the event as if
 * they were not there, and so does pmumon (said at PM_LOG_INFO).
 */
static const char *const sampling_terms[] = {
	"period",      "freq",	       "call-graph", "stack-size", "inherit",	      "no-inherit",
	"overwrite",   "no-overwrite", "max-stack",  "aux-output", "aux-sample-size", "time",
	"branch_type", "nr",	       "percore",    "metric-id",
};

/* Everything one spec event resolves to, before it joins the evlist. */
struct resolved {
	struct pm_event ev;
	struct pm_evinst *inst;
	size_t n_inst, cap_inst;
};

/* What applying terms learned besides the config words. */
struct term_result {
	const char *label;	      /* name= (borrowed from the spec) */
	const struct pm_alias *alias; /* the first alias used */
	bool generic;		      /* a hybrid PMU's generic event: type is its attr type */
	uint32_t type;
};

static int legacy_cache(const char *name, uint64_t *ret_config, int *ret_cache, int *ret_op);

/*
 * A hybrid core PMU's generic event, perf's cpu_core/cycles/ and
 * cpu_core/LLC-loads/ (parse-events.c 6.1, parse_events__with_hybrid_pmu):
 * the hardware or cache event with the PMU's type in the config's upper 32
 * bits (PERF_PMU_TYPE_SHIFT, the kernel's extended type). 1 when name is one.
 */
static int hybrid_generic(const struct pm_pmu *p, const char *name, uint64_t config[3],
			  struct term_result *res)
{
	uint64_t cache;
	int c, op;

	if (!pm_pmu__is_core(p) || !p->cpus.n || p->uncore)
		return 0;
	for (size_t i = 0; i < PM_ARRAY_SIZE(generic_events); i++)
		if (generic_events[i].type == PERF_TYPE_HARDWARE &&
		    !strcmp(generic_events[i].name, name)) {
			config[0] = generic_events[i].config | (uint64_t)p->type << 32;
			res->generic = true;
			res->type = PERF_TYPE_HARDWARE;
			return 1;
		}
	if (legacy_cache(name, &cache, &c, &op) != 1)
		return 0;
	config[0] = cache | (uint64_t)p->type << 32;
	res->generic = true;
	res->type = PERF_TYPE_HW_CACHE;
	return 1;
}

struct resolver {
	struct pm_evlist *l;
	const char *text; /* the user's spec */
	struct pm_diag *diag;
	char list_subject[160]; /* the next error's hint ends: see this (PM_REASON_SEE_LIST) */
};

static const struct pm_pmu *pmu_by_name(struct pm_ctx *ctx, const char *name);

static bool sampling_term(struct resolver *rs, const char *name)
{
	for (size_t s = 0; s < PM_ARRAY_SIZE(sampling_terms); s++)
		if (!strcmp(name, sampling_terms[s])) {
			pm_log(rs->l->ctx, PM_LOG_INFO,
			       "%s: term '%s' is for sampling or recording; counting ignores it, "
			       "as perf stat does",
			       rs->text, name);
			return true;
		}
	return false;
}

/* perf's raw term inside a PMU's terms (parse-events.l <config>: r{hex}, r0x{hex}):
 * config=value, unless the PMU has an event of that name */
static bool raw_term(const char *name, uint64_t *ret)
{
	const char *hex = name[0] == 'r' ? name + 1 : NULL;

	if (hex && hex[0] == '0' && hex[1] == 'x')
		hex += 2;
	if (!hex || !*hex || strspn(hex, "0123456789abcdefABCDEF") != strlen(hex))
		return false;
	return pm_parse_u64(hex, strlen(hex), 16, ret) == 0;
}

int pm_evlist__new(struct pm_ctx *ctx, struct pm_evlist **ret_list)
{
	struct pm_evlist *l;
	int r;

	if (!ctx || !ret_list)
		return -EINVAL;
	r = pm_ctx__discover(ctx);
	if (r < 0)
		return r;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->ctx = ctx;
	ctx->evlists++;
	*ret_list = l;
	return 0;
}

static void event_done(struct pm_event *ev)
{
	free(ev->label);
	free(ev->unit);
	free(ev->spec);
	pm_cpus__done(&ev->cpus);
	free(ev->cgroup);
}

void pm_evlist_truncate(struct pm_evlist *l, size_t n_ev, size_t n_inst, int n_groups)
{
	for (size_t i = n_ev; i < l->n_ev; i++)
		event_done(&l->ev[i]);
	l->n_ev = n_ev;
	l->n_inst = n_inst;
	l->n_groups = n_groups;
}

void pm_evlist__free(struct pm_evlist *l)
{
	if (!l)
		return;
	l->ctx->evlists--;
	for (size_t i = 0; i < l->n_ev; i++)
		event_done(&l->ev[i]);
	for (size_t i = 0; i < l->n_metrics; i++)
		pm_metric__done(&l->metrics[i]);
	for (size_t i = 0; i < l->n_defines; i++)
		free(l->defines[i].name);
	for (size_t i = 0; i < l->n_notes; i++)
		free(l->notes[i].text);
	free(l->notes);
	if (l->attrib_free)
		l->attrib_free(l->attrib);
	free(l->metrics);
	free(l->defines);
	free(l->ev);
	free(l->inst);
	free(l);
}

size_t pm_evlist__count(const struct pm_evlist *l)
{
	return l->n_ev;
}

const char *pm_evlist__name(const struct pm_evlist *l, size_t i)
{
	return i < l->n_ev ? l->ev[i].label : NULL;
}

int pm_evlist__set_cgroup(struct pm_evlist *l, size_t event, const char *name)
{
	char *copy;

	if (!l || event >= l->n_ev || !name || !name[0] || strstr(name, ".."))
		return -EINVAL;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(l->ev[event].cgroup);
	l->ev[event].cgroup = copy;
	return 0;
}

int pm_evlist_repeat(struct pm_evlist *l, size_t n, const char *cgroup)
{
	size_t n_ev = l->n_ev, n_inst = l->n_inst;
	int n_groups = l->n_groups, groups = 0, r = 0;

	for (size_t e = 0; e < n; e++)
		groups = PM_MAX(groups, l->ev[e].group + 1);
	if (pm_grow((void **)&l->ev, &l->cap_ev, n_ev + n, sizeof(*l->ev)) < 0)
		return -ENOMEM;
	for (size_t e = 0; e < n && r == 0; e++) {
		const struct pm_event *src = &l->ev[e];
		struct pm_event *ev = &l->ev[l->n_ev];

		r = pm_grow((void **)&l->inst, &l->cap_inst, l->n_inst + src->n_inst,
			    sizeof(*l->inst));
		if (r < 0)
			break;
		*ev = *src;
		ev->label = strdup(src->label);
		ev->unit = pm_strdup0(src->unit);
		ev->spec = strdup(src->spec);
		ev->cgroup = pm_strdup0(cgroup);
		ev->cpus = (struct pm_cpus){ 0 };
		ev->group = src->group < 0 ? -1 : n_groups + src->group;
		ev->first_inst = l->n_inst;
		l->n_ev++;
		if (!ev->label || !ev->spec || (src->unit && !ev->unit) || (cgroup && !ev->cgroup))
			r = -ENOMEM;
		else
			r = pm_cpus__copy(&src->cpus, &ev->cpus);
		for (size_t i = 0; i < src->n_inst; i++) {
			l->inst[l->n_inst] = l->inst[src->first_inst + i];
			l->inst[l->n_inst++].event = l->n_ev - 1;
		}
	}
	l->n_groups = n_groups + groups;
	if (r < 0)
		pm_evlist_truncate(l, n_ev, n_inst, n_groups);
	return r;
}

/* ---- diagnostics -------------------------------------------------------- */

static int spec_error(struct resolver *rs, size_t pos, size_t len, int err, const char *hint,
		      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int spec_error(struct resolver *rs, size_t pos, size_t len, int err, const char *hint,
		      const char *fmt, ...)
{
	va_list ap;

	if (rs->diag) {
		va_start(ap, fmt);
		pm_diag_vformat(rs->diag->msg, sizeof(rs->diag->msg), fmt, ap);
		va_end(ap);
		snprintf(rs->diag->hint, sizeof(rs->diag->hint), "%s", hint ? hint : "");
		/* this error's reason or none: not one an error tried and dropped before it */
		rs->diag->reason = PM_REASON_NONE;
		rs->diag->fix_at = -1;
		rs->diag->subject[0] = rs->diag->device[0] = '\0';
		pm_diag_point(rs->diag, rs->text, pos, len);
		if (rs->list_subject[0]) /* the hint ends with what to look at */
			pm_diag_reason(rs->diag, PM_REASON_SEE_LIST, NULL, rs->list_subject);
	}
	rs->list_subject[0] = '\0';
	return err;
}

/* "event, umask, config, config1, config2, name" for hints. */
static void list_terms(const struct pm_pmu *p, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < p->n_formats && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s, ", p->formats[i].name);
	if (off < size)
		snprintf(buf + off, size - off, "config, config1, config2, name");
}

/* ---- term encoding ------------------------------------------------------ */

static int parse_num_value(struct resolver *rs, const struct pm_spec_term *t, size_t pos,
			   size_t len, uint64_t *ret)
{
	int r = pm_parse_u64_str(t->value, 0, ret);

	if (r == -ERANGE)
		return spec_error(rs, pos, len, -ERANGE, NULL,
				  "value of term '%s' does not fit in 64 bits", t->name);
	if (r < 0)
		return spec_error(rs, pos, len, -EINVAL,
				  "write numbers as decimal (10) or hexadecimal (0xa)",
				  "value of term '%s' is not a number: '%s'", t->name, t->value);
	return 0;
}

/*
 * Apply terms to config words. Positions in messages point at (pos, len) of
 * the user's spec: the term itself, or the alias that brought it in.
 */
static int apply_terms(struct resolver *rs, const struct pm_pmu *p,
		       const struct pm_spec_term *terms, size_t n, bool from_user, size_t alias_pos,
		       size_t alias_len, int depth, uint64_t config[PM_CONFIG_WORDS],
		       struct term_result *res);

/* An event the PMU names (an alias): its own terms applied, at most ALIAS_DEPTH_MAX deep. */
static int apply_alias(struct resolver *rs, const struct pm_pmu *p, const struct pm_alias *a,
		       size_t pos, size_t len, int depth, uint64_t config[PM_CONFIG_WORDS],
		       struct term_result *res)
{
	struct pm_spec_event aev;
	struct pm_spec_err err = { 0 };
	int r;

	if (depth >= ALIAS_DEPTH_MAX)
		return spec_error(rs, pos, len, -ELOOP, NULL,
				  "event '%s' of PMU '%s' refers to itself", a->name, p->name);
	r = pm_spec__parse_terms(a->terms, strlen(a->terms), &aev, &err);
	if (r < 0)
		return spec_error(rs, pos, len, r, NULL,
				  "event '%s' of PMU '%s' (from %s) has malformed terms '%s': %s",
				  a->name, p->name, a->origin, a->terms,
				  err.msg ? err.msg : strerror(-r));
	r = apply_terms(rs, p, aev.terms, aev.n_terms, false, pos, len, depth + 1, config, res);
	pm_spec__done_event(&aev);
	if (r < 0)
		return r;
	if (!res->alias)
		res->alias = a;
	return 0;
}

/* Neither a format term nor an event of the PMU: say which there are. */
static int unknown_term(struct resolver *rs, const struct pm_pmu *p, const struct pm_spec_term *t,
			size_t pos, size_t len)
{
	char hint[512], terms_buf[256];

	list_terms(p, terms_buf, sizeof(terms_buf));
	snprintf(hint, sizeof(hint), "terms of '%s': %s; its events: ", p->name, terms_buf);
	snprintf(rs->list_subject, sizeof(rs->list_subject), "events %s", p->family);
	if (t->value)
		return spec_error(rs, pos, len, -ENOENT, hint, "unknown term '%s' for PMU '%s'",
				  t->name, p->name);
	return spec_error(rs, pos, len, -ENOENT, hint, "unknown term or event '%s' for PMU '%s'",
			  t->name, p->name);
}

static int apply_terms(struct resolver *rs, const struct pm_pmu *p,
		       const struct pm_spec_term *terms, size_t n, bool from_user, size_t alias_pos,
		       size_t alias_len, int depth, uint64_t config[PM_CONFIG_WORDS],
		       struct term_result *res)
{
	for (size_t i = 0; i < n; i++) {
		const struct pm_spec_term *t = &terms[i];
		size_t pos = from_user ? t->pos : alias_pos, len = from_user ? t->len : alias_len;
		size_t vpos = from_user && t->value ? t->value_pos : pos;
		size_t vlen = from_user && t->value ? strlen(t->value) : len;
		const struct pm_format_entry *fe;
		const struct pm_alias *a;
		uint64_t v = 1;
		int r;

		if (!strcmp(t->name, "cpu") && from_user)
			continue; /* where, not what: term_cpus() */
		if (!strcmp(t->name, "name")) {
			if (!t->value || !t->value[0])
				return spec_error(rs, pos, len, -EINVAL, "write name=LABEL",
						  "term 'name' needs a value");
			if (from_user)
				res->label = t->value;
			continue;
		}
		if (sampling_term(rs, t->name))
			continue;
		if (!strncmp(t->name, "config", 6) &&
		    (!t->name[6] || ((t->name[6] == '1' || t->name[6] == '2') && !t->name[7]))) {
			int w = t->name[6] ? t->name[6] - '0' : 0;

			/* a bare config term is 1, as perf's PE_TERM alone */
			if (t->value) {
				r = parse_num_value(rs, t, vpos, vlen, &v);
				if (r < 0)
					return r;
			}
			config[w] = v;
			continue;
		}
		fe = pm_pmu__find_format(p, t->name);
		if (fe) {
			if (t->value) {
				r = parse_num_value(rs, t, vpos, vlen, &v);
				if (r < 0)
					return r;
			}
			if (pm_format__encode(&fe->f, v, config) < 0)
				return spec_error(rs, vpos, vlen, -ERANGE, NULL,
						  "value 0x%" PRIx64
						  " is too big for term '%s' of PMU "
						  "'%s' (%s: %u bits, at most 0x%" PRIx64 ")",
						  v, t->name, p->name, fe->text, fe->f.nbits,
						  pm_format__max(&fe->f));
			continue;
		}
		a = t->value ? NULL : pm_pmu__find_alias(p, t->name);
		if (!a && !t->value && raw_term(t->name, &v)) {
			config[0] = v; /* software/r1a/ */
			continue;
		}
		if (!a && !t->value && from_user && hybrid_generic(p, t->name, config, res))
			continue;
		if (!a)
			return unknown_term(rs, p, t, pos, len);
		r = apply_alias(rs, p, a, pos, len, depth, config, res);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- building resolved events ------------------------------------------- */

static int add_inst(struct resolved *res, const struct pm_pmu *p, const char *device,
		    const struct perf_event_attr *attr)
{
	struct pm_evinst *in;
	int r;

	r = pm_grow((void **)&res->inst, &res->cap_inst, res->n_inst + 1, sizeof(*in));
	if (r < 0)
		return r;
	in = &res->inst[res->n_inst++];
	in->pmu = p;
	in->device = device;
	in->attr = *attr;
	return 0;
}

static void init_attr(struct perf_event_attr *attr, uint32_t type, const uint64_t config[3])
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config[0];
	attr->config1 = config[1];
	attr->config2 = config[2];
}

static void take_alias(struct resolved *res, const struct pm_alias *a)
{
	if (!a)
		return;
	res->ev.scale = a->scale;
	res->ev.per_pkg = a->per_pkg;
	res->ev.snapshot = a->snapshot;
	if (a->unit && !res->ev.unit)
		res->ev.unit = strdup(a->unit);
}

/* The text between the two slashes, without a name= term. */
static void user_terms_text(const struct resolver *rs, const struct pm_spec_event *se,
			    struct pm_strbuf *b)
{
	bool first = true;

	for (size_t i = 0; i < se->n_terms; i++) {
		const struct pm_spec_term *t = &se->terms[i];

		if (!strcmp(t->name, "name"))
			continue;
		if (!first)
			pm_strbuf__puts(b, ",");
		pm_strbuf__append(b, rs->text + t->pos, t->len);
		first = false;
	}
}

/* The event's modifiers as perf writes them in a label: "ukh", "G", "pp", ... */
static void mods_text(const struct pm_spec_event *se, struct pm_strbuf *b)
{
	static const struct {
		unsigned bit;
		const char *letter;
	} order[] = {
		{ PM_MOD_U, "u" },	{ PM_MOD_K, "k" },    { PM_MOD_H, "h" },
		{ PM_MOD_GUEST, "G" },	{ PM_MOD_HOST, "H" }, { PM_MOD_NOIDLE, "I" },
		{ PM_MOD_PINNED, "D" }, { PM_MOD_EXCL, "e" },
	};
	static const struct {
		unsigned bit;
		const char *letter;
	} after_p[] = {
		{ PM_MOD_PMAX, "P" },
		{ PM_MOD_SREAD, "S" },
		{ PM_MOD_WEAK, "W" },
		{ PM_MOD_BPF, "b" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(order); i++)
		if (se->mods & order[i].bit)
			pm_strbuf__puts(b, order[i].letter);
	for (unsigned i = 0; i < se->precise; i++)
		pm_strbuf__puts(b, "p");
	for (size_t i = 0; i < PM_ARRAY_SIZE(after_p); i++)
		if (se->mods & after_p[i].bit)
			pm_strbuf__puts(b, after_p[i].letter);
}

/* name= as given, else perf's "pmu/terms/mods" with the instance or family named. */
static char *pmu_label(const struct resolver *rs, const struct pm_spec_event *se, const char *name,
		       const char *pmu)
{
	struct pm_strbuf label = { 0 };
	char *r;

	if (name) {
		pm_strbuf__puts(&label, name);
	} else {
		pm_strbuf__puts(&label, pmu);
		pm_strbuf__puts(&label, "/");
		user_terms_text(rs, se, &label);
		pm_strbuf__puts(&label, "/");
		mods_text(se, &label);
	}
	r = pm_strbuf__steal(&label);
	pm_strbuf__done(&label);
	return r;
}

/*
 * The CPUs of one cpu= term, perf's get_config_cpu() (tools/perf/util/parse-events.c):
 * a number is that CPU; a PMU's name its cpus or cpumask file (a core PMU without
 * one: every online CPU; any other PMU without one: nothing); else a CPU list.
 */
static int one_cpu_term(struct resolver *rs, const struct pm_spec_term *t, struct pm_cpus *ret)
{
	struct pm_ctx *ctx = rs->l->ctx;
	const struct pm_cpus *online = &ctx->topo->online;
	const struct pm_pmu *p = NULL;
	size_t vlen = t->value ? strlen(t->value) : 0;
	char have[128];
	uint64_t n;

	if (!t->value || !t->value[0])
		return spec_error(rs, t->pos, t->len, -EINVAL, "write cpu=N, cpu=PMU or cpu=0-3",
				  "term 'cpu' needs a value");
	p = pmu_by_name(ctx, t->value);
	if (p && p->cpus.n)
		return pm_cpus__copy(&p->cpus, ret);
	if (p) /* a core PMU without a cpus file counts on every CPU; another, on none */
		return pm_pmu__is_core(p) ? pm_cpus__copy(online, ret) : 0;
	if (pm_parse_u64_str(t->value, 0, &n) == 0) {
		if (n >= PM_CPU_MAX)
			n = PM_CPU_MAX; /* not online: the message below */
		ret->cpu = malloc(sizeof(int));
		if (!ret->cpu)
			return -ENOMEM;
		ret->cpu[0] = (int)n;
		ret->n = 1;
	} else if (pm_cpus__parse(t->value, vlen, ret) < 0) {
		snprintf(rs->list_subject, sizeof(rs->list_subject), "pmus");
		return spec_error(rs, t->value_pos, vlen, -EINVAL, "",
				  "value of term 'cpu' is neither a CPU, a CPU list nor a PMU: '%s'",
				  t->value);
	}
	for (size_t i = 0; i < ret->n; i++)
		if (!pm_cpus__has(online, ret->cpu[i])) {
			int bad = ret->cpu[i];

			pm_cpus__format(online, have, sizeof(have));
			pm_cpus__done(ret);
			if (bad == PM_CPU_MAX) /* a number past any CPU, clamped above */
				return spec_error(rs, t->value_pos, vlen, -EINVAL, NULL,
						  "term 'cpu=%s': no such CPU (online: %s)",
						  t->value, have);
			return spec_error(rs, t->value_pos, vlen, -EINVAL, NULL,
					  "term 'cpu=%s': CPU %d is not online (online: %s)",
					  t->value, bad, have);
		}
	return 0;
}

/* Every cpu= term of the event, together (perf merges them). */
static int term_cpus(struct resolver *rs, const struct pm_spec_event *se, struct pm_cpus *ret)
{
	for (size_t i = 0; i < se->n_terms; i++) {
		struct pm_cpus one = { 0 }, u = { 0 };
		int r;

		if (strcmp(se->terms[i].name, "cpu"))
			continue;
		r = one_cpu_term(rs, &se->terms[i], &one);
		if (r == 0)
			r = pm_cpus__union(ret, &one, &u);
		pm_cpus__done(&one);
		if (r < 0)
			return r;
		pm_cpus__done(ret);
		*ret = u;
	}
	return 0;
}

static int resolve_pmu_event(struct resolver *rs, const struct pm_spec_event *se,
			     struct resolved *res)
{
	struct pm_ctx *ctx = rs->l->ctx;
	bool glob = strpbrk(se->pmu, "*?") != NULL;
	const struct pm_pmu *first = NULL;
	struct term_result tr = { 0 };
	bool one_family = true;
	int r = 0, last_err = 0;

	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		uint64_t config[PM_CONFIG_WORDS] = { 0 };
		struct perf_event_attr attr;
		struct term_result one = { 0 };

		if (!pm_pmu__matches(p, se->pmu))
			continue;
		r = apply_terms(rs, p, se->terms, se->n_terms, true, 0, 0, 0, config, &one);
		if (r < 0) {
			/* a glob takes the PMUs that understand the terms */
			if (glob && (r == -ENOENT || r == -ERANGE)) {
				last_err = r;
				r = 0;
				continue;
			}
			goto out;
		}
		if (!first) {
			first = p;
			tr = one;
		}
		one_family &= !strcmp(p->family, first->family);
		init_attr(&attr, one.generic ? one.type : p->type, config);
		r = add_inst(res, p, p->name, &attr);
		if (r < 0)
			goto out;
	}
	if (!first) {
		if (last_err) {
			/* run once more on the first match to get its message */
			for (size_t i = 0; i < ctx->n_pmus; i++) {
				uint64_t config[PM_CONFIG_WORDS] = { 0 };
				struct term_result one = { 0 };

				if (pm_pmu__matches(ctx->pmus[i], se->pmu)) {
					r = apply_terms(rs, ctx->pmus[i], se->terms, se->n_terms,
							true, 0, 0, 0, config, &one);
					goto out;
				}
			}
		}
		snprintf(rs->list_subject, sizeof(rs->list_subject), "pmus");
		r = spec_error(rs, se->pos, strlen(se->pmu), -ENOENT, "", "unknown PMU '%s'",
			       se->pmu);
		goto out;
	}
	r = term_cpus(rs, se, &res->ev.cpus);
	if (r < 0)
		goto out;
	take_alias(res, tr.alias);
	res->ev.label = pmu_label(rs, se, tr.label,
				  res->n_inst == 1 ? first->name :
				  one_family	   ? first->family :
						     se->pmu);
	if (!res->ev.label)
		r = -ENOMEM;
out:
	return r;
}

static const struct pm_pmu *pmu_by_name(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->name, name))
			return ctx->pmus[i];
	return NULL;
}

static const struct pm_pmu *pmu_by_type(struct pm_ctx *ctx, uint32_t type)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (ctx->pmus[i]->type == type)
			return ctx->pmus[i];
	return NULL;
}

static int symbol_label(const struct pm_spec_event *se, const char *name, struct resolved *res)
{
	struct pm_strbuf label = { 0 };

	pm_strbuf__puts(&label, name);
	if (se->mods || se->precise) {
		pm_strbuf__puts(&label, ":");
		mods_text(se, &label);
	}
	res->ev.label = pm_strbuf__steal(&label);
	return res->ev.label ? 0 : -ENOMEM;
}

/*
 * perf's hardware cache events, "L1-dcache-load-misses" (tools/perf/util/
 * evsel.c's tables, parse_events__decode_legacy_cache): a cache, then an
 * operation (read when none) and a result (access when none), each by any
 * of its names, case-insensitively, the longest that fits; the operations a
 * cache has (evsel__hw_cache_stat). config = cache | op << 8 | result << 16
 * (include/uapi/linux/perf_event.h), type PERF_TYPE_HW_CACHE.
 */
static const char *const cache_names[][6] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const cache_ops[][6] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const cache_results[][6] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};
/* by cache: the operations it has (1 << op) */
static const unsigned cache_has_op[] = { 7, 5, 7, 7, 1, 1, 7 };

/* The longest of names (rows of aliases) s starts with, ending at '-' or the end: its row
 * and *ret_len, or -1. */
static int cache_word(const char *s, const char *const (*names)[6], size_t rows, size_t *ret_len)
{
	int best = -1;

	*ret_len = 0;
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < 6 && names[i][j]; j++) {
			size_t n = strlen(names[i][j]);

			if (n > *ret_len && !strncasecmp(s, names[i][j], n) &&
			    (s[n] == '-' || s[n] == '\0')) {
				best = (int)i;
				*ret_len = n;
			}
		}
	return best;
}

/* name as a hardware cache event: 1 and *ret_config, 0 when it is none, -EINVAL when the
 * cache has no such operation (*ret_cache, *ret_op say which). */
static int legacy_cache(const char *name, uint64_t *ret_config, int *ret_cache, int *ret_op)
{
	size_t n;
	int cache = cache_word(name, cache_names, PM_ARRAY_SIZE(cache_names), &n), op = -1,
	    result = -1;
	const char *s = name + n;

	if (cache < 0)
		return 0;
	for (int i = 0; i < 2 && *s == '-'; i++) {
		int w;

		s++;
		if (op < 0 && (w = cache_word(s, cache_ops, PM_ARRAY_SIZE(cache_ops), &n)) >= 0)
			op = w;
		else if (result < 0 &&
			 (w = cache_word(s, cache_results, PM_ARRAY_SIZE(cache_results), &n)) >= 0)
			result = w;
		else
			return 0;
		s += n;
	}
	if (*s)
		return 0;
	op = op < 0 ? 0 : op;
	*ret_cache = cache;
	*ret_op = op;
	if (!(cache_has_op[cache] & (1u << op)))
		return -EINVAL;
	*ret_config = (uint64_t)cache | (uint64_t)op << 8 |
		      (uint64_t)(result < 0 ? 0 : result) << 16;
	return 1;
}

/* clocks count ns; perf shows msec, deciding by the final attr (util/evsel.c
 * evsel__is_clock), so cpu-clock/config=2/ is page-faults, a count */
static int clock_unit(struct resolved *res, const struct perf_event_attr *attr)
{
	bool clock = attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_CPU_CLOCK ||
							  attr->config == PERF_COUNT_SW_TASK_CLOCK);

	free(res->ev.unit);
	res->ev.unit = NULL;
	res->ev.scale = 1.0;
	if (!clock)
		return 0;
	res->ev.unit = strdup("msec");
	res->ev.scale = 1e-6;
	return res->ev.unit ? 0 : -ENOMEM;
}

static int resolve_symbol(struct resolver *rs, const struct pm_spec_event *se, struct resolved *res)
{
	struct pm_ctx *ctx = rs->l->ctx;
	uint64_t config[PM_CONFIG_WORDS] = { 0 };
	struct perf_event_attr attr;
	int r;

	for (size_t i = 0; i < PM_ARRAY_SIZE(generic_events); i++) {
		const struct generic_event *g = &generic_events[i];
		const struct pm_pmu *p;

		if (strcmp(g->name, se->name) != 0)
			continue;
		config[0] = g->config;
		init_attr(&attr, g->type, config);
		r = clock_unit(res, &attr);
		if (r < 0)
			return r;
		p = g->type == PERF_TYPE_SOFTWARE ? pmu_by_name(ctx, "software") : NULL;
		r = add_inst(res, p, p ? p->name : "cpu", &attr);
		if (r < 0)
			return r;
		return symbol_label(se, se->name, res);
	}
	{
		int cache, op;

		r = legacy_cache(se->name, &config[0], &cache, &op);
		if (r < 0)
			return spec_error(rs, se->pos, strlen(se->name), r,
					  "perf's cache events: L1-dcache and LLC, dTLB, node load, "
					  "store and prefetch; L1-icache load and prefetch; iTLB and "
					  "branch load only",
					  "'%s': the %s cache has no %s operation", se->name,
					  cache_names[cache][0], cache_ops[op][0]);
		if (r > 0) {
			init_attr(&attr, PERF_TYPE_HW_CACHE, config);
			r = add_inst(res, NULL, "cpu", &attr);
			return r < 0 ? r : symbol_label(se, se->name, res);
		}
	}
	/* an event name that some PMUs know, e.g. hif_rd on every ali_drw PMU */
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		struct pm_spec_term t = { .name = se->name,
					  .pos = se->pos,
					  .len = strlen(se->name) };
		struct term_result tr = { 0 };

		if (!pm_pmu__find_alias(p, se->name))
			continue;
		memset(config, 0, sizeof(config));
		r = apply_terms(rs, p, &t, 1, true, 0, 0, 0, config, &tr);
		if (r < 0)
			return r;
		if (res->n_inst == 0)
			take_alias(res, tr.alias);
		init_attr(&attr, p->type, config);
		r = add_inst(res, p, p->name, &attr);
		if (r < 0)
			return r;
	}
	if (res->n_inst)
		return symbol_label(se, se->name, res);
	snprintf(rs->list_subject, sizeof(rs->list_subject), "events");
	return spec_error(rs, se->pos, strlen(se->name), -ENOENT,
			  "write PMU/event/ (e.g. msr/tsc/), or ", "unknown event '%s'", se->name);
}

/*
 * The terms perf takes after a symbolic event's name (parse-events.y 6.1,
 * event_legacy_symbol: value_sym '/' event_config '/', and the cache event's
 * opt_event_config; config_term_common): name= labels it, configN= replaces
 * that config word, cpu= says where (newer perf; term_cpus), sampling terms
 * are refused as everywhere. No PMU's formats apply.
 */
static int apply_symbol_terms(struct resolver *rs, const struct pm_spec_event *se,
			      struct resolved *res, const char **ret_label)
{
	for (size_t i = 0; i < se->n_terms; i++) {
		const struct pm_spec_term *t = &se->terms[i];
		const char *n = t->name;
		uint64_t v;
		int r;

		if (!strcmp(n, "cpu"))
			continue;
		if (!strcmp(n, "name")) {
			if (!t->value || !t->value[0])
				return spec_error(rs, t->pos, t->len, -EINVAL, "write name=LABEL",
						  "term 'name' needs a value");
			*ret_label = t->value;
			continue;
		}
		if (sampling_term(rs, n))
			continue;
		if (strcmp(n, "config") && strcmp(n, "config1") && strcmp(n, "config2"))
			return spec_error(rs, t->pos, t->len, -ENOENT,
					  "terms after a named event: name, config, config1, "
					  "config2, cpu",
					  "unknown term '%s' for event '%s'", n,
					  se->pmu ? se->pmu : rs->text);
		v = 1; /* a bare config term: perf's PE_TERM alone */
		if (t->value) {
			r = parse_num_value(rs, t, t->value_pos, strlen(t->value), &v);
			if (r < 0)
				return r;
		}
		for (size_t k = 0; k < res->n_inst; k++) {
			struct perf_event_attr *a = &res->inst[k].attr;

			if (!n[6])
				a->config = v;
			else if (n[6] == '1')
				a->config1 = v;
			else
				a->config2 = v;
		}
	}
	return 0;
}

/*
 * NAME/terms/ where NAME is no PMU but an event: perf's cycles/name=x/,
 * L1-dcache-loads/name=y/ (a symbol's terms, above) and tsc/name=t/ (an alias
 * with more terms, on every PMU that has it). The label is name= or the event
 * as written, NAME/terms/mods, as perf prints it. 1: NAME is no event either.
 */
static int resolve_named_with_terms(struct resolver *rs, const struct pm_spec_event *se,
				    struct resolved *res)
{
	struct pm_ctx *ctx = rs->l->ctx;
	struct pm_spec_event sym = { .kind = PM_SPEC_SYMBOL, .name = se->pmu, .pos = se->pos };
	struct pm_spec_term *terms;
	const char *label = NULL;
	uint64_t cache_config;
	int cache, op, r;

	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (pm_pmu__matches(ctx->pmus[i], se->pmu))
			return 1;
	for (size_t i = 0; i < PM_ARRAY_SIZE(generic_events); i++)
		if (!strcmp(generic_events[i].name, se->pmu))
			goto symbol;
	if (legacy_cache(se->pmu, &cache_config, &cache, &op) != 0)
		goto symbol;
	/* an alias: the alias as the first term, then the user's */
	terms = calloc(se->n_terms + 1, sizeof(*terms));
	if (!terms)
		return -ENOMEM;
	terms[0] = (struct pm_spec_term){ .name = se->pmu, .pos = se->pos, .len = strlen(se->pmu) };
	if (se->n_terms) /* ALIAS// has none, and no array */
		memcpy(terms + 1, se->terms, se->n_terms * sizeof(*terms));
	r = 0;
	for (size_t i = 0; i < ctx->n_pmus && r == 0; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		uint64_t config[PM_CONFIG_WORDS] = { 0 };
		struct perf_event_attr attr;
		struct term_result tr = { 0 };

		if (!pm_pmu__find_alias(p, se->pmu))
			continue;
		r = apply_terms(rs, p, terms, se->n_terms + 1, true, 0, 0, 0, config, &tr);
		if (r < 0)
			break;
		if (res->n_inst == 0) {
			take_alias(res, tr.alias);
			label = tr.label;
		}
		init_attr(&attr, p->type, config);
		r = add_inst(res, p, p->name, &attr);
	}
	free(terms);
	if (r < 0 || res->n_inst == 0)
		return r < 0 ? r : 1;
	goto label;
symbol:
	r = resolve_symbol(rs, &sym, res);
	if (r == 0)
		r = apply_symbol_terms(rs, se, res, &label);
	if (r == 0 && res->n_inst) /* configN= may have made it another event */
		r = clock_unit(res, &res->inst[0].attr);
	if (r < 0)
		return r;
	free(res->ev.label); /* the bare name's: the label is the event as written */
	res->ev.label = NULL;
label:
	r = term_cpus(rs, se, &res->ev.cpus);
	if (r < 0)
		return r;
	res->ev.label = pmu_label(rs, se, label, se->pmu);
	return res->ev.label ? 0 : -ENOMEM;
}

/*
 * perf's breakpoint (parse-events.c parse_events_add_breakpoint, 6.1): type
 * PERF_TYPE_BREAKPOINT at bp_addr; bp_type as given, else r|w; bp_len as
 * given, else (or 0) sizeof(long) for x alone and HW_BREAKPOINT_LEN_4 for the
 * rest. (perf also sets sample_period 1, which perf stat clears to count.)
 * The label is the event as typed; perf 6.1 cuts it at a '/' (its lexer's
 * event name), so there mem:X/8:w and mem:X/8:r would share one name.
 */
static int resolve_breakpoint(struct resolver *rs, const struct pm_spec_event *se,
			      struct resolved *res)
{
	const struct pm_pmu *p = pmu_by_type(rs->l->ctx, PERF_TYPE_BREAKPOINT);
	uint64_t config[PM_CONFIG_WORDS] = { 0 };
	struct perf_event_attr attr;
	int r;

	init_attr(&attr, PERF_TYPE_BREAKPOINT, config);
	attr.bp_addr = se->raw;
	attr.bp_type = se->bp_type ? se->bp_type : HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	attr.bp_len = se->bp_len		      ? se->bp_len :
		      attr.bp_type == HW_BREAKPOINT_X ? sizeof(long) :
							HW_BREAKPOINT_LEN_4;
	r = add_inst(res, p, p ? p->name : "breakpoint", &attr);
	if (r < 0)
		return r;
	res->ev.label = strndup(rs->text + se->pos, se->len);
	return res->ev.label ? 0 : -ENOMEM;
}

static int resolve_raw(struct resolver *rs, const struct pm_spec_event *se, struct resolved *res)
{
	uint64_t config[PM_CONFIG_WORDS] = { se->raw, 0, 0 };
	struct perf_event_attr attr;
	const char *label = NULL;
	char name[32];
	int r;

	init_attr(&attr, PERF_TYPE_RAW, config);
	r = add_inst(res, pmu_by_type(rs->l->ctx, PERF_TYPE_RAW), "cpu", &attr);
	if (r < 0)
		return r;
	/* r1a/name=x,config1=2/: perf's event_legacy_raw with its terms */
	r = apply_symbol_terms(rs, se, res, &label);
	if (r < 0)
		return r;
	snprintf(name, sizeof(name), "r%" PRIx64, se->raw);
	return symbol_label(se, label ? label : name, res);
}

/*
 * perf's TYPE:CONFIG (parse_events_add_numeric): the attr as given, on the
 * PMU of that type when there is one (1:1 is the software PMU's
 * task-clock, with its unit), with the symbol's terms; labelled as typed.
 */
static int resolve_numeric(struct resolver *rs, const struct pm_spec_event *se,
			   struct resolved *res)
{
	const struct pm_pmu *p = pmu_by_type(rs->l->ctx, se->type);
	uint64_t config[PM_CONFIG_WORDS] = { se->raw, 0, 0 };
	struct perf_event_attr attr;
	const char *label = NULL;
	char name[64];
	size_t n = strcspn(rs->text + se->pos, "/:,{}");
	const char *second = memchr(rs->text + se->pos, ':', se->len);
	int r;

	init_attr(&attr, se->type, config);
	r = add_inst(res, p, p ? p->name : "cpu", &attr);
	if (r == 0)
		r = apply_symbol_terms(rs, se, res, &label);
	if (r == 0)
		r = clock_unit(res, &res->inst[0].attr);
	if (r < 0)
		return r;
	/* "1:1" as typed: the type, its ':', the config */
	if (second)
		n = (size_t)(second - (rs->text + se->pos)) + 1 + strcspn(second + 1, "/:,{}");
	snprintf(name, sizeof(name), "%.*s", (int)n, rs->text + se->pos);
	return symbol_label(se, label ? label : name, res);
}

/*
 * The tracepoints "sys:event" names, each a glob (perf 6.1's
 * add_tracepoint_multi_sys/_event with strglobmatch), as "sys:event" in
 * *ret: the event directories under tracefs that have an id. Sorted by name,
 * where perf takes readdir's order. Return 0 or -errno from the listing.
 */
static int tracepoint_list(struct pm_ctx *ctx, const char *name, struct pm_names *ret)
{
	const char *colon = strchr(name, ':');
	struct pm_names subsys = { 0 }, out = { 0 };
	char sys_pat[128], path[512];
	int r;

	snprintf(sys_pat, sizeof(sys_pat), "%.*s", (int)(colon - name), name);
	snprintf(path, sizeof(path), "%s/events", ctx->tracefs);
	r = pm_list_names(ctx, path, true, sys_pat, &subsys);
	for (size_t s = 0; s < subsys.n && r == 0; s++) {
		struct pm_names ev = { 0 };

		snprintf(path, sizeof(path), "%s/events/%s", ctx->tracefs, subsys.name[s]);
		r = pm_list_names(ctx, path, true, colon + 1, &ev);
		for (size_t e = 0; e < ev.n && r == 0; e++) {
			char *full;

			snprintf(path, sizeof(path), "%s/events/%s/%s/id", ctx->tracefs,
				 subsys.name[s], ev.name[e]);
			if (!pm_path_exists(ctx, path))
				continue; /* a directory without an id is not an event */
			r = pm_grow((void **)&out.name, &out.cap, out.n + 1, sizeof(char *));
			if (r == 0 && asprintf(&full, "%s:%s", subsys.name[s], ev.name[e]) < 0)
				r = -ENOMEM;
			if (r == 0)
				out.name[out.n++] = full;
		}
		pm_names__done(&ev);
	}
	pm_names__done(&subsys);
	if (r < 0)
		pm_names__done(&out);
	else
		*ret = out;
	return r;
}

static int no_tracefs(struct resolver *rs, const struct pm_spec_event *se)
{
	const char *colon = strchr(se->name, ':');

	if (colon && colon[1] &&
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(colon + 1))
		/* "cycles:x": letters that are no modifiers, or a tracepoint never looked for */
		return spec_error(rs, se->pos + (size_t)(colon + 1 - se->name), strlen(colon + 1),
				  -ENOENT,
				  "perf's modifiers are u k h G H I D e p P S W b; a tracepoint needs "
				  "tracefs (mount -t tracefs nodev /sys/kernel/tracing)",
				  "'%s': '%s' is not a modifier, and no tracepoint can be looked up "
				  "(tracefs is not mounted)",
				  se->name, colon + 1);
	return spec_error(rs, se->pos, strlen(se->name), -ENOENT,
			  "mount it: mount -t tracefs nodev /sys/kernel/tracing",
			  "tracepoint '%s' needs tracefs, which is not mounted", se->name);
}

/* A tracepoint, or every one a glob names (one row: a glob left in a spec that was not
 * expanded, see expand_tracepoints). */
static int resolve_tracepoint(struct resolver *rs, const struct pm_spec_event *se,
			      struct resolved *res)
{
	struct pm_ctx *ctx = rs->l->ctx;
	struct pm_names tp = { 0 };
	char path[512];
	int r;

	if (!ctx->tracefs)
		return no_tracefs(rs, se);
	r = tracepoint_list(ctx, se->name, &tp);
	if (r < 0)
		return spec_error(rs, se->pos, strlen(se->name), r,
				  r == -EACCES ?
					  "run as root, or remount: mount -o remount,mode=755 "
					  "/sys/kernel/tracing" :
					  NULL,
				  "cannot list tracepoints in %s/events: %s", ctx->tracefs,
				  strerror(-r));
	for (size_t i = 0; i < tp.n && r == 0; i++) {
		uint64_t config[PM_CONFIG_WORDS] = { 0 };
		const char *colon = strchr(tp.name[i], ':');
		struct perf_event_attr attr;

		snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", ctx->tracefs,
			 (int)(colon - tp.name[i]), tp.name[i], colon + 1);
		if (pm_read_u64(ctx, path, &config[0]) < 0)
			continue;
		init_attr(&attr, PERF_TYPE_TRACEPOINT, config);
		r = add_inst(res, pmu_by_name(ctx, "tracepoint"), "tracepoint", &attr);
	}
	pm_names__done(&tp);
	if (r == 0 && res->n_inst == 0)
		r = spec_error(rs, se->pos, strlen(se->name), -ENOENT,
			       "tracepoints are listed under /sys/kernel/tracing/events",
			       "no tracepoint matches '%s'", se->name);
	if (r == 0)
		r = symbol_label(se, se->name, res);
	return r;
}

/*
 * perf makes every tracepoint a glob names its own event, with its own row
 * (parse-events.c add_tracepoint_multi_event): a tracepoint glob becomes one
 * spec event per match, in its place, with the glob's position, group and
 * modifiers. A glob that matches nothing, or that tracefs cannot answer,
 * stays, for resolve_tracepoint to say why.
 */
static int expand_tracepoints(struct resolver *rs, struct pm_spec *spec)
{
	struct pm_ctx *ctx = rs->l->ctx;

	for (size_t i = 0; i < spec->n; i++) {
		struct pm_spec_event glob = spec->ev[i];
		struct pm_names tp = { 0 };
		size_t cap = spec->n;
		int r;

		if (glob.kind != PM_SPEC_TRACEPOINT || !strpbrk(glob.name, "*?") || !ctx->tracefs ||
		    tracepoint_list(ctx, glob.name, &tp) < 0 || tp.n == 0)
			continue;
		if (spec->n + tp.n - 1 > PM_SPEC_MAX_EVENTS)
			r = spec_error(rs, glob.pos, glob.len, -E2BIG, "name fewer tracepoints",
				       "'%s' names %zu tracepoints, over %d events", glob.name,
				       tp.n, PM_SPEC_MAX_EVENTS);
		else
			r = pm_grow((void **)&spec->ev, &cap, spec->n + tp.n - 1,
				    sizeof(*spec->ev));
		if (r < 0) {
			pm_names__done(&tp);
			return r;
		}
		memmove(&spec->ev[i + tp.n], &spec->ev[i + 1],
			(spec->n - i - 1) * sizeof(*spec->ev));
		free(glob.name);
		for (size_t k = 0; k < tp.n; k++) {
			spec->ev[i + k] = glob;
			spec->ev[i + k].name = tp.name[k]; /* taken from the list */
		}
		spec->n += tp.n - 1;
		i += tp.n - 1;
		free(tp.name);
	}
	return 0;
}

/*
 * Modifiers become attr bits as perf 6.1 sets them (tools/perf/util/
 * parse-events.c get_event_modifier; checked with perf stat -vv): u, k, h
 * count only those privilege levels (the others excluded); G excludes the
 * host, H the guest, I idle time; D pins, e makes exclusive; p.. is
 * precise_ip; u, k or p without G or H exclude the guest as well. P sets
 * nothing: perf stat never applies precise_max (only evsel__config, perf
 * record's, reads it). S (sample read) means nothing when counting; W is
 * the session's (source/perf/perf.c); b is counted through perf_event_open.
 */
static int apply_mods(struct resolver *rs, const struct pm_spec_event *se, struct resolved *res)
{
	const unsigned excludes = PM_MOD_PRIV | PM_MOD_GUEST | PM_MOD_HOST | PM_MOD_NOIDLE;
	bool no_guest = (se->mods & (PM_MOD_U | PM_MOD_K) || se->precise) &&
			!(se->mods & (PM_MOD_GUEST | PM_MOD_HOST));

	if (!se->mods && !se->precise)
		return 0;
	for (size_t i = 0; i < res->n_inst; i++) {
		struct pm_evinst *in = &res->inst[i];
		const struct pm_pmu *p = in->pmu;

		if ((se->mods & excludes) && p && p->traits && p->traits->no_exclude)
			return spec_error(rs, se->mods_pos, 1, -EINVAL,
					  "drop the modifier: this PMU always counts every "
					  "privilege level, host and guest, busy and idle",
					  "PMU '%s' rejects the :u/:k/:h modifiers, and :G :H :I (its driver "
					  "has no exclude support)",
					  p->name);
		if (se->mods & PM_MOD_PRIV) {
			in->attr.exclude_user = !(se->mods & PM_MOD_U);
			in->attr.exclude_kernel = !(se->mods & PM_MOD_K);
			in->attr.exclude_hv = !(se->mods & PM_MOD_H);
		}
		in->attr.exclude_host |= !!(se->mods & PM_MOD_GUEST);
		in->attr.exclude_guest |= !!(se->mods & PM_MOD_HOST) || no_guest;
		in->attr.exclude_idle |= !!(se->mods & PM_MOD_NOIDLE);
		in->attr.pinned |= !!(se->mods & PM_MOD_PINNED);
		in->attr.exclusive |= !!(se->mods & PM_MOD_EXCL);
		in->attr.precise_ip = se->precise;
	}
	if (se->mods & PM_MOD_BPF)
		pm_log(rs->l->ctx, PM_LOG_INFO,
		       "'%s': perf counts :b events through BPF programs that share the counters; "
		       "pmumon opens them with perf_event_open, which counts the same",
		       res->ev.label);
	return 0;
}

static int resolve_one(struct resolver *rs, const struct pm_spec_event *se, struct resolved *res)
{
	int r;

	res->ev.scale = 1.0;
	switch (se->kind) {
	case PM_SPEC_PMU:
		r = resolve_named_with_terms(rs, se, res);
		if (r == 1) /* NAME is a PMU, or nothing: */
			r = resolve_pmu_event(rs, se, res);
		break;
	case PM_SPEC_SYMBOL:
		r = resolve_symbol(rs, se, res);
		break;
	case PM_SPEC_RAW:
		r = resolve_raw(rs, se, res);
		break;
	case PM_SPEC_NUMERIC:
		r = resolve_numeric(rs, se, res);
		break;
	case PM_SPEC_TRACEPOINT:
		r = resolve_tracepoint(rs, se, res);
		break;
	case PM_SPEC_BREAKPOINT:
		r = resolve_breakpoint(rs, se, res);
		break;
	default:
		r = -EINVAL;
	}
	if (r == 0)
		r = apply_mods(rs, se, res);
	return r;
}

/* ---- groups --------------------------------------------------------------- */

/* The kernel's software context (task_ctx_nr = perf_sw_context): software events,
 * tracepoints and breakpoints may join any group. */
static bool is_software(const struct pm_evinst *in)
{
	return in->attr.type == PERF_TYPE_SOFTWARE || in->attr.type == PERF_TYPE_TRACEPOINT ||
	       in->attr.type == PERF_TYPE_BREAKPOINT;
}

/*
 * A kernel group lives on one PMU instance (software events may join any).
 * Check that the hardware members of a group cover the same PMU instances,
 * and that no PMU gets more members than its driver allows (ali_drw: one).
 */
static int check_group(struct resolver *rs, const struct pm_spec *spec, int group,
		       struct resolved *res, size_t n)
{
	const struct resolved *lead = NULL;
	size_t lead_i = 0;

	for (size_t i = 0; i < n; i++) {
		const struct resolved *m = &res[i];
		bool sw = m->n_inst && is_software(&m->inst[0]);

		if (spec->ev[i].group != group || sw)
			continue;
		if (!lead) {
			lead = m;
			lead_i = i;
			continue;
		}
		if (m->n_inst != lead->n_inst)
			goto mismatch;
		for (size_t k = 0; k < m->n_inst; k++)
			if (strcmp(m->inst[k].device, lead->inst[k].device) != 0)
				goto mismatch;
		continue;
mismatch:
		return spec_error(rs, spec->ev[i].pos, spec->ev[i].len, -EINVAL,
				  "a group counts on one PMU; split it into separate event specs",
				  "event '%s' is not on the same PMU as '%s', the first of its group",
				  m->ev.label, lead->ev.label);
	}
	if (!lead || !lead->n_inst || !lead->inst[0].pmu || !lead->inst[0].pmu->traits)
		return 0;
	{
		const struct pm_pmu_traits *t = lead->inst[0].pmu->traits;
		size_t members = 0;

		for (size_t i = 0; i < n; i++)
			if (spec->ev[i].group == group && res[i].n_inst &&
			    !is_software(&res[i].inst[0]))
				members++;
		if (t->group_max && members > (size_t)t->group_max) {
			char hint[256];

			snprintf(hint, sizeof(hint),
				 "drop the braces: give each %s event on its own (%s)", t->unit,
				 t->note ? "the driver's rule" : "driver rule");
			return spec_error(rs, spec->ev[lead_i].pos, 1, -EINVAL, hint,
					  "PMU '%s' allows %d event%s per group, this group has %zu",
					  lead->inst[0].pmu->name, t->group_max,
					  t->group_max == 1 ? "" : "s", members);
		}
	}
	return 0;
}

/* ---- adding to the evlist ------------------------------------------------ */

static int commit(struct pm_evlist *l, struct resolved *res, size_t n, const char *text,
		  const struct pm_spec *spec, bool optional)
{
	size_t ev0 = l->n_ev, in0 = l->n_inst, need_inst = l->n_inst;
	int r;

	for (size_t i = 0; i < n; i++)
		need_inst += res[i].n_inst;
	r = pm_grow((void **)&l->ev, &l->cap_ev, l->n_ev + n, sizeof(*l->ev));
	if (r == 0)
		r = pm_grow((void **)&l->inst, &l->cap_inst, need_inst, sizeof(*l->inst));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct pm_event *ev = &l->ev[ev0 + i];

		ev->spec = strdup(text);
		if (!ev->spec) {
			for (size_t k = 0; k < i; k++)
				free(l->ev[ev0 + k].spec);
			return -ENOMEM;
		}
	}
	/* nothing can fail from here on: hand everything over */
	for (size_t i = 0; i < n; i++) {
		struct pm_event *ev = &l->ev[ev0 + i];
		char *spec_text = ev->spec;

		*ev = res[i].ev;
		ev->spec = spec_text;
		ev->spec_pos = spec->ev[i].pos;
		ev->spec_len = spec->ev[i].len;
		ev->optional = optional;
		ev->group = spec->ev[i].group < 0 ? -1 : l->n_groups + spec->ev[i].group;
		ev->weak = ev->group >= 0 && (spec->ev[i].mods & PM_MOD_WEAK);
		ev->first_inst = in0;
		ev->n_inst = res[i].n_inst;
		for (size_t k = 0; k < res[i].n_inst; k++) {
			l->inst[in0] = res[i].inst[k];
			l->inst[in0].event = ev0 + i;
			in0++;
		}
		res[i].ev = (struct pm_event){ 0 };
	}
	l->n_ev += n;
	l->n_inst = in0;
	l->n_groups += (int)spec->n_groups;
	return 0;
}

static int add_spec(struct pm_evlist *l, const char *text, bool optional, struct pm_diag *reterr)
{
	struct resolver rs = { .l = l, .text = text, .diag = reterr };
	struct pm_spec spec = { 0 };
	struct pm_spec_err perr = { 0 };
	struct resolved *res = NULL;
	int r;

	if (!text)
		return -EINVAL;
	pm_diag__init(reterr);
	r = pm_spec__parse(text, strlen(text), &spec, &perr);
	if (r < 0)
		return spec_error(&rs, perr.pos, perr.len, r,
				  "event syntax: PMU/term=value,.../ (e.g. amd_df/event=0x7,umask=0x38/),"
				  " a name (cycles), rNNN, subsys:tracepoint, {a,b} for a group",
				  "cannot parse event '%s': %s", text,
				  perr.msg ? perr.msg : strerror(-r));
	r = expand_tracepoints(&rs, &spec);
	if (r < 0)
		goto out;
	res = calloc(spec.n, sizeof(*res));
	if (!res) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < spec.n; i++) {
		r = resolve_one(&rs, &spec.ev[i], &res[i]);
		if (r < 0)
			goto out;
	}
	for (size_t g = 0; g < spec.n_groups; g++) {
		r = check_group(&rs, &spec, (int)g, res, spec.n);
		if (r < 0)
			goto out;
	}
	r = commit(l, res, spec.n, text, &spec, optional);
out:
	for (size_t i = 0; res && i < spec.n; i++) {
		event_done(&res[i].ev);
		free(res[i].inst);
	}
	free(res);
	pm_spec__done(&spec);
	return r;
}

int pm_evlist__add(struct pm_evlist *l, const char *spec, struct pm_diag *reterr)
{
	if (!l || !spec)
		return -EINVAL;
	return add_spec(l, spec, false, reterr);
}

int pm_evlist__add_optional(struct pm_evlist *l, const char *spec, struct pm_diag *reterr)
{
	if (!l || !spec)
		return -EINVAL;
	return add_spec(l, spec, true, reterr);
}

static bool pmu_has_alias(struct pm_ctx *ctx, const char *pmu, const char *alias)
{
	const struct pm_pmu *p = pmu_by_name(ctx, pmu);

	return p && pm_pmu__find_alias(p, alias);
}

/* perf stat 6.1's defaults (docs/facts-perf-tools.md §7), then the x86 clocks; why: the
 * reason they, and not a pack's, were chosen */
static int add_perf_defaults(struct pm_evlist *l, bool system_wide, const char *why,
			     struct pm_strbuf *desc, struct pm_diag *reterr)
{
	static const char *const generic[] = {
		"context-switches", "cpu-migrations", "page-faults",   "cycles",
		"instructions",	    "branches",	      "branch-misses",
	};
	static const char *const msr_events[] = { "tsc", "aperf", "mperf" };
	const char *clock = system_wide ? "cpu-clock" : "task-clock";
	int r;

	pm_strbuf__printf(desc, "generic events (%s): %s", why, clock);
	r = add_spec(l, clock, true, reterr);
	for (size_t i = 0; i < PM_ARRAY_SIZE(generic) && r == 0; i++) {
		r = add_spec(l, generic[i], true, reterr);
		pm_strbuf__printf(desc, ", %s", generic[i]);
	}
	for (size_t i = 0, n = 0; i < PM_ARRAY_SIZE(msr_events) && r == 0; i++) {
		char spec[32];

		if (!pmu_has_alias(l->ctx, "msr", msr_events[i]))
			continue;
		snprintf(spec, sizeof(spec), "msr/%s/", msr_events[i]);
		r = add_spec(l, spec, true, reterr);
		/* perf adds none of these */
		pm_strbuf__printf(desc, "%s%s", n++ ? ", " : "; then pmumon's x86 clocks ", spec);
	}
	return r;
}

static int add_defaults(struct pm_evlist *l, bool system_wide, bool generic_only, char *ret_desc,
			size_t desc_size, struct pm_diag *reterr)
{
	struct pm_db *db = l->ctx->db;
	struct pm_strbuf desc = { 0 };
	int r = 0;

	/* a pack's defaults count the machine's uncore: they cannot follow one command */
	if (pm_db__default_count(db) && system_wide && !generic_only) {
		pm_strbuf__printf(&desc, "the %s pack's defaults (%s):", pm_db__matched_names(db),
				  pm_db__defaults_note(db));
		for (size_t i = 0; i < pm_db__default_count(db) && r == 0; i++) {
			r = add_spec(l, pm_db__default(db, i), true, reterr);
			pm_strbuf__printf(&desc, " %s", pm_db__default(db, i));
		}
	} else {
		r = add_perf_defaults(l, system_wide,
				      !pm_db__default_count(db) ?
					      "no platform pack matches this machine" :
				      generic_only ? "perf stat's" :
						     "the platform pack's defaults count the whole "
						     "machine: add -a for them",
				      &desc, reterr);
	}
	if (r == 0 && ret_desc)
		snprintf(ret_desc, desc_size, "%s", desc.s ? desc.s : "");
	pm_strbuf__done(&desc);
	return r;
}

int pm_evlist__add_defaults(struct pm_evlist *l, bool system_wide, char *ret_desc, size_t desc_size,
			    struct pm_diag *reterr)
{
	return add_defaults(l, system_wide, false, ret_desc, desc_size, reterr);
}

int pm_evlist__add_perf_defaults(struct pm_evlist *l, bool system_wide, char *ret_desc,
				 size_t desc_size, struct pm_diag *reterr)
{
	return add_defaults(l, system_wide, true, ret_desc, desc_size, reterr);
}

/*
 * perf stat's -d levels (perf 6.1, tools/perf/builtin-stat.c,
 * add_default_attributes: detailed_attrs, very_detailed_attrs and
 * very_very_detailed_attrs), appended in that order to whatever was asked
 * for. perf's generic hardware cache names: a machine without them gets
 * <not supported> rows, as perf prints them.
 */
int pm_evlist__add_detailed(struct pm_evlist *l, int level, struct pm_diag *reterr)
{
	static const char *const sets[3][6] = {
		{ "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses" },
		{ "L1-icache-loads", "L1-icache-load-misses", "dTLB-loads", "dTLB-load-misses",
		  "iTLB-loads", "iTLB-load-misses" },
		{ "L1-dcache-prefetches", "L1-dcache-prefetch-misses" },
	};
	int r = 0;

	if (!l || level < 0)
		return -EINVAL;
	for (int s = 0; s < PM_MIN(level, 3) && r == 0; s++) {
		for (size_t i = 0; i < PM_ARRAY_SIZE(sets[s]) && sets[s][i] && r == 0; i++) {
			size_t ev0 = l->n_ev;

			r = add_spec(l, sets[s][i], false, reterr);
			for (size_t e = ev0; r == 0 && e < l->n_ev; e++)
				l->ev[e].detailed = true;
		}
	}
	return r;
}

/* ---- encoding for `list` -------------------------------------------------- */

int pm_alias__encoding(const struct pm_alias *a, const struct pm_pmu *p, char *buf, size_t size)
{
	struct resolver rs = { 0 };
	struct pm_spec_event aev;
	struct term_result tr = { 0 };
	uint64_t config[PM_CONFIG_WORDS] = { 0 };
	int r;

	r = pm_spec__parse_terms(a->terms, strlen(a->terms), &aev, NULL);
	if (r < 0)
		return r;
	rs.text = a->terms;
	r = apply_terms(&rs, p, aev.terms, aev.n_terms, true, 0, 0, 0, config, &tr);
	pm_spec__done_event(&aev);
	if (r < 0)
		return r;
	r = pm_snprintf(buf, size, "config=0x%" PRIx64, config[0]);
	for (int w = 1; w < PM_CONFIG_WORDS && r == 0; w++)
		if (config[w])
			r = pm_snprintf(buf + strlen(buf), size - strlen(buf),
					",config%d=0x%" PRIx64, w, config[w]);
	return r;
}
