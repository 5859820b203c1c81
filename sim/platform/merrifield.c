// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel Merrifield (Tangier, Atom Z34xx / Edison, family 6 model 0x4A):
 * 2 CPUs, the IOSF sideband mailbox, and the SoC counter block behind it.
 *
 * Facts (../shared/facts/merrifield.md; kernel sources cited in
 * docs/simulator-merrifield.md):
 *  - §2 the transport: MCR = op << 24 | port << 16 | (offset & 0xFF) << 8 |
 *    0xF0, the upper 24 offset bits in MCRX; host bridge 0000:00:00.0
 *    (8086:1170) config space MCR 0xD0, MDR 0xD4, MCRX 0xD8;
 *  - §2 mainline iosf_mbi.c with CONFIG_IOSF_MBI_DEBUG: debugfs
 *    iosf_sb/{mdr,mcrx} are debugfs_create_x32 files, iosf_sb/mcr a simple
 *    attribute whose write fires a transaction (odd opcode: write MDR, even:
 *    read into MDR; mcrx ORed into the offset; MCRX written to the bridge
 *    only when non-zero; port 0x06 refused with EPERM; CAP_SYS_RAWIO, and
 *    debugfs itself root-only); the read formats
 *    "0x%08llx\n" (x32) and "%llx\n" (mcr) and kstrtoull(base 0) writes;
 *  - §3 the counter block: opcodes 0/1, 8 counters of 32 bits,
 *    STOP 0x00040000, SAMPLE 0x00020000, START 0x00110000;
 *  - seed 001: the nine UNC_SOC_* groups, one or two channels by SKU,
 *    Module0's partial events count every request, the other agents'
 *    only partial ones, self-refresh counts DRAM clocks.
 *
 * SIMULATION-ONLY (not facts; docs/simulator-merrifield.md):
 *  - the counter block on port 0x17: the drivers' default constant, which
 *    merrifield.md §1/§6 says is unconfirmed for Merrifield;
 *  - the register map in merrifield-map.h: the mux port and offsets, the
 *    source/event values, the CCCR/DATA offsets. Intel's is not public;
 *  - SAMPLE copies the running count into DATA and a DATA read returns that
 *    copy; a DATA write sets the running count and the copy; CCCR values
 *    other than the three commands are kept and do nothing; a select the
 *    map does not know counts nothing;
 *  - on the counter and mux ports only opcodes 0 and 1 act; every other
 *    register reads 0 and ignores writes; the bridge's MCRX applies to the
 *    next MCR write only and then reads 0 again (inferred: both drivers
 *    write MCRX only when non-zero, which would misaddress a later
 *    low-offset access if it stayed);
 *  - the rest of the host bridge's config space is read-only here;
 *  - the scenario's quantities and defaults, and the SoC and DRAM clocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "merrifield-map.h"
#include "platform.h"
#include "util/util.h"
#include "vfs.h"

enum {
	Q_DDR_READ,
	Q_DDR_WRITE,
	Q_DEEP_SR,
	Q_SHALLOW_SR,
	Q_DDR_CLOCK,
	Q_SOC_CLOCK,
	Q_READ32,
	Q_READ64,
	Q_READ_PARTIAL,
	Q_WRITE32,
	Q_WRITE64,
	Q_WRITE_PARTIAL,
	Q_SNOOP_REQS,
	Q_SNOOP_REPLIES,
};

#define AGENTS 5 /* instances of agent.*: mod0, disp, gfx, imaging, lowspeedpf */

