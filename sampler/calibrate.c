// SPDX-License-Identifier: MIT
/*
 * calibrate.c - the runs behind ebs calibrate (see calibrate.h).
 *
 * 1. A counting pass: the events counted, not sampled (ebs.ko cannot count:
 *    there, a coarse sampled run whose overflows x N estimate the count).
 * 2. The cost of a sample: runs of the command (or of ebs's own loop) at
 *    about 1000 and 4000 samples a second, fitted with the counting pass and
 *    another unsampled run after them (drift shows as spread, not as cost):
 *    time = base + samples x cost.
 * 3. N solved per event (calibrate-model.c).
 * 4. A verifying run with every event at its N; a target missed by more
 *    than 20% (lost or throttled samples count) adjusts N and runs again,
 *    up to --retries times.
 *
 * Every run is an ordinary recording into a private directory, read back
 * through data/; the command's standard output goes to /dev/null (its
 * standard error stays).  Times are the command's CPU time, where the
 * interrupts' cost is charged, unless the kernel accounts interrupt time
 * apart (then wall time).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "sampler/calibrate.h"

#define MISS		   0.20	       /* a target missed by more than this is a miss */
#define MIN_SECONDS	   0.01	       /* a command must run at least this long (CPU) */
#define KMOD_COUNT_CLOCK_N 10000000ull /* ebs.ko's counting pass: 100 samples/s of a clock */
#define KMOD_COUNT_N	   2000000ull  /* ... and of another event */

struct cal {
	const struct calibrate_opts *o;
	struct calibrate_result *r;
	struct event_spec ev[EBS_MAX_EVENTS]; /* as used (after a fallback) */
	unsigned int nev;
	char dir[4096];
	struct ebs_outfile keep; /* -o's file (util/output.c), opened before any run */
	int devnull;
	unsigned int files;
	bool wall;
};

static void note(struct calibrate_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct calibrate_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_notes >= CALIB_MAX_NOTES)
		return;
	va_start(ap, fmt);
	ebs_vformat_line(r->notes[r->nr_notes++], sizeof(r->notes[0]), fmt, ap); /* one line */
	va_end(ap);
}

static void progress(const struct cal *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct cal *c, const char *fmt, ...)
{
	char *line;
	va_list ap;
	int n;

	if (!c->o->progress)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	ebs_warn(c->o->progress, c->o->progress_ctx, EBS_E_OK, "%s", line);
	free(line);
}

/*
 * Does the kernel take interrupt time out of the tasks' CPU time
 * (CONFIG_IRQ_TIME_ACCOUNTING)?  Then /proc/stat's irq column grows; with
 * tick-based accounting it stays 0 and a task's CPU time includes the
 * interrupts that hit it.
 */
