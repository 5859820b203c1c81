// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sideband source: Merrifield's SoC counter block over the IOSF
 * sideband bus (docs/sideband.md), for the merrifield pack's UNC_SOC_*
 * groups, which no perf driver counts.
 *
 * - Transport (../shared/facts/merrifield.md §2): mainline iosf_mbi.c's
 *   debugfs files iosf_sb/{mcrx,mdr,mcr} (CONFIG_IOSF_MBI_DEBUG). A write
 *   is mcrx <- the offset's upper 24 bits, mdr <- the value, then mcr <-
 *   the command word, which fires it; a read is mcrx, mcr, then a fresh
 *   read of mdr. The host bridge's config space (0xD0/0xD4/0xD8 of
 *   0000:00:00.0) is used only where iosf_mbi is absent and the user asked
 *   for it (--sideband-pci): it races with the kernel's own users of the bus.
 * - What to write comes from the user's programming list
 *   (source/sideband/sideband-list.c): at open, each counter used is stopped, the
 *   group's event-select writes are replayed in order and each data
 *   register is cleared; enable writes START. A read writes SAMPLE to a
 *   counter's control register, then reads its data register (§3: the
 *   drivers' sequence). Nothing else is ever written.
 * - Counters are 32 bits (§3): deltas are taken modulo 2^32 and added up
 *   in 64 bits. Polls keep a counter from wrapping twice unseen
 *   (source/wrap.h: at most every 250 ms, sooner at the fastest rate seen);
 *   a sample that came later than the counter's wrap time at its rate
 *   allows (pmumon stopped, starved) marks it wrap_uncertain.
 * - One instance at a time: an advisory lock is held from open to close.
 *   Counters are stopped on disable and again on close (pmumon's exit path,
 *   every signal it catches included), whatever happened in between.
 */
#include "source/sideband/sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "evlist.h"
#include "pmu.h"
#include "source/counters.h"
#include "source/rotation.h"
#include "source/wrap.h"
#include "util/util.h"

#define DBG_DIR "sys/kernel/debug"
#define SB_DIR DBG_DIR "/iosf_sb"
#define BRIDGE "sys/bus/pci/devices/0000:00:00.0"
#define PCI_DRIVERS "sys/bus/pci/drivers"
#define IOSF_MBI_DRIVER "iosf_mbi_pci" /* iosf_mbi.c's pci_driver name */
#define LOCK_PATH "run/pmumon/sideband.lock"
#define CFG_MCR 0xD0 /* merrifield.md §2 */
#define CFG_MDR 0xD4
#define CFG_MCRX 0xD8
#define MBI_ENABLE 0xF0u
#define CTR_MASK ((1ull << PM_SB_COUNTER_BITS) - 1)
#define MAX_READS (4 * PM_SB_COUNTERS) /* session counters on the block (an event may repeat) */

struct sb_ctr {
	size_t counter; /* session counter */
	unsigned n;	/* the seed's counter number in the group */
	const struct pm_sb_counter *reg;
	bool started;		  /* START written, STOP not yet */
	uint32_t last;		  /* DATA at the last sample */
	uint64_t acc;		  /* counted since enable, wraps extended */
	struct pm_wrap_poll rate; /* its fastest rate: a sample too late for it is doubted */
};

struct pm_sideband_state {
	struct pm_sb_list *list;
	const struct pm_sb_group *g;
	char file[256]; /* the list's name, for messages */
	bool pci;	/* config space instead of debugfs */
	int lock;
	int fd_mcrx, fd_mdr, fd_mcr, fd_cfg;
	struct sb_ctr *c;
	size_t n_c, cap_c;
	uint64_t t_enable;
	struct pm_rotation rot; /* never rotates (a counter each): its wrap polls */
};

/* This source's state in the session (NULL before open and after close). */
static inline struct pm_sideband_state *sideband_state(const struct pm_session *s)
{
	return s->state[PM_SRC_SIDEBAND];
}

/* ---- options ------------------------------------------------------------------------- */

/*
 * Its options (pm_session_opts.source_opts, docs/sources.md): "program", the
 * programming list's text, "program_name", its name for messages, and "pci",
 * "1" to reach the sideband through the host bridge's config space where
 * debugfs iosf_sb is absent; else pm_session_opts' older fields for them.
 */
