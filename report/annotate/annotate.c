// SPDX-License-Identifier: MIT
/*
 * annotate.c - ebs annotate: the source of the hot functions with the
 * samples of every line beside it, and with --asm their instructions.
 *
 * One pass over the samples counts them per function (by its DSO and
 * start address) and per address.  For each function shown, the addresses'
 * inline chains (from symbolize/) give the lines: a sample counts at the
 * innermost function's own line, and each call site it was inlined
 * through shows what it inlined; --no-inline counts it at the compiled
 * function's line instead.  The source is read from the path DWARF gives,
 * mapped through --source-dir (source.c).  Instructions are decoded
 * (decode.c) from the bytes symbolize/ reads out of the DSO.  The listing
 * is built as a model (annotate.h); run.c prints it as text
 * (annotate-text.c) or HTML (html.c): the model never calls a printer.
 *
 * Why one file of ~1,500 lines: the counting pass and the model of one
 * function share the private counts (struct annot, struct fn_ent) that no
 * printer may see; the printers and run.c are apart.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "report/annotate/annotate.h"
#include "report/annotate/decode.h"
#include "report/names.h"
#include "report/present.h"
#include "report/session/session.h"
#include "report/annotate/source.h"
#include "util/hash.h"

#define MAX_FUNC_BYTES (4u << 20) /* larger "functions" are not decoded */

struct addr_cnt {
	UT_hash_handle hh;
	u64 addr;
	u64 n;
	unsigned int nr_frames;
	const struct sym_frame *frames; /* the symbolizer's, stable */
};

struct fn_key {
	const struct sym_dso_info *info;
	u64 start;
};

struct fn_ent {
	UT_hash_handle hh;
	struct fn_key key; /* key.info NULL: a kernel function */
	const char *name, *dso, *dso_path;
	bool kernel;
	bool listed; /* may be listed: no FUNC asked, or this is one; else only counted */
	u64 end;
	u64 samples;
	struct addr_cnt *addrs; /* per address, for a function that may be listed */
};

/*
 * One (file, line) of a file-mode listing, over every function, as the
 * DWARF of a file of owner's names it (whose names decide which sources
 * are shown: source.h).
 */
struct fl_ent {
	UT_hash_handle hh;
	struct {
		const char *file;
		u32 line;
		uid_t owner;
	} key;
	u64 n;
};

struct annot {
	const struct annotate_opts *o;
	struct session *rs; /* own, or the caller's (ann_set__attach) */
	struct session own;
	int only_event; /* attached: the one event counted (the caller's pass has all) */
	struct fn_ent *fns;
	struct fl_ent *flines;
	/* file names of file listings: one pointer per name, whatever DSO's
	 * DWARF named it (a header inlined into two libraries) */
	struct ebs_strset *fnames;
	struct source_cache *sources;
	u64 total;
	u64 kernel, nofunc;	  /* samples no function listing can show: in the kernel
				   * without kallsyms, outside any known function */
	const char *inlined_name; /* FUNC's name where it was inlined */
	const char *inlined_in;	  /* a compiled function it was inlined into */
	bool file_mode;
	struct name_query q; /* FUNC, resolved among the recording's functions */
	char target_file[4096];
	u32 target_line;
	/*
	 * What a sample of each address (sym_result.id) was counted into, so
	 * that the next sample there is counted without hashing (report.c's
	 * row memo): none of it when EBS_DEBUG_NO_MEMO is set.
	 */
	struct ann_memo *memo;
	size_t nmemo;
	bool opened; /* rs is open */
	bool bare;   /* the symbolizer gives frames to FUNC's functions only (fused_pass) */
};

struct ann_memo {
	bool set;
	struct fl_ent *line; /* the file listing's line, or NULL */
	struct fn_ent *f;    /* the function, or NULL: counted in nofunc */
	struct addr_cnt *a;  /* the address in a listed function, or NULL */
};

/* ---- collection ------------------------------------------------------- */

static int add_addr(struct fn_ent *f, u64 addr, const struct sym_result *res, struct addr_cnt **out)
{
	struct addr_cnt *a;

	HASH_FIND(hh, f->addrs, &addr, sizeof(addr), a);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		a->addr = addr;
		a->nr_frames = res->nr_frames;
		a->frames = res->frames;
		HASH_ADD(hh, f->addrs, addr, sizeof(a->addr), a);
		if (!a->hh.tbl) {
			free(a);
			return -ENOMEM;
		}
	}
	a->n++;
	*out = a;
	return 0;
}

/* Where a sample of res's address went, for the next: m (NULL: none kept). */
static struct ann_memo *memo_of(struct annot *an, const struct sym_result *res)
{
	size_t n;

	if (!res->id || an->rs->no_memo)
		return NULL;
	if (res->id >= an->nmemo) {
		struct ann_memo *v;

		n = an->nmemo ? an->nmemo : 1024;
		while (n <= res->id)
			n *= 2;
		v = realloc(an->memo, n * sizeof(*v));
		if (!v)
			return NULL; /* only slower */
		memset(v + an->nmemo, 0, (n - an->nmemo) * sizeof(*v));
		an->memo = v;
		an->nmemo = n;
	}
	return &an->memo[res->id];
}

/* The innermost of sample's inlined frames (not the compiled function's) that is FUNC, or NULL. */
static const struct sym_frame *inlined_frame(const struct annot *an, const struct sym_result *res)
{
	unsigned int i;

	for (i = 0; i + 1 < res->nr_frames; i++)
		if (name_query__match(&an->q, res->frames[i].function))
			return &res->frames[i];
	return NULL;
}

static int collect(void *ctx, const struct resolved *rv)
{
	struct annot *an = ctx;
	const struct sym_result *res = &rv->res;
	struct ann_memo *m = memo_of(an, res), put = {.set = true};
	struct fn_key key = {0};
	struct fn_ent *f;
	const struct sym_frame *fr = NULL;
	bool kernel;

	if (an->only_event >= 0 && (int)rv->event != an->only_event)
		return 0;
	an->total++;
	/* counted as the last sample of its address was: its line, function and address */
	if (m && m->set) {
		if (m->line)
			m->line->n++;
		if (!m->f) {
			an->nofunc++;
			return 0;
		}
		m->f->samples++;
		if (m->a)
			m->a->n++;
		return 0;
	}
	/* the innermost line, or with --no-inline the compiled function's */
	if (an->file_mode && res->nr_frames)
		fr = &res->frames[an->o->view.no_inline ? res->nr_frames - 1 : 0];
	/*
	 * A FUNC that may only exist inlined: its own lines, wherever inlined,
	 * at any depth (frames[i]'s line is in frames[i]'s function: for i > 0,
	 * where it calls the code inlined into it).
	 */
	else if (an->o->target && !an->o->view.no_inline && res->nr_frames > 1 &&
		 (fr = inlined_frame(an, res)) != NULL) {
		if (!an->inlined_name)
			an->inlined_name = fr->function;
		if (!an->inlined_in)
			an->inlined_in = res->function ? res->function
						       : res->frames[res->nr_frames - 1].function;
	}
	if (fr) {
		struct fl_ent *e, probe = {0};

		if (fr->file && fr->line) {
			probe.key.file = ebs_strset__intern(&an->fnames, fr->file);
			if (!probe.key.file)
				return -ENOMEM;
			probe.key.line = fr->line;
			probe.key.owner = res->info ? res->info->dwarf_owner : (uid_t)-1;
			HASH_FIND(hh, an->flines, &probe.key, sizeof(probe.key), e);
			if (!e) {
				e = calloc(1, sizeof(*e));
				if (!e)
					return -ENOMEM;
				e->key = probe.key;
				HASH_ADD(hh, an->flines, key, sizeof(e->key), e);
				if (!e->hh.tbl) {
					free(e);
					return -ENOMEM;
				}
			}
			e->n++;
			put.line = e;
		}
	}
	/* kernel code: kallsyms names it; its instructions may be in /proc/kcore */
	kernel = !res->info && (rv->s->hdr.misc & EBS_CPUMODE_MASK) == EBS_CPUMODE_KERNEL;
	if (!res->function || (!res->info && !kernel)) {
		if (kernel)
			an->kernel++; /* kallsyms unreadable: no function to list */
		else
			an->nofunc++;
		if (m && !kernel)
			*m = put;
		return 0;
	}
	key.info = res->info; /* NULL: the kernel, in its own address space */
	key.start = res->dso_addr - res->sym_offset;
	HASH_FIND(hh, an->fns, &key, sizeof(key), f);
	if (!f) {
		struct sym_func sf;
		int e;

		f = calloc(1, sizeof(*f));
		if (!f)
			return -ENOMEM;
		f->key = key;
		f->name = res->function;
		f->dso = res->dso;
		f->dso_path = !kernel		     ? res->dso_path
			      : an->o->view.kallsyms ? an->o->view.kallsyms
			      : ebs_data__ksyms(an->rs->d)
				      ? ebs_data__path(an->rs->d) /* its KSYMS */
				      : "/proc/kallsyms";
		f->kernel = kernel;
		f->listed = !an->o->target || an->file_mode || name_query__match(&an->q, f->name);
		e = kernel ? symbolizer__kernel_function(an->rs->sym, key.start, &sf)
			   : symbolizer__function(an->rs->sym, res->info, key.start, &sf);
		f->end = e == 0 ? sf.end : res->dso_addr + 1;
		HASH_ADD(hh, an->fns, key, sizeof(f->key), f);
		if (!f->hh.tbl) {
			free(f);
			return -ENOMEM;
		}
	}
	f->samples++;
	put.f = f;
	/* another function than FUNC: counted for "the hottest", never listed */
	if (f->listed) {
		int e = add_addr(f, res->dso_addr, res, &put.a);

		if (e)
			return e;
	}
	if (m && !kernel)
		*m = put;
	return 0;
}

