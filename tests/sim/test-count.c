// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting through the perf source against the simulated kernel, where every
 * count is known: exact values where nothing is multiplexed, scaled values
 * within 1% where the kernel rotates 8 DF events over 4 counters, group
 * reads, per-package placement, snapshots, aggregation, task mode, -C, and
 * the open errors a user meets.
 */
#include "helpers.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ctx.h"
#include "evlist.h"
#include "session.h"
#include "source/perf/perf.h"
#include "util/util.h"

#define SEC 1000000000ull

/* ---- models --------------------------------------------------------------------- */

/* ali_drw: hif_rd 1 MB-ish per PMU index, other events by code, cycles at 1.6 GHz. */
static double drw_rate(const struct perf_event_attr *attr, int cpu)
{
	double idx = (double)(attr->type - 11); /* the fixture types are 11..26 */

	if (attr->config == 0x80)
		return 1.6e9;
	if (attr->config == 0x2)
		return (idx + 1) * 1e6;
	return (double)(attr->config + 1) * 1000.0;
}

/* amd_df: channel c moves (c + 1) * 1e8 requests/s; amd_l3 by umask; msr tsc 2.25 GHz. */
static double epyc_rate(const struct perf_event_attr *attr, int cpu)
{
	switch (attr->type) {
	case 12: { /* amd_df: event bits 7:0 and 35:32 give the channel (facts §3.5) */
		uint64_t ev = (attr->config & 0xff) | ((attr->config >> 24) & 0xf00);

		return (double)(((ev >> 6) & 0xff) + 1) * 1e8;
	}
	case 13:
		return ((attr->config >> 8) & 0xff) == 0xff ? 5e8 : 1e8;
	case 10:
		return attr->config == 0 ? 2.25e9 : 1e9;
	default:
		return -1;
	}
}

static double sw_rate(const struct perf_event_attr *attr, int cpu)
{
	switch (attr->config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
		return cpu < 0 ? 1e8 : 1e9; /* ns per s; a sleeping task runs 10% */
	case PERF_COUNT_SW_PAGE_FAULTS:
		return cpu < 0 ? 1500 : 100;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		return 10;
	default:
		return -1;
	}
}

static struct th_rate_model drw_model = { .rate = drw_rate };
static struct th_rate_model epyc_model = { .rate = epyc_rate };
static struct th_rate_model sw_model = { .rate = sw_rate };

static void add_sw(struct pm_sim *sim)
{
	struct pm_sim_pmu_model m = { .type = PERF_TYPE_SOFTWARE,
				      .count = th_rate_count,
				      .data = &sw_model };

	assert_int_equal(pm_sim__add_pmu(sim, "software", &m), 0);
}

static struct pm_sim *yitian_sim(void)
{
	struct pm_sim *sim = th_sim_fixture("yitian710-2die");
	static const char *const names[] = {
		"21000",    "21080",	"23000",    "23080",	"25000",    "25080",
		"27000",    "27080",	"40021000", "40021080", "40023000", "40023080",
		"40025000", "40025080", "40027000", "40027080",
	};

	/* the driver's rules: kernel-facts §1.2, §1.5, §1.8 */
	for (size_t i = 0; i < PM_ARRAY_SIZE(names); i++) {
		struct pm_sim_pmu_model m = {
			.type = 11 + (uint32_t)i,
			.counters = 16,
			.has_fixed = true,
			.fixed_config = 0x80,
			.config_mask = 0x3f,
			.width = 32,
			.flags = PM_SIM_NO_EXCLUDE | PM_SIM_NO_SAMPLING | PM_SIM_ONE_PER_GROUP |
				 PM_SIM_RESET_ON_OPEN | PM_SIM_CPU_WIDE_ONLY,
			.task_err = -EOPNOTSUPP,
			.count = th_rate_count,
			.data = &drw_model,
		};
		char name[32];

		snprintf(name, sizeof(name), "ali_drw_%s", names[i]);
		assert_int_equal(pm_sim__add_pmu(sim, name, &m), 0);
	}
	add_sw(sim);
	return sim;
}

static struct pm_sim *epyc_sim(void)
{
	struct pm_sim *sim = th_sim_fixture("epyc7742-1s");
	struct pm_sim_pmu_model df = { .type = 12,
				       .counters = 4,
				       .width = 48,
				       .flags = PM_SIM_NO_EXCLUDE | PM_SIM_NO_SAMPLING |
						PM_SIM_CPU_WIDE_ONLY,
				       .count = th_rate_count,
				       .data = &epyc_model };
	struct pm_sim_pmu_model l3 = df, msr = { .type = 10,
						 .flags = PM_SIM_NO_EXCLUDE,
						 .count = th_rate_count,
						 .data = &epyc_model };

	l3.type = 13;
	l3.counters = 6;
	assert_int_equal(pm_sim__add_pmu(sim, "amd_df", &df), 0);
	assert_int_equal(pm_sim__add_pmu(sim, "amd_l3", &l3), 0);
	assert_int_equal(pm_sim__add_pmu(sim, "msr", &msr), 0);
	add_sw(sim);
	return sim;
}

/* ---- a session in a few lines ------------------------------------------------------ */

struct run {
	struct pm_sim *sim;
	struct pm_ctx *ctx;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;
};

static int start(struct run *r, struct pm_sim *sim, const char *const *specs,
		 const struct pm_session_opts *o)
{
	int e;

	memset(r, 0, sizeof(*r));
	r->sim = sim;
	r->ctx = th_ctx_sim(sim);
	/* counting starts a little after boot, as in life */
	pm_sim__advance(sim, 3 * SEC);
	drw_model.start_ns = epyc_model.start_ns = sw_model.start_ns = 0;
	assert_int_equal(pm_evlist__new(r->ctx, &r->l), 0);
	for (size_t i = 0; specs[i]; i++) {
		e = pm_evlist__add(r->l, specs[i], &r->d);
		if (e < 0)
			fail_msg("'%s': %s", specs[i], r->d.msg);
	}
	e = pm_session__new(r->l, o, &r->s, &r->d);
	if (e == 0)
		e = pm_session__open(r->s, &r->d);
	if (e == 0)
		e = pm_session__enable(r->s);
	return e;
}

static void stop(struct run *r)
{
	pm_session__free(r->s);
	pm_evlist__free(r->l);
	pm_ctx__free(r->ctx); /* frees the sim */
}

static const struct pm_row *row(const struct pm_report *rep, const char *event, const char *device,
				int cpu, int die)
{
	for (size_t i = 0; i < rep->n_rows; i++) {
		const struct pm_row *w = &rep->rows[i];

		if (strcmp(w->event, event) != 0)
			continue;
		if (device && (!w->device || strcmp(w->device, device) != 0))
			continue;
		if (cpu != -2 && w->cpu != cpu)
			continue;
		if (die != -2 && w->die != die)
			continue;
		return w;
	}
	fail_msg("no row %s %s cpu %d die %d", event, device ? device : "-", cpu, die);
	return NULL;
}

static const struct pm_session_opts system_wide = { .size = sizeof(system_wide),
						    .target = PM_TARGET_SYSTEM };

/* ---- tests ------------------------------------------------------------------------- */

static void test_uncore_exact(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", "ali_drw/hif_wr/", "ali_drw/cycle/",
					     NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .aggr = PM_AGGR_DEVICE };
	const struct pm_report *rep;
	struct run r;

	assert_int_equal(start(&r, yitian_sim(), specs, &o), 0);
	/* every counter opened before any was enabled: the reset on open bit nothing */
	assert_false(pm_sim__enabled_before_open(r.sim));
	assert_int_equal(pm_session__counter_count(r.s), 48); /* 16 PMUs x 3, one CPU each */
	pm_sim__advance(r.sim, 5 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->n_rows, 48);
	assert_int_equal(rep->t_ns, 5 * SEC);
	for (int i = 0; i < 16; i++) {
		const struct pm_row *w = &rep->rows[i]; /* hif_rd rows come first, in PMU order */

		assert_string_equal(w->event, "ali_drw/hif_rd/");
		assert_true(w->value == (i + 1) * 1e6 * 5); /* exactly the truth */
		assert_int_equal(w->raw, (uint64_t)((i + 1) * 5000000));
		assert_true(w->running == 1.0);
		assert_int_equal(w->flags, 0);
	}
	assert_true(row(rep, "ali_drw/cycle/", "ali_drw_40027080", -2, -2)->value == 8e9);
	assert_true(row(rep, "ali_drw/hif_wr/", "ali_drw_21000", -2, -2)->value == 2000.0 * 5);
	stop(&r);
}

