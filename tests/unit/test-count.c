// SPDX-License-Identifier: MIT
/*
 * test-count.c - libebs (include/ebs/count.h): the mmap page's seqlock
 * read against a simulated page and rdpmc; the event parser against
 * sampler/events.c's; snapshots; statistics per section; and on the
 * machine itself, software counters: an empty section's count near zero
 * once the empty read pair's cost is subtracted, page faults of a section
 * that touches N fresh pages, sections kept apart, the read path, and the
 * error a hardware event gives where there is no PMU; every entry point
 * given a NULL set or out-pointer, each in a child process.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <ebs/count.h>
#include <ebs/ebs_events.h>
#include "count/rule.h"
#include "libebs/count_int.h"
#include "libebs/mmap_read.h"
#include "sampler/sampler.h"
#include "tests/unit/test.h"

/* ---- the simulated page and counter ---------------------------------------------------- */

static struct perf_event_mmap_page sim;
static uint64_t sim_pmc;		/* what rdpmc returns */
static unsigned int sim_calls, sim_idx; /* rdpmc calls, and the last counter asked */
static int sim_race;			/* rdpmc calls during which the "kernel" updates the page */

static uint64_t sim_rdpmc(unsigned int counter)
{
	sim_calls++;
	sim_idx = counter;
	if (sim_race > 0) {
		/* the kernel moved the counter while we read: a new lock, offset and register */
		sim_race--;
		sim.lock += 2;
		sim.offset += 1000;
		sim.index = 5;
	}
	return sim_pmc;
}

static void sim_page(uint32_t index, int64_t offset, uint16_t width, uint64_t pmc)
{
	memset(&sim, 0, sizeof(sim));
	sim.cap_user_rdpmc = 1;
	sim.index = index;
	sim.offset = offset;
	sim.pmc_width = width;
	sim.lock = 10;
	sim_pmc = pmc;
	sim_calls = 0;
	sim_idx = ~0u;
	sim_race = 0;
}

