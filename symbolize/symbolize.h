/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h - resolve sample addresses to DSO, function, source file and
 * line, and inline chain.  The only module that includes <gelf.h> or
 * <libdwarf.h>.  No process-global state: everything hangs off a
 * struct symbolizer.
 *
 * Ownership: every string and frame a lookup returns is borrowed from the
 * symbolizer and stays valid until symbolizer__free().
 */
#ifndef EBS_SYMBOLIZE_H
#define EBS_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

struct symbolizer;

/* Called once per DSO that could not be read or lacks symbols; msg is one line. */

struct symbolize_opts {
	const char *kallsyms;		 /* NULL: /proc/kallsyms */
	const char *kcore;		 /* the kernel's memory; NULL: /proc/kcore */
	const char *const *debug_dirs;	 /* NULL-terminated places to look for separate debug
					  * files, searched before /usr/lib/debug; or NULL */
	const char *perf_map_dir;	 /* where JIT perf-PID.map files are; NULL: /tmp */
	const char *symfs;		 /* a directory the recorded paths are looked up under
					  * instead of / (perf's --symfs), and its
					  * usr/lib/debug for debug files; NULL: none */
	const char *const *buildid_dirs; /* NULL-terminated build-id directories (the build-id
					  * cache, an archive's files), or NULL: a file the
					  * recording names by build-id, when missing at its
					  * path or not the one recorded, is looked for as
					  * DIR/.build-id/xx/REST, its debug file as
					  * DIR/.build-id/xx/REST.debug */
	bool offline;			 /* never ask a debuginfod server ($DEBUGINFOD_URLS:
					  * debug files, files, sources; debuginfod.c) */
	bool demangle;			 /* C++ and Rust names demangled */
	bool no_dwarf;			 /* no lines, no inline chains (separate debug files
					  * are still found, for their symbol tables) */
	bool no_lines;			 /* inline chains without lines: DWARF's units are
					  * decoded without their line tables (a report of
					  * functions); results then have no file or line */
	bool cache;			 /* keep decoded DWARF between runs, by build-id, in
					  * cache_dir (docs/symbolize.md, "The cache") */
	const char *cache_dir;		 /* NULL: $XDG_CACHE_HOME/ebs, else ~/.cache/ebs */
	ebs_warn_fn *warn; /* "warning: ..." lines and their EBS_E_ codes (util/error.h);
			    * NULL: stay quiet */
	void *warn_ctx;
	ebs_warn_fn *progress; /* a download's progress, a line redrawn in place ("" clears
				* it), code EBS_E_OK; NULL: none (not a terminal) */
	void *progress_ctx;
	/*
	 * NULL, or which functions' addresses want their inline chains and
	 * lines: an address in another function (by the symbol table's name,
	 * as sym_result.function; NULL without one) is resolved without
	 * DWARF (no frames), and its DWARF is not read ahead
	 * (symbolizer__prefetch).  An annotate of one function reads no DWARF
	 * of the others.  symbolizer__frames_for changes it.
	 */
	bool (*frames_for)(void *ctx, const char *function);
	void *frames_ctx;
};

/*
 * A mapping as the data file describes it.  filename is a path, or a
 * pseudo-name: "[vdso]" (image/image_size then hold its bytes, copied at
 * record time), "[kernel.kallsyms]" for kernel addresses, "//anon" and
 * friends for anonymous memory (JIT code, resolved through pid's
 * perf-PID.map when there is one).
 */
struct sym_map {
	u64 start;
	u64 len;
	u64 pgoff; /* file offset that start maps */
	u64 ino;
	u32 maj, min;
	u32 pid; /* the process, for JIT maps; 0 when unknown */
	u8 build_id_size;
	u8 build_id[20];
	const char *filename;
	const void *image; /* in-memory copy of the DSO, or NULL */
	size_t image_size;
};

