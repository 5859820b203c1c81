/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sources' ids and names, made from the one registry list: what a PMU and
 * a counter name their source by. Below the PMUs, so it holds no ops
 * (source/source.h has those).
 */
#ifndef PM_SOURCE_ID_H
#define PM_SOURCE_ID_H

/*
 * The registry: one line a source, (ID, ops-name suffix), in the order they
 * are discovered, opened, enabled and read (perf's PMUs come first). Each
 * defines const struct pm_source_ops pm_source_NAME in its own folder,
 * source/NAME/, which lib/meson.build adds with one subdir() line
 * (docs/sources.md: adding a source).
 *   perf:     the kernel's PMUs, sys/bus/event_source/devices (source/perf/perf.c)
 *   msr:      AMD DF/L3 and APERF/MPERF through /dev/cpu/N/msr (source/msr/msr.c)
 *   hwmon:    BlueField hwmon blocks (source/hwmon/hwmon.c)
 *   replay:   counts recorded elsewhere (source/replay/replay.c)
 *   sideband: Merrifield's SoC counters over the IOSF sideband (source/sideband/sideband.c)
 *   tool:     perf's tool events duration_time, user_time, system_time (source/tool/tool.c)
 */
#define PM_SOURCE_REGISTRY(X) \
	X(PERF, perf)         \
	X(MSR, msr)           \
	X(HWMON, hwmon)       \
	X(REPLAY, replay)     \
	X(SIDEBAND, sideband) \
	X(TOOL, tool)

/* A source's index in the registry: what counters and PMUs name theirs by. */
enum pm_source_id {
#define PM_SOURCE_ID(id, name) PM_SRC_##id,
	PM_SOURCE_REGISTRY(PM_SOURCE_ID)
#undef PM_SOURCE_ID
		PM_SRC__N,
};

/* "perf", "msr": a source's name, as --source, list and messages call it. */
static inline const char *pm_source_name(enum pm_source_id id)
{
	static const char *const names[] = {
#define PM_SOURCE_NAME(id, name) [PM_SRC_##id] = #name,
		PM_SOURCE_REGISTRY(PM_SOURCE_NAME)
#undef PM_SOURCE_NAME
	};

	return (unsigned)id < PM_SRC__N ? names[id] : "?";
}

#endif