static void test_seqlock(void)
{
	struct perf_event_mmap_page *pages[2] = {&sim, &sim};
	unsigned int tries = 0;
	uint64_t v = 0;
	int r;

	sim_page(3, 1000, 48, 234);
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, &tries);
	TEST_EQ("seqlock: a read returns 0", r, 0);
	TEST_EQ("seqlock: count = offset + rdpmc", v, 1234);
	TEST_EQ("seqlock: rdpmc asked for register index - 1", sim_idx, 2);
	TEST_EQ("seqlock: one read when lock holds still", tries, 1);

	sim_page(1, 100, 48, 0xfffffffffff0ull); /* -16 in 48 bits */
	ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_EQ("seqlock: a 48-bit counter's top bit sign-extends (100 + -16)", v, 84);
	sim_page(1, 5, 48, 0xabcd000000000007ull); /* bits above the width are not the counter's */
	ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_EQ("seqlock: bits above pmc_width are dropped", v, 12);
	sim_page(1, 0, 40, 0x8000000000ull); /* bit 39: the most negative 40-bit value */
	ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_EQ("seqlock: pmc_width 40", (int64_t)v, -(int64_t)0x8000000000ll);
	sim_page(1, 0, 64, 0x8000000000000001ull);
	ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_EQ("seqlock: pmc_width 64 is taken whole", v == 0x8000000000000001ull, 1);
	TEST_EQ("sign extension: width 0 means 64", ebs_sign_extend(0xffffull, 0), 0xffff);
	TEST_EQ("sign extension: 16-bit 0xffff is -1", ebs_sign_extend(0xffffull, 16), -1);

	sim_page(3, 1000, 48, 7);
	sim_race = 1;
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, &tries);
	TEST_CHECK("seqlock: lock changed during a read: read again, the new offset taken",
		   r == 0 && v == 2007 && tries == 2);
	TEST_EQ("seqlock: ...and the new register", sim_idx, 4);

	sim_page(3, 0, 48, 7);
	sim_race = 1000;
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, &tries);
	TEST_CHECK("seqlock: a lock that never holds still gives -EBUSY (the caller reads(2))",
		   r == -EBUSY && tries == EBS_MMAP_RETRIES);

	sim_page(0, 50, 48, 7);
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_CHECK("seqlock: index 0 (not on a register): -EAGAIN, rdpmc not run",
		   r == -EAGAIN && sim_calls == 0);
	sim_page(2, 50, 48, 7);
	sim.cap_user_rdpmc = 0;
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_CHECK("seqlock: no cap_user_rdpmc: -EAGAIN, rdpmc not run",
		   r == -EAGAIN && sim_calls == 0);

	sim_page(2, 0, 48, 0);
	TEST_EQ("path: rdpmc when every page allows it", ebs_mmap_can_rdpmc(pages, 2),
		EBS_HAVE_RDPMC);
	sim.cap_user_rdpmc = 0;
	TEST_EQ("path: read when a page has no cap_user_rdpmc", ebs_mmap_can_rdpmc(pages, 2), 0);
	sim_page(0, 0, 48, 0);
	TEST_EQ("path: read when a counter has no register", ebs_mmap_can_rdpmc(pages, 2), 0);
	sim_page(2, 0, 48, 0);
	pages[1] = NULL;
	TEST_EQ("path: read when a page is not mapped", ebs_mmap_can_rdpmc(pages, 2), 0);

	{
		/* a set of three: every counter through its page, or none */
		struct perf_event_mmap_page p3[3];
		struct perf_event_mmap_page *pp[3] = {&p3[0], &p3[1], &p3[2]};
		uint64_t v3[3] = {0, 0, 0};
		int k;

		sim_page(4, 0, 48, 5);
		for (k = 0; k < 3; k++) {
			p3[k] = sim;
			p3[k].index = (uint32_t)(k + 1);
			p3[k].offset = 100 * (k + 1);
		}
		r = ebs_mmap_read_all(pp, 3, sim_rdpmc, v3);
		TEST_CHECK("set: three counters, each its offset + rdpmc of its own register",
			   r == 0 && v3[0] == 105 && v3[1] == 205 && v3[2] == 305 &&
				   sim_calls == 3 && sim_idx == 2);
		p3[1].index = 0;
		sim_calls = 0;
		r = ebs_mmap_read_all(pp, 3, sim_rdpmc, v3);
		TEST_CHECK(
			"set: a counter off its register: -EAGAIN at it (the set is read(2) whole)",
			r == -EAGAIN && sim_calls == 1);
	}

	/* multiplexed: the page's times differ, so the count needs read(2)'s to be scaled */
	sim_page(2, 50, 48, 7);
	sim.time_enabled = 2000;
	sim.time_running = 1000;
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_CHECK("seqlock: time enabled above time running (multiplexed): -EAGAIN, rdpmc not run",
		   r == -EAGAIN && sim_calls == 0);
	sim.time_running = 2000;
	r = ebs_mmap_read(&sim, sim_rdpmc, &v, NULL);
	TEST_CHECK("seqlock: equal times (never multiplexed): read with rdpmc",
		   r == 0 && v == 57 && sim_calls == 1);

	/* a 2.5 GHz TSC: 0.4 ns a cycle = time_mult / 2^31 */
	sim_page(0, 0, 0, 0);
	sim.cap_user_time = 1;
	sim.time_shift = 31;
	sim.time_mult = (uint32_t)llround(0.4 * 2147483648.0);
	TEST_CHECK("tsc: time_mult / 2^time_shift ns a cycle -> Hz (2.5 GHz, 1e-8 relative)",
		   fabs(ebs_mmap_tsc_hz(&sim) / 2.5e9 - 1) < 1e-8);
	sim.cap_user_time = 0;
	TEST_CHECK("tsc: no cap_user_time: 0 Hz", ebs_mmap_tsc_hz(&sim) == 0);
}

/* ---- scaling for multiplexing ----------------------------------------------------------- */

/* libebs reads a group with count/rule.h's count_scale_u64: one with a hardware event */
static uint64_t scale(uint64_t raw, uint64_t enabled, uint64_t running)
{
	return count_scale_u64(true, raw, enabled, running);
}

