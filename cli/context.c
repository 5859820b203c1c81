// SPDX-License-Identifier: GPL-2.0-only
/*
 * The library context of the machine the global options name (the host,
 * --root's tree, --sim's simulated machine, or a recording's machine), with
 * the packs of --events-dir and the library's messages said on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-global.h"
#include "cli-values.h"
#include "cli-text.h"
#include "util.h"
#include "pmumon/sim.h"

static void log_to_stderr(enum pm_log_level level, const char *msg, void *userdata)
{
	if (arg_global.perf_mode && !arg_global.verbose)
		return; /* perf mode says what perf says; the rows carry the doubt (-v: all) */
	fputs(level == PM_LOG_WARN ? "pmumon: warning: " : "pmumon: ", stderr);
	cli_escape(stderr, msg, strlen(msg));
	fputc('\n', stderr);
}

/* A message with a reason: its hint in pmumon's words, after it. */
static void log_diag_to_stderr(enum pm_log_level level, const struct pm_diag *d, void *userdata)
{
	char hint[sizeof(d->hint) + 256];

	if (arg_global.perf_mode && !arg_global.verbose)
		return;
	cli_hint(d, hint, sizeof(hint));
	fputs(level == PM_LOG_WARN ? "pmumon: warning: " : "pmumon: ", stderr);
	cli_escape(stderr, d->msg, strlen(d->msg));
	if (hint[0]) {
		fputs(" (", stderr);
		cli_escape(stderr, hint, strlen(hint));
		fputc(')', stderr);
	}
	fputc('\n', stderr);
}

/*
 * ---- --events-dir: the JSON and mapfiles under a directory, listed ------------------------
 *
 * Only their names are given to the context: a whole perf pmu-events tree is
 * ~25 MB, of which the library reads (read_events_file) the mapfile, the one
 * CPU directory it picks, the arch's standard events and the sys/ tables.
 */

#define EVENTS_DIR_MAX_FILES 20000
#define EVENTS_FILE_MAX_BYTES (64u << 20)

struct file_list {
	struct pm_file *f;
	size_t n, cap;
};

static void file_list_done(struct file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((char *)l->f[i].path);
	free(l->f);
	*l = (struct file_list){ 0 };
}

int cli_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int r = 0;

	if (!f)
		return -errno;
	{
		struct stat st;

		/* a directory opens, then fails to read with EISDIR (or EIO): say what it is */
		if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
			if (f != stdin)
				fclose(f);
			return -EISDIR;
		}
	}
	do {
		if (pm_grow((void **)&buf, &cap, len + 65536, 1) < 0) {
			r = -ENOMEM;
			break;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len > max) {
			r = -EFBIG;
			break;
		}
	} while (n > 0);
	if (r == 0 && ferror(f))
		r = -EIO;
	if (f != stdin)
		fclose(f);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

static bool wanted(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".json")) || !strcmp(name, "mapfile.csv");
}

/* The directories a walk has been in, by (st_dev, st_ino): each is read once. */
struct dir_seen {
	struct {
		dev_t dev;
		ino_t ino;
	} * d;
	size_t n, cap;
};

/* 1 if the directory was new (and is now seen), 0 if seen before, -errno. */
static int dir_see(struct dir_seen *seen, const struct stat *st)
{
	for (size_t i = 0; i < seen->n; i++)
		if (seen->d[i].dev == st->st_dev && seen->d[i].ino == st->st_ino)
			return 0;
	if (PM_GROW(seen->d, seen->cap, seen->n + 1) < 0)
		return -ENOMEM;
	seen->d[seen->n].dev = st->st_dev;
	seen->d[seen->n].ino = st->st_ino;
	seen->n++;
	return 1;
}

/*
 * Add the names of the files under directory dir. Symlinks
 * are followed (a pmu-events tree may be linked in), but no directory is
 * read twice: a link back up the tree (ln -s . d) ends there instead of
 * multiplying the walk.
 */
