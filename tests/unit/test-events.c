// SPDX-License-Identifier: MIT
/*
 * test-events.c - event names and modifiers (sampler/events.c).
 *
 * One function per group of checks:
 *
 *   test_named      every entry of ebs_events parses to its own type, config
 *                   and hardware flag; the table agrees with the perf ABI for
 *                   the names listed here, and still has all of them.
 *   test_modifiers  ":u" sets exclude_kernel, ":k" exclude_user, both at once
 *                   is an error.
 *   test_raw        "rUUEE" is PERF_TYPE_RAW with that config; ":cmask=N",
 *                   ":inv" and ":edge" set the PerfEvtSel fields of
 *                   include/ebs/ebs_abi.h.
 *   test_bad        malformed events fail with -EINVAL and a message that
 *                   names the event.
 *   test_lists      comma-separated lists, empty lists, and the event limit.
 *
 * Nothing here opens an event, so it runs on machines without a PMU.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>

#include <ebs/ebs_abi.h>
#include "sampler/sampler.h"
#include "test.h"

/* What the perf ABI says the named events are, restated independently of ebs_events.h. */
static const struct {
	const char *name;
	u32 type;
	u64 config;
	bool hardware;
} known[] = {
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, true},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, true},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, true},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, false},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false},
};

/*
 * Parse text, which must succeed with the given encoding and no exclusion
 * unless asked; one PASS/FAIL line called name.
 */
static void expect_event(const char *name, const char *text, u32 type, u64 config, bool hardware,
			 bool exclude_user, bool exclude_kernel)
{
	struct ebs_error err = {0};
	struct event_spec ev;
	int r = event_spec__parse(text, &ev, &err);

	if (r != 0)
		TEST_FAIL(name, "\"%s\" returned %d: %s", text, r, err.msg);
	else if (strcmp(ev.name, text) != 0)
		TEST_FAIL(name, "name \"%s\", want \"%s\"", ev.name, text);
	else if (ev.type != type || ev.config != config)
		TEST_FAIL(name, "\"%s\": type %u config %#llx, want type %u config %#llx", text,
			  ev.type, (unsigned long long)ev.config, type, (unsigned long long)config);
	else if (ev.hardware != hardware)
		TEST_FAIL(name, "\"%s\": hardware %d, want %d", text, ev.hardware, hardware);
	else if (ev.exclude_user != exclude_user || ev.exclude_kernel != exclude_kernel)
		TEST_FAIL(name, "\"%s\": exclude_user %d exclude_kernel %d, want %d %d", text,
			  ev.exclude_user, ev.exclude_kernel, exclude_user, exclude_kernel);
	else
		TEST_OK(name);
}

/*
 * r (a return value) and err must say -want, and err.msg must contain needle
 * (the event as typed, so the user sees which one is wrong).
 */
static void expect_refused(const char *name, int r, const struct ebs_error *err, int want,
			   const char *needle)
{
	if (r != -want)
		TEST_FAIL(name, "returned %d, want %d", r, -want);
	else if (err->err != -want)
		TEST_FAIL(name, "err.err %d, want %d", err->err, -want);
	else if (!strstr(err->msg, needle))
		TEST_FAIL(name, "message does not name \"%s\": %s", needle, err->msg);
	else if (strstr(err->msg, "unknown event") && err->code != EBS_E_UNKNOWN_EVENT)
		TEST_FAIL(name, "code %s, want EBS_E_UNKNOWN_EVENT",
			  ebs_error_code_name(err->code));
	else
		TEST_OK(name);
}

static void expect_bad_event(const char *text, const char *needle)
{
	struct ebs_error err = {0};
	struct event_spec ev;
	char name[160];

	snprintf(name, sizeof(name), "events: bad: \"%.60s\"%s", text,
		 strlen(text) > 60 ? "..." : "");
	expect_refused(name, event_spec__parse(text, &ev, &err), &err, EINVAL, needle);
}

