// SPDX-License-Identifier: MIT
/*
 * model.c - ebs view's data (view.h): one pass over the samples through
 * the session, each sample's chain built by callchain.c (the frames report
 * --tree and --children use), interned into functions, a trie of frames,
 * sampled instructions and distinct stacks, and counted per (time bucket,
 * thread, event, stack): never one entry per sample.  The same pass
 * counts annotate's own models (annotate.c, attached to this session) of
 * the hottest functions, written up to a byte budget with the line and
 * instruction each sampled address counted for, so that the page
 * recounts a listing as `ebs annotate FUNC` does.  json.c writes it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/annotate/annotate.h"
#include "report/annotate/decode.h"
#include "report/view/view.h"
#include "util/hash.h"
#include "util/json.h"

/* An interning table: a key of 64-bit words to its index. */
struct kv {
	UT_hash_handle hh;
	u32 idx;
	u64 key[];
};

/*
 * The index of key (n words) in *h, added as next when new (*fresh set).
 * 0 or -ENOMEM.
 */
static int intern(struct kv **h, const u64 *key, size_t n, u32 next, u32 *idx, bool *fresh)
{
	size_t len = n * sizeof(u64);
	unsigned int hv = ebs_hash_words(key, len);
	struct kv *e;

	HASH_FIND_BYHASHVALUE(hh, *h, key, len, hv, e);
	*fresh = !e;
	if (e) {
		*idx = e->idx;
		return 0;
	}
	e = malloc(sizeof(*e) + len);
	if (!e)
		return -ENOMEM;
	e->idx = next;
	memcpy(e->key, key, len);
	HASH_ADD_BYHASHVALUE(hh, *h, key[0], len, hv, e);
	if (!e->hh.tbl) {
		free(e);
		return -ENOMEM;
	}
	*idx = next;
	return 0;
}

static void kv_free(struct kv **h)
{
	struct kv *e, *tmp;

	HASH_ITER(hh, *h, e, tmp) {
		HASH_DEL(*h, e);
		free(e);
	}
}

static int dso_of(struct view_model *vm, const char *name, const char *path, u32 *idx)
{
	const char *one = ebs_strset__intern(&vm->names, name); /* one name, one pointer */
	u64 key = (u64)(uintptr_t)one;
	struct view_dso *d;
	bool fresh;
	int e;

	if (!one)
		return -ENOMEM;
	e = intern(&vm->h_dsos, &key, 1, (u32)vm->ndsos, idx, &fresh);
	if (e || !fresh)
		return e;
	if (ebs_grow((void **)&vm->dsos, &vm->dsos_cap, vm->ndsos, sizeof(*vm->dsos), 16))
		return -ENOMEM;
	d = &vm->dsos[vm->ndsos++];
	memset(d, 0, sizeof(*d));
	d->name = one;
	d->path = path ? path : one;
	return 0;
}

static int func_of(struct view_model *vm, const struct cframe *f, u32 *idx)
{
	u64 key = (u64)(uintptr_t)f->id;
	struct view_func *fn;
	bool fresh;
	u32 dso;
	int e;

	e = intern(&vm->h_funcs, &key, 1, (u32)vm->nfuncs, idx, &fresh);
	if (e || !fresh)
		return e;
	e = dso_of(vm, f->dso, f->map ? f->map->filename : NULL, &dso);
	if (e)
		return e;
	if (ebs_grow((void **)&vm->funcs, &vm->funcs_cap, vm->nfuncs, sizeof(*vm->funcs), 64))
		return -ENOMEM;
	fn = &vm->funcs[vm->nfuncs++];
	memset(fn, 0, sizeof(*fn));
	fn->name = f->name;
	fn->dso = dso;
	/* as report --tree's node, a function is inlined as it was first seen */
	fn->flags = (f->kernel ? 1u : 0) | (f->inlined ? 2u : 0) | (f->unknown ? 4u : 0);
	return 0;
}

