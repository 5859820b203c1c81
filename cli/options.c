// SPDX-License-Identifier: GPL-2.0-only
/*
 * The options every command that shows counts takes — what to count (-e,
 * -M/-g, --define) and how to show it (--per-*, --merge, --metric-only, -x,
 * -j, -o) — parsed, checked, explained and applied in one place, so stat,
 * import (and serve, record, top to come) take them alike. Also the strict
 * option values every command uses.
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-values.h"
#include "util.h"

static int add_arg(const char **arr, size_t *n, const char *arg, const char *opt, const char *more)
{
	if (*n == CLI_MAX_ARGS) {
		cli_error("too many %s options (at most %d%s)", opt, CLI_MAX_ARGS, more);
		return -EINVAL;
	}
	arr[(*n)++] = arg;
	return 1;
}

static int set_aggr(struct cli_count *a, enum pm_aggr aggr)
{
	a->aggr = aggr;
	a->n_aggr++;
	return 1;
}

/* The options of the commands that count live (CLI_EVENT_OPTIONS) besides -e. */
static int event_option(struct cli_count *a, int c, const char *arg)
{
	switch (c) {
	case 'G':
	case CLI_OPT_FOR_EACH_CGROUP:
		if (a->cgroups && a->for_each_cgroup != (c == CLI_OPT_FOR_EACH_CGROUP)) {
			cli_error(
				"give -G or --for-each-cgroup, not both (perf refuses them together "
				"too)");
			return -EINVAL;
		}
		a->cgroups = arg;
		a->for_each_cgroup = c == CLI_OPT_FOR_EACH_CGROUP;
		return 1;
	case CLI_OPT_ATTRIBUTE_CGROUPS:
	case CLI_OPT_ATTRIBUTE_PODS:
		if ((c == CLI_OPT_ATTRIBUTE_CGROUPS && a->attribute_pods) ||
		    (c == CLI_OPT_ATTRIBUTE_PODS && a->attribute_cgroups)) {
			cli_error(
				"give --attribute-cgroups or --attribute-pods, not both: the pods "
				"are cgroups too, and a cgroup's counts would be counted twice");
			return -EINVAL;
		}
		if (c == CLI_OPT_ATTRIBUTE_CGROUPS) {
			a->attribute_cgroups = arg;
			return 1;
		}
		if (arg && strcmp(arg, "pods") && strcmp(arg, "containers")) {
			cli_error("--attribute-pods takes nothing, =pods or =containers (each "
				  "container's cgroup), not '%s'",
				  arg);
			return -EINVAL;
		}
		a->attribute_pods = arg && !strcmp(arg, "containers") ? 2 : 1;
		return 1;
	case CLI_OPT_ATTRIBUTE_PROXY_ERROR:
		return cli_parse_proxy_error(arg, &a->proxy_error) < 0 ?
			       -EINVAL :
			       (a->has_proxy_error = true, 1);
	case CLI_OPT_BPF_COUNTERS:
		a->bpf_counters = true;
		return 1;
	case 'd': /* perf's OPT_INCR: -dd is -d -d */
		a->detailed++;
		return 1;
	case CLI_OPT_ALL_USER:
	case CLI_OPT_ALL_KERNEL:
		if (a->space &&
		    a->space != (c == CLI_OPT_ALL_USER ? PM_SPACE_USER : PM_SPACE_KERNEL)) {
			cli_error(
				"give --all-user or --all-kernel, not both (perf refuses them together "
				"too)");
			return -EINVAL;
		}
		a->space = c == CLI_OPT_ALL_USER ? PM_SPACE_USER : PM_SPACE_KERNEL;
		return 1;
	default:
		return 0;
	}
}

