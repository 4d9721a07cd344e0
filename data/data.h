/* SPDX-License-Identifier: MIT */
/*
 * data.h - write and read ebs.data files (layout: include/ebs/ebs_data.h,
 * prose: docs/format.md).
 *
 * The writer streams records into a temporary file next to the final name
 * and renames it at finish, so a crash never leaves a half file under that
 * name; an existing file is kept as NAME.old.  "-" writes to stdout.
 *
 * The reader checks every length and offset before it uses it; any problem
 * is one line in the ebs_error naming the file and the byte offset.  It
 * reads with pread (never mmap), so a file that shrinks under it is an
 * error, not SIGBUS; its memory does not grow with the file's size.
 */
#ifndef EBS_DATA_DATA_H
#define EBS_DATA_DATA_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include <ebs/ebs_data.h>
#include "util/util.h"

#define EBS_MAX_EVENTS 64

/*
 * Limits of the reader (docs/format.md, section 10): the header records
 * together, and any one data record (those of ebs come from perf's ring,
 * whose records are at most 64 KiB).
 */
#define EBS_DATA_MAX_HEADER (64u << 20)
#define EBS_DATA_MAX_RECORD (16u << 20)

/* ---- writer ----------------------------------------------------------- */

struct ebs_writer;

/* Create; header records follow with the calls below.  NULL on error (err filled). */
struct ebs_writer *ebs_writer__create(const char *path, struct ebs_error *err)
	__attribute__((nonnull(1)));

/*
 * A writer into fd, a regular file open for reading and writing, empty, at
 * offset 0 (an unlinked temporary file): the header is patched at finish,
 * which neither syncs nor renames; fd stays open, the caller's.  name is
 * for messages.  NULL on error (err filled).
 */
struct ebs_writer *ebs_writer__create_fd(int fd, const char *name, struct ebs_error *err);

/*
 * A writer that writes nothing: it takes the records and keeps the totals
 * (ebs_writer__totals, __counts) of a session whose results are read in
 * memory (an ebs stat counting session: count/session.h).  name is for
 * messages.  NULL on error (err filled).
 */
struct ebs_writer *ebs_writer__create_sink(const char *name, struct ebs_error *err);

/*
 * The two clocks at the end of collection, for the trailer, when they are
 * not the time of ebs_writer__finish (a file converted from another format).
 */
void ebs_writer__set_end(struct ebs_writer *w, u64 end_realtime_ns, u64 end_clock_ns)
	__attribute__((nonnull(1)));

/* Header records: only before ebs_writer__begin_data(). */
int ebs_writer__meta(struct ebs_writer *w, u32 key, const char *value) __attribute__((nonnull(1)));
/* asked/used/why: see struct ebs_rec_event; ev->index is assigned here. */
int ebs_writer__event(struct ebs_writer *w, struct ebs_rec_event *ev, const char *asked,
		      const char *used, const char *why) __attribute__((nonnull(1)));
int ebs_writer__dso_image(struct ebs_writer *w, const char *name, const void *image, size_t size,
			  const u8 *build_id, u8 build_id_size) __attribute__((nonnull(1)));

/* A CALIBRATION record (struct ebs_rec_calibration; hdr is filled here). */
int ebs_writer__calibration(struct ebs_writer *w, const struct ebs_rec_calibration *c)
	__attribute__((nonnull(1)));

/*
 * Overwrite, in the finished file path, the CALIBRATION record of event
 * c->event with c (hdr ignored): for values measured by the run that wrote
 * the file.  0, or -errno with err naming the file (-ENOENT: no such record).
 */
int ebs_data__set_calibration(const char *path, const struct ebs_rec_calibration *c,
			      struct ebs_error *err) __attribute__((nonnull(1)));

/* End of the header; start_* are the two clocks at the start of collection. */
int ebs_writer__begin_data(struct ebs_writer *w, u64 start_realtime_ns, u64 start_clock_ns)
	__attribute__((nonnull(1)));

