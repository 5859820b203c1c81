/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the single pass over a recording took, kept in its order for playing
 * (replay-parse.c): bytes appended, then read back from the start as often as
 * the session opens. In memory up to PM_SPILL_MEM bytes, past that in an
 * unlinked temporary file ($TMPDIR, else /tmp): memory does not grow with the
 * file, and the text is parsed once.
 */
#ifndef PM_SOURCE_REPLAY_SPILL_H
#define PM_SOURCE_REPLAY_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PM_SPILL_MEM (4u << 20)
#define PM_SPILL_CHUNK (64u << 10)

struct pm_spill {
	uint8_t *mem; /* the bytes while they fit; then the file's write buffer is stdio's */
	size_t len, cap;
	FILE *f;       /* NULL: all of it is in mem */
	uint64_t size; /* bytes put */
	/* reading: a window of the bytes from read_off */
	uint8_t *win;
	size_t win_pos, win_end;
	uint64_t read_off; /* of win[win_end] in the spill */
};

/* Append n bytes: 0, or -errno (-ENOSPC and the like from the temporary file). */
int pm_spill__put(struct pm_spill *s, const void *p, size_t n);
/* Read from the first byte again: 0 or -errno. */
int pm_spill__rewind(struct pm_spill *s);
/*
 * At least want bytes (want <= PM_SPILL_CHUNK) from the read position into
 * *ret, fewer only at the end (*ret_n says how many; 0: the end); taken with
 * pm_spill__skip. 0 or -errno.
 */
int pm_spill__peek(struct pm_spill *s, size_t want, const uint8_t **ret, size_t *ret_n);
void pm_spill__skip(struct pm_spill *s, size_t n);
void pm_spill__done(struct pm_spill *s);

#endif