static bool irq_time_accounted(void)
{
	char *stat = NULL;
	unsigned long long v[6] = {0};
	bool yes = false;

	if (ebs_read_file("/proc/stat", &stat) > 0 &&
	    sscanf(stat, "cpu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5]) == 6)
		yes = v[5] > 0;
	free(stat);
	return yes;
}

static const char *cmd_name(const struct cal *c)
{
	return c->o->rec.argv[0];
}

/* The next file name in the private directory. */
static void next_file(struct cal *c, char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%s/%02u-%s.data", c->dir, c->files++, what);
}

struct run {
	struct record_result res;
	double seconds;		       /* by the time basis */
	double cpu;		       /* CPU seconds */
	double ev_cpu[EBS_MAX_EVENTS]; /* CPU seconds as each event's counters saw them */
	u64 samples[EBS_MAX_EVENTS], lost[EBS_MAX_EVENTS], throttled[EBS_MAX_EVENTS];
	u64 period_sum[EBS_MAX_EVENTS];
};

/*
 * The command's own CPU time in seconds.  rusage's (out->cpu) also holds
 * ebs's code in the child between fork and exec: little, but 10 ms and
 * more in a sanitizer build under load, enough to pass a command that
 * exits at once.  perf's counters start at exec and, being the task's,
 * run while it runs: a counter that ran all along (none multiplexed)
 * gives the time from exec.  ebs.ko's counters are not read this way.
 */
static double command_cpu(const struct cal *c, const struct run *out)
{
	u64 own = 0;
	unsigned int i;

	if (c->o->rec.backend != BACKEND_PERF || out->res.multiplexed)
		return out->cpu;
	for (i = 0; i < EBS_MAX_EVENTS; i++)
		if (out->res.running_ns[i] > own)
			own = out->res.running_ns[i];
	return own && (double)own * 1e-9 < out->cpu ? (double)own * 1e-9 : out->cpu;
}

/*
 * One recording of argv into path: events evs[0..n), counted only when
 * periods is NULL.  A command that cannot run, fails or runs too briefly
 * is an error (-EINVAL) in one line.
 */
static int run(struct cal *c, char *const *argv, const struct event_spec *evs, unsigned int n,
	       const u64 *periods, const struct ebs_rec_calibration *calib, const char *path,
	       bool say_fallback, struct run *out, struct ebs_error *err)
{
	struct record_opts ro = c->o->rec;
	struct ebs_data *d;
	unsigned int i;
	double own;
	int e;

	memset(out, 0, sizeof(*out));
	memcpy(ro.events, evs, n * sizeof(*evs));
	ro.nr_events = n;
	/* a counting pass writes no file: its counts come back in out->res (count/session.h) */
	ro.output = periods ? path : NULL;
	ro.argv = argv;
	ro.pids = NULL;
	ro.nr_pids = 0;
	ro.system_wide = false;
	ro.child_stdout = c->devnull;
	ro.notice = say_fallback ? c->o->rec.notice : NULL;
	ro.freq = 0;
	ro.period = 0;
	memset(ro.periods, 0, sizeof(ro.periods));
	ro.count_only = !periods;
	if (periods)
		memcpy(ro.periods, periods, n * sizeof(*periods));
	ro.calib = calib;
	ro.nr_calib = calib ? n : 0;
	c->r->runs++;
	e = ebs_record(&ro, &out->res, err);
	if (e) {
		if (out->res.exec_failed)
			return -EINVAL; /* err says "cannot run 'CMD': ..." */
		return e;
	}
	if (out->res.exit_status)
		return ebs_error__set(err, EINVAL,
				      "'%s' exited with status %d: calibration runs the command "
				      "several times and needs it to succeed each time",
				      argv[0], out->res.exit_status);
	out->cpu = (double)out->res.cpu_ns * 1e-9;
	out->seconds = c->wall ? (double)out->res.wall_ns * 1e-9 : out->cpu;
	own = command_cpu(c, out);
	if (own < MIN_SECONDS)
		return ebs_error__set(err, EINVAL,
				      "'%s' used %.1f ms of CPU time (in %.1f ms): too little to "
				      "sample; calibration needs at least %.0f ms",
				      argv[0], own * 1e3, (double)out->res.wall_ns * 1e-6,
				      MIN_SECONDS * 1e3);
	/* rates per CPU-second on the counters' own clock where known (a
	 * clock event then counts exactly 1e9 a second), else rusage's */
	for (i = 0; i < n; i++)
		out->ev_cpu[i] =
			out->res.running_ns[i] ? (double)out->res.running_ns[i] * 1e-9 : out->cpu;
	if (!periods)
		return 0; /* no samples */
	d = ebs_data__open(path, err);
	if (!d)
		return err->err;
	for (i = 0; i < n && i < ebs_data__nr_events(d); i++) {
		const struct ebs_event_counts *k = ebs_data__counts(d, i);

		if (k) {
			out->samples[i] = k->samples;
			out->lost[i] = k->lost;
			out->throttled[i] = k->throttled;
			out->period_sum[i] = k->period_sum;
		}
	}
	ebs_data__close(d);
	return 0;
}

/* Take the counting pass's fallbacks (cycles -> cpu-clock) for every later run. */
static void take_fallbacks(struct cal *c, const struct record_result *res)
{
	unsigned int i;

	for (i = 0; i < c->nev; i++) {
		if (res->fell_back[i])
			c->ev[i] = res->used[i];
		ebs_strlcpy(c->r->ev[i].name, res->used[i].name, sizeof(c->r->ev[i].name));
	}
}

/*
 * The counting pass of argv: events[i] what each event counted, cpu[i] the
 * CPU seconds its counters ran (rusage's without them), *seconds the time.  With ebs.ko, which
 * samples only: overflows x N.
 */
static int count_pass(struct cal *c, char *const *argv, const char *what, bool first,
		      double *events, double *cpu, double *seconds, double *sampled,
		      struct ebs_error *err)
{
	char path[4200];
	struct run rn;
	unsigned int i;
	int e;

	next_file(c, path, sizeof(path), what);
	if (c->o->rec.backend == BACKEND_KMOD) {
		u64 n = event_spec__is_clock(&c->ev[0]) ? KMOD_COUNT_CLOCK_N : KMOD_COUNT_N;

		e = run(c, argv, c->ev, 1, &n, NULL, path, first, &rn, err);
		if (e)
			return e;
		if (first)
			take_fallbacks(c, &rn.res);
		/* the used event may differ after a fallback: the N given was for it */
		events[0] = (double)(rn.samples[0] + rn.lost[0]) * (double)n;
		*sampled = (double)(rn.samples[0] + rn.lost[0]);
		if (first)
			note(c->r,
			     "%s: ebs.ko samples and does not count: the count is its "
			     "overflows at N = %llu (%llu), within one N",
			     c->r->ev[0].name, (unsigned long long)n,
			     (unsigned long long)(rn.samples[0] + rn.lost[0]));
	} else {
		e = run(c, argv, c->ev, c->nev, NULL, NULL, path, first, &rn, err);
		if (e)
			return e;
		if (first)
			take_fallbacks(c, &rn.res);
		if (!rn.res.have_counts)
			return ebs_error__set(err, EIO, "%s: the counters could not be read", what);
		for (i = 0; i < c->nev; i++)
			events[i] = (double)rn.res.counted[i];
		*sampled = 0;
		if (rn.res.multiplexed && first) {
			c->r->multiplexed = true;
			note(c->r, "the counting pass was multiplexed: the counts are scaled "
				   "by the time each counter ran");
		}
	}
	for (i = 0; i < c->nev; i++)
		cpu[i] = rn.ev_cpu[i];
	*seconds = rn.seconds;
	progress(c, "%s: %s counted, %.3f s of %s", what, argv[0], rn.seconds,
		 c->wall ? "wall time" : "CPU time");
	return 0;
}

/* The samples (delivered or lost: either cost an interrupt) of event 0 of a run. */
static double run_samples(const struct run *rn, unsigned int i)
{
	return (double)(rn->samples[i] + rn->lost[i]);
}

/*
 * The cost of a sample of event i: the unsampled point, then runs at about
 * 1000 and 4000 samples a second (below the kernel's limit).  The first
 * sampled run of the command is the pilot for --focus.
 */
static int measure_cost(struct cal *c, unsigned int i, char *const *argv, double events, double cpu,
			double base, double base_samples, struct ebs_error *err)
{
	static const double rates[] = {1000, 4000};
	struct calibrate_event *ce = &c->r->ev[i];
	char *val = NULL;
	double max_rate = 100000, eps = events / cpu;
	unsigned int k;
	int e;

	if (ebs_read_file("/proc/sys/kernel/perf_event_max_sample_rate", &val) > 0 && atol(val) > 0)
		max_rate = (double)atol(val);
	free(val);
	ce->points[0].samples = base_samples;
	ce->points[0].seconds = base;
	ce->nr_points = 1;
	for (k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
		double rate = rates[k] < max_rate / 2 ? rates[k] : max_rate / 2;
		u64 n = eps / rate > 1 ? (u64)(eps / rate) : 1;
		char path[4200], what[96];
		struct run rn;

		snprintf(what, sizeof(what), "cost-%u-%u", i, k);
		next_file(c, path, sizeof(path), what);
		e = run(c, argv, &c->ev[i], 1, &n, NULL, path, false, &rn, err);
		if (e)
			return e;
		ce->points[ce->nr_points].samples = run_samples(&rn, 0);
		ce->points[ce->nr_points].seconds = rn.seconds;
		ce->nr_points++;
		progress(c, "cost of %s: N = %llu, %.0f samples, %.3f s", ce->name,
			 (unsigned long long)n, run_samples(&rn, 0), rn.seconds);
		if (k == 0 && c->o->focus && !c->o->probe_loop) {
			e = c->o->focus_fn(c->o->focus_ctx, path, 0, &ce->focus_matched,
					   &ce->focus_total, err);
			if (e)
				return e;
		}
	}
	/* the unsampled point again, last: drift shows as spread, not as cost */
	{
		double ev2[EBS_MAX_EVENTS], cpu2[EBS_MAX_EVENTS], sec2, smp2;

		e = count_pass(c, argv, "base", false, ev2, cpu2, &sec2, &smp2, err);
		if (e)
			return e;
		ce->points[ce->nr_points].samples = smp2;
		ce->points[ce->nr_points].seconds = sec2;
		ce->nr_points++;
	}
	e = calib_fit(ce->points, ce->nr_points, &ce->fit);
	if (e)
		return ebs_error__set(err, EINVAL,
				      "%s: every cost run took the same number of "
				      "samples (%.0f): the cost cannot be fitted",
				      ce->name, ce->points[1].samples);
	ce->cost = calib_cost_used(&ce->fit, &ce->cost_measured);
	if (!ce->cost_measured) /* not above the noise: bounded instead */
		note(c->r,
		     "%s: the cost of a sample is not measurable above the noise (%.1f +- "
		     "%.1f us, the 95%% interval of a fit to %u runs); the overhead is bounded "
		     "with %.1f us, %s",
		     ce->name, ce->fit.cost * 1e6, ce->fit.cost_ci * 1e6, ce->fit.n, ce->cost * 1e6,
		     ce->fit.cost > 0 ? "the interval's upper end"
				      : "the interval's half-width: the least cost these runs "
					"could tell from none");
	return 0;
}

/* The pilot for --focus with the loop as the cost probe: a run at --rate. */
static int pilot(struct cal *c, unsigned int i, struct ebs_error *err)
{
	struct calibrate_event *ce = &c->r->ev[i];
	u64 n = calib_round_up((u64)fmax(1, ce->events_per_sec / c->o->rate));
	char path[4200];
	struct run rn;
	int e;

	next_file(c, path, sizeof(path), "pilot");
	e = run(c, c->o->rec.argv, &c->ev[i], 1, &n, NULL, path, false, &rn, err);
	if (!e)
		e = c->o->focus_fn(c->o->focus_ctx, path, 0, &ce->focus_matched, &ce->focus_total,
				   err);
	return e;
}

/* The solution's expectations at n (for -c N and for retries). */
static void solution_at(const struct calib_input *in, u64 n, struct calib_solution *s)
{
	calib_solve(in, s); /* for the bound it would have had */
	calib_expect(in, n, s);
}

static void input_of(const struct cal *c, unsigned int i, struct calib_input *in)
{
	const struct calibrate_event *ce = &c->r->ev[i];

	memset(in, 0, sizeof(*in));
	in->events = ce->events;
	in->seconds = ce->events / ce->events_per_sec; /* CPU seconds */
	in->share = ce->share;
	in->cost = ce->cost;
	in->rate = c->o->rate;
	in->budget = c->o->overhead / c->nev;
	in->min_samples = (double)c->o->min_samples;
	in->exact = c->o->exact;
}

/* Say what the targets cost each other when min-samples cannot be had. */
static void conflict_note(struct cal *c, unsigned int i)
{
	const struct calibrate_event *ce = &c->r->ev[i];
	const struct calib_solution *s = &ce->sol;
	double cpu = ce->events / ce->events_per_sec, need_rate = s->rate * s->longer;
	const char *where = c->o->focus ? " in the focus" : "";

	note(c->r,
	     "%s: %llu samples%s need %.1f s of CPU time at %.0f samples/s, and the run takes "
	     "%.2f s: kept the %s (%.0f/s%s), because more interrupts a second would distort "
	     "the program more than the extra samples sharpen the profile. Run it %.1fx longer "
	     "for %llu samples%s (or sample %.0f/s: %.0f%% overhead), or accept %.0f: a function "
	     "holding 10%% is then known to +-%.1f points, one holding 1%% to +-%.1f",
	     ce->name, (unsigned long long)c->o->min_samples, where,
	     (double)c->o->min_samples / (s->rate * ce->share), s->rate, cpu,
	     s->bound == CALIB_BY_OVERHEAD ? "overhead budget" : "rate cap", s->rate,
	     s->bound == CALIB_BY_OVERHEAD ? ", the rate the budget allows" : "", s->longer,
	     (unsigned long long)c->o->min_samples, where, need_rate, 100 * need_rate * ce->cost,
	     s->focus_samples, 100 * calib_halfwidth(0.10, s->samples),
	     100 * calib_halfwidth(0.01, s->samples));
}

void calibrate_record(const struct calibrate_opts *o, const struct calibrate_result *r,
		      unsigned int i, struct ebs_rec_calibration *out)
{
	const struct calibrate_event *ce = &r->ev[i];

	memset(out, 0, sizeof(*out));
	out->event = (u16)i;
	out->rate_hz = o->rate >= 4e9 ? 0xffffffffu : (u32)(o->rate + 0.5);
	out->sample_after = ce->n;
	out->events_per_sec = (u64)(ce->events_per_sec + 0.5);
	out->target_samples = o->min_samples;
	out->overhead_ppm = ce->overhead > 0 ? (u64)(ce->overhead * 1e6 + 0.5) : 0;
	out->budget_ppm = (u64)(o->overhead * 1e6 + 0.5);
}

/* A device or FIFO to keep the run in: the run's bytes written into it. */
static int copy_into(const char *path, int out, const char *dst, struct ebs_error *err)
{
	char buf[65536];
	ssize_t n = 0, w;
	int in, e = 0;

	in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return ebs_error__set(err, errno, "%s: %s", path, strerror(errno));
	while (!e && (n = read(in, buf, sizeof(buf))) > 0)
		for (w = 0; !e && w < n;) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k > 0)
				w += k;
			else if (k < 0 && errno != EINTR)
				e = ebs_error__output(err, errno, dst, "write failed");
		}
	if (!e && n < 0)
		e = ebs_error__set(err, errno, "%s: %s", path, strerror(errno));
	close(in);
	return e;
}

