// SPDX-License-Identifier: GPL-2.0-only
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int pm_parse_u64(const char *s, size_t len, int base, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;

	if (!s || len == 0)
		return -EINVAL;
	if (base == 0) {
		if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			i = 2;
		} else if (len > 1 && s[0] == '0') {
			base = 8;
			i = 1;
		} else {
			base = 10;
		}
	} else if (base == 16 && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		i = 2;
	}
	if (base != 8 && base != 10 && base != 16)
		return -EINVAL;
	if (base == 10 && len - i <= 19) { /* below 10^19: cannot overflow */
		for (; i < len; i++) {
			uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

			if (d > 9)
				return -EINVAL;
			v = v * 10 + d;
		}
		*ret = v;
		return 0;
	}
	if (base == 10) { /* most numbers: one compare per digit, no table */
		for (; i < len; i++) {
			uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

			if (d > 9)
				return -EINVAL;
			if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
				return -ERANGE;
		}
		*ret = v;
		return 0;
	}
	for (; i < len; i++) {
		int d = digit_value(s[i]);

		if (d >= base)
			return -EINVAL;
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, (uint64_t)d, &v))
			return -ERANGE;
	}
	*ret = v;
	return 0;
}

int pm_parse_u64_str(const char *s, int base, uint64_t *ret)
{
	return pm_parse_u64(s, s ? strlen(s) : 0, base, ret);
}

int pm_parse_int_str(const char *s, int *ret)
{
	bool neg = s && s[0] == '-';
	uint64_t v;
	int r;

	r = pm_parse_u64_str(neg ? s + 1 : s, 10, &v);
	if (r < 0)
		return r;
	if (v > (uint64_t)INT32_MAX + (neg ? 1 : 0))
		return -ERANGE;
	*ret = neg ? (int)-(int64_t)v : (int)v;
	return 0;
}

/* ASCII digits only, whatever the locale (and without its table, per character) */
static size_t digits(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/*
 * The grammar pm_parse_double takes, checked before strtod, which would also
 * take a '+', hex floats, "inf", "nan" and leading spaces.
 */
static bool is_decimal(const char *s, size_t len)
{
	size_t i = s[0] == '-', end = digits(s, len, i), n = end - i;

	if (end < len && s[end] == '.') {
		size_t frac = end + 1;

		end = digits(s, len, frac);
		n += end - frac;
	}
	if (n == 0)
		return false; /* no digit before or after the point */
	if (end < len && (s[end] == 'e' || s[end] == 'E')) {
		size_t e = end + 1;

		e += e < len && (s[e] == '+' || s[e] == '-');
		end = digits(s, len, e);
		if (end == e)
			return false;
	}
	return end == len;
}

/*
 * A decimal without an exponent of at most 15 digits, exactly as strtod
 * reads it (Clinger's fast path): its digits are an integer below 2^53 and
 * 10^k (k <= 22) is exact, so one IEEE division rounds correctly. false:
 * not such a number, strtod's to read.
 */
static bool fast_decimal(const char *s, size_t len, double *ret)
{
	static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,	1e4,  1e5,  1e6,  1e7,
					1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
					1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	bool neg = s[0] == '-';
	uint64_t m = 0;
	size_t digits = 0, frac = 0;
	bool point = false;

	for (size_t i = neg; i < len; i++) {
		if (s[i] == '.') {
			point = true;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || ++digits > 15)
			return false; /* an exponent, or too many digits */
		m = m * 10 + (uint64_t)(s[i] - '0');
		frac += point;
	}
	if (frac >= PM_ARRAY_SIZE(pow10))
		return false;
	*ret = (double)m / pow10[frac];
	if (neg)
		*ret = -*ret;
	return true;
}

int pm_parse_double(const char *s, size_t len, double *ret)
{
	char buf[128], *end;
	locale_t c, old;
	double v;

	if (!s || len == 0 || len >= sizeof(buf) || !is_decimal(s, len))
		return -EINVAL;
	if (fast_decimal(s, len, ret))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return -ENOMEM;
	old = uselocale(c);
	errno = 0;
	v = strtod(buf, &end);
	uselocale(old);
	freelocale(c);
	if (end != buf + len)
		return -EINVAL;
	if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
		return -ERANGE;
	if (!isfinite(v))
		return -ERANGE;
	*ret = v;
	return 0;
}

int pm_parse_double_str(const char *s, double *ret)
{
	return s ? pm_parse_double(s, strlen(s), ret) : -EINVAL;
}

void pm_wait_sigmask(sigset_t *ret)
{
	sigprocmask(SIG_SETMASK, NULL, ret);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sigismember(ret, sig) != 1 || sigaction(sig, NULL, &sa) < 0)
			continue;
		if ((sa.sa_flags & SA_SIGINFO) ?
			    sa.sa_sigaction != NULL :
			    sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
			sigdelset(ret, sig);
	}
}

size_t pm_rtrim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return n;
}

int pm_grow(void **arr, size_t *cap, size_t need, size_t elsz)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elsz)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*arr, ncap * elsz);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * elsz, 0, (ncap - *cap) * elsz);
	*arr = p;
	*cap = ncap;
	return 0;
}

void pm_strbuf__append(struct pm_strbuf *b, const char *s, size_t len)
{
	if (b->oom)
		return;
	if (pm_grow((void **)&b->s, &b->cap, b->len + len + 1, 1) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

void pm_strbuf__puts(struct pm_strbuf *b, const char *s)
{
	pm_strbuf__append(b, s, strlen(s));
}

void pm_strbuf__vprintf(struct pm_strbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (b->oom)
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || pm_grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1) < 0) {
		b->oom = true;
		return;
	}
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void pm_strbuf__printf(struct pm_strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pm_strbuf__vprintf(b, fmt, ap);
	va_end(ap);
}

char *pm_strbuf__steal(struct pm_strbuf *b)
{
	char *s = b->oom ? NULL : b->s;

	if (!s && !b->oom)
		s = strdup("");
	if (b->oom)
		free(b->s);
	*b = (struct pm_strbuf){ 0 };
	return s;
}

void pm_strbuf__done(struct pm_strbuf *b)
{
	free(b->s);
	*b = (struct pm_strbuf){ 0 };
}

char *pm_strdup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

bool pm_str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool pm_str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

size_t pm_u64_digits(uint64_t v, unsigned base, char *buf)
{
	char tmp[PM_U64_DIGITS];
	size_t n = 0;

	if (base == 10) { /* every value written: two digits per constant division */
		static const char pairs[] = "00010203040506070809101112131415161718192021222324"
					    "25262728293031323334353637383940414243444546474849"
					    "50515253545556575859606162636465666768697071727374"
					    "75767778798081828384858687888990919293949596979899";

		while (v >= 100) {
			unsigned r = (unsigned)(v % 100);

			v /= 100;
			tmp[n++] = pairs[2 * r + 1];
			tmp[n++] = pairs[2 * r];
		}
		tmp[n++] = (char)('0' + v % 10);
		if (v >= 10)
			tmp[n++] = (char)('0' + v / 10);
	} else {
		do {
			tmp[n++] = "0123456789abcdef"[v % base];
			v /= base;
		} while (v);
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

int pm_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= size ? -ENAMETOOLONG : 0;
}
