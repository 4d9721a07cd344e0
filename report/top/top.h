/* SPDX-License-Identifier: MIT */
/*
 * top.h - ebs top's live hotspots: the records a recording writes, handed
 * over as they are written (the writer's tap, data.h's
 * ebs_writer__set_tap), resolved to functions as they come, and counted
 * per interval.
 *
 * The tap only copies (top__tap: it runs in the loop that reads the
 * rings).  top__drain, called by the same thread between two reads, feeds
 * the process records of what was copied to a machine (report/session/
 * machine.c, as a report replays them) first and then resolves the
 * samples through the symbolizer (symbol tables only: no DWARF, so that
 * a new DSO costs its symbol table and no more), so that a sample whose
 * mapping came in the same batch from another CPU's ring still finds it.
 *
 * Counting: per interval, reset at each top__interval (no decay): a
 * table shows the last whole interval's samples, or every sample since
 * the start (cumulative).  Shares are of the samples the table keeps
 * (kernel and user, user only, or kernel only), each with its 95% Wilson
 * interval, as report shows them.
 *
 * Single-threaded: the tap, the drain and the tables are called by one
 * thread (ebs record's loop and its interval callback).
 */
#ifndef EBS_REPORT_TOP_H
#define EBS_REPORT_TOP_H

#include <stdbool.h>
#include <stdio.h>

#include "data/data.h"
#include "symbolize/symbolize.h"

struct top;

/* A new aggregator; so: the symbolizer's options (no_dwarf is set here).  NULL, errno set. */
struct top *top__new(const struct symbolize_opts *so);
void top__free(struct top *t); /* accepts NULL */

/*
 * The writer's tap (ebs_writer_tap_fn; ctx a struct top): keeps a copy of
 * rec for the next top__drain.  Copies are bounded (TOP_QUEUE_MAX bytes):
 * samples beyond it are counted as dropped, process records are kept.
 */
#define TOP_QUEUE_MAX (64u << 20)
void top__tap(void *ctx, const struct ebs_rec *rec);

/* Resolve and count what the tap copied since the last call.  0 or -ENOMEM. */
int top__drain(struct top *t) __attribute__((nonnull(1)));

/* Samples counted in the interval not yet ended. */
u64 top__pending(const struct top *t) __attribute__((nonnull(1)));

/* End the interval at ns (since the start of collection): its counts become the last whole one's.
 */
void top__interval(struct top *t, u64 ns) __attribute__((nonnull(1)));

enum top_sort { TOP_SORT_SAMPLES, TOP_SORT_NAME, TOP_SORT_DSO, TOP_SORT_MAX };
enum top_mode { TOP_BOTH, TOP_USER, TOP_KERNEL, TOP_MODE_MAX };

/* "samples", "name", "dso"; "kernel+user", "user", "kernel" */
const char *top_sort_name(enum top_sort s);
const char *top_mode_name(enum top_mode m);

struct top_view {
	enum top_sort sort;
	enum top_mode mode;
	bool cumulative; /* since the start, not the last interval */
};

/* One row of a table: a function (or unsymbolized code) and its samples. */
struct top_row {
	const char *name; /* as shown: control characters as '?' */
	const char *dso;  /* short name: "libc.so.6", "[kernel]", "[unknown]" */
	bool kernel;
	bool unknown; /* no symbol: name is "[unknown] DSO+0xADDR", nothing to annotate */
	u64 samples;
	double share, lo, hi; /* percent of the table's samples; its Wilson 95% interval */
};

struct top_table {
	struct top_row *rows; /* sorted as the view asks */
	size_t n, cap;
	u64 samples;	      /* of the rows (the view's mode) */
	u64 all, kernel;      /* every sample of the interval (or since the start), the kernel's */
	u64 lost, dropped;    /* lost by the kernel (LOST records), dropped by the tap */
	u64 start_ns, end_ns; /* the interval, since the start of collection */
	u64 intervals;	      /* whole intervals so far */
	int name_width;	      /* the function column's (top_table__fit) */
};

/*
 * The table of the last whole interval (or since the start) as v wants it,
 * into tab (its rows reused: tab zeroed before the first call,
 * top_table__free after the last).  0 or -ENOMEM.
 */
int top__table(struct top *t, const struct top_view *v, struct top_table *tab)
	__attribute__((nonnull(1, 2, 3)));
void top_table__free(struct top_table *tab); /* accepts NULL */

/*
 * Size the function column for rows [from, from + n) (those shown): their
 * longest name, shortened so that their DSOs show whole within width
 * columns (<= 0: no limit).  top__table fits all its rows, no limit.
 */
void top_table__fit(struct top_table *tab, size_t from, size_t n, int width)
	__attribute__((nonnull(1)));

/*
 * Text of the table, width columns at most (0: no limit): the columns'
 * heading and row i, as report prints them ("share", "95% CI", "samples",
 * "function", "dso"), into buf (len bytes), the function column as
 * top_table__fit sized it.  The function's name is shortened in the middle
 * (present_elide) to fit; the line is cut at width only where even the
 * shortest name column leaves no room.
 */
void top_table__heading(const struct top_table *tab, char *buf, size_t len, int width)
	__attribute__((nonnull(1, 2)));
void top_table__line(const struct top_table *tab, size_t i, char *buf, size_t len, int width)
	__attribute__((nonnull(1, 3)));

/*
 * Without a terminal: one table, a header line "# interval N: S-E s,
 * SAMPLES samples (K kernel), L lost", the heading, at most max rows (0:
 * all), then a blank line; the columns sized from the rows printed.
 */
void top_table__print(struct top_table *tab, const struct top_view *v, size_t max, FILE *f)
	__attribute__((nonnull(1, 2, 4)));

#endif /* EBS_REPORT_TOP_H */