/*
 * Move the kept verifying run (path, in the runs' directory beside the
 * name) into -o's file, which keeps what the name held as .old; a device
 * or FIFO gets a copy.  The failures are the output's (err->output): the
 * command exits with 1.
 */
static int keep_file(struct cal *c, const char *path, struct ebs_error *err)
{
	struct ebs_outfile *k = &c->keep;
	int e;

	if (k->in_place) {
		e = copy_into(path, k->fd, c->o->keep, err);
		if (!e)
			unlink(path);
	} else if (renameat(AT_FDCWD, path, k->dfd, k->tmp) < 0) {
		e = ebs_error__output(err, errno, c->o->keep, "cannot write");
	} else {
		e = 0;
	}
	if (!e)
		return ebs_outfile__commit(k, err);
	ebs_outfile__abort(k);
	return e;
}

/*
 * One verifying run at the events' N; fills the achieved figures and
 * returns whether every target was met within MISS.  why gets the misses.
 */
static int verify(struct cal *c, const char *path, bool *met, char *why, size_t why_len,
		  struct run *rn, struct ebs_error *err)
{
	struct calibrate_result *r = c->r;
	struct ebs_rec_calibration cr[EBS_MAX_EVENTS];
	u64 periods[EBS_MAX_EVENTS];
	double model = 0, noise = 0;
	unsigned int i;
	size_t n = 0;
	int e;

