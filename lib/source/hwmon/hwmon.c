// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hwmon source: BlueField's mlxbf-pmc blocks (kernel-facts §2), counted
 * through their sysfs files as pmumon's own counters, with the enabled and
 * running times perf would give, so scaling and quality work unchanged.
 *
 * - Events are programmed by numeric code, written to eventN ("0x45"):
 *   name writes broke across kernel versions (§2.5). Codes are checked
 *   against the block's table first.
 * - COUNTER blocks: writing eventN selects, clears and starts that counter;
 *   values are 64 bits. CRSPACE: writing eventN changes only the select,
 *   counterN takes 0 to clear, `enable`=1 starts all counters from 0; 32
 *   bits. l3cache: writing any eventN stops all five, `enable`=1 resets and
 *   starts them; values are 57 bits read as two halves, so a running
 *   counter can tear (§2.6): pmumon stops the block (`enable`=0), reads,
 *   and starts it again, and the stopped moments count as not running.
 *   REGISTER blocks (pcie, ecc, clock_measure) are statistics that count
 *   by themselves: only read, never written.
 * - More events than a block's counters take turns in phases of PHASE_NS,
 *   as the msr source does (source/rotation.h); counts keep enabled and
 *   running time each, and each counter's phases go to its track
 *   (source/estimate.h: the estimate between phases, its interval).
 * - Counters narrower than 64 bits are read often enough not to wrap twice
 *   unseen: at most every 2^(width-1) / fastest rate seen. A read that came
 *   later than that allows (pmumon stopped, starved) marks its counters
 *   wrap_uncertain; a statistic register or a 64-bit counter that went down
 *   was reset by someone: that stretch's counts are left out and the
 *   counter is marked reset (source/wrap.h).
 * - One instance at a time: an advisory lock (the second one is told the
 *   holder's pid). A slot someone else has programmed (an event other than
 *   DISABLE where the table has one), or a block whose `enable` is already
 *   1, is left alone and reported. On close every slot pmumon programmed is
 *   put back as found: DISABLE where the table has it (never the NVIDIA
 *   doc's 0xff, which current kernels reject, §2.8), else the event that
 *   was there; `enable` back to 0. A slot reprogrammed meanwhile by someone
 *   else is left to them: every look at a counting slot reads its eventN
 *   back (check_slots), and a slot whose event is not the one pmumon wrote
 *   stops counting there (the counts before the change are kept, the
 *   counter is marked reprogrammed) and is never written again.
 * - A slot, or a block with `enable` 1, holding only codes pmumon programs
 *   for the events asked is what a pmumon killed with SIGKILL leaves: named
 *   so and left alone; with reclaim (stat --reclaim) reset to the power-up
 *   select 0 (DISABLE), `enable` 0, and used.
 * - A block that fails mid-run — it goes away (ENODEV), or the driver
 *   refuses a read or a write (EIO, EBUSY, EACCES, EINVAL, ...) — is
 *   reported once; its counters are lost (their counts stop at the last
 *   good read, their rows say so) and the rest go on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "evlist.h"
#include "pmu.h"
#include "source/counters.h"
#include "source/hwmon/hwmon.h"
#include "source/rotation.h"
#include "source/wrap.h"
#include "util/util.h"

#define PHASE_NS 25000000ull /* 25 ms, as the msr source (docs/bounds.md) */
#define LOCK_PATH "run/pmumon/bfperf.lock"

struct hw_slot {
	int ev_fd, ctr_fd;
	long saved;	/* the code found at open; -1: unreadable */
	bool other;	/* someone else's: left alone */
	bool touched;	/* we programmed it: put back on close */
	uint32_t wrote; /* the code we last wrote */
	int on;		/* index into the block's ctr counting now, -1 none */
	uint64_t last;	/* counter value at the last accumulation */
};

struct hw_block {
	const struct pm_pmu *pmu;
	const struct pm_hwmon_block *b;
	int enable_fd;	  /* l3cache and crspace, else -1 */
	bool other;	  /* `enable` was 1: the whole block is someone else's */
	bool started;	  /* counting: we wrote `enable`=1 and not 0 since */
	bool ran;	  /* we ever wrote `enable`=1: write 0 on close */
	bool gone;	  /* went away mid-run */
	bool has_disable; /* its table has DISABLE (code 0) */
	bool warned_wrap;
	struct hw_slot *slot;
	struct pm_rotation rot; /* its session counters on the free slots, in turn */
	int *reg_fd;		/* REGISTER: per ctr, its file */
	uint64_t *reg_last;	/* REGISTER: per ctr, the value at the last accumulation */
	uint64_t *vals;		/* scratch: one value per slot, or per ctr for registers */
	uint64_t t_run;		/* l3cache: started counting */
};

struct pm_hwmon_state {
	struct pm_reading *acc;	   /* per session counter, since enable */
	struct pm_wrap_poll *rate; /* per session counter: its fastest rate, to doubt a late read */
	struct hw_block *blk;
	size_t n_blk, cap_blk;
	int lock;
	int deferred; /* an error of the last accumulation (in disable): the next read says it */
	char failed[192];
};

/* This source's state in the session (NULL before open and after close). */
static inline struct pm_hwmon_state *hwmon_state(const struct pm_session *s)
{
	return s->state[PM_SRC_HWMON];
}

static uint64_t now_ns(const struct pm_session *s)
{
	return s->ctx->ops->mono_ns(s->ctx->os);
}

/* ---- file access ------------------------------------------------------------------ */

static int write_text(struct pm_session *s, int fd, const char *text)
{
	ssize_t n = s->ctx->ops->pwrite(s->ctx->os, fd, text, strlen(text), 0);

	return n < 0 ? (int)n : (size_t)n == strlen(text) ? 0 : -EIO;
}

static int write_code(struct pm_session *s, struct hw_slot *sl, uint32_t code)
{
	char text[16];
	int r;

	snprintf(text, sizeof(text), "0x%x", code);
	r = write_text(s, sl->ev_fd, text);
	if (r == 0) {
		sl->wrote = code;
		sl->touched = true;
	}
	return r;
}

static int read_text(struct pm_session *s, int fd, char *buf, size_t size)
{
	ssize_t n = s->ctx->ops->pread(s->ctx->os, fd, buf, size - 1, 0);

	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/* counterN, register files: "0x%llx\n" (§2.4); enable: "%u\n". */
static int read_value(struct pm_session *s, int fd, uint64_t *ret)
{
	char buf[32];
	int r = read_text(s, fd, buf, sizeof(buf));

	if (r < 0)
		return r; /* the driver's own error (EINVAL, EIO, ...) */
	pm_rtrim(buf);
	return pm_parse_u64_str(buf, 0, ret) < 0 ? -EPROTO : 0;
}

/* eventN's text, "0x45: HNF_REQUESTS" (§2.4): its code; false for "No event being
 * monitored" or anything else. */
static bool code_of(const char *text, uint64_t *ret)
{
	return strchr(text, ':') && pm_parse_u64(text, strcspn(text, ":"), 16, ret) == 0;
}

/* eventN read: its code, or -1 when it names none. */
static int read_code(struct pm_session *s, int fd, long *ret)
{
	char buf[96];
	uint64_t code;
	int r = read_text(s, fd, buf, sizeof(buf));

	if (r < 0)
		return r;
	*ret = code_of(buf, &code) && code <= LONG_MAX ? (long)code : -1;
	return 0;
}

static const char *code_name(const struct pm_pmu *p, uint64_t code)
{
	char terms[32];

	snprintf(terms, sizeof(terms), "event=0x%llx", (unsigned long long)code);
	for (size_t i = 0; i < p->n_aliases; i++)
		if (!strcmp(p->aliases[i].terms, terms))
			return p->aliases[i].name;
	return NULL;
}

/* Does the block's table name code 0 DISABLE: a selected slot then counts (§2.5)? */
static bool has_disable(const struct pm_pmu *p)
{
	return code_name(p, 0) && !strcmp(code_name(p, 0), "DISABLE");
}

/* A slot's code for a message: its event name, or "an event" when no table has it. */
static const char *slot_event(const struct pm_pmu *p, uint64_t code)
{
	const char *name = code_name(p, code);

	return name ? name : "an event";
}

/* What the driver's error codes mean (kernel-facts §2.7). */
static const char *driver_error(int err)
{
	switch (err) {
	case -EINVAL:
		return "the driver rejected the value (not in the block's table, or not writable)";
	case -ENODEV:
		return "the block or counter is gone";
	case -EFAULT:
		return "the register access failed (MMIO or firmware SMC call)";
	case -EACCES:
		return "permission denied (not root, or the firmware refused the access)";
	case -EPROTO:
		return "the driver's text was not what pmumon expects";
	default:
		return strerror(-err);
	}
}

static int block_error(struct pm_session *s, const struct hw_block *k, const char *what, int err)
{
	snprintf(hwmon_state(s)->failed, sizeof(hwmon_state(s)->failed), "%s", k->pmu->name);
	s->failed_device = hwmon_state(s)->failed;
	pm_log(s->ctx, PM_LOG_WARN, "%s: %s: %s", k->pmu->name, what, driver_error(err));
	pm_session__fail(s, NULL, "%s: %s: %s", k->pmu->name, what, driver_error(err));
	return err;
}

/* ---- opening ------------------------------------------------------------------------ */

static int open_file(struct pm_session *s, const struct hw_block *k, const char *name, int flags,
		     struct pm_diag *d)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", k->b->dir, name);
	fd = s->ctx->ops->open(s->ctx->os, path, flags);
	if (fd == -EACCES || fd == -EPERM)
		pm_diag_set(d, "run pmumon as root: the mlxbf-pmc files are root's (mode 0644)",
			    "no permission to open /%s for %s", path,
			    flags == O_RDONLY ? "reading" : "writing");
	else if (fd < 0) {
		pm_diag_set(d, "check that the mlxbf-pmc driver is loaded; ", "cannot open /%s: %s",
			    path, driver_error(fd));
		pm_diag_reason(d, PM_REASON_SEE_LIST, NULL, "pmus");
	}
	return fd;
}

static const struct pm_rotation_ops hw_rotation;

static struct hw_block *block_for(struct pm_hwmon_state *st, const struct pm_pmu *p)
{
	struct hw_block *k;

	for (size_t i = 0; i < st->n_blk; i++)
		if (st->blk[i].pmu == p)
			return &st->blk[i];
	if (pm_grow((void **)&st->blk, &st->cap_blk, st->n_blk + 1, sizeof(*k)) < 0)
		return NULL;
	k = &st->blk[st->n_blk++];
	*k = (struct hw_block){ .pmu = p, .b = pm_hwmon__block(p), .enable_fd = -1 };
	/* narrow counters are read before they can wrap twice (source/wrap.h) */
	k->rot = (struct pm_rotation){ .ops = &hw_rotation,
				       .phase_ns = PHASE_NS,
				       .idle_ns = UINT64_MAX,
				       .width = pm_hwmon__block(p)->width };
	return k;
}

/*
 * CRSPACE `count_clock` (§2.5): a set bit i makes counter i count clock
 * cycles whatever its event says. Someone set it: those slots are theirs.
 */
static int read_count_clock(struct pm_session *s, struct hw_block *k, struct pm_diag *d)
{
	char path[512], text[32];
	uint64_t mask = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/count_clock", k->b->dir);
	n = pm_read_file(s->ctx, path, text, sizeof(text));
	if (n == -ENOENT)
		return 0; /* kernels before the count_clock patch */
	if (n < 0 || pm_parse_u64_str(text, 0, &mask) < 0) {
		pm_diag_set(d, NULL, "cannot read /%s: %s", path,
			    driver_error(n < 0 ? (int)n : -EPROTO));
		return n < 0 ? (int)n : -EPROTO;
	}
	for (unsigned j = 0; j < k->b->counters && j < 32; j++)
		if (mask & (1ull << j)) {
			k->slot[j].other = true;
			pm_log(s->ctx, PM_LOG_WARN,
			       "%s counter %u counts clock cycles (bit %u of count_clock is set): "
			       "left alone",
			       k->pmu->name, j, j);
		}
	return 0;
}

/* Is code one that pmumon programs on this block for the events asked? */
static bool asked_code(const struct pm_session *s, const struct hw_block *k, long code)
{
	for (size_t i = 0; code >= 0 && i < k->rot.n_ctr; i++)
		if (s->l->inst[s->c[k->rot.ctr[i]].inst].attr.config == (uint64_t)code)
			return true;
	return false;
}

/*
 * A block whose `enable` reads 1, programmed as pmumon programs the events
 * asked: every slot holds one of their codes or the power-up select 0, at
 * least one holds an asked code, and no count_clock bit is set (pmumon
 * never sets one). What a pmumon killed with SIGKILL leaves behind.
 */
static bool left_by_pmumon(struct pm_session *s, const struct hw_block *k)
{
	char path[512], text[96];
	uint64_t v;
	bool asked = false;

	if (k->b->kind == PM_HWMON_CRSPACE) {
		snprintf(path, sizeof(path), "%s/count_clock", k->b->dir);
		if (pm_read_file(s->ctx, path, text, sizeof(text)) >= 0 &&
		    (pm_parse_u64_str(text, 0, &v) < 0 || v != 0))
			return false;
	}
	for (unsigned j = 0; j < k->b->counters; j++) {
		snprintf(path, sizeof(path), "%s/event%u", k->b->dir, j);
		if (pm_read_file(s->ctx, path, text, sizeof(text)) < 0 || !code_of(text, &v) ||
		    v > LONG_MAX)
			return false;
		if (asked_code(s, k, (long)v))
			asked = true;
		else if (v != 0)
			return false;
	}
	return asked;
}

/* The block's counters: files open, and whose is each slot? */
/*
 * A block with an enable file (L3 cache, crspace): already counting? For
 * another program, or as a killed pmumon left it: left alone (1, k->other),
 * or with --reclaim set to 0 (*ret_reclaimed). 0 to go on, 1 to leave the
 * block, -errno (d says why).
 */
static int survey_enable(struct pm_session *s, struct hw_block *k, bool *ret_reclaimed,
			 struct pm_diag *d)
{
	uint64_t en = 0;
	bool mine;
	int r;

	k->enable_fd = open_file(s, k, "enable", O_RDWR, d);
	if (k->enable_fd < 0)
		return k->enable_fd;
	r = read_value(s, k->enable_fd, &en);
	if (r < 0) {
		pm_diag_set(d, NULL, "cannot read /%s/enable: %s", k->b->dir, driver_error(r));
		return r;
	}
	mine = en && left_by_pmumon(s, k);
	if (mine && s->opts.reclaim) {
		r = write_text(s, k->enable_fd, "0");
		if (r < 0) {
			pm_diag_set(d, NULL, "cannot write 0 to /%s/enable: %s", k->b->dir,
				    driver_error(r));
			return r;
		}
		*ret_reclaimed = true;
		pm_log_reason(s->ctx, PM_LOG_WARN, PM_REASON_RECLAIMED, k->pmu->name, NULL,
			      "%s was counting exactly the events asked, as a pmumon that was "
			      "killed leaves it: reclaimed",
			      k->pmu->name);
	} else if (mine) {
		k->other = true;
		pm_log_reason(s->ctx, PM_LOG_WARN, PM_REASON_NEEDS_RECLAIM, k->pmu->name,
			      "if no other program uses it, ",
			      "%s is counting exactly what pmumon programs for the events asked "
			      "(its enable file reads 1): a pmumon that was killed (SIGKILL) left "
			      "it, or another program counts the same; left alone, its events "
			      "will show as not counted",
			      k->pmu->name);
		return 1;
	} else if (en) {
		k->other = true;
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s is counting for another program (its enable file reads 1): left "
		       "alone, its events will show as not counted",
		       k->pmu->name);
		return 1;
	}
	return 0;
}

