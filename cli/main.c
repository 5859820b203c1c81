// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmumon: read the hardware performance counters of servers, DPUs and SoCs.
 * This file holds the command table and the options every command shares.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "pmumon/sim.h"

struct cli_global arg_global;

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "list", cmd_list, "show the PMUs of this machine and the events they count" },
	{ "doctor", cmd_doctor,
	  "what this machine can count, and for what it cannot, why and the fix" },
	{ "stat", cmd_stat, "count events, once or every interval, like perf stat" },
	{ "import", cmd_import, "compute a pack's metrics from counts perf or others recorded" },
	{ "serve", cmd_serve, "serve the counts to Prometheus, sampling on its own clock" },
	{ "top", cmd_top, "the live view: memory channels, caches and links every second" },
	{ "record", cmd_record, "count every interval into a SQLite recording" },
	{ "report", cmd_report, "statistics and plots of a recording" },
};

static void usage(FILE *f)
{
	const char *name, *summary;

	fprintf(f, "usage: pmumon [--root DIR | --sim PLATFORM[:OPTIONS]] [--events-dir DIR "
		   "[--events-lenient]] [-v] COMMAND [ARGS]\n"
		   "\n"
		   "Reads the hardware performance counters of this machine (perf PMUs) and\n"
		   "reports them with their quality: how long each counted, what was scaled.\n"
		   "\n"
		   "Commands:\n");
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Options:\n"
		"  --root DIR     read sysfs and procfs under DIR instead of / (a fixture tree);\n"
		"                 also PMUMON_ROOT\n"
		"  --sim PLATFORM[:KEY=VALUE,...]\n"
		"                 run on a simulated machine whose every count is known (also\n"
		"                 PMUMON_SIM); all output says SIMULATED. Keys: clock=real (follow\n"
		"                 wall time; needed to run commands other than 'sleep N'),\n"
		"                 scenario=FILE (the workload, docs/simulator.md), seed=N,\n"
		"                 state=FILE (the device control files at exit); the machine's\n"
		"                 settings (pmumon doctor): paranoid=-1..4, lockdown=none|\n"
		"                 integrity|confidentiality, watchdog=0|1, container=0|1; and per\n"
		"                 platform sockets=1|2, channels=1|2, msr=rw|none|noperm|locked,\n"
		"                 uncore=perf|unloaded|none, user=root|nobody|perfmon,\n"
		"                 hypervisor=none|kvm|kvm-nopmu; kubelet=systemd|cgroupfs (a\n"
		"                 kubelet's pods, docs/attribution.md)\n"
		"  --events-dir DIR\n"
		"                 more platform packs: directories with a pack.json, or a\n"
		"                 checkout of perf's tools/perf/pmu-events (its mapfile.csv\n"
		"                 picks this CPU's events and metrics; sys/ tables match by\n"
		"                 Compat); repeatable; its metrics override built-in ones.\n"
		"                 A file or entry it refuses (said with file:line:col), or a\n"
		"                 directory of which nothing loads, stops the command\n"
		"  --events-lenient\n"
		"                 go on without what --events-dir refused, as perf does\n"
		"  -v, --verbose  say more (repeat for debug detail)\n"
		"  -h, --help     this help; 'pmumon COMMAND --help' for a command\n"
		"  --version      print the version\n"
		"\n"
		"Run under the name perf (the link /usr/lib/pmumon/perf: PATH=/usr/lib/pmumon:$PATH),\n"
		"or 'stat --perf' and 'list --perf', pmumon is perf 6.1's stat and list: perf's\n"
		"output, streams, defaults and exit statuses over pmumon's counting (perf mode).\n"
		"\n"
		"Examples:\n"
		"  pmumon doctor                         what this machine can count, and fixes\n"
		"  pmumon list pmus                      the PMUs, their CPUs and counters\n"
		"  pmumon stat -a -- sleep 5             the default events, system-wide, 5 s\n"
		"  pmumon stat -a -e msr/tsc/ -I 1000    TSC ticks every second until Ctrl-C\n"
		"  pmumon --sim yitian710 stat -a --per-device -e 'ali_drw_*/hif_rd/' -I 1000 -- "
		"sleep 5\n"
		"\n"
		"Simulated platforms:\n");
	for (size_t i = 0; (name = pm_sim__platform_info(i, &summary)); i++)
		fprintf(f, "  %-11s %s\n", name, summary);
}

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

