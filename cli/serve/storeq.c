// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve --store: a writer thread keeps every sample's interval in a
 * recording (cli/store). The sampler hands each sample over through a
 * bounded queue and never waits: when the disk is slower than the samples
 * come and the queue is full, the interval is dropped and counted
 * (pmumon_store_dropped_total), never the sample delayed. With
 * --store.max-age or --store.max-size the writer trims the oldest intervals
 * after each one, as pmumon record does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cli-global.h"
#include "cli-sampler.h"
#include "serve.h"
#include "store/store.h"

#define QUEUE_CAP 64

struct storeq {
	struct store *st;
	const char *path;
	double max_age_s;
	uint64_t max_bytes;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct pm_snapshot *q[QUEUE_CAP];
	size_t head, n;
	bool stop;
	atomic_ullong written, dropped;
	atomic_bool failed;
};

static void *writer(void *arg)
{
	struct storeq *sq = arg;

	for (;;) {
		struct pm_snapshot *snap;
		const char *why = "";

		pthread_mutex_lock(&sq->lock);
		while (!sq->n && !sq->stop)
			pthread_cond_wait(&sq->more, &sq->lock);
		if (!sq->n) {
			pthread_mutex_unlock(&sq->lock);
			return NULL;
		}
		snap = sq->q[sq->head];
		sq->head = (sq->head + 1) % QUEUE_CAP;
		sq->n--;
		pthread_mutex_unlock(&sq->lock);
		if (!atomic_load(&sq->failed) &&
		    (store_append(sq->st, pm_snapshot__report(snap), &why) < 0 ||
		     ((sq->max_age_s > 0 || sq->max_bytes) &&
		      store_trim(sq->st, sq->max_age_s, sq->max_bytes, &why) < 0))) {
			/* said once; serve goes on serving, the failure shows in a series */
			cli_error("writing '%s' failed: %s; serve goes on without recording",
				  sq->path, why);
			atomic_store(&sq->failed, true);
		} else if (!atomic_load(&sq->failed)) {
			atomic_fetch_add(&sq->written, 1);
		}
		pm_snapshot__unref(snap);
	}
}

int storeq_start(const char *path, const struct store_run *run, double max_age_s,
		 uint64_t max_bytes, struct storeq **ret, const char **ret_err)
{
	struct storeq *sq = calloc(1, sizeof(*sq));
	int r;

	if (!sq) {
		*ret_err = "out of memory";
		return -ENOMEM;
	}
	r = store_open_write(path, false, run, &sq->st, ret_err);
	if (r < 0) {
		free(sq);
		return r;
	}
	sq->path = path;
	sq->max_age_s = max_age_s;
	sq->max_bytes = max_bytes;
	pthread_mutex_init(&sq->lock, NULL);
	pthread_cond_init(&sq->more, NULL);
	r = -pthread_create(&sq->thread, NULL, writer, sq);
	if (r < 0) {
		store_close(sq->st);
		free(sq);
		*ret_err = "cannot start the writer thread";
		return r;
	}
	*ret = sq;
	return 0;
}

void storeq_hook(void *arg, const struct cli_sample *smp)
{
	struct storeq *sq = arg;

	pthread_mutex_lock(&sq->lock);
	if (sq->n == QUEUE_CAP) {
		atomic_fetch_add(&sq->dropped, 1);
	} else {
		sq->q[(sq->head + sq->n) % QUEUE_CAP] = pm_snapshot__ref(smp->interval);
		sq->n++;
		pthread_cond_signal(&sq->more);
	}
	pthread_mutex_unlock(&sq->lock);
}

void storeq_counts(struct storeq *sq, struct storeq_counts *ret)
{
	ret->written = atomic_load(&sq->written);
	ret->dropped = atomic_load(&sq->dropped);
	ret->failed = atomic_load(&sq->failed);
}

void storeq_stop(struct storeq *sq, struct storeq_counts *ret)
{
	if (!sq)
		return;
	pthread_mutex_lock(&sq->lock);
	sq->stop = true; /* what is queued is written first */
	pthread_cond_signal(&sq->more);
	pthread_mutex_unlock(&sq->lock);
	pthread_join(sq->thread, NULL);
	if (ret)
		storeq_counts(sq, ret);
	store_close(sq->st);
	pthread_cond_destroy(&sq->more);
	pthread_mutex_destroy(&sq->lock);
	free(sq);
}
