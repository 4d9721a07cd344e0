// SPDX-License-Identifier: MIT
/*
 * open.c - a recording opened whatever its format: the choice of format
 * sits above the reader and the writer, which know nothing of each other.
 *
 * An ebs.data file is read in place (reader.c).  A perf.data file (its
 * magic) is converted by perfdata.c through the writer into an unlinked
 * temporary file, which the reader then reads in its place; the offsets of
 * errors found while converting are the perf.data file's.  ebs convert
 * writes the conversion under a name instead.  An archive (ebs archive's:
 * tar + zstd, by its magic) is extracted into a private directory first
 * (archive.c), and its ebs.data read in its place.  ebs calibrate's update of a
 * CALIBRATION record reads the file to find the record, then patches it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/data.h"
#include "data/internal.h"
#include "data/perfdata.h"

/* Is the input a perf.data file (its magic, in any byte order or version)? */
static bool is_perf_data(struct ebs_data *d)
{
	u8 magic[8];
	u64 size;
	int fd = reader__fd(d, &size);

	return size >= 8 && pread(fd, magic, 8, 0) == 8 &&
	       perf_data__magic(magic) != PERF_MAGIC_NONE;
}

/*
 * Convert the perf.data file d->fd into w (data/perfdata.c).  0 or -errno
 * with err filled; w finished (its size in *size) or aborted either way.
 */
static int convert_perf(struct ebs_data *d, struct perf_convert *pc, struct ebs_writer *w,
			u64 *size, struct ebs_error *err)
{
	int e;

	pc->fd = reader__fd(d, &pc->size);
	pc->path = ebs_data__path(d);
	if (!pc->out_name)
		pc->out_name = pc->path;
	e = perf_data__convert(pc, w, err);
	if (e) {
		ebs_writer__abort(w);
		return e;
	}
	return ebs_writer__finish(w, -1, size, err);
}

/*
 * Make the conversion fd (*size bytes) of a perf.data that did not finish
 * what it stands for, an unfinished recording: its trailer cut off, the
 * header's data size and trailer offset 0.  0 or -errno.
 */
static int unfinish(int fd, u64 *size)
{
	struct ebs_file_header h;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.trailer_offset > *size)
		return -EIO;
	if (ftruncate(fd, (off_t)h.trailer_offset) < 0)
		return -errno;
	*size = h.trailer_offset;
	h.data_size = 0;
	h.trailer_offset = 0;
	return pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) ? 0 : -EIO;
}

/*
 * A perf.data file: converted into an unlinked temporary file, which is
 * read in its place; the offsets of errors found while converting are the
 * perf.data file's.
 */
static int open_perf(struct ebs_data *d, unsigned int flags, struct ebs_error *err)
{
	struct perf_convert pc = {.unfinished_ok = flags & EBS_DATA_UNFINISHED};
	char name[PATH_MAX + 64], n[32], note[384];
	struct ebs_writer *w;
	const char *dir;
	u64 size;
	int fd = reader__temp_fd(&dir), e;

	if (fd < 0)
		return ebs_error__set(err, -fd,
				      "%s: cannot convert it into a temporary file in %s: %s",
				      ebs_data__path(d), dir, strerror(-fd));
	snprintf(name, sizeof(name), "%s (converted in %s)", ebs_data__path(d), dir);
	pc.out_name = name;
	w = ebs_writer__create_fd(fd, name, err);
	e = w ? convert_perf(d, &pc, w, &size, err) : err->err;
	if (e) {
		close(fd);
		return e;
	}
	if (pc.unfinished) {
		e = unfinish(fd, &size);
		if (e) {
			close(fd);
			return ebs_error__set(err, -e, "%s: %s", name, strerror(-e));
		}
	}
	if (pc.unfinished)
		ebs_format_line(note, sizeof(note),
				"%s: recording did not finish: %s samples up to offset %llu%s",
				ebs_data__path(d), reader__grouped(pc.samples, n, sizeof(n)),
				(unsigned long long)pc.data_end,
				pc.left_out ? " (an incomplete record after it left out)" : "");
	reader__replace(d, fd, size, pc.unfinished ? note : NULL);
	return 0;
}
/*
 * An archive (ebs archive's, data/archive.c): extracted into a private
 * directory, its ebs.data read in its place (a perf.data one converted in
 * turn); errors in it name the archive, at offsets of its ebs.data.
 */
