// SPDX-License-Identifier: MIT
/*
 * test-stats.c - the statistics of repeated runs (util/stats.c): known
 * means and deviations, the outlier rule, the mode, the 95% interval; and
 * of shares (ebs diff's):
 *
 *   test_normal      the normal CDF and quantile against values from
 *                    Python's statistics.NormalDist and erfc (the tails:
 *                    the published Phi(-8) and Phi(-20)), and each other
 *   test_two_prop    the pooled z-test and Newcombe's interval against
 *                    Newcombe's (1998) published Table II and a hand
 *                    computation (python3, no scipy: the formulas of
 *                    util/stats.h written again); the degenerate shares
 *   test_holm        adjusted p-values worked by hand; ties, NAN, m = 0
 *   test_null        simulated null hypotheses (reproducible seed): the
 *                    z-test's false alarms at 0.05 near 5%, Newcombe's
 *                    interval covering 0 near 95%, and Holm's family-wise
 *                    false alarms at most 5% on multinomial shares (the
 *                    rows of a profile, which are negatively dependent)
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "util/stats.h"
#include "test.h"

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* |a - b| <= tol * |b| */
static bool rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fabs(b);
}

static void test_normal(void)
{
	/* statistics.NormalDist().cdf (1 - erf, fine away from the tails) */
	TEST_CHECK("Phi(0) = 0.5", ebs_norm_cdf(0) == 0.5);
	TEST_CHECK("Phi(1.96) = 0.9750021048517795",
		   rel(ebs_norm_cdf(1.96), 0.9750021048517795, 1e-15));
	TEST_CHECK("Phi(-1.96) = 0.0249978951482204",
		   rel(ebs_norm_cdf(-1.96), 0.0249978951482204, 1e-13));
	TEST_CHECK("Phi(1) = 0.8413447460685429", rel(ebs_norm_cdf(1), 0.8413447460685429, 1e-15));
	TEST_CHECK("Phi(-3) = 0.0013498980316301",
		   rel(ebs_norm_cdf(-3), 0.0013498980316301, 1e-12));
	/* the tails, where 1 - erf would have nothing left (published values) */
	TEST_CHECK("Phi(-8) = 6.22096057427178e-16",
		   rel(ebs_norm_cdf(-8), 6.22096057427178e-16, 1e-12));
	TEST_CHECK("Phi(-20) = 2.75362411860623e-89",
		   rel(ebs_norm_cdf(-20), 2.75362411860623e-89, 1e-12));
	/* statistics.NormalDist().inv_cdf (Wichura's AS241, to double precision) */
	TEST_CHECK("Phi^-1(0.5) = 0", fabs(ebs_norm_quantile(0.5)) < 1e-300);
	TEST_CHECK("Phi^-1(0.975) = 1.9599639845400536",
		   rel(ebs_norm_quantile(0.975), 1.9599639845400536, 1e-14));
	TEST_CHECK("Phi^-1(0.025) = -1.9599639845400538",
		   rel(ebs_norm_quantile(0.025), -1.9599639845400538, 1e-14));
	TEST_CHECK("Phi^-1(0.995) = 2.5758293035489",
		   rel(ebs_norm_quantile(0.995), 2.5758293035489, 1e-13));
	TEST_CHECK("Phi^-1(0.3) = -0.5244005127080407",
		   rel(ebs_norm_quantile(0.3), -0.5244005127080407, 1e-14));
	TEST_CHECK("Phi^-1(1e-10) = -6.361340902404056",
		   rel(ebs_norm_quantile(1e-10), -6.361340902404056, 1e-14));
	TEST_CHECK("Phi^-1 on both sides of Acklam's break at 0.02425",
		   rel(ebs_norm_quantile(0.02425), -1.9729610513118845, 1e-14) &&
			   rel(ebs_norm_quantile(0.0242), -1.9738394633131993, 1e-14));
	TEST_CHECK("Phi^-1(0.9999) = 3.7190164854557084",
		   rel(ebs_norm_quantile(0.9999), 3.7190164854557084, 1e-13));
	TEST_CHECK("Phi^-1 of 0 and 1: -inf, +inf; outside: NAN",
		   isinf(ebs_norm_quantile(0)) && ebs_norm_quantile(0) < 0 &&
			   isinf(ebs_norm_quantile(1)) && ebs_norm_quantile(1) > 0 &&
			   isnan(ebs_norm_quantile(-0.1)) && isnan(ebs_norm_quantile(1.5)) &&
			   isnan(ebs_norm_quantile(NAN)));
	{
		double worst = 0;
		int i;

		/*
		 * The quantile inverts the CDF from 1e-300 to 1.  Far in the tail
		 * a relative error e in x is one of about x^2 e in Phi(x), so the
		 * round trip is held to 1e-15 relative (a few ulps) times x^2.
		 */
		for (i = -3000; i < 0; i++) {
			double p = pow(10, i / 10.0), x = ebs_norm_quantile(p);

			worst = fmax(worst, fabs(ebs_norm_cdf(x) - p) / p / fmax(1, x * x));
		}
		TEST_CHECK("Phi(Phi^-1(p)) = p to 1e-15 x^2 (relative) for p from 1e-300 to 1",
			   worst < 1e-15);
	}
}

