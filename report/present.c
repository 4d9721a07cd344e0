// SPDX-License-Identifier: MIT
/* present.c - intervals, widths, elision, colours (see present.h). */
#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/present.h"
#include "util/stats.h"

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

const char *present_dim_color(bool on)
{
	return on ? "\033[90m" : "";
}

void present_markup(FILE *f, const char *s, size_t max, enum present_markup_mode mode)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	for (; p && *p && max; max--, p += len) {
		len = ebs_utf8_len((const char *)p, 4); /* a NUL ends a sequence early */
		if (!len) { /* not UTF-8: XML cannot hold it, HTML keeps it but a raw C1 */
			len = 1;
			fputc(mode == PRESENT_XML || ebs_control_len((const char *)p, 1) ? '?' : *p,
			      f);
			continue;
		}
		switch (*p) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\t':
			fputs(mode == PRESENT_XML ? "?" : "        ", f);
			break;
		default:
			if (ebs_control_len((const char *)p, len))
				fputc('?', f); /* util/text.h's rule; XML 1.0 cannot hold most C0 */
			else
				fwrite(p, 1, len, f);
		}
	}
}
