/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * options every command takes, exit codes, messages and the context (cli/global.c, cli/hints.c, cli/context.c). */
#ifndef PMUMON_CLI_GLOBAL_H
#define PMUMON_CLI_GLOBAL_H

#include <stdbool.h>
#include <stdio.h>

#include "pmumon/pmumon.h"

/* Options every command takes (parsed before the command name, or after it). */
struct cli_global {
	const char *root;		  /* --root or PMUMON_ROOT */
	const char *sim;		  /* --sim or PMUMON_SIM: a simulated platform spec */
	bool root_from_env, sim_from_env; /* a command-line flag overrides them */
	const char *events_dirs[8];	  /* --events-dir, repeatable */
	int n_events_dirs;
	bool events_lenient; /* --events-lenient: count without what a pack file refused */
	int verbose;	     /* -v, repeatable */
	/* set by cli_ctx_new for a simulated machine: its platform name, and
	 * whether its clock is virtual (time moves only when pmumon waits) */
	const char *sim_platform;
	bool sim_virtual_clock;
	/* a write error on standard output was dealt with already (said, or a
	 * reader that went away): main's last check need not say it again */
	bool stdout_error_handled;
	/* run as perf (argv[0] perf, or --perf on stat and list): perf 6.1's own
	 * options, layouts, streams, defaults and exit statuses (cli/perfmode.c) */
	bool perf_mode;
};

extern struct cli_global arg_global;

/* getopt codes of the options every command takes, for their option tables */
#define CLI_OPT_ROOT 0x1000
#define CLI_OPT_SIM 0x1001
#define CLI_OPT_EVENTS_DIR 0x1002
#define CLI_OPT_EVENTS_LENIENT 0x1003
/* clang-format off */
#define CLI_GLOBAL_OPTIONS \
	{ "root", required_argument, NULL, CLI_OPT_ROOT }, \
	{ "sim", required_argument, NULL, CLI_OPT_SIM }, \
	{ "events-dir", required_argument, NULL, CLI_OPT_EVENTS_DIR }, \
	{ "events-lenient", no_argument, NULL, CLI_OPT_EVENTS_LENIENT }, \
	{ "verbose", no_argument, NULL, 'v' }
/* clang-format on */

/* Take a global option (--root, -v) seen by a command's getopt; false if c is not one. */
bool cli_global_option(int c, const char *arg);

/* Exit codes. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* counting or the machine failed */
	EXIT_USAGE = 2, /* the command line is wrong */
};

/* perf's exit status for a command line it refuses (parse_options' usage: 129) */
#define CLI_PERF_EXIT_USAGE 129
/* EXIT_USAGE, or perf's 129 in perf mode */
int cli_exit_usage(void);

/* A diag's hint in pmumon's words: its reason's words (enum pm_reason) as
 * the flags that do it, in place of the library's (cli/hints.c). */
void cli_hint(const struct pm_diag *d, char *buf, size_t size);
/* The same for any text whose words from fix_at on are the reason's (a doctor's fix). */
void cli_words(enum pm_reason reason, const char *text, int fix_at, const char *subject, char *buf,
	       size_t size);
/* Print "pmumon: <msg>" (and the spec with a caret, and the hint) once. */
void cli_report(const char *what, int err, const struct pm_diag *d);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Warn once per kind of doubt (partial, wrap?, reprogrammed, reset, lost,
 * undefined) when a report's rows first carry it. */
struct cli_quality {
	unsigned warned; /* PM_ROW_* already said */
};
void cli_quality__warn(struct cli_quality *q, const struct pm_report *r);

/* A context for the machine the global options name, discovered; reports its own errors. */
int cli_ctx_new(struct pm_ctx **ret_ctx);
/* A context for a recording's machine (pmumon import); it takes the recording over. */
int cli_ctx_new_replay(struct pm_replay *replay, const char *packs, const char *cpuid,
		       struct pm_ctx **ret_ctx);

#endif
