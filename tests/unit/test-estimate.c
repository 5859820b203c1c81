// SPDX-License-Identifier: GPL-2.0-only
/*
 * source/estimate: a counter's estimate and 95 % interval from what pmumon
 * saw of it, fed the stretches a rotating source or perf's reads account,
 * with rates whose integrals are known: a steady rate is estimated exactly
 * with an interval no wider than the integer readings leave, a ramp is
 * interpolated exactly between the event's own phases (where scaling one
 * phase is off), a counter seen once has no bound, one never unseen is
 * exact, and the interval widens with the wander of the rates.
 */
#include "helpers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "pmumon/pmumon.h"
#include "source/estimate.h"

#define MS 1000000ull
#define T0 (5000 * MS) /* counting starts at 5 s of the clock: times are kept relative */

/* A rate in counts per ns at time t (ns from T0), and its integral. */
struct law {
	double a, b;	      /* a + b t */
	double jump_at, jump; /* + jump after jump_at (ns from T0; 0: none) */
};

static double integral(const struct law *l, double t)
{
	double v = l->a * t + l->b * t * t / 2;

	if (l->jump_at > 0 && t > l->jump_at)
		v += l->jump * (t - l->jump_at);
	return v;
}

static uint64_t counted(const struct law *l, uint64_t s, uint64_t e)
{
	/* the integer counter: floor of the integral at each end */
	return (uint64_t)floor(integral(l, (double)(e - T0))) -
	       (uint64_t)floor(integral(l, (double)(s - T0)));
}

/*
 * A counter rotated in phases of phase_ns, on in every other phase (on first
 * when first_on), read every read_ns; after each read the interval's and
 * the run's estimates go to iv[k], tot[k]. Returns the reads made.
 */
static int run_phased(const struct law *l, uint64_t phase_ns, bool first_on, uint64_t read_ns,
		      uint64_t end_ns, struct pm_estimate *iv, struct pm_estimate *tot)
{
	struct pm_track *t = pm_track__new(PM_TRACK_PHASED, T0);
	uint64_t now = T0, next_phase = T0 + phase_ns, next_read = T0 + read_ns;
	bool on = first_on;
	int k = 0;

	assert_non_null(t);
	while (now < T0 + end_ns) {
		uint64_t to = next_phase < next_read ? next_phase : next_read;

		pm_track__phase(t, now, to, on ? counted(l, now, to) : 0, on ? to - now : 0);
		now = to;
		if (now == next_phase) {
			on = !on;
			next_phase += phase_ns;
		}
		if (now == next_read) {
			pm_track__report(t, NULL, NULL, &iv[k], &tot[k]);
			pm_track__next_interval(t);
			k++;
			next_read += read_ns;
		}
	}
	pm_track__free(t);
	return k;
}

static double truth(const struct law *l, uint64_t s, uint64_t e)
{
	return integral(l, (double)(s - T0 + (e - s))) - integral(l, (double)(s - T0));
}

/* A steady rate: every interval's estimate within a count of the truth, its interval as narrow. */
static void test_phased_steady(void **state)
{
	struct law l = { .a = 0.1 }; /* 1e8 per second */
	struct pm_estimate iv[20], tot[20];
	int n = run_phased(&l, 25 * MS, true, 1000 * MS, 10000 * MS, iv, tot);

	assert_int_equal(n, 10);
	for (int k = 0; k < n; k++) {
		th_assert_near(iv[k].count, 1e8, 2);
		assert_int_equal(iv[k].bound, PM_BOUND_MEASURED);
		assert_true(iv[k].half >= 0 && iv[k].half < 1e8 * 1e-6);
		th_assert_near(iv[k].seen, 0.5e8, 2);
	}
	th_assert_near(tot[n - 1].count, 1e9, 2);
}

/*
 * A ramp: the rate at a phase's midpoint is its mean, so the line through
 * the event's own phases is the rate itself and the phases off are
 * estimated exactly, where scaling the phases on (the whole interval at
 * their mean rate) is off by the ramp's slope.
 */
