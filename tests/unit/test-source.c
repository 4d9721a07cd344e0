// SPDX-License-Identifier: MIT
/*
 * test-source.c - report/annotate/source.c, the source files ebs annotate shows, in
 * a directory made here: lines split and counted, control characters shown
 * as '?' (tab kept, CR as a space), --source-dir's OLD=NEW and DIR forms
 * and the order they are tried in, a file not there (no warning), a FIFO
 * and a directory refused at once with one warning each, never read
 * twice, and each source kept (found or not) as one pointer; a source
 * named by another user's binary shown only if owned by root or that
 * user, who may read it, as named and through --source-dir, and kept
 * apart from the same path named by our own binary; no source on /proc
 * or /sys, whoever's binary names it; whether everyone may read a source
 * (a page showing one that not everyone may read is kept private); a
 * path with control characters opened by its real name; a source found
 * nowhere read from where the fetch hook (debuginfod) put it, the hook
 * asked only then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/annotate/source.h"
#include "util/text.h"
#include "test.h"

static char dir[64];

struct warned {
	unsigned int n;
	char last[1024];
	enum ebs_code code; /* the last one's */
};

static void warn(void *ctx, enum ebs_code code, const char *msg)
{
	struct warned *w = ctx;

	w->n++;
	w->code = code;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Line n (from 1) of s's text, or NULL. */
static const char *line_of(struct source_cache *sc, const struct source *s, u32 n)
{
	const char *text = NULL;

	if (!s || source_cache__text(sc, s, n, &text))
		return NULL;
	return text;
}

/* Is line n of s's text want? */
static bool is_line(struct source_cache *sc, const struct source *s, u32 n, const char *want)
{
	const char *text = line_of(sc, s, n);

	return text && !strcmp(text, want);
}

/* The source at path through sc, or NULL (a failure said). */
static const struct source *get(struct source_cache *sc, const char *path)
{
	const struct source *s = NULL;
	int e = source_cache__get(sc, path, geteuid(), &s);

	if (e)
		TEST_FAIL("source: get", "%s: %d", path, e);
	return e ? NULL : s;
}

static void test_text(void)
{
	struct warned w = {0};
	struct source_cache *sc = source_cache__new(NULL, warn, &w);
	const struct source *s, *again;
	const char *text = NULL;
	char path[256];

	/* ESC [ 3 1 m, a raw C1 CSI (0x9b), a BEL, a CRLF line end, a tab */
	put("ctl.c", "int a;\n\x1b[31mred\x9b"
		     "2J\a\r\n\tb = 1;\nlast");
	snprintf(path, sizeof(path), "%s/ctl.c", dir);
	s = get(sc, path);
	if (!s)
		return;
	TEST_STREQ("source: read where named", s->read_from, path);
	TEST_EQ("source: 4 lines (the last without a newline)", s->nlines, 4);
	TEST_STREQ("source: line 1 as written", line_of(sc, s, 1), "int a;");
	TEST_STREQ("source: escape, C1 and BEL as '?', CR as a space", line_of(sc, s, 2),
		   "?[31mred?2J? ");
	TEST_STREQ("source: a tab kept", line_of(sc, s, 3), "\tb = 1;");
	again = get(sc, path);
	TEST_CHECK("source: asked again, the same one", again == s);
	TEST_CHECK("source: line 4 by file and line",
		   source_cache__line(sc, path, geteuid(), 4, &text) == 0 && text &&
			   !strcmp(text, "last"));
	TEST_CHECK("source: line 5 and line 0 are not there",
		   source_cache__line(sc, path, geteuid(), 5, &text) == 0 && !text &&
			   source_cache__line(sc, path, geteuid(), 0, &text) == 0 && !text);
	TEST_CHECK("source: no file, no line",
		   source_cache__line(sc, NULL, geteuid(), 1, &text) == 0 && !text);
	TEST_EQ("source: no warning for a file that is read", w.n, 0);
	TEST_CHECK("source: a line's text is the source's",
		   s->nlines > 1 && source_cache__of_text(sc, line_of(sc, s, 2)) == s &&
			   !source_cache__of_text(sc, "elsewhere"));
	TEST_CHECK("source: its directory 0700 (mkdtemp's): not everyone may read it", s->private);
	source_cache__free(sc);
	/* a file everyone may read: the page showing it need not be private */
	sc = source_cache__new(NULL, warn, &w);
	chmod(dir, 0755);
	chmod(path, 0644);
	s = get(sc, path);
	TEST_CHECK("source: a 0644 file in directories anyone may search: everyone may read it",
		   s && s->read_from && !s->private);
	source_cache__free(sc);
	sc = source_cache__new(NULL, warn, &w);
	chmod(path, 0600);
	s = get(sc, path);
	TEST_CHECK("source: a 0600 file: not everyone may read it",
		   s && s->read_from && s->private);
	source_cache__free(sc);
	chmod(path, 0644);
	chmod(dir, 0700);
}

static void test_refused(void)
{
	struct warned w = {0};
	struct source_cache *sc = source_cache__new(NULL, warn, &w);
	const struct source *s;
	char path[256];

	snprintf(path, sizeof(path), "%s/missing.c", dir);
	s = get(sc, path);
	TEST_CHECK("source: a file not there: no text, no warning",
		   s && !s->read_from && !s->nlines && w.n == 0);
	/* a FIFO with no writer: an open that blocked would hang here */
	snprintf(path, sizeof(path), "%s/fifo.c", dir);
	if (mkfifo(path, 0600)) {
		TEST_SKIP("source: a FIFO refused", "mkfifo %s: %s", path, strerror(errno));
	} else {
		s = get(sc, path);
		TEST_CHECK("source: a FIFO refused, not waited on: no text",
			   s && !s->read_from && !s->nlines);
		TEST_CHECK("source: a FIFO refused: one warning naming it",
			   w.n == 1 && strstr(w.last, path) && strstr(w.last, "not shown"));
		TEST_CHECK("source: a FIFO refused: the warning's code EBS_E_NOT_REGULAR",
			   w.code == EBS_E_NOT_REGULAR && !strncmp(w.last, "warning: ", 9));
		s = get(sc, path);
		TEST_EQ("source: a FIFO asked again: not tried again, not warned again", w.n, 1);
	}
	s = get(sc, dir);
	TEST_CHECK("source: a directory refused, with one warning", s && !s->read_from && w.n == 2);
	source_cache__free(sc);
	source_cache__free(NULL);
}

static void test_dirs(void)
{
	char old_eq_new[256], plain[256], want[256];
	const char *dirs[3] = {NULL};
	struct source_cache *sc;
	const struct source *s;

	if (mkdir(strcat(strcpy(want, dir), "/new"), 0700) ||
	    mkdir(strcat(strcpy(want, dir), "/new/sub"), 0700) ||
	    mkdir(strcat(strcpy(want, dir), "/flat"), 0700)) {
		TEST_FAIL("source: dirs", "mkdir under %s: %s", dir, strerror(errno));
		return;
	}
	put("new/sub/m.c", "mapped\n");
	put("flat/f.c", "flat\n");
	put("flat/m.c", "not this one\n");
	snprintf(old_eq_new, sizeof(old_eq_new), "/build/old=%s/new", dir);
	snprintf(plain, sizeof(plain), "%s/flat", dir);
	dirs[0] = old_eq_new;
	dirs[1] = plain;
	sc = source_cache__new(dirs, NULL, NULL);
	s = get(sc, "/build/old/sub/m.c");
	snprintf(want, sizeof(want), "%s/new/sub/m.c", dir);
	TEST_CHECK("source: OLD=NEW replaces the prefix, and comes first",
		   s && s->read_from && !strcmp(s->read_from, want) && s->nlines == 1 &&
			   is_line(sc, s, 1, "mapped"));
	s = get(sc, "/elsewhere/deep/f.c");
	snprintf(want, sizeof(want), "%s/flat/f.c", dir);
	TEST_CHECK("source: a plain DIR finds the file by its name",
		   s && s->read_from && !strcmp(s->read_from, want) && s->nlines == 1);
	TEST_STREQ("source: the path as DWARF names it is kept", s ? s->path : NULL,
		   "/elsewhere/deep/f.c");
	source_cache__free(sc);
}

/*
 * Sources on kernel file systems: what they hold depends on who reads
 * them (root sees kallsyms' addresses, its own memory map and command
 * line), whoever's binary names them.
 */
static void test_pseudo(void)
{
	static const char *const paths[] = {"/proc/kallsyms", "/proc/self/maps",
					    "/proc/self/cmdline", "/sys/devices/system/cpu/online"};
	struct warned w = {0};
	struct source_cache *sc = source_cache__new(NULL, warn, &w);
	const struct source *s;
	char name[128];
	size_t i;
	int owner;

	for (owner = 0; owner < 2; owner++) {
		for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			if (access(paths[i], R_OK))
				continue;
			snprintf(name, sizeof(name), "source: %s, named by %s binary: not shown",
				 paths[i], owner ? "another user's" : "our own");
			s = NULL;
			TEST_CHECK(name, source_cache__get(sc, paths[i], owner ? 65534 : geteuid(),
							   &s) == 0 &&
						 s && !s->read_from && !s->nlines && s->why &&
						 strstr(s->why,
							"whose contents depend on who reads them"));
		}
	}
	TEST_CHECK("source: /proc/kallsyms: why names /proc",
		   source_cache__get(sc, "/proc/kallsyms", geteuid(), &s) == 0 && s && s->why &&
			   !strcmp(s->why, "is on /proc, whose contents depend on who reads them"));
	TEST_CHECK("source: /proc/kallsyms: the warning names it",
		   w.n >= 1 && strstr(w.last, "whose contents depend on who reads them") &&
			   strstr(w.last, "its source lines are not shown"));
	TEST_CHECK("source: /proc/kallsyms: the warning's code EBS_E_PSEUDO",
		   w.code == EBS_E_PSEUDO);
	source_cache__free(sc);
}

