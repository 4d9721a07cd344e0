// SPDX-License-Identifier: MIT
/*
 * ns.c - processes that run in another mount namespace or root directory
 * than ebs record: containers, chroot.  Such a process maps files at paths
 * that exist only inside it (/app/hot); once it exits nothing outside can
 * read them.  So, as each mapping is read from the ring:
 *
 *   - the process's mount namespace (the inode of /proc/PID/ns/mnt) and
 *     root (the device and inode of /proc/PID/root) are set against ebs's
 *     own, and a PROCNS record notes a process whose differ (and notes it
 *     again when that changes: chroot, then exec);
 *   - a file of such a process that the record gives a build-id of is
 *     opened inside the process's root, at once (it may be short-lived),
 *     and handed to record_opts.on_mapping, once per build-id, which keeps
 *     it (cli/cmd-record.c: the build-id cache), unless the very file (its
 *     device and inode) is at the same path outside too.  sampler/ reads
 *     no ELF.
 *
 * The file is opened with openat2(2)'s RESOLVE_IN_ROOT below
 * /proc/PID/root: the walk goes on in the process's own mount tree, its
 * private mounts included, and its links (absolute ones, "..") resolve
 * inside its root as they did for it, never out into ebs's.  Only a
 * regular file is opened for reading (looked at through O_PATH first: a
 * FIFO or a device is never opened).  Where that finds nothing (or where
 * openat2 is missing: Linux before 5.6), a forked child enters the mount
 * namespace with setns(2), as perf's nsinfo does, makes the process's root
 * its own (chroot) and opens the file there, handing it back over a socket.
 * Nothing is ever written into the process's namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampler/backend.h"
#include "util/hash.h"

/* Where a process runs: its mount namespace and its root directory. */
struct ns_id {
	u64 mnt_ns;
	u64 root_dev, root_ino;
};

/* What was last noted of a process (a PROCNS record written): its place then. */
struct ns_proc {
	u32 pid;
	struct ns_id id;
	u32 flags;
	UT_hash_handle hh;
};

#define NS_KEY	     21 /* build-id size, then up to 20 bytes of build-id */
#define NS_MAX_TRIES 3	/* a file is tried for at most this many mappings */

/* A build-id handed to on_mapping, or tried. */
struct ns_file {
	u8 key[NS_KEY];
	u8 tries;
	bool kept;
	UT_hash_handle hh;
};

struct ns_tracker {
	const struct record_opts *o;
	struct ebs_writer *w;
	struct ns_id self;
	bool self_known;
	bool force_setns; /* EBS_DEBUG_NS_SETNS: the setns(2) way first, for tests */
	struct ns_proc *procs;
	struct ns_file *files;
};

/* The place of the task whose /proc directory is dir ("/proc/self", "/proc/12"): 0 or -errno. */
static int ns_of(const char *dir, struct ns_id *id)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/root", dir);
	if (stat(path, &st) < 0)
		return -errno;
	id->root_dev = st.st_dev;
	id->root_ino = st.st_ino;
	snprintf(path, sizeof(path), "%s/ns/mnt", dir);
	if (stat(path, &st) < 0)
		return -errno;
	id->mnt_ns = st.st_ino;
	return 0;
}

struct ns_tracker *ns_tracker__new(const struct record_opts *o, struct ebs_writer *w)
{
	struct ns_tracker *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->o = o;
	t->w = w;
	/* unknown (an unusual /proc): no process is told apart from ebs */
	t->self_known = ns_of("/proc/self", &t->self) == 0;
	t->force_setns = getenv("EBS_DEBUG_NS_SETNS") != NULL;
	return t;
}

void ns_tracker__free(struct ns_tracker *t)
{
	struct ns_proc *p, *tp;
	struct ns_file *f, *tf;

	if (!t)
		return;
	HASH_ITER(hh, t->procs, p, tp) {
		HASH_DEL(t->procs, p);
		free(p);
	}
	HASH_ITER(hh, t->files, f, tf) {
		HASH_DEL(t->files, f);
		free(f);
	}
	free(t);
}

/* A PROCNS record: pid runs in place id (flags: what differs from ebs's) from time on. */
static int write_procns(struct ns_tracker *t, u32 pid, u64 time, const struct ns_id *id, u32 flags)
{
	union {
		struct ebs_rec_procns r;
		u8 bytes[sizeof(struct ebs_rec_procns) + PATH_MAX + 8];
	} u;
	char path[64];
	ssize_t len;

	memset(&u.r, 0, sizeof(u.r));
	snprintf(path, sizeof(path), "/proc/%u/root", pid);
	len = readlink(path, u.r.root, PATH_MAX);
	if (len < 0)
		len = 0; /* gone meanwhile: the ids say it all */
	memset(u.r.root + len, 0, 8);
	u.r.hdr.type = EBS_REC_PROCNS;
	u.r.hdr.size = (u32)ALIGN8(sizeof(u.r) + (size_t)len + 1);
	u.r.time = time;
	u.r.pid = pid;
	u.r.flags = flags;
	u.r.mnt_ns = id->mnt_ns;
	u.r.root_dev = id->root_dev;
	u.r.root_ino = id->root_ino;
	return ebs_writer__add(t->w, &u.r.hdr);
}

/*
 * Note where pid runs now.  Its flags (EBS_PROCNS_*: what differs from
 * ebs's place; 0 when it runs in ebs's, or when it is gone) into *flags;
 * 0 or -errno from the writer.
 */
