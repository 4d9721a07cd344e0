// SPDX-License-Identifier: MIT
/*
 * output.c - every file ebs writes: recordings, reports, pages, exports.
 *
 * ebs often runs as root, in directories other users can write (/tmp, a
 * shared project directory).  What another user put at an output's name
 * must not decide where root's bytes go: a symbolic link to a device or to
 * root's own files, a FIFO that streams a whole-system recording to its
 * maker, a file of theirs that root would replace.  So nothing here is
 * decided by path and then opened by path (stat-then-open races); the
 * directory is opened once and everything after is relative to it:
 *
 *  - the name is looked at through an O_PATH|O_NOFOLLOW descriptor, which
 *    opens nothing, whatever is there (a device's open can have effects);
 *  - in a directory others can write (ebs_dir_others_write), a symbolic
 *    link is not followed, and a FIFO, device or file owned by someone
 *    other than the caller or root is refused: one line naming the path
 *    and its owner;
 *  - elsewhere a link is followed as the caller's own (-o /dev/stdout);
 *  - a device or FIFO the rules allow is written in place, opened through
 *    the very inode that was looked at (/proc/self/fd/N of the O_PATH
 *    descriptor), never by its name again;
 *  - anything else is written into a new file beside the name,
 *    .BASE.tmp.XXXXXX, made with O_CREAT|O_EXCL|O_NOFOLLOW, and renamed over
 *    the name when whole, so the name never holds half a file.
 *
 * Recordings (EBS_OUT_KEEP_OLD) keep the file they replace as NAME.old,
 * and two ebs at once never lose one: commits into one directory take an
 * flock(2) on it, and a commit that finds the name holding another file
 * than the one it saw at the start (another recording saved meanwhile)
 * keeps its own under the next free NAME.N and says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define LOCK_WAIT_MS 10000 /* another ebs commits in milliseconds */
#define MAX_SIBLING  999   /* NAME.1 .. NAME.999 for a recording that lost the name */

static const char *type_name(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISLNK(m)  ? "a symbolic link"
	       : S_ISDIR(m)  ? "a directory"
			     : "a file";
}

/* One line for a name another user may have planted: errnum EPERM, output set. */
static int refuse(struct ebs_error *err, const char *path, const struct stat *st, const char *what)
{
	char who[300];

	ebs_user_name(st->st_uid, who, sizeof(who));
	ebs_error__set(err, EPERM,
		       "%s: not written: %s owned by %s, in a directory others can write%s; "
		       "remove it, or write elsewhere",
		       path, type_name(st->st_mode), who, what);
	if (err)
		err->output = true;
	return -EPERM;
}

