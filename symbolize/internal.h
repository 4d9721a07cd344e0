/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the files of symbolize/ share: the DSO cache entry, the
 * symbol table built from an ELF file (or a JIT map), the kallsyms table,
 * the DWARF index, and the debug-file search.  Nothing here is part of the
 * public API.
 *
 * A struct symbolizer is not thread-safe: give each thread its own, or
 * serialise the calls.
 */
#ifndef EBS_SYMBOLIZE_INTERNAL_H
#define EBS_SYMBOLIZE_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "symbolize/symbolize.h"
#include "util/hash.h"

/* One function symbol, in the DSO's link-time address space. */
struct sym {
	u64 addr;
	u64 end;	  /* exclusive: a lookup hits when addr <= a < end */
	u64 max_end;	  /* max(end) over this and every earlier entry, for overlaps */
	const char *name; /* as in the file, in the owning table's arena: shown
			   * through symtab__name */
	bool plt;	  /* name is NAME@plt, a PLT entry's */
};

/*
 * A loaded symbol table: sorted by addr, one entry per address (aliases
 * already resolved), names in one arena.  Immutable after loading.
 */
struct symtab {
	struct sym *syms;
	size_t nsyms;
	char *arena;
	bool demangle;	    /* names shown demangled */
	const char **shown; /* [nsyms] once a name was shown: what symtab__name gave
			     * (a demangled name, malloc'd, or the entry's own);
			     * NULL until then */
};

/* Binding preference among aliases: lower wins. */
enum {
	RANK_GLOBAL = 0,
	RANK_WEAK = 1,
	RANK_LOCAL = 2,
};

/* A symbol as read, before aliases are merged and ends computed. */
struct raw_sym {
	u64 addr;
	u64 size;
	u64 sec_end;	  /* end of its section, 0 when unknown */
	const char *name; /* owned by the reader until the table is built */
	size_t name_len;
	u8 rank;
	bool plt;     /* name gets "@plt" appended */
	size_t order; /* position in the table, set by raw_vec__push */
};

struct raw_vec {
	struct raw_sym *v;
	size_t n, cap;
};

int raw_vec__push(struct raw_vec *rv, const struct raw_sym *rs);

/*
 * Build t from rv (sorted and merged in place; names copied, demangled when
 * first shown if demangle).  rv keeps its memory: the caller frees rv->v.
 * 0 or -ENOMEM.
 */
int symtab__build(struct symtab *t, struct raw_vec *rv, bool demangle);

/* One PT_LOAD segment: file offsets [offset, offset + filesz) map to vaddr. */
struct segment {
	u64 offset;
	u64 filesz;
	u64 vaddr;
	bool exec; /* PF_X: the loader maps it executable */
};

struct dwarf_info;
struct addr_ent;
struct gopcln;

/*
 * One distinct object file (or in-memory image), loaded once per
 * symbolizer and shared by every map that shows it.  Keyed in
 * symbolizer.dsos by build-id, by (dev, inode, mtime, path), or for images
 * by (name, size, hash of the bytes).  A DSO that failed to load stays in
 * the cache with failed set and no symbols, so it is tried (and warned
 * about) once.  Its DWARF is opened on the first lookup that wants it.
 */
struct dso {
	UT_hash_handle hh;
	void *key;
	size_t key_len;
	bool failed;
	bool refused;		     /* failed: not the file the recording names */
	u64 unresolved;		     /* lookups in it since symbolizer__warn_unresolved */
	char unusable[320];	     /* why it failed, "" when it did not (or not worth a word) */
	enum ebs_code unusable_code; /* its code */
	struct symtab symtab;
	struct segment *segs; /* NULL/0: translate nothing, use the file offset */
	size_t nsegs;
	void *image; /* our copy of an in-memory image, or NULL */
	size_t image_size;
	u8 build_id_size; /* the file's own NT_GNU_BUILD_ID, 0 if none */
	u8 build_id[20];
	u16 machine; /* ELF e_machine */
	/* PT_GNU_EH_FRAME: the .eh_frame_hdr the unwinder searches (unwind.c) */
	u64 eh_hdr_vaddr, eh_hdr_size;
	struct dso_cfi *cfi; /* its CFI as read for unwinding, NULL until then */

