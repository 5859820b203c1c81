/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the single pass over a recording took, kept in its order for playing
 * (replay-parse.c): bytes appended, then read back from the start as often as
 * the session opens. In memory up to PM_SPILL_MEM bytes, past that in an
 * unlinked temporary file ($TMPDIR, else /tmp), written and read a chunk at
 * a time: memory does not grow with the file, and the text is parsed once.
 * The caller writes each record in place (pm_spill__reserve, __commit) and
 * reads it in place (pm_spill__peek, __skip): no copy, no call per record.
 */
#ifndef PM_SOURCE_REPLAY_SPILL_H
#define PM_SOURCE_REPLAY_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PM_SPILL_MEM (4u << 20)
#define PM_SPILL_CHUNK (64u << 10)

struct pm_spill {
	uint8_t *mem; /* the bytes while they fit; once in the file, its write buffer */
	size_t len, cap;
	bool filed; /* in a file: fd */
	int fd;
	uint64_t size;	  /* bytes put */
	uint64_t flushed; /* of them, written to the file */
	/* reading the file: a window of its bytes from read_off */
	uint8_t *win;
	size_t win_pos, win_end;
	uint64_t read_off; /* of win[win_end] in the file */
};

/* Room for want bytes (want <= PM_SPILL_CHUNK) after the last put, at *ret: 0, or -errno
 * (-ENOSPC and the like from the temporary file). Out of line: pm_spill__reserve's. */
int pm_spill__make_room(struct pm_spill *s, size_t want, uint8_t **ret);

/* Room for want bytes at *ret, which pm_spill__commit then puts (n <= want of them). */
static inline int pm_spill__reserve(struct pm_spill *s, size_t want, uint8_t **ret)
{
	if (s->cap - s->len >= want) {
		*ret = s->mem + s->len;
		return 0;
	}
	return pm_spill__make_room(s, want, ret);
}

static inline void pm_spill__commit(struct pm_spill *s, size_t n)
{
	s->len += n;
	s->size += n;
}

/* Read from the first byte again, once all is put: 0 or -errno. */
int pm_spill__rewind(struct pm_spill *s);
/* pm_spill__peek's refill of its window from the file. */
int pm_spill__fill(struct pm_spill *s, size_t want, const uint8_t **ret, size_t *ret_n);

/*
 * At least want bytes (want <= PM_SPILL_CHUNK) from the read position into
 * *ret, fewer only at the end (*ret_n says how many; 0: the end); taken with
 * pm_spill__skip. 0 or -errno.
 */
static inline int pm_spill__peek(struct pm_spill *s, size_t want, const uint8_t **ret,
				 size_t *ret_n)
{
	if (!s->filed) { /* all in memory: the window is the whole of it */
		*ret = s->mem + s->win_pos;
		*ret_n = s->len - s->win_pos;
		return 0;
	}
	if (s->win_end - s->win_pos < want && s->read_off < s->flushed)
		return pm_spill__fill(s, want, ret, ret_n);
	*ret = s->win + s->win_pos;
	*ret_n = s->win_end - s->win_pos;
	return 0;
}

static inline void pm_spill__skip(struct pm_spill *s, size_t n)
{
	s->win_pos += n;
}

void pm_spill__done(struct pm_spill *s);

#endif
