// SPDX-License-Identifier: GPL-2.0-only
/*
 * The replay source (docs/import.md): a recording's counts played back
 * through the session, one sample per read, so aggregation, multiplex
 * scaling, quality, metrics and every output format work as for live
 * counts. The context of an import stands for the machine that counted:
 *
 * - its os (pm_replay_os_ops) has no files; its clock is the recording's:
 *   the end of the last sample read;
 * - its PMUs are the ones the file names (ali_drw_21000, amd_df, msr), plus
 *   a PMU for every family the matching packs have events on, so that pack
 *   aliases (dram_channel_data_controller_4, hif_rd) resolve to a family;
 * - its CPUs are the ones the file names; rows perf aggregated per die or
 *   socket (S0-D1) sit on a stand-in CPU of that die.
 *
 * Each series of the file becomes one counter; a read adds the sample's
 * count to it with the enabled and running times the file gives, so a
 * counter perf multiplexed is scaled again the same way and says so.
 */
#include "source/replay/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/embedded.h"
#include "db/pack.h"
#include "evlist.h"
#include "pmu.h"
#include "source/counters.h"
#include "topo.h"
#include "util/counts.h"
#include "util/util.h"

/* ---- accessors ----------------------------------------------------------------------------- */

const char *pm_replay__format_name(const struct pm_replay *r)
{
	switch (r->format) {
	case PM_REPLAY_PERF_CSV:
		return "perf stat -x";
	case PM_REPLAY_PERF_JSON:
		return "perf stat -j";
	case PM_REPLAY_PMUMON_CSV:
		return "pmumon CSV";
	case PM_REPLAY_COUNTS_CSV:
		return "counts CSV";
	case PM_REPLAY_PMUMON_JSON:
		return "pmumon JSON Lines";
	case PM_REPLAY_FEED:
		return "pmumon recording";
	default:
		return "?";
	}
}

size_t pm_replay__sample_count(const struct pm_replay *r)
{
	return r->n_samples;
}

bool pm_replay__intervals(const struct pm_replay *r)
{
	return r->intervals;
}

bool pm_replay__duration_known(const struct pm_replay *r)
{
	return r->duration_known;
}

const char *pm_replay__sim_platform(const struct pm_replay *r)
{
	return r->simulated ? (r->sim_platform ? r->sim_platform : "") : NULL;
}

const char *pm_replay__cpuid(const struct pm_replay *r)
{
	return r->cpuid;
}

enum pm_aggr pm_replay__aggr(const struct pm_replay *r)
{
	bool dev = false, chan = false, cpu = false, die = false, socket = false;

	for (size_t i = 0; i < r->n_series; i++) {
		const struct pm_replay_series *s = &r->series[i];

		chan |= s->channel >= 0;
		dev |= s->channel < 0 && s->pmu && pm_pmu_family_len(s->pmu) < strlen(s->pmu);
		cpu |= s->cpu >= 0;
		die |= s->die >= 0;
		socket |= s->socket >= 0;
	}
	return dev    ? PM_AGGR_DEVICE :
	       chan   ? PM_AGGR_CHANNEL :
	       cpu    ? PM_AGGR_CPU :
	       die    ? PM_AGGR_DIE :
	       socket ? PM_AGGR_SOCKET :
			PM_AGGR_FAMILY;
}

int pm_replay__unsupported(const struct pm_replay *r, char *buf, size_t size)
{
	size_t off = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < r->n_series; i++) {
		bool seen = false;

		if (r->series[i].counted)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !r->series[j].counted &&
			       !strcmp(r->series[j].name, r->series[i].name);
		if (seen)
			continue;
		if (pm_snprintf(buf + off, size - off, "%s%s", off ? ", " : "", r->series[i].name) <
		    0)
			return -ENAMETOOLONG;
		off += strlen(buf + off);
	}
	return 0;
}

/* ---- the recording's machine (machine.c): its clock, its PMUs and CPUs ----------------------------- */

/* The clock: the end of the last sample read. */
uint64_t pm_replay__mono_ns(struct pm_ctx *ctx)
{
	return ctx->replay->now_ns;
}

uint64_t pm_replay__wall_ns(struct pm_ctx *ctx)
{
	return ctx->replay->wall_ns;
}

/* Its CPU: the one the caller gave wins over the one the recording names. */
void pm_replay__machine_cpuid(struct pm_ctx *ctx, char *buf, size_t size)
{
	const struct pm_replay *rp = ctx->replay;
	const char *id = rp->cpuid_given && rp->cpuid_given[0] ? rp->cpuid_given : rp->cpuid;

	snprintf(buf, size, "%s", id ? id : "");
	if (!id)
		pm_log(ctx, PM_LOG_INFO,
		       "%s names no CPU id: perf event tables that a mapfile "
		       "selects by CPU do not apply",
		       rp->name);
	else if (id == rp->cpuid_given && rp->cpuid && strcmp(rp->cpuid, id) != 0)
		pm_log(ctx, PM_LOG_INFO, "the CPU id %s, as given (%s says %s)", id, rp->name,
		       rp->cpuid);
	else
		pm_log(ctx, PM_LOG_INFO, "the CPU id %s, as %s", id,
		       id == rp->cpuid_given ? "given" : "the recording says");
}

