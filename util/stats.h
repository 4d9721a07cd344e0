/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics of repeated runs (`ebs stat -r N`): mean,
 * standard deviation, min, max, mode, a 95% interval of the mean, with
 * outlying runs culled by a stated rule and counted.
 */
#ifndef EBS_UTIL_STATS_H
#define EBS_UTIL_STATS_H

#include <stdbool.h>
#include <stddef.h>

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

#endif /* EBS_UTIL_STATS_H */
