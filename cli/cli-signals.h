/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * signals (cli/signals.c). */
#ifndef PMUMON_CLI_SIGNALS_H
#define PMUMON_CLI_SIGNALS_H

#include <signal.h>

/*
 * Signals (cli/signals.c). cli_signals_ending: every terminating signal a
 * process can catch and go on after (SIGHUP, SIGINT, SIGQUIT, SIGTERM,
 * SIGUSR1/2, SIGALRM, ..., the real-time ones); a command that gives some a
 * meaning of its own (serve: SIGHUP reloads) takes them out. cli_signals_setup
 * catches the signals in end, blocks them but while pmumon waits
 * (pm_os_ops.wait), and ignores SIGPIPE (a reader gone is EPIPE on the next
 * write); -1 if one could not be caught. Call it before any thread starts
 * (threads inherit the mask). cli_signals_caught: the last of them that
 * came, 0 while none has: the run must end.
 */
void cli_signals_ending(sigset_t *ret);
int cli_signals_setup(const sigset_t *end);
int cli_signals_caught(void);

#endif
