/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's metric expressions (MetricExpr), compiled once into a program
 * over numbered slots and evaluated without allocating.
 *
 * The grammar is tools/perf/util/expr.y and expr.l as of Linux 6.1 and
 * later (docs/facts-metrics.md): numbers with exponents; + - * / %; | & ^
 * on integers; < >; unary minus; parentheses; `a if c else b`; min, max,
 * d_ratio; source_count, has_event and strcmp_cpuid_str of a name;
 * `#`-literals (#slots, #smt_on, #num_dies, #system_tsc_freq); names of
 * events or other metrics, with `\=`, `\,` and `\-` escapes
 * (amd_df@event\=0x7\,umask\=0x38@).
 *
 * Values: a plain division (or %) by zero is NaN, d_ratio(a, 0) is 0 as in
 * perf, and NaN propagates through every operator, comparison and condition:
 * a metric with an input that was not counted is not a number, never 0.
 */
#ifndef PM_METRIC_EXPR_H
#define PM_METRIC_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "pmumon/pmumon.h"

/* What a name in an expression asks for. */
enum pm_expr_ref {
	PM_EXPR_VALUE,	      /* an event, a metric, or duration_time */
	PM_EXPR_LITERAL,      /* #smt_on: the name includes the '#' */
	PM_EXPR_SOURCE_COUNT, /* source_count(name) */
	PM_EXPR_HAS_EVENT,    /* has_event(name) */
	PM_EXPR_CPUID,	      /* strcmp_cpuid_str(name) */
};

/*
 * Map a name (escapes removed) to a slot index >= 0, or a negative errno
 * to reject it (the compile fails, saying which name).
 */
typedef int (*pm_expr_resolve_fn)(const char *name, enum pm_expr_ref ref, void *userdata);

struct pm_expr;

/*
 * Whether a name is a constant when the expression is compiled (a #literal
 * of the machine, has_event(), strcmp_cpuid_str(), a --define): 1 with its
 * value in *ret; 0 when it is known only when counting.
 */
typedef int (*pm_expr_const_fn)(const char *name, enum pm_expr_ref ref, void *userdata,
				double *ret);

/*
 * Compile with constant folding, as perf's expr.y computes the ids a metric
 * needs: constants (numbers, and the names constant gives a finite value)
 * fold; a branch a constant condition does not take goes with its names, and
 * so do the names under x & 0, x / 0, x % 0 and d_ratio(x, 0). Only the
 * names left are resolved, in order of first appearance: a name in a
 * branch that cannot be taken is never bound (its event never opened), and
 * one nothing knows there is no error. constant may be NULL (numbers fold).
 */
int pm_expr__compile_folded(const char *text, pm_expr_const_fn constant, pm_expr_resolve_fn resolve,
			    void *userdata, struct pm_expr **ret_expr, struct pm_diag *reterr);
int pm_expr__compile(const char *text, pm_expr_resolve_fn resolve, void *userdata,
		     struct pm_expr **ret_expr, struct pm_diag *reterr);
/* The value for the slots' current values; allocates nothing. */
double pm_expr__eval(const struct pm_expr *e, const double *slots);
void pm_expr__free(struct pm_expr *e);
/* The same program over the same slots (a metric copied for another cgroup): 0 or -ENOMEM. */
int pm_expr__copy(const struct pm_expr *e, struct pm_expr **ret_expr);

/* The names the expression refers to, in order of first appearance. */
size_t pm_expr__ref_count(const struct pm_expr *e);
const char *pm_expr__ref(const struct pm_expr *e, size_t i, enum pm_expr_ref *ret_ref,
			 int *ret_slot);

/*
 * A perf tree's MetricExpr as perf's build step leaves it: metric.py's
 * Event() runs _FixEscapes() over every event name, so an '=' or ',' the
 * file left unescaped (hybrid `msr@tsc\,cpu=cpu_core@`) gets its backslash.
 * *ret is malloc'ed; 0 or -ENOMEM.
 */
int pm_expr__perf_escapes(const char *text, char **ret);

/*
 * Ratios. A compiled expression that is, but for constant factors (x * 64,
 * x / 1e6), a / b or d_ratio(a, b) is a ratio of two parts: num = factor
 * * a and den = b, value = num / den (d_ratio: 0 where den is 0). Summed
 * over intervals, the parts give the ratio of any stretch of time — what an
 * exporter's counters need (a miss ratio over 5 minutes is misses over
 * accesses, not the mean of per-second ratios). pm_expr__eval_ratio: the
 * parts for the slots' values; false and NaN both when e is no ratio.
 */
bool pm_expr__is_ratio(const struct pm_expr *e);
bool pm_expr__eval_ratio(const struct pm_expr *e, const double *slots, double *ret_num,
			 double *ret_den);

/*
 * Dimensions. Given each slot's degree in some quantity (time: an event's
 * count and duration_time grow with the interval, degree 1; a constant 0),
 * the degree of the whole expression or of a ratio's part: a * b adds, a /
 * b subtracts, a + b, min, max and the branches of an if must agree;
 * comparisons are plain numbers. PM_EXPR_NO_DEGREE where they do not agree
 * (a + duration_time * a), for %, |, &, ^, and for a part of no ratio.
 */
#define PM_EXPR_NO_DEGREE (-1000)
enum pm_expr_part {
	PM_EXPR_WHOLE,
	PM_EXPR_NUM,
	PM_EXPR_DEN,
};
int pm_expr__degree(const struct pm_expr *e, enum pm_expr_part part, const int *slot_degree);

/* Parse only (no slots): 0 or -EINVAL with the position in reterr. */
int pm_expr__check(const char *text, struct pm_diag *reterr);

#endif
