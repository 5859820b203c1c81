// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsers of recordings (docs/import.md): perf stat -x SEP and -j output as
 * Linux 6.1's tools/perf/util/stat-display.c prints them
 * (docs/facts-perf-tools.md §8), pmumon stat's CSV, and the counts CSV for
 * other collectors. Each takes a line, is strict about numbers and reports
 * "FILE:LINE: what was expected". The file is read once, a line at a time in
 * a buffer of fixed size: the pass checks it all, learns its series and
 * samples, and keeps each value it took, parsed, in a spill (replay-spill.h:
 * in memory, past 4 MiB in a temporary file); playing it back reads one
 * sample per call from the spill (replay.h), as often as the session opens.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctx.h"
#include "pmu.h"
#include "source/replay/replay-spill.h"
#include "source/replay/replay.h"
#include "util/cpus.h"
#include "util/opts.h"
#include "util/util.h"

#define DEFAULT_MAX_LINE (1u << 20)
#define DEFAULT_MAX_SERIES 100000u
#define READ_CHUNK (64u << 10)

/* A CSV header: where each column of names is (-1: absent). */
struct columns {
	const char *const *names;
	int at[24];
	size_t n_fields, line; /* the header's: every row has as many fields */
};

struct pm_replay_parser {
	struct pm_replay *rp;
	struct pm_replay_opts opts; /* a copy; its name is rp->name */
	struct pm_diag *d;	    /* the caller's in the first pass, then own */
	struct pm_diag own;
	size_t line;
	size_t hint;		/* the series after the last one found */
	double duration_ns;	/* a duration_time row of a totals file, NAN: none */
	bool saw_interval_rows; /* pmumon CSV: interval rows win over total rows */
	int perf_cgroups;	/* perf -x: lines have a cgroup field (1) or not (-1), 0: unknown */
	bool header_done;	/* the first record line was read */
	char stamp[32];		/* perf -x: the last interval time stamp read, and its ns */
	size_t stamp_len;
	uint64_t stamp_ns;
	struct columns c;
	char sep;

	/* the input: a file (or a pipe), or a buffer */
	FILE *in;
	bool check_changes; /* a regular file: it must not change while it is read */
	struct stat seen;   /* the file as the pass found it */
	char *mem;	    /* pm_replay__parse's copy of its buffer */
	size_t mem_len, mem_pos;
	char *buf; /* what was read and not yet taken: [pos, end) */
	size_t cap, pos, end;
	bool eof;

	/* what the pass took, for playing: a sample's time, wall clock and line when it
	 * changes, then each value with its series */
	struct pm_spill spill;
	bool spilled;			      /* a sample was put */
	uint64_t spilled_t;		      /* the time of the last one put */
	size_t spill_series, play_series;     /* the series after the last value put, read */
	uint64_t spill_run, play_run;	      /* the run time of the last value put, read */
	struct pm_replay_sample spill_sample; /* playing: the last sample read back */

	/* playing it back (pm_replay__next_sample) */
	bool playing;
	size_t played;	   /* samples read so far */
	bool in_sample;	   /* the sample being read has a value */
	uint64_t cur_t_ns; /* the time the file gives it */
	bool pending;	   /* a value of the next sample, read ahead */
	struct {
		size_t series, line;
		uint64_t t_ns, wall_ns;
		struct pm_replay_val v;
	} ahead;
};

static int fail(struct pm_replay_parser *p, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct pm_replay_parser *p, const char *hint, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->line)
		pm_diag_set(p->d, hint, "%s:%zu: %s", p->rp->name, p->line, msg);
	else /* before any line: the file as a whole */
		pm_diag_set(p->d, hint, "%s: %s", p->rp->name, msg);
	return -EINVAL;
}

/* ---- small pure helpers ------------------------------------------------------ */

/* "die0/ch2": a row --per-channel wrote (lib/out/csv.c), not a PMU. */
static bool is_channel_label(const char *s)
{
	int die, ch, end = 0;

	return s && sscanf(s, "die%d/ch%d%n", &die, &ch, &end) == 2 && !s[end];
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	pm_rtrim(s);
	return s;
}

/* Eight decimal digits at s as a number (0 to 99999999), or UINT64_MAX when one is not a
 * digit: the bytes of one load checked and summed in pairs, fours, then the eight. */
static inline uint64_t eight_digits(const char *s)
{
	uint64_t x;

	memcpy(&x, s, sizeof(x));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x); /* s[0] in the low byte, as on the little-endian */
#endif
	/* every byte 0x30 to 0x39: its high half 3, and still 3 with 6 added */
	if ((x & 0xf0f0f0f0f0f0f0f0ull) != 0x3030303030303030ull ||
	    ((x + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) != 0x3030303030303030ull)
		return UINT64_MAX;
	x -= 0x3030303030303030ull;
	x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffull;   /* pairs: s[0]s[1] in byte 0 */
	x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffull; /* fours */
	return (x * 10000 + (x >> 32)) & 0xffffffffull;
}

/* pm_parse_u64(s, len, 10, ret), inline for every line's count and run time: the same
 * answer, its loop without the call and the base's checks up to 19 digits. */
static inline int dec_u64(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len == 0 || len > 19)
		return pm_parse_u64(s, len, 10, ret);
	for (; i + 8 <= len; i += 8) { /* 19 digits: below 2^64, no overflow */
		uint64_t e = eight_digits(s + i);

		if (e == UINT64_MAX)
			return -EINVAL;
		v = v * 100000000 + e;
	}
	for (; i < len; i++) {
		uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

/* A count as a file prints it (len bytes): a number (perf scales it, so a fraction), never
 * negative. */
static bool parse_count(const char *s, size_t len, double *ret)
{
	uint64_t u;
	double v;

	/* most are whole counts: exact as a double below 2^53, else read as one */
	if (len < 16 && dec_u64(s, len, &u) == 0) {
		*ret = (double)u;
		return true;
	}
	if (pm_parse_double(s, len, &v) < 0 || v < 0)
		return false;
	*ret = v;
	return true;
}

/* "%lu.%09lu": perf's interval time stamp, the only 9-decimal field it prints. One scan:
 * every line of a perf file starts with one. */
static bool is_timestamp(const char *s, uint64_t *ret_ns)
{
	uint64_t sec = 0, ns = 0;
	size_t i = 0, k;

	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (__builtin_mul_overflow(sec, 10, &sec) ||
		    __builtin_add_overflow(sec, (uint64_t)(s[i] - '0'), &sec))
			return false;
	}
	if (i == 0 || s[i] != '.')
		return false;
	for (k = 1; k <= 9 && s[i + k] >= '0' && s[i + k] <= '9'; k++)
		ns = ns * 10 + (uint64_t)(s[i + k] - '0');
	if (k != 10 || s[i + 10] != '\0' || sec > UINT64_MAX / 1000000000ull - 1)
		return false;
	*ret_ns = sec * 1000000000ull + ns;
	return true;
}

/* memcmp(a, b, len) == 0 for a time stamp's length: 9 to 16 bytes ("1.000000000") in two
 * loads of each, which may overlap, without the call. */
static inline bool same_stamp(const char *a, const char *b, size_t len)
{
	uint64_t a0, a1, b0, b1;

	if (len < 8 || len > 16)
		return !memcmp(a, b, len);
	memcpy(&a0, a, 8);
	memcpy(&b0, b, 8);
	memcpy(&a1, a + len - 8, 8);
	memcpy(&b1, b + len - 8, 8);
	return a0 == b0 && a1 == b1;
}

/* is_timestamp for a perf line's first field (len bytes): an interval's lines repeat its
 * stamp, read once. */
static bool perf_stamp(struct pm_replay_parser *p, const char *s, size_t len, uint64_t *ret_ns)
{
	if (len && len == p->stamp_len && same_stamp(s, p->stamp, len)) {
		*ret_ns = p->stamp_ns;
		return true;
	}
	if (!is_timestamp(s, ret_ns))
		return false;
	if (len < sizeof(p->stamp)) {
		memcpy(p->stamp, s, len);
		p->stamp_len = len;
		p->stamp_ns = *ret_ns;
	}
	return true;
}

/* Seconds with a fraction ("1.001441188") to ns, strictly. */
static bool seconds_ns(const char *s, uint64_t *ret_ns)
{
	double v;

	if (!is_timestamp(s, ret_ns)) {
		if (pm_parse_double(s, strlen(s), &v) < 0 || v < 0 || v > 1e10)
			return false;
		*ret_ns = (uint64_t)llround(v * 1e9);
	}
	return true;
}

/* A number of an id: decimal, no sign or leading zero; *big when PM_CPU_MAX or more. */
static const char *id_num(const char *s, int *ret, bool *big)
{
	size_t n = strspn(s, "0123456789");
	uint64_t v = PM_CPU_MAX;

	if (n == 0 || (n > 1 && s[0] == '0'))
		return NULL;
	if (n > 9 || pm_parse_u64(s, n, 10, &v) < 0 || v >= PM_CPU_MAX)
		*big = true;
	*ret = v < PM_CPU_MAX ? (int)v : -1;
	return s + n;
}

int pm_replay_parse_aggr_id(const char *s, int *ret_cpu, int *ret_socket, int *ret_die,
			    int *ret_core)
{
	static const char *const part[] = { "S", "-D", "-C" }; /* S%d-D%d-C%d */
	int cpu = -1, id[3] = { -1, -1, -1 };
	bool big = false;

	if (!strncmp(s, "CPU", 3)) {
		s = id_num(s + 3, &cpu, &big);
	} else if (s[0] == 'S') {
		for (size_t k = 0; s && *s && k < PM_ARRAY_SIZE(part); k++)
			s = strncmp(s, part[k], strlen(part[k])) ?
				    NULL :
				    id_num(s + strlen(part[k]), &id[k], &big);
	} else {
		return -EINVAL;
	}
	if (!s || *s)
		return -EINVAL;
	if (big)
		return -ERANGE;
	*ret_cpu = cpu;
	*ret_socket = id[0];
	*ret_die = id[1];
	*ret_core = id[2];
	return 0;
}