/* ---- one function's model ----------------------------------------------- */

/*
 * The lines of a listing, in a vector, with a hash index by (file, line):
 * a function of 10,000 lines meets each of them once per sample address.
 * File names are the symbolizer's interned pointers, so the pointer is
 * the file.
 */
struct line_key {
	const char *file;
	u32 line;
};

struct line_ref {
	UT_hash_handle hh;
	struct line_key key;
	size_t i; /* index into line_vec.v */
};

struct line_vec {
	struct ann_line *v;
	size_t n, cap;
	struct line_ref *index;
	struct line_ref *refs; /* one per line, for the index: cap of them */
};

static void line_vec__free_index(struct line_vec *lv)
{
	HASH_CLEAR(hh, lv->index);
	free(lv->refs);
	lv->refs = NULL;
}

/* The line (file, line) of lv, or NULL; lv's index must be current. */
static struct ann_line *line_find(struct line_vec *lv, const char *file, u32 line)
{
	struct line_key k;
	struct line_ref *r;

	memset(&k, 0, sizeof(k));
	k.file = file;
	k.line = line;
	HASH_FIND(hh, lv->index, &k, sizeof(k), r);
	return r ? &lv->v[r->i] : NULL;
}

/* Index lv's lines where they are now (after a sort); 0 or -ENOMEM. */
static int line_vec__reindex(struct line_vec *lv)
{
	size_t i;

	line_vec__free_index(lv);
	lv->refs = calloc(lv->cap ? lv->cap : 1, sizeof(*lv->refs));
	if (!lv->refs)
		return -ENOMEM;
	for (i = 0; i < lv->n; i++) {
		struct line_ref *r = &lv->refs[i];

		r->key.file = lv->v[i].file;
		r->key.line = lv->v[i].line;
		r->i = i;
		HASH_ADD(hh, lv->index, key, sizeof(r->key), r);
		if (!r->hh.tbl)
			return -ENOMEM;
	}
	return 0;
}

/* The line (file, line) of lv, added when new; NULL when out of memory. */
static struct ann_line *line_get(struct line_vec *lv, const char *file, u32 line)
{
	struct ann_line *l = line_find(lv, file, line);
	struct line_ref *r;

	if (l)
		return l;
	if (lv->n == lv->cap) {
		if (ebs_grow((void **)&lv->v, &lv->cap, lv->n, sizeof(*lv->v), 64))
			return NULL;
		/* the refs array grows too: index the lines anew */
		if (line_vec__reindex(lv))
			return NULL;
	}
	memset(&lv->v[lv->n], 0, sizeof(lv->v[0]));
	lv->v[lv->n].file = file;
	lv->v[lv->n].line = line;
	r = &lv->refs[lv->n]; /* zeroed: padding is part of the hashed key */
	r->key.file = file;
	r->key.line = line;
	r->i = lv->n;
	HASH_ADD(hh, lv->index, key, sizeof(r->key), r);
	if (!r->hh.tbl)
		return NULL;
	return &lv->v[lv->n++];
}

struct rows_ctx {
	const char *first_file; /* the file of the row at start */
	u64 start;
	struct sym_row *rows;
	size_t nrows, cap;
};

static int row_cb(void *ctx, const struct sym_row *row)
{
	struct rows_ctx *rc = ctx;

	if (ebs_grow((void **)&rc->rows, &rc->cap, rc->nrows, sizeof(*rc->rows), 256))
		return -ENOMEM;
	rc->rows[rc->nrows++] = *row;
	if (row->addr == rc->start && !rc->first_file)
		rc->first_file = row->file;
	return 0;
}

/* Is dso a JIT's perf-PID.map? */
static bool is_perf_map(const char *dso)
{
	size_t len = strlen(dso);

	return !strncmp(dso, "perf-", 5) && len > 9 && !strcmp(dso + len - 4, ".map");
}

/*
 * A kernel function's bytes, from the kernel's memory (/proc/kcore or
 * --kcore), when the recording was made on the kernel whose memory that is:
 * the same _stext in kallsyms as recorded (KASLR moves it every boot), or
 * without that record, the same release as the running one.  0, or -errno
 * with why saying what is missing in words.
 */
static int kernel_code(struct annot *an, const struct fn_ent *f, u8 *code, size_t len,
		       enum sym_arch *code_arch, char *why, size_t why_len)
{
	const char *stext = ebs_data__meta(an->rs->d, EBS_META_KERNEL_STEXT);
	const char *release = ebs_data__meta(an->rs->d, EBS_META_OS_RELEASE);
	const char *arch = ebs_data__meta(an->rs->d, EBS_META_ARCH);
	const char *kcore = an->o->kcore ? an->o->kcore : "/proc/kcore";
	struct utsname u;
	u64 now = 0;
	int e;

	*code_arch = arch && !strcmp(arch, "x86_64") ? SYM_ARCH_X86_64 : SYM_ARCH_UNKNOWN;
	if (stext && symbolizer__kernel_stext(an->rs->sym, &now) == 0 &&
	    strtoull(stext, NULL, 16) != now) {
		snprintf(why, why_len,
			 "no instructions: recorded on a kernel laid out otherwise "
			 "(_stext has moved: another boot or machine)");
		return -ESTALE;
	}
	if (!stext && !an->o->kcore && release && uname(&u) == 0 && strcmp(release, u.release)) {
		snprintf(why, why_len, "no instructions: recorded on kernel %s, this one is %s",
			 release, u.release);
		return -ESTALE;
	}
	e = symbolizer__kernel_code(an->rs->sym, f->key.start, code, len);
	if (e == -ENOENT)
		snprintf(why, why_len, "no instructions: %s is not there (%s)", kcore,
			 an->o->kcore ? "no such file"
				      : "a kernel built without CONFIG_PROC_KCORE");
	else if ((e == -EACCES || e == -EPERM) && !an->o->kcore)
		snprintf(why, why_len, "no instructions: %s is readable by root only", kcore);
	else if (e == -ENXIO)
		snprintf(why, why_len, "no instructions: %s does not hold %s", kcore, f->name);
	else if (e)
		snprintf(why, why_len, "no instructions: %s: %s", kcore, strerror(-e));
	return e;
}