/*
 * Slot j: its files opened and its select read; one a killed pmumon left is
 * reset under --reclaim, one another program programmed is left alone
 * (sl->other). 0 or -errno (d says why).
 */
static int survey_slot(struct pm_session *s, struct hw_block *k, unsigned j, bool reclaimed,
		       struct pm_diag *d)
{
	struct hw_slot *sl = &k->slot[j];
	char name[32];
	int r;

	snprintf(name, sizeof(name), "event%u", j);
	sl->ev_fd = open_file(s, k, name, O_RDWR, d);
	snprintf(name, sizeof(name), "counter%u", j);
	/* CRSPACE counters are cleared by writing 0 */
	sl->ctr_fd = sl->ev_fd < 0 ?
			     sl->ev_fd :
			     open_file(s, k, name,
				       k->b->kind == PM_HWMON_CRSPACE ? O_RDWR : O_RDONLY, d);
	if (sl->ctr_fd < 0)
		return sl->ctr_fd;
	r = read_code(s, sl->ev_fd, &sl->saved);
	if (r < 0) {
		pm_diag_set(d, NULL, "cannot read /%s/event%u: %s", k->b->dir, j, driver_error(r));
		return r;
	}
	/* left by a pmumon that was killed, and reclaim asked: back to the power-up select */
	if (sl->saved > 0 && asked_code(s, k, sl->saved) &&
	    (reclaimed || (s->opts.reclaim && k->b->kind == PM_HWMON_COUNTER && k->has_disable))) {
		if (!reclaimed)
			pm_log_reason(s->ctx, PM_LOG_WARN, PM_REASON_RECLAIMED, k->pmu->name, NULL,
				      "%s counter %u was counting %s (0x%lx), as a pmumon that was "
				      "killed leaves it: reclaimed",
				      k->pmu->name, j, slot_event(k->pmu, (uint64_t)sl->saved),
				      sl->saved);
		r = write_text(s, sl->ev_fd, "0x0");
		if (r < 0) {
			pm_diag_set(d, NULL, "cannot write 0 to /%s/event%u: %s", k->b->dir, j,
				    driver_error(r));
			return r;
		}
		sl->saved = 0;
	}
	/* a programmed COUNTER slot counts: someone else's, if DISABLE could say otherwise */
	if (k->b->kind == PM_HWMON_COUNTER && (sl->saved < 0 || (sl->saved && k->has_disable))) {
		sl->other = true;
		if (sl->saved < 0)
			pm_log(s->ctx, PM_LOG_WARN,
			       "%s counter %u: the driver cannot read its event (No event "
			       "being monitored): left alone",
			       k->pmu->name, j);
		else if (asked_code(s, k, sl->saved))
			pm_log_reason(s->ctx, PM_LOG_WARN, PM_REASON_NEEDS_RECLAIM, k->pmu->name,
				      "if no other program uses it, ",
				      "%s counter %u is counting %s (0x%lx), exactly what pmumon "
				      "programs for the events asked: a pmumon that was killed "
				      "(SIGKILL) left it, or another program counts the same; left "
				      "alone",
				      k->pmu->name, j, slot_event(k->pmu, (uint64_t)sl->saved),
				      sl->saved);
		else
			pm_log(s->ctx, PM_LOG_WARN,
			       "%s counter %u is counting %s (0x%lx) for another program: left "
			       "alone (if nothing uses it, write 0 to /%s/event%u)",
			       k->pmu->name, j, slot_event(k->pmu, (uint64_t)sl->saved), sl->saved,
			       k->b->dir, j);
	}
	return 0;
}

