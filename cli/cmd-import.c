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

#define MAX_ARGS 256
#define MAX_FILE_BYTES (256u << 20)

struct import_args {
	const char *file;
	const char *metrics[MAX_ARGS];
	size_t n_metrics;
	const char *defines[MAX_ARGS];
	size_t n_defines;
	const char *packs;
	enum pm_replay_format in_format;
	char in_sep;
	double duration_s;
	enum pm_out_format format;
	char sep;
	const char *output;
	enum pm_aggr aggr;
	int n_aggr;
	bool metric_only;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmumon import [OPTIONS] FILE\n"
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
		"  counts CSV           raw counts from other collectors, with a header row:\n"
		"                       time_s,device,cpu,event,count,enabled_ns,running_ns\n"
		"                       (event and count required; docs/import.md)\n"
		"\n"
		"Options:\n"
		"  -M, --metrics NAMES   the pack's metrics, by name or group, comma separated;\n"
		"                        events the file lacks make them <not counted>\n"
		"      --define NAME=VALUE  a constant a metric needs (a DDRC clock), repeatable\n"
		"      --pack NAMES      the platform packs of the machine that counted (comma\n"
		"                        separated); default: packs whose PMU family the file\n"
		"                        names (amd_df -> amdzen2, ali_drw -> yitian710)\n"
		"      --duration SECONDS  how long totals without timestamps cover, when the\n"
		"                        file has no duration_time row (perf adds one for -M)\n"
		"      --input-format F  perf-csv, perf-json, pmumon-csv or counts-csv\n"
		"      --input-separator SEP  perf stat -x's separator when not ','\n"
		"How to show it (default: the finest rows the file has):\n"
		"      --per-device, --per-channel, -A/--per-cpu, --per-die, --per-socket, --merge\n"
		"                        rows per PMU instance, memory channel, CPU, die,\n"
		"                        socket, or merged\n"
		"      --metric-only     only the metrics' rows\n"
		"  -x, --field-separator SEP  CSV, as pmumon stat -x\n"
		"  -j, --json            JSON Lines (schema %d)\n"
		"  -o, --output FILE     write there instead of standard output\n"
		"\n"
		"Examples:\n"
		"  perf stat -x, -a -I 1000 -e 'ali_drw/hif_rd/' --no-merge -o bw.csv -- sleep 10\n"
		"  pmumon import -M ddr_read_bandwidth.all bw.csv\n"
		"  perf stat -j -a -M nps1_die_to_dram -- sleep 5 2> df.json\n"
		"  pmumon import --pack amdzen2 -M amd_df_bw --duration 5 df.json\n"
		"  pmumon stat -a -x, -o run.csv -I 1000 -- sleep 5; pmumon import run.csv\n",
		PM_JSON_SCHEMA);
}

enum {
	OPT_DEFINE = 1000,
	OPT_PACK,
	OPT_DURATION,
	OPT_IN_FORMAT,
	OPT_IN_SEP,
	OPT_PER_DEVICE,
	OPT_PER_CHANNEL,
	OPT_PER_DIE,
	OPT_PER_SOCKET,
	OPT_MERGE,
	OPT_METRIC_ONLY,
};

static int set_aggr(struct import_args *a, enum pm_aggr aggr)
{
	a->aggr = aggr;
	a->n_aggr++;
	return 0;
}

static int one_char(const char *opt, const char *arg, char *ret)
{
	return cli_parse_separator(opt, arg, ret);
}

