// SPDX-License-Identifier: MIT
/*
 * test-report.c - report/'s rules in isolation: the 95% interval, names
 * elided to a width, and the --sort columns (report/table.h).
 *
 *   test_wilson    present_wilson95 against the closed form (to 1e-4
 *                  percentage points: both are the same double arithmetic
 *                  written two ways) and against published values
 *   test_elide     present_elide: whole when it fits, both ends kept, a
 *                  path's file name kept, widths below "x...y", the buffer
 *   test_cells     cell_cmp orders as strcmp orders the joined text, on
 *                  random pieces; cell_join cuts as snprintf
 *   test_columns   rows compare by their keys: pids as numbers (9 before
 *                  10), names and source lines as the table shows them
 *   test_options   --sort and --fields parsing, and the columns a key shows
 *   test_script_fields  ebs script's --fields: names, +/-, the refusals
 *   test_markup    present_markup: entities, XML's '?' for controls and
 *                  broken UTF-8, HTML's tabs, the character limit
 *   test_name_list names_item: a --func list's names end at commas
 *                  outside brackets (C++ parameters, Rust generics)
 *   test_top       ebs top's counting (report/top): samples through the
 *                  tap, per interval (reset) and since the start, shares
 *                  and intervals as report's, the views (user, kernel),
 *                  the sorts, a table's lines, hostile names cleaned
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "report/present.h"
#include "report/session/session.h"
#include "report/table.h"
#include "report/top/top.h"
#include "test.h"

/* ---- the 95% interval ------------------------------------------------------------------- */

/* Wilson's score interval as usually printed: (p + z²/2n ± z√(p(1-p)/n + z²/4n²)) / (1 + z²/n). */
static void closed_form(double k, double n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p = k / n, d = 1 + z * z / n, c = p + z * z / (2 * n);
	double a = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n));

	*lo = fmax(0, (c - a) / d) * 100;
	*hi = fmin(1, (c + a) / d) * 100;
}

static void test_wilson(void)
{
	static const unsigned long long cases[][2] = {
		{0, 10},     {5, 10},	       {10, 10},	  {1, 1}, {0, 1}, {3, 7}, {1, 1000},
		{999, 1000}, {12345, 1000000}, {500000, 1000000}, {1, 3},
	};
	/*
	 * published: Newcombe, "Two-sided confidence intervals for the single
	 * proportion", Stat. Med. 17 (1998), Table II, method 3 (to four
	 * decimals of a proportion), and the usual worked examples of n = 10
	 */
	static const struct {
		unsigned long long k, n;
		double lo, hi;
	} known[] = {
		{81, 263, 25.53, 36.62}, {15, 148, 6.24, 16.05}, {0, 20, 0.0, 16.11},
		{1, 29, 0.61, 17.18},	 {0, 10, 0.0, 27.75},	 {5, 10, 23.66, 76.34},
		{10, 10, 72.25, 100.0},
	};
	char name[128];
	double lo, hi, clo, chi;
	size_t i;
	bool ok = true;

	present_wilson95(0, 0, &lo, &hi);
	TEST_CHECK("wilson: n = 0 gives [0, 0]", lo == 0 && hi == 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long long k = cases[i][0], n = cases[i][1];

		present_wilson95(k, n, &lo, &hi);
		closed_form((double)k, (double)n, &clo, &chi);
		snprintf(name, sizeof(name), "wilson: %llu/%llu is the closed form's [%.4f, %.4f]",
			 k, n, clo, chi);
		if (fabs(lo - clo) < 1e-4 && fabs(hi - chi) < 1e-4)
			TEST_OK(name);
		else
			TEST_FAIL(name, "got [%.6f, %.6f]", lo, hi);
		/*
		 * the share itself is inside (to rounding: for k = n the bound
		 * is 1 - 1e-16 or so), and the interval inside [0, 100]
		 */
		ok &= lo >= 0 && hi <= 100 && lo <= 100.0 * (double)k / (double)n + 1e-9 &&
		      100.0 * (double)k / (double)n <= hi + 1e-9;
	}
	TEST_CHECK("wilson: 0 <= lo <= k/n <= hi <= 100 in every case", ok);
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		present_wilson95(known[i].k, known[i].n, &lo, &hi);
		/* the tables give two decimals of a percentage */
		snprintf(name, sizeof(name), "wilson: %llu/%llu is [%.2f, %.2f] as published",
			 known[i].k, known[i].n, known[i].lo, known[i].hi);
		if (fabs(lo - known[i].lo) <= 0.005 + 1e-9 &&
		    fabs(hi - known[i].hi) <= 0.005 + 1e-9)
			TEST_OK(name);
		else
			TEST_FAIL(name, "got [%.4f, %.4f]", lo, hi);
	}
	present_wilson95(0, 10, &lo, &hi);
	TEST_CHECK("wilson: 0/n starts at 0 exactly", lo == 0);
	present_wilson95(10, 10, &lo, &hi);
	TEST_CHECK("wilson: n/n ends at 100 (to rounding)", hi > 100 - 1e-9 && hi <= 100);
}

