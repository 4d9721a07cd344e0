// SPDX-License-Identifier: MIT
/*
 * export-pprof.c - ebs export --format pprof: the call stacks as pprof's
 * profile.proto (github.com/google/pprof/proto/profile.proto), gzipped, as
 * go tool pprof and pprof read it.  The protobuf is written by hand: a
 * varint and length-delimited writer is all the format needs.
 *
 * What goes where:
 *   sample_type   [samples/count, EVENT/nanoseconds (cpu-clock, task-clock)
 *                 or EVENT/count]: each Sample's values are its count and
 *                 period
 *   Sample        one per distinct stack, its Locations leaf first, and the
 *                 label "host": the recording's host name (one Sample per
 *                 stack and host, with several recordings)
 *   Location      one per distinct (mapping, address, inline expansion): a
 *                 frame and the frames inlined into it at that address, as
 *                 Lines, innermost first
 *   Function      one per (name, DSO, source file)
 *   Mapping       one per mapping of a DSO (start, limit, offset, path,
 *                 build ID as hex); code without a mapping (the kernel,
 *                 unmapped code) gets one per DSO name, its range unknown;
 *                 a kernel Location's address is its offset from _stext
 *                 (session__kernel_at), never where the kernel was
 *   period_type   the event; period the mean period of the samples
 *   comment       "ebs VERSION", the call-graph mode
 * string_table[0] is "", as the format wants.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/export/export.h"
#include "symbolize/symbolize.h"
#include "util/hash.h"

#ifndef EBS_VERSION
#define EBS_VERSION "unknown"
#endif

/* ---- a protobuf writer: varints and length-delimited fields into memory ---- */

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct pb {
	unsigned char *p;
	size_t len, cap;
	bool oom; /* a write failed: the buffer is incomplete */
};

static void pb_put(struct pb *b, const void *d, size_t n)
{
	if (b->oom || !n)
		return;
	if (n > SIZE_MAX - b->len) {
		b->oom = true;
		return;
	}
	while (b->cap < b->len + n) /* ebs_grow doubles once a call: room for b->cap + 1 */
		if (ebs_grow((void **)&b->p, &b->cap, b->cap, 1, 256)) {
			b->oom = true;
			return;
		}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* base 128, low group first, the high bit set on all but the last byte */
static void pb_varint(struct pb *b, u64 v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	pb_put(b, t, n);
}

static void pb_tag(struct pb *b, unsigned int field, unsigned int wire)
{
	pb_varint(b, (u64)field << 3 | wire);
}

/* A varint field; 0 is proto3's default, and left out. */
static void pb_uint(struct pb *b, unsigned int field, u64 v)
{
	if (v) {
		pb_tag(b, field, WIRE_VARINT);
		pb_varint(b, v);
	}
}

static void pb_bytes(struct pb *b, unsigned int field, const void *d, size_t n)
{
	pb_tag(b, field, WIRE_LEN);
	pb_varint(b, n);
	pb_put(b, d, n);
}

/* The message built in m as field of b; m is emptied for the next one. */
static void pb_msg(struct pb *b, unsigned int field, struct pb *m)
{
	if (m->oom)
		b->oom = true;
	pb_bytes(b, field, m->p, m->len);
	m->len = 0;
}

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, /* packed */
	SAMPLE_VALUE = 2,	/* packed */
	SAMPLE_LABEL = 3,
	LABEL_KEY = 1,
	LABEL_STR = 2,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* ---- interning: byte keys to ids, in first-seen order ---- */

struct ent {
	UT_hash_handle hh;
	u64 id;
	const struct cframe *first; /* the frame that made it (mappings, functions) */
	size_t len;
	unsigned char key[];
};

struct table {
	struct ent *hash;
	struct ent **v; /* v[i] has id i + base */
	size_t n, cap;
	u64 base; /* 0 for strings, 1 for the rest (id 0 is none) */
};

/* The id of key, added when new (with first).  0 or -ENOMEM. */
static int table__id(struct table *t, const void *key, size_t len, const struct cframe *first,
		     u64 *id)
{
	struct ent *e;

	HASH_FIND(hh, t->hash, key, len, e);
	if (!e) {
		if (ebs_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v), 64))
			return -ENOMEM;
		e = malloc(sizeof(*e) + len + 1);
		if (!e)
			return -ENOMEM;
		memcpy(e->key, key, len);
		e->key[len] = '\0';
		e->len = len;
		e->first = first;
		e->id = t->n + t->base;
		HASH_ADD(hh, t->hash, key, len, e);
		if (!e->hh.tbl) {
			free(e);
			return -ENOMEM;
		}
		t->v[t->n++] = e;
	}
	*id = e->id;
	return 0;
}

