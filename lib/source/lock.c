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

/* What makes a lock file one pmumon will not write to. */
static void lock_distrust(const struct pm_lock_info *info, char *buf, size_t size)
{
	if (S_ISLNK(info->mode))
		snprintf(buf, size, "is a symbolic link");
	else if (!S_ISREG(info->mode))
		snprintf(buf, size, "is not a regular file");
	else if (info->nlink > 1)
		snprintf(buf, size, "has %u hard links", info->nlink);
	else if (info->uid != info->self && info->uid != 0 && info->user[0])
		snprintf(buf, size, "belongs to user %s (uid %u)", info->user, (unsigned)info->uid);
	else if (info->uid != info->self && info->uid != 0)
		snprintf(buf, size, "belongs to uid %u", (unsigned)info->uid);
	else
		snprintf(buf, size, "is writable by group or others (mode %04o)",
			 info->mode & 07777);
}

int pm_session__lock(struct pm_session *s, const char *path, const char *what,
		     const char *busy_hint, int *ret_handle, struct pm_diag *reterr)
{
	struct pm_lock_info info = { 0 };
	char who[160], why[192];
	int h;

	h = s->ctx->ops->lock(s->ctx->os, path, &info);
	if (h >= 0) {
		*ret_handle = h;
		return 0;
	}
	if (h == -EBUSY) {
		lock_user(&info, who, sizeof(who));
		if (info.pid)
			pm_diag_set(reterr, busy_hint, "%s are in use by pid %d%s (it holds /%s)",
				    what, (int)info.pid, who, path);
		else
			pm_diag_set(reterr, busy_hint,
				    "%s are in use by another %s%s (it holds /%s)", what,
				    who[0] ? "process" : "pmumon", who, path);
		return h;
	}
	if (h == -EPERM) {
		/* made by someone else in a directory anyone may write: never ours to trust */
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
	pm_log(s->ctx, PM_LOG_WARN,
	       "cannot take the lock /%s (%s): counting without protection against a second "
	       "pmumon",
	       path, strerror(-h));
	*ret_handle = -1;
	return 0;
}

void pm_session__fail(struct pm_session *s, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_diag_vformat(s->last_error.msg, sizeof(s->last_error.msg), fmt, ap);
	va_end(ap);
	snprintf(s->last_error.hint, sizeof(s->last_error.hint), "%s", hint ? hint : "");
}
