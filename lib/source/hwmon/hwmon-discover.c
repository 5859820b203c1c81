// SPDX-License-Identifier: GPL-2.0-only
/*
 * Discovery of BlueField's mlxbf-pmc blocks (kernel-facts §2): every hwmon
 * device whose `name` reads `bfperf` (never assume its number, §2.1), and
 * in it every block directory, as a PMU "bfperf/<block>":
 *
 *  - its kind, from its files (§2.3): `event_list` means eventN/counterN
 *    pairs; with `count_clock`, or `enable` on a block whose name has no
 *    "l3cache", it is CRSPACE; `enable` on an l3cache block is the L3 path;
 *    no `event_list` means a REGISTER block with one file per statistic;
 *  - its counters: how many eventN files it has (ACPI decides, §2.3);
 *  - its width (§2.6): COUNTER 64, l3cache 57, CRSPACE 32 bits; registers
 *    32 bits in `ecc` and `clock_measure`, 64 in the others (pcie);
 *  - its events: `event_list` lines "0x45: HNF_REQUESTS" (§2.4) as aliases
 *    event=0x45, or the register files as reg=INDEX;
 *  - its identifier: the ACPI HID from device/modalias (MLNXBFD1 = BF-2,
 *    MLNXBFD2 = BF-3, §2.1), which the bluefield pack's tables match.
 *
 * `event_list` stops before PAGE_SIZE (§2.4): on BlueField-3 the mss and
 * llt tables are cut. Such a list is marked truncated; the pack's copy of
 * the table adds the events it lacks (db/pack.c: sysfs first, then packs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "pmu.h"
#include "source/format.h"
#include "source/hwmon/hwmon.h"
#include "topo.h"
#include "util/util.h"

#define HWMON_CLASS "sys/class/hwmon"
#define EVENT_LIST_MAX 8192
#define PAGE_SIZE 4096
#define LONGEST_LINE 64 /* "0x%x: %s\n" with the longest name of any table, and room */

const char *pm_hwmon_kind_name(enum pm_hwmon_kind kind)
{
	static const char *const names[] = {
		[PM_HWMON_COUNTER] = "counter",
		[PM_HWMON_L3CACHE] = "l3cache",
		[PM_HWMON_CRSPACE] = "crspace",
		[PM_HWMON_REGISTER] = "register",
	};

	return names[kind];
}

void pm_hwmon_block__free(struct pm_hwmon_block *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_regs; i++)
		free(b->regs[i]);
	free(b->regs);
	free(b->dir);
	free(b);
}

/* A PMU's priv_free: its block. */
static void block_free(void *b)
{
	pm_hwmon_block__free(b);
}

static bool has_file(struct pm_ctx *ctx, const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return pm_path_exists(ctx, path);
}

static bool code_listed(const struct pm_pmu *p, const char *terms)
{
	for (size_t i = 0; i < p->n_aliases; i++)
		if (!strcmp(p->aliases[i].terms, terms))
			return true;
	return false;
}

/* "0x45: HNF_REQUESTS" lines into aliases event=0x45. */
static int add_event_list(struct pm_ctx *ctx, struct pm_pmu *p, const char *dir)
{
	char path[512], *buf = malloc(EVENT_LIST_MAX), *line, *save = NULL;
	ssize_t n;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/event_list", dir);
	n = pm_read_file(ctx, path, buf, EVENT_LIST_MAX);
	if (n < 0) {
		pm_log(ctx, PM_LOG_WARN, "cannot read '%s': %s; %s has no events", path,
		       strerror((int)-n), p->name);
		free(buf);
		return 0;
	}
	pm_hwmon__block(p)->truncated = (size_t)n + LONGEST_LINE >= PAGE_SIZE;
	for (line = strtok_r(buf, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), terms[32];
		uint64_t code;

		if (!colon || pm_parse_u64(line, (size_t)(colon - line), 16, &code) < 0 ||
		    code > UINT32_MAX || colon[1] != ' ' || !colon[2]) {
			pm_log(ctx, PM_LOG_WARN,
			       "malformed line in '%s': '%s' (expected '0x45: NAME'), ignoring it",
			       path, line);
			continue;
		}
		/* kernels before f13bce715d16 list some llt_miss names with a trailing space */
		pm_rtrim(colon + 2);
		snprintf(terms, sizeof(terms), "event=0x%llx", (unsigned long long)code);
		if (code_listed(p, terms)) {
			/* kernels before 173bbec6693f list llt code 103 twice (kernel-facts
			 * §2.2): the second name is the pack's to give its real code */
			pm_log(ctx, PM_LOG_WARN,
			       "%s: event_list gives code 0x%llx twice; '%s' is left to the "
			       "platform pack",
			       p->name, (unsigned long long)code, colon + 2);
			continue;
		}
		r = pm_pmu__add_alias(p, &(struct pm_alias){ .name = colon + 2,
							     .terms = terms,
							     .scale = 1.0,
							     .origin = "sysfs" });
	}
	free(buf);
	if (r == 0 && pm_hwmon__block(p)->truncated)
		pm_log(ctx, PM_LOG_INFO,
		       "%s: event_list is cut at 4 KiB (kernel-facts §2.4); the rest of its table "
		       "comes from the platform pack",
		       p->name);
	return r;
}

