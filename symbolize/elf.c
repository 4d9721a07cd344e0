// SPDX-License-Identifier: MIT
/*
 * elf.c - turn one ELF file or in-memory image into what lookups need: the
 * PT_LOAD segments (runtime file offset -> link-time address), the
 * NT_GNU_BUILD_ID, and a sorted function symbol table with PLT entries.
 * Everything is copied out of libelf, so no Elf handle or descriptor outlives
 * the load.  All parsing goes through libelf; input may be hostile
 * (truncated, garbage headers, bogus links), so every libelf result is
 * checked and a bad part is skipped rather than trusted.
 *
 * Why one file of ~1,020 lines: one load of one ELF file (segments,
 * build-id, symbols, PLT, debug links), every part reading the same
 * libelf handle that must not outlive the load.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symbolize/internal.h"

static const char plt_suffix[] = "@plt";

static u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int raw_vec__push(struct raw_vec *rv, const struct raw_sym *rs)
{
	if (ebs_grow((void **)&rv->v, &rv->cap, rv->n, sizeof(*rv->v), 256))
		return -ENOMEM;
	rv->v[rv->n] = *rs;
	rv->v[rv->n].order = rv->n;
	rv->n++;
	return 0;
}

/* Name of section scn through the section-name string table, or NULL. */
static const char *section_name(Elf *e, size_t shstrndx, const GElf_Shdr *sh)
{
	if (shstrndx == SHN_UNDEF)
		return NULL;
	return elf_strptr(e, shstrndx, sh->sh_name);
}

/* The section header of section index ndx, or NULL. */
static GElf_Shdr *shdr_of(Elf *e, size_t ndx, GElf_Shdr *buf)
{
	Elf_Scn *scn = elf_getscn(e, ndx);

	return scn ? gelf_getshdr(scn, buf) : NULL;
}

/* The converted symbol data of a symbol table section, or NULL. */
static Elf_Data *sym_data(Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!data || data->d_type != ELF_T_SYM || !data->d_buf)
		return NULL;
	return data;
}

static size_t sym_count(Elf *e, const Elf_Data *data)
{
	size_t ent = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);

	return ent ? data->d_size / ent : 0;
}

/*
 * The length of a symbol's name without its symbol version: a separate
 * debug file's .symtab names glibc's versioned functions
 * "__libc_start_main@@GLIBC_2.34" (the default version) or "memcpy@GLIBC_2.2.5";
 * the function is "__libc_start_main", as the dynamic symbol table and the
 * DWARF name it, and as --func, --callers and annotate are asked for it.
 */
static size_t sym_name_len(const char *name)
{
	const char *at = strchr(name, '@');

	return at && at > name ? (size_t)(at - name) : strlen(name);
}

/*
 * Collect the function symbols of one symbol table section: STT_FUNC and
 * STT_GNU_IFUNC that are defined, plus sized STT_NOTYPE symbols in
 * executable sections (hand-written assembly often lacks .type).
 */
static int collect_syms(Elf *e, Elf_Scn *scn, struct raw_vec *rv)
{
	GElf_Shdr sh, ssh;
	Elf_Data *data;
	size_t i, n;
	int err;

	if (!gelf_getshdr(scn, &sh))
		return 0;
	data = sym_data(scn);
	if (!data)
		return 0;
	n = sym_count(e, data);
	/* Entry 0 is the reserved null symbol. */
	for (i = 1; i < n && i <= INT32_MAX; i++) {
		struct raw_sym rs = {0};
		GElf_Sym sym;
		GElf_Shdr *sec = NULL;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF)
			continue;
		if (sym.st_shndx < SHN_LORESERVE)
			sec = shdr_of(e, sym.st_shndx, &ssh);
		if (type == STT_NOTYPE) {
			if (!sym.st_size || !sec || !(sec->sh_flags & SHF_EXECINSTR))
				continue;
		} else if (type != STT_FUNC && type != STT_GNU_IFUNC) {
			continue;
		}
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		rs.addr = sym.st_value;
		rs.size = sym.st_size;
		if (sec && sec->sh_type != SHT_NULL) {
			u64 end = sat_add(sec->sh_addr, sec->sh_size);

			/* Only trust the section if the symbol lies inside it. */
			if (sec->sh_addr <= rs.addr && rs.addr < end)
				rs.sec_end = end;
		}
		rs.name = name;
		rs.name_len = sym_name_len(name);
		if (bind == STB_GLOBAL || bind == STB_GNU_UNIQUE)
			rs.rank = RANK_GLOBAL;
		else if (bind == STB_WEAK)
			rs.rank = RANK_WEAK;
		else
			rs.rank = RANK_LOCAL;
		err = raw_vec__push(rv, &rs);
		if (err)
			return err;
	}
	return 0;
}

