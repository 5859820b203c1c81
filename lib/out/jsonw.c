// SPDX-License-Identifier: GPL-2.0-only
#include "out/jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "out/out.h"

void pm_jw__init(struct pm_jw *w, struct pm_obuf *b)
{
	*w = (struct pm_jw){ .b = b };
}

/* Before a value: a comma if it is not the first in its container. */
static void sep(struct pm_jw *w)
{
	if (w->need_comma[w->depth])
		pm_obuf__putc(w->b, ',');
	w->need_comma[w->depth] = true;
}

static void open_c(struct pm_jw *w, char c)
{
	sep(w);
	pm_obuf__putc(w->b, c);
	if (w->depth < PM_JW_DEPTH - 1)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_c(struct pm_jw *w, char c)
{
	if (w->depth > 0)
		w->depth--;
	pm_obuf__putc(w->b, c);
}

void pm_jw__object_begin(struct pm_jw *w)
{
	open_c(w, '{');
}

void pm_jw__object_end(struct pm_jw *w)
{
	close_c(w, '}');
}

void pm_jw__array_begin(struct pm_jw *w)
{
	open_c(w, '[');
}

void pm_jw__array_end(struct pm_jw *w)
{
	close_c(w, ']');
}

/* A character JSON wants escaped: the quote, the backslash, control characters. */
static bool escaped(unsigned char c)
{
	return c == '"' || c == '\\' || c < 0x20;
}

static void put_string(struct pm_obuf *b, const char *s)
{
	pm_obuf__putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		const unsigned char *run = p;
		char u[8];

		while (*p && !escaped(*p))
			p++;
		pm_obuf__put(b, (const char *)run, (size_t)(p - run)); /* as they are */
		if (!*p)
			break;
		switch (*p) {
		case '"':
			pm_obuf__put(b, "\\\"", 2);
			break;
		case '\\':
			pm_obuf__put(b, "\\\\", 2);
			break;
		case '\n':
			pm_obuf__put(b, "\\n", 2);
			break;
		case '\r':
			pm_obuf__put(b, "\\r", 2);
			break;
		case '\t':
			pm_obuf__put(b, "\\t", 2);
			break;
		default:
			snprintf(u, sizeof(u), "\\u%04x", *p);
			pm_obuf__put(b, u, 6);
		}
		p++;
	}
	pm_obuf__putc(b, '"');
}

void pm_jw__key(struct pm_jw *w, const char *key)
{
	pm_jw__keyn(w, key, strlen(key));
}

void pm_jw__keyn(struct pm_jw *w, const char *key, size_t n)
{
	sep(w);
	/* keys are the writers' own literals: nothing in them to escape */
	pm_obuf__putc(w->b, '"');
	pm_obuf__put(w->b, key, n);
	pm_obuf__put(w->b, "\":", 2);
	/* the value that follows belongs to this key: no comma before it */
	w->need_comma[w->depth] = false;
}

void pm_jw__string(struct pm_jw *w, const char *s)
{
	sep(w);
	if (s)
		put_string(w->b, s);
	else
		pm_obuf__put(w->b, "null", 4);
}

void pm_jw__u64(struct pm_jw *w, uint64_t v)
{
	sep(w);
	pm_obuf__u64(w->b, v);
}

void pm_jw__int(struct pm_jw *w, int64_t v)
{
	sep(w);
	if (v < 0) {
		pm_obuf__putc(w->b, '-');
		pm_obuf__u64(w->b, (uint64_t)0 - (uint64_t)v);
	} else {
		pm_obuf__u64(w->b, (uint64_t)v);
	}
}

void pm_jw__double(struct pm_jw *w, double v)
{
	sep(w);
	if (!isfinite(v))
		pm_obuf__put(w->b, "null", 4);
	else
		pm_obuf__double(w->b, v);
}

void pm_jw__bool(struct pm_jw *w, bool v)
{
	sep(w);
	if (v)
		pm_obuf__put(w->b, "true", 4);
	else
		pm_obuf__put(w->b, "false", 5);
}

void pm_jw__null(struct pm_jw *w)
{
	sep(w);
	pm_obuf__put(w->b, "null", 4);
}
