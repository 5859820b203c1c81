// SPDX-License-Identifier: GPL-2.0-only
/*
 * The msr source (--source msr): AMD's Data Fabric and L3 counters and
 * APERF/MPERF read through /dev/cpu/N/msr, as seed 004's monitor does,
 * for machines whose kernel lacks amd_uncore or locks perf events down.
 *
 * - One domain per DF (the CPU of amd_df's cpumask: a socket) and per L3
 *   (amd_l3's: a CCX on Zen 2), with 4 and 6 CTL/CTR pairs at
 *   MSR_F15H_NB_PERF_CTL and MSR_F16H_L2I_PERF_CTL, CTL = base + 2i and
 *   CTR = base + 2i + 1 (docs/facts-sim-platforms.md §1).
 * - A CTL is the perf config (seed 004's layout: event[7:0], umask[15:8],
 *   event[11:8] at 35:32, event[13:12] at 60:59) plus the enable bit 22;
 *   for the L3, zero slice and thread masks get the kernel's F17h default
 *   of all slices and threads (kernel-facts §3.3).
 * - More events than free pairs rotate in explicit phases of PHASE_NS
 *   (source/rotation.h), and each counter keeps enabled and running time,
 *   so quality works as for perf; each counter's phases go to its track
 *   (source/estimate.h), which estimates the phases off between its own
 *   phases on, with a 95 % interval. Counters are 48 bits; deltas
 *   are taken modulo 2^48, and a read that came later than the counter's
 *   wrap time at its rate allows (pmumon stopped for hours) marks it
 *   wrap_uncertain (source/wrap.h).
 * - A pair whose CTL already has the enable bit is someone else's (perf,
 *   another tool): left alone and reported; one reprogrammed mid-run stops
 *   counting there, its counter marked reprogrammed. Only the DF and L3
 *   CTL/CTR registers are ever written, and every CTL is restored on close.
 * - One whose CTL holds exactly the value pmumon writes for one of the
 *   events asked is what a pmumon killed with SIGKILL leaves: named so, and
 *   left alone; with reclaim (stat --reclaim) reset to 0 and used.
 * - One instance at a time: an advisory lock, held from open to close while
 *   any DF or L3 pair is to be programmed (the second one is told the
 *   holder's pid); two instances would each take the other's pairs for free.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "evlist.h"
#include "pmu.h"
#include "source/counters.h"
#include "source/msr/msr.h"
#include "source/rotation.h"
#include "source/wrap.h"
#include "topo.h"
#include "util/util.h"

#define MSR_IA32_MPERF 0xe7
#define MSR_IA32_APERF 0xe8
#define MSR_DF_CTL 0xc0010240 /* MSR_F15H_NB_PERF_CTL */
#define MSR_L3_CTL 0xc0010230 /* MSR_F16H_L2I_PERF_CTL */
#define CTL_EN (1ull << 22)
#define CTR_BITS 48
#define DF_SLOTS 4 /* NUM_COUNTERS_NB (docs/kernel-facts.md, amd_uncore) */
#define L3_SLOTS 6 /* NUM_COUNTERS_L3, F17h+ */
#define MAX_SLOTS L3_SLOTS
#define PHASE_NS 25000000ull		/* 25 ms (docs/bounds.md) */
#define WRAP_POLL_NS 10000000000ull	/* 48 bits at 1e10/s last 7.8 hours */
#define LOCK_PATH "run/pmumon/msr.lock" /* one per machine, as hwmon's and sideband's */

struct msr_dom {
	bool df;
	int cpu, fd;
	unsigned n_slots;
	bool other[MAX_SLOTS];	   /* enabled by someone else: not ours */
	bool touched[MAX_SLOTS];   /* we wrote its CTL: restore on close */
	uint64_t saved[MAX_SLOTS]; /* the CTL as found */
	uint64_t wrote[MAX_SLOTS]; /* the CTL as we left it: anything else is not ours */
	int on[MAX_SLOTS];	   /* the counter (index into ctr) it counts, -1 none */
	uint64_t last[MAX_SLOTS];  /* CTR at the last accumulation */
	struct pm_rotation rot;	   /* its session counters on the free pairs, in turn */
};

struct msr_core {
	size_t counter;
	int fd;
	uint32_t msr;
	uint64_t start;
	/* its reading at disable: APERF/MPERF are never stopped, so what a read
	 * after disable reports is this, and the totals cover the whole run */
	struct pm_reading end;
	bool ended;
};