static void test_phased_ramp(void **state)
{
	struct law l = { .a = 0.01, .b = 0.1 / 1e9 }; /* 1e7/s, rising by 1e8/s every second */
	struct pm_estimate iv[20], tot[20];
	int n = run_phased(&l, 100 * MS, true, 1000 * MS, 5000 * MS, iv, tot);

	assert_int_equal(n, 5);
	for (int k = 1; k < n; k++) {
		double want = truth(&l, T0 + (uint64_t)k * 1000 * MS,
				    T0 + (uint64_t)(k + 1) * 1000 * MS);
		/* what perf's scaling says: the phases on (the first 100 ms of each 200) x 2 */
		double scaled = 2 * iv[k].seen;

		/* the last 100 ms are off: extrapolated at the rate of the phase before
		 * (the ramp's rise over 100 ms, 1e7/s, for 0.1 s: 1e6 counts low) */
		th_assert_near(iv[k].count, want - 1e6, 1e3);
		assert_true(fabs(scaled - want) > 4 * fabs(iv[k].count - want));
		/* the interval covers the truth, and says it is not exact */
		assert_int_equal(iv[k].bound, PM_BOUND_MEASURED);
		assert_true(iv[k].count - iv[k].half <= want && want <= iv[k].count + iv[k].half);
	}
}

/* Seen in one phase only: nothing measures how the rate wanders, no bound. */
static void test_phased_one_phase(void **state)
{
	struct law l = { .a = 0.1 };
	struct pm_estimate iv[4], tot[4];
	int n = run_phased(&l, 600 * MS, true, 1000 * MS, 1000 * MS, iv, tot);

	assert_int_equal(n, 1);
	assert_int_equal(iv[0].bound, PM_BOUND_FEW);
	assert_true(isnan(iv[0].half));
	th_assert_near(iv[0].count, 1e8, 2); /* the estimate is still there */
}

/* Never on the counters: no value. On all the time: exact. */
static void test_phased_never_and_always(void **state)
{
	struct pm_track *t = pm_track__new(PM_TRACK_PHASED, T0);
	struct pm_estimate iv, tot;

	pm_track__phase(t, T0, T0 + 100 * MS, 0, 0);
	pm_track__report(t, NULL, NULL, &iv, &tot);
	assert_int_equal(iv.bound, PM_BOUND_NO_VALUE);
	assert_true(isnan(iv.count));
	pm_track__next_interval(t);
	pm_track__phase(t, T0 + 100 * MS, T0 + 200 * MS, 1000, 100 * MS);
	pm_track__phase(t, T0 + 200 * MS, T0 + 300 * MS, 1000, 100 * MS);
	pm_track__report(t, NULL, NULL, &iv, &tot);
	assert_int_equal(iv.bound, PM_BOUND_EXACT);
	assert_true(iv.count == 2000 && iv.half == 0 && iv.seen == 2000);
	/* the run's first 100 ms were off: estimated back from the first phase */
	assert_int_equal(tot.bound, PM_BOUND_FEW);
	th_assert_near(tot.count, 3000, 1e-9);
	pm_track__free(t);
}

/*
 * A jump of rate: the intervals around it are wider than the steady ones
 * before it (the wander measured from the phases), and each covers the truth.
 */
static void test_phased_jump_widens(void **state)
{
	struct law l = { .a = 0.1, .jump_at = 4230e6, .jump = 0.2 };
	struct pm_estimate iv[20], tot[20];
	int n = run_phased(&l, 50 * MS, true, 1000 * MS, 8000 * MS, iv, tot);

	assert_int_equal(n, 8);
	assert_true(iv[4].half > 100 * iv[2].half);
	for (int k = 1; k < n; k++) {
		double want = truth(&l, T0 + (uint64_t)k * 1000 * MS,
				    T0 + (uint64_t)(k + 1) * 1000 * MS);

		assert_true(fabs(iv[k].count - want) <= iv[k].half);
	}
}