int pm_replay_split_name(const char *printed, char **ret_name, char **ret_pmu)
{
	const char *br = strstr(printed, " [");
	char *name = NULL, *pmu = NULL;
	size_t n = strlen(printed);

	if (br && n > 3 && printed[n - 1] == ']') {
		/* perf --no-merge: "hif_rd [ali_drw_21000]" (uniquify_event_name) */
		name = strndup(printed, (size_t)(br - printed));
		pmu = strndup(br + 2, n - 1 - (size_t)(br - printed) - 2);
	} else if (strchr(printed, '/') && printed[0] != '/') {
		/* "ali_drw_21000/hif_rd/" or "amd_df/event=0x7,umask=0x38/" */
		size_t plen = strcspn(printed, "/");
		size_t flen;

		pmu = strndup(printed, plen);
		if (!pmu)
			return -ENOMEM;
		flen = pm_pmu_family_len(pmu);
		/* an instance's name stands for its family in the event's name */
		name = malloc(n + 1);
		if (name)
			snprintf(name, n + 1, "%.*s%s", (int)flen, printed, printed + plen);
	} else {
		name = strdup(printed);
	}
	if (!name || (br && !pmu)) {
		free(name);
		free(pmu);
		return -ENOMEM;
	}
	*ret_name = name;
	*ret_pmu = pmu;
	return 0;
}

/* ---- series and samples ------------------------------------------------------------ */

/*
 * An event given twice is printed twice, in the order it was given (perf stat -e
 * page-faults -e page-faults, and pmumon stat): a second row of the same event, device and
 * CPU in one sample is its next repeat, a series of its own. A counts CSV has no such
 * thing: there, a second row is refused (scan_value).
 */
static bool repeats(const struct pm_replay_parser *p)
{
	return p->rp->format != PM_REPLAY_COUNTS_CSV;
}

static bool same_place(const struct pm_replay_series *s, int cpu, int socket, int die, int core)
{
	return s->cpu == cpu && s->socket == socket && s->die == die && s->core == core;
}

/* The series' cgroup is this one (NULL or "": none). */
static bool same_cgroup(const struct pm_replay_series *s, const char *cgroup)
{
	if (!s->cgroup || !s->cgroup[0])
		return !cgroup || !cgroup[0];
	return cgroup && !strcmp(s->cgroup, cgroup);
}

/* A new series, the file's next; the caller has checked the limit. 0 or -ENOMEM. */
static int add_series(struct pm_replay_parser *p, const struct pm_replay_series *key,
		      const char *printed, const char *device, const char *unit, size_t *ret)
{
	struct pm_replay *rp = p->rp;
	struct pm_replay_series *s;
	int r;

	r = pm_grow((void **)&rp->series, &rp->cap_series, rp->n_series + 1, sizeof(*s));
	if (r < 0) {
		free(key->name);
		free(key->pmu);
		free(key->cgroup);
		return r;
	}
	s = &rp->series[rp->n_series];
	*s = *key;
	s->unit = strdup(unit ? unit : "");
	s->printed = strdup(printed);
	s->device = strdup(device ? device : "");
	s->line = p->line;
	s->last_sample = SIZE_MAX;
	s->topo_cpu = -1;
	s->event = s->q_event = SIZE_MAX; /* no event of a list yet */
	rp->n_series++;
	if (!s->unit || !s->printed || !s->device)
		return -ENOMEM;
	p->hint = rp->n_series;
	*ret = rp->n_series - 1;
	return 0;
}

/* Is s the one a line of this sample names, not only one of its name and place? Yes but
 * when it had its value in this sample, or is a repeat whose earlier one has not: the
 * repeats of one sample are taken in the order they were first printed. */
static bool next_repeat(const struct pm_replay_parser *p, const struct pm_replay_series *s,
			size_t sample)
{
	if (!repeats(p))
		return true;
	return s->last_sample != sample &&
	       (s->prev == SIZE_MAX || p->rp->series[s->prev].last_sample == sample);
}

/* The series of key's name, pmu and place that a line of this sample names; SIZE_MAX: none,
 * with key->repeat and key->prev those of a new repeat. */
static size_t known_series(struct pm_replay_parser *p, struct pm_replay_series *key, size_t sample)
{
	struct pm_replay *rp = p->rp;

	key->prev = SIZE_MAX;
	for (size_t k = 0; k < rp->n_series; k++) {
		size_t i = (p->hint + k) % rp->n_series;
		const struct pm_replay_series *s = &rp->series[i];

		if (strcmp(s->name, key->name) != 0 ||
		    strcmp(s->pmu ? s->pmu : "", key->pmu ? key->pmu : "") != 0 ||
		    !same_place(s, key->cpu, key->socket, key->die, key->core) ||
		    !same_cgroup(s, key->cgroup))
			continue;
		if (next_repeat(p, s, sample))
			return i;
		if (s->last_sample == sample && s->repeat + 1 > key->repeat) {
			key->repeat = s->repeat + 1;
			key->prev = i;
		}
	}
	return SIZE_MAX;
}

/* The series a line of the sample'th sample names; the first pass adds the ones it has not
 * seen. */
static int find_series(struct pm_replay_parser *p, const char *printed, const char *device, int cpu,
		       int socket, int die, int core, const char *cgroup, const char *unit,
		       size_t sample, size_t *ret)
{
	struct pm_replay *rp = p->rp;
	size_t hint = p->hint < rp->n_series ? p->hint : 0, i;
	struct pm_replay_series *s = rp->n_series ? &rp->series[hint] : NULL;
	struct pm_replay_series key;
	int r;

	/* a file names its series in the same order every interval: the one after the last,
	 * as the line printed it */
	if (s && same_place(s, cpu, socket, die, core) && !strcmp(s->printed, printed) &&
	    (device && device[0] ? !strcmp(s->device, device) : !s->device[0]) &&
	    same_cgroup(s, cgroup) && next_repeat(p, s, sample)) {
		*ret = hint;
		p->hint = hint + 1;
		return 0;
	}
	key = (struct pm_replay_series){ .cpu = cpu,
					 .socket = socket,
					 .die = die,
					 .core = core,
					 .channel = -1 };
	if (cgroup && cgroup[0]) {
		key.cgroup = strdup(cgroup);
		if (!key.cgroup)
			return -ENOMEM;
	}
	r = pm_replay_split_name(printed, &key.name, &key.pmu);
	if (r == 0 && device && device[0]) {
		free(key.pmu);
		key.pmu = strdup(device);
		r = key.pmu ? 0 : -ENOMEM;
	}
	i = r == 0 ? known_series(p, &key, sample) : SIZE_MAX;
	if (i != SIZE_MAX) {
		p->hint = i + 1;
		*ret = i;
	} else if (r == 0 && rp->n_series >= p->opts.max_series) {
		r = fail(p, "record fewer events, or coarser rows (--per-socket, not -A)",
			 "more than %zu distinct series (an event on a device or CPU): the "
			 "most an import takes",
			 p->opts.max_series);
	} else if (r == 0) {
		return add_series(p, &key, printed, device, unit, ret); /* owns key's strings */
	}
	free(key.name);
	free(key.pmu);
	free(key.cgroup);
	return r;
}

/* The first pass: the sample a line at time t belongs to, the last one or a new one after it. */
static int scan_sample(struct pm_replay_parser *p, uint64_t t_ns, uint64_t wall_ns)
{
	struct pm_replay *rp = p->rp;

	if (rp->n_samples && rp->last.t_ns == t_ns)
		return 0;
	if (rp->n_samples && t_ns < rp->last.t_ns)
		return fail(p, "the intervals of a file must come in time order",
			    "time %.9f s comes after %.9f s (line %zu)", (double)t_ns / 1e9,
			    (double)rp->last.t_ns / 1e9, rp->last.line);
	rp->last = (struct pm_replay_sample){ .t_ns = t_ns, .wall_ns = wall_ns, .line = p->line };
	if (rp->n_samples++ == 0)
		rp->first = rp->last;
	return 0;
}

/* The first pass: what a value tells of its series, once per sample. */
static int scan_value(struct pm_replay_parser *p, size_t series, const struct pm_replay_val *v)
{
	struct pm_replay *rp = p->rp;
	struct pm_replay_series *se = &rp->series[series];

	if (se->last_sample == rp->n_samples - 1) /* a counts CSV: a row given twice */
		return fail(p, "each event, device and CPU once per interval",
			    "a second count of '%s' for the same %s", se->name,
			    rp->intervals ? "interval" : "totals");
	se->last_sample = rp->n_samples - 1;
	/* <not counted> is a row (the counter was opened and never ran); <not supported>,
	 * with nothing to say (have 0), is not */
	se->counted |= !v->not_counted || v->have != 0;
	if ((v->have & (PM_RV_RAW | PM_RV_VALUE)) == (PM_RV_RAW | PM_RV_VALUE) && v->raw &&
	    v->run == v->ena)
		se->scale = v->value / (double)v->raw;
	se->max_instances = PM_MAX(se->max_instances, v->instances);
	return 0;
}

/* Playing: a value of the sample being read (0), or the first of the next one, kept for
 * the next call (1: this sample is complete). */
static int play_value(struct pm_replay_parser *p, uint64_t t_ns, uint64_t wall_ns, size_t series,
		      const struct pm_replay_val *v)
{
	struct pm_replay *rp = p->rp;

	if (p->in_sample && t_ns != p->cur_t_ns) {
		p->ahead.series = series;
		p->ahead.line = p->line;
		p->ahead.t_ns = t_ns;
		p->ahead.wall_ns = wall_ns;
		p->ahead.v = *v;
		p->pending = true;
		return 1;
	}
	if (!p->in_sample) {
		p->in_sample = true;
		p->cur_t_ns = t_ns;
		rp->cur = (struct pm_replay_sample){ .t_ns = t_ns,
						     .wall_ns = wall_ns,
						     .line = p->line };
	}
	rp->vals[series] = *v;
	return 0;
}

/* What no counter can have read, whatever the format said it in. */
static int check_times(struct pm_replay_parser *p, const struct pm_replay_val *v)
{
	if (v->not_counted || !(v->have & PM_RV_TIMES))
		return 0;
	if (v->run > v->ena)
		return fail(p, "a counter runs at most as long as it is enabled",
			    "running_ns %llu is more than enabled_ns %llu",
			    (unsigned long long)v->run, (unsigned long long)v->ena);
	if (v->run == 0)
		return fail(p, "a counter that did not run is <not counted>, without a count",
			    "a count that ran 0 ns");
	return 0;
}

