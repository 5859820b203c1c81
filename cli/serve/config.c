// SPDX-License-Identifier: GPL-2.0-only
/*
 * serve --config FILE: the options SIGHUP re-reads. One option per line,
 * its long name without the dashes, "name = value" or a bare "name" for a
 * flag; '#' starts a comment line; blank lines are skipped:
 *
 *     metrics = ddr_read_bandwidth.all,ddr_write_bandwidth.all
 *     per-channel
 *     define = channel_peak=25.6e9
 *
 * Each line becomes one "--name=value" argument, read after the command
 * line's, so the getopt loop that reads the command line reads the file
 * too, and a refused argument names its line (cfg->line). Which names a
 * file may hold is the caller's table: what is fixed for the process
 * (--listen, --store, the global options) is not in it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

static int refuse(char *err, size_t errsz, const char *path, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int refuse(char *err, size_t errsz, const char *path, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errsz, "%s:%u: ", path, line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errsz)
		vsnprintf(err + n, errsz - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const struct option *find_option(const struct option *allowed, const char *name, size_t n)
{
	for (const struct option *o = allowed; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	return NULL;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* One line, s[0..n) without its newline, as an argument: 0, 1 for a line with none,
 * -EINVAL (err), -ENOMEM. */
static int parse_line(const char *path, unsigned line, const char *s, size_t n,
		      const struct option *allowed, char **ret_arg, char *err, size_t errsz)
{
	const struct option *o;
	size_t name, eq;

	while (n && blank(*s))
		s++, n--;
	while (n && blank(s[n - 1]))
		n--;
	if (!n || *s == '#')
		return 1;
	for (name = 0; name < n && !blank(s[name]) && s[name] != '='; name++)
		;
	for (eq = name; eq < n && blank(s[eq]); eq++)
		;
	o = find_option(allowed, s, name);
	if (!o)
		return refuse(err, errsz, path, line,
			      "'%.*s' is not an option this file may hold (%s)",
			      (int)(name > 64 ? 64 : name), s,
			      "docs/serve.md lists them: serve's event, place and interval options");
	if (eq < n && s[eq] != '=')
		return refuse(err, errsz, path, line, "'%s' and its value are written %s = VALUE",
			      o->name, o->name);
	if (o->has_arg == no_argument && eq < n)
		return refuse(err, errsz, path, line, "'%s' is a flag: it takes no value", o->name);
	if (o->has_arg == required_argument && eq == n)
		return refuse(err, errsz, path, line, "'%s' needs a value: %s = VALUE", o->name,
			      o->name);
	if (eq < n) {
		for (eq++; eq < n && blank(s[eq]); eq++)
			;
		if (eq == n)
			return refuse(err, errsz, path, line, "'%s' has an empty value", o->name);
	}
	*ret_arg = malloc(strlen(o->name) + (n - eq) + 4);
	if (!*ret_arg)
		return -ENOMEM;
	if (eq < n)
		sprintf(*ret_arg, "--%s=%.*s", o->name, (int)(n - eq), s + eq);
	else
		sprintf(*ret_arg, "--%s", o->name);
	return 0;
}

int serve_config_parse(const char *path, const char *text, size_t len, const struct option *allowed,
		       struct serve_config *ret, char *err, size_t errsz)
{
	struct serve_config c = { 0 };
	size_t cap = 0;
	unsigned line = 0;
	int r = 0;

	if (errsz)
		err[0] = '\0';
	if (memchr(text, '\0', len))
		return refuse(err, errsz, path, 1, "a NUL byte: this is not a text file");
	for (size_t off = 0; off < len && r >= 0; line++) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		char *arg = NULL;

		r = parse_line(path, line + 1, text + off, n, allowed, &arg, err, errsz);
		off += n + 1;
		if (r != 0)
			continue;
		if (c.argc == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **a = realloc(c.argv, ncap * sizeof(*a));
			unsigned *l = a ? realloc(c.line, ncap * sizeof(*l)) : NULL;

			if (a)
				c.argv = a;
			if (l)
				c.line = l;
			if (!a || !l) {
				free(arg);
				r = -ENOMEM;
				break;
			}
			cap = ncap;
		}
		c.argv[c.argc] = arg;
		c.line[c.argc++] = line + 1;
	}
	if (r < 0) {
		serve_config_free(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void serve_config_free(struct serve_config *c)
{
	for (size_t i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	free(c->line);
	*c = (struct serve_config){ 0 };
}
