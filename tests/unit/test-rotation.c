// SPDX-License-Identifier: GPL-2.0-only
/*
 * source/rotation: the software-rotated, polled counter block of the msr,
 * hwmon and sideband sources, on a fake block whose hardware is a list of
 * the counters it was last programmed with. Counters run exactly while on
 * it, so enabled and running times are known: which counters take turns
 * in which order, the window wrapping around the list, the next deadline
 * (phase end or wrap poll, whichever is first), and a poll that comes
 * several phases late.
 */
#include "helpers.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "source/counters.h"
#include "source/rotation.h"
#include "util/util.h"

#define MS 1000000ull
#define PHASE (100 * MS)
#define MAX_CTR 8

struct fake {
	struct pm_rotation rot;
	unsigned n_free;
	size_t on[MAX_CTR]; /* session counters on the hardware */
	size_t n_on;
	unsigned collects, programs;
	bool turn; /* the last collect's */
	int collect_err;
	unsigned lose_in_collect; /* slots another program takes during the next collect */
	struct pm_reading acc[2 * MAX_CTR + 1];
};

static struct fake *fake_of(struct pm_rotation *r)
{
	return (struct fake *)((char *)r - offsetof(struct fake, rot));
}

static unsigned fake_free(const struct pm_rotation *r)
{
	return ((const struct fake *)((const char *)r - offsetof(struct fake, rot)))->n_free;
}

/* A read: the counters on ran for the whole span; then the rotation's enabled time. */
static int fake_collect(struct pm_rotation *r, void *ud, uint64_t now, bool turn)
{
	struct fake *f = fake_of(r);
	uint64_t dt = pm_rotation__elapsed(r, now);

	assert_ptr_equal(ud, f);
	f->collects++;
	f->turn = turn;
	if (f->collect_err)
		return f->collect_err;
	for (size_t i = 0; i < f->n_on; i++)
		f->acc[f->on[i]].run += dt;
	pm_rotation__account(r, f->acc, now);
	f->n_free -= f->lose_in_collect;
	f->lose_in_collect = 0;
	return 0;
}

static int fake_program(struct pm_rotation *r, void *ud, uint64_t now)
{
	struct fake *f = fake_of(r);

	(void)now;
	assert_ptr_equal(ud, f);
	f->programs++;
	f->n_on = pm_rotation__window(r);
	for (size_t m = 0; m < f->n_on; m++)
		f->on[m] = r->ctr[pm_rotation__at(r, m)];
	return 0;
}

static const struct pm_rotation_ops fake_ops = {
	.n_free = fake_free,
	.collect = fake_collect,
	.program = fake_program,
};

/* Session counters 1, 3, 5, ... (not their indexes: the two must not be confused). */
static size_t ctr_id(size_t i)
{
	return 2 * i + 1;
}

/* A block of n_ctr counters on n_free slots, width bits wide, enabled at 0 and programmed. */
static void fake_start(struct fake *f, size_t n_ctr, unsigned n_free, unsigned width)
{
	memset(f, 0, sizeof(*f));
	f->rot = (struct pm_rotation){ .ops = &fake_ops,
				       .phase_ns = PHASE,
				       .idle_ns = UINT64_MAX,
				       .width = width };
	f->n_free = n_free;
	for (size_t i = 0; i < n_ctr; i++)
		assert_int_equal(pm_rotation__add(&f->rot, ctr_id(i)), 0);
	pm_rotation__start(&f->rot, 0);
	fake_program(&f->rot, f, 0);
	f->programs = 0;
}

/* The counters on the hardware as their indexes into the rotation, "0 1 2". */
static const char *on_text(const struct fake *f)
{
	static char text[64];
	size_t n = 0;

	text[0] = '\0';
	for (size_t i = 0; i < f->n_on; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%zu", i ? " " : "",
				      (f->on[i] - 1) / 2);
	return text;
}

static void test_rotates(void **state)
{
	static const struct {
		size_t n_ctr;
		unsigned n_free;
		bool rotates;
		size_t window;
	} t[] = {
		{ 0, 4, false, 0 }, { 3, 4, false, 3 }, { 4, 4, false, 4 }, { 5, 4, true, 4 },
		{ 1, 1, false, 1 }, { 2, 1, true, 1 },	{ 8, 6, true, 6 },  { 5, 0, false, 0 },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct fake f;

		fake_start(&f, t[i].n_ctr, t[i].n_free, 64);
		if (pm_rotation__rotates(&f.rot) != t[i].rotates)
			fail_msg("case %zu: %zu counters on %u slots: rotates %d", i, t[i].n_ctr,
				 t[i].n_free, !t[i].rotates);
		assert_int_equal(pm_rotation__window(&f.rot), t[i].window);
		/* a block that does not rotate is never programmed again */
		for (uint64_t now = PHASE; !t[i].rotates && now <= 5 * PHASE; now += PHASE)
			assert_int_equal(pm_rotation__poll(&f.rot, now, &f), 0);
		assert_int_equal(f.programs, 0);
		assert_int_equal(f.collects, 0); /* 64 bits, no idle poll: nothing is due */
		pm_rotation__done(&f.rot);
	}
}