/* ---- elision ------------------------------------------------------------------------------ */

static void elide_is(const char *name, const char *s, size_t width, size_t size, const char *want)
{
	char out[256];

	memset(out, 'X', sizeof(out));
	present_elide(out, size, s, width);
	TEST_STREQ(name, out, want);
}

static void test_elide(void)
{
	char big[200], out[256];
	size_t w;
	bool ok = true;

	elide_is("elide: a name that fits is whole", "main", 10, 256, "main");
	elide_is("elide: exactly the width is whole", "abcdef", 6, 256, "abcdef");
	/* 28 bytes in 20: 6 of the start, 11 of the end (more of the end: the own name) */
	elide_is("elide: the middle goes, both ends stay", "ns::very_long_name::function", 20, 256,
		 "ns::ve...e::function");
	/* the end's share would be 13 bytes; the file name's 16 fit, so it stays whole */
	elide_is("elide: a path keeps its whole file name",
		 "/very/long/directory/path/hot_loop_file.c", 24, 256, "/very.../hot_loop_file.c");
	elide_is("elide: below 5 columns, the start only (no room for x...y)", "abcdefgh", 4, 256,
		 "abcd");
	elide_is("elide: width 0 is empty", "abcdefgh", 0, 256, "");
	elide_is("elide: the buffer bounds the width (size 8: 7 bytes)", "abcdefghijkl", 100, 8,
		 "a...jkl");
	/* every width of a long name: exactly width bytes, its start and its end around "..." */
	memset(big, 'a', sizeof(big));
	memcpy(big, "start", 5);
	memcpy(big + sizeof(big) - 5, "_end", 5); /* ends in its NUL */
	for (w = 5; w < sizeof(big) - 1; w++) {
		char *dots;

		present_elide(out, sizeof(out), big, w);
		dots = strstr(out, "...");
		ok &= strlen(out) == w && dots && !strncmp(out, big, (size_t)(dots - out)) &&
		      !strcmp(dots + 3, big + strlen(big) - strlen(dots + 3)) &&
		      (w < 6 || dots > out); /* a start from width 6: (6 - 3) * 2 / 5 */
	}
	TEST_CHECK("elide: widths 5..198 of a 199-byte name: width bytes, start...end", ok);
	/* bytes, not characters: present.h promises no more (UTF-8 may be cut) */
	present_elide(out, sizeof(out), "caf\xc3\xa9_\xc3\xa9t\xc3\xa9_tr\xc3\xa8s_long", 12);
	TEST_EQ("elide: UTF-8 counts in bytes: 12 bytes for width 12", strlen(out), 12);
}

/* ---- cells ------------------------------------------------------------------------------ */

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* A random cell of up to 6 pieces over an alphabet where order matters: ' ' < '(' < ')' < '0'. */
static void random_cell(struct cell *c, char store[][8])
{
	static const char alpha[] = " ()09:a";
	unsigned int i, j, len;

	c->n = (unsigned int)(rand() % 7);
	for (i = 0; i < c->n; i++) {
		len = (unsigned int)(rand() % 4);
		for (j = 0; j < len; j++)
			store[i][j] = alpha[rand() % (int)(sizeof(alpha) - 1)];
		store[i][len] = '\0';
		c->piece[i] = store[i];
	}
}

