// SPDX-License-Identifier: MIT
/*
 * monitor.c - ebs monitor's screen, drawn into a canvas of characters
 * (monitor.h).  The layout, top to bottom: a title line (the target, the
 * interval, the time, PAUSED), the note if any, one line per trace, the
 * graph (one column per interval, the newest on the right, each trace in
 * its mark and colour on a scale of its own), the time axis and the keys.
 * The first event's scale labels sit left of the graph, the second's right.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count/monitor.h"
#include "count/plot.h"
#include "util/util.h"

#define LABEL_W	  8 /* the scale labels' columns, each side */
#define MIN_ROWS  4 /* of the graph */
#define MIN_WIDTH 10

static const char marks[MONITOR_MAX_TRACES] = {'o', '+', 'x', '#', '*'};

struct monitor *monitor__new(const char *const *names, unsigned int nr_ev, bool ratio, size_t cap)
{
	struct monitor *m;
	unsigned int k;

	if (!nr_ev || nr_ev > MONITOR_MAX_EVENTS || (ratio && nr_ev < 2) || !cap) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->nr_ev = nr_ev;
	m->nr = nr_ev + (ratio ? 1 : 0);
	m->cap = cap;
	m->grid = true;
	for (k = 0; k < m->nr; k++) {
		struct monitor_trace *tr = &m->tr[k];

		if (k < nr_ev)
			ebs_strlcpy(tr->name, names[k], sizeof(tr->name));
		else
			snprintf(tr->name, sizeof(tr->name), "%.64s/%.64s", names[0], names[1]);
		tr->ratio = k >= nr_ev;
		tr->mark = marks[k];
		tr->cur = tr->min = tr->max = NAN;
		tr->scale = 1;
		tr->v = malloc(cap * sizeof(*tr->v));
		if (!tr->v) {
			monitor__free(m);
			errno = ENOMEM;
			return NULL;
		}
	}
	return m;
}

void monitor__free(struct monitor *m)
{
	unsigned int k;

	if (!m)
		return;
	for (k = 0; k < m->nr; k++)
		free(m->tr[k].v);
	free(m);
}

void monitor__set_cpus(struct monitor *m, unsigned int k)
{
	if (k < m->nr_ev)
		m->tr[k].cpus = true;
}

enum monitor_unit monitor__unit(const struct monitor *m, unsigned int k)
{
	return m->tr[k].ratio ? MONITOR_RATIO : m->tr[k].cpus ? MONITOR_CPUS : MONITOR_PER_S;
}

void monitor__push(struct monitor *m, double t, const double *rates)
{
	size_t at = m->n % m->cap;
	unsigned int k;

	for (k = 0; k < m->nr; k++) {
		struct monitor_trace *tr = &m->tr[k];
		double v = k < m->nr_ev ? rates[k] : rates[1] > 0 ? rates[0] / rates[1] : NAN;

		if (tr->cpus)
			v *= 1e-9;

		tr->v[at] = v;
		tr->cur = v;
		if (isnan(v))
			continue;
		if (isnan(tr->min) || v < tr->min)
			tr->min = v;
		if (isnan(tr->max) || v > tr->max)
			tr->max = v;
	}
	m->n++;
	m->t = t;
}

double monitor__value(const struct monitor *m, unsigned int k, size_t i)
{
	if (k >= m->nr || i >= m->n || i >= m->cap)
		return NAN;
	return m->tr[k].v[(m->n - 1 - i) % m->cap];
}

double monitor_scale_for(double v)
{
	double top;

	/* plot.c's nice step over one step is the 1-2-5 value at or above v */
	plot_nice_step(v, 1, false, &top);
	return top;
}

unsigned int monitor_divisions(double scale)
{
	double mant = scale / pow(10, floor(log10(scale)));

	return mant > 1.5 && mant < 3 ? 4 : 5;
}

void monitor_format(char *buf, size_t len, double v, enum monitor_unit unit)
{
	char num[24];

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (unit == MONITOR_CPUS) {
		snprintf(buf, len, fabs(v) < 0.01 && v != 0 ? "%.3f CPUs" : "%.2f CPUs", v);
		return;
	}
	plot_si(num, sizeof(num), v);
	snprintf(buf, len, "%s%s", num, unit == MONITOR_RATIO ? "" : "/s");
}

