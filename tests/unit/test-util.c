// SPDX-License-Identifier: MIT
/*
 * test-util.c - util/: the hex parser, the growing array, the binary
 * search, bounded copies, the text cleaner and its printers (text.h),
 * the interned string set,
 * bounded file reads, temporary files renamed into place, error buffers,
 * and util/hash.h's word hash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/util.h"
#include "test.h"

static void test_hex(void)
{
	u64 v = 99;

	TEST_EQ("hex: digits read", ebs_parse_hex("ffffffff81000000 T", 18, &v), 16);
	TEST_CHECK("hex: value", v == 0xffffffff81000000ull);
	TEST_EQ("hex: mixed case", ebs_parse_hex("aBcD", 4, &v), 4);
	TEST_CHECK("hex: mixed case value", v == 0xabcd);
	TEST_EQ("hex: stops at a non-digit", ebs_parse_hex("12g4", 4, &v), 2);
	TEST_CHECK("hex: value before the stop", v == 0x12);
	TEST_EQ("hex: len bounds the scan", ebs_parse_hex("1234", 2, &v), 2);
	TEST_CHECK("hex: value within len", v == 0x12);
	TEST_EQ("hex: none", ebs_parse_hex("xyz", 3, &v), 0);
	TEST_EQ("hex: empty", ebs_parse_hex("", 0, &v), 0);
	TEST_EQ("hex: no 0x prefix", ebs_parse_hex("0x10", 4, &v), 1);
	TEST_EQ("hex: 17 digits do not fit", ebs_parse_hex("10000000000000000", 17, &v), 0);
	TEST_EQ("hex: 16 digits and a blank", ebs_parse_hex("0000000000000001 ", 17, &v), 16);
	TEST_CHECK("hex: leading zeros", v == 1);
}

static void test_grow(void)
{
	size_t cap = 0, n, caps_ok = 1;
	int *v = NULL, e = 0;

	for (n = 0; n < 1000 && !e; n++) {
		e = ebs_grow((void **)&v, &cap, n, sizeof(*v), 4);
		if (!e) {
			v[n] = (int)n;
			if (cap < n + 1 || (cap & (cap - 1)))
				caps_ok = 0; /* 4, 8, 16...: powers of two from min */
		}
	}
	TEST_EQ("grow: 1000 pushes", e, 0);
	TEST_CHECK("grow: capacity doubles from min", caps_ok && cap == 1024);
	TEST_CHECK("grow: contents kept", v[0] == 0 && v[999] == 999);
	TEST_EQ("grow: room left, no change", ebs_grow((void **)&v, &cap, 1000, sizeof(*v), 4), 0);
	TEST_EQ("grow: capacity unchanged", cap, 1024);
	free(v);

	/* a size that overflows: -ENOMEM, nothing changed */
	{
		char *p = NULL;
		size_t c = SIZE_MAX / 2 + 1;

		TEST_EQ("grow: overflow refused", ebs_grow((void **)&p, &c, c, 2, 4), -ENOMEM);
		TEST_CHECK("grow: overflow leaves the array", p == NULL && c == SIZE_MAX / 2 + 1);
	}
}

struct keyed {
	u32 pad;
	u64 addr;
};

static void test_upper_bound(void)
{
	struct keyed k[] = {{0, 10}, {0, 20}, {0, 20}, {0, 30}};
	size_t off = offsetof(struct keyed, addr);

	TEST_EQ("upper_bound: before all", ebs_upper_bound(k, 4, sizeof(*k), off, 5), 0);
	TEST_EQ("upper_bound: at the first", ebs_upper_bound(k, 4, sizeof(*k), off, 10), 1);
	TEST_EQ("upper_bound: past equal keys", ebs_upper_bound(k, 4, sizeof(*k), off, 20), 3);
	TEST_EQ("upper_bound: between", ebs_upper_bound(k, 4, sizeof(*k), off, 25), 3);
	TEST_EQ("upper_bound: after all", ebs_upper_bound(k, 4, sizeof(*k), off, 99), 4);
	TEST_EQ("upper_bound: empty", ebs_upper_bound(k, 0, sizeof(*k), off, 99), 0);
}

/* An ebs_warn_fn: the code's name and the line, into ctx (a 256-byte buffer). */
static void keep_line(void *ctx, enum ebs_code code, const char *line)
{
	snprintf(ctx, 256, "%s %s", ebs_error_code_name(code), line);
}

