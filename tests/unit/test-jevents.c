// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's event files as perf reads them: every entry of tests/data/pmu-events
 * encodes to the string jevents.py generated for it (expected-jevents.txt),
 * and on each fixture machine attaches to the PMUs perf would attach it to.
 */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctx.h"
#include "db/jevents.h"
#include "db/jsonflat.h"
#include "db/jsonpos.h"
#include "db/pack.h"
#include "evlist.h"
#include "metric/expr.h"
#include "metric/literal.h"
#include "pmu.h"
#include "pmumon/pmumon.h"
#include "spec.h"
#include "util/util.h"

#define MAX_FILES 64

static struct pm_file files[MAX_FILES];
static size_t n_files;
static char root[4096];

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F ||
	    (!pm_str_has_suffix(path, ".json") && !pm_str_has_suffix(path, ".csv")))
		return 0;
	assert_true(n_files < MAX_FILES);
	/* as --events-dir names them: relative to the directory given */
	files[n_files].path = strdup(path + strlen(root) - strlen("pmu-events"));
	files[n_files].data = slurp(path, &files[n_files].len);
	n_files++;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "%s/tests/data/pmu-events", getenv("PMUMON_SOURCE_ROOT"));
	return nftw(root, add_file, 8, FTW_PHYS);
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < n_files; i++) {
		free((char *)files[i].path);
		free((char *)files[i].data);
	}
	return 0;
}

static struct pm_ctx *machine(const char *name)
{
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .extra_files = files,
				 .n_extra_files = n_files,
				 .log_level = PM_LOG_DEBUG };
	struct pm_ctx *ctx = NULL;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s", th_fixtures(), name);
	o.root = dir;
	assert_int_equal(pm_ctx__new(&o, &ctx), 0);
	assert_int_equal(pm_ctx__discover(ctx), 0);
	return ctx;
}

/* expected-jevents.txt: TABLE PMU NAME EVENT, tab-separated */
struct row {
	char table[64], pmu[64], name[128], event[256];
};

static size_t read_expected(struct row *rows, size_t max)
{
	char path[4200], line[600];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/expected-jevents.txt", root);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		assert_true(n < max);
		line[strcspn(line, "\n")] = '\0';
		assert_int_equal(sscanf(line, "%63[^\t]\t%63[^\t]\t%127[^\t]\t%255[^\t]",
					rows[n].table, rows[n].pmu, rows[n].name, rows[n].event),
				 4);
		n++;
	}
	fclose(f);
	return n;
}

/* jevents' table name of a directory: arch/x86/sapphirerapids -> pmu_events__sapphirerapids */
static void table_of(const char *path, char *buf, size_t size)
{
	const char *p = strstr(path, "/arch/") + strlen("/arch/");

	p = strchr(p, '/') + 1;
	snprintf(buf, size, "pmu_events__%.*s", (int)(strrchr(path, '/') - p), p);
	for (char *c = buf; *c; c++)
		if (*c == '/' || *c == '-')
			*c = '_';
}

static json_t *load(const struct pm_file *f)
{
	json_error_t err;
	json_t *j = json_loadb(f->data, f->len, 0, &err);

	if (!j)
		fail_msg("%s: %s", f->path, err.text);
	return j;
}

/* The arch's standard entry (the JSON files directly in arch/<arch>/) named by key. */
static json_t *std_by(const char *path, const char *name, const char *key)
{
	const char *arch = strstr(path, "/arch/") + strlen("/arch/");
	size_t len = (size_t)(strchr(arch, '/') - path);

	for (size_t i = 0; name && i < n_files; i++) {
		json_t *arr, *e, *found = NULL;
		size_t k;

		if (strncmp(files[i].path, path, len) || strchr(files[i].path + len + 1, '/') ||
		    !pm_str_has_suffix(files[i].path, ".json"))
			continue;
		arr = load(&files[i]);
		json_array_foreach(arr, k, e) {
			const char *en = json_string_value(json_object_get(e, key));

			if (en && !strcasecmp(en, name))
				found = json_incref(e);
		}
		json_decref(arr);
		if (found)
			return found;
	}
	return NULL;
}

static json_t *std_of(const char *path, const char *name)
{
	return std_by(path, name, "EventName");
}

/* A metric entry: its own MetricName or MetricExpr, or an ArchStdEvent that is a standard metric. */
static bool is_metric(const char *path, json_t *e)
{
	const char *std_name = json_string_value(json_object_get(e, "ArchStdEvent"));
	json_t *std;

	if (json_object_get(e, "MetricName") || json_object_get(e, "MetricExpr"))
		return true;
	std = std_by(path, std_name, "MetricName");
	json_decref(std);
	return std != NULL;
}

/* Every event of every file encodes to jevents.py's string, and every string is some entry's. */
static void test_encode_as_jevents(void **state)
{
	static struct row rows[256];
	size_t n = read_expected(rows, 256), seen = 0;

	(void)state;
	assert_true(n >= 40);
	for (size_t i = 0; i < n_files; i++) {
		char table[128];
		json_t *arr, *e;
		size_t k;

		if (!pm_str_has_suffix(files[i].path, ".json") ||
		    strchr(strstr(files[i].path, "/arch/") + 6, '/') ==
			    strrchr(files[i].path, '/')) /* the arch's std events: no table */
			continue;
		table_of(files[i].path, table, sizeof(table));
		arr = load(&files[i]);
		json_array_foreach(arr, k, e) {
			const char *std_name = json_string_value(
				json_object_get(e, "ArchStdEvent"));
			json_t *std = std_of(files[i].path, std_name);
			const char *name = json_string_value(json_object_get(e, "EventName"));
			struct pm_strbuf b = { 0 };
			char unit[64];
			bool found = false;

			if (is_metric(files[i].path, e)) {
				json_decref(std);
				continue;
			}
			assert_int_equal(pm_jevents_event(e, std, &b, NULL), 0);
			assert_int_equal(pm_jevents_pmu(json_string_value(
								json_object_get(e, "Unit")),
							unit, sizeof(unit)),
					 0);
			if (!name)
				name = json_string_value(json_object_get(std, "EventName"));
			for (size_t r = 0; r < n && !found; r++) {
				if (strcmp(rows[r].table, table) || strcasecmp(rows[r].name, name))
					continue;
				found = true;
				if (strcmp(rows[r].event, b.s) || strcmp(rows[r].pmu, unit))
					fail_msg("%s %s: pmumon %s/%s/, jevents.py %s/%s/", table,
						 name, unit, b.s, rows[r].pmu, rows[r].event);
			}
			if (!found)
				fail_msg("%s %s: not in expected-jevents.txt", table, name);
			seen++;
			pm_strbuf__done(&b);
			json_decref(std);
		}
		json_decref(arr);
	}
	assert_int_equal(seen, n);
}

/* Which sysfs PMUs each table PMU stands for on a machine, as perf's pmu__name_match decides. */
struct attach {
	const char *table_pmu;
	const char *pmus; /* space-separated; "" = none */
};

/*
 * On machine: every row of the tables perf selects for it attaches to exactly
 * the PMUs listed, with jevents' string less period= as its terms; no other
 * PMU has it.
 */
