// SPDX-License-Identifier: MIT
/*
 * gopclntab.c - the Go runtime's own table of functions, files and lines
 * (runtime.pclntab, the ELF section .gopclntab, .data.rel.ro.gopclntab in
 * a PIE), which every Go binary keeps for its tracebacks: stripped ones
 * (-ldflags='-s -w', as Go tools ship) too, where it is the only source of
 * function names and lines.  The layouts, as Go's src/debug/gosym/pclntab.go
 * and src/runtime/symtab.go read them:
 *
 *	header	magic (u32), 0, 0, quantum (1, 2 or 4), ptrsize (4 or 8), then
 *		words of ptrsize bytes:
 *	  1.2	(0xfffffffb) nfunc; the function table follows the word, then
 *		a u32: the offset of the file table (u32 count, then u32
 *		offsets of names, index 0 unused); every offset is from the
 *		table's start.
 *	  1.16	(0xfffffffa) nfunc, nfiles, and the offsets of funcnametab,
 *		cutab, filetab, pctab and of the function table (pclnOffset).
 *	  1.18	(0xfffffff0) and 1.20 (0xfffffff1): nfunc, nfiles, textStart,
 *		then the five offsets as 1.16's.
 *	functab	nfunc pairs (pc, offset of the _func from the table's start:
 *		1.2's from the pclntab's), then the end pc; each field ptrsize
 *		bytes, u32 from 1.18 with the pcs offsets from textStart.
 *	_func	entry (ptrsize; 1.18: u32 offset from textStart), then u32
 *		fields: nameoff (1.2: from the table's start; else into
 *		funcnametab), args, deferreturn, pcsp, pcfile, pcln (into
 *		pctab; 1.2: the table), npcdata, cuOffset (1.16+).
 *	pc-value tables: pairs of varints, a zig-zag value delta and a pc
 *		delta (times quantum), from value -1 at the entry; a 0 value
 *		delta after the first pair ends the table.  The file's value is
 *		an index into the file table (1.2) or, added to the function's
 *		cuOffset, into cutab, whose u32 is the name's offset in filetab.
 *
 * The table is input from a file that may be hostile: every read is bounds
 * checked; what cannot be trusted (the function table itself, a name) makes
 * gopcln__new refuse the table with one reason naming the offset; a
 * pc-value table running off the end gives no line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "symbolize/internal.h"

#define GO12_MAGIC  0xfffffffbu
#define GO116_MAGIC 0xfffffffau
#define GO118_MAGIC 0xfffffff0u
#define GO120_MAGIC 0xfffffff1u

/* pc-value steps read for one lookup: a function of 1 MiB of code has fewer */
#define MAX_STEPS (1u << 20)

struct gopcln {
	u8 *data; /* our copy of the table (the caller's while gopcln__new checks it) */
	size_t size;
	unsigned int version; /* 12, 116, 118, 120 */
	bool big;	      /* big-endian */
	u8 quantum, ptrsize;
	size_t fsz;	/* a functab field: 4 from 1.18, else ptrsize */
	u64 text_start; /* 1.18+: what entry offsets are from */
	u64 nfunc;
	/* offsets into data */
	u64 functab, funcdata, funcnametab, cutab, filetab, pctab;
	u64 nfiletab;		  /* 1.2: entries of filetab */
	struct ebs_strset *files; /* file names as shown */
};

static bool rd(const struct gopcln *g, u64 off, unsigned int len, u64 *v)
{
	u64 x = 0;
	unsigned int i;

	if (off > g->size || g->size - off < len)
		return false;
	for (i = 0; i < len; i++)
		x |= (u64)g->data[off + (g->big ? len - 1 - i : i)] << (8 * i);
	*v = x;
	return true;
}

static bool rd32(const struct gopcln *g, u64 off, u32 *v)
{
	u64 x;

	if (!rd(g, off, 4, &x))
		return false;
	*v = (u32)x;
	return true;
}

/* The NUL-terminated string at off, or NULL when it does not end inside the table. */
static const char *str_at(const struct gopcln *g, u64 base, u64 off)
{
	u64 at = base + off;

	if (at < base || at >= g->size || !memchr(g->data + at, '\0', g->size - at))
		return NULL;
	return (const char *)g->data + at;
}