static const struct sim_quantity quantities[] = {
	[Q_DDR_READ] = { "ddr.read", "B/s", 2, 600e6,
			 "read bytes per second per memory channel (0-1); Read32B = bytes / 32" },
	[Q_DDR_WRITE] = { "ddr.write", "B/s", 2, 300e6,
			  "write bytes per second per memory channel (0-1)" },
	[Q_DEEP_SR] = { "ddr.deep_selfref", "ratio", 2, 0.2,
			"share of time a channel is in deep self-refresh" },
	[Q_SHALLOW_SR] = { "ddr.shallow_selfref", "ratio", 2, 0.1,
			   "share of time a channel is in shallow self-refresh" },
	[Q_DDR_CLOCK] = { "ddr.clock", "Hz", 1, 400e6,
			  "DRAM clock: self-refresh events count its cycles" },
	[Q_SOC_CLOCK] = { "soc.clock", "Hz", 1, 200e6, "SoC clock: every group's Clock_Counter" },
	[Q_READ32] = { "agent.read32", "1/s", AGENTS, 2e6,
		       "32-byte read requests per second per agent (0 mod0, 1 disp, 2 gfx, "
		       "3 imaging, 4 lowspeedpf)" },
	[Q_READ64] = { "agent.read64", "1/s", AGENTS, 4e6,
		       "64-byte read requests per second per agent" },
	[Q_READ_PARTIAL] = { "agent.read_partial", "1/s", AGENTS, 5e5,
			     "partial-size read requests per second per agent (only those)" },
	[Q_WRITE32] = { "agent.write32", "1/s", AGENTS, 1e6,
			"32-byte write requests per second per agent" },
	[Q_WRITE64] = { "agent.write64", "1/s", AGENTS, 2e6,
			"64-byte write requests per second per agent" },
	[Q_WRITE_PARTIAL] = { "agent.write_partial", "1/s", AGENTS, 5e5,
			      "partial-size write requests per second per agent (only those)" },
	[Q_SNOOP_REQS] = { "mod0.snoop_reqs", "1/s", 1, 1e6,
			   "snoop requests sent to module 0 per second" },
	[Q_SNOOP_REPLIES] = { "mod0.snoop_replies", "1/s", 1, 9e5,
			      "snoop replies from module 0 per second" },
};

/* merrifield.md §2; arch/x86/include/asm/iosf_mbi.h */
#define MBI_UNIT_GFX 0x06 /* iosf_mbi_read/write refuse it */
#define CFG_SIZE 256	  /* conventional PCI config space */
#define CFG_UNPRIV 64	  /* pci_read_config: bytes a user without CAP_SYS_ADMIN sees */
#define ATTR_BUF 24	  /* struct simple_attr's get_buf and set_buf */

struct mf_counter {
	uint32_t src, evt; /* the mux registers (simulation-only) */
	uint32_t cccr;	   /* the last value written to the control register */
	uint32_t data;	   /* the DATA register: the count at the last SAMPLE */
	struct sim_counter c;
};

struct mf;

/* One debugfs file of iosf_sb: its variable and format. */
struct dbg_file {
	struct mf *m;
	uint32_t *var;
	bool fires; /* mcr: "%llx\n" and a write starts a transaction; else "0x%08llx\n" */
	char get_buf[ATTR_BUF];
};

struct mf {
	struct pm_sim *sim;
	int channels;
	bool root;
	/* the host bridge's mailbox registers (config space 0xD0, 0xD4, 0xD8) */
	uint32_t hw_mcr, hw_mdr, hw_mcrx;
	uint8_t cfg[CFG_SIZE]; /* the rest of its config space */
	/* iosf_mbi.c's dbg_mdr, dbg_mcr, dbg_mcrx */
	uint32_t dbg_mdr, dbg_mcr, dbg_mcrx;
	struct dbg_file dbg[3];
	struct mf_counter ctr[MF_COUNTERS];
};

/* ---- the truth -------------------------------------------------------------------- */

static double integ(const struct mf *m, int q, int inst, uint64_t t)
{
	return sim_scenario__integral(sim_scn(m->sim), q, inst, t);
}

/*
 * The cumulative count of a (source, event) selection at scenario time t.
 * Sums add partial, 32-byte and 64-byte requests in that order, reads
 * before writes (tests add in the same order to compare exactly).
 */
