// SPDX-License-Identifier: GPL-2.0-only
/*
 * Estimates and their 95 % intervals (estimate.h; docs/bounds.md derives
 * every formula here and says how the three constants were measured).
 */
#include "source/estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmumon/pmumon.h"

/*
 * The calibration (docs/bounds.md, "Calibration"): each term's variance is
 * multiplied by its constant, measured so that the truth falls inside 95 %
 * of the intervals of tests/sim/test-bounds.c's scenarios, none below 92 %.
 */
#define KAPPA_PHASED 1.5 /* phased: the rate's wander and noise over an unseen phase */
#define KAPPA_NOISE 1.0	 /* interleaved: the noise of the rate between reads */
#define KAPPA_JUMP 1.5	 /* interleaved: changes of rate the on/off pattern misplaces */
/* interleaved: the counts a reading's integer values leave uncertain */
#define FLOOR_COUNTS 2.0

struct pm_track *pm_track__new(enum pm_track_kind kind, uint64_t t_start)
{
	struct pm_track *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->t_start = t->t_iv = t->t_last = t_start;
	t->r_last = t->iv.r0 = t->tot.r0 = NAN;
	return t;
}

void pm_track__free(struct pm_track *t)
{
	free(t);
}

double pm_t975(unsigned df)
{
	static const double t[] = {
		NAN,   12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
		2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	if (df < sizeof(t) / sizeof(t[0]))
		return t[df];
	return 1.96 + 2.4 / df; /* within 0.001 of the quantile from 31 on */
}

/* ---- the history ------------------------------------------------------------------ */

/* The i-th oldest of the ring's entries. */
static const struct pm_track_obs *past_at(const struct pm_track *t, unsigned i)
{
	return &t->past[(t->head + PM_TRACK_RING - t->n + i) % PM_TRACK_RING];
}

static void past_push(struct pm_track *t, const struct pm_track_obs *o)
{
	t->past[t->head] = *o;
	t->head = (t->head + 1) % PM_TRACK_RING;
	if (t->n < PM_TRACK_RING)
		t->n++;
}

static double rate(const struct pm_track_obs *o)
{
	return o->run ? (double)o->val / (double)o->run : NAN;
}

/* ---- phased --------------------------------------------------------------------------- */

/* Times as doubles, from the start of counting (no precision lost to the boot time). */
static double rel(const struct pm_track *t, uint64_t x)
{
	return (double)(x - t->t_start);
}

static double mid(const struct pm_track *t, const struct pm_track_obs *o)
{
	return (rel(t, o->t0) + rel(t, o->t1)) / 2;
}

/* How the rate varies: its wander (diffusion) and its noise, per unit time. */
struct spread {
	double sigma2; /* the Brownian part: variance per ns of distance */
	double w;      /* the noise faster than a phase: variance x ns of averaging */
	unsigned df;   /* the phases they are measured on, less the two fitted */
};

/*
 * The rate's spread from the ring's phases, each with the next and the one
 * after: the averages over phases a and b (lengths la, lb, on for ra, rb
 * ns, midpoints d apart) of a Brownian motion plus white noise differ with
 * variance w (1/ra + 1/rb) + sigma^2 (d - (la + lb) / 6). Least squares on
 * the squared differences gives w and sigma^2, neither below 0 (the other
 * fitted alone then, whichever fits better). Growth with distance is
 * wander; what is there at any distance is noise.
 */
static struct spread spread(const struct pm_track *t)
{
	double sxx = 0, sxy = 0, syy = 0, sxz = 0, syz = 0, szz = 0, det;
	double w1, s1, rss_w, rss_s, rss_both;
	struct spread sp = { .sigma2 = NAN, .w = NAN };
	unsigned k = 0;

	for (unsigned lag = 1; lag <= 2; lag++) {
		for (unsigned i = lag; i < t->n; i++) {
			const struct pm_track_obs *a = past_at(t, i - lag), *b = past_at(t, i);
			double d = mid(t, b) - mid(t, a) -
				   ((double)(a->t1 - a->t0) + (double)(b->t1 - b->t0)) / 6;
			double dr = rate(b) - rate(a);
			double x = 1 / (double)a->run + 1 / (double)b->run, z = dr * dr;

			if (!(d > 0) || !isfinite(dr))
				continue;
			sxx += x * x;
			sxy += x * d;
			syy += d * d;
			sxz += x * z;
			syz += d * z;
			szz += z * z;
			k++;
		}
	}
	if (k < 2 || t->n < 3)
		return sp;
	/*
	 * Noise alone, or wander alone: whichever leaves less residual. Both
	 * only where both come out positive and together they fit clearly
	 * better (an F ratio over 4): a wander fitted to what is chance would
	 * take the noise's share, and a phase unseen between two seen has far
	 * more of the noise in it than of the wander.
	 */
	w1 = sxx > 0 ? fmax(0, sxz / sxx) : 0;
	s1 = syy > 0 ? fmax(0, syz / syy) : 0;
	rss_w = szz - w1 * sxz;
	rss_s = szz - s1 * syz;
	if (rss_w <= rss_s)
		sp.w = w1, sp.sigma2 = 0;
	else
		sp.w = 0, sp.sigma2 = s1;
	det = sxx * syy - sxy * sxy;
	if (k > 3 && det > 1e-12 * sxx * syy) {
		double w = (sxz * syy - syz * sxy) / det, s2 = (syz * sxx - sxz * sxy) / det;

		rss_both = szz - w * sxz - s2 * syz;
		if (w >= 0 && s2 >= 0 &&
		    fmin(rss_w, rss_s) - rss_both > 4 * fmax(rss_both, 0) / (k - 2))
			sp.w = w, sp.sigma2 = s2;
	}
	sp.df = t->n - 2; /* n phases, two things fitted */
	return sp;
}

/*
 * Var of the integral over [s, e] of a Brownian bridge (unit diffusion)
 * pinned at a and b, a <= s <= e <= b: cov(x, y) = (min - a)(b - max)/(b - a).
 */
static double bridge_var(double a, double b, double s, double e)
{
	double D = b - a, xs = s - a, xe = e - a;

	if (!(D > 0) || !(e > s))
		return 0;
#define F(x)                                         \
	(D * ((x) * (x) * (x) / 3 - xs * xs * (x)) - \
	 ((x) * (x) * (x) * (x) / 4 - xs * xs * (x) * (x) / 2))
	return fmax(0, (F(xe) - F(xs)) / D);
#undef F
}

/* Var of the integral over [p, q] (0 <= p <= q, from the pin) of a Brownian motion pinned at 0. */
static double free_var(double p, double q)
{
	if (!(q > p))
		return 0;
	return (q * q * q - p * p * p) / 3 - p * p * (q - p);
}

/*
 * An unseen stretch [s, e] between phases a and b (either may be NULL: the
 * start, or the phase still to come) added to sum: the rate on the line
 * through their midpoints, or the one neighbour's rate.
 */
static void add_gap(const struct pm_track *t, struct pm_track_sum *sum,
		    const struct pm_track_obs *a, const struct pm_track_obs *b, uint64_t s_ns,
		    uint64_t e_ns)
{
	double s = rel(t, s_ns), e = rel(t, e_ns), len = e - s;

	if (!(len > 0))
		return;
	sum->gaps = true;
	/* the noise: the stretch's own, and its neighbours' through their weights */
	sum->white += len;
	if (a && b) {
		double ma = mid(t, a), mb = mid(t, b), ra = rate(a), rb = rate(b);
		double beta = mb > ma ? ((s + e) / 2 - ma) / (mb - ma) : 0, alpha = 1 - beta;

		sum->est += fmax(0, len * (ra + (rb - ra) * beta));
		sum->bridge += bridge_var(ma, mb, s, e);
		sum->white += len * len *
			      (alpha * alpha / (double)a->run + beta * beta / (double)b->run);
		sum->floor += len * (1 / (double)a->run + 1 / (double)b->run) / 2;
	} else if (a) { /* after the last phase: its rate goes on */
		double ma = mid(t, a);

		sum->est += rate(a) * len;
		sum->bridge += free_var(s - ma, e - ma);
		sum->white += len * len / (double)a->run;
		sum->floor += len / (double)a->run;
	} else if (b) { /* before the first phase: its rate, back to the start */
		double mb = mid(t, b);

		sum->est += rate(b) * len;
		sum->bridge += free_var(mb - e, mb - s);
		sum->white += len * len / (double)b->run;
		sum->floor += len / (double)b->run;
	}
}

/* The stretch to the run's sums, and its part in this interval to the interval's. */
static void add_gap_both(const struct pm_track *t, struct pm_track_sum *iv,
			 struct pm_track_sum *tot, const struct pm_track_obs *a,
			 const struct pm_track_obs *b, uint64_t s, uint64_t e)
{
	add_gap(t, tot, a, b, s, e);
	if (e > t->t_iv)
		add_gap(t, iv, a, b, s > t->t_iv ? s : t->t_iv, e);
}

/* Where the stretch unseen before phase b (the open one) began. */
static uint64_t gap_start(const struct pm_track *t)
{
	return t->have_last ? t->last.t1 : t->t_start;
}

/* The phase on the hardware ended: the stretch unseen before it is known now. */
static void close_phase(struct pm_track *t)
{
	struct pm_track_obs b = t->cur;

	t->open = false;
	if (b.t0 > gap_start(t))
		add_gap_both(t, &t->iv, &t->tot, t->have_last ? &t->last : NULL, &b, gap_start(t),
			     b.t0);
	past_push(t, &b);
	t->last = b;
	t->have_last = true;
}

void pm_track__phase(struct pm_track *t, uint64_t t0, uint64_t t1, uint64_t val, uint64_t run)
{
	if (t1 < t0 || t->kind != PM_TRACK_PHASED)
		return;
	t->t_last = t1;
	if (run == 0) {
		if (t->open && t1 > t0)
			close_phase(t);
		return;
	}
	if (run > t1 - t0)
		run = t1 - t0;
	if (!t->open) {
		t->open = true;
		t->cur = (struct pm_track_obs){ .t0 = t0,
						.t1 = t1,
						.ena = t1 - t0,
						.run = run,
						.val = val };
	} else {
		t->cur.t1 = t1;
		t->cur.ena += t1 - t0;
		t->cur.run += run;
		t->cur.val += val;
	}
	t->iv.seen += (double)val;
	t->tot.seen += (double)val;
	if (run < t1 - t0) { /* stopped for a moment (a block stopped to be read): its own rate */
		double more = (double)val * (double)(t1 - t0 - run) / (double)run;

		t->iv.est += more;
		t->tot.est += more;
	}
}

static void phased_finish(const struct pm_track_sum *sum, const struct spread *sp,
			  struct pm_estimate *ret)
{
	*ret = (struct pm_estimate){ .count = sum->seen + sum->est, .seen = sum->seen };
	if (!sum->gaps) {
		ret->half = 0;
		ret->bound = PM_BOUND_EXACT;
	} else if (!sp->df || !isfinite(sp->sigma2) || !isfinite(sp->w)) {
		ret->half = NAN; /* too few phases: nothing says how far the rate wanders */
		ret->bound = PM_BOUND_FEW;
	} else {
		double var = sp->sigma2 * sum->bridge + sp->w * sum->white;

		ret->half = pm_t975(sp->df) * sqrt(KAPPA_PHASED * var) + sum->floor;
		ret->bound = PM_BOUND_MEASURED;
	}
}

static void phased_report(const struct pm_track *t, struct pm_estimate *ret_iv,
			  struct pm_estimate *ret_tot)
{
	struct pm_track_sum iv = t->iv, tot = t->tot;
	struct spread sp = spread(t);

	if (!t->open && !t->have_last) { /* never on the hardware */
		*ret_iv = *ret_tot = (struct pm_estimate){ .count = NAN,
							   .half = NAN,
							   .bound = PM_BOUND_NO_VALUE };
		return;
	}
	if (t->open) /* the stretch before the phase on now, with its rate so far */
		add_gap_both(t, &iv, &tot, t->have_last ? &t->last : NULL, &t->cur, gap_start(t),
			     t->cur.t0);
	else if (t->t_last > t->last.t1) /* off now: the last rate goes on */
		add_gap_both(t, &iv, &tot, &t->last, NULL, t->last.t1, t->t_last);
	phased_finish(&iv, &sp, ret_iv);
	phased_finish(&tot, &sp, ret_tot);
}

/* ---- interleaved ----------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The noise of a read's rate per unit of running time (nu: Var(rate) =
 * nu / run), from the ring's successive reads: each difference of rates
 * divided by its standard deviation's share, and of those the median
 * absolute value (0.6745 of a normal's sigma), so that a change of traffic
 * between two reads is not taken for noise.
 */
static double noise(const struct pm_track *t, unsigned *ret_df)
{
	double d[PM_TRACK_RING];
	unsigned k = 0;

	for (unsigned i = 1; i < t->n; i++) {
		const struct pm_track_obs *a = past_at(t, i - 1), *b = past_at(t, i);

		d[k++] = fabs(rate(b) - rate(a)) / sqrt(1 / (double)a->run + 1 / (double)b->run);
	}
	*ret_df = k;
	if (!k)
		return NAN;
	qsort(d, k, sizeof(*d), cmp_double);
	double med = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;

	return (med / 0.6745) * (med / 0.6745);
}

/*
 * A^2, the square of how far the running time of the on/off pattern runs
 * ahead of its share (docs/bounds.md): reads at times that do not follow
 * the kernel's rotation see running times that wander about f x enabled
 * with variance f^2 A^2 / 6.
 */
static double pattern_sq(const struct pm_track *t)
{
	double ena = 0, run = 0, f, sum = 0;

	for (unsigned i = 0; i < t->n; i++) {
		ena += (double)past_at(t, i)->ena;
		run += (double)past_at(t, i)->run;
	}
	if (!(ena > 0) || !(run > 0))
		return 0;
	f = run / ena;
	for (unsigned i = 0; i < t->n; i++) {
		double x = (double)past_at(t, i)->run - f * (double)past_at(t, i)->ena;

		sum += x * x;
	}
	return 6 * sum / t->n / (f * f);
}

void pm_track__segment(struct pm_track *t, uint64_t t1, uint64_t ena, uint64_t run, uint64_t val)
{
	struct pm_track_obs o;
	double r;

	if (t->kind != PM_TRACK_INTERLEAVED)
		return;
	t->t_last = t1;
	t->pend.ena += ena;
	t->pend.run += run;
	t->pend.val += val;
	if (!t->pend.run)
		return; /* never on the counters: it joins the next read that was */
	o = t->pend;
	o.t1 = t1;
	t->pend = (struct pm_track_obs){ 0 };
	r = rate(&o);
	if (t->n >= 2) {
		/* a change of rate over two reads, beyond what their noise explains */
		const struct pm_track_obs *p = past_at(t, t->n - 2);
		unsigned df;
		double nu = noise(t, &df), d = r - rate(p);
		double x = d * d -
			   (isfinite(nu) ? nu * (1 / (double)o.run + 1 / (double)p->run) : 0);

		if (x > 0) {
			t->iv.jumps += x / 2;
			t->tot.jumps += x / 2;
		}
	}
	past_push(t, &o);
	if (isnan(t->tot.r0))
		t->tot.r0 = r;
	if (isnan(t->iv.r0))
		t->iv.r0 = r;
	t->r_last = r;
}

static void interleaved_finish(const struct pm_track *t, const struct pm_track_sum *sum,
			       const struct pm_track_obs *o, struct pm_estimate *ret)
{
	unsigned df;
	double nu, a2, dr, var;

	*ret = (struct pm_estimate){ .seen = (double)o->val };
	if (!o->run) {
		ret->count = ret->half = NAN;
		ret->bound = PM_BOUND_NO_VALUE;
		return;
	}
	ret->count = o->run >= o->ena ? (double)o->val :
					(double)o->val * ((double)o->ena / (double)o->run);
	if (o->run >= o->ena) {
		ret->bound = PM_BOUND_EXACT;
		return;
	}
	nu = noise(t, &df);
	if (!df || !isfinite(nu)) {
		ret->half = NAN;
		ret->bound = PM_BOUND_FEW;
		return;
	}
	a2 = pattern_sq(t);
	dr = isfinite(sum->r0) && isfinite(t->r_last) ? t->r_last - sum->r0 : 0;
	var = KAPPA_NOISE * nu * (double)(o->ena - o->run) * (double)o->ena / (double)o->run +
	      KAPPA_JUMP * a2 / 12 * (sum->jumps + dr * dr);
	ret->half = pm_t975(df) * sqrt(var) + FLOOR_COUNTS;
	ret->bound = PM_BOUND_MEASURED;
}

/* ---- both --------------------------------------------------------------------------- */

void pm_track__report(const struct pm_track *t, const struct pm_track_obs *iv,
		      const struct pm_track_obs *tot, struct pm_estimate *ret_iv,
		      struct pm_estimate *ret_tot)
{
	if (t->kind == PM_TRACK_PHASED) {
		phased_report(t, ret_iv, ret_tot);
		return;
	}
	interleaved_finish(t, &t->iv, iv, ret_iv);
	interleaved_finish(t, &t->tot, tot, ret_tot);
}

void pm_track__next_interval(struct pm_track *t)
{
	t->t_iv = t->t_last;
	t->iv = (struct pm_track_sum){ .r0 = t->r_last };
}
