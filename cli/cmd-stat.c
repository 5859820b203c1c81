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

#define NS_PER_MS 1000000ull

struct stat_args {
	struct cli_count count; /* -e, -M, --define, how to show it */
	enum pm_source_choice source;
	const char *program; /* --program FILE: the sideband source's list */
	bool sideband_pci;
	bool reclaim;
	bool all_cpus;
	const char *cpus;
	unsigned long interval_ms;
	unsigned long interval_count;
	unsigned long timeout_ms;
	char **cmd;
};

/* One string per section: the help text is read top to bottom, not in pieces. */
static void usage(FILE *f)
{
	fputs("usage: pmumon stat [OPTIONS] [-- COMMAND [ARGS]]\n"
	      "\n"
	      "Counts events and prints their values with how long each was counted.\n"
	      "With a COMMAND (and no -a/-C) it counts that command and its children and\n"
	      "exits with its exit status; otherwise it counts the whole machine until the\n"
	      "COMMAND ends, --timeout passes, or Ctrl-C (which prints the totals so far).\n"
	      "\n"
	      "What to count:\n",
	      f);
	cli_count__usage_events(f);
	cli_count__usage_metrics(f);
	fputs("      --source SRC      where AMD Data Fabric, L3 and APERF/MPERF counts come\n"
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
	      "      --timeout MS           stop after MS milliseconds\n",
	      f);
	cli_count__usage_show(f, "one row per event, the instances of a family merged");
	fputs("  -v, --verbose         say which events were left out and why\n"
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
	      f);
}

enum {
	OPT_INTERVAL_COUNT = 1000,
	OPT_TIMEOUT,
	OPT_SOURCE,
	OPT_PROGRAM,
	OPT_SIDEBAND_PCI,
	OPT_RECLAIM,
};

