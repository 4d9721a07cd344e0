/* SPDX-License-Identifier: MIT */
/*
 * cfa.h - the common CFI rules evaluated without libunwind (cfa.c), for
 * unwind.c: a fast path that gives up, for libunwind to unwind the
 * sample, wherever it is not sure to do as libunwind 1.6 does.
 */
#ifndef EBS_SYMBOLIZE_CFA_H
#define EBS_SYMBOLIZE_CFA_H

#include "symbolize/internal.h"

/*
 * The rules found at addresses of one DSO's .eh_frame, kept by the caller
 * with it (made at the first, NULL before).
 */
struct cfa_memo;
void cfa_memo__free(struct cfa_memo *m); /* accepts NULL */

/* What cfa_unwind asks of its caller (unwind.c). */
struct cfa_env {
	const struct sym_stack *st;
	u64 sp; /* the sample's, where the stack copy starts */
	/*
	 * The .eh_frame table of the DSO mapped at runtime address addr, its
	 * load bias and the memo kept with it; false when none (or out of
	 * memory).
	 */
	bool (*table)(void *arg, u64 addr, const struct cfi_table **t, u64 *bias,
		      struct cfa_memo ***memo);
	/* a mapping covers addr */
	bool (*mapped)(void *arg, u64 addr);
	/* 8 bytes at addr outside the stack copy, as libunwind's access_mem reads them */
	bool (*mem)(void *arg, u64 addr, u64 *val);
	void *arg;
};

enum cfa_result {
	CFA_GAVE_UP,	 /* a rule or an end not taken: libunwind is to unwind the sample */
	CFA_DONE,	 /* *nr and *end set */
	CFA_READ_FAILED, /* *nr set; a register or memory the step needs could not be read */
};

/* Unwind env's sample as symbolizer__unwind does with libunwind, ips[0] the sampled IP. */
enum cfa_result cfa_unwind(const struct cfa_env *env, u64 *ips, unsigned int max, unsigned int *nr,
			   enum sym_unwind_end *end);

/*
 * The entry of t's search table (sorted by start, each a pair of int32
 * relative to hdr_vaddr) that libunwind's binary search for rel finds: the
 * last one starting at or before it.  Its index, or -1 when none does or
 * the table is not within the header's bytes.
 */
s64 cfi_table__entry(const struct cfi_table *t, s32 rel);

#endif