	/* what the ELF file says about its debug information */
	bool has_symtab; /* .symtab with functions (else .dynsym was used) */
	bool has_dwarf;	 /* .debug_info with contents */
	bool has_debuglink;
	u32 debuglink_crc;
	char debuglink[256]; /* .gnu_debuglink file name */

	char *path;		/* the file, NULL for an image */
	char *debug_path;	/* where DWARF is: path, a separate file, or NULL */
	char *symbols_from;	/* the file the symbol table came from */
	char *looked;		/* where a separate debug file was looked for */
	bool debug_fetched;	/* debug_path is a file a debuginfod server sent */
	bool file_fetched;	/* so is path */
	u8 debug_build_id_size; /* debug_path's build-id, the DWARF cache's key; 0 if none */
	u8 debug_build_id[20];
	bool dwarf_tried;
	bool dwarf_warn; /* dwarf_problem is yet to be said (opened by symbolizer__prefetch) */
	struct dwarf_info *dwarf;
	char dwarf_problem[640];
	enum ebs_code dwarf_code; /* dwarf_problem's */
	struct sym_dso_info info; /* views of the above, handed out */
	struct ebs_strset *shown; /* info's paths that hold control characters, as '?' */

	struct addr_ent *cache; /* per-address results, by link-time address */
	struct addr_ent *bare;	/* results without frames replaced since: kept for
				 * what they were lent to (symbolizer__frames_for) */
	size_t nr_cache;	/* its entries */
	/*
	 * In front of cache, a slot per hash of an address: the entry last
	 * found or made there, so that most lookups probe once; 1 << front_bits
	 * slots, at least twice the entries (NULL: none yet).
	 */
	struct addr_slot *front;
	unsigned int front_bits;
	bool is_jit; /* a perf-PID.map: addresses are runtime ones */

	/*
	 * A Go binary's own table of functions and lines (gopclntab.c), read
	 * when the file has no .symtab or no DWARF: its functions fill the
	 * symbol table, its lines stand in for DWARF's.  NULL when none;
	 * gopcln_problem says why a table was refused ("" when none was).
	 */
	struct gopcln *gopcln;
	char gopcln_problem[320];

	/*
	 * One file seen under two keys (through /lib and /usr/lib, with a
	 * build-id and without) is one DSO: the first loaded is canonical,
	 * found by its identity (the file's own build-id, else device, inode
	 * and mtime) in symbolizer.dsos_by_id; a later one points at it.
	 */
	struct dso *canon; /* NULL: this one is canonical */
	UT_hash_handle hh_id;
	void *id_key;
	size_t id_len;
	u64 st_dev, st_ino; /* of the loaded file, 0 for an image */
	s64 st_mtime_sec, st_mtime_nsec;
};

/* The kernel's symbols, read from kallsyms on first use. */
struct ksym {
	u64 addr;
	u64 end; /* the next symbol's address (the last: KALLSYMS_LAST_SPAN on) */
	const char *name;
	const char *dso; /* "[kernel]" or an interned "[modname]" */
	bool global;	 /* upper-case type letter: preferred among aliases */
};

struct kallsyms {
	struct ksym *syms; /* sorted by addr, one per address */
	size_t nsyms;
	char *arena;
	struct ebs_strset *mods; /* "[modname]" */
	u64 stext;		 /* _stext's address, 0: not listed (read before
				  * aliases are merged: _text often wins it) */
};

struct map_ent;

struct symbolizer {
	char *kallsyms_path; /* NULL: /proc/kallsyms */
	char *kcore_path;    /* NULL: /proc/kcore */
	char **debug_dirs;   /* the options' dirs, the build-id dirs, symfs's /usr/lib/debug,
			      * then /usr/lib/debug (always last); NULL-terminated */
	char **buildid_dirs; /* the options' build-id directories; NULL-terminated */
	char *symfs;	     /* --symfs, or NULL */
	bool offline;	     /* no debuginfod */
	struct debuginfod *debuginfod; /* libdebuginfod and its client, made at the first
					* question (debuginfod.c); NULL until then */
	ebs_warn_fn *progress;	       /* opts.progress */
	void *progress_ctx;
	char *perf_map_dir;
	bool demangle;
	bool no_dwarf;
	bool no_lines; /* DWARF's units decoded without their line tables */
	bool (*frames_for)(void *ctx, const char *function); /* symbolize_opts' */
	void *frames_ctx;
	bool all_bare;		   /* no frames at all: symbolizer__prefetch_while's pass */
	struct prefetch *deferred; /* symbolizer__prefetch's work, for symbolizer__prefetch_while */
	struct sym_cache *cache;   /* NULL: none */
	ebs_warn_fn *warn;
	void *warn_ctx;

