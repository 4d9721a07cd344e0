// SPDX-License-Identifier: MIT
/*
 * test-calibrate-model.c - the calibration model (sampler/calibrate-model.c), on numbers whose
 * answers are worked out here by hand:
 *
 *   test_fit       an exact line is recovered with zero residuals; noisy
 *                  points give the textbook least-squares slope, intercept
 *                  and slope error; one distinct sample count is refused.
 *   test_round     1-2-5 rounding up, and the steps above and below.
 *   test_precision the Wilson half-width against values computed by hand.
 *   test_solve     which target sets N (rate, overhead, the event's own
 *                  rate), the expected samples and overhead, and a run too
 *                  short for --min-samples (how much longer it must be).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sampler/calibrate.h"
#include "test.h"

#define NEAR(name, got, want, tol)                                                                 \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		if (fabs(g_ - w_) <= (tol))                                                        \
			TEST_OK(name);                                                             \
		else                                                                               \
			TEST_FAIL(name, "%s = %.9g, want %.9g +- %g", #got, g_, w_,                \
				  (double)(tol));                                                  \
	} while (0)

static void test_fit(void)
{
	/* time = 0.5 s + samples x 45 us, exactly */
	const struct calib_point exact[] = {{0, 0.5}, {1000, 0.545}, {4000, 0.68}};
	/* x = 0, 1, 2, 3; y = 1, 3, 4, 7: slope 1.9, intercept 0.9, residuals
	 * 0.1, 0.2, -0.7, 0.4; SSE 0.7; se = sqrt(0.7 / 2 / 5) */
	const struct calib_point noisy[] = {{0, 1}, {1, 3}, {2, 4}, {3, 7}};
	const struct calib_point flat[] = {{100, 1}, {100, 2}};
	struct calib_fit f;

	TEST_EQ("fit: an exact line", calib_fit(exact, 3, &f), 0);
	NEAR("fit: an exact line: its cost", f.cost, 45e-6, 1e-12);
	NEAR("fit: an exact line: its base", f.base, 0.5, 1e-12);
	NEAR("fit: an exact line: no residual", f.rms, 0, 1e-12);
	NEAR("fit: an exact line: no error", f.cost_se, 0, 1e-12);
	TEST_EQ("fit: noisy points", calib_fit(noisy, 4, &f), 0);
	NEAR("fit: noisy points: slope", f.cost, 1.9, 1e-12);
	NEAR("fit: noisy points: intercept", f.base, 0.9, 1e-12);
	NEAR("fit: noisy points: slope error", f.cost_se, sqrt(0.07), 1e-12);
	NEAR("fit: noisy points: 95% half-width, t(0.975, 2) = 4.303 standard errors", f.cost_ci,
	     4.303 * sqrt(0.07), 1e-12);
	NEAR("fit: noisy points: rms", f.rms, sqrt(0.7 / 4), 1e-12);
	NEAR("fit: noisy points: residual 3", f.resid[2], -0.7, 1e-12);
	TEST_EQ("fit: two points: no error known", (calib_fit(exact, 2, &f), f.cost_se == 0), 1);
	TEST_EQ("fit: one sample count only: refused", calib_fit(flat, 2, &f), -22);
	TEST_EQ("fit: one point: refused", calib_fit(exact, 1, &f), -22);

	NEAR("t: 2 degrees of freedom", calib_t975(2), 4.303, 1e-9);
	NEAR("t: 30", calib_t975(30), 2.042, 1e-9);
	NEAR("t: past 30, the normal's", calib_t975(1000), 1.96, 1e-9);
	{
		struct calib_fit g = {.cost = 40e-6, .cost_ci = 8e-6};
		bool m;
		double c;

		c = calib_cost_used(&g, &m);
		TEST_CHECK("cost used: above its half-width: measured, the fit's", m && c == 40e-6);
		g.cost = 5e-6;
		c = calib_cost_used(&g, &m);
		TEST_CHECK("cost used: within its half-width: not measured, the upper end (13 us)",
			   !m && fabs(c - 13e-6) < 1e-15);
		g.cost = -10.4e-6;
		g.cost_ci = 16.8e-6;
		c = calib_cost_used(&g, &m);
		TEST_CHECK(
			"cost used: a fit below 0 is noise: the half-width (16.8 us), never free",
			!m && fabs(c - 16.8e-6) < 1e-15);
	}
}