/* Room for one more instruction in af->insns; 0 or -ENOMEM. */
static int insn_room(struct ann_func *af, size_t *cap)
{
	if (ebs_grow((void **)&af->insns, cap, af->ninsns, sizeof(*af->insns), 256))
		return -ENOMEM;
	memset(&af->insns[af->ninsns], 0, sizeof(af->insns[0]));
	return 0;
}

/*
 * A call's or jump's target as objdump names it: <fn> or <fn+0xoff>, inside
 * this function or through the DSO's symbol table (PLT entries included).
 * target is the address itself (ai->target, as shown, is less the base).
 */
static void name_target(struct annot *an, const struct fn_ent *f, struct ann_insn *ai, u64 target)
{
	const char *name = NULL;
	struct sym_func sf;
	u64 start = 0;

	if (target >= f->key.start && target < f->end) {
		name = f->name;
		start = f->key.start;
		ai->target_local = true;
	} else if ((f->kernel ? symbolizer__kernel_function(an->rs->sym, target, &sf)
			      : symbolizer__function(an->rs->sym, f->key.info, target, &sf)) == 0 &&
		   sf.name) {
		name = sf.name;
		start = sf.start;
	}
	if (!name)
		return;
	if (target == start)
		snprintf(ai->target_name, sizeof(ai->target_name), "%.*s", 120, name);
	else
		snprintf(ai->target_name, sizeof(ai->target_name), "%.*s+0x%llx", 120, name,
			 (unsigned long long)(target - start));
}

/*
 * What a function's addresses are shown less of: nothing in user space; in
 * the kernel, _stext (session__kernel_at), or when that is not known the
 * function's own start, so that no listing holds where KASLR put the
 * kernel.  The model's instructions are at addresses less this.
 */
static u64 shown_base(struct annot *an, const struct fn_ent *f)
{
	return f->kernel ? f->key.start - session__kernel_at(an->rs, f->key.start) : 0;
}

struct insns_ctx {
	struct annot *an;
	const struct fn_ent *f;
	struct ann_func *af;
	u64 base; /* shown_base */
	size_t cap;
};

/* One decoded instruction into af->insns, its branch target named; 0 or -ENOMEM. */
static int take_insn(void *ctx, const struct decode_insn *in)
{
	struct insns_ctx *ic = ctx;
	struct ann_insn *ai;

	if (insn_room(ic->af, &ic->cap))
		return -ENOMEM;
	ai = &ic->af->insns[ic->af->ninsns++];
	ai->addr = in->addr;
	snprintf(ai->text, sizeof(ai->text), "%s", in->text);
	if (in->has_target) {
		ai->target = in->target;
		name_target(ic->an, ic->f, ai, in->target + ic->base);
	}
	return 0;
}

/*
 * The function's instructions into af->insns; 0, or -ENOENT with why
 * saying what is missing in words, or -ENOMEM.  A byte the decoder cannot
 * decode (data in the code, padding) is listed as ".byte 0xNN" and
 * decoding goes on after it (decode.h): where it stopped is seen.
 */
static int insns_of(struct annot *an, const struct fn_ent *f, const struct rows_ctx *rc,
		    struct ann_func *af, char *why, size_t why_len)
{
	struct insns_ctx ic = {.an = an, .f = f, .af = af, .base = shown_base(an, f)};
	size_t len = f->end - f->key.start, nstops = 0, i;
	enum sym_arch arch = SYM_ARCH_UNKNOWN;
	struct addr_cnt *a, *tmp;
	u64 *stops;
	u8 *code;
	int e;

	if (!decode_available()) {
		snprintf(why, why_len, "no instructions: %s", decode_none_why());
		return -ENOENT;
	}
	if (!len || len > MAX_FUNC_BYTES) {
		snprintf(why, why_len, "no instructions: the function's size is unknown");
		return -ENOENT;
	}
	code = malloc(len);
	if (!code)
		return -ENOMEM;
	e = f->kernel ? kernel_code(an, f, code, len, &arch, why, why_len)
		      : symbolizer__code(an->rs->sym, f->key.info, f->key.start, code, len, &arch);
	if (e) {
		if (!f->kernel)
			snprintf(why, why_len, "no instructions: cannot read the code from %s",
				 f->dso_path);
		free(code);
		return e == -ENOMEM ? e : -ENOENT;
	}
	/* where instructions begin: the line table's rows, the sampled addresses */
	stops = malloc((rc->nrows + HASH_COUNT(f->addrs) + 1) * sizeof(*stops));
	if (!stops) {
		free(code);
		return -ENOMEM;
	}
	for (i = 0; i < rc->nrows; i++)
		if (rc->rows[i].addr > f->key.start && rc->rows[i].addr < f->end)
			stops[nstops++] = rc->rows[i].addr - f->key.start;
	HASH_ITER(hh, f->addrs, a, tmp)
		if (a->addr > f->key.start && a->addr < f->end)
			stops[nstops++] = a->addr - f->key.start;
	qsort(stops, nstops, sizeof(*stops), ebs_u64_cmp);
	/* decoded where it is shown: a branch's target is shown as its address is */
	e = decode_each_at(arch, code, len, f->key.start - ic.base, stops, nstops, take_insn, &ic);
	free(stops);
	free(code);
	if (e == -ENOEXEC) {
		snprintf(why, why_len, "no instructions: only x86-64 code is decoded");
		return -ENOENT;
	}
	return e;
}

/* The instruction at or before addr, or NULL. */
static struct ann_insn *insn_at(struct ann_func *af, u64 addr)
{
	size_t lo = ebs_upper_bound(af->insns, af->ninsns, sizeof(af->insns[0]),
				    offsetof(struct ann_insn, addr), addr);

	return lo ? &af->insns[lo - 1] : NULL;
}

/* Samples at addr, or (skid-adjusted) at the instruction before addr. */
static u64 where(struct ann_func *af, u64 addr, bool skid)
{
	struct ann_insn *in;

	if (!skid || !af->ninsns)
		return addr;
	in = insn_at(af, addr);
	if (in && in->addr == addr && in > af->insns)
		return in[-1].addr;
	return addr;
}