	for (i = 0; i < c->nev; i++) {
		periods[i] = r->ev[i].n;
		calibrate_record(c->o, r, i, &cr[i]);
		model += r->ev[i].sol.overhead;
		if (r->ev[i].fit.n > 2)
			noise = fmax(noise, r->ev[i].fit.rms * sqrt((double)r->ev[i].fit.n /
								    (r->ev[i].fit.n - 2)));
	}
	e = run(c, c->o->rec.argv, c->ev, c->nev, periods, c->o->keep ? cr : NULL, path, false, rn,
		err);
	if (e)
		return e;
	r->verify_seconds = rn->seconds;
	r->overhead = (rn->seconds - r->base_seconds) / r->base_seconds;
	/* two runs' noise: the residual spread of the cost fits */
	r->overhead_se = noise * sqrt(2) / r->base_seconds;
	*met = true;
	why[0] = '\0';
#define MISSED(...)                                                                                \
	do {                                                                                       \
		*met = false;                                                                      \
		if (n < why_len)                                                                   \
			n += (size_t)snprintf(why + n, why_len - n, __VA_ARGS__);                  \
	} while (0)
	for (i = 0; i < c->nev; i++) {
		struct calibrate_event *ce = &r->ev[i];
		double got = (double)rn->samples[i], want = ce->sol.samples;

		ce->achieved_samples = rn->samples[i];
		ce->lost = rn->lost[i];
		ce->throttled = rn->throttled[i];
		ce->achieved_rate = got / rn->ev_cpu[i];
		ce->overhead =
			model > 0 ? r->overhead * ce->sol.overhead / model : r->overhead / c->nev;
		if (ce->lost || ce->throttled)
			MISSED("%s%s: %llu samples lost, throttled %llu times", n ? "; " : "",
			       ce->name, (unsigned long long)ce->lost,
			       (unsigned long long)ce->throttled);
		if (ce->achieved_rate > (1 + MISS) * c->o->rate)
			MISSED("%s%s: %.0f samples/s, above --rate %.0f", n ? "; " : "", ce->name,
			       ce->achieved_rate, c->o->rate);
		/* the rate is what N sets; the count also follows the run's length */
		if (fabs(ce->achieved_rate - ce->sol.rate) > MISS * ce->sol.rate)
			MISSED("%s%s: %.0f samples/s, %.0f expected (%.0f samples, %.0f expected)",
			       n ? "; " : "", ce->name, ce->achieved_rate, ce->sol.rate, got, want);
		if (!c->o->focus && !ce->sol.short_run &&
		    got < (1 - MISS) * (double)c->o->min_samples)
			MISSED("%s%s: %.0f samples, --min-samples %llu", n ? "; " : "", ce->name,
			       got, (unsigned long long)c->o->min_samples);
		if (c->o->focus) {
			e = c->o->focus_fn(c->o->focus_ctx, path, i, &ce->focus_samples,
					   &ce->focus_total, err);
			if (e)
				return e;
			if (!ce->sol.short_run &&
			    (double)ce->focus_samples < (1 - MISS) * (double)c->o->min_samples)
				MISSED("%s%s: %llu samples in the focus, %llu wanted",
				       n ? "; " : "", ce->name,
				       (unsigned long long)ce->focus_samples,
				       (unsigned long long)c->o->min_samples);
		}
	}
	if (r->overhead - 2 * r->overhead_se > (1 + MISS) * c->o->overhead)
		MISSED("%soverhead %.1f%% (+-%.1f), above the %.1f%% budget", n ? "; " : "",
		       100 * r->overhead, 200 * r->overhead_se, 100 * c->o->overhead);
#undef MISSED
	return 0;
}

