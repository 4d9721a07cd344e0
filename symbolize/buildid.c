// SPDX-License-Identifier: MIT
/*
 * buildid.c - the build-id cache: a copy of each file a recording sampled,
 * kept by its build-id as ebs record ends (perf keeps ~/.debug so), so that
 * a report finds it when the file at the recorded path is gone or is
 * another build (docs/symbolize.md, "The build-id cache").
 *
 *   DIR/.build-id/xx/REST        the file (xx: the build-id's first two hex
 *                                digits, REST the others)
 *   DIR/.build-id/xx/REST.debug  its separate debug file, when it has one
 *
 * The layout of /usr/lib/debug: locate.c and debug.c read DIR as any other
 * build-id directory.  DIR is $XDG_CACHE_HOME/ebs/buildid (else
 * ~/.cache/ebs/buildid), beside the DWARF cache and under its rules
 * (cache.c: a directory of the caller's, 0700, that no one else may write;
 * entries written to a temporary file and renamed into place; the least
 * recently used evicted over the cap, EBS_BUILDID_CACHE_MAX).
 *
 * A file is kept only if the bytes copied carry the build-id the recording
 * has: the file at the recorded path may have been rebuilt since the
 * kernel mapped it, or be rebuilt while it is copied (then its size or
 * times change, and the copy is dropped).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "symbolize/internal.h"

#define COPY_CHUNK (1u << 20)

struct buildid_cache {
	struct sym_cache *c;
	struct symbolizer *s; /* where debug files are looked for; NULL until needed */
};

/*
 * 2 GiB: a program with libc, the loader and their debug files is some 10
 * MB, so a few hundred recordings' worth of rebuilt programs and upgraded
 * libraries; small beside a disk, and the cap keeps it so.
 */
static const struct sym_cache_kind buildid_kind = {
	.what = "build-id cache",
	.env = "EBS_BUILDID_CACHE_MAX",
	.max = 2ull << 30,
	.max_text = "2G",
	.sub = "/buildid",
	.hint = "ebs goes on without it; EBS_BUILDID_CACHE_MAX=0 goes without a word",
	.buildid = true,
};

struct buildid_cache *buildid_cache__new(const char *dir, ebs_warn_fn *warn, void *warn_ctx)
{
	struct buildid_cache *b = calloc(1, sizeof(*b));
	int e;

	if (!b)
		return NULL;
	/* libelf's expected version, before any file is read (as symbolizer__new) */
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(b);
		errno = ENOTSUP;
		return NULL;
	}
	b->c = sym_cache__new_kind(&buildid_kind, dir, warn, warn_ctx);
	if (!b->c) { /* errno 0: no cache */
		e = errno;
		free(b);
		errno = e;
		return NULL;
	}
	return b;
}

void buildid_cache__free(struct buildid_cache *b)
{
	if (!b)
		return;
	sym_cache__free(b->c);
	symbolizer__free(b->s);
	free(b);
}

const char *buildid_cache__dir(const struct buildid_cache *b)
{
	return sym_cache__dir(b->c);
}

int buildid_cache__readable(struct buildid_cache *b)
{
	return sym_cache__check(b->c);
}

/* Does the ELF file on fd have build-id id (and DWARF, when want_dwarf)? */
static bool has_id(int fd, const u8 *id, u8 id_size, bool want_dwarf)
{
	u8 got[20], got_size = 0;
	bool dwarf = false;

	return !elf_fd__debug_facts(fd, got, &got_size, &dwarf) && got_size == id_size &&
	       !memcmp(got, id, id_size) && (dwarf || !want_dwarf);
}

/* Is now (the file's fstat after the copy) another file, or the file changed, since st? */
static bool changed(const struct stat *st, const struct stat *now)
{
	return st->st_dev != now->st_dev || st->st_ino != now->st_ino ||
	       st->st_size != now->st_size || st->st_mtim.tv_sec != now->st_mtim.tv_sec ||
	       st->st_mtim.tv_nsec != now->st_mtim.tv_nsec ||
	       st->st_ctim.tv_sec != now->st_ctim.tv_sec ||
	       st->st_ctim.tv_nsec != now->st_ctim.tv_nsec;
}

