/* SPDX-License-Identifier: MIT */
/*
 * session.h - what ebs report and ebs annotate share: the data file, the
 * processes' mapping history, the symbolizer, and one pass over the
 * samples that resolves each and hands it on, after the filters.
 * Private to report/.
 */
#ifndef EBS_REPORT_SESSION_H
#define EBS_REPORT_SESSION_H

#include "data/data.h"
#include "report/session/machine.h"
#include "report/names.h"
#include "report/report.h"
#include "symbolize/symbolize.h"

struct session {
	const struct report_filter *filter;
	struct ebs_data *d;
	struct machine *m;
	struct symbolizer *sym;
	int event;		      /* the filter's event index, -1 for all */
	struct ebs_rec_count *counts; /* the file's COUNT records, in file order */
	size_t ncounts;
	/*
	 * EBS_DEBUG_NO_MEMO set: what the views keep to spare the work of a
	 * sample like one seen before (report's rows by address, the chains'
	 * frames by address) is not kept, so that tests can hold the output
	 * with them to the output without.
	 */
	bool no_memo;
	/* --func's names as resolved among the recording's functions (names.h) */
	struct name_query *funcs;
	size_t nfuncs;
	bool tallying; /* a pass that collects names: no --func, no warnings */
	/* _stext, for session__kernel_at: asked for on first use */
	u64 stext;
	signed char stext_known; /* 0: not asked yet; 1; -1: not known */
};

/* One sample and what it resolved to. */
struct resolved {
	const struct ebs_rec_sample *s;
	struct sym_result res;
	const struct machine_map *map; /* NULL for kernel samples and unmapped ones */
	const char *comm;	       /* interned, never NULL: see machine__comm */
	u32 ns;	 /* EBS_PROCNS_* where its process ran elsewhere than the recorder (machine__ns) */
	u64 seq; /* the sample's number among the file's samples, from 0 (filtered ones
		  * counted): what orders a second pass's samples as this one's */
};

/*
 * Open input and read its processes and mappings, and keep its COUNT
 * records (the first pass).  input is opened as ebs_data__open opens it:
 * in a directory others can write, only a file of the caller's or root's
 * unless any_owner (--force).
 * so->demangle etc. as the caller wants; filter may be NULL.  Returns 0 or
 * -errno with err filled (-ENOENT for an unknown --event, -EBS_EUNTRUSTED
 * for another user's file).
 */
int session__open(struct session *rs, const char *input, bool any_owner,
		  const struct symbolize_opts *so, const struct report_filter *filter,
		  struct ebs_error *err);

/* The second pass: fn for every sample the filters let through; fn's nonzero stops it. */
int session__each(struct session *rs, int (*fn)(void *ctx, const struct resolved *r), void *ctx,
		  struct ebs_error *err);

void session__close(struct session *rs); /* accepts NULL */

/*
 * What want (len bytes) names among the functions (compiled or inlined)
 * of the samples the filters let through, into q: the exact name, else
 * the unqualified name, a "::"-suffix, a part (names.h).  0; -ENOMEM; or
 * -EINVAL when it names several functions, listed to list first (when
 * not NULL), err saying so.  q->max_tier, as the caller set it, is kept.
 * name_query__free(q) after.
 */
int session__resolve(struct session *rs, const char *want, size_t len, struct name_query *q,
		     FILE *list, struct ebs_error *err);

/*
 * Is name the function the first len bytes of want name?  "ns::f" names
 * "ns::f(int)" too (demangled C++ with its parameters), "f" gcc's clones
 * "f.constprop.0", "f.isra.0", "f.part.0", "f.cold".  NULL names none.
 */
bool session__name_is(const char *want, size_t len, const char *name);

/* Are a and b one function's name (one interned pointer, or the same text)? */
bool session__same_name(const char *a, const char *b);

/*
 * The symbolizer's options that every view sets alike: v's kallsyms, debug
 * directories and demangling, warnings through v's warn and warn_ctx.  The rest of so (kcore,
 * no_dwarf) is the caller's.
 */
void session__symbolize_opts(struct symbolize_opts *so, const struct view_opts *v);

/*
 * A kernel address as ebs shows it outside the recording (in report,
 * annotate, flame graphs and exports: files made to be shown, 0644): its
 * offset from _stext (two's complement below it), so that none of them
 * gives away where KASLR put the kernel that boot; 0 when _stext is not
 * known, and then nothing of the address is shown.  A recording (0600)
 * keeps the addresses; script and report --dump print them as recorded.
 */
u64 session__kernel_at(struct session *rs, u64 addr);

/*
 * Code without a symbol: what names the function at addr (res what look
 * resolved to, in map; look is addr, or a caller's return address - 1, the
 * call): the start of the FDE covering look, as a link-time address of its
 * DSO, else addr's own (its DSO's, or addr outside any: a return address
 * as recorded, as perf shows it), in *at; a kernel address as
 * session__kernel_at shows it.  0 or -ENOMEM.  session__unknown_name writes
 * the name, "[unknown] DSO+0xAT", or "[unknown] 0xAT" outside any DSO (dso
 * NULL); the kernel's "[unknown] [kernel]+0xOFF" (or -0xOFF), from _stext,
 * and "[unknown] [kernel]" when _stext is not known.
 */
int session__unknown_at(struct session *rs, const struct sym_result *res,
			const struct machine_map *map, u64 addr, u64 look, u64 *at);
void session__unknown_name(char *buf, size_t len, const char *dso, u64 at);

#endif /* EBS_REPORT_SESSION_H */
