// SPDX-License-Identifier: MIT
/*
 * stats.c - the statistics of repeated runs (stats.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/stats.h"
#include "util/util.h"

/* Student's t, two-sided 95%, for 1 to 30 degrees of freedom. */
static const double t975[] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201,	2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080,	2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double ebs_t975(size_t df)
{
	if (df == 0)
		return NAN;
	if (df <= sizeof(t975) / sizeof(t975[0]))
		return t975[df - 1];
	if (df < 40)
		return 2.030;
	if (df < 60)
		return 2.009;
	if (df < 120)
		return 1.990;
	return 1.960;
}

static int dbl_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The median of sorted s[0..n). */
static double median(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* v at 3 significant digits: the mode's bins. */
static double round3(double v)
{
	double m;

	if (v == 0 || !isfinite(v))
		return v;
	m = pow(10, 2 - floor(log10(fabs(v))));
	return round(v * m) / m;
}

int ebs_summarize(const double *v, size_t n, bool cull, struct ebs_summary *out,
		  unsigned char *keep)
{
	double *s, *dev, med, mad, limit, sum = 0, ss = 0, best = 0;
	size_t i, k = 0, run, best_run = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	dev = malloc(n * sizeof(*dev));
	if (!s || !dev) {
		free(s);
		free(dev);
		return -ENOMEM;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), dbl_cmp);
	med = median(s, n);
	for (i = 0; i < n; i++)
		dev[i] = fabs(s[i] - med);
	qsort(dev, n, sizeof(*dev), dbl_cmp);
	mad = median(dev, n);
	limit = fmax(fmax(EBS_CULL_MADS * 1.4826 * mad, EBS_CULL_MIN_SHARE * fabs(med)),
		     EBS_CULL_MIN_ABS);
	if (!cull)
		limit = INFINITY;
	/* with fewer than 3 runs, or a limit that would leave fewer than half: none culled */
	for (i = 0; i < n; i++)
		k += n < 3 || fabs(v[i] - med) <= limit;
	if (k * 2 < n)
		limit = INFINITY;
	for (i = 0, k = 0; i < n; i++) {
		bool in = n < 3 || fabs(v[i] - med) <= limit;

		if (keep)
			keep[i] = in;
		if (!in)
			continue;
		s[k++] = v[i];
		sum += v[i];
	}
	out->n = k;
	out->culled = n - k;
	out->mean = sum / (double)k;
	for (i = 0; i < k; i++)
		ss += (s[i] - out->mean) * (s[i] - out->mean);
	out->sd = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
	qsort(s, k, sizeof(*s), dbl_cmp);
	out->min = s[0];
	out->max = s[k - 1];
	/* the mode: the longest run of equal values at 3 significant digits */
	for (i = 0; i < k; i = run) {
		double r = round3(s[i]);

		for (run = i; run < k && round3(s[run]) == r; run++)
			;
		if (run - i > best_run) {
			best_run = run - i;
			best = r;
		}
	}
	/* a bin rounded past the runs' own range is held to it */
	out->mode = fmin(fmax(best, out->min), out->max);
	if (k > 1) {
		double half = ebs_t975(k - 1) * out->sd / sqrt((double)k);

		/* counts and times are never negative: no more is the interval */
		out->ci_lo = out->min >= 0 ? fmax(out->mean - half, 0) : out->mean - half;
		out->ci_hi = out->mean + half;
	} else {
		out->ci_lo = out->ci_hi = out->mean;
	}
	free(s);
	free(dev);
	return 0;
}
