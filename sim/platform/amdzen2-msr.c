// SPDX-License-Identifier: GPL-2.0-only
/*
 * The amdzen2 machine's /dev/cpu/N/msr devices, as arch/x86/kernel/msr.c
 * and the hardware behave (docs/facts-sim-platforms.md §1, §5):
 *
 *  - pread/pwrite at the MSR index, in chunks of 8 bytes (another size:
 *    EINVAL); an MSR the CPU does not have: EIO;
 *  - opening needs CAP_SYS_RAWIO (EPERM without it; the device is root's
 *    0600, so another user gets EACCES); writes are refused with EPERM under
 *    kernel lockdown or msr.allow_writes=off;
 *  - the Data Fabric's 4 CTL/CTR pairs are one set per socket and the L3's 6
 *    pairs one set per CCX, whichever CPU's device reaches them; APERF and
 *    MPERF are per CPU;
 *  - a counter counts while its CTL's enable bit (22) is set, is 48 bits
 *    wide, and CTL holds the event in the layout of seed 004 / kernel-facts
 *    §3.6 (DF) or the F17h L3 layout (§3.2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdzen2-msr.h"
#include "counter.h"
#include "util/util.h"
#include "vfs.h"

/* arch/x86/include/asm/msr-index.h (docs/facts-sim-platforms.md §1) */
#define MSR_IA32_MPERF 0xe7
#define MSR_IA32_APERF 0xe8
#define MSR_F16H_L2I_PERF_CTL 0xc0010230 /* amd_l3 on family 17h */
#define MSR_F15H_NB_PERF_CTL 0xc0010240	 /* amd_df on family 17h */
#define CTL_ENABLE (1ull << 22)		 /* ARCH_PERFMON_EVENTSEL_ENABLE */
#define DF_PAIRS 4
#define L3_PAIRS 6

struct pair {
	uint64_t ctl;
	struct sim_counter ctr;
};

struct cpu_dev {
	struct amd_msr *m;
	int cpu;
	struct sim_counter aperf, mperf;
};

struct amd_msr {
	struct amd *a;
	bool can_open, rawio, writable;
	struct pair df[AMD_MAX_SOCKETS][DF_PAIRS];
	struct pair l3[AMD_MAX_SOCKETS * AMD_CCX_PER_SOCKET][L3_PAIRS];
	struct cpu_dev *cpu;
	int n_cpus;
};

void amdzen2_msr_free(struct amd_msr *m)
{
	if (!m)
		return;
	free(m->cpu);
	free(m);
}

/* The register an MSR index names on this CPU, and its truth function. */
struct reg {
	struct pair *pair;	  /* a DF or L3 pair */
	bool is_ctl;		  /* the CTL of that pair (else its CTR) */
	struct sim_counter *core; /* APERF/MPERF */
	int core_what;		  /* 1 APERF, 2 MPERF */
	bool df;
	int domain; /* socket (DF) or CCX (L3) */
};

static int find_reg(struct cpu_dev *d, uint64_t idx, struct reg *r)
{
	struct amd_msr *m = d->m;

	*r = (struct reg){ 0 };
	if (idx == MSR_IA32_APERF || idx == MSR_IA32_MPERF) {
		r->core = idx == MSR_IA32_APERF ? &d->aperf : &d->mperf;
		r->core_what = idx == MSR_IA32_APERF ? 1 : 2;
		return 0;
	}
	if (idx >= MSR_F15H_NB_PERF_CTL && idx < MSR_F15H_NB_PERF_CTL + 2 * DF_PAIRS) {
		r->df = true;
		r->domain = amd_socket_of(m->a, d->cpu);
		r->pair = &m->df[r->domain][(idx - MSR_F15H_NB_PERF_CTL) / 2];
		r->is_ctl = (idx - MSR_F15H_NB_PERF_CTL) % 2 == 0;
		return 0;
	}
	if (idx >= MSR_F16H_L2I_PERF_CTL && idx < MSR_F16H_L2I_PERF_CTL + 2 * L3_PAIRS) {
		r->domain = amd_ccx_of(m->a, d->cpu);
		r->pair = &m->l3[r->domain][(idx - MSR_F16H_L2I_PERF_CTL) / 2];
		r->is_ctl = (idx - MSR_F16H_L2I_PERF_CTL) % 2 == 0;
		return 0;
	}
	return -EIO; /* rdmsr/wrmsr of an MSR this CPU lacks faults */
}

/* The cumulative count the pair's CTL selects, now. */
static uint64_t pair_truth(const struct amd_msr *m, const struct reg *r, uint64_t ctl)
{
	uint64_t t = sim_scn_now(m->a->sim);

	return r->df ? amdzen2_df_truth(m->a, r->domain, ctl, t) :
		       amdzen2_l3_truth(m->a, r->domain, ctl, t);
}

static uint64_t reg_read(struct cpu_dev *d, const struct reg *r)
{
	struct amd_msr *m = d->m;

	if (r->core)
		return sim_counter__value(r->core, amdzen2_core_truth(m->a, d->cpu, r->core_what,
								      sim_scn_now(m->a->sim)));
	if (r->is_ctl)
		return r->pair->ctl;
	return sim_counter__value(&r->pair->ctr, pair_truth(m, r, r->pair->ctl));
}

