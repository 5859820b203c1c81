// SPDX-License-Identifier: GPL-2.0-only
/*
 * Content negotiation for /metrics: the Accept and Accept-Encoding headers
 * (RFC 9110, 12.5.1 and 12.5.3), read as far as choosing between two
 * formats and gzip needs. A header is a comma-separated list of
 * `type/subtype *( ; param=value )`; q= is the weight (0..1, default 1).
 * Whatever does not parse weighs nothing: a client gets the text format.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve.h"

/* A token of s between [b, e), spaces trimmed. */
static void trim(const char **b, const char **e)
{
	while (*b < *e && isspace((unsigned char)**b))
		(*b)++;
	while (*e > *b && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

static bool token_is(const char *b, const char *e, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(e - b) == n && strncasecmp(b, word, n) == 0;
}

/* q=VALUE as RFC 9110 writes it: 0, 1, 0.xxx or 1.000; -1 when malformed. */
static double parse_q(const char *b, const char *e)
{
	double q = 0, scale = 0.1;

	if (b == e || (*b != '0' && *b != '1'))
		return -1;
	q = *b++ - '0';
	if (b == e)
		return q;
	if (*b++ != '.' || e - b > 3)
		return -1;
	for (; b < e; b++, scale /= 10) {
		if (!isdigit((unsigned char)*b))
			return -1;
		q += (*b - '0') * scale;
	}
	return q > 1 ? -1 : q;
}

struct range {
	const char *type, *type_end; /* "text/plain" */
	double q;		     /* -1: malformed */
	bool version_ok;	     /* no version=, or the one wanted */
};

/* One element [b, e) of the list; want_version: the version= that is acceptable. */
static void parse_range(const char *b, const char *e, const char *want_version, struct range *r)
{
	const char *semi = memchr(b, ';', (size_t)(e - b));

	r->type = b;
	r->type_end = semi ? semi : e;
	trim(&r->type, &r->type_end);
	r->q = 1;
	r->version_ok = true;
	while (semi && r->q >= 0) {
		const char *p = semi + 1, *next = memchr(p, ';', (size_t)(e - p));
		const char *pe = next ? next : e, *eq = memchr(p, '=', (size_t)(pe - p));
		const char *nb = p, *ne = eq ? eq : pe, *vb = eq ? eq + 1 : pe, *ve = pe;

		trim(&nb, &ne);
		trim(&vb, &ve);
		if (ve - vb >= 2 && *vb == '"' && ve[-1] == '"')
			vb++, ve--;
		if (token_is(nb, ne, "q"))
			r->q = parse_q(vb, ve);
		else if (token_is(nb, ne, "version") && want_version)
			r->version_ok = token_is(vb, ve, want_version);
		semi = next;
	}
}

enum expo_format expo_negotiate(const char *accept)
{
	double q_om = 0, q_text = 0, q_any = 0;
	bool text_named = false;
	const char *p = accept;

	if (!accept)
		return EXPO_TEXT;
	while (*p) {
		const char *comma = strchr(p, ',');
		const char *e = comma ? comma : p + strlen(p);
		struct range om, other;

		parse_range(p, e, "1.0.0", &om);
		parse_range(p, e, "0.0.4", &other);
		if (om.q >= 0 && om.version_ok &&
		    token_is(om.type, om.type_end, "application/openmetrics-text") && om.q > q_om)
			q_om = om.q;
		if (other.q >= 0 && token_is(other.type, other.type_end, "text/plain")) {
			text_named = true;
			if (other.version_ok && other.q > q_text)
				q_text = other.q;
		}
		if (other.q >= 0 && token_is(other.type, other.type_end, "*/*") && other.q > q_any)
			q_any = other.q;
		p = comma ? comma + 1 : e;
	}
	if (!text_named)
		q_text = q_any;
	return q_om > 0 && q_om > q_text ? EXPO_OPENMETRICS : EXPO_TEXT;
}

bool expo_accepts_gzip(const char *accept_encoding)
{
	double q_gzip = -1, q_any = 0;
	const char *p = accept_encoding;

	if (!p)
		return false;
	while (*p) {
		const char *comma = strchr(p, ',');
		const char *e = comma ? comma : p + strlen(p);
		struct range r;

		parse_range(p, e, NULL, &r);
		if (r.q >= 0 && token_is(r.type, r.type_end, "gzip"))
			q_gzip = r.q;
		else if (r.q >= 0 && token_is(r.type, r.type_end, "*"))
			q_any = r.q;
		p = comma ? comma + 1 : e;
	}
	return q_gzip >= 0 ? q_gzip > 0 : q_any > 0;
}