static void test_cells(void)
{
	struct cell a, b;
	char sa[12][8], sb[12][8], ja[128], jb[128];
	static char long_a[5000], long_b[5000];
	unsigned int i, bad = 0;

	srand(12);
	for (i = 0; i < 50000; i++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		random_cell(&a, sa);
		random_cell(&b, sb);
		cell_join(&a, ja, sizeof(ja));
		cell_join(&b, jb, sizeof(jb));
		bad += sign(cell_cmp(&a, &b)) != sign(strcmp(ja, jb));
	}
	TEST_EQ("cells: 50,000 random pairs order as strcmp of their text", bad, 0);

	/* the table prints at most CELL_MAX - 1 bytes of a cell: rows sort by those */
	memset(long_a, 'a', sizeof(long_a) - 1);
	memset(long_b, 'a', sizeof(long_b) - 1);
	long_b[CELL_MAX] = 'b';
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.piece[a.n++] = long_a;
	b.piece[b.n++] = long_b;
	TEST_EQ("cells: texts equal in what the table shows compare equal", cell_cmp(&a, &b), 0);
	long_b[CELL_MAX - 2] = 'b';
	TEST_CHECK("cells: ...and differ on its last byte", cell_cmp(&a, &b) < 0);

	memset(&a, 0, sizeof(a));
	a.piece[a.n++] = "abc";
	a.piece[a.n++] = "def";
	cell_join(&a, ja, 5);
	TEST_STREQ("cells: joined text cut as snprintf cuts it", ja, "abcd");
}

/* ---- columns ---------------------------------------------------------------------------- */

static struct row *new_row(u64 samples)
{
	struct row *row = calloc(1, sizeof(*row) + 1);

	if (row) {
		row->samples[0] = samples;
		row->all = samples;
	}
	return row;
}

/* The column's order of x and y, checked both ways. */
static int col_order(const struct report *r, enum report_key k, const struct row *x,
		     const struct row *y)
{
	int a = report_columns[k].cmp(r, x, y), b = report_columns[k].cmp(r, y, x);

	return sign(a) == -sign(b) ? sign(a) : 99;
}

