// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calibration of the 95 % intervals (docs/bounds.md), on the simulator:
 * for each platform and source that multiplexes or rotates, workloads
 * whose rates change faster than the rotation and slower (bursts, ramps),
 * the rapidly changing DRAM traffic and steady traffic, 200
 * intervals of 1 s each with fixed seeds. The truth is the same scenario
 * counted without multiplexing: the events in groups that fit the counters,
 * each run exact. Every multiplexed row must carry a measured interval, the
 * truth must lie inside it in at least 92 % of the intervals of each case
 * (a calibrated 95 % interval falls short of 95 % by chance; the figures
 * are printed), and the intervals must not be absurdly wide (median
 * half-width at most 10 %). The msr source's mean error on the rapidly
 * changing traffic must be at most 3 %, and never worse than scaling on
 * steady traffic. Merrifield's sideband source does not rotate: its values
 * are exact, and so are their intervals.
 *
 * The table this prints is docs/bounds.md's (bench/bounds.py runs it).
 */
#include "helpers.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define SEC 1000000000ull
#define MS 1000000ull
#define N_IV 200
#define MAX_EV 20
#define MAX_Q 8

/* A scenario quantity the workload moves, around its base rate. */
struct moved {
	const char *key;
	int inst;
	double base;
};

struct platform {
	const char *name;
	const char *spec;
	enum pm_source_choice source;
	const char *const *events; /* NULL-terminated */
	size_t fit;		   /* how many fit the counters at once: the truth's groups */
	size_t varying;		   /* the first ones follow the workload; the rest count steadily */
	const struct moved *moved; /* NULL-terminated by key */
	const char *fixed;	   /* scenario lines before the phases */
};

enum shape { STEADY, RAPID, BURST, RAMP };

struct workload {
	const char *name;
	enum shape shape;
	double tau; /* the time scale of change, ms (RAPID: 50 to 400 ms) */
};

/*
 * The same traffic for every source: faster than every rotation (the
 * kernel's 4 ms ticks, msr's 25 ms phases, hwmon's), and slower than all.
 */
static const struct workload workloads[] = {
	{ "steady", STEADY, 0 },	  { "rapid (50-400 ms)", RAPID, 0 },
	{ "bursts of 1-3 ms", BURST, 2 }, { "bursts of 0.25-0.75 s", BURST, 500 },
	{ "ramps of 5-15 ms", RAMP, 10 }, { "ramps of 1-3 s", RAMP, 2000 },
};

/* ---- workloads ------------------------------------------------------------------ */

static uint64_t rng = 42;

