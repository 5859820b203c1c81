// SPDX-License-Identifier: GPL-2.0-only
/* pmumon list [SUBCOMMAND] [GLOB]: what this machine can count (subcommands: the table below). */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-commands.h"
#include "cli-perfmode.h"
#include "cli-text.h"
#include "util.h"
#include "pmumon/sim.h"

static bool pmu_matches(const struct pm_pmu *p, const char *glob)
{
	return !glob || fnmatch(glob, pm_pmu__name(p), 0) == 0 ||
	       fnmatch(glob, pm_pmu__family(p), 0) == 0;
}

static void counters_text(const struct pm_pmu *p, char *buf, size_t size)
{
	int n = pm_pmu__counters(p), fixed = pm_pmu__fixed_counters(p);

	if (n < 0)
		snprintf(buf, size, "unknown");
	else if (n == 0)
		snprintf(buf, size, "free-running");
	else if (fixed)
		snprintf(buf, size, "%d+%d fixed", n, fixed);
	else
		snprintf(buf, size, "%d", n);
}

static int list_pmus(struct pm_ctx *ctx, const char *glob)
{
	size_t n = pm_ctx__pmu_count(ctx), shown = 0;
	const char *packs = pm_ctx__packs(ctx);

	printf("%-24s %8s %-12s %-14s %5s %6s %s\n", "PMU", "TYPE", "CPUS", "COUNTERS", "WIDTH",
	       "MUX_MS", "IDENTIFIER");
	for (size_t i = 0; i < n; i++) {
		const struct pm_pmu *p = pm_ctx__pmu(ctx, i);
		char cpus[64], counters[32], width[16], mux[16], type[16];

		if (!pmu_matches(p, glob))
			continue;
		/* a long cpumask shows as a count here; `list events` has it whole */
		if (pm_pmu__cpus(p, cpus, sizeof(cpus)) < 0 || strlen(cpus) > 12)
			snprintf(cpus, sizeof(cpus), "%d CPUs", pm_pmu__cpu_count(p));
		if (!cpus[0])
			snprintf(cpus, sizeof(cpus), "each");
		counters_text(p, counters, sizeof(counters));
		if (pm_pmu__counter_width(p))
			snprintf(width, sizeof(width), "%d", pm_pmu__counter_width(p));
		else
			snprintf(width, sizeof(width), "-");
		if (pm_pmu__mux_interval_ms(p) >= 0)
			snprintf(mux, sizeof(mux), "%d", pm_pmu__mux_interval_ms(p));
		else
			snprintf(mux, sizeof(mux), "-");
		if (strcmp(pm_pmu__source(p), "perf") != 0)
			/* no perf type: pmumon reads MSRs or hwmon files itself */
			snprintf(type, sizeof(type), "%s", pm_pmu__source(p));
		else
			snprintf(type, sizeof(type), "%u", pm_pmu__type(p));
		printf("%-24s %8s %-12s %-14s %5s %6s %s\n", pm_pmu__name(p), type, cpus, counters,
		       width, mux, pm_pmu__identifier(p) ? pm_pmu__identifier(p) : "-");
		shown++;
	}
	printf("\n%zu PMU%s; %d CPUs, %d package%s, %d die%s; platform packs: %s\n", shown,
	       shown == 1 ? "" : "s", pm_ctx__cpu_count(ctx), pm_ctx__package_count(ctx),
	       pm_ctx__package_count(ctx) == 1 ? "" : "s", pm_ctx__die_count(ctx),
	       pm_ctx__die_count(ctx) == 1 ? "" : "s", packs[0] ? packs : "none");
	printf("CPUS 'each': events open on every CPU (core PMU); otherwise only on the CPUs\n"
	       "listed (the PMU's cpumask). COUNTERS come from platform packs.\n");
	if (glob && !shown) { /* said, and a script can tell */
		printf("no PMU matches '%s' (pmumon list pmus shows all %zu)\n", glob, n);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Does the family starting at index i have an event matching glob? */
static bool family_has_event(const struct pm_pmu *p, const char *glob)
{
	for (size_t a = 0; a < pm_pmu__alias_count(p); a++)
		if (fnmatch(glob, pm_alias__name(pm_pmu__alias(p, a)), 0) == 0)
			return true;
	return false;
}

static void list_family(const struct pm_pmu *p, size_t n_inst, const char *last,
			const char *event_glob)
{
	char cpus[1024];

	if (pm_pmu__cpus(p, cpus, sizeof(cpus)) < 0)
		snprintf(cpus, sizeof(cpus), "(too many to list)");
	if (n_inst > 1)
		printf("%s (%zu PMUs: %s .. %s)\n", pm_pmu__family(p), n_inst, pm_pmu__name(p),
		       last);
	else
		printf("%s\n", pm_pmu__name(p));
	if (cpus[0])
		printf("  counts on CPU%s %s (its cpumask: an uncore PMU)\n",
		       strchr(cpus, ',') || strchr(cpus, '-') ? "s" : "", cpus);
	else
		printf("  counts on every CPU\n");
	if (pm_pmu__format_count(p)) {
		printf("  terms:");
		for (size_t f = 0; f < pm_pmu__format_count(p); f++) {
			const char *name, *spec;

			pm_pmu__format(p, f, &name, &spec);
			printf(" %s=%s", name, spec);
		}
		printf("\n");
	}
	for (size_t a = 0; a < pm_pmu__alias_count(p); a++) {
		const struct pm_alias *al = pm_pmu__alias(p, a);
		char enc[128];
		const char *desc = pm_alias__desc(al);

		if (event_glob && fnmatch(event_glob, pm_alias__name(al), 0) != 0)
			continue;
		if (pm_alias__encoding(al, p, enc, sizeof(enc)) < 0)
			snprintf(enc, sizeof(enc), "(cannot encode on this PMU)");
		printf("  %-34s %-28s %s", pm_alias__name(al), pm_alias__terms(al), enc);
		if (pm_alias__unit(al))
			printf("  [%g %s]", pm_alias__scale(al), pm_alias__unit(al));
		if (pm_alias__per_pkg(al))
			printf("  [per package]");
		if (pm_alias__snapshot(al))
			printf("  [current value]");
		if (strcmp(pm_alias__origin(al), "sysfs") != 0)
			printf("  (%s)", pm_alias__origin(al));
		printf("\n");
		if (desc)
			printf("      %s\n", desc);
	}
	printf("\n");
}

static int list_events(struct pm_ctx *ctx, const char *glob)
{
	size_t n = pm_ctx__pmu_count(ctx), shown = 0, families = 0;
	const char *kind;

	for (size_t i = 0; i < n;) {
		const struct pm_pmu *p = pm_ctx__pmu(ctx, i);
		size_t j = i + 1;
		bool by_pmu, by_event;

		/* instances of a family are adjacent and name the same events */
		while (j < n && !strcmp(pm_pmu__family(pm_ctx__pmu(ctx, j)), pm_pmu__family(p)))
			j++;
		by_pmu = pmu_matches(p, glob);
		by_event = glob && !by_pmu && family_has_event(p, glob);
		if (by_pmu || by_event) {
			list_family(p, j - i, pm_pmu__name(pm_ctx__pmu(ctx, j - 1)),
				    by_event ? glob : NULL);
			families++;
		}
		i = j;
	}
	for (size_t i = 0; i < pm_generic_event_count(); i++) {
		const char *name = pm_generic_event(i, &kind);

		if (glob && fnmatch(glob, name, 0) != 0)
			continue;
		if (!shown++)
			printf("generic events (perf's names):\n ");
		printf(" %s", name);
	}
	if (!shown && glob && !families) { /* said, and a script can tell */
		printf("no PMU, event or generic event matches '%s' (pmumon list events shows "
		       "them all)\n",
		       glob);
		return EXIT_FAIL;
	}
	if (!shown)
		return EXIT_OK;
	printf("\n  hardware ones need a core PMU with counters; 'cpu-clock' and 'task-clock'\n"
	       "  show msec. Tracepoints: SUBSYS:NAME (globs allowed), listed under\n"
	       "  /sys/kernel/tracing/events.\n");
	return EXIT_OK;
}

/* Does the glob match one of a metric's ';'-separated groups? */
static bool group_matches(const char *glob, const char *groups)
{
	char g[256];

	for (const char *s = groups; *s;) {
		size_t l = strcspn(s, ";");

		snprintf(g, sizeof(g), "%.*s", (int)PM_MIN(l, sizeof(g) - 1), s);
		if (!fnmatch(glob, g, 0))
			return true;
		s += l + (s[l] == ';');
	}
	return false;
}

/* The packs' metrics: name, unit, groups, scope, flags, formula, description. How many
 * were shown. */
static size_t list_metrics(struct pm_ctx *ctx, const char *glob, bool asked)
{
	struct pm_metric_info m;
	size_t shown = 0, all = 0;

	for (size_t i = 0; pm_ctx__metric(ctx, i, &m) == 0; i++) {
		all++;
		if (glob && fnmatch(glob, m.name, 0) != 0 && !group_matches(glob, m.groups))
			continue;
		if (!shown++)
			printf("\nmetrics (pmumon stat -M NAME or -M GROUP):\n");
		printf("  %-28s %-6s group %s%s%s%s%s  (%s)\n", m.name, m.unit[0] ? m.unit : "-",
		       m.groups[0] ? m.groups : "-", m.scope[0] ? ", per " : "", m.scope,
		       m.approximate ? ", approximate" : "",
		       m.sum_of_devices ? ", summed per device" : "", m.pack);
		if (m.unavailable)
			printf("      unavailable: %s\n", m.unavailable);
		else
			printf("      = %s\n", m.expr);
		if (m.desc[0])
			printf("      %s\n", m.desc);
		if (m.note)
			printf("      note: %s\n", m.note);
	}
	if (!shown && asked && all)
		printf("no metric or metric group matches '%s' (pmumon list metrics shows all %zu)\n",
		       glob ? glob : "", all);
	else if (!shown && asked)
		printf("no metrics: no platform pack with metrics matches this machine\n");
	return shown;
}

/* The metric groups: each with its pack and its metrics' names, in pack order. */
static int list_groups(struct pm_ctx *ctx, const char *glob)
{
	struct pm_metric_info m;
	char done[4096] = ";";
	size_t shown = 0;

	for (size_t i = 0; pm_ctx__metric(ctx, i, &m) == 0; i++) {
		for (const char *g = m.groups; *g;) {
			size_t l = strcspn(g, ";");
			char name[128], key[132];
			struct pm_metric_info o;
			const char *sep = "";

			snprintf(name, sizeof(name), "%.*s", (int)PM_MIN(l, sizeof(name) - 1), g);
			g += l + (g[l] == ';');
			snprintf(key, sizeof(key), ";%s;", name);
			if (!name[0] || strstr(done, key) || (glob && fnmatch(glob, name, 0) != 0))
				continue;
			if (strlen(done) + strlen(name) + 2 < sizeof(done))
				strcat(strcat(done, name), ";");
			if (!shown++)
				printf("metric groups (pmumon stat -g GROUP; pmumon list metrics GROUP):\n");
			printf("  %-28s (%s)\n     ", name, m.pack);
			for (size_t j = i; pm_ctx__metric(ctx, j, &o) == 0; j++)
				if (group_matches(name, o.groups)) {
					printf("%s%s", sep, o.name);
					sep = ", ";
				}
			printf("\n");
		}
	}
	if (!shown)
		printf(glob ? "no metric group matches '%s'\n" :
			      "no metric groups: no platform pack with metrics matches this machine\n",
		       glob);
	return glob && !shown ? EXIT_FAIL : EXIT_OK; /* a script can tell */
}

/* What a --sim scenario file can set on this platform (docs/simulator.md). */
static int list_scenario(struct pm_ctx *ctx, const char *glob)
{
	const char *platform = arg_global.sim_platform;
	const char *key, *unit, *doc;
	double dflt;
	int n;

	if (!platform) {
		cli_error("'list scenario' shows what a simulated machine's workload can set: add "
			  "--sim PLATFORM");
		return EXIT_USAGE;
	}
	printf("[SIMULATED: %s] scenario quantities (KEY[INSTANCE] VALUE in a scenario file)\n\n",
	       platform);
	printf("%-26s %-6s %9s %10s  %s\n", "KEY", "UNIT", "INSTANCES", "DEFAULT", "MEANING");
	for (size_t i = 0; pm_sim__platform_quantity(platform, i, &key, &unit, &n, &dflt, &doc);
	     i++)
		printf("%-26s %-6s %9d %10g  %s\n", key, unit, n, dflt, doc);
	printf("\nFormat, phases, faults: docs/simulator.md; use it with --sim %s:scenario=FILE\n",
	       platform);
	return EXIT_OK;
}

/* The SIMULATION-ONLY programming list a simulated platform's sideband counters need. */
static int list_program(struct pm_ctx *ctx, const char *glob)
{
	char *text = NULL;
	int r = pm_sim__sideband_program(arg_global.sim_platform, &text);

	if (r == -ENOENT) {
		cli_error("'list program' writes the programming list a simulated Merrifield "
			  "needs: add --sim merrifield (on real hardware, capture it from Intel's "
			  "tools: README.md, 'Merrifield')");
		return EXIT_USAGE;
	}
	if (r < 0) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	fputs(text, stdout);
	free(text);
	return EXIT_OK;
}

/* `list metrics` asked for them: it says so when none matches */
static int list_metrics_asked(struct pm_ctx *ctx, const char *glob)
{
	return list_metrics(ctx, glob, true) || !glob ? EXIT_OK : EXIT_FAIL;
}

/* `pmumon list [GLOB]`: the PMUs, their events and the metrics. */
static int list_all(struct pm_ctx *ctx, const char *glob)
{
	list_pmus(ctx, glob);
	printf("\n");
	list_events(ctx, glob);
	list_metrics(ctx, glob, false);
	return EXIT_OK;
}

/* The subcommands: the usage, the "did you mean" and the dispatch all read this. */
static const struct subcommand {
	const char *name;
	int (*fn)(struct pm_ctx *ctx, const char *glob); /* an exit status */
	bool machine;	  /* lists the machine: a simulated one says so first */
	const char *help; /* lines after the first are indented under it */
} subcommands[] = {
	{ "pmus", list_pmus, true,
	  "every PMU: perf type, the CPUs its events open on, its counters\n"
	  "(from a platform pack; 'unknown' when none describes it), counter\n"
	  "width, multiplexing interval and identifier" },
	{ "events", list_events, true,
	  "the events of each PMU family with their perf terms, the exact\n"
	  "encoding the kernel gets, and a description; then perf's generic names" },
	{ "metrics", list_metrics_asked, true,
	  "the platform packs' metrics: formula, unit, groups, scope" },
	{ "groups", list_groups, true,
	  "the metric groups (stat -g GROUP) and the metrics in each" },
	{ "scenario", list_scenario, false,
	  "with --sim: what a scenario file can set on that platform" },
	{ "program", list_program, false,
	  "with --sim merrifield: the SIMULATION-ONLY programming list its\n"
	  "made-up register map needs (stat --program FILE; docs/sideband.md)" },
};

static const struct subcommand *subcommand(const char *name)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(subcommands); i++)
		if (!strcmp(name, subcommands[i].name))
			return &subcommands[i];
	return NULL;
}

