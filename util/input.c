// SPDX-License-Identifier: MIT
/*
 * input.c - opening a file ebs reads at a path someone else chose: a
 * recording's mappings, a binary's debug link, DWARF's source files, a
 * perf-PID.map in /tmp.  Any user who can write there may have put a
 * device, a FIFO or a socket at that path, or a link to a file of root's.
 *
 * Opening a device runs its driver (a watchdog arms on open, a tape
 * rewinds, a terminal becomes ours) and opening a FIFO unblocks its
 * writer, so nothing is opened for reading until its type is known: the
 * path is opened with O_PATH (which reaches no driver and no FIFO), that
 * descriptor is checked with fstat against the caller's rule, and only
 * then is that very inode opened for reading, through /proc/self/fd.
 * Where /proc is not mounted the path is opened again by name (with
 * O_NONBLOCK, and O_NOFOLLOW where links are refused), and a file that is
 * not the inode checked is refused; only there could a swap between the
 * two opens reach a FIFO.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/util.h"

/* "is a FIFO, not a regular file", or NULL for a regular file. */
/*
 * A reason, into the caller's buffer (which may be NULL), one line as
 * ebs_error__set's: the helpers below say why in a phrase that
 * ebs_open_input hands on in its struct ebs_error.
 */
__attribute__((format(printf, 3, 4))) static void ebs_set_why(char *why, size_t why_len,
							      const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_len)
		return;
	va_start(ap, fmt);
	ebs_vformat_line(why, why_len, fmt, ap);
	va_end(ap);
}

static const char *type_why(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return NULL;
	case S_IFDIR:
		return "is a directory, not a regular file";
	case S_IFCHR:
		return "is a character device, not a regular file";
	case S_IFBLK:
		return "is a block device, not a regular file";
	case S_IFIFO:
		return "is a FIFO, not a regular file";
	case S_IFSOCK:
		return "is a socket, not a regular file";
	case S_IFLNK:
		return "is a symbolic link in a directory others can write: not followed";
	default:
		return "is not a regular file";
	}
}

/*
 * File systems whose files hold no stored text: the kernel makes their
 * contents as they are read, from who reads them (/proc/self/maps,
 * /proc/kallsyms's addresses shown to root only) or from its live state.
 * A file there shows the reader's view, root's, not text any user wrote.
 * By statfs's f_type (linux/magic.h's numbers), which fstatfs gives of an
 * O_PATH descriptor since Linux 3.12.  File systems that store files
 * (disk, tmpfs, network, FUSE, overlay) are not listed: a source may be on
 * any of them.
 */
static const struct {
	u32 magic;
	const char *name;
} pseudo_fs[] = {
	{0x9fa0, "/proc"},	     /* PROC_SUPER_MAGIC */
	{0x62656572, "/sys"},	     /* SYSFS_MAGIC */
	{0x64626720, "debugfs"},     /* DEBUGFS_MAGIC */
	{0x74726163, "tracefs"},     /* TRACEFS_MAGIC */
	{0x73636673, "securityfs"},  /* SECURITYFS_MAGIC */
	{0x27e0eb, "cgroup"},	     /* CGROUP_SUPER_MAGIC */
	{0x63677270, "cgroup2"},     /* CGROUP2_SUPER_MAGIC */
	{0xcafe4a11, "bpf"},	     /* BPF_FS_MAGIC */
	{0x62656570, "configfs"},    /* CONFIGFS_MAGIC */
	{0xde5e81e4, "efivarfs"},    /* EFIVARFS_MAGIC */
	{0x6165676c, "pstore"},	     /* PSTOREFS_MAGIC */
	{0xf97cff8c, "selinuxfs"},   /* SELINUX_MAGIC */
	{0x43415d53, "smackfs"},     /* SMACK_MAGIC */
	{0x65735543, "fusectl"},     /* FUSECTL_SUPER_MAGIC */
	{0x42494e4d, "binfmt_misc"}, /* BINFMTFS_MAGIC */
	{0x7655821, "resctrl"},	     /* RDTGROUP_SUPER_MAGIC */
	{0x19800202, "mqueue"},	     /* MQUEUE_MAGIC */
	{0x6e667364, "nfsd"},	     /* NFSD_MAGIC */
	{0x67596969, "rpc_pipefs"},  /* RPCAUTH_GSSMAGIC */
	{0x6c6f6f70, "binder"},	     /* BINDERFS_SUPER_MAGIC */
	{0xabba1974, "xenfs"},	     /* XENFS_SUPER_MAGIC */
	{0x9fa2, "usbfs"},	     /* USBDEVICE_SUPER_MAGIC */
	{0x9fa1, "openpromfs"},	     /* OPENPROM_SUPER_MAGIC */
	{0x1cd1, "devpts"},	     /* DEVPTS_SUPER_MAGIC */
	{0x6e736673, "nsfs"},	     /* NSFS_MAGIC */
};

