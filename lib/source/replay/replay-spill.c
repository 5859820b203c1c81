// SPDX-License-Identifier: GPL-2.0-only
#include "source/replay/replay-spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* An unlinked temporary file in $TMPDIR (else /tmp), for what no longer fits in memory. */
static int spill_file(int *ret)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !dir[0])
		dir = "/tmp";
	if (pm_snprintf(path, sizeof(path), "%s/pmumon-import-XXXXXX", dir) < 0)
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	*ret = fd;
	return 0;
}

/* The write buffer's bytes to the end of the file: 0 or -errno. */
static int flush(struct pm_spill *s)
{
	for (size_t at = 0; at < s->len;) {
		ssize_t n = write(s->fd, s->mem + at, s->len - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		at += (size_t)n;
	}
	s->flushed += s->len;
	s->len = 0;
	return 0;
}

int pm_spill__make_room(struct pm_spill *s, size_t want, uint8_t **ret)
{
	int r;

	if (!s->filed && s->len + want <= PM_SPILL_MEM) {
		size_t cap = PM_MAX(PM_MAX(s->cap * 2, (size_t)PM_SPILL_CHUNK), s->len + want);
		uint8_t *mem = realloc(s->mem, PM_MIN(cap, (size_t)PM_SPILL_MEM));

		if (!mem)
			return -ENOMEM;
		s->mem = mem;
		s->cap = PM_MIN(cap, (size_t)PM_SPILL_MEM);
	} else {
		bool first = !s->filed;

		if (first) {
			r = spill_file(&s->fd);
			if (r < 0)
				return r;
			s->filed = true;
		}
		r = flush(s);
		if (r < 0)
			return r;
		if (first) { /* from here, a chunk of mem is the file's write buffer (cached) */
			uint8_t *mem = realloc(s->mem, PM_SPILL_CHUNK);

			if (!mem)
				return -ENOMEM;
			s->mem = mem;
			s->cap = PM_SPILL_CHUNK;
		}
	}
	*ret = s->mem + s->len;
	return 0;
}

int pm_spill__rewind(struct pm_spill *s)
{
	int r;

	s->win_pos = s->win_end = 0;
	s->read_off = 0;
	if (!s->filed)
		return 0;
	r = flush(s);
	if (r < 0)
		return r;
	if (!s->win) {
		s->win = malloc(2 * PM_SPILL_CHUNK);
		if (!s->win)
			return -ENOMEM;
	}
	return 0;
}

int pm_spill__fill(struct pm_spill *s, size_t want, const uint8_t **ret, size_t *ret_n)
{
	memmove(s->win, s->win + s->win_pos, s->win_end - s->win_pos);
	s->win_end -= s->win_pos;
	s->win_pos = 0;
	while (s->win_end < want && s->read_off < s->flushed) {
		ssize_t got = pread(s->fd, s->win + s->win_end, 2 * PM_SPILL_CHUNK - s->win_end,
				    (off_t)s->read_off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO; /* the file is shorter than was written */
		s->win_end += (size_t)got;
		s->read_off += (uint64_t)got;
	}
	*ret = s->win;
	*ret_n = s->win_end;
	return 0;
}

void pm_spill__done(struct pm_spill *s)
{
	if (s->filed)
		close(s->fd);
	free(s->mem);
	free(s->win);
	*s = (struct pm_spill){ 0 };
}
