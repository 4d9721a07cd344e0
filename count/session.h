/* SPDX-License-Identifier: MIT */
/*
 * session.h - an in-process counting session: open the counters of some
 * events on a command, processes or every CPU (through the sampler's
 * backends, perf or ebs.ko), run until the targets end, and hand back each
 * event's count, scaled by count/rule.h, with no file written or read.
 * ebs stat and ebs monitor count through it; calibrate's counting passes
 * run the same session (ebs_record without an output: sampler/ sits below
 * count/).
 */
#ifndef EBS_COUNT_SESSION_H
#define EBS_COUNT_SESSION_H

#include "count/rule.h"
#include "sampler/sampler.h"

struct count_session {
	const struct event_spec *events;
	unsigned int nr_events;
	enum record_backend backend;
	/* the targets: a command (argv), processes (pids), every CPU (with or without argv) */
	char *const *argv;
	pid_t *pids;
	unsigned int nr_pids;
	bool system_wide;
	/* the command's standard streams, when > 0 */
	int child_stdin, child_stdout, child_stderr;
	/* notices ("ebs CMD: ..."), NULL: none */
	FILE *msg;
	const char *msg_cmd;
	/*
	 * Every interval_ms, and once at the end: the totals so far, scaled
	 * (record_opts.on_interval; nonzero from it stops the session as a
	 * SIGINT would).  0: never.
	 */
	unsigned int interval_ms;
	int (*on_interval)(void *ctx, u64 ns, const double *totals, unsigned int nr);
	void *interval_ctx;
};

/*
 * Count: 0 with res->totals[i] each event's count (res->have_counts), the
 * command's status and times in res; or -errno with err filled (as
 * ebs_record: res->exec_failed when the command could not be run).
 */
int count_session_run(const struct count_session *cs, struct record_result *res,
		      struct ebs_error *err);

/*
 * Can ev be counted here, by backend, on one target or every CPU?  0 with
 * *why 0 or the event's -errno (event_open_reason says it); -errno with err
 * filled when the backend cannot be used at all (kmod: no module, no
 * permission, an older ABI).  An event whose kernel part this user may
 * not count becomes user space only (":u" added to its name, *user_only
 * set), as perf does; with system_wide such a refusal is left to the
 * session's open (*why 0), which says the level it needs.  ebs stat and
 * ebs monitor probe their events with it.
 */
int count_event_probe(struct event_spec *ev, enum record_backend backend, bool system_wide,
		      int *why, bool *user_only, struct ebs_error *err);

#endif /* EBS_COUNT_SESSION_H */