static void test_named(void)
{
	const struct ebs_event *n;
	char name[128];
	unsigned int i, nr = 0, missing = 0;

	for (n = ebs_events; n->name; n++) {
		snprintf(name, sizeof(name), "events: named: %s", n->name);
		expect_event(name, n->name, n->type, n->config, n->hardware, false, false);
		nr++;
	}
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		for (n = ebs_events; n->name; n++)
			if (strcmp(n->name, known[i].name) == 0)
				break;
		snprintf(name, sizeof(name), "events: table: %s is the perf ABI's", known[i].name);
		if (!n->name) {
			TEST_FAIL(name, "not in ebs_events");
			missing++;
		} else if (n->type != known[i].type || n->config != known[i].config ||
			   n->hardware != known[i].hardware) {
			TEST_FAIL(name, "type %u config %#llx hardware %d, want %u %#llx %d",
				  n->type, (unsigned long long)n->config, n->hardware,
				  known[i].type, (unsigned long long)known[i].config,
				  known[i].hardware);
		} else {
			TEST_OK(name);
		}
	}
	/* a name the table gained must at least be consistent about its PMU */
	for (n = ebs_events; n->name; n++) {
		bool hw = n->type == PERF_TYPE_HARDWARE || n->type == PERF_TYPE_HW_CACHE ||
			  n->type == PERF_TYPE_RAW;

		if (n->hardware != hw)
			break;
	}
	if (n->name)
		TEST_FAIL("events: table: hardware flag follows the perf type",
			  "%s: hardware %d with type %u", n->name, n->hardware, n->type);
	else
		TEST_OK("events: table: hardware flag follows the perf type");
	TEST_CHECK("events: table: has every event listed here",
		   nr >= ARRAY_SIZE(known) && missing == 0);
}

static void test_modifiers(void)
{
	struct ebs_error err = {0};
	struct event_spec ev;

	expect_event("events: :u sets exclude_kernel", "cycles:u", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_CPU_CYCLES, true, false, true);
	expect_event("events: :k sets exclude_user", "cpu-clock:k", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_CPU_CLOCK, false, true, false);
	expect_event("events: :u on a raw event", "r003c:u", PERF_TYPE_RAW, 0x3c, true, false,
		     true);
	expect_refused("events: :u:k is an error", event_spec__parse("cycles:u:k", &ev, &err), &err,
		       EINVAL, "'cycles:u:k'");
	expect_refused("events: :k:u is an error", event_spec__parse("task-clock:k:u", &ev, &err),
		       &err, EINVAL, "'task-clock:k:u'");
}

static void test_raw(void)
{
	const u64 want = EBS_EVTSEL_EVENT(0xc2) | EBS_EVTSEL_UMASK(0x01) | EBS_EVTSEL_CMASK(3) |
			 EBS_EVTSEL_INV | EBS_EVTSEL_EDGE;

	expect_event("events: raw r01c2", "r01c2", PERF_TYPE_RAW, 0x01c2, true, false, false);
	expect_event("events: raw hex digits in either case", "r01C2", PERF_TYPE_RAW, 0x01c2, true,
		     false, false);
	/* CMASK is bits 24-31, INV bit 23, EDGE bit 18 (Intel SDM 18.2.1) */
	TEST_EQ("events: raw: PerfEvtSel bits of ebs_abi.h", want, 0x038401c2);
	expect_event("events: raw r01c2:cmask=3:inv:edge", "r01c2:cmask=3:inv:edge", PERF_TYPE_RAW,
		     want, true, false, false);
	expect_event("events: raw: cmask=255 is the largest", "r01c2:cmask=255", PERF_TYPE_RAW,
		     0x01c2 | EBS_EVTSEL_CMASK(255), true, false, false);
	expect_event("events: raw: cmask=010 is decimal ten, not octal", "r01c2:cmask=010",
		     PERF_TYPE_RAW, 0x01c2 | EBS_EVTSEL_CMASK(10), true, false, false);
	/* bits above 31 (AMD's extended event select) pass through */
	expect_event("events: raw: bits above 31 are kept", "r1000001c2", PERF_TYPE_RAW,
		     0x1000001c2ull, true, false, false);
}

