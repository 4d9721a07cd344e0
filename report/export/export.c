// SPDX-License-Identifier: MIT
/*
 * export.c - ebs export: the call stacks of a file in a format other tools
 * read, written whole or not at all; and the folded format itself
 * ("a;b;c COUNT" per distinct stack, root first, sorted: what FlameGraph's
 * flamegraph.pl, inferno and speedscope read).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/export/export.h"
#include "util/hash.h"

int export_fold(const struct stack *st, char **buf, size_t *cap)
{
	size_t len = 0, need, i;
	unsigned int k;

	for (k = st->n; k-- > 0;) {
		const char *name = st->frames[k].name;

		need = len + strlen(name) + 2;
		if (need > *cap) {
			size_t ncap = need * 2;
			char *nb = realloc(*buf, ncap);

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = ncap;
		}
		if (k + 1 < st->n)
			(*buf)[len++] = ';';
		for (i = 0; name[i]; i++)
			(*buf)[len++] = name[i] == ';' ? ':' : name[i];
	}
	if (!*buf && !(*buf = calloc(1, 1)))
		return -ENOMEM;
	(*buf)[len] = '\0';
	return 0;
}

struct folded {
	UT_hash_handle hh;
	u64 count;
	char text[];
};

static int folded_cmp(const void *a, const void *b)
{
	return strcmp((*(struct folded *const *)a)->text, (*(struct folded *const *)b)->text);
}

int export_folded(const struct stacks *s, FILE *f, struct ebs_error *err)
{
	struct folded *all = NULL, *e, *tmp, **v = NULL;
	char *buf = NULL;
	size_t cap = 0, i, n = 0;
	int r = 0;

	/* stacks differ by address too: merge those of one name sequence */
	for (i = 0; i < s->n && !r; i++) {
		size_t len;

		r = export_fold(&s->v[i], &buf, &cap);
		if (r)
			break;
		len = strlen(buf);
		HASH_FIND(hh, all, buf, len, e);
		if (!e) {
			e = malloc(sizeof(*e) + len + 1);
			if (!e) {
				r = -ENOMEM;
				break;
			}
			e->count = 0;
			memcpy(e->text, buf, len + 1);
			HASH_ADD_KEYPTR(hh, all, e->text, len, e);
			if (!e->hh.tbl) {
				free(e);
				r = -ENOMEM;
				break;
			}
			n++;
		}
		e->count += s->v[i].count;
	}
	if (!r && !(v = malloc((n + 1) * sizeof(*v))))
		r = -ENOMEM;
	if (!r) {
		i = 0;
		HASH_ITER(hh, all, e, tmp)
			v[i++] = e;
		qsort(v, n, sizeof(*v), folded_cmp);
		for (i = 0; i < n; i++)
			fprintf(f, "%s %llu\n", v[i]->text, (unsigned long long)v[i]->count);
	}
	HASH_ITER(hh, all, e, tmp) {
		HASH_DEL(all, e);
		free(e);
	}
	free(v);
	free(buf);
	return r ? ebs_error__set(err, -r, "out of memory") : 0;
}

int ebs_export(const struct export_opts *o, struct ebs_error *err)
{
	static int (*const fns[])(const struct stacks *, FILE *, struct ebs_error *) = {
		[EXPORT_FOLDED] = export_folded,
		[EXPORT_PPROF] = export_pprof,
		[EXPORT_SPEEDSCOPE] = export_speedscope,
	};
	struct ebs_out out;
	struct stacks s;
	int e, w;

	e = stacks_collect(&o->view, true, &s, err);
	if (e)
		goto out;
	e = ebs_out_open(&out, o->output, o->view.out, err);
	if (e)
		goto out;
	e = fns[o->format](&s, out.f, err);
	w = ebs_out_close(&out, !e, err);
	if (!e)
		e = w;
out:
	stacks_free(&s);
	return e;
}
