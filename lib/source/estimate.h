/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every estimate with its error (docs/bounds.md has the derivation and the
 * calibration): what pmumon saw of one counter, stretch by stretch, and
 * from it the counter's count over a report with a 95 % interval.
 *
 * Two kinds of counting leave parts of a counter's time unseen:
 *
 * - PHASED: pmumon rotates the counters itself (msr, hwmon: rotation.h).
 *   The counter is on the hardware for whole phases and off for others;
 *   every phase on gives the event's rate then. The count in a phase off is
 *   estimated by interpolating the rate between the event's own phases on
 *   either side (a straight line between their midpoints); the phase still
 *   off at a read, by the last rate. The error of each such stretch is
 *   modelled as the rate's wander about that line, a Brownian bridge (a
 *   Brownian motion after the last phase), plus noise faster than a phase
 *   (bursts): both measured from the event's last PM_TRACK_RING phases, by
 *   how the squared differences of their rates grow with their distance
 *   (the wander) and what they are at no distance (the noise).
 * - INTERLEAVED: the kernel rotates (perf multiplexing, every mux interval),
 *   far faster than pmumon reads. The estimate stays perf's (count scaled
 *   by enabled / running); its error is measured from extra reads inside
 *   the interval (source/perf/perf.c): the spread of the rates of successive
 *   reads (their noise, taken robustly so that a change of traffic does not
 *   count as noise), and the changes of rate the kernel's on/off pattern
 *   can misplace, whose size is measured from how the running times of the
 *   reads wander about their share.
 *
 * A source feeds a track what it accounted (pm_track__phase,
 * pm_track__segment); after each good read the session asks it for the
 * interval's estimate and the run's (pm_track__report) and starts the next
 * interval (pm_track__next_interval).
 */
#ifndef PM_SOURCE_ESTIMATE_H
#define PM_SOURCE_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One counter's count over a report, with its interval. */
struct pm_estimate {
	double count;	/* the estimate, in counts; NaN: none (never counted) */
	double half;	/* the 95 % interval's half-width, in counts; NaN: no honest bound */
	double seen;	/* what it counted on the hardware: the truth is at least this */
	unsigned bound; /* PM_BOUND_* (pmumon.h) */
};

enum pm_track_kind {
	PM_TRACK_PHASED = 1,
	PM_TRACK_INTERLEAVED,
};

/* The history the spread is measured on: phases (phased) or reads (interleaved). */
#define PM_TRACK_RING 64

/* A stretch on the hardware (phased), or one read's increments (interleaved). */
struct pm_track_obs {
	uint64_t t0, t1; /* phased: from, to (monotonic ns) */
	uint64_t ena, run, val;
};

/* What a track has summed since a start: the interval's, or the run's. */
struct pm_track_sum {
	double seen;   /* counted on the hardware */
	double est;    /* estimated for the stretches unseen */
	double bridge; /* phased: the unseen stretches' variance, in units of the diffusion */
	double white;  /* phased: and in units of the rate's noise per unit time */
	double floor;  /* counts the integer readings leave uncertain */
	double jumps;  /* interleaved: the squared changes of rate beyond the noise */
	double r0;     /* interleaved: the rate before the start (NaN: none yet) */
	bool gaps;     /* phased: some stretch was unseen */
};

struct pm_track {
	enum pm_track_kind kind;
	struct pm_track_obs past[PM_TRACK_RING]; /* the last closed phases, or reads */
	unsigned n, head;			 /* how many, and where the next goes */
	uint64_t t_start;			 /* counting began (enable) */
	uint64_t t_iv;				 /* this interval began */
	uint64_t t_last;			 /* accounted up to here */
	/* phased: the phase on now (open), and the last one that closed (have_last) */
	bool open, have_last;
	struct pm_track_obs cur, last;
	/* interleaved: reads that saw no running time wait for the next that did */
	struct pm_track_obs pend;
	double r_last; /* interleaved: the rate of the last read that ran (NaN: none) */
	struct pm_track_sum iv, tot;
};

/* A track of kind, counting from t_start. NULL: out of memory. */
struct pm_track *pm_track__new(enum pm_track_kind kind, uint64_t t_start);
void pm_track__free(struct pm_track *t);

/*
 * Phased: the counter was accounted over [t0, t1] and counted val in run ns
 * of it (run 0: off the hardware; run < t1 - t0: stopped for part of it).
 * Calls come in time order, each starting where the last ended.
 */
void pm_track__phase(struct pm_track *t, uint64_t t0, uint64_t t1, uint64_t val, uint64_t run);
/* Interleaved: one read's increments of enabled, running and count (at time t1). */
void pm_track__segment(struct pm_track *t, uint64_t t1, uint64_t ena, uint64_t run, uint64_t val);

/*
 * The estimates now, of the interval (since pm_track__next_interval) and of
 * the run. Interleaved: the caller gives each report's count, enabled and
 * running time (the perf scaling is kept as the estimate).
 */
void pm_track__report(const struct pm_track *t, const struct pm_track_obs *iv,
		      const struct pm_track_obs *tot, struct pm_estimate *ret_iv,
		      struct pm_estimate *ret_tot);
/* The next interval starts where the last accounting ended. */
void pm_track__next_interval(struct pm_track *t);

/* The 97.5 % quantile of Student's t with df degrees of freedom (1.96 for many). */
double pm_t975(unsigned df);

#endif
