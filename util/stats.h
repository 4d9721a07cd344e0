/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics of repeated runs (`ebs stat -r N`): mean,
 * standard deviation, min, max, mode, a 95% interval of the mean, with
 * outlying runs culled by a stated rule and counted; and of shares of
 * samples (`ebs report`, `ebs diff`): the normal distribution, Wilson's
 * interval of a share, the two-proportion test with Newcombe's interval of
 * a difference, and Holm's correction for many tests.
 */
#ifndef EBS_UTIL_STATS_H
#define EBS_UTIL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

struct ebs_summary {
	size_t n;	 /* runs kept */
	size_t culled;	 /* runs left out as outliers */
	double mean, sd; /* sd: the sample standard deviation (n - 1); 0 for one run */
	double min, max; /* of the runs kept */
	double mode; /* the most frequent value at 3 significant digits (the smaller on a tie) */
	/* 95% interval of the mean: mean -+ t(0.975, n - 1) sd / sqrt(n), its
	 * low end held at 0 when no value is negative */
	double ci_lo, ci_hi;
};

/*
 * The rule for outliers, as PmonStat advises for near-constant code: with
 * 3 runs or more, a run whose value is further from the median than 3
 * scaled median absolute deviations (1.4826 MAD, the standard deviation
 * of a normal sample), than 1% of the median and than 1 (one event) is
 * culled.  At least half of the runs are always kept.
 */
#define EBS_CULL_MADS	   3.0
#define EBS_CULL_MIN_SHARE 0.01
#define EBS_CULL_MIN_ABS   1.0

/*
 * Summarize v[0..n) (n >= 1; v is left as it is), outliers culled when
 * cull.  keep[i], when keep is not NULL, says whether run i (in v's
 * original order) was kept.  0, or -EINVAL for n == 0, -ENOMEM.
 */
int ebs_summarize(const double *v, size_t n, bool cull, struct ebs_summary *out,
		  unsigned char *keep);

/* Student's t at 0.975 for df degrees of freedom (1.96 from 120 on). */
double ebs_t975(size_t df);

/* ---- shares of samples ------------------------------------------------------------------ */

/* The standard normal distribution function: P(Z <= z), to double precision in both tails. */
double ebs_norm_cdf(double z);

/*
 * Its quantile: the z with P(Z <= z) = p, relative error below 1e-14;
 * -inf and +inf for p 0 and 1, NAN outside [0, 1].
 */
double ebs_norm_quantile(double p);

/*
 * Wilson's score interval of the share k/n (k <= n) at the normal quantile
 * z (1.96 for 95%), as fractions, held to [0, 1]; [0, 0] for n = 0.
 */
void ebs_wilson(u64 k, u64 n, double z, double *lo, double *hi);

/*
 * Two shares compared: k1 of n1 and k2 of n2 samples (n1, n2 > 0), as
 * fractions.  diff is p2 - p1.  z and p are the pooled two-proportion
 * z-test's: z = diff / sqrt(q (1 - q) (1/n1 + 1/n2)) with q = (k1 + k2) /
 * (n1 + n2), p = P(|Z| >= |z|) two-sided (z 0 and p 1 when q is 0 or 1:
 * the shares are equal).  lo, hi: Newcombe's hybrid score interval of diff
 * (his method 10, from the two Wilson intervals) at the level asked.
 */
struct ebs_two_prop {
	double p1, p2, diff;
	double z, p;
	double lo, hi;
};

/* 0, or -EINVAL for n1 or n2 0, k1 > n1, k2 > n2, or a level outside (0, 1). */
int ebs_two_prop(u64 k1, u64 n1, u64 k2, u64 n2, double level, struct ebs_two_prop *out);

/*
 * Holm's step-down adjusted p-values of m tests: with p sorted ascending,
 * p(1) <= ... <= p(m), adj(i) = max over j <= i of min(1, (m - j + 1)
 * p(j)).  A test whose adj[i] <= alpha is rejected at family-wise error
 * alpha, whatever the tests' dependence.  adj[i] is p[i]'s (p is left as
 * it is; a NAN counts as 1).  0, or -ENOMEM.
 */
int ebs_holm(const double *p, size_t m, double *adj);

#endif /* EBS_UTIL_STATS_H */
