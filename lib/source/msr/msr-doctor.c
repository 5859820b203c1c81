// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon doctor's findings of the msr source (pm_source_ops.doctor): whether
 * pmumon may open /dev/cpu/N/msr, and whether the msr module lets it write,
 * where a matching pack reads through the msr driver. Reads only.
 */
#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "db/pack.h"
#include "source/msr/msr.h"
#include "source/source.h"

#define CAP_SYS_RAWIO 17 /* include/uapi/linux/capability.h */

/* The matching packs' entry for the msr driver, or NULL: they do not read through it. */
static const struct pm_driver_def *msr_driver(struct pm_ctx *ctx)
{
	for (size_t i = 0; pm_db__driver(ctx->db, i); i++)
		if (!strcmp(pm_db__driver(ctx->db, i)->module, "msr"))
			return pm_db__driver(ctx->db, i);
	return NULL;
}

/* Is the kernel module loaded (or built in with parameters): /sys/module/NAME? */
static bool module_loaded(struct pm_ctx *ctx, const char *module)
{
	char dir[160];

	snprintf(dir, sizeof(dir), "sys/module/%s", module);
	return pm_path_exists(ctx, dir);
}

/* The msr source's devices: root's (0600) and CAP_SYS_RAWIO's, where a pack reads through
 * them; the module's allow_writes. */
void pm_msr__doctor(struct pm_ctx *ctx, const struct pm_doctor_who *w, pm_doctor_fn fn, void *ud)
{
	const struct pm_driver_def *d = msr_driver(ctx);
	char buf[32], what[320];

	/* perf PMUs count the same (amd_uncore): the msr source is not needed here */
	bool alt = d && d->alt && module_loaded(ctx, d->alt);

	if (d && (w->uid != 0 || !pm_doctor_who__has(w, CAP_SYS_RAWIO))) {
		if (alt) {
			snprintf(what, sizeof(what),
				 "the msr source cannot open /dev/cpu/N/msr (it needs root and "
				 "CAP_SYS_RAWIO), and is not needed: %s counts the same through perf",
				 d->alt);
			fn(ud, PM_VERDICT_OK, "msr", what, NULL, PM_REASON_NONE);
		} else {
			fn(ud, PM_VERDICT_PROBLEM, "msr",
			   "the msr source cannot open /dev/cpu/N/msr: it needs root and "
			   "CAP_SYS_RAWIO",
			   "run as root with CAP_SYS_RAWIO (the devices are root's, mode 0600)",
			   PM_REASON_NONE);
		}
	}
	if (!d || pm_read_file(ctx, "sys/module/msr/parameters/allow_writes", buf, sizeof(buf)) < 0)
		return; /* not this machine's, not loaded, or only root may read it (0600) */
	if (alt && strcmp(buf, "on")) {
		/* no advice to allow MSR writes system-wide to silence a line: perf counts */
		snprintf(what, sizeof(what),
			 "msr.allow_writes is %s: the msr source's writes would be %s; not needed: "
			 "%s counts the same through perf",
			 buf, strcmp(buf, "off") ? "logged and taint the kernel" : "refused",
			 d->alt);
		fn(ud, PM_VERDICT_OK, "msr", what, NULL, PM_REASON_NONE);
	} else if (!strcmp(buf, "off")) {
		fn(ud, PM_VERDICT_PROBLEM, "msr",
		   "msr.allow_writes is off: the msr source cannot program counters",
		   "echo on > /sys/module/msr/parameters/allow_writes (as root), or count through "
		   "perf PMUs",
		   PM_REASON_NONE);
	} else if (!strcmp(buf, "default")) {
		fn(ud, PM_VERDICT_WARNING, "msr",
		   "msr.allow_writes is default: the kernel logs the msr source's writes ('Write "
		   "to unrecognized MSR') and marks itself tainted",
		   "echo on > /sys/module/msr/parameters/allow_writes (as root) to allow them "
		   "without the log",
		   PM_REASON_NONE);
	} else {
		snprintf(what, sizeof(what), "msr.allow_writes is %s", buf);
		fn(ud, PM_VERDICT_OK, "msr", what, NULL, PM_REASON_NONE);
	}
}
