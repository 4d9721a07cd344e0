// SPDX-License-Identifier: MIT
/*
 * json.c - ebs view's data (model.c's view_model) written as the page's
 * JSON (docs/view.md, "The data"): the recordings, the interned tables,
 * the counted entries and annotate's listings, numbers and strings through
 * util/json.c's writer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/annotate/annotate.h"
#include "report/annotate/decode.h"
#include "report/view/view.h"
#include "util/json.h"

#ifndef EBS_VERSION
#define EBS_VERSION "unknown"
#endif

/* What a listing costs in the page, roughly: its text and numbers. */
static size_t model_bytes(const struct ann_func *af)
{
	size_t n = 64, i;

	for (i = 0; i < af->nlines; i++)
		n += 24 + (af->lines[i].file ? strlen(af->lines[i].file) : 4) +
		     (af->lines[i].text ? strlen(af->lines[i].text) : 4);
	for (i = 0; i < af->ninsns; i++)
		n += 32 + strlen(af->insns[i].text) + strlen(af->insns[i].target_name);
	return n + af->nhits * 24;
}

static void json_recording(struct view_model *vm, size_t i, struct ebs_json *j)
{
	const struct session_input *in = &vm->rs.in[i];
	struct ebs_data *d = in->d;
	const struct ebs_rec_trailer *t = ebs_data__totals(d);
	const struct ebs_rec_calibration *cal = NULL;
	const char *cg = ebs_data__meta(d, EBS_META_CALL_GRAPH);
	unsigned int k;

	ebs_json__obj(j);
	ebs_json__key_str(j, "file", ebs_data__path(d));
	ebs_json__key_str(j, "host", in->has_host ? in->host : NULL);
	ebs_json__key_str(j, "cmdline", ebs_data__meta(d, EBS_META_CMDLINE));
	ebs_json__key_str(j, "target", ebs_data__meta(d, EBS_META_TARGET));
	ebs_json__key_str(j, "backend", ebs_data__meta(d, EBS_META_BACKEND));
	ebs_json__key(j, "events");
	ebs_json__arr(j);
	for (k = 0; k < ebs_data__nr_events(d); k++) {
		const struct ebs_event_info *ev = ebs_data__event(d, k);
		bool freq = ev->rec->flags & EBS_EVF_FREQ;

		if (!cal)
			cal = ebs_data__calibration(d, k);
		ebs_json__obj(j);
		ebs_json__key_str(j, "name", ev->used);
		ebs_json__key_str(j, "asked", ev->asked);
		ebs_json__key_str(j, "fallback", ev->why && ev->why[0] ? ev->why : NULL);
		if (freq) {
			ebs_json__key_null(j, "period");
			ebs_json__key_u64(j, "freq", ev->rec->sample_freq);
		} else {
			ebs_json__key_u64(j, "period", ev->rec->sample_period);
			ebs_json__key_null(j, "freq");
		}
		ebs_json__obj_end(j);
	}
	ebs_json__arr_end(j);
	if (cal) {
		char text[160];

		snprintf(text, sizeof(text), "%u/s asked, N = %llu, %.1f%% overhead", cal->rate_hz,
			 (unsigned long long)cal->sample_after, (double)cal->overhead_ppm / 1e4);
		ebs_json__key_str(j, "calibration", text);
	} else {
		ebs_json__key_null(j, "calibration");
	}
	ebs_json__key_u64(j, "samples", in->samples);
	ebs_json__key_u64(j, "lost", t ? t->lost : 0);
	ebs_json__key_u64(j, "throttled", t ? t->throttled : 0);
	ebs_json__key_u64(j, "start_ns", vm->times[i].start);
	ebs_json__key_u64(j, "span_ns", vm->times[i].span);
	ebs_json__key_str(j, "call_graph", cg ? cg : "");
	ebs_json__obj_end(j);
}

static void json_u32s(struct ebs_json *j, const char *key, const u32 *v, size_t n)
{
	size_t i;

	ebs_json__key(j, key);
	ebs_json__arr(j);
	for (i = 0; i < n; i++)
		ebs_json__u64(j, v[i]);
	ebs_json__arr_end(j);
}

static void json_samples(struct view_model *vm, struct ebs_json *j)
{
	size_t i = 0, b;

	ebs_json__key(j, "samples");
	ebs_json__obj(j);
	ebs_json__key(j, "bucket_start");
	ebs_json__arr(j);
	for (b = 0; b <= vm->nbuckets; b++) { /* the first entry of bucket b (sorted) */
		while (i < vm->nentries && vm->entries[i].bucket < b)
			i++;
		ebs_json__u64(j, i);
	}
	ebs_json__arr_end(j);
#define COLUMN(name, field)                                                                        \
	do {                                                                                       \
		ebs_json__key(j, name);                                                            \
		ebs_json__arr(j);                                                                  \
		for (i = 0; i < vm->nentries; i++)                                                 \
			ebs_json__u64(j, vm->entries[i].field);                                    \
		ebs_json__arr_end(j);                                                              \
	} while (0)
	COLUMN("thread", thread);
	COLUMN("event", event);
	COLUMN("stack", stack);
	COLUMN("count", count);
#undef COLUMN
	ebs_json__obj_end(j);
}

