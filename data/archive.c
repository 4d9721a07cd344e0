// SPDX-License-Identifier: MIT
/*
 * archive.c - a recording and the files it needs in one file, to carry it
 * to another machine (ebs archive; docs/format.md section 10.4): a tar
 * compressed with zstd, written and read through libarchive, whose members
 * are
 *
 *   ebs.data                       the recording
 *   .build-id/xx/REST              a DSO with samples, by its build-id
 *   .build-id/xx/REST.debug        its separate debug file
 *
 * the layout of /usr/lib/debug, so that `tar --zstd -xf` of it gives a
 * directory the symbolizer searches as it searches the build-id cache.
 *
 * An archive read as a recording (data/open.c finds it by its magic) is
 * untrusted input: it is extracted into a new private directory ($TMPDIR,
 * mkdtemp: 0700), members written with openat(O_CREAT | O_EXCL |
 * O_NOFOLLOW) relative to it, only the names above (a leading "./"
 * allowed), each a regular file of bounded size that fits in the free
 * space.  A name that leaves the directory (absolute, a ".." part), a
 * link, a device, a FIFO, a member twice, a size past the bounds or a
 * damaged archive refuses the whole archive with one line naming it; the
 * directory is then removed, as it is when the recording is closed.  Other
 * names are left out, said in one notice.  The directory's name holds the
 * process's pid, so that one a killed command left behind is removed by a
 * later extraction, a day on.
 *
 * libarchive is loaded at the first archive read or written (dlopen,
 * util/dynlib.h), not linked: with its libxml2, ICU and libstdc++ it cost
 * every ebs start 12 ms.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "data/data.h"
#include "data/internal.h"
#include "util/dynlib.h"

#ifndef EBS_ARCHIVE_SONAME
#define EBS_ARCHIVE_SONAME ""
#endif

/* libarchive's entry points this file calls, as la.NAME */
#define LIBARCHIVE(X)                                                                              \
	X(archive_entry_filetype)                                                                  \
	X(archive_entry_free)                                                                      \
	X(archive_entry_hardlink)                                                                  \
	X(archive_entry_new)                                                                       \
	X(archive_entry_pathname)                                                                  \
	X(archive_entry_set_filetype)                                                              \
	X(archive_entry_set_mtime)                                                                 \
	X(archive_entry_set_pathname)                                                              \
	X(archive_entry_set_perm)                                                                  \
	X(archive_entry_set_size)                                                                  \
	X(archive_entry_size)                                                                      \
	X(archive_entry_size_is_set)                                                               \
	X(archive_entry_sparse_count)                                                              \
	X(archive_error_string)                                                                    \
	X(archive_read_data)                                                                       \
	X(archive_read_free)                                                                       \
	X(archive_read_new)                                                                        \
	X(archive_read_next_header)                                                                \
	X(archive_read_open_fd)                                                                    \
	X(archive_read_support_filter_zstd)                                                        \
	X(archive_read_support_format_tar)                                                         \
	X(archive_set_error)                                                                       \
	X(archive_write_add_filter_zstd)                                                           \
	X(archive_write_close)                                                                     \
	X(archive_write_data)                                                                      \
	X(archive_write_free)                                                                      \
	X(archive_write_header)                                                                    \
	X(archive_write_new)                                                                       \
	X(archive_write_open)                                                                      \
	X(archive_write_set_bytes_in_last_block)                                                   \
	X(archive_write_set_filter_option)                                                         \
	X(archive_write_set_format_pax_restricted)
#define LA_FIELD(f) __typeof__(f) *f;
#define LA_ENTRY(f) DYNLIB_ENTRY(struct libarchive, f)
static struct libarchive {
	LIBARCHIVE(LA_FIELD)
} la;
static const struct dynlib_entry la_entries[] = {LIBARCHIVE(LA_ENTRY)};
static int la_loaded = -ENOENT;
static char la_why[256];
static pthread_once_t la_once = PTHREAD_ONCE_INIT;

