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

#include "report/present.h"
#include "report/stacks.h"
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

/* "name  dso", with the marks of kernel and inlined frames. */
static void name_of(const struct node *n, FILE *f)
{
	fprintf(f, "%s%s  %s", n->name, n->inlined ? " (inlined)" : "", n->dso);
}

static int print_tree(const struct report_opts *o, const struct node *n, u64 total,
		      unsigned int depth, FILE *f)
{
	struct node **v;
	size_t k, nk, hidden = 0;

	v = sorted(n->kids, &nk);
	if (!v)
		return -ENOMEM;
	for (k = 0; k < nk; k++) {
		double pct = present_percent(v[k]->total, total);

		if (pct < o->view.min_percent) {
			hidden++;
			continue;
		}
		fprintf(f, "%7.2f%% %7.2f%%  %*s", pct, present_percent(v[k]->self, total),
			(int)(2 * (depth < MAX_INDENT ? depth : MAX_INDENT)), "");
		if (depth >= MAX_INDENT) /* deeper than a screen: say how deep */
			fprintf(f, "[%u] ", depth);
		name_of(v[k], f);
		fputc('\n', f);
		if (print_tree(o, v[k], total, depth + 1, f)) {
			free(v);
			return -ENOMEM;
		}
	}
	if (hidden && depth == 0)
		fprintf(f, "  (%zu more below %.2f%%)\n", hidden, o->view.min_percent);
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

	v = sorted(n->kids, &nk);
	for (k = 0; v && k < nk; k++) {
		long id = (*next)++;

		if (present_percent(v[k]->total, total) < o->view.min_percent) {
			(*next)--;
			continue;
		}
		ebs_json__obj(j);
		ebs_json__key_u64(j, "id", (u64)id);
		ebs_json__key(j, "parent");
		ebs_json__num(j, "%.0f", (double)parent);
		ebs_json__key_str(j, "function", v[k]->name);
		ebs_json__key_str(j, "dso", v[k]->dso);
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
	int e = 0;

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
		fprintf(f, "#\n#  total     self  function  dso\n");
		e = print_tree(o, &root, s->samples, 0, f);
		fputc('\n', f);
	}
	free_nodes(&root.kids);
	return e;
}

/* Does frame f name want (as --func names functions: "f" is also "f.constprop.0")? */
static bool is_func(const char *want, const struct cframe *f)
{
	return rsession_name_is(want, strlen(want), f->name);
}

/*
 * --callers (outward) or --callees (inward): the neighbours of want in the
 * stacks, each counted once per sample; *matched the samples whose stacks
 * hold want.  A stack that ends at want outward, or starts there inward,
 * counts for a node named "(none: the chain starts here)" or "(self)".
 */
static int neighbours(const struct stacks *s, const char *want, bool outward, struct node **out,
		      u64 *matched)
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

			if (!is_func(want, &st->frames[k]))
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
	size_t k, nk = 0;
	u64 matched;
	int e;

	e = neighbours(s, want, outward, &nb, &matched);
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

			if (pct < o->view.min_percent)
				continue;
			present_wilson95(v[k]->total, matched, &lo, &hi);
			ebs_json__obj(&j);
			ebs_json__key_str(&j, "function", v[k]->name);
			ebs_json__key_str(&j, "dso", v[k]->dso);
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
		header(s, f);
		fprintf(f,
			"# %s of %s: %llu samples have it on their stack (%.2f%%); percent is of "
			"those\n#\n#  samples  percent  95%% interval    %s  dso\n",
			outward ? "callers" : "callees", want, (unsigned long long)matched,
			present_percent(matched, s->samples), outward ? "caller" : "callee");
		for (k = 0; k < nk; k++) {
			double lo, hi, pct = present_percent(v[k]->total, matched);

			if (pct < o->view.min_percent)
				continue;
			present_wilson95(v[k]->total, matched, &lo, &hi);
			fprintf(f, "  %8llu %7.2f%%  [%5.1f, %5.1f]  ",
				(unsigned long long)v[k]->total, pct, lo, hi);
			name_of(v[k], f);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	free(v);
	free_nodes(&nb);
	return e;
}

int report_graph(const struct report_opts *o, struct ebs_error *err)
{
	struct stacks s;
	int e;

	e = stacks_collect(&o->view, &s, err);
	if (!e) {
		e = o->tree ? tree(o, &s, o->view.out) : callers_callees(o, &s, o->view.out, err);
		if (e == -ENOMEM)
			ebs_error__set(err, ENOMEM, "out of memory");
		fflush(o->view.out);
	}
	stacks_free(&s);
	return e;
}
