/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the files of symbolize/ share: the DSO cache entry, the
 * symbol table built from an ELF file, and the kallsyms table.  Nothing here
 * is part of the public API.
 *
 * A struct symbolizer is not thread-safe: give each thread its own, or
 * serialise the calls.
 */
#ifndef EBS_SYMBOLIZE_INTERNAL_H
#define EBS_SYMBOLIZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * uthash's default on a failed malloc is exit(); library code must not exit,
 * so ask for the non-fatal mode: a failed add leaves elt->hh.tbl == NULL and
 * the table unchanged.
 */
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "symbolize/symbolize.h"

/* One function symbol, in the DSO's link-time address space. */
struct sym {
	u64 addr;
	u64 end;	/* exclusive: a lookup hits when addr <= a < end */
	u64 max_end;	/* max(end) over this and every earlier entry, for overlaps */
	const char *name; /* in the owning table's arena */
};

/*
 * A loaded symbol table: sorted by addr, one entry per address (aliases
 * already resolved), names in one arena.  Immutable after loading.
 */
struct symtab {
	struct sym *syms;
	size_t nsyms;
	char *arena;
};

/* One PT_LOAD segment: file offsets [offset, offset + filesz) map to vaddr. */
struct segment {
	u64 offset;
	u64 filesz;
	u64 vaddr;
};

/*
 * One distinct object file (or in-memory image), loaded once per
 * symbolizer and shared by every map that shows it.  Keyed in
 * symbolizer.dsos by build-id, by (dev, inode, mtime, path), or for images
 * by (name, size, hash of the bytes).  A DSO that failed to load stays in
 * the cache with failed set and no symbols, so it is tried (and warned
 * about) once.
 */
struct dso {
	UT_hash_handle hh;
	void *key;
	size_t key_len;
	bool failed;
	struct symtab symtab;
	struct segment *segs;	/* NULL/0: translate nothing, use the file offset */
	size_t nsegs;
	void *image;		/* our copy of an in-memory image, or NULL */
	size_t image_size;
	u8 build_id_size;	/* the file's own NT_GNU_BUILD_ID, 0 if none */
	u8 build_id[20];
};

/* The kernel's symbols, read from kallsyms on first use. */
struct ksym {
	u64 addr;
	const char *name;
	const char *dso;	/* "[kernel]" or an interned "[modname]" */
	bool global;		/* upper-case type letter: preferred among aliases */
};

struct kmod_name {
	UT_hash_handle hh;
	char name[];		/* "[modname]" */
};

struct kallsyms {
	struct ksym *syms;	/* sorted by addr, one per address */
	size_t nsyms;
	char *arena;
	struct kmod_name *mods;
};

struct map_ent;

struct symbolizer {
	char *kallsyms_path;	/* NULL: /proc/kallsyms */
	bool demangle;
	symbolize_warn_fn warn;
	void *warn_ctx;

	struct dso *dsos;	/* by dso.key */
	struct map_ent *maps;	/* per-mapping shortcut to the dso, see symbolize.c */
	void *keybuf;		/* scratch for building map keys */
	size_t keybuf_cap;

	bool kernel_tried;	/* kallsyms read (or failed to) */
	struct kallsyms *kernel; /* NULL when unreadable or restricted */
};

/* Deliver one warning line through opts.warn, if any. */
void symbolizer__warn(struct symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Load the symbols and PT_LOAD segments of an ELF file (fd) or of an
 * in-memory image (image != NULL, fd ignored) into d.  Returns 0, or
 * -errno with a one-line reason in why.  "No symbols" is a success with an
 * empty table; the caller warns about it.
 */
int dso__load_elf(struct dso *d, int fd, void *image, size_t image_size, char *why,
		  size_t why_len);

/* Link-time address of file offset off in d. */
u64 dso__file_to_vaddr(const struct dso *d, u64 off);

/* The symbol covering addr, or NULL. */
const struct sym *symtab__find(const struct symtab *t, u64 addr);
void symtab__exit(struct symtab *t);

/* Kernel side (kallsyms.c). */
struct kallsyms *kallsyms__load(const char *path, char *why, size_t why_len);
void kallsyms__free(struct kallsyms *k);
const struct ksym *kallsyms__find(const struct kallsyms *k, u64 addr);

#endif /* EBS_SYMBOLIZE_INTERNAL_H */
