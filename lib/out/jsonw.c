// SPDX-License-Identifier: GPL-2.0-only
#include "out/jsonw.h"

#include <inttypes.h>
#include <math.h>

#include "out/out.h"

void pm_jw__init(struct pm_jw *w, FILE *f)
{
	*w = (struct pm_jw){ .f = f };
}

/* Before a value: a comma if it is not the first in its container. */
static void sep(struct pm_jw *w)
{
	if (w->need_comma[w->depth])
		fputc(',', w->f);
	w->need_comma[w->depth] = true;
}

static void open_c(struct pm_jw *w, char c)
{
	sep(w);
	fputc(c, w->f);
	if (w->depth < PM_JW_DEPTH - 1)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_c(struct pm_jw *w, char c)
{
	if (w->depth > 0)
		w->depth--;
	fputc(c, w->f);
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

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void pm_jw__key(struct pm_jw *w, const char *key)
{
	sep(w);
	put_string(w->f, key);
	fputc(':', w->f);
	/* the value that follows belongs to this key: no comma before it */
	w->need_comma[w->depth] = false;
}

void pm_jw__string(struct pm_jw *w, const char *s)
{
	sep(w);
	if (s)
		put_string(w->f, s);
	else
		fputs("null", w->f);
}

void pm_jw__u64(struct pm_jw *w, uint64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

void pm_jw__int(struct pm_jw *w, int64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRId64, v);
}

void pm_jw__double(struct pm_jw *w, double v)
{
	char buf[64];

	sep(w);
	if (!isfinite(v)) {
		fputs("null", w->f);
		return;
	}
	pm_fmt_double(buf, sizeof(buf), v);
	fputs(buf, w->f);
}

void pm_jw__bool(struct pm_jw *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void pm_jw__null(struct pm_jw *w)
{
	sep(w);
	fputs("null", w->f);
}