/* Without n_free (the sideband: a counter each), a block never rotates. */
static void test_no_slots_op(void **state)
{
	static const struct pm_rotation_ops ops = { .collect = fake_collect };
	struct fake f;

	(void)state;
	fake_start(&f, 3, 0, 32);
	f.rot.ops = &ops;
	assert_false(pm_rotation__rotates(&f.rot));
	assert_int_equal(pm_rotation__window(&f.rot), 3);
	assert_int_equal(pm_rotation__next(&f.rot), PM_WRAP_FIRST_POLL_NS);
	assert_int_equal(pm_rotation__poll(&f.rot, PM_WRAP_FIRST_POLL_NS, &f), 0);
	assert_int_equal(f.collects, 1);
	assert_false(f.turn);
	pm_rotation__done(&f.rot);
}

/* Which counters each phase puts on: in rotation order, the window wrapping around. */
static void test_order(void **state)
{
	static const struct {
		size_t n_ctr;
		unsigned n_free;
		const char *phase[6];
	} t[] = {
		{ 5, 2, { "0 1", "2 3", "4 0", "1 2", "3 4", "0 1" } },
		{ 6, 4, { "0 1 2 3", "4 5 0 1", "2 3 4 5", "0 1 2 3", "4 5 0 1", "2 3 4 5" } },
		{ 3, 2, { "0 1", "2 0", "1 2", "0 1", "2 0", "1 2" } },
		{ 2, 1, { "0", "1", "0", "1", "0", "1" } },
		{ 7,
		  6,
		  { "0 1 2 3 4 5", "6 0 1 2 3 4", "5 6 0 1 2 3", "4 5 6 0 1 2", "3 4 5 6 0 1",
		    "2 3 4 5 6 0" } },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct fake f;

		fake_start(&f, t[i].n_ctr, t[i].n_free, 64);
		for (size_t p = 0; p < PM_ARRAY_SIZE(t[i].phase); p++) {
			if (strcmp(on_text(&f), t[i].phase[p]) != 0)
				fail_msg("case %zu, phase %zu: on '%s', want '%s'", i, p,
					 on_text(&f), t[i].phase[p]);
			/* a poll just before the phase ends changes nothing */
			assert_int_equal(pm_rotation__poll(&f.rot, (p + 1) * PHASE - 1, &f), 0);
			assert_int_equal(f.collects, p);
			assert_int_equal(pm_rotation__poll(&f.rot, (p + 1) * PHASE, &f), 0);
			assert_int_equal(f.collects, p + 1);
			assert_true(f.turn);
			assert_int_equal(f.programs, p + 1);
		}
		pm_rotation__done(&f.rot);
	}
}

/*
 * Enabled and running time across phases: 3 counters on 2 slots, phases at
 * 100, 200, 300 ms, then a read mid-phase (350 ms) that ends no phase.
 */
static void test_accounting(void **state)
{
	static const struct {
		uint64_t now;
		bool poll; /* else a read: collect and nothing else */
		uint64_t ena, run[3];
		uint64_t next;
	} t[] = {
		{ 100 * MS, true, 100 * MS, { 100 * MS, 100 * MS, 0 }, 200 * MS },
		{ 200 * MS, true, 200 * MS, { 200 * MS, 100 * MS, 100 * MS }, 300 * MS },
		{ 300 * MS, true, 300 * MS, { 200 * MS, 200 * MS, 200 * MS }, 400 * MS },
		{ 350 * MS, false, 350 * MS, { 250 * MS, 250 * MS, 200 * MS }, 400 * MS },
		{ 400 * MS, true, 400 * MS, { 300 * MS, 300 * MS, 200 * MS }, 500 * MS },
		/* the clock did not move on: nothing to add */
		{ 400 * MS, false, 400 * MS, { 300 * MS, 300 * MS, 200 * MS }, 500 * MS },
	};
	struct fake f;

	(void)state;
	fake_start(&f, 3, 2, 64);
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		if (t[i].poll)
			assert_int_equal(pm_rotation__poll(&f.rot, t[i].now, &f), 0);
		else
			assert_int_equal(fake_collect(&f.rot, &f, t[i].now, false), 0);
		for (size_t c = 0; c < 3; c++) {
			const struct pm_reading *a = &f.acc[ctr_id(c)];

			if (a->ena != t[i].ena || a->run != t[i].run[c])
				fail_msg("step %zu, counter %zu: enabled %llu running %llu, want "
					 "%llu %llu",
					 i, c, (unsigned long long)a->ena,
					 (unsigned long long)a->run, (unsigned long long)t[i].ena,
					 (unsigned long long)t[i].run[c]);
		}
		assert_int_equal(f.rot.t_last, t[i].now);
		assert_int_equal(pm_rotation__next(&f.rot), t[i].next);
	}
	/* what scaling makes of it: counter 2 ran half the time */
	th_assert_near((double)f.acc[ctr_id(2)].run / (double)f.acc[ctr_id(2)].ena, 0.5, 1e-12);
	/* counters outside the rotation are never touched */
	for (size_t k = 0; k < PM_ARRAY_SIZE(f.acc); k++)
		if (k % 2 == 0 || k > ctr_id(2))
			assert_int_equal(f.acc[k].ena, 0);
	pm_rotation__done(&f.rot);
}

