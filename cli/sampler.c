// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler thread of the commands that show counts while they go on
 * (serve, top, record): the thread model of docs/library.md. It alone
 * touches the session once started; every interval it reads, takes the
 * interval's and the totals' snapshots and swaps them in as the latest.
 * Other threads take references to the latest and never wait on a read;
 * a read never waits on them (the lock covers only the swap and the refs).
 *
 * Waking it: the thread waits in pm_os_ops.wait, which lets the caught
 * signals in. cli_sampler__stop sends it SIGURG, caught by a handler that
 * does nothing (so it ends no run) and blocked everywhere but in that wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-live.h"
#include "cli-sampler.h"
#include "cli-signals.h"

#define WAKE_SIGNAL SIGURG
#define BACK_CHECK_NS 1000000000ull /* how often to look for a lost device's return */

struct cli_sampler {
	struct cli_live *lv;
	uint64_t step_ns, intervals;
	pthread_t thread;
	pthread_mutex_t lock; /* latest, only the swap and the refs */
	struct cli_sample latest;
	atomic_bool stop, done;
	atomic_bool back;	  /* a lost device is there again */
	atomic_bool pods;	  /* --attribute-pods: the kubelet's pods changed */
	atomic_bool quiet;	  /* no byte per publication: only news (back, done) */
	uint64_t back_checked_ns; /* when the sampler last looked */
	int pipe[2];		  /* a byte per publication (unless quiet), per news, at the end */
	cli_sample_hook hook;
	void *hook_arg;
};

static void on_wake(int sig)
{
	(void)sig;
}

static void notify(struct cli_sampler *sp)
{
	char c = 1;

	/* full (nobody drained it): the reader will see the latest anyway */
	if (write(sp->pipe[1], &c, 1) < 0 && errno != EAGAIN)
		return;
}

/* Snapshots of this interval's read, swapped in as the latest: 0 or -errno (said). */
static int publish(struct cli_sampler *sp, uint64_t seq, uint64_t late_ns, uint64_t t0)
{
	struct cli_sample smp = { .seq = seq, .late_ns = late_ns };
	struct cli_sample old;
	struct timespec now;
	int r;

	r = pm_session__snapshot(sp->lv->s, true, &smp.interval);
	if (r == 0)
		r = pm_session__snapshot(sp->lv->s, false, &smp.total);
	if (r < 0) {
		cli_error("keeping the interval's counts failed: %s", strerror(-r));
		cli_sample__release(&smp);
		return r;
	}
	smp.read_ns = sp->lv->ops->mono_ns(sp->lv->os) - t0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	smp.published_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	pthread_mutex_lock(&sp->lock);
	old = sp->latest;
	sp->latest = smp;
	pthread_mutex_unlock(&sp->lock);
	cli_sample__release(&old); /* readers that hold it keep it alive */
	if (sp->hook)
		sp->hook(sp->hook_arg, &smp); /* smp stays valid: this thread's reference */
	if (!atomic_load(&sp->quiet))
		notify(sp);
	return 0;
}

static void *run(void *arg)
{
	struct cli_sampler *sp = arg;
	struct cli_live *lv = sp->lv;
	uint64_t seq = 0;

	while (!atomic_load(&sp->stop) && !cli_signals_caught()) {
		uint64_t deadline = lv->next_ns, t0;
		int r = cli_live__tick(lv, sp->step_ns);

		if (r < 0)
			break;
		if (r == 0)
			continue; /* a signal: the loop's condition says whether it ends the run */
		t0 = lv->ops->mono_ns(lv->os);
		if (publish(sp, ++seq, deadline && t0 > deadline ? t0 - deadline : 0, t0) < 0) {
			lv->failed = true;
			break;
		}
		if (sp->intervals && seq >= sp->intervals)
			break;
		if (lv->pods_key && !atomic_load(&sp->pods)) { /* a pod came or went */
			char *key = NULL;

			if (cli_pods_key(lv->attribute_pods, lv->ctx, &key) == 0 &&
			    strcmp(key, lv->pods_key)) {
				atomic_store(&sp->pods, true);
				notify(sp);
			}
			free(key);
		}
		if (!atomic_load(&sp->back) && t0 - sp->back_checked_ns >= BACK_CHECK_NS &&
		    pm_session__lost_count(lv->s)) {
			sp->back_checked_ns = t0;
			if (pm_session__lost_back(lv->s)) {
				atomic_store(&sp->back, true);
				notify(sp);
			}
		}
	}
	atomic_store(&sp->done, true);
	notify(sp);
	return NULL;
}

