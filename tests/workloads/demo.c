// SPDX-License-Identifier: MIT
/*
 * demo - the workload `make demo` profiles: a little of what real programs
 * do, so the report has several rows across the program and libc.  Each
 * round sorts an array with libc's qsort(), hashes a buffer (FNV-1a),
 * multiplies two small matrices and formats numbers with snprintf().
 *
 *   demo [SECONDS]	run for SECONDS of CPU time (default 1)
 */
#include "workload.h"

#define N_SORT 4096
#define N_HASH (64 * 1024)
#define N_MAT 48

static volatile unsigned long sink;

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

WL_NOINLINE void sort_numbers(unsigned int *v, unsigned long *seed)
{
	for (int i = 0; i < N_SORT; i++) {
		*seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
		v[i] = (unsigned int)(*seed >> 33);
	}
	qsort(v, N_SORT, sizeof(*v), cmp_u32);
	sink += v[N_SORT / 2];
}

WL_NOINLINE unsigned long hash_buffer(const unsigned char *p, size_t len)
{
	unsigned long h = 0xcbf29ce484222325UL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3UL;
	}
	return h;
}

WL_NOINLINE void multiply(double a[N_MAT][N_MAT], double b[N_MAT][N_MAT], double c[N_MAT][N_MAT])
{
	for (int i = 0; i < N_MAT; i++)
		for (int j = 0; j < N_MAT; j++) {
			double s = 0;

			for (int k = 0; k < N_MAT; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

WL_NOINLINE void format_numbers(unsigned long seed)
{
	char buf[64];

	for (int i = 0; i < 2000; i++)
		sink += (unsigned long)snprintf(buf, sizeof(buf), "%lu %.3f", seed + (unsigned long)i,
						(double)i / 7.0);
}

int main(int argc, char **argv)
{
	static unsigned int v[N_SORT];
	static unsigned char buf[N_HASH];
	static double a[N_MAT][N_MAT], b[N_MAT][N_MAT], c[N_MAT][N_MAT];
	double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 1.0);
	unsigned long seed = 42;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 31);
	for (int i = 0; i < N_MAT; i++)
		for (int j = 0; j < N_MAT; j++) {
			a[i][j] = i + j;
			b[i][j] = i - j;
		}
	do {
		sort_numbers(v, &seed);
		sink += hash_buffer(buf, sizeof(buf));
		multiply(a, b, c);
		format_numbers(seed);
	} while (wl_thread_cpu() < end);
	sink += (unsigned long)c[1][1];
	return 0;
}