	struct dso *dsos;	/* by dso.key */
	struct dso *dsos_by_id; /* canonical ones, by dso.id_key (hh_id) */
	struct map_ent *maps;	/* per-mapping shortcut to the dso, see symbolize.c */
	void *keybuf;		/* scratch for building map keys */
	size_t keybuf_cap;
	u32 nr_ids; /* addresses resolved so far: the last sym_result.id */

	void *unwind_as;	       /* libunwind's address space, made on first use */
	bool kernel_tried;	       /* kallsyms read (or failed to) */
	struct kallsyms_preload *kpre; /* /proc/kallsyms being read ahead, adopted */
	struct kallsyms *kernel;       /* NULL when unreadable or restricted */
	/*
	 * Several recordings' kernels (symbolizer__add_kernel_symbols): their
	 * tables, owned here; while one is in use (symbolizer__use_kernel),
	 * kernel and kernel_tried are it, and the default's are kept aside.
	 */
	struct kallsyms **ktables;
	size_t nktables;
	bool kernel_swapped;
	bool home_tried;
	struct kallsyms *kernel_home;
	struct ebs_strset *knames; /* their symbols' and modules' names, interned */
	bool kshared;		   /* symbolizer__share_kernel_names: every table's */
};

/* ---- where a mapped file is (locate.c) ---- */

/* Where locate__next is; zeroed to start. */
struct locate_iter {
	unsigned int step;
	bool recorded_path; /* the last place given is the recorded path itself */
	bool fetched;	    /* ... is a file a debuginfod server sent */
	bool asked;	    /* debuginfod was asked (the last place) */
};

/*
 * The next place to look for the file map names (recorded at path; map
 * NULL: addr2line's file, only path itself) into out: the recorded path,
 * or with --symfs the path under it; then, when the recording has the
 * file's build-id, DIR/.build-id/xx/REST in each build-id directory; last,
 * the file a debuginfod server sends for that build-id (debuginfod__find).
 * 1 with out set, 0 when there is no other place, -ENAMETOOLONG, -ENOMEM.
 */
int locate__next(struct symbolizer *s, const char *path, const struct sym_map *map,
		 struct locate_iter *it, char *out, size_t len)
	__attribute__((nonnull(1, 2, 4, 5)));

/* ---- asking debuginfod servers (debuginfod.c) ---- */

enum debuginfod_kind {
	DEBUGINFOD_DEBUGINFO,  /* a separate debug file */
	DEBUGINFOD_EXECUTABLE, /* the file itself */
	DEBUGINFOD_SOURCE,     /* a source file its DWARF names */
};

/*
 * Ask the servers of $DEBUGINFOD_URLS for the file of kind with build-id
 * id (a source: source, its name as DWARF has it, absolute), unless s is
 * offline, DEBUGINFOD_URLS is unset or empty, libdebuginfod is not there,
 * or a server failed before (each said once).  what names the file in
 * lines ("the debug file of libfoo.so").  1 with its path (in
 * libdebuginfod's client cache) in out: for the first two kinds, a
 * regular ELF file of build-id id; 0 when there is none, *verdict then
 * NULL (not asked) or a word for report --stats ("(not found)",
 * "(failed)", "(refused)"), and "" with 1; -ENOMEM.
 */
int debuginfod__find(struct symbolizer *s, enum debuginfod_kind kind, const u8 *id, u8 id_size,
		     const char *source, const char *what, char *out, size_t len,
		     const char **verdict) __attribute__((nonnull(1, 3, 6, 7, 9)));
void debuginfod__free(struct debuginfod *d); /* accepts NULL */

/* ---- text from the files the recording names (file.c) ---- */

/*
 * Names and file names come from the files read: a crafted one could hold
 * a newline, or a terminal's escape sequences.  sym_clean_text replaces
 * control characters (C0, DEL, and C1, raw or as UTF-8) in s by '?', in
 * place, and returns s; sym_text_is_clean says whether there are none
 * (util.h's ebs_clean_text).
 */