/* The largest value of trace k among the newest width; 0 when none. */
static double shown_max(const struct monitor *m, unsigned int k, unsigned int width)
{
	double max = 0;
	size_t i;

	for (i = 0; i < width && i < m->n && i < m->cap; i++) {
		double v = monitor__value(m, k, i);

		if (v > max)
			max = v;
	}
	return max;
}

/*
 * The scale trace k is drawn on: its own, or with equal the largest of the
 * events in its unit (CPUs and rates are not compared).
 */
static double scale_of(const struct monitor *m, unsigned int k)
{
	double s = m->tr[k].scale;
	unsigned int j;

	if (!m->equal || m->tr[k].ratio)
		return s;
	for (j = 0; j < m->nr_ev; j++)
		if (m->tr[j].cpus == m->tr[k].cpus && m->tr[j].scale > s)
			s = m->tr[j].scale;
	return s;
}

void monitor__autoscale(struct monitor *m, unsigned int width)
{
	unsigned int k;

	for (k = 0; k < m->nr; k++) {
		double max = shown_max(m, k, width);

		if (max > m->tr[k].scale || max < m->tr[k].scale / 5)
			m->tr[k].scale = monitor_scale_for(max);
	}
}

void monitor__rescale(struct monitor *m, unsigned int width)
{
	unsigned int k;

	for (k = 0; k < m->nr; k++)
		m->tr[k].scale = monitor_scale_for(shown_max(m, k, width));
}

struct monitor_canvas *monitor_canvas__new(int rows, int cols)
{
	struct monitor_canvas *c;

	if (rows < 1 || cols < 1) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->rows = rows;
	c->cols = cols;
	c->ch = malloc((size_t)rows * (size_t)cols);
	c->colour = calloc((size_t)rows * (size_t)cols, 1);
	if (!c->ch || !c->colour) {
		monitor_canvas__free(c);
		errno = ENOMEM;
		return NULL;
	}
	memset(c->ch, ' ', (size_t)rows * (size_t)cols);
	return c;
}

void monitor_canvas__free(struct monitor_canvas *c)
{
	if (!c)
		return;
	free(c->ch);
	free(c->colour);
	free(c);
}

/*
 * s at row, col in colour, cut at the canvas's edge; a control character's
 * bytes as '?' (util/text.h: the command line shown is the user's text).
 */
static void put(struct monitor_canvas *c, int row, int col, const char *s, unsigned char colour)
{
	size_t ctl = 0;

	if (row < 0 || row >= c->rows)
		return;
	for (; *s && col < c->cols; s++, col++) {
		if (!ctl)
			ctl = ebs_control_len(s, 2); /* 2: a UTF-8 C1's, at most */
		if (col >= 0) {
			c->ch[row * c->cols + col] = ctl ? '?' : *s;
			c->colour[row * c->cols + col] = colour;
		}
		if (ctl)
			ctl--;
	}
}

static void put_ch(struct monitor_canvas *c, int row, int col, char ch, unsigned char colour)
{
	char s[2] = {ch, '\0'};

	put(c, row, col, s, colour);
}

unsigned int monitor_graph_width(int cols)
{
	return cols > 2 * LABEL_W + 2 + MIN_WIDTH ? (unsigned int)(cols - 2 * LABEL_W - 2) : 0;
}

