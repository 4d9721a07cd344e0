/* SPDX-License-Identifier: MIT */
/*
 * callchain.h - a sample's call chain, resolved into functions: the
 * kernel's frame-pointer chain (-g fp) with the caller of a frameless leaf
 * recovered from CFI, or the kernel's part and the user stack unwound
 * through CFI (-g dwarf); inlined frames expanded.  Private to report/.
 */
#ifndef EBS_REPORT_CALLCHAIN_H
#define EBS_REPORT_CALLCHAIN_H

#include "report/session/session.h"

/*
 * One frame: a function of the chain.  id is unique per function (its
 * name and DSO, interned), so that frames compare by pointer.
 */
struct cframe {
	const char *id;		   /* "name\tdso", interned */
	u32 fid;		   /* the (name, dso) pair's number, from 1: dense, for arrays */
	const char *name;	   /* function, or "[unknown] DSO+0xSTART" (by the CFI's bounds) */
	const char *mangled;	   /* name as the symbol table has it, when name is its
				    * demangled form (sym_result.mangled); else NULL */
	const char *dso;	   /* short name */
	u64 addr;		   /* the address (a return address for callers) */
	const struct sym_map *map; /* its mapping; NULL for the kernel and unmapped code */
	const char *file;	   /* the source file of the frame's line, or NULL */
	u32 line;		   /* its line (the call's, in a caller), 0 when unknown */
	u64 dso_addr;		   /* addr in the DSO (link-time), as report shows it; in
				    * the kernel, from _stext (session__kernel_at) */
	const char *code_file;	   /* the line of the code at addr, the innermost (an inlined */
	u32 code_line;		   /* function's own), as addr2line gives it; NULL, 0: none */
	u64 sym_offset;		   /* addr less its symbol's start, when has_offset */
	bool has_offset;	   /* a symbol of the symbol table covers addr */
	bool unknown;		   /* no function names the code: name is "[unknown] ..." */
	bool kernel;
	bool inlined; /* inlined into the next frame (same address) */
};

/* chain flags */
#define CHAIN_TRUNCATED                                                                            \
	(1u << 0)		  /* the stack copy ended before the stack, or (fp) the walk       \
				   * reached an impossible address: the chain's outermost frame    \
				   * is "[truncated]" */
#define CHAIN_RECOVERED (1u << 1) /* fp: a frameless leaf's caller was put back */
#define CHAIN_BROKEN	(1u << 2) /* dwarf: unwinding stopped on a frame without CFI */

/* What building the chains found, for --stats. */
struct chain_stats {
	u64 samples;	/* samples with a chain */
	u64 fp_checked; /* fp samples whose leaf was checked against its CFI */
	u64 fp_recovered;
	u64 fp_no_cfi;	 /* fp samples whose leaf had no CFI to check */
	u64 fp_no_stack; /* fp samples with no stack copy to check the leaf with (perf record -g) */
	u64 unwound;	 /* dwarf samples unwound */
	u64 truncated;
	u64 broken;
	u64 frames;	   /* frames in all chains, inline ones included */
	u64 fp_suspect;	   /* fp samples whose user chain holds an address in no mapping, or
			    * disagrees with the CFI in the frames the stack copy covers */
	u64 fp_impossible; /* fp chains cut at an address no user code can have */
};

struct chainer;

/*
 * For rs's file; mode is its META call-graph ("fp,512", "dwarf,8192", or
 * NULL: none).  no_inline: inlined functions are not frames of their own.
 * NULL when out of memory.
 */
struct chainer *chainer__new(struct session *rs, const char *mode, bool no_inline);
void chainer__free(struct chainer *c); /* accepts NULL */

/*
 * The chain of sample r, leaf first: *frames (valid until the next call)
 * and *n.  A sample without a chain has one frame, its own.  0 or -ENOMEM.
 */
int chainer__build(struct chainer *c, const struct resolved *r, const struct cframe **frames,
		   unsigned int *n, unsigned int *flags);

const struct chain_stats *chainer__stats(const struct chainer *c);

/* The highest cframe.fid given so far (0: none). */
u32 chainer__nr_fids(const struct chainer *c);

/*
 * What building the chains found, for --stats: one '#' line (text), or
 * a "chains" member (JSON).  mode is the file's META call-graph.
 */
void chain_stats__print_text(const struct chain_stats *st, const char *mode, FILE *f);
struct ebs_json;
void chain_stats__print_json(const struct chain_stats *st, const char *mode, struct ebs_json *j);

/*
 * One '#' line when frame-pointer chains look like they went through code
 * built without frame pointers (a tenth or more are suspect: an address in
 * no mapping, or callers other than the CFI's), saying what to use
 * instead; one when their samples had no stack copy to check a frameless
 * leaf with (a perf.data of perf record -g); nothing otherwise.
 */
void chain_stats__print_hint(const struct chain_stats *st, const char *mode, FILE *f);

#endif /* EBS_REPORT_CALLCHAIN_H */
