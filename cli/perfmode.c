// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perf mode: pmumon run under the name perf (a link perf -> pmumon), or
 * `pmumon stat --perf` and `pmumon list --perf`, is a drop-in for perf
 * 6.1's stat and list: perf's layouts (lib/out/perf.c), its stream
 * (standard error), its default events, its exit statuses, no notices of
 * pmumon's own; the counting, its quality and the platform packs are
 * pmumon's (docs/output.md, "perf mode"). This file holds what differs
 * from pmumon's own commands at the top: perf's command word, its default
 * events, `stat record|report` and `perf list`.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-commands.h"
#include "cli-perfmode.h"
#include "util.h"
#include "config.h"

int cli_exit_usage(void)
{
	return arg_global.perf_mode ? CLI_PERF_EXIT_USAGE : EXIT_USAGE;
}

bool cli_perf_name(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	return !strcmp(slash ? slash + 1 : argv0, "perf");
}

bool cli_perf_flag(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--perf"))
			return true;
	}
	return false;
}

static void perf_usage(FILE *f)
{
	fputs("\n usage: perf [--sim PLATFORM[:OPTIONS]] [--root DIR] [-v] COMMAND [ARGS]\n"
	      "\n"
	      " This is pmumon in perf mode: perf 6.1's stat and list, with pmumon's\n"
	      " counting (docs/output.md, \"perf mode\"). The commands:\n"
	      "\n"
	      "   list           List all symbolic event types\n"
	      "   stat           Run a command and gather performance counter statistics\n"
	      "\n"
	      " pmumon's own commands and output: run it as pmumon (pmumon --help).\n",
	      f);
}

/* perf's other commands, which perf mode does not have: what to use instead */
static const struct {
	const char *name, *instead;
} perf_commands[] = {
	{ "record", "pmumon record counts every interval into a SQLite recording" },
	{ "report", "pmumon report shows a pmumon recording" },
	{ "top", "pmumon top is the live view of counts" },
	{ "bench", NULL },
	{ "test", NULL },
	{ "script", NULL },
	{ "trace", NULL },
	{ "probe", NULL },
};

int cli_perf_main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *env = getenv("PMUMON_SIM");
	int c, r;

	if (env && *env) {
		arg_global.sim = env;
		arg_global.sim_from_env = true;
	}
	env = getenv("PMUMON_ROOT");
	if (env && *env) {
		arg_global.root = env;
		arg_global.root_from_env = true;
	}
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'h':
			perf_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("perf version 6.1 (pmumon %s in perf mode)\n", PMUMON_VERSION);
			return EXIT_OK;
		default:
			perf_usage(stderr);
			return CLI_PERF_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		perf_usage(stdout);
		return EXIT_FAIL;
	}
	if (!strcmp(argv[optind], "version")) {
		printf("perf version 6.1 (pmumon %s in perf mode)\n", PMUMON_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[optind], "stat") || !strcmp(argv[optind], "list")) {
		r = cli_run_command(argv[optind], argc - optind, argv + optind);
		return r;
	}
	/* perf's own words for a command it lacks: scripts test for them
	 * (tests/shell/lib/probe.sh: 'is not a perf-command') */
	fprintf(stderr,
		"perf: '%s' is not a perf-command in pmumon's perf mode, which has stat "
		"and list. See 'perf --help'.\n",
		argv[optind]);
	for (size_t i = 0; i < PM_ARRAY_SIZE(perf_commands); i++)
		if (!strcmp(argv[optind], perf_commands[i].name) && perf_commands[i].instead)
			fprintf(stderr, "  (%s: run it as pmumon)\n", perf_commands[i].instead);
	return EXIT_FAIL;
}

/* ---- perf stat's defaults ------------------------------------------------------------ */

/* The cpu PMU lists this event (perf's pmu_have_event("cpu", name)). */
static bool cpu_has(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++) {
		const struct pm_pmu *p = pm_ctx__pmu(ctx, i);

		if (strcmp(pm_pmu__name(p), "cpu") != 0)
			continue;
		for (size_t a = 0; a < pm_pmu__alias_count(p); a++)
			if (!strcmp(pm_alias__name(pm_pmu__alias(p, a)), name))
				return true;
	}
	return false;
}