static int sideband_option(const char *key, const char *value, size_t len, struct pm_diag *reterr)
{
	if (!strcmp(key, "program") || !strcmp(key, "program_name"))
		return 0;
	if (!strcmp(key, "pci") && len == 1 && (value[0] == '0' || value[0] == '1'))
		return 0;
	pm_diag_set(reterr, "the sideband takes program=LIST, program_name=NAME and pci=0 or 1",
		    "the sideband source does not take %s='%.*s'", key, (int)PM_MIN(len, 64),
		    value);
	return -EINVAL;
}

/* The programming list's text (NULL: none given), its length and its name (NULL: none). */
static const char *program_list(const struct pm_session *s, size_t *ret_len, const char **ret_name)
{
	const char *text = s->opts.program, *name = s->opts.program_name, *v;
	size_t len = s->opts.program_len, n;

	if (pm_session__source_opt(s, PM_SRC_SIDEBAND, "program", &v, &n)) {
		text = v;
		len = n;
	}
	if (pm_session__source_opt(s, PM_SRC_SIDEBAND, "program_name", &v, &n))
		name = v;
	if (ret_len)
		*ret_len = len;
	if (ret_name)
		*ret_name = name;
	return text;
}

/* May the host bridge's config space carry the sideband? */
static bool use_pci(const struct pm_session *s)
{
	const char *v;
	size_t n;

	if (pm_session__source_opt(s, PM_SRC_SIDEBAND, "pci", &v, &n))
		return v[0] == '1';
	return s->opts.sideband_pci;
}

/* ---- transport ---------------------------------------------------------------------- */

static uint32_t mcr_word(uint8_t op, uint8_t port, uint32_t off)
{
	/* merrifield.md §2 */
	return ((uint32_t)op << 24) | ((uint32_t)port << 16) | ((off & 0xFF) << 8) | MBI_ENABLE;
}

static int put_text(struct pm_session *s, int fd, uint32_t v)
{
	char text[16];
	int n = snprintf(text, sizeof(text), "0x%08x\n", v); /* kstrtoull base 0: 0x, never octal */
	ssize_t w = s->ctx->ops->write(s->ctx->os, fd, text, (size_t)n);

	return w == n ? 0 : w < 0 ? (int)w : -EIO;
}

static int put_cfg(struct pm_session *s, unsigned off, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	ssize_t w = s->ctx->ops->pwrite(s->ctx->os, sideband_state(s)->fd_cfg, b, 4, off);

	return w == 4 ? 0 : w < 0 ? (int)w : -EIO;
}

/* The command word, after mcrx (and mdr for a write): it fires the transaction. */
static int fire(struct pm_session *s, uint8_t op, uint8_t port, uint32_t off)
{
	struct pm_sideband_state *st = sideband_state(s);
	int r;

	if (st->pci) {
		r = put_cfg(s, CFG_MCRX, off & 0xFFFFFF00u);
		return r ? r : put_cfg(s, CFG_MCR, mcr_word(op, port, off));
	}
	/* dbg_mcrx stays set in the kernel: written before every transaction, 0 too */
	r = put_text(s, st->fd_mcrx, off & 0xFFFFFF00u);
	return r ? r : put_text(s, st->fd_mcr, mcr_word(op, port, off));
}

static int sb_write(struct pm_session *s, uint8_t port, uint8_t op, uint32_t off, uint32_t v)
{
	struct pm_sideband_state *st = sideband_state(s);
	int r = st->pci ? put_cfg(s, CFG_MDR, v) : put_text(s, st->fd_mdr, v);

	return r ? r : fire(s, op, port, off);
}

static int sb_read(struct pm_session *s, uint8_t port, uint32_t off, uint32_t *ret)
{
	struct pm_sideband_state *st = sideband_state(s);
	uint64_t v;
	ssize_t n;
	int r = fire(s, PM_SB_OP_READ, port, off);

	if (r < 0)
		return r;
	if (st->pci) {
		uint8_t b[4];

		n = s->ctx->ops->pread(s->ctx->os, st->fd_cfg, b, 4, CFG_MDR);
		if (n != 4)
			return n < 0 ? (int)n : -EIO;
		*ret = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		       (uint32_t)b[3] << 24;
		return 0;
	}
	/* read afresh: the attribute formats its value on a read at position 0 */
	r = pm_read_u64(s->ctx, SB_DIR "/mdr", &v);
	if (r == -EINVAL || r == -ERANGE || (r == 0 && v > CTR_MASK))
		return -EIO; /* not "0x%08llx" */
	if (r < 0)
		return r;
	*ret = (uint32_t)v;
	return 0;
}

