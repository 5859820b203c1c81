// SPDX-License-Identifier: GPL-2.0-only
/*
 * The library's diags and warnings speak of its API ("a session with the
 * reclaim option"); a reason code (enum pm_reason) says which option a
 * hint's last words are about. This is the one place that turns them into
 * pmumon's flags, for every diag, warning and note the CLI prints.
 */
#include <stdio.h>
#include <string.h>

#include "cli-global.h"
#include "util.h"

/*
 * Each reason's words on pmumon's command line: without a subject, and
 * with one (between before and after). NULL: the library's words stand.
 */
static const struct {
	const char *words, *before, *after;
} flag_words[] = {
	[PM_REASON_NEEDS_RECLAIM] = { "run again with --reclaim to reset it" },
	[PM_REASON_RECLAIMED] = { "--reclaim" },
	[PM_REASON_USE_SOURCE_PERF] = { "count with --source perf where the kernel has "
					"amd_uncore" },
	[PM_REASON_USE_SOURCE_MSR] = { "count with --source msr or auto" },
	[PM_REASON_NEEDS_PROGRAM] = { "give the programming list captured from Intel's tools on "
				      "this machine with --program FILE (README.md, "
				      "'Merrifield'), or bring counts gathered elsewhere (SoC "
				      "Watch, VTune) with 'pmumon import'" },
	[PM_REASON_SIDEBAND_PCI] = { "where iosf_mbi is absent altogether, --sideband-pci uses "
				     "the host bridge's config space instead, at the risk of "
				     "racing the kernel's own users of the bus" },
	[PM_REASON_NO_SIDEBAND_PCI] = { "leave --sideband-pci out: iosf_sb goes through the "
					"kernel's lock" },
	[PM_REASON_NEEDS_DEFINE] = { "add --define NAME=VALUE", "add --define ", "=VALUE" },
	[PM_REASON_NEEDS_PACK] = { "name the counting machine's pack with --pack NAME",
				   "give the pack of the machine that counted with --pack NAME "
				   "(built in: ",
				   ")" },
	[PM_REASON_SYSTEM_WIDE] = { "count system-wide with -a (or on CPUs with -C)" },
	[PM_REASON_CPUS] = { "use -a, or add those CPUs to -C", "use -a, or add CPUs ", " to -C" },
	[PM_REASON_SEE_LIST] = { "run 'pmumon list' for what this machine counts",
				 "run 'pmumon list ", "'" },
	[PM_REASON_NO_NODES] = { "--per-node has nothing to go by here: use --per-socket or "
				 "--per-die" },
	[PM_REASON_CACHE_LEVEL] = { "--per-cache=LN: name a level the CPUs list (their "
				    "cache/index*/level), or give --per-cache alone for each CPU's "
				    "last level",
				    "--per-cache=L",
				    ": name a level the CPUs list (their cache/index*/level), or give "
				    "--per-cache alone for each CPU's last level" },
	[PM_REASON_NO_CACHES] = { "--per-cache has nothing to go by here: use --per-core or "
				  "--per-die" },
};

void cli_words(enum pm_reason reason, const char *text, int fix_at, const char *subject, char *buf,
	       size_t size)
{
	size_t r = (size_t)reason;
	const char *before = NULL;

	if (r >= PM_ARRAY_SIZE(flag_words) || !flag_words[r].words || fix_at < 0 ||
	    (size_t)fix_at > strlen(text)) {
		snprintf(buf, size, "%s", text);
		return;
	}
	before = flag_words[r].before;
	if (subject[0] && before)
		snprintf(buf, size, "%.*s%s%s%s", fix_at, text, before, subject,
			 flag_words[r].after);
	else
		snprintf(buf, size, "%.*s%s", fix_at, text, flag_words[r].words);
}

void cli_hint(const struct pm_diag *d, char *buf, size_t size)
{
	cli_words(d->reason, d->hint, d->fix_at, d->subject, buf, size);
}