static void test_columns(void)
{
	static const struct report_opts o;
	struct report r = {.o = &o};
	struct row *x = new_row(5), *y = new_row(5);
	struct caller callers[3] = {
		{.function = "g", .all = 3},
		{.function = "h", .all = 2},
		{.function = NULL, .all = 1},
	};
	char buf[CELL_MAX];

	if (!x || !y) {
		TEST_FAIL("columns", "out of memory");
		return;
	}
	x->key.pid = 9;
	y->key.pid = 10;
	TEST_EQ("columns: pid 9 before pid 10 (numbers, not text)", col_order(&r, KEY_PID, x, y),
		-1);
	table__cell_text(&r, x, KEY_PID, buf, sizeof(buf));
	TEST_STREQ("columns: pid 9's cell", buf, "9");
	r.cols[r.nr_cols++] = KEY_PID;
	TEST_CHECK("columns: equal counts, the pid decides the row order",
		   table__row_cmp(&r, 0, x, y) < 0 && table__row_cmp(&r, 0, y, x) > 0);
	y->samples[0] = y->all = 6;
	TEST_CHECK("columns: more samples first, whatever the pid",
		   table__row_cmp(&r, 0, y, x) < 0 && table__row_cmp(&r, -1, y, x) < 0);
	y->samples[0] = y->all = 5;

	x->key.tid = 100;
	y->key.tid = 20;
	TEST_EQ("columns: tid 20 before tid 100", col_order(&r, KEY_TID, y, x), -1);
	x->key.event = 1;
	TEST_EQ("columns: events in the file's order", col_order(&r, KEY_EVENT, y, x), -1);

	x->key.comm = "bash";
	y->key.comm = NULL;
	TEST_EQ("columns: a command of no name is '?\?', before 'bash'",
		col_order(&r, KEY_COMM, y, x), -1);

	/* source lines sort as the table's text always did: "a.c:10" before "a.c:9" */
	x->key.file = y->key.file = "a.c";
	x->key.line = 10;
	y->key.line = 9;
	TEST_EQ("columns: a.c:10 before a.c:9 (the text's order, as before)",
		col_order(&r, KEY_LINE, x, y), -1);
	y->key.file = "a.c.h";
	TEST_EQ("columns: a.c.h:9 before a.c:10 ('.' < ':' in the text)",
		col_order(&r, KEY_LINE, y, x), -1);
	y->key.line = 0;
	table__cell_text(&r, y, KEY_LINE, buf, sizeof(buf));
	TEST_STREQ("columns: line 0 in a known file is FILE:0", buf, "a.c.h:0");
	y->key.file = NULL;
	table__cell_text(&r, y, KEY_LINE, buf, sizeof(buf));
	TEST_STREQ("columns: no line is '?\?'", buf, "??");

	/* functions: as "f (inlined into g)" reads */
	x->key.function = y->key.function = "f";
	x->key.inlined_into = "g(int) const";
	y->key.inlined_into = "g(int)";
	TEST_EQ("columns: f (inlined into g(int) const) before f (inlined into g(int))",
		col_order(&r, KEY_FUNC, x, y), -1);
	y->key.inlined_into = NULL;
	TEST_EQ("columns: f before f (inlined into ...)", col_order(&r, KEY_FUNC, y, x), -1);
	table__cell_text(&r, x, KEY_FUNC, buf, sizeof(buf));
	TEST_STREQ("columns: an inlined function's cell", buf, "f (inlined into g(int) const)");
	/* a source line's row of --sort line: its function and its callers */
	r.by_line = true;
	x->key.function = x->key.inlined_into = NULL;
	x->key.line = 10;
	x->function = "f";
	x->callers = callers;
	x->ncallers = 3;
	x->samples[0] = x->all = 6;
	table__cell_text(&r, x, KEY_FUNC, buf, sizeof(buf));
	TEST_STREQ("columns: a line's function and where it was inlined", buf,
		   "f (and inlined into g, h)");
	TEST_EQ("columns: ...its own samples", row__own_samples(x, -1), 1);
	x->ncallers = 2;
	x->samples[0] = x->all = 5;
	table__cell_text(&r, x, KEY_FUNC, buf, sizeof(buf));
	TEST_STREQ("columns: a line all inlined", buf, "f (inlined into g, h)");
	x->callers = NULL;
	x->ncallers = 0;
	x->function = NULL;
	x->key.line = 0;
	TEST_STREQ("columns: no function is '?\?'", row__function(x), "??");
	free(x);
	free(y);
}

/* ---- options ---------------------------------------------------------------------------- */