struct pm_msr_state {
	/* per session counter: what it has counted since enable (polls add to
	 * it between reads; a read hands it to the session) */
	struct pm_reading *acc;
	struct pm_wrap_poll *rate; /* per session counter: its fastest rate, to doubt a late read */
	char failed[64];	   /* the device a failed access was on, for messages */
	struct msr_dom *dom;
	size_t n_dom, cap_dom;
	struct msr_core *core;
	size_t n_core, cap_core;
	int *cpu_fd; /* an open device per CPU, -1 none */
	int n_cpu_fd;
	int lock; /* held while we may write a control register; -1 none */
	uint64_t t_enable;
};

/* This source's state in the session (NULL before open and after close). */
static inline struct pm_msr_state *msr_state(const struct pm_session *s)
{
	return s->state[PM_SRC_MSR];
}

static bool writable(uint64_t idx)
{
	/* the whitelist: only the DF and L3 control/counter pairs */
	return (idx >= MSR_DF_CTL && idx < MSR_DF_CTL + 8) ||
	       (idx >= MSR_L3_CTL && idx < MSR_L3_CTL + 12);
}

static int rdmsr(struct pm_session *s, int fd, uint64_t idx, uint64_t *ret)
{
	ssize_t n = s->ctx->ops->pread(s->ctx->os, fd, ret, 8, idx);

	return n == 8 ? 0 : n < 0 ? (int)n : -EIO;
}

static int wrmsr(struct pm_session *s, int fd, uint64_t idx, uint64_t v)
{
	ssize_t n;

	if (!writable(idx))
		return -EPERM;
	n = s->ctx->ops->pwrite(s->ctx->os, fd, &v, 8, idx);
	return n == 8 ? 0 : n < 0 ? (int)n : -EIO;
}

static uint64_t ctl_of(const struct msr_dom *d, unsigned j)
{
	return (d->df ? MSR_DF_CTL : MSR_L3_CTL) + 2 * j;
}

static const char *dom_name(const struct msr_dom *d)
{
	return d->df ? "Data Fabric" : "L3";
}

/*
 * The CTL for a counter: its perf config kept to the fields of the F17h
 * layouts (kernel-facts §3.2: DF event 0-7, 32-35, 59-60 and umask 8-15;
 * L3 event, umask, slicemask 48-51, threadmask 56-63), the kernel's L3
 * defaults, enabled. Nothing else reaches the register.
 */
#define DF_FIELDS (0xffffull | (0xfull << 32) | (0x3ull << 59))
#define L3_FIELDS (0xffffull | (0xfull << 48) | (0xffull << 56))

static uint64_t ctl_value(const struct pm_session *s, const struct msr_dom *d, size_t k)
{
	uint64_t cfg = s->l->inst[s->c[k].inst].attr.config & (d->df ? DF_FIELDS : L3_FIELDS);

	if (!d->df) {
		if (!((cfg >> 48) & 0xf))
			cfg |= 0xfull << 48; /* all slices */
		if (!((cfg >> 56) & 0xff))
			cfg |= 0xffull << 56; /* all threads */
	}
	return cfg | CTL_EN;
}

/* ---- opening ------------------------------------------------------------------- */

static int open_error(struct pm_session *s, int cpu, int err, struct pm_diag *d)
{
	switch (err) {
	case -ENOENT:
		pm_diag_set(d, "load it with 'modprobe msr', or ",
			    "no /dev/cpu/%d/msr: the msr driver is not loaded", cpu);
		break;
	case -EACCES:
		pm_diag_set(d, "run pmumon as root (the device is root's, mode 0600), or ",
			    "no permission to open /dev/cpu/%d/msr", cpu);
		break;
	case -EPERM:
		pm_diag_set(d, "run as root with CAP_SYS_RAWIO (containers often drop it), or ",
			    "the msr driver refused /dev/cpu/%d/msr: it needs CAP_SYS_RAWIO", cpu);
		break;
	default:
		pm_diag_set(d, NULL, "cannot open /dev/cpu/%d/msr: %s", cpu, strerror(-err));
		return err;
	}
	pm_diag_reason(d, PM_REASON_USE_SOURCE_PERF, NULL, NULL);
	return err;
}

