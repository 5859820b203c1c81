// SPDX-License-Identifier: GPL-2.0-only
/* See jsonflat.h. Every check fails towards jansson: a NULL costs time, not a result. */
#include "db/jsonflat.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct scan {
	const char *p, *end;
	char *tmp; /* a string with escapes, decoded; as long as the text */
};

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r'))
		s->p++;
}

static bool eat(struct scan *s, char c)
{
	skip_ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

static int unescape(char c)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at = c ? strchr(from, c) : NULL;

	return at ? to[at - from] : -1;
}

/* A string at s->p ('"'): *ret points into the text, or into s->tmp where it has
 * escapes (valid until the next string). false: not one this path takes. */
static bool string(struct scan *s, const char **ret, size_t *ret_len)
{
	const char *start;
	size_t n = 0;
	bool esc = false;

	if (!eat(s, '"'))
		return false;
	for (start = s->p; s->p < s->end; s->p++) {
		unsigned char c = (unsigned char)*s->p;
		int u;

		if (c == '"') {
			*ret = esc ? s->tmp : start;
			*ret_len = esc ? n : (size_t)(s->p - start);
			s->p++;
			return true;
		}
		if (c < 0x20 || c > 0x7f) /* jansson rejects the first; UTF-8 is its to check */
			return false;
		if (c == '\\') {
			if (!esc)
				memcpy(s->tmp, start, n = (size_t)(s->p - start));
			esc = true;
			if (++s->p >= s->end || (u = unescape(*s->p)) < 0)
				return false; /* \u and bad escapes: jansson's */
			c = (unsigned char)u;
		}
		if (esc)
			s->tmp[n++] = (char)c;
	}
	return false;
}

static json_t *object(struct scan *s)
{
	json_t *o = json_object();
	const char *k, *v;
	char key[256];
	size_t kn, vn;

	if (!o || !eat(s, '{'))
		goto fail;
	if (eat(s, '}'))
		return o;
	do {
		/* the key copied: a decoded one lives in s->tmp, which the value reuses */
		if (!string(s, &k, &kn) || kn >= sizeof(key))
			goto fail;
		memcpy(key, k, kn);
		key[kn] = '\0';
		/* a repeated key is jansson's to say (a key cannot hold a NUL: no \u here) */
		if (json_object_getn(o, key, kn) || !eat(s, ':') || !string(s, &v, &vn) ||
		    json_object_setn_new_nocheck(o, key, kn, json_stringn_nocheck(v, vn)) < 0)
			goto fail;
	} while (eat(s, ','));
	if (eat(s, '}'))
		return o;
fail:
	json_decref(o);
	return NULL;
}

json_t *pm_json_flat_load(const char *text, size_t len)
{
	struct scan s = { .p = text, .end = text + len, .tmp = malloc(len + 1) };
	json_t *arr = json_array(), *o;

	if (!s.tmp || !arr || !eat(&s, '['))
		goto fail;
	if (!eat(&s, ']')) {
		do {
			o = object(&s);
			if (!o || json_array_append_new(arr, o) < 0)
				goto fail;
		} while (eat(&s, ','));
		if (!eat(&s, ']'))
			goto fail;
	}
	skip_ws(&s);
	if (s.p != s.end)
		goto fail;
	free(s.tmp);
	return arr;
fail:
	free(s.tmp);
	json_decref(arr);
	return NULL;
}