static int pair_of(struct kv **h, u64 a, u64 b, void **v, size_t *n, size_t *cap, size_t size,
		   u32 *idx)
{
	u64 key[2] = {a, b};
	bool fresh;
	int e = intern(h, key, 2, (u32)*n, idx, &fresh);

	if (e || !fresh)
		return e;
	if (ebs_grow(v, cap, *n, size * 2, 256))
		return -ENOMEM;
	if (size == sizeof(u64)) {
		((u64 *)*v)[2 * *n] = a;
		((u64 *)*v)[2 * *n + 1] = b;
	} else {
		((u32 *)*v)[2 * *n] = (u32)a;
		((u32 *)*v)[2 * *n + 1] = (u32)b;
	}
	(*n)++;
	return 0;
}

static int thread_of(struct view_model *vm, const struct resolved *r, u32 *idx)
{
	u64 key[3] = {r->input, (u64)r->s->pid << 32 | r->s->tid, (u64)(uintptr_t)r->comm};
	struct view_thread *t;
	bool fresh;
	int e = intern(&vm->h_threads, key, 3, (u32)vm->nthreads, idx, &fresh);

	if (e || !fresh)
		return e;
	if (ebs_grow((void **)&vm->threads, &vm->threads_cap, vm->nthreads, sizeof(*vm->threads),
		     16))
		return -ENOMEM;
	t = &vm->threads[vm->nthreads++];
	t->input = r->input;
	t->pid = r->s->pid;
	t->tid = r->s->tid;
	t->comm = r->comm;
	return 0;
}

/*
 * What site's code was inlined into, as report's rows key it
 * (session__inline_key: "f (inlined into g)"): g's function index among
 * the sample's frames f[1..n-1] (its exact name, else one of its names),
 * or -1: not inlined, or no frame of that name.  0 or -ENOMEM.
 */
static int site_into(struct view_model *vm, const struct resolved *r, const struct cframe *f,
		     unsigned int n, u32 site)
{
	const char *fn = NULL, *into = NULL;
	unsigned int k, pass;
	u32 idx;
	int e;

	if (ebs_grow((void **)&vm->site_into, &vm->site_into_cap, site, sizeof(*vm->site_into),
		     256))
		return -ENOMEM;
	vm->site_into[site] = -1;
	session__inline_key(&r->res, vm->v->no_inline, &fn, &into);
	for (pass = 0; into && pass < 2; pass++)
		for (k = 1; k < n; k++)
			if (pass ? session__same_name(f[k].name, into) : !strcmp(f[k].name, into)) {
				e = func_of(vm, &f[k], &idx);
				if (e)
					return e;
				vm->site_into[site] = idx;
				return 0;
			}
	return 0;
}

/*
 * The stack (node and site) of sample r into *stack, its innermost
 * function into *func.  Without call chains a sample's frames are those of
 * its address alone (its function and what was inlined there): they are
 * kept by the address's number (sym_result.id) for the next sample there,
 * as report's rows are (none of it with EBS_DEBUG_NO_MEMO).
 */
