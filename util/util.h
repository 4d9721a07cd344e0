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

#include "util/error.h"
#include "util/text.h"

typedef __u64 u64;
typedef __u32 u32;
typedef __u16 u16;
typedef __u8 u8;
typedef __s64 s64;
typedef __s32 s32;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN8(x)     (((x) + 7) & ~(size_t)7)

/* An output path as messages name it: "-" is "standard output". */
static inline const char *ebs_output_name(const char *path)
{
	return path[0] == '-' && !path[1] ? "standard output" : path;
}

/* Copy at most size-1 bytes and always terminate; return strlen(src). */
size_t ebs_strlcpy(char *dst, const char *src, size_t size) __attribute__((nonnull(2)));

/*
 * Opening a file at a path someone else may have chosen (util/input.c): a
 * recording's mapped files, a binary's debug files, the source files its
 * DWARF names, a perf-PID.map in /tmp, a recording at a name in /tmp.
 * Nothing is opened for reading before its type is known and it passes
 * the rule (a regular file, unless EBS_IN_NAMED): the path is opened with
 * O_PATH (no device's driver, no FIFO is reached), that descriptor
 * checked with fstat against the rule, and only then the inode checked
 * opened for reading (through /proc/self/fd; without /proc, by name
 * again, refused unless it is the same inode).
 *
 * The rule (NULL: a regular file, links followed):
 *   EBS_IN_SHARED  in a directory others can write (ebs_dir_others_write:
 *                  /tmp, a group's, another user's): a symbolic link is not followed (-ELOOP), and
 * the file must be owned by root, the caller or rule.owner
 *                  (-EBS_EUNTRUSTED)
 *   EBS_IN_OWNER   the file must be owned by root or rule.owner, and
 *                  rule.owner must be allowed to read it by its mode and
 *                  the search modes of the directories above it (ACLs and
 *                  security modules are not consulted): what a file of
 *                  rule.owner's names is shown only if rule.owner could
 *                  read it (-EBS_EUNTRUSTED)
 *   EBS_IN_DISK    the file must be on a file system that stores files:
 *                  not procfs, sysfs, debugfs, tracefs, securityfs,
 *                  cgroup, bpf, configfs, efivarfs and the like, whose
 *                  contents the kernel makes for whoever reads them
 *                  (-EBS_EPSEUDO: "is on /proc, whose contents depend on
 *                  who reads them")
 *   EBS_IN_NAMED   an input the user named (a recording's -i, ebs.data):
 *                  any type but a directory (a FIFO, a device, a pipe as
 *                  /dev/stdin are the user's to give), reopened blocking
 *                  (a FIFO's open waits for its writer).  In a directory
 *                  others can write, what is at the name (a symbolic link,
 *                  a file, a FIFO, a device) must be owned by root or the
 *                  caller, and so must what a link of theirs leads to
 *                  (-EBS_EUNTRUSTED: "not read: a FIFO owned by nobody
 *                  (uid 65534), in a directory others can write"); a link
 *                  of another user's is not followed
 *   EBS_IN_FORCE   with EBS_IN_NAMED: whoever owns it (--force); it is
 *                  still looked at through O_PATH before it is opened
 * rule.owner (uid_t)-1 is none; owner_is names it in messages ("the
 * binary's owner").
 *
 * ebs_open_input returns the descriptor (O_RDONLY, O_CLOEXEC, blocking)
 * with *st filled (st may be NULL), or -errno: -EISDIR, -EBS_ENOTREG for
 * any other file that is not regular, -ELOOP, -EBS_EUNTRUSTED, -EBS_EPSEUDO, -ESTALE
 * when the path changed between the two opens, or the open's own.  err
 * (NULL: not wanted) gets the reason as a phrase to follow "PATH: ": "is
 * a FIFO, not a regular file", "is a character device, not a regular
 * file", "is owned by nobody (uid 65534) in a directory others can
 * write: not trusted", "No such file or directory"...
 */
#define EBS_IN_SHARED 1u
#define EBS_IN_OWNER  2u
#define EBS_IN_DISK   4u
#define EBS_IN_NAMED  8u
#define EBS_IN_FORCE  16u

struct stat;
struct ebs_input_rule {
	unsigned int flags;   /* EBS_IN_* */
	uid_t owner;	      /* (uid_t)-1: none */
	const char *owner_is; /* how messages name owner: "the binary's owner" */
};

int ebs_open_input(const char *path, const struct ebs_input_rule *rule, struct stat *st,
		   struct ebs_error *err) __attribute__((nonnull(1)));

/*
 * May everyone read the regular file open at fd (reached by path, st its
 * fstat): a user who owns neither it nor the directories above it and is
 * in none of their groups, by its mode and their search modes (ACLs and
 * security modules are not consulted)?  0, or -EBS_EUNTRUSTED with err
 * said ("may not be read by everyone: its mode is 0600", "...: directory
 * /tmp/alice is mode 0700"), -EBS_ENOTREG for a file not regular.  What
 * ebs writes for others to read (annotate's page) is kept private when it
 * shows such a file.
 */
int ebs_everyone_may_read(int fd, const char *path, const struct stat *st, struct ebs_error *err)
	__attribute__((nonnull(2, 3)));

/*
 * Read all of fd into a malloc'd NUL-terminated buffer, at most max bytes
 * (-EFBIG when there are more) and, when max_line, no line of max_line
 * bytes or more (-E2BIG, with the 1-based line number in *bad_line, which
 * may be NULL; checked as the bytes come, so an endless line stops at
 * once).  The length, or -errno.
 */
ssize_t ebs_read_fd(int fd, size_t max, size_t max_line, char **out, size_t *bad_line)
	__attribute__((nonnull(4)));

