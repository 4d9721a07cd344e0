/* SPDX-License-Identifier: MIT */
/*
 * rule.h - counting's one rule: what an event is (by the ids of
 * include/ebs/ebs_events.h, never by its name) and how a counter's reading
 * (value, time enabled, time running) becomes a count.  Every reader of
 * counters uses it: the sampler's backends (perf.c, kmod.c), ebs stat and
 * monitor (count/), the report's header (report/facts.c), calibrate, and
 * libebs, which compiles this file into its own objects.  It depends on
 * nothing but include/ebs/ and the C library, so that libebs can carry it.
 */
#ifndef EBS_COUNT_RULE_H
#define EBS_COUNT_RULE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The perf type and config an event's ids stand for: ebs.ko's encoding in
 * an ebs.data EVENT record (type EBS_EVENT_TYPE_KMOD, config its
 * EBS_GEN_* or raw PerfEvtSel, config1 its EBS_EVENT_* kind) as the row of
 * ebs_events.h it names (a raw one as PERF_TYPE_RAW); the others as they
 * are.
 */
void count_event_ids(uint32_t *type, uint64_t *config, uint64_t config1);

/* Is the event cpu-clock or task-clock (counted in nanoseconds, sampled by an hrtimer)? */
bool count_event_is_clock(uint32_t type, uint64_t config, uint64_t config1);

/* Is the event a PMU's (anything but PERF_TYPE_SOFTWARE: hardware, raw, cache)? */
bool count_event_on_pmu(uint32_t type, uint64_t config, uint64_t config1);

/*
 * The scaling rule takes pmu: does the counter's perf_event group hold a
 * PMU event (count_event_on_pmu of any member)?  Such a group is
 * scheduled on the PMU whole, its software members included, and the
 * kernel may multiplex it; a group of software events only never is (their
 * enabled and running times may still part under load, and scaling them
 * would invent events).  ebs's sessions and libebs's sets are one group
 * each (sampler/perf.c, libebs/count.c), ebs.ko's one event.
 *
 * Was a counter multiplexed: pmu, it ran (running > 0), and for less than
 * its enabled time by more than 0.1% (the slack for the clocks the two
 * times are read from)?
 */
bool count_multiplexed(bool pmu, uint64_t enabled, uint64_t running);

/*
 * A counter's count: value x enabled / running when it was multiplexed
 * (count_multiplexed), 0 when a counter of a PMU group never ran (as perf
 * stat's "not counted"; the kernel counts nothing then), else value.
 * count_scale_u64 is the same exact in 128 bits, rounded down, saturating
 * at UINT64_MAX.
 */
double count_scale(bool pmu, uint64_t value, uint64_t enabled, uint64_t running);
uint64_t count_scale_u64(bool pmu, uint64_t value, uint64_t enabled, uint64_t running);

/* What an event counted, over its counters. */
struct count_total {
	double scaled;	  /* each counter scaled (count_scale), summed */
	uint64_t value;	  /* the counters' values as read, summed */
	uint64_t enabled; /* ns, summed over the counters */
	uint64_t running; /* ns, each counter's at most its enabled time, summed */
	bool multiplexed; /* some counter was (count_multiplexed) */
};

/*
 * Add one counter's reading to t.  A target thread's counters, one per CPU,
 * are each enabled all of the thread's time and run while it is on their
 * CPU: they are one counter, their values and running times summed, the
 * largest of their enabled times its (count_thread_add, then
 * count_thread_end); a system-wide counter (one CPU) stands alone.
 */
void count_total__add(struct count_total *t, bool pmu, uint64_t value, uint64_t enabled,
		      uint64_t running);

/* One thread's counters, one per CPU, on their way to a count_total. */
struct count_thread {
	uint64_t value, enabled, running;
};

static inline void count_thread_add(struct count_thread *th, uint64_t value, uint64_t enabled,
				    uint64_t running)
{
	th->value += value;
	th->running += running;
	if (enabled > th->enabled)
		th->enabled = enabled;
}

/* The thread's counters into t, as one; th emptied for the next thread. */
void count_thread_end(struct count_total *t, bool pmu, struct count_thread *th);

#endif /* EBS_COUNT_RULE_H */
