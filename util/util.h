/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers every module uses: the one-line error buffer,
 * bounded string copies, and file reading.  No global state.
 */
#ifndef EBS_UTIL_H
#define EBS_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "util/text.h"

typedef __u64 u64;
typedef __u32 u32;
typedef __u16 u16;
typedef __u8 u8;
typedef __s64 s64;
typedef __s32 s32;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN8(x)     (((x) + 7) & ~(size_t)7)

/*
 * One error, as the one line the user will see ("FILE: offset N: why").
 * Library functions that can fail for a reason worth naming take one and
 * return -errno; only main() prints it and exits.
 */
struct ebs_error {
	int err;     /* negative errno, 0 when nothing failed */
	bool output; /* an output file could not be created or written (the system's failure) */
	char msg[512];
};

/*
 * Format msg as one line (ebs_vformat_line: the names it holds cannot
 * break it or send an escape), set err = -errnum (errnum given positive);
 * return -errnum.
 */
int ebs_error__set(struct ebs_error *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * An output file that could not be created or written (errnum positive):
 * msg "PATH: WHAT: REASON" (path "-" is "standard output"), output set, so
 * that the command exits with 1 whatever errnum is.  Returns -errnum.
 */
int ebs_error__output(struct ebs_error *e, int errnum, const char *path, const char *what);

/* An output path as messages name it: "-" is "standard output". */
static inline const char *ebs_output_name(const char *path)
{
	return path[0] == '-' && !path[1] ? "standard output" : path;
}

/* Copy at most size-1 bytes and always terminate; return strlen(src). */
size_t ebs_strlcpy(char *dst, const char *src, size_t size);

/*
 * Read a whole regular file into a malloc'd NUL-terminated buffer.  The
 * open does not block (a FIFO is refused, not waited on); anything but a
 * regular file is -EBS_ENOTREG (-EISDIR for a directory); a file longer
 * than max bytes is -EFBIG.  Returns the length, or -errno.
 * ebs_read_file is for small /proc-like files, without a size bound;
 * ebs_read_strerror says why in one phrase.
 */
#define EBS_ENOTREG 4096
ssize_t ebs_read_file_max(const char *path, size_t max, char **out);
ssize_t ebs_read_file(const char *path, char **out);
const char *ebs_read_strerror(int err);

/*
 * In base[0..n), elements of size bytes sorted by the u64 at byte offset
 * key_off (offsetof(struct x, addr)), the number of elements whose key is
 * <= key: the index just after the last one at or before key, 0 when none
 * is.  The binary search every address lookup makes.
 */
size_t ebs_upper_bound(const void *base, size_t n, size_t size, size_t key_off, u64 key);

/* qsort's comparison of two u64. */
int ebs_u64_cmp(const void *a, const void *b);

/*
 * Room for one more element in a growing array *v of *cap elements of
 * size bytes, n of them used: doubles *cap (from min) when n == *cap.
 * 0, or -ENOMEM with *v and *cap unchanged.
 */
int ebs_grow(void **v, size_t *cap, size_t n, size_t size, size_t min);

/*
 * A set of strings, each kept once: equal strings, one pointer, so that
 * callers can compare names by pointer.  Start with a NULL set.
 * ebs_strset__intern returns the set's copy of s, NULL when out of memory;
 * the copies live until ebs_strset__free, which accepts an empty set.
 */
struct ebs_strset;
const char *ebs_strset__intern(struct ebs_strset **set, const char *s);
/*
 * ebs_strset__intern of s as it is shown: its control characters as '?'
 * (ebs_clean_text), s unchanged.  For names from outside (a recording's
 * command names, DWARF's) that are only ever printed and compared.
 */
const char *ebs_strset__intern_clean(struct ebs_strset **set, const char *s);
void ebs_strset__free(struct ebs_strset **set);

/*
 * Must an output file be written in place rather than into a temporary
 * file renamed over it at the end?  True for an existing device, FIFO or
 * socket, and for names under /dev and /proc (/dev/stdout names a link
 * that a rename would replace).
 */
bool ebs_path_in_place(const char *path);

/*
 * Output files are written beside their final name and renamed over it at
 * the end, so that the name never holds half a file.  ebs_tmp_prefix
 * gives the temporary names' common start for path, "DIR/.BASE.tmp.";
 * ebs_tmp_create creates one, DIR/.BASE.tmp.XXXXXX (its name into tmp),
 * close-on-exec, mode `mode` less the umask (0644 for what is shown or
 * shared, 0600 for recordings: they hold other processes' samples, stack
 * copies and kernel addresses, as perf's do), and returns its descriptor;
 * ebs_tmp_commit renames tmp over path and makes the rename durable (the
 * directory's fsync, best effort, as ebs_fsync_dir does after any rename
 * into path's directory).  -errno on failure; -ENAMETOOLONG when the name
 * does not fit in len bytes.
 */
int ebs_tmp_prefix(const char *path, char *out, size_t len);
int ebs_tmp_create(const char *path, char *tmp, size_t len, unsigned int mode);
int ebs_tmp_commit(const char *tmp, const char *path);
void ebs_fsync_dir(const char *path);

/*
 * A stream for an output file, written whole or not at all: a regular file
 * aside its name (ebs_tmp_create) and renamed over it when it is closed
 * with ok and every write went through; a device or FIFO
 * (ebs_path_in_place) in place; path NULL or "-": the stream dflt.
 * ebs_out_open: 0 or -errno.  ebs_out_close: flushes (and fsyncs a file
 * written aside), closes what it opened, commits or removes the file;
 * 0 or -errno (EIO when the stream's error flag is all there is).
 */
struct ebs_out {
	FILE *f;
	const char *path; /* NULL: f is the caller's stream */
	char tmp[4096];	  /* the name written aside; "" when in place */
};

int ebs_out_open(struct ebs_out *o, const char *path, FILE *dflt);
int ebs_out_close(struct ebs_out *o, bool ok);

/*
 * The hexadecimal digits at the start of s[0..len), without "0x": how many
 * were read, their value in *out.  0 when s does not start with a digit or
 * holds more than 16 of them (the value would not fit).
 */
size_t ebs_parse_hex(const char *s, size_t len, u64 *out);

/*
 * b[0..len) as lowercase hexadecimal digits (a build-id as paths and tools
 * spell it) into out, NUL-terminated, as many bytes as out_len holds.
 */
void ebs_format_hex(char *out, size_t out_len, const u8 *b, size_t len);

/*
 * A reason, for a caller's "why" buffer of why_len bytes, which may be
 * NULL: the libraries' way of saying why something was not read, without
 * an ebs_error's errno.  One line, as ebs_error__set's.
 */
void ebs_set_why(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * This process's vdso: its image in memory and the size of its mapping
 * (from /proc/self/maps); the same kernel maps the same vdso into every
 * process.  0, or -ENOENT when it has none (or the maps cannot be read).
 */
int ebs_own_vdso(const void **image, size_t *size);

/* Monotonic (the perf clock) and real-time clocks, in nanoseconds. */
u64 ebs_clock_ns(void);
u64 ebs_realtime_ns(void);

#endif /* EBS_UTIL_H */
