// SPDX-License-Identifier: MIT
/*
 * test-ns.c - opening a file that a process in a chroot maps, as ebs
 * record does for processes in other mount namespaces or roots
 * (sampler/ns.c, ns_open_in_root), each way (openat2 below /proc/PID/root,
 * and a child that entered the namespace): the file inside is read; a FIFO
 * is refused without blocking; an absolute link, a ".." link and a
 * /proc magic link resolve inside the process's root, never to the host
 * file they name outside it.  Needs root (chroot); skips without.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampler/backend.h"
#include "test.h"

static char dir[64];

/* mkdir -p of dir/sub, a file of text at dir/sub/name */
static void put(const char *sub, const char *text)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			TEST_FAIL("ns: setup", "write %s: %s", path, strerror(errno));
		close(fd);
	}
}

/* what fd holds (up to 63 bytes), "" when nothing */
static const char *content(int fd, char *buf)
{
	ssize_t n = fd >= 0 ? read(fd, buf, 63) : -1;

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void test_open_in_root(void)
{
	static const unsigned int ways[] = {NS_OPEN_ROOT, NS_OPEN_SETNS};
	static const char *const names[] = {"openat2", "setns"};
	char path[256], buf[64], secret[128];
	int go[2], ready[2];
	unsigned int i;
	pid_t child;
	char c;

	if (geteuid() != 0) {
		TEST_SKIP("ns: open in root", "needs root (chroot)");
		return;
	}
	snprintf(dir, sizeof(dir), "/tmp/ebs-test-ns.XXXXXX");
	if (!mkdtemp(dir)) {
		TEST_FAIL("ns: setup", "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/root", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/root/app", dir);
	mkdir(path, 0755);
	put("secret", "host secret"); /* outside the root */
	put("root/secret", "inside"); /* what ".." from /app reaches inside */
	put("root/app/hot", "hot inside");
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(path, sizeof(path), "%s/root/app/abs", dir);
	TEST_CHECK("ns: setup: link", symlink(secret, path) == 0); /* the host path */
	snprintf(path, sizeof(path), "%s/root/app/up", dir);
	TEST_CHECK("ns: setup: link", symlink("../../../../../../secret", path) == 0);
	snprintf(path, sizeof(path), "%s/root/app/magic", dir);
	TEST_CHECK("ns: setup: link", symlink("/proc/1/root/etc/hostname", path) == 0);
	snprintf(path, sizeof(path), "%s/root/app/fifo", dir);
	TEST_CHECK("ns: setup: fifo", mkfifo(path, 0644) == 0);

	/* a process whose root is dir/root, until go is closed */
	if (pipe(go) || pipe(ready))
		return;
	child = fork();
	if (child == 0) {
		snprintf(path, sizeof(path), "%s/root", dir);
		close(go[1]);
		close(ready[0]);
		if (chroot(path) || chdir("/"))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		while (read(go[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	if (child < 0 || read(ready[0], &c, 1) != 1) {
		TEST_FAIL("ns: setup", "the chrooted child did not start");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		const char *how = "";
		char name[128];
		int fd;

		fd = ns_open_in_root((u32)child, "/app/hot", ways[i], &how);
		snprintf(name, sizeof(name), "ns: %s: the file inside is read", names[i]);
		TEST_STREQ(name, content(fd, buf), "hot inside");
		if (fd >= 0)
			close(fd);
		snprintf(name, sizeof(name), "ns: %s: found the %s way", names[i], names[i]);
		TEST_STREQ(name, how, i ? "setns" : "/proc/PID/root");

		fd = ns_open_in_root((u32)child, "/app/fifo", ways[i], &how);
		snprintf(name, sizeof(name), "ns: %s: a FIFO is refused, not opened", names[i]);
		TEST_EQ(name, fd, -EBS_ENOTREG);

		fd = ns_open_in_root((u32)child, "/app/abs", ways[i], &how);
		snprintf(name, sizeof(name), "ns: %s: an absolute link stays inside (%s)", names[i],
			 content(fd, buf));
		TEST_EQ(name, fd, -ENOENT); /* inside, the host path is nothing */

		fd = ns_open_in_root((u32)child, "/app/up", ways[i], &how);
		snprintf(name, sizeof(name), "ns: %s: a '..' link stops at the root", names[i]);
		TEST_STREQ(name, content(fd, buf), "inside");
		if (fd >= 0)
			close(fd);

		fd = ns_open_in_root((u32)child, "/app/magic", ways[i], &how);
		snprintf(name, sizeof(name), "ns: %s: no way out through /proc (%s)", names[i],
			 content(fd, buf));
		TEST_CHECK(name, fd < 0);
		if (fd >= 0)
			close(fd);

		fd = ns_open_in_root((u32)child, "/app/none", ways[i], &how);
		snprintf(name, sizeof(name), "ns: %s: a missing file", names[i]);
		TEST_EQ(name, fd, -ENOENT);
	}
out:
	close(go[1]);
	close(ready[0]);
	if (child > 0)
		waitpid(child, NULL, 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		TEST_FAIL("ns: cleanup", "%s failed", path);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_open_in_root))