int cli_perf_defaults(struct pm_ctx *ctx, struct pm_evlist *l, bool cpu_target)
{
	/* builtin-stat.c add_default_attributes: default_attrs0, frontend_attrs and
	 * backend_attrs when the cpu PMU has them, default_attrs1 */
	const char *list[] = {
		cpu_target ? "cpu-clock" : "task-clock",
		"context-switches",
		"cpu-migrations",
		"page-faults",
		"cycles",
		cpu_has(ctx, "stalled-cycles-frontend") ? "stalled-cycles-frontend" : NULL,
		cpu_has(ctx, "stalled-cycles-backend") ? "stalled-cycles-backend" : NULL,
		"instructions",
		"branches",
		"branch-misses",
	};
	struct pm_diag d;

	for (size_t i = 0; i < PM_ARRAY_SIZE(list); i++) {
		int r;

		if (!list[i])
			continue;
		pm_diag__init(&d);
		r = pm_evlist__add_optional(l, list[i], &d);
		if (r < 0) {
			cli_report(list[i], r, &d);
			return EXIT_FAIL;
		}
	}
	return 0;
}

bool cli_stat_subcommand(const char *arg)
{
	size_t n = strlen(arg);

	/* builtin-stat.c: strlen(argv[0]) > 2 && strstarts("record", argv[0]) */
	if (n <= 2 || (strncmp("record", arg, n) && strncmp("report", arg, n)))
		return false;
	cli_error("'stat %s' (perf stat %s) is not supported: pmumon has no perf.data; "
		  "pmumon record counts every interval into a SQLite recording, and pmumon "
		  "report shows it (docs/record.md)",
		  arg, arg[2] == 'c' ? "record" : "report");
	return true;
}

/* ---- perf list ------------------------------------------------------------------------ */

struct names {
	char **s;
	size_t n, cap;
};