/* The simulator would catch an enable-then-open order: opening resets the PMU. */
static void test_reset_on_open_model(void **state)
{
	struct pm_sim *sim = yitian_sim();
	const struct pm_os_ops *ops = pm_sim__ops();
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = 11,
				     .config = 0x2,
				     .disabled = 1,
				     .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						    PERF_FORMAT_TOTAL_TIME_RUNNING };
	uint64_t v[3];
	int fa, fb;

	fa = ops->perf_open(sim, &a, -1, 0, -1, 0);
	assert_true(fa >= 0);
	assert_int_equal(ops->perf_ioctl(sim, fa, PERF_EVENT_IOC_ENABLE, 0), 0);
	pm_sim__advance(sim, SEC);
	a.config = 0x1;
	fb = ops->perf_open(sim, &a, -1, 0, -1, 0); /* resets every counter of ali_drw_21000 */
	assert_true(fb >= 0);
	assert_true(pm_sim__enabled_before_open(sim));
	assert_int_equal(ops->read(sim, fa, v, sizeof(v)), sizeof(v));
	assert_true(v[0] != 1000000);	    /* the wrong order is visible */
	assert_int_equal(v[0], 1ull << 32); /* 1e6 plus the driver's masked delta */
	/* and the driver's other rules */
	a.config = 0x41; /* only 6 bits reach the hardware: counts event 0x01 */
	assert_true(ops->perf_open(sim, &a, -1, 0, -1, 0) >= 0);
	a.exclude_kernel = 1;
	assert_int_equal(ops->perf_open(sim, &a, -1, 0, -1, 0), -EINVAL);
	a.exclude_kernel = 0;
	assert_int_equal(ops->perf_open(sim, &a, 1234, -1, -1, 0), -EOPNOTSUPP);
	a.sample_period = 1000;
	assert_int_equal(ops->perf_open(sim, &a, -1, 0, -1, 0), -EOPNOTSUPP);
	a.sample_period = 0;
	assert_int_equal(ops->perf_open(sim, &a, -1, 0, fa, 0), -EINVAL); /* one per group */
	pm_sim__free(sim);
}

