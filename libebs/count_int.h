/* SPDX-License-Identifier: MIT */
/*
 * count_int.h - libebs's internals that its unit test looks into
 * (tests/unit/test-count.c): the event-list parser.  Not installed.
 */
#ifndef EBS_LIBEBS_COUNT_INT_H
#define EBS_LIBEBS_COUNT_INT_H

#include <stddef.h>
#include <stdint.h>

#define EBS_COUNT_NAME_MAX 64

/* One event as parsed: ebs_events.h's row, and the modifiers. */
struct ebs_count_event {
	char name[EBS_COUNT_NAME_MAX]; /* as given: "cycles:u" */
	uint32_t type;		       /* perf_event_attr.type */
	uint64_t config;	       /* perf_event_attr.config */
	int hardware;		       /* needs a hardware PMU */
	int exclude_kernel, exclude_user;
};

/*
 * One event of text[0..len): 0, or -EINVAL with a line naming it in
 * err[0..errlen) (err may be NULL).
 */
int ebs_count__parse_one(const char *text, size_t len, struct ebs_count_event *out, char *err,
			 size_t errlen);

/* A comma-separated list into out[0..EBS_COUNT_MAX_EVENTS): how many, or -EINVAL as above. */
int ebs_count__parse(const char *events, struct ebs_count_event *out, char *err, size_t errlen);

#endif /* EBS_LIBEBS_COUNT_INT_H */