static void table__free(struct table *t)
{
	struct ent *e, *tmp;

	HASH_ITER(hh, t->hash, e, tmp) {
		HASH_DEL(t->hash, e);
		free(e);
	}
	free(t->v);
}

/*
 * A table's key is the fields of a mapping, function or location end to
 * end, built in a struct pb; a string goes with its NUL, so that ("ab",
 * "c") and ("a", "bc") differ.
 */
static void key_str(struct pb *k, const char *s)
{
	pb_put(k, s ? s : "", strlen(s ? s : "") + 1);
}

struct pprof {
	const struct stacks *s;
	struct table strings, mappings, functions, locations;
	struct pb k;  /* the key at hand */
	u64 *loc_ids; /* of the stack at hand */
	size_t loc_cap;
};

/*
 * The string table's index of s, as pprof shows it: its control characters
 * as '?' (a mapping's file name is the recording's, as it is).
 */
static int str_id(struct pprof *p, const char *s, u64 *id)
{
	char *c;
	int r;

	if (!s)
		s = "";
	if (ebs_text_is_clean(s))
		return table__id(&p->strings, s, strlen(s), NULL, id);
	c = strdup(s);
	if (!c)
		return -ENOMEM;
	ebs_clean_text(c, false);
	r = table__id(&p->strings, c, strlen(c), NULL, id);
	free(c);
	return r;
}

static u64 mapping_id(struct pprof *p, const struct cframe *f, int *r)
{
	u64 id = 0;

	p->k.len = 0;
	if (f->map) {
		pb_put(&p->k, "m", 1);
		pb_put(&p->k, &f->map->start, sizeof(f->map->start));
		pb_put(&p->k, &f->map->len, sizeof(f->map->len));
		pb_put(&p->k, &f->map->pgoff, sizeof(f->map->pgoff));
		key_str(&p->k, f->map->filename);
	} else {
		pb_put(&p->k, "d", 1);
		key_str(&p->k, f->dso);
	}
	*r = p->k.oom ? -ENOMEM : table__id(&p->mappings, p->k.p, p->k.len, f, &id);
	return id;
}

static u64 function_id(struct pprof *p, const struct cframe *f, int *r)
{
	u64 id = 0;

	p->k.len = 0;
	key_str(&p->k, f->name);
	key_str(&p->k, f->dso);
	key_str(&p->k, f->file);
	*r = p->k.oom ? -ENOMEM : table__id(&p->functions, p->k.p, p->k.len, f, &id);
	return id;
}

/*
 * The Location of frames f[0..n) (a frame, the last, and those inlined
 * into it, innermost first): its key is the mapping, the address and each
 * frame's function and line.  Its frames are read back from first.
 */
static u64 location_id(struct pprof *p, const struct cframe *f, unsigned int n, int *r)
{
	u64 map, id = 0, fn[64];
	unsigned int i;

	if (n > 64)
		n = 64; /* deeper inlining than any compiler's: the outermost kept */
	map = mapping_id(p, &f[n - 1], r);
	for (i = 0; i < n && !*r; i++)
		fn[i] = function_id(p, &f[i], r);
	if (*r)
		return 0;
	p->k.len = 0;
	pb_put(&p->k, &map, sizeof(map));
	pb_put(&p->k, &f[0].addr, sizeof(f[0].addr));
	pb_put(&p->k, &n, sizeof(n));
	for (i = 0; i < n; i++) {
		pb_put(&p->k, &fn[i], sizeof(fn[i]));
		pb_put(&p->k, &f[i].line, sizeof(f[i].line));
	}
	*r = p->k.oom ? -ENOMEM : table__id(&p->locations, p->k.p, p->k.len, f, &id);
	return id;
}

/* frames f[i..] up to and including the first not inlined into the next */
static unsigned int group_len(const struct stack *st, unsigned int i)
{
	unsigned int j = i;

	while (j + 1 < st->n && st->frames[j].inlined)
		j++;
	return j - i + 1;
}

static void value_type(struct pprof *p, struct pb *b, unsigned int field, const char *type,
		       const char *unit, struct pb *m, int *r)
{
	u64 t = 0, u = 0;

	if (!*r)
		*r = str_id(p, type, &t);
	if (!*r)
		*r = str_id(p, unit, &u);
	pb_uint(m, VALUE_TYPE_TYPE, t);
	pb_uint(m, VALUE_TYPE_UNIT, u);
	pb_msg(b, field, m);
}

