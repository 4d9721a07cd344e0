// SPDX-License-Identifier: MIT
/*
 * test-monitor.c - count/monitor.c, ebs monitor's screen without a
 * terminal: the 1-2-5 scales and their divisions, the labels, the ring of
 * rates (wrapping, current, minimum, maximum, the ratio), the automatic
 * scale (grown at once, shrunk below a fifth) and 'r', and the drawn
 * canvas: header, labels, grid, equal scales, pause, a trace that rises
 * and falls, a canvas too small.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "count/monitor.h"
#include "test.h"

static bool scale_is(double v, double want)
{
	double got = monitor_scale_for(v);

	if (fabs(got - want) > 1e-9 * want) {
		printf("  scale for %g: %.17g, want %g\n", v, got, want);
		return false;
	}
	return true;
}

static bool fmt_is(double v, enum monitor_unit unit, const char *want)
{
	char buf[32];

	monitor_format(buf, sizeof(buf), v, unit);
	if (strcmp(buf, want)) {
		printf("  %g: '%s', want '%s'\n", v, buf, want);
		return false;
	}
	return true;
}

/* canvas row r as a string (static buffer) */
static const char *row(const struct monitor_canvas *c, int r)
{
	static char buf[512];

	memcpy(buf, c->ch + r * c->cols, (size_t)c->cols);
	buf[c->cols] = '\0';
	return buf;
}

/* the first row holding s, or -1 */
static int find_row(const struct monitor_canvas *c, const char *s)
{
	int r;

	for (r = 0; r < c->rows; r++)
		if (strstr(row(c, r), s))
			return r;
	return -1;
}

/* how many cells hold ch in colour k (any colour with k < 0) in rows from..to */
static int count(const struct monitor_canvas *c, char ch, int k, int from, int to)
{
	int r, i, n = 0;

	for (r = from; r <= to; r++)
		for (i = 0; i < c->cols; i++)
			n += c->ch[r * c->cols + i] == ch &&
			     (k < 0 || c->colour[r * c->cols + i] == k);
	return n;
}

/* s is want, then spaces only */
static bool padded(const char *s, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(s, want, n) && strspn(s + n, " ") == strlen(s + n);
}

static void dump(const struct monitor_canvas *c)
{
	int r;

	for (r = 0; r < c->rows; r++)
		printf("  |%s|\n", row(c, r));
}

