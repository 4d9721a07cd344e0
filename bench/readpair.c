/* SPDX-License-Identifier: MIT */
/*
 * bench/readpair.c - the libebs_read row of `make bench` (issue 34): what
 * one ebs_count_read() of a set costs against one bare read(2) of the same
 * group, opened by hand with the same events and read_format.  bench.py
 * compiles it against build/libebs.a and runs it RUNS times.
 *
 *	readpair EVENTS ROUNDS BATCH
 *
 * Each round times BATCH reads of each (CLOCK_MONOTONIC around the batch),
 * libebs first in even rounds and the bare read first in odd ones, and
 * prints one line: the least and the median over the rounds of the
 * nanoseconds per read, libebs's and the bare one's, and the read path
 * libebs took:
 *
 *	libebs_ns 1180.2 bare_ns 1175.0 libebs_median_ns 1234.5 bare_median_ns 1200.1 path read
 *
 * The least is the cost of a batch that nothing else disturbed (no
 * preemption, no interrupt, no other process on the core's sibling): on a
 * shared machine the medians move by a tenth from one run to the next.
 */
#define _GNU_SOURCE
#include <ebs/count.h>

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} known[] = {
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

/* The group libebs opens for EVENTS (software events only), opened by hand. */
static int open_group(const char *events, int *nev)
{
	char *list = strdup(events), *save = NULL, *name;
	int leader = -1;

	*nev = 0;
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr a;
		size_t k;
		int fd;

		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(known[k].name, name))
				break;
		if (k == sizeof(known) / sizeof(known[0])) {
			fprintf(stderr, "readpair: %s: not one of the software events taken here\n",
				name);
			exit(1);
		}
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = known[k].type;
		a.config = known[k].config;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, leader, 0);
		if (fd < 0) {
			perror("readpair: perf_event_open");
			exit(1);
		}
		if (leader < 0)
			leader = fd;
		++*nev;
	}
	free(list);
	return leader;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int dcmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	struct ebs_count_set *c;
	struct ebs_count_snap s;
	uint64_t buf[3 + EBS_COUNT_MAX_EVENTS];
	double *lib, *bare, lmin, bmin;
	char err[256];
	int rounds, batch, fd, nev, r, i, k;

	if (argc != 4 || (rounds = atoi(argv[2])) < 1 || (batch = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: readpair EVENTS ROUNDS BATCH\n");
		return 2;
	}
	c = ebs_count_open(argv[1], err, sizeof(err));
	if (!c) {
		fprintf(stderr, "readpair: %s\n", err);
		return 1;
	}
	fd = open_group(argv[1], &nev);
	lib = calloc((size_t)rounds, sizeof(*lib));
	bare = calloc((size_t)rounds, sizeof(*bare));
	if (!lib || !bare)
		return 1;
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 2; k++) {
			double t0 = now_ns();

			if ((k == 0) == (r % 2 == 0)) {
				for (i = 0; i < batch; i++)
					if (ebs_count_read(c, &s) < 0)
						return 1;
				lib[r] = (now_ns() - t0) / batch;
			} else {
				for (i = 0; i < batch; i++)
					if (read(fd, buf, sizeof(buf)) != (ssize_t)((3 + nev) * 8))
						return 1;
				bare[r] = (now_ns() - t0) / batch;
			}
		}
	}
	lmin = lib[0];
	bmin = bare[0];
	for (r = 1; r < rounds; r++) {
		lmin = lib[r] < lmin ? lib[r] : lmin;
		bmin = bare[r] < bmin ? bare[r] : bmin;
	}
	printf("libebs_ns %.1f bare_ns %.1f libebs_median_ns %.1f bare_median_ns %.1f path %s\n",
	       lmin, bmin, median(lib, rounds), median(bare, rounds),
	       ebs_count_path_name(ebs_count_read_path(c)));
	ebs_count_close(c);
	close(fd);
	return 0;
}
