/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A context: the machine pmumon counts on (or a recording of one), its log,
 * and pm_diag, what a failure says.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_CONTEXT_H
#define PMUMON_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The library's exported functions; everything else in it is hidden. */
#ifndef PM_API
#define PM_API __attribute__((visibility("default")))
#endif

#include "pmumon/os.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pm_ctx;
struct pm_pmu;
struct pm_alias;
struct pm_evlist;
struct pm_session;
struct pm_out;
struct pm_replay;
struct pm_snapshot;

/* ---- context ---------------------------------------------------------- */

enum pm_log_level {
	PM_LOG_WARN,
	PM_LOG_INFO,
	PM_LOG_DEBUG,
};

typedef void (*pm_log_fn)(enum pm_log_level level, const char *msg, void *userdata);
struct pm_diag;
/* A warning with a reason, as a diag (pm_ctx_opts.log_diag_fn). */
typedef void (*pm_log_diag_fn)(enum pm_log_level level, const struct pm_diag *d, void *userdata);

/*
 * A file given to the context (a pack from --events-dir): in memory, or
 * (data NULL) read through pm_ctx_opts.read_file only when a pack needs it,
 * as for a whole perf pmu-events tree of which one CPU uses a few files.
 * Messages about the file name it by its path: the user's name for it.
 */
struct pm_file {
	const char *path; /* '/'-separated: "mydir/mypack/pack.json" */
	const char *data; /* NULL: read it when needed */
	size_t len;
};

/* Read a pm_file whose data is NULL: a malloc'd buffer the library frees. Return: 0 or
 * -errno. */
typedef int (*pm_read_file_fn)(const char *path, char **ret_data, size_t *ret_len, void *userdata);

struct pm_ctx_opts {
	size_t size; /* sizeof(struct pm_ctx_opts): see the top of this file */
	/* Root of the machine's files for the real os ("/" when NULL). */
	const char *root;
	/* Another os behind the seam (the simulator); the context owns it. */
	const struct pm_os_ops *os_ops;
	void *os;
	bool simulated; /* numbers come from a simulation: say so everywhere */
	/*
	 * More packs, read after the built-in ones (the context copies them):
	 * directories with a pack.json, or a checkout of perf's pmu-events
	 * tree (its arch/<arch>/mapfile.csv picks the CPU's directory; sys/
	 * tables match PMUs by Compat). Later definitions of a metric win.
	 */
	const struct pm_file *extra_files;
	size_t n_extra_files;
	/*
	 * Count from a recording instead of this machine (pmumon import): the
	 * context takes it over, and its PMUs, CPUs and clock are the
	 * recording's. packs: the platform packs the recording's machine had,
	 * comma separated (NULL: the packs whose PMU family the file names).
	 */
	struct pm_replay *replay;
	const char *packs;
	pm_log_fn log_fn; /* NULL: silent */
	void *log_userdata;
	enum pm_log_level log_level;
	/*
	 * The messages that carry a reason (enum pm_reason: "run again with
	 * the reclaim option to reset it"), as a diag with msg, hint, reason
	 * and device, for a program with its own names for the library's
	 * options; called with log_userdata, at log_level. NULL: they go to
	 * log_fn like the rest, as "msg (hint)". Messages name the library's
	 * options, never pmumon's command-line flags.
	 */
	pm_log_diag_fn log_diag_fn;
	/*
	 * A recording's CPU, as perf's get_cpuid_str() prints it (x86
	 * "GenuineIntel-6-8F-8", arm64 the MIDR "0x00000000410fd490"): what
	 * the mapfile of a perf pmu-events tree and strcmp_cpuid_str() match.
	 * It wins over the CPU id the recording names; NULL: the recording's, if
	 * it names one. A live machine's is read from the machine.
	 */
	const char *cpuid;
	/*
	 * Reads the extra files given without data, when a pack needs them
	 * (called with read_file_userdata, during discovery; both must outlive
	 * the context). NULL: such files are missing.
	 */
	pm_read_file_fn read_file;
	void *read_file_userdata;
};

PM_API int pm_ctx__new(const struct pm_ctx_opts *opts, struct pm_ctx **ret_ctx);
PM_API void pm_ctx__free(struct pm_ctx *ctx);
/* The os the context counts through; NULL for a recording's context (it has
 * no files, counters or processes: only its own clock). */
PM_API const struct pm_os_ops *pm_ctx__os_ops(const struct pm_ctx *ctx);
PM_API void *pm_ctx__os(const struct pm_ctx *ctx);
PM_API bool pm_ctx__simulated(const struct pm_ctx *ctx);
/*
 * After discovery, what became of the packs' files: how many files or
 * entries the loader refused (each said through the log, with its file,
 * line and column: malformed JSON, a key of the wrong type, an entry that
 * is no event or metric), and whether extra file i (pm_ctx_opts.extra_files)
 * was read at all (a pack that matched named it, or perf's mapfile picked
 * its directory). A program decides whether counting with the rest is
 * right; pmumon refuses unless asked to be lenient, as perf always is.
 */
