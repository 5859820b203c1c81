/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * a sampler thread (cli/sampler.c). */
#ifndef PMUMON_CLI_SAMPLER_H
#define PMUMON_CLI_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "pmumon/pmumon.h"
#include "cli-live.h"

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

#endif
