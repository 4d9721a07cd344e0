// SPDX-License-Identifier: MIT
/*
 * test-input.c - util/input.c, the one way ebs opens a file at a path
 * someone else chose: each kind of file that is not regular refused by
 * its own reason (a FIFO without a writer, a character and a block
 * device, a socket, a directory), a link followed or not by the rule, the
 * owner rule in a directory others can write, the rule of whose file
 * named the path (owned by root or that user, who may read it: by its mode
 * and its directories'), no file of a kernel file system (/proc, /sys)
 * under EBS_IN_DISK, whether everyone may read a file, a recording the
 * user named (EBS_IN_NAMED: a FIFO waited on, another user's file, FIFO
 * or link in a shared directory refused), and the bounded reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"
#include "test.h"

static char dir[] = "/tmp/ebs-test-input.XXXXXX";

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		TEST_FAIL("input: make a file", "%s: %s", path, strerror(errno));
		return;
	}
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/*
 * ebs_open_input of path under rule: want (a -errno), why containing what.
 * Returns the descriptor when it opened (want 0).
 */
static int opens(const char *name, const char *path, const struct ebs_input_rule *rule, int want,
		 const char *what)
{
	struct ebs_error err = {0};
	const char *why = err.msg;
	struct stat st;
	int fd = ebs_open_input(path, rule, &st, &err);

	if (want == 0 && fd >= 0) {
		TEST_OK(name);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	if (fd == want && want < 0 && strstr(why, what))
		TEST_OK(name);
	else
		TEST_FAIL(name, "%d, want %d; why \"%s\", want \"%s\"", fd, want, why, what);
	return -1;
}

/*
 * A file of uid 65534's, d/theirs (its path into path): false when it
 * cannot be made (not root), said as test's skip.
 */
static bool their_file(const char *test, const char *d, char *path, size_t len)
{
	if (geteuid() != 0) {
		TEST_SKIP(test, "not root: cannot give a file away");
		return false;
	}
	snprintf(path, len, "%s/theirs", d);
	put(path, "theirs\n", 0644);
	if (chown(path, 65534, 65534)) {
		TEST_SKIP(test, "chown: %s", strerror(errno));
		return false;
	}
	return true;
}

/* opens, for a path that must open: the descriptor closed. */
static void opens_ok(const char *name, const char *path, const struct ebs_input_rule *rule)
{
	int fd = opens(name, path, rule, 0, "");

	if (fd >= 0)
		close(fd);
}

static void test_types(void)
{
	char path[100], text[16] = "";
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, s;

	snprintf(path, sizeof(path), "%s/file", dir);
	put(path, "text\n", 0644);
	fd = opens("input: a regular file opens", path, NULL, 0, "");
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);

		TEST_CHECK("input: read-only, blocking, close-on-exec",
			   (fl & O_ACCMODE) == O_RDONLY && !(fl & O_NONBLOCK) && !(fl & O_PATH) &&
				   (fcntl(fd, F_GETFD) & FD_CLOEXEC));
		TEST_CHECK("input: its text reads",
			   read(fd, text, sizeof(text)) == 5 && !strncmp(text, "text\n", 5));
		TEST_CHECK("input: st is the file's", fstat(fd, &st) == 0 && st.st_size == 5);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/missing", dir);
	opens("input: a missing file", path, NULL, -ENOENT, strerror(ENOENT));

	/* a FIFO without a writer: an open for reading would wait (or wake one) */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0666))
		TEST_SKIP("input: a FIFO", "mkfifo: %s", strerror(errno));
	else
		opens("input: a FIFO refused as one", path, NULL, -EBS_ENOTREG,
		      "is a FIFO, not a regular file");
	opens("input: a character device refused as one", "/dev/null", NULL, -EBS_ENOTREG,
	      "is a character device, not a regular file");
	snprintf(path, sizeof(path), "%s/blk", dir);
	if (mknod(path, S_IFBLK | 0600, makedev(7, 200)))
		TEST_SKIP("input: a block device", "mknod: %s", strerror(errno));
	else
		opens("input: a block device refused as one", path, NULL, -EBS_ENOTREG,
		      "is a block device, not a regular file");
	snprintf(path, sizeof(path), "%s/sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)))
		TEST_SKIP("input: a socket", "bind: %s", strerror(errno));
	else
		opens("input: a socket refused as one", path, NULL, -EBS_ENOTREG,
		      "is a socket, not a regular file");
	if (s >= 0)
		close(s);
	opens("input: a directory refused as one", dir, NULL, -EISDIR,
	      "is a directory, not a regular file");
	snprintf(path, sizeof(path), "%s/", dir);
	opens("input: a directory named with a slash, under a rule", path,
	      &(struct ebs_input_rule){.flags = EBS_IN_SHARED, .owner = (uid_t)-1}, -EISDIR,
	      "is a directory");
	/* a link to a device is the device */
	snprintf(path, sizeof(path), "%s/zero", dir);
	if (symlink("/dev/zero", path))
		TEST_FAIL("input: a link", "symlink: %s", strerror(errno));
	else
		opens("input: a link to /dev/zero refused as a device", path, NULL, -EBS_ENOTREG,
		      "is a character device");
}