static void test_multiplexed_df(void **state)
{
	static const char *const specs[] = {
		"amd_df/dram_channel_data_controller_0/",
		"amd_df/dram_channel_data_controller_1/",
		"amd_df/dram_channel_data_controller_2/",
		"amd_df/dram_channel_data_controller_3/",
		"amd_df/dram_channel_data_controller_4/",
		"amd_df/dram_channel_data_controller_5/",
		"amd_df/dram_channel_data_controller_6/",
		"amd_df/dram_channel_data_controller_7/",
		NULL,
	};
	const struct pm_report *rep;
	struct run r;

	assert_int_equal(start(&r, epyc_sim(), specs, &system_wide), 0);
	for (int iv = 0; iv < 5; iv++) {
		pm_sim__advance(r.sim, SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		assert_int_equal(rep->n_rows, 8);
		assert_int_equal(rep->duration_ns, SEC);
		for (int ch = 0; ch < 8; ch++) {
			const struct pm_row *w = &rep->rows[ch];
			double truth = (ch + 1) * 1e8;

			/* 8 events on 4 counters: each runs half the time, scaled within 1% */
			assert_true(w->flags & PM_ROW_MULTIPLEXED);
			th_assert_near(w->running, 0.5, 0.01);
			th_assert_rel(w->value, truth, 0.01);
		}
	}
	rep = pm_session__report(r.s, false);
	th_assert_rel(rep->rows[7].value, 8e8 * 5, 0.01);
	stop(&r);
}

static void test_group_read(void **state)
{
	static const char *const specs[] = { "{amd_l3/l3_accesses/,amd_l3/l3_misses/}", NULL };
	const struct pm_report *rep;
	struct run r;

	assert_int_equal(start(&r, epyc_sim(), specs, &system_wide), 0);
	/* 16 L3s (one per CCX) x one group each, read in one syscall per group */
	assert_int_equal(r.s->n_ru, 16);
	assert_true(r.s->ru[0].group);
	assert_int_equal(r.s->ru[0].n, 2);
	pm_sim__advance(r.sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_true(row(rep, "amd_l3/l3_accesses/", NULL, -2, -2)->value == 16 * 5e8 * 2);
	assert_true(row(rep, "amd_l3/l3_misses/", NULL, -2, -2)->value == 16 * 1e8 * 2);
	stop(&r);
}

/*
 * The automatic per-CPU group of software-context events stops at the size
 * the kernel takes (a group read of at most 16 KiB, docs/kernel-facts.md
 * 0.2) and the rest form another group, instead of failing to open: 2,100
 * context-switch counters on each of 2 CPUs read as groups of 2,043 and 57,
 * every one of them counting what the CPU did.
 */
static void test_auto_group_split(void **state)
{
	static const struct pm_session_opts two_cpus = { .size = sizeof(two_cpus),
							 .target = PM_TARGET_CPUS,
							 .cpus = "0-1" };
	enum { N = 2100 };
	const char **specs = calloc(N + 1, sizeof(*specs));
	const struct pm_report *rep;
	size_t rows = 0;
	struct run r;

	/* the size per read format, by the kernel's rules (before 6.7 the stricter) */
	assert_int_equal(pm_perf__group_max_for(PERF_FORMAT_GROUP), 2045);
	assert_int_equal(pm_perf__group_max_for(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
						PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID),
			 1021);
	assert_int_equal(pm_perf__group_max_for(PERF_FORMAT_GROUP | PERF_FORMAT_ID |
						PERF_FORMAT_LOST),
			 681);
	assert_int_equal(pm_perf__group_max(), 2043);

	assert_non_null(specs);
	for (size_t i = 0; i < N; i++)
		specs[i] = "context-switches";
	assert_int_equal(start(&r, epyc_sim(), specs, &two_cpus), 0);
	assert_int_equal(r.s->n_ru, 4);
	for (size_t u = 0; u < r.s->n_ru; u++) {
		assert_true(r.s->ru[u].group);
		assert_int_equal(r.s->ru[u].n, u < 2 ? 2043 : N - 2043); /* by leader: CPU 0, 1 */
	}
	pm_sim__advance(r.sim, 2 * SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	for (size_t i = 0; i < rep->n_rows; i++) {
		if (strcmp(rep->rows[i].event, "context-switches") != 0)
			continue;
		rows++;
		assert_true(rep->rows[i].value == 2 * 10 * 2); /* 2 CPUs x 10/s x 2 s */
		assert_false(rep->rows[i].flags & PM_ROW_MULTIPLEXED);
	}
	assert_int_equal(rows, N);
	stop(&r);
	free(specs);
}

/*
 * Groups that multiplex: the group read's enabled and running times (which
 * come before the values in PERF_FORMAT_GROUP) scale every member. 4 groups
 * of 2 DF events on 4 counters: each group runs half the time.
 */
static void test_group_read_multiplexed(void **state)
{
	static const char *const specs[] = {
		"{amd_df/dram_channel_data_controller_0/,amd_df/dram_channel_data_controller_1/}",
		"{amd_df/dram_channel_data_controller_2/,amd_df/dram_channel_data_controller_3/}",
		"{amd_df/dram_channel_data_controller_4/,amd_df/dram_channel_data_controller_5/}",
		"{amd_df/dram_channel_data_controller_6/,amd_df/dram_channel_data_controller_7/}",
		NULL,
	};
	const struct pm_report *rep;
	struct run r;

	assert_int_equal(start(&r, epyc_sim(), specs, &system_wide), 0);
	assert_int_equal(r.s->n_ru, 4);
	assert_true(r.s->ru[0].group);
	for (int iv = 0; iv < 3; iv++) {
		pm_sim__advance(r.sim, SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		for (int ch = 0; ch < 8; ch++) {
			const struct pm_row *w = &rep->rows[ch];

			assert_true(w->flags & PM_ROW_MULTIPLEXED);
			th_assert_near(w->running, 0.5, 0.01);
			assert_true(w->running_ns < w->enabled_ns);
			th_assert_rel(w->value, (ch + 1) * 1e8, 0.01);
		}
	}
	stop(&r);
}

static void test_not_counted(void **state)
{
	static const char *const specs[] = { "amd_l3/l3_accesses/", NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .aggr = PM_AGGR_CPU };
	struct pm_sim *sim = epyc_sim();
	const struct pm_report *rep;
	struct run r;

	pm_sim__steal_counters(sim, "amd_l3", 4, 6); /* someone holds all of CCX 1's counters */
	assert_int_equal(start(&r, sim, specs, &o), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_true(isnan(row(rep, "amd_l3/l3_accesses/", NULL, 4, -2)->value));
	assert_true(row(rep, "amd_l3/l3_accesses/", NULL, 4, -2)->flags & PM_ROW_NOT_COUNTED);
	assert_true(row(rep, "amd_l3/l3_accesses/", NULL, 4, -2)->running == 0.0);
	assert_true(row(rep, "amd_l3/l3_accesses/", NULL, 8, -2)->value == 5e8);
	stop(&r);
	/* merged, the row has no honest value: NaN, not the sum of the others */
	sim = epyc_sim();
	pm_sim__steal_counters(sim, "amd_l3", 4, 6);
	assert_int_equal(start(&r, sim, specs, &system_wide), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_true(isnan(rep->rows[0].value));
	assert_true(rep->rows[0].flags & PM_ROW_NOT_COUNTED);
	stop(&r);
}

static void test_aggregation(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	const struct pm_report *rep;
	struct run r;

	o.aggr = PM_AGGR_DIE;
	assert_int_equal(start(&r, yitian_sim(), specs, &o), 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->n_rows, 2);
	/* die 0: PMU indexes 0..7 -> (1+..+8) MB; die 1: (9+..+16) */
	assert_true(row(rep, "ali_drw/hif_rd/", NULL, -2, 0)->value == 36e6);
	assert_true(row(rep, "ali_drw/hif_rd/", NULL, -2, 1)->value == 100e6);
	stop(&r);

	o.aggr = PM_AGGR_SOCKET;
	assert_int_equal(start(&r, yitian_sim(), specs, &o), 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->n_rows, 1);
	assert_int_equal(rep->rows[0].socket, 0);
	assert_true(rep->rows[0].value == 136e6);
	stop(&r);

	o.aggr = PM_AGGR_CPU;
	assert_int_equal(start(&r, yitian_sim(), specs, &o), 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->n_rows, 2); /* the two cpumask CPUs, nothing twice */
	assert_true(row(rep, "ali_drw/hif_rd/", NULL, 64, -2)->value == 100e6);
	stop(&r);

	o.aggr = PM_AGGR_FAMILY;
	assert_int_equal(start(&r, yitian_sim(), specs, &o), 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_int_equal(rep->n_rows, 1);
	assert_null(rep->rows[0].device);
	assert_true(rep->rows[0].value == 136e6);
	stop(&r);
}

/* The row labelled label (per core, node or cache: the row's domain). */
static const struct pm_row *labelled(const struct pm_report *rep, const char *event,
				     const char *label)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, event) && rep->rows[i].domain &&
		    !strcmp(rep->rows[i].domain, label))
			return &rep->rows[i];
	fail_msg("no row %s labelled %s", event, label);
	return NULL;
}

/* One second of cpu-clock (1e9 ns per CPU: 1000 msec) and a DF and an L3 event. */
static const struct pm_report *one_second(struct run *r, const char *spec, enum pm_aggr aggr,
					  int level)
{
	static const char *const specs[] = { "cpu-clock", "amd_df/event=0x7,umask=0x38/",
					     "amd_l3/event=0x4,umask=0xff/", NULL };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .aggr = aggr,
				     .cache_level = level };

	assert_int_equal(start(r, th_sim_platform(spec), specs, &o), 0);
	pm_sim__advance(r->sim, SEC);
	assert_int_equal(pm_session__read(r->s), 0);
	return pm_session__report(r->s, false);
}

/* Rows per core, NUMA node and cache instance (perf stat's --per-core, --per-node,
 * --per-cache), from the simulated EPYC's sysfs: 2 sockets x 64 cores x 2 threads. */
static void test_aggr_core_node_cache(void **state)
{
	const struct pm_report *rep;
	const struct pm_row *w;
	struct run r;

	rep = one_second(&r, "amdzen2:sockets=2", PM_AGGR_CORE, 0);
	w = labelled(rep, "cpu-clock", "S1-D0-C63"); /* CPUs 127 and 255 */
	th_assert_near(w->value, 2000, 1e-6);
	assert_int_equal(w->socket, 1);
	assert_int_equal(w->die, 0);
	assert_int_equal(w->instances, 1);
	/* the DF counts per socket on its cpumask CPU: the row says it is the socket's */
	assert_non_null(labelled(rep, "amd_df/event=0x7,umask=0x38/", "S1"));
	stop(&r);

	rep = one_second(&r, "amdzen2:sockets=2", PM_AGGR_NODE, 0);
	th_assert_near(labelled(rep, "cpu-clock", "N0")->value, 128000, 1e-6);
	th_assert_near(labelled(rep, "cpu-clock", "N1")->value, 128000, 1e-6);
	/* 8 L3s per node: the node's row adds them up */
	assert_non_null(labelled(rep, "amd_l3/event=0x4,umask=0xff/", "N1"));
	stop(&r);

	rep = one_second(&r, "amdzen2:sockets=2", PM_AGGR_CACHE, 0); /* the last level: L3 */
	w = labelled(rep, "cpu-clock", "S1-D0-L3-ID68"); /* CCX 1 of socket 1: 68-71,196-199 */
	th_assert_near(w->value, 8000, 1e-6);
	assert_non_null(labelled(rep, "amd_l3/event=0x4,umask=0xff/", "S1-D0-L3-ID68"));
	stop(&r);

	rep = one_second(&r, "amdzen2:sockets=2", PM_AGGR_CACHE, 2);
	th_assert_near(labelled(rep, "cpu-clock", "S0-D0-L2-ID5")->value, 2000, 1e-6);
	/* an L3's count is not an L2's: its row names the L3 */
	assert_non_null(labelled(rep, "amd_l3/event=0x4,umask=0xff/", "L3 CPUs 4-7,132-135"));
	stop(&r);

	/* the Yitian 710 model lists L1 and L2 only: no row per L3 */
	{
		static const char *const specs[] = { "cpu-clock", NULL };
		struct pm_session_opts o = { .size = sizeof(o),
					     .target = PM_TARGET_SYSTEM,
					     .aggr = PM_AGGR_CACHE,
					     .cache_level = 3 };
		struct pm_ctx *ctx = th_ctx_sim(th_sim_platform("yitian710"));
		struct pm_evlist *l = NULL;
		struct pm_session *s = NULL;
		struct pm_diag d;

		assert_int_equal(pm_evlist__new(ctx, &l), 0);
		assert_int_equal(pm_evlist__add(l, specs[0], &d), 0);
		assert_int_equal(pm_session__new(l, &o, &s, &d), -ENOENT);
		assert_non_null(strstr(d.msg, "no CPU lists an L3 cache"));
		/* the fix is a reason, so the CLI words it in its own flags (cli/hints.c) */
		assert_int_equal(d.reason, PM_REASON_CACHE_LEVEL);
		assert_string_equal(d.subject, "3");
		assert_int_equal(d.fix_at, 0);
		assert_non_null(strstr(d.hint, "pm_session_opts.cache_level"));
		o.cache_level = 0; /* the last level there is L2 */
		assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
		pm_session__free(s);
		o.aggr = PM_AGGR_NODE;
		assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
		pm_session__free(s);
		pm_evlist__free(l);
		pm_ctx__free(ctx);
	}
}

/* cpu-clock counted for a second over the numa-gaps fixture, in rows of aggr. */
static const struct pm_report *gaps_second(struct run *r, enum pm_aggr aggr)
{
	static const char *const specs[] = { "cpu-clock", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM, .aggr = aggr };
	struct pm_sim *sim = th_sim_fixture("numa-gaps");

	add_sw(sim);
	assert_int_equal(start(r, sim, specs, &o), 0);
	pm_sim__advance(r->sim, SEC);
	assert_int_equal(pm_session__read(r->s), 0);
	return pm_session__report(r->s, false);
}

/* A fixture tree whose sysfs leaves CPUs out of nodes and caches: those CPUs get a row
 * of their own, and the log says which file is missing; a tree with no node at all
 * refuses rows per node, saying so. */
static void test_aggr_missing_topology(void **state)
{
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_SYSTEM };
	const struct pm_report *rep;
	struct run r;

	th_log_clear();
	rep = gaps_second(&r, PM_AGGR_NODE);
	assert_int_equal(rep->n_rows, 2);
	th_assert_near(labelled(rep, "cpu-clock", "N0")->value, 2000, 1e-6);
	th_assert_near(labelled(rep, "cpu-clock", "no node")->value, 2000, 1e-6);
	assert_true(th_logged("node1/cpulist"));
	assert_true(th_logged("CPU 3 is in no sys/devices/system/node/node*/cpulist"));
	stop(&r);

	rep = gaps_second(&r, PM_AGGR_CACHE); /* the last level: L2 for CPUs 0-2, none for 3 */
	assert_int_equal(rep->n_rows, 3);
	th_assert_near(labelled(rep, "cpu-clock", "S0-D0-L2-ID0")->value, 2000, 1e-6);
	th_assert_near(labelled(rep, "cpu-clock", "S0-D0-L2-ID2")->value, 1000, 1e-6);
	th_assert_near(labelled(rep, "cpu-clock", "no cache")->value, 1000, 1e-6);
	assert_true(th_logged("CPU 3 has no cache in sys/devices/system/cpu/cpu3/cache"));
	stop(&r);

	rep = gaps_second(&r, PM_AGGR_CORE);
	assert_int_equal(rep->n_rows, 2);
	th_assert_near(labelled(rep, "cpu-clock", "S0-D0-C1")->value, 2000, 1e-6);
	stop(&r);

	/* the EPYC fixture has no sys/devices/system/node at all */
	{
		struct pm_ctx *ctx = th_ctx_fixture("epyc7742-1s");
		struct pm_evlist *l = NULL;
		struct pm_session *s = NULL;
		struct pm_diag d;

		o.aggr = PM_AGGR_NODE;
		assert_int_equal(pm_evlist__new(ctx, &l), 0);
		assert_int_equal(pm_evlist__add(l, "cpu-clock", &d), 0);
		assert_int_equal(pm_session__new(l, &o, &s, &d), -ENOENT);
		assert_non_null(strstr(d.msg, "this machine lists no node"));
		assert_int_equal(d.reason, PM_REASON_NO_NODES);
		assert_string_equal(
			d.hint,
			"count per socket or per die instead (PM_AGGR_SOCKET, PM_AGGR_DIE)");
		o.aggr = PM_AGGR_CACHE;
		assert_int_equal(pm_session__new(l, &o, &s, &d), -ENOENT);
		assert_non_null(strstr(d.msg, "no CPU lists a cache"));
		assert_int_equal(d.reason, PM_REASON_NO_CACHES);
		assert_int_equal(d.fix_at, 0);
		o.cache_level = 16;
		assert_int_equal(pm_session__new(l, &o, &s, &d), -EINVAL);
		pm_evlist__free(l);
		pm_ctx__free(ctx);
	}
}

static void test_intervals_add_up(void **state)
{
	static const char *const specs[] = { "msr/tsc/", "cpu-clock", NULL };
	const struct pm_report *rep;
	double sum = 0;
	struct run r;

	assert_int_equal(start(&r, epyc_sim(), specs, &system_wide), 0);
	assert_int_equal(pm_session__counter_count(r.s), 256); /* 128 CPUs x 2 */
	for (int iv = 0; iv < 3; iv++) {
		pm_sim__advance(r.sim, SEC / 2);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		assert_true(rep->rows[0].value == 128 * 2.25e9 / 2);
		/* cpu-clock counts ns and shows msec: 128 CPUs x 500 ms */
		th_assert_near(rep->rows[1].value, 128 * 500.0, 1e-6);
		assert_string_equal(rep->rows[1].unit, "msec");
		sum += rep->rows[0].value;
	}
	rep = pm_session__report(r.s, false);
	assert_true(rep->rows[0].value == sum);
	assert_int_equal(rep->t_ns, 3 * SEC / 2);
	stop(&r);
}

static uint64_t margin_now;

static int margin_count(void *data, const struct perf_event_attr *attr, int cpu, uint64_t t,
			uint64_t *ret)
{
	/* msr cpu_thermal_margin is SET to the current margin, not added (facts §4) */
	*ret = attr->config == 7 ? margin_now + (uint64_t)cpu : 0;
	return 0;
}

static void test_snapshot_and_per_pkg(void **state)
{
	static const char *const specs[] = { "msr/cpu_thermal_margin/", "power/energy-pkg/", NULL };
	struct pm_sim *sim = th_sim_fixture("yitian710-2die");
	struct pm_sim_pmu_model msr = { .type = 10,
					.count = margin_count,
					.has_snapshot = true,
					.snapshot_config = 7 };
	struct pm_sim_pmu_model pwr = { .type = 9, .count = th_rate_count, .data = &sw_model };
	const struct pm_report *rep;
	struct run r;

	pm_sim__write_file(sim, "sys/bus/event_source/devices/msr/type", "10\n");
	pm_sim__write_file(sim, "sys/bus/event_source/devices/msr/format/event", "config:0-63\n");
	pm_sim__write_file(sim, "sys/bus/event_source/devices/msr/events/cpu_thermal_margin",
			   "event=0x07\n");
	pm_sim__write_file(sim,
			   "sys/bus/event_source/devices/msr/events/cpu_thermal_margin.snapshot",
			   "1\n");
	pm_sim__write_file(sim, "sys/bus/event_source/devices/msr/events/cpu_thermal_margin.unit",
			   "C\n");
	/* a per-package event on a PMU without a cpumask (page-faults' rate stands in) */
	pm_sim__write_file(sim, "sys/bus/event_source/devices/power/type", "9\n");
	pm_sim__write_file(sim, "sys/bus/event_source/devices/power/format/event", "config:0-7\n");
	pm_sim__write_file(sim, "sys/bus/event_source/devices/power/events/energy-pkg",
			   "event=0x02\n");
	pm_sim__write_file(sim, "sys/bus/event_source/devices/power/events/energy-pkg.per-pkg",
			   "1\n");
	assert_int_equal(pm_sim__add_pmu(sim, "msr", &msr), 0);
	assert_int_equal(pm_sim__add_pmu(sim, "power", &pwr), 0);
	add_sw(sim);
	margin_now = 40;
	assert_int_equal(start(&r, sim, specs, &system_wide), 0);
	/* per-pkg: one CPU per die, not 128 */
	{
		size_t n = 0;

		for (size_t k = 0; k < r.s->n_c; k++)
			n += r.s->c[k].event == 1;
		assert_int_equal(n, 2);
	}
	pm_sim__advance(sim, SEC);
	margin_now = 30;
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	/* the current value averaged over CPUs (30 + 0..127), not a delta */
	assert_true(rep->rows[0].value == 30 + 63.5);
	assert_true(rep->rows[0].flags & PM_ROW_SNAPSHOT);
	assert_string_equal(rep->rows[0].unit, "C");
	assert_true(rep->rows[1].value == 2 * 100);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, true);
	assert_true(rep->rows[0].value == 30 + 63.5); /* unchanged, not 0 */
	stop(&r);
}

static void test_task_mode(void **state)
{
	static const char *const specs[] = { "page-faults", "task-clock", NULL };
	struct pm_sim *sim = epyc_sim();
	const struct pm_os_ops *ops = pm_sim__ops();
	char *argv[] = { "sleep", "2", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_TASK };
	struct pm_proc *proc;
	const struct pm_report *rep;
	struct run r;
	int status = -1;

	assert_int_equal(ops->proc_prepare(sim, argv, &proc), 0);
	o.pid = ops->proc_pid(sim, proc);
	assert_int_equal(start(&r, sim, specs, &o), 0);
	pm_sim__advance(sim, SEC); /* before the exec nothing counts */
	assert_int_equal(ops->proc_start(sim, proc), 0);
	assert_int_equal(ops->wait(sim, UINT64_MAX - 1, proc, &status), PM_OS_WAKE_EXIT);
	assert_int_equal(status, 0);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_true(rep->rows[0].value == 3000);	 /* 1500/s for the 2 s it ran */
	th_assert_near(rep->rows[1].value, 200.0, 1e-9); /* 10% of 2 s, in msec */
	assert_true(rep->rows[0].running == 1.0);
	ops->proc_free(sim, proc);
	stop(&r);
}

/*
 * An uncore event with a command counts its whole PMU while the command runs,
 * as perf stat does (its evsel is system_wide): opened on the cpumask CPUs
 * with no task, enabled with the session, not at the exec; the task's own
 * events stay the task's. Said once on the log.
 */
static void test_task_uncore(void **state)
{
	static const char *const specs[] = { "ali_drw/hif_rd/", "task-clock", NULL };
	struct pm_sim *sim = yitian_sim();
	const struct pm_os_ops *ops = pm_sim__ops();
	char *argv[] = { "sleep", "2", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_TASK };
	const struct pm_report *rep;
	struct pm_proc *proc;
	struct run r;
	size_t wide = 0;
	int status = -1;

	add_sw(sim);
	assert_int_equal(ops->proc_prepare(sim, argv, &proc), 0);
	o.pid = ops->proc_pid(sim, proc);
	th_log_clear();
	assert_int_equal(start(&r, sim, specs, &o), 0);
	for (size_t k = 0; k < r.s->n_c; k++) {
		const struct pm_counter *c = &r.s->c[k];

		/* the 16 PMUs on their cpumask CPUs, no task; task-clock follows the task */
		assert_true(c->cpu_wide == (c->event == 0));
		assert_true(c->event == 0 ? c->cpu >= 0 : c->cpu == -1);
		wide += c->cpu_wide;
	}
	assert_int_equal(wide, 16);
	assert_true(th_logged("'ali_drw/hif_rd/' counts the whole uncore PMU"));
	assert_int_equal(ops->proc_start(sim, proc), 0);
	assert_int_equal(ops->wait(sim, UINT64_MAX - 1, proc, &status), PM_OS_WAKE_EXIT);
	assert_int_equal(pm_session__disable(r.s), 0);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	/* the 2 s the command ran, all 16 PMUs: (1 + .. + 16) MB/s */
	assert_true(row(rep, "ali_drw/hif_rd/", NULL, -2, -2)->value == 2 * 136e6);
	th_assert_near(row(rep, "task-clock", NULL, -2, -2)->value, 200.0, 1e-9);
	ops->proc_free(sim, proc);
	stop(&r);
}

static void test_target_errors(void **state)
{
	static const char *const uncore[] = { "ali_drw/hif_rd/", NULL };
	struct pm_session_opts task = { .size = sizeof(task),
					.target = PM_TARGET_TASK,
					.pid = 4242 };
	struct pm_session_opts cpus = { .size = sizeof(cpus),
					.target = PM_TARGET_CPUS,
					.cpus = "1-3" };
	struct run r;

	(void)task; /* a task target counts an uncore event system-wide: test_task_uncore */
	assert_int_equal(start(&r, yitian_sim(), uncore, &cpus), -EINVAL);
	assert_non_null(strstr(
		r.d.msg,
		"counts only on CPU(s) 0,64 (the cpumask of PMU 'ali_drw_21000' and its family)"));
	assert_non_null(strstr(r.d.msg, "the CPUs asked, 1-3, leave them out"));
	/* the fix is those CPUs or all: the reason and the CPUs, for a CLI's -a and -C */
	assert_int_equal(r.d.reason, PM_REASON_CPUS);
	assert_string_equal(r.d.subject, "0,64");
	assert_string_equal(r.d.device, "ali_drw_21000");
	stop(&r);

	/* -C 0-3: the die-0 instances count, die 1's sit out */
	cpus.cpus = "0-3";
	assert_int_equal(start(&r, yitian_sim(), uncore, &cpus), 0);
	assert_int_equal(pm_session__counter_count(r.s), 8);
	stop(&r);

	cpus.cpus = "200";
	assert_int_equal(start(&r, yitian_sim(), uncore, &cpus), -ENODEV);
	assert_string_equal(r.d.msg, "CPU 200 is not online; online CPUs are 0-127");
	stop(&r);

	cpus.cpus = "1-";
	assert_int_equal(start(&r, yitian_sim(), uncore, &cpus), -EINVAL);
	assert_string_equal(r.d.msg, "bad CPU list '1-'");
	stop(&r);
}

static void test_open_errors(void **state)
{
	static const char *const tsc[] = { "msr/tsc/", NULL };
	static const struct {
		int err;
		const char *msg, *hint;
	} t[] = {
		{ -EACCES, "no permission to count 'msr/tsc/' on CPU 0: Permission denied",
		  "perf_event_paranoid is 2; system-wide counting needs CAP_PERFMON (or root)" },
		{ -EBUSY, "the counters of PMU 'msr' are in use by someone else", "NMI watchdog" },
		{ -EMFILE, "too many open files", "ulimit -n" },
		{ -EINVAL, "PMU 'msr' rejected 'msr/tsc/' on CPU 0 (config 0x0, config1 0x0)",
		  "pmumon list events msr" },
	};
	/* what perf stat shows as <not supported> and goes on: a row that says so, the
	 * reason on the log (perf: stat_handle_error) */
	static const struct {
		int err;
		const char *msg;
	} unsupported[] = {
		{ -EOPNOTSUPP, "PMU 'msr' does not support 'msr/tsc/' this way" },
		{ -ENOENT, "'msr/tsc/' is not supported by this kernel or CPU" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_sim *sim = epyc_sim();
		struct run r;

		pm_sim__fail_next_open(sim, "msr", t[i].err);
		assert_int_equal(start(&r, sim, tsc, &system_wide), t[i].err);
		/* "pmumon list events msr": the CLI's words for PM_REASON_SEE_LIST */
		if (!strstr(r.d.msg, t[i].msg) ||
		    (t[i].hint && strncmp(t[i].hint, "pmumon list ", 12) != 0 &&
		     !strstr(r.d.hint, t[i].hint)) ||
		    (t[i].hint && !strncmp(t[i].hint, "pmumon list ", 12) &&
		     (r.d.reason != PM_REASON_SEE_LIST ||
		      strcmp(r.d.subject, t[i].hint + 12) != 0)))
			fail_msg("%d: '%s' / '%s'", t[i].err, r.d.msg, r.d.hint);
		assert_string_equal(r.d.input, "msr/tsc/");
		stop(&r);
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(unsupported); i++) {
		static const char *const two[] = { "msr/tsc/", "page-faults", NULL };
		struct pm_sim *sim = epyc_sim();
		const struct pm_report *rep;
		struct run r;

		th_log_clear();
		pm_sim__fail_next_open(sim, "msr", unsupported[i].err);
		assert_int_equal(start(&r, sim, two, &system_wide), 0);
		assert_true(th_logged(unsupported[i].msg));
		assert_true(th_logged("its row says <not supported>"));
		pm_sim__advance(r.sim, SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, false);
		assert_int_equal(row(rep, "msr/tsc/", NULL, -2, -2)->flags,
				 PM_ROW_UNSUPPORTED | PM_ROW_NOT_COUNTED);
		assert_true(isnan(row(rep, "msr/tsc/", NULL, -2, -2)->value));
		assert_true(row(rep, "page-faults", NULL, -2, -2)->value > 0); /* the rest count */
		assert_int_equal(row(rep, "page-faults", NULL, -2, -2)->flags, 0);
		stop(&r);
	}
	{
		struct pm_sim *sim = epyc_sim();
		struct run r;

		/* the hint names the exact sysctl that would allow it */
		pm_sim__fail_next_open(sim, "msr", -EACCES);
		assert_int_equal(start(&r, sim, tsc, &system_wide), -EACCES);
		assert_non_null(strstr(r.d.hint, "sysctl -w kernel.perf_event_paranoid=0"));
		stop(&r);
	}
	{
		/* refused although paranoid allows it: a container's seccomp, SELinux, lockdown */
		struct pm_sim *sim = epyc_sim();
		struct run r;

		pm_sim__write_file(sim, "proc/sys/kernel/perf_event_paranoid", "-1\n");
		pm_sim__fail_next_open(sim, "msr", -EPERM);
		assert_int_equal(start(&r, sim, tsc, &system_wide), -EPERM);
		assert_non_null(strstr(r.d.hint, "perf_event_paranoid is -1, so something else"));
		assert_non_null(strstr(r.d.hint, "seccomp"));
		stop(&r);
	}
	{
		/* an uncore cpumask naming an offline CPU (kernel-facts §1.8) */
		static const char *const df[] = { "amd_df/event=0x7,umask=0x38/", NULL };
		struct pm_sim *sim = epyc_sim();
		struct run r;

		pm_sim__fail_next_open(sim, "amd_df", -ENODEV);
		assert_int_equal(start(&r, sim, df, &system_wide), -ENODEV);
		assert_non_null(strstr(r.d.msg, "on CPU 0, the CPU its cpumask names: that CPU is "
						"offline, or the cpumask went stale"));
		assert_non_null(strstr(r.d.hint, "/sys/devices/system/cpu/cpuN/online"));
		stop(&r);
	}
}

/* perf's fallback at perf_event_paranoid 2: count user space, mark it :u, say so */
static void test_paranoid_user_only_fallback(void **state)
{
	static const char *const specs[] = { "page-faults", NULL };
	struct pm_session_opts o = { .size = sizeof(o), .target = PM_TARGET_TASK, .pid = 4242 };
	struct pm_sim *sim = epyc_sim();
	const struct pm_report *rep;
	struct run r;

	th_log_clear();
	pm_sim__fail_next_open(sim, "software", -EACCES);
	assert_int_equal(start(&r, sim, specs, &o), 0);
	assert_true(th_logged("kernel.perf_event_paranoid is 2: counting user space only"));
	assert_int_equal(r.l->inst[0].attr.exclude_kernel, 1);
	assert_int_equal(r.l->inst[0].attr.exclude_hv, 1);
	assert_int_equal(pm_session__read(r.s), 0);
	rep = pm_session__report(r.s, false);
	assert_string_equal(rep->rows[0].event, "page-faults:u");
	stop(&r);

	/* a PMU that rejects exclude bits gets the permission error itself */
	sim = epyc_sim();
	pm_sim__fail_next_open(sim, "msr", -EACCES);
	{
		static const char *const tsc[] = { "msr/tsc/", NULL };

		assert_int_equal(start(&r, sim, tsc, &system_wide), -EACCES);
		assert_non_null(strstr(r.d.msg, "no permission to count 'msr/tsc/'"));
	}
	stop(&r);
}

/* A PMU that goes away mid-run: the read fails whole, the last good totals stay. */
static void test_device_gone(void **state)
{
	static const char *const specs[] = { "msr/tsc/", "amd_l3/l3_accesses/", NULL };
	const struct pm_report *rep;
	struct run r;

	th_log_clear();
	assert_int_equal(start(&r, epyc_sim(), specs, &system_wide), 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	assert_int_equal(pm_session__lost_count(r.s), 0);
	pm_sim__fail_reads(r.sim, "amd_l3", -ENODEV);
	pm_sim__advance(r.sim, SEC);
	/* amd_l3 went away: the other PMUs go on (issue 12, item 9) */
	assert_int_equal(pm_session__read(r.s), 0);
	assert_true(th_logged("amd_l3 went away"));
	assert_true(th_logged("the rest go on"));
	rep = pm_session__report(r.s, true);
	assert_true(rep->rows[0].value == 128 * 2.25e9);
	assert_false(rep->rows[0].flags & (PM_ROW_LOST | PM_ROW_PARTIAL));
	assert_true(isnan(rep->rows[1].value));
	assert_true(rep->rows[1].flags & PM_ROW_LOST);
	assert_true(rep->rows[1].flags & PM_ROW_PARTIAL);
	assert_int_equal(rep->rows[1].covered, 0);
	assert_int_equal(rep->rows[1].instances, 16);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	/* the session remembers what went away, once, for the caller's exit status */
	assert_int_equal(pm_session__lost_count(r.s), 1);
	assert_string_equal(pm_session__lost_device(r.s, 0), "amd_l3");
	assert_null(pm_session__lost_device(r.s, 1));
	rep = pm_session__report(r.s, false);
	/* msr/tsc/ counted all 3 s; amd_l3's total keeps its first second, marked */
	assert_true(rep->rows[0].value == 3 * 128 * 2.25e9);
	assert_true(rep->rows[1].value == 16 * 5e8);
	assert_true(rep->rows[1].flags & PM_ROW_LOST);
	assert_int_equal(rep->t_ns, 3 * SEC);
	stop(&r);

	/* with nothing left to count, the read fails and names what went */
	assert_int_equal(start(&r, epyc_sim(), specs + 1, &system_wide), 0);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), 0);
	pm_sim__fail_reads(r.sim, "amd_l3", -ENODEV);
	pm_sim__advance(r.sim, SEC);
	assert_int_equal(pm_session__read(r.s), -ENODEV);
	assert_string_equal(pm_session__failed_device(r.s), "amd_l3");
	rep = pm_session__report(r.s, false);
	assert_true(rep->rows[0].value == 16 * 5e8);
	assert_int_equal(rep->t_ns, SEC);
	stop(&r);
}

/*
 * perf stat's generic defaults on a machine without a core PMU (a guest
 * without a virtual PMU): cycles, instructions, branches and branch-misses
 * are <not supported> rows in perf's order, as perf prints them, and the
 * rest count; with leave_out_unsupported_defaults (serve, record) they have
 * no counter and no row, and pm_session__dropped names them.
 */
static void test_defaults_unsupported(void **state)
{
	static const char *const order[] = { "task-clock",  "context-switches", "cpu-migrations",
					     "page-faults", "cycles",		"instructions",
					     "branches",    "branch-misses",	"msr/tsc/" };
	struct pm_session_opts leave_out = system_wide;
	struct pm_sim *sim = epyc_sim();
	struct pm_ctx *ctx = th_ctx_sim(sim);
	const struct pm_report *rep;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;
	char desc[512];

	th_log_clear();
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	/* the generic set: the amdzen2 pack's defaults count the machine, not a command */
	assert_int_equal(pm_evlist__add_defaults(l, false, desc, sizeof(desc), &d), 0);
	assert_true(pm_evlist__count(l) >= PM_ARRAY_SIZE(order));
	for (size_t i = 0; i < PM_ARRAY_SIZE(order); i++)
		assert_string_equal(pm_evlist__name(l, i), order[i]);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_true(th_logged("'cycles' is not supported by this kernel or CPU"));
	assert_int_equal(pm_session__dropped(s, desc, sizeof(desc)), 0);
	assert_string_equal(desc, "");
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->n_rows, pm_evlist__count(l));
	for (size_t i = 0; i < rep->n_rows; i++) {
		bool hw = i >= 4 && i < 8;

		assert_string_equal(rep->rows[i].event, pm_evlist__name(l, i));
		assert_int_equal(rep->rows[i].flags & (PM_ROW_UNSUPPORTED | PM_ROW_NOT_COUNTED),
				 hw ? PM_ROW_UNSUPPORTED | PM_ROW_NOT_COUNTED : 0);
		assert_true(hw ? isnan(rep->rows[i].value) : !isnan(rep->rows[i].value));
	}
	pm_session__free(s);

	th_log_clear();
	leave_out.leave_out_unsupported_defaults = true;
	assert_int_equal(pm_session__new(l, &leave_out, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_true(th_logged("'cycles' is not supported by this kernel or CPU"));
	assert_int_equal(pm_session__dropped(s, desc, sizeof(desc)), 0);
	assert_string_equal(desc, "cycles, instructions, branches, branch-misses");
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->n_rows, pm_evlist__count(l) - 4);
	assert_string_equal(rep->rows[3].event, "page-faults");
	assert_string_equal(rep->rows[4].event, "msr/tsc/");
	for (size_t i = 0; i < rep->n_rows; i++)
		assert_false(rep->rows[i].flags & (PM_ROW_UNSUPPORTED | PM_ROW_NOT_COUNTED));
	pm_session__free(s);

	/* an event asked for keeps its row either way */
	pm_evlist__free(l);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "cycles", &d), 0);
	assert_int_equal(pm_evlist__add(l, "cpu-clock", &d), 0);
	assert_int_equal(pm_session__new(l, &leave_out, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->n_rows, 2);
	assert_true(rep->rows[0].flags & PM_ROW_UNSUPPORTED);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/* perf's -d sets after the events given: the simulated CPU has no cache events, so
 * each is a <not supported> row, in perf's order, and the others count. */
static void test_detailed_sets(void **state)
{
	struct pm_sim *sim = epyc_sim();
	struct pm_ctx *ctx = th_ctx_sim(sim);
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;
	const struct pm_report *rep;

	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add_detailed(l, -1, &d), -EINVAL);
	assert_int_equal(pm_evlist__add_detailed(l, 0, &d), 0);
	assert_int_equal(pm_evlist__count(l), 0);
	assert_int_equal(pm_evlist__add(l, "cpu-clock", &d), 0);
	assert_int_equal(pm_evlist__add_detailed(l, 2, &d), 0);
	assert_int_equal(pm_evlist__count(l), 1 + 4 + 6);
	assert_string_equal(pm_evlist__name(l, 1), "L1-dcache-loads");
	assert_string_equal(pm_evlist__name(l, 4), "LLC-load-misses");
	assert_string_equal(pm_evlist__name(l, 10), "iTLB-load-misses");
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->n_rows, 11);
	assert_false(rep->rows[0].flags & PM_ROW_UNSUPPORTED);
	for (size_t i = 1; i < rep->n_rows; i++)
		assert_true(rep->rows[i].flags & PM_ROW_UNSUPPORTED);
	{
		/* what perf 6.1's stat-shadow.c takes each for: a cache's read accesses
		 * (config 0..4) and read misses; the rows say it although not counted here */
		static const unsigned want[] = {
			PM_SHADOW_CLOCK,      PM_SHADOW_L1D,	     PM_SHADOW_L1D_MISSES,
			PM_SHADOW_LL,	      PM_SHADOW_LL_MISSES,   PM_SHADOW_L1I,
			PM_SHADOW_L1I_MISSES, PM_SHADOW_DTLB,	     PM_SHADOW_DTLB_MISSES,
			PM_SHADOW_ITLB,	      PM_SHADOW_ITLB_MISSES,
		};

		for (size_t i = 0; i < rep->n_rows; i++) {
			assert_int_equal(rep->rows[i].shadow, want[i]);
			assert_int_equal(rep->rows[i].shadow_ctx, 0);
		}
	}
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/* A cgroup's events: opened with its directory as pid (PERF_FLAG_PID_CGROUP) on each CPU,
 * rows naming it; a cgroup not there, or a task target, is refused. */
