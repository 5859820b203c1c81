// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting the live machine, the way every command that does it goes:
 * stat, serve, top and record take the same options for where and through
 * what they count, make every check before anything changes, program and
 * start the counters with the ending signals caught, and read and poll
 * them with the same messages. Only what they do with the counts differs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-perfmode.h"
#include "cli-live.h"
#include "cli-values.h"
#include "cli-signals.h"
#include "util.h"

static int parse_source(const char *arg, enum pm_source_choice *ret)
{
	if (!strcmp(arg, "perf"))
		*ret = PM_SOURCE_PERF;
	else if (!strcmp(arg, "msr"))
		*ret = PM_SOURCE_MSR;
	else if (!strcmp(arg, "auto"))
		*ret = PM_SOURCE_AUTO;
	else {
		cli_error("--source is perf, msr or auto, not '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

int cli_live__option(struct cli_live_args *a, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_SOURCE:
		return parse_source(arg, &a->source) < 0 ? -EINVAL : 1;
	case CLI_OPT_PROGRAM:
		a->program = arg;
		return 1;
	case CLI_OPT_SIDEBAND_PCI:
		a->sideband_pci = true;
		return 1;
	case CLI_OPT_RECLAIM:
		a->reclaim = true;
		return 1;
	case 'a':
		a->all_cpus = true;
		return 1;
	case 'C':
		a->cpus = arg;
		return 1;
	case 'I':
		if (cli_parse_uint("-I", arg, 3600000, &a->interval_ms) < 0)
			return -EINVAL;
		if (a->interval_ms < 1) {
			cli_error("option -I wants at least 1 ms");
			return -EINVAL;
		}
		return 1;
	default:
		return 0;
	}
}

int cli_live__check(const struct cli_live_args *a)
{
	if (a->all_cpus && a->cpus) {
		cli_error("give either -a or -C, not both");
		return -EINVAL;
	}
	return 0;
}

void cli_live__usage_source(FILE *f)
{
	fputs("      --source SRC      where AMD Data Fabric, L3 and APERF/MPERF counts come\n"
	      "                        from: perf (the kernel's PMUs), msr (/dev/cpu/N/msr,\n"
	      "                        as seed 004 does: root, the msr driver; 8 DF events\n"
	      "                        rotate over 4 counters every 100 ms), or auto (perf)\n"
	      "      --program FILE    Merrifield: the programming list that selects the\n"
	      "                        UNC_SOC_* groups' events on the SoC counters, captured\n"
	      "                        from Intel's tools (docs/sideband.md); counted through\n"
	      "                        debugfs iosf_sb, system-wide\n"
	      "      --sideband-pci    where the kernel has no iosf_mbi at all, reach the\n"
	      "                        sideband through the host bridge's PCI config space\n"
	      "                        (races with the kernel's own users of the bus)\n"
	      "      --reclaim         reset and use BlueField slots and DF/L3 counters that\n"
	      "                        count exactly what pmumon programs for these events:\n"
	      "                        what a pmumon killed with SIGKILL leaves (without it\n"
	      "                        they are named and left alone); anything else stays\n"
	      "                        left alone\n",
	      f);
}

void cli_live__usage_where(FILE *f)
{
	fputs("  -a, --all-cpus        every CPU (the default without a COMMAND)\n"
	      "  -C, --cpu LIST        these CPUs (0-3,8); uncore events use the CPUs of\n"
	      "                        their PMU's cpumask that are in LIST\n",
	      f);
}

/* The whole --program file, for the library to parse; NULL after an error said why. */
static char *read_program(const char *path, size_t *ret_len)
{
	char *buf = NULL;
	int r = cli_read_file(path, 16u << 20, &buf, ret_len);

	if (r == -EFBIG)
		cli_error("the programming list '%s' is too large (16 MiB at most)", path);
	else if (r < 0)
		cli_error("cannot read the programming list '%s': %s", path, strerror(-r));
	return r < 0 ? NULL : buf;
}

int cli_live__machine(struct cli_live *lv, const struct cli_live_args *a, const struct cli_count *c)
{
	if (!lv->ctx && cli_ctx_new(&lv->ctx) < 0)
		return EXIT_FAIL;
	lv->ops = pm_ctx__os_ops(lv->ctx);
	lv->os = pm_ctx__os(lv->ctx);
	lv->so = (struct pm_session_opts){
		.size = sizeof(lv->so),
		.aggr = c->aggr,
		.cache_level = c->cache_level,
		.space = c->space,
		.source = a->source,
		.sideband_pci = a->sideband_pci,
		.reclaim = a->reclaim,
		.leave_out_unsupported_defaults = a->leave_out_unsupported_defaults,
		.device_per_socket = a->device_per_socket,
		.target = a->cpus ? PM_TARGET_CPUS : PM_TARGET_SYSTEM,
		.cpus = a->cpus,
		/* alone, --no-merge made the rows per device already */
		.no_merge = c->no_merge && c->aggr != PM_AGGR_DEVICE,
		/* perf runs on when no event can be counted: every row <not supported> */
		.allow_none_counted = arg_global.perf_mode,
		.bpf_counters = c->bpf_counters,
	};
	if (a->program) {
		lv->program = read_program(a->program, &lv->so.program_len);
		if (!lv->program)
			return EXIT_FAIL;
		lv->so.program = lv->program;
		lv->so.program_name = a->program;
	}
	return 0;
}

int cli_live__events(struct cli_live *lv, const struct cli_count *c)
{
	struct pm_diag d;
	char desc[1024];
	int r;

	if (pm_evlist__new(lv->ctx, &lv->l) < 0) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	r = cli_count__add(c, lv->l);
	if (r < 0)
		return EXIT_USAGE;
	if (!c->n_events && !c->n_metrics && arg_global.perf_mode) {
		/* perf's target__has_cpu: -a (with --per-thread too) and -C count cpu-clock */
		r = cli_perf_defaults(lv->ctx, lv->l,
				      lv->so.all_threads || (lv->so.target != PM_TARGET_TASK &&
							     lv->so.target != PM_TARGET_THREADS));
		if (r)
			return r;
	} else if (!c->n_events && !c->n_metrics && !c->attribute_cgroups && !c->attribute_pods) {
		/* in cgroups, perf's defaults: a pack's count the whole die's uncore */
		r = (c->cgroups ? pm_evlist__add_perf_defaults :
				  pm_evlist__add_defaults)(lv->l, lv->so.target != PM_TARGET_TASK,
							   desc, sizeof(desc), &d);
		if (r < 0) {
			cli_report("the default events", r, &d);
			return EXIT_USAGE;
		}
		cli_info("counting %s", desc);
	}
	/* perf appends its -d sets to the defaults or to the events given alike */
	pm_diag__init(&d);
	r = pm_evlist__add_detailed(lv->l, c->detailed, &d);
	if (r < 0) {
		cli_report("the detailed events (-d)", r, &d);
		return EXIT_USAGE;
	}
	r = cli_count__add_cgroups(c, lv->l);
	if (r == 0 && c->attribute_pods) { /* the pods as counted, to see them change */
		free(lv->pods_key);
		lv->pods_key = NULL;
		lv->attribute_pods = c->attribute_pods;
		r = cli_pods_key(c->attribute_pods, lv->ctx, &lv->pods_key);
		if (r < 0)
			cli_error("cannot look for the kubelet's pods: %s", strerror(-r));
	}
	if (r == 0)
		r = cli_count__add_attribution(c, lv->ctx, lv->l, NULL);
	return r < 0 ? EXIT_USAGE : 0;
}

int cli_live__session(struct cli_live *lv)
{
	struct pm_diag d;
	int r = pm_session__new(lv->l, &lv->so, &lv->s, &d);

	if (r < 0) {
		cli_report("counting", r, &d);
		return r == -EINVAL && d.pos >= 0 ? EXIT_USAGE : EXIT_FAIL;
	}
	return 0;
}

/* Which events the msr source reads (the rest come from perf). */
static void say_msr_events(const struct pm_session *s, const struct pm_evlist *l)
{
	char buf[1024] = "";
	size_t off = 0;

	for (size_t e = 0; e < pm_evlist__count(l); e++) {
		const char *src = pm_session__event_source(s, e);

		if (!src || strcmp(src, "msr") != 0)
			continue;
		off += (size_t)snprintf(buf + off, off < sizeof(buf) ? sizeof(buf) - off : 0,
					"%s%s", off ? ", " : "", pm_evlist__name(l, e));
		if (off >= sizeof(buf))
			break;
	}
	if (buf[0])
		cli_info("read through /dev/cpu/N/msr: %s", buf);
}

/*
 * From the first register pmumon writes (open programs the sideband's
 * selects) every signal that ends the run is caught: the way out puts
 * everything back, whatever the signal.
 */
int cli_live__open(struct cli_live *lv, const sigset_t *ending)
{
	char dropped[1024];
	struct pm_diag d;
	int r;

	cli_signals_setup(ending);
	r = pm_session__open(lv->s, &d);
	if (r < 0) {
		cli_report("counting", r, &d);
		return r == -EINVAL && d.pos >= 0 ? EXIT_USAGE : EXIT_FAIL;
	}
	pm_session__dropped(lv->s, dropped, sizeof(dropped));
	if (dropped[0] && !lv->dropped_said)
		cli_info("left out, not supported here: %s", dropped);
	if (!lv->dropped_said)
		say_msr_events(lv->s, lv->l);
	lv->dropped_said = true;
	return 0;
}

/*
 * A failure after open, as the library says it (pm_session__last_error:
 * what failed, where and why, not guessed from the error number), then what
 * the run does about it.
 */
static void say_failure(const struct cli_live *lv, int r, const char *then)
{
	struct pm_diag d = *pm_session__last_error(lv->s);

	snprintf(d.msg, sizeof(d.msg), "%s%s", pm_session__last_error(lv->s)->msg, then);
	cli_report("counting", r, &d);
}

int cli_live__enable(struct cli_live *lv)
{
	int r = pm_session__enable(lv->s);

	if (r < 0) {
		say_failure(lv, r, "");
		return EXIT_FAIL;
	}
	return 0;
}

int cli_live__read(struct cli_live *lv)
{
	int r = pm_session__read(lv->s);

	if (r < 0) {
		lv->failed = true;
		say_failure(lv, r, "; stopping, with the totals up to the last good read");
		if (pm_session__last_error(lv->s)->reason == PM_REASON_DEVICE_LOST)
			lv->lost_said = pm_session__lost_count(lv->s);
	}
	return r;
}

int cli_live__poll(struct cli_live *lv)
{
	int r = pm_session__poll(lv->s);

	if (r < 0) {
		say_failure(lv, r, "; stopping, with the totals up to the last good read");
		lv->failed = true;
		lv->lost_said = pm_session__lost_count(lv->s);
	}
	return r;
}

int cli_live__tick(struct cli_live *lv, uint64_t step_ns)
{
	if (!lv->next_ns || lv->step_ns != step_ns) {
		lv->step_ns = step_ns;
		lv->next_ns = lv->ops->mono_ns(lv->os) + step_ns;
	}
	for (;;) {
		uint64_t poll = pm_session__next_poll(lv->s);
		uint64_t now, deadline = PM_MIN(lv->next_ns, poll);
		int w = lv->ops->wait(lv->os, deadline, NULL, NULL);

		if (w < 0) {
			cli_error("waiting for the next interval failed: %s", strerror(-w));
			lv->failed = true;
			return w;
		}
		if (w == PM_OS_WAKE_SIGNAL)
			return 0; /* the caller asks cli_signals_caught (or its own flag) why */
		now = lv->ops->mono_ns(lv->os);
		if (now >= poll && now < lv->next_ns) {
			int r = cli_live__poll(lv);

			if (r < 0)
				return r;
		}
		if (now >= lv->next_ns) {
			int r = cli_live__read(lv);

			while (lv->next_ns <= now)
				lv->next_ns += step_ns;
			return r < 0 ? r : 1;
		}
	}
}

bool cli_live__say_lost(struct cli_live *lv)
{
	size_t lost = lv->s ? pm_session__lost_count(lv->s) : 0;

	for (size_t i = lv->lost_said; i < lost; i++)
		cli_error("%s went away while counting (device removed or driver unloaded): its "
			  "counts end at its last good read",
			  pm_session__lost_device(lv->s, i));
	lv->lost_said = lost;
	return lost > 0;
}

void cli_live__close(struct cli_live *lv, bool events)
{
	if (lv->s)
		pm_session__disable(lv->s);
	pm_session__free(lv->s); /* puts back what it programmed */
	lv->s = NULL;
	lv->next_ns = 0;
	lv->lost_said = 0;
	if (!events)
		return;
	pm_evlist__free(lv->l);
	lv->l = NULL;
	free(lv->program);
	lv->program = NULL;
	free(lv->pods_key);
	lv->pods_key = NULL;
}

void cli_live__free(struct cli_live *lv)
{
	cli_live__close(lv, true);
	pm_ctx__free(lv->ctx);
	*lv = (struct cli_live){ 0 };
}
