/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line: the only code that parses argv, prints messages or exits. */
#ifndef PMUMON_CLI_H
#define PMUMON_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmumon/pmumon.h"
#include "util.h" /* the helper library libpmumon shares (lib/util) */

/* Options every command takes (parsed before the command name, or after it). */
struct cli_global {
	const char *root;		  /* --root or PMUMON_ROOT */
	const char *sim;		  /* --sim or PMUMON_SIM: a simulated platform spec */
	bool root_from_env, sim_from_env; /* a command-line flag overrides them */
	const char *events_dirs[8];	  /* --events-dir, repeatable */
	int n_events_dirs;
	bool events_lenient; /* --events-lenient: count without what a pack file refused */
	int verbose;	     /* -v, repeatable */
	/* set by cli_ctx_new for a simulated machine: its platform name, and
	 * whether its clock is virtual (time moves only when pmumon waits) */
	const char *sim_platform;
	bool sim_virtual_clock;
	/* a write error on standard output was dealt with already (said, or a
	 * reader that went away): main's last check need not say it again */
	bool stdout_error_handled;
	/* run as perf (argv[0] perf, or --perf on stat and list): perf 6.1's own
	 * options, layouts, streams, defaults and exit statuses (cli/perfmode.c) */
	bool perf_mode;
};

extern struct cli_global arg_global;

/* getopt codes of the options every command takes, for their option tables */
#define CLI_OPT_ROOT 0x1000
#define CLI_OPT_SIM 0x1001
#define CLI_OPT_EVENTS_DIR 0x1002
#define CLI_OPT_EVENTS_LENIENT 0x1003
/* clang-format off */
#define CLI_GLOBAL_OPTIONS \
	{ "root", required_argument, NULL, CLI_OPT_ROOT }, \
	{ "sim", required_argument, NULL, CLI_OPT_SIM }, \
	{ "events-dir", required_argument, NULL, CLI_OPT_EVENTS_DIR }, \
	{ "events-lenient", no_argument, NULL, CLI_OPT_EVENTS_LENIENT }, \
	{ "verbose", no_argument, NULL, 'v' }
/* clang-format on */

/* Take a global option (--root, -v) seen by a command's getopt; false if c is not one. */
bool cli_global_option(int c, const char *arg);

/* Exit codes. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* counting or the machine failed */
	EXIT_USAGE = 2, /* the command line is wrong */
};

/* A diag's hint in pmumon's words: its reason's words (enum pm_reason) as
 * the flags that do it, in place of the library's (cli/hints.c). */
void cli_hint(const struct pm_diag *d, char *buf, size_t size);
/* The same for any text whose words from fix_at on are the reason's (a doctor's fix). */
void cli_words(enum pm_reason reason, const char *text, int fix_at, const char *subject, char *buf,
	       size_t size);
/* Print "pmumon: <msg>" (and the spec with a caret, and the hint) once. */
void cli_report(const char *what, int err, const struct pm_diag *d);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Warn once per kind of doubt (partial, wrap?, reprogrammed, reset, lost,
 * undefined) when a report's rows first carry it. */
struct cli_quality {
	unsigned warned; /* PM_ROW_* already said */
};
void cli_quality__warn(struct cli_quality *q, const struct pm_report *r);

/* A context for the machine the global options name, discovered; reports its own errors. */
int cli_ctx_new(struct pm_ctx **ret_ctx);
/* A context for a recording's machine (pmumon import); it takes the recording over. */
int cli_ctx_new_replay(struct pm_replay *replay, const char *packs, const char *cpuid,
		       struct pm_ctx **ret_ctx);

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

/*
 * The output (cli/output.c), the same for every command that shows counts.
 * cli_output__check goes with the checks, before any side effect: the -o
 * FILE could be written (nothing is created or truncated yet). After the
 * last check, cli_output__open opens it and builds the writer in the
 * format the options chose (opts gives the target and simulation marks).
 * cli_output__report warns once per doubt in the rows (cli_quality),
 * writes the report (its metric rows alone with --metric-only), and says
 * the first write error naming the file; a reader gone (EPIPE) ends the
 * output quietly. cli_output__close frees it and closes the file: 0 or
 * -errno (said).
 */
struct cli_output {
	FILE *f;
	const char *path; /* -o FILE, NULL: standard output */
	struct pm_out *out;
	bool metric_only;
	struct pm_row *rows; /* --metric-only's rows */
	size_t n_rows_cap;
	struct cli_quality quality;
	int err; /* the first write's errno, 0: none failed */
};

int cli_output__check(const struct cli_count *a);
int cli_output__open(struct cli_output *o, const struct cli_count *a,
		     const struct pm_out_opts *opts);