static void test_options(void)
{
	struct report_opts o = {0};
	struct ebs_error err = {0};
	struct report r = {.o = &o};

	TEST_EQ("options: --sort pid,sym,srcline", report_parse_keys("pid,sym,srcline", &o, &err),
		0);
	TEST_CHECK("options: ...is pid, func, line", o.nr_keys == 3 && o.keys[0] == KEY_PID &&
							     o.keys[1] == KEY_FUNC &&
							     o.keys[2] == KEY_LINE);
	TEST_EQ("options: --sort bogus", report_parse_keys("bogus", &o, &err), -EINVAL);
	TEST_EQ("options: --sort func,function", report_parse_keys("func,function", &o, &err),
		-EINVAL);
	TEST_EQ("options: --fields samples,interval,func,comm",
		report_parse_fields("samples,interval,func,comm", &o, &err), 0);
	TEST_EQ("options: ...those bits", o.fields,
		1u << FIELD_SAMPLES | 1u << FIELD_CI | 1u << FIELD_FUNC | 1u << FIELD_COMM);
	TEST_EQ("options: --fields nope", report_parse_fields("nope", &o, &err), -EINVAL);

	report_parse_keys("line", &o, &err);
	o.fields = 0;
	table__plan(&r);
	TEST_CHECK("options: --sort line shows line, function, dso, one row per line",
		   r.nr_cols == 3 && r.cols[0] == KEY_LINE && r.cols[1] == KEY_FUNC &&
			   r.cols[2] == KEY_DSO && r.by_line && !r.by_event);
	o.fields = 1u << FIELD_FUNC;
	TEST_EQ("options: --sort line --fields func: the line is missing",
		table__check_fields(&r, &err), -EINVAL);
	o.fields = 1u << FIELD_LINE | 1u << FIELD_PID;
	TEST_EQ("options: --sort line --fields line,pid: pid is no column",
		table__check_fields(&r, &err), -EINVAL);
	TEST_CHECK("options: ...and the message says so", strstr(err.msg, "--fields pid") != NULL);

	memset(&r, 0, sizeof(r));
	r.o = &o;
	o.view.no_inline = true;
	report_parse_keys("event,func,pid", &o, &err);
	table__plan(&r);
	TEST_CHECK("options: --sort event,func,pid: event, function, dso, pid; one table",
		   r.nr_cols == 4 && r.cols[0] == KEY_EVENT && r.cols[1] == KEY_FUNC &&
			   r.cols[2] == KEY_DSO && r.cols[3] == KEY_PID && r.by_event &&
			   !r.by_line);
}

/* ebs script's --fields: names in any order, or +/- from the default; one line for the rest. */
static void test_script_fields(void)
{
	struct ebs_error err = {0};
	unsigned int f = 0;

	TEST_EQ("script fields: sym,time,pid", script_parse_fields("sym,time,pid", &f, &err), 0);
	TEST_EQ("script fields: ...those bits, in no order", f,
		1u << SCRIPT_SYM | 1u << SCRIPT_TIME | 1u << SCRIPT_PID);
	TEST_EQ("script fields: -srcline,-cpu", script_parse_fields("-srcline,-cpu", &f, &err), 0);
	TEST_EQ("script fields: ...the default less those", f,
		SCRIPT_DEFAULT_FIELDS & ~(1u << SCRIPT_SRCLINE | 1u << SCRIPT_CPU));
	TEST_EQ("script fields: +sym is the default", script_parse_fields("+sym", &f, &err), 0);
	TEST_EQ("script fields: ...all", f, SCRIPT_DEFAULT_FIELDS);
	f = 7;
	TEST_EQ("script fields: symbol", script_parse_fields("symbol", &f, &err), -EINVAL);
	TEST_CHECK("script fields: ...named, f kept",
		   strstr(err.msg, "unknown field 'symbol'") != NULL && f == 7);
	TEST_EQ("script fields: sy (a prefix)", script_parse_fields("sy", &f, &err), -EINVAL);
	TEST_EQ("script fields: empty", script_parse_fields("", &f, &err), -EINVAL);
	TEST_EQ("script fields: a trailing comma", script_parse_fields("ip,", &f, &err), -EINVAL);
	TEST_EQ("script fields: +ip,sym mixes", script_parse_fields("+ip,sym", &f, &err), -EINVAL);
	TEST_EQ("script fields: every field taken away",
		script_parse_fields("-comm,-pid,-tid,-cpu,-time,-period,-event,-ip,-sym,-symoff,"
				    "-dso,-srcline",
				    &f, &err),
		-EINVAL);
}

/* What the printers show of a row: its count, share, interval; not below --min-percent. */
static void test_share(void)
{
	struct report_opts o = {0};
	struct report r = {.o = &o};
	struct row *row = new_row(10);
	struct row__share sh;
	double lo, hi;

	if (!row)
		return;
	row->all = 30;
	o.view.min_percent = 0.5;
	TEST_CHECK("share: 10 of 1000 (1%) is shown at --min-percent 0.5",
		   row__share(&r, row, 0, 1000, &sh) && sh.count == 10 && sh.percent == 1.0);
	present_wilson95(10, 1000, &lo, &hi);
	TEST_CHECK("share: ...with the Wilson interval of 10 of 1000",
		   sh.lo == lo && sh.hi == hi && sh.lo < 1.0 && sh.hi > 1.0);
	TEST_CHECK("share: the table of all events counts row->all (30 of 1000)",
		   row__share(&r, row, -1, 1000, &sh) && sh.count == 30 && sh.percent == 3.0);
	o.view.min_percent = 1.5;
	TEST_CHECK("share: 1% is not shown at --min-percent 1.5",
		   !row__share(&r, row, 0, 1000, &sh));
	TEST_CHECK("share: 0 of 0 is 0%, not shown at --min-percent 1.5",
		   !row__share(&r, row, 0, 0, &sh) && sh.percent == 0);
	free(row);
}

