// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seam between the exposition and remote write (serve.h,
 * rw_text_walk): the sample lines of a text exposition (format 0.0.4) as
 * (name, labels, value). Remote write sends what /metrics shows, the same
 * families and labels, because it reads what expo_render wrote; when the
 * exposition gives its series one by one, this file is what goes.
 *
 *     name{label="value",...} value
 *
 * '#' lines and blank lines are passed over. A label value is unescaped
 * (\\, \", \n). Values: decimal numbers, +Inf, -Inf, NaN. No timestamps:
 * expo_render writes none.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "serve.h"

#define MAX_LABELS 32

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* A value as the exposition writes it: 0 or -EINVAL. */
static int parse_value(const char *s, double *ret)
{
	if (!strcmp(s, "+Inf") || !strcmp(s, "Inf")) {
		*ret = INFINITY;
		return 0;
	}
	if (!strcmp(s, "-Inf")) {
		*ret = -INFINITY;
		return 0;
	}
	if (!strcmp(s, "NaN")) {
		*ret = NAN;
		return 0;
	}
	return cli_parse_double(s, ret) < 0 ? -EINVAL : 0;
}

/*
 * One sample line s[0..n) into buf (room for n + 1: names and values
 * copied there, NUL-terminated, values unescaped): 0 or -EINVAL.
 */
static int parse_line(const char *s, size_t n, char *buf, const char **ret_name,
		      struct rw_label *labels, size_t *ret_n, double *ret_value)
{
	size_t i = 0, k = 0, nl = 0;

	if (!n || !name_start(s[0]))
		return -EINVAL;
	while (i < n && name_char(s[i]))
		buf[k++] = s[i++];
	buf[k++] = '\0';
	*ret_name = buf;
	if (i < n && s[i] == '{') {
		i++;
		while (i < n && s[i] != '}') {
			if (nl == MAX_LABELS || !name_start(s[i]) || s[i] == ':')
				return -EINVAL;
			labels[nl].name = buf + k;
			while (i < n && name_char(s[i]) && s[i] != ':')
				buf[k++] = s[i++];
			buf[k++] = '\0';
			if (i + 1 >= n || s[i] != '=' || s[i + 1] != '"')
				return -EINVAL;
			i += 2;
			labels[nl].value = buf + k;
			while (i < n && s[i] != '"') {
				if (s[i] == '\\') {
					if (++i == n)
						return -EINVAL;
					if (s[i] == 'n')
						buf[k++] = '\n';
					else if (s[i] == '\\' || s[i] == '"')
						buf[k++] = s[i];
					else
						return -EINVAL;
					i++;
				} else {
					buf[k++] = s[i++];
				}
			}
			if (i == n)
				return -EINVAL;
			buf[k++] = '\0';
			i++; /* the closing quote */
			nl++;
			if (i < n && s[i] == ',')
				i++;
			else if (i < n && s[i] != '}')
				return -EINVAL;
		}
		if (i == n)
			return -EINVAL;
		i++; /* '}' */
	}
	if (i == n || s[i] != ' ')
		return -EINVAL;
	i++;
	memcpy(buf + k, s + i, n - i);
	buf[k + n - i] = '\0';
	if (memchr(buf + k, ' ', n - i) || parse_value(buf + k, ret_value) < 0)
		return -EINVAL; /* a timestamp, or not a number */
	*ret_n = nl;
	return 0;
}

long rw_text_walk(const char *text, size_t len, rw_sample_fn fn, void *arg, size_t *ret_line)
{
	struct rw_label labels[MAX_LABELS];
	char *buf = NULL;
	size_t cap = 0, line = 0;
	long count = 0;
	int r = 0;

	for (size_t off = 0; off < len && r == 0; line++) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		const char *s = text + off, *name;
		size_t n_labels;
		double v;

		off += n + 1;
		if (!n || s[0] == '#')
			continue;
		if (n + 1 > cap) {
			char *grown = realloc(buf, n + 1);

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			buf = grown;
			cap = n + 1;
		}
		if (memchr(s, '\0', n) || parse_line(s, n, buf, &name, labels, &n_labels, &v) < 0) {
			r = -EINVAL;
			if (ret_line)
				*ret_line = line + 1;
			break;
		}
		r = fn(arg, name, labels, n_labels, v);
		count++;
	}
	free(buf);
	return r < 0 ? r : count;
}
