// SPDX-License-Identifier: MIT
/*
 * dwarf_cache.c - what dwarf.c decodes from a DSO's DWARF, kept between
 * runs in the cache directory (cache.c), so that a later report of the
 * same binaries reads it instead of inflating and decoding the DWARF.
 *
 * One entry per DWARF file, named by that file's build-id:
 * HEX.v4.dwarf (HEX.v4.mangled.dwarf for names left mangled).  It holds
 * the index (every unit and its address spans) and each unit decoded so
 * far, by any run; a run that decodes a unit the entry lacks writes the
 * entry again with it (and with every unit the entry had).  All numbers
 * are in the writing machine's byte order:
 *
 *   header   struct dwc_header: magic, DWC_VERSION, byte order, the key
 *            (build-id, demangling, the DWARF file's size and the SHA-256
 *            of what decoding reads of it, digest.c: the entry is of that
 *            very file, not of another with the same build-id; libdwarf's
 *            version: a different libdwarf may decode differently), where
 *            the index is, the file's size, the index's and its own hash
 *   blocks   one per unit kept, each at an 8-byte boundary: struct
 *            dwc_block's counts, then its rows and segments as dwarf.c
 *            holds them (read into memory and used in place), its decls,
 *            scopes, file names (string numbers), and its strings
 *            (offsets, then the NUL-terminated bytes: interned on load;
 *            a unit whose file names held control characters is never
 *            kept, for its names here are the cleaned ones and a source
 *            file is opened by its real name: dwarf_info__raw_name);
 *            flagged DWCB_NO_ROWS when decoded without its line table (no
 *            rows, no files), which serves only a run that wants no lines
 *   index    struct dwc_cu per unit (where its block is, the block's
 *            hash), struct dwc_span per span, by (lo, unit), and the
 *            first problem met building the index
 *
 * An entry is untrusted input.  The header and the index are checked when
 * the DWARF is opened; a unit's block when the unit is first wanted: its
 * sizes, its hash (XXH64, chained over head, rows and the rest), every
 * string ending inside it and free of control characters, every index
 * into another array in range, rows sorted, segments sorted and apart, a
 * scope's parent before it.  What does not hold is not used: the DWARF is
 * read instead, as without a cache, and the entry is written anew.  The
 * checksums (header, index, blocks) are XXH64: they catch a torn or
 * corrupt entry, not a crafted one, for an entry is a file of the caller's
 * own in a directory only the caller may write (cache.c); what decides
 * whose entry it is, the key's digest of the source, is cryptographic.
 *
 * Why one file of ~960 lines: the reader and the writer of one file
 * format, kept side by side so that they cannot drift.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "symbolize/dwarf_int.h"

#define DWC_VERSION                                                                                \
	6 /* 2: the source's SHA-256 (digest.c), not its XXH64; 3: no unit                         \
	   * whose file names held control characters (dw_cu.raw_names);                           \
	   * 4: names demangled by libiberty, Rust's too (demangle.c); 5:                          \
	   * dwz's names, rows at the default file register, split skeletons;                      \
	   * 6: names through DW_FORM_ref_sup4/8 (dwz -5) */
#define DWC_MAGIC    "EBSDWC\r\n"
#define DWC_ENDIAN   0x01020304u
#define DWC_MANGLED  1u /* flags: names as the file has them */
#define DWCB_FAILED  1u /* block flags: the unit does not decode */
#define DWCB_NO_ROWS 2u /* decoded without its line table: no rows, no files */
#define DWC_NOTE_LEN WHY_LEN

struct dwc_header {
	char magic[8];
	u32 version;
	u32 endian;
	u32 header_size;
	u32 flags;
	u8 build_id[20];
	u8 build_id_size;
	u8 pad[3];
	u32 ncus;
	u32 pad2;
	u64 nspans;
	u64 dwarf_size;			 /* of the DWARF file */
	u8 dwarf_digest[SYM_DIGEST_LEN]; /* of what decoding reads of it (sym_dwarf_digest) */
	char libdwarf[32];		 /* dwarf_package_version(), NUL-padded */
	u64 index_off;
	u64 index_len;
	u64 index_hash;
	u64 file_size;
	u64 header_hash; /* of the header with this field 0 */
};
_Static_assert(sizeof(struct dwc_header) == 176, "no padding in the header");

struct dwc_cu {
	u64 die_off, base, rng_base;
	u64 blk_off, blk_len, blk_hash; /* blk_len 0: not kept */
	u16 version;
	u16 pad;
	u32 pad2;
};
_Static_assert(sizeof(struct dwc_cu) == 56, "no padding in a unit");

