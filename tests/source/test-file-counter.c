// SPDX-License-Identifier: GPL-2.0-only
/*
 * A source defined outside lib/ (file-counter.c), added to the context
 * the way the registry's are made (pm_ctx__add_source): stat counts its
 * events exactly, through the library's API, and pmumon doctor shows its
 * lock, its survey and its own findings, without a line of lib/ knowing it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "file-counter.h"
#include "helpers.h"
#include "pmu.h"
#include "pmumon/pmumon.h"
#include "pmumon/sim.h"

#define SEC 1000000000ull

/* A simulated Yitian 710 with two counts in the file counter's directory. */
static struct pm_sim *machine(uint64_t reads, uint64_t writes)
{
	struct pm_sim *sim = th_sim_platform("yitian710");
	char text[32];

	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)reads);
	assert_int_equal(pm_sim__write_file(sim, PM_FILECOUNT_DIR "/reads", text), 0);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)writes);
	assert_int_equal(pm_sim__write_file(sim, PM_FILECOUNT_DIR "/writes", text), 0);
	return sim;
}

static void set(struct pm_sim *sim, const char *name, uint64_t v)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), "%s/%s", PM_FILECOUNT_DIR, name);
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	assert_int_equal(pm_sim__write_file(sim, path, text), 0);
}

static const struct pm_pmu *find_pmu(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < pm_ctx__pmu_count(ctx); i++)
		if (!strcmp(pm_pmu__name(pm_ctx__pmu(ctx, i)), name))
			return pm_ctx__pmu(ctx, i);
	return NULL;
}

static const struct pm_row *row(const struct pm_report *rep, const char *event)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, event))
			return &rep->rows[i];
	fail_msg("no row '%s'", event);
	return NULL;
}

static void assert_row(const struct pm_report *rep, const char *event, uint64_t want)
{
	const struct pm_row *r = row(rep, event);

	assert_string_equal(r->source, "filecount");
	assert_int_equal(r->raw, want);
	th_assert_near(r->value, (double)want, 0);
	th_assert_near(r->running, 1.0, 0); /* counted all the time: nothing scaled */
}

/* Counted by stat: what each file's count grew by, per interval and in total, exactly. */
static void test_counted(void **state)
{
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .aggr = PM_AGGR_FAMILY };
	struct pm_sim *sim = machine(100, 7);
	struct pm_ctx *ctx = th_ctx_sim(sim);
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	const struct pm_pmu *p;
	struct pm_diag d;
	size_t id = 0;

	(void)state;
	assert_int_equal(pm_test_filecount__add(ctx, &id), 0);
	p = find_pmu(ctx, "filecount");
	assert_non_null(p);
	assert_string_equal(pm_pmu__source(p), "filecount");
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "filecount/reads/", &d), 0);
	assert_int_equal(pm_evlist__add(l, "filecount/writes/", &d), 0);
	assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	assert_string_equal(pm_session__event_source(s, 0), "filecount");

	set(sim, "reads", 250);
	set(sim, "writes", 12);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	assert_row(pm_session__report(s, true), "filecount/reads/", 150);
	assert_row(pm_session__report(s, true), "filecount/writes/", 5);

	set(sim, "reads", 1000);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	assert_row(pm_session__report(s, true), "filecount/reads/", 750);
	assert_row(pm_session__report(s, true), "filecount/writes/", 0);
	assert_row(pm_session__report(s, false), "filecount/reads/", 900);
	assert_row(pm_session__report(s, false), "filecount/writes/", 5);

	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

/* Its own option, through the session (pm_session_opts.source_opts): the counts themselves. */
static void test_option(void **state)
{
	const struct pm_source_opt since = { "filecount", "since", "zero", 0 },
				   bad = { "filecount", "since", "yesterday", 0 };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .aggr = PM_AGGR_FAMILY,
				     .source_opts = &bad,
				     .n_source_opts = 1 };
	struct pm_sim *sim = machine(100, 7);
	struct pm_ctx *ctx = th_ctx_sim(sim);
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_diag d;
	size_t id = 0;

	(void)state;
	assert_int_equal(pm_test_filecount__add(ctx, &id), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "filecount/reads/", &d), 0);
	assert_int_equal(pm_session__new(l, &o, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "filecount does not take since"));
	o.source_opts = &since;
	assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	set(sim, "reads", 250);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	assert_row(pm_session__report(s, false), "filecount/reads/", 250);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

