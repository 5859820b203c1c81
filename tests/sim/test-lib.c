// SPDX-License-Identifier: GPL-2.0-only
/*
 * libpmumon as an embedder sees it (issue 13, part 4; docs/library.md):
 * options structs that carry their size, and snapshots of a report that
 * outlive the session and may cross threads.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000ull

/* ---- options: the size field --------------------------------------------- */

static char *render_with(const struct pm_out_opts *o, const struct pm_report *rep, int *ret_err)
{
	struct pm_out *out = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret_err = pm_out__new(f, o, &out);
	if (*ret_err == 0) {
		assert_int_equal(pm_out__report(out, rep), 0);
		pm_out__free(out);
	}
	fclose(f);
	return buf;
}

static const struct pm_row one_row = { .event = "msr/tsc/",
				       .unit = "",
				       .channel = -1,
				       .subchannel = -1,
				       .source = "perf",
				       .cpu = -1,
				       .die = -1,
				       .socket = -1,
				       .value = 42,
				       .raw = 42,
				       .enabled_ns = 1000,
				       .running_ns = 1000,
				       .running = 1,
				       .covered = 1,
				       .instances = 1 };
static const struct pm_report one_report = { .t_ns = SEC,
					     .duration_ns = SEC,
					     .n_rows = 1,
					     .rows = &one_row };

/* Size 0 (a caller that did not set it) is refused by every constructor. */
static void test_size_unset(void **state)
{
	struct pm_ctx_opts co = { .simulated = true };
	struct pm_out_opts oo = { .format = PM_OUT_CSV };
	struct pm_replay_opts ro = { .name = "t.csv" };
	struct pm_session_opts so = { .target = PM_TARGET_SYSTEM };
	struct pm_ctx *ctx = NULL;
	struct pm_replay *rp = NULL;
	struct pm_session *s = NULL;
	struct th_run r;
	char *text;
	int err;

	(void)state;
	assert_int_equal(pm_ctx__new(&co, &ctx), -EINVAL);
	assert_null(ctx);
	text = render_with(&oo, &one_report, &err);
	assert_int_equal(err, -EINVAL);
	free(text);
	assert_int_equal(pm_replay__parse("", 0, &ro, &rp, &r.d), -EINVAL);
	assert_null(rp);

	assert_int_equal(th_start(&r, th_sim_platform("yitian710"),
				  (const char *const[]){ "ali_drw/hif_rd/", NULL }, NULL,
				  PM_AGGR_FAMILY, NULL, 0),
			 0);
	assert_int_equal(pm_session__new(r.l, &so, &s, &r.d), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(r.d.msg, "pm_session_opts"));
	assert_non_null(strstr(r.d.hint, "sizeof(struct pm_session_opts)"));
	th_stop(&r);
}

/* An older caller's shorter struct: the fields past its size take their defaults. */
static void test_size_older_caller(void **state)
{
	struct pm_out_opts o = { .size = offsetof(struct pm_out_opts, target),
				 .format = PM_OUT_TABLE,
				 .target = "'not read'" };
	char *text;
	int err;

	(void)state;
	text = render_with(&o, &one_report, &err);
	assert_int_equal(err, 0);
	/* target lies beyond size: the default, not the bytes that happen to be there */
	assert_non_null(strstr(text, "Performance counter stats for system wide"));
	assert_null(strstr(text, "not read"));
	free(text);

	o.size = sizeof(o);
	text = render_with(&o, &one_report, &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(text, "Performance counter stats for 'not read'"));
	free(text);
}

/* A newer caller's longer struct: zeros past the library's fields are fine, an
 * option the library does not know is refused, not ignored. */
static void test_size_newer_caller(void **state)
{
	struct {
		struct pm_out_opts o;
		uint64_t newer;
	} big = { .o = { .size = sizeof(big), .format = PM_OUT_CSV } };
	char *text;
	int err;

	(void)state;
	text = render_with(&big.o, &one_report, &err);
	assert_int_equal(err, 0);
	free(text);
	big.newer = 1;
	text = render_with(&big.o, &one_report, &err);
	assert_int_equal(err, -E2BIG);
	free(text);
}

/* ---- snapshots -------------------------------------------------------------- */