static int note(struct ns_tracker *t, u32 pid, u64 time, u32 *flags)
{
	struct ns_id id;
	struct ns_proc *p;
	char dir[32];

	*flags = 0;
	snprintf(dir, sizeof(dir), "/proc/%u", pid);
	if (!t->self_known || ns_of(dir, &id) < 0)
		return 0; /* gone already: nothing to read there either */
	if (id.mnt_ns != t->self.mnt_ns)
		*flags |= EBS_PROCNS_MNT;
	if (id.root_dev != t->self.root_dev || id.root_ino != t->self.root_ino)
		*flags |= EBS_PROCNS_ROOT;
	HASH_FIND(hh, t->procs, &pid, sizeof(pid), p);
	if (!p && !*flags)
		return 0; /* ebs's own place, as every process not noted */
	if (p && !memcmp(&p->id, &id, sizeof(id)))
		return 0;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		HASH_ADD(hh, t->procs, pid, sizeof(p->pid), p);
		if (!p->hh.tbl) {
			free(p);
			return -ENOMEM;
		}
	}
	p->id = id;
	p->flags = *flags;
	return write_procns(t, pid, time, &id, *flags);
}

/* fd (O_PATH) reopened for reading when it is a regular file; it is closed. */
static int reopen_regular(int fd)
{
	char path[64];
	struct stat st;
	int rd;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBS_ENOTREG;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	rd = rd < 0 ? -errno : rd;
	close(fd);
	return rd;
}

/* Send fd (or nothing, when it is < 0) over socket sock. */
static void send_fd(int sock, int fd)
{
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(ctl, 0, sizeof(ctl));
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		_exit(1);
}

/* The descriptor send_fd sent over sock, or -ENOENT. */
static int recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	int fd = -ENOENT;

	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) <= 0)
		return -ENOENT;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * name (absolute, as the process sees it) looked up through O_PATH by a
 * child that entered pid's mount namespace (setns) and made root, pid's
 * root directory, its own.  The descriptor or -errno.
 */
static int open_in_ns(u32 pid, int root, const char *name)
{
	char path[64];
	int sv[2], nsfd, fd, status;
	pid_t child;

	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return -errno;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		fd = -errno;
		close(nsfd);
		return fd;
	}
	child = fork();
	if (child == 0) {
		/* only async-signal-safe calls here: ebs may have other threads */
		int f = -1;

		close(sv[0]);
		if (setns(nsfd, CLONE_NEWNS) == 0 && fchdir(root) == 0 && chroot(".") == 0)
			f = open(name, O_PATH | O_CLOEXEC);
		send_fd(sv[1], f);
		_exit(0);
	}
	close(sv[1]);
	close(nsfd);
	fd = child < 0 ? -errno : recv_fd(sv[0]);
	close(sv[0]);
	if (child > 0)
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	return fd;
}

int ns_open_in_root(u32 pid, const char *name, unsigned int ways, const char **how)
{
	struct open_how oh = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char path[64];
	int root, fd = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%u/root", pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	*how = "/proc/PID/root";
	if (ways & NS_OPEN_ROOT) {
		fd = (int)syscall(SYS_openat2, root, name, &oh, sizeof(oh));
		fd = fd < 0 ? -errno : fd;
	}
	if ((fd == -ENOENT || fd == -ENOSYS) && (ways & NS_OPEN_SETNS)) {
		*how = "setns";
		fd = open_in_ns(pid, root, name);
	}
	close(root);
	return reopen_regular(fd);
}

/* The file of mapping m, of a process in another place: to on_mapping, once per build-id. */
static void keep_file(struct ns_tracker *t, const struct ebs_rec_mmap *m, u32 flags)
{
	u8 key[NS_KEY] = {0};
	struct ns_file *f;
	const char *how = "";
	char path[PATH_MAX + 64];
	struct stat in, out;
	int fd;

	key[0] = m->build_id_size;
	memcpy(key + 1, m->build_id, m->build_id_size);
	HASH_FIND(hh, t->files, key, sizeof(key), f);
	if (f && (f->kept || f->tries >= NS_MAX_TRIES))
		return;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return; /* tried again at its next mapping */
		memcpy(f->key, key, sizeof(key));
		HASH_ADD(hh, t->files, key, sizeof(f->key), f);
		if (!f->hh.tbl) {
			free(f);
			return;
		}
	}
	f->tries++;
	fd = ns_open_in_root(m->pid, m->filename,
			     (t->force_setns ? 0 : NS_OPEN_ROOT) |
				     (flags & EBS_PROCNS_MNT ? NS_OPEN_SETNS : 0),
			     &how);
	if (fd < 0)
		return; /* gone, or not a regular file: perhaps another mapping of it */
	/* the very file is at that path outside too (a shared mount): the report finds it there */
	if (fstat(fd, &in) == 0 && stat(m->filename, &out) == 0 && in.st_dev == out.st_dev &&
	    in.st_ino == out.st_ino) {
		f->kept = true;
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/root%s", m->pid, m->filename);
	f->kept = t->o->on_mapping(t->o->on_mapping_ctx, (pid_t)m->pid, path, fd, how, m->build_id,
				   m->build_id_size) >= 0;
	close(fd);
}

int ns_tracker__mmap(struct ns_tracker *t, const struct ebs_rec_mmap *m)
{
	u32 flags;
	int e;

	if (!t || (m->hdr.misc & EBS_CPUMODE_MASK) == EBS_CPUMODE_KERNEL || m->pid == 0 ||
	    m->pid == (u32)-1 || m->filename[0] != '/' || m->filename[1] == '/')
		return 0; /* the kernel's, or no file ("//anon") */
	e = note(t, m->pid, m->time, &flags);
	if (e || !flags || !t->o->on_mapping || !(m->hdr.misc & EBS_MMAP_BUILD_ID) ||
	    !m->build_id_size)
		return e;
	keep_file(t, m, flags);
	return 0;
}
