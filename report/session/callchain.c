// SPDX-License-Identifier: MIT
/*
 * callchain.c - resolve a sample's call chain into functions (callchain.h).
 *
 * The addresses come from the sample: the kernel's chain (its kernel part,
 * and with -g fp its user part, both after their context markers), and
 * with -g dwarf the user part unwound by the symbolizer from the copied
 * registers and stack.  -g fp chains miss the caller of a function that
 * built no frame (gcc builds none in leaf functions, even with
 * -fno-omit-frame-pointer): its return address is still on the stack,
 * where the CFI of the leaf says, so one step of CFI unwinding over the
 * small stack copy finds it, and when the frame-pointer chain skipped it
 * it is put back.  A caller's return address is resolved one byte back,
 * inside its call instruction, so that a call at the very end of a
 * function and the inline scope of the call are the caller's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/callchain.h"
#include "util/hash.h"
#include "util/json.h"

#define MAX_ADDRS 1024 /* addresses per chain, the kernel's and the unwound */
#define CFI_CHECK 4    /* fp: the frames of a chain checked against the CFI */

/* One frame of an address's, as push_resolved named it. */
struct named {
	const char *id, *name, *dso; /* interned */
	u32 fid;
	const char *mangled; /* the symbolizer's */
	const char *file;
	u32 line;
	bool inlined;
	bool unknown;
};

/*
 * The frames an address (sym_result.id) of a mapping named dso gave:
 * named[first .. first + n).  What push_resolved makes of a resolved
 * address is a function of its result and the mapping's name but for the
 * address itself, so another sample of it takes them from here.
 */
struct addr_frames {
	const char *dso; /* sym_result.dso they were made with; NULL: none yet */
	u32 first, n;
};

/* A (name, dso) pair's cframe.fid: its interned "name\tdso" (cframe.id) is the key. */
struct fid_ent {
	const char *id;
	u32 fid;
	UT_hash_handle hh;
};

struct chainer {
	struct session *rs;
	struct fid_ent *fids;
	u32 nr_fids;
	bool fp, dwarf, no_inline;
	u64 asked; /* the stack copy's size the recording asked for */
	struct ebs_strset *names;
	struct cframe *frames;
	size_t cap;
	unsigned int n;
	struct addr_frames *by_id; /* by sym_result.id */
	size_t by_id_cap;
	struct named *named;
	size_t nr_named, named_cap;
	bool unmapped; /* this chain holds a user address in no mapping */
	u64 addrs[MAX_ADDRS];
	bool kernel[MAX_ADDRS];
	struct chain_stats st;
	/* the sample being built, for map_of */
	const struct ebs_rec_sample *s;
};

struct chainer *chainer__new(struct session *rs, const char *mode, bool no_inline)
{
	struct chainer *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->rs = rs;
	c->no_inline = no_inline;
	c->fp = mode && !strncmp(mode, "fp", 2);
	c->dwarf = mode && !strncmp(mode, "dwarf", 5);
	if (mode && strchr(mode, ','))
		c->asked = strtoull(strchr(mode, ',') + 1, NULL, 10);
	return c;
}

void chainer__free(struct chainer *c)
{
	struct fid_ent *fe, *tmp;

	if (!c)
		return;
	HASH_ITER(hh, c->fids, fe, tmp) {
		HASH_DEL(c->fids, fe);
		free(fe);
	}
	ebs_strset__free(&c->names);
	free(c->frames);
	free(c->by_id);
	free(c->named);
	free(c);
}

u32 chainer__nr_fids(const struct chainer *c)
{
	return c->nr_fids;
}

/* The number of (name, dso), by its interned id; 0 when out of memory. */
static u32 fid_of(struct chainer *c, const char *id)
{
	struct fid_ent *fe;

	HASH_FIND_PTR(c->fids, &id, fe);
	if (fe)
		return fe->fid;
	fe = malloc(sizeof(*fe));
	if (!fe)
		return 0;
	fe->id = id;
	fe->fid = c->nr_fids + 1;
	HASH_ADD_PTR(c->fids, id, fe);
	if (!fe->hh.tbl) {
		free(fe);
		return 0;
	}
	return ++c->nr_fids;
}

