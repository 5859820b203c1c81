/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * counting the live machine (cli/live.c). */
#ifndef PMUMON_CLI_LIVE_H
#define PMUMON_CLI_LIVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmumon/pmumon.h"
#include "cli-count.h"

/* ---- counting the live machine (cli/live.c): stat, serve, top, record -------------- */

/*
 * Where and through what a command that counts the live machine counts:
 * -a/-C, --source, --program, --sideband-pci, --reclaim, and its interval
 * (-I). A command merges CLI_LIVE_OPTIONS into its getopt table and
 * CLI_LIVE_SHORT into its short options, hands each option to
 * cli_live__option, and calls cli_live__check after the last.
 */
struct cli_live_args {
	enum pm_source_choice source; /* --source */
	const char *program;	      /* --program FILE: the sideband's programming list */
	bool sideband_pci;
	bool reclaim;
	bool all_cpus;		   /* -a */
	const char *cpus;	   /* -C LIST */
	unsigned long interval_ms; /* -I MS, 0: not given (the command's default) */
	/* default events this machine cannot count: no row (serve, record: no series
	 * that never has a value), instead of perf's <not supported> rows (stat, top) */
	bool leave_out_unsupported_defaults;
	/* per device, a core PMU's rows per socket too (serve: places never merged away) */
	bool device_per_socket;
};

enum {
	CLI_OPT_SOURCE = 0x1200,
	CLI_OPT_PROGRAM,
	CLI_OPT_SIDEBAND_PCI,
	CLI_OPT_RECLAIM,
};
/* clang-format off */
#define CLI_LIVE_SHORT "aC:I:"
#define CLI_LIVE_OPTIONS \
	{ "source", required_argument, NULL, CLI_OPT_SOURCE }, \
	{ "program", required_argument, NULL, CLI_OPT_PROGRAM }, \
	{ "sideband-pci", no_argument, NULL, CLI_OPT_SIDEBAND_PCI }, \
	{ "reclaim", no_argument, NULL, CLI_OPT_RECLAIM }, \
	{ "all-cpus", no_argument, NULL, 'a' }, \
	{ "cpu", required_argument, NULL, 'C' }, \
	{ "interval-print", required_argument, NULL, 'I' }, \
	{ "interval", required_argument, NULL, 'I' }
/* clang-format on */

/* Take option c if it is one of the above: 1; 0 if not; -EINVAL when its value is wrong (said). */
int cli_live__option(struct cli_live_args *a, int c, const char *arg);
/* After the last option: -EINVAL (said) when they contradict each other. */
int cli_live__check(const struct cli_live_args *a);
/* Help: --source, --program, --sideband-pci, --reclaim (under "What to count:"),
 * and -a, -C (under "Where:"). */
void cli_live__usage_source(FILE *f);
void cli_live__usage_where(FILE *f);

/*
 * A counting run on the live machine, in the order every such command
 * takes it: cli_live__machine (the context and the session's options from
 * the arguments; the caller may change lv->so.target and .pid after it),
 * cli_live__events (the count options' events, or the defaults),
 * cli_live__session (resolved and scheduled) — every check, nothing
 * changed yet — then cli_live__open (the ending signals caught, counters
 * programmed; says what was left out) and cli_live__enable. Each returns 0
 * or an exit status (said). Then cli_live__read / cli_live__poll (0 or
 * -errno, said; lv->failed set), or cli_live__tick for a plain interval
 * loop. cli_live__free undoes everything (the counters restored).
 */
struct cli_live {
	struct pm_ctx *ctx;
	const struct pm_os_ops *ops;
	void *os;
	struct pm_evlist *l;
	struct pm_session_opts so;
	char *program; /* --program FILE's text */
	struct pm_session *s;
	uint64_t step_ns, next_ns; /* cli_live__tick's interval and next deadline */
	bool failed;		   /* pmumon itself failed (said already) */
	size_t lost_said;	   /* lost devices a message named already */
	bool dropped_said;	   /* the events left out were named (stat -r: once) */
	/* --attribute-pods (1 pods, 2 containers): the pods counted (cli_pods_key), for the
	 * sampler to see them come and go */
	int attribute_pods;
	char *pods_key;
};

/* The machine (kept when lv already has one: after cli_live__close), the session's options. */
int cli_live__machine(struct cli_live *lv, const struct cli_live_args *a,
		      const struct cli_count *c);
int cli_live__events(struct cli_live *lv, const struct cli_count *c);
int cli_live__session(struct cli_live *lv);
int cli_live__open(struct cli_live *lv, const sigset_t *ending);
int cli_live__enable(struct cli_live *lv);
int cli_live__read(struct cli_live *lv);
int cli_live__poll(struct cli_live *lv);
/*
 * Wait for the next interval of step_ns (the first call starts the clock),
 * polling the counters on the way (rotation, wrap): 1 when the interval's
 * read is done (pm_session__report(lv->s, ...) has it), 0 when an ending
 * signal came (cli_signals_caught), -errno when reading failed (said).
 */
int cli_live__tick(struct cli_live *lv, uint64_t step_ns);
/* Name each lost device no message named yet; true if any device was lost. */
bool cli_live__say_lost(struct cli_live *lv);
/* Counting ends (the counters disabled and restored; the sampler, if any, stopped
 * first), the machine stays for counting again: with events, the event list goes too. */
void cli_live__close(struct cli_live *lv, bool events);
void cli_live__free(struct cli_live *lv);

#endif