/* ---- opening --------------------------------------------------------------------------- */

static void sideband_close(struct pm_session *s);
static const struct pm_rotation_ops sb_rotation;

/* Why there is no iosf_sb, and the fix. */
static int no_iosf_sb(struct pm_session *s, struct pm_diag *d)
{
	struct pm_names names = { 0 };
	bool mounted = pm_list_names(s->ctx, DBG_DIR, false, NULL, &names) == 0 && names.n > 0;

	pm_names__done(&names);
	if (!mounted) {
		pm_diag_set(d, "mount it: mount -t debugfs none /sys/kernel/debug",
			    "debugfs is not mounted at /sys/kernel/debug: the sideband source "
			    "reads Merrifield's SoC counters through its iosf_sb files");
		return -ENOENT;
	}
	if (!pm_path_exists(s->ctx, PCI_DRIVERS "/" IOSF_MBI_DRIVER)) {
		pm_diag_set(d,
			    "load it (modprobe iosf_mbi) or boot a kernel with CONFIG_IOSF_MBI; its "
			    "debug files also need CONFIG_IOSF_MBI_DEBUG=y. ",
			    "no /sys/kernel/debug/iosf_sb: the iosf_mbi driver is not loaded "
			    "(no /%s/%s)",
			    PCI_DRIVERS, IOSF_MBI_DRIVER);
		pm_diag_reason(d, PM_REASON_SIDEBAND_PCI, NULL, NULL);
		return -ENOENT;
	}
	pm_diag_set(d,
		    "boot a kernel built with CONFIG_IOSF_MBI_DEBUG=y "
		    "(arch/x86/platform/intel/iosf_mbi.c)",
		    "no /sys/kernel/debug/iosf_sb: this kernel lacks iosf_mbi's debug files "
		    "(CONFIG_IOSF_MBI_DEBUG; the driver itself is loaded)");
	return -ENOENT;
}

static int open_error(struct pm_session *s, const char *path, int err, struct pm_diag *d)
{
	bool pci = !strcmp(path, BRIDGE "/config");

	if (err == -EACCES) {
		pm_diag_set(d,
			    pci ? "run pmumon as root: writing PCI config space is root's" :
				  "run pmumon as root: debugfs is root's (mode 0700), and "
				  "iosf_sb/mcr needs CAP_SYS_RAWIO",
			    "no permission to open /%s", path);
		return err;
	}
	if (err == -EPERM) {
		/* root, and still refused: what kernel lockdown does to debugfs and PCI writes */
		pm_diag_set(d,
			    "check /sys/kernel/security/lockdown: under lockdown the kernel refuses "
			    "writable debugfs files and PCI config writes, even to root",
			    "the kernel refused to open /%s for writing", path);
		return err;
	}
	pm_diag_set(d, NULL, "cannot open /%s: %s", path, strerror(-err));
	return err;
}

static int open_pci(struct pm_session *s, struct pm_diag *d)
{
	struct pm_sideband_state *st = sideband_state(s);
	struct pm_names drivers = { 0 };
	uint64_t vendor = 0, device = 0;
	bool mbi = false;
	int fd;

	if (pm_list_names(s->ctx, PCI_DRIVERS, false, IOSF_MBI_DRIVER, &drivers) == 0)
		mbi = drivers.n > 0;
	pm_names__done(&drivers);
	if (mbi) {
		pm_diag_set(d, "boot a kernel with CONFIG_IOSF_MBI_DEBUG=y and ",
			    "iosf_mbi drives the host bridge here (/%s/%s): its users hold a lock "
			    "pmumon cannot take, so reaching the sideband through the bridge's "
			    "config space would race them",
			    PCI_DRIVERS, IOSF_MBI_DRIVER);
		pm_diag_reason(d, PM_REASON_NO_SIDEBAND_PCI, NULL, NULL);
		return -EBUSY;
	}
	if (pm_read_u64(s->ctx, BRIDGE "/vendor", &vendor) < 0 ||
	    pm_read_u64(s->ctx, BRIDGE "/device", &device) < 0 || vendor != 0x8086 ||
	    device != 0x1170) {
		pm_diag_set(d,
			    "the sideband goes through the config space of Merrifield's host "
			    "bridge only",
			    "/%s is not Intel's Tangier host bridge (8086:1170)", BRIDGE);
		return -ENODEV;
	}
	fd = s->ctx->ops->open(s->ctx->os, BRIDGE "/config", O_RDWR);
	if (fd < 0)
		return open_error(s, BRIDGE "/config", fd, d);
	st->fd_cfg = fd;
	st->pci = true;
	pm_log(s->ctx, PM_LOG_WARN,
	       "the sideband goes through the host bridge's config space, as asked: this races "
	       "with the kernel's own users of the bus (power, thermal, display)");
	return 0;
}