PM_API size_t pm_ctx__refused(const struct pm_ctx *ctx);
PM_API bool pm_ctx__extra_read(const struct pm_ctx *ctx, size_t i);

/*
 * Why a diag's fix is what it is, for a program that has its own names for
 * the library's options (pmumon's command line: its flags). The set is
 * stable: codes are only added, at the end. A hint with a reason ends with
 * the library's words for it, in the API's terms (from pm_diag.fix_at on);
 * such a program may put its own words in their place.
 */
enum pm_reason {
	PM_REASON_NONE,
	/* a counter programmed exactly as pmumon programs the events asked, which is
	 * what a pmumon killed with SIGKILL leaves: pm_session_opts.reclaim resets it */
	PM_REASON_NEEDS_RECLAIM,
	/* such a counter was reset because pm_session_opts.reclaim asked for it */
	PM_REASON_RECLAIMED,
	/* /dev/cpu/N/msr cannot count here: the kernel's perf PMUs may (PM_SOURCE_PERF) */
	PM_REASON_USE_SOURCE_PERF,
	/* the kernel has no perf PMU for it: /dev/cpu/N/msr can (PM_SOURCE_MSR or AUTO) */
	PM_REASON_USE_SOURCE_MSR,
	/* a sideband group needs a programming list (pm_session_opts.program) */
	PM_REASON_NEEDS_PROGRAM,
	/* no iosf_mbi: the host bridge's config space may carry the sideband
	 * (pm_session_opts.sideband_pci) */
	PM_REASON_SIDEBAND_PCI,
	/* iosf_mbi drives the bridge: pm_session_opts.sideband_pci would race it */
	PM_REASON_NO_SIDEBAND_PCI,
	/* a metric needs a constant no counter gives: pm_evlist__define (subject: its name) */
	PM_REASON_NEEDS_DEFINE,
	/* a recording needs its machine's pack named: pm_ctx_opts.packs (subject:
	 * the packs built in, comma separated, or "") */
	PM_REASON_NEEDS_PACK,
	/* the event counts whole CPUs or the uncore, not one task:
	 * PM_TARGET_SYSTEM or PM_TARGET_CPUS */
	PM_REASON_SYSTEM_WIDE,
	/* the CPUs asked leave out those the event counts on: PM_TARGET_SYSTEM,
	 * or PM_TARGET_CPUS with them (subject: the CPUs it counts on, or "") */
	PM_REASON_CPUS,
	/* after open: the device went away (the session goes on without it) */
	PM_REASON_DEVICE_LOST,
	/* after open: a read, a write or a control failed (the device, its driver, or
	 * the recording played) */
	PM_REASON_DEVICE_ERROR,
	/* what this machine has would show the right name: its PMUs (pm_ctx__pmu),
	 * their events (pm_pmu__alias), the packs' metrics (pm_ctx__metric)
	 * (subject: what to look at, as pmumon list takes it: "pmus", "events",
	 * "events PMU", "metrics"; "" for all) */
	PM_REASON_SEE_LIST,
	/* rows per NUMA node (PM_AGGR_NODE), and the machine lists no node:
	 * PM_AGGR_SOCKET or PM_AGGR_DIE */
	PM_REASON_NO_NODES,
	/* rows per cache of a level no CPU lists: pm_session_opts.cache_level a
	 * level they list, or 0 for each CPU's last (subject: the level asked, "3") */
	PM_REASON_CACHE_LEVEL,
	/* rows per cache (PM_AGGR_CACHE), and no CPU lists a cache: PM_AGGR_CORE,
	 * PM_AGGR_DIE or PM_AGGR_SOCKET */
	PM_REASON_NO_CACHES,
};

/*
 * What went wrong, for a person: msg names the thing, hint says how to fix
 * it (may be empty), and when the problem is in a text the user gave
 * (an event spec), input holds that text and pos/len the bad part.
 * reason says what kind of fix the hint ends with (hint[fix_at..] are the
 * library's words for it; fix_at is -1 without a reason), subject what
 * those words name beyond the device (see enum pm_reason), device the PMU
 * or device the failure is about ("" when none).
 */
struct pm_diag {
	char msg[512];
	char hint[512];
	char input[1024];
	int pos, len; /* -1 when there is no position */
	enum pm_reason reason;
	int fix_at;
	char device[64];
	char subject[128];
};

PM_API void pm_diag__init(struct pm_diag *d);

#ifdef __cplusplus
}
#endif
#endif