/*
 * A new N for event i after a missed verifying run rn: solved again with
 * the event rate the run measured and caps lowered by what it showed.
 * Unchanged when the event met its targets.
 */
static u64 adjust(struct cal *c, unsigned int i, const struct run *rn)
{
	struct calibrate_event *ce = &c->r->ev[i];
	struct calib_input in;
	struct calib_solution s;
	double got = (double)rn->samples[i], eps;
	/* a cap broken: fewer samples, whatever the new solution says */
	bool broke = ce->lost || ce->throttled || ce->achieved_rate > (1 + MISS) * c->o->rate ||
		     (c->r->overhead - 2 * c->r->overhead_se > (1 + MISS) * c->o->overhead &&
		      ce->overhead > 0);
	/* within the caps but faster than expected: the event rate was misjudged */
	bool fewer = broke || ce->achieved_rate > (1 + MISS) * ce->sol.rate;
	bool more =
		!fewer && (ce->achieved_rate < (1 - MISS) * ce->sol.rate ||
			   (c->o->focus && !ce->sol.short_run &&
			    (double)ce->focus_samples < (1 - MISS) * (double)c->o->min_samples));
	u64 n = ce->n;

	if (!fewer && !more)
		return n;
	input_of(c, i, &in);
	/* the event rate this run saw: the samples stand for samples x N events */
	eps = (got + (double)ce->lost) * (double)n / rn->ev_cpu[i];
	if (eps > 0)
		in.events = eps * in.seconds; /* the same run time, at the rate seen */
	if (ce->throttled)
		in.rate = fmin(in.rate, (1 - MISS) * ce->achieved_rate);
	if (c->r->overhead > c->o->overhead && ce->overhead > 0 && ce->achieved_rate > 0)
		in.rate = fmin(in.rate, ce->achieved_rate * c->o->overhead / c->r->overhead);
	/*
	 * A broken cap takes fewer samples; a misjudged rate alone takes the
	 * N the caps allow at the rate seen, which may be the same N (the
	 * caller then ends the retries, saying so).
	 */
	calib_solve(&in, &s);
	if (broke && s.n <= n)
		s.n = c->o->exact ? n + n / 4 + 1 : calib_step_up(n);
	if (s.n != n && eps > 0) {
		ce->events = in.events;
		ce->events_per_sec = eps;
	}
	return s.n;
}

