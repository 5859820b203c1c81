// SPDX-License-Identifier: GPL-2.0-only
/*
 * The getopt loop of every command that shows counts (cli.h, cli_getopt):
 * above the count options (options.c) and the live ones (live.c), which do
 * not know of each other.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-live.h"
#include "cli-text.h"
#include "util.h"

/*
 * perf stat's options that pmumon's counting commands do not have (perf
 * 6.1's 'perf stat -h'), and what to do instead: a perf user typing one
 * learns that, not only getopt's "unrecognized option".
 */
static const struct {
	char shortopt;
	const char *longopt, *instead;
} perf_only[] = {
	{ 'D', "delay", "pmumon stat has it (-D MS: counting starts MS after the command)" },
	{ 'd', "detailed",
	  "applies where pmumon counts live (stat, record, top, serve), not to "
	  "counts already recorded" },
	{ 'G', "cgroup",
	  "applies where pmumon counts live (stat with -a or -C, record, top, serve), not to "
	  "counts already recorded (their rows per cgroup are imported as such)" },
	{ 0, "for-each-cgroup",
	  "applies where pmumon counts live (stat with -a or -C, record, top, serve), not to "
	  "counts already recorded (their rows per cgroup are imported as such)" },
	{ 'i', "no-inherit", "not in pmumon yet: a command's children are counted" },
	{ 'n', "null", "not in pmumon" },
	{ 'p', "pid", "pmumon stat has it (-p PID: a running process's threads)" },
	{ 't', "tid", "pmumon stat has it (-t TID: running threads)" },
	{ 'r', "repeat", "pmumon stat has it (-r N: the command run N times, the means shown)" },
	{ 'S', "sync", "not in pmumon" },
	{ 'T', "transaction", "not in pmumon" },
	{ 0, "all-kernel",
	  "applies where pmumon counts live (stat, record, top, serve), not to "
	  "counts already recorded" },
	{ 0, "all-user",
	  "applies where pmumon counts live (stat, record, top, serve), not to "
	  "counts already recorded" },
	{ 0, "topdown", "not in pmumon: name a platform pack's metrics (-M)" },
	{ 0, "td-level", "not in pmumon" },
	{ 0, "smi-cost", "not in pmumon" },
	{ 0, "iostat", "not in pmumon" },
	{ 0, "metric-no-group", "not in pmumon" },
	{ 0, "metric-no-merge", "not in pmumon" },
	{ 0, "quiet", "not in pmumon: -o /dev/null" },
	{ 0, "table", "not in pmumon" },
	{ 0, "scale", "pmumon always scales multiplexed counts, and says so in each row" },
};

/*
 * After getopt's own message for an option it refused: what perf users mean
 * by it, or the nearest option this command has.
 */
static void suggest(const struct cli_command_options *co, char **argv, int argc)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	const struct option *best = NULL;
	int best_d = 3;
	size_t n;
	char name[64];

	if (!strncmp(arg, "--", 2)) {
		n = strcspn(arg + 2, "=");
		snprintf(name, sizeof(name), "%.*s", (int)PM_MIN(n, sizeof(name) - 1), arg + 2);
	} else if (optopt > 0 && optopt < 128 && !strchr(co->shortopts, optopt)) {
		name[0] = '\0'; /* a short option this command lacks */
	} else {
		return; /* a known option without its argument: getopt said so */
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(perf_only); i++) {
		if (name[0] ? !strcmp(name, perf_only[i].longopt) :
			      optopt == perf_only[i].shortopt) {
			char shortname[8] = "";

			if (perf_only[i].shortopt)
				snprintf(shortname, sizeof(shortname), "-%c/",
					 perf_only[i].shortopt);
			fprintf(stderr, "pmumon %s: perf stat's %s--%s: %s\n", co->name, shortname,
				perf_only[i].longopt, perf_only[i].instead);
			return;
		}
	}
	for (const struct option *o = co->longopts; name[0] && o->name; o++) {
		int d = cli_edits(name, o->name);

		if (!strcmp(name, o->name))
			return; /* known: its argument was what getopt refused */
		if (d < best_d || (!best && !strncmp(o->name, name, strlen(name)))) {
			best = o;
			best_d = PM_MIN(d, best_d);
		}
	}
	if (best)
		fprintf(stderr, "pmumon %s: did you mean --%s?\n", co->name, best->name);
}

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
			suggest(co, argv, argc);
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