/* ---- discovery: the recording's PMUs and CPUs ------------------------------------------------------ */

static struct pm_pmu *find_pmu(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->name, name))
			return ctx->pmus[i];
	return NULL;
}

static bool have_family(struct pm_ctx *ctx, const char *family)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->family, family))
			return true;
	return false;
}

static int add_pmu(struct pm_ctx *ctx, const char *name)
{
	struct pm_pmu *p;
	int r;

	if (find_pmu(ctx, name))
		return 0;
	r = pm_pmu__new(name, &p);
	if (r < 0)
		return r;
	p->source = PM_SRC_REPLAY;
	r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	return r;
}

/* CPUs: the ones the file names, then one stand-in per die or socket perf aggregated. */
static int build_topology(struct pm_ctx *ctx, struct pm_replay *rp)
{
	struct pm_topo *t = ctx->topo;
	struct pm_strbuf list = { 0 };
	int max_cpu = -1, next, r;

	for (size_t i = 0; i < rp->n_series; i++)
		max_cpu = PM_MAX(max_cpu, rp->series[i].cpu);
	next = max_cpu + 1;
	for (size_t i = 0; i < rp->n_series; i++) {
		struct pm_replay_series *s = &rp->series[i];

		if (s->cpu >= 0) {
			s->topo_cpu = s->cpu;
			continue;
		}
		if (s->socket < 0)
			continue;
		for (size_t j = 0; j < i && s->topo_cpu < 0; j++) {
			const struct pm_replay_series *o = &rp->series[j];

			if (o->cpu < 0 && o->socket == s->socket && o->die == s->die &&
			    o->core == s->core)
				s->topo_cpu = o->topo_cpu;
		}
		if (s->topo_cpu < 0)
			s->topo_cpu = next++;
	}
	if (next == 0)
		next = 1; /* no CPU named: the machine had at least one */
	t->nr_cpu_ids = next;
	t->cpu = calloc((size_t)next, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	for (int c = 0; c < next; c++)
		t->cpu[c] = (struct pm_cpu_topo){ .package = 0, .die = 0, .core = c };
	for (size_t i = 0; i < rp->n_series; i++) {
		const struct pm_replay_series *s = &rp->series[i];

		if (s->topo_cpu < 0)
			continue;
		if (s->socket >= 0)
			t->cpu[s->topo_cpu].package = s->socket;
		if (s->die >= 0)
			t->cpu[s->topo_cpu].die = s->die;
		if (s->core >= 0)
			t->cpu[s->topo_cpu].core = s->core;
	}
	for (int c = 0; c < next; c++) {
		bool used = max_cpu < 0 && c == 0;

		for (size_t i = 0; i < rp->n_series && !used; i++)
			used = rp->series[i].topo_cpu == c;
		if (used)
			pm_strbuf__printf(&list, "%s%d", list.len ? "," : "", c);
	}
	if (!list.s) /* series without CPUs only: CPU 0 stands for the machine */
		pm_strbuf__puts(&list, "0");
	r = list.oom ? -ENOMEM : pm_cpus__parse(list.s, list.len, &t->online);
	pm_strbuf__done(&list);
	if (r < 0)
		return r;
	{
		int pk[256], dk[256], np = 0, nd = 0;

		for (size_t i = 0; i < t->online.n; i++) {
			const struct pm_cpu_topo *c = &t->cpu[t->online.cpu[i]];
			int d = c->package * 256 + c->die, k;

			for (k = 0; k < np && pk[k] != c->package; k++)
				;
			if (k == np && np < 256)
				pk[np++] = c->package;
			for (k = 0; k < nd && dk[k] != d; k++)
				;
			if (k == nd && nd < 256)
				dk[nd++] = d;
		}
		t->n_packages = np;
		t->n_dies = nd;
	}
	return 0;
}

/* A channel row's PMU ("ali_drw:die0/ch2"): of its family, placed where the row was. */
static int add_channel_pmu(struct pm_ctx *ctx, const struct pm_replay_series *s)
{
	struct pm_pmu *p;
	struct pm_pmu_place *pl;
	int r;

	if (find_pmu(ctx, s->pmu))
		return 0;
	r = pm_pmu__new(s->pmu, &p);
	if (r < 0)
		return r;
	free(p->family);
	p->family = strndup(s->pmu, strcspn(s->pmu, ":"));
	if (!p->family) {
		pm_pmu__free(p);
		return -ENOMEM;
	}
	p->source = PM_SRC_REPLAY;
	p->place_fixed = true;
	pl = &p->place;
	*pl = (struct pm_pmu_place){ .die = PM_MAX(s->die, 0),
				     .channel = s->channel,
				     .subchannel = -1 };
	snprintf(pl->channel_label, sizeof(pl->channel_label), "die%d/ch%d", pl->die, pl->channel);
	snprintf(pl->label, sizeof(pl->label), "%s", pl->channel_label);
	r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	return r;
}

int pm_replay__discover(struct pm_ctx *ctx)
{
	struct pm_replay *rp = ctx->replay;
	int r = 0;

	for (size_t i = 0; i < rp->n_series && r == 0; i++) {
		const struct pm_replay_series *s = &rp->series[i];

		if (s->pmu && s->channel >= 0)
			r = add_channel_pmu(ctx, s);
		else if (s->pmu)
			r = add_pmu(ctx, s->pmu);
	}
	if (r == 0)
		r = build_topology(ctx, rp);
	return r;
}

bool pm_replay__recorded(struct pm_ctx *ctx, const char *family, const char *name)
{
	const struct pm_replay *rp = ctx->replay;

	for (size_t i = 0; i < rp->n_series; i++) {
		const struct pm_replay_series *s = &rp->series[i];
		const struct pm_pmu *p = s->pmu ? find_pmu(ctx, s->pmu) : NULL;

		size_t n = strlen(family);

		/* "ali_drw/cycle/", or bare "cycle" */
		if (!s->counted || !p || strcmp(p->family, family) != 0)
			continue;
		if (!strcmp(s->name, name) || (!strncmp(s->name, family, n) && s->name[n] == '/' &&
					       !strncmp(s->name + n + 1, name, strlen(name)) &&
					       !strcmp(s->name + n + 1 + strlen(name), "/")))
			return true;
	}
	return false;
}

bool pm_replay__adds_instances(struct pm_ctx *ctx, const char *family)
{
	const struct pm_replay *rp = ctx->replay;

	for (size_t i = 0; i < rp->n_series; i++) {
		const struct pm_replay_series *s = &rp->series[i];
		const struct pm_pmu *p = s->pmu ? find_pmu(ctx, s->pmu) : NULL;

		if (s->counted && s->max_instances > 1 && !strcmp(p ? p->family : s->name, family))
			return true;
	}
	return false;
}

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == n && !strncmp(p, name, n))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static void set_identifier(struct pm_ctx *ctx, const char *family, const char *compat)
{
	for (size_t i = 0; compat && i < ctx->n_pmus; i++) {
		struct pm_pmu *p = ctx->pmus[i];

		if (!strcmp(p->family, family) && !p->identifier)
			p->identifier = strdup(
				compat); /* NULL on ENOMEM: the pack's events skip it */
	}
}

