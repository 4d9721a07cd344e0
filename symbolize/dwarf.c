// SPDX-License-Identifier: MIT
/*
 * dwarf.c - source lines and inline chains from DWARF, through libdwarf.
 *
 * A DSO's DWARF is opened once and indexed by compilation unit: the CU
 * headers and each CU DIE's address ranges are read at open, which is
 * cheap.  A CU's line table and DIE tree are decoded only when a lookup
 * first lands in it, into three sorted arrays:
 *
 *   rows      every line-table row, by address (stable: of several rows at
 *             one address the last wins, as addr2line has it; a sequence's
 *             end row sorts before a row starting the next one there)
 *   scopes    each subprogram and inlined instance: its name, its parent
 *             scope, and for an inlined one the call site
 *   segments  the CU's code cut into pieces that each have one innermost
 *             scope, found by a sweep over all scope ranges, so that a
 *             lookup is a binary search even where ranges overlap oddly
 *   decls     every subprogram DIE's declaration (file, line), with the
 *             function whose DIE encloses it (a lambda's, a local class's
 *             methods, a nested function's): a function's own source runs
 *             from its declaration to the next declaration in its file that
 *             it does not enclose (dwarf_info__source_span)
 *
 * Input may be hostile: every libdwarf call's result is checked, recursion
 * is bounded, every DW_AT_sibling is checked before libdwarf may follow it
 * and each unit's decoding has a budget of steps (die_next, die_step), and
 * a CU that fails to decode is marked and skipped.  Every
 * libdwarf object is freed in the function that obtained it; the strings
 * kept are copied into the info's own interned table.  What libdwarf
 * 20210528 cannot survive is kept from it: see lists_check().
 *
 * Why one file of ~3,100 lines: every part works on one DSO's open
 * libdwarf handle and the per-unit arrays it fills, under one rule (each
 * libdwarf result freed in the function that obtained it; libdwarf's types
 * never leave this file and dwarf_int.h).  Its sections, in order: one
 * unit's decoding, the walk of a unit's DIEs (inline trees, names, split
 * and supplementary units), the unit index, and the checks that keep
 * malformed sections from libdwarf 20210528.  The last of these could
 * stand alone; it stays here because it runs only inside the open.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include <gelf.h>

#include "symbolize/dwarf_compat.h"
#include "symbolize/dwarf_int.h"

#define note dwarf_note

/*
 * Remember the first problem: one line is enough to say what is missing.
 * While a unit is decoded, its own first problem too (dwarf_int.h).
 */
void dwarf_note(struct dwarf_info *di, const char *fmt, ...)
{
	va_list ap;

	di->nnotes++;
	if (di->capture && !di->cu_why[0]) {
		va_start(ap, fmt);
		vsnprintf(di->cu_why, sizeof(di->cu_why), fmt, ap);
		va_end(ap);
	}
	if (di->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(di->why, sizeof(di->why), fmt, ap);
	va_end(ap);
}

/*
 * What an earlier unit worked out is used again (a name, a line table),
 * and working it out met a problem, said then: the unit being decoded
 * does not know its own first problem, and is not kept in the cache.
 */
static void note_hidden(struct dwarf_info *di)
{
	di->nnotes++;
	if (di->capture)
		di->tainted = true;
}

/* Free a libdwarf error, and say that memory ran out when it did. */
static void free_error(struct dwarf_info *di, Dwarf_Error *err)
{
	if (*err) {
		if (dwarf_errno(*err) == DW_DLE_ALLOC_FAIL) {
			note(di, "%s", dwarf_errmsg(*err));
			di->oom = true; /* what was decoded may lack parts: not kept */
		}
		dwarf_dealloc_error(di->dbg, *err);
		*err = NULL;
	}
}

/* Say what a libdwarf error says, and free it. */
static void drop_error(struct dwarf_info *di, Dwarf_Error *err)
{
	if (*err && dwarf_errno(*err) != DW_DLE_ALLOC_FAIL)
		note(di, "%s", dwarf_errmsg(*err));
	free_error(di, err);
}

/*
 * One step of decoding the unit being walked (a DIE read, a reference
 * followed): false once its budget is spent, said once.  A DIE takes at
 * least a byte, is read once and its references followed a few times, so
 * STEPS_PER_BYTE steps for each byte of the unit are more than a unit needs
 * (gcc's and clang's take 0.07 to 0.2: SQLite, libc, C++), and bound what
 * any input can make the walk do, whatever its links say.
 */
static bool die_step(struct dwarf_info *di)
{
	if (di->steps) {
		di->steps--;
		return true;
	}
	if (!di->steps_spent) {
		di->steps_spent = true;
		note(di,
		     "the unit at .debug_info offset %#llx: its DIEs take more steps than its "
		     "%llu bytes allow: the rest of it not read",
		     (unsigned long long)di->walk_unit, (unsigned long long)di->walk_bytes);
	}
	return false;
}

/* s interned, its control characters made '?' first (ebs_strset__intern_clean). */
static const char *intern_text(struct dwarf_info *di, const char *s)
{
	const char *r = ebs_strset__intern_clean(&di->strs, s);

	if (!r) { /* a name or file missing: said (a warning), never silently */
		note(di, "out of memory reading names");
		di->oom = true;
	}
	return r;
}

/*
 * A source file's name as DWARF has it, when it held control characters:
 * file names are interned cleaned (control characters as '?'), for every
 * listing prints them, but a file is opened by its real name.  Several
 * names that clean into one are told apart by none: ambiguous.
 */
struct raw_name {
	UT_hash_handle hh;
	const char *shown; /* the cleaned name, interned: the key */
	char *raw;
	bool ambiguous;
};

/* Keep raw as what shown (interned) was cleaned from.  0 or -ENOMEM. */
static int raw_name_add(struct dwarf_info *di, const char *shown, const char *raw)
{
	struct raw_name *r;

	HASH_FIND_STR(di->raw, shown, r);
	if (r) {
		r->ambiguous |= strcmp(r->raw, raw) != 0;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->raw = strdup(raw))) {
		free(r);
		return -ENOMEM;
	}
	r->shown = shown;
	HASH_ADD_KEYPTR(hh, di->raw, r->shown, strlen(r->shown), r);
	if (!r->hh.tbl) {
		free(r->raw);
		free(r);
		return -ENOMEM;
	}
	return 0;
}

const char *dwarf_info__raw_name(const struct dwarf_info *di, const char *shown, bool *ambiguous)
{
	struct raw_name *r;

	*ambiguous = false;
	if (!di || !shown)
		return NULL;
	HASH_FIND_STR(di->raw, shown, r);
	if (!r)
		return NULL;
	*ambiguous = r->ambiguous;
	return r->raw;
}

bool dwarf_info__names_file(const struct dwarf_info *di, const char *file)
{
	return di && file && ebs_strset__find(di->strs, file) != NULL;
}

/* A function name as shown: demangled when asked and when it is mangled. */
static const char *intern_name(struct dwarf_info *di, const char *s)
{
	int err = 0;
	char *dm = di->demangle ? ebs_demangle_err(s, &err) : NULL;
	const char *r;

	if (err == -ENOMEM) { /* the mangled name instead: said */
		note(di, "out of memory demangling names");
		di->oom = true;
	}
	r = intern_text(di, dm ? dm : s);
	free(dm);
	return r;
}

static bool get_udata(struct dwarf_info *di, Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *out)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Signed sv = 0;
	Dwarf_Half form = 0;
	int r;

	if (dwarf_attr(die, at, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return false;
	}
	if (dwarf_whatform(attr, &form, &err) == DW_DLV_OK && form == DW_FORM_implicit_const) {
		/* DWARF 5's constant in the abbreviation: only formsdata reads it here */
		r = dwarf_formsdata(attr, &sv, &err);
		if (r == DW_DLV_OK && sv < 0)
			r = DW_DLV_NO_ENTRY;
		*out = (Dwarf_Unsigned)sv;
	} else {
		r = dwarf_formudata(attr, out, &err);
	}
	drop_error(di, &err);
	dwarf_dealloc_attribute(attr);
	return r == DW_DLV_OK;
}

/* An unsigned of len bytes (2, 4, 8) at p, in the file's byte order. */
static u64 get_un(const unsigned char *p, unsigned int len, bool msb)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v |= (u64)p[msb ? len - 1 - i : i] << (8 * i);
	return v;
}

/* Does form point into the supplementary file (dwz -m)? */
static bool form_is_alt(Dwarf_Half form)
{
	return form == DW_FORM_GNU_ref_alt || form == DW_FORM_ref_sup4 ||
	       form == DW_FORM_ref_sup8 || form == DW_FORM_GNU_strp_alt || form == DW_FORM_strp_sup;
}

static bool form_is_ref_sup(Dwarf_Half form)
{
	return form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8;
}

/*
 * An alt form met in a file that has no supplementary file open: when it
 * names one that is missing, that was said (open_alt); else the file
 * names none (or a .debug_sup that does not read): said here, once.
 */
static void alt_absent(struct dwarf_info *di, Dwarf_Half form)
{
	const char *name = NULL;

	if (di->alt_missing || di->alt_unnamed)
		return;
	di->alt_unnamed = true;
	note(di,
	     "%s points into a supplementary debug file (dwz), and the file names none (no "
	     ".gnu_debugaltlink, no .debug_sup of version 5 that reads): names of inlined "
	     "functions are missing",
	     dwarf_get_FORM_name(form, &name) == DW_DLV_OK && name ? name : "an alt form");
}

/*
 * Where .debug_info's bytes are, for sup_ref(): its file offset in di->fd,
 * or, when compressed, a copy decompressed (di->info_sec).  Looked for once;
 * false (said, once) when there is none to read, or two or more (which one
 * would libdwarf read?).
 */
static bool info_section(struct dwarf_info *di)
{
	Elf_Scn *scn = NULL, *found = NULL;
	GElf_Shdr sh, fsh = {0};
	const char *why = NULL;
	unsigned int n = 0;
	size_t shstrndx;
	Elf_Data *data;
	GElf_Ehdr eh;
	bool gnu = false;
	Elf *e;

	if (di->info_state)
		return di->info_state > 0;
	di->info_state = -1;
	e = elf_begin(di->fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getshdrstrndx(e, &shstrndx)) {
		why = "the section headers do not read";
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    (strcmp(name, ".debug_info") && strcmp(name, ".zdebug_info")))
			continue;
		n++;
		found = scn;
		fsh = sh;
		gnu = name[1] == 'z';
	}
	if (n != 1) {
		why = n ? "two .debug_info sections" : "no .debug_info section";
		goto out;
	}
	di->info_msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (fsh.sh_type == SHT_NOBITS) {
		why = ".debug_info has no bytes in the file (SHT_NOBITS)";
	} else if (!(fsh.sh_flags & SHF_COMPRESSED) && !gnu) {
		di->info_at = fsh.sh_offset;
		di->info_size = fsh.sh_size;
		di->info_state = 1;
	} else if (((fsh.sh_flags & SHF_COMPRESSED) && elf_compress(found, 0, 0) < 0) ||
		   (gnu && elf_compress_gnu(found, 0, 0) < 0) ||
		   !(data = elf_getdata(found, NULL)) || !data->d_buf) {
		why = ".debug_info does not decompress";
	} else if (!(di->info_sec = malloc(data->d_size ? data->d_size : 1))) {
		di->oom = true;
		why = "out of memory";
	} else {
		memcpy(di->info_sec, data->d_buf, data->d_size);
		di->info_size = data->d_size;
		di->info_state = 1;
	}
out:
	if (why)
		note(di,
		     "DW_FORM_ref_sup references (dwz -5) are not followed: %s: names of "
		     "inlined functions are missing",
		     why);
	if (e)
		elf_end(e);
	return di->info_state > 0;
}

/*
 * The value of a DW_FORM_ref_sup4/8 attribute of die: an offset in the
 * supplementary file's .debug_info (DWARF 5's dwz -5).  libdwarf (20210528
 * to 2.x) reads none (dwarf_global_formref: DW_DLE_BAD_REF_FORM), but says
 * where in .debug_info the value is (dwarf_attr_offset): read from there,
 * 4 or 8 bytes in the file's byte order.  False when it does not read
 * (said).
 */