/*
 * PLT entries as NAME@plt (x86 only: that is where the layout is fixed).
 * Relocation i of .rela.plt (or .rel.plt) names the target of entry i of
 * .plt.sec when the binary has one (IBT), else of entry i + 1 of .plt
 * (entry 0 is the resolver stub); entries are 16 bytes.
 */
static int collect_plt(Elf *e, size_t shstrndx, struct raw_vec *rv)
{
	Elf_Scn *scn = NULL, *rel_scn = NULL, *sym_scn;
	GElf_Shdr sh, plt = {0}, plt_sec = {0}, rel_sh = {0}, sym_sh;
	const GElf_Shdr *tab;
	bool have_plt = false, have_plt_sec = false;
	Elf_Data *rel_data, *symdata;
	GElf_Ehdr eh;
	size_t i, n, first, ent;
	u64 stride;
	int err;

	if (!gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = section_name(e, shstrndx, &sh);
		if (!name)
			continue;
		if (!strcmp(name, ".plt") && sh.sh_type == SHT_PROGBITS) {
			plt = sh;
			have_plt = true;
		} else if (!strcmp(name, ".plt.sec") && sh.sh_type == SHT_PROGBITS) {
			plt_sec = sh;
			have_plt_sec = true;
		} else if ((!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA) ||
			   (!strcmp(name, ".rel.plt") && sh.sh_type == SHT_REL)) {
			rel_scn = scn;
			rel_sh = sh;
		}
	}
	if (!rel_scn || (!have_plt && !have_plt_sec))
		return 0;

	rel_data = elf_getdata(rel_scn, NULL);
	if (!rel_data || !rel_data->d_buf ||
	    rel_data->d_type != (rel_sh.sh_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL))
		return 0;
	ent = gelf_fsize(e, rel_data->d_type, 1, EV_CURRENT);
	if (!ent)
		return 0;
	n = rel_data->d_size / ent;

	/* The relocations' symbols: normally .dynsym. */
	sym_scn = elf_getscn(e, rel_sh.sh_link);
	if (!sym_scn || !gelf_getshdr(sym_scn, &sym_sh) ||
	    (sym_sh.sh_type != SHT_DYNSYM && sym_sh.sh_type != SHT_SYMTAB))
		return 0;
	symdata = sym_data(sym_scn);
	if (!symdata)
		return 0;

	stride = 16;
	tab = have_plt_sec ? &plt_sec : &plt;
	first = have_plt_sec ? 0 : 1;
	for (i = 0; i < n && i <= INT32_MAX; i++) {
		struct raw_sym rs = {0};
		u64 slot = first + i, symi;
		const char *name;
		GElf_Sym sym;

		/* Stop at the first entry that would not fit in the section. */
		if (slot + 1 > tab->sh_size / stride)
			break;
		if (rel_sh.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(rel_data, (int)i, &r))
				break;
			symi = GELF_R_SYM(r.r_info);
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rel_data, (int)i, &r))
				break;
			symi = GELF_R_SYM(r.r_info);
		}
		/* IRELATIVE and friends have no symbol: the slot stays unnamed. */
		if (!symi || symi > INT32_MAX || !gelf_getsym(symdata, (int)symi, &sym))
			continue;
		name = elf_strptr(e, sym_sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		rs.addr = tab->sh_addr + slot * stride;
		rs.size = stride;
		rs.sec_end = sat_add(tab->sh_addr, tab->sh_size);
		rs.name = name;
		rs.name_len = strlen(name);
		rs.rank = RANK_GLOBAL;
		rs.plt = true;
		err = raw_vec__push(rv, &rs);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A file's entry point that no symbol covers gets a synthetic "_start": a
 * stripped executable's, and that of Debian's ld.so, which has only
 * .dynsym.  perf names it from the separate debug file's .symtab, where
 * _start is an unsized local label (a kind of symbol not taken here, see
 * collect_syms); this names it from the file alone, with or without one.  It
 * ends where the .eh_frame FDE covering it ends, else where the next FDE
 * begins, and never past the next symbol or the end of its section.  Only
 * for a file that has some symbols: one without any stays "no symbols".
 */
static int add_entry_sym(Elf *e, const char *path, struct raw_vec *rv)
{
	u64 entry, sec_end = 0, next_sym = UINT64_MAX, below = 0, below_end, end, lo, hi, next_fde;
	bool have_below = false, below_sized = false;
	struct raw_sym rs = {0};
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i;

	if (!rv->n || !gelf_getehdr(e, &eh) || !eh.e_entry ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return 0;
	entry = eh.e_entry;
	while (!sec_end && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR) && sh.sh_addr <= entry &&
		    entry - sh.sh_addr < sh.sh_size)
			sec_end = sat_add(sh.sh_addr, sh.sh_size);
	}
	if (!sec_end)
		return 0; /* not in code: nothing to name */
	/* Covered as symtab__build will extend them: a sized symbol over entry... */
	for (i = 0; i < rv->n; i++) {
		const struct raw_sym *r = &rv->v[i];

		if (r->addr > entry) {
			next_sym = r->addr < next_sym ? r->addr : next_sym;
			continue;
		}
		if (r->size && entry - r->addr < r->size)
			return 0;
		if (!have_below || r->addr > below)
			below = r->addr;
		have_below = true;
	}
	/* ...or the closest one below, if every symbol there is unsized, up to the next symbol */
	below_end = next_sym;
	for (i = 0; have_below && i < rv->n; i++) {
		const struct raw_sym *r = &rv->v[i];

		if (r->addr != below)
			continue;
		below_sized |= r->size != 0;
		if (r->sec_end > r->addr && r->sec_end < below_end)
			below_end = r->sec_end;
	}
	if (have_below && !below_sized &&
	    entry < (below_end == UINT64_MAX ? sat_add(below, 1) : below_end))
		return 0;

	end = next_sym < sec_end ? next_sym : sec_end;
	if (path && eh_frame__fde_around(path, entry, &lo, &hi, &next_fde) == 1)
		end = hi < end ? hi : end;
	else if (path)
		end = next_fde < end ? next_fde : end;
	rs.addr = entry;
	rs.size = end - entry; /* > 0: every bound lies above entry */
	rs.sec_end = sec_end;
	rs.name = "_start";
	rs.name_len = strlen(rs.name);
	rs.rank = RANK_LOCAL;
	return raw_vec__push(rv, &rs);
}