int cli_count__option(struct cli_count *a, int c, const char *arg)
{
	char name[128];

	switch (c) {
	case 'e':
		return add_arg(a->events, &a->n_events, arg, "-e",
			       "; a spec may list several events separated by commas");
	case 'g':
		if (arg_global.perf_mode) { /* perf's -g is --group */
			a->group = true;
			return 1;
		}
		/* fall through */
	case 'M':
		return add_arg(a->metrics, &a->n_metrics, arg, "-M/-g", "");
	case CLI_OPT_DEFINE:
		if (a->n_defines < CLI_MAX_ARGS &&
		    cli_parse_define(arg, name, sizeof(name), &a->define_values[a->n_defines]) < 0)
			return -EINVAL;
		return add_arg(a->defines, &a->n_defines, arg, "--define", "");
	case CLI_OPT_PER_DEVICE:
		return set_aggr(a, PM_AGGR_DEVICE);
	case CLI_OPT_PER_CHANNEL:
		return set_aggr(a, PM_AGGR_CHANNEL);
	case 'A':
		return set_aggr(a, PM_AGGR_CPU);
	case CLI_OPT_PER_DIE:
		return set_aggr(a, PM_AGGR_DIE);
	case CLI_OPT_PER_SOCKET:
		return set_aggr(a, PM_AGGR_SOCKET);
	case CLI_OPT_PER_CORE:
		return set_aggr(a, PM_AGGR_CORE);
	case CLI_OPT_PER_NODE:
		return set_aggr(a, PM_AGGR_NODE);
	case CLI_OPT_PER_CACHE:
		if (arg && cli_parse_cache_level(arg, &a->cache_level) < 0) {
			cli_error("--per-cache takes a cache level as perf writes it: --per-cache=L2 "
				  "(L1 to L4), or --per-cache alone for each CPU's last level; not "
				  "'%s'",
				  arg);
			return -EINVAL;
		}
		return set_aggr(a, PM_AGGR_CACHE);
	case CLI_OPT_MERGE:
		return set_aggr(a, PM_AGGR_FAMILY);
	case CLI_OPT_NO_MERGE:
		/* perf's: a row per PMU instance; alone that is --per-device, with -A (or
		 * another --per-*) a row per instance in each of its buckets */
		a->no_merge = true;
		if (!a->n_aggr)
			a->aggr = PM_AGGR_DEVICE;
		return 1;
	case CLI_OPT_PER_THREAD:
		return set_aggr(a, PM_AGGR_THREAD);
	case CLI_OPT_NO_CSV_SUMMARY:
		a->no_csv_summary = true;
		return 1;
	case CLI_OPT_GROUP:
		a->group = true;
		return 1;
	case CLI_OPT_PERF: /* taken before the options (cli_perf_flag) */
		return 1;
	case CLI_OPT_METRIC_ONLY:
		a->metric_only = true;
		return 1;
	case 'x':
		a->format = PM_OUT_CSV;
		if (arg_global.perf_mode) { /* perf takes any string ("\t": a tab) */
			a->sep_str = strcmp(arg, "\\t") ? arg : "\t";
			a->sep = a->sep_str[0];
			return 1;
		}
		if (cli_parse_separator("-x", arg, &a->sep) < 0)
			return -EINVAL;
		return 1;
	case 'j':
		a->format = PM_OUT_JSON;
		return 1;
	case 'o':
		a->output = arg;
		return 1;
	case CLI_OPT_APPEND:
		a->append = true;
		return 1;
	case 'B': /* perf's default as pmumon's: the last of -B and --no-big-num wins */
	case CLI_OPT_NO_BIG_NUM:
		a->no_big_num = c == CLI_OPT_NO_BIG_NUM;
		return 1;
	case CLI_OPT_SUMMARY: /* pmumon's totals follow the intervals anyway (docs/output.md) */
		a->summary = true;
		return 1;
	case CLI_OPT_INTERVAL_CLEAR:
		a->interval_clear = true;
		return 1;
	default:
		return event_option(a, c, arg);
	}
}