/* What is known of one DSO's symbols and debug information (for --stats). */
struct sym_dso_info {
	const char *path;	     /* as mapped (the first mapping's, for one mapped under
				      * several paths) */
	bool has_symbols;	     /* a symbol table with functions was read */
	const char *symbols_from;    /* the file the symbols came from, or NULL */
	const char *debug_path;	     /* the file DWARF came from, NULL when none */
	const char *looked;	     /* where a separate debug file was looked for, "" when not */
	bool debug_fetched;	     /* debug_path came from a debuginfod server (its cache) */
	const char *fetched;	     /* the file itself, when a debuginfod server sent it:
				      * where it is (as shown); else NULL */
	const char *problem;	     /* why DWARF is missing or partial, NULL when it is not */
	const char *unusable;	     /* why the file is not used at all (missing, not a
				      * regular file, not ELF, not the file recorded), one
				      * line naming it; NULL when it is used */
	enum ebs_code unusable_code; /* its code (util/error.h), EBS_E_OK when used */
	uid_t dwarf_owner;	     /* the owner of debug_path as its DWARF was read: whose
				      * names of source files those are; (uid_t)-1 until
				      * the DWARF is opened (by the first lookup of a line) */
	/*
	 * The files read, by their real names (to open, not to print): file
	 * the DSO itself (the recorded path, under --symfs, or in a build-id
	 * directory), NULL when none was (an image, a JIT map, a DSO that
	 * could not be read); file_dev and file_ino what it was when read;
	 * debug_file the file DWARF came from (file itself, a separate debug
	 * file, or NULL).  What ebs archive copies.
	 */
	const char *file;
	u64 file_dev, file_ino;
	const char *debug_file;
};

/*
 * One function of an inline chain.  frames[0] is the innermost: the
 * function whose code is at the address, at the line table's location.
 * frames[i] (i > 0) is the function frames[i - 1] was inlined into, at the
 * call site; the last frame is the function that was compiled.
 */
struct sym_frame {
	const char *function; /* demangled; NULL when DWARF names none */
	const char *file;     /* full path as compiled; NULL when unknown */
	u32 line;	      /* 0 when unknown */
	u32 column;	      /* 0 when unknown */
};

struct sym_result {
	const char *function; /* the symbol table's name; NULL when no symbol covers
			       * the address (DWARF's names are in frames[]) */
	const char *mangled;  /* function as the symbol table has it, when function is
			       * its demangled form; else NULL */
	const char *dso;      /* short name: "libc.so.6", "[vdso]", "[kernel]" */
	const char *dso_path; /* as mapped */
	u64 sym_offset;	      /* addr - function start, when the symbol table has it */
	u64 dso_addr;	      /* the address in the DSO's own (link-time) address space,
			       * or for an unreadable DSO the file offset */
	/* from DWARF; file NULL and nr_frames 0 when there is none for addr */
	const char *file; /* = frames[0].file */
	u32 line, column;
	unsigned int nr_frames;
	const struct sym_frame *frames;
	const struct sym_dso_info *info; /* NULL for the kernel */
	/*
	 * The address's number: one per DSO and link-time address resolved,
	 * from 1 up in the order first resolved, so that callers can keep what
	 * they make of a result in an array.  Equal ids are equal results but
	 * for dso and dso_path (a file mapped under two paths is one DSO).  0
	 * for the kernel, a DSO that cannot be read and code outside any.
	 */
	u32 id;
};

/* Returns NULL with errno set when out of memory. */
struct symbolizer *symbolizer__new(const struct symbolize_opts *opts); /* opts NULL: defaults */
void symbolizer__free(struct symbolizer *s);			       /* accepts NULL */

/*
 * Resolve a user-space address inside map.  Returns 0 and fills out (with
 * out->function NULL when no symbol covers addr: the caller reports it as
 * "[unknown] DSO+0xdso_addr"); -errno only for bad arguments or no memory.
 * A DSO that cannot be read, or that is not the file recorded (map's
 * build-id, else its inode, differs from the file's), is remembered, warned
 * about once, and still fills out->dso and out->dso_addr.
 */