static int open_transport(struct pm_session *s, struct pm_diag *d)
{
	struct pm_sideband_state *st = sideband_state(s);
	static const char *const files[] = { SB_DIR "/mcrx", SB_DIR "/mdr", SB_DIR "/mcr" };
	int *fds[] = { &st->fd_mcrx, &st->fd_mdr, &st->fd_mcr };

	for (size_t i = 0; i < PM_ARRAY_SIZE(files); i++) {
		int fd = s->ctx->ops->open(s->ctx->os, files[i], O_WRONLY);

		if (fd == -ENOENT && i == 0)
			return use_pci(s) ? open_pci(s, d) : no_iosf_sb(s, d);
		if (fd < 0)
			return open_error(s, files[i], fd, d);
		*fds[i] = fd;
	}
	if (use_pci(s))
		pm_log(s->ctx, PM_LOG_INFO,
		       "iosf_sb is there: the host bridge's config space is not needed for the "
		       "sideband, and not used");
	return 0;
}

/* A transaction the kernel or the bus refused: which one, and why. */
static int access_error(struct pm_session *s, int err, unsigned line, const char *what,
			struct pm_diag *d)
{
	struct pm_sideband_state *st = sideband_state(s);
	char where[320];

	if (line)
		snprintf(where, sizeof(where), "%s:%u", st->file, line);
	else
		snprintf(where, sizeof(where), "%s", st->file);
	if (!st->pci && (err == -EACCES)) {
		pm_diag_set(d, "run pmumon as root with CAP_SYS_RAWIO (containers often drop it)",
			    "the kernel refused the sideband transaction (%s, %s): iosf_sb/mcr "
			    "needs CAP_SYS_RAWIO",
			    what, where);
		return err;
	}
	if (err == -EPERM && st->pci) {
		pm_diag_set(d, "check /sys/kernel/security/lockdown (it forbids PCI config writes)",
			    "the kernel refused a write to /%s/config (%s, %s)", BRIDGE, what,
			    where);
		return err;
	}
	pm_diag_set(d,
		    err == -EPERM ? "iosf_mbi refuses port 0x06 (the GFX unit); check the list "
				    "against your capture" :
				    "check the list against your capture (docs/sideband.md)",
		    "%s refused %s (%s): %s", st->pci ? "the host bridge" : "iosf_mbi", what, where,
		    strerror(-err));
	return err;
}

