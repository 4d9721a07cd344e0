// SPDX-License-Identifier: MIT
/*
 * session.c - an in-process counting session (session.h): ebs_record's
 * counting mode with no output, whose counts come back in its result.
 */
#include <errno.h>
#include <stdbool.h>
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

/* Can ev be counted here by backend?  As count_event_probe, without the fallback. */
static int probe(const struct event_spec *ev, enum record_backend backend, bool system_wide,
		 int *why, struct ebs_error *err)
{
	if (backend == BACKEND_KMOD)
		return kmod_probe_count(ev, system_wide, why, err);
	*why = event_spec__probe(ev);
	return 0;
}

static bool refused(int why)
{
	return why == -EACCES || why == -EPERM;
}

int count_event_probe(struct event_spec *ev, enum record_backend backend, bool system_wide,
		      int *why, bool *user_only, struct ebs_error *err)
{
	struct event_spec u = *ev;
	int e = probe(ev, backend, system_wide, why, err);

	if (e)
		return e;
	/*
	 * -a: whoever may count a CPU may count its kernel too, and a
	 * refusal is -a's, which the session's open says with the level it
	 * needs (counting a CPU user space only would miss what the kernel
	 * counts, every context switch among it)
	 */
	if (system_wide && refused(*why))
		*why = 0;
	/* not allowed to count the kernel: user space only, as perf does */
	if (!refused(*why) || ev->exclude_kernel || ev->exclude_user ||
	    strlen(ev->name) + 3 >= sizeof(ev->name))
		return 0;
	u.exclude_kernel = true;
	strcat(u.name, ":u");
	/* when that fails too, its reason is the telling one (no PMU) */
	e = probe(&u, backend, system_wide, why, err);
	if (!e && !*why) {
		*ev = u;
		*user_only = true;
	}
	return e;
}