/* Its lock held by another pmumon: the session does not open, and says who holds it. */
static void test_lock_refused(void **state)
{
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	struct pm_sim *sim = machine(1, 2);
	struct pm_ctx *ctx;
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_diag d;
	size_t id = 0;

	(void)state;
	assert_int_equal(pm_sim__lock_file(sim, PM_FILECOUNT_LOCK, 0, S_IFREG | 0644, 4242), 0);
	ctx = th_ctx_sim(sim);
	assert_int_equal(pm_test_filecount__add(ctx, &id), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "filecount/reads/", &d), 0);
	assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), -EBUSY);
	assert_non_null(strstr(d.msg, "4242"));
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

static const struct pm_finding *find(const struct pm_finding *f, size_t n, enum pm_verdict v,
				     const char *topic, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].verdict == v && !strcmp(f[i].topic, topic) && strstr(f[i].what, what))
			return &f[i];
	for (size_t i = 0; i < n; i++)
		print_message("  %s: %s\n", f[i].topic, f[i].what);
	fail_msg("no %s finding with '%s'", topic, what);
	return NULL;
}

/* Shown by doctor: its lock held, its counters in use, its own finding. */
static void test_doctor(void **state)
{
	struct pm_sim *sim = machine(1, 2);
	struct pm_finding *f = NULL;
	struct pm_ctx *ctx;
	size_t id = 0, n = 0;

	(void)state;
	assert_int_equal(pm_sim__lock_file(sim, PM_FILECOUNT_LOCK, 0, S_IFREG | 0644, 4242), 0);
	assert_int_equal(pm_sim__write_file(sim, PM_FILECOUNT_DIR "/.owner", "a daemon\n"), 0);
	ctx = th_ctx_sim(sim);
	assert_int_equal(pm_test_filecount__add(ctx, &id), 0);
	assert_int_equal(pm_ctx__doctor(ctx, &f, &n), 0);
	find(f, n, PM_VERDICT_PROBLEM, "counters",
	     "another pmumon (pid 4242) holds /run/pmumon/filecount.lock");
	find(f, n, PM_VERDICT_WARNING, "counters", "the file counters are counting for a daemon");
	find(f, n, PM_VERDICT_OK, "filecount", "filecount counts 2 files of /var/lib/filecount");
	free(f);
	pm_ctx__free(ctx);

	/* without it, the same machine's doctor knows nothing of it */
	sim = machine(1, 2);
	assert_int_equal(pm_sim__lock_file(sim, PM_FILECOUNT_LOCK, 0, S_IFREG | 0644, 4242), 0);
	ctx = th_ctx_sim(sim);
	assert_int_equal(pm_ctx__doctor(ctx, &f, &n), 0);
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(f[i].what, "filecount"));
	free(f);
	pm_ctx__free(ctx);
}

/* Added before discovery, once a name, and a few at most; its id follows the registry's. */
static void test_add(void **state)
{
	struct pm_ctx *ctx = th_ctx_sim(machine(1, 2));
	static const char *const names[] = { "a", "b", "c" };
	size_t id = 0, id2 = 0;

	(void)state;
	assert_int_equal(pm_test_filecount__add(ctx, &id), 0);
	assert_int_equal(id, PM_SRC__N);
	assert_int_equal(pm_test_filecount__add(ctx, &id2), -EEXIST);
	assert_int_equal(pm_ctx__add_source(ctx, "perf", &pm_test_source_filecount, &id2), -EEXIST);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(pm_ctx__add_source(ctx, names[i], &pm_test_source_filecount, &id2),
				 0);
	assert_int_equal(pm_ctx__add_source(ctx, "d", &pm_test_source_filecount, &id2), -ENOSPC);
	{
		struct pm_source_ops half = pm_test_source_filecount;

		half.close = NULL; /* the session would call it */
		assert_int_equal(pm_ctx__add_source(ctx, "e", &half, &id2), -EINVAL);
	}
	assert_int_equal(id2, PM_SRC__N + 3);
	pm_ctx__free(ctx);

	ctx = th_ctx_sim(machine(1, 2));
	assert_non_null(find_pmu(ctx, "ali_drw_21000")); /* discovered */
	assert_int_equal(pm_test_filecount__add(ctx, &id), -EBUSY);
	assert_null(find_pmu(ctx, "filecount"));
	pm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counted),	     cmocka_unit_test(test_option),
		cmocka_unit_test(test_lock_refused), cmocka_unit_test(test_doctor),
		cmocka_unit_test(test_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