static int survey(struct pm_session *s, struct hw_block *k, struct pm_diag *d)
{
	unsigned n = k->b->counters;
	bool reclaimed = false; /* left running by a pmumon; reset for --reclaim */
	int r = 0;

	k->has_disable = has_disable(k->pmu);
	k->slot = calloc(n ? n : 1, sizeof(*k->slot));
	for (unsigned j = 0; k->slot && j < n; j++)
		k->slot[j] = (struct hw_slot){ .ev_fd = -1, .ctr_fd = -1, .on = -1 };
	k->vals = calloc(n ? n : 1, sizeof(*k->vals));
	if (!k->slot || !k->vals)
		return -ENOMEM;
	if (k->b->kind == PM_HWMON_L3CACHE || k->b->kind == PM_HWMON_CRSPACE) {
		r = survey_enable(s, k, &reclaimed, d);
		if (r)
			return r < 0 ? r : 0;
	}
	if (k->b->kind == PM_HWMON_CRSPACE) {
		r = read_count_clock(s, k, d);
		if (r < 0)
			return r;
	}
	for (unsigned j = 0; j < n && r == 0; j++)
		r = survey_slot(s, k, j, reclaimed, d);
	return r;
}

/* Is the counter's code one of the block's events? Else say which exist. */
static int check_code(struct pm_session *s, const struct hw_block *k, size_t c, struct pm_diag *d)
{
	const struct pm_evinst *in = &s->l->inst[s->c[c].inst];
	const struct pm_event *ev = &s->l->ev[s->c[c].event];
	uint64_t v = in->attr.config;

	if (k->b->kind == PM_HWMON_REGISTER ? v < k->b->n_regs : code_name(k->pmu, v) != NULL)
		return 0;
	pm_diag_set(d, "each block has its own events: ", "%s has no %s %#llx (event '%s')",
		    k->pmu->name, k->b->kind == PM_HWMON_REGISTER ? "register" : "event code",
		    (unsigned long long)v, ev->label);
	pm_diag_reason(d, PM_REASON_SEE_LIST, k->pmu->name, "events");
	pm_diag_point(d, ev->spec, ev->spec_pos, ev->spec_len);
	return -EINVAL;
}