/* Interleaved: the perf scaling is the estimate; exact when it ran all the time. */
static void test_interleaved(void **state)
{
	struct pm_track *t = pm_track__new(PM_TRACK_INTERLEAVED, T0);
	struct pm_track_obs o = { 0 }, tot = { 0 };
	struct pm_estimate e_iv, e_tot;

	/* one read that ran half the time: no spread measured yet */
	pm_track__segment(t, T0 + 100 * MS, 100 * MS, 50 * MS, 5000000);
	o = (struct pm_track_obs){ .ena = 100 * MS, .run = 50 * MS, .val = 5000000 };
	pm_track__report(t, &o, &o, &e_iv, &e_tot);
	assert_int_equal(e_iv.bound, PM_BOUND_FEW);
	assert_true(e_iv.count == 1e7 && e_iv.seen == 5e6);
	/* steady reads: the interval is as narrow as the integer counts leave */
	tot = o;
	o = (struct pm_track_obs){ 0 };
	for (int i = 2; i <= 10; i++) {
		uint64_t run = i % 2 ? 48 * MS : 52 * MS; /* the rotation's phase wanders */

		pm_track__segment(t, T0 + (uint64_t)i * 100 * MS, 100 * MS, run, run / 10);
		o.ena += 100 * MS, o.run += run, o.val += run / 10;
		tot.ena += 100 * MS, tot.run += run, tot.val += run / 10;
	}
	pm_track__report(t, &o, &tot, &e_iv, &e_tot);
	assert_int_equal(e_iv.bound, PM_BOUND_MEASURED);
	th_assert_near(e_iv.count, 9e7, 1e-6);
	assert_true(e_iv.half < 10);
	/* ran all the time: exact */
	o = (struct pm_track_obs){ .ena = 100 * MS, .run = 100 * MS, .val = 7 };
	pm_track__report(t, &o, &tot, &e_iv, &e_tot);
	assert_true(e_iv.bound == PM_BOUND_EXACT && e_iv.count == 7 && e_iv.half == 0);
	/* never ran: no value */
	o.run = 0;
	pm_track__report(t, &o, &tot, &e_iv, &e_tot);
	assert_true(e_iv.bound == PM_BOUND_NO_VALUE && isnan(e_iv.count));
	pm_track__free(t);
}

/* Interleaved: noisy reads give a wider interval, a jump wider still. */
static void test_interleaved_spread(void **state)
{
	struct pm_track *a = pm_track__new(PM_TRACK_INTERLEAVED, T0);
	struct pm_track *b = pm_track__new(PM_TRACK_INTERLEAVED, T0);
	struct pm_track_obs o = { 0 };
	struct pm_estimate ea, eb, tot;

	for (int i = 1; i <= 20; i++) {
		uint64_t run = i % 3 ? 45 * MS : 55 * MS;
		/* a: 1e8/s +- 10 %; b: the same, then twice as much from read 15 */
		uint64_t va = (uint64_t)((i % 2 ? 0.09 : 0.11) * (double)run);
		uint64_t vb = i >= 15 ? 2 * va : va;

		pm_track__segment(a, T0 + (uint64_t)i * 100 * MS, 100 * MS, run, va);
		pm_track__segment(b, T0 + (uint64_t)i * 100 * MS, 100 * MS, run, vb);
		if (i > 10) {
			o.ena += 100 * MS;
			o.run += run;
			o.val += va;
		}
	}
	pm_track__report(a, &o, &o, &ea, &tot);
	assert_int_equal(ea.bound, PM_BOUND_MEASURED);
	assert_true(ea.half > 0.005 * ea.count && ea.half < 0.2 * ea.count);
	pm_track__report(b, &o, &o, &eb, &tot);
	assert_true(eb.half > ea.half);
	pm_track__free(a);
	pm_track__free(b);
}

static void test_t975(void **state)
{
	th_assert_near(pm_t975(1), 12.706, 1e-9);
	th_assert_near(pm_t975(30), 2.042, 1e-9);
	th_assert_near(pm_t975(60), 2.000, 0.001);
	th_assert_near(pm_t975(100000), 1.96, 0.001);
	assert_true(pm_t975(31) < pm_t975(30) && pm_t975(31) > pm_t975(32));
}

static void test_bound_names(void **state)
{
	assert_string_equal(pm_row_bound_name(PM_BOUND_EXACT), "exact");
	assert_string_equal(pm_row_bound_name(PM_BOUND_MEASURED), "measured");
	assert_string_equal(pm_row_bound_name(PM_BOUND_MISSING), "counts_missing");
	assert_string_equal(pm_row_bound_name(PM_BOUND_FEW), "few_samples");
	assert_string_equal(pm_row_bound_name(PM_BOUND_UNMEASURED), "unmeasured");
	assert_string_equal(pm_row_bound_name(PM_BOUND_NO_VALUE), "no_value");
	assert_null(pm_row_bound_name(PM_BOUND_NO_VALUE + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phased_steady),
		cmocka_unit_test(test_phased_ramp),
		cmocka_unit_test(test_phased_one_phase),
		cmocka_unit_test(test_phased_never_and_always),
		cmocka_unit_test(test_phased_jump_widens),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_interleaved_spread),
		cmocka_unit_test(test_t975),
		cmocka_unit_test(test_bound_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