int cli_output__report(struct cli_output *o, const struct pm_report *r);
int cli_output__close(struct cli_output *o);

/* ---- perf mode (cli/perfmode.c): pmumon as a drop-in for perf stat and perf list ---- */

/* Run pmumon's command name with its arguments (argv[0] the command's name): its exit
 * status, -1 for no such command. */
int cli_run_command(const char *name, int argc, char **argv);
/* cli/commands.c: is name one of pmumon's commands; "unknown command" naming them all;
 * pmumon --help into f. */
bool cli_is_command(const char *name);
void cli_unknown_command(const char *name);
void cli_usage(FILE *f);
/* perf's exit status for a command line it refuses (parse_options' usage: 129) */
#define CLI_PERF_EXIT_USAGE 129
/* EXIT_USAGE, or perf's 129 in perf mode */
int cli_exit_usage(void);
/* Was pmumon run as perf (argv[0]'s last component "perf")? */
bool cli_perf_name(const char *argv0);
/* "--perf" among a command's options (before "--" or its first operand): perf mode. */
bool cli_perf_flag(int argc, char **argv);
/* main in perf mode: `perf [--sim ...] stat|list ...`; perf's other commands are refused. */
int cli_perf_main(int argc, char **argv);
/* perf stat 6.1's default events (add_default_attributes): cpu-clock (-a, -C) or
 * task-clock, context-switches, cpu-migrations, page-faults, the stalled-cycles
 * events the cpu PMU lists, cycles, instructions, branches, branch-misses; 0 or
 * the exit status (said). */
int cli_perf_defaults(struct pm_ctx *ctx, struct pm_evlist *l, bool cpu_target);
/* `stat record` / `stat report` (perf's subcommands, as perf matches them: 3 letters
 * or more of the word): said not supported, with what to use; true when it was one. */
bool cli_stat_subcommand(const char *arg);
/* perf list [--raw-dump] [hw|sw|cache|tracepoint|pmu|metric|metricgroup|GLOB ...] */
int cli_perf_list(int argc, char **argv);

/* ---- counting the live machine (cli/live.c): stat, serve, top, record -------------- */

/*
 * Where and through what a command that counts the live machine counts:
 * -a/-C, --source, --program, --sideband-pci, --reclaim, and its interval
 * (-I). A command merges CLI_LIVE_OPTIONS into its getopt table and
 * CLI_LIVE_SHORT into its short options, hands each option to
 * cli_live__option, and calls cli_live__check after the last.
 */
struct cli_live_args {
	enum pm_source_choice source; /* --source */
	const char *program;	      /* --program FILE: the sideband's programming list */
	bool sideband_pci;
	bool reclaim;
	bool all_cpus;		   /* -a */
	const char *cpus;	   /* -C LIST */
	unsigned long interval_ms; /* -I MS, 0: not given (the command's default) */
	/* default events this machine cannot count: no row (serve, record: no series
	 * that never has a value), instead of perf's <not supported> rows (stat, top) */
	bool leave_out_unsupported_defaults;
	/* per device, a core PMU's rows per socket too (serve: places never merged away) */
	bool device_per_socket;
};

enum {
	CLI_OPT_SOURCE = 0x1200,
	CLI_OPT_PROGRAM,
	CLI_OPT_SIDEBAND_PCI,
	CLI_OPT_RECLAIM,
};
/* clang-format off */
#define CLI_LIVE_SHORT "aC:I:"
#define CLI_LIVE_OPTIONS \
	{ "source", required_argument, NULL, CLI_OPT_SOURCE }, \
	{ "program", required_argument, NULL, CLI_OPT_PROGRAM }, \
	{ "sideband-pci", no_argument, NULL, CLI_OPT_SIDEBAND_PCI }, \
	{ "reclaim", no_argument, NULL, CLI_OPT_RECLAIM }, \
	{ "all-cpus", no_argument, NULL, 'a' }, \
	{ "cpu", required_argument, NULL, 'C' }, \
	{ "interval-print", required_argument, NULL, 'I' }, \
	{ "interval", required_argument, NULL, 'I' }
/* clang-format on */

/* Take option c if it is one of the above: 1; 0 if not; -EINVAL when its value is wrong (said). */
int cli_live__option(struct cli_live_args *a, int c, const char *arg);
/* After the last option: -EINVAL (said) when they contradict each other. */
int cli_live__check(const struct cli_live_args *a);
/* Help: --source, --program, --sideband-pci, --reclaim (under "What to count:"),
 * and -a, -C (under "Where:"). */