/*
 * EBS_IN_DISK: is the file at pfd on a file system that stores files?  0,
 * or -EBS_EPSEUDO with why said.
 */
static int on_disk(int pfd, char *why, size_t why_len)
{
	struct statfs sfs;
	size_t i;

	if (fstatfs(pfd, &sfs)) {
		ebs_set_why(why, why_len, "cannot tell which file system it is on: %s: not read",
			    strerror(errno));
		return -EBS_EPSEUDO;
	}
	for (i = 0; i < ARRAY_SIZE(pseudo_fs); i++)
		if ((u32)sfs.f_type == pseudo_fs[i].magic) {
			ebs_set_why(why, why_len,
				    "is on %s, whose contents depend on who reads them",
				    pseudo_fs[i].name);
			return -EBS_EPSEUDO;
		}
	return 0;
}

/* The groups of uid (its passwd entry's and those it is a member of). */
struct groups {
	gid_t v[256];
	int n; /* -1: not known (no passwd entry, or more than v holds) */
};

static void groups_of(uid_t uid, struct groups *g)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	g->n = -1;
	if (uid == (uid_t)-1 || getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) || !res)
		return;
	g->n = (int)ARRAY_SIZE(g->v);
	if (getgrouplist(res->pw_name, res->pw_gid, g->v, &g->n) < 0)
		g->n = -1;
}

/*
 * May uid do `what` (S_IROTH or S_IXOTH: read, search) to a file of this
 * mode and owners, by its permission bits: the owner's when uid owns it,
 * the group's when uid is in its group, else the others'.  Not knowing
 * uid's groups, both the group's and the others' must allow it.
 */
static bool class_allows(const struct stat *st, uid_t uid, const struct groups *g, mode_t what)
{
	bool in_group = false, known = g->n >= 0;
	int i;

	if (uid == 0)
		return true;
	if (st->st_uid == uid && uid != (uid_t)-1)
		return st->st_mode & (what << 6);
	for (i = 0; i < g->n; i++)
		in_group |= g->v[i] == st->st_gid;
	if (in_group)
		return st->st_mode & (what << 3);
	if (!known && !(st->st_mode & (what << 3)))
		return false;
	return st->st_mode & what;
}

/*
 * May uid (who: "the binary's owner, nobody (uid 65534)", "everyone")
 * search directory dir?  0, or -EBS_EUNTRUSTED with why said.
 */
static int dir_searchable(const char *dir, uid_t uid, const struct groups *g, const char *who,
			  char *why, size_t why_len)
{
	struct stat st;

	if (stat(dir, &st)) {
		ebs_set_why(why, why_len, "cannot tell whether %s may read it: %s: %s", who, dir,
			    strerror(errno));
		return -EBS_EUNTRUSTED;
	}
	if (class_allows(&st, uid, g, S_IXOTH))
		return 0;
	ebs_set_why(why, why_len, "may not be read by %s: directory %s is mode %04o", who, dir,
		    (unsigned int)(st.st_mode & 07777));
	return -EBS_EUNTRUSTED;
}

/*
 * Could uid, in groups g, read the file checked at pfd (named path), by
 * its mode and each directory above it?  0, or -EBS_EUNTRUSTED with why
 * said, naming uid as who.  The directories are those of the path pfd was
 * reached by, links resolved (/proc/self/fd's link, else realpath).
 */