/* a, mid and b joined, added to l (out of memory: left out) */
static void names_add(struct names *l, const char *a, const char *mid, const char *b)
{
	char *s;

	if (PM_GROW(l->s, l->cap, l->n + 1) < 0 || asprintf(&s, "%s%s%s", a, mid, b) < 0)
		return;
	l->s[l->n++] = s;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_done(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	*l = (struct names){ 0 };
}

/* The sorted names as perf prints them: "NAME " each (--raw-dump), or "  %-50s [KIND]". */
static void names_print(struct names *l, bool raw, const char *kind)
{
	qsort(l->s, l->n, sizeof(*l->s), cmp_names);
	for (size_t i = 0; i < l->n; i++) {
		if (raw)
			printf("%s ", l->s[i]);
		else
			printf("  %-50s [%s]\n", l->s[i], kind);
	}
	names_done(l);
}

/* perf's glob match (strglobmatch): a NULL glob matches everything */
static bool glob_ok(const char *glob, const char *name)
{
	return !glob || !fnmatch(glob, name, 0);
}

/* parse-events.c event_symbols_hw / _sw: the symbol and its alias */
static const char *const hw_symbols[][2] = {
	{ "cpu-cycles", "cycles" },
	{ "instructions", "" },
	{ "cache-references", "" },
	{ "cache-misses", "" },
	{ "branch-instructions", "branches" },
	{ "branch-misses", "" },
	{ "bus-cycles", "" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend" },
	{ "stalled-cycles-backend", "idle-cycles-backend" },
	{ "ref-cycles", "" },
};
static const char *const sw_symbols[][2] = {
	{ "cpu-clock", "" },
	{ "task-clock", "" },
	{ "page-faults", "faults" },
	{ "context-switches", "cs" },
	{ "cpu-migrations", "migrations" },
	{ "minor-faults", "" },
	{ "major-faults", "" },
	{ "alignment-faults", "" },
	{ "emulation-faults", "" },
	{ "dummy", "" },
	{ "bpf-output", "" },
	{ "cgroup-switches", "" },
};

/* print_symbol_events: the symbols the kernel counts here */
static void list_symbols(struct pm_ctx *ctx, const char *glob, bool raw, bool hw)
{
	const char *const(*syms)[2] = hw ? hw_symbols : sw_symbols;
	size_t n = hw ? PM_ARRAY_SIZE(hw_symbols) : PM_ARRAY_SIZE(sw_symbols);
	struct names l = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (glob && !glob_ok(glob, syms[i][0]) &&
		    !(syms[i][1][0] && glob_ok(glob, syms[i][1])))
			continue;
		if (pm_ctx__event_supported(ctx, syms[i][0]) != 1)
			continue;
		if (!raw && syms[i][1][0])
			names_add(&l, syms[i][0], " OR ", syms[i][1]);
		else
			names_add(&l, syms[i][0], "", "");
	}
	names_print(&l, raw, hw ? "Hardware event" : "Software event");
}

/* print_tool_events: in perf's order, not sorted */
static void list_tools(const char *glob, bool raw)
{
	static const char *const tools[] = { "duration_time", "user_time", "system_time" };

	for (size_t i = 0; i < PM_ARRAY_SIZE(tools); i++) {
		if (!glob_ok(glob, tools[i]))
			continue;
		if (raw)
			printf("%s ", tools[i]);
		else
			printf("  %-50s [%s]\n", tools[i], "Tool event");
	}
}

/* print_hwcache_events: evsel__hw_cache names of the valid (type, op, result) the
 * kernel counts here */
static void list_cache(struct pm_ctx *ctx, const char *glob, bool raw)
{
	static const char *const type[] = { "L1-dcache", "L1-icache", "LLC", "dTLB",
					    "iTLB",	 "branch",    "node" };
	static const char *const op[][2] = { { "load", "loads" },
					     { "store", "stores" },
					     { "prefetch", "prefetches" } };
	/* evsel__hw_cache_stat: read 1, write 2, prefetch 4 */
	static const unsigned valid[] = { 7, 5, 7, 7, 1, 1, 7 };
	struct names l = { 0 };

	for (size_t t = 0; t < PM_ARRAY_SIZE(type); t++)
		for (size_t o = 0; o < 3; o++) {
			if (!(valid[t] & (1u << o)))
				continue;
			for (int res = 0; res < 2; res++) {
				char name[64];

				if (res)
					snprintf(name, sizeof(name), "%s-%s-misses", type[t],
						 op[o][0]);
				else
					snprintf(name, sizeof(name), "%s-%s", type[t], op[o][1]);
				if (!glob_ok(glob, name) || pm_ctx__event_supported(ctx, name) != 1)
					continue;
				names_add(&l, name, "", "");
			}
		}
	names_print(&l, raw, "Hardware cache event");
}

/* One event of print_pmu_events: its name as listed, whether it has a description (a
 * pack's), whether its PMU is a core one */
struct pmu_event {
	char *name;
	bool desc, cpu;
};

/* perf's cmp_sevent: the events without a description first, then a core PMU's, then by
 * name (pmumon keeps no topic: that key is left out) */
static int cmp_pmu_event(const void *a, const void *b)
{
	const struct pmu_event *x = a, *y = b;

	if (x->desc != y->desc)
		return x->desc - y->desc;
	if (x->cpu != y->cpu)
		return y->cpu - x->cpu;
	return strcmp(x->name, y->name);
}

/* print_pmu_events: every PMU's events, "pmu/event/" (a bare name for one with a
 * description: a pack's), in perf's order, each name once; the tool PMU's are perf 6.1's
 * tool events, listed as such */
static void list_pmu_events(struct pm_ctx *ctx, const char *glob, bool raw)
{
	struct pmu_event *ev = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++) {
		const struct pm_pmu *p = pm_ctx__pmu(ctx, i);
		/* perf's is_pmu_core: cpu, or an arm core PMU (one with a cpus file) */
		bool cpu = !strcmp(pm_pmu__name(p), "cpu");

		if (!strcmp(pm_pmu__name(p), "tool"))
			continue;
		for (size_t a = 0; a < pm_pmu__alias_count(p); a++) {
			const struct pm_alias *al = pm_pmu__alias(p, a);
			bool desc = pm_alias__desc(al) != NULL;
			char name[256];

			if (desc)
				snprintf(name, sizeof(name), "%s", pm_alias__name(al));
			else
				snprintf(name, sizeof(name), "%s/%s/", pm_pmu__name(p),
					 pm_alias__name(al));
			if (!glob_ok(glob, name) && !glob_ok(glob, pm_alias__name(al)))
				continue;
			if (PM_GROW(ev, cap, n + 1) < 0)
				break;
			ev[n] = (struct pmu_event){ strdup(name), desc, cpu };
			if (ev[n].name)
				n++;
		}
	}
	if (n)
		qsort(ev, n, sizeof(*ev), cmp_pmu_event);
	for (size_t i = 0; i < n; i++) {
		/* pmu_alias_is_duplicate: a name the one before has */
		if (i && !strcmp(ev[i].name, ev[i - 1].name))
			continue;
		if (raw)
			printf("%s ", ev[i].name);
		else
			printf("  %-50s [Kernel PMU event]\n", ev[i].name);
	}
	for (size_t i = 0; i < n; i++)
		free(ev[i].name);
	free(ev);
}

struct tp_walk {
	struct pm_ctx *ctx;
	const struct pm_os_ops *ops;
	const char *base; /* "sys/kernel/tracing/events" */
	const char *sys;
	const char *sys_glob, *ev_glob;
	struct names *l;
};

