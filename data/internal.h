/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the reader's parts that open.c, the layer choosing the input
 * format, puts together.  Private to data/.
 */
#ifndef EBS_DATA_INTERNAL_H
#define EBS_DATA_INTERNAL_H

#include "data/data.h"

/* A reader of path, nothing read yet; NULL with err filled. */
struct ebs_data *reader__new(const char *path, unsigned int flags, struct ebs_error *err);
/* Open path as a user's input may be opened (util/input.c), a stream spooled. */
int reader__load(struct ebs_data *d, struct ebs_error *err);
/* The descriptor being read, its size in *size. */
int reader__fd(const struct ebs_data *d, u64 *size);
/*
 * Read fd (size bytes, owned from now on) instead; unfinished, when not
 * NULL, is what to say of where the original recording stopped.
 */
void reader__replace(struct ebs_data *d, int fd, u64 size, const char *unfinished);
/* Check the header, its records and the trailer; 0 or -errno with err filled. */
int reader__parse(struct ebs_data *d, struct ebs_error *err);
/* err: "FILE: offset OFF: WHAT", code code (EBS_E_NOT_EBS_DATA...); returns -EBADMSG. */
int reader__bad(struct ebs_data *d, struct ebs_error *err, enum ebs_code code, u64 off,
		const char *what);
/* An unlinked temporary file in $TMPDIR (else /tmp), or -errno; *dir: which. */
int reader__temp_fd(const char **dir);
/* n with a comma every three digits: "1,234,567". */
const char *reader__grouped(u64 n, char *buf, size_t size);

/*
 * Archives (archive.c).  archive__is: is fd (size bytes) one, by its magic
 * (zstd's, or a tar's "ustar" at 257)?  archive__stream_magic: do the
 * first len bytes of a stream start one (zstd's magic: a stream is copied
 * whole).  archive__extract: the archive fd (name for messages) into a
 * new private directory, *dir (malloc'd), its ebs.data open in *data_fd
 * (*data_size bytes); notice gets the line that says what was left out
 * ("" when nothing was).  0, or -errno with err filled and nothing left.
 * archive__remove: that directory and what was extracted into it.
 * reader__set_archive: d was read from an archive extracted into dir
 * (owned from now on: removed at ebs_data__close), with that notice.
 */
bool archive__is(int fd, u64 size);
bool archive__stream_magic(const u8 *b, size_t len);
int archive__extract(int fd, const char *name, char **dir, int *data_fd, u64 *data_size,
		     char *notice, size_t notice_len, struct ebs_error *err);
void archive__remove(const char *dir);
void reader__set_archive(struct ebs_data *d, char *dir, const char *notice);

#endif /* EBS_DATA_INTERNAL_H */