/* The index of f (name and DSO) among the functions, or -1. */
static long func_index(const struct view_model *vm, const struct ann_func *af)
{
	size_t i;

	for (i = 0; i < vm->nfuncs; i++)
		if (!strcmp(vm->funcs[i].name, af->name) &&
		    !strcmp(vm->dsos[vm->funcs[i].dso].name, af->dso))
			return (long)i;
	return -1;
}

static long line_row(const struct ann_func *af, const char *file, u32 line)
{
	size_t i;

	for (i = 0; file && i < af->nlines; i++)
		if (af->lines[i].file == file && af->lines[i].line == line)
			return (long)i;
	return -1;
}

static long insn_row(const struct ann_func *af, u64 addr)
{
	size_t lo = 0, hi = af->ninsns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (af->insns[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < af->ninsns && af->insns[lo].addr == addr ? (long)lo : -1;
}

static int hit_cmp(const void *a, const void *b)
{
	u64 x = (*(const struct ann_hit *const *)a)->addr,
	    y = (*(const struct ann_hit *const *)b)->addr;

	return x < y ? -1 : x > y;
}

/*
 * One listing: its lines, instructions, and each sampled site's row in
 * them.  0, or -ENOMEM.
 */
static int json_listing(struct view_model *vm, const struct ann_func *af, struct ebs_json *j)
{
	const struct ann_hit **hits;
	size_t i, s;
	char text[512];

	ebs_json__obj(j);
	ebs_json__key_str(j, "file", af->main_file);
	if (af->read_from && !af->source_missing)
		ebs_json__key_null(j, "why");
	else
		ebs_json__key_str(j, "why",
				  af->note[0]	   ? af->note
				  : af->source_why ? af->source_why
						   : "no source");
	ebs_json__key(j, "lines");
	ebs_json__arr(j);
	for (i = 0; i < af->nlines; i++) {
		ebs_json__arr(j);
		ebs_json__str(j, af->lines[i].file);
		ebs_json__u64(j, af->lines[i].line);
		ebs_json__str(j, af->lines[i].text);
		ebs_json__arr_end(j);
	}
	ebs_json__arr_end(j);
	ebs_json__key(j, "asm");
	ebs_json__arr(j);
	for (i = 0; i < af->ninsns; i++) {
		const struct ann_insn *in = &af->insns[i];

		snprintf(text, sizeof(text), "%s%s%s%s", in->text, in->target_name[0] ? " <" : "",
			 in->target_name, in->target_name[0] ? ">" : "");
		ebs_json__arr(j);
		ebs_json__u64(j, in->addr);
		ebs_json__str(j, text);
		ebs_json__s64(j, in->src ? (s64)(in->src - af->lines) : -1);
		ebs_json__arr_end(j);
	}
	ebs_json__arr_end(j);
	/* the sites in this function's DSO at its sampled addresses (hits by address) */
	ebs_json__key(j, "map");
	ebs_json__arr(j);
	hits = malloc((af->nhits + 1) * sizeof(*hits));
	for (i = 0; hits && i < af->nhits; i++)
		hits[i] = &af->hits[i];
	if (hits)
		qsort(hits, af->nhits, sizeof(*hits), hit_cmp);
	for (s = 0; hits && s < vm->nsites; s++) {
		const struct view_func *fn = &vm->funcs[vm->sites[2 * s]];
		const struct ann_hit key = {.addr = vm->sites[2 * s + 1]}, *kp = &key;
		const struct ann_hit *const *hp;

		if (strcmp(vm->dsos[fn->dso].name, af->dso))
			continue;
		hp = bsearch(&kp, hits, af->nhits, sizeof(*hits), hit_cmp);
		if (!hp)
			continue;
		ebs_json__u64(j, s);
		ebs_json__s64(j, line_row(af, (*hp)->file, (*hp)->line));
		ebs_json__s64(j, (*hp)->has_insn ? insn_row(af, (*hp)->insn) : -1);
	}
	ebs_json__arr_end(j);
	ebs_json__obj_end(j);
	if (!hits)
		return -ENOMEM;
	free(hits);
	return 0;
}

/*
 * The listings, up to the budget; then how many functions have none, and
 * why: left out by the bound (annotate's VIEW_ANNOTATE_MAX hottest, then
 * the byte budget), or with samples of their own and nothing to list: no
 * symbol names their code ("[unknown] DSO+0xADDR": annotate has no
 * function there), or only inlined (annotate FUNC lists its lines where
 * inlined).  0 or -ENOMEM.
 */
static int json_annotate(struct view_model *vm, struct ebs_json *j)
{
	struct ann_set *set = vm->ann;
	bool *done = calloc(vm->nfuncs + 1, sizeof(*done));
	size_t i, bytes = 0, over = 0, no_symbol = 0, inlined = 0;
	char key[24];
	int e = done ? 0 : -ENOMEM;

	ebs_json__key(j, "annotate");
	ebs_json__obj(j);
	for (i = 0; !e && set && i < set->n; i++) {
		const struct ann_func *af = set->models[i];
		long f = func_index(vm, af);
		size_t n = model_bytes(af);

		if (f < 0 || done[f])
			continue; /* a function of no frame, or a second one of its name */
		if (bytes + n > VIEW_ANNOTATE_BUDGET) {
			over++; /* this one and the colder ones: over the budget */
			continue;
		}
		bytes += n;
		done[f] = true;
		snprintf(key, sizeof(key), "%ld", f);
		ebs_json__key(j, key);
		e = json_listing(vm, af, j);
	}
	ebs_json__obj_end(j);
	for (i = 0; done && i < vm->nfuncs; i++) {
		if (!vm->funcs[i].self || done[i])
			continue;
		if (vm->funcs[i].flags & 4)
			no_symbol++;
		else if (vm->funcs[i].flags & 2)
			inlined++;
	}
	vm->annotate_left = over + (set ? set->rest.left : 0);
	ebs_json__key_u64(j, "annotate_left", vm->annotate_left);
	ebs_json__key(j, "annotate_none");
	ebs_json__obj(j);
	ebs_json__key_u64(j, "no_symbol", no_symbol);
	ebs_json__key_u64(j, "inlined", inlined);
	ebs_json__obj_end(j);
	free(done);
	return e;
}

int view_model__json(struct view_model *vm, FILE *f)
{
	struct ebs_json j;
	unsigned int k;
	size_t i;
	int e;

	ebs_json__begin_script(&j, f);
	ebs_json__obj(&j);
	ebs_json__key_u64(&j, "format", 1);
	ebs_json__key_str(&j, "ebs", EBS_VERSION);
	ebs_json__key(&j, "recordings");
	ebs_json__arr(&j);
	for (i = 0; i < vm->rs.nin; i++)
		json_recording(vm, i, &j);
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "events");
	ebs_json__arr(&j);
	for (k = 0; k < session__nr_events(&vm->rs); k++)
		ebs_json__str(&j, session__event(&vm->rs, k)->used);
	ebs_json__arr_end(&j);
	ebs_json__key_u64(&j, "bucket_ns", vm->bucket_ns);
	ebs_json__key_u64(&j, "nbuckets", vm->nbuckets);
	ebs_json__key(&j, "dsos");
	ebs_json__arr(&j);
	for (i = 0; i < vm->ndsos; i++) {
		const struct view_dso *d = &vm->dsos[i];

		ebs_json__arr(&j);
		ebs_json__str(&j, d->name);
		ebs_json__str(&j, d->path);
		ebs_json__u64(&j, d->info && d->info->debug_path ? 1 : 0);
		ebs_json__arr_end(&j);
	}
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "no_debug");
	ebs_json__arr(&j);
	for (i = 0; i < vm->ndsos; i++) /* user-space DSOs with samples and no DWARF */
		if (vm->dsos[i].sampled && vm->dsos[i].info && !vm->dsos[i].info->debug_path)
			ebs_json__u64(&j, i);
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "funcs");
	ebs_json__arr(&j);
	for (i = 0; i < vm->nfuncs; i++) {
		ebs_json__arr(&j);
		ebs_json__str(&j, vm->funcs[i].name);
		ebs_json__u64(&j, vm->funcs[i].dso);
		ebs_json__u64(&j, vm->funcs[i].flags);
		ebs_json__arr_end(&j);
	}
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "threads");
	ebs_json__arr(&j);
	for (i = 0; i < vm->nthreads; i++) {
		const struct view_thread *t = &vm->threads[i];

		ebs_json__arr(&j);
		ebs_json__u64(&j, t->input);
		ebs_json__u64(&j, t->pid);
		ebs_json__u64(&j, t->tid);
		ebs_json__str(&j, t->comm);
		ebs_json__arr_end(&j);
	}
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "nodes");
	ebs_json__arr(&j);
	for (i = 0; i < 2 * vm->nnodes; i++)
		ebs_json__s64(&j, vm->nodes[i]);
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "sites");
	ebs_json__arr(&j);
	for (i = 0; i < 2 * vm->nsites; i++)
		ebs_json__u64(&j, vm->sites[i]);
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "site_into");
	ebs_json__arr(&j);
	for (i = 0; i < vm->nsites; i++)
		ebs_json__s64(&j, vm->site_into[i]);
	ebs_json__arr_end(&j);
	json_u32s(&j, "stacks", vm->stacks, 2 * vm->nstacks);
	json_samples(vm, &j);
	e = json_annotate(vm, &j);
	ebs_json__key(&j, "diff");
	if (vm->rs.nin == 2) {
		ebs_json__obj(&j);
		ebs_json__key_u64(&j, "base", 0);
		ebs_json__key_u64(&j, "new", 1);
		ebs_json__key_num(&j, "alpha", "%g", 0.05);
		ebs_json__obj_end(&j);
	} else {
		ebs_json__null(&j);
	}
	ebs_json__obj_end(&j);
	return ebs_json__end(&j) ? -EINVAL : e;
}

