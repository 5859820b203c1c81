// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon record: count like stat -I and keep every interval in a SQLite
 * recording (cli/store), in transactions of at most 100 ms of intervals,
 * for pmumon report to look back at. Nothing is created until the first
 * interval is written. SIGINT or SIGTERM end it with the last, shorter
 * interval kept and every counter put back.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-commands.h"
#include "cli-live.h"
#include "cli-values.h"
#include "cli-signals.h"
#include "util.h"
#include "config.h"
#include "store/store.h"

#define NS_PER_MS 1000000ull

struct record_args {
	struct cli_count count;
	struct cli_live_args live;
	const char *path;
	bool overwrite;
	unsigned long interval_count, timeout_ms;
	double max_age_s;
	uint64_t max_bytes;
};

static void usage(FILE *f)
{
	fputs("usage: pmumon record -o FILE.db [OPTIONS]\n"
	      "\n"
	      "Counts like stat -I and keeps every interval in a SQLite recording: each\n"
	      "event's and metric's raw delta, enabled and running time, scaled value and\n"
	      "quality, per place (docs/record.md). pmumon report FILE.db looks back at\n"
	      "it, at any rows and metric the events give. Runs until Ctrl-C, SIGTERM,\n"
	      "--timeout or --interval-count; nothing is created before the first\n"
	      "interval, and a pmumon killed outright loses at most the last 100 ms (or\n"
	      "the last interval, when intervals are longer). A device that goes away is\n"
	      "said and kept in the run, and the exit status stays 0.\n"
	      "\n"
	      "What to count (default: the metrics of the platform pack's screen and the\n"
	      "events they read, per device; else the pack's defaults):\n",
	      f);
	cli_count__usage_events(f);
	cli_count__usage_metrics(f);
	cli_live__usage_source(f);
	fputs("Where:\n", f);
	cli_live__usage_where(f);
	fputs("Recording:\n"
	      "  -o, --output FILE.db  the recording; an existing one gets a new run\n"
	      "      --overwrite       replace FILE.db instead\n"
	      "  -I, --interval MS     an interval every MS milliseconds (1000)\n"
	      "      --interval-count N     stop after N intervals\n"
	      "      --timeout MS           stop after MS milliseconds\n"
	      "      --max-age SECONDS      drop intervals older than this\n"
	      "      --max-size BYTES[k|M|G]  keep the recording under this, dropping\n"
	      "                        the oldest intervals (a tenth at a time)\n",
	      f);
	cli_count__usage_show(f, "one row per PMU instance (--per-device)");
	fputs("\n"
	      "Examples:\n"
	      "  pmumon record -o run.db --per-channel -M ddr_read_bandwidth.all\n"
	      "  pmumon record -o run.db --max-age 86400 --max-size 1G\n"
	      "  pmumon report run.db --above 80% --plot bw.svg\n",
	      f);
}

enum {
	OPT_OVERWRITE = 3000,
	OPT_INTERVAL_COUNT,
	OPT_TIMEOUT,
	OPT_MAX_AGE,
	OPT_MAX_SIZE,
};

