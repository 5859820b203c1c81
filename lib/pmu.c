// SPDX-License-Identifier: GPL-2.0-only
#include "pmu.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "pmumon/pmumon.h"
#include "util/util.h"

size_t pm_pmu_family_len(const char *name)
{
	size_t orig = strlen(name), len = orig;
	bool hex = false;

	while (len > 0 && isxdigit((unsigned char)name[len - 1])) {
		if (!isdigit((unsigned char)name[len - 1]))
			hex = true;
		len--;
	}
	if (len > 0 && len != orig && name[len - 1] == '_' && (!hex || orig - len > 2))
		return len - 1;
	return orig;
}

int pm_pmu__new(const char *name, struct pm_pmu **ret)
{
	struct pm_pmu *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->mux_interval_ms = -1;
	p->own_counters = p->own_width = -1;
	p->place = (struct pm_pmu_place){ .die = -1, .channel = -1, .subchannel = -1 };
	p->name = strdup(name);
	p->family = strndup(name, pm_pmu_family_len(name));
	if (!p->name || !p->family) {
		pm_pmu__free(p);
		return -ENOMEM;
	}
	*ret = p;
	return 0;
}

void pm_pmu__free(struct pm_pmu *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_formats; i++) {
		free(p->formats[i].name);
		free(p->formats[i].text);
	}
	for (size_t i = 0; i < p->n_aliases; i++) {
		free(p->aliases[i].name);
		free(p->aliases[i].terms);
		free(p->aliases[i].desc);
		free(p->aliases[i].unit);
	}
	free(p->formats);
	free(p->aliases);
	free(p->alias_slots);
	pm_cpus__done(&p->cpus);
	if (p->priv_free)
		p->priv_free(p->priv);
	free(p->identifier);
	free(p->name);
	free(p->family);
	free(p);
}

const struct pm_format_entry *pm_pmu__find_format(const struct pm_pmu *p, const char *name)
{
	for (size_t i = 0; i < p->n_formats; i++)
		if (!strcmp(p->formats[i].name, name))
			return &p->formats[i];
	return NULL;
}

/* FNV-1a of the name lowercased: names match case-insensitively */
static uint32_t alias_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint32_t)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

/* Index alias i (a name already there keeps its first alias, as the search finds it). */
static void alias_index_put(struct pm_pmu *p, size_t i)
{
	size_t mask = p->n_alias_slots - 1, s = alias_hash(p->aliases[i].name) & mask;

	for (; p->alias_slots[s]; s = (s + 1) & mask)
		if (!strcasecmp(p->aliases[p->alias_slots[s] - 1].name, p->aliases[i].name))
			return;
	p->alias_slots[s] = (uint32_t)i + 1;
}

/* Index the aliases added so far, into a table at most half full. */
static void alias_index(struct pm_pmu *p)
{
	size_t want = 64;

	if (p->n_alias_indexed + 1 != p->n_aliases || p->n_aliases > UINT32_MAX / 4)
		return; /* aliases not added by add_alias: the search walks them all */
	while (want < 2 * p->n_aliases)
		want *= 2;
	if (want != p->n_alias_slots) {
		uint32_t *slots = calloc(want, sizeof(*slots));

		if (!slots)
			return; /* the search walks them all */
		free(p->alias_slots);
		p->alias_slots = slots;
		p->n_alias_slots = want;
		for (size_t i = 0; i + 1 < p->n_aliases; i++)
			alias_index_put(p, i);
	}
	alias_index_put(p, p->n_aliases - 1);
	p->n_alias_indexed = p->n_aliases;
}

const struct pm_alias *pm_pmu__find_alias(const struct pm_pmu *p, const char *name)
{
	if (p->n_alias_slots && p->n_alias_indexed == p->n_aliases) {
		size_t mask = p->n_alias_slots - 1, s = alias_hash(name) & mask;

		for (; p->alias_slots[s]; s = (s + 1) & mask)
			if (!strcasecmp(p->aliases[p->alias_slots[s] - 1].name, name))
				return &p->aliases[p->alias_slots[s] - 1];
		return NULL;
	}
	/* perf matches event names case-insensitively (pmu-events are lowercased) */
	for (size_t i = 0; i < p->n_aliases; i++)
		if (!strcasecmp(p->aliases[i].name, name))
			return &p->aliases[i];
	return NULL;
}

int pm_pmu__add_format(struct pm_pmu *p, const char *name, const char *text,
		       const struct pm_format *f)
{
	struct pm_format_entry *e;
	int r;

	r = pm_grow((void **)&p->formats, &p->cap_formats, p->n_formats + 1, sizeof(*e));
	if (r < 0)
		return r;
	e = &p->formats[p->n_formats];
	e->name = strdup(name);
	e->text = strdup(text);
	if (!e->name || !e->text) {
		free(e->name);
		free(e->text);
		return -ENOMEM;
	}
	e->f = *f;
	p->n_formats++;
	return 0;
}

int pm_pmu__add_format_text(struct pm_pmu *p, const char *name, const char *text)
{
	struct pm_format f;
	size_t col;
	int r = pm_format__parse(text, strlen(text), &f, &col);

	return r < 0 ? r : pm_pmu__add_format(p, name, text, &f);
}