static int line_cmp(const void *a, const void *b, void *ctx)
{
	const struct ann_line *x = a, *y = b;
	const char *main_file = ctx;
	int c;

	if ((x->file == main_file) != (y->file == main_file))
		return x->file == main_file ? -1 : 1;
	if (x->in_range != y->in_range)
		return x->in_range ? -1 : 1;
	c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	/* outside the range: inlined code, then the other functions' lines */
	if (!x->in_range && !x->function != !y->function)
		return x->function ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void free_model(struct ann_func *af)
{
	if (!af)
		return;
	free(af->lines);
	free(af->insns);
	free(af->hits);
	free(af);
}

/*
 * Where the printed listing breaks: a header before the first shown line of
 * each group outside the function's own range (another file, or inlined
 * code from elsewhere in its file), a gap where shown lines do not follow
 * each other.
 */
static void mark_breaks(struct ann_func *af)
{
	const struct ann_line *prev = NULL;
	size_t i;

	for (i = 0; i < af->nlines; i++) {
		struct ann_line *l = &af->lines[i];

		if (!l->shown)
			continue;
		/* inlined code and other functions' lines are headed apart */
		l->section_before =
			!l->in_range && (!prev || prev->in_range || prev->file != l->file ||
					 !prev->function != !l->function);
		l->gap_before = !l->section_before && prev &&
				(prev->file != l->file || prev->line + 1 != l->line);
		prev = l;
	}
}

/*
 * Decide which lines are printed: all of the function, or hot ones with
 * context.  Lines are sorted (line_cmp): the lines within context of a hot
 * one are its neighbours in the array, in the same file and group.
 */
static void choose_lines(struct ann_func *af, bool whole, unsigned int context)
{
	size_t i, j;

	for (i = 0; i < af->nlines; i++) {
		struct ann_line *l = &af->lines[i];

		if (whole && l->in_range)
			l->shown = true;
		if (!l->self && !l->inlined)
			continue;
		l->shown = true;
		for (j = i; j-- > 0;) {
			struct ann_line *m = &af->lines[j];

			if (m->file != l->file || m->in_range != l->in_range ||
			    m->line + context < l->line)
				break;
			m->shown = true;
		}
		for (j = i + 1; j < af->nlines; j++) {
			struct ann_line *m = &af->lines[j];

			if (m->file != l->file || m->in_range != l->in_range ||
			    m->line > l->line + context)
				break;
			m->shown = true;
		}
	}
	mark_breaks(af);
}

static int addr_cmp(const void *a, const void *b)
{
	u64 x = ((const struct ann_insn *)a)->addr, y = ((const struct ann_insn *)b)->addr;

	return x < y ? -1 : x > y;
}

/*
 * A function whose code cannot be read (the kernel's without /proc/kcore):
 * its sampled addresses as rows, "fn+0x19", so that where the samples fall
 * is still seen, as perf shows it; at their addresses less base
 * (shown_base).  0 or -ENOMEM.
 */
static int sampled_offsets(const struct fn_ent *f, struct ann_func *af, u64 base)
{
	struct addr_cnt *a, *tmp;
	size_t cap = 0;

	HASH_ITER(hh, f->addrs, a, tmp) {
		struct ann_insn *in;

		if (insn_room(af, &cap))
			return -ENOMEM;
		in = &af->insns[af->ninsns++];
		in->addr = a->addr - base;
		snprintf(in->text, sizeof(in->text), "%.40s+0x%llx (not read)", f->name,
			 (unsigned long long)(a->addr - f->key.start));
	}
	qsort(af->insns, af->ninsns, sizeof(*af->insns), addr_cmp);
	return 0;
}

/*
 * Which instructions are printed: all of them (a function named, or
 * --asm), else, as for source lines, those within context of one with
 * samples (the hottest functions listed by instructions alone: no source).
 */
static void choose_insns(struct ann_func *af, bool all, unsigned int context)
{
	size_t i, j, last = 0;
	bool any = false;

	for (i = 0; i < af->ninsns; i++)
		af->insns[i].shown = all;
	for (i = 0; !all && i < af->ninsns; i++) {
		if (!af->insns[i].samples)
			continue;
		for (j = i > context ? i - context : 0; j < af->ninsns && j <= i + context; j++)
			af->insns[j].shown = true;
	}
	for (i = 0; i < af->ninsns; i++) {
		if (!af->insns[i].shown)
			continue;
		af->insns[i].gap_before = any ? last + 1 != i : i > 0;
		any = true;
		last = i;
	}
}

static struct ann_func *build(struct annot *an, struct fn_ent *f, bool whole, char *err_why,
			      size_t err_len)
{
	const struct annotate_opts *o = an->o;
	struct ann_func *af = calloc(1, sizeof(*af));
	struct rows_ctx rc = {0};
	struct line_vec lv = {0};
	struct addr_cnt *a, *tmp;
	struct sym_span span;
	bool need_insns = o->asm_ || o->skid_adjust || f->kernel; /* the kernel: nothing else */
	bool code_read;
	u64 base = shown_base(an, f); /* the model's addresses are less this */
	char why[256] = "";
	u64 noline = 0;
	size_t i, hits_cap = 0;
	uid_t owner;
	u32 l, lo = UINT32_MAX, hi = 0; /* the function's own line range in its file */

	if (!af) {
		snprintf(err_why, err_len, "out of memory");
		return NULL;
	}
	af->name = f->name;
	af->start = f->key.start - base;
	if (f->kernel) /* shown_base asked for _stext */
		af->addr_from = an->rs->stext_known > 0 ? "_stext" : f->name;
	af->per = "%func";
	af->dso = f->dso;
	af->dso_path = f->dso_path;
	af->samples = f->samples;
	af->total = an->total;
	af->event =
		session__event(an->rs, an->rs->event < 0 ? 0 : (unsigned int)an->rs->event)->used;
	af->show_asm = o->asm_;
	/* the line table under the function */
	rc.start = f->key.start;
	if (symbolizer__rows(an->rs->sym, f->key.info, f->key.start, f->end, row_cb, &rc) ==
	    -ENOMEM)
		goto nomem;
	/*
	 * Its own lines: from its declaration to its last line of its own
	 * code, within its own text (before the next function of its file).
	 * Optimised code has rows of inlined helpers that DWARF's inline
	 * scopes miss, and several rows at one address: their lines lie
	 * outside that text and are listed apart, never stretching the range.
	 * Without a declaration, the lines of its own code's rows.
	 */
	if (symbolizer__source_span(an->rs->sym, f->key.info, f->key.start, &span) == 0) {
		af->main_file = span.file;
		lo = span.first;
	} else {
		af->main_file = rc.first_file ? rc.first_file : rc.nrows ? rc.rows[0].file : NULL;
		span.first = 0;
		span.limit = UINT32_MAX;
	}
	for (i = 0; i < rc.nrows; i++) {
		const struct sym_row *r = &rc.rows[i];

		/*
		 * Within its own text, inlined code is its own too (itself
		 * inlined into itself, a lambda); without a declaration to
		 * bound it, only the code of no inline scope counts.
		 */
		if (r->file != af->main_file || (r->inlined && !span.first) ||
		    r->line < span.first || r->line > span.limit)
			continue;
		if (r->line < lo)
			lo = r->line;
		if (r->line > hi)
			hi = r->line;
	}
	if (af->main_file && hi < lo)
		hi = lo; /* a declaration, no row of its own: its first line */
	/* no source to show: its instructions instead of a page of placeholders */
	/* whose DWARF names its files (read by now: the rows came from it) */
	owner = f->key.info ? f->key.info->dwarf_owner : (uid_t)-1;
	if (af->main_file) {
		const struct source *src;

		if (source_cache__get(an->sources, af->main_file, owner, &src))
			goto nomem;
		af->read_from = src->read_from;
		af->source_why = src->why;
		af->source_missing = !src->read_from;
		if (af->source_missing && !o->asm_)
			af->asm_for_source = need_insns = true;
	} else if (!o->asm_ && !f->kernel && !is_perf_map(f->dso)) {
		af->asm_for_source = need_insns = true; /* no DWARF: its instructions */
	}
	if (need_insns && insns_of(an, f, &rc, af, why, sizeof(why)) == -ENOMEM)
		goto nomem;
	code_read = af->ninsns > 0;
	/* kernel code not read: at least where in it the samples are */
	if (f->kernel && !af->ninsns && sampled_offsets(f, af, base))
		goto nomem;
	if ((af->asm_for_source || f->kernel) && af->ninsns)
		af->show_asm = af->asm_for_source = true;
	else
		af->asm_for_source = false;
	af->skid_adjusted = o->skid_adjust && af->ninsns; /* nothing moves without them */
	/* the function's own lines, whether they took samples or not */
	for (l = lo; af->main_file && l <= hi; l++)
		if (!line_get(&lv, af->main_file, l))
			goto nomem;
	HASH_ITER(hh, f->addrs, a, tmp) {
		unsigned int k, nr_frames = a->nr_frames;
		const struct sym_frame *frames = a->frames;
		u64 at = where(af, a->addr - base, o->skid_adjust);
		struct ann_insn *in = af->ninsns ? insn_at(af, at) : NULL;
		struct sym_result moved;

		struct ann_hit *hit;

		if (ebs_grow((void **)&af->hits, &hits_cap, af->nhits, sizeof(*af->hits), 16))
			goto nomem;
		hit = &af->hits[af->nhits++];
		*hit = (struct ann_hit){.addr = a->addr - base, .has_insn = in != NULL};
		if (in) {
			in->samples += a->n;
			hit->insn = in->addr;
		}
		/* skid-adjusted: the lines of the instruction the sample moved to */
		if (at != a->addr - base &&
		    symbolizer__lookup_in(an->rs->sym, f->key.info, at + base, &moved) == 0) {
			nr_frames = moved.nr_frames;
			frames = moved.frames;
		}
		if (!nr_frames) {
			noline += a->n;
			continue;
		}
		if (o->view.no_inline || nr_frames == 1) {
			const struct sym_frame *fr = &frames[nr_frames - 1];
			struct ann_line *al;

			if (!fr->line) {
				noline += a->n;
				continue;
			}
			al = line_get(&lv, fr->file, fr->line);
			if (!al)
				goto nomem;
			al->self += a->n;
			hit->file = fr->file;
			hit->line = fr->line;
			continue;
		}
		for (k = 0; k < nr_frames; k++) {
			const struct sym_frame *fr = &frames[k];
			struct ann_line *al;

			if (!fr->line) {
				if (!k)
					noline += a->n;
				continue;
			}
			/* a function inlined into itself (recursion, an alias): one function */
			if (k && session__same_name(frames[k - 1].function, fr->function))
				continue;
			al = line_get(&lv, fr->file, fr->line);
			if (!al)
				goto nomem;
			if (!k) { /* an inlined function's own line: name it */
				al->self += a->n;
				hit->file = fr->file;
				hit->line = fr->line;
				if (!session__same_name(fr->function,
							frames[nr_frames - 1].function))
					al->function = fr->function;
			} else {
				al->inlined += a->n;
				al->callee = frames[k - 1].function;
				/* a call site inside inlined code is that function's line */
				if (k + 1 < nr_frames && !al->function &&
				    !session__same_name(fr->function,
							frames[nr_frames - 1].function))
					al->function = fr->function;
			}
		}
	}
	line_vec__free_index(&lv); /* the lines move now */
	for (i = 0; i < lv.n; i++) {
		struct ann_line *al = &lv.v[i];

		al->in_range = al->file == af->main_file && al->line >= lo && al->line <= hi;
		if (source_cache__line(an->sources, al->file, owner, al->line, &al->text))
			goto nomem;
		if (al->self > af->hottest)
			af->hottest = al->self;
		/* own code at another function's line: name whose text it is */
		if (!al->in_range && !al->function)
			al->owner = symbolizer__line_owner(an->rs->sym, f->key.info, f->key.start,
							   al->file, al->line);
	}
	if (lv.n) /* none without DWARF */
		qsort_r(lv.v, lv.n, sizeof(lv.v[0]), line_cmp, (void *)af->main_file);
	af->lines = lv.v;
	af->nlines = lv.n;
	choose_lines(af, whole, o->context);
	if (af->ninsns && line_vec__reindex(&lv))
		goto nomem;
	/* the instructions' lines, and the hottest instruction */
	for (i = 0; i < af->ninsns; i++) {
		struct ann_insn *in = &af->insns[i];
		/* rows are in address order within the function's unit */
		size_t r = ebs_upper_bound(rc.rows, rc.nrows, sizeof(rc.rows[0]),
					   offsetof(struct sym_row, addr), in->addr + base);
		struct sym_result res;

		if (r) {
			in->file = rc.rows[r - 1].file;
			in->line = rc.rows[r - 1].line;
			in->src = line_find(&lv, in->file, in->line);
			if (source_cache__line(an->sources, in->file, owner, in->line,
					       &in->line_text))
				goto nomem;
		}
		/* a line outside its own: inlined code, or another function's text */
		if (in->line && !(in->file == af->main_file && in->line >= lo && in->line <= hi)) {
			if (symbolizer__lookup_in(an->rs->sym, f->key.info, in->addr + base,
						  &res) == 0 &&
			    res.nr_frames > 1 && res.frames[0].function)
				in->owner = res.frames[0].function;
			else
				in->owner = symbolizer__line_owner(
					an->rs->sym, f->key.info, f->key.start, in->file, in->line);
		}
		if (in->samples > af->hottest_insn)
			af->hottest_insn = in->samples;
	}
	line_vec__free_index(&lv);
	/* a jump into the middle of an instruction (over a lock prefix) has no row to link */
	for (i = 0; i < af->ninsns; i++) {
		struct ann_insn *in = &af->insns[i], *t;

		if (in->target_local && (!(t = insn_at(af, in->target)) || t->addr != in->target))
			in->target_local = false;
	}
	choose_insns(af, whole || o->asm_, o->context);
	if (f->kernel)
		snprintf(
			af->note, sizeof(af->note),
			"kernel code: its source lines need the kernel's debug information (a vmlinux "
			"with DWARF, as Debian's linux-image-*-dbg packages have), which ebs does not "
			"read yet; %s%s%s",
			code_read ? "its instructions are from " : "",
			code_read ? (o->kcore ? o->kcore : "/proc/kcore")
			: why[0]  ? why
				  : "no instructions",
			code_read ? ", the kernel's memory" : "; the sampled addresses instead");
	else if (!af->main_file && is_perf_map(f->dso))
		snprintf(af->note, sizeof(af->note),
			 "no line information for %s: JIT code, whose %s names functions only",
			 f->name, f->dso);
	else if (!af->main_file)
		snprintf(af->note, sizeof(af->note),
			 "no line information for %s (no DWARF for %s: see ebs report --stats)%s%s",
			 f->name, f->dso,
			 why[0]		      ? "; "
			 : af->asm_for_source ? "; its instructions instead"
					      : "",
			 why);
	else if (noline)
		snprintf(af->note, sizeof(af->note),
			 "%llu sample%s at addresses without a line%s%s",
			 (unsigned long long)noline, noline == 1 ? "" : "s", why[0] ? "; " : "",
			 why);
	else if (why[0] && (o->asm_ || o->skid_adjust))
		snprintf(af->note, sizeof(af->note), "%s", why);
	free(rc.rows);
	return af;

nomem:
	snprintf(err_why, err_len, "out of memory");
	free(rc.rows);
	line_vec__free_index(&lv);
	if (lv.v != af->lines) /* once the model's, free_model frees them */
		free(lv.v);
	free_model(af);
	return NULL;
}

/* A source file's real name, for source.c: DWARF's names come with control characters as '?'. */
static const char *source_name(void *ctx, const char *path)
{
	return symbolizer__source_name(ctx, path);
}

/* A source file found nowhere here, for source.c: from a debuginfod server, if one has it. */
static int source_fetch(void *ctx, const char *path, char *out, size_t len)
{
	return symbolizer__fetch_source(ctx, path, out, len);
}

/* ---- the page's mode ------------------------------------------------------ */

/*
 * The first source whose text the HTML page of models shows and that not
 * everyone may read (source.h's private), as DWARF names it; NULL when
 * none.  The page shows a function's source lines, or with --asm the
 * lines above its instructions (all of them: html.c lists every
 * instruction).
 */
const char *ann_set__private_source(const struct ann_set *set)
{
	const struct annot *an = set->an;
	struct ann_func *const *models = set->models;
	size_t n = set->n;
	const struct source *s;
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct ann_func *af = models[i];

		for (j = 0; af->show_asm && !af->asm_for_source && j < af->ninsns; j++)
			if ((s = source_cache__of_text(an->sources, af->insns[j].line_text)) &&
			    s->private)
				return s->path;
		for (j = 0; !af->show_asm && j < af->nlines; j++)
			if (af->lines[j].shown &&
			    (s = source_cache__of_text(an->sources, af->lines[j].text)) &&
			    s->private)
				return s->path;
	}
	return NULL;
}

