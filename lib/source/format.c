// SPDX-License-Identifier: GPL-2.0-only
#include "source/format.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/util.h"

static int parse_bit(const char *s, size_t len, size_t *pos, unsigned *ret)
{
	size_t start = *pos;
	uint64_t v;

	while (*pos < len && isdigit((unsigned char)s[*pos]))
		(*pos)++;
	if (*pos == start || pm_parse_u64(s + start, *pos - start, 10, &v) < 0 || v > 63) {
		*pos = start; /* point at the bad bit number */
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

int pm_format__parse(const char *s, size_t len, struct pm_format *ret, size_t *reterr_col)
{
	struct pm_format f = { 0 };
	size_t pos = 6; /* after "config" */
	int r = -EINVAL;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len < 7 || strncmp(s, "config", 6) != 0) {
		pos = 0;
		goto fail;
	}
	if (isdigit((unsigned char)s[pos])) {
		unsigned w = (unsigned)(s[pos] - '0');

		pos++;
		if (w == 0 || (pos < len && isdigit((unsigned char)s[pos])))
			goto fail; /* "config0", "config12" are not kernel words */
		if (w >= PM_CONFIG_WORDS) {
			r = -EOPNOTSUPP;
			pos = 6;
			goto fail;
		}
		f.word = (uint8_t)w;
	}
	if (pos >= len || s[pos] != ':')
		goto fail;
	pos++;
	for (;;) {
		unsigned lo, hi;

		if (parse_bit(s, len, &pos, &lo) < 0)
			goto fail;
		hi = lo;
		if (pos < len && s[pos] == '-') {
			pos++;
			if (parse_bit(s, len, &pos, &hi) < 0)
				goto fail;
			if (hi < lo) {
				pos--;
				goto fail;
			}
		}
		for (unsigned b = lo; b <= hi; b++) {
			uint64_t bit = 1ull << b;

			if (f.mask & bit)
				goto fail; /* overlapping ranges */
			f.mask |= bit;
			f.nbits++;
		}
		if (pos == len)
			break;
		if (s[pos] != ',')
			goto fail;
		pos++;
	}
	*ret = f;
	return 0;
fail:
	if (reterr_col)
		*reterr_col = pos;
	return r;
}

uint64_t pm_format__max(const struct pm_format *f)
{
	return f->nbits >= 64 ? UINT64_MAX : (1ull << f->nbits) - 1;
}

int pm_format__encode(const struct pm_format *f, uint64_t value, uint64_t config[PM_CONFIG_WORDS])
{
	uint64_t w, mask = f->mask;

	if (value > pm_format__max(f))
		return -ERANGE;
	w = config[f->word] & ~mask;
	while (mask) {
		uint64_t bit = mask & -mask;

		if (value & 1)
			w |= bit;
		value >>= 1;
		mask &= mask - 1;
	}
	config[f->word] = w;
	return 0;
}

uint64_t pm_format__decode(const struct pm_format *f, const uint64_t config[PM_CONFIG_WORDS])
{
	uint64_t v = 0, mask = f->mask;
	unsigned i = 0;

	while (mask) {
		uint64_t bit = mask & -mask;

		if (config[f->word] & bit)
			v |= 1ull << i;
		i++;
		mask &= mask - 1;
	}
	return v;
}