static void la_load(void)
{
	la_loaded = dynlib_load(EBS_ARCHIVE_SONAME[0] ? EBS_ARCHIVE_SONAME : "libarchive.so",
				la_entries, ARRAY_SIZE(la_entries), &la, la_why, sizeof(la_why));
}

/* libarchive loaded (once): 0, or -ENOENT with err naming name and why. */
static int libarchive(const char *name, struct ebs_error *err)
{
	pthread_once(&la_once, la_load);
	return la_loaded
		       ? ebs_error__set(err, ENOENT, "%s: cannot load libarchive: %s", name, la_why)
		       : 0;
}

/* The bounds of what an archive may hold: a DSO or debug file, and all of them */
#define MEMBER_MAX (16ull << 30)
#define TOTAL_MAX  (64ull << 30)
#define CHUNK	   (256u * 1024)

static const u8 zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};

bool archive__is(int fd, u64 size)
{
	u8 b[8];

	if (size < 8 || pread(fd, b, 8, 0) != 8)
		return false;
	if (!memcmp(b, zstd_magic, 4))
		return true;
	/* a plain tar: "ustar" at 257 (POSIX's "ustar\0", GNU's "ustar "), in no recording */
	return memcmp(b, EBS_DATA_MAGIC, sizeof(EBS_DATA_MAGIC)) && size >= 512 &&
	       pread(fd, b, 6, 257) == 6 && !memcmp(b, "ustar", 5) && (b[5] == '\0' || b[5] == ' ');
}

bool archive__stream_magic(const u8 *b, size_t len)
{
	return len >= 4 && !memcmp(b, zstd_magic, 4);
}

/* What libarchive says went wrong, for "PATH: WHAT" */
static const char *archive_why(struct archive *a)
{
	const char *why = la.archive_error_string(a);

	return why ? why : "failed";
}

/* ---- the names an archive may hold -------------------------------------- */

enum member_kind {
	MEMBER_OTHER,	/* anything else: left out, said once */
	MEMBER_DIR,	/* ".", ".build-id", ".build-id/xx": made by the extraction itself */
	MEMBER_DATA,	/* ebs.data */
	MEMBER_BUILDID, /* .build-id/xx/REST[.debug] */
	MEMBER_ESCAPE,	/* absolute, or a ".." part: the archive is refused */
};

static bool lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return n > 0;
}

/* Does name (a member's path) leave the directory it is extracted into? */
static bool escapes(const char *name)
{
	const char *p = name;

	if (name[0] == '/')
		return true;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		p += *p == '/';
	}
	return false;
}

/*
 * What name is, with *rel the part to create under the directory: a
 * leading "./" dropped, a trailing "/" for directories.  The build-id's
 * REST is 2 to 38 lower-case hex digits (a build-id of 2 to 20 bytes).
 */
static enum member_kind member_kind(const char *name, const char **rel)
{
	size_t len, rest;

	if (escapes(name))
		return MEMBER_ESCAPE;
	if (!strncmp(name, "./", 2))
		name += 2;
	*rel = name;
	len = strlen(name);
	if (len && name[len - 1] == '/')
		len--;
	if (len == 0 || (len == 1 && name[0] == '.'))
		return MEMBER_DIR;
	if (!strcmp(name, "ebs.data"))
		return MEMBER_DATA;
	if (strncmp(name, ".build-id", 9) || (len > 9 && name[9] != '/'))
		return MEMBER_OTHER;
	if (len == 9)
		return MEMBER_DIR;
	if (len < 12 || !lower_hex(name + 10, 2))
		return MEMBER_OTHER;
	if (len == 12)
		return MEMBER_DIR;
	if (name[12] != '/' || name[len] == '/')
		return MEMBER_OTHER;
	rest = len - 13;
	if (rest > 6 && !strcmp(name + len - 6, ".debug"))
		rest -= 6;
	return rest >= 2 && rest <= 38 && lower_hex(name + 13, rest) ? MEMBER_BUILDID
								     : MEMBER_OTHER;
}

