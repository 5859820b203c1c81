/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Resolved events. An event is what the user asked for and what a row of
 * output is named after ("ali_drw/hif_rd/"); it has one instance per PMU it
 * counts on (16 when the spec names the ali_drw family), each with the exact perf_event_attr
 * the kernel gets. The session turns instances into counters, one per CPU.
 */
#ifndef PM_EVLIST_H
#define PM_EVLIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "metric/compiled.h"
#include "util/cpus.h"
#include "pmumon/pmumon.h"

struct pm_pmu;
struct pm_attrib;

struct pm_event {
	char *label;   /* row name: "ali_drw/hif_rd/", "cycles:u", or name= */
	char *unit;    /* NULL: a plain count */
	double scale;  /* applied to the count (.scale, ScaleUnit) */
	bool per_pkg;  /* count once per package/die, not per CPU */
	bool snapshot; /* a current value, not an accumulating count */
	bool optional; /* a default: <not supported> quietly (-v says why), or left out */
	char *cgroup;  /* counted in this cgroup only (its path under the cgroup2 mount) */
	bool detailed; /* a -d level's: a <not supported> row, said as info, as perf */
	int group;     /* {group} index within the evlist, -1 none */
	bool weak;     /* its group is weak (:W): counted ungrouped when the kernel refuses it */
	size_t first_inst, n_inst;
	/* perf's cpu= term (newer perf than 6.1): counts only on these CPUs when
	 * system-wide; a CPU list (-C) replaces them, as in perf. Empty: no term. */
	struct pm_cpus cpus;
	char *spec; /* the spec text, for messages */
	size_t spec_pos, spec_len;
};

struct pm_evinst {
	size_t event;		  /* index into pm_evlist.ev */
	const struct pm_pmu *pmu; /* NULL for generic hardware events */
	const char *device;	  /* PMU instance name for rows ("cpu" for generic) */
	struct perf_event_attr attr;
};

struct pm_evlist {
	struct pm_ctx *ctx;
	struct pm_event *ev;
	size_t n_ev, cap_ev;
	struct pm_evinst *inst;
	size_t n_inst, cap_inst;
	int n_groups;
	struct pm_metric *metrics; /* metric/compiled.h; rows are built inputs first */
	size_t n_metrics, cap_metrics;
	struct pm_define *defines;
	size_t n_defines, cap_defines;
	struct pm_note *notes; /* what the metrics' readers should know (metric.c) */
	size_t n_notes, cap_notes;
	struct pm_attrib *attrib; /* memory traffic per cgroup (attrib.c), NULL: none */
	/* attrib.c's pm_attrib__free, set with attrib: the list frees it without naming attrib.c,
	 * which builds on the list (its metrics, its cgroup events) */
	void (*attrib_free)(struct pm_attrib *a);
};

/* A note, and the reason its last words are (text[fix_at..], as in pm_diag). */
struct pm_note {
	char *text;
	enum pm_reason reason;
	int fix_at;
	const char *subject; /* a pack's constant's name, or "" */
};

/* Events [0, n) once more at the list's end, with their instances and groups (numbered
 * after the list's), counted in cgroup (NULL: none): 0, or -ENOMEM and the list as it was. */
int pm_evlist_repeat(struct pm_evlist *l, size_t n, const char *cgroup);

/* Drop the events added after the list had n_ev events (a failed metric's). */
void pm_evlist_truncate(struct pm_evlist *l, size_t n_ev, size_t n_inst, int n_groups);

#endif