static void test_round(void)
{
	static const u64 in[] = {0, 1, 2, 3, 5, 6, 10, 11, 999, 1000, 1001, 2000001, 4999999};
	static const u64 want[] = {1, 1, 2, 5, 5, 10, 10, 20, 1000, 1000, 2000, 5000000, 5000000};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		if (calib_round_up(in[i]) != want[i]) {
			TEST_FAIL("round: up to 1-2-5", "%llu -> %llu, want %llu",
				  (unsigned long long)in[i],
				  (unsigned long long)calib_round_up(in[i]),
				  (unsigned long long)want[i]);
			bad++;
		}
	if (!bad)
		TEST_OK("round: up to 1-2-5 (13 values)");
	TEST_EQ("round: near 2^64 stays itself", calib_round_up(UINT64_MAX - 5), UINT64_MAX - 5);
	TEST_EQ("round: step up from 1000", calib_step_up(1000), 2000);
	TEST_EQ("round: step up from 2000", calib_step_up(2000), 5000);
	TEST_EQ("round: step up from 3000", calib_step_up(3000), 5000);
	TEST_EQ("round: step down from 1000", calib_step_down(1000), 500);
	TEST_EQ("round: step down from 3000", calib_step_down(3000), 2000);
	TEST_EQ("round: step down from 1", calib_step_down(1), 1);
}

static void test_precision(void)
{
	/* Wilson, z = 1.959964: n = 1000, p = 0.1: 1.959964 x
	 * sqrt(0.00009 + 3.841459 / 4e6) / 1.003841459 = 0.0186213 */
	NEAR("precision: 10% of 1000 samples: +-1.86 points", calib_halfwidth(0.10, 1000),
	     0.0186213, 2e-7);
	/* p = 0.01, n = 10000: 1.959964 x sqrt(9.9e-7 + 9.6036e-9) / 1.000384 = 0.0019588 */
	NEAR("precision: 1% of 10000 samples: +-0.196 points", calib_halfwidth(0.01, 10000),
	     0.0019588, 2e-7);
	NEAR("precision: no samples: the whole range", calib_halfwidth(0.1, 0), 1, 0);
}

static void test_solve(void)
{
	struct calib_input in = {
		.events = 2e9,
		.seconds = 2,
		.share = 1,
		.cost = 45e-6,
		.rate = 1000,
		.budget = 0.5,
		.min_samples = 1000,
	};
	struct calib_solution s;

	/* 1e9 events/s (a clock), 1000/s: N = 1e6, 2000 samples, 4.5% overhead */
	calib_solve(&in, &s);
	TEST_EQ("solve: the rate sets N", s.n, 1000000);
	TEST_EQ("solve: ... and says so", s.bound, CALIB_BY_RATE);
	NEAR("solve: expected samples", s.samples, 2000, 1e-6);
	NEAR("solve: expected overhead", s.overhead, 0.045, 1e-9);
	TEST_EQ("solve: min-samples reached", s.short_run, 0);

	/* a 2% budget at 45 us allows 444/s: N = 2.25e6, rounded up to 5e6 */
	in.budget = 0.02;
	calib_solve(&in, &s);
	TEST_EQ("solve: the budget sets N, rounded up", s.n, 5000000);
	TEST_EQ("solve: ... and says so", s.bound, CALIB_BY_OVERHEAD);
	in.exact = true;
	calib_solve(&in, &s);
	TEST_EQ("solve: --exact: N as solved", s.n, 2250000);
	NEAR("solve: --exact: overhead at the budget", s.overhead, 0.02, 1e-6);
	in.exact = false;

	/* 400 samples at 5e6 in the run, 10000 wanted: 25x longer */
	in.min_samples = 10000;
	calib_solve(&in, &s);
	TEST_EQ("solve: too short a run is said", s.short_run, 1);
	NEAR("solve: ... with how much longer it must be", s.longer, 25, 1e-9);

	/* focus on 10% of the samples: 40 there */
	in.share = 0.1;
	calib_solve(&in, &s);
	NEAR("solve: the focus's samples", s.focus_samples, 40, 1e-9);
	NEAR("solve: ... and the focus's longer run", s.longer, 250, 1e-9);

	/* 500 events/s (page faults of a slow program) under a 1000/s cap: N = 1 */
	in.events = 1000;
	in.share = 1;
	in.cost = 0;
	calib_solve(&in, &s);
	TEST_EQ("solve: an event rarer than the cap: N = 1", s.n, 1);
	TEST_EQ("solve: ... and says so", s.bound, CALIB_BY_EVENTS);
	NEAR("solve: ... every event a sample", s.samples, 1000, 1e-9);

	/* no cost known: only the rate bounds N (3000 events/s, 1000/s: 3 -> 5) */
	in.events = 6000;
	calib_solve(&in, &s);
	TEST_EQ("solve: no cost: the rate alone", s.n, 5);

	/* a clock a hair fast (1.001e9/s) at 1000/s: 1000000, not 2000000 (2% slack);
	 * 1.03e9/s is beyond it: 2000000 */
	in.events = 2.002e9;
	calib_solve(&in, &s);
	TEST_EQ("solve: within 2% above a 1-2-5 value: that value", s.n, 1000000);
	in.events = 2.06e9;
	calib_solve(&in, &s);
	TEST_EQ("solve: 3% above: the next 1-2-5 value", s.n, 2000000);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_fit), TEST_CASE(test_round), TEST_CASE(test_precision),
	  TEST_CASE(test_solve))