static void test_scale(void)
{
	TEST_EQ("scale: counted half the time: twice the raw count", scale(1000, 200, 100), 2000);
	TEST_EQ("scale: counted all the time: the raw count", scale(1000, 100, 100), 1000);
	TEST_EQ("scale: running above enabled (rounding): the raw count", scale(1000, 100, 101),
		1000);
	TEST_EQ("scale: never ran: 0", scale(1000, 100, 0), 0);
	TEST_EQ("scale: 3 of 7 parts: rounded down (1000 * 7 / 3)", scale(1000, 7, 3), 2333);
	TEST_CHECK("scale: exact past 64 bits (2^62 * 3 / 2)",
		   scale((uint64_t)1 << 62, 3, 2) == ((uint64_t)3 << 61));
	TEST_CHECK("scale: saturates at UINT64_MAX", scale(UINT64_MAX, 3, 1) == UINT64_MAX);
}

/* ---- the parser, against ebs's --------------------------------------------------------- */

static void test_parse(void)
{
	const char *mods[] = {"", ":u", ":k"};
	struct ebs_count_event ce[EBS_COUNT_MAX_EVENTS];
	const struct ebs_event *n;
	char err[256], text[80];
	int bad = 0, names = 0, m, r;

	for (n = ebs_events; n->name; n++) {
		for (m = 0; m < 3; m++) {
			struct event_spec es;
			struct ebs_error eerr = {0};

			snprintf(text, sizeof(text), "%s%s", n->name, mods[m]);
			r = ebs_count__parse(text, ce, err, sizeof(err));
			if (r != 1 || event_spec__parse(text, &es, &eerr) != 0 ||
			    ce[0].type != es.type || ce[0].config != es.config ||
			    !ce[0].hardware != !es.hardware ||
			    !ce[0].exclude_kernel != !es.exclude_kernel ||
			    !ce[0].exclude_user != !es.exclude_user || strcmp(ce[0].name, text)) {
				TEST_FAIL("parse", "'%s' parsed unlike sampler/events.c", text);
				bad++;
			}
		}
		names++;
	}
	TEST_CHECK("parse: every event of ebs_events.h, plain, :u, :k, as event_spec__parse",
		   !bad && names >= 13);

	r = ebs_count__parse("task-clock,page-faults,cycles:u", ce, err, sizeof(err));
	TEST_CHECK("parse: a list of 3", r == 3 && !strcmp(ce[2].name, "cycles:u") &&
						 ce[2].exclude_kernel && ce[2].hardware);
#define REFUSED(name, text, needle)                                                                \
	do {                                                                                       \
		err[0] = 0;                                                                        \
		r = ebs_count__parse(text, ce, err, sizeof(err));                                  \
		if (r == -EINVAL && strstr(err, needle))                                           \
			TEST_OK(name);                                                             \
		else                                                                               \
			TEST_FAIL(name, "'%s': %d, '%s' (want -EINVAL naming '%s')", text, r, err, \
				  needle);                                                         \
	} while (0)
	REFUSED("parse: an unknown event is named", "task-clock,bogus", "unknown event 'bogus'");
	REFUSED("parse: an unknown event: the events taken said", "bogus:u",
		"libebs takes cycles,instructions,");
	REFUSED("parse: a raw event: said not taken", "task-clock,r00c0:u",
		"event 'r00c0': raw events (rUUEE) are not taken by libebs; it takes cycles,");
	REFUSED("parse: r and not hex: unknown", "rxyz", "unknown event 'rxyz'");
	REFUSED("parse: a bad modifier is named", "page-faults:x", "page-faults:x");
	REFUSED("parse: :u twice", "page-faults:u:u", "':u'");
	REFUSED("parse: :u and :k", "task-clock:u:k", ":u and :k");
	REFUSED("parse: an empty name in the list", "task-clock,,page-faults", "empty");
	REFUSED("parse: nothing", "", "no events");
	REFUSED("parse: an unknown name's newline and escape are '?': one line",
		"task-clock,bo\ngus\x1b]0;x\x07", "unknown event 'bo?gus?]0;x?'");
	REFUSED("parse: a bad modifier's control characters are '?'", "page-faults:\x9bu", "':?u'");
	REFUSED("parse: more than EBS_COUNT_MAX_EVENTS",
		"task-clock,task-clock,task-clock,task-clock,task-clock,task-clock,task-clock,"
		"task-clock,task-clock",
		"more than 8");
}

/* ---- snapshots and statistics ------------------------------------------------------------ */