/* The sample a line at time t belongs to: the last one, or a new one after it. */
static size_t sample_of(const struct pm_replay_parser *p, uint64_t t_ns)
{
	const struct pm_replay *rp = p->rp;

	return rp->n_samples && rp->last.t_ns == t_ns ? rp->n_samples - 1 : rp->n_samples;
}

/* ---- the spill: what the pass took, parsed, for playing ---------------------------- */

/*
 * A sample's start is a 0 byte and its time, wall clock and line (varints). A value is a
 * head (a varint, odd) saying which of its fields follow, then those: what most lines
 * give (a whole count, the last value's run time, a run time equal to the enabled time,
 * the series after the last one) fits the head's first byte and is not written again.
 */
enum { SPILL_SAMPLE = 1, SPILL_VALUE = 2 }; /* spill_next's answers */
enum {
	H_VALUE = 1 << 0,    /* a value (a sample's start: 0) */
	H_NEXT = 1 << 1,     /* its series is the one after the last value's (else a varint) */
	H_WHOLE = 1 << 2,    /* value: a whole count, 1 to 2^53 (a varint) */
	H_RUN = 1 << 3,	     /* run, not 0 (a varint) */
	H_SAME_RUN = 1 << 4, /* run, not 0, the last value's */
	H_HAVE = 1 << 5,     /* have, not 0 (a varint) */
	H_ENA_RUN = 1 << 6,  /* ena equals run */
	H_ENA = 1 << 7,	     /* ena, another (a varint) */
	H_DOUBLE = 1 << 8,   /* value: any other but +0 (8 bytes) */
	H_NOT_COUNTED = 1 << 9,
	H_RAW = 1 << 10, /* these last: each a varint, there when not 0 */
	H_QUALITY = 1 << 11,
	H_COVERED = 1 << 12,
	H_INSTANCES = 1 << 13,
};
#define SPILL_RECORD_MAX 128 /* a value: a head, 7 varints (10 bytes each), a double */

static inline size_t put_varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

static bool get_varint_long(const uint8_t **b, const uint8_t *end, uint64_t *ret);

/* A varint at *b (before end) into *ret, *b past it: false when it is cut short. */
static inline bool get_varint(const uint8_t **b, const uint8_t *end, uint64_t *ret)
{
	if (*b < end && !(**b & 0x80)) { /* most are below 128: one byte, inline */
		*ret = *(*b)++;
		return true;
	}
	return get_varint_long(b, end, ret);
}

