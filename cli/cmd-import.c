// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon import: counts recorded elsewhere — perf stat -x, or -j output,
 * pmumon's own CSV, a CSV of raw counts — played back through the same
 * rows, metrics and output formats as pmumon stat (docs/import.md).
 */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-output.h"
#include "cli-commands.h"
#include "cli-replay.h"
#include "cli-values.h"
#include "util.h"

struct import_args {
	struct cli_count count; /* -M, --define, how to show it */
	struct cli_replay_args in;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmumon import [OPTIONS] FILE\n"
		   "\n"
		   "Computes a platform pack's metrics from counts gathered elsewhere, on this\n"
		   "or any other machine, and prints them as pmumon stat would: the same rows,\n"
		   "running shares, <not counted>, table, CSV or JSON Lines. FILE ('-': standard\n"
		   "input) is one of (found from its first line):\n"
		   "  perf stat -x,        perf's CSV, totals or every interval (-I), merged,\n"
		   "                       -A, --per-socket/--per-die/--per-core or --no-merge\n"
		   "                       (perf 6.1's layout; run time and %% running kept)\n"
		   "  perf stat -j         perf's JSON, the same\n"
		   "  pmumon CSV           pmumon stat -x, output (round-trips exactly)\n"
		   "  pmumon JSON Lines    pmumon stat -j output (the same)\n"
		   "  FILE.db              a pmumon recording (pmumon record, serve --store):\n"
		   "                       its last run, or --run N\n"
		   "  counts CSV           raw counts from other collectors, with a header row:\n"
		   "                       time_s,device,cpu,event,count,enabled_ns,running_ns\n"
		   "                       (event and count required; docs/import.md)\n"
		   "\n"
		   "Options:\n");
	cli_count__usage_metrics(f);
	fputs("      --pack NAMES      the platform packs of the machine that counted (comma\n"
	      "                        separated); default: packs whose PMU family the file\n"
	      "                        names (amd_df -> amdzen2, ali_drw -> yitian710)\n"
	      "      --duration SECONDS  how long totals without timestamps cover, when the\n"
	      "                        file has no duration_time row (perf adds one for -M)\n"
	      "      --input-format F  perf-csv, perf-json, pmumon-csv, pmumon-json or counts-csv\n"
	      "      --input-separator SEP  perf stat -x's separator when not ','\n"
	      "      --cpuid ID        the CPU that counted, as perf names it (GenuineIntel-6-8F-8,\n"
	      "                        an arm64 MIDR): picks the directory of an --events-dir\n"
	      "                        perf tree's mapfile, and strcmp_cpuid_str(); default:\n"
	      "                        the one a pmumon recording names (-v says which)\n"
	      "      --run N           of a recording (FILE.db), run N (pmumon report lists\n"
	      "                        them); default: the last\n",
	      f);
	cli_count__usage_show(f, "the finest rows the file has");
	fputs("\n"
	      "Examples:\n"
	      "  perf stat -x, -a -I 1000 -e 'ali_drw/hif_rd/' --no-merge -o bw.csv -- sleep 10\n"
	      "  pmumon import -M ddr_read_bandwidth.all bw.csv\n"
	      "  perf stat -j -a -M nps1_die_to_dram -- sleep 5 2> df.json\n"
	      "  pmumon import --pack amdzen2 -M amd_df_bw --duration 5 df.json\n"
	      "  pmumon stat -a -x, -o run.csv -I 1000 -- sleep 5; pmumon import run.csv\n",
	      f);
}

enum {
	OPT_PACK = 1000,
	OPT_DURATION,
	OPT_IN_FORMAT,
	OPT_IN_SEP,
	OPT_RUN,
	OPT_CPUID,
};

static int parse_in_format(const char *arg, enum pm_replay_format *ret)
{
	static const struct {
		const char *name;
		enum pm_replay_format format;
	} formats[] = {
		{ "perf-csv", PM_REPLAY_PERF_CSV },	  { "perf-json", PM_REPLAY_PERF_JSON },
		{ "pmumon-csv", PM_REPLAY_PMUMON_CSV },	  { "counts-csv", PM_REPLAY_COUNTS_CSV },
		{ "pmumon-json", PM_REPLAY_PMUMON_JSON },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(formats); i++)
		if (!strcmp(arg, formats[i].name)) {
			*ret = formats[i].format;
			return 0;
		}
	cli_error("--input-format is perf-csv, perf-json, pmumon-csv, pmumon-json or counts-csv, "
		  "not '%s'",
		  arg);
	return -EINVAL;
}

