/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A counting session as the sources and the scheduler see it: the event
 * list placed on CPUs as counters (sched.c), each opened, read and closed by
 * the source that claims it, and what the session knows while it counts.
 * The rows built from the counters are the layers above's (aggr.h,
 * metric/metric.h); here they are only a pointer.
 */
#ifndef PM_SOURCE_COUNTERS_H
#define PM_SOURCE_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "ctx.h"
#include "evlist.h"
#include "pmumon/pmumon.h"
#include "source/estimate.h"
#include "source/source.h"
#include "util/cpus.h"

/* One read of a counter: the count and the kernel's enabled/running times. */
struct pm_reading {
	uint64_t val, ena, run;
};

struct pm_counter {
	enum pm_source_id source;
	size_t inst;	   /* index into evlist->inst */
	size_t event;	   /* index into evlist->ev */
	int cpu;	   /* -1: follows the task */
	pid_t tid;	   /* PM_TARGET_THREADS: the thread it counts */
	bool open;	   /* its source opened it: counting (every module tests this) */
	int fd;		   /* perf's file descriptor (source/perf/perf.c only; -1: none) */
	size_t leader;	   /* counter index of its group leader (itself if none) */
	bool implicit;	   /* in a read group pmumon made, not one the user asked for */
	bool group_format; /* opened with PERF_FORMAT_GROUP (leaders) */
	bool dropped;	   /* an unsupported default, left out (leave_out_unsupported_defaults) */
	bool unsupported;  /* an event asked for this machine cannot count: a <not supported> row */
	bool cpu_wide;	   /* a task's uncore event: counts its PMU while the task runs (sched.c) */
	struct pm_reading cur, prev;
	/* the latest good reading, also from between reads (perf's checkpoint
	 * polls): where a counter whose device goes away stops */
	struct pm_reading last_good;
	size_t row; /* row of the current aggregation */
	/*
	 * Quality: what a source saw that makes this counter's value less than
	 * it seems (PM_ROW_WRAP_UNCERTAIN, _REPROGRAMMED, _RESET, _LOST), raised
	 * with pm_counter__raise between reads; at each read they become the
	 * interval's, and add to the totals'.
	 */
	unsigned qual_new, qual_iv, qual_tot;
	/* its device went away or failed mid-run (the source says so once, and sets
	 * the session's lost_err): cur stays at its last good read, the rest go on */
	bool lost;
	bool first_of_inst; /* the first counter of its instance: coverage counts instances */
	/* what a recording says its value covered (replay.c); rec_instances 0: nothing
	 * said, the counter is one instance */
	unsigned rec_covered, rec_instances;
	/*
	 * What its source saw of it stretch by stretch, when not every stretch
	 * was on the hardware (source/estimate.h; NULL: none, so far): made by
	 * a rotating source at enable, by perf at the first read that found it
	 * multiplexed; the session's, freed with it. After each good read, its
	 * estimates of the interval and of the run.
	 */
	struct pm_track *track;
	struct pm_estimate est_iv, est_tot;
	/* est_iv and est_tot are the source's own, without a track: a recording's intervals
	 * played back (replay.c) */
	bool est_given;
};

/* A source saw something that makes c's value less than it seems (PM_ROW_*). */
static inline void pm_counter__raise(struct pm_counter *c, unsigned flag)
{
	c->qual_new |= flag;
}

/* One read(2): a group leader with its members, or a lone counter. */
struct pm_read_unit {
	int fd;
	bool group;	 /* PERF_FORMAT_GROUP: members follow the leader's times */
	size_t first, n; /* counter indices at session->ru_idx[first .. first+n) */
};

struct pm_rows;

struct pm_session {
	struct pm_ctx *ctx;
	struct pm_evlist *l;
	struct pm_session_opts opts;
	/* opts.source_opts, the session's copy (strings in one block each; opts' pointers
	 * to them are cleared) */
	struct pm_source_opt *source_opts;
	size_t n_source_opts;
	struct pm_cpus cpus; /* the CPUs asked for: online, or -C */
	pid_t *tids;	     /* PM_TARGET_THREADS: the threads, the PIDs' expanded */
	size_t n_tids;

	struct pm_counter *c;
	size_t n_c, cap_c;
	struct pm_read_unit *ru;
	size_t n_ru, cap_ru;
	size_t *ru_idx;	   /* counter indices in read order */
	uint64_t *readbuf; /* room for the largest group read */
	size_t readbuf_words;

	bool opened, enabled;
	/* each source's own state, by its id: what it sets at open and frees at
	 * close (NULL: none); only that source knows its type */
	void *state[PM_SRC__N + PM_CTX_ADDED_SOURCES];
	const char *failed_device; /* the PMU whose read failed last (NULL: none) */
	struct pm_diag last_error; /* why the last enable, read, poll or disable failed */
	bool warned_user_only;	   /* the paranoid :u fallback was announced */
	bool warned_space;	   /* a PMU that cannot exclude was named (opts.space) */
	bool warned_cpu_wide;	   /* a task's uncore event counts system-wide: said */
	uint64_t t_enable_ns, t_prev_ns, t_now_ns, wall_now_ns;
	/* the error of the last device lost mid-run (its counters' lost; 0: none) */
	int lost_err;

	/* the rows reports show: event rows (aggr.h), then metric rows (metric/metric.h);
	 * built when the session opens (report.c) */
	struct pm_rows *rows;
};

/*
 * The advisory lock a source holds while it programs shared registers
 * (hwmon, msr, sideband); what names them for messages ("the BlueField
 * counters"). Returns 0 with *ret_handle the handle, or -1 when no lock file
 * can be made (warned: counting goes on, unprotected from a second
 * pmumon); -EBUSY when a process holds it (reterr: its pid, its user when
 * not ours, and busy_hint), or -EPERM when the lock file is one pmumon will
 * not trust (reterr: why, and to remove it).
 */
/* Does any counter still count (open, its device not lost)? */
static inline bool pm_session__any_live(const struct pm_session *s)
{
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].open && !s->c[k].lost)
			return true;
	return false;
}

/* How a message about a lost device ends: whether the others count on. */
static inline const char *pm_session__rest(const struct pm_session *s)
{
	return pm_session__any_live(s) ? "the rest go on" : "no other device counts";
}

/* source/lock.c */
int pm_session__lock(struct pm_session *s, const char *path, const char *what,
		     const char *busy_hint, int *ret_handle, struct pm_diag *reterr);

/*
 * source/lock.c: a source's words for why the enable, read, poll or disable
 * under way failed (pm_session__last_error; hint may be NULL). The session
 * adds the reason and s->failed_device, and says something itself when the
 * source did not.
 */
void pm_session__fail(struct pm_session *s, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
