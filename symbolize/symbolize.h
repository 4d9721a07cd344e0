/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h - resolve sample addresses to DSO, function (and, with DWARF,
 * file, line and inline chain).  The only module that includes <gelf.h> or
 * <libdwarf.h>.  No process-global state: everything hangs off a
 * struct symbolizer.
 *
 * Ownership: every string a lookup returns is borrowed from the symbolizer
 * and stays valid until symbolizer__free().
 */
#ifndef EBS_SYMBOLIZE_H
#define EBS_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

struct symbolizer;

/* Called once per DSO that could not be read or lacks symbols; msg is one line. */
typedef void (*symbolize_warn_fn)(void *ctx, const char *msg);

struct symbolize_opts {
	const char *kallsyms;		/* NULL: /proc/kallsyms */
	const char *const *debug_dirs;	/* NULL-terminated extra places for debug files, or NULL */
	bool demangle;
	symbolize_warn_fn warn;		/* NULL: stay quiet */
	void *warn_ctx;
};

/*
 * A mapping as the data file describes it.  filename is a path, or a
 * pseudo-name: "[vdso]" (image/image_size then hold its bytes, copied at
 * record time), "[kernel.kallsyms]" for kernel addresses, "//anon" and
 * friends for anonymous memory.
 */
struct sym_map {
	u64 start;
	u64 len;
	u64 pgoff;		/* file offset that start maps */
	u64 ino;
	u32 maj, min;
	u8 build_id_size;
	u8 build_id[20];
	const char *filename;
	const void *image;	/* in-memory copy of the DSO, or NULL */
	size_t image_size;
};

struct sym_result {
	const char *function;	/* NULL when no symbol covers the address */
	const char *dso;	/* short name: "libc.so.6", "[vdso]", "[kernel]" */
	const char *dso_path;	/* as mapped */
	u64 sym_offset;		/* addr - function start, when function != NULL */
	u64 dso_addr;		/* the address in the DSO's own (link-time) address space,
				 * or for an unreadable DSO the file offset */
};

/* Returns NULL with errno set when out of memory. */
struct symbolizer *symbolizer__new(const struct symbolize_opts *opts);
void symbolizer__free(struct symbolizer *s);

/*
 * Resolve a user-space address inside map.  Returns 0 and fills out (with
 * out->function NULL when no symbol covers addr: the caller reports it as
 * "[unknown] DSO+0xdso_addr"); -errno only for bad arguments.  A DSO that
 * cannot be read is remembered, warned about once, and still fills
 * out->dso and out->dso_addr.
 */
int symbolizer__lookup(struct symbolizer *s, const struct sym_map *map, u64 addr,
		       struct sym_result *out);

/*
 * Resolve a kernel address through kallsyms (opts.kallsyms or
 * /proc/kallsyms); modules resolve with dso "[module_name]".  When kallsyms
 * is unreadable or shows zeroed addresses, function is NULL, dso
 * "[kernel]" and dso_addr the address itself.  Returns 0.
 */
int symbolizer__lookup_kernel(struct symbolizer *s, u64 addr, struct sym_result *out);

#endif /* EBS_SYMBOLIZE_H */