/*
 * pprof takes the first Mapping for the program's own (go tool pprof's
 * "File:" and "Build ID:"): the mapping of the function named main in the
 * stack of most samples that has one, else of the leaf of the heaviest
 * stack with a mapping.  0 or -ENOMEM.
 */
static int main_mapping_first(struct pprof *p)
{
	const struct cframe *best = NULL, *leaf = NULL;
	u64 best_count = 0, leaf_count = 0;
	size_t i;
	unsigned int k;
	int r = 0;

	for (i = 0; i < p->s->n; i++) {
		const struct stack *st = &p->s->v[i];

		for (k = 0; k < st->n; k++) {
			const struct cframe *f = &st->frames[k];

			if (f->map && !f->inlined && !strcmp(f->name, "main") &&
			    st->count > best_count) {
				best = f;
				best_count = st->count;
			}
		}
		if (st->n && st->frames[0].map && st->count > leaf_count) {
			leaf = &st->frames[0];
			leaf_count = st->count;
		}
	}
	if (best || leaf)
		mapping_id(p, best ? best : leaf, &r);
	return r;
}

/* Everything but the string table into b, strings interned on the way. */
static int encode(struct pprof *p, struct pb *b)
{
	const struct stacks *s = p->s;
	struct pb m = {0}, sub = {0};
	char comment[256], hex[2 * sizeof(((struct sym_map *)0)->build_id) + 1];
	const char *event = s->event ? s->event : "events";
	u64 id, id2;
	size_t i, j;
	int r = 0;

	r = str_id(p, "", &id); /* string 0 */
	if (!r)
		r = main_mapping_first(p);
	value_type(p, b, PROFILE_SAMPLE_TYPE, "samples", "count", &m, &r);
	value_type(p, b, PROFILE_SAMPLE_TYPE, event, s->clock ? "nanoseconds" : "count", &m, &r);
	for (i = 0; i < s->n && !r; i++) {
		const struct stack *st = &s->v[i];
		unsigned int k, g;
		size_t nl = 0;

		for (k = 0; k < st->n && !r; k += g) {
			g = group_len(st, k);
			if (ebs_grow((void **)&p->loc_ids, &p->loc_cap, nl + 1, sizeof(u64), 64)) {
				r = -ENOMEM;
				break;
			}
			p->loc_ids[nl++] = location_id(p, &st->frames[k], g, &r);
		}
		for (j = 0; j < nl; j++)
			pb_varint(&sub, p->loc_ids[j]);
		pb_msg(&m, SAMPLE_LOCATION_ID, &sub);
		pb_varint(&sub, st->count);
		pb_varint(&sub, st->period);
		pb_msg(&m, SAMPLE_VALUE, &sub);
		if (st->host) { /* where it was recorded: a fleet's stores keep hosts apart */
			if (!r)
				r = str_id(p, "host", &id);
			pb_uint(&sub, LABEL_KEY, id);
			if (!r)
				r = str_id(p, st->host, &id);
			pb_uint(&sub, LABEL_STR, id);
			pb_msg(&m, SAMPLE_LABEL, &sub);
		}
		pb_msg(b, PROFILE_SAMPLE, &m);
	}
	for (i = 0; i < p->mappings.n && !r; i++) {
		const struct cframe *f = p->mappings.v[i]->first;
		const struct sym_map *map = f->map;

		pb_uint(&m, MAPPING_ID, p->mappings.v[i]->id);
		id = id2 = 0;
		if (map) {
			pb_uint(&m, MAPPING_MEMORY_START, map->start);
			pb_uint(&m, MAPPING_MEMORY_LIMIT, map->start + map->len);
			pb_uint(&m, MAPPING_FILE_OFFSET, map->pgoff);
			r = str_id(p, map->filename ? map->filename : f->dso, &id);
			ebs_format_hex(hex, sizeof(hex), map->build_id,
				       map->build_id_size < sizeof(map->build_id)
					       ? map->build_id_size
					       : sizeof(map->build_id));
			if (!r && hex[0])
				r = str_id(p, hex, &id2);
		} else {
			r = str_id(p, f->dso, &id);
		}
		pb_uint(&m, MAPPING_FILENAME, id);
		pb_uint(&m, MAPPING_BUILD_ID, id2);
		/* names and lines come with the file: pprof need not look them up */
		pb_uint(&m, MAPPING_HAS_FUNCTIONS, 1);
		pb_uint(&m, MAPPING_HAS_FILENAMES, 1);
		pb_uint(&m, MAPPING_HAS_LINE_NUMBERS, 1);
		pb_uint(&m, MAPPING_HAS_INLINE_FRAMES, !s->no_inline);
		pb_msg(b, PROFILE_MAPPING, &m);
	}
	for (i = 0; i < p->locations.n && !r; i++) {
		const struct cframe *f = p->locations.v[i]->first;
		unsigned int n, k;

		/* the key holds the frame count after the mapping and address */
		memcpy(&n, p->locations.v[i]->key + 2 * sizeof(u64), sizeof(n));
		pb_uint(&m, LOCATION_ID, p->locations.v[i]->id);
		pb_uint(&m, LOCATION_MAPPING_ID, mapping_id(p, &f[n - 1], &r));
		/* a kernel address from _stext: no export says where KASLR put it */
		pb_uint(&m, LOCATION_ADDRESS, f[0].kernel ? f[0].dso_addr : f[0].addr);
		for (k = 0; k < n && !r; k++) {
			pb_uint(&sub, LINE_FUNCTION_ID, function_id(p, &f[k], &r));
			pb_uint(&sub, LINE_LINE, f[k].line);
			pb_msg(&m, LOCATION_LINE, &sub);
		}
		pb_msg(b, PROFILE_LOCATION, &m);
	}
	for (i = 0; i < p->functions.n && !r; i++) {
		const struct cframe *f = p->functions.v[i]->first;

		pb_uint(&m, FUNCTION_ID, p->functions.v[i]->id);
		r = str_id(p, f->name, &id);
		pb_uint(&m, FUNCTION_NAME, id);
		/* the name as the symbol table has it, when it was demangled */
		if (!r && f->mangled)
			r = str_id(p, f->mangled, &id);
		pb_uint(&m, FUNCTION_SYSTEM_NAME, id);
		if (!r)
			r = str_id(p, f->file, &id);
		pb_uint(&m, FUNCTION_FILENAME, id);
		pb_msg(b, PROFILE_FUNCTION, &m);
	}
	value_type(p, b, PROFILE_PERIOD_TYPE, event, s->clock ? "nanoseconds" : "count", &m, &r);
	pb_uint(b, PROFILE_PERIOD, s->samples ? s->period / s->samples : 0);
	snprintf(comment, sizeof(comment), "ebs %s", EBS_VERSION);
	if (!r)
		r = str_id(p, comment, &id);
	pb_uint(b, PROFILE_COMMENT, id);
	snprintf(comment, sizeof(comment), "call graph: %s",
		 s->call_graph ? s->call_graph : "none (one-frame stacks)");
	if (!r)
		r = str_id(p, comment, &id);
	pb_uint(b, PROFILE_COMMENT, id);
	if (!r && (m.oom || sub.oom))
		r = -ENOMEM;
	free(m.p);
	free(sub.p);
	return r;
}

