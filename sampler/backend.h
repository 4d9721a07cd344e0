/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the collection backends' ops table, private to sampler/.
 *
 * A session (record.c) owns the targets and the writer; a backend owns the
 * counters and the rings.  Order: open -> (header written) -> start ->
 * read ... -> stop -> close.  open may replace events it cannot open by a
 * fallback (recorded in used[]/why[]) before the header is written.
 */
#ifndef EBS_SAMPLER_BACKEND_H
#define EBS_SAMPLER_BACKEND_H

#include "sampler/sampler.h"

struct sampler;

#define SAMPLER_MAX_CPUS 4096

struct sampler_backend {
	const char *name;
	int (*open)(struct sampler *s, struct ebs_error *err);
	int (*start)(struct sampler *s, struct ebs_error *err);
	/* Wait up to timeout_ms for data, then move it into the writer: 0 or -errno. */
	int (*read)(struct sampler *s, int timeout_ms, struct ebs_error *err);
	/*
	 * The counters' totals so far into counted[], scaled[] and running[],
	 * while they run (ebs stat -I); NULL where the backend cannot.
	 */
	int (*peek)(struct sampler *s);
	/* Disable the counters, drain what is left, fill counted[] if it can. */
	int (*stop)(struct sampler *s, struct ebs_error *err);
	void (*close)(struct sampler *s);
};

/* A process whose exit the session waits for: its pidfd, readable once it has exited. */
struct sampler_exit {
	int fd;
	bool gone; /* it was readable: no more polled */
};

struct sampler {
	const struct record_opts *opts;
	struct ebs_writer *w;
	ebs_warn_fn *notice; /* the record_opts' notice and its ctx */
	void *notice_ctx;
	/* events as opened: equal to opts->events unless a fallback happened */
	struct event_spec used[EBS_MAX_EVENTS];
	char why[EBS_MAX_EVENTS][200];
	unsigned int nr_events;
	/* targets: threads (inherit follows their new threads and children), or
	 * system_wide (one "thread" -1 on every CPU) */
	pid_t *tids;
	unsigned int nr_tids;
	bool system_wide;
	bool enable_on_exec; /* launched command: counting starts at its exec */
	/*
	 * The CPUs of the counters: the online ones, or one "CPU" -1 for a
	 * counting session read in memory on a command or processes (ebs
	 * stat, monitor; record.c's per_task_count): one counter per event
	 * and thread, counting it wherever it runs, as perf stat opens them.
	 */
	int *cpus;
	unsigned int nr_cpus;
	/*
	 * The command or -p's processes as pidfds, which the perf backend's
	 * read polls beside its rings: an exit wakes it at once, where a
	 * SIGCHLD that came just before it slept would not.  NULL: none
	 * (no pidfd_open: the reader wakes on its timeout or a signal).
	 */
	struct sampler_exit *exits;
	unsigned int nr_exits;
	/* how the file's EVENT records describe them (perf attr, or the kmod ABI) */
	struct {
		u32 type;
		u64 config, config1;
	} enc[EBS_MAX_EVENTS];
	u64 period;		     /* sample-after value in force; 0: frequency mode */
	u64 periods[EBS_MAX_EVENTS]; /* each event's (all equal to period unless
				      * the options gave one per event) */
	/* what each event counted over the run, when the backend knows (stop) */
	u64 counted[EBS_MAX_EVENTS];
	double scaled[EBS_MAX_EVENTS];		   /* counted, each counter x enabled / running */
	struct count_total totals[EBS_MAX_EVENTS]; /* the same, with the times (count/rule.h) */
	u64 running[EBS_MAX_EVENTS];		   /* ns the counters ran: the targets' CPU time */
	bool multiplexed;			   /* a counter ran only part of its enabled time */
	bool have_counts;
	const struct sampler_backend *backend;
	void *priv;
	struct ns_tracker *ns; /* processes in other mount namespaces (ns.c); NULL: none */
};

extern const struct sampler_backend perf_backend;
extern const struct sampler_backend kmod_backend;

/*
 * The side-band session of a backend whose own records carry none (kmod.c:
 * ebs.ko records instruction pointers only), as perf runs one for its own
 * tracking: one software dummy event through perf_event_open on s's
 * targets, asking for the MMAP2, COMM (with exec), FORK and EXIT records
 * only, written into s's writer.  It borrows s's targets and writer, which
 * must outlive it.  perf.c.
 */
struct perf_tracking;

/* Open it (disabled); NULL with errno set and err filled. */
struct perf_tracking *perf_tracking__open(const struct sampler *s, struct ebs_error *err);
/* Enable it, unless s launched a command, whose exec enables it. */
void perf_tracking__start(struct perf_tracking *t);
/* Move what its rings hold into the writer, without waiting: 0 or -errno with err filled. */
int perf_tracking__read(struct perf_tracking *t, struct ebs_error *err);
/* Disable it and drain what is left: 0 or -errno with err filled. */
int perf_tracking__stop(struct perf_tracking *t, struct ebs_error *err);
/* Close it; NULL is fine. */
void perf_tracking__close(struct perf_tracking *t); /* accepts NULL */