/* The scale, formats, the ring and the screen. */
static void test_screen(void)
{
	const char *names[] = {"task-clock", "page-faults", "x", "y", "z"};
	struct monitor *m;
	struct monitor_canvas *c;
	double r2[2];
	int i;

	TEST_CHECK("scale: 1, 2 or 5 times a power of ten at or above",
		   scale_is(0, 1) && scale_is(-3, 1) && scale_is(0.3, 0.5) && scale_is(1, 1) &&
			   scale_is(1.01, 2) && scale_is(2, 2) && scale_is(2.5, 5) &&
			   scale_is(7, 10) && scale_is(998.2e6, 1e9) && scale_is(1e9, 1e9) &&
			   scale_is(1.0001e9, 2e9) && scale_is(4.2e9, 5e9));
	TEST_CHECK("divisions: 5 of 1 and 5, 4 of 2",
		   monitor_divisions(1) == 5 && monitor_divisions(2) == 4 &&
			   monitor_divisions(5) == 5 && monitor_divisions(2e9) == 4 &&
			   monitor_divisions(0.5) == 5 && monitor_divisions(10) == 5);
	TEST_CHECK("format: SI and /s, a ratio bare, NAN a dash",
		   fmt_is(998.2e6, MONITOR_PER_S, "998.2M/s") && fmt_is(0, MONITOR_PER_S, "0/s") &&
			   fmt_is(2500, MONITOR_PER_S, "2.5K/s") &&
			   fmt_is(NAN, MONITOR_PER_S, "-") && fmt_is(1.25, MONITOR_RATIO, "1.25") &&
			   fmt_is(1.9e6, MONITOR_RATIO, "1.9M"));
	TEST_CHECK("format: a clock in CPUs, two decimals, three below 0.01",
		   fmt_is(0.6535, MONITOR_CPUS, "0.65 CPUs") &&
			   fmt_is(0, MONITOR_CPUS, "0.00 CPUs") &&
			   fmt_is(2, MONITOR_CPUS, "2.00 CPUs") &&
			   fmt_is(0.0042, MONITOR_CPUS, "0.004 CPUs") &&
			   fmt_is(NAN, MONITOR_CPUS, "-"));

	errno = 0;
	TEST_CHECK("new: --ratio wants two events",
		   !monitor__new(names, 1, true, 8) && errno == EINVAL);
	TEST_CHECK("new: at most MONITOR_MAX_EVENTS",
		   !monitor__new(names, MONITOR_MAX_EVENTS + 1, false, 8));
	monitor__free(NULL);

	/* the ring: 4 kept, 6 pushed */
	m = monitor__new(names, 2, true, 4);
	if (!m) {
		TEST_FAIL("new", "%s", strerror(errno));
		return;
	}
	TEST_EQ("ratio: a third trace", m->nr, 3);
	TEST_STREQ("ratio: named E1/E2", m->tr[2].name, "task-clock/page-faults");
	TEST_CHECK("nothing pushed: no value, no minimum",
		   isnan(monitor__value(m, 0, 0)) && isnan(m->tr[0].min) && isnan(m->tr[0].cur));
	for (i = 1; i <= 6; i++) {
		r2[0] = i * 100.0;
		r2[1] = i == 5 ? 0 : i;
		monitor__push(m, i * 0.1, r2);
	}
	TEST_CHECK("ring: newest first, 4 kept", monitor__value(m, 0, 0) == 600 &&
							 monitor__value(m, 0, 3) == 300 &&
							 isnan(monitor__value(m, 0, 4)));
	TEST_CHECK("current, minimum, maximum since the start (not only what is kept)",
		   m->tr[0].cur == 600 && m->tr[0].min == 100 && m->tr[0].max == 600 &&
			   m->tr[1].min == 0);
	TEST_CHECK("ratio: E1/E2, NAN over 0", monitor__value(m, 2, 0) == 100 &&
						       isnan(monitor__value(m, 2, 1)) &&
						       m->tr[2].min == 100 && m->tr[2].max == 100);
	TEST_CHECK("time of the last push", fabs(m->t - 0.6) < 1e-12);
	monitor__free(m);

	/* scales: grown at once, kept above a fifth, shrunk below, 'r' fits */
	m = monitor__new(names, 2, false, 64);
	if (!m)
		return;
	r2[0] = 0.9e9;
	r2[1] = 10;
	monitor__push(m, 0.1, r2);
	monitor__autoscale(m, 10);
	TEST_CHECK("autoscale: 0.9G on 1G, 10 on 10",
		   m->tr[0].scale == 1e9 && m->tr[1].scale == 10);
	r2[0] = 1.5e9;
	monitor__push(m, 0.2, r2);
	monitor__autoscale(m, 10);
	TEST_CHECK("autoscale: grown to 2G at once", m->tr[0].scale == 2e9);
	for (i = 0; i < 10; i++) {
		r2[0] = 0.5e9;
		monitor__push(m, 0.3 + i * 0.1, r2);
	}
	monitor__autoscale(m, 10);
	TEST_CHECK("autoscale: 0.5G on screen keeps 2G (above a fifth)", m->tr[0].scale == 2e9);
	monitor__rescale(m, 10);
	TEST_CHECK("r: fitted to 0.5G", m->tr[0].scale == 0.5e9);
	for (i = 0; i < 10; i++) {
		r2[0] = 0.05e9;
		monitor__push(m, 1.3 + i * 0.1, r2);
	}
	monitor__autoscale(m, 10);
	TEST_CHECK("autoscale: 50M on screen shrinks 500M", m->tr[0].scale == 50e6);
	monitor__free(m);

	/* the screen: a trace that rises and falls, another flat */
	m = monitor__new(names, 2, false, 256);
	c = monitor_canvas__new(24, 80);
	if (!m || !c)
		return;
	m->interval_ms = 100;
	snprintf(m->target, sizeof(m->target), "command 'phases'");
	for (i = 0; i < 40; i++) {
		r2[0] = (i / 4) % 2 ? 0 : 1e9;
		r2[1] = 300;
		monitor__push(m, (i + 1) * 0.1, r2);
	}
	monitor__draw(m, c);
	{
		int top = find_row(c, "page-faults") + 1, bottom = c->rows - 3;
		int one = find_row(c, "     1G|"), zero = find_row(c, "      0|");

		TEST_CHECK(
			"draw: the header: the interval, the time, then the target",
			padded(row(c, 0), "ebs monitor   every 100 ms   4.0 s   command 'phases'"));
		TEST_CHECK("draw: a line per trace, now, min, max, scale",
			   find_row(c, "o task-clock") == 1 && strstr(row(c, 1), "now 0/s") &&
				   strstr(row(c, 1), "min 0/s") && strstr(row(c, 1), "max 1G/s") &&
				   strstr(row(c, 1), "scale 1G/s (left)") &&
				   strstr(row(c, 2), "scale 500/s (right)"));
		TEST_CHECK(
			"draw: left labels are the first event's, 1G at the top, 0 at the bottom",
			one == top && zero == bottom);
		TEST_CHECK("draw: right labels the second's, 500 at the top",
			   strstr(row(c, top), "|500") && strstr(row(c, bottom), "|0"));
		TEST_CHECK("draw: the rising and falling trace reaches the top and the bottom",
			   count(c, 'o', 1, top, top) >= 4 &&
				   count(c, 'o', 1, bottom, bottom) >= 4);
		/* 300 of 500: 0.6 of the way up, on one row; the first trace drawn over it */
		i = bottom - (int)lround(0.6 * (bottom - top));
		TEST_CHECK("draw: the flat trace (300 of 500) on one row",
			   count(c, '+', 2, i, i) + count(c, 'o', 1, i, i) == 40 &&
				   count(c, '+', 2, i, i) >= 20 &&
				   count(c, '+', 2, top, bottom) == count(c, '+', 2, i, i));
		TEST_CHECK("draw: the grid", count(c, '.', MONITOR_GRID, top, bottom) > 100);
		TEST_CHECK("draw: the keys and the time axis",
			   strstr(row(c, c->rows - 1), "q quit") &&
				   strstr(row(c, c->rows - 2), "one column: 100 ms") &&
				   strstr(row(c, c->rows - 2), "now"));
		if (test_failures)
			dump(c);
	}
	m->grid = false;
	m->paused = true;
	m->equal = true;
	monitor__draw(m, c);
	TEST_CHECK("draw: no grid", count(c, '.', MONITOR_GRID, 0, c->rows - 1) == 0);
	TEST_CHECK("draw: paused said", strstr(row(c, 0), "PAUSED"));
	TEST_CHECK("draw: equal scales: both 1G",
		   strstr(row(c, 2), "scale 1G/s (equal, right)") && find_row(c, "|1G") >= 0);
	snprintf(m->note, sizeof(m->note), "a fallback said");
	monitor__draw(m, c);
	TEST_CHECK("draw: the note under the title",
		   strstr(row(c, 1), "a fallback said") && strstr(row(c, 2), "o task-clock"));
	monitor_canvas__free(c);
	c = monitor_canvas__new(6, 30);
	if (c) {
		monitor__draw(m, c);
		TEST_CHECK("draw: too small a canvas says so", find_row(c, "too small") >= 0);
	}
	monitor_canvas__free(c);
	monitor__free(m);

	/* a clock in CPUs (0.65e9 ns/s: 0.65 CPUs), a count per second, their ratio */
	m = monitor__new(names, 2, true, 64);
	c = monitor_canvas__new(24, 100);
	if (!m || !c) {
		monitor_canvas__free(c);
		monitor__free(m);
		return;
	}
	monitor__set_cpus(m, 0);
	monitor__set_cpus(m, 2); /* not an event: ignored */
	for (i = 0; i < 10; i++) {
		r2[0] = 0.65e9;
		r2[1] = 1000;
		monitor__push(m, (i + 1) * 0.1, r2);
	}
	monitor__draw(m, c);
	{
		int top = find_row(c, "task-clock/page-faults") + 1, bottom = c->rows - 3;

		TEST_CHECK("cpus: kept in CPUs, the ratio of the rates as given",
			   fabs(monitor__value(m, 0, 0) - 0.65) < 1e-12 &&
				   monitor__value(m, 1, 0) == 1000 &&
				   fabs(monitor__value(m, 2, 0) - 0.65e6) < 1e-6 &&
				   monitor__unit(m, 0) == MONITOR_CPUS &&
				   monitor__unit(m, 1) == MONITOR_PER_S &&
				   monitor__unit(m, 2) == MONITOR_RATIO);
		TEST_CHECK("cpus: the header in CPUs, each trace's axis said",
			   strstr(row(c, 1), "now 0.65 CPUs") &&
				   strstr(row(c, 1), "scale 1.00 CPUs (left)") &&
				   strstr(row(c, 2), "scale 1K/s (right)") &&
				   strstr(row(c, 3), "scale 1M (no labels)"));
		TEST_CHECK("cpus: left labels in CPUs, 1 at the top, 0.2 a step",
			   find_row(c, "      1|") == top && find_row(c, "      0|") == bottom &&
				   find_row(c, "    0.2|") > top &&
				   find_row(c, "    0.2|") < bottom);
		if (test_failures)
			dump(c);
	}
	m->equal = true;
	monitor__draw(m, c);
	TEST_CHECK("cpus: equal scales compare only traces in one unit",
		   strstr(row(c, 1), "scale 1.00 CPUs (equal, left)") &&
			   strstr(row(c, 2), "scale 1K/s (equal, right)"));
	monitor_canvas__free(c);
	monitor_canvas__free(NULL);
	monitor__free(m);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_screen))
