/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output: a report written as a table, CSV, JSON Lines or OpenMetrics.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_OUT_H
#define PMUMON_OUT_H

#include "pmumon/context.h"
#include "pmumon/report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output ------------------------------------------------------------- */

enum pm_out_format {
	PM_OUT_TABLE,
	PM_OUT_CSV,
	PM_OUT_JSON, /* JSON Lines */
	/* perf stat 6.1's own layouts, byte for byte (lib/out/perf.c; docs/output.md,
	 * "perf mode"): its table, its -x CSV (no header) and its -j JSON, numbers in
	 * the environment's LC_NUMERIC as perf prints them */
	PM_OUT_PERF_TABLE,
	PM_OUT_PERF_CSV,
	PM_OUT_PERF_JSON,
};

#define PM_JSON_SCHEMA 4 /* "schema" field of every JSON line (docs/output.md) */

struct pm_out_opts {
	size_t size; /* sizeof(struct pm_out_opts) */
	enum pm_out_format format;
	char sep;		  /* CSV separator, ',' by default */
	const char *target;	  /* "system wide", "CPU(s) 0-3", "'sleep 1'" */
	bool simulated;		  /* mark every record SIMULATED */
	const char *sim_platform; /* platform name when simulated */
	/* the table's numbers without thousands grouping (4009862308, not
	 * 4,009,862,308): perf stat's --no-big-num; CSV and JSON never group */
	bool no_grouping;
	/* the table: clear the screen (ANSI ESC[H ESC[2J) and repeat the header before
	 * each interval, as perf stat's --interval-clear; for a terminal only */
	bool clear_screen;
	/* the CPU id of the machine that counted (pm_ctx__cpuid): CSV's cpuid column,
	 * JSON's "cpuid" key, so an import finds its perf events again; NULL: none */
	const char *cpuid;
	/*
	 * PM_OUT_PERF_*: -x's separator as perf takes it, any string (NULL:
	 * sep); --summary (the totals after intervals: the CSV's rows start
	 * with "summary" unless no_csv_summary, as perf's --no-csv-summary);
	 * and rows per thread of the whole machine (perf stat -a --per-thread),
	 * whose threads that counted 0 perf leaves out.
	 */
	const char *perf_sep;
	bool perf_summary;
	bool perf_no_csv_summary;
	bool perf_all_threads;
};

PM_API int pm_out__new(FILE *f, const struct pm_out_opts *opts, struct pm_out **ret_out);
/* Write one report (an interval or the totals). */
PM_API int pm_out__report(struct pm_out *o, const struct pm_report *r);
PM_API void pm_out__free(struct pm_out *o);

#ifdef __cplusplus
}
#endif
#endif