/* The first len bytes of in into out (both at offset 0): 0 or -errno (-EIO: cut short). */
static int copy_bytes(int in, int out, u64 len)
{
	loff_t ioff = 0, ooff = 0;
	char *buf = NULL;
	ssize_t n;
	int e = 0;

	/* in the kernel (a reflink where the file system has them) */
	while ((u64)ioff < len) {
		n = copy_file_range(in, &ioff, out, &ooff, (size_t)(len - (u64)ioff), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
	}
	/* else (another file system on older kernels, /proc) by hand, from where it stopped */
	if ((u64)ioff < len && !(buf = malloc(COPY_CHUNK)))
		return -ENOMEM;
	while (!e && (u64)ioff < len) {
		size_t want = len - (u64)ioff < COPY_CHUNK ? (size_t)(len - (u64)ioff) : COPY_CHUNK;

		n = pread(in, buf, want, ioff);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? -errno : -EIO;
		} else if (pwrite(out, buf, (size_t)n, ooff) != n) {
			e = errno ? -errno : -EIO;
		} else {
			ioff += n;
			ooff += n;
		}
	}
	free(buf);
	return e;
}

/*
 * Keep the file open on in (st its fstat, path for messages) as name in the
 * directory dfd, if the bytes copied have build-id id (and DWARF when
 * want_dwarf).  The bytes added; 0 when an entry of the caller's with that
 * build-id is there already (refreshed: eviction goes by its mtime); or
 * -errno with err filled.  An entry that is not one (another build-id,
 * garbage, a symbolic link) is replaced.
 */
static s64 keep(struct buildid_cache *b, int dfd, const char *name, int in, const struct stat *st,
		const char *path, const u8 *id, u8 id_size, bool want_dwarf, struct ebs_error *err)
{
	char tmp[NAME_MAX + 1];
	struct stat now;
	int fd, e;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		bool there = !fstat(fd, &now) && S_ISREG(now.st_mode) && now.st_uid == geteuid() &&
			     has_id(fd, id, id_size, want_dwarf);

		if (there)
			sym_cache__used(fd);
		close(fd);
		if (there)
			return 0;
	}
	fd = sym_cache__create_at(b->c, dfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return ebs_error__set(err, -fd, "%s: not kept in the build-id cache %s: %s", path,
				      sym_cache__dir(b->c), strerror(-fd));
	e = copy_bytes(in, fd, (u64)st->st_size);
	if (e) {
		ebs_error__set(err, -e, "%s: not kept in the build-id cache: %s", path,
			       e == -EIO ? "cut short while it was copied" : strerror(-e));
	} else if (fstat(in, &now) || changed(st, &now)) {
		e = ebs_error__set(
			err, EAGAIN,
			"%s: not kept in the build-id cache: it changed while it was copied", path);
	} else if (!has_id(fd, id, id_size, want_dwarf)) {
		/* the bytes read are not those checked: never kept */
		e = ebs_error__fail(err, EBS_E_NO_BUILD_ID_MATCH,
				    "%s: not kept in the build-id cache: the bytes copied are "
				    "not the file recorded",
				    path);
	}
	if (e) {
		sym_cache__abort_at(b->c, dfd, fd, tmp, 0);
		return e;
	}
	e = sym_cache__commit_at(b->c, dfd, fd, tmp, name);
	if (e == -EFBIG)
		return ebs_error__set(err, EFBIG,
				      "%s: not kept in the build-id cache: its %llu bytes are over "
				      "the cache's size (EBS_BUILDID_CACHE_MAX)",
				      path, (unsigned long long)st->st_size);
	if (e)
		return ebs_error__set(err, -e, "%s: not kept in the build-id cache %s: %s", path,
				      sym_cache__dir(b->c), strerror(-e));
	return (s64)st->st_size;
}

/*
 * The symbolizer whose debug directories are searched for path's debug
 * file: b's (/usr/lib/debug), or for a file under /proc/PID/root, a new one
 * (*own, the caller's to free) that looks under that root first.  NULL:
 * out of memory.
 */
static struct symbolizer *debug_searcher(struct buildid_cache *b, const char *path,
					 struct symbolizer **own)
{
	/* offline: record keeps what is here, it does not ask debuginfod servers */
	struct symbolize_opts so = {.offline = true};
	char root[64];
	size_t n;

	*own = NULL;
	n = strncmp(path, "/proc/", 6) ? 0 : strspn(path + 6, "0123456789");
	if (n && n < 20 && !strncmp(path + 6 + n, "/root/", 6)) {
		snprintf(root, sizeof(root), "%.*s", (int)(6 + n + 5), path);
		so.symfs = root;
		return *own = symbolizer__new(&so);
	}
	if (!b->s)
		b->s = symbolizer__new(&so);
	return b->s;
}

/*
 * The separate debug file of d (the file at path, whose facts d holds) as
 * name in dfd, when one is found with build-id id: the bytes added (0:
 * none, or there already), or -errno with err filled.
 */