static int parse_source(const char *arg, enum pm_source_choice *ret)
{
	if (!strcmp(arg, "perf"))
		*ret = PM_SOURCE_PERF;
	else if (!strcmp(arg, "msr"))
		*ret = PM_SOURCE_MSR;
	else if (!strcmp(arg, "auto"))
		*ret = PM_SOURCE_AUTO;
	else {
		cli_error("--source is perf, msr or auto, not '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

/* One of stat's own options: 0, 1 for --help, -EINVAL (said). */
static int stat_option(struct stat_args *a, int c, const char *arg)
{
	switch (c) {
	case OPT_SOURCE:
		return parse_source(arg, &a->source);
	case OPT_PROGRAM:
		a->program = arg;
		return 0;
	case OPT_SIDEBAND_PCI:
		a->sideband_pci = true;
		return 0;
	case OPT_RECLAIM:
		a->reclaim = true;
		return 0;
	case 'a':
		a->all_cpus = true;
		return 0;
	case 'C':
		a->cpus = arg;
		return 0;
	case 'I':
		if (cli_parse_uint("-I", arg, 3600000, &a->interval_ms) < 0)
			return -EINVAL;
		if (a->interval_ms < 1) {
			cli_error("option -I wants at least 1 ms");
			return -EINVAL;
		}
		return 0;
	case OPT_INTERVAL_COUNT:
		return cli_parse_uint("--interval-count", arg, UINT32_MAX, &a->interval_count);
	case OPT_TIMEOUT:
		return cli_parse_uint("--timeout", arg, UINT32_MAX, &a->timeout_ms);
	case 'h':
		usage(stdout);
		return 1;
	default:
		fprintf(stderr, "(pmumon stat --help lists the options)\n");
		return -EINVAL;
	}
}

/* The command line, checked: 0, 1 for --help, -EINVAL (said). */
static int parse_args(int argc, char **argv, struct stat_args *a)
{
	static const struct option opts[] = {
		CLI_EVENT_OPTIONS,
		CLI_COUNT_OPTIONS,
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "program", required_argument, NULL, OPT_PROGRAM },
		{ "sideband-pci", no_argument, NULL, OPT_SIDEBAND_PCI },
		{ "reclaim", no_argument, NULL, OPT_RECLAIM },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, r;

	/* '+': options stop at the command, whose own options are its business */
	while ((c = getopt_long(argc, argv, "+" CLI_EVENT_SHORT CLI_COUNT_SHORT "aC:I:vh", opts,
				NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		r = cli_count__option(&a->count, c, optarg);
		if (r > 0)
			continue;
		if (r == 0)
			r = stat_option(a, c, optarg);
		if (r != 0)
			return r; /* -EINVAL (said), or 1: --help */
	}
	if (cli_count__check(&a->count) < 0)
		return -EINVAL;
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
	struct pm_evlist *l;
	struct pm_session_opts so;
	char *program; /* --program FILE's text */
	struct pm_session *s;
	struct cli_output out; /* out.err: a write failed (said, or a reader gone) */
	struct pm_proc *proc;
	bool proc_done;
	bool proc_ended; /* pmumon signalled the command to end it */
	int proc_status;
	/* pmumon itself failed (said already): its exit status wins over the command's */
	bool failed;
	size_t lost_said; /* lost devices a message named already */
};

static int report(struct run *run, const struct pm_report *rep)
{
	int r = cli_output__report(&run->out, rep);

	/* a reader that went away (| head) ends the output, and is no failure */
	if (r < 0 && r != -EPIPE)
		run->failed = true;
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

/* A source's turn: rotate its counters, keep them from wrapping. 0 or -errno (said). */
static int poll_counters(struct run *run)
{
	int r = pm_session__poll(run->s);

	if (r < 0) {
		const char *dev = pm_session__failed_device(run->s);

		cli_error("polling the counters%s%s failed: %s; stopping, with the totals up to the "
			  "last good read",
			  dev ? " on " : "", dev ? dev : "", strerror(-r));
		run->failed = true;
		run->lost_said = pm_session__lost_count(run->s);
	}
	return r;
}

/*
 * Counting stopped: the command's last moments count too. Stopped right
 * after an interval's read (fresh: --interval-count, or a --timeout on a
 * tick), the totals are that read, so the intervals add up to them.
 * Otherwise read once more and print the last, shorter interval: the time
 * since the last tick is not lost. Then the totals.
 */
static void finish_counting(struct run *run, bool intervals, bool fresh, int read_failed)
{
	const struct pm_report *rep;

	finish_child(run);
	pm_session__disable(run->s);
	if (!fresh && !read_failed && read_counters(run) == 0) {
		rep = pm_session__report(run->s, true);
		if (intervals && !run->out.err && rep->duration_ns > 0)
			report(run, rep);
	}
	if (!run->out.err)
		report(run, pm_session__report(run->s, false));
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
		if (now >= poll && now < next && (read_failed = poll_counters(run)) < 0)
			break;
		if (now >= next) {
			read_failed = read_counters(run);
			if (read_failed < 0)
				break;
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
	finish_counting(run, step != 0, fresh, read_failed);
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
	if (run->proc && !(run->out.err && run->proc_ended))
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

/* The events asked for, or the defaults: 0 or -errno (said). */
static int add_events(struct pm_evlist *l, const struct stat_args *a, bool system_wide)
{
	struct pm_diag d;
	char desc[1024];
	int r = cli_count__add(&a->count, l);

	if (r < 0 || a->count.n_events || a->count.n_metrics)
		return r;
	r = pm_evlist__add_defaults(l, system_wide, desc, sizeof(desc), &d);
	if (r < 0) {
		cli_report("the default events", r, &d);
		return r;
	}
	cli_info("counting %s", desc);
	return 0;
}

/* Where to count (-a, -C, the command) into run->so: 0, or the exit status (said). */
static int choose_target(struct run *run, struct stat_args *a)
{
	struct pm_session_opts *so = &run->so;

	if (a->cpus) {
		so->target = PM_TARGET_CPUS;
		so->cpus = a->cpus;
	} else if (a->all_cpus || !a->cmd) {
		so->target = PM_TARGET_SYSTEM;
	} else if (a->program) {
		/* the SoC counters count the whole machine, never one task */
		so->target = PM_TARGET_SYSTEM;
		a->all_cpus = true;
		cli_info("the SoC counters (--program) count the whole machine: counting "
			 "system-wide while '%s' runs",
			 a->cmd[0]);
	} else {
		so->target = PM_TARGET_TASK;
	}
	if (a->source == PM_SOURCE_MSR && so->target == PM_TARGET_TASK) {
		cli_error("--source msr counts whole dies, CCXs and CPUs, not one command: add -a "
			  "(or -C) to count the machine while the command runs");
		return EXIT_USAGE;
	}
	if (!a->cmd && !a->timeout_ms && !a->interval_count && arg_global.sim_virtual_clock) {
		/* virtual time never reaches a Ctrl-C: it would print intervals without end */
		cli_error("the simulated machine's clock is virtual, so counting needs an end: "
			  "add -- sleep N, --timeout MS or --interval-count N (or clock=real to "
			  "count until Ctrl-C)");
		return EXIT_USAGE;
	}
	return 0;
}

/* The command, forked but not started (so.pid): 0, or the exit status (said). */
static int prepare_command(struct run *run, char **cmd)
{
	int r = run->ops->proc_prepare(run->os, cmd, &run->proc);

	if (r == -EOPNOTSUPP && pm_ctx__simulated(run->ctx)) {
		cli_error("cannot run '%s' on the simulated machine's virtual clock: there only "
			  "'sleep N' runs, and sets how long the run lasts; add clock=real to --sim "
			  "to run '%s' for real",
			  cmd[0], cmd[0]);
		return EXIT_USAGE;
	}
	if (r < 0) {
		cli_error("cannot start '%s': %s", cmd[0], strerror(-r));
		return EXIT_FAIL;
	}
	run->so.pid = run->ops->proc_pid(run->os, run->proc);
	return 0;
}

/*
 * Every check, before anything is changed: the machine, where and how long
 * to count, the programming list, the events (resolved and scheduled), the
 * command (forked, waiting), the -o FILE. No counter is programmed and no
 * file created or truncated yet. 0, or the exit status (said).
 */
static int prepare(struct run *run, struct stat_args *a)
{
	struct pm_diag d;
	int r;

	if (cli_ctx_new(&run->ctx) < 0)
		return EXIT_FAIL;
	run->ops = pm_ctx__os_ops(run->ctx);
	run->os = pm_ctx__os(run->ctx);
	run->so = (struct pm_session_opts){ .size = sizeof(run->so),
					    .aggr = a->count.aggr,
					    .source = a->source,
					    .sideband_pci = a->sideband_pci,
					    .reclaim = a->reclaim };
	r = choose_target(run, a);
	if (r)
		return r;
	if (a->program) {
		run->program = read_program(a->program, &run->so.program_len);
		if (!run->program)
			return EXIT_FAIL;
		run->so.program = run->program;
		run->so.program_name = a->program;
	}
	if (pm_evlist__new(run->ctx, &run->l) < 0) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	if (add_events(run->l, a, run->so.target != PM_TARGET_TASK) < 0)
		return EXIT_USAGE;
	if (a->cmd && (r = prepare_command(run, a->cmd)))
		return r;
	r = pm_session__new(run->l, &run->so, &run->s, &d);
	if (r < 0) {
		cli_report("counting", r, &d);
		return r == -EINVAL && d.pos >= 0 ? EXIT_USAGE : EXIT_FAIL;
	}
	return cli_output__check(&a->count) < 0 ? EXIT_FAIL : 0;
}

/* Why the counters would not start, for the message. */
static const char *enable_refused(const struct stat_args *a)
{
	if (a->source == PM_SOURCE_MSR)
		return "a write to a counter control register was refused";
	if (a->program)
		return "a START to a SoC counter's control register was refused, or the kernel "
		       "refused PERF_EVENT_IOC_ENABLE";
	return "the kernel refused PERF_EVENT_IOC_ENABLE; see dmesg";
}

/*
 * After every check: program the counters, open the output, start the
 * counters and then the command. From the first register pmumon writes
 * (open programs the sideband's selects) every signal that ends the run is
 * caught: the way out puts everything back, whatever the signal. 0, or
 * the exit status (said).
 */
static int start(struct run *run, const struct stat_args *a)
{
	struct pm_out_opts oo = { .size = sizeof(oo) };
	char target[512], dropped[1024];
	struct pm_diag d;
	sigset_t ending;
	int r;

	cli_signals_ending(&ending);
	cli_signals_setup(&ending);
	r = pm_session__open(run->s, &d);
	if (r < 0) {
		cli_report("counting", r, &d);
		return r == -EINVAL && d.pos >= 0 ? EXIT_USAGE : EXIT_FAIL;
	}
	pm_session__dropped(run->s, dropped, sizeof(dropped));
	if (dropped[0])
		cli_info("left out, not supported here: %s", dropped);
	say_msr_events(run->s, run->l);
	describe_target(a, target, sizeof(target));
	oo.target = target;
	oo.simulated = pm_ctx__simulated(run->ctx);
	oo.sim_platform = arg_global.sim_platform;
	if (cli_output__open(&run->out, &a->count, &oo) < 0)
		return EXIT_FAIL;
	if (run->so.target == PM_TARGET_SYSTEM && !a->cmd && !a->timeout_ms && !a->interval_count)
		cli_info("counting system-wide until Ctrl-C");
	r = pm_session__enable(run->s);
	if (r < 0) {
		cli_error("cannot start the counters: %s (%s)", strerror(-r), enable_refused(a));
		return EXIT_FAIL;
	}
	if (!run->proc)
		return 0;
	r = run->ops->proc_start(run->os, run->proc);
	if (r == 0 && run->ops->proc_exec_errno(run->os, run->proc)) {
		int e = run->ops->proc_exec_errno(run->os, run->proc);

		cli_error("cannot run '%s': %s", a->cmd[0], strerror(e));
		return e == ENOENT ? 127 : 126;
	}
	if (r < 0) {
		cli_error("cannot start '%s': %s", a->cmd[0], strerror(-r));
		return EXIT_FAIL;
	}
	return 0;
}

/* Everything undone, in reverse; ret, or EXIT_FAIL if the output could not be closed. */
static int run_free(struct run *run, int ret)
{
	if (run->proc)
		run->ops->proc_free(run->os, run->proc);
	if (cli_output__close(&run->out) < 0)
		ret = EXIT_FAIL;
	pm_session__free(run->s);
	pm_evlist__free(run->l);
	pm_ctx__free(run->ctx);
	free(run->program);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_args a = { 0 };
	struct run run = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	/* an inherited "ignore SIGCHLD" would let the kernel reap our command */
	signal(SIGCHLD, SIG_DFL);
	ret = prepare(&run, &a);
	if (ret == 0)
		ret = start(&run, &a);
	if (ret == 0) {
		count_loop(&run, &a);
		finish_child(&run); /* when counting failed before the command ended */
		ret = exit_status(&run, a.cmd);
	}
	return run_free(&run, ret);
}
