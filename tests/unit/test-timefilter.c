// SPDX-License-Identifier: MIT
/*
 * test-timefilter.c - the filters --time, --pid and --tid in isolation
 * (report/session/filter.c):
 *
 *   test_seconds   "S,E": exact integer ns from decimals (no double), either
 *                  side empty, the refusals (S >= E, 10 decimals, signs,
 *                  exponents, blanks, a third number, nothing)
 *   test_percent   perf's forms A%-B% and P%/N, several (a union), their
 *                  refusals (above 100, empty items, a slice past the end)
 *   test_ranges    a percent of a span is floor(span * p / 100) ns, exact at
 *                  2^64 - 1 ns and at spans no double holds
 *   test_ids       --pid/--tid lists: sorted, without repeats; 0, INT_MAX + 1,
 *                  empty items refused; the check of a sample's ids
 *   test_words     the header's words: "time 0.5-1.2 s", "pid 12,13"
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/session.h"
#include "test.h"

#define P REPORT_PERCENT

/* text parses into n ranges, the first [s, e) (percent or not). */
static void want_time(const char *text, size_t n, u64 s, u64 e, bool pct)
{
	struct ebs_error err = {0};
	struct report_time *t = NULL;
	char name[128];
	size_t k = 0;
	int rc = report_parse_time(text, &t, &k, &err);

	snprintf(name, sizeof(name), "--time '%s': %zu range(s), [%llu, %llu)%s", text, n,
		 (unsigned long long)s, (unsigned long long)e, pct ? " of a percent" : " ns");
	if (rc || k != n || !t || t[0].start != s || t[0].end != e || t[0].percent != pct)
		TEST_FAIL(name, "rc %d (%s), %zu: [%llu, %llu) percent %d", rc, err.msg, k,
			  t ? (unsigned long long)t[0].start : 0ull,
			  t ? (unsigned long long)t[0].end : 0ull, t ? t[0].percent : -1);
	else
		TEST_OK(name);
	free(t);
}

/* text is refused, err's line containing why. */
static void bad_time(const char *text, const char *why)
{
	struct ebs_error err = {0};
	struct report_time *t = (void *)1;
	char name[160];
	size_t k = 7;
	int rc = report_parse_time(text, &t, &k, &err);

	snprintf(name, sizeof(name), "--time '%s': refused, '%s'", text, why);
	if (rc != -EINVAL || t || k || !strstr(err.msg, why) || strchr(err.msg, '\n'))
		TEST_FAIL(name, "rc %d, msg '%s'", rc, err.msg);
	else
		TEST_OK(name);
}

static void test_seconds(void)
{
	want_time("0.5,1.2", 1, 500000000, 1200000000, false);
	want_time("2.5,", 1, 2500000000ull, UINT64_MAX, false);
	want_time(",1", 1, 0, 1000000000, false);
	want_time("0,0.000000001", 1, 0, 1, false);
	/* no double: 0.1 + 0.2 and a 9-decimal value are their ns, exactly */
	want_time("0.3,1.123456789", 1, 300000000, 1123456789, false);
	want_time("1.,2", 1, 1000000000, 2000000000, false);
	want_time(".25,.5", 1, 250000000, 500000000, false);
	want_time("18446744072.999999999,", 1, 18446744072999999999ull, UINT64_MAX, false);
	want_time("000012.500,13", 1, 12500000000ull, 13000000000ull, false);

	bad_time("2,1", "the start is not before the end");
	bad_time("1,1", "the start is not before the end");
	bad_time("1.5,1.5000", "the start is not before the end");
	bad_time("0.1234567891,2", "at most 9 decimals");
	bad_time("18446744074,", "ebs can count in ns");
	bad_time("99999999999999999999999,", "ebs can count in ns");
	bad_time(",", "neither a start nor an end");
	bad_time("", "not START,END");
	bad_time("1", "not START,END");
	bad_time("1,2,3", "not START,END");
	bad_time("a,2", "'a' is not a number of seconds");
	bad_time("-1,2", "'-1' is not a number of seconds");
	bad_time("1e3,2e3", "'1e3' is not a number of seconds");
	bad_time(" 1,2", "' 1' is not a number of seconds");
	bad_time("1,2 ", "'2 ' is not a number of seconds");
	bad_time(".,2", "'.' is not a number of seconds");
	bad_time("0x10,", "'0x10' is not a number of seconds");
}

