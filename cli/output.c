// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where and how a command's counts go: the -o FILE checked with the other
 * checks and opened only once they all passed (a refused run leaves an
 * existing file as it was), the writer in the format the options chose,
 * --metric-only, the warnings about doubtful rows, and write errors said
 * once, naming the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli-global.h"
#include "cli-count.h"
#include "cli-output.h"
#include "util.h"

/* 0 if path could be written (created, or truncated), else -errno. */
static int writable(const char *path)
{
	struct stat st;
	char *copy;
	int r = 0;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0 ? -errno : 0;
	}
	if (errno != ENOENT)
		return -errno;
	/* a new file: its directory must let it be made */
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	if (faccessat(AT_FDCWD, dirname(copy), W_OK | X_OK, AT_EACCESS) < 0)
		r = -errno;
	free(copy);
	return r;
}

int cli_output__check(const struct cli_count *a)
{
	int r = a->output ? writable(a->output) : 0;

	if (r < 0)
		cli_error("cannot write '%s': %s", a->output, strerror(-r));
	return r;
}

/*
 * --append: where a run starts, perf's line (builtin-stat.c: "# started on
 * %s\n" with ctime(), then an empty line); the CSV and JSON Lines go on
 * with their first line, so each run reads as a file of its own.
 */
static void started_on(FILE *f, enum pm_out_format format)
{
	time_t now = time(NULL);
	char date[64];

	if (!ctime_r(&now, date))
		snprintf(date, sizeof(date), "?\n");
	fprintf(f, "# started on %s%s", date, format == PM_OUT_TABLE ? "\n" : "");
}

/*
 * Perf mode: perf stat's stream (standard error, or -o FILE, which always
 * starts with its "# started on" line: builtin-stat.c cmd_stat) and its own
 * layouts (PM_OUT_PERF_*, lib/out/perf.c).
 */
static int perf_open(struct cli_output *o, const struct cli_count *a, struct pm_out_opts *oo)
{
	static const enum pm_out_format perf_format[] = {
		[PM_OUT_TABLE] = PM_OUT_PERF_TABLE,
		[PM_OUT_CSV] = PM_OUT_PERF_CSV,
		[PM_OUT_JSON] = PM_OUT_PERF_JSON,
	};
	static char errbuf[1 << 16];
	int r;

	*o = (struct cli_output){ .f = stderr, .path = a->output, .metric_only = a->metric_only };
	if (a->output) {
		time_t now = time(NULL);
		char date[64];

		o->f = fopen(a->output, a->append ? "a" : "w");
		if (!o->f) {
			r = -errno;
			o->f = stderr;
			cli_error("cannot write '%s': %s", a->output, strerror(-r));
			return r;
		}
		if (!ctime_r(&now, date))
			snprintf(date, sizeof(date), "?\n");
		fprintf(o->f, "# started on %s\n", date);
	} else {
		/* one write per report, as perf's stdio does to a file; flushed after each */
		setvbuf(stderr, errbuf, _IOFBF, sizeof(errbuf));
	}
	oo->format = perf_format[a->format];
	oo->sep = a->sep;
	oo->perf_sep = a->sep_str;
	oo->no_grouping = a->no_big_num;
	oo->perf_summary = a->summary;
	oo->perf_no_csv_summary = a->no_csv_summary;
	oo->clear_screen = a->interval_clear && a->format == PM_OUT_TABLE && isatty(fileno(o->f));
	r = pm_out__new(o->f, oo, &o->out);
	if (r < 0)
		cli_error("out of memory");
	return r;
}

int cli_output__open(struct cli_output *o, const struct cli_count *a,
		     const struct pm_out_opts *opts)
{
	struct pm_out_opts oo = *opts;
	int r;

	if (arg_global.perf_mode)
		return perf_open(o, a, &oo);
	*o = (struct cli_output){ .f = stdout, .path = a->output, .metric_only = a->metric_only };
	if (a->output) {
		o->f = fopen(a->output, a->append ? "a" : "w");
		if (!o->f) {
			r = -errno;
			o->f = stdout;
			cli_error("cannot write '%s': %s", a->output, strerror(-r));
			return r;
		}
		if (a->append)
			started_on(o->f, a->format);
	}
	oo.format = a->format;
	oo.sep = a->sep;
	oo.no_grouping = a->no_big_num;
	/* escapes in a file or a pipe help no one: a terminal only (newer perf's rule) */
	oo.clear_screen = a->interval_clear && a->format == PM_OUT_TABLE && isatty(fileno(o->f));
	r = pm_out__new(o->f, &oo, &o->out);
	if (r < 0)
		cli_error("out of memory");
	return r;
}

/* The report without its event rows, in o's scratch rows. */
static int metric_rows(struct cli_output *o, const struct pm_report *r, struct pm_report *ret)
{
	size_t n = 0;

	if (PM_GROW(o->rows, o->n_rows_cap, r->n_rows + 1) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_rows; i++)
		if (r->rows[i].flags & PM_ROW_METRIC)
			o->rows[n++] = r->rows[i];
	*ret = *r;
	ret->rows = o->rows;
	ret->n_rows = n;
	return 0;
}

int cli_output__report(struct cli_output *o, const struct pm_report *r)
{
	struct pm_report only;
	int ret;

	if (o->err)
		return -o->err;	   /* said once; nothing more is written */
	if (!arg_global.perf_mode) /* perf mode: the rows say it, perf says nothing more */
		cli_quality__warn(&o->quality, r);
	ret = o->metric_only ? metric_rows(o, r, &only) : 0;
	if (ret == 0)
		ret = pm_out__report(o->out, o->metric_only ? &only : r);
	if (ret < 0) {
		o->err = -ret;
		if (!o->path)
			arg_global.stdout_error_handled = true;
		/* a reader that went away (| head) is not an error worth a message */
		if (ret != -EPIPE)
			cli_error("cannot write the output to %s: %s",
				  o->path ? o->path : "standard output", strerror(-ret));
	}
	return ret;
}

int cli_output__close(struct cli_output *o)
{
	int r = 0;

	pm_out__free(o->out);
	free(o->rows);
	if (o->f == stderr)
		fflush(stderr);
	else if (o->f && o->f != stdout && fclose(o->f) != 0) {
		r = -errno;
		if (!o->err)
			cli_error("cannot write the output to %s: %s", o->path, strerror(-r));
	}
	*o = (struct cli_output){ 0 };
	return r;
}