const struct chain_stats *chainer__stats(const struct chainer *c)
{
	return &c->st;
}

void chain_stats__print_text(const struct chain_stats *st, const char *mode, FILE *f)
{
	unsigned long long n = st->samples;

	fprintf(f, "# call chains (%s): %llu samples with one, %.1f frames each on average", mode,
		n, n ? (double)st->frames / (double)n : 0.0);
	if (!strncmp(mode, "fp", 2))
		fprintf(f,
			"; a frameless leaf's caller put back from its CFI in %llu, leaves checked "
			"in %llu, %llu without CFI to check, %llu without a stack copy to check; "
			"%llu cut at an address no user code has ([truncated])\n",
			(unsigned long long)st->fp_recovered, (unsigned long long)st->fp_checked,
			(unsigned long long)st->fp_no_cfi, (unsigned long long)st->fp_no_stack,
			(unsigned long long)st->fp_impossible);
	else
		fprintf(f,
			"; unwound %llu: %llu cut short by the stack copy ([truncated]), %llu "
			"stopped at code without CFI\n",
			(unsigned long long)st->unwound, (unsigned long long)st->truncated,
			(unsigned long long)st->broken);
}

void chain_stats__print_json(const struct chain_stats *st, const char *mode, struct ebs_json *j)
{
	ebs_json__key(j, "chains");
	ebs_json__obj(j);
	ebs_json__key_str(j, "call_graph", mode);
	ebs_json__key_u64(j, "samples", st->samples);
	ebs_json__key_u64(j, "frames", st->frames);
	ebs_json__key_u64(j, "leaf_checked", st->fp_checked);
	ebs_json__key_u64(j, "leaf_recovered", st->fp_recovered);
	ebs_json__key_u64(j, "leaf_no_cfi", st->fp_no_cfi);
	ebs_json__key_u64(j, "leaf_no_stack", st->fp_no_stack);
	ebs_json__key_u64(j, "unwound", st->unwound);
	ebs_json__key_u64(j, "truncated", st->truncated);
	ebs_json__key_u64(j, "no_cfi", st->broken);
	ebs_json__key_u64(j, "suspect", st->fp_suspect);
	ebs_json__key_u64(j, "impossible", st->fp_impossible);
	ebs_json__obj_end(j);
}

void chain_stats__print_hint(const struct chain_stats *st, const char *mode, FILE *f)
{
	if (mode && !strncmp(mode, "fp", 2) && st->fp_no_stack)
		fprintf(f,
			"# chains: %llu of %llu came without a stack copy (perf record -g keeps "
			"none): where a frameless leaf's caller is missing it cannot be put back "
			"(ebs record -g copies what it needs)\n",
			(unsigned long long)st->fp_no_stack, (unsigned long long)st->samples);
	if (!mode || strncmp(mode, "fp", 2) || !st->fp_suspect || st->fp_suspect * 10 < st->samples)
		return;
	fprintf(f,
		"# chains: %llu of %llu disagree with the CFI or leave the mappings: frame "
		"pointers followed through code built without them; --call-graph dwarf unwinds "
		"such code\n",
		(unsigned long long)st->fp_suspect, (unsigned long long)st->samples);
}

/*
 * No user code lies at or above the limit, nor in the first page: x86-64's
 * user space ends below 2^47 (2^56 with 5-level page tables), arm64's below
 * 2^52, and page 0 is never mapped (vm.mmap_min_addr).  A frame-pointer
 * walk through code built without frame pointers reads data as return
 * addresses, and such values (0x0fdd00007f000001, 0x200) stop it.
 */
#define USER_ADDR_LIMIT (1ull << 56)
#define USER_ADDR_FLOOR 4096

static bool user_code_possible(u64 a)
{
	return a >= USER_ADDR_FLOOR && a < USER_ADDR_LIMIT;
}

static const struct sym_map *map_of(void *ctx, u64 addr)
{
	struct chainer *c = ctx;
	const struct machine_map *m = machine__find_map(c->rs->m, c->s->pid, addr, c->s->time);

	return m ? &m->sym : NULL;
}