static int open_archive(struct ebs_data *d, struct ebs_error *err)
{
	char notice[384], *dir;
	u64 size;
	int fd = reader__fd(d, &size), data_fd, e;

	e = archive__extract(fd, ebs_data__path(d), &dir, &data_fd, &size, notice, sizeof(notice),
			     err);
	if (e)
		return e;
	reader__replace(d, data_fd, size, NULL);
	reader__set_archive(d, dir, notice);
	return 0;
}

struct ebs_data *ebs_data__open_flags(const char *path, unsigned int flags, struct ebs_error *err)
{
	struct ebs_data *d = reader__new(path, flags, err);
	u64 size = 0;
	int fd, e;

	if (!d)
		return NULL;
	e = reader__load(d, err);
	fd = e ? -1 : reader__fd(d, &size);
	if (fd >= 0 && archive__is(fd, size))
		e = open_archive(d, err);
	if (!e && is_perf_data(d))
		e = open_perf(d, flags, err);
	if (!e)
		e = reader__parse(d, err);
	if (e) {
		ebs_data__close(d);
		return NULL;
	}
	return d;
}

bool ebs_data__looks_perf(const char *path)
{
	struct stat st;
	u8 magic[8];
	bool yes;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	yes = pread(fd, magic, 8, 0) == 8 && perf_data__magic(magic) != PERF_MAGIC_NONE;
	close(fd);
	return yes;
}

struct ebs_data *ebs_data__open(const char *path, struct ebs_error *err)
{
	return ebs_data__open_flags(path, 0, err);
}

int ebs_data__convert(const char *input, const char *output, unsigned int flags,
		      struct ebs_convert_stats *st, struct ebs_error *err)
{
	struct ebs_data *d;
	struct perf_convert pc = {0};
	struct ebs_writer *w;
	u8 magic[8];
	u64 size;
	int fd, e;

	memset(st, 0, sizeof(*st));
	d = reader__new(input, flags & EBS_DATA_ANY_OWNER, err);
	if (!d)
		return err->err;
	e = reader__load(d, err);
	if (e)
		goto out;
	fd = reader__fd(d, &size);
	st->in_bytes = size;
	if (size >= 8 && pread(fd, magic, 8, 0) == 8 &&
	    !memcmp(magic, EBS_DATA_MAGIC, sizeof(EBS_DATA_MAGIC))) {
		e = ebs_error__set(err, EINVAL,
				   "%s: an ebs.data file already: ebs reads it as it is", input);
		goto out;
	}
	if (!is_perf_data(d)) {
		e = reader__bad(d, err, EBS_E_NOT_EBS_DATA, 0, "not a perf.data file (bad magic)");
		goto out;
	}
	pc.out_name = ebs_output_name(output);
	w = ebs_writer__create(output, err);
	if (!w) {
		st->output_failed = true;
		e = err->err;
		goto out;
	}
	e = convert_perf(d, &pc, w, &st->out_bytes, err);
	/* read whole, or failed in writing: the output's failure */
	st->output_failed = e && (pc.out_failed || pc.converted);
	st->samples = pc.samples;
	st->pipe = pc.pipe;
out:
	ebs_data__close(d);
	return e;
}

int ebs_data__set_calibration(const char *path, const struct ebs_rec_calibration *c,
			      struct ebs_error *err)
{
	const struct ebs_rec_calibration *old;
	struct ebs_data *d = ebs_data__open(path, err);
	u64 off;
	int fd, e = 0;

	if (!d)
		return err->err;
	old = ebs_data__calibration(d, c->event);
	off = old ? ebs_data__offset(d, old) : 0;
	ebs_data__close(d);
	if (!old)
		return ebs_error__set(err, ENOENT, "%s: no CALIBRATION record of event %u", path,
				      c->event);
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return ebs_error__set(err, errno, "%s: %s", path, strerror(errno));
	/* the body only: the record header stays as written */
	if (pwrite(fd, (const char *)c + sizeof(c->hdr), sizeof(*c) - sizeof(c->hdr),
		   (off_t)(off + sizeof(c->hdr))) != (ssize_t)(sizeof(*c) - sizeof(c->hdr)) ||
	    fsync(fd) < 0)
		e = ebs_error__set(err, errno ? errno : EIO, "%s: cannot update: %s", path,
				   strerror(errno ? errno : EIO));
	close(fd);
	return e;
}
