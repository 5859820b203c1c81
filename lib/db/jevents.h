/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's pmu-events rules, as perf's build (tools/perf/pmu-events/jevents.py)
 * and perf's run time (tools/perf/util/pmu.c, arch/arm64/util/header.c)
 * apply them: the event string of a JSON entry, the PMU name its Unit
 * gives, which sysfs PMUs that name stands for, Compat patterns, and arm64
 * MIDR rows. Pure functions; tests/data/pmu-events holds the files and
 * jevents.py's output they are checked against.
 */
#ifndef PM_DB_JEVENTS_H
#define PM_DB_JEVENTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct pm_strbuf;

/* jevents.py unit_to_pmu(): "default_core" for no Unit, its table, else
 * "uncore_" and the Unit lowercased. Return: 0 or -ENAMETOOLONG. */
int pm_jevents_pmu(const char *unit, char *buf, size_t size);

/*
 * JsonEvent's event string of one entry (EventCode+ExtSel, ConfigCode,
 * EventidCode, the event-field table without zero values, Filter,
 * MSRIndex/MSRValue, the fixed-name table), exactly as jevents.py writes it
 * (period= included). std: the ArchStdEvent entry the entry names (NULL if
 * it names none). Return: 0, -EINVAL (a value jevents.py cannot parse, an
 * unknown MSRIndex), -ENOENT (ArchStdEvent without std) or -ENOMEM.
 * ret_key (may be NULL): on -EINVAL/-ENOENT, the entry's key at fault.
 */
int pm_jevents_event(json_t *ev, json_t *std, struct pm_strbuf *b, const char **ret_key);

/* The terms of a jevents event string that a count uses: period= (the
 * sample period, nothing to a count) left out. */
int pm_jevents_counting_terms(const char *event, struct pm_strbuf *b);

/* perf_pmu__match_ignoring_suffix(name, tok) and pmu_uncore_alias_match(table_pmu, name). */
bool pm_jevents_alias_match(const char *table_pmu, const char *name);

/* pmu__name_match(): name exactly, an uncore PMU by pmu_uncore_alias_match,
 * a core PMU by "default_core". */
bool pm_jevents_pmu_match(const char *table_pmu, const char *name, bool uncore, bool core);

/* pmu_uncore_identifier_match(): Compat as an extended regex matching all of id. */
bool pm_jevents_compat_match(const char *compat, const char *id);

/* arm64 strcmp_cpuid_str() == 0: the same part as the mapfile's MIDR, and a
 * variant/revision at least the row's. */
bool pm_jevents_midr_match(const char *map, const char *id);

#endif