double cli_count__defined(const struct cli_count *a, const char *name)
{
	size_t n = strlen(name);
	double v = NAN;

	for (size_t i = 0; i < a->n_defines; i++)
		if (!strncmp(a->defines[i], name, n) && a->defines[i][n] == '=')
			v = a->define_values[i];
	return v;
}

int cli_count__check(const struct cli_count *a)
{
	if (a->n_aggr > 1) {
		cli_error(
			"give one of --per-device, --per-channel, --per-cpu, --per-die, "
			"--per-socket, --merge, --per-core, --per-node, --per-cache, --per-thread "
			"(--no-merge alone is --per-device)");
		return -EINVAL;
	}
	if (a->append && !a->output) {
		/* perf ignores it then: a no-op option would only mislead */
		cli_error("--append adds to the file -o names: give -o FILE");
		return -EINVAL;
	}
	if (a->metric_only && !a->n_metrics) {
		cli_error("--metric-only needs -M");
		return -EINVAL;
	}
	if (a->has_proxy_error && !a->attribute_cgroups && !a->attribute_pods) {
		cli_error("--attribute-proxy-error declares the error of attribution's proxies: "
			  "give it with --attribute-cgroups or --attribute-pods");
		return -EINVAL;
	}
	if ((a->attribute_cgroups || a->attribute_pods) && a->cgroups) {
		cli_error("%s counts its proxies in each cgroup itself: give it or %s, not both",
			  a->attribute_pods ? "--attribute-pods" : "--attribute-cgroups",
			  a->for_each_cgroup ? "--for-each-cgroup" : "-G");
		return -EINVAL;
	}
	if (a->bpf_counters && !a->cgroups && !a->attribute_cgroups && !a->attribute_pods) {
		/* perf's --bpf-counters also shares counters between perf processes: not here */
		cli_error(
			"--bpf-counters counts the events of cgroups through BPF: give it with -G, "
			"--for-each-cgroup, --attribute-cgroups or --attribute-pods");
		return -EINVAL;
	}
	if ((a->attribute_cgroups || a->attribute_pods) && a->n_aggr && a->aggr != PM_AGGR_FAMILY &&
	    a->aggr != PM_AGGR_SOCKET) {
		cli_error("memory traffic is apportioned to cgroups per machine, or per socket "
			  "(--per-socket): a core event does not know which channel or die a miss "
			  "went to (docs/attribution.md)");
		return -EINVAL;
	}
	return 0;
}

int cli_count__table_only(const struct cli_count *a, const char *command)
{
	const char *opt = a->interval_clear ? "--interval-clear" :
			  a->no_big_num	    ? "--no-big-num" :
			  a->no_csv_summary ? "--no-csv-summary" :
					      NULL;

	if (a->aggr == PM_AGGR_THREAD) {
		cli_error("--per-thread counts running threads (pmumon stat -p, -t or -a); pmumon %s "
			  "counts per CPU",
			  command);
		return -EINVAL;
	}

	if (a->append) {
		cli_error("--append adds to the file pmumon stat and import write with -o; pmumon "
			  "%s writes its own",
			  command);
		return -EINVAL;
	}
	if (!opt)
		return 0;
	cli_error("%s shapes the table pmumon stat and import print; pmumon %s prints none", opt,
		  command);
	return -EINVAL;
}

/*
 * --group (perf mode's -g): every -e event in one group, as perf's
 * evlist__set_leader makes the first event every other's leader: the specs
 * joined into one {...}. A spec with a {group} of its own cannot nest.
 */
static int add_grouped(const struct cli_count *a, struct pm_evlist *l)
{
	size_t len = 3;
	struct pm_diag d;
	char *spec;
	int r;

	for (size_t i = 0; i < a->n_events; i++) {
		if (strchr(a->events[i], '{')) {
			cli_error("--group puts every event in one group; '%s' has a group of its "
				  "own: give the groups with {} alone",
				  a->events[i]);
			return -EINVAL;
		}
		len += strlen(a->events[i]) + 1;
	}
	spec = malloc(len);
	if (!spec) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	strcpy(spec, "{");
	for (size_t i = 0; i < a->n_events; i++) {
		strcat(spec, a->events[i]);
		strcat(spec, i + 1 < a->n_events ? "," : "}");
	}
	r = pm_evlist__add(l, spec, &d);
	if (r < 0)
		cli_report(spec, r, &d);
	free(spec);
	return r;
}