static int uid_may_read(int pfd, const char *path, const struct stat *st, uid_t uid,
			const struct groups *g, const char *who, char *why, size_t why_len)
{
	char real[PATH_MAX], proc[64], *slash;
	ssize_t n;
	int e;

	if (!class_allows(st, uid, g, S_IROTH)) {
		ebs_set_why(why, why_len, "may not be read by %s: its mode is %04o", who,
			    (unsigned int)(st->st_mode & 07777));
		return -EBS_EUNTRUSTED;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n > 0 && real[0] == '/') {
		real[n] = '\0';
	} else if (!realpath(path, real)) {
		ebs_set_why(why, why_len, "cannot tell whether %s may read it: %s", who,
			    strerror(errno));
		return -EBS_EUNTRUSTED;
	}
	/* each directory from the root down: uid must be able to search it */
	for (slash = real; (slash = strchr(slash + 1, '/'));) {
		*slash = '\0';
		e = dir_searchable(real, uid, g, who, why, why_len);
		*slash = '/';
		if (e)
			return e;
	}
	return dir_searchable("/", uid, g, who, why, why_len);
}

/* uid_may_read for rule.owner, named "the binary's owner, nobody (uid 65534)". */
static int owner_may_read(int pfd, const char *path, const struct stat *st, uid_t uid,
			  const char *owner_is, char *why, size_t why_len)
{
	char name[128], who[256];
	struct groups g;

	groups_of(uid, &g);
	ebs_user_name(uid, name, sizeof(name));
	snprintf(who, sizeof(who), "%s, %s", owner_is, name);
	return uid_may_read(pfd, path, st, uid, &g, who, why, why_len);
}

static int everyone_may_read(int fd, const char *path, const struct stat *st, char *why,
			     size_t why_len)
{
	/* a user who owns neither it nor its directories, in none of their groups */
	const struct groups none = {.n = 0};

	if (!S_ISREG(st->st_mode)) {
		ebs_set_why(why, why_len, "%s", type_why(st->st_mode));
		return -EBS_ENOTREG;
	}
	return uid_may_read(fd, path, st, (uid_t)-1, &none, "everyone", why, why_len);
}

/* "a FIFO", "a file"...: what a file of this mode is, as messages name it. */
static const char *kind_of(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a file";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "a file of unknown type";
	}
}

/*
 * EBS_IN_NAMED's verdict on the inode st (reached through a symbolic link
 * of the caller's or root's when via_link): 0 or -errno with why said.
 */
static int judge_named(const struct stat *st, bool shared, bool via_link,
		       const struct ebs_input_rule *rule, char *why, size_t why_len)
{
	char name[128];

	if (S_ISDIR(st->st_mode)) {
		ebs_set_why(why, why_len, "is a directory");
		return -EISDIR;
	}
	if (shared && !(rule->flags & EBS_IN_FORCE) && st->st_uid != 0 && st->st_uid != geteuid()) {
		ebs_user_name(st->st_uid, name, sizeof(name));
		ebs_set_why(why, why_len,
			    "not read: %s%s owned by %s, in a directory others can write",
			    via_link ? "a symbolic link to " : "", kind_of(st->st_mode), name);
		return -EBS_EUNTRUSTED;
	}
	return 0;
}

/*
 * A symbolic link of the caller's or root's at an input's name in a
 * directory others can write (pfd, O_PATH|O_NOFOLLOW, in dfd): followed
 * by its own text, which no one else can change, rather than by name
 * again, which another user could have replaced meanwhile.  The O_PATH
 * descriptor of what it leads to, st filled; -errno with why said.
 */
static int follow_own_link(int pfd, int dfd, struct stat *st, char *why, size_t why_len)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(pfd, "", target, sizeof(target) - 1);
	int fd;

	if (n < 0 || n == (ssize_t)sizeof(target) - 1) {
		fd = n < 0 ? -errno : -ENAMETOOLONG;
		ebs_set_why(why, why_len, "%s", strerror(-fd));
		return fd;
	}
	target[n] = '\0';
	fd = openat(dfd, target, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st)) {
		n = -errno;
		ebs_set_why(why, why_len, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return (int)n;
	}
	return fd;
}

