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
	/* Disable the counters, drain what is left, fill counted[] if it can. */
	int (*stop)(struct sampler *s, struct ebs_error *err);
	void (*close)(struct sampler *s);
};

struct sampler {
	const struct record_opts *opts;
	struct ebs_writer *w;
	FILE *msg;
	/* events as opened: equal to opts->events unless a fallback happened */
	struct event_spec used[EBS_MAX_EVENTS];
	char why[EBS_MAX_EVENTS][200];
	unsigned int nr_events;
	/* targets: threads (inherit follows their new threads and children), or
	 * system_wide (one "thread" -1 on every CPU) */
	pid_t *tids;
	unsigned int nr_tids;
	bool system_wide;
	bool enable_on_exec;	/* launched command: counting starts at its exec */
	int *cpus;
	unsigned int nr_cpus;
	/* how the file's EVENT records describe them (perf attr, or the kmod ABI) */
	struct {
		u32 type;
		u64 config, config1;
	} enc[EBS_MAX_EVENTS];
	u64 period;		/* sample-after value in force; 0: frequency mode */
	u64 periods[EBS_MAX_EVENTS];	/* each event's (all equal to period unless
					 * the options gave one per event) */
	bool tracking_only;	/* side-band records only (MMAP, COMM...): no counts */
	/* what each event counted over the run, when the backend knows (stop) */
	u64 counted[EBS_MAX_EVENTS];
	double scaled[EBS_MAX_EVENTS];	/* counted, each counter x enabled / running */
	u64 running[EBS_MAX_EVENTS];	/* ns the counters ran: the targets' CPU time */
	bool multiplexed;		/* a counter ran only part of its enabled time */
	bool have_counts;
	const struct sampler_backend *backend;
	void *priv;
};

extern const struct sampler_backend perf_backend;
extern const struct sampler_backend kmod_backend;

/*
 * Replace event ev, which cannot be opened for reason why (-errno), by
 * cpu-clock with its :u/:k, recording the reason and saying so in one line.
 */
void sampler__fall_back(struct sampler *s, unsigned int ev, int why);

/* Write the EVENT header records for s->used (after open). */
int sampler__write_events(struct sampler *s);

/* /proc snapshots for -p and -a: COMM and MMAP records of what already runs. */
int synth_process(struct ebs_writer *w, pid_t pid, u64 time);
int synth_all_processes(struct ebs_writer *w, u64 time);

/*
 * A COMM record for thread tid of pid with its name now in /proc, stamped
 * time.  0 (and nothing written) when the thread is gone, or -errno.
 */
int synth_comm(struct ebs_writer *w, pid_t pid, pid_t tid, u64 time);

#endif /* EBS_SAMPLER_BACKEND_H */
