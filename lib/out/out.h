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

/*
 * A report's text, built in memory and written with one fwrite: the CSV and
 * JSON writers' rows cost what copying their bytes costs, not a locked
 * fputc per character. err latches the first failure (-ENOMEM).
 */
struct pm_obuf {
	char *p;
	size_t len, cap;
	int err;
};
void pm_obuf__put(struct pm_obuf *b, const char *s, size_t n);
void pm_obuf__puts(struct pm_obuf *b, const char *s);
void pm_obuf__putc(struct pm_obuf *b, char c);
void pm_obuf__u64(struct pm_obuf *b, uint64_t v);
/* pm_fmt_double's text, its integers without printf */
void pm_obuf__double(struct pm_obuf *b, double v);
/* Write it all to f and empty it: 0, or the first failure (-ENOMEM, -EIO). */
int pm_obuf__flush(struct pm_obuf *b, FILE *f);

/*
 * A row's label text as a writer makes it (JSON: its event and place; CSV:
 * its event and place columns; the table: its aggregation column), kept
 * for the next reports: a session's reports have the same rows in the same
 * order, so the text is made once and copied; it is made again when the
 * row at that index is another (the key: copies of the row's strings).
 */
struct pm_out_label {
	char *event, *device, *place, *domain; /* copies: the key */
	int socket, die, cpu, channel, subchannel;
	enum pm_aggr aggr;
	char *text;
	size_t len;
};
void pm_out_label__done(struct pm_out_label *l);
/* How a writer makes a row's label text. */
typedef void (*pm_out_label_fn)(const struct pm_out *o, struct pm_obuf *b, enum pm_aggr aggr,
				const struct pm_row *row);
/* Row i's label, kept from the last report when the row at i is the same, else made
 * with make; NULL when out of memory. */
const struct pm_out_label *pm_out__label(struct pm_out *o, size_t i, enum pm_aggr aggr,
					 const struct pm_row *row, pm_out_label_fn make);

struct pm_out_ops {
	int (*report)(struct pm_out *o, const struct pm_report *r);
};

struct pm_out {
	FILE *f;
	struct pm_out_opts opts;
	char *target;	    /* owned copy of opts.target */
	char *sim_platform; /* owned copy */
	char *cpuid;	    /* owned copy */
	locale_t c_locale;  /* numbers are printed in the C locale, always */
	const struct pm_out_ops *ops;
	unsigned n_reports;
	bool header_done;
	int64_t tod_sec;    /* the second tod_hms was made for */
	char tod_hms[16];   /* "10:00:01" */
	struct pm_obuf buf; /* the report being written (CSV, JSON) */
	struct pm_obuf pre; /* what every row of a report begins with (CSV, JSON); JSON: then
			     * the run's tail every row ends with, after pre_len */
	size_t pre_len;
	struct pm_out_label *labels; /* each row's label, made once (pm_out__label) */
	size_t n_labels;
	struct pm_obuf flags_text; /* JSON: the flag keys of the last flags written */
	unsigned flags_key;
	bool flags_have;
	/* the table's comment column: its rows' buckets (label, cgroup) sorted, kept
	 * while the rows stay the same from one report to the next (lib/out/table.c) */
	struct pm_out_buckets {
		size_t n;
		const char **label, **cgroup; /* each row's, as last seen */
		size_t *order, *group;	      /* rows sorted by bucket; a bucket's rows */
		char (*note)[64];	      /* each row's comment */
	} buckets;
	/* PM_OUT_PERF_*: the environment's LC_NUMERIC, as perf's setlocale(LC_ALL, "") */
	locale_t perf_locale;
};

/* A line built without printf: the table's hot path. */
struct pm_line {
	char buf[1024];
	size_t n;
};

/* Append s padded with spaces to width (right-aligned when right). */
void pm_line__put(struct pm_line *l, const char *s, int width, bool right);

/*
 * perf stat 6.1's comment on rows[i] (shadow.c): "   1.50  insn per cycle",
 * what the table prints after " # ". group: the indexes of the rows of
 * row i's aggregation bucket (n of them, i among them); wall_ns: the time
 * a clock's "CPUs utilized" divides by. Returns its length, 0: no comment.
 */
size_t pm_out__shadow(const struct pm_row *rows, const size_t *group, size_t n, size_t i,
		      double wall_ns, char *buf, size_t size);

extern const struct pm_out_ops pm_out_table;
extern const struct pm_out_ops pm_out_csv;
extern const struct pm_out_ops pm_out_json;
extern const struct pm_out_ops pm_out_perf;

/* Shortest text that reads back as the same double ("0.1", "4009862308"). */
/*
 * A row's 95 % interval as the writers print it (docs/bounds.md): exact
 * rows' ends are the value itself, a row without a value has none (NaN, and
 * bound PM_BOUND_NO_VALUE), and an end that is not finite is NaN.
 */
void pm_out__bounds(const struct pm_row *row, double *ret_lo, double *ret_hi, unsigned *ret_bound);
/* The interval's half-width in % of the value for the table ("± 1.2 %"): the
 * wider side; NaN when there is none. */
double pm_out__bound_pct(const struct pm_row *row);
void pm_fmt_double(char *buf, size_t size, double v);
/* 4009862308 -> "4,009,862,308"; with decimals > 0, a fixed-point value. */
void pm_fmt_grouped(char *buf, size_t size, double v, int decimals);
/* Nanoseconds as seconds with 9 decimals ("1.002358130"), exactly, without floating point. */
void pm_fmt_seconds(char *buf, size_t size, uint64_t ns);
/* RFC 3339 UTC with milliseconds: "2026-11-22T10:00:01.003Z". */
void pm_fmt_timestamp(char *buf, size_t size, uint64_t wall_ns);
/* Local time of day with milliseconds, "10:00:01.003"; localtime once per second. */
void pm_out__time_of_day(struct pm_out *o, uint64_t wall_ns, char *buf, size_t size);

#endif