static void assert_same_string(const char *got, const char *want)
{
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_ptr_not_equal(got, want); /* a copy, not the session's string */
}

/* Values compare bit for bit: a NaN in the report is a NaN in the snapshot. */
static void assert_same_double(double got, double want)
{
	assert_memory_equal(&got, &want, sizeof(double));
}

static void assert_same_report(const struct pm_report *got, const struct pm_report *want)
{
	assert_int_equal(got->interval, want->interval);
	assert_int_equal(got->t_ns, want->t_ns);
	assert_int_equal(got->duration_ns, want->duration_ns);
	assert_int_equal(got->wall_ns, want->wall_ns);
	assert_int_equal(got->aggr, want->aggr);
	assert_int_equal(got->n_rows, want->n_rows);
	assert_ptr_not_equal(got->rows, want->rows);
	for (size_t i = 0; i < want->n_rows; i++) {
		const struct pm_row *g = &got->rows[i], *w = &want->rows[i];

		assert_same_string(g->event, w->event);
		assert_same_string(g->unit, w->unit);
		assert_same_string(g->device, w->device);
		assert_same_string(g->place, w->place);
		assert_same_string(g->domain, w->domain);
		assert_int_equal(g->channel, w->channel);
		assert_int_equal(g->subchannel, w->subchannel);
		assert_same_string(g->source, w->source);
		assert_int_equal(g->cpu, w->cpu);
		assert_int_equal(g->die, w->die);
		assert_int_equal(g->socket, w->socket);
		assert_same_double(g->value, w->value);
		assert_int_equal(g->raw, w->raw);
		assert_int_equal(g->enabled_ns, w->enabled_ns);
		assert_int_equal(g->running_ns, w->running_ns);
		assert_same_double(g->running, w->running);
		assert_int_equal(g->covered, w->covered);
		assert_int_equal(g->instances, w->instances);
		assert_int_equal(g->flags, w->flags);
	}
}

static char *render(const struct pm_report *rep)
{
	struct pm_out_opts o = { .size = sizeof(o), .format = PM_OUT_JSON };
	char *text;
	int err;

	text = render_with(&o, rep, &err);
	assert_int_equal(err, 0);
	return text;
}

/*
 * Yitian 710 per device with a metric: rows with a device, a place
 * ("die0/ch2/sub1"), a source, a unit (MB/s), and a metric with no source.
 */
static void start_yitian(struct th_run *r)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", "ali_drw/hif_wr/", NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_CPUS,
				     .cpus = "0",
				     .aggr = PM_AGGR_DEVICE };

	assert_int_equal(th_start_opts(r,
				       th_sim_platform_with("yitian710", "phase a 1s\n"
									 "  ddr.read 6.4G\n"
									 "phase b 1s\n"
									 "  ddr.read 1.6G\n"
									 "repeat\n"),
				       specs, "ddr_read_bandwidth.all", &o),
			 0);
}

static void test_snapshot_equals_report(void **state)
{
	struct pm_snapshot *iv = NULL, *tot = NULL;
	bool device = false, place = false, source = false, metric = false;
	struct th_run r;

	(void)state;
	start_yitian(&r);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__snapshot(r.s, true, &iv), 0);
	assert_int_equal(pm_session__snapshot(r.s, false, &tot), 0);
	assert_same_report(pm_snapshot__report(iv), pm_session__report(r.s, true));
	assert_same_report(pm_snapshot__report(tot), pm_session__report(r.s, false));

	/* the rows exercise every string field */
	for (size_t i = 0; i < pm_snapshot__report(iv)->n_rows; i++) {
		const struct pm_row *row = &pm_snapshot__report(iv)->rows[i];

		device |= row->device != NULL;
		place |= row->place != NULL;
		source |= row->source != NULL;
		metric |= (row->flags & PM_ROW_METRIC) && row->unit[0];
	}
	assert_true(device && place && source && metric);
	pm_snapshot__unref(iv);
	pm_snapshot__unref(tot);
	th_stop(&r);
}

/* Free the session, its event list and its context (and the simulator): the
 * snapshot still reads the same (ASan and valgrind watch the reads). */