bool pm_replay__pack_matches(struct pm_ctx *ctx, const char *pack, bool has_match,
			     const char *family, const char *compat)
{
	const char *forced = ctx->replay->packs;
	bool match;

	if (!has_match) /* the kernel's driver traits: always */
		return true;
	if (!family) /* matched by CPUID alone (merrifield): only when named */
		return forced && in_list(forced, pack);
	/* the machine is elsewhere: neither its CPUID nor its sysfs identifier is known */
	match = forced ? in_list(forced, pack) : family && have_family(ctx, family);
	if (match && family)
		set_identifier(ctx, family, compat);
	return match;
}

int pm_replay__need_family(struct pm_ctx *ctx, const char *family, const char *compat)
{
	int r = 0;

	if (!have_family(ctx, family))
		r = add_pmu(ctx, family);
	if (r == 0)
		set_identifier(ctx, family, compat);
	return r;
}

/* ---- events --------------------------------------------------------------------------------------- */

/* perf's generic event names resolve without a PMU. */
static bool is_generic(const char *name)
{
	const char *kind, *g;

	for (size_t i = 0; (g = pm_generic_event(i, &kind)); i++)
		if (!strcmp(g, name))
			return true;
	return false;
}

/* "event=0x07,umask=0x38" and "umask=0x38,event=0x7" are the same event. */
static bool same_terms(const char *a, const char *b)
{
	size_t na = 0, nb = 0;

	for (const char *p = a; *p; p++)
		na += *p == ',';
	for (const char *p = b; *p; p++)
		nb += *p == ',';
	if (na != nb || !strchr(a, '='))
		return false;
	for (const char *p = a; *p;) {
		size_t l = strcspn(p, ","), kl = strcspn(p, "=");
		bool found = false;
		uint64_t va, vb;

		if (kl >= l || pm_parse_u64(p + kl + 1, l - kl - 1, 0, &va) < 0)
			return false;
		for (const char *q = b; *q && !found;) {
			size_t m = strcspn(q, ","), km = strcspn(q, "=");

			found = km == kl && km < m && !strncmp(p, q, kl) &&
				pm_parse_u64(q + km + 1, m - km - 1, 0, &vb) == 0 && va == vb;
			q += m + (q[m] == ',');
		}
		if (!found)
			return false;
		p += l + (p[l] == ',');
	}
	return true;
}