int symbolizer__lookup(struct symbolizer *s, const struct sym_map *map, u64 addr,
		       struct sym_result *out) __attribute__((nonnull(1, 2, 4)));

/*
 * symbolizer__lookup for a caller that looks up many addresses of one
 * mapping: *memo, the caller's (NULL at first, kept with map and passed
 * with no other map), remembers map's entry in s, which symbolizer__lookup
 * finds by a hash of map's file name and identity every time (and for an
 * in-memory image, compares the bytes).  map must not change (nor the
 * bytes of its image) while *memo is set, nor *memo outlive s.  memo NULL:
 * no memo.
 */
struct map_ent;
int symbolizer__lookup_memo(struct symbolizer *s, const struct sym_map *map, struct map_ent **memo,
			    u64 addr, struct sym_result *out) __attribute__((nonnull(1, 2, 5)));

/*
 * Before a pass of lookups: the mappings it will look up, each with some
 * of its (runtime) addresses, a sample of them being enough.  The DWARF
 * of their files is read and the units of those addresses decoded now, a
 * file to a thread, on as many threads as this process has CPUs (at most
 * 8), instead of one after another as the pass meets them.  Lookups then
 * answer as they would have; a file that cannot be read is warned about at
 * its first lookup, as without.  One file, or one CPU: nothing is done.
 * memo as symbolizer__lookup_memo's (may be NULL).  0, or -ENOMEM.
 */
struct sym_prefetch {
	const struct sym_map *map;
	struct map_ent **memo;
	const u64 *addrs;
	size_t naddrs;
};
int symbolizer__prefetch(struct symbolizer *s, const struct sym_prefetch *v, size_t n)
	__attribute__((nonnull(1)));

/*
 * From now on, frames for the functions fn says (symbolize_opts.frames_for;
 * fn NULL: for every address).  An address resolved without them while
 * fn said no is resolved again, with them, when next looked up after fn
 * says yes; the earlier result's frames and names stay valid.
 */
void symbolizer__frames_for(struct symbolizer *s, bool (*fn)(void *ctx, const char *function),
			    void *ctx) __attribute__((nonnull(1)));

/*
 * With frames_for set, symbolizer__prefetch only notes what to read: this
 * reads it on the calling thread (and more, one file to a thread) while
 * fn(ctx) runs on another, its lookups all without frames (sym_result
 * with no frames, no file, no line; the DWARF being read is not
 * touched).  The lookups fn makes must be the only use of s meanwhile.
 * Frames are had after, by looking the addresses up again
 * (symbolizer__lookup_in) once symbolizer__frames_for(s, NULL, NULL).
 * fn's return; fn(ctx) alone when nothing was noted or no thread starts.
 */
int symbolizer__prefetch_while(struct symbolizer *s, int (*fn)(void *ctx), void *ctx)
	__attribute__((nonnull(1, 2)));

/*
 * Warn (through opts.warn), for each mapped file refused because it is not
 * the one recorded (another build-id, none where one was recorded, another
 * inode), how many symbolizer__lookup calls it left unresolved since the
 * last call: for a report, its samples.
 */
void symbolizer__warn_unresolved(struct symbolizer *s);

/*
 * Resolve a link-time address of the ELF file at path, as addr2line does.
 * Returns 0 (out filled as above) or -errno.
 */
int symbolizer__lookup_file(struct symbolizer *s, const char *path, u64 vaddr,
			    struct sym_result *out) __attribute__((nonnull(1, 2, 4)));

/*
 * Resolve a kernel address through kallsyms (opts.kallsyms or
 * /proc/kallsyms); modules resolve with dso "[module_name]".  When kallsyms
 * is unreadable or shows zeroed addresses, function is NULL, dso
 * "[kernel]" and dso_addr the address itself.  Returns 0.
 */
int symbolizer__lookup_kernel(struct symbolizer *s, u64 addr, struct sym_result *out)
	__attribute__((nonnull(1, 3)));

