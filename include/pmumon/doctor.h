/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Doctor: what this machine can count, and why not.
 * Part of libpmumon's public API: pmumon/pmumon.h includes it, and its
 * top comment (conventions, options, threads) holds for it.
 */
#ifndef PMUMON_DOCTOR_H
#define PMUMON_DOCTOR_H

#include "pmumon/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- doctor: what this machine can count, and why not ------------------ */

enum pm_verdict {
	PM_VERDICT_OK,
	PM_VERDICT_WARNING, /* counting works, with a limit worth knowing */
	PM_VERDICT_PROBLEM, /* something cannot be counted until the fix is applied */
};

struct pm_finding {
	enum pm_verdict verdict;
	char topic[16]; /* "user", "perf", "lockdown", "driver", "msr", "machine",
			 * "watchdog", "container", "counters", "metrics" */
	char what[600]; /* one line: what was found */
	char fix[520];	/* the command or change that fixes it; "" when none is needed */
	/* as in struct pm_diag: the reason fix ends with (fix[fix_at..] are the
	 * library's words for it; fix_at -1: none) and what those words name */
	enum pm_reason reason;
	int fix_at;
	char subject[128];
};

/*
 * Look the machine over (docs/doctor.md): privileges, kernel lockdown, the
 * drivers the matching packs read through, msr writes, a hypervisor, the
 * NMI watchdog, a container, counters another pmumon holds, and which of
 * the packs' metrics can be computed here. Reads only: nothing is opened
 * for counting. *ret (free() it) gets *ret_n findings. 0, or -errno.
 */
PM_API int pm_ctx__doctor(struct pm_ctx *ctx, struct pm_finding **ret, size_t *ret_n);

#ifdef __cplusplus
}
#endif
#endif