static void test_two_prop(void)
{
	struct ebs_two_prop t;

	/* Newcombe (1998), Table II, method 10: new 56/70, base 48/80 */
	TEST_EQ("two_prop: returns 0", ebs_two_prop(48, 80, 56, 70, 0.95, &t), 0);
	TEST_CHECK("56/70 vs 48/80: diff 0.2, Newcombe's [0.0524, 0.3339] (published)",
		   near(t.diff, 0.2, 1e-12) && near(t.lo, 0.0524, 5e-5) &&
			   near(t.hi, 0.3339, 5e-5));
	TEST_CHECK("...z 2.6501719512585336, p 0.008045081368196568 (by hand)",
		   rel(t.z, 2.6501719512585336, 1e-12) && rel(t.p, 0.008045081368196568, 1e-10));
	ebs_two_prop(3, 10, 9, 10, 0.95, &t);
	TEST_CHECK("9/10 vs 3/10: [0.1705, 0.8090] (published)",
		   near(t.lo, 0.1705, 5e-5) && near(t.hi, 0.8090, 5e-5));
	ebs_two_prop(2, 7, 6, 7, 0.95, &t);
	TEST_CHECK("6/7 vs 2/7: [0.0582, 0.8062] (published)",
		   near(t.lo, 0.0582, 5e-5) && near(t.hi, 0.8062, 5e-5));
	ebs_two_prop(0, 29, 5, 56, 0.95, &t);
	TEST_CHECK("5/56 vs 0/29 (a row in one file only): [-0.0381, 0.1926] (published)",
		   near(t.lo, -0.0381, 5e-5) && near(t.hi, 0.1926, 5e-5));
	TEST_CHECK("...p 0.09718656817057977 (by hand)", rel(t.p, 0.09718656817057977, 1e-10));
	ebs_two_prop(750, 1000, 500, 1000, 0.95, &t);
	TEST_CHECK("75% to 50% of 1000: z -11.547005383792515, p 7.643758385631323e-31, "
		   "[-0.29030821149016206, -0.208438927089742]",
		   rel(t.z, -11.547005383792515, 1e-12) && rel(t.p, 7.643758385631323e-31, 1e-9) &&
			   rel(t.lo, -0.29030821149016206, 1e-12) &&
			   rel(t.hi, -0.208438927089742, 1e-12));
	ebs_two_prop(60, 200, 45, 200, 0.95, &t);
	TEST_CHECK("30% to 22.5% of 200: z -1.704572969181408, p 0.08827409627537748",
		   rel(t.z, -1.704572969181408, 1e-12) && rel(t.p, 0.08827409627537748, 1e-10) &&
			   rel(t.lo, -0.15987798615004617, 1e-12) &&
			   rel(t.hi, 0.011297898558042169, 1e-10));
	ebs_two_prop(0, 10, 0, 20, 0.95, &t);
	TEST_CHECK("0 of both: z 0, p 1, an interval around 0",
		   t.z == 0 && t.p == 1 && t.diff == 0 && rel(t.lo, -0.27753279986288915, 1e-12) &&
			   rel(t.hi, 0.1611251580528193, 1e-12));
	ebs_two_prop(10, 10, 20, 20, 0.95, &t);
	TEST_CHECK("all of both: z 0, p 1, the mirror interval",
		   t.z == 0 && t.p == 1 && rel(t.lo, -0.16112515805281924, 1e-12) &&
			   rel(t.hi, 0.27753279986288915, 1e-12));
	ebs_two_prop(123, 456, 123, 456, 0.95, &t);
	TEST_CHECK("equal counts: diff 0, z 0, p 1, a symmetric interval",
		   t.diff == 0 && t.z == 0 && t.p == 1 && near(t.lo, -t.hi, 1e-15) && t.hi > 0);
	TEST_CHECK("bad arguments: -EINVAL",
		   ebs_two_prop(1, 0, 1, 2, 0.95, &t) == -EINVAL &&
			   ebs_two_prop(3, 2, 1, 2, 0.95, &t) == -EINVAL &&
			   ebs_two_prop(1, 2, 1, 2, 1, &t) == -EINVAL &&
			   ebs_two_prop(1, 2, 1, 2, 0, &t) == -EINVAL);
}