/*
 * Append one data record (rec->size bytes; size must be a multiple of 8).
 * SAMPLE, LOST and THROTTLE records are counted for the trailer here;
 * the first PROCNS makes the file version x.1.
 */
int ebs_writer__add(struct ebs_writer *w, const struct ebs_rec *rec) __attribute__((nonnull(1)));

/*
 * The kernel addresses of the samples added so far, as a report looks them
 * up: ips in kernel mode and the kernel part of call chains, a caller's
 * return address less one (inside its call), sorted, each once; valid until
 * the next call on w.  For the KSYMS record the recorder adds at the end.  0.
 */
int ebs_writer__kernel_addrs(struct ebs_writer *w, const u64 **addrs, size_t *n)
	__attribute__((nonnull(1)));

/* A kernel symbol for ebs_writer__ksyms: [start, end), its name, its DSO ("[kernel]", "[ext4]"). */
struct ebs_ksym_text {
	u64 start, end;
	const char *name, *dso;
	bool global;
};

/*
 * Add the KSYMS record of the n symbols v (sorted by start, not
 * overlapping) and stext; "[kernel]" is the kernel itself.  0 or -errno.
 */
int ebs_writer__ksyms(struct ebs_writer *w, u64 stext, const struct ebs_ksym_text *v, size_t n)
	__attribute__((nonnull(1)));

/*
 * A tap on the writer, for a live view of what is being recorded (ebs top):
 * fn(ctx, rec) is called with every data record ebs_writer__add takes, as
 * it was given (a SAMPLE before it is packed), once it is taken, in the
 * caller's thread.  rec is valid during the call only.  fn NULL: none.
 */
typedef void ebs_writer_tap_fn(void *ctx, const struct ebs_rec *rec);
void ebs_writer__set_tap(struct ebs_writer *w, ebs_writer_tap_fn *fn, void *ctx)
	__attribute__((nonnull(1)));

/* Bytes written so far (header included). */
u64 ebs_writer__size(const struct ebs_writer *w) __attribute__((nonnull(1)));
/* Counts so far, for event i (NULL when out of range). */
const struct ebs_event_counts *ebs_writer__counts(const struct ebs_writer *w, unsigned int i)
	__attribute__((nonnull(1)));
/* Totals so far over all events, LOST records of no known event included. */
void ebs_writer__totals(const struct ebs_writer *w, u64 *samples, u64 *lost, u64 *throttled)
	__attribute__((nonnull(1)));

/*
 * Write the trailer, patch the header, flush, sync and rename into place
 * (an existing file is kept as NAME.old first); *size (may be NULL) gets the
 * file's final size.  Returns 0 or -errno (err filled).  When the old file
 * cannot be kept or the new one not renamed, the complete recording stays
 * under its temporary name, which err names.  The writer is freed either way.
 */
int ebs_writer__finish(struct ebs_writer *w, int exit_status, u64 *size, struct ebs_error *err)
	__attribute__((nonnull(1)));

/* Give up: remove the temporary file and free.  Accepts NULL. */
void ebs_writer__abort(struct ebs_writer *w); /* accepts NULL */

/*
 * Give up after a failure during collection (a full disk, a file size
 * limit, a broken ring), keeping what was recorded: the temporary file is
 * cut back to its last whole record and renamed to NAME.partial (never
 * over an existing file: it then keeps its temporary name).  Its header
 * says it never finished (trailer_offset 0).  When something was kept, err's
 * message gets "; the N bytes recorded so far are in FILE, unfinished (read
 * it with ...)" appended and 1 is returned; 0 when there was nothing to keep
 * (no data record, or output written in place).  Frees w; accepts NULL.
 */
int ebs_writer__abort_keep(struct ebs_writer *w, struct ebs_error *err);

/*
 * Write the buffered records out now (ebs record does after each read of
 * the rings, so that a killed recording loses little).  0 or -errno.
 */
int ebs_writer__flush(struct ebs_writer *w) __attribute__((nonnull(1)));