static void test_snap(void)
{
	struct ebs_count_snap a = {{5, 100, UINT64_MAX}}, b = {{7, 100, 1}}, d;

	memset(&d, 0xff, sizeof(d));
	ebs_count_sub(&b, &a, &d, 3);
	TEST_CHECK("snap: b - a, counter by counter (modulo 2^64 across a wrap)",
		   d.v[0] == 2 && d.v[1] == 0 && d.v[2] == 2);
	TEST_CHECK("snap: counters past n untouched", d.v[3] == UINT64_MAX);
}

/* Record section id of c with values x[0..n) for event i (the others 0), the overhead added back.
 */
static void record_values(struct ebs_count_set *c, unsigned int id, int i, const double *x, int n)
{
	int k, j;

	for (k = 0; k < n; k++) {
		struct ebs_count_snap a, b;

		for (j = 0; j < ebs_count_nevents(c); j++) {
			a.v[j] = 1000000;
			b.v[j] = a.v[j] + (uint64_t)ebs_count_overhead(c, j) +
				 (j == i ? (uint64_t)x[k] : 0);
		}
		ebs_count_record(c, id, &a, &b);
	}
}

static void test_stats(struct ebs_count_set *c)
{
	const double x[] = {10, 20, 20, 30, 40};
	struct ebs_count_stat st;
	struct ebs_count_snap a = {{0}};
	int k, r;

	TEST_CHECK("overheads are whole counts (medians of an odd number of pairs)",
		   ebs_count_overhead(c, 0) == floor(ebs_count_overhead(c, 0)) &&
			   ebs_count_overhead(c, 1) == floor(ebs_count_overhead(c, 1)));
	record_values(c, 900, 1, x, 5);
	r = ebs_count_stat(c, 900, 1, &st);
	TEST_EQ("stats: a section's statistics", r, 0);
	TEST_EQ("stats: n", st.n, 5);
	TEST_CHECK("stats: mean 24", fabs(st.mean - 24) < 1e-9);
	TEST_CHECK("stats: sample sd sqrt(520/4)", fabs(st.sd - sqrt(520.0 / 4)) < 1e-9);
	TEST_CHECK("stats: min 10, max 40", st.min == 10 && st.max == 40);
	TEST_CHECK("stats: mode 20", st.mode == 20);
	r = ebs_count_stat(c, 900, 0, &st);
	TEST_CHECK("stats: the other event's values: 0 after the overhead",
		   r == 0 && st.mean == 0 && st.min == 0 && st.max == 0);
	TEST_EQ("stats: a section never recorded: -ENOENT", ebs_count_stat(c, 901, 0, &st),
		-ENOENT);
	TEST_EQ("stats: an id past EBS_COUNT_MAX_SECTIONS: -EINVAL",
		ebs_count_stat(c, EBS_COUNT_MAX_SECTIONS, 0, &st), -EINVAL);
	TEST_EQ("stats: recording such an id: -EINVAL",
		ebs_count_record(c, EBS_COUNT_MAX_SECTIONS, &a, &a), -EINVAL);
	TEST_EQ("stats: an event out of range: -EINVAL", ebs_count_stat(c, 900, 7, &st), -EINVAL);

	/* past the mode's store: the running sums go on, the mode is of the first values */
	for (k = 0; k < EBS_COUNT_MODE_SAMPLES + 50; k++) {
		double v = k < EBS_COUNT_MODE_SAMPLES ? 3 : 9;

		record_values(c, 901, 1, &v, 1);
	}
	r = ebs_count_stat(c, 901, 1, &st);
	TEST_CHECK("stats: past EBS_COUNT_MODE_SAMPLES: n and max of all, mode of those kept",
		   r == 0 && st.n == EBS_COUNT_MODE_SAMPLES + 50 && st.max == 9 && st.mode == 3);
	ebs_count_reset(c);
	TEST_EQ("stats: reset forgets sections", ebs_count_stat(c, 900, 1, &st), -ENOENT);
}

/* ---- the machine's own counters ----------------------------------------------------------- */

/* Record section id: a read, n fresh pages written, a read. */
static void touch_pages(struct ebs_count_set *c, unsigned int id, size_t n)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), k;
	struct ebs_count_snap a, b;
	char *p = mmap(NULL, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise(p, n * psz, MADV_NOHUGEPAGE); /* one fault a page, not one per 2 MiB */
	ebs_count_read(c, &a);
	for (k = 0; k < n; k++)
		((volatile char *)p)[k * psz] = 1;
	ebs_count_read(c, &b);
	ebs_count_record(c, id, &a, &b);
	munmap(p, n * psz);
}