static int cpu_fd(struct pm_session *s, int cpu, struct pm_diag *reterr)
{
	struct pm_msr_state *st = msr_state(s);
	char path[64];
	int fd;

	if (cpu >= 0 && cpu < st->n_cpu_fd && st->cpu_fd[cpu] >= 0)
		return st->cpu_fd[cpu];
	if (cpu < 0 || cpu >= st->n_cpu_fd)
		return -EINVAL;
	snprintf(path, sizeof(path), "dev/cpu/%d/msr", cpu);
	fd = s->ctx->ops->open(s->ctx->os, path, O_RDWR);
	if (fd < 0)
		return open_error(s, cpu, fd, reterr);
	st->cpu_fd[cpu] = fd;
	return fd;
}

static const struct pm_rotation_ops msr_rotation;

static struct msr_dom *dom_for(struct pm_msr_state *st, bool df, int cpu)
{
	struct msr_dom *d;

	for (size_t i = 0; i < st->n_dom; i++)
		if (st->dom[i].df == df && st->dom[i].cpu == cpu)
			return &st->dom[i];
	if (pm_grow((void **)&st->dom, &st->cap_dom, st->n_dom + 1, sizeof(*d)) < 0)
		return NULL;
	d = &st->dom[st->n_dom++];
	*d = (struct msr_dom){ .df = df, .cpu = cpu, .fd = -1, .n_slots = df ? DF_SLOTS : L3_SLOTS };
	/* 48 bits need no wrap poll (source/wrap.h): a block that does not rotate
	 * is read every WRAP_POLL_NS all the same */
	d->rot = (struct pm_rotation){ .ops = &msr_rotation,
				       .phase_ns = PHASE_NS,
				       .idle_ns = WRAP_POLL_NS,
				       .width = CTR_BITS };
	for (unsigned j = 0; j < MAX_SLOTS; j++)
		d->on[j] = -1;
	return d;
}

/*
 * The session counter whose control value a CTL holds exactly, as pmumon
 * writes it for the events asked (what a pmumon killed with SIGKILL
 * leaves); -1 for none.
 */
static long left_by_pmumon(const struct pm_session *s, const struct msr_dom *d, uint64_t ctl)
{
	for (size_t i = 0; i < d->rot.n_ctr; i++)
		if (ctl_value(s, d, d->rot.ctr[i]) == ctl)
			return (long)d->rot.ctr[i];
	return -1;
}

/* Look at the pairs as found: whose are they, and may we write? */
/*
 * Counter j of the domain: its control register read and kept (to restore);
 * one enabled is someone else's (d->other[j]), left alone, or, as a killed
 * pmumon left it and with --reclaim, reset. 0 or -errno (reterr says why).
 */
static int survey_slot(struct pm_session *s, struct msr_dom *d, unsigned j, struct pm_diag *reterr)
{
	long mine;
	int r;

	r = rdmsr(s, d->fd, ctl_of(d, j), &d->saved[j]);
	if (r < 0) {
		pm_diag_set(reterr, "check that this is an AMD family 17h CPU, or ",
			    "cannot read the %s control register 0x%llx on CPU %d: %s", dom_name(d),
			    (unsigned long long)ctl_of(d, j), d->cpu, strerror(-r));
		pm_diag_reason(reterr, PM_REASON_USE_SOURCE_PERF, d->df ? "amd_df" : "amd_l3",
			       NULL);
		return r;
	}
	d->other[j] = d->saved[j] & CTL_EN;
	mine = d->other[j] ? left_by_pmumon(s, d, d->saved[j]) : -1;
	if (mine >= 0 && s->opts.reclaim) {
		/* back to a stopped, empty control register: what pmumon restores to */
		r = wrmsr(s, d->fd, ctl_of(d, j), 0);
		if (r < 0) {
			pm_diag_set(reterr,
				    r == -EPERM ? "check /sys/kernel/security/lockdown and the "
						  "msr.allow_writes boot parameter" :
						  NULL,
				    "cannot reset the %s control register 0x%llx on CPU %d "
				    "to reclaim it: %s",
				    dom_name(d), (unsigned long long)ctl_of(d, j), d->cpu,
				    strerror(-r));
			return r;
		}
		pm_log_reason(s->ctx, PM_LOG_WARN, PM_REASON_RECLAIMED, d->df ? "amd_df" : "amd_l3",
			      NULL,
			      "%s counter %u on CPU %d was counting %s (control register "
			      "0x%llx was 0x%llx), as a pmumon that was killed leaves it: "
			      "reclaimed",
			      dom_name(d), j, d->cpu, s->l->ev[s->c[mine].event].label,
			      (unsigned long long)ctl_of(d, j), (unsigned long long)d->saved[j]);
		d->saved[j] = 0;
		d->other[j] = false;
	} else if (mine >= 0) {
		pm_log_reason(s->ctx, PM_LOG_WARN, PM_REASON_NEEDS_RECLAIM,
			      d->df ? "amd_df" : "amd_l3", "if no other program uses it, ",
			      "%s counter %u on CPU %d is counting %s exactly as pmumon "
			      "programs it (control register 0x%llx is 0x%llx): a pmumon that "
			      "was killed (SIGKILL) left it, or another program counts the "
			      "same; left alone",
			      dom_name(d), j, d->cpu, s->l->ev[s->c[mine].event].label,
			      (unsigned long long)ctl_of(d, j), (unsigned long long)d->saved[j]);
	} else if (d->other[j]) {
		pm_log(s->ctx, PM_LOG_WARN,
		       "%s counter %u on CPU %d is in use by another program (its control "
		       "register 0x%llx has the enable bit set): left alone",
		       dom_name(d), j, d->cpu, (unsigned long long)ctl_of(d, j));
	}
	return 0;
}