/* import's own options; the count options go to cli_count__option. 1: --help. */
/* One of import's own options: 0, 1 for --help, -EINVAL (said). */
static int import_option(void *arg, int c, const char *val)
{
	struct import_args *a = arg;

	switch (c) {
	case OPT_PACK:
		a->in.packs = val;
		return 0;
	case OPT_DURATION:
		if (pm_parse_double_str(val, &a->in.duration_s) < 0 || a->in.duration_s <= 0 ||
		    a->in.duration_s > 1e9) {
			cli_error("--duration wants seconds, such as 10 or 0.5, not '%s'", val);
			return -EINVAL;
		}
		return 0;
	case OPT_IN_FORMAT:
		return parse_in_format(val, &a->in.format) < 0 ? -EINVAL : 0;
	case OPT_RUN: {
		unsigned long run;

		if (cli_parse_uint("--run", val, 1000000000, &run) < 0 || !run) {
			cli_error("--run wants a run of the recording, 1 or more, not '%s'", val);
			return -EINVAL;
		}
		a->in.run = (long long)run;
		return 0;
	}
	case OPT_CPUID:
		if (!val[0] || strlen(val) > 127 || strpbrk(val, " \t,")) {
			cli_error("--cpuid wants the CPU id as perf prints it (GenuineIntel-6-8F-8, "
				  "AuthenticAMD-25-11-1, an arm64 MIDR 0x00000000410fd490), not '%s'",
				  val);
			return -EINVAL;
		}
		a->in.cpuid = val;
		return 0;
	case OPT_IN_SEP:
		return cli_parse_separator("--input-separator", val, &a->in.sep) < 0 ? -EINVAL : 0;
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

static int parse_args(int argc, char **argv, struct import_args *a)
{
	static const struct option opts[] = {
		CLI_COUNT_OPTIONS,
		{ "pack", required_argument, NULL, OPT_PACK },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "input-format", required_argument, NULL, OPT_IN_FORMAT },
		{ "input-separator", required_argument, NULL, OPT_IN_SEP },
		{ "run", required_argument, NULL, OPT_RUN },
		{ "cpuid", required_argument, NULL, OPT_CPUID },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = { "import", CLI_COUNT_SHORT "vh", opts, usage,
						       import_option };
	int r = cli_getopt(argc, argv, &co, &a->count, NULL, a);

	if (r)
		return r;
	if (cli_count__check(&a->count) < 0)
		return -EINVAL;
	if (a->count.aggr == PM_AGGR_THREAD || a->count.group) {
		cli_error("%s applies where pmumon counts live (stat), not to counts already "
			  "recorded",
			  a->count.group ? "--group" : "--per-thread");
		return -EINVAL;
	}
	if (optind + 1 != argc) {
		cli_error(optind == argc ?
				  "import wants the FILE to read (or - for standard input)" :
				  "import reads one FILE, not '%s' too",
			  optind < argc ? argv[optind + 1] : "");
		return -EINVAL;
	}
	a->in.file = argv[optind];
	return 0;
}

static int to_output(void *arg, const struct pm_report *r)
{
	return cli_output__report(arg, r);
}

int cmd_import(int argc, char **argv)
{
	struct import_args a = { 0 };
	struct cli_replay rp;
	struct cli_output out = { 0 };
	int r, ret;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	ret = cli_replay__open(&rp, &a.in, &a.count);
	if (ret == 0 && cli_output__open(&out, &a.count, &rp.oo) < 0)
		ret = EXIT_FAIL;
	if (ret == 0) {
		r = cli_replay__play(&rp, to_output, &out);
		/* a reader that stopped early (| head) is not a failure, as in stat */
		ret = r < 0 && r != -EPIPE ? EXIT_FAIL : EXIT_OK;
	}
	if (cli_output__close(&out) < 0)
		ret = EXIT_FAIL;
	cli_replay__close(&rp);
	return ret;
}