/* present_markup of s into a string */
static const char *markup(const char *s, size_t max, enum present_markup_mode mode)
{
	static char buf[256];
	FILE *f;

	buf[0] = '\0';
	f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		return "";
	present_markup(f, s, max, mode);
	fclose(f);
	return buf;
}

static void test_markup(void)
{
	TEST_STREQ("markup: entities", markup("a<b>&\"c'", SIZE_MAX, PRESENT_XML),
		   "a&lt;b&gt;&amp;&quot;c'");
	TEST_STREQ("markup: XML: controls and a tab are '?'",
		   markup("a\x01\tb", SIZE_MAX, PRESENT_XML), "a??b");
	TEST_STREQ("markup: XML: a byte that is not UTF-8 is '?', a sequence passes",
		   markup("\xff\xc3\xa9\xe2\x82", SIZE_MAX, PRESENT_XML), "?\xc3\xa9??");
	TEST_STREQ("markup: HTML: a tab is 8 spaces, controls '?', other bytes pass",
		   markup("\ta\x0c\xff", SIZE_MAX, PRESENT_HTML), "        a?\xff");
	TEST_STREQ("markup: XML: DEL, C1 as UTF-8 and raw are '?'",
		   markup("a\x7f\xc2\x9b\x9b\xc2\xa0", SIZE_MAX, PRESENT_XML), "a???\xc2\xa0");
	TEST_STREQ("markup: HTML: DEL, C1 as UTF-8 and raw are '?'",
		   markup("a\x7f\xc2\x9b\x9b\xc2\xa0", SIZE_MAX, PRESENT_HTML), "a???\xc2\xa0");
	TEST_STREQ("markup: at most max characters (a multibyte one is one)",
		   markup("\xc3\xa9t\xc3\xa9", 2, PRESENT_XML), "\xc3\xa9t");
	TEST_STREQ("markup: NULL is nothing", markup(NULL, SIZE_MAX, PRESENT_HTML), "");
}

static void test_name_list(void)
{
	static const struct {
		const char *list;
		size_t len;
	} v[] = {
		{"main", 4},
		{"a,b", 1},
		{"", 0},
		{",b", 0},
		{"f(int, char),g", 12},
		{"<hashbrown::map::HashMap<K, V, S>>::get,main", 39},
		{"<fn(u8, u8) -> u8 as Tr>::call,x", 30},
		{"std::rt::lang_start::<()>::{closure#0},x", 38},
		{"a[1, 2],b", 7},
		{"unbalanced>, b", 11},
	};
	char name[96];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		snprintf(name, sizeof(name), "name list: '%s': the first name's length", v[i].list);
		TEST_EQ(name, names_item(v[i].list), v[i].len);
	}
}

/* ---- ebs top's counting ------------------------------------------------------------------ */

/* A kernel SAMPLE at ip (kernel) or a user one of a process with no mapping. */
static void top_sample(struct top *t, u64 ip, bool kernel, u32 pid)
{
	struct ebs_rec_sample s = {0};

	s.hdr.type = EBS_REC_SAMPLE;
	s.hdr.size = sizeof(s);
	s.hdr.misc = kernel ? EBS_CPUMODE_KERNEL : EBS_CPUMODE_USER;
	s.ip = ip;
	s.pid = s.tid = pid;
	s.period = 1;
	top__tap(t, &s.hdr);
}