/* A harmless write (the value it has) says whether the kernel lets us write at all. */
static int check_writable(struct pm_session *s, struct msr_dom *d, struct pm_diag *reterr)
{
	int r;

	for (unsigned j = 0; j < d->n_slots; j++) {
		if (d->other[j])
			continue;
		r = wrmsr(s, d->fd, ctl_of(d, j), d->saved[j]);
		if (r == -EPERM) {
			pm_diag_set(reterr,
				    "check /sys/kernel/security/lockdown and the msr.allow_writes "
				    "boot parameter (msr.allow_writes=on), or ",
				    "the kernel refuses writes to MSRs on CPU %d (kernel lockdown, or "
				    "msr.allow_writes=off)",
				    d->cpu);
			pm_diag_reason(reterr, PM_REASON_USE_SOURCE_PERF,
				       d->df ? "amd_df" : "amd_l3", NULL);
			return r;
		}
		if (r < 0) {
			pm_diag_set(reterr, NULL,
				    "cannot write the %s control register on CPU %d: %s",
				    dom_name(d), d->cpu, strerror(-r));
			return r;
		}
		break;
	}
	return 0;
}

static int survey(struct pm_session *s, struct msr_dom *d, struct pm_diag *reterr)
{
	unsigned free_slots = 0;
	int r;

	for (unsigned j = 0; j < d->n_slots; j++) {
		r = survey_slot(s, d, j, reterr);
		if (r < 0)
			return r;
		if (!d->other[j])
			free_slots++;
	}
	if (!free_slots) {
		pm_log(s->ctx, PM_LOG_WARN,
		       "every %s counter on CPU %d is in use by another program: its events "
		       "will show as not counted",
		       dom_name(d), d->cpu);
		return 0;
	}
	return check_writable(s, d, reterr);
}

static void msr_close(struct pm_session *s);

static int msr_open(struct pm_session *s, struct pm_diag *reterr)
{
	struct pm_msr_state *st;
	int r = 0, n_cpus = s->ctx->topo->nr_cpu_ids;

	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_MSR)
			goto needed;
	return 0;
