// SPDX-License-Identifier: MIT
/* present.c - intervals, widths, elision, colours (see present.h). */
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/present.h"

void present_wilson95(unsigned long long k, unsigned long long n, double *lo, double *hi)
{
	const double z = 1.959964; /* the normal quantile of 0.975 */
	double p, z2n, center, half;

	if (!n) {
		*lo = *hi = 0;
		return;
	}
	p = (double)k / (double)n;
	z2n = z * z / (double)n;
	center = (p + z2n / 2) / (1 + z2n);
	half = z / (1 + z2n) * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n));
	*lo = 100 * (center - half < 0 ? 0 : center - half);
	*hi = 100 * (center + half > 1 ? 1 : center + half);
}

double present_percent(unsigned long long k, unsigned long long n)
{
	return n ? 100.0 * (double)k / (double)n : 0.0;
}

int present_width(FILE *f, int width)
{
	struct winsize ws;

	if (width > 0)
		return width;
	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 0;
}

bool present_color_on(FILE *f, enum report_color mode)
{
	return mode == COLOR_ALWAYS || (mode == COLOR_AUTO && isatty(fileno(f)));
}

void present_elide(char *out, size_t size, const char *s, size_t width)
{
	size_t len = strlen(s), head, tail;
	const char *slash = strrchr(s, '/');

	if (width >= size)
		width = size - 1;
	if (len <= width || width < 5) {
		snprintf(out, size, "%.*s", (int)(len <= width ? len : width), s);
		return;
	}
	/* more of the end: a function's own name, a path's file name */
	head = (width - 3) * 2 / 5;
	tail = width - 3 - head;
	/* a path keeps its whole file name when that leaves a character of the head */
	if (slash && (size_t)(s + len - slash) > tail && (size_t)(s + len - slash) + 4 <= width) {
		tail = (size_t)(s + len - slash);
		head = width - 3 - tail;
	}
	memcpy(out, s, head);
	memcpy(out + head, "...", 3);
	memcpy(out + head + 3, s + len - tail, tail);
	out[width] = '\0';
}

const char *present_heat_color(bool on, double pct)
{
	if (!on)
		return "";
	return pct >= 10 ? "\033[31m" : pct >= 1 ? "\033[33m" : "";
}

const char *present_color_end(bool on)
{
	return on ? "\033[0m" : "";
}