static void test_machine(void)
{
	char err[256], why[256];
	struct ebs_count_set *c;
	struct ebs_count_stat st, st2;
	struct ebs_count_snap a, b;
	enum ebs_count_path path;
	unsigned int id;
	double ov;
	int k, r, fds;

	fds = test_open_fds();
	c = ebs_count_open("task-clock,page-faults,context-switches", err, sizeof(err));
	if (!c) {
		TEST_SKIP("machine", "task-clock cannot be opened here: %s", err);
		return;
	}
	TEST_OK("open: task-clock,page-faults,context-switches");
	TEST_CHECK("open: 3 events, named as given",
		   ebs_count_nevents(c) == 3 &&
			   !strcmp(ebs_count_event_name(c, 1), "page-faults") &&
			   ebs_count_event_name(c, 3) == NULL);
	TEST_CHECK("path: software events are read with read(2)",
		   ebs_count_read_path(c) == EBS_COUNT_PATH_READ &&
			   !strcmp(ebs_count_path_name(ebs_count_read_path(c)), "read"));
	ov = ebs_count_overhead(c, 0);
	printf("# empty read pair (read path): task-clock %.0f ns, %.0f TSC cycles, TSC %.0f Hz\n",
	       ov, ebs_count_overhead_tsc(c), ebs_tsc_hz(c));
	TEST_CHECK("overhead: task-clock's empty read pair costs 1 ns to 1 ms",
		   ov >= 1 && ov <= 1e6);
	TEST_CHECK("overhead: an empty read pair takes no page fault",
		   ebs_count_overhead(c, 1) == 0);
	TEST_CHECK("tsc: rate 0 (not given) or 100 MHz to 100 GHz",
		   ebs_tsc_hz(c) == 0 || (ebs_tsc_hz(c) >= 1e8 && ebs_tsc_hz(c) <= 1e11));
	TEST_EQ("read: 0", ebs_count_read(c, &a), 0);
	for (k = 0; k < 100000; k++)
		__asm__ __volatile__("" ::: "memory");
	ebs_count_read(c, &b);
	TEST_CHECK("read: task-clock counts forward", b.v[0] > a.v[0]);
	{
		double share = -1;

		r = ebs_count_running(c, &share);
		TEST_CHECK("running: software events count all their time (share 1)",
			   r == 0 && share == 1);
	}

	test_stats(c);

	/*
	 * An empty section, 2000 times, in up to 5 blocks (sections 10 to
	 * 14).  With the pair's median subtracted, the mean is what the rest
	 * of the distribution adds: a pair that an interrupt or a preemption
	 * fell into (up to 100 us here with the 2 cores busy: 50 ns of a mean
	 * of 2000 each).  The errors this catches are a whole pair's cost
	 * off: no subtraction (+overhead) or two (-overhead).  So a block
	 * passes within half of it, and the best of 5 blocks is taken, so that
	 * a burst of load during one block does not fail the test.  The mode
	 * bins single pairs and ignores outliers: within a quarter of the cost
	 * plus 100 ns of 0.
	 */
	for (id = 10; id < 15; id++) {
		for (k = 0; k < 2000; k++) {
			ebs_count_read(c, &a);
			ebs_count_read(c, &b);
			ebs_count_record(c, id, &a, &b);
		}
		r = ebs_count_stat(c, id, 0, &st);
		printf("# empty section %u: task-clock mean %.1f ns, sd %.1f, mode %.1f, min %.0f, "
		       "max %.0f\n",
		       id, st.mean, st.sd, st.mode, st.min, st.max);
		if (r == 0 && fabs(st.mean) <= ov / 2)
			break;
	}
	TEST_CHECK("empty section: |task-clock mean| <= overhead / 2 (best of 5 blocks of 2000)",
		   r == 0 && st.n == 2000 && fabs(st.mean) <= ov / 2);
	TEST_CHECK("empty section: task-clock mode within overhead / 4 + 100 ns of 0",
		   fabs(st.mode) <= ov / 4 + 100);
	r = ebs_count_stat(c, 10, 1, &st);
	TEST_CHECK("empty section: no page faults (mean below 0.01)",
		   r == 0 && fabs(st.mean) < 0.01);

	/* page faults: 5 sections of 512 fresh pages, 5 of 64, interleaved */
	for (k = 0; k < 5; k++) {
		touch_pages(c, 1, 512);
		touch_pages(c, 2, 64);
	}
	r = ebs_count_stat(c, 1, 1, &st);
	printf("# 512 pages: page-faults mean %.1f min %.0f max %.0f\n", st.mean, st.min, st.max);
	TEST_CHECK("page faults: a section writing 512 fresh pages counts 512 (10%)",
		   r == 0 && st.n == 5 && fabs(st.mean - 512) <= 51.2);
	r = ebs_count_stat(c, 2, 1, &st2);
	printf("# 64 pages: page-faults mean %.1f min %.0f max %.0f\n", st2.mean, st2.min, st2.max);
	TEST_CHECK("sections kept apart: the 64-page section counts 64 (10%), 5 times",
		   r == 0 && st2.n == 5 && fabs(st2.mean - 64) <= 6.4);
	TEST_CHECK("sections kept apart: the empty section still has its own 2000",
		   ebs_count_stat(c, 10, 1, &st) == 0 && st.n == 2000);
	ebs_count_close(c);
	TEST_EQ("close: the set's descriptors closed", test_open_fds(), fds);
	TEST_SURVIVES("close: NULL is nothing to close", ebs_count_close(NULL));

	/* hardware: requested as such; here (no PMU) a clear error naming the event */
	errno = 0;
	c = ebs_count_open("task-clock,cycles", err, sizeof(err));
	if (c) {
		TEST_SKIP("hardware event without a PMU", "cycles opens here (a PMU): path %s",
			  ebs_count_path_name(ebs_count_read_path(c)));
		ebs_count_close(c);
	} else {
		TEST_CHECK("hardware event without a PMU: NULL, errno set, the error names it",
			   errno != 0 && strstr(err, "'cycles'") && strstr(err, "PMU"));
		printf("# %s\n", err);
	}
	path = ebs_count_probe_path(why, sizeof(why));
	printf("# probe: %s: %s\n", ebs_count_path_name(path), why);
	if (path == EBS_COUNT_PATH_READ)
		TEST_CHECK("probe: read path, saying why", why[0] != 0);
	else
		TEST_CHECK("probe: rdpmc, saying so", strstr(why, "cap_user_rdpmc 1") != NULL);

	errno = 0;
	c = ebs_count_open("task-clock,bogus", err, sizeof(err));
	TEST_CHECK("open: a bad event string: NULL, EINVAL, the error names it",
		   !c && errno == EINVAL && strstr(err, "'bogus'"));
	c = ebs_count_open("task-clock,bogus", NULL, 0);
	TEST_CHECK("open: err may be NULL", !c && errno == EINVAL);
}