/* A pack alias of the family that names this event: by name, or by the same terms. */
static const struct pm_alias *family_alias(struct pm_ctx *ctx, const char *family, const char *what)
{
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		const struct pm_alias *a;

		if (strcmp(p->family, family) != 0)
			continue;
		a = pm_pmu__find_alias(p, what);
		if (a)
			return a;
		for (size_t k = 0; k < p->n_aliases; k++)
			if (same_terms(what, p->aliases[k].terms))
				return &p->aliases[k];
	}
	return NULL;
}

/* The family of a bare name some pack's PMU has ("dram_channel_data_controller_4"). */
static const char *alias_family(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (pm_pmu__find_alias(ctx->pmus[i], name))
			return ctx->pmus[i]->family;
	return NULL;
}

/*
 * How metrics name an event, "family/alias/" where a pack alias matches
 * (so amd_df/event=0x7,umask=0x38/ is dram_channel_data_controller_0), and
 * the alias for its scale and unit.
 */
static int canonical(struct pm_ctx *ctx, const char *name, const char *family, char **ret_spec,
		     const struct pm_alias **ret_alias)
{
	const struct pm_alias *a = NULL;
	char *spec = NULL;

	if (family) {
		const char *slash = strchr(name, '/');
		char terms[512];

		if (slash) {
			size_t n = strcspn(slash + 1, "/");

			snprintf(terms, sizeof(terms), "%.*s", (int)n, slash + 1);
		} else {
			snprintf(terms, sizeof(terms), "%s", name);
		}
		a = family_alias(ctx, family, terms);
		if (a) {
			struct pm_strbuf b = { 0 };

			pm_strbuf__printf(&b, "%s/%s/", family, a->name);
			spec = pm_strbuf__steal(&b);
		} else {
			spec = strdup(name);
		}
	} else {
		spec = strdup(name);
	}
	if (!spec)
		return -ENOMEM;
	*ret_spec = spec;
	*ret_alias = a;
	return 0;
}

/* Does a built-in platform pack (not in use) have an event of this name? A bare name that
 * none has is perf's name= for one of its events, and is kept as printed. */
static bool builtin_has(const char *name)
{
	char quoted[300];
	int n = snprintf(quoted, sizeof(quoted), "\"%s\"", name);

	if (n < 0 || (size_t)n >= sizeof(quoted))
		return false;
	for (size_t i = 0; i < pm_embedded_count; i++) {
		const struct pm_embedded *f = &pm_embedded_files[i];

		if (strncmp(f->path, "kernel/", 7) != 0 && pm_str_has_suffix(f->path, ".json") &&
		    memmem(f->data, f->len, quoted, (size_t)n))
			return true;
	}
	return false;
}

static int unknown_event(struct pm_ctx *ctx, const struct pm_replay_series *s,
			 struct pm_diag *reterr)
{
	const char *packs = pm_db__matched_names(ctx->db);
	struct pm_strbuf all = { 0 };

	for (size_t i = 0; i < pm_embedded_count; i++) {
		const char *path = pm_embedded_files[i].path, *slash = strchr(path, '/');

		if (slash && !strcmp(slash, "/pack.json") && strncmp(path, "kernel/", 7) != 0)
			pm_strbuf__printf(&all, "%s%.*s", all.len ? ", " : "", (int)(slash - path),
					  path);
	}
	pm_diag_set(reterr, "write it as pmu/event/, or ",
		    "%s:%zu: event '%s' names no PMU, and %s%s%s has it", ctx->replay->name,
		    s->line, s->name, packs[0] ? "no pack in use (" : "no pack", packs,
		    packs[0] ? ")" : "");
	pm_diag_reason(reterr, PM_REASON_NEEDS_PACK, NULL, all.s ? all.s : "none");
	pm_strbuf__done(&all);
	return -ENOENT;
}

/* Unit and scale of an event: its pack alias, perf's clocks, the file's own. */
static int event_unit(struct pm_event *ev, const struct pm_alias *a,
		      const struct pm_replay_series *s)
{
	const char *unit = s->unit;

	ev->scale = 1.0;
	if (a) {
		ev->scale = a->scale;
		unit = a->unit ? a->unit : "";
	} else if (s->scale > 0 && !strcmp(s->unit, "msec") && fabs(s->scale / 1e-6 - 1) < 1e-9) {
		/* value / raw of a clock in msec is perf's 1e-6 but for rounding: that, so that
		 * every value computed again is the one printed */
		ev->scale = 1e-6;
	} else if (s->scale > 0) {
		ev->scale = s->scale; /* pmumon CSV: value / raw */
	} else if (!strcmp(s->unit, "msec")) {
		/* perf shows the clocks' ns in msec (facts §9), also under a name= of theirs */
		ev->scale = 1e-6;
	} else if (s->unit[0]) {
		ev->scale = 1e-9; /* a unit whose scale only the counting machine knew */
	}
	if (unit[0]) {
		ev->unit = strdup(unit);
		if (!ev->unit)
			return -ENOMEM;
	}
	return 0;
}

