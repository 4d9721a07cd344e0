/* SPDX-License-Identifier: MIT */
/*
 * report.h - hotspot listings of an ebs.data file.  report/ aggregates and
 * prints; symbolize/ does every ELF and DWARF lookup; report/ never touches
 * ELF.
 */
#ifndef EBS_REPORT_H
#define EBS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/util.h"

enum report_sort {
	SORT_FUNC,
	SORT_DSO,
	SORT_LINE,	/* file:line, with the function */
};

struct report_opts {
	const char *input;	/* "ebs.data"; "-" reads stdin */
	enum report_sort sort;
	unsigned int top;	/* rows per event, 0 = all */
	bool json;
	const char *event;	/* only this event (asked or used name); NULL: all (json: first) */
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	const char *const *debug_dirs;	/* NULL-terminated; more places for debug files */
	bool no_demangle;
	bool stats;		/* per-DSO symbol and line coverage after the table */
	FILE *out;
	FILE *warn;		/* per-DSO warnings; NULL: none */
};

/*
 * Read the file and print the listing.  Returns 0, -EBADMSG for a bad file
 * (err: file and byte offset), -ENOENT for an unknown --event, or -errno.
 */
int ebs_report(const struct report_opts *opts, struct ebs_error *err);

/* Print every record, one line each (ebs report --dump). */
int ebs_report_dump(const char *input, FILE *out, struct ebs_error *err);

#endif /* EBS_REPORT_H */
