// SPDX-License-Identifier: MIT
/*
 * test-buildid.c - the build-id cache (symbolize/buildid.c, on cache.c's
 * directory rules; docs/symbolize.md, "The build-id cache"):
 *
 *   test_where      the default directory ($XDG_CACHE_HOME/ebs/buildid,
 *                   else ~/.cache/ebs/buildid); no cache with
 *                   EBS_BUILDID_CACHE_MAX=0 or without HOME (errno 0); a bad
 *                   size is one warning and the default
 *   test_add        this program kept as .build-id/xx/REST: its bytes, 0600
 *                   in directories 0700; a second add adds 0 bytes; the
 *                   directory is then readable for a report
 *   test_other      another build-id (the file rebuilt since) is refused,
 *                   EBS_E_NO_BUILD_ID_MATCH, nothing kept; a FIFO and a
 *                   directory are refused without being opened
 *   test_entries    an entry that is not one (garbage, a symbolic link to a
 *                   file of the caller's) is replaced, the link's target
 *                   untouched; a temporary file is never left behind
 *   test_cap        over the cap the least recently used entry goes; a file
 *                   larger than the cap is not kept (-EFBIG)
 *   test_refused    a directory others may write, or another user's, or a
 *                   symbolic link: nothing kept, one warning line, and not
 *                   readable for a report
 *   test_debug      libc's separate debug file, when /usr/lib/debug has it,
 *                   is kept as REST.debug beside libc
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <gelf.h>

#include "symbolize/internal.h"
#include "test.h"

static char dir[64]; /* the test's directory */
static int warnings; /* lines said through warn */
static char last_warning[1200];

static void count_warn(void *ctx, enum ebs_code code, const char *line)
{
	(void)ctx;
	(void)code;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", line);
}

/* The build-id of the file at path into id; its size, 0 when none. */
static u8 build_id_of(const char *path, u8 *id)
{
	u8 n = 0;
	bool dwarf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (elf_fd__debug_facts(fd, id, &n, &dwarf))
		n = 0;
	close(fd);
	return n;
}

/* This program's path into exe (PATH_MAX) and its build-id into id: its size, 0 when none. */
static u8 self_id(char *exe, u8 *id)
{
	ssize_t len = readlink("/proc/self/exe", exe, PATH_MAX - 1);

	exe[len > 0 ? len : 0] = '\0';
	return build_id_of(exe, id);
}

/* DIR/.build-id/xx/REST[suffix] for id into out. */
static void entry_path(char *out, size_t len, const char *cdir, const u8 *id, u8 n,
		       const char *suffix)
{
	char hex[41];

	ebs_format_hex(hex, sizeof(hex), id, n);
	snprintf(out, len, "%s/.build-id/%.2s/%s%s", cdir, hex, hex + 2, suffix);
}