/*
 * Leftovers of earlier recordings into path that were killed: temporary
 * files .NAME.tmp.XXXXXX beside it, owned by the caller, that no writer
 * holds (a writer keeps an flock on its own until it is done).  fn (may be
 * NULL) is called for each; with remove, each is removed first (removed,
 * or err = -errno).  A NULL path stands for every output in the current
 * directory (.ANY.tmp.XXXXXX).  Returns how many were found, or -errno.
 */
struct ebs_leftover {
	const char *path;
	u64 size;
	time_t mtime;
	bool removed;
	int err;
};
typedef void (*ebs_leftover_fn)(void *ctx, const struct ebs_leftover *lo);
int ebs_writer__leftovers(const char *path, bool remove, ebs_leftover_fn fn, void *ctx);

/*
 * A debug aid: the byte of the environment variable EBS_DEBUG_POISON
 * (decimal or 0x hex, 0 to 255), or -1 when it is not set.  The writer's
 * and the sampler's record buffers are filled with it when allocated, so
 * that a byte of a record left unwritten shows in the file (tests).
 */
int ebs_debug_poison(void);

/* ---- reader ----------------------------------------------------------- */

struct ebs_data;

/* One sampled event of a file, its strings pointing into the file. */
struct ebs_event_info {
	const struct ebs_rec_event *rec;
	const char *asked;
	const char *used;
	const char *why; /* "" when not a fallback */
};

/*
 * Open and validate the header, the header records and (when the file has
 * one at a known offset) the trailer.  "-" reads stdin.  NULL on error.
 * path is the user's own input (ebs_open_input's EBS_IN_NAMED): a FIFO,
 * a device or /dev/stdin may be given (a FIFO's open waits for its
 * writer), but in a directory others can write, a file, FIFO or device
 * not owned by the caller or root, or a symbolic link of another user's,
 * is refused (-EBS_EUNTRUSTED, err naming it and its owner) unless
 * EBS_DATA_ANY_OWNER.
 * A stream (pipe, stdin, device) is copied into an unlinked file in
 * $TMPDIR (else /tmp) first, up to its TRAILER.  A perf.data file (found
 * by its magic; file or pipe mode) is converted into ebs.data in an
 * unlinked file in $TMPDIR first (ebs_data__convert), which is then read
 * as any ebs.data; errors of the conversion name offsets of the perf.data.
 */
struct ebs_data *ebs_data__open(const char *path, struct ebs_error *err)
	__attribute__((nonnull(1)));

/*
 * EBS_DATA_UNFINISHED: accept a recording that never finished (no
 * trailer: a killed ebs record's temporary file, a stream cut short);
 * ebs_data__next then ends at the last whole record, and
 * ebs_data__unfinished says so.  A finished file cut short (its trailer
 * offset past the end) is still refused.
 */
#define EBS_DATA_UNFINISHED (1u << 0)
/*
 * EBS_DATA_ANY_OWNER (--force): read a recording in a directory others can
 * write whoever owns it (perf's -f); it is still looked at through O_PATH
 * before it is opened.
 */
#define EBS_DATA_ANY_OWNER (1u << 1)
struct ebs_data *ebs_data__open_flags(const char *path, unsigned int flags, struct ebs_error *err)
	__attribute__((nonnull(1)));
void ebs_data__close(struct ebs_data *d); /* accepts NULL */
/*
 * Does path look like a perf.data file (a regular file with its magic)?
 * A hint only, read before ebs_data__open converts it: nothing is
 * checked, and a stream or device is not opened (false).
 */
bool ebs_data__looks_perf(const char *path) __attribute__((nonnull(1)));

const char *ebs_data__path(const struct ebs_data *d) __attribute__((nonnull(1)));
/* The size of the file read: of the ebs.data a perf.data was converted into. */
u64 ebs_data__size(const struct ebs_data *d) __attribute__((nonnull(1)));
const struct ebs_file_header *ebs_data__header(const struct ebs_data *d)
	__attribute__((nonnull(1)));