static bool get_varint_long(const uint8_t **b, const uint8_t *end, uint64_t *ret)
{
	uint64_t v = 0;

	if (end - *b >= 10) { /* all a varint can take: no bound to check per byte */
		const uint8_t *c = *b;

		for (unsigned i = 0; i < 10; i++) {
			v |= (uint64_t)(c[i] & 0x7f) << (7 * i);
			if (!(c[i] & 0x80)) {
				*b = c + i + 1;
				*ret = v;
				return true;
			}
		}
		return false; /* an eleventh byte: damaged */
	}
	for (unsigned shift = 0; *b < end && shift < 64; shift += 7) {
		uint8_t c = *(*b)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

/* The head of a value after one of run last_run: which of its fields the record holds. */
static unsigned spill_head(const struct pm_replay_val *v, bool next, uint64_t last_run)
{
	unsigned h = H_VALUE | (next ? H_NEXT : 0);

	if (v->value > 0 && v->value <= 0x1p53 && v->value == (double)(uint64_t)v->value)
		h |= H_WHOLE;
	else if (v->value != 0 || signbit(v->value))
		h |= H_DOUBLE; /* a fraction, -0, NaN, huge: its bits */
	if (v->run && v->run == last_run)
		h |= H_SAME_RUN;
	else if (v->run)
		h |= H_RUN;
	if (v->have)
		h |= H_HAVE;
	if (v->ena && v->ena == v->run)
		h |= H_ENA_RUN;
	else if (v->ena)
		h |= H_ENA;
	h |= (v->not_counted ? H_NOT_COUNTED : 0) | (v->raw ? H_RAW : 0) |
	     (v->quality ? H_QUALITY : 0) | (v->covered ? H_COVERED : 0) |
	     (v->instances ? H_INSTANCES : 0);
	return h;
}

/* A value the pass took, after its sample's time when that is new. 0 or -errno (said). */
static int spill_value(struct pm_replay_parser *p, uint64_t t_ns, uint64_t wall_ns, size_t series,
		       const struct pm_replay_val *v)
{
	unsigned h = spill_head(v, series == p->spill_series, p->spill_run);
	uint8_t *b;
	size_t n = 0;
	int r = pm_spill__reserve(&p->spill, 2 * SPILL_RECORD_MAX, &b);

	if (r < 0)
		return fail(p, "make room in $TMPDIR (or /tmp)",
			    "keeping what was read for playing it failed: %s", strerror(-r));
	if (!p->spilled || t_ns != p->spilled_t) {
		b[n++] = 0;
		n += put_varint(b + n, t_ns);
		n += put_varint(b + n, wall_ns);
		n += put_varint(b + n, p->line);
		p->spilled = true;
		p->spilled_t = t_ns;
	}
	n += put_varint(b + n, h);
	if (!(h & H_NEXT))
		n += put_varint(b + n, series);
	p->spill_series = series + 1;
	p->spill_run = v->run;
	if (h & H_WHOLE)
		n += put_varint(b + n, (uint64_t)v->value);
	if (h & H_RUN)
		n += put_varint(b + n, v->run);
	if (h & H_HAVE)
		n += put_varint(b + n, v->have);
	if (h & H_ENA)
		n += put_varint(b + n, v->ena);
	if (h & H_DOUBLE) {
		memcpy(b + n, &v->value, sizeof(v->value));
		n += sizeof(v->value);
	}
	if (h & H_RAW)
		n += put_varint(b + n, v->raw);
	if (h & H_QUALITY)
		n += put_varint(b + n, v->quality);
	if (h & H_COVERED)
		n += put_varint(b + n, v->covered);
	if (h & H_INSTANCES)
		n += put_varint(b + n, v->instances);
	pm_spill__commit(&p->spill, n);
	return 0;
}

/* A varint field of a value that its head says is there (else 0), into *ret. */
static inline bool spill_field(unsigned h, unsigned bit, const uint8_t **b, const uint8_t *end,
			       uint64_t *ret)
{
	*ret = 0;
	return !(h & bit) || get_varint(b, end, ret);
}

/* A value's fields after its head, into *ret_series and *ret_v: false when cut short. */
static bool spill_get_value(struct pm_replay_parser *p, unsigned h, const uint8_t **b,
			    const uint8_t *end, size_t *ret_series, struct pm_replay_val *ret_v)
{
	uint64_t series = p->play_series, whole = 0, run = 0, have = 0, ena = 0, raw = 0,
		 quality = 0, covered = 0, instances = 0;
	bool ok = (h & H_NEXT) || get_varint(b, end, &series);

	if (h & H_SAME_RUN)
		run = p->play_run;
	ok = ok && spill_field(h, H_WHOLE, b, end, &whole) &&
	     ((h & H_SAME_RUN) || spill_field(h, H_RUN, b, end, &run)) &&
	     spill_field(h, H_HAVE, b, end, &have) && spill_field(h, H_ENA, b, end, &ena);
	/* what the spill does not keep: no recorded interval (a text file has none) */
	*ret_v = (struct pm_replay_val){ .value = (double)whole, .lo = NAN, .hi = NAN };
	if (ok && (h & H_DOUBLE)) {
		ok = (size_t)(end - *b) >= sizeof(ret_v->value);
		if (ok)
			memcpy(&ret_v->value, *b, sizeof(ret_v->value));
		*b += ok ? sizeof(ret_v->value) : 0;
	}
	ok = ok && spill_field(h, H_RAW, b, end, &raw) &&
	     spill_field(h, H_QUALITY, b, end, &quality) &&
	     spill_field(h, H_COVERED, b, end, &covered) &&
	     spill_field(h, H_INSTANCES, b, end, &instances);
	if (!ok)
		return false;
	ret_v->run = run;
	ret_v->have = (unsigned)have;
	ret_v->ena = h & H_ENA_RUN ? run : ena;
	ret_v->not_counted = h & H_NOT_COUNTED;
	ret_v->raw = raw;
	ret_v->quality = (unsigned)quality;
	ret_v->covered = (unsigned)covered;
	ret_v->instances = (unsigned)instances;
	*ret_series = (size_t)series;
	p->play_series = (size_t)series + 1;
	p->play_run = run;
	return true;
}

/*
 * The next record of the spill: a sample's start (SPILL_SAMPLE, into *ret_sample), a
 * value (SPILL_VALUE, into *ret_series and *ret_v), 0 at the end, or -errno (said).
 */
static int spill_next(struct pm_replay_parser *p, struct pm_replay_sample *ret_sample,
		      size_t *ret_series, struct pm_replay_val *ret_v)
{
	const uint8_t *b, *start, *end;
	uint64_t x[3], h = 0;
	size_t avail;
	bool ok = true;
	int r = pm_spill__peek(&p->spill, SPILL_RECORD_MAX, &b, &avail), tag;

	if (r < 0)
		return fail(p, NULL, "reading back what was read failed: %s", strerror(-r));
	if (avail == 0)
		return 0;
	start = b;
	end = b + avail;
	if (*b == 0) {
		b++;
		tag = SPILL_SAMPLE;
		for (int i = 0; i < 3 && ok; i++)
			ok = get_varint(&b, end, &x[i]);
		*ret_sample = (struct pm_replay_sample){ .t_ns = x[0],
							 .wall_ns = x[1],
							 .line = (size_t)x[2] };
	} else {
		tag = SPILL_VALUE;
		ok = get_varint(&b, end, &h) && (h & H_VALUE) && h < 2 * H_INSTANCES &&
		     spill_get_value(p, (unsigned)h, &b, end, ret_series, ret_v);
	}
	if (!ok || (tag == SPILL_VALUE && *ret_series >= p->rp->n_series))
		return fail(p, NULL, "what was read came back damaged");
	pm_spill__skip(&p->spill, (size_t)(b - start));
	return tag;
}

/* A counter line of any format, after its own fields were taken apart. */
static int take(struct pm_replay_parser *p, bool timed, uint64_t t_ns, uint64_t wall_ns,
		const char *event, const char *device, int cpu, int socket, int die, int core,
		const char *cgroup, const char *unit, const struct pm_replay_val *v)
{
	size_t series = 0;
	int r;

	if (!event || !event[0])
		return fail(p, NULL, "expected an event name");
	r = check_times(p, v);
	if (r < 0)
		return r;
	if (event[0] == 'd' && !strcmp(event, "duration_time")) {
		/* perf adds it for metrics: the time a totals file covers, not a counter */
		if (!timed && !v->not_counted)
			p->duration_ns = v->have & PM_RV_RAW ? (double)v->raw : v->value;
		return 0;
	}
	if (timed)
		p->rp->intervals = true;
	else if (p->rp->intervals) /* the pass knows only what came before */
		return fail(p, "a file holds intervals or totals, not both",
			    "a line without an interval time stamp among intervals");
	r = find_series(p, event, device, cpu, socket, die, core, cgroup, unit, sample_of(p, t_ns),
			&series);
	if (r < 0)
		return r;
	r = scan_sample(p, t_ns, wall_ns); /* totals: 0, or pmumon's time_s */
	if (r == 0)
		r = scan_value(p, series, v);
	return r < 0 ? r : spill_value(p, t_ns, wall_ns, series, v);
}

/* ---- perf stat -x SEP -------------------------------------------------------------- */

/*
 * perf prints the run time and 100 x run / enabled (%.2f, 100 when they are
 * equal, and <not counted> when either is 0): the enabled time back from them.
 */
static int perf_times(struct pm_replay_parser *p, uint64_t run, double pct, struct pm_replay_val *v)
{
	double ena;

	if (!(pct >= 0 && pct <= 100))
		return fail(p, "perf prints the share of its time a counter ran, 0.00 to 100.00",
			    "expected the running percentage, not %.2f%%", pct);
	if (pct == 0 && !v->not_counted)
		return fail(p, "perf prints <not counted> for a counter that did not run",
			    "a count that ran 0.00%% of the time");
	if (pct == 0) {
		/* ran 0 ns of a time enabled perf does not say: the times are unknown */
		v->have &= ~PM_RV_TIMES;
		return 0;
	}
	ena = pct < 100 ? (double)run * 100.0 / pct : (double)run;
	if (!(ena < 0x1p63))
		return fail(p, NULL, "a run time of %llu ns at %.2f%% is beyond any recording",
			    (unsigned long long)run, pct);
	v->run = run;
	v->ena = pct > 0 && pct < 100 ? (uint64_t)llround(ena) : run;
	return 0;
}

/* perf does not quote: an event "amd_df/event=0x7,umask=0x38/" spans fields. The event:
 * f[*i] itself when it is whole, else the fields joined in *ret_joined (the caller's to
 * free); NULL: out of memory. */
static char *join_event(char **f, const size_t *len, size_t n, size_t *i, char sep,
			char **ret_joined)
{
	struct pm_strbuf b = { 0 };
	const char *slash = memchr(f[*i], '/', len[*i]);
	size_t slashes = 0;

	*ret_joined = NULL;
	if (!slash || memchr(slash + 1, '/', len[*i] - (size_t)(slash + 1 - f[*i])) || *i + 1 >= n)
		return f[(*i)++]; /* no "pmu/terms" left open: no slash, or a second one */
	for (;;) {
		pm_strbuf__puts(&b, f[*i]);
		for (const char *c = f[*i]; *c; c++)
			slashes += *c == '/';
		(*i)++;
		/* a pmu/terms/ name is open until its second slash */
		if (slashes != 1 || *i >= n)
			break;
		pm_strbuf__append(&b, &sep, 1);
	}
	*ret_joined = pm_strbuf__steal(&b);
	return *ret_joined;
}

/* isspace in the C locale, without its table: one test per character of every field */
static bool is_blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* The line's fields at the separator, trimmed, into f and their lengths into len (max of
 * them): 0 or -EINVAL (said). */
static int split_fields(struct pm_replay_parser *p, char *line, char **f, size_t *len, size_t max,
			size_t *ret_n)
{
	const char sep = p->sep;
	size_t n = 0;
	char *s = line;

	for (;;) {
		char *end;
		bool last;

		if (n == max)
			return fail(p, NULL, "more than %zu fields", max);
		while ((*s == ' ' || *s == '\t') && *s != sep)
			s++;
		f[n++] = s;
		s = strchrnul(s, sep);
		last = !*s;
		for (end = s; end > f[n - 1] && is_blank(end[-1]);)
			end--;
		*end = '\0';
		len[n - 1] = (size_t)(end - f[n - 1]);
		if (last)
			break;
		s++;
	}
	*ret_n = n;
	return 0;
}

/* The aggregation id at f[*i] (CPU2, S0-D1 and the number of CPUs after it), if there is
 * one: *i past it. 0 or -EINVAL (said). */
static int csv_where(struct pm_replay_parser *p, char **f, size_t n, size_t *i, int *cpu,
		     int *socket, int *die, int *core)
{
	int r = *i < n ? pm_replay_parse_aggr_id(f[*i], cpu, socket, die, core) : -EINVAL;
	uint64_t nr;

	if (r == -ERANGE)
		return fail(p, NULL, "'%s' numbers a CPU, socket, die or core of %d or more", f[*i],
			    PM_CPU_MAX);
	if (r < 0 && *i < n && f[*i][0] == 'N' && isdigit((unsigned char)f[*i][1]))
		return fail(p, "record with -A, --per-socket or --per-die instead",
			    "per-node counts (--per-node) cannot be imported");
	if (r < 0)
		return 0; /* no id: the counts of the whole machine */
	(*i)++;
	if (*cpu >= 0)
		return 0;
	/* S0,2,...: the number of CPUs aggregated follows */
	if (*i >= n || pm_parse_u64_str(f[*i], 10, &nr) < 0)
		return fail(p, NULL, "expected the number of CPUs aggregated after '%s'",
			    f[*i - 1]);
	(*i)++;
	return 0;
}

/* A number with a point, as perf prints the running percentage and -r's variance
 * ("%.2f"); a run time (ns) has none. */
static bool is_pointed(const char *s, size_t len, double *ret)
{
	if (len == 6 && !memcmp(s, "100.00", 6)) { /* most lines: the counter ran throughout */
		*ret = 100.0;
		return true;
	}
	/* "%.2f" of 0 to 999.99, every line's percentage: the integer of hundredths over 100,
	 * which IEEE division rounds to the nearest double, as strtod does the decimal */
	if (len >= 4 && len <= 6 && s[len - 3] == '.') {
		unsigned h = 0;
		size_t k;

		for (k = 0; k < len; k++) {
			if (k == len - 3)
				continue;
			if (s[k] < '0' || s[k] > '9')
				break;
			h = h * 10 + (unsigned)(s[k] - '0');
		}
		if (k == len) {
			*ret = (double)h / 100.0;
			return true;
		}
	}
	return memchr(s, '.', len) && pm_parse_double(s, len, ret) == 0;
}

/*
 * Does the field after the event name a cgroup? perf 6.1 prints one there on every
 * counter line when it counts cgroups (-G, --for-each-cgroup: print_cgroup in
 * tools/perf/util/stat-display.c, after the event and before the variance and run
 * time), "" for an event in none. It is there unless the event is followed by -r's
 * variance ("1.23%") or by the run time (ns, no point) and the percentage ("%.2f").
 */
static bool cgroup_field(char **f, const size_t *flen, size_t n, size_t i, uint64_t *ret_run,
			 double *ret_pct, bool *ret_times)
{
	size_t len = i < n ? flen[i] : 0;
	double v;

	*ret_times = false;
	if (i >= n)
		return false;
	if (len && f[i][len - 1] == '%' && is_pointed(f[i], len - 1, &v))
		return false;
	/* the run time and percentage, read here once: the caller takes them */
	*ret_times = i + 1 < n && dec_u64(f[i], len, ret_run) == 0 &&
		     is_pointed(f[i + 1], flen[i + 1], ret_pct);
	return !*ret_times;
}

/* The cgroup field at f[*i] if the line has one (*i past it), and the file's lines agree:
 * 0, or -EINVAL (said). */
static int csv_cgroup(struct pm_replay_parser *p, char **f, const size_t *len, size_t n, size_t *i,
		      const char **ret, uint64_t *ret_run, double *ret_pct, bool *ret_times)
{
	bool has = cgroup_field(f, len, n, *i, ret_run, ret_pct, ret_times);

	*ret = NULL;
	if (p->perf_cgroups && p->perf_cgroups != (has ? 1 : -1))
		return fail(p,
			    "perf prints a cgroup after the event on every line of a run that "
			    "counts cgroups (-G, --for-each-cgroup), and on none of another",
			    "%s a cgroup field after the event, where the lines before %s",
			    has ? "a line with" : "a line without", has ? "had none" : "had one");
	p->perf_cgroups = has ? 1 : -1;
	if (has)
		*ret = f[(*i)++];
	return 0;
}

static int perf_csv_line(struct pm_replay_parser *p, char *line)
{
	char *f[64];
	size_t len[64], n = 0, i = 0, value_len;
	uint64_t t_ns = 0, run;
	int cpu = -1, socket = -1, die = -1, core = -1, r;
	bool timed = false, times;
	struct pm_replay_val v = { 0 };
	char *value, *unit, *event, *joined;
	const char *cgroup;
	double pct;

	r = split_fields(p, line, f, len, PM_ARRAY_SIZE(f), &n);
	if (r < 0)
		return r;
	if (perf_stamp(p, f[i], len[i], &t_ns)) {
		timed = true;
		i++;
	}
	if (i < n && f[i][0] == 's' && !strcmp(f[i], "summary"))
		return 0; /* --summary repeats the totals of the intervals */
	r = csv_where(p, f, n, &i, &cpu, &socket, &die, &core);
	if (r < 0)
		return r;
	if (i + 3 > n)
		return fail(p, "perf stat -x, prints VALUE,UNIT,EVENT,RUN_TIME,PERCENT,...",
			    "expected a counter line: %zu fields", n);
	value_len = len[i];
	value = f[i++];
	unit = f[i++];
	if (!value[0] && !f[i][0])
		return 0; /* a metric's own line: "S0,1,,,,,,,1.27,stalled cycles per insn" */
	event = join_event(f, len, n, &i, p->sep, &joined);
	if (!event)
		return -ENOMEM;
	/* then [cgroup] [variance%] run-time percent [metric value, unit] */
	r = csv_cgroup(p, f, len, n, &i, &cgroup, &run, &pct, &times);
	if (r < 0) {
		free(joined);
		return r;
	}
	while (!times && i + 1 < n &&
	       !(pm_parse_u64_str(f[i], 10, &run) == 0 &&
		 pm_parse_double(f[i + 1], strlen(f[i + 1]), &pct) == 0))
		i++;
	if (i + 1 >= n) {
		r = fail(p, "perf stat -x, prints VALUE,UNIT,EVENT,RUN_TIME,PERCENT,...",
			 "expected the counter's run time (ns) and running percentage after "
			 "event '%s'",
			 event);
		free(joined);
		return r;
	}
	if (!value[0] || (value[0] == '<' &&
			  (!strcmp(value, "<not counted>") || !strcmp(value, "<not supported>")))) {
		v.not_counted = true;
	} else if (!parse_count(value, value_len, &v.value)) {
		r = fail(p, NULL, "expected a count or <not counted>, not '%s'", value);
		free(joined);
		return r;
	}
	v.have = PM_RV_VALUE | PM_RV_TIMES;
	r = perf_times(p, run, pct, &v);
	if (r < 0) {
		free(joined);
		return r;
	}
	if (value[0] == '<' && !strcmp(value, "<not supported>"))
		v.have = 0; /* it never opened: nothing to say about it */
	r = take(p, timed, t_ns, 0, event, NULL, cpu, socket, die, core, cgroup, unit, &v);
	free(joined);
	return r;
}

/* ---- perf stat -j ------------------------------------------------------------------------- */

/* perf 6.1 prints "metric-value" with %f: nan and inf are not JSON. */
static char *fix_nonfinite(const char *line, size_t len)
{
	static const char *const bad[] = { ": -nan", ": nan", ": -inf", ": inf" };
	struct pm_strbuf b = { 0 };

	for (size_t i = 0; i < len;) {
		size_t k;

		for (k = 0; k < PM_ARRAY_SIZE(bad); k++)
			if (!strncmp(line + i, bad[k], strlen(bad[k])))
				break;
		if (k < PM_ARRAY_SIZE(bad)) {
			pm_strbuf__puts(&b, ": null");
			i += strlen(bad[k]);
		} else {
			pm_strbuf__append(&b, line + i, 1);
			i++;
		}
	}
	return pm_strbuf__steal(&b);
}

/* A line of perf stat -j as a JSON object perf's importable output has: 0 and *ret, or
 * -EINVAL (said). */
static int json_record(struct pm_replay_parser *p, const char *line, size_t len, json_t **ret)
{
	json_error_t err;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	int r;

	if (!o) {
		char *fixed = fix_nonfinite(line, len);

		if (fixed)
			o = json_loads(fixed, JSON_REJECT_DUPLICATES, NULL);
		free(fixed);
	}
	if (!json_is_object(o)) {
		r = o ? fail(p, "perf stat -j prints one JSON object per line",
			     "expected a JSON object") :
			fail(p, "perf stat -j prints one JSON object per line", "column %d: %s",
			     err.column, err.text);
		json_decref(o);
		return r;
	}
	if (json_object_get(o, "schema")) {
		json_decref(o);
		return fail(p, "a file is one format: perf stat -j, or pmumon's JSON Lines",
			    "a pmumon JSON Lines record among perf stat -j's");
	}
	if (json_object_get(o, "thread") || json_object_get(o, "node")) {
		json_decref(o);
		return fail(p, "record with -a (-A, --per-socket or --per-die for rows)",
			    "per-thread and per-node counts cannot be imported");
	}
	*ret = o;
	return 0;
}

/* Where a record was counted: "cpu", and "socket", "die", "core" ids. 0 or -EINVAL (said). */
static int json_where(struct pm_replay_parser *p, json_t *o, int *cpu, int *socket, int *die,
		      int *core)
{
	json_t *j = json_object_get(o, "cpu");
	int x;

	if (j && (!json_is_string(j) || pm_parse_int_str(json_string_value(j), cpu) < 0 ||
		  *cpu < 0 || *cpu >= PM_CPU_MAX))
		return fail(p, NULL, "expected \"cpu\" to be a CPU number below %d in a string",
			    PM_CPU_MAX);
	for (const char *const *k = (const char *const[]){ "socket", "die", "core", NULL }; *k;
	     k++) {
		j = json_object_get(o, *k);
		if (j && (!json_is_string(j) ||
			  pm_replay_parse_aggr_id(json_string_value(j), &x, socket, die, core) < 0))
			return fail(p, NULL, "expected \"%s\" to be an id such as \"S0-D1\"", *k);
	}
	return 0;
}

static int perf_json_line(struct pm_replay_parser *p, const char *line, size_t len)
{
	int cpu = -1, socket = -1, die = -1, core = -1, r;
	struct pm_replay_val v = { 0 };
	const char *value, *event, *unit, *cgroup = NULL;
	uint64_t t_ns = 0;
	json_t *o, *j;
	bool timed;

	r = json_record(p, line, len, &o);
	if (r < 0)
		return r;
	event = json_string_value(json_object_get(o, "event"));
	value = json_string_value(json_object_get(o, "counter-value"));
	if (!event && !value) {
		json_decref(o);
		return 0; /* a metric's own line */
	}
	r = -EINVAL;
	if (!event || !value) {
		fail(p, NULL, "expected \"event\" and \"counter-value\" (a string)");
		goto out;
	}
	j = json_object_get(o, "interval");
	timed = j != NULL;
	if (timed &&
	    (!json_is_number(j) || !(json_number_value(j) >= 0) || json_number_value(j) > 1e10)) {
		fail(p, NULL, "expected \"interval\" to be seconds");
		goto out;
	}
	if (timed)
		t_ns = (uint64_t)llround(json_number_value(j) * 1e9);
	if (!timed && p->rp->intervals) {
		/* perf stat -j -I --summary: the totals, after the intervals they add up */
		r = 0;
		goto out;
	}
	if (json_where(p, o, &cpu, &socket, &die, &core) < 0)
		goto out;
	unit = json_string_value(json_object_get(o, "unit"));
	j = json_object_get(o, "cgroup"); /* perf's print_cgroup: "" for an event in none */
	if (j && !json_is_string(j)) {
		fail(p, NULL, "expected \"cgroup\" to be a string");
		goto out;
	}
	cgroup = json_string_value(j);
	j = json_object_get(o, "event-runtime");
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    !json_is_number(json_object_get(o, "pcnt-running"))) {
		fail(p, NULL, "expected \"event-runtime\" (ns) and \"pcnt-running\"");
		goto out;
	}
	v.have = PM_RV_VALUE | PM_RV_TIMES;
	if (!strcmp(value, "<not counted>") || !strcmp(value, "<not supported>")) {
		v.not_counted = true;
	} else if (!parse_count(value, strlen(value), &v.value)) {
		fail(p, NULL, "expected \"counter-value\" to be a count or <not counted>, not '%s'",
		     value);
		goto out;
	}
	r = perf_times(p, (uint64_t)json_integer_value(j),
		       json_number_value(json_object_get(o, "pcnt-running")), &v);
	if (r < 0)
		goto out;
	if (!strcmp(value, "<not supported>"))
		v.have = 0; /* it never opened: nothing to say about it */
	r = take(p, timed, t_ns, 0, event, NULL, cpu, socket, die, core, cgroup, unit, &v);
out:
	json_decref(o);
	return r;
}