char *sym_clean_text(char *s);
bool sym_text_is_clean(const char *s);

/*
 * Deliver one warning line ("warning: " and the message, code its
 * EBS_E_ code) through opts.warn, if any: formatted by
 * ebs_vformat_line, so that a path or name in it keeps it one line and
 * sends no escape sequence.
 */
void symbolizer__warn(struct symbolizer *s, enum ebs_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), nonnull(1, 3)));

/*
 * Load the symbols and PT_LOAD segments of an ELF file (fd) or of an
 * in-memory image (image != NULL, fd ignored) into d, and note what the
 * file says of its debug information.  Returns 0, or -errno with err
 * filled (EBS_E_NOT_ELF, EBS_E_BAD_ELF, EBS_E_NOMEM).  "No symbols" is a
 * success with an empty table: err then holds EBS_E_NO_SYMBOLS and why
 * ("no symbol table"), for the caller's warning; else EBS_E_OK.
 */
int dso__load_elf(struct dso *d, int fd, void *image, size_t image_size, bool demangle,
		  struct ebs_error *err) __attribute__((nonnull(1, 6)));

/*
 * Replace d's symbols by the .symtab of its separate debug file (dbg_fd),
 * keeping the PLT entries of the file itself (fd).  For a stripped file
 * whose debug file has the full table.  0, or -errno (d unchanged).
 */
int dso__load_debug_symtab(struct dso *d, int fd, int dbg_fd, bool demangle);

/*
 * Look for d's separate debug file (d->path is the file, NULL for an image):
 * by build-id under each debug directory's .build-id/, then by
 * .gnu_debuglink beside the file, in its .debug/ and under each debug
 * directory.  A candidate must carry DWARF and match the build-id (or the
 * debuglink CRC).  Sets d->debug_path (or leaves it NULL) and d->looked.
 * 0 or -ENOMEM.
 */
int dso__find_debug(struct symbolizer *s, struct dso *d);

/*
 * d's file opened again (its code read for annotate --asm, for unwinding):
 * the descriptor, or -errno; -ESTALE when the path now holds another file
 * than the one loaded (by device and inode), whose bytes would not be d's.
 */
int dso__open_again(const struct dso *d);

/*
 * What the ELF file open on fd says of itself, into d: its build-id, and
 * of its debug information (has_dwarf, the .gnu_debuglink), as
 * dso__load_elf notes them, without its symbols.  0, -EINVAL (not ELF),
 * -ENOMEM.
 */
int dso__read_facts(struct dso *d, int fd);

/* The build-id of the ELF file open on fd, and whether it carries DWARF. 0 or -EINVAL. */
int elf_fd__debug_facts(int fd, u8 *build_id, u8 *build_id_size, bool *has_dwarf);

/*
 * The supplementary file (dwz -m) that the DWARF file open on fd refers to:
 * .gnu_debugaltlink's name and build-id, else DWARF 5's .debug_sup name and
 * checksum (as id, up to 20 bytes; a .debug_sup of a version other than 5
 * is not read).  1 with name and id set; 2 when it is
 * itself a DWARF 5 supplementary file (id: its own checksum, name empty);
 * 0 when it has neither section, -EINVAL when it cannot be read, -ENOMEM.
 */
int elf_fd__altlink(int fd, char *name, size_t name_len, u8 *id, u8 *id_size);

/*
 * Find the supplementary file named name (id: its build-id, id_size 0 for
 * none) of the DWARF file at dwarf_path: name as it is when absolute, else
 * beside dwarf_path; then DIR/NAME (for a --debug-dir) and DIR/.dwz/BASE,
 * and DIR/.build-id/xx/rest.debug, for each of the debug directories.  A
 * candidate must carry DWARF and, when id is given, have that build-id.
 * 1 with its path in out, 0 when none was found (err: EBS_E_NO_DEBUG_INFO,
 * its line lists what was tried), -ENOMEM.
 */
int dwarf_alt_find(const char *dwarf_path, const char *name, const u8 *id, u8 id_size,
		   const char *const *debug_dirs, char *out, size_t out_len, struct ebs_error *err)
	__attribute__((nonnull(1, 2, 6, 8)));

