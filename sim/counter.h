/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A hardware counter register as the polled sources see it (hwmon, msr,
 * sideband): it follows its event's cumulative truth while running, keeps
 * its value while stopped, and wraps at its width. The caller passes the
 * truth of the counter's current event at "now" to every call, so the
 * register needs no callback and a stopped counter never moves.
 */
#ifndef PM_SIM_COUNTER_H
#define PM_SIM_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

struct sim_counter {
	unsigned width; /* bits; 64 for a full register */
	bool running;
	uint64_t held; /* the value at the last start, stop or write */
	uint64_t base; /* the truth at that moment */
};

static inline uint64_t sim_counter__mask(const struct sim_counter *c)
{
	return c->width >= 64 ? UINT64_MAX : (1ull << c->width) - 1;
}

/* What a read of the register returns now. */
static inline uint64_t sim_counter__value(const struct sim_counter *c, uint64_t truth)
{
	uint64_t v = c->held + (c->running ? truth - c->base : 0);

	return v & sim_counter__mask(c);
}

static inline void sim_counter__start(struct sim_counter *c, uint64_t truth)
{
	if (c->running)
		return;
	c->base = truth;
	c->running = true;
}

static inline void sim_counter__stop(struct sim_counter *c, uint64_t truth)
{
	if (!c->running)
		return;
	c->held += truth - c->base;
	c->running = false;
}

/* Write the register (a clear writes 0); it goes on counting from v. */
static inline void sim_counter__set(struct sim_counter *c, uint64_t v, uint64_t truth)
{
	c->held = v & sim_counter__mask(c);
	c->base = truth;
}

/*
 * The event changes: from now on the register follows another truth. Call
 * with the old event's truth first (sim_counter__stop), then set and start
 * with the new one's, or use this: keep the value, rebase on the new truth.
 */
static inline void sim_counter__switch(struct sim_counter *c, uint64_t old_truth,
				       uint64_t new_truth)
{
	c->held = sim_counter__value(c, old_truth);
	c->base = new_truth;
}

#endif