/* ---- CSV with a header row (pmumon's, and counts) -------------------------------------- */

/* Split one RFC 4180 line in place; quotes may not span lines. */
static int csv_split(struct pm_replay_parser *p, char *line, char **f, size_t max, size_t *ret_n)
{
	size_t n = 0;
	char *s = line;

	for (;;) {
		char *out = s;

		if (n == max)
			return fail(p, NULL, "more than %zu fields", max);
		f[n++] = s;
		if (*s == '"') {
			for (s++;; s++) {
				if (!*s)
					return fail(p, NULL, "a quoted field does not end");
				if (*s == '"' && s[1] == '"')
					*out++ = '"', s++;
				else if (*s == '"')
					break;
				else
					*out++ = *s;
			}
			s++;
			if (*s && *s != p->sep)
				return fail(p, NULL, "text after a quoted field");
			*out = '\0';
			if (!*s)
				break;
			s++;
			continue;
		}
		s = strchr(s, p->sep);
		if (!s)
			break;
		*s++ = '\0';
	}
	*ret_n = n;
	return 0;
}

/* The separator a header uses: the character after its first column's name. */
static char header_sep(const char *line, char fallback)
{
	char c = line[strspn(line, "abcdefghijklmnopqrstuvwxyz_")];

	/* a header of one column has none; a letter, digit or quote separates nothing */
	return c && !isalnum((unsigned char)c) && c != '"' ? c : fallback;
}

static int header(struct pm_replay_parser *p, char *line, struct columns *c,
		  const char *const *required)
{
	char *f[64];
	size_t n = 0;
	int r = csv_split(p, line, f, PM_ARRAY_SIZE(f), &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		f[i] = trim(f[i]);
		for (size_t j = 0; j < i && f[i][0]; j++)
			if (!strcmp(f[i], f[j]))
				return fail(p, "each column once", "the header names '%s' twice",
					    f[i]);
	}
	c->n_fields = n;
	c->line = p->line;
	for (size_t k = 0; c->names[k]; k++) {
		c->at[k] = -1;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(f[i], c->names[k]))
				c->at[k] = (int)i;
	}
	for (size_t k = 0; required[k]; k++) {
		size_t i = 0;

		while (strcmp(c->names[i], required[k]) != 0)
			i++;
		if (c->at[i] < 0)
			return fail(p, "docs/import.md describes the columns",
				    "the header has no '%s' column", required[k]);
	}
	return 0;
}

