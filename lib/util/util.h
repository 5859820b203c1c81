/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by all of lib/: strict parsing, growable arrays, strings. */
#ifndef PM_UTIL_H
#define PM_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PM_MAX(a, b) ((a) > (b) ? (a) : (b))

/*
 * Strict number parsing: the whole of [s, s+len) must be the number, with no
 * sign, space or locale involved. Base 0 accepts 0x.. hex, 0.. octal and
 * decimal, like the kernel's kstrtou64. *ret is untouched on failure.
 * Return: 0, -EINVAL (not a number), -ERANGE (too big).
 */
int pm_parse_u64(const char *s, size_t len, int base, uint64_t *ret);
/* As above for a NUL-terminated string. */
int pm_parse_u64_str(const char *s, int base, uint64_t *ret);
int pm_parse_int_str(const char *s, int *ret);
/*
 * A finite decimal or exponent float, C locale whatever the process locale:
 * [-]DIGITS[.DIGITS][e[+-]DIGITS] (".5" and "5." too), one sign at most and
 * only a minus: "--5", "+5", "-+5" are not numbers.
 */
int pm_parse_double(const char *s, size_t len, double *ret);
/* As above for a NUL-terminated string (NULL: -EINVAL). */
int pm_parse_double_str(const char *s, double *ret);

/* Drop trailing whitespace (sysfs values end in "\n"); returns the new length. */
size_t pm_rtrim(char *s);

/*
 * The signal mask to wait with (pm_os_ops.wait): the caller's mask less
 * every signal it blocks but catches with a handler of its own. Those are
 * the signals it wants to hear of while it waits, and only then (pmumon's
 * CLI blocks and catches the signals that end a run, cli/signals.c).
 */
void pm_wait_sigmask(sigset_t *ret);

/*
 * Make room for `need` elements in a heap array of `*cap` elements of size
 * `elsz`, doubling. Return: 0 or -ENOMEM (the array is untouched then).
 */
int pm_grow(void **arr, size_t *cap, size_t need, size_t elsz);
/* pm_grow with the element size taken from the array: PM_GROW(l->items, l->cap, l->n + 1). */
#define PM_GROW(arr, cap, need) pm_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* A growable NUL-terminated string. Zero-initialise before use. */
struct pm_strbuf {
	char *s;
	size_t len, cap;
	bool oom; /* an append failed: the content is truncated */
};

void pm_strbuf__append(struct pm_strbuf *b, const char *s, size_t len);
void pm_strbuf__puts(struct pm_strbuf *b, const char *s);
void pm_strbuf__printf(struct pm_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pm_strbuf__vprintf(struct pm_strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Hand the string over (caller frees) and reset b; NULL if out of memory. */
char *pm_strbuf__steal(struct pm_strbuf *b);
void pm_strbuf__done(struct pm_strbuf *b);

/* strdup that tolerates NULL (returns NULL for NULL). */
char *pm_strdup0(const char *s);
bool pm_str_has_prefix(const char *s, const char *prefix);
/* Does s end with suffix and have something before it ("x.json", not ".json")? */
bool pm_str_has_suffix(const char *s, const char *suffix);

/*
 * The digits of v in base 10 or 16 (lowercase, no prefix) into buf, which
 * holds PM_U64_DIGITS, NUL-terminated; returns their count. Without printf:
 * it runs for every value written (lib/out) and every field of every event
 * read (lib/db/jevents).
 */
#define PM_U64_DIGITS 24
size_t pm_u64_digits(uint64_t v, unsigned base, char *buf);

/* snprintf that reports truncation: 0 or -ENAMETOOLONG. */
int pm_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