/*
 * The DSO of map and its load bias (runtime address - link-time address),
 * or NULL when map has none the symbolizer can read (a pseudo-file, a JIT
 * map, a file that failed).  symbolize.c, for unwind.c.
 */
struct dso *symbolizer__map_dso(struct symbolizer *s, const struct sym_map *map, u64 *bias);

/*
 * One table of CFI as libunwind searches it: an .eh_frame_hdr (its search
 * table at table_vaddr, fde_count pairs of s32) and the .eh_frame it
 * indexes, their bytes and their link-time addresses in the DSO.
 */
struct cfi_table {
	u8 *hdr;
	u64 hdr_vaddr, hdr_size;
	u8 *eh;
	u64 eh_vaddr, eh_size;
	u64 table_vaddr, fde_count;
	u8 *buf; /* what to free: both, when made in one piece */
};

/*
 * The .debug_frame of the ELF file at path as such a table, placed at
 * link-time address base, which must lie above every function and within
 * 1 GiB of them (debugframe.c).  0, -ENOENT when it has no usable FDE, or
 * -errno.
 */
int debug_frame__synth(const char *path, u64 base, struct cfi_table *t);

/* Free what unwind.c keeps of d and of s (dso__free, symbolizer__free). */
struct dso_cfi;
void dso_cfi__free(struct dso_cfi *c); /* accepts NULL */
void symbolizer__unwind_exit(struct symbolizer *s);

/* Link-time address of file offset off in d. */
u64 dso__file_to_vaddr(const struct dso *d, u64 off);
/*
 * The load bias (runtime address - link-time address) of an executable
 * mapping of d at start, len bytes of it from file offset pgoff.
 */
u64 dso__map_bias(const struct dso *d, u64 start, u64 len, u64 pgoff);
/* File offset of link-time address vaddr in d, with *room bytes after it in its segment; -1 if
 * none. */
s64 dso__vaddr_to_file(const struct dso *d, u64 vaddr, u64 *room);

/* The symbol covering addr, or NULL. */
const struct sym *symtab__find(const struct symtab *t, u64 addr);

/*
 * s's name as shown (s is t's): demangled when t was built to demangle
 * and it is a mangled C++ or Rust name, demangling it the first time
 * (then kept: one pointer per symbol, for t's lifetime); else s->name.
 * *mangled (when mangled is not NULL) gets s->name when the name shown
 * is its demangled form, else NULL.  Not thread-safe: it fills t's cache.
 */
const char *symtab__name(struct symtab *t, const struct sym *s, const char **mangled);
void symtab__exit(struct symtab *t); /* accepts NULL */

/*
 * Read a perf-PID.map (lines "START SIZE NAME", hex) into t.  0, or -errno
 * (-ENOENT when there is no such file) with err filled: see jitmap.c for
 * what is refused.  jitmap__load: the same without a reason.
 */
int jitmap__load_err(const char *path, struct symtab *t, bool demangle, struct ebs_error *err)
	__attribute__((nonnull(1, 2)));
int jitmap__load(const char *path, struct symtab *t, bool demangle);

/*
 * A thread that takes no signal (pthread_create's 0 or error): SIGINT's
 * handler and SIGPIPE stay the caller's thread's (prefetch, kallsyms).
 */
int sym_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg);

/* Kernel side (kallsyms.c). */
struct kallsyms *kallsyms__load(const char *path, struct ebs_error *err)
	__attribute__((nonnull(1)));
/* The preload's table (waited for; NULL with errno set and why filled), p freed. */
struct kallsyms *kallsyms_preload__take(struct kallsyms_preload *p, struct ebs_error *why);
/* From a recording's table (sorted, not overlapping; what is not is left out).  NULL: ENOMEM. */
struct kallsyms *kallsyms__from_table(const struct sym_ksym *v, size_t n, u64 stext);
void kallsyms__free(struct kallsyms *k); /* accepts NULL */
const struct ksym *kallsyms__find(const struct kallsyms *k, u64 addr);

/* ---- the cache directory (cache.c) ---- */

struct sym_cache;

/*
 * What differs between the caches kept in a cache directory: the DWARF
 * cache (sym_cache_dwarf, dwarf_cache.c) and the build-id cache
 * (buildid.c).  The directory's rules, the writing through a temporary
 * file and the eviction are the same (cache.c).
 */