static int collect(const char *dir, struct file_list *l, struct dir_seen *seen, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	int r = 0;

	if (!d)
		return -errno;
	if (fstat(dirfd(d), &st) < 0 || (r = dir_see(seen, &st)) <= 0) {
		r = r < 0 ? r : 0; /* fstat failing: nothing to read either */
		closedir(d);
		return r;
	}
	r = 0;
	while (r == 0 && (de = readdir(d))) {
		char host[4096];

		if (de->d_name[0] == '.')
			continue;
		if (pm_snprintf(host, sizeof(host), "%s/%s", dir, de->d_name) < 0 ||
		    stat(host, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < 8)
				r = collect(host, l, seen, depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !wanted(de->d_name))
			continue;
		if (l->n == EVENTS_DIR_MAX_FILES) {
			r = -E2BIG;
			break;
		}
		if (PM_GROW(l->f, l->cap, l->n + 1) < 0) {
			r = -ENOMEM;
			break;
		}
		/* named as the user's path names it, so messages point at the user's file */
		l->f[l->n] = (struct pm_file){ .path = strdup(host) };
		if (!l->f[l->n].path) {
			r = -ENOMEM;
			break;
		}
		l->n++;
	}
	closedir(d);
	return r;
}

/* pm_ctx_opts.read_file: a file of the list, when a pack needs it. */
static int read_events_file(const char *path, char **ret_data, size_t *ret_len, void *userdata)
{
	(void)userdata;
	return cli_read_file(path, EVENTS_FILE_MAX_BYTES, ret_data, ret_len);
}

/* Each --events-dir's files in the list: [first[i], first[i + 1]). */
static size_t events_dir_first[PM_ARRAY_SIZE(arg_global.events_dirs) + 1];

static int read_events_dirs(struct file_list *l)
{
	for (int i = 0; i < arg_global.n_events_dirs; i++) {
		events_dir_first[i] = l->n;
		struct dir_seen seen = { 0 };
		char dir[4096];
		size_t n;
		int r;

		/* "tree/" and "tree" name their files alike: tree/arch/... */
		n = strlen(arg_global.events_dirs[i]);
		while (n > 1 && arg_global.events_dirs[i][n - 1] == '/')
			n--;
		if (pm_snprintf(dir, sizeof(dir), "%.*s", (int)n, arg_global.events_dirs[i]) < 0)
			r = -ENAMETOOLONG;
		else {
			size_t before = l->n;

			r = collect(dir, l, &seen, 0);
			if (r == 0 && l->n == before)
				cli_error("--events-dir %s: no pack.json, mapfile.csv or .json file "
					  "in it; nothing is added (name a pack's directory or perf's "
					  "tools/perf/pmu-events)",
					  arg_global.events_dirs[i]);
		}
		free(seen.d);
		if (r < 0) {
			cli_error("--events-dir %s: %s%s", arg_global.events_dirs[i], strerror(-r),
				  r == -E2BIG ? " (more than 20000 files: name the pmu-events "
						"directory itself)" :
						"");
			return r;
		}
	}
	events_dir_first[arg_global.n_events_dirs] = l->n;
	return 0;
}

/*
 * What the packs' loader made of the --events-dir files (discovery done): a directory of
 * which nothing was read is said, naming what it skipped; a file or entry refused (said
 * with its file, line and column) stops the command unless --events-lenient: counting
 * with part of what was given, and exiting 0, would hide it from a script. 0 or -EINVAL.
 */
static int check_events_dirs(struct pm_ctx *ctx, const struct file_list *l)
{
	bool bad = false;
	size_t refused = pm_ctx__refused(ctx);

	for (int i = 0; i < arg_global.n_events_dirs; i++) {
		size_t first = events_dir_first[i], end = events_dir_first[i + 1], n = 0;
		char names[512] = "";

		for (size_t f = first; f < end; f++)
			if (pm_ctx__extra_read(ctx, f))
				break;
			else if (n++ < 4) /* the files it skipped, by their names under the dir */
				pm_snprintf(names + strlen(names), sizeof(names) - strlen(names),
					    "%s%s", n > 1 ? ", " : "",
					    l->f[f].path + strlen(arg_global.events_dirs[i]) +
						    (l->f[f].path[strlen(
							     arg_global.events_dirs[i])] == '/'));
		if (n != end - first || !n)
			continue; /* something was read (or nothing there, said before) */
		cli_error("--events-dir %s: nothing in it was loaded: %s%s (a .json file is read "
			  "when a pack.json beside it names it in Events or Metrics, or when perf's "
			  "mapfile.csv picks its directory; neither does)%s",
			  arg_global.events_dirs[i], names, n > 4 ? ", ..." : "",
			  arg_global.events_lenient ? "" : "; --events-lenient goes on without it");
		bad = true;
	}
	if (refused)
		cli_error("--events-dir: %zu file%s or entr%s refused (said above)%s", refused,
			  refused == 1 ? "" : "s", refused == 1 ? "y" : "ies",
			  arg_global.events_lenient ?
				  "; going on without them (--events-lenient)" :
				  ": nothing counts with part of what was given; fix them, or add "
				  "--events-lenient to go on without them (as perf does)");
	return (bad || refused) && !arg_global.events_lenient ? -EINVAL : 0;
}

/* The simulated machine --sim names, as the context's os. */
static int use_sim(struct pm_ctx_opts *o)
{
	struct pm_sim *sim = NULL;
	char err[512];
	int r;

	if (o->root) {
		cli_error("--sim and --root both name the machine; give one of them");
		return -EINVAL;
	}
	r = pm_sim__new_platform(arg_global.sim, &sim, err, sizeof(err));
	if (r < 0) {
		cli_error("--sim %s: %s", arg_global.sim, err[0] ? err : strerror(-r));
		return r;
	}
	o->os_ops = pm_sim__ops();
	o->os = sim;
	o->simulated = true;
	arg_global.sim_platform = pm_sim__platform_name(sim);
	arg_global.sim_virtual_clock = !pm_sim__real_clock(sim);
	return 0;
}

/* -v says what pmumon does, -vv everything (debug); warnings always. */
static enum pm_log_level log_level(void)
{
	return arg_global.verbose >= 2 ? PM_LOG_DEBUG :
	       arg_global.verbose      ? PM_LOG_INFO :
					 PM_LOG_WARN;
}

int cli_ctx_new_replay(struct pm_replay *replay, const char *packs, const char *cpuid,
		       struct pm_ctx **ret_ctx)
{
	struct pm_ctx_opts o = {
		.size = sizeof(o),
		.replay = replay,
		.packs = packs,
		.cpuid = cpuid,
		.simulated = pm_replay__sim_platform(replay) != NULL,
		.log_fn = log_to_stderr,
		.log_diag_fn = log_diag_to_stderr,
		.log_level = log_level(),
	};
	struct pm_ctx *ctx = NULL;
	struct file_list extra = { 0 };
	int r;

	r = read_events_dirs(&extra);
	o.extra_files = extra.f;
	o.n_extra_files = extra.n;
	o.read_file = read_events_file;
	if (r == 0)
		r = pm_ctx__new(&o, &ctx);
	if (r < 0) {
		file_list_done(&extra);
		pm_replay__free(replay); /* still ours: the context did not take it */
		cli_error("cannot set up the import: %s", strerror(-r));
		return r;
	}
	r = pm_ctx__discover(ctx);
	if (r < 0)
		cli_error("cannot set up the recording's machine: %s", strerror(-r));
	else
		r = check_events_dirs(ctx, &extra);
	file_list_done(&extra);
	if (r < 0) {
		pm_ctx__free(ctx);
		return r;
	}
	*ret_ctx = ctx;
	return 0;
}

int cli_ctx_new(struct pm_ctx **ret_ctx)
{
	struct pm_ctx_opts o = {
		.size = sizeof(o),
		.root = arg_global.root,
		.log_fn = log_to_stderr,
		.log_diag_fn = log_diag_to_stderr,
		.log_level = log_level(),
	};
	struct pm_ctx *ctx = NULL;
	struct file_list extra = { 0 };
	int r;

	r = read_events_dirs(&extra);
	if (r < 0) {
		file_list_done(&extra);
		return r;
	}
	o.extra_files = extra.f;
	o.n_extra_files = extra.n;
	o.read_file = read_events_file;
	if (arg_global.sim) {
		r = use_sim(&o);
		if (r < 0) {
			file_list_done(&extra);
			return r;
		}
	}
	r = pm_ctx__new(&o, &ctx);
	if (r < 0) {
		file_list_done(&extra);
		cli_error("cannot use '%s' as the root of the machine's files: %s",
			  o.root ? o.root : "/", strerror(-r));
		return r;
	}
	r = pm_ctx__discover(ctx);
	if (r < 0)
		cli_error("cannot discover the PMUs of this machine: %s (is sysfs mounted at "
			  "%s/sys? --root names another tree)",
			  strerror(-r), o.root ? o.root : "");
	else
		r = check_events_dirs(ctx, &extra); /* the list names the files it skipped */
	file_list_done(&extra);
	if (r < 0) {
		pm_ctx__free(ctx);
		return r;
	}
	*ret_ctx = ctx;
	return 0;
}