/* The next deadline: the earlier of the phase's end and the wrap poll. */
static void test_next(void **state)
{
	static const struct {
		const char *what;
		size_t n_ctr;
		unsigned width;
		double max_rate; /* counts per ns seen */
		uint64_t t_phase, t_last, idle_ns;
		uint64_t next;
		bool phase_due_at_next;
	} t[] = {
		{ "64 bits, no rotation: never", 2, 64, 5, 0, 50 * MS, UINT64_MAX, UINT64_MAX,
		  false },
		{ "no width: no wrap poll", 2, 0, 5, 0, 50 * MS, UINT64_MAX, UINT64_MAX, false },
		{ "32 bits, no rate yet: the first poll", 2, 32, 0, 0, 50 * MS, UINT64_MAX,
		  150 * MS, false },
		{ "32 bits, slow: the cap", 2, 32, 1, 0, 50 * MS, UINT64_MAX, 300 * MS, false },
		{ "32 bits, fast: half the range", 2, 32, 100, 0, 50 * MS, UINT64_MAX,
		  50 * MS + 21474836, false },
		{ "idle poll (msr's 10 s), from the last poll", 2, 48, 1, 30 * MS, 50 * MS,
		  10000 * MS, 10030 * MS, true },
		{ "idle poll later than the wrap poll", 2, 32, 0, 30 * MS, 50 * MS, 10000 * MS,
		  150 * MS, false },
		{ "rotating, 64 bits: the phase", 5, 64, 5, 30 * MS, 50 * MS, UINT64_MAX, 130 * MS,
		  true },
		{ "rotating, first poll later than the phase", 5, 32, 0, 30 * MS, 50 * MS,
		  UINT64_MAX, 130 * MS, true },
		{ "rotating, fast 32 bits: the wrap poll first", 5, 32, 100, 30 * MS, 50 * MS,
		  UINT64_MAX, 50 * MS + 21474836, false },
		{ "rotating, at the end of time", 5, 64, 0, UINT64_MAX - 10, UINT64_MAX - 10,
		  UINT64_MAX, UINT64_MAX, false },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct fake f;
		uint64_t next;

		fake_start(&f, t[i].n_ctr, 4, t[i].width);
		f.rot.wrap.max_rate = t[i].max_rate;
		f.rot.t_phase = t[i].t_phase;
		f.rot.t_last = t[i].t_last;
		f.rot.idle_ns = t[i].idle_ns;
		next = pm_rotation__next(&f.rot);
		if (next != t[i].next)
			fail_msg("%s: next %llu, want %llu", t[i].what, (unsigned long long)next,
				 (unsigned long long)t[i].next);
		assert_int_equal(next, PM_MIN(pm_rotation__phase_end(&f.rot),
					      pm_rotation__wrap_poll(&f.rot)));
		if (pm_rotation__phase_due(&f.rot, next) != t[i].phase_due_at_next)
			fail_msg("%s: phase due at next: %d", t[i].what, !t[i].phase_due_at_next);
		if (next != UINT64_MAX) {
			/* nothing before it; at it, a collect, which ends the phase or not */
			assert_int_equal(pm_rotation__poll(&f.rot, next - 1, &f), 0);
			assert_int_equal(f.collects, 0);
			assert_int_equal(pm_rotation__poll(&f.rot, next, &f), 0);
			assert_int_equal(f.collects, 1);
			assert_int_equal(f.turn, t[i].phase_due_at_next);
			assert_int_equal(f.programs, t[i].phase_due_at_next && t[i].n_ctr > 4);
			/* a wrap poll in the middle of a rotating phase does not end it */
			if (t[i].n_ctr > 4)
				assert_int_equal(f.rot.t_phase, f.turn ? next : t[i].t_phase);
		}
		pm_rotation__done(&f.rot);
	}
}

