// SPDX-License-Identifier: MIT
/*
 * test-plot.c - count/plot.c's axes and chart: nice steps (1, 2 or 5
 * times a power of ten) and their tops, SI labels, and the SVG of a
 * chart with no points and with names that need escaping.
 */
#include <math.h>
#include <stdbool.h>

#include "count/plot.h"
#include "test.h"

/* step and top of an axis from 0 to max in about ticks steps */
static bool axis(double max, unsigned int ticks, bool whole, double want_step, double want_top)
{
	double top, step = plot_nice_step(max, ticks, whole, &top);

	if (fabs(step - want_step) > 1e-12 * want_step || fabs(top - want_top) > 1e-12 * want_top) {
		printf("  max %g: step %.17g top %.17g, want %g %g\n", max, step, top, want_step,
		       want_top);
		return false;
	}
	return true;
}

static bool si(double v, const char *want)
{
	char buf[32];

	plot_si(buf, sizeof(buf), v);
	if (strcmp(buf, want)) {
		printf("  %g: '%s', want '%s'\n", v, buf, want);
		return false;
	}
	return true;
}

/* the chart of p, whole, into a string (freed by the caller) */
static char *chart(const struct plot *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	ebs_plot_svg(f, p);
	fclose(f);
	return buf;
}

/* Axes, labels, and a chart written and escaped. */
static void test_chart(void)
{
	TEST_CHECK("nice step: 1, 2 or 5 times a power of ten, the top a multiple at or above max",
		   axis(17000, 4, true, 5000, 20000) && axis(60, 4, true, 20, 60) &&
			   axis(61, 4, true, 20, 80) && axis(0.93, 8, false, 0.2, 1) &&
			   axis(0.0017, 8, false, 0.0005, 0.002) && axis(1e9, 4, true, 5e8, 1e9));
	TEST_CHECK("nice step: whole counts step by 1 at least",
		   axis(3, 4, true, 1, 3) && axis(1, 4, true, 1, 1) && axis(1, 4, false, 0.5, 1));
	TEST_CHECK("nice step: max 0 (or not a number) gives 0 to 1",
		   axis(0, 4, true, 1, 1) && axis(NAN, 4, false, 1, 1) && axis(-5, 4, false, 1, 1));
	TEST_CHECK("SI labels", si(0, "0") && si(20, "20") && si(999, "999") && si(1000, "1K") &&
					si(2500, "2.5K") && si(15000, "15K") && si(1.5e6, "1.5M") &&
					si(2e9, "2G") && si(3e12, "3T") &&
					si(0.30000000000000004, "0.3") &&
					si(4.000000000000001e-4, "0.0004"));

	{
		const double t[] = {0.05, 0.1, 0.12};
		const double y0[] = {50, 49, 12}, y1[] = {0, 3, 1};
		const struct plot_series s[] = {
			{.name = "a<b>&\"c\"", .unit = "per <interval>", .y = y0},
			{.name = "page-faults", .y = y1, .whole = true},
		};
		struct plot p = {.title = "Counts of 'x < y && z' every 50 ms",
				 .subtitle = "sub & title",
				 .x_label = "seconds",
				 .t = t,
				 .n = 3,
				 .last_partial = true,
				 .s = s,
				 .nr = 2};
		char *svg = chart(&p);

		TEST_CHECK("chart: written", svg != NULL);
		if (svg) {
			TEST_CHECK(
				"chart: names, titles and units escaped",
				strstr(svg,
				       "<title>Counts of 'x &lt; y &amp;&amp; z' every 50 ms<") &&
					strstr(svg, "data-name=\"a&lt;b&gt;&amp;&quot;c&quot;\"") &&
					strstr(svg, "per &lt;interval&gt;") &&
					strstr(svg, "sub &amp; title") && !strstr(svg, "a<b>") &&
					!strstr(svg, "x < y"));
			TEST_CHECK(
				"chart: one polyline per series",
				strstr(svg, "points=\"") &&
					strstr(strstr(svg, "points=\"") + 1, "points=\"") &&
					!strstr(strstr(strstr(svg, "points=\"") + 1, "points=\"") +
							1,
						"points=\""));
			TEST_CHECK("chart: the last point hollow",
				   strstr(svg, "fill=\"#ffffff\" stroke"));
			TEST_CHECK("chart: ends the document",
				   strstr(svg, "</svg>\n") &&
					   !strcmp(strstr(svg, "</svg>\n"), "</svg>\n"));
		}
		free(svg);
		p.n = 0;
		svg = chart(&p);
		TEST_CHECK("no points: no line, a chart that says so",
			   svg && !strstr(svg, "<polyline") &&
				   strstr(svg, ">No intervals to draw</text>") &&
				   strstr(svg, "data-n=\"0\""));
		free(svg);
	}
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_chart))
