/* SPDX-License-Identifier: MIT */
/*
 * present.h - what report and annotate print with: confidence intervals,
 * the terminal's width, names elided in the middle, colours, JSON strings.
 * Private to report/.
 */
#ifndef EBS_REPORT_PRESENT_H
#define EBS_REPORT_PRESENT_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/*
 * The 95% Wilson score interval of a share k/n, in percent: a sample of
 * n taken from a run whose true share is p puts k/n in this interval
 * around p 95% of the time.  n = 0 gives [0, 0].
 */
void present_wilson95(unsigned long long k, unsigned long long n, double *lo, double *hi);

/* k/n in percent, 0 for n = 0. */
double present_percent(unsigned long long k, unsigned long long n);

/*
 * Columns to fit in: width if > 0; 0 (no limit) if < 0 (--width 0); else
 * the terminal's when f is one, else 0.
 */
int present_width(FILE *f, int width);

/* Colours on?  COLOR_AUTO: when f is a terminal. */
bool present_color_on(FILE *f, enum report_color mode);

/*
 * s in at most width characters (bytes): whole when it fits, else its
 * start and its end around "...", so that both the namespace and the
 * function's own name, or a path's start and file name, stay.
 */
void present_elide(char *out, size_t size, const char *s, size_t width);

/*
 * s escaped for HTML and XML text and attribute values ("<>&\"" as
 * entities), at most max characters of it, to f.  Control characters
 * (util/text.h's: C0, DEL, C1) become '?', but a tab: 8 spaces in HTML.
 * PRESENT_XML: bytes that are not UTF-8 (which XML does not allow) become
 * '?' too, so that a file stays well-formed whatever a symbol holds;
 * PRESENT_HTML: they pass as they are (a source line as its file has it).
 */
enum present_markup_mode { PRESENT_HTML, PRESENT_XML };
void present_markup(FILE *f, const char *s, size_t max, enum present_markup_mode mode);

/* ANSI colour for a share: red from 10%, yellow from 1%; "" without colour. */
const char *present_heat_color(bool on, double pct);
const char *present_color_end(bool on);
/* ANSI grey, for what matters less (ebs diff's changes that are not significant); "" without
 * colour. */
const char *present_dim_color(bool on);

#endif /* EBS_REPORT_PRESENT_H */
