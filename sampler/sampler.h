/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - collection: event names, and `ebs record` sessions that write
 * an ebs.data file.  The collection backend (perf_event_open, or the ebs.ko
 * kernel module) sits behind struct sampler_backend (sampler/backend.h).
 * sampler/ never symbolizes.
 */
#ifndef EBS_SAMPLER_H
#define EBS_SAMPLER_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <ebs/ebs_events.h> /* the named events, ebs_events[]: parsing, `ebs list` */

#include "count/rule.h"
#include "data/data.h"
#include "util/util.h"

/* One event as asked on the command line and what perf_event_open takes. */
struct event_spec {
	char name[64]; /* as asked: "cycles:u", "r01c2:cmask=1" */
	u32 type;      /* PERF_TYPE_* */
	u64 config;
	bool exclude_user;   /* :k */
	bool exclude_kernel; /* :u */
	bool hardware;	     /* needs a hardware PMU */
};

/*
 * Parse one event ("cycles", "cpu-clock:u", "r003c", "r01c2:cmask=1:inv:edge").
 * Returns 0, or -EINVAL with err naming the event.
 */
int event_spec__parse(const char *text, struct event_spec *out, struct ebs_error *err);

/* Parse a comma-separated list into out[max]; returns the count or -errno. */
int event_spec__parse_list(const char *text, struct event_spec *out, unsigned int max,
			   struct ebs_error *err);

/*
 * Probe whether this machine can open ev for the calling process.
 * Returns 0, or -errno from perf_event_open.
 */
int event_spec__probe(const struct event_spec *ev);

/*
 * Can ebs.ko count ev (a counting session of its perf-kernel mode, for
 * this process or all CPUs)?  0 with *why its CONFIG's result (0, or the
 * event's -errno); or -errno with err filled when /dev/ebs cannot be used
 * at all (no module, no permission, a module older than ABI version 2).
 */
int kmod_probe_count(const struct event_spec *ev, bool system_wide, int *why,
		     struct ebs_error *err);

/*
 * Hold the kernel's switch for software event ev on (events.c): a
 * counter of it on the calling thread, disabled, that counts nothing.
 * Opening the first counter of page-faults, context-switches or
 * cpu-migrations anywhere turns on a static key, which rewrites kernel
 * code on every CPU, and closing the last turns it off again: ebs stat
 * -r's short runs paid both each run.  Returns the counter's fd, to close
 * when the runs are done, or -errno (-EOPNOTSUPP: ev is no such event;
 * a level of kernel.perf_event_paranoid that allows no counting at all).
 */
int event_spec__hold(const struct event_spec *ev);

/* Is ev cpu-clock or task-clock: sampled by an hrtimer, its period in nanoseconds? */
bool event_spec__is_clock(const struct event_spec *ev);

/*
 * Does ev happen in the kernel only (context-switches, cpu-migrations: the
 * scheduler counts them in its own context), so that counted in user space
 * only (:u) it stays 0?
 */
bool event_spec__kernel_only(const struct event_spec *ev);

/* The reason an open failed, in words fit for one line ("no hardware PMU ..."). */
const char *event_open_reason(int err);

/*
 * -g / --call-graph: what each sample carries beyond its IP.  FP: the
 * kernel's frame-pointer chain, with the user registers and the top
 * stack_user bytes of the user stack, from which the report recovers the
 * caller of a leaf function that built no frame.  DWARF: the kernel part of
 * the chain, the user registers and stack_user bytes of the user stack,
 * unwound by the report through the DSOs' CFI.
 */
enum call_graph {
	CALL_GRAPH_NONE,
	CALL_GRAPH_FP,
	CALL_GRAPH_DWARF,
};

#define CALL_GRAPH_FP_STACK    512u   /* fp: bytes of stack for the leaf's caller */
#define CALL_GRAPH_DWARF_STACK 8192u  /* dwarf: default SIZE */
#define CALL_GRAPH_MAX_STACK   65528u /* the kernel wants < USHRT_MAX, a multiple of 8 */

/*
 * Parse -g's argument ("fp", "fp,SIZE", "dwarf", "dwarf,SIZE"; SIZE a
 * multiple of 8 up to CALL_GRAPH_MAX_STACK, 0 for fp without a stack copy)
 * into *mode and *stack_user.  0, or -EINVAL with err saying what is wrong.
 */
int call_graph__parse(const char *text, enum call_graph *mode, u32 *stack_user,
		      struct ebs_error *err);

/* "fp,512", "dwarf,8192": the META CALL_GRAPH value; "" for none. */
void call_graph__format(enum call_graph mode, u32 stack_user, char *buf, size_t len);

enum record_backend {
	BACKEND_PERF, /* perf_event_open (the default) */
	BACKEND_KMOD, /* ebs.ko's /dev/ebs */
};

