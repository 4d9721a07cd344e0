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

/*
 * One recording of a session: a report of several (-i a -i b ...) reads
 * each with its own processes (pids of two recordings are two processes)
 * and its own kernel symbols, through the one symbolizer, so that a DSO
 * they share is one DSO (one build-id: its DWARF decoded once) and rows
 * of it merge.
 */
struct session_input {
	struct ebs_data *d;
	struct machine *m;
	const char *host;		 /* META hostname; "unknown" when the file has none */
	bool has_host;			 /* the file has one */
	const char *label;		 /* what names it beside a pid: host, or "host#N" (the N-th
					  * -i) when recordings share their host */
	const struct sym_kernel *kernel; /* its KSYMS, NULL: none (or --kallsyms) */
	struct ebs_rec_count *counts;	 /* its COUNT records, in file order */
	size_t ncounts;
	u64 samples;		   /* its SAMPLE records */
	u16 evmap[EBS_MAX_EVENTS]; /* its event i is the session's evmap[i] */
	u64 stext;		   /* session__kernel_at's, per recording */
	signed char stext_known;
	u64 start, span; /* its time (perf clock, ns) and span: session__span */
	u64 *times;	 /* --time's ranges of it, [times[2i], times[2i + 1]) ns from start */
	size_t ntimes;
};

struct session {
	const struct report_filter *filter;
	/*
	 * The recording being read: in a pass (session__each), the one whose
	 * sample is handed on; outside one, the first.  d's events are not
	 * the session's: see session__event.
	 */
	struct ebs_data *d;
	struct machine *m;
	struct session_input *in; /* [nin], in the order given */
	size_t nin, cur;
	unsigned int nhosts;	  /* distinct host names among them */
	struct ebs_strset *names; /* hosts and labels: one host is one pointer */
	u64 samples;		  /* their SAMPLE records, all of them */
	/* the events of all of them, by name, in first-seen order */
	const struct ebs_event_info *events[EBS_MAX_EVENTS];
	unsigned int nevents;
	struct symbolizer *sym;
	int event;		      /* the filter's event (the session's index), -1 for all */
	struct ebs_rec_count *counts; /* the first recording's COUNT records (= in[0]'s) */
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
	/* _stext, for session__kernel_at: asked for on first use (the current recording's) */
	u64 stext;
	signed char stext_known; /* 0: not asked yet; 1; -1: not known */
};