unsigned int ebs_data__nr_events(const struct ebs_data *d) __attribute__((nonnull(1)));
/*
 * The header's text, event names and META values, is the file's: it is
 * handed out with its control characters as '?' (util/text.h), as shown.
 */
const struct ebs_event_info *ebs_data__event(const struct ebs_data *d, unsigned int i)
	__attribute__((nonnull(1)));
/* Index of the event whose asked or used name is name, or -ENOENT. */
int ebs_data__find_event(const struct ebs_data *d, const char *name) __attribute__((nonnull(1)));
/* The META value for key, or NULL. */
const char *ebs_data__meta(const struct ebs_data *d, u32 key) __attribute__((nonnull(1)));
/* The CALIBRATION record of event ev, or NULL. */
const struct ebs_rec_calibration *ebs_data__calibration(const struct ebs_data *d, unsigned int ev)
	__attribute__((nonnull(1)));
/* The first DSO_IMAGE named name, or NULL. */
const struct ebs_rec_dso_image *ebs_data__dso_image(const struct ebs_data *d, const char *name)
	__attribute__((nonnull(1)));

/*
 * Iterate the data records from the start.  Returns 1 with *rec set, 0 after
 * the trailer (or the last whole record of an unfinished recording), or
 * -errno (err filled: file and byte offset).  Every record handed out has
 * been checked: its size covers its type's fixed part and any optional
 * parts its misc bits announce, its strings are terminated within it, and
 * its event index is in range.  *rec is valid until the next call of
 * ebs_data__next, ebs_data__rewind or ebs_data__close: copy what you keep.
 */
int ebs_data__rewind(struct ebs_data *d) __attribute__((nonnull(1)));
int ebs_data__next(struct ebs_data *d, const struct ebs_rec **rec, struct ebs_error *err)
	__attribute__((nonnull(1)));

/*
 * The KSYMS record (checked: its symbols sorted, its names inside its
 * strings), once ebs_data__next has handed it out; NULL before, or when the
 * file has none.
 */
const struct ebs_rec_ksyms *ebs_data__ksyms(const struct ebs_data *d) __attribute__((nonnull(1)));

/* The trailer; only after ebs_data__next returned 0, or at open for seekable files. */
const struct ebs_rec_trailer *ebs_data__trailer(const struct ebs_data *d)
	__attribute__((nonnull(1)));

/*
 * After ebs_data__next returned 0: NULL for a complete recording; for an
 * unfinished one (EBS_DATA_UNFINISHED), the line that says so, "FILE:
 * recording did not finish: 1,234 samples up to offset N".
 */
const char *ebs_data__unfinished(const struct ebs_data *d) __attribute__((nonnull(1)));

/*
 * The totals: the trailer's, or for an unfinished recording read to its
 * end the same counted from its records (exit_status -1, no index); NULL
 * when neither is known yet.  ebs_data__counts gives the per-event ones
 * the same way.
 */
const struct ebs_rec_trailer *ebs_data__totals(const struct ebs_data *d)
	__attribute__((nonnull(1)));
const struct ebs_event_counts *ebs_data__counts(const struct ebs_data *d, unsigned int event)
	__attribute__((nonnull(1)));

/* Offset in the file of rec, a pointer the reader handed out (for messages). */
u64 ebs_data__offset(const struct ebs_data *d, const void *rec) __attribute__((nonnull(1)));

/* Optional parts of a sample; NULL/0 when absent.  rec must come from ebs_data__next. */
struct ebs_sample_parts {
	u64 nr_callchain;
	const u64 *callchain;
	u64 regs_abi, regs_mask;
	const u64 *regs;
	u64 stack_size, stack_dyn_size;
	const u8 *stack;
};
void ebs_sample__parts(const struct ebs_rec_sample *s, struct ebs_sample_parts *p)
	__attribute__((nonnull(1)));

