// SPDX-License-Identifier: MIT
/*
 * test-countmod.c - count/: counting's one rule (count/rule.h), event
 * identity by ids, and the one number every reader of a counter gives.
 *
 * The disagreement this guards against: a software counter whose time
 * running fell short of its time enabled (as software counters' do under
 * load; the kernel never multiplexes them on their own) was left as read
 * by ebs stat, calibrate and the sampler, but scaled up by the report's
 * header (report/facts.c) and by libebs; libebs also scaled a hardware
 * counter that ran 99.95% of the time, where the others allow 0.1%.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ebs/ebs_events.h>

#include "count/rule.h"
#include "count/stat.h"
#include "report/facts.h"
#include "tests/unit/test.h"

/* One thread's counters on CPUs 0 and 1, together running 950 us of its 1 ms. */
static const struct {
	u64 value, enabled, running;
	u32 cpu;
} reading[] = {
	{600000, 1000000, 500000, 0},
	{400000, 1000000, 450000, 1},
};
#define NR_READING (sizeof(reading) / sizeof(reading[0]))
#define TID	   100

static void test_rule(void)
{
	TEST_CHECK("rule: a counter of a PMU group that ran half its time: twice its value",
		   count_scale(true, 1000, 2000, 1000) == 2000);
	TEST_CHECK("rule: a counter of a software group that ran half its time: its value",
		   count_scale(false, 1000, 2000, 1000) == 1000);
	TEST_CHECK("rule: 0.1% short of enabled is not multiplexed",
		   !count_multiplexed(true, 1000000, 999000));
	TEST_CHECK("rule: more than 0.1% short is", count_multiplexed(true, 1000000, 998999));
	TEST_CHECK("rule: a counter of a PMU group that never ran counts 0",
		   count_scale(true, 5, 1000, 0) == 0 && count_scale_u64(true, 5, 1000, 0) == 0);
	TEST_CHECK("rule: hardware and raw events are a PMU's, software ones not",
		   count_event_on_pmu(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0) &&
			   count_event_on_pmu(PERF_TYPE_RAW, 0x3c, 0) &&
			   !count_event_on_pmu(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0));
	TEST_CHECK("rule: ebs.ko's encoding of task-clock (a file's EVENT) is software",
		   !count_event_on_pmu(EBS_EVENT_TYPE_KMOD, EBS_GEN_TASK_CLOCK, EBS_EVENT_GENERIC));
	TEST_CHECK("rule: ebs.ko's raw event is a PMU's",
		   count_event_on_pmu(EBS_EVENT_TYPE_KMOD, 0x3c, EBS_EVENT_RAW));
}

static void test_clock(void)
{
	struct event_spec named_cycles = {
		.name = "cycles", .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK};
	struct event_spec named_clock = {.name = "task-clock",
					 .type = PERF_TYPE_HARDWARE,
					 .config = PERF_COUNT_HW_CPU_CYCLES};

	TEST_CHECK("clock: cpu-clock and task-clock by their ids",
		   count_event_is_clock(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0) &&
			   count_event_is_clock(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0));
	TEST_CHECK("clock: page-faults and cycles are not",
		   !count_event_is_clock(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0) &&
			   !count_event_is_clock(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0));
	TEST_CHECK("clock: ebs.ko's cpu-clock in a file",
		   count_event_is_clock(EBS_EVENT_TYPE_KMOD, EBS_GEN_CPU_CLOCK, EBS_EVENT_GENERIC));
	TEST_CHECK("clock: by the ids, whatever the name says",
		   event_spec__is_clock(&named_cycles) && !event_spec__is_clock(&named_clock));
}

/* The readings as the sampler's backends and ebs stat count them (count_thread). */
static struct count_total sampler_total(bool pmu)
{
	struct count_total t = {0};
	struct count_thread th = {0};
	size_t i;

	for (i = 0; i < NR_READING; i++)
		count_thread_add(&th, reading[i].value, reading[i].enabled, reading[i].running);
	count_thread_end(&t, pmu, &th);
	return t;
}

/* An event of a session: its ids. */
struct ids {
	u32 type;
	u64 config;
};

