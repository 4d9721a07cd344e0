/* SPDX-License-Identifier: MIT */
/*
 * dwarf_int.h - what dwarf.c decodes, as dwarf_cache.c keeps it between
 * runs.  dwarf.c's header comment says what each array is; the cache's
 * format, in dwarf_cache.c, stores rows and segments as they are here.
 */
#ifndef EBS_SYMBOLIZE_DWARF_INT_H
#define EBS_SYMBOLIZE_DWARF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/dwarf_compat.h"
#include "symbolize/internal.h"

#define NO_SCOPE     UINT32_MAX
#define MAX_DEPTH    128 /* DIE nesting we follow; deeper is corrupt */
#define MAX_REF_HOPS 8	 /* abstract_origin/specification chains */
/* a DIE offset of the supplementary file (dwz), kept apart from the file's own */
#define ALT_OFF (1ull << 63)
/* a unit's decoding: steps (DIEs read, references followed) for each of its bytes */
#define STEPS_PER_BYTE 4

#define ROW_END 1u /* dw_row.seq_end: the end of a sequence, no line from here */

struct dw_row {
	u64 addr;
	u32 file; /* index into cu->files, or NO_SCOPE */
	u32 line;
	u32 column;
	/*
	 * Its position in the line table << 1 (for a stable sort), | ROW_END
	 * for a sequence's end.
	 */
	u32 seq_end;
};
_Static_assert(sizeof(struct dw_row) == 24, "dw_row is stored as it is: no padding");

struct dw_scope {
	const char *name; /* interned; NULL when DWARF names none */
	u32 parent;	  /* NO_SCOPE for a subprogram; else an earlier scope */
	u32 decl;	  /* a subprogram's index into cu->decls, else NO_SCOPE */
	u32 depth;
	u32 call_file; /* for an inlined instance: index into cu->files */
	u32 call_line;
	u32 call_column;
};

struct dw_range {
	u64 lo, hi;
	u32 scope;
};

struct dw_seg {
	u64 lo, hi;
	u32 scope;
	u32 pad; /* 0: segments are stored as they are */
};
_Static_assert(sizeof(struct dw_seg) == 24, "dw_seg is stored as it is: no padding");

_Static_assert(sizeof(Dwarf_Off) == sizeof(u64), "decl_by_off searches Dwarf_Off as a u64");

/* A subprogram DIE's declaration: where its source text starts. */
struct dw_decl {
	Dwarf_Off off;	  /* the DIE; decls are in DIE (offset) order */
	Dwarf_Off ref;	  /* its specification or abstract origin, 0 if none */
	const char *file; /* interned, as cu->files; NULL when unknown */
	const char *name;
	u32 line; /* 0 when unknown */
	u32 encl; /* the scope of the function whose DIE encloses it, or NO_SCOPE */
};

struct dw_cu {
	Dwarf_Off die_off;
	bool decoded;
	bool failed;
	bool no_rows; /* decoded without its line table (dwarf_info.no_lines): no rows, no files */
	bool raw_names; /* a file name of its held control characters (dwarf_info.raw): not
			 * kept in the cache, whose names are the cleaned ones only */
	u16 version;
	u64 base;     /* the CU's low_pc: base for its ranges */
	u64 rng_base; /* DW_AT_rnglists_base (DWARF 5) */
	struct dw_row *rows;
	size_t nrows;
	struct dw_scope *scopes;
	size_t nscopes, cap_scopes;
	struct dw_range *ranges; /* scope ranges, as collected */
	size_t nranges, cap_ranges;
	struct dw_seg *segs;
	size_t nsegs;
	struct dw_decl *decls;
	size_t ndecls, cap_decls;
	u32 *decl_order; /* indices of decls with a line, by (file, line, index) */
	size_t ndecl_order;
	const char **files;
	u32 nfiles;
	u32 line_version;
	bool file0_is_1; /* libdwarf's file 0 is the line program's default file 1 */

	/* the cache (dwarf_cache.c) */
	const char *problem; /* the first problem met decoding it (interned), or NULL */
	bool fresh;	     /* decoded from DWARF in this run, and fit to be kept */
	bool bad_block;	     /* its block in the entry did not hold */
	u64 blk_off;	     /* its block in the entry read at open; blk_len 0: none */
	u64 blk_len;
	u64 blk_hash;
	void *blk; /* that block, when read: rows and segs then point into it */
};

/* One table of .debug_rnglists: [start, end) of the section. */
struct rng_table {
	u64 start;
	u64 end;
	u64 offsets;	    /* where its offset array starts (what DW_AT_rnglists_base names) */
	u64 count;	    /* offset_entry_count */
	unsigned int offsz; /* 4 or 8: DWARF 32 or 64 */
	unsigned int asz;   /* address size */
};

struct cu_span {
	u64 lo, hi;
	u64 max_hi; /* max hi over this and every earlier span */
	u32 cu;
};

struct name_cache {
	UT_hash_handle hh;
	Dwarf_Off off;
	const char *name;
	bool noted; /* working it out met a problem (see note_hidden) */
};

/* line_table's verdict on the line table at off (units may share one) */
struct table_verdict {
	UT_hash_handle hh;
	Dwarf_Off off;
	bool ok;
	bool noted;	    /* working it out met a problem */
	u32 nfiles;	    /* when ok, the table's files: */
	const char **names; /* each one's name, interned */
	const char **dirs;  /* and directory entry (NULL: the unit's own) */
};

#define WHY_LEN 256

