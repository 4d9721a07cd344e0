// SPDX-License-Identifier: MIT
/*
 * cmd-stat.c - ebs stat: count events over a command's run (no samples),
 * once or -r N times, and print each count with its share of the time it
 * counted, the derived figures (instructions per cycle, miss ratios,
 * events per second) and, over repeats, the statistics of util/stats.h.
 *
 * Each run is an ebs record session that counts only (record_opts.
 * count_only) into a temporary file, whose COUNT records (value, enabled
 * and running time, per CPU or thread) are summed here.  An event this
 * machine cannot open is not counted: its row says why.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "report/plot.h"
#include "sampler/sampler.h"
#include "util/json.h"
#include "util/stats.h"

#include <linux/perf_event.h>

#define MAX_RUNS 1000

#define MIN_INTERVAL_MS	 10  /* below it, reading the counters is most of what is measured */
#define PLOT_INTERVAL_MS 100 /* --plot's intervals without -I */
/*
 * Hardware events a run with --all-events: the general-purpose counters
 * of the smallest PMU ebs supports (Intel's architectural PMU version 2 and
 * later have 4 a thread, more without Hyper-Threading; AMD's 4 to 6).
 */
#define HW_PER_RUN 4

static const char default_events[] =
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,"
	"instructions,branches,branch-misses";

struct stat_event {
	struct event_spec spec;
	int open_err;	   /* 0: counted; else why not (-errno of the probe) */
	int slot;	   /* its index among the events of its pass's runs, or -1: not counted */
	unsigned int pass; /* --all-events, --backend=kmod: the run (from 0) that counts it */
	double *values;	   /* per run, scaled to the enabled time */
	bool scaled;	   /* some run's count was scaled (multiplexed) */
	double enabled;	   /* ns, summed over the runs */
	double running;	   /* ns, summed over the runs */
	struct ebs_summary sum;
	double wall_s; /* a clock's: the mean elapsed time of the runs its sum kept (0: all) */
};

/* One interval of -I: its end (since exec) and each counted event's count in it. */
struct interval {
	double t;
	double counts[EBS_MAX_EVENTS];
};

struct ticker {
	const struct stat_opts *so;
	FILE *out;
	double prev[EBS_MAX_EVENTS]; /* the totals at the last interval's end */
	struct interval *v;
	size_t n, cap;
	bool oom;
};

struct stat_opts {
	struct stat_event ev[EBS_MAX_EVENTS];
	unsigned int nr_ev;
	unsigned long runs;
	unsigned int interval_ms; /* -I; 0: none */
	unsigned int tick_ms;	  /* the intervals kept: -I's, or --plot's default; 0: none */
	const char *plot;	  /* --plot */
	bool user_only;		  /* some events fell back to :u (perf_event_paranoid) */
	bool all_events;	  /* every event ebs list offers, a run per counter group */
	unsigned int passes;	  /* runs of CMD per repeat: 1, or --all-events' groups */
	const char *sep;	  /* -x, --csv */
	bool json;
	const char *output;
	char *const *argv; /* NULL with -p, or -a alone */
	pid_t *pids;
	unsigned int nr_pids;
	bool system_wide;
	enum record_backend backend;
};

/*
 * One run's counts, from its counting file.  The records of one event and
 * thread, one per CPU, are each enabled all the thread's time and run while
 * it is on their CPU: the thread's counter ran the sum of their running
 * times out of the longest enabled one, as sampler/perf.c's add_scaled
 * reads them.  A hardware count that ran less than that (0.1% slack) was
 * multiplexed, and is scaled to the time it was enabled; a software one
 * never is (its times may part under load).  *scaled, *enabled, *running
 * per event, summed over threads.
 */
static int read_counts(const char *path, const struct event_spec *evs, double *scaled, u64 *enabled,
		       u64 *running, bool *muxed, unsigned int nr, struct ebs_error *err)
{
	const struct ebs_rec *rec;
	struct ebs_data *d = ebs_data__open(path, err);
	u64 value = 0, en = 0, run = 0;
	int e, ev = -1;
	u32 tid = 0;

	if (!d)
		return err->err;
	memset(scaled, 0, nr * sizeof(*scaled));
	memset(enabled, 0, nr * sizeof(*enabled));
	memset(running, 0, nr * sizeof(*running));
	memset(muxed, 0, nr * sizeof(*muxed));
	for (;;) {
		const struct ebs_rec_count *c = NULL;

		e = ebs_data__next(d, &rec, err);
		if (e > 0 && (rec->type != EBS_REC_COUNT ||
			      ((const struct ebs_rec_count *)rec)->event >= nr))
			continue;
		if (e > 0)
			c = (const void *)rec;
		/* the end of one event's records for one thread: its counter's total */
		if (ev >= 0 && (!c || c->event != ev || c->tid != tid)) {
			bool mux =
				evs[ev].type != PERF_TYPE_SOFTWARE && run && run < en - en / 1000;

			scaled[ev] +=
				mux ? (double)value * (double)en / (double)run : (double)value;
			muxed[ev] |= mux;
			enabled[ev] += en;
			running[ev] += run < en ? run : en;
			value = en = run = 0;
		}
		if (!c)
			break;
		ev = c->event;
		tid = c->tid;
		value += c->value;
		run += c->time_running;
		en = c->time_enabled > en ? c->time_enabled : en;
	}
	ebs_data__close(d);
	return e < 0 ? e : 0;
}

