/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fast path for perf's pmu-events files: a top-level array of objects whose
 * values are all strings, the shape of every file under
 * tools/perf/pmu-events/arch. jansson reads them a character at a time
 * through a callback; this scans the text directly and builds the same
 * jansson values. Anything else (another shape, a \u escape, a byte over
 * 0x7f, a control character, a key given twice, a syntax error) is left to
 * jansson, which also says where it fails: NULL here means "not handled",
 * never "malformed".
 */
#ifndef PM_DB_JSONFLAT_H
#define PM_DB_JSONFLAT_H

#include <jansson.h>
#include <stddef.h>

/* The array, equal (json_equal) to what json_loadb(text, len,
 * JSON_REJECT_DUPLICATES) gives; NULL where that path must decide. */
json_t *pm_json_flat_load(const char *text, size_t len);

#endif