static double uniform(double a, double b)
{
	/* xorshift64*: the same scenarios on every run */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return a + (b - a) * (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

struct text {
	char *p;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + 4096;
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	t->len += (size_t)n;
}

static void phase(struct text *t, double ms, const struct moved *q, const double *level)
{
	put(t, "phase p %.0fus\n", ms * 1000);
	for (size_t i = 0; q[i].key; i++)
		put(t, "  %s[%d] %.6g\n", q[i].key, q[i].inst, q[i].base * level[i]);
}

/*
 * The scenario text: a cycle of phases that repeats (at most 9000 phases,
 * under the simulator's 10000; slow ones do not repeat within the run).
 * Bursts: each phase lasts 0.5 to 1.5 tau, and each quantity bursts to 2-4
 * times its base with odds 0.35, else idles at 0.25-0.75. Ramps: each
 * quantity goes in straight lines between levels of 0.5 to 3 times its
 * base, one every 0.5 to 1.5 tau, in steps of 0.75 to 1.25 tau / 8 (at
 * least 1 ms).
 * Rapid: every 50 to 400 ms, levels of 0.15 to 3 times the base, as the
 * issue measured (HEAD 2a2826b: 5.97 % mean error through msr).
 */
static char *scenario(const struct platform *p, const struct workload *w, uint64_t seed)
{
	struct text t = { 0 };
	double level[MAX_Q], from[MAX_Q], to[MAX_Q], left[MAX_Q], span[MAX_Q], total = 0;
	double end = (N_IV + 2) * 1000.0;
	size_t n_q = 0;
	int phases = 0;

	rng = seed;
	while (p->moved[n_q].key)
		n_q++;
	put(&t, "seed %llu\n%s", (unsigned long long)seed, p->fixed ? p->fixed : "");
	for (size_t i = 0; i < n_q; i++)
		put(&t, "%s[%d] %.6g\n", p->moved[i].key, p->moved[i].inst, p->moved[i].base);
	if (w->shape == STEADY)
		return t.p;
	for (size_t i = 0; i < n_q; i++) {
		from[i] = to[i] = uniform(0.5, 3);
		left[i] = span[i] = 0;
	}
	while (total < end && phases < 9000) {
		double ms;

		if (w->shape == RAPID) {
			ms = floor(uniform(50, 400));
			for (size_t i = 0; i < n_q; i++)
				level[i] = uniform(0.15, 3);
		} else if (w->shape == BURST) {
			ms = fmax(0.2, uniform(0.5, 1.5) * w->tau);
			for (size_t i = 0; i < n_q; i++)
				level[i] = uniform(0, 1) < 0.35 ? uniform(2, 4) :
								  uniform(0.25, 0.75);
		} else {
			/* steps that keep clear of any rotation's rhythm */
			ms = fmax(1, uniform(0.75, 1.25) * w->tau / 8);
			for (size_t i = 0; i < n_q; i++) {
				if (left[i] <= 0) {
					from[i] = to[i];
					to[i] = uniform(0.5, 3);
					left[i] = span[i] = uniform(0.5, 1.5) * w->tau;
				}
				/* the line's value in the middle of this step */
				level[i] = to[i] +
					   (from[i] - to[i]) * fmax(0, left[i] - ms / 2) / span[i];
				left[i] -= ms;
			}
		}
		phase(&t, ms, p->moved, level);
		total += round(ms * 1000) / 1000;
		phases++;
	}
	if (total < end)
		put(&t, "repeat\n");
	return t.p;
}

/* ---- runs ----------------------------------------------------------------------- */

struct sample {
	double value, lo, hi, scaled;
	unsigned bound, flags;
};

static const struct pm_row *find(const struct pm_report *rep, const char *event)
{
	for (size_t i = 0; i < rep->n_rows; i++)
		if (!strcmp(rep->rows[i].event, event))
			return &rep->rows[i];
	fail_msg("no row %s", event);
	return NULL;
}

/* Count events [first, first + n) over N_IV intervals of 1 s: out[iv][first + e]. */
static void count(const struct platform *p, const char *text, size_t first, size_t n,
		  struct sample (*out)[MAX_EV])
{
	const char *specs[MAX_EV + 1] = { 0 };
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .source = p->source };
	struct th_run r;

	for (size_t e = 0; e < n; e++)
		specs[e] = p->events[first + e];
	if (th_start_opts(&r, th_sim_platform_with(p->spec, text), specs, NULL, &o) < 0)
		fail_msg("%s: %s", p->name, r.d.msg);
	for (int iv = 0; iv < N_IV; iv++) {
		const struct pm_report *rep;

		th_run_until(&r, pm_sim__now(r.sim) + SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		for (size_t e = 0; e < n; e++) {
			const struct pm_row *w = find(rep, specs[e]);

			out[iv][first + e] = (struct sample){
				.value = w->value,
				.lo = w->lo,
				.hi = w->hi,
				.bound = w->bound,
				.flags = w->flags,
				/* perf's scaling of the same counts: what the value was before */
				.scaled = w->running_ns ? (double)w->raw * ((double)w->enabled_ns /
									    (double)w->running_ns) :
							  NAN,
			};
		}
	}
	th_stop(&r);
}

struct figures {
	size_t n, covered;
	double median_half, mean_err, max_err, mean_err_scaled;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void calibrate(const struct platform *p, const struct workload *w, struct figures *ret)
{
	static struct sample mux[N_IV][MAX_EV], truth[N_IV][MAX_EV];
	static double half[N_IV * MAX_EV];
	size_t n_ev = 0;
	char *text = scenario(p, w, 1000 + (uint64_t)(w - workloads));
	double err = 0, err_scaled = 0, max_err = 0;

	while (p->events[n_ev])
		n_ev++;
	count(p, text, 0, n_ev, mux);
	for (size_t first = 0; first < n_ev; first += p->fit)
		count(p, text, first, PM_MIN(p->fit, n_ev - first), truth);
	free(text);
	*ret = (struct figures){ 0 };
	for (int iv = 0; iv < N_IV; iv++) {
		for (size_t e = 0; e < n_ev; e++) {
			const struct sample *m = &mux[iv][e], *t = &truth[iv][e];
			double rel;

			/* the truth's runs fit the counters: exact, with intervals to match */
			if (t->bound != PM_BOUND_EXACT || t->flags & PM_ROW_MULTIPLEXED ||
			    !(t->lo == t->value && t->hi == t->value))
				fail_msg("%s: %s, %s, interval %d: the truth is not exact", p->name,
					 w->name, p->events[e], iv);
			/* every estimate carries its interval */
			if (!(m->flags & PM_ROW_MULTIPLEXED) || m->bound != PM_BOUND_MEASURED ||
			    !(m->lo <= m->value && m->value <= m->hi))
				fail_msg("%s: %s, %s, interval %d: %s, bound %s, %g <= %g <= %g",
					 p->name, w->name, p->events[e], iv,
					 m->flags & PM_ROW_MULTIPLEXED ? "multiplexed" :
									 "not multiplexed",
					 pm_row_bound_name(m->bound), m->lo, m->value, m->hi);
			if (e >= p->varying)
				continue; /* steady counts: estimated exactly, nothing to learn */
			rel = fabs(m->value - t->value) / t->value;
			err += rel;
			max_err = fmax(max_err, rel);
			err_scaled += fabs(m->scaled - t->value) / t->value;
			ret->covered += m->lo <= t->value && t->value <= m->hi;

			half[ret->n++] = (m->hi - m->lo) / 2 / m->value;
		}
	}
	qsort(half, ret->n, sizeof(*half), cmp_double);
	ret->median_half = half[ret->n / 2];
	ret->mean_err = err / (double)ret->n;
	ret->max_err = max_err;
	ret->mean_err_scaled = err_scaled / (double)ret->n;
}

/* ---- the platforms --------------------------------------------------------------- */

static const char *const yitian20[] = {
	/* the workload moves these 8: reads, writes, read-modify-writes, power-downs */
	"ali_drw_21000/hif_rd/",
	"ali_drw_21000/hif_wr/",
	"ali_drw_21000/hif_rmw/",
	"ali_drw_21000/hif_rd_or_wr/",
	"ali_drw_21000/op_is_enter_powerdown_rk0/",
	"ali_drw_21000/op_is_enter_powerdown_rk1/",
	"ali_drw_21000/op_is_enter_powerdown_rk2/",
	"ali_drw_21000/op_is_enter_powerdown_rk3/",
	/* these count at the model's steady background rates */
	"ali_drw_21000/dfi_wr_data_cycles/",
	"ali_drw_21000/dfi_rd_data_cycles/",
	"ali_drw_21000/hpr_xact_when_critical/",
	"ali_drw_21000/lpr_xact_when_critical/",
	"ali_drw_21000/wr_xact_when_critical/",
	"ali_drw_21000/op_is_activate/",
	"ali_drw_21000/op_is_rd_or_wr/",
	"ali_drw_21000/op_is_rd_activate/",
	"ali_drw_21000/op_is_rd/",
	"ali_drw_21000/op_is_wr/",
	"ali_drw_21000/op_is_mwr/",
	"ali_drw_21000/op_is_precharge/",
	NULL,
};

static const struct moved yitian_moved[] = {
	{ "ddr.read", 0, 4e9 }, { "ddr.write", 0, 2e9 },
	{ "ddr.rmw", 0, 1e8 },	{ "ddr.powerdown_entries", 0, 40000 },
	{ NULL, 0, 0 },
};

static const struct moved df_moved[] = {
	{ "dram.read", 0, 4e9 }, { "dram.read", 1, 4e9 }, { "dram.read", 2, 4e9 },
	{ "dram.read", 3, 4e9 }, { "dram.read", 4, 4e9 }, { "dram.read", 5, 4e9 },
	{ "dram.read", 6, 4e9 }, { "dram.read", 7, 4e9 }, { NULL, 0, 0 },
};

static const char *const tile8[] = {
	"bfperf/tile0/HNF_REQUESTS/", "bfperf/tile0/MEMORY_READS/", "bfperf/tile0/MEMORY_WRITES/",
	"bfperf/tile0/A72_READ/",     "bfperf/tile0/A72_WRITE/",    "bfperf/tile0/IO_READ/",
	"bfperf/tile0/IO_WRITE/",     "bfperf/tile0/A72_ACCESS/",   NULL,
};

static const struct moved tile_moved[] = {
	{ "tile.requests", 0, 5e7 },	 { "tile.mem_reads", 0, 2e7 },
	{ "tile.mem_writes", 0, 1e7 },	 { "tile.a72_reads", 0, 3e7 },
	{ "tile.a72_writes", 0, 1.5e7 }, { "tile.io_reads", 0, 4e6 },
	{ "tile.io_writes", 0, 4e6 },	 { NULL, 0, 0 },
};

static const struct platform platforms[] = {
	/* the kernel rotates by one group every 4 ms: an event is off 16 ms in 80 */
	{ "Yitian 710, 20 events on 16 counters (perf)", "yitian710", PM_SOURCE_PERF, yitian20, 16,
	  8, yitian_moved, NULL },
	/* 8 channels on 4 counters: on 16 ms, off 16 ms */
	{ "EPYC DF, 8 channels on 4 counters (perf)", "amdzen2", PM_SOURCE_PERF, th_df8, 4, 8,
	  df_moved, "dram.write 5e8\n" },
	/* pmumon rotates them in phases of 25 ms: on one, off the next */
	{ "EPYC DF, 8 channels on 4 counters (msr)", "amdzen2", PM_SOURCE_MSR, th_df8, 4, 8,
	  df_moved, "dram.write 5e8\n" },
	/* a tile's 4 counters, rotated by pmumon (hwmon) */
	{ "BlueField-2 tile, 8 events on 4 counters (hwmon)", "bluefield2", PM_SOURCE_AUTO, tile8,
	  4, 8, tile_moved, NULL },
};

static void test_calibration(void **state)
{
	bool ok = true;

	print_message("| platform, source | workload | intervals x events | coverage | "
		      "median half-width | mean error | max error | mean error, scaled |\n"
		      "|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < PM_ARRAY_SIZE(platforms); i++) {
		const struct platform *p = &platforms[i];

		for (size_t k = 0; k < PM_ARRAY_SIZE(workloads); k++) {
			const struct workload *w = &workloads[k];
			struct figures f;
			double coverage;

			calibrate(p, w, &f);
			coverage = (double)f.covered / (double)f.n;
			print_message("| %s | %s | %zu | %.1f %% | %.2f %% | %.2f %% | %.1f %% | "
				      "%.2f %% |\n",
				      p->name, w->name, f.n, 100 * coverage, 100 * f.median_half,
				      100 * f.mean_err, 100 * f.max_err, 100 * f.mean_err_scaled);
			if (w->shape == STEADY) /* nothing unseen changes: nearly exact */
				ok &= f.mean_err <= 1e-6 && f.median_half <= 1e-3;
			else
				ok &= coverage >= 0.92 && f.median_half <= 0.10;
			if (p->source == PM_SOURCE_MSR && w->shape == RAPID)
				ok &= f.mean_err <= 0.03;
			/* never worse than scaling where pmumon rotates */
			if (p->source == PM_SOURCE_MSR && w->shape == STEADY)
				ok &= f.mean_err <= f.mean_err_scaled + 1e-9;
		}
	}
	assert_true(ok);
}

/*
 * Merrifield's SoC counters are one per event: the sideband source never
 * rotates them, and under bursts every value and every interval is exact.
 */
static void test_merrifield_exact(void **state)
{
	static const struct moved mf_moved[] = {
		{ "ddr.read", 0, 6e8 },	 { "ddr.read", 1, 6e8 }, { "ddr.write", 0, 3e8 },
		{ "ddr.write", 1, 3e8 }, { NULL, 0, 0 },
	};
	static const struct platform mf = { "Merrifield", "merrifield", PM_SOURCE_AUTO, NULL, 0, 0,
					    mf_moved,	  NULL };
	char *program = NULL, *text = scenario(&mf, &workloads[3], 7);
	struct pm_session_opts o = { .size = sizeof(o),
				     .target = PM_TARGET_SYSTEM,
				     .program = NULL,
				     .program_name = "test.list" };
	size_t rows = 0;
	struct th_run r;

	assert_int_equal(pm_sim__sideband_program("merrifield", &program), 0);
	o.program = program;
	o.program_len = strlen(program);
	assert_int_equal(th_start_opts(&r, th_sim_platform_with("merrifield", text), NULL,
				       "UNC_SOC_Memory_DDR_BW", &o),
			 0);
	for (int iv = 0; iv < 20; iv++) {
		const struct pm_report *rep;

		th_run_until(&r, pm_sim__now(r.sim) + SEC);
		assert_int_equal(pm_session__read(r.s), 0);
		rep = pm_session__report(r.s, true);
		for (size_t i = 0; i < rep->n_rows; i++, rows++) {
			const struct pm_row *w = &rep->rows[i];

			assert_false(w->flags & PM_ROW_MULTIPLEXED);
			assert_int_equal(w->bound, PM_BOUND_EXACT);
			assert_true(w->lo == w->value && w->hi == w->value);
		}
	}
	print_message("| Merrifield SoC counters (sideband) | bursts | %zu rows | does not rotate: "
		      "every value exact, lo = hi = value |\n",
		      rows);
	assert_true(rows >= 20);
	th_stop(&r);
	free(text);
	free(program);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_merrifield_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