static int parse_args(int argc, char **argv, struct import_args *a)
{
	static const struct option opts[] = {
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric-group", required_argument, NULL, 'g' },
		{ "define", required_argument, NULL, OPT_DEFINE },
		{ "pack", required_argument, NULL, OPT_PACK },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "input-format", required_argument, NULL, OPT_IN_FORMAT },
		{ "input-separator", required_argument, NULL, OPT_IN_SEP },
		{ "per-device", no_argument, NULL, OPT_PER_DEVICE },
		{ "per-channel", no_argument, NULL, OPT_PER_CHANNEL },
		{ "per-cpu", no_argument, NULL, 'A' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-die", no_argument, NULL, OPT_PER_DIE },
		{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
		{ "merge", no_argument, NULL, OPT_MERGE },
		{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "M:g:Ax:jo:vh", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'M':
		case 'g':
		case OPT_DEFINE: {
			const char **arr = c == OPT_DEFINE ? a->defines : a->metrics;
			size_t *n = c == OPT_DEFINE ? &a->n_defines : &a->n_metrics;

			if (*n == MAX_ARGS) {
				cli_error("too many %s options (at most %d)",
					  c == OPT_DEFINE ? "--define" : "-M/-g", MAX_ARGS);
				return -EINVAL;
			}
			arr[(*n)++] = optarg;
			break;
		}
		case OPT_PACK:
			a->packs = optarg;
			break;
		case OPT_DURATION:
			if (cli_parse_double(optarg, &a->duration_s) < 0 || a->duration_s <= 0 ||
			    a->duration_s > 1e9) {
				cli_error("--duration wants seconds, such as 10 or 0.5, not '%s'",
					  optarg);
				return -EINVAL;
			}
			break;
		case OPT_IN_FORMAT:
			if (!strcmp(optarg, "perf-csv"))
				a->in_format = PM_REPLAY_PERF_CSV;
			else if (!strcmp(optarg, "perf-json"))
				a->in_format = PM_REPLAY_PERF_JSON;
			else if (!strcmp(optarg, "pmumon-csv"))
				a->in_format = PM_REPLAY_PMUMON_CSV;
			else if (!strcmp(optarg, "counts-csv"))
				a->in_format = PM_REPLAY_COUNTS_CSV;
			else {
				cli_error("--input-format is perf-csv, perf-json, pmumon-csv or "
					  "counts-csv, not '%s'",
					  optarg);
				return -EINVAL;
			}
			break;
		case OPT_IN_SEP:
			if (one_char("--input-separator", optarg, &a->in_sep) < 0)
				return -EINVAL;
			break;
		case OPT_PER_DEVICE:
			set_aggr(a, PM_AGGR_DEVICE);
			break;
		case OPT_PER_CHANNEL:
			set_aggr(a, PM_AGGR_CHANNEL);
			break;
		case 'A':
			set_aggr(a, PM_AGGR_CPU);
			break;
		case OPT_PER_DIE:
			set_aggr(a, PM_AGGR_DIE);
			break;
		case OPT_PER_SOCKET:
			set_aggr(a, PM_AGGR_SOCKET);
			break;
		case OPT_MERGE:
			set_aggr(a, PM_AGGR_FAMILY);
			break;
		case OPT_METRIC_ONLY:
			a->metric_only = true;
			break;
		case 'x':
			if (one_char("-x", optarg, &a->sep) < 0)
				return -EINVAL;
			a->format = PM_OUT_CSV;
			break;
		case 'j':
			a->format = PM_OUT_JSON;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "(pmumon import --help lists the options)\n");
			return -EINVAL;
		}
	}
	if (a->n_aggr > 1) {
		cli_error(
			"give one of --per-device, --per-channel, --per-cpu, --per-die, --per-socket, "
			"--merge");
		return -EINVAL;
	}
	if (optind + 1 != argc) {
		cli_error(optind == argc ?
				  "import wants the FILE to read (or - for standard input)" :
				  "import reads one FILE, not '%s' too",
			  optind < argc ? argv[optind + 1] : "");
		return -EINVAL;
	}
	if (a->metric_only && !a->n_metrics) {
		cli_error("--metric-only needs -M");
		return -EINVAL;
	}
	a->file = argv[optind];
	return 0;
}

static int add_metrics(struct pm_evlist *l, const struct import_args *a)
{
	struct pm_diag d;
	int r;

	for (size_t i = 0; i < a->n_defines; i++) {
		char name[128];
		double v;

		if (cli_parse_define(a->defines[i], name, sizeof(name), &v) < 0)
			return -EINVAL;
		r = pm_evlist__define(l, name, v);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < a->n_metrics; i++) {
		pm_diag__init(&d);
		r = pm_evlist__add_metrics(l, a->metrics[i], &d);
		if (r < 0) {
			cli_report(a->metrics[i], r, &d);
			return r;
		}
	}
	return 0;
}

/* --metric-only: the report without its event rows. */
static int report(struct pm_out *out, const struct pm_report *rep, bool metric_only,
		  struct pm_row **scratch)
{
	static struct cli_quality quality; /* one recording per run */
	struct pm_report only = *rep;
	size_t n = 0;