/*
 * A path with control characters: DWARF's names come cleaned ('?'), the
 * file is opened by the real name the symbolizer kept (open_name).
 */
static char raw_path[256];

static const char *open_name(void *ctx, const char *path)
{
	const char *shown = ctx;

	if (!strcmp(path, shown))
		return raw_path;
	if (strstr(path, "ambiguous"))
		return NULL;
	return path;
}

static void test_raw_names(void)
{
	struct warned w = {0};
	struct source_cache *sc = source_cache__new(NULL, warn, &w);
	char shown[256], other[256];
	const struct source *s;

	put("ctl\x1b[31m\nname.c", "first\nsecond\n");
	snprintf(raw_path, sizeof(raw_path), "%s/ctl\x1b[31m\nname.c", dir);
	snprintf(shown, sizeof(shown), "%s/ctl?[31m?name.c", dir);
	source_cache__set_names(sc, open_name, shown);
	s = get(sc, shown);
	TEST_CHECK("source: a name with control characters: read by its real name",
		   s && s->read_from && s->nlines == 2 && is_line(sc, s, 2, "second"));
	TEST_STREQ("source: ... shown as listings show the path", s ? s->read_from : NULL, shown);
	TEST_STREQ("source: ... its path as DWARF's names come", s ? s->path : NULL, shown);
	snprintf(other, sizeof(other), "%s/ambiguous?.c", dir);
	s = get(sc, other);
	TEST_CHECK("source: a name that stands for two files: not read, said why",
		   s && !s->read_from && s->why && strstr(s->why, "control characters"));
	snprintf(other, sizeof(other), "%s/missing?.c", dir);
	s = get(sc, other);
	TEST_CHECK("source: a name of no file: not there, nothing said",
		   s && !s->read_from && !s->why && w.n == 0);
	source_cache__free(sc);
}

