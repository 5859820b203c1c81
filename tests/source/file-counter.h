/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A counter source defined outside lib/ (tests/source/file-counter.c): the
 * proof that a source is its own business. Its PMU "filecount" has an event
 * per file of var/lib/filecount/ (the machine's files: a fixture tree or the
 * simulator's), each holding a count as decimal text; it counts what the
 * count grew by since enable (its option since=zero: the count itself),
 * exactly (no multiplexing). It holds the lock
 * run/pmumon/filecount.lock while it counts, and says to pmumon doctor whom
 * the file var/lib/filecount/.owner names as holding its counters.
 */
#ifndef PM_TEST_FILE_COUNTER_H
#define PM_TEST_FILE_COUNTER_H

#include <stddef.h>

#include "source/source.h"

#define PM_FILECOUNT_DIR "var/lib/filecount"
#define PM_FILECOUNT_LOCK "run/pmumon/filecount.lock"

extern const struct pm_source_ops pm_test_source_filecount;

/* Count with it on ctx (before discovery), as "filecount": pm_ctx__add_source. */
int pm_test_filecount__add(struct pm_ctx *ctx, size_t *ret_id);

#endif