/*
 * record's interval hook: the counts since the last, kept, and printed now
 * with -I unless JSON.  Returns 0: go on.
 */
static int on_tick(void *ctx, u64 ns, const double *totals, unsigned int nr)
{
	struct ticker *t = ctx;
	const struct stat_opts *so = t->so;
	struct interval *iv;
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
	for (i = 0; i < so->nr_ev; i++) {
		const struct stat_event *ev = &so->ev[i];

		if (ev->slot < 0)
			continue;
		if (so->sep)
			fprintf(t->out, "%.6f%s%.0f%s%s\n", iv->t, so->sep, iv->counts[ev->slot],
				so->sep, ev->spec.name);
		else if (event_spec__is_clock(&ev->spec)) /* in msec, as perf stat */
			fprintf(t->out, "%14.6f %18.2f msec %s\n", iv->t,
				iv->counts[ev->slot] * 1e-6, ev->spec.name);
		else
			fprintf(t->out, "%14.6f %18.0f      %s\n", iv->t, iv->counts[ev->slot],
				ev->spec.name);
	}
	fflush(t->out);
	return 0;
}

static void print_intervals_json(struct ebs_json *j, const struct stat_opts *so,
				 const struct ticker *t)
{
	unsigned int i;
	size_t k;

	ebs_json__key(j, "intervals");
	ebs_json__arr(j);
	for (k = 0; k < t->n; k++) {
		ebs_json__obj(j);
		ebs_json__key_num(j, "t", "%.6f", t->v[k].t);
		ebs_json__key(j, "counts");
		ebs_json__obj(j);
		for (i = 0; i < so->nr_ev; i++)
			if (so->ev[i].slot >= 0)
				ebs_json__key_num(j, so->ev[i].spec.name, "%.0f",
						  t->v[k].counts[so->ev[i].slot]);
		ebs_json__obj_end(j);
		ebs_json__obj_end(j);
	}
	ebs_json__arr_end(j);
}

/*
 * --plot: the intervals as report/plot.c's chart, to f.  The clocks in
 * milliseconds of CPU time, the others as counts; the events not counted
 * named in the note.  0 or -ENOMEM.
 */
static int plot_intervals(FILE *f, const struct stat_opts *so, const struct ticker *t)
{
	struct plot_series ps[EBS_MAX_EVENTS];
	struct plot p = {0};
	char title[1024], sub[256], note[512];
	double *v = calloc(t->n * (so->nr_ev + 1) + 1, sizeof(double));
	size_t at = 0, k;
	unsigned int i;
	int a;

	if (!v)
		return -ENOMEM;
	if (so->argv) {
		at = (size_t)snprintf(title, sizeof(title), "Counts of '");
		for (a = 0; so->argv[a] && at < sizeof(title); a++)
			at += (size_t)snprintf(title + at, sizeof(title) - at, "%s%s", a ? " " : "",
					       so->argv[a]);
	} else {
		at = (size_t)snprintf(title, sizeof(title), "Counts of process%s",
				      so->nr_pids > 1 ? "es" : "");
		for (a = 0; a < (int)so->nr_pids && at < sizeof(title); a++)
			at += (size_t)snprintf(title + at, sizeof(title) - at, "%s%d",
					       a ? ", " : " ", (int)so->pids[a]);
	}
	if (at < sizeof(title))
		snprintf(title + at, sizeof(title) - at, "%s every %u ms", so->argv ? "'" : "",
			 so->tick_ms);
	p.t = v;
	p.n = t->n;
	for (k = 0; k < t->n; k++)
		v[k] = t->v[k].t;
	/* the last interval runs from the last tick to the end: partial */
	p.last_partial = t->n > 0;
	if (t->n > 1)
		snprintf(sub, sizeof(sub),
			 "%zu intervals of %u ms, the last partial (%.0f ms, a hollow dot); each "
			 "panel is one event's count per interval, on a scale of its own",
			 t->n, so->tick_ms, 1e3 * (t->v[t->n - 1].t - t->v[t->n - 2].t));
	else
		snprintf(sub, sizeof(sub),
			 "no whole interval of %u ms: the counting ended after %.0f ms (one "
			 "partial interval, a hollow dot)",
			 so->tick_ms, t->n ? 1e3 * t->v[0].t : 0.0);
	p.title = title;
	p.subtitle = sub;
	p.x_label = so->argv ? "seconds since the command started"
			     : "seconds since the counting started";
	note[0] = '\0';
	at = 0;
	for (i = 0; i < so->nr_ev; i++) {
		const struct stat_event *ev = &so->ev[i];
		double *y = v + t->n * (p.nr + 1);
		bool clock = event_spec__is_clock(&ev->spec);

		if (ev->slot < 0) {
			if (at < sizeof(note))
				at += (size_t)snprintf(note + at, sizeof(note) - at, "%s%s",
						       at ? ", "
							  : "not counted here, so not drawn: ",
						       ev->spec.name);
			continue;
		}
		for (k = 0; k < t->n; k++)
			y[k] = t->v[k].counts[ev->slot] * (clock ? 1e-6 : 1);
		ps[p.nr].name = ev->spec.name;
		ps[p.nr].unit = clock ? "ms of CPU time per interval" : "count per interval";
		ps[p.nr].y = y;
		ps[p.nr].whole = !clock;
		p.nr++;
	}
	p.s = ps;
	p.note = at ? note : NULL;
	ebs_plot_svg(f, &p);
	free(v);
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

/* Is name (its :u or :k aside) the event want? */
static bool is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(name, want, n) && (name[n] == '\0' || name[n] == ':');
}

