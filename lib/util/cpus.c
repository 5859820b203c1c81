// SPDX-License-Identifier: GPL-2.0-only
#include "util/cpus.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int parse_cpu(const char *s, size_t len, int *ret)
{
	uint64_t v;
	int r = pm_parse_u64(s, len, 10, &v);

	if (r < 0)
		return r;
	if (v >= PM_CPU_MAX)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

int pm_cpus__parse(const char *s, size_t len, struct pm_cpus *ret)
{
	int *cpu = NULL;
	size_t n = 0, cap = 0, i = 0;
	int r;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	while (i < len) {
		size_t end = i, dash = 0;
		int lo, hi;

		while (end < len && s[end] != ',') {
			if (s[end] == '-') {
				if (dash)
					goto einval;
				dash = end;
			}
			end++;
		}
		if (dash) {
			r = parse_cpu(s + i, dash - i, &lo);
			if (r == 0)
				r = parse_cpu(s + dash + 1, end - dash - 1, &hi);
		} else {
			r = parse_cpu(s + i, end - i, &lo);
			hi = lo;
		}
		if (r < 0)
			goto fail;
		if (hi < lo)
			goto einval;
		r = pm_grow((void **)&cpu, &cap, n + (size_t)(hi - lo) + 1, sizeof(*cpu));
		if (r < 0)
			goto fail;
		for (int c = lo; c <= hi; c++)
			cpu[n++] = c;
		if (end < len && end + 1 == len)
			goto einval; /* trailing comma */
		i = end + 1;
	}
	if (n) {
		size_t m = 1;

		qsort(cpu, n, sizeof(*cpu), cmp_int);
		for (size_t k = 1; k < n; k++)
			if (cpu[k] != cpu[m - 1])
				cpu[m++] = cpu[k];
		n = m;
	}
	ret->n = n;
	ret->cpu = cpu;
	return 0;
einval:
	r = -EINVAL;
fail:
	free(cpu);
	return r;
}

int pm_cpus__format(const struct pm_cpus *c, char *buf, size_t size)
{
	size_t off = 0;

	if (size == 0)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	for (size_t i = 0; i < c->n;) {
		size_t j = i;
		int n;

		while (j + 1 < c->n && c->cpu[j + 1] == c->cpu[j] + 1)
			j++;
		if (j == i)
			n = snprintf(buf + off, size - off, "%s%d", off ? "," : "", c->cpu[i]);
		else
			n = snprintf(buf + off, size - off, "%s%d-%d", off ? "," : "", c->cpu[i],
				     c->cpu[j]);
		if (n < 0 || (size_t)n >= size - off)
			return -ENAMETOOLONG;
		off += (size_t)n;
		i = j + 1;
	}
	return 0;
}

bool pm_cpus__has(const struct pm_cpus *c, int cpu)
{
	return c->n && bsearch(&cpu, c->cpu, c->n, sizeof(int), cmp_int) != NULL;
}

int pm_cpus__intersect(const struct pm_cpus *a, const struct pm_cpus *b, struct pm_cpus *ret)
{
	int *cpu = NULL;
	size_t n = 0;

	if (a->n) {
		cpu = malloc(a->n * sizeof(*cpu));
		if (!cpu)
			return -ENOMEM;
		for (size_t i = 0; i < a->n; i++)
			if (pm_cpus__has(b, a->cpu[i]))
				cpu[n++] = a->cpu[i];
	}
	ret->n = n;
	ret->cpu = cpu;
	return 0;
}

int pm_cpus__union(const struct pm_cpus *a, const struct pm_cpus *b, struct pm_cpus *ret)
{
	size_t i = 0, j = 0, n = 0;
	int *cpu = NULL;

	if (a->n + b->n) {
		cpu = malloc((a->n + b->n) * sizeof(*cpu));
		if (!cpu)
			return -ENOMEM;
	}
	/* both are sorted: merge, dropping duplicates */
	while (i < a->n || j < b->n) {
		int next = j >= b->n || (i < a->n && a->cpu[i] <= b->cpu[j]) ? a->cpu[i] :
									       b->cpu[j];

		if (i < a->n && a->cpu[i] == next)
			i++;
		if (j < b->n && b->cpu[j] == next)
			j++;
		cpu[n++] = next;
	}
	ret->n = n;
	ret->cpu = cpu;
	return 0;
}

int pm_cpus__copy(const struct pm_cpus *src, struct pm_cpus *ret)
{
	int *cpu = NULL;

	if (src->n) {
		cpu = malloc(src->n * sizeof(*cpu));
		if (!cpu)
			return -ENOMEM;
		memcpy(cpu, src->cpu, src->n * sizeof(*cpu));
	}
	ret->n = src->n;
	ret->cpu = cpu;
	return 0;
}

void pm_cpus__done(struct pm_cpus *c)
{
	if (!c)
		return;
	free(c->cpu);
	c->cpu = NULL;
	c->n = 0;
}