struct record_opts {
	/* "ebs.data"; "-" for stdout; NULL with count_only: no file, the
	 * counts in record_result only (count/session.h) */
	const char *output;
	/* > 0: write into this descriptor instead (ebs_writer__create_fd: a
	 * regular file, empty, the caller's; output only names it) */
	int output_fd;
	enum record_backend backend;
	u32 kmod_mode; /* EBS_MODE_* of include/ebs/ebs_abi.h */
	struct event_spec events[EBS_MAX_EVENTS];
	unsigned int nr_events;
	u64 period;		     /* -c N; 0 when frequency mode */
	u64 periods[EBS_MAX_EVENTS]; /* per event, overriding period (all or none) */
	u64 freq;		     /* -F HZ */
	bool no_fallback;
	enum call_graph call_graph; /* -g */
	u32 stack_user;		    /* bytes of user stack copied with each sample */
	pid_t *pids;		    /* -p */
	unsigned int nr_pids;
	bool system_wide;	  /* -a */
	char *const *argv;	  /* command, or NULL */
	unsigned int mmap_pages;  /* data pages per ring, power of two */
	const char *cmdline;	  /* ebs's own command line, for the header */
	const char *kernel_stext; /* the kernel's _stext as hex (symbolize/'s
				   * kallsyms__stext), for the header; NULL: unknown */
	ebs_warn_fn *notice;	  /* notices (fallbacks, signals), util/error.h's; NULL: none */
	void *notice_ctx;	  /* notice's */
	bool count_only;	  /* count the events, take no samples (perf backend) */
	int child_stdout;	  /* > 0: the command's standard output goes here */
	int child_stdin;	  /* > 0: its standard input comes from here */
	int child_stderr;	  /* > 0: its standard error goes here */
	/* CALIBRATION header records, their event indexes into events[] */
	const struct ebs_rec_calibration *calib;
	unsigned int nr_calib;
	/*
	 * Called once the last sample is in the file, before its trailer:
	 * for records that need the whole recording (the kernel symbols its
	 * samples hit).  Its problems are its own to report; NULL: none.
	 */
	void (*at_end)(void *ctx, struct ebs_writer *w);
	void *at_end_ctx;
	/*
	 * Called while recording, as its mapping is read, for each file with a
	 * build-id that a process running in another mount namespace or root
	 * than ebs (a container, a chroot) maps, until one call returns >= 0
	 * for that build-id (at most 3 tries): fd is the file, a regular one,
	 * open for reading, found inside the process's root (sampler/ns.c);
	 * path names it ("/proc/PID/root/app/hot"), how says how it was found
	 * ("/proc/PID/root", or "setns" where a child entered the namespace).
	 * Returns what it kept (>= 0) or -errno; its messages are its own.  It
	 * runs in the loop that reads the rings: what it costs, they wait.
	 * NULL: none (the processes' namespaces are noted in the file all the
	 * same: PROCNS records).
	 */
	s64 (*on_mapping)(void *ctx, pid_t pid, const char *path, int fd, const char *how,
			  const u8 *build_id, u8 build_id_size);
	void *on_mapping_ctx;
	/*
	 * Every interval_ms while the command runs (ebs stat -I), and once
	 * more at its end: the counters' totals so far (scaled as in
	 * record_result.counted, which is also what the last call gives) and
	 * the time since exec.  Only with a backend that can read them while
	 * they run (perf); 0: never.  It returns 0 to go on, nonzero to stop
	 * the session as a SIGINT would: a command gets SIGINT and the session
	 * ends when it exits (a second stop kills it); without one (-p, -a
	 * alone) it ends at once; res->stop_signal is then SIGINT.
	 */
	unsigned int interval_ms;
	int (*on_interval)(void *ctx, u64 ns, const double *totals, unsigned int nr);
	void *interval_ctx;
	/*
	 * A tap: every data record as the file gets it (ebs_writer__set_tap),
	 * for a live view (ebs top); it runs in the loop that reads the rings,
	 * so it copies and returns.  NULL: none.
	 */
	ebs_writer_tap_fn *tap;
	void *tap_ctx;
	/*
	 * No PROCNS records, no watch of mappings and no look at
	 * /proc/PID/ns per mapping (ns.c): for a reader of the records that
	 * reads no process's files from inside its namespace (ebs top), which
	 * would pay two stat calls per mapping and a wakeup per mapping.
	 */
	bool no_ns;
};

struct record_result {
	int exit_status; /* of the command: code, or 128+signal; 0 otherwise */
	int stop_signal; /* the stop signal ebs got (SIGINT: Ctrl-C), 0 when none */
	bool have_child;
	bool exec_failed; /* the command could not be run (exit status 127) */
	u64 samples, lost, throttled, bytes;
	/*
	 * With -c N: samples the counters' totals call for (count / N, summed
	 * over the events) that neither arrived nor were reported lost: the
	 * kernel reports a full ring's losses only when it next writes to it,
	 * so losses at the very end, and samples withheld by throttling, show
	 * only here.  0 in frequency mode or when unknown.
	 */
	u64 undelivered;
	/* the command's CPU time (user + system, its waited-for children
	 * included) and its wall time from exec to exit; 0 without a command */
	u64 cpu_ns, wall_ns;
	u64 collect_ns; /* the counters' time, from the start of collection to the stop */
	/* what each event counted (scaled when multiplexed), when known */
	u64 counted[EBS_MAX_EVENTS];
	bool multiplexed;		/* some counter ran part of the time only */
	u64 running_ns[EBS_MAX_EVENTS]; /* how long each event's counters ran (their
					 * targets' CPU time, as the perf clock sees it) */
	bool have_counts;
	/* each event's count, values and times by count/rule.h (with have_counts) */
	struct count_total totals[EBS_MAX_EVENTS];
	/* the events as opened: events[] unless one fell back (fell_back[]) to cpu-clock */
	struct event_spec used[EBS_MAX_EVENTS];
	bool fell_back[EBS_MAX_EVENTS];
};

/*
 * Run one recording: open the events on the targets, run the command (if
 * any), collect until it exits (or the pids exit, or a signal stops it:
 * record.c), and write the file.  Returns 0 or -errno with err filled; when
 * the command could not be exec'd, res->exec_failed is set and err names
 * it.  When writing fails during collection, what was recorded is kept as
 * OUTPUT.partial and err says so (ebs_writer__abort_keep).
 */
int ebs_record(const struct record_opts *opts, struct record_result *res, struct ebs_error *err);

#endif /* EBS_SAMPLER_H */