bool cli_global_option(int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_ROOT:
		arg_global.root = arg;
		if (arg_global.sim_from_env)
			arg_global.sim = NULL; /* the command line names the machine */
		return true;
	case CLI_OPT_SIM:
		arg_global.sim = arg;
		if (arg_global.root_from_env)
			arg_global.root = NULL;
		return true;
	case CLI_OPT_EVENTS_DIR:
		if (arg_global.n_events_dirs < (int)PM_ARRAY_SIZE(arg_global.events_dirs))
			arg_global.events_dirs[arg_global.n_events_dirs++] = arg;
		else
			cli_error("--events-dir: at most %zu directories; '%s' is left out",
				  PM_ARRAY_SIZE(arg_global.events_dirs), arg);
		return true;
	case CLI_OPT_EVENTS_LENIENT:
		arg_global.events_lenient = true;
		return true;
	case 'v':
		arg_global.verbose++;
		return true;
	default:
		return false;
	}
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
		.log_level = arg_global.verbose >= 2 ? PM_LOG_DEBUG :
			     arg_global.verbose	     ? PM_LOG_INFO :
						       PM_LOG_WARN,
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
		.log_level = arg_global.verbose >= 2 ? PM_LOG_DEBUG :
			     arg_global.verbose	     ? PM_LOG_INFO :
						       PM_LOG_WARN,
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

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *msg;
	int n = vasprintf(&msg, fmt, ap);

	fprintf(stderr, "pmumon: %s", prefix);
	if (n >= 0) {
		cli_escape(stderr, msg, (size_t)n);
		free(msg);
	} else {
		fputs("(out of memory)", stderr); /* msg is undefined then */
	}
	fputc('\n', stderr);
}

#define ECHO_CONTEXT 60 /* columns of a long input shown on each side of the caret */

/* The input a diag points into, with a caret under the part it means. */
static void show_input(const struct pm_diag *d)
{
	size_t n = strlen(d->input), from = 0, to = n, mark = 0;
	int col;

	if (d->pos >= 0 && (size_t)d->pos > n) {
		fputs("    ", stderr);
		cli_escape(stderr, d->input, n);
		fputc('\n', stderr);
		return;
	}
	if (d->pos >= 0) {
		size_t pos = (size_t)d->pos, len = (size_t)(d->len > 0 ? d->len : 1);

		mark = PM_MIN(PM_MIN(len, n - pos), (size_t)ECHO_CONTEXT * 2);
		/* a byte position inside a character marks the whole character */
		while (pos + mark < n && ((unsigned char)d->input[pos + mark] & 0xc0) == 0x80)
			mark++;
		/* a long line: the part around the caret, cut at characters */
		if (cli_escaped_width(d->input, n) > 3 * ECHO_CONTEXT) {
			if (pos > ECHO_CONTEXT)
				from = pos - ECHO_CONTEXT;
			to = PM_MIN(n, pos + mark + ECHO_CONTEXT);
			while (from > 0 && ((unsigned char)d->input[from] & 0xc0) == 0x80)
				from--;
			while (to < n && ((unsigned char)d->input[to] & 0xc0) == 0x80)
				to++;
		}
	}
	fputs("    ", stderr);
	if (from)
		fputs("...", stderr);
	cli_escape(stderr, d->input + from, to - from);
	fputs(to < n ? "...\n" : "\n", stderr);
	if (d->pos < 0)
		return;
	col = (from ? 3 : 0) + cli_escaped_width(d->input + from, (size_t)d->pos - from);
	fprintf(stderr, "    %*s^", col, "");
	for (int i = cli_escaped_width(d->input + d->pos, mark); i > 1; i--)
		fputc('~', stderr);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_info(const char *fmt, ...)
{
	va_list ap;

	if (arg_global.perf_mode && !arg_global.verbose)
		return; /* perf prints no notices of pmumon's */
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_report(const char *what, int err, const struct pm_diag *d)
{
	char hint[sizeof(d->hint) + 256];

	if (!d || !d->msg[0]) {
		cli_error("%s: %s", what, strerror(err < 0 ? -err : err));
		return;
	}
	cli_error("%s", d->msg);
	if (d->input[0])
		show_input(d);
	cli_hint(d, hint, sizeof(hint));
	if (hint[0]) {
		fputs("  hint: ", stderr);
		cli_escape(stderr, hint, strlen(hint));
		fputc('\n', stderr);
	}
}

/*
 * Every byte of standard output reached its file, or the error is said
 * (naming it) and the exit status says so. A reader that went away (EPIPE:
 * | head) ends the output quietly, as a failure a command already dealt
 * with is not said twice.
 */
static int close_stdout(int ret)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) != 0)
		e = errno ? errno : -1;
	if (!e && ferror(stdout))
		e = -1; /* an earlier write failed; its errno is gone */
	errno = 0;
	if (fclose(stdout) != 0 && !e)
		e = errno ? errno : -1;
	if (!e || e == EPIPE || arg_global.stdout_error_handled)
		return ret;
	cli_error("cannot write to standard output: %s",
		  e > 0 ? strerror(e) : "a write failed (is the disk full?)");
	return ret == EXIT_OK ? EXIT_FAIL : ret;
}