needed:
	if (!pm_msr__supported_cpu(s->ctx)) {
		pm_diag_set(reterr, "on this CPU, ",
			    "the msr source knows AMD family 17h (Zen 1, Zen 2) register layouts "
			    "only; this CPU is not one (later families place the L3 fields "
			    "differently, kernel-facts §3.6)");
		pm_diag_reason(reterr, PM_REASON_USE_SOURCE_PERF, NULL, NULL);
		return -EOPNOTSUPP;
	}
	st = s->state[PM_SRC_MSR] = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->lock = -1;
	st->cpu_fd = malloc((size_t)(n_cpus > 0 ? n_cpus : 1) * sizeof(int));
	st->acc = calloc(s->n_c, sizeof(*st->acc));
	st->rate = calloc(s->n_c, sizeof(*st->rate));
	if (!st->cpu_fd || !st->acc || !st->rate) {
		msr_close(s);
		return -ENOMEM;
	}
	st->n_cpu_fd = n_cpus;
	for (int i = 0; i < n_cpus; i++)
		st->cpu_fd[i] = -1;
	for (size_t k = 0; k < s->n_c && r == 0; k++) {
		struct pm_counter *c = &s->c[k];
		const struct pm_evinst *in = &s->l->inst[c->inst];
		int fd;

		if (c->source != PM_SRC_MSR || c->dropped)
			continue;
		fd = cpu_fd(s, c->cpu, reterr);
		if (fd < 0) {
			r = fd;
			break;
		}
		if (!strcmp(in->pmu->family, "msr")) {
			struct msr_core *m;

			if (pm_grow((void **)&st->core, &st->cap_core, st->n_core + 1, sizeof(*m)) <
			    0) {
				r = -ENOMEM;
				break;
			}
			m = &st->core[st->n_core++];
			*m = (struct msr_core){ .counter = k,
						.fd = fd,
						.msr = in->attr.config == 1 ? MSR_IA32_APERF :
									      MSR_IA32_MPERF };
		} else {
			struct msr_dom *d = dom_for(st, !strcmp(in->pmu->family, "amd_df"), c->cpu);

			if (!d || pm_rotation__add(&d->rot, k) < 0) {
				r = -ENOMEM;
				break;
			}
			d->fd = fd;
		}
		c->open = true; /* the domain's device */
	}
	/* two instances would program the same counters: one at a time (APERF/MPERF need none) */
	if (r == 0 && st->n_dom) {
		r = pm_session__lock(s, LOCK_PATH,
				     "the Data Fabric and L3 counters (the msr source)",
				     "stop that pmumon first, or ", &st->lock, reterr);
		if (r == -EBUSY)
			pm_diag_reason(reterr, PM_REASON_USE_SOURCE_PERF, NULL, NULL);
	}
	for (size_t i = 0; i < st->n_dom && r == 0; i++)
		r = survey(s, &st->dom[i], reterr);
	if (r < 0)
		msr_close(s);
	return r;
}

/* APERF/MPERF now, as counted since enable. */
static int core_reading(struct pm_session *s, const struct msr_core *m, uint64_t now,
			struct pm_reading *ret)
{
	uint64_t t0 = msr_state(s)->t_enable, v;
	int r = rdmsr(s, m->fd, m->msr, &v);

	if (r == 0)
		*ret = (struct pm_reading){ v - m->start, now - t0, now - t0 };
	return r;
}

/* ---- counting -------------------------------------------------------------------- */

/* Bring every counter of a domain up to now: counts, enabled and running time. */
static int dom_error(struct pm_session *s, const struct msr_dom *d, int err)
{
	snprintf(msr_state(s)->failed, sizeof(msr_state(s)->failed), "/dev/cpu/%d/msr", d->cpu);
	s->failed_device = msr_state(s)->failed;
	pm_session__fail(s, NULL,
			 "the %s counters on CPU %d: an access to /dev/cpu/%d/msr failed: %s",
			 dom_name(d), d->cpu, d->cpu, strerror(-err));
	return err;
}

/* Has someone else written a CTL we own since we did? Then it is theirs now. */
static bool taken(struct pm_session *s, struct msr_dom *d, unsigned j, uint64_t ctl)
{
	if (!d->touched[j] || ctl == d->wrote[j])
		return false;
	pm_log(s->ctx, PM_LOG_WARN,
	       "%s counter %u on CPU %d was reprogrammed by another program (control register "
	       "0x%llx is 0x%llx): left to it, and not restored",
	       dom_name(d), j, d->cpu, (unsigned long long)ctl_of(d, j), (unsigned long long)ctl);
	if (d->on[j] >= 0)
		pm_counter__raise(&s->c[d->rot.ctr[d->on[j]]], PM_ROW_REPROGRAMMED);
	d->other[j] = true;
	d->touched[j] = false;
	d->on[j] = -1;
	return true;
}

/*
 * Bring every counter of a domain up to now: counts, enabled and running
 * time. All registers are read before anything changes, so a failed read
 * changes nothing; a pair someone else took meanwhile counts nothing for
 * this stretch (its count is not ours to trust).
 */