/*
 * Event ev as ebs.ko's CONFIG takes it (kmod.c): a raw event as it is, a
 * named one as its generic event (include/ebs/ebs_events.h).  0, or -EINVAL
 * when the module does not take it.
 */
int event_spec__kmod_encode(const struct event_spec *ev, u32 *kind, u64 *id);

/*
 * msr mode's throttle limits for ebs.ko's CONFIG (ebs_config.limits,
 * EBS_LIMITS()): kernel.perf_event_max_sample_rate and
 * kernel.perf_cpu_time_max_percent as the files of dir (/proc/sys/kernel)
 * say, which the module cannot read itself; a rate above
 * EBS_LIMITS_RATE_MAX as that, and a file that cannot be read or holds
 * nothing from 1 up (to 100 for the percent) not given (0).
 */
u32 kmod_limits(const char *dir);

struct ebs_krecord;
/*
 * One record of an ebs.ko ring as the file keeps it (kmod.c): a sample of
 * period into *sample, or a throttle record (EBS_KREC_THROTTLE,
 * _UNTHROTTLE) into *thr as a THROTTLE of event 0, as the perf backend
 * writes perf's.  Returns the record to write (sample's or thr's header),
 * or NULL for one to skip (EBS_KREC_PAD).
 */
const struct ebs_rec *kmod_record(const struct ebs_krecord *k, u64 period,
				  struct ebs_rec_sample *sample, struct ebs_rec_throttle *thr);

/*
 * Replace event ev, which cannot be opened for reason why (-errno), by
 * cpu-clock with its :u/:k, recording the reason and saying so in one line.
 */
void sampler__fall_back(struct sampler *s, unsigned int ev, int why);

/*
 * The fields of attr that call graph mode asks for (callgraph.c): the
 * call chain, and the user registers and stack where attr samples user
 * code (attr->exclude_* set already).
 */
struct perf_event_attr;
void call_graph__attr(enum call_graph mode, u32 stack_user, struct perf_event_attr *attr);
/* The user registers mode copies with each sample (their PERF_REG_* mask). */
u64 call_graph__regs(enum call_graph mode);

/*
 * Target pid is gone, or exited and not yet reaped (a zombie), when ebs
 * comes to attach to it (/proc/PID/task, perf_event_open or ebs.ko's
 * CONFIG say ESRCH): one line naming it into err.  Returns -ESRCH.
 */
int sampler__gone(pid_t pid, struct ebs_error *err);

/* Write the EVENT header records for s->used (after open). */
int sampler__write_events(struct sampler *s);

/*
 * Processes that run in another mount namespace or root than ebs (ns.c):
 * PROCNS records, and their mapped files to record_opts.on_mapping.  It
 * borrows o and w, which must outlive it.  NULL when out of memory.
 */
struct ns_tracker;
struct ns_tracker *ns_tracker__new(const struct record_opts *o, struct ebs_writer *w);
void ns_tracker__free(struct ns_tracker *t); /* accepts NULL */
/*
 * Mapping m (about to be written): a PROCNS record before it when its
 * process runs elsewhere than it was last noted to, and its file to
 * on_mapping when it has a build-id not yet kept.  t may be NULL.  0 or
 * -errno from the writer.
 */
int ns_tracker__mmap(struct ns_tracker *t, const struct ebs_rec_mmap *m);

/*
 * The file that process pid maps as name (absolute, as pid sees it),
 * opened for reading inside pid's root, the ways asked tried in turn:
 * NS_OPEN_ROOT, openat2(2) below /proc/PID/root with RESOLVE_IN_ROOT;
 * NS_OPEN_SETNS (when that found nothing or is missing), a child that
 * entered pid's mount namespace (setns) and made pid's root its own.
 * Returns the descriptor, or -errno: -EBS_ENOTREG for anything but a
 * regular file (never opened: a FIFO, a device), -ENOENT when no way
 * asked found it.  *how names the way that found it.  ns.c.
 */
#define NS_OPEN_ROOT  1u
#define NS_OPEN_SETNS 2u
int ns_open_in_root(u32 pid, const char *name, unsigned int ways, const char **how);

/*
 * /proc snapshots for -p and -a: COMM and MMAP records of what already
 * runs (and PROCNS records of it through ns, which may be NULL).
 */
int synth_process(struct ebs_writer *w, struct ns_tracker *ns, pid_t pid, u64 time);
int synth_all_processes(struct ebs_writer *w, struct ns_tracker *ns, u64 time);

/*
 * A COMM record for thread tid of pid with its name now in /proc, stamped
 * time.  0 (and nothing written) when the thread is gone, or -errno.
 */
int synth_comm(struct ebs_writer *w, pid_t pid, pid_t tid, u64 time);

#endif /* EBS_SAMPLER_BACKEND_H */
