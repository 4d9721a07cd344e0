// SPDX-License-Identifier: MIT
/*
 * test-kallsyms.c - reading the kernel's symbols (symbolize/kallsyms.c) and
 * JIT maps (symbolize/jitmap.c) from files written into a mkdtemp()
 * directory, against docs/symbolize.md sections 7 and 8.
 *
 *   test_kallsyms       text symbols (t T w W) kept, others skipped; module
 *                       names "[mod]"; aliases (T/W over t/w, the shorter
 *                       name, the alphabetically first); _stext; lines that
 *                       do not parse (17 hex digits, a NUL, no name, a
 *                       module name too long or unterminated) skipped; names
 *                       cleaned; the sorted lookup, the last symbol's span
 *   test_kallsyms_refused  zeroed addresses (kptr_restrict), no text symbol,
 *                       an empty or missing file, a line of 4096 bytes or
 *                       more (with its number), more than 256 MiB (from a
 *                       FIFO, so nothing that large is written)
 *   test_jitmap         "START SIZE NAME" in hex with an optional 0x, NAME to
 *                       the end of the line, bad lines and size 0 skipped,
 *                       aliases, demangling, names cleaned
 *   test_jitmap_refused a missing file, a FIFO (refused, not waited on), a
 *                       symbolic link or another user's file in a
 *                       world-writable directory, a line of 64 KiB or more
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize/internal.h"
#include "test.h"

static char tmpdir[64];

/* Write len bytes to a file of the test directory; its path into path. */
static void put(char *path, size_t size, const char *name, const void *data, size_t len)
{
	int fd;

	snprintf(path, size, "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void puts_file(char *path, size_t size, const char *name, const char *text)
{
	put(path, size, name, text, strlen(text));
}

static void cleanup(void)
{
	char cmd[128];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* ---- kallsyms ------------------------------------------------------------ */

#define K(x) 0xffffffff81000000ull + (x)
#define M(x) 0xffffffffc0a00000ull + (x)

/* The name at addr, or NULL. */
static const char *ksym_at(const struct kallsyms *k, u64 addr)
{
	const struct ksym *s = kallsyms__find(k, addr);

	return s ? s->name : NULL;
}

static const char *kdso_at(const struct kallsyms *k, u64 addr)
{
	const struct ksym *s = kallsyms__find(k, addr);

	return s ? s->dso : NULL;
}

static bool kname_anywhere(const struct kallsyms *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->nsyms; i++)
		if (!strcmp(k->syms[i].name, name))
			return true;
	return false;
}

static void test_kallsyms(void)
{
	/* modules first and lines out of order: the table sorts them */
	static const char text[] = "ffffffffc0a01000 t helper\t[mymod]\n"
				   "ffffffffc0a02000 T other\t[mymod]\n"
				   "ffffffffc0a03000 t thing\t[m\001d]\n"
				   "ffffffff81002000 T aaa2\n"
				   "ffffffff81002000 T aaa1\n"
				   "ffffffff81000000 T _stext\n"
				   "ffffffff81000000 T _text\n"
				   "ffffffff81001000 t lf\n"
				   "ffffffff81001000 W weak_fn\n"
				   "ffffffff81003000 D data_sym\n"
				   "ffffffff81003000 b bss_sym\n"
				   "ffffffff81003000 R ro_sym\n"
				   "ffffffff81003000 A abs_sym\n"
				   "ffffffff81004000 w weak_local\n"
				   "1ffffffff81005000 T seventeen_digits\n"
				   "ffffffff81006000 T nul\0hidden\n"
				   "ffffffff81006000 Tnospace\n"
				   "ffffffff81006000 T\n"
				   "ffffffff81006000 t emptymod\t[]\n"
				   "ffffffff81006000 t openmod\t[mod\n"
				   "ffffffff81008000 T esc\033[2J\n"
				   "ffffffff81009000 T crlf\r\n"
				   "0000000000000000 T hidden_zero\n";
	static const char last[] = "FFFFFFFF8100A000 T upper_hex"; /* no newline at the end */
	char mod[64], path[128], *buf;
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct kallsyms *k;
	size_t len = sizeof(text) - 1;
	int n;

	/* MODULE_NAME_LEN - 1 = 55 bytes of module name at most */
	buf = malloc(len + 2 * 128 + sizeof(last));
	if (!buf)
		abort();
	memcpy(buf, text, len);
	memset(mod, 'm', 56);
	n = snprintf(buf + len, 128, "ffffffff81006000 t longmod\t[%.56s]\n", mod);
	len += (size_t)n;
	n = snprintf(buf + len, 128, "ffffffff81007000 t mod55\t[%.55s]\n", mod);
	len += (size_t)n;
	memcpy(buf + len, last, sizeof(last) - 1);
	len += sizeof(last) - 1;
	put(path, sizeof(path), "kallsyms", buf, len);
	free(buf);
	k = kallsyms__load(path, &werr);
	if (!k) {
		TEST_FAIL("kallsyms: loaded", "%s", why);
		return;
	}
	TEST_OK("kallsyms: loaded");
	TEST_EQ("kallsyms: one entry per address, text symbols only", k->nsyms, 11);
	TEST_CHECK("kallsyms: data, bss, rodata and absolute symbols skipped",
		   !kname_anywhere(k, "data_sym") && !kname_anywhere(k, "bss_sym") &&
			   !kname_anywhere(k, "ro_sym") && !kname_anywhere(k, "abs_sym"));
	TEST_STREQ("kallsyms: aliases: the shorter of two T", ksym_at(k, K(0)), "_text");
	TEST_EQ("kallsyms: _stext's address, though _text names the entry", k->stext, K(0));
	TEST_STREQ("kallsyms: aliases: W over t, though longer", ksym_at(k, K(0x1000)), "weak_fn");
	TEST_STREQ("kallsyms: aliases: same type and length, the alphabetically first",
		   ksym_at(k, K(0x2000)), "aaa1");
	TEST_STREQ("kallsyms: w kept", ksym_at(k, K(0x4000)), "weak_local");
	TEST_CHECK("kallsyms: a symbol covers up to the next one",
		   !strcmp(ksym_at(k, K(0x2fff)) ?: "", "aaa1") &&
			   !strcmp(ksym_at(k, K(0x3000)) ?: "", "aaa1") &&
			   !strcmp(ksym_at(k, K(0x6fff)) ?: "", "weak_local"));
	TEST_CHECK("kallsyms: 17 hex digits: skipped, not cut to 16",
		   !kname_anywhere(k, "seventeen_digits"));
	TEST_CHECK("kallsyms: a line holding a NUL is skipped",
		   !kname_anywhere(k, "nul") && !kname_anywhere(k, "hidden"));
	TEST_CHECK("kallsyms: no blank after the type, or no name: skipped",
		   !kname_anywhere(k, "Tnospace") && !kname_anywhere(k, "nospace"));
	TEST_CHECK("kallsyms: a module name of 56 bytes, [] or no ]: skipped",
		   !kname_anywhere(k, "longmod") && !kname_anywhere(k, "emptymod") &&
			   !kname_anywhere(k, "openmod"));
	TEST_CHECK("kallsyms: a module name of 55 bytes kept",
		   !strcmp(ksym_at(k, K(0x7000)) ?: "", "mod55") &&
			   strlen(kdso_at(k, K(0x7000)) ?: "") == 57);
	TEST_STREQ("kallsyms: control characters in a name shown as ?", ksym_at(k, K(0x8000)),
		   "esc?[2J");
	TEST_STREQ("kallsyms: a CR before the newline is not part of the name",
		   ksym_at(k, K(0x9000)), "crlf");
	TEST_STREQ("kallsyms: upper-case hex, a last line without a newline", ksym_at(k, K(0xa000)),
		   "upper_hex");
	TEST_CHECK("kallsyms: an address shown as 0 is dropped",
		   !kname_anywhere(k, "hidden_zero") && !kallsyms__find(k, 0));
	TEST_CHECK("kallsyms: below the first symbol, nothing",
		   !kallsyms__find(k, K(0) - 1) && !kallsyms__find(k, 0x1000));
	TEST_CHECK("kallsyms: the last symbol covers 4096 bytes",
		   !strcmp(ksym_at(k, M(0x3fff)) ?: "", "thing") && !kallsyms__find(k, M(0x4000)));
	TEST_CHECK("kallsyms: modules' symbols in [mod], the kernel's in [kernel]",
		   !strcmp(kdso_at(k, M(0x1000)) ?: "", "[mymod]") &&
			   !strcmp(kdso_at(k, K(0)) ?: "", "[kernel]") &&
			   !strcmp(ksym_at(k, M(0x1000)) ?: "", "helper"));
	TEST_CHECK("kallsyms: one module, one interned name",
		   kdso_at(k, M(0x1000)) && kdso_at(k, M(0x1000)) == kdso_at(k, M(0x2000)));
	TEST_STREQ("kallsyms: control characters in a module name shown as ?",
		   kdso_at(k, M(0x3000)), "[m?d]");
	{
		size_t i;
		bool sorted = true;

		for (i = 1; i < k->nsyms; i++)
			sorted &= k->syms[i - 1].addr < k->syms[i].addr;
		TEST_CHECK("kallsyms: sorted by address, strictly", sorted);
	}
	kallsyms__free(k);
}

/*
 * kallsyms__load of text in a file: NULL expected, with errno want, the
 * error's code code and its line holding what.
 */
static void kallsyms_refused(const char *name, const char *file, const char *text, size_t len,
			     int want, enum ebs_code code, const char *what)
{
	char path[128];
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct kallsyms *k;

	if (text)
		put(path, sizeof(path), file, text, len);
	else
		snprintf(path, sizeof(path), "%s/%s", tmpdir, file);
	errno = 0;
	k = kallsyms__load(path, &werr);
	if (k)
		TEST_FAIL(name, "loaded %zu symbols", k->nsyms);
	else if (errno != want || werr.code != code || !strstr(why, what))
		TEST_FAIL(name, "errno %d (%s), want %d; %s, want %s; why \"%s\", want \"%s\"",
			  errno, strerror(errno), want, ebs_error_code_name(werr.code),
			  ebs_error_code_name(code), why, what);
	else
		TEST_OK(name);
	kallsyms__free(k);
}

/* A line of n bytes before its newline (16 digits, " T ", a name), at line 2 of a file. */
static char *line_of(size_t n)
{
	static const char head[] = "ffffffff81000000 T first\nffffffff81001000 T ";
	size_t hl = sizeof(head) - 1, name = n - 19;
	char *s = malloc(hl + name + 2);

	if (!s)
		abort();
	memcpy(s, head, hl);
	memset(s + hl, 'n', name);
	s[hl + name] = '\n';
	s[hl + name + 1] = '\0';
	return s;
}

/* A FIFO fed more than 256 MiB of kallsyms lines by a child; the reader must stop. */
static void kallsyms_fifo_too_big(void)
{
	const char *name = "kallsyms: refused: more than 256 MiB (from a FIFO)";
	char path[128], line[64];
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct kallsyms *k;
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/kallsyms-fifo", tmpdir);
	if (mkfifo(path, 0600)) {
		TEST_SKIP(name, "mkfifo: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		TEST_SKIP(name, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		static char chunk[1 << 16];
		size_t len = 0, total = 0;
		int fd;

		fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(1);
		snprintf(line, sizeof(line), "ffffffff81000000 T fifo_symbol_name\n");
		while (len + strlen(line) <= sizeof(chunk)) {
			memcpy(chunk + len, line, strlen(line));
			len += strlen(line);
		}
		/* 300 MiB at most: past the bound, not endless if the reader never stops */
		while (total < (300u << 20)) {
			if (write(fd, chunk, len) != (ssize_t)len)
				_exit(0); /* the reader closed: as expected */
			total += len;
		}
		_exit(2);
	}
	errno = 0;
	k = kallsyms__load(path, &werr);
	if (k)
		TEST_FAIL(name, "loaded %zu symbols", k->nsyms);
	else if (errno != EFBIG || werr.code != EBS_E_TOO_LARGE ||
		 !strstr(why, "larger than 256 MiB"))
		TEST_FAIL(name, "errno %d, why \"%s\"", errno, why);
	else
		TEST_OK(name);
	kallsyms__free(k);
	if (waitpid(pid, &status, 0) == pid && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		TEST_FAIL("kallsyms: the FIFO's writer stopped by the reader",
			  "writer status 0x%x (2: wrote 300 MiB unread)", status);
	else
		TEST_OK("kallsyms: the FIFO's writer stopped by the reader");
}

static void test_kallsyms_refused(void)
{
	static const char zeros[] = "0000000000000000 T _stext\n"
				    "0000000000000000 T start_kernel\n"
				    "0000000000000000 t helper\t[mymod]\n"
				    "0000000000000000 D some_data\n";
	static const char half[] = "0000000000000000 T a\n0000000000000000 T b\n"
				   "ffffffff81000000 T c\nffffffff81001000 T d\n";
	static const char less[] = "0000000000000000 T a\n"
				   "ffffffff81000000 T c\nffffffff81001000 T d\n";
	static const char data[] = "ffffffff81000000 D a\nffffffff81001000 B b\n";
	char path[128], *s;
	struct ebs_error werr = {0};
	struct kallsyms *k;

	kallsyms_refused("kallsyms: refused: every address 0 (kptr_restrict)", "k-zeros", zeros,
			 sizeof(zeros) - 1, EPERM, EBS_E_ADDRESSES_HIDDEN, "addresses are hidden");
	kallsyms_refused("kallsyms: refused: as many zeros as addresses", "k-half", half,
			 sizeof(half) - 1, EPERM, EBS_E_ADDRESSES_HIDDEN, "addresses are hidden");
	put(path, sizeof(path), "k-less", less, sizeof(less) - 1);
	k = kallsyms__load(path, &werr);
	TEST_CHECK("kallsyms: fewer zeros than addresses: loaded, zeros dropped",
		   k && k->nsyms == 2 && !kallsyms__find(k, 0));
	kallsyms__free(k);
	kallsyms_refused("kallsyms: refused: no text symbol", "k-data", data, sizeof(data) - 1,
			 ENOENT, EBS_E_NO_SYMBOLS, "no text symbols");
	kallsyms_refused("kallsyms: refused: an empty file", "k-empty", "", 0, ENOENT,
			 EBS_E_NO_SYMBOLS, "no text symbols");
	kallsyms_refused("kallsyms: refused: a missing file", "k-missing", NULL, 0, ENOENT,
			 EBS_E_ERRNO, strerror(ENOENT));

	/* KALLSYMS_MAX_LINE: "a line of 4096 bytes is not a kallsyms file" (docs) */
	s = line_of(4095);
	put(path, sizeof(path), "k-4095", s, strlen(s));
	k = kallsyms__load(path, &werr);
	TEST_CHECK("kallsyms: a line of 4095 bytes is read", k && k->nsyms == 2);
	kallsyms__free(k);
	free(s);
	s = line_of(4096);
	kallsyms_refused("kallsyms: refused: a line of 4096 bytes, named by its number", "k-4096",
			 s, strlen(s), E2BIG, EBS_E_LINE_TOO_LONG,
			 "line 2 is 4096 bytes long or more");
	free(s);
	s = line_of(100000);
	kallsyms_refused("kallsyms: refused: a line of 100,000 bytes", "k-long", s, strlen(s),
			 E2BIG, EBS_E_LINE_TOO_LONG,
			 "line 2 is 4096 bytes long or more: not a kallsyms file");
	free(s);
	kallsyms_fifo_too_big();
}

/* ---- perf-PID.map ---------------------------------------------------------- */

static const char *jsym_at(struct symtab *t, u64 addr)
{
	const struct sym *s = symtab__find(t, addr);

	return s ? symtab__name(t, s, NULL) : NULL;
}

static bool jname_anywhere(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i].name, name))
			return true;
	return false;
}

static void test_jitmap(void)
{
	static const char text[] = "7f0000001000 40 small\n"
				   "0x7f0000002000 0x100 LazyCompile:*foo bar.js:10\n"
				   "0X7f0000003000 0X20 upper_x\n"
				   "7f0000004000 0 zero_size\n"
				   "7f0000005000 zz bad_size\n"
				   "nothex 10 bad_start\n"
				   "7f0000006000 10\n"
				   "7f0000006000 10 \t \n"
				   "7f0000006000\n"
				   "17f00000060000000 10 seventeen_digits\n"
				   "\n"
				   "  7f0000007000\t10\t tabbed name\n"
				   "7f0000009000 10 _ZN2ns3fooEi\n"
				   "7f000000a000 10 alias_long\n"
				   "7f000000a000 20 alias\n"
				   "7f000000b000 10 ctl\001name\n"
				   "7f000000c000 10 last";
	char path[128];
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct symtab t;
	int e;

	puts_file(path, sizeof(path), "perf-100.map", text);
	e = jitmap__load_err(path, &t, false, &werr);
	if (e) {
		TEST_FAIL("jitmap: loaded", "%d: %s", e, why);
		return;
	}
	TEST_OK("jitmap: loaded");
	TEST_EQ("jitmap: one entry per address, bad lines skipped", t.nsyms, 8);
	TEST_CHECK("jitmap: START SIZE NAME in hex: [START, START + SIZE)",
		   !strcmp(jsym_at(&t, 0x7f0000001000) ?: "", "small") &&
			   !strcmp(jsym_at(&t, 0x7f000000103f) ?: "", "small") &&
			   !jsym_at(&t, 0x7f0000001040) && !jsym_at(&t, 0x7f0000000fff));
	TEST_CHECK("jitmap: 0x before START and SIZE, NAME to the end of the line",
		   !strcmp(jsym_at(&t, 0x7f00000020ff) ?: "", "LazyCompile:*foo bar.js:10") &&
			   !jsym_at(&t, 0x7f0000002100));
	TEST_STREQ("jitmap: 0X as well", jsym_at(&t, 0x7f000000301f), "upper_x");
	TEST_CHECK("jitmap: size 0, a bad size or start, no name: skipped",
		   !jsym_at(&t, 0x7f0000004000) && !jsym_at(&t, 0x7f0000005000) &&
			   !jsym_at(&t, 0x7f0000006000));
	TEST_CHECK("jitmap: 17 hex digits: skipped, not cut to 16",
		   !jname_anywhere(&t, "seventeen_digits"));
	TEST_STREQ("jitmap: blanks and tabs around the fields", jsym_at(&t, 0x7f000000700f),
		   "tabbed name");
	TEST_STREQ("jitmap: C++ names kept when not asked", jsym_at(&t, 0x7f0000009000),
		   "_ZN2ns3fooEi");
	TEST_CHECK("jitmap: aliases: the shorter name, the largest size",
		   !strcmp(jsym_at(&t, 0x7f000000a01f) ?: "", "alias"));
	TEST_STREQ("jitmap: control characters in a name shown as ?", jsym_at(&t, 0x7f000000b000),
		   "ctl?name");
	TEST_STREQ("jitmap: a last line without a newline", jsym_at(&t, 0x7f000000c000), "last");
	symtab__exit(&t);

	e = jitmap__load_err(path, &t, true, &werr);
	TEST_STREQ("jitmap: C++ names demangled when asked", e ? NULL : jsym_at(&t, 0x7f0000009000),
		   "ns::foo(int)");
	if (!e)
		symtab__exit(&t);
}

/*
 * jitmap__load_err of path: want (a -errno) expected, with the error's
 * line holding what, and its code the one of util/error.h's table
 * for what was refused.
 */
static void jitmap_refused(const char *name, const char *path, int want, const char *what)
{
	enum ebs_code code = want == -E2BIG	       ? EBS_E_LINE_TOO_LONG
			     : want == -EBS_ENOTREG    ? EBS_E_NOT_REGULAR
			     : want == -EBS_EUNTRUSTED ? EBS_E_UNTRUSTED
						       : EBS_E_ERRNO;
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct symtab t;
	int e = jitmap__load_err(path, &t, false, &werr);

	if (!e) {
		TEST_FAIL(name, "loaded %zu symbols", t.nsyms);
		symtab__exit(&t);
	} else if (werr.code != code) {
		TEST_FAIL(name, "%s, want %s (%s)", ebs_error_code_name(werr.code),
			  ebs_error_code_name(code), why);
	} else if (e != want || !strstr(why, what)) {
		TEST_FAIL(name, "%d, want %d; why \"%s\", want \"%s\"", e, want, why, what);
	} else {
		TEST_OK(name);
	}
}

static void test_jitmap_refused(void)
{
	char path[128], target[128], shared[128], link[160];
	struct ebs_error werr = {0};
	struct symtab t;
	char *s;
	int e;

	snprintf(path, sizeof(path), "%s/perf-1.map", tmpdir);
	jitmap_refused("jitmap: refused: a missing file", path, -ENOENT, strerror(ENOENT));

	snprintf(path, sizeof(path), "%s/perf-2.map", tmpdir);
	if (mkfifo(path, 0600))
		TEST_SKIP("jitmap: refused: a FIFO, not waited on", "mkfifo: %s", strerror(errno));
	else
		jitmap_refused("jitmap: refused: a FIFO, not waited on", path, -EBS_ENOTREG,
			       "is a FIFO, not a regular file");

	s = malloc(70000);
	if (!s)
		abort();
	memcpy(s, "7f0000001000 10 ", 16);
	memset(s + 16, 'n', 70000 - 17);
	s[70000 - 1] = '\n';
	put(path, sizeof(path), "perf-3.map", s, 70000);
	free(s);
	jitmap_refused("jitmap: refused: a line of 64 KiB or more", path, -E2BIG,
		       "line 1 is 65536 bytes long or more: not a perf map");

	/* a symbolic link: followed in a private directory, not in a world-writable one */
	puts_file(target, sizeof(target), "perf-4.map", "7f0000001000 10 linked\n");
	snprintf(link, sizeof(link), "%s/perf-5.map", tmpdir);
	snprintf(shared, sizeof(shared), "%s/shared", tmpdir);
	if (symlink(target, link) || mkdir(shared, 0700) || chmod(shared, 01777)) {
		TEST_FAIL("jitmap: set up links", "%s", strerror(errno));
		return;
	}
	e = jitmap__load_err(link, &t, false, &werr);
	TEST_CHECK("jitmap: a symbolic link in a private directory is followed",
		   !e && !strcmp(jsym_at(&t, 0x7f0000001000) ?: "", "linked"));
	if (!e)
		symtab__exit(&t);
	snprintf(link, sizeof(link), "%s/perf-6.map", shared);
	if (symlink(target, link)) {
		TEST_FAIL("jitmap: set up links", "%s", strerror(errno));
		return;
	}
	jitmap_refused("jitmap: refused: a symbolic link in a world-writable directory", link,
		       -ELOOP, "is a symbolic link in a directory others can write: not followed");

	/* a file of our own there is used; another user's is not */
	puts_file(path, sizeof(path), "shared/perf-7.map", "7f0000001000 10 mine\n");
	e = jitmap__load_err(path, &t, false, &werr);
	TEST_CHECK("jitmap: our own file in a world-writable directory is used",
		   !e && !strcmp(jsym_at(&t, 0x7f0000001000) ?: "", "mine"));
	if (!e)
		symtab__exit(&t);
	if (geteuid() != 0) {
		TEST_SKIP("jitmap: refused: another user's file in a world-writable directory",
			  "not root: cannot give a file away");
	} else if (chown(path, 65534, 65534)) {
		TEST_SKIP("jitmap: refused: another user's file in a world-writable directory",
			  "chown: %s", strerror(errno));
	} else {
		jitmap_refused("jitmap: refused: another user's file in a world-writable directory",
			       path, -EBS_EUNTRUSTED,
			       "(uid 65534) in a directory others can write: not trusted");
	}
}

/* A recording's own table (KSYMS): gaps between symbols, modules, a bad entry. */
static void test_kallsyms_table(void)
{
	static const struct sym_ksym v[] = {
		{K(0x100), K(0x180), "do_a", "[kernel]", true},
		{K(0x180), K(0x200), "do_b", "[kernel]", false},
		{K(0x1f0), K(0x300), "overlapping", "[kernel]", false}, /* left out */
		{K(0x900), K(0x940), "far_\x1b[31mred", "[kernel]", true},
		{M(0x10), M(0x10), "empty", "[mymod]", false}, /* left out */
		{M(0x20), M(0x80), "mod_fn", "[mymod]", true},
	};
	struct kallsyms *k = kallsyms__from_table(v, sizeof(v) / sizeof(v[0]), K(0));

	if (!k) {
		TEST_FAIL("kallsyms: table", "kallsyms__from_table: NULL");
		return;
	}
	TEST_EQ("kallsyms: table: the well-formed entries kept", k->nsyms, 4);
	TEST_STREQ("kallsyms: table: an address inside a symbol", ksym_at(k, K(0x17f)), "do_a");
	TEST_STREQ("kallsyms: table: the next one from its start", ksym_at(k, K(0x180)), "do_b");
	TEST_CHECK("kallsyms: table: nothing in a gap between symbols",
		   !ksym_at(k, K(0x200)) && !ksym_at(k, K(0x8ff)));
	TEST_CHECK("kallsyms: table: nothing before the first or after the last",
		   !ksym_at(k, K(0xff)) && !ksym_at(k, M(0x80)));
	TEST_CHECK("kallsyms: table: an overlapping or empty entry is left out",
		   !kname_anywhere(k, "overlapping") && !kname_anywhere(k, "empty"));
	TEST_STREQ("kallsyms: table: a module's symbol in its module", kdso_at(k, M(0x40)),
		   "[mymod]");
	TEST_STREQ("kallsyms: table: the kernel's in [kernel]", kdso_at(k, K(0x100)), "[kernel]");
	TEST_CHECK("kallsyms: table: control characters in a name are cleaned",
		   ksym_at(k, K(0x900)) && !strchr(ksym_at(k, K(0x900)), '\x1b'));
	TEST_EQ("kallsyms: table: _stext as the recording had it", k->stext, K(0));
	kallsyms__free(k);
	k = kallsyms__from_table(NULL, 0, 0);
	TEST_CHECK("kallsyms: table: an empty one finds nothing", k && !kallsyms__find(k, K(0)));
	kallsyms__free(k);
}

/*
 * Several recordings' kernels in one symbolizer: each resolves its own
 * addresses (two hosts, two KASLR offsets), one name is one pointer in all,
 * and without one, the lookups go back to the default (here: --kallsyms's
 * file, which also wins over any recording's table).
 */
static void test_kernel_tables(void)
{
	static const struct sym_ksym a[] = {
		{K(0x100), K(0x180), "do_a", "[kernel]", true},
		{M(0x20), M(0x80), "mod_fn", "[mymod]", true},
	};
	static const struct sym_ksym b[] = {
		/* another boot: everything 0x1000 higher */
		{K(0x1100), K(0x1180), "do_a", "[kernel]", true},
		{K(0x1180), K(0x1200), "do_b", "[kernel]", true},
		{M(0x1020), M(0x1080), "mod_fn", "[mymod]", true},
	};
	struct symbolize_opts so = {0};
	const struct sym_kernel *ka, *kb;
	struct sym_result ra, rb, r;
	struct symbolizer *s = symbolizer__new(&so);
	u64 stext = 0;

	/* several recordings: names shared, whether said before or after a table is added */
	if (!s || symbolizer__add_kernel_symbols(s, a, 2, K(0x10), &ka) ||
	    symbolizer__share_kernel_names(s) ||
	    symbolizer__add_kernel_symbols(s, b, 3, K(0x1010), &kb) || !ka || !kb) {
		TEST_FAIL("kernel tables", "symbolizer__add_kernel_symbols failed");
		symbolizer__free(s);
		return;
	}
	symbolizer__use_kernel(s, ka);
	symbolizer__lookup_kernel(s, K(0x110), &ra);
	TEST_CHECK("kernel tables: a's address in a's table",
		   ra.function && !strcmp(ra.function, "do_a"));
	symbolizer__lookup_kernel(s, K(0x1110), &r);
	TEST_CHECK("kernel tables: b's address not in a's table", !r.function);
	TEST_CHECK("kernel tables: a's _stext",
		   !symbolizer__kernel_stext(s, &stext) && stext == K(0x10));
	symbolizer__use_kernel(s, kb);
	symbolizer__lookup_kernel(s, K(0x1110), &rb);
	TEST_CHECK("kernel tables: b's address in b's table, one pointer for the name in both",
		   rb.function && rb.function == ra.function);
	symbolizer__lookup_kernel(s, M(0x1030), &rb);
	symbolizer__use_kernel(s, ka);
	symbolizer__lookup_kernel(s, M(0x30), &ra);
	TEST_CHECK("kernel tables: a module's name, one pointer in both",
		   ra.dso && ra.dso == rb.dso && !strcmp(ra.dso, "[mymod]"));
	symbolizer__use_kernel(s, kb);
	TEST_CHECK("kernel tables: b's _stext",
		   !symbolizer__kernel_stext(s, &stext) && stext == K(0x1010));
	symbolizer__free(s);

	/* --kallsyms FILE wins: no table kept, the file's symbols */
	so.kallsyms = "/nonexistent/kallsyms";
	s = symbolizer__new(&so);
	TEST_CHECK("kernel tables: with --kallsyms none is kept",
		   s && !symbolizer__add_kernel_symbols(s, a, 2, K(0x10), &ka) && !ka);
	if (s) {
		symbolizer__use_kernel(s, ka);
		symbolizer__lookup_kernel(s, K(0x110), &r);
		TEST_CHECK("kernel tables: ...and the lookups are the file's (none here)",
			   !r.function);
	}
	symbolizer__free(s);
}

/*
 * A kernel caller's frame whose return address less one is a function's
 * padding: the frame is that function (a retpoline thunk put its entry on
 * the stack to jump to it; perf names it so: "pipe_release", not
 * "__pfx_pipe_release", in a chain CI recorded).  Elsewhere, one byte back
 * as ever, into another function when the call was its last instruction.
 * A recording keeps the function after padding, so its own table gives it.
 */
static void test_kernel_padding(void)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 T caller\n"
				   "ffffffff810001f0 t __pfx_pipe_release\n"
				   "ffffffff81000200 t pipe_release\n"
				   "ffffffff810002f0 t __cfi_other\n"
				   "ffffffff81000300 T other\n"
				   "ffffffff81000400 T next_fn\n"
				   "ffffffff81000500 T end\n";
	u64 addrs[] = {K(0x1ff), K(0x2f5), K(0x3ff)};
	struct symbolize_opts so = {0};
	struct ebs_error why = {0};
	struct sym_ksym *v = NULL;
	struct sym_result r;
	struct symbolizer *s, *t;
	char path[128];
	size_t nv = 0, i;
	u64 look = 0, stext;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms-pfx", tmpdir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		TEST_FAIL("kernel padding", "%s: %s", path, strerror(errno));
		return;
	}
	so.kallsyms = path;
	s = symbolizer__new(&so);
	if (!s) {
		TEST_FAIL("kernel padding", "symbolizer__new failed");
		return;
	}
	symbolizer__lookup_kernel_caller(s, K(0x200), &r, &look);
	TEST_CHECK("kernel padding: a return address whose byte before is __pfx_: the function",
		   r.function && !strcmp(r.function, "pipe_release") && look == K(0x200) &&
			   r.sym_offset == 0);
	symbolizer__lookup_kernel_caller(s, K(0x300), &r, &look);
	TEST_CHECK("kernel padding: ...or __cfi_",
		   r.function && !strcmp(r.function, "other") && look == K(0x300));
	symbolizer__lookup_kernel_caller(s, K(0x400), &r, &look);
	TEST_CHECK(
		"kernel padding: a function's start after a function: the one before (a noreturn call)",
		r.function && !strcmp(r.function, "other") && look == K(0x3ff) &&
			r.sym_offset == 0xff);
	symbolizer__lookup_kernel_caller(s, K(0x150), &r, &look);
	TEST_CHECK("kernel padding: inside a function: one byte back",
		   r.function && !strcmp(r.function, "caller") && look == K(0x14f));
	symbolizer__lookup_kernel(s, K(0x1f5), &r);
	TEST_CHECK("kernel padding: a plain lookup still names the padding",
		   r.function && !strcmp(r.function, "__pfx_pipe_release"));

	/* the recording's table: the function after each padding hit */
	if (symbolizer__kernel_symbols(s, addrs, 3, &v, &nv, &stext, &why)) {
		TEST_FAIL("kernel padding: kept symbols", "%s", why.msg);
		symbolizer__free(s);
		return;
	}
	TEST_EQ("kernel padding: kept: each padding and its function, other once", nv, 4);
	for (i = 0; i < nv && i < 4; i++) {
		static const char *const want[] = {"__pfx_pipe_release", "pipe_release",
						   "__cfi_other", "other"};

		TEST_STREQ("kernel padding: kept in order", v[i].name, want[i]);
	}

	/* a report of that table alone (v's names are s's): the same frame */
	t = symbolizer__new(&(struct symbolize_opts){0});
	if (t && !symbolizer__set_kernel_symbols(t, v, nv, stext)) {
		symbolizer__lookup_kernel_caller(t, K(0x200), &r, &look);
		TEST_CHECK("kernel padding: from the recording's table alone, the function",
			   r.function && !strcmp(r.function, "pipe_release"));
	} else {
		TEST_FAIL("kernel padding: the table", "symbolizer__set_kernel_symbols failed");
	}
	symbolizer__free(t);
	symbolizer__free(s);
	free(v);
}

static int setup(void)
{
	strcpy(tmpdir, "/tmp/ebs-test-kallsyms.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		TEST_FAIL("kallsyms: mkdtemp", "%s", strerror(errno));
		return -1;
	}
	/* the child feeding a FIFO stops on EPIPE, not on SIGPIPE; so does a closed reader */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

TEST_MAIN(setup, cleanup, TEST_CASE(test_kallsyms), TEST_CASE(test_kallsyms_refused),
	  TEST_CASE(test_kallsyms_table), TEST_CASE(test_kernel_tables),
	  TEST_CASE(test_kernel_padding), TEST_CASE(test_jitmap), TEST_CASE(test_jitmap_refused))