/* A row, taken apart: as many fields as the header has, else it was cut or is not a row. */
static int row(struct pm_replay_parser *p, char *line, const struct columns *c, char **f,
	       size_t max, size_t *ret_n)
{
	size_t n;
	int r = csv_split(p, line, f, max, &n);

	if (r < 0)
		return r;
	if (n != c->n_fields)
		return fail(p, "every row has the header's columns, in its order",
			    "expected %zu fields, as the header (line %zu) has, not %zu",
			    c->n_fields, c->line, n);
	*ret_n = n;
	return 0;
}

static const char *col(const struct columns *c, char **f, size_t n, const char *name)
{
	for (size_t k = 0; c->names[k]; k++)
		if (!strcmp(c->names[k], name))
			return c->at[k] >= 0 && (size_t)c->at[k] < n ? trim(f[c->at[k]]) : NULL;
	return NULL;
}

static int int_col(struct pm_replay_parser *p, const char *s, const char *what, int *ret)
{
	*ret = -1;
	if (!s || !s[0])
		return 0;
	if (pm_parse_int_str(s, ret) < 0 || *ret < 0 || *ret >= PM_CPU_MAX)
		return fail(p, NULL, "expected %s to be a number below %d, not '%s'", what,
			    PM_CPU_MAX, s);
	return 0;
}

/* covered and instances (written since pmumon wrote them): both empty, or covered <= instances. */
static int coverage_cols(struct pm_replay_parser *p, const char *covered, const char *instances,
			 struct pm_replay_val *v)
{
	int cov = -1, inst = -1;

	if (covered && covered[0] && pm_parse_int_str(covered, &cov) < 0)
		cov = -2;
	if (instances && instances[0] && pm_parse_int_str(instances, &inst) < 0)
		inst = -2;
	if (cov == -1 && inst == -1)
		return 0;
	if (cov < 0 || inst <= 0 || cov > inst)
		return fail(p, NULL,
			    "expected covered and instances to be whole numbers with covered <= "
			    "instances, not '%s' and '%s'",
			    covered ? covered : "", instances ? instances : "");
	v->covered = (unsigned)cov;
	v->instances = (unsigned)inst;
	return 0;
}

static int u64_col(struct pm_replay_parser *p, const char *s, const char *what, uint64_t *ret)
{
	if (!s || pm_parse_u64_str(s, 10, ret) < 0)
		return fail(p, NULL, "expected %s to be a whole number, not '%s'", what,
			    s ? s : "");
	return 0;
}

/*
 * pmumon's flags column ("multiplexed|partial"): the flags that say a
 * recorded value is less than it seems come back with it, so an import never
 * turns a partial or wrap-uncertain value into a clean one. Names pmumon does
 * not know (a newer writer's) are skipped.
 */
static unsigned quality_of(const char *flags)
{
	const unsigned kept = PM_ROW_WRAP_UNCERTAIN | PM_ROW_REPROGRAMMED | PM_ROW_RESET |
			      PM_ROW_PARTIAL | PM_ROW_LOST | PM_ROW_UNSUPPORTED;
	unsigned q = 0;

	while (flags && *flags) {
		size_t n = strcspn(flags, "|");

		for (unsigned bit = 1; bit; bit <<= 1) {
			const char *name = bit & kept ? pm_row_flag_name(bit) : NULL;

			if (name && strlen(name) == n && !strncmp(flags, name, n))
				q |= bit;
		}
		flags += n + (flags[n] == '|');
	}
	return q;
}

/* "2026-11-22T02:29:59.166Z" */
static bool iso_wall_ns(const char *s, uint64_t *ret)
{
	struct tm tm = { 0 };
	int ms = 0, n = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &n) != 7 ||
	    (size_t)n != strlen(s))
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*ret = (uint64_t)timegm(&tm) * 1000000000ull + (uint64_t)ms * 1000000ull;
	return true;
}

/* The CPU id a recording names (pmumon's cpuid column or key, a "# cpuid: ID" comment):
 * perf's get_cpuid_str(), one per recording. 0 or -errno (said). */
static int cpuid_of(struct pm_replay_parser *p, const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)id[i]) || id[i] == ',')
			return fail(p, NULL,
				    "expected a CPU id such as GenuineIntel-6-8F-8, not '%s'", id);
	if (n >= 128)
		return fail(p, NULL, "a CPU id of %zu characters: at most 127", n);
	if (!p->rp->cpuid) {
		p->rp->cpuid = strdup(id);
		return p->rp->cpuid ? 0 : -ENOMEM;
	}
	if (strcmp(p->rp->cpuid, id) != 0)
		return fail(p, NULL, "a recording of one machine: cpuid '%s' after '%s'", id,
			    p->rp->cpuid);
	return 0;
}

/* pmumon CSV's sim_platform column: the simulated platform, the same on every row. */
static int sim_platform_col(struct pm_replay_parser *p, const char *name)
{
	if (!name || !name[0])
		return 0;
	if (!p->rp->sim_platform) {
		p->rp->sim_platform = strdup(name);
		return p->rp->sim_platform ? 0 : -ENOMEM;
	}
	if (strcmp(p->rp->sim_platform, name) != 0)
		return fail(p, NULL, "a recording of one machine: sim_platform '%s' after '%s'",
			    name, p->rp->sim_platform);
	return 0;
}

static const char *const pmumon_cols[] = {
	"type",	     "time_s",	"timestamp", "event",	     "device",	   "socket",	 "die",
	"cpu",	     "value",	"unit",	     "raw",	     "enabled_ns", "running_ns", "flags",
	"simulated", "covered", "instances", "sim_platform", "cpuid",	   "cgroup",	 NULL,
};

/* One of pmumon's records, its fields f as the CSV writes them (a CSV row, or a JSON Lines
 * record spelled out so, pmumon_json_line). */
static int pmumon_fields(struct pm_replay_parser *p, const struct columns *c, char **f, size_t n)
{
	const char *type, *flags, *value, *ts, *sim;
	int cpu, socket, die, r;
	uint64_t t_ns, wall = 0;
	struct pm_replay_val v = { 0 };

	type = col(c, f, n, "type");
	flags = col(c, f, n, "flags");
	if (!type || (strcmp(type, "interval") != 0 && strcmp(type, "total") != 0))
		return fail(p, NULL, "expected type 'interval' or 'total', not '%s'",
			    type ? type : "");
	if (flags && strstr(flags, "metric"))
		return 0; /* metrics are computed again from the events */
	if (!strcmp(type, "interval"))
		p->saw_interval_rows = true;
	else if (p->saw_interval_rows)
		return 0; /* the totals of the intervals above */
	sim = col(c, f, n, "simulated");
	if (sim && strcmp(sim, "0") != 0 && strcmp(sim, "1") != 0)
		return fail(p, NULL, "expected simulated to be 0 or 1, not '%s'", sim);
	if (sim && !strcmp(sim, "1"))
		p->rp->simulated = true;
	r = sim_platform_col(p, col(c, f, n, "sim_platform"));
	if (r == 0)
		r = cpuid_of(p, col(c, f, n, "cpuid"));
	if (r < 0)
		return r;
	if (!seconds_ns(col(c, f, n, "time_s") ? col(c, f, n, "time_s") : "", &t_ns))
		return fail(p, NULL, "expected time_s in seconds");
	ts = col(c, f, n, "timestamp");
	if (ts && ts[0] && !iso_wall_ns(ts, &wall))
		return fail(p, NULL, "expected the timestamp as 2026-01-31T12:00:00.000Z, not '%s'",
			    ts);
	r = int_col(p, col(c, f, n, "cpu"), "cpu", &cpu);
	if (r == 0)
		r = int_col(p, col(c, f, n, "socket"), "socket", &socket);
	if (r == 0)
		r = int_col(p, col(c, f, n, "die"), "die", &die);
	if (r == 0)
		r = u64_col(p, col(c, f, n, "raw"), "raw", &v.raw);
	if (r == 0)
		r = u64_col(p, col(c, f, n, "enabled_ns"), "enabled_ns", &v.ena);
	if (r == 0)
		r = u64_col(p, col(c, f, n, "running_ns"), "running_ns", &v.run);
	if (r == 0)
		r = coverage_cols(p, col(c, f, n, "covered"), col(c, f, n, "instances"), &v);
	if (r < 0)
		return r;
	v.quality = quality_of(flags);
	v.have = PM_RV_RAW | PM_RV_TIMES;
	value = col(c, f, n, "value");
	if (!value || !value[0] || (flags && strstr(flags, "not_counted")))
		v.not_counted = true;
	else if (parse_count(value, strlen(value), &v.value))
		v.have |= PM_RV_VALUE;
	else
		return fail(p, NULL, "expected a value, not '%s'", value);
	if (flags && strstr(flags, "unsupported"))
		v.have = 0; /* it never opened, as perf's <not supported> */
	if (flags && strstr(flags, "snapshot"))
		return fail(p, NULL, "snapshot values (.snapshot events) cannot be imported yet");
	if (is_channel_label(col(c, f, n, "device")))
		return fail(p, "record with --per-device: import regroups by channel itself",
			    "'%s' is a channel row (pmumon --per-channel): it adds up PMUs that "
			    "an import cannot tell apart again",
			    col(c, f, n, "device"));
	/* pmumon writes time_s on every row, totals included */
	p->rp->duration_known = true;
	return take(p, !strcmp(type, "interval"), t_ns, wall, col(c, f, n, "event"),
		    col(c, f, n, "device"), cpu, socket, die, -1, col(c, f, n, "cgroup"),
		    col(c, f, n, "unit"), &v);
}

static int pmumon_csv_line(struct pm_replay_parser *p, char *line, const struct columns *c)
{
	char *f[64];
	size_t n = 0;
	int r = row(p, line, c, f, PM_ARRAY_SIZE(f), &n);

	return r < 0 ? r : pmumon_fields(p, c, f, n);
}

/* A JSON value as the CSV writes it: a string as it is, a number, a boolean as 1 or 0,
 * null or absent as "". */
static char *json_text(json_t *j)
{
	char buf[64] = "";

	if (json_is_string(j))
		return strdup(json_string_value(j));
	if (json_is_integer(j))
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(j));
	else if (json_is_real(j))
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(j));
	else if (json_is_boolean(j))
		snprintf(buf, sizeof(buf), "%d", json_is_true(j));
	return strdup(buf);
}