static int tp_event(const char *name, bool is_dir, void *ud)
{
	struct tp_walk *w = ud;
	char path[512];
	int fd;

	if (!is_dir || !glob_ok(w->ev_glob, name))
		return 0;
	snprintf(path, sizeof(path), "%s/%s/%s/id", w->base, w->sys, name);
	fd = w->ops->open(pm_ctx__os(w->ctx), path, 0);
	if (fd < 0)
		return 0; /* a directory without an id is no event */
	w->ops->close(pm_ctx__os(w->ctx), fd);
	names_add(w->l, w->sys, ":", name);
	return 0;
}

static int tp_sys(const char *name, bool is_dir, void *ud)
{
	struct tp_walk *w = ud;
	char path[512];

	if (!is_dir || !glob_ok(w->sys_glob, name))
		return 0;
	w->sys = name;
	snprintf(path, sizeof(path), "%s/%s", w->base, name);
	w->ops->list_dir(pm_ctx__os(w->ctx), path, tp_event, w);
	return 0;
}

/* print_tracepoint_events: "sys:event" of every tracefs event with an id, sorted */
static void list_tracepoints(struct pm_ctx *ctx, const char *sys_glob, const char *ev_glob,
			     bool raw)
{
	static const char *const where[] = { "sys/kernel/tracing/events",
					     "sys/kernel/debug/tracing/events" };
	const struct pm_os_ops *ops = pm_ctx__os_ops(ctx);
	struct names l = { 0 };

	for (size_t i = 0; ops && ops->list_dir && i < PM_ARRAY_SIZE(where); i++) {
		struct tp_walk w = { ctx, ops, where[i], NULL, sys_glob, ev_glob, &l };

		if (ops->list_dir(pm_ctx__os(ctx), where[i], tp_sys, &w) == 0)
			break;
	}
	names_print(&l, raw, "Tracepoint event");
}

/* metricgroup__print: the metrics (by name), the groups, or both */
static void list_metric_names(struct pm_ctx *ctx, const char *filter, bool raw, bool metrics,
			      bool groups)
{
	struct names names = { 0 }, grp = { 0 };
	struct pm_metric_info m;

	for (size_t i = 0; pm_ctx__metric(ctx, i, &m) == 0; i++) {
		const char *g = m.groups && m.groups[0] ? m.groups : "No_group";

		while (*g) {
			size_t n = strcspn(g, ";");
			char one[256];

			snprintf(one, sizeof(one), "%.*s", (int)n, g);
			if (!filter || strstr(one, filter)) {
				/* metricgroup__print_pmu_event: the name, or its lines with the
				 * description: "NAME\n       [DESC]" (a missing one printf's) */
				char *entry = NULL;

				if (raw)
					entry = strdup(m.name);
				else if (asprintf(&entry, "%s\n%*s%s]", m.name, 8, "[",
						  m.desc ? m.desc : "(null)") < 0)
					entry = NULL;
				if (entry) {
					names_add(&grp, one, "\t", entry);
					if (!groups)
						names_add(&names, entry, "", "");
				}
				free(entry);
			}
			g += n + (g[n] == ';');
		}
	}
	qsort(grp.s, grp.n, sizeof(*grp.s), cmp_names);
	if (!filter || grp.n) {
		if (groups && !raw)
			printf("\nMetric Groups:\n\n");
		else if (metrics && !raw)
			printf("\nMetrics:\n\n");
	}
	for (size_t i = 0; groups && i < grp.n;) {
		size_t g = strcspn(grp.s[i], "\t"), j = i, k = 0;

		printf("%.*s%s%s", (int)g, grp.s[i], metrics && !raw ? ":" : "", raw ? " " : "\n");
		for (; j < grp.n && !strncmp(grp.s[j], grp.s[i], g + 1); j++) {
			if (!metrics)
				continue;
			if (raw)
				printf("%s%s", k++ ? " " : "", grp.s[j] + g + 1);
			else
				printf("  %s\n", grp.s[j] + g + 1);
		}
		if (metrics && raw)
			putchar('\n');
		i = j;
	}
	if (!groups) {
		size_t kept = 0;

		qsort(names.s, names.n, sizeof(*names.s), cmp_names);
		for (size_t i = 0; i < names.n; i++) {
			if (kept && !strcmp(names.s[i], names.s[kept - 1])) {
				free(names.s[i]); /* perf's strlist: each name once */
				continue;
			}
			names.s[kept++] = names.s[i];
			if (raw)
				printf("%s%s", kept > 1 ? " " : "", names.s[i]);
			else
				printf("  %s\n", names.s[i]);
		}
		if (raw)
			putchar('\n');
		names.n = kept;
	}
	names_done(&names);
	names_done(&grp);
}