/* ---- targets -------------------------------------------------------------- */

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_ent *x = *(const struct fn_ent *const *)a;
	const struct fn_ent *y = *(const struct fn_ent *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static struct fn_ent **sorted_fns(struct annot *an, size_t *n)
{
	struct fn_ent *f, *tmp, **v = malloc((HASH_COUNT(an->fns) + 1) * sizeof(*v));
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, an->fns, f, tmp)
		v[i++] = f;
	qsort(v, i, sizeof(*v), fn_cmp);
	*n = i;
	return v;
}

static bool file_match(const char *want, const char *file)
{
	size_t wl = strlen(want), fl = strlen(file);

	return !strcmp(want, file) ||
	       (fl > wl && !strcmp(file + fl - wl, want) && file[fl - wl - 1] == '/');
}

/*
 * Of the files that match the target (several may: "util.c" of two
 * directories), the one with the most samples; NULL when none.  File names
 * went through an->fnames: equal names, equal pointers.
 */
static const char *busiest_file(struct annot *an)
{
	struct fl_ent *e, *tmp, *f, *ftmp;
	const char *best = NULL;
	u64 best_n = 0;

	HASH_ITER(hh, an->flines, e, tmp) {
		u64 n = 0;

		if (!file_match(an->target_file, e->key.file) || e->key.file == best)
			continue;
		HASH_ITER(hh, an->flines, f, ftmp)
			if (f->key.file == e->key.file)
				n += f->n;
		if (n > best_n || (n == best_n && best && strcmp(e->key.file, best) < 0)) {
			best = e->key.file;
			best_n = n;
		}
	}
	return best;
}

