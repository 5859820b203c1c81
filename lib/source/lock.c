// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a source does to its session beyond its counters: take the advisory
 * lock it holds while it programs shared registers, and say why an enable,
 * read, poll or disable failed (pm_session__last_error).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ctx.h"
#include "source/counters.h"
#include "util/util.h"

/* " of user NAME (uid N)" when the lock is another user's, else "". */
static void lock_user(const struct pm_lock_info *info, char *buf, size_t size)
{
	if (info->uid == info->self)
		snprintf(buf, size, "%s", "");
	else if (info->user[0])
		snprintf(buf, size, " of user %s (uid %u)", info->user, (unsigned)info->uid);
	else
		snprintf(buf, size, " of uid %u", (unsigned)info->uid);
}

/* What makes a lock file (or its directory) one pmumon will not write to. */
static void lock_distrust(const struct pm_lock_info *info, char *buf, size_t size)
{
	if (S_ISLNK(info->mode))
		snprintf(buf, size, "is a symbolic link");
	else if (info->dir && !S_ISDIR(info->mode))
		snprintf(buf, size, "is not a directory");
	else if (!info->dir && !S_ISREG(info->mode))
		snprintf(buf, size, "is not a regular file");
	else if (!info->dir && info->nlink > 1)
		snprintf(buf, size, "has %u hard links", info->nlink);
	else if (info->uid != info->self && info->uid != 0 && info->user[0])
		snprintf(buf, size, "belongs to user %s (uid %u)", info->user, (unsigned)info->uid);
	else if (info->uid != info->self && info->uid != 0)
		snprintf(buf, size, "belongs to uid %u", (unsigned)info->uid);
	else
		snprintf(buf, size, "is writable by group or others (mode %04o)",
			 info->mode & 07777);
}

/* The lock an older pmumon took for the same counters, in /run/lock (anyone may write
 * there): "run/pmumon/NAME.lock" -> "run/lock/pmumon-NAME.lock"; false when none. */
static bool old_path(const char *path, char *buf, size_t size)
{
	static const char dir[] = "run/pmumon/";

	return pm_str_has_prefix(path, dir) &&
	       (size_t)snprintf(buf, size, "run/lock/pmumon-%s", path + sizeof(dir) - 1) < size;
}

static void say_busy(const struct pm_lock_info *info, const char *path, const char *what,
		     const char *busy_hint, struct pm_diag *reterr)
{
	char who[160];

	lock_user(info, who, sizeof(who));
	if (info->pid)
		pm_diag_set(reterr, busy_hint, "%s are in use by pid %d%s (it holds /%s)", what,
			    (int)info->pid, who, path);
	else
		pm_diag_set(reterr, busy_hint, "%s are in use by another %s%s (it holds /%s)", what,
			    who[0] ? "process" : "pmumon", who, path);
}

/*
 * The lock, in /run/pmumon, only root's to write (pm_os_ops.lock). A lock that cannot be
 * taken refuses the counters: two pmumon programming the same registers both count wrong,
 * and both would exit 0. During a transition from a version that locked in /run/lock, the
 * lock there is looked at too: held by root or by us (another user's file there proves
 * nothing: anyone may make one, and hold it), the counters are in use.
 */
int pm_session__lock(struct pm_session *s, const char *path, const char *what,
		     const char *busy_hint, int *ret_handle, struct pm_diag *reterr)
{
	const struct pm_os_ops *ops = s->ctx->ops;
	struct pm_lock_info info = { 0 };
	char why[192], dir[64], old[128];
	int h;

	h = ops->lock(s->ctx->os, path, &info);
	if (h >= 0) {
		struct pm_lock_info held = { 0 };

		if (old_path(path, old, sizeof(old)) && ops->lock_holder &&
		    ops->lock_holder(s->ctx->os, old, &held) == -EBUSY &&
		    (held.uid == 0 || held.uid == held.self)) {
			ops->unlock(s->ctx->os, h);
			say_busy(&held, old, what, busy_hint, reterr);
			return -EBUSY;
		}
		*ret_handle = h;
		return 0;
	}
	if (h == -EBUSY) {
		say_busy(&info, path, what, busy_hint, reterr);
		return h;
	}
	if (h == -EPERM && info.dir) {
		/* made by someone else where only root may write: never ours to trust */
		snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
		lock_distrust(&info, why, sizeof(why));
		pm_diag_set(reterr, NULL,
			    "the lock directory /%s %s: pmumon will not keep its lock for %s there",
			    dir, why, what);
		if (reterr)
			snprintf(reterr->hint, sizeof(reterr->hint),
				 "remove it (rm -r /%s; pmumon makes it, root's, mode 0755, as "
				 "systemd-tmpfiles does from /usr/lib/tmpfiles.d/pmumon.conf) and run "
				 "again",
				 dir);
		return h;
	}
	if (h == -EPERM) {
		lock_distrust(&info, why, sizeof(why));
		pm_diag_set(reterr, NULL,
			    "the lock file /%s %s, and no process holds it: pmumon will not use it "
			    "to guard %s",
			    path, why, what);
		if (reterr)
			snprintf(reterr->hint, sizeof(reterr->hint),
				 "remove it (rm /%s) and run again: pmumon makes its own", path);
		return h;
	}
	/* without it a second pmumon would program the same counters: refused, not risked */
	pm_diag_set(reterr, NULL,
		    "cannot take the lock /%s (%s): pmumon will not program %s "
		    "without it",
		    path, strerror(-h), what);
	if (reterr)
		snprintf(reterr->hint, sizeof(reterr->hint), "%s",
			 h == -EROFS ? "/run is read-only here: a systemd unit needs "
				       "ReadWritePaths=/run/pmumon (as "
				       "pmumon-serve-root-sources.conf has)" :
				       "run as root: the lock's directory, /run/pmumon, is root's");
	return h;
}

void pm_session__fail(struct pm_session *s, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_diag_vformat(s->last_error.msg, sizeof(s->last_error.msg), fmt, ap);
	va_end(ap);
	snprintf(s->last_error.hint, sizeof(s->last_error.hint), "%s", hint ? hint : "");
}