int cli_count__add(const struct cli_count *a, struct pm_evlist *l)
{
	struct pm_diag d;
	int r;

	for (size_t i = 0; i < a->n_defines; i++) {
		const char *arg = a->defines[i];
		char name[128];

		/* the value was checked with the option: NAME= is there */
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
		r = pm_evlist__define(l, name, a->define_values[i]);
		if (r < 0) {
			cli_error("--define %s: %s", arg, strerror(-r));
			return r;
		}
	}
	if (a->group && a->n_events) {
		r = add_grouped(a, l);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < a->n_events && !a->group; i++) {
		r = pm_evlist__add(l, a->events[i], &d);
		if (r < 0) {
			cli_report(a->events[i], r, &d);
			return r;
		}
	}
	for (size_t i = 0; i < a->n_metrics; i++) {
		pm_diag__init(&d);
		r = pm_evlist__add_metrics(l, a->metrics[i], &d);
		if (r < 0) {
			cli_report(a->metrics[i], r, &d);
			return r;
		}
	}
	for (size_t i = 0; i < pm_evlist__note_count(l); i++) {
		const char *subject = "";
		int at = -1;
		enum pm_reason why = pm_evlist__note_reason(l, i, &at, &subject);
		char note[1024];

		cli_words(why, pm_evlist__note(l, i), at, subject, note, sizeof(note));
		cli_info("note: %s", note);
	}
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* The names of a comma-separated list, each its own string (an empty one for ",,"):
 * 0, or -ENOMEM (said). */
static int split_names(const char *list, char ***ret, size_t *ret_n)
{
	size_t n = 1;
	char **names;

	for (const char *p = list; *p; p++)
		n += *p == ',';
	names = calloc(n, sizeof(*names));
	for (size_t i = 0; names && i < n; i++) {
		size_t len = strcspn(list, ",");

		names[i] = strndup(list, len);
		if (!names[i]) {
			free_names(names, i);
			names = NULL;
			break;
		}
		list += len + (list[len] == ',');
	}
	if (!names) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	*ret = names;
	*ret_n = n;
	return 0;
}

static void say_cgroup_error(const char *name, int r)
{
	cli_error("cgroup '%s': %s", name,
		  r == -EINVAL ? "a path under the cgroup2 mount, without '..'" : strerror(-r));
}

/* -G: one cgroup for every event, or one per event in order ("" none), as perf. */
static int set_cgroups(struct pm_evlist *l, char **names, size_t n)
{
	size_t n_ev = pm_evlist__count(l);

	if (n > n_ev) {
		cli_error("-G names %zu cgroups for %zu events: one per event, in order (an "
			  "empty name for none), or one for all, as perf",
			  n, n_ev);
		return -EINVAL;
	}
	for (size_t e = 0; e < n_ev && (n == 1 || e < n); e++) {
		const char *name = names[n == 1 ? 0 : e];
		int r = name[0] ? pm_evlist__set_cgroup(l, e, name) : 0;

		if (r < 0) {
			say_cgroup_error(name, r);
			return r;
		}
	}
	return 0;
}

/*
 * --for-each-cgroup: every event and metric of the list once per cgroup, as
 * perf's evlist__expand_cgroup; an empty name is the root cgroup, "/", and a
 * name given again is counted once (tools/perf/util/cgroup.c list_cgroups,
 * check_and_add_cgroup_name).
 */
static int expand_cgroups(struct pm_evlist *l, char **names, size_t n)
{
	size_t kept = 0;
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		bool again = false;

		if (!names[i][0]) {
			free(names[i]);
			names[i] = strdup("/");
			r = names[i] ? 0 : -ENOMEM;
		}
		for (size_t k = 0; r == 0 && k < kept && !again; k++)
			again = !strcmp(names[k], names[i]);
		if (r == 0 && again) {
			free(names[i]);
			names[i] = NULL;
		} else if (r == 0) {
			char *keep = names[i];

			names[i] = NULL;
			names[kept++] = keep;
		}
	}
	if (r == 0)
		r = pm_evlist__expand_cgroups(l, (const char *const *)names, kept);
	for (size_t i = 0; r == -EINVAL && i < kept; i++)
		if (strstr(names[i], ".."))
			say_cgroup_error(names[i], r);
	if (r == -ENOMEM)
		cli_error("--for-each-cgroup: out of memory");
	return r;
}