static void test_cgroup(void **state)
{
	static const struct pm_session_opts task = { .size = sizeof(task),
						     .target = PM_TARGET_TASK,
						     .pid = 1 };
	struct pm_sim *sim = epyc_sim();
	struct pm_ctx *ctx = th_ctx_sim(sim);
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;
	const struct pm_report *rep;

	/* a fixture machine: its cgroup2 mount where a container has it (no mountinfo line:
	 * /sys/fs/cgroup), and one cgroup */
	assert_int_equal(pm_sim__write_file(sim, "sys/fs/cgroup/user.slice/cgroup.procs", ""), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "cpu-clock,page-faults", &d), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 2, "user.slice"), -EINVAL);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, ""), -EINVAL);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "a/../b"), -EINVAL);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "user.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	assert_string_equal(rep->rows[0].cgroup, "user.slice");
	assert_null(rep->rows[1].cgroup);
	th_assert_near(rep->rows[0].value, 128000.0, 1e-6); /* a simulated cgroup: every task */
	pm_session__free(s);
	assert_int_equal(pm_evlist__set_cgroup(l, 1, "nope"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "no cgroup 'nope'"));
	pm_session__free(s);
	assert_int_equal(pm_session__new(l, &task, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), -EINVAL);
	assert_int_equal(d.reason, PM_REASON_SYSTEM_WIDE);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/*
 * A caller built before bpf_counters: its struct ended at allow_none_counted, its size the
 * compiler's (trailing padding included), and bpf_counters lies in that padding, bytes the
 * caller never set. Whatever they hold, its cgroup events count the plain way (a set byte
 * there asked for the BPF path, which the simulator's os refuses).
 */