static bool sup_ref(struct dwarf_info *di, Dwarf_Die die, Dwarf_Attribute attr, Dwarf_Half form,
		    Dwarf_Off *off)
{
	unsigned int len = form == DW_FORM_ref_sup8 ? 8 : 4;
	Dwarf_Error err = NULL;
	unsigned char b[8];
	Dwarf_Off at = 0;

	if (!dwarf_get_die_infotypes_flag(die)) { /* DWARF 4's .debug_types: not DWARF 5's */
		note(di, "a DW_FORM_ref_sup in .debug_types: not followed");
		return false;
	}
	if (!info_section(di))
		return false;
	if (dwarf_attr_offset(die, attr, &at, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return false;
	}
	if (at > di->info_size || di->info_size - at < len) {
		note(di, "a DW_FORM_ref_sup at .debug_info offset %#llx: past the section's end",
		     (unsigned long long)at);
		return false;
	}
	if (di->info_sec)
		memcpy(b, di->info_sec + at, len);
	else if (pread(di->fd, b, len, (off_t)(di->info_at + at)) != (ssize_t)len) {
		note(di, "a DW_FORM_ref_sup at .debug_info offset %#llx does not read",
		     (unsigned long long)at);
		return false;
	}
	*off = get_un(b, len, di->info_msb);
	return true;
}

/* A string attribute, interned (as a function name when is_name). */
static const char *get_string(struct dwarf_info *di, Dwarf_Die die, Dwarf_Half at, bool is_name)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	const char *r = NULL;
	char *s = NULL;

	if (dwarf_attr(die, at, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return NULL;
	}
	/*
	 * The string lives in libdwarf's section data: copy it, never free it.
	 * One in the supplementary file is read through it (tied to di->dbg);
	 * without it libdwarf makes up a "<DW_FORM_...-no-tied-file>": none.
	 */
	if (dwarf_whatform(attr, &form, &err) == DW_DLV_OK && form_is_alt(form) && !di->alt)
		alt_absent(di, form);
	else if (dwarf_formstring(attr, &s, &err) == DW_DLV_OK && s && *s)
		r = is_name ? intern_name(di, s) : intern_text(di, s);
	drop_error(di, &err);
	dwarf_dealloc_attribute(attr);
	return r;
}

/*
 * The DIE a reference attribute points to, or NULL.  die is in the
 * supplementary file when in_alt; so is the DIE returned when *alt: a
 * reference of that file's, or of the alt forms (DW_FORM_GNU_ref_alt,
 * DW_FORM_ref_sup4/8), whose offsets are in its .debug_info.  Without that
 * file such a reference leads nowhere (dwarf_attach said so once).
 */
static Dwarf_Die get_ref(struct dwarf_info *di, Dwarf_Die die, bool in_alt, Dwarf_Half at,
			 bool *alt)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Die target = NULL;
	Dwarf_Half form = 0;
	Dwarf_Debug dbg;
	Dwarf_Off off;
	int r;

	if (dwarf_attr(die, at, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return NULL;
	}
	if (!die_step(di)) {
		dwarf_dealloc_attribute(attr);
		return NULL;
	}
	if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK)
		form = 0;
	*alt = in_alt || form_is_alt(form);
	dbg = *alt ? di->alt : di->dbg;
	if (!dbg)
		alt_absent(di, form);
	if (!dbg)
		r = DW_DLV_NO_ENTRY;
	else if (!form_is_ref_sup(form))
		r = dwarf_global_formref(attr, &off, &err);
	else if (in_alt) /* the supplementary file's own: it has none of its own */
		r = DW_DLV_NO_ENTRY;
	else
		r = sup_ref(di, die, attr, form, &off) ? DW_DLV_OK : DW_DLV_NO_ENTRY;
	drop_error(di, &err);
	dwarf_dealloc_attribute(attr);
	if (r == DW_DLV_OK && dwarf_offdie_b(dbg, off, 1, &target, &err) != DW_DLV_OK) {
		/* libdwarf's word on a bad offset does not say which file's */
		if (*alt && err && dwarf_errno(err) != DW_DLE_ALLOC_FAIL) {
			note(di,
			     "a reference to .debug_info offset %#llx of its supplementary debug "
			     "file (dwz): no DIE there (%s)",
			     (unsigned long long)off, dwarf_errmsg(err));
			free_error(di, &err);
		}
		drop_error(di, &err);
		target = NULL;
	}
	return target;
}

/*
 * The name of a function DIE: its linkage name (the mangled one, shown
 * demangled), else its name, else those of the DIE it is an instance or a
 * definition of (abstract_origin, specification).  Cached by DIE offset:
 * many inlined instances share one origin.  *hops: the references followed
 * so far for this name, at most MAX_REF_HOPS in all (a limit on each path
 * instead would let links that loop take 2^MAX_REF_HOPS steps).
 */
static const char *die_name(struct dwarf_info *di, Dwarf_Die die, bool in_alt, unsigned int *hops)
{
	static const Dwarf_Half refs[] = {DW_AT_abstract_origin, DW_AT_specification};
	struct name_cache *nc;
	Dwarf_Error err = NULL;
	const char *name;
	Dwarf_Off off = 0;
	u64 notes;
	size_t i;

	if (dwarf_dieoffset(die, &off, &err) == DW_DLV_OK) {
		if (in_alt)
			off |= ALT_OFF; /* the supplementary file's offsets are apart */
		HASH_FIND(hh, di->names, &off, sizeof(off), nc);
		if (nc) {
			if (nc->noted)
				note_hidden(di);
			return nc->name;
		}
	}
	notes = di->nnotes;
	drop_error(di, &err);
	name = get_string(di, die, DW_AT_linkage_name, true);
	if (!name)
		name = get_string(di, die, DW_AT_MIPS_linkage_name, true);
	if (!name)
		name = get_string(di, die, DW_AT_name, true);
	for (i = 0; !name && *hops < MAX_REF_HOPS && i < ARRAY_SIZE(refs); i++) {
		bool alt = false;
		Dwarf_Die target = get_ref(di, die, in_alt, refs[i], &alt);

		if (target) {
			++*hops;
			name = die_name(di, target, alt, hops);
			dwarf_dealloc_die(target);
		}
	}
	if (off && (nc = calloc(1, sizeof(*nc)))) {
		nc->off = off;
		nc->name = name;
		nc->noted = di->nnotes != notes;
		HASH_ADD(hh, di->names, off, sizeof(nc->off), nc);
		if (!nc->hh.tbl)
			free(nc);
	}
	return name;
}

struct span_vec {
	u64 (*v)[2];
	size_t n, cap;
};

static int span_push(struct span_vec *sv, u64 lo, u64 hi)
{
	if (hi <= lo)
		return 0; /* empty or backwards: nothing to cover */
	if (ebs_grow((void **)&sv->v, &sv->cap, sv->n, sizeof(*sv->v), 8))
		return -ENOMEM;
	sv->v[sv->n][0] = lo;
	sv->v[sv->n][1] = hi;
	sv->n++;
	return 0;
}

/* An unsigned LEB128 at *p, not reading at or past end; false when it does not fit. */
static bool get_uleb(const unsigned char **p, const unsigned char *end, u64 *out)
{
	unsigned int shift = 0;
	u64 v = 0;

	while (*p < end) {
		unsigned char b = *(*p)++;

		if (shift < 64)
			v |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* The range list table holding section offset off, or NULL. */
static const struct rng_table *rng_table_at(const struct dwarf_info *di, u64 off)
{
	size_t i = ebs_upper_bound(di->rng_tables, di->nrng_tables, sizeof(di->rng_tables[0]),
				   offsetof(struct rng_table, start), off);

	return i && off < di->rng_tables[i - 1].end ? &di->rng_tables[i - 1] : NULL;
}

/* Address index idx of die's unit (.debug_addr), through libdwarf; false when none. */
static bool addr_at(struct dwarf_info *di, Dwarf_Die die, u64 idx, u64 *addr)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr a = 0;
	int r = dwarf_debug_addr_index_to_addr(die, idx, &a, &err);

	drop_error(di, &err);
	*addr = a;
	return r == DW_DLV_OK;
}

/*
 * DWARF 5 DW_AT_ranges: a list in .debug_rnglists, decoded here from the
 * section as lists_check() checked and kept it (rather than by libdwarf
 * 20210528's dwarf_rnglists_get_rle_head, which follows a DW_FORM_rnglistx
 * offset unchecked, and on an entry whose .debug_addr index does not
 * resolve makes an error, keeps going and may make another into the same
 * Dwarf_Error, leaking the first).  The list is DW_FORM_sec_offset's
 * section offset, or DW_FORM_rnglistx's index into the offset array at
 * rng_base (the unit's DW_AT_rnglists_base).  Offset pairs are relative to
 * base (the unit's low_pc) until a base address entry; *x entries are
 * .debug_addr indices, resolved by libdwarf for die's unit.  Every read is
 * bounded by the list's table; a list that does not decode keeps the
 * ranges decoded before, with a note.
 */
static int rnglists(struct dwarf_info *di, Dwarf_Die die, Dwarf_Attribute attr, u64 base,
		    u64 rng_base, struct span_vec *sv)
{
	const unsigned char *p, *end;
	const struct rng_table *t;
	Dwarf_Unsigned val = 0;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	u64 off, n;
	int r, e = 0;

	if (!di->rng) {
		note(di, "%s: DWARF 5 range lists not read",
		     di->rnglists_bad[0] ? di->rnglists_bad : "no .debug_rnglists to read");
		return 0;
	}
	if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0;
	}
	r = form == DW_FORM_rnglistx ? dwarf_formudata(attr, &val, &err)
				     : dwarf_global_formref(attr, &val, &err);
	drop_error(di, &err);
	if (r != DW_DLV_OK)
		return 0;
	off = val;
	if (form == DW_FORM_rnglistx) {
		t = rng_table_at(di, rng_base);
		if (!t || t->offsets != rng_base || val >= t->count) {
			note(di, ".debug_rnglists: no range list %llu at base %#llx",
			     (unsigned long long)val, (unsigned long long)rng_base);
			return 0;
		}
		off = rng_base + get_un(di->rng + rng_base + val * t->offsz, t->offsz, di->rng_msb);
	}
	t = rng_table_at(di, off);
	if (!t || off < t->offsets + t->count * t->offsz) {
		note(di, ".debug_rnglists: no range list at offset %#llx", (unsigned long long)off);
		return 0;
	}
	p = di->rng + off;
	end = di->rng + t->end;
	for (n = 0; p < end && !e; n++) {
		unsigned int code = *p++;
		u64 a = 0, b = 0, lo = 0, hi = 0; /* lo == hi: no range */
		bool ok;

		switch (code) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_addressx:
			ok = get_uleb(&p, end, &a) && addr_at(di, die, a, &base);
			break;
		case DW_RLE_startx_endx:
			ok = get_uleb(&p, end, &a) && get_uleb(&p, end, &b) &&
			     addr_at(di, die, a, &lo) && addr_at(di, die, b, &hi);
			break;
		case DW_RLE_startx_length:
			ok = get_uleb(&p, end, &a) && get_uleb(&p, end, &b) &&
			     addr_at(di, die, a, &lo);
			hi = lo + b;
			break;
		case DW_RLE_offset_pair:
			ok = get_uleb(&p, end, &a) && get_uleb(&p, end, &b);
			lo = base + a;
			hi = base + b;
			break;
		case DW_RLE_base_address:
		case DW_RLE_start_end:
		case DW_RLE_start_length:
			ok = (u64)(end - p) >= t->asz;
			if (ok) {
				a = get_un(p, t->asz, di->rng_msb);
				p += t->asz;
			}
			if (code == DW_RLE_base_address) {
				base = a;
			} else if (code == DW_RLE_start_end) {
				ok = ok && (u64)(end - p) >= t->asz;
				if (ok) {
					b = get_un(p, t->asz, di->rng_msb);
					p += t->asz;
				}
				lo = a;
				hi = b;
			} else {
				ok = ok && get_uleb(&p, end, &b);
				lo = a;
				hi = a + b;
			}
			break;
		default:
			ok = false;
			break;
		}
		if (!ok) {
			note(di,
			     ".debug_rnglists: the range list at offset %#llx does not decode (entry %llu)",
			     (unsigned long long)off, (unsigned long long)n);
			return e;
		}
		e = span_push(sv, lo, hi);
	}
	if (!e)
		note(di, ".debug_rnglists: the range list at offset %#llx runs past its table",
		     (unsigned long long)off);
	return e;
}

/* DWARF 2-4 DW_AT_ranges: a .debug_ranges list relative to the CU base. */
static int debug_ranges(struct dwarf_info *di, Dwarf_Die die, Dwarf_Attribute attr, u64 base,
			struct span_vec *sv)
{
	Dwarf_Ranges *rs = NULL;
	Dwarf_Signed n = 0, i;
	Dwarf_Unsigned bytes;
	Dwarf_Error err = NULL;
	Dwarf_Off off, real;
	int e = 0;