static void hwmon_close(struct pm_session *s);

static int take_lock(struct pm_session *s, struct pm_diag *d)
{
	return pm_session__lock(s, LOCK_PATH, "the BlueField counters",
				"stop that pmumon first (register blocks such as pcie need no lock: "
				"count only those to run alongside it)",
				&hwmon_state(s)->lock, d);
}

static int hwmon_open(struct pm_session *s, struct pm_diag *reterr)
{
	struct pm_hwmon_state *st;
	bool programs = false;
	int r = 0;

	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_HWMON)
			goto needed;
	return 0;
needed:
	st = s->state[PM_SRC_HWMON] = calloc(1, sizeof(*st));
	if (!st || !(st->acc = calloc(s->n_c, sizeof(*st->acc))) ||
	    !(st->rate = calloc(s->n_c, sizeof(*st->rate)))) {
		if (st)
			free(st->acc);
		free(st);
		s->state[PM_SRC_HWMON] = NULL;
		return -ENOMEM;
	}
	st->lock = -1;
	for (size_t c = 0; c < s->n_c && r == 0; c++) {
		const struct pm_evinst *in = &s->l->inst[s->c[c].inst];
		struct hw_block *k;

		if (s->c[c].source != PM_SRC_HWMON)
			continue;
		k = block_for(st, in->pmu);
		if (!k || pm_rotation__add(&k->rot, c) < 0) {
			r = -ENOMEM;
			break;
		}
		r = check_code(s, k, c, reterr);
		programs |= k->b->kind != PM_HWMON_REGISTER;
	}
	if (r == 0 && programs)
		r = take_lock(s, reterr);
	for (size_t i = 0; i < st->n_blk && r == 0; i++) {
		struct hw_block *k = &st->blk[i];

		if (k->b->kind != PM_HWMON_REGISTER) {
			r = survey(s, k, reterr);
			continue;
		}
		k->reg_fd = malloc(k->rot.n_ctr * sizeof(*k->reg_fd));
		for (size_t j = 0; k->reg_fd && j < k->rot.n_ctr; j++)
			k->reg_fd[j] = -1;
		k->reg_last = calloc(k->rot.n_ctr, sizeof(*k->reg_last));
		k->vals = calloc(k->rot.n_ctr, sizeof(*k->vals));
		if (!k->reg_fd || !k->reg_last || !k->vals) {
			r = -ENOMEM;
			break;
		}
		for (size_t j = 0; j < k->rot.n_ctr && r == 0; j++) {
			size_t reg = (size_t)s->l->inst[s->c[k->rot.ctr[j]].inst].attr.config;

			k->reg_fd[j] = open_file(s, k, k->b->regs[reg], O_RDONLY, reterr);
			r = k->reg_fd[j] < 0 ? k->reg_fd[j] : 0;
		}
	}
	if (r < 0) {
		hwmon_close(s);
		return r;
	}
	for (size_t c = 0; c < s->n_c; c++)
		if (s->c[c].source == PM_SRC_HWMON)
			s->c[c].open = true; /* the block's files */
	return 0;
}