static void test_holm(void)
{
	double adj[4];

	{
		double p[] = {0.01, 0.04, 0.03, 0.005};

		/* sorted: .005 x4 = .02, .01 x3 = .03, .03 x2 = .06, .04 x1 = .04 -> .06 */
		TEST_EQ("holm: returns 0", ebs_holm(p, 4, adj), 0);
		TEST_CHECK("holm: {.01, .04, .03, .005} -> {.03, .06, .06, .02}",
			   near(adj[0], 0.03, 1e-15) && near(adj[1], 0.06, 1e-15) &&
				   near(adj[2], 0.06, 1e-15) && near(adj[3], 0.02, 1e-15));
		TEST_CHECK("holm: the input is left as it was", p[3] == 0.005 && p[0] == 0.01);
	}
	{
		double p[] = {0.02, 0.03};

		ebs_holm(p, 2, adj);
		TEST_CHECK("holm: {.02, .03} -> {.04, .04}: both below .05 (Bonferroni: .04, .06)",
			   near(adj[0], 0.04, 1e-15) && near(adj[1], 0.04, 1e-15));
	}
	{
		double p[] = {0.5, 0.6, NAN};

		ebs_holm(p, 3, adj);
		TEST_CHECK("holm: held at 1; NAN counts as 1",
			   adj[0] == 1 && adj[1] == 1 && adj[2] == 1);
	}
	{
		double p[] = {0.01, 0.01, 0.01};

		ebs_holm(p, 3, adj);
		TEST_CHECK("holm: ties: all three .03 (never below the one before)",
			   near(adj[0], 0.03, 1e-15) && near(adj[1], 0.03, 1e-15) &&
				   near(adj[2], 0.03, 1e-15));
	}
	TEST_EQ("holm: no tests", ebs_holm(NULL, 0, adj), 0);
}

/* k of n draws of probability p (xorshift, reproducible). */
static unsigned long binom(unsigned long n, double p, unsigned long long *seed)
{
	unsigned long k = 0, i;

	for (i = 0; i < n; i++)
		k += (double)(test_rand(seed) >> 11) * 0x1p-53 < p;
	return k;
}

/*
 * Under no difference, the test at 0.05 alarms 5% of the time and the
 * interval covers 0 95% of the time: 4000 simulated pairs of 500 samples
 * at a share of 0.3, each rate within 4 sd of its binomial spread
 * (sqrt(.05 .95 / 4000) = 0.0034: 0.036..0.064).  Holm over the 5 rows of a
 * multinomial profile, 2000 pairs of 500 samples: a family-wise false
 * alarm rate of at most 0.05 + 4 sd (0.0195): the rows' shares sum to 1,
 * so they are dependent, which Holm allows.
 */
static void test_null(void)
{
	static const double share[] = {0.5, 0.3, 0.15, 0.04, 0.01};
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	unsigned int alarms = 0, covered = 0, families = 0, i, r;
	struct ebs_two_prop t;

	for (i = 0; i < 4000; i++) {
		ebs_two_prop(binom(500, 0.3, &seed), 500, binom(500, 0.3, &seed), 500, 0.95, &t);
		alarms += t.p <= 0.05;
		covered += t.lo <= 0 && 0 <= t.hi;
	}
	TEST_CHECK("null: the z-test alarms at 0.05 in 3.6% to 6.4% of 4000 pairs",
		   alarms >= 144 && alarms <= 256);
	printf("# null: %u of 4000 alarms, %u covered\n", alarms, covered);
	TEST_CHECK("null: Newcombe's 95% interval covers 0 in 93.6% to 96.4% of them",
		   covered >= 3744 && covered <= 3856);
	for (i = 0; i < 2000; i++) {
		unsigned long k[2][5] = {{0}};
		double p[5], adj[5];
		bool any = false;

		for (r = 0; r < 2; r++)
			for (unsigned int n = 0; n < 500; n++) {
				double u = (double)(test_rand(&seed) >> 11) * 0x1p-53, c = 0;
				unsigned int j;

				for (j = 0; j < 4 && u >= (c += share[j]); j++)
					;
				k[r][j]++;
			}
		for (r = 0; r < 5; r++) {
			ebs_two_prop(k[0][r], 500, k[1][r], 500, 0.95, &t);
			p[r] = t.p;
		}
		ebs_holm(p, 5, adj);
		for (r = 0; r < 5; r++)
			any |= adj[r] <= 0.05;
		families += any;
	}
	printf("# null: %u of 2000 families with a false alarm after Holm\n", families);
	TEST_CHECK("null: Holm's family-wise false alarms over 5 multinomial rows at most 6.95% "
		   "of 2000",
		   families <= 139);
}