/* util/error.h's table: names, errnos, the code each setter gives. */
static void test_error_codes(void)
{
	struct ebs_error err = {0};
	char line[256] = "";

	TEST_STREQ("codes: a code's name", ebs_error_code_name(EBS_E_NOT_ELF), "EBS_E_NOT_ELF");
	TEST_STREQ("codes: the first is EBS_E_OK (0, a zeroed error)", ebs_error_code_name(0),
		   "EBS_E_OK");
	TEST_STREQ("codes: a number past the table", ebs_error_code_name(EBS_E_NR), "EBS_E_?");
	TEST_STREQ("codes: a code's text", ebs_error_code_text(EBS_E_NO_SYMBOLS), "no symbols");
	TEST_EQ("codes: a code's errno", ebs_error_code_errno(EBS_E_NOT_EBS_DATA), EBADMSG);
	TEST_EQ("fail: returns the row's -errno",
		ebs_error__fail(&err, EBS_E_NO_BUILD_ID_MATCH, "%s: other", "f"), -ESTALE);
	TEST_CHECK("fail: code, err and message", err.code == EBS_E_NO_BUILD_ID_MATCH &&
							  err.err == -ESTALE &&
							  !strcmp(err.msg, "f: other"));
	TEST_EQ("fail: NULL error", ebs_error__fail(NULL, EBS_E_NOMEM, "x"), -ENOMEM);
	ebs_error__set(&err, ENOMEM, "no memory");
	TEST_CHECK("set: an errno one row has gets that row (ENOMEM: EBS_E_NOMEM)",
		   err.code == EBS_E_NOMEM);
	ebs_error__set(&err, EBS_EUNTRUSTED, "theirs");
	TEST_CHECK("set: EBS_EUNTRUSTED is EBS_E_UNTRUSTED", err.code == EBS_E_UNTRUSTED);
	ebs_error__set(&err, EINVAL, "bad");
	TEST_CHECK("set: an errno of several rows (EINVAL) is EBS_E_ERRNO",
		   err.code == EBS_E_ERRNO && err.err == -EINVAL);
	ebs_error__set(&err, ENOENT, "gone");
	TEST_CHECK("set: ENOENT, of several rows too, is EBS_E_ERRNO", err.code == EBS_E_ERRNO);
	ebs_error__output(&err, ENOSPC, "f", "cannot write");
	TEST_CHECK("output: EBS_E_OUTPUT", err.code == EBS_E_OUTPUT && err.err == -ENOSPC);
	ebs_error__clear(&err);
	TEST_CHECK("clear: nothing failed", err.code == EBS_E_OK && !err.err && !err.msg[0]);
	ebs_error__clear(NULL);
	TEST_OK("clear: NULL");
	/* destructors accept NULL (util.h says so); these two did not */
	ebs_strset__free(NULL);
	TEST_OK("strset: free(NULL)");
	ebs_outfile__abort(NULL);
	TEST_OK("outfile: abort(NULL)");
	ebs_warn(keep_line, line, EBS_E_OK, "notice %d", 1);
	TEST_STREQ("warn: the line and its code to the callback", line, "EBS_E_OK notice 1");
	ebs_warn(NULL, line, EBS_E_NOMEM, "nobody listens"); /* must not crash */
	TEST_STREQ("warn: none: nothing", line, "EBS_E_OK notice 1");
}