static void test_percent(void)
{
	struct ebs_error err = {0};
	struct report_time *t = NULL;
	size_t n = 0;

	want_time("10%-20%", 1, 10 * P, 20 * P, true);
	want_time("0%-100%", 1, 0, 100 * P, true);
	want_time("12.5%-37.5%", 1, 12 * P + P / 2, 37 * P + P / 2, true);
	want_time("25%/2", 1, 25 * P, 50 * P, true);
	want_time("100%/1", 1, 0, 100 * P, true);
	want_time("10%/10", 1, 90 * P, 100 * P, true);
	want_time("0.000000001%/1", 1, 0, 1, true);

	TEST_EQ("--time '10%-20%,30%-40%,5%/20': three ranges",
		report_parse_time("10%-20%,30%-40%,5%/20", &t, &n, &err), 0);
	TEST_CHECK("...in the order given, the slice 95%-100%",
		   n == 3 && t[1].start == 30 * P && t[1].end == 40 * P && t[2].start == 95 * P &&
			   t[2].end == 100 * P && t[2].percent);
	free(t);
	/* overlapping ranges are a union: both kept (perf refuses them) */
	TEST_EQ("--time '10%-30%,20%-40%': overlapping, taken",
		report_parse_time("10%-30%,20%-40%", &t, &n, &err), 0);
	TEST_EQ("...two of them", n, 2);
	free(t);

	bad_time("101%-102%", "a percent above 100");
	bad_time("10%-100.000000001%", "a percent above 100");
	bad_time("20%-10%", "the start is not before the end");
	bad_time("10%-10%", "the start is not before the end");
	bad_time("25%/5", "the slice ends above 100%");
	bad_time("30%/4", "the slice ends above 100%");
	bad_time("25%/0", "N of P%/N is not a whole number from 1");
	bad_time("25%/", "N of P%/N is not a whole number from 1");
	bad_time("25%/2x", "N of P%/N is not a whole number from 1");
	bad_time("25%/99999999999999999999999", "N of P%/N is not a whole number from 1");
	bad_time("0%/3", "a slice of 0%");
	bad_time("10%", "'10%' is not a percent range");
	bad_time("10%-20", "'10%-20' is not a percent range");
	bad_time("10-20%", "'10-20%' is not a percent range");
	bad_time("10%-20%30%", "'10%-20%30%' is not a percent range");
	bad_time("10%-20%,", "an empty range between commas");
	bad_time(",10%-20%", "an empty range between commas");
	bad_time("10%-20%,,30%-40%", "an empty range between commas");
	bad_time("10%-20%,1,2", "'1' is not a percent range");
	bad_time("x%-20%", "'x%-20%' is not a percent range");
	bad_time("%", "'%' is not a percent range");
}

/* session__time_ranges of one range over span: [s, e) */
static void want_range(const char *text, u64 span, u64 s, u64 e)
{
	struct ebs_error err = {0};
	struct report_time *t = NULL;
	u64 ns[2] = {7, 7};
	char name[160];
	size_t n = 0;

	snprintf(name, sizeof(name), "--time '%s' of %llu ns: [%llu, %llu)", text,
		 (unsigned long long)span, (unsigned long long)s, (unsigned long long)e);
	if (report_parse_time(text, &t, &n, &err)) {
		TEST_FAIL(name, "not parsed: %s", err.msg);
		return;
	}
	session__time_ranges(t, 1, span, ns);
	if (ns[0] != s || ns[1] != e)
		TEST_FAIL(name, "[%llu, %llu)", (unsigned long long)ns[0],
			  (unsigned long long)ns[1]);
	else
		TEST_OK(name);
	free(t);
}

static void test_ranges(void)
{
	want_range("10%-20%", 1000, 100, 200);
	want_range("10%-20%", 1001, 100, 200); /* floor(100.1), floor(200.2) */
	want_range("10%-20%", 1009, 100, 201); /* floor(100.9), floor(201.8) */
	want_range("0%-100%", 3, 0, 3);	       /* all of a span: its last ns too */
	want_range("25%/2", 1000000001, 250000000, 500000000);
	want_range("33.333333333%-66.666666667%", 1000000000000ull, 333333333330ull,
		   666666666670ull);
	/* the whole u64 range: 128-bit products, no rounding */
	want_range("50%-100%", UINT64_MAX, UINT64_MAX / 2, UINT64_MAX);
	want_range("0.000000001%-100%", UINT64_MAX, 184467440ull, UINT64_MAX);
	/* 2^53 + 1 ns: no double holds it; 100% is it exactly */
	want_range("0%-100%", (1ull << 53) + 1, 0, (1ull << 53) + 1);
	want_range("50%/2", (1ull << 53) + 1, (1ull << 52), (1ull << 53) + 1);
	/* seconds are not scaled */
	want_range("1.5,2", 10, 1500000000, 2000000000);
	want_range("1.5,", 10, 1500000000, UINT64_MAX);
}