/*
 * A poll several phases late (pmumon stopped): one phase ends, the window
 * moves on once, and the counters that were on ran for the whole stretch.
 */
static void test_late_poll(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, 5, 2, 64);
	assert_int_equal(pm_rotation__poll(&f.rot, 350 * MS, &f), 0);
	assert_int_equal(f.collects, 1);
	assert_int_equal(f.programs, 1);
	assert_string_equal(on_text(&f), "2 3");
	for (size_t c = 0; c < 5; c++) {
		assert_int_equal(f.acc[ctr_id(c)].ena, 350 * MS);
		assert_int_equal(f.acc[ctr_id(c)].run, c < 2 ? 350 * MS : 0);
	}
	/* the next phase is a whole one from the late poll, not from where it should have been */
	assert_int_equal(f.rot.t_phase, 350 * MS);
	assert_int_equal(pm_rotation__next(&f.rot), 450 * MS);
	assert_int_equal(pm_rotation__poll(&f.rot, 449 * MS, &f), 0);
	assert_int_equal(f.collects, 1);
	assert_int_equal(pm_rotation__poll(&f.rot, 450 * MS, &f), 0);
	assert_string_equal(on_text(&f), "4 0");
	assert_int_equal(f.acc[ctr_id(2)].run, 100 * MS);
	assert_int_equal(f.acc[ctr_id(2)].ena, 450 * MS);
	pm_rotation__done(&f.rot);
}

/* A failed collect: no program, the error returned, the next phase begun all the same. */
static void test_collect_error(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, 5, 2, 64);
	f.collect_err = -EIO;
	assert_int_equal(pm_rotation__poll(&f.rot, 100 * MS, &f), -EIO);
	assert_int_equal(f.programs, 0);
	assert_string_equal(on_text(&f), "0 1");
	assert_int_equal(f.rot.t_phase, 100 * MS);
	assert_int_equal(f.rot.t_last, 0); /* nothing was counted */
	pm_rotation__done(&f.rot);
}

/*
 * Slots lost to another program during a collect. A block that did not
 * rotate and now must: the poll (a wrap poll) ends no phase, and the first
 * phase runs from it. A rotating one moves on by the slots it has left.
 */
static void test_slot_lost(void **state)
{
	struct fake f;

	(void)state;
	fake_start(&f, 3, 4, 32);
	f.lose_in_collect = 2;
	assert_int_equal(pm_rotation__poll(&f.rot, PM_WRAP_FIRST_POLL_NS, &f), 0);
	assert_false(f.turn);
	assert_int_equal(f.programs, 0);
	assert_true(pm_rotation__rotates(&f.rot));
	assert_int_equal(f.rot.t_phase, PM_WRAP_FIRST_POLL_NS);
	assert_int_equal(pm_rotation__phase_end(&f.rot), PM_WRAP_FIRST_POLL_NS + PHASE);
	pm_rotation__done(&f.rot);

	fake_start(&f, 5, 3, 64);
	f.lose_in_collect = 1;
	assert_int_equal(pm_rotation__poll(&f.rot, PHASE, &f), 0);
	assert_int_equal(f.programs, 1);
	assert_string_equal(on_text(&f), "2 3");
	/* every slot gone: nothing left to program */
	f.lose_in_collect = 2;
	assert_int_equal(pm_rotation__poll(&f.rot, 2 * PHASE, &f), 0);
	assert_int_equal(f.programs, 1);
	assert_false(pm_rotation__rotates(&f.rot));
	pm_rotation__done(&f.rot);

	/* an idle poll (msr's) that ends a phase: the block rotates from it at once */
	fake_start(&f, 3, 4, 48);
	f.rot.idle_ns = 10000 * MS;
	f.lose_in_collect = 2;
	assert_int_equal(pm_rotation__poll(&f.rot, 10000 * MS, &f), 0);
	assert_true(f.turn);
	assert_int_equal(f.programs, 1);
	assert_string_equal(on_text(&f), "2 0");
	assert_int_equal(pm_rotation__next(&f.rot), 10000 * MS + PHASE);
	pm_rotation__done(&f.rot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotates),	      cmocka_unit_test(test_no_slots_op),
		cmocka_unit_test(test_order),	      cmocka_unit_test(test_accounting),
		cmocka_unit_test(test_next),	      cmocka_unit_test(test_late_poll),
		cmocka_unit_test(test_collect_error), cmocka_unit_test(test_slot_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