static void check_machine(const char *fixture, const char *const *tables, const struct attach *at,
			  size_t n_at)
{
	static struct row rows[256];
	size_t n = read_expected(rows, 256), attached = 0;
	struct pm_ctx *ctx = machine(fixture);

	for (size_t r = 0; r < n; r++) {
		const char *want = NULL;
		struct pm_strbuf terms = { 0 };
		bool selected = false;

		for (size_t t = 0; tables[t]; t++)
			selected |= !strcmp(tables[t], rows[r].table);
		for (size_t a = 0; a < n_at; a++)
			if (!strcmp(at[a].table_pmu, rows[r].pmu))
				want = at[a].pmus;
		assert_int_equal(pm_jevents_counting_terms(rows[r].event, &terms), 0);
		for (size_t i = 0; i < ctx->n_pmus; i++) {
			const struct pm_pmu *p = ctx->pmus[i];
			const struct pm_alias *al = pm_pmu__find_alias(p, rows[r].name);
			char pad[80], list[256];
			bool expect;

			snprintf(pad, sizeof(pad), " %s ", p->name);
			snprintf(list, sizeof(list), " %s ", want ? want : "");
			expect = selected && strstr(list, pad) != NULL;
			if (expect != (al != NULL))
				fail_msg("%s: %s on %s: expected %s", fixture, rows[r].name,
					 p->name, expect ? "attached" : "absent");
			/* sysfs's own alias of the name stays; it must be the same event */
			if (al && !pm_spec__same_terms(al->terms, terms.s))
				fail_msg("%s: %s on %s: %s, jevents.py %s", fixture, rows[r].name,
					 p->name, al->terms, terms.s);
			attached += al != NULL;
		}
		pm_strbuf__done(&terms);
	}
	assert_true(attached > 0);
	pm_ctx__free(ctx);
}

static void test_spr(void **state)
{
	static const char *const tables[] = { "pmu_events__sapphirerapids", NULL };
	static const struct attach at[] = {
		{ "default_core", "cpu" },
		{ "uncore_m2hbm", "uncore_m2hbm_0 uncore_m2hbm_1" },
	};

	(void)state;
	check_machine("spr-1s", tables, at, PM_ARRAY_SIZE(at));
}

/* Every Unit of jevents' table on a hybrid: default_core is both core PMUs. */
static void test_hybrid_units(void **state)
{
	static const char *const tables[] = { "pmu_events__pmumon_synthetic", NULL };
	static const struct attach at[] = {
		{ "default_core", "cpu_core cpu_atom" },
		{ "cpu_core", "cpu_core" },
		{ "cpu_atom", "cpu_atom" },
		{ "uncore_cbox", "uncore_cbox_0 uncore_cbox_1" },
		{ "uncore_cbox_0", "uncore_cbox_0" },
		{ "uncore_qpi", "uncore_qpi_0" },
		{ "uncore_upi", "uncore_upi_0" },
		{ "uncore_sbox", "uncore_sbox_0" },
		{ "uncore_arb", "uncore_arb" },
		{ "uncore_imc_free_running", "uncore_imc_free_running_0" },
		{ "uncore_iio_free_running", "uncore_iio_free_running_0" },
		{ "uncore_cha", "uncore_cha_0 uncore_cha_1" },
		{ "uncore_imc", "uncore_imc_0 uncore_imc_1" }, /* not imc_free_running */
		{ "uncore_iio", "uncore_iio_0" },
	};

	(void)state;
	check_machine("hybrid-ff", tables, at, PM_ARRAY_SIZE(at));
}

static void test_zen4(void **state)
{
	static const char *const tables[] = { "pmu_events__amdzen4", NULL };
	static const struct attach at[] = { { "default_core", "cpu" }, { "amd_l3", "amd_l3" } };
	struct pm_ctx *ctx;

	(void)state;
	check_machine("zen4-1s", tables, at, PM_ARRAY_SIZE(at));
	/* model 0x11 is not the amdzen3 row's ([245]x or one digit): only amdzen4 */
	ctx = machine("zen4-1s");
	assert_string_equal(pm_db__cpuid(ctx->db), "AuthenticAMD-25-11-1");
	pm_ctx__free(ctx);
}

/* arm64: the MIDR picks the mapfile row; the CMN whose identifier the anchored Compat
 * matches gets cmn.json, the near miss ("0434": 434 not at the start) does not. */
static void test_n2_cmn(void **state)
{
	static const char *const tables[] = { "pmu_events__arm_neoverse_n2_v2",
					      "pmu_events__arm_cmn_sys", NULL };
	static const struct attach at[] = {
		{ "default_core", "armv8_pmuv3_0" },
		{ "arm_cmn", "arm_cmn_0" },
	};
	struct pm_ctx *ctx;

	(void)state;
	check_machine("n2-cmn", tables, at, PM_ARRAY_SIZE(at));
	ctx = machine("n2-cmn");
	assert_string_equal(pm_db__cpuid(ctx->db), "0x00000000410fd493");
	pm_ctx__free(ctx);
}

/*
 * Yitian 710: the sys table (thead/yitian710/sys, Compat "ali_drw_pmu") attaches
 * to all 16 ali_drw PMUs, whose identifier file is named ali_drw_pmu_identifier
 * on kernels since the 2024 device_show_string() cleanup (kernel facts §1.6).
 * perf reads only a file named `identifier` (util/pmu.c pmu_id()), so there it
 * would attach nothing; pmumon reads both names. ddr_cycles is a name only the
 * JSON has (sysfs calls event 0x80 `cycle`).
 */
static void test_yitian_sys(void **state)
{
	static const char *const tables[] = { "pmu_events__thead_yitian710_sys", NULL };
	static const struct attach at[] = {
		{ "ali_drw",
		  "ali_drw_21000 ali_drw_21080 ali_drw_23000 ali_drw_23080 "
		  "ali_drw_25000 ali_drw_25080 ali_drw_27000 ali_drw_27080 "
		  "ali_drw_40021000 ali_drw_40021080 ali_drw_40023000 ali_drw_40023080 "
		  "ali_drw_40025000 ali_drw_40025080 ali_drw_40027000 ali_drw_40027080" },
	};
	struct pm_ctx *ctx;
	size_t with_cycles = 0;

	(void)state;
	check_machine("yitian710-2die", tables, at, PM_ARRAY_SIZE(at));
	ctx = machine("yitian710-2die");
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_alias *al = pm_pmu__find_alias(ctx->pmus[i], "ddr_cycles");

		if (al) {
			assert_string_equal(al->terms, "config=0x80");
			with_cycles++;
		}
	}
	assert_int_equal(with_cycles, 16);
	pm_ctx__free(ctx);
}

