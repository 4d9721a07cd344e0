/* SPDX-License-Identifier: MIT */
/*
 * dynlib.h - a shared library loaded at its first use (dlopen), for the
 * libraries only a few commands need.  Linked, every ebs start paid for
 * them: capstone's 77,000 relative relocations and libarchive's
 * dependencies (libxml2, ICU, libstdc++) took a bare program from 3.1 ms
 * of task-clock to 10.0 and 14.9 ms (perf stat -r 200, this VM), when only
 * annotate --asm, view and archive use them.
 */
#ifndef EBS_UTIL_DYNLIB_H
#define EBS_UTIL_DYNLIB_H

#include <stddef.h>

/* An entry point: its name, and where its address goes in the caller's table. */
struct dynlib_entry {
	const char *name;
	size_t off;
};

/*
 * Load soname (RTLD_NOW, RTLD_LOCAL; kept for the life of the process) and
 * store each of e[0..n)'s addresses at table + e[i].off.  0; or -ENOENT
 * with why (len bytes) saying which library or entry point is missing,
 * in dlerror's words, and the table left as it was.
 */
int dynlib_load(const char *soname, const struct dynlib_entry *e, size_t n, void *table, char *why,
		size_t len);

/* For a table struct T whose fields are the entry points, named as they are. */
#define DYNLIB_ENTRY(T, f) {#f, offsetof(T, f)},

#endif /* EBS_UTIL_DYNLIB_H */
