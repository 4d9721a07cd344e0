// SPDX-License-Identifier: MIT
/*
 * stat.c - ebs stat's runs (count/stat.h): each run an in-process
 * counting session (count/session.h) of the command, the processes or
 * every CPU, its counts (value, enabled and running time, scaled by
 * count/rule.h) kept per run and summarized over the runs; with
 * --all-events or --backend=kmod a run is several passes, each counting
 * the events its counters hold.  An event this machine cannot open is not
 * counted: its row says why.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count/session.h"
#include "count/stat.h"
#include "util/util.h"

/*
 * Hardware events a run with --all-events: the general-purpose counters
 * of the smallest PMU ebs supports (Intel's architectural PMU version 2 and
 * later have 4 a thread, more without Hyper-Threading; AMD's 4 to 6).
 */
#define HW_PER_RUN 4

/*
 * The session's interval hook: the counts since the last, kept, and printed now
 * with -I unless JSON.  Returns 0: go on.
 */
static int on_tick(void *ctx, u64 ns, const double *totals, unsigned int nr)
{
	struct count_ticker *t = ctx;
	const struct count_stat *so = t->so;
	struct count_interval *iv;
	unsigned int i;

	if (t->oom || ebs_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v), 64)) {
		t->oom = true;
		return 0;
	}
	iv = &t->v[t->n++];
	iv->t = (double)ns * 1e-9;
	for (i = 0; i < nr; i++) {
		iv->counts[i] = totals[i] - t->prev[i];
		t->prev[i] = totals[i];
	}
	if (so->json || !so->interval_ms)
		return 0;
	count_stat_print_interval(t->out, so, iv);
	fflush(t->out);
	return 0;
}

/* The mean of v[i] over the i < n that keep[i] says were kept (at least one is). */
static double kept_mean(const double *v, const unsigned char *keep, size_t n)
{
	double sum = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (keep[i]) {
			sum += v[i];
			k++;
		}
	return k ? sum / (double)k : 0;
}

/*
 * Which run counts each event: all in one, or with --all-events as many
 * hardware events a run as the PMU holds without multiplexing (the
 * software ones in the first), as P5Stat ran one event pair a run; ebs.ko
 * (--backend=kmod) counts one event a run.  Sets
 * each counted event's slot (its index in its run) and so->passes.
 */
static void assign_passes(struct count_stat *so)
{
	unsigned int i, hw = 0, in_pass[EBS_MAX_EVENTS] = {0};

	so->passes = 1;
	for (i = 0; i < so->nr_ev; i++) {
		struct count_stat_event *ev = &so->ev[i];

		ev->slot = -1;
		if (ev->open_err)
			continue;
		if (so->backend == BACKEND_KMOD) /* ebs.ko: one counter a session */
			ev->pass = hw++;
		else
			ev->pass = so->all_events && ev->spec.hardware ? hw++ / HW_PER_RUN : 0;
		if (ev->pass + 1 > so->passes)
			so->passes = ev->pass + 1;
		ev->slot = (int)in_pass[ev->pass]++;
	}
}

/*
 * A stop signal between runs (ebs record catches those that come during
 * one): no more runs.  Caught from the first run to the last, so that
 * Ctrl-C in between neither kills ebs stat without its counts nor, in a
 * background job that started with SIGINT ignored, is lost.  SIGHUP only
 * when it was not ignored (nohup), as record does.
 */
static volatile sig_atomic_t stat_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP};

static void on_stop_signal(int sig)
{
	if (!stat_signal)
		stat_signal = sig;
}

