// SPDX-License-Identifier: GPL-2.0-only
#include "ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

const struct pm_os_ops *pm_ctx__os_ops(const struct pm_ctx *ctx)
{
	return ctx->ops;
}

void *pm_ctx__os(const struct pm_ctx *ctx)
{
	return ctx->os;
}

size_t pm_ctx__refused(const struct pm_ctx *ctx)
{
	return ctx ? ctx->refused : 0;
}

bool pm_ctx__extra_read(const struct pm_ctx *ctx, size_t i)
{
	return ctx && i < ctx->n_extra && ctx->extra_read[i];
}

bool pm_ctx__simulated(const struct pm_ctx *ctx)
{
	return ctx->simulated;
}

void pm_log(struct pm_ctx *ctx, enum pm_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!ctx->log_fn || level > ctx->log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->log_fn(level, msg, ctx->log_userdata);
}

void pm_log_reason(struct pm_ctx *ctx, enum pm_log_level level, enum pm_reason reason,
		   const char *device, const char *hint, const char *fmt, ...)
{
	struct pm_diag d;
	va_list ap;

	if ((!ctx->log_fn && !ctx->log_diag_fn) || level > ctx->log_level)
		return;
	pm_diag__init(&d);
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	snprintf(d.hint, sizeof(d.hint), "%s", hint ? hint : "");
	pm_diag_reason(&d, reason, device, NULL);
	if (ctx->log_diag_fn)
		ctx->log_diag_fn(level, &d, ctx->log_userdata);
	else if (d.hint[0])
		pm_log(ctx, level, "%s (%s)", d.msg, d.hint);
	else
		pm_log(ctx, level, "%s", d.msg);
}

/*
 * Read a file into buf, NUL-terminated: all of it (-EFBIG when it does not
 * fit) or, with prefix, as much as fits. Return: the length read or -errno.
 */
static ssize_t read_upto(struct pm_ctx *ctx, const char *path, char *buf, size_t size, bool prefix)
{
	size_t off = 0;
	ssize_t n = 0;
	int fd;

	if (size == 0)
		return -EINVAL;
	if (!ctx->ops)
		return -ENOENT; /* a recording's machine has no files */
	fd = ctx->ops->open(ctx->os, path, O_RDONLY);
	if (fd < 0)
		return fd;
	for (;;) {
		n = ctx->ops->read(ctx->os, fd, buf + off, size - 1 - off);
		if (n <= 0)
			break;
		off += (size_t)n;
		if (off == size - 1) {
			char more;

			/* full: is there more? */
			n = prefix ? 0 : ctx->ops->read(ctx->os, fd, &more, 1);
			if (n > 0)
				n = -EFBIG;
			break;
		}
	}
	ctx->ops->close(ctx->os, fd);
	if (n < 0)
		return n;
	buf[off] = '\0';
	return (ssize_t)off;
}

ssize_t pm_read_file(struct pm_ctx *ctx, const char *path, char *buf, size_t size)
{
	ssize_t n = read_upto(ctx, path, buf, size, false);

	if (n < 0)
		return n;
	if (strlen(buf) != (size_t)n)
		return -EINVAL; /* a NUL inside a text file */
	return (ssize_t)pm_rtrim(buf);
}

ssize_t pm_read_prefix(struct pm_ctx *ctx, const char *path, char *buf, size_t size)
{
	return read_upto(ctx, path, buf, size, true);
}

size_t pm_cgroup_trim(const char *p, const char **ret)
{
	size_t n;

	while (*p == '/')
		p++;
	n = strlen(p);
	while (n && p[n - 1] == '/')
		n--;
	*ret = p;
	return n;
}