void cli_live__usage_source(FILE *f);
void cli_live__usage_where(FILE *f);

/*
 * A counting run on the live machine, in the order every such command
 * takes it: cli_live__machine (the context and the session's options from
 * the arguments; the caller may change lv->so.target and .pid after it),
 * cli_live__events (the count options' events, or the defaults),
 * cli_live__session (resolved and scheduled) — every check, nothing
 * changed yet — then cli_live__open (the ending signals caught, counters
 * programmed; says what was left out) and cli_live__enable. Each returns 0
 * or an exit status (said). Then cli_live__read / cli_live__poll (0 or
 * -errno, said; lv->failed set), or cli_live__tick for a plain interval
 * loop. cli_live__free undoes everything (the counters restored).
 */
struct cli_live {
	struct pm_ctx *ctx;
	const struct pm_os_ops *ops;
	void *os;
	struct pm_evlist *l;
	struct pm_session_opts so;
	char *program; /* --program FILE's text */
	struct pm_session *s;
	uint64_t step_ns, next_ns; /* cli_live__tick's interval and next deadline */
	bool failed;		   /* pmumon itself failed (said already) */
	size_t lost_said;	   /* lost devices a message named already */
	bool dropped_said;	   /* the events left out were named (stat -r: once) */
	/* --attribute-pods (1 pods, 2 containers): the pods counted (cli_pods_key), for the
	 * sampler to see them come and go */
	int attribute_pods;
	char *pods_key;
};

/* The machine (kept when lv already has one: after cli_live__close), the session's options. */
int cli_live__machine(struct cli_live *lv, const struct cli_live_args *a,
		      const struct cli_count *c);
int cli_live__events(struct cli_live *lv, const struct cli_count *c);
int cli_live__session(struct cli_live *lv);
int cli_live__open(struct cli_live *lv, const sigset_t *ending);
int cli_live__enable(struct cli_live *lv);
int cli_live__read(struct cli_live *lv);
int cli_live__poll(struct cli_live *lv);
/*
 * Wait for the next interval of step_ns (the first call starts the clock),
 * polling the counters on the way (rotation, wrap): 1 when the interval's
 * read is done (pm_session__report(lv->s, ...) has it), 0 when an ending
 * signal came (cli_signals_caught), -errno when reading failed (said).
 */
int cli_live__tick(struct cli_live *lv, uint64_t step_ns);
/* Name each lost device no message named yet; true if any device was lost. */
bool cli_live__say_lost(struct cli_live *lv);
/* Counting ends (the counters disabled and restored; the sampler, if any, stopped
 * first), the machine stays for counting again: with events, the event list goes too. */
void cli_live__close(struct cli_live *lv, bool events);
void cli_live__free(struct cli_live *lv);

/*
 * A sampler thread (cli/sampler.c) for the commands that show counts while
 * they go on (serve, top, record): it owns a started cli_live, reads it
 * every interval and publishes the interval's and the totals' snapshots
 * (immutable, reference-counted: any thread may hold them) with a sequence
 * number. cli_sampler__fd is readable after each publication and at the
 * end (drain it with cli_sampler__ack), so a thread can poll() it with its
 * own file descriptors (a terminal, a socket). Ending signals (SIGINT,
 * SIGTERM, ...) end the sampler; the thread that called
 * cli_signals_setup before starting it sees them in cli_signals_caught.
 */
struct cli_sampler;
struct cli_sample {
	uint64_t seq; /* 1 for the first interval; 0: none yet */
	struct pm_snapshot *interval, *total;
	uint64_t late_ns;      /* how long after its deadline the read started */
	uint64_t read_ns;      /* how long the read and the snapshots took */
	uint64_t published_ns; /* CLOCK_MONOTONIC when it was published (real time, also
				* on a simulated machine: for freshness checks) */
};
/* intervals: stop after that many (0: until stopped or a signal). */
int cli_sampler__start(struct cli_live *lv, uint64_t step_ns, uint64_t intervals,
		       struct cli_sampler **ret_sampler);
/*
 * The same, with a hook the sampler thread calls with every sample right
 * after publishing it (serve --store queues it for its writer thread). The
 * hook must not block: the next read waits for it. It takes its own
 * references to what it keeps.
 */
typedef void (*cli_sample_hook)(void *arg, const struct cli_sample *smp);
int cli_sampler__start_hooked(struct cli_live *lv, uint64_t step_ns, uint64_t intervals,
			      cli_sample_hook hook, void *arg, struct cli_sampler **ret_sampler);
/* The latest sample with references taken (release with cli_sample__release); false
 * before the first. */
