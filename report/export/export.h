/* SPDX-License-Identifier: MIT */
/*
 * export.h - the exporters of ebs export, one per format, each writing a
 * struct stacks to a stream.  Private to report/.
 */
#ifndef EBS_REPORT_EXPORT_H
#define EBS_REPORT_EXPORT_H

#include <stdio.h>

#include "report/session/stacks.h"

/* Each: 0, or -errno with err filled. */
int export_folded(const struct stacks *s, FILE *f, struct ebs_error *err);
int export_pprof(const struct stacks *s, FILE *f, struct ebs_error *err); /* export-pprof.c */
int export_speedscope(const struct stacks *s, FILE *f,
		      struct ebs_error *err); /* export-speedscope.c */

/*
 * A stack's frames root first, as folded stacks name them ("main;f;g"):
 * function names joined by ';' (a ';' in a name becomes ':'), into *buf
 * (grown as needed, *cap its size).  0 or -ENOMEM.
 */
int export_fold(const struct stack *st, char **buf, size_t *cap);

#endif /* EBS_REPORT_EXPORT_H */
