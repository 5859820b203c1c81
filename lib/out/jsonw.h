/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A JSON writer that owns the syntax: commas, string escaping and numbers
 * that JSON cannot hold (NaN and infinities become null), into a buffer the
 * caller writes out (out.h, pm_obuf).
 */
#ifndef PM_JSONW_H
#define PM_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PM_JW_DEPTH 16

struct pm_obuf;

struct pm_jw {
	struct pm_obuf *b;
	int depth;
	bool need_comma[PM_JW_DEPTH];
};

void pm_jw__init(struct pm_jw *w, struct pm_obuf *b);
void pm_jw__object_begin(struct pm_jw *w);
void pm_jw__object_end(struct pm_jw *w);
void pm_jw__array_begin(struct pm_jw *w);
void pm_jw__array_end(struct pm_jw *w);
/* A key inside an object (a literal of the writer's: written as it is, not escaped);
 * the value call follows. */
void pm_jw__key(struct pm_jw *w, const char *key);
/* The same, its length known: PM_JW_KEY(w, "event") for a literal. */
void pm_jw__keyn(struct pm_jw *w, const char *key, size_t n);
#define PM_JW_KEY(w, lit) pm_jw__keyn((w), (lit), sizeof(lit) - 1)
void pm_jw__string(struct pm_jw *w, const char *s); /* NULL -> null */
void pm_jw__u64(struct pm_jw *w, uint64_t v);
void pm_jw__int(struct pm_jw *w, int64_t v);
void pm_jw__double(struct pm_jw *w, double v); /* non-finite -> null */
void pm_jw__bool(struct pm_jw *w, bool v);
void pm_jw__null(struct pm_jw *w);

#endif
