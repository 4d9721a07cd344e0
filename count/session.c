// SPDX-License-Identifier: MIT
/*
 * session.c - an in-process counting session (session.h): ebs_record's
 * counting mode with no output, whose counts come back in its result.
 */
#include <errno.h>
#include <string.h>

#include "count/session.h"

int count_session_run(const struct count_session *cs, struct record_result *res,
		      struct ebs_error *err)
{
	struct record_opts ro = {0};

	if (cs->nr_events > EBS_MAX_EVENTS)
		return ebs_error__set(err, EINVAL, "more than %d events", EBS_MAX_EVENTS);
	memcpy(ro.events, cs->events, cs->nr_events * sizeof(*cs->events));
	ro.nr_events = cs->nr_events;
	ro.count_only = true;
	ro.output = NULL; /* no file: the counts in res */
	ro.backend = cs->backend;
	ro.argv = cs->argv;
	ro.pids = cs->pids;
	ro.nr_pids = cs->nr_pids;
	ro.system_wide = cs->system_wide;
	ro.no_fallback = true;
	ro.mmap_pages = 1;
	ro.child_stdin = cs->child_stdin;
	ro.child_stdout = cs->child_stdout;
	ro.child_stderr = cs->child_stderr;
	ro.msg = cs->msg;
	ro.msg_cmd = cs->msg_cmd;
	ro.interval_ms = cs->interval_ms;
	ro.on_interval = cs->on_interval;
	ro.interval_ctx = cs->interval_ctx;
	return ebs_record(&ro, res, err);
}
