// SPDX-License-Identifier: GPL-2.0-only
/*
 * NVIDIA BlueField-2 and BlueField-3: the mlxbf-pmc driver's hwmon `bfperf`
 * tree (drivers/platform/mellanox/mlxbf-pmc.c, v6.16 behaviour).
 *
 * Hardware and driver facts (docs/kernel-facts.md §2, docs/facts-sim-platforms.md §3):
 *  - the block list comes from ACPI (name, counters, type 0 REGISTER /
 *    1 COUNTER / 2 CRSPACE); tile%u/tilenet%u only below `tile_num`; BF-3
 *    has no tile_num and gates llt%u/llt_miss%u by `llt_enable` and mss%u by
 *    `mss_enable`; the event table is picked by substring, first hit wins,
 *    and a block without one is skipped (§2.1, §2.2);
 *  - the event tables, names and codes (§2.2; BF-3 llt with the 104 fix,
 *    llt_miss without the trailing spaces — see the doc section);
 *  - files per block and their modes, the text formats, the event_list
 *    truncation before PAGE_SIZE (§2.3, §2.4);
 *  - write semantics and errors: names (one trailing newline stripped,
 *    exact match) or kstrtouint base-0 codes, both checked against the
 *    table (-EINVAL); counterN takes only 0 except on ecc, never on
 *    l3cache; enable is kstrtobool; count_clock a raw u32 (§2.5, §2.7);
 *  - widths: COUNTER 64 bits, l3cache 57 bits read as LOW then HIGH 32-bit
 *    halves, CRSPACE 32 bits, pcie registers 64 bits, ecc and clock_measure
 *    32 bits (§2.6); BF-2 tile 4, trio 4, triogen 1, l3cache half 5
 *    counters (facts-sim-platforms §3.1); the BF-2 block names (seed 003).
 *
 * Model choices (illustrative, not hardware facts; docs/simulator-bluefield.md):
 *  - counter counts of BF-2 tilenet (4), gic0 (1), smmu0 (1) and of every
 *    BF-3 block (8); the BF-3 block list (llt0-7, llt_miss0-7, mss0-1,
 *    clock_measure); BF-2's ACPI listing tile0-7/tilenet0-7 with tile_num
 *    patched to 4 (as the public BF-1 DSDT does);
 *  - hwmon0 is an unrelated `acpitz` device, bfperf is hwmon1;
 *  - registers power up at 0 and counters stopped, except the pcie
 *    statistics, which have counted since boot (a seeded offset);
 *  - which events follow the scenario and how (the truth functions below);
 *    every other event counts at a seeded background rate, DISABLE at 0;
 *  - the second half of an l3cache read happens 1 us after the first;
 *  - CRSPACE CLR is a self-clearing strobe; clock_measure values are static.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "platform.h"
#include "util/util.h"
#include "vfs.h"

#define PAGE_SIZE 4096
#define MAX_CTRS 32 /* count_clock is a u32 bitmask */
#define HWMON "sys/class/hwmon/hwmon1"
#define L3_READ_GAP_NS 1000 /* LOW, then HIGH: model choice */

/* ---- event tables (kernel-facts §2.2) ------------------------------------------------ */

/*
 * A run of table entries with codes first, first + step, ...: the words are
 * space-separated names, each prefixed by prefix, with {a,b,c} and {N..M}
 * groups expanded leftmost-outermost ("HNF{0,1}_{X,Y}": HNF0_X HNF0_Y HNF1_X ...).
 */
struct run {
	unsigned first, step;
	const char *prefix, *words;
};

static const struct run hnf_runs[] = {
	{ 0x00, 1, "", "DISABLE" },
	{ 0x45, 1, "",
	  "HNF_REQUESTS HNF_REJECTS ALL_BUSY MAF_BUSY MAF_REQUESTS RNF_REQUESTS REQUEST_TYPE "
	  "MEMORY_READS MEMORY_WRITES VICTIM_WRITE POC_FULL POC_FAIL POC_SUCCESS POC_WRITES "
	  "POC_READS FORWARD {RX,TX}{REQ,RSP,DAT}_HNF TXSNP_HNF INDEX_MATCH A72_ACCESS "
	  "IO_ACCESS TSO_WRITE TSO_CONFLICT DIR_HIT HNF_ACCEPTS REQ_BUF_EMPTY REQ_BUF_IDLE_MAF "
	  "TSO_NOARB TSO_NOARB_CYCLES MSS_NO_CREDIT TX{DAT,SNP,RSP,REQ}_NO_LCRD TSO_CL_MATCH "
	  "MEMORY_READS_BYPASS TSO_NOARB_TIMEOUT ALLOCATE VICTIM A72_WRITE A72_READ IO_WRITE "
	  "IO_READ TSO_REJECT" },
	{ 0x80, 1, "", "TX{REQ,RSP,DAT}_RN RX{SNP,RSP,DAT}_RN" },
	{ 0 },
};

#define DIAG "{N,S,E,W,C}_OUT_OF_CRED {N,S,E,W,C}_EGRESS {N,S,E,W,C}_INGRESS CORE_SENT"
static const struct run hnfnet_runs[] = {
	{ 0x00, 1, "", "DISABLE" },	{ 0x12, 1, "", "{CDN,DDN,NDN}_REQ" },
	{ 0x15, 1, "CDN_DIAG_", DIAG }, { 0x25, 1, "DDN_DIAG_", DIAG },
	{ 0x35, 1, "NDN_DIAG_", DIAG }, { 0 },
};

static const struct run smgen_runs[] = {
	{ 0x0, 1, "", "AW_{REQ,BEATS,TRANS,RESP,STL,LAT,REQ_TBU}" },
	{ 0x8, 1, "",
	  "AR_{REQ,BEATS,TRANS,STL,LAT,REQ_TBU} TBU_MISS TX_DAT_AF RX_DAT_AF RETRYQ_CRED" },
	{ 0 },
};

/* trio_events_2: BF-2 (BF-3 has no trio table, its trio blocks are skipped) */
static const struct run trio_runs[] = {
	{ 0x00, 1, "", "DISABLE" },
	{ 0xa0, 1, "",
	  "{TPIO,TDMA,MAP,TXMSG}_DATA_BEAT {TPIO,TDMA,MAP,TXMSG}_DATA_PACKET TDMA_RT_AF "
	  "TDMA_PBUF_MAC_AF TRIO_MAP_{WRQ,CPL}_BUF_EMPTY TRIO_MAP_RDQ{0..7}_BUF_EMPTY "
	  "TRIO_RING_TX_FLIT_CH{0..4} TRIO_RING_RX_FLIT_CH{0..3}" },
	{ 0 },
};

/* mss_events_1 (BF-1/2 mss blocks; the simulated BF-2 lists none, as seed 003) */
static const struct run mss1_runs[] = {
	{ 0x00, 1, "", "DISABLE" },
	{ 0xc0, 1, "", "{RXREQ,RXDAT,TXRSP,TXDAT}_MSS" },
	{ 0 },
};

static const struct run l3c_runs[] = {
	{ 0x00, 1, "",
	  "DISABLE CYCLES TOTAL_{RD,WR}_REQ_IN TOTAL_WR_DBID_ACK TOTAL_WR_DATA_IN TOTAL_WR_COMP "
	  "TOTAL_RD_DATA_OUT TOTAL_{CDN,DDN}_REQ_IN_BANK{0,1} "
	  "TOTAL_{EMEM,CACHE}_RD_RES_IN_BANK{0,1} TOTAL_EMEM_{RD,WR}_REQ_BANK{0,1} "
	  "TOTAL_{RD,WR}_REQ_OUT TOTAL_RD_RES_IN {HITS,MISSES,ALLOCATIONS,EVICTIONS}_BANK{0,1} "
	  "DBID_REJECT {WRDB,CMDQ,COB,TRB,TAG,ANY}_REJECT_BANK{0,1}" },
	{ 0 },
};