/* in through gzip into f; write errors are the caller's (ferror) */
static int gzip_to(const struct pb *b, FILE *f)
{
	unsigned char out[65536];
	z_stream z = {0};
	int zr, r = 0;

	/* windowBits 15 + 16: a gzip header and trailer */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	z.next_in = b->p;
	z.avail_in = (uInt)b->len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			r = -EPROTO;
			break;
		}
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
			r = -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return r;
}

int export_pprof(const struct stacks *s, FILE *f, struct ebs_error *err)
{
	struct pprof p = {.s = s, .mappings.base = 1, .functions.base = 1, .locations.base = 1};
	struct pb b = {0};
	size_t i;
	int r;

	r = encode(&p, &b);
	for (i = 0; i < p.strings.n && !r; i++)
		pb_bytes(&b, PROFILE_STRING_TABLE, p.strings.v[i]->key, p.strings.v[i]->len);
	if (!r && b.oom)
		r = -ENOMEM;
	if (!r && b.len > UINT32_MAX)
		r = -EFBIG; /* one deflate call's input */
	if (!r)
		r = gzip_to(&b, f);
	free(b.p);
	free(p.loc_ids);
	free(p.k.p);
	table__free(&p.strings);
	table__free(&p.mappings);
	table__free(&p.functions);
	table__free(&p.locations);
	if (r == -EIO)
		return 0; /* ebs_export names the file that could not be written */
	if (r == -EPROTO)
		return ebs_error__set(err, EPROTO, "--format pprof: zlib's deflate failed");
	if (r == -EFBIG)
		return ebs_error__set(err, EFBIG, "--format pprof: the profile is over 4 GiB");
	return r ? ebs_error__set(err, -r, "out of memory") : 0;
}