int pm_pmu__add_alias(struct pm_pmu *p, const struct pm_alias *a)
{
	struct pm_alias *e;
	int r;

	r = pm_grow((void **)&p->aliases, &p->cap_aliases, p->n_aliases + 1, sizeof(*e));
	if (r < 0)
		return r;
	e = &p->aliases[p->n_aliases];
	*e = *a;
	e->name = strdup(a->name);
	e->terms = strdup(a->terms);
	e->desc = pm_strdup0(a->desc);
	e->unit = pm_strdup0(a->unit);
	if (!e->name || !e->terms || (a->desc && !e->desc) || (a->unit && !e->unit)) {
		free(e->name);
		free(e->terms);
		free(e->desc);
		free(e->unit);
		return -ENOMEM;
	}
	p->n_aliases++;
	alias_index(p);
	return 0;
}

/* "uncore_cha_0" -> "cha_0": the prefix perf's PMU matching leaves out. */
static const char *no_uncore(const char *name)
{
	return pm_str_has_prefix(name, "uncore_") ? name + 7 : name;
}

bool pm_pmu__matches(const struct pm_pmu *p, const char *pattern)
{
	/*
	 * perf's perf_pmu__wildcard_match (tools/perf/util/pmu.c) drops an
	 * "uncore_" prefix on both sides: cha_0 names uncore_cha_0, cha every
	 * uncore_cha_N, as perf's metrics write them (cha_0@event\=0x0@)
	 */
	const char *name = no_uncore(p->name), *family = no_uncore(p->family);
	const char *want = no_uncore(pattern);

	if (!strcmp(name, want) || !strcmp(family, want))
		return true;
	return strpbrk(pattern, "*?[") &&
	       (fnmatch(pattern, p->name, 0) == 0 || fnmatch(want, name, 0) == 0);
}

/* ---- public getters ------------------------------------------------------- */

const char *pm_pmu__name(const struct pm_pmu *p)
{
	return p->name;
}

const char *pm_pmu__family(const struct pm_pmu *p)
{
	return p->family;
}

uint32_t pm_pmu__type(const struct pm_pmu *p)
{
	return p->type;
}

const char *pm_pmu__source(const struct pm_pmu *p)
{
	return p->source_name ? p->source_name : pm_source_name(p->source);
}

int pm_pmu__cpus(const struct pm_pmu *p, char *buf, size_t size)
{
	return pm_cpus__format(&p->cpus, buf, size);
}

int pm_pmu__cpu_count(const struct pm_pmu *p)
{
	return (int)p->cpus.n;
}

int pm_pmu__counters(const struct pm_pmu *p)
{
	if (p->own_counters >= 0)
		return p->own_counters;
	return p->traits ? p->traits->counters : -1;
}

int pm_pmu__fixed_counters(const struct pm_pmu *p)
{
	return p->traits ? p->traits->fixed_counters : 0;
}

int pm_pmu__counter_width(const struct pm_pmu *p)
{
	if (p->own_width >= 0)
		return p->own_width;
	return p->traits ? p->traits->width : 0;
}

const char *pm_pmu__identifier(const struct pm_pmu *p)
{
	return p->identifier;
}

int pm_pmu__mux_interval_ms(const struct pm_pmu *p)
{
	return p->mux_interval_ms;
}

const char *pm_pmu__traits_source(const struct pm_pmu *p)
{
	return p->traits ? p->traits->pack : NULL;
}

size_t pm_pmu__format_count(const struct pm_pmu *p)
{
	return p->n_formats;
}

int pm_pmu__format(const struct pm_pmu *p, size_t i, const char **ret_name, const char **ret_spec)
{
	if (i >= p->n_formats)
		return -ERANGE;
	*ret_name = p->formats[i].name;
	*ret_spec = p->formats[i].text;
	return 0;
}

size_t pm_pmu__alias_count(const struct pm_pmu *p)
{
	return p->n_aliases;
}

const struct pm_alias *pm_pmu__alias(const struct pm_pmu *p, size_t i)
{
	return i < p->n_aliases ? &p->aliases[i] : NULL;
}

const char *pm_alias__name(const struct pm_alias *a)
{
	return a->name;
}

const char *pm_alias__terms(const struct pm_alias *a)
{
	return a->terms;
}

const char *pm_alias__desc(const struct pm_alias *a)
{
	return a->desc;
}

const char *pm_alias__unit(const struct pm_alias *a)
{
	return a->unit;
}

double pm_alias__scale(const struct pm_alias *a)
{
	return a->scale;
}

bool pm_alias__per_pkg(const struct pm_alias *a)
{
	return a->per_pkg;
}

bool pm_alias__snapshot(const struct pm_alias *a)
{
	return a->snapshot;
}

const char *pm_alias__origin(const struct pm_alias *a)
{
	return a->origin;
}

bool pm_pmu__is_core(const struct pm_pmu *p)
{
	return !strcmp(p->name, "cpu") || !strcmp(p->name, "cpum_cf") ||
	       (!p->uncore && p->cpus.n > 0);
}
