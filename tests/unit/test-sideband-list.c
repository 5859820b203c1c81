// SPDX-License-Identifier: GPL-2.0-only
/* The sideband programming list parser (docs/sideband.md): what it takes, and file:line errors. */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "source/sideband/sideband.h"
#include "util/util.h"

static void test_good(void **state)
{
	static const char text[] = "# captured on an Edison\n"
				   "group UNC_SOC_Memory_DDR_BW   # the seed's name\n"
				   "write 0x18 0x01 0x1000 0x1\n"
				   "write 24 1 4100 4294967295\n"
				   "\t counter 4 0x17 0x30 0x34\n"
				   "counter 0 0x17 0x10 0x14\r\n"
				   "group unc_soc_all_reqs\n"
				   "start 0x00110001\n"
				   "counter 7 0 0xffffffff 0\n"
				   /* registers of another group, or on another port, are others */
				   "counter 0 0x17 0x10 0x14\n"
				   "counter 1 0x18 0x10 0x14\n";
	struct pm_sb_list *l = NULL;
	const struct pm_sb_group *g;
	struct pm_diag d;

	assert_int_equal(pm_sb_list__parse(text, strlen(text), "a.list", &l, &d), 0);
	assert_int_equal(l->n_g, 2);
	g = pm_sb_list__group(l, "unc_soc_memory_ddr_bw"); /* PMU names are lower case */
	assert_non_null(g);
	assert_int_equal(g->n_w, 2);
	assert_int_equal(g->w[1].port, 24);
	assert_int_equal(g->w[1].offset, 4100);
	assert_int_equal(g->w[1].value, 0xffffffffu);
	assert_int_equal(g->w[1].line, 4);
	assert_true(g->ctr[4].present && g->ctr[4].ctl == 0x30 && g->ctr[4].data == 0x34);
	assert_true(g->ctr[0].present && !g->ctr[1].present);
	assert_int_equal(g->start, PM_SB_CMD_START); /* merrifield.md §3, unless the list says */
	g = pm_sb_list__group(l, "UNC_SOC_All_Reqs");
	assert_int_equal(g->start, 0x00110001);
	assert_int_equal(g->ctr[7].ctl, 0xffffffffu);
	assert_true(g->ctr[0].present && g->ctr[1].present && g->ctr[1].port == 0x18);
	assert_null(pm_sb_list__group(l, "UNC_SOC_Graphics_BW"));
	pm_sb_list__free(l);
}

static void test_bad(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "", "b.list: no group in it" },
		{ "# nothing\n", "b.list: no group in it" },
		{ "write 0x18 1 0x10 0x1\n", "b.list:1: 'write' before any 'group' line" },
		{ "group A\nwrite 0x18 1 0x10\n", "b.list:2: 'write' takes 4 numbers" },
		{ "group A\nwrite 0x100 1 0x10 1\n",
		  "b.list:2: port '0x100' is not a number in range" },
		{ "group A\nwrite 0x18 0 0x10 1\n", "b.list:2: opcode 0 is even" },
		{ "group A\nwrite 0x18 1 0x1_0 1\n", "b.list:2: offset '0x1_0' is not a number" },
		{ "group A\nwrite 0x18 1 0x10 0x100000000\n", "b.list:2: value '0x100000000'" },
		{ "group A\nwrite 0x18 1 010 1\n", "b.list:2: offset '010' has a leading 0" },
		{ "group A\ncounter 8 0x17 0x10 0x14\n", "b.list:2: counter '8' is not a number" },
		{ "group A\ncounter 0 0x17 0x10 0x14\ncounter 0 0x17 0x10 0x14\n",
		  "b.list:3: counter 0 again in group 'A'" },
		{ "group A\ncounter 0 0x17 0x10 0x14\ngroup a\n", "b.list:3: group 'a' again" },
		{ "group A\nwrite 0x18 1 0x10 1\n", "b.list:1: group 'A' declares no counter" },
		{ "group A B\n", "b.list:1: 'group' takes one name" },
		{ "group A\nstart\n", "b.list:2: 'start' takes one number" },
		{ "group A\nread 0x17 0 0x14\n", "b.list:2: unknown keyword 'read'" },
		{ "group A\ncounter 0 0x17 0x10 0x14\nwrite 0x18 1 0x10 1 2\n",
		  "b.list:3: 'write' takes 4 numbers" },
		/* issue 12 item 13: counters sharing a register, both named with their lines */
		{ "group A\ncounter 0 0x17 0x10 0x14\ncounter 1 0x17 0x20 0x14\n",
		  "b.list:3: counter 1's data register 0x14 on port 0x17 is counter 0's data "
		  "register too (line 2): one would report the other's count" },
		{ "group A\ncounter 2 0x17 0x10 0x14\n# c\ncounter 5 0x17 0x10 0x24\n",
		  "b.list:4: counter 5's control register 0x10 on port 0x17 is counter 2's "
		  "control register too (line 2)" },
		{ "group A\ncounter 0 0x17 0x10 0x14\ncounter 1 0x17 0x14 0x18\n",
		  "b.list:3: counter 1's control register 0x14 on port 0x17 is counter 0's data "
		  "register too (line 2)" },
		{ "group A\ncounter 3 0x17 0x10 0x14\ncounter 1 0x17 0x18 0x10\n",
		  "b.list:3: counter 1's data register 0x10 on port 0x17 is counter 3's control "
		  "register too (line 2)" },
		{ "group A\ncounter 0 0x17 0x10 0x10\n",
		  "b.list:2: counter 0's control and data registers are both 0x10" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(cases); i++) {
		struct pm_sb_list *l = (struct pm_sb_list *)&cases; /* untouched on failure */
		struct pm_diag d;
		int r = pm_sb_list__parse(cases[i].text, strlen(cases[i].text), "b.list", &l, &d);

		if (r != -EINVAL || strncmp(d.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: %d '%s', want '%s'", i, r, d.msg, cases[i].msg);
		assert_ptr_equal(l, (struct pm_sb_list *)&cases);
	}
}

/* A NUL byte and an overlong line are refused, not read past. */
static void test_limits(void **state)
{
	char buf[1200];
	struct pm_sb_list *l = NULL;
	struct pm_diag d;

	memcpy(buf, "group A\n\0", 9);
	assert_int_equal(pm_sb_list__parse(buf, 9, "c", &l, &d), -EINVAL);
	assert_string_equal(d.msg, "c:2: a NUL byte");
	memset(buf, ' ', sizeof(buf));
	assert_int_equal(pm_sb_list__parse(buf, sizeof(buf), "c", &l, &d), -EINVAL);
	assert_string_equal(d.msg, "c:1: a line longer than 1024 characters");
	assert_null(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
