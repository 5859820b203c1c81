// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon doctor: what this machine can count and, for what it cannot, why
 * and the exact fix (docs/doctor.md). The checks are the library's
 * (pm_ctx__doctor, reads only); this prints them, a line each, or as JSON.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const verdict_name[] = { "ok", "warning", "problem" };

static void usage(FILE *f)
{
	fprintf(f, "usage: pmumon doctor [-j]\n"
		   "\n"
		   "Looks this machine over and says, one line each, what can be counted and,\n"
		   "for what cannot, why and the command that fixes it:\n"
		   "  user, perf   who pmumon runs as, its capabilities, perf_event_paranoid\n"
		   "  lockdown     kernel lockdown (it refuses MSR and debugfs writes)\n"
		   "  driver       the kernel modules the platform's counters come from:\n"
		   "               loaded, built in, loadable, or missing from this kernel\n"
		   "  msr          msr.allow_writes, where counters are read through MSRs\n"
		   "  machine      a virtual machine, with or without a virtual PMU\n"
		   "  watchdog     the NMI watchdog holding a core counter on every CPU\n"
		   "  container    a read-only /sys, missing capabilities\n"
		   "  counters     another pmumon holding counters (which pid)\n"
		   "  metrics      which of the platform pack's metrics can be computed here\n"
		   "\n"
		   "It only reads: nothing is programmed and no counter is opened, so another\n"
		   "tool counting meanwhile is not disturbed.\n"
		   "\n"
		   "  -j, --json   one JSON object: {\"findings\": [{\"verdict\", \"topic\",\n"
		   "               \"what\", \"fix\"}, ...], \"problems\": N, \"warnings\": N}\n"
		   "  -h, --help   this text\n"
		   "\n"
		   "Exit status: 0 when nothing blocks counting (warnings allowed), 1 when\n"
		   "a problem does, 2 on a usage error.\n"
		   "Try it on a simulated machine: pmumon --sim amdzen2:user=nobody doctor\n");
}

static void print_text(const struct pm_finding *f, size_t n, bool simulated)
{
	size_t problems = 0, warnings = 0;

	if (simulated)
		printf("[SIMULATED: %s] a simulated machine (--sim), not this one\n\n",
		       arg_global.sim_platform ? arg_global.sim_platform : "sim");
	for (size_t i = 0; i < n; i++) {
		printf("%-8s %-10s %s\n", verdict_name[f[i].verdict], f[i].topic, f[i].what);
		if (f[i].fix[0])
			printf("%-8s %-10s fix: %s\n", "", "", f[i].fix);
		problems += f[i].verdict == PM_VERDICT_PROBLEM;
		warnings += f[i].verdict == PM_VERDICT_WARNING;
	}
	printf("\n%zu problem%s, %zu warning%s: %s\n", problems, problems == 1 ? "" : "s", warnings,
	       warnings == 1 ? "" : "s",
	       problems ? "some counting is blocked until the fixes above are applied" :
	       warnings ? "counting works, within the limits above" :
			  "counting works");
}

static void print_json(const struct pm_finding *f, size_t n, bool simulated)
{
	size_t problems = 0, warnings = 0;

	printf("{\"simulated\":%s,\"findings\":[", simulated ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"verdict\":\"%s\",\"topic\":", i ? "," : "",
		       verdict_name[f[i].verdict]);
		cli_json_str(stdout, f[i].topic);
		printf(",\"what\":");
		cli_json_str(stdout, f[i].what);
		printf(",\"fix\":");
		cli_json_str(stdout, f[i].fix);
		putchar('}');
		problems += f[i].verdict == PM_VERDICT_PROBLEM;
		warnings += f[i].verdict == PM_VERDICT_WARNING;
	}
	printf("],\"problems\":%zu,\"warnings\":%zu}\n", problems, warnings);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_GLOBAL_OPTIONS,
		{ 0 },
	};
	struct pm_finding *f = NULL;
	struct pm_ctx *ctx = NULL;
	bool json = false, blocked = false;
	size_t n = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "jhv", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s' (pmumon doctor [-j])", argv[optind]);
		return EXIT_USAGE;
	}
	if (cli_ctx_new(&ctx) < 0)
		return EXIT_FAIL;
	r = pm_ctx__doctor(ctx, &f, &n);
	if (r < 0) {
		cli_error("looking the machine over failed: %s", strerror(-r));
		pm_ctx__free(ctx);
		return EXIT_FAIL;
	}
	if (json)
		print_json(f, n, pm_ctx__simulated(ctx));
	else
		print_text(f, n, pm_ctx__simulated(ctx));
	for (size_t i = 0; i < n; i++)
		blocked |= f[i].verdict == PM_VERDICT_PROBLEM;
	free(f);
	pm_ctx__free(ctx);
	return blocked ? EXIT_FAIL : EXIT_OK;
}