/* The flags column of a JSON Lines record: each flag whose key is true, and not_counted. */
static char *json_flags(json_t *o)
{
	char buf[512] = "";
	size_t n = 0;

	for (unsigned bit = 1; bit; bit <<= 1) { /* every flag pm_row_flag_name names */
		const char *name = pm_row_flag_name(bit);
		bool on = name && (bit == PM_ROW_NOT_COUNTED ?
					   json_is_false(json_object_get(o, "counted")) :
					   json_is_true(json_object_get(o, name)));

		if (on && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "", name);
	}
	return strdup(buf);
}

/*
 * A line of pmumon's JSON Lines (stat -j, docs/output.md, schemas 1 to 4): its
 * fields spelled out as the CSV writes them, then read as a CSV row is, so
 * both formats mean the same. A record of a newer schema is refused.
 */
static int pmumon_json_line(struct pm_replay_parser *p, const char *line, size_t len)
{
	struct columns c = { .names = pmumon_cols };
	char *f[PM_ARRAY_SIZE(pmumon_cols)] = { 0 };
	const char *device, *place;
	json_error_t err;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err), *schema;
	size_t n = PM_ARRAY_SIZE(pmumon_cols) - 1;
	int r = 0;

	if (!json_is_object(o)) {
		json_decref(o);
		return fail(p, "pmumon stat -j prints one JSON object per line",
			    o ? "expected a JSON object" : "not JSON: %s", err.text);
	}
	schema = json_object_get(o, "schema");
	if (!json_is_integer(schema) || json_integer_value(schema) < 1 ||
	    json_integer_value(schema) > PM_JSON_SCHEMA) {
		long long v = json_is_integer(schema) ? json_integer_value(schema) : -1;

		json_decref(o);
		if (v > PM_JSON_SCHEMA)
			return fail(p, "a newer pmumon reads it",
				    "a record of schema %lld: this pmumon reads schema 1 to %d", v,
				    PM_JSON_SCHEMA);
		return fail(p, NULL, "expected \"schema\" to be a whole number, 1 to %d",
			    PM_JSON_SCHEMA);
	}
	for (size_t k = 0; k < n; k++) {
		json_t *j = json_object_get(o, pmumon_cols[k]);

		/* an absent key is an absent column; null is an empty field */
		c.at[k] = j || !strcmp(pmumon_cols[k], "device") ||
					  !strcmp(pmumon_cols[k], "flags") ?
				  (int)k :
				  -1;
		f[k] = json_text(j);
	}
	c.n_fields = n;
	/* the CSV's device column: a channel row names its channel */
	device = json_string_value(json_object_get(o, "device"));
	place = json_string_value(json_object_get(o, "place"));
	for (size_t k = 0; k < n; k++) {
		if (!strcmp(pmumon_cols[k], "device")) {
			free(f[k]);
			f[k] = strdup(device ? device : place ? place : "");
		} else if (!strcmp(pmumon_cols[k], "flags")) {
			free(f[k]);
			f[k] = json_flags(o);
		} else if (!strcmp(pmumon_cols[k], "time_s") &&
			   json_is_number(json_object_get(o, "time_s"))) {
			char t[64];

			snprintf(t, sizeof(t), "%.9f",
				 json_number_value(json_object_get(o, "time_s")));
			free(f[k]);
			f[k] = strdup(t);
		}
		if (!f[k])
			r = -ENOMEM;
	}
	json_decref(o);
	if (r == 0)
		r = pmumon_fields(p, &c, f, n);
	for (size_t k = 0; k < n; k++)
		free(f[k]);
	return r;
}

static const char *const counts_cols[] = { "time_s",	 "device", "cpu",   "socket",
					   "die",	 "event",  "count", "enabled_ns",
					   "running_ns", "unit",   NULL };

static int counts_csv_line(struct pm_replay_parser *p, char *line, const struct columns *c)
{
	char *f[64];
	size_t n = 0;
	int cpu, socket, die, r;
	uint64_t t_ns = 0;
	const char *t, *ena, *run;
	struct pm_replay_val v = { .have = PM_RV_RAW };

	r = row(p, line, c, f, PM_ARRAY_SIZE(f), &n);
	if (r < 0)
		return r;
	t = col(c, f, n, "time_s");
	if (t && !seconds_ns(t, &t_ns))
		return fail(p, NULL,
			    "expected time_s in seconds (the end of the interval), not '%s'", t);
	r = int_col(p, col(c, f, n, "cpu"), "cpu", &cpu);
	if (r == 0)
		r = int_col(p, col(c, f, n, "socket"), "socket", &socket);
	if (r == 0)
		r = int_col(p, col(c, f, n, "die"), "die", &die);
	if (r == 0)
		r = u64_col(p, col(c, f, n, "count"), "count", &v.raw);
	if (r < 0)
		return r;
	ena = col(c, f, n, "enabled_ns");
	run = col(c, f, n, "running_ns");
	if ((ena && ena[0]) || (run && run[0])) {
		r = u64_col(p, ena, "enabled_ns", &v.ena);
		if (r == 0)
			r = u64_col(p, run, "running_ns", &v.run);
		if (r < 0)
			return r;
		v.have |= PM_RV_TIMES;
		/* what a counter the kernel never scheduled reads */
		v.not_counted = v.run == 0 && v.raw == 0;
	}
	return take(p, t != NULL, t_ns, 0, col(c, f, n, "event"), col(c, f, n, "device"), cpu,
		    socket, die, -1, NULL, col(c, f, n, "unit"), &v);
}

/* ---- the whole file --------------------------------------------------------------------- */

static enum pm_replay_format detect(const char *first, char *ret_sep)
{
	if (first[0] == '{')
		return strstr(first, "\"schema\"") ? PM_REPLAY_PMUMON_JSON : PM_REPLAY_PERF_JSON;
	if (!strncmp(first, "type", 4) && strstr(first, "time_s") && strstr(first, "raw")) {
		*ret_sep = header_sep(first, *ret_sep);
		return PM_REPLAY_PMUMON_CSV;
	}
	{
		/* a counts CSV's header starts with one of its column names */
		size_t n = strspn(first, "abcdefghijklmnopqrstuvwxyz_");

		for (size_t k = 0; n && counts_cols[k]; k++) {
			if (strlen(counts_cols[k]) == n && !strncmp(first, counts_cols[k], n)) {
				*ret_sep = header_sep(first, *ret_sep);
				return PM_REPLAY_COUNTS_CSV;
			}
		}
	}
	return PM_REPLAY_PERF_CSV;
}

/* pmumon's "# SIMULATED: yitian710: numbers come from ...": the platform, if it says. */
static int simulated_comment(struct pm_replay *rp, const char *rest)
{
	size_t n;

	rp->simulated = true;
	if (*rest != ':' || rp->sim_platform)
		return 0;
	rest += 1 + strspn(rest + 1, " \t");
	n = strcspn(rest, ":");
	while (n && (rest[n - 1] == ' ' || rest[n - 1] == '\t'))
		n--;
	if (!n)
		return 0;
	rp->sim_platform = strndup(rest, n);
	return rp->sim_platform ? 0 : -ENOMEM;
}

/* One line of the records (not blank, not a comment), in the file's format. */
static int parse_record(struct pm_replay_parser *p, char *line, size_t n)
{
	struct columns *c = &p->c;
	bool header_done = p->header_done;
	static const char *const pm_req[] = { "type", "time_s",	    "event",	  "value",
					      "raw",  "enabled_ns", "running_ns", NULL };
	static const char *const counts_req[] = { "event", "count", NULL };
	bool pm;

	if (!header_done && p->rp->format == PM_REPLAY_AUTO)
		p->rp->format = detect(trim(line), &p->sep);
	switch (p->rp->format) {
	case PM_REPLAY_PERF_JSON:
		return perf_json_line(p, line, n);
	case PM_REPLAY_PMUMON_JSON:
		return pmumon_json_line(p, line, n);
	case PM_REPLAY_PERF_CSV:
		return perf_csv_line(p, line);
	case PM_REPLAY_PMUMON_CSV:
	case PM_REPLAY_COUNTS_CSV:
		pm = p->rp->format == PM_REPLAY_PMUMON_CSV;
		if (header_done)
			return pm ? pmumon_csv_line(p, line, c) : counts_csv_line(p, line, c);
		if (p->opts.format != PM_REPLAY_AUTO)
			p->sep = header_sep(line, p->sep);
		c->names = pm ? pmumon_cols : counts_cols;
		return header(p, line, c, pm ? pm_req : counts_req);
	default:
		return -EINVAL;
	}
}

/* ---- reading: a line at a time, in a buffer of fixed size ------------------------------ */

/* Has the file changed since the first pass began (its size or modification time)? */
static bool input_changed(struct pm_replay_parser *p)
{
	struct stat st;

	if (!p->in || !p->check_changes || fstat(fileno(p->in), &st) < 0)
		return false; /* a buffer, or a pipe */
	return st.st_size != p->seen.st_size || st.st_mtim.tv_sec != p->seen.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != p->seen.st_mtim.tv_nsec;
}

/* More of the input into the buffer, after what is left of it: 0 or -errno (said). */
static int refill(struct pm_replay_parser *p)
{
	size_t left = p->end - p->pos, room, got;

	memmove(p->buf, p->buf + p->pos, left);
	p->pos = 0;
	p->end = left;
	room = p->cap - p->end;
	if (!p->in) {
		got = PM_MIN(room, p->mem_len - p->mem_pos);
		memcpy(p->buf + p->end, p->mem + p->mem_pos, got);
		p->mem_pos += got;
		p->eof = p->mem_pos == p->mem_len;
	} else {
		got = fread(p->buf + p->end, 1, room, p->in);
		if (got < room && ferror(p->in))
			return fail(p, NULL, "reading it failed: %s",
				    strerror(errno ? errno : EIO));
		p->eof = got < room;
		if (input_changed(p))
			return fail(p, "import it again once nothing writes to it",
				    "the file changed while it was read");
	}
	p->end += got;
	return 0;
}

/* The next line, its end cut off, in place: 1 (p->line counts it), 0 at the end, or -errno
 * (said). */