static void catch_stop_signals(struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (stop_signals[i] != SIGHUP || old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

static void restore_stop_signals(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &old[i], NULL);
}

/* One line for a file stat writes (-o, --plot) that failed: 1, stat's status then. */
static int output_error(const struct count_stat *so, const char *opt, const struct ebs_error *err)
{
	ebs_warn(so->warn, so->warn_ctx, err->code, "%s %s", opt, err->msg);
	return 1;
}

int count_stat_run(struct count_stat *so)
{
	struct count_session cs = {0};
	struct event_spec evs[EBS_MAX_EVENTS];
	struct ebs_summary elapsed = {0};
	struct count_ticker tick = {0};
	struct ebs_out plot = {0}, output = {0};
	double *wall = NULL;
	unsigned char *keep = NULL;
	struct ebs_error err = {0};
	unsigned int i, nr = 0;
	unsigned long r, done = 0;
	bool stopped = false; /* ebs got a stop signal (Ctrl-C): no more runs */
	struct sigaction old_sa[sizeof(stop_signals) / sizeof(stop_signals[0])];
	int rc = -1, status = 0, e = 0, hold[EBS_MAX_EVENTS];
	FILE *out = stderr;

	/* what this machine can count: the others are rows that say why not */
	for (i = 0; i < so->nr_ev; i++) {
		struct event_spec *sp = &so->ev[i].spec;

		if (count_event_probe(sp, so->backend, so->system_wide, &so->ev[i].open_err,
				      &so->user_only, &err))
			goto unusable;
		if (!so->ev[i].open_err)
			nr++;
	}
	assign_passes(so);
	if (!nr) {
		ebs_warn(so->warn, so->warn_ctx, EBS_E_OK,
			 "none of the events can be counted here (%s: %s)", so->ev[0].spec.name,
			 event_open_reason(so->ev[0].open_err));
		return 2;
	}
	if (so->passes > 1 && so->backend == BACKEND_KMOD) {
		if (so->nr_pids || so->system_wide || so->tick_ms) {
			ebs_warn(so->warn, so->warn_ctx, EBS_E_OK,
				 "--backend=kmod counts one event a run (ebs.ko has one "
				 "counter a session), and -p, -a, -I and --plot are one run: give "
				 "one event with -e (%u could be counted)",
				 nr);
			return 2;
		}
		ebs_warn(so->warn, so->warn_ctx, EBS_E_OK,
			 "--backend=kmod counts one event a run (ebs.ko has one counter "
			 "a session): %u runs of the command%s",
			 so->passes, so->runs > 1 ? " for each repeat" : "");
	}
	/* the files, aside their names until they are whole: refused now if they cannot be */
	if (so->output && ebs_out_open(&output, so->output, NULL, &err)) {
		return output_error(so, "-o", &err);
	}
	if (so->output)
		out = output.f;
	if (so->plot && ebs_out_open(&plot, so->plot, NULL, &err)) {
		if (so->output)
			ebs_out_close(&output, false, NULL);
		return output_error(so, "--plot", &err);
	}
	tick.so = so;
	tick.out = out;
	if (so->interval_ms && so->sep && !so->json)
		fprintf(out, "time_s%scount%sevent\n", so->sep, so->sep);
	wall = calloc(so->runs, sizeof(*wall));
	keep = calloc(so->runs, 1);
	for (i = 0; i < so->nr_ev && wall; i++)
		if (so->ev[i].slot >= 0 && !(so->ev[i].values = calloc(so->runs, sizeof(double))))
			break;
	if (!wall || !keep || i < so->nr_ev) {
		ebs_warn(so->warn, so->warn_ctx, EBS_E_NOMEM, "out of memory");
		rc = 1;
		goto out;
	}
	cs.events = evs;
	cs.backend = so->backend;
	cs.argv = so->argv;
	cs.pids = so->pids;
	cs.nr_pids = so->nr_pids;
	cs.system_wide = so->system_wide;
	cs.interval_ms = so->tick_ms;
	cs.on_interval = on_tick;
	cs.interval_ctx = &tick;
	/*
	 * The software events' static keys held on from the first run to the
	 * last (sampler.h's event_spec__hold): not rewritten in the kernel
	 * twice a run.  ebs.ko's counters are its own.
	 */
	for (i = 0; i < so->nr_ev; i++)
		hold[i] = so->backend == BACKEND_PERF && so->ev[i].slot >= 0
				  ? event_spec__hold(&so->ev[i].spec)
				  : -1;
	stat_signal = 0;
	catch_stop_signals(old_sa);
	/* --all-events: one warm-up run first, its counts not kept */
	for (r = 0; r < so->runs && rc < 0 && !stat_signal; r++) {
		unsigned int p;

		for (p = so->all_events && !r ? 0 : 1; p <= so->passes && rc < 0; p++) {
			unsigned int pass = p ? p - 1 : 0;
			struct record_result res;

			if (stat_signal) { /* between the passes of a run: it is cut short */
				stopped = true;
				break;
			}
			cs.nr_events = 0;
			for (i = 0; i < so->nr_ev; i++)
				if (so->ev[i].slot >= 0 && so->ev[i].pass == pass)
					evs[cs.nr_events++] = so->ev[i].spec;
			e = count_session_run(&cs, &res, &err);
			if (e) {
				ebs_warn(so->warn, so->warn_ctx, err.code, "%s", err.msg);
				/* a command that cannot run; -a or -p not allowed; -p gone */
				rc = res.exec_failed || err.err == -ESRCH ||
						     ((so->system_wide || so->nr_pids) &&
						      (err.err == -EACCES || err.err == -EPERM))
					     ? 2
					     : 1;
				break;
			}
			if (!res.have_counts) {
				ebs_warn(so->warn, so->warn_ctx, EBS_E_OK,
					 "the counters could not be read");
				rc = 1;
				break;
			}
			status = res.exit_status;
			if (res.stop_signal) {
				stopped = true;
				if (!stat_signal)
					stat_signal = res.stop_signal;
			}
			if (!p && !stopped)
				continue; /* the warm-up */
			if (pass == 0)	  /* a command's time from exec, else the counting's */
				wall[r] = (double)(so->argv && !so->system_wide ? res.wall_ns
										: res.collect_ns) *
					  1e-9;
			for (i = 0; i < so->nr_ev; i++) {
				struct count_stat_event *ev = &so->ev[i];
				unsigned int k = (unsigned int)ev->slot;

				if (ev->slot < 0 || ev->pass != pass)
					continue;
				ev->values[r] = res.totals[k].scaled;
				ev->scaled |= res.totals[k].multiplexed;
				ev->enabled += (double)res.totals[k].enabled;
				ev->running += (double)res.totals[k].running;
			}
			/* a command stopped by a signal (Ctrl-C): the counts so far, no more runs
			 */
			if (status > 128 || stopped)
				break;
		}
		if (rc >= 0)
			break;
		/*
		 * ebs stopped (Ctrl-C) in a run after whole ones: that run is
		 * cut short, and its counts would bend the statistics
		 */
		if (stopped && done) {
			ebs_warn(so->warn, so->warn_ctx, EBS_E_OK,
				 "run %lu of %lu was cut short by a signal: its counts are "
				 "left out, the %lu whole run%s follow",
				 r + 1, so->runs, done, done == 1 ? "" : "s");
			break;
		}
		done++;
		if (status > 128 || stopped)
			break;
	}
	restore_stop_signals(old_sa);
	for (i = 0; i < so->nr_ev; i++)
		if (hold[i] >= 0)
			close(hold[i]);
	/*
	 * A command's runs stopped (between runs, or in one the command
	 * finished): the status of a stop.  Without a command (-p, -a alone)
	 * Ctrl-C is how counting ends: 0.
	 */
	if (stat_signal && so->argv && status <= 128)
		status = 128 + stat_signal;
	if (!done)
		goto out;
	so->runs = done;
	if (tick.oom) {
		ebs_warn(so->warn, so->warn_ctx, EBS_E_NOMEM, "out of memory");
		rc = 1;
		goto out;
	}
	/* every run's time; a clock's CPUs utilized is over the runs its sum kept */
	ebs_summarize(wall, done, false, &elapsed, NULL);
	for (i = 0; i < so->nr_ev; i++) {
		struct count_stat_event *ev = &so->ev[i];

		if (ev->slot < 0)
			continue;
		if (ebs_summarize(ev->values, done, true, &ev->sum, keep)) {
			ebs_warn(so->warn, so->warn_ctx, EBS_E_NOMEM, "out of memory");
			rc = 1;
			goto out;
		}
		if (event_spec__is_clock(&ev->spec) && ev->sum.culled)
			ev->wall_s = kept_mean(wall, keep, done);
	}
	if (so->json)
		count_stat_print_json(out, so, &elapsed, &tick);
	else if (so->sep && !so->interval_ms)
		count_stat_print_sep(out, so);
	else if (!so->sep) /* with -x and -I, the intervals are the table */
		count_stat_print_text(out, so, &elapsed);
	if (so->plot) {
		e = count_stat_plot(plot.f, so, &tick);
		if (!e) {
			e = ebs_out_close(&plot, true, &err);
		} else {
			ebs_out_close(&plot, false, NULL);
			ebs_error__output(&err, -e, so->plot, "write failed");
		}
		if (e == -ENOMEM)
			ebs_warn(so->warn, so->warn_ctx, EBS_E_NOMEM, "--plot %s: out of memory",
				 so->plot);
		else if (e)
			output_error(so, "--plot", &err);
		so->plot = NULL; /* closed */
		if (e)
			rc = 1;
	}
	if (rc < 0)
		rc = status;
out:
	if (so->plot)
		ebs_out_close(&plot, false, NULL);
	/* what the command's runs gave is the file, whatever their status */
	if (so->output && ebs_out_close(&output, true, &err)) {
		output_error(so, "-o", &err);
		if (rc <= 0)
			rc = 1;
	}
	free(tick.v);
	free(wall);
	free(keep);
	for (i = 0; i < so->nr_ev; i++)
		free(so->ev[i].values);
	return rc < 0 ? status : rc;

unusable:
	ebs_warn(so->warn, so->warn_ctx, err.code, "%s", err.msg);
	return 1;
}
