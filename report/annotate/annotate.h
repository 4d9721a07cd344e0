/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - the annotated listing of one function as a model, built by
 * annotate.c, so that the text (annotate-text.c) and the HTML (html.c) say
 * the same.  Private to report/.
 */
#ifndef EBS_REPORT_ANNOTATE_H
#define EBS_REPORT_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

/* One source line with what its code took. */
struct ann_line {
	const char *file; /* as DWARF names it */
	u32 line;
	u64 self;	      /* samples of its own code (inlined code: at its own line) */
	u64 inlined;	      /* samples of code inlined at this call site */
	const char *callee;   /* the function inlined here, when inlined */
	const char *function; /* whose code the self samples are, when not the annotated one */
	const char *owner;    /* outside the function's own lines, with no inline scope:
			       * the function whose source text holds the line */
	const char *text;     /* the source text, NULL when the file was not found */
	bool in_range;	      /* inside the function's own line range of its own file */
	bool shown;	      /* printed (hot, context, or whole function) */
	/* for shown lines: the first of a group outside the function's own
	 * range (say which), or lines left out since the previous shown one */
	bool section_before, gap_before;
};

/* One instruction (--asm). */
struct ann_insn {
	u64 addr;
	u64 samples;
	char text[96];	  /* "mnemonic operands" */
	const char *file; /* its line-table row */
	u32 line;
	const struct ann_line *src; /* that line in the listing, or NULL */
	const char *line_text;	    /* that line's source text, NULL when not found */
	const char *owner;	    /* its line is not the function's own: whose it is */
	u64 target;		    /* a call's or jump's target address, 0 when none */
	bool target_local;	    /* inside this function */
	char target_name[160];	    /* "fn" or "fn+0x1c", "" when unknown */
	bool shown;		    /* printed (all, or within --context of a sampled one) */
	bool gap_before;	    /* instructions left out just before it */
};

/*
 * Where the samples of one sampled address counted (for ebs view, whose
 * page recounts a selection of them as the listing does): the line its
 * count went to (file NULL: none, counted as "without a line") and the
 * instruction (has_insn).  One per address, in no order.
 */
struct ann_hit {
	u64 addr;	  /* as the listing shows it (insns' addresses) */
	const char *file; /* the line whose own count (self) it is */
	u32 line;
	bool has_insn;
	u64 insn; /* that instruction's address */
};

struct ann_func {
	const char *name, *dso, *dso_path;
	const char *event;
	const char *per;	/* "%func", or "%file" for a file's listing */
	u64 start;		/* its address (link-time; the kernel's: as addr_from says) */
	const char *addr_from;	/* kernel code: what its addresses are offsets from
				 * ("_stext"; its name, its start, when _stext is not
				 * known); NULL for user space's link-time addresses */
	bool show_start;	/* several functions of one name are listed: say which */
	u64 samples;		/* in this function (file) */
	u64 total;		/* of the event, after the filters */
	const char *main_file;	/* the function's own source file, NULL without DWARF */
	struct ann_line *lines; /* sorted: the main file's first, then by file and line */
	size_t nlines;
	struct ann_insn *insns; /* with --asm; NULL otherwise */
	size_t ninsns;
	u64 hottest;	  /* the largest self count of a line */
	u64 hottest_insn; /* the largest count of an instruction */
	bool skid_adjusted;
	bool show_asm;		/* list the instructions (--asm) */
	bool asm_for_source;	/* listed since the source is missing (no --asm) */
	bool source_missing;	/* main_file could not be read (a function's listing) */
	const char *read_from;	/* where main_file's text was read, NULL when it was not */
	const char *source_why; /* why main_file, there, was not shown (a phrase to follow
				 * "it "), NULL when shown or not there */
	char note[512];		/* missing source, no line information... */
	struct ann_hit *hits;	/* every sampled address's line and instruction */
	size_t nhits;
};

/* What no listing shows, said after the text listings. */
struct ann_rest {
	u64 kernel; /* samples in the kernel, without kernel symbols */
	u64 nofunc; /* samples outside any known function */
	u64 total;  /* of the event, after the filters */
	u64 left;   /* functions with samples not listed: over --top (no FUNC) */
};

/* The file name of a path, or "??". */
static inline const char *ann_base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "??";
}

/*
 * The listings of one annotate run (annotate.c builds them; the printers
 * below and run.c's ebs_annotate use them): the model never calls its
 * printers.
 */
struct annotate_opts;
struct annot;
struct ebs_error;
struct ann_set {
	struct annot *an; /* the recording and what was counted: annotate.c's */
	struct ann_func **models;
	size_t n;
	struct ann_rest rest;
};

int ann_set__open(struct ann_set *set, const struct annotate_opts *o, struct ebs_error *err);
int ann_set__build(struct ann_set *set, struct ebs_error *err);
/*
 * The same models counted in another's pass over the samples (ebs view's):
 * ann_set__attach on the caller's open session rs (kept, not closed by
 * ann_set__free; o->target NULL), then ann_set__sample for each sample of
 * its pass (those of one event are counted: rs's filter's, else the
 * first), then ann_set__finish, as ann_set__build after its own pass.
 * 0, or -errno with err filled.
 */
struct session;
struct resolved;
int ann_set__attach(struct ann_set *set, const struct annotate_opts *o, struct session *rs,
		    struct ebs_error *err);
int ann_set__sample(struct ann_set *set, const struct resolved *r);
int ann_set__finish(struct ann_set *set, struct ebs_error *err);
/* The path of a source shown that not everyone may read, or NULL. */
const char *ann_set__private_source(const struct ann_set *set);
/*
 * A page made to be shown (0644) must not show others a source they could
 * not read (another user's private file, under root's record -a and
 * annotate): when set shows one, the page html is made 0600, said in one
 * line through warn.  Standard output, a device or a FIFO given as the
 * page is the caller's business.  0, or -errno with err filled.
 */
struct ebs_out;
int ann_set__page_mode(const struct ann_set *set, struct ebs_out *html, ebs_warn_fn *warn,
		       void *warn_ctx, struct ebs_error *err);
/* Frees what open and build made; NULL and a zeroed set are fine. */
void ann_set__free(struct ann_set *set); /* accepts NULL */

/* Print the functions as text (with ANSI colours when color), then rest when not NULL. */
void annotate_text(FILE *out, bool color, const struct ann_func *const *funcs, size_t n,
		   const struct ann_rest *rest);

/* Write the functions as one self-contained HTML page into f. */
void annotate_html(FILE *f, const struct ann_func *const *funcs, size_t n, const char *input);

#endif /* EBS_REPORT_ANNOTATE_H */