/* The family of a series' event: its PMU's, or the pack family a bare name is an alias of
 * (NULL: none). */
static const char *series_family(struct pm_ctx *ctx, const struct pm_replay_series *s)
{
	if (s->pmu)
		return find_pmu(ctx, s->pmu)->family;
	if (!is_generic(s->name) && !strchr(s->name, ':'))
		return alias_family(ctx, s->name);
	return NULL;
}

/*
 * Series i's event, on every place its name (and repeat and cgroup) was counted, added to
 * l, unless it is in l already or never counted: 0 or -errno.
 */
static int add_recorded_series(struct pm_evlist *l, size_t i, struct pm_diag *reterr)
{
	struct pm_ctx *ctx = l->ctx;
	struct pm_replay *rp = ctx->replay;
	struct pm_replay_series *s = &rp->series[i];
	const char *family = NULL;
	const struct pm_alias *a = NULL;
	struct pm_event *ev;
	char *spec = NULL;
	size_t n_inst = 0;
	int r;

	if (s->event != SIZE_MAX || !s->counted)
		return 0;
	family = series_family(ctx, s);
	if (!family && !s->pmu && !is_generic(s->name) && !strchr(s->name, ':') &&
	    builtin_has(s->name))
		return unknown_event(ctx, s, reterr);
	r = canonical(ctx, s->name, family, &spec, &a);
	if (r == 0)
		r = pm_grow((void **)&l->ev, &l->cap_ev, l->n_ev + 1, sizeof(*l->ev));
	if (r < 0) {
		free(spec);
		return r;
	}
	ev = &l->ev[l->n_ev];
	*ev = (struct pm_event){ .label = strdup(s->name),
				 .spec = spec,
				 .cgroup = pm_strdup0(s->cgroup),
				 .group = -1,
				 .first_inst = l->n_inst,
				 .per_pkg = a && a->per_pkg };
	l->n_ev++;
	if (!ev->label || (s->cgroup && !ev->cgroup))
		return -ENOMEM;
	r = event_unit(ev, a, s);
	/* its instances: the PMUs its series name, each once; a repeat, or its rows in
	 * another cgroup: an event */
	for (size_t j = i; j < rp->n_series && r == 0; j++) {
		struct pm_replay_series *o = &rp->series[j];
		const char *dev = o->pmu ? o->pmu : family ? family : "cpu";
		struct pm_evinst *in = NULL;

		if (o->event != SIZE_MAX || !o->counted || o->repeat != s->repeat ||
		    strcmp(o->name, s->name) != 0 ||
		    strcmp(o->cgroup ? o->cgroup : "", s->cgroup ? s->cgroup : "") != 0)
			continue;
		o->event = l->n_ev - 1;
		for (size_t k = ev->first_inst; k < l->n_inst && !in; k++)
			if (!strcmp(l->inst[k].device, dev))
				in = &l->inst[k];
		if (in) {
			o->inst = (size_t)(in - l->inst);
			continue;
		}
		/* a merged or bare name counts on its family's own PMU */
		if (family && !o->pmu)
			r = add_pmu(ctx, family);
		if (r == 0)
			r = pm_grow((void **)&l->inst, &l->cap_inst, l->n_inst + 1,
				    sizeof(*l->inst));
		if (r < 0)
			break;
		in = &l->inst[l->n_inst];
		*in = (struct pm_evinst){ .event = l->n_ev - 1 };
		in->pmu = family ? find_pmu(ctx, dev) : NULL;
		in->device = in->pmu ? in->pmu->name : "cpu";
		o->inst = l->n_inst++;
		n_inst++;
	}
	l->ev[l->n_ev - 1].n_inst = n_inst;
	return r;
}

int pm_evlist__add_recorded(struct pm_evlist *l, struct pm_diag *reterr)
{
	struct pm_ctx *ctx = l ? l->ctx : NULL;
	struct pm_replay *rp = ctx ? ctx->replay : NULL;
	int r = 0;

	pm_diag__init(reterr);
	if (!rp)
		return -EINVAL;
	for (size_t i = 0; i < rp->n_series && r == 0; i++)
		r = add_recorded_series(l, i, reterr);
	return r;
}

int pm_evlist__add_recorded_event(struct pm_evlist *l, const char *name, struct pm_diag *reterr)
{
	struct pm_ctx *ctx = l ? l->ctx : NULL;
	struct pm_replay *rp = ctx ? ctx->replay : NULL;
	bool found = false;
	int r = 0;

	pm_diag__init(reterr);
	if (!rp || !name)
		return -EINVAL;
	for (size_t i = 0; i < rp->n_series && r == 0; i++) {
		if (strcmp(rp->series[i].printed, name) != 0 || !rp->series[i].counted)
			continue;
		found = true;
		r = add_recorded_series(l, i, reterr);
	}
	if (r == 0 && !found) {
		pm_diag_set(reterr, NULL, "%s has no counts of %s", rp->name, name);
		r = -ENOENT;
	}
	return r;
}