static void test_cgroup_opts_before_bpf(void **state)
{
	const size_t align = _Alignof(struct pm_session_opts);
	const size_t old = (offsetof(struct pm_session_opts, allow_none_counted) + 1 + align - 1) /
			   align * align;
	struct pm_session_opts o = system_wide;
	struct pm_sim *sim = epyc_sim();
	struct pm_ctx *ctx = th_ctx_sim(sim);
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;

	assert_int_equal(pm_sim__write_file(sim, "sys/fs/cgroup/user.slice/cgroup.procs", ""), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "cpu-clock", &d), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "user.slice"), 0);
	o.size = old;
	memset((char *)&o + offsetof(struct pm_session_opts, allow_none_counted) + 1, 0xff,
	       old - offsetof(struct pm_session_opts, allow_none_counted) - 1);
	assert_int_equal(pm_session__new(l, &o, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/*
 * The simulated kernel's cgroups: a cgroup's tasks run the share of the time its sim.share
 * says, and its events' count and times read that share; an idle one is not counted. A
 * group takes one cgroup (the kernel refuses a member of another with EINVAL, and counts a
 * member without one while its leader's cgroup runs): software events read together
 * (sched.c batch_reads) are grouped only with events of their own cgroup.
 */
static void test_cgroup_share(void **state)
{
	struct pm_sim *sim = epyc_sim();
	struct pm_ctx *ctx = th_ctx_sim(sim);
	const struct pm_report *rep;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;

	assert_int_equal(pm_sim__write_file(sim, "sys/fs/cgroup/half/sim.share", "0.5\n"), 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/fs/cgroup/idle/sim.share", "0\n"), 0);
	assert_int_equal(pm_sim__write_file(sim, "sys/fs/cgroup/bad/sim.share", "2\n"), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "cpu-clock,cpu-clock,cpu-clock,cpu-clock", &d), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "half"), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 2, "idle"), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 3, "half"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	th_assert_near(rep->rows[0].value, 64000.0, 1e-6);
	/* not read with the counters of cgroup half before it: the whole machine's */
	th_assert_near(rep->rows[1].value, 128000.0, 1e-6);
	assert_true(rep->rows[2].flags & PM_ROW_NOT_COUNTED);
	th_assert_near(rep->rows[3].value, 64000.0, 1e-6);
	pm_session__free(s);
	assert_int_equal(pm_evlist__set_cgroup(l, 2, "bad"), 0); /* a share past 1 */
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), -EINVAL);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/*
 * A stale cgroup clock (docs/kernel-facts.md, "A cgroup's clock after an idle spell"):
 * the kernel adds the 5 s since the cgroup was last counted on CPU 0 to the times of the
 * event enabled first there, at its first read. The counters are based on a reading
 * right after the enable, so the first interval and the totals have the 2 x 1 s the two
 * CPUs counted, as the next intervals do; a re-enable after an idle spell the same.
 */