struct sym_cache_kind {
	const char *what;     /* how warnings name it: "cache", "build-id cache" */
	const char *env;      /* the variable of its size cap: "EBS_CACHE_MAX" */
	u64 max;	      /* the cap without it */
	const char *max_text; /* the same, as warnings say it: "512M" */
	const char *sub;      /* its directory under $XDG_CACHE_HOME/ebs: "" or "/buildid" */
	const char *hint;     /* how to go on without a word */
	bool buildid;	      /* entries in .build-id/XX/ (sym_cache__subdir), not in the
			       * directory itself */
};
extern const struct sym_cache_kind sym_cache_dwarf;

/*
 * The cache of kind k at dir (NULL: $XDG_CACHE_HOME/ebs, else
 * $HOME/.cache/ebs, then k->sub), held to k->env bytes (K, M, G).  NULL
 * when there is none to use: the cap 0 or no HOME (errno 0), no memory
 * (errno ENOMEM).  Nothing is done to the directory until an entry is
 * looked for.  Warnings ("warning: ...") through warn.  sym_cache__new:
 * the DWARF cache, warnings through s's.
 */
struct sym_cache *sym_cache__new_kind(const struct sym_cache_kind *k, const char *dir,
				      ebs_warn_fn *warn, void *warn_ctx)
	__attribute__((nonnull(1)));
struct sym_cache *sym_cache__new(struct symbolizer *s, const char *dir);
/* Its directory's path. */
const char *sym_cache__dir(const struct sym_cache *c);
/*
 * Is the directory there and usable (checked as for writing, never made)?
 * 0; -1 when it is not there or out of reach (EACCES: nothing can be read
 * from it; nothing said) or may not be used (said once).
 */
int sym_cache__check(struct sym_cache *c);
/*
 * The build-id layout's DIR/.build-id/XX (hex2: XX), made 0700 when make:
 * each a directory of the caller's no one else may write, not followed if
 * a link.  Its descriptor (the caller's to close), or -errno (said once;
 * -ENOENT, unsaid, when it is not there and not made).
 */
int sym_cache__subdir(struct sym_cache *c, const char *hex2, bool make);
void sym_cache__free(struct sym_cache *c); /* accepts NULL */
/* "512M", "1G", "4096": bytes.  0, or -EINVAL. */
int sym_cache_parse_size(const char *text, u64 *out);
/*
 * Open entry name for reading: a regular file of the caller's, not
 * followed if a symbolic link.  The descriptor with *st, or -errno.
 */
int sym_cache__open(struct sym_cache *c, const char *name, struct stat *st);
/*
 * Make and check the directory now, as the first sym_cache__open would, so
 * that later sym_cache__open and sym_cache__used calls change nothing of c
 * and may be made on several threads at once.
 */
void sym_cache__ready(struct sym_cache *c);
/* The total size the entries are held to (EBS_CACHE_MAX). */
u64 sym_cache__max(const struct sym_cache *c);
/* Say that the entry open on fd was used (its mtime: eviction goes by it). */
void sym_cache__used(int fd);
/*
 * Begin writing entry name: a new temporary file beside it (open for
 * reading too), its name in tmp.  The descriptor, or -errno (said once).
 * Then sym_cache__commit (closes fd, renames the file into place, evicts;
 * an entry larger than the cap is removed instead, -EFBIG, and nothing
 * evicted), or sym_cache__abort (closes fd, removes the file; err
 * nonzero: why the write failed, said).
 */
int sym_cache__create(struct sym_cache *c, const char *name, char *tmp, size_t tmp_len);
int sym_cache__commit(struct sym_cache *c, int fd, const char *tmp, const char *name);
void sym_cache__abort(struct sym_cache *c, int fd, const char *tmp, int err); /* accepts NULL */
/*
 * The same in the directory open on dfd (a sym_cache__subdir), but
 * sym_cache__commit_at evicts nothing: the caller calls sym_cache__evict.
 */
int sym_cache__create_at(struct sym_cache *c, int dfd, const char *name, char *tmp, size_t tmp_len);
int sym_cache__commit_at(struct sym_cache *c, int dfd, int fd, const char *tmp, const char *name);
void sym_cache__abort_at(struct sym_cache *c, int dfd, int fd, const char *tmp, int err);
/* Hold the entries to the cache's size (sym_cache__commit does). */
void sym_cache__evict(struct sym_cache *c);
/*
 * XXH64 of len bytes at data (read in the machine's byte order): the
 * checksums inside an entry, which guard against faults (an entry is the
 * caller's own file, found by sym_dwarf_digest's digest of its source).
 */
