// SPDX-License-Identifier: MIT
/*
 * plot.c - series over time as one self-contained SVG line chart (no
 * script, no fonts or styles fetched): small multiples, one panel per
 * series, stacked over one time axis.
 *
 * Why panels and not one chart: counts of different events differ by
 * orders of magnitude (a task-clock of 50,000,000 ns an interval beside
 * 3 page faults), so on one value axis all but the biggest lie flat on
 * 0; several value axes on one chart make the reader match each line to
 * its axis, and the crossings of lines mean nothing.  A panel a series,
 * each on its own scale from 0, keeps every line readable and honest,
 * and the shared time axis lines up their phases vertically.
 *
 * Layout, top down: the title, the subtitle, the legend (a line sample
 * and the name of each series, in its colour), the panels (each labelled
 * with its name and unit above it, its value axis on the left, vertical
 * grid lines at the time ticks), the time axis's labels under the last
 * panel, and the note.  Each series is a <polyline class="line"
 * data-name="NAME"> of one point per time, which tests read.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "count/plot.h"
#include "util/text.h"

/* Geometry, in pixels. */
#define WIDTH	   960
#define LEFT	   76 /* room for the value axis's labels */
#define RIGHT	   24
#define PLOT_W	   (WIDTH - LEFT - RIGHT)
#define LEGEND_Y   72
#define LEGEND_ROW 18
#define LABEL_H	   22  /* a panel's label, above it */
#define PANEL_H	   120 /* a panel's plotting area */
#define PANEL_GAP  18
#define CHAR_W	   7.0 /* 12px sans-serif, roughly */
#define TITLE_MAX  84  /* characters of the title drawn (17px bold: about 10px each) */
#define MIN_MARK   8.0 /* points further apart than this get a marker */

/* Okabe and Ito's colours that read apart for colour-blind eyes (less yellow, too pale on white).
 */
static const char *const colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c8c8c",
};
#define NR_COLOURS (sizeof(colours) / sizeof(colours[0]))

static const char css[] =
	"text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
	"#title { font-size: 17px; font-weight: bold; }\n"
	"#subtitle, #note { fill: #555; }\n"
	".label { font-weight: bold; }\n"
	".unit { font-weight: normal; fill: #555; }\n"
	".ytick { text-anchor: end; font-size: 11px; fill: #444; }\n"
	".xtick { text-anchor: middle; font-size: 11px; fill: #444; }\n"
	"#xlabel { text-anchor: middle; }\n"
	".frame { fill: none; stroke: #b0b0b0; }\n"
	".grid { stroke: #e4e4e4; stroke-width: 1; }\n"
	".line { fill: none; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; }\n"
	"#empty { text-anchor: middle; font-size: 15px; fill: #555; }\n";

double plot_nice_step(double max, unsigned int ticks, bool whole, double *top)
{
	double raw, mag, f, step;

	if (!(max > 0) || !isfinite(max)) {
		*top = 1;
		return 1;
	}
	raw = max / (ticks ? ticks : 1);
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	if (whole && step < 1)
		step = 1;
	/* 1e-9: max already a multiple of step is its own top, whatever the rounding */
	*top = ceil(max / step - 1e-9) * step;
	return step;
}

void plot_si(char *buf, size_t len, double v)
{
	static const char sfx[] = "KMGT";
	double a = fabs(v);
	int k = -1;

	while (k < 3 && a >= 1000) {
		a /= 1000;
		v /= 1000;
		k++;
	}
	/* four digits are enough: a label is a multiple of a 1, 2 or 5 step below 10 steps */
	if (k < 0)
		snprintf(buf, len, "%.4g", fabs(v) < 1e-12 ? 0 : v);
	else
		snprintf(buf, len, "%.4g%c", v, sfx[k]);
}

static void put(FILE *f, const char *s)
{
	ebs_markup(f, s, SIZE_MAX, true);
}

/*
 * The legend from y: each series' line sample and name, in rows as wide
 * as the chart; the last row's baseline.  f NULL: only measured.
 */
static int legend(FILE *f, const struct plot *p, int y)
{
	double x = LEFT;
	unsigned int i;

	if (f)
		fputs("<g id=\"legend\">\n", f);
	for (i = 0; i < p->nr; i++) {
		double w = 24 + CHAR_W * (double)strlen(p->s[i].name) + 22;

		if (i && x + w > WIDTH - RIGHT) {
			x = LEFT;
			y += LEGEND_ROW;
		}
		if (f) {
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
				"stroke-width=\"3\"/><text x=\"%.1f\" y=\"%d\">",
				x, y - 4, x + 18, y - 4, colours[i % NR_COLOURS], x + 24, y);
			put(f, p->s[i].name);
			fputs("</text>\n", f);
		}
		x += w;
	}
	if (f)
		fputs("</g>\n", f);
	return y;
}

