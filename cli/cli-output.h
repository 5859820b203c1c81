/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * the output of every command that shows counts (cli/output.c). */
#ifndef PMUMON_CLI_OUTPUT_H
#define PMUMON_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "pmumon/pmumon.h"
#include "cli-count.h"
#include "cli-global.h"

/*
 * The output (cli/output.c), the same for every command that shows counts.
 * cli_output__check goes with the checks, before any side effect: the -o
 * FILE could be written (nothing is created or truncated yet). After the
 * last check, cli_output__open opens it and builds the writer in the
 * format the options chose (opts gives the target and simulation marks).
 * cli_output__report warns once per doubt in the rows (cli_quality),
 * writes the report (its metric rows alone with --metric-only), and says
 * the first write error naming the file; a reader gone (EPIPE) ends the
 * output quietly. cli_output__close frees it and closes the file: 0 or
 * -errno (said).
 */
struct cli_output {
	FILE *f;
	const char *path; /* -o FILE, NULL: standard output */
	struct pm_out *out;
	bool metric_only;
	struct pm_row *rows; /* --metric-only's rows */
	size_t n_rows_cap;
	struct cli_quality quality;
	int err; /* the first write's errno, 0: none failed */
};

int cli_output__check(const struct cli_count *a);
int cli_output__open(struct cli_output *o, const struct cli_count *a,
		     const struct pm_out_opts *opts);
int cli_output__report(struct cli_output *o, const struct pm_report *r);
int cli_output__close(struct cli_output *o);

#endif
