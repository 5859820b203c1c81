/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf PMU format fields: the contents of sysfs format/<term>, such as
 * "config:0-7,32-35,59-60", "config1:0-63" or "config:22". A term's value is
 * spread over the listed bits lowest first, exactly as the kernel and perf
 * (tools/perf/util/pmu.c, pmu_format_value) do.
 */
#ifndef PM_FORMAT_H
#define PM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PM_CONFIG_WORDS 3 /* config, config1, config2 */

struct pm_format {
	uint8_t word;  /* 0: config, 1: config1, 2: config2 */
	uint8_t nbits; /* number of bits in mask */
	uint64_t mask; /* the bits of that word the term occupies */
};

/*
 * Parse a format string (trailing newline allowed). On failure *ret is
 * untouched and *reterr_col (if not NULL) gets the byte offset of the error.
 * Return: 0, -EINVAL (syntax), -EOPNOTSUPP (config3 or beyond: this build's
 * kernel headers have no such attr field).
 */
int pm_format__parse(const char *s, size_t len, struct pm_format *ret, size_t *reterr_col);

/* Largest value the field can hold. */
uint64_t pm_format__max(const struct pm_format *f);

/*
 * Encode value into the config words: clear the field's bits, then deposit
 * value's bits lowest first. Return: 0, or -ERANGE if value does not fit
 * (config is untouched then).
 */
int pm_format__encode(const struct pm_format *f, uint64_t value, uint64_t config[PM_CONFIG_WORDS]);

/* Extract the field's value from the config words (inverse of encode). */
uint64_t pm_format__decode(const struct pm_format *f, const uint64_t config[PM_CONFIG_WORDS]);

#endif