static void test_cgroup_stale_clock(void **state)
{
	static const struct pm_session_opts two = { .size = sizeof(two),
						    .target = PM_TARGET_CPUS,
						    .cpus = "0,1" };
	static const char *const root[] = { "/" };
	struct pm_sim *sim = th_sim_platform("amdzen2");
	struct pm_ctx *ctx = th_ctx_sim(sim);
	const struct pm_report *rep;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;

	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "cpu-clock", &d), 0);
	assert_int_equal(pm_evlist__expand_cgroups(l, root, 1), 0);
	assert_int_equal(pm_session__new(l, &two, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	pm_sim__cgroup_clock_stale(sim, 0, 5 * SEC, true);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	for (int interval = 0; interval < 2; interval++) {
		rep = pm_session__report(s, interval);
		assert_int_equal(rep->rows[0].enabled_sum_ns, 2 * SEC);
		assert_int_equal(rep->rows[0].running_sum_ns, 2 * SEC);
		th_assert_near(rep->rows[0].value, 2000.0, 1e-6); /* ms */
	}
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, true);
	assert_int_equal(rep->rows[0].enabled_sum_ns, 2 * SEC);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->rows[0].enabled_sum_ns, 4 * SEC);
	/* stopped for 3 s, then started again: the kernel's clock has the spell again, on
	 * CPU 1 not marked active (no read brings it up to date: the dummy's install does) */
	assert_int_equal(pm_session__disable(s), 0);
	pm_sim__advance(sim, 3 * SEC);
	pm_sim__cgroup_clock_stale(sim, 1, 3 * SEC, false);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, true);
	assert_int_equal(rep->rows[0].enabled_sum_ns, 2 * SEC);
	assert_int_equal(rep->rows[0].running_sum_ns, 2 * SEC);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->rows[0].enabled_sum_ns, 6 * SEC);
	th_assert_near(rep->rows[0].value, 6000.0, 1e-6);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/*
 * The same with the root cgroup's cycles multiplexed, 8 on the 6 counters of CPU 0: the
 * event enabled first would read its raw count times (ena + 5 s) / (run + 5 s), about
 * 1.25e9 of the 1.6e9 cycles (its running share near 100 %); each reads the truth.
 */