/* register offsets, 64-bit */
static const struct run pcie_runs[] = {
	{ 0x00, 8, "", "IN_P_PKT_CNT" },
	{ 0x10, 8, "", "IN_{NP,C}_PKT_CNT OUT_{P,NP,C}_PKT_CNT {IN,OUT}_{P,NP,C}_BYTE_CNT" },
	{ 0 },
};

/* register offsets, 32-bit; DISABLE is a real file at 0x0 (facts-sim-platforms §3.6) */
static const struct run ecc_runs[] = {
	{ 0x000, 4, "", "DISABLE" },
	{ 0x100, 4, "", "ECC_{SINGLE,DOUBLE}_ERROR_CNT" },
	{ 0x114, 4, "", "{S,D}ERR_INJ" },
	{ 0x124, 4, "", "ECC_SINGLE_ERROR_0" },
	{ 0x164, 4, "", "ECC_DOUBLE_ERROR_0" },
	{ 0x340, 4, "", "DRAM_ECC_{COUNT,INJECT,ERROR}" },
	{ 0 },
};

#define SKY_NET "{CDN,DDN,NDN,SDN,UDN}"
#define SKY_CH                                                                             \
	"{CHI_REQ0,CHI_DATA0,CHI_RESP0,CHI_SNP0,CHI_REQ1,CHI_DATA1,CHI_RESP1,CHI_SNP1,"    \
	"CHI_REQ2,CHI_DATA2,CHI_RESP2,CHI_SNP2,CHI_REQ3,CHI_DATA3,CHI_RESP3,CHI_SNP3,"     \
	"TLP_REQ,TLP_RESP,TLP_META,AXIS_DATA,AXIS_CRED,APB,VW,GGA_MSN_W,GGA_MSN_N,CR_REQ," \
	"CR_RESP,MSN_PRNF,DBG_DATA,DBG_CRED}"
static const struct run mss3_runs[] = {
	{ 0, 1, "SKYLIB_",
	  SKY_NET "_TX_FLITS " SKY_NET "_RX_FLITS " SKY_NET "_TX_STALL " SKY_NET "_RX_STALL" },
	{ 20, 1, "SKYLIB_", SKY_CH "_TX_FLITS " SKY_CH "_RX_FLITS" },
	{ 80, 1, "SKYLIB_", SKY_CH "_TX_STALL " SKY_CH "_RX_STALL" },
	{ 140, 1, "SKYLIB_", SKY_NET "_LOOPBACK_FLITS" },
	{ 145, 1, "HISTOGRAM_HISTOGRAM_", "BIN{0..9}" },
	{ 0 },
};

#define LLT_HNF                                                                                 \
	"{CYCLES,REQS_RECEIVED,REQS_PROCESSED,DIR_HIT,DIR_MISS,DIR_RD_ALLOC,DIR_WR_ALLOC,"      \
	"DIR_VICTIM,CL_HAZARD,ALL_HAZARD,PIPE_STALLS,MEM_READS,MEM_WRITES,MEM_ACCESS,DCL_READ," \
	"DCL_INVAL,CHI_RXDAT,CHI_RXRSP,CHI_TXDAT,CHI_TXRSP,CHI_TXSNP,DCT_SNP,SNP_FWD_DATA,"     \
	"SNP_FWD_RSP,SNP_RSP,EXCL_FULL,EXCL_WRITE_F,EXCL_WRITE_S,EXCL_WRITE,EXCL_READ,"         \
	"REQ_BUF_EMPTY,ALL_MAFS_BUSY,TXDAT_NO_LCRD,TXSNP_NO_LCRD,TXRSP_NO_LCRD,TXREQ_NO_LCRD,"  \
	"WRITE,READ,ACCESS,MAF_N_BUSY,MAF_N_REQS,SEL_OPCODE}"
#define LLT_GDC                                                                                    \
	"{RD_REQ,WR_REQ,ALLOCATE,HIT,MISS,INVALIDATE,EVICT,RD_RESP,WR_ACK,SNOOP,SNOOP_NORMAL,"     \
	"SNOOP_FWD,SNOOP_STASH,SNOOP_STASH_INDPND_RD,FOLLOWER,FW,HIT_DCL_BOTH,HIT_DCL_PARTIAL,"    \
	"EVICT_DCL,G_RSE_PIPE_CACHE_DATA0,G_RSE_PIPE_CACHE_DATA1,ARB_STRB,ARB_WAIT,GGA_STRB,"      \
	"GGA_WAIT,FW_STRB,FW_WAIT,SNP_STRB,SNP_WAIT,MISS_INARB_STRB,MISS_INARB_WAIT,"              \
	"G_FIFO_FF_GGA_RSP_RD0,G_FIFO_FF_GGA_RSP_RD1,G_FIFO_FF_GGA_RSP_RD2,G_FIFO_FF_GGA_RSP_RD3," \
	"G_FIFO_FF_GGA_RSP_WR0,G_FIFO_FF_GGA_RSP_WR1,G_FIFO_FF_GGA_RSP_WR2,G_FIFO_FF_GGA_RSP_WR3}"
static const struct run llt_runs[] = {
	{ 0, 1, "HNF0_", LLT_HNF },
	{ 42, 1, "HNF1_", LLT_HNF },
	{ 84, 1, "GDC_BANK0_", LLT_GDC },
	{ 123, 1, "GDC_BANK1_", LLT_GDC },
	{ 162, 1, "HISTOGRAM_HISTOGRAM_", "BIN{0..9}" },
	{ 0 },
};

static const struct run llt_miss_runs[] = {
	{ 0, 1, "GDC_MISS_MACHINE_",
	  "RD_REQ WR_REQ SNP_REQ EVICT_REQ FW_REQ RD_RESP WR_RESP SNP_STASH_DATAPULL_DROP "
	  "SNP_STASH_DATAPULL_DROP_TXDAT CHI_TXREQ CHI_RXRSP CHI_TXDAT CHI_RXDAT "
	  "G_FIFO_FF_EXEC{0,1}_{0..3} G_FIFO_FF_EXEC_DONE{0,1}_{0..3} GDC_LINK_LIST_FF_{0..6} "
	  "G_RSE_PIPE_TXREQ_{0,1} G_CREDIT_TXREQ_{0,1} G_RSE_PIPE_TXDAT_{0,1} "
	  "G_CREDIT_TXDAT_{0,1} G_FIFO_FF_COMPACK_{0..3} G_RSE_PIPE_TXRSP_{0,1} "
	  "G_CREDIT_TXRSP_{0,1} G_RSE_PIPE_INARB_{0,1} G_FIFO_FF_SNOOP_IN_{0..3} "
	  "G_FIFO_FF_TXRSP_SNOOP_DATAPULL_{0..3} G_FIFO_FF_TXDAT_SNOOP_DATAPULL_{4..7}" },
	{ 66, 1, "HISTOGRAM_HISTOGRAM_", "BIN{0..9}" },
	{ 0 },
};