static const struct ids task_clock = {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
static const struct ids cycles = {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};

/* Does a group of these events hold a PMU's (as sampler/perf.c and libebs ask)? */
static bool group_pmu(const struct ids *ev, unsigned int n)
{
	bool pmu = false;
	unsigned int i;

	for (i = 0; i < n; i++)
		pmu |= count_event_on_pmu(ev[i].type, ev[i].config, 0);
	return pmu;
}

/*
 * The readings as COUNT records of the last of events ev[0..n) (one group)
 * in a file, as the report's header counts them.
 */
static int report_total(const char *dir, const struct ids *evs, unsigned int n,
			struct count_total *out)
{
	char path[4200];
	struct ebs_error err = {0};
	struct ebs_writer *w;
	struct session rs;
	struct symbolize_opts so = {0};
	struct facts fa;
	unsigned int k;
	size_t i;
	int e = 0;

	snprintf(path, sizeof(path), "%s/counts-%u.data", dir, n);
	w = ebs_writer__create(path, &err);
	if (!w)
		return -1;
	for (k = 0; k < n && !e; k++) {
		struct ebs_rec_event ev = {.index = (u16)k,
					   .type = evs[k].type,
					   .config = evs[k].config,
					   .sample_period = 1000000};

		e = ebs_writer__event(w, &ev, k ? "e1" : "e0", k ? "e1" : "e0", NULL);
	}
	if (!e)
		e = ebs_writer__begin_data(w, 1, 1);
	for (i = 0; i < NR_READING && !e; i++) {
		struct ebs_rec_count c = {
			.hdr = {.type = EBS_REC_COUNT, .size = sizeof(c)},
			.time = 10 + i,
			.value = reading[i].value,
			.time_enabled = reading[i].enabled,
			.time_running = reading[i].running,
			.cpu = reading[i].cpu,
			.tid = TID,
			.event = (u16)(n - 1),
		};

		e = ebs_writer__add(w, &c.hdr);
	}
	if (e) {
		ebs_writer__abort(w);
		return -1;
	}
	if (ebs_writer__finish(w, 0, NULL, &err))
		return -1;
	memset(&rs, 0, sizeof(rs));
	if (session__open(&rs, path, true, &so, NULL, &err)) {
		printf("# %s\n", err.msg);
		return -1;
	}
	facts_of(&fa, &rs, NULL, (int)n - 1, 0, 0);
	*out = fa.counted;
	session__close(&rs);
	unlink(path);
	return 0;
}

/* What ebs stat prints for a run that counted total (-x ,): its line. */
static void stat_line(const struct count_total *t, char *buf, size_t len)
{
	struct count_stat so = {0};
	char *text = NULL, *nl;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	buf[0] = '\0';
	if (!f)
		return;
	so.nr_ev = 1;
	so.sep = ",";
	so.ev[0].spec = (struct event_spec){.name = "task-clock",
					    .type = PERF_TYPE_SOFTWARE,
					    .config = PERF_COUNT_SW_TASK_CLOCK};
	so.ev[0].values = (double *)&t->scaled;
	so.ev[0].scaled = t->multiplexed;
	so.ev[0].enabled = (double)t->enabled;
	so.ev[0].running = (double)t->running;
	ebs_summarize(so.ev[0].values, 1, true, &so.ev[0].sum, NULL);
	count_stat_print_sep(f, &so);
	fclose(f);
	nl = strchr(text, '\n'); /* the header line, then the event's */
	snprintf(buf, len, "%s", nl ? nl + 1 : "");
	free(text);
}

/*
 * The same readings of one task-clock counter (a software event) through
 * each reader: the sampler's backends (ebs record's summary, calibrate's
 * counting pass and ebs stat take theirs: count/session.h), the report's
 * header, libebs (a group's one read: the summed value against the
 * thread's times) and stat's printer.  Alone (a software group), the
 * kernel never multiplexes it: its value as read, in all four.  In a
 * group with cycles (a PMU's), it is multiplexed with the group: scaled,
 * in all four.
 */
static void test_one_number(const char *dir)
{
	const struct ids alone[] = {task_clock}, with_cycles[] = {cycles, task_clock};
	u64 value = 0, running = 0, enabled = 0;
	struct count_total s, r;
	char line[256];
	size_t i;

	for (i = 0; i < NR_READING; i++) {
		value += reading[i].value;
		running += reading[i].running;
		enabled = reading[i].enabled;
	}
	s = sampler_total(group_pmu(alone, 1));
	TEST_CHECK("one number: software alone, the sampler and stat: the value as read",
		   s.scaled == (double)value && !s.multiplexed);
	if (report_total(dir, alone, 1, &r))
		TEST_FAIL("one number: software alone, the report's header", "no file");
	else
		TEST_CHECK("one number: software alone, the report's header: the same",
			   r.scaled == s.scaled && r.multiplexed == s.multiplexed &&
				   r.running == s.running && r.enabled == s.enabled);
	TEST_EQ("one number: software alone, libebs: the same",
		count_scale_u64(group_pmu(alone, 1), value, enabled, running), value);
	stat_line(&s, line, sizeof(line));
	TEST_CHECK("one number: software alone, ebs stat prints it, 95% counting",
		   !strncmp(line, "1000000,ns,task-clock,95.00,", 28));
	if (strncmp(line, "1000000,ns,task-clock,95.00,", 28))
		printf("# stat printed: %s", line);

	s = sampler_total(group_pmu(with_cycles, 2));
	TEST_CHECK("one number: software with cycles, the sampler and stat: scaled",
		   fabs(s.scaled - (double)value * 1000 / 950) < 1e-6 && s.multiplexed);
	if (report_total(dir, with_cycles, 2, &r))
		TEST_FAIL("one number: software with cycles, the report's header", "no file");
	else
		TEST_CHECK("one number: software with cycles, the report's header: the same",
			   r.scaled == s.scaled && r.multiplexed);
	TEST_EQ("one number: software with cycles, libebs: the same, rounded down",
		count_scale_u64(group_pmu(with_cycles, 2), value, enabled, running), (u64)s.scaled);
	stat_line(&s, line, sizeof(line));
	TEST_CHECK("one number: software with cycles, ebs stat prints it scaled",
		   !strncmp(line, "1052632,ns,task-clock,95.00,", 28));
	if (strncmp(line, "1052632,ns,task-clock,95.00,", 28))
		printf("# stat printed: %s", line);
}

/* One number: test_one_number in a directory of its own. */
static void test_one(void)
{
	char dir[] = "/tmp/ebs-test-countmod.XXXXXX";

	if (!mkdtemp(dir)) {
		TEST_FAIL("one number", "mkdtemp: %s", strerror(errno));
		return;
	}
	test_one_number(dir);
	rmdir(dir);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_rule), TEST_CASE(test_clock), TEST_CASE(test_one))