/* functab's i'th pc (i == nfunc: the end), as an address. */
static bool func_pc(const struct gopcln *g, u64 i, u64 *pc)
{
	if (!rd(g, g->functab + 2 * i * g->fsz, (unsigned int)g->fsz, pc))
		return false;
	if (g->version >= 118)
		*pc += g->text_start;
	return true;
}

/* The offset in data of function i's _func. */
static bool func_off(const struct gopcln *g, u64 i, u64 *off)
{
	u64 o;

	if (!rd(g, g->functab + (2 * i + 1) * g->fsz, (unsigned int)g->fsz, &o))
		return false;
	*off = g->funcdata + o;
	return *off >= g->funcdata;
}

/* _func field n (1: nameoff ... 8: cuOffset) of the _func at off. */
static bool func_field(const struct gopcln *g, u64 off, unsigned int n, u32 *v)
{
	u64 sz0 = g->version >= 118 ? 4 : g->ptrsize;

	return rd32(g, off + sz0 + (u64)(n - 1) * 4, v);
}

static const char *func_name(const struct gopcln *g, u64 off)
{
	u32 nameoff;

	if (!func_field(g, off, 1, &nameoff))
		return NULL;
	return str_at(g, g->funcnametab, nameoff);
}

/* A table refused (EBS_E_BAD_GOPCLNTAB), or no memory: errno set, -errno. */
static int fail(struct ebs_error *why, enum ebs_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct ebs_error *why, enum ebs_code code, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	errno = -ebs_error__fail(why, code, "%s", buf);
	return -errno;
}

/* Each header: its magic, its version, the words after its first 8 bytes. */
static const struct layout {
	u32 magic;
	unsigned int version, nwords;
} layouts[] = {
	{GO12_MAGIC, 12, 1},
	{GO116_MAGIC, 116, 7},
	{GO118_MAGIC, 118, 8},
	{GO120_MAGIC, 120, 8},
};

/* The layout of a header with that magic, or NULL. */
static const struct layout *layout_of(u32 magic)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (magic == layouts[i].magic)
			return &layouts[i];
	return NULL;
}