static void test_shared(void)
{
	const struct ebs_input_rule shared = {.flags = EBS_IN_SHARED, .owner = (uid_t)-1};
	const struct ebs_input_rule theirs = {.flags = EBS_IN_SHARED, .owner = 65534};
	char sdir[128], path[256], link[256], target[256];

	snprintf(sdir, sizeof(sdir), "%s/shared", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	put(target, "target\n", 0644);
	if (mkdir(sdir, 0700) || chmod(sdir, 01777)) {
		TEST_FAIL("input: shared directory", "%s: %s", sdir, strerror(errno));
		return;
	}
	snprintf(link, sizeof(link), "%s/link", sdir);
	if (symlink(target, link)) {
		TEST_FAIL("input: shared: a link", "symlink: %s", strerror(errno));
		return;
	}
	opens("input: shared: a link not followed", link, &shared, -ELOOP,
	      "is a symbolic link in a directory others can write: not followed");
	opens_ok("input: shared: a link followed without the rule", link, NULL);
	snprintf(link, sizeof(link), "%s/private-link", dir);
	if (!symlink(target, link))
		opens_ok("input: a link in a private directory followed under the rule", link,
			 &shared);
	snprintf(path, sizeof(path), "%s/mine", sdir);
	put(path, "mine\n", 0644);
	opens_ok("input: shared: our own file", path, &shared);
	if (!their_file("input: shared: another user's file", sdir, path, sizeof(path)))
		return;
	opens("input: shared: another user's file refused", path, &shared, -EBS_EUNTRUSTED,
	      "(uid 65534) in a directory others can write: not trusted");
	opens_ok("input: shared: the rule's owner's file", path, &theirs);
	opens_ok("input: another user's file in a private directory", target, &shared);
}

/* EBS_IN_OWNER: what a file of uid 65534's names, shown as that user could read it. */
static void test_owner(void)
{
	const struct ebs_input_rule owner = {
		.flags = EBS_IN_OWNER, .owner = 65534, .owner_is = "the binary's owner"};
	const struct ebs_input_rule unknown = {
		.flags = EBS_IN_OWNER, .owner = (uid_t)-1, .owner_is = "the binary's owner"};
	char path[256], closed[256];

	if (geteuid() != 0) {
		TEST_SKIP("input: owner rule", "not root: cannot make other users' files");
		return;
	}
	snprintf(path, sizeof(path), "%s/secret", dir);
	put(path, "secret\n", 0600);
	opens("input: owner: root's 0600 file refused", path, &owner, -EBS_EUNTRUSTED,
	      "may not be read by the binary's owner");
	opens("input: owner: the reason names its mode", path, &owner, -EBS_EUNTRUSTED,
	      "(uid 65534): its mode is 0600");
	opens("input: owner: not known, root's 0600 file refused", path, &unknown, -EBS_EUNTRUSTED,
	      "may not be read by the binary's owner, whoever that is");
	snprintf(path, sizeof(path), "%s/public", dir);
	put(path, "public\n", 0644);
	opens_ok("input: owner: root's 0644 file read", path, &owner);
	opens_ok("input: owner: not known, root's files if others may read them", path, &unknown);
	if (chown(path, 1234, 1234)) {
		TEST_SKIP("input: owner: a third user's file", "chown: %s", strerror(errno));
	} else {
		opens("input: owner: a third user's file refused", path, &owner, -EBS_EUNTRUSTED,
		      "is owned by uid 1234, not by root or the binary's owner");
	}
	snprintf(path, sizeof(path), "%s/own", dir);
	put(path, "own\n", 0600);
	if (chown(path, 65534, 65534)) {
		TEST_SKIP("input: owner: the owner's own file", "chown: %s", strerror(errno));
	} else {
		opens_ok("input: owner: the owner's own 0600 file read", path, &owner);
	}
	/* readable by its mode, in a directory the owner cannot search */
	snprintf(closed, sizeof(closed), "%s/closed", dir);
	if (mkdir(closed, 0700)) {
		TEST_FAIL("input: owner: a closed directory", "mkdir: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/closed/public", dir);
	put(path, "public\n", 0644);
	opens("input: owner: a 0644 file in a 0700 directory refused", path, &owner,
	      -EBS_EUNTRUSTED, "is mode 0700");
}

/*
 * EBS_IN_NAMED: a recording the user named.  A FIFO, a device are the
 * user's to give, and a FIFO's open waits for its writer; in a directory
 * others can write, what is at the name must be ours or root's, unless
 * EBS_IN_FORCE.
 */
static void test_named(void)
{
	const struct ebs_input_rule named = {.flags = EBS_IN_NAMED, .owner = (uid_t)-1};
	const struct ebs_input_rule force = {.flags = EBS_IN_NAMED | EBS_IN_FORCE,
					     .owner = (uid_t)-1};
	char sdir[128], path[256], link[256], text[16] = "";
	pid_t pid;
	int fd, fl;

	opens_ok("named: a device is the user's to give", "/dev/null", &named);
	opens("named: a directory refused", dir, &named, -EISDIR, "is a directory");
	/* a FIFO of ours: the open waits for the writer, who comes later */
	snprintf(path, sizeof(path), "%s/named-fifo", dir);
	if (mkfifo(path, 0600)) {
		TEST_SKIP("named: a FIFO", "mkfifo: %s", strerror(errno));
	} else if ((pid = fork()) == 0) {
		int w;

		usleep(200000); /* (only makes the reader wait: nothing rests on it) */
		w = open(path, O_WRONLY);
		_exit(w < 0 || write(w, "hello", 5) != 5);
	} else {
		fd = opens("named: our FIFO opens once its writer comes", path, &named, 0, "");
		if (fd >= 0) {
			fl = fcntl(fd, F_GETFL);
			TEST_CHECK("named: ... blocking, and reads what was written",
				   !(fl & O_NONBLOCK) && read(fd, text, sizeof(text)) == 5 &&
					   !strncmp(text, "hello", 5));
			close(fd);
		}
		waitpid(pid, NULL, 0);
	}
	snprintf(sdir, sizeof(sdir), "%s/named-shared", dir);
	if (mkdir(sdir, 0700) || chmod(sdir, 01777)) {
		TEST_FAIL("named: shared directory", "%s: %s", sdir, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/mine", sdir);
	put(path, "mine\n", 0600);
	opens_ok("named: our own file in a shared directory", path, &named);
	snprintf(link, sizeof(link), "%s/mylink", sdir);
	if (!symlink(path, link))
		opens_ok("named: our own link there to our file: followed", link, &named);
	if (!their_file("named: another user's", sdir, path, sizeof(path)))
		return;
	opens("named: their file in a shared directory refused", path, &named, -EBS_EUNTRUSTED,
	      "not read: a file owned by nobody (uid 65534), in a directory others can write");
	opens_ok("named: ... read with EBS_IN_FORCE", path, &force);
	unlink(link);
	if (!symlink(path, link))
		opens("named: our link there to their file refused", link, &named, -EBS_EUNTRUSTED,
		      "not read: a symbolic link to a file owned by nobody (uid 65534)");
	snprintf(link, sizeof(link), "%s/theirlink", sdir);
	if (symlink("/dev/null", link) || lchown(link, 65534, 65534)) {
		TEST_FAIL("named: their link", "%s: %s", link, strerror(errno));
	} else {
		opens("named: their link to a device refused, not followed", link, &named,
		      -EBS_EUNTRUSTED, "not read: a symbolic link owned by nobody (uid 65534)");
		opens_ok("named: ... followed with EBS_IN_FORCE", link, &force);
	}
	snprintf(path, sizeof(path), "%s/theirfifo", sdir);
	if (mkfifo(path, 0666) || chown(path, 65534, 65534))
		TEST_FAIL("named: their FIFO", "%s: %s", path, strerror(errno));
	else /* no writer: an open would wait for ever */
		opens("named: their FIFO refused at once", path, &named, -EBS_EUNTRUSTED,
		      "not read: a FIFO owned by nobody (uid 65534)");
}

/* EBS_IN_DISK: no file of a kernel file system, whose contents are made for who reads them. */
static void test_disk(void)
{
	const struct ebs_input_rule disk = {.flags = EBS_IN_DISK, .owner = (uid_t)-1};
	const struct ebs_input_rule all = {.flags = EBS_IN_DISK | EBS_IN_SHARED | EBS_IN_OWNER,
					   .owner = 65534};
	char path[256];

	opens("input: disk: /proc/self/maps refused", "/proc/self/maps", &disk, -EBS_EPSEUDO,
	      "is on /proc, whose contents depend on who reads them");
	opens("input: disk: /proc/kallsyms refused", "/proc/kallsyms", &disk, -EBS_EPSEUDO,
	      "is on /proc, whose");
	if (geteuid() == 0)
		opens("input: disk: /proc/kallsyms refused with the owner rule too",
		      "/proc/kallsyms", &all, -EBS_EPSEUDO, "is on /proc, whose");
	opens("input: disk: a link to /proc/self/cmdline refused",
	      "/proc/self/root/proc/self/cmdline", &disk, -EBS_EPSEUDO, "is on /proc");
	if (access("/sys/devices/system/cpu/online", R_OK))
		TEST_SKIP("input: disk: a sysfs file", "/sys/devices/system/cpu/online: %s",
			  strerror(errno));
	else
		opens("input: disk: a sysfs file refused", "/sys/devices/system/cpu/online", &disk,
		      -EBS_EPSEUDO, "is on /sys, whose contents depend on who reads them");
	opens_ok("input: disk: /proc/self/maps opens without the rule", "/proc/self/maps", NULL);
	snprintf(path, sizeof(path), "%s/disk-file", dir);
	put(path, "text\n", 0644);
	opens_ok("input: disk: a file on disk opens", path, &disk);
	TEST_CHECK("input: disk: ebs_read_strerror says why",
		   strstr(ebs_read_strerror(-EBS_EPSEUDO), "kernel file system") != NULL);
}

/* ebs_everyone_may_read: by the file's mode and its directories' search modes. */
static void test_everyone(void)
{
	char path[300], sub[256];
	struct ebs_error err = {0};
	const char *why = err.msg;
	struct stat st;
	int fd;

	snprintf(sub, sizeof(sub), "%s/everyone", dir);
	if (mkdir(sub, 0755)) {
		TEST_FAIL("everyone: mkdir", "%s: %s", sub, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/public", sub);
	put(path, "public\n", 0644);
	fd = open(path, O_RDONLY);
	TEST_CHECK("everyone: a 0644 file in 0755 directories: everyone may read it",
		   fd >= 0 && !fstat(fd, &st) && ebs_everyone_may_read(fd, path, &st, &err) == 0);
	chmod(path, 0640);
	TEST_CHECK("everyone: a 0640 file: not everyone (its group only)",
		   fd >= 0 && !fstat(fd, &st) &&
			   ebs_everyone_may_read(fd, path, &st, &err) == -EBS_EUNTRUSTED &&
			   strstr(why, "may not be read by everyone: its mode is 0640"));
	chmod(path, 0644);
	chmod(sub, 0750);
	TEST_CHECK("everyone: a 0644 file in a 0750 directory: not everyone",
		   fd >= 0 && !fstat(fd, &st) &&
			   ebs_everyone_may_read(fd, path, &st, &err) == -EBS_EUNTRUSTED &&
			   strstr(why, "directory") && strstr(why, "is mode 0750"));
	chmod(sub, 0711);
	TEST_CHECK("everyone: a 0644 file in a 0711 directory (searched, not listed): everyone",
		   fd >= 0 && !fstat(fd, &st) && ebs_everyone_may_read(fd, path, &st, &err) == 0);
	if (fd >= 0)
		close(fd);
	fd = open("/dev/null", O_RDONLY);
	TEST_CHECK("everyone: a device: not a regular file",
		   fd >= 0 && !fstat(fd, &st) &&
			   ebs_everyone_may_read(fd, "/dev/null", &st, &err) == -EBS_ENOTREG);
	if (fd >= 0)
		close(fd);
}

static void test_read_fd(void)
{
	char path[256], *buf = NULL;
	size_t bad = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/lines", dir);
	put(path, "ab\ncdef\ng", 0644);
	fd = open(path, O_RDONLY);
	TEST_EQ("read_fd: a line of max_line bytes refused", ebs_read_fd(fd, 100, 4, &buf, &bad),
		-E2BIG);
	TEST_EQ("read_fd: which line", bad, 2);
	lseek(fd, 0, SEEK_SET);
	TEST_EQ("read_fd: within bounds", ebs_read_fd(fd, 100, 5, &buf, NULL), 9);
	TEST_CHECK("read_fd: NUL-terminated", buf && !strcmp(buf, "ab\ncdef\ng"));
	free(buf);
	lseek(fd, 0, SEEK_SET);
	TEST_EQ("read_fd: more than max", ebs_read_fd(fd, 8, 0, &buf, NULL), -EFBIG);
	close(fd);
	fd = open("/dev/zero", O_RDONLY);
	TEST_EQ("read_fd: /dev/zero stops at max", ebs_read_fd(fd, 1 << 20, 0, &buf, NULL), -EFBIG);
	close(fd);
}

static int setup(void)
{
	if (!mkdtemp(dir)) {
		TEST_FAIL("input: mkdtemp", "%s", strerror(errno));
		return -1;
	}
	chmod(dir, 0755);
	return 0;
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		TEST_FAIL("input: clean up", "%s", cmd);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_types), TEST_CASE(test_shared), TEST_CASE(test_owner),
	  TEST_CASE(test_disk), TEST_CASE(test_everyone), TEST_CASE(test_named),
	  TEST_CASE(test_read_fd))