/* Is st the caller's or root's? */
static bool mine(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* A file that the sticky bit keeps the caller from replacing: said before any work. */
static int sticky(struct ebs_error *err, const char *path, const struct stat *st)
{
	char who[300];

	ebs_user_name(st->st_uid, who, sizeof(who));
	ebs_error__set(err, EPERM,
		       "%s: not written: a file owned by %s, in a sticky directory, where only its "
		       "owner may replace it; write elsewhere",
		       path, who);
	if (err)
		err->output = true;
	return -EPERM;
}

static int fail(struct ebs_error *err, int errnum, const char *path, const char *what)
{
	return ebs_error__output(err, errnum, path, what);
}

/*
 * Open the directory dir (O_PATH) component by component: a symbolic link
 * met in a directory others can write is followed only when the caller or
 * root owns it (the rule of the kernel's fs.protected_symlinks, which is
 * not set everywhere), so that another user's link cannot choose where an
 * output goes.  A real directory is opened with O_NOFOLLOW, so no link can
 * be swapped in between the look and the open.  (Links inside a link's
 * target are the kernel's to resolve.)  The descriptor, or -errno with
 * *link the refused link's stat.
 */
static int walk_dir(const char *dir, struct stat *link, char *where, size_t where_len)
{
	char buf[PATH_MAX], *c, *save = NULL;
	struct stat parent;
	int fd, nfd, lfd, e;

	ebs_strlcpy(buf, dir, sizeof(buf));
	fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (c = strtok_r(buf, "/", &save); fd >= 0 && c; c = strtok_r(NULL, "/", &save)) {
		nfd = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOTDIR &&
		    (lfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			/* a link (or not a directory at all: the open below says so) */
			if (!fstat(lfd, link) && S_ISLNK(link->st_mode) && !fstat(fd, &parent) &&
			    ebs_dir_others_write(&parent) && link->st_uid != 0 &&
			    link->st_uid != geteuid()) {
				close(lfd);
				close(fd);
				snprintf(where, where_len, "%.*s", (int)(c - buf + strlen(c)), dir);
				return -ELOOP;
			}
			close(lfd);
			nfd = openat(fd, c, O_PATH | O_DIRECTORY | O_CLOEXEC);
		}
		e = -errno;
		close(fd);
		if (nfd < 0)
			return e;
		fd = nfd;
	}
	return fd < 0 ? -errno : fd;
}

/* Split path into its directory (opened O_PATH into o->dfd) and base name. */
static int open_dir(struct ebs_outfile *o, const char *path, struct ebs_error *err)
{
	char dir[PATH_MAX], where[PATH_MAX], who[300];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct stat link;
	size_t len;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return fail(err, EISDIR, path, "cannot write");
	/* the temporary name, .BASE.tmp.XXXXXX, must be a name too */
	if (strlen(base) + sizeof("..tmp.XXXXXX") - 1 > NAME_MAX)
		return fail(err, ENAMETOOLONG, path, "cannot write");
	ebs_strlcpy(o->base, base, sizeof(o->base));
	if (!slash) {
		strcpy(dir, ".");
	} else {
		len = slash == path ? 1 : (size_t)(slash - path);
		if (len >= sizeof(dir))
			return fail(err, ENAMETOOLONG, path, "cannot write");
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	o->dfd = walk_dir(dir, &link, where, sizeof(where));
	if (o->dfd == -ELOOP) {
		ebs_user_name(link.st_uid, who, sizeof(who));
		ebs_error__set(err, EPERM,
			       "%s: not written: %s is a symbolic link owned by %s, in a directory "
			       "others can write; ebs does not follow it",
			       path, where, who);
		if (err)
			err->output = true;
		return -EPERM;
	}
	if (o->dfd < 0)
		return fail(err, -o->dfd, path, "cannot write");
	return 0;
}

/* A new random name for the temporary file, .BASE.tmp.XXXXXX, into o->tmp. */
static void tmp_name(struct ebs_outfile *o, int tries)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	char x[7];
	int i;

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		u64 t = ebs_clock_ns() ^ ((u64)getpid() << 32) ^ (u64)tries;

		memcpy(rnd, &t, sizeof(rnd));
	}
	for (i = 0; i < 6; i++)
		x[i] = letters[rnd[i] % (sizeof(letters) - 1)];
	x[6] = '\0';
	snprintf(o->tmp, sizeof(o->tmp), ".%s.tmp.%s", o->base, x);
}

/*
 * With EBS_OUT_LOCK, the temporary file is locked (flock) before its name
 * appears: made unnamed (O_TMPFILE), locked, then linked in under a new
 * name, so that ebs record's scan for leftovers, which takes only the
 * files it can lock, never takes a running writer's.  Where O_TMPFILE or
 * /proc is missing: made by name, then locked; one taken for a leftover
 * and removed in between is replaced by another.  The descriptor, or
 * -errno.
 */
static int create_locked(struct ebs_outfile *o, unsigned int mode)
{
	char self[64];
	struct stat st;
	int tries, fd, e;

	fd = openat(o->dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
	if (fd >= 0) {
		flock(fd, LOCK_EX); /* no one else can reach it yet */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		for (tries = 0; tries < 100; tries++) {
			tmp_name(o, tries);
			if (!linkat(AT_FDCWD, self, o->dfd, o->tmp, AT_SYMLINK_FOLLOW))
				return fd;
			if (errno != EEXIST)
				break;
		}
		close(fd);
	}
	for (tries = 0; tries < 100; tries++) {
		tmp_name(o, tries);
		fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)mode);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			break;
		e = flock(fd, LOCK_EX | LOCK_NB) < 0 ? errno : 0;
		if ((e && e != EWOULDBLOCK) || (!e && !fstat(fd, &st) && st.st_nlink > 0))
			return fd; /* locked, or no locks on this file system */
		close(fd);
	}
	e = fd < 0 ? -errno : -EAGAIN;
	o->tmp[0] = '\0';
	return e;
}