static int accumulate(struct pm_session *s, struct msr_dom *d, uint64_t now)
{
	uint64_t dt = pm_rotation__elapsed(&d->rot, now), ctr[MAX_SLOTS], ctl[MAX_SLOTS];

	for (unsigned j = 0; j < d->n_slots; j++) {
		int r = 0;

		if (d->on[j] < 0)
			continue;
		r = rdmsr(s, d->fd, ctl_of(d, j), &ctl[j]);
		if (r == 0)
			r = rdmsr(s, d->fd, ctl_of(d, j) + 1, &ctr[j]);
		if (r < 0)
			return dom_error(s, d, r);
	}
	for (unsigned j = 0; j < d->n_slots; j++) {
		struct pm_reading *c;
		size_t k;
		uint64_t delta; /* modulo 2^48 */

		if (d->on[j] < 0 || taken(s, d, j, ctl[j]))
			continue;
		k = d->rot.ctr[d->on[j]];
		pm_counter__raise(&s->c[k], pm_wrap__delta(&msr_state(s)->rate[k], CTR_BITS, true,
							   d->last[j], ctr[j], dt, &delta));
		c = &msr_state(s)->acc[k];
		c->val += delta;
		c->run += dt;
		d->last[j] = ctr[j];
	}
	pm_rotation__account(&d->rot, msr_state(s)->acc, now);
	return 0;
}

static unsigned free_slots(const struct msr_dom *d)
{
	unsigned n = 0;

	for (unsigned j = 0; j < d->n_slots; j++)
		n += !d->other[j];
	return n;
}

/* Put the phase's window (pm_rotation__at) on the free pairs. */
static int program(struct pm_session *s, struct msr_dom *d)
{
	size_t m = 0, window = pm_rotation__window(&d->rot);
	int r = 0;

	for (unsigned j = 0; j < d->n_slots && r == 0; j++) {
		uint64_t now_ctl, v;

		if (d->other[j])
			continue;
		/* still as we (or, before our first write, its owner) left it? */
		r = rdmsr(s, d->fd, ctl_of(d, j), &now_ctl);
		if (r < 0)
			break;
		if (taken(s, d, j, now_ctl) ||
		    (!d->touched[j] && now_ctl != d->saved[j] && (now_ctl & CTL_EN))) {
			d->other[j] = true;
			continue;
		}
		if (m < window) {
			size_t i = pm_rotation__at(&d->rot, m++);

			/* stop, zero, then start with the new event */
			v = ctl_value(s, d, d->rot.ctr[i]);
			d->touched[j] = true;
			d->wrote[j] = 0;
			r = wrmsr(s, d->fd, ctl_of(d, j), 0);
			if (r == 0)
				r = wrmsr(s, d->fd, ctl_of(d, j) + 1, 0);
			if (r == 0)
				r = wrmsr(s, d->fd, ctl_of(d, j), v);
			if (r == 0) {
				d->wrote[j] = v;
				d->on[j] = (int)i;
				d->last[j] = 0;
			}
		} else if (d->on[j] >= 0) {
			r = wrmsr(s, d->fd, ctl_of(d, j), 0);
			if (r == 0)
				d->wrote[j] = 0;
			d->on[j] = -1;
		}
	}
	if (r < 0)
		return dom_error(s, d, r);
	return 0;
}

static struct msr_dom *rot_dom(struct pm_rotation *r)
{
	return (struct msr_dom *)((char *)r - offsetof(struct msr_dom, rot));
}

static unsigned rot_free(const struct pm_rotation *r)
{
	return free_slots(
		(const struct msr_dom *)((const char *)r - offsetof(struct msr_dom, rot)));
}

static int rot_collect(struct pm_rotation *r, void *s, uint64_t now, bool turn)
{
	(void)turn;
	return accumulate(s, rot_dom(r), now);
}

static int rot_program(struct pm_rotation *r, void *s, uint64_t now)
{
	(void)now;
	return program(s, rot_dom(r));
}

static const struct pm_rotation_ops msr_rotation = {
	.n_free = rot_free,
	.collect = rot_collect,
	.program = rot_program,
};

static uint64_t now_ns(const struct pm_session *s)
{
	return s->ctx->ops->mono_ns(s->ctx->os);
}

static int msr_enable(struct pm_session *s)
{
	struct pm_msr_state *st = msr_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	if (!st)
		return 0;
	st->t_enable = now;
	for (size_t i = 0; i < st->n_core && r == 0; i++)
		r = rdmsr(s, st->core[i].fd, st->core[i].msr, &st->core[i].start);
	for (size_t i = 0; i < st->n_dom && r == 0; i++) {
		struct msr_dom *d = &st->dom[i];

		pm_rotation__start(&d->rot, now);
		r = pm_rotation__track(&d->rot, s->c, st->acc, now);
		if (r == 0)
			r = program(s, d);
	}
	return r;
}

