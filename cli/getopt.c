// SPDX-License-Identifier: GPL-2.0-only
/*
 * The getopt loop of every command that shows counts (cli.h, cli_getopt):
 * above the count options (options.c) and the live ones (live.c), which do
 * not know of each other.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

int cli_getopt(int argc, char **argv, const struct cli_command_options *co, struct cli_count *count,
	       struct cli_live_args *live, void *arg)
{
	int c, r;

	while ((c = getopt_long(argc, argv, co->shortopts, co->longopts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		if (c == 'h') {
			co->usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') { /* getopt said what was wrong */
			fprintf(stderr, "(pmumon %s --help lists the options)\n", co->name);
			return -EINVAL;
		}
		r = count ? cli_count__option(count, c, optarg) : 0;
		if (r == 0 && live)
			r = cli_live__option(live, c, optarg);
		if (r == 0)
			r = co->own(arg, c, optarg); /* the command's own */
		else if (r > 0)
			r = 0;
		if (r)
			return r;
	}
	return 0;
}