int cli_count__add_cgroups(const struct cli_count *a, struct pm_evlist *l)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!a->cgroups)
		return 0;
	r = split_names(a->cgroups, &names, &n);
	if (r == 0)
		r = a->for_each_cgroup ? expand_cgroups(l, names, n) : set_cgroups(l, names, n);
	free_names(names, n);
	return r;
}

void cli_count__usage_events(FILE *f)
{
	fputs("  -e, --event SPEC      an event in perf's syntax, repeatable:\n"
	      "                          msr/tsc/            an event a PMU names\n"
	      "                          ali_drw/hif_rd/     every instance of a family\n"
	      "                          ali_drw_2*/hif_rd/  a glob over PMU names\n"
	      "                          amd_df/event=0x7,umask=0x38,name=ch0/\n"
	      "                                              terms, encoded through sysfs format\n"
	      "                          cycles:u, page-faults, r1a8, sched:sched_switch\n"
	      "                          {a,b}               a group, scheduled together\n"
	      "                        without -e: the platform pack's defaults (memory\n"
	      "                        bandwidth first) or perf's generic events; one the\n"
	      "                        machine cannot count is a <not supported> row, as\n"
	      "                        perf's (serve and record leave it out, and say so)\n"
	      "      --group           every -e event in one group, scheduled together (perf's\n"
	      "                        -g; in perf mode -g too, pmumon's -g is -M's groups)\n"
	      "  -d, --detailed        perf stat's detailed events after the others: the L1\n"
	      "                        data and last-level caches' loads and misses; -dd\n"
	      "                        adds the L1 instruction cache's and the TLBs'; -ddd\n"
	      "                        L1 data prefetches. Where the CPU has no such\n"
	      "                        counter (a VM) their rows say <not supported>\n"
	      "  -G, --cgroup NAME[,NAME]  count only while the cgroup's tasks run (its path\n"
	      "                        under the cgroup2 mount; / is the root), on CPUs (stat\n"
	      "                        with -a or -C), as perf: one name for every event, or\n"
	      "                        one per event in order (an empty name: not in a cgroup)\n"
	      "      --for-each-cgroup NAME[,NAME]  every event (the defaults without -e)\n"
	      "                        and -M metric once per cgroup, each row naming its\n"
	      "                        cgroup (CSV column cgroup, JSON key); an empty name\n"
	      "                        is the root, as perf\n"
	      "      --attribute-cgroups PATH[,PATH]  the machine's memory traffic per\n"
	      "                        cgroup: the uncore total apportioned by core proxy\n"
	      "                        events counted in each (on every CPU), the rest a row\n"
	      "                        of its own, <unattributed>; approximate, per machine\n"
	      "                        or --per-socket (docs/attribution.md)\n"
	      "      --attribute-pods[=containers]  the same for every pod of the kubelet's\n"
	      "                        (either cgroup driver), named from /var/log/pods, or\n"
	      "                        each of their containers' cgroups\n"
	      "      --attribute-proxy-error PCT  the proxies' relative error against each\n"
	      "                        cgroup's traffic, declared (no counter measures it):\n"
	      "                        the attributed intervals then hold it (flag\n"
	      "                        proxy_bias_included); without it they exclude it\n"
	      "      --bpf-counters    count those cgroups' events once per CPU, not once per\n"
	      "                        cgroup per CPU: a BPF program on each context switch\n"
	      "                        adds to the cgroup that ran (root, Linux 5.10+, cgroup\n"
	      "                        v2; the rows are the same: docs/attribution.md)\n"
	      "      --all-user        every event counts user space only (exclude_kernel),\n"
	      "                        as perf; --all-kernel the kernel only (exclude_user).\n"
	      "                        Uncore PMUs cannot tell them apart: they count both\n",
	      f);
}