void pm_cgroup_root(struct pm_ctx *ctx, char *buf, size_t size)
{
	char info[16384], *line, *save = NULL;

	snprintf(buf, size, "sys/fs/cgroup");
	if (pm_read_prefix(ctx, "proc/self/mountinfo", info, sizeof(info)) <= 0)
		return;
	for (line = strtok_r(info, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *sep = strstr(line, " - ");
		char point[256];

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %*s %255s", point) != 1)
			continue;
		snprintf(buf, size, "%s", point[0] == '/' ? point + 1 : point);
		return;
	}
}

int pm_read_u64(struct pm_ctx *ctx, const char *path, uint64_t *ret)
{
	char buf[64];
	ssize_t n = pm_read_file(ctx, path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return pm_parse_u64(buf, (size_t)n, 0, ret);
}

bool pm_path_exists(struct pm_ctx *ctx, const char *path)
{
	int fd = ctx->ops ? ctx->ops->open(ctx->os, path, O_RDONLY) : -ENOENT;

	if (fd < 0)
		return false;
	ctx->ops->close(ctx->os, fd);
	return true;
}

struct names_walk {
	struct pm_names l;
	bool dirs_only;
	const char *glob;
	int err;
};

static int collect_name(const char *name, bool is_dir, void *userdata)
{
	struct names_walk *w = userdata;

	if ((w->dirs_only && !is_dir) || (w->glob && fnmatch(w->glob, name, 0) != 0))
		return 0;
	if (w->l.n == PM_DIR_MAX) {
		w->err = -E2BIG;
		return 1;
	}
	if (pm_grow((void **)&w->l.name, &w->l.cap, w->l.n + 1, sizeof(char *)) < 0 ||
	    !(w->l.name[w->l.n] = strdup(name))) {
		w->err = -ENOMEM;
		return 1;
	}
	w->l.n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pm_list_names(struct pm_ctx *ctx, const char *path, bool dirs_only, const char *glob,
		  struct pm_names *ret)
{
	struct names_walk w = { .dirs_only = dirs_only, .glob = glob };
	int r;

	r = ctx->ops ? ctx->ops->list_dir(ctx->os, path, collect_name, &w) : -ENOENT;
	if (r == 0)
		r = w.err;
	if (r == -ENOENT || r == -ENOTDIR)
		r = 0;
	if (r < 0) {
		pm_names__done(&w.l);
		return r;
	}
	if (w.l.n)
		qsort(w.l.name, w.l.n, sizeof(char *), cmp_str);
	*ret = w.l;
	return 0;
}

void pm_names__done(struct pm_names *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->name[i]);
	free(n->name);
	*n = (struct pm_names){ 0 };
}

void pm_diag__init(struct pm_diag *d)
{
	if (!d)
		return;
	d->msg[0] = d->hint[0] = d->input[0] = '\0';
	d->pos = d->len = -1;
	d->reason = PM_REASON_NONE;
	d->fix_at = -1;
	d->device[0] = d->subject[0] = '\0';
}

#define DIAG_QUOTE_MAX 64 /* a quoted text longer than this is cut in its middle */

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (unsigned char)c >= 0x80;
}

/* Step back from i to the start of a UTF-8 character. */
static size_t char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

void pm_diag_vformat(char *msg, size_t size, const char *fmt, va_list ap)
{
	struct pm_strbuf in = { 0 }, out = { 0 };
	va_list aq;

	va_copy(aq, ap);
	pm_strbuf__vprintf(&in, fmt, aq);
	va_end(aq);
	if (in.oom || !in.s) {
		vsnprintf(msg, size, fmt, ap);
		pm_strbuf__done(&in);
		return;
	}
	/*
	 * The user's text is quoted ('ali_drw_2x/...'): a long one keeps its
	 * start and end, so the reason around it always fits. A quote opens
	 * after a non-word character and closes before one ("PMU's" is neither).
	 */
	for (size_t i = 0; in.s[i];) {
		size_t open = i, close;

		while (in.s[open] &&
		       !(in.s[open] == '\'' && (open == 0 || !is_word(in.s[open - 1]))))
			open++;
		pm_strbuf__append(&out, in.s + i, open - i);
		if (!in.s[open])
			break;
		for (close = open + 1; in.s[close]; close++)
			if (in.s[close] == '\'' && !is_word(in.s[close + 1]))
				break;
		if (!in.s[close] || close - open - 1 <= DIAG_QUOTE_MAX) {
			size_t end = in.s[close] ? close + 1 : close;

			pm_strbuf__append(&out, in.s + open, end - open);
			i = end;
			continue;
		}
		{
			size_t head = char_start(in.s, open + 1 + 40);
			size_t tail = char_start(in.s, close - 16);

			pm_strbuf__append(&out, in.s + open, head - open);
			pm_strbuf__puts(&out, "...");
			pm_strbuf__append(&out, in.s + tail, close + 1 - tail);
			i = close + 1;
		}
	}
	if (out.oom || !out.s)
		snprintf(msg, size, "%s", in.s);
	else if (pm_snprintf(msg, size, "%s", out.s) < 0 && size > 4)
		memcpy(msg + char_start(msg, size - 4), "...", 4);
	pm_strbuf__done(&in);
	pm_strbuf__done(&out);
}

void pm_diag_set(struct pm_diag *d, const char *hint, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	va_start(ap, fmt);
	pm_diag_vformat(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	snprintf(d->hint, sizeof(d->hint), "%s", hint ? hint : "");
	d->reason = PM_REASON_NONE;
	d->fix_at = -1;
	d->device[0] = d->subject[0] = '\0';
}

/*
 * Each reason's words in the API's terms, ending a hint (enum pm_reason):
 * without a subject, and with one (between before and after). A program
 * with its own names for the options puts its words in their place
 * (pmumon: cli/hints.c).
 */
static const struct {
	const char *words, *before, *after;
} reason_words[] = {
	[PM_REASON_NEEDS_RECLAIM] = { "open a session with the reclaim option "
				      "(pm_session_opts.reclaim) to reset it" },
	[PM_REASON_RECLAIMED] = { "the reclaim option, pm_session_opts.reclaim" },
	[PM_REASON_USE_SOURCE_PERF] = { "count through the kernel's perf PMUs (PM_SOURCE_PERF) "
					"where the kernel has amd_uncore" },
	[PM_REASON_USE_SOURCE_MSR] = { "count through /dev/cpu/N/msr (PM_SOURCE_MSR or "
				       "PM_SOURCE_AUTO)" },
	[PM_REASON_NEEDS_PROGRAM] = { "give the programming list captured from Intel's tools "
				      "on this machine (pm_session_opts.program; README.md, "
				      "'Merrifield'), or import counts gathered elsewhere (SoC "
				      "Watch, VTune) as a recording (pm_replay__read)" },
	[PM_REASON_SIDEBAND_PCI] = { "where iosf_mbi is absent altogether, the host bridge's "
				     "config space can carry the sideband instead "
				     "(pm_session_opts.sideband_pci), at the risk of racing the "
				     "kernel's own users of the bus" },
	[PM_REASON_NO_SIDEBAND_PCI] = { "count without pm_session_opts.sideband_pci: iosf_sb "
					"goes through the kernel's lock" },
	[PM_REASON_NEEDS_DEFINE] = { "define the constant (pm_evlist__define)", "define ",
				     " (pm_evlist__define)" },
	[PM_REASON_NEEDS_PACK] = { "name the counting machine's pack (pm_ctx_opts.packs)",
				   "name the pack of the machine that counted (pm_ctx_opts.packs; "
				   "built in: ",
				   ")" },
	[PM_REASON_SYSTEM_WIDE] = { "count system-wide (PM_TARGET_SYSTEM), or on CPUs "
				    "(PM_TARGET_CPUS)" },
	[PM_REASON_CPUS] = { "count system-wide (PM_TARGET_SYSTEM), or add those CPUs to the "
			     "list (PM_TARGET_CPUS)",
			     "count system-wide (PM_TARGET_SYSTEM), or add CPUs ",
			     " to the list (PM_TARGET_CPUS)" },
	[PM_REASON_DEVICE_LOST] = { "" },
	[PM_REASON_DEVICE_ERROR] = { "" },
	[PM_REASON_SEE_LIST] = { "see what this machine has (pm_ctx__pmu, pm_pmu__alias, "
				 "pm_ctx__metric)",
				 "see what this machine has (pm_ctx__pmu, pm_pmu__alias, "
				 "pm_ctx__metric): ",
				 "" },
	[PM_REASON_NO_NODES] = { "count per socket or per die instead (PM_AGGR_SOCKET, "
				 "PM_AGGR_DIE)" },
	[PM_REASON_CACHE_LEVEL] = { "name a level the machine has (its CPUs' "
				    "cache/index*/level) in pm_session_opts.cache_level, or 0 for "
				    "each CPU's last level" },
	[PM_REASON_NO_CACHES] = { "count per core, die or socket instead (PM_AGGR_CORE, "
				  "PM_AGGR_DIE, PM_AGGR_SOCKET)" },
};

int pm_reason_append(char *text, size_t size, enum pm_reason reason, const char *subject)
{
	size_t at = strlen(text);
	const char *w;

	if (reason <= PM_REASON_NONE || (size_t)reason >= PM_ARRAY_SIZE(reason_words) || at >= size)
		return -1;
	w = reason_words[reason].words;
	if (subject && subject[0] && reason_words[reason].before)
		snprintf(text + at, size - at, "%s%s%s", reason_words[reason].before, subject,
			 reason_words[reason].after);
	else
		snprintf(text + at, size - at, "%s", w ? w : "");
	return (int)at;
}

void pm_diag_reason(struct pm_diag *d, enum pm_reason reason, const char *device,
		    const char *subject)
{
	if (!d || reason <= PM_REASON_NONE || (size_t)reason >= PM_ARRAY_SIZE(reason_words))
		return;
	d->reason = reason;
	snprintf(d->device, sizeof(d->device), "%s", device ? device : "");
	snprintf(d->subject, sizeof(d->subject), "%s", subject ? subject : "");
	d->fix_at = pm_reason_append(d->hint, sizeof(d->hint), reason, d->subject);
}

void pm_diag_point(struct pm_diag *d, const char *input, size_t pos, size_t len)
{
	size_t n, from = 0;

	if (!d)
		return;
	n = strlen(input);
	/* longer than input[]: keep the part around the position, so the caret still
	 * points at it (after a "..." that says the start is left out) */
	if (n >= sizeof(d->input) && pos > sizeof(d->input) / 2 && pos < n)
		from = char_start(input, pos - sizeof(d->input) / 4);
	if (from) {
		snprintf(d->input, sizeof(d->input), "...%s", input + from);
		pos = pos - from + 3;
	} else {
		snprintf(d->input, sizeof(d->input), "%s", input);
	}
	n = strlen(d->input);
	if (pos > n || pos >= sizeof(d->input) - 1) {
		d->pos = d->len = -1;
		return;
	}
	d->pos = (int)pos; /* at n: just after the end ("missing closing '/'") */
	d->len = (int)PM_MAX(PM_MIN(len ? len : 1, n - pos), 1);
}

int pm_ctx__discover(struct pm_ctx *ctx)
{
	int r;

	if (ctx->discovered)
		return 0;
	if (ctx->discover_err)
		return ctx->discover_err; /* it failed once: the machine has not changed */
	r = ctx->machine->discover(ctx);
	if (r < 0) {
		ctx->machine->forget(ctx); /* what it found before failing */
		ctx->discover_err = r;
		return r;
	}
	ctx->discovered = true;
	return 0;
}

int pm_ctx__rediscover(struct pm_ctx *ctx)
{
	if (ctx->evlists)
		return -EBUSY;
	if (!ctx->machine->changes)
		return 0; /* a recording's machine does not change */
	ctx->machine->forget(ctx);
	ctx->discovered = false;
	ctx->discover_err = 0;
	return pm_ctx__discover(ctx);
}

int pm_ctx__add_pmu(struct pm_ctx *ctx, struct pm_pmu *p)
{
	int r = pm_grow((void **)&ctx->pmus, &ctx->cap_pmus, ctx->n_pmus + 1, sizeof(*ctx->pmus));

	if (r < 0)
		return r;
	ctx->pmus[ctx->n_pmus++] = p;
	return 0;
}

uint64_t pm_ctx__mono_ns(struct pm_ctx *ctx)
{
	return ctx->machine->mono_ns(ctx);
}

uint64_t pm_ctx__wall_ns(struct pm_ctx *ctx)
{
	return ctx->machine->wall_ns(ctx);
}
