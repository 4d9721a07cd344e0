// SPDX-License-Identifier: MIT
/*
 * unwind.c - unwinding a sample's copy of the user stack with libunwind's
 * remote accessors, as perf's util/unwind-libunwind-local.c does.
 *
 * libunwind asks for three things, and each is served from what the
 * recording kept or from the files it names, never from a live process:
 *
 *   registers  the sample's user registers (struct sym_stack);
 *   memory     the stack copy for addresses in it; the DSOs' .eh_frame_hdr
 *              and .eh_frame (read once per DSO), and otherwise the bytes
 *              of a mapped file (code, for libunwind's signal-frame check);
 *   proc info  the FDE covering an address: the caller's map_of names the
 *              mapping, its DSO's .eh_frame_hdr search table is handed to
 *              libunwind's dwarf_search_unwind_table at its runtime
 *              address (the table's entries and FDEs are relative to it).
 *
 * One libunwind address space serves every process: the caching of
 * unwind information by address is off, since two processes may map
 * different code at one address.
 */
#include <dwarf.h>
#include <errno.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/cfa.h"

/* libunwind's, exported but not in its headers */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

/*
 * libunwind's memory pool (allocating each frame's register state for
 * DW_CFA_remember_state, and the CIE and FDE it parses) takes its lock
 * with all signals blocked: sigprocmask(SIG_SETMASK, full) before, and the
 * old mask back after, two system calls a lock, most of those of a
 * call-graph report (about 4.5 a sample of a -g recording).  The blocking
 * is there for a process that unwinds itself in a signal handler; ebs
 * unwinds copied stacks, never in a handler, and the pool's mutex still
 * serializes its threads.  So while a thread is in libunwind here
 * (in_libunwind), its sigprocmask calls (libunwind's only: it names
 * sigprocmask; glibc calls its own internally) do nothing; elsewhere, and
 * in every other thread, this is the libc's.
 */
static __thread bool in_libunwind;

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int e;

	if (in_libunwind) {
		if (old)
			sigemptyset(old); /* handed back, unused, to the call that restores it */
		return 0;
	}
	e = pthread_sigmask(how, set, old);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * A DSO's CFI as the unwinder reads it: its .eh_frame_hdr and .eh_frame
 * (eh, read at the first unwind through it: .eh_frame taken to the end of
 * its segment, since the header does not give its length), and its
 * .debug_frame made into the same form (dbg, made at the first address
 * the .eh_frame does not cover).
 */
#define PAGE_CACHE 16 /* pages of a DSO's file kept: the code libunwind reads at each IP */

/*
 * What libunwind made of one FDE (unw_proc_info_t and a copy of its
 * unwind_info, libunwind's parsed CIE and FDE): a function of the FDE's
 * bytes and the DSO's load bias alone, kept so that the next frame at an
 * address of that FDE costs no search, no parse and none of the two locks
 * (each blocking all signals with sigprocmask) libunwind's memory pool
 * takes to allocate and free unwind_info.
 */
#define FDE_MEMO 1024 /* entries per DSO, by FDE index */

struct fde_memo {
	const struct cfi_table *t; /* NULL: empty */
	u64 bias;
	u64 k; /* the FDE's index in t's search table */
	unw_proc_info_t pi;
	void *info; /* pi.unwind_info_size bytes */
};

struct dso_cfi {
	struct cfi_table eh, dbg;
	bool eh_ok, dbg_tried, dbg_ok;
	struct fde_memo *memo; /* FDE_MEMO of them, made at the first */
	struct cfa_memo *rows; /* cfa.c's */
	struct {
		u64 vaddr;   /* link-time, page-aligned; 1 when empty */
		u32 lo, len; /* data[lo, lo + len): the bytes of the page the file has */
		u8 data[4096];
	} pages[PAGE_CACHE];
};

static void cfi_table__exit(struct cfi_table *t)
{
	if (t->buf) {
		free(t->buf);
	} else {
		free(t->hdr);
		free(t->eh);
	}
}

void dso_cfi__free(struct dso_cfi *c)
{
	if (!c)
		return;
	cfi_table__exit(&c->eh);
	cfi_table__exit(&c->dbg);
	cfa_memo__free(c->rows);
	if (c->memo) {
		unsigned int i;

		for (i = 0; i < FDE_MEMO; i++)
			free(c->memo[i].info);
		free(c->memo);
	}
	free(c);
}

