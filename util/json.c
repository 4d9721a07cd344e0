// SPDX-License-Identifier: MIT
/*
 * json.c - the JSON writer (json.h).  A value's comma is decided by the
 * container it goes into: the first item of each open container goes
 * without one.  Keys are items of objects; a key's value follows it with
 * no comma.
 */
#include <errno.h>
#include <math.h>

#include "util/json.h"

static void write_string(FILE *f, const char *s, bool script);

void ebs_json__begin(struct ebs_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->after_key = false;
	j->has_items = 0;
	j->arrays = 0;
	j->misuse = false;
	j->script = false;
}

void ebs_json__begin_script(struct ebs_json *j, FILE *f)
{
	ebs_json__begin(j, f);
	j->script = true;
}

int ebs_json__end(struct ebs_json *j)
{
	fputc('\n', j->f);
	return j->misuse || j->depth || j->after_key ? -EINVAL : 0;
}

/* Before an item (a value, or a key) of the innermost container. */
static void item(struct ebs_json *j)
{
	u64 bit;

	if (j->after_key) { /* a key's value: no comma */
		j->after_key = false;
		return;
	}
	if (!j->depth)
		return;
	bit = 1ull << (j->depth - 1);
	if (j->has_items & bit)
		fputc(',', j->f);
	j->has_items |= bit;
}

static void container_begin(struct ebs_json *j, char c)
{
	item(j);
	fputc(c, j->f);
	if (j->depth >= EBS_JSON_DEPTH) {
		j->misuse = true;
		return;
	}
	j->depth++;
	j->has_items &= ~(1ull << (j->depth - 1));
	if (c == '[')
		j->arrays |= 1ull << (j->depth - 1);
	else
		j->arrays &= ~(1ull << (j->depth - 1));
}

static void container_end(struct ebs_json *j, char c)
{
	if (!j->depth || j->after_key || !(j->arrays & 1ull << (j->depth - 1)) != (c == '}'))
		j->misuse = true;
	else
		j->depth--;
	fputc(c, j->f);
}

void ebs_json__obj(struct ebs_json *j)
{
	container_begin(j, '{');
}

void ebs_json__obj_end(struct ebs_json *j)
{
	container_end(j, '}');
}

void ebs_json__arr(struct ebs_json *j)
{
	container_begin(j, '[');
}

void ebs_json__arr_end(struct ebs_json *j)
{
	container_end(j, ']');
}

void ebs_json__key(struct ebs_json *j, const char *key)
{
	if (j->after_key || !j->depth || (j->arrays & 1ull << (j->depth - 1)))
		j->misuse = true;
	item(j);
	write_string(j->f, key, j->script);
	fputc(':', j->f);
	j->after_key = true;
}

/* Is c printable ASCII that write_string copies as it is? */
static inline bool plain_ascii(unsigned char c, bool script)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
	       !(script && (c == '<' || c == '>' || c == '&'));
}

/*
 * Control characters (util/text.h's: C0, DEL, U+0080-U+009F) as \u00XX, as
 * RFC 8259 allows for any; a byte that is not UTF-8 (JSON text is) as
 * U+FFFD, the replacement character.
 */
static void write_string(FILE *f, const char *s, bool script)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	size_t n;

	fputc('"', f);
	for (; *p; p += n) {
		/* printable ASCII that needs no escape (most of any name): written as one run */
		for (run = p; plain_ascii(*p, script); p++)
			;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		if (!*p)
			break;
		n = ebs_utf8_len((const char *)p, 4); /* a NUL ends a sequence early */
		if (!n) {
			fputs("\\ufffd", f);
			n = 1;
		} else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (ebs_control_len((const char *)p, n))
			fprintf(f, "\\u%04x", n == 2 ? p[1] : p[0]);
		else if (script && (*p == '<' || *p == '>' || *p == '&'))
			fprintf(f, "\\u%04x", *p);
		else if (script && n == 3 && p[0] == 0xe2 && p[1] == 0x80 &&
			 (p[2] == 0xa8 || p[2] == 0xa9))
			fprintf(f, "\\u%04x", 0x2000 + (p[2] - 0x80));
		else
			fwrite(p, 1, n, f);
	}
	fputc('"', f);
}

void ebs_json__write_string(FILE *f, const char *s)
{
	write_string(f, s, false);
}

void ebs_json__str(struct ebs_json *j, const char *s)
{
	item(j);
	if (s)
		write_string(j->f, s, j->script);
	else
		fputs("null", j->f);
}

/* v in decimal, as printf's %llu, without printf (a page writes millions). */
static void write_u64(FILE *f, u64 v, bool minus)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (minus)
		*--p = '-';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void ebs_json__u64(struct ebs_json *j, u64 v)
{
	item(j);
	write_u64(j->f, v, false);
}

void ebs_json__s64(struct ebs_json *j, s64 v)
{
	item(j);
	write_u64(j->f, v < 0 ? -(u64)v : (u64)v, v < 0);
}

void ebs_json__num(struct ebs_json *j, const char *fmt, double v)
{
	item(j);
	if (isfinite(v)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		fprintf(j->f, fmt, v);
#pragma GCC diagnostic pop
	} else {
		fputs("null", j->f); /* JSON has no NaN nor infinity */
	}
}

void ebs_json__bool(struct ebs_json *j, bool v)
{
	item(j);
	fputs(v ? "true" : "false", j->f);
}

void ebs_json__null(struct ebs_json *j)
{
	item(j);
	fputs("null", j->f);
}

void ebs_json__key_str(struct ebs_json *j, const char *key, const char *s)
{
	ebs_json__key(j, key);
	ebs_json__str(j, s);
}

void ebs_json__key_u64(struct ebs_json *j, const char *key, u64 v)
{
	ebs_json__key(j, key);
	ebs_json__u64(j, v);
}

void ebs_json__key_num(struct ebs_json *j, const char *key, const char *fmt, double v)
{
	ebs_json__key(j, key);
	ebs_json__num(j, fmt, v);
}

void ebs_json__key_bool(struct ebs_json *j, const char *key, bool v)
{
	ebs_json__key(j, key);
	ebs_json__bool(j, v);
}

void ebs_json__key_null(struct ebs_json *j, const char *key)
{
	ebs_json__key(j, key);
	ebs_json__null(j);
}