/* print_events: everything, as perf list without arguments */
static void list_everything(struct pm_ctx *ctx, const char *glob, bool raw)
{
	list_symbols(ctx, glob, raw, true);
	list_symbols(ctx, glob, raw, false);
	list_tools(glob, raw);
	list_cache(ctx, glob, raw);
	list_pmu_events(ctx, glob, raw);
	if (glob)
		return;
	if (!raw) {
		printf("  %-50s [%s]\n", "rNNN", "Raw hardware event descriptor");
		printf("  %-50s [%s]\n", "cpu/t1=v1[,t2=v2,t3 ...]/modifier",
		       "Raw hardware event descriptor");
		printf("  %-50s [%s]\n", "mem:<addr>[/len][:access]", "Hardware breakpoint");
	}
	list_tracepoints(ctx, NULL, NULL, raw);
	list_metric_names(ctx, NULL, raw, true, true);
}

int cli_perf_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "raw-dump", no_argument, NULL, 'R' },
		{ "desc", no_argument, NULL, 'd' },
		{ "no-desc", no_argument, NULL, 'D' },
		{ "long-desc", no_argument, NULL, 'v' },
		{ "details", no_argument, NULL, 'T' },
		{ "deprecated", no_argument, NULL, 'P' },
		{ "perf", no_argument, NULL, 'F' },
		{ "cputype", required_argument, NULL, 'C' }, /* a hybrid's: one listing here */
		{ "debug", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		CLI_GLOBAL_OPTIONS,
		{ 0 },
	};
	struct pm_ctx *ctx = NULL;
	bool raw = false;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+dvh", opts, NULL)) != -1) {
		if (c != 'v' && cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'R':
			raw = true;
			break;
		case 'h':
			printf("\n Usage: perf list [<options>] "
			       "[hw|sw|cache|tracepoint|pmu|sdt|metric|metricgroup|event_glob]\n\n");
			return EXIT_OK;
		case '?':
			return CLI_PERF_EXIT_USAGE;
		default: /* descriptions: the raw dump has none, the plain list its names */
			break;
		}
	}
	if (cli_ctx_new(&ctx) < 0)
		return EXIT_FAIL;
	if (pm_ctx__simulated(ctx))
		fprintf(stderr, "[SIMULATED: %s] a simulated machine (--sim), not this one\n",
			arg_global.sim_platform ? arg_global.sim_platform : "sim");
	if (optind >= argc)
		list_everything(ctx, NULL, raw);
	for (int i = optind; i < argc; i++) {
		const char *a = argv[i];
		const char *colon = strchr(a, ':');

		if (!strcmp(a, "tracepoint")) {
			list_tracepoints(ctx, NULL, NULL, raw);
		} else if (!strcmp(a, "hw") || !strcmp(a, "hardware")) {
			list_symbols(ctx, NULL, raw, true);
		} else if (!strcmp(a, "sw") || !strcmp(a, "software")) {
			list_symbols(ctx, NULL, raw, false);
			list_tools(NULL, raw);
		} else if (!strcmp(a, "cache") || !strcmp(a, "hwcache")) {
			list_cache(ctx, NULL, raw);
		} else if (!strcmp(a, "pmu")) {
			list_pmu_events(ctx, NULL, raw);
		} else if (!strcmp(a, "sdt")) {
			; /* no SDT events: pmumon reads no build-id cache */
		} else if (!strcmp(a, "metric") || !strcmp(a, "metrics")) {
			list_metric_names(ctx, NULL, raw, true, false);
		} else if (!strcmp(a, "metricgroup") || !strcmp(a, "metricgroups")) {
			list_metric_names(ctx, NULL, raw, false, true);
		} else if (colon) {
			char sys[256];

			snprintf(sys, sizeof(sys), "%.*s", (int)(colon - a), a);
			list_tracepoints(ctx, sys, colon + 1, raw);
			list_metric_names(ctx, sys, raw, true, true);
		} else {
			char glob[512];

			snprintf(glob, sizeof(glob), "*%s*", a);
			list_symbols(ctx, glob, raw, true);
			list_symbols(ctx, glob, raw, false);
			list_tools(glob, raw);
			list_cache(ctx, glob, raw);
			list_pmu_events(ctx, glob, raw);
			list_tracepoints(ctx, NULL, glob, raw);
			list_metric_names(ctx, glob, raw, true, true);
		}
	}
	pm_ctx__free(ctx);
	return EXIT_OK;
}