static void test_unit_to_pmu(void **state)
{
	static const char *const t[][2] = {
		{ NULL, "default_core" },
		{ "CBO", "uncore_cbox" },
		{ "QPI LL", "uncore_qpi" },
		{ "UPI LL", "uncore_upi" },
		{ "SBO", "uncore_sbox" },
		{ "iMPH-U", "uncore_arb" },
		{ "cbox_0", "uncore_cbox_0" },
		{ "imc_free_running", "uncore_imc_free_running" },
		{ "iio_free_running", "uncore_iio_free_running" },
		{ "CHA", "uncore_cha" },
		{ "iMC", "uncore_imc" },
		{ "L3PMC", "amd_l3" },
		{ "DFPMC", "amd_df" },
		{ "UMCPMC", "amd_umc" },
		{ "cpu_core", "cpu_core" },
		{ "cpu_atom", "cpu_atom" },
		{ "arm_cmn", "arm_cmn" },
		{ "hisi_sccl,ddrc", "hisi_sccl,ddrc" },
		{ "CPU-M-CF", "cpum_cf" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		assert_int_equal(pm_jevents_pmu(t[i][0], buf, sizeof(buf)), 0);
		assert_string_equal(buf, t[i][1]);
	}
}

/* perf_pmu__match_ignoring_suffix / pmu_uncore_alias_match / pmu__name_match */
static void test_pmu_match(void **state)
{
	(void)state;
	assert_true(pm_jevents_alias_match("uncore_cha", "uncore_cha_12"));
	assert_true(pm_jevents_alias_match("uncore_cha", "uncore_cha"));
	assert_true(pm_jevents_alias_match("uncore_imc", "uncore_imc3"));
	assert_false(pm_jevents_alias_match("uncore_imc", "uncore_imc_free_running_0"));
	assert_true(pm_jevents_alias_match("ali_drw", "ali_drw_40021000")); /* hex, > 2 digits */
	assert_false(pm_jevents_alias_match("cpum", "cpum_cf"));	    /* hex, 2 digits */
	assert_true(pm_jevents_alias_match("hisi_sccl,ddrc", "hisi_sccl1_ddrc0"));
	assert_false(pm_jevents_alias_match("hisi_sccl,ddrc", "hisi_sccl1_hha0"));
	/* perf steps past the name here (next token longer than what is left): no match */
	assert_false(pm_jevents_alias_match("ab,longertoken", "ab"));
	assert_true(pm_jevents_pmu_match("default_core", "armv8_pmuv3_0", false, true));
	assert_false(pm_jevents_pmu_match("default_core", "uncore_cha_0", true, false));
	assert_false(pm_jevents_pmu_match("uncore_cha", "uncore_cha_0", false, false));
	assert_true(pm_jevents_pmu_match("cpu", "cpu", false, true));
}

/* pmu_uncore_identifier_match: the whole identifier, from its start */
static void test_compat(void **state)
{
	const char *cmn = "(434|436|43c|43a).*";

	(void)state;
	assert_true(pm_jevents_compat_match(cmn, "43c01"));
	assert_true(pm_jevents_compat_match(cmn, "43401"));
	assert_true(pm_jevents_compat_match(cmn, "43a"));
	assert_false(pm_jevents_compat_match(cmn, "0434"));  /* found at 1: not anchored */
	assert_false(pm_jevents_compat_match(cmn, "43b01")); /* not in the list */
	assert_true(pm_jevents_compat_match("ali_drw_pmu", "ali_drw_pmu"));
	assert_false(pm_jevents_compat_match("ali_drw_pmu", "ali_drw_pmu2"));
	assert_false(pm_jevents_compat_match("(", "("));
}

/* arm64 strcmp_cpuid_str: the same part, a version at least the row's */
static void test_midr(void **state)
{
	(void)state;
	assert_true(pm_jevents_midr_match("0x00000000410fd490", "0x00000000410fd493"));
	assert_true(pm_jevents_midr_match("0x00000000410fd490", "0x00000000411fd490"));
	assert_false(pm_jevents_midr_match("0x00000000410fd490", "0x00000000410fd4f0"));
	assert_false(pm_jevents_midr_match("0x00000000411fd492", "0x00000000410fd493"));
	assert_false(pm_jevents_midr_match("0x00000000410fd492", "0x00000000410fd491"));
}

static void test_counting_terms(void **state)
{
	struct pm_strbuf b = { 0 };

	(void)state;
	assert_int_equal(pm_jevents_counting_terms("event=0xcd,period=2003,umask=1,ldlat=0x40", &b),
			 0);
	assert_string_equal(b.s, "event=0xcd,umask=1,ldlat=0x40");
	pm_strbuf__done(&b);
}

/* perf uses the first mapfile row that matches and has a table (map_for_cpu) */
static void test_first_row(void **state)
{
	static const char map[] = "Family-model,Version,Filename,EventType\n"
				  "GenuineIntel-6-8F,v1,a,core\n"
				  "GenuineIntel-6-[[:xdigit:]]+,v1,b,core\n";
	static const char a[] = "[{\"EventName\": \"A.EV\", \"EventCode\": \"0x1\"}]";
	static const char b[] = "[{\"EventName\": \"B.EV\", \"EventCode\": \"0x2\"}]";
	const struct pm_file f[] = {
		{ "t/x86/mapfile.csv", map, sizeof(map) - 1 },
		{ "t/x86/a/a.json", a, sizeof(a) - 1 },
		{ "t/x86/b/b.json", b, sizeof(b) - 1 },
	};
	struct pm_ctx_opts o = { .size = sizeof(o), .extra_files = f, .n_extra_files = 3 };
	struct pm_ctx *ctx = NULL;
	const struct pm_pmu *cpu = NULL;
	char dir[4096];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spr-1s", th_fixtures());
	o.root = dir;
	assert_int_equal(pm_ctx__new(&o, &ctx), 0);
	assert_int_equal(pm_ctx__discover(ctx), 0);
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->name, "cpu"))
			cpu = ctx->pmus[i];
	assert_non_null(cpu);
	assert_non_null(pm_pmu__find_alias(cpu, "a.ev"));
	assert_null(pm_pmu__find_alias(cpu, "b.ev"));
	pm_ctx__free(ctx);
}

/* ---- metrics: what perf's metricgroup code offers on each machine ----------------- */

/* A metric entry's name: its own, or (ArchStdEvent) the standard metric's. */
static char *metric_name(const char *path, json_t *e)
{
	const char *n = json_string_value(json_object_get(e, "MetricName"));
	json_t *std;
	char *r;

	if (n)
		return strdup(n);
	std = std_by(path, json_string_value(json_object_get(e, "ArchStdEvent")), "MetricName");
	r = strdup(json_string_value(json_object_get(std, "MetricName")));
	json_decref(std);
	return r;
}

/*
 * On fixture: every metric of the table directories perf selects (dirs; a sys
 * directory's only where compat is given and matches) is listed, nothing else
 * from perf's tree is, and each binds (pm_evlist__add_metrics) on the machine.
 */
static void check_metrics(const char *fixture, const char *const *dirs, size_t want_n, bool bind)
{
	struct pm_ctx *ctx = machine(fixture);
	size_t n = 0, listed = 0;

	for (size_t i = 0; i < n_files; i++) {
		bool in = false;
		json_t *arr, *e;
		size_t k;

		for (size_t d = 0; dirs[d]; d++)
			in |= strstr(files[i].path, dirs[d]) &&
			      !strchr(strstr(files[i].path, dirs[d]) + strlen(dirs[d]), '/');
		if (!in || !pm_str_has_suffix(files[i].path, ".json"))
			continue;
		arr = load(&files[i]);
		json_array_foreach(arr, k, e) {
			struct pm_evlist *l = NULL;
			struct pm_diag d;
			char *name;

			if (!is_metric(files[i].path, e))
				continue;
			name = metric_name(files[i].path, e);
			assert_non_null(pm_db__find_metric(ctx->db, name));
			pm_diag__init(&d);
			assert_int_equal(pm_evlist__new(ctx, &l), 0);
			if (bind && pm_evlist__add_metrics(l, name, &d) < 0)
				fail_msg("%s: metric %s does not bind: %s", fixture, name, d.msg);
			pm_evlist__free(l);
			free(name);
			n++;
		}
		json_decref(arr);
	}
	for (size_t i = 0; i < pm_ctx__metric_count(ctx); i++) {
		struct pm_metric_info mi;

		assert_int_equal(pm_ctx__metric(ctx, i, &mi), 0);
		if (!strncmp(mi.pack, "perf:", 5)) {
			assert_null(mi.unavailable);
			/* named from the arch on: "/x86/amdzen4/" is perf:x86/amdzen4 */
			assert_int_equal(strlen(mi.pack + 5), strlen(dirs[0]) - 2);
			assert_memory_equal(mi.pack + 5, dirs[0] + 1, strlen(dirs[0]) - 2);
			listed++;
		}
	}
	assert_int_equal(n, want_n);
	assert_int_equal(listed, n);
	pm_ctx__free(ctx);
}

