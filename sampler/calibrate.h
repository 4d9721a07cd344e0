/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h - choosing the sample-after value N (ebs calibrate, ebs
 * record --calibrate).
 *
 * The model (calibrate-model.c) is arithmetic only: the fit of a run's time against
 * its samples (time = base + samples x cost), N solved for the targets, N
 * rounded, the precision a number of samples buys.  The runs (calibrate.c)
 * measure what the model needs: a counting pass, runs at two sample-after
 * values for the cost, and a verifying run with retries.
 */
#ifndef EBS_SAMPLER_CALIBRATE_H
#define EBS_SAMPLER_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include "sampler/sampler.h"

/* ---- the model (calibrate-model.c) ------------------------------------------------ */

/* One run: the samples it took and the time it ran (seconds). */
struct calib_point {
	double samples;
	double seconds;
};

/* Least squares of seconds on samples. */
struct calib_fit {
	double cost;	  /* seconds per sample: the slope */
	double cost_se;	  /* its standard error; 0 with two points (unknown) */
	double cost_ci;	  /* half-width of its 95% interval: cost_se x t(0.975, n - 2) */
	double base;	  /* seconds with no samples: the intercept */
	double rms;	  /* root mean square of the residuals, seconds */
	double resid[16]; /* each point's residual, seconds (the first 16) */
	unsigned int n;
};

/* Fit p[0..n); -EINVAL with fewer than two distinct sample counts. */
int calib_fit(const struct calib_point *p, unsigned int n, struct calib_fit *f);

/* Student's t quantile 0.975 for dof degrees of freedom (1.96 past 30; 0 for 0). */
double calib_t975(unsigned int dof);

/*
 * The cost of a sample as the solving uses it: the fit's when it is
 * measured (above its 95% interval's half-width); else an upper bound:
 * the interval's upper end, and at least its half-width, the least cost
 * the runs could have told from none (a fit below 0 is noise, not a free
 * sample).  *measured says which.
 */
double calib_cost_used(const struct calib_fit *f, bool *measured);

/* The smallest 1, 2 or 5 x 10^k at least n (n >= 1); n itself when that overflows. */
u64 calib_round_up(u64 n);
/* The next 1-2-5 value above n, and the one below (1 stays 1). */
u64 calib_step_up(u64 n);
u64 calib_step_down(u64 n);

/*
 * The half-width of the 95% (Wilson) interval of a share p estimated from
 * n samples, as a fraction; 1 when n is 0.
 */
double calib_halfwidth(double p, double n);

/* What one event's counting pass measured, and what it is solved for. */
struct calib_input {
	double events;	    /* counted over the run (multiplexing scaled) */
	double seconds;	    /* the run's time (CPU seconds, or wall) */
	double share;	    /* of the samples in the focus; 1 without --focus */
	double cost;	    /* seconds per sample used for the overhead bound */
	double rate;	    /* at most this many samples per second per CPU */
	double budget;	    /* overhead at most this fraction (this event's part) */
	double min_samples; /* at least this many (in the focus) */
	bool exact;	    /* N as solved, not rounded to 1-2-5 */
};

enum calib_bound {
	CALIB_BY_RATE,	   /* --rate set N */
	CALIB_BY_OVERHEAD, /* the overhead budget set N (rate x cost) */
	CALIB_BY_EVENTS,   /* N = 1: the event is rarer than either cap */
};

struct calib_solution {
	u64 n;
	enum calib_bound bound;
	double events_per_sec; /* events / seconds */
	double rate;	       /* expected samples per second at n */
	double samples;	       /* expected samples in the run */
	double focus_samples;  /* of them in the focus */
	double overhead;       /* expected: rate x cost, a fraction */
	bool short_run;	       /* min_samples cannot be had under the caps */
	double longer;	       /* how many times longer the run must be for it */
};

/*
 * N for in: as many samples as the rate cap and the overhead budget allow
 * (N = events per second / the tighter cap, rounded up to 1-2-5 unless
 * exact; a 1-2-5 value within 2% below counts), and whether min_samples is
 * then reached.  in->events and
 * in->seconds must be positive.
 */
void calib_solve(const struct calib_input *in, struct calib_solution *out);

