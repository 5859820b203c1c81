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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * A pack's "InstanceTopology" for one PMU family: the instance name is the
 * family, '_', and a hex address (NameSuffix "hex"); the die and the
 * sub-channel and the channel within its die are bit fields of that
 * address (DieMask, SubChannelMask, ChannelMask): every instance decodes on
 * its own, whichever others the machine or a recording has. pm_db__load
 * fills each matching PMU's place (pmu.h).
 */
struct pm_place_rule {
	uint64_t die_mask, sub_mask, chan_mask; /* 0: the name does not say */
};

/* Decode one instance name: its address, die, channel and sub-channel (-1: the
 * rule has no such field). Return: 0, or -EINVAL when the name is not family_<hex>. */
int pm_place_decode(const struct pm_place_rule *rule, const char *name, const char *family,
		    uint64_t *ret_addr, int *ret_die, int *ret_chan, int *ret_sub);

/* Comma-separated names of the packs that matched ("" if none). */
const char *pm_db__matched_names(const struct pm_db *db);
/* Read CPU 0's perf-style CPUID string from proc/cpuinfo ("" if unknown). */
void pm_db_read_cpuid(struct pm_ctx *ctx, char *buf, size_t size);
/* The perf-style CPUID string of CPU 0 ("AuthenticAMD-23-31-0"), "" if unknown. */
const char *pm_db__cpuid(const struct pm_db *db);

/* Default event specs of the matching packs, in pack order. */
size_t pm_db__default_count(const struct pm_db *db);
const char *pm_db__default(const struct pm_db *db, size_t i);
/* The first matching pack's screen for pmumon top (pmumon.h), or NULL. */
const struct pm_screen *pm_db__screen(const struct pm_db *db);
/*
 * A pack's "Attribution" (docs/attribution.md): how its machine's memory
 * traffic is apportioned to cgroups. Total: the metric of the uncore total;
 * per_byte: its value per byte (per second of the interval when
 * per_second); proxies: core events counted in each cgroup, each standing
 * for `bytes` bytes of DRAM traffic, of the CPU's own socket's DRAM
 * (PM_ATTRIB_LOCAL), another's (REMOTE), or either (ANY).
 */
enum { PM_ATTRIB_ANY, PM_ATTRIB_LOCAL, PM_ATTRIB_REMOTE };
#define PM_ATTRIB_MAX_PROXIES 4
struct pm_attrib_recipe {
	char *total;
	double per_byte;
	bool per_second;
	size_t n_proxies;
	struct pm_attrib_proxy {
		char *event;
		double bytes;
		int dram;
	} proxies[PM_ATTRIB_MAX_PROXIES];
	char *note; /* what the proxies cannot see, for the reader */
	/* "ProxyError": the proxies' declared relative error against each cgroup's traffic
	 * (0.1: within 10 %), a model input no counter measures; NaN: undeclared (the
	 * intervals then exclude the proxies' bias). proxy_error_note: why. */
	double proxy_error;
	char *proxy_error_note;
};
/* The first matching pack's, or NULL when none has one. */
const struct pm_attrib_recipe *pm_db__attribution(const struct pm_db *db);
/* The i-th platform-neutral metric name of the matching packs (pmumon.h), or NULL. */
const struct pm_monitor_name *pm_db__monitor(const struct pm_db *db, size_t i);
/*
 * A pack's "Drivers": the kernel modules its PMUs come from, for pmumon
 * doctor: {"Module": "amd_uncore", "File": "kernel/arch/x86/events/amd/
 * amd-uncore.ko" (as modules.dep names it), "Config": "CONFIG_...", "Gives":
 * what it provides, and optionally "Path" (a file it makes, from the root)
 * with "PathConfig" (the option that file needs), and "Else": a module that,
 * loaded, lets pmumon count the same without this one}.
 */
struct pm_driver_def {
	const char *pack, *module, *file, *config, *gives, *path, *path_config, *alt;
};

/* The i-th driver of the matching packs, or NULL. */
const struct pm_driver_def *pm_db__driver(const struct pm_db *db, size_t i);
/* What the defaults measure, per matching pack with defaults ("" if none). */
const char *pm_db__defaults_note(const struct pm_db *db);

/*
 * A metric of a matching pack: perf's MetricName/MetricExpr/MetricGroup/
 * ScaleUnit/BriefDescription/Unit, plus pmumon's Scope (sub-channel,
 * channel, die, socket, system, cpu, ...) and Approximate (a vendor formula
 * known to be an estimate). Every string is owned by the db.
 */
struct pm_metric_def {
	const char *name, *expr, *groups, *desc;
	const char *family; /* PMU family its event names live on (Unit), NULL: any */
	const char *unit;   /* from ScaleUnit: "MB/s", "%", "" */
	double scale;
	const char *scope; /* "" when the pack says nothing */
	bool approximate;
	/* "Aggregate": "SumOfDevices": evaluate per PMU instance and add the
	 * results up (a ratio to each sub-channel's own clock); otherwise the
	 * expression runs on the row's summed counts, as in perf */
	bool sum_of_devices;
	/* "Unavailable": why the pack cannot offer it (no cited encoding); NULL: usable */
	const char *unavailable;
	/* "Note": what a user should know when reading it (a seed's known behaviours), or NULL */
	const char *note;
	const char *pack;
};

size_t pm_db__metric_count(const struct pm_db *db);
const struct pm_metric_def *pm_db__metric(const struct pm_db *db, size_t i);
const struct pm_metric_def *pm_db__find_metric(const struct pm_db *db, const char *name);
/*
 * A constant a pack's metrics use and no counter gives ("Constants" in
 * pack.json): its value where the platform fixes it, or none (has_value
 * false) when it varies by machine and must come from --define.
 */
struct pm_constant_def {
	const char *name, *note, *pack;
	bool has_value;
	double value;
	bool required; /* "Required": a metric using it is refused until --define gives it */
};

/* The constant of a matching pack by that name, or NULL. */
const struct pm_constant_def *pm_db__find_constant(const struct pm_db *db, const char *name);

/* Is name one of the metric's groups (MetricGroup is ';'-separated)? */
bool pm_metric_def__in_group(const struct pm_metric_def *m, const char *name);
/* The metric -M names: its exact name, else the same name in another case, as perf
 * matches -M (NULL: none). */
const struct pm_metric_def *pm_db__find_metric_nocase(const struct pm_db *db, const char *name);

/* Exposed for testing: perf's pmu-events "Unit" to PMU family (DFPMC -> amd_df). */
int pm_db_unit_to_family(const char *unit, char *buf, size_t size);
/* Exposed for testing: ScaleUnit "6.1e-5MiB" -> 6.1e-5 and "MiB". */
int pm_db_parse_scale_unit(const char *s, double *ret_scale, char *unit, size_t unit_size);
/*
 * Does a mapfile CPUID pattern (or a metric's strcmp_cpuid_str() argument)
 * match this machine's id, as perf's strcmp_cpuid_str decides: on x86 a
 * regular expression over "vendor-family-model-stepping"
 * (tools/perf/arch/x86/util/header.c), on arm64 a MIDR of the same part at
 * least at that variant and revision (arch/arm64/util/header.c). Return: 1,
 * 0, or -EINVAL for a bad regular expression.
 */
int pm_db_cpuid_match(const char *pattern, const char *cpuid);

#endif