static double value_of(const struct stat_opts *so, const char *name)
{
	unsigned int i;

	for (i = 0; i < so->nr_ev; i++)
		if (so->ev[i].slot >= 0 && is(so->ev[i].spec.name, name))
			return so->ev[i].sum.mean;
	return NAN;
}

/* The derived figure of event i ("1.23 insn per cycle"), or "" when its parts are missing. */
static void derived(const struct stat_opts *so, unsigned int i, double elapsed_s, char *buf,
		    size_t len)
{
	const char *n = so->ev[i].spec.name;
	double v = so->ev[i].sum.mean, task = value_of(so, "task-clock");

	/* per second of CPU time: cpu-clock's when task-clock is not counted (NAN) */
	if (!(task > 0))
		task = value_of(so, "cpu-clock");

	buf[0] = '\0';
	if (so->ev[i].spec.exclude_kernel && event_spec__kernel_only(&so->ev[i].spec)) {
		snprintf(buf, len, "only in the kernel: 0 with :u");
		return;
	}
	if (is(n, "task-clock") || is(n, "cpu-clock")) {
		if (so->ev[i].wall_s > 0) /* over the same runs as v: those not culled */
			elapsed_s = so->ev[i].wall_s;
		if (elapsed_s > 0)
			snprintf(buf, len, "%.3f CPUs utilized", v * 1e-9 / elapsed_s);
	} else if (is(n, "instructions") && value_of(so, "cycles") > 0) {
		snprintf(buf, len, "%.2f insn per cycle", v / value_of(so, "cycles"));
	} else if (is(n, "branch-misses") && value_of(so, "branches") > 0) {
		snprintf(buf, len, "%.2f%% of all branches", 100 * v / value_of(so, "branches"));
	} else if (is(n, "cache-misses") && value_of(so, "cache-references") > 0) {
		snprintf(buf, len, "%.2f%% of all cache refs",
			 100 * v / value_of(so, "cache-references"));
	} else if (task > 0) {
		double per_s = v / (task * 1e-9);

		snprintf(buf, len, "%.3f %s/sec",
			 per_s >= 1e9	? per_s * 1e-9
			 : per_s >= 1e6 ? per_s * 1e-6
			 : per_s >= 1e3 ? per_s * 1e-3
					: per_s,
			 per_s >= 1e9	? "G"
			 : per_s >= 1e6 ? "M"
			 : per_s >= 1e3 ? "K"
					: "");
	}
}

static double share(const struct stat_event *ev)
{
	return ev->enabled > 0 ? 100 * ev->running / ev->enabled : 100;
}

/* --all-events: the events not counted, in one line for each reason */
/*
 * The standard error of the mean, in percent of it: perf stat's "+-"
 * column (its stddev_stats() is the mean's, sd / sqrt(n)).  The runs'
 * own spread, sd, has its line below.
 */
static double rel_sem(const struct ebs_summary *s)
{
	return s->mean && s->n ? 100 * s->sd / sqrt((double)s->n) / fabs(s->mean) : 0;
}

static void print_unsupported(FILE *f, const struct stat_opts *so)
{
	unsigned int i, j;

	for (i = 0; i < so->nr_ev; i++) {
		bool first = true;

		if (!so->ev[i].open_err)
			continue;
		for (j = 0; j < i && so->ev[j].open_err != so->ev[i].open_err; j++)
			;
		if (j < i)
			continue; /* said with an earlier one */
		for (j = i; j < so->nr_ev; j++) {
			if (so->ev[j].open_err != so->ev[i].open_err)
				continue;
			fprintf(f, "%s%s", first ? "\n  not counted: " : ", ", so->ev[j].spec.name);
			first = false;
		}
		fprintf(f, ": %s\n", event_open_reason(so->ev[i].open_err));
	}
}

