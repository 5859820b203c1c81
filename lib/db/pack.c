// SPDX-License-Identifier: GPL-2.0-only
#include "db/pack.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctx.h"
#include "db/embedded.h"
#include "db/jevents.h"
#include "db/jsonflat.h"
#include "db/jsonpos.h"
#include "metric/expr.h"
#include "pmu.h"
#include "spec.h"
#include "util/cpus.h"
#include "util/util.h"

struct pm_pack {
	char *name;
	char *dir; /* a perf table's directory, as the files name it (NULL: a pack.json) */
	char **defaults;
	size_t n_defaults, cap_defaults;
	char *defaults_note;
	struct pm_screen screen; /* its "Screen": what pmumon top shows (NULL title: none) */
	struct pm_monitor_name *monitor; /* its "Monitor": platform-neutral metric names */
	size_t n_monitor, cap_monitor;
	struct pm_driver_def *drivers; /* its "Drivers" (pack.h) */
	size_t n_drivers, cap_drivers;
	struct pm_attrib_recipe attrib; /* its "Attribution" (NULL total: none) */
};

/* A pack's InstanceTopology: how its PMU instances' names map to die, channel, sub-channel. */
struct pm_inst_topo {
	char *unit, *compat;
	const char *pack; /* borrowed from the pack */
	struct pm_place_rule rule;
};

struct pm_db {
	struct pm_pmu_traits *traits;
	size_t n_traits, cap_traits;
	struct pm_inst_topo *topos;
	size_t n_topos, cap_topos;
	struct pm_pack *packs; /* the ones that matched */
	size_t n_packs, cap_packs;
	char **defaults; /* borrowed from packs, in order */
	size_t n_defaults, cap_defaults;
	struct pm_strbuf names;
	struct pm_strbuf notes;
	char cpuid[128];
	struct pm_metric_def *metrics;
	size_t n_metrics, cap_metrics;
	struct pm_constant_def *constants;
	size_t n_constants, cap_constants;
	/* every file packs can use: the built-in ones, then the context's extra */
	const struct pm_embedded **files;
	size_t n_files;
};

/* ---- pure helpers ------------------------------------------------------- */

int pm_db_unit_to_family(const char *unit, char *buf, size_t size)
{
	size_t i;

	/* our own packs name the PMU family directly when it is already lowercase */
	for (i = 0; unit[i]; i++)
		if (isupper((unsigned char)unit[i]))
			break;
	if (!unit[i])
		return pm_snprintf(buf, size, "%s", unit);
	/* else as tools/perf/pmu-events/jevents.py unit_to_pmu() maps it */
	return pm_jevents_pmu(unit, buf, size);
}

int pm_db_parse_scale_unit(const char *s, double *ret_scale, char *unit, size_t unit_size)
{
	size_t n = 0;
	double v;

	while (s[n] && (isdigit((unsigned char)s[n]) || strchr(".eE+-", s[n])))
		n++;
	/* "1MB/s": the number ends where the unit begins, an 'e' may start "events" */
	while (n > 0 && strchr("eE+-", s[n - 1]))
		n--;
	if (n == 0 || pm_parse_double(s, n, &v) < 0)
		return -EINVAL;
	if (pm_snprintf(unit, unit_size, "%s", s + n) < 0)
		return -ENAMETOOLONG;
	*ret_scale = v;
	return 0;
}

/* A full x86 CPUID string is vendor-family-model-stepping: exactly 3 dashes. */
static bool is_full_cpuid(const char *id)
{
	int dashes = 0;

	for (const char *p = id; *p; p++)
		dashes += *p == '-';
	return dashes == 3;
}

int pm_db_cpuid_match(const char *pattern, const char *cpuid)
{
	bool full_pattern = is_full_cpuid(pattern), full_id = is_full_cpuid(cpuid);
	size_t want;
	regmatch_t m;
	regex_t re;
	int r;

	/* an arm64 id is its MIDR, matched as perf's arm64 strcmp_cpuid_str() does
	 * (tools/perf/arch/arm64/util/header.c): the same part, at least its revision */
	if (!strncmp(cpuid, "0x", 2))
		return pm_jevents_midr_match(pattern, cpuid);
	if (full_pattern && !full_id)
		return 0;
	if (regcomp(&re, pattern, REG_EXTENDED) != 0)
		return -EINVAL;
	r = regexec(&re, cpuid, 1, &m, 0) == 0;
	regfree(&re);
	if (!r)
		return 0;
	/* a pattern without the stepping must cover everything up to it */
	want = !full_pattern && full_id ? (size_t)(strrchr(cpuid, '-') - cpuid) : strlen(cpuid);
	return m.rm_so == 0 && (size_t)(m.rm_eo - m.rm_so) == want;
}

/* ---- reading the machine's CPUID string --------------------------------- */

static const char *cpuinfo_field(const char *text, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *colon;
		size_t n;

		if (strncmp(line, key, klen) != 0 ||
		    (line[klen] != '\t' && line[klen] != ' ' && line[klen] != ':'))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			return NULL;
		colon++;
		while (*colon == ' ')
			colon++;
		n = strcspn(colon, "\n");
		if (n >= size)
			return NULL;
		memcpy(buf, colon, n);
		buf[n] = '\0';
		return buf;
	}
	return NULL;
}

/*
 * arm64 get_cpuid_str(): the MIDR of the first online CPU whose
 * regs/identification/midr_el1 reads, as the kernel prints it ("0x%016llx";
 * perf keeps the file's first 18 characters).
 */
static void read_midr(struct pm_ctx *ctx, char *buf, size_t size)
{
	struct pm_cpus online = { 0 };
	char text[256], path[128];
	ssize_t n;

	n = pm_read_file(ctx, "sys/devices/system/cpu/online", text, sizeof(text));
	if (n < 0 || pm_cpus__parse(text, (size_t)n, &online) < 0)
		return;
	for (size_t i = 0; i < online.n; i++) {
		uint64_t midr;

		snprintf(path, sizeof(path),
			 "sys/devices/system/cpu/cpu%d/regs/identification/midr_el1",
			 online.cpu[i]);
		n = pm_read_file(ctx, path, text, sizeof(text));
		if (n < 0 || pm_parse_u64_str(text, 0, &midr) < 0 || strncmp(text, "0x", 2))
			continue;
		snprintf(buf, size, "0x%016" PRIx64, midr);
		break;
	}
	pm_cpus__done(&online);
}

/* perf's get_cpuid_str(): on x86 "%s-%u-%X-%X" of vendor, family, model, stepping; on
 * arm64 the MIDR. */
void pm_db_read_cpuid(struct pm_ctx *ctx, char *buf, size_t size)
{
	char text[8192], vendor[64], fam[16], model[16], step[16];
	uint64_t f, m, s;

	buf[0] = '\0';
	if (ctx->machine && ctx->machine->cpuid) { /* a recording's: given, or recorded */
		ctx->machine->cpuid(ctx, buf, size);
		return;
	}
	/* the first CPU's block is enough; the file may be far longer */
	if (pm_read_prefix(ctx, "proc/cpuinfo", text, sizeof(text)) < 0 ||
	    !cpuinfo_field(text, "vendor_id", vendor, sizeof(vendor))) {
		read_midr(ctx, buf, size);
		return;
	}
	if (!cpuinfo_field(text, "cpu family", fam, sizeof(fam)) ||
	    !cpuinfo_field(text, "model", model, sizeof(model)) ||
	    !cpuinfo_field(text, "stepping", step, sizeof(step)) ||
	    pm_parse_u64_str(fam, 10, &f) < 0 || pm_parse_u64_str(model, 10, &m) < 0 ||
	    pm_parse_u64_str(step, 10, &s) < 0)
		return;
	snprintf(buf, size, "%s-%u-%X-%X", vendor, (unsigned)f, (unsigned)m, (unsigned)s);
}

/* ---- packs -------------------------------------------------------------- */

/* A file of the pack in directory dir. */
static const struct pm_embedded *find_file(const struct pm_db *db, const char *dir,
					   const char *file)
{
	char path[1024];

	if (pm_snprintf(path, sizeof(path), "%s/%s", dir, file) < 0)
		return NULL;
	for (size_t i = 0; i < db->n_files; i++)
		if (!strcmp(db->files[i]->path, path))
			return db->files[i];
	return NULL;
}

/* A file's text while its JSON is in use: built in, given in memory, or read now. */
struct jtext {
	const char *path, *data;
	size_t len;
	char *own; /* what ctx->read_file gave; jtext_done frees it */
};

/*
 * A pack's file, or an entry of it, left out: said with where it is, and counted
 * (pm_ctx__refused), so that a program can refuse to count with the rest (pmumon does
 * unless asked to be lenient, as perf always is).
 */
#define refuse(ctx, ...)                                 \
	do {                                             \
		pm_log((ctx), PM_LOG_WARN, __VA_ARGS__); \
		(ctx)->refused++;                        \
	} while (0)