static void test_strings(void)
{
	char buf[8], s[64];
	struct ebs_strset *set = NULL;
	const char *a, *b, *c;
	struct ebs_error err = {0};

	TEST_EQ("strlcpy: returns the source length", ebs_strlcpy(buf, "abcdefghij", sizeof(buf)),
		10);
	TEST_STREQ("strlcpy: truncated and terminated", buf, "abcdefg");
	TEST_EQ("strlcpy: size 0 writes nothing", ebs_strlcpy(buf, "xy", 0), 2);
	TEST_STREQ("strlcpy: size 0 left buf", buf, "abcdefg");

	strcpy(s, "a\x1b[31mb\nc\x7f"
		  "d\x9b"
		  "e\xc2\x85"
		  "f\xc3\xa9");
	ebs_clean_text(s, false);
	TEST_STREQ("clean: C0, DEL, raw C1, UTF-8 C1; e-acute kept", s, "a?[31mb?c?d?e??f\xc3\xa9");
	strcpy(s, "\tx = 1;\r\n");
	ebs_clean_text(s, true);
	TEST_STREQ("clean: source keeps tab and newline, CR a space", s, "\tx = 1; \n");
	TEST_CHECK("clean: is_clean of clean text", ebs_text_is_clean("main \xc3\xa9t\xc3\xa9"));
	TEST_CHECK("clean: is_clean sees ESC", !ebs_text_is_clean("a\x1b"
								  "b"));
	TEST_CHECK("clean: is_clean sees UTF-8 C1", !ebs_text_is_clean("a\xc2\x9b"
								       "b"));

	strcpy(s, "name");
	a = ebs_strset__intern(&set, s);
	strcpy(s, "other");
	b = ebs_strset__intern(&set, s);
	strcpy(s, "name");
	c = ebs_strset__intern(&set, s);
	TEST_CHECK("strset: equal strings, one pointer", a && a == c && a != s);
	TEST_CHECK("strset: different strings differ", b && b != a && !strcmp(b, "other"));
	TEST_CHECK("strset: find gives the set's copy, NULL for what it lacks",
		   ebs_strset__find(set, "other") == b && !ebs_strset__find(set, "none") &&
			   !ebs_strset__find(NULL, "other"));
	ebs_strset__free(&set);
	TEST_CHECK("strset: freed set is empty", set == NULL);

	TEST_EQ("error: returns -errno", ebs_error__set(&err, ENOENT, "%s: gone", "f"), -ENOENT);
	TEST_CHECK("error: message and err", err.err == -ENOENT && !strcmp(err.msg, "f: gone"));
	TEST_EQ("error: NULL buffer", ebs_error__set(NULL, EIO, "x"), -EIO);
	TEST_CHECK("error: not an output's", !err.output);
	TEST_EQ("error: an output's returns -errno",
		ebs_error__output(&err, ENOSPC, "/dev/full", "write failed"), -ENOSPC);
	TEST_CHECK("error: an output's sets output", err.output && err.err == -ENOSPC);
	TEST_STREQ("error: an output's names the file and the reason", err.msg,
		   "/dev/full: write failed: No space left on device");
	ebs_error__output(&err, EACCES, "-", "cannot write");
	TEST_STREQ("error: an output's '-' is standard output", err.msg,
		   "standard output: cannot write: Permission denied");
	ebs_error__set(&err, EINVAL, "bad");
	TEST_CHECK("error: set after an output's clears output", !err.output);
	TEST_EQ("error: an output's, NULL buffer", ebs_error__output(NULL, EIO, "x", "y"), -EIO);
	test_error_codes();

	TEST_STREQ("output name: - is standard output", ebs_output_name("-"), "standard output");
	TEST_STREQ("output name: a file is itself", ebs_output_name("-x"), "-x");
}

/* Does dir hold a name starting with ".data.tmp."? */
/* Write s into a new file at path. */
static bool put_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	return f && fputs(s, f) >= 0 && fclose(f) == 0;
}

static bool tmp_left(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q '^\\.data\\.tmp\\.'", dir);
	return system(cmd) == 0;
}