/* register offsets, 32-bit, read-only: a pair per PLL */
#define FMON(pll) "{FMON_CLK_LAST_COUNT,REFERENCE_WINDOW_WIDTH}_" pll
static const struct run clock_runs[] = {
	{ 0x00, 4, "", FMON("PLL_D1_INST0") },
	{ 0x08, 4, "", FMON("PLL_D1_INST1") },
	{ 0x10, 4, "", FMON("PLL_G1") },
	{ 0x18, 4, "", FMON("PLL_W1") },
	{ 0x20, 4, "", FMON("PLL_T1") },
	{ 0x28, 4, "", FMON("PLL_A0") },
	{ 0x30, 4, "", FMON("PLL_C0") },
	{ 0x38, 4, "", FMON("PLL_N1") },
	{ 0x40, 4, "", FMON("PLL_I1") },
	{ 0x48, 4, "", FMON("PLL_R1") },
	{ 0x50, 4, "", FMON("PLL_P1") },
	{ 0x58, 4, "", FMON("REF_100_INST0") },
	{ 0x60, 4, "", FMON("REF_100_INST1") },
	{ 0x68, 4, "", FMON("REF_156") },
	{ 0 },
};

struct ev {
	unsigned code;
	char name[64];
};

struct evtab {
	struct ev *e;
	size_t n, cap;
};

static int tab_add(struct evtab *t, unsigned code, const char *name)
{
	if (strlen(name) >= sizeof(t->e[0].name))
		return -ENAMETOOLONG;
	if (pm_grow((void **)&t->e, &t->cap, t->n + 1, sizeof(*t->e)) < 0)
		return -ENOMEM;
	t->e[t->n].code = code;
	snprintf(t->e[t->n].name, sizeof(t->e[0].name), "%s", name);
	t->n++;
	return 0;
}

/* Expand the first brace group of w (a NUL-terminated word), then the rest. */
static int expand(struct evtab *t, unsigned *code, unsigned step, const char *w)
{
	const char *lb = strchr(w, '{'), *rb = lb ? strchr(lb, '}') : NULL;
	char out[1024];
	int r = 0;

	if (!lb || !rb) {
		r = tab_add(t, *code, w);
		*code += step;
		return r;
	}
	if (strstr(lb, "..") && strstr(lb, "..") < rb) {
		unsigned lo = (unsigned)strtoul(lb + 1, NULL, 10);
		unsigned hi = (unsigned)strtoul(strstr(lb, "..") + 2, NULL, 10);

		for (unsigned k = lo; r == 0 && k <= hi; k++) {
			snprintf(out, sizeof(out), "%.*s%u%s", (int)(lb - w), w, k, rb + 1);
			r = expand(t, code, step, out);
		}
		return r;
	}
	for (const char *a = lb + 1; r == 0 && a < rb;) {
		size_t n = strcspn(a, ",}");

		snprintf(out, sizeof(out), "%.*s%.*s%s", (int)(lb - w), w, (int)n, a, rb + 1);
		r = expand(t, code, step, out);
		a += n + 1;
	}
	return r;
}

static int tab_build(struct evtab *t, const struct run *runs)
{
	int r = 0;

	for (; r == 0 && runs->words; runs++) {
		unsigned code = runs->first;

		for (const char *w = runs->words; r == 0 && *w;) {
			size_t n = strcspn(w, " ");
			char word[1024];

			if (n) {
				snprintf(word, sizeof(word), "%s%.*s", runs->prefix, (int)n, w);
				r = expand(t, &code, runs->step, word);
			}
			w += n + (w[n] == ' ');
		}
	}
	return r;
}

static const char *ev_name(const struct evtab *t, unsigned code)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].code == code)
			return t->e[i].name;
	return NULL;
}

