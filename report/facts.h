/* SPDX-License-Identifier: MIT */
/*
 * facts.h - what the header of an ebs report table says beside its rows:
 * the samples, lost and throttled; what the samples say the event's total
 * was (the estimate) and why that is only approximate; what the event's
 * counters counted; the filters.  Worked out here, once per table; the
 * text and JSON printers only print them.  Private to report/.
 */
#ifndef EBS_REPORT_FACTS_H
#define EBS_REPORT_FACTS_H

#include "report/session/session.h"

/* What an event's COUNT records say: its counters' totals, and for how long they ran. */
struct counted {
	u64 value;	      /* 0 when the file has no COUNT record of the event */
	double scaled;	      /* value scaled to the whole enabled time */
	u64 enabled, running; /* ns, as a multiplexing ratio (facts.c) */
	bool multiplexed;
};

struct facts {
	int ev;	     /* the event; -1: the table of all events */
	u64 samples; /* the table's */
	u64 lost, throttled;
	bool lost_shared; /* lost counts losses of the rings all events share */
	bool filtered;	  /* the table has only some samples (--pid, --func...) */
	char only[512];	  /* those filters in words, "pid 12, function f"; "" none */
	/* the rest for ev >= 0 only */
	const struct ebs_event_info *info;
	struct counted counted;
	u64 events;    /* the estimate: the samples' periods summed */
	char why[256]; /* why the estimate is approximate; "" when it is not */
	const struct ebs_rec_calibration *cal; /* how ebs calibrate chose N, or NULL */
	bool has_achieved;		       /* the counters' running time is known: */
	double achieved_hz;		       /* the samples per second of it */
};

/*
 * The facts of table ev (-1: all events) of samples samples, whose periods
 * sum to period_sum (ev >= 0), under filter (may be NULL).
 */
void facts_of(struct facts *fa, const struct rsession *rs, const struct report_filter *filter,
	      int ev, u64 samples, u64 period_sum);

#endif /* EBS_REPORT_FACTS_H */
