// SPDX-License-Identifier: MIT
/*
 * top.c - ebs top's aggregation: the tap's copies, resolved in batches,
 * counted per interval by function (top.h says how and why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/present.h"
#include "report/session/machine.h"
#include "report/top/top.h"
#include "util/hash.h"

/* A function's counts: this interval's so far, the last whole one's, all whole ones'. */
struct fn_row {
	struct fn_key {
		const char *name, *dso; /* interned: one pointer per text */
	} key;
	bool kernel, unknown;
	u64 cur, last, cum;
	UT_hash_handle hh;
};

/*
 * What a lookup gave (its borrowed name and DSO pointers, or for code
 * without a symbol its DSO and address), to the row of that text: one
 * hash of three words per sample, the row's texts made once.
 */
struct alias {
	struct alias_key {
		const void *name, *dso;
		u64 at;
	} key;
	struct fn_row *row;
	UT_hash_handle hh;
};

/* Counts of all samples (not only a view's), for the header. */
struct totals {
	u64 all, kernel, lost, dropped;
};

struct top {
	struct symbolizer *sym;
	struct machine *m;
	struct ebs_strset *names;
	const void *vdso;
	size_t vdso_size;
	char *q; /* the tap's copies: whole records, back to back */
	size_t qlen, qcap;
	bool qfull; /* a copy failed for want of memory: said by top__drain */
	struct fn_row *rows;
	struct alias *aliases;
	struct totals cur, last, cum;
	u64 start_ns, prev_ns, intervals;
};

struct top *top__new(const struct symbolize_opts *so)
{
	struct symbolize_opts o = so ? *so : (struct symbolize_opts){0};
	struct top *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	o.no_dwarf = true; /* names from symbol tables: a new DSO costs its symbols only */
	t->sym = symbolizer__new(&o);
	t->m = machine__new();
	if (!t->sym || !t->m) {
		top__free(t);
		errno = ENOMEM;
		return NULL;
	}
	if (ebs_own_vdso(&t->vdso, &t->vdso_size))
		t->vdso = NULL;
	return t;
}

void top__free(struct top *t)
{
	struct fn_row *r, *tmp;
	struct alias *al, *atmp;

	if (!t)
		return;
	HASH_ITER(hh, t->aliases, al, atmp) {
		HASH_DEL(t->aliases, al);
		free(al);
	}
	HASH_ITER(hh, t->rows, r, tmp) {
		HASH_DEL(t->rows, r);
		free(r);
	}
	machine__free(t->m);
	symbolizer__free(t->sym);
	ebs_strset__free(&t->names);
	free(t->q);
	free(t);
}

void top__tap(void *ctx, const struct ebs_rec *rec)
{
	struct top *t = ctx;

	switch (rec->type) {
	case EBS_REC_SAMPLE:
		if (t->qlen + rec->size > TOP_QUEUE_MAX) {
			t->cur.dropped++;
			return;
		}
		break;
	case EBS_REC_MMAP:
	case EBS_REC_COMM:
	case EBS_REC_FORK:
	case EBS_REC_EXIT:
	case EBS_REC_PROCNS:
	case EBS_REC_LOST:
		break;
	default:
		return; /* counts, throttling: not shown */
	}
	if (ebs_grow((void **)&t->q, &t->qcap, t->qlen + rec->size, 1, 64 * 1024)) {
		t->qfull = true;
		if (rec->type == EBS_REC_SAMPLE)
			t->cur.dropped++;
		return;
	}
	memcpy(t->q + t->qlen, rec, rec->size);
	t->qlen += rec->size;
}