/* The header lines from row 0; returns the first row after them. */
static int draw_header(const struct monitor *m, struct monitor_canvas *c)
{
	char line[512], cur[32], min[32], max[32], top[32];
	int row = 0, w = 8;
	unsigned int k;

	for (k = 0; k < m->nr; k++) /* the names' column: the longest, up to 24 */
		if ((int)strlen(m->tr[k].name) > w)
			w = strlen(m->tr[k].name) < 24 ? (int)strlen(m->tr[k].name) : 24;

	/* the target last: a long command line is cut, never the interval */
	snprintf(line, sizeof(line), "ebs monitor   every %u ms   %.1f s%s   %s", m->interval_ms,
		 m->t, m->paused ? "   PAUSED (space resumes)" : "", m->target);
	put(c, row++, 0, line, 0);
	if (m->note[0])
		put(c, row++, 0, m->note, 0);
	for (k = 0; k < m->nr; k++) {
		const struct monitor_trace *tr = &m->tr[k];
		enum monitor_unit u = monitor__unit(m, k);
		/* the labels: the first trace's left, the second's right, the others' none */
		static const char *const axis[] = {"left", "right", "no labels"};

		monitor_format(cur, sizeof(cur), tr->cur, u);
		monitor_format(min, sizeof(min), tr->min, u);
		monitor_format(max, sizeof(max), tr->max, u);
		monitor_format(top, sizeof(top), scale_of(m, k), u);
		put_ch(c, row, 0, tr->mark, (unsigned char)(k + 1));
		snprintf(line, sizeof(line), "%-*.*s now %-8s min %-8s max %-8s scale %s (%s%s)", w,
			 w, tr->name, cur, min, max, top,
			 m->equal && !tr->ratio && m->nr_ev > 1 ? "equal, " : "",
			 axis[k < 2 ? k : 2]);
		put(c, row++, 2, line, (unsigned char)(k + 1));
	}
	return row;
}

/* The row of value v on a graph from top to bottom on scale s. */
static int row_of(double v, double s, int top, int bottom)
{
	double f = v / s;
	int h = bottom - top;

	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return bottom - (int)lround(f * h);
}

/* Trace k's values as columns from right to left, each joined to the one before it. */
static void draw_trace(const struct monitor *m, unsigned int k, struct monitor_canvas *c, int top,
		       int bottom, int left, unsigned int width)
{
	double s = scale_of(m, k);
	int prev = -1;
	size_t i;

	/* oldest first, so that a column's span reaches up or down from the one left of it */
	for (i = width; i-- > 0;) {
		double v = monitor__value(m, k, i);
		int col = left + (int)(width - 1 - i), r, from, to;

		if (isnan(v)) {
			prev = -1;
			continue;
		}
		r = row_of(v, s, top, bottom);
		/* from r up or down to the row next to the previous column's */
		from = prev >= 0 && prev < r ? prev + 1 : r;
		to = prev > r ? prev - 1 : r;
		for (; from <= to; from++)
			put_ch(c, from, col, m->tr[k].mark, (unsigned char)(k + 1));
		prev = r;
	}
}

void monitor__draw(struct monitor *m, struct monitor_canvas *c)
{
	unsigned int width = monitor_graph_width(c->cols), d, k, divs;
	int top, bottom, left = LABEL_W + 1, i;
	char lab[32], axis[64];

	memset(c->ch, ' ', (size_t)c->rows * (size_t)c->cols);
	memset(c->colour, 0, (size_t)c->rows * (size_t)c->cols);
	if (width)
		monitor__autoscale(m, width); /* first: the header says the scales */
	top = draw_header(m, c);
	bottom = c->rows - 3;
	if (!width || bottom - top + 1 < MIN_ROWS) {
		put(c, top, 0, "(the terminal is too small for the graph)", 0);
		return;
	}
	/* the scale labels and the grid at the first event's divisions */
	divs = monitor_divisions(scale_of(m, 0));
	for (d = 0; d <= divs; d++) {
		int r = bottom - (int)lround((double)d * (bottom - top) / divs);

		if (m->grid && d)
			for (i = 0; i < (int)width; i++)
				put_ch(c, r, left + i, '.', MONITOR_GRID);
		plot_si(lab, sizeof(lab), scale_of(m, 0) * d / divs);
		put(c, r, LABEL_W - (int)strlen(lab), lab, 1);
	}
	if (m->nr > 1) {
		unsigned int divs1 = monitor_divisions(scale_of(m, 1));

		for (d = 0; d <= divs1; d++) {
			int r = bottom - (int)lround((double)d * (bottom - top) / divs1);

			plot_si(lab, sizeof(lab), scale_of(m, 1) * d / divs1);
			put(c, r, left + (int)width + 1, lab, 2);
		}
	}
	for (i = top; i <= bottom; i++) {
		put_ch(c, i, left - 1, '|', 0);
		put_ch(c, i, left + (int)width, '|', 0);
	}
	for (k = m->nr; k-- > 0;)
		draw_trace(m, k, c, top, bottom, left, width);
	/* the time axis: a tick every 10 columns from the newest */
	put_ch(c, bottom + 1, left - 1, '+', 0);
	for (i = 0; i < (int)width; i++)
		put_ch(c, bottom + 1, left + i, (width - 1 - (unsigned int)i) % 10 ? '-' : '+', 0);
	put_ch(c, bottom + 1, left + (int)width, '+', 0);
	snprintf(axis, sizeof(axis), " one column: %u ms ", m->interval_ms);
	put(c, bottom + 1, left + 2, axis, 0);
	put(c, bottom + 1, left + (int)width - 5, " now ", 0);
	put(c, c->rows - 1, 0,
	    "space pause  +/- interval  r rescale  e equal scales  g grid  q quit", 0);
}