/*
 * A kernel caller's frame from its return address ret: looked up one byte
 * back, inside the call (*look = ret - 1), as for user space; but when that
 * byte is a function's padding (__pfx_, __cfi_), which holds no call, ret
 * itself (*look = ret) when it names a function.  Such a "return address" is
 * a function's entry that a retpoline thunk (__x86_indirect_thunk_rax) put
 * on the stack to jump to it, and perf names that function too.
 */
int symbolizer__lookup_kernel_caller(struct symbolizer *s, u64 ret, struct sym_result *out,
				     u64 *look) __attribute__((nonnull(1, 3, 4)));

/* A kernel text symbol: [start, end), its name, its DSO ("[kernel]", "[ext4]"). */
struct sym_ksym {
	u64 start, end;
	const char *name;
	const char *dso;
	bool global; /* an upper-case type letter: preferred among aliases */
};

/*
 * The kernel's _stext from /proc/kallsyms, as hex, into buf: where KASLR put
 * the kernel this boot (a recording's META kernel_stext).  0, or -ENOENT
 * when it is hidden (kptr_restrict shows zeros) or not found, or -errno.
 */
int kallsyms__stext(char *buf, size_t len);

/*
 * /proc/kallsyms read ahead, on a thread of its own, while a report does
 * other work first (converting a perf.data file, which carries no kernel
 * symbols): the kernel takes some 50 ms to write the file out.
 * symbolizer__adopt_kernel hands it to s, whose first read of
 * /proc/kallsyms waits for it and takes it instead, errors and warnings as
 * its own read's would be, and when they would be; s frees it, and so does
 * adopting it when opts.kallsyms named a file.  One never adopted is
 * freed (waited for) with kallsyms_preload__free.  NULL when no thread
 * could be started: /proc/kallsyms is read when needed, as without.
 */
struct kallsyms_preload;
struct kallsyms_preload *kallsyms_preload__start(void);
void kallsyms_preload__free(struct kallsyms_preload *p); /* accepts NULL */
void symbolizer__adopt_kernel(struct symbolizer *s, struct kallsyms_preload *p)
	__attribute__((nonnull(1)));

/*
 * For a recording's KSYMS record: the kernel symbols (from opts.kallsyms or
 * /proc/kallsyms, now) that cover the sorted addresses addrs[n], each once,
 * by address, and the function after each such symbol that is padding
 * (symbolizer__lookup_kernel_caller), into *out (malloc'd, *nout of them;
 * the strings live as long as s) and _stext's address into *stext (0: not
 * listed).  0; -errno with
 * err set when kallsyms cannot be read or hides its addresses
 * (EBS_E_ADDRESSES_HIDDEN, EBS_E_NO_SYMBOLS, EBS_E_LINE_TOO_LONG...).
 */
int symbolizer__kernel_symbols(struct symbolizer *s, const u64 *addrs, size_t n,
			       struct sym_ksym **out, size_t *nout, u64 *stext,
			       struct ebs_error *err) __attribute__((nonnull(1, 4, 5, 6)));

/*
 * For a report of a recording that carries its kernel symbols: resolve
 * kernel addresses through v[n] (copied) instead of /proc/kallsyms, unless
 * opts.kallsyms named a file, which wins.  0 or -ENOMEM.
 */
int symbolizer__set_kernel_symbols(struct symbolizer *s, const struct sym_ksym *v, size_t n,
				   u64 stext) __attribute__((nonnull(1)));

/*
 * For a report of several recordings, each carrying its own kernel symbols
 * (each host's kernel, each boot's KASLR): symbolizer__add_kernel_symbols
 * keeps v[n] (copied) as one recording's table, *out (NULL when
 * opts.kallsyms named a file: that file wins for every recording);
 * symbolizer__use_kernel makes the kernel lookups (lookup_kernel,
 * kernel_function, kernel_stext) resolve through k from now on, or with k
 * NULL through opts.kallsyms or /proc/kallsyms again.  The tables live as
 * long as s.  Not with symbolizer__set_kernel_symbols.  0 or -ENOMEM.
 */