/* The header's layout into g (data, size set): 0, or -EINVAL with why. */
static int parse_header(struct gopcln *g, u64 text_start, struct ebs_error *why)
{
	const u8 *d = g->data;
	u64 words[8] = {0};
	unsigned int i, nwords;
	const struct layout *lay;
	u32 magic, raw;

	if (g->size < 16 || d[4] || d[5] || (d[6] != 1 && d[6] != 2 && d[6] != 4) ||
	    (d[7] != 4 && d[7] != 8))
		return fail(why, EBS_E_BAD_GOPCLNTAB, "no Go pclntab header at offset 0");
	g->quantum = d[6];
	g->ptrsize = d[7];
	raw = magic = (u32)d[0] | (u32)d[1] << 8 | (u32)d[2] << 16 | (u32)d[3] << 24;
	if ((magic & 0xfffffff0u) != 0xfffffff0u) { /* none of them little-endian */
		g->big = true;
		magic = __builtin_bswap32(magic);
	}
	if (!(lay = layout_of(magic)))
		return fail(why, EBS_E_BAD_GOPCLNTAB, "unknown Go pclntab magic %#x at offset 0",
			    (unsigned int)raw);
	g->version = lay->version;
	nwords = lay->nwords;
	for (i = 0; i < nwords; i++)
		if (!rd(g, 8 + (u64)i * g->ptrsize, g->ptrsize, &words[i]))
			return fail(why, EBS_E_BAD_GOPCLNTAB,
				    "the Go %s pclntab header is cut short (%zu bytes)",
				    gopcln__version_name(g), g->size);
	g->nfunc = words[0];
	g->fsz = g->version >= 118 ? 4 : g->ptrsize;
	if (g->version == 12) {
		u64 fileoff_at, end;
		u32 fileoff, n;

		g->functab = 8 + (u64)g->ptrsize;
		g->funcdata = g->funcnametab = g->pctab = 0;
		/* nfunc bounded by the size first: (2n + 1) * fsz cannot wrap */
		if (g->nfunc > g->size / 8)
			return fail(why, EBS_E_BAD_GOPCLNTAB, "%llu functions in %zu bytes",
				    (unsigned long long)g->nfunc, g->size);
		fileoff_at = g->functab + (2 * g->nfunc + 1) * g->fsz;
		if (!rd32(g, fileoff_at, &fileoff) || !rd32(g, fileoff, &n))
			return fail(why, EBS_E_BAD_GOPCLNTAB,
				    "the file table's offset (at %#llx) is outside the table",
				    (unsigned long long)fileoff_at);
		end = (u64)fileoff + 4 * (u64)n;
		if (end > g->size)
			return fail(why, EBS_E_BAD_GOPCLNTAB,
				    "the file table at %#x (%u entries) runs past the table's end",
				    fileoff, n);
		g->filetab = fileoff;
		g->nfiletab = n;
	} else {
		unsigned int base = g->version >= 118 ? 3 : 2;
		static const char *const names[] = {"funcnametab", "cutab", "filetab", "pctab",
						    "functab"};

		for (i = 0; i < 5; i++)
			if (words[base + i] > g->size)
				return fail(why, EBS_E_BAD_GOPCLNTAB,
					    "its %s offset %#llx is past its end (%zu bytes)",
					    names[i], (unsigned long long)words[base + i], g->size);
		g->funcnametab = words[base];
		g->cutab = words[base + 1];
		g->filetab = words[base + 2];
		g->pctab = words[base + 3];
		g->functab = g->funcdata = words[base + 4];
		if (g->version >= 118)
			g->text_start = text_start ? text_start : words[2];
	}
	if (!g->nfunc)
		return fail(why, EBS_E_BAD_GOPCLNTAB, "no functions");
	if (g->nfunc > (g->size - g->functab) / (2 * g->fsz) ||
	    (2 * g->nfunc + 1) * g->fsz > g->size - g->functab)
		return fail(why, EBS_E_BAD_GOPCLNTAB,
			    "its function table at %#llx (%llu functions) runs past its end",
			    (unsigned long long)g->functab, (unsigned long long)g->nfunc);
	return 0;
}

/* Every function's pc in order, its _func and its name inside the table. */
static int check_functions(const struct gopcln *g, struct ebs_error *why)
{
	u64 i, prev = 0, pc, off;

	for (i = 0; i <= g->nfunc; i++) {
		if (!func_pc(g, i, &pc))
			return fail(why, EBS_E_BAD_GOPCLNTAB, "function %llu's pc is unreadable",
				    (unsigned long long)i);
		if (i && pc < prev)
			return fail(why, EBS_E_BAD_GOPCLNTAB,
				    "the function table at %#llx is out of order at entry %llu",
				    (unsigned long long)g->functab, (unsigned long long)i);
		prev = pc;
		if (i == g->nfunc)
			break;
		if (!func_off(g, i, &off) ||
		    !func_field(g, off, g->version == 12 ? 7 : 8, &(u32){0}))
			return fail(why, EBS_E_BAD_GOPCLNTAB,
				    "function %llu's record (at %#llx) is outside the table",
				    (unsigned long long)i,
				    (unsigned long long)(g->functab + (2 * i + 1) * g->fsz));
		if (!func_name(g, off))
			return fail(
				why, EBS_E_BAD_GOPCLNTAB,
				"function %llu's name (its record at %#llx) is outside the table",
				(unsigned long long)i, (unsigned long long)off);
	}
	return 0;
}

struct gopcln *gopcln__new(const void *data, size_t size, u64 text_start, struct ebs_error *why)
{
	struct gopcln *g;

	ebs_error__clear(why);
	g = calloc(1, sizeof(*g));
	if (!g) {
		fail(why, EBS_E_NOMEM, "out of memory");
		return NULL;
	}
	/* checked in place, copied once it holds (a scan tries many) */
	g->data = (u8 *)data;
	g->size = size;
	if (parse_header(g, text_start, why) || check_functions(g, why)) {
		free(g);
		errno = EINVAL;
		return NULL;
	}
	g->data = malloc(size);
	if (!g->data) {
		free(g);
		fail(why, EBS_E_NOMEM, "out of memory");
		return NULL;
	}
	memcpy(g->data, data, size);
	return g;
}

