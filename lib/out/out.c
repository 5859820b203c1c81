// SPDX-License-Identifier: GPL-2.0-only
#include "out/out.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/opts.h"
#include "util/util.h"

int pm_out__new(FILE *f, const struct pm_out_opts *opts, struct pm_out **ret_out)
{
	struct pm_out_opts oo;
	struct pm_out *o;
	int r;

	if (!f || !opts || !ret_out)
		return -EINVAL;
	r = PM_OPTS_COPY(&oo, opts);
	if (r < 0)
		return r;
	opts = &oo;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->f = f;
	o->opts = *opts;
	if (!o->opts.sep)
		o->opts.sep = ',';
	o->target = strdup(opts->target ? opts->target : "system wide");
	o->sim_platform = pm_strdup0(opts->sim_platform);
	o->cpuid = pm_strdup0(opts->cpuid);
	o->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	switch (opts->format) {
	case PM_OUT_TABLE:
		o->ops = &pm_out_table;
		break;
	case PM_OUT_CSV:
		o->ops = &pm_out_csv;
		break;
	case PM_OUT_JSON:
		o->ops = &pm_out_json;
		break;
	case PM_OUT_PERF_TABLE:
	case PM_OUT_PERF_CSV:
	case PM_OUT_PERF_JSON:
		o->ops = &pm_out_perf; /* out/perf.c: perf stat's own layouts */
		/* its numbers in the locale perf's would use (none there: C's) */
		o->perf_locale = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
		break;
	}
	if (!o->target || !o->ops || o->c_locale == (locale_t)0 ||
	    (opts->sim_platform && !o->sim_platform) || (opts->cpuid && !o->cpuid)) {
		pm_out__free(o);
		return -ENOMEM;
	}
	o->opts.target = o->target;
	o->opts.sim_platform = o->sim_platform;
	o->opts.cpuid = o->cpuid;
	*ret_out = o;
	return 0;
}

int pm_out__report(struct pm_out *o, const struct pm_report *r)
{
	locale_t old;
	int ret;

	if (!o || !r)
		return -EINVAL;
	/* whatever the program's locale, our numbers use '.' and no grouping */
	old = uselocale(o->c_locale);
	ret = o->ops->report(o, r);
	uselocale(old);
	o->n_reports++;
	if (ret == 0 && fflush(o->f) != 0)
		ret = errno ? -errno : -EIO;
	else if (ret == 0 && ferror(o->f))
		ret = -EIO;
	return ret;
}

void pm_out_label__done(struct pm_out_label *l)
{
	free(l->event);
	free(l->device);
	free(l->place);
	free(l->domain);
	free(l->text);
	*l = (struct pm_out_label){ 0 };
}

