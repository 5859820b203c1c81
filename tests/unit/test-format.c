// SPDX-License-Identifier: GPL-2.0-only
/*
 * Format bitfields and encoding, against the kernel facts: the F17h amd_df
 * format (kernel-facts §3.2), channel 4 -> config 0x100003807 (§3.5), and
 * every row of seed 004's DF_PERF_CTL table (its CTL column is the config
 * plus the enable bit 22, §3.6).
 */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "source/format.h"
#include "util/util.h"

static void test_parse(void **state)
{
	static const struct {
		const char *in;
		int ret;
		uint8_t word;
		uint64_t mask;
		size_t col; /* error column */
	} t[] = {
		{ "config:0-7", 0, 0, 0xff, 0 },
		{ "config:0-7\n", 0, 0, 0xff, 0 },
		{ "config:0-7,32-35,59-60", 0, 0, 0x1800000f000000ffull, 0 },
		{ "config:0-7,32-37", 0, 0, 0x3f000000ffull, 0 },
		{ "config:8-15,24-27", 0, 0, 0xf00ff00ull, 0 },
		{ "config1:0-63", 0, 1, UINT64_MAX, 0 },
		{ "config2:3", 0, 2, 0x8, 0 },
		{ "config:22", 0, 0, 0x400000, 0 },
		{ "config:56-63", 0, 0, 0xff00000000000000ull, 0 },
		{ "config:0-63", 0, 0, UINT64_MAX, 0 },
		{ "", -EINVAL, 0, 0, 0 },
		{ "config", -EINVAL, 0, 0, 0 },
		{ "config:", -EINVAL, 0, 0, 7 },
		{ "config:0-7x", -EINVAL, 0, 0, 10 },
		{ "config:8-7", -EINVAL, 0, 0, 9 },
		{ "config:64", -EINVAL, 0, 0, 7 },
		{ "config:0-7,", -EINVAL, 0, 0, 11 },
		{ "config:1,1", -EINVAL, 0, 0, 10 },
		{ "config0:1", -EINVAL, 0, 0, 7 },
		{ "config3:0-7", -EOPNOTSUPP, 0, 0, 6 },
		{ "conf:1", -EINVAL, 0, 0, 0 },
		{ "event:0-7", -EINVAL, 0, 0, 0 },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(t); i++) {
		struct pm_format f = { .word = 9, .mask = 7 };
		size_t col = 999;
		int r = pm_format__parse(t[i].in, strlen(t[i].in), &f, &col);

		if (r != t[i].ret)
			fail_msg("'%s': got %d, want %d", t[i].in, r, t[i].ret);
		if (r == 0) {
			assert_int_equal(f.word, t[i].word);
			assert_int_equal(f.mask, t[i].mask);
			assert_int_equal(f.nbits, __builtin_popcountll(t[i].mask));
		} else {
			assert_int_equal(f.word, 9); /* untouched */
			assert_int_equal(f.mask, 7);
			if (col != t[i].col)
				fail_msg("'%s': error at %zu, want %zu", t[i].in, col, t[i].col);
		}
	}
}

static struct pm_format fmt(const char *s)
{
	struct pm_format f;

	assert_int_equal(pm_format__parse(s, strlen(s), &f, NULL), 0);
	return f;
}

static void test_amd_df_channel4(void **state)
{
	struct pm_format ev = fmt("config:0-7,32-35,59-60"), um = fmt("config:8-15");
	uint64_t config[PM_CONFIG_WORDS] = { 0 };

	assert_int_equal(pm_format__encode(&ev, 0x107, config), 0);
	assert_int_equal(pm_format__encode(&um, 0x38, config), 0);
	assert_int_equal(config[0], 0x100003807ull); /* kernel-facts §3.5 */
	assert_int_equal(pm_format__decode(&ev, config), 0x107);
	assert_int_equal(pm_format__decode(&um, config), 0x38);
}

/* seed 004: the DRAM channel table and the remote-link events, CTL values as printed */
static void test_seed004_df_table(void **state)
{
	static const struct {
		uint64_t event, umask, ctl;
	} rows[] = {
		{ 0x007, 0x38, 0x000403807ull },
		{ 0x047, 0x38, 0x000403847ull },
		{ 0x087, 0x38, 0x000403887ull },
		{ 0x0c7, 0x38, 0x0004038c7ull },
		{ 0x107, 0x38, 0x100403807ull },
		{ 0x147, 0x38, 0x100403847ull },
		{ 0x187, 0x38, 0x100403887ull },
		{ 0x1c7, 0x38, 0x1004038c7ull },
		/* Remote links: DfEvent[0x00000007004002C7] and 0x800400207..287 */
		{ 0x7c7, 0x02, 0x00000007004002c7ull },
		{ 0x807, 0x02, 0x0000000800400207ull },
		{ 0x847, 0x02, 0x0000000800400247ull },
		{ 0x887, 0x02, 0x0000000800400287ull },
	};
	struct pm_format ev = fmt("config:0-7,32-35,59-60"), um = fmt("config:8-15");
	const uint64_t enable = 1ull << 22; /* DF_PERF_CTL[22] */

	for (size_t i = 0; i < PM_ARRAY_SIZE(rows); i++) {
		uint64_t config[PM_CONFIG_WORDS] = { 0 }, back[PM_CONFIG_WORDS] = { 0 };

		assert_int_equal(pm_format__encode(&ev, rows[i].event, config), 0);
		assert_int_equal(pm_format__encode(&um, rows[i].umask, config), 0);
		if ((config[0] | enable) != rows[i].ctl)
			fail_msg("event 0x%llx: config 0x%llx | enable != seed CTL 0x%llx",
				 (unsigned long long)rows[i].event, (unsigned long long)config[0],
				 (unsigned long long)rows[i].ctl);
		/* and back: the seed's CTL without the enable bit decodes to the event */
		back[0] = rows[i].ctl & ~enable;
		assert_int_equal(pm_format__decode(&ev, back), rows[i].event);
		assert_int_equal(pm_format__decode(&um, back), rows[i].umask);
	}
}

static void test_encode_range(void **state)
{
	struct pm_format ev = fmt("config:0-7,32-35,59-60"), full = fmt("config1:0-63");
	uint64_t config[PM_CONFIG_WORDS] = { 0x5, 0x6, 0x7 };

	/* 14 bits: 0x3fff fits, 0x4000 does not and leaves config alone */
	assert_int_equal(pm_format__max(&ev), 0x3fff);
	assert_int_equal(pm_format__encode(&ev, 0x4000, config), -ERANGE);
	assert_int_equal(config[0], 0x5);
	assert_int_equal(pm_format__encode(&ev, 0x3fff, config), 0);
	assert_int_equal(config[0], 0x1800000f000000ffull);
	/* re-encoding replaces the field, it does not OR into it */
	assert_int_equal(pm_format__encode(&ev, 0x1, config), 0);
	assert_int_equal(config[0], 0x1);
	assert_int_equal(pm_format__encode(&full, UINT64_MAX, config), 0);
	assert_int_equal(config[1], UINT64_MAX);
	assert_int_equal(config[2], 0x7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_amd_df_channel4),
		cmocka_unit_test(test_seed004_df_table),
		cmocka_unit_test(test_encode_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