/* Where a frame is: its address, its mapping and source line. */
struct where {
	u64 addr;
	const struct sym_map *map;
	const char *file;
	u32 line;
	u64 dso_addr;
	const char *code_file; /* the innermost line of the code there */
	u32 code_line;
	u64 sym_offset; /* addr less its symbol's start, when has_offset */
	bool has_offset;
	bool kernel;
};

/*
 * Append a frame named name (mangled: as the symbol table has it, or NULL)
 * of dso (unknown: no function names it); -ENOMEM.
 */
static int push(struct chainer *c, const char *name, const char *mangled, const char *dso,
		const struct where *w, bool inlined, bool unknown)
{
	char buf[1024];
	struct cframe *f;

	if (ebs_grow((void **)&c->frames, &c->cap, c->n, sizeof(*c->frames), 16))
		return -ENOMEM;
	f = &c->frames[c->n];
	snprintf(buf, sizeof(buf), "%s\t%s", name, dso);
	f->id = ebs_strset__intern(&c->names, buf);
	f->name = ebs_strset__intern(&c->names, name);
	f->dso = ebs_strset__intern(&c->names, dso);
	if (!f->id || !f->name || !f->dso || !(f->fid = fid_of(c, f->id)))
		return -ENOMEM;
	f->mangled = mangled;
	f->addr = w->addr;
	f->map = w->map;
	f->file = w->file;
	f->line = w->line;
	f->dso_addr = w->dso_addr;
	f->code_file = w->code_file;
	f->code_line = w->code_line;
	f->sym_offset = w->sym_offset;
	f->has_offset = w->has_offset;
	f->unknown = unknown;
	f->kernel = w->kernel;
	f->inlined = inlined;
	c->n++;
	return 0;
}

/* c->by_id[id], grown (with empty entries) to hold it; NULL when out of memory. */
static struct addr_frames *frames_of(struct chainer *c, u32 id)
{
	size_t had = c->by_id_cap;

	while (id >= c->by_id_cap)
		if (ebs_grow((void **)&c->by_id, &c->by_id_cap, c->by_id_cap, sizeof(*c->by_id),
			     1024))
			return NULL;
	if (c->by_id_cap != had)
		memset(c->by_id + had, 0, (c->by_id_cap - had) * sizeof(*c->by_id));
	return &c->by_id[id];
}

/* Keep the frames pushed from c->frames[from] on as af's; 0 or -ENOMEM. */
static int keep_frames(struct chainer *c, struct addr_frames *af, const char *dso,
		       unsigned int from)
{
	unsigned int i;

	while (c->nr_named + (c->n - from) > c->named_cap)
		if (ebs_grow((void **)&c->named, &c->named_cap, c->named_cap, sizeof(*c->named),
			     256))
			return -ENOMEM;
	af->first = (u32)c->nr_named;
	af->n = c->n - from;
	af->dso = dso;
	for (i = from; i < c->n; i++) {
		struct named *nm = &c->named[c->nr_named++];

		nm->id = c->frames[i].id;
		nm->fid = c->frames[i].fid;
		nm->name = c->frames[i].name;
		nm->mangled = c->frames[i].mangled;
		nm->dso = c->frames[i].dso;
		nm->file = c->frames[i].file;
		nm->line = c->frames[i].line;
		nm->inlined = c->frames[i].inlined;
		nm->unknown = c->frames[i].unknown;
	}
	return 0;
}

/* The frames af keeps, at w's address; -ENOMEM. */
static int push_kept(struct chainer *c, const struct addr_frames *af, const struct where *w)
{
	unsigned int i;

	while (c->n + af->n > c->cap)
		if (ebs_grow((void **)&c->frames, &c->cap, c->cap, sizeof(*c->frames), 16))
			return -ENOMEM;
	for (i = 0; i < af->n; i++) {
		const struct named *nm = &c->named[af->first + i];
		struct cframe *f = &c->frames[c->n++];

		f->id = nm->id;
		f->fid = nm->fid;
		f->name = nm->name;
		f->mangled = nm->mangled;
		f->dso = nm->dso;
		f->addr = w->addr;
		f->map = w->map;
		f->file = nm->file;
		f->line = nm->line;
		f->dso_addr = w->dso_addr;
		f->code_file = w->code_file;
		f->code_line = w->code_line;
		f->sym_offset = w->sym_offset;
		f->has_offset = w->has_offset;
		f->unknown = nm->unknown;
		f->kernel = w->kernel;
		f->inlined = nm->inlined;
	}
	return 0;
}

