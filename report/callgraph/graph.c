// SPDX-License-Identifier: MIT
/*
 * graph.c - ebs report --tree, --callers FUNC and --callees FUNC: the call
 * graph read from the samples' call stacks (stacks.c).
 *
 * --tree is top-down: from the outermost frames in, each node the samples
 * whose stacks pass through it on that path, and its own (self); nodes
 * below --min-percent of all samples are left out.  --callers and
 * --callees break the samples whose stacks hold FUNC down by the frame
 * just outside (its caller) or just inside (its callee) each place FUNC
 * is on the stack; a sample counts once for each distinct neighbour, so a
 * recursive function's shares may add up to more than 100%.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "report/present.h"
#include "report/session/stacks.h"
#include "util/hash.h"
#include "util/json.h"

#define MAX_INDENT 40 /* levels of a --tree indented; deeper ones show their depth */

struct node {
	UT_hash_handle hh;
	const char *id; /* cframe.id: one per function */
	const char *name, *dso;
	bool kernel, inlined;
	u64 total, self;
	struct node *kids; /* by id */
	u64 mark;	   /* --callers/--callees: the last stack counted */
};

static struct node *child(struct node **kids, const struct cframe *f)
{
	struct node *n;

	HASH_FIND_PTR(*kids, &f->id, n);
	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->id = f->id;
	n->name = f->name;
	n->dso = f->dso;
	n->kernel = f->kernel;
	n->inlined = f->inlined;
	HASH_ADD_PTR(*kids, id, n);
	if (!n->hh.tbl) {
		free(n);
		return NULL;
	}
	return n;
}

static void free_nodes(struct node **kids)
{
	struct node *n, *tmp;

	HASH_ITER(hh, *kids, n, tmp) {
		free_nodes(&n->kids);
		HASH_DEL(*kids, n);
		free(n);
	}
}

static int node_cmp(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;
	int c;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->dso, y->dso);
}

/* The nodes of kids, most samples first; *n their count.  NULL when out of memory. */
static struct node **sorted(struct node *kids, size_t *n)
{
	struct node **v = malloc((HASH_COUNT(kids) + 1) * sizeof(*v)), *k, *tmp;
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, kids, k, tmp)
		v[i++] = k;
	qsort(v, i, sizeof(*v), node_cmp);
	*n = i;
	return v;
}

/* The event, the sample count and how the chains were recorded, as '#' lines. */
static void header(const struct stacks *s, FILE *f)
{
	fprintf(f, "# event: %s\n# samples: %llu\n", s->event, (unsigned long long)s->samples);
	if (s->call_graph) {
		fprintf(f, "# call graph: %s\n", s->call_graph);
		chain_stats__print_hint(chainer__stats(s->chains), s->call_graph, f);
	} else
		fprintf(f,
			"# call graph: none recorded (ebs record -g): each sample's own function "
			"and those its code was inlined into\n");
}

/* What a node is, for JSON: a function, or one of the pseudo-frames. */
static const char *kind_of(const struct node *n)
{
	if (!strcmp(n->id, "(self)"))
		return "self";
	if (!strcmp(n->id, "(none)"))
		return "no_caller";
	if (!strcmp(n->name, "[truncated]"))
		return "truncated";
	if (!strncmp(n->name, "[unknown]", 9))
		return "unknown";
	return n->kernel ? "kernel" : "function";
}

/* Is the node of rank k (most samples first among its shown siblings) shown? */
static bool shown(const struct report_opts *o, const struct node *n, u64 total, size_t k)
{
	return present_percent(n->total, total) >= o->view.min_percent &&
	       (!o->view.top || k < o->view.top);
}

/*
 * Where a --tree row's function column puts its name: the indent, and
 * the depth when deeper than MAX_INDENT levels, or than the width leaves
 * room for (w: the column's width, 0 for none) with 20 bytes of name.
 */
static int tree_indent(unsigned int depth, int w, char *at, size_t len)
{
	int ind = 2 * (int)(depth < MAX_INDENT ? depth : MAX_INDENT);

	at[0] = '\0';
	if (depth >= MAX_INDENT || (w && ind + 20 > w)) { /* deeper than a screen: say how deep */
		snprintf(at, len, "[%u] ", depth);
		if (w && ind + (int)strlen(at) + 20 > w)
			ind = w - (int)strlen(at) - 20 > 0 ? w - (int)strlen(at) - 20 : 0;
	}
	return ind;
}