/* What N = n gives for in (every field of out but bound, which calib_solve sets). */
void calib_expect(const struct calib_input *in, u64 n, struct calib_solution *out);

/* ---- the runs (calibrate.c) --------------------------------------------- */

/*
 * The share of event ev's samples in file path that fall in the focus,
 * given by the caller (report/ resolves samples; sampler/ does not).
 * 0 with *matched and *total set, or -errno with err filled.
 */
typedef int (*calib_focus_fn)(void *ctx, const char *path, unsigned int ev, u64 *matched,
			      u64 *total, struct ebs_error *err);

struct calibrate_opts {
	struct record_opts rec; /* events, backend, argv, mmap pages, notice */
	double rate;		/* --rate: samples per second per CPU */
	u64 min_samples;	/* --min-samples */
	double overhead;	/* --overhead, a fraction */
	unsigned int retries;	/* --retries */
	bool exact;		/* --exact */
	u64 start_n;		/* -c N: verify this N first instead of the solved one */
	const char *focus;	/* --focus list, or NULL */
	calib_focus_fn focus_fn;
	void *focus_ctx;
	bool probe_loop;       /* --cost-probe=loop: the cost from ebs's own loop */
	const char *self;      /* ebs's executable, for the loop */
	const char *keep;      /* -o: keep the accepted verifying run here; NULL: not */
	ebs_warn_fn *progress; /* a notice per run and per retry; NULL: none */
	void *progress_ctx;
};

#define CALIB_MAX_NOTES	 24
#define CALIB_MAX_POINTS 8

struct calibrate_event {
	char name[64];			/* as used */
	double counted;			/* counted in the counting pass */
	double events;			/* in a run that long at events_per_sec */
	double events_per_sec;		/* per CPU-second: the counting pass's, or after
					 * a retry the rate the missed run showed */
	double share;			/* focus share in the pilot (1 without focus) */
	u64 focus_matched, focus_total; /* the pilot's samples behind share */
	struct calib_point points[CALIB_MAX_POINTS]; /* the cost runs, first the unsampled */
	unsigned int nr_points;
	struct calib_fit fit;
	bool cost_measured;	   /* the fit's cost is above its noise */
	double cost;		   /* seconds per sample used: the fit's, or its upper bound */
	struct calib_solution sol; /* for the N finally verified */
	u64 n;			   /* the chosen N */
	u64 achieved_samples;	   /* in the accepted verifying run */
	u64 focus_samples;	   /* of them in the focus (with --focus) */
	u64 lost, throttled;
	double achieved_rate; /* samples per second of its time */
	double overhead;      /* measured, this event's part */
	unsigned int retries;
	bool met; /* the verifying run met every target within 20% */
};

struct calibrate_result {
	unsigned int nr_events;
	struct calibrate_event ev[EBS_MAX_EVENTS];
	bool wall_time;	       /* times are wall clock (the kernel takes interrupt
				* time out of tasks' CPU time), else CPU time */
	bool multiplexed;      /* the counting pass was multiplexed (scaled) */
	double base_seconds;   /* the counting pass's time */
	double verify_seconds; /* the accepted verifying run's time */
	double overhead;       /* its measured overhead, a fraction */
	double overhead_se;    /* the noise of that measure */
	unsigned int runs;     /* every run of the command (or the loop) */
	char notes[CALIB_MAX_NOTES][640];
	unsigned int nr_notes;
};

/*
 * Calibrate o->rec.events for o->rec.argv.  Returns 0 (the result may still
 * carry notes of targets missed), or -errno with err filled in one line:
 * -EINVAL for a command that fails, exits at once or counts nothing.
 */
int ebs_calibrate(const struct calibrate_opts *o, struct calibrate_result *r,
		  struct ebs_error *err);

/* The CALIBRATION record of event i of r (hdr left for the writer). */
void calibrate_record(const struct calibrate_opts *o, const struct calibrate_result *r,
		      unsigned int i, struct ebs_rec_calibration *out);

/* The built-in cost probe's work (ebs __cost-probe): a fixed loop. */
void calibrate_probe_loop(void);

#endif /* EBS_SAMPLER_CALIBRATE_H */
