/* SPDX-License-Identifier: MIT */
/*
 * count.h - libebs: counting events around sections of a program, the
 * way PmonStat does, from inside the program (ebs-count(3)).
 *
 *	char err[256];
 *	struct ebs_count_set *c = ebs_count_open("task-clock,page-faults", err, sizeof(err));
 *	struct ebs_count_snap a, b;
 *
 *	ebs_count_read(c, &a);
 *	work();
 *	ebs_count_read(c, &b);
 *	ebs_count_record(c, 3, &a, &b);      (section 3: the "kernel number")
 *	...
 *	ebs_count_stat(c, 3, 0, &st);        (task-clock's count, mean, sd, ...)
 *	ebs_count_close(c);
 *
 * A counter set counts the thread that opened it, and is read by that
 * thread only: it holds no lock.  Sets of different threads are
 * independent.  Failures are returned (-errno, or NULL with errno and a
 * line naming the event); no function prints or exits.
 *
 * A NULL set, or a NULL where a function writes or reads a snapshot or a
 * result, is refused, never dereferenced (since 1.1.1): errno EINVAL, and
 * -EINVAL from the functions that return -errno, the value each states
 * from the others.  A closed set is freed, as after free(3): using it,
 * closing it again included, is undefined; ebs_count_close(NULL) does
 * nothing.
 *
 * Events are ebs's names (`ebs list`): software events (task-clock,
 * cpu-clock, page-faults, minor-faults, major-faults, context-switches,
 * cpu-migrations) and hardware ones (cycles, instructions, branches,
 * branch-misses, cache-references, cache-misses), each with an optional
 * ":u" (user space only) or ":k" (kernel only).
 */
#ifndef EBS_COUNT_H
#define EBS_COUNT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version: this header's, and ebs_count_version() the shared object's. */
#define EBS_COUNT_VERSION_MAJOR 1
#define EBS_COUNT_VERSION_MINOR 1
#define EBS_COUNT_VERSION_PATCH 1
#define EBS_COUNT_VERSION	"1.1.1"

#define EBS_COUNT_MAX_EVENTS   8    /* events in one set */
#define EBS_COUNT_MAX_SECTIONS 1024 /* section ids are 0 .. this - 1 */
#define EBS_COUNT_MODE_SAMPLES 4096 /* values per section and event kept for the mode */

struct ebs_count_set; /* opaque: one thread's counter set */

/* How a set's counters are read. */
enum ebs_count_path {
	EBS_COUNT_PATH_READ = 0,  /* read(2) on the group leader: one system call */
	EBS_COUNT_PATH_RDPMC = 1, /* rdpmc through the perf mmap page: no system call */
};

/* A reading of every counter of a set; v[i] is event i's. */
struct ebs_count_snap {
	uint64_t v[EBS_COUNT_MAX_EVENTS];
};

/*
 * One event's statistics over a section: n sections recorded, and of
 * their counts, with the empty read pair's cost subtracted: mean, sd (the
 * sample standard deviation, n - 1; 0 for n = 1), min, max, and the mode
 * (the most frequent value at 3 significant digits, the smaller on a tie,
 * among the first EBS_COUNT_MODE_SAMPLES sections).
 */
struct ebs_count_stat {
	uint64_t n;
	double mean, sd, min, max, mode;
};

/* "1.0.0": the version of the library in use (EBS_COUNT_VERSION is the header's). */
const char *ebs_count_version(void);

/*
 * Open the events of the comma-separated list events (at most
 * EBS_COUNT_MAX_EVENTS) for the calling thread, enabled, as one group,
 * and measure the cost of an empty read pair (ebs_count_overhead).  The
 * set, or NULL with errno set (EINVAL: a bad list; else perf_event_open's
 * errno: ENOENT for a hardware event on a machine without a PMU) and, when
 * err is not NULL, one line in err[0..errlen) naming the event at fault
 * (its control characters, a newline included, as '?').  events NULL:
 * EINVAL.
 */
struct ebs_count_set *ebs_count_open(const char *events, char *err, size_t errlen);

/* Close the counters and free the set (c is invalid after); NULL is ignored. */
void ebs_count_close(struct ebs_count_set *c);