static void print_text(FILE *f, const struct stat_opts *so, const struct ebs_summary *elapsed)
{
	char line[512];
	int k;
	unsigned int i, a;
	char d[64];
	bool clock;
	double u;

	if (so->system_wide) {
		fprintf(f, "\n Counts for every CPU");
	} else if (so->nr_pids) {
		fprintf(f, "\n Counts for process%s", so->nr_pids > 1 ? "es" : "");
		for (a = 0; a < so->nr_pids; a++)
			fprintf(f, "%s%d", a ? ", " : " ", (int)so->pids[a]);
	}
	if (so->argv) {
		fprintf(f, so->system_wide ? ", while '" : "\n Counts for '");
		for (a = 0; so->argv[a]; a++) { /* its control characters as '?' (util/text.h) */
			fputs(a ? " " : "", f);
			ebs_fputs_clean(so->argv[a], f);
		}
		fprintf(f, so->system_wide ? "' ran" : "'");
	}
	if (so->runs > 1)
		fprintf(f, " (%lu runs)", so->runs);
	fprintf(f, ":\n\n");
	if (so->user_only)
		fprintf(f, "  (this user may not count the kernel: events marked :u count user "
			   "space only; see /proc/sys/kernel/perf_event_paranoid)\n\n");
	for (i = 0; i < so->nr_ev; i++) {
		const struct stat_event *ev = &so->ev[i];

		if (ev->slot < 0) {
			if (!so->all_events)
				fprintf(f, "  %18s      %-24s not supported: %s\n", "-",
					ev->spec.name, event_open_reason(ev->open_err));
			continue;
		}
		derived(so, i, elapsed->mean, d, sizeof(d));
		/* the columns padded, the line not: its end trimmed; clocks
		 * (counted in ns) in msec, as perf stat prints them */
		clock = event_spec__is_clock(&ev->spec);
		u = clock ? 1e-6 : 1;
		if (clock)
			k = snprintf(line, sizeof(line), "  %18.2f msec %-24s", ev->sum.mean * u,
				     ev->spec.name);
		else
			k = snprintf(line, sizeof(line), "  %18.0f      %-24s", ev->sum.mean,
				     ev->spec.name);
		if (d[0])
			k += snprintf(line + k, sizeof(line) - k, " # %-24s", d);
		if (ev->scaled)
			k += snprintf(line + k, sizeof(line) - k, " (%.2f%% counting, scaled)",
				      share(ev));
		if (so->runs > 1) /* what perf stat prints there: the mean's standard error */
			k += snprintf(line + k, sizeof(line) - k, " (+- %.2f%%)",
				      rel_sem(&ev->sum));
		if (so->passes > 1)
			k += snprintf(line + k, sizeof(line) - k, " [run %u]", ev->pass + 1);
		while (k > 0 && line[k - 1] == ' ')
			k--;
		fprintf(f, "%.*s\n", k, line);
		if (so->runs > 1)
			fprintf(f,
				"  %18s      sd %.*f (%.2f%%), min %.*f, max %.*f, mode %.*f, 95%% "
				"interval [%.*f, %.*f]%s, %zu run%s culled\n",
				"", clock * 2, ev->sum.sd * u,
				ev->sum.mean ? 100 * ev->sum.sd / ev->sum.mean : 0, clock * 2,
				ev->sum.min * u, clock * 2, ev->sum.max * u, clock * 2,
				ev->sum.mode * u, clock * 2, ev->sum.ci_lo * u, clock * 2,
				ev->sum.ci_hi * u, clock ? " msec" : "", ev->sum.culled,
				ev->sum.culled == 1 ? "" : "s");
	}
	if (so->all_events)
		print_unsupported(f, so);
	fprintf(f, "\n  %18.9f      seconds time elapsed", elapsed->mean);
	if (so->runs > 1)
		fprintf(f, " (+- %.2f%%)", rel_sem(elapsed));
	fprintf(f, "\n\n");
}

static void print_sep(FILE *f, const struct stat_opts *so)
{
	static const char *const cols[] = {"value",  "unit",	"event",  "running_pct",
					   "stddev", "min",	"max",	  "mode",
					   "culled", "ci95_lo", "ci95_hi"};
	const char *x = so->sep;
	unsigned int i, c;

	for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(f, "%s%s", c ? x : "", cols[c]);
	fprintf(f, "\n");
	for (i = 0; i < so->nr_ev; i++) {
		const struct stat_event *ev = &so->ev[i];

		if (ev->slot < 0) { /* every column there, empty but the event's */
			fprintf(f, "<not supported>%s%s%s", x, x, ev->spec.name);
			for (c = 3; c < sizeof(cols) / sizeof(cols[0]); c++)
				fprintf(f, "%s", x);
			fprintf(f, "\n");
			continue;
		}
		fprintf(f, "%.0f%s%s%s%s%s%.2f%s%.0f%s%.0f%s%.0f%s%.0f%s%zu%s%.0f%s%.0f\n",
			ev->sum.mean, x, event_spec__is_clock(&ev->spec) ? "ns" : "", x,
			ev->spec.name, x, share(ev), x, ev->sum.sd, x, ev->sum.min, x, ev->sum.max,
			x, ev->sum.mode, x, ev->sum.culled, x, ev->sum.ci_lo, x, ev->sum.ci_hi);
	}
}

static void print_json(FILE *f, const struct stat_opts *so, const struct ebs_summary *elapsed,
		       const struct ticker *t)
{
	struct ebs_json j;
	unsigned int i;
	char d[64];

	ebs_json__begin(&j, f);
	ebs_json__obj(&j);
	ebs_json__key_num(&j, "elapsed_s", "%.9f", elapsed->mean);
	ebs_json__key_u64(&j, "runs", so->runs);
	ebs_json__key(&j, "events");
	ebs_json__arr(&j);
	for (i = 0; i < so->nr_ev; i++) {
		const struct stat_event *ev = &so->ev[i];

		ebs_json__obj(&j);
		ebs_json__key_str(&j, "name", ev->spec.name);
		if (ev->slot < 0) {
			ebs_json__key_str(&j, "not_supported", event_open_reason(ev->open_err));
			ebs_json__obj_end(&j);
			continue;
		}
		ebs_json__key_num(&j, "count", "%.1f", ev->sum.mean);
		ebs_json__key_bool(&j, "scaled", ev->scaled);
		ebs_json__key_num(&j, "running_pct", "%.2f", share(ev));
		ebs_json__key_num(&j, "stddev", "%.1f", ev->sum.sd);
		ebs_json__key_num(&j, "stderr", "%.1f",
				  ev->sum.n ? ev->sum.sd / sqrt((double)ev->sum.n) : 0);
		ebs_json__key_num(&j, "min", "%.1f", ev->sum.min);
		ebs_json__key_num(&j, "max", "%.1f", ev->sum.max);
		ebs_json__key_num(&j, "mode", "%.1f", ev->sum.mode);
		ebs_json__key(&j, "ci95");
		ebs_json__arr(&j);
		ebs_json__num(&j, "%.1f", ev->sum.ci_lo);
		ebs_json__num(&j, "%.1f", ev->sum.ci_hi);
		ebs_json__arr_end(&j);
		ebs_json__key_u64(&j, "culled", ev->sum.culled);
		if (so->all_events)
			ebs_json__key_u64(&j, "run", ev->pass + 1);
		derived(so, i, elapsed->mean, d, sizeof(d));
		if (d[0])
			ebs_json__key_str(&j, "derived", d);
		ebs_json__obj_end(&j);
	}
	ebs_json__arr_end(&j);
	if (so->interval_ms)
		print_intervals_json(&j, so, t);
	ebs_json__obj_end(&j);
	ebs_json__end(&j);
}