/* One panel, its area from y (top) for PANEL_H: frame, grid, value axis, label, line. */
static void panel(FILE *f, const struct plot *p, unsigned int i, int y, double xmax, double xstep)
{
	const struct plot_series *s = &p->s[i];
	const char *colour = colours[i % NR_COLOURS];
	double max = 0, top, step, kx = PLOT_W / xmax, ky;
	bool marks;
	char lab[32];
	size_t k;

	for (k = 0; k < p->n; k++)
		if (s->y[k] > max)
			max = s->y[k];
	step = plot_nice_step(max, 4, s->whole, &top);
	ky = PANEL_H / top;
	fprintf(f, "<g class=\"panel\" data-name=\"");
	put(f, s->name);
	fprintf(f,
		"\" data-top=\"%.6g\">\n<text class=\"label\" x=\"%d\" y=\"%d\" style=\"fill: %s\">",
		top, LEFT, y - 8, colour);
	put(f, s->name);
	if (s->unit && *s->unit) {
		fputs("<tspan class=\"unit\">, ", f);
		put(f, s->unit);
		fputs("</tspan>", f);
	}
	fputs("</text>\n", f);
	/* the grid: a line at each time tick, and at each value tick with its label */
	for (k = 1; (double)k * xstep < xmax * (1 - 1e-9); k++)
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			LEFT + (double)k * xstep * kx, y, LEFT + (double)k * xstep * kx,
			y + PANEL_H);
	for (k = 0; (double)k * step <= top * (1 + 1e-9); k++) {
		double yy = y + PANEL_H - (double)k * step * ky;

		if (k)
			fprintf(f,
				"<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
				LEFT, yy, LEFT + PLOT_W, yy);
		plot_si(lab, sizeof(lab), (double)k * step);
		fprintf(f, "<text class=\"ytick\" x=\"%d\" y=\"%.1f\">%s</text>\n", LEFT - 6,
			yy + 4, lab);
	}
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", LEFT,
		y, PLOT_W, PANEL_H);
	if (!p->n) {
		fputs("</g>\n", f);
		return;
	}
	/* the line, one point per time */
	fprintf(f, "<polyline class=\"line\" stroke=\"%s\" data-name=\"", colour);
	put(f, s->name);
	fputs("\" points=\"", f);
	for (k = 0; k < p->n; k++)
		fprintf(f, "%s%.1f,%.1f", k ? " " : "", LEFT + p->t[k] * kx,
			y + PANEL_H - s->y[k] * ky);
	fputs("\"/>\n", f);
	/* markers where the points stand apart; the partial interval's hollow in any case */
	marks = p->n == 1 ||
		(p->n > 1 && (p->t[p->n - 1] - p->t[0]) * kx / (double)(p->n - 1) >= MIN_MARK);
	for (k = 0; k < p->n; k++) {
		bool hollow = p->last_partial && k == p->n - 1;

		if (!marks && !hollow)
			continue;
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" stroke=\"%s\" "
			"stroke-width=\"1.5\"/>\n",
			LEFT + p->t[k] * kx, y + PANEL_H - s->y[k] * ky,
			hollow ? "#ffffff" : colour, colour);
	}
	fputs("</g>\n", f);
}

void ebs_plot_svg(FILE *f, const struct plot *p)
{
	double xmax = p->n && p->t[p->n - 1] > 0 ? p->t[p->n - 1] : 1, xtop, xstep;
	char title[4 * TITLE_MAX];
	unsigned int i, height;
	int y, bottom;

	xstep = plot_nice_step(xmax, 8, false, &xtop);
	ebs_elide(title, sizeof(title), p->title ? p->title : "", TITLE_MAX);

	/* the height: the legend's rows, the panels, the axis and the note */
	bottom = legend(NULL, p, LEGEND_Y) + 12 +
		 (int)(p->nr ? p->nr : 1) * (LABEL_H + PANEL_H + PANEL_GAP) - PANEL_GAP;
	height = (unsigned int)bottom + (p->note ? 66 : 48);

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%u\" viewBox=\"0 0 %d %u\" data-n=\"%zu\">\n<title>",
		WIDTH, height, WIDTH, height, p->n);
	put(f, p->title ? p->title : "");
	fprintf(f, "</title>\n<style><![CDATA[\n%s]]></style>\n", css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"#ffffff\"/>\n", WIDTH,
		height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"28\">", LEFT);
	put(f, title);
	fputs("</text>\n", f);
	if (p->subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"48\">", LEFT);
		put(f, p->subtitle);
		fputs("</text>\n", f);
	}
	y = legend(f, p, LEGEND_Y) + 12;

	for (i = 0; i < p->nr; i++) {
		y += LABEL_H;
		panel(f, p, i, y, xmax, xstep);
		y += PANEL_H + PANEL_GAP;
	}
	if (!p->n)
		fprintf(f, "<text id=\"empty\" x=\"%d\" y=\"%d\">No intervals to draw</text>\n",
			LEFT + PLOT_W / 2, (LEGEND_Y + bottom) / 2);

	/* the time axis, under the last panel */
	for (i = 0; (double)i * xstep <= xmax * (1 + 1e-9); i++)
		fprintf(f, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\">%.4g</text>\n",
			LEFT + (double)i * xstep * PLOT_W / xmax, bottom + 16, (double)i * xstep);
	fprintf(f, "<text id=\"xlabel\" x=\"%d\" y=\"%d\">", LEFT + PLOT_W / 2, bottom + 36);
	put(f, p->x_label ? p->x_label : "seconds");
	fputs("</text>\n", f);
	if (p->note) {
		fprintf(f, "<text id=\"note\" x=\"%d\" y=\"%d\">", LEFT, bottom + 56);
		put(f, p->note);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}