/* A --tree row's function column: indent, depth when deeper, name, mark; its length. */
static int tree_label(const struct node *n, unsigned int depth, char *buf, size_t len)
{
	char at[16];
	int ind = tree_indent(depth, 0, at, sizeof(at));

	return snprintf(buf, len, "%*s%s%s%s", ind, "", at, n->name,
			n->inlined ? " (inlined)" : "");
}

/* The widest function column of the rows --tree shows; -ENOMEM. */
static int tree_width(const struct report_opts *o, const struct node *n, u64 total,
		      unsigned int depth, int *w, int *dso_w)
{
	struct node **v;
	size_t k, nk, rank = 0;
	char buf[1024];
	int e = 0;

	v = sorted(n->kids, &nk);
	if (!v)
		return -ENOMEM;
	for (k = 0; k < nk && !e; k++) {
		int len;

		if (!shown(o, v[k], total, rank))
			continue;
		rank++;
		len = tree_label(v[k], depth, buf, sizeof(buf));
		if (len > *w)
			*w = len < (int)sizeof(buf) ? len : (int)sizeof(buf) - 1;
		if ((int)strlen(v[k]->dso) > *dso_w)
			*dso_w = (int)strlen(v[k]->dso);
		e = tree_width(o, v[k], total, depth + 1, w, dso_w);
	}
	free(v);
	return e;
}

/* The name column padded to w, then the DSO (cut to dso_w; 0: whole); no trailing blanks. */
static void name_dso(const char *name, const char *dso, int w, int dso_w, FILE *f)
{
	char cut[256];

	if (dso_w && (int)strlen(dso) > dso_w) {
		present_elide(cut, sizeof(cut), dso, (size_t)dso_w);
		dso = cut;
	}
	if (*dso)
		fprintf(f, "%-*s  %s\n", w, name, dso);
	else
		fprintf(f, "%s\n", name);
}

/*
 * The names of nodes v[0..n) as a column cut to width (0: none), each with
 * " (inlined)" where it was: names_fit_column's cells (NULL when no
 * memory), freed with free_cells.
 */
static char **name_cells(struct node *const *v, size_t n, int width)
{
	char **full = calloc(n + 1, sizeof(*full)), **cut = calloc(n + 1, sizeof(*cut));
	size_t k;
	bool ok = full && cut;

	for (k = 0; ok && k < n; k++) {
		size_t len = strlen(v[k]->name) + 16;

		full[k] = malloc(len);
		ok = full[k] != NULL;
		if (ok)
			snprintf(full[k], len, "%s%s", v[k]->name,
				 v[k]->inlined ? " (inlined)" : "");
	}
	if (ok &&
	    names_fit_column(cut, (const char *const *)full, n, (size_t)(width > 0 ? width : 0)))
		ok = false;
	for (k = 0; full && k < n; k++)
		free(full[k]);
	free(full);
	if (!ok) {
		free(cut);
		return NULL;
	}
	return cut;
}

static void free_cells(char **cut, size_t n)
{
	size_t k;

	for (k = 0; cut && k < n; k++)
		free(cut[k]);
	free(cut);
}

static int print_tree(const struct report_opts *o, const struct node *n, u64 total,
		      unsigned int depth, int w, int dso_w, FILE *f)
{
	struct node **v;
	size_t k, nk, hidden = 0, rank = 0;
	char buf[1024], at[16], **cells;
	int ind = tree_indent(depth, dso_w ? w : 0, at, sizeof(at));

	v = sorted(n->kids, &nk);
	if (!v)
		return -ENOMEM;
	/* siblings: each its own name, none alike, in what the indent leaves */
	cells = name_cells(v, nk, dso_w ? w - ind - (int)strlen(at) : 0);
	for (k = 0; k < nk; k++) {
		if (!shown(o, v[k], total, rank)) {
			hidden++;
			continue;
		}
		rank++;
		fprintf(f, "%7.2f%% %7.2f%%  ", present_percent(v[k]->total, total),
			present_percent(v[k]->self, total));
		if (cells)
			snprintf(buf, sizeof(buf), "%*s%s%s", ind, "", at, cells[k]);
		else
			tree_label(v[k], depth, buf, sizeof(buf));
		name_dso(buf, v[k]->dso, w, dso_w, f);
		if (print_tree(o, v[k], total, depth + 1, w, dso_w, f)) {
			free_cells(cells, nk);
			free(v);
			return -ENOMEM;
		}
	}
	if (hidden && depth == 0)
		fprintf(f, "  (%zu more outermost functions left out)\n", hidden);
	free_cells(cells, nk);
	free(v);
	return 0;
}