/* ---- extraction ---------------------------------------------------------- */

struct extract {
	const char *name; /* the archive, for messages */
	struct archive *a;
	int root;    /* the private directory */
	int data_fd; /* ebs.data, open for reading and writing */
	u64 data_size, total;
	u64 others; /* members left out */
	char first_other[128];
	u8 *buf;
	struct ebs_error *err;
};

/* A directory under dfd, made if absent (0700); its descriptor, or -errno. */
static int subdir(int dfd, const char *name)
{
	if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	dfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return dfd < 0 ? -errno : dfd;
}

/* Write a member's size bytes from the archive into fd.  0 or -errno (err filled). */
static int copy_out(struct extract *x, const char *member, int fd, u64 size)
{
	u64 done = 0;

	for (;;) {
		la_ssize_t n = la.archive_read_data(x->a, x->buf, CHUNK);
		size_t w = 0;

		if (n < 0)
			return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
					       "%s: member %s: %s: not extracted", x->name, member,
					       archive_why(x->a));
		if (n == 0)
			break;
		if (done + (u64)n > size) /* libarchive stops at the size: never */
			return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
					       "%s: member %s: longer than its size: not extracted",
					       x->name, member);
		while (w < (size_t)n) {
			ssize_t r = write(fd, x->buf + w, (size_t)n - w);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return ebs_error__set(x->err, errno,
						      "%s: member %s: cannot extract it: %s",
						      x->name, member, strerror(errno));
			w += (size_t)r;
		}
		done += (u64)n;
	}
	if (done != size)
		return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
				       "%s: member %s: %llu bytes of %llu: not extracted", x->name,
				       member, (unsigned long long)done, (unsigned long long)size);
	return 0;
}

static const char *type_name(mode_t type)
{
	switch (type) {
	case AE_IFLNK:
		return "a symbolic link";
	case AE_IFCHR:
		return "a character device";
	case AE_IFBLK:
		return "a block device";
	case AE_IFIFO:
		return "a FIFO";
	case AE_IFSOCK:
		return "a socket";
	case AE_IFDIR:
		return "a directory";
	default:
		return "not a regular file";
	}
}

