/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event specs in perf's syntax, parsed without looking at the machine:
 *
 *   list      := item (',' item)*
 *   item      := [name] '{' event (',' event)* '}' [':' mods] | event
 *                                                    (perf's named group: the name is dropped)
 *   event     := pmu '/' [term (',' term)*] '/' [[':'] mods]   PMU event, pmu may be a glob
 *              | pmu '/' block '/' term (',' term)* '/' [[':'] mods]
 *                                                    a device's block: bfperf/tile2/HNF_REQUESTS/,
 *                                                    pmu "bfperf/tile2" (block may be a glob)
 *              | 'r' hex ['/' [term (',' term)*] '/'] [[':'] mods]   raw core event
 *              | number ':' number ['/' [term (',' term)*] '/'] [[':'] mods]
 *                                                    attr type and config (1:1)
 *              | 'mem:' addr ['/' len] [':' rwx] [[':'] mods]   breakpoint (perf's mem:)
 *              | subsys ':' name                                tracepoint (name may be a glob)
 *              | name [':' mods]                                generic event or alias
 *   term      := name ['=' value]      value: number, word, or a '...' / "..." string
 *   mods      := one or more of u k h G H I D e p P S W b (perf's, parse-events.l 6.1)
 *
 * Every node remembers where it came from in the input so that messages can
 * point at it. Resolution against PMUs happens in resolve.c.
 */
#ifndef PM_SPEC_H
#define PM_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PM_SPEC_MAX_LEN 8192 /* longest spec we parse */
#define PM_SPEC_MAX_EVENTS 1024
#define PM_SPEC_MAX_TERMS 32

enum pm_spec_kind {
	PM_SPEC_PMU,	    /* pmu/terms/ */
	PM_SPEC_SYMBOL,	    /* cycles, page-faults, hif_rd */
	PM_SPEC_RAW,	    /* r1a8 */
	PM_SPEC_TRACEPOINT, /* sched:sched_switch */
	PM_SPEC_BREAKPOINT, /* mem:0x1000/8:w */
	PM_SPEC_NUMERIC,    /* 1:1, 4:0x3c/name=x/: perf_event_attr type and config */
};

/* perf's event modifiers (tools/perf/util/parse-events.c), each its attr bit */
enum {
	PM_MOD_U = 1 << 0,	/* u: count user space */
	PM_MOD_K = 1 << 1,	/* k: count the kernel */
	PM_MOD_H = 1 << 2,	/* h: count the hypervisor */
	PM_MOD_GUEST = 1 << 3,	/* G: count the guest only (exclude_host) */
	PM_MOD_HOST = 1 << 4,	/* H: count the host only (exclude_guest) */
	PM_MOD_NOIDLE = 1 << 5, /* I: not while the CPU idles (exclude_idle) */
	PM_MOD_PINNED = 1 << 6, /* D: always on the PMU, or in error (pinned) */
	PM_MOD_EXCL = 1 << 7,	/* e: alone on the PMU while it counts (exclusive) */
	PM_MOD_PMAX = 1 << 8,	/* P: the most precise level; perf stat leaves precise_ip 0 */
	PM_MOD_SREAD = 1 << 9,	/* S: read the group when sampling; nothing when counting */
	PM_MOD_WEAK = 1 << 10,	/* W: a weak group, counted ungrouped when the kernel refuses it */
	PM_MOD_BPF = 1 << 11,	/* b: perf counts through BPF; the counts are perf_event_open's */
	PM_MOD_PRIV = PM_MOD_U | PM_MOD_K | PM_MOD_H,
};

struct pm_spec_term {
	char *name;
	char *value;	 /* NULL when the term has no '=' */
	size_t pos, len; /* the whole term in the input */
	size_t value_pos;
};

struct pm_spec_event {
	enum pm_spec_kind kind;
	char *pmu;	  /* PM_SPEC_PMU */
	char *name;	  /* SYMBOL: name; TRACEPOINT: "subsys:name" */
	uint64_t raw;	  /* RAW, NUMERIC: config; BREAKPOINT: the address */
	uint32_t type;	  /* NUMERIC: the attr's type */
	uint64_t bp_len;  /* BREAKPOINT: /LEN as given, 0 when none (perf: 0 means its default) */
	unsigned bp_type; /* BREAKPOINT: HW_BREAKPOINT_R 1 | W 2 | X 4 as given, 0 when none */
	struct pm_spec_term *terms;
	size_t n_terms;
	unsigned mods;	  /* PM_MOD_*; 0 = none given */
	unsigned precise; /* p, pp, ppp: 1 to 3 (attr.precise_ip); 0 none */
	size_t pos, len;  /* the event in the input, without group braces */
	size_t mods_pos;  /* where its modifiers start, when mods != 0 */
	int group;	  /* index of its {group}, -1 if none */
};

struct pm_spec {
	struct pm_spec_event *ev;
	size_t n;
	size_t n_groups;
};

/* Where and why a spec failed to parse. */
struct pm_spec_err {
	size_t pos, len;
	const char *msg; /* static text */
};

/*
 * Parse s[0..len). *ret is untouched on failure; *reterr (if not NULL) says
 * where. Return: 0, -EINVAL (syntax), -E2BIG (limits above), -ENOMEM.
 */
int pm_spec__parse(const char *s, size_t len, struct pm_spec *ret, struct pm_spec_err *reterr);
void pm_spec__done(struct pm_spec *spec);

/*
 * Parse a bare term list, as sysfs event files and packs write them
 * ("event=0x07,umask=0x38"), into ret->terms. Same rules as above.
 */
int pm_spec__parse_terms(const char *s, size_t len, struct pm_spec_event *ret,
			 struct pm_spec_err *reterr);
void pm_spec__done_event(struct pm_spec_event *ev);

/*
 * Whether two bare term lists encode the same event: the same terms in any
 * order, numbers compared as numbers ("config=0x8" is "config=8"), a bare
 * term as =1. A list that does not parse is never the same.
 */
bool pm_spec__same_terms(const char *a, const char *b);

#endif
