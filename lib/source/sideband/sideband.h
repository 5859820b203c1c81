/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sideband source's pieces: its PMUs (sideband-discover.c), the
 * programming list a user captured from Intel's tools (sideband-list.c,
 * format in docs/sideband.md), and the source (sideband.c).
 *
 * pmumon knows no Merrifield register map. What it knows is public
 * (../shared/facts/merrifield.md §2, §3): the IOSF sideband command word,
 * that the SoC counter block's counters are 32 bits wide, that opcode 1
 * writes and 0 reads them, and the STOP, SAMPLE and START commands of
 * their control registers. Which registers select a group's events, and
 * where each counter's control and data registers are, comes from the list.
 */
#ifndef PM_SOURCE_SIDEBAND_H
#define PM_SOURCE_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pm_ctx;
struct pm_diag;

/* merrifield.md §3: the counter block (drivers' constants) */
#define PM_SB_COUNTERS 8
#define PM_SB_COUNTER_BITS 32
#define PM_SB_OP_READ 0x00
#define PM_SB_OP_WRITE 0x01
#define PM_SB_CMD_START 0x00110000u  /* VLV_VISA_CHAP_START */
#define PM_SB_CMD_STOP 0x00040000u   /* VLV_VISA_CHAP_STOP, SOC_UNCORE_STOP */
#define PM_SB_CMD_SAMPLE 0x00020000u /* ..._SAMPLE_DATA */

/* One sideband write of a list: an event select, replayed as written. */
struct pm_sb_write {
	uint8_t port, opcode;
	uint32_t offset, value;
	unsigned line;
};

/* Counter N of a group: its control and data registers. */
struct pm_sb_counter {
	bool present;
	uint8_t port;
	uint32_t ctl, data;
	unsigned line;
};

struct pm_sb_group {
	char *name; /* as the seed writes it: "UNC_SOC_Memory_DDR_BW" */
	unsigned line;
	struct pm_sb_write *w;
	size_t n_w, cap_w;
	struct pm_sb_counter ctr[PM_SB_COUNTERS];
	uint32_t start; /* the START command (merrifield.md §3), or the list's */
};

struct pm_sb_list {
	struct pm_sb_group *g;
	size_t n_g, cap_g;
};

/*
 * Parse a programming list (docs/sideband.md). name is the file's name for
 * messages: an error says "name:line: what" in reterr's msg and points at
 * the line. Return: 0, -EINVAL (malformed) or -ENOMEM.
 */
int pm_sb_list__parse(const char *buf, size_t len, const char *name, struct pm_sb_list **ret,
		      struct pm_diag *reterr);
void pm_sb_list__free(struct pm_sb_list *l);
/* The group of that name (case-insensitive, as PMU names are lowercase), or NULL. */
const struct pm_sb_group *pm_sb_list__group(const struct pm_sb_list *l, const char *name);

/* On Merrifield, add a PMU per seed 001 group (unc_soc_memory_ddr_bw, ...). */
int pm_sideband__discover(struct pm_ctx *ctx);

#endif