struct sym_kernel;
int symbolizer__add_kernel_symbols(struct symbolizer *s, const struct sym_ksym *v, size_t n,
				   u64 stext, const struct sym_kernel **out)
	__attribute__((nonnull(1, 5)));
void symbolizer__use_kernel(struct symbolizer *s, const struct sym_kernel *k)
	__attribute__((nonnull(1)));

/*
 * Several recordings: every kernel table's names (each recording's own,
 * and opts.kallsyms or /proc/kallsyms, for a recording without its own,
 * such as a perf.data) one pointer per name from now on, since callers key
 * rows by them.  Without it, one recording's names are left as they are:
 * two symbols of one name stay two.  0 or -ENOMEM.
 */
int symbolizer__share_kernel_names(struct symbolizer *s) __attribute__((nonnull(1)));

/* One line-table row, for annotation. */
struct sym_row {
	u64 addr;	  /* link-time */
	const char *file; /* as in sym_frame */
	u32 line;
	bool inlined; /* the code there was inlined from another function */
};

/*
 * What machine code a DSO holds, for a disassembler: the symbolizer reads
 * it from the ELF header, so that no other module needs ELF's e_machine.
 * One constant per architecture that ebs decodes; UNKNOWN for the others.
 */
enum sym_arch {
	SYM_ARCH_UNKNOWN = 0,
	SYM_ARCH_X86_64,
};

/* The function covering an address of a DSO, from its symbol table. */
struct sym_func {
	const char *name; /* as in sym_result.function */
	u64 start, end;	  /* link-time addresses, end exclusive */
};

/*
 * Where a function's own source text is, from DWARF: it starts at its
 * declaration (DW_AT_decl_file, DW_AT_decl_line) and cannot run past the
 * line before the next function declared in that file (other than those
 * declared inside it: lambdas, local classes, nested functions).  Line rows
 * of its code outside [first, limit] are code of other functions that
 * DWARF's inline scopes do not cover.
 */
struct sym_span {
	const char *function; /* as in sym_frame */
	const char *file;     /* as in sym_frame */
	u32 first;	      /* the declaration's line */
	u32 limit;	      /* the last line it can reach; UINT32_MAX: to the end */
};

/*
 * For annotation.  info is a sym_result's: the DSO it names.  Each returns
 * 0, -ENOENT when the DSO cannot answer (no symbol there, no DWARF, not
 * readable), or -errno.
 *
 * symbolizer__lookup_in: resolve link-time address vaddr of that DSO, as
 *   symbolizer__lookup_file does (0 or -errno).
 * symbolizer__function: the symbol covering vaddr.
 * symbolizer__rows: fn for each line-table row with a line in [lo, hi), in
 *   address order; fn's nonzero return stops and is returned.
 * symbolizer__source_span: the source span of the function compiled at vaddr.
 * symbolizer__line_owner: the name of the function whose source text holds
 *   file:line (by the declarations of the compilation unit at vaddr), or
 *   NULL when none is known.
 * symbolizer__code: len bytes of the DSO's file at link-time address vaddr
 *   (from its PT_LOAD segments), into buf; *arch gets what code it is.
 */
int symbolizer__lookup_in(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
			  struct sym_result *out) __attribute__((nonnull(1, 4)));
int symbolizer__function(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
			 struct sym_func *out) __attribute__((nonnull(1, 4)));
int symbolizer__rows(struct symbolizer *s, const struct sym_dso_info *info, u64 lo, u64 hi,
		     int (*fn)(void *ctx, const struct sym_row *row), void *ctx)
	__attribute__((nonnull(1, 5)));
int symbolizer__source_span(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
			    struct sym_span *out) __attribute__((nonnull(1, 4)));
const char *symbolizer__line_owner(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
				   const char *file, u32 line) __attribute__((nonnull(1)));
int symbolizer__code(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr, void *buf,
		     size_t len, enum sym_arch *arch) __attribute__((nonnull(1, 4, 6)));