/* ebs_out: written whole or not at all; "-" is the caller's stream. */
static void test_out(const char *dir, const char *path)
{
	struct ebs_error err = {0};
	struct ebs_out o;
	char *buf = NULL;

	unlink(path);
	TEST_EQ("out: open a new file", ebs_out_open(&o, path, stdout, &err), 0);
	TEST_CHECK("out: written aside, nothing under the name yet",
		   o.f != stdout && o.file.tmp[0] && access(path, F_OK) < 0);
	fputs("whole", o.f);
	TEST_EQ("out: close ok", ebs_out_close(&o, true, &err), 0);
	TEST_CHECK("out: the file under its name, whole",
		   ebs_read_file_max(path, 100, &buf) == 5 && buf && !strcmp(buf, "whole"));
	free(buf);
	buf = NULL;
	TEST_CHECK("out: no temp file left", !tmp_left(dir));
	TEST_EQ("out: open over it", ebs_out_open(&o, path, stdout, &err), 0);
	fputs("half", o.f);
	TEST_EQ("out: close not ok", ebs_out_close(&o, false, &err), 0);
	TEST_CHECK("out: the old file kept",
		   ebs_read_file_max(path, 100, &buf) == 5 && buf && !strcmp(buf, "whole"));
	free(buf);
	TEST_CHECK("out: no temp file left after a failure", !tmp_left(dir));
	TEST_EQ("out: '-' is the caller's stream", ebs_out_open(&o, "-", stderr, &err), 0);
	TEST_CHECK("out: '-': stderr, no path", o.f == stderr && !o.path);
	TEST_EQ("out: closing it flushes only", ebs_out_close(&o, true, &err), 0);
	TEST_EQ("out: a missing directory", ebs_out_open(&o, "/nonexistent-ebs/x", stdout, &err),
		-ENOENT);
	TEST_STREQ("out: a missing directory: its line", err.msg,
		   "/nonexistent-ebs/x: cannot write: No such file or directory");
	TEST_CHECK("out: a missing directory: an output's failure", err.output);
	TEST_EQ("out: /dev/full in place", ebs_out_open(&o, "/dev/full", stdout, &err), 0);
	TEST_CHECK("out: /dev/full: not aside", o.file.tmp[0] == '\0' && o.file.in_place);
	fputs("x", o.f);
	TEST_EQ("out: /dev/full: the write's error at close", ebs_out_close(&o, true, &err),
		-ENOSPC);
	TEST_STREQ("out: /dev/full: its line", err.msg,
		   "/dev/full: write failed: No space left on device");
}

/* Write s into the outfile's descriptor and commit: 0 or -errno. */
static int put(struct ebs_outfile *o, const char *s, struct ebs_error *err)
{
	if (write(o->fd, s, strlen(s)) != (ssize_t)strlen(s))
		return -errno;
	return ebs_outfile__commit(o, err);
}

/* The file at path holds exactly s. */
static bool holds(const char *path, const char *s)
{
	char *buf = NULL;
	bool ok = ebs_read_file_max(path, 100, &buf) == (ssize_t)strlen(s) && !strcmp(buf, s);

	free(buf);
	return ok;
}

/*
 * ebs_outfile: what another user put at an output's name in a directory
 * others can write is refused without being opened; a recording keeps the
 * file it replaces as .old, and one that lost the name to another saved
 * meanwhile goes to NAME.1, nothing lost.
 */
