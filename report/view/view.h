/* SPDX-License-Identifier: MIT */
/*
 * view.h - ebs view's model: one pass over the samples (session.c) that
 * keeps what the page recounts for any selection of time, threads and
 * event, aggregated (docs/view.md has the format): functions, the call
 * stacks as a trie of frames (callchain.c's, as report --tree and
 * --children count them), the sampled instructions, and per time bucket,
 * thread, event and stack a count; in the same pass annotate's own
 * attribution of the hottest functions' addresses to lines and
 * instructions (annotate.h's ann_set__attach).  page.c writes it into the
 * page.  Private to report/.
 */
#ifndef EBS_REPORT_VIEW_H
#define EBS_REPORT_VIEW_H

#include "report/session/callchain.h"

#define VIEW_MAX_BUCKETS 1000
/* annotate data: the hottest functions' listings up to this many bytes of text */
#define VIEW_ANNOTATE_BUDGET (4u << 20)
#define VIEW_ANNOTATE_MAX    200 /* and at most this many functions */

struct kv; /* model.c's interning tables */

struct view_func {
	const char *name;
	u32 dso;
	unsigned int flags; /* 1 kernel, 2 inlined, 4 unknown */
	u64 self;	    /* samples with it innermost (all events): which to annotate */
};

struct view_dso {
	const char *name, *path;
	const struct sym_dso_info *info; /* of a sample in it (debug info), or NULL */
	bool sampled;			 /* a sample's innermost frame is in it */
};

struct view_thread {
	u32 input, pid, tid;
	const char *comm;
};

struct view_entry {
	u32 bucket, thread, stack, event;
	u64 count;
};

/* One recording's time: its start and span (ns), as the design's rule says. */
struct view_time {
	u64 start, span;
};

struct view_model {
	struct session rs;
	struct chainer *chains;
	const struct view_opts *v;
	struct view_time *times; /* [rs.nin] */
	u64 bucket_ns;
	u32 nbuckets;
	u64 samples; /* counted (after the filters) */
	struct view_func *funcs;
	size_t nfuncs, funcs_cap;
	struct view_dso *dsos;
	size_t ndsos, dsos_cap;
	struct view_thread *threads;
	size_t nthreads, threads_cap;
	s64 *nodes; /* pairs: parent, func */
	size_t nnodes, nodes_cap;
	u64 *sites; /* pairs: func, address */
	size_t nsites, sites_cap;
	s64 *site_into; /* [nsites]: the function a site's code was inlined into, or -1 */
	size_t site_into_cap;
	u32 *stacks; /* pairs: node, site */
	size_t nstacks, stacks_cap;
	struct view_entry *entries; /* sorted (entry_cmp) once counted */
	size_t nentries, entries_cap;
	struct view_entry *cur; /* the current bucket's, counting (model.c's entry_count) */
	u32 *cur_used;		/* their slots in cur */
	size_t ncur, cur_cap;
	u32 cur_bucket;
	bool chained; /* a recording has call chains */
	struct view_memo {
		u32 stack1; /* the stack + 1; 0: none kept */
		u32 func;
	} * memo; /* by sym_result.id, without call chains */
	size_t nmemo;
	struct view_thread last_thread; /* the last sample's, and its index */
	u32 last_thread_idx;
	struct kv *h_funcs, *h_dsos, *h_threads, *h_nodes, *h_sites, *h_stacks;
	/* annotate's models of the hottest functions (annotate.h's ann_set) */
	void *ann;		  /* struct ann_set * */
	void *ann_opts;		  /* its struct annotate_opts */
	struct ebs_strset *names; /* DSO names: one name, one pointer */
	u64 annotate_left;
};

/*
 * Read v's recordings into vm.  0; -ENODATA when no sample passes the
 * filters (err says so); or -errno with err filled, as ebs_report.
 */
int view_model__collect(struct view_model *vm, const struct view_opts *v, struct ebs_error *err);
/* The data as JSON (docs/view.md), safe inside a <script> element: 0, -ENOMEM, -EINVAL (a bug). */
int view_model__json(struct view_model *vm, FILE *f);
void view_model__free(struct view_model *vm); /* accepts a zeroed one */

#endif /* EBS_REPORT_VIEW_H */