/*
 * The name to open source file file by.  File names are handed out as
 * they are shown, control characters as '?' (a crafted DWARF's names must
 * not drive a terminal); the file itself has its real name.  file itself
 * when no DWARF read so far named it otherwise; that name, control
 * characters and all, when one did; NULL when names of two different
 * files clean into file (which one is meant cannot be told).  Borrowed
 * until symbolizer__free.
 */
const char *symbolizer__source_name(struct symbolizer *s, const char *file)
	__attribute__((nonnull(1)));

/*
 * Where a debuginfod server has source file file (as a lookup gave it),
 * for one whose DWARF names it and that cannot be read where it names
 * it: asked by the build-id of a DSO whose DWARF, opened so far, names
 * it.  1 with the path (in libdebuginfod's client cache) in out, to be
 * read as the source it stands for; 0 when none (or not asked: see
 * symbolize_opts.offline); -ENOMEM.
 */
int symbolizer__fetch_source(struct symbolizer *s, const char *file, char *out, size_t len)
	__attribute__((nonnull(1, 3)));

/*
 * Unwinding a copied user stack (unwind.c, through libunwind's remote
 * accessors over the DSOs' .eh_frame).  regs are the sample's user
 * registers, PERF_REG_X86_* numbering (one per set bit of regs_mask, lowest
 * first); stack is the copy of the user stack from the stack pointer up.
 * copy_full: the copy is as long as was asked, so the stack may go on past
 * it (a frame found there makes the chain truncated, not ended).
 */
struct sym_stack {
	u64 regs_mask;
	const u64 *regs;
	const u8 *stack;
	u64 stack_size;
	bool copy_full;
};

/* The mapping of the sampled process that covers addr, or NULL. */
typedef const struct sym_map *(*sym_map_of_fn)(void *ctx, u64 addr);

/* Why an unwind stopped. */
enum sym_unwind_end {
	SYM_UNWIND_OUTERMOST, /* the outermost frame: the CFI (or a zero return address) ends it */
	SYM_UNWIND_TRUNCATED, /* the next frame lies past the stack copy */
	SYM_UNWIND_NO_CFI,    /* no CFI for a frame's address (no mapping, no FDE), and
			       * libunwind's guess past it (rbp as a frame pointer) leads
			       * to no mapping */
	SYM_UNWIND_BAD,	      /* the CFI led to an unreadable or impossible frame (a return
			       * address in no mapping) */
	SYM_UNWIND_MAX,	      /* max frames reached */
	SYM_UNWIND_NO_REGS,   /* no IP and SP in the registers */
};

/*
 * Unwind st: ips[0] is the registers' IP, ips[1...] the return addresses
 * of the callers, at most max in all; *nr gets how many, *end why it
 * stopped.  Returns 0, or -errno for bad arguments or no memory.
 */
int symbolizer__unwind(struct symbolizer *s, const struct sym_stack *st, sym_map_of_fn map_of,
		       void *ctx, u64 *ips, unsigned int max, unsigned int *nr,
		       enum sym_unwind_end *end) __attribute__((nonnull(1, 2, 3, 5, 7, 8)));

/*
 * The bounds [*start, *end) of the function whose CFI (its .eh_frame FDE)
 * covers addr of map: what names code no symbol covers.  0, or -ENOENT.
 */
int symbolizer__cfi_function(struct symbolizer *s, const struct sym_map *map, u64 addr, u64 *start,
			     u64 *end) __attribute__((nonnull(1, 2, 4, 5)));

/*
 * Kernel code, for annotation (kcore.c).
 *
 * symbolizer__kernel_function: the kallsyms symbol covering kernel address
 *   addr; its end is the next symbol's start.  0 or -ENOENT.
 * symbolizer__kernel_stext: the address of _stext in that kallsyms, to tell
 *   whether a recording's kernel is the one whose memory would be read.
 *   0 or -ENOENT.
 * symbolizer__kernel_code: len bytes at kernel address addr from the
 *   kernel's memory (opts.kcore, or /proc/kcore: root only, and only in
 *   kernels built with it).  0; -ENOENT when there is no such file, -ENXIO
 *   when it has no such bytes, -EACCES or -EPERM when not allowed, -EINVAL
 *   when it is not an ELF core, or -errno.
 */