/* The rule's verdict on the inode at pfd (st): 0 or -errno with why said. */
static int judge(int pfd, const char *path, const struct stat *st, bool shared,
		 const struct ebs_input_rule *rule, char *why, size_t why_len)
{
	uid_t owner = rule ? rule->owner : (uid_t)-1;
	const char *owner_is = rule && rule->owner_is ? rule->owner_is : "its owner";
	const char *t = type_why(st->st_mode);
	char name[128], oname[128];

	if (t) {
		ebs_set_why(why, why_len, "%s", t);
		return S_ISDIR(st->st_mode)   ? -EISDIR
		       : S_ISLNK(st->st_mode) ? -ELOOP
					      : -EBS_ENOTREG;
	}
	if (rule && (rule->flags & EBS_IN_DISK) && on_disk(pfd, why, why_len))
		return -EBS_EPSEUDO;
	if (shared && st->st_uid != 0 && st->st_uid != geteuid() &&
	    (owner == (uid_t)-1 || st->st_uid != owner)) {
		ebs_user_name(st->st_uid, name, sizeof(name));
		ebs_set_why(why, why_len,
			    "is owned by %s in a directory others can write: not trusted", name);
		return -EBS_EUNTRUSTED;
	}
	if (!rule || !(rule->flags & EBS_IN_OWNER))
		return 0;
	if (st->st_uid != 0 && (owner == (uid_t)-1 || st->st_uid != owner)) {
		ebs_user_name(st->st_uid, name, sizeof(name));
		if (owner == (uid_t)-1) {
			ebs_set_why(why, why_len, "is owned by %s, not by root (%s is not known)",
				    name, owner_is);
		} else {
			ebs_user_name(owner, oname, sizeof(oname));
			ebs_set_why(why, why_len, "is owned by %s, not by root or %s, %s", name,
				    owner_is, oname);
		}
		return -EBS_EUNTRUSTED;
	}
	/* owner not known: as a user who owns nothing and is in no group known */
	return owner_may_read(pfd, path, st, owner, owner_is, why, why_len);
}

int ebs_reopen(int pfd, int dfd, const char *name, int flags, bool nofollow, const struct stat *st)
{
	char proc[64];
	struct stat now;
	int fd, fl, e;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, flags | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && access("/proc/self/fd", F_OK))
		fd = openat(dfd, name,
			    flags | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE;
	}
	/* what is read or written should wait like any other file */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static int open_input(const char *path, const struct ebs_input_rule *rule, struct stat *st,
		      char *why, size_t why_len)
{
	const char *name = path, *slash = strrchr(path, '/');
	bool named = rule && (rule->flags & EBS_IN_NAMED), shared = false, via_link = false;
	bool dir_matters =
		rule && ((rule->flags & EBS_IN_SHARED) || (named && !(rule->flags & EBS_IN_FORCE)));
	struct stat pst, dst;
	int dfd = AT_FDCWD, pfd, fd;

	/* the directory first, to know whether others may write into it */
	if (dir_matters && (!slash || slash[1])) {
		char dir[PATH_MAX];
		size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);

		if (len >= sizeof(dir)) {
			ebs_set_why(why, why_len, "%s", strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
		memcpy(dir, slash ? path : ".", slash ? len : 1);
		dir[slash ? len : 1] = '\0';
		name = slash ? slash + 1 : path;
		dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0 || fstat(dfd, &dst)) {
			fd = -errno;
			ebs_set_why(why, why_len, "%s", strerror(-fd));
			goto out_dir;
		}
		shared = ebs_dir_others_write(&dst);
	}
	/* O_PATH: neither a driver's open nor a FIFO's runs */
	pfd = openat(dfd, name, O_PATH | O_CLOEXEC | (shared ? O_NOFOLLOW : 0));
	if (pfd < 0) {
		fd = -errno;
		ebs_set_why(why, why_len, "%s", strerror(-fd));
		goto out_dir;
	}
	if (fstat(pfd, &pst)) {
		fd = -errno;
		ebs_set_why(why, why_len, "%s", strerror(-fd));
		goto out_pfd;
	}
	if (named && shared && S_ISLNK(pst.st_mode) &&
	    (pst.st_uid == 0 || pst.st_uid == geteuid())) {
		fd = follow_own_link(pfd, dfd, &pst, why, why_len);
		if (fd < 0)
			goto out_pfd;
		close(pfd);
		pfd = fd;
		via_link = true;
	}
	fd = named ? judge_named(&pst, shared, via_link, rule, why, why_len)
		   : judge(pfd, path, &pst, shared, rule, why, why_len);
	if (!fd) {
		/*
		 * O_NONBLOCK: were it not the regular file checked, no open
		 * would wait.  An input the user named may be a FIFO, whose
		 * open waits for its writer, as a reader's should.
		 */
		fd = ebs_reopen(pfd, dfd, name, O_RDONLY | (named ? 0 : O_NONBLOCK),
				shared && !via_link, &pst);
		if (fd == -ESTALE)
			ebs_set_why(why, why_len, "changed while it was being opened: not read");
		else if (fd < 0)
			ebs_set_why(why, why_len, "%s", strerror(-fd));
	}
out_pfd:
	close(pfd);
	if (fd >= 0 && st)
		*st = pst;
out_dir:
	if (dfd >= 0)
		close(dfd);
	if (fd < 0 && why && why_len)
		ebs_clean_text(why, false); /* it may hold a directory's name */
	return fd;
}