/* push_resolved's frames, named: at w (whose file and line each frame sets). */
static int push_named(struct chainer *c, const struct sym_result *res,
		      const struct machine_map *map, struct where *w, u64 addr, u64 look)
{
	const char *dso = res->dso ? res->dso : "[unknown]";
	const char *fn = res->function;
	char unknown[512];
	unsigned int i, last;
	int e;

	if (!fn && res->nr_frames)
		fn = res->frames[res->nr_frames - 1].function;
	if (!fn) { /* code without a symbol: one name per function the CFI bounds */
		u64 at;

		e = session__unknown_at(c->rs, res, map, addr, look, &at);
		if (e)
			return e;
		session__unknown_name(unknown, sizeof(unknown), res->dso, at);
		return push(c, unknown, NULL, dso, w, false, true);
	}
	if (!c->no_inline && res->nr_frames > 1) {
		last = res->nr_frames - 1;
		for (i = 0; i < last; i++) {
			const char *name = res->frames[i].function;

			/* one function inlined into itself (recursion, an alias) is one frame */
			if (!name || session__same_name(name, res->frames[i + 1].function) ||
			    (i + 1 == last && session__same_name(name, fn)))
				continue;
			w->file = res->frames[i].file;
			w->line = res->frames[i].line;
			e = push(c, name, NULL, dso, w, true, false);
			if (e)
				return e;
		}
	}
	if (res->nr_frames) { /* the compiled function's line: where its inlined code is */
		w->file = res->frames[res->nr_frames - 1].file;
		w->line = res->frames[res->nr_frames - 1].line;
	}
	return push(c, fn, fn == res->function ? res->mangled : NULL, dso, w, false, false);
}

/*
 * The frames of one address, innermost first: its inlined functions (each
 * inlined into the next), then the function compiled there.  look is the
 * address resolved (a return address less one), res what it resolved to.
 * Named once per address of a mapping's name (struct addr_frames).
 */
static int push_resolved(struct chainer *c, const struct sym_result *res,
			 const struct machine_map *map, u64 addr, u64 look, bool kernel)
{
	struct where w = {
		.addr = addr,
		.map = map ? &map->sym : NULL,
		.dso_addr = res->dso ? res->dso_addr + (addr - look) : addr,
		.code_file = res->file,
		.code_line = res->line,
		/* of the address itself, a caller's return address too */
		.sym_offset = res->sym_offset + (addr - look),
		.has_offset = res->function != NULL,
		.kernel = kernel,
	};
	struct addr_frames *af = NULL;
	unsigned int from = c->n;
	int e;

	if (kernel) /* as shown: from _stext (session__kernel_at) */
		w.dso_addr = session__kernel_at(c->rs, addr);
	if (res->id && !kernel && !c->rs->no_memo) {
		af = frames_of(c, res->id);
		if (!af)
			return -ENOMEM;
		if (af->dso && af->dso == res->dso)
			return push_kept(c, af, &w);
	}
	e = push_named(c, res, map, &w, addr, look);
	return e || !af ? e : keep_frames(c, af, res->dso, from);
}

/*
 * Resolve addrs[0..n): the first the sampled address, the rest return
 * addresses, resolved one byte back (into the call) but for user_at.  A
 * sample in the kernel has the user part of its chain start at user_at
 * with the address user space was interrupted at (a fault, an interrupt,
 * a system call): an instruction of its own, maybe a function's first,
 * whose byte before is another function's.
 */