void monitor__interval(struct monitor *m, unsigned long long ns, const double *totals, bool partial,
		       FILE *csv, FILE *lines)
{
	double dt = (double)(ns - m->prev_ns) * 1e-9, rates[MONITOR_MAX_EVENTS];
	double t = (double)ns * 1e-9;
	bool ratio = m->nr > m->nr_ev;
	unsigned int i;

	for (i = 0; i < m->nr_ev; i++) {
		rates[i] = (totals[i] - m->prev[i]) / dt;
		m->prev[i] = totals[i];
	}
	m->prev_ns = ns;
	if (csv) {
		fprintf(csv, "%.3f", t);
		for (i = 0; i < m->nr_ev; i++)
			fprintf(csv, ",%.3f", rates[i]);
		if (ratio && rates[1] > 0)
			fprintf(csv, ",%.4f", rates[0] / rates[1]);
		else if (ratio)
			fputc(',', csv);
		fputc('\n', csv);
	}
	if (lines) {
		fprintf(lines, "%.3f", t);
		for (i = 0; i < m->nr_ev; i++)
			fprintf(lines, " %.0f", rates[i]);
		if (ratio && rates[1] > 0)
			fprintf(lines, " %.4f", rates[0] / rates[1]);
		else if (ratio)
			fprintf(lines, " -");
		if (partial)
			fprintf(lines, " # partial: %.0f ms", dt * 1e3);
		fputc('\n', lines);
		fflush(lines);
	}
	if (!m->paused)
		monitor__push(m, t, rates);
}

void monitor__csv_header(const struct monitor *m, FILE *csv)
{
	unsigned int i;

	fprintf(csv, "time_s");
	for (i = 0; i < m->nr_ev; i++)
		fprintf(csv, ",%s%s_per_s", m->tr[i].name, m->tr[i].cpus ? "_ns" : "");
	if (m->nr > m->nr_ev)
		fprintf(csv, ",%s", m->tr[m->nr_ev].name);
	fputc('\n', csv);
}

void monitor__lines_header(const struct monitor *m, FILE *lines)
{
	unsigned int i;

	fprintf(lines, "# time_s");
	for (i = 0; i < m->nr_ev; i++)
		fprintf(lines, " %s%s/s", m->tr[i].name, m->tr[i].cpus ? "_ns" : "");
	if (m->nr > m->nr_ev)
		fprintf(lines, " %s", m->tr[m->nr_ev].name);
	fputc('\n', lines);
	fflush(lines);
}

unsigned int monitor_step_interval(unsigned int ms, bool up)
{
	static const unsigned int steps[] = {50, 100, 200, 500, 1000, 2000};
	size_t i, n = sizeof(steps) / sizeof(steps[0]);

	if (up) {
		for (i = 0; i < n; i++)
			if (steps[i] > ms)
				return steps[i];
		return steps[n - 1];
	}
	for (i = n; i-- > 0;)
		if (steps[i] < ms)
			return steps[i];
	return steps[0];
}
