// SPDX-License-Identifier: MIT
/*
 * calibrate-model.c - the calibration model: arithmetic only (see calibrate.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sampler/calibrate.h"

int calib_fit(const struct calib_point *p, unsigned int n, struct calib_fit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, sse = 0;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	if (n < 2)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		mx += p[i].samples;
		my += p[i].seconds;
	}
	mx /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		sxx += (p[i].samples - mx) * (p[i].samples - mx);
		sxy += (p[i].samples - mx) * (p[i].seconds - my);
	}
	if (!(sxx > 0))
		return -EINVAL;
	f->n = n;
	f->cost = sxy / sxx;
	f->base = my - f->cost * mx;
	for (i = 0; i < n; i++) {
		double r = p[i].seconds - (f->base + f->cost * p[i].samples);

		if (i < sizeof(f->resid) / sizeof(f->resid[0]))
			f->resid[i] = r;
		sse += r * r;
	}
	f->rms = sqrt(sse / n);
	f->cost_se = n > 2 ? sqrt(sse / (n - 2) / sxx) : 0;
	f->cost_ci = f->cost_se * calib_t975(n - 2);
	return 0;
}

double calib_t975(unsigned int dof)
{
	static const double t[] = {
		0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
		2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};

	return dof < sizeof(t) / sizeof(t[0]) ? t[dof] : 1.96;
}

double calib_cost_used(const struct calib_fit *f, bool *measured)
{
	*measured = f->cost > 0 && f->cost > f->cost_ci;
	if (*measured)
		return f->cost;
	return f->cost > 0 ? f->cost + f->cost_ci : f->cost_ci;
}

static const unsigned int steps[] = {1, 2, 5};

#define ROUND_SLACK 1.02

u64 calib_round_up(u64 n)
{
	u64 decade = 1;

	if (n <= 1)
		return 1;
	for (;;) {
		unsigned int i;

		for (i = 0; i < 3; i++)
			if (decade * steps[i] >= n)
				return decade * steps[i];
		if (decade > UINT64_MAX / 100)
			return n;
		decade *= 10;
	}
}

u64 calib_step_up(u64 n)
{
	u64 r = calib_round_up(n);

	return r > n ? r : calib_round_up(n + 1);
}

u64 calib_step_down(u64 n)
{
	u64 below = 1, next;

	/* the largest 1-2-5 value below n */
	while ((next = calib_step_up(below)) < n && next != below)
		below = next;
	return below;
}

double calib_halfwidth(double p, double n)
{
	const double z = 1.959964;

	if (!(n > 0))
		return 1;
	return z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
}

void calib_solve(const struct calib_input *in, struct calib_solution *out)
{
	double cap = in->rate, nf;
	u64 n;

	memset(out, 0, sizeof(*out));
	out->events_per_sec = in->events / in->seconds;
	out->bound = CALIB_BY_RATE;
	if (in->cost > 0 && in->budget > 0 && in->budget / in->cost < cap) {
		cap = in->budget / in->cost;
		out->bound = CALIB_BY_OVERHEAD;
	}
	nf = out->events_per_sec / cap;
	if (nf <= 1) {
		n = 1;
		out->bound = CALIB_BY_EVENTS;
	} else {
		n = nf >= 1.8e19 ? UINT64_MAX : (u64)ceil(nf);
	}
	/*
	 * Up to 1-2-5, so that the caps hold; a 1-2-5 value at most 2% below
	 * is taken instead (a clock's 0.999e9 or 1.001e9 events/s at 1000/s is
	 * N = 1000000, not 2000000): the rate may exceed the cap by 2%.
	 */
	if (!in->exact)
		n = calib_round_up((u64)ceil((double)n / ROUND_SLACK));
	calib_expect(in, n, out);
}

void calib_expect(const struct calib_input *in, u64 n, struct calib_solution *out)
{
	out->events_per_sec = in->events / in->seconds;
	out->n = n;
	out->rate = out->events_per_sec / (double)n;
	out->samples = in->events / (double)n;
	out->focus_samples = out->samples * in->share;
	out->overhead = out->rate * in->cost;
	out->short_run = out->focus_samples < in->min_samples;
	out->longer = out->focus_samples > 0 ? in->min_samples / out->focus_samples : 0;
}