/* ---- counting ------------------------------------------------------------------------- */

static unsigned free_slots(const struct hw_block *k)
{
	unsigned n = 0;

	for (unsigned j = 0; !k->other && j < k->b->counters; j++)
		n += !k->slot[j].other;
	return n;
}

/*
 * A block failed mid-run: it went away (ENODEV, ENOENT), or the driver
 * refused a read or a write (EIO, EBUSY, EACCES, EINVAL, EFAULT, ...). Its
 * counters are lost from here on: their counts stop at the last good read
 * (the totals keep what came before), their rows are marked lost and
 * partial, and the rest of the session goes on (session.c says when
 * nothing is left). Said once, naming the block and the error.
 */
static void lose(struct pm_session *s, struct hw_block *k, const char *what, int err)
{
	if (k->gone)
		return;
	k->gone = true;
	for (size_t i = 0; i < k->rot.n_ctr; i++)
		s->c[k->rot.ctr[i]].lost = true;
	s->lost_err = err;
	if (err == -ENODEV || err == -ENOENT)
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s went away (%s): its events are not counted from now on; %s",
		       k->pmu->name, driver_error(err), pm_session__rest(s));
	else
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s: %s failed: %s; its events are not counted from now on (their counts "
		       "stop at the last good read); %s",
		       k->pmu->name, what, driver_error(err), pm_session__rest(s));
}

/* A counter advanced by delta in dt: remember the fastest rate, warn of a risky wrap. */
static void note_rate(struct pm_session *s, struct hw_block *k, uint64_t delta, uint64_t dt)
{
	if (!dt || k->b->width >= 64)
		return;
	pm_wrap_poll__note(&k->rot.wrap, delta, dt);
	if (delta > (1ull << (k->b->width - 1)) && !k->warned_wrap) {
		k->warned_wrap = true;
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s: a %u-bit counter advanced by %llu between two reads, more than half "
		       "its range: a faster rise could wrap unseen",
		       k->pmu->name, k->b->width, (unsigned long long)delta);
	}
}

/* Read the values of a block into k->vals: per slot, or per statistic. */
static int read_values(struct pm_session *s, struct hw_block *k)
{
	int r = 0;

	if (k->b->kind == PM_HWMON_REGISTER) {
		for (size_t j = 0; j < k->rot.n_ctr && r == 0; j++)
			r = read_value(s, k->reg_fd[j], &k->vals[j]);
		return r;
	}
	for (unsigned j = 0; j < k->b->counters && r == 0; j++)
		if (k->slot[j].on >= 0)
			r = read_value(s, k->slot[j].ctr_fd, &k->vals[j]);
	return r;
}

/*
 * A counter read val, run_dt after it read *last: add the difference, and
 * raise what makes it doubtful (a read too late to trust its wraps; a
 * statistic or a 64-bit counter that went down, whose stretch is left out).
 */
static void add_delta(struct pm_session *s, struct hw_block *k, size_t c, uint64_t *last,
		      uint64_t val, uint64_t run_dt)
{
	struct pm_reading *a = &hwmon_state(s)->acc[c];
	uint64_t delta;

	pm_counter__raise(&s->c[c], pm_wrap__delta(&hwmon_state(s)->rate[c], k->b->width,
						   k->b->kind != PM_HWMON_REGISTER, *last, val,
						   run_dt, &delta));
	note_rate(s, k, delta, run_dt);
	a->val += delta;
	a->run += run_dt;
	*last = val;
}

/* `enable`=1: l3cache resets and starts all counters; CRSPACE sets EN and CLR (from 0). */
static int start(struct pm_session *s, struct hw_block *k, uint64_t now)
{
	int r = write_text(s, k->enable_fd, "1");

	if (r < 0)
		return r;
	k->started = k->ran = true;
	/* counting from here: the stopped moments before are not running time */
	k->t_run = PM_MAX(now, now_ns(s));
	return 0;
}