/* One member, its header read: extracted, left out, or the archive refused. */
static int extract_one(struct extract *x, struct archive_entry *ent)
{
	const char *name = la.archive_entry_pathname(ent), *rel = NULL, *base;
	mode_t type = la.archive_entry_filetype(ent);
	char shown[160], dir[16];
	enum member_kind kind;
	struct statvfs vfs;
	int dfd = -1, fd, e;
	u64 size;

	if (!name)
		return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
				       "%s: a member without a name: not extracted", x->name);
	ebs_strlcpy(shown, name, sizeof(shown));
	kind = member_kind(name, &rel);
	if (kind == MEMBER_ESCAPE)
		return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
				       "%s: member '%s' names a place outside the archive: not "
				       "extracted",
				       x->name, shown);
	if (la.archive_entry_hardlink(ent) || (type != AE_IFREG && type != AE_IFDIR))
		return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
				       "%s: member '%s' is %s: not extracted (an archive holds "
				       "regular files only)",
				       x->name, shown,
				       la.archive_entry_hardlink(ent) ? "a hard link"
								      : type_name(type));
	if (kind == MEMBER_DIR && type == AE_IFDIR)
		return 0; /* the extraction makes its own */
	if (kind == MEMBER_OTHER || kind == MEMBER_DIR || type == AE_IFDIR) {
		if (!x->others++)
			ebs_strlcpy(x->first_other, shown, sizeof(x->first_other));
		return 0;
	}
	if (la.archive_entry_sparse_count(ent) > 0)
		return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
				       "%s: member '%s' is a sparse file: not extracted", x->name,
				       shown);
	size = la.archive_entry_size_is_set(ent) && la.archive_entry_size(ent) >= 0
		       ? (u64)la.archive_entry_size(ent)
		       : UINT64_MAX;
	if (size > MEMBER_MAX || x->total + size > TOTAL_MAX)
		return ebs_error__fail(
			x->err, EBS_E_BAD_ARCHIVE,
			"%s: member '%s' of %llu bytes: more than ebs extracts (%llu GiB a "
			"member, %llu GiB in all): not extracted",
			x->name, shown, (unsigned long long)size,
			(unsigned long long)(MEMBER_MAX >> 30),
			(unsigned long long)(TOTAL_MAX >> 30));
	if (!fstatvfs(x->root, &vfs) && size > (u64)vfs.f_bavail * vfs.f_frsize)
		return ebs_error__set(x->err, ENOSPC,
				      "%s: member '%s' of %llu bytes: no room for it in the "
				      "temporary directory",
				      x->name, shown, (unsigned long long)size);
	x->total += size;
	base = rel;
	if (kind == MEMBER_BUILDID) {
		int bid = subdir(x->root, ".build-id");

		if (bid < 0)
			return ebs_error__set(x->err, -bid, "%s: cannot extract it: %s", x->name,
					      strerror(-bid));
		snprintf(dir, sizeof(dir), "%.2s", rel + 10);
		dfd = subdir(bid, dir);
		close(bid);
		if (dfd < 0)
			return ebs_error__set(x->err, -dfd, "%s: cannot extract it: %s", x->name,
					      strerror(-dfd));
		base = rel + 13;
	}
	fd = openat(dfd >= 0 ? dfd : x->root, base,
		    (kind == MEMBER_DATA ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC,
		    0600);
	e = errno;
	if (dfd >= 0)
		close(dfd);
	if (fd < 0 && e == EEXIST)
		return ebs_error__fail(x->err, EBS_E_BAD_ARCHIVE,
				       "%s: member '%s' twice: not extracted", x->name, shown);
	if (fd < 0)
		return ebs_error__set(x->err, e, "%s: member '%s': cannot extract it: %s", x->name,
				      shown, strerror(e));
	e = copy_out(x, shown, fd, size);
	if (!e && kind == MEMBER_DATA) {
		x->data_fd = fd;
		x->data_size = size;
		return 0;
	}
	close(fd);
	return e;
}

/* Remove dfd's entry name, a directory's tree below it too (depth: how far down). */
static void remove_at(int dfd, const char *name, int depth)
{
	struct dirent *de;
	DIR *dir;
	int fd;

	if (!unlinkat(dfd, name, 0) || errno != EISDIR || depth <= 0)
		goto out;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto out;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		goto out;
	}
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove_at(fd, de->d_name, depth - 1);
	closedir(dir);
out:
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void archive__remove(const char *dir)
{
	if (dir)
		remove_at(AT_FDCWD, dir, 3); /* DIR/.build-id/xx/REST */
}

/*
 * Leftovers of extractions whose command was killed (a signal leaves its
 * directory behind): TMP/ebs-archive.PID.XXXXXX, a directory of the
 * caller's, a day old, whose PID is no process.  Removed as
 * archive__remove removes one; nothing followed, nothing of another
 * user's touched.
 */
static void reap(const char *tmp)
{
	struct dirent *de;
	DIR *dir;
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		char *end;
		long pid;

		if (strncmp(de->d_name, "ebs-archive.", 12))
			continue;
		errno = 0;
		pid = strtol(de->d_name + 12, &end, 10);
		if (errno || end == de->d_name + 12 || *end != '.' || pid <= 0 || pid == getpid() ||
		    fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    time(NULL) - st.st_mtime < 24 * 3600)
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			remove_at(dirfd(dir), de->d_name, 3);
	}
	closedir(dir);
}