/* A recorded event whose canonical name is canon, added to l for a metric that reads it:
 * its index, or SIZE_MAX when the recording has none (or on failure). */
static size_t add_recorded_for(struct pm_evlist *l, const char *canon)
{
	struct pm_ctx *ctx = l->ctx;
	struct pm_replay *rp = ctx->replay;
	struct pm_diag d;

	for (size_t i = 0; i < rp->n_series; i++) {
		struct pm_replay_series *s = &rp->series[i];
		const struct pm_alias *a = NULL;
		char *spec = NULL;
		bool same;

		if (s->event != SIZE_MAX || !s->counted || s->repeat || s->cgroup)
			continue;
		if (canonical(ctx, s->name, series_family(ctx, s), &spec, &a) < 0)
			return SIZE_MAX;
		same = !strcmp(spec, canon) || !strcmp(s->name, canon);
		free(spec);
		if (same)
			return add_recorded_series(l, i, &d) == 0 && s->event != SIZE_MAX ?
				       s->event :
				       SIZE_MAX;
	}
	return SIZE_MAX;
}

/* The recording's PMU instance a metric's "pmu/terms/" names: itself, or perf's name
 * without "uncore_" (cha_0 for uncore_cha_0); NULL when it names a family or nothing. */
static const struct pm_pmu *named_instance(struct pm_ctx *ctx, const char *spec)
{
	size_t n = strcspn(spec, "/");
	char name[128];
	const struct pm_pmu *p;

	if (!spec[n] || n + sizeof("uncore_") > sizeof(name))
		return NULL;
	snprintf(name, sizeof(name), "%.*s", (int)n, spec);
	p = find_pmu(ctx, name);
	if (!p) {
		snprintf(name, sizeof(name), "uncore_%.*s", (int)n, spec);
		p = find_pmu(ctx, name);
	}
	return p && strcmp(p->name, p->family) != 0 ? p : NULL;
}

/* A recorded event of l by its canonical name: its index, or SIZE_MAX. */
static size_t recorded_event(const struct pm_evlist *l, const char *canon)
{
	for (size_t e = 0; e < l->n_ev; e++)
		if (!strcmp(l->ev[e].spec, canon) || !strcmp(l->ev[e].label, canon))
			return e;
	return SIZE_MAX;
}

/*
 * A metric's event on one PMU instance (ali_drw_21000@hif_rd@, cha_0@event\=0x0@): an
 * event of its own on that instance alone, fed the counts of the recorded event's series
 * there, as perf counts it on that PMU only. 1: bound, 0: not an instance the recording
 * has counts of, or -errno.
 */
static int bind_instance(struct pm_evlist *l, const char *spec, size_t *ret_event)
{
	struct pm_ctx *ctx = l->ctx;
	struct pm_replay *rp = ctx->replay;
	const struct pm_pmu *p = named_instance(ctx, spec);
	const struct pm_alias *a = NULL;
	struct pm_strbuf fam = { 0 };
	char *canon = NULL;
	size_t e, ne;
	int r;

	if (!p)
		return 0;
	pm_strbuf__printf(&fam, "%s%s", p->family, spec + strcspn(spec, "/"));
	r = fam.oom ? -ENOMEM : canonical(ctx, fam.s, p->family, &canon, &a);
	pm_strbuf__done(&fam);
	if (r < 0)
		return r;
	e = recorded_event(l, canon);
	free(canon);
	if (e == SIZE_MAX)
		return 0;
	r = pm_grow((void **)&l->ev, &l->cap_ev, l->n_ev + 1, sizeof(*l->ev));
	if (r == 0)
		r = pm_grow((void **)&l->inst, &l->cap_inst, l->n_inst + 1, sizeof(*l->inst));
	if (r < 0)
		return r;
	ne = l->n_ev++;
	l->ev[ne] = (struct pm_event){ .label = strdup(spec),
				       .spec = strdup(spec),
				       .unit = pm_strdup0(l->ev[e].unit),
				       .scale = l->ev[e].scale,
				       .per_pkg = l->ev[e].per_pkg,
				       .group = -1,
				       .first_inst = l->n_inst,
				       .n_inst = 1 };
	l->inst[l->n_inst] = (struct pm_evinst){ .event = ne, .pmu = p, .device = p->name };
	if (!l->ev[ne].label || !l->ev[ne].spec || (l->ev[e].unit && !l->ev[ne].unit))
		return -ENOMEM;
	for (size_t i = 0; i < rp->n_series; i++) {
		struct pm_replay_series *s = &rp->series[i];

		if (s->event == e && s->pmu && !strcmp(s->pmu, p->name)) {
			s->q_event = ne;
			s->q_inst = l->n_inst;
		}
	}
	l->n_inst++;
	*ret_event = ne;
	return 1;
}