/*
 * Order by address, then by alias preference: binding (global, weak,
 * local), then the shorter name, then the first in the file's table (as
 * elfutils and binutils choose), so that the first of each address group is
 * the name we show.
 * A real symbol beats a synthesized NAME@plt at the same address.
 */
static int raw_sym__cmp(const void *pa, const void *pb)
{
	const struct raw_sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->plt != b->plt)
		return a->plt ? 1 : -1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	/* then the first in the symbol table, as elfutils and binutils choose */
	return a->order < b->order ? -1 : a->order > b->order;
}

/*
 * Build the final table from raw symbols: merge aliases, give size-0
 * symbols the room up to the next symbol (bounded by their section), copy
 * the names (demangled when asked) into one arena.
 */
int symtab__build(struct symtab *t, struct raw_vec *rv, bool demangle)
{
	size_t i, j, n = 0, arena_len = 0;
	struct sym *syms;
	char *arena, *p;

	memset(t, 0, sizeof(*t));
	t->demangle = demangle;
	if (!rv->n)
		return 0;
	qsort(rv->v, rv->n, sizeof(*rv->v), raw_sym__cmp);

	/* Merge each address group into its first element (in place). */
	for (i = 0; i < rv->n; i = j) {
		struct raw_sym best = rv->v[i];

		for (j = i + 1; j < rv->n && rv->v[j].addr == best.addr; j++) {
			if (rv->v[j].size > best.size)
				best.size = rv->v[j].size;
			if (rv->v[j].sec_end > best.sec_end)
				best.sec_end = rv->v[j].sec_end;
		}
		rv->v[n++] = best;
	}

	/*
	 * The names as in the file (without a version); demangled only when
	 * first shown (symtab__name): a report shows a few of a large
	 * program's hundreds of thousands
	 */
	for (i = 0; i < n; i++)
		arena_len += rv->v[i].name_len + (rv->v[i].plt ? sizeof(plt_suffix) - 1 : 0) + 1;

	syms = calloc(n, sizeof(*syms));
	arena = malloc(arena_len);
	if (!syms || !arena) {
		free(arena);
		free(syms);
		return -ENOMEM;
	}

	p = arena;
	for (i = 0; i < n; i++) {
		const struct raw_sym *rs = &rv->v[i];
		size_t len = rs->name_len;
		u64 end;

		memcpy(p, rs->name, len);
		if (rs->plt)
			memcpy(p + len, plt_suffix, sizeof(plt_suffix));
		else
			p[len] = '\0';
		syms[i].name = sym_clean_text(p); /* a crafted name prints as one line */
		syms[i].plt = rs->plt;
		p += strlen(p) + 1;

		syms[i].addr = rs->addr;
		if (rs->size) {
			end = sat_add(rs->addr, rs->size);
		} else {
			/* Groups are merged, so the next address is strictly greater. */
			end = i + 1 < n ? rv->v[i + 1].addr : UINT64_MAX;
			if (rs->sec_end > rs->addr && rs->sec_end < end)
				end = rs->sec_end;
			if (end == UINT64_MAX)
				end = sat_add(rs->addr, 1);
		}
		syms[i].end = end;
		syms[i].max_end = i && syms[i - 1].max_end > end ? syms[i - 1].max_end : end;
	}
	t->syms = syms;
	t->nsyms = n;
	t->arena = arena;
	return 0;
}

