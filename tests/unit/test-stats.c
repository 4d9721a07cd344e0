// SPDX-License-Identifier: MIT
/*
 * test-stats.c - the statistics of repeated runs (util/stats.c): known
 * means and deviations, the outlier rule, the mode, the 95% interval.
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

int main(void)
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
	return test_done();
}
