// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon's commands: their table (name, function, summary), pmumon --help
 * that lists them, and running one by its name, for pmumon (main.c) and for
 * perf mode's stat and list (perfmode.c) alike.
 *
 * The table is the only list of the commands: cli/meson.build reads its names
 * (one '{ "NAME", cmd_NAME,' line each, between 'commands[] = {' and '};')
 * for dist/meson.build's man page per command, and help2man.py, the bash
 * completion and scripts/test-package ask the binary (--help, --list-commands).
 * tests/cli/test_commands.py fails when any of them, the installed pages,
 * debian/ or docs disagree with it.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli-global.h"
#include "cli-commands.h"
#include "util.h"
#include "pmumon/sim.h"

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "list", cmd_list, "show the PMUs of this machine and the events they count" },
	{ "doctor", cmd_doctor,
	  "what this machine can count, and for what it cannot, why and the fix" },
	{ "stat", cmd_stat, "count events, once or every interval, like perf stat" },
	{ "import", cmd_import, "compute a pack's metrics from counts perf or others recorded" },
	{ "serve", cmd_serve, "serve the counts to Prometheus, sampling on its own clock" },
	{ "top", cmd_top, "the live view: memory channels, caches and links every second" },
	{ "record", cmd_record, "count every interval into a SQLite recording" },
	{ "report", cmd_report, "statistics and plots of a recording" },
};

void cli_usage(FILE *f)
{
	const char *name, *summary;

	fprintf(f, "usage: pmumon [--root DIR | --sim PLATFORM[:OPTIONS]] [--events-dir DIR "
		   "[--events-lenient]] [-v] COMMAND [ARGS]\n"
		   "\n"
		   "Reads the hardware performance counters of this machine (perf PMUs) and\n"
		   "reports them with their quality: how long each counted, what was scaled.\n"
		   "\n"
		   "Commands:\n");
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Options:\n"
		"  --root DIR     read sysfs and procfs under DIR instead of / (a fixture tree);\n"
		"                 also PMUMON_ROOT\n"
		"  --sim PLATFORM[:KEY=VALUE,...]\n"
		"                 run on a simulated machine whose every count is known (also\n"
		"                 PMUMON_SIM); all output says SIMULATED. Keys: clock=real (follow\n"
		"                 wall time; needed to run commands other than 'sleep N'),\n"
		"                 scenario=FILE (the workload, docs/simulator.md), seed=N,\n"
		"                 state=FILE (the device control files at exit); the machine's\n"
		"                 settings (pmumon doctor): paranoid=-1..4, lockdown=none|\n"
		"                 integrity|confidentiality, watchdog=0|1, container=0|1; and per\n"
		"                 platform sockets=1|2, channels=1|2, msr=rw|none|noperm|locked,\n"
		"                 uncore=perf|unloaded|none, user=root|nobody|perfmon,\n"
		"                 hypervisor=none|kvm|kvm-nopmu; kubelet=systemd|cgroupfs (a\n"
		"                 kubelet's pods, docs/attribution.md)\n"
		"  --events-dir DIR\n"
		"                 more platform packs: directories with a pack.json, or a\n"
		"                 checkout of perf's tools/perf/pmu-events (its mapfile.csv\n"
		"                 picks this CPU's events and metrics; sys/ tables match by\n"
		"                 Compat); repeatable; its metrics override built-in ones.\n"
		"                 A file or entry it refuses (said with file:line:col), or a\n"
		"                 directory of which nothing loads, stops the command\n"
		"  --events-lenient\n"
		"                 go on without what --events-dir refused, as perf does\n"
		"  -v, --verbose  say more (repeat for debug detail)\n"
		"  -h, --help     this help; 'pmumon COMMAND --help' for a command\n"
		"  --version      print the version\n"
		"\n"
		"Run under the name perf (the link /usr/lib/pmumon/perf: PATH=/usr/lib/pmumon:$PATH),\n"
		"or 'stat --perf' and 'list --perf', pmumon is perf 6.1's stat and list: perf's\n"
		"output, streams, defaults and exit statuses over pmumon's counting (perf mode).\n"
		"\n"
		"Examples:\n"
		"  pmumon doctor                         what this machine can count, and fixes\n"
		"  pmumon list pmus                      the PMUs, their CPUs and counters\n"
		"  pmumon stat -a -- sleep 5             the default events, system-wide, 5 s\n"
		"  pmumon stat -a -e msr/tsc/ -I 1000    TSC ticks every second until Ctrl-C\n"
		"  pmumon --sim yitian710 stat -a --per-device -e 'ali_drw_*/hif_rd/' -I 1000 -- "
		"sleep 5\n"
		"\n"
		"Simulated platforms:\n");
	for (size_t i = 0; (name = pm_sim__platform_info(i, &summary)); i++)
		fprintf(f, "  %-11s %s\n", name, summary);
}

void cli_list_commands(FILE *f)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++)
		fprintf(f, "%s\n", commands[i].name);
}

void cli_unknown_command(const char *name)
{
	char list[256] = "";

	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++) {
		size_t off = strlen(list);

		snprintf(list + off, sizeof(list) - off, "%s%s",
			 !i				  ? "" :
			 i + 1 == PM_ARRAY_SIZE(commands) ? " and " :
							    ", ",
			 commands[i].name);
	}
	cli_error("unknown command '%s'; the commands are %s (pmumon --help)", name, list);
}

bool cli_is_command(const char *name)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return true;
	return false;
}

int cli_run_command(const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++) {
		char buf[32];

		if (strcmp(name, commands[i].name) != 0)
			continue;
		optind = 0; /* restart getopt for the command */
		snprintf(buf, sizeof(buf), "%s %s", arg_global.perf_mode ? "perf" : "pmumon",
			 commands[i].name);
		argv[0] = buf;
		return commands[i].fn(argc, argv);
	}
	return -1;
}