struct dwc_span {
	u64 lo, hi;
	u32 cu;
	u32 pad;
};
_Static_assert(sizeof(struct dwc_span) == 24, "no padding in a span");

struct dwc_block {
	u32 nrows, nsegs, ndecls, nscopes;
	u32 nfiles, nstrs, strs_len;
	u32 note; /* a string, or NO_SCOPE */
	u32 flags;
	u32 pad;
};
_Static_assert(sizeof(struct dwc_block) == 40, "no padding in a block's head");

struct dwc_decl {
	u64 off, ref;
	u32 file, name; /* strings, or NO_SCOPE */
	u32 line, encl;
};
_Static_assert(sizeof(struct dwc_decl) == 32, "no padding in a decl");

struct dwc_scope {
	u32 name; /* a string, or NO_SCOPE */
	u32 parent, decl, depth, call_file, call_line, call_column;
};
_Static_assert(sizeof(struct dwc_scope) == 28, "no padding in a scope");

/* ---- file I/O ---------------------------------------------------------- */

static int pread_all(int fd, void *buf, size_t len, u64 off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* A sequential writer: its offset and the first error. */
struct out {
	int fd;
	u64 off;
	int err;
};

static void out_write(struct out *o, const void *buf, size_t len)
{
	size_t done = 0;

	while (!o->err && done < len) {
		ssize_t n = write(o->fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->err = n < 0 ? errno : EIO;
		else
			done += (size_t)n;
	}
	o->off += len;
}

static void out_align(struct out *o)
{
	static const char zero[8];

	if (o->off % 8)
		out_write(o, zero, 8 - o->off % 8);
}

/* ---- the key ----------------------------------------------------------- */

void dwarf_cache_entry_name(char *buf, size_t len, const u8 *build_id, u8 build_id_size,
			    bool demangle)
{
	char hex[41];

	ebs_format_hex(hex, sizeof(hex), build_id, build_id_size);
	snprintf(buf, len, "%s.v%d%s.dwarf", hex, DWC_VERSION, demangle ? "" : ".mangled");
}

static void entry_name(const struct dwarf_info *di, char *buf, size_t len)
{
	dwarf_cache_entry_name(buf, len, di->build_id, di->build_id_size, di->demangle);
}

static void libdwarf_version(char out[32])
{
	const char *v = dwarf_package_version();

	memset(out, 0, 32);
	snprintf(out, 32, "%s", v ? v : "?");
}

static u64 header_hash(const struct dwc_header *h)
{
	struct dwc_header c = *h;

	c.header_hash = 0;
	return sym_hash64(&c, sizeof(c), 0);
}

/* ---- reading ------------------------------------------------------------ */

/* An entry's index, read and checked against di's key. */
struct dwc_index {
	struct dwc_header h;
	void *buf; /* the index block */
	const struct dwc_cu *cus;
	const struct dwc_span *spans;
	const char *note;
};

static bool block_place_ok(const struct dwc_cu *c, u64 index_off)
{
	if (!c->blk_len)
		return !c->blk_off && !c->blk_hash;
	return c->blk_off >= sizeof(struct dwc_header) && !(c->blk_off % 8) &&
	       c->blk_len >= sizeof(struct dwc_block) && c->blk_off <= index_off &&
	       c->blk_len <= index_off - c->blk_off;
}

static int span_order(const struct dwc_span *a, const struct dwc_span *b)
{
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->cu < b->cu ? -1 : a->cu > b->cu;
}

/*
 * Read and check the header and the index of the entry open on fd (size
 * bytes).  0, -ESTALE for an entry of another key (another version, file
 * size, libdwarf), -EBADMSG for one that does not hold, -ENOMEM.
 */
static int read_index(const struct dwarf_info *di, int fd, u64 size, struct dwc_index *ix)
{
	struct dwc_header *h = &ix->h;
	char dwv[32];
	u64 want, i;
	int e;

	memset(ix, 0, sizeof(*ix));
	if (size < sizeof(*h))
		return -EBADMSG;
	e = pread_all(fd, h, sizeof(*h), 0);
	if (e)
		return e == -EIO ? -EBADMSG : e;
	if (memcmp(h->magic, DWC_MAGIC, 8) || h->header_size != sizeof(*h) ||
	    h->endian != DWC_ENDIAN || h->header_hash != header_hash(h))
		return -EBADMSG;
	libdwarf_version(dwv);
	if (h->version != DWC_VERSION || h->flags != (di->demangle ? 0 : DWC_MANGLED) ||
	    h->build_id_size != di->build_id_size ||
	    memcmp(h->build_id, di->build_id, di->build_id_size) ||
	    h->dwarf_size != di->file_size || memcmp(h->dwarf_digest, di->digest, SYM_DIGEST_LEN) ||
	    memcmp(h->libdwarf, dwv, sizeof(dwv)))
		return -ESTALE;
	if (h->file_size != size || h->index_off < sizeof(*h) || h->index_off > size ||
	    h->index_len != size - h->index_off || h->nspans > size / sizeof(struct dwc_span) ||
	    h->ncus > size / sizeof(struct dwc_cu))
		return -EBADMSG;
	want = (u64)h->ncus * sizeof(struct dwc_cu) + h->nspans * sizeof(struct dwc_span) +
	       DWC_NOTE_LEN;
	if (h->index_len != want || h->ncus >= NO_SCOPE)
		return -EBADMSG;
	ix->buf = malloc(want);
	if (!ix->buf)
		return -ENOMEM;
	e = pread_all(fd, ix->buf, want, h->index_off);
	if (e || sym_hash64(ix->buf, want, 0) != h->index_hash)
		goto bad;
	ix->cus = ix->buf;
	ix->spans = (const struct dwc_span *)(ix->cus + h->ncus);
	ix->note = (const char *)(ix->spans + h->nspans);
	for (i = 0; i < h->ncus; i++)
		if (!block_place_ok(&ix->cus[i], h->index_off))
			goto bad;
	for (i = 0; i < h->nspans; i++) {
		const struct dwc_span *sp = &ix->spans[i];

		if (sp->cu >= h->ncus || sp->lo >= sp->hi ||
		    (i && span_order(&ix->spans[i - 1], sp) > 0))
			goto bad;
	}
	if (!memchr(ix->note, 0, DWC_NOTE_LEN) || !sym_text_is_clean(ix->note))
		goto bad;
	return 0;
bad:
	free(ix->buf);
	ix->buf = NULL;
	return e == -ENOMEM ? e : -EBADMSG;
}

int dwarf_cache_load(struct dwarf_info *di)
{
	struct dwc_index ix;
	char name[80];
	struct stat st;
	u64 i;
	int fd, e;

	entry_name(di, name, sizeof(name));
	fd = sym_cache__open(di->cache, name, &st);
	if (fd < 0)
		return fd;
	e = read_index(di, fd, (u64)st.st_size, &ix);
	if (e) {
		close(fd);
		return e;
	}
	if (ix.h.ncus) {
		di->cus = calloc(ix.h.ncus, sizeof(*di->cus));
		if (!di->cus)
			goto nomem;
	}
	if (ix.h.nspans) {
		di->spans = malloc(ix.h.nspans * sizeof(*di->spans));
		if (!di->spans)
			goto nomem;
	}
	for (i = 0; i < ix.h.ncus; i++) {
		const struct dwc_cu *c = &ix.cus[i];
		struct dw_cu *cu = &di->cus[i];

		cu->die_off = c->die_off;
		cu->base = c->base;
		cu->rng_base = c->rng_base;
		cu->version = c->version;
		cu->blk_off = c->blk_off;
		cu->blk_len = c->blk_len;
		cu->blk_hash = c->blk_hash;
	}
	for (i = 0; i < ix.h.nspans; i++)
		di->spans[i] = (struct cu_span){ix.spans[i].lo, ix.spans[i].hi, 0, ix.spans[i].cu};
	di->ncus = ix.h.ncus;
	di->nspans = ix.h.nspans;
	dwarf_index_spans(di);
	snprintf(di->why, sizeof(di->why), "%s", ix.note);
	memcpy(di->index_why, di->why, sizeof(di->why));
	di->efd = fd;
	di->efile_size = (u64)st.st_size;
	free(ix.buf);
	sym_cache__used(fd);
	return 0;
nomem:
	free(di->cus);
	free(di->spans);
	di->cus = NULL;
	di->spans = NULL;
	free(ix.buf);
	close(fd);
	return -ENOMEM;
}

/* Where the parts of a block are, from its (checked) counts. */
struct blk_layout {
	u64 rows, segs, decls, scopes, files, stroffs, strs, end;
};

static bool block_layout(const struct dwc_block *b, u64 len, struct blk_layout *l)
{
	l->rows = sizeof(*b);
	l->segs = l->rows + (u64)b->nrows * sizeof(struct dw_row);
	l->decls = l->segs + (u64)b->nsegs * sizeof(struct dw_seg);
	l->scopes = l->decls + (u64)b->ndecls * sizeof(struct dwc_decl);
	l->files = l->scopes + (u64)b->nscopes * sizeof(struct dwc_scope);
	l->stroffs = l->files + (u64)b->nfiles * sizeof(u32);
	l->strs = l->stroffs + (u64)b->nstrs * sizeof(u32);
	l->end = l->strs + b->strs_len;
	/* u32 counts: no sum here can wrap a u64 */
	return l->end == len && b->nrows < NO_SCOPE && b->nsegs < NO_SCOPE &&
	       b->ndecls < NO_SCOPE - 1 && b->nscopes < NO_SCOPE - 1 && b->nfiles < NO_SCOPE &&
	       b->nstrs < NO_SCOPE;
}

/* A block's hash: chained over its head, its rows, and the rest. */
static u64 block_hash(const void *head, const void *rows, size_t rows_len, const void *rest,
		      size_t rest_len)
{
	u64 h = sym_hash64(head, sizeof(struct dwc_block), 0);

	h = sym_hash64(rows, rows_len, h);
	return sym_hash64(rest, rest_len, h);
}

static u64 whole_block_hash(const unsigned char *blk, const struct blk_layout *l)
{
	return block_hash(blk, blk + l->rows, l->segs - l->rows, blk + l->segs, l->end - l->segs);
}

static bool str_ok(u32 s, u32 nstrs)
{
	return s == NO_SCOPE || s < nstrs;
}

/* Check a block's arrays; strings are checked by intern_block. */
static bool block_ok(const unsigned char *blk, const struct dwc_block *b,
		     const struct blk_layout *l)
{
	const struct dw_row *rows = (const void *)(blk + l->rows);
	const struct dw_seg *segs = (const void *)(blk + l->segs);
	const struct dwc_decl *decls = (const void *)(blk + l->decls);
	const struct dwc_scope *scopes = (const void *)(blk + l->scopes);
	const u32 *files = (const void *)(blk + l->files);
	u32 i;

	if ((b->flags & ~(DWCB_FAILED | DWCB_NO_ROWS)) || b->pad || !str_ok(b->note, b->nstrs) ||
	    ((b->flags & DWCB_FAILED) && (b->nrows || b->nsegs || b->ndecls || b->nscopes)) ||
	    ((b->flags & DWCB_NO_ROWS) && (b->nrows || b->nfiles)))
		return false;
	for (i = 0; i < b->nrows; i++)
		if ((i && rows[i].addr < rows[i - 1].addr) ||
		    (rows[i].file != NO_SCOPE && rows[i].file >= b->nfiles))
			return false;
	for (i = 0; i < b->nsegs; i++)
		if (segs[i].lo >= segs[i].hi || segs[i].scope >= b->nscopes ||
		    (i && segs[i].lo < segs[i - 1].hi))
			return false;
	for (i = 0; i < b->ndecls; i++)
		if (!str_ok(decls[i].file, b->nstrs) || !str_ok(decls[i].name, b->nstrs) ||
		    (decls[i].encl != NO_SCOPE && decls[i].encl >= b->nscopes))
			return false;
	for (i = 0; i < b->nscopes; i++) {
		const struct dwc_scope *sc = &scopes[i];

		if (!str_ok(sc->name, b->nstrs) || (sc->parent != NO_SCOPE && sc->parent >= i) ||
		    (sc->decl != NO_SCOPE && sc->decl >= b->ndecls) ||
		    (sc->call_file != NO_SCOPE && sc->call_file >= b->nfiles))
			return false;
	}
	for (i = 0; i < b->nfiles; i++)
		if (files[i] >= b->nstrs)
			return false;
	return true;
}

/* The block's strings: each ends inside it and has no control characters. */
static bool strings_ok(const unsigned char *blk, const struct dwc_block *b,
		       const struct blk_layout *l)
{
	const u32 *offs = (const void *)(blk + l->stroffs);
	const char *strs = (const char *)blk + l->strs;
	u32 i;

	if (!b->nstrs)
		return true;
	if (!b->strs_len || strs[b->strs_len - 1])
		return false; /* then every string ends inside */
	for (i = 0; i < b->nstrs; i++)
		if (offs[i] >= b->strs_len || !sym_text_is_clean(strs + offs[i]))
			return false;
	return true;
}

/* Does the block of len bytes at blk hold: its sizes, its hash, every part? */
static bool block_holds(const unsigned char *blk, u64 len, u64 hash, struct blk_layout *l)
{
	const struct dwc_block *b = (const void *)blk;

	return len >= sizeof(*b) && block_layout(b, len, l) && whole_block_hash(blk, l) == hash &&
	       block_ok(blk, b, l) && strings_ok(blk, b, l);
}

/* The block's strings (checked: block_holds), interned: *out, malloc'd.  0 or -ENOMEM. */
static int intern_block(struct dwarf_info *di, const unsigned char *blk, const struct dwc_block *b,
			const struct blk_layout *l, const char ***out)
{
	const u32 *offs = (const void *)(blk + l->stroffs);
	const char *strs = (const char *)blk + l->strs;
	const char **p;
	u32 i;

	*out = NULL;
	if (!b->nstrs)
		return 0;
	p = malloc(b->nstrs * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < b->nstrs; i++) {
		p[i] = ebs_strset__intern(&di->strs, strs + offs[i]);
		if (!p[i]) {
			free(p);
			return -ENOMEM;
		}
	}
	*out = p;
	return 0;
}

static const char *str_of(const char **strs, u32 s)
{
	return s == NO_SCOPE ? NULL : strs[s];
}

int dwarf_cache_load_cu(struct dwarf_info *di, struct dw_cu *cu)
{
	const struct dwc_block *b;
	const struct dwc_decl *decls;
	const struct dwc_scope *scopes;
	const u32 *files;
	struct blk_layout l;
	const char **strs = NULL;
	unsigned char *blk;
	u32 i;
	int e;

	if (di->efd < 0 || cu->blk_len > di->efile_size)
		return -EBADMSG;
	blk = malloc(cu->blk_len);
	if (!blk)
		return -ENOMEM;
	e = pread_all(di->efd, blk, cu->blk_len, cu->blk_off);
	b = (const void *)blk;
	if (e || !block_holds(blk, cu->blk_len, cu->blk_hash, &l)) {
		free(blk);
		return -EBADMSG;
	}
	/* kept by a run that wanted no lines: of no use to one that does */
	if ((b->flags & DWCB_NO_ROWS) && !di->no_lines) {
		free(blk);
		return -ENODATA;
	}
	e = intern_block(di, blk, b, &l, &strs);
	if (e) {
		free(blk);
		return e;
	}
	decls = (const void *)(blk + l.decls);
	scopes = (const void *)(blk + l.scopes);
	files = (const void *)(blk + l.files);
	cu->blk = blk;
	cu->rows = (struct dw_row *)(blk + l.rows);
	cu->nrows = b->nrows;
	cu->segs = (struct dw_seg *)(blk + l.segs);
	cu->nsegs = b->nsegs;
	cu->failed = b->flags & DWCB_FAILED;
	cu->no_rows = b->flags & DWCB_NO_ROWS;
	cu->problem = str_of(strs, b->note);
	if ((b->nscopes && !(cu->scopes = malloc(b->nscopes * sizeof(*cu->scopes)))) ||
	    (b->ndecls && !(cu->decls = malloc(b->ndecls * sizeof(*cu->decls)))) ||
	    (b->nfiles && !(cu->files = malloc(b->nfiles * sizeof(*cu->files)))))
		goto nomem;
	for (i = 0; i < b->nscopes; i++)
		cu->scopes[i] = (struct dw_scope){
			.name = str_of(strs, scopes[i].name),
			.parent = scopes[i].parent,
			.decl = scopes[i].decl,
			.depth = scopes[i].depth,
			.call_file = scopes[i].call_file,
			.call_line = scopes[i].call_line,
			.call_column = scopes[i].call_column,
		};
	cu->nscopes = cu->cap_scopes = b->nscopes;
	for (i = 0; i < b->ndecls; i++)
		cu->decls[i] = (struct dw_decl){
			.off = decls[i].off,
			.ref = decls[i].ref,
			.file = str_of(strs, decls[i].file),
			.name = str_of(strs, decls[i].name),
			.line = decls[i].line,
			.encl = decls[i].encl,
		};
	cu->ndecls = cu->cap_decls = b->ndecls;
	for (i = 0; i < b->nfiles; i++)
		cu->files[i] = strs[files[i]];
	cu->nfiles = b->nfiles;
	if (dwarf_order_decls(cu))
		goto nomem;
	free(strs);
	return 0;
nomem:
	free(strs);
	dwarf_cu_clear(cu);
	cu->failed = false;
	return -ENOMEM;
}

/* ---- writing ------------------------------------------------------------ */

struct str_ent {
	UT_hash_handle hh;
	const char *s;
	u32 idx;
};

/* A unit's strings, numbered in order of first use. */
struct str_tab {
	struct str_ent *by_ptr;
	struct str_ent *ents;
	u32 n, cap;
	u64 bytes;
	int err;
};

static u32 str_idx(struct str_tab *t, const char *s)
{
	struct str_ent *e;

	if (!s)
		return NO_SCOPE;
	HASH_FIND_PTR(t->by_ptr, &s, e);
	if (e)
		return e->idx;
	if (t->err || t->n == t->cap || t->bytes + strlen(s) + 1 > UINT32_MAX) {
		t->err = t->err ? t->err : -E2BIG;
		return NO_SCOPE;
	}
	e = &t->ents[t->n];
	e->s = s;
	e->idx = t->n;
	HASH_ADD_PTR(t->by_ptr, s, e);
	if (!e->hh.tbl) {
		t->err = -ENOMEM;
		return NO_SCOPE;
	}
	t->bytes += strlen(s) + 1;
	return t->n++;
}

/* The rest of a fresh unit's block (all but head and rows), into *out. */
static int serialize_rest(const struct dw_cu *cu, struct dwc_block *b, void **out, size_t *len)
{
	struct str_tab t = {0};
	struct dwc_decl *decls;
	struct dwc_scope *scopes;
	struct blk_layout l;
	unsigned char *buf = NULL;
	u32 *files, *offs;
	size_t i;
	u64 at;

	*out = NULL;
	/* every string a unit names, at most: scopes, decls' two, files, the note */
	t.cap = (u32)(cu->nscopes + 2 * cu->ndecls + cu->nfiles + 1);
	t.ents = calloc(t.cap, sizeof(*t.ents));
	if (!t.ents)
		return -ENOMEM;
	memset(b, 0, sizeof(*b));
	b->nrows = (u32)cu->nrows;
	b->nsegs = (u32)cu->nsegs;
	b->ndecls = (u32)cu->ndecls;
	b->nscopes = (u32)cu->nscopes;
	b->nfiles = cu->nfiles;
	b->flags = (cu->failed ? DWCB_FAILED : 0) | (cu->no_rows ? DWCB_NO_ROWS : 0);
	b->note = str_idx(&t, cu->problem);
	for (i = 0; i < cu->nscopes; i++)
		str_idx(&t, cu->scopes[i].name);
	for (i = 0; i < cu->ndecls; i++) {
		str_idx(&t, cu->decls[i].file);
		str_idx(&t, cu->decls[i].name);
	}
	for (i = 0; i < cu->nfiles; i++)
		if (str_idx(&t, cu->files[i]) == NO_SCOPE && !t.err)
			t.err = -EINVAL; /* a file without a name is not written */
	if (t.err)
		goto out;
	b->nstrs = t.n;
	b->strs_len = (u32)t.bytes;
	block_layout(b, 0, &l);
	*len = (size_t)(l.end - l.segs);
	buf = calloc(1, *len ? *len : 1);
	if (!buf) {
		t.err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < cu->nsegs; i++) {
		struct dw_seg s = {cu->segs[i].lo, cu->segs[i].hi, cu->segs[i].scope, 0};

		memcpy(buf + i * sizeof(s), &s, sizeof(s));
	}
	decls = (void *)(buf + (l.decls - l.segs));
	for (i = 0; i < cu->ndecls; i++)
		decls[i] = (struct dwc_decl){
			.off = cu->decls[i].off,
			.ref = cu->decls[i].ref,
			.file = str_idx(&t, cu->decls[i].file),
			.name = str_idx(&t, cu->decls[i].name),
			.line = cu->decls[i].line,
			.encl = cu->decls[i].encl,
		};
	scopes = (void *)(buf + (l.scopes - l.segs));
	for (i = 0; i < cu->nscopes; i++)
		scopes[i] = (struct dwc_scope){
			.name = str_idx(&t, cu->scopes[i].name),
			.parent = cu->scopes[i].parent,
			.decl = cu->scopes[i].decl,
			.depth = cu->scopes[i].depth,
			.call_file = cu->scopes[i].call_file,
			.call_line = cu->scopes[i].call_line,
			.call_column = cu->scopes[i].call_column,
		};
	files = (void *)(buf + (l.files - l.segs));
	for (i = 0; i < cu->nfiles; i++)
		files[i] = str_idx(&t, cu->files[i]);
	offs = (void *)(buf + (l.stroffs - l.segs));
	at = 0;
	for (i = 0; i < t.n; i++) {
		size_t n = strlen(t.ents[i].s) + 1;

		offs[i] = (u32)at;
		memcpy(buf + (l.strs - l.segs) + at, t.ents[i].s, n);
		at += n;
	}
out:
	HASH_CLEAR(hh, t.by_ptr);
	free(t.ents);
	if (t.err) {
		free(buf);
		return t.err;
	}
	*out = buf;
	return 0;
}

/* Write a unit decoded in this run; its block's place and hash into *c. */
static int write_fresh(struct out *o, const struct dw_cu *cu, struct dwc_cu *c)
{
	struct dwc_block b;
	size_t rest_len = 0, rows_len = cu->nrows * sizeof(*cu->rows);
	void *rest;
	int e = serialize_rest(cu, &b, &rest, &rest_len);

	if (e)
		return e;
	out_align(o);
	c->blk_off = o->off;
	c->blk_len = sizeof(b) + rows_len + rest_len;
	c->blk_hash = block_hash(&b, cu->rows, rows_len, rest, rest_len);
	out_write(o, &b, sizeof(b));
	out_write(o, cu->rows, rows_len);
	out_write(o, rest, rest_len);
	free(rest);
	return 0;
}

/* A block as it is, with its place and hash into *c. */
static int write_block(struct out *o, const void *blk, u64 len, u64 hash, struct dwc_cu *c)
{
	out_align(o);
	c->blk_off = o->off;
	c->blk_len = len;
	c->blk_hash = hash;
	out_write(o, blk, len);
	return 0;
}

/* Copy a unit's block from the entry open on fd, when it holds. */
static int write_copy(struct out *o, int fd, u64 fsize, u64 off, u64 len, u64 hash,
		      struct dwc_cu *c)
{
	struct blk_layout l;
	unsigned char *blk;
	int e;

	if (len > fsize || !(blk = malloc(len)))
		return len > fsize ? -EBADMSG : -ENOMEM;
	e = pread_all(fd, blk, len, off);
	if (!e && !block_holds(blk, len, hash, &l))
		e = -EBADMSG;
	if (!e)
		write_block(o, blk, len, hash, c);
	free(blk);
	return e;
}

/*
 * The entry another run wrote since this one read its own (or where this
 * one found none), when it holds and has the same index: its units are
 * kept too.  NULL cus when there is none.
 */
static int other_entry(struct dwarf_info *di, const char *name, struct dwc_index *ix, u64 *fsize)
{
	struct stat st, mine;
	u64 i;
	int fd;

	memset(ix, 0, sizeof(*ix));
	fd = sym_cache__open(di->cache, name, &st);
	if (fd < 0)
		return -1;
	if ((di->efd >= 0 && !fstat(di->efd, &mine) && mine.st_ino == st.st_ino &&
	     mine.st_dev == st.st_dev) ||
	    read_index(di, fd, (u64)st.st_size, ix) || ix->h.ncus != di->ncus)
		goto none;
	for (i = 0; i < di->ncus; i++)
		if (ix->cus[i].die_off != di->cus[i].die_off)
			goto none;
	*fsize = (u64)st.st_size;
	return fd;
none:
	free(ix->buf);
	memset(ix, 0, sizeof(*ix));
	close(fd);
	return -1;
}

void dwarf_cache_save(struct dwarf_info *di)
{
	struct dwc_header h = {0};
	struct dwc_cu *cus = NULL;
	struct dwc_span *spans = NULL;
	struct dwc_index other;
	char name[80], tmp[160], note[DWC_NOTE_LEN] = {0};
	struct out o = {0};
	u64 other_size = 0;
	size_t i;
	int ofd, e;

	entry_name(di, name, sizeof(name));
	ofd = other_entry(di, name, &other, &other_size);
	if ((di->ncus && !(cus = calloc(di->ncus, sizeof(*cus)))) ||
	    (di->nspans && !(spans = calloc(di->nspans, sizeof(*spans)))))
		goto out;
	o.fd = sym_cache__create(di->cache, name, tmp, sizeof(tmp));
	if (o.fd < 0)
		goto out;
	out_write(&o, &h, sizeof(h)); /* written again at the end */
	for (i = 0; i < di->ncus && !o.err; i++) {
		const struct dw_cu *cu = &di->cus[i];
		struct dwc_cu *c = &cus[i];

		c->die_off = cu->die_off;
		c->base = cu->base;
		c->rng_base = cu->rng_base;
		c->version = cu->version;
		e = -ENOENT;
		/* a unit without its rows: another run's with them, if it wrote one */
		if (cu->decoded && cu->fresh && cu->no_rows && ofd >= 0 && other.cus[i].blk_len)
			e = write_copy(&o, ofd, other_size, other.cus[i].blk_off,
				       other.cus[i].blk_len, other.cus[i].blk_hash, c);
		if (e && cu->decoded && cu->fresh)
			e = write_fresh(&o, cu, c);
		else if (cu->blk) /* read from the entry, and it held */
			e = write_block(&o, cu->blk, cu->blk_len, cu->blk_hash, c);
		else if (cu->blk_len && !cu->bad_block && !cu->decoded)
			e = write_copy(&o, di->efd, di->efile_size, cu->blk_off, cu->blk_len,
				       cu->blk_hash, c);
		if (e && ofd >= 0 && other.cus[i].blk_len)
			e = write_copy(&o, ofd, other_size, other.cus[i].blk_off,
				       other.cus[i].blk_len, other.cus[i].blk_hash, c);
		if (e) {
			c->blk_off = c->blk_len = c->blk_hash = 0;
			if (e == -ENOMEM)
				break;
		}
	}
	if (i < di->ncus) {
		sym_cache__abort(di->cache, o.fd, tmp, o.err);
		goto out;
	}
	for (i = 0; i < di->nspans; i++)
		spans[i] = (struct dwc_span){di->spans[i].lo, di->spans[i].hi, di->spans[i].cu, 0};
	snprintf(note, sizeof(note), "%s", di->index_why);
	out_align(&o);
	h.index_off = o.off;
	h.index_len = di->ncus * sizeof(*cus) + di->nspans * sizeof(*spans) + sizeof(note);
	/* the index's hash, as read_index takes it: over the three in a row */
	{
		size_t n = (size_t)h.index_len;
		unsigned char *ib = malloc(n);

		if (!ib) {
			sym_cache__abort(di->cache, o.fd, tmp, 0);
			goto out;
		}
		if (di->ncus) /* none (an empty index): cus is NULL, not to be copied from */
			memcpy(ib, cus, di->ncus * sizeof(*cus));
		if (di->nspans)
			memcpy(ib + di->ncus * sizeof(*cus), spans, di->nspans * sizeof(*spans));
		memcpy(ib + n - sizeof(note), note, sizeof(note));
		h.index_hash = sym_hash64(ib, n, 0);
		out_write(&o, ib, n);
		free(ib);
	}
	memcpy(h.magic, DWC_MAGIC, 8);
	h.version = DWC_VERSION;
	h.endian = DWC_ENDIAN;
	h.header_size = sizeof(h);
	h.flags = di->demangle ? 0 : DWC_MANGLED;
	memcpy(h.build_id, di->build_id, di->build_id_size);
	h.build_id_size = di->build_id_size;
	h.ncus = (u32)di->ncus;
	h.nspans = di->nspans;
	h.dwarf_size = di->file_size;
	memcpy(h.dwarf_digest, di->digest, SYM_DIGEST_LEN);
	libdwarf_version(h.libdwarf);
	h.file_size = o.off;
	h.header_hash = header_hash(&h);
	if (!o.err && pwrite(o.fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		o.err = errno ? errno : EIO;
	if (o.err)
		sym_cache__abort(di->cache, o.fd, tmp, o.err);
	else
		sym_cache__commit(di->cache, o.fd, tmp, name);
out:
	if (ofd >= 0)
		close(ofd);
	free(other.buf);
	free(cus);
	free(spans);
}

/* ---- for the fuzzer ------------------------------------------------------ */

void dwarf_cache_seal(void *entry, size_t len, const u8 *build_id, u8 build_id_size, u64 dwarf_size,
		      const u8 dwarf_digest[SYM_DIGEST_LEN], bool demangle)
{
	unsigned char *p = entry;
	struct dwc_header h;
	struct dwc_cu c;
	u64 i;

	if (len < sizeof(h) || build_id_size > sizeof(h.build_id))
		return;
	memcpy(&h, p, sizeof(h));
	memcpy(h.magic, DWC_MAGIC, 8);
	h.version = DWC_VERSION;
	h.endian = DWC_ENDIAN;
	h.header_size = sizeof(h);
	h.flags = demangle ? 0 : DWC_MANGLED;
	memset(h.build_id, 0, sizeof(h.build_id));
	memcpy(h.build_id, build_id, build_id_size);
	h.build_id_size = build_id_size;
	h.dwarf_size = dwarf_size;
	memcpy(h.dwarf_digest, dwarf_digest, SYM_DIGEST_LEN);
	libdwarf_version(h.libdwarf);
	h.file_size = len;
	/* the index: where it says, when that is inside; each block it places */
	if (h.index_off <= len && h.index_off >= sizeof(h)) {
		h.index_len = len - h.index_off;
		for (i = 0; i < h.ncus && (i + 1) * sizeof(c) <= h.index_len; i++) {
			struct blk_layout l;
			unsigned char *at = p + h.index_off + i * sizeof(c);

			memcpy(&c, at, sizeof(c));
			/* a block off an 8-byte boundary is refused anyway */
			if (!c.blk_len || c.blk_off > len || c.blk_len > len - c.blk_off ||
			    c.blk_len < sizeof(struct dwc_block) || c.blk_off % 8 ||
			    !block_layout((const void *)(p + c.blk_off), c.blk_len, &l))
				continue;
			c.blk_hash = whole_block_hash(p + c.blk_off, &l);
			memcpy(at, &c, sizeof(c));
		}
		h.index_hash = sym_hash64(p + h.index_off, h.index_len, 0);
	}
	h.header_hash = header_hash(&h);
	memcpy(p, &h, sizeof(h));
}
