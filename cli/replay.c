// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording counted again, for import and report: perf stat -x, or -j
 * output, pmumon's CSV or JSON Lines, a counts CSV, parsed into the
 * library's replay source, or a pmumon recording (FILE.db), fed to it from
 * SQLite as it plays (store/feed.c); on the machine its packs describe,
 * with the metrics asked for computed again; then played interval by
 * interval.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-replay.h"
#include "cli-values.h"
#include "cli-signals.h"
#include "util.h"
#include "store/store.h"

static bool packs_known(struct pm_ctx *ctx, const char *packs)
{
	const char *have = pm_ctx__packs(ctx);
	char *copy = strdup(packs), *save = NULL;
	bool ok = copy != NULL;

	for (char *p = ok ? strtok_r(copy, ",", &save) : NULL; p; p = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(p);
		bool found = false;

		for (const char *h = have; *h && !found;) {
			size_t l = strcspn(h, ",");

			found = l == n && !strncmp(h, p, n);
			h += l + (h[l] == ',');
		}
		if (!found) {
			cli_error("no platform pack '%s' (packs: built-in directories under data/, "
				  "or --events-dir)",
				  p);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

/* The file open for reading (standard input for "-"). 0, or the exit status (said). */
static int open_input(const struct cli_replay_args *a, int *ret_fd,
		      enum pm_replay_format *ret_format)
{
	struct stat st;

	if (a->run) {
		cli_error("--run picks a run of a pmumon recording (FILE.db); '%s' is not one",
			  a->file);
		return EXIT_USAGE;
	}
	if (store_is_empty(a->file)) {
		/* what record leaves when it is killed before its first interval (no longer
		 * since it creates nothing until then), or any empty file */
		cli_error("'%s' is empty: a recording with no intervals (or no recording at all)",
			  a->file);
		return EXIT_FAIL;
	}
	*ret_fd = strcmp(a->file, "-") ? open(a->file, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	if (*ret_fd < 0 || (fstat(*ret_fd, &st) == 0 && S_ISDIR(st.st_mode))) {
		cli_error("cannot read '%s': %s", a->file, strerror(*ret_fd < 0 ? errno : EISDIR));
		if (*ret_fd >= 0)
			close(*ret_fd);
		return EXIT_FAIL;
	}
	*ret_format = a->format;
	return 0;
}

int cli_replay__can_give(const char *recorded, enum pm_aggr want, char *why, size_t size)
{
	static const struct {
		const char *recorded;
		unsigned gives; /* 1 << enum pm_aggr */
		const char *which;
	} levels[] = {
		{ "device",
		  1u << PM_AGGR_DEVICE | 1u << PM_AGGR_CHANNEL | 1u << PM_AGGR_DIE |
			  1u << PM_AGGR_SOCKET,
		  "per device, channel, die, socket or in total" },
		{ "channel", 1u << PM_AGGR_CHANNEL | 1u << PM_AGGR_DIE | 1u << PM_AGGR_SOCKET,
		  "per channel, die, socket or in total" },
		{ "die", 1u << PM_AGGR_DIE | 1u << PM_AGGR_SOCKET, "per die, socket or in total" },
		{ "socket", 1u << PM_AGGR_SOCKET, "per socket or in total" },
		{ "cpu", 1u << PM_AGGR_CPU | 1u << PM_AGGR_DIE | 1u << PM_AGGR_SOCKET,
		  "per CPU, die, socket or in total" },
	};
	const char *which = "as it was recorded or in total";

	if (want == PM_AGGR_FAMILY || !strcmp(recorded, cli_aggr_name(want)))
		return 0;
	for (size_t i = 0; i < PM_ARRAY_SIZE(levels); i++) {
		if (strcmp(levels[i].recorded, recorded) != 0)
			continue;
		if (levels[i].gives & (1u << want))
			return 0;
		which = levels[i].which;
	}
	snprintf(why, size, "it was recorded %s%s, so it has no rows %s%s: it gives rows %s",
		 !strcmp(recorded, "family") ? "in total" : "per ",
		 !strcmp(recorded, "family") ? "" : recorded, want == PM_AGGR_FAMILY ? "" : "per ",
		 cli_aggr_name(want), which);
	return -EINVAL;
}

/* A pmumon recording (FILE.db), fed to the library as it plays: 0, or the exit status
 * (said). The packs its machine matched, the constants its metrics were given. */
static int feed_recording(struct cli_replay *rp, const struct cli_replay_args *a,
			  const struct cli_count *c, struct pm_replay **ret, char *packs,
			  size_t packs_size)
{
	struct store_run_info *info = calloc(1, sizeof(*info));
	const char *why = "";
	char level[512];
	int r = info ? store_open_read(a->file, &rp->store, &why) : -ENOMEM;

	if (r == 0)
		r = store_run(rp->store, a->run, info);
	if (r == -ENOENT)
		why = a->run ? "it has no such run (--run)" : "it holds no run";
	if (r == 0 && c->n_aggr &&
	    cli_replay__can_give(info->aggr, c->aggr, level, sizeof(level)) < 0) {
		cli_error("cannot read the recording '%s' so: %s", a->file, level);
		free(info);
		return EXIT_USAGE;
	}
	if (r == 0)
		r = store_feed(rp->store, info->id, a->from_ns, a->to_ns ? a->to_ns : INT64_MAX,
			       ret, &rp->feed, &why);
	if (r == 0) {
		snprintf(packs, packs_size, "%s", info->platform);
		snprintf(rp->defines, sizeof(rp->defines), "%s", info->defines);
	}
	free(info);
	if (r < 0) {
		cli_error("cannot read the recording '%s': %s", a->file,
			  r == -ENOMEM ? "out of memory" : why);
		return EXIT_FAIL;
	}
	return 0;
}

/* The recording, read through once: 0, or the exit status (said). */
static int read_recording(struct cli_replay *rp, const struct cli_replay_args *a,
			  const struct cli_count *c, struct pm_replay **ret, char *packs,
			  size_t packs_size)
{
	struct pm_replay_opts ro = { .size = sizeof(ro) };
	struct pm_diag d;
	int fd = -1;
	int r;

	if (store_is_recording(a->file))
		return feed_recording(rp, a, c, ret, packs, packs_size);
	r = open_input(a, &fd, &ro.format);
	if (r)
		return r;
	ro.sep = a->sep;
	ro.name = a->file;
	ro.duration_ns = (uint64_t)(a->duration_s * 1e9);
	r = pm_replay__read(fd, &ro, ret, &d); /* it takes fd over */
	if (r < 0) {
		cli_report(a->file, r, &d);
		return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
	}
	return 0;
}

/* What the recording lacks, said before its rows. */
static void say_gaps(const struct cli_replay_args *a, const struct pm_replay *rp)
{
	char note[1024];

	if (pm_replay__unsupported(rp, note, sizeof(note)) == 0 && note[0])
		cli_info("left out, not supported where they were counted: %s", note);
	if (!pm_replay__duration_known(rp))
		cli_info("%s has totals without a duration_time row: metrics that divide by "
			 "duration_time are <not counted>; give --duration SECONDS",
			 a->file);
}

/* The constants the recording's metrics were given (its run's defines), before any
 * --define given now (which wins): 0 or -errno (said). */
static int recorded_defines(struct cli_replay *rp)
{
	char copy[sizeof(rp->defines)], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", rp->defines);
	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char name[128];
		double v;
		int r;

		if (cli_parse_define(p, name, sizeof(name), &v) < 0)
			continue; /* said: a recording's constant pmumon cannot read is left out */
		r = pm_evlist__define(rp->l, name, v);
		if (r < 0) {
			cli_error("the recording's constant %s: %s", p, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The recording's events and c's metrics, resolved and opened: 0 or the exit status. */
static int replay_session(struct cli_replay *rp, const struct cli_replay_args *a,
			  const struct cli_count *c, enum pm_aggr aggr, const char *packs)
{
	struct pm_session_opts so = { .size = sizeof(so), .target = PM_TARGET_SYSTEM };
	struct pm_diag d;
	int r;

	if (packs && !packs_known(rp->ctx, packs))
		return EXIT_USAGE;
	r = pm_evlist__new(rp->ctx, &rp->l);
	if (r == 0 && !a->events_named)
		r = pm_evlist__add_recorded(rp->l, &d);
	/* an event the recording has only as <not supported> is left out (said above) */
	for (size_t i = 0; r == 0 && a->events_named && i < a->n_events; i++)
		if ((r = pm_evlist__add_recorded_event(rp->l, a->events[i], &d)) == -ENOENT)
			r = 0;
	if (r < 0) {
		cli_report(a->file, r, &d);
		return r == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
	}
	r = recorded_defines(rp);
	if (r < 0)
		return EXIT_FAIL;
	if (cli_count__add(c, rp->l) < 0)
		return EXIT_USAGE;
	so.aggr = c->n_aggr ? c->aggr : aggr;
	so.cache_level = c->cache_level;
	r = pm_session__new(rp->l, &so, &rp->s, &d);
	if (r == 0)
		r = pm_session__open(rp->s, &d);
	if (r < 0) {
		cli_report(a->file, r, &d);
		return EXIT_FAIL;
	}
	return 0;
}

int cli_replay__open(struct cli_replay *rp, const struct cli_replay_args *a,
		     const struct cli_count *c)
{
	struct pm_replay *rec = NULL;
	const char *packs = a->packs;
	char recorded[256] = ""; /* a pmumon recording's packs */
	enum pm_aggr aggr;
	int r;

	*rp = (struct cli_replay){ .oo = { .size = sizeof(rp->oo) } };
	r = read_recording(rp, a, c, &rec, recorded, sizeof(recorded));
	if (r)
		return r;
	rp->n_samples = pm_replay__sample_count(rec);
	rp->intervals = pm_replay__intervals(rec);
	aggr = pm_replay__aggr(rec);
	rp->oo.simulated = pm_replay__sim_platform(rec) != NULL;
	if (rp->oo.simulated && pm_replay__sim_platform(rec)[0])
		snprintf(rp->sim_platform, sizeof(rp->sim_platform), "%s",
			 pm_replay__sim_platform(rec));
	rp->oo.sim_platform = rp->sim_platform[0] ? rp->sim_platform : NULL;
	snprintf(rp->target, sizeof(rp->target), "'%s' (%s, imported)", a->file,
		 pm_replay__format_name(rec));
	rp->oo.target = rp->target;
	say_gaps(a, rec);
	if (!packs && recorded[0])
		packs = recorded; /* a recording says what its machine was */
	if (cli_ctx_new_replay(rec, packs, a->cpuid, &rp->ctx) < 0) /* it owns rec now */
		return EXIT_FAIL;
	r = replay_session(rp, a, c, aggr, packs);
	/* the machine's CPU id goes on with the counts, as stat's does */
	rp->oo.cpuid = pm_ctx__cpuid(rp->ctx)[0] ? pm_ctx__cpuid(rp->ctx) : NULL;
	return r;
}

int cli_replay__play(struct cli_replay *rp, cli_report_hook hook, void *arg)
{
	sigset_t none;
	int r;

	/* a replay programs no counter, so a signal may end it where it stands */
	sigemptyset(&none);
	cli_signals_setup(&none);
	r = pm_session__enable(rp->s);
	for (size_t i = 0; r == 0 && i < rp->n_samples; i++) {
		r = pm_session__read(rp->s);
		if (r < 0)
			cli_report("replaying the recording", r, pm_session__last_error(rp->s));
		else if (rp->intervals)
			r = hook(arg, pm_session__report(rp->s, true));
	}
	if (r == 0)
		r = hook(arg, pm_session__report(rp->s, false));
	pm_session__disable(rp->s);
	return r;
}

void cli_replay__close(struct cli_replay *rp)
{
	pm_session__free(rp->s);
	pm_evlist__free(rp->l);
	pm_ctx__free(rp->ctx); /* the replay with it, before what feeds it */
	store_feed_free(rp->feed);
	store_close(rp->store);
	*rp = (struct cli_replay){ 0 };
}
