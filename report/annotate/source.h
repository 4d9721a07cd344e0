/* SPDX-License-Identifier: MIT */
/*
 * source.h - the source files ebs annotate shows, each read once, as
 * untrusted text: found as DWARF names them or through --source-dir, and
 * kept (found or not) until the cache is freed.  Private to report/.
 */
#ifndef EBS_REPORT_SOURCE_H
#define EBS_REPORT_SOURCE_H

#include "util/util.h"

struct source_cache;

/*
 * One source file.  A file not found, or refused (not a regular file,
 * larger than SOURCE_MAX_BYTES, unreadable, on a kernel file system such
 * as /proc, not shown to the caller for whose binary named it: warned
 * once), has read_from NULL and no lines.
 */
struct source {
	const char *path;      /* as DWARF names it */
	const char *read_from; /* where its text was read (shown as path is), NULL when not */
	const char *why;       /* why a file there was refused, a phrase to follow
				* "it ", NULL when read or not there */
	bool private;	       /* read, and not everyone may read it (its mode, its
				* directories': ebs_everyone_may_read) */
	u32 nlines;	       /* its lines: source_cache__text */
};

#define SOURCE_MAX_BYTES (256u << 20) /* SQLite's 9 MB amalgamation fits */

/*
 * dirs (NULL-terminated, or NULL) are --source-dir's: "OLD=NEW" replaces a
 * path's prefix OLD by NEW, a plain DIR is tried with the path under it
 * and with the file name alone; the path as named is tried last.  warn
 * (NULL: quiet) gets one line for each file there but refused.  Returns
 * NULL with errno set when out of memory.
 */
struct source_cache *source_cache__new(const char *const *dirs, ebs_warn_fn *warn, void *warn_ctx);
void source_cache__free(struct source_cache *sc); /* accepts NULL */

/*
 * Paths come as listings show them, control characters as '?'; a file is
 * opened by its real name, open_name(ctx, path) (the symbolizer's
 * symbolizer__source_name): path itself, its name with the control
 * characters, or NULL when that cannot be told (not read, said in why).
 * Without it, path itself.  Before the first source_cache__get.
 */
void source_cache__set_names(struct source_cache *sc,
			     const char *(*open_name)(void *ctx, const char *path), void *ctx);

/*
 * For a source found nowhere (through dirs, nor as named) and refused
 * nowhere: fetch(ctx, path, out, len) (the symbolizer's
 * symbolizer__fetch_source: from a debuginfod server) puts where a copy
 * of it is into out and returns 1, or 0 when there is none, or -ENOMEM.
 * The copy is read by the rules below, and read_from names it.  Without
 * it, nothing more is tried.  Before the first source_cache__get.
 */
void source_cache__set_fetch(struct source_cache *sc,
			     int (*fetch)(void *ctx, const char *path, char *out, size_t len),
			     void *ctx);

/*
 * The source at path, as the DWARF of a file owned by owner names it
 * ((uid_t)-1: not known), read on first use and kept, whether found or
 * not, for that owner.  Never from a kernel file system (/proc, /sys,
 * debugfs...: ebs_open_input's EBS_IN_DISK).  When owner is neither root nor the caller, the
 * file (as named, or through dirs) is read only if owned by root or by
 * owner, and owner may read it (its mode, its directories'); and a file in
 * a directory others can write only if it is not a link and is owned by
 * root, the caller or owner.  0 with *out set (borrowed until
 * source_cache__free), or -ENOMEM.
 */
int source_cache__get(struct source_cache *sc, const char *path, uid_t owner,
		      const struct source **out);

/*
 * Line line (from 1) of s's text (s from sc) into *text, NULL when not
 * there: its control characters shown as '?' (tab kept, CR as a space),
 * borrowed until source_cache__free.  Read from the file when first asked
 * for (with the lines around it), so that a file of 270,000 lines costs
 * one pass to count them and the few a listing shows; 0 or -ENOMEM.
 */
int source_cache__text(struct source_cache *sc, const struct source *s, u32 line,
		       const char **text);

/* Line line (from 1) of file's text into *text, NULL when not there; 0 or -ENOMEM. */
int source_cache__line(struct source_cache *sc, const char *file, uid_t owner, u32 line,
		       const char **text);

/*
 * The source whose lines text (from source_cache__line or
 * source_cache__text) is one of; NULL when none of sc's is.
 */
const struct source *source_cache__of_text(const struct source_cache *sc, const char *text);

#endif /* EBS_REPORT_SOURCE_H */