int cli_sampler__start(struct cli_live *lv, uint64_t step_ns, uint64_t intervals,
		       struct cli_sampler **ret_sampler)
{
	return cli_sampler__start_hooked(lv, step_ns, intervals, NULL, NULL, ret_sampler);
}

int cli_sampler__start_hooked(struct cli_live *lv, uint64_t step_ns, uint64_t intervals,
			      cli_sample_hook hook, void *arg, struct cli_sampler **ret_sampler)
{
	struct sigaction sa = { .sa_handler = on_wake };
	struct cli_sampler *sp = calloc(1, sizeof(*sp));
	sigset_t wake;
	int r;

	if (!sp)
		return -ENOMEM;
	sp->lv = lv;
	sp->hook = hook;
	sp->hook_arg = arg;
	sp->step_ns = step_ns;
	sp->intervals = intervals;
	if (pipe2(sp->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		free(sp);
		return r;
	}
	pthread_mutex_init(&sp->lock, NULL);
	/* before the thread's first wait: it takes the mask it lets in then */
	sigemptyset(&wake);
	sigaddset(&wake, WAKE_SIGNAL);
	sigaction(WAKE_SIGNAL, &sa, NULL);
	pthread_sigmask(SIG_BLOCK, &wake, NULL);
	r = -pthread_create(&sp->thread, NULL, run, sp);
	if (r < 0) {
		close(sp->pipe[0]);
		close(sp->pipe[1]);
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return r;
	}
	*ret_sampler = sp;
	return 0;
}

bool cli_sampler__latest(struct cli_sampler *sp, struct cli_sample *ret)
{
	pthread_mutex_lock(&sp->lock);
	*ret = sp->latest;
	pm_snapshot__ref(ret->interval);
	pm_snapshot__ref(ret->total);
	pthread_mutex_unlock(&sp->lock);
	return ret->seq != 0;
}

void cli_sample__release(struct cli_sample *smp)
{
	pm_snapshot__unref(smp->interval);
	pm_snapshot__unref(smp->total);
	*smp = (struct cli_sample){ 0 };
}

int cli_sampler__fd(const struct cli_sampler *sp)
{
	return sp->pipe[0];
}

void cli_sampler__ack(struct cli_sampler *sp)
{
	char buf[64];

	while (read(sp->pipe[0], buf, sizeof(buf)) > 0)
		;
}

void cli_sampler__quiet(struct cli_sampler *sp)
{
	atomic_store(&sp->quiet, true);
}

bool cli_sampler__device_back(const struct cli_sampler *sp)
{
	return atomic_load(&sp->back);
}

bool cli_sampler__pods_changed(const struct cli_sampler *sp)
{
	return atomic_load(&sp->pods);
}

bool cli_sampler__done(const struct cli_sampler *sp)
{
	return atomic_load(&sp->done);
}

void cli_sampler__stop(struct cli_sampler *sp)
{
	if (!sp)
		return;
	atomic_store(&sp->stop, true);
	/* a wake while it is not waiting stays pending until its next wait lets it in */
	if (!atomic_load(&sp->done))
		pthread_kill(sp->thread, WAKE_SIGNAL);
	pthread_join(sp->thread, NULL);
	cli_sample__release(&sp->latest);
	close(sp->pipe[0]);
	close(sp->pipe[1]);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}