	if (dwarf_global_formref(attr, &off, &err) != DW_DLV_OK ||
	    dwarf_get_ranges_b(di->dbg, off, die, &real, &rs, &n, &bytes, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0;
	}
	for (i = 0; i < n && !e; i++) {
		if (rs[i].dwr_type == DW_RANGES_ENTRY)
			e = span_push(sv, base + rs[i].dwr_addr1, base + rs[i].dwr_addr2);
		else if (rs[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = rs[i].dwr_addr2;
		else
			break;
	}
	dwarf_dealloc_ranges(di->dbg, rs, n);
	return e;
}

/*
 * A DIE's DW_AT_high_pc as an address (a constant form is an offset from
 * lo).  Read by its form here: libdwarf 20210528's dwarf_highpc_b can fail
 * twice into one Dwarf_Error, leaking the first.  True when there is one.
 */
static bool get_highpc(struct dwarf_info *di, Dwarf_Die die, Dwarf_Addr lo, Dwarf_Addr *hi)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned v = 0;
	Dwarf_Half form = 0;
	int r;

	if (dwarf_attr(die, DW_AT_high_pc, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return false;
	}
	r = dwarf_whatform(attr, &form, &err);
	if (r == DW_DLV_OK) {
		switch (form) {
		case DW_FORM_addr:
		case DW_FORM_addrx:
		case DW_FORM_addrx1:
		case DW_FORM_addrx2:
		case DW_FORM_addrx3:
		case DW_FORM_addrx4:
		case DW_FORM_GNU_addr_index:
			r = dwarf_formaddr(attr, hi, &err);
			break;
		default:
			r = dwarf_formudata(attr, &v, &err);
			*hi = lo + v;
			break;
		}
	}
	drop_error(di, &err);
	dwarf_dealloc_attribute(attr);
	return r == DW_DLV_OK;
}

/* The address ranges of a DIE: low_pc/high_pc, or DW_AT_ranges. */
static int die_spans(struct dwarf_info *di, Dwarf_Die die, u16 version, u64 base, u64 rng_base,
		     struct span_vec *sv)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Addr lo, hi;
	int e;

	if (dwarf_attr(die, DW_AT_ranges, &attr, &err) == DW_DLV_OK) {
		e = version >= 5 ? rnglists(di, die, attr, base, rng_base, sv)
				 : debug_ranges(di, die, attr, base, sv);
		dwarf_dealloc_attribute(attr);
		return e;
	}
	drop_error(di, &err);
	if (dwarf_lowpc(die, &lo, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0;
	}
	if (!get_highpc(di, die, lo, &hi))
		return span_push(sv, lo, lo + 1); /* a lone address */
	return span_push(sv, lo, hi);
}

/* ---- decoding one CU ---------------------------------------------------- */

static int add_scope(struct dw_cu *cu, const struct dw_scope *sc, u32 *index)
{
	if (cu->nscopes >= NO_SCOPE - 1)
		return -E2BIG;
	if (ebs_grow((void **)&cu->scopes, &cu->cap_scopes, cu->nscopes, sizeof(*cu->scopes), 64))
		return -ENOMEM;
	cu->scopes[cu->nscopes] = *sc;
	*index = (u32)cu->nscopes++;
	return 0;
}

static int add_range(struct dw_cu *cu, u64 lo, u64 hi, u32 scope)
{
	if (ebs_grow((void **)&cu->ranges, &cu->cap_ranges, cu->nranges, sizeof(*cu->ranges), 64))
		return -ENOMEM;
	cu->ranges[cu->nranges++] = (struct dw_range){lo, hi, scope};
	return 0;
}

/*
 * Does the libdwarf we run with start a DWARF 5 line program's file
 * register at 0?  DWARF 5 (table 6.4) starts it at 1, as every earlier
 * version did; libdwarf until 0.5.0 (its issue 137, fixed in late 2022;
 * Debian 12 has 20210528) starts it at 0, so rows before the program's
 * first DW_LNS_set_file name file 0.  Versions were dates until 0.1.
 */
static bool libdwarf_file_register_starts_at_0(void)
{
	const char *v = dwarf_package_version();
	unsigned int major = 0, minor = 0;

	if (!v || strspn(v, "0123456789") >= 8)
		return true; /* "20210528" */
	return sscanf(v, "%u.%u", &major, &minor) == 2 && major == 0 && minor < 5;
}

/* A file number (of a DIE attribute, or a row's) as an index into cu->files. */
static u32 file_index(const struct dw_cu *cu, Dwarf_Unsigned fno)
{
	/* DWARF 5 numbers files from 0, earlier versions from 1 */
	if (cu->line_version < 5) {
		if (fno == 0)
			return NO_SCOPE;
		fno--;
	}
	return fno < cu->nfiles ? (u32)fno : NO_SCOPE;
}

/*
 * The file and line where die is declared: its own DW_AT_decl_file and
 * DW_AT_decl_line, else those of the DIE it is an instance or a
 * definition of, within the same CU (a file number means nothing in
 * another CU's table).  *hops: as die_name's.
 */
static void decl_at(struct dwarf_info *di, struct dw_cu *cu, Dwarf_Die die, unsigned int *hops,
		    const char **file, u32 *line)
{
	static const Dwarf_Half refs[] = {DW_AT_abstract_origin, DW_AT_specification};
	Dwarf_Unsigned f, l;
	Dwarf_Error err = NULL;
	size_t i;

	if (get_udata(di, die, DW_AT_decl_line, &l) && l && l <= UINT32_MAX) {
		u32 fi = get_udata(di, die, DW_AT_decl_file, &f) ? file_index(cu, f) : NO_SCOPE;

		*file = fi < cu->nfiles ? cu->files[fi] : NULL;
		*line = (u32)l;
		return;
	}
	for (i = 0; *hops < MAX_REF_HOPS && i < ARRAY_SIZE(refs) && !*line; i++) {
		bool alt = false;
		Dwarf_Die target = get_ref(di, die, false, refs[i], &alt);
		Dwarf_Off cu_off = 0;

		if (!target)
			continue;
		++*hops;
		/* the supplementary file's DIE numbers files of another table */
		if (!alt && dwarf_CU_dieoffset_given_die(target, &cu_off, &err) == DW_DLV_OK &&
		    cu_off == cu->die_off)
			decl_at(di, cu, target, hops, file, line);
		drop_error(di, &err);
		dwarf_dealloc_die(target);
	}
}

/* The offset a reference attribute of die points to, or 0. */
static Dwarf_Off ref_off(struct dwarf_info *di, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Off off = 0;

	if (dwarf_attr(die, at, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0;
	}
	if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK)
		form = 0;
	if (form_is_ref_sup(form) ? !sup_ref(di, die, attr, form, &off)
				  : dwarf_global_formref(attr, &off, &err) != DW_DLV_OK)
		off = 0;
	else if (form_is_alt(form))
		off |= ALT_OFF; /* never one of this file's DIEs */
	drop_error(di, &err);
	dwarf_dealloc_attribute(attr);
	return off;
}

/* The subprogram scope that scope sc lies in (itself, for a subprogram). */
static u32 top_scope(const struct dw_cu *cu, u32 sc)
{
	unsigned int hops = 0;

	while (sc != NO_SCOPE && cu->scopes[sc].parent != NO_SCOPE && hops++ < MAX_DEPTH)
		sc = cu->scopes[sc].parent;
	return sc;
}

/* Record a subprogram DIE's declaration; *index gets its place in cu->decls. */
static int add_decl(struct dwarf_info *di, struct dw_cu *cu, Dwarf_Die die, u32 parent, u32 *index)
{
	struct dw_decl d = {0};
	Dwarf_Error err = NULL;
	unsigned int hops = 0;

	*index = NO_SCOPE;
	if (dwarf_dieoffset(die, &d.off, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0;
	}
	d.ref = ref_off(di, die, DW_AT_specification);
	if (!d.ref)
		d.ref = ref_off(di, die, DW_AT_abstract_origin);
	decl_at(di, cu, die, &hops, &d.file, &d.line);
	hops = 0;
	d.name = die_name(di, die, false, &hops);
	d.encl = top_scope(cu, parent);
	if (cu->ndecls >= NO_SCOPE - 1)
		return -E2BIG;
	if (ebs_grow((void **)&cu->decls, &cu->cap_decls, cu->ndecls, sizeof(*cu->decls), 64))
		return -ENOMEM;
	cu->decls[cu->ndecls] = d;
	*index = (u32)cu->ndecls++;
	return 0;
}

/* A subprogram or inlined instance with code: a scope and its ranges. */
static int add_code_scope(struct dwarf_info *di, struct dw_cu *cu, Dwarf_Die die, Dwarf_Half tag,
			  u32 parent, u32 depth, u32 decl, u32 *index)
{
	struct span_vec sv = {0};
	struct dw_scope sc = {0};
	unsigned int hops = 0;
	Dwarf_Unsigned v;
	size_t i;
	int e;

	*index = NO_SCOPE;
	e = die_spans(di, die, cu->version, cu->base, cu->rng_base, &sv);
	if (e || !sv.n)
		goto out; /* a declaration or an abstract instance: no code */
	sc.name = die_name(di, die, false, &hops);
	sc.parent = tag == DW_TAG_inlined_subroutine ? parent : NO_SCOPE;
	sc.depth = depth;
	sc.call_file = NO_SCOPE;
	sc.decl = decl;
	if (tag == DW_TAG_inlined_subroutine) {
		if (get_udata(di, die, DW_AT_call_file, &v))
			sc.call_file = file_index(cu, v);
		if (get_udata(di, die, DW_AT_call_line, &v) && v <= UINT32_MAX)
			sc.call_line = (u32)v;
		if (get_udata(di, die, DW_AT_call_column, &v) && v <= UINT32_MAX)
			sc.call_column = (u32)v;
	}
	e = add_scope(cu, &sc, index);
	for (i = 0; !e && i < sv.n; i++)
		e = add_range(cu, sv.v[i][0], sv.v[i][1], *index);
out:
	free(sv.v);
	return e;
}

/* ---- walking a unit's DIEs ---------------------------------------------- */

/*
 * A walk over one unit's DIEs (decoding it, or finding its functions'
 * ranges).  libdwarf reads the DIEs, and dwarf_siblingof_b follows a DIE's
 * DW_AT_sibling wherever it points; asked for the sibling of a DIE that
 * has children and no DW_AT_sibling of its own, it passes through those
 * children, following theirs.  One that points at its own DIE sends
 * libdwarf 20210528 round for ever, inside that one call (2.x says it is
 * corrupt), and one pointing anywhere else in the unit is followed to
 * what may not be a DIE.  So each link libdwarf would follow is checked
 * before it does (die_next), which means reading the children libdwarf
 * would pass through first, and each DIE read must lie after the last one
 * (die_after): the walk reads each DIE once, in the order they are laid
 * out, and the unit's bytes bound it.
 */
#define SIB_CODES 4096

struct die_walk {
	struct dwarf_info *di;
	Dwarf_Off unit; /* the unit's header: its offset in .debug_info */
	Dwarf_Off end;	/* one past its last byte */
	Dwarf_Off last; /* the offset of the last DIE read */
	/*
	 * A list of DIEs was left before its end (a bad DW_AT_sibling, a DIE
	 * out of place, nesting too deep): libdwarf must not pass through what
	 * was not read, so the walk goes on only past an enclosing DIE whose
	 * own DW_AT_sibling leads past it all (die_next).
	 */
	bool broken;
	/*
	 * The abbreviation codes (below SIB_CODES) of the unit whose DIEs have
	 * no DW_AT_sibling: an abbreviation lists a DIE's attributes, so one
	 * DIE of a code says it for all, and the others are not asked (most
	 * DIEs have none, and asking is most of what the checks cost).
	 */
	u64 no_sibling[SIB_CODES / 64];
};

/* Start a walk over the unit of cu_die, with its budget of steps; false when it cannot. */
static bool walk_begin(struct dwarf_info *di, struct die_walk *w, Dwarf_Die cu_die)
{
	Dwarf_Error err = NULL;
	Dwarf_Off len = 0;

	memset(w, 0, sizeof(*w));
	w->di = di;
	if (dwarf_die_CU_offset_range(cu_die, &w->unit, &len, &err) != DW_DLV_OK ||
	    dwarf_dieoffset(cu_die, &w->last, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return false;
	}
	w->end = w->unit + len;
	di->walk_unit = w->unit;
	di->walk_bytes = len;
	di->steps = len * STEPS_PER_BYTE;
	if (di->steps_cap && di->steps > di->steps_cap)
		di->steps = di->steps_cap;
	di->steps_spent = false;
	return true;
}

/*
 * Is die laid out after the last DIE read?  A unit's DIEs are read in the
 * order they are laid out, children after their parent and each sibling
 * after the last DIE of the one before.  When not, the list is left.
 */
static bool die_after(struct die_walk *w, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off = 0;

	if (dwarf_dieoffset(die, &off, &err) != DW_DLV_OK) {
		drop_error(w->di, &err);
		w->broken = true;
		return false;
	}
	if (off <= w->last) {
		note(w->di,
		     "the unit at .debug_info offset %#llx: a DIE at %#llx is not after the last "
		     "one read, at %#llx: DIEs after it skipped",
		     (unsigned long long)w->unit, (unsigned long long)off,
		     (unsigned long long)w->last);
		w->broken = true;
		return false;
	}
	w->last = off;
	return true;
}

/* The first child of die (at nesting level): DW_DLV_OK, or DW_DLV_NO_ENTRY. */
static int die_first(struct die_walk *w, Dwarf_Die die, int level, Dwarf_Die *child)
{
	Dwarf_Error err = NULL;
	int r;

	if (w->broken || !die_step(w->di))
		return DW_DLV_NO_ENTRY;
	if (level > MAX_DEPTH) {
		note(w->di, "the unit at .debug_info offset %#llx: DIEs nested deeper than %d",
		     (unsigned long long)w->unit, MAX_DEPTH);
		w->broken = true;
		return DW_DLV_NO_ENTRY;
	}
	r = dwarf_child(die, child, &err);
	drop_error(w->di, &err);
	if (r == DW_DLV_OK && !die_after(w, *child)) {
		dwarf_dealloc_die(*child);
		r = DW_DLV_NO_ENTRY;
	}
	return r == DW_DLV_OK ? r : DW_DLV_NO_ENTRY;
}

enum sibling {
	SIB_NONE,   /* libdwarf passes through the DIE's children to its sibling */
	SIB_FOLLOW, /* libdwarf goes to the DIE's DW_AT_sibling, which holds */
	SIB_BAD,    /* a DW_AT_sibling that does not hold: said */
};

/*
 * What dwarf_siblingof_b would do with die's DW_AT_sibling, checked: it
 * must lead strictly forward, past die and every DIE read in it, and stay
 * inside the unit.  libdwarf follows DW_FORM_ref1, ref2, ref4, ref8 and
 * ref_udata (offsets in the unit), passes over DW_FORM_ref_addr (one that
 * does not hold is bad all the same), and fails on any other form.
 */
static enum sibling sibling_of(struct die_walk *w, Dwarf_Die die, Dwarf_Off off)
{
	struct dwarf_info *di = w->di;
	enum sibling s = SIB_FOLLOW;
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	/* an int before libdwarf 0.1, a Dwarf_Unsigned since */
	Dwarf_Unsigned code = (Dwarf_Unsigned)dwarf_die_abbrev_code(die);
	const char *name = NULL;
	Dwarf_Off to = 0;
	char why[64];
	int r;

	if (code && code < SIB_CODES && (w->no_sibling[code / 64] >> (code % 64) & 1))
		return SIB_NONE;
	r = dwarf_attr(die, DW_AT_sibling, &attr, &err);
	if (r == DW_DLV_NO_ENTRY && code && code < SIB_CODES)
		w->no_sibling[code / 64] |= 1ull << (code % 64);
	if (r != DW_DLV_OK) {
		drop_error(di, &err);
		return SIB_NONE;
	}
	r = dwarf_whatform(attr, &form, &err);
	switch (form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		break;
	case DW_FORM_ref_addr:
		s = SIB_NONE;
		break;
	default:
		r = DW_DLV_ERROR;
		break;
	}
	if (r == DW_DLV_OK)
		r = dwarf_global_formref(attr, &to, &err);
	free_error(di, &err); /* what is wrong is said below */
	dwarf_dealloc_attribute(attr);
	if (r != DW_DLV_OK && s == SIB_FOLLOW)
		snprintf(why, sizeof(why), "points past the unit");
	else if (r != DW_DLV_OK)
		snprintf(why, sizeof(why), "is not an offset in its unit (%s)",
			 dwarf_get_FORM_name(form, &name) == DW_DLV_OK && name ? name
									       : "a form unknown");
	else if (to == off)
		snprintf(why, sizeof(why), "points at the DIE itself");
	else if (to < off)
		snprintf(why, sizeof(why), "points back, to %#llx", (unsigned long long)to);
	else if (to <= w->last)
		snprintf(why, sizeof(why), "points into the DIE's own, at %#llx",
			 (unsigned long long)to);
	else if (to >= w->end)
		snprintf(why, sizeof(why), "points past the unit, to %#llx",
			 (unsigned long long)to);
	else
		return s;
	note(di,
	     "the unit at .debug_info offset %#llx: the DW_AT_sibling of the DIE at %#llx %s: "
	     "DIEs after it skipped",
	     (unsigned long long)w->unit, (unsigned long long)off, why);
	return SIB_BAD;
}

static void die_skim(struct die_walk *w, Dwarf_Die die, int level);

/*
 * The DIE after die in its list, in *next: DW_DLV_OK, or DW_DLV_NO_ENTRY at
 * the list's end and where the walk cannot go on.  read: die's children
 * were read (walk), so libdwarf may pass through them; else, when libdwarf
 * would, they are read here first (die_skim).  level: die's nesting.
 */
static int die_next(struct die_walk *w, Dwarf_Die die, int level, bool read, Dwarf_Die *next)
{
	struct dwarf_info *di = w->di;
	Dwarf_Error err = NULL;
	Dwarf_Half kids = 0;
	Dwarf_Off off = 0;
	enum sibling s;
	int r;

	if (di->steps_spent)
		return DW_DLV_NO_ENTRY;
	if (dwarf_dieoffset(die, &off, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		w->broken = true;
		return DW_DLV_NO_ENTRY;
	}
	s = sibling_of(w, die, off);
	if (s == SIB_NONE && !read && !w->broken &&
	    dwarf_die_abbrev_children_flag(die, &kids) == DW_DLV_OK && kids)
		die_skim(w, die, level);
	if (w->broken && s == SIB_FOLLOW)
		w->broken = false; /* die's own DW_AT_sibling leads past what was not read */
	if (s == SIB_BAD)
		w->broken = true;
	if (w->broken || !die_step(di))
		return DW_DLV_NO_ENTRY;
	r = dwarf_siblingof_b(di->dbg, die, 1, next, &err);
	drop_error(di, &err);
	if (r == DW_DLV_OK && !die_after(w, *next)) {
		dwarf_dealloc_die(*next);
		r = DW_DLV_NO_ENTRY;
	}
	return r == DW_DLV_OK ? r : DW_DLV_NO_ENTRY;
}

/* Read die's children, and theirs where libdwarf would pass through them, keeping nothing. */
static void die_skim(struct die_walk *w, Dwarf_Die die, int level)
{
	Dwarf_Die child = NULL, next = NULL;
	int r = die_first(w, die, level, &child);

	while (r == DW_DLV_OK) {
		r = die_next(w, child, level + 1, false, &next);
		dwarf_dealloc_die(child);
		child = next;
	}
}

/*
 * Walk the children of die, at nesting level.  parent is the scope code
 * inside them belongs to (NO_SCOPE outside any function), depth its
 * nesting.
 */
static int walk(struct die_walk *w, struct dw_cu *cu, Dwarf_Die die, u32 parent, u32 depth,
		int level)
{
	struct dwarf_info *di = w->di;
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL, next = NULL;
	int r, e = 0;

	r = die_first(w, die, level, &child);
	while (r == DW_DLV_OK && !e) {
		Dwarf_Half tag = 0;
		bool read = false;
		u32 scope, decl;

		if (dwarf_tag(child, &tag, &err) != DW_DLV_OK)
			drop_error(di, &err);
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			/* an inlined instance outside any function is corrupt */
			if (tag == DW_TAG_inlined_subroutine && parent == NO_SCOPE)
				break;
			decl = NO_SCOPE;
			if (tag == DW_TAG_subprogram)
				e = add_decl(di, cu, child, parent, &decl);
			if (!e)
				e = add_code_scope(di, cu, child, tag, parent,
						   tag == DW_TAG_subprogram ? 0 : depth + 1, decl,
						   &scope);
			if (!e && scope != NO_SCOPE) {
				e = walk(w, cu, child, scope, cu->scopes[scope].depth, level + 1);
				read = true;
			}
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			e = walk(w, cu, child, parent, depth, level + 1);
			read = true;
			break;
		default:
			break;
		}
		next = NULL;
		r = e ? DW_DLV_NO_ENTRY : die_next(w, child, level + 1, read, &next);
		dwarf_dealloc_die(child);
		child = next;
	}
	return e;
}

int dwarf_row_cmp(const void *pa, const void *pb)
{
	const struct dw_row *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if ((a->seq_end & ROW_END) != (b->seq_end & ROW_END))
		return a->seq_end & ROW_END ? -1 : 1;
	return (a->seq_end >> 1) < (b->seq_end >> 1) ? -1 : (a->seq_end >> 1) > (b->seq_end >> 1);
}

struct row_run {
	size_t start, len;
	const struct dw_row *rows;
};

static int run_cmp(const void *pa, const void *pb)
{
	const struct row_run *a = pa, *b = pb;

	return dwarf_row_cmp(&a->rows[a->start], &b->rows[b->start]);
}

/*
 * Sort a unit's rows by dwarf_row_cmp, a total order (positions differ), so
 * that any sort gives the one answer.  A line table is a few sequences,
 * each mostly in address order: where its runs in order do not overlap,
 * they are put in order whole instead of sorted row by row (qsort was
 * a tenth of a cold report of SQLite's one 250,000-line unit).
 */
void dwarf_sort_rows(struct dw_row *rows, size_t n)
{
	struct row_run *runs = NULL;
	struct dw_row *out = NULL;
	size_t nruns = 0, i, at;

	for (i = 1; i < n; i++)
		if (dwarf_row_cmp(&rows[i - 1], &rows[i]) > 0)
			nruns++;
	if (!nruns)
		return; /* in order */
	nruns++;
	if (nruns <= n / 8) {
		runs = malloc(nruns * sizeof(*runs));
		out = malloc(n * sizeof(*out));
	}
	if (!runs || !out)
		goto sort;
	runs[0] = (struct row_run){0, 0, rows};
	for (i = 1, at = 0; i < n; i++)
		if (dwarf_row_cmp(&rows[i - 1], &rows[i]) > 0) {
			runs[at].len = i - runs[at].start;
			runs[++at] = (struct row_run){i, 0, rows};
		}
	runs[at].len = n - runs[at].start;
	qsort(runs, nruns, sizeof(*runs), run_cmp);
	for (i = 1; i < nruns; i++)
		if (dwarf_row_cmp(&rows[runs[i - 1].start + runs[i - 1].len - 1],
				  &rows[runs[i].start]) > 0)
			goto sort; /* they overlap */
	for (i = 0, at = 0; i < nruns; i++) {
		memcpy(&out[at], &rows[runs[i].start], runs[i].len * sizeof(*out));
		at += runs[i].len;
	}
	memcpy(rows, out, n * sizeof(*rows));
	free(runs);
	free(out);
	return;
sort:
	free(runs);
	free(out);
	qsort(rows, n, sizeof(*rows), dwarf_row_cmp);
}

/*
 * ctx's files: each one's name and directory entry, or none at all when
 * the table names a file without a name or a directory it lacks.  That
 * is the rule of Debian 12's libdwarf (20210528), whose dwarf_srcfiles
 * ebs asked for the names before it made them itself (unit_files), and
 * which could not take such a table: it checks the directory number only
 * against the count of entries, which DWARF 5 numbers from 0, so a file
 * naming directory N of N entries had it read the pointer past the end
 * of its directory array (a crash, or garbage in a file name: ASan does
 * not see inside libdwarf); and where a path could not be made it
 * returned the error without freeing the paths made before.
 *
 * libdwarf finds file i by walking its list from the start, so asking
 * for every file costs count^2 / 2 steps: a table of more than
 * MAX_LINE_FILES files gets no names, and the verdict on a table, with
 * its files, is kept by its offset, as many units may share one table.
 * 0, or -ENOMEM.
 */
#define MAX_LINE_FILES 16384

static int table_files(struct dwarf_info *di, Dwarf_Line_Context ctx, Dwarf_Unsigned version,
		       struct table_verdict *tv)
{
	Dwarf_Signed base = 0, count = 0, end = 0, ndirs = 0, i;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned limit;

	tv->ok = false;
	if (dwarf_srclines_files_indexes(ctx, &base, &count, &end, &err) != DW_DLV_OK ||
	    dwarf_srclines_include_dir_count(ctx, &ndirs, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0;
	}
	if (count < 0 || ndirs < 0 || end - base > MAX_LINE_FILES) {
		note(di, "a line table of %lld files", (long long)count);
		return 0;
	}
	if (end > base) {
		tv->names = calloc((size_t)(end - base), sizeof(*tv->names));
		tv->dirs = calloc((size_t)(end - base), sizeof(*tv->dirs));
		if (!tv->names || !tv->dirs)
			return -ENOMEM;
	}
	/* DWARF 5: directories 0 .. ndirs - 1; before: 0 (the unit's own) .. ndirs */
	limit = version == 5 ? (Dwarf_Unsigned)ndirs - 1 : (Dwarf_Unsigned)ndirs;
	for (i = base; i < end; i++) {
		const char *name = NULL, *dname = NULL;
		Dwarf_Unsigned dir = 0, mtime, len;
		Dwarf_Form_Data16 *md5 = NULL;
		int r;

		r = dwarf_srclines_files_data_b(ctx, i, &name, &dir, &mtime, &len, &md5, &err);
		drop_error(di, &err);
		if (r != DW_DLV_OK || !name || dir > limit || (version == 5 && !ndirs)) {
			note(di, "a line table names a file with no name or a directory it lacks");
			return 0;
		}
		/* before DWARF 5, directory 0 is the unit's DW_AT_comp_dir, not in the table */
		if ((version == 5 || dir) &&
		    dwarf_srclines_include_dir_data(ctx, (Dwarf_Signed)dir, &dname, &err) !=
			    DW_DLV_OK)
			dname = NULL;
		drop_error(di, &err);
		/* as they are: unit_files cleans the names it joins them into */
		tv->names[i - base] = ebs_strset__intern(&di->strs, name);
		tv->dirs[i - base] = dname ? ebs_strset__intern(&di->strs, dname) : NULL;
		if (!tv->names[i - base] || (dname && !tv->dirs[i - base]))
			return -ENOMEM;
	}
	tv->nfiles = (u32)(end - base);
	tv->ok = true;
	return 0;
}

static void verdict_clear(struct table_verdict *tv)
{
	free(tv->names);
	free(tv->dirs);
	tv->names = tv->dirs = NULL;
	tv->nfiles = 0;
}

/*
 * The verdict on the unit's line table (ctx), kept by the table's offset;
 * in *local when it is not kept (the caller clears it).  NULL when out of
 * memory.
 */
static const struct table_verdict *line_table(struct dwarf_info *di, Dwarf_Die cu_die,
					      Dwarf_Line_Context ctx, Dwarf_Unsigned version,
					      struct table_verdict *local)
{
	struct table_verdict *tv = local;
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Off off = 0;
	bool known = false;
	u64 notes;

	/* the offset dwarf_srclines_b read the table at */
	if (dwarf_attr(cu_die, DW_AT_stmt_list, &attr, &err) == DW_DLV_OK) {
		known = dwarf_global_formref(attr, &off, &err) == DW_DLV_OK;
		drop_error(di, &err);
		dwarf_dealloc_attribute(attr);
	}
	drop_error(di, &err);
	if (known) {
		HASH_FIND(hh, di->tables, &off, sizeof(off), tv);
		if (tv) {
			if (tv->noted)
				note_hidden(di);
			return tv;
		}
		tv = calloc(1, sizeof(*tv));
		if (!tv)
			tv = local;
	}
	notes = di->nnotes;
	if (table_files(di, ctx, version, tv)) {
		verdict_clear(tv);
		if (tv != local)
			free(tv);
		return NULL;
	}
	if (!tv->ok)
		verdict_clear(tv);
	tv->noted = di->nnotes != notes;
	if (tv != local) {
		tv->off = off;
		HASH_ADD(hh, di->tables, off, sizeof(tv->off), tv);
		if (!tv->hh.tbl) { /* not kept: this unit's alone */
			*local = *tv;
			free(tv);
			tv = local;
		}
	}
	return tv;
}

/*
 * The unit's file names, from its table's: a name that is absolute as it
 * is, else joined to its directory entry where that is absolute, else to
 * the unit's DW_AT_comp_dir and the directory entry; cleaned (control
 * characters as '?'), the name as joined kept in di->raw when that
 * changed it.  That is what
 * libdwarf 20210528's dwarf_srcfiles made, and what elfutils, binutils
 * and LLVM print.  Later libdwarf (0.8 on) joins a DWARF 5 table's
 * relative entries to its directory 0 instead of DW_AT_comp_dir, which
 * for Debian's glibc (comp_dir and directory 0 both "./elf") makes
 * "./elf/x.c" of what the others call "./elf/./elf/x.c"; joined here,
 * the names are the same with every libdwarf.
 */
static int unit_files(struct dwarf_info *di, struct dw_cu *cu, Dwarf_Line_Context ctx,
		      const struct table_verdict *tv)
{
	const char *comp = NULL;
	Dwarf_Error err = NULL;
	char *path = NULL;
	size_t cap = 0;
	u32 i;

	if (dwarf_srclines_comp_dir(ctx, &comp, &err) != DW_DLV_OK)
		comp = NULL;
	drop_error(di, &err);
	cu->files = calloc(tv->nfiles, sizeof(*cu->files));
	if (!cu->files)
		return -ENOMEM;
	for (i = 0; i < tv->nfiles; i++) {
		const char *part[3] = {comp, tv->dirs[i], tv->names[i]};
		size_t k, first, len = 1, at = 0;

		/* an absolute part drops those before it */
		first = part[2][0] == '/' ? 2 : part[1] && part[1][0] == '/' ? 1 : 0;
		for (k = first; k < 3; k++)
			len += part[k] ? strlen(part[k]) + 1 : 0;
		if (len > cap) {
			char *n = realloc(path, len);

			if (!n) {
				free(path);
				return -ENOMEM;
			}
			path = n;
			cap = len;
		}
		for (k = first; k < 3; k++) {
			size_t n = part[k] ? strlen(part[k]) : 0;

			if (!n)
				continue;
			if (at && path[at - 1] != '/')
				path[at++] = '/';
			memcpy(path + at, part[k], n);
			at += n;
		}
		path[at] = 0;
		cu->files[i] = intern_text(di, path);
		if (cu->files[i] && strcmp(cu->files[i], path)) {
			if (raw_name_add(di, cu->files[i], path)) {
				free(path);
				return -ENOMEM;
			}
			cu->raw_names = true;
		}
	}
	cu->nfiles = tv->nfiles;
	free(path);
	return 0;
}

/*
 * Which rows of the DWARF 5 line program at .debug_line offset off come
 * before the first DW_LNS_set_file of their sequence (the file register at
 * its default, 1): *flags gets one byte per row, in program order (1: at
 * the default), as libdwarf lists them.  For a libdwarf that starts the
 * register at 0 and so calls those rows file 0, which an explicit
 * DW_LNS_set_file 0 also gives (clang relies on the default for the first
 * function when it is a header's, and sets file 0 for the .c file's).
 * The number of rows, or -1 when the program does not read (*flags NULL).
 */
static long default_rows(const u8 *sec, u64 size, u64 off, bool msb, u8 **flags)
{
	const u8 *p, *end, *prog, *lens;
	u64 len, hlen, n = 0, cap = 0;
	unsigned int offsz = 4, opbase;
	bool dflt = true;
	u8 *f = NULL;

	*flags = NULL;
	if (off >= size || size - off < 4)
		return -1;
	p = sec + off;
	len = get_un(p, 4, msb);
	p += 4;
	if (len == 0xffffffff) {
		if ((u64)(sec + size - p) < 8)
			return -1;
		len = get_un(p, 8, msb);
		p += 8;
		offsz = 8;
	}
	if (len > (u64)(sec + size - p) || len < 2 + 2 + offsz + 6)
		return -1;
	end = p + len;
	if (get_un(p, 2, msb) != 5)
		return -1;
	p += 4; /* version, address_size, segment_selector_size */
	hlen = get_un(p, offsz, msb);
	p += offsz;
	if (hlen > (u64)(end - p) || hlen < 6)
		return -1;
	prog = p + hlen;
	opbase = p[5]; /* after min_inst_length, max_ops, default_is_stmt, line_base, line_range */
	lens = p + 6;
	if (!opbase || (u64)(prog - lens) < opbase - 1u)
		return -1;
	for (p = prog; p < end;) {
		unsigned int op = *p++;
		bool row = false;
		u64 v;

		if (op >= opbase) {
			row = true;
		} else if (op == 0) { /* extended: length, sub-opcode, operands */
			if (!get_uleb(&p, end, &v) || !v || v > (u64)(end - p))
				goto bad;
			if (*p == DW_LNE_end_sequence)
				row = true;
			p += v;
		} else if (op == DW_LNS_copy) {
			row = true;
		} else if (op == DW_LNS_fixed_advance_pc) {
			if (end - p < 2)
				goto bad;
			p += 2;
		} else {
			unsigned int k;

			for (k = 0; k < lens[op - 1]; k++)
				if (!get_uleb(&p, end, &v))
					goto bad;
			if (op == DW_LNS_set_file)
				dflt = false;
		}
		if (!row)
			continue;
		if (n == cap) {
			u8 *g = realloc(f, cap ? cap * 2 : 256);

			if (!g)
				goto bad;
			f = g;
			cap = cap ? cap * 2 : 256;
		}
		f[n++] = dflt;
		if (op == 0) /* the sequence ended: the registers start again */
			dflt = true;
		if (n > (u64)LONG_MAX / 2)
			goto bad;
	}
	*flags = f;
	return (long)n;
bad:
	free(f);
	return -1;
}

/* The unit's DW_AT_stmt_list: its line table's offset in .debug_line. */
static bool stmt_list(struct dwarf_info *di, Dwarf_Die cu_die, Dwarf_Off *off)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	int r;

	if (dwarf_attr(cu_die, DW_AT_stmt_list, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return false;
	}
	r = dwarf_global_formref(attr, off, &err);
	drop_error(di, &err);
	dwarf_dealloc_attribute(attr);
	return r == DW_DLV_OK;
}

/* Is cu_die the skeleton of a split unit (its DIE tree in a .dwo)? */
static bool skeleton(struct dwarf_info *di, Dwarf_Die cu_die)
{
	Dwarf_Error err = NULL;
	Dwarf_Half tag = 0;
	Dwarf_Bool has = 0;

	if (dwarf_tag(cu_die, &tag, &err) == DW_DLV_OK && tag == DW_TAG_skeleton_unit)
		return true;
	drop_error(di, &err);
	if (dwarf_hasattr(cu_die, DW_AT_GNU_dwo_name, &has, &err) != DW_DLV_OK)
		has = 0;
	drop_error(di, &err);
	return has;
}

/* Does the first file entry of the line table carry an MD5 (clang's do)? */
static bool table_has_md5(Dwarf_Line_Context ctx)
{
	Dwarf_Unsigned dir = 0, mtime = 0, len = 0;
	Dwarf_Form_Data16 *md5 = NULL;
	Dwarf_Error err = NULL;
	const char *name = NULL;
	Dwarf_Signed base = 0, count = 0, end = 0;

	if (dwarf_srclines_files_indexes(ctx, &base, &count, &end, &err) != DW_DLV_OK || !count ||
	    dwarf_srclines_files_data_b(ctx, base, &name, &dir, &mtime, &len, &md5, &err) !=
		    DW_DLV_OK) {
		if (err)
			dwarf_dealloc_error(NULL, err);
		return false;
	}
	return md5 != NULL;
}

static int decode_lines(struct dwarf_info *di, struct dw_cu *cu, Dwarf_Die cu_die)
{
	struct table_verdict local = {0};
	const struct table_verdict *tv;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Unsigned version = 0;
	Dwarf_Small tables = 0;
	Dwarf_Error err = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0, i;
	Dwarf_Off stmt = 0;
	long ndflt = -1;
	u8 *dflt = NULL;
	int e = 0;

	if (dwarf_srclines_b(cu_die, &version, &tables, &ctx, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return 0; /* no line table: scopes only */
	}
	cu->line_version = (u32)version;
	/*
	 * With such a libdwarf, file 0 is either the default register (really
	 * file 1) or an explicit DW_LNS_set_file 0.  GNU tools (gcc through
	 * gas, and gas itself) number the files they use from 1 and rely on
	 * the default, never setting file 0.  So for a GNU producer, 0 means
	 * 1.  clang sets file 0 for the .c file's functions, and relies on the
	 * default for the rows before its first DW_LNS_set_file when the
	 * unit's first function is a header's: which rows those are is read
	 * from the line program itself (default_rows), for any producer.
	 * Where entries 0 and 1 name one file (gcc's usual table) it changes
	 * nothing; where they differ (a .c file whose first function comes
	 * from a header) it is the difference between the right file and a
	 * wrong one.
	 */
	if (version == 5 && libdwarf_file_register_starts_at_0()) {
		const char *producer = get_string(di, cu_die, DW_AT_producer, false);

		cu->file0_is_1 = producer && !strncmp(producer, "GNU ", 4);
		/*
		 * A split DWARF skeleton has its producer in the .dwo: gcc's line
		 * tables have no MD5 in their file entries, clang's have them.
		 */
		if (!producer && skeleton(di, cu_die))
			cu->file0_is_1 = !table_has_md5(ctx);
		/* better: which rows really are at the default, from the program itself */
		if (di->line_sec && stmt_list(di, cu_die, &stmt))
			ndflt = default_rows(di->line_sec, di->line_sec_size, stmt, di->line_msb,
					     &dflt);
	}
	tv = line_table(di, cu_die, ctx, version, &local);
	if (!tv)
		e = -ENOMEM;
	else if (tv->ok && tv->nfiles)
		e = unit_files(di, cu, ctx, tv);
	verdict_clear(&local);
	if (!e && dwarf_srclines_from_linecontext(ctx, &lines, &n, &err) == DW_DLV_OK && n > 0) {
		if (n > (Dwarf_Signed)(UINT32_MAX >> 1)) {
			note(di, "a line table of %lld rows: the first %u read", (long long)n,
			     UINT32_MAX >> 1);
			n = (Dwarf_Signed)(UINT32_MAX >> 1);
		}
		cu->rows = calloc((size_t)n, sizeof(*cu->rows));
		if (!cu->rows)
			e = -ENOMEM;
		if (ndflt != n) { /* not libdwarf's rows: the producer's rule, above */
			free(dflt);
			dflt = NULL;
		}
		for (i = 0; cu->rows && i < n; i++) {
			struct dw_row *row = &cu->rows[cu->nrows];
			Dwarf_Unsigned line = 0, col = 0, fno = 0;
			Dwarf_Bool end = 0;
			Dwarf_Addr addr;

			if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK) {
				drop_error(di, &err);
				continue;
			}
			dwarf_lineno(lines[i], &line, &err);
			drop_error(di, &err);
			dwarf_lineoff_b(lines[i], &col, &err);
			drop_error(di, &err);
			dwarf_line_srcfileno(lines[i], &fno, &err);
			drop_error(di, &err);
			dwarf_lineendsequence(lines[i], &end, &err);
			drop_error(di, &err);
			row->addr = addr;
			row->line = line <= UINT32_MAX ? (u32)line : 0;
			row->column = col <= UINT32_MAX ? (u32)col : 0;
			/* see above: a default file register misread as 0 */
			if (fno == 0 && (dflt ? dflt[i] : cu->file0_is_1))
				fno = 1;
			row->file = file_index(cu, fno);
			row->seq_end = (u32)i << 1 | (end ? ROW_END : 0);
			cu->nrows++;
		}
		if (cu->rows)
			dwarf_sort_rows(cu->rows, cu->nrows);
	}
	drop_error(di, &err);
	dwarf_srclines_dealloc_b(ctx);
	free(dflt);
	return e;
}

/*
 * Cut the CU's code into segments of one innermost scope: sweep the range
 * boundaries in order, keeping the ranges open at each point; the deepest
 * open one (the first in DIE order, on a tie) owns the segment up to the
 * next boundary.  Robust to ranges that do not nest as they should.
 */
struct bound {
	u64 addr;
	u32 range;
	bool open;
};

static int bound_cmp(const void *pa, const void *pb)
{
	const struct bound *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->open != b->open)
		return a->open ? 1 : -1; /* close before open at one address */
	return a->range < b->range ? -1 : a->range > b->range;
}

static int build_segments(struct dw_cu *cu)
{
	struct bound *b;
	u32 *open = NULL;
	size_t nb = 2 * cu->nranges, nopen = 0, i, j;
	int e = 0;

	if (!cu->nranges)
		return 0;
	b = malloc(nb * sizeof(*b));
	open = malloc(cu->nranges * sizeof(*open));
	cu->segs = malloc(nb * sizeof(*cu->segs));
	if (!b || !open || !cu->segs) {
		e = -ENOMEM;
		goto out;
	}
	for (i = 0; i < cu->nranges; i++) {
		b[2 * i] = (struct bound){cu->ranges[i].lo, (u32)i, true};
		b[2 * i + 1] = (struct bound){cu->ranges[i].hi, (u32)i, false};
	}
	qsort(b, nb, sizeof(*b), bound_cmp);
	for (i = 0; i < nb; i++) {
		u32 best = NO_SCOPE, best_depth = 0;

		if (b[i].open) {
			open[nopen++] = b[i].range;
		} else {
			for (j = 0; j < nopen; j++)
				if (open[j] == b[i].range) {
					open[j] = open[--nopen];
					break;
				}
		}
		if (i + 1 < nb && b[i + 1].addr == b[i].addr)
			continue; /* settle every boundary at this address first */
		for (j = 0; j < nopen; j++) {
			const struct dw_range *r = &cu->ranges[open[j]];
			u32 d = cu->scopes[r->scope].depth;

			/* of equally deep scopes, the first in DIE order, as elfutils */
			if (best == NO_SCOPE || d > best_depth ||
			    (d == best_depth && r->scope < cu->ranges[best].scope)) {
				best = open[j];
				best_depth = d;
			}
		}
		if (best == NO_SCOPE || i + 1 == nb)
			continue;
		if (cu->nsegs && cu->segs[cu->nsegs - 1].hi == b[i].addr &&
		    cu->segs[cu->nsegs - 1].scope == cu->ranges[best].scope) {
			cu->segs[cu->nsegs - 1].hi = b[i + 1].addr;
			continue;
		}
		cu->segs[cu->nsegs++] =
			(struct dw_seg){b[i].addr, b[i + 1].addr, cu->ranges[best].scope, 0};
	}
out:
	free(b);
	free(open);
	return e;
}

/* The decl at DIE offset off, by binary search (decls are in offset order), or NULL. */
static struct dw_decl *decl_by_off(struct dw_cu *cu, Dwarf_Off off)
{
	size_t i = ebs_upper_bound(cu->decls, cu->ndecls, sizeof(cu->decls[0]),
				   offsetof(struct dw_decl, off), off);

	return i && cu->decls[i - 1].off == off ? &cu->decls[i - 1] : NULL;
}

static int decl_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct dw_cu *cu = ctx;
	const struct dw_decl *a = &cu->decls[*(const u32 *)pa], *b = &cu->decls[*(const u32 *)pb];

	if (a->file != b->file)
		return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a < b ? -1 : a > b; /* ties by index: the same order whatever the sort */
}

/* The decls with a line, in (file, line) order: cu->decl_order.  0 or -ENOMEM. */
int dwarf_order_decls(struct dw_cu *cu)
{
	size_t i, n = 0;

	if (!cu->ndecls)
		return 0;
	cu->decl_order = malloc(cu->ndecls * sizeof(*cu->decl_order));
	if (!cu->decl_order)
		return -ENOMEM;
	for (i = 0; i < cu->ndecls; i++)
		if (cu->decls[i].line && cu->decls[i].file)
			cu->decl_order[n++] = (u32)i;
	cu->ndecl_order = n;
	qsort_r(cu->decl_order, n, sizeof(*cu->decl_order), decl_cmp, cu);
	return 0;
}

/*
 * A definition whose DIE lies outside the function it belongs to (a
 * lambda's operator(), a local class's method: their declarations are in
 * a class inside the function) is enclosed by what its declaration is
 * enclosed by.  Then the decls with a line, in (file, line) order.
 */
static int index_decls(struct dw_cu *cu)
{
	size_t i;
	int hops;

	for (hops = 0; hops < MAX_REF_HOPS; hops++) {
		bool changed = false;

		for (i = 0; i < cu->ndecls; i++) {
			struct dw_decl *d = &cu->decls[i], *t;

			if (d->encl != NO_SCOPE || !d->ref)
				continue;
			t = decl_by_off(cu, d->ref);
			if (t && t->encl != NO_SCOPE) {
				d->encl = t->encl;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	return dwarf_order_decls(cu);
}

/* Free what cu holds of a decoding, and say it holds none. */
void dwarf_cu_clear(struct dw_cu *cu)
{
	if (cu->blk) { /* rows and segments are in the cache's block */
		free(cu->blk);
		cu->blk = NULL;
	} else {
		free(cu->rows);
		free(cu->segs);
	}
	free(cu->scopes);
	free(cu->ranges);
	free(cu->files);
	free(cu->decls);
	free(cu->decl_order);
	cu->problem = NULL;
	cu->rows = NULL;
	cu->scopes = NULL;
	cu->ranges = NULL;
	cu->segs = NULL;
	cu->files = NULL;
	cu->decls = NULL;
	cu->decl_order = NULL;
	cu->nrows = cu->nscopes = cu->nranges = cu->nsegs = 0;
	cu->ndecls = cu->cap_decls = cu->ndecl_order = 0;
	cu->cap_scopes = cu->cap_ranges = 0;
	cu->nfiles = 0;
}

static bool dwarf_attach(struct dwarf_info *di, struct ebs_error *why);

/* Decode cu from the DWARF; a unit decoded so, and nothing else, is kept in the cache. */
static void decode_dwarf(struct dwarf_info *di, struct dw_cu *cu)
{
	Dwarf_Error err = NULL;
	struct die_walk w;
	Dwarf_Die die;
	int e;

	if (dwarf_offdie_b(di->dbg, cu->die_off, 1, &die, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		cu->failed = true;
		return;
	}
	/* without its line table, a unit's scopes name no files (decls, call sites) */
	cu->no_rows = di->no_lines;
	e = cu->no_rows ? 0 : decode_lines(di, cu, die);
	if (!e && walk_begin(di, &w, die))
		e = walk(&w, cu, die, NO_SCOPE, 0, 0);
	if (!e)
		e = build_segments(cu);
	if (!e)
		e = index_decls(cu);
	dwarf_dealloc_die(die);
	/* the collected ranges served the sweep; segments replace them */
	free(cu->ranges);
	cu->ranges = NULL;
	cu->nranges = cu->cap_ranges = 0;
	if (e) {
		note(di, "out of memory decoding a compilation unit");
		if (e == -ENOMEM)
			di->oom = true;
		dwarf_cu_clear(cu);
		cu->failed = true;
	}
}

/*
 * Decode cu on its first use: from the cache's entry when it has the
 * unit, else from the DWARF (read now, if the index came from the cache).
 */
static void decode_cu(struct dwarf_info *di, struct dw_cu *cu)
{
	struct ebs_error why;

	cu->decoded = true;
	if (cu->blk_len) {
		int e = dwarf_cache_load_cu(di, cu);

		if (!e) {
			if (cu->problem) /* the problem it met when decoded, said as then */
				note(di, "%s", cu->problem);
			return;
		}
		if (e != -ENOMEM)
			cu->bad_block = true; /* replaced, at free */
		di->dirty = true;
	}
	if (!di->dbg && !di->attach_failed && !dwarf_attach(di, &why)) {
		di->attach_failed = true;
		note(di, "%s", why.msg);
	}
	if (!di->dbg) {
		cu->failed = true;
		return;
	}
	di->capture = true;
	di->tainted = false;
	di->cu_why[0] = '\0';
	decode_dwarf(di, cu);
	di->capture = false;
	cu->problem = di->cu_why[0] ? intern_text(di, di->cu_why) : NULL;
	cu->fresh = !di->tainted && !cu->raw_names && (cu->problem || !di->cu_why[0]);
	if (cu->fresh && di->cache)
		di->dirty = true;
}

/* ---- the CU index --------------------------------------------------------- */

static int span_cmp(const void *pa, const void *pb)
{
	const struct cu_span *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->cu < b->cu ? -1 : a->cu > b->cu;
}

/*
 * A DWARF 5 unit's DW_AT_rnglists_base: where its DW_FORM_rnglistx offsets
 * are.  Without one, the first table's (what libdwarf takes too).
 */
static u64 rnglists_base(struct dwarf_info *di, Dwarf_Die cu_die)
{
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Off off = 0;
	int r;

	if (dwarf_attr(cu_die, DW_AT_rnglists_base, &attr, &err) != DW_DLV_OK) {
		drop_error(di, &err);
		return di->nrng_tables ? di->rng_tables[0].offsets : 0;
	}
	r = dwarf_global_formref(attr, &off, &err);
	drop_error(di, &err);
	if (r != DW_DLV_OK) {
		Dwarf_Unsigned v = 0;

		r = dwarf_formudata(attr, &v, &err);
		drop_error(di, &err);
		off = r == DW_DLV_OK ? v : 0;
	}
	dwarf_dealloc_attribute(attr);
	return off;
}

/*
 * The ranges of a unit whose own (DW_AT_ranges in .debug_rnglists) are not
 * read: those of its functions (their low_pc and high_pc; a function in
 * several pieces has DW_AT_ranges too, and is left out).
 */
static int children_spans(struct dwarf_info *di, Dwarf_Die cu_die, u16 version, u64 base,
			  u64 rng_base, struct span_vec *sv)
{
	Dwarf_Die child = NULL, next = NULL;
	Dwarf_Error err = NULL;
	struct die_walk w;
	int r, e = 0;

	if (!walk_begin(di, &w, cu_die))
		return 0;
	r = die_first(&w, cu_die, 0, &child);
	while (r == DW_DLV_OK && !e) {
		Dwarf_Half tag = 0;

		if (dwarf_tag(child, &tag, &err) == DW_DLV_OK && tag == DW_TAG_subprogram)
			e = die_spans(di, child, version, base, rng_base, sv);
		drop_error(di, &err);
		next = NULL;
		r = e ? DW_DLV_NO_ENTRY : die_next(&w, child, 1, false, &next);
		dwarf_dealloc_die(child);
		child = next;
	}
	return e;
}

/*
 * Read every CU header and its DIE's ranges.  libdwarf finds each unit
 * after the last by its length, which takes it forward; each must be seen
 * to lie after the last all the same, so that no length can make the loop
 * go round.
 */
/*
 * A skeleton unit of split DWARF (-gsplit-dwarf): its line table and code
 * ranges are here, its DIE tree (the inline chains) in a .dwo file or a
 * .dwp package, which ebs does not read.  Said once per file, naming it.
 */
static void split_note(struct dwarf_info *di, Dwarf_Die cu_die)
{
	const char *name, *dir;
	char path[PATH_MAX], dwp[PATH_MAX];

	if (di->split_noted)
		return;
	name = get_string(di, cu_die, DW_AT_dwo_name, false);
	if (!name)
		name = get_string(di, cu_die, DW_AT_GNU_dwo_name, false);
	if (!name)
		return;
	di->split_noted = true;
	dir = get_string(di, cu_die, DW_AT_comp_dir, false);
	if (name[0] != '/' && dir)
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	snprintf(dwp, sizeof(dwp), "%s.dwp", di->path);
	if (access(path, F_OK) && access(dwp, F_OK))
		note(di,
		     "split DWARF (-gsplit-dwarf): %.200s is missing: inlined functions are not "
		     "shown",
		     path);
	else
		note(di,
		     "split DWARF (-gsplit-dwarf): inlined functions are in %.200s, which ebs "
		     "does not read: they are not shown",
		     access(path, F_OK) ? dwp : path);
}

static int build_index(struct dwarf_info *di)
{
	struct span_vec sv = {0};
	size_t cap = 0, scap = 0, i;
	Dwarf_Unsigned last = 0;
	int e = 0;

	for (;;) {
		Dwarf_Unsigned hlen, abbrev, next, tsoff;
		Dwarf_Half ver, asz, osz, xsz, utype;
		Dwarf_Sig8 sig;
		Dwarf_Error err = NULL;
		Dwarf_Die die = NULL;
		Dwarf_Addr lo = 0;
		struct dw_cu *cu;
		int r;

		r = dwarf_next_cu_header_d(di->dbg, 1, &hlen, &ver, &abbrev, &asz, &osz, &xsz, &sig,
					   &tsoff, &next, &utype, &err);
		if (r != DW_DLV_OK) {
			drop_error(di, &err);
			break;
		}
		if (next <= last) {
			note(di,
			     ".debug_info: the unit before offset %#llx is not after the last one",
			     (unsigned long long)next);
			break;
		}
		last = next;
		if (dwarf_siblingof_b(di->dbg, NULL, 1, &die, &err) != DW_DLV_OK) {
			drop_error(di, &err);
			continue;
		}
		if (ebs_grow((void **)&di->cus, &cap, di->ncus, sizeof(*di->cus), 16)) {
			dwarf_dealloc_die(die);
			e = -ENOMEM;
			break;
		}
		cu = &di->cus[di->ncus];
		memset(cu, 0, sizeof(*cu));
		cu->version = ver;
		if (dwarf_dieoffset(die, &cu->die_off, &err) != DW_DLV_OK) {
			drop_error(di, &err);
			dwarf_dealloc_die(die);
			continue;
		}
		if (dwarf_lowpc(die, &lo, &err) == DW_DLV_OK)
			cu->base = lo;
		drop_error(di, &err);
		split_note(di, die);
		sv.n = 0;
		if (ver >= 5)
			cu->rng_base = rnglists_base(di, die);
		e = die_spans(di, die, ver, cu->base, cu->rng_base, &sv);
		if (!e && !sv.n && ver >= 5 && !di->rng)
			e = children_spans(di, die, ver, cu->base, cu->rng_base, &sv);
		dwarf_dealloc_die(die);
		if (e)
			break;
		for (i = 0; i < sv.n; i++) {
			if (ebs_grow((void **)&di->spans, &scap, di->nspans, sizeof(*di->spans),
				     16)) {
				e = -ENOMEM;
				break;
			}
			di->spans[di->nspans++] =
				(struct cu_span){sv.v[i][0], sv.v[i][1], 0, (u32)di->ncus};
		}
		if (e)
			break;
		di->ncus++;
	}
	free(sv.v);
	if (e)
		return e;
	if (di->nspans) /* spans is NULL when no unit has code: no qsort of NULL */
		qsort(di->spans, di->nspans, sizeof(*di->spans), span_cmp);
	return dwarf_index_spans(di);
}

/* The spans' max_hi, once they are sorted. */
int dwarf_index_spans(struct dwarf_info *di)
{
	size_t i;

	for (i = 0; i < di->nspans; i++)
		di->spans[i].max_hi = i && di->spans[i - 1].max_hi > di->spans[i].hi
					      ? di->spans[i - 1].max_hi
					      : di->spans[i].hi;
	return 0;
}

/* The CU whose ranges cover addr (the last to start, where several do). */
static struct dw_cu *cu_of(struct dwarf_info *di, u64 addr)
{
	size_t i = ebs_upper_bound(di->spans, di->nspans, sizeof(di->spans[0]),
				   offsetof(struct cu_span, lo), addr);

	while (i-- > 0) {
		if (addr < di->spans[i].hi)
			return &di->cus[di->spans[i].cu];
		if (di->spans[i].max_hi <= addr)
			break;
	}
	return NULL;
}

/* ---- what libdwarf 20210528 must not see ---------------------------------- */

/*
 * Do the tables of one .debug_rnglists or .debug_loclists section (one
 * layout) hold together?  Each: a unit length (4 bytes, or 0xffffffff and
 * 8) that stays inside the section, then version 5, an address size of 4
 * or 8, a segment selector size of 0, and an offset array
 * (offset_entry_count offsets of the unit's offset size; libdwarf 20210528
 * steps over it by the address size, so both) that stays inside the unit,
 * each offset pointing inside it too (libdwarf follows a DW_FORM_rnglistx's
 * offset unchecked).  True when they do; else false with why in buf.  With
 * tables, the tables are listed there too (*ntables of them, malloc'd).
 */
static bool lists_section_ok(const char *name, const unsigned char *p, u64 size, bool msb,
			     char *buf, size_t buf_len, struct rng_table **tables, size_t *ntables)
{
	size_t cap = 0;
	u64 off = 0;

	while (off < size) {
		u64 len, hdr = 4, count, room, i;
		unsigned int offsz = 4, asz;

		if (size - off < 4)
			goto bad;
		len = get_un(p + off, 4, msb);
		if (len == 0xffffffff) {
			if (size - off < 12)
				goto bad;
			len = get_un(p + off + 4, 8, msb);
			hdr = 12;
			offsz = 8;
		} else if (len >= 0xfffffff0) {
			goto bad; /* reserved lengths */
		}
		if (len > size - off - hdr || len < 8)
			goto bad;
		asz = p[off + hdr + 2];
		if (get_un(p + off + hdr, 2, msb) != 5 || (asz != 4 && asz != 8) ||
		    p[off + hdr + 3] != 0)
			goto bad;
		count = get_un(p + off + hdr + 4, 4, msb);
		room = len - 8;
		if (count > room / offsz || count > room / asz)
			goto bad;
		/* each offset, from the array's start, must land inside the unit */
		for (i = 0; i < count; i++)
			if (get_un(p + off + hdr + 8 + i * offsz, offsz, msb) >= room)
				goto bad;
		if (tables) {
			if (ebs_grow((void **)tables, &cap, *ntables, sizeof(**tables), 16)) {
				snprintf(buf, buf_len, "out of memory");
				goto fail;
			}
			(*tables)[(*ntables)++] = (struct rng_table){
				.start = off,
				.end = off + hdr + len,
				.offsets = off + hdr + 8,
				.count = count,
				.offsz = offsz,
				.asz = asz,
			};
		}
		off += hdr + len;
	}
	return true;
bad:
	snprintf(buf, buf_len, "the table at %s offset %#llx is corrupt", name,
		 (unsigned long long)off);
fail:
	if (tables) {
		free(*tables);
		*tables = NULL;
		*ntables = 0;
	}
	return false;
}

#define MAX_LISTS_SECTIONS 8		/* more sections named so: not a file to trust */
#define MAX_COPY_SIZE	   (1ull << 30) /* bytes of a file copied to hide sections */

enum { LISTS_RNG, LISTS_LOC, LISTS_KINDS };

/* Where the range and location list sections' headers are, and whether they hold. */
struct lists_scan {
	u64 size_at[LISTS_KINDS][MAX_LISTS_SECTIONS]; /* file offsets of their sh_size */
	unsigned int n[LISTS_KINDS];
	bool bad[LISTS_KINDS];
	unsigned int size_len; /* of sh_size: 4 (ELF32) or 8 */
	bool unreadable;       /* not even the headers: no DWARF at all */
	char why[160];	       /* the first problem, for the note */
};

/*
 * libdwarf 20210528 reads every table header of .debug_rnglists and of
 * .debug_loclists as soon as it loads .debug_info (dwarf_load_rnglists and
 * dwarf_load_loclists, from the first dwarf_next_cu_header_d).  When a
 * range list header does not read, it frees its list of headers and goes
 * on using it: a crafted section is a double free (libdwarf 0.1 and later
 * return an error instead); a bad location list header is an error that
 * ends all of the file's DWARF.  So before libdwarf opens a file, every
 * section it could take for either (.debug_rnglists, .debug_loclists, their
 * .dwo and .zdebug forms, compressed ones decompressed) is read here,
 * through libelf, as libdwarf would read it.  When one does not hold, or
 * when relocations would change the bytes checked (a relocatable object),
 * libdwarf gets a copy of the file in which the sections of that kind are
 * empty (hide_sections): it reads every other section then, without the
 * DW_AT_ranges of DWARF 5 (ebs reads no location lists).  Sets
 * di->rnglists_bad when the range lists are hidden; else keeps a copy of
 * .debug_rnglists and its tables (di->rng) for rnglists() to decode.
 */
/*
 * A copy of .debug_line, for default_rows(), on a libdwarf whose file
 * register starts at 0 (only there is it needed).  Two such sections: none.
 */
static void keep_line_section(struct dwarf_info *di, Elf_Scn *scn, const GElf_Shdr *sh, bool gnu,
			      bool msb)
{
	Elf_Data *data;

	if (!libdwarf_file_register_starts_at_0() || sh->sh_type == SHT_NOBITS || di->line_two)
		return;
	if (di->line_sec) { /* which one would libdwarf read? */
		free(di->line_sec);
		di->line_sec = NULL;
		di->line_two = true;
		return;
	}
	if (((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) ||
	    (gnu && elf_compress_gnu(scn, 0, 0) < 0) || !(data = elf_getdata(scn, NULL)) ||
	    !data->d_buf || !data->d_size)
		return;
	if ((di->line_sec = malloc(data->d_size))) {
		memcpy(di->line_sec, data->d_buf, data->d_size);
		di->line_sec_size = data->d_size;
		di->line_msb = msb;
	}
}

static void lists_check(struct dwarf_info *di, struct lists_scan *ls)
{
	static const char *const names[LISTS_KINDS] = {"rnglists", "loclists"};
	bool rel[LISTS_KINDS] = {false, false};
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	unsigned int k;
	bool msb;
	Elf *e;

	memset(ls, 0, sizeof(*ls));
	e = elf_begin(di->fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getshdrstrndx(e, &shstrndx)) {
		/* libdwarf reads such a file by its own means: trust none of it */
		snprintf(ls->why, sizeof(ls->why), "the section headers do not read");
		ls->unreadable = true;
		goto out;
	}
	msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	ls->size_len = gelf_getclass(e) == ELFCLASS64 ? 8 : 4;
	while ((scn = elf_nextscn(e, scn))) {
		char why[160];
		const char *name, *base;
		Elf_Data *data;
		GElf_Shdr sh;
		bool ok, gnu;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_line") || !strcmp(name, ".zdebug_line")) {
			keep_line_section(di, scn, &sh, name[1] == 'z', msb);
			continue;
		}
		for (k = 0; k < LISTS_KINDS && !strstr(name, names[k]); k++)
			;
		if (k == LISTS_KINDS)
			continue;
		if (sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA) {
			rel[k] = true;
			continue;
		}
		gnu = !strncmp(name, ".zdebug_", 8); /* the GNU way of compressing */
		base = name + (gnu ? 2 : 1);
		if (name[0] != '.' ||
		    strncmp(base, k == LISTS_RNG ? "debug_rnglists" : "debug_loclists", 14))
			continue;
		if (ls->n[k] == MAX_LISTS_SECTIONS) {
			snprintf(ls->why, sizeof(ls->why), "more than %d %s sections",
				 MAX_LISTS_SECTIONS, name);
			ls->unreadable = true;
			break;
		}
		/* sh_size: at 32 in an Elf64_Shdr, at 20 in an Elf32_Shdr */
		ls->size_at[k][ls->n[k]++] = eh.e_shoff + elf_ndxscn(scn) * (u64)eh.e_shentsize +
					     (ls->size_len == 8 ? 32 : 20);
		if (ls->bad[k] || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue; /* known bad already, or nothing libdwarf could read */
		if (((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) ||
		    (gnu && elf_compress_gnu(scn, 0, 0) < 0)) {
			snprintf(why, sizeof(why), "%s does not decompress", name);
			ok = false;
		} else if (!(data = elf_getdata(scn, NULL)) || !data->d_buf) {
			snprintf(why, sizeof(why), "%s does not read", name);
			ok = false;
		} else if (k == LISTS_RNG && !strcmp(base, "debug_rnglists")) {
			/* the range lists rnglists() decodes: checked, kept */
			ok = !di->rng;
			if (!ok)
				snprintf(why, sizeof(why), "two %s sections", name);
			else
				ok = lists_section_ok(name, data->d_buf, data->d_size, msb, why,
						      sizeof(why), &di->rng_tables,
						      &di->nrng_tables);
			if (ok && (di->rng = malloc(data->d_size ? data->d_size : 1))) {
				memcpy(di->rng, data->d_buf, data->d_size);
				di->rng_msb = msb;
			} else if (ok) {
				snprintf(why, sizeof(why), "out of memory");
				ok = false;
			}
		} else {
			ok = lists_section_ok(name, data->d_buf, data->d_size, msb, why,
					      sizeof(why), NULL, NULL);
		}
		if (!ok) {
			ls->bad[k] = true;
			if (k == LISTS_RNG)
				snprintf(di->rnglists_bad, sizeof(di->rnglists_bad), "%s", why);
		}
	}
	if (ls->bad[LISTS_RNG] || rel[LISTS_RNG]) { /* none of the range lists, then */
		free(di->rng);
		free(di->rng_tables);
		di->rng = NULL;
		di->rng_tables = NULL;
		di->nrng_tables = 0;
	}
	for (k = 0; k < LISTS_KINDS; k++)
		if (rel[k] && ls->n[k] && !ls->bad[k]) {
			ls->bad[k] = true;
			if (k == LISTS_RNG)
				snprintf(di->rnglists_bad, sizeof(di->rnglists_bad),
					 "relocations apply to the range lists");
		}
out:
	elf_end(e);
}

/*
 * A copy of the file on fd in memory (a memfd), the list sections found bad
 * (ls) given a size of 0, for libdwarf to read instead.  The descriptor, or
 * -errno.
 */
static int hide_sections(int fd, const struct stat *st, const struct lists_scan *ls)
{
	static const unsigned char zero[8];
	unsigned int i, k;
	off_t off = 0;
	int mfd;

	if ((u64)st->st_size > MAX_COPY_SIZE)
		return -EFBIG;
	mfd = memfd_create("ebs-dwarf", MFD_CLOEXEC);
	if (mfd < 0)
		return -errno;
	while (off < st->st_size) {
		ssize_t n = sendfile(mfd, fd, &off, (size_t)(st->st_size - off));

		if (n <= 0) {
			close(mfd);
			return n < 0 ? -errno : -EIO;
		}
	}
	for (k = 0; k < LISTS_KINDS; k++)
		for (i = 0; ls->bad[k] && i < ls->n[k]; i++)
			if (ls->size_at[k][i] + ls->size_len <= (u64)st->st_size &&
			    pwrite(mfd, zero, ls->size_len, (off_t)ls->size_at[k][i]) !=
				    (ssize_t)ls->size_len) {
				close(mfd);
				return -EIO;
			}
	return mfd;
}

/*
 * Read the DWARF of the file open on di->fd: check the list sections
 * libdwarf cannot survive (reading a copy without them when one is bad),
 * then hand it to libdwarf.  False with why when it cannot be read.
 */
static pthread_once_t de_alloc_once = PTHREAD_ONCE_INIT;

static void de_alloc_off(void)
{
	dwarf_set_de_alloc_flag(0);
}

/*
 * The supplementary file that dwz -m made of what several files' DWARF had
 * in common (.gnu_debugaltlink, or DWARF 5's .debug_sup), opened beside
 * di->dbg and tied to it, so that libdwarf reads the alt strings
 * (DW_FORM_GNU_strp_alt, DW_FORM_strp_sup) from it; get_ref follows the alt
 * references into it.  A file that names one that is not found: said once,
 * its functions' names from there are missing, and nothing is kept in the
 * cache (a later run that finds it would not decode again).
 */
static void open_alt(struct dwarf_info *di)
{
	char name[PATH_MAX], path[PATH_MAX];
	struct ebs_error looked;
	Dwarf_Error err = NULL;
	u8 id[20], id_size = 0;
	struct stat st;
	int r;

	r = elf_fd__altlink(di->fd, name, sizeof(name), id, &id_size);
	if (r == -ENOMEM)
		di->oom = true;
	if (r != 1)
		return; /* none named; or this is a supplementary file itself */
	r = dwarf_alt_find(di->path, name, id, id_size, di->debug_dirs, path, sizeof(path),
			   &looked);
	if (r <= 0) {
		di->oom |= r == -ENOMEM;
		di->alt_missing = true;
		note(di,
		     "its supplementary debug file (dwz) %.200s is not found: names of "
		     "inlined functions are missing",
		     name);
		return;
	}
	di->alt_fd = ebs_open_input(path, NULL, &st, NULL);
	if (di->alt_fd >= 0 &&
	    dwarf_init_b(di->alt_fd, DW_GROUPNUMBER_ANY, NULL, NULL, &di->alt, &err) == DW_DLV_OK &&
	    dwarf_set_tied_dbg(di->dbg, di->alt, &err) == DW_DLV_OK)
		return;
	di->alt_missing = true;
	note(di, "its supplementary debug file (dwz) %.200s: %s", path,
	     err ? dwarf_errmsg(err) : "cannot be read");
	if (err)
		dwarf_dealloc_error(NULL, err);
	if (di->alt)
		dwarf_finish(di->alt);
	di->alt = NULL;
}

static bool dwarf_attach(struct dwarf_info *di, struct ebs_error *why)
{
	struct lists_scan ls;
	Dwarf_Error err = NULL;
	struct stat st;
	int r;

	/* a debug file's compressed sections: inflated once, kept in the cache */
	if (di->cache)
		(void)dwarf_inflated(di);
	lists_check(di, &ls);
	if (ls.unreadable) {
		ebs_error__fail(why, EBS_E_BAD_DWARF, "%s: DWARF not read", ls.why);
		return false;
	}
	if (ls.bad[LISTS_RNG] || ls.bad[LISTS_LOC]) {
		int copy = fstat(di->fd, &st) ? -errno : hide_sections(di->fd, &st, &ls);

		if (copy < 0) {
			ebs_error__fail(
				why, EBS_E_BAD_DWARF,
				"corrupt list sections, and a copy without them: %s: DWARF not read",
				strerror(-copy));
			return false;
		}
		close(di->fd);
		di->fd = copy;
	}
	/*
	 * libdwarf tracks every allocation in a search tree to free leftovers
	 * at dwarf_finish; that bookkeeping was most of a unit's decoding time.
	 * Everything here is freed where it is obtained, so turn it off (a
	 * library-wide setting: once, before any thread of symbolizer__prefetch).
	 */
	pthread_once(&de_alloc_once, de_alloc_off);
	r = dwarf_init_b(di->fd, DW_GROUPNUMBER_ANY, NULL, NULL, &di->dbg, &err);
	if (r != DW_DLV_OK) {
		ebs_error__fail(
			why, r == DW_DLV_ERROR ? EBS_E_BAD_DWARF : EBS_E_NO_DEBUG_INFO, "%s",
			r == DW_DLV_ERROR ? dwarf_errmsg(err) : "no DWARF debug information");
		if (err)
			dwarf_dealloc_error(NULL, err);
		di->dbg = NULL;
		return false;
	}
	open_alt(di);
	return true;
}

struct dwarf_info *dwarf_info__open(const char *path, bool demangle, bool lines,
				    const struct dwarf_cache_key *key, struct ebs_error *why)
{
	struct dwarf_info *di = calloc(1, sizeof(*di));
	struct stat st;
	int copy;

	if (!di) {
		ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
		return NULL;
	}
	di->demangle = demangle;
	di->no_lines = !lines;
	di->efd = -1;
	di->alt_fd = -1;
	di->debug_dirs = key ? key->debug_dirs : NULL;
	if (!(di->path = strdup(path))) {
		ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
		free(di);
		return NULL;
	}
	di->fd = ebs_open_input(path, NULL, &st, why);
	if (di->fd < 0) {
		free(di->path);
		free(di);
		return NULL;
	}
	di->owner = st.st_uid;
	di->file_size = (u64)st.st_size;
	/* a file without a build-id is not kept: nothing says which file an entry was */
	if (key && key->cache && key->build_id_size >= 4 &&
	    key->build_id_size <= sizeof(di->build_id)) {
		di->build_id_size = key->build_id_size;
		memcpy(di->build_id, key->build_id, key->build_id_size);
		/*
		 * The entry must be of these very bytes, not of a file with the
		 * same build-id; a file over the digest's caps is not kept.  When
		 * another user may write the file, what was hashed is read from
		 * a copy made as it was hashed.
		 */
		if (!sym_dwarf_digest(di->fd, &copy, di->digest)) {
			di->cache = key->cache;
			if (copy >= 0) {
				close(di->fd);
				di->fd = copy;
			}
		}
		if (di->cache && !dwarf_cache_load(di))
			return di; /* the index from the cache: no DWARF read */
		di->dirty = true;
	}
	if (!dwarf_attach(di, why))
		goto fail;
	if (build_index(di)) {
		ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
		goto fail;
	}
	/* no unit with code and nothing wrong (one -g unit of data): no lines, no word */
	if (!di->nspans && di->why[0]) {
		ebs_error__fail(why, EBS_E_BAD_DWARF, "%s", di->why);
		goto fail;
	}
	memcpy(di->index_why, di->why, sizeof(di->why));
	return di;

fail:
	di->cache = NULL; /* a file that does not open is not kept */
	dwarf_info__free(di);
	return NULL;
}

void dwarf_info__free(struct dwarf_info *di)
{
	struct table_verdict *tv, *ttv;
	struct raw_name *r, *tr;
	struct name_cache *n, *tn;
	size_t i;

	if (!di)
		return;
	if (di->cache && di->dirty && !di->oom && !di->alt_missing && (di->dbg || di->efd >= 0))
		dwarf_cache_save(di);
	for (i = 0; i < di->ncus; i++)
		dwarf_cu_clear(&di->cus[i]);
	free(di->cus);
	free(di->spans);
	free(di->rng);
	free(di->rng_tables);
	free(di->line_sec);
	free(di->info_sec);
	if (di->dbg)
		dwarf_finish(di->dbg);
	if (di->alt)
		dwarf_finish(di->alt);
	if (di->alt_fd >= 0)
		close(di->alt_fd);
	free(di->path);
	if (di->fd >= 0)
		close(di->fd);
	if (di->efd >= 0)
		close(di->efd);
	HASH_ITER(hh, di->names, n, tn) {
		HASH_DEL(di->names, n);
		free(n);
	}
	HASH_ITER(hh, di->tables, tv, ttv) {
		HASH_DEL(di->tables, tv);
		verdict_clear(tv);
		free(tv);
	}
	HASH_ITER(hh, di->raw, r, tr) {
		HASH_DEL(di->raw, r);
		free(r->raw);
		free(r);
	}
	ebs_strset__free(&di->strs);
	free(di);
}

const char *dwarf_info__problem(const struct dwarf_info *di)
{
	return di->why[0] ? di->why : NULL;
}

uid_t dwarf_info__owner(const struct dwarf_info *di)
{
	return di->owner;
}

static const struct dw_row *row_of(const struct dw_cu *cu, u64 addr)
{
	size_t lo = ebs_upper_bound(cu->rows, cu->nrows, sizeof(cu->rows[0]),
				    offsetof(struct dw_row, addr), addr);

	if (!lo || (cu->rows[lo - 1].seq_end & ROW_END))
		return NULL;
	return &cu->rows[lo - 1];
}

static u32 scope_of(const struct dw_cu *cu, u64 addr)
{
	size_t lo = ebs_upper_bound(cu->segs, cu->nsegs, sizeof(cu->segs[0]),
				    offsetof(struct dw_seg, lo), addr);

	if (!lo || addr >= cu->segs[lo - 1].hi)
		return NO_SCOPE;
	return cu->segs[lo - 1].scope;
}

static const char *file_name(const struct dw_cu *cu, u32 f)
{
	return f < cu->nfiles ? cu->files[f] : NULL;
}

int dwarf_info__lookup(struct dwarf_info *di, u64 addr, struct sym_frame *frames,
		       unsigned int max_frames)
{
	const struct dw_row *row;
	struct dw_cu *cu = cu_of(di, addr);
	unsigned int n = 0;
	u32 sc;

	if (!cu || !max_frames)
		return 0;
	if (!cu->decoded)
		decode_cu(di, cu);
	if (cu->failed)
		return 0;
	row = row_of(cu, addr);
	sc = scope_of(cu, addr);
	if (!row && sc == NO_SCOPE)
		return 0;
	/* innermost: the line table's location, in the innermost scope's function */
	memset(&frames[0], 0, sizeof(frames[0]));
	/*
	 * Line 0: code the compiler made up (or merged from several lines), in
	 * the row's file: shown as FILE:0, as elfutils and perf show it.
	 */
	if (row) {
		frames[0].file = file_name(cu, row->file);
		frames[0].line = row->line;
		frames[0].column = row->column;
	}
	frames[0].function = sc != NO_SCOPE ? cu->scopes[sc].name : NULL;
	n = 1;
	/* outwards: each caller, at the call site of the scope inlined into it */
	while (sc != NO_SCOPE && cu->scopes[sc].parent != NO_SCOPE && n < max_frames) {
		const struct dw_scope *child = &cu->scopes[sc];

		sc = child->parent;
		frames[n].function = cu->scopes[sc].name;
		frames[n].file = file_name(cu, child->call_file);
		frames[n].line = child->call_line;
		frames[n].column = child->call_column;
		n++;
	}
	return (int)n;
}

void dwarf_info__prefetch(struct dwarf_info *di, u64 addr)
{
	struct dw_cu *cu = cu_of(di, addr);

	if (cu && !cu->decoded)
		decode_cu(di, cu);
}

/* fn for the rows of one decoded CU at addresses in [lo, hi); see dwarf_info__rows. */
static int cu_rows(const struct dw_cu *cu, u64 lo, u64 hi,
		   int (*fn)(void *ctx, const struct sym_row *row), void *ctx)
{
	/* rows are sorted by address: start at the first one at lo or after */
	size_t i = lo ? ebs_upper_bound(cu->rows, cu->nrows, sizeof(cu->rows[0]),
					offsetof(struct dw_row, addr), lo - 1)
		      : 0;
	int e;

	for (; i < cu->nrows && cu->rows[i].addr < hi; i++) {
		const struct dw_row *row = &cu->rows[i];
		struct sym_row out;
		u32 sc;

		if (row->addr < lo || (row->seq_end & ROW_END) || !row->line)
			continue;
		/*
		 * Of rows at one address (views: an inline entry, a
		 * statement boundary) only the last describes the
		 * instruction there; the others cover no code.
		 */
		if (i + 1 < cu->nrows && cu->rows[i + 1].addr == row->addr)
			continue;
		sc = scope_of(cu, row->addr);
		out = (struct sym_row){
			.addr = row->addr,
			.file = file_name(cu, row->file),
			.line = row->line,
			.inlined = sc != NO_SCOPE && cu->scopes[sc].parent != NO_SCOPE,
		};
		e = fn(ctx, &out);
		if (e)
			return e;
	}
	return 0;
}

int dwarf_info__rows(struct dwarf_info *di, u64 lo, u64 hi,
		     int (*fn)(void *ctx, const struct sym_row *row), void *ctx)
{
	size_t i, j, n = 0, cap = 0;
	u32 *seen = NULL;
	int e = 0;

	/*
	 * The CUs whose spans meet [lo, hi): spans sorted by lo, so those
	 * starting before hi, back to where no earlier span reaches lo.  One
	 * function lies in one CU, normally; each CU is visited once.
	 */
	i = ebs_upper_bound(di->spans, di->nspans, sizeof(di->spans[0]),
			    offsetof(struct cu_span, lo), hi ? hi - 1 : 0);
	while (i-- > 0 && !e) {
		const struct cu_span *sp = &di->spans[i];
		struct dw_cu *cu = &di->cus[sp->cu];
		bool dup = false;

		if (sp->max_hi <= lo)
			break;
		if (sp->hi <= lo)
			continue;
		for (j = 0; j < n && !dup; j++)
			dup = seen[j] == sp->cu;
		if (dup)
			continue;
		if (ebs_grow((void **)&seen, &cap, n, sizeof(*seen), 4)) {
			e = -ENOMEM;
			break;
		}
		seen[n++] = sp->cu;
		if (!cu->decoded)
			decode_cu(di, cu);
		if (!cu->failed)
			e = cu_rows(cu, lo, hi, fn, ctx);
	}
	free(seen);
	return e;
}

/*
 * The first decl_order position at or after (file, line): decl_order is
 * sorted by (file pointer, line).
 */
static size_t decl_lower_bound(const struct dw_cu *cu, const char *file, u32 line)
{
	size_t lo = 0, hi = cu->ndecl_order;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dw_decl *d = &cu->decls[cu->decl_order[mid]];

		if ((uintptr_t)d->file < (uintptr_t)file || (d->file == file && d->line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dwarf_info__source_span(struct dwarf_info *di, u64 addr, struct sym_span *out)
{
	struct dw_cu *cu = cu_of(di, addr);
	const struct dw_decl *d;
	size_t i;
	u32 top;

	memset(out, 0, sizeof(*out));
	if (!cu)
		return -ENOENT;
	if (!cu->decoded)
		decode_cu(di, cu);
	if (cu->failed)
		return -ENOENT;
	top = top_scope(cu, scope_of(cu, addr));
	if (top == NO_SCOPE || cu->scopes[top].decl == NO_SCOPE)
		return -ENOENT;
	d = &cu->decls[cu->scopes[top].decl];
	if (!d->file || !d->line)
		return -ENOENT;
	out->function = d->name;
	out->file = d->file;
	out->first = d->line;
	out->limit = UINT32_MAX;
	/* the next declaration in the file that is not the function's own or inside it */
	for (i = decl_lower_bound(cu, d->file, d->line + 1); i < cu->ndecl_order; i++) {
		const struct dw_decl *n = &cu->decls[cu->decl_order[i]];

		if (n->file != d->file)
			break;
		if (n->encl == top)
			continue;
		out->limit = n->line - 1;
		break;
	}
	return 0;
}

const char *dwarf_info__line_owner(struct dwarf_info *di, u64 addr, const char *file, u32 line)
{
	struct dw_cu *cu = cu_of(di, addr);
	size_t i;

	if (!cu || !file)
		return NULL;
	if (!cu->decoded)
		decode_cu(di, cu);
	if (cu->failed)
		return NULL;
	/* file is a name another CU may have interned: compare text, as one pointer here */
	file = intern_text(di, file);
	/* the last declaration at or before line in file, not inside another function */
	for (i = decl_lower_bound(cu, file, line + 1); i-- > 0;) {
		const struct dw_decl *d = &cu->decls[cu->decl_order[i]];

		if (d->file != file)
			return NULL;
		if (d->encl == NO_SCOPE)
			return d->name;
	}
	return NULL;
}

int eh_frame__fde_around(const char *path, u64 addr, u64 *lo, u64 *hi, u64 *next)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Cie *cies = NULL;
	Dwarf_Fde *fdes = NULL;
	Dwarf_Signed ncies = 0, nfdes = 0, i;
	struct stat st;
	int fd, r = -ENOENT;

	*next = UINT64_MAX;
	fd = ebs_open_input(path, NULL, &st, NULL);
	if (fd < 0)
		return fd;
	/*
	 * Unlike dwarf_info__open, keep libdwarf's record of what it allocated
	 * for this short-lived handle: when a CIE has an augmentation it does
	 * not know, the FDE list call fails having allocated CIEs it never hands
	 * out, and only dwarf_finish with the record on frees them.
	 */
	dwarf_set_de_alloc_flag(1);
	if (dwarf_init_b(fd, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &err) != DW_DLV_OK)
		goto out;
	if (dwarf_get_fde_list_eh(dbg, &cies, &ncies, &fdes, &nfdes, &err) != DW_DLV_OK)
		goto out;
	r = 0;
	for (i = 0; i < nfdes; i++) {
		Dwarf_Addr low = 0;
		Dwarf_Unsigned len = 0;

		if (dwarf_get_fde_range(fdes[i], &low, &len, NULL, NULL, NULL, NULL, NULL, &err) !=
		    DW_DLV_OK) {
			if (err)
				dwarf_dealloc_error(dbg, err);
			err = NULL;
			continue;
		}
		if (len > UINT64_MAX - low)
			continue; /* a range that wraps: no FDE covers that */
		if (low <= addr && addr - low < len) {
			*lo = low;
			*hi = low + len;
			r = 1;
			break;
		}
		if (low > addr && low < *next)
			*next = low;
	}
	dwarf_dealloc_fde_cie_list(dbg, cies, ncies, fdes, nfdes);
out:
	if (err)
		dwarf_dealloc_error(dbg, err);
	if (dbg)
		dwarf_finish(dbg);
	dwarf_set_de_alloc_flag(0);
	close(fd);
	return r;
}
