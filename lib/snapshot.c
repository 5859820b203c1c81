// SPDX-License-Identifier: GPL-2.0-only
/*
 * Snapshots (pmumon.h, Threads): an immutable copy of a report in one
 * allocation, the rows followed by every string they point to, reference
 * counted with C11 atomics, so that a sampler thread can publish it and
 * reader threads can render it while, and after, the session moves on or
 * goes away. It uses the public API only.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmumon/pmumon.h"

struct pm_snapshot {
	atomic_size_t refs;
	struct pm_report report;
	struct pm_row rows[]; /* report.n_rows of them, then their strings */
};

/* The fields of struct pm_row that point somewhere: each is copied. */
static const size_t row_strings[] = {
	offsetof(struct pm_row, event),		offsetof(struct pm_row, unit),
	offsetof(struct pm_row, device),	offsetof(struct pm_row, place),
	offsetof(struct pm_row, source),	offsetof(struct pm_row, domain),
	offsetof(struct pm_row, cgroup),	offsetof(struct pm_row, comm),
	offsetof(struct pm_row, pod_namespace), offsetof(struct pm_row, pod),
	offsetof(struct pm_row, container),
};
#define N_STRINGS (sizeof(row_strings) / sizeof(row_strings[0]))

static const char **row_string(const struct pm_row *row, size_t i)
{
	return (const char **)((char *)row + row_strings[i]);
}

/*
 * A field added to struct pm_row or pm_report is copied by the struct
 * assignment below, unless it points somewhere: then it needs a deep copy
 * (row_strings) for the snapshot to outlive the session. These fail to
 * build when the structs change, so that someone looks.
 */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(
	sizeof(struct pm_row) == 280,
	"struct pm_row changed: copy any new pointer field in snapshot.c, then update this size");
_Static_assert(
	sizeof(struct pm_report) == 96,
	"struct pm_report changed: copy any new pointer field in snapshot.c, then update this size");
#endif

/* One string field across rows: rows next to each other often share a label. */
struct str_seen {
	const char *src;
	const char *dst;
};

static size_t str_size(const char *s, struct str_seen *seen)
{
	if (!s || s == seen->src)
		return 0;
	seen->src = s;
	return strlen(s) + 1;
}

static const char *str_copy(const char *s, struct str_seen *seen, char **pos)
{
	size_t n;

	if (!s)
		return NULL;
	if (s != seen->src) {
		n = strlen(s) + 1;
		memcpy(*pos, s, n);
		seen->src = s;
		seen->dst = *pos;
		*pos += n;
	}
	return seen->dst;
}

static int snapshot_new(const struct pm_report *r, struct pm_snapshot **ret_snapshot)
{
	struct str_seen seen[N_STRINGS] = { 0 };
	struct pm_snapshot *snap;
	size_t strings = 0;
	char *pos;

	if (r->n_rows > (SIZE_MAX / 2 - sizeof(*snap)) / sizeof(struct pm_row))
		return -ENOMEM;
	for (size_t i = 0; i < r->n_rows; i++)
		for (size_t k = 0; k < N_STRINGS; k++) {
			strings += str_size(*row_string(&r->rows[i], k), &seen[k]);
			if (strings > SIZE_MAX / 2)
				return -ENOMEM;
		}
	snap = malloc(sizeof(*snap) + r->n_rows * sizeof(struct pm_row) + strings);
	if (!snap)
		return -ENOMEM;
	atomic_init(&snap->refs, 1);
	snap->report = *r;
	snap->report.rows = snap->rows;
	memset(seen, 0, sizeof(seen));
	pos = (char *)&snap->rows[r->n_rows];
	for (size_t i = 0; i < r->n_rows; i++) {
		snap->rows[i] = r->rows[i];
		for (size_t k = 0; k < N_STRINGS; k++)
			*row_string(&snap->rows[i], k) = str_copy(*row_string(&r->rows[i], k),
								  &seen[k], &pos);
	}
	*ret_snapshot = snap;
	return 0;
}

int pm_session__snapshot(struct pm_session *s, bool interval, struct pm_snapshot **ret_snapshot)
{
	const struct pm_report *r;

	if (!s || !ret_snapshot)
		return -EINVAL;
	r = pm_session__report(s, interval);
	return r ? snapshot_new(r, ret_snapshot) : -EINVAL;
}

struct pm_snapshot *pm_snapshot__ref(struct pm_snapshot *snap)
{
	/* the caller holds a reference already: no ordering needed to take another */
	if (snap)
		atomic_fetch_add_explicit(&snap->refs, 1, memory_order_relaxed);
	return snap;
}

void pm_snapshot__unref(struct pm_snapshot *snap)
{
	/*
	 * Release: this thread's reads of the snapshot happen before the free;
	 * acquire: the thread that frees sees every other thread's release.
	 */
	if (snap && atomic_fetch_sub_explicit(&snap->refs, 1, memory_order_acq_rel) == 1)
		free(snap);
}

const struct pm_report *pm_snapshot__report(const struct pm_snapshot *snap)
{
	return snap ? &snap->report : NULL;
}