/*
 * len bytes of d at link-time address vaddr, from its image or file; NULL
 * if it has none, or (*oom set) when out of memory.
 */
static u8 *dso_bytes(const struct dso *d, u64 vaddr, u64 len, bool *oom)
{
	u64 room = 0;
	s64 off = dso__vaddr_to_file(d, vaddr, &room);
	u8 *buf;
	int fd;

	if (off < 0 || !len || len > room || len > (256u << 20))
		return NULL;
	buf = malloc(len);
	if (!buf) {
		*oom = true;
		return NULL;
	}
	if (d->image) {
		if ((u64)off + len > d->image_size)
			goto fail;
		memcpy(buf, (const u8 *)d->image + off, len);
		return buf;
	}
	if ((fd = dso__open_again(d)) < 0)
		goto fail;
	if (pread(fd, buf, len, off) != (ssize_t)len) {
		close(fd);
		goto fail;
	}
	close(fd);
	return buf;
fail:
	free(buf);
	return NULL;
}

/*
 * A value of the .eh_frame_hdr header at p (end: its end), in one of the
 * encodings linkers write there (LSB's eh_frame_hdr: pc-relative or
 * absolute, 4 or 8 bytes; data-relative only for the table).  pos is p's
 * link-time address.  false for others.
 */
static bool hdr_value(const u8 **p, const u8 *end, u8 enc, u64 pos, u64 hdr_vaddr, u64 *out)
{
	u64 base, v = 0;
	s32 s4;
	u32 u4;

	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		base = 0;
		break;
	case DW_EH_PE_pcrel:
		base = pos;
		break;
	case DW_EH_PE_datarel:
		base = hdr_vaddr;
		break;
	default:
		return false;
	}
	switch (enc & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		if (end - *p < 4)
			return false;
		memcpy(&u4, *p, 4);
		s4 = (s32)u4;
		v = (enc & 0x0f) == DW_EH_PE_sdata4 ? (u64)(s64)s4 : u4;
		*p += 4;
		break;
	case DW_EH_PE_absptr: /* native: 8 bytes */
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (end - *p < 8)
			return false;
		memcpy(&v, *p, 8);
		*p += 8;
		break;
	default:
		return false;
	}
	*out = base + v;
	return true;
}

/*
 * d's .eh_frame_hdr and .eh_frame into t; false when it has none the
 * unwinder can use, or (*oom set) when out of memory.
 */
static bool read_eh_frame(struct dso *d, struct cfi_table *t, bool *oom)
{
	const u8 *p, *end;
	u64 eh_ptr, room = 0;
	s64 off;

	if (!d->eh_hdr_size || d->eh_hdr_size < 4)
		return false;
	t->hdr_vaddr = d->eh_hdr_vaddr;
	t->hdr_size = d->eh_hdr_size;
	t->hdr = dso_bytes(d, t->hdr_vaddr, t->hdr_size, oom);
	if (!t->hdr)
		return false;
	/* version 1; eh_frame_ptr_enc, fde_count_enc, table_enc */
	p = t->hdr + 4;
	end = t->hdr + t->hdr_size;
	if (t->hdr[0] != 1 ||
	    !hdr_value(&p, end, t->hdr[1], t->hdr_vaddr + 4, t->hdr_vaddr, &eh_ptr) ||
	    !hdr_value(&p, end, t->hdr[2], t->hdr_vaddr + (u64)(p - t->hdr), t->hdr_vaddr,
		       &t->fde_count))
		return false;
	/* the search table libunwind reads: pairs of datarel sdata4 */
	if (t->hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    t->fde_count > (u64)(end - p) / 8 || !t->fde_count)
		return false;
	t->table_vaddr = t->hdr_vaddr + (u64)(p - t->hdr);
	/* .eh_frame has no length here: take it to the end of its segment */
	off = dso__vaddr_to_file(d, eh_ptr, &room);
	if (off < 0 || !room)
		return false;
	t->eh_vaddr = eh_ptr;
	t->eh_size = room;
	t->eh = dso_bytes(d, t->eh_vaddr, t->eh_size, oom);
	return t->eh != NULL;
}

