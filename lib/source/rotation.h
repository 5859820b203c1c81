/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A block of hardware counters that pmumon drives itself, polled rather than
 * interrupted: AMD's DF and L3 pairs (msr.c), BlueField's mlxbf-pmc blocks
 * (hwmon.c), Merrifield's SoC counters (sideband.c). Written once here:
 *
 * - Rotation: more session counters than the block has slots free take
 *   turns in phases of phase_ns. A phase puts a window of the counters on
 *   the hardware, in rotation order from first: as many as there are free
 *   slots, wrapping around the end of the list. The next phase's window
 *   starts where this one ended.
 * - Accounting: every counter of the block is enabled over the whole of
 *   [t_last, now]; a counter runs only while it is on a slot, and the
 *   source says for how long (a slot another program took, a block stopped
 *   for a read: hardware matters the source knows).
 * - Deadlines: the next poll is the earlier of the phase's end and the wrap
 *   poll: a counter narrower than PM_WRAP_WIDTH bits is read again before
 *   it can wrap twice unseen (source/wrap.h), counted from the last read. A
 *   block that does not rotate may also be polled every idle_ns, counted
 *   from its last poll.
 * - A late poll (pmumon stopped, starved) ends one phase, however many
 *   phases were due: the window moves on once, and the counters that were
 *   on stay on the books as running for the whole stretch.
 *
 * What touches the hardware (writing a control register, echoing an event
 * code into a sysfs file, stopping a block to read it, a sideband SAMPLE)
 * stays in the source, behind pm_rotation_ops, which the source gives the
 * rotation embedded in its block (and recovers the block from with
 * offsetof).
 */
#ifndef PM_SOURCE_ROTATION_H
#define PM_SOURCE_ROTATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/wrap.h"

struct pm_reading;
struct pm_rotation;

struct pm_rotation_ops {
	/*
	 * The slots the block may use now (another program may take one
	 * mid-run). NULL: one for every counter, it never rotates. A poll asks
	 * once before its collect and, when the phase ends, once after it.
	 */
	unsigned (*n_free)(const struct pm_rotation *r);
	/*
	 * Bring every counter up to now (the source reads the hardware, then
	 * pm_rotation__account); turn: the phase ends after it, and the next
	 * window is programmed. 0 or -errno.
	 */
	int (*collect)(struct pm_rotation *r, void *ud, uint64_t now, bool turn);
	/* Put the phase's window (pm_rotation__at) on the hardware. 0 or -errno.
	 * NULL where n_free is: never called. */
	int (*program)(struct pm_rotation *r, void *ud, uint64_t now);
};

struct pm_rotation {
	const struct pm_rotation_ops *ops;
	size_t *ctr; /* session counters, in rotation order */
	size_t n_ctr, cap_ctr;
	size_t first;	   /* where this phase's window starts in ctr */
	uint64_t t_last;   /* the counts are up to here */
	uint64_t t_phase;  /* this phase began (or, not rotating, the last poll) */
	uint64_t phase_ns; /* a phase, while rotating */
	uint64_t idle_ns;  /* not rotating: a poll this long after the last; UINT64_MAX never */
	unsigned width;	   /* counter bits: wrap polls below PM_WRAP_WIDTH; 0: none */
	struct pm_wrap_poll wrap; /* the fastest rate any counter of the block was seen at */
	/* tracking (pm_rotation__track): the session's counters, and each rotation
	 * counter's reading at the last account; NULL: not tracked */
	struct pm_counter *counters;
	struct pm_reading *seen;
};

/* Counter (a session counter) joins the end of the rotation. 0 or -ENOMEM. */
int pm_rotation__add(struct pm_rotation *r, size_t counter);
/* Free the list; NULL-safe. */
void pm_rotation__done(struct pm_rotation *r);

/* Counting starts at now, with the first window. */
void pm_rotation__start(struct pm_rotation *r, uint64_t now);
/*
 * From now on, every account feeds each of its counters' track what it
 * counted in the stretch (source/estimate.h): a new phased track for each
 * (c: the session's counters, acc as pm_rotation__account takes it, now
 * the start). Called at enable, after pm_rotation__start. 0 or -ENOMEM.
 */
int pm_rotation__track(struct pm_rotation *r, struct pm_counter *c, const struct pm_reading *acc,
		       uint64_t now);

/* More counters than free slots, and at least one free slot? */
bool pm_rotation__rotates(const struct pm_rotation *r);
/* How many counters a phase puts on the hardware: min(counters, free slots). */
size_t pm_rotation__window(const struct pm_rotation *r);
/* The m-th counter of this phase's window: its index into ctr. */
size_t pm_rotation__at(const struct pm_rotation *r, size_t m);

/* When this phase ends (a block that does not rotate: its idle poll); UINT64_MAX never. */
uint64_t pm_rotation__phase_end(const struct pm_rotation *r);
/* When the counters must be read again not to wrap unseen; UINT64_MAX never. */
uint64_t pm_rotation__wrap_poll(const struct pm_rotation *r);
/* The next poll: the earlier of the two. */
uint64_t pm_rotation__next(const struct pm_rotation *r);
/* Does a poll at now end the phase? */
bool pm_rotation__phase_due(const struct pm_rotation *r, uint64_t now);

/*
 * A poll at now: nothing before pm_rotation__next. Else collect (turn: the
 * phase is due); when the phase ends and the block still rotates, the
 * window moves on by the free slots and is programmed. A phase that ended,
 * or any poll of a block that does not rotate, starts the next phase at
 * now, even when collect or program failed. ud goes to the ops. Returns
 * the first error of collect and program, or 0.
 */
int pm_rotation__poll(struct pm_rotation *r, uint64_t now, void *ud);

/* The span a collect at now accounts for: since t_last (0 when the clock did not move on). */
uint64_t pm_rotation__elapsed(const struct pm_rotation *r, uint64_t now);
/*
 * The counts are in up to now: every counter of the rotation was enabled
 * for pm_rotation__elapsed (added to acc[counter].ena, acc indexed by
 * session counter; acc may be NULL for a rotation without counters), and
 * t_last moves to now. Running time is the source's: what was really on.
 */
void pm_rotation__account(struct pm_rotation *r, struct pm_reading *acc, uint64_t now);

#endif