static s64 keep_debug(struct buildid_cache *b, int dfd, const char *name, struct dso *d,
		      const char *path, const u8 *id, u8 id_size, struct ebs_error *err)
{
	const struct ebs_input_rule shared = {.flags = EBS_IN_SHARED, .owner = (uid_t)-1};
	struct symbolizer *own, *s = debug_searcher(b, path, &own);
	struct ebs_error e;
	struct stat st;
	s64 n = 0;
	int fd, r;

	if (!s)
		return ebs_error__fail(err, EBS_E_NOMEM, "%s: out of memory", path);
	d->path = (char *)path;
	r = dso__find_debug(s, d);
	d->path = NULL;
	symbolizer__free(own);
	free(d->looked);
	d->looked = NULL;
	if (r) {
		free(d->debug_path);
		return ebs_error__fail(err, EBS_E_NOMEM, "%s: out of memory", path);
	}
	/* a report looks for REST.debug by build-id: one found by its CRC alone would not do */
	if (d->debug_path && d->debug_build_id_size == id_size &&
	    !memcmp(d->debug_build_id, id, id_size)) {
		fd = ebs_open_input(d->debug_path, &shared, &st, &e);
		n = fd < 0 ? 0 : keep(b, dfd, name, fd, &st, d->debug_path, id, id_size, true, err);
		if (fd >= 0)
			close(fd);
	}
	free(d->debug_path);
	d->debug_path = NULL;
	return n;
}

s64 buildid_cache__add(struct buildid_cache *b, const char *path, const u8 *id, u8 id_size,
		       struct ebs_error *err)
{
	const struct ebs_input_rule shared = {.flags = EBS_IN_SHARED, .owner = (uid_t)-1};
	char hex[41], want[41], got[41], dbg[48];
	struct ebs_error e;
	struct dso *d = NULL;
	struct stat st;
	int in, dfd = -1, r;
	s64 added = 0, n;

	ebs_error__clear(err);
	if (id_size < 2 || id_size > 20)
		return ebs_error__set(err, EINVAL, "%s: a build-id of %u bytes: not kept", path,
				      (unsigned int)id_size);
	ebs_format_hex(hex, sizeof(hex), id, id_size);
	in = ebs_open_input(path, &shared, &st, &e);
	if (in < 0)
		return ebs_error__set(err, -in, "%s: %s", path, e.msg);
	d = calloc(1, sizeof(*d));
	if (!d) {
		added = ebs_error__fail(err, EBS_E_NOMEM, "%s: out of memory", path);
		goto out;
	}
	r = dso__read_facts(d, in);
	if (r) {
		added = r == -ENOMEM
				? ebs_error__fail(err, EBS_E_NOMEM, "%s: out of memory", path)
				: ebs_error__fail(err, EBS_E_NOT_ELF, "%s: not an ELF file", path);
		goto out;
	}
	if (d->build_id_size != id_size || memcmp(d->build_id, id, id_size)) {
		ebs_format_hex(want, sizeof(want), id, id_size);
		ebs_format_hex(got, sizeof(got), d->build_id, d->build_id_size);
		if (d->build_id_size)
			added = ebs_error__fail(
				err, EBS_E_NO_BUILD_ID_MATCH,
				"%s: not the file recorded (build-id %s differs from "
				"the recorded %s): not kept",
				path, got, want);
		else
			added = ebs_error__fail(
				err, EBS_E_NO_BUILD_ID_MATCH,
				"%s: not the file recorded (no build-id, the recorded "
				"file had %s): not kept",
				path, want);
		goto out;
	}
	{
		char xx[3] = {hex[0], hex[1], '\0'};

		dfd = sym_cache__subdir(b->c, xx, true);
	}
	if (dfd < 0) {
		added = ebs_error__set(err, -dfd,
				       "%s: not kept: the build-id cache %s cannot be used", path,
				       sym_cache__dir(b->c));
		goto out;
	}
	added = keep(b, dfd, hex + 2, in, &st, path, id, id_size, false, err);
	if (added < 0)
		goto out;
	/* a file with DWARF of its own needs no other; a debug file that fails is no failure */
	if (!d->has_dwarf) {
		struct ebs_error derr;

		snprintf(dbg, sizeof(dbg), "%s.debug", hex + 2);
		n = keep_debug(b, dfd, dbg, d, path, id, id_size, &derr);
		if (n > 0)
			added += n;
	}
	if (added > 0)
		sym_cache__evict(b->c);
out:
	if (dfd >= 0)
		close(dfd);
	free(d);
	close(in);
	return added;
}
