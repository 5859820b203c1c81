// SPDX-License-Identifier: GPL-2.0-only
/*
 * The signals that end a run, for every command that programs counters
 * (stat; record, top and serve to come). A run that dies of a signal leaves
 * every BlueField slot, DF/L3 MSR and SoC counter it programmed counting:
 * so each terminating signal a process can catch and carry on after is
 * caught, and only notes which one came. The signals are blocked but while
 * pmumon waits (pm_os_ops.wait lets in what the caller blocks and catches),
 * so none interrupts a read or a write half-way; the command's loop sees
 * the note, stops, and puts everything back on its normal way out.
 *
 * Not caught: SIGKILL and SIGSTOP (nothing can), and the faults a process
 * cannot go on after (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
 * SIGSYS). What SIGKILL leaves behind, the next run names (stat --reclaim).
 */
#include <signal.h>
#include <stddef.h>

#include "cli-signals.h"
#include "util.h"

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

void cli_signals_ending(sigset_t *ret)
{
	static const int ending[] = {
		SIGHUP,	   SIGINT,    SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
		SIGALRM,   SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
#ifdef SIGPWR
		SIGPWR,
#endif
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
	};

	sigemptyset(ret);
	for (size_t i = 0; i < PM_ARRAY_SIZE(ending); i++)
		sigaddset(ret, ending[i]);
	/* real-time signals end a process too; glibc keeps the first few below SIGRTMIN */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(ret, sig);
}

int cli_signals_setup(const sigset_t *end)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int r = 0;

	/* a reader that went away (| head) is EPIPE on the next write: the end of the run */
	signal(SIGPIPE, SIG_IGN);
	sa.sa_mask = *end; /* one note at a time */
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(end, sig) == 1 && sigaction(sig, &sa, NULL) < 0)
			r = -1;
	sigprocmask(SIG_BLOCK, end, NULL);
	return r;
}

int cli_signals_caught(void)
{
	return caught;
}