/*
 * The demangled form of s's name, "@plt" kept (malloc'd, cleaned of
 * control characters), or NULL when it is not a mangled name (or no
 * memory: the mangled name is shown then).
 */
static char *sym_demangle(const struct sym *s)
{
	size_t len = strlen(s->name) - (s->plt ? sizeof(plt_suffix) - 1 : 0);
	char *bare = s->plt ? strndup(s->name, len) : NULL;
	char *dm, *r;

	if (s->plt && !bare)
		return NULL;
	dm = ebs_demangle(bare ? bare : s->name);
	free(bare);
	if (dm && s->plt) {
		r = realloc(dm, strlen(dm) + sizeof(plt_suffix));
		if (!r) {
			free(dm);
			return NULL;
		}
		dm = strcat(r, plt_suffix);
	}
	return dm ? sym_clean_text(dm) : NULL;
}

const char *symtab__name(struct symtab *t, const struct sym *s, const char **mangled)
{
	size_t i = (size_t)(s - t->syms);
	char *dm;

	if (mangled)
		*mangled = NULL;
	if (!t->demangle)
		return s->name;
	if (!t->shown && !(t->shown = calloc(t->nsyms, sizeof(*t->shown))))
		return s->name;
	if (!t->shown[i]) {
		dm = sym_demangle(s);
		t->shown[i] = dm ? dm : s->name;
	}
	if (mangled && t->shown[i] != s->name)
		*mangled = s->name;
	return t->shown[i];
}

void symtab__exit(struct symtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->shown && i < t->nsyms; i++)
		if (t->shown[i] != t->syms[i].name)
			free((char *)t->shown[i]);
	free(t->shown);
	free(t->syms);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}

/*
 * The entries are sorted by addr; binary search for the last one starting
 * at or before addr.  If it ends too early, an earlier, longer symbol may
 * still cover addr: walk back while the running max_end says one could.
 */