/*
 * The tree as a flat array in pre-order, each node naming its parent's
 * index (-1 for a root): a tree as deep as a stack (hundreds of frames)
 * nests no deeper in JSON.
 */
static void json_tree(const struct report_opts *o, const struct node *n, long parent, long *next,
		      u64 total, struct ebs_json *j)
{
	struct node **v;
	size_t k, nk;

	size_t rank = 0;

	v = sorted(n->kids, &nk);
	for (k = 0; v && k < nk; k++) {
		long id;

		if (!shown(o, v[k], total, rank))
			continue;
		rank++;
		id = (*next)++;
		ebs_json__obj(j);
		ebs_json__key_u64(j, "id", (u64)id);
		ebs_json__key(j, "parent");
		ebs_json__num(j, "%.0f", (double)parent);
		ebs_json__key_str(j, "function", v[k]->name);
		ebs_json__key_str(j, "dso", v[k]->dso);
		ebs_json__key_str(j, "kind", kind_of(v[k]));
		ebs_json__key_bool(j, "inlined", v[k]->inlined);
		ebs_json__key_u64(j, "samples", v[k]->total);
		ebs_json__key_u64(j, "self", v[k]->self);
		ebs_json__key_num(j, "percent", "%.4f", present_percent(v[k]->total, total));
		ebs_json__obj_end(j);
		json_tree(o, v[k], id, next, total, j);
	}
	free(v);
}

static int tree(const struct report_opts *o, const struct stacks *s, FILE *f)
{
	struct node root = {0};
	long next = 0;
	size_t i;
	int e = 0, w = 8, dso_w = 3;

	for (i = 0; i < s->n && !e; i++) {
		const struct stack *st = &s->v[i];
		struct node **kids = &root.kids, *n = NULL;
		unsigned int k;

		for (k = st->n; k-- > 0;) {
			n = child(kids, &st->frames[k]);
			if (!n) {
				e = -ENOMEM;
				break;
			}
			n->total += st->count;
			kids = &n->kids;
		}
		if (n && !e)
			n->self += st->count;
	}
	if (!e && o->json) {
		struct ebs_json j;

		ebs_json__begin(&j, f);
		ebs_json__obj(&j);
		ebs_json__key_str(&j, "event", s->event);
		ebs_json__key_u64(&j, "samples", s->samples);
		if (s->call_graph)
			ebs_json__key_str(&j, "call_graph", s->call_graph);
		else
			ebs_json__key_null(&j, "call_graph");
		ebs_json__key(&j, "tree");
		ebs_json__arr(&j);
		json_tree(o, &root, -1, &next, s->samples, &j);
		ebs_json__arr_end(&j);
		ebs_json__obj_end(&j);
		e = ebs_json__end(&j);
	} else if (!e) {
		header(s, f);
		fprintf(f,
			"# top-down: each function's samples on that path, then its own (self)\n");
		if (o->view.min_percent > 0)
			fprintf(f, "# below %.2f%% of the samples left out (--min-percent)\n",
				o->view.min_percent);
		if (o->view.top)
			fprintf(f,
				"# the %u hottest at each level shown, the rest left out (--top)\n",
				o->view.top);
		e = tree_width(o, &root, s->samples, 0, &w, &dso_w);
		if (!e) {
			/* in the width: the names shortened, down to 30; then the DSOs, to 12 */
			int width = present_width(f, o->view.width), room = width - 21 - dso_w;

			if (width && w > room) {
				w = room > 30 ? room : 30;
				dso_w = width - 21 - w < dso_w ? width - 21 - w : dso_w;
				dso_w = dso_w > 12 ? dso_w : 12;
			} else {
				dso_w = width ? dso_w : 0;
			}
			if (width && !dso_w)
				dso_w = 12;
			fprintf(f, "#\n#  total     self  ");
			name_dso("function", "dso", w, 0, f);
			e = print_tree(o, &root, s->samples, 0, w, width ? dso_w : 0, f);
		}
	}
	free_nodes(&root.kids);
	return e;
}