/* The fetch hook (the symbolizer's debuginfod): counts its calls, has "fetched.c". */
static unsigned int fetches;

static int fetch(void *ctx, const char *path, char *out, size_t len)
{
	(void)ctx;
	fetches++;
	if (!strstr(path, "gone.c"))
		return 0;
	snprintf(out, len, "%s/cache-copy.c", dir);
	return 1;
}

static void test_fetch(void)
{
	struct warned w = {0};
	struct source_cache *sc = source_cache__new(NULL, warn, &w);
	char path[256], copy[256];
	const struct source *s;

	put("cache-copy.c", "int fetched;\n");
	put("here.c", "int here;\n");
	source_cache__set_fetch(sc, fetch, NULL);
	snprintf(path, sizeof(path), "%s/here.c", dir);
	s = get(sc, path);
	TEST_CHECK("source: found here: the fetch hook not asked",
		   s && s->read_from && fetches == 0);
	snprintf(path, sizeof(path), "%s/sub/gone.c", dir);
	snprintf(copy, sizeof(copy), "%s/cache-copy.c", dir);
	s = get(sc, path);
	TEST_CHECK("source: found nowhere: read where the hook put it, said so",
		   s && s->read_from && !strcmp(s->read_from, copy) && s->nlines == 1 &&
			   is_line(sc, s, 1, "int fetched;") && fetches == 1);
	s = get(sc, path);
	TEST_CHECK("source: ... once", s && s->read_from && fetches == 1);
	snprintf(path, sizeof(path), "%s/nowhere.c", dir);
	s = get(sc, path);
	TEST_CHECK("source: the hook has none either: not there, nothing said",
		   s && !s->read_from && !s->why && fetches == 2 && w.n == 0);
	snprintf(path, sizeof(path), "%s", dir); /* a directory: refused here, not fetched */
	s = get(sc, path);
	TEST_CHECK("source: refused here: the hook not asked", s && s->why && fetches == 2);
	source_cache__free(sc);
}

