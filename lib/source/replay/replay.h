/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The replay source: counts recorded elsewhere (perf stat -x, / -j output,
 * pmumon's own CSV, a CSV of raw counts) fed through the same session,
 * aggregation, metrics and output as live counts (docs/import.md).
 *
 * A recording is a matrix: series (one event on one PMU instance, CPU or
 * aggregate, as the file names it) by samples (intervals, or one total).
 * It is never held whole: one pass over the file checks every line, learns
 * the series and how many samples there are, and keeps each value, parsed,
 * in a spill (replay-spill.h); playing it back reads the spill, one sample
 * at a time, so memory does not grow with the file (docs/import.md).
 * The context of an import is the recording's machine: its PMUs are the
 * ones the file names plus the families of the packs that match, its CPUs
 * the ones the file names, and its clock the file's timestamps.
 */
#ifndef PM_SOURCE_REPLAY_H
#define PM_SOURCE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmumon/pmumon.h"

struct pm_session;

/* One event on one PMU instance / CPU / aggregate, as the file names it. */
struct pm_replay_series {
	char *name; /* the event without its instance: "ali_drw/hif_rd/", "hif_rd" */
	char *pmu;  /* the PMU the name or a column gives ("ali_drw_21000", "amd_df"), or NULL */
	char *unit; /* as printed ("msec"); "" when none */
	char *printed, *device; /* the event and device columns as a line first gave them */
	char *cgroup; /* the cgroup it was counted in (perf -G, --for-each-cgroup), or NULL */
	int cpu;      /* -1: not per CPU */
	int socket;   /* -1: unknown */
	int die;      /* -1: unknown */
	int core;     /* -1: unknown (perf --per-core) */
	int channel;  /* a channel row of a pmumon recording: its PMU stands for the channel */
	size_t line;  /* where it first appears */
	bool counted; /* a row: some sample has a count or <not counted> (not only
		       * <not supported>, which is left out) */
	double scale; /* value / raw where the file gives both (pmumon CSV), else 0 */
	unsigned max_instances; /* the most instances a pmumon row said it covered */
	size_t last_sample;	/* the last sample it had a value in (either pass) */
	unsigned repeat; /* an event given twice, printed twice: 0 the first, 1 the second... */
	size_t prev;	 /* the series it repeats (repeat - 1); SIZE_MAX: none */
	/* bound when the evlist and the session are built (replay.c) */
	size_t event, inst, counter;
	/* a metric's instance-qualified event on its PMU (ali_drw_21000@hif_rd@): a second
	 * event and counter fed the same counts; SIZE_MAX: none */
	size_t q_event, q_inst, q_counter;
	int topo_cpu; /* the CPU of the replay topology its counter sits on, -1 none */
};

enum {
	PM_RV_RAW = 1 << 0,   /* raw: the count before any scaling */
	PM_RV_VALUE = 1 << 1, /* value: scaled for multiplexing and the unit, as printed */
	PM_RV_TIMES = 1 << 2, /* ena and run */
};

/* One series in one sample. have == 0: absent from that sample. */
struct pm_replay_val {
	double value;
	uint64_t raw, ena, run;
	unsigned have;
	bool not_counted; /* <not counted>, <not supported>, or an empty value */
	/* what a pmumon recording said of it: its quality flags (PM_ROW_WRAP_UNCERTAIN,
	 * _REPROGRAMMED, _RESET, _PARTIAL, _LOST) and coverage (instances 0: none said) */
	unsigned quality, covered, instances;
	/* a recording's 95 % interval of the value, in its unit (a feed's: docs/bounds.md) */
	bool bounded;
	double lo, hi;
	unsigned bound;
};

struct pm_replay_sample {
	uint64_t t_ns;	  /* end of the sample, since the start of counting */
	uint64_t wall_ns; /* wall clock at its end, 0 when the file has none */
	size_t line;
};

struct pm_replay_parser;
struct pm_replay_feeder;
struct pm_replay;

/* Who plays a recording back when no parser does (replay-feed.c: the caller's samples).
 * The parser's pm_replay__rewind, __next_sample, __play_error and __free hand a feed's
 * recording over to it, so replay-parse.c names nothing of replay-feed.c. */
struct pm_replay_player {
	int (*rewind)(struct pm_replay *rp);
	int (*next)(struct pm_replay *rp);
	const struct pm_diag *(*error)(const struct pm_replay *rp);
	void (*free)(struct pm_replay_feeder *f);
};

struct pm_replay {
	char *name; /* the file, for messages */
	enum pm_replay_format format;
	struct pm_replay_series *series;
	size_t n_series, cap_series;
	size_t n_samples;
	struct pm_replay_sample first, last; /* as the first pass read them */
	bool first_t_given; /* a totals file: first.t_ns is its duration, not the file's */
	bool intervals;	    /* samples are intervals (-I), else one total */
	bool duration_known;
	bool simulated;
	char *sim_platform;
	struct pm_replay_parser *parser; /* the file, read again sample by sample */
	struct pm_replay_feeder *feeder; /* or the caller's samples (pm_replay__feed) */
	uint64_t start_ns;		 /* when the first sample began (a feed's window) */
	/* who plays feeder back (replay-feed.c); NULL: the parser */
	const struct pm_replay_player *player;

	/* playing it back */
	size_t next;		     /* the next sample a read takes */
	struct pm_replay_sample cur; /* the sample pm_replay__next_sample read */
	struct pm_replay_val *vals;  /* its value of each series */
	uint64_t now_ns;	     /* the clock: the end of the last sample read */
	uint64_t wall_ns;	     /* its wall clock */
	char *packs;		     /* --pack: comma-separated names, NULL: by PMU family */
	char *cpuid;		     /* the CPU id the recording names, NULL: none */
	char *cpuid_given;	     /* pm_ctx_opts.cpuid: wins over the recording's */
};

/* replay-parse.c: play the recording from its first sample again. 0 or -errno. */
int pm_replay__rewind(struct pm_replay *rp);
/* The next sample into rp->cur and rp->vals (have == 0: absent from it). 0, -ENODATA
 * after the last, or -errno: reading the spill back failed (said in
 * pm_replay__play_error). */
int pm_replay__next_sample(struct pm_replay *rp);
const struct pm_diag *pm_replay__play_error(const struct pm_replay *rp);

/* replay-parse.c: Exposed for testing: a perf stat -x aggregation id. */
int pm_replay_parse_aggr_id(const char *s, int *ret_cpu, int *ret_socket, int *ret_die,
			    int *ret_core);
/* Exposed for testing: split a perf event name into PMU and name. */
int pm_replay_split_name(const char *printed, char **ret_name, char **ret_pmu);

/* replay.c: the recording's machine (machine.c): its clock, the end of the last
 * sample read, and its wall clock. */
uint64_t pm_replay__mono_ns(struct pm_ctx *ctx);
uint64_t pm_replay__wall_ns(struct pm_ctx *ctx);
/* replay.c: has the recording counts of event name on a PMU of family (cycle on ali_drw,
 * a sysfs alias the pack does not list)? */
bool pm_replay__recorded(struct pm_ctx *ctx, const char *family, const char *name);
/* replay.c: does a row of the recording on a PMU of family add up several instances (a
 * channel, die or socket row)? */
bool pm_replay__adds_instances(struct pm_ctx *ctx, const char *family);
/* replay.c: discovery for a recording: its PMUs and CPUs. */
int pm_replay__discover(struct pm_ctx *ctx);
/* The machine's pack_matches: does a pack match the recording (named by --pack, or its Match.Pmu family)?
 * has_match: the pack has a Match at all (the kernel traits pack has none). */
bool pm_replay__pack_matches(struct pm_ctx *ctx, const char *pack, bool has_match,
			     const char *family, const char *compat);
/* The machine's need_family: a matching pack has events on this PMU family: have a PMU of it. */
int pm_replay__need_family(struct pm_ctx *ctx, const char *family, const char *compat);
/* The machine's cpuid: the one given, else the recording's (said at PM_LOG_INFO). */
void pm_replay__machine_cpuid(struct pm_ctx *ctx, char *buf, size_t size);
/* The machine's bind_event: the event a metric names, from the recording (or an empty one). */
int pm_replay__bind(struct pm_evlist *l, const char *spec, size_t *ret_event);
/* The replay source's plan: one counter per series. */
int pm_replay__plan(struct pm_session *s, struct pm_diag *reterr);

#endif
