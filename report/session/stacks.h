/* SPDX-License-Identifier: MIT */
/*
 * stacks.h - every distinct call stack of a file's samples, with its count:
 * what flame graphs and exports (folded, pprof, speedscope) are made of.
 * A file without call chains gives one-frame stacks (with their inline
 * frames).  Private to report/.
 */
#ifndef EBS_REPORT_STACKS_H
#define EBS_REPORT_STACKS_H

#include "report/session/callchain.h"
#include "report/report.h"

/* One distinct stack: frames leaf first, as struct cframe (callchain.h). */
struct stack {
	const struct cframe *frames; /* [n], in stacks' arena */
	unsigned int n;
	unsigned int flags; /* CHAIN_* of the samples (of the first, when they differ) */
	u64 count;	    /* samples */
	u64 period;	    /* the events they stand for (the sum of their periods) */
	const char *host;   /* the recording's host (META hostname), NULL when it has
			     * none; with several recordings, one stack per host */
};

struct stacks {
	struct stack *v; /* in first-seen order */
	size_t n;
	u64 samples;		/* all samples counted: the sum of the counts */
	u64 period;		/* the sum of their periods */
	const char *event;	/* the event's name as used */
	bool clock;		/* it counts ns of CPU time (count_event_is_clock) */
	const char *call_graph; /* META call-graph, NULL: none recorded */
	unsigned int nhosts;	/* the recordings' distinct hosts */
	bool no_inline;
	/* private */
	size_t cap;
	struct session rs;
	struct chainer *chains;
	struct stack_ent *hash;
	struct stack_chunk *arena; /* the frames and the hash's keys */
};

/*
 * Read v's file: every sample of one event (v->filter.event, else the
 * first) that the filters let through, into out.  lines: the frames' file
 * and line are wanted (false: DWARF's units are decoded without their line
 * tables, and the frames have none).  0, or -errno with err filled (as
 * ebs_report).
 */
int stacks_collect(const struct view_opts *v, bool lines, struct stacks *out,
		   struct ebs_error *err);

/* The symbolizer's and the machine's strings live until this. */
void stacks_free(struct stacks *s);

#endif /* EBS_REPORT_STACKS_H */