static void test_bad(void)
{
	char longname[101];

	expect_bad_event("nosuch", "'nosuch'");
	expect_bad_event("r", "'r'");
	expect_bad_event("rxyz", "'rxyz'");
	expect_bad_event("r01c2:cmask=300", "'r01c2:cmask=300'");
	expect_bad_event("r01c2:cmask=256", "'r01c2:cmask=256'");
	expect_bad_event("r01c2:cmask=", "'r01c2:cmask='");
	expect_bad_event("r01c2:cmask=3x", "'r01c2:cmask=3x'");
	expect_bad_event("cycles:inv", "'cycles:inv'"); /* inv, edge, cmask: raw only */
	expect_bad_event("cycles:edge", "'cycles:edge'");
	expect_bad_event("cycles:cmask=1", "'cycles:cmask=1'");
	expect_bad_event("cycles:z", "'cycles:z'");
	expect_bad_event("r01c2:cmask=+3", "'r01c2:cmask=+3'");
	expect_bad_event("r01c2:cmask= 3", "'r01c2:cmask= 3'");
	expect_bad_event("r01c2:cmask=0x100", "'r01c2:cmask=0x100'");
	/* each modifier once: :inv:inv does not cancel, a second cmask does not replace */
	expect_bad_event("r00c0:inv:inv", "'r00c0:inv:inv'");
	expect_bad_event("r01c2:cmask=3:cmask=0x81", "'r01c2:cmask=3:cmask=0x81'");
	expect_bad_event("cycles:u:u", "'cycles:u:u'");
	/* USR/OS/INT/EN/INV/CMASK come from modifiers, never from the raw code */
	expect_bad_event("r1ffffffff", "bits 16-31");
	expect_bad_event("r4101c2", "bits 16-31");
	expect_bad_event("cycles:", "'cycles:'");
	expect_bad_event("", "''");
	memset(longname, 'e', 100);
	memcpy(longname, "long-event-name-", 16);
	longname[100] = '\0';
	/* the message may shorten it, but must show its start */
	expect_bad_event(longname, "'long-event-name-eeeeeeee");
}

static void test_lists(void)
{
	struct event_spec evs[EBS_MAX_EVENTS];
	struct ebs_error err = {0};
	char list[(EBS_MAX_EVENTS + 1) * 10 + 1];
	unsigned int i;
	int r;

	r = event_spec__parse_list("cpu-clock,task-clock", evs, EBS_MAX_EVENTS, &err);
	TEST_EQ("events: list: two events", r, 2);
	if (r == 2) {
		TEST_CHECK("events: list: first is cpu-clock",
			   strcmp(evs[0].name, "cpu-clock") == 0 &&
				   evs[0].type == PERF_TYPE_SOFTWARE &&
				   evs[0].config == PERF_COUNT_SW_CPU_CLOCK);
		TEST_CHECK("events: list: second is task-clock",
			   strcmp(evs[1].name, "task-clock") == 0 &&
				   evs[1].type == PERF_TYPE_SOFTWARE &&
				   evs[1].config == PERF_COUNT_SW_TASK_CLOCK);
	}
	r = event_spec__parse_list("", evs, EBS_MAX_EVENTS, &err);
	TEST_CHECK("events: list: \"\" is an error", r < 0 && err.err == r && err.msg[0]);
	memset(&err, 0, sizeof(err));
	r = event_spec__parse_list(",", evs, EBS_MAX_EVENTS, &err);
	TEST_CHECK("events: list: \",\" is an error", r < 0 && err.err == r && err.msg[0]);
	memset(&err, 0, sizeof(err));
	memset(&err, 0, sizeof(err));
	r = event_spec__parse_list("cycles,,cpu-clock", evs, EBS_MAX_EVENTS, &err);
	expect_refused("events: list: an empty item is an error", r, &err, EINVAL, "empty item");
	memset(&err, 0, sizeof(err));
	r = event_spec__parse_list("cycles,", evs, EBS_MAX_EVENTS, &err);
	expect_refused("events: list: a trailing comma is an error", r, &err, EINVAL, "empty item");
	memset(&err, 0, sizeof(err));
	r = event_spec__parse_list("cycles,nosuch", evs, EBS_MAX_EVENTS, &err);
	expect_refused("events: list: a bad event in a list is named", r, &err, EINVAL, "'nosuch'");

	/* exactly EBS_MAX_EVENTS fit; one more does not (and must not overrun evs) */
	list[0] = '\0';
	for (i = 0; i < EBS_MAX_EVENTS; i++)
		strcat(list, i ? ",cpu-clock" : "cpu-clock");
	r = event_spec__parse_list(list, evs, EBS_MAX_EVENTS, &err);
	TEST_EQ("events: list: EBS_MAX_EVENTS events fit", r, EBS_MAX_EVENTS);
	strcat(list, ",cpu-clock");
	memset(&err, 0, sizeof(err));
	r = event_spec__parse_list(list, evs, EBS_MAX_EVENTS, &err);
	TEST_CHECK("events: list: EBS_MAX_EVENTS + 1 events are an error",
		   r < 0 && err.err == r && err.msg[0]);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_named), TEST_CASE(test_modifiers), TEST_CASE(test_raw),
	  TEST_CASE(test_bad), TEST_CASE(test_lists))