static void test_metrics_attach(void **state)
{
	static const char *const spr[] = { "/x86/sapphirerapids/", NULL };
	static const char *const zen4[] = { "/x86/amdzen4/", NULL };
	static const char *const n2[] = { "/arm64/arm/neoverse-n2-v2/", NULL };
	static const char *const hy[] = { "/x86/pmumon-synthetic/", NULL };
	static const char *const yt[] = { "/arm64/thead/yitian710/sys/", NULL };

	(void)state;
	check_metrics("spr-1s", spr, 9, true);
	check_metrics("zen4-1s", zen4, 14, true);
	check_metrics("n2-cmn", n2, 14, true);
	check_metrics("yitian710-2die", yt, 2, true);
	/* msr@tsc\,cpu=cpu_core@: perf's cpu=PMU term (lib/resolve.c term_cpus) */
	check_metrics("hybrid-ff", hy, 1, true);
}

/* Hand counts for metric evaluation: event name -> count. */
struct count {
	const char *name;
	double v;
};

struct evalctx {
	struct pm_ctx *ctx;
	const struct count *counts;
	double vals[64];
	size_t n;
};

static double eval_metric(struct evalctx *c, const char *name);

static int resolve(const char *name, enum pm_expr_ref ref, void *ud)
{
	struct evalctx *c = ud;
	double v = NAN;
	char why[128];

	assert_true(c->n < PM_ARRAY_SIZE(c->vals));
	if (ref == PM_EXPR_LITERAL) {
		assert_int_equal(pm_literal__value(c->ctx, name, &v, why, sizeof(why)), 0);
	} else if (pm_db__find_metric(c->ctx->db, name)) {
		v = eval_metric(c, name); /* a metric of metrics: its value before ScaleUnit */
	} else {
		for (const struct count *k = c->counts; k->name && isnan(v); k++)
			if (!strcasecmp(k->name, name))
				v = k->v;
		if (isnan(v))
			fail_msg("no count given for '%s'", name);
	}
	c->vals[c->n] = v;
	return (int)c->n++;
}

/* The metric as perf computes it: its expression over the counts, then ×ScaleUnit. */
static double eval_metric(struct evalctx *c, const char *name)
{
	const struct pm_metric_def *m = pm_db__find_metric(c->ctx->db, name);
	struct pm_expr *e = NULL;
	struct evalctx sub = { .ctx = c->ctx, .counts = c->counts };
	struct pm_diag d;
	double v;

	assert_non_null(m);
	pm_diag__init(&d);
	if (pm_expr__compile(m->expr, resolve, &sub, &e, &d) < 0)
		fail_msg("%s: %s", name, d.msg);
	v = pm_expr__eval(e, sub.vals);
	pm_expr__free(e);
	return v;
}

static double shown(struct evalctx *c, const char *name)
{
	return eval_metric(c, name) * pm_db__find_metric(c->ctx->db, name)->scale;
}

/* perf's tma tree on Sapphire Rapids: three `100%` levels, the lower named in the upper. */
static void test_eval_spr_tma(void **state)
{
	static const struct count k[] = {
		{ "topdown-fe-bound", 300 },
		{ "topdown-bad-spec", 100 },
		{ "topdown-retiring", 400 },
		{ "topdown-be-bound", 200 },
		{ "topdown-fetch-lat", 180 },
		{ "INT_MISC.UOP_DROPPING", 2000 },
		{ "TOPDOWN.SLOTS", 100000 },
		{ "ICACHE_DATA.STALLS", 1500 },
		{ "CPU_CLK_UNHALTED.THREAD", 20000 },
		{ "INST_RETIRED.ANY", 30000 },
		{ NULL, 0 },
	};
	struct evalctx c = { .counts = k };
	/* by hand from the formula text: fe = 300/1000 - 2000/100000 = 0.28;
	 * fetch_lat = 180/1000 - 0.02 = 0.16; fetch_bw = max(0, 0.28 - 0.16) = 0.12 */
	double fe = 300.0 / 1000 - 2000.0 / 100000, lat = 180.0 / 1000 - 2000.0 / 100000;

	(void)state;
	c.ctx = machine("spr-1s");
	th_assert_near(shown(&c, "tma_frontend_bound"), 100 * fe, 1e-9);
	th_assert_near(shown(&c, "tma_fetch_latency"), 100 * lat, 1e-9);
	th_assert_near(shown(&c, "tma_fetch_bandwidth"), 100 * (fe - lat), 1e-9);
	th_assert_near(shown(&c, "tma_icache_misses"), 100 * 1500.0 / 20000, 1e-9);
	th_assert_near(shown(&c, "tma_info_thread_cpi"), 20000.0 / 30000, 1e-12);
	assert_string_equal(pm_db__find_metric(c.ctx->db, "tma_fetch_bandwidth")->unit, "%");
	pm_ctx__free(c.ctx);
}

/* Zen 4's pipeline tree: d_ratio over a metric, and a level-2 metric over a level-1 one. */
static void test_eval_zen4(void **state)
{
	static const struct count k[] = {
		{ "ls_not_halted_cyc", 1000 },
		{ "de_src_op_disp.all", 4000 },
		{ "ex_ret_ops", 3400 },
		{ "ex_ret_brn_misp", 30 },
		{ "resyncs_or_nc_redirects", 10 },
		{ NULL, 0 },
	};
	struct evalctx c = { .counts = k };
	double bad = (4000.0 - 3400) / (6 * 1000);

	(void)state;
	c.ctx = machine("zen4-1s");
	th_assert_near(shown(&c, "bad_speculation"), 100 * bad, 1e-9);
	th_assert_near(shown(&c, "bad_speculation_mispredicts"), 100 * bad * 30 / 40, 1e-9);
	pm_ctx__free(c.ctx);
}

/*
 * The hybrid metric: msr@tsc\,cpu=cpu_core@ binds to msr/tsc/ on cpu_core's CPUs
 * only (perf's cpu=PMU term), so it is the TSC of 4 CPUs, and the metric the
 * core type's utilised CPUs.
 */