static int record_option(void *arg_, int c, const char *arg)
{
	struct record_args *a = arg_;

	switch (c) {
	case OPT_OVERWRITE:
		a->overwrite = true;
		return 0;
	case OPT_INTERVAL_COUNT:
		return cli_parse_uint("--interval-count", arg, UINT32_MAX, &a->interval_count);
	case OPT_TIMEOUT:
		return cli_parse_uint("--timeout", arg, UINT32_MAX, &a->timeout_ms);
	case OPT_MAX_AGE:
		if (pm_parse_double_str(arg, &a->max_age_s) < 0 || !(a->max_age_s > 0)) {
			cli_error("--max-age wants seconds above 0, not '%s'", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_MAX_SIZE:
		return cli_parse_size("--max-size", arg, &a->max_bytes);
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

static int parse_args(int argc, char **argv, struct record_args *a)
{
	static const struct option opts[] = {
		CLI_EVENT_OPTIONS,
		CLI_COUNT_OPTIONS,
		CLI_LIVE_OPTIONS,
		{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
		{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "max-age", required_argument, NULL, OPT_MAX_AGE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = {
		"record", CLI_EVENT_SHORT CLI_COUNT_SHORT CLI_LIVE_SHORT "vh", opts, usage,
		record_option
	};
	int r;

	a->live.interval_ms = 1000;
	/* a default this machine cannot count would be rows that never have a value */
	a->live.leave_out_unsupported_defaults = true;
	r = cli_getopt(argc, argv, &co, &a->count, &a->live, a);
	if (r)
		return r;
	if (optind < argc) {
		cli_error("record takes no command ('%s'); end it with --timeout, "
			  "--interval-count or Ctrl-C",
			  argv[optind]);
		return -EINVAL;
	}
	a->path = a->count.output;
	if (!a->path) {
		cli_error("record needs -o FILE.db: where to keep the recording");
		return -EINVAL;
	}
	if (a->count.format != PM_OUT_TABLE || a->count.metric_only) {
		cli_error(
			"record keeps everything: -x, -j and --metric-only are for pmumon report");
		return -EINVAL;
	}
	if (!a->count.n_aggr)
		a->count.aggr = PM_AGGR_DEVICE;
	return cli_count__check(&a->count) < 0 || cli_live__check(&a->live) < 0 ||
			       cli_count__table_only(&a->count, "record") < 0 ?
		       -EINVAL :
		       0;
}

/* The command line as one string, for the run's row (argv[0] is "pmumon record"). */
static void command_line(int argc, char **argv, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < argc && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? " " : "", argv[i]);
}

/* --define's constants as the run keeps them: "name=value,..." (report computes metrics
 * again with them). */
static void defines_text(const struct cli_count *c, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n_defines && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%.*s=%.17g", off ? "," : "",
					(int)strcspn(c->defines[i], "="), c->defines[i],
					c->define_values[i]);
}

/* The recording checked, nothing created yet (store_open_lazy): 0 or the exit status. */
static int open_store(struct cli_live *lv, const struct record_args *a, int argc, char **argv,
		      struct store **ret)
{
	char cmd[4096], defines[2048];
	struct store_run run = { .version = PMUMON_VERSION,
				 .platform = pm_ctx__packs(lv->ctx),
				 .cpuid = pm_ctx__cpuid(lv->ctx),
				 .sim_platform = arg_global.sim_platform,
				 .simulated = pm_ctx__simulated(lv->ctx),
				 .interval_ms = a->live.interval_ms,
				 .aggr = cli_aggr_name(a->count.aggr),
				 .command = cmd,
				 .defines = defines };
	const char *why = "";
	int r;

	command_line(argc, argv, cmd, sizeof(cmd));
	defines_text(&a->count, defines, sizeof(defines));
	r = store_open_lazy(a->path, a->overwrite, &run, ret, &why);
	if (r < 0) {
		cli_error("cannot record into '%s': %s", a->path, why);
		return EXIT_FAIL;
	}
	/* a transaction holds at most 100 ms of intervals: what a SIGKILL can lose */
	store_set_batch(*ret, (unsigned)PM_MAX(1ul, 100 / a->live.interval_ms));
	/* 16 intervals a row per series, once they are there: a day is 5,400 rows a series */
	store_set_blocks(*ret, 16);
	store_set_max_bytes(*ret, a->max_bytes);
	return 0;
}

/* Keep one interval (and trim after each commit, when limits are given): 0 or -errno
 * (said). */
static int keep(struct store *st, const struct pm_report *rep, const struct record_args *a,
		const char *path)
{
	const char *why = "";
	bool first = !store_written(st);
	int r = store_append(st, rep, &why);

	if (r == 0 && store_pending(st) == 0 && (a->max_age_s > 0 || a->max_bytes))
		r = store_trim(st, a->max_age_s, a->max_bytes, &why);
	if (r < 0)
		cli_error("writing '%s' failed: %s%s; %s", path, why,
			  r == -ENOSPC ? " (the disk is full)" : "",
			  first ? "nothing of this run was recorded" :
				  "the intervals before are kept");
	return r;
}

static int record_loop(struct cli_live *lv, struct store *st, const struct record_args *a)
{
	uint64_t t0 = lv->ops->mono_ns(lv->os), step = a->live.interval_ms * NS_PER_MS;
	uint64_t end = a->timeout_ms ? t0 + a->timeout_ms * NS_PER_MS : UINT64_MAX;
	unsigned long n = 0;
	int r = 0;

	while (!cli_signals_caught()) {
		if (end != UINT64_MAX && lv->ops->mono_ns(lv->os) + step > end)
			step = end - lv->ops->mono_ns(lv->os); /* the last, shorter interval */
		if (!step)
			break;
		r = cli_live__tick(lv, step);
		if (r < 0)
			return EXIT_FAIL;
		if (r == 0)
			continue;
		if (keep(st, pm_session__report(lv->s, true), a, a->path) < 0)
			return EXIT_FAIL;
		cli_live__say_lost(lv); /* when it goes, not only at the end */
		if ((a->interval_count && ++n >= a->interval_count) ||
		    lv->ops->mono_ns(lv->os) >= end)
			return 0;
	}
	/* a signal: the interval since the last tick is kept too */
	pm_session__disable(lv->s);
	if (cli_live__read(lv) == 0 && pm_session__report(lv->s, true)->duration_ns > 0)
		r = keep(st, pm_session__report(lv->s, true), a, a->path);
	return r < 0 ? EXIT_FAIL : 0;
}

/*
 * The run's end in its row: its wall clock, and the devices lost during it (said on
 * stderr as they went). A device that went away is the machine's doing, not pmumon's: the
 * recording of the rest is whole, and the exit status stays 0 (docs/record.md).
 */
static int end_run(struct cli_live *lv, struct store *st, const char *path)
{
	char lost[1024] = "";
	size_t off = 0, n = lv->s ? pm_session__lost_count(lv->s) : 0;
	const char *why = "";

	cli_live__say_lost(lv);
	for (size_t i = 0; i < n && off < sizeof(lost); i++)
		off += (size_t)snprintf(lost + off, sizeof(lost) - off, "%s%s", i ? "," : "",
					pm_session__lost_device(lv->s, i));
	if (store_end_run(st, lv->ops->wall_ns(lv->os), lost, &why) < 0) {
		cli_error("writing '%s' failed: %s; the intervals before are kept", path, why);
		return EXIT_FAIL;
	}
	if (n && store_written(st))
		cli_info("%zu device%s went away during the recording (its run's lost column "
			 "names them); what was counted is recorded",
			 n, n == 1 ? "" : "s");
	return 0;
}

/* Without -e or -M: what serve counts, the pack's screen (its metrics and the events they
 * read, per device), so any metric of it and any place level can be had later. */
static void screen_defaults(struct cli_live *lv, struct cli_count *c)
{
	const struct pm_screen *sc = pm_ctx__screen(lv->ctx);

	if (c->n_events || c->n_metrics || c->detailed || !sc || !sc->metrics)
		return;
	c->metrics[c->n_metrics++] = sc->metrics;
	cli_info("recording the %s pack's screen: %s", pm_ctx__packs(lv->ctx), sc->metrics);
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { 0 };
	struct cli_live lv = { 0 };
	struct store *st = NULL;
	sigset_t ending;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	ret = cli_live__machine(&lv, &a.live, &a.count);
	if (ret == 0 && arg_global.sim_virtual_clock && !a.interval_count && !a.timeout_ms) {
		cli_error("the simulated machine's clock is virtual, so recording needs an end: "
			  "--timeout MS or --interval-count N (or clock=real)");
		ret = EXIT_USAGE;
	}
	if (ret == 0)
		screen_defaults(&lv, &a.count);
	if (ret == 0)
		ret = cli_live__events(&lv, &a.count);
	if (ret == 0)
		ret = cli_live__session(&lv);
	if (ret == 0)
		ret = open_store(&lv, &a, argc, argv, &st);
	cli_signals_ending(&ending);
	if (ret == 0)
		ret = cli_live__open(&lv, &ending);
	if (ret == 0)
		ret = cli_live__enable(&lv);
	if (ret == 0) {
		store_set_started(st, lv.ops->wall_ns(lv.os));
		ret = record_loop(&lv, st, &a);
	}
	if (lv.s)
		pm_session__disable(lv.s);
	if (st && store_written(st) && end_run(&lv, st, a.path) != 0)
		ret = EXIT_FAIL;
	if (ret == 0 && lv.failed)
		ret = EXIT_FAIL;
	store_close(st);
	cli_live__free(&lv);
	return ret;
}