/* A register block: one statistic per file, reg=i. */
static int add_registers(struct pm_ctx *ctx, struct pm_pmu *p, const char *dir)
{
	struct pm_hwmon_block *b = pm_hwmon__block(p);
	struct pm_names files, dirs;
	int r = pm_list_names(ctx, dir, false, NULL, &files);

	if (r < 0)
		return r;
	r = pm_list_names(ctx, dir, true, NULL, &dirs);
	if (r < 0) {
		pm_names__done(&files);
		return r;
	}
	for (size_t i = 0; i < files.n && r == 0; i++) {
		char terms[32];
		bool is_dir = false;

		for (size_t j = 0; j < dirs.n && !is_dir; j++)
			is_dir = !strcmp(dirs.name[j], files.name[i]);
		if (is_dir)
			continue;
		r = pm_grow((void **)&b->regs, &b->cap_regs, b->n_regs + 1, sizeof(*b->regs));
		if (r < 0)
			break;
		b->regs[b->n_regs] = strdup(files.name[i]);
		if (!b->regs[b->n_regs]) {
			r = -ENOMEM;
			break;
		}
		snprintf(terms, sizeof(terms), "reg=%zu", b->n_regs++);
		/* statistics count (*_CNT, DRAM_ECC_COUNT); the rest are values: clock
		 * measurements, ecc injection and error-address registers */
		r = pm_pmu__add_alias(p, &(struct pm_alias){
						 .name = files.name[i],
						 .terms = terms,
						 .scale = 1.0,
						 .snapshot = !pm_str_has_suffix(files.name[i],
										"_CNT") &&
							     !pm_str_has_suffix(files.name[i],
										"_COUNT"),
						 .origin = "sysfs" });
	}
	pm_names__done(&files);
	pm_names__done(&dirs);
	return r;
}

static unsigned count_counters(struct pm_ctx *ctx, const char *dir)
{
	unsigned n = 0;

	while (n < 1024) {
		char name[32];

		snprintf(name, sizeof(name), "event%u", n);
		if (!has_file(ctx, dir, name))
			break;
		n++;
	}
	return n;
}