/*
 * The source of file as the DWARF of one of the DSOs whose lines of it have
 * samples names it: the first whose owner may have it shown (source.h),
 * else the first's refusal; its owner in *owner.  0 or -ENOMEM.
 */
static int file_source(struct annot *an, const char *file, const struct source **out, uid_t *owner)
{
	struct fl_ent *e, *tmp;
	uid_t tried[8];
	size_t n = 0, i;
	int r;

	*out = NULL;
	HASH_ITER(hh, an->flines, e, tmp) {
		const struct source *s;

		if (e->key.file != file)
			continue;
		for (i = 0; i < n && tried[i] != e->key.owner; i++)
			;
		if (i < n || n == ARRAY_SIZE(tried))
			continue;
		tried[n++] = e->key.owner;
		r = source_cache__get(an->sources, file, e->key.owner, &s);
		if (r)
			return r;
		if (!*out || (!(*out)->read_from && s->read_from)) {
			*out = s;
			*owner = e->key.owner;
		}
		if (s->read_from)
			break;
	}
	if (!*out) { /* no line of it sampled: as named, by no one's DWARF in particular */
		*owner = (uid_t)-1;
		return source_cache__get(an->sources, file, *owner, out);
	}
	return 0;
}

/*
 * A file-mode listing as one model: FILE alone shows every sampled line of
 * the file with --context lines around each; FILE:LINE the lines within
 * --context of LINE.  0 with *out set, or NULL when no sampled line is
 * in the file; -ENOMEM.
 */
static int build_file(struct annot *an, struct ann_func **out)
{
	struct ann_func *af = calloc(1, sizeof(*af));
	u32 c = an->o->context, line = an->target_line;
	const struct source *src;
	struct line_vec lv = {0};
	struct fl_ent *e, *tmp;
	uid_t owner = (uid_t)-1;
	size_t i;

	*out = NULL;
	if (!af)
		return -ENOMEM;
	af->main_file = busiest_file(an);
	HASH_ITER(hh, an->flines, e, tmp) {
		struct ann_line *l;

		if (e->key.file != af->main_file)
			continue;
		l = line_get(&lv, e->key.file, e->key.line);
		if (!l)
			goto nomem;
		l->self += e->n; /* (one line named by two DSOs' DWARF: two entries) */
		af->samples += e->n;
	}
	if (!af->main_file) {
		free(af);
		return 0;
	}
	/* the lines to show, with or without samples */
	if (line) {
		u64 last = (u64)line + c < UINT32_MAX ? (u64)line + c : UINT32_MAX;

		for (u64 l = line > c ? line - c : 1; l <= last; l++)
			if (!line_get(&lv, af->main_file, (u32)l))
				goto nomem;
	} else {
		size_t n = lv.n;

		for (i = 0; i < n; i++) {
			u32 at = lv.v[i].line;

			for (u32 l = at > c ? at - c : 1; l <= at + c; l++)
				if (!line_get(&lv, af->main_file, l))
					goto nomem;
		}
	}
	if (file_source(an, af->main_file, &src, &owner))
		goto nomem;
	af->read_from = src->read_from;
	af->source_why = src->why;
	for (i = 0; i < lv.n; i++) {
		struct ann_line *l = &lv.v[i];

		if (source_cache__line(an->sources, l->file, owner, l->line, &l->text))
			goto nomem;
		l->in_range = true;
		l->shown = line ? l->line + c >= line && l->line <= line + c
				: l->text || l->self; /* not past the end of the file */
		if (l->self > af->hottest)
			af->hottest = l->self;
	}
	line_vec__free_index(&lv);
	qsort_r(lv.v, lv.n, sizeof(lv.v[0]), line_cmp, (void *)af->main_file);
	af->lines = lv.v;
	af->nlines = lv.n;
	mark_breaks(af);
	af->name = an->target_file;
	af->dso = "all functions";
	if (an->o->asm_ || an->o->skid_adjust)
		snprintf(af->note, sizeof(af->note),
			 "--asm and --skid-adjust work on one "
			 "function's instructions: give a function's name");
	af->dso_path = af->main_file;
	af->per = "%file";
	af->total = an->total;
	af->event =
		session__event(an->rs, an->rs->event < 0 ? 0 : (unsigned int)an->rs->event)->used;
	*out = af;
	return 0;

nomem:
	line_vec__free_index(&lv);
	free(lv.v);
	free(af);
	return -ENOMEM;
}

/*
 * Is target FILE or FILE:LINE rather than a function (an->file_mode)?
 * After its last ':' (not one of C++'s "::"), what begins like a number
 * is a LINE and must be one: decimal digits, 1 to 4294967295 here, and at
 * most the file's last line once its source is read (check_target_line).
 * 0, or -EINVAL with err filled.
 */