/*
 * d's CFI, its .eh_frame read on first use; NULL when out of memory (then
 * nothing is kept: a later call tries again, never taking the failure for
 * a DSO without CFI).
 */
static struct dso_cfi *dso__cfi(struct dso *d)
{
	unsigned int i;
	bool oom = false;

	if (!d->cfi) {
		d->cfi = calloc(1, sizeof(*d->cfi));
		if (!d->cfi)
			return NULL;
		for (i = 0; i < PAGE_CACHE; i++)
			d->cfi->pages[i].vaddr = 1;
		d->cfi->eh_ok = read_eh_frame(d, &d->cfi->eh, &oom);
		if (oom) {
			dso_cfi__free(d->cfi);
			d->cfi = NULL;
		}
	}
	return d->cfi;
}

/*
 * The bytes of the 8 at link-time address v that buf (at link-time address
 * at, len bytes) holds, into val; the others are left as they are.  libunwind
 * reads whole aligned words, which may reach past a section's end.
 */
static bool overlap(const u8 *buf, u64 at, u64 len, u64 v, u64 *val)
{
	u64 lo = v > at ? v : at, hi = v + 8 < at + len ? v + 8 : at + len;

	if (!buf || lo >= hi)
		return false;
	memcpy((u8 *)val + (lo - v), buf + (lo - at), hi - lo);
	return true;
}

/*
 * The bytes d's file has of the page at link-time address page, those of
 * the first segment with any there: [*lo, *lo + *len) of the page.  A
 * segment may start or end inside a page (the writable ones do: at 0x3db0
 * (GNU ld), 0x57078 (lld), holding the GOT slots personality routines are
 * read through).  false when none has any.
 */
static bool page_span(const struct dso *d, u64 page, u32 *lo, u32 *len)
{
	size_t i;

	if (page > UINT64_MAX - 4096)
		return false;
	for (i = 0; i < d->nsegs; i++) {
		const struct segment *sg = &d->segs[i];
		u64 end = sg->vaddr + sg->filesz < sg->vaddr ? UINT64_MAX : sg->vaddr + sg->filesz;
		u64 a = sg->vaddr > page ? sg->vaddr : page;
		u64 b = end < page + 4096 ? end : page + 4096;

		if (a < b) {
			*lo = (u32)(a - page);
			*len = (u32)(b - a);
			return true;
		}
	}
	return false;
}

/*
 * 8 bytes of d's file at link-time address v (those the file has; a word
 * may cross into the next page), through a small cache of its pages;
 * *oom set when out of memory.
 */
static bool dso_word(struct dso *d, u64 v, u64 *val, bool *oom)
{
	struct dso_cfi *c = dso__cfi(d);
	bool got = false;
	u64 page;
	int k;

	if (!c) {
		*oom = true;
		return false;
	}
	for (k = 0; k < 2; k++) {
		__typeof__(c->pages[0]) *pg;

		page = (v & ~(u64)4095) + (u64)k * 4096;
		if (k && (v & 4095) <= 4096 - 8)
			break; /* the word is in the first page */
		pg = &c->pages[(page >> 12) % PAGE_CACHE];
		if (pg->vaddr != page) {
			u32 lo, len;
			u8 *b;

			pg->vaddr = 1;
			if (!page_span(d, page, &lo, &len) ||
			    !(b = dso_bytes(d, page + lo, len, oom)))
				continue;
			memcpy(pg->data + lo, b, len);
			free(b);
			pg->vaddr = page;
			pg->lo = lo;
			pg->len = len;
		}
		got |= overlap(pg->data + pg->lo, page + pg->lo, pg->len, v, val);
	}
	return got;
}

/*
 * d's .debug_frame as a table, made on first use (from the file, else its
 * separate debug file), placed past d's last segment; NULL when none, or
 * (*oom set, nothing kept) when out of memory.
 */
