// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon: read the hardware performance counters of servers, DPUs and SoCs.
 * This file is its entry: the global options before the command, then the
 * command (commands.c), or perf mode (perfmode.c) when run as perf.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-global.h"
#include "cli-commands.h"
#include "cli-perfmode.h"
#include "config.h"

/*
 * Every byte of standard output reached its file, or the error is said
 * (naming it) and the exit status says so. A reader that went away (EPIPE:
 * | head) ends the output quietly, as a failure a command already dealt
 * with is not said twice.
 */
static int close_stdout(int ret)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) != 0)
		e = errno ? errno : -1;
	if (!e && ferror(stdout))
		e = -1; /* an earlier write failed; its errno is gone */
	errno = 0;
	if (fclose(stdout) != 0 && !e)
		e = errno ? errno : -1;
	if (!e || e == EPIPE || arg_global.stdout_error_handled)
		return ret;
	cli_error("cannot write to standard output: %s",
		  e > 0 ? strerror(e) : "a write failed (is the disk full?)");
	return ret == EXIT_OK ? EXIT_FAIL : ret;
}

static int run_main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		/* not in --help: for dist/man/help2man.py and scripts/test-package */
		{ "list-commands", no_argument, NULL, 'L' },
		{ 0 },
	};
	const char *env = getenv("PMUMON_ROOT");
	int c;

	if (env && *env) {
		arg_global.root = env;
		arg_global.root_from_env = true;
	}
	env = getenv("PMUMON_SIM");
	if (env && *env) {
		arg_global.sim = env;
		arg_global.sim_from_env = true;
	}
	/* '+': stop at the command name; its own options follow it */
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'h':
			cli_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("pmumon %s\n", PMUMON_VERSION);
			return EXIT_OK;
		case 'L':
			cli_list_commands(stdout);
			return EXIT_OK;
		default:
			cli_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		cli_usage(stdout);
		return EXIT_OK;
	}
	if (!cli_is_command(argv[optind])) {
		cli_unknown_command(argv[optind]);
		return EXIT_USAGE;
	}
	/* getopt names the program by argv[0]: "pmumon stat: unrecognized option" */
	return cli_run_command(argv[optind], argc - optind, argv + optind);
}

int main(int argc, char **argv)
{
	/* room for any help text and most listings: a write that fails does so at the
	 * last flush, where its errno can be said (a big printf that bypasses a smaller
	 * buffer would fail early and leave no errno behind) */
	static char outbuf[1 << 16]; /* glibc ignores the size without a buffer */

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (argc > 0 && cli_perf_name(argv[0])) {
		/* perf mode: perf 6.1's stat and list (cli/perfmode.c) */
		arg_global.perf_mode = true;
		argv[0] = "perf";
		return close_stdout(cli_perf_main(argc, argv));
	}
	if (argc > 0)
		argv[0] = "pmumon"; /* getopt's messages say pmumon, not the path it ran from */
	return close_stdout(run_main(argc, argv));
}