/* The row of name in tab, or NULL. */
static const struct top_row *top_find(const struct top_table *tab, const char *name)
{
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (!strcmp(tab->rows[i].name, name))
			return &tab->rows[i];
	return NULL;
}

static void test_top(void)
{
	char ks[] = "/tmp/ebs-test-top-kallsyms.XXXXXX", line[512];
	struct symbolize_opts so = {0};
	struct top_view v = {0};
	struct top_table tab = {0};
	const struct top_row *r;
	struct ebs_rec_count c = {0};
	double lo, hi;
	struct top *t;
	FILE *f;
	int fd, i;

	fd = mkstemp(ks);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		TEST_FAIL("top: a kallsyms file", "mkstemp: %s", strerror(errno));
		return;
	}
	fprintf(f, "ffffffff81000000 T _stext\nffffffff81000100 T hot_k\n"
		   "ffffffff81000200 t cold_k\nffffffff81000300 T a\033[31mred\n"
		   "ffffffff81000400 T zz_end\n"
		   "ffffffff81000500 T a_function_whose_name_is_long_enough_to_be_shortened_"
		   "on_a_screen_of_eighty_columns\nffffffff81000600 T zzz_end\n");
	fclose(f);
	so.kallsyms = ks;
	t = top__new(&so);
	TEST_CHECK("top: new", t != NULL);
	if (!t)
		goto out;
	/* interval 1: 30 hot_k, 10 cold_k, 5 user samples no mapping covers */
	for (i = 0; i < 30; i++)
		top_sample(t, 0xffffffff81000110ull + (u64)i, true, 7);
	for (i = 0; i < 10; i++)
		top_sample(t, 0xffffffff81000210ull, true, 7);
	for (i = 0; i < 5; i++)
		top_sample(t, 0x1000, false, 7);
	top_sample(t, 0xffffffff81000310ull, true, 7); /* the hostile name */
	c.hdr.type = EBS_REC_COUNT;
	c.hdr.size = sizeof(c);
	top__tap(t, &c.hdr); /* not shown: ignored */
	TEST_EQ("top: nothing counted before the drain", top__pending(t), 0);
	TEST_EQ("top: the drain", top__drain(t), 0);
	TEST_EQ("top: the interval's samples so far", top__pending(t), 46);
	TEST_EQ("top: no whole interval yet: an empty table", top__table(t, &v, &tab), 0);
	TEST_EQ("top: no whole interval yet: no rows", tab.n, 0);
	top__interval(t, 1000000000ull);
	TEST_EQ("top: the table", top__table(t, &v, &tab), 0);
	TEST_EQ("top: 4 rows", tab.n, 4);
	TEST_EQ("top: all 46 samples, 41 kernel", tab.all * 100 + tab.kernel, 46 * 100 + 41);
	TEST_CHECK("top: hottest first: hot_k [kernel], 30",
		   tab.n && !strcmp(tab.rows[0].name, "hot_k") &&
			   !strcmp(tab.rows[0].dso, "[kernel]") && tab.rows[0].samples == 30 &&
			   tab.rows[0].kernel);
	present_wilson95(30, 46, &lo, &hi);
	TEST_CHECK("top: hot_k's share and its interval, as report's",
		   tab.n && fabs(tab.rows[0].share - 3000.0 / 46) < 1e-9 && tab.rows[0].lo == lo &&
			   tab.rows[0].hi == hi);
	r = top_find(&tab, "[unknown] 0x1000");
	TEST_CHECK("top: user code no mapping covers: [unknown] 0xADDR, 5, not kernel",
		   r && r->samples == 5 && r->unknown && !r->kernel &&
			   !strcmp(r->dso, "[unknown]"));
	TEST_CHECK("top: a name's escape shown as '?'", top_find(&tab, "a?[31mred") != NULL);
	/* the views: user only, kernel only (shares of what they keep) */
	v.mode = TOP_USER;
	top__table(t, &v, &tab);
	TEST_CHECK("top: user only: the one user row, 100%",
		   tab.n == 1 && tab.samples == 5 && tab.rows[0].share == 100.0);
	v.mode = TOP_KERNEL;
	top__table(t, &v, &tab);
	TEST_CHECK("top: kernel only: 3 rows, 41 samples", tab.n == 3 && tab.samples == 41);
	v.mode = TOP_BOTH;
	v.sort = TOP_SORT_NAME;
	top__table(t, &v, &tab);
	TEST_CHECK("top: by name", tab.n == 4 && !strcmp(tab.rows[0].name, "[unknown] 0x1000") &&
					   !strcmp(tab.rows[1].name, "a?[31mred") &&
					   !strcmp(tab.rows[2].name, "cold_k"));
	v.sort = TOP_SORT_DSO;
	top__table(t, &v, &tab);
	TEST_CHECK("top: by DSO, then samples", tab.n == 4 && !strcmp(tab.rows[0].name, "hot_k") &&
							!strcmp(tab.rows[3].dso, "[unknown]"));
	v.sort = TOP_SORT_SAMPLES;
	/* interval 2: only 4 cold_k; the last interval's counts, and the sum since the start */
	for (i = 0; i < 4; i++)
		top_sample(t, 0xffffffff81000220ull, true, 7);
	top__drain(t);
	top__interval(t, 2000000000ull);
	top__table(t, &v, &tab);
	TEST_CHECK("top: per interval: the counts start again (cold_k 4, alone)",
		   tab.n == 1 && tab.rows[0].samples == 4 && tab.all == 4 && tab.intervals == 2 &&
			   tab.start_ns == 1000000000ull && tab.end_ns == 2000000000ull);
	v.cumulative = true;
	top__table(t, &v, &tab);
	r = top_find(&tab, "cold_k");
	TEST_CHECK("top: since the start: cold_k 14 of 50",
		   r && r->samples == 14 && tab.all == 50 && tab.start_ns == 0);
	top_table__line(&tab, 0, line, sizeof(line), 0);
	TEST_CHECK("top: a row's line: samples, percent, interval, function, dso",
		   !strncmp(line, "       30   60.00%  [ ", 21) && strstr(line, "hot_k") &&
			   strstr(line, "  [kernel]"));
	top_table__line(&tab, 0, line, sizeof(line), 30);
	TEST_EQ("top: a line cut to the width", strlen(line), 30);
	/* interval 3: 20 hot_k, 1 of a long name; columns sized from the rows printed only */
	v.cumulative = false;
	for (i = 0; i < 20; i++)
		top_sample(t, 0xffffffff81000110ull, true, 7);
	top_sample(t, 0xffffffff81000510ull, true, 7);
	top__drain(t);
	top__interval(t, 3000000000ull);
	top__table(t, &v, &tab);
	{
		char *text = NULL, *l2;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);

		if (m) {
			top_table__print(&tab, &v, 1, m);
			fclose(m);
		}
		l2 = text ? strchr(text, '\n') : NULL;
		l2 = l2 ? strchr(l2 + 1, '\n') : NULL; /* the first row's line */
		TEST_CHECK("top: --rows 1: the long name not printed does not widen the columns",
			   l2 && !strncmp(l2 + 1, "       20  ", 11) &&
				   strcspn(l2 + 1, "\n") == 36 + strlen("function") + 2 + 8);
		free(text);
	}
	/* on 80 columns: the DSO whole, the long name shortened */
	top_table__fit(&tab, 0, tab.n, 80);
	top_table__line(&tab, 1, line, sizeof(line), 80);
	TEST_CHECK("top: 80 columns: the name shortened, the DSO whole",
		   strlen(line) <= 80 && strlen(line) > 70 &&
			   !strcmp(line + strlen(line) - 10, "  [kernel]") &&
			   !strstr(line, "shortened_on"));
	top_table__free(&tab);
	top__free(t);
out:
	unlink(ks);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_wilson), TEST_CASE(test_share), TEST_CASE(test_elide),
	  TEST_CASE(test_cells), TEST_CASE(test_columns), TEST_CASE(test_options),
	  TEST_CASE(test_script_fields), TEST_CASE(test_markup), TEST_CASE(test_name_list),
	  TEST_CASE(test_top))
