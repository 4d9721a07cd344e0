/* SPDX-License-Identifier: MIT */
/* stats.h - report --stats, per DSO (private to report/). */
#ifndef EBS_REPORT_STATS_H
#define EBS_REPORT_STATS_H

#include <stdio.h>

#include "symbolize/symbolize.h"
#include "util/hash.h"
#include "util/json.h"

struct dso_stat {
	UT_hash_handle hh;
	u64 samples, with_function, with_line;
	const struct sym_dso_info *info; /* NULL for the kernel and unmapped samples */
	char name[];			 /* the path as mapped, "[kernel]", "[unknown]" */
};

/* Count one sample of dso (the table is *stats, NULL when empty); 0 or -ENOMEM. */
int dsostats__add(struct dso_stat **stats, const char *dso, const struct sym_result *res);
/* Most samples first: the text lines, or ',"stats":[...]' for a JSON object. */
void dsostats__print_text(struct dso_stat *stats, FILE *f);
void dsostats__print_json(struct dso_stat *stats, struct ebs_json *j);
void dsostats__free(struct dso_stat **stats); /* accepts NULL */

#endif /* EBS_REPORT_STATS_H */