const struct sym *symtab__find(const struct symtab *t, u64 addr)
{
	size_t lo = ebs_upper_bound(t->syms, t->nsyms, sizeof(t->syms[0]),
				    offsetof(struct sym, addr), addr),
	       i;

	if (!lo)
		return NULL;
	for (i = lo - 1;; i--) {
		if (addr < t->syms[i].end)
			return &t->syms[i];
		if (!i || t->syms[i - 1].max_end <= addr)
			return NULL;
	}
}

u64 dso__file_to_vaddr(const struct dso *d, u64 off)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++) {
		const struct segment *sg = &d->segs[i];

		if (sg->offset <= off && off - sg->offset < sg->filesz)
			return off - sg->offset + sg->vaddr;
	}
	return off;
}

/*
 * The loader maps each PT_LOAD segment from the file page holding its
 * first byte, at the page holding its first link-time address, so a
 * mapping's bias is that of the segment it was made for.  Which segment
 * that is, pgoff alone does not say: lld and mold start the code on the
 * file page where the read-only data ends (read-only at offsets 0-0x8b4,
 * code from 0x8c0 at 0x18c0), so both have bytes in a mapping at pgoff 0,
 * whose first byte is the read-only segment's, and the biases they give
 * differ by a page (0x1000 taken for the code segment's 0).  The
 * mappings ebs keeps are executable: the executable segment with bytes in
 * the mapping is the one, and among those (or when none is marked) the
 * one holding pgoff: a mapping made of a whole file at once (gold's first
 * segment, in-memory images).  None: the offsets are the addresses.
 */
u64 dso__map_bias(const struct dso *d, u64 start, u64 len, u64 pgoff)
{
	const struct segment *best = NULL;
	int best_rank = -1;
	size_t i;

	for (i = 0; i < d->nsegs; i++) {
		const struct segment *sg = &d->segs[i];
		bool holds = sg->offset <= pgoff && pgoff - sg->offset < sg->filesz;
		int rank;

		if (!holds && (sg->offset < pgoff || sg->offset - pgoff >= len))
			continue; /* none of its bytes is in the mapping */
		rank = (sg->exec ? 2 : 0) + (holds ? 1 : 0);
		if (rank > best_rank) {
			best = sg;
			best_rank = rank;
		}
	}
	if (!best)
		return start - pgoff;
	/* the runtime address of best's first byte, less its link-time address */
	return start + best->offset - pgoff - best->vaddr;
}

s64 dso__vaddr_to_file(const struct dso *d, u64 vaddr, u64 *room)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++) {
		const struct segment *sg = &d->segs[i];

		if (sg->vaddr <= vaddr && vaddr - sg->vaddr < sg->filesz) {
			*room = sg->filesz - (vaddr - sg->vaddr);
			return (s64)(sg->offset + (vaddr - sg->vaddr));
		}
	}
	return -1;
}

static int load_segments(struct dso *d, Elf *e)
{
	GElf_Ehdr eh;
	size_t i, n;

	if (gelf_getehdr(e, &eh))
		d->machine = eh.e_machine;
	if (elf_getphdrnum(e, &n) || !n)
		return 0;
	d->segs = calloc(n, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < n && i <= INT32_MAX; i++) {
		GElf_Phdr ph;

		errno = 0;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			if (errno == ENOMEM) /* not the file's fault: not a file without it */
				return -ENOMEM;
			break;
		}
		if (ph.p_type == PT_GNU_EH_FRAME && ph.p_filesz) {
			d->eh_hdr_vaddr = ph.p_vaddr;
			d->eh_hdr_size = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		d->segs[d->nsegs].offset = ph.p_offset;
		d->segs[d->nsegs].filesz = ph.p_filesz;
		d->segs[d->nsegs].vaddr = ph.p_vaddr;
		d->segs[d->nsegs].exec = ph.p_flags & PF_X;
		d->nsegs++;
	}
	return 0;
}

