// SPDX-License-Identifier: GPL-2.0-only
#include "source/replay-spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* An unlinked temporary file in $TMPDIR (else /tmp), for what no longer fits in memory. */
static int spill_file(FILE **ret)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd;

	if (!dir || !dir[0])
		dir = "/tmp";
	if (pm_snprintf(path, sizeof(path), "%s/pmumon-import-XXXXXX", dir) < 0)
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	f = fdopen(fd, "w+");
	if (!f) {
		int e = -errno;

		close(fd);
		return e;
	}
	*ret = f;
	return 0;
}

int pm_spill__put(struct pm_spill *s, const void *p, size_t n)
{
	if (!s->f && s->len + n <= PM_SPILL_MEM) {
		if (PM_GROW(s->mem, s->cap, s->len + n) < 0)
			return -ENOMEM;
		memcpy(s->mem + s->len, p, n);
		s->len += n;
		s->size += n;
		return 0;
	}
	if (!s->f) {
		int r = spill_file(&s->f);

		if (r < 0)
			return r;
		if (s->len && fwrite(s->mem, 1, s->len, s->f) != s->len)
			return -(errno ? errno : EIO);
		free(s->mem);
		s->mem = NULL;
		s->len = s->cap = 0;
	}
	if (fwrite(p, 1, n, s->f) != n)
		return -(errno ? errno : EIO);
	s->size += n;
	return 0;
}

int pm_spill__rewind(struct pm_spill *s)
{
	s->win_pos = s->win_end = 0;
	s->read_off = 0;
	if (!s->f)
		return 0;
	if (fflush(s->f) != 0 || fseeko(s->f, 0, SEEK_SET) != 0)
		return -(errno ? errno : EIO);
	if (!s->win) {
		s->win = malloc(2 * PM_SPILL_CHUNK);
		if (!s->win)
			return -ENOMEM;
	}
	return 0;
}

int pm_spill__peek(struct pm_spill *s, size_t want, const uint8_t **ret, size_t *ret_n)
{
	size_t got;

	if (!s->f) { /* all in memory: the window is the whole of it */
		*ret = s->mem + s->win_pos;
		*ret_n = s->len - s->win_pos;
		return 0;
	}
	if (s->win_end - s->win_pos < want && s->read_off < s->size) {
		memmove(s->win, s->win + s->win_pos, s->win_end - s->win_pos);
		s->win_end -= s->win_pos;
		s->win_pos = 0;
		got = fread(s->win + s->win_end, 1, 2 * PM_SPILL_CHUNK - s->win_end, s->f);
		if (got == 0 && ferror(s->f))
			return -(errno ? errno : EIO);
		s->win_end += got;
		s->read_off += got;
	}
	*ret = s->win + s->win_pos;
	*ret_n = s->win_end - s->win_pos;
	return 0;
}

void pm_spill__skip(struct pm_spill *s, size_t n)
{
	s->win_pos += n;
}

void pm_spill__done(struct pm_spill *s)
{
	if (s->f)
		fclose(s->f);
	free(s->mem);
	free(s->win);
	*s = (struct pm_spill){ 0 };
}
