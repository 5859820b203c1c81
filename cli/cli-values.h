/* SPDX-License-Identifier: GPL-2.0-only */
/* The pmumon command line (the only code that parses argv, prints messages or exits):
 * strict option values and small helpers (cli/options.c, cli/util.c). */
#ifndef PMUMON_CLI_VALUES_H
#define PMUMON_CLI_VALUES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmumon/pmumon.h"

/* ---- strict values and small helpers (cli/options.c, cli/util.c) ------------------- */

/* Strict option values: print the error naming the option and return -EINVAL. */
int cli_parse_uint(const char *opt, const char *s, unsigned long max, unsigned long *ret);
/* A CSV separator: one character (or \t) that no number or quoting uses. */
int cli_parse_separator(const char *opt, const char *arg, char *ret);
/* --attribute-proxy-error / serve.conf's attribute-proxy-error: "10" or "10%" (0 <= PCT < 100)
 * as a fraction (0.1) in *ret; -EINVAL (said) otherwise, *ret untouched. */
int cli_parse_proxy_error(const char *arg, double *ret);
/* --define NAME=VALUE: the name into name (size bytes), a finite value > 0. */
int cli_parse_define(const char *arg, char *name, size_t size, double *ret);

/* A whole file ("-": standard input) into *ret (caller frees): 0, -errno,
 * or -EFBIG beyond max bytes. */
int cli_read_file(const char *path, size_t max, char **ret, size_t *ret_len);
/*
 * The k-th smallest of v[0..n) (0-based, k < n, no NaN) into v[k], the
 * smaller ones before it and the larger after (Hoare's select, a middle
 * pivot): linear time on average, where report's sort of a day of 1 s
 * intervals per series was most of its time.
 */
double cli_select_kth(double *v, size_t n, size_t k);
/* Bytes per second of a bandwidth unit ("MB/s": 1e6, "GiB/s": 2^30), 0 for any other. */
double cli_unit_bytes(const char *unit);

/* The row mode's name ("family", "device", "core", ...), as recordings keep it. */
const char *cli_aggr_name(enum pm_aggr a);

/* BYTES with an optional k, M or G (powers of 1024), above 0: 0 or -EINVAL (said, naming opt). */
int cli_parse_size(const char *opt, const char *arg, uint64_t *ret);
/* --per-cache's level, as perf writes it: L1..L4 (or l1..l4) into *ret; -EINVAL. */
int cli_parse_cache_level(const char *s, int *ret);
/*
 * perf's -p/-t list: PIDs (or TIDs) separated by commas ("123,456"), each
 * decimal 1..INT32_MAX, no blanks, no empty entries; a repeated one is kept
 * once, as perf's. Into ret (room for max): 0, -EINVAL, -ERANGE, or -E2BIG
 * (more than max).
 */
int cli_parse_pid_list(const char *s, pid_t *ret, size_t max, size_t *ret_n);

#endif