/* Which counter of the group each of our session counters is. */
static int bind_counters(struct pm_session *s, struct pm_diag *d)
{
	struct pm_sideband_state *st = sideband_state(s);
	const char *group = NULL;

	for (size_t k = 0; k < s->n_c; k++) {
		const struct pm_counter *c = &s->c[k];
		const struct pm_evinst *in = &s->l->inst[c->inst];
		unsigned n = (unsigned)(in->attr.config & (PM_SB_COUNTERS - 1));
		struct sb_ctr *sc;

		if (c->source != PM_SRC_SIDEBAND || c->dropped)
			continue;
		if (group && strcmp(group, in->pmu->name) != 0) {
			pm_diag_set(d,
				    "count one group per run (the groups share the SoC's counters)",
				    "events of %s and %s: the SoC counter block holds one group at "
				    "a time",
				    group, in->pmu->name);
			return -EINVAL;
		}
		group = in->pmu->name;
		if (st->n_c == MAX_READS) {
			pm_diag_set(d, NULL, "more than %d events of group %s", MAX_READS, group);
			return -E2BIG;
		}
		if (pm_grow((void **)&st->c, &st->cap_c, st->n_c + 1, sizeof(*sc)) < 0)
			return -ENOMEM;
		sc = &st->c[st->n_c++];
		*sc = (struct sb_ctr){ .counter = k, .n = n };
	}
	if (!program_list(s, NULL, NULL)) {
		pm_diag_set(d, NULL,
			    "the %s group needs a programming list: which registers select "
			    "Merrifield's SoC events is not public, so pmumon has none",
			    group);
		pm_diag_reason(d, PM_REASON_NEEDS_PROGRAM, group, NULL);
		return -ENOENT;
	}
	st->g = pm_sb_list__group(st->list, group);
	if (!st->g) {
		struct pm_strbuf have = { 0 };

		for (size_t i = 0; i < st->list->n_g; i++)
			pm_strbuf__printf(&have, "%s%s", i ? ", " : "", st->list->g[i].name);
		pm_diag_set(d, "capture that group's list too, and add it as: group NAME ...",
			    "%s has no group %s (it has %s)", st->file, group,
			    have.s ? have.s : "none");
		pm_strbuf__done(&have);
		return -ENOENT;
	}
	for (size_t i = 0; i < st->n_c; i++) {
		const struct pm_sb_counter *reg = &st->g->ctr[st->c[i].n];

		if (!reg->present) {
			const struct pm_evinst *in = &s->l->inst[s->c[st->c[i].counter].inst];

			pm_diag_set(d, "add it: counter N PORT CTL DATA",
				    "%s: group %s declares no counter %u, which event '%s' counts on "
				    "(seed 001)",
				    st->file, st->g->name, st->c[i].n, s->l->ev[in->event].label);
			return -ENOENT;
		}
		st->c[i].reg = reg;
	}
	return 0;
}

/* Stop our counters, select the group's events, clear the data registers. */
static int program(struct pm_session *s, struct pm_diag *d)
{
	struct pm_sideband_state *st = sideband_state(s);
	char what[128];
	int r;

	for (size_t i = 0; i < st->n_c; i++) {
		const struct pm_sb_counter *c = st->c[i].reg;
		uint32_t ctl;

		/* the first transaction: it also says whether the kernel lets us */
		r = sb_read(s, c->port, c->ctl, &ctl);
		if (r < 0) {
			snprintf(what, sizeof(what), "a read of counter %u's control register",
				 st->c[i].n);
			return access_error(s, r, c->line, what, d);
		}
		if (ctl == st->g->start)
			pm_log(s->ctx, PM_LOG_WARN,
			       "SoC counter %u's control register reads the START command: a pmumon "
			       "that was killed (SIGKILL) left it running, or another tool (SoC "
			       "Watch, VTune) is counting with it; pmumon takes it over and stops it "
			       "on exit",
			       st->c[i].n);
		r = sb_write(s, c->port, PM_SB_OP_WRITE, c->ctl, PM_SB_CMD_STOP);
		if (r < 0) {
			snprintf(what, sizeof(what), "STOP to counter %u", st->c[i].n);
			return access_error(s, r, c->line, what, d);
		}
	}
	for (size_t i = 0; i < st->g->n_w; i++) {
		const struct pm_sb_write *w = &st->g->w[i];

		r = sb_write(s, w->port, w->opcode, w->offset, w->value);
		if (r < 0) {
			snprintf(what, sizeof(what),
				 "the write of 0x%x to port 0x%02x offset 0x%x (opcode 0x%02x)",
				 w->value, w->port, w->offset, w->opcode);
			return access_error(s, r, w->line, what, d);
		}
	}
	for (size_t i = 0; i < st->n_c; i++) {
		const struct pm_sb_counter *c = st->c[i].reg;

		r = sb_write(s, c->port, PM_SB_OP_WRITE, c->data, 0);
		if (r < 0) {
			snprintf(what, sizeof(what), "clearing counter %u", st->c[i].n);
			return access_error(s, r, c->line, what, d);
		}
	}
	return 0;
}

static int sideband_open(struct pm_session *s, struct pm_diag *reterr)
{
	struct pm_sideband_state *st;
	const char *text, *name;
	size_t len;
	int r;

	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_SIDEBAND && !s->c[k].dropped)
			goto needed;
	return 0;
