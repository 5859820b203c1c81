// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon stat: count events system-wide, on CPUs, or for a command; once or
 * every interval; as a table, CSV or JSON Lines. Ctrl-C ends counting and
 * prints what was counted so far.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"

#define MAX_EVENT_ARGS 256
#define NS_PER_MS 1000000ull

struct stat_args {
	const char *events[MAX_EVENT_ARGS];
	size_t n_events;
	const char *metrics[MAX_EVENT_ARGS]; /* -M / -g: names or groups */
	size_t n_metrics;
	const char *defines[MAX_EVENT_ARGS]; /* --define NAME=VALUE */
	size_t n_defines;
	enum pm_source_choice source;
	const char *program; /* --program FILE: the sideband source's list */
	bool sideband_pci;
	bool reclaim;
	bool all_cpus;
	const char *cpus;
	unsigned long interval_ms;
	unsigned long interval_count;
	unsigned long timeout_ms;
	enum pm_out_format format;
	char sep;
	const char *output;
	enum pm_aggr aggr;
	int n_aggr;
	char **cmd;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmumon stat [OPTIONS] [-- COMMAND [ARGS]]\n"
		"\n"
		"Counts events and prints their values with how long each was counted.\n"
		"With a COMMAND (and no -a/-C) it counts that command and its children and\n"
		"exits with its exit status; otherwise it counts the whole machine until the\n"
		"COMMAND ends, --timeout passes, or Ctrl-C (which prints the totals so far).\n"
		"\n"
		"What to count:\n"
		"  -e, --event SPEC      an event in perf's syntax, repeatable:\n"
		"                          msr/tsc/            an event a PMU names\n"
		"                          ali_drw/hif_rd/     every instance of a family\n"
		"                          ali_drw_2*/hif_rd/  a glob over PMU names\n"
		"                          amd_df/event=0x7,umask=0x38,name=ch0/\n"
		"                                              terms, encoded through sysfs format\n"
		"                          cycles:u, page-faults, r1a8, sched:sched_switch\n"
		"                          {a,b}               a group, scheduled together\n"
		"                        without -e: the platform pack's defaults (memory\n"
		"                        bandwidth first) or perf's generic events\n"
		"  -M, --metrics NAMES   the platform pack's metrics, by name or group, comma\n"
		"                        separated (pmumon list metrics); their events are\n"
		"                        counted and shown too; -g, --metric-group is the same\n"
		"      --define NAME=VALUE  a constant a metric needs that no counter gives\n"
		"                        (a memory controller's clock), repeatable\n"
		"      --source SRC      where AMD Data Fabric, L3 and APERF/MPERF counts come\n"
		"                        from: perf (the kernel's PMUs), msr (/dev/cpu/N/msr,\n"
		"                        as seed 004 does: root, the msr driver; 8 DF events\n"
		"                        rotate over 4 counters every 100 ms), or auto (perf)\n"
		"      --program FILE    Merrifield: the programming list that selects the\n"
		"                        UNC_SOC_* groups' events on the SoC counters, captured\n"
		"                        from Intel's tools (docs/sideband.md); counted through\n"
		"                        debugfs iosf_sb, system-wide\n"
		"      --sideband-pci    where the kernel has no iosf_mbi at all, reach the\n"
		"                        sideband through the host bridge's PCI config space\n"
		"                        (races with the kernel's own users of the bus)\n"
		"      --reclaim         reset and use BlueField slots and DF/L3 counters that\n"
		"                        count exactly what pmumon programs for these events:\n"
		"                        what a pmumon killed with SIGKILL leaves (without it\n"
		"                        they are named and left alone); anything else stays\n"
		"                        left alone\n"
		"Where:\n"
		"  -a, --all-cpus        every CPU (the default without a COMMAND)\n"
		"  -C, --cpu LIST        these CPUs (0-3,8); uncore events use the CPUs of\n"
		"                        their PMU's cpumask that are in LIST\n"
		"When:\n"
		"  -I, --interval-print MS    print every MS milliseconds\n"
		"      --interval-count N     stop after N intervals\n"
		"      --timeout MS           stop after MS milliseconds\n"
		"How to show it:\n"
		"      --per-device      one row per PMU instance, with its place where a pack\n"
		"                        decodes the name (ali_drw_21080 die0/ch0/sub1)\n"
		"      --per-channel     one row per memory channel, its sub-channels added\n"
		"                        (die0/ch0); other PMUs keep one row per device\n"
		"  -A, --per-cpu         one row per CPU (also --no-aggr); an uncore PMU's row\n"
		"                        names the L3, die or socket its CPU reads for\n"
		"      --per-die         one row per die (for ali_drw, the die its name says)\n"
		"      --per-socket      one row per socket\n"
		"                        (default: instances of a family merged, one row per event)\n"
		"  -x, --field-separator SEP  CSV with a header row and fixed columns\n"
		"  -j, --json            JSON Lines, one object per value (schema %d)\n"
		"  -o, --output FILE     write there instead of standard output\n"
		"  -v, --verbose         say which events were left out and why\n"
		"\n"
		"Values are scaled for multiplexing like perf: count x enabled / running; the\n"
		"running share shows in parentheses, and a value never counted shows as\n"
		"<not counted> (empty in CSV, null in JSON), never as 0.\n"
		"\n"
		"Examples:\n"
		"  pmumon stat -a -- sleep 5\n"
		"  pmumon stat -a -e msr/tsc/ -e page-faults -I 1000 --interval-count 10\n"
		"  pmumon stat -e page-faults -- make -j2\n"
		"  pmumon stat -a --per-device -e 'ali_drw/hif_rd/' -x, -o bw.csv -I 1000\n"
		"  pmumon stat -a --per-die -M ddr_read_bandwidth.all -I 1000\n"
		"  pmumon stat -a --per-channel -M ddr_read_bandwidth.all -- sleep 1\n",
		PM_JSON_SCHEMA);
}

