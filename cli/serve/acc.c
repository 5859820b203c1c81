// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve's counters: the amounts since serve started, for every sample
 * whether or not anyone scrapes it (Prometheus keeps one sample per scrape;
 * a counter loses nothing between two). The sampler thread hands each
 * sample to expo_acc_add and publishes the counts it gets as an immutable
 * expo_counts beside the sample, which the HTTP threads render.
 *
 * An amount is taken from the counting's totals, not summed from its
 * intervals: a rotated event may not run at all in a short interval (12
 * DF events on 4 counters in 100 ms phases, read every 200 ms), and an
 * interval without a value would add nothing where the counter must hold
 * an estimate; the totals scale the whole count by the whole enabled over
 * running time, as perf does for a run. A rate's amount is its totals'
 * value x their duration, a ratio's parts the totals' parts.
 *
 * The counts belong to series, not to a counting's rows: a series is its
 * family and labels, and goes on from where it was when a reload, a
 * device's return or --max-series builds the counting again (whose totals
 * start at 0). So a counter never restarts from zero while serve runs, and
 * never goes down: when an estimate drops (a running share changed, a
 * difference of multiplexed counts), what is shown stays until the
 * estimate passes it again (counted in pmumon_estimates_held_total).
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

#define PM_MAX_U64(a, b) ((a) > (b) ? (a) : (b))

/* One series: what its counters show (never less than before), and what they showed
 * when the current counting began (its totals add to that). */
struct entry {
	char *key; /* family NUL-separated from labels */
	struct expo_count base, shown;
};

struct expo_acc {
	struct entry *e;
	size_t n, cap;
	size_t *slot; /* open addressing: entry index + 1, 0 empty */
	size_t n_slot;
	struct expo_plan *plan; /* of the current counting, built on its first sample */
	size_t *entry_of;	/* per plan row */
	uint64_t held;
	uint64_t sampled_ns;
};

int expo_acc_new(struct expo_acc **ret)
{
	struct expo_acc *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	*ret = a;
	return 0;
}

void expo_acc_restart(struct expo_acc *a)
{
	expo_plan_unref(a->plan);
	a->plan = NULL;
	free(a->entry_of);
	a->entry_of = NULL;
}

void expo_acc_free(struct expo_acc *a)
{
	if (!a)
		return;
	expo_acc_restart(a);
	for (size_t i = 0; i < a->n; i++)
		free(a->e[i].key);
	free(a->e);
	free(a->slot);
	free(a);
}

/* FNV-1a over the key's two strings. */
static uint64_t hash(const char *fam, const char *labels)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *s = fam; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *s = labels; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool same_key(const char *key, const char *fam, const char *labels)
{
	size_t n = strlen(fam);

	return !strncmp(key, fam, n) && key[n] == '\0' && !strcmp(key + n + 1, labels);
}

/* The table doubled when half full: 0 or -ENOMEM. */
static int rehash(struct expo_acc *a)
{
	size_t n = a->n_slot ? 2 * a->n_slot : 64;
	size_t *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		const char *fam = a->e[i].key;
		size_t h = (size_t)hash(fam, fam + strlen(fam) + 1) & (n - 1);

		while (slot[h])
			h = (h + 1) & (n - 1);
		slot[h] = i + 1;
	}
	free(a->slot);
	a->slot = slot;
	a->n_slot = n;
	return 0;
}

/* The entry of series (fam, labels), made the first time: its index, or -ENOMEM. */
static long entry(struct expo_acc *a, const char *fam, const char *labels)
{
	size_t h, nf = strlen(fam), nl = strlen(labels);
	struct entry *e;

	if (2 * (a->n + 1) > a->n_slot && rehash(a) < 0)
		return -ENOMEM;
	for (h = (size_t)hash(fam, labels) & (a->n_slot - 1); a->slot[h];
	     h = (h + 1) & (a->n_slot - 1))
		if (same_key(a->e[a->slot[h] - 1].key, fam, labels))
			return (long)(a->slot[h] - 1);
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;

		e = realloc(a->e, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		a->e = e;
		a->cap = cap;
	}
	e = &a->e[a->n];
	*e = (struct entry){ .key = malloc(nf + nl + 2) };
	if (!e->key)
		return -ENOMEM;
	memcpy(e->key, fam, nf + 1);
	memcpy(e->key + nf + 1, labels, nl + 1);
	a->slot[h] = ++a->n;
	return (long)(a->n - 1);
}

