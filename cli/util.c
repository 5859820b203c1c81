// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's own small helpers: user text escaped before it reaches a
 * terminal, perf's option grammars, statistics. Strict numbers, growable
 * arrays and formatting are the helper library's (lib/util, "util.h"),
 * which the command links a private copy of, as libpmumon does.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli-values.h"
#include "cli-repeat.h"
#include "cli-text.h"
#include "util.h"

const char *cli_aggr_name(enum pm_aggr a)
{
	static const char *const names[] = {
		[PM_AGGR_FAMILY] = "family", [PM_AGGR_DEVICE] = "device",
		[PM_AGGR_CPU] = "cpu",	     [PM_AGGR_DIE] = "die",
		[PM_AGGR_SOCKET] = "socket", [PM_AGGR_CHANNEL] = "channel",
		[PM_AGGR_CORE] = "core",     [PM_AGGR_NODE] = "node",
		[PM_AGGR_CACHE] = "cache",
	};

	return (size_t)a < PM_ARRAY_SIZE(names) && names[a] ? names[a] : "?";
}

double cli_unit_bytes(const char *unit)
{
	static const struct {
		const char *unit;
		double bytes;
	} units[] = { { "B/s", 1 },
		      { "KB/s", 1e3 },
		      { "MB/s", 1e6 },
		      { "GB/s", 1e9 },
		      { "KiB/s", 1024.0 },
		      { "MiB/s", 1048576.0 },
		      { "GiB/s", 1073741824.0 } };

	for (size_t i = 0; unit && i < PM_ARRAY_SIZE(units); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].bytes;
	return 0;
}

int cli_parse_cache_level(const char *s, int *ret)
{
	/* perf's parse_cache_level: two characters, l or L and a level 1..MAX_CACHE_LVL (4) */
	if (!s || strlen(s) != 2 || (s[0] != 'L' && s[0] != 'l') || s[1] < '1' || s[1] > '4')
		return -EINVAL;
	*ret = s[1] - '0';
	return 0;
}

/* Bytes of the UTF-8 character at s (at most len) that is neither a control
 * character nor malformed; 0 when the first byte must be escaped. */
static size_t printable_utf8(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0; /* C0, DEL, a continuation byte, an overlong or too-large lead */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n > len)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((cp < 0xa0) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0; /* C1 controls (U+0080-U+009F), overlong forms, surrogates */
	return n;
}

/* s[0..len) onto f (NULL: measure only) with what a terminal acts on escaped;
 * the columns it takes. */
static int escape_walk(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	int width = 0;

	for (size_t i = 0; i < len;) {
		size_t n = printable_utf8(u + i, len - i);

		if (n) {
			if (f)
				fwrite(s + i, 1, n, f);
			width++;
			i += n;
		} else if (u[i] == '\t' || u[i] == '\n' || u[i] == '\r') {
			if (f)
				fprintf(f, "\\%c", u[i] == '\t' ? 't' : u[i] == '\n' ? 'n' : 'r');
			width += 2;
			i++;
		} else {
			if (f)
				fprintf(f, "\\x%02x", u[i]);
			width += 4;
			i++;
		}
	}
	return width;
}

void cli_escape(FILE *f, const char *s, size_t len)
{
	escape_walk(f, s, len);
}

int cli_escaped_width(const char *s, size_t len)
{
	return escape_walk(NULL, s, len);
}

void cli_row_place(const struct pm_row *r, char *buf, size_t size)
{
	if (r->place)
		snprintf(buf, size, "%s", r->place);
	else if (r->device)
		snprintf(buf, size, "%s", r->device);
	else if (r->domain) /* per CPU, an uncore row: the L3 (CCX), die or socket it reads */
		snprintf(buf, size, "%s", r->domain);
	else if (r->cpu >= 0)
		snprintf(buf, size, "cpu%d", r->cpu);
	else if (r->die >= 0)
		snprintf(buf, size, "S%d-D%d", r->socket, r->die);
	else if (r->socket >= 0)
		snprintf(buf, size, "S%d", r->socket);
	else
		snprintf(buf, size, "all");
}

void cli_place_in(const char *place, const char *cgroup, char *buf, size_t size)
{
	if (cgroup && cgroup[0])
		snprintf(buf, size, "%s in %s", place, cgroup);
	else
		snprintf(buf, size, "%s", place);
}

void cli_row_where(const struct pm_row *r, char *buf, size_t size)
{
	char place[128];

	cli_row_place(r, place, sizeof(place));
	cli_place_in(place, r->cgroup, buf, size);
}

static void swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

double cli_select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Edits (insert, delete, change, swap two neighbours) from a to b, up to 3. */
int cli_edits(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	int d[32][32];

	if (n > 30 || m > 30)
		return 3;
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			if (!i || !j) {
				d[i][j] = (int)(i + j);
				continue;
			}
			d[i][j] = PM_MIN(PM_MIN(d[i - 1][j], d[i][j - 1]) + 1,
					 d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				d[i][j] = PM_MIN(d[i][j], d[i - 2][j - 2] + 1);
		}
	return PM_MIN(d[n][m], 3);
}

void cli_stats__add(struct cli_stats *s, double v)
{
	double delta;

	/* perf's update_stats (tools/perf/util/stat.c): Welford's running mean */
	s->n++;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
}

double cli_stats__stddev_mean(const struct cli_stats *s)
{
	/* perf's stddev_stats: the sample stddev over sqrt(n), 0 below two values */
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

double cli_stats__spread_pct(const struct cli_stats *s)
{
	/* perf's rel_stddev_stats: 0 for a mean of 0 */
	return s->mean != 0 ? 100.0 * cli_stats__stddev_mean(s) / s->mean : 0.0;
}

/* One PID of a list: decimal, 1 to INT32_MAX. */
static int parse_pid(const char *p, size_t len, pid_t *ret)
{
	char num[24];
	uint64_t v;
	int r;

	if (len == 0 || len >= sizeof(num))
		return len ? -ERANGE : -EINVAL;
	snprintf(num, sizeof(num), "%.*s", (int)len, p);
	r = pm_parse_u64_str(num, 10, &v);
	if (r < 0)
		return r;
	if (v == 0)
		return -EINVAL;
	if (v > INT32_MAX)
		return -ERANGE;
	*ret = (pid_t)v;
	return 0;
}

int cli_parse_pid_list(const char *s, pid_t *ret, size_t max, size_t *ret_n)
{
	pid_t *got = calloc(max ? max : 1, sizeof(*got));
	size_t n = 0;
	int r = s && *s ? 0 : -EINVAL;

	for (const char *p = s; r == 0 && got;) {
		size_t len = strspn(p, "0123456789");
		bool dup = false;
		pid_t v;

		if (p[len] && p[len] != ',') {
			r = -EINVAL;
			break;
		}
		r = parse_pid(p, len, &v);
		/* perf keeps each once (its strlist is a set) */
		for (size_t i = 0; r == 0 && i < n; i++)
			dup |= got[i] == v;
		if (r == 0 && !dup && n == max)
			r = -E2BIG;
		if (r == 0 && !dup)
			got[n++] = v;
		if (r < 0 || !p[len])
			break;
		p += len + 1;
	}
	if (!got)
		r = -ENOMEM;
	if (r == 0) {
		memcpy(ret, got, n * sizeof(*got));
		*ret_n = n;
	}
	free(got);
	return r;
}
