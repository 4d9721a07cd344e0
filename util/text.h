/* SPDX-License-Identifier: MIT */
/*
 * text.h - the one rule for text that ebs did not write.  Names and paths
 * from recordings, binaries, the running system and the command line (a
 * glob can expand to another user's file name) can hold a newline or a
 * terminal's escape sequences; wherever such text is printed, its control
 * characters are shown as '?': C0 (0x00-0x1f), DEL (0x7f), and C1 whether
 * as a raw byte (0x80-0x9f outside a UTF-8 sequence: CSI on an 8-bit
 * terminal) or as UTF-8 (U+0080-U+009F).  Other bytes, UTF-8 or not, are
 * left as they are.  Pure functions but for the stream; compiled into
 * libebs too (which prints nothing).
 */
#ifndef EBS_UTIL_TEXT_H
#define EBS_UTIL_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The length of the UTF-8 sequence at s, of which n bytes may be read: 1
 * for ASCII, 2-4 for a valid sequence, 0 for a byte that starts none (or
 * n 0).
 */
size_t ebs_utf8_len(const char *s, size_t n);

/*
 * The length of the control character at p, of which n bytes may be read
 * (a NUL ends a string as well): 1 for C0, DEL and a raw C1 byte, 2 for
 * U+0080-U+009F in UTF-8; 0 when p is not at one (or n is 0).
 */
size_t ebs_control_len(const char *p, size_t n);

/*
 * Replace every control character of s[0..n) by '?', in place (a UTF-8 C1
 * by two); with source, tab and newline stay and a carriage return becomes
 * a space (text with lines: source files, a stream of messages).  Returns
 * s.  ebs_clean_text is the same for a NUL-terminated string.
 * ebs_text_is_clean says whether s holds no control character at all.
 */
char *ebs_clean_mem(char *s, size_t n, bool source);
char *ebs_clean_text(char *s, bool source);
bool ebs_text_is_clean(const char *s);

/* fputs(s, f) with s's control characters written as '?' (s unchanged). */
int ebs_fputs_clean(const char *s, FILE *f);

/*
 * A message line: vsnprintf into buf[0..len), then every control character
 * (a newline too) as '?', so that the names it holds keep it one line and
 * send no escape.  Returns what vsnprintf returns.  Errors (ebs_error__set),
 * reasons (ebs_set_why) and warnings are made with it.
 */
int ebs_vformat_line(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int ebs_format_line(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One line printed: fprintf(f, fmt, ...), every control character of what
 * it formats (a newline too) as '?', then a newline.  0, or EOF when it
 * could not be formatted or written.  For lines of a listing that show
 * names and paths from outside among ebs's own words.
 */
int ebs_fprint_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A stream that writes to `to` what is written to it, control characters
 * but tab and newline as '?' (ebs_clean_mem's source rule), unbuffered so
 * that its writes keep their order with any other writer of `to`.  The
 * ebs command puts one in place of stderr before anything is said, so that
 * no line it writes there (an argument echoed, a library's message, a
 * path) sends the terminal an escape sequence.  Closing it leaves `to`
 * open.  NULL with errno set when it cannot be made.
 */
FILE *ebs_clean_stream(FILE *to);

/*
 * s escaped for HTML and XML text and attribute values ("<>&\"" as
 * entities), at most max characters of it, to f.  Control characters
 * (C0, DEL, C1) become '?', but a tab: 8 spaces in HTML.  xml: bytes that
 * are not UTF-8 (which XML does not allow) become '?' too, so that a file
 * stays well-formed whatever a name holds; else they pass as they are.
 * report/present.h's present_markup, and count/plot.c's SVG.
 */
void ebs_markup(FILE *f, const char *s, size_t max, bool xml);

/*
 * s in at most width characters into out[size]: whole when it fits, else
 * its start, "..." and more of its end (a function's own name, a path's
 * file name whole when that leaves a character of the start).
 * report/present.h's present_elide, and count/plot.c's titles.
 */
void ebs_elide(char *out, size_t size, const char *s, size_t width);

#endif /* EBS_UTIL_TEXT_H */