/* The temporary file, .BASE.tmp.XXXXXX beside the name, new and ours. */
static int create_tmp(struct ebs_outfile *o, unsigned int mode)
{
	int tries, fd;

	if (o->flags & EBS_OUT_LOCK)
		return create_locked(o, mode);
	for (tries = 0; tries < 100; tries++) {
		tmp_name(o, tries);
		fd = openat(o->dfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	return -errno;
}

/*
 * Decide what the name holds (pfd: its O_PATH descriptor, st: what it is),
 * and open it in place or a temporary file beside it.
 */
static int open_name(struct ebs_outfile *o, const char *path, unsigned int mode,
		     const struct stat *dir, struct ebs_error *err)
{
	bool shared = ebs_dir_others_write(dir), follow = false;
	/* names the system made (/dev/null, /dev/stdout): only ever written in place */
	bool system = !shared && (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6));
	struct stat st;
	int pfd, fd;

	pfd = openat(o->dfd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 && errno != ENOENT)
		return fail(err, errno, path, "cannot write");
	if (pfd >= 0 && fstat(pfd, &st)) {
		close(pfd);
		return fail(err, errno, path, "cannot write");
	}
	if (pfd >= 0) {
		o->was_dev = st.st_dev;
		o->was_ino = st.st_ino;
	}
	o->shared = shared;
	if (pfd >= 0 && S_ISLNK(st.st_mode)) {
		close(pfd);
		if (shared && !mine(&st))
			return refuse(err, path, &st, "; ebs does not follow it");
		/*
		 * The caller's link, or root's, or the system's (/dev/stdout):
		 * followed, and what it leads to judged as if it were here.
		 */
		follow = true;
		pfd = openat(o->dfd, o->base, O_PATH | O_CLOEXEC);
		if (pfd < 0 && errno != ENOENT)
			return fail(err, errno, path, "cannot write");
		if (pfd >= 0 && fstat(pfd, &st)) {
			close(pfd);
			return fail(err, errno, path, "cannot write");
		}
		/* a link to a file (or to nothing) is replaced by the new file */
		if (pfd >= 0 && S_ISREG(st.st_mode) && !system) {
			close(pfd);
			pfd = -1;
		}
	}
	if (pfd < 0 && system)
		return fail(err, ENOENT, path, "cannot write");
	if (pfd >= 0 && S_ISREG(st.st_mode) && !system) {
		close(pfd);
		if (shared && !mine(&st))
			return refuse(err, path, &st, "");
		/* in a sticky directory only a file's owner (or the directory's) may replace it */
		if (!follow && (dir->st_mode & S_ISVTX) && geteuid() != 0 &&
		    st.st_uid != geteuid() && dir->st_uid != geteuid())
			return sticky(err, path, &st);
		pfd = -1;
	}
	if (pfd < 0) {
		fd = create_tmp(o, mode);
		if (fd < 0)
			return fail(err, -fd, path, "cannot write");
		o->fd = fd;
		return 0;
	}
	/* a device or FIFO (/dev/null, a named pipe), /dev/stdout: written in place */
	if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
		close(pfd);
		return fail(err, S_ISDIR(st.st_mode) ? EISDIR : ENXIO, path, "cannot write");
	}
	if (shared && !mine(&st)) {
		close(pfd);
		return refuse(err, path, &st, "");
	}
	/* the inode looked at, never the name again: blocks until a FIFO has a reader */
	fd = ebs_reopen(pfd, o->dfd, o->base, O_WRONLY | O_NOCTTY, !follow, &st);
	close(pfd);
	if (fd < 0)
		return fail(err, -fd == ESTALE ? EBUSY : -fd, path, "cannot write");
	o->fd = fd;
	o->in_place = true;
	return 0;
}

int ebs_outfile__open(struct ebs_outfile *o, const char *path, unsigned int mode,
		      unsigned int flags, struct ebs_error *err)
{
	struct stat dir;
	int e;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->flags = flags;
	o->dfd = -1;
	o->fd = -1;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		o->in_place = true;
		return 0;
	}
	if (!*path)
		return fail(err, ENOENT, path, "cannot write");
	e = open_dir(o, path, err);
	if (!e && fstat(o->dfd, &dir))
		e = fail(err, errno, path, "cannot write");
	if (!e)
		e = open_name(o, path, mode, &dir, err);
	if (e) {
		if (o->dfd >= 0)
			close(o->dfd);
		o->dfd = -1;
	}
	return e;
}

