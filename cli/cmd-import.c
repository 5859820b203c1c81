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

#include "cli.h"

#define MAX_FILE_BYTES (256u << 20)

struct import_args {
	struct cli_count count; /* -M, --define, how to show it */
	const char *file;
	const char *packs;
	enum pm_replay_format in_format;
	char in_sep;
	double duration_s;
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
	      "      --input-separator SEP  perf stat -x's separator when not ','\n",
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

	for (size_t i = 0; i < CLI_ARRAY_SIZE(formats); i++)
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
		a->packs = val;
		return 0;
	case OPT_DURATION:
		if (cli_parse_double(val, &a->duration_s) < 0 || a->duration_s <= 0 ||
		    a->duration_s > 1e9) {
			cli_error("--duration wants seconds, such as 10 or 0.5, not '%s'", val);
			return -EINVAL;
		}
		return 0;
	case OPT_IN_FORMAT:
		return parse_in_format(val, &a->in_format) < 0 ? -EINVAL : 0;
	case OPT_IN_SEP:
		return cli_parse_separator("--input-separator", val, &a->in_sep) < 0 ? -EINVAL : 0;
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
	if (optind + 1 != argc) {
		cli_error(optind == argc ?
				  "import wants the FILE to read (or - for standard input)" :
				  "import reads one FILE, not '%s' too",
			  optind < argc ? argv[optind + 1] : "");
		return -EINVAL;
	}
	a->file = argv[optind];
	return 0;
}

static bool packs_known(struct pm_ctx *ctx, const char *packs)
{
	const char *have = pm_ctx__packs(ctx);
	char *copy = strdup(packs), *save = NULL;
	bool ok = copy != NULL;

	for (char *p = ok ? strtok_r(copy, ",", &save) : NULL; p; p = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(p);
		bool found = false;

		for (const char *h = have; *h && !found;) {
			size_t l = strcspn(h, ",");

			found = l == n && !strncmp(h, p, n);
			h += l + (h[l] == ',');
		}
		if (!found) {
			cli_error("no platform pack '%s' (packs: built-in directories under data/, "
				  "or --events-dir)",
				  p);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

/* The recording, parsed: 0, or the exit status (said). */
static int read_recording(const struct import_args *a, struct pm_replay **ret)
{
	struct pm_replay_opts ro = { .size = sizeof(ro) };
	struct pm_diag d;
	char *buf = NULL;
	size_t len = 0;
	int r = cli_read_file(a->file, MAX_FILE_BYTES, &buf, &len);

	if (r == -EFBIG) {
		cli_error("'%s' is too large to import (at most %u MiB)", a->file,
			  MAX_FILE_BYTES >> 20);
		return EXIT_FAIL;
	}
	if (r < 0) {
		cli_error("cannot read '%s': %s", a->file, strerror(-r));
		return EXIT_FAIL;
	}
	ro.format = a->in_format;
	ro.sep = a->in_sep;
	ro.name = a->file;
	ro.duration_ns = (uint64_t)(a->duration_s * 1e9);
	r = pm_replay__parse(buf, len, &ro, ret, &d);
	free(buf);
	if (r < 0) {
		cli_report(a->file, r, &d);
		return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
	}
	return 0;
}

/* What the recording lacks, said before its rows. */
static void say_gaps(const struct import_args *a, const struct pm_replay *rp)
{
	char note[1024];

	if (pm_replay__unsupported(rp, note, sizeof(note)) == 0 && note[0])
		cli_info("left out, not supported where they were counted: %s", note);
	if (!pm_replay__duration_known(rp))
		cli_info("%s has totals without a duration_time row: metrics that divide by "
			 "duration_time are <not counted>; give --duration SECONDS",
			 a->file);
}

/* The recording's intervals (if it has them) and its totals, written: 0 or -errno (said). */
static int play(const struct import_args *a, struct pm_session *s, size_t n_samples, bool intervals,
		struct cli_output *out)
{
	sigset_t none;
	int r;

	/* a closed pipe is EPIPE: the end of a wanted output; a replay programs no
	 * counter, so a signal may end the import where it stands */
	sigemptyset(&none);
	cli_signals_setup(&none);
	r = pm_session__enable(s);
	for (size_t i = 0; r == 0 && i < n_samples; i++) {
		r = pm_session__read(s);
		if (r < 0)
			cli_error("replaying '%s' failed: %s", a->file, strerror(-r));
		else if (intervals)
			r = cli_output__report(out, pm_session__report(s, true));
	}
	if (r == 0)
		r = cli_output__report(out, pm_session__report(s, false));
	pm_session__disable(s);
	return r;
}

int cmd_import(int argc, char **argv)
{
	struct import_args a = { 0 };
	struct pm_replay *rp = NULL;
	struct pm_ctx *ctx = NULL;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_session_opts so = { .size = sizeof(so), .target = PM_TARGET_SYSTEM };
	struct pm_out_opts oo = { .size = sizeof(oo) };
	struct cli_output out = { 0 };
	struct pm_diag d;
	char target[600];
	size_t n_samples;
	bool intervals;
	int r, ret;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	ret = read_recording(&a, &rp);
	if (ret)
		return ret;
	n_samples = pm_replay__sample_count(rp);
	intervals = pm_replay__intervals(rp);
	so.aggr = a.count.n_aggr ? a.count.aggr : pm_replay__aggr(rp);
	oo.simulated = pm_replay__sim_platform(rp) != NULL;
	oo.sim_platform = pm_replay__sim_platform(rp);
	if (oo.sim_platform && !oo.sim_platform[0])
		oo.sim_platform = NULL;
	snprintf(target, sizeof(target), "'%s' (%s, imported)", a.file, pm_replay__format_name(rp));
	oo.target = target;
	say_gaps(&a, rp);
	if (cli_ctx_new_replay(rp, a.packs, &ctx) < 0) /* it owns rp now, until pm_ctx__free */
		return EXIT_FAIL;
	ret = EXIT_USAGE;
	if (a.packs && !packs_known(ctx, a.packs))
		goto out;
	r = pm_evlist__new(ctx, &l);
	if (r == 0)
		r = pm_evlist__add_recorded(l, &d);
	if (r < 0) {
		cli_report(a.file, r, &d);
		ret = r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	if (cli_count__add(&a.count, l) < 0)
		goto out;
	ret = EXIT_FAIL;
	r = pm_session__new(l, &so, &s, &d);
	if (r == 0)
		r = pm_session__open(s, &d);
	if (r < 0) {
		cli_report(a.file, r, &d);
		goto out;
	}
	if (cli_output__open(&out, &a.count, &oo) < 0)
		goto out;
	r = play(&a, s, n_samples, intervals, &out);
	/* a reader that stopped early (| head) is not a failure, as in stat */
	ret = r < 0 && r != -EPIPE ? EXIT_FAIL : EXIT_OK;
out:
	if (cli_output__close(&out) < 0)
		ret = EXIT_FAIL;
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	return ret;
}