static int poll_at(struct pm_session *s, uint64_t now)
{
	struct pm_msr_state *st = msr_state(s);
	int r = 0;

	for (size_t i = 0; st && i < st->n_dom && r == 0; i++)
		r = pm_rotation__poll(&st->dom[i].rot, now, s);
	return r;
}

static int msr_poll(struct pm_session *s)
{
	return s->enabled ? poll_at(s, now_ns(s)) : 0;
}

static uint64_t msr_next_poll(const struct pm_session *s)
{
	const struct pm_msr_state *st = msr_state(s);
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; st && i < st->n_dom; i++)
		next = PM_MIN(next, pm_rotation__next(&st->dom[i].rot));
	return next;
}

static int msr_read(struct pm_session *s)
{
	struct pm_msr_state *st = msr_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	if (!st)
		return 0;
	/* one "now" for all of it; a stopped session's counts stay as they were */
	if (s->enabled) {
		r = poll_at(s, now); /* a phase that is due ends first */
		for (size_t i = 0; i < st->n_dom && r == 0; i++)
			r = accumulate(s, &st->dom[i], now);
	}
	for (size_t i = 0; i < st->n_dom && r == 0; i++)
		for (size_t k = 0; k < st->dom[i].rot.n_ctr; k++)
			s->c[st->dom[i].rot.ctr[k]].cur = st->acc[st->dom[i].rot.ctr[k]];
	for (size_t i = 0; i < st->n_core && r == 0; i++) {
		struct msr_core *m = &st->core[i];
		struct pm_counter *c = &s->c[m->counter];

		if (!s->enabled) {
			if (m->ended) /* stopped: what was counted up to the disable */
				c->cur = m->end;
			continue;
		}
		r = core_reading(s, m, now, &c->cur);
	}
	return r;
}

static int msr_disable(struct pm_session *s)
{
	struct pm_msr_state *st = msr_state(s);
	uint64_t now = now_ns(s);
	int r = 0;

	/* APERF/MPERF run on: their count at the disable is the run's last word */
	for (size_t i = 0; st && i < st->n_core; i++) {
		int e = core_reading(s, &st->core[i], now, &st->core[i].end);

		st->core[i].ended = e == 0;
		if (e < 0 && r == 0)
			r = e;
	}
	for (size_t i = 0; st && i < st->n_dom; i++) {
		struct msr_dom *d = &st->dom[i];
		int e = accumulate(s, d, now);

		/* stop every pair we run, whatever the read said */
		for (unsigned j = 0; j < d->n_slots; j++) {
			int w;

			if (d->on[j] < 0)
				continue;
			w = wrmsr(s, d->fd, ctl_of(d, j), 0);
			if (w == 0)
				d->wrote[j] = 0;
			else if (e == 0)
				e = w;
			d->on[j] = -1;
		}
		if (e < 0 && r == 0)
			r = e;
	}
	return r;
}

static void msr_close(struct pm_session *s)
{
	struct pm_msr_state *st = msr_state(s);

	if (!st)
		return;
	/* every control register as it was found */
	for (size_t i = 0; i < st->n_dom; i++) {
		struct msr_dom *d = &st->dom[i];

		for (unsigned j = 0; j < d->n_slots; j++) {
			uint64_t ctl;

			/* only a register still as we left it is ours to put back */
			if (!d->touched[j] || rdmsr(s, d->fd, ctl_of(d, j), &ctl) < 0 ||
			    taken(s, d, j, ctl))
				continue;
			if (wrmsr(s, d->fd, ctl_of(d, j), d->saved[j]) < 0)
				pm_log(s->ctx, PM_LOG_WARN,
				       "could not restore the %s control register 0x%llx on CPU %d",
				       dom_name(d), (unsigned long long)ctl_of(d, j), d->cpu);
		}
		pm_rotation__done(&d->rot);
	}
	for (int i = 0; i < st->n_cpu_fd; i++)
		if (st->cpu_fd[i] >= 0)
			s->ctx->ops->close(s->ctx->os, st->cpu_fd[i]);
	if (st->lock >= 0)
		s->ctx->ops->unlock(s->ctx->os, st->lock);
	for (size_t k = 0; k < s->n_c; k++)
		if (s->c[k].source == PM_SRC_MSR)
			s->c[k].open = false;
	free(st->cpu_fd);
	free(st->acc);
	free(st->rate);
	free(st->dom);
	free(st->core);
	free(st);
	s->state[PM_SRC_MSR] = NULL;
}