static const struct cfi_table *dso__debug_frame(struct dso *d, bool *oom)
{
	struct dso_cfi *c = d->cfi;
	u64 base = 0;
	size_t i;
	int r = -ENOENT;

	if (!c->dbg_tried) {
		for (i = 0; i < d->nsegs; i++)
			if (d->segs[i].vaddr + d->segs[i].filesz > base)
				base = d->segs[i].vaddr + d->segs[i].filesz;
		base = (base + 0x1ffff) & ~(u64)0xffff;
		if (d->path)
			r = debug_frame__synth(d->path, base, &c->dbg);
		if (r && r != -ENOMEM && d->path && d->debug_path && strcmp(d->debug_path, d->path))
			r = debug_frame__synth(d->debug_path, base, &c->dbg);
		if (r == -ENOMEM) {
			*oom = true;
			return NULL;
		}
		c->dbg_tried = true;
		c->dbg_ok = r == 0;
	}
	return c->dbg_ok ? &c->dbg : NULL;
}

/* ---- one unwind ---------------------------------------------------------- */

#define UNW_MAX_DSOS 16

/* What the accessors of one symbolizer__unwind call see (their arg). */
struct unw_ctx {
	struct symbolizer *s;
	const struct sym_stack *st;
	sym_map_of_fn map_of;
	void *map_ctx;
	u64 sp;
	/* the DSOs found so far, with their load bias: where .eh_frame is */
	struct {
		struct dso *d;
		u64 bias;
	} dsos[UNW_MAX_DSOS];
	unsigned int ndsos;
	/* the mapping ctx_dso found a DSO of last, that DSO and its bias */
	const struct sym_map *last_map;
	struct dso *last_dso;
	u64 last_bias;
	/*
	 * The last word dso_mem found, at memo_addr: libunwind reads CFI a
	 * byte at a time, each byte through the aligned word holding it, so
	 * the same word is asked for up to 8 times in a row.  What dso_mem
	 * finds for an address does not change within one unwind (a DSO
	 * added to dsos comes after the one that had it).
	 */
	u64 memo_addr, memo_val;
	bool memo_ok;
	bool past_copy; /* a read past the end of the stack copy failed */
	bool no_info;	/* an address had no CFI */
	bool oom;	/* out of memory on the way: the result is not to be trusted */
};

/* PERF_REG_X86_* of libunwind's x86-64 register numbers (UNW_X86_64_RAX...). */
static const signed char perf_reg_of[] = {
	[UNW_X86_64_RAX] = 0,  [UNW_X86_64_RDX] = 3,  [UNW_X86_64_RCX] = 2,  [UNW_X86_64_RBX] = 1,
	[UNW_X86_64_RSI] = 4,  [UNW_X86_64_RDI] = 5,  [UNW_X86_64_RBP] = 6,  [UNW_X86_64_RSP] = 7,
	[UNW_X86_64_R8] = 16,  [UNW_X86_64_R9] = 17,  [UNW_X86_64_R10] = 18, [UNW_X86_64_R11] = 19,
	[UNW_X86_64_R12] = 20, [UNW_X86_64_R13] = 21, [UNW_X86_64_R14] = 22, [UNW_X86_64_R15] = 23,
	[UNW_X86_64_RIP] = 8,
};

/* Register reg (PERF_REG_X86_*) of st; false when not copied. */
static bool stack_reg(const struct sym_stack *st, unsigned int reg, u64 *val)
{
	if (reg >= 64 || !(st->regs_mask & (1ull << reg)))
		return false;
	*val = st->regs[__builtin_popcountll(st->regs_mask & ((1ull << reg) - 1))];
	return true;
}

/* The DSO of the mapping at runtime address addr, remembered in ctx; NULL if none. */
static struct dso *ctx_dso(struct unw_ctx *c, u64 addr, u64 *bias)
{
	const struct sym_map *map = c->map_of(c->map_ctx, addr);
	struct dso *d;
	unsigned int i;

	if (!map)
		return NULL;
	if (map == c->last_map) { /* the frames of a chain are mostly of one mapping */
		*bias = c->last_bias;
		return c->last_dso;
	}
	d = symbolizer__map_dso(c->s, map, bias);
	if (!d)
		return NULL;
	c->last_map = map;
	c->last_dso = d;
	c->last_bias = *bias;
	for (i = 0; i < c->ndsos; i++)
		if (c->dsos[i].d == d && c->dsos[i].bias == *bias)
			return d;
	if (c->ndsos < UNW_MAX_DSOS) {
		c->dsos[c->ndsos].d = d;
		c->dsos[c->ndsos].bias = *bias;
		c->ndsos++;
	}
	return d;
}

