/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * a recording counted again (cli/replay.c). */
#ifndef PMUMON_CLI_REPLAY_H
#define PMUMON_CLI_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "pmumon/pmumon.h"
#include "cli-count.h"

/* ---- a recording counted again: import and report (cli/replay.c) ------------------- */

struct cli_replay_args {
	const char *file; /* "-": standard input; a pmumon recording (FILE.db) too */
	const char *packs;
	enum pm_replay_format format;
	char sep;
	double duration_s;
	long long run;	   /* of a FILE.db (0: its last) */
	const char *cpuid; /* --cpuid: the recording's CPU, over the one it names */
	/* of a FILE.db: the intervals whose end is in [from_ns, to_ns] since its run began
	 * (both 0: all); with events_named, only the events named in events (exact, as the
	 * recording names them) and those c's metrics read, not all it has */
	int64_t from_ns, to_ns;
	bool events_named;
	const char *const *events;
	size_t n_events;
};

struct store;
struct store_feed;
struct cli_replay {
	struct pm_ctx *ctx;
	struct pm_evlist *l;
	struct pm_session *s;
	size_t n_samples;
	bool intervals;
	struct pm_out_opts oo; /* simulated, its platform, the target: for the output */
	char target[600], sim_platform[64];
	struct store *store; /* a pmumon recording, read as it plays (store_feed) */
	struct store_feed *feed;
	char defines[1024]; /* the constants the recording's metrics were given */
};

/*
 * Can a recording whose rows were grouped as recorded (its run's aggr: "device",
 * "channel"...) give rows grouped by want? 0, or -EINVAL with why (size bytes) saying
 * what it can give instead.
 */
int cli_replay__can_give(const char *recorded, enum pm_aggr want, char *why, size_t size);

/* What each report goes to: 0, or -errno (said, or -EPIPE). */
typedef int (*cli_report_hook)(void *arg, const struct pm_report *r);

/*
 * cli_replay__open: the recording parsed, the machine its packs describe,
 * its events and c's metrics in a session, opened: 0 or the exit status
 * (said). cli_replay__play: each interval's report (when it has intervals),
 * then the totals, to hook: 0 or -errno. cli_replay__close frees it.
 */
int cli_replay__open(struct cli_replay *rp, const struct cli_replay_args *a,
		     const struct cli_count *c);
int cli_replay__play(struct cli_replay *rp, cli_report_hook hook, void *arg);
void cli_replay__close(struct cli_replay *rp);

#endif
