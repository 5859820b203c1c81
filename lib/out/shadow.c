// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf stat's comment column ("#    1.50  insn per cycle"): a value perf
 * 6.1 computes for an event row from the other rows of its aggregation
 * bucket (tools/perf/util/stat-shadow.c, perf_stat__print_shadow_stats;
 * docs/output.md lists which comments and where pmumon differs). Each
 * formula, threshold and printf format is perf's; an input that was not
 * counted is absent, so its comment is too (never a ratio of a zero
 * stand-in).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "out/out.h"

/* An input's mean over the bucket's rows of that kind (perf's runtime_stat_avg and _n). */
struct input {
	double mean;
	unsigned n;
};

static bool counted(const struct pm_row *row)
{
	return !(row->flags & PM_ROW_NOT_COUNTED) && isfinite(row->value);
}

/* A clock row's nanoseconds: perf's clocks count ns, shown in msec; other units: none. */
static bool clock_ns(const struct pm_row *row, double *ret_ns)
{
	if (!strcmp(row->unit, "msec"))
		*ret_ns = row->value * 1e6;
	else if (!row->unit[0] || !strcmp(row->unit, "ns"))
		*ret_ns = row->value;
	else
		return false;
	return true;
}

/*
 * The bucket's counted rows of kind (with ctx's exclude bits, except the
 * clocks: perf's saved_value_lookup keys STAT_NSECS without them), averaged.
 */
static struct input input_of(const struct pm_row *rows, const size_t *group, size_t n,
			     unsigned kind, unsigned ctx)
{
	struct input in = { 0, 0 };

	for (size_t k = 0; k < n; k++) {
		const struct pm_row *r = &rows[group[k]];
		double v = r->value;

		if (r->shadow != kind || !counted(r) ||
		    (kind != PM_SHADOW_CLOCK && r->shadow_ctx != ctx))
			continue;
		if (kind == PM_SHADOW_CLOCK && !clock_ns(r, &v))
			continue;
		in.n++;
		in.mean += (v - in.mean) / in.n; /* perf's update_stats mean */
	}
	return in;
}

/* perf's convert_unit_double (tools/perf/util/units.c) */
static double convert_unit(double v, char *unit)
{
	static const char units[] = "KMG";

	*unit = ' ';
	for (int i = 0; i < 3 && v > 1000.0; i++) {
		v /= 1000.0;
		*unit = units[i];
	}
	return v;
}

/* perf's print_metric_std: the value (n characters of buf, in perf's format), a blank, the unit */
static size_t put(char *buf, size_t size, int n, const char *unit)
{
	if (n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %s", unit);
	if (n < 0 || (size_t)n >= size) { /* does not fit: none rather than a cut one */
		buf[0] = '\0';
		return 0;
	}
	return (size_t)n;
}

/* A miss ratio over the bucket's total of kind (perf's print_*_misses), in "%7.2f%%". */
static size_t miss_ratio(const struct pm_row *rows, const size_t *group, size_t n,
			 const struct pm_row *row, unsigned total_kind, const char *what, char *buf,
			 size_t size)
{
	struct input t = input_of(rows, group, n, total_kind, row->shadow_ctx);

	if (!t.n)
		return 0;
	return put(buf, size,
		   snprintf(buf, size, "%7.2f%%", t.mean ? row->value / t.mean * 100.0 : 0.0),
		   what);
}

/* The miss ratios: a miss kind, the total it is a share of, perf's words. */
static const struct {
	unsigned miss, total;
	const char *what;
} misses[] = {
	{ PM_SHADOW_BRANCH_MISSES, PM_SHADOW_BRANCHES, "of all branches" },
	{ PM_SHADOW_L1D_MISSES, PM_SHADOW_L1D, "of all L1-dcache accesses" },
	{ PM_SHADOW_L1I_MISSES, PM_SHADOW_L1I, "of all L1-icache accesses" },
	{ PM_SHADOW_DTLB_MISSES, PM_SHADOW_DTLB, "of all dTLB cache accesses" },
	{ PM_SHADOW_ITLB_MISSES, PM_SHADOW_ITLB, "of all iTLB cache accesses" },
	{ PM_SHADOW_LL_MISSES, PM_SHADOW_LL, "of all LL-cache accesses" },
};

size_t pm_out__shadow(const struct pm_row *rows, const size_t *group, size_t n, size_t i,
		      double wall_ns, char *buf, size_t size)
{
	const struct pm_row *row = &rows[i];
	unsigned ctx = row->shadow_ctx;
	struct input t;
	double ns;

	buf[0] = '\0';
	if (!row->shadow || !counted(row) || row->flags & PM_ROW_METRIC)
		return 0;
	for (size_t k = 0; k < sizeof(misses) / sizeof(misses[0]); k++)
		if (row->shadow == misses[k].miss)
			return miss_ratio(rows, group, n, row, misses[k].total, misses[k].what, buf,
					  size);
	switch (row->shadow) {
	case PM_SHADOW_INSTRUCTIONS:
		t = input_of(rows, group, n, PM_SHADOW_CYCLES, ctx);
		return t.mean ? put(buf, size, snprintf(buf, size, "%7.2f ", row->value / t.mean),
				    "insn per cycle") :
				0;
	case PM_SHADOW_CACHE_MISSES:
		t = input_of(rows, group, n, PM_SHADOW_CACHE_REFS, ctx);
		if (!t.n)
			return 0;
		return put(buf, size,
			   snprintf(buf, size, "%8.3f %%",
				    t.mean ? row->value * 100 / t.mean : 0.0),
			   "of all cache refs");
	case PM_SHADOW_STALLED_FRONTEND:
	case PM_SHADOW_STALLED_BACKEND: {
		bool fe = row->shadow == PM_SHADOW_STALLED_FRONTEND;
		double ratio;

		t = input_of(rows, group, n, PM_SHADOW_CYCLES, ctx);
		if (!t.mean) /* perf: 0.00% backend cycles idle without cycles; pmumon: none */
			return 0;
		ratio = row->value / t.mean * 100.0;
		if (fe && !ratio) /* perf prints the frontend's only when it is not 0 */
			return 0;
		return put(buf, size, snprintf(buf, size, "%7.2f%%", ratio),
			   fe ? "frontend cycles idle" : "backend cycles idle");
	}
	case PM_SHADOW_CYCLES:
		t = input_of(rows, group, n, PM_SHADOW_CLOCK, 0);
		return t.mean ? put(buf, size, snprintf(buf, size, "%8.3f", row->value / t.mean),
				    "GHz") :
				0;
	case PM_SHADOW_CLOCK:
		if (!(wall_ns > 0) || !clock_ns(row, &ns))
			return 0;
		return put(buf, size, snprintf(buf, size, "%8.3f", ns / wall_ns), "CPUs utilized");
	default: { /* any other event: its rate per second of the bucket's clock */
		char unit, text[8] = "/sec";
		double rate = 0;

		t = input_of(rows, group, n, PM_SHADOW_CLOCK, 0);
		if (!t.n)
			return 0;
		if (t.mean)
			rate = convert_unit(1e9 * row->value / t.mean, &unit);
		if (t.mean && unit != ' ')
			snprintf(text, sizeof(text), "%c/sec", unit);
		return put(buf, size, snprintf(buf, size, "%8.3f", rate), text);
	}
	}
}