void gopcln__free(struct gopcln *g)
{
	if (!g)
		return;
	ebs_strset__free(&g->files);
	free(g->data);
	free(g);
}

const char *gopcln__version_name(const struct gopcln *g)
{
	switch (g->version) {
	case 12:
		return "1.2";
	case 116:
		return "1.16";
	case 118:
		return "1.18";
	default:
		return "1.20";
	}
}

size_t gopcln__count(const struct gopcln *g)
{
	return (size_t)g->nfunc;
}

int gopcln__func(const struct gopcln *g, size_t i, u64 *lo, u64 *hi, const char **name)
{
	u64 off;

	if (i >= g->nfunc || !func_pc(g, i, lo) || !func_pc(g, i + 1, hi) ||
	    !func_off(g, i, &off) || !(*name = func_name(g, off)))
		return -EINVAL;
	return 0;
}

/* A varint of at most 32 bits at *p (advanced), false past the end. */
static bool varint(const struct gopcln *g, u64 *p, u32 *v)
{
	u32 x = 0;
	unsigned int shift;

	for (shift = 0; shift < 35; shift += 7) {
		u8 b;

		if (*p >= g->size)
			return false;
		b = g->data[(*p)++];
		x |= (u32)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/*
 * The value the pc-value table at off (in pctab) gives pc, in the function
 * entered at entry, as Go's pcvalue: -1 when the table has none (or is cut
 * short, or off is 0: no table).
 */
static s32 pcvalue(const struct gopcln *g, u32 off, u64 entry, u64 pc)
{
	u64 p = g->pctab + off, cur = entry;
	u32 val = (u32)-1, uv, pcd;
	unsigned int steps;

	if (!off || p < g->pctab)
		return -1;
	for (steps = 0; steps < MAX_STEPS; steps++) {
		if (!varint(g, &p, &uv) || (!uv && steps))
			return -1;
		/* zig-zag, in unsigned arithmetic: Go's int32 wraps */
		val += uv & 1 ? ~(uv >> 1) : uv >> 1;
		if (!varint(g, &p, &pcd))
			return -1;
		cur += (u32)(pcd * g->quantum);
		if (pc < cur)
			return (s32)val;
	}
	return -1;
}

int gopcln__lookup(struct gopcln *g, u64 pc, struct gopcln_hit *hit)
{
	u64 lo = 0, hi = g->nfunc, first, last, off, entry;
	u32 pcfile, pcln, cu, fnoff;
	const char *file = NULL;
	s32 fno, line;

	memset(hit, 0, sizeof(*hit));
	if (!func_pc(g, 0, &first) || !func_pc(g, g->nfunc, &last) || pc < first || pc >= last)
		return -ENOENT;
	/* the pcs are in order (check_functions): the last entry at or below pc */
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2, at;

		if (!func_pc(g, mid, &at))
			return -ENOENT;
		if (at <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (gopcln__func(g, lo, &hit->lo, &hit->hi, &hit->name) || !func_off(g, lo, &off))
		return -ENOENT;
	if (g->version >= 118) {
		u32 e;

		if (!rd32(g, off, &e))
			return 0;
		entry = g->text_start + e;
	} else if (!rd(g, off, g->ptrsize, &entry)) {
		return 0;
	}
	if (!func_field(g, off, 5, &pcfile) || !func_field(g, off, 6, &pcln))
		return 0;
	line = pcvalue(g, pcln, entry, pc);
	fno = pcvalue(g, pcfile, entry, pc);
	if (g->version == 12) {
		/* index 0 is the count */
		if (fno > 0 && (u64)fno < g->nfiletab && rd32(g, g->filetab + 4 * (u64)fno, &fnoff))
			file = str_at(g, 0, fnoff);
	} else if (fno >= 0 && func_field(g, off, 8, &cu) &&
		   rd32(g, g->cutab + 4 * ((u64)cu + (u64)fno), &fnoff) && fnoff != UINT32_MAX) {
		file = str_at(g, g->filetab, fnoff);
	}
	if (file && !(hit->file = ebs_strset__intern_clean(&g->files, file)))
		return -ENOMEM;
	hit->line = line > 0 ? (u32)line : 0;
	return 0;
}

/*
 * Whether e carries the note Go's linker writes: its build ID, owner "Go"
 * (namesz 4: "Go\0\0"), type 4.
 */
static bool has_go_note(Elf *e)
{
	size_t i, nph;

	if (elf_getphdrnum(e, &nph))
		return false;
	for (i = 0; i < nph; i++) {
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE || !ph.p_filesz)
			continue;
		data = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == 4 && (nh.n_namesz == 3 || nh.n_namesz == 4) &&
			    !memcmp((const char *)data->d_buf + name_off, "Go", 3))
				return true;
	}
	return false;
}

/*
 * Where the table is when no section names it (section headers stripped):
 * in a segment of data, found by its header, in a file with Go's note only.
 */
static struct gopcln *scan_segments(Elf *e, u64 text_start, struct ebs_error *why)
{
	size_t i, nph;
	int tries = 0;

	if (elf_getphdrnum(e, &nph))
		return NULL;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		const u8 *b;
		size_t at;

		/* the table is read-only data: never in code, never in .bss */
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || (ph.p_flags & PF_X) ||
		    !ph.p_filesz)
			continue;
		data = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!data || !data->d_buf)
			continue;
		b = data->d_buf;
		/* the linker aligns it: Go's runtime.pclntab is 32-byte aligned */
		for (at = 0; at + 16 <= data->d_size && tries < 64; at += 8) {
			struct gopcln *g;
			u32 m;

			memcpy(&m, b + at, 4);
			if (!layout_of(m) || b[at + 4] || b[at + 5])
				continue;
			tries++;
			g = gopcln__new(b + at, data->d_size - at, text_start, why);
			if (g || errno == ENOMEM)
				return g;
		}
	}
	ebs_error__clear(why);
	return NULL;
}