/*
 * What want names among the functions of the stacks (names.h: the exact
 * name, else the unqualified one, a "::"-suffix, a part), into q: 0,
 * -ENOMEM, or -EINVAL (err set) when it names several, listed to list.
 */
static int resolve(const struct stacks *s, const char *want, struct name_query *q, FILE *list,
		   const char *input, struct ebs_error *err)
{
	struct name_tally *t = NULL;
	struct name_cand *c = NULL;
	size_t i, n = 0;
	int e = 0;

	*q = (struct name_query){.want = want, .len = strlen(want)};
	for (i = 0; i < s->n && !e; i++) {
		const struct stack *st = &s->v[i];
		unsigned int k, j;

		for (k = 0; k < st->n && !e; k++) {
			for (j = 0; j < k && st->frames[j].name != st->frames[k].name; j++)
				;
			if (j == k) /* once a stack */
				e = name_tally__add(&t, st->frames[k].name, st->count);
		}
	}
	if (!e && !(c = name_tally__cands(t, &n)))
		e = -ENOMEM;
	name_tally__free(&t);
	if (e)
		return ebs_error__set(err, ENOMEM, "out of memory");
	e = name_query__resolve(q, c, n, s->samples, list, list ? present_width(list, 0) : 0, input,
				err);
	free(c);
	return e;
}

/*
 * --callers (outward) or --callees (inward): the neighbours of want in the
 * stacks, each counted once per sample; *matched the samples whose stacks
 * hold want.  A stack that ends at want outward, or starts there inward,
 * counts for a node named "(none: the chain starts here)" or "(self)".
 */
static int neighbours(const struct stacks *s, const struct name_query *want, bool outward,
		      struct node **out, u64 *matched)
{
	static const struct cframe self_frame = {.id = "(self)", .name = "(self)", .dso = ""};
	static const struct cframe top_frame = {
		.id = "(none)", .name = "(no caller: the chain starts here)", .dso = ""};
	size_t i;

	*matched = 0;
	for (i = 0; i < s->n; i++) {
		const struct stack *st = &s->v[i];
		bool any = false;
		unsigned int k;

		for (k = 0; k < st->n; k++) {
			const struct cframe *nb;
			struct node *n;

			if (!name_query__match(want, st->frames[k].name))
				continue;
			any = true;
			if (outward)
				nb = k + 1 < st->n ? &st->frames[k + 1] : &top_frame;
			else
				nb = k > 0 ? &st->frames[k - 1] : &self_frame;
			n = child(out, nb);
			if (!n)
				return -ENOMEM;
			if (n->mark != i + 1) { /* once per stack */
				n->mark = i + 1;
				n->total += st->count;
			}
		}
		if (any)
			*matched += st->count;
	}
	return 0;
}

static int callers_callees(const struct report_opts *o, const struct stacks *s, FILE *f,
			   struct ebs_error *err)
{
	bool outward = o->callers != NULL;
	const char *want = outward ? o->callers : o->callees;
	struct node *nb = NULL, **v = NULL;
	struct name_query q;
	size_t k, nk = 0;
	u64 matched;
	int e;