/* A metric names an event: the recording's (by its canonical name), or an empty one. */
int pm_replay__bind(struct pm_evlist *l, const char *spec, size_t *ret_event)
{
	struct pm_ctx *ctx = l->ctx;
	const struct pm_alias *a = NULL;
	const char *slash = strchr(spec, '/');
	char family[128] = "", *canon = NULL;
	struct pm_event *ev;
	int r;

	r = bind_instance(l, spec, ret_event);
	if (r != 0)
		return r < 0 ? r : 0;
	if (slash)
		snprintf(family, sizeof(family), "%.*s", (int)(slash - spec), spec);
	r = canonical(ctx, spec, family[0] ? family : NULL, &canon, &a);
	if (r < 0)
		return r;
	for (size_t e = 0; e < l->n_ev; e++) {
		if (!strcmp(l->ev[e].spec, canon) || !strcmp(l->ev[e].label, canon)) {
			free(canon);
			*ret_event = e;
			return 0;
		}
	}
	/* not in the list: the recording's own, when it has counts of it */
	*ret_event = add_recorded_for(l, canon);
	if (*ret_event != SIZE_MAX) {
		free(canon);
		return 0;
	}
	pm_log(ctx, PM_LOG_WARN,
	       "%s has no counts of %s, which a metric needs: the metric is not counted",
	       ctx->replay->name, canon);
	r = pm_grow((void **)&l->ev, &l->cap_ev, l->n_ev + 1, sizeof(*l->ev));
	if (r < 0) {
		free(canon);
		return r;
	}
	ev = &l->ev[l->n_ev];
	*ev = (struct pm_event){ .label = strdup(spec),
				 .spec = canon,
				 .scale = 1.0,
				 .group = -1,
				 .first_inst = l->n_inst };
	l->n_ev++;
	if (!ev->label)
		return -ENOMEM;
	*ret_event = l->n_ev - 1;
	return 0;
}

/* ---- counting ------------------------------------------------------------------------------------- */

int pm_replay__plan(struct pm_session *s, struct pm_diag *reterr)
{
	struct pm_replay *rp = s->ctx->replay;
	int r;

	(void)reterr;
	r = pm_cpus__copy(&s->ctx->topo->online, &s->cpus);
	for (size_t i = 0; i < rp->n_series && r == 0; i++) {
		struct pm_replay_series *se = &rp->series[i];
		struct pm_counter *c;

		se->counter = se->q_counter = SIZE_MAX;
		if (se->event == SIZE_MAX || se->event >= s->l->n_ev)
			continue;
		r = pm_grow((void **)&s->c, &s->cap_c, s->n_c + 1, sizeof(*s->c));
		if (r < 0)
			break;
		c = &s->c[s->n_c];
		*c = (struct pm_counter){ .source = PM_SRC_REPLAY,
					  .inst = se->inst,
					  .event = se->event,
					  .cpu = se->topo_cpu,
					  .fd = -1,
					  .leader = s->n_c };
		/* the row stands for as many instances as the recording said it did */
		c->rec_instances = se->max_instances;
		se->counter = s->n_c++;
		se->q_counter = SIZE_MAX;
		if (se->q_event == SIZE_MAX || se->q_event >= s->l->n_ev)
			continue;
		/* the same counts again, as a metric's event on this instance alone */
		r = pm_grow((void **)&s->c, &s->cap_c, s->n_c + 1, sizeof(*s->c));
		if (r < 0)
			break;
		s->c[s->n_c] = s->c[se->counter];
		s->c[s->n_c].inst = se->q_inst;
		s->c[s->n_c].event = se->q_event;
		s->c[s->n_c].leader = s->n_c;
		se->q_counter = s->n_c++;
	}
	return r;
}

static int replay_open(struct pm_session *s, struct pm_diag *reterr)
{
	struct pm_replay *rp = s->ctx->replay;

	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_REPLAY) {
			s->c[k].open = true; /* its counts are in the recording */
			s->c[k].est_given = false;
			s->c[k].est_tot = (struct pm_estimate){ 0 };
		}
	if (!rp)
		return 0;
	rp->next = 0;
	rp->now_ns = rp->start_ns; /* 0, but where a feed's window starts later */
	rp->wall_ns = 0;
	if (rp->first.wall_ns && rp->intervals)
		rp->wall_ns = rp->first.wall_ns -
			      PM_MIN(rp->first.wall_ns, rp->first.t_ns - rp->start_ns);
	if (pm_replay__rewind(rp) < 0) {
		const struct pm_diag *why = pm_replay__play_error(rp);

		pm_diag_set(reterr, why->hint[0] ? why->hint : NULL, "%s", why->msg);
		return -EIO;
	}
	return 0;
}

static int replay_nop(struct pm_session *s)
{
	(void)s;
	return 0;
}