/* The row of (name, dso), new when it is not there; NULL out of memory. */
static struct fn_row *row_of(struct top *t, const char *name, const char *dso, bool kernel,
			     bool unknown)
{
	struct fn_key k = {ebs_strset__intern_clean(&t->names, name),
			   ebs_strset__intern_clean(&t->names, dso)};
	unsigned int hv;
	struct fn_row *r;

	if (!k.name || !k.dso)
		return NULL;
	hv = ebs_hash_words(&k, sizeof(k));
	HASH_FIND_BYHASHVALUE(hh, t->rows, &k, sizeof(k), hv, r);
	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->key = k;
	r->kernel = kernel;
	r->unknown = unknown;
	HASH_ADD_BYHASHVALUE(hh, t->rows, key, sizeof(r->key), hv, r);
	if (!r->hh.tbl) {
		free(r);
		return NULL;
	}
	return r;
}

/*
 * The row of a sample that resolved to res (in map, at ip): named as
 * report names it without DWARF, the symbol table's name; code no symbol
 * covers, "[unknown] DSO+0xAT" with AT the start of the FDE that covers
 * it (one row per function), else its own address.
 */
static struct fn_row *row_of_result(struct top *t, const struct sym_result *res,
				    struct machine_map *map, u64 ip, bool kernel)
{
	const char *dso = res->dso ? res->dso : kernel ? "[kernel]" : "[unknown]";
	struct alias_key k = {res->function, dso, res->function ? 0 : res->dso_addr};
	const char *name = res->function;
	unsigned int hv;
	char text[256];
	struct alias *al;
	u64 start, end;

	if (!res->function && !res->dso)
		k.at = ip;
	hv = ebs_hash_words(&k, sizeof(k));
	HASH_FIND_BYHASHVALUE(hh, t->aliases, &k, sizeof(k), hv, al);
	if (al)
		return al->row;
	if (!name) {
		u64 at = k.at;

		if (map && res->dso &&
		    symbolizer__cfi_function(t->sym, &map->sym, ip, &start, &end) == 0)
			at -= ip - start;
		if (kernel) /* kallsyms hidden from this user: no address shown */
			snprintf(text, sizeof(text), "[unknown] %s", dso);
		else if (res->dso)
			snprintf(text, sizeof(text), "[unknown] %s+0x%llx", res->dso,
				 (unsigned long long)at);
		else
			snprintf(text, sizeof(text), "[unknown] 0x%llx", (unsigned long long)at);
		name = text;
	}
	al = calloc(1, sizeof(*al));
	if (!al)
		return NULL;
	al->key = k;
	al->row = row_of(t, name, dso, kernel, !res->function);
	if (al->row)
		HASH_ADD_BYHASHVALUE(hh, t->aliases, key, sizeof(al->key), hv, al);
	if (!al->row || !al->hh.tbl) {
		free(al);
		return NULL;
	}
	return al->row;
}

static int count_sample(struct top *t, const struct ebs_rec_sample *s)
{
	u16 mode = s->hdr.misc & EBS_CPUMODE_MASK;
	bool kernel = mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL;
	struct machine_map *map = NULL;
	struct sym_result res = {0};
	struct fn_row *r;

	if (kernel) {
		symbolizer__lookup_kernel(t->sym, s->ip, &res);
	} else {
		map = machine__find_map(t->m, s->pid, s->ip, s->time);
		/* the vdso is the same in every process: ours, as record keeps it */
		if (map && t->vdso && !map->sym.image && !strcmp(map->sym.filename, "[vdso]")) {
			map->sym.image = t->vdso;
			map->sym.image_size = t->vdso_size;
			map->ent = NULL;
		}
		if (map &&
		    symbolizer__lookup_memo(t->sym, &map->sym, &map->ent, s->ip, &res) == -ENOMEM)
			return -ENOMEM;
	}
	r = row_of_result(t, &res, map, s->ip, kernel);
	if (!r)
		return -ENOMEM;
	r->cur++;
	t->cur.all++;
	t->cur.kernel += kernel;
	return 0;
}

