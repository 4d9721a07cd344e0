// SPDX-License-Identifier: MIT
/*
 * stats.c - the statistics of repeated runs and of shares of samples
 * (stats.h).
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

/* ---- shares of samples ------------------------------------------------------------------ */

double ebs_norm_cdf(double z)
{
	/* erfc keeps its relative precision far into the tail, 1 - erf would not */
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * Acklam's rational approximation (relative error 1.15e-9) for p <= 0.5,
 * then one step of Halley's method on ebs_norm_cdf(x) - p, which brings it
 * to the precision of erfc; the upper half by symmetry (1 - p is exact
 * there, so nothing is lost).
 */
double ebs_norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double q, r, x, e, u;

	if (!(p >= 0 && p <= 1))
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p > 0.5)
		return -ebs_norm_quantile(1 - p);
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	e = ebs_norm_cdf(x) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

void ebs_wilson(u64 k, u64 n, double z, double *lo, double *hi)
{
	double p, z2n, center, half;

	if (!n) {
		*lo = *hi = 0;
		return;
	}
	p = (double)k / (double)n;
	z2n = z * z / (double)n;
	center = (p + z2n / 2) / (1 + z2n);
	half = z / (1 + z2n) * sqrt(p * (1 - p) / (double)n + z2n / (4 * (double)n));
	*lo = center - half < 0 ? 0 : center - half;
	*hi = center + half > 1 ? 1 : center + half;
}

int ebs_two_prop(u64 k1, u64 n1, u64 k2, u64 n2, double level, struct ebs_two_prop *out)
{
	double q, se, z, l1, u1, l2, u2;

	memset(out, 0, sizeof(*out));
	if (!n1 || !n2 || k1 > n1 || k2 > n2 || !(level > 0 && level < 1))
		return -EINVAL;
	out->p1 = (double)k1 / (double)n1;
	out->p2 = (double)k2 / (double)n2;
	out->diff = out->p2 - out->p1;
	/* the pooled test: under "no difference" both shares are q */
	q = (double)(k1 + k2) / (double)(n1 + n2);
	se = sqrt(q * (1 - q) * (1 / (double)n1 + 1 / (double)n2));
	if (se > 0) {
		out->z = out->diff / se;
		out->p = erfc(fabs(out->z) / M_SQRT2); /* 2 (1 - Phi(|z|)) */
	} else {
		out->p = 1; /* both shares 0, or both 1 */
	}
	/* Newcombe: the distances from each share to its Wilson limits, combined */
	z = ebs_norm_quantile(1 - (1 - level) / 2);
	ebs_wilson(k1, n1, z, &l1, &u1);
	ebs_wilson(k2, n2, z, &l2, &u2);
	out->lo =
		out->diff - sqrt((out->p2 - l2) * (out->p2 - l2) + (u1 - out->p1) * (u1 - out->p1));
	out->hi =
		out->diff + sqrt((u2 - out->p2) * (u2 - out->p2) + (out->p1 - l1) * (out->p1 - l1));
	return 0;
}

struct ranked {
	double p;
	size_t i;
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i; /* ties in the callers' order */
}

int ebs_holm(const double *p, size_t m, double *adj)
{
	struct ranked *v = malloc((m ? m : 1) * sizeof(*v));
	double run = 0;
	size_t j;

	if (!v)
		return -ENOMEM;
	for (j = 0; j < m; j++)
		v[j] = (struct ranked){isnan(p[j]) ? 1 : p[j], j};
	qsort(v, m, sizeof(*v), ranked_cmp);
	/* the j-th smallest (from 0) is held to alpha / (m - j): times (m - j), never below the one
	 * before */
	for (j = 0; j < m; j++) {
		double a = fmin(1, (double)(m - j) * v[j].p);

		run = fmax(run, a);
		adj[v[j].i] = run;
	}
	free(v);
	return 0;
}
