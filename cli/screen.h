/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the screens show of a report (cli/screen.c): `pmumon top` and serve's
 * live page draw the same thing. Rows are gathered into kinds — a pack's
 * platform-neutral name (its "Monitor" list: DF_CH0_GBps .. DF_CH7_GBps are
 * all "memory", one per channel), else a metric's or event's own name — each
 * row labelled by where it was counted (socket, die, channel, sub-channel,
 * or device: "S1/ch3", "S0/die1/ch2", "bfperf/tile0"), values in the units
 * they are shown in (an amount in an interval shown per second), and totals
 * per die, socket and machine where the values add up: sums of rates and
 * amounts, a ratio's summed numerators over its summed denominators (its
 * rows' parts, PM_ROW_RATIO); never a frequency, a current value or a ratio
 * without parts, and the kind says why.
 */
#ifndef PMUMON_CLI_SCREEN_H
#define PMUMON_CLI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

#include "pmumon/pmumon.h"

/*
 * What the packs say about their metrics that a screen needs, copied from a
 * context (so it outlives a rediscovery and may cross threads once made):
 * the Monitor names (pm_ctx__monitor).
 */
struct screen_info;
int screen_info_new(struct pm_ctx *ctx, struct screen_info **ret);
/* The same, filled by hand (tests): an empty one, then names. */
int screen_info_empty(struct screen_info **ret);
int screen_info_add_name(struct screen_info *in, const char *metric, const char *name,
			 const char *labels);
void screen_info_free(struct screen_info *in);

enum screen_measure {
	SCREEN_RATE,   /* per second already (MB/s, /s): totals add */
	SCREEN_AMOUNT, /* an amount in the interval (a count, MiB, msec): shown per second, adds */
	SCREEN_RATIO,  /* %, CPI: no total without its parts */
	SCREEN_FREQUENCY, /* GHz: an average, not a sum */
	SCREEN_LEVEL,	  /* a current value (.snapshot): does not add */
	SCREEN_OTHER,	  /* a unit pmumon does not know to add */
};

struct screen_kind {
	char name[128]; /* "memory read", the metric's or event's name; an attributed block's "by ..." */
	char what[128];	   /* the pack metrics (or event) it shows: "DF_CH0_GBps ... DF_CH7_GBps" */
	char unit[24];	   /* the unit its values are shown in: "MB/s", "/s", "MiB/s", "%", "" */
	char from[16];	   /* an amount's own unit ("MiB", "" for a count); "" for the rest */
	char no_total[96]; /* why there is no total, "" when it has them (or one place only) */
	enum screen_measure measure;
	bool metric;
	bool parts;		 /* a ratio whose rows give their parts (PM_ROW_RATIO) */
	bool attributed;	 /* shares of a total (PM_ROW_ATTRIBUTED): they add up to it */
	size_t item0, n_items;	 /* its items: screen.item[item0 .. item0 + n_items) */
	size_t total0, n_totals; /* its totals likewise */
};

struct screen_item {
	size_t row;		 /* in the report */
	char label[96];		 /* "S1/ch3", "S0/die0/ch2/sub1 in user.slice" */
	int socket, die, cgroup; /* -1 where the row has none; cgroup: an index per screen */
	unsigned long hash;	 /* the row's names and place, for screen_fits */
};

enum screen_level { SCREEN_DIE, SCREEN_SOCKET, SCREEN_MACHINE };

struct screen_total {
	char label[96]; /* "S0/die1 total", "S1 total", "machine total" */
	enum screen_level level;
	int socket, die, cgroup;
};

struct screen {
	struct screen_kind *kind;
	struct screen_item *item;
	struct screen_total *total;
	size_t n_kinds, n_items, n_totals;
	size_t cap_kinds, cap_items, cap_totals;
	size_t n_rows; /* of the report it was made for */
	int n_sockets; /* distinct sockets of its items (0: none known) */
};

/* Which rows a screen shows: the metrics', the events', or both (top's raw view). */
enum screen_rows { SCREEN_METRICS = 1, SCREEN_EVENTS = 2, SCREEN_ALL = 3 };

/*
 * The screen of rep's rows into s (its arrays reused: a screen kept from
 * one interval to the next allocates nothing while the rows stay the same).
 * info may be NULL (no pack names). 0 or -ENOMEM.
 */
int screen_build(struct screen *s, const struct pm_report *rep, const struct screen_info *info,
		 enum screen_rows which);
/* Whether s was made for rows like rep's (the same count, names and places). */
bool screen_fits(const struct screen *s, const struct pm_report *rep);
void screen_free(struct screen *s);

/* An item's value in its kind's unit (per second for an amount), NaN when not counted. */
double screen_value(const struct screen *s, const struct pm_report *rep, size_t item);
/*
 * A total's value (the sum of its items' shown values; a ratio's: the sum
 * of their numerators over the sum of their denominators, in num and den,
 * flagged PM_ROW_RATIO) with its quality as a row's: flags (the doubts of its items; PARTIAL and covered < instances
 * when an item was not counted), running (the least), covered/instances
 * (summed over its items, an item not counted covering none). NaN and
 * NOT_COUNTED when none of its items was counted.
 */
void screen_total_value(const struct screen *s, const struct pm_report *rep, size_t total,
			struct pm_row *ret);

#endif