static int resolve_all(struct chainer *c, const struct resolved *r, unsigned int n,
		       unsigned int user_at)
{
	unsigned int i;
	int e;

	for (i = 0; i < n; i++) {
		u64 addr = c->addrs[i], look = i && i != user_at ? addr - 1 : addr;
		struct machine_map *map = NULL;
		struct sym_result res;

		if (i == 0 && addr == r->s->ip) {
			/* the sample's own address: the session resolved it */
			e = push_resolved(c, &r->res, r->map, addr, addr, c->kernel[i]);
		} else {
			memset(&res, 0, sizeof(res));
			if (c->kernel[i] && look != addr) {
				symbolizer__lookup_kernel_caller(c->rs->sym, addr, &res, &look);
			} else if (c->kernel[i]) {
				symbolizer__lookup_kernel(c->rs->sym, look, &res);
			} else {
				map = machine__find_map(c->rs->m, r->s->pid, look, r->s->time);
				c->unmapped |= !map;
				if (map && symbolizer__lookup_memo(c->rs->sym, &map->sym, &map->ent,
								   look, &res) == -ENOMEM)
					return -ENOMEM;
			}
			e = push_resolved(c, &res, map, addr, look, c->kernel[i]);
		}
		if (e)
			return e;
	}
	return 0;
}

/* The sample's user registers and stack, as the symbolizer takes them. */
static bool sample_stack(const struct ebs_sample_parts *p, u64 asked, struct sym_stack *st)
{
	if (!p->regs || !p->stack)
		return false;
	st->regs_mask = p->regs_mask;
	st->regs = p->regs;
	st->stack = p->stack;
	st->stack_size = p->stack_dyn_size;
	st->copy_full = asked && p->stack_dyn_size >= asked;
	return true;
}

int chainer__build(struct chainer *c, const struct resolved *r, const struct cframe **frames,
		   unsigned int *n, unsigned int *flags)
{
	const struct ebs_rec_sample *s = r->s;
	struct ebs_sample_parts p;
	unsigned int na = 0, i, user_at = 0, nuser = 0;
	bool suspect = false, cut = false;
	bool in_kernel = (s->hdr.misc & EBS_CPUMODE_MASK) == EBS_CPUMODE_KERNEL;
	struct sym_stack st;
	int e;

	c->n = 0;
	c->s = s;
	c->unmapped = false;
	*flags = 0;
	ebs_sample__parts(s, &p);
	if (!p.callchain && !p.regs) {
		c->addrs[0] = s->ip;
		c->kernel[0] = in_kernel;
		e = resolve_all(c, r, 1, 0);
		goto out;
	}
	c->st.samples++;
	/* the kernel's chain: its markers say whose the addresses after them are */
	for (i = 0; i < p.nr_callchain && na < MAX_ADDRS; i++) {
		u64 a = p.callchain[i];

		if (a >= EBS_CHAIN_MAX) {
			in_kernel = a == EBS_CHAIN_KERNEL;
			if (a == EBS_CHAIN_USER && !nuser)
				user_at = na;
			continue;
		}
		if (!a) /* the end of a frame-pointer chain, not a frame (as perf drops it) */
			continue;
		if (!in_kernel && (!user_code_possible(a) || (nuser && !map_of(c, a - 1)))) {
			/*
			 * a frame pointer followed into data (a return address
			 * where no user code can be, or in none the process had
			 * mapped: a stack address, a word of text): the rest is
			 * not a chain
			 */
			cut = true;
			break;
		}
		if (!in_kernel)
			nuser++;
		c->addrs[na] = a;
		c->kernel[na++] = in_kernel;
	}
	if (c->dwarf && sample_stack(&p, c->asked, &st)) {
		/* the user part unwound from the copied stack replaces whatever was there */
		cut = false;
		unsigned int got = 0, room;
		enum sym_unwind_end end;

		if (nuser)
			na = user_at;
		else
			user_at = na;
		room = MAX_ADDRS - na;
		if (room && symbolizer__unwind(c->rs->sym, &st, map_of, c, c->addrs + na, room,
					       &got, &end) == -ENOMEM)
			return -ENOMEM;
		for (i = 0; i < got; i++)
			c->kernel[na + i] = false;
		na += got;
		c->st.unwound++;
		if (end == SYM_UNWIND_TRUNCATED || end == SYM_UNWIND_MAX) {
			*flags |= CHAIN_TRUNCATED;
			c->st.truncated++;
		} else if (end == SYM_UNWIND_NO_CFI || end == SYM_UNWIND_BAD) {
			*flags |= CHAIN_BROKEN;
			c->st.broken++;
		}
	} else if (c->fp && nuser && !sample_stack(&p, 0, &st)) {
		c->st.fp_no_stack++; /* perf record -g copies none: nothing to check the leaf with
				      */
	} else if (c->fp && nuser) {
		/*
		 * Was the caller of a frameless leaf skipped?  And do the next
		 * frames, as far as the stack copy holds them, agree with the CFI?
		 */
		u64 two[CFI_CHECK];
		unsigned int got = 0, k;
		enum sym_unwind_end end;

		if (symbolizer__unwind(c->rs->sym, &st, map_of, c, two, CFI_CHECK, &got, &end) ==
		    -ENOMEM)
			return -ENOMEM;
		if (got >= 2 && two[0] == c->addrs[user_at]) {
			c->st.fp_checked++;
			if ((nuser == 1 || c->addrs[user_at + 1] != two[1]) && na < MAX_ADDRS &&
			    user_code_possible(two[1])) {
				memmove(c->addrs + user_at + 2, c->addrs + user_at + 1,
					(na - user_at - 1) * sizeof(*c->addrs));
				memmove(c->kernel + user_at + 2, c->kernel + user_at + 1,
					(na - user_at - 1) * sizeof(*c->kernel));
				c->addrs[user_at + 1] = two[1];
				c->kernel[user_at + 1] = false;
				na++;
				*flags |= CHAIN_RECOVERED;
				c->st.fp_recovered++;
			}
			for (k = 2; k < got && !suspect; k++)
				suspect = user_at + k >= na || c->addrs[user_at + k] != two[k];
		} else if (end == SYM_UNWIND_NO_CFI) {
			c->st.fp_no_cfi++;
		}
	}
	if (!na) {
		c->addrs[na] = s->ip;
		c->kernel[na++] = (s->hdr.misc & EBS_CPUMODE_MASK) == EBS_CPUMODE_KERNEL;
	}
	e = resolve_all(c, r, na, user_at);
	if (cut) {
		*flags |= CHAIN_TRUNCATED;
		c->st.fp_impossible++;
	}
	if (c->fp && (c->unmapped || suspect || cut))
		c->st.fp_suspect++;
	if (!e && (*flags & CHAIN_TRUNCATED)) {
		/* the outermost frame of a cut chain says so: its callers are unknown */
		struct where w = {.addr = 0};

		e = push(c, "[truncated]", NULL, "", &w, false, false);
	}
out:
	if (e)
		return e;
	c->st.frames += c->n;
	*frames = c->frames;
	*n = c->n;
	return 0;
}

