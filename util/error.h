/* SPDX-License-Identifier: MIT */
/*
 * error.h - the one error channel of every module: a struct ebs_error
 * (a code from EBS_ERRORS below, the errno it maps to, the one line the
 * user sees) for a failure, an ebs_warn_fn the command supplies for a
 * warning or a notice.  Libraries never print and never exit.
 * (Included by util/util.h.)
 */
#ifndef EBS_UTIL_ERROR_H
#define EBS_UTIL_ERROR_H

#include <errno.h>
#include <stdbool.h>

/* errnos of ebs's own, beyond the system's (util/input.c's refusals) */
#define EBS_ENOTREG    4096
#define EBS_EUNTRUSTED 4097
#define EBS_EPSEUDO    4098

/*
 * The table of error codes, one row each: the code's name (EBS_E_NAME),
 * the errno it maps to (a function failing with it returns -errno; 0:
 * the caller's errno, EBS_E_ERRNO), and the text it stands for (the
 * line itself is the message, which says more: the file, the offset).
 * Each row has a failure site that sets it; tests match codes
 * (err.code == EBS_E_NOT_ELF; EBS_ERROR_CODES=1 ebs ... ends the line
 * with " [EBS_E_NOT_ELF]"), never the wording.  Append rows: a code's
 * number is not part of any file format, but keep them stable anyway.
 */
#define EBS_ERRORS(X)                                                                              \
	X(OK, 0, "no error")                                                                       \
	X(ERRNO, 0, "a system error: err holds its errno")                                         \
	X(NOMEM, ENOMEM, "out of memory")                                                          \
	X(OUTPUT, 0, "an output file could not be created or written")                             \
	/* util/input.c: a file refused before it is read */                                       \
	X(NOT_REGULAR, EBS_ENOTREG, "not a regular file")                                          \
	X(UNTRUSTED, EBS_EUNTRUSTED, "not trusted: owned by another user where others write")      \
	X(PSEUDO, EBS_EPSEUDO, "on a pseudo file system whose contents depend on the reader")      \
	X(TOO_LARGE, EFBIG, "larger than ebs reads")                                               \
	X(LINE_TOO_LONG, E2BIG, "a line too long: not a text file of its kind")                    \
	/* symbolize/: binaries, kallsyms, perf maps, debug files */                               \
	X(EMPTY_FILE, EINVAL, "an empty file")                                                     \
	X(NOT_ELF, EINVAL, "not an ELF file")                                                      \
	X(BAD_ELF, EINVAL, "an ELF file libelf cannot read")                                       \
	X(NO_SYMBOLS, ENOENT, "no symbols")                                                        \
	X(ADDRESSES_HIDDEN, EPERM, "kernel addresses hidden from this user")                       \
	X(NO_BUILD_ID_MATCH, ESTALE, "not the file recorded: its build-id differs")                \
	X(NO_INODE_MATCH, ESTALE, "not the file recorded: its inode differs")                      \
	X(BAD_GOPCLNTAB, EINVAL, "Go's function table is malformed")                               \
	X(NO_DEBUG_INFO, ENOENT, "no DWARF, nor a debug file that has it")                         \
	X(BAD_DWARF, EINVAL, "DWARF that cannot be read")                                          \
	/* data/: a recording */                                                                   \
	X(NOT_EBS_DATA, EBADMSG, "not an ebs.data (nor a perf.data) file")                         \
	X(BAD_VERSION, EBADMSG, "a format version this ebs does not read")                         \
	X(BYTE_ORDER, EBADMSG, "written in the other byte order")                                  \
	X(TRUNCATED, EBADMSG, "truncated")                                                         \
	X(BAD_RECORD, EBADMSG, "a malformed record")                                               \
	X(BAD_ARCHIVE, EBADMSG, "an archive ebs does not extract: damaged, or not ebs archive's")  \
	/* sampler/: what to record */                                                             \
	X(UNKNOWN_EVENT, EINVAL, "no such event")                                                  \
	/* symbolize/debuginfod.c: servers asked for files by build-id */                          \
	X(NO_DEBUGINFOD, ENOSYS, "libdebuginfod is not there: no debuginfod server asked")         \
	X(DEBUGINFOD_FAILED, EHOSTDOWN, "a debuginfod server failed: none asked again")

enum ebs_code {
#define EBS_ERROR_ENUM(name, errnum, text) EBS_E_##name,
	EBS_ERRORS(EBS_ERROR_ENUM)
#undef EBS_ERROR_ENUM
		EBS_E_NR
};

/* "EBS_E_NOT_ELF" for EBS_E_NOT_ELF; "EBS_E_?" for a number not in the table. */
const char *ebs_error_code_name(enum ebs_code code);
/* The row's text ("not an ELF file"), "" for a number not in the table. */
const char *ebs_error_code_text(enum ebs_code code);
/* The row's errno (positive; 0 for EBS_E_OK and EBS_E_ERRNO). */
int ebs_error_code_errno(enum ebs_code code);
/* The code ebs_error__set gives errnum (positive): its row's, else EBS_E_ERRNO. */
enum ebs_code ebs_error_code_of_errno(int errnum);

/*
 * One error, as the one line the user will see ("FILE: offset N: why").
 * Library functions that can fail for a reason worth naming take one and
 * return -errno; only main() prints it and exits.
 */
struct ebs_error {
	enum ebs_code code; /* EBS_E_OK when nothing failed */
	int err;	    /* negative errno, 0 when nothing failed */
	bool output; /* an output file could not be created or written (the system's failure) */
	bool kept;   /* ... but what was written is whole, under another name msg gives */
	char msg[512];
};

/*
 * Format msg as one line (ebs_vformat_line: the names it holds cannot
 * break it or send an escape), set code and err = -(the row's errno);
 * return that.  e may be NULL (the caller does not want the line).
 */
int ebs_error__fail(struct ebs_error *e, enum ebs_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * As ebs_error__fail for a failure that has no row of its own: err =
 * -errnum (given positive), code the row whose errno errnum is when one
 * row alone has it (ENOMEM: EBS_E_NOMEM, EBS_EUNTRUSTED: EBS_E_UNTRUSTED,
 * EFBIG, E2BIG...), else EBS_E_ERRNO.  Returns -errnum.  e may be NULL.
 */
int ebs_error__set(struct ebs_error *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * An output file that could not be created or written (errnum positive):
 * msg "PATH: WHAT: REASON" (path "-" is "standard output"), output set,
 * code EBS_E_OUTPUT, so that the command exits with 1 whatever errnum is.
 * Returns -errnum.
 */
int ebs_error__output(struct ebs_error *e, int errnum, const char *path, const char *what)
	__attribute__((nonnull(3, 4)));
/* Forget what e held (EBS_E_OK, err 0, msg ""); e may be NULL. */
void ebs_error__clear(struct ebs_error *e);

/*
 * A line for the user that is not the command's error: a warning
 * ("warning: FILE: ...": something was not read, or is read in part; code
 * says what, as an ebs_error's would) or a notice (a fallback taken,
 * progress: code EBS_E_OK).  line is what follows the "ebs CMD: " the
 * command puts before it, one line, without its newline.  Libraries call
 * the one the command supplied, with its ctx; none (NULL): nobody listens.
 */
typedef void ebs_warn_fn(void *ctx, enum ebs_code code, const char *line);

/*
 * Format one line (control characters as '?', as ebs_error__fail's) and
 * hand it to fn with ctx; nothing when fn is NULL.
 */
void ebs_warn(ebs_warn_fn *fn, void *ctx, enum ebs_code code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* EBS_UTIL_ERROR_H */
