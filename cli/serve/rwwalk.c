// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seam between the exposition and remote write (serve.h, rw_walk):
 * expo_walk's series of one sample, each as (name, labels, value). Remote
 * write sends what /metrics shows, the same families and labels and the
 * same values, because both are walks of the same sample: the text
 * formats' sink writes lines, this one hands pairs over. The labels come
 * as the exposition keeps them, '{name="value",...' escaped (backslash,
 * double quote, newline: expo_put_label), and are parsed back here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

long rw_labels_parse(const char *labels, char *scratch, struct rw_label *ret_labels, size_t max)
{
	struct rw_label got[RW_MAX_LABELS];
	const char *s = labels;
	char *o = scratch;
	size_t n = 0;

	if (!*s)
		return 0;
	if (*s++ != '{')
		return -EINVAL;
	for (;;) {
		if (n == max || n == RW_MAX_LABELS || !name_start(*s))
			return -EINVAL;
		got[n].name = o;
		while (name_char(*s))
			*o++ = *s++;
		*o++ = '\0';
		if (s[0] != '=' || s[1] != '"')
			return -EINVAL;
		s += 2;
		got[n].value = o;
		for (; *s != '"'; s++) {
			if (!*s || *s == '\n')
				return -EINVAL; /* the exposition escapes a newline */
			if (*s == '\\') {
				s++;
				if (*s == 'n')
					*o++ = '\n';
				else if (*s == '\\' || *s == '"')
					*o++ = *s;
				else
					return -EINVAL;
			} else {
				*o++ = *s;
			}
		}
		*o++ = '\0';
		n++;
		s++; /* the closing quote */
		if (!*s)
			break;
		if (*s++ != ',')
			return -EINVAL;
	}
	memcpy(ret_labels, got, n * sizeof(got[0]));
	return (long)n;
}

struct walk {
	rw_sample_fn fn;
	void *arg;
	char *scratch; /* the labels unescaped */
	size_t cap;
	long n;
	int r;
};

static void on_family(void *ud, const char *name, const char *type, const char *unit,
		      const char *help)
{
	/* remote write 1.0 sends samples only (its metadata is optional) */
}

static void on_series(void *ud, const char *name, const char *labels, const char *extra,
		      const char *extra_value, double v)
{
	struct walk *w = ud;
	struct rw_label l[RW_MAX_LABELS + 1];
	size_t len;
	long n;

	if (w->r < 0)
		return;
	if (!labels)
		labels = "";
	len = strlen(labels);
	if (len + 1 > w->cap) {
		char *grown = realloc(w->scratch, len + 1);

		if (!grown) {
			w->r = -ENOMEM;
			return;
		}
		w->scratch = grown;
		w->cap = len + 1;
	}
	n = rw_labels_parse(labels, w->scratch, l, RW_MAX_LABELS);
	if (n < 0) {
		w->r = (int)n;
		return;
	}
	if (extra)
		l[n++] = (struct rw_label){ extra, extra_value };
	w->r = w->fn(w->arg, name, l, (size_t)n, v);
	w->n++;
}

static void on_seconds(void *ud, const char *name, const char *labels, uint64_t ns)
{
	on_series(ud, name, labels, NULL, NULL, (double)ns / 1e9);
}

long rw_walk(const struct expo_sample *s, rw_sample_fn fn, void *arg)
{
	struct walk w = { .fn = fn, .arg = arg };
	struct expo_sink k = { on_family, on_series, on_seconds, &w };

	expo_walk(s, &k);
	free(w.scratch);
	return w.r < 0 ? w.r : w.n;
}

bool rw_sample_ms(uint64_t wall_ns, int64_t last_ms, int64_t interval_ms, int64_t *ret_ms)
{
	int64_t ms = (int64_t)(wall_ns / 1000000);

	if (last_ms != INT64_MIN && ms <= last_ms) {
		if (last_ms - ms >= interval_ms)
			return false; /* the clock went back */
		ms = last_ms + 1;     /* read within the millisecond of the last */
	}
	*ret_ms = ms;
	return true;
}
