// SPDX-License-Identifier: MIT
/* present.c - intervals, widths, elision, colours (see present.h). */
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/present.h"
#include "util/stats.h"
#include "util/text.h"

void present_wilson95(unsigned long long k, unsigned long long n, double *lo, double *hi)
{
	ebs_wilson(k, n, 1.959964, lo, hi); /* the normal quantile of 0.975 */
	*lo *= 100;
	*hi *= 100;
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
	if (width < 0)
		return 0; /* --width 0: no limit, in a terminal too */
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
	ebs_elide(out, size, s, width);
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

const char *present_dim_color(bool on)
{
	return on ? "\033[90m" : "";
}

void present_markup(FILE *f, const char *s, size_t max, enum present_markup_mode mode)
{
	ebs_markup(f, s, max, mode == PRESENT_XML);
}