/* The count to add: raw where the file gives it (and it was not scaled), else from the value. */
static struct pm_reading delta_of(const struct pm_event *ev, const struct pm_replay_val *v,
				  uint64_t duration_ns)
{
	struct pm_reading d = { 0 };

	if (v->have & PM_RV_TIMES) {
		d.ena = v->ena;
		d.run = v->run;
	} else {
		d.ena = d.run = duration_ns ? duration_ns : 1; /* a count that ran throughout */
	}
	if (v->not_counted) {
		/* enabled for what the file says: perf's 0 ns at 100.00% is a counter never
		 * enabled (a cgroup that did not run on that CPU, whose times stand still),
		 * which adds nothing to a total; where it says nothing (perf's 0.00%), the
		 * sample's length */
		d.run = 0;
		return d;
	}
	if ((v->have & PM_RV_RAW) && (d.run == d.ena || !(v->have & PM_RV_VALUE)))
		d.val = v->raw;
	else if (v->have & PM_RV_VALUE) {
		/* perf prints count x enabled / running x scale: undo both */
		double raw = v->value / ev->scale;

		if (d.run && d.run < d.ena)
			raw = raw * (double)d.run / (double)d.ena;
		d.val = raw > 0 ? (uint64_t)llround(raw) : 0;
	}
	return d;
}

/*
 * A recording's interval of a value (a feed's: docs/bounds.md), played as the estimate it
 * was: the count, its half-width and what was counted, in counts, and how it was found;
 * the run's adds the intervals' up (no independence assumed). Rows and metrics made of
 * it have the intervals stat gave them.
 */
static void recorded_estimate(struct pm_counter *c, const struct pm_event *ev,
			      const struct pm_replay_val *v, const struct pm_reading *d)
{
	struct pm_estimate e = { .count = pm_counts__scale(d->val, d->ena, d->run),
				 .seen = (double)d->val,
				 .half = d->run < d->ena ? NAN : 0,
				 .bound = d->run < d->ena ? PM_BOUND_UNMEASURED : PM_BOUND_EXACT };
	struct pm_estimate *tot = &c->est_tot;
	double h;

	if (!d->run)
		return; /* not counted: no estimate */
	if (v->bounded && (v->have & PM_RV_VALUE) && v->bound != PM_BOUND_EXACT) {
		e.count = v->value / ev->scale;
		h = isfinite(v->hi) ? v->hi - v->value : v->value - v->lo;
		e.half = isfinite(h) ? fabs(h) / ev->scale : NAN;
		e.bound = v->bound;
		if (v->have & PM_RV_RAW)
			e.seen = (double)v->raw;
	}
	c->est_given = v->bounded;
	c->est_iv = e;
	tot->count += e.count;
	tot->half += e.half;
	tot->seen += e.seen;
	tot->bound = PM_MAX(tot->bound, e.bound);
}

static int replay_read(struct pm_session *s)
{
	struct pm_replay *rp = s->ctx->replay;
	uint64_t duration;
	int r;

	if (!rp)
		return 0;
	r = pm_replay__next_sample(rp);
	if (r == -EINVAL) {
		const struct pm_diag *why = pm_replay__play_error(rp);

		pm_session__fail(s, why->hint, "%s", why->msg);
		return -EIO;
	}
	if (r < 0)
		return r;
	duration = rp->cur.t_ns - PM_MIN(rp->now_ns, rp->cur.t_ns);
	for (size_t i = 0; i < rp->n_series; i++) {
		const struct pm_replay_series *se = &rp->series[i];
		const struct pm_replay_val *v = &rp->vals[i];
		struct pm_counter *c;
		struct pm_reading d;

		if (se->counter == SIZE_MAX || (!v->have && !v->not_counted))
			continue;
		for (int k = 0; k < 2; k++) {
			size_t at = k ? se->q_counter : se->counter;

			if (at == SIZE_MAX)
				continue;
			c = &s->c[at];
			pm_counter__raise(c, v->quality);
			c->rec_covered = v->instances ? v->covered : c->rec_instances;
			d = delta_of(&s->l->ev[c->event], v, duration);
			recorded_estimate(c, &s->l->ev[c->event], v, &d);
			c->cur.val += d.val;
			c->cur.ena += d.ena;
			c->cur.run += d.run;
		}
	}
	rp->now_ns = rp->cur.t_ns;
	rp->wall_ns = rp->cur.wall_ns;
	rp->next++;
	return 0;
}

static void replay_close(struct pm_session *s)
{
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_REPLAY)
			s->c[k].open = false;
}

/* Its counters are the recording's series (pm_replay__plan), never claimed. */
const struct pm_source_ops pm_source_replay = {
	.origin = PM_SOURCE_RECORDED,
	.cgroups = true,	   /* the recording's rows per cgroup */
	.device_per_socket = true, /* a row's socket is the one it was recorded on */
	.discover = pm_replay__discover,
	.plan = pm_replay__plan,
	.open = replay_open,
	.enable = replay_nop,
	.disable = replay_nop,
	.read = replay_read,
	.close = replay_close,
};