/* ---- NULL handles and out-pointers (ebs-count(3)) ---------------------------------------- */

static struct ebs_count_set *live; /* a set of this thread's, for the NULL out-pointers */

/* The calls, each with a NULL where a set or an out-pointer goes, and what each returns. */
static const struct null_call {
	const char *name;
	bool needs_live;
} null_calls[] = {
	{"read(NULL, &s): -EINVAL, errno EINVAL", false},
	{"read(c, NULL): -EINVAL, errno EINVAL", true},
	{"record(NULL, 0, &a, &b): -EINVAL, errno EINVAL", false},
	{"record(c, 0, NULL, &b): -EINVAL, errno EINVAL", true},
	{"stat(NULL, 0, 0, &st): -EINVAL, errno EINVAL", false},
	{"stat(c, 0, 0, NULL): -EINVAL, errno EINVAL", true},
	{"running(NULL, &share): -EINVAL, errno EINVAL", false},
	{"running(c, NULL): -EINVAL, errno EINVAL", true},
	{"nevents(NULL): -1, errno EINVAL", false},
	{"event_name(NULL, 0): NULL, errno EINVAL", false},
	{"overhead(NULL, 0): 0, errno EINVAL", false},
	{"overhead_tsc(NULL): 0, errno EINVAL", false},
	{"reset(NULL): nothing, errno EINVAL", false},
	{"read_path(NULL): EBS_COUNT_PATH_READ, errno EINVAL", false},
	{"tsc_hz(NULL): 0, errno EINVAL", false},
	{"sub(NULL, &a, &d, 1): nothing, errno EINVAL", false},
	{"close(NULL): nothing", false},
	{"open(NULL, err, len): NULL, errno EINVAL", false},
};