static int next_line(struct pm_replay_parser *p, char **ret, size_t *ret_n)
{
	for (;;) {
		char *s = p->buf + p->pos, *nl = memchr(s, '\n', p->end - p->pos);
		size_t n = nl ? (size_t)(nl - s) : p->end - p->pos;
		int r;

		if (n > p->opts.max_line) {
			p->line++;
			return fail(p, "is it a recording? (pm_replay_opts.max_line)",
				    "a line longer than %zu bytes", p->opts.max_line);
		}
		if (nl || (p->eof && n)) {
			s[n] = '\0'; /* the buffer has a byte beyond cap for the last line */
			p->pos += n + (nl != NULL);
			p->line++;
			if (memchr(s, '\0', n))
				return fail(p, NULL, "the file is not text (it has a NUL byte)");
			if (n && s[n - 1] == '\r')
				s[--n] = '\0';
			*ret = s;
			*ret_n = n;
			return 1;
		}
		if (p->eof)
			return 0;
		r = refill(p);
		if (r < 0)
			return r;
	}
}

/*
 * "# started on" after the first run's rows: a file written run after run
 * (perf's, and pmumon's output appended to a file). Another run's counts
 * are not more of the first's: each run is imported on its own.
 */
static int second_run(struct pm_replay_parser *p)
{
	bool perf = p->rp->format == PM_REPLAY_PERF_CSV || p->rp->format == PM_REPLAY_PERF_JSON;

	return fail(p, "import one run at a time: cut the file at this line",
		    perf ? "a second run of perf stat starts here (perf stat --append): its "
			   "counts are not more of the first's" :
			   "a second run starts here, appended to the file: its counts are not "
			   "more of the first's");
}

/* Lines until the end: 0, or -errno (said). */
static int run(struct pm_replay_parser *p)
{
	char *line = NULL;
	size_t n = 0;
	int r;

	while ((r = next_line(p, &line, &n)) == 1) {
		size_t k = n;

		/* trim(line) without its strlen: the line's own blanks at its end cut off (and
		 * all of it when that is all it has) */
		while (k > 0 && isspace((unsigned char)line[k - 1]))
			line[--k] = '\0';
		if (k == 0)
			continue;
		if (line[0] == '#') {
			/* perf -o: "# started on ..."; pmumon's "# SIMULATED: ...", before its
			 * header (older files), after it, or not at all */
			if (pm_str_has_prefix(line, "# started on") && p->header_done)
				return second_run(p);
			if (pm_str_has_prefix(line, "# SIMULATED"))
				r = simulated_comment(p->rp, line + strlen("# SIMULATED"));
			else if (pm_str_has_prefix(line, "# cpuid:"))
				r = cpuid_of(p, trim(line + strlen("# cpuid:")));
			if (r < 0)
				return r;
			continue;
		}
		r = parse_record(p, line, n);
		p->header_done = true;
		if (r != 0)
			return r;
	}
	return r;
}

/* ---- the whole file --------------------------------------------------------------------- */

/* A replay of nothing yet, with its options and an input buffer. */
static int replay_new(const struct pm_replay_opts *opts, struct pm_diag *reterr,
		      struct pm_replay **ret)
{
	struct pm_replay *rp = calloc(1, sizeof(*rp));
	struct pm_replay_parser *p = calloc(1, sizeof(*p));
	int r = rp && p ? 0 : -ENOMEM;

	pm_diag__init(reterr);
	if (r == 0 && !opts)
		r = -EINVAL;
	if (r == 0)
		r = PM_OPTS_COPY(&p->opts, opts);
	if (r < 0) {
		free(rp);
		free(p);
		return r;
	}
	rp->parser = p;
	p->rp = rp;
	p->d = reterr;
	p->duration_ns = NAN;
	p->sep = p->opts.sep ? p->opts.sep : ',';
	if (!p->opts.max_line)
		p->opts.max_line = DEFAULT_MAX_LINE;
	if (!p->opts.max_series)
		p->opts.max_series = DEFAULT_MAX_SERIES;
	rp->format = p->opts.format;
	rp->name = strdup(p->opts.name ? p->opts.name : "<input>");
	p->opts.name = rp->name;
	p->cap = PM_MIN(p->opts.max_line, SIZE_MAX - READ_CHUNK - 1) + READ_CHUNK;
	p->buf = malloc(p->cap + 1);
	*ret = rp;
	return rp->name && p->buf ? 0 : -ENOMEM;
}

/* The first pass: every line checked, the series and samples learnt. 0 or -errno (said). */
static int first_pass(struct pm_replay *rp)
{
	struct pm_replay_parser *p = rp->parser;
	int r = run(p);

	if (r < 0)
		return r;
	if (rp->n_samples == 0)
		return fail(p, "is it perf stat -x, or -j output, pmumon CSV, or a counts CSV?",
			    "no counts found");
	if (!rp->intervals && !rp->duration_known) {
		/* totals: the time they cover comes from duration_time or the caller */
		rp->first.t_ns = !isnan(p->duration_ns) ? (uint64_t)llround(p->duration_ns) :
							  p->opts.duration_ns;
		rp->first_t_given = true;
		rp->duration_known = rp->first.t_ns > 0;
	}
	if (rp->intervals)
		rp->duration_known = true;
	rp->vals = calloc(rp->n_series ? rp->n_series : 1, sizeof(*rp->vals));
	if (!rp->vals)
		return -ENOMEM;
	/* the input is done with: playing reads the spill */
	if (p->in)
		fclose(p->in);
	p->in = NULL;
	free(p->mem);
	p->mem = NULL;
	free(p->buf);
	p->buf = NULL;
	p->d = &p->own; /* from here, errors are the playing's */
	return pm_replay__rewind(rp);
}

int pm_replay__read(int fd, const struct pm_replay_opts *opts, struct pm_replay **ret_replay,
		    struct pm_diag *reterr)
{
	struct pm_replay *rp = NULL;
	struct pm_replay_parser *p;
	int r = replay_new(opts, reterr, &rp);

	if (r == 0 && !ret_replay)
		r = -EINVAL;
	p = rp ? rp->parser : NULL;
	if (r == 0) {
		p->in = fdopen(fd, "r");
		r = p->in ? 0 : -errno;
	}
	if (r < 0 && (!p || !p->in))
		close(fd);
	if (r == 0 && fstat(fileno(p->in), &p->seen) < 0)
		r = -errno;
	if (r == 0)
		p->check_changes = S_ISREG(p->seen.st_mode);
	if (r == 0)
		r = first_pass(rp);
	if (r < 0) {
		pm_replay__free(rp);
		return r;
	}
	*ret_replay = rp;
	return 0;
}

int pm_replay__parse(const char *buf, size_t len, const struct pm_replay_opts *opts,
		     struct pm_replay **ret_replay, struct pm_diag *reterr)
{
	struct pm_replay *rp = NULL;
	int r = replay_new(opts, reterr, &rp);

	if (r == 0 && (!ret_replay || (!buf && len)))
		r = -EINVAL;
	if (r == 0) {
		rp->parser->mem = malloc(len ? len : 1);
		r = rp->parser->mem ? 0 : -ENOMEM;
	}
	if (r == 0) {
		if (len)
			memcpy(rp->parser->mem, buf, len);
		rp->parser->mem_len = len;
		r = first_pass(rp);
	}
	if (r < 0) {
		pm_replay__free(rp);
		return r;
	}
	*ret_replay = rp;
	return 0;
}

int pm_replay__rewind(struct pm_replay *rp)
{
	struct pm_replay_parser *p = rp->parser;
	int r;

	if (rp->player)
		return rp->player->rewind(rp);
	r = pm_spill__rewind(&p->spill);
	p->play_series = 0;
	p->play_run = 0;
	p->playing = true;
	p->played = 0;
	p->pending = false;
	if (r < 0)
		return fail(p, NULL, "reading back what was read failed: %s", strerror(-r));
	return 0;
}

int pm_replay__next_sample(struct pm_replay *rp)
{
	struct pm_replay_parser *p = rp->parser;
	int r;

	if (rp->player)
		return rp->player->next(rp);

	if (!p->playing || p->played >= rp->n_samples)
		return -ENODATA; /* what was appended since the first pass is not played */
	memset(rp->vals, 0, rp->n_series * sizeof(*rp->vals));
	p->in_sample = false;
	if (p->pending) {
		p->pending = false;
		play_value(p, p->ahead.t_ns, p->ahead.wall_ns, p->ahead.series, &p->ahead.v);
		rp->cur.line = p->ahead.line;
	}
	for (;;) {
		struct pm_replay_val v;
		size_t series = 0;

		r = spill_next(p, &p->spill_sample, &series, &v);
		if (r == SPILL_SAMPLE) {
			p->line = p->spill_sample.line;
			continue;
		}
		if (r != SPILL_VALUE)
			break;
		if (play_value(p, p->spill_sample.t_ns, p->spill_sample.wall_ns, series, &v) == 1)
			break; /* the first value of the next sample is kept for the next call */
	}
	if (r < 0)
		return r;
	if (!p->in_sample)
		return fail(p, NULL, "what was read came back short");
	if (p->played++ == 0 && rp->first_t_given)
		rp->cur.t_ns = rp->first.t_ns;
	return 0;
}

const struct pm_diag *pm_replay__play_error(const struct pm_replay *rp)
{
	if (rp->player)
		return rp->player->error(rp);
	return &rp->parser->own;
}

void pm_replay__free(struct pm_replay *rp)
{
	struct pm_replay_parser *p;

	if (!rp)
		return;
	p = rp->parser;
	if (p) {
		if (p->in)
			fclose(p->in);
		pm_spill__done(&p->spill);
		free(p->mem);
		free(p->buf);
		free(p);
	}
	if (rp->player)
		rp->player->free(rp->feeder);
	for (size_t i = 0; i < rp->n_series; i++) {
		free(rp->series[i].name);
		free(rp->series[i].pmu);
		free(rp->series[i].unit);
		free(rp->series[i].printed);
		free(rp->series[i].device);
		free(rp->series[i].cgroup);
	}
	free(rp->series);
	free(rp->vals);
	free(rp->name);
	free(rp->sim_platform);
	free(rp->packs);
	free(rp->cpuid);
	free(rp->cpuid_given);
	free(rp);
}