/* The subcommands' names, sep between them: "pmus|events|..." */
static void subcommand_names(char *buf, size_t size, const char *sep)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < PM_ARRAY_SIZE(subcommands) && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? sep : "",
					subcommands[i].name);
}

/* One entry of the usage: NAME and its help, continued lines indented. */
static void usage_entry(FILE *f, const char *name, const char *help)
{
	fprintf(f, "  %-7s ", name);
	for (const char *line = help; *line;) {
		size_t n = strcspn(line, "\n");

		fprintf(f, "%s%.*s\n", line == help ? "" : "          ", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

static void usage(FILE *f)
{
	char names[128];

	subcommand_names(names, sizeof(names), "|");
	fprintf(f, "usage: pmumon list [%s] [GLOB]\n\n", names);
	for (size_t i = 0; i < PM_ARRAY_SIZE(subcommands); i++)
		usage_entry(f, subcommands[i].name, subcommands[i].help);
	usage_entry(f, "GLOB",
		    "only PMUs whose name or family matches (ali_drw*, amd_df, msr), or\n"
		    "events whose name matches (hif_*)");
	usage_entry(f, "(none)", "pmus, events and metrics");
	fprintf(f, "\n"
		   "Use an event as PMU/EVENT/ (msr/tsc/), PMU/TERM=VALUE,.../\n"
		   "(amd_df/event=0x7,umask=0x38/), or FAMILY/EVENT/ for every instance of a\n"
		   "family (ali_drw/hif_rd/).\n");
}

/* Does anything the bare `pmumon list GLOB` shows match glob? */
static bool anything_matches(struct pm_ctx *ctx, const char *glob)
{
	struct pm_metric_info m;
	const char *kind;

	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++)
		if (pmu_matches(pm_ctx__pmu(ctx, i), glob) ||
		    family_has_event(pm_ctx__pmu(ctx, i), glob))
			return true;
	for (size_t i = 0; i < pm_generic_event_count(); i++)
		if (!fnmatch(glob, pm_generic_event(i, &kind), 0))
			return true;
	for (size_t i = 0; pm_ctx__metric(ctx, i, &m) == 0; i++)
		if (!fnmatch(glob, m.name, 0) || group_matches(glob, m.groups))
			return true;
	return false;
}

/* `pmumon list metircs`: a mistyped subcommand, not a glob that matches nothing. */
static void not_a_subcommand(const char *arg)
{
	const char *near = NULL;
	char names[128];

	for (size_t i = 0; i < PM_ARRAY_SIZE(subcommands); i++)
		if (cli_edits(arg, subcommands[i].name) <= 2) {
			near = subcommands[i].name;
			break;
		}
	subcommand_names(names, sizeof(names), ", ");
	cli_error("'%s' is not a list subcommand (%s) and matches no PMU, event or metric here%s%s%s",
		  arg, names, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* perf's --raw-dump: only perf list has it, so it asks for perf's listing */
static bool raw_dump(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--raw-dump"))
			return true;
	return false;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		CLI_GLOBAL_OPTIONS,
		{ 0 },
	};
	const struct subcommand *sub = NULL;
	const char *glob = NULL;
	struct pm_ctx *ctx = NULL;
	char names[128];
	int c, ret;

	if (arg_global.perf_mode || cli_perf_flag(argc, argv) || raw_dump(argc, argv)) {
		arg_global.perf_mode = true; /* perf list's own listing (cli/perfmode.c) */
		return cli_perf_list(argc, argv);
	}
	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc && (sub = subcommand(argv[optind])))
		optind++;
	if (optind < argc)
		glob = argv[optind++];
	if (optind < argc) {
		subcommand_names(names, sizeof(names), "|");
		cli_error("unexpected argument '%s' (pmumon list [%s] [GLOB])", argv[optind],
			  names);
		return EXIT_USAGE;
	}
	if (cli_ctx_new(&ctx) < 0)
		return EXIT_FAIL;
	if (!sub && glob && !anything_matches(ctx, glob)) {
		not_a_subcommand(glob);
		pm_ctx__free(ctx);
		return EXIT_USAGE;
	}
	if ((!sub || sub->machine) && pm_ctx__simulated(ctx))
		printf("[SIMULATED: %s] a simulated machine (--sim), not this one\n\n",
		       arg_global.sim_platform ? arg_global.sim_platform : "sim");
	ret = sub ? sub->fn(ctx, glob) : list_all(ctx, glob);
	pm_ctx__free(ctx);
	return ret;
}