/* Do the files at a and b hold the same bytes? */
static bool same_bytes(const char *a, const char *b)
{
	char cmd[2 * PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* rm -rf path (inside the test's directory) */
static void remove_tree(const char *path)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", path);
}

/* Names of temporary files (".NAME.tmp.") anywhere under path. */
static int temporaries(const char *path)
{
	char cmd[PATH_MAX + 32];
	FILE *f;
	int n = 0, c;

	snprintf(cmd, sizeof(cmd), "find '%s' -name '.*.tmp.*' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	pclose(f);
	return n;
}

/* The path of the libc this program runs with (dl_iterate_phdr), into path. */
static int libc_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so")) {
		snprintf(ctx, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static bool libc_path(char *path)
{
	path[0] = '\0';
	return dl_iterate_phdr(libc_cb, path) && path[0] == '/';
}

static void test_where(void)
{
	struct buildid_cache *b;
	char want[128];

	setenv("XDG_CACHE_HOME", "/x/xdg", 1);
	setenv("HOME", "/x/home", 1);
	unsetenv("EBS_BUILDID_CACHE_MAX");
	b = buildid_cache__new(NULL, NULL, NULL);
	TEST_STREQ("where: $XDG_CACHE_HOME/ebs/buildid", b ? buildid_cache__dir(b) : NULL,
		   "/x/xdg/ebs/buildid");
	buildid_cache__free(b);
	unsetenv("XDG_CACHE_HOME");
	b = buildid_cache__new(NULL, NULL, NULL);
	TEST_STREQ("where: else ~/.cache/ebs/buildid", b ? buildid_cache__dir(b) : NULL,
		   "/x/home/.cache/ebs/buildid");
	buildid_cache__free(b);
	setenv("XDG_CACHE_HOME", "relative", 1);
	b = buildid_cache__new(NULL, NULL, NULL);
	TEST_STREQ("where: a relative $XDG_CACHE_HOME is not used",
		   b ? buildid_cache__dir(b) : NULL, "/x/home/.cache/ebs/buildid");
	buildid_cache__free(b);
	unsetenv("HOME");
	unsetenv("XDG_CACHE_HOME");
	errno = 5;
	b = buildid_cache__new(NULL, NULL, NULL);
	TEST_CHECK("where: no HOME, no cache, errno 0", !b && errno == 0);
	buildid_cache__free(b);
	snprintf(want, sizeof(want), "%s/given", dir);
	b = buildid_cache__new(want, NULL, NULL);
	TEST_STREQ("where: the directory given", b ? buildid_cache__dir(b) : NULL, want);
	buildid_cache__free(b);
	setenv("EBS_BUILDID_CACHE_MAX", "0", 1);
	errno = 5;
	b = buildid_cache__new(want, NULL, NULL);
	TEST_CHECK("where: EBS_BUILDID_CACHE_MAX=0, no cache, errno 0", !b && errno == 0);
	buildid_cache__free(b);
	setenv("EBS_BUILDID_CACHE_MAX", "lots", 1);
	warnings = 0;
	b = buildid_cache__new(want, count_warn, NULL);
	TEST_CHECK("where: a bad size: one warning, a cache all the same",
		   b && warnings == 1 && strstr(last_warning, "EBS_BUILDID_CACHE_MAX='lots'") &&
			   strstr(last_warning, "2G"));
	buildid_cache__free(b);
	unsetenv("EBS_BUILDID_CACHE_MAX");
	TEST_SURVIVES("where: free accepts NULL", buildid_cache__free(NULL));
}

static void test_add(void)
{
	char cdir[96], entry[256], sub[256], exe[PATH_MAX];
	struct ebs_error err;
	struct buildid_cache *b;
	struct stat st, est;
	u8 id[20], n;
	s64 r;

	n = self_id(exe, id);
	if (!n) {
		TEST_SKIP("add", "this test program has no build-id");
		return;
	}
	snprintf(cdir, sizeof(cdir), "%s/add", dir);
	warnings = 0;
	b = buildid_cache__new(cdir, count_warn, NULL);
	if (!b) {
		TEST_FAIL("add: a cache", "%s", strerror(errno));
		return;
	}
	TEST_EQ("add: before, not readable (not there, nothing said)", buildid_cache__readable(b),
		-1);
	stat(exe, &st);
	r = buildid_cache__add(b, exe, id, n, &err);
	TEST_EQ("add: the file's bytes added", r, st.st_size);
	entry_path(entry, sizeof(entry), cdir, id, n, "");
	TEST_CHECK("add: kept as .build-id/xx/REST, the same bytes", same_bytes(entry, exe));
	TEST_CHECK("add: the entry is 0600", !stat(entry, &est) && (est.st_mode & 0777) == 0600);
	snprintf(sub, sizeof(sub), "%.*s", (int)(strrchr(entry, '/') - entry), entry);
	TEST_CHECK("add: its directories are 0700",
		   !stat(sub, &est) && (est.st_mode & 0777) == 0700 && !stat(cdir, &st) &&
			   (st.st_mode & 0777) == 0700);
	r = buildid_cache__add(b, exe, id, n, &err);
	TEST_EQ("add: again, 0 bytes", r, 0);
	TEST_EQ("add: then readable", buildid_cache__readable(b), 0);
	TEST_EQ("add: no temporary file left", temporaries(cdir), 0);
	TEST_EQ("add: no warning", warnings, 0);
	buildid_cache__free(b);
	remove_tree(cdir);
}

static void test_other(void)
{
	char cdir[96], entry[256], fifo[128], exe[PATH_MAX];
	struct ebs_error err;
	struct buildid_cache *b;
	u8 id[20], n;
	s64 r;

	n = self_id(exe, id);
	if (!n) {
		TEST_SKIP("other", "this test program has no build-id");
		return;
	}
	snprintf(cdir, sizeof(cdir), "%s/other", dir);
	b = buildid_cache__new(cdir, count_warn, NULL);
	if (!b) {
		TEST_FAIL("other: a cache", "%s", strerror(errno));
		return;
	}
	id[n - 1] ^= 1; /* the build recorded, since rebuilt */
	r = buildid_cache__add(b, exe, id, n, &err);
	TEST_CHECK("other: another build-id refused, EBS_E_NO_BUILD_ID_MATCH",
		   r == -ESTALE && err.code == EBS_E_NO_BUILD_ID_MATCH &&
			   strstr(err.msg, "not the file recorded"));
	entry_path(entry, sizeof(entry), cdir, id, n, "");
	TEST_CHECK("other: nothing kept", access(entry, F_OK) != 0);
	r = buildid_cache__add(b, exe, id, 1, &err);
	TEST_EQ("other: a build-id of 1 byte refused", r, -EINVAL);

	/* a FIFO: opening it would wait for a writer forever; it is not opened */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	mkfifo(fifo, 0600);
	alarm(10);
	r = buildid_cache__add(b, fifo, id, n, &err);
	alarm(0);
	TEST_CHECK("other: a FIFO refused unopened, EBS_E_NOT_REGULAR",
		   r < 0 && err.code == EBS_E_NOT_REGULAR);
	unlink(fifo);
	r = buildid_cache__add(b, dir, id, n, &err);
	TEST_CHECK("other: a directory refused", r < 0);
	r = buildid_cache__add(b, "/nonexistent/x", id, n, &err);
	TEST_CHECK("other: a missing file: -ENOENT naming it",
		   r == -ENOENT && strstr(err.msg, "/nonexistent/x"));
	buildid_cache__free(b);
	remove_tree(cdir);
}

static void test_entries(void)
{
	char cdir[96], entry[256], victim[128], exe[PATH_MAX], buf[16] = "";
	struct ebs_error err;
	struct buildid_cache *b;
	struct stat st, est;
	u8 id[20], n;
	s64 r;
	int fd;

	n = self_id(exe, id);
	if (!n) {
		TEST_SKIP("entries", "this test program has no build-id");
		return;
	}
	stat(exe, &st);
	snprintf(cdir, sizeof(cdir), "%s/entries", dir);
	b = buildid_cache__new(cdir, count_warn, NULL);
	if (!b) {
		TEST_FAIL("entries: a cache", "%s", strerror(errno));
		return;
	}
	/* make the directories with a first add, then spoil the entry */
	buildid_cache__add(b, exe, id, n, &err);
	entry_path(entry, sizeof(entry), cdir, id, n, "");
	unlink(entry);
	fd = open(entry, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		if (write(fd, "garbage", 7) != 7)
			TEST_FAIL("entries: garbage written", "%s", strerror(errno));
		close(fd);
	}
	r = buildid_cache__add(b, exe, id, n, &err);
	TEST_CHECK("entries: garbage is replaced", r == st.st_size && same_bytes(entry, exe));

	snprintf(victim, sizeof(victim), "%s/victim", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		if (write(fd, "secret\n", 7) != 7)
			TEST_FAIL("entries: victim written", "%s", strerror(errno));
		close(fd);
	}
	unlink(entry);
	if (symlink(victim, entry))
		TEST_FAIL("entries: symlink", "%s", strerror(errno));
	r = buildid_cache__add(b, exe, id, n, &err);
	fd = open(victim, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	TEST_CHECK("entries: a symbolic link is replaced by the file, not followed",
		   r == st.st_size && !lstat(entry, &est) && S_ISREG(est.st_mode) &&
			   same_bytes(entry, exe) && !strcmp(buf, "secret\n"));
	TEST_EQ("entries: no temporary file left", temporaries(cdir), 0);
	buildid_cache__free(b);
	remove_tree(cdir);
	unlink(victim);
}

static void test_cap(void)
{
	char cdir[96], e1[256], e2[256], exe[PATH_MAX], libc[PATH_MAX], cap[32], dbg[256];
	struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	struct ebs_error err;
	struct buildid_cache *b;
	struct stat s1, s2, sd;
	long long libc_all;
	u8 id1[20], id2[20], n1, n2;
	s64 r1, r2;

	n1 = self_id(exe, id1);
	n2 = libc_path(libc) ? build_id_of(libc, id2) : 0;
	if (!n1 || !n2 || stat(exe, &s1) || stat(libc, &s2)) {
		TEST_SKIP("cap", "this program or its libc has no build-id");
		return;
	}
	snprintf(cdir, sizeof(cdir), "%s/cap", dir);
	/*
	 * Room for either, not both.  libc's entry holds its debug file too
	 * when one is installed (libc6-dbg), and that one may be larger or
	 * smaller than this program (a sanitizer build, libdwarf linked in).
	 */
	entry_path(dbg, sizeof(dbg), "/usr/lib/debug", id2, n2, ".debug");
	libc_all = (long long)s2.st_size + (stat(dbg, &sd) ? 0 : (long long)sd.st_size);
	snprintf(cap, sizeof(cap), "%lld",
		 (s1.st_size > libc_all ? (long long)s1.st_size : libc_all) + 4096);
	setenv("EBS_BUILDID_CACHE_MAX", cap, 1);
	b = buildid_cache__new(cdir, count_warn, NULL);
	if (!b) {
		TEST_FAIL("cap: a cache", "%s", strerror(errno));
		unsetenv("EBS_BUILDID_CACHE_MAX");
		return;
	}
	r1 = buildid_cache__add(b, exe, id1, n1, &err);
	entry_path(e1, sizeof(e1), cdir, id1, n1, "");
	entry_path(e2, sizeof(e2), cdir, id2, n2, "");
	utimensat(AT_FDCWD, e1, old, 0); /* used long ago */
	r2 = buildid_cache__add(b, libc, id2, n2, &err);
	TEST_CHECK("cap: both added", r1 == s1.st_size && r2 >= s2.st_size);
	TEST_CHECK("cap: the least recently used goes, the newest stays",
		   access(e1, F_OK) != 0 && access(e2, F_OK) == 0);
	buildid_cache__free(b);

	snprintf(cap, sizeof(cap), "%lld", (long long)s1.st_size - 1);
	setenv("EBS_BUILDID_CACHE_MAX", cap, 1);
	b = buildid_cache__new(cdir, count_warn, NULL);
	r1 = b ? buildid_cache__add(b, exe, id1, n1, &err) : 0;
	TEST_CHECK("cap: a file over the cap is not kept: -EFBIG",
		   r1 == -EFBIG && access(e1, F_OK) != 0 &&
			   strstr(err.msg, "EBS_BUILDID_CACHE_MAX"));
	TEST_CHECK("cap: and nothing else goes for it", access(e2, F_OK) == 0);
	TEST_EQ("cap: no temporary file left", temporaries(cdir), 0);
	buildid_cache__free(b);
	unsetenv("EBS_BUILDID_CACHE_MAX");
	remove_tree(cdir);
}

/* A cache at cdir, made by how (a shell command), must refuse: nothing kept, one line. */
static void refused(const char *name, const char *cdir, const char *how, const char *says)
{
	char exe[PATH_MAX], what[160];
	struct ebs_error err;
	struct buildid_cache *b;
	u8 id[20], n;
	s64 r;

	n = self_id(exe, id);
	if (!n || system(how)) {
		TEST_SKIP(name, "no build-id, or '%s' failed", how);
		return;
	}
	warnings = 0;
	last_warning[0] = '\0';
	b = buildid_cache__new(cdir, count_warn, NULL);
	r = b ? buildid_cache__add(b, exe, id, n, &err) : 0;
	r = r < 0 && b ? buildid_cache__add(b, exe, id, n, &err) : r; /* said once */
	snprintf(what, sizeof(what), "%s: nothing kept, one warning line saying so", name);
	TEST_CHECK(what, r < 0 && warnings == 1 && strstr(last_warning, says) &&
				 strstr(last_warning, "build-id cache") && temporaries(cdir) == 0);
	if (warnings != 1 || !strstr(last_warning, says))
		printf("# %d warnings, the last: %s\n", warnings, last_warning);
	buildid_cache__free(b);
	b = buildid_cache__new(cdir, count_warn, NULL);
	warnings = 0;
	snprintf(what, sizeof(what), "%s: not readable for a report, one line", name);
	TEST_CHECK(what, b && buildid_cache__readable(b) == -1 && warnings == 1);
	buildid_cache__free(b);
}

static void test_refused(void)
{
	char cdir[96], how[1024];

	snprintf(cdir, sizeof(cdir), "%s/open", dir);
	snprintf(how, sizeof(how), "mkdir -p %s && chmod 0777 %s", cdir, cdir);
	refused("refused: others may write", cdir, how, "others may write to it (mode 777)");
	remove_tree(cdir);
	snprintf(how, sizeof(how), "mkdir -p %s && chmod 0770 %s", cdir, cdir);
	refused("refused: the group may write", cdir, how, "others may write to it (mode 770)");
	remove_tree(cdir);
	snprintf(cdir, sizeof(cdir), "%s/link", dir);
	snprintf(how, sizeof(how), "mkdir -p %s/real && chmod 0700 %s/real && ln -s real %s", dir,
		 dir, cdir);
	refused("refused: a symbolic link", cdir, how, "not a directory");
	remove_tree(cdir);
	snprintf(how, sizeof(how), "%s/real", dir);
	remove_tree(how);
	if (geteuid() != 0) {
		TEST_SKIP("refused: another user's", "not root: cannot give a directory away");
		return;
	}
	snprintf(cdir, sizeof(cdir), "%s/theirs", dir);
	snprintf(how, sizeof(how), "mkdir -p %s && chmod 0700 %s && chown 65534 %s", cdir, cdir,
		 cdir);
	refused("refused: another user's", cdir, how, "not yours (its owner is uid 65534)");
	remove_tree(cdir);
	/* the .build-id inside, another user's */
	snprintf(cdir, sizeof(cdir), "%s/inner", dir);
	snprintf(how, sizeof(how),
		 "mkdir -p %s/.build-id && chmod 0700 %s %s/.build-id && chown 65534 %s/.build-id",
		 cdir, cdir, cdir, cdir);
	warnings = 0;
	{
		char exe[PATH_MAX];
		struct ebs_error err;
		struct buildid_cache *b;
		u8 id[20], n = self_id(exe, id);
		s64 r = 0;

		b = n && !system(how) ? buildid_cache__new(cdir, count_warn, NULL) : NULL;
		if (b)
			r = buildid_cache__add(b, exe, id, n, &err);
		TEST_CHECK("refused: .build-id another user's: nothing kept, one line",
			   b && r < 0 && warnings == 1 &&
				   strstr(last_warning, ".build-id: not yours"));
		buildid_cache__free(b);
	}
	remove_tree(cdir);
}

static void test_debug(void)
{
	char libc[PATH_MAX], dbg[PATH_MAX], cdir[96], entry[256];
	struct ebs_error err;
	struct buildid_cache *b;
	struct stat st;
	u8 id[20], n;
	s64 r;

	n = libc_path(libc) ? build_id_of(libc, id) : 0;
	if (!n) {
		TEST_SKIP("debug", "no libc with a build-id");
		return;
	}
	entry_path(dbg, sizeof(dbg), "/usr/lib/debug", id, n, ".debug");
	if (stat(dbg, &st)) {
		TEST_SKIP("debug", "libc's debug file is not installed (%s)", dbg);
		return;
	}
	snprintf(cdir, sizeof(cdir), "%s/debug", dir);
	b = buildid_cache__new(cdir, count_warn, NULL);
	r = b ? buildid_cache__add(b, libc, id, n, &err) : 0;
	entry_path(entry, sizeof(entry), cdir, id, n, ".debug");
	TEST_CHECK("debug: libc's debug file kept as REST.debug, the same bytes",
		   r > st.st_size && same_bytes(entry, dbg));
	buildid_cache__free(b);
	remove_tree(cdir);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ebs-test-buildid.XXXXXX");
	if (!mkdtemp(dir)) {
		TEST_FAIL("setup", "mkdtemp: %s", strerror(errno));
		return -1;
	}
	unsetenv("EBS_BUILDID_CACHE_MAX");
	elf_version(EV_CURRENT); /* for build_id_of, before any cache is made */
	return 0;
}

static void teardown(void)
{
	remove_tree(dir);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_where), TEST_CASE(test_add), TEST_CASE(test_other),
	  TEST_CASE(test_entries), TEST_CASE(test_cap), TEST_CASE(test_refused),
	  TEST_CASE(test_debug))