static int parse_target(struct annot *an, const char *target, struct ebs_error *err)
{
	const char *colon = strrchr(target, ':');
	unsigned long long v = 0;
	const char *p;

	snprintf(an->target_file, sizeof(an->target_file), "%s", target);
	if (colon && colon > target && colon[-1] != ':' && colon[1] &&
	    strchr("0123456789+-", colon[1])) {
		for (p = colon + 1; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
			v = v * 10 + (unsigned long long)(*p - '0');
		if (*p || v < 1 || v > UINT32_MAX)
			return ebs_error__set(err, EINVAL,
					      "%s: no line '%s': LINE is a whole number "
					      "from 1 to the file's last line",
					      target, colon + 1);
		an->target_file[colon - target] = '\0';
		an->target_line = (u32)v;
		an->file_mode = true;
		return 0;
	}
	an->file_mode = strchr(target, '/') || strchr(target, '.');
	return 0;
}

/* FILE:LINE: 0, or -EINVAL when the file's source has fewer lines (err filled). */
static int check_target_line(struct annot *an, struct ebs_error *err)
{
	const char *file = an->file_mode && an->target_line ? busiest_file(an) : NULL;
	const struct source *s = NULL;
	uid_t owner;

	if (file && file_source(an, file, &s, &owner))
		return ebs_error__set(err, ENOMEM, "out of memory");
	if (!s || !s->read_from || an->target_line <= s->nlines)
		return 0; /* no source to count its lines: any LINE */
	return ebs_error__set(err, EINVAL, "%s: no line %u: %s has %u lines", an->o->target,
			      an->target_line, s->read_from, s->nlines);
}

static void free_all(struct annot *an)
{
	struct fn_ent *f, *ft;
	struct fl_ent *e, *et;
	struct addr_cnt *a, *at;

	HASH_ITER(hh, an->fns, f, ft) {
		HASH_ITER(hh, f->addrs, a, at) {
			HASH_DEL(f->addrs, a);
			free(a);
		}
		HASH_DEL(an->fns, f);
		free(f);
	}
	HASH_ITER(hh, an->flines, e, et) {
		HASH_DEL(an->flines, e);
		free(e);
	}
	ebs_strset__free(&an->fnames);
	source_cache__free(an->sources);
	free(an->memo);
}

/* symbolize_opts.frames_for of FUNC's annotate: is function FUNC by its exact name? */
static bool frames_of_target(void *ctx, const char *function)
{
	const char *want = ctx;

	return session__name_is(want, strlen(want), function);
}

/*
 * Open the recording named by o and resolve what to annotate: the first
 * half of building, so that a bad recording or FUNC is said before any
 * output is opened.  0, or -errno with err filled; ann_set__free(set)
 * either way.
 */
int ann_set__open(struct ann_set *set, const struct annotate_opts *o, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct annot *an;
	int e;

	memset(set, 0, sizeof(*set));
	/* --asm is all instructions: without a disassembler, nothing to show */
	if (o->asm_ && !decode_available())
		return ebs_error__set(err, EOPNOTSUPP, "--asm: %s", decode_none_why());
	an = calloc(1, sizeof(*an));
	if (!an)
		return ebs_error__set(err, ENOMEM, "out of memory");
	set->an = an;
	an->o = o;
	an->rs = &an->own;
	an->only_event = -1;
	session__symbolize_opts(&so, &o->view);
	so.kcore = o->kcore;
	if (o->target && (e = parse_target(an, o->target, err)))
		return e;
	/* FUNC: no other function's DWARF read, not even ahead (fused_pass) */
	an->bare = o->target && !an->file_mode && !o->view.filter.funcs;
	if (an->bare) {
		so.frames_for = frames_of_target;
		so.frames_ctx = (void *)o->target;
	}
	e = session__open_view(an->rs, &o->view, &so, err);
	an->opened = !e;
	return e;
}

/*
 * The second half: read every sample and build one model per function
 * listed (set->models, set->n; set->rest for what no listing shows).
 * 0, or -errno with err filled.
 */
/*
 * Before the pass: the sources, the event, FUNC resolved (unless !resolve:
 * the pass resolves it, fused_pass).  0, or -errno with err filled.
 */
static int prepare(struct annot *an, bool resolve, struct ebs_error *err)
{
	const struct annotate_opts *o = an->o;
	int e = 0;

	an->sources = source_cache__new(o->source_dirs, o->view.warn, o->view.warn_ctx);
	if (!an->sources) {
		return ebs_error__set(err, ENOMEM, "out of memory");
	}
	source_cache__set_names(an->sources, source_name, an->rs->sym);
	source_cache__set_fetch(an->sources, source_fetch, an->rs->sym);
	if (an->only_event < 0 && an->rs->event < 0) /* its own session: its pass */
		an->rs->event = 0;		     /* one event: the first, unless --event */
	/* FUNC: the exact name, else the unqualified, a "::"-suffix, a part (names.h) */
	an->q = (struct name_query){.want = o->target, .len = o->target ? strlen(o->target) : 0};
	if (resolve && o->target && !an->file_mode &&
	    (e = session__resolve(an->rs, o->target, strlen(o->target), &an->q,
				  o->view.filter.candidates, err)))
		return e;
	return 0;
}

/*
 * Most samples in code no symbol names (a stripped binary): the hottest
 * functions are not the hottest code; where it is, as ebs report lists
 * it, in buf ("; N% of the samples..."), else "".  Returns buf.
 */
static const char *nosym_hint(const struct annot *an, char *buf, size_t size)
{
	buf[0] = 0;
	if (an->total && an->nofunc * 10 >= an->total)
		snprintf(buf, size,
			 "; %.1f%% of the samples are in code without symbols "
			 "(stripped?), which ebs report lists as [unknown] DSO+0xADDR",
			 100.0 * (double)an->nofunc / (double)an->total);
	return buf;
}

/* After the pass: the models of the functions listed.  0, or -errno with err filled. */
static int models_of(struct ann_set *set, struct ebs_error *err)
{
	struct annot *an = set->an;
	const struct annotate_opts *o = an->o;
	struct ann_func **models = NULL;
	struct fn_ent **fns = NULL;
	size_t nfns = 0, nmodels = 0, i;
	char why[256] = "", hint[128];
	int e = 0;

	fns = sorted_fns(an, &nfns);
	models = calloc(nfns + 1, sizeof(*models));
	if (!fns || !models) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (o->target) {
		for (i = 0; i < nfns; i++) {
			if (!name_query__match(&an->q, fns[i]->name))
				continue;
			models[nmodels] = build(an, fns[i], true, why, sizeof(why));
			if (!models[nmodels]) {
				e = ebs_error__set(err, ENOMEM, "%s", why);
				goto out;
			}
			nmodels++;
		}
		for (i = 0; nmodels > 1 && i < nmodels; i++) /* static functions of one name */
			models[i]->show_start = true;
		/*
		 * Only a part of a name matched ("main" in ld.so's dl_main)
		 * while most samples are in code no symbol names: the
		 * function annotated is unlikely to be the one meant.
		 */
		nosym_hint(an, hint, sizeof(hint));
		for (i = 0; an->q.tier == NAME_SUBSTRING && hint[0] && i < nmodels; i++)
			if (!models[i]->note[0])
				snprintf(models[i]->note, sizeof(models[i]->note),
					 "no function is named '%s', it is a part of this "
					 "one's name%s",
					 o->target, hint);
		if (!nmodels && an->file_mode) {
			if (build_file(an, &models[0])) {
				e = ebs_error__set(err, ENOMEM, "out of memory");
				goto out;
			}
			nmodels = models[0] != NULL;
		}
		if (!nmodels && an->flines && !an->file_mode) {
			/* only inlined: its lines over every place it was inlined into */
			snprintf(an->target_file, sizeof(an->target_file), "%s",
				 an->flines->key.file);
			if (build_file(an, &models[0])) {
				e = ebs_error__set(err, ENOMEM, "out of memory");
				goto out;
			}
			if (models[0]) {
				models[0]->name = an->inlined_name;
				models[0]->dso = "inlined";
				models[0]->dso_path =
					"its code in every function it was inlined into";
				models[0]->per = "%func";
				if ((o->asm_ || o->skid_adjust) && an->inlined_in)
					snprintf(
						models[0]->note, sizeof(models[0]->note),
						"%s has no instructions of its own (it was only "
						"inlined): --asm and --skid-adjust work on a function it "
						"was inlined into, such as %s",
						an->inlined_name, an->inlined_in);
				nmodels = 1;
			}
		}
		if (!nmodels) {
			char hot[256] = "", one[64];
			size_t len = 0;

			/* names shortened as report shows them (their own names kept), whole ones
			 */
			for (i = 0; i < nfns && i < 3; i++) {
				names_fit(one, sizeof(one), fns[i]->name, sizeof(one) - 1, NULL);
				if (len + strlen(one) + 3 >= sizeof(hot))
					break;
				len += (size_t)snprintf(hot + len, sizeof(hot) - len, "%s%s",
							i ? ", " : "", one);
			}
			if (!strncmp(o->target, "[unknown]", 9)) {
				e = ebs_error__set(
					err, ENOENT,
					"%s: '%s' is code without a symbol: annotate lists "
					"a function by its name (ebs report --sort line and "
					"ebs script show where its samples are)",
					o->view.input, o->target);
				goto out;
			}
			e = ebs_error__set(
				err, ENOENT, "%s: no %s '%s' with samples%s%s%s%s", o->view.input,
				an->file_mode ? "source file" : "function", o->target,
				nfns ? " (the hottest: " : "", hot, nfns ? ")" : "", hint);
			goto out;
		}
	} else {
		size_t top = o->view.top ? o->view.top : nfns; /* 0: all */

		for (i = 0; i < nfns && nmodels < top; i++) {
			if (present_percent(fns[i]->samples, an->total) < o->view.min_percent)
				break;
			models[nmodels] = build(an, fns[i], false, why, sizeof(why));
			if (!models[nmodels]) {
				e = ebs_error__set(err, ENOMEM, "%s", why);
				goto out;
			}
			nmodels++;
		}
		if (!nmodels) {
			e = ebs_error__set(err, ENOENT, "%s: no function with samples to annotate",
					   o->view.input);
			goto out;
		}
	}
out:
	set->models = models;
	set->n = nmodels;
	set->rest = (struct ann_rest){.kernel = an->kernel,
				      .nofunc = an->nofunc,
				      .total = an->total,
				      .left = o->target || !fns ? 0 : nfns - nmodels};
	free(fns);
	return e;
}

#define NAME_MEMO_BITS 10

struct name_memo {
	const char *name;
	bool is;
};

struct fused {
	struct annot *an;
	struct session_tally ta;
	struct name_memo names[1u << NAME_MEMO_BITS]; /* is_target's */
	struct ebs_error *err;
};

/*
 * Is name (a sym_result.function) FUNC's exact name?  Memoized by the
 * name's pointer (a function's name is one string for the session's life).
 */
static bool is_target(struct fused *fu, const char *name)
{
	struct name_memo *m;

	if (!name)
		return false;
	m = &fu->names[((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> (64 - NAME_MEMO_BITS)];
	if (m->name != name) {
		m->name = name;
		m->is = session__name_is(fu->an->o->target, fu->an->q.len, name);
	}
	return m->is;
}

static int fused_one(void *ctx, const struct resolved *rv)
{
	struct fused *fu = ctx;
	int e;

	/*
	 * Without frames, another function's sample is only counted in the
	 * total: the names tallied and the functions collected are FUNC's,
	 * which is all that a FUNC of NAME_EXACT needs (fused_pass).
	 */
	if (fu->an->bare && !is_target(fu, rv->res.function)) {
		fu->an->total++;
		return 0;
	}
	e = session__tally(&fu->ta, rv);

	return e ? e : collect(fu->an, rv);
}

/* Was a function of FUNC's exact name (name_query__match, tier NAME_NONE) collected? */
static bool any_listed(const struct annot *an)
{
	const struct fn_ent *f;

	for (f = an->fns; f; f = f->hh.next)
		if (f->listed)
			return true;
	return false;
}

/* What collect counted, forgotten: for a pass again. */
static void collect_reset(struct annot *an)
{
	struct source_cache *sources = an->sources;
	struct ebs_strset *fnames = an->fnames;

	an->sources = NULL;
	an->fnames = NULL;
	free_all(an);
	an->sources = sources;
	an->fnames = fnames;
	an->fns = NULL;
	an->flines = NULL;
	an->memo = NULL;
	an->nmemo = 0;
	an->total = an->kernel = an->nofunc = 0;
	an->inlined_name = an->inlined_in = NULL;
}

/* fused_pass's pass over the samples. */
static int tallying_pass(void *ctx)
{
	struct fused *fu = ctx;
	int e;

	fu->an->rs->tallying = true;
	e = session__each(fu->an->rs, fused_one, fu, fu->err);
	fu->an->rs->tallying = false;
	return e;
}

/*
 * After a pass without frames (symbolizer__prefetch_while): the frames of
 * the addresses of FUNC's functions, looked up again.  0 or -ENOMEM.
 */
static int frames_again(struct annot *an)
{
	struct fn_ent *f;
	struct addr_cnt *a;
	struct sym_result r;
	int e;

	symbolizer__frames_for(an->rs->sym, NULL, NULL);
	for (f = an->fns; f; f = f->hh.next) {
		if (!f->listed || f->kernel || !f->key.info)
			continue;
		for (a = f->addrs; a; a = a->hh.next) {
			e = symbolizer__lookup_in(an->rs->sym, f->key.info, a->addr, &r);
			if (e)
				return e;
			a->nr_frames = r.nr_frames;
			a->frames = r.frames;
		}
	}
	return 0;
}

/*
 * FUNC resolved and its samples collected in one pass over the recording,
 * where there were two (session__resolve's, then collect's): the pass
 * tallies the names and collects as if FUNC were a function's exact name
 * (name_query__match with tier NAME_NONE or NAME_EXACT: session__name_is).
 * When it resolves to another tier (a part of a name, an unqualified
 * one), what was collected is dropped and collect's pass made again, with
 * FUNC resolved.  The pass is a tallying one (no warning of files that
 * are not the ones recorded): that warning is given after, as collect's
 * own pass gives it, once FUNC resolved.
 */
static int fused_pass(struct annot *an, struct ebs_error *err)
{
	const struct annotate_opts *o = an->o;
	struct fused *fu = calloc(1, sizeof(*fu));
	char hint[128];
	int e;

	if (!fu)
		return ebs_error__set(err, ENOMEM, "out of memory");
	fu->an = an;
again:
	fu->ta = (struct session_tally){.memo = !an->rs->no_memo};
	fu->err = err;
	/* bare: FUNC's DWARF read on this thread while the pass runs on another */
	e = an->bare ? symbolizer__prefetch_while(an->rs->sym, tallying_pass, fu)
		     : tallying_pass(fu);
	if (!e && an->bare && frames_again(an))
		e = ebs_error__set(err, ENOMEM, "out of memory");
	if (!e && an->bare) {
		/*
		 * Only FUNC's functions were tallied and collected (and given
		 * frames): that is all there is to resolve FUNC among when it
		 * is the exact name of a function with samples (tier NAME_EXACT
		 * whatever else there is); else the pass is made again with
		 * every sample's frames, as without (an inlined function, a
		 * part of a name).  (frames_again gave every lookup its frames
		 * back.)
		 */
		an->bare = false;
		if (!any_listed(an)) {
			session__tally_free(&fu->ta);
			collect_reset(an);
			goto again;
		}
	}
	if (e) {
		session__tally_free(&fu->ta);
		free(fu);
		return e;
	}
	e = session__resolve_tally(an->rs, &fu->ta, o->target, strlen(o->target), &an->q,
				   o->view.filter.candidates, err);
	free(fu);
	if (e == -EINVAL && nosym_hint(an, hint, sizeof(hint))[0]) { /* ambiguous */
		size_t at = strnlen(err->msg, sizeof(err->msg) - 1),
		       n = strnlen(hint, sizeof(err->msg) - 1 - at);

		memcpy(err->msg + at, hint, n); /* cut at the buffer's end, as a message is */
		err->msg[at + n] = '\0';
	}
	if (e)
		return e;
	if (an->q.tier <= NAME_EXACT) {
		symbolizer__warn_unresolved(an->rs->sym);
		return 0;
	}
	collect_reset(an);
	return session__each(an->rs, collect, an, err);
}

int ann_set__build(struct ann_set *set, struct ebs_error *err)
{
	struct annot *an = set->an;
	const struct report_filter *f = an->rs->filter;
	/* --func filters collect's pass but not the names': two passes then */
	bool fuse = an->o->target && !an->file_mode && !(f && f->funcs);
	int e = prepare(an, !fuse, err);

	if (!e)
		e = fuse ? fused_pass(an, err) : session__each(an->rs, collect, an, err);
	if (!e)
		e = check_target_line(an, err);
	return e ? e : models_of(set, err);
}

int ann_set__attach(struct ann_set *set, const struct annotate_opts *o, struct session *rs,
		    struct ebs_error *err)
{
	struct annot *an;

	memset(set, 0, sizeof(*set));
	an = calloc(1, sizeof(*an));
	if (!an)
		return ebs_error__set(err, ENOMEM, "out of memory");
	set->an = an;
	an->o = o;
	an->rs = rs;
	an->only_event = rs->event >= 0 ? rs->event : 0; /* as prepare's for its own */
	return prepare(an, true, err);
}

int ann_set__sample(struct ann_set *set, const struct resolved *r)
{
	return collect(set->an, r);
}

int ann_set__finish(struct ann_set *set, struct ebs_error *err)
{
	return models_of(set, err);
}

void ann_set__free(struct ann_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; set->models && i < set->n; i++)
		free_model(set->models[i]);
	free(set->models);
	if (set->an) {
		free_all(set->an);
		name_query__free(&set->an->q);
		if (set->an->opened)
			session__close(&set->an->own);
		free(set->an);
	}
	memset(set, 0, sizeof(*set));
}
