// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every command shares: the global options (--root, --sim,
 * --events-dir, -v; perf mode) in arg_global, and pmumon's messages on
 * stderr, each said once, naming the thing and the fix, as those options
 * have them said.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-text.h"
#include "util.h"

struct cli_global arg_global;

bool cli_global_option(int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_ROOT:
		arg_global.root = arg;
		if (arg_global.sim_from_env)
			arg_global.sim = NULL; /* the command line names the machine */
		return true;
	case CLI_OPT_SIM:
		arg_global.sim = arg;
		if (arg_global.root_from_env)
			arg_global.root = NULL;
		return true;
	case CLI_OPT_EVENTS_DIR:
		if (arg_global.n_events_dirs < (int)PM_ARRAY_SIZE(arg_global.events_dirs))
			arg_global.events_dirs[arg_global.n_events_dirs++] = arg;
		else
			cli_error("--events-dir: at most %zu directories; '%s' is left out",
				  PM_ARRAY_SIZE(arg_global.events_dirs), arg);
		return true;
	case CLI_OPT_EVENTS_LENIENT:
		arg_global.events_lenient = true;
		return true;
	case 'v':
		arg_global.verbose++;
		return true;
	default:
		return false;
	}
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *msg;
	int n = vasprintf(&msg, fmt, ap);

	fprintf(stderr, "pmumon: %s", prefix);
	if (n >= 0) {
		cli_escape(stderr, msg, (size_t)n);
		free(msg);
	} else {
		fputs("(out of memory)", stderr); /* msg is undefined then */
	}
	fputc('\n', stderr);
}

#define ECHO_CONTEXT 60 /* columns of a long input shown on each side of the caret */

/* The input a diag points into, with a caret under the part it means. */
static void show_input(const struct pm_diag *d)
{
	size_t n = strlen(d->input), from = 0, to = n, mark = 0;
	int col;

	if (d->pos >= 0 && (size_t)d->pos > n) {
		fputs("    ", stderr);
		cli_escape(stderr, d->input, n);
		fputc('\n', stderr);
		return;
	}
	if (d->pos >= 0) {
		size_t pos = (size_t)d->pos, len = (size_t)(d->len > 0 ? d->len : 1);

		mark = PM_MIN(PM_MIN(len, n - pos), (size_t)ECHO_CONTEXT * 2);
		/* a byte position inside a character marks the whole character */
		while (pos + mark < n && ((unsigned char)d->input[pos + mark] & 0xc0) == 0x80)
			mark++;
		/* a long line: the part around the caret, cut at characters */
		if (cli_escaped_width(d->input, n) > 3 * ECHO_CONTEXT) {
			if (pos > ECHO_CONTEXT)
				from = pos - ECHO_CONTEXT;
			to = PM_MIN(n, pos + mark + ECHO_CONTEXT);
			while (from > 0 && ((unsigned char)d->input[from] & 0xc0) == 0x80)
				from--;
			while (to < n && ((unsigned char)d->input[to] & 0xc0) == 0x80)
				to++;
		}
	}
	fputs("    ", stderr);
	if (from)
		fputs("...", stderr);
	cli_escape(stderr, d->input + from, to - from);
	fputs(to < n ? "...\n" : "\n", stderr);
	if (d->pos < 0)
		return;
	col = (from ? 3 : 0) + cli_escaped_width(d->input + from, (size_t)d->pos - from);
	fprintf(stderr, "    %*s^", col, "");
	for (int i = cli_escaped_width(d->input + d->pos, mark); i > 1; i--)
		fputc('~', stderr);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_info(const char *fmt, ...)
{
	va_list ap;

	if (arg_global.perf_mode && !arg_global.verbose)
		return; /* perf prints no notices of pmumon's */
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_report(const char *what, int err, const struct pm_diag *d)
{
	char hint[sizeof(d->hint) + 256];

	if (!d || !d->msg[0]) {
		cli_error("%s: %s", what, strerror(err < 0 ? -err : err));
		return;
	}
	cli_error("%s", d->msg);
	if (d->input[0])
		show_input(d);
	cli_hint(d, hint, sizeof(hint));
	if (hint[0]) {
		fputs("  hint: ", stderr);
		cli_escape(stderr, hint, strlen(hint));
		fputc('\n', stderr);
	}
}