static uint64_t sel_truth(const struct mf *m, uint32_t src, uint32_t evt, uint64_t t)
{
	const struct sim_scenario *s = sim_scn(m->sim);
	int ch, a;
	double v;

	if (src == MF_SIM_SRC_CLOCK)
		return evt == MF_SIM_EVT_CLOCK ? sim_count(integ(m, Q_SOC_CLOCK, 0, t), 1) : 0;
	if (src == MF_SIM_SRC_DDR0 || src == MF_SIM_SRC_DDR1) {
		ch = src == MF_SIM_SRC_DDR0 ? 0 : 1;
		if (ch >= m->channels)
			return 0; /* seed 001: a one-channel SKU's channel 1 counts zero */
		switch (evt) {
		case MF_SIM_EVT_DDR_READ32:
			return sim_count(integ(m, Q_DDR_READ, ch, t), 1.0 / 32);
		case MF_SIM_EVT_DDR_WRITE32:
			return sim_count(integ(m, Q_DDR_WRITE, ch, t), 1.0 / 32);
		case MF_SIM_EVT_DDR_DEEP_SR:
			return sim_count(sim_scenario__integral2(s, Q_DEEP_SR, ch, Q_DDR_CLOCK, 0,
								 t),
					 1);
		case MF_SIM_EVT_DDR_SHALLOW_SR:
			return sim_count(sim_scenario__integral2(s, Q_SHALLOW_SR, ch, Q_DDR_CLOCK,
								 0, t),
					 1);
		default:
			return 0;
		}
	}
	if (src < MF_SIM_SRC_MOD0 || src >= MF_SIM_SRC_MOD0 + AGENTS)
		return 0;
	a = (int)(src - MF_SIM_SRC_MOD0);
	switch (evt) {
	case MF_SIM_EVT_REQS:
		v = integ(m, Q_READ_PARTIAL, a, t) + integ(m, Q_READ32, a, t) +
		    integ(m, Q_READ64, a, t) + integ(m, Q_WRITE_PARTIAL, a, t) +
		    integ(m, Q_WRITE32, a, t) + integ(m, Q_WRITE64, a, t);
		return sim_count(v, 1);
	case MF_SIM_EVT_READ_PARTIAL:
		v = integ(m, Q_READ_PARTIAL, a, t);
		if (a == 0) /* seed 001: Module0's counts 32 B and 64 B reads too */
			v = v + integ(m, Q_READ32, a, t) + integ(m, Q_READ64, a, t);
		return sim_count(v, 1);
	case MF_SIM_EVT_WRITE_PARTIAL:
		v = integ(m, Q_WRITE_PARTIAL, a, t);
		if (a == 0)
			v = v + integ(m, Q_WRITE32, a, t) + integ(m, Q_WRITE64, a, t);
		return sim_count(v, 1);
	case MF_SIM_EVT_READ32:
		return sim_count(integ(m, Q_READ32, a, t), 1);
	case MF_SIM_EVT_READ64:
		return sim_count(integ(m, Q_READ64, a, t), 1);
	case MF_SIM_EVT_WRITE32:
		return sim_count(integ(m, Q_WRITE32, a, t), 1);
	case MF_SIM_EVT_WRITE64:
		return sim_count(integ(m, Q_WRITE64, a, t), 1);
	case MF_SIM_EVT_SNOOP_REPLIES:
		return a == 0 ? sim_count(integ(m, Q_SNOOP_REPLIES, 0, t), 1) : 0;
	case MF_SIM_EVT_SNOOP_REQS:
		return a == 0 ? sim_count(integ(m, Q_SNOOP_REQS, 0, t), 1) : 0;
	default:
		return 0;
	}
}

static uint64_t ctr_truth(const struct mf *m, const struct mf_counter *c)
{
	return sel_truth(m, c->src, c->evt, sim_scn_now(m->sim));
}

/* ---- the counter block and its mux (simulation-only map) --------------------------- */

static int ctr_index(uint32_t off, uint32_t base)
{
	if (off < base || (off - base) % 8 || (off - base) / 8 >= MF_COUNTERS)
		return -1;
	return (int)((off - base) / 8);
}

static uint32_t reg_read(struct mf *m, uint8_t op, uint8_t port, uint32_t off)
{
	int i;

	if (op != MF_OP_READ)
		return 0;
	if (port == MF_CHAP_PORT) {
		if ((i = ctr_index(off, MF_SIM_CCCR(0))) >= 0)
			return m->ctr[i].cccr;
		if ((i = ctr_index(off, MF_SIM_DATA(0))) >= 0)
			return m->ctr[i].data;
	} else if (port == MF_SIM_MUX_PORT) {
		if ((i = ctr_index(off, MF_SIM_SRC(0))) >= 0)
			return m->ctr[i].src;
		if ((i = ctr_index(off, MF_SIM_EVT(0))) >= 0)
			return m->ctr[i].evt;
	}
	return 0;
}