/*
 * Which run counts each event: all in one, or with --all-events as many
 * hardware events a run as the PMU holds without multiplexing (the
 * software ones in the first), as P5Stat ran one event pair a run; ebs.ko
 * (--backend=kmod) counts one event a run.  Sets
 * each counted event's slot (its index in its run) and so->passes.
 */
static void assign_passes(struct stat_opts *so)
{
	unsigned int i, hw = 0, in_pass[EBS_MAX_EVENTS] = {0};

	so->passes = 1;
	for (i = 0; i < so->nr_ev; i++) {
		struct stat_event *ev = &so->ev[i];

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

/* What stat's options set: the session's options, and -e */
struct stat_args {
	struct stat_opts *so;
	const char *events;
};

#define SO(ctx) (((struct stat_args *)(ctx))->so)

static int set_repeat(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 n;

	(void)opt;
	if (cli_number("stat", "-r", arg, 1, MAX_RUNS, false, &n))
		return 2;
	SO(ctx)->runs = (unsigned long)n;
	return 0;
}

static int set_interval(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 n;

	(void)opt;
	if (cli_number("stat", "-I", arg, 1, 3600000, false, &n))
		return 2;
	if (n < MIN_INTERVAL_MS) {
		fprintf(stderr,
			"ebs stat: -I %s: below the floor of %d ms (reading the counters would be "
			"most of what is measured)\n",
			arg, MIN_INTERVAL_MS);
		return 2;
	}
	SO(ctx)->interval_ms = (unsigned int)n;
	return 0;
}

/* -x SEP, --csv, --json, -o, --plot, --all-events, -a: a word or a flag of the session */
static int set_word(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct stat_opts *so = SO(ctx);

	if (opt->letter == 'x')
		so->sep = arg;
	else if (!strcmp(opt->name, "csv"))
		so->sep = ",";
	else if (!strcmp(opt->name, "json"))
		so->json = true;
	else if (opt->letter == 'o')
		so->output = arg;
	else if (!strcmp(opt->name, "plot"))
		so->plot = arg;
	else if (!strcmp(opt->name, "all-events"))
		so->all_events = true;
	else if (opt->letter == 'a')
		so->system_wide = true;
	return 0;
}

static int set_backend(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice("stat", "--backend", arg, cli_backend_words, &u))
		return 2;
	SO(ctx)->backend = (enum record_backend)u;
	return 0;
}

static int add_pids(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_parse_pids("stat", arg, &SO(ctx)->pids, &SO(ctx)->nr_pids) ? 2 : 0;
}

static const struct cli_opt stat_opts[] = {
	{"event", 'e', "EVENTS",
	 "events (default: task-clock, context-switches, cpu-migrations, page-faults, cycles, "
	 "instructions, branches, branch-misses); 'ebs list' shows them; :u and :k as for record",
	 CLI_STR, .off = CLI_STR_AT(struct stat_args, events)},
	{"repeat", 'r', "N",
	 "run CMD N times (1-1000): mean, standard deviation, min, max, mode and a 95% interval "
	 "of the mean, outlying runs culled",
	 CLI_CALL, .fn = set_repeat},
	{"all-events", 0, NULL,
	 "every event 'ebs list' offers, CMD run again for each group of hardware events the PMU "
	 "holds at once (after a warm-up run)",
	 CLI_CALL, .fn = set_word},
	{"interval", 'I', "MS",
	 "also the counts of every MS milliseconds (10 or more) while CMD runs, each with its "
	 "time since CMD started",
	 CLI_CALL, .fn = set_interval},
	{"field-separator", 'x', "SEP", "one line per event, fields separated by SEP", CLI_CALL,
	 .fn = set_word},
	{"csv", 0, NULL, "the same with SEP ','", CLI_CALL, .fn = set_word},
	{"json", 0, NULL, "one JSON object (docs/ebs-stat.1)", CLI_CALL, .fn = set_word},
	{"output", 'o', "FILE", "write the counts to FILE instead of standard error", CLI_CALL,
	 .fn = set_word},
	{"plot", 0, "OUT.svg",
	 "the intervals (-I, else every 100 ms) as a line chart, one panel per event "
	 "(docs/ebs-stat.1)",
	 CLI_CALL, .fn = set_word},
	{"pid", 'p', "PID[,PID...]", "count running processes (and their threads) instead",
	 CLI_CALL, .fn = add_pids},
	{"backend", 0, "perf|kmod",
	 "perf (perf_event_open, the default) or kmod (ebs.ko's counting session: one event a "
	 "run, CMD run once for each)",
	 CLI_CALL, .fn = set_backend},
	{"all-cpus", 'a', NULL,
	 "count every CPU, whatever runs there (root, CAP_PERFMON or perf_event_paranoid 0 or "
	 "less); -r only with a command",
	 CLI_CALL, .fn = set_word},
	{0},
};

const struct cli_cmd cli_stat_cmd = {
	.name = "stat",
	.usage =
		"usage: ebs stat [OPTIONS] [--] CMD [ARGS...]\n"
		"       ebs stat [OPTIONS] -p PID[,PID...]       (until they exit, or Ctrl-C)\n"
		"       ebs stat [OPTIONS] -a [[--] CMD [ARGS...]] (while CMD runs, or until Ctrl-C)\n",
	.about = "Count events over CMD's run, without sampling.\n",
	.notes = "The exit status is CMD's (of its last run).  An event this machine cannot\n"
		 "count (a hardware one without a PMU) says so on its row.\n",
	.opts = stat_opts,
	.in_order = true,
};

static int parse(int argc, char **argv, struct stat_opts *so)
{
	struct stat_args a = {so, default_events};
	struct event_spec evs[EBS_MAX_EVENTS];
	const char *events;
	struct ebs_error err = {0};
	int c, k;

	so->runs = 1;
	c = cli_parse(&cli_stat_cmd, argc, argv, &a);
	if (c)
		return cli_exit(c);
	events = a.events;
	if (so->nr_pids && so->system_wide) {
		fprintf(stderr, "ebs stat: -p and -a exclude each other\n");
		return 2;
	}
	if (so->nr_pids && optind < argc) {
		fprintf(stderr, "ebs stat: -p counts running processes; no command wanted\n");
		return 2;
	}
	if (optind >= argc && !so->nr_pids && !so->system_wide) {
		fprintf(stderr,
			"ebs stat: no command to run (ebs stat [OPTIONS] -- CMD [ARGS...])\n");
		return 2;
	}
	if ((so->nr_pids || (so->system_wide && optind >= argc)) && so->runs > 1) {
		fprintf(stderr,
			"ebs stat: -r repeats a command's run: not with -p, nor -a alone\n");
		return 2;
	}
	if (so->all_events && (so->interval_ms || events != default_events)) {
		fprintf(stderr, "ebs stat: --all-events counts every event in runs of its own: "
				"not with -e or -I\n");
		return 2;
	}
	if (so->interval_ms && so->runs > 1) {
		fprintf(stderr, "ebs stat: -I and -r go one at a time: intervals are of one run\n");
		return 2;
	}
	if (so->sep && so->json) {
		fprintf(stderr, "ebs stat: -x/--csv and --json go one at a time\n");
		return 2;
	}
	/* -x takes its next word: an option there was meant as one */
	if (so->sep && so->sep[0] == '-' && so->sep[1]) {
		fprintf(stderr,
			"ebs stat: -x '%s': a separator that looks like an option (give -x SEP, "
			"e.g. -x ';')\n",
			so->sep);
		return 2;
	}
	if (so->plot && (so->runs > 1 || so->all_events)) {
		fprintf(stderr, "ebs stat: --plot draws the intervals of one run: not with %s\n",
			so->all_events ? "--all-events" : "-r");
		return 2;
	}
	if (so->plot && (!*so->plot || !strcmp(so->plot, "-"))) {
		fprintf(stderr,
			"ebs stat: --plot wants a file name ('%s' is none: the command "
			"writes to standard output)\n",
			so->plot);
		return 2;
	}
	if (so->plot && so->output && !strcmp(so->plot, so->output)) {
		fprintf(stderr, "ebs stat: --plot %s: the file -o writes the counts to\n",
			so->plot);
		return 2;
	}
	so->tick_ms = so->interval_ms ? so->interval_ms : so->plot ? PLOT_INTERVAL_MS : 0;
	so->argv = optind < argc ? argv + optind : NULL;
	if (so->all_events && !so->argv) {
		fprintf(stderr,
			"ebs stat: --all-events runs a command again and again: give one\n");
		return 2;
	}
	if (so->all_events) {
		static char all[EBS_MAX_EVENTS * 24];
		size_t at = 0, i;

		for (i = 0; i < sizeof(ebs_events) / sizeof(ebs_events[0]) && i < EBS_MAX_EVENTS &&
			    ebs_events[i].name;
		     i++)
			at += (size_t)snprintf(all + at, sizeof(all) - at, "%s%s", i ? "," : "",
					       ebs_events[i].name);
		events = all;
	}
	k = event_spec__parse_list(events, evs, EBS_MAX_EVENTS, &err);
	if (k < 0) {
		fprintf(stderr, "ebs stat: %s\n", err.msg);
		return 2;
	}
	so->nr_ev = (unsigned int)k;
	for (c = 0; c < k; c++)
		so->ev[c].spec = evs[c];
	return -1;
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

/*
 * Can sp be counted here, by so's backend?  0 with *why 0 or the event's
 * -errno; -errno with err filled when the backend cannot be used at all
 * (kmod: no module, no permission, an older ABI).
 */
static int probe(const struct stat_opts *so, const struct event_spec *sp, int *why,
		 struct ebs_error *err)
{
	if (so->backend == BACKEND_KMOD)
		return kmod_probe_count(sp, so->system_wide, why, err);
	*why = event_spec__probe(sp);
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts so = {0};
	struct record_opts ro = {0};
	struct ebs_summary elapsed = {0};
	struct ticker tick = {0};
	struct ebs_out plot = {0}, output = {0};
	double *wall = NULL;
	unsigned char *keep = NULL;
	char dir[4096], path[4200];
	const char *base = getenv("TMPDIR");
	struct ebs_error err = {0};
	double scaled[EBS_MAX_EVENTS];
	u64 enabled[EBS_MAX_EVENTS], running[EBS_MAX_EVENTS];
	bool muxed[EBS_MAX_EVENTS];
	unsigned int i, nr = 0;
	unsigned long r, done = 0;
	bool stopped = false; /* ebs got a stop signal (Ctrl-C): no more runs */
	struct sigaction old_sa[sizeof(stop_signals) / sizeof(stop_signals[0])];
	int rc = parse(argc, argv, &so), status = 0, e = 0;
	FILE *out = stderr;

	if (rc >= 0) {
		free(so.pids); /* -p may have come before what was refused */
		return rc;
	}
	/* what this machine can count: the others are rows that say why not */
	for (i = 0; i < so.nr_ev; i++) {
		struct event_spec *sp = &so.ev[i].spec;

		if (probe(&so, sp, &so.ev[i].open_err, &err))
			goto unusable;
		/*
		 * -a: whoever may count a CPU may count its kernel too, and a
		 * refusal is -a's, which the session's open says with the level
		 * it needs (counting a CPU user space only would miss what the
		 * kernel counts, every context switch among it)
		 */
		if (so.system_wide && (so.ev[i].open_err == -EACCES || so.ev[i].open_err == -EPERM))
			so.ev[i].open_err = 0;
		/* not allowed to count the kernel: user space only, as perf does */
		if ((so.ev[i].open_err == -EACCES || so.ev[i].open_err == -EPERM) &&
		    !sp->exclude_kernel && !sp->exclude_user &&
		    strlen(sp->name) + 3 < sizeof(sp->name)) {
			struct event_spec u = *sp;

			u.exclude_kernel = true;
			strcat(u.name, ":u");
			/* when that fails too, its reason is the telling one (no PMU) */
			if (probe(&so, &u, &so.ev[i].open_err, &err))
				goto unusable;
			if (!so.ev[i].open_err) {
				*sp = u;
				so.user_only = true;
			}
		}
		if (!so.ev[i].open_err)
			nr++;
	}
	assign_passes(&so);
	if (!nr) {
		fprintf(stderr, "ebs stat: none of the events can be counted here (%s: %s)\n",
			so.ev[0].spec.name, event_open_reason(so.ev[0].open_err));
		free(so.pids);
		return 2;
	}
	if (so.passes > 1 && so.backend == BACKEND_KMOD) {
		if (so.nr_pids || so.system_wide || so.tick_ms) {
			fprintf(stderr,
				"ebs stat: --backend=kmod counts one event a run (ebs.ko has one "
				"counter a session), and -p, -a, -I and --plot are one run: give "
				"one event with -e (%u could be counted)\n",
				nr);
			free(so.pids);
			return 2;
		}
		fprintf(stderr,
			"ebs stat: --backend=kmod counts one event a run (ebs.ko has one counter "
			"a session): %u runs of the command%s\n",
			so.passes, so.runs > 1 ? " for each repeat" : "");
	}
	/* the files, aside their names until they are whole: refused now if they cannot be */
	if (so.output && ebs_out_open(&output, so.output, NULL, &err)) {
		free(so.pids);
		return cli_output_error("stat", "-o", &err);
	}
	if (so.output)
		out = output.f;
	if (so.plot && ebs_out_open(&plot, so.plot, NULL, &err)) {
		if (so.output)
			ebs_out_close(&output, false, NULL);
		free(so.pids);
		return cli_output_error("stat", "--plot", &err);
	}
	tick.so = &so;
	tick.out = out;
	if (so.interval_ms && so.sep && !so.json)
		fprintf(out, "time_s%scount%sevent\n", so.sep, so.sep);
	snprintf(dir, sizeof(dir), "%s/ebs-stat.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "ebs stat: cannot create a directory for the counts (%s): %s\n",
			dir, strerror(errno));
		if (so.output)
			ebs_out_close(&output, false, NULL);
		if (so.plot)
			ebs_out_close(&plot, false, NULL);
		free(so.pids);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/counts.data", dir);
	wall = calloc(so.runs, sizeof(*wall));
	keep = calloc(so.runs, 1);
	for (i = 0; i < so.nr_ev && wall; i++)
		if (so.ev[i].slot >= 0 && !(so.ev[i].values = calloc(so.runs, sizeof(double))))
			break;
	if (!wall || !keep || i < so.nr_ev) {
		fprintf(stderr, "ebs stat: out of memory\n");
		rc = 1;
		goto out;
	}
	ro.count_only = true;
	ro.backend = so.backend;
	ro.output = path;
	ro.argv = so.argv;
	ro.pids = so.pids;
	ro.nr_pids = so.nr_pids;
	ro.system_wide = so.system_wide;
	ro.no_fallback = true;
	ro.mmap_pages = 1;
	ro.interval_ms = so.tick_ms;
	ro.on_interval = on_tick;
	ro.interval_ctx = &tick;
	stat_signal = 0;
	catch_stop_signals(old_sa);
	/* --all-events: one warm-up run first, its counts not kept */
	for (r = 0; r < so.runs && rc < 0 && !stat_signal; r++) {
		unsigned int p;

		for (p = so.all_events && !r ? 0 : 1; p <= so.passes && rc < 0; p++) {
			unsigned int pass = p ? p - 1 : 0;
			struct record_result res;

			if (stat_signal) { /* between the passes of a run: it is cut short */
				stopped = true;
				break;
			}
			ro.nr_events = 0;
			for (i = 0; i < so.nr_ev; i++)
				if (so.ev[i].slot >= 0 && so.ev[i].pass == pass)
					ro.events[ro.nr_events++] = so.ev[i].spec;
			e = ebs_record(&ro, &res, &err);
			if (e) {
				fprintf(stderr, "ebs stat: %s\n", err.msg);
				/* a command that cannot run; -a or -p not allowed; -p gone */
				rc = res.exec_failed || err.err == -ESRCH ||
						     ((so.system_wide || so.nr_pids) &&
						      (err.err == -EACCES || err.err == -EPERM))
					     ? 2
					     : 1;
				break;
			}
			e = read_counts(path, ro.events, scaled, enabled, running, muxed,
					ro.nr_events, &err);
			unlink(path);
			if (e) {
				fprintf(stderr, "ebs stat: %s\n", err.msg);
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
				wall[r] = (double)(so.argv && !so.system_wide ? res.wall_ns
									      : res.collect_ns) *
					  1e-9;
			for (i = 0; i < so.nr_ev; i++) {
				struct stat_event *ev = &so.ev[i];
				unsigned int k = (unsigned int)ev->slot;

				if (ev->slot < 0 || ev->pass != pass)
					continue;
				ev->values[r] = scaled[k];
				ev->scaled |= muxed[k];
				ev->enabled += (double)enabled[k];
				ev->running += (double)running[k];
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
			fprintf(stderr,
				"ebs stat: run %lu of %lu was cut short by a signal: its counts are "
				"left out, the %lu whole run%s follow\n",
				r + 1, so.runs, done, done == 1 ? "" : "s");
			break;
		}
		done++;
		if (status > 128 || stopped)
			break;
	}
	restore_stop_signals(old_sa);
	/*
	 * A command's runs stopped (between runs, or in one the command
	 * finished): the status of a stop.  Without a command (-p, -a alone)
	 * Ctrl-C is how counting ends: 0.
	 */
	if (stat_signal && so.argv && status <= 128)
		status = 128 + stat_signal;
	if (!done)
		goto out;
	so.runs = done;
	if (tick.oom) {
		fprintf(stderr, "ebs stat: out of memory\n");
		rc = 1;
		goto out;
	}
	/* every run's time; a clock's CPUs utilized is over the runs its sum kept */
	ebs_summarize(wall, done, false, &elapsed, NULL);
	for (i = 0; i < so.nr_ev; i++) {
		struct stat_event *ev = &so.ev[i];

		if (ev->slot < 0)
			continue;
		if (ebs_summarize(ev->values, done, true, &ev->sum, keep)) {
			fprintf(stderr, "ebs stat: out of memory\n");
			rc = 1;
			goto out;
		}
		if (event_spec__is_clock(&ev->spec) && ev->sum.culled)
			ev->wall_s = kept_mean(wall, keep, done);
	}
	if (so.json)
		print_json(out, &so, &elapsed, &tick);
	else if (so.sep && !so.interval_ms)
		print_sep(out, &so);
	else if (!so.sep) /* with -x and -I, the intervals are the table */
		print_text(out, &so, &elapsed);
	if (so.plot) {
		e = plot_intervals(plot.f, &so, &tick);
		if (!e) {
			e = ebs_out_close(&plot, true, &err);
		} else {
			ebs_out_close(&plot, false, NULL);
			ebs_error__output(&err, -e, so.plot, "write failed");
		}
		if (e == -ENOMEM)
			fprintf(stderr, "ebs stat: --plot %s: out of memory\n", so.plot);
		else if (e)
			cli_output_error("stat", "--plot", &err);
		so.plot = NULL; /* closed */
		if (e)
			rc = 1;
	}
	if (rc < 0)
		rc = status;
out:
	if (so.plot)
		ebs_out_close(&plot, false, NULL);
	/* what the command's runs gave is the file, whatever their status */
	if (so.output && ebs_out_close(&output, true, &err)) {
		cli_output_error("stat", "-o", &err);
		if (rc <= 0)
			rc = 1;
	}
	free(tick.v);
	unlink(path);
	rmdir(dir);
	free(wall);
	free(keep);
	for (i = 0; i < so.nr_ev; i++)
		free(so.ev[i].values);
	free(so.pids);
	return rc < 0 ? status : rc;

unusable:
	fprintf(stderr, "ebs stat: %s\n", err.msg);
	free(so.pids);
	return 1;
}