int archive__extract(int fd, const char *name, char **dir_out, int *data_fd, u64 *data_size,
		     char *notice, size_t notice_len, struct ebs_error *err)
{
	struct extract x = {.name = name, .root = -1, .data_fd = -1, .err = err};
	struct archive_entry *ent;
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL;
	int r, e = 0;

	notice[0] = '\0';
	e = libarchive(name, err);
	if (e)
		return e;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	reap(tmp);
	if (asprintf(&dir, "%s/ebs-archive.%d.XXXXXX", tmp, (int)getpid()) < 0)
		return ebs_error__set(err, ENOMEM, "%s: out of memory", name);
	if (!mkdtemp(dir)) {
		e = ebs_error__set(err, errno,
				   "%s: cannot make a directory to extract it in %s: %s", name, tmp,
				   strerror(errno));
		free(dir);
		return e;
	}
	x.root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	x.buf = malloc(CHUNK);
	x.a = la.archive_read_new();
	if (x.root < 0 || !x.buf || !x.a) {
		e = ebs_error__set(err, x.root < 0 ? errno : ENOMEM, "%s: cannot extract it: %s",
				   name, strerror(x.root < 0 ? errno : ENOMEM));
		goto out;
	}
	la.archive_read_support_filter_zstd(x.a);
	la.archive_read_support_format_tar(x.a);
	if (lseek(fd, 0, SEEK_SET) < 0 || la.archive_read_open_fd(x.a, fd, CHUNK) != ARCHIVE_OK) {
		e = ebs_error__fail(err, EBS_E_BAD_ARCHIVE, "%s: not a tar archive ebs reads: %s",
				    name, archive_why(x.a));
		goto out;
	}
	while (!e && (r = la.archive_read_next_header(x.a, &ent)) != ARCHIVE_EOF) {
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) { /* (WARN: a name not in this locale) */
			e = ebs_error__fail(err, EBS_E_BAD_ARCHIVE, "%s: %s: not extracted", name,
					    archive_why(x.a));
			break;
		}
		e = extract_one(&x, ent);
	}
	if (!e && x.data_fd < 0)
		e = ebs_error__fail(err, EBS_E_BAD_ARCHIVE,
				    "%s: an archive without an ebs.data member: not a recording's "
				    "(ebs archive writes one)",
				    name);
	if (!e && x.others)
		snprintf(notice, notice_len,
			 "%s: %llu member%s of the archive left out (%s%s): only ebs.data and "
			 ".build-id/xx/REST[.debug] are read",
			 name, (unsigned long long)x.others, x.others == 1 ? "" : "s",
			 x.first_other, x.others > 1 ? ", ..." : "");
out:
	if (x.a)
		la.archive_read_free(x.a);
	free(x.buf);
	if (x.root >= 0)
		close(x.root);
	if (e) {
		if (x.data_fd >= 0)
			close(x.data_fd);
		archive__remove(dir);
		free(dir);
		return e;
	}
	*dir_out = dir;
	*data_fd = x.data_fd;
	*data_size = x.data_size;
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* Copy size bytes of fd from offset 0 into the archive.  0, or -1 (the file's fault: *e). */
static int copy_in(struct archive *a, int fd, u64 size, u8 *buf, int *e)
{
	u64 done = 0;

	while (done < size) {
		size_t want = size - done < CHUNK ? (size_t)(size - done) : CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*e = n < 0 ? errno : ESTALE; /* shorter than it was: changed meanwhile */
			return -1;
		}
		if (la.archive_write_data(a, buf, (size_t)n) != n) {
			*e = 0;
			return -1;
		}
		done += (u64)n;
	}
	return 0;
}