struct gopcln *gopcln__from_elf(Elf *e, u64 *table_off, struct ebs_error *why)
{
	Elf_Scn *scn = NULL, *pcln = NULL;
	GElf_Shdr pcln_sh;
	u64 text_start = 0;
	size_t shstrndx;
	struct gopcln *g;
	Elf_Data *data;

	ebs_error__clear(why);
	*table_off = 0;
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = SHN_UNDEF;
	while (shstrndx != SHN_UNDEF && (scn = elf_nextscn(e, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text") && (sh.sh_flags & SHF_EXECINSTR))
			text_start = sh.sh_addr;
		else if ((!strcmp(name, ".gopclntab") || !strcmp(name, ".data.rel.ro.gopclntab")) &&
			 sh.sh_type != SHT_NOBITS && !pcln) {
			pcln = scn;
			pcln_sh = sh;
		}
	}
	/*
	 * 1.18's entries are offsets from runtime.text, which Go's own linker
	 * puts at the start of .text; the header's textStart (relocated in
	 * the file by Go's linker, which writes RELA addends in place too)
	 * says where when an external linker put C code before it.
	 */
	if (!pcln) {
		errno = 0;
		g = has_go_note(e) ? scan_segments(e, 0, why) : NULL;
		if (!g && errno != ENOMEM)
			errno = ENOENT;
		return g;
	}
	*table_off = pcln_sh.sh_offset;
	data = elf_rawdata(pcln, NULL);
	if (!data || !data->d_buf || data->d_size != pcln_sh.sh_size) {
		ebs_error__fail(why, EBS_E_BAD_GOPCLNTAB, "cannot read its %llu bytes",
				(unsigned long long)pcln_sh.sh_size);
		errno = EINVAL;
		return NULL;
	}
	g = gopcln__new(data->d_buf, data->d_size, 0, why);
	/* the header's textStart: trusted unless 0 (an unrelocated PIE's) */
	if (g && g->version >= 118 && !g->text_start)
		g->text_start = text_start;
	return g;
}