/* The current counting's plan and each row's entry, from its first interval: 0, -ENOMEM. */
static int map_rows(struct expo_acc *a, const struct pm_report *rep, const struct expo_meta *m)
{
	struct expo_plan *p = NULL;
	int r = expo_plan_new(rep, m, &p);

	if (r < 0)
		return r;
	expo_acc_restart(a);
	a->plan = p;
	a->entry_of = calloc(p->n_rows + 1, sizeof(*a->entry_of));
	if (!a->entry_of)
		return -ENOMEM;
	/* a row's series is its family's (a ratio's numerator's) and its labels; its
	 * counters go on from what they show */
	for (size_t i = 0; i < p->n_rows; i++) {
		long e = entry(a, p->fams[p->rows[i].fam].name, p->rows[i].labels);

		if (e < 0)
			return (int)e;
		a->entry_of[i] = (size_t)e;
		a->e[e].base = a->e[e].shown;
	}
	return 0;
}

/* What the counters show of sum: more than before, or as before (held). */
static double shown(struct expo_acc *a, double shown_before, double sum)
{
	if (sum >= shown_before)
		return sum;
	a->held++;
	return shown_before;
}

/* The counting's amount of row t of its totals (over t_s seconds) in base units: a
 * count, a rate's value x time, an amount; NaN when it has none (yet). */
static double amount_of(const struct expo_plan_row *pr, const struct pm_row *t, double t_s)
{
	switch (pr->kind) {
	case EXPO_RATE:
	case EXPO_MEAN:
		return t->value * pr->factor * t_s;
	case EXPO_RATIO:
		return (t->flags & PM_ROW_RATIO) ? t->num * pr->factor : NAN;
	default: /* EXPO_COUNT, EXPO_AMOUNT */
		return t->value * pr->factor;
	}
}

/*
 * An interval in which row r had no value, although its counters were
 * there: its amount did not grow then (not an idle device). Not one in
 * which a rotated event was enabled but not its turn: the totals' scaling
 * covers that time.
 */
static bool uncounted(const struct pm_row *r)
{
	return isnan(r->value) &&
	       !(r->enabled_ns > 0 && r->running_ns == 0 && !(r->flags & PM_ROW_LOST));
}

/* Row i of the sample (r of its interval, t of its totals) into entry e. */
static void add(struct expo_acc *a, const struct expo_plan_row *pr, struct entry *e,
		const struct pm_row *r, const struct pm_row *t, uint64_t dt_ns, double t_s)
{
	double amount = amount_of(pr, t, t_s);

	if (pr->kind == EXPO_VALUE)
		return;
	if (uncounted(r))
		e->shown.uncounted_ns += dt_ns;
	/* of the least running input, which may change: never less than before */
	e->shown.enabled_ns = PM_MAX_U64(e->shown.enabled_ns, e->base.enabled_ns + t->enabled_ns);
	e->shown.running_ns = PM_MAX_U64(e->shown.running_ns, e->base.running_ns + t->running_ns);
	if (isnan(amount))
		return;
	e->shown.amount = shown(a, e->shown.amount, e->base.amount + amount);
	if (pr->kind == EXPO_RATIO)
		e->shown.den = shown(a, e->shown.den, e->base.den + t->den);
	e->shown.seen = true;
}

int expo_acc_add(struct expo_acc *a, const struct pm_report *interval,
		 const struct pm_report *total, const struct expo_meta *m, struct expo_counts **ret)
{
	double t_s = (double)total->duration_ns / 1e9;
	struct expo_counts *c;
	int r;

	if (total->n_rows != interval->n_rows)
		return -EINVAL; /* not one session's two reports */
	if (!a->plan || a->plan->n_rows != interval->n_rows) {
		r = map_rows(a, interval, m);
		if (r < 0) {
			expo_acc_restart(a);
			return r;
		}
	}
	c = malloc(sizeof(*c) + (a->plan->n_rows + 1) * sizeof(c->v[0]));
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < a->plan->n_rows; i++) {
		struct entry *e = &a->e[a->entry_of[i]];

		add(a, &a->plan->rows[i], e, &interval->rows[i], &total->rows[i],
		    interval->duration_ns, t_s);
		c->v[i] = e->shown;
	}
	atomic_init(&c->refs, 1);
	c->plan = expo_plan_ref(a->plan);
	c->n = a->plan->n_rows;
	a->sampled_ns += interval->duration_ns;
	c->held = a->held;
	c->sampled_ns = a->sampled_ns;
	*ret = c;
	return 0;
}

struct expo_counts *expo_counts_ref(struct expo_counts *c)
{
	if (c)
		atomic_fetch_add(&c->refs, 1);
	return c;
}

void expo_counts_unref(struct expo_counts *c)
{
	if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
		return;
	expo_plan_unref(c->plan);
	free(c);
}