void cli_count__usage_metrics(FILE *f)
{
	fputs("  -M, --metrics NAMES   the platform packs' metrics, by name or group, comma\n"
	      "                        separated (pmumon list metrics); -g, --metric-group is\n"
	      "                        the same. Their events are shown too; a metric whose\n"
	      "                        events were not counted is <not counted>\n"
	      "      --define NAME=VALUE  a constant a metric needs that no counter gives\n"
	      "                        (a memory controller's clock), repeatable\n",
	      f);
}

void cli_count__usage_show(FILE *f, const char *default_rows)
{
	fprintf(f,
		"How to show it (default: %s):\n"
		"      --per-device      one row per PMU instance, with its place where a pack\n"
		"                        decodes the name (ali_drw_21080 die0/ch0/sub1); also\n"
		"                        --no-merge, as perf, which with -A (or another --per-*)\n"
		"                        is a row per PMU instance in each of its rows\n"
		"      --per-channel     one row per memory channel, its sub-channels added\n"
		"                        (die0/ch0); other PMUs keep one row per device\n"
		"  -A, --per-cpu         one row per CPU (also --no-aggr); an uncore PMU's row\n"
		"                        names the L3, die or socket its CPU reads for\n"
		"      --per-core        one row per physical core, labelled as perf does:\n"
		"                        S0-D0-C3 (socket, die, the CPUs' core_id)\n"
		"      --per-cache[=L2]  one row per cache instance of that level (L1 to L4;\n"
		"                        alone: each CPU's last level), from sysfs cpu*/cache:\n"
		"                        S0-D0-L3-ID8 (ID: the cache's lowest CPU)\n"
		"      --per-die         one row per die (for ali_drw, the die its name says)\n"
		"      --per-node        one row per NUMA node (N0), from sysfs node*/cpulist\n"
		"      --per-socket      one row per socket\n"
		"      --per-thread      one row per thread counted (-p, -t; with -a every thread\n"
		"                        of the machine), labelled comm-TID as perf\n"
		"                        per core, cache and node, an uncore count goes to its\n"
		"                        cpumask CPU's row, which names the domain it counts\n"
		"      --merge           one row per event, the instances of a family merged\n"
		"      --metric-only     only the metrics' rows (with -M)\n"
		"  -x, --field-separator SEP  CSV with a header row and fixed columns\n"
		"  -j, --json            JSON Lines, one object per value (schema %d)\n"
		"  -o, --output FILE     write there instead of standard output\n"
		"      --append          with -o: add to the file instead of replacing it, each\n"
		"                        run after a line '# started on DATE' (perf's), then\n"
		"                        its own header; import reads such a file's runs one\n"
		"                        at a time\n"
		"  -B, --big-num         group the table's digits (1,234,567: the default, as\n"
		"                        perf); --no-big-num prints them plain (1234567)\n"
		"      --interval-clear  with -I, on a terminal: clear the screen before each\n"
		"                        interval and repeat the header (perf's option)\n"
		"      --summary         perf's: the totals after the intervals; pmumon always\n"
		"                        prints them (CSV type 'total', JSON \"type\":\"total\")\n"
		"      --perf            perf 6.1's own output, as when pmumon runs under the name\n"
		"                        perf: its table, -x and -j layouts on standard error,\n"
		"                        its default events and exit statuses (docs/output.md)\n"
		"      --no-csv-summary  perf mode: -x's totals after -I without 'summary'\n",
		default_rows, PM_JSON_SCHEMA);
}

