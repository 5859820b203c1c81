// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a scrape of pmumon serve costs to render: a simulated Yitian 710
 * counting every ali_drw event the kernel names on all 16 PMUs, one row
 * per device, with the pack's metrics; one interval read, added to the
 * counters again and again (cli/serve/acc.c: what the sampler does for
 * every sample), then its exposition rendered again and again
 * (cli/serve/expo.c, both formats). Prints the series, bytes and the
 * median times. Run by bench/run.py
 * --serve, or by hand: build/bench/expo-render [RENDERS]
 */
#include <pmumon/pmumon.h>
#include <pmumon/sim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every event the first ali_drw PMU names, for the whole family. */
static int add_family_events(struct pm_ctx *ctx, struct pm_evlist *l, struct pm_diag *d)
{
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++) {
		const struct pm_pmu *p = pm_ctx__pmu(ctx, i);
		char spec[256];

		if (strcmp(pm_pmu__family(p), "ali_drw") != 0)
			continue;
		for (size_t a = 0; a < pm_pmu__alias_count(p); a++) {
			snprintf(spec, sizeof(spec), "ali_drw/%s/",
				 pm_alias__name(pm_pmu__alias(p, a)));
			if (pm_evlist__add(l, spec, d) < 0)
				return -1;
		}
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int renders = argc > 1 ? atoi(argv[1]) : 200;
	struct pm_ctx *ctx = NULL;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_snapshot *iv = NULL, *tot = NULL;
	struct pm_sim *sim = NULL;
	struct pm_diag d;
	char err[256] = "";
	struct pm_ctx_opts co = { .size = sizeof(co), .simulated = true };
	struct pm_session_opts so = { .size = sizeof(so),
				      .target = PM_TARGET_SYSTEM,
				      .aggr = PM_AGGR_DEVICE };
	struct expo_meta m = { .version = "bench",
			       .platform = "yitian710",
			       .simulated = true,
			       .interval_s = 1 };
	struct expo_health h = { .samples = 1 };
	struct expo_acc *acc = NULL;
	struct expo_counts *counts = NULL;
	struct expo_sample es = { .meta = &m, .health = &h };
	uint64_t *t = calloc((size_t)renders, sizeof(*t));

	pm_diag__init(&d);
	if (!t || renders < 1 || pm_sim__new_platform("yitian710", &sim, err, sizeof(err)) < 0)
		return 1;
	co.os_ops = pm_sim__ops();
	co.os = sim;
	if (pm_ctx__new(&co, &ctx) < 0 || pm_ctx__discover(ctx) < 0 ||
	    pm_evlist__new(ctx, &l) < 0 || add_family_events(ctx, l, &d) < 0 ||
	    pm_evlist__add_metrics(l, "ddr_read_bandwidth.all,ddr_write_bandwidth.all", &d) < 0 ||
	    pm_session__new(l, &so, &s, &d) < 0 || pm_session__open(s, &d) < 0 ||
	    pm_session__enable(s) < 0) {
		fprintf(stderr, "expo-render: %s\n", d.msg);
		return 1;
	}
	pm_ctx__os_ops(ctx)->wait(pm_ctx__os(ctx),
				  pm_ctx__os_ops(ctx)->mono_ns(pm_ctx__os(ctx)) + 1000000000ull,
				  NULL, NULL);
	if (pm_session__read(s) < 0 || pm_session__snapshot(s, true, &iv) < 0 ||
	    pm_session__snapshot(s, false, &tot) < 0)
		return 1;
	es.interval = pm_snapshot__report(iv);
	if (expo_acc_new(&acc) < 0)
		return 1;
	for (int i = 0; i < renders; i++) {
		uint64_t t0 = now_ns();

		expo_counts_unref(counts);
		counts = NULL;
		if (expo_acc_add(acc, pm_snapshot__report(iv), pm_snapshot__report(tot), &m,
				 &counts) < 0)
			return 1;
		t[i] = now_ns() - t0;
	}
	qsort(t, (size_t)renders, sizeof(*t), cmp_u64);
	printf("counters: %zu rows added per sample, median %.3f ms (min %.3f, max %.3f)\n",
	       counts->n, (double)t[renders / 2] / 1e6, (double)t[0] / 1e6,
	       (double)t[renders - 1] / 1e6);
	es.counts = counts;
	for (int f = EXPO_TEXT; f <= EXPO_OPENMETRICS; f++) {
		struct sbuf b = { 0 };
		long series = 0;

		for (int i = 0; i < renders; i++) {
			uint64_t t0 = now_ns();

			b.len = 0;
			series = expo_render(&b, f, &es);
			t[i] = now_ns() - t0;
		}
		qsort(t, (size_t)renders, sizeof(*t), cmp_u64);
		printf("%s: %ld series, %zu bytes, render median %.3f ms (min %.3f, max %.3f)\n",
		       f == EXPO_TEXT ? "text 0.0.4" : "openmetrics", series, b.len,
		       (double)t[renders / 2] / 1e6, (double)t[0] / 1e6,
		       (double)t[renders - 1] / 1e6);
		sbuf_free(&b);
	}
	expo_counts_unref(counts);
	expo_acc_free(acc);
	pm_snapshot__unref(iv);
	pm_snapshot__unref(tot);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	free(t);
	return 0;
}
