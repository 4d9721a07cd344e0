/* SPDX-License-Identifier: MIT */
/*
 * plot.h - a line chart of series over time as one self-contained SVG
 * (ebs stat --plot): small multiples, one panel per series stacked
 * vertically over a shared time axis, each panel with a value axis of its
 * own from 0, so that series of very different sizes (nanoseconds of CPU
 * time and a handful of page faults) each fill their panel.
 */
#ifndef EBS_COUNT_PLOT_H
#define EBS_COUNT_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct plot_series {
	const char *name; /* the panel's label and the legend's */
	const char *unit; /* what a value is ("ms per interval"); NULL: none said */
	const double *y;  /* [plot.n], each >= 0 */
	bool whole;	  /* whole counts: no tick between two integers */
};

struct plot {
	const char *title;    /* drawn and the document's <title> */
	const char *subtitle; /* NULL: none */
	const char *note;     /* a line under the chart; NULL: none */
	const char *x_label;  /* the time axis's: "seconds since ..." */
	const double *t;      /* [n] seconds, increasing: where each point is */
	size_t n;	      /* 0: a chart that says there is nothing to draw */
	bool last_partial;    /* the last point's marker is hollow */
	const struct plot_series *s;
	unsigned int nr;
};

/*
 * The chart of p as SVG to f.  Every name and title is escaped.  A write
 * error is left in f's error flag for whoever closes it (ebs_out_close).
 */
void ebs_plot_svg(FILE *f, const struct plot *p);

/*
 * The "nice" step for an axis from 0 to max in about ticks steps: 1, 2 or
 * 5 times a power of ten (at least 1 with whole); *top: the first multiple
 * of it at or above max (one step when max is 0).
 */
double plot_nice_step(double max, unsigned int ticks, bool whole, double *top);

/* v as an axis label with an SI suffix (K, M, G, T): "0", "2.5K", "10M", "0.25". */
void plot_si(char *buf, size_t len, double v);

#endif /* EBS_COUNT_PLOT_H */