static void unknown_command(const char *name)
{
	char list[256] = "";

	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++) {
		size_t off = strlen(list);

		snprintf(list + off, sizeof(list) - off, "%s%s",
			 !i				  ? "" :
			 i + 1 == PM_ARRAY_SIZE(commands) ? " and " :
							    ", ",
			 commands[i].name);
	}
	cli_error("unknown command '%s'; the commands are %s (pmumon --help)", name, list);
}

int cli_run_command(const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++) {
		char buf[32];

		if (strcmp(name, commands[i].name) != 0)
			continue;
		optind = 0; /* restart getopt for the command */
		snprintf(buf, sizeof(buf), "%s %s", arg_global.perf_mode ? "perf" : "pmumon",
			 commands[i].name);
		argv[0] = buf;
		return commands[i].fn(argc, argv);
	}
	return -1;
}

static int run_main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_GLOBAL_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *env = getenv("PMUMON_ROOT");
	int c;

	if (env && *env) {
		arg_global.root = env;
		arg_global.root_from_env = true;
	}
	env = getenv("PMUMON_SIM");
	if (env && *env) {
		arg_global.sim = env;
		arg_global.sim_from_env = true;
	}
	/* '+': stop at the command name; its own options follow it */
	while ((c = getopt_long(argc, argv, "+vh", opts, NULL)) != -1) {
		if (cli_global_option(c, optarg))
			continue;
		switch (c) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("pmumon %s\n", PMUMON_VERSION);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(commands); i++) {
		char name[32];

		if (strcmp(argv[optind], commands[i].name) != 0)
			continue;
		argv += optind;
		argc -= optind;
		optind = 0; /* restart getopt for the command */
		/* getopt names the program by argv[0]: "pmumon stat: unrecognized option" */
		snprintf(name, sizeof(name), "pmumon %s", commands[i].name);
		argv[0] = name;
		return commands[i].fn(argc, argv);
	}
	unknown_command(argv[optind]);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	/* room for any help text and most listings: a write that fails does so at the
	 * last flush, where its errno can be said (a big printf that bypasses a smaller
	 * buffer would fail early and leave no errno behind) */
	static char outbuf[1 << 16]; /* glibc ignores the size without a buffer */

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (argc > 0 && cli_perf_name(argv[0])) {
		/* perf mode: perf 6.1's stat and list (cli/perfmode.c) */
		arg_global.perf_mode = true;
		argv[0] = "perf";
		return close_stdout(cli_perf_main(argc, argv));
	}
	if (argc > 0)
		argv[0] = "pmumon"; /* getopt's messages say pmumon, not the path it ran from */
	return close_stdout(run_main(argc, argv));
}