struct dwarf_info {
	int fd;
	uid_t owner; /* of the file, as opened: whose names of source files these are */
	u64 file_size;
	u8 digest[SYM_DIGEST_LEN]; /* of what decoding reads (sym_dwarf_digest), with a cache */
	char *path;		   /* the DWARF file's, for its supplementary file (dwarf_attach) */
	Dwarf_Debug dbg; /* NULL until the DWARF is read (never, when the cache has it all) */
	/*
	 * The supplementary file (dwz -m: .gnu_debugaltlink, .debug_sup) that
	 * DW_FORM_GNU_ref_alt, DW_FORM_ref_sup* and the alt string forms point
	 * into, opened with dbg; NULL when the file names none or it is missing.
	 */
	Dwarf_Debug alt;
	int alt_fd;
	bool split_noted; /* a skeleton unit (split DWARF) was said */
	bool alt_missing; /* named, and not found or not read: said; not kept in the cache */
	bool alt_unnamed; /* an alt form met, and no supplementary file named: said */
	const char *const *debug_dirs; /* where to look for it: the symbolizer's */
	bool attach_failed;
	bool demangle;
	bool no_lines; /* units are decoded without line tables: inline chains only */
	struct dw_cu *cus;
	size_t ncus;
	struct cu_span *spans;
	size_t nspans;
	struct ebs_strset *strs;
	struct name_cache *names;
	struct table_verdict *tables; /* by .debug_line offset */
	struct raw_name *raw;	      /* file names as DWARF has them, by the cleaned name */
	char why[WHY_LEN];	      /* the first problem met, for --stats */
	char rnglists_bad[160];	      /* why .debug_rnglists is not read, "" when it is */
	/* .debug_rnglists as lists_check() found it good, for rnglists() */
	unsigned char *rng;	      /* a copy of the section, or NULL */
	struct rng_table *rng_tables; /* its tables, by start */
	size_t nrng_tables;
	bool rng_msb; /* big-endian */
	/* .debug_line, on a libdwarf whose file register starts at 0 (default_rows) */
	u8 *line_sec;
	u64 line_sec_size;
	bool line_two; /* two such sections: none kept */
	bool line_msb;
	/* .debug_info, for the DW_FORM_ref_sup4/8 values libdwarf reads not (sup_ref) */
	int info_state; /* 0: not looked for yet; 1: found; -1: none to read (said) */
	u8 *info_sec;	/* a copy decompressed, or NULL: read at info_at in fd */
	u64 info_at;
	u64 info_size;
	bool info_msb;

	/*
	 * The cache.  Of the problems met (note()), only the first is kept
	 * and said; each unit's own first one is kept with it, so that a run
	 * that reads some units from the cache says what a run decoding them
	 * all would.  A unit whose decoding leaned on what an earlier unit
	 * worked out with a problem (a name, a line table: note_hidden) is
	 * not kept, as its own first problem is not known.
	 */
	struct sym_cache *cache; /* NULL: none */
	u8 build_id[20];	 /* of the DWARF file: the key */
	u8 build_id_size;
	int efd;		 /* the entry read at open, or -1 */
	u64 efile_size;		 /* its size */
	bool dirty;		 /* write the entry at free */
	bool oom;		 /* memory ran out: what was decoded may lack parts; not kept */
	char index_why[WHY_LEN]; /* the first problem met building the index */
	u64 nnotes;		 /* problems met (note, note_hidden) so far */
	bool capture;		 /* a unit is being decoded: */
	bool tainted;		 /* it leaned on an earlier problem */
	char cu_why[WHY_LEN];	 /* its first problem */

	/* The unit being walked (dwarf.c's walk_begin, die_step). */
	Dwarf_Off walk_unit; /* its offset in .debug_info */
	u64 walk_bytes;	     /* and size */
	u64 steps;	     /* the steps it may still take */
	bool steps_spent;    /* none are left: said */
	u64 steps_cap;	     /* 0, or fewer steps than STEPS_PER_BYTE allow (a test's) */
};

/*
 * inflate.c: when di's DWARF file has compressed .debug_ sections and di a
 * cache, make di->fd a copy of it with them inflated, kept in the cache (made
 * the first time).  0, or -errno with di->fd the file's still.
 */
int dwarf_inflated(struct dwarf_info *di);

/* dwarf.c, for dwarf_cache.c */
void dwarf_note(struct dwarf_info *di, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dwarf_order_decls(struct dw_cu *cu);
/*
 * Rows by address; at one address, a sequence's end first, then table
 * order (seq_end >> 1): a total order, so every sort gives one answer.
 */
int dwarf_row_cmp(const void *a, const void *b);
/* Sort rows by dwarf_row_cmp: whole runs where they do not overlap (dwarf.c). */
void dwarf_sort_rows(struct dw_row *rows, size_t n);
void dwarf_cu_clear(struct dw_cu *cu);
int dwarf_index_spans(struct dwarf_info *di);

/*
 * dwarf_cache.c.  dwarf_cache_load: fill di (opened on its DWARF file,
 * fd and file_size set, the key and the cache given) with the index of
 * the cache's entry: 0, or -errno when there is none that holds (di
 * untouched but for what dwarf_info__free frees).  dwarf_cache_load_cu:
 * decode cu from its block of the entry: 0, or -errno (cu cleared).
 * dwarf_cache_save: write the entry, with every unit decoded so far.
 */
int dwarf_cache_load(struct dwarf_info *di);
int dwarf_cache_load_cu(struct dwarf_info *di, struct dw_cu *cu);
void dwarf_cache_save(struct dwarf_info *di);

#endif /* EBS_SYMBOLIZE_DWARF_INT_H */