/*
 * Read a whole regular file (ebs_open_input, no rule) into a malloc'd
 * NUL-terminated buffer, at most max bytes (-EFBIG when longer).  Returns
 * the length, or ebs_open_input's -errno.  ebs_read_file is for small
 * /proc-like files, without a size bound; ebs_read_strerror says why in
 * one phrase, for a caller that did not ask ebs_open_input for its why.
 */
ssize_t ebs_read_file_max(const char *path, size_t max, char **out) __attribute__((nonnull(1, 3)));
ssize_t ebs_read_file(const char *path, char **out) __attribute__((nonnull(1, 2)));
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
int ebs_grow(void **v, size_t *cap, size_t n, size_t size, size_t min)
	__attribute__((nonnull(1, 2)));

/*
 * A set of strings, each kept once: equal strings, one pointer, so that
 * callers can compare names by pointer.  Start with a NULL set.
 * ebs_strset__intern returns the set's copy of s, NULL when out of memory;
 * the copies live until ebs_strset__free, which accepts an empty set.
 */
struct ebs_strset;
const char *ebs_strset__intern(struct ebs_strset **set, const char *s)
	__attribute__((nonnull(1, 2)));
/*
 * ebs_strset__intern of s as it is shown: its control characters as '?'
 * (ebs_clean_text), s unchanged.  For names from outside (a recording's
 * command names, DWARF's) that are only ever printed and compared.
 */
const char *ebs_strset__intern_clean(struct ebs_strset **set, const char *s)
	__attribute__((nonnull(1, 2)));
/* The set's copy of s, NULL when s is not in it (set may be empty: NULL). */
const char *ebs_strset__find(const struct ebs_strset *set, const char *s);
void ebs_strset__free(struct ebs_strset **set); /* accepts NULL */

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
#define EBS_OUT_LOCK	 2u /* the temporary file flock'ed before its name appears */

struct ebs_outfile {
	const char *path; /* as given, for messages */
	int dfd;	  /* its directory (O_PATH); -1 for standard output */
	int fd;		  /* to write: the temporary file, or the name in place */
	bool in_place;	  /* a device, FIFO or standard output: nothing to rename */
	bool shared;	  /* its directory is one others can write (ebs_dir_others_write) */
	unsigned int flags;
	dev_t was_dev; /* what the name held at open; was_ino 0: nothing */
	ino_t was_ino;
	char base[NAME_MAX + 1];
	char tmp[NAME_MAX + 16]; /* the temporary file's name in dfd; "" when none */
};

int ebs_outfile__open(struct ebs_outfile *o, const char *path, unsigned int mode,
		      unsigned int flags, struct ebs_error *err) __attribute__((nonnull(1, 2)));
int ebs_outfile__commit(struct ebs_outfile *o, struct ebs_error *err) __attribute__((nonnull(1)));
void ebs_outfile__abort(struct ebs_outfile *o); /* accepts NULL */
int ebs_outfile__tmp_path(const struct ebs_outfile *o, const char *name, char *buf, size_t len)
	__attribute__((nonnull(1, 2, 3)));

/*
 * May someone other than the caller and root write into this directory
 * (group or others may, or another user owns it)?  Then what its names
 * hold may be that user's doing.
 */
bool ebs_dir_others_write(const struct stat *dir) __attribute__((nonnull(1)));

/*
 * Open again, with flags (O_RDONLY, O_WRONLY...), the very inode the O_PATH
 * descriptor pfd was checked to be (st): through /proc/self/fd/N, which no
 * rename can redirect; where /proc is not mounted, by its name in dfd
 * again (O_NONBLOCK, O_NOFOLLOW when nofollow), refused unless it is that
 * inode.  The descriptor, close-on-exec and blocking; -ESTALE for another
 * inode; -errno.
 */
int ebs_reopen(int pfd, int dfd, const char *name, int flags, bool nofollow, const struct stat *st)
	__attribute__((nonnull(3, 6)));

/* A user as messages name one: "nobody (uid 65534)", "uid 1234" when it has no name. */
void ebs_user_name(uid_t uid, char *buf, size_t len) __attribute__((nonnull(2)));

/*
 * The temporary names' common start for an output path, "DIR/.BASE.tmp."
 * (ebs record names a killed run's leftovers by it).  -ENAMETOOLONG when
 * it does not fit in len bytes.
 */
int ebs_tmp_prefix(const char *path, char *out, size_t len) __attribute__((nonnull(1, 2)));

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

int ebs_out_open(struct ebs_out *o, const char *path, FILE *dflt, struct ebs_error *err)
	__attribute__((nonnull(1)));
int ebs_out_close(struct ebs_out *o, bool ok, struct ebs_error *err) __attribute__((nonnull(1)));

/*
 * The hexadecimal digits at the start of s[0..len), without "0x": how many
 * were read, their value in *out.  0 when s does not start with a digit or
 * holds more than 16 of them (the value would not fit).
 */
size_t ebs_parse_hex(const char *s, size_t len, u64 *out) __attribute__((nonnull(1, 3)));

/*
 * b[0..len) as lowercase hexadecimal digits (a build-id as paths and tools
 * spell it) into out, NUL-terminated, as many bytes as out_len holds.
 */
void ebs_format_hex(char *out, size_t out_len, const u8 *b, size_t len);

/*
 * This process's vdso: its image in memory and the size of its mapping
 * (from /proc/self/maps); the same kernel maps the same vdso into every
 * process.  0, or -ENOENT when it has none (or the maps cannot be read).
 */
int ebs_own_vdso(const void **image, size_t *size) __attribute__((nonnull(1, 2)));

/* Monotonic (the perf clock) and real-time clocks, in nanoseconds. */
u64 ebs_clock_ns(void);
u64 ebs_realtime_ns(void);

#endif /* EBS_UTIL_H */