static void cccr_write(struct mf *m, struct mf_counter *c, uint32_t v)
{
	uint64_t truth = ctr_truth(m, c);

	c->cccr = v;
	switch (v) {
	case MF_CMD_STOP:
		sim_counter__stop(&c->c, truth);
		break;
	case MF_CMD_START:
		sim_counter__start(&c->c, truth);
		break;
	case MF_CMD_SAMPLE:
		c->data = (uint32_t)sim_counter__value(&c->c, truth);
		break;
	default:
		break; /* kept, no effect (simulation-only) */
	}
}

static void select_write(struct mf *m, struct mf_counter *c, bool is_src, uint32_t v)
{
	uint64_t old = ctr_truth(m, c);

	if (is_src)
		c->src = v;
	else
		c->evt = v;
	/* the register keeps its count and follows the new selection from now */
	sim_counter__switch(&c->c, old, ctr_truth(m, c));
}

static void reg_write(struct mf *m, uint8_t op, uint8_t port, uint32_t off, uint32_t v)
{
	int i;

	if (op != MF_OP_WRITE)
		return;
	if (port == MF_CHAP_PORT) {
		if ((i = ctr_index(off, MF_SIM_CCCR(0))) >= 0) {
			cccr_write(m, &m->ctr[i], v);
		} else if ((i = ctr_index(off, MF_SIM_DATA(0))) >= 0) {
			sim_counter__set(&m->ctr[i].c, v, ctr_truth(m, &m->ctr[i]));
			m->ctr[i].data = v;
		}
	} else if (port == MF_SIM_MUX_PORT) {
		if ((i = ctr_index(off, MF_SIM_SRC(0))) >= 0)
			select_write(m, &m->ctr[i], true, v);
		else if ((i = ctr_index(off, MF_SIM_EVT(0))) >= 0)
			select_write(m, &m->ctr[i], false, v);
	}
}

/* A write of the bridge's MCR: the message goes out (merrifield.md §2). */
static void mcr_fire(struct mf *m)
{
	uint8_t op = (uint8_t)(m->hw_mcr >> 24), port = (uint8_t)(m->hw_mcr >> 16);
	uint32_t off = (m->hw_mcrx & 0xFFFFFF00u) | ((m->hw_mcr >> 8) & 0xFF);

	if (op & 1)
		reg_write(m, op, port, off, m->hw_mdr);
	else
		m->hw_mdr = reg_read(m, op, port, off);
	m->hw_mcrx = 0; /* consumed (simulation-only) */
}

/* ---- iosf_mbi.c: iosf_mbi_read / iosf_mbi_write ------------------------------------ */

static int mbi_access(struct mf *m, uint8_t op, uint8_t port, uint32_t offset, uint32_t *mdr)
{
	uint32_t mcrx = offset & 0xFFFFFF00u;

	if (port == MBI_UNIT_GFX)
		return -EPERM; /* "Access to the GFX unit is handled by GPU code" */
	if (op & 1)
		m->hw_mdr = *mdr; /* iosf_mbi_pci_write_mdr: MDR, then MCRX, then MCR */
	if (mcrx)
		m->hw_mcrx = mcrx; /* only when non-zero */
	m->hw_mcr = MF_MCR(op, port, offset);
	mcr_fire(m);
	if (!(op & 1))
		*mdr = m->hw_mdr;
	return 0;
}

/* ---- debugfs iosf_sb/{mcr,mdr,mcrx}: simple_attr_read/_write ------------------------ */

/* kstrtoull(s, 0, &v): one trailing newline, a leading '+', 0x/0 prefixes. */
static int kstrtoull0(const char *s, uint64_t *ret)
{
	size_t len = strlen(s);

	if (len && s[len - 1] == '\n')
		len--;
	if (len && s[0] == '+') {
		s++;
		len--;
	}
	return pm_parse_u64(s, len, 0, ret);
}

static int dbg_open(void *data, int flags)
{
	struct dbg_file *f = data;

	/* debugfs is mounted 0700 (DEBUGFS_DEFAULT_MODE): root only */
	return f->m->root ? 0 : -EACCES;
}