/* Someone else wrote slot j's event (it reads code now, -1: not in the table). */
static void taken(struct pm_session *s, struct hw_block *k, unsigned j, long code)
{
	struct hw_slot *sl = &k->slot[j];
	size_t c = k->rot.ctr[sl->on];
	const char *name = code >= 0 ? code_name(k->pmu, (uint64_t)code) : NULL;
	char now[96];

	if (code < 0)
		snprintf(now, sizeof(now), "an event outside the block's table");
	else
		snprintf(now, sizeof(now), "%s (0x%lx)", name ? name : "an event", code);
	pm_log(s->ctx, PM_LOG_WARN,
	       "%s counter %u was reprogrammed by another program (it counts %s now): pmumon "
	       "stops counting %s there, keeps its counts from before, and leaves the counter "
	       "to that program",
	       k->pmu->name, j, now, s->l->ev[s->c[c].event].label);
	pm_counter__raise(&s->c[c], PM_ROW_REPROGRAMMED);
	/* theirs from now on: never counted, written or restored by pmumon again
	 * (an l3cache block still starts and stops as a whole: `enable` is shared) */
	sl->other = true;
	sl->touched = false;
	sl->on = -1;
}

/*
 * Is every slot pmumon counts on still its own? Another program may have
 * written its eventN since the last look: a COUNTER slot then restarts from
 * 0 on their event, a CRSPACE slot goes on from its value with their event,
 * and either would pass their counts off as ours. So each look reads the
 * event back, after the values: a slot that still shows our code showed it
 * when its value was read. Cost: one pread of eventN (an MMIO or firmware
 * read in the driver, a few microseconds) per counting slot per look —
 * each interval's read, each 25 ms phase of a rotating block, each wrap
 * poll of a 32-bit block (at most 4 a second at the 250 ms cap): for a
 * block of 8 counters, about 40 small reads a second. Registers, idle slots
 * and other programs' slots are never read back.
 */
static int check_slots(struct pm_session *s, struct hw_block *k)
{
	for (unsigned j = 0; j < k->b->counters; j++) {
		struct hw_slot *sl = &k->slot[j];
		long code;
		int r;

		if (sl->on < 0)
			continue;
		r = read_code(s, sl->ev_fd, &code);
		if (r == -EINVAL) {
			/* a code outside the table (§2.4): not ours */
			taken(s, k, j, -1);
			continue;
		}
		if (r == 0 && code < 0)
			r = -EIO; /* "No event being monitored": the driver could not read it */
		if (r < 0)
			return r;
		if (code != (long)sl->wrote)
			taken(s, k, j, code);
	}
	return 0;
}

/*
 * Bring a block's counters up to now. Every value is read before any total
 * changes, so a failed read changes nothing (and loses the block). The
 * l3cache block is stopped for the read (no torn halves) and, with
 * restart, started again from 0.
 */
static int accumulate(struct pm_session *s, struct hw_block *k, uint64_t now, bool restart)
{
	uint64_t dt = pm_rotation__elapsed(&k->rot, now), run_dt = dt;
	bool l3 = k->b->kind == PM_HWMON_L3CACHE;
	const char *what = "reading its counters";
	int r = 0;

	if (k->gone || k->other)
		return 0;
	if (l3 && k->started) {
		r = write_text(s, k->enable_fd, "0");
		if (r == 0)
			k->started = false;
		else
			what = "writing 0 to enable";
		run_dt = now > k->t_run ? now - k->t_run : 0;
	}
	if (r == 0)
		r = read_values(s, k);
	if (r == 0 && k->b->kind != PM_HWMON_REGISTER) {
		r = check_slots(s, k);
		if (r < 0)
			what = "reading its events back";
	}
	if (r < 0) {
		lose(s, k, what, r);
		return 0;
	}
	if (k->b->kind == PM_HWMON_REGISTER) {
		for (size_t j = 0; j < k->rot.n_ctr; j++) {
			struct pm_reading *a = &hwmon_state(s)->acc[k->rot.ctr[j]];

			if (s->l->ev[s->c[k->rot.ctr[j]].event].snapshot) {
				/* a current value (clock_measure, ecc settings): SET, not added */
				a->val = k->vals[j];
				a->run += dt;
			} else {
				add_delta(s, k, k->rot.ctr[j], &k->reg_last[j], k->vals[j], dt);
			}
		}
	} else {
		for (unsigned j = 0; j < k->b->counters; j++) {
			struct hw_slot *sl = &k->slot[j];

			if (sl->on < 0)
				continue;
			add_delta(s, k, k->rot.ctr[sl->on], &sl->last, k->vals[j], run_dt);
			if (l3)
				sl->last = 0; /* enable=1 starts them from 0 */
		}
	}
	pm_rotation__account(&k->rot, hwmon_state(s)->acc, now);
	if (l3 && restart) {
		r = start(s, k, now);
		if (r < 0)
			lose(s, k, "writing 1 to enable", r);
	}
	return 0;
}

/*
 * Put the phase's window (pm_rotation__at) on the free slots. COUNTER: writing
 * the event clears and starts the counter. CRSPACE: the select changes,
 * then counterN=0 clears it. l3cache: every write stops the block; the
 * caller starts it (accumulate's restart, or enable).
 */
static int program(struct pm_session *s, struct hw_block *k)
{
	size_t m = 0, window = pm_rotation__window(&k->rot);
	int r = 0;

	for (unsigned j = 0; j < k->b->counters && r == 0; j++) {
		struct hw_slot *sl = &k->slot[j];
		const struct pm_evinst *in;

		if (sl->other)
			continue;
		if (m >= window) {
			/* not needed this phase: stop it where the table can */
			if (sl->on >= 0 && k->has_disable)
				r = write_code(s, sl, 0);
			sl->on = -1;
			continue;
		}
		sl->on = (int)pm_rotation__at(&k->rot, m++);
		in = &s->l->inst[s->c[k->rot.ctr[sl->on]].inst];
		r = write_code(s, sl, (uint32_t)in->attr.config);
		if (r == 0 && k->b->kind == PM_HWMON_CRSPACE)
			r = write_text(s, sl->ctr_fd, "0");
		sl->last = 0;
	}
	return r;
}

