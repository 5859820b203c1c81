/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * serve --remote-write (rw.c): the feeder and sender threads, and the
 * remote_write families of the exposition. serve.h has the targets'
 * settings (struct rwcfg) and the walk (rw_walk).
 */
#ifndef PMUMON_CLI_SERVE_RW_H
#define PMUMON_CLI_SERVE_RW_H

#include <stdatomic.h>

#include "server.h"

/* One target's counts, by its url (credentials left out): kept for serve's life. */
struct rw_counts {
	char url[512];
	atomic_ullong sent, failed, retried, dropped;
};

/*
 * rw_new: the feeder thread, with no target yet; instance is the
 * `instance` label every pushed series gets unless its target's
 * external_labels name one (0, -errno). rw_configure: the targets of cfg
 * from now on (a target whose settings did not change keeps its queue; a
 * removed one stops, its queue dropped): 0, or -errno (said) with the
 * targets as they were. rw_hook: the sampler's, with the sample's counters
 * (a reference kept until it is queued; NULL: the sample is lost, counted);
 * never blocks. rw_counting: before a counting is built again (the sampler
 * stopped): waits until the samples handed over are queued, so that they
 * are walked with their own counting's description. rw_free: stale markers
 * for every series, up to 5 s to send what is queued, the threads ended.
 */
struct rw;
int rw_new(struct server *sv, const char *instance, struct rw **ret);
int rw_configure(struct rw *rw, const struct rwcfg *cfg, unsigned long queue);
void rw_hook(struct rw *rw, const struct cli_sample *smp, struct expo_counts *counts);
void rw_counting(struct rw *rw);
void rw_free(struct rw *rw);
/* The pmumon_remote_write_* families to k, by url (nothing without a target ever): an
 * expo_sample's `more` (arg: the struct rw), for /metrics and what is pushed alike. The
 * number of series. */
long rw_families(void *arg, const struct expo_sink *k);

#endif