bool cli_sampler__latest(struct cli_sampler *sp, struct cli_sample *ret);
void cli_sample__release(struct cli_sample *smp);
int cli_sampler__fd(const struct cli_sampler *sp);
void cli_sampler__ack(struct cli_sampler *sp);
/* From now on the pipe says only news (a device back, the end), not each sample: for a
 * reader that takes the samples through the hook and need not wake for each. */
void cli_sampler__quiet(struct cli_sampler *sp);
/* A device the session lost is there again (checked every second while one is lost):
 * a new session on the rediscovered machine would count it. */
bool cli_sampler__device_back(const struct cli_sampler *sp);
/* The kubelet's pods changed since the counting began (--attribute-pods, looked at after
 * every interval): a new counting would count the pods there now. */
bool cli_sampler__pods_changed(const struct cli_sampler *sp);
/* The sampler ended (a signal, the interval count, a failure): true. */
bool cli_sampler__done(const struct cli_sampler *sp);
/* Ask it to end, wait for it, free it; the cli_live stays the caller's to free. */
void cli_sampler__stop(struct cli_sampler *sp);

/* ---- a recording counted again: import and report (cli/replay.c) ------------------- */

struct cli_replay_args {
	const char *file; /* "-": standard input; a pmumon recording (FILE.db) too */
	const char *packs;
	enum pm_replay_format format;
	char sep;
	double duration_s;
	long long run;	   /* of a FILE.db (0: its last) */
	const char *cpuid; /* --cpuid: the recording's CPU, over the one it names */
	/* of a FILE.db: the intervals whose end is in [from_ns, to_ns] since its run began
	 * (both 0: all); with events_named, only the events named in events (exact, as the
	 * recording names them) and those c's metrics read, not all it has */
	int64_t from_ns, to_ns;
	bool events_named;
	const char *const *events;
	size_t n_events;
};

struct store;
struct store_feed;
struct cli_replay {
	struct pm_ctx *ctx;
	struct pm_evlist *l;
	struct pm_session *s;
	size_t n_samples;
	bool intervals;
	struct pm_out_opts oo; /* simulated, its platform, the target: for the output */
	char target[600], sim_platform[64];
	struct store *store; /* a pmumon recording, read as it plays (store_feed) */
	struct store_feed *feed;
	char defines[1024]; /* the constants the recording's metrics were given */
};

/*
 * Can a recording whose rows were grouped as recorded (its run's aggr: "device",
 * "channel"...) give rows grouped by want? 0, or -EINVAL with why (size bytes) saying
 * what it can give instead.
 */
int cli_replay__can_give(const char *recorded, enum pm_aggr want, char *why, size_t size);

/* What each report goes to: 0, or -errno (said, or -EPIPE). */
typedef int (*cli_report_hook)(void *arg, const struct pm_report *r);

/*
 * cli_replay__open: the recording parsed, the machine its packs describe,
 * its events and c's metrics in a session, opened: 0 or the exit status
 * (said). cli_replay__play: each interval's report (when it has intervals),
 * then the totals, to hook: 0 or -errno. cli_replay__close frees it.
 */
int cli_replay__open(struct cli_replay *rp, const struct cli_replay_args *a,
		     const struct cli_count *c);
int cli_replay__play(struct cli_replay *rp, cli_report_hook hook, void *arg);
void cli_replay__close(struct cli_replay *rp);

/* ---- strict values and small helpers (cli/options.c, cli/util.c) ------------------- */

/* Strict option values: print the error naming the option and return -EINVAL. */
int cli_parse_uint(const char *opt, const char *s, unsigned long max, unsigned long *ret);
/* A CSV separator: one character (or \t) that no number or quoting uses. */
int cli_parse_separator(const char *opt, const char *arg, char *ret);
/* --define NAME=VALUE: the name into name (size bytes), a finite value > 0. */
int cli_parse_define(const char *arg, char *name, size_t size, double *ret);

/* A whole file ("-": standard input) into *ret (caller frees): 0, -errno,
 * or -EFBIG beyond max bytes. */
int cli_read_file(const char *path, size_t max, char **ret, size_t *ret_len);
/*
 * The k-th smallest of v[0..n) (0-based, k < n, no NaN) into v[k], the
 * smaller ones before it and the larger after (Hoare's select, a middle
 * pivot): linear time on average, where report's sort of a day of 1 s
 * intervals per series was most of its time.
 */
double cli_select_kth(double *v, size_t n, size_t k);
/* Bytes per second of a bandwidth unit ("MB/s": 1e6, "GiB/s": 2^30), 0 for any other. */
double cli_unit_bytes(const char *unit);

/* The row mode's name ("family", "device", "core", ...), as recordings keep it. */
const char *cli_aggr_name(enum pm_aggr a);