/* The same text, or both none (the label keeps copies: a row's strings may go). */
static bool same_str(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static bool same_label(const struct pm_out_label *l, enum pm_aggr aggr, const struct pm_row *row)
{
	return l->text && l->aggr == aggr && l->socket == row->socket && l->die == row->die &&
	       l->cpu == row->cpu && l->channel == row->channel &&
	       l->subchannel == row->subchannel && same_str(l->event, row->event) &&
	       same_str(l->device, row->device) && same_str(l->place, row->place) &&
	       same_str(l->domain, row->domain);
}

const struct pm_out_label *pm_out__label(struct pm_out *o, size_t i, enum pm_aggr aggr,
					 const struct pm_row *row, pm_out_label_fn make)
{
	struct pm_out_label *l;
	struct pm_obuf b = { 0 };

	if (i >= o->n_labels) {
		struct pm_out_label *p = realloc(o->labels, (i + 1) * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + o->n_labels, 0, (i + 1 - o->n_labels) * sizeof(*p));
		o->labels = p;
		o->n_labels = i + 1;
	}
	l = &o->labels[i];
	if (same_label(l, aggr, row))
		return l;
	make(o, &b, aggr, row);
	pm_obuf__putc(&b, '\0'); /* a C string too, for the table */
	pm_out_label__done(l);
	*l = (struct pm_out_label){ .event = pm_strdup0(row->event),
				    .device = pm_strdup0(row->device),
				    .place = pm_strdup0(row->place),
				    .domain = pm_strdup0(row->domain),
				    .socket = row->socket,
				    .die = row->die,
				    .cpu = row->cpu,
				    .channel = row->channel,
				    .subchannel = row->subchannel,
				    .aggr = aggr,
				    .text = b.p,
				    .len = b.len ? b.len - 1 : 0 };
	if (b.err || (row->event && !l->event) || (row->device && !l->device) ||
	    (row->place && !l->place) || (row->domain && !l->domain)) {
		pm_out_label__done(l);
		return NULL;
	}
	return l;
}

void pm_out__free(struct pm_out *o)
{
	if (!o)
		return;
	if (o->c_locale != (locale_t)0)
		freelocale(o->c_locale);
	if (o->perf_locale != (locale_t)0)
		freelocale(o->perf_locale);
	free(o->target);
	free(o->sim_platform);
	free(o->cpuid);
	free(o->buf.p);
	free(o->pre.p);
	free(o->flags_text.p);
	for (size_t i = 0; i < o->n_labels; i++)
		pm_out_label__done(&o->labels[i]);
	free(o->labels);
	free(o->buckets.label);
	free(o->buckets.cgroup);
	free(o->buckets.order);
	free(o->buckets.group);
	free(o->buckets.note);
	free(o);
}

/* 10^k, k <= 38 */
static unsigned __int128 pow10_u128(int k)
{
	unsigned __int128 p;
	static const uint64_t small[20] = {
		1ull,
		10ull,
		100ull,
		1000ull,
		10000ull,
		100000ull,
		1000000ull,
		10000000ull,
		100000000ull,
		1000000000ull,
		10000000000ull,
		100000000000ull,
		1000000000000ull,
		10000000000000ull,
		100000000000000ull,
		1000000000000000ull,
		10000000000000000ull,
		100000000000000000ull,
		1000000000000000000ull,
		10000000000000000000ull,
	};

	if (k < 20)
		return small[k];
	p = small[19];
	for (int i = 19; i < k; i++)
		p *= 10;
	return p;
}

/*
 * What printf's "%.15g" or "%.17g" (prec) prints of v for 1e-4 <= |v| <
 * 1e15, not whole (fixed notation there), exactly and without printf: v is
 * m * 2^e exactly; v * 10^k for the k that leaves prec digits is the
 * 128-bit m * 10^k shifted right by -e, rounded to nearest, ties to even,
 * as glibc rounds. 0 where it does not apply (then printf does it); else
 * whether the text reads back as v, found in the same integers: 1 yes
 * (within half an ulp of v), 2 no, 3 unknown (exactly half an ulp, or v
 * a power of two, whose lower neighbour is nearer: strtod decides).
 */
static int fmt_g(char *buf, size_t size, double v, int prec)
{
	static const unsigned __int128 limit = (unsigned __int128)1 << 127;
	double a = fabs(v);
	int e2, x = (int)floor(log10(a)); /* the first digit's exponent: corrected below */
	uint64_t mant = (uint64_t)ldexp(frexp(a, &e2), 53);

	e2 -= 53; /* a = mant * 2^e2 */
	if (!(a >= 1e-4 && a < 1e15) || e2 >= 0 || e2 < -120 || size < 32)
		return 0;
	for (int tries = 0; tries < 3; tries++) {
		int k = prec - 1 - x, s = -e2, last = prec - 1, back;
		unsigned __int128 p, num, q, rem, half, diff;
		char d[17];
		size_t n = 0;

		if (k < 0 || k > 22)
			return 0;
		p = pow10_u128(k);
		num = (unsigned __int128)mant * p; /* < 2^53 * 10^22 < 2^127 */
		if (num >= limit)
			return 0;
		q = num >> s; /* s <= 120 */
		rem = num - (q << s);
		half = (unsigned __int128)1 << (s - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		if (q >= pow10_u128(prec)) {
			x++; /* prec digits were one more: the first digit is one place up */
			continue;
		}
		if (q < pow10_u128(prec - 1)) {
			x--;
			continue;
		}
		/* |q/10^k - v| < half an ulp (2^(e-1)) <=> 2|q*2^s - m*10^k| < 10^k */
		diff = (q << s) > num ? (q << s) - num : num - (q << s);
		back = 2 * diff < p ? 1 : 2 * diff > p ? 2 : 3;
		if (mant == (uint64_t)1 << 52 && back != 1)
			back = 3;
		for (uint64_t q64 = (uint64_t)q, i = (uint64_t)prec; i-- > 0; q64 /= 10)
			d[i] = (char)('0' + (int)(q64 % 10)); /* q < 10^17: 64 bits */
		/* fixed notation (-4 <= x <= 14); %g drops trailing zeros and a bare point */
		while (last > 0 && d[last] == '0' && last > x)
			last--;
		if (v < 0)
			buf[n++] = '-';
		if (x < 0) {
			buf[n++] = '0';
			buf[n++] = '.';
			for (int i = -1; i > x; i--)
				buf[n++] = '0';
			for (int i = 0; i <= last; i++)
				buf[n++] = d[i];
		} else {
			for (int i = 0; i <= x; i++)
				buf[n++] = d[i];
			if (last > x) {
				buf[n++] = '.';
				for (int i = x + 1; i <= last; i++)
					buf[n++] = d[i];
			}
		}
		buf[n] = '\0';
		return back;
	}
	return 0;
}

void pm_out__bounds(const struct pm_row *row, double *ret_lo, double *ret_hi, unsigned *ret_bound)
{
	unsigned bound = row->bound;

	if (!isfinite(row->value) || row->flags & PM_ROW_NOT_COUNTED)
		bound = PM_BOUND_NO_VALUE;
	*ret_bound = bound;
	if (bound == PM_BOUND_EXACT) {
		*ret_lo = *ret_hi = row->value;
		return;
	}
	*ret_lo = bound == PM_BOUND_NO_VALUE || !isfinite(row->lo) ? NAN : row->lo;
	*ret_hi = bound == PM_BOUND_NO_VALUE || !isfinite(row->hi) ? NAN : row->hi;
}

double pm_out__bound_pct(const struct pm_row *row)
{
	double lo, hi, v = row->value;
	unsigned bound;

	pm_out__bounds(row, &lo, &hi, &bound);
	if (!isfinite(lo) || !isfinite(hi) || v == 0)
		return bound == PM_BOUND_EXACT ? 0 : NAN;
	return 100 * fmax(v - lo, hi - v) / fabs(v);
}

void pm_fmt_double(char *buf, size_t size, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15 && size >= 24) {
		/* what "%.0f" prints of a whole number, "-0" included, without printf */
		buf[0] = '-';
		pm_u64_digits((uint64_t)fabs(v), 10, buf + signbit(v));
		return;
	}
	switch (fmt_g(buf, size, v, 15)) {
	case 1:
		return; /* it reads back as v */
	case 2:
		break;
	case 0:
		snprintf(buf, size, "%.15g", v);
		/* fall through */
	default:
		if (strtod(buf, NULL) == v)
			return;
	}
	if (!fmt_g(buf, size, v, 17)) /* 17 digits always read back */
		snprintf(buf, size, "%.17g", v);
}

void pm_obuf__put(struct pm_obuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 8192;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void pm_obuf__puts(struct pm_obuf *b, const char *s)
{
	pm_obuf__put(b, s, strlen(s));
}

void pm_obuf__putc(struct pm_obuf *b, char c)
{
	if (!b->err && b->len < b->cap)
		b->p[b->len++] = c;
	else
		pm_obuf__put(b, &c, 1);
}

void pm_obuf__u64(struct pm_obuf *b, uint64_t v)
{
	char d[PM_U64_DIGITS];

	pm_obuf__put(b, d, pm_u64_digits(v, 10, d));
}

void pm_obuf__double(struct pm_obuf *b, double v)
{
	char d[64];

	if (v == floor(v) && fabs(v) < 1e15) { /* a whole number: pm_fmt_double's first case */
		if (signbit(v))
			pm_obuf__putc(b, '-');
		pm_obuf__u64(b, (uint64_t)fabs(v));
		return;
	}
	pm_fmt_double(d, sizeof(d), v);
	pm_obuf__puts(b, d);
}

int pm_obuf__flush(struct pm_obuf *b, FILE *f)
{
	int r = b->err;

	if (!r && b->len && fwrite(b->p, 1, b->len, f) != b->len)
		r = -EIO;
	b->len = 0;
	b->err = 0;
	return r;
}

void pm_fmt_grouped(char *buf, size_t size, double v, int decimals)
{
	char digits[64], *dot;
	size_t n, out = 0, first;
	bool neg = v < 0;

	/*
	 * printf's floating point was most of our time per interval: fixed point
	 * with up to 2 decimals in integers (rounding as printf does for these),
	 * written backwards with its commas in one loop, then cut to size as the
	 * general path below cuts.
	 */
	if (decimals >= 0 && decimals <= 2 && fabs(v) < 1e15) {
		uint64_t scale = decimals == 2 ? 100 : decimals == 1 ? 10 : 1;
		double a = fabs(v) * (double)scale;
		/* a whole count is its own rounding: llround's answer without the call */
		uint64_t x = a == (double)(uint64_t)a ? (uint64_t)a : (uint64_t)llround(a);
		char *end = digits + sizeof(digits), *p = end;

		for (int d = 0; d < decimals; d++) {
			*--p = (char)('0' + x % 10);
			x /= 10;
		}
		if (decimals)
			*--p = '.';
		for (; x >= 1000; x /= 1000) { /* a comma before each group of three */
			unsigned g = (unsigned)(x % 1000);

			*--p = (char)('0' + g % 10);
			*--p = (char)('0' + g / 10 % 10);
			*--p = (char)('0' + g / 100);
			*--p = ',';
		}
		for (unsigned g = (unsigned)x;; g /= 10) {
			*--p = (char)('0' + g % 10);
			if (g < 10)
				break;
		}
		if (neg)
			*--p = '-';
		if (size == 0)
			return;
		n = PM_MIN((size_t)(end - p), size - 1);
		memcpy(buf, p, n);
		buf[n] = '\0';
		return;
	}
	snprintf(digits, sizeof(digits), "%.*f", decimals, fabs(v));
	dot = strchr(digits, '.');
	n = dot ? (size_t)(dot - digits) : strlen(digits);
	if (size == 0)
		return;
	if (neg && out + 1 < size)
		buf[out++] = '-';
	first = n % 3 ? n % 3 : 3;
	/* a comma before each group of three after the first: a countdown, not a division */
	for (size_t i = 0, left = first; i < n && out + 1 < size; i++, left--) {
		if (left == 0) {
			buf[out++] = ',';
			left = 3;
			if (out + 1 >= size)
				break;
		}
		buf[out++] = digits[i];
	}
	for (const char *p = dot; p && *p && out + 1 < size; p++)
		buf[out++] = *p;
	buf[out] = '\0';
}

void pm_fmt_timestamp(char *buf, size_t size, uint64_t wall_ns)
{
	time_t sec = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(wall_ns / 1000000ull % 1000));
}

void pm_out__time_of_day(struct pm_out *o, uint64_t wall_ns, char *buf, size_t size)
{
	time_t sec = (time_t)(wall_ns / 1000000000ull);
	unsigned ms = (unsigned)(wall_ns / 1000000ull % 1000);
	char msbuf[5] = { '.', (char)('0' + ms / 100), (char)('0' + ms / 10 % 10),
			  (char)('0' + ms % 10), '\0' };
	struct tm tm;

	if (o->tod_sec != (int64_t)sec || !o->tod_hms[0]) {
		localtime_r(&sec, &tm);
		snprintf(o->tod_hms, sizeof(o->tod_hms), "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
		o->tod_sec = (int64_t)sec;
	}
	if (size)
		snprintf(buf, size, "%s%s", o->tod_hms, msbuf);
}

void pm_fmt_seconds(char *buf, size_t size, uint64_t ns)
{
	char sec[PM_U64_DIGITS];
	uint64_t frac = ns % UINT64_C(1000000000);
	size_t n = pm_u64_digits(ns / UINT64_C(1000000000), 10, sec);

	if (size < n + 11) {
		if (size)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, sec, n);
	buf[n] = '.';
	for (int i = 9; i >= 1; i--) {
		buf[n + (size_t)i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	buf[n + 10] = '\0';
}

void pm_line__put(struct pm_line *l, const char *s, int width, bool right)
{
	size_t len = strlen(s), pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;

	if (l->n + len + pad >= sizeof(l->buf))
		return; /* a line this long is a bug upstream; drop the field, not the line */
	if (right) {
		memset(l->buf + l->n, ' ', pad);
		l->n += pad;
	}
	memcpy(l->buf + l->n, s, len);
	l->n += len;
	if (!right) {
		memset(l->buf + l->n, ' ', pad);
		l->n += pad;
	}
	l->buf[l->n] = '\0';
}