/* ---- strict option values ------------------------------------------------------------ */

int cli_parse_separator(const char *opt, const char *arg, char *ret)
{
	if (!strcmp(arg, "\\t")) {
		*ret = '\t';
		return 0;
	}
	if (strlen(arg) != 1) {
		cli_error("option %s wants one separator character such as , or ';' (or \\t), "
			  "not '%s'",
			  opt, arg);
		return -EINVAL;
	}
	/* numbers (-1.5e+09) and quoting are made of these: a field could not be told apart */
	if (strchr("0123456789.-+eE\"\n\r", arg[0])) {
		cli_error("option %s: '%s' cannot separate fields, as numbers and quoting use "
			  "digits, '.', '-', '+', 'e', '\"', newline and carriage return; use , ; | "
			  "or \\t",
			  opt, arg);
		return -EINVAL;
	}
	*ret = arg[0];
	return 0;
}

int cli_parse_proxy_error(const char *arg, double *ret)
{
	char num[64];
	size_t n = arg ? strlen(arg) : 0;
	double v;

	if (n && arg[n - 1] == '%')
		n--;
	if (!n || n >= sizeof(num)) {
		cli_error("--attribute-proxy-error wants a percentage, 0 to below 100 (10 or 10%%), "
			  "not '%s'",
			  arg ? arg : "");
		return -EINVAL;
	}
	snprintf(num, sizeof(num), "%.*s", (int)n, arg);
	if (pm_parse_double_str(num, &v) < 0 || !(v >= 0 && v < 100)) {
		cli_error("--attribute-proxy-error wants a percentage, 0 to below 100 (10 or 10%%), "
			  "not '%s'",
			  arg);
		return -EINVAL;
	}
	*ret = v / 100;
	return 0;
}