/* BYTES with an optional k, M or G (powers of 1024), above 0: 0 or -EINVAL (said, naming opt). */
int cli_parse_size(const char *opt, const char *arg, uint64_t *ret);
/* --per-cache's level, as perf writes it: L1..L4 (or l1..l4) into *ret; -EINVAL. */
int cli_parse_cache_level(const char *s, int *ret);
/*
 * perf's -p/-t list: PIDs (or TIDs) separated by commas ("123,456"), each
 * decimal 1..INT32_MAX, no blanks, no empty entries; a repeated one is kept
 * once, as perf's. Into ret (room for max): 0, -EINVAL, -ERANGE, or -E2BIG
 * (more than max).
 */
int cli_parse_pid_list(const char *s, pid_t *ret, size_t max, size_t *ret_n);
/*
 * perf stat -r's statistics of one value over the runs (tools/perf/util/stat.c:
 * update_stats, stddev_stats, rel_stddev_stats): the running mean, the
 * standard deviation of that mean (0 below two runs), and that as a
 * percentage of the mean (0 for a mean of 0).
 */
struct cli_stats {
	double n, mean, m2;
};
void cli_stats__add(struct cli_stats *s, double v);
double cli_stats__stddev_mean(const struct cli_stats *s);
double cli_stats__spread_pct(const struct cli_stats *s);

/*
 * pmumon stat -r (cli/repeat.c): each run's totals added (0; -EINVAL when a
 * run's rows are not the first's; -ENOMEM), then one report of their means,
 * each row's spread_pct and the elapsed time's spread set, its labels taken
 * from last (the last run's totals, which must stay alive while it is used).
 */
struct cli_repeat {
	unsigned runs;
	size_t n_rows;
	struct cli_stats *stats; /* per row: value, raw, enabled, running, lo, hi */
	unsigned *flags;	 /* per row: every run's flags */
	unsigned *bound;	 /* per row: the runs' worst PM_BOUND_* */
	struct pm_row *rows;
	struct cli_stats t; /* elapsed */
	struct pm_report rep;
};
int cli_repeat__add(struct cli_repeat *rp, const struct pm_report *r);
const struct pm_report *cli_repeat__report(struct cli_repeat *rp, const struct pm_report *last);
void cli_repeat__free(struct cli_repeat *rp);
/*
 * len bytes of user text (an event spec, a file name) onto f with what a
 * terminal would act on escaped: control characters (C0, DEL, C1 as UTF-8
 * encodes them) and bytes that are not UTF-8 become \xHH (\t, \n, \r for
 * those three); other UTF-8 text is kept. cli_escaped_width: the columns
 * that takes (characters, not bytes).
 */
void cli_escape(FILE *f, const char *s, size_t len);
/* Edits (insert, delete, change, swap two neighbours) from a to b, up to 3: the "did you
 * mean" of a mistyped name. */
int cli_edits(const char *a, const char *b);
/* s as a JSON string: quotes, backslashes and control characters escaped. */
void cli_json_str(FILE *f, const char *s);
/* Where a row was counted, as --per-* names it: its place, device, the domain of an uncore
 * row per CPU ("L3 CPUs 4-7,68-71"), cpuN, S0-D1, S0, or "all". */
void cli_row_place(const struct pm_row *r, char *buf, size_t size);
/* A place for people, with the cgroup a row was counted in: "all in user.slice" (-G,
 * --for-each-cgroup); the place alone without one. */
void cli_place_in(const char *place, const char *cgroup, char *buf, size_t size);
/* cli_row_place, then its cgroup as cli_place_in says it. */
void cli_row_where(const struct pm_row *r, char *buf, size_t size);
int cli_escaped_width(const char *s, size_t len);

/*
 * Signals (cli/signals.c). cli_signals_ending: every terminating signal a
 * process can catch and go on after (SIGHUP, SIGINT, SIGQUIT, SIGTERM,
 * SIGUSR1/2, SIGALRM, ..., the real-time ones); a command that gives some a
 * meaning of its own (serve: SIGHUP reloads) takes them out. cli_signals_setup
 * catches the signals in end, blocks them but while pmumon waits
 * (pm_os_ops.wait), and ignores SIGPIPE (a reader gone is EPIPE on the next
 * write); -1 if one could not be caught. Call it before any thread starts
 * (threads inherit the mask). cli_signals_caught: the last of them that
 * came, 0 while none has: the run must end.
 */
void cli_signals_ending(sigset_t *ret);
int cli_signals_setup(const sigset_t *end);
int cli_signals_caught(void);

int cmd_list(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