needed:
	st = s->state[PM_SRC_SIDEBAND] = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->lock = st->fd_mcrx = st->fd_mdr = st->fd_mcr = st->fd_cfg = -1;
	st->rot = (struct pm_rotation){ .ops = &sb_rotation,
					.idle_ns = UINT64_MAX,
					.width = PM_SB_COUNTER_BITS };
	text = program_list(s, &len, &name);
	snprintf(st->file, sizeof(st->file), "%s", name ? name : "the programming list");
	r = text ? pm_sb_list__parse(text, len, st->file, &st->list, reterr) : 0;
	if (r == 0)
		r = bind_counters(s, reterr);
	if (r == 0)
		r = pm_session__lock(s, LOCK_PATH, "the SoC counters",
				     "wait for that pmumon to finish, or stop it", &st->lock,
				     reterr);
	if (r == 0)
		r = open_transport(s, reterr);
	if (r == 0)
		r = program(s, reterr);
	for (size_t i = 0; r == 0 && i < st->n_c; i++)
		s->c[st->c[i].counter].open = true; /* through the sideband's device */
	if (r < 0)
		sideband_close(s);
	return r;
}

/* ---- counting ---------------------------------------------------------------------------- */

static uint64_t now_ns(const struct pm_session *s)
{
	return s->ctx->ops->mono_ns(s->ctx->os);
}

static int fail(struct pm_session *s, int err)
{
	s->failed_device = sideband_state(s)->pci ? "/" BRIDGE "/config" : "/" SB_DIR;
	pm_session__fail(s, NULL, "a transaction with the SoC counters through %s failed: %s",
			 s->failed_device, strerror(-err));
	return err;
}

/*
 * SAMPLE then a read of DATA, per counter (merrifield.md §3), and the counts
 * brought up to now. All counters are read before anything changes, so a
 * failed read changes nothing.
 */
static int accumulate(struct pm_session *s, uint64_t now)
{
	struct pm_sideband_state *st = sideband_state(s);
	uint32_t v[MAX_READS];
	uint64_t dt = pm_rotation__elapsed(&st->rot, now);
	int r;

	for (size_t i = 0; i < st->n_c; i++) {
		const struct pm_sb_counter *c = st->c[i].reg;

		r = sb_write(s, c->port, PM_SB_OP_WRITE, c->ctl, PM_SB_CMD_SAMPLE);
		if (r == 0)
			r = sb_read(s, c->port, c->data, &v[i]);
		if (r < 0)
			return fail(s, r);
	}
	for (size_t i = 0; i < st->n_c; i++) {
		uint64_t delta; /* modulo 2^32 */

		pm_counter__raise(&s->c[st->c[i].counter],
				  pm_wrap__delta(&st->c[i].rate, PM_SB_COUNTER_BITS, true,
						 st->c[i].last, v[i], dt, &delta));
		st->c[i].acc += delta;
		st->c[i].last = v[i];
		pm_wrap_poll__note(&st->rot.wrap, delta, dt);
	}
	pm_rotation__account(&st->rot, NULL, now);
	return 0;
}

static int rot_collect(struct pm_rotation *r, void *s, uint64_t now, bool turn)
{
	(void)r;
	(void)turn;
	return accumulate(s, now);
}

static const struct pm_rotation_ops sb_rotation = { .collect = rot_collect };

static bool running(const struct pm_sideband_state *st)
{
	return st && st->n_c && st->c[0].started;
}

static int sideband_enable(struct pm_session *s)
{
	struct pm_sideband_state *st = sideband_state(s);
	int r = 0;

	if (!st)
		return 0;
	for (size_t i = 0; i < st->n_c && r == 0; i++) {
		const struct pm_sb_counter *c = st->c[i].reg;

		/* from 0 every time: a second enable must not count the first run again */
		r = sb_write(s, c->port, PM_SB_OP_WRITE, c->data, 0);
		if (r == 0)
			r = sb_write(s, c->port, PM_SB_OP_WRITE, c->ctl, st->g->start);
		st->c[i].started = r == 0;
		st->c[i].last = 0;
		st->c[i].acc = 0;
	}
	st->t_enable = now_ns(s);
	pm_rotation__start(&st->rot, st->t_enable);
	return r < 0 ? fail(s, r) : 0;
}

static uint64_t sideband_next_poll(const struct pm_session *s)
{
	const struct pm_sideband_state *st = sideband_state(s);

	return running(st) ? pm_rotation__next(&st->rot) : UINT64_MAX;
}

static int sideband_poll(struct pm_session *s)
{
	struct pm_sideband_state *st = sideband_state(s);
	uint64_t now = now_ns(s);

	return running(st) ? pm_rotation__poll(&st->rot, now, s) : 0;
}