/* Summaries: culling, mean, sd, mode, intervals. */
static void test_summarize(void)
{
	struct ebs_summary s;
	unsigned char keep[8];

	{
		double v[] = {4, 4, 5, 5, 5, 6, 6, 20};

		/* median 5, MAD 1: 20 is 15 away, beyond 3 * 1.4826 = 4.45 */
		TEST_EQ("summarize: returns 0", ebs_summarize(v, 8, true, &s, keep), 0);
		TEST_EQ("a run beyond 3 scaled MADs of the median is culled", s.culled, 1);
		TEST_CHECK("...the 20, and only it", !keep[7] && keep[6] && keep[0]);
		TEST_CHECK("mean of the 7 kept: 5", near(s.mean, 5, 1e-12));
		TEST_CHECK("sample sd of the 7 kept: sqrt(4/6)", near(s.sd, sqrt(4.0 / 6), 1e-12));
		TEST_CHECK("min 4, max 6", s.min == 4 && s.max == 6);
		TEST_CHECK("mode 5 (three of them)", s.mode == 5);
		TEST_CHECK("95% interval: mean -+ 2.447 sd / sqrt 7",
			   near(s.ci_hi - s.mean, 2.447 * s.sd / sqrt(7), 1e-9) &&
				   near(s.mean - s.ci_lo, s.ci_hi - s.mean, 1e-12));
		TEST_CHECK("the input is left as it was", v[7] == 20 && v[0] == 4);
	}
	{
		double v[] = {1000000, 1000400, 999800, 1000100, 1000200};

		ebs_summarize(v, 5, true, &s, NULL);
		TEST_EQ("near-constant runs (0.06% apart): none culled (1% of the median)",
			s.culled, 0);
		TEST_CHECK("min <= mode <= max, mean within", s.min <= s.mode && s.mode <= s.max &&
								      s.min <= s.mean &&
								      s.mean <= s.max);
		TEST_CHECK("mode at 3 significant digits: 1.00e6", s.mode == 1000000);
	}
	{
		double v[] = {10, 10, 10, 10, 50};

		ebs_summarize(v, 5, true, &s, keep);
		TEST_CHECK("an injected outlier among equal runs is culled (MAD 0)",
			   s.culled == 1 && !keep[4] && s.mean == 10 && s.sd == 0);
	}
	{
		double v[] = {1, 100};

		ebs_summarize(v, 2, true, &s, NULL);
		TEST_CHECK("two runs: none culled, interval with t(1) = 12.706",
			   s.culled == 0 && near(s.ci_hi - s.mean, 12.706 * s.sd / sqrt(2), 1e-9));
	}
	{
		double v[] = {1, 2, 3, 100, 200, 300};

		ebs_summarize(v, 6, true, &s, NULL);
		TEST_CHECK("at least half of the runs kept, whatever the rule says", s.n >= 3);
	}
	{
		double v[] = {42};

		ebs_summarize(v, 1, true, &s, NULL);
		TEST_CHECK("one run: sd 0, the interval the mean itself",
			   s.n == 1 && s.sd == 0 && s.ci_lo == 42 && s.ci_hi == 42 && s.mode == 42);
	}
	{
		double v[] = {0, 1, 9}, w[] = {-1, 1, 9};

		ebs_summarize(v, 3, false, &s, NULL);
		TEST_CHECK("counts (none negative): the interval's low end held at 0, not below",
			   s.ci_lo == 0 && near(s.ci_hi - s.mean, 4.303 * s.sd / sqrt(3), 1e-9));
		ebs_summarize(w, 3, false, &s, NULL);
		TEST_CHECK("a negative value: the interval as it falls", s.ci_lo < 0);
	}
	{
		double v[] = {2, 2, 2, 1, 3};

		ebs_summarize(v, 5, true, &s, NULL);
		TEST_EQ("small counts one event apart (MAD 0): none culled", s.culled, 0);
		v[4] = 9;
		ebs_summarize(v, 5, false, &s, NULL);
		TEST_CHECK("without culling: every run kept", s.culled == 0 && s.max == 9);
	}
	TEST_EQ("no runs: -EINVAL", ebs_summarize(NULL, 0, true, &s, NULL), -EINVAL);
	TEST_CHECK("t(0.975): 1 df 12.706, 4 df 2.776, 1000 df 1.96",
		   ebs_t975(1) == 12.706 && ebs_t975(4) == 2.776 && ebs_t975(1000) == 1.96);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_summarize), TEST_CASE(test_normal), TEST_CASE(test_two_prop),
	  TEST_CASE(test_holm), TEST_CASE(test_null))