static int ev_code(const struct evtab *t, const char *name, unsigned *ret)
{
	for (size_t i = 0; i < t->n; i++) {
		if (!strcmp(t->e[i].name, name)) {
			*ret = t->e[i].code;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- blocks (kernel-facts §2.1, §2.2) ------------------------------------------------ */

enum { T_REGISTER = 0, T_COUNTER = 1, T_CRSPACE = 2 }; /* the ACPI type field */

/* The driver's substring order: first hit wins (tilenet before tile, ...). */
enum family {
	F_TILENET,
	F_TILE,
	F_TRIOGEN,
	F_TRIO,
	F_MSS,
	F_ECC,
	F_PCIE,
	F_L3,
	F_GIC,
	F_SMMU,
	F_LLT_MISS,
	F_LLT,
	F_CLOCK,
	F_N
};

static const char *const family_sub[F_N] = {
	"tilenet", "tile", "triogen", "trio",	  "mss", "ecc",		  "pcie",
	"l3cache", "gic",  "smmu",    "llt_miss", "llt", "clock_measure",
};

/* The table the driver picks for a family on BF-2 (gen 2) or BF-3 (gen 3). */
static const struct run *family_runs(int family, int gen)
{
	switch (family) {
	case F_TILENET:
		return hnfnet_runs;
	case F_TILE:
		return hnf_runs;
	case F_TRIOGEN:
	case F_GIC:
	case F_SMMU:
		return smgen_runs;
	case F_TRIO:
		return gen == 2 ? trio_runs : NULL;
	case F_MSS:
		return gen == 2 ? mss1_runs : mss3_runs;
	case F_ECC:
		return ecc_runs;
	case F_PCIE:
		return pcie_runs;
	case F_L3:
		return l3c_runs;
	case F_LLT_MISS:
		return llt_miss_runs;
	case F_LLT:
		return llt_runs;
	case F_CLOCK:
		return clock_runs;
	default:
		return NULL;
	}
}

static int family_of(const char *name)
{
	for (int f = 0; f < F_N; f++)
		if (strstr(name, family_sub[f]))
			return f;
	return -1;
}

/* What ACPI tells the driver (illustrative, see the file comment). */
struct acpi_block {
	const char *name;
	int counters, type;
};

struct acpi {
	int gen;
	const char *hid;
	const struct acpi_block *blocks;
	size_t n;
	int tile_num; /* -1: no tile_num property (BF-3) */
	unsigned llt_enable, mss_enable;
};

static const struct acpi_block bf2_blocks[] = {
	{ "tile0", 4, T_COUNTER },	  { "tile1", 4, T_COUNTER },
	{ "tile2", 4, T_COUNTER },	  { "tile3", 4, T_COUNTER },
	{ "tile4", 4, T_COUNTER },	  { "tile5", 4, T_COUNTER },
	{ "tile6", 4, T_COUNTER },	  { "tile7", 4, T_COUNTER },
	{ "tilenet0", 4, T_COUNTER },	  { "tilenet1", 4, T_COUNTER },
	{ "tilenet2", 4, T_COUNTER },	  { "tilenet3", 4, T_COUNTER },
	{ "tilenet4", 4, T_COUNTER },	  { "tilenet5", 4, T_COUNTER },
	{ "tilenet6", 4, T_COUNTER },	  { "tilenet7", 4, T_COUNTER },
	{ "trio0", 4, T_COUNTER },	  { "trio1", 4, T_COUNTER },
	{ "triogen0", 1, T_COUNTER },	  { "triogen1", 1, T_COUNTER },
	{ "pcie0", 1, T_REGISTER },	  { "pcie1", 1, T_REGISTER },
	{ "l3cachehalf0", 5, T_COUNTER }, { "l3cachehalf1", 5, T_COUNTER },
	{ "gic0", 1, T_COUNTER },	  { "smmu0", 1, T_COUNTER },
	{ "ecc", 1, T_REGISTER },
};

static const struct acpi_block bf3_blocks[] = {
	{ "llt0", 8, T_CRSPACE },	    { "llt1", 8, T_CRSPACE },
	{ "llt2", 8, T_CRSPACE },	    { "llt3", 8, T_CRSPACE },
	{ "llt4", 8, T_CRSPACE },	    { "llt5", 8, T_CRSPACE },
	{ "llt6", 8, T_CRSPACE },	    { "llt7", 8, T_CRSPACE },
	{ "llt_miss0", 8, T_CRSPACE },	    { "llt_miss1", 8, T_CRSPACE },
	{ "llt_miss2", 8, T_CRSPACE },	    { "llt_miss3", 8, T_CRSPACE },
	{ "llt_miss4", 8, T_CRSPACE },	    { "llt_miss5", 8, T_CRSPACE },
	{ "llt_miss6", 8, T_CRSPACE },	    { "llt_miss7", 8, T_CRSPACE },
	{ "mss0", 8, T_CRSPACE },	    { "mss1", 8, T_CRSPACE },
	{ "clock_measure", 1, T_REGISTER },
};

static const struct acpi bf2_acpi = {
	.gen = 2,
	.hid = "MLNXBFD1",
	.blocks = bf2_blocks,
	.n = PM_ARRAY_SIZE(bf2_blocks),
	.tile_num = 4, /* 8 A72 cores, 2 per tile */
};

static const struct acpi bf3_acpi = {
	.gen = 3,
	.hid = "MLNXBFD2",
	.blocks = bf3_blocks,
	.n = PM_ARRAY_SIZE(bf3_blocks),
	.tile_num = -1,
	.llt_enable = 0xff,
	.mss_enable = 0x3,
};

/* ---- quantities ---------------------------------------------------------------------- */

enum {
	Q2_TILE_REQ,
	Q2_TILE_MEM_RD,
	Q2_TILE_MEM_WR,
	Q2_A72_RD,
	Q2_A72_WR,
	Q2_IO_RD,
	Q2_IO_WR,
	Q2_L3_ACCESS,
	Q2_L3_HIT,
	Q2_L3_WSHARE,
	Q2_L3_CLOCK,
	Q2_PIO_BEATS,
	Q2_PIO_PKTS,
	Q2_DMA_BEATS,
	Q2_DMA_PKTS,
	Q2_PCIE, /* 12, in the pcie table's order */
	Q2_ECC_SINGLE = Q2_PCIE + 12,
	Q2_ECC_DOUBLE,
};

/* defaults are illustrative: a busy but unremarkable DPU */
static const struct sim_quantity bf2_quantities[] = {
	[Q2_TILE_REQ] = { "tile.requests", "1/s", 4, 5e7,
			  "HNF_REQUESTS per second per tile (0-3)" },
	[Q2_TILE_MEM_RD] = { "tile.mem_reads", "1/s", 4, 2e7,
			     "MEMORY_READS (reads to MSS) per second per tile" },
	[Q2_TILE_MEM_WR] = { "tile.mem_writes", "1/s", 4, 1e7,
			     "MEMORY_WRITES per second per tile" },
	[Q2_A72_RD] = { "tile.a72_reads", "1/s", 4, 3e7, "A72_READ per second per tile" },
	[Q2_A72_WR] = { "tile.a72_writes", "1/s", 4, 1.5e7, "A72_WRITE per second per tile" },
	[Q2_IO_RD] = { "tile.io_reads", "1/s", 4, 4e6, "IO_READ (DMA reads) per second per tile" },
	[Q2_IO_WR] = { "tile.io_writes", "1/s", 4, 4e6,
		       "IO_WRITE (DMA writes) per second per tile" },
	[Q2_L3_ACCESS] = { "l3.access", "1/s", 4, 4e7,
			   "L3 lookups per second per (half, bank): instance half*2+bank" },
	[Q2_L3_HIT] = { "l3.hit_ratio", "ratio", 4, 0.6, "L3 hit ratio per (half, bank)" },
	[Q2_L3_WSHARE] = { "l3.write_share", "ratio", 2, 0.3,
			   "share of L3 requests that are writes, per half" },
	[Q2_L3_CLOCK] = { "l3.clock", "Hz", 1, 1e9, "L3 clock (the CYCLES event's rate)" },
	[Q2_PIO_BEATS] = { "trio.pio_beats", "1/s", 2, 1e6, "TPIO_DATA_BEAT per second per trio" },
	[Q2_PIO_PKTS] = { "trio.pio_packets", "1/s", 2, 2.5e5,
			  "TPIO_DATA_PACKET per second per trio" },
	[Q2_DMA_BEATS] = { "trio.dma_beats", "1/s", 2, 5e7, "TDMA_DATA_BEAT per second per trio" },
	[Q2_DMA_PKTS] = { "trio.dma_packets", "1/s", 2, 1e7,
			  "TDMA_DATA_PACKET per second per trio" },
	[Q2_PCIE + 0] = { "pcie.in_p_pkts", "1/s", 2, 8e6, "IN_P_PKT_CNT rate per pcie block" },
	[Q2_PCIE + 1] = { "pcie.in_np_pkts", "1/s", 2, 4e6, "IN_NP_PKT_CNT rate per pcie block" },
	[Q2_PCIE + 2] = { "pcie.in_c_pkts", "1/s", 2, 4e6, "IN_C_PKT_CNT rate per pcie block" },
	[Q2_PCIE + 3] = { "pcie.out_p_pkts", "1/s", 2, 4e6, "OUT_P_PKT_CNT rate per pcie block" },
	[Q2_PCIE + 4] = { "pcie.out_np_pkts", "1/s", 2, 8e6, "OUT_NP_PKT_CNT rate per pcie block" },
	[Q2_PCIE + 5] = { "pcie.out_c_pkts", "1/s", 2, 8e6, "OUT_C_PKT_CNT rate per pcie block" },
	[Q2_PCIE + 6] = { "pcie.in_p_bytes", "B/s", 2, 2e9, "IN_P_BYTE_CNT rate per pcie block" },
	[Q2_PCIE + 7] = { "pcie.in_np_bytes", "B/s", 2, 1e5, "IN_NP_BYTE_CNT rate per pcie block" },
	[Q2_PCIE + 8] = { "pcie.in_c_bytes", "B/s", 2, 1e9, "IN_C_BYTE_CNT rate per pcie block" },
	[Q2_PCIE + 9] = { "pcie.out_p_bytes", "B/s", 2, 1e9, "OUT_P_BYTE_CNT rate per pcie block" },
	[Q2_PCIE + 10] = { "pcie.out_np_bytes", "B/s", 2, 1e5,
			   "OUT_NP_BYTE_CNT rate per pcie block" },
	[Q2_PCIE + 11] = { "pcie.out_c_bytes", "B/s", 2, 2e9,
			   "OUT_C_BYTE_CNT rate per pcie block" },
	[Q2_ECC_SINGLE] = { "ecc.single", "1/s", 1, 0,
			    "corrected (single-bit) ECC errors per second" },
	[Q2_ECC_DOUBLE] = { "ecc.double", "1/s", 1, 0,
			    "uncorrected (double-bit) ECC errors per second" },
};

enum {
	Q3_LLT_REQ,
	Q3_LLT_MEM_RD,
	Q3_LLT_MEM_WR,
	Q3_LLT_GDC,
	Q3_LLT_HIT,
	Q3_LLT_CLOCK,
	Q3_MSS_DDN_TX,
	Q3_MSS_DDN_RX,
	Q3_MSS_CLOCK,
};

static const struct sim_quantity bf3_quantities[] = {
	[Q3_LLT_REQ] = { "llt.requests", "1/s", 8, 6e7,
			 "requests per second per llt (0-7), split evenly over HNF0/HNF1" },
	[Q3_LLT_MEM_RD] = { "llt.mem_reads", "1/s", 8, 1.5e7,
			    "memory reads per second per llt (HNF0/1_MEM_READS)" },
	[Q3_LLT_MEM_WR] = { "llt.mem_writes", "1/s", 8, 8e6,
			    "memory writes per second per llt (HNF0/1_MEM_WRITES)" },
	[Q3_LLT_GDC] = { "llt.gdc_access", "1/s", 8, 4e7,
			 "GDC lookups per second per llt, split evenly over banks 0/1" },
	[Q3_LLT_HIT] = { "llt.hit_ratio", "ratio", 8, 0.7, "GDC hit ratio per llt" },
	[Q3_LLT_CLOCK] = { "llt.clock", "Hz", 1, 1.5e9,
			   "llt clock (HNFn_CYCLES, count_clock on llt/llt_miss)" },
	[Q3_MSS_DDN_TX] = { "mss.ddn_tx_flits", "1/s", 2, 3e7,
			    "SKYLIB_DDN_TX_FLITS per second per mss" },
	[Q3_MSS_DDN_RX] = { "mss.ddn_rx_flits", "1/s", 2, 2e7,
			    "SKYLIB_DDN_RX_FLITS per second per mss" },
	[Q3_MSS_CLOCK] = { "mss.clock", "Hz", 1, 1e9, "mss clock (count_clock on mss)" },
};

/* ---- state --------------------------------------------------------------------------- */

enum { W_EVENT_LIST, W_ENABLE, W_COUNT_CLOCK, W_COUNTER, W_EVENT, W_REG };

struct block;

struct file {
	struct block *b;
	int what, idx;
};

struct ctr {
	unsigned code; /* the event select field */
	struct sim_counter c;
};

struct block {
	struct bf *bf;
	char name[32];
	int family, type, inst, counters;
	bool l3;
	const struct evtab *tab;
	bool en;		 /* l3cache CFG.EN, CRSPACE control EN */
	uint32_t count_clock;	 /* CRSPACE */
	struct ctr *ctr;	 /* [counters] */
	struct sim_counter *reg; /* [tab->n]: register blocks */
	struct file *files;
};

struct bf {
	struct pm_sim *sim;
	int gen;
	bool root;
	struct evtab tabs[F_N];
	struct block *blocks;
	size_t n_blocks;
};

static void bf_free(void *data)
{
	struct bf *bf = data;

	if (!bf)
		return;
	for (size_t i = 0; i < bf->n_blocks; i++) {
		free(bf->blocks[i].ctr);
		free(bf->blocks[i].reg);
		free(bf->blocks[i].files);
	}
	for (int f = 0; f < F_N; f++)
		free(bf->tabs[f].e);
	free(bf->blocks);
	free(bf);
}

/* ---- truth: cumulative counts at scenario time t ------------------------------------- */

static const struct sim_scenario *scn(const struct block *b)
{
	return sim_scn(b->bf->sim);
}

static uint64_t integral(const struct block *b, int q, int inst, uint64_t t, double factor)
{
	return sim_count(sim_scenario__integral(scn(b), q, inst, t), factor);
}

/*
 * The part of rate qa[ia] inside ratio qr[ir] (in: hits, writes) or outside
 * it (misses, reads). Each part is floored on its own, so the parts add up
 * to the access count a counter of all of them shows, and none decreases.
 */
static uint64_t part(const struct block *b, int qa, int ia, int qr, int ir, uint64_t t, double f,
		     bool in)
{
	const struct sim_scenario *s = scn(b);
	double both = sim_scenario__integral2(s, qa, ia, qr, ir, t);

	return sim_count(in ? both : sim_scenario__integral(s, qa, ia, t) - both, f);
}

static uint64_t background(const struct block *b, unsigned code, uint64_t t)
{
	const char *name = ev_name(b->tab, code);

	if (name && !strcmp(name, "DISABLE"))
		return 0;
	return sim_count((double)t / 1e9,
			 sim_scenario__background(scn(b), (uint64_t)b->family << 16 | code,
						  (uint64_t)b->inst, 1e3, 1e6));
}

static uint64_t tile_truth(const struct block *b, unsigned code, uint64_t t)
{
	int i = b->inst;

	switch (code) {
	case 0x45: /* HNF_REQUESTS */
		return integral(b, Q2_TILE_REQ, i, t, 1);
	case 0x4c: /* MEMORY_READS */
		return integral(b, Q2_TILE_MEM_RD, i, t, 1);
	case 0x4d: /* MEMORY_WRITES */
		return integral(b, Q2_TILE_MEM_WR, i, t, 1);
	case 0x5d: /* A72_ACCESS: reads + writes */
		return integral(b, Q2_A72_RD, i, t, 1) + integral(b, Q2_A72_WR, i, t, 1);
	case 0x5e: /* IO_ACCESS */
		return integral(b, Q2_IO_RD, i, t, 1) + integral(b, Q2_IO_WR, i, t, 1);
	case 0x71: /* A72_WRITE */
		return integral(b, Q2_A72_WR, i, t, 1);
	case 0x72: /* A72_READ */
		return integral(b, Q2_A72_RD, i, t, 1);
	case 0x73: /* IO_WRITE */
		return integral(b, Q2_IO_WR, i, t, 1);
	case 0x74: /* IO_READ */
		return integral(b, Q2_IO_RD, i, t, 1);
	default:
		return background(b, code, t);
	}
}

/* l3cachehalfN: banks 0 and 1 are scenario instances 2N and 2N+1 */
static uint64_t l3_truth(const struct block *b, unsigned code, uint64_t t)
{
	int half = b->inst, k0 = half * 2, k;

	switch (code) {
	case 0x01: /* CYCLES */
		return integral(b, Q2_L3_CLOCK, 0, t, 1);
	case 0x02: /* TOTAL_RD_REQ_IN: the requests that are not writes */
		return part(b, Q2_L3_ACCESS, k0, Q2_L3_WSHARE, half, t, 1, false) +
		       part(b, Q2_L3_ACCESS, k0 + 1, Q2_L3_WSHARE, half, t, 1, false);
	case 0x03: /* TOTAL_WR_REQ_IN */
		return part(b, Q2_L3_ACCESS, k0, Q2_L3_WSHARE, half, t, 1, true) +
		       part(b, Q2_L3_ACCESS, k0 + 1, Q2_L3_WSHARE, half, t, 1, true);
	case 0x08: /* TOTAL_CDN_REQ_IN_BANK0/1: every lookup, hits + misses */
	case 0x09:
		k = k0 + (int)(code - 0x08);
		return part(b, Q2_L3_ACCESS, k, Q2_L3_HIT, k, t, 1, true) +
		       part(b, Q2_L3_ACCESS, k, Q2_L3_HIT, k, t, 1, false);
	case 0x17: /* HITS_BANK0/1 */
	case 0x18:
		k = k0 + (int)(code - 0x17);
		return part(b, Q2_L3_ACCESS, k, Q2_L3_HIT, k, t, 1, true);
	case 0x19: /* MISSES_BANK0/1 */
	case 0x1a:
		k = k0 + (int)(code - 0x19);
		return part(b, Q2_L3_ACCESS, k, Q2_L3_HIT, k, t, 1, false);
	case 0x10: /* TOTAL_EMEM_RD_REQ_BANK0/1: every miss reads memory */
	case 0x11:
		return l3_truth(b, code - 0x10 + 0x19, t);
	case 0x14: /* TOTAL_RD_REQ_OUT: both banks' misses */
		return l3_truth(b, 0x19, t) + l3_truth(b, 0x1a, t);
	default:
		return background(b, code, t);
	}
}

static uint64_t trio_truth(const struct block *b, unsigned code, uint64_t t)
{
	switch (code) {
	case 0xa0: /* TPIO_DATA_BEAT */
		return integral(b, Q2_PIO_BEATS, b->inst, t, 1);
	case 0xa1: /* TDMA_DATA_BEAT */
		return integral(b, Q2_DMA_BEATS, b->inst, t, 1);
	case 0xa4: /* TPIO_DATA_PACKET */
		return integral(b, Q2_PIO_PKTS, b->inst, t, 1);
	case 0xa5: /* TDMA_DATA_PACKET */
		return integral(b, Q2_DMA_PKTS, b->inst, t, 1);
	default:
		return background(b, code, t);
	}
}

/* llt: HNF0/HNF1 halves 42 codes apart, GDC banks 0/1 at 84 and 123 */
static uint64_t llt_truth(const struct block *b, unsigned code, uint64_t t)
{
	int i = b->inst;

	if (code < 84) {
		switch (code % 42) {
		case 0: /* HNFn_CYCLES */
			return integral(b, Q3_LLT_CLOCK, 0, t, 1);
		case 1: /* HNFn_REQS_RECEIVED */
		case 2: /* HNFn_REQS_PROCESSED */
			return integral(b, Q3_LLT_REQ, i, t, 0.5);
		case 11: /* HNFn_MEM_READS */
			return integral(b, Q3_LLT_MEM_RD, i, t, 0.5);
		case 12: /* HNFn_MEM_WRITES */
			return integral(b, Q3_LLT_MEM_WR, i, t, 0.5);
		case 13: /* HNFn_MEM_ACCESS */
			return integral(b, Q3_LLT_MEM_RD, i, t, 0.5) +
			       integral(b, Q3_LLT_MEM_WR, i, t, 0.5);
		}
	} else if (code < 162) {
		switch ((code - 84) % 39) {
		case 3: /* GDC_BANKn_HIT */
			return part(b, Q3_LLT_GDC, i, Q3_LLT_HIT, i, t, 0.5, true);
		case 4: /* GDC_BANKn_MISS */
			return part(b, Q3_LLT_GDC, i, Q3_LLT_HIT, i, t, 0.5, false);
		}
	}
	return background(b, code, t);
}

static uint64_t llt_miss_truth(const struct block *b, unsigned code, uint64_t t)
{
	if (code == 0) /* GDC_MISS_MACHINE_RD_REQ: the GDC misses of both banks */
		return 2 * part(b, Q3_LLT_GDC, b->inst, Q3_LLT_HIT, b->inst, t, 0.5, false);
	return background(b, code, t);
}

static uint64_t mss_truth(const struct block *b, unsigned code, uint64_t t)
{
	if (b->bf->gen == 3 && code == 1) /* SKYLIB_DDN_TX_FLITS */
		return integral(b, Q3_MSS_DDN_TX, b->inst, t, 1);
	if (b->bf->gen == 3 && code == 6) /* SKYLIB_DDN_RX_FLITS */
		return integral(b, Q3_MSS_DDN_RX, b->inst, t, 1);
	return background(b, code, t);
}

static uint64_t truth(const struct block *b, unsigned code, uint64_t t)
{
	switch (b->family) {
	case F_TILE:
		return tile_truth(b, code, t);
	case F_L3:
		return l3_truth(b, code, t);
	case F_TRIO:
		return trio_truth(b, code, t);
	case F_LLT:
		return llt_truth(b, code, t);
	case F_LLT_MISS:
		return llt_miss_truth(b, code, t);
	case F_MSS:
		return mss_truth(b, code, t);
	default:
		return background(b, code, t);
	}
}

/* What counter i counts: its event, or the clock when count_clock says so. */
static uint64_t src(const struct block *b, int i, uint64_t t)
{
	if (b->type == T_CRSPACE && (b->count_clock >> i & 1))
		return integral(b, b->family == F_MSS ? Q3_MSS_CLOCK : Q3_LLT_CLOCK, 0, t, 1);
	return truth(b, b->ctr[i].code, t);
}

/* Register i of a register block: pcie and ecc statistics count, the rest hold. */
static bool reg_counts(const struct block *b, int i)
{
	return b->family == F_PCIE ||
	       (b->family == F_ECC && (b->tab->e[i].code == 0x100 || b->tab->e[i].code == 0x104));
}

static uint64_t reg_truth(const struct block *b, int i, uint64_t t)
{
	if (b->family == F_PCIE)
		return integral(b, Q2_PCIE + i, b->inst, t, 1);
	if (b->family == F_ECC && b->tab->e[i].code == 0x100)
		return integral(b, Q2_ECC_SINGLE, 0, t, 1);
	if (b->family == F_ECC && b->tab->e[i].code == 0x104)
		return integral(b, Q2_ECC_DOUBLE, 0, t, 1);
	return 0;
}

/* clock_measure: a static illustrative PLL frequency over a 1000-cycle 100 MHz window */
static uint64_t clock_measure(const struct block *b, int i)
{
	double mhz = sim_scenario__background(scn(b), 0xc10c, (uint64_t)i / 2, 200, 3000);

	return i % 2 ? 1000 : (uint64_t)(mhz * 10);
}

static uint64_t now(const struct block *b)
{
	return sim_scn_now(b->bf->sim);
}

/* ---- reads --------------------------------------------------------------------------- */

static int event_list_show(const struct evtab *t, char *p)
{
	size_t len = 0, ret = 0;

	/* the driver stops before the running length reaches PAGE_SIZE */
	for (size_t i = 0; i < t->n; i++) {
		char line[100]; /* MLXBF_PMC_EVENT_INFO_LEN */
		int n = snprintf(line, sizeof(line), "0x%x: %s\n", t->e[i].code, t->e[i].name);

		len += (size_t)n;
		if (len >= PAGE_SIZE)
			break;
		memcpy(p + ret, line, (size_t)n);
		ret = len;
	}
	return (int)ret;
}

static uint64_t counter_read(const struct block *b, int i, uint64_t t)
{
	const struct sim_counter *c = &b->ctr[i].c;
	uint64_t lo, hi;

	if (!b->l3)
		return sim_counter__value(c, src(b, i, t));
	/* two 32-bit reads, LOW first: a running counter can carry in between */
	lo = sim_counter__value(c, src(b, i, t)) & 0xffffffffu;
	hi = sim_counter__value(c, src(b, i, t + L3_READ_GAP_NS)) >> 32;
	return hi << 32 | lo;
}

static int show(const struct file *f, char *p)
{
	const struct block *b = f->b;
	uint64_t t = now(b), v;
	const char *name;

	switch (f->what) {
	case W_EVENT_LIST:
		return event_list_show(b->tab, p);
	case W_ENABLE:
		return snprintf(p, PAGE_SIZE, "%u\n", b->en);
	case W_COUNT_CLOCK:
		return snprintf(p, PAGE_SIZE, "%u\n", b->count_clock);
	case W_EVENT:
		name = ev_name(b->tab, b->ctr[f->idx].code);
		if (!name)
			return -EINVAL; /* a code not in the table reads back as an error */
		return snprintf(p, PAGE_SIZE, "0x%x: %s\n", b->ctr[f->idx].code, name);
	case W_COUNTER:
		return snprintf(p, PAGE_SIZE, "0x%llx\n",
				(unsigned long long)counter_read(b, f->idx, t));
	case W_REG:
		if (b->family == F_CLOCK)
			v = clock_measure(b, f->idx);
		else
			v = sim_counter__value(&b->reg[f->idx], reg_truth(b, f->idx, t));
		return snprintf(p, PAGE_SIZE, "0x%llx\n", (unsigned long long)v);
	default:
		return -EINVAL;
	}
}

static ssize_t bf_read(void *data, void *buf, size_t len, uint64_t off)
{
	char page[PAGE_SIZE];
	int n = show(data, page);

	if (n < 0)
		return n;
	if (off >= (uint64_t)n)
		return 0;
	if (len > (size_t)n - off)
		len = (size_t)n - (size_t)off;
	memcpy(buf, page + off, len);
	return (ssize_t)len;
}

/* ---- writes -------------------------------------------------------------------------- */

/* lib/kstrtox.c kstrtouint(s, 0): optional '+', 0x/0 prefixes, one trailing newline */
static int kstrtouint0(const char *s, unsigned *ret)
{
	unsigned base = 10;
	uint64_t v = 0;
	bool overflow = false;
	const char *p;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		base = tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2]) ? 16 :
											      8;
		if (base == 16)
			s += 2;
	}
	for (p = s; *p; p++) {
		int c = tolower((unsigned char)*p);
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (overflow)
		return -ERANGE;
	if (p == s)
		return -EINVAL;
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	if (v > UINT_MAX)
		return -ERANGE;
	*ret = (unsigned)v;
	return 0;
}

/* lib/kstrtox.c kstrtobool: looks at the first one or two characters only */
static int kstrtobool(const char *s, bool *ret)
{
	if (s[0] && strchr("yYtT1", s[0])) {
		*ret = true;
		return 0;
	}
	if (s[0] && strchr("nNfF0", s[0])) {
		*ret = false;
		return 0;
	}
	if ((s[0] == 'o' || s[0] == 'O') && s[1] && strchr("nNfF", s[1])) {
		*ret = s[1] == 'n' || s[1] == 'N';
		return 0;
	}
	return -EINVAL;
}

/* Counter i starts over from 0 on the current truth and runs. */
static void restart(struct block *b, int i, uint64_t t)
{
	struct sim_counter *c = &b->ctr[i].c;

	c->running = false;
	sim_counter__set(c, 0, src(b, i, t));
	sim_counter__start(c, src(b, i, t));
}

static void stop_all(struct block *b, uint64_t t)
{
	for (int i = 0; i < b->counters; i++)
		sim_counter__stop(&b->ctr[i].c, src(b, i, t));
	b->en = false;
}

static void program(struct block *b, int i, unsigned code, uint64_t t)
{
	uint64_t old;

	if (b->l3) {
		/* all of the block's counters stop until enable is written */
		stop_all(b, t);
		b->ctr[i].code = code;
	} else if (b->type == T_CRSPACE) {
		/* only the select field changes: the value stays, the source moves */
		old = src(b, i, t);
		b->ctr[i].code = code & 0xff;
		sim_counter__switch(&b->ctr[i].c, old, src(b, i, t));
	} else {
		/* EN0, the event, then clear the accumulator */
		b->ctr[i].code = code & 0xff;
		restart(b, i, t);
	}
}

static int event_store(struct block *b, int i, char *s, uint64_t t)
{
	unsigned code;
	int r;

	if (isalpha((unsigned char)s[0])) {
		size_t n = strlen(s);

		if (s[n - 1] == '\n')
			s[n - 1] = '\0';
		r = ev_code(b->tab, s, &code);
	} else {
		r = kstrtouint0(s, &code);
		if (r == 0 && !ev_name(b->tab, code))
			r = -EINVAL;
	}
	if (r == 0)
		program(b, i, code, t);
	return r;
}

static int counter_store(struct block *b, int i, const char *s, uint64_t t)
{
	unsigned v;
	int r = kstrtouint0(s, &v);

	if (r < 0)
		return r;
	if (b->family != F_ECC && v)
		return -EINVAL; /* only ecc takes a non-zero value */
	if (b->l3)
		return -EINVAL; /* the driver never writes L3 counters */
	if (b->type == T_CRSPACE)
		sim_counter__set(&b->ctr[i].c, 0, src(b, i, t));
	else
		program(b, i, b->ctr[i].code, t); /* re-program: back to 0 */
	return 0;
}

static int reg_store(struct block *b, int i, const char *s, uint64_t t)
{
	unsigned v;
	int r = kstrtouint0(s, &v);

	if (r < 0)
		return r;
	if ((b->family != F_ECC && v) || b->family == F_CLOCK)
		return -EINVAL;
	sim_counter__set(&b->reg[i], v, reg_truth(b, i, t));
	return 0;
}

static int enable_store(struct block *b, const char *s, uint64_t t)
{
	bool en;
	int r = kstrtobool(s, &en);

	if (r < 0)
		return r;
	if (!en) {
		stop_all(b, t); /* values kept */
		return 0;
	}
	/* l3cache: RST then EN; CRSPACE: EN with CLR */
	for (int i = 0; i < b->counters; i++)
		restart(b, i, t);
	b->en = true;
	return 0;
}

static int count_clock_store(struct block *b, const char *s, uint64_t t)
{
	uint64_t old[MAX_CTRS];
	unsigned v;
	int r = kstrtouint0(s, &v);

	if (r < 0)
		return r;
	for (int i = 0; i < b->counters; i++)
		old[i] = src(b, i, t);
	b->count_clock = v;
	for (int i = 0; i < b->counters; i++)
		sim_counter__switch(&b->ctr[i].c, old[i], src(b, i, t));
	return 0;
}

static ssize_t bf_write(void *data, const void *buf, size_t len, uint64_t off)
{
	struct file *f = data;
	struct block *b = f->b;
	uint64_t t = now(b);
	char s[PAGE_SIZE + 1];
	int r;

	if (len == 0)
		return 0;
	if (len > PAGE_SIZE)
		len = PAGE_SIZE;
	memcpy(s, buf, len);
	s[len] = '\0';
	switch (f->what) {
	case W_EVENT:
		r = event_store(b, f->idx, s, t);
		break;
	case W_COUNTER:
		r = counter_store(b, f->idx, s, t);
		break;
	case W_REG:
		r = reg_store(b, f->idx, s, t);
		break;
	case W_ENABLE:
		r = enable_store(b, s, t);
		break;
	case W_COUNT_CLOCK:
		r = count_clock_store(b, s, t);
		break;
	default:
		r = -EACCES; /* event_list is 0444 */
		break;
	}
	return r < 0 ? r : (ssize_t)len;
}

/* Files are 0644 root (event_list 0444): kernfs refuses a write open of a
 * file without store, the VFS a non-root writer. */
static int bf_open(void *data, int flags)
{
	const struct file *f = data;

	if ((flags & O_ACCMODE) == O_RDONLY)
		return 0;
	if (f->what == W_EVENT_LIST || !f->b->bf->root)
		return -EACCES;
	return 0;
}

static const struct sim_file_ops bf_ops = {
	.read = bf_read,
	.write = bf_write,
	.open = bf_open,
};

/* ---- the driver's probe -------------------------------------------------------------- */

static bool gated_out(const struct acpi *a, const char *name, int family)
{
	unsigned n;

	switch (family) {
	case F_TILENET:
		return a->tile_num >= 0 &&
		       (sscanf(name, "tilenet%u", &n) != 1 || n >= (unsigned)a->tile_num);
	case F_TILE:
		return a->tile_num >= 0 &&
		       (sscanf(name, "tile%u", &n) != 1 || n >= (unsigned)a->tile_num);
	case F_MSS:
		return a->gen == 3 && (sscanf(name, "mss%u", &n) != 1 || !(a->mss_enable >> n & 1));
	case F_LLT_MISS:
		return sscanf(name, "llt_miss%u", &n) != 1 || !(a->llt_enable >> n & 1);
	case F_LLT:
		return sscanf(name, "llt%u", &n) != 1 || !(a->llt_enable >> n & 1);
	default:
		return false;
	}
}

static int add_file(struct block *b, int k, int what, int idx, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int add_file(struct block *b, int k, int what, int idx, const char *fmt, ...)
{
	char leaf[96], path[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(leaf, sizeof(leaf), fmt, ap);
	va_end(ap);
	b->files[k] = (struct file){ .b = b, .what = what, .idx = idx };
	snprintf(path, sizeof(path), HWMON "/%s/%s", b->name, leaf);
	return sim_vfs__add_dynamic(pm_sim__vfs(b->bf->sim), path, &bf_ops, &b->files[k]);
}

static int add_block(struct bf *bf, const struct acpi_block *ab, int family)
{
	struct block *b = &bf->blocks[bf->n_blocks];
	struct evtab *tab = &bf->tabs[family];
	const char *digits = ab->name + strlen(ab->name);
	int r = 0, k = 0;

	while (digits > ab->name && isdigit((unsigned char)digits[-1]))
		digits--; /* the instance: "l3cachehalf1" is 1, "ecc" 0 */
	if (!tab->n) {
		r = tab_build(tab, family_runs(family, bf->gen));
		if (r < 0)
			return r;
	}
	*b = (struct block){
		.bf = bf,
		.family = family,
		.type = ab->type,
		.inst = atoi(digits),
		.counters = ab->type == T_REGISTER ? 0 : PM_MIN(ab->counters, MAX_CTRS),
		.l3 = family == F_L3,
		.tab = tab,
	};
	bf->n_blocks++;
	snprintf(b->name, sizeof(b->name), "%s", ab->name);
	b->ctr = calloc((size_t)PM_MAX(b->counters, 1), sizeof(*b->ctr));
	b->reg = calloc(tab->n, sizeof(*b->reg));
	b->files = calloc(tab->n + 3 + 2 * (size_t)b->counters, sizeof(*b->files));
	if (!b->ctr || !b->reg || !b->files)
		return -ENOMEM;
	if (ab->type == T_REGISTER) {
		for (size_t i = 0; r == 0 && i < tab->n; i++) {
			struct sim_counter *c = &b->reg[i];

			c->width = family == F_PCIE ? 64 : 32;
			c->running = reg_counts(b, (int)i);
			if (family == F_PCIE) /* counted since boot */
				c->held = sim_count(sim_scenario__background(scn(b), 0x9c1e, i, 1e9,
									     1e12),
						    1) &
					  sim_counter__mask(c);
			r = add_file(b, k++, W_REG, (int)i, "%s", tab->e[i].name);
		}
		return r;
	}
	for (int i = 0; i < b->counters; i++)
		b->ctr[i].c.width = b->l3 ? 57 : ab->type == T_CRSPACE ? 32 : 64;
	r = add_file(b, k++, W_EVENT_LIST, 0, "event_list");
	if (r == 0 && (b->l3 || ab->type == T_CRSPACE))
		r = add_file(b, k++, W_ENABLE, 0, "enable");
	if (r == 0 && ab->type == T_CRSPACE)
		r = add_file(b, k++, W_COUNT_CLOCK, 0, "count_clock");
	for (int i = 0; r == 0 && i < b->counters; i++) {
		r = add_file(b, k++, W_COUNTER, i, "counter%d", i);
		if (r == 0)
			r = add_file(b, k++, W_EVENT, i, "event%d", i);
	}
	return r;
}

static int probe(struct bf *bf, const struct acpi *a)
{
	char text[64];
	int r;

	bf->blocks = calloc(a->n, sizeof(*bf->blocks));
	if (!bf->blocks)
		return -ENOMEM;
	/* an unrelated hwmon device first: never assume bfperf's number */
	r = sim_writef(bf->sim, "acpitz\n", "sys/class/hwmon/hwmon0/name");
	if (r == 0)
		r = sim_writef(bf->sim, "45000\n", "sys/class/hwmon/hwmon0/temp1_input");
	if (r == 0)
		r = sim_writef(bf->sim, "bfperf\n", HWMON "/name");
	if (r == 0)
		r = sim_writef(bf->sim, "", HWMON "/uevent");
	if (r == 0)
		r = sim_writef(bf->sim, "auto\n", HWMON "/power/control");
	snprintf(text, sizeof(text), "acpi:%s:\n", a->hid);
	if (r == 0)
		r = sim_writef(bf->sim, text, HWMON "/device/modalias");
	for (size_t i = 0; r == 0 && i < a->n; i++) {
		const struct acpi_block *ab = &a->blocks[i];
		int family = family_of(ab->name);

		if (family < 0 || gated_out(a, ab->name, family) || !family_runs(family, a->gen))
			continue; /* "ignoring unsupported block" */
		r = add_block(bf, ab, family);
	}
	return r;
}

/* ---- the machines -------------------------------------------------------------------- */

static void where(int cpu, int *pkg, int *die, int *core, void *ud)
{
	*pkg = 0;
	*die = 0;
	*core = cpu;
}

static int build(struct pm_sim *sim, const struct sim_platform_opts *o, const struct acpi *a)
{
	int n_cpus = a->gen == 2 ? 8 : 16;
	const char *part = a->gen == 2 ? "0xd08" : "0xd41"; /* Cortex-A72, Cortex-A78 */
	struct bf *bf = calloc(1, sizeof(*bf));
	struct pm_strbuf info = { 0 };
	int r;

	if (!bf)
		return -ENOMEM;
	bf->sim = sim;
	bf->gen = a->gen;
	bf->root = o->root;
	sim_set_platform_data(sim, bf, bf_free);
	r = sim_topology(sim, n_cpus, where, NULL);
	if (r == 0)
		r = sim_add_common(sim);
	for (int c = 0; c < n_cpus; c++)
		pm_strbuf__printf(&info,
				  "processor\t: %d\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
				  "CPU part\t: %s\n\n",
				  c, part);
	if (r == 0)
		r = info.oom ? -ENOMEM : sim_writef(sim, info.s, "proc/cpuinfo");
	pm_strbuf__done(&info);
	if (r == 0)
		r = probe(bf, a);
	if (r == 0)
		r = sim_kmod(sim, "mlxbf_pmc", "kernel/drivers/platform/mellanox/mlxbf-pmc.ko",
			     SIM_KMOD_LOADED);
	return r;
}

static int build2(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	return build(sim, o, &bf2_acpi);
}

static int build3(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	return build(sim, o, &bf3_acpi);
}

const struct sim_platform sim_platform_bluefield2 = {
	.name = "bluefield2",
	.summary = "NVIDIA BlueField-2: 8 A72 cores, mlxbf-pmc hwmon bfperf (tile, trio, l3cache, "
		   "pcie, ecc ...)",
	.quantities = bf2_quantities,
	.n_quantities = PM_ARRAY_SIZE(bf2_quantities),
	.scenario = "# built-in: steady traffic, instances differ by up to 10%\n"
		    "seed 1\n"
		    "jitter 10%\n",
	.options = "user",
	.build = build2,
};

const struct sim_platform sim_platform_bluefield3 = {
	.name = "bluefield3",
	.summary =
		"NVIDIA BlueField-3: 16 A78 cores, mlxbf-pmc crspace blocks (llt, llt_miss, mss), "
		"32-bit counters",
	.quantities = bf3_quantities,
	.n_quantities = PM_ARRAY_SIZE(bf3_quantities),
	.scenario = "# built-in: steady traffic, instances differ by up to 10%\n"
		    "seed 1\n"
		    "jitter 10%\n",
	.options = "user",
	.build = build3,
};