static void test_snapshot_outlives_session(void **state)
{
	struct pm_snapshot *snap = NULL, *held;
	char *before, *after;
	struct th_run r;

	(void)state;
	start_yitian(&r);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__snapshot(r.s, true, &snap), 0);
	before = render(pm_session__report(r.s, true));
	held = pm_snapshot__ref(snap);
	assert_ptr_equal(held, snap);
	th_stop(&r);

	after = render(pm_snapshot__report(snap));
	assert_string_equal(after, before);
	free(after);
	pm_snapshot__unref(snap);
	/* one reference left: still there */
	after = render(pm_snapshot__report(held));
	assert_string_equal(after, before);
	free(after);
	pm_snapshot__unref(held); /* the last: valgrind sees it freed, not leaked */
	free(before);
	pm_snapshot__unref(NULL);
	assert_null(pm_snapshot__report(NULL));
	assert_null(pm_snapshot__ref(NULL));
}

/* Two snapshots of one session are independent: later reads change neither,
 * and dropping one leaves the other. */
static void test_snapshots_independent(void **state)
{
	struct pm_snapshot *first = NULL, *second = NULL;
	char *first_text, *second_text, *text;
	struct th_run r;

	(void)state;
	start_yitian(&r);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__snapshot(r.s, true, &first), 0);
	first_text = render(pm_session__report(r.s, true));

	pm_sim__advance(r.sim, SEC); /* phase b: a quarter of the traffic */
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__snapshot(r.s, true, &second), 0);
	second_text = render(pm_session__report(r.s, true));
	assert_string_not_equal(first_text, second_text);
	assert_true(pm_snapshot__report(second)->t_ns > pm_snapshot__report(first)->t_ns);

	text = render(pm_snapshot__report(first));
	assert_string_equal(text, first_text);
	free(text);
	pm_snapshot__unref(first);

	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	th_stop(&r);
	text = render(pm_snapshot__report(second));
	assert_string_equal(text, second_text);
	free(text);
	pm_snapshot__unref(second);
	free(first_text);
	free(second_text);
}

/* Before the first read: a snapshot of what the report says then. */
static void test_snapshot_empty(void **state)
{
	struct pm_snapshot *snap = NULL;
	struct th_run r;

	(void)state;
	start_yitian(&r);
	assert_int_equal(pm_session__snapshot(r.s, false, &snap), 0);
	assert_same_report(pm_snapshot__report(snap), pm_session__report(r.s, false));
	assert_int_equal(pm_session__snapshot(NULL, false, &snap), -EINVAL);
	th_stop(&r);
	pm_snapshot__unref(snap);
}

/* ---- errors after open: pm_session__last_error ---------------------------- */