/*
 * The reasons above are phrases built in a buffer; they reach the caller
 * as its struct ebs_error, the code the row of the errno (EBS_E_UNTRUSTED,
 * EBS_E_NOT_REGULAR, EBS_E_PSEUDO, else EBS_E_ERRNO).
 */
int ebs_open_input(const char *path, const struct ebs_input_rule *rule, struct stat *st,
		   struct ebs_error *err)
{
	char why[sizeof(err->msg)] = "";
	int fd = open_input(path, rule, st, err ? why : NULL, sizeof(why));

	if (fd < 0)
		ebs_error__set(err, -fd, "%s", why);
	return fd;
}

int ebs_everyone_may_read(int fd, const char *path, const struct stat *st, struct ebs_error *err)
{
	char why[sizeof(err->msg)] = "";
	int e = everyone_may_read(fd, path, st, err ? why : NULL, sizeof(why));

	if (e < 0)
		ebs_error__set(err, -e, "%s", why);
	return e;
}

const char *ebs_read_strerror(int err)
{
	switch (err) {
	case -EBS_ENOTREG:
		return "not a regular file";
	case -EBS_EUNTRUSTED:
		return "not trusted: another user's file";
	case -EBS_EPSEUDO:
		return "on a kernel file system whose contents depend on who reads them";
	case -ELOOP:
		return "a symbolic link in a directory others can write: not followed";
	default:
		return strerror(-err);
	}
}

ssize_t ebs_read_fd(int fd, size_t max, size_t max_line, char **out, size_t *bad_line)
{
	size_t cap = 4096, len = 0, line_start = 0, lines = 1, i;
	char *buf = malloc(cap), *nbuf;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			size_t ncap = cap > max / 2 ? max + 2 : cap * 2;

			nbuf = ncap > cap ? realloc(buf, ncap) : NULL;
			if (!nbuf) {
				free(buf);
				return ncap > cap ? -ENOMEM : -EFBIG;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n;
		}
		if (n == 0)
			break;
		/* lines are checked as they come: /dev/zero is refused at once */
		for (i = len; max_line && i < len + (size_t)n; i++) {
			if (buf[i] == '\n') {
				line_start = i + 1;
				lines++;
			} else if (i - line_start + 1 >= max_line) {
				free(buf);
				if (bad_line)
					*bad_line = lines;
				return -E2BIG;
			}
		}
		len += (size_t)n;
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

ssize_t ebs_read_file_max(const char *path, size_t max, char **out)
{
	ssize_t n;
	int fd = ebs_open_input(path, NULL, NULL, NULL);

	if (fd < 0)
		return fd;
	n = ebs_read_fd(fd, max, 0, out, NULL);
	close(fd);
	return n;
}

ssize_t ebs_read_file(const char *path, char **out)
{
	return ebs_read_file_max(path, SIZE_MAX / 4, out);
}