static ssize_t dbg_read(void *data, void *buf, size_t len, uint64_t off)
{
	struct dbg_file *f = data;
	size_t size;

	/* a first read (offset 0) formats the value; a continued one reuses it */
	if (off == 0 || !f->get_buf[0]) {
		if (f->fires) /* DEFINE_SIMPLE_ATTRIBUTE(iosf_mcr_fops, ..., "%llx\n") */
			snprintf(f->get_buf, sizeof(f->get_buf), "%llx\n",
				 (unsigned long long)*f->var);
		else /* fops_x32 */
			snprintf(f->get_buf, sizeof(f->get_buf), "0x%08llx\n",
				 (unsigned long long)*f->var);
	}
	size = strlen(f->get_buf);
	if (off >= size || !len)
		return 0;
	if (len > size - off)
		len = size - (size_t)off;
	memcpy(buf, f->get_buf + off, len);
	return (ssize_t)len;
}

/* mcr_set(): the command word is stored, then the transaction runs. */
static int mcr_set(struct mf *m, uint64_t val)
{
	uint8_t command = (uint8_t)(val >> 24), port = (uint8_t)(val >> 16),
		offset = (uint8_t)(val >> 8);

	m->dbg_mcr = (uint32_t)val;
	if (!m->root)
		return -EACCES; /* !capable(CAP_SYS_RAWIO) */
	return mbi_access(m, command, port, m->dbg_mcrx | offset, &m->dbg_mdr);
}

static ssize_t dbg_write(void *data, const void *buf, size_t len, uint64_t off)
{
	struct dbg_file *f = data;
	char set_buf[ATTR_BUF];
	size_t size = PM_MIN(sizeof(set_buf) - 1, len);
	uint64_t val;
	int r;

	/* simple_attr_write: the first 23 bytes, position ignored */
	memcpy(set_buf, buf, size);
	set_buf[size] = '\0';
	r = kstrtoull0(set_buf, &val);
	if (r < 0)
		return r;
	if (f->fires)
		r = mcr_set(f->m, val);
	else
		*f->var = (uint32_t)val; /* debugfs_u32_set */
	return r < 0 ? r : (ssize_t)len;
}

static const struct sim_file_ops dbg_ops = {
	.read = dbg_read,
	.write = dbg_write,
	.open = dbg_open,
	.no_pread = true, /* debugfs attributes are opened nonseekable */
};

/* ---- PCI 0000:00:00.0 config: pci_read_config / pci_write_config -------------------- */

static uint32_t *mailbox_reg(struct mf *m, unsigned off)
{
	switch (off & ~3u) {
	case MF_PCI_MCR:
		return &m->hw_mcr;
	case MF_PCI_MDR:
		return &m->hw_mdr;
	case MF_PCI_MCRX:
		return &m->hw_mcrx;
	default:
		return NULL;
	}
}

static uint8_t cfg_byte(struct mf *m, unsigned off)
{
	uint32_t *r = mailbox_reg(m, off);

	return r ? (uint8_t)(*r >> (8 * (off & 3))) : m->cfg[off];
}

/* One config access of size 1, 2 or 4; a write touching MCR fires. */
static void cfg_access(struct mf *m, unsigned off, uint8_t *data, unsigned size, bool write)
{
	bool fire = false;

	for (unsigned k = 0; k < size; k++) {
		uint32_t *r = mailbox_reg(m, off + k);
		unsigned sh = 8 * ((off + k) & 3);

		if (!write) {
			data[k] = cfg_byte(m, off + k);
		} else if (r) {
			*r = (*r & ~(0xFFu << sh)) | ((uint32_t)data[k] << sh);
			fire |= r == &m->hw_mcr;
		}
		/* writes elsewhere in the header are dropped (simulation-only) */
	}
	if (fire)
		mcr_fire(m);
}

/* The access sizes pci_read_config/pci_write_config split a request into. */
static void cfg_split(struct mf *m, unsigned off, uint8_t *data, unsigned size, bool write)
{
	unsigned done = 0;

	if ((off & 1) && size) {
		cfg_access(m, off, data, 1, write);
		off++;
		done++;
		size--;
	}
	if ((off & 3) && size > 2) {
		cfg_access(m, off, data + done, 2, write);
		off += 2;
		done += 2;
		size -= 2;
	}
	while (size > 3) {
		cfg_access(m, off, data + done, 4, write);
		off += 4;
		done += 4;
		size -= 4;
	}
	if (size >= 2) {
		cfg_access(m, off, data + done, 2, write);
		off += 2;
		done += 2;
		size -= 2;
	}
	if (size)
		cfg_access(m, off, data + done, 1, write);
}

