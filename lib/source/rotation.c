// SPDX-License-Identifier: GPL-2.0-only
#include "source/rotation.h"

#include <errno.h>
#include <stdlib.h>

#include "source/counters.h"
#include "util/util.h"

/* t + ns, UINT64_MAX when that is past the end of time (never). */
static uint64_t after(uint64_t t, uint64_t ns)
{
	return ns > UINT64_MAX - t ? UINT64_MAX : t + ns;
}

static unsigned n_free(const struct pm_rotation *r)
{
	return r->ops && r->ops->n_free ? r->ops->n_free(r) :
					  (unsigned)PM_MIN(r->n_ctr, UINT32_MAX);
}

int pm_rotation__add(struct pm_rotation *r, size_t counter)
{
	if (pm_grow((void **)&r->ctr, &r->cap_ctr, r->n_ctr + 1, sizeof(*r->ctr)) < 0)
		return -ENOMEM;
	r->ctr[r->n_ctr++] = counter;
	return 0;
}

void pm_rotation__done(struct pm_rotation *r)
{
	if (!r)
		return;
	free(r->ctr);
	free(r->seen);
	r->ctr = NULL;
	r->seen = NULL;
	r->counters = NULL;
	r->n_ctr = r->cap_ctr = 0;
}

int pm_rotation__track(struct pm_rotation *r, struct pm_counter *c, const struct pm_reading *acc,
		       uint64_t now)
{
	struct pm_reading *seen = calloc(r->n_ctr + 1, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_ctr; i++) {
		struct pm_counter *k = &c[r->ctr[i]];

		pm_track__free(k->track); /* a second enable starts afresh */
		k->track = pm_track__new(PM_TRACK_PHASED, now);
		if (!k->track) {
			free(seen);
			return -ENOMEM;
		}
		if (acc)
			seen[i] = acc[r->ctr[i]];
	}
	free(r->seen);
	r->seen = seen;
	r->counters = c;
	return 0;
}

void pm_rotation__start(struct pm_rotation *r, uint64_t now)
{
	r->first = 0;
	r->t_last = r->t_phase = now;
}

/* The rotation's answers for n free slots: the source is asked once, and
 * a poll passes the answer along (it asks again only after the collect,
 * which may lose a slot to another program). */
static bool rotates_on(const struct pm_rotation *r, unsigned n)
{
	return r->n_ctr > n && n > 0;
}

static uint64_t phase_end_on(const struct pm_rotation *r, unsigned n)
{
	return after(r->t_phase, rotates_on(r, n) ? r->phase_ns : r->idle_ns);
}

bool pm_rotation__rotates(const struct pm_rotation *r)
{
	return rotates_on(r, n_free(r));
}

size_t pm_rotation__window(const struct pm_rotation *r)
{
	return PM_MIN(r->n_ctr, (size_t)n_free(r));
}

size_t pm_rotation__at(const struct pm_rotation *r, size_t m)
{
	return (r->first + m) % r->n_ctr;
}

uint64_t pm_rotation__phase_end(const struct pm_rotation *r)
{
	return phase_end_on(r, n_free(r));
}

uint64_t pm_rotation__wrap_poll(const struct pm_rotation *r)
{
	if (!r->width)
		return UINT64_MAX;
	return after(r->t_last, pm_wrap_poll__interval(&r->wrap, r->width));
}

/* The next poll, for a phase that ends at end. */
static uint64_t next_for(const struct pm_rotation *r, uint64_t end)
{
	return PM_MIN(end, pm_rotation__wrap_poll(r));
}

/* Has a phase that ends at end ended at now? */
static bool ended(uint64_t end, uint64_t now)
{
	return end != UINT64_MAX && now >= end;
}

uint64_t pm_rotation__next(const struct pm_rotation *r)
{
	return next_for(r, pm_rotation__phase_end(r));
}

bool pm_rotation__phase_due(const struct pm_rotation *r, uint64_t now)
{
	return ended(pm_rotation__phase_end(r), now);
}

int pm_rotation__poll(struct pm_rotation *r, uint64_t now, void *ud)
{
	unsigned n = n_free(r); /* asked once before the collect */
	uint64_t end = phase_end_on(r, n);
	bool idle = !rotates_on(r, n), turn;
	int e;

	if (now < next_for(r, end))
		return 0;
	turn = ended(end, now);
	e = r->ops->collect(r, ud, now, turn);
	if (e == 0 && turn) {
		/* the collect may have lost a slot to another program: ask again */
		n = n_free(r);
		if (rotates_on(r, n)) {
			/* the next counters take their turn */
			r->first = (r->first + n) % r->n_ctr;
			e = r->ops->program(r, ud, now);
		}
	}
	if (turn || idle)
		r->t_phase = now;
	return e;
}

uint64_t pm_rotation__elapsed(const struct pm_rotation *r, uint64_t now)
{
	return now > r->t_last ? now - r->t_last : 0;
}

void pm_rotation__account(struct pm_rotation *r, struct pm_reading *acc, uint64_t now)
{
	uint64_t dt = pm_rotation__elapsed(r, now);

	for (size_t i = 0; i < r->n_ctr; i++) {
		struct pm_reading *a = &acc[r->ctr[i]];
		struct pm_track *t = r->counters ? r->counters[r->ctr[i]].track : NULL;

		a->ena += dt;
		if (t) { /* what it counted in this stretch, on the hardware or off */
			pm_track__phase(t, r->t_last, now, a->val - r->seen[i].val,
					a->run - r->seen[i].run);
			r->seen[i] = *a;
		}
	}
	r->t_last = now;
}