static void reg_write(struct cpu_dev *d, const struct reg *r, uint64_t v)
{
	struct amd_msr *m = d->m;
	struct pair *p = r->pair;

	if (r->core) {
		sim_counter__set(r->core, v,
				 amdzen2_core_truth(m->a, d->cpu, r->core_what,
						    sim_scn_now(m->a->sim)));
		return;
	}
	if (!r->is_ctl) {
		sim_counter__set(&p->ctr, v, pair_truth(m, r, p->ctl));
		return;
	}
	/* a new CTL: the counter keeps its value and follows the new selection */
	sim_counter__switch(&p->ctr, pair_truth(m, r, p->ctl), pair_truth(m, r, v));
	p->ctr.running = v & CTL_ENABLE;
	p->ctl = v;
}

static int msr_open(void *data, int flags)
{
	struct cpu_dev *d = data;

	if (!d->m->can_open)
		return -EACCES; /* crw------- root */
	if (!d->m->rawio)
		return -EPERM; /* msr_open: no CAP_SYS_RAWIO */
	return 0;
}

static ssize_t msr_read(void *data, void *buf, size_t len, uint64_t off)
{
	struct cpu_dev *d = data;
	struct reg r;
	size_t done;
	int e;

	if (len % 8)
		return -EINVAL; /* invalid chunk size */
	e = find_reg(d, off, &r);
	if (e < 0)
		return e;
	for (done = 0; done < len; done += 8) {
		uint64_t v = reg_read(d, &r);

		memcpy((char *)buf + done, &v, 8);
	}
	return (ssize_t)len;
}

static ssize_t msr_write(void *data, const void *buf, size_t len, uint64_t off)
{
	struct cpu_dev *d = data;
	struct reg r;
	int e;

	if (!d->m->writable)
		return -EPERM; /* lockdown, or msr.allow_writes=off */
	if (len % 8)
		return -EINVAL;
	e = find_reg(d, off, &r);
	if (e < 0)
		return e;
	for (size_t done = 0; done < len; done += 8) {
		uint64_t v;

		memcpy(&v, (const char *)buf + done, 8);
		reg_write(d, &r, v);
	}
	return (ssize_t)len;
}

static void pair_state(FILE *f, const char *dom, int n, uint64_t ctl0, const struct pair *p,
		       int pairs)
{
	for (int i = 0; i < pairs; i++)
		fprintf(f, "msr/%s%d/0x%llx: 0x%016llx %s\n", dom, n,
			(unsigned long long)(ctl0 + 2 * (unsigned)i), (unsigned long long)p[i].ctl,
			p[i].ctr.running ? "counting" : "stopped");
}

void amdzen2_msr_state(const struct amd_msr *m, FILE *f)
{
	for (int s = 0; s < m->a->sockets; s++)
		pair_state(f, "df/socket", s, MSR_F15H_NB_PERF_CTL, m->df[s], DF_PAIRS);
	for (int c = 0; c < m->a->sockets * AMD_CCX_PER_SOCKET; c++)
		pair_state(f, "l3/ccx", c, MSR_F16H_L2I_PERF_CTL, m->l3[c], L3_PAIRS);
}

static const struct sim_file_ops msr_ops = {
	.read = msr_read,
	.write = msr_write,
	.open = msr_open,
};

int amdzen2_msr_build(struct amd *a, const char *mode, bool root, struct amd_msr **ret_msr)
{
	struct amd_msr *m;
	int r = 0;

	if (!strcmp(mode, "none")) {
		*ret_msr = NULL;
		return 0; /* no msr driver: no /dev/cpu/N/msr */
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->a = a;
	m->can_open = root;
	m->rawio = strcmp(mode, "noperm") != 0;
	m->writable = strcmp(mode, "locked") != 0;
	m->n_cpus = a->sockets * AMD_CORES * 2;
	m->cpu = calloc((size_t)m->n_cpus, sizeof(*m->cpu));
	if (!m->cpu) {
		free(m);
		return -ENOMEM;
	}
	for (size_t s = 0; s < AMD_MAX_SOCKETS; s++)
		for (size_t i = 0; i < DF_PAIRS; i++)
			m->df[s][i].ctr.width = 48;
	for (size_t c = 0; c < PM_ARRAY_SIZE(m->l3); c++)
		for (size_t i = 0; i < L3_PAIRS; i++)
			m->l3[c][i].ctr.width = 48;
	for (int c = 0; r == 0 && c < m->n_cpus; c++) {
		struct cpu_dev *d = &m->cpu[c];
		char path[64];

		d->m = m;
		d->cpu = c;
		/* APERF and MPERF run from boot: they read as the truth itself */
		d->aperf = (struct sim_counter){ .width = 64, .running = true };
		d->mperf = (struct sim_counter){ .width = 64, .running = true };
		snprintf(path, sizeof(path), "dev/cpu/%d/msr", c);
		r = sim_vfs__add_dynamic(pm_sim__vfs(a->sim), path, &msr_ops, d);
	}
	if (r < 0) {
		/* the devices added stay in the tree until the machine that failed to
		 * build goes, unread */
		amdzen2_msr_free(m);
		return r;
	}
	*ret_msr = m;
	return 0;
}