/*
 * Search table t of a DSO loaded at bias for ip.  libunwind's own binary
 * search reads the table through access_mem, 4 bytes at a time; it is
 * done here on t's copy, and libunwind is handed the entry found and the
 * next (a table that its search ends on that same entry), so that it only
 * reads the FDE: the same result, found without ~2 log2(FDEs) reads.
 */
static int search(unw_addr_space_t as, unw_word_t ip, struct dso_cfi *cfi,
		  const struct cfi_table *t, u64 bias, unw_proc_info_t *pi, int need, void *arg)
{
	u64 segbase = t->hdr_vaddr + bias;
	s64 k = cfi_table__entry(t, (s32)(ip - segbase)); /* libunwind's int32_t rel_ip */
	struct fde_memo *m = NULL;
	unw_dyn_info_t di;
	int r;

	if (k >= 0 && need) {
		if (!cfi->memo)
			cfi->memo = calloc(FDE_MEMO, sizeof(*cfi->memo));
		m = cfi->memo ? &cfi->memo[(u64)k % FDE_MEMO] : NULL;
	}
	if (m && m->t == t && m->bias == bias && m->k == (u64)k) {
		/*
		 * What libunwind found for this FDE before, its unwind_info
		 * ours: UNW_INFO_FORMAT_REMOTE_TABLE, which libunwind's parser
		 * reads as it does UNW_INFO_FORMAT_TABLE, but does not free
		 * into its pool as it frees that.
		 */
		*pi = m->pi;
		pi->format = UNW_INFO_FORMAT_REMOTE_TABLE;
		pi->unwind_info = m->info;
		return ip < pi->start_ip || ip >= pi->end_ip ? -UNW_ENOINFO : 0;
	}

	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = ip; /* the table's own bounds are checked by the search */
	di.end_ip = ip + 1;
	di.u.rti.segbase = segbase;
	di.u.rti.table_data = t->table_vaddr + bias;
	di.u.rti.table_len = t->fde_count * 8 / sizeof(unw_word_t);
	if (k >= 0) {
		di.u.rti.table_data += (u64)k * 8;
		di.u.rti.table_len = ((u64)k + 1 < t->fde_count ? 2 : 1) * 8 / sizeof(unw_word_t);
	}
	r = dwarf_search_unwind_table(as, ip, &di, pi, need, arg);
	/* kept when libunwind made it as its version 1.x does: a table entry, its info */
	if (m && (r == 0 || r == -UNW_ENOINFO) && pi->format == UNW_INFO_FORMAT_TABLE &&
	    pi->unwind_info && pi->unwind_info_size > 0 && pi->unwind_info_size <= 4096) {
		void *info = malloc((size_t)pi->unwind_info_size);

		if (info) {
			memcpy(info, pi->unwind_info, (size_t)pi->unwind_info_size);
			free(m->info);
			m->t = t;
			m->bias = bias;
			m->k = (u64)k;
			m->pi = *pi;
			m->info = info;
		}
	}
	return r;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need,
			  void *arg)
{
	struct unw_ctx *c = arg;
	const struct cfi_table *dbg;
	struct dso_cfi *cfi;
	struct dso *d;
	u64 bias = 0;
	int r = -UNW_ENOINFO;

	d = ctx_dso(c, ip, &bias);
	cfi = d ? dso__cfi(d) : NULL;
	if (d && !cfi) {
		c->oom = true;
		return -UNW_ENOMEM;
	}
	if (cfi && cfi->eh_ok)
		r = search(as, ip, cfi, &cfi->eh, bias, pi, need, arg);
	if (r == -UNW_ENOINFO && cfi && (dbg = dso__debug_frame(d, &c->oom)))
		r = search(as, ip, cfi, dbg, bias, pi, need, arg);
	if (c->oom)
		return -UNW_ENOMEM;
	if (r < 0)
		c->no_info = true;
	return r;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

/* 8 bytes of a DSO's CFI or file at runtime address addr; false when none has them. */
static bool dso_mem(struct unw_ctx *c, u64 addr, u64 *val)
{
	unsigned int i;
	struct dso *d;
	u64 bias = 0;

	*val = 0;
	for (i = 0; i < c->ndsos; i++) {
		struct dso_cfi *cfi = c->dsos[i].d->cfi;
		u64 v = addr - c->dsos[i].bias;
		bool got = false;

		if (!cfi)
			continue;
		if (cfi->eh_ok) {
			got |= overlap(cfi->eh.eh, cfi->eh.eh_vaddr, cfi->eh.eh_size, v, val);
			got |= overlap(cfi->eh.hdr, cfi->eh.hdr_vaddr, cfi->eh.hdr_size, v, val);
		}
		if (cfi->dbg_ok)
			got |= overlap(cfi->dbg.buf, cfi->dbg.hdr_vaddr,
				       cfi->dbg.hdr_size + cfi->dbg.eh_size, v, val);
		if (got)
			return true;
	}
	/* code (the signal frame check reads it) or data of a DSO of the chain */
	for (i = 0; i < c->ndsos; i++)
		if (dso_word(c->dsos[i].d, addr - c->dsos[i].bias, val, &c->oom))
			return true;
	d = ctx_dso(c, addr, &bias);
	return d && dso_word(d, addr - bias, val, &c->oom);
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct unw_ctx *c = arg;
	const struct sym_stack *st = c->st;
	u64 v;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (addr >= c->sp && st->stack_size >= 8 && addr - c->sp <= st->stack_size - 8) {
		memcpy(&v, st->stack + (addr - c->sp), 8);
		*valp = v;
		return 0;
	}
	if (c->memo_ok && c->memo_addr == addr) {
		*valp = c->memo_val;
		return 0;
	}
	if (dso_mem(c, addr, &v)) {
		c->memo_ok = true;
		c->memo_addr = addr;
		c->memo_val = v;
		*valp = v;
		return 0;
	}
	if (addr >= c->sp + st->stack_size)
		c->past_copy = true;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *valp, int write, void *arg)
{
	struct unw_ctx *c = arg;
	u64 v;

	(void)as;
	if (write || reg < 0 || (size_t)reg >= sizeof(perf_reg_of) ||
	    !stack_reg(c->st, (unsigned int)perf_reg_of[reg], &v))
		return -UNW_EBADREG;
	*valp = v;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as;
	(void)cu;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

static unw_addr_space_t address_space(struct symbolizer *s)
{
	if (!s->unwind_as) {
		unw_addr_space_t as = unw_create_addr_space(&accessors, 0);

		if (!as)
			return NULL;
		unw_set_caching_policy(as, UNW_CACHE_NONE);
		s->unwind_as = as;
	}
	return s->unwind_as;
}

void symbolizer__unwind_exit(struct symbolizer *s)
{
	if (s->unwind_as)
		unw_destroy_addr_space(s->unwind_as);
	s->unwind_as = NULL;
}

static int fast_cfi = -1;

/* cfa_env's: the .eh_frame of the DSO at addr */
static bool fast_table(void *arg, u64 addr, const struct cfi_table **t, u64 *bias,
		       struct cfa_memo ***memo)
{
	struct unw_ctx *c = arg;
	struct dso *d = ctx_dso(c, addr, bias);
	struct dso_cfi *cfi = d ? dso__cfi(d) : NULL;

	if (!cfi || !cfi->eh_ok)
		return false;
	*t = &cfi->eh;
	*memo = &cfi->rows;
	return true;
}

static bool fast_mapped(void *arg, u64 addr)
{
	struct unw_ctx *c = arg;

	return c->map_of(c->map_ctx, addr) != NULL;
}

static bool fast_mem(void *arg, u64 addr, u64 *val)
{
	unw_word_t v;

	if (access_mem(NULL, addr, &v, 0, arg))
		return false;
	*val = v;
	return true;
}

int symbolizer__unwind(struct symbolizer *s, const struct sym_stack *st, sym_map_of_fn map_of,
		       void *ctx, u64 *ips, unsigned int max, unsigned int *nr,
		       enum sym_unwind_end *end)
{
	struct unw_ctx c = {.s = s, .st = st, .map_of = map_of, .map_ctx = ctx};
	unw_addr_space_t as;
	unw_cursor_t cur;
	unw_word_t ip;
	u64 ip0;
	int r;

	if (!max)
		return -EINVAL;
	*nr = 0;
	if (!stack_reg(st, 8, &ip0) || !stack_reg(st, 7, &c.sp)) { /* IP, SP */
		*end = SYM_UNWIND_NO_REGS;
		return 0;
	}
	ips[(*nr)++] = ip0;
	if (fast_cfi < 0) /* EBS_DEBUG_NO_FAST_CFI: libunwind all the way, for tests */
		fast_cfi = !getenv("EBS_DEBUG_NO_FAST_CFI");
	if (fast_cfi) {
		/* the common rules without libunwind; libunwind where it gives up */
		struct cfa_env env = {.st = st,
				      .sp = c.sp,
				      .table = fast_table,
				      .mapped = fast_mapped,
				      .mem = fast_mem,
				      .arg = &c};
		enum cfa_result fr = cfa_unwind(&env, ips, max, nr, end);

		if (fr == CFA_READ_FAILED) /* as unw_step's failure below */
			*end = c.past_copy && st->copy_full ? SYM_UNWIND_TRUNCATED : SYM_UNWIND_BAD;

		if (fr != CFA_GAVE_UP)
			return c.oom ? -ENOMEM : 0;
		*nr = 1;
		c = (struct unw_ctx){
			.s = s, .st = st, .map_of = map_of, .map_ctx = ctx, .sp = c.sp};
	}
	as = address_space(s);
	if (!as)
		return -ENOMEM;
	in_libunwind = true;
	if (unw_init_remote(&cur, as, &c) < 0) {
		in_libunwind = false;
		*end = SYM_UNWIND_BAD;
		return c.oom ? -ENOMEM : 0;
	}
	for (;;) {
		if (*nr >= max) {
			*end = SYM_UNWIND_MAX;
			break;
		}
		c.no_info = false;
		r = unw_step(&cur);
		if (r > 0 && unw_get_reg(&cur, UNW_REG_IP, &ip) == 0 && ip) {
			/*
			 * A return address lies in code the process had mapped
			 * (one byte back: in the call).  Where an address has no
			 * CFI, libunwind goes on through rbp as a frame pointer,
			 * which in code built without them holds data: a stack
			 * address, a word of text.  Such a frame ends the chain.
			 */
			if (ip > 1 && map_of(ctx, ip - 1)) {
				ips[(*nr)++] = ip;
				continue;
			}
			*end = c.no_info ? SYM_UNWIND_NO_CFI : SYM_UNWIND_BAD;
			break;
		}
		if (r >= 0)
			*end = SYM_UNWIND_OUTERMOST;
		else if (c.past_copy && st->copy_full)
			*end = SYM_UNWIND_TRUNCATED;
		else if (c.no_info)
			*end = SYM_UNWIND_NO_CFI;
		else
			*end = SYM_UNWIND_BAD;
		break;
	}
	in_libunwind = false;
	return c.oom ? -ENOMEM : 0; /* a chain cut by a failed allocation is not the stack's */
}

/* map_of for one mapping: ctx is the map. */
static const struct sym_map *one_map(void *ctx, u64 addr)
{
	const struct sym_map *m = ctx;

	return addr >= m->start && addr - m->start < m->len ? m : NULL;
}

int symbolizer__cfi_function(struct symbolizer *s, const struct sym_map *map, u64 addr, u64 *start,
			     u64 *end)
{
	/* no registers: only find_proc_info and the CFI's memory are used */
	struct sym_stack none = {0};
	struct unw_ctx c = {.s = s, .st = &none, .map_of = one_map, .map_ctx = (void *)map};
	unw_proc_info_t pi;
	unw_addr_space_t as;
	int r;

	as = address_space(s);
	if (!as)
		return -ENOMEM;
	memset(&pi, 0, sizeof(pi));
	in_libunwind = true;
	r = unw_get_proc_info_by_ip(as, addr, &pi, &c);
	in_libunwind = false;
	if (c.oom || r == -UNW_ENOMEM)
		return -ENOMEM;
	if (r < 0 || addr < pi.start_ip || addr >= pi.end_ip)
		return -ENOENT;
	*start = pi.start_ip;
	*end = pi.end_ip;
	return 0;
}