/* Call k of null_calls (in its order): 0 when it returned what the table says. */
static int null_call(int k)
{
	struct ebs_count_snap a = {{0}}, d = {{7}};
	struct ebs_count_stat st;
	double share = -1;
	char err[64];
	int r = -1;

	errno = 0;
	switch (k) {
	case 0:
		r = ebs_count_read(NULL, &a) == -EINVAL;
		break;
	case 1:
		r = ebs_count_read(live, NULL) == -EINVAL;
		break;
	case 2:
		r = ebs_count_record(NULL, 0, &a, &a) == -EINVAL;
		break;
	case 3:
		r = ebs_count_record(live, 0, NULL, &a) == -EINVAL;
		break;
	case 4:
		r = ebs_count_stat(NULL, 0, 0, &st) == -EINVAL;
		break;
	case 5:
		r = ebs_count_stat(live, 0, 0, NULL) == -EINVAL;
		break;
	case 6:
		r = ebs_count_running(NULL, &share) == -EINVAL && share == -1;
		break;
	case 7:
		r = ebs_count_running(live, NULL) == -EINVAL;
		break;
	case 8:
		r = ebs_count_nevents(NULL) == -1;
		break;
	case 9:
		r = ebs_count_event_name(NULL, 0) == NULL;
		break;
	case 10:
		r = ebs_count_overhead(NULL, 0) == 0;
		break;
	case 11:
		r = ebs_count_overhead_tsc(NULL) == 0;
		break;
	case 12:
		ebs_count_reset(NULL);
		r = 1;
		break;
	case 13:
		r = ebs_count_read_path(NULL) == EBS_COUNT_PATH_READ;
		break;
	case 14:
		r = ebs_tsc_hz(NULL) == 0;
		break;
	case 15:
		ebs_count_sub(NULL, &a, &d, 1);
		r = d.v[0] == 7;
		break;
	case 16:
		ebs_count_close(NULL);
		return 0; /* free(NULL)'s way: errno left alone */
	case 17:
		r = ebs_count_open(NULL, err, sizeof(err)) == NULL && err[0];
		break;
	}
	return r == 1 && errno == EINVAL ? 0 : 1;
}

/*
 * Each call in a child of its own, so that one that dereferences its NULL
 * (as every one of these did before: SIGSEGV) fails its own check only.
 */
static void test_null(void)
{
	char name[128], err[256];
	unsigned int k;
	int st;

	live = ebs_count_open("task-clock", err, sizeof(err));
	for (k = 0; k < ARRAY_SIZE(null_calls); k++) {
		pid_t pid;

		snprintf(name, sizeof(name), "NULL: %s, no crash", null_calls[k].name);
		if (null_calls[k].needs_live && !live) {
			TEST_SKIP(name, "task-clock cannot be opened here: %s", err);
			continue;
		}
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(null_call((int)k));
		if (pid < 0 || waitpid(pid, &st, 0) != pid)
			TEST_FAIL(name, "no child: %s", strerror(errno));
		else if (WIFSIGNALED(st))
			TEST_FAIL(name, "killed by signal %d", WTERMSIG(st));
		else
			TEST_CHECK(name, WEXITSTATUS(st) == 0);
	}
	ebs_count_close(live);
}

/* The library is the header's version; the TSC counts forward. */
static void test_version(void)
{
	uint64_t t0, t1;

	TEST_STREQ("version: the library's is the header's", ebs_count_version(),
		   EBS_COUNT_VERSION);
	t0 = ebs_tsc();
	t1 = ebs_tsc();
	TEST_CHECK("tsc: counts forward", t1 >= t0 && t0 != 0);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_version), TEST_CASE(test_seqlock), TEST_CASE(test_scale),
	  TEST_CASE(test_parse), TEST_CASE(test_snap), TEST_CASE(test_machine),
	  TEST_CASE(test_null))