	cli_quality__warn(&quality, rep);
	if (!metric_only)
		return pm_out__report(out, rep);
	if (!*scratch)
		*scratch = calloc(rep->n_rows + 1, sizeof(**scratch));
	if (!*scratch)
		return -ENOMEM;
	for (size_t i = 0; i < rep->n_rows; i++)
		if (rep->rows[i].flags & PM_ROW_METRIC)
			(*scratch)[n++] = rep->rows[i];
	only.rows = *scratch;
	only.n_rows = n;
	return pm_out__report(out, &only);
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

int cmd_import(int argc, char **argv)
{
	struct import_args a = { .format = PM_OUT_TABLE, .sep = ',', .aggr = PM_AGGR_FAMILY };
	struct pm_replay_opts ro = { .size = sizeof(ro) };
	struct pm_replay *rp = NULL;
	struct pm_ctx *ctx = NULL;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_session_opts so = { .size = sizeof(so), .target = PM_TARGET_SYSTEM };
	struct pm_out_opts oo = { .size = sizeof(oo) };
	struct pm_out *out = NULL;
	struct pm_row *scratch = NULL;
	struct pm_diag d;
	sigset_t none;
	char *buf = NULL, target[600], note[1024];
	size_t len = 0, n_samples;
	FILE *f = stdout;
	int r, ret = EXIT_FAIL;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	r = cli_read_file(a.file, MAX_FILE_BYTES, &buf, &len);
	if (r == -EFBIG) {
		cli_error("'%s' is too large to import (at most %u MiB)", a.file,
			  MAX_FILE_BYTES >> 20);
		return EXIT_FAIL;
	}
	if (r < 0) {
		cli_error("cannot read '%s': %s", a.file, strerror(-r));
		return EXIT_FAIL;
	}
	ro.format = a.in_format;
	ro.sep = a.in_sep;
	ro.name = a.file;
	ro.duration_ns = (uint64_t)(a.duration_s * 1e9);
	r = pm_replay__parse(buf, len, &ro, &rp, &d);
	free(buf);
	if (r < 0) {
		cli_report(a.file, r, &d);
		return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
	}
	n_samples = pm_replay__sample_count(rp);
	if (!a.n_aggr)
		a.aggr = pm_replay__aggr(rp);
	oo.simulated = pm_replay__sim_platform(rp) != NULL;
	oo.sim_platform = pm_replay__sim_platform(rp);
	if (oo.sim_platform && !oo.sim_platform[0])
		oo.sim_platform = NULL;
	snprintf(target, sizeof(target), "'%s' (%s, imported)", a.file, pm_replay__format_name(rp));
	if (pm_replay__unsupported(rp, note, sizeof(note)) == 0 && note[0])
		cli_info("left out, not supported where they were counted: %s", note);
	if (!pm_replay__duration_known(rp))
		cli_info("%s has totals without a duration_time row: metrics that divide by "
			 "duration_time are <not counted>; give --duration SECONDS",
			 a.file);
	if (cli_ctx_new_replay(rp, a.packs, &ctx) < 0) /* it owns rp now, until pm_ctx__free */
		return EXIT_FAIL;
	if (a.packs && !packs_known(ctx, a.packs)) {
		ret = EXIT_USAGE;
		goto out;
	}
	r = pm_evlist__new(ctx, &l);
	if (r == 0)
		r = pm_evlist__add_recorded(l, &d);
	if (r < 0) {
		cli_report(a.file, r, &d);
		ret = r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	if (add_metrics(l, &a) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	so.aggr = a.aggr;
	r = pm_session__new(l, &so, &s, &d);
	if (r == 0)
		r = pm_session__open(s, &d);
	if (r < 0) {
		cli_report(a.file, r, &d);
		goto out;
	}
	if (a.output) {
		f = fopen(a.output, "w");
		if (!f) {
			cli_error("cannot write '%s': %s", a.output, strerror(errno));
			f = stdout;
			goto out;
		}
	}
	oo.format = a.format;
	oo.sep = a.sep;
	oo.target = target;
	r = pm_out__new(f, &oo, &out);
	if (r < 0) {
		cli_error("out of memory");
		goto out;
	}
	/* a closed pipe is EPIPE: the end of a wanted output; a replay programs no
	 * counter, so a signal may end the import where it stands */
	sigemptyset(&none);
	cli_signals_setup(&none);
	r = pm_session__enable(s);
	for (size_t i = 0; r == 0 && i < n_samples; i++) {
		r = pm_session__read(s);
		if (r == 0 && pm_replay__intervals(rp))
			r = report(out, pm_session__report(s, true), a.metric_only, &scratch);
	}
	if (r == 0)
		r = report(out, pm_session__report(s, false), a.metric_only, &scratch);
	pm_session__disable(s);
	if (r < 0 && !a.output)
		arg_global.stdout_error_handled = true; /* said here, or a reader gone */
	if (r < 0 && r != -EPIPE) {
		cli_error("cannot write the output to %s: %s",
			  a.output ? a.output : "standard output", strerror(-r));
		goto out;
	}
	ret = EXIT_OK; /* a reader that stopped early (| head) is not a failure, as in stat */
out:
	free(scratch);
	pm_out__free(out);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	if (f != stdout && fclose(f) != 0 && ret == EXIT_OK) {
		cli_error("cannot write '%s': %s", a.output, strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}
