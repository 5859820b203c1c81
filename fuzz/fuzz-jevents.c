// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the reading of perf's pmu-events entries (db/jevents.c): a JSON array of
 * entries, each encoded as jevents.py would (the first entry standing in as
 * every ArchStdEvent), its PMU named, its counting terms taken, its Compat
 * matched against its Unit. What encodes must not keep a period= term. The
 * same text, parsed or not, has its entries' keys located (db/jsonpos.c): a
 * place is inside the text.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "db/jevents.h"
#include "db/jsonpos.h"
#include "fuzz.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *arr = json_loadb((const char *)data, size, 0, NULL), *e;
	size_t i;

	for (i = 0; i < 4; i++) {
		static const char *const keys[] = { NULL, "EventName", "MetricExpr", "a" };
		size_t off = 0, at;
		int line, col;

		if (pm_json_locate((const char *)data, size, i, keys[i], &off) < 0)
			continue;
		at = pm_json_string_pos((const char *)data, size, off, i * 7);
		if (off > size || at > size)
			abort();
		pm_json_line_col((const char *)data, size, at, &line, &col);
	}
	json_array_foreach(arr, i, e) {
		const char *unit = json_string_value(json_object_get(e, "Unit"));
		const char *compat = json_string_value(json_object_get(e, "Compat"));
		struct pm_strbuf ev = { 0 }, terms = { 0 };
		char pmu[64];

		if (pm_jevents_event(e, json_array_get(arr, 0), &ev, NULL) == 0 &&
		    pm_jevents_counting_terms(ev.s, &terms) == 0 && terms.s &&
		    (!strncmp(terms.s, "period=", 7) || strstr(terms.s, ",period=")))
			abort();
		if (pm_jevents_pmu(unit, pmu, sizeof(pmu)) == 0) {
			(void)pm_jevents_alias_match(pmu, unit ? unit : "cpu");
			(void)pm_jevents_pmu_match(pmu, unit ? unit : "cpu", true, true);
		}
		if (compat && unit)
			(void)pm_jevents_compat_match(compat, unit);
		if (compat)
			(void)pm_jevents_midr_match(compat, unit ? unit : "");
		pm_strbuf__done(&ev);
		pm_strbuf__done(&terms);
	}
	json_decref(arr);
	return 0;
}