static void test_cgroup_stale_clock_multiplexed(void **state)
{
	static const struct pm_session_opts cpu0 = { .size = sizeof(cpu0),
						     .target = PM_TARGET_CPUS,
						     .cpus = "0" };
	static const char *const root[] = { "/" };
	struct pm_sim *sim = th_sim_platform("amdzen2");
	struct pm_ctx *ctx = th_ctx_sim(sim);
	const struct pm_report *rep;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;

	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l,
					"cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles",
					&d),
			 0);
	assert_int_equal(pm_evlist__expand_cgroups(l, root, 1), 0);
	assert_int_equal(pm_session__new(l, &cpu0, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	pm_sim__cgroup_clock_stale(sim, 0, 5 * SEC, true);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	assert_int_equal(rep->n_rows, 8);
	for (size_t i = 0; i < rep->n_rows; i++) {
		assert_true(rep->rows[i].flags & PM_ROW_MULTIPLEXED);
		assert_int_equal(rep->rows[i].enabled_ns, SEC);
		th_assert_near(rep->rows[i].value, 1.6e9, 1e-6);
	}
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/* The row of an event (or metric) in a cgroup. */
static const struct pm_row *in_cgroup(const struct pm_report *rep, const char *event,
				      const char *cgroup)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, event) && rep->rows[i].cgroup &&
		    !strcmp(rep->rows[i].cgroup, cgroup))
			return &rep->rows[i];
	fail_msg("no row of %s in cgroup %s", event, cgroup);
	return NULL;
}