u64 sym_hash64(const void *data, size_t len, u64 seed);
/* The first len bytes of the file on fd, hashed: sym_hash64 chained over 1 MiB pieces. */
int sym_hash_range(int fd, u64 len, u64 *out);

/* ---- what an entry is of (digest.c) ---- */

#define SYM_DIGEST_LEN 32
/*
 * The SHA-256 of what decoding the DWARF of the ELF file on fd reads: its
 * ELF header, its section headers, and its DWARF, symbol table, string,
 * relocation and group sections, each with its place and size (the rest
 * of the file, never).  0; -EFBIG when those sections hold more than 1 GiB
 * (or the headers 16 MiB): not to be kept; -ENOEXEC when libelf does not
 * read it as ELF; -EINVAL for a section outside the file; -errno.  When
 * another user may write the file (not the caller's or root's, writable
 * by group or others, or on FUSE), *copy is a memfd of the file's size
 * holding the bytes hashed at their places and nothing else, for the
 * caller to read (and close) instead of fd: else -1.
 */
int sym_dwarf_digest(int fd, int *copy, u8 out[SYM_DIGEST_LEN]);

/*
 * The cache's entry for the DWARF of a file with that build-id
 * (dwarf_cache.c): its name in the directory.  dwarf_cache_seal, for the
 * fuzzer: make the entry's key that one (build-id, the DWARF file's size
 * and digest, demangling, this libdwarf) and its hashes right, wherever its
 * layout lets them be found, so that what lies behind them is what is tried.
 */
void dwarf_cache_entry_name(char *buf, size_t len, const u8 *build_id, u8 build_id_size,
			    bool demangle);
void dwarf_cache_seal(void *entry, size_t len, const u8 *build_id, u8 build_id_size, u64 dwarf_size,
		      const u8 dwarf_digest[SYM_DIGEST_LEN], bool demangle);

/* ---- Go's pclntab (gopclntab.c) ---- */

/* What gopcln__lookup finds for a pc: strings valid until gopcln__free. */
struct gopcln_hit {
	u64 lo, hi;	  /* the function's range */
	const char *name; /* its name, as in the table */
	const char *file; /* NULL when the table gives none; control characters as '?' */
	u32 line;	  /* 0 when the table gives none */
};

/*
 * A pclntab of size bytes (copied), header versions 1.2, 1.16, 1.18 and
 * 1.20, either byte order; text_start: where 1.18+'s entry offsets count
 * from (0: the header's textStart).  Its header, function table, records
 * and names are checked here.  NULL with errno and err (EINVAL:
 * EBS_E_BAD_GOPCLNTAB, its line says where; ENOMEM).
 */
struct gopcln *gopcln__new(const void *data, size_t size, u64 text_start, struct ebs_error *err);
/*
 * The pclntab of the ELF file e: its section .gopclntab (in a PIE,
 * .data.rel.ro.gopclntab), or, when the file has no section headers and
 * carries Go's build-ID note, one found in a data segment.  *table_off: the
 * section's file offset (0 when scanned).  NULL with errno: ENOENT, no
 * table (err EBS_E_OK); EINVAL, a table refused (err says why); ENOMEM.
 */
typedef struct Elf Elf;
struct gopcln *gopcln__from_elf(Elf *e, u64 *table_off, struct ebs_error *err)
	__attribute__((nonnull(1, 2)));
void gopcln__free(struct gopcln *g); /* accepts NULL */
const char *gopcln__version_name(const struct gopcln *g);
size_t gopcln__count(const struct gopcln *g);
/* Function i's range [*lo, *hi) and name.  0, or -EINVAL. */
int gopcln__func(const struct gopcln *g, size_t i, u64 *lo, u64 *hi, const char **name);
/*
 * The function covering pc and its file and line, as Go's runtime reads
 * them (the innermost inlined call's file and line; the function the code
 * was compiled in).  0; -ENOENT when no function covers pc; -ENOMEM.
 */
int gopcln__lookup(struct gopcln *g, u64 pc, struct gopcln_hit *hit);

