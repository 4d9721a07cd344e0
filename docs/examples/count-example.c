// SPDX-License-Identifier: MIT
/*
 * count-example.c - libebs (ebs-count(3)) in a program: two sections, 50
 * times each, and their statistics.  Section 1 sums an array (no page
 * faults); section 2 writes 100 fresh pages (100 page faults).
 *
 *	cc count-example.c $(pkg-config --cflags --libs ebs) -o count-example
 *	./count-example [EVENTS]        (default: task-clock,page-faults)
 *
 * Unprivileged at kernel.perf_event_paranoid 2 (Debian's and most
 * distributions' default) a process may count its user space only: where
 * the kernel refuses the events as given, they are opened again with ':u'
 * (an event that has no modifier), and a line on stderr says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ebs/count.h>

#define RUNS  50
#define PAGES 100

static volatile long sink;

static void sum_array(void)
{
	static long a[4096];
	long s = 0;
	int i;

	for (i = 0; i < 4096; i++)
		s += a[i] + i;
	sink = s;
}

static void touch_pages(char *p, long psz)
{
	int i;

	for (i = 0; i < PAGES; i++)
		p[i * psz] = 1;
}

/* events with ":u" added to each that has no modifier, into buf; NULL when too long */
static const char *user_only(const char *events, char *buf, size_t len)
{
	size_t at = 0;
	const char *p = events;

	while (*p) {
		size_t n = strcspn(p, ",");
		int w = snprintf(buf + at, len - at, "%s%.*s%s", at ? "," : "", (int)n, p,
				 memchr(p, ':', n) ? "" : ":u");

		if (w < 0 || (size_t)w >= len - at)
			return NULL;
		at += (size_t)w;
		p += n + (p[n] == ',');
	}
	return buf;
}

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "task-clock,page-faults";
	long psz = sysconf(_SC_PAGESIZE);
	struct ebs_count_set *c;
	struct ebs_count_snap a, b;
	char err[512], u[512];
	int run, i;
	unsigned int id;

	c = ebs_count_open(events, err, sizeof(err));
	if (!c && (errno == EACCES || errno == EPERM) && user_only(events, u, sizeof(u)) &&
	    strcmp(u, events)) {
		fprintf(stderr, "count-example: %s: counting user space only: %s\n", err, u);
		c = ebs_count_open(u, err, sizeof(err));
	}
	if (!c) {
		fprintf(stderr, "count-example: %s\n", err);
		return 2;
	}
	printf("libebs %s, read path: %s\n", ebs_count_version(),
	       ebs_count_path_name(ebs_count_read_path(c)));
	for (i = 0; i < ebs_count_nevents(c); i++)
		printf("empty read pair: %s %.0f\n", ebs_count_event_name(c, i),
		       ebs_count_overhead(c, i));
	sum_array(); /* its array's pages faulted in before the first section */
	for (run = 0; run < RUNS; run++) {
		char *p = mmap(NULL, PAGES * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		madvise(p, PAGES * psz, MADV_NOHUGEPAGE);
		ebs_count_read(c, &a);
		sum_array();
		ebs_count_read(c, &b);
		ebs_count_record(c, 1, &a, &b);

		ebs_count_read(c, &a);
		touch_pages(p, psz);
		ebs_count_read(c, &b);
		ebs_count_record(c, 2, &a, &b);
		munmap(p, PAGES * psz);
	}
	{
		double share;

		/* below 1: the kernel multiplexed the counters, the counts are scaled estimates */
		if (ebs_count_running(c, &share) == 0 && share < 1)
			printf("counted %.1f%% of the time: counts scaled\n", 100 * share);
	}
	for (id = 1; id <= 2; id++) {
		for (i = 0; i < ebs_count_nevents(c); i++) {
			struct ebs_count_stat st;

			if (ebs_count_stat(c, id, i, &st))
				continue;
			printf("section %u %s: n %llu mean %.1f sd %.1f min %.0f max %.0f "
			       "mode %.0f\n",
			       id, ebs_count_event_name(c, i), (unsigned long long)st.n, st.mean,
			       st.sd, st.min, st.max, st.mode);
		}
	}
	ebs_count_close(c);
	return 0;
}