/* Look for NT_GNU_BUILD_ID in one block of notes. */
static bool find_build_id(struct dso *d, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf || data->d_type != ELF_T_NHDR)
		return false;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", sizeof("GNU")) &&
		    nh.n_descsz) {
			size_t len = nh.n_descsz < sizeof(d->build_id) ? nh.n_descsz
								       : sizeof(d->build_id);

			memcpy(d->build_id, (const char *)data->d_buf + desc_off, len);
			d->build_id_size = (u8)len;
			return true;
		}
		off = next;
	}
	return false;
}

/* The build-id from the note sections, else from the PT_NOTE segments. */
static void load_build_id(struct dso *d, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t i, n;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (find_build_id(d, elf_getdata(scn, NULL)))
			return;
	}
	if (elf_getphdrnum(e, &n))
		return;
	for (i = 0; i < n && i <= INT32_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > INT64_MAX || !ph.p_filesz)
			continue;
		if (find_build_id(d, elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz,
							  ELF_T_NHDR)))
			return;
	}
}

/*
 * What the file says of its debug information: a .debug_info (or
 * .zdebug_info) with contents (not SHT_NOBITS, as in a stripped file's
 * leftovers), and .gnu_debuglink
 * (a file name, padding to 4, then the CRC-32 of the debug file).
 */
static void load_debug_facts(struct dso *d, Elf *e, size_t shstrndx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = section_name(e, shstrndx, &sh)))
			continue;
		/* .zdebug_info: the older, GNU-style compressed sections */
		if ((!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_size) {
			d->has_dwarf = true;
		} else if (!strcmp(name, ".gnu_debuglink") && sh.sh_type != SHT_NOBITS &&
			   (data = elf_getdata(scn, NULL)) && data->d_buf && data->d_size >= 8) {
			const char *link = data->d_buf;
			size_t len = strnlen(link, data->d_size);
			size_t crc_off = (len + 4) & ~(size_t)3;

			if (len && len < sizeof(d->debuglink) && crc_off + 4 <= data->d_size &&
			    !strchr(link, '/')) {
				memcpy(d->debuglink, link, len);
				d->debuglink[len] = '\0';
				/* the CRC is in the file's byte order: ours */
				memcpy(&d->debuglink_crc, (const char *)data->d_buf + crc_off, 4);
				d->has_debuglink = true;
			}
		}
	}
}

/* Read .symtab, else .dynsym, then the PLT, into a raw vector. */
static int collect_all(Elf *e, struct raw_vec *rv, bool *has_symtab, struct ebs_error *err)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	size_t shnum, shstrndx;
	int e2;

	if (elf_getshdrnum(e, &shnum)) {
		ebs_error__fail(err, EBS_E_BAD_ELF, "cannot read section headers: %s",
				elf_errmsg(-1));
		return 0;
	}
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = SHN_UNDEF;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	if (symtab) {
		e2 = collect_syms(e, symtab, rv);
		if (e2)
			return e2;
		*has_symtab = rv->n > 0;
	}
	/* A .symtab without usable functions is no better than none. */
	if (!rv->n && dynsym) {
		e2 = collect_syms(e, dynsym, rv);
		if (e2)
			return e2;
	}
	e2 = collect_plt(e, shstrndx, rv);
	if (e2)
		return e2;
	if (!rv->n)
		ebs_error__fail(err, EBS_E_NO_SYMBOLS, "%s",
				symtab || dynsym ? "no usable function symbols"
						 : "no symbol table");
	return 0;
}

/*
 * A Go binary's pclntab (gopclntab.c), for a file without .symtab or
 * without DWARF: its functions when no .symtab named any (ranked below a
 * .dynsym name at the same address), its lines for the lookups DWARF does
 * not answer.  A table refused is noted in d->gopcln_problem; 0 or -ENOMEM.
 */
