/* SPDX-License-Identifier: MIT */
/*
 * monitor.h - ebs monitor's screen as a pure model: a ring of rates per
 * trace (one per event, and EVENT1/EVENT2 with --ratio), each trace's
 * current, minimum and maximum, its vertical scale (1, 2 or 5 times a power
 * of ten, grown at once when a rate passes it, shrunk when the rates on
 * screen fall below a fifth of it), and the whole screen drawn as
 * characters and colour numbers into a canvas.  No terminal here: the
 * command (cli/cmd-monitor.c) copies the canvas to ncurses, and the unit
 * tests read it as text.
 */
#ifndef EBS_COUNT_MONITOR_H
#define EBS_COUNT_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MONITOR_MAX_EVENTS 4 /* traces of events; one more for the ratio */
#define MONITOR_MAX_TRACES (MONITOR_MAX_EVENTS + 1)
#define MONITOR_GRID	   (MONITOR_MAX_TRACES + 1) /* the grid's colour number */

/* What a trace's values are, and how they are shown */
enum monitor_unit {
	MONITOR_PER_S, /* a rate: "2.5K/s" */
	MONITOR_CPUS,  /* a clock's ns per second over 1e9: "0.65 CPUs" (perf's CPUs utilized) */
	MONITOR_RATIO, /* E1/E2: a plain number */
};

struct monitor_trace {
	char name[136];	      /* the event's, or "E1/E2" */
	bool ratio;	      /* E1/E2: a plain number, not a rate */
	bool cpus;	      /* a clock (task-clock, cpu-clock): kept and shown in CPUs */
	char mark;	      /* its character on the graph */
	double cur, min, max; /* of the rates pushed (NAN none yet); max since the start */
	double scale;	      /* the top of its axis: 1, 2 or 5 times a power of ten */
	double *v; /* ring of monitor.cap (CPUs when cpus); NAN: no value (a ratio over 0) */
};

struct monitor {
	struct monitor_trace tr[MONITOR_MAX_TRACES];
	unsigned int nr;    /* traces */
	unsigned int nr_ev; /* of which events (the ratio, if any, is last) */
	size_t cap, n;	    /* the ring's size; rates pushed so far */
	double t;	    /* seconds at the last push */
	unsigned int interval_ms;
	bool grid;	  /* horizontal lines at the scale's divisions */
	bool equal;	  /* the events share one scale, the largest */
	bool paused;	  /* said in the header */
	char target[160]; /* "command 'x'", "pid 12", "all CPUs" */
	char note[200];	  /* a line under the title (a fallback said); "" none */
	/* the counters' totals at the last interval's end (monitor__interval), and when */
	double prev[MONITOR_MAX_EVENTS];
	unsigned long long prev_ns;
};

/*
 * A monitor of nr_ev events named names[] (at least 1, at most
 * MONITOR_MAX_EVENTS), with the trace names[0]/names[1] after them when
 * ratio (nr_ev >= 2), each with a ring of cap rates.  NULL with errno set.
 * monitor__free() accepts NULL.
 */
struct monitor *monitor__new(const char *const *names, unsigned int nr_ev, bool ratio, size_t cap);
void monitor__free(struct monitor *m);

/*
 * Mark event k a clock (its rates ns per second): its values are then kept
 * and shown in CPUs (rate / 1e9).  Before the first push.
 */
void monitor__set_cpus(struct monitor *m, unsigned int k);

/*
 * One interval's rates (per second, one per event) ending at t seconds:
 * appended to each ring (a clock's in CPUs; the ratio computed of the
 * rates as given: NAN when the second is 0), the current, minimum and
 * maximum updated.
 */
void monitor__push(struct monitor *m, double t, const double *rates);

/*
 * One interval of the counting session ending ns after its start, the
 * counters' totals then in totals[nr_ev]: its rates (the totals' change
 * since the last interval over its length) to csv (when not NULL: "T,R1,
 * R2[,RATIO]"), as a line to lines (when not NULL: "T R1 R2 [RATIO]",
 * partial: the last, shorter interval, marked with its length), and pushed
 * (monitor__push) unless paused.  Rates are whole numbers, a ratio has 4
 * decimals, over 0 "-" (CSV: empty).
 */
void monitor__interval(struct monitor *m, unsigned long long ns, const double *totals, bool partial,
		       FILE *csv, FILE *lines);

/* The header lines of csv ("time_s,E_per_s,...") and of lines ("# time_s E/s ..."). */
void monitor__csv_header(const struct monitor *m, FILE *csv);
void monitor__lines_header(const struct monitor *m, FILE *lines);

/* The interval after ms, up (+) or down (-), among 50 ms to 2 s. */
unsigned int monitor_step_interval(unsigned int ms, bool up);

/* The i-th newest value of trace k (0: the last pushed); NAN past what is kept. */
double monitor__value(const struct monitor *m, unsigned int k, size_t i);

/*
 * The scales for a graph width columns wide (one value a column, newest
 * on the right).  monitor__autoscale(): a value on screen above its scale
 * grows it at once; values all below a fifth of it shrink it to fit.
 * monitor__rescale() ('r'): every scale fitted to what is on screen now.
 * Either way, with equal the events (not the ratio) then share the largest.
 */
void monitor__autoscale(struct monitor *m, unsigned int width);
void monitor__rescale(struct monitor *m, unsigned int width);

/* The smallest 1, 2 or 5 times a power of ten at or above v (1 for v <= 0). */
double monitor_scale_for(double v);

/* How many divisions the grid cuts a scale into: 5 for 1 and 5 (by 0.2, 1), 4 for 2 (by 0.5). */
unsigned int monitor_divisions(double scale);

/* The unit of trace k's values */
enum monitor_unit monitor__unit(const struct monitor *m, unsigned int k);

/*
 * A value as the header shows it: a rate "998.2M/s", "0/s"; CPUs "0.65 CPUs"
 * (three decimals below 0.01); a ratio "1.25", "1.9M"; "-" for NAN.
 */
void monitor_format(char *buf, size_t len, double v, enum monitor_unit unit);

/* One screen: rows x cols characters, each with a colour number (0, 1..nr traces, MONITOR_GRID). */
struct monitor_canvas {
	int rows, cols;
	char *ch;
	unsigned char *colour;
};

/* A blank canvas; NULL with errno set.  monitor_canvas__free() accepts NULL. */
struct monitor_canvas *monitor_canvas__new(int rows, int cols);
void monitor_canvas__free(struct monitor_canvas *c);

/*
 * Draw m into c (autoscaling first): the header (the interval, the time,
 * paused, the target; a line per trace: its mark, name, current, minimum, maximum,
 * scale and which labels are its: left, right, or none, its scale then the
 * graph's top), the graph with the first event's scale labels on the left, the
 * second's on the right (a clock's in CPUs), the grid, the time axis and the keys (or the
 * note).  Too small a canvas gets a line that says so.
 */
void monitor__draw(struct monitor *m, struct monitor_canvas *c);

/* The graph's width in columns on a canvas cols wide. */
unsigned int monitor_graph_width(int cols);

#endif /* EBS_COUNT_MONITOR_H */