static int jtext_open(struct pm_ctx *ctx, const struct pm_embedded *f, struct jtext *t)
{
	uintptr_t at = (uintptr_t)f, first = (uintptr_t)ctx->extra;
	int r;

	/* one of the user's files (pm_ctx__extra_read): read, whatever comes of it */
	if (ctx->n_extra && at >= first && at < first + ctx->n_extra * sizeof(*ctx->extra))
		ctx->extra_read[(at - first) / sizeof(*ctx->extra)] = true;
	*t = (struct jtext){ .path = f->path, .data = f->data, .len = f->len };
	if (f->data)
		return 0;
	/* a file of a directory given without its data: read now, and only now */
	r = ctx->read_file ? ctx->read_file(f->path, &t->own, &t->len, ctx->read_file_userdata) :
			     -ENOENT;
	if (r < 0) {
		refuse(ctx, "cannot read '%s': %s, ignoring it", f->path, strerror(-r));
		return r;
	}
	t->data = t->own ? t->own : "";
	return 0;
}

static void jtext_done(struct jtext *t)
{
	free(t->own);
	t->own = NULL;
}

/* "FILE:LINE:COLUMN" of an offset in the file, for messages. */
static const char *where(const struct jtext *t, size_t off, char *buf, size_t size)
{
	int line, col;

	pm_json_line_col(t->data, t->len, off, &line, &col);
	snprintf(buf, size, "%s:%d:%d", t->path, line, col);
	return buf;
}

/* Where entry idx's key is: its value, else the entry (key NULL: the entry). */
static const char *where_entry(const struct jtext *t, size_t idx, const char *key, char *buf,
			       size_t size)
{
	size_t off = 0;

	if (!key || pm_json_locate(t->data, t->len, idx, key, &off) < 0)
		(void)pm_json_locate(t->data, t->len, idx, NULL, &off);
	return where(t, off, buf, size);
}

/*
 * A JSON file, its text kept in t until jtext_done. A key given twice keeps
 * its last value, as perf's jevents.py (Python's json.load) does, and is
 * said; a malformed file is said with its line and column, and skipped.
 */
static json_t *parse_json(struct pm_ctx *ctx, const struct pm_embedded *f, struct jtext *t)
{
	char at[1200];
	json_error_t err;
	json_t *j;

	if (jtext_open(ctx, f, t) < 0)
		return NULL;
	j = pm_json_flat_load(t->data, t->len); /* perf's files: fast, else jansson */
	if (j)
		return j;
	j = json_loadb(t->data, t->len, JSON_REJECT_DUPLICATES, &err);
	if (!j && json_error_code(&err) == json_error_duplicate_key) {
		size_t key = err.position > 1 ? (size_t)err.position - 2 : 0;

		/* jansson stops after the key: its opening quote is the place to show */
		while (key > 0 && t->data[key] != '"')
			key--;
		pm_log(ctx, PM_LOG_WARN, "%s: %s: the last value is used, as perf does",
		       where(t, key, at, sizeof(at)), err.text);
		j = json_loadb(t->data, t->len, 0, &err);
	}
	if (!j) {
		refuse(ctx, "%s:%d:%d: malformed JSON: %s; ignoring the file", t->path, err.line,
		       err.column, err.text);
		jtext_done(t);
	}
	return j;
}

/* perf's event and metric files are arrays of entries: anything else is said and skipped. */
static json_t *parse_entries(struct pm_ctx *ctx, const struct pm_embedded *f, struct jtext *t)
{
	json_t *j = parse_json(ctx, f, t);
	char at[1200];

	if (j && !json_is_array(j)) {
		refuse(ctx,
		       "%s: the top level is %s where an array of entries is expected; ignoring "
		       "the file",
		       where(t, pm_json_top(t->data, t->len), at, sizeof(at)),
		       json_is_object(j) ? "an object" : "not an array");
		json_decref(j);
		jtext_done(t);
		return NULL;
	}
	return j;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool pack_matches(struct pm_ctx *ctx, struct pm_db *db, const char *pack, json_t *match)
{
	const char *pmu, *compat, *cpuid;
	bool found = false;

	pmu = jstr(match, "Pmu");
	compat = jstr(match, "Compat");
	cpuid = jstr(match, "Cpuid");
	if (ctx->machine->pack_matches) /* a recording: the machine that counted is elsewhere */
		return ctx->machine->pack_matches(ctx, pack, match != NULL, pmu, compat);
	if (!match)
		return true;
	if (pmu) {
		for (size_t i = 0; i < ctx->n_pmus && !found; i++) {
			const struct pm_pmu *p = ctx->pmus[i];

			found = !strcmp(p->family, pmu) &&
				(!compat || (p->identifier && !strcmp(p->identifier, compat)));
		}
		if (!found)
			return false;
	}
	if (cpuid && pm_db_cpuid_match(cpuid, db->cpuid) != 1)
		return false;
	return true;
}

static int add_traits(struct pm_ctx *ctx, struct pm_db *db, const char *pack, json_t *pmus)
{
	size_t i;
	json_t *o;

	json_array_foreach(pmus, i, o) {
		struct pm_pmu_traits *t;
		int r;

		if (!jstr(o, "Unit")) {
			refuse(ctx, "pack '%s': Pmus[%zu] has no Unit, ignoring", pack, i);
			continue;
		}
		r = pm_grow((void **)&db->traits, &db->cap_traits, db->n_traits + 1, sizeof(*t));
		if (r < 0)
			return r;
		t = &db->traits[db->n_traits];
		t->unit = strdup(jstr(o, "Unit"));
		t->compat = pm_strdup0(jstr(o, "Compat"));
		t->note = pm_strdup0(jstr(o, "Note"));
		t->counters = json_is_integer(json_object_get(o, "Counters")) ?
				      (int)json_integer_value(json_object_get(o, "Counters")) :
				      -1;
		if (json_is_true(json_object_get(o, "FreeRunning")))
			t->counters = 0;
		t->fixed_counters = (int)json_integer_value(json_object_get(o, "FixedCounters"));
		t->width = (int)json_integer_value(json_object_get(o, "CounterWidth"));
		t->group_max = (int)json_integer_value(json_object_get(o, "GroupMax"));
		t->no_exclude = json_is_true(json_object_get(o, "NoExclude"));
		t->cpu_wide_only = json_is_true(json_object_get(o, "CpuWideOnly"));
		t->sw_context = json_is_true(json_object_get(o, "SwContext"));
		t->pack = pack;
		/* counted even when a string is missing, so pm_db__free frees the rest */
		db->n_traits++;
		if (!t->unit || (jstr(o, "Compat") && !t->compat) || (jstr(o, "Note") && !t->note))
			return -ENOMEM;
	}
	return 0;
}

static int parse_mask(struct pm_ctx *ctx, const char *pack, json_t *o, const char *key,
		      uint64_t *ret)
{
	const char *text = jstr(o, key);

	*ret = 0;
	if (!text)
		return 0;
	if (pm_parse_u64_str(text, 0, ret) < 0 || *ret == 0) {
		refuse(ctx, "pack '%s': InstanceTopology %s '%s' is not a bit mask", pack, key,
		       text);
		return -EINVAL;
	}
	return 0;
}

/* "InstanceTopology": [{ Unit, Compat, NameSuffix, DieMask, ChannelMask, SubChannelMask }] */
static int add_topos(struct pm_ctx *ctx, struct pm_db *db, const char *pack, json_t *list)
{
	size_t i;
	json_t *o;

	json_array_foreach(list, i, o) {
		struct pm_inst_topo *t;
		struct pm_place_rule rule = { 0 };
		const char *suffix = jstr(o, "NameSuffix");
		int r;

		if (!jstr(o, "Unit") || !suffix || strcmp(suffix, "hex") ||
		    parse_mask(ctx, pack, o, "DieMask", &rule.die_mask) < 0 ||
		    parse_mask(ctx, pack, o, "ChannelMask", &rule.chan_mask) < 0 ||
		    parse_mask(ctx, pack, o, "SubChannelMask", &rule.sub_mask) < 0) {
			refuse(ctx,
			       "pack '%s': InstanceTopology[%zu] wants a Unit, NameSuffix \"hex\" "
			       "and bit masks (DieMask, ChannelMask, SubChannelMask); ignoring it",
			       pack, i);
			continue;
		}
		r = pm_grow((void **)&db->topos, &db->cap_topos, db->n_topos + 1, sizeof(*t));
		if (r < 0)
			return r;
		t = &db->topos[db->n_topos++];
		*t = (struct pm_inst_topo){ .unit = strdup(jstr(o, "Unit")),
					    .compat = pm_strdup0(jstr(o, "Compat")),
					    .pack = pack,
					    .rule = rule };
		if (!t->unit || (jstr(o, "Compat") && !t->compat))
			return -ENOMEM;
	}
	return 0;
}

static int field(uint64_t addr, uint64_t mask)
{
	return mask ? (int)((addr & mask) >> __builtin_ctzll(mask)) : -1;
}

int pm_place_decode(const struct pm_place_rule *rule, const char *name, const char *family,
		    uint64_t *ret_addr, int *ret_die, int *ret_chan, int *ret_sub)
{
	size_t n = strlen(family);
	uint64_t addr;

	if (strncmp(name, family, n) || name[n] != '_' ||
	    pm_parse_u64_str(name + n + 1, 16, &addr) < 0)
		return -EINVAL;
	*ret_addr = addr;
	*ret_die = field(addr, rule->die_mask);
	*ret_chan = field(addr, rule->chan_mask);
	*ret_sub = field(addr, rule->sub_mask);
	return 0;
}

static bool topo_applies(const struct pm_inst_topo *t, const struct pm_pmu *p)
{
	return !strcmp(t->unit, p->family) &&
	       (!t->compat || (p->identifier && !strcmp(t->compat, p->identifier)));
}

/* Place every PMU a pack's InstanceTopology describes (docs/facts-metrics.md,
 * "Yitian 710 instance names", for where the masks come from). */
static void place_instances(struct pm_ctx *ctx, struct pm_db *db)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!ctx->pmus[i]->place_fixed)
			ctx->pmus[i]->place = (struct pm_pmu_place){ .die = -1,
								     .channel = -1,
								     .subchannel = -1 };
	for (size_t t = 0; t < db->n_topos; t++) {
		const struct pm_inst_topo *tp = &db->topos[t];

		for (size_t i = 0; i < ctx->n_pmus; i++) {
			struct pm_pmu *p = ctx->pmus[i];
			struct pm_pmu_place *pl = &p->place;
			uint64_t addr;
			int die, ch, sub;

			if (p->place_fixed || !topo_applies(tp, p) ||
			    pm_place_decode(&tp->rule, p->name, p->family, &addr, &die, &ch, &sub) <
				    0)
				continue;
			pl->die = die;
			pl->channel = ch;
			pl->subchannel = sub;
			if (ch >= 0)
				snprintf(pl->channel_label, sizeof(pl->channel_label), "die%d/ch%d",
					 PM_MAX(die, 0), ch);
			if (ch >= 0 && sub >= 0)
				snprintf(pl->label, sizeof(pl->label), "%s/sub%d",
					 pl->channel_label, sub);
			else if (ch >= 0)
				snprintf(pl->label, sizeof(pl->label), "%s", pl->channel_label);
			else
				snprintf(pl->label, sizeof(pl->label), "die%d", PM_MAX(die, 0));
			pm_log(ctx, PM_LOG_DEBUG, "%s is %s (%s's InstanceTopology)", p->name,
			       pl->label, tp->pack);
		}
	}
}

