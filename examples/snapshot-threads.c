// SPDX-License-Identifier: GPL-2.0-only
/*
 * The thread model of an embedder such as `pmumon serve` (docs/library.md):
 * a sampler thread owns the context, event list and session, reads them
 * every interval and publishes an immutable snapshot; reader threads (HTTP
 * handlers, say) take a reference to whatever snapshot is current, render
 * it, and drop the reference. The session is freed while readers still hold
 * the last snapshot. On a simulated Yitian 710 with a virtual clock, so it
 * runs in no time and the same way every time; ThreadSanitizer checks it
 * (tests/lib/tsan.sh).
 *
 *   snapshot-threads [READERS [INTERVALS [MS]]]    (defaults: 3 100 100)
 */
#include <math.h>
#include <pmumon/pmumon.h>
#include <pmumon/sim.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The current snapshot. A pointer alone would not do: between a reader
 * loading it and taking its reference, the sampler may replace it and drop
 * the last reference. The mutex covers only the swap and the ref, never the
 * rendering, so readers and the sampler never wait on each other's work.
 */
static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pm_snapshot *current;
static atomic_bool done;

static void publish(struct pm_snapshot *snap)
{
	struct pm_snapshot *old;

	pthread_mutex_lock(&current_lock);
	old = current;
	current = snap;
	pthread_mutex_unlock(&current_lock);
	pm_snapshot__unref(old); /* readers that hold it keep it alive */
}

static struct pm_snapshot *take(void)
{
	struct pm_snapshot *snap;

	pthread_mutex_lock(&current_lock);
	snap = pm_snapshot__ref(current);
	pthread_mutex_unlock(&current_lock);
	return snap;
}

struct sampler {
	unsigned intervals;
	uint64_t interval_ns;
	size_t rows; /* of every report */
	int err;
};

/* Count, and publish a snapshot of each interval; free everything at the end. */
static void *sample(void *arg)
{
	struct sampler *sm = arg;
	struct pm_ctx *ctx = NULL;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_sim *sim = NULL;
	struct pm_diag d;
	char err[256] = "";
	int r = pm_sim__new_platform("yitian710", &sim, err, sizeof(err));

	pm_diag__init(&d);
	if (r == 0) {
		struct pm_ctx_opts o = { .size = sizeof(o),
					 .os_ops = pm_sim__ops(),
					 .os = sim,
					 .simulated = true };
		if ((r = pm_ctx__new(&o, &ctx)) < 0)
			pm_sim__free(sim);
	}
	if (r == 0 && (r = pm_evlist__new(ctx, &l)) == 0 &&
	    (r = pm_evlist__add(l, "ali_drw/hif_rd/", &d)) == 0 &&
	    (r = pm_evlist__add_metrics(l, "ddr_read_bandwidth.all", &d)) == 0) {
		struct pm_session_opts o = { .size = sizeof(o),
					     .target = PM_TARGET_SYSTEM,
					     .aggr = PM_AGGR_DEVICE };
		r = pm_session__new(l, &o, &s, &d);
	}
	if (r == 0 && (r = pm_session__open(s, &d)) == 0)
		r = pm_session__enable(s);
	for (unsigned i = 0; r == 0 && i < sm->intervals; i++) {
		const struct pm_os_ops *os = pm_ctx__os_ops(ctx);
		struct timespec pause = { 0, 200000 }; /* let the readers run */
		struct pm_snapshot *snap = NULL;
		int status;

		r = os->wait(pm_ctx__os(ctx), os->mono_ns(pm_ctx__os(ctx)) + sm->interval_ns, NULL,
			     &status);
		if (r == 0)
			r = pm_session__read(s);
		if (r == 0)
			r = pm_session__snapshot(s, true, &snap);
		if (r == 0) {
			sm->rows = pm_snapshot__report(snap)->n_rows;
			publish(snap);
			nanosleep(&pause, NULL);
		}
	}
	if (r < 0)
		fprintf(stderr, "snapshot-threads: %s%s%s\n", strerror(-r),
			err[0] || d.msg[0] ? ": " : "", err[0] ? err : d.msg);
	/* the readers may still hold the last snapshot: it does not need these */
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	sm->err = r;
	atomic_store(&done, true);
	return NULL;
}

struct reader {
	pthread_t thread;
	unsigned renders, after_free;
	uint64_t last_t_ns;
	int err;
};

/* Render one snapshot to /dev/null and check what it says. */
static int render(struct reader *rd, struct pm_out *out, const struct pm_snapshot *snap)
{
	const struct pm_report *rep = pm_snapshot__report(snap);
	double bytes = 0;
	int r;

	for (size_t i = 0; i < rep->n_rows; i++)
		if (!(rep->rows[i].flags & PM_ROW_METRIC) && isfinite(rep->rows[i].value))
			bytes += rep->rows[i].value * 64; /* hif_rd counts 64-byte reads */
	if (!rep->interval || rep->n_rows == 0 || rep->t_ns < rd->last_t_ns || !(bytes > 0))
		return -1; /* not what the sampler published, or out of order */
	rd->last_t_ns = rep->t_ns;
	r = pm_out__report(out, rep);
	rd->renders++;
	return r;
}

static void *read_snapshots(void *arg)
{
	struct reader *rd = arg;
	struct pm_out_opts o = { .size = sizeof(o), .format = PM_OUT_JSON, .simulated = true };
	struct pm_out *out = NULL;
	FILE *f = fopen("/dev/null", "w");
	bool last = false;

	rd->err = f ? pm_out__new(f, &o, &out) : -1;
	while (rd->err == 0 && !last) {
		struct pm_snapshot *snap;

		last = atomic_load(&done); /* after the sampler freed its session */
		snap = take();
		if (snap && (last || pm_snapshot__report(snap)->t_ns != rd->last_t_ns)) {
			rd->err = render(rd, out, snap);
			rd->after_free += last;
		} else if (!last) {
			nanosleep(&(struct timespec){ 0, 100000 }, NULL); /* nothing new yet */
		}
		pm_snapshot__unref(snap);
	}
	pm_out__free(out);
	if (f)
		fclose(f);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	struct sampler sm = { .intervals = argc > 2 ? (unsigned)atoi(argv[2]) : 100,
			      .interval_ns = (argc > 3 ? (uint64_t)atoi(argv[3]) : 100) * 1000000 };
	struct reader *rd = calloc(n ? n : 1, sizeof(*rd));
	pthread_t sampler;
	unsigned renders = 0;
	int bad = !rd || n == 0 || sm.intervals == 0;

	for (unsigned i = 0; !bad && i < n; i++) {
		bad = pthread_create(&rd[i].thread, NULL, read_snapshots, &rd[i]) != 0;
	}
	if (!bad && pthread_create(&sampler, NULL, sample, &sm) == 0)
		pthread_join(sampler, NULL);
	else
		bad = 1, atomic_store(&done, true);
	for (unsigned i = 0; i < n && rd; i++) {
		pthread_join(rd[i].thread, NULL);
		renders += rd[i].renders;
		/* each reader rendered, and once more after the session was gone */
		if (rd[i].err || rd[i].renders == 0 || rd[i].after_free != 1) {
			fprintf(stderr,
				"snapshot-threads: reader %u: error %d, %u renders, %u after "
				"the session was freed\n",
				i, rd[i].err, rd[i].renders, rd[i].after_free);
			bad = 1;
		}
	}
	publish(NULL); /* drop the last snapshot */
	printf("%u intervals of %zu rows published, %u renders by %u readers\n", sm.intervals,
	       sm.rows, renders, n);
	free(rd);
	return bad || sm.err;
}