/* text parses into the n ids of want. */
static void want_ids(const char *text, const u32 *want, size_t n)
{
	struct ebs_error err = {0};
	u32 *v = NULL;
	size_t k = 0;
	char name[128];
	int rc = report_parse_ids(text, &v, &k, &err);

	snprintf(name, sizeof(name), "--tid '%s': %zu id(s), sorted, once each", text, n);
	if (rc || k != n || memcmp(v, want, n * sizeof(*v)))
		TEST_FAIL(name, "rc %d (%s), %zu", rc, err.msg, k);
	else
		TEST_OK(name);
	free(v);
}

static void bad_ids(const char *text, const char *why)
{
	struct ebs_error err = {0};
	u32 *v = (void *)1;
	size_t k = 7;
	char name[128];
	int rc = report_parse_ids(text, &v, &k, &err);

	snprintf(name, sizeof(name), "--pid '%s': refused, '%s'", text, why);
	if (rc != -EINVAL || v || k || !strstr(err.msg, why))
		TEST_FAIL(name, "rc %d, msg '%s'", rc, err.msg);
	else
		TEST_OK(name);
}

static void test_ids(void)
{
	static const u32 one[] = {12}, two[] = {12, 13}, three[] = {1, 9, 10};
	static const u32 max[] = {2147483647};
	struct report_filter f = {0};
	static const u32 pids[] = {5, 7}, tids[] = {8};

	want_ids("12", one, 1);
	want_ids("12,13", two, 2);
	want_ids("13,12,13,12", two, 2);
	want_ids("10,9,1", three, 3);
	want_ids("2147483647", max, 1);
	bad_ids("", "an empty list");
	bad_ids("1,", "an empty item between commas");
	bad_ids(",1", "an empty item between commas");
	bad_ids("1,,2", "an empty item between commas");
	bad_ids("0", "'0' is not a number from 1 to 2147483647");
	bad_ids("2147483648", "'2147483648' is not a number from 1");
	bad_ids("99999999999999999999999", "is not a number from 1");
	bad_ids("1,x", "'x' is not a number");
	bad_ids("-1", "'-1' is not a number");
	bad_ids("1 ,2", "'1 ' is not a number");
	bad_ids("0x10", "'0x10' is not a number");

	TEST_CHECK("ids: no filter passes all",
		   session__ids_pass(NULL, 1, 2) && session__ids_pass(&f, 1, 2));
	f.pids = pids;
	f.npids = 2;
	TEST_CHECK("ids: --pid 5,7 passes pids 5 and 7, not 6 or 8",
		   session__ids_pass(&f, 5, 1) && session__ids_pass(&f, 7, 1) &&
			   !session__ids_pass(&f, 6, 1) && !session__ids_pass(&f, 8, 1));
	f.tids = tids;
	f.ntids = 1;
	TEST_CHECK("ids: --pid 5,7 --tid 8: both must hold", session__ids_pass(&f, 7, 8) &&
								     !session__ids_pass(&f, 7, 9) &&
								     !session__ids_pass(&f, 6, 8));
}

/* the words of f's time, pid and tid */
static void want_words(const char *time, const char *pids, const char *tids, const char *want)
{
	struct report_filter f = {0};
	struct ebs_error err = {0};
	struct report_time *t = NULL;
	u32 *p = NULL, *q = NULL;
	char buf[256], name[160];

	if (time && !report_parse_time(time, &t, &f.ntimes, &err))
		f.times = t;
	if (pids && !report_parse_ids(pids, &p, &f.npids, &err))
		f.pids = p;
	if (tids && !report_parse_ids(tids, &q, &f.ntids, &err))
		f.tids = q;
	buf[0] = '\0';
	session__filter_words(&f, buf, sizeof(buf), 0);
	snprintf(name, sizeof(name), "words: '%s'", want);
	TEST_STREQ(name, buf, want);
	free(t);
	free(p);
	free(q);
}

static void test_words(void)
{
	char buf[8] = "";

	want_words("0.5,1.2", NULL, NULL, "time 0.5-1.2 s");
	want_words(",1", NULL, NULL, "time 0-1 s");
	want_words("2.5,", NULL, NULL, "time from 2.5 s");
	want_words("0.000000001,1.000001", NULL, NULL, "time 0.000000001-1.000001 s");
	want_words("10%-20%,25%/2", NULL, NULL, "time 10%-20%,25%-50%");
	want_words("12.5%-100%", "13,12", "7", "time 12.5%-100%, pid 12,13, tid 7");
	want_words(NULL, NULL, "12,13", "tid 12,13");
	want_words(NULL, NULL, NULL, "");
	/* a buffer too short: cut, terminated */
	{
		static const u32 ids[] = {123456, 234567};
		struct report_filter f = {.tids = ids, .ntids = 2};

		session__filter_words(&f, buf, sizeof(buf), 0);
		TEST_STREQ("words: cut to the buffer", buf, "tid 123");
	}
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_seconds), TEST_CASE(test_percent), TEST_CASE(test_ranges),
	  TEST_CASE(test_ids), TEST_CASE(test_words))
