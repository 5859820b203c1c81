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
#include <sys/resource.h>
#include <sys/wait.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-output.h"
#include "cli-commands.h"
#include "cli-perfmode.h"
#include "cli-live.h"
#include "cli-values.h"
#include "cli-repeat.h"
#include "cli-signals.h"
#include "util.h"

#define NS_PER_MS 1000000ull
#define STAT_MAX_TASKS 4096 /* -p, -t: at most this many each */

struct stat_args {
	struct cli_count count;	   /* -e, -M, --define, how to show it */
	struct cli_live_args live; /* -a, -C, --source, --program, -I */
	unsigned long interval_count;
	unsigned long timeout_ms;
	unsigned long delay_ms; /* -D: counting starts this long after the command */
	unsigned long repeat;	/* -r N: the command run N times (1: once; 0: until Ctrl-C) */
	pid_t pids[STAT_MAX_TASKS], tids[STAT_MAX_TASKS]; /* -p, -t */
	size_t n_pids, n_tids;
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
	cli_live__usage_source(f);
	fputs("Where:\n", f);
	cli_live__usage_where(f);
	fputs("  -p, --pid PID[,PID]   processes already running, all their threads (and\n"
	      "                        the children they make), on any CPU, as perf; until\n"
	      "                        they exit, the COMMAND ends (it is not counted: it\n"
	      "                        says how long, -- sleep 5), --timeout, or Ctrl-C\n"
	      "  -t, --tid TID[,TID]   these threads only, the same way\n",
	      f);
	fputs("When:\n"
	      "  -I, --interval-print MS    print every MS milliseconds\n"
	      "      --interval-count N     stop after N intervals\n"
	      "      --timeout MS           stop after MS milliseconds\n"
	      "  -D, --delay MS             start counting MS milliseconds after the command\n"
	      "                             starts (it runs from the start, as in perf);\n"
	      "                             without a command, MS after pmumon starts\n"
	      "  -r, --repeat N             run the COMMAND N times and print the means,\n"
	      "                             each with its spread as perf: ( +- 1.23% ) is the\n"
	      "                             standard deviation of the mean in percent (CSV\n"
	      "                             column spread_pct, JSON key spread_pct); -r 0\n"
	      "                             runs it until Ctrl-C, printing each run\n",
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
};

/* -D MS; perf's -1 (start disabled, enabled later through --control) is refused. */
static int parse_delay(const char *arg, unsigned long *ret)
{
	if (!strcmp(arg, "-1")) {
		cli_error(
			"-D -1 starts perf's counters disabled, to be enabled through its "
			"--control file descriptor, which pmumon does not have: give the delay in "
			"milliseconds");
		return -EINVAL;
	}
	return cli_parse_uint("-D", arg, UINT32_MAX, ret);
}

/* -p PID[,PID...], -t TID[,TID...] as perf takes them (cli_parse_pid_list); repeatable. */
static int parse_tasks(int c, const char *arg, pid_t *list, size_t *n)
{
	size_t got = 0;
	int r = cli_parse_pid_list(arg, list + *n, STAT_MAX_TASKS - *n, &got);

	if (r == -E2BIG)
		cli_error("-%c: at most %d %s", c, STAT_MAX_TASKS, c == 'p' ? "PIDs" : "TIDs");
	else if (r < 0)
		cli_error("-%c wants %s separated by commas, as perf: -%c 1234,5678 (each a whole "
			  "number from 1), not '%s'",
			  c, c == 'p' ? "process IDs" : "thread IDs", c, arg);
	if (r < 0)
		return -EINVAL;
	*n += got;
	return 0;
}

/* One of stat's own options: 0, 1 for --help, -EINVAL (said). */
static int stat_option(void *arg_, int c, const char *arg)
{
	struct stat_args *a = arg_;

	switch (c) {
	case OPT_INTERVAL_COUNT:
		return cli_parse_uint("--interval-count", arg, UINT32_MAX, &a->interval_count);
	case OPT_TIMEOUT:
		return cli_parse_uint("--timeout", arg, UINT32_MAX, &a->timeout_ms);
	case 'D':
		return parse_delay(arg, &a->delay_ms);
	case 'r':
		return cli_parse_uint("-r", arg, INT32_MAX, &a->repeat);
	case 'p':
	case 't':
		return parse_tasks(c, arg, c == 'p' ? a->pids : a->tids,
				   c == 'p' ? &a->n_pids : &a->n_tids);
	default:
		return -EINVAL; /* cli_getopt handles -h and the unknown */
	}
}

/*
 * -r: perf repeats the command; without one each run would count until
 * Ctrl-C. perf 6.1 takes -r with -I but prints every run's intervals into
 * one stream whose later rows carry a meaningless spread and no averages:
 * pmumon refuses the pair (docs/output.md).
 */
static int check_repeat(const struct stat_args *a)
{
	if (a->repeat == 1)
		return 0;
	if (!a->cmd) {
		cli_error("-r repeats a command: give it after -- (pmumon stat -r 5 -- CMD)");
		return -EINVAL;
	}
	if (a->live.interval_ms) {
		cli_error("-r averages whole runs and -I prints intervals: give one of them (perf "
			  "6.1 mixes every run's intervals into one stream)");
		return -EINVAL;
	}
	return 0;
}

/* The command line, checked: 0, 1 for --help, -EINVAL (said). */
static int parse_args(int argc, char **argv, struct stat_args *a)
{
	static const struct option opts[] = {
		CLI_EVENT_OPTIONS,
		CLI_COUNT_OPTIONS,
		CLI_LIVE_OPTIONS,
		{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "delay", required_argument, NULL, 'D' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct cli_command_options co = {
		"stat", "+" CLI_EVENT_SHORT CLI_COUNT_SHORT CLI_LIVE_SHORT "D:r:p:t:vh", opts,
		usage, stat_option
	};
	/* perf mode: perf's -g is --group, without an argument */
	static const struct cli_command_options co_perf = {
		"stat", "+" CLI_EVENT_SHORT "M:gAx:jo:B" CLI_LIVE_SHORT "D:r:p:t:vh", opts, usage,
		stat_option
	};
	int r;

	a->repeat = 1;
	if (cli_perf_flag(argc, argv))
		arg_global.perf_mode = true;
	/* '+': options stop at the command, whose own options are its business */
	r = cli_getopt(argc, argv, arg_global.perf_mode ? &co_perf : &co, &a->count, &a->live, a);
	if (r != 0)
		return r; /* -EINVAL (said), or 1: --help */
	/* perf's subcommands: after the options, not after "--" (a program named so) */
	if (optind < argc && strcmp(argv[optind - 1], "--") && cli_stat_subcommand(argv[optind]))
		return -EINVAL;
	if (cli_count__check(&a->count) < 0)
		return -EINVAL;
	if (a->interval_count && !a->live.interval_ms) {
		cli_error("--interval-count needs -I");
		return -EINVAL;
	}
	if (cli_live__check(&a->live) < 0)
		return -EINVAL;
	if (optind < argc)
		a->cmd = argv + optind;
	if ((a->n_pids || a->n_tids) && (a->live.all_cpus || a->live.cpus)) {
		/* perf lets -p override -a with a warning; one target is plainer */
		cli_error(
			"-p/-t count those tasks wherever they run: give them or -a/-C, not both");
		return -EINVAL;
	}
	if ((a->count.attribute_cgroups || a->count.attribute_pods) && (a->n_pids || a->n_tids)) {
		cli_error("memory traffic is apportioned on every CPU, not to the tasks -p/-t "
			  "name: drop -p/-t and add -a");
		return -EINVAL;
	}
	if (a->count.cgroups && !a->live.all_cpus && !a->live.cpus &&
	    (a->cmd || a->n_pids || a->n_tids)) {
		/* perf 6.1 refuses it before it looks at the events too (builtin-stat.c,
		 * cmd_stat: "both cgroup and no-aggregation modes only available in
		 * system-wide mode") */
		cli_error("%s counts a cgroup's tasks on every CPU, not %s: %s",
			  a->count.for_each_cgroup ? "--for-each-cgroup" : "-G",
			  a->n_pids || a->n_tids ? "the tasks -p/-t name" : "one command",
			  a->n_pids || a->n_tids ?
				  "drop -p/-t and add -a (or -C)" :
				  "add -a (or -C) to count the cgroup while the command runs");
		return -EINVAL;
	}
	if (a->count.aggr == PM_AGGR_THREAD && !a->n_pids && !a->n_tids &&
	    (!a->live.all_cpus || a->live.cpus)) {
		/* perf 6.1's words (builtin-stat.c cmd_stat) */
		cli_error("the --per-thread option is only available when monitoring via -p -t -a "
			  "options or only --per-thread");
		return -EINVAL;
	}
	if (arg_global.perf_mode && a->count.n_aggr && a->count.aggr != PM_AGGR_THREAD &&
	    !a->live.all_cpus && !a->live.cpus) {
		/* perf refuses rows per CPU, core, ... for a command or tasks (its counters
		 * follow them); pmumon's own mode counts them in one row "task" */
		cli_error("both cgroup and no-aggregation modes only available in system-wide mode "
			  "(add -a or -C)");
		return -EINVAL;
	}
	if ((a->n_pids || a->n_tids) && a->repeat != 1) {
		cli_error("-r repeats a command it counts; with -p/-t the command only says how "
			  "long to count");
		return -EINVAL;
	}
	return check_repeat(a);
}

/* perf's header for -p/-t: "process id '1234,5678'" (the PIDs if both), else "thread id". */
static void describe_tasks(const struct stat_args *a, char *buf, size_t size)
{
	const pid_t *list = a->n_pids ? a->pids : a->tids;
	size_t n = a->n_pids ? a->n_pids : a->n_tids;
	size_t off = (size_t)snprintf(buf, size, "%s id '", a->n_pids ? "process" : "thread");

	for (size_t i = 0; i < n && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%d", i ? "," : "", (int)list[i]);
	if (off < size)
		snprintf(buf + off, size - off, "'");
}

static void describe_target(const struct stat_args *a, char *buf, size_t size)
{
	if (a->n_pids || a->n_tids) {
		describe_tasks(a, buf, size);
	} else if (a->live.cpus) {
		/* perf quotes the list too: 'CPU(s) 0-3' */
		snprintf(buf, size, arg_global.perf_mode ? "'CPU(s) %s'" : "CPU(s) %s",
			 a->live.cpus);
	} else if (a->cmd && !a->live.all_cpus) {
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
	/* perf returns WEXITSTATUS(status) whatever ended the command: 0 for a signal,
	 * which its psignal names (builtin-stat.c __run_perf_stat) */
	if (WIFSIGNALED(status) && arg_global.perf_mode)
		return 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAIL;
}

struct run {
	/* the machine, events and session; lv.failed: pmumon itself failed (said
	 * already), its exit status wins over the command's */
	struct cli_live lv;
	struct cli_output out; /* out.err: a write failed (said, or a reader gone) */
	struct pm_proc *proc;
	bool proc_done;
	bool proc_ended; /* pmumon signalled the command to end it */
	int proc_status;
	struct cli_repeat rp; /* -r N > 1: the runs' totals, printed as their means */
	bool averaging;
	bool summary; /* --summary: perf mode prints -I's totals only then */
	/* the CPU time of the commands waited for before this run (ns): getrusage's
	 * RUSAGE_CHILDREN adds up every child, and -r starts one per run */
	uint64_t user_before_ns, system_before_ns;
};

static int report(struct run *run, const struct pm_report *rep)
{
	int r = cli_output__report(&run->out, rep);

	/* a reader that went away (| head) ends the output, and is no failure */
	if (r < 0 && r != -EPIPE)
		run->lv.failed = true;
	return r;
}

/* Wait for the command to exit until `until`; true when it did. */
static bool wait_child(struct run *run, uint64_t until)
{
	const struct pm_os_ops *ops = run->lv.ops;

	while (!run->proc_done) {
		int w = ops->wait(run->lv.os, until, run->proc, &run->proc_status);

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
	const struct pm_os_ops *ops = run->lv.ops;
	int sig = cli_signals_caught();
	uint64_t now;

	if (!run->proc || run->proc_done)
		return;
	now = ops->mono_ns(run->lv.os);
	if (sig == SIGINT && wait_child(run, now + 2000 * NS_PER_MS))
		return;
	run->proc_ended = true;
	ops->proc_kill(run->lv.os, run->proc, sig ? sig : SIGTERM);
	if (wait_child(run, ops->mono_ns(run->lv.os) + 2000 * NS_PER_MS))
		return;
	ops->proc_kill(run->lv.os, run->proc, SIGKILL);
	wait_child(run, UINT64_MAX);
}

/*
 * The command's CPU times for user_time and system_time, once it was waited
 * for: what getrusage(RUSAGE_CHILDREN) grew by since the run began (stat's
 * children are its commands, one per -r run; perf takes wait4's). A
 * simulated `sleep N` is no process: it used no CPU.
 */
static void give_task_times(struct run *run)
{
	struct rusage ru = { 0 };
	uint64_t user, sys;

	if (!run->proc || !run->proc_done || getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return;
	user = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull;
	sys = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
	pm_session__task_times(run->lv.s, user - PM_MIN(user, run->user_before_ns),
			       sys - PM_MIN(sys, run->system_before_ns));
	run->user_before_ns = user;
	run->system_before_ns = sys;
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
	pm_session__disable(run->lv.s);
	if (!fresh && !read_failed && cli_live__read(&run->lv) == 0) {
		rep = pm_session__report(run->lv.s, true);
		if (intervals && !run->out.err && rep->duration_ns > 0)
			report(run, rep);
	}
	give_task_times(run);
	if (run->out.err)
		return;
	/* perf prints -I's totals only with --summary */
	if (arg_global.perf_mode && intervals && !run->summary)
		return;
	rep = pm_session__report(run->lv.s, false);
	if (!run->averaging) {
		report(run, rep);
	} else if (cli_repeat__add(&run->rp, rep) < 0) {
		cli_error("-r: the run's rows differ from the first run's, or out of memory");
		run->lv.failed = true;
	}
}

/* -p/-t: every task counted has exited (said), as perf's is_target_alive ends its run. */
static bool tasks_gone(struct run *run, uint64_t *next, uint64_t step)
{
	if (pm_session__threads_alive(run->lv.s) > 0) {
		*next += step;
		return false;
	}
	cli_info("the tasks counted have exited");
	return true;
}

/* Count until the command ends, the timeout passes, enough intervals, a signal, or a
 * failure (run->lv.failed says which). */
static void count_loop(struct run *run, const struct stat_args *a)
{
	const struct pm_os_ops *ops = run->lv.ops;
	struct pm_session *s = run->lv.s;
	uint64_t t0 = ops->mono_ns(run->lv.os);
	uint64_t step = a->live.interval_ms * NS_PER_MS, next = step ? t0 + step : UINT64_MAX;
	uint64_t end = a->timeout_ms ? t0 + a->timeout_ms * NS_PER_MS : UINT64_MAX;
	unsigned long intervals = 0;
	bool fresh = false; /* the last thing done was a read: nothing to add */
	int read_failed = 0;
	/* -p/-t: whether the tasks are still there, looked at this often (perf: every second) */
	uint64_t alive_step = run->lv.so.target == PM_TARGET_THREADS ? 100 * NS_PER_MS : 0;
	uint64_t alive_next = alive_step ? t0 + alive_step : UINT64_MAX;

	/* the command ended, or a signal came, during -D's delay */
	for (bool over = (run->proc && run->proc_done) || cli_signals_caught(); !over;) {
		uint64_t now, poll = pm_session__next_poll(s);
		uint64_t deadline = PM_MIN(PM_MIN(PM_MIN(next, end), poll), alive_next);
		int w;

		fresh = false;
		w = ops->wait(run->lv.os, deadline, run->proc_done ? NULL : run->proc,
			      &run->proc_status);
		if (w < 0) {
			cli_error("waiting for the next interval failed: %s", strerror(-w));
			run->lv.failed = true;
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
		now = ops->mono_ns(run->lv.os);
		if (now >= poll && now < next && (read_failed = cli_live__poll(&run->lv)) < 0)
			break;
		if (now >= next) {
			read_failed = cli_live__read(&run->lv);
			if (read_failed < 0)
				break;
			fresh = true;
			if (report(run, pm_session__report(s, true)) < 0)
				break;
			while (next <= now)
				next += step;
			if (a->interval_count && ++intervals >= a->interval_count)
				break;
		}
		if (now >= end || (now >= alive_next && tasks_gone(run, &alive_next, alive_step)))
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
	bool lost = cli_live__say_lost(&run->lv);

	if (run->lv.failed || lost) {
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

/* Where to count (-a, -C, the command) into run->lv.so: 0, or the exit status (said). */
static int choose_target(struct run *run, struct stat_args *a)
{
	struct pm_session_opts *so = &run->lv.so;

	if (a->count.aggr == PM_AGGR_THREAD && !a->n_pids && !a->n_tids) {
		/* -a --per-thread: every thread of the machine, as perf's */
		so->target = PM_TARGET_THREADS;
		so->all_threads = true;
	} else if (a->n_pids || a->n_tids) {
		so->target = PM_TARGET_THREADS;
		so->pids = a->pids;
		so->n_pids = a->n_pids;
		so->tids = a->tids;
		so->n_tids = a->n_tids;
	} else if (a->live.cpus) {
		so->target = PM_TARGET_CPUS;
		so->cpus = a->live.cpus;
	} else if (a->live.all_cpus || !a->cmd) {
		so->target = PM_TARGET_SYSTEM;
	} else if (a->live.program || a->count.attribute_cgroups || a->count.attribute_pods) {
		/* the SoC counters count the whole machine, never one task; so does the
		 * memory traffic apportioned to cgroups */
		so->target = PM_TARGET_SYSTEM;
		a->live.all_cpus = true;
		cli_info("%s counts the whole machine: counting system-wide while '%s' runs",
			 a->live.program ? "the SoC counters (--program)" : "attribution",
			 a->cmd[0]);
	} else {
		so->target = PM_TARGET_TASK;
	}
	if (a->live.source == PM_SOURCE_MSR &&
	    (so->target == PM_TARGET_TASK || so->target == PM_TARGET_THREADS)) {
		cli_error("--source msr counts whole dies, CCXs and CPUs, not one command: add -a "
			  "(or -C) to count the machine while the command runs");
		return EXIT_USAGE;
	}
	if (!a->repeat && arg_global.sim_virtual_clock) {
		cli_error("-r 0 repeats until Ctrl-C, which the simulated machine's virtual clock "
			  "never reaches: give a number of runs (or clock=real)");
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
static int prepare_command(struct run *run, char **cmd, unsigned long delay_ms)
{
	const struct pm_os_ops *ops = run->lv.ops;
	int r = ops->proc_prepare(run->lv.os, cmd, &run->proc);

	if (r == -EOPNOTSUPP && pm_ctx__simulated(run->lv.ctx)) {
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
	if (run->lv.so.target != PM_TARGET_TASK)
		return 0; /* -p/-t (or -a, -C): the command only says how long */
	run->lv.so.pid = ops->proc_pid(run->lv.os, run->proc);
	run->lv.so.task_enable_late = delay_ms != 0; /* -D: counting starts after the exec */
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
	int r = cli_live__machine(&run->lv, &a->live, &a->count);

	if (r == 0)
		r = choose_target(run, a);
	if (r == 0 && !run->lv.l) /* -r: the next run counts the same list */
		r = cli_live__events(&run->lv, &a->count);
	if (r == 0 && a->cmd)
		r = prepare_command(run, a->cmd, a->delay_ms);
	if (r == 0)
		r = cli_live__session(&run->lv);
	if (r)
		return r;
	return cli_output__check(&a->count) < 0 ? EXIT_FAIL : 0;
}

/* The command, forked and waiting, starts: 0, or the exit status (said). */
static int start_command(struct run *run, char **cmd)
{
	const struct pm_os_ops *ops = run->lv.ops;
	int r = ops->proc_start(run->lv.os, run->proc);

	if (r == 0 && ops->proc_exec_errno(run->lv.os, run->proc)) {
		int e = ops->proc_exec_errno(run->lv.os, run->proc);

		cli_error("cannot run '%s': %s", cmd[0], strerror(e));
		return e == ENOENT ? 127 : 126;
	}
	if (r < 0) {
		cli_error("cannot start '%s': %s", cmd[0], strerror(-r));
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * -D: the delay before counting, the command (if any) running meanwhile,
 * as perf. It ends early when the command exits or a signal ends the run;
 * count_loop then finds that and only reads the (empty) totals.
 */
static void wait_delay(struct run *run, unsigned long ms)
{
	const struct pm_os_ops *ops = run->lv.ops;
	uint64_t until = ops->mono_ns(run->lv.os) + ms * NS_PER_MS;

	for (;;) {
		int w = ops->wait(run->lv.os, until, run->proc_done ? NULL : run->proc,
				  &run->proc_status);

		if (w == PM_OS_WAKE_EXIT)
			run->proc_done = true;
		if (w != PM_OS_WAKE_SIGNAL || cli_signals_caught())
			return;
	}
}

/*
 * After every check: program the counters, open the output, start the
 * counters and then the command (with -D: the command, the delay, the
 * counters). 0, or the exit status (said).
 */
static int start(struct run *run, const struct stat_args *a)
{
	struct pm_out_opts oo = { .size = sizeof(oo) };
	char target[512];
	sigset_t ending;
	int r;

	cli_signals_ending(&ending);
	r = cli_live__open(&run->lv, &ending);
	if (r)
		return r;
	describe_target(a, target, sizeof(target));
	oo.target = target;
	oo.simulated = pm_ctx__simulated(run->lv.ctx);
	oo.sim_platform = arg_global.sim_platform;
	oo.cpuid = pm_ctx__cpuid(run->lv.ctx);
	oo.perf_all_threads = run->lv.so.all_threads;
	if (!run->out.out && cli_output__open(&run->out, &a->count, &oo) < 0)
		return EXIT_FAIL;
	if (run->lv.so.target == PM_TARGET_SYSTEM && !a->cmd && !a->timeout_ms &&
	    !a->interval_count)
		cli_info("counting system-wide until Ctrl-C");
	if (a->delay_ms) {
		r = run->proc ? start_command(run, a->cmd) : 0;
		if (r)
			return r;
		wait_delay(run, a->delay_ms);
	}
	r = cli_live__enable(&run->lv);
	if (r || !run->proc || a->delay_ms)
		return r;
	return start_command(run, a->cmd);
}

/* Everything undone, in reverse; ret, or EXIT_FAIL if the output could not be closed. */
static int run_free(struct run *run, int ret)
{
	if (run->proc)
		run->lv.ops->proc_free(run->lv.os, run->proc);
	if (cli_output__close(&run->out) < 0)
		ret = EXIT_FAIL;
	cli_live__free(&run->lv);
	return ret;
}

/* -r: the run done, the next one starts afresh on the same machine with the same events. */
static void next_run(struct run *run)
{
	if (run->proc)
		run->lv.ops->proc_free(run->lv.os, run->proc);
	run->proc = NULL;
	run->proc_done = run->proc_ended = false;
	run->proc_status = 0;
	cli_live__close(&run->lv, false);
}

/* One run after another (-r), until the last, a failure, or a signal: the exit status. */
static int run_all(struct run *run, struct stat_args *a)
{
	int ret;

	run->averaging = a->repeat > 1;
	run->summary = a->count.summary;
	for (unsigned long i = 0;; i++) {
		ret = prepare(run, a);
		if (ret == 0)
			ret = start(run, a);
		if (ret == EXIT_USAGE)
			return cli_exit_usage(); /* perf's 129 in perf mode */
		if (ret)
			return ret;
		count_loop(run, a);
		finish_child(run); /* when counting failed before the command ended */
		ret = exit_status(run, a->cmd);
		if (run->lv.failed || run->out.err || cli_signals_caught() ||
		    (a->repeat && i + 1 >= a->repeat))
			break;
		next_run(run);
	}
	if (run->averaging && run->rp.runs && !run->out.err && !run->lv.failed)
		report(run, cli_repeat__report(&run->rp, pm_session__report(run->lv.s, false)));
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_args a = { 0 };
	struct run run = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret > 0 ? EXIT_OK : cli_exit_usage();
	/* an inherited "ignore SIGCHLD" would let the kernel reap our command */
	signal(SIGCHLD, SIG_DFL);
	ret = run_all(&run, &a);
	cli_repeat__free(&run.rp);
	return run_free(&run, ret);
}