/* A PMU that goes away: the read that finds nothing counting any more says which. */
static void test_last_error_vanish(void **state)
{
	static const char *const specs[] = { "ali_drw_21000/hif_rd/", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	struct pm_sim *sim = th_sim_platform_with("yitian710", "at 2500ms vanish ali_drw_21000\n");
	uint64_t t0 = pm_sim__scenario_start(sim);
	const struct pm_diag *d;
	struct th_run r;

	(void)state;
	assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
	d = pm_session__last_error(r.s);
	assert_string_equal(d->msg, "");
	assert_int_equal(d->reason, PM_REASON_NONE);
	th_run_until(&r, t0 + 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__last_error(r.s)->reason, PM_REASON_NONE);
	pm_sim__advance(sim, t0 + 3 * SEC - pm_sim__now(sim));
	assert_int_equal(pm_session__read(r.s), -ENODEV);
	d = pm_session__last_error(r.s);
	assert_int_equal(d->reason, PM_REASON_DEVICE_LOST);
	assert_string_equal(d->device, "ali_drw_21000");
	assert_string_equal(d->device, pm_session__failed_device(r.s));
	assert_non_null(strstr(d->msg, "PMU ali_drw_21000 went away while counting"));
	th_stop(&r);
}

/* A device whose driver fails a read (the scenario's EIO on CPU 0's msr device). */
static void test_last_error_eio(void **state)
{
	static const char *const specs[] = { "amd_df/event=0x7,umask=0x38/", NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .source = PM_SOURCE_MSR };
	struct pm_sim *sim = th_sim_platform_with("amdzen2:uncore=none",
						  "at 1500ms error dev/cpu/0/msr EIO\n");
	uint64_t t0 = pm_sim__scenario_start(sim);
	const struct pm_diag *d;
	struct th_run r;

	(void)state;
	assert_int_equal(th_start_opts(&r, sim, specs, NULL, &o), 0);
	th_run_until(&r, t0 + SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	pm_sim__advance(sim, t0 + 2 * SEC - pm_sim__now(sim));
	assert_int_equal(pm_session__read(r.s), -EIO);
	d = pm_session__last_error(r.s);
	assert_int_equal(d->reason, PM_REASON_DEVICE_ERROR);
	assert_string_equal(d->device, "/dev/cpu/0/msr");
	assert_non_null(strstr(d->msg, "/dev/cpu/0/msr failed: Input/output error"));
	/* each call starts it afresh: a poll with nothing due succeeds, and clears it */
	assert_true(pm_session__next_poll(r.s) > pm_sim__now(sim));
	assert_int_equal(pm_session__poll(r.s), 0);
	assert_int_equal(pm_session__last_error(r.s)->reason, PM_REASON_NONE);
	assert_string_equal(pm_session__last_error(r.s)->msg, "");
	th_stop(&r);
}

/* ---- reasons: the library's words, for a program without pmumon's flags ---- */

static char flat_log[8192];

static void flat_capture(enum pm_log_level level, const char *msg, void *userdata)
{
	size_t n = strlen(flat_log);

	(void)level;
	(void)userdata;
	snprintf(flat_log + n, sizeof(flat_log) - n, "%s\n", msg);
}

/*
 * Without log_diag_fn a warning with a reason reaches log_fn whole, as
 * "msg (hint)" in the API's words: no command-line flag in it.
 */
static void test_reason_in_plain_log(void **state)
{
	static const char *const specs[] = { "bfperf/tile1/MEMORY_READS/", NULL };
	struct pm_sim *sim = th_sim_platform("bluefield2");
	struct pm_ctx_opts co = { .size = sizeof(co),
				  .os_ops = pm_sim__ops(),
				  .os = sim,
				  .simulated = true,
				  .log_fn = flat_capture,
				  .log_level = PM_LOG_WARN };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	struct pm_evlist *l = NULL;
	struct pm_session *s = NULL;
	struct pm_ctx *ctx = NULL;
	struct pm_diag d;
	int fd;

	(void)state;
	fd = pm_sim__ops()->open(sim, "sys/class/hwmon/hwmon1/tile1/event0", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pm_sim__ops()->pwrite(sim, fd, "0x4c", 4, 0), 4);
	pm_sim__ops()->close(sim, fd);
	flat_log[0] = '\0';
	assert_int_equal(pm_ctx__new(&co, &ctx), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, specs[0], &d), 0);
	assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_non_null(strstr(flat_log, "a pmumon that was killed (SIGKILL) left it, or another "
					 "program counts the same; left alone (if no other "
					 "program uses it, open a session with the reclaim option "
					 "(pm_session_opts.reclaim) to reset it)"));
	assert_null(strstr(flat_log, "--"));
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

/* pm_diag__init gives the fields added at the end their "none". */
static void test_diag_init(void **state)
{
	struct pm_diag d;

	(void)state;
	memset(&d, 0x5a, sizeof(d));
	pm_diag__init(&d);
	assert_int_equal(d.reason, PM_REASON_NONE);
	assert_int_equal(d.fix_at, -1);
	assert_string_equal(d.device, "");
	assert_string_equal(d.subject, "");
	assert_int_equal(d.pos, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_unset),
		cmocka_unit_test(test_size_older_caller),
		cmocka_unit_test(test_size_newer_caller),
		cmocka_unit_test(test_snapshot_equals_report),
		cmocka_unit_test(test_snapshot_outlives_session),
		cmocka_unit_test(test_snapshots_independent),
		cmocka_unit_test(test_snapshot_empty),
		cmocka_unit_test(test_last_error_vanish),
		cmocka_unit_test(test_last_error_eio),
		cmocka_unit_test(test_reason_in_plain_log),
		cmocka_unit_test(test_diag_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