static int hwmon_enable(struct pm_session *s)
{
	struct pm_hwmon_state *st = hwmon_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	for (size_t i = 0; st && i < st->n_blk && r == 0; i++) {
		struct hw_block *k = &st->blk[i];

		pm_rotation__start(&k->rot, now);
		if (k->gone || k->other)
			continue;
		if (k->b->kind == PM_HWMON_REGISTER) {
			/* statistics count since boot: counting starts from what they read now */
			r = read_values(s, k);
			for (size_t j = 0; j < k->rot.n_ctr && r == 0; j++)
				k->reg_last[j] = k->vals[j];
			if (r < 0)
				r = block_error(s, k, "reading its registers", r);
			continue;
		}
		r = pm_rotation__track(&k->rot, s->c, st->acc, now);
		if (r < 0)
			break;
		r = program(s, k);
		if (r == 0 && k->enable_fd >= 0)
			r = start(s, k, now);
		if (r == -ENODEV || r == -ENOENT) {
			lose(s, k, "programming its events", r);
			r = 0;
		} else if (r < 0) {
			r = block_error(s, k, "programming its events", r);
		}
	}
	return r;
}

static struct hw_block *rot_block(struct pm_rotation *r)
{
	return (struct hw_block *)((char *)r - offsetof(struct hw_block, rot));
}

/* A block that went away has none; registers count by themselves, never in turn. */
static unsigned rot_free(const struct pm_rotation *r)
{
	const struct hw_block *k = (const struct hw_block *)((const char *)r -
							     offsetof(struct hw_block, rot));

	if (k->gone)
		return 0;
	return k->b->kind == PM_HWMON_REGISTER ? (unsigned)k->rot.n_ctr : free_slots(k);
}

/* l3cache starts again at once unless the next events are to be programmed first. */
static int rot_collect(struct pm_rotation *r, void *s, uint64_t now, bool turn)
{
	return accumulate(s, rot_block(r), now, !turn);
}

static int rot_program(struct pm_rotation *r, void *s, uint64_t now)
{
	struct hw_block *k = rot_block(r);
	int e = program(s, k);

	if (e == 0 && k->b->kind == PM_HWMON_L3CACHE)
		e = start(s, k, now);
	if (e < 0)
		lose(s, k, "programming its next events", e);
	return 0;
}

static const struct pm_rotation_ops hw_rotation = {
	.n_free = rot_free,
	.collect = rot_collect,
	.program = rot_program,
};

/* When a block must be read next: its next phase, or before a narrow counter can wrap. */
static uint64_t due(const struct hw_block *k)
{
	return k->gone || k->other ? UINT64_MAX : pm_rotation__next(&k->rot);
}

static int poll_at(struct pm_session *s, uint64_t now)
{
	struct pm_hwmon_state *st = hwmon_state(s);
	int r = 0;

	for (size_t i = 0; st && i < st->n_blk && r == 0; i++)
		if (now >= due(&st->blk[i]))
			r = pm_rotation__poll(&st->blk[i].rot, now, s);
	return r;
}

static int hwmon_poll(struct pm_session *s)
{
	return s->enabled ? poll_at(s, now_ns(s)) : 0;
}

static uint64_t hwmon_next_poll(const struct pm_session *s)
{
	const struct pm_hwmon_state *st = hwmon_state(s);
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; st && i < st->n_blk; i++)
		next = PM_MIN(next, due(&st->blk[i]));
	return next;
}

static int hwmon_read(struct pm_session *s)
{
	struct pm_hwmon_state *st = hwmon_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	if (!st)
		return 0;
	if (st->deferred) {
		r = st->deferred;
		st->deferred = 0;
		return r;
	}
	if (s->enabled) {
		r = poll_at(s, now); /* a phase that is due ends first */
		for (size_t i = 0; i < st->n_blk && r == 0; i++)
			r = accumulate(s, &st->blk[i], now, true);
	}
	for (size_t i = 0; i < st->n_blk && r == 0; i++)
		for (size_t j = 0; j < st->blk[i].rot.n_ctr; j++)
			s->c[st->blk[i].rot.ctr[j]].cur = st->acc[st->blk[i].rot.ctr[j]];
	return r;
}

/* Stop counting: the last counts in, then every slot we run stopped. */
static int hwmon_disable(struct pm_session *s)
{
	struct pm_hwmon_state *st = hwmon_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	for (size_t i = 0; st && i < st->n_blk; i++) {
		struct hw_block *k = &st->blk[i];
		int e = accumulate(s, k, now, false);

		if (k->gone || k->other || k->b->kind == PM_HWMON_REGISTER)
			goto next;
		if (k->enable_fd >= 0) {
			int w = write_text(s, k->enable_fd, "0");

			if (w < 0 && e == 0)
				e = block_error(s, k, "writing 0 to enable", w);
			k->started = false;
		}
		for (unsigned j = 0; j < k->b->counters; j++) {
			struct hw_slot *sl = &k->slot[j];

			if (sl->on >= 0 && k->has_disable && k->b->kind == PM_HWMON_COUNTER) {
				int w = write_code(s, sl, 0);

				if (w < 0 && e == 0)
					e = block_error(s, k, "writing DISABLE", w);
			}
			sl->on = -1;
		}
next:
		if (e < 0 && r == 0)
			r = e;
	}
	if (st && r < 0)
		st->deferred = r; /* the totals' read must not pass for a good one */
	return r;
}