/* Where an entry's events go: a pack's own files, perf's per-CPU table (its
 * mapfile row), or a perf sys/ table (matched by Compat). */
enum entry_kind { ENTRY_PACK, ENTRY_CORE_TABLE, ENTRY_SYS_TABLE };

/* perf's is_pmu_core(): "cpu", s390's "cpum_cf", or a PMU with a cpus file
 * (hybrid cpu_core/cpu_atom, arm64 armv8_pmuv3_0, ...). */
/* perf's pmu_uncore_identifier_match(); a recording's PMU stands in with the Compat text itself. */
static bool compat_ok(const char *compat, const struct pm_pmu *p)
{
	return p->identifier &&
	       (!strcmp(compat, p->identifier) || pm_jevents_compat_match(compat, p->identifier));
}

/* Does this entry's event belong on PMU p, as perf decides it? */
static bool entry_on_pmu(enum entry_kind kind, const char *table_pmu, const char *family,
			 const char *compat, const struct pm_pmu *p)
{
	switch (kind) {
	case ENTRY_SYS_TABLE: /* pmu_add_sys_aliases_iter_fn() */
		return compat && pm_jevents_alias_match(table_pmu, p->name) && compat_ok(compat, p);
	case ENTRY_CORE_TABLE: /* pmu_add_cpu_aliases_table(): pmu__name_match() */
		return pm_jevents_pmu_match(table_pmu, p->name, p->uncore, pm_pmu__is_core(p));
	case ENTRY_PACK:
		break;
	}
	if (!strcmp(table_pmu, "default_core"))
		return pm_pmu__is_core(p);
	return !strcmp(p->family, family) && (!compat || compat_ok(compat, p));
}

