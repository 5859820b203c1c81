/* SPDX-License-Identifier: GPL-2.0-only */
/* Output writers: one per format behind a small vtable, sharing number helpers. */
#ifndef PM_OUT_H
#define PM_OUT_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmumon/pmumon.h"

struct pm_out;

struct pm_out_ops {
	int (*report)(struct pm_out *o, const struct pm_report *r);
};

struct pm_out {
	FILE *f;
	struct pm_out_opts opts;
	char *target;	    /* owned copy of opts.target */
	char *sim_platform; /* owned copy */
	locale_t c_locale;  /* numbers are printed in the C locale, always */
	const struct pm_out_ops *ops;
	unsigned n_reports;
	bool header_done;
};

extern const struct pm_out_ops pm_out_table;
extern const struct pm_out_ops pm_out_csv;
extern const struct pm_out_ops pm_out_json;

/* Shortest text that reads back as the same double ("0.1", "4009862308"). */
void pm_fmt_double(char *buf, size_t size, double v);
/* 4009862308 -> "4,009,862,308"; with decimals > 0, a fixed-point value. */
void pm_fmt_grouped(char *buf, size_t size, double v, int decimals);
/* Nanoseconds as seconds with 9 decimals ("1.002358130"), exactly, without floating point. */
void pm_fmt_seconds(char *buf, size_t size, uint64_t ns);
/* RFC 3339 UTC with milliseconds: "2026-11-22T10:00:01.003Z". */
void pm_fmt_timestamp(char *buf, size_t size, uint64_t wall_ns);
/* Local time of day with milliseconds: "10:00:01.003". */
void pm_fmt_time_of_day(char *buf, size_t size, uint64_t wall_ns);

#endif
