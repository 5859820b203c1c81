// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's pmu-events rules (jevents.h). Sources: tools/perf/pmu-events/jevents.py
 * @ 0434410fa45c (class JsonEvent), tools/perf/util/pmu.c (pmu__name_match,
 * pmu_uncore_alias_match, perf_pmu__match_ignoring_suffix with hex suffixes,
 * pmu_uncore_identifier_match), tools/perf/arch/arm64/util/header.c
 * @ 03c11eb3b16d (strcmp_cpuid_str); tests/data/pmu-events/SOURCE.
 */
#include "db/jevents.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

int pm_jevents_pmu(const char *unit, char *buf, size_t size)
{
	static const char *const table[][2] = {
		{ "CBO", "uncore_cbox" },
		{ "QPI LL", "uncore_qpi" },
		{ "SBO", "uncore_sbox" },
		{ "iMPH-U", "uncore_arb" },
		{ "CPU-M-CF", "cpum_cf" },
		{ "CPU-M-SF", "cpum_sf" },
		{ "PAI-CRYPTO", "pai_crypto" },
		{ "PAI-EXT", "pai_ext" },
		{ "UPI LL", "uncore_upi" },
		{ "hisi_sicl,cpa", "hisi_sicl,cpa" },
		{ "hisi_sccl,ddrc", "hisi_sccl,ddrc" },
		{ "hisi_sccl,hha", "hisi_sccl,hha" },
		{ "hisi_sccl,l3c", "hisi_sccl,l3c" },
		{ "imx8_ddr", "imx8_ddr" },
		{ "imx9_ddr", "imx9_ddr" },
		{ "L3PMC", "amd_l3" },
		{ "DFPMC", "amd_df" },
		{ "UMCPMC", "amd_umc" },
		{ "cpu_core", "cpu_core" },
		{ "cpu_atom", "cpu_atom" },
		{ "ali_drw", "ali_drw" },
		{ "arm_cmn", "arm_cmn" },
		{ "tool", "tool" },
	};
	size_t i;

	if (!unit || !unit[0])
		return pm_snprintf(buf, size, "default_core");
	for (i = 0; i < PM_ARRAY_SIZE(table); i++)
		if (!strcmp(unit, table[i][0]))
			return pm_snprintf(buf, size, "%s", table[i][1]);
	if (pm_snprintf(buf, size, "uncore_%s", unit) < 0)
		return -ENAMETOOLONG;
	for (i = 7; buf[i]; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
	return 0;
}

/* Python's int(s, 0) for the values perf's files hold: 0x.. hex, else decimal. */
static int py_int0(const char *s, size_t n, uint64_t *ret)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return pm_parse_u64(s, n, 16, ret);
	if (n > 1 && s[0] == '0') /* Python refuses 012 in base 0; 0 and 00 are 0 */
		return strspn(s, "0") >= n ? (*ret = 0, 0) : -EINVAL;
	return pm_parse_u64(s, n, 10, ret);
}

/* v in base 10 or 16 (lowercase) */
static void put_u64(struct pm_strbuf *b, uint64_t v, unsigned base)
{
	char d[PM_U64_DIGITS];

	pm_strbuf__append(b, d, pm_u64_digits(v, base, d));
}

