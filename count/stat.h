/* SPDX-License-Identifier: MIT */
/*
 * stat.h - ebs stat's counting and printing: count events over a
 * command's run (no samples), once or N times, through in-process
 * counting sessions (count/session.h), and print each count with its share
 * of the time it counted, the derived figures (instructions per cycle,
 * miss ratios, events per second, CPUs utilized: by event id) and, over
 * repeats, the statistics of util/stats.h, as text, CSV or JSON, with
 * the intervals (-I) and their plot (count/plot.h).  cli/cmd-stat.c parses
 * the options into struct count_stat and calls count_stat_run().
 */
#ifndef EBS_COUNT_STAT_H
#define EBS_COUNT_STAT_H

#include <stdio.h>

#include "sampler/sampler.h"
#include "util/stats.h"

struct count_stat_event {
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

/* What ebs stat was asked (cli/cmd-stat.c's options), and what it counted. */
struct count_stat {
	/* every line of trouble or notice ("ebs stat: " is the command's to add) */
	ebs_warn_fn *warn;
	void *warn_ctx;
	struct count_stat_event ev[EBS_MAX_EVENTS];
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

/* One interval of -I: its end (since exec) and each counted event's count in it. */
struct count_interval {
	double t;
	double counts[EBS_MAX_EVENTS];
};

/* The intervals of a run, as the session's interval hook hands them. */
struct count_ticker {
	const struct count_stat *so;
	FILE *out;
	double prev[EBS_MAX_EVENTS]; /* the totals at the last interval's end */
	struct count_interval *v;
	size_t n, cap;
	bool oom;
};

/*
 * Count as so says (the events parsed, the options checked), print the
 * counts and write the files (-o, --plot); every line of trouble or notice
 * goes to so->warn.  Returns ebs stat's exit status.
 * so->pids is the caller's.
 */
int count_stat_run(struct count_stat *so);

/* ---- the printers (count/print.c) ---- */

/* The derived figure of event i ("1.23 insn per cycle"), or "" when its parts are missing. */
void count_stat_derived(const struct count_stat *so, unsigned int i, double elapsed_s, char *buf,
			size_t len);
/* One interval's lines (-I): text, or with -x SEP one line per event. */
void count_stat_print_interval(FILE *f, const struct count_stat *so,
			       const struct count_interval *iv);
void count_stat_print_text(FILE *f, const struct count_stat *so, const struct ebs_summary *elapsed);
void count_stat_print_sep(FILE *f, const struct count_stat *so);
void count_stat_print_json(FILE *f, const struct count_stat *so, const struct ebs_summary *elapsed,
			   const struct count_ticker *t);
/* --plot: the intervals as count/plot.c's chart, to f.  0 or -ENOMEM. */
int count_stat_plot(FILE *f, const struct count_stat *so, const struct count_ticker *t);

#endif /* EBS_COUNT_STAT_H */