static int load_go(struct dso *d, Elf *e, struct raw_vec *rv)
{
	struct ebs_error why = {0};
	size_t i, n;
	u64 off;

	d->gopcln = gopcln__from_elf(e, &off, &why);
	if (!d->gopcln) {
		if (errno == ENOMEM)
			return -ENOMEM;
		if (errno == EINVAL)
			ebs_format_line(d->gopcln_problem, sizeof(d->gopcln_problem),
					"Go's function table (.gopclntab at file offset %#llx) is "
					"malformed: %s: its names and lines are not read",
					(unsigned long long)off, why.msg);
		return 0;
	}
	if (d->has_symtab)
		return 0;
	n = gopcln__count(d->gopcln);
	for (i = 0; i < n; i++) {
		struct raw_sym rs = {.rank = RANK_LOCAL};
		u64 hi;

		if (gopcln__func(d->gopcln, i, &rs.addr, &hi, &rs.name))
			continue;
		rs.size = hi - rs.addr;
		rs.name_len = strlen(rs.name);
		if (raw_vec__push(rv, &rs))
			return -ENOMEM;
	}
	return 0;
}

/* An ELF handle on fd or image, checked to be a readable ELF file. */
static Elf *elf_open(int fd, void *image, size_t image_size, struct ebs_error *err)
{
	Elf *e = image ? elf_memory(image, image_size) : elf_begin(fd, ELF_C_READ, NULL);

	if (!e) {
		ebs_error__fail(err, EBS_E_BAD_ELF, "cannot read ELF: %s", elf_errmsg(-1));
		return NULL;
	}
	if (elf_kind(e) != ELF_K_ELF) {
		ebs_error__fail(err, EBS_E_NOT_ELF, "not an ELF file");
		elf_end(e);
		return NULL;
	}
	if (!gelf_getclass(e) || !gelf_getehdr(e, &(GElf_Ehdr){0})) {
		ebs_error__fail(err, EBS_E_BAD_ELF, "cannot read ELF: %s", elf_errmsg(-1));
		elf_end(e);
		return NULL;
	}
	return e;
}

int dso__load_elf(struct dso *d, int fd, void *image, size_t image_size, bool demangle,
		  struct ebs_error *why)
{
	struct raw_vec rv = {0};
	size_t shstrndx;
	Elf *e;
	int err;

	ebs_error__clear(why);
	e = elf_open(fd, image, image_size, why);
	if (!e)
		return -EINVAL;
	/*
	 * libelf reads sections lazily, and a NULL from it (elf_getdata,
	 * elf_strptr, gelf_getphdr) reads like a section without data: the
	 * allocations it failed on left ENOMEM in errno, so that an
	 * out-of-memory is never taken for a file without symbols.
	 */
	errno = 0;
	err = load_segments(d, e);
	if (err)
		goto out_nomem;
	load_build_id(d, e);
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = SHN_UNDEF;
	load_debug_facts(d, e, shstrndx);
	err = collect_all(e, &rv, &d->has_symtab, why);
	if (!err && !image && (!d->has_symtab || !d->has_dwarf))
		err = load_go(d, e, &rv);
	/* an in-memory image (the vdso) is not entered at e_entry */
	if (!err && !image)
		err = add_entry_sym(e, d->path, &rv);
	if (!err && errno == ENOMEM)
		err = -ENOMEM;
	if (err)
		goto out_nomem;
	/* Names still point into libelf's data: build before elf_end(). */
	err = symtab__build(&d->symtab, &rv, demangle);
	if (err)
		goto out_nomem;
	free(rv.v);
	elf_end(e);
	return 0;

out_nomem:
	ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
	free(rv.v);
	elf_end(e);
	return err;
}