/* llx(): "%#llx" but below 10 in decimal. */
static void llx(struct pm_strbuf *b, uint64_t v)
{
	if (v < 10) {
		put_u64(b, v, 10);
	} else {
		pm_strbuf__append(b, "0x", 2);
		put_u64(b, v, 16);
	}
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* is_zero() and canonicalize_value(): "0x.." hex, anything else decimal. */
static int field_value(const char *s, uint64_t *ret)
{
	if (!strncmp(s, "0x", 2))
		return pm_parse_u64_str(s + 2, 16, ret);
	return pm_parse_u64_str(s, 10, ret);
}

static int encode(json_t *ev, struct pm_strbuf *b, const char **ret_key)
{
	static const char *const fields[][2] = {
		{ "AnyThread", "any=" },	   { "PortMask", "ch_mask=" },
		{ "CounterMask", "cmask=" },	   { "EdgeDetect", "edge=" },
		{ "FCMask", "fc_mask=" },	   { "Invert", "inv=" },
		{ "SampleAfterValue", "period=" }, { "UMask", "umask=" },
		{ "NodeType", "type=" },	   { "RdWrMask", "rdwrmask=" },
		{ "EnAllCores", "enallcores=" },   { "EnAllSlices", "enallslices=" },
		{ "SliceId", "sliceid=" },	   { "ThreadMask", "threadmask=" },
	};
	const char *code = jstr(ev, "EventCode"), *msr = jstr(ev, "MSRIndex");
	uint64_t eventcode = 0, v;

	if (code && py_int0(code, strcspn(code, ","), &eventcode) < 0)
		return *ret_key = "EventCode", -EINVAL;
	if (jstr(ev, "ExtSel")) {
		if (pm_parse_u64_str(jstr(ev, "ExtSel"), 10, &v) < 0)
			return *ret_key = "ExtSel", -EINVAL;
		eventcode |= v << 8;
	}
	if (jstr(ev, "ConfigCode")) {
		if (py_int0(jstr(ev, "ConfigCode"), strlen(jstr(ev, "ConfigCode")), &v) < 0)
			return *ret_key = "ConfigCode", -EINVAL;
		pm_strbuf__puts(b, "config=");
		llx(b, v);
	} else if (jstr(ev, "EventidCode")) {
		if (py_int0(jstr(ev, "EventidCode"), strlen(jstr(ev, "EventidCode")), &v) < 0)
			return *ret_key = "EventidCode", -EINVAL;
		pm_strbuf__puts(b, "eventid=");
		llx(b, v);
	} else {
		pm_strbuf__puts(b, "event=");
		llx(b, eventcode);
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(fields); i++) {
		const char *s = jstr(ev, fields[i][0]);

		if (!s)
			continue;
		if (field_value(s, &v) < 0)
			return *ret_key = fields[i][0], -EINVAL;
		if (!v)
			continue;
		pm_strbuf__append(b, ",", 1);
		pm_strbuf__puts(b, fields[i][1]);
		if (!strncmp(s, "0x", 2))
			llx(b, v);
		else
			put_u64(b, v, 10);
	}
	if (jstr(ev, "Filter") && jstr(ev, "Filter")[0])
		pm_strbuf__printf(b, ",%s", jstr(ev, "Filter"));
	if (msr && msr[0]) {
		const char *term;

		*ret_key = "MSRIndex";
		if (py_int0(msr, strcspn(msr, ","), &v) < 0)
			return -EINVAL;
		if (v == 0x3F6)
			term = "ldlat=";
		else if (v == 0x1A6 || v == 0x1A7)
			term = "offcore_rsp=";
		else if (v == 0x3F7)
			term = "frontend=";
		else
			return -EINVAL; /* jevents.py stops with a KeyError */
		/* MSRValue verbatim; jevents.py writes None when there is none */
		pm_strbuf__printf(b, ",%s%s", term,
				  jstr(ev, "MSRValue") ? jstr(ev, "MSRValue") : "None");
	}
	return b->oom ? -ENOMEM : 0;
}

int pm_jevents_event(json_t *ev, json_t *std, struct pm_strbuf *b, const char **ret_key)
{
	/* real_event(): these names' strings replace whatever the entry says */
	static const char *const fixed[][2] = {
		{ "inst_retired.any", "event=0xc0,period=2000003" },
		{ "inst_retired.any_p", "event=0xc0,period=2000003" },
		{ "cpu_clk_unhalted.ref", "event=0x0,umask=0x03,period=2000003" },
		{ "cpu_clk_unhalted.thread", "event=0x3c,period=2000003" },
		{ "cpu_clk_unhalted.core", "event=0x3c,period=2000003" },
		{ "cpu_clk_unhalted.thread_any", "event=0x3c,any=1,period=2000003" },
	};
	const char *name = jstr(ev, "EventName");
	struct pm_strbuf own = { 0 };
	const char *key = NULL;
	int r;

	/* the entry's own fields are parsed (and can fail) even when ArchStdEvent replaces them */
	r = encode(ev, &own, &key);
	if (r == 0 && jstr(ev, "ArchStdEvent")) {
		pm_strbuf__done(&own);
		own = (struct pm_strbuf){ 0 };
		if (!std) {
			key = "ArchStdEvent";
			r = -ENOENT;
			goto out;
		}
		r = encode(std, &own, &key);
		if (r < 0)
			key = "ArchStdEvent"; /* its entry in the arch's file is what fails */
		if (!name)
			name = jstr(std, "EventName");
	}
	if (r < 0)
		goto out;
	for (size_t i = 0; name && i < PM_ARRAY_SIZE(fixed); i++)
		if (!strcasecmp(name, fixed[i][0])) {
			pm_strbuf__puts(b, fixed[i][1]);
			goto out;
		}
	pm_strbuf__puts(b, own.s ? own.s : "");
out:
	pm_strbuf__done(&own);
	if (r < 0 && ret_key)
		*ret_key = key;
	return r < 0 ? r : b->oom ? -ENOMEM : 0;
}

int pm_jevents_counting_terms(const char *event, struct pm_strbuf *b)
{
	bool first = true;

	for (const char *t = event; *t;) {
		size_t n = strcspn(t, ",");

		if (strncmp(t, "period=", 7) != 0) {
			if (!first)
				pm_strbuf__append(b, ",", 1);
			pm_strbuf__append(b, t, n);
			first = false;
		}
		t += n + (t[n] == ',');
	}
	return b->oom ? -ENOMEM : 0;
}

static bool match_ignoring_suffix(const char *name, const char *tok)
{
	size_t n = strlen(tok);
	const char *p, *suffix;
	bool hex = false;

	if (strncmp(name, tok, n))
		return false;
	suffix = p = name + n;
	if (!*p)
		return true;
	if (*p == '_')
		suffix = ++p;
	for (;;) {
		if (!isxdigit((unsigned char)*p))
			return false;
		if (!hex)
			hex = !isdigit((unsigned char)*p);
		if (!*++p)
			break;
	}
	/* a hex suffix needs 3 or more digits, so s390's cpum_cf keeps its "cf" */
	return !hex || p - suffix > 2;
}

bool pm_jevents_alias_match(const char *table_pmu, const char *name)
{
	char buf[256], *save = NULL, *tok, *next;

	if (!strchr(table_pmu, ','))
		return match_ignoring_suffix(name, table_pmu);
	/* "socket,pmuname" matches "socketX_pmunameY": the tokens in order */
	if (pm_snprintf(buf, sizeof(buf), "%s", table_pmu) < 0)
		return false;
	tok = strtok_r(buf, ",", &save);
	if (!tok || strncmp(table_pmu, tok, strlen(tok)))
		return false;
	for (;;) {
		next = strtok_r(NULL, ",", &save);
		name = strstr(name, tok);
		if (!name || (!next && !match_ignoring_suffix(name, tok)))
			return false;
		if (!next)
			return true;
		tok = next;
		/* perf steps on by the next token's length (pmu.c as is); past the
		 * name's end perf reads beyond it, here that is no match */
		if (strlen(tok) > strlen(name))
			return false;
		name += strlen(tok);
	}
}

bool pm_jevents_pmu_match(const char *table_pmu, const char *name, bool uncore, bool core)
{
	return !strcmp(name, table_pmu) || (uncore && pm_jevents_alias_match(table_pmu, name)) ||
	       (core && !strcmp(table_pmu, "default_core"));
}

bool pm_jevents_compat_match(const char *compat, const char *id)
{
	regmatch_t m;
	regex_t re;
	bool match;

	if (regcomp(&re, compat, REG_EXTENDED) != 0)
		return false;
	match = regexec(&re, id, 1, &m, 0) == 0 && m.rm_so == 0 && (size_t)m.rm_eo == strlen(id);
	regfree(&re);
	return match;
}

bool pm_jevents_midr_match(const char *map, const char *id)
{
	const uint64_t variant = 0xfull << 20, revision = 0xf;
	uint64_t m, i;

	/* both MIDRs as hex numbers ("0x410fd490"); anything else is no match */
	if (pm_parse_u64_str(map, 16, &m) < 0 || pm_parse_u64_str(id, 16, &i) < 0)
		return false;
	if ((m & ~(variant | revision)) != (i & ~(variant | revision)))
		return false;
	/* r<variant>p<revision> at least the row's, compared like two-digit versions */
	if ((i & variant) > (m & variant))
		return true;
	return (i & variant) == (m & variant) && (i & revision) >= (m & revision);
}
