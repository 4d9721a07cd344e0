// SPDX-License-Identifier: MIT
/*
 * text.c - control characters in text ebs did not write, shown as '?'
 * (text.h): the rule, and the ways to print by it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/text.h"

size_t ebs_utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, i;

	if (!n)
		return 0;
	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		len = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		len = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

size_t ebs_control_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!n)
		return 0;
	if (*p < 0x20 || *p == 0x7f)
		return 1;
	if (*p < 0x80)
		return 0;
	if (ebs_utf8_len(s, n) == 2) /* U+0080..U+009F are c2 80..c2 9f */
		return p[0] == 0xc2 && p[1] <= 0x9f ? 2 : 0;
	return *p <= 0x9f; /* a raw C1 byte: no UTF-8 sequence starts with one */
}

/* The bytes to step over at p (n left): one, or a whole UTF-8 sequence. */
static size_t step(const unsigned char *p, size_t n)
{
	size_t len = ebs_utf8_len((const char *)p, n);

	return len ? len : 1;
}

char *ebs_clean_mem(char *s, size_t n, bool source)
{
	unsigned char *p = (unsigned char *)s, *end = p + n;
	size_t c;

	while (p < end) {
		if (*p >= 0x20 && *p < 0x7f) { /* printable ASCII: most of any text */
			p++;
		} else if (source && (*p == '\t' || *p == '\n')) {
			p++;
		} else if (source && *p == '\r') {
			*p++ = ' '; /* CRLF line ends */
		} else if ((c = ebs_control_len((const char *)p, (size_t)(end - p)))) {
			memset(p, '?', c);
			p += c;
		} else {
			p += step(p, (size_t)(end - p));
		}
	}
	return s;
}

char *ebs_clean_text(char *s, bool source)
{
	return ebs_clean_mem(s, strlen(s), source);
}

bool ebs_text_is_clean(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i += step((const unsigned char *)s + i, n - i))
		if (ebs_control_len(s + i, n - i))
			return false;
	return true;
}

int ebs_fputs_clean(const char *s, FILE *f)
{
	size_t n = strlen(s), i = 0, run, c = 0;

	while (i < n) {
		/* a run of bytes to copy as they are, then a control character's '?'s */
		for (run = i; run < n && !(c = ebs_control_len(s + run, n - run));)
			run += step((const unsigned char *)s + run, n - run);
		if (run > i && fwrite(s + i, 1, run - i, f) != run - i)
			return EOF;
		if (run == n)
			break;
		for (i = 0; i < c; i++)
			if (fputc('?', f) == EOF)
				return EOF;
		i = run + c;
	}
	return 0;
}

int ebs_vformat_line(char *buf, size_t len, const char *fmt, va_list ap)
{
	int r = vsnprintf(buf, len, fmt, ap);

	if (len)
		ebs_clean_text(buf, false);
	return r;
}

int ebs_format_line(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = ebs_vformat_line(buf, len, fmt, ap);
	va_end(ap);
	return r;
}

int ebs_fprint_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (r < 0)
		return EOF;
	r = fputs(ebs_clean_text(line, false), f) == EOF || fputc('\n', f) == EOF ? EOF : 0;
	free(line);
	return r;
}

/* ebs_clean_stream's write: through a buffer of its own, cleaned, to the stream beneath. */
static ssize_t clean_write(void *cookie, const char *buf, size_t size)
{
	FILE *to = cookie;
	char chunk[1024];
	size_t done = 0, n, i;

	while (done < size) {
		n = size - done < sizeof(chunk) ? size - done : sizeof(chunk);
		/* a chunk ends between characters: a continuation byte alone reads as C1 */
		for (i = 0; i < 3 && done + n < size && n > 4 &&
			    ((unsigned char)buf[done + n] & 0xc0) == 0x80;
		     i++)
			n--;
		memcpy(chunk, buf + done, n);
		/*
		 * A UTF-8 C1 split between two writes is cleaned all the same:
		 * its second byte alone is a raw C1 byte.
		 */
		ebs_clean_mem(chunk, n, true);
		if (fwrite(chunk, 1, n, to) != n)
			return done ? (ssize_t)done : -1;
		done += n;
	}
	fflush(to);
	return (ssize_t)size;
}

static int clean_close(void *cookie)
{
	return fflush(cookie) ? EOF : 0;
}

FILE *ebs_clean_stream(FILE *to)
{
	static const cookie_io_functions_t io = {.write = clean_write, .close = clean_close};
	FILE *f = fopencookie(to, "w", io);

	if (f)
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}

void ebs_markup(FILE *f, const char *s, size_t max, bool xml)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	for (; p && *p && max; max--, p += len) {
		len = ebs_utf8_len((const char *)p, 4); /* a NUL ends a sequence early */
		if (!len) { /* not UTF-8: XML cannot hold it, HTML keeps it but a raw C1 */
			len = 1;
			fputc(xml || ebs_control_len((const char *)p, 1) ? '?' : *p, f);
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
			fputs(xml ? "?" : "        ", f);
			break;
		default:
			if (ebs_control_len((const char *)p, len))
				fputc('?', f); /* util/text.h's rule; XML 1.0 cannot hold most C0 */
			else
				fwrite(p, 1, len, f);
		}
	}
}

void ebs_elide(char *out, size_t size, const char *s, size_t width)
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
