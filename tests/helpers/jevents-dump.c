// SPDX-License-Identifier: GPL-2.0-only
/*
 * jevents-dump ARCH_DIR...: what pmumon makes of every entry of a whole perf
 * pmu-events tree, in the form tests/data/pmu-events/gen-expected.py reads
 * out of jevents.py's generated C, so tests/tree/test_perf_tree.py can set
 * the two side by side for every file of a kernel's tree:
 *
 *   E <TAB> TABLE <TAB> PMU <TAB> NAME <TAB> EVENT     one per event
 *   M <TAB> TABLE <TAB> NAME <TAB> ok|ERROR            one per metric
 *
 * TABLE is jevents' table name (pmu_events__amdzen5), NAME lowercase as
 * jevents writes it. Entries are told apart and ArchStdEvent entries
 * completed as lib/db/pack.c load_perf_json does (MetricName, own or the
 * standard entry's: a metric; EventName: an event, so an entry may be
 * both, as in jevents.py); the standard entries are the
 * JSON files directly in ARCH_DIR, keyed by EventName and MetricName.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "db/jevents.h"
#include "metric/expr.h"
#include "util/util.h"

static json_t *stds;	 /* the arch's standard entries by lowercase name */
static const char *arch; /* the ARCH_DIR being walked */
static size_t arch_len;
static unsigned long bad; /* entries pmumon could not encode */

static json_t *load(const char *path)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);

	if (!j || !json_is_array(j)) {
		fprintf(stderr, "%s:%d:%d: %s\n", path, err.line, err.column,
			j ? "not an array" : err.text);
		json_decref(j);
		return NULL;
	}
	return j;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void lower(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
}

static json_t *std_of(json_t *e)
{
	char low[256];

	if (!jstr(e, "ArchStdEvent"))
		return NULL;
	lower(jstr(e, "ArchStdEvent"), low, sizeof(low));
	return json_object_get(stds, low);
}

static const char *field(json_t *e, json_t *std, const char *key)
{
	return jstr(e, key) ? jstr(e, key) : std ? jstr(std, key) : NULL;
}

static int add_std(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	json_t *arr, *e;
	size_t i;

	(void)st;
	if (type != FTW_F || ftw->level != 1 || !pm_str_has_suffix(path, ".json"))
		return 0;
	arr = load(path);
	json_array_foreach(arr, i, e) {
		char low[256];

		/* jevents.py keys standard entries by both names (preprocess_arch_std_files) */
		if (jstr(e, "EventName")) {
			lower(jstr(e, "EventName"), low, sizeof(low));
			json_object_set(stds, low, e);
		}
		if (jstr(e, "MetricName")) {
			lower(jstr(e, "MetricName"), low, sizeof(low));
			json_object_set(stds, low, e);
		}
	}
	json_decref(arr);
	return 0;
}

static void metric(const char *table, json_t *e, json_t *std)
{
	const char *expr = field(e, std, "MetricExpr");
	char low[256], *fixed = NULL;
	struct pm_diag d;

	lower(field(e, std, "MetricName"), low, sizeof(low));
	pm_diag__init(&d);
	if (!expr || pm_expr__perf_escapes(expr, &fixed) < 0 || pm_expr__check(fixed, &d) < 0)
		printf("M\t%s\t%s\tERROR %s\n", table, low, expr ? d.msg : "no MetricExpr");
	else
		printf("M\t%s\t%s\tok\n", table, low);
	free(fixed);
}

static int dump_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char table[512], *c;
	const char *below = path + arch_len + 1, *slash = strrchr(path, '/');
	json_t *arr, *e;
	size_t i;

	(void)st;
	/* jevents.py reads every .json below the arch's own files, metricgroups.json aside */
	if (type != FTW_F || ftw->level < 2 || !pm_str_has_suffix(path, ".json") ||
	    !strcmp(slash, "/metricgroups.json"))
		return 0;
	snprintf(table, sizeof(table), "pmu_events__%.*s", (int)(slash - below), below);
	for (c = table; *c; c++)
		if (*c == '/' || *c == '-')
			*c = '_';
	arr = load(path);
	json_array_foreach(arr, i, e) {
		json_t *std = std_of(e);
		const char *name = field(e, std, "EventName");
		struct pm_strbuf b = { 0 };
		char unit[128], low[256];

		/* a metric, an event, or both (an EventName and a MetricName) */
		if (field(e, std, "MetricName"))
			metric(table, e, std);
		if (!name)
			continue;
		lower(name, low, sizeof(low));
		if (pm_jevents_event(e, std, &b, NULL) < 0 ||
		    pm_jevents_pmu(jstr(e, "Unit"), unit, sizeof(unit)) < 0) {
			printf("E\t%s\t?\t%s\tERROR\n", table, low);
			bad++;
		} else {
			printf("E\t%s\t%s\t%s\t%s\n", table, unit, low, b.s ? b.s : "");
		}
		pm_strbuf__done(&b);
	}
	json_decref(arr);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: jevents-dump ARCH_DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		arch = argv[i];
		arch_len = strlen(arch);
		while (arch_len > 1 && arch[arch_len - 1] == '/')
			arch_len--;
		stds = json_object();
		if (!stds || nftw(arch, add_std, 16, FTW_PHYS) < 0 ||
		    nftw(arch, dump_file, 16, FTW_PHYS) < 0) {
			perror(arch);
			return 1;
		}
		json_decref(stds);
	}
	fprintf(stderr, "jevents-dump: %lu entries pmumon could not encode\n", bad);
	return 0;
}
