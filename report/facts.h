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

#include "count/rule.h"
#include "report/session/session.h"

struct facts {
	int ev;	     /* the event; -1: the table of all events */
	u64 samples; /* the table's */
	u64 lost, throttled;
	bool lost_shared; /* lost counts losses of the rings all events share */
	bool filtered;	  /* the table has only some samples (--pid, --func...) */
	char only[512];	  /* those filters in words, "pid 12, function f"; "" none */
	/* the rest for ev >= 0 only */
	const struct ebs_event_info *info;
	struct count_total counted; /* its COUNT records by count/rule.h (value 0: none) */
	u64 events;		    /* the estimate: the samples' periods summed */
	char why[256];		    /* why the estimate is approximate; "" when it is not */
	const struct ebs_rec_calibration *cal; /* how ebs calibrate chose N, or NULL */
	bool has_achieved;		       /* the counters' running time is known: */
	double achieved_hz;		       /* the samples per second of it */
};

/*
 * The facts of table ev (-1: all events) of samples samples, whose periods
 * sum to period_sum (ev >= 0), under filter (may be NULL).
 */
void facts_of(struct facts *fa, const struct session *rs, const struct report_filter *filter,
	      int ev, u64 samples, u64 period_sum);

#endif /* EBS_REPORT_FACTS_H */