int top__drain(struct top *t)
{
	size_t at;
	int e = 0;

	/* the processes' records first: a sample's mapping may come later in the batch */
	for (at = 0; at < t->qlen;
	     at += ((const struct ebs_rec *)(const void *)(t->q + at))->size) {
		const struct ebs_rec *rec = (const void *)(t->q + at);

		if (rec->type == EBS_REC_LOST) {
			t->cur.lost += ((const struct ebs_rec_lost *)rec)->lost;
		} else if (rec->type != EBS_REC_SAMPLE) {
			if (machine__add(t->m, rec))
				e = -ENOMEM;
		}
	}
	for (at = 0; at < t->qlen && !e;
	     at += ((const struct ebs_rec *)(const void *)(t->q + at))->size) {
		const struct ebs_rec *rec = (const void *)(t->q + at);

		if (rec->type == EBS_REC_SAMPLE)
			e = count_sample(t, (const void *)rec);
	}
	t->qlen = 0;
	if (t->qfull) {
		t->qfull = false;
		e = e ? e : -ENOMEM;
	}
	return e;
}

u64 top__pending(const struct top *t)
{
	return t->cur.all;
}

void top__interval(struct top *t, u64 ns)
{
	struct fn_row *r, *tmp;

	HASH_ITER(hh, t->rows, r, tmp) {
		r->last = r->cur;
		r->cum += r->cur;
		r->cur = 0;
	}
	t->last = t->cur;
	t->cum.all += t->cur.all;
	t->cum.kernel += t->cur.kernel;
	t->cum.lost += t->cur.lost;
	t->cum.dropped += t->cur.dropped;
	memset(&t->cur, 0, sizeof(t->cur));
	t->start_ns = t->prev_ns;
	t->prev_ns = ns;
	t->intervals++;
}

const char *top_sort_name(enum top_sort s)
{
	static const char *const v[] = {"samples", "name", "dso"};

	return s < TOP_SORT_MAX ? v[s] : "?";
}

const char *top_mode_name(enum top_mode m)
{
	static const char *const v[] = {"kernel+user", "user", "kernel"};

	return m < TOP_MODE_MAX ? v[m] : "?";
}

static int by_samples(const struct top_row *a, const struct top_row *b)
{
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return 0;
}

static int cmp_samples(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	int c = by_samples(a, b);

	if (c)
		return c;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->dso, b->dso);
}

static int cmp_name(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->dso, b->dso);
}

static int cmp_dso(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	int c = strcmp(a->dso, b->dso);

	if (c)
		return c;
	c = by_samples(a, b);
	return c ? c : strcmp(a->name, b->name);
}

int top__table(struct top *t, const struct top_view *v, struct top_table *tab)
{
	static int (*const cmp[])(const void *, const void *) = {cmp_samples, cmp_name, cmp_dso};
	const struct totals *tot = v->cumulative ? &t->cum : &t->last;
	struct fn_row *r, *tmp;
	size_t i;

	tab->n = 0;
	tab->samples = 0;
	HASH_ITER(hh, t->rows, r, tmp) {
		u64 k = v->cumulative ? r->cum : r->last;

		if (!k || (v->mode == TOP_USER && r->kernel) ||
		    (v->mode == TOP_KERNEL && !r->kernel))
			continue;
		if (ebs_grow((void **)&tab->rows, &tab->cap, tab->n + 1, sizeof(*tab->rows), 64))
			return -ENOMEM;
		tab->rows[tab->n++] = (struct top_row){
			r->key.name, r->key.dso, r->kernel, r->unknown, k, 0, 0, 0};
		tab->samples += k;
	}
	for (i = 0; i < tab->n; i++) {
		struct top_row *row = &tab->rows[i];

		row->share = present_percent(row->samples, tab->samples);
		present_wilson95(row->samples, tab->samples, &row->lo, &row->hi);
	}
	if (tab->n)
		qsort(tab->rows, tab->n, sizeof(*tab->rows),
		      cmp[v->sort < TOP_SORT_MAX ? v->sort : 0]);
	tab->all = tot->all;
	tab->kernel = tot->kernel;
	tab->lost = tot->lost;
	tab->dropped = tot->dropped;
	tab->start_ns = v->cumulative ? 0 : t->start_ns;
	tab->end_ns = t->prev_ns;
	tab->intervals = t->intervals;
	top_table__fit(tab, 0, tab->n, 0);
	return 0;
}

