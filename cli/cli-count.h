/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * what to count and how to show it, the options every command that shows counts takes (cli/options.c, cli/getopt.c). */
#ifndef PMUMON_CLI_COUNT_H
#define PMUMON_CLI_COUNT_H

#include <stdbool.h>
#include <stdio.h>

#include "pmumon/pmumon.h"

/* ---- options every command that shows counts takes (cli/options.c) ----------------- */

#define CLI_MAX_ARGS 256 /* -e, -M/-g, --define: each at most this many times */

/*
 * What to count and how to show it: stat and import now, serve, record and
 * top to come. A command merges CLI_COUNT_OPTIONS (and CLI_EVENT_OPTIONS if
 * it counts live) into its getopt table and "CLI_COUNT_SHORT" into its
 * short options, hands each option to cli_count__option, and calls
 * cli_count__check after the last. Zero-initialised: no events, metrics or
 * constants, one row per event (PM_AGGR_FAMILY), a table on standard output.
 */
struct cli_count {
	const char *events[CLI_MAX_ARGS]; /* -e SPEC */
	size_t n_events;
	const char *metrics[CLI_MAX_ARGS]; /* -M / -g: names or groups */
	size_t n_metrics;
	const char *defines[CLI_MAX_ARGS]; /* --define NAME=VALUE, checked when given */
	double define_values[CLI_MAX_ARGS];
	size_t n_defines;
	enum pm_aggr aggr;   /* --per-*, --merge */
	int n_aggr;	     /* how many of them were given: 0 is the command's default */
	int cache_level;     /* --per-cache=L2: 2; 0: each CPU's last level */
	bool no_big_num;     /* --no-big-num (-B: grouped, the default) */
	bool interval_clear; /* --interval-clear: a terminal's screen cleared each interval */
	enum pm_space space; /* --all-user, --all-kernel (CLI_EVENT_OPTIONS) */
	int detailed;	     /* -d, -dd, -ddd: perf's detailed event sets (CLI_EVENT_OPTIONS) */
	const char *cgroups; /* -G NAME[,NAME] or --for-each-cgroup NAME[,NAME] */
	bool for_each_cgroup;
	/* --attribute-cgroups PATH[,PATH]; --attribute-pods[=containers] (1 pods, 2 their
	 * containers): memory traffic per cgroup (docs/attribution.md) */
	const char *attribute_cgroups;
	int attribute_pods;
	/* --attribute-proxy-error PCT: the proxies' declared relative error (0.1), held by
	 * the attributed intervals; has_proxy_error false: the pack's (none: excluded) */
	bool has_proxy_error;
	double proxy_error;
	bool bpf_counters; /* --bpf-counters: the cgroups' events once per CPU, through BPF */
	bool metric_only;
	enum pm_out_format format; /* -x, -j */
	char sep;		   /* -x: 0 is ',' */
	const char *output;	   /* -o FILE, NULL: standard output */
	bool append;		   /* --append: -o FILE added to, each run after "# started on" */
	/* perf's options the two modes share: --group (perf mode's -g: every event in
	 * one group), --no-merge (a row per PMU instance; with -A per CPU too),
	 * --summary and --no-csv-summary (perf mode: the totals after -I's intervals,
	 * the CSV's marked "summary"), and -x's whole string (perf takes any) */
	bool group;
	bool no_merge;
	bool summary;
	bool no_csv_summary;
	const char *sep_str;
};

/* getopt codes of the long-only count options */
enum {
	CLI_OPT_DEFINE = 0x1100,
	CLI_OPT_PER_DEVICE,
	CLI_OPT_PER_CHANNEL,
	CLI_OPT_PER_DIE,
	CLI_OPT_PER_SOCKET,
	CLI_OPT_MERGE,
	CLI_OPT_METRIC_ONLY,
	CLI_OPT_PER_CORE,
	CLI_OPT_PER_NODE,
	CLI_OPT_PER_CACHE,
	CLI_OPT_NO_MERGE,
	CLI_OPT_NO_BIG_NUM,
	CLI_OPT_SUMMARY,
	CLI_OPT_INTERVAL_CLEAR,
	CLI_OPT_ALL_USER,
	CLI_OPT_ALL_KERNEL,
	CLI_OPT_APPEND,
	CLI_OPT_FOR_EACH_CGROUP,
	CLI_OPT_PER_THREAD,
	CLI_OPT_NO_CSV_SUMMARY,
	CLI_OPT_GROUP,
	CLI_OPT_PERF,
	CLI_OPT_ATTRIBUTE_CGROUPS,
	CLI_OPT_ATTRIBUTE_PODS,
	CLI_OPT_ATTRIBUTE_PROXY_ERROR,
	CLI_OPT_BPF_COUNTERS,
};
/* clang-format off */
#define CLI_COUNT_SHORT "M:g:Ax:jo:B"
#define CLI_COUNT_OPTIONS \
	{ "metrics", required_argument, NULL, 'M' }, \
	{ "metric-group", required_argument, NULL, 'g' }, \
	{ "define", required_argument, NULL, CLI_OPT_DEFINE }, \
	{ "per-device", no_argument, NULL, CLI_OPT_PER_DEVICE }, \
	{ "per-channel", no_argument, NULL, CLI_OPT_PER_CHANNEL }, \
	{ "per-cpu", no_argument, NULL, 'A' }, \
	{ "no-aggr", no_argument, NULL, 'A' }, \
	{ "per-die", no_argument, NULL, CLI_OPT_PER_DIE }, \
	{ "per-socket", no_argument, NULL, CLI_OPT_PER_SOCKET }, \
	{ "per-core", no_argument, NULL, CLI_OPT_PER_CORE }, \
	{ "per-node", no_argument, NULL, CLI_OPT_PER_NODE }, \
	{ "per-cache", optional_argument, NULL, CLI_OPT_PER_CACHE }, \
	{ "merge", no_argument, NULL, CLI_OPT_MERGE }, \
	{ "no-merge", no_argument, NULL, CLI_OPT_NO_MERGE }, \
	{ "metric-only", no_argument, NULL, CLI_OPT_METRIC_ONLY }, \
	{ "field-separator", required_argument, NULL, 'x' }, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "append", no_argument, NULL, CLI_OPT_APPEND }, \
	{ "big-num", no_argument, NULL, 'B' }, \
	{ "no-big-num", no_argument, NULL, CLI_OPT_NO_BIG_NUM }, \
	{ "summary", no_argument, NULL, CLI_OPT_SUMMARY }, \
	{ "interval-clear", no_argument, NULL, CLI_OPT_INTERVAL_CLEAR }, \
	{ "per-thread", no_argument, NULL, CLI_OPT_PER_THREAD }, \
	{ "no-csv-summary", no_argument, NULL, CLI_OPT_NO_CSV_SUMMARY }, \
	{ "group", no_argument, NULL, CLI_OPT_GROUP }, \
	{ "perf", no_argument, NULL, CLI_OPT_PERF }