/* As root: sources named by the DWARF of a file of uid 65534's. */
static void test_owner(void)
{
	const char *dirs[2] = {NULL};
	struct warned w = {0};
	struct source_cache *sc;
	const struct source *s = NULL;
	char path[256], mapped[256];

	if (geteuid() != 0) {
		TEST_SKIP("source: another user's binary", "not root: cannot make others' files");
		return;
	}
	chmod(dir, 0755); /* (mkdtemp's 0700 would keep nobody from every file in it) */
	put("secret.c", "secret\n");
	snprintf(path, sizeof(path), "%s/secret.c", dir);
	chmod(path, 0600);
	/* --source-dir leads a name of theirs to the secret: the same rule */
	snprintf(mapped, sizeof(mapped), "/theirs=%s", dir);
	dirs[0] = mapped;
	sc = source_cache__new(dirs, warn, &w);
	if (source_cache__get(sc, path, 65534, &s) || !s) {
		TEST_FAIL("source: another user's binary", "get %s failed", path);
		goto out;
	}
	TEST_CHECK("source: root's 0600 file, named by nobody's binary: not shown",
		   !s->read_from && !s->nlines);
	TEST_CHECK("source: ... and why, to follow \"it \"",
		   s->why && !strncmp(s->why, "may not be read by the binary's owner", 37));
	TEST_CHECK("source: ... said once, naming the file and why",
		   w.n == 1 && strstr(w.last, path) && strstr(w.last, "(uid 65534)") &&
			   strstr(w.last, "its source lines are not shown"));
	TEST_CHECK("source: the same path named by our own binary: shown",
		   source_cache__get(sc, path, geteuid(), &s) == 0 && s && s->read_from &&
			   s->nlines == 1 && !s->why);
	TEST_CHECK("source: through --source-dir OLD=NEW: not shown either",
		   source_cache__get(sc, "/theirs/secret.c", 65534, &s) == 0 && s &&
			   !s->read_from && s->why);
	put("theirs.c", "theirs\n");
	snprintf(path, sizeof(path), "%s/theirs.c", dir);
	if (chown(path, 65534, 65534) || chmod(path, 0600)) {
		TEST_FAIL("source: their own file", "chown %s: %s", path, strerror(errno));
		goto out;
	}
	TEST_CHECK("source: their own 0600 file, named by their binary: shown",
		   source_cache__get(sc, path, 65534, &s) == 0 && s && s->read_from &&
			   s->nlines == 1 && is_line(sc, s, 1, "theirs"));
	TEST_CHECK("source: root's public file, named by their binary: shown",
		   chmod(path, 0644) == 0 && chown(path, 0, 0) == 0 &&
			   source_cache__get(sc, path, 1234, &s) == 0 && s && s->read_from);
out:
	source_cache__free(sc);
}

/* Write n bytes of text to dir/name. */
static void put_mem(const char *name, const char *text, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		if (n)
			fwrite(text, 1, n, f);
		fclose(f);
	}
}

/*
 * Does sc show text (n bytes, as written to dir/name) as a whole read of
 * it, split at its newlines up to its first NUL, cleaned, would?
 */
static bool same_as_split(struct source_cache *sc, const char *name, const char *text, size_t n)
{
	char path[256], *copy = malloc(n + 1), *line, *nl;
	const struct source *s;
	u32 k = 0;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!copy || source_cache__get(sc, path, geteuid(), &s) || !s->read_from) {
		free(copy);
		return false;
	}
	memcpy(copy, text, n);
	copy[n] = '\0';
	ebs_clean_text(copy, true);
	for (ok = true, line = copy; ok && line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		ok = is_line(sc, s, ++k, line) && source_cache__of_text(sc, line_of(sc, s, k)) == s;
	}
	ok = ok && s->nlines == k && !line_of(sc, s, k + 1);
	if (!ok)
		printf("# %s: %u lines, %u read\n", name, s->nlines, k);
	free(copy);
	return ok;
}

