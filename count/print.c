// SPDX-License-Identifier: MIT
/*
 * print.c - ebs stat's printers (count/stat.h): the counts as text
 * (perf stat's layout), as -x SEP / --csv lines, as one JSON object; the
 * intervals of -I as they come; the derived figures, each found by the
 * ids of the events it is made of (include/ebs/ebs_events.h), never by
 * their names; and --plot's chart (count/plot.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count/plot.h"
#include "count/stat.h"
#include "util/json.h"
#include "util/text.h"

#include <linux/perf_event.h>

void count_stat_print_interval(FILE *f, const struct count_stat *so,
			       const struct count_interval *iv)
{
	unsigned int i;

	for (i = 0; i < so->nr_ev; i++) {
		const struct count_stat_event *ev = &so->ev[i];

		if (ev->slot < 0)
			continue;
		if (so->sep)
			fprintf(f, "%.6f%s%.0f%s%s\n", iv->t, so->sep, iv->counts[ev->slot],
				so->sep, ev->spec.name);
		else if (event_spec__is_clock(&ev->spec)) /* in msec, as perf stat */
			fprintf(f, "%14.6f %18.2f msec %s\n", iv->t, iv->counts[ev->slot] * 1e-6,
				ev->spec.name);
		else
			fprintf(f, "%14.6f %18.0f      %s\n", iv->t, iv->counts[ev->slot],
				ev->spec.name);
	}
}

/* The mean of the counted event of ids type/config; NAN when none is counted. */
static double value_of(const struct count_stat *so, u32 type, u64 config)
{
	unsigned int i;

	for (i = 0; i < so->nr_ev; i++)
		if (so->ev[i].slot >= 0 && so->ev[i].spec.type == type &&
		    so->ev[i].spec.config == config)
			return so->ev[i].sum.mean;
	return NAN;
}

static double hw_value(const struct count_stat *so, u64 config)
{
	return value_of(so, PERF_TYPE_HARDWARE, config);
}

/* Is ev the hardware event config? */
static bool is_hw(const struct event_spec *ev, u64 config)
{
	return ev->type == PERF_TYPE_HARDWARE && ev->config == config;
}

void count_stat_derived(const struct count_stat *so, unsigned int i, double elapsed_s, char *buf,
			size_t len)
{
	const struct event_spec *n = &so->ev[i].spec;
	double v = so->ev[i].sum.mean;
	double task = value_of(so, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	/* per second of CPU time: cpu-clock's when task-clock is not counted (NAN) */
	if (!(task > 0))
		task = value_of(so, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);

	buf[0] = '\0';
	if (n->exclude_kernel && event_spec__kernel_only(n)) {
		snprintf(buf, len, "only in the kernel: 0 with :u");
		return;
	}
	if (event_spec__is_clock(n)) {
		if (so->ev[i].wall_s > 0) /* over the same runs as v: those not culled */
			elapsed_s = so->ev[i].wall_s;
		if (elapsed_s > 0)
			snprintf(buf, len, "%.3f CPUs utilized", v * 1e-9 / elapsed_s);
	} else if (is_hw(n, PERF_COUNT_HW_INSTRUCTIONS) &&
		   hw_value(so, PERF_COUNT_HW_CPU_CYCLES) > 0) {
		snprintf(buf, len, "%.2f insn per cycle",
			 v / hw_value(so, PERF_COUNT_HW_CPU_CYCLES));
	} else if (is_hw(n, PERF_COUNT_HW_BRANCH_MISSES) &&
		   hw_value(so, PERF_COUNT_HW_BRANCH_INSTRUCTIONS) > 0) {
		snprintf(buf, len, "%.2f%% of all branches",
			 100 * v / hw_value(so, PERF_COUNT_HW_BRANCH_INSTRUCTIONS));
	} else if (is_hw(n, PERF_COUNT_HW_CACHE_MISSES) &&
		   hw_value(so, PERF_COUNT_HW_CACHE_REFERENCES) > 0) {
		snprintf(buf, len, "%.2f%% of all cache refs",
			 100 * v / hw_value(so, PERF_COUNT_HW_CACHE_REFERENCES));
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

static void print_intervals_json(struct ebs_json *j, const struct count_stat *so,
				 const struct count_ticker *t)
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
 * --plot: the intervals as count/plot.c's chart, to f.  The clocks in
 * milliseconds of CPU time, the others as counts; the events not counted
 * named in the note.  0 or -ENOMEM.
 */
int count_stat_plot(FILE *f, const struct count_stat *so, const struct count_ticker *t)
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
		const struct count_stat_event *ev = &so->ev[i];
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

static double share(const struct count_stat_event *ev)
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

static void print_unsupported(FILE *f, const struct count_stat *so)
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

void count_stat_print_text(FILE *f, const struct count_stat *so, const struct ebs_summary *elapsed)
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
		const struct count_stat_event *ev = &so->ev[i];

		if (ev->slot < 0) {
			if (!so->all_events)
				fprintf(f, "  %18s      %-24s not supported: %s\n", "-",
					ev->spec.name, event_open_reason(ev->open_err));
			continue;
		}
		count_stat_derived(so, i, elapsed->mean, d, sizeof(d));
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

void count_stat_print_sep(FILE *f, const struct count_stat *so)
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
		const struct count_stat_event *ev = &so->ev[i];

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

void count_stat_print_json(FILE *f, const struct count_stat *so, const struct ebs_summary *elapsed,
			   const struct count_ticker *t)
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
		const struct count_stat_event *ev = &so->ev[i];

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
		count_stat_derived(so, i, elapsed->mean, d, sizeof(d));
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
