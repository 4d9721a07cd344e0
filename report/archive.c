// SPDX-License-Identifier: MIT
/*
 * archive.c - ebs archive: which files a recording needs on another
 * machine, found as a report finds them; data/archive.c writes them.
 *
 * One pass over every sample (all events, no filter) builds its call
 * chain as a report does (-g dwarf unwinds through the DSOs' CFI); every
 * mapping a frame falls in is looked up once, and the symbolizer says
 * which file it read for that DSO (the recorded path, under --symfs, in a
 * build-id directory) and which its DWARF came from.  Those are archived
 * by the build-id the recording has for the mapping: the name another
 * machine's symbolizer looks for.  The kernel's symbols are in the
 * recording already (KSYMS), and so is the vdso (DSO_IMAGE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/callchain.h"
#include "util/hash.h"

struct seen {
	UT_hash_handle hh;
	const void *key; /* a struct sym_map, or a struct sym_dso_info */
};

struct pass {
	struct session *rs;
	struct chainer *chains;
	struct seen *maps;
	const struct sym_map **v; /* the maps, in first-seen order */
	size_t n, cap;
};

/* Add key to *set; 1 when it was there, 0 when added, -ENOMEM. */
static int seen_add(struct seen **set, const void *key)
{
	struct seen *e;

	HASH_FIND_PTR(*set, &key, e);
	if (e)
		return 1;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->key = key;
	HASH_ADD_PTR(*set, key, e);
	if (!e->hh.tbl) {
		free(e);
		return -ENOMEM;
	}
	return 0;
}

static void seen_free(struct seen **set)
{
	struct seen *e, *tmp;

	HASH_ITER(hh, *set, e, tmp) {
		HASH_DEL(*set, e);
		free(e);
	}
}

static int add_map(struct pass *p, const struct sym_map *map)
{
	int r = seen_add(&p->maps, map);

	if (r)
		return r < 0 ? r : 0;
	if (ebs_grow((void **)&p->v, &p->cap, p->n, sizeof(*p->v), 64))
		return -ENOMEM;
	p->v[p->n++] = map;
	return 0;
}

/* Every mapping the sample's frames fall in. */
static int pass_one(void *ctx, const struct resolved *r)
{
	struct pass *p = ctx;
	const struct cframe *f;
	unsigned int n, flags, i;
	int e = r->map ? add_map(p, &r->map->sym) : 0;

	if (!e)
		e = chainer__build(p->chains, r, &f, &n, &flags);
	for (i = 0; !e && i < n; i++)
		if (f[i].map)
			e = add_map(p, f[i].map);
	return e;
}

struct members {
	struct ebs_archive_member *v;
	size_t n, cap;
};

static int member_add(struct members *m, const char *name, const char *path, u64 dev, u64 ino)
{
	char *copy = strdup(name);

	if (!copy || ebs_grow((void **)&m->v, &m->cap, m->n, sizeof(*m->v), 16)) {
		free(copy);
		return -ENOMEM;
	}
	m->v[m->n++] = (struct ebs_archive_member){copy, path, dev, ino};
	return 0;
}

static int member_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ebs_archive_member *)a)->name,
		      ((const struct ebs_archive_member *)b)->name);
}

/*
 * What of the DSO of map (info, what the symbolizer made of it) goes into
 * the archive; a DSO that cannot be archived is said in one line.
 */
static int add_dso(struct members *m, const struct sym_map *map, const struct sym_dso_info *info,
		   const struct view_opts *v, struct archive_result *res)
{
	char hex[41], name[64];
	int e;

	if (map->image || map->filename[0] != '/') {
		/* the vdso is in the recording; anonymous memory has no file */
		if (info && info->symbols_from && !map->image) {
			res->missing++;
			ebs_warn(v->warn, v->warn_ctx, EBS_E_OK,
				 "warning: %s: not archived: JIT symbols (%s) are not a DSO",
				 map->filename, info->symbols_from);
		}
		return 0;
	}
	if (!info || !info->file) {
		res->missing++;
		ebs_warn(v->warn, v->warn_ctx, info ? info->unusable_code : EBS_E_OK,
			 "warning: %s: not archived: %s", map->filename,
			 info && info->unusable ? info->unusable : "not read");
		return 0;
	}
	if (map->build_id_size < 2) {
		res->missing++;
		ebs_warn(
			v->warn, v->warn_ctx, EBS_E_OK,
			"warning: %s: not archived: the recording has no build-id for it, which another "
			"machine would find it by",
			map->filename);
		return 0;
	}
	ebs_format_hex(hex, sizeof(hex), map->build_id,
		       map->build_id_size < 20 ? map->build_id_size : 20);
	snprintf(name, sizeof(name), ".build-id/%.2s/%s", hex, hex + 2);
	e = member_add(m, name, info->file, info->file_dev, info->file_ino);
	if (e)
		return e;
	res->dsos++;
	if (!info->debug_file || !strcmp(info->debug_file, info->file))
		return 0;
	snprintf(name, sizeof(name), ".build-id/%.2s/%s.debug", hex, hex + 2);
	res->debugs++;
	return member_add(m, name, info->debug_file, 0, 0);
}

int ebs_archive(const struct archive_opts *o, struct archive_result *res, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct session rs;
	struct pass p = {.rs = &rs};
	struct members m = {0};
	struct seen *dsos = NULL;
	struct ebs_archive_stats st;
	size_t i;
	int e;

	memset(res, 0, sizeof(*res));
	session__symbolize_opts(&so, &o->view);
	so.no_dwarf = true; /* which files, not what they say: debug files are still found */
	so.cache = false;
	e = session__open(&rs, o->view.input, o->view.force, &so, NULL, err);
	if (e)
		return e;
	p.chains = chainer__new(&rs, ebs_data__meta(rs.d, EBS_META_CALL_GRAPH), true);
	if (!p.chains) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	e = session__each(&rs, pass_one, &p, err);
	for (i = 0; !e && i < p.n; i++) {
		struct sym_result r;
		int seen;

		if (symbolizer__lookup_memo(rs.sym, p.v[i], NULL, p.v[i]->start, &r)) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			break;
		}
		seen = r.info ? seen_add(&dsos, r.info) : 0;
		if (seen < 0)
			e = ebs_error__set(err, ENOMEM, "out of memory");
		else if (!seen && add_dso(&m, p.v[i], r.info, &o->view, res))
			e = ebs_error__set(err, ENOMEM, "out of memory");
	}
	if (!e) {
		qsort(m.v, m.n, sizeof(*m.v), member_cmp);
		e = ebs_archive__write(rs.d, o->output, m.v, m.n, &st, err);
		res->files = st.files;
		res->bytes = st.bytes;
		res->out_bytes = st.out_bytes;
	}
out:
	for (i = 0; i < m.n; i++)
		free((void *)m.v[i].name);
	free(m.v);
	seen_free(&dsos);
	seen_free(&p.maps);
	free(p.v);
	chainer__free(p.chains);
	session__close(&rs);
	return e;
}
