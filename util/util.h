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
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/types.h>

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

/* Format msg, set err = -errnum (errnum given positive); return -errnum. */
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
 * Text from files ebs did not write (symbol and file names, source lines)
 * could hold a newline or a terminal's escape sequences.  ebs_clean_text
 * replaces every control character in s by '?', in place: C0, DEL, C1
 * whether raw (a byte 0x80-0x9f outside a UTF-8 sequence: CSI on an 8-bit
 * terminal) or as UTF-8 (U+0080-U+009F); with source, tab and newline stay
 * and a carriage return becomes a space.  Returns s.  ebs_text_is_clean
 * says whether s holds none (source false).
 */
char *ebs_clean_text(char *s, bool source);
bool ebs_text_is_clean(const char *s);

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
void ebs_strset__free(struct ebs_strset **set);

/*
 * Output files (util/output.c): every file ebs writes, written whole or not
 * at all, and never through what another user put at its name.
 *
 * ebs_outfile__open looks at what path holds without opening it (O_PATH,
 * O_NOFOLLOW, relative to its directory, opened once).  In a directory
 * others can write (ebs_dir_others_write) a symbolic link, or a FIFO,
 * device or file owned by anyone but the caller and root, is refused:
 * -EPERM, one line naming the path and the owner.  A device or FIFO is
 * opened in place, as the inode looked at; "-" is standard output; any
 * other name gets a new file beside it (.BASE.tmp.XXXXXX, O_EXCL, mode
 * `mode` less the umask: 0644 for what is shown, 0600 for recordings),
 * which ebs_outfile__commit fsyncs and renames over the name (the
 * directory fsynced too).  With EBS_OUT_KEEP_OLD the commit keeps what the
 * name held as NAME.old, under an flock of the directory, and when the
 * name holds another file than at open (another recording saved
 * meanwhile) it replaces nothing: this file goes to the next free NAME.N,
 * -EEXIST, said in err.  Every failure fills err (output set: the command
 * exits with 1) and returns -errno; a commit that fails leaves what was
 * written under a name its message gives.  ebs_outfile__abort closes and
 * removes the temporary file; both accept an outfile already finished.
 * ebs_outfile__tmp_path: a name in path's directory as messages show it.
 */
#define EBS_OUT_KEEP_OLD 1u

struct ebs_outfile {
	const char *path; /* as given, for messages */
	int dfd;	  /* its directory (O_PATH); -1 for standard output */
	int fd;		  /* to write: the temporary file, or the name in place */
	bool in_place;	  /* a device, FIFO or standard output: nothing to rename */
	unsigned int flags;
	dev_t was_dev; /* what the name held at open; was_ino 0: nothing */
	ino_t was_ino;
	char base[NAME_MAX + 1];
	char tmp[NAME_MAX + 16]; /* the temporary file's name in dfd; "" when none */
};

int ebs_outfile__open(struct ebs_outfile *o, const char *path, unsigned int mode,
		      unsigned int flags, struct ebs_error *err);
int ebs_outfile__commit(struct ebs_outfile *o, struct ebs_error *err);
void ebs_outfile__abort(struct ebs_outfile *o);
int ebs_outfile__tmp_path(const struct ebs_outfile *o, const char *name, char *buf, size_t len);

/*
 * May someone other than the caller and root write into this directory
 * (group or others may, or another user owns it)?  Then what its names
 * hold may be that user's doing.
 */
bool ebs_dir_others_write(const struct stat *dir);

/*
 * The temporary names' common start for an output path, "DIR/.BASE.tmp."
 * (ebs record names a killed run's leftovers by it).  -ENAMETOOLONG when
 * it does not fit in len bytes.
 */
int ebs_tmp_prefix(const char *path, char *out, size_t len);

/*
 * A stream for an output file (ebs_outfile, mode 0644); path NULL or "-":
 * the stream dflt.  ebs_out_close flushes, and commits the file when ok
 * and every write went through, else removes it.  0 or -errno, err filled
 * ("PATH: write failed: REASON", EIO when the stream's error flag is all
 * there is).
 */
struct ebs_out {
	FILE *f;
	const char *path; /* NULL: f is the caller's stream */
	struct ebs_outfile file;
};

int ebs_out_open(struct ebs_out *o, const char *path, FILE *dflt, struct ebs_error *err);
int ebs_out_close(struct ebs_out *o, bool ok, struct ebs_error *err);

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
 * an ebs_error's errno.
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