static json_t *std_event(json_t *std, json_t *ev)
{
	const char *name = jstr(ev, "ArchStdEvent");
	char low[256];
	size_t i;

	if (!name || !std || strlen(name) >= sizeof(low))
		return NULL;
	for (i = 0; name[i]; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	return json_object_get(std, low);
}

/* An entry's field, or its ArchStdEvent's where it has none (jevents.py copies them). */
static const char *field_or_std(json_t *ev, json_t *std, const char *key)
{
	return jstr(ev, key) ? jstr(ev, key) : std ? jstr(std, key) : NULL;
}

/* Why entry idx of t is left out: the key at fault, at its line and column. */
static void bad_event(struct pm_ctx *ctx, const struct jtext *t, size_t idx, json_t *ev,
		      const char *name, const char *key, int err)
{
	const char *v = key ? jstr(ev, key) : NULL;
	char at[1200];

	where_entry(t, idx, key, at, sizeof(at));
	if (!name)
		name = jstr(ev, "ArchStdEvent");
	if (!name)
		refuse(ctx, "%s: entry %zu has no EventName; ignoring it", at, idx);
	else if (err == -ENOENT)
		refuse(ctx,
		       "%s: event '%s' (entry %zu): ArchStdEvent '%s' is in none of the arch's "
		       "files; ignoring it",
		       at, name, idx, v ? v : "");
	else
		refuse(ctx,
		       "%s: event '%s' (entry %zu): %s '%s' is not a value jevents.py takes; "
		       "ignoring it",
		       at, name, idx, key ? key : "a field", v ? v : "");
}

/* terms as config words through p's formats (a bare term is 1); -ENOENT: a term that is
 * no format field nor configN */
static int encode_terms(const struct pm_pmu *p, const char *terms, uint64_t config[PM_CONFIG_WORDS])
{
	struct pm_spec_event ev = { 0 };
	int r = pm_spec__parse_terms(terms, strlen(terms), &ev, NULL);

	for (size_t i = 0; r == 0 && i < ev.n_terms; i++) {
		const struct pm_spec_term *t = &ev.terms[i];
		const struct pm_format_entry *fe = pm_pmu__find_format(p, t->name);
		uint64_t v = 1;

		if (t->value && pm_parse_u64_str(t->value, 0, &v) < 0)
			r = -EINVAL;
		else if (!strcmp(t->name, "config") || !strcmp(t->name, "config1") ||
			 !strcmp(t->name, "config2"))
			config[t->name[6] ? t->name[6] - '0' : 0] = v;
		else if (fe)
			r = pm_format__encode(&fe->f, v, config);
		else
			r = -ENOENT;
	}
	pm_spec__done_event(&ev);
	return r;
}

/* Whether sysfs's and a file's terms are one event on p: the same config words where
 * p's formats encode both (event=0x3c is event=0x3c,umask=0), else the same terms. */
static bool same_event(const struct pm_pmu *p, const char *a, const char *b)
{
	uint64_t x[PM_CONFIG_WORDS] = { 0 }, y[PM_CONFIG_WORDS] = { 0 };

	if (encode_terms(p, a, x) == 0 && encode_terms(p, b, y) == 0)
		return !memcmp(x, y, sizeof(x));
	return pm_spec__same_terms(a, b);
}

static int add_event(struct pm_ctx *ctx, const char *pack, const struct jtext *t, size_t idx,
		     json_t *ev, enum entry_kind kind, json_t *stds)
{
	json_t *std = std_event(stds, ev);
	const char *name = field_or_std(ev, std, "EventName"), *unit = jstr(ev, "Unit");
	const char *compat = field_or_std(ev, std, "Compat");
	const char *scale_unit = field_or_std(ev, std, "ScaleUnit");
	const char *per_pkg = field_or_std(ev, std, "PerPkg");
	struct pm_alias a = { .scale = 1.0, .origin = pack };
	struct pm_strbuf event = { 0 }, terms = { 0 };
	char table_pmu[64], family[64], unit_str[64];
	const char *key = "EventName";
	bool warned = false;
	int r = 0;

	r = name || jstr(ev, "ArchStdEvent") ? pm_jevents_event(ev, std, &event, &key) : -EINVAL;
	if (r == 0)
		r = pm_jevents_counting_terms(event.s, &terms);
	if (r == -ENOMEM)
		goto out;
	if (r < 0) {
		bad_event(ctx, t, idx, ev, name, key, r);
		r = 0;
		goto out;
	}
	if (pm_jevents_pmu(unit, table_pmu, sizeof(table_pmu)) < 0)
		goto out;
	/* the family a recording is asked for; our own packs name lowercase families directly */
	if (!unit)
		snprintf(family, sizeof(family), "cpu");
	else if (kind != ENTRY_PACK)
		snprintf(family, sizeof(family), "%s", table_pmu);
	else if (pm_db_unit_to_family(unit, family, sizeof(family)) < 0)
		goto out;
	if (scale_unit &&
	    pm_db_parse_scale_unit(scale_unit, &a.scale, unit_str, sizeof(unit_str)) == 0 &&
	    unit_str[0])
		a.unit = unit_str;
	a.name = (char *)name;
	a.terms = terms.s;
	a.desc = (char *)field_or_std(ev, std, "BriefDescription");
	if (!a.desc)
		a.desc = (char *)field_or_std(ev, std, "PublicDescription");
	a.per_pkg = per_pkg && !strcmp(per_pkg, "1");
	if (ctx->machine->need_family) /* a recording may have a family it does not name */
		r = ctx->machine->need_family(ctx, family, compat);
	for (size_t i = 0; i < ctx->n_pmus && r == 0; i++) {
		struct pm_pmu *p = ctx->pmus[i];
		struct pm_alias *have;

		if (!entry_on_pmu(kind, table_pmu, family, compat, p))
			continue;
		have = (struct pm_alias *)pm_pmu__find_alias(p, name);
		if (have) {
			/*
			 * sysfs wins: the driver knows its own encoding (perf lets a JSON
			 * file's replace it: util/pmu.c update_alias). Where the two
			 * encode different events, say so: one of them is wrong.
			 */
			if (kind != ENTRY_PACK && !warned && have->origin &&
			    !strcmp(have->origin, "sysfs") &&
			    !same_event(p, have->terms, a.terms)) {
				char at[1200];

				where_entry(t, idx, "EventName", at, sizeof(at));
				pm_log(ctx, PM_LOG_WARN,
				       "%s: event '%s' is '%s' in this file but '%s' in the kernel's "
				       "sysfs for %s; counting the kernel's (perf would count the "
				       "file's)",
				       at, name, a.terms, have->terms, p->name);
				warned = true; /* once for the entry, not once per instance */
			}
			if (!have->desc && a.desc)
				have->desc = strdup(a.desc);
			continue;
		}
		r = pm_pmu__add_alias(p, &a);
	}
out:
	pm_strbuf__done(&event);
	pm_strbuf__done(&terms);
	return r;
}

static int add_events(struct pm_ctx *ctx, const struct pm_db *db, const char *pack, const char *dir,
		      json_t *files)
{
	size_t i, j;
	json_t *f, *ev;
	int r = 0;

	json_array_foreach(files, i, f) {
		const struct pm_embedded *e;
		struct jtext t;
		json_t *arr;

		if (!json_is_string(f))
			continue;
		e = find_file(db, dir, json_string_value(f));
		if (!e) {
			refuse(ctx, "pack '%s': events file '%s' is missing, ignoring", pack,
			       json_string_value(f));
			continue;
		}
		arr = parse_entries(ctx, e, &t);
		if (!arr)
			continue;
		json_array_foreach(arr, j, ev) {
			r = add_event(ctx, pack, &t, j, ev, ENTRY_PACK, NULL);
			if (r < 0)
				break;
		}
		json_decref(arr);
		jtext_done(&t);
		if (r < 0)
			return r;
	}
	return 0;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* A MetricExpr that does not parse: said at the character of the file where it fails. */
static void bad_expr(struct pm_ctx *ctx, const struct jtext *t, size_t idx, const char *name,
		     const char *expr, const struct pm_diag *d)
{
	size_t off = 0;
	char at[1200];

	if (pm_json_locate(t->data, t->len, idx, "MetricExpr", &off) == 0)
		where(t, pm_json_string_pos(t->data, t->len, off, (size_t)PM_MAX(d->pos, 0)), at,
		      sizeof(at));
	else
		where_entry(t, idx, NULL, at, sizeof(at));
	refuse(ctx, "%s: metric '%s': MetricExpr: %s at character %d of '%s'; ignoring it", at,
	       name, d->msg, d->pos + 1, expr);
}

/* add_metric()'s second half: the checked expression's definition into db. */
static int add_metric_def(struct pm_ctx *ctx, struct pm_db *db, const struct jtext *t, size_t idx,
			  json_t *j, json_t *std, struct pm_metric_def *pm, const char *expr,
			  const char *name)
{
	const char *unit = field_or_std(j, std, "Unit");
	const char *scale_unit = field_or_std(j, std, "ScaleUnit");
	struct pm_metric_def m = *pm;
	char family[64] = "", unit_str[64] = "", at[1200];

	if (unit && pm_db_unit_to_family(unit, family, sizeof(family)) < 0)
		return 0;
	if (scale_unit &&
	    pm_db_parse_scale_unit(scale_unit, &m.scale, unit_str, sizeof(unit_str)) < 0) {
		refuse(ctx, "%s: metric '%s': bad ScaleUnit '%s'; ignoring it",
		       where_entry(t, idx, "ScaleUnit", at, sizeof(at)), name, scale_unit);
		return 0;
	}
	if (pm_grow((void **)&db->metrics, &db->cap_metrics, db->n_metrics + 1,
		    sizeof(*db->metrics)) < 0)
		return -ENOMEM;
	m.name = strdup(name);
	m.expr = strdup(expr);
	m.groups = dup_or_empty(field_or_std(j, std, "MetricGroup"));
	m.desc = dup_or_empty(field_or_std(j, std, "BriefDescription"));
	m.family = unit ? strdup(family) : NULL;
	m.unit = strdup(unit_str);
	m.scope = dup_or_empty(jstr(j, "Scope"));
	m.approximate = json_is_true(json_object_get(j, "Approximate"));
	m.sum_of_devices = jstr(j, "Aggregate") && !strcmp(jstr(j, "Aggregate"), "SumOfDevices");
	m.unavailable = jstr(j, "Unavailable") ? strdup(jstr(j, "Unavailable")) : NULL;
	m.note = pm_strdup0(jstr(j, "Note"));
	db->metrics[db->n_metrics++] = m;
	if (!m.name || !m.expr || !m.groups || !m.desc || (unit && !m.family) || !m.unit ||
	    !m.scope || (jstr(j, "Note") && !m.note))
		return -ENOMEM;
	return 0;
}

/*
 * A metric entry; std: the arch's standard metric its ArchStdEvent names
 * (jevents.py copies each field the entry leaves out), NULL for none.
 * perf_tree: the expression as perf's build step rewrites it.
 */
static int add_metric(struct pm_ctx *ctx, struct pm_db *db, const char *pack, const struct jtext *t,
		      size_t idx, json_t *j, json_t *std, bool perf_tree)
{
	const char *name = field_or_std(j, std, "MetricName");
	const char *expr = field_or_std(j, std, "MetricExpr");
	struct pm_metric_def m = { .scale = 1.0, .pack = pack };
	char *fixed = NULL, at[1200];
	struct pm_diag d;
	int r;

	if (name && !expr && jstr(j, "Unavailable"))
		expr = "0"; /* listed so users learn why it is missing */
	if (!name || !expr) {
		refuse(ctx, "%s: entry %zu has no %s; ignoring it",
		       where_entry(t, idx, NULL, at, sizeof(at)), idx,
		       name ? "MetricExpr" : "MetricName");
		return 0;
	}
	if (perf_tree && pm_expr__perf_escapes(expr, &fixed) < 0)
		return -ENOMEM;
	pm_diag__init(&d);
	/* an error's position is the file's: perf's rewrite only adds backslashes before
	 * ',' and '=' that were not escaped, so positions are checked on the text as written */
	if (pm_expr__check(fixed ? fixed : expr, &d) < 0) {
		struct pm_diag as_written;

		pm_diag__init(&as_written);
		if (fixed && pm_expr__check(expr, &as_written) < 0)
			d = as_written;
		bad_expr(ctx, t, idx, name, expr, &d);
		free(fixed);
		return 0;
	}
	r = add_metric_def(ctx, db, t, idx, j, std, &m, fixed ? fixed : expr, name);
	free(fixed);
	return r;
}

static int add_metrics(struct pm_ctx *ctx, struct pm_db *db, const char *pack, const char *dir,
		       json_t *files)
{
	size_t i, j;
	json_t *f, *m;
	int r = 0;

	json_array_foreach(files, i, f) {
		const struct pm_embedded *e = json_is_string(f) ?
						      find_file(db, dir, json_string_value(f)) :
						      NULL;
		struct jtext t;
		json_t *arr;

		if (!e) {
			refuse(ctx, "pack '%s': a metrics file is missing, ignoring", pack);
			continue;
		}
		arr = parse_entries(ctx, e, &t);
		if (!arr)
			continue;
		json_array_foreach(arr, j, m) {
			r = add_metric(ctx, db, pack, &t, j, m, NULL, false);
			if (r < 0)
				break;
		}
		json_decref(arr);
		jtext_done(&t);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * "Constants": [{"Name": "base_DRAM_frequency", "Value": 8e8, "Note": "..."}]:
 * names metrics may use that no counter gives; without a Value the user
 * gives one with --define, and until then the metrics using it are NaN —
 * or refused, with "Required": true (a metric that means nothing without
 * it); the Note says what it is and where its value comes from.
 */
static int add_constants(struct pm_ctx *ctx, struct pm_db *db, const char *pack, json_t *arr)
{
	size_t i;
	json_t *o;

	json_array_foreach(arr, i, o) {
		json_t *v = json_object_get(o, "Value");
		struct pm_constant_def *c;

		if (!jstr(o, "Name") || (v && !json_is_number(v))) {
			refuse(ctx,
			       "pack '%s': Constants[%zu] needs a Name and a numeric Value (or none), "
			       "ignoring",
			       pack, i);
			continue;
		}
		if (pm_grow((void **)&db->constants, &db->cap_constants, db->n_constants + 1,
			    sizeof(*c)) < 0)
			return -ENOMEM;
		c = &db->constants[db->n_constants++];
		*c = (struct pm_constant_def){ .name = strdup(jstr(o, "Name")),
					       .note = pm_strdup0(jstr(o, "Note")),
					       .pack = pack,
					       .has_value = v != NULL,
					       .value = v ? json_number_value(v) : 0,
					       .required = json_is_true(
						       json_object_get(o, "Required")) };
		if (!c->name || (jstr(o, "Note") && !c->note))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A pack's "Screen": what pmumon top shows for its platform, {"Title": ...,
 * "Metrics": [names], "Group": "device|channel|die|socket", "Note": ...}.
 * Absent: no screen. Malformed parts are left out (the pack loads).
 */
static int load_screen(json_t *o, struct pm_screen *ret)
{
	struct pm_strbuf metrics = { 0 };
	size_t i;
	json_t *m;

	if (!json_is_object(o) || !jstr(o, "Title"))
		return 0;
	json_array_foreach(json_object_get(o, "Metrics"), i, m) {
		if (json_is_string(m))
			pm_strbuf__printf(&metrics, "%s%s", metrics.len ? "," : "",
					  json_string_value(m));
	}
	if (metrics.oom) {
		pm_strbuf__done(&metrics);
		return -ENOMEM;
	}
	ret->title = pm_strdup0(jstr(o, "Title"));
	ret->group = pm_strdup0(jstr(o, "Group"));
	ret->note = pm_strdup0(jstr(o, "Note"));
	ret->metrics = metrics.len ? pm_strbuf__steal(&metrics) : NULL;
	return ret->title ? 0 : -ENOMEM;
}

/*
 * A pack's "Attribution": {"Total": METRIC, "TotalPerByte": N, "TotalPerSecond":
 * bool, "Proxies": [{"Event": SPEC, "Bytes": N, "Dram": "any|local|remote"}],
 * "Note": TEXT, "ProxyError": N (0 <= N < 1) or null, "ProxyErrorNote": TEXT}.
 * Absent or malformed: none (the pack loads); a ProxyError that is no such
 * number is undeclared (NaN).
 */
static int load_attrib(json_t *o, struct pm_attrib_recipe *ret)
{
	struct pm_attrib_recipe a = { 0 };
	json_t *p;
	size_t i;

	if (!json_is_object(o) || !jstr(o, "Total") ||
	    !json_is_number(json_object_get(o, "TotalPerByte")))
		return 0;
	a.per_byte = json_number_value(json_object_get(o, "TotalPerByte"));
	a.per_second = json_is_true(json_object_get(o, "TotalPerSecond"));
	p = json_object_get(o, "ProxyError");
	a.proxy_error = json_is_number(p) && json_number_value(p) >= 0 && json_number_value(p) < 1 ?
				json_number_value(p) :
				NAN;
	json_array_foreach(json_object_get(o, "Proxies"), i, p) {
		const char *dram = jstr(p, "Dram");
		struct pm_attrib_proxy *x = &a.proxies[a.n_proxies];

		if (a.n_proxies == PM_ATTRIB_MAX_PROXIES || !jstr(p, "Event") ||
		    !json_is_number(json_object_get(p, "Bytes")))
			continue;
		x->bytes = json_number_value(json_object_get(p, "Bytes"));
		x->dram = dram && !strcmp(dram, "local")  ? PM_ATTRIB_LOCAL :
			  dram && !strcmp(dram, "remote") ? PM_ATTRIB_REMOTE :
							    PM_ATTRIB_ANY;
		x->event = strdup(jstr(p, "Event"));
		if (!x->event)
			goto oom;
		a.n_proxies++;
	}
	if (!a.n_proxies || !(a.per_byte > 0))
		goto none;
	a.total = strdup(jstr(o, "Total"));
	a.note = pm_strdup0(jstr(o, "Note"));
	a.proxy_error_note = pm_strdup0(jstr(o, "ProxyErrorNote"));
	if (!a.total || (jstr(o, "Note") && !a.note) ||
	    (jstr(o, "ProxyErrorNote") && !a.proxy_error_note))
		goto oom;
	*ret = a;
	return 0;
oom:
	for (i = 0; i < a.n_proxies; i++)
		free(a.proxies[i].event);
	free(a.total);
	free(a.note);
	free(a.proxy_error_note);
	return -ENOMEM;
none:
	for (i = 0; i < a.n_proxies; i++)
		free(a.proxies[i].event);
	return 0;
}

/* [a-z0-9_]+, at most 64 bytes: a name every exporter can take as it is. */
static bool plain_name(const char *s)
{
	size_t n = s ? strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") : 0;

	return n && n <= 64 && !s[n];
}

/* "k=v,k=v" with plain names and values without quotes, backslashes or separators. */
static bool plain_labels(const char *s)
{
	while (*s) {
		size_t k = strspn(s, "abcdefghijklmnopqrstuvwxyz_"), v;

		if (!k || s[k] != '=')
			return false;
		s += k + 1;
		v = strcspn(s, ",=\"\\\n");
		if (!v || (s[v] && s[v] != ','))
			return false;
		s += v + (s[v] == ',');
	}
	return true;
}

/*
 * A pack's "Monitor": [{"Metric": "DF_CH0_GBps", "Name": "memory",
 * "Labels": "channel=0"}, ...], the platform-neutral names an exporter
 * gives its metrics. An entry with a name or labels an exporter could not
 * take as they are is left out, and said (the pack loads).
 */
static int load_monitor(struct pm_ctx *ctx, const char *pack, json_t *a, struct pm_pack *pk)
{
	size_t i;
	json_t *o;

	json_array_foreach(a, i, o) {
		const char *metric = jstr(o, "Metric"), *name = jstr(o, "Name");
		const char *labels = jstr(o, "Labels") ? jstr(o, "Labels") : "";
		struct pm_monitor_name *m;
		int r;

		if (!metric || !plain_name(name) || !plain_labels(labels)) {
			refuse(ctx,
			       "pack %s: Monitor entry %zu left out: it needs a Metric, a Name of "
			       "[a-z0-9_] and Labels as k=v,k=v",
			       pack, i);
			continue;
		}
		r = pm_grow((void **)&pk->monitor, &pk->cap_monitor, pk->n_monitor + 1, sizeof(*m));
		if (r < 0)
			return r;
		m = &pk->monitor[pk->n_monitor];
		m->metric = strdup(metric);
		m->name = strdup(name);
		m->labels = strdup(labels);
		pk->n_monitor++;
		if (!m->metric || !m->name || !m->labels)
			return -ENOMEM;
	}
	return 0;
}

/* A pack's "Drivers" (pack.h); an entry without Module, File or Config is left out, and
 * said. */
static int load_drivers(struct pm_ctx *ctx, json_t *a, struct pm_pack *pk)
{
	size_t i;
	json_t *o;

	json_array_foreach(a, i, o) {
		struct pm_driver_def *d;
		int r;

		if (!jstr(o, "Module") || !jstr(o, "File") || !jstr(o, "Config")) {
			refuse(ctx,
			       "pack %s: Drivers entry %zu left out: it needs Module, File and Config",
			       pk->name, i);
			continue;
		}
		r = pm_grow((void **)&pk->drivers, &pk->cap_drivers, pk->n_drivers + 1, sizeof(*d));
		if (r < 0)
			return r;
		d = &pk->drivers[pk->n_drivers++];
		*d = (struct pm_driver_def){ .pack = pk->name,
					     .module = pm_strdup0(jstr(o, "Module")),
					     .file = pm_strdup0(jstr(o, "File")),
					     .config = pm_strdup0(jstr(o, "Config")),
					     .gives = pm_strdup0(jstr(o, "Gives")),
					     .path = pm_strdup0(jstr(o, "Path")),
					     .path_config = pm_strdup0(jstr(o, "PathConfig")),
					     .alt = pm_strdup0(jstr(o, "Else")) };
		if (!d->module || !d->file || !d->config || (jstr(o, "Gives") && !d->gives) ||
		    (jstr(o, "Path") && !d->path) || (jstr(o, "PathConfig") && !d->path_config) ||
		    (jstr(o, "Else") && !d->alt))
			return -ENOMEM;
	}
	return 0;
}

static int add_pack(struct pm_ctx *ctx, struct pm_db *db, const char *name, json_t *root)
{
	struct pm_pack *pk;
	json_t *d;
	size_t i;
	int r;

	r = pm_grow((void **)&db->packs, &db->cap_packs, db->n_packs + 1, sizeof(*pk));
	if (r < 0)
		return r;
	pk = &db->packs[db->n_packs];
	pk->name = strdup(name);
	if (!pk->name)
		return -ENOMEM;
	db->n_packs++;
	if (!root)
		return 0; /* a perf table: no defaults, no notes */
	pk->defaults_note = pm_strdup0(jstr(root, "DefaultsNote"));
	r = load_screen(json_object_get(root, "Screen"), &pk->screen);
	if (r == 0)
		r = load_monitor(ctx, name, json_object_get(root, "Monitor"), pk);
	if (r == 0)
		r = load_drivers(ctx, json_object_get(root, "Drivers"), pk);
	if (r == 0)
		r = load_attrib(json_object_get(root, "Attribution"), &pk->attrib);
	if (r < 0)
		return r;
	json_array_foreach(json_object_get(root, "Defaults"), i, d) {
		if (!json_is_string(d))
			continue;
		r = pm_grow((void **)&pk->defaults, &pk->cap_defaults, pk->n_defaults + 1,
			    sizeof(char *));
		if (r < 0)
			return r;
		pk->defaults[pk->n_defaults] = strdup(json_string_value(d));
		if (!pk->defaults[pk->n_defaults])
			return -ENOMEM;
		pk->n_defaults++;
	}
	return 0;
}

static const char *json_type_name(const json_t *j)
{
	return json_is_string(j)  ? "a string" :
	       json_is_object(j)  ? "an object" :
	       json_is_array(j)	  ? "an array" :
	       json_is_number(j)  ? "a number" :
	       json_is_boolean(j) ? "true or false" :
				    "null";
}

/*
 * pack.json's keys and the types they take: a key of another type refuses the pack,
 * saying where it is ("Pack": 5 was taken as no name, the directory's then; an "Events"
 * entry that is no file name was skipped). Keys it does not know are left alone.
 */
static bool pack_types_ok(struct pm_ctx *ctx, const json_t *root, const struct jtext *t)
{
	static const char S[] = "a string", O[] = "an object", A[] = "an array",
			  SA[] = "an array of strings (file names, event specs)";
	static const struct {
		const char *key, *within; /* within: a member of that key's object */
		json_type type;
		const char *what; /* SA: an array of strings */
	} keys[] = {
		{ "Pack", NULL, JSON_STRING, S },      { "Description", NULL, JSON_STRING, S },
		{ "Source", NULL, JSON_STRING, S },    { "DefaultsNote", NULL, JSON_STRING, S },
		{ "Match", NULL, JSON_OBJECT, O },     { "Pmu", "Match", JSON_STRING, S },
		{ "Compat", "Match", JSON_STRING, S }, { "Cpuid", "Match", JSON_STRING, S },
		{ "Screen", NULL, JSON_OBJECT, O },    { "Drivers", NULL, JSON_ARRAY, A },
		{ "Pmus", NULL, JSON_ARRAY, A },       { "InstanceTopology", NULL, JSON_ARRAY, A },
		{ "Monitor", NULL, JSON_ARRAY, A },    { "Constants", NULL, JSON_ARRAY, A },
		{ "Events", NULL, JSON_ARRAY, SA },    { "Metrics", NULL, JSON_ARRAY, SA },
		{ "Defaults", NULL, JSON_ARRAY, SA },
	};
	char at[1200];
	size_t off;

	if (!json_is_object(root)) {
		refuse(ctx,
		       "%s: a pack is an object of keys (Pack, Match, Events, ...), not %s; "
		       "ignoring it",
		       where(t, pm_json_top(t->data, t->len), at, sizeof(at)),
		       json_type_name(root));
		return false;
	}
	for (size_t i = 0; i < PM_ARRAY_SIZE(keys); i++) {
		const json_t *in = keys[i].within ? json_object_get(root, keys[i].within) : root;
		const json_t *v = json_is_object(in) ? json_object_get(in, keys[i].key) : NULL;
		bool ok = !v || json_typeof(v) == keys[i].type;
		size_t j;
		const json_t *e;

		json_array_foreach(keys[i].what == SA && ok ? v : NULL, j, e)
			ok &= json_is_string(e);
		if (ok)
			continue;
		/* where: the key's value (a key within Match: Match's) */
		if (pm_json_locate(t->data, t->len, 0,
				   keys[i].within ? keys[i].within : keys[i].key, &off) < 0)
			off = pm_json_top(t->data, t->len);
		refuse(ctx, "%s: %s%s'%s' takes %s, not %s; ignoring the pack",
		       where(t, off, at, sizeof(at)), keys[i].within ? keys[i].within : "",
		       keys[i].within ? "'s " : "", keys[i].key, keys[i].what,
		       v && keys[i].what == SA && json_is_array(v) ?
			       "an array with other things in it" :
			       json_type_name(v));
		return false;
	}
	return true;
}

static int load_pack(struct pm_ctx *ctx, struct pm_db *db, const struct pm_embedded *f)
{
	char dir[1024], pack[64];
	const char *slash = strrchr(f->path, '/'), *base;
	struct jtext t;
	json_t *root;
	int r = 0;

	if (!slash || (size_t)(slash - f->path) >= sizeof(dir))
		return 0;
	memcpy(dir, f->path, (size_t)(slash - f->path));
	dir[slash - f->path] = '\0';
	base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	root = parse_json(ctx, f, &t);
	if (!root)
		return 0;
	if (!pack_types_ok(ctx, root, &t))
		goto out;
	/* its "Pack" name, or its directory's */
	snprintf(pack, sizeof(pack), "%.63s", jstr(root, "Pack") ? jstr(root, "Pack") : base);
	if (!pack_matches(ctx, db, pack, json_object_get(root, "Match")))
		goto out;
	r = add_pack(ctx, db, pack, root);
	if (r < 0)
		goto out;
	/* names borrowed by traits and aliases live as long as the db */
	r = add_traits(ctx, db, db->packs[db->n_packs - 1].name, json_object_get(root, "Pmus"));
	if (r == 0)
		r = add_topos(ctx, db, db->packs[db->n_packs - 1].name,
			      json_object_get(root, "InstanceTopology"));
	if (r == 0)
		r = add_events(ctx, db, db->packs[db->n_packs - 1].name, dir,
			       json_object_get(root, "Events"));
	if (r == 0)
		r = add_metrics(ctx, db, db->packs[db->n_packs - 1].name, dir,
				json_object_get(root, "Metrics"));
	if (r == 0)
		r = add_constants(ctx, db, db->packs[db->n_packs - 1].name,
				  json_object_get(root, "Constants"));
out:
	json_decref(root);
	jtext_done(&t);
	return r;
}

static bool is_pack_root(const char *path)
{
	const char *slash = strrchr(path, '/');

	return !strcmp(path, "kernel/pmus.json") || (slash && !strcmp(slash + 1, "pack.json"));
}

/* ---- perf's pmu-events tree (--events-dir) --------------------------------------- */

static bool in_dir(const char *path, const char *dir, size_t dir_len)
{
	return !strncmp(path, dir, dir_len) && path[dir_len] == '/';
}

/* A perf JSON file: each entry an event or a metric (files mix them). */
static int load_perf_json(struct pm_ctx *ctx, struct pm_db *db, const char *pack,
			  const struct pm_embedded *f, enum entry_kind kind, json_t *stds)
{
	struct jtext t;
	json_t *arr = parse_entries(ctx, f, &t), *e;
	size_t i;
	int r = 0;

	if (!arr)
		return 0;
	json_array_foreach(arr, i, e) {
		/* an ArchStdEvent may name one of the arch's standard metrics (sbsa.json) */
		json_t *std = std_event(stds, e);
		bool is_metric = field_or_std(e, std, "MetricName") != NULL;

		if (is_metric) {
			const char *compat = field_or_std(e, std, "Compat");
			bool have = !compat;

			/* a sys table's metric belongs to the PMUs its Compat names */
			for (size_t p = 0; !have && p < ctx->n_pmus; p++)
				have = compat_ok(compat, ctx->pmus[p]);
			if (have)
				r = add_metric(ctx, db, pack, &t, i, e, std, true);
		}
		/* an entry with an EventName is also an event, a metric or not: jevents.py
		 * makes both of Intel's uncore LLC_MISSES.PCIE_READ (EventName and MetricName) */
		if (r == 0 && (field_or_std(e, std, "EventName") ||
			       (!is_metric && jstr(e, "ArchStdEvent")))) {
			r = add_event(ctx, pack, &t, i, e, kind, stds);
		} else if (!is_metric &&
			   (jstr(e, "CountersNumFixed") || jstr(e, "CountersNumGeneric"))) {
			/* counter.json (perf 6.12 on): a PMU's counter numbers, which jevents.py
			 * reads past (6.12) or keeps apart (later); no event, nothing to say */
		} else if (!is_metric) {
			char at[1200];

			refuse(ctx,
			       "%s: entry %zu is neither an event (EventName, ArchStdEvent) nor a "
			       "metric (MetricName); ignoring it",
			       where_entry(&t, i, NULL, at, sizeof(at)), i);
		}
		if (r < 0)
			break;
	}
	json_decref(arr);
	jtext_done(&t);
	return r;
}

/*
 * jevents.py preprocess_arch_std_files(): the events of the JSON files directly
 * in the arch directory (arch/arm64/common-and-microarch.json, ...), by
 * lowercased name, for entries that say only "ArchStdEvent".
 */
static json_t *arch_std_events(struct pm_ctx *ctx, struct pm_db *db, const char *arch,
			       size_t arch_len)
{
	json_t *std = json_object();

	for (size_t i = 0; std && i < db->n_files; i++) {
		const char *path = db->files[i]->path;
		struct jtext t;
		json_t *arr, *e;
		size_t j;

		if (!in_dir(path, arch, arch_len) || strchr(path + arch_len + 1, '/') ||
		    !pm_str_has_suffix(path, ".json"))
			continue;
		arr = parse_entries(ctx, db->files[i], &t);
		if (!arr)
			continue;
		json_array_foreach(arr, j, e) {
			/* jevents.py keys a standard entry by its EventName and by its
			 * MetricName, both where it has both (preprocess_arch_std_files) */
			const char *names[2] = { jstr(e, "EventName"), jstr(e, "MetricName") };

			for (int n = 0; n < 2; n++) {
				char low[256];
				size_t k;

				if (!names[n] || strlen(names[n]) >= sizeof(low))
					continue;
				for (k = 0; names[n][k]; k++)
					low[k] = (char)tolower((unsigned char)names[n][k]);
				low[k] = '\0';
				json_object_set(std, low, e);
			}
		}
		json_decref(arr);
		jtext_done(&t);
	}
	return std;
}

/* Every JSON file under dir, as one pack; arch: the arch directory of its standard events. */
static int load_perf_dir(struct pm_ctx *ctx, struct pm_db *db, const char *dir, size_t dir_len,
			 enum entry_kind kind, const char *arch, size_t arch_len)
{
	const char *pack, *from = arch + arch_len;
	char name[128];
	json_t *stds;
	int r = 0;

	/* named from its arch on ("perf:x86/sapphirerapids"), wherever the tree is: the
	 * arch directory's name, then dir's path below it (dir begins with arch's) */
	while (from > arch && from[-1] != '/')
		from--;
	snprintf(name, sizeof(name), "perf:%.*s%.*s", (int)(arch + arch_len - from), from,
		 (int)PM_MIN(dir_len - arch_len, 100), dir + arch_len);
	/* a sys/ directory comes once per file; another tree's of the same name is another
	 * table (its metrics override: the later wins) */
	for (size_t i = 0; i < db->n_packs; i++)
		if (db->packs[i].dir && strlen(db->packs[i].dir) == dir_len &&
		    !strncmp(db->packs[i].dir, dir, dir_len))
			return 0; /* already loaded */
	r = add_pack(ctx, db, name, NULL);
	if (r < 0)
		return r;
	db->packs[db->n_packs - 1].dir = strndup(dir, dir_len);
	if (!db->packs[db->n_packs - 1].dir)
		return -ENOMEM;
	pack = db->packs[db->n_packs - 1].name;
	stds = arch_std_events(ctx, db, arch, arch_len);
	if (!stds)
		return -ENOMEM;
	for (size_t i = 0; i < db->n_files && r == 0; i++) {
		const char *path = db->files[i]->path;

		if (in_dir(path, dir, dir_len) && !strchr(path + dir_len + 1, '/') &&
		    pm_str_has_suffix(path, ".json") &&
		    !pm_str_has_suffix(path, "/metricgroups.json"))
			r = load_perf_json(ctx, db, pack, db->files[i], kind, stds);
	}
	json_decref(stds);
	return r;
}

/* Does the tree hold a JSON file in dir (jevents.py makes no table for an empty one)? */
static bool have_json(const struct pm_db *db, const char *dir, size_t dir_len)
{
	for (size_t i = 0; i < db->n_files; i++)
		if (in_dir(db->files[i]->path, dir, dir_len) &&
		    !strchr(db->files[i]->path + dir_len + 1, '/') &&
		    pm_str_has_suffix(db->files[i]->path, ".json"))
			return true;
	return false;
}

/*
 * perf's arch/<arch>/mapfile.csv: "Family-model,Version,Filename,EventType"
 * rows; perf uses the first row that matches this CPU (map_for_cpu()) among
 * those jevents.py made a table for. x86 rows are regular expressions over
 * the CPUID string, arm64 rows MIDRs (strcmp_cpuid_str() of each arch).
 */
static int load_mapfile(struct pm_ctx *ctx, struct pm_db *db, const struct pm_embedded *f,
			bool *ret_matched)
{
	size_t base_len = (size_t)(strrchr(f->path, '/') - f->path);
	char *text, *save = NULL;
	bool first = true, matched = false;
	struct jtext t;
	int r = 0;

	if (jtext_open(ctx, f, &t) < 0)
		return 0;
	text = strndup(t.data, t.len);
	jtext_done(&t);
	if (!text)
		return -ENOMEM;
	for (char *line = strtok_r(text, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save), first = false) {
		char *fields[4] = { 0 }, *fsave = NULL, dir[1024];
		bool match;
		int n = 0;

		/* jevents.py skips the first row and rows beginning with '#' */
		if (first || line[0] == '#')
			continue;
		for (char *tok = strtok_r(line, ",", &fsave); tok && n < 4;
		     tok = strtok_r(NULL, ",", &fsave))
			fields[n++] = tok;
		if (n < 3 || !db->cpuid[0])
			continue;
		match = pm_db_cpuid_match(fields[0], db->cpuid) == 1;
		if (!match ||
		    pm_snprintf(dir, sizeof(dir), "%.*s/%s", (int)base_len, f->path, fields[2]) <
			    0 ||
		    !have_json(db, dir, strlen(dir)))
			continue;
		pm_log(ctx, PM_LOG_INFO, "perf events for %s: %s", db->cpuid, dir);
		r = load_perf_dir(ctx, db, dir, strlen(dir), ENTRY_CORE_TABLE, f->path, base_len);
		matched = true;
		break;
	}
	free(text);
	*ret_matched |= matched;
	return r;
}

/* perf's SoC tables: every arch/<arch>/<vendor>/<soc>/sys directory. */
static int load_sys_tables(struct pm_ctx *ctx, struct pm_db *db)
{
	int r = 0;

	for (size_t i = 0; i < db->n_files && r == 0; i++) {
		const char *path = db->files[i]->path, *sys = strrchr(path, '/'), *arch;

		/* the file's own directory is sys/: look back from its last '/' */
		if (sys)
			while (sys > path && sys[-1] != '/')
				sys--;
		if (i < pm_embedded_count || !sys || sys == path || strncmp(sys, "sys/", 4) ||
		    !pm_str_has_suffix(path, ".json"))
			continue;
		sys--; /* at the '/' before sys/ */
		/* arch/<arch>/<vendor>/<soc>/sys: the arch directory two levels up */
		arch = sys;
		for (int up = 0; up < 2 && arch > path; up++)
			while (--arch > path && *arch != '/')
				;
		r = load_perf_dir(ctx, db, path, (size_t)(sys + 4 - path), ENTRY_SYS_TABLE, path,
				  (size_t)(arch - path));
	}
	return r;
}

static void attach_traits(struct pm_ctx *ctx, struct pm_db *db)
{
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		struct pm_pmu *p = ctx->pmus[i];

		/* a later pack (a platform) overrides an earlier one (the kernel) */
		for (size_t t = 0; t < db->n_traits; t++) {
			const struct pm_pmu_traits *tr = &db->traits[t];

			if (!strcmp(tr->unit, p->family) &&
			    (!tr->compat || (p->identifier && !strcmp(tr->compat, p->identifier))))
				p->traits = tr;
		}
	}
}

/*
 * A metric name defined again by a later pack (a user's --events-dir file over a
 * built-in pack): the last definition counts (pm_db__find_metric), so the
 * earlier one is listed as replaced, and a group brings its name only once.
 * Within one pack a name may come twice, once per core PMU of a hybrid
 * (perf's alderlake files: IpCall for cpu_core and for cpu_atom); both stay.
 */
static int mark_replaced(struct pm_db *db)
{
	for (size_t i = 0; i < db->n_metrics; i++) {
		struct pm_metric_def *m = &db->metrics[i];
		const struct pm_metric_def *w = pm_db__find_metric(db, m->name);
		struct pm_strbuf why = { 0 };

		/* one pack's same name twice is a hybrid's pair (Unit cpu_core, cpu_atom) */
		if (w == m || w->pack == m->pack) /* one pack: its name, the same string */
			continue;
		pm_strbuf__printf(&why,
				  "replaced by the metric of the same name in %s, the later "
				  "pack",
				  w->pack);
		if (why.oom)
			return -ENOMEM;
		free((char *)m->unavailable);
		m->unavailable = why.s;
	}
	return 0;
}

int pm_db__load(struct pm_ctx *ctx, struct pm_db **ret_db)
{
	const char *mapfile = NULL;
	bool matched = false;
	struct pm_db *db;
	int r = 0;

	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->files = calloc(pm_embedded_count + ctx->n_extra + 1, sizeof(*db->files));
	if (!db->files) {
		free(db);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pm_embedded_count; i++)
		db->files[db->n_files++] = &pm_embedded_files[i];
	for (size_t i = 0; i < ctx->n_extra; i++)
		db->files[db->n_files++] = &ctx->extra[i];
	pm_db_read_cpuid(ctx, db->cpuid, sizeof(db->cpuid));
	/* the kernel's driver traits, the built-in platforms in name order, then
	 * what the user gave: packs, and perf's tables for this CPU and SoC */
	for (int pass = 0; pass < 2 && r == 0; pass++) {
		for (size_t i = 0; i < db->n_files && r == 0; i++) {
			const struct pm_embedded *f = db->files[i];
			bool kernel = i < pm_embedded_count &&
				      pm_str_has_prefix(f->path, "kernel/");

			if (is_pack_root(f->path) && kernel == (pass == 0))
				r = load_pack(ctx, db, f);
		}
	}
	for (size_t i = pm_embedded_count; i < db->n_files && r == 0; i++)
		if (pm_str_has_suffix(db->files[i]->path, "/mapfile.csv")) {
			r = load_mapfile(ctx, db, db->files[i], &matched);
			mapfile = db->files[i]->path;
		}
	/* said, not silent: a tree with no row for this CPU in any arch adds no events */
	if (r == 0 && mapfile && !matched && db->cpuid[0]) {
		const char *arch = strstr(mapfile, "/arch/");
		int len = arch ? (int)(arch - mapfile) : (int)strlen(mapfile);

		pm_log(ctx, PM_LOG_WARN,
		       "%.*s: no mapfile.csv row matches this CPU (%s): its CPU events and metrics "
		       "are not used (only sys/ tables whose Compat matches a PMU)",
		       len, mapfile, db->cpuid);
	}
	if (r == 0)
		r = load_sys_tables(ctx, db);
	if (r == 0)
		r = mark_replaced(db);
	if (r < 0) {
		pm_db__free(db);
		return r;
	}
	attach_traits(ctx, db);
	place_instances(ctx, db);
	for (size_t i = 0; i < db->n_packs; i++) {
		struct pm_pack *pk = &db->packs[i];

		if (strcmp(pk->name, "kernel") != 0)
			pm_strbuf__printf(&db->names, "%s%s", db->names.len ? "," : "", pk->name);
		if (pk->defaults_note)
			pm_strbuf__printf(&db->notes, "%s%s", db->notes.len ? "; " : "",
					  pk->defaults_note);
		for (size_t d = 0; d < pk->n_defaults; d++) {
			if (pm_grow((void **)&db->defaults, &db->cap_defaults, db->n_defaults + 1,
				    sizeof(char *)) < 0) {
				pm_db__free(db);
				return -ENOMEM;
			}
			db->defaults[db->n_defaults++] = pk->defaults[d];
		}
	}
	if (db->names.oom || db->notes.oom) {
		pm_db__free(db);
		return -ENOMEM;
	}
	*ret_db = db;
	return 0;
}

void pm_db__free(struct pm_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->n_traits; i++) {
		free(db->traits[i].unit);
		free(db->traits[i].compat);
		free(db->traits[i].note);
	}
	for (size_t i = 0; i < db->n_topos; i++) {
		free(db->topos[i].unit);
		free(db->topos[i].compat);
	}
	free(db->topos);
	for (size_t i = 0; i < db->n_packs; i++) {
		for (size_t d = 0; d < db->packs[i].n_defaults; d++)
			free(db->packs[i].defaults[d]);
		free(db->packs[i].defaults);
		free(db->packs[i].defaults_note);
		free((char *)db->packs[i].screen.title);
		free((char *)db->packs[i].screen.metrics);
		free((char *)db->packs[i].screen.group);
		free((char *)db->packs[i].screen.note);
		free(db->packs[i].attrib.total);
		free(db->packs[i].attrib.note);
		free(db->packs[i].attrib.proxy_error_note);
		for (size_t p = 0; p < db->packs[i].attrib.n_proxies; p++)
			free(db->packs[i].attrib.proxies[p].event);
		for (size_t m = 0; m < db->packs[i].n_monitor; m++) {
			free((char *)db->packs[i].monitor[m].metric);
			free((char *)db->packs[i].monitor[m].name);
			free((char *)db->packs[i].monitor[m].labels);
		}
		free(db->packs[i].monitor);
		for (size_t d = 0; d < db->packs[i].n_drivers; d++) {
			const struct pm_driver_def *dv = &db->packs[i].drivers[d];

			free((char *)dv->module);
			free((char *)dv->file);
			free((char *)dv->config);
			free((char *)dv->gives);
			free((char *)dv->path);
			free((char *)dv->path_config);
			free((char *)dv->alt);
		}
		free(db->packs[i].drivers);
		free(db->packs[i].name);
		free(db->packs[i].dir);
	}
	for (size_t i = 0; i < db->n_metrics; i++) {
		struct pm_metric_def *m = &db->metrics[i];

		free((char *)m->name);
		free((char *)m->expr);
		free((char *)m->groups);
		free((char *)m->desc);
		free((char *)m->family);
		free((char *)m->unit);
		free((char *)m->scope);
		free((char *)m->unavailable);
		free((char *)m->note);
	}
	for (size_t i = 0; i < db->n_constants; i++) {
		free((char *)db->constants[i].name);
		free((char *)db->constants[i].note);
	}
	free(db->constants);
	free(db->metrics);
	free(db->files);
	free(db->traits);
	free(db->packs);
	free(db->defaults);
	pm_strbuf__done(&db->names);
	pm_strbuf__done(&db->notes);
	free(db);
}

const char *pm_db__matched_names(const struct pm_db *db)
{
	return db && db->names.s ? db->names.s : "";
}

const char *pm_db__cpuid(const struct pm_db *db)
{
	return db ? db->cpuid : "";
}

size_t pm_db__default_count(const struct pm_db *db)
{
	return db ? db->n_defaults : 0;
}

const char *pm_db__default(const struct pm_db *db, size_t i)
{
	return db && i < db->n_defaults ? db->defaults[i] : NULL;
}

const struct pm_monitor_name *pm_db__monitor(const struct pm_db *db, size_t i)
{
	for (size_t p = 0; db && p < db->n_packs; p++) {
		if (i < db->packs[p].n_monitor)
			return &db->packs[p].monitor[i];
		i -= db->packs[p].n_monitor;
	}
	return NULL;
}

const struct pm_driver_def *pm_db__driver(const struct pm_db *db, size_t i)
{
	for (size_t p = 0; db && p < db->n_packs; p++) {
		if (i < db->packs[p].n_drivers)
			return &db->packs[p].drivers[i];
		i -= db->packs[p].n_drivers;
	}
	return NULL;
}

const struct pm_attrib_recipe *pm_db__attribution(const struct pm_db *db)
{
	for (size_t i = 0; i < db->n_packs; i++)
		if (db->packs[i].attrib.total)
			return &db->packs[i].attrib;
	return NULL;
}

const struct pm_screen *pm_db__screen(const struct pm_db *db)
{
	for (size_t i = 0; db && i < db->n_packs; i++)
		if (db->packs[i].screen.title)
			return &db->packs[i].screen;
	return NULL;
}

const char *pm_db__defaults_note(const struct pm_db *db)
{
	return db && db->notes.s ? db->notes.s : "";
}

size_t pm_db__metric_count(const struct pm_db *db)
{
	return db ? db->n_metrics : 0;
}

const struct pm_metric_def *pm_db__metric(const struct pm_db *db, size_t i)
{
	return db && i < db->n_metrics ? &db->metrics[i] : NULL;
}

const struct pm_metric_def *pm_db__find_metric(const struct pm_db *db, const char *name)
{
	/* the last definition wins: a user's pack over a built-in one */
	for (size_t i = db ? db->n_metrics : 0; i-- > 0;)
		if (!strcmp(db->metrics[i].name, name))
			return &db->metrics[i];
	return NULL;
}

const struct pm_constant_def *pm_db__find_constant(const struct pm_db *db, const char *name)
{
	/* the last definition wins, as for metrics */
	for (size_t i = db ? db->n_constants : 0; i-- > 0;)
		if (!strcmp(db->constants[i].name, name))
			return &db->constants[i];
	return NULL;
}

const struct pm_metric_def *pm_db__find_metric_nocase(const struct pm_db *db, const char *name)
{
	const struct pm_metric_def *m = pm_db__find_metric(db, name);

	/* perf's -M (metricgroup.c match_metric: strcasestr): `-M cpi` is CPI */
	for (size_t i = db ? db->n_metrics : 0; !m && i-- > 0;)
		if (!strcasecmp(db->metrics[i].name, name))
			m = &db->metrics[i];
	return m;
}

bool pm_metric_def__in_group(const struct pm_metric_def *m, const char *name)
{
	size_t n = strlen(name);

	/* as perf's match_metric, whose strcasestr takes any case */
	for (const char *g = m->groups; *g;) {
		size_t l = strcspn(g, ";");

		if (l == n && !strncasecmp(g, name, n))
			return true;
		g += l + (g[l] == ';');
	}
	return false;
}