static void test_outfile(const char *dir)
{
	char shared[512], path[600], other[600], name[700];
	struct ebs_error err = {0};
	struct ebs_outfile a, b;
	struct stat st;
	mode_t old;
	int fd;

	snprintf(path, sizeof(path), "%s/rec", dir);
	old = umask(027);
	TEST_EQ("outfile: a recording, new",
		ebs_outfile__open(&a, path, 0600, EBS_OUT_KEEP_OLD, &err), 0);
	umask(old);
	TEST_CHECK("outfile: written aside as .BASE.tmp.XXXXXX, close-on-exec, mode 0600",
		   !strncmp(a.tmp, ".rec.tmp.", 9) && strlen(a.tmp) == 15 && !a.in_place &&
			   (fcntl(a.fd, F_GETFD) & FD_CLOEXEC) && fstat(a.fd, &st) == 0 &&
			   (st.st_mode & 0777) == 0600);
	TEST_EQ("outfile: commit", put(&a, "one", &err), 0);
	TEST_CHECK("outfile: the name holds it", holds(path, "one"));
	old = umask(027);
	TEST_EQ("outfile: a shown file", ebs_outfile__open(&a, path, 0644, 0, &err), 0);
	umask(old);
	TEST_CHECK("outfile: 0644 less the umask",
		   fstat(a.fd, &st) == 0 && (st.st_mode & 0777) == 0640);
	snprintf(name, sizeof(name), "%s/%s", dir, a.tmp);
	ebs_outfile__abort(&a);
	TEST_CHECK("outfile: abort leaves the name, removes the temporary file",
		   holds(path, "one") && access(name, F_OK) < 0);

	/* EBS_OUT_LOCK: locked before the name appears, so no scan takes it for a leftover */
	TEST_EQ("outfile: a locked temporary file",
		ebs_outfile__open(&a, path, 0600, EBS_OUT_KEEP_OLD | EBS_OUT_LOCK, &err), 0);
	snprintf(name, sizeof(name), "%s/%s", dir, a.tmp);
	fd = open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	TEST_CHECK("outfile: ... named .BASE.tmp.XXXXXX, and another's flock finds it locked",
		   !strncmp(a.tmp, ".rec.tmp.", 9) && fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 &&
			   errno == EWOULDBLOCK);
	if (fd >= 0)
		close(fd);
	TEST_EQ("outfile: ... commits", put(&a, "one", &err), 0);
	TEST_CHECK("outfile: ... under the name", holds(path, "one"));

	/* two recordings into one name at once */
	TEST_EQ("outfile: recording A", ebs_outfile__open(&a, path, 0600, EBS_OUT_KEEP_OLD, &err),
		0);
	TEST_EQ("outfile: recording B", ebs_outfile__open(&b, path, 0600, EBS_OUT_KEEP_OLD, &err),
		0);
	TEST_EQ("outfile: A commits first", put(&a, "two", &err), 0);
	snprintf(name, sizeof(name), "%s.old", path);
	TEST_CHECK("outfile: A under the name, the old one as .old",
		   holds(path, "two") && holds(name, "one"));
	TEST_EQ("outfile: B finds the name taken meanwhile", put(&b, "three", &err), -EEXIST);
	snprintf(name, sizeof(name), "%s.1", path);
	TEST_CHECK("outfile: B kept as NAME.1, A untouched",
		   holds(name, "three") && holds(path, "two"));
	TEST_CHECK("outfile: B's line names both, an output's failure",
		   strstr(err.msg, "another recording was saved under this name") &&
			   strstr(err.msg, name) && err.output);
	unlink(name);
	snprintf(name, sizeof(name), "%s.old", path);
	unlink(name);
	unlink(path);

	/* a FIFO and /dev/stdout (a link to a link, in root's /dev): in place */
	snprintf(name, sizeof(name), "%s/fifo2", dir);
	mkfifo(name, 0600);
	fd = open(name, O_RDONLY | O_NONBLOCK);
	TEST_EQ("outfile: a FIFO of ours", ebs_outfile__open(&a, name, 0644, 0, &err), 0);
	TEST_CHECK("outfile: a FIFO is written in place", a.in_place && !a.tmp[0]);
	TEST_EQ("outfile: into the FIFO", put(&a, "fifo", &err), 0);
	TEST_CHECK("outfile: the FIFO is still one", stat(name, &st) == 0 && S_ISFIFO(st.st_mode));
	if (fd >= 0)
		close(fd);
	unlink(name);
	TEST_EQ("outfile: /dev/stdout", ebs_outfile__open(&a, "/dev/stdout", 0644, 0, &err), 0);
	TEST_CHECK("outfile: /dev/stdout in place", a.in_place);
	ebs_outfile__abort(&a);
	TEST_EQ("outfile: a directory", ebs_outfile__open(&a, dir, 0644, 0, &err), -EISDIR);
	TEST_EQ("outfile: a name ending in /", ebs_outfile__open(&a, "/tmp/", 0644, 0, &err),
		-EISDIR);

	/* a directory others can write, with another user's things in it (as root) */
	if (geteuid() != 0) {
		TEST_SKIP("outfile: another user's names", "needs root to give files to uid 65534");
		return;
	}
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	mkdir(shared, 0777);
	chmod(shared, 01777);
	snprintf(path, sizeof(path), "%s/link", shared);
	snprintf(other, sizeof(other), "%s/victim", dir);
	TEST_CHECK("outfile: setup: a victim file", put_file(other, "victim"));
	TEST_CHECK("outfile: setup: another user's link",
		   symlink(other, path) == 0 && lchown(path, 65534, 65534) == 0);
	TEST_EQ("outfile: a link in a shared directory is refused",
		ebs_outfile__open(&a, path, 0644, 0, &err), -EPERM);
	TEST_CHECK("outfile: its line names the link and its owner",
		   strstr(err.msg, path) && strstr(err.msg, "a symbolic link owned by") &&
			   strstr(err.msg, "uid 65534") && err.output);
	TEST_CHECK("outfile: the link's target untouched", holds(other, "victim"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo", shared);
	TEST_CHECK("outfile: setup: another user's FIFO",
		   mkfifo(path, 0622) == 0 && chown(path, 65534, 65534) == 0);
	TEST_EQ("outfile: another user's FIFO is refused",
		ebs_outfile__open(&a, path, 0600, EBS_OUT_KEEP_OLD, &err), -EPERM);
	TEST_CHECK("outfile: its line says a FIFO",
		   strstr(err.msg, "not written: a FIFO owned by"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/file", shared);
	TEST_CHECK("outfile: setup: another user's file",
		   put_file(path, "theirs") && chown(path, 65534, 65534) == 0);
	TEST_EQ("outfile: another user's file is not replaced",
		ebs_outfile__open(&a, path, 0644, 0, &err), -EPERM);
	TEST_CHECK("outfile: ... and kept", holds(path, "theirs"));
	TEST_CHECK("outfile: setup: the file made ours", chown(path, geteuid(), getegid()) == 0);
	TEST_EQ("outfile: our own file there is", ebs_outfile__open(&a, path, 0644, 0, &err), 0);
	TEST_EQ("outfile: ... replaced", put(&a, "ours", &err), 0);
	TEST_CHECK("outfile: ... whole", holds(path, "ours"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/new", shared);
	TEST_EQ("outfile: a new name in a shared directory",
		ebs_outfile__open(&a, path, 0644, 0, &err), 0);
	/* a link planted after the open: the rename replaces it, never follows it */
	TEST_CHECK("outfile: setup: a link planted meanwhile",
		   symlink(other, path) == 0 && lchown(path, 65534, 65534) == 0);
	TEST_EQ("outfile: ... committed over it", put(&a, "new", &err), 0);
	TEST_CHECK("outfile: ... the name is our file, the link's target untouched",
		   lstat(path, &st) == 0 && S_ISREG(st.st_mode) && holds(other, "victim"));
	unlink(path);
	unlink(other);
	rmdir(shared);
}

static void test_files(void)
{
	char dir[] = "/tmp/ebs-test-util.XXXXXX", path[512], fifo[512], tmp[512], *buf = NULL;
	char prefix[512];
	ssize_t n;
	FILE *f;

	if (!mkdtemp(dir)) {
		TEST_FAIL("files: mkdtemp", "%s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/data", dir);
	f = fopen(path, "w");
	fputs("0123456789", f);
	fclose(f);
	n = ebs_read_file_max(path, 10, &buf);
	TEST_EQ("read: a file of max bytes", n, 10);
	TEST_CHECK("read: NUL-terminated", buf && !strcmp(buf, "0123456789"));
	free(buf);
	buf = NULL;
	TEST_EQ("read: a byte over max", ebs_read_file_max(path, 9, &buf), -EFBIG);
	TEST_EQ("read: a directory", ebs_read_file_max(dir, 100, &buf), -EISDIR);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	mkfifo(fifo, 0600);
	/* a FIFO without a writer: refused at once, not waited on */
	TEST_EQ("read: a FIFO is not a regular file", ebs_read_file_max(fifo, 100, &buf),
		-EBS_ENOTREG);
	TEST_STREQ("read: its reason", ebs_read_strerror(-EBS_ENOTREG), "not a regular file");
	TEST_EQ("tmp: prefix", ebs_tmp_prefix(path, prefix, sizeof(prefix)), 0);
	snprintf(tmp, sizeof(tmp), "%s/.data.tmp.", dir);
	TEST_STREQ("tmp: prefix is DIR/.BASE.tmp.", prefix, tmp);
	TEST_EQ("tmp: prefix too long", ebs_tmp_prefix(path, tmp, 8), -ENAMETOOLONG);
	test_out(dir, path);
	test_outfile(dir);
	unlink(path);
	unlink(fifo);
	rmdir(dir);
}

/*
 * ebs_hash_words on keys like report's (pointers 16 bytes apart, small
 * integers, one word differing): uthash picks a bucket by the low bits,
 * so 2^16 keys in 2^14 buckets must fill them as random values would
 * (within 10% of 1 - e^-4 of them used, no bucket past 20); the same key,
 * the same hash.
 */
/* What f (a memory stream) holds after fn wrote to it. */
static const char *stream_text(char *buf, size_t len, FILE *f)
{
	fflush(f);
	buf[len - 1] = '\0';
	return buf;
}

/*
 * util/text.h, the one rule for text ebs did not write: what a control
 * character is, and each way of printing by it.  The hostile strings hold
 * ESC, BEL, CSI as a raw byte (0x9b) and as UTF-8 (c2 9b), DEL, a newline.
 */
/*
 * A line longer than clean_stream's chunk, with a three-byte character
 * (U+20AC, e2 82 ac: its last two bytes alone would read as C1) across
 * the chunk's end: it comes out whole.
 */
static void test_clean_stream_long(void)
{
	static char line[3000], out[4096];
	FILE *f = fmemopen(out, sizeof(out), "w"), *g = f ? ebs_clean_stream(f) : NULL;

	memset(line, 'a', 2000);
	memcpy(line + 1022, "\xe2\x82\xac", 3);
	line[2000] = '\0';
	if (!g) {
		TEST_FAIL("clean_stream: long", "could not make one: %s", strerror(errno));
		if (f)
			fclose(f);
		return;
	}
	fputs(line, g);
	fclose(g);
	fflush(f);
	TEST_CHECK("clean_stream: a character across its chunk's end comes out whole",
		   !memcmp(out, line, 2000));
	fclose(f);
}

static void test_text(void)
{
	static const char hostile[] = "f\x1b]0;pwn\x07\x9b\xc2\x9b\x7f\nY";
	char buf[256], mem[256], line[16];
	struct ebs_strset *set = NULL;
	struct ebs_error err = {0};
	const char *a, *b;
	FILE *f, *g;
	int i;

	TEST_EQ("control_len: ESC", ebs_control_len("\x1b[", 2), 1);
	TEST_EQ("control_len: DEL", ebs_control_len("\x7f", 1), 1);
	TEST_EQ("control_len: a raw C1 byte", ebs_control_len("\x9b", 1), 1);
	TEST_EQ("control_len: U+009B in UTF-8 is two bytes", ebs_control_len("\xc2\x9b", 2), 2);
	TEST_EQ("control_len: U+00A0 is not one", ebs_control_len("\xc2\xa0", 2), 0);
	TEST_EQ("control_len: e-acute is not one", ebs_control_len("\xc3\xa9", 2), 0);
	TEST_EQ("control_len: a euro sign's 0x82 is inside UTF-8, not C1",
		ebs_control_len("\xe2\x82\xac", 3), 0);
	TEST_EQ("control_len: c2 cut off by n is no UTF-8 C1", ebs_control_len("\xc2\x9b", 1), 0);
	TEST_EQ("control_len: n 0", ebs_control_len("\x1b", 0), 0);
	TEST_EQ("control_len: printable ASCII", ebs_control_len("a", 1), 0);
	TEST_EQ("utf8_len: ASCII 1, e-acute 2, euro 3, bad lead 0, cut 0",
		ebs_utf8_len("a", 1) * 10000 + ebs_utf8_len("\xc3\xa9", 2) * 1000 +
			ebs_utf8_len("\xe2\x82\xac", 3) * 100 + ebs_utf8_len("\xff", 1) * 10 +
			ebs_utf8_len("\xe2\x82\xac", 2),
		12300);

	memcpy(mem, "a\x1b\tb\nc\rd\xc2", 9); /* no NUL: a stream's bytes */
	ebs_clean_mem(mem, 9, true);
	TEST_CHECK("clean_mem: source keeps tab and newline, CR a space, a cut-off c2 stays",
		   !memcmp(mem, "a?\tb\nc d\xc2", 9));
	memcpy(mem, "\x9b\xc2\x9bz", 4);
	ebs_clean_mem(mem, 3, false);
	TEST_CHECK("clean_mem: stops at n", !memcmp(mem, "???z", 4));

	f = fmemopen(buf, sizeof(buf), "w");
	if (f) {
		ebs_fputs_clean(hostile, f);
		TEST_STREQ("fputs_clean: each control character's bytes as '?'",
			   stream_text(buf, sizeof(buf), f), "f?]0;pwn??????Y");
		fclose(f);
	}
	strcpy(mem, hostile);
	TEST_STREQ("fputs_clean: s unchanged", mem, hostile);
	TEST_STREQ("clean_text: as fputs_clean", ebs_clean_text(mem, false), "f?]0;pwn??????Y");

	i = ebs_format_line(buf, sizeof(buf), "%s: %d", hostile, 7);
	TEST_CHECK("format_line: one line, vsnprintf's count",
		   i == (int)strlen(hostile) + 3 && !strcmp(buf, "f?]0;pwn??????Y: 7"));
	i = ebs_format_line(line, sizeof(line), "%s",
			    "abc\x1b\x1b\x1b\x1b"
			    "defghijklmnop");
	TEST_CHECK("format_line: cut to the buffer, cleaned",
		   i == 20 && !strcmp(line, "abc????defghijk"));
	ebs_error__set(&err, EINVAL, "%s: not an event", hostile);
	TEST_STREQ("error: a name in the message keeps it one line", err.msg,
		   "f?]0;pwn??????Y: not an event");
	ebs_warn(keep_line, buf, EBS_E_NOT_ELF, "warning: '%s'", "a\nb");
	TEST_STREQ("warn: one line", buf, "EBS_E_NOT_ELF warning: 'a?b'");

	f = fmemopen(buf, sizeof(buf), "w");
	if (f) {
		ebs_fprint_line(f, "# %s (%s)", hostile, "x");
		ebs_fprint_line(f, "# %d", 2);
		TEST_STREQ("fprint_line: each line cleaned whole, then its newline",
			   stream_text(buf, sizeof(buf), f), "# f?]0;pwn??????Y (x)\n# 2\n");
		fclose(f);
	}

	f = fmemopen(buf, sizeof(buf), "w");
	g = f ? ebs_clean_stream(f) : NULL;
	if (g) {
		fprintf(g, "ebs x: '%s'\n\tusage\n", hostile);
		fputc('\xc2', g); /* a UTF-8 C1 cut between two writes */
		fputc('\x9b', g);
		fputs("\r\n", g);
		fclose(g);
		TEST_STREQ("clean_stream: tab and newline stay, the rest '?', in any pieces",
			   stream_text(buf, sizeof(buf), f),
			   "ebs x: 'f?]0;pwn?????\nY'\n\tusage\n\xc2? \n");
		TEST_CHECK("clean_stream: closing it leaves its stream open", fputc('z', f) == 'z');
		fclose(f);
	} else {
		TEST_FAIL("clean_stream", "could not make one: %s", strerror(errno));
		if (f)
			fclose(f);
	}
	test_clean_stream_long();

	a = ebs_strset__intern_clean(&set, hostile);
	b = ebs_strset__intern(&set, "f?]0;pwn??????Y");
	TEST_CHECK("strset: intern_clean interns the cleaned name, s unchanged",
		   a && a == b && !strcmp(hostile + 1, "\x1b]0;pwn\x07\x9b\xc2\x9b\x7f\nY"));
	TEST_CHECK("strset: intern_clean of a clean name is intern's",
		   ebs_strset__intern_clean(&set, "main") == ebs_strset__intern(&set, "main"));
	ebs_strset__free(&set);
}

static void test_hash_words(void)
{
	static unsigned int count[1 << 14];
	u64 key[4] = {0x55d0c0a01230ull, 0, 0, 7}, again[4];
	unsigned int i, used = 0, most = 0, hv;

	for (i = 0; i < 1u << 16; i++) {
		key[0] = 0x55d0c0a01230ull + 16ull * (i >> 4); /* a pointer */
		key[1] = i & 15;			       /* a small integer */
		hv = ebs_hash_words(key, sizeof(key));
		count[hv & ((1u << 14) - 1)]++;
	}
	for (i = 0; i < 1u << 14; i++) {
		used += count[i] != 0;
		if (count[i] > most)
			most = count[i];
	}
	TEST_CHECK("hash: words: keys spread over the low bits as at random",
		   used > 0.9 * 0.9817 * (1u << 14) && most <= 20);
	memcpy(again, key, sizeof(key));
	TEST_CHECK("hash: words: the same key, the same hash",
		   ebs_hash_words(again, sizeof(again)) == ebs_hash_words(key, sizeof(key)));
	again[2] = 1;
	TEST_CHECK("hash: words: one word apart, another hash",
		   ebs_hash_words(again, sizeof(again)) != ebs_hash_words(key, sizeof(key)));
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_hex), TEST_CASE(test_grow), TEST_CASE(test_upper_bound),
	  TEST_CASE(test_hash_words), TEST_CASE(test_strings), TEST_CASE(test_text),
	  TEST_CASE(test_files))