int dso__load_debug_symtab(struct dso *d, int fd, int dbg_fd, bool demangle)
{
	struct raw_vec rv = {0};
	struct symtab t;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e, *dbg;
	int err = 0;

	/* libelf says no more than "cannot read": an allocation that failed set errno */
	errno = 0;
	dbg = elf_open(dbg_fd, NULL, 0, NULL);
	if (!dbg)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	errno = 0;
	e = elf_open(fd, NULL, 0, NULL);
	if (!e && errno == ENOMEM) { /* its PLT and entry point would go unnamed */
		elf_end(dbg);
		return -ENOMEM;
	}
	errno = 0; /* ENOMEM after: libelf failed to allocate (see dso__load_elf) */
	while (dbg && (scn = elf_nextscn(dbg, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			err = collect_syms(dbg, scn, &rv);
			break;
		}
	}
	if (!err && !rv.n)
		err = -ENOENT; /* nothing better than what d has */
	if (!err && e && !elf_getshdrstrndx(e, &shstrndx)) {
		err = collect_plt(e, shstrndx, &rv);
		/* the file's entry point, which the debug file's table may leave unnamed */
		if (!err)
			err = add_entry_sym(e, d->path, &rv);
	}
	if ((!err || err == -ENOENT) && errno == ENOMEM)
		err = -ENOMEM;
	if (!err)
		err = symtab__build(&t, &rv, demangle);
	if (!err) {
		symtab__exit(&d->symtab);
		d->symtab = t;
		d->has_symtab = true;
	}
	free(rv.v);
	if (e)
		elf_end(e);
	elf_end(dbg);
	return err;
}

int dso__read_facts(struct dso *d, int fd)
{
	size_t shstrndx;
	Elf *e;

	/* libelf says no more than "cannot read": an allocation that failed set errno */
	errno = 0;
	e = elf_open(fd, NULL, 0, NULL);
	if (!e)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	load_build_id(d, e);
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = SHN_UNDEF;
	load_debug_facts(d, e, shstrndx);
	elf_end(e);
	return errno == ENOMEM ? -ENOMEM : 0; /* a build-id or section not read for it */
}

/* The build-id of the ELF file open on fd, and whether it carries DWARF. */
int elf_fd__debug_facts(int fd, u8 *build_id, u8 *build_id_size, bool *has_dwarf)
{
	struct dso tmp;
	int e;

	memset(&tmp, 0, sizeof(tmp));
	e = dso__read_facts(&tmp, fd);
	if (e == -EINVAL)
		return e;
	memcpy(build_id, tmp.build_id, tmp.build_id_size);
	*build_id_size = tmp.build_id_size;
	*has_dwarf = tmp.has_dwarf;
	return e;
}

int elf_fd__altlink(int fd, char *name, size_t name_len, u8 *id, u8 *id_size)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	bool msb;
	size_t shstrndx;
	int found = 0;
	Elf *e;

	errno = 0;
	e = elf_open(fd, NULL, 0, NULL);
	if (!e)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = SHN_UNDEF;
	msb = gelf_getehdr(e, &eh) && eh.e_ident[EI_DATA] == ELFDATA2MSB;
	*id_size = 0;
	while (!found && (scn = elf_nextscn(e, scn))) {
		const unsigned char *p, *end;
		bool sup, is_sup = false;
		unsigned int shift = 0;
		const char *sname;
		Elf_Data *data;
		GElf_Shdr sh;
		size_t len;
		u64 n = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sname = section_name(e, shstrndx, &sh)))
			continue;
		sup = !strcmp(sname, ".debug_sup");
		if (!sup && strcmp(sname, ".gnu_debugaltlink"))
			continue;
		if (!(data = elf_getdata(scn, NULL)) || !data->d_buf || !data->d_size)
			continue;
		p = data->d_buf;
		end = p + data->d_size;
		if (sup) { /* u16 version, u8 is_supplementary, the name, ULEB length, checksum */
			if (data->d_size < 4 || (msb ? p[0] << 8 | p[1] : p[1] << 8 | p[0]) != 5)
				continue; /* DWARF 5's is version 5: another is not known */
			is_sup = p[2] != 0;
			p += 3;
		}
		len = strnlen((const char *)p, (size_t)(end - p));
		if ((!len && !is_sup) || p + len >= end || len >= name_len)
			continue;
		memcpy(name, p, len);
		name[len] = '\0';
		p += len + 1;
		if (sup) {
			while (p < end && shift < 64) {
				n |= (u64)(*p & 0x7f) << shift;
				shift += 7;
				if (!(*p++ & 0x80))
					break;
			}
			if (n > (u64)(end - p))
				n = 0;
		} else {
			n = (u64)(end - p);
		}
		if (n >= 4 && n <= 20) {
			memcpy(id, p, n);
			*id_size = (u8)n;
		}
		found = is_sup ? 2 : 1;
	}
	elf_end(e);
	return found ? found : errno == ENOMEM ? -ENOMEM : 0;
}