/* DWARF (dwarf.c). */

/* Where a DSO's decoded DWARF is kept between runs: by its file's build-id. */
struct dwarf_cache_key {
	struct sym_cache *cache; /* NULL: not kept */
	const u8 *build_id;	 /* of the file the DWARF is in; none: not kept */
	u8 build_id_size;
	const char *const
		*debug_dirs; /* where a supplementary (dwz) file may be, NULL-terminated */
};

/*
 * The DWARF of the file at path, indexed, or NULL with err filled when
 * there is none (EBS_E_NO_DEBUG_INFO, EBS_E_BAD_DWARF, or the file's).  With a key, from the cache
 * when it has it (then the DWARF is read only for a unit the cache lacks), and what is decoded is
 * written back there by dwarf_info__free.  lines false: units are decoded without their line tables
 * (no rows, no file names; a cached unit with them serves too), for a caller that wants inline
 * chains only.
 */
struct dwarf_info *dwarf_info__open(const char *path, bool demangle, bool lines,
				    const struct dwarf_cache_key *key, struct ebs_error *err)
	__attribute__((nonnull(1)));
void dwarf_info__free(struct dwarf_info *di); /* accepts NULL */
/*
 * The inline chain at link-time address addr, innermost first (see struct
 * sym_frame), at most max_frames of it.  Returns the number of frames, 0
 * when no DWARF covers addr.  Strings stay valid until dwarf_info__free.
 */
int dwarf_info__lookup(struct dwarf_info *di, u64 addr, struct sym_frame *frames,
		       unsigned int max_frames);
/*
 * Decode the unit of link-time address addr now, as dwarf_info__lookup
 * would on first use.  Only this di is touched: any thread may do it while
 * no other uses di.
 */
void dwarf_info__prefetch(struct dwarf_info *di, u64 addr);
/*
 * fn for every line-table row (with a line) at an address in [lo, hi), in
 * address order within each unit, saying whether an inlined scope covers
 * it.  0, or fn's nonzero value.
 */
int dwarf_info__rows(struct dwarf_info *di, u64 lo, u64 hi,
		     int (*fn)(void *ctx, const struct sym_row *row), void *ctx);

/*
 * The source span of the function compiled at addr (see struct sym_span).
 * 0, or -ENOENT when DWARF does not say where it is declared.
 */
int dwarf_info__source_span(struct dwarf_info *di, u64 addr, struct sym_span *out);
/*
 * The function whose source text holds file:line, by the declarations of
 * the compilation unit at addr: the last one at or before line in file, not
 * inside another function.  NULL when none.
 */
const char *dwarf_info__line_owner(struct dwarf_info *di, u64 addr, const char *file, u32 line);
/*
 * The name file (as dwarf_info__lookup and the others give it: control
 * characters as '?') had in the DWARF, control characters and all, when
 * cleaning changed it; NULL when it did not (or no unit decoded so far
 * named it).  *ambiguous: several names of the DWARF clean into file.
 */
const char *dwarf_info__raw_name(const struct dwarf_info *di, const char *file, bool *ambiguous);

/*
 * From the .eh_frame of the ELF file at path (libdwarf reads it, with or
 * without .debug_* sections): 1 with the FDE covering addr as [*lo, *hi);
 * else 0 with *next the lowest FDE start above addr (UINT64_MAX: none);
 * -errno when there is no .eh_frame to read.
 */
int eh_frame__fde_around(const char *path, u64 addr, u64 *lo, u64 *hi, u64 *next);

/* Whether file (a name as lookups give it) is one of di's, decoded so far. */
bool dwarf_info__names_file(const struct dwarf_info *di, const char *file);

/* The first problem met while decoding (a corrupt unit...), or NULL. */
const char *dwarf_info__problem(const struct dwarf_info *di);

/* The owner of the file the DWARF was read from, as it was opened. */
uid_t dwarf_info__owner(const struct dwarf_info *di);

/*
 * A malloc'd demangled C++ or Rust name (symbolize/demangle.c), or NULL
 * when name is not a mangled one.
 */
char *ebs_demangle(const char *name);
/* The same, and *err -ENOMEM when NULL for want of memory (else 0). */
char *ebs_demangle_err(const char *name, int *err);

#endif /* EBS_SYMBOLIZE_INTERNAL_H */