/*
 * --for-each-cgroup (pm_evlist__expand_cgroups): every event, group and metric once per
 * cgroup, in perf's order, each metric computed from its own cgroup's events (the
 * simulated cgroups run a share of the time: user.slice 1/4, system.slice 1/2, the root
 * all of it); an idle cgroup's rows are not counted, as perf's.
 */
static void test_for_each_cgroup(void **state)
{
	static const char *const cg[] = { "user.slice", "system.slice", "/", "idle" };
	static const double share[] = { 0.25, 0.5, 1 };
	struct pm_sim *sim = th_sim_platform("amdzen2");
	struct pm_ctx *ctx = th_ctx_sim(sim);
	const char *bad[] = { "user.slice", "" }, *dots[] = { "a/../b" };
	const struct pm_report *rep;
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;
	size_t n_ev;

	assert_int_equal(pm_sim__write_file(sim, "sys/fs/cgroup/idle/sim.share", "0\n"), 0);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "{cpu-clock,page-faults}", &d), 0);
	assert_int_equal(pm_evlist__add_metrics(l, "CPI", &d), 0); /* a metric of metrics */
	n_ev = pm_evlist__count(l);
	assert_int_equal(pm_evlist__expand_cgroups(l, bad, 2), -EINVAL);
	assert_int_equal(pm_evlist__expand_cgroups(l, dots, 1), -EINVAL);
	assert_int_equal(pm_evlist__expand_cgroups(l, cg, 0), -EINVAL);
	assert_int_equal(pm_evlist__count(l), n_ev); /* the list as it was */
	assert_int_equal(pm_evlist__expand_cgroups(l, cg, 4), 0);
	assert_int_equal(pm_evlist__count(l), 4 * n_ev);
	/* perf's order: every event for the first cgroup, then for the next */
	for (size_t i = 0; i < 4 * n_ev; i++)
		assert_string_equal(pm_evlist__name(l, i), pm_evlist__name(l, i % n_ev));
	/* once only: its events are in cgroups now (perf: not with -G either) */
	assert_int_equal(pm_evlist__expand_cgroups(l, cg, 1), -EINVAL);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	assert_int_equal(pm_session__open(s, &d), 0);
	assert_int_equal(pm_session__enable(s), 0);
	pm_sim__advance(sim, SEC);
	assert_int_equal(pm_session__read(s), 0);
	rep = pm_session__report(s, false);
	for (size_t c = 0; c < 3; c++) {
		const struct pm_row *clock = in_cgroup(rep, "cpu-clock", cg[c]);
		const struct pm_row *insn = in_cgroup(rep, "InstructionRetired", cg[c]);

		th_assert_near(clock->value, 128000.0 * share[c], 1e-6);
		assert_true(insn->flags & PM_ROW_METRIC);
		/* the metric took its own cgroup's events: a quarter, a half, all */
		th_assert_rel(insn->value,
			      in_cgroup(rep, "InstructionRetired", "/")->value * share[c], 1e-9);
		th_assert_rel(in_cgroup(rep, "CPI", cg[c])->value,
			      in_cgroup(rep, "CPI", "/")->value, 1e-9);
	}
	assert_true(in_cgroup(rep, "cpu-clock", "idle")->flags & PM_ROW_NOT_COUNTED);
	assert_true(in_cgroup(rep, "CPI", "idle")->flags & PM_ROW_NOT_COUNTED);
	for (size_t i = 0; i < rep->n_rows; i++)
		assert_non_null(rep->rows[i].cgroup); /* every row names its cgroup */
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

/* A source that reads registers counts whatever runs, an uncore PMU its whole die: their
 * events are refused in a cgroup rather than shown under a cgroup's name; a group's
 * events share one cgroup. */
static void test_cgroup_register_source(void **state)
{
	static const struct pm_session_opts msr = { .size = sizeof(msr),
						    .target = PM_TARGET_SYSTEM,
						    .source = PM_SOURCE_MSR };
	struct pm_ctx *ctx = th_ctx_sim(th_sim_platform("amdzen2"));
	struct pm_evlist *l;
	struct pm_session *s;
	struct pm_diag d;

	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "amd_l3/l3_accesses/", &d), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "user.slice"), 0);
	assert_int_equal(pm_session__new(l, &msr, &s, &d), -EOPNOTSUPP);
	assert_non_null(strstr(d.msg, "read through the msr source"));
	assert_non_null(strstr(d.msg, "cgroup 'user.slice'"));
	/* through the kernel's PMU too: an uncore PMU counts its whole die, whoever runs */
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), -EOPNOTSUPP);
	assert_non_null(
		strstr(d.msg,
		       "a PMU shared by several CPUs (its cpumask): in cgroup 'user.slice'"));
	pm_evlist__free(l);
	/* a core event through the kernel's PMU counts in the cgroup */
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "cycles", &d), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "user.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	pm_session__free(s);
	pm_evlist__free(l);
	/* a group counts in one cgroup: a member of another, or of none, is refused */
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add(l, "{cpu-clock,page-faults}", &d), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "user.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "'page-faults' (no cgroup) are in one group"));
	assert_int_equal(pm_evlist__set_cgroup(l, 1, "system.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), -EINVAL);
	assert_int_equal(pm_evlist__set_cgroup(l, 1, "user.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	pm_session__free(s);
	pm_evlist__free(l);
	/* a metric's inputs in two cgroups (-G A,B): its value would be neither's */
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	assert_int_equal(pm_evlist__add_metrics(l, "CPI", &d), 0);
	assert_int_equal(pm_evlist__count(l), 2);
	assert_int_equal(pm_evlist__set_cgroup(l, 0, "system.slice"), 0);
	assert_int_equal(pm_evlist__set_cgroup(l, 1, "user.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "metric 'CPI' would mix cgroups"));
	assert_int_equal(pm_evlist__set_cgroup(l, 1, "system.slice"), 0);
	assert_int_equal(pm_session__new(l, &system_wide, &s, &d), 0);
	pm_session__free(s);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uncore_exact),
		cmocka_unit_test(test_reset_on_open_model),
		cmocka_unit_test(test_multiplexed_df),
		cmocka_unit_test(test_group_read),
		cmocka_unit_test(test_group_read_multiplexed),
		cmocka_unit_test(test_auto_group_split),
		cmocka_unit_test(test_not_counted),
		cmocka_unit_test(test_aggregation),
		cmocka_unit_test(test_intervals_add_up),
		cmocka_unit_test(test_snapshot_and_per_pkg),
		cmocka_unit_test(test_task_mode),
		cmocka_unit_test(test_target_errors),
		cmocka_unit_test(test_task_uncore),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_paranoid_user_only_fallback),
		cmocka_unit_test(test_device_gone),
		cmocka_unit_test(test_defaults_unsupported),
		cmocka_unit_test(test_detailed_sets),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_cgroup_opts_before_bpf),
		cmocka_unit_test(test_cgroup_share),
		cmocka_unit_test(test_cgroup_stale_clock),
		cmocka_unit_test(test_cgroup_stale_clock_multiplexed),
		cmocka_unit_test(test_cgroup_register_source),
		cmocka_unit_test(test_for_each_cgroup),
		cmocka_unit_test(test_aggr_core_node_cache),
		cmocka_unit_test(test_aggr_missing_topology),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
