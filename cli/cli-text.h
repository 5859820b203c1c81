/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * user text escaped, did-you-mean, a row's place for people (cli/util.c). */
#ifndef PMUMON_CLI_TEXT_H
#define PMUMON_CLI_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "pmumon/pmumon.h"

/*
 * len bytes of user text (an event spec, a file name) onto f with what a
 * terminal would act on escaped: control characters (C0, DEL, C1 as UTF-8
 * encodes them) and bytes that are not UTF-8 become \xHH (\t, \n, \r for
 * those three); other UTF-8 text is kept. cli_escaped_width: the columns
 * that takes (characters, not bytes).
 */
void cli_escape(FILE *f, const char *s, size_t len);
/* Edits (insert, delete, change, swap two neighbours) from a to b, up to 3: the "did you
 * mean" of a mistyped name. */
int cli_edits(const char *a, const char *b);
/* s as a JSON string: quotes, backslashes and control characters escaped. */
void cli_json_str(FILE *f, const char *s);
/* Where a row was counted, as --per-* names it: its place, device, the domain of an uncore
 * row per CPU ("L3 CPUs 4-7,68-71"), cpuN, S0-D1, S0, or "all". */
void cli_row_place(const struct pm_row *r, char *buf, size_t size);
/* A place for people, with the cgroup a row was counted in: "all in user.slice" (-G,
 * --for-each-cgroup); the place alone without one. */
void cli_place_in(const char *place, const char *cgroup, char *buf, size_t size);
/* cli_row_place, then its cgroup as cli_place_in says it. */
void cli_row_where(const struct pm_row *r, char *buf, size_t size);
int cli_escaped_width(const char *s, size_t len);

#endif