void top_table__free(struct top_table *tab)
{
	if (!tab)
		return;
	free(tab->rows);
	memset(tab, 0, sizeof(*tab));
}

/*
 * "  samples  percent  95% interval  " then the name and the DSO: 9 + 2 + 7
 * + 2 + 14 + 2 columns before the name, 2 between the name and the DSO
 */
#define COUNTS_WIDTH 36
#define NAME_MIN     16
#define TOP_NAME_MAX 200

/*
 * The function column's width: the longest name of rows [from, from + n)
 * (the rows printed, not the others), within width with the longest DSO of
 * those rows whole (a name is shortened, never a DSO); width <= 0: no limit.
 */
void top_table__fit(struct top_table *tab, size_t from, size_t n, int width)
{
	size_t i, w = strlen("function"), d = strlen("dso");
	int fit;

	for (i = from; i < tab->n && i - from < n; i++) {
		size_t l = strlen(tab->rows[i].name), ld = strlen(tab->rows[i].dso);

		w = l > w ? l : w;
		d = ld > d ? ld : d;
	}
	if (w > TOP_NAME_MAX)
		w = TOP_NAME_MAX;
	if (width > 0 && d < (size_t)width) {
		fit = width - COUNTS_WIDTH - 2 - (int)d;
		if (fit < NAME_MIN)
			fit = NAME_MIN;
		if ((int)w > fit)
			w = (size_t)fit;
	}
	tab->name_width = (int)w;
}

static void fit(char *buf, size_t len, int width)
{
	if (width > 0 && (size_t)width < len)
		buf[width] = '\0';
}

void top_table__heading(const struct top_table *tab, char *buf, size_t len, int width)
{
	snprintf(buf, len, "%9s  %7s  %-14s  %-*s  %s", "samples", "percent", "95% interval",
		 tab->name_width, "function", "dso");
	fit(buf, len, width);
}

void top_table__line(const struct top_table *tab, size_t i, char *buf, size_t len, int width)
{
	const struct top_row *r = &tab->rows[i];
	int nw = tab->name_width;
	char name[TOP_NAME_MAX + 1];

	present_elide(name, sizeof(name), r->name, (size_t)nw);
	snprintf(buf, len, "%9llu  %6.2f%%  [%5.1f, %5.1f]  %-*s  %s",
		 (unsigned long long)r->samples, r->share, r->lo, r->hi, nw, name, r->dso);
	fit(buf, len, width);
}

void top_table__print(struct top_table *tab, const struct top_view *v, size_t max, FILE *f)
{
	char line[1024];
	size_t i, n = max && max < tab->n ? max : tab->n;

	fprintf(f, "# interval %llu: %.3f-%.3f s, %llu samples (%llu kernel), %llu lost",
		(unsigned long long)tab->intervals, (double)tab->start_ns / 1e9,
		(double)tab->end_ns / 1e9, (unsigned long long)tab->all,
		(unsigned long long)tab->kernel, (unsigned long long)tab->lost);
	if (tab->dropped)
		fprintf(f, ", %llu dropped", (unsigned long long)tab->dropped);
	if (v->mode != TOP_BOTH)
		fprintf(f, "; %s samples: %llu", top_mode_name(v->mode),
			(unsigned long long)tab->samples);
	fputc('\n', f);
	top_table__fit(tab, 0, n, 0);
	top_table__heading(tab, line, sizeof(line), 0);
	fprintf(f, "#%s\n", line + 1);
	for (i = 0; i < n; i++) {
		top_table__line(tab, i, line, sizeof(line), 0);
		fprintf(f, "%s\n", line);
	}
	fputc('\n', f);
}