static int add_block(struct pm_ctx *ctx, const char *dev, const char *hid, const char *block)
{
	struct pm_hwmon_block *b;
	struct pm_pmu *p = NULL;
	char name[160], family[160];
	size_t len;
	int r;

	snprintf(name, sizeof(name), "bfperf/%s", block);
	for (size_t i = 0; i < ctx->n_pmus; i++)
		if (!strcmp(ctx->pmus[i]->name, name)) {
			pm_log(ctx, PM_LOG_WARN,
			       "a second bfperf device has a block '%s': ignoring it", block);
			return 0;
		}
	b = calloc(1, sizeof(*b));
	if (!b || pm_pmu__new(name, &p) < 0) {
		free(b);
		return -ENOMEM;
	}
	p->priv = b;
	p->priv_free = block_free;
	p->source = PM_SRC_HWMON;
	p->uncore = true; /* a device's counters, read from one place: the first CPU */
	/* the family is the block name without its instance number: tile2 -> tile */
	len = strlen(name);
	while (len > 0 && name[len - 1] >= '0' && name[len - 1] <= '9')
		len--;
	snprintf(family, sizeof(family), "%.*s", (int)len, name);
	free(p->family);
	p->family = strdup(family);
	b->dir = malloc(strlen(dev) + strlen(block) + 2);
	p->identifier = pm_strdup0(hid);
	r = !p->family || !b->dir || (hid && !p->identifier) ? -ENOMEM : 0;
	if (r == 0)
		sprintf(b->dir, "%s/%s", dev, block);
	if (r == 0 && ctx->topo->online.n) {
		char first[16];

		pm_cpus__done(&p->cpus);
		snprintf(first, sizeof(first), "%d", ctx->topo->online.cpu[0]);
		r = pm_cpus__parse(first, strlen(first), &p->cpus);
	}
	if (r == 0 && has_file(ctx, b->dir, "event_list")) {
		b->counters = count_counters(ctx, b->dir);
		if (has_file(ctx, b->dir, "count_clock") ||
		    (has_file(ctx, b->dir, "enable") && !strstr(block, "l3cache"))) {
			b->kind = PM_HWMON_CRSPACE;
			b->width = 32;
		} else if (has_file(ctx, b->dir, "enable")) {
			b->kind = PM_HWMON_L3CACHE;
			b->width = 57;
		} else {
			b->kind = PM_HWMON_COUNTER;
			b->width = 64;
		}
		r = pm_pmu__add_format_text(p, "event", "config:0-31");
		if (r == 0)
			r = add_event_list(ctx, p, b->dir);
	} else if (r == 0) {
		b->kind = PM_HWMON_REGISTER;
		b->width = strstr(block, "ecc") || strstr(block, "clock_measure") ? 32 : 64;
		r = pm_pmu__add_format_text(p, "reg", "config:0-15");
		if (r == 0)
			r = add_registers(ctx, p, b->dir);
	}
	p->own_counters = (int)b->counters;
	p->own_width = (int)b->width;
	if (r == 0)
		r = pm_ctx__add_pmu(ctx, p);
	if (r < 0)
		pm_pmu__free(p);
	return r;
}

/* "acpi:MLNXBFD1:" -> "MLNXBFD1"; false when there is no such file. */
static bool read_hid(struct pm_ctx *ctx, const char *dev, char *buf, size_t size)
{
	char path[512], text[128], *end;

	snprintf(path, sizeof(path), "%s/device/modalias", dev);
	if (pm_read_file(ctx, path, text, sizeof(text)) < 0 || !pm_str_has_prefix(text, "acpi:"))
		return false;
	end = strchr(text + 5, ':');
	if (end)
		*end = '\0';
	snprintf(buf, size, "%s", text + 5);
	return buf[0] != '\0';
}

/* Not blocks: the class device's own directories and links. */
static bool is_block(const char *name)
{
	static const char *const not_blocks[] = { "device", "power", "subsystem" };

	for (size_t i = 0; i < PM_ARRAY_SIZE(not_blocks); i++)
		if (!strcmp(name, not_blocks[i]))
			return false;
	return true;
}

/* Its block's directory has files again (a missing directory lists as empty). */
bool pm_hwmon__present(struct pm_ctx *ctx, const struct pm_pmu *p)
{
	struct pm_names l = { 0 };
	bool there;

	if (!pm_hwmon__block(p) || pm_list_names(ctx, pm_hwmon__block(p)->dir, false, NULL, &l) < 0)
		return false;
	there = l.n > 0;
	pm_names__done(&l);
	return there;
}

int pm_hwmon__discover(struct pm_ctx *ctx)
{
	struct pm_names devs;
	int r = pm_list_names(ctx, HWMON_CLASS, true, NULL, &devs);

	if (r < 0)
		return r;
	for (size_t i = 0; i < devs.n && r == 0; i++) {
		char dev[256], path[320], name[64], hid[128];
		struct pm_names blocks;

		snprintf(dev, sizeof(dev), HWMON_CLASS "/%s", devs.name[i]);
		snprintf(path, sizeof(path), "%s/name", dev);
		if (pm_read_file(ctx, path, name, sizeof(name)) < 0 || strcmp(name, "bfperf") != 0)
			continue;
		r = pm_list_names(ctx, dev, true, NULL, &blocks);
		if (r < 0)
			break;
		for (size_t j = 0; j < blocks.n && r == 0; j++)
			if (is_block(blocks.name[j]))
				r = add_block(ctx, dev,
					      read_hid(ctx, dev, hid, sizeof(hid)) ? hid : NULL,
					      blocks.name[j]);
		pm_names__done(&blocks);
	}
	pm_names__done(&devs);
	return r;
}
