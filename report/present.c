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

/* The length of the UTF-8 sequence at s, 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (*s < 0x80)
		return 1;
	n = *s >= 0xf0 && *s < 0xf5 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc2 ? 2 : 0;
	if (*s >= 0xf5)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void present_markup(FILE *f, const char *s, size_t max, enum present_markup_mode mode)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	for (; p && *p && max; max--, p += len) {
		len = mode == PRESENT_XML ? utf8_len(p) : 1;
		if (!len) {
			fputc('?', f);
			len = 1;
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
			if (*p < 0x20 && mode == PRESENT_XML)
				fputc('?', f);
			else
				fwrite(p, 1, len, f);
		}
	}
}