int symbolizer__kernel_function(struct symbolizer *s, u64 addr, struct sym_func *out)
	__attribute__((nonnull(1, 3)));
int symbolizer__kernel_stext(struct symbolizer *s, u64 *addr) __attribute__((nonnull(1, 2)));
int symbolizer__kernel_code(struct symbolizer *s, u64 addr, void *buf, size_t len)
	__attribute__((nonnull(1, 3)));

/*
 * The build-id cache (buildid.c; docs/symbolize.md, "The build-id cache"):
 * copies of the files a recording mapped, kept by build-id as ebs record
 * ends, so that a report finds a file gone or rebuilt since.  Its layout
 * is /usr/lib/debug's, DIR/.build-id/xx/REST (the file) and REST.debug (its
 * separate debug file), so that it is one of symbolize_opts.buildid_dirs.
 *
 * buildid_cache__new: the cache at dir; NULL: the default,
 *   $XDG_CACHE_HOME/ebs/buildid else $HOME/.cache/ebs/buildid (beside the
 *   DWARF cache, under the same rules: a directory of the caller's, 0700,
 *   that no one else may write), held to EBS_BUILDID_CACHE_MAX bytes
 *   (default 2G; K, M, G; 0: no cache).  NULL with errno ENOMEM, or when
 *   there is no cache (EBS_BUILDID_CACHE_MAX=0, no HOME) with errno 0.
 *   Warnings ("warning: ..." lines: the directory cannot be used, said once)
 *   through warn, as symbolize_opts.warn.  Nothing is done to the directory
 *   before it is used.
 * buildid_cache__dir: its directory, for symbolize_opts.buildid_dirs.
 * buildid_cache__readable: for a report: 0 when the directory is there and
 *   may be used, -1 when it is not there or out of the caller's reach
 *   (nothing said) or may not be used (not the caller's, others may write
 *   to it, a symbolic link: one warning line); never makes it.
 * buildid_cache__add: keep the file at path, if its build-id is id, as
 *   DIR/.build-id/xx/REST, and its separate debug file (found where a
 *   report finds one: /usr/lib/debug by build-id, .gnu_debuglink) as
 *   REST.debug when it has that build-id too.  path may be a
 *   /proc/PID/root/... path (its debug file is then looked for under
 *   /proc/PID/root too).  The file is opened as ebs_open_input opens it
 *   (never a device or FIFO; in a directory others can write, no link is
 *   followed and only root's or the caller's file is read); its copy is
 *   written to a temporary file, its build-id read again from the copied
 *   bytes, and renamed into place whole, or dropped.  An entry already
 *   there with that build-id is kept (its mtime refreshed: eviction goes
 *   by it).  Returns the bytes added (0: both already there), or -errno
 *   with err filled (EBS_E_NO_BUILD_ID_MATCH when the file is another one,
 *   -EFBIG when it is larger than the cap).
 * buildid_cache__free accepts NULL.  A cache is not thread-safe: one
 * thread at a time (two processes at once are safe: each entry is renamed
 * into place whole).
 */
struct buildid_cache;
struct buildid_cache *buildid_cache__new(const char *dir, ebs_warn_fn *warn, void *warn_ctx);
void buildid_cache__free(struct buildid_cache *c);
const char *buildid_cache__dir(const struct buildid_cache *c) __attribute__((nonnull(1)));
int buildid_cache__readable(struct buildid_cache *c) __attribute__((nonnull(1)));
s64 buildid_cache__add(struct buildid_cache *c, const char *path, const u8 *id, u8 id_size,
		       struct ebs_error *err) __attribute__((nonnull(1, 2, 3)));

#endif /* EBS_SYMBOLIZE_H */