/* the commands that count live (not import: its events are the file's) */
#define CLI_EVENT_SHORT "e:dG:"
#define CLI_EVENT_OPTIONS \
	{ "event", required_argument, NULL, 'e' }, \
	{ "detailed", no_argument, NULL, 'd' }, \
	{ "cgroup", required_argument, NULL, 'G' }, \
	{ "for-each-cgroup", required_argument, NULL, CLI_OPT_FOR_EACH_CGROUP }, \
	{ "attribute-cgroups", required_argument, NULL, CLI_OPT_ATTRIBUTE_CGROUPS }, \
	{ "attribute-pods", optional_argument, NULL, CLI_OPT_ATTRIBUTE_PODS }, \
	{ "attribute-proxy-error", required_argument, NULL, CLI_OPT_ATTRIBUTE_PROXY_ERROR }, \
	{ "all-user", no_argument, NULL, CLI_OPT_ALL_USER }, \
	{ "all-kernel", no_argument, NULL, CLI_OPT_ALL_KERNEL }, \
	{ "bpf-counters", no_argument, NULL, CLI_OPT_BPF_COUNTERS }
/* clang-format on */

/* Take option c if it is one of the above: 1; 0 if not; -EINVAL when its value is wrong (said). */
int cli_count__option(struct cli_count *a, int c, const char *arg);

/*
 * The getopt loop of every command that shows counts: -h prints the
 * command's usage (1), an unknown option points at --help (-EINVAL); each
 * other option goes to the global ones, then count's (if count), then
 * live's (if live), then the command's own handler (own: 0, or -EINVAL
 * said). Returns 0 at the end of the options, or the first non-zero.
 */
struct option;
struct cli_live_args;
struct cli_command_options {
	const char *name; /* "stat" */
	const char *shortopts;
	const struct option *longopts;
	void (*usage)(FILE *f);
	int (*own)(void *arg, int c, const char *optarg);
};
int cli_getopt(int argc, char **argv, const struct cli_command_options *co, struct cli_count *count,
	       struct cli_live_args *live, void *arg);
/* After the last option: what the options say together is possible; -EINVAL (said). */
int cli_count__check(const struct cli_count *a);
/* For a command that prints no table (top, serve, record): the table's options refused
 * naming the command: 0 or -EINVAL (said). */
int cli_count__table_only(const struct cli_count *a, const char *command);
/* The value --define gave name (the last one), or NAN when none did. */
double cli_count__defined(const struct cli_count *a, const char *name);
/* The constants, -e specs and -M metrics, in that order, into l; -errno (said, with the
 * spec and a caret where the library points into it). Then says the list's notes. */
int cli_count__add(const struct cli_count *a, struct pm_evlist *l);
/* After every event is in l: -G's cgroups given to them, or --for-each-cgroup's events
 * repeated per cgroup; -errno (said). A cgroup is counted on CPUs: the command checks
 * that its target is -a or -C before it lists any event. */
int cli_count__add_cgroups(const struct cli_count *a, struct pm_evlist *l);
/* After that: --attribute-cgroups' or --attribute-pods' cgroups (the pods found now) get
 * the machine's memory traffic apportioned; -errno (said). *ret_n: how many (NULL ok). */
int cli_count__add_attribution(const struct cli_count *a, struct pm_ctx *ctx, struct pm_evlist *l,
			       size_t *ret_n);
/* The pods --attribute-pods counts now, as a string to compare with a later one ("" none):
 * a new pod, or one gone, changes it. 0 or -errno. */
int cli_pods_key(int attribute_pods, struct pm_ctx *ctx, char **ret);
/* Help: -e's, then -M/-g and --define's (under "What to count:"); and the options
 * under "How to show it:", whose default_rows line says what rows come without them. */
void cli_count__usage_events(FILE *f);
void cli_count__usage_metrics(FILE *f);
void cli_count__usage_show(FILE *f, const char *default_rows);

#endif