/* One sample and what it resolved to. */
struct resolved {
	const struct ebs_rec_sample *s;
	struct sym_result res;
	const struct machine_map *map; /* NULL for kernel samples and unmapped ones */
	const char *comm;	       /* interned, never NULL: see machine__comm */
	u64 seq;	    /* the sample's number among the file's samples, from 0 (filtered ones
			     * counted): what orders a second pass's samples as this one's */
	unsigned int input; /* the recording's index in rs->in */
	unsigned int event; /* the session's index of its event (not s->event, the file's) */
	u32 ns; /* EBS_PROCNS_* where its process ran elsewhere than the recorder (machine__ns) */
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

/*
 * session__open of several recordings (inputs[n], n >= 1), read in that
 * order as one: their events merged by name, each with its own processes
 * and kernel symbols, one symbolizer.  The first that cannot be read fails
 * the whole, err naming it; "-" (stdin) at most once.
 */
int session__open_many(struct session *rs, const char *const *inputs, size_t n, bool any_owner,
		       const struct symbolize_opts *so, const struct report_filter *filter,
		       struct ebs_error *err);

/* session__open_many of v's inputs (v->inputs, else v->input). */
int session__open_view(struct session *rs, const struct view_opts *v,
		       const struct symbolize_opts *so, struct ebs_error *err);

/* The session's events (merged by name over its recordings). */
unsigned int session__nr_events(const struct session *rs);
const struct ebs_event_info *session__event(const struct session *rs, unsigned int i);

/* The call-graph mode (META call-graph) of the first recording that has one, or NULL. */
const char *session__call_graph(const struct session *rs);

/*
 * The header's line for several recordings, "3 recordings from 2 hosts
 * (a.data: web1, ...), 12,345 samples", into buf; "" for one recording.
 */
void session__inputs_line(const struct session *rs, char *buf, size_t len);

/*
 * How many processes the recordings' PROCNS records put in another mount
 * namespace or root than their recorder (machine__ns_procs, summed).
 */
unsigned int session__ns_procs(const struct session *rs);

/*
 * The time of recording input (rs->in's index), as --time and the
 * timelines take it: *start (ns, the perf clock) is the header's
 * start_clock_ns when it is not 0 and not after the first sample, else
 * the first (earliest) sample's time; its end is the later of the
 * trailer's end_clock_ns and the last sample's time; *span = end - start
 * + 1 ns (at least 1).  A sample's time from the start is
 * session__rel_time: 0 for a sample before it.
 */
void session__span(const struct session *rs, size_t input, u64 *start, u64 *span);
u64 session__rel_time(const struct session *rs, const struct resolved *r);

/*
 * --time's ranges of a recording of span ns (session__span) into times:
 * ntimes pairs [times[2i], times[2i + 1]), ns from its start.
 */
void session__time_ranges(const struct report_time *t, size_t ntimes, u64 span, u64 *times);

/* Does the sample pass f's --pid and --tid (f NULL: yes)? */
bool session__ids_pass(const struct report_filter *f, u32 pid, u32 tid);

/*
 * filter's --time, --pid and --tid in words, as a report's header shows
 * them: "time 0.5-1.2 s", "time 10%-20%,50%-60%", "pid 12,13", into buf
 * after n of its len bytes (joined by ", "); the new n (as snprintf: may
 * exceed len).
 */
size_t session__filter_words(const struct report_filter *f, char *buf, size_t len, size_t n)
	__attribute__((nonnull(1, 2)));

/*
 * Why the filters may have let no sample through, for the line under "no
 * samples": "the recording spans 2.788 s" (--time), "its processes: 25141,
 * 25160" (--pid), "its threads: ..." (--tid), a few ids at most, joined by
 * "; "; "" when rs's filter has none of them.  Reads the recordings'
 * samples again (between passes only).  The length, as snprintf's.
 */
size_t session__empty_why(const struct session *rs, char *buf, size_t len)
	__attribute__((nonnull(1, 2)));

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
 * session__resolve in two halves, for a caller that does its own work in
 * the same pass (ebs annotate): session__tally on each sample of a pass
 * with rs->tallying set (no --func, no warnings), then
 * session__resolve_tally, which resolves as session__resolve does and
 * frees ta's names.  Both return 0 or -errno (-ENOMEM; -EINVAL, as
 * session__resolve, with err filled).
 */
struct session_tally {
	struct name_tally *t;
	u64 samples;
	struct session_tally_id *ids; /* per result number (session.c) */
	size_t nids;
	bool memo; /* set it to !rs->no_memo before the pass */
};
int session__tally(struct session_tally *ta, const struct resolved *r);
void session__tally_free(struct session_tally *ta); /* what a pass that failed tallied */
/* The functions of the samples the filters let through (not --func's), by samples: one pass. */
int session__tally_names(struct session *rs, struct name_cand **c, size_t *n, u64 *samples,
			 struct ebs_error *err);
int session__resolve_tally(struct session *rs, struct session_tally *ta, const char *want,
			   size_t len, struct name_query *q, FILE *list, struct ebs_error *err);

/*
 * Is name the function the first len bytes of want name?  "ns::f" names
 * "ns::f(int)" too (demangled C++ with its parameters), "f" gcc's clones
 * "f.constprop.0", "f.isra.0", "f.part.0", "f.cold".  NULL names none.
 */
bool session__name_is(const char *want, size_t len, const char *name);

/* Are a and b one function's name (one interned pointer, or the same text)? */
bool session__same_name(const char *a, const char *b);

/*
 * A sample's function as report's rows key it (res of its address): the
 * innermost function, and with inlined code (unless no_inline) the
 * function it was inlined into, else NULL (as `f (inlined into g)`;
 * report/columns.c's func_text shows it).  Returns the frame whose line is
 * the row's (the inlined code's own, or the compiled function's), or NULL.
 */
const struct sym_frame *session__inline_key(const struct sym_result *res, bool no_inline,
					    const char **function, const char **inlined_into);

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