static int stack_of(struct view_model *vm, const struct resolved *r, u32 *stack, u32 *func)
{
	const struct cframe *f;
	unsigned int n, flags, k;
	u32 node = 0, site;
	s64 parent = -1;
	bool memo = !vm->chained && r->res.id && !vm->rs.no_memo;
	int e;

	if (memo && r->res.id < vm->nmemo && vm->memo[r->res.id].stack1) {
		*stack = vm->memo[r->res.id].stack1 - 1;
		*func = vm->memo[r->res.id].func;
		return 0;
	}
	e = chainer__build(vm->chains, r, &f, &n, &flags);
	if (e)
		return e;
	*func = 0;		/* n >= 1: a chain has its own frame */
	for (k = n; k-- > 0;) { /* from the outermost frame in */
		e = func_of(vm, &f[k], func);
		if (!e)
			e = pair_of(&vm->h_nodes, (u64)parent, *func, (void **)&vm->nodes,
				    &vm->nnodes, &vm->nodes_cap, sizeof(u64), &node);
		if (e)
			return e;
		parent = node;
	}
	k = (unsigned int)vm->nsites;
	e = pair_of(&vm->h_sites, *func, f[0].dso_addr, (void **)&vm->sites, &vm->nsites,
		    &vm->sites_cap, sizeof(u64), &site);
	if (!e && vm->nsites > k)
		e = site_into(vm, r, f, n, site);
	if (!e)
		e = pair_of(&vm->h_stacks, node, site, (void **)&vm->stacks, &vm->nstacks,
			    &vm->stacks_cap, sizeof(u32), stack);
	if (e || !memo)
		return e;
	if (r->res.id >= vm->nmemo) {
		size_t had = vm->nmemo;

		while (r->res.id >= vm->nmemo)
			if (ebs_grow((void **)&vm->memo, &vm->nmemo, vm->nmemo, sizeof(*vm->memo),
				     1024))
				return -ENOMEM;
		memset(vm->memo + had, 0, (vm->nmemo - had) * sizeof(*vm->memo));
	}
	vm->memo[r->res.id].stack1 = *stack + 1;
	vm->memo[r->res.id].func = *func;
	return 0;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct view_entry *a = pa, *b = pb;

	if (a->bucket != b->bucket)
		return a->bucket < b->bucket ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/*
 * The entries are counted in two steps.  Samples come nearly in time
 * order, so the current time bucket's entries are counted in a small
 * open-addressing table (vm->cur: in cache, one probe or two per sample,
 * no allocation per entry); when the bucket changes they are appended to
 * vm->entries.  A bucket met again later (samples of several CPUs
 * interleave at the edges) appends its entries again: entries_finish
 * groups them by bucket, sorts each bucket's, and adds up the repeats,
 * which gives the entries one hash table of every (bucket, thread, event,
 * stack) would, in entry_cmp's order.
 */
static size_t cur_slot(const struct view_entry *k, size_t mask)
{
	u64 key[2] = {k->thread, (u64)k->event << 32 | k->stack};

	return ebs_hash_words(key, sizeof(key)) & mask;
}

static bool entry_same(const struct view_entry *a, const struct view_entry *b)
{
	return a->bucket == b->bucket && a->thread == b->thread && a->event == b->event &&
	       a->stack == b->stack;
}

/* Twice the slots (256 at first), every entry put back in its place.  0 or -ENOMEM. */
static int cur_grow(struct view_model *vm)
{
	size_t cap = vm->cur_cap ? vm->cur_cap * 2 : 256, i, k;
	struct view_entry *t = calloc(cap, sizeof(*t));
	u32 *used = malloc(cap / 2 * sizeof(*used));

	if (!t || !used) {
		free(t);
		free(used);
		return -ENOMEM;
	}
	for (i = 0; i < vm->ncur; i++) {
		const struct view_entry *e = &vm->cur[vm->cur_used[i]];

		for (k = cur_slot(e, cap - 1); t[k].count; k = (k + 1) & (cap - 1))
			;
		t[k] = *e;
		used[i] = (u32)k;
	}
	free(vm->cur);
	free(vm->cur_used);
	vm->cur = t;
	vm->cur_used = used;
	vm->cur_cap = cap;
	return 0;
}

/* The current bucket's entries appended to vm->entries, the table emptied.  0 or -ENOMEM. */
static int cur_flush(struct view_model *vm)
{
	size_t i;

	while (vm->nentries + vm->ncur > vm->entries_cap)
		if (ebs_grow((void **)&vm->entries, &vm->entries_cap, vm->entries_cap,
			     sizeof(*vm->entries), 1024))
			return -ENOMEM;
	for (i = 0; i < vm->ncur; i++) {
		struct view_entry *e = &vm->cur[vm->cur_used[i]];

		vm->entries[vm->nentries++] = *e;
		e->count = 0;
	}
	vm->ncur = 0;
	return 0;
}

/* One more sample of key: its entry's count (a new entry at 1).  0 or -ENOMEM. */
static int entry_count(struct view_model *vm, const struct view_entry *key)
{
	size_t mask, k;

	if (vm->ncur && vm->cur_bucket != key->bucket && cur_flush(vm))
		return -ENOMEM;
	vm->cur_bucket = key->bucket;
	if ((vm->ncur + 1) * 2 > vm->cur_cap && cur_grow(vm))
		return -ENOMEM;
	mask = vm->cur_cap - 1;
	for (k = cur_slot(key, mask); vm->cur[k].count; k = (k + 1) & mask)
		if (entry_same(&vm->cur[k], key)) {
			vm->cur[k].count++;
			return 0;
		}
	vm->cur[k] = *key;
	vm->cur[k].count = 1;
	vm->cur_used[vm->ncur++] = (u32)k;
	return 0;
}

/*
 * The appended entries grouped by bucket (a counting sort), each bucket's
 * sorted (entry_cmp) with its repeats added up: vm->entries as it is
 * written.  0 or -ENOMEM.
 */
static int entries_finish(struct view_model *vm)
{
	struct view_entry *by;
	size_t *at, i, b, n = 0;

	if (cur_flush(vm))
		return -ENOMEM;
	at = calloc((size_t)vm->nbuckets + 1, sizeof(*at));
	by = malloc((vm->nentries + 1) * sizeof(*by));
	if (!at || !by) {
		free(at);
		free(by);
		return -ENOMEM;
	}
	for (i = 0; i < vm->nentries; i++)
		at[vm->entries[i].bucket + 1]++;
	for (b = 0; b < vm->nbuckets; b++)
		at[b + 1] += at[b];
	for (i = 0; i < vm->nentries; i++)
		by[at[vm->entries[i].bucket]++] = vm->entries[i];
	/* at[b] is now where bucket b + 1 starts */
	for (b = 0, i = 0; b < vm->nbuckets; b++) {
		size_t end = at[b], k;

		qsort(by + i, end - i, sizeof(*by), entry_cmp);
		for (k = i; k < end; k++) {
			if (n && entry_same(&by[n - 1], &by[k]))
				by[n - 1].count += by[k].count;
			else
				by[n++] = by[k];
		}
		i = end;
	}
	free(vm->entries);
	free(at);
	vm->entries = by;
	vm->entries_cap = vm->nentries + 1;
	vm->nentries = n;
	return 0;
}

static int count_one(void *ctx, const struct resolved *r)
{
	struct view_model *vm = ctx;
	u32 thread, func, stack, dso;
	struct view_entry key;
	u64 bucket;
	int e;

	/* a thread's samples come in runs: the last one's, when it is this one */
	if (vm->nthreads && vm->last_thread.input == r->input && vm->last_thread.pid == r->s->pid &&
	    vm->last_thread.tid == r->s->tid && vm->last_thread.comm == r->comm)
		thread = vm->last_thread_idx;
	else if ((e = thread_of(vm, r, &thread)) != 0)
		return e;
	vm->last_thread = vm->threads[thread];
	vm->last_thread_idx = thread;
	e = stack_of(vm, r, &stack, &func);
	if (e)
		return e;
	vm->funcs[func].self++;
	/* the sampled DSO: its debug information, by the sample's own result */
	dso = vm->funcs[func].dso;
	vm->dsos[dso].sampled = true;
	if (!vm->dsos[dso].info && r->res.info)
		vm->dsos[dso].info = r->res.info;
	bucket = session__rel_time(&vm->rs, r) / vm->bucket_ns;
	if (bucket >= vm->nbuckets)
		bucket = vm->nbuckets - 1;
	key = (struct view_entry){
		.bucket = (u32)bucket, .thread = thread, .event = r->event, .stack = stack};
	e = entry_count(vm, &key);
	if (e)
		return e;
	vm->samples++;
	return ann_set__sample(vm->ann, r);
}

/* ---- annotate's listings ------------------------------------------------ */

/*
 * annotate's models of the hottest functions, counted in this pass
 * (ann_set__attach, ann_set__sample): annotate's own attribution of each
 * address to its line and instruction, so that a listing of the page is
 * `ebs annotate FUNC`'s.  0, or -errno with err filled.
 */
static int annotate_attach(struct view_model *vm, struct ebs_error *err)
{
	struct annotate_opts *ao = calloc(1, sizeof(*ao));
	struct ann_set *set = calloc(1, sizeof(*set));

	vm->ann = set;
	vm->ann_opts = ao; /* the set keeps it until freed */
	if (!ao || !set)
		return ebs_error__set(err, ENOMEM, "out of memory");
	ao->view = *vm->v;
	ao->view.top = VIEW_ANNOTATE_MAX;
	ao->view.min_percent = 0;
	ao->view.filter.candidates = NULL;
	ao->view.warn = NULL; /* the pass says them */
	ao->view.progress = NULL;
	ao->asm_ = decode_available();
	return ann_set__attach(set, ao, &vm->rs, err);
}

static int annotate_finish(struct view_model *vm, struct ebs_error *err)
{
	struct ebs_error aerr = {0};
	int e = ann_set__finish(vm->ann, &aerr);

	if (e == -ENOENT) /* no function to annotate (the kernel's without symbols) */
		return 0;
	if (e)
		*err = aerr;
	return e;
}

int view_model__collect(struct view_model *vm, const struct view_opts *v, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	u64 span_max = 1;
	size_t i;
	int e;

	memset(vm, 0, sizeof(*vm));
	vm->v = v;
	session__symbolize_opts(&so, v);
	e = session__open_view(&vm->rs, v, &so, err);
	if (e)
		return e;
	vm->times = calloc(vm->rs.nin, sizeof(*vm->times));
	if (!vm->times)
		return ebs_error__set(err, ENOMEM, "out of memory");
	for (i = 0; i < vm->rs.nin; i++) { /* each recording's own time (session__span) */
		session__span(&vm->rs, i, &vm->times[i].start, &vm->times[i].span);
		if (vm->times[i].span > span_max)
			span_max = vm->times[i].span;
	}
	/* W: span_max / 1000 rounded up to whole microseconds */
	vm->bucket_ns = (span_max + VIEW_MAX_BUCKETS - 1) / VIEW_MAX_BUCKETS;
	vm->bucket_ns = (vm->bucket_ns + 999) / 1000 * 1000;
	vm->nbuckets = (u32)((span_max + vm->bucket_ns - 1) / vm->bucket_ns);
	vm->chained = session__call_graph(&vm->rs) != NULL;
	vm->chains = chainer__new(&vm->rs, session__call_graph(&vm->rs), v->no_inline);
	if (!vm->chains)
		return ebs_error__set(err, ENOMEM, "out of memory");
	e = annotate_attach(vm, err);
	if (!e)
		e = session__each(&vm->rs, count_one, vm, err);
	if (e)
		return e;
	if (!vm->samples) {
		char why[256];

		session__empty_why(&vm->rs, why, sizeof(why));
		return ebs_error__set(err, ENODATA, "%s: no samples%s%s%s%s", v->input,
				      v->filter.npids || v->filter.ntids || v->filter.ntimes ||
						      v->filter.comm || v->filter.dso ||
						      v->filter.funcs || v->filter.event
					      ? " after the filters"
					      : "",
				      why[0] ? " (" : "", why, why[0] ? ")" : "");
	}
	e = entries_finish(vm);
	if (e)
		return ebs_error__set(err, -e, "out of memory");
	return annotate_finish(vm, err);
}

void view_model__free(struct view_model *vm)
{
	struct ann_set *set = vm->ann;

	if (set) {
		ann_set__free(set);
		free(set);
	}
	kv_free(&vm->h_funcs);
	kv_free(&vm->h_dsos);
	kv_free(&vm->h_threads);
	kv_free(&vm->h_nodes);
	kv_free(&vm->h_sites);
	kv_free(&vm->h_stacks);
	free(vm->funcs);
	free(vm->dsos);
	free(vm->threads);
	free(vm->nodes);
	free(vm->sites);
	free(vm->site_into);
	free(vm->stacks);
	free(vm->entries);
	free(vm->cur);
	free(vm->cur_used);
	free(vm->times);
	free(vm->memo);
	free(vm->ann_opts);
	ebs_strset__free(&vm->names);
	chainer__free(vm->chains);
	if (vm->rs.d)
		session__close(&vm->rs);
	memset(vm, 0, sizeof(*vm));
}