int cli_parse_define(const char *arg, char *name, size_t size, double *ret)
{
	const char *eq = strchr(arg, '=');
	double v;
	int r;

	if (!eq || eq == arg || (size_t)(eq - arg) >= size) {
		cli_error("--define wants NAME=NUMBER (ddrc_freq=1.6e9), not '%s'", arg);
		return -EINVAL;
	}
	snprintf(name, size, "%.*s", (int)(eq - arg), arg);
	r = pm_parse_double_str(eq + 1, &v);
	if (r == -ERANGE) {
		cli_error("--define %s: the value '%s' is out of range", name, eq + 1);
		return r;
	}
	if (r < 0) {
		cli_error("--define %s: '%s' is not a number (write it as 1.6e9 or 1600000000)",
			  name, eq + 1);
		return r;
	}
	/* every constant a pack names is a clock rate or a size (the Constants of data/PACK/pack.json) */
	if (!(v > 0)) {
		cli_error("--define %s=%s: a constant is a clock rate or a size, so it must be "
			  "greater than 0",
			  name, eq + 1);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int cli_parse_uint(const char *opt, const char *s, unsigned long max, unsigned long *ret)
{
	uint64_t v;

	if (pm_parse_u64_str(s, 10, &v) < 0 || v > max) {
		cli_error("option %s wants a whole number up to %lu, not '%s'", opt, max, s);
		return -EINVAL;
	}
	*ret = (unsigned long)v;
	return 0;
}

/* The targets of --attribute-cgroups or --attribute-pods: *ret (free) and *ret_pods (free). */
static int attribution_targets(const struct cli_count *a, struct pm_ctx *ctx,
			       struct pm_attrib_target **ret, size_t *ret_n,
			       struct pm_pod **ret_pods, char ***ret_names)
{
	struct pm_attrib_target *t = NULL;
	struct pm_pod *pods = NULL;
	char **names = NULL;
	size_t n = 0;
	int r = 0;

	if (a->attribute_pods) {
		r = pm_ctx__pods(ctx, a->attribute_pods == 2, &pods, &n);
		if (r < 0) {
			cli_error("cannot look for the kubelet's pods: %s", strerror(-r));
			return r;
		}
		t = calloc(n + 1, sizeof(*t));
		for (size_t i = 0; t && i < n; i++)
			t[i] = (struct pm_attrib_target){ .cgroup = pods[i].cgroup,
							  .pod_namespace = pods[i].pod_namespace,
							  .pod = pods[i].pod,
							  .container = pods[i].container[0] ?
									       pods[i].container :
									       NULL };
	} else {
		r = split_names(a->attribute_cgroups, &names, &n);
		if (r < 0)
			return r;
		t = calloc(n + 1, sizeof(*t));
		for (size_t i = 0; t && i < n; i++)
			t[i] = (struct pm_attrib_target){ .cgroup = names[i] };
	}
	if (!t) {
		free(pods);
		if (names)
			free_names(names, n);
		cli_error("out of memory");
		return -ENOMEM;
	}
	*ret = t;
	*ret_n = n;
	*ret_pods = pods;
	*ret_names = names;
	return 0;
}

int cli_count__add_attribution(const struct cli_count *a, struct pm_ctx *ctx, struct pm_evlist *l,
			       size_t *ret_n)
{
	struct pm_attrib_target *t;
	struct pm_pod *pods;
	char **names;
	struct pm_diag d;
	size_t n;
	int r;

	if (!a->attribute_cgroups && !a->attribute_pods)
		return 0;
	r = attribution_targets(a, ctx, &t, &n, &pods, &names);
	if (r < 0)
		return r;
	if (!n && a->attribute_pods)
		cli_info("no pod of the kubelet's found under the cgroup2 mount: all memory "
			 "traffic is <unattributed>");
	r = pm_evlist__attribute_cgroups(l, t, n, &d);
	if (r < 0)
		cli_report(a->attribute_pods ? "--attribute-pods" : "--attribute-cgroups", r, &d);
	else if (a->has_proxy_error)
		r = pm_evlist__attribute_proxy_error(l, a->proxy_error);
	if (r >= 0 && ret_n)
		*ret_n = n;
	free(t);
	free(pods);
	if (names)
		free_names(names, n);
	return r;
}

int cli_pods_key(int attribute_pods, struct pm_ctx *ctx, char **ret)
{
	struct pm_pod *pods = NULL;
	size_t n = 0, len = 1;
	char *key;
	int r = attribute_pods ? pm_ctx__pods(ctx, attribute_pods == 2, &pods, &n) : 0;

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		len += strlen(pods[i].cgroup) + strlen(pods[i].pod) + strlen(pods[i].container) + 3;
	key = malloc(len);
	if (!key) {
		free(pods);
		return -ENOMEM;
	}
	key[0] = '\0';
	for (size_t i = 0, off = 0; i < n; i++)
		off += (size_t)snprintf(key + off, len - off, "%s %s %s\n", pods[i].cgroup,
					pods[i].pod, pods[i].container);
	free(pods);
	*ret = key;
	return 0;
}

int cli_parse_size(const char *opt, const char *arg, uint64_t *ret)
{
	char num[32];
	size_t n = strlen(arg);
	uint64_t v, mult = 1;

	if (n && n < sizeof(num) && strchr("kMG", arg[n - 1])) {
		mult = arg[n - 1] == 'k' ? 1ull << 10 : arg[n - 1] == 'M' ? 1ull << 20 : 1ull << 30;
		n--;
	}
	if (!n || n >= sizeof(num))
		goto bad;
	memcpy(num, arg, n);
	num[n] = '\0';
	if (pm_parse_u64_str(num, 10, &v) < 0 || v == 0 || v > UINT64_MAX / mult)
		goto bad;
	*ret = v * mult;
	return 0;
bad:
	cli_error("%s wants a size in bytes, with k, M or G (64M), not '%s'", opt, arg);
	return -EINVAL;
}