static int cfg_open(void *data, int flags)
{
	struct mf *m = data;

	/* -rw-r--r-- root */
	return m->root || (flags & O_ACCMODE) == O_RDONLY ? 0 : -EACCES;
}

static ssize_t cfg_read(void *data, void *buf, size_t len, uint64_t off)
{
	struct mf *m = data;
	size_t size = m->root ? CFG_SIZE : CFG_UNPRIV;

	if (off > size)
		return 0;
	if (len > size - off)
		len = size - (size_t)off;
	cfg_split(m, (unsigned)off, buf, (unsigned)len, false);
	return (ssize_t)len;
}

static ssize_t cfg_write(void *data, const void *buf, size_t len, uint64_t off)
{
	struct mf *m = data;
	uint8_t tmp[CFG_SIZE];

	if (off >= CFG_SIZE)
		return -EFBIG; /* sysfs_kf_bin_write past the attribute's size */
	if (len > CFG_SIZE - off)
		len = CFG_SIZE - (size_t)off;
	memcpy(tmp, buf, len);
	cfg_split(m, (unsigned)off, tmp, (unsigned)len, true);
	return (ssize_t)len;
}

static const struct sim_file_ops cfg_ops = {
	.read = cfg_read,
	.write = cfg_write,
	.open = cfg_open,
};

/* ---- the machine ---------------------------------------------------------------------- */

static void where(int cpu, int *pkg, int *die, int *core, void *ud)
{
	*pkg = 0;
	*die = 0;
	*core = cpu;
}

static int add_devices(struct pm_sim *sim, struct mf *m)
{
	static const char *const names[] = { "mdr", "mcrx", "mcr" };
	const char *pci = "sys/bus/pci/devices/0000:00:00.0";
	struct sim_vfs *v = pm_sim__vfs(sim);
	char path[128];
	int r = 0;

	m->dbg[0] = (struct dbg_file){ .m = m, .var = &m->dbg_mdr };
	m->dbg[1] = (struct dbg_file){ .m = m, .var = &m->dbg_mcrx };
	m->dbg[2] = (struct dbg_file){ .m = m, .var = &m->dbg_mcr, .fires = true };
	for (size_t i = 0; r == 0 && i < PM_ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "sys/kernel/debug/iosf_sb/%s", names[i]);
		r = sim_vfs__add_dynamic(v, path, &dbg_ops, &m->dbg[i]);
	}
	/* the host bridge: 8086:1170 (iosf_mbi.c PCI_DEVICE_ID_INTEL_TANGIER) */
	m->cfg[0x00] = 0x86;
	m->cfg[0x01] = 0x80;
	m->cfg[0x02] = 0x70;
	m->cfg[0x03] = 0x11;
	m->cfg[0x0B] = 0x06; /* class 0x060000, a host bridge */
	if (r == 0)
		r = sim_writef(sim, "0x8086\n", "%s/vendor", pci);
	if (r == 0)
		r = sim_writef(sim, "0x1170\n", "%s/device", pci);
	if (r == 0)
		r = sim_writef(sim, "0x060000\n", "%s/class", pci);
	if (r == 0) {
		snprintf(path, sizeof(path), "%s/config", pci);
		r = sim_vfs__add_dynamic(v, path, &cfg_ops, m);
	}
	return r;
}

