// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon doctor: what this machine can count and, for what it cannot, why
 * and the exact fix (docs/doctor.md). The checks are the library's
 * (pm_ctx__doctor, reads only); this prints them, a line each, or as JSON.
 */
#include <errno.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-commands.h"
#include "cli-text.h"

static const char *const verdict_name[] = { "ok", "warning", "problem" };

static void usage(FILE *f)
{
	fprintf(f, "usage: pmumon doctor [-j] [--count]\n"
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
		   "  --count      also open the default events system-wide, as stat would, and\n"
		   "               read them once: finds what only opening says (EBUSY from a\n"
		   "               driver, a counter in use). This programs counters: on a\n"
		   "               Yitian 710 each open resets the ali_drw PMU's counters, so\n"
		   "               another tool counting there is disturbed\n"
		   "  -h, --help   this text\n"
		   "\n"
		   "Exit status: 0 when nothing blocks counting (warnings allowed), 1 when\n"
		   "a problem does, 2 on a usage error.\n"
		   "Try it on a simulated machine: pmumon --sim amdzen2:user=nobody doctor\n");
}

/* --count: the default events opened system-wide and read once, as stat would. */
static int try_counting(struct pm_ctx *ctx, struct pm_finding **f, size_t *n)
{
	struct pm_session_opts so = { .size = sizeof(so), .target = PM_TARGET_SYSTEM };
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_finding *x, *grown = realloc(*f, (*n + 1) * sizeof(**f));
	struct pm_diag d;
	char desc[256] = "";
	int r;

	if (!grown)
		return -ENOMEM;
	*f = grown;
	x = &grown[(*n)++];
	*x = (struct pm_finding){ .verdict = PM_VERDICT_OK };
	snprintf(x->topic, sizeof(x->topic), "counting");
	pm_diag__init(&d);
	r = pm_evlist__new(ctx, &l);
	if (r == 0)
		r = pm_evlist__add_defaults(l, true, desc, sizeof(desc), &d);
	if (r == 0)
		r = pm_session__new(l, &so, &s, &d);
	if (r == 0)
		r = pm_session__open(s, &d);
	if (r == 0)
		r = pm_session__enable(s);
	if (r == 0)
		r = pm_session__read(s);
	if (r < 0 && s && pm_session__last_error(s)->msg[0])
		d = *pm_session__last_error(s); /* enable or read: why after open */
	if (r == 0) {
		snprintf(x->what, sizeof(x->what),
			 "the default events (pmumon stat -a) opened on every CPU and read: %zu "
			 "counters",
			 pm_session__counter_count(s));
	} else {
		x->verdict = PM_VERDICT_PROBLEM;
		snprintf(x->what, sizeof(x->what), "counting the default events fails: %s",
			 d.msg[0] ? d.msg : strerror(-r));
		cli_hint(&d, x->fix, sizeof(x->fix));
	}
	if (s)
		pm_session__disable(s);
	pm_session__free(s);
	pm_evlist__free(l);
	return 0;
}

static void print_text(const struct pm_finding *f, size_t n, bool simulated)
{
	size_t problems = 0, warnings = 0;

	if (simulated)
		printf("[SIMULATED: %s] a simulated machine (--sim), not this one\n\n",
		       arg_global.sim_platform ? arg_global.sim_platform : "sim");
	for (size_t i = 0; i < n; i++) {
		char fix[sizeof(f[i].fix) + 256];

		cli_words(f[i].reason, f[i].fix, f[i].fix_at, f[i].subject, fix, sizeof(fix));
		printf("%-8s %-10s %s\n", verdict_name[f[i].verdict], f[i].topic, f[i].what);
		if (fix[0])
			printf("%-8s %-10s fix: %s\n", "", "", fix);
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
		char fix[sizeof(f[i].fix) + 256];

		cli_words(f[i].reason, f[i].fix, f[i].fix_at, f[i].subject, fix, sizeof(fix));
		printf("%s{\"verdict\":\"%s\",\"topic\":", i ? "," : "",
		       verdict_name[f[i].verdict]);
		cli_json_str(stdout, f[i].topic);
		printf(",\"what\":");
		cli_json_str(stdout, f[i].what);
		printf(",\"fix\":");
		cli_json_str(stdout, fix);
		putchar('}');
		problems += f[i].verdict == PM_VERDICT_PROBLEM;
		warnings += f[i].verdict == PM_VERDICT_WARNING;
	}
	printf("],\"problems\":%zu,\"warnings\":%zu}\n", problems, warnings);
}

struct doctor_args {
	bool json, count;
};

static int doctor_option(void *arg, int c, const char *optarg)
{
	struct doctor_args *a = arg;

	(void)optarg;
	if (c == 'j')
		a->json = true;
	else if (c == 'c')
		a->count = true;
	else
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	return 0;
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "count", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		CLI_GLOBAL_OPTIONS,
		{ 0 },
	};
	static const struct cli_command_options co = { "doctor", "jhv", opts, usage,
						       doctor_option };
	struct doctor_args a = { 0 };
	struct pm_finding *f = NULL;
	struct pm_ctx *ctx = NULL;
	bool blocked = false;
	size_t n = 0;
	int r;

	r = cli_getopt(argc, argv, &co, NULL, NULL, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	if (optind < argc) {
		cli_error("unexpected argument '%s' (pmumon doctor [-j] [--count])", argv[optind]);
		return EXIT_USAGE;
	}
	if (cli_ctx_new(&ctx) < 0)
		return EXIT_FAIL;
	r = pm_ctx__doctor(ctx, &f, &n);
	if (r == 0 && a.count)
		r = try_counting(ctx, &f, &n);
	if (r < 0) {
		cli_error("looking the machine over failed: %s", strerror(-r));
		pm_ctx__free(ctx);
		return EXIT_FAIL;
	}
	if (a.json)
		print_json(f, n, pm_ctx__simulated(ctx));
	else
		print_text(f, n, pm_ctx__simulated(ctx));
	for (size_t i = 0; i < n; i++)
		blocked |= f[i].verdict == PM_VERDICT_PROBLEM;
	free(f);
	pm_ctx__free(ctx);
	return blocked ? EXIT_FAIL : EXIT_OK;
}