/* Add one member, name, of size bytes of fd.  0 or -errno (err filled). */
static int add_member(struct archive *a, const char *out, const char *name, const char *path,
		      int fd, const struct stat *st, u8 *buf, struct ebs_error *err)
{
	struct archive_entry *ent = la.archive_entry_new();
	int e = 0;

	if (!ent)
		return ebs_error__set(err, ENOMEM, "%s: out of memory", out);
	la.archive_entry_set_pathname(ent, name);
	la.archive_entry_set_filetype(ent, AE_IFREG);
	la.archive_entry_set_perm(ent, 0600);
	la.archive_entry_set_size(ent, st->st_size);
	la.archive_entry_set_mtime(ent, st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	if (la.archive_write_header(a, ent) != ARCHIVE_OK ||
	    copy_in(a, fd, (u64)st->st_size, buf, &e)) {
		if (e)
			e = ebs_error__set(err, e, "%s: cannot read it for %s: %s", path, out,
					   e == ESTALE ? "it changed meanwhile" : strerror(e));
		else
			e = ebs_error__output(err, EIO, out, archive_why(a));
	}
	la.archive_entry_free(ent);
	return e;
}

/* libarchive's callbacks over the output's descriptor */
static la_ssize_t out_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	int fd = *(int *)ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const u8 *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			la.archive_set_error(a, errno, "%s", strerror(errno));
			return -1;
		}
		done += (size_t)n;
	}
	return (la_ssize_t)len;
}

int ebs_archive__write(struct ebs_data *d, const char *output, const struct ebs_archive_member *m,
		       size_t n, struct ebs_archive_stats *st, struct ebs_error *err)
{
	struct ebs_outfile of;
	struct archive *a = NULL;
	struct stat sb;
	u8 *buf = NULL;
	size_t i;
	u64 size;
	int fd = reader__fd(d, &size), e;

	memset(st, 0, sizeof(*st));
	e = libarchive(output, err);
	if (e)
		return e;
	e = ebs_outfile__open(&of, output, 0600, 0, err);
	if (e)
		return e;
	buf = malloc(CHUNK);
	a = la.archive_write_new();
	if (!buf || !a) {
		e = ebs_error__set(err, ENOMEM, "%s: out of memory", output);
		goto fail;
	}
	/* level 9: a third smaller than the default's 3 on binaries, at a few MB/s less */
	if (la.archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
	    la.archive_write_set_filter_option(a, "zstd", "compression-level", "9") != ARCHIVE_OK ||
	    la.archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    la.archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    la.archive_write_open(a, &of.fd, NULL, out_write, NULL) != ARCHIVE_OK) {
		e = ebs_error__output(err, EIO, output, archive_why(a));
		goto fail;
	}
	/* the recording as it is read: a perf.data's conversion, an archive's ebs.data */
	memset(&sb, 0, sizeof(sb));
	sb.st_size = (off_t)size;
	sb.st_mtim.tv_sec = (time_t)(ebs_data__header(d)->start_realtime_ns / 1000000000ull);
	e = add_member(a, output, "ebs.data", ebs_data__path(d), fd, &sb, buf, err);
	if (e)
		goto fail;
	st->files = 1;
	st->bytes = size;
	for (i = 0; i < n; i++) {
		int in = ebs_open_input(m[i].path, NULL, &sb, NULL);

		if (in < 0) {
			e = ebs_error__set(err, -in, "%s: cannot read it for %s: %s", m[i].path,
					   output, strerror(-in));
			goto fail;
		}
		if (m[i].ino && ((u64)sb.st_dev != m[i].dev || (u64)sb.st_ino != m[i].ino)) {
			close(in);
			e = ebs_error__set(err, ESTALE,
					   "%s: not the file read for the samples any more (it was "
					   "replaced meanwhile): not archived",
					   m[i].path);
			goto fail;
		}
		e = add_member(a, output, m[i].name, m[i].path, in, &sb, buf, err);
		close(in);
		if (e)
			goto fail;
		st->files++;
		st->bytes += (u64)sb.st_size;
	}
	if (la.archive_write_close(a) != ARCHIVE_OK) {
		e = ebs_error__output(err, EIO, output, archive_why(a));
		goto fail;
	}
	la.archive_write_free(a);
	free(buf);
	if (!of.in_place && !fstat(of.fd, &sb))
		st->out_bytes = (u64)sb.st_size;
	return ebs_outfile__commit(&of, err);

fail:
	if (a)
		la.archive_write_free(a);
	free(buf);
	ebs_outfile__abort(&of);
	return e;
}