static int build(struct pm_sim *sim, const struct sim_platform_opts *o)
{
	struct pm_strbuf info = { 0 };
	struct mf *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	sim_set_platform_data(sim, m, free);
	m->sim = sim;
	m->channels = o->channels;
	m->root = o->root;
	for (size_t i = 0; i < MF_COUNTERS; i++)
		m->ctr[i].c.width = MF_COUNTER_BITS;
	r = sim_topology(sim, 2, where, NULL);
	if (r == 0)
		r = sim_add_common(sim);
	for (int c = 0; r == 0 && c < 2; c++)
		pm_strbuf__printf(&info,
				  "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
				  "model\t\t: 74\nmodel name\t: Intel(R) Atom(TM) CPU Z34xx "
				  "(simulated Merrifield)\nstepping\t: 0\n\n",
				  c);
	if (r == 0)
		r = info.oom ? -ENOMEM : sim_writef(sim, info.s, "proc/cpuinfo");
	pm_strbuf__done(&info);
	if (r == 0)
		r = add_devices(sim, m);
	if (r == 0)
		r = sim_kmod(sim, "iosf_mbi", "kernel/arch/x86/platform/intel/iosf_mbi.ko",
			     SIM_KMOD_LOADED);
	return r;
}

/* ---- the programming list a user would capture (SIMULATION-ONLY) ------------------------ */

int pm_sim__sideband_program(const char *platform, char **ret_text)
{
	struct pm_strbuf b = { 0 };

	if (!platform || strcmp(platform, "merrifield") != 0)
		return -ENOENT;
	pm_strbuf__puts(&b,
			"# SIMULATION-ONLY programming list for pmumon --sim merrifield.\n"
			"# Made from the simulator's invented register map "
			"(sim/platform/merrifield-map.h),\n"
			"# NOT Intel's: on a real Merrifield these writes select nothing. Capture\n"
			"# the real list from Intel's tools (README.md, 'Merrifield').\n"
			"# Format: docs/sideband.md.\n");
	for (size_t g = 0; g < MF_SIM_N_GROUPS; g++) {
		pm_strbuf__printf(&b, "\ngroup %s\n", mf_sim_groups[g]);
		for (size_t i = 0; i < MF_SIM_N_EVENTS; i++) {
			const struct mf_sim_event *e = &mf_sim_events[i];

			if (strcmp(e->group, mf_sim_groups[g]) != 0)
				continue;
			for (size_t k = 0; k < 2; k++)
				pm_strbuf__printf(&b, "write 0x%02x 0x%02x 0x%04x 0x%02x%s%s\n",
						  e->mux[k].port, e->mux[k].opcode,
						  e->mux[k].offset, e->mux[k].value,
						  k ? "" : "    # ", k ? "" : e->event);
		}
		for (size_t i = 0; i < MF_SIM_N_EVENTS; i++) {
			const struct mf_sim_event *e = &mf_sim_events[i];

			if (!strcmp(e->group, mf_sim_groups[g]))
				pm_strbuf__printf(&b, "counter %d 0x%02x 0x%02x 0x%02x\n",
						  e->counter, MF_CHAP_PORT, MF_SIM_CCCR(e->counter),
						  MF_SIM_DATA(e->counter));
		}
	}
	if (b.oom) {
		pm_strbuf__done(&b);
		return -ENOMEM;
	}
	*ret_text = pm_strbuf__steal(&b);
	return 0;
}

/*
 * --sim state=PATH: whether each counter of the block counts. A CCCR holds
 * the last command written (power-up 0, STOP after pmumon); what it leaves
 * is a counter running or stopped, which is what must be put back. The
 * event selects stay as the last list left them, as Intel's drivers leave
 * them: a stopped counter counts nothing whatever it selects.
 */
static void state(void *data, FILE *f)
{
	const struct mf *m = data;

	for (int i = 0; i < MF_COUNTERS; i++)
		fprintf(f, "sideband/0x%02x/counter%d: %s\n", MF_CHAP_PORT, i,
			m->ctr[i].c.running ? "counting" : "stopped");
}

const struct sim_platform sim_platform_merrifield = {
	.name = "merrifield",
	.summary = "Intel Merrifield (Atom Z34xx): 2 CPUs, IOSF sideband debugfs and PCI "
		   "mailbox, SoC counter block (simulation-only event map)",
	.quantities = quantities,
	.n_quantities = PM_ARRAY_SIZE(quantities),
	.scenario = "# built-in: steady traffic, agents and channels differ by up to 10%\n"
		    "seed 1\n"
		    "jitter 10%\n"
		    "agent.write_partial[2] 6M   # graphics writes mostly partial (seed 001)\n"
		    "agent.read64[1] 8M          # display scans out in 64-byte reads\n",
	.options = "channels,user",
	.build = build,
	.state = state,
};
