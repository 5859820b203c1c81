/* SPDX-License-Identifier: GPL-2.0-only */
/* A set of CPU numbers, as sysfs writes them: "0-3,8,10-11". */
#ifndef PM_CPUS_H
#define PM_CPUS_H

#include <stdbool.h>
#include <stddef.h>

#define PM_CPU_MAX 8192 /* bound on any CPU number we accept */

struct pm_cpus {
	size_t n;
	int *cpu; /* sorted, no duplicates */
};

/*
 * Parse a CPU list such as "0-3,8\n" (trailing whitespace allowed; an empty
 * string is the empty set). *ret is untouched on failure.
 * Return: 0, -EINVAL (syntax, reversed range), -ERANGE (CPU >= PM_CPU_MAX),
 * -ENOMEM.
 */
int pm_cpus__parse(const char *s, size_t len, struct pm_cpus *ret);
/* Format as a compact list into buf; returns 0 or -ENAMETOOLONG. */
int pm_cpus__format(const struct pm_cpus *c, char *buf, size_t size);
bool pm_cpus__has(const struct pm_cpus *c, int cpu);
/* Set c to a ∩ b. */
int pm_cpus__intersect(const struct pm_cpus *a, const struct pm_cpus *b, struct pm_cpus *ret);
/* Set ret to a ∪ b. */
int pm_cpus__union(const struct pm_cpus *a, const struct pm_cpus *b, struct pm_cpus *ret);
int pm_cpus__copy(const struct pm_cpus *src, struct pm_cpus *ret);
void pm_cpus__done(struct pm_cpus *c);

#endif
