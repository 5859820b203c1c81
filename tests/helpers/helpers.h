/* SPDX-License-Identifier: GPL-2.0-only */
/* Test helpers: contexts over fixture trees or the simulator, and captured logs. */
#ifndef PM_TEST_HELPERS_H
#define PM_TEST_HELPERS_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmumon/pmumon.h"
#include "sim.h"

/* Everything the library logged, one message per line. */
extern char th_log[16384];

/* The directory of the generated fixture trees (PMUMON_TEST_SYSFS). */
const char *th_fixtures(void);
/* A context over a fixture tree read through the real os (root = the tree). */
struct pm_ctx *th_ctx_fixture(const char *machine);
/* A simulator loaded with a fixture tree; the caller adds PMU models. */
struct pm_sim *th_sim_fixture(const char *machine);
/* A simulated platform from a --sim spec ("amdzen2:sockets=2"); fails the test on error. */
struct pm_sim *th_sim_platform(const char *spec);
/* A simulated platform running the given scenario text (written to a temp file). */
struct pm_sim *th_sim_platform_with(const char *spec, const char *scenario);
/* Read a simulated file whole with read() in small chunks, as pmumon does, into
 * buf (NUL-terminated): its length, or the open's or read's error. */
ssize_t th_sim_read(struct pm_sim *sim, const char *path, char *buf, size_t size);
/* The same into a static buffer; a failed read fails the test. */
const char *th_sim_text(struct pm_sim *sim, const char *path);
/* Write text to a fresh temporary file; returns its path (static, one per call site use). */
const char *th_temp_file(const char *text);
/*
 * A context on a simulated machine whose PMUs include amd_l3 (amdzen2), with one
 * more pack, "lab", whose metrics are the JSON given, and an empty event list:
 * r->ctx (which owns sim) and r->l; th_stop ends them.
 */
struct th_run;
void th_lab(struct th_run *r, struct pm_sim *sim, const char *metrics_json);
/* A context on a simulator (the context owns it). */
struct pm_ctx *th_ctx_sim(struct pm_sim *sim);
/* A session on a simulator, opened and enabled: the context owns the sim. */
struct th_run {
	struct pm_sim *sim;
	struct pm_ctx *ctx;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;
};

/*
 * Count specs (NULL-terminated; a bad one fails the test) and metrics
 * (names or groups, may be NULL) system-wide in aggregation aggr, after
 * --define name=value when name is not NULL. Returns the first error of
 * adding metrics, opening or enabling, with r->d saying why.
 */
int th_start(struct th_run *r, struct pm_sim *sim, const char *const *specs, const char *metrics,
	     enum pm_aggr aggr, const char *define, double value);
/* The same with any session options (a source, a CPU list). */
int th_start_opts(struct th_run *r, struct pm_sim *sim, const char *const *specs,
		  const char *metrics, const struct pm_session_opts *o);

/* AMD's 8 DRAM-channel DF events (kernel-facts §3.5), NULL-terminated. */
extern const char *const th_df8[];
void th_stop(struct th_run *r);
/* Advance the virtual clock to t, polling the session when it asks, as stat does. */
void th_run_until(struct th_run *r, uint64_t t);

/*
 * got within tol of want: the one float comparison of the tests. It fails on
 * NaN on either side (fabs(NaN) > tol is false: a test written that way
 * passes on NaN). th_assert_rel takes a tolerance relative to want.
 */
#define th_assert_near(got, want, tol) th_assert_near_((got), (want), (tol), __FILE__, __LINE__)
#define th_assert_rel(got, want, rel) \
	th_assert_near_((got), (want), (rel)*fabs((double)(want)), __FILE__, __LINE__)
void th_assert_near_(double got, double want, double tol, const char *file, int line);

/* The log so far contains s? */
int th_logged(const char *s);
/* A message with that reason about that device was logged (contexts from th_ctx_sim)? */
int th_logged_reason(enum pm_reason reason, const char *device);
void th_log_clear(void);

/* A PMU model with a constant rate per (config, cpu), for known truth:
 * count(t) = floor(rate * (t - start) / 1e9). */
struct th_rate_model {
	uint64_t start_ns;
	double (*rate)(const struct perf_event_attr *attr,
		       int cpu); /* events/s; <0: no such event */
};
int th_rate_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t_ns,
		  uint64_t *ret);

#endif