int ebs_outfile__tmp_path(const struct ebs_outfile *o, const char *name, char *buf, size_t len)
{
	const char *slash = strrchr(o->path, '/');
	int dir = slash ? (int)(slash - o->path + 1) : 0;

	if ((size_t)snprintf(buf, len, "%.*s%s", dir, o->path, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* fsync the directory, best effort: the rename is then durable. */
static void sync_dir(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * The directory's lock, for the commits of recordings: -1 when the file
 * system has no locks (go on without), -EWOULDBLOCK when another process
 * holds it past LOCK_WAIT_MS, else the descriptor that holds it.
 */
static int lock_dir(int dfd)
{
	struct timespec nap = {0, 20 * 1000 * 1000};
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), waited;

	if (fd < 0)
		return -1;
	for (waited = 0; flock(fd, LOCK_EX | LOCK_NB); waited += 20) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			close(fd);
			return -1;
		}
		if (waited >= LOCK_WAIT_MS) {
			close(fd);
			return -EWOULDBLOCK;
		}
		nanosleep(&nap, NULL);
	}
	return fd;
}

/*
 * A whole recording that cannot go under its name: kept under the first
 * free NAME.1, NAME.2... (never over a file, never under its temporary
 * name, which a later ebs record would take for a killed run's), said in
 * err after why ("PATH: WHY; this one is in NAME.1"), err->kept set.
 */
static int keep_beside(struct ebs_outfile *o, int errnum, const char *why, struct ebs_error *err)
{
	char name[NAME_MAX + 16], shown[PATH_MAX + 32];
	const char *kept = o->tmp; /* where it stays when no NAME.N can be had */
	int n;

	for (n = 1; n <= MAX_SIBLING; n++) {
		snprintf(name, sizeof(name), "%s.%d", o->base, n);
		if (strlen(name) > NAME_MAX)
			break;
		if (!renameat2(o->dfd, o->tmp, o->dfd, name, RENAME_NOREPLACE)) {
			kept = name;
			break;
		}
		if (errno != EEXIST)
			break;
	}
	ebs_outfile__tmp_path(o, kept, shown, sizeof(shown));
	ebs_error__set(err, errnum, "%s: %s; this one is in %s", o->path, why, shown);
	if (err) {
		err->output = true;
		err->kept = true;
	}
	o->tmp[0] = '\0'; /* kept: not to be removed */
	return -errnum;
}

/*
 * What the name holds now is not what it held at the start: another
 * recording saved meanwhile, or something another user put there.
 */
static int name_taken(struct ebs_outfile *o, const struct stat *now, struct ebs_error *err)
{
	char why[400], who[300];

	if (S_ISREG(now->st_mode) && now->st_uid == geteuid())
		return keep_beside(
			o, EEXIST,
			"another recording was saved under this name while this one ran, "
			"and is kept",
			err);
	ebs_user_name(now->st_uid, who, sizeof(who));
	snprintf(why, sizeof(why),
		 "%s owned by %s was put at this name while this recording ran: "
		 "not replaced",
		 type_name(now->st_mode), who);
	return keep_beside(o, EEXIST, why, err);
}

/*
 * Keep what the name holds as NAME.old: a hard link, so the name is never
 * missing.  Another user's NAME.old in a directory others can write is not
 * replaced: the recording is kept beside instead.
 */
static int keep_old(struct ebs_outfile *o, struct ebs_error *err)
{
	char old[NAME_MAX + 8], why[600], who[300];
	struct stat st;
	int e = 0;

	snprintf(old, sizeof(old), "%s.old", o->base);
	if (o->shared && !fstatat(o->dfd, old, &st, AT_SYMLINK_NOFOLLOW) && !mine(&st)) {
		ebs_user_name(st.st_uid, who, sizeof(who));
		snprintf(why, sizeof(why),
			 "cannot keep the old file as %s.old: %s owned by %s is "
			 "there, in a directory others can write",
			 o->path, type_name(st.st_mode), who);
		return keep_beside(o, EPERM, why, err);
	}
	if (unlinkat(o->dfd, old, 0) < 0 && errno != ENOENT)
		e = -errno;
	else if (linkat(o->dfd, o->base, o->dfd, old, 0) < 0)
		/* no hard links on this file system: the name moves to NAME.old first */
		e = renameat(o->dfd, o->base, o->dfd, old) < 0 ? -errno : 0;
	if (!e)
		return 0;
	snprintf(why, sizeof(why), "cannot keep the old file as %s.old: %s", o->path, strerror(-e));
	return keep_beside(o, -e, why, err);
}

static int commit_locked(struct ebs_outfile *o, struct ebs_error *err)
{
	struct stat now;
	bool there = fstatat(o->dfd, o->base, &now, AT_SYMLINK_NOFOLLOW) == 0;
	char why[300];
	int e;

	if (o->flags & EBS_OUT_KEEP_OLD) {
		if (there && (!o->was_ino || now.st_ino != o->was_ino || now.st_dev != o->was_dev))
			return name_taken(o, &now, err);
		if (there && (e = keep_old(o, err)))
			return e;
	}
	if (renameat(o->dfd, o->tmp, o->dfd, o->base) < 0) {
		e = -errno;
		snprintf(why, sizeof(why), "cannot rename it into place: %s", strerror(-e));
		if (o->flags & EBS_OUT_KEEP_OLD)
			return keep_beside(o, -e, why, err); /* a recording is never lost */
		return fail(err, -e, o->path, "cannot write");
	}
	o->tmp[0] = '\0';
	return 0;
}

int ebs_outfile__commit(struct ebs_outfile *o, struct ebs_error *err)
{
	char tmp[PATH_MAX + 16];
	int e = 0, lock = -1;

	if (o->fd >= 0 && o->fd != STDOUT_FILENO) {
		if (!o->in_place && fsync(o->fd) < 0)
			e = fail(err, errno, o->path, "write failed");
		if (close(o->fd) < 0 && !e && errno != EINTR)
			e = fail(err, errno, o->path, "write failed");
	}
	o->fd = -1;
	if (e && (o->flags & EBS_OUT_KEEP_OLD) && o->tmp[0]) {
		/* a recording is never removed: say where it is */
		size_t n = strlen(err ? err->msg : "");

		ebs_outfile__tmp_path(o, o->tmp, tmp, sizeof(tmp));
		if (err)
			snprintf(err->msg + n, sizeof(err->msg) - n, "; what was written is in %s",
				 tmp);
		o->tmp[0] = '\0';
	}
	if (!e && o->tmp[0] && (o->flags & EBS_OUT_KEEP_OLD)) {
		lock = lock_dir(o->dfd);
		if (lock == -EWOULDBLOCK)
			e = keep_beside(o, EWOULDBLOCK,
					"its directory stays locked (flock) by another process "
					"for over 10 s",
					err);
	}
	if (!e && o->tmp[0])
		e = commit_locked(o, err);
	if (lock >= 0)
		close(lock);
	if (o->dfd >= 0) {
		if (!e)
			sync_dir(o->dfd);
		ebs_outfile__abort(o);
	}
	return e;
}

void ebs_outfile__abort(struct ebs_outfile *o)
{
	if (!o)
		return;
	if (o->fd >= 0 && o->fd != STDOUT_FILENO)
		close(o->fd);
	o->fd = -1;
	if (o->dfd >= 0) {
		if (o->tmp[0])
			unlinkat(o->dfd, o->tmp, 0);
		close(o->dfd);
	}
	o->tmp[0] = '\0';
	o->dfd = -1;
}

int ebs_out_open(struct ebs_out *o, const char *path, FILE *dflt, struct ebs_error *err)
{
	int e;

	o->path = NULL;
	o->f = dflt;
	o->file.fd = -1;
	o->file.dfd = -1;
	if (!path || !strcmp(path, "-"))
		return 0;
	e = ebs_outfile__open(&o->file, path, 0644, 0, err);
	if (e)
		return e;
	o->f = fdopen(o->file.fd, "w");
	if (!o->f) {
		e = fail(err, errno, path, "cannot write");
		ebs_outfile__abort(&o->file);
		return e;
	}
	o->file.fd = -1; /* the stream's now */
	o->path = path;
	return 0;
}

int ebs_out_close(struct ebs_out *o, bool ok, struct ebs_error *err)
{
	int e = 0;

	if (!ok)
		err = NULL; /* the caller's own failure is the one to say */
	/* errno: the failed write's (ENOSPC, EFBIG) when flushing leaves nothing to say */
	if (fflush(o->f) || ferror(o->f) || (o->path && !o->file.in_place && fsync(fileno(o->f))))
		e = fail(err, errno ? errno : EIO, o->path ? o->path : "-", "write failed");
	if (!o->path)
		return e;
	errno = 0;
	if (fclose(o->f) && !e)
		e = fail(err, errno ? errno : EIO, o->path, "write failed");
	o->f = NULL;
	if (ok && !e)
		return ebs_outfile__commit(&o->file, err);
	ebs_outfile__abort(&o->file);
	return e;
}
