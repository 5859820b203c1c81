/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * perf mode (cli/perfmode.c). */
#ifndef PMUMON_CLI_PERFMODE_H
#define PMUMON_CLI_PERFMODE_H

#include <stdbool.h>

#include "pmumon/pmumon.h"

/* ---- perf mode (cli/perfmode.c): pmumon as a drop-in for perf stat and perf list ---- */

/* Was pmumon run as perf (argv[0]'s last component "perf")? */
bool cli_perf_name(const char *argv0);
/* "--perf" among a command's options (before "--" or its first operand): perf mode. */
bool cli_perf_flag(int argc, char **argv);
/* main in perf mode: `perf [--sim ...] stat|list ...`; perf's other commands are refused. */
int cli_perf_main(int argc, char **argv);
/* perf stat 6.1's default events (add_default_attributes): cpu-clock (-a, -C) or
 * task-clock, context-switches, cpu-migrations, page-faults, the stalled-cycles
 * events the cpu PMU lists, cycles, instructions, branches, branch-misses; 0 or
 * the exit status (said). */
int cli_perf_defaults(struct pm_ctx *ctx, struct pm_evlist *l, bool cpu_target);
/* `stat record` / `stat report` (perf's subcommands, as perf matches them: 3 letters
 * or more of the word): said not supported, with what to use; true when it was one. */
bool cli_stat_subcommand(const char *arg);
/* perf list [--raw-dump] [hw|sw|cache|tracepoint|pmu|metric|metricgroup|GLOB ...] */
int cli_perf_list(int argc, char **argv);

#endif
