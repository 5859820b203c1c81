/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Platform packs: directories of JSON under data/ (built into the binary).
 * A pack's pack.json says what machine it matches (a PMU family, its
 * identifier, a CPUID pattern), which perf pmu-events JSON files hold its
 * events, which events `stat` counts by default, and what it knows of PMU
 * hardware that sysfs does not say (traits). data/kernel/pmus.json holds the
 * traits the kernel drivers fix wherever they run.
 */
#ifndef PM_PACK_H
#define PM_PACK_H

#include <stddef.h>

struct pm_ctx;
struct pm_db;

/*
 * Load every pack, match it against the discovered PMUs and CPU, and attach
 * the matching packs' events (as aliases) and traits to the PMUs.
 * A malformed pack is reported through the log (file, line, column) and
 * skipped. Return: 0 or -ENOMEM.
 */
int pm_db__load(struct pm_ctx *ctx, struct pm_db **ret_db);
void pm_db__free(struct pm_db *db);

/* Comma-separated names of the packs that matched ("" if none). */
const char *pm_db__matched_names(const struct pm_db *db);
/* The perf-style CPUID string of CPU 0 ("AuthenticAMD-23-31-0"), "" if unknown. */
const char *pm_db__cpuid(const struct pm_db *db);

/* Default event specs of the matching packs, in pack order. */
size_t pm_db__default_count(const struct pm_db *db);
const char *pm_db__default(const struct pm_db *db, size_t i);
/* What the defaults measure, per matching pack with defaults ("" if none). */
const char *pm_db__defaults_note(const struct pm_db *db);

/* Exposed for testing: perf's pmu-events "Unit" to PMU family (DFPMC -> amd_df). */
int pm_db_unit_to_family(const char *unit, char *buf, size_t size);
/* Exposed for testing: ScaleUnit "6.1e-5MiB" -> 6.1e-5 and "MiB". */
int pm_db_parse_scale_unit(const char *s, double *ret_scale, char *unit, size_t unit_size);
/*
 * Exposed for testing: does a mapfile CPUID pattern match this machine's
 * string, as perf's x86 strcmp_cpuid_str (tools/perf/arch/x86/util/header.c)
 * decides? Return: 1, 0, or -EINVAL for a bad regular expression.
 */
int pm_db_cpuid_match(const char *pattern, const char *cpuid);

#endif