/*
 * The number of events of c (-1 for NULL), and the name of event i (as
 * given, modifiers too; NULL past the end, and for a NULL c).
 */
int ebs_count_nevents(const struct ebs_count_set *c);
const char *ebs_count_event_name(const struct ebs_count_set *c, int i);

/*
 * Read every counter of c into s: 0, or -errno of read(2).  On the rdpmc
 * path a few instructions per counter and no system call; a counter that
 * the kernel has not on a PMU at that moment is read with read(2).
 * Counts are scaled for multiplexing, as perf stat's: when the kernel
 * shared the PMU among more events than it has counters, the set counted
 * only part of its time enabled, and each count is the raw count x time
 * enabled / time running (then always through read(2), which gives both
 * times); ebs_count_running says how much of the time the set counted.
 * c or s NULL: -EINVAL.
 */
int ebs_count_read(struct ebs_count_set *c, struct ebs_count_snap *s);

/*
 * The share of its enabled time that c's counters have been counting,
 * since the set was opened, into *share: 1 unless the kernel multiplexed
 * them (never for software events), 0 for a set that has not counted at
 * all (its counts read 0).  One read(2); 0, or -errno (-EINVAL for a NULL
 * c or share).  Since 1.1.0.
 */
int ebs_count_running(struct ebs_count_set *c, double *share);

/* d = b - a, counter by counter, for n counters (ebs_count_nevents); nothing if one is NULL. */
void ebs_count_sub(const struct ebs_count_snap *b, const struct ebs_count_snap *a,
		   struct ebs_count_snap *d, int n);

/*
 * Add a section to the statistics of section id: b - a, less the empty
 * read pair's cost, for each event.  0, or -EINVAL for an id not below
 * EBS_COUNT_MAX_SECTIONS or a NULL c, a or b, -ENOMEM.
 */
int ebs_count_record(struct ebs_count_set *c, unsigned int id, const struct ebs_count_snap *a,
		     const struct ebs_count_snap *b);

/*
 * The statistics of event i over section id into *st: 0, or -EINVAL for
 * an event or id out of range or a NULL c or st, -ENOENT for a section
 * never recorded.
 */
int ebs_count_stat(const struct ebs_count_set *c, unsigned int id, int i,
		   struct ebs_count_stat *st);

/* Forget every section's statistics (the counters keep counting); NULL: nothing. */
void ebs_count_reset(struct ebs_count_set *c);

/*
 * The cost of an empty read pair in event i's unit (nanoseconds for
 * task-clock and cpu-clock): the median of b - a over EBS_COUNT_CALIB
 * pairs ebs_count_read(a), ebs_count_read(b) made at open.  It is what
 * ebs_count_record subtracts.  0 for i out of range or a NULL c.
 */
#define EBS_COUNT_CALIB 201
double ebs_count_overhead(const struct ebs_count_set *c, int i);

/* The same pair's cost in TSC cycles (median; 0 where there is no TSC, or for a NULL c). */
double ebs_count_overhead_tsc(const struct ebs_count_set *c);

/* How c's counters are read (EBS_COUNT_PATH_READ for a NULL c). */
enum ebs_count_path ebs_count_read_path(const struct ebs_count_set *c);

/* "rdpmc" or "read". */
const char *ebs_count_path_name(enum ebs_count_path p);

/*
 * The read path that this machine gives a hardware event (the one that
 * rdpmc can read), probed by opening "cycles" for the calling thread, and
 * in why[0..whylen) one line saying why (the kernel's cap_user_rdpmc, or
 * why cycles could not be opened).  Software events are always read with
 * read(2).
 */
enum ebs_count_path ebs_count_probe_path(char *why, size_t whylen);

/*
 * The time-stamp counter (rdtsc on x86; elsewhere CLOCK_MONOTONIC_RAW in
 * nanoseconds), and its frequency in Hz as the kernel gives it in the perf
 * mmap page (cap_user_time: time_mult and time_shift; for elsewhere 1e9),
 * or 0 when the kernel does not give it (or c is NULL).
 */
uint64_t ebs_tsc(void);
double ebs_tsc_hz(const struct ebs_count_set *c);

#ifdef __cplusplus
}
#endif

#endif /* EBS_COUNT_H */