/* Put back a slot pmumon programmed, unless someone else has taken it since. */
static void restore_slot(struct pm_session *s, struct hw_block *k, unsigned j)
{
	struct hw_slot *sl = &k->slot[j];
	long now_code;

	if (!sl->touched || sl->ev_fd < 0 || read_code(s, sl->ev_fd, &now_code) < 0)
		return;
	if (now_code != (long)sl->wrote) {
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s counter %u was reprogrammed by another program (it counts 0x%lx): left "
		       "to it, not restored",
		       k->pmu->name, j, now_code);
		return;
	}
	/* the event found there; DISABLE where it could not be read and the table has it */
	if ((sl->saved >= 0 ? write_code(s, sl, (uint32_t)sl->saved) < 0 :
	     k->has_disable ? write_code(s, sl, 0) < 0 :
			      false) &&
	    !k->gone)
		pm_log(s->ctx, PM_LOG_WARN, "could not restore %s/event%u", k->b->dir, j);
}

static void close_fd(struct pm_session *s, int fd)
{
	if (fd >= 0)
		s->ctx->ops->close(s->ctx->os, fd);
}

static void hwmon_close(struct pm_session *s)
{
	struct pm_hwmon_state *st = hwmon_state(s);

	if (!st)
		return;
	for (size_t i = 0; i < st->n_blk; i++) {
		struct hw_block *k = &st->blk[i];

		if (!k->other) {
			/* a block that went away may have lost one file only: try anyway */
			if (k->ran && write_text(s, k->enable_fd, "0") < 0 && !k->gone)
				pm_log(s->ctx, PM_LOG_WARN, "could not write 0 to %s/enable",
				       k->b->dir);
			for (unsigned j = 0; k->slot && j < k->b->counters; j++)
				restore_slot(s, k, j);
		}
		for (unsigned j = 0; k->slot && j < k->b->counters; j++) {
			close_fd(s, k->slot[j].ev_fd);
			close_fd(s, k->slot[j].ctr_fd);
		}
		for (size_t j = 0; k->reg_fd && j < k->rot.n_ctr; j++)
			close_fd(s, k->reg_fd[j]);
		close_fd(s, k->enable_fd);
		free(k->slot);
		pm_rotation__done(&k->rot);
		free(k->reg_fd);
		free(k->reg_last);
		free(k->vals);
	}
	if (st->lock >= 0)
		s->ctx->ops->unlock(s->ctx->os, st->lock);
	for (size_t c = 0; c < s->n_c; c++)
		if (s->c[c].source == PM_SRC_HWMON)
			s->c[c].open = false;
	free(st->blk);
	free(st->acc);
	free(st->rate);
	free(st);
	s->state[PM_SRC_HWMON] = NULL;
}

/* The blocks hwmon-discover.c adds: nothing else reaches them. */
static bool hwmon_claims(const struct pm_session *s, const struct pm_evinst *in)
{
	(void)s;
	return in->pmu && in->pmu->source == PM_SRC_HWMON;
}

/*
 * pmumon doctor: blocks another program counts with, read only, by the rules
 * survey() applies when opening (§2.5): a block whose `enable` reads 1, a
 * CRSPACE count_clock bit, a COUNTER slot programmed where DISABLE (0) says
 * otherwise.
 */
static void hwmon_survey(struct pm_ctx *ctx, pm_survey_fn fn, void *ud)
{
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		const struct pm_hwmon_block *b = pm_hwmon__block(p);
		char path[512], text[96], what[640], fix[640];
		uint64_t v;

		if (!b)
			continue;
		snprintf(path, sizeof(path), "%s/enable", b->dir);
		if (pm_read_file(ctx, path, text, sizeof(text)) >= 0 &&
		    pm_parse_u64_str(text, 0, &v) == 0 && v) {
			snprintf(what, sizeof(what),
				 "%s is counting for another program (/%s reads 1): pmumon leaves "
				 "the whole block alone",
				 p->name, path);
			snprintf(fix, sizeof(fix),
				 "stop that program; if none runs (a pmumon killed with SIGKILL "
				 "left it), write 0 to /%s, or ",
				 path);
			fn(ud, what, fix, PM_REASON_NEEDS_RECLAIM);
			continue;
		}
		snprintf(path, sizeof(path), "%s/count_clock", b->dir);
		if (pm_read_file(ctx, path, text, sizeof(text)) >= 0 &&
		    pm_parse_u64_str(text, 0, &v) == 0 && v) {
			snprintf(what, sizeof(what),
				 "%s: counters 0x%llx count clock cycles for another program "
				 "(count_clock)",
				 p->name, (unsigned long long)v);
			snprintf(fix, sizeof(fix), "if nothing uses them, write 0 to /%s", path);
			fn(ud, what, fix, PM_REASON_NONE);
		}
		if (b->kind != PM_HWMON_COUNTER || !has_disable(p))
			continue; /* a programmed select need not mean it counts */
		for (unsigned j = 0; j < b->counters; j++) {
			snprintf(path, sizeof(path), "%s/event%u", b->dir, j);
			if (pm_read_file(ctx, path, text, sizeof(text)) < 0 || !code_of(text, &v) ||
			    !v)
				continue;
			snprintf(what, sizeof(what),
				 "%s counter %u is counting %s (0x%llx) for another program: "
				 "pmumon leaves it alone and counts on the others",
				 p->name, j, slot_event(p, v), (unsigned long long)v);
			snprintf(fix, sizeof(fix),
				 "stop that program; if none runs, write 0 to /%s, or ", path);
			fn(ud, what, fix, PM_REASON_NEEDS_RECLAIM);
		}
	}
}

const struct pm_source_ops pm_source_hwmon = {
	.origin = PM_SOURCE_LIVE,
	.lock_path = LOCK_PATH,
	.needs_writable_sys = "hwmon counters (BlueField) cannot be programmed",
	.discover = pm_hwmon__discover,
	.claims = hwmon_claims,
	.open = hwmon_open,
	.enable = hwmon_enable,
	.disable = hwmon_disable,
	.read = hwmon_read,
	.close = hwmon_close,
	.next_poll = hwmon_next_poll,
	.poll = hwmon_poll,
	.present = pm_hwmon__present,
	.survey = hwmon_survey,
};
