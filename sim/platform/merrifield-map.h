/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Merrifield SoC counter block: the constants the public drivers use, and a
 * register map for the simulator.
 *
 * FACTS (../shared/facts/merrifield.md §2, §3): the IOSF sideband command
 * word, the counter port 0x17 (the drivers' default), opcodes 0 (read) and 1
 * (write), 8 counters of 32 bits, and the control-register commands STOP,
 * SAMPLE and START.
 *
 * ====================================================================
 *  SIMULATION-ONLY: NOT INTEL'S REGISTER MAP.
 *  Everything from "SIMULATION-ONLY MAP" down is made up. The real mux
 *  (event-select) registers, their values and the CCCR/DATA offsets
 *  are in Intel's closed event database (merrifield.md §1, §6.1). No
 *  real Merrifield counts anything when given these writes. Never ship
 *  this table as a programming list for hardware.
 * ====================================================================
 *
 * The simulated block (sim/platform/merrifield.c) answers exactly these
 * writes. Tests and the sideband source's tests replay a group's
 * programming list, a list of (port, opcode, offset, value) sideband
 * writes as Intel's drivers replay theirs (§3), built by mf_sim_group_list().
 */
#ifndef PM_SIM_MERRIFIELD_MAP_H
#define PM_SIM_MERRIFIELD_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- facts (merrifield.md) -------------------------------------------------------- */

/* §2: MCR = (opcode << 24) | (port << 16) | ((offset & 0xFF) << 8) | 0xF0 */
#define MF_MCR(op, port, off)                                              \
	((((uint32_t)(op)&0xFF) << 24) | (((uint32_t)(port)&0xFF) << 16) | \
	 (((uint32_t)(off)&0xFF) << 8) | 0xF0u)
#define MF_MCRX(off) ((uint32_t)(off)&0xFFFFFF00u) /* §2: the upper 24 offset bits */
#define MF_PCI_MCR 0xD0				   /* §2: host bridge 0:0.0 config space */
#define MF_PCI_MDR 0xD4
#define MF_PCI_MCRX 0xD8

#define MF_OP_READ 0x00	  /* §3 */
#define MF_OP_WRITE 0x01  /* §3 */
#define MF_CHAP_PORT 0x17 /* §3: the drivers' default counter port (23) */
#define MF_COUNTERS 8	  /* §3 */
#define MF_COUNTER_BITS 32
#define MF_CMD_START 0x00110000u  /* §3: VLV_VISA_CHAP_START */
#define MF_CMD_STOP 0x00040000u	  /* §3: VLV_VISA_CHAP_STOP, SOC_UNCORE_STOP */
#define MF_CMD_SAMPLE 0x00020000u /* §3: ..._SAMPLE_DATA */

/* ---- SIMULATION-ONLY MAP: not Intel's register map -------------------------------- */

/* Counter i's control (CCCR) and data registers on MF_CHAP_PORT. */
#define MF_SIM_CCCR(i) (0x10u + 8u * (unsigned)(i))
#define MF_SIM_DATA(i) (0x14u + 8u * (unsigned)(i))

/*
 * The event selects: each counter has a source register (which interface it
 * watches) and an event register (what it counts there), on their own port
 * and above offset 0xFF, so selecting needs MCRX (as a real list may).
 */
#define MF_SIM_MUX_PORT 0x18
#define MF_SIM_SRC(i) (0x1000u + 8u * (unsigned)(i))
#define MF_SIM_EVT(i) (0x1004u + 8u * (unsigned)(i))

/* Source values. */
enum {
	MF_SIM_SRC_DDR0 = 0x01, /* memory channel 0 */
	MF_SIM_SRC_DDR1 = 0x02, /* memory channel 1 */
	MF_SIM_SRC_MOD0 = 0x10, /* agents: 0x10 + scenario agent instance */
	MF_SIM_SRC_DISP = 0x11,
	MF_SIM_SRC_GFX = 0x12,
	MF_SIM_SRC_IMAGING = 0x13,
	MF_SIM_SRC_LSPF = 0x14,
	MF_SIM_SRC_CLOCK = 0x1F, /* the SoC clock */
};

/* Event values, per kind of source; any other (source, event) counts nothing. */
enum {
	/* DDR channel sources */
	MF_SIM_EVT_DDR_READ32 = 0x01,	  /* read requests, 32 B each */
	MF_SIM_EVT_DDR_WRITE32 = 0x02,	  /* write requests, 32 B each */
	MF_SIM_EVT_DDR_DEEP_SR = 0x03,	  /* DRAM clocks in deep self-refresh */
	MF_SIM_EVT_DDR_SHALLOW_SR = 0x04, /* DRAM clocks in shallow self-refresh */
	/* agent sources */
	MF_SIM_EVT_REQS = 0x10,		/* all requests, any size, reads and writes */
	MF_SIM_EVT_READ_PARTIAL = 0x11, /* Mod0: all reads; other agents: partial only */
	MF_SIM_EVT_READ32 = 0x12,
	MF_SIM_EVT_READ64 = 0x13,
	MF_SIM_EVT_WRITE_PARTIAL = 0x14, /* Mod0: all writes; other agents: partial only */
	MF_SIM_EVT_WRITE32 = 0x15,
	MF_SIM_EVT_WRITE64 = 0x16,
	MF_SIM_EVT_SNOOP_REPLIES = 0x20, /* MF_SIM_SRC_MOD0 only */
	MF_SIM_EVT_SNOOP_REQS = 0x21,	 /* MF_SIM_SRC_MOD0 only */
	/* MF_SIM_SRC_CLOCK */
	MF_SIM_EVT_CLOCK = 0x01,
};

/* One sideband write of a programming list. */
struct mf_sim_write {
	uint8_t port;
	uint8_t opcode;
	uint32_t offset;
	uint32_t value;
};

/* One event of a group: its counter (seed 001) and the writes that select it. */
struct mf_sim_event {
	const char *group;
	const char *event; /* the seed's spelling */
	int counter;
	struct mf_sim_write mux[2];
};

#define MF_SIM_EV(g, name, ctr, src, evt)                                               \
	{                                                                               \
		g, name, ctr,                                                           \
		{                                                                       \
			{ MF_SIM_MUX_PORT, MF_OP_WRITE, MF_SIM_SRC(ctr), src },         \
				{ MF_SIM_MUX_PORT, MF_OP_WRITE, MF_SIM_EVT(ctr), evt }, \
		}                                                                       \
	}

/* Graphics, Display, Imaging and LowSpeedPF have the same layout (seed 001). */
#define MF_SIM_AGENT_BW(g, p, src)                                                 \
	MF_SIM_EV(g, p "_ReadPartial", 0, src, MF_SIM_EVT_READ_PARTIAL),           \
		MF_SIM_EV(g, p "_Read32B", 1, src, MF_SIM_EVT_READ32),             \
		MF_SIM_EV(g, p "_Read64B", 2, src, MF_SIM_EVT_READ64),             \
		MF_SIM_EV(g, p "_WritePartial", 3, src, MF_SIM_EVT_WRITE_PARTIAL), \
		MF_SIM_EV(g, p "_Write32B", 4, src, MF_SIM_EVT_WRITE32),           \
		MF_SIM_EV(g, p "_Write64B", 5, src, MF_SIM_EVT_WRITE64),           \
		MF_SIM_EV(g, "Clock_Counter", 6, MF_SIM_SRC_CLOCK, MF_SIM_EVT_CLOCK)

/*
 * The nine groups of seed 001, their events in the seed's order and on the
 * seed's counters. Names are the seed's: the Memory_DDR_BW events are
 * written with a hyphen ("DDR_Chan0-Read32B") in the seed's table, though
 * the article's prose and merrifield.md §5 write "DDR_Chan0_Read32B".
 */
__attribute__((unused)) static const struct mf_sim_event mf_sim_events[] = {
	MF_SIM_EV("UNC_SOC_Memory_DDR_BW", "DDR_Chan0-Read32B", 0, MF_SIM_SRC_DDR0,
		  MF_SIM_EVT_DDR_READ32),
	MF_SIM_EV("UNC_SOC_Memory_DDR_BW", "DDR_Chan0-Write32B", 1, MF_SIM_SRC_DDR0,
		  MF_SIM_EVT_DDR_WRITE32),
	MF_SIM_EV("UNC_SOC_Memory_DDR_BW", "DDR_Chan1-Read32B", 2, MF_SIM_SRC_DDR1,
		  MF_SIM_EVT_DDR_READ32),
	MF_SIM_EV("UNC_SOC_Memory_DDR_BW", "DDR_Chan1-Write32B", 3, MF_SIM_SRC_DDR1,
		  MF_SIM_EVT_DDR_WRITE32),
	MF_SIM_EV("UNC_SOC_Memory_DDR_BW", "Clock_Counter", 4, MF_SIM_SRC_CLOCK, MF_SIM_EVT_CLOCK),

	MF_SIM_EV("UNC_SOC_DDR_Self_Refresh", "DDR_Chan0_Deep_Self_Refresh", 0, MF_SIM_SRC_DDR0,
		  MF_SIM_EVT_DDR_DEEP_SR),
	MF_SIM_EV("UNC_SOC_DDR_Self_Refresh", "DDR_Chan0_Shallow_Self_Refresh", 1, MF_SIM_SRC_DDR0,
		  MF_SIM_EVT_DDR_SHALLOW_SR),
	MF_SIM_EV("UNC_SOC_DDR_Self_Refresh", "DDR_Chan1_Deep_Self_Refresh", 2, MF_SIM_SRC_DDR1,
		  MF_SIM_EVT_DDR_DEEP_SR),
	MF_SIM_EV("UNC_SOC_DDR_Self_Refresh", "DDR_Chan1_Shallow_Self_Refresh", 3, MF_SIM_SRC_DDR1,
		  MF_SIM_EVT_DDR_SHALLOW_SR),
	MF_SIM_EV("UNC_SOC_DDR_Self_Refresh", "Clock_Counter", 4, MF_SIM_SRC_CLOCK,
		  MF_SIM_EVT_CLOCK),

	MF_SIM_EV("UNC_SOC_All_Reqs", "Mod0_Reqs", 0, MF_SIM_SRC_MOD0, MF_SIM_EVT_REQS),
	MF_SIM_EV("UNC_SOC_All_Reqs", "Disp_Reqs", 1, MF_SIM_SRC_DISP, MF_SIM_EVT_REQS),
	MF_SIM_EV("UNC_SOC_All_Reqs", "GFX_Reqs", 2, MF_SIM_SRC_GFX, MF_SIM_EVT_REQS),
	MF_SIM_EV("UNC_SOC_All_Reqs", "Imaging_Reqs", 3, MF_SIM_SRC_IMAGING, MF_SIM_EVT_REQS),
	MF_SIM_EV("UNC_SOC_All_Reqs", "LowSpeedPF_Reqs", 4, MF_SIM_SRC_LSPF, MF_SIM_EVT_REQS),
	MF_SIM_EV("UNC_SOC_All_Reqs", "Clock_Counter", 5, MF_SIM_SRC_CLOCK, MF_SIM_EVT_CLOCK),

	MF_SIM_EV("UNC_SOC_Module0_BW", "Mod0_ReadPartial", 0, MF_SIM_SRC_MOD0,
		  MF_SIM_EVT_READ_PARTIAL),
	MF_SIM_EV("UNC_SOC_Module0_BW", "Mod0_Read32B", 1, MF_SIM_SRC_MOD0, MF_SIM_EVT_READ32),
	MF_SIM_EV("UNC_SOC_Module0_BW", "Mod0_Read64B", 2, MF_SIM_SRC_MOD0, MF_SIM_EVT_READ64),
	MF_SIM_EV("UNC_SOC_Module0_BW", "Mod0_WritePartial", 3, MF_SIM_SRC_MOD0,
		  MF_SIM_EVT_WRITE_PARTIAL),
	MF_SIM_EV("UNC_SOC_Module0_BW", "Mod0_Write32B", 4, MF_SIM_SRC_MOD0, MF_SIM_EVT_WRITE32),
	MF_SIM_EV("UNC_SOC_Module0_BW", "Mod0_Write64B", 5, MF_SIM_SRC_MOD0, MF_SIM_EVT_WRITE64),
	MF_SIM_EV("UNC_SOC_Module0_BW", "Clock_Counter", 6, MF_SIM_SRC_CLOCK, MF_SIM_EVT_CLOCK),

	MF_SIM_EV("UNC_SOC_Module0_Snoops", "Mod0_Snoop_Replies", 0, MF_SIM_SRC_MOD0,
		  MF_SIM_EVT_SNOOP_REPLIES),
	MF_SIM_EV("UNC_SOC_Module0_Snoops", "Mod0_Snoop_Reqs", 1, MF_SIM_SRC_MOD0,
		  MF_SIM_EVT_SNOOP_REQS),
	MF_SIM_EV("UNC_SOC_Module0_Snoops", "Clock_Counter", 2, MF_SIM_SRC_CLOCK, MF_SIM_EVT_CLOCK),

	MF_SIM_AGENT_BW("UNC_SOC_Graphics_BW", "GFX", MF_SIM_SRC_GFX),
	MF_SIM_AGENT_BW("UNC_SOC_Display_BW", "Disp", MF_SIM_SRC_DISP),
	MF_SIM_AGENT_BW("UNC_SOC_Imaging_BW", "Imaging", MF_SIM_SRC_IMAGING),
	MF_SIM_AGENT_BW("UNC_SOC_LowSpeedPF_BW", "LowSpeedPF", MF_SIM_SRC_LSPF),
};

#define MF_SIM_N_EVENTS (sizeof(mf_sim_events) / sizeof(mf_sim_events[0]))

/* The nine group names in the seed's order. */
__attribute__((unused)) static const char *const mf_sim_groups[] = {
	"UNC_SOC_Memory_DDR_BW", "UNC_SOC_DDR_Self_Refresh", "UNC_SOC_All_Reqs",
	"UNC_SOC_Module0_BW",	 "UNC_SOC_Module0_Snoops",   "UNC_SOC_Graphics_BW",
	"UNC_SOC_Display_BW",	 "UNC_SOC_Imaging_BW",	     "UNC_SOC_LowSpeedPF_BW",
};

#define MF_SIM_N_GROUPS (sizeof(mf_sim_groups) / sizeof(mf_sim_groups[0]))

/* Most writes a group's list can take: 2 selects + 3 control writes per counter. */
#define MF_SIM_MAX_LIST (MF_COUNTERS * 5)

/*
 * A group's programming list, in the drivers' order (§3): every mux write,
 * then for each of its counters STOP, DATA <- 0, START. Returns the number
 * of writes, or -1 for an unknown group or a list that does not fit.
 */
__attribute__((unused)) static int mf_sim_group_list(const char *group, struct mf_sim_write *list,
						     size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < MF_SIM_N_EVENTS; i++) {
		if (strcmp(mf_sim_events[i].group, group) != 0)
			continue;
		for (size_t k = 0; k < 2; k++) {
			if (n == max)
				return -1;
			list[n++] = mf_sim_events[i].mux[k];
		}
	}
	if (n == 0)
		return -1;
	for (size_t i = 0; i < MF_SIM_N_EVENTS; i++) {
		const struct mf_sim_write ctl[3] = {
			{ MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(mf_sim_events[i].counter),
			  MF_CMD_STOP },
			{ MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_DATA(mf_sim_events[i].counter), 0 },
			{ MF_CHAP_PORT, MF_OP_WRITE, MF_SIM_CCCR(mf_sim_events[i].counter),
			  MF_CMD_START },
		};

		if (strcmp(mf_sim_events[i].group, group) != 0)
			continue;
		for (size_t k = 0; k < 3; k++) {
			if (n == max)
				return -1;
			list[n++] = ctl[k];
		}
	}
	return (int)n;
}

#endif
