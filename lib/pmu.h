/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A PMU as pmumon sees it, whichever source feeds it: a name, a family, the
 * CPUs its events open on, the terms it understands (format), the events it
 * names (aliases, from sysfs or from a platform pack), and what packs know of
 * its hardware (traits: counters, width, group rules).
 */
#ifndef PM_PMU_H
#define PM_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "source/format.h"
#include "source/id.h"
#include "util/cpus.h"

struct pm_ctx;

/* What a pack knows about a PMU family that sysfs does not say. */
struct pm_pmu_traits {
	char *unit;	    /* PMU family it applies to ("ali_drw", "amd_df") */
	char *compat;	    /* identifier it must have, NULL = any */
	int counters;	    /* general-purpose counters per instance, -1 unknown */
	int fixed_counters; /* dedicated counters (e.g. ali_drw's cycle counter) */
	int width;	    /* counter width in bits, 0 unknown */
	int group_max;	    /* events of this PMU one group may hold, 0 = no known limit */
	bool no_exclude;    /* rejects exclude_user/kernel/hv (PERF_PMU_CAP_NO_EXCLUDE) */
	bool cpu_wide_only; /* rejects per-task events */
	bool sw_context;    /* in the kernel's software context: never competes for
			     * counters, may share a group with any such PMU */
	char *note;
	const char *pack; /* the pack that said so (borrowed) */
};

struct pm_format_entry {
	char *name;
	char *text; /* as sysfs wrote it, for `list` */
	struct pm_format f;
};

struct pm_alias {
	char *name;
	char *terms; /* perf terms: "config=0x2", "event=0x07,umask=0x38" */
	char *desc;
	char *unit;   /* NULL: a plain count */
	double scale; /* 1.0 unless .scale / ScaleUnit says otherwise */
	bool per_pkg;
	bool snapshot;
	const char *origin; /* "sysfs" or the pack's name (borrowed) */
};

/*
 * Where a PMU instance sits in the memory system, decoded from its name by a
 * pack's InstanceTopology (db/pack.c): -1 where the pack says nothing.
 */
struct pm_pmu_place {
	int die;		/* from the name, not from the cpumask CPU */
	int channel;		/* within the die */
	int subchannel;		/* within the channel */
	char label[64];		/* "die0/ch2/sub1" ("" when not placed) */
	char channel_label[32]; /* "die0/ch2" */
};

struct pm_pmu {
	char *name;
	char *family;
	enum pm_source_id source; /* the source that provides it (source/id.h) */
	/* its name when the source is one a context added (pm_ctx__add_source: a
	 * test's), borrowed; NULL: the registry's name for source */
	const char *source_name;
	uint32_t type;
	bool uncore;	     /* has a cpumask: its events open only on those CPUs */
	bool cpuless;	     /* its events are one counter each, on no CPU (source/tool/tool.c) */
	struct pm_cpus cpus; /* cpumask (uncore) or cpus (a hybrid core PMU); empty = all */
	struct pm_format_entry *formats;
	size_t n_formats, cap_formats;
	struct pm_alias *aliases;
	size_t n_aliases, cap_aliases;
	/* the aliases by name, for pm_pmu__find_alias: a pack of thousands of events
	 * would otherwise cost n^2 name comparisons (alias index + 1, 0: free) */
	uint32_t *alias_slots;
	size_t n_alias_slots, n_alias_indexed; /* indexed: the first n added through add_alias */
	char *identifier;
	int mux_interval_ms;		    /* -1 when the file is absent */
	const struct pm_pmu_traits *traits; /* NULL when no pack knows it */
	/* its source's own data about it (a hwmon block's files: source/hwmon/hwmon.h),
	 * which only that source knows the type of, and what frees it, set with it */
	void *priv;
	void (*priv_free)(void *priv);
	/* what the device's own files say of its counters (a hwmon block: register
	 * blocks are free-running, 0), over any pack's traits; -1: nothing said */
	int own_counters, own_width;
	struct pm_pmu_place place; /* its topology, when a pack decodes its name */
	bool place_fixed;	   /* a recording's channel: place is the recording's */
};

/* Length of name without its instance suffix, perf's rule
 * (tools/perf/util/pmus.c pmu_name_len_no_suffix): a '_' followed by decimal
 * digits, or by more than 2 hex digits (so "amd_df" stays whole). */
size_t pm_pmu_family_len(const char *name);

int pm_pmu__new(const char *name, struct pm_pmu **ret);
void pm_pmu__free(struct pm_pmu *p);
const struct pm_format_entry *pm_pmu__find_format(const struct pm_pmu *p, const char *name);
const struct pm_alias *pm_pmu__find_alias(const struct pm_pmu *p, const char *name);
/* Add a format or alias; the PMU copies the strings. */
int pm_pmu__add_format(struct pm_pmu *p, const char *name, const char *text,
		       const struct pm_format *f);
/* Add a format from its sysfs text ("config:0-7,32-35"), as a source defines it. */
int pm_pmu__add_format_text(struct pm_pmu *p, const char *name, const char *text);
int pm_pmu__add_alias(struct pm_pmu *p, const struct pm_alias *a);
/* Does the PMU match a name, a family or a glob over names? */
bool pm_pmu__matches(const struct pm_pmu *p, const char *pattern);
/* perf's is_pmu_core(): "cpu" (s390's "cpum_cf"), or a hybrid's core PMU (its cpus file,
 * no cpumask: cpu_core, cpu_atom, armv8_pmuv3_0). */
bool pm_pmu__is_core(const struct pm_pmu *p);

#endif
