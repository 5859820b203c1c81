// SPDX-License-Identifier: GPL-2.0-only
#include "db/jsonpos.h"

#include <errno.h>
#include <string.h>

static size_t skip_ws(const char *s, size_t len, size_t p)
{
	while (p < len && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r'))
		p++;
	return p;
}

/* Past a string whose '"' is at p. */
static size_t skip_string(const char *s, size_t len, size_t p)
{
	for (p++; p < len && s[p] != '"'; p++)
		if (s[p] == '\\')
			p++;
	return p < len ? p + 1 : len;
}

/* Past the value at p (its nested arrays and objects too). */
static size_t skip_value(const char *s, size_t len, size_t p)
{
	size_t depth = 0;

	while (p < len) {
		char c = s[p];

		if (c == '"') {
			p = skip_string(s, len, p);
		} else if (c == '[' || c == '{') {
			depth++;
			p++;
		} else if (c == ']' || c == '}') {
			if (depth == 0)
				return p;
			depth--;
			p++;
		} else if (c == ',' && depth == 0) {
			return p;
		} else {
			p++;
		}
		if (depth == 0 && (c == '"' || c == ']' || c == '}'))
			return p;
	}
	return p;
}

size_t pm_json_top(const char *text, size_t len)
{
	return skip_ws(text, len, 0);
}

/* The member key of the object at p: its value's offset (the last, if repeated). */
static int member(const char *s, size_t len, size_t p, const char *key, size_t *ret_off)
{
	size_t klen = strlen(key);
	int r = -ENOENT;

	if (p >= len || s[p] != '{')
		return -ENOENT;
	for (p = skip_ws(s, len, p + 1); p < len && s[p] == '"';) {
		size_t start = p, end = skip_string(s, len, p);

		p = skip_ws(s, len, end);
		if (p >= len || s[p] != ':')
			break;
		p = skip_ws(s, len, p + 1);
		/* the key's text between its quotes, as any real file writes it (no escapes) */
		if (p < len && end == start + klen + 2 && !strncmp(s + start + 1, key, klen)) {
			*ret_off = p;
			r = 0;
		}
		p = skip_ws(s, len, skip_value(s, len, p));
		if (p >= len || s[p] != ',')
			break;
		p = skip_ws(s, len, p + 1);
	}
	return r;
}

int pm_json_locate(const char *text, size_t len, size_t index, const char *key, size_t *ret_off)
{
	size_t p = skip_ws(text, len, 0);

	if (p < len && text[p] == '[') {
		p = skip_ws(text, len, p + 1);
		for (size_t i = 0; i < index; i++) {
			if (p >= len || text[p] == ']')
				return -ENOENT;
			p = skip_ws(text, len, skip_value(text, len, p));
			if (p >= len || text[p] != ',')
				return -ENOENT;
			p = skip_ws(text, len, p + 1);
		}
		if (p >= len || text[p] == ']')
			return -ENOENT;
	} else if (index > 0 || p >= len) {
		return -ENOENT;
	}
	if (key)
		return member(text, len, p, key, ret_off);
	*ret_off = p;
	return 0;
}

void pm_json_line_col(const char *text, size_t len, size_t off, int *ret_line, int *ret_col)
{
	int line = 1, col = 1;

	for (size_t i = 0; i < off && i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n') {
			line++;
			col = 1;
		} else if (c < 0x80 || c >= 0xC0) { /* not a UTF-8 continuation byte */
			col++;
		}
	}
	*ret_line = line;
	*ret_col = col;
}

/* How many bytes \uXXXX (and a following low surrogate) decode to; *ret_raw: its length. */
static size_t unicode_len(const char *s, size_t len, size_t p, size_t *ret_raw)
{
	unsigned v = 0;

	*ret_raw = 2;
	for (size_t i = 0; i < 4 && p + 2 + i < len; i++) {
		char c = s[p + 2 + i];

		v = v * 16 + (unsigned)(c >= 'a' ? c - 'a' + 10 :
					c >= 'A' ? c - 'A' + 10 :
						   c - '0');
		*ret_raw = 3 + i;
	}
	if (v >= 0xD800 && v < 0xDC00 && p + 11 < len && s[p + 6] == '\\' && s[p + 7] == 'u') {
		*ret_raw = 12;
		return 4;
	}
	return v < 0x80 ? 1 : v < 0x800 ? 2 : 3;
}

size_t pm_json_string_pos(const char *text, size_t len, size_t off, size_t pos)
{
	size_t p = off + 1, n = 0;

	while (p < len && n < pos && text[p] != '"') {
		if (text[p] != '\\') {
			p++;
			n++;
		} else if (p + 1 < len && text[p + 1] == 'u') {
			size_t raw;

			n += unicode_len(text, len, p, &raw);
			p += raw;
		} else {
			p += 2;
			n++;
		}
	}
	return p < len ? p : len;
}
