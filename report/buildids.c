// SPDX-License-Identifier: MIT
/*
 * buildids.c - which files a recording's samples hit, each kept in the
 * build-id cache as ebs record ends (perf record's build-id pass does the
 * same over perf.data).  Two passes over the file just written: the
 * mappings (report/session/machine.c), then the samples, each address to
 * its mapping; then one buildid_cache__add per file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"
#include "report/buildids.h"
#include "report/session/machine.h"
#include "symbolize/symbolize.h"
#include "util/hash.h"

/* A mapping hit, once: by its address in the machine. */
struct hit {
	UT_hash_handle hh;
	const struct machine_map *map;
};

/* A file by build-id, once. */
struct file_id {
	UT_hash_handle hh;
	u8 id[21]; /* size, then the bytes */
};

static int mark(struct hit **hits, const struct machine_map *map)
{
	struct hit *h;

	if (!map || map->sym.build_id_size < 2 || map->sym.filename[0] != '/')
		return 0;
	HASH_FIND_PTR(*hits, &map, h);
	if (h)
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map = map;
	HASH_ADD_PTR(*hits, map, h);
	if (!h->hh.tbl) {
		free(h);
		return -ENOMEM;
	}
	return 0;
}

/* Mark the mappings of sample s: its IP (in user space), its call chain's user addresses. */
static int mark_sample(struct machine *m, struct hit **hits, const struct ebs_rec *rec)
{
	const struct ebs_rec_sample *s = (const void *)rec;
	u16 mode = rec->misc & EBS_CPUMODE_MASK;
	const struct machine_map *last = NULL, *map;
	struct ebs_sample_parts p;
	bool user = mode != EBS_CPUMODE_KERNEL && mode != EBS_CPUMODE_GUEST_KERNEL;
	u64 i;
	int e = 0;

	if (user) {
		last = machine__find_map(m, s->pid, s->ip, s->time);
		e = mark(hits, last);
	}
	ebs_sample__parts(s, &p);
	for (i = 0; !e && i < p.nr_callchain; i++) {
		u64 a = p.callchain[i];

		if (a >= EBS_CHAIN_MAX) {
			user = a == EBS_CHAIN_USER;
			continue;
		}
		if (!user || (last && a >= last->sym.start && a - last->sym.start < last->sym.len))
			continue; /* the kernel's, or in the mapping just marked */
		map = machine__find_map(m, s->pid, a, s->time);
		if (map != last)
			e = mark(hits, map);
		last = map;
	}
	return e;
}

/* Has the file of this build-id been seen?  Else note it.  1, 0, or -ENOMEM. */
static int seen(struct file_id **ids, const struct sym_map *sm)
{
	struct file_id *f, key = {0};

	key.id[0] = sm->build_id_size;
	memcpy(key.id + 1, sm->build_id, sm->build_id_size);
	HASH_FIND(hh, *ids, key.id, sizeof(key.id), f);
	if (f)
		return 1;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = key;
	HASH_ADD(hh, *ids, id, sizeof(f->id), f);
	if (!f->hh.tbl) {
		free(f);
		return -ENOMEM;
	}
	return 0;
}

int report_keep_buildids(const char *input, struct buildid_cache *c, struct keep_stats *st,
			 struct ebs_error *err)
{
	struct file_id *ids = NULL, *f, *ftmp;
	struct hit *hits = NULL, *h, *htmp;
	const struct ebs_rec *rec;
	struct machine *m = NULL;
	struct ebs_data *d;
	int e;

	memset(st, 0, sizeof(*st));
	d = ebs_data__open(input, err);
	if (!d)
		return err->err;
	m = machine__new();
	if (!m) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	/* the mappings first: a sample may come before the MMAP of another CPU's ring */
	while ((e = ebs_data__next(d, &rec, err)) > 0)
		if (machine__add(m, rec)) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
	if (e < 0)
		goto out;
	ebs_data__rewind(d);
	while ((e = ebs_data__next(d, &rec, err)) > 0)
		if (rec->type == EBS_REC_SAMPLE && mark_sample(m, &hits, rec)) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
	if (e < 0)
		goto out;
	HASH_ITER(hh, hits, h, htmp) {
		struct ebs_error why;
		s64 n;

		e = seen(&ids, &h->map->sym);
		if (e < 0) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (e)
			continue;
		st->files++;
		n = buildid_cache__add(c, h->map->sym.filename, h->map->sym.build_id,
				       h->map->sym.build_id_size, &why);
		if (n == -ENOMEM) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
		st->failed += n < 0;
		st->added += n > 0;
		st->bytes += n > 0 ? (u64)n : 0;
	}
	e = 0;
out:
	HASH_ITER(hh, hits, h, htmp) {
		HASH_DEL(hits, h);
		free(h);
	}
	HASH_ITER(hh, ids, f, ftmp) {
		HASH_DEL(ids, f);
		free(f);
	}
	machine__free(m);
	ebs_data__close(d);
	return e;
}