static void test_eval_hybrid(void **state)
{
	static const struct count k[] = {
		{ "CPU_CLK_UNHALTED.REF", 6e9 },
		{ "msr@tsc,cpu=cpu_core@", 4 * 2e9 }, /* as expr.l unescapes the name */
		{ NULL, 0 },
	};
	struct evalctx c = { .counts = k };
	struct pm_evlist *l = NULL;
	struct pm_diag d;
	size_t msr = 0, n_msr = 0;
	char cpus[32];

	(void)state;
	c.ctx = machine("hybrid-ff");
	th_assert_near(shown(&c, "cpus_utilized_core"), 6e9 / 8e9, 1e-12);
	pm_diag__init(&d);
	assert_int_equal(pm_evlist__new(c.ctx, &l), 0);
	if (pm_evlist__add_metrics(l, "cpus_utilized_core", &d) < 0)
		fail_msg("%s", d.msg);
	for (size_t i = 0; i < l->n_ev; i++)
		if (strstr(l->ev[i].label, "msr/tsc")) {
			msr = i;
			n_msr++;
		}
	assert_int_equal(n_msr, 1);
	assert_string_equal(l->ev[msr].label, "msr/tsc,cpu=cpu_core/");
	assert_int_equal(pm_cpus__format(&l->ev[msr].cpus, cpus, sizeof(cpus)), 0);
	assert_string_equal(cpus, "0-3");
	pm_evlist__free(l);
	pm_ctx__free(c.ctx);
}

/* Neoverse N2: ArchStdEvent metrics (sbsa.json's names and ScaleUnit, N2's
 * MetricExpr, or all of sbsa's for BACKEND_BOUND), with #slots from caps/slots. */
static void test_eval_n2(void **state)
{
	static const struct count k[] = {
		{ "stall_slot_frontend", 2000 }, { "stall_slot_backend", 1500 },
		{ "stall_slot", 3500 },		 { "cpu_cycles", 1000 },
		{ "op_retired", 900 },		 { "op_spec", 1200 },
		{ "instructions", 1100 },	 { NULL, 0 },
	};
	struct evalctx c = { .counts = k };

	(void)state;
	c.ctx = machine("n2-cmn");
	/* #slots = 5: (#slots - 5) is 0, so N2's else branches */
	th_assert_near(shown(&c, "frontend_bound"), 100 * (2000.0 - 1000) / (5 * 1000), 1e-9);
	th_assert_near(shown(&c, "backend_bound"), 100 * 1500.0 / (5 * 1000), 1e-9);
	th_assert_near(shown(&c, "retiring"),
		       100 * (900.0 / 1200) * (1 - (3500.0 - 1000) / (5 * 1000)), 1e-9);
	th_assert_near(shown(&c, "ipc_rate"), 100 * (1100.0 / 1000) / 5, 1e-9);
	assert_string_equal(pm_db__find_metric(c.ctx->db, "frontend_bound")->groups,
			    "Default;TopdownL1");
	pm_ctx__free(c.ctx);
}

/* metric.py _FixEscapes(): the unescaped '=' of a hybrid name gets its backslash. */
static void test_perf_escapes(void **state)
{
	static const char *const t[][2] = {
		{ "a / msr@tsc\\,cpu=cpu_core@", "a / msr@tsc\\,cpu\\=cpu_core@" },
		{ "cpu@X\\,cmask\\=1@ + 2*y", "cpu@X\\,cmask\\=1@ + 2*y" },
		{ "#slots - 5", "#slots - 5" },
		{ "a if b else c", "a if b else c" },
	};

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		char *out = NULL;

		assert_int_equal(pm_expr__perf_escapes(t[i][0], &out), 0);
		assert_string_equal(out, t[i][1]);
		free(out);
	}
}

/* ---- the tree read lazily: only what the mapfile and sys/ select, to the same end ---- */

static char lazy_read[8192]; /* the paths read, one a line */

static int read_lazily(const char *path, char **ret_data, size_t *ret_len, void *userdata)
{
	size_t n = strlen(lazy_read);

	(void)userdata;
	for (size_t i = 0; i < n_files; i++)
		if (!strcmp(files[i].path, path)) {
			snprintf(lazy_read + n, sizeof(lazy_read) - n, "%s\n", path);
			*ret_data = malloc(files[i].len + 1);
			assert_non_null(*ret_data);
			memcpy(*ret_data, files[i].data, files[i].len);
			*ret_len = files[i].len;
			return 0;
		}
	return -ENOENT;
}

static struct pm_ctx *machine_lazy(const char *name)
{
	static struct pm_file names[MAX_FILES];
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .extra_files = names,
				 .n_extra_files = n_files,
				 .read_file = read_lazily,
				 .log_level = PM_LOG_DEBUG };
	struct pm_ctx *ctx = NULL;
	char dir[4096];

	for (size_t i = 0; i < n_files; i++)
		names[i] = (struct pm_file){ .path = files[i].path }; /* no data: read when needed */
	snprintf(dir, sizeof(dir), "%s/%s", th_fixtures(), name);
	o.root = dir;
	lazy_read[0] = '\0';
	assert_int_equal(pm_ctx__new(&o, &ctx), 0);
	assert_int_equal(pm_ctx__discover(ctx), 0);
	return ctx;
}

static void same_aliases(const struct pm_pmu *a, const struct pm_pmu *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->n_aliases, b->n_aliases);
	for (size_t i = 0; i < a->n_aliases; i++) {
		const struct pm_alias *x = &a->aliases[i], *y = &b->aliases[i];

		assert_string_equal(x->name, y->name);
		assert_string_equal(x->terms, y->terms);
		assert_string_equal(x->unit ? x->unit : "", y->unit ? y->unit : "");
		assert_true(x->scale == y->scale && x->per_pkg == y->per_pkg);
		assert_string_equal(x->origin, y->origin);
	}
}

/* Each fixture machine: the same events on the same PMUs and the same metrics whether
 * the tree is given in memory or read lazily; and the lazy load reads no other CPU's
 * directory. */
static void test_lazy_same(void **state)
{
	static const char *const m[][3] = {
		{ "spr-1s", "/sapphirerapids/", "amdzen4" },
		{ "hybrid-ff", "/pmumon-synthetic/", "sapphirerapids" },
		{ "zen4-1s", "/amdzen4/", "sapphirerapids" },
		{ "n2-cmn", "/neoverse-n2-v2/", "amdzen4" },
	};

	(void)state;
	for (size_t k = 0; k < PM_ARRAY_SIZE(m); k++) {
		struct pm_ctx *eager = machine(m[k][0]), *lazy = machine_lazy(m[k][0]);

		assert_int_equal(eager->n_pmus, lazy->n_pmus);
		for (size_t i = 0; i < eager->n_pmus; i++)
			same_aliases(eager->pmus[i], lazy->pmus[i]);
		assert_int_equal(pm_db__metric_count(eager->db), pm_db__metric_count(lazy->db));
		for (size_t i = 0; i < pm_db__metric_count(eager->db); i++)
			assert_string_equal(pm_db__metric(eager->db, i)->name,
					    pm_db__metric(lazy->db, i)->name);
		assert_string_equal(pm_db__matched_names(eager->db),
				    pm_db__matched_names(lazy->db));
		if (!strstr(lazy_read, m[k][1]) || strstr(lazy_read, m[k][2]))
			fail_msg("%s read:\n%s", m[k][0], lazy_read);
		pm_ctx__free(eager);
		pm_ctx__free(lazy);
	}
}

/* ---- errors name the file, line and column, and the field ---------------------------- */

static char err_log[8192];

static void err_capture(enum pm_log_level level, const char *msg, void *userdata)
{
	size_t n = strlen(err_log);

	(void)userdata;
	if (level == PM_LOG_WARN)
		snprintf(err_log + n, sizeof(err_log) - n, "%s\n", msg);
}