/* session.h: one function's name, and the key of an inlined function's rows */
bool session__same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

const struct sym_frame *session__inline_key(const struct sym_result *res, bool no_inline,
					    const char **function, const char **inlined_into)
{
	const struct sym_frame *loc = NULL;

	*inlined_into = NULL;
	if (res->nr_frames > 1 && !no_inline) {
		unsigned int into = 1, last = res->nr_frames - 1, j;

		/* a function inlined into itself (a recursive call, an alias): one function
		 */
		while (into <= last &&
		       session__same_name(res->frames[into].function, res->frames[0].function))
			into++;
		/* ...and one repeated out to the compiled function is that one */
		for (j = into; j < last && session__same_name(res->frames[j].function,
							      res->frames[j + 1].function);
		     j++)
			;
		if (into < last && j == last)
			into = last;
		/* inlined code: the inlined function, at its own line */
		*function = res->frames[0].function ? res->frames[0].function : res->function;
		/*
		 * ...inlined into the next function out; the compiled one
		 * named as its own code's rows name it, by the symbol table
		 * (DWARF may name it by an alias: glibc's __GI_ names)
		 */
		if (into < last)
			*inlined_into = res->frames[into].function;
		else if (into == last)
			*inlined_into = res->function ? res->function : res->frames[last].function;
		else if (res->function) /* itself all the way out: its own code */
			*function = res->function;
		if (session__same_name(*function, *inlined_into))
			*inlined_into = NULL;
		loc = &res->frames[0];
	} else {
		*function = res->function;
		if (!*function && res->nr_frames)
			*function = res->frames[res->nr_frames - 1].function;
		if (res->nr_frames) /* the compiled function's own line */
			loc = &res->frames[res->nr_frames - 1];
	}
	return loc;
}
