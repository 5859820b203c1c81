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
	r->ctr = NULL;
	r->n_ctr = r->cap_ctr = 0;
}

void pm_rotation__start(struct pm_rotation *r, uint64_t now)
{
	r->first = 0;
	r->t_last = r->t_phase = now;
}

bool pm_rotation__rotates(const struct pm_rotation *r)
{
	unsigned n = n_free(r);

	return r->n_ctr > n && n > 0;
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
	return after(r->t_phase, pm_rotation__rotates(r) ? r->phase_ns : r->idle_ns);
}

uint64_t pm_rotation__wrap_poll(const struct pm_rotation *r)
{
	if (!r->width)
		return UINT64_MAX;
	return after(r->t_last, pm_wrap_poll__interval(&r->wrap, r->width));
}

uint64_t pm_rotation__next(const struct pm_rotation *r)
{
	return PM_MIN(pm_rotation__phase_end(r), pm_rotation__wrap_poll(r));
}

bool pm_rotation__phase_due(const struct pm_rotation *r, uint64_t now)
{
	uint64_t end = pm_rotation__phase_end(r);

	return end != UINT64_MAX && now >= end;
}

int pm_rotation__poll(struct pm_rotation *r, uint64_t now, void *ud)
{
	bool idle = !pm_rotation__rotates(r), turn;
	int e;

	if (now < pm_rotation__next(r))
		return 0;
	turn = pm_rotation__phase_due(r, now);
	e = r->ops->collect(r, ud, now, turn);
	/* the collect may have lost a slot to another program: ask again */
	if (e == 0 && turn && pm_rotation__rotates(r)) {
		/* the next counters take their turn */
		r->first = (r->first + n_free(r)) % r->n_ctr;
		e = r->ops->program(r, ud, now);
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

	for (size_t i = 0; i < r->n_ctr; i++)
		acc[r->ctr[i]].ena += dt;
	r->t_last = now;
}