enum {
	OPT_INTERVAL_COUNT = 1000,
	OPT_TIMEOUT,
	OPT_PER_DEVICE,
	OPT_PER_CHANNEL,
	OPT_PER_DIE,
	OPT_PER_SOCKET,
	OPT_DEFINE,
	OPT_SOURCE,
	OPT_PROGRAM,
	OPT_SIDEBAND_PCI,
	OPT_RECLAIM,
};

static int set_aggr(struct stat_args *a, enum pm_aggr aggr)
{
	a->aggr = aggr;
	a->n_aggr++;
	return 0;
}

static int parse_args(int argc, char **argv, struct stat_args *a)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric-group", required_argument, NULL, 'g' },
		{ "define", required_argument, NULL, OPT_DEFINE },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "program", required_argument, NULL, OPT_PROGRAM },
		{ "sideband-pci", no_argument, NULL, OPT_SIDEBAND_PCI },
		{ "reclaim", no_argument, NULL, OPT_RECLAIM },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "per-device", no_argument, NULL, OPT_PER_DEVICE },
		{ "per-channel", no_argument, NULL, OPT_PER_CHANNEL },
		{ "per-cpu", no_argument, NULL, 'A' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-die", no_argument, NULL, OPT_PER_DIE },
		{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	/* '+': options stop at the command, whose own options are its business */
	while ((c = getopt_long(argc, argv, "+e:M:g:aC:I:Ax:jo:vh", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'M':
		case 'g':
		case OPT_DEFINE: {
			const char **arr = c == OPT_DEFINE ? a->defines : a->metrics;
			size_t *n = c == OPT_DEFINE ? &a->n_defines : &a->n_metrics;

			if (*n == MAX_EVENT_ARGS) {
				cli_error("too many %s options (at most %d)",
					  c == OPT_DEFINE ? "--define" : "-M/-g", MAX_EVENT_ARGS);
				return -1;
			}
			arr[(*n)++] = optarg;
			break;
		}
		case OPT_SOURCE:
			if (!strcmp(optarg, "perf"))
				a->source = PM_SOURCE_PERF;
			else if (!strcmp(optarg, "msr"))
				a->source = PM_SOURCE_MSR;
			else if (!strcmp(optarg, "auto"))
				a->source = PM_SOURCE_AUTO;
			else {
				cli_error("--source is perf, msr or auto, not '%s'", optarg);
				return -1;
			}
			break;
		case OPT_PROGRAM:
			a->program = optarg;
			break;
		case OPT_SIDEBAND_PCI:
			a->sideband_pci = true;
			break;
		case OPT_RECLAIM:
			a->reclaim = true;
			break;
		case 'e':
			if (a->n_events == MAX_EVENT_ARGS) {
				cli_error("too many -e options (at most %d; a spec may list several "
					  "events separated by commas)",
					  MAX_EVENT_ARGS);
				return -EINVAL;
			}
			a->events[a->n_events++] = optarg;
			break;
		case 'a':
			a->all_cpus = true;
			break;
		case 'C':
			a->cpus = optarg;
			break;
		case 'I':
			if (cli_parse_uint("-I", optarg, 3600000, &a->interval_ms) < 0)
				return -EINVAL;
			if (a->interval_ms < 1) {
				cli_error("option -I wants at least 1 ms");
				return -EINVAL;
			}
			break;
		case OPT_INTERVAL_COUNT:
			if (cli_parse_uint("--interval-count", optarg, UINT32_MAX,
					   &a->interval_count) < 0)
				return -EINVAL;
			break;
		case OPT_TIMEOUT:
			if (cli_parse_uint("--timeout", optarg, UINT32_MAX, &a->timeout_ms) < 0)
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
		case 'x':
			if (cli_parse_separator("-x", optarg, &a->sep) < 0)
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
			fprintf(stderr, "(pmumon stat --help lists the options)\n");
			return -EINVAL;
		}
	}
	if (a->n_aggr > 1) {
		cli_error(
			"give one of --per-device, --per-channel, --per-cpu, --per-die, --per-socket");
		return -EINVAL;
	}
	if (a->interval_count && !a->interval_ms) {
		cli_error("--interval-count needs -I");
		return -EINVAL;
	}
	if (a->all_cpus && a->cpus) {
		cli_error("give either -a or -C, not both");
		return -EINVAL;
	}
	if (optind < argc)
		a->cmd = argv + optind;
	return 0;
}

static void describe_target(const struct stat_args *a, char *buf, size_t size)
{
	if (a->cpus) {
		snprintf(buf, size, "CPU(s) %s", a->cpus);
	} else if (a->cmd && !a->all_cpus) {
		size_t off = (size_t)snprintf(buf, size, "'");

		for (char **p = a->cmd; *p && off < size; p++)
			off += (size_t)snprintf(buf + off, size - off, "%s%s",
						p == a->cmd ? "" : " ", *p);
		if (off < size)
			snprintf(buf + off, size - off, "'");
	} else {
		snprintf(buf, size, "'system wide'");
	}
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAIL;
}

struct run {
	struct pm_ctx *ctx;
	const struct pm_os_ops *ops;
	void *os;
	struct pm_session *s;
	struct pm_out *out;
	struct pm_proc *proc;
	bool proc_done;
	bool proc_ended; /* pmumon signalled the command to end it */
	int proc_status;
	bool out_failed;
	int out_errno;
	/* pmumon itself failed (said already): its exit status wins over the command's */
	bool failed;
	size_t lost_said;   /* lost devices a message named already */
	const char *output; /* -o FILE, for messages */
	struct cli_quality quality;
};

static int report(struct run *run, const struct pm_report *rep)
{
	int r = pm_out__report(run->out, rep);

	cli_quality__warn(&run->quality, rep);
	if (r < 0 && !run->out_failed) {
		run->out_failed = true;
		run->out_errno = -r;
		if (!run->output)
			arg_global.stdout_error_handled = true;
		/* a reader that went away (| head) is not an error worth a message */
		if (r != -EPIPE) {
			run->failed = true;
			cli_error("cannot write the output to %s: %s",
				  run->output ? run->output : "standard output", strerror(-r));
		}
	}
	return r;
}

static int read_counters(struct run *run)
{
	int r = pm_session__read(run->s);
	const char *dev = pm_session__failed_device(run->s);

	if (r < 0)
		run->failed = true;
	if (r == -ENODEV) {
		cli_error("%s%s went away while counting (device removed or driver unloaded); "
			  "stopping, with the totals up to the last good read",
			  dev ? "PMU " : "a PMU", dev ? dev : "");
		run->lost_said = pm_session__lost_count(run->s);
	} else if (r < 0)
		cli_error("reading %s%s failed: %s%s; stopping, with the totals up to the "
			  "last good read",
			  dev ? "PMU " : "the counters", dev ? dev : "", strerror(-r),
			  r == -EIO ? " (the kernel returned a short or inconsistent read: check "
				      "dmesg)" :
				      "");
	return r;
}

/* Wait for the command to exit until `until`; true when it did. */
static bool wait_child(struct run *run, uint64_t until)
{
	while (!run->proc_done) {
		int w = run->ops->wait(run->os, until, run->proc, &run->proc_status);

		if (w == PM_OS_WAKE_EXIT || w < 0) {
			/* w < 0: it cannot be waited for any more; take it as gone */
			run->proc_done = true;
			if (w < 0)
				run->proc_status = EXIT_FAIL << 8;
		} else if (w == PM_OS_WAKE_DEADLINE) {
			return false;
		}
	}
	return true;
}

/*
 * Counting ended before the command. Ctrl-C from the terminal reached the
 * command too: give it time to finish on its own. Anything else (SIGTERM to
 * pmumon alone, --timeout, --interval-count) is passed on. What does not
 * exit in 2 s more is killed.
 */
static void finish_child(struct run *run)
{
	int sig = cli_signals_caught();
	uint64_t now;

	if (!run->proc || run->proc_done)
		return;
	now = run->ops->mono_ns(run->os);
	if (sig == SIGINT && wait_child(run, now + 2000 * NS_PER_MS))
		return;
	run->proc_ended = true;
	run->ops->proc_kill(run->os, run->proc, sig ? sig : SIGTERM);
	if (wait_child(run, run->ops->mono_ns(run->os) + 2000 * NS_PER_MS))
		return;
	run->ops->proc_kill(run->os, run->proc, SIGKILL);
	wait_child(run, UINT64_MAX);
}

/* Count until the command ends, the timeout passes, enough intervals, a signal, or a
 * failure (run->failed says which). */
static void count_loop(struct run *run, const struct stat_args *a)
{
	uint64_t t0 = run->ops->mono_ns(run->os);
	uint64_t step = a->interval_ms * NS_PER_MS, next = step ? t0 + step : UINT64_MAX;
	uint64_t end = a->timeout_ms ? t0 + a->timeout_ms * NS_PER_MS : UINT64_MAX;
	unsigned long intervals = 0;
	bool fresh = false; /* the last thing done was a read: nothing to add */
	int read_failed = 0;
	const struct pm_report *rep;
	int r;

	for (;;) {
		uint64_t now, poll = pm_session__next_poll(run->s);
		uint64_t deadline = CLI_MIN(CLI_MIN(next, end), poll);
		int w;

		fresh = false;
		w = run->ops->wait(run->os, deadline, run->proc_done ? NULL : run->proc,
				   &run->proc_status);
		if (w < 0) {
			cli_error("waiting for the next interval failed: %s", strerror(-w));
			run->failed = true;
			break;
		}
		if (w == PM_OS_WAKE_EXIT) {
			run->proc_done = true;
			break;
		}
		if (w == PM_OS_WAKE_SIGNAL) {
			if (cli_signals_caught())
				break;
			continue;
		}
		now = run->ops->mono_ns(run->os);
		if (now >= poll && now < next) {
			/* a source's turn: rotate its counters, keep them from wrapping */
			r = pm_session__poll(run->s);
			if (r < 0) {
				const char *dev = pm_session__failed_device(run->s);

				cli_error("polling the counters%s%s failed: %s; stopping, with the "
					  "totals up to the last good read",
					  dev ? " on " : "", dev ? dev : "", strerror(-r));
				run->failed = true;
				run->lost_said = pm_session__lost_count(run->s);
				read_failed = r;
				break;
			}
		}
		if (now >= next) {
			r = read_counters(run);
			if (r < 0) {
				read_failed = r;
				break;
			}
			fresh = true;
			if (report(run, pm_session__report(run->s, true)) < 0)
				break;
			while (next <= now)
				next += step;
			if (a->interval_count && ++intervals >= a->interval_count)
				break;
		}
		if (now >= end)
			break;
	}
	/* the command's last moments count too */
	finish_child(run);
	pm_session__disable(run->s);
	/*
	 * Stopped right after an interval's read (--interval-count, or a
	 * --timeout on a tick): the totals are that read, so the intervals add
	 * up to them. Otherwise read once more and print the last, shorter
	 * interval: the time since the last tick is not lost.
	 */
	if (!fresh && !read_failed) {
		r = read_counters(run);
		if (r < 0)
			read_failed = r;
	}
	if (!fresh && !read_failed) {
		rep = pm_session__report(run->s, true);
		if (step && !run->out_failed && rep->duration_ns > 0)
			report(run, rep);
	}
	if (!run->out_failed)
		report(run, pm_session__report(run->s, false));
}

/*
 * The exit status. pmumon's own failure (said already) or a device lost
 * while counting (said here, once) wins: it is never passed off as the
 * command's, nor as the 143 of a command pmumon ended because of it. Then
 * the command's status; then success. A reader that went away (| head)
 * ends the output quietly: no failure, and a command pmumon ended for it
 * does not make the run look killed.
 */
static int exit_status(struct run *run, char **cmd)
{
	size_t lost = pm_session__lost_count(run->s);

	for (size_t i = run->lost_said; i < lost; i++)
		cli_error("%s went away while counting (device removed or driver unloaded): its "
			  "counts end at its last good read",
			  pm_session__lost_device(run->s, i));
	if (run->failed || lost) {
		if (run->proc && run->proc_ended)
			cli_error("ended '%s' early because of the error above; the exit status "
				  "(%d) is pmumon's, not the command's",
				  cmd[0], EXIT_FAIL);
		return EXIT_FAIL;
	}
	if (run->proc && !(run->out_failed && run->proc_ended))
		return exit_status_of(run->proc_status);
	return EXIT_OK;
}

/* Which events the msr source reads (the rest come from perf). */
static void say_msr_events(const struct pm_session *s, const struct pm_evlist *l)
{
	char buf[1024] = "";
	size_t off = 0;

	for (size_t e = 0; e < pm_evlist__count(l); e++) {
		const char *src = pm_session__event_source(s, e);

		if (!src || strcmp(src, "msr") != 0)
			continue;
		off += (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0,
					"%s%s", off ? ", " : "", pm_evlist__name(l, e));
		if (off >= sizeof(buf))
			break;
	}
	if (buf[0])
		cli_info("read through /dev/cpu/N/msr: %s", buf);
}

/* The whole --program file, for the library to parse; NULL after an error said why. */
static char *read_program(const char *path, size_t *ret_len)
{
	char *buf = NULL;
	int r = cli_read_file(path, 16u << 20, &buf, ret_len);

	if (r == -EFBIG)
		cli_error("the programming list '%s' is too large (16 MiB at most)", path);
	else if (r < 0)
		cli_error("cannot read the programming list '%s': %s", path, strerror(-r));
	return r < 0 ? NULL : buf;
}

static int add_events(struct pm_evlist *l, const struct stat_args *a, bool system_wide)
{
	struct pm_diag d;
	char desc[1024];
	int r;

	for (size_t i = 0; i < a->n_defines; i++) {
		double v;
		char name[128];

		if (cli_parse_define(a->defines[i], name, sizeof(name), &v) < 0)
			return -EINVAL;
		r = pm_evlist__define(l, name, v);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < a->n_events; i++) {
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
	for (size_t i = 0; i < pm_evlist__note_count(l); i++)
		cli_info("note: %s", pm_evlist__note(l, i));
	if (a->n_events || a->n_metrics)
		return 0;
	r = pm_evlist__add_defaults(l, system_wide, desc, sizeof(desc), &d);
	if (r < 0) {
		cli_report("the default events", r, &d);
		return r;
	}
	cli_info("counting %s", desc);
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_args a = { .format = PM_OUT_TABLE, .sep = ',', .aggr = PM_AGGR_FAMILY };
	struct run run = { 0 };
	struct pm_evlist *l = NULL;
	struct pm_session_opts so = { .size = sizeof(so) };
	struct pm_out_opts oo = { .size = sizeof(oo) };
	struct pm_diag d;
	FILE *f = stdout;
	char target[512], *program = NULL;
	sigset_t ending;
	int r, ret = EXIT_FAIL;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	/* an inherited "ignore SIGCHLD" would let the kernel reap our command */
	signal(SIGCHLD, SIG_DFL);
	run.output = a.output;
	if (cli_ctx_new(&run.ctx) < 0)
		return EXIT_FAIL;
	run.ops = pm_ctx__os_ops(run.ctx);
	run.os = pm_ctx__os(run.ctx);
	so.aggr = a.aggr;
	so.source = a.source;
	if (a.program) {
		program = read_program(a.program, &so.program_len);
		if (!program)
			goto out;
		so.program = program;
		so.program_name = a.program;
	}
	so.sideband_pci = a.sideband_pci;
	so.reclaim = a.reclaim;
	if (a.cpus) {
		so.target = PM_TARGET_CPUS;
		so.cpus = a.cpus;
	} else if (a.all_cpus || !a.cmd) {
		so.target = PM_TARGET_SYSTEM;
	} else if (a.program) {
		/* the SoC counters count the whole machine, never one task */
		so.target = PM_TARGET_SYSTEM;
		a.all_cpus = true;
		cli_info("the SoC counters (--program) count the whole machine: counting "
			 "system-wide while '%s' runs",
			 a.cmd[0]);
	} else {
		so.target = PM_TARGET_TASK;
	}
	if (a.source == PM_SOURCE_MSR && so.target == PM_TARGET_TASK) {
		cli_error("--source msr counts whole dies, CCXs and CPUs, not one command: add -a "
			  "(or -C) to count the machine while the command runs");
		ret = EXIT_USAGE;
		goto out;
	}
	r = pm_evlist__new(run.ctx, &l);
	if (r < 0) {
		cli_error("out of memory");
		goto out;
	}
	if (add_events(l, &a, so.target != PM_TARGET_TASK) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (a.cmd) {
		r = run.ops->proc_prepare(run.os, a.cmd, &run.proc);
		if (r == -EOPNOTSUPP && pm_ctx__simulated(run.ctx)) {
			cli_error("cannot run '%s' on the simulated machine's virtual clock: there "
				  "only 'sleep N' runs, and sets how long the run lasts; add "
				  "clock=real to --sim to run '%s' for real",
				  a.cmd[0], a.cmd[0]);
			ret = EXIT_USAGE;
			goto out;
		}
		if (r < 0) {
			cli_error("cannot start '%s': %s", a.cmd[0], strerror(-r));
			goto out;
		}
		so.pid = run.ops->proc_pid(run.os, run.proc);
	}
	/*
	 * From the first register pmumon writes (open programs the sideband's
	 * selects) every signal that ends the run is caught: the way out puts
	 * everything back, whatever the signal.
	 */
	cli_signals_ending(&ending);
	cli_signals_setup(&ending);
	r = pm_session__new(l, &so, &run.s, &d);
	if (r == 0)
		r = pm_session__open(run.s, &d);
	if (r < 0) {
		cli_report("counting", r, &d);
		ret = r == -EINVAL && d.pos >= 0 ? EXIT_USAGE : EXIT_FAIL;
		goto out;
	}
	{
		char dropped[1024];

		pm_session__dropped(run.s, dropped, sizeof(dropped));
		if (dropped[0])
			cli_info("left out, not supported here: %s", dropped);
		say_msr_events(run.s, l);
	}
	if (a.output) {
		f = fopen(a.output, "w");
		if (!f) {
			cli_error("cannot write '%s': %s", a.output, strerror(errno));
			f = stdout;
			goto out;
		}
	}
	describe_target(&a, target, sizeof(target));
	oo.format = a.format;
	oo.sep = a.sep;
	oo.target = target;
	oo.simulated = pm_ctx__simulated(run.ctx);
	oo.sim_platform = arg_global.sim_platform;
	r = pm_out__new(f, &oo, &run.out);
	if (r < 0) {
		cli_error("out of memory");
		goto out;
	}
	if (!a.cmd && !a.timeout_ms && !a.interval_count && arg_global.sim_virtual_clock) {
		/* virtual time never reaches a Ctrl-C: it would print intervals without end */
		cli_error("the simulated machine's clock is virtual, so counting needs an end: "
			  "add -- sleep N, --timeout MS or --interval-count N (or clock=real to "
			  "count until Ctrl-C)");
		ret = EXIT_USAGE;
		goto out;
	}
	if (so.target == PM_TARGET_SYSTEM && !a.cmd && !a.timeout_ms && !a.interval_count)
		cli_info("counting system-wide until Ctrl-C");
	r = pm_session__enable(run.s);
	if (r < 0) {
		cli_error("cannot start the counters: %s (%s)", strerror(-r),
			  a.source == PM_SOURCE_MSR ?
				  "a write to a counter control register was refused" :
			  a.program ? "a START to a SoC counter's control register was refused, "
				      "or the kernel refused PERF_EVENT_IOC_ENABLE" :
				      "the kernel refused PERF_EVENT_IOC_ENABLE; see dmesg");
		goto out;
	}
	if (run.proc) {
		r = run.ops->proc_start(run.os, run.proc);
		if (r == 0 && run.ops->proc_exec_errno(run.os, run.proc)) {
			int e = run.ops->proc_exec_errno(run.os, run.proc);

			cli_error("cannot run '%s': %s", a.cmd[0], strerror(e));
			ret = e == ENOENT ? 127 : 126;
			goto out;
		}
		if (r < 0) {
			cli_error("cannot start '%s': %s", a.cmd[0], strerror(-r));
			goto out;
		}
	}
	count_loop(&run, &a);
	finish_child(&run); /* when counting failed before the command ended */
	ret = exit_status(&run, a.cmd);
out:
	if (run.proc)
		run.ops->proc_free(run.os, run.proc);
	pm_out__free(run.out);
	pm_session__free(run.s);
	pm_evlist__free(l);
	pm_ctx__free(run.ctx);
	free(program);
	if (f != stdout && fclose(f) != 0 && !run.out_failed) {
		cli_error("cannot write the output to %s: %s", a.output, strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}
