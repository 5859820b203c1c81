// SPDX-License-Identifier: GPL-2.0-only
/*
 * The growable buffer (struct sbuf, serve.h) that serve writes its
 * expositions, labels and pages into: the bottom of cli/serve, used by
 * plan.c, expo.c, ring.c and the rest, and using none of them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

char *sbuf_room(struct sbuf *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	return b->data + b->len;
}

void sbuf_commit(struct sbuf *b, size_t n)
{
	b->len += n;
	b->data[b->len] = '\0';
}

void sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	char *o = sbuf_room(b, n);

	if (!o)
		return;
	memcpy(o, s, n);
	sbuf_commit(b, n);
}

void sbuf_puts(struct sbuf *b, const char *s)
{
	sbuf_put(b, s, strlen(s));
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = b->err ? b->err : -EINVAL;
	} else if ((size_t)n < sizeof(small)) {
		sbuf_put(b, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->err = -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sbuf_put(b, big, (size_t)n);
		free(big);
	}
}

void sbuf_free(struct sbuf *b)
{
	free(b->data);
	*b = (struct sbuf){ 0 };
}