static struct pm_ctx *machine_with(const char *fixture, const struct pm_file *f, size_t n)
{
	struct pm_ctx_opts o = { .size = sizeof(o),
				 .extra_files = f,
				 .n_extra_files = n,
				 .log_fn = err_capture,
				 .log_level = PM_LOG_WARN };
	struct pm_ctx *ctx = NULL;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s", th_fixtures(), fixture);
	o.root = dir;
	err_log[0] = '\0';
	assert_int_equal(pm_ctx__new(&o, &ctx), 0);
	assert_int_equal(pm_ctx__discover(ctx), 0);
	return ctx;
}

static const struct pm_pmu *pmu_named(struct pm_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->name, name))
			return ctx->pmus[i];
	fail_msg("no PMU %s", name);
	return NULL;
}

static struct pm_ctx *spr_with(const struct pm_file *f, size_t n)
{
	return machine_with("spr-1s", f, n);
}

#define MAP "Family-model,Version,Filename,EventType\nGenuineIntel-6-8F,v1,a,core\n"
#define LOGGED(s)                                                           \
	do {                                                                \
		if (!strstr(err_log, (s)))                                  \
			fail_msg("not logged: %s\nlog:\n%s", (s), err_log); \
	} while (0)

static void test_errors_located(void **state)
{
	static const char ev[] = "[{\"EventName\": \"A.EV\", \"EventCode\": \"0x1\"},\n"
				 " {\"EventName\": \"B.EV\",\n"
				 "  \"UMask\": \"0xzz\"},\n"
				 " {\"EventCode\": \"0x3\"}]";
	/* "a +\u0020* b" is "a + * b": the '*' is the 10th character of the JSON string */
	static const char mx[] = "[{\"MetricName\": \"m1\",\n"
				 "  \"MetricExpr\": \"a +\\u0020* b\"}]";
	static const char obj[] = "\n  {\"EventName\": \"O.EV\", \"EventCode\": \"0x4\"}";
	static const char dup[] = "[{\"EventName\": \"D.EV\",\n"
				  "  \"EventCode\": \"0x1\",\n"
				  "  \"EventCode\": \"0x2\"}]";
	const struct pm_file f[] = {
		{ "my/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "my/x86/a/ev.json", ev, sizeof(ev) - 1 },
		{ "my/x86/a/mx.json", mx, sizeof(mx) - 1 },
		{ "my/x86/a/obj.json", obj, sizeof(obj) - 1 },
		{ "my/x86/a/dup.json", dup, sizeof(dup) - 1 },
	};
	struct pm_ctx *ctx;
	const struct pm_pmu *cpu;

	(void)state;
	ctx = spr_with(f, PM_ARRAY_SIZE(f));
	cpu = pmu_named(ctx, "cpu");
	/* the entry's key at fault, at its value */
	LOGGED("my/x86/a/ev.json:3:12: event 'B.EV' (entry 1): UMask '0xzz' is not a value "
	       "jevents.py takes; ignoring it");
	LOGGED("my/x86/a/ev.json:4:2: entry 2 is neither an event (EventName, ArchStdEvent) nor "
	       "a metric (MetricName); ignoring it");
	assert_non_null(pm_pmu__find_alias(cpu, "a.ev"));
	assert_null(pm_pmu__find_alias(cpu, "b.ev"));
	/* the expression's error at its character in the file */
	LOGGED("my/x86/a/mx.json:2:27: metric 'm1': MetricExpr: ");
	assert_null(pm_db__find_metric(ctx->db, "m1"));
	/* an object where the entries' array belongs: said, not silently nothing */
	LOGGED("my/x86/a/obj.json:2:3: the top level is an object where an array of entries is "
	       "expected; ignoring the file");
	assert_null(pm_pmu__find_alias(cpu, "o.ev"));
	/* a key given twice: the last value, as perf's jevents.py (Python's json) keeps */
	LOGGED("my/x86/a/dup.json:3:3: duplicate object key");
	LOGGED("the last value is used, as perf does");
	assert_non_null(pm_pmu__find_alias(cpu, "d.ev"));
	assert_string_equal(pm_pmu__find_alias(cpu, "d.ev")->terms, "event=2");
	pm_ctx__free(ctx);
}

/* A malformed file is named with the line and column jansson gives; an unknown MSRIndex
 * and an ArchStdEvent no arch file has name their key. */
static void test_errors_more(void **state)
{
	static const char bad[] = "[{\"EventName\": \"X\",\n  \"EventCode\": }]";
	static const char msr[] = "[{\"EventName\": \"M.EV\", \"EventCode\": \"0x1\",\n"
				  "  \"MSRIndex\": \"0x123\", \"MSRValue\": \"0x1\"},\n"
				  " {\"ArchStdEvent\": \"NO_SUCH\"}]";
	const struct pm_file f[] = {
		{ "my/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "my/x86/a/bad.json", bad, sizeof(bad) - 1 },
		{ "my/x86/a/msr.json", msr, sizeof(msr) - 1 },
	};
	struct pm_ctx *ctx;

	(void)state;
	ctx = spr_with(f, PM_ARRAY_SIZE(f));
	LOGGED("my/x86/a/bad.json:2:16: malformed JSON: ");
	LOGGED("my/x86/a/msr.json:2:15: event 'M.EV' (entry 0): MSRIndex '0x123' is not a value "
	       "jevents.py takes");
	LOGGED("my/x86/a/msr.json:3:19: event 'NO_SUCH' (entry 1): ArchStdEvent 'NO_SUCH' is in "
	       "none of the arch's files");
	pm_ctx__free(ctx);
}

/* An entry with an EventName and a MetricName is both, as jevents.py makes it (Intel's
 * uncore LLC_MISSES.PCIE_READ in skylakex/uncore-io.json, 6.12). */
static void test_event_and_metric(void **state)
{
	static const char both[] = "[{\"EventName\": \"X.BOTH\", \"EventCode\": \"0x83\",\n"
				   "  \"MetricName\": \"X.BOTH\", \"MetricExpr\": \"x.both * 4\"}]";
	const struct pm_file f[] = {
		{ "my/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "my/x86/a/both.json", both, sizeof(both) - 1 },
	};
	const struct pm_alias *al;
	struct pm_ctx *ctx;

	(void)state;
	ctx = spr_with(f, PM_ARRAY_SIZE(f));
	al = pm_pmu__find_alias(pmu_named(ctx, "cpu"), "x.both");
	assert_non_null(al);
	assert_string_equal(al->terms, "event=0x83");
	assert_non_null(pm_db__find_metric(ctx->db, "X.BOTH"));
	pm_ctx__free(ctx);
}

/* -M NAME on a hybrid binds the pair, each on its PMU and named with it, as perf computes
 * each (before: the last definition alone, under the bare name). */
static void test_hybrid_metric_pair_binds(void **state)
{
	static const char map[] = "Family-model,Version,Filename,EventType\n"
				  "GenuineIntel-6-FF,v1,h,core\n";
	static const char ev[] = "[{\"EventName\": \"A.EV\", \"EventCode\": \"0x1\"},\n"
				 " {\"EventName\": \"B.EV\", \"EventCode\": \"0x2\"}]";
	static const char m[] =
		"[{\"MetricName\": \"IpX\", \"MetricExpr\": \"a.ev / b.ev\", \"Unit\": \"cpu_core\"},\n"
		" {\"MetricName\": \"IpX\", \"MetricExpr\": \"a.ev\", \"Unit\": \"cpu_atom\"},\n"
		" {\"MetricName\": \"InvX\", \"MetricExpr\": \"1 / IpX\", \"Unit\": \"cpu_core\"},\n"
		" {\"MetricName\": \"InvX\", \"MetricExpr\": \"1 / IpX\", \"Unit\": \"cpu_atom\"}]";
	const struct pm_file f[] = {
		{ "my/x86/mapfile.csv", map, sizeof(map) - 1 },
		{ "my/x86/h/ev.json", ev, sizeof(ev) - 1 },
		{ "my/x86/h/m.json", m, sizeof(m) - 1 },
	};
	struct pm_evlist *l = NULL;
	struct pm_ctx *ctx;
	struct pm_diag d;
	char labels[128] = "";

	(void)state;
	ctx = machine_with("hybrid-ff", f, PM_ARRAY_SIZE(f));
	pm_diag__init(&d);
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	if (pm_evlist__add_metrics(l, "IpX", &d) < 0)
		fail_msg("IpX: %s", d.msg);
	assert_int_equal(l->n_metrics, 2);
	for (size_t i = 0; i < l->n_metrics; i++) {
		assert_non_null(l->metrics[i].label);
		strcat(labels, l->metrics[i].label);
		strcat(labels, ";");
	}
	assert_string_equal(labels, "IpX (cpu_core);IpX (cpu_atom);");
	/* each on its own PMU: cpu_core's a.ev and b.ev, cpu_atom's a.ev */
	assert_int_equal(l->n_ev, 3);
	assert_string_equal(l->ev[0].spec, "cpu_core/a.ev/");
	assert_string_equal(l->ev[2].spec, "cpu_atom/a.ev/");
	pm_evlist__free(l);
	/* a metric of metrics takes its own PMU's: cpu_core's InvX of cpu_core's IpX */
	assert_int_equal(pm_evlist__new(ctx, &l), 0);
	if (pm_evlist__add_metrics(l, "InvX", &d) < 0)
		fail_msg("InvX: %s", d.msg);
	assert_int_equal(l->n_metrics, 4);
	for (size_t i = 0; i < l->n_metrics; i++)
		for (size_t k = 0; k < l->metrics[i].n_slots; k++)
			if (l->metrics[i].slots[k].kind == PM_SLOT_METRIC)
				assert_string_equal(l->metrics[l->metrics[i].slots[k].idx]
							    .def->family,
						    l->metrics[i].def->family);
	pm_evlist__free(l);
	pm_ctx__free(ctx);
}

/* Two trees (--events-dir old --events-dir new) with the same CPU directory: both load,
 * the later's metric counts and the earlier's is listed as replaced. */
static void test_two_trees(void **state)
{
	static const char m1[] = "[{\"MetricName\": \"m_x\", \"MetricExpr\": \"1\"}]";
	static const char m2[] = "[{\"MetricName\": \"m_x\", \"MetricExpr\": \"2\"}]";
	/* 6.12's counter.json: counter numbers, no event: read past without a word */
	static const char cnt[] = "[{\"Unit\": \"core\", \"CountersNumFixed\": \"4\", "
				  "\"CountersNumGeneric\": \"8\"}]";
	const struct pm_file f[] = {
		{ "old/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "old/x86/a/m.json", m1, sizeof(m1) - 1 },
		{ "new/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "new/x86/a/m.json", m2, sizeof(m2) - 1 },
		{ "new/x86/a/counter.json", cnt, sizeof(cnt) - 1 },
	};
	struct pm_ctx *ctx;
	size_t seen = 0, replaced = 0;

	(void)state;
	ctx = spr_with(f, PM_ARRAY_SIZE(f));
	assert_string_equal(pm_db__find_metric(ctx->db, "m_x")->expr, "2");
	for (size_t i = 0; i < pm_ctx__metric_count(ctx); i++) {
		struct pm_metric_info mi;

		assert_int_equal(pm_ctx__metric(ctx, i, &mi), 0);
		if (strcmp(mi.name, "m_x"))
			continue;
		seen++;
		replaced += mi.unavailable && strstr(mi.unavailable, "replaced") &&
			    !strcmp(mi.expr, "1");
	}
	assert_int_equal(seen, 2);
	assert_int_equal(replaced, 1);
	assert_null(strstr(err_log, "counter.json"));
	pm_ctx__free(ctx);
}

/* One file's metric name twice, once per core PMU of a hybrid (perf's alderlake: IpCall
 * for cpu_core and cpu_atom): neither is "replaced" (linux-source-6.1's tree, tests/tree). */
static void test_hybrid_metric_pair(void **state)
{
	static const char m[] =
		"[{\"MetricName\": \"IpX\", \"MetricExpr\": \"a.ev / b.ev\", \"Unit\": \"cpu_core\"},\n"
		" {\"MetricName\": \"IpX\", \"MetricExpr\": \"a.ev\", \"Unit\": \"cpu_atom\"}]";
	const struct pm_file f[] = {
		{ "my/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "my/x86/a/m.json", m, sizeof(m) - 1 },
	};
	struct pm_ctx *ctx;
	size_t seen = 0;

	(void)state;
	ctx = spr_with(f, PM_ARRAY_SIZE(f));
	for (size_t i = 0; i < pm_ctx__metric_count(ctx); i++) {
		struct pm_metric_info mi;

		assert_int_equal(pm_ctx__metric(ctx, i, &mi), 0);
		if (strcmp(mi.name, "IpX"))
			continue;
		if (mi.unavailable && strstr(mi.unavailable, "replaced"))
			fail_msg("IpX (%s): %s", mi.expr, mi.unavailable);
		seen++;
	}
	assert_int_equal(seen, 2);
	pm_ctx__free(ctx);
}

/*
 * A perf file whose event the kernel's sysfs also names: the kernel's encoding
 * counts, the same event spelt differently says nothing, a different one is
 * said once (not once per ali_drw instance), naming both.
 */
static void test_sysfs_encoding_differs(void **state)
{
	static const char ev[] =
		"[{\"EventName\": \"hif_rd\", \"ConfigCode\": \"0x5\", \"Unit\": \"ali_drw\",\n"
		"  \"Compat\": \"ali_drw_pmu\"},\n"
		" {\"EventName\": \"hif_wr\", \"ConfigCode\": \"0x01\", \"Unit\": \"ali_drw\",\n"
		"  \"Compat\": \"ali_drw_pmu\"}]";
	const struct pm_file f[] = { { "my/arm64/t/yt/sys/drw.json", ev, sizeof(ev) - 1 } };
	struct pm_ctx *ctx;
	const struct pm_pmu *drw;
	const char *at;

	(void)state;
	ctx = machine_with("yitian710-2die", f, PM_ARRAY_SIZE(f));
	drw = pmu_named(ctx, "ali_drw_21000");
	LOGGED("my/arm64/t/yt/sys/drw.json:1:16: event 'hif_rd' is 'config=5' in this file but "
	       "'config=0x2' in the kernel's sysfs for ali_drw_21000; counting the kernel's "
	       "(perf would count the file's)");
	at = strstr(err_log, "event 'hif_rd'");
	assert_null(strstr(at + 1, "event 'hif_rd'"));
	assert_null(strstr(err_log, "hif_wr"));
	assert_string_equal(pm_pmu__find_alias(drw, "hif_rd")->terms, "config=0x2");
	pm_ctx__free(ctx);
}

/* The same event spelt through other terms is the same (compared as the config words the
 * PMU's formats make): SPR's sysfs slots is event=0x00,umask=0x4, config 0x400. */
static void test_sysfs_encoding_same_words(void **state)
{
	static const char ev[] =
		"[{\"EventName\": \"slots\", \"ConfigCode\": \"0x400\"},\n"
		" {\"EventName\": \"topdown-retiring\", \"ConfigCode\": \"0x8001\"}]";
	const struct pm_file f[] = {
		{ "my/x86/mapfile.csv", MAP, sizeof(MAP) - 1 },
		{ "my/x86/a/t.json", ev, sizeof(ev) - 1 },
	};
	struct pm_ctx *ctx;

	(void)state;
	ctx = spr_with(f, PM_ARRAY_SIZE(f));
	assert_null(strstr(err_log, "event 'slots'"));
	LOGGED("event 'topdown-retiring' is 'config=0x8001' in this file but "
	       "'event=0x00,umask=0x80' in the kernel's sysfs for cpu");
	pm_ctx__free(ctx);
}

/* db/jsonpos.c: where a value is in the text */
static void test_jsonpos(void **state)
{
	static const struct {
		const char *text;
		size_t index;
		const char *key;
		int r;
		size_t off;
	} t[] = {
		{ "[1, 2]", 1, NULL, 0, 4 },
		{ " [ {\"a\": 1} , {\"a\": [1, {\"b\": 2}], \"b\": \"x,]\"} ]", 1, "b", 0, 40 },
		{ "[{\"a\": 1, \"a\": 2}]", 0, "a", 0, 15 }, /* the last, as jansson keeps */
		{ "[{\"a\": 1}]", 0, "b", -ENOENT, 0 },
		{ "[{\"a\": 1}]", 1, NULL, -ENOENT, 0 },
		{ "{\"a\": 1}", 0, "a", 0, 6 }, /* no array: the top value is entry 0 */
		{ "[\"\\\"]\", 3]", 1, NULL, 0, 8 },
		{ "[{\"a\": ", 0, "a", -ENOENT, 0 },
		{ "", 0, NULL, -ENOENT, 0 },
	};
	const char *js = "\"a\\\\b\\u00e9c\\ud83d\\ude00d\"";
	size_t off = 0;
	int line, col;

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		off = 0;
		assert_int_equal(pm_json_locate(t[i].text, strlen(t[i].text), t[i].index, t[i].key,
						&off),
				 t[i].r);
		if (t[i].r == 0 && off != t[i].off)
			fail_msg("%s: %zu, want %zu", t[i].text, off, t[i].off);
	}
	/* decoded a\b (3) é (2) c (1) U+1F600 (4) d: the raw offsets of each */
	assert_int_equal(pm_json_string_pos(js, strlen(js), 0, 0), 1);
	assert_int_equal(pm_json_string_pos(js, strlen(js), 0, 2), 4);
	assert_int_equal(pm_json_string_pos(js, strlen(js), 0, 5), 11);
	assert_int_equal(pm_json_string_pos(js, strlen(js), 0, 6), 12);
	assert_int_equal(pm_json_string_pos(js, strlen(js), 0, 10), 24);
	assert_int_equal(pm_json_string_pos(js, strlen(js), 0, 99), 25); /* the closing quote */
	pm_json_line_col("ab\n\xc3\xa9x", 6, 5, &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 2); /* é is one column, as jansson counts */
}

/* The fast reader (db/jsonflat.c) against jansson on one text: the same value or
 * none (then jansson decides). Returns whether it took the text. */
static bool flat_same(const char *text, size_t len, const char *what)
{
	json_t *flat = pm_json_flat_load(text, len);
	json_t *ref = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);

	if (flat && (!ref || !json_equal(flat, ref)))
		fail_msg("%s: the fast reader differs from jansson", what);
	json_decref(flat);
	json_decref(ref);
	return flat != NULL;
}

static int flat_corpus_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char *text;
	size_t len;

	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	text = slurp(path, &len);
	flat_same(text, len, path);
	free(text);
	return 0;
}

/* Every committed perf file reads to jansson's value, and (being plain ASCII
 * arrays of string fields) by the fast path; so does the fuzz corpus, or is declined. */
static void test_jsonflat_same(void **state)
{
	static const char *const declined[] = {
		"[{\"a\":\"b\",\"a\":\"c\"}]",
		"[{\"a\":\"b\"}] x",
		"[{\"a\":1}]",
		"[{\"a\":\"\\u00b5\"}]",
		"[{\"a\":\"b\"},]",
		"{\"a\":\"b\"}",
		"[{\"a\":\"b",
		"[{\"a\":\"b\tc\"}]",
		"[{\"a\":\"\\x\"}]",
		"[{\"a\" \"b\"}]",
		"",
	};
	const char *esc = " [ {\"a\" : \"x\\\"\\\\\\/\\n\" } , { } ] \n";
	char dir[4096];
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < n_files; i++) {
		if (!pm_str_has_suffix(files[i].path, ".json"))
			continue;
		assert_true(flat_same(files[i].data, files[i].len, files[i].path));
		n++;
	}
	assert_true(n > 10);
	for (size_t i = 0; i < PM_ARRAY_SIZE(declined); i++)
		assert_false(flat_same(declined[i], strlen(declined[i]), declined[i]));
	assert_true(flat_same(esc, strlen(esc), esc));
	snprintf(dir, sizeof(dir), "%s/fuzz/corpus", getenv("PMUMON_SOURCE_ROOT"));
	assert_int_equal(nftw(dir, flat_corpus_file, 8, FTW_PHYS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_to_pmu),
		cmocka_unit_test(test_pmu_match),
		cmocka_unit_test(test_compat),
		cmocka_unit_test(test_midr),
		cmocka_unit_test(test_counting_terms),
		cmocka_unit_test(test_encode_as_jevents),
		cmocka_unit_test(test_spr),
		cmocka_unit_test(test_hybrid_units),
		cmocka_unit_test(test_eval_hybrid),
		cmocka_unit_test(test_zen4),
		cmocka_unit_test(test_n2_cmn),
		cmocka_unit_test(test_yitian_sys),
		cmocka_unit_test(test_first_row),
		cmocka_unit_test(test_metrics_attach),
		cmocka_unit_test(test_eval_spr_tma),
		cmocka_unit_test(test_eval_zen4),
		cmocka_unit_test(test_eval_n2),
		cmocka_unit_test(test_perf_escapes),
		cmocka_unit_test(test_jsonpos),
		cmocka_unit_test(test_lazy_same),
		cmocka_unit_test(test_jsonflat_same),
		cmocka_unit_test(test_errors_located),
		cmocka_unit_test(test_errors_more),
		cmocka_unit_test(test_sysfs_encoding_differs),
		cmocka_unit_test(test_sysfs_encoding_same_words),
		cmocka_unit_test(test_event_and_metric),
		cmocka_unit_test(test_hybrid_metric_pair),
		cmocka_unit_test(test_two_trees),
		cmocka_unit_test(test_hybrid_metric_pair_binds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