/*
 * The kernel has no PMU for the ones msr-discover.c adds: only MSRs count
 * them. With --source msr, also AMD's DF and L3 counters and APERF/MPERF
 * (kernel-facts §4), system-wide; everything else stays with perf.
 */
static bool msr_claims(const struct pm_session *s, const struct pm_evinst *in)
{
	const char *family = in->pmu ? in->pmu->family : "";

	if (in->pmu && in->pmu->source == PM_SRC_MSR)
		return true;
	if (s->opts.source != PM_SOURCE_MSR || s->opts.target == PM_TARGET_TASK ||
	    s->opts.target == PM_TARGET_THREADS)
		return false;
	if (!strcmp(family, "amd_df") || !strcmp(family, "amd_l3"))
		return true;
	return !strcmp(family, "msr") && (in->attr.config == 1 || in->attr.config == 2);
}

/* The PMUs msr-discover.c adds have no kernel PMU: PM_SOURCE_PERF cannot count them. */
static int msr_check(const struct pm_session *s, const struct pm_evinst *in, struct pm_diag *reterr)
{
	const struct pm_event *ev = &s->l->ev[in->event];

	if (!in->pmu || in->pmu->source != PM_SRC_MSR || s->opts.source != PM_SOURCE_PERF)
		return 0;
	pm_diag_set(reterr, "load a kernel with amd_uncore, or ",
		    "the kernel has no %s PMU: '%s' can only be read through /dev/cpu/N/msr",
		    in->pmu->name, ev->label);
	pm_diag_reason(reterr, PM_REASON_USE_SOURCE_MSR, in->pmu->name, NULL);
	return -EOPNOTSUPP;
}

/*
 * pmumon doctor: the Data Fabric and L3 pairs another program has enabled,
 * read only (one device per domain: the CPUs of the PMU's cpumask), as
 * survey_slot() finds them when opening. Without access to the devices it
 * says nothing: the doctor's privilege and driver findings say why.
 */
static void msr_survey(struct pm_ctx *ctx, pm_survey_fn fn, void *ud)
{
	for (size_t i = 0; i < ctx->n_pmus; i++) {
		const struct pm_pmu *p = ctx->pmus[i];
		bool df = !strcmp(p->name, "amd_df");

		if (p->source != PM_SRC_MSR || (!df && strcmp(p->name, "amd_l3") != 0))
			continue;
		for (size_t c = 0; c < p->cpus.n; c++) {
			struct msr_dom d = { .df = df,
					     .cpu = p->cpus.cpu[c],
					     .n_slots = df ? DF_SLOTS : L3_SLOTS };
			char path[64], what[320], fix[320];
			int fd;

			snprintf(path, sizeof(path), "dev/cpu/%d/msr", d.cpu);
			fd = ctx->ops->open(ctx->os, path, O_RDONLY);
			if (fd < 0)
				return;
			for (unsigned j = 0; j < d.n_slots; j++) {
				uint64_t ctl = 0;

				if (ctx->ops->pread(ctx->os, fd, &ctl, 8, ctl_of(&d, j)) != 8 ||
				    !(ctl & CTL_EN))
					continue;
				snprintf(what, sizeof(what),
					 "%s counter %u on CPU %d is in use by another program "
					 "(control register 0x%llx is 0x%llx): pmumon leaves it "
					 "and rotates its events over the others",
					 dom_name(&d), j, d.cpu, (unsigned long long)ctl_of(&d, j),
					 (unsigned long long)ctl);
				snprintf(fix, sizeof(fix),
					 "stop that program; if none runs (a pmumon killed with "
					 "SIGKILL left it), ");
				fn(ud, what, fix, PM_REASON_NEEDS_RECLAIM);
			}
			ctx->ops->close(ctx->os, fd);
		}
	}
}

const struct pm_source_ops pm_source_msr = {
	.origin = PM_SOURCE_LIVE,
	.lock_path = LOCK_PATH,
	.discover = pm_msr__discover,
	.claims = msr_claims,
	.check = msr_check,
	.open = msr_open,
	.enable = msr_enable,
	.disable = msr_disable,
	.read = msr_read,
	.close = msr_close,
	.next_poll = msr_next_poll,
	.poll = msr_poll,
	.survey = msr_survey,
	.doctor = pm_msr__doctor,
};