/*
 * Write the parts p after the fixed part of sample o, in the order and
 * layout above: the call chain when nr_callchain; the registers when regs
 * (popcount(regs_mask) of them); with them, when stack, the stack's
 * stack_dyn_size bytes in use, padded to 8 (stack_size is ignored).  Sets
 * their misc bits and o->hdr.size; o must have room (the writers' record
 * buffers do).
 */
void ebs_sample__set_parts(struct ebs_rec_sample *o, const struct ebs_sample_parts *p)
	__attribute__((nonnull(1)));

/* Name of a record type, for messages and dumps ("SAMPLE"); "?" when unknown. */
const char *ebs_rec__type_name(u16 type);
/* Size of a known type's fixed part, 0 for unknown types. */
u32 ebs_rec__fixed_size(u16 type);

/*
 * Convert the perf.data file input ("-": standard input; file or pipe mode)
 * into the ebs.data file output, written as ebs record writes it: whole or
 * not at all (data/perfdata.c, docs/perfdata.md).  0, or -errno with err
 * filled and output_failed telling whether writing the output failed
 * (else the input was at fault).  ebs_data__open reads a perf.data file
 * the same way, converting it into a temporary file first.  input is
 * opened as ebs_data__open opens its path; flags: EBS_DATA_ANY_OWNER.
 */
struct ebs_convert_stats {
	u64 in_bytes, out_bytes; /* the sizes of input and output */
	u64 samples;
	bool pipe; /* the input was in perf's pipe mode */
	bool output_failed;
};
int ebs_data__convert(const char *input, const char *output, unsigned int flags,
		      struct ebs_convert_stats *st, struct ebs_error *err);

/*
 * Archives: a recording and the files it needs, by build-id, in one tar
 * compressed with zstd (data/archive.c, docs/format.md section 10.4).
 *
 * ebs_archive__write writes output (whole or not at all, 0600, as
 * util/output.c writes: "-" is standard output): the recording d as its
 * member ebs.data (what d reads: a perf.data's conversion, an archive's
 * own ebs.data), then each of m[n] (name ".build-id/xx/REST[.debug]", the
 * file at path; when ino is not 0, path must still be that inode).  st
 * gets the members, the bytes put in, the archive's size.  0, or -errno
 * with err filled (output set when writing failed).
 *
 * ebs_data__open reads an archive as the recording it holds (found by its
 * magic), extracted first into a private directory in $TMPDIR, removed at
 * ebs_data__close: ebs_data__buildid_dir is that directory (its
 * .build-id tree is a build-id directory for the symbolizer), NULL for a
 * recording that is no archive; ebs_data__archive_notice the line saying
 * which members were left out, or NULL.
 */
struct ebs_archive_member {
	const char *name;
	const char *path;
	u64 dev, ino;
};
struct ebs_archive_stats {
	u64 files;     /* members written, ebs.data included */
	u64 bytes;     /* their bytes */
	u64 out_bytes; /* the archive's (0 when written to a pipe) */
};
int ebs_archive__write(struct ebs_data *d, const char *output, const struct ebs_archive_member *m,
		       size_t n, struct ebs_archive_stats *st, struct ebs_error *err)
	__attribute__((nonnull(1, 2, 5)));
const char *ebs_data__buildid_dir(const struct ebs_data *d) __attribute__((nonnull(1)));
const char *ebs_data__archive_notice(const struct ebs_data *d) __attribute__((nonnull(1)));

/*
 * Print every record of input, one line each with its byte offset, after
 * the header's records as '#' lines (ebs report --dump; data/dump.c).  An
 * unfinished recording is printed up to its last whole record, and a
 * warning through warn (may be NULL) says so (EBS_E_TRUNCATED).  flags:
 * EBS_DATA_ANY_OWNER.  0, or -errno with err filled.
 */
int ebs_data__dump(const char *input, unsigned int flags, FILE *out, ebs_warn_fn *warn,
		   void *warn_ctx, struct ebs_error *err) __attribute__((nonnull(1, 3, 6)));

#endif /* EBS_DATA_DATA_H */
