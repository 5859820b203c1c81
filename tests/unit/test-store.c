// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recording's retention (cli/store/store.c store_trim), as docs/record.md
 * promises it: intervals older than --max-age go, exactly; past --max-size the
 * oldest tenth of what is left goes, round after round, until the file fits,
 * and never the newest. 1000 intervals one second apart; each round's cut is
 * worked out here from the rule (a tenth of the span left, and one ns), so a
 * round that took a half, or the newest, fails.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "store.h"

#define N 1000
#define SEC 1000000000ull
#define W0 (1767225600ull * SEC) /* the first interval's wall clock */

static char dir[] = "/tmp/pmumon-test-store-XXXXXX";
static char path[256];

/* A recording of N intervals of 4 event rows, wall clock W0 + i s. */
static void record(void)
{
	struct store_run run = { .command = "pmumon record",
				 .version = "test",
				 .platform = "lab",
				 .interval_ms = 1000,
				 .aggr = "family" };
	struct pm_row rows[4];
	struct pm_report rep = { .interval = true, .n_rows = 4, .rows = rows };
	const char *err = NULL;
	struct store *st;

	for (int i = 0; i < 4; i++) {
		static const char *const names[] = { "e0", "e1", "e2", "e3" };

		rows[i] = (struct pm_row){ .event = names[i],
					   .unit = "",
					   .socket = -1,
					   .die = -1,
					   .channel = -1,
					   .subchannel = -1,
					   .cpu = -1,
					   .running = 1,
					   .covered = 1,
					   .instances = 1 };
	}
	assert_int_equal(store_open_write(path, true, &run, &st, &err), 0);
	for (uint64_t i = 0; i < N; i++) {
		rep.t_ns = (i + 1) * SEC;
		rep.duration_ns = SEC;
		rep.wall_ns = W0 + i * SEC;
		for (int k = 0; k < 4; k++) {
			rows[k].value = (double)(i * 4 + (uint64_t)k);
			rows[k].raw = i * 4 + (uint64_t)k;
			rows[k].enabled_ns = rows[k].running_ns = SEC;
		}
		if (store_append(st, &rep, &err) < 0)
			fail_msg("append %d: %s", (int)i, err);
	}
	store_close(st);
}

static uint64_t bytes(void)
{
	char wal[300];
	struct stat sb;
	uint64_t n = 0;

	if (stat(path, &sb) == 0)
		n += (uint64_t)sb.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &sb) == 0)
		n += (uint64_t)sb.st_size;
	return n;
}

/* The intervals left (of the first series), and the first one's index. */
static long kept(long *ret_first)
{
	struct store_series *series = NULL;
	struct store_sample *axis = NULL;
	const char *err = NULL;
	struct store *st;
	double *v;
	unsigned *flags;
	long n, counted = 0;

	assert_int_equal(store_open_read(path, &st, &err), 0);
	assert_int_equal(store_series(st, 1, &series), 4); /* run 1: the one recorded */
	n = store_samples(st, 1, 0, INT64_MAX, &axis);
	assert_true(n > 0);
	v = calloc((size_t)n, sizeof(*v));
	flags = calloc((size_t)n, sizeof(*flags));
	assert_non_null(v);
	assert_non_null(flags);
	assert_int_equal(store_values(st, 1, axis, (size_t)n, &series[0].id, 1, &v, &flags, NULL,
				      NULL, NULL),
			 0);
	for (long i = 0; i < n; i++)
		counted += !isnan(v[i]);
	assert_int_equal(counted, n); /* every interval left has its values */
	/* t_ns is the interval's end: interval i ends at i + 1 s */
	*ret_first = (long)(axis[0].t_ns / (int64_t)SEC) - 1;
	assert_int_equal(axis[n - 1].t_ns / (int64_t)SEC, N); /* the newest is always kept */
	free(v);
	free(flags);
	free(axis);
	free(series);
	store_close(st);
	return n;
}

static int trim(double max_age_s, uint64_t max_bytes)
{
	struct store_run run = { .command = "pmumon record",
				 .version = "test",
				 .platform = "lab",
				 .interval_ms = 1000,
				 .aggr = "family" };
	const char *err = NULL;
	struct store *st;
	int r;

	/* appending opens it as record does; a run with no interval adds no sample */
	assert_int_equal(store_open_write(path, false, &run, &st, &err), 0);
	r = store_trim(st, max_age_s, max_bytes, &err);
	store_close(st);
	return r;
}

static void test_max_age_exact(void **state)
{
	long first;

	(void)state;
	record();
	/* the newest at W0 + 999 s: 100 s before it is W0 + 899 s, the first kept */
	assert_int_equal(trim(100, 0), 0);
	assert_int_equal(kept(&first), 101);
	assert_int_equal(first, 899);
}

static void test_max_size_a_tenth_per_round(void **state)
{
	/* what is left after each round: a tenth of the span from the first to the
	 * newest, and 1 ns, goes */
	long left[8], first, n;
	uint64_t full;

	(void)state;
	record();
	full = bytes();
	left[0] = N;
	for (int k = 1; k < 8; k++) {
		long span_s = left[k - 1] - 1;

		/* the cut is first + span/10 + 1 ns: whole seconds below it go */
		left[k] = left[k - 1] - (span_s / 10 + 1);
	}
	assert_int_equal(left[1], 900);
	assert_int_equal(left[2], 810);
	/* a file 5 % too large: the rounds stop at the first that fits */
	assert_int_equal(trim(0, full - full / 20), 0);
	n = kept(&first);
	assert_int_equal(first, N - n);
	for (int k = 1; k < 8; k++)
		if (n == left[k])
			goto found;
	fail_msg("%ld intervals left, not what rounds of a tenth leave (900, 810, 729, ...)", n);
found:
	print_message("--max-size 95 %% of the file: %ld intervals left\n", n);
	assert_true(bytes() <= full - full / 20);
	/* and no round more than needed: the one before would not have fitted */
	assert_true(n >= left[3]);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/rec.db", dir);
	return 0;
}

static int teardown(void **state)
{
	char p[300];

	(void)state;
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_age_exact),
		cmocka_unit_test(test_max_size_a_tenth_per_round),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