/* Remove the private directory and the runs left in it. */
static void remove_dir(struct cal *c)
{
	struct dirent *de;
	DIR *dir;

	if (!c->dir[0])
		return;
	dir = opendir(c->dir);
	if (dir) {
		while ((de = readdir(dir)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(dir), de->d_name, 0);
		closedir(dir);
	}
	rmdir(c->dir);
}

/*
 * The directory of the runs: beside -o's name (the kept run is renamed
 * there), opened first so that a name that cannot be written is said
 * before any run; else in $TMPDIR.
 */
static int make_dir(struct cal *c, struct ebs_error *err)
{
	const char *base = getenv("TMPDIR");
	char *slash;

	if (c->o->keep && ebs_outfile__open(&c->keep, c->o->keep, 0600, EBS_OUT_KEEP_OLD, err))
		return err->err;
	if (c->o->keep && !c->keep.in_place) {
		snprintf(c->dir, sizeof(c->dir), "%s", c->o->keep);
		slash = strrchr(c->dir, '/');
		if (slash)
			snprintf(slash + 1, sizeof(c->dir) - (size_t)(slash + 1 - c->dir),
				 ".ebs-calibrate.XXXXXX");
		else
			snprintf(c->dir, sizeof(c->dir), ".ebs-calibrate.XXXXXX");
	} else {
		snprintf(c->dir, sizeof(c->dir), "%s/ebs-calibrate.XXXXXX",
			 base && *base ? base : "/tmp");
	}
	if (!mkdtemp(c->dir)) {
		int e = errno;
		char shown[4096];

		snprintf(shown, sizeof(shown), "%s", c->dir);
		c->dir[0] = '\0';
		if (c->o->keep && !c->keep.in_place) /* -o's directory */
			return ebs_error__output(err, e, c->o->keep, "cannot write");
		return ebs_error__set(err, e, "cannot create a directory for the runs (%s): %s",
				      shown, strerror(e));
	}
	return 0;
}

static int calibrate(struct cal *c, struct ebs_error *err)
{
	const struct calibrate_opts *o = c->o;
	struct calibrate_result *r = c->r;
	char *probe_argv[] = {(char *)o->self, (char *)"__cost-probe", NULL};
	char *const *probe = o->probe_loop ? probe_argv : o->rec.argv;
	double events[EBS_MAX_EVENTS], cpu[EBS_MAX_EVENTS], seconds, sampled;
	double pevents[EBS_MAX_EVENTS], pcpu[EBS_MAX_EVENTS], pseconds;
	double psampled;
	char path[4200], why[1024];
	unsigned int i, attempt, changed;
	struct run rn;
	int e;

	/* 1. the counting pass */
	e = count_pass(c, o->rec.argv, "count", true, events, cpu, &seconds, &sampled, err);
	if (e)
		return e;
	r->base_seconds = seconds;
	for (i = 0; i < c->nev; i++) {
		if (!(events[i] > 0))
			return ebs_error__set(err, EINVAL,
					      "event '%s' counted nothing in a run of '%s': "
					      "nothing to calibrate",
					      r->ev[i].name, cmd_name(c));
		r->ev[i].counted = events[i];
		r->ev[i].events = events[i];
		r->ev[i].events_per_sec = events[i] / cpu[i];
		r->ev[i].share = 1;
	}

	/* 2. the cost of a sample, per event */
	memcpy(pevents, events, sizeof(events));
	memcpy(pcpu, cpu, sizeof(cpu));
	pseconds = seconds;
	psampled = sampled;
	if (o->probe_loop) {
		e = count_pass(c, probe, "count-loop", false, pevents, pcpu, &pseconds, &psampled,
			       err);
		if (e)
			return e;
	}
	for (i = 0; i < c->nev; i++) {
		if (!(pevents[i] > 0))
			return ebs_error__set(err, EINVAL,
					      "event '%s' counted nothing in ebs's "
					      "cost loop: use --cost-probe=cmd",
					      r->ev[i].name);
		e = measure_cost(c, i, probe, pevents[i], pcpu[i], pseconds, psampled, err);
		if (!e && o->focus && o->probe_loop)
			e = pilot(c, i, err);
		if (e)
			return e;
		if (o->focus) {
			struct calibrate_event *ce = &r->ev[i];

			if (!ce->focus_matched)
				return ebs_error__set(err, EINVAL,
						      "--focus %s: none of %llu samples of '%s' in "
						      "the pilot run fell there (a function or DSO "
						      "name as ebs report shows it)",
						      o->focus, (unsigned long long)ce->focus_total,
						      ce->name);
			ce->share = (double)ce->focus_matched / (double)ce->focus_total;
		}
	}

	/* 3. N per event */
	for (i = 0; i < c->nev; i++) {
		struct calibrate_event *ce = &r->ev[i];
		struct calib_input in;

		input_of(c, i, &in);
		if (o->start_n)
			solution_at(&in, o->start_n, &ce->sol);
		else
			calib_solve(&in, &ce->sol);
		ce->n = ce->sol.n;
		if (ce->sol.short_run && !o->start_n)
			conflict_note(c, i);
	}

	/* 4. verify, and retry */
	for (attempt = 0;; attempt++) {
		bool met;

		next_file(c, path, sizeof(path), "verify");
		e = verify(c, path, &met, why, sizeof(why), &rn, err);
		if (e)
			return e;
		for (i = 0; i < c->nev; i++)
			progress(c,
				 "verifying run %u: %s: N = %llu, %llu samples (%.0f expected), "
				 "%.0f/s, overhead %.1f%%",
				 attempt + 1, r->ev[i].name, (unsigned long long)r->ev[i].n,
				 (unsigned long long)r->ev[i].achieved_samples,
				 r->ev[i].sol.samples, r->ev[i].achieved_rate, 100 * r->overhead);
		for (i = 0; i < c->nev; i++)
			r->ev[i].met = met;
		if (met)
			break;
		if (attempt >= o->retries) {
			note(r, "targets still missed after %u retr%s: %s", o->retries,
			     o->retries == 1 ? "y" : "ies", why);
			break;
		}
		changed = 0;
		for (i = 0; i < c->nev; i++) {
			struct calibrate_event *ce = &r->ev[i];
			u64 old = ce->n, n = adjust(c, i, &rn);
			struct calib_input in;

			if (n == old)
				continue;
			changed++;
			ce->n = n;
			ce->retries++;
			input_of(c, i, &in);
			solution_at(&in, n, &ce->sol);
			note(r, "retry %u: %s; %s: N %llu -> %llu", attempt + 1, why, ce->name,
			     (unsigned long long)old, (unsigned long long)n);
			progress(c, "retry %u: %s; %s: N %llu -> %llu", attempt + 1, why, ce->name,
				 (unsigned long long)old, (unsigned long long)n);
		}
		if (!changed) {
			/* another run at the same N would only repeat this one */
			note(r,
			     "targets missed, and the caps (--rate, --overhead) allow no other N: "
			     "%s",
			     why);
			break;
		}
		unlink(path);
	}

	if (o->keep) {
		for (i = 0; i < c->nev && !e; i++) {
			struct ebs_rec_calibration cr;

			calibrate_record(o, r, i, &cr);
			e = ebs_data__set_calibration(path, &cr, err);
		}
		if (!e)
			e = keep_file(c, path, err);
	}
	return e;
}

int ebs_calibrate(const struct calibrate_opts *o, struct calibrate_result *r, struct ebs_error *err)
{
	struct cal c = {.o = o, .r = r, .devnull = -1, .keep = {.fd = -1, .dfd = -1}};
	unsigned int i;
	int e;

	memset(r, 0, sizeof(*r));
	c.nev = o->rec.nr_events;
	r->nr_events = c.nev;
	memcpy(c.ev, o->rec.events, c.nev * sizeof(c.ev[0]));
	for (i = 0; i < c.nev; i++)
		ebs_strlcpy(r->ev[i].name, c.ev[i].name, sizeof(r->ev[i].name));
	c.wall = irq_time_accounted();
	r->wall_time = c.wall;
	if (c.wall)
		note(r, "this kernel takes interrupt time out of the tasks' CPU time (/proc/stat "
			"counts irq time): runs are timed by the wall clock, which other load "
			"disturbs");
	c.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (c.devnull < 0)
		return ebs_error__set(err, errno, "/dev/null: %s", strerror(errno));
	e = make_dir(&c, err);
	if (!e)
		e = calibrate(&c, err);
	ebs_outfile__abort(&c.keep); /* not kept (a failure): nothing under -o's name */
	remove_dir(&c);
	close(c.devnull);
	return e;
}

/*
 * The built-in cost probe: a fixed amount of work (a dependent chain of
 * multiply-adds, about 0.3 s on a 2020s core), so that its run time grows
 * by exactly what the samples cost.
 */
void calibrate_probe_loop(void)
{
	unsigned long x = 1;
	long i;

	for (i = 0; i < 300000000L; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	if (x == 42)
		fputs("", stdout);
}