	e = resolve(s, want, &q, o->view.filter.candidates, o->view.input, err);
	if (e)
		return e;
	e = neighbours(s, &q, outward, &nb, &matched);
	name_query__free(&q);
	if (!e && !matched) {
		free_nodes(&nb);
		return ebs_error__set(err, ENOENT, "%s: no sample has '%s' on its stack",
				      o->view.input, want);
	}
	if (!e && !(v = sorted(nb, &nk)))
		e = -ENOMEM;
	if (!e && o->json) {
		struct ebs_json j;

		ebs_json__begin(&j, f);
		ebs_json__obj(&j);
		ebs_json__key_str(&j, "event", s->event);
		ebs_json__key_u64(&j, "samples", s->samples);
		ebs_json__key_str(&j, "function", want);
		ebs_json__key_u64(&j, "function_samples", matched);
		ebs_json__key(&j, outward ? "callers" : "callees");
		ebs_json__arr(&j);
		for (k = 0; k < nk; k++) {
			double lo, hi, pct = present_percent(v[k]->total, matched);

			if (!shown(o, v[k], matched, k))
				continue;
			present_wilson95(v[k]->total, matched, &lo, &hi);
			ebs_json__obj(&j);
			ebs_json__key_str(&j, "function", v[k]->name);
			ebs_json__key_str(&j, "dso", v[k]->dso);
			ebs_json__key_str(&j, "kind", kind_of(v[k]));
			ebs_json__key_u64(&j, "samples", v[k]->total);
			ebs_json__key_num(&j, "percent", "%.4f", pct);
			ebs_json__key(&j, "ci95");
			ebs_json__arr(&j);
			ebs_json__num(&j, "%.4f", lo);
			ebs_json__num(&j, "%.4f", hi);
			ebs_json__arr_end(&j);
			ebs_json__obj_end(&j);
		}
		ebs_json__arr_end(&j);
		ebs_json__obj_end(&j);
		ebs_json__end(&j);
	} else if (!e) {
		char buf[1024], **cells;
		int w = 6, dso_w = 3, width = present_width(f, o->view.width);
		size_t nshown = 0;

		for (k = 0; k < nk; k++)
			if (shown(o, v[k], matched, k)) {
				int len = snprintf(buf, sizeof(buf), "%s%s", v[k]->name,
						   v[k]->inlined ? " (inlined)" : "");

				if (len > w)
					w = len < (int)sizeof(buf) ? len : (int)sizeof(buf) - 1;
				if ((int)strlen(v[k]->dso) > dso_w)
					dso_w = (int)strlen(v[k]->dso);
				nshown = k + 1;
			}
		/* in the width: the names shortened, down to 30; then the DSOs, to 12 */
		if (width && w > width - 39 - dso_w) {
			w = width - 39 - dso_w > 30 ? width - 39 - dso_w : 30;
			dso_w = width - 39 - w < dso_w ? width - 39 - w : dso_w;
			dso_w = dso_w > 12 ? dso_w : 12;
		}
		cells = name_cells(v, nshown, width ? w : 0);
		header(s, f);
		fprintf(f,
			"# %s of %s: %llu samples have it on their stack (%.2f%%); percent is of "
			"those\n",
			outward ? "callers" : "callees", want, (unsigned long long)matched,
			present_percent(matched, s->samples));
		if (o->view.top && nk > o->view.top)
			fprintf(f, "# the %u with the most samples shown, %zu left out (--top)\n",
				o->view.top, nk - o->view.top);
		fprintf(f, "#\n#  samples  percent  95%% interval    ");
		name_dso(outward ? "caller" : "callee", "dso", w, 0, f);
		for (k = 0; k < nk; k++) {
			double lo, hi, pct = present_percent(v[k]->total, matched);

			if (!shown(o, v[k], matched, k))
				continue;
			present_wilson95(v[k]->total, matched, &lo, &hi);
			fprintf(f, "  %8llu %7.2f%%  [%5.1f, %5.1f]  ",
				(unsigned long long)v[k]->total, pct, lo, hi);
			if (cells)
				snprintf(buf, sizeof(buf), "%s", cells[k]);
			else
				snprintf(buf, sizeof(buf), "%s%s", v[k]->name,
					 v[k]->inlined ? " (inlined)" : "");
			name_dso(buf, v[k]->dso, w, width ? dso_w : 0, f);
		}
		free_cells(cells, nshown);
	}
	free(v);
	free_nodes(&nb);
	return e;
}

int ebs_report_graph(const struct report_opts *o, struct ebs_error *err)
{
	struct stacks s;
	int e;

	e = stacks_collect(&o->view, true, &s, err);
	if (!e) {
		e = o->tree ? tree(o, &s, o->view.out) : callers_callees(o, &s, o->view.out, err);
		if (e == -ENOMEM)
			ebs_error__set(err, ENOMEM, "out of memory");
		fflush(o->view.out);
	}
	stacks_free(&s);
	return e;
}