/*
 * Files of many lines, read by blocks of lines as they are asked for: each
 * line as a split of the whole file gives it, at the ends of blocks, with
 * a NUL byte ending the text, empty lines, no newline at the end; and
 * past the files kept open, files read whole; a file cut short after it
 * was counted shows fewer lines, no crash.
 */
static void test_blocks(void)
{
	struct warned w = {0};
	struct source_cache *sc = source_cache__new(NULL, warn, &w);
	size_t cap = 1 << 20, n = 0, i;
	char *t = malloc(cap), name[64], path[256];
	const struct source *s;
	const char *text;
	bool ok = true;

	if (!sc || !t) {
		TEST_FAIL("source: blocks", "out of memory");
		goto out;
	}
	for (i = 0; i < 1000; i++) /* lines of 0 to 60 bytes, one with ESC, one with CR */
		n += (size_t)snprintf(t + n, cap - n, "%.*s%s\n", (int)(i * 7 % 61),
				      "int x = y + z; /* a comment ... */ return f(a, b, c, d, e);",
				      i == 300 ? "\x1b[2J\r" : "");
	put_mem("big.c", t, n);
	TEST_CHECK("source: 1,000 lines by blocks as split whole",
		   same_as_split(sc, "big.c", t, n));
	put_mem("big-nonl.c", t, n - 1);
	TEST_CHECK("source: ... no newline at the end", same_as_split(sc, "big-nonl.c", t, n - 1));
	memset(t, '\n', 1024);
	put_mem("empty-lines.c", t, 1024);
	TEST_CHECK("source: 1,024 empty lines", same_as_split(sc, "empty-lines.c", t, 1024));
	for (n = 0, i = 0; i < 256; i++)
		n += (size_t)snprintf(t + n, cap - n, "line %zu\n", i + 1);
	put_mem("256.c", t, n);
	TEST_CHECK("source: 256 lines, ending where a block does",
		   same_as_split(sc, "256.c", t, n));
	put_mem("256-nonl.c", t, n - 1);
	TEST_CHECK("source: ... without the last newline",
		   same_as_split(sc, "256-nonl.c", t, n - 1));
	t[n / 2] = '\0';
	put_mem("nul.c", t, n);
	TEST_CHECK("source: a NUL byte ends the text", same_as_split(sc, "nul.c", t, n));
	put_mem("nothing.c", t, 0);
	TEST_CHECK("source: an empty file, no line", same_as_split(sc, "nothing.c", t, 0));
	/* past the files kept open: each read whole at once */
	t[n / 2] = 'x';
	for (i = 0; i < 80; i++) {
		snprintf(name, sizeof(name), "many-%zu.c", i);
		put_mem(name, t, n);
		ok = ok && same_as_split(sc, name, t, n);
	}
	TEST_CHECK("source: 80 files of 256 lines each as split whole", ok);
	TEST_EQ("source: no warning for files read", w.n, 0);
	source_cache__free(sc);
	/* cut short after it was counted */
	sc = source_cache__new(NULL, warn, &w);
	put_mem("cut.c", t, n);
	snprintf(path, sizeof(path), "%s/cut.c", dir);
	if (!sc || source_cache__get(sc, path, geteuid(), &s) || !s->read_from) {
		TEST_FAIL("source: cut short", "not read");
		goto out;
	}
	TEST_CHECK("source: cut short after it was counted: line 200 not there, line 1 is",
		   truncate(path, 10) == 0 && s->nlines == 256 &&
			   source_cache__text(sc, s, 200, &text) == 0 && !text &&
			   is_line(sc, s, 1, "line 1"));
out:
	source_cache__free(sc);
	free(t);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test-source.XXXXXX");
	if (!mkdtemp(dir)) {
		TEST_FAIL("source: setup", "mkdtemp: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		TEST_FAIL("source: cleanup", "%s failed", cmd);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_text), TEST_CASE(test_refused), TEST_CASE(test_dirs),
	  TEST_CASE(test_pseudo), TEST_CASE(test_raw_names), TEST_CASE(test_owner),
	  TEST_CASE(test_fetch), TEST_CASE(test_blocks))