static int sideband_read(struct pm_session *s)
{
	struct pm_sideband_state *st = sideband_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	if (!st)
		return 0;
	if (running(st)) {
		r = accumulate(s, now);
		if (r < 0)
			return r;
	}
	/* a stopped session's counts stay as they were at the stop */
	for (size_t i = 0; i < st->n_c; i++) {
		uint64_t t = st->rot.t_last - st->t_enable;

		s->c[st->c[i].counter].cur = (struct pm_reading){ st->c[i].acc, t, t };
	}
	return 0;
}

/* STOP every counter we started, whatever else fails. */
static int stop_all(struct pm_session *s)
{
	struct pm_sideband_state *st = sideband_state(s);
	unsigned stopped = 0;
	int r = 0;

	for (size_t i = 0; st && i < st->n_c; i++) {
		int e;

		if (!st->c[i].started)
			continue;
		e = sb_write(s, st->c[i].reg->port, PM_SB_OP_WRITE, st->c[i].reg->ctl,
			     PM_SB_CMD_STOP);
		if (e == 0) {
			st->c[i].started = false;
			stopped++;
		} else if (r == 0) {
			r = e;
		}
	}
	if (stopped)
		pm_log(s->ctx, PM_LOG_INFO, "stopped %u SoC counter%s (STOP to %s)", stopped,
		       stopped == 1 ? "" : "s", st->pci ? "config space" : "iosf_sb");
	return r;
}

static int sideband_disable(struct pm_session *s)
{
	struct pm_sideband_state *st = sideband_state(s);
	int r = 0, e;

	if (!running(st))
		return 0;
	r = accumulate(s, now_ns(s));
	e = stop_all(s);
	return r < 0 ? r : e < 0 ? fail(s, e) : 0;
}

static void sideband_close(struct pm_session *s)
{
	struct pm_sideband_state *st = sideband_state(s);
	int fds[4];

	if (!st)
		return;
	if (stop_all(s) < 0)
		pm_log(s->ctx, PM_LOG_WARN,
		       "could not stop every SoC counter: they may still be counting (%s)",
		       st->pci ? "config space" : "iosf_sb");
	fds[0] = st->fd_mcrx;
	fds[1] = st->fd_mdr;
	fds[2] = st->fd_mcr;
	fds[3] = st->fd_cfg;
	for (size_t i = 0; i < PM_ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			s->ctx->ops->close(s->ctx->os, fds[i]);
	if (st->lock >= 0)
		s->ctx->ops->unlock(s->ctx->os, st->lock);
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_SIDEBAND)
			s->c[k].open = false;
	pm_sb_list__free(st->list);
	pm_rotation__done(&st->rot);
	free(st->c);
	free(st);
	s->state[PM_SRC_SIDEBAND] = NULL;
}

/* Merrifield's SoC counters (sideband-discover.c): only the sideband reaches them. */
static bool sideband_claims(const struct pm_session *s, const struct pm_evinst *in)
{
	(void)s;
	return in->pmu && in->pmu->source == PM_SRC_SIDEBAND;
}

/* pmumon doctor: the SoC groups are programmed from a list only the user can give
 * (README, 'Merrifield'): no metric of theirs counts live without one. */
static void sideband_doctor(struct pm_ctx *ctx, const struct pm_doctor_who *who, pm_doctor_fn fn,
			    void *ud)
{
	char what[256];

	(void)who;
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		if (ctx->pmus[i]->source != PM_SRC_SIDEBAND)
			continue;
		snprintf(what, sizeof(what),
			 "%s counts live only with a programming list: which registers select "
			 "Merrifield's SoC events is not public",
			 ctx->pmus[i]->name);
		fn(ud, PM_VERDICT_WARNING, "metrics", what, NULL, PM_REASON_NEEDS_PROGRAM);
		return;
	}
}

const struct pm_source_ops pm_source_sideband = {
	.origin = PM_SOURCE_LIVE,
	.lock_path = LOCK_PATH,
	.needs_writable_sys = "debugfs (the sideband) is absent",
	.option = sideband_option,
	.discover = pm_sideband__discover,
	.claims = sideband_claims,
	.open = sideband_open,
	.enable = sideband_enable,
	.disable = sideband_disable,
	.read = sideband_read,
	.close = sideband_close,
	.next_poll = sideband_next_poll,
	.poll = sideband_poll,
	.doctor = sideband_doctor,
};
