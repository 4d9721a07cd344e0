// SPDX-License-Identifier: MIT
/*
 * report.c - ebs report: count samples into rows keyed by the --sort keys
 * (function, source line, DSO, pid, tid, command, event), then print the
 * tables.  The keys' columns are in columns.c, the header's numbers in
 * facts.c, the printers in print-text.c and print-json.c.
 *
 * One pass over the samples (session.c) resolves each and counts it into
 * its row.  Unresolved addresses keep their own rows as "[unknown]
 * DSO+0xOFFSET", samples without a source line a row of their function at
 * "??": nothing is dropped.  Inlined code counts for the inlined function,
 * at its own line, shown as "inlined into CALLER"; --no-inline gives it to
 * the function it was compiled into, at the call site.  Every row carries
 * a 95% confidence interval for its share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/callchain.h"
#include "report/present.h"
#include "report/table.h"

/*
 * Count one sample of a line's code (code's, inlined into into) into row;
 * *at gets the index of its entry in row->callers.
 */
static int add_caller(struct row *row, const char *code, const char *into, u16 event, u32 *at)
{
	size_t i;

	for (i = 0; i < row->ncallers; i++) /* a line has few callers */
		if (row->callers[i].code == code && row->callers[i].into == into)
			break;
	if (i == row->ncallers) {
		if (ebs_grow((void **)&row->callers, &row->callers_cap, row->ncallers,
			     sizeof(*row->callers), 4))
			return -ENOMEM;
		memset(&row->callers[i], 0, sizeof(row->callers[i]));
		row->callers[i].code = code;
		row->callers[i].into = into;
		row->ncallers++;
	}
	row->callers[i].samples[event]++;
	row->callers[i].all++;
	*at = (u32)i;
	return 0;
}

/* Count one sample into the row of k (of DSO dso); *out gets the row. */
static int add_row(struct report *r, const struct row_key *k, const char *dso, u16 event,
		   struct row **out)
{
	unsigned int hv = ebs_hash_words(k, sizeof(*k));
	struct row *row;

	HASH_FIND_BYHASHVALUE(hh, r->rows, k, sizeof(*k), hv, row);
	if (!row) {
		char text[512] = "";

		/* (a source line's row: its function is row->function) */
		if (r->col[KEY_FUNC] && !k->function && !(r->by_line && (k->line || k->file)))
			session__unknown_name(text, sizeof(text),
					      strcmp(dso, "[unknown]") ? dso : NULL, k->addr);
		row = calloc(1, sizeof(*row) + strlen(text) + 1);
		if (!row)
			return -ENOMEM;
		row->key = *k;
		row->dso = k->dso_id ? dso : NULL;
		strcpy(row->text, text);
		HASH_ADD_BYHASHVALUE(hh, r->rows, key, sizeof(row->key), hv, row);
		if (!row->hh.tbl) {
			free(row);
			return -ENOMEM;
		}
	}
	row->samples[event]++;
	row->all++;
	*out = row;
	return 0;
}

/*
 * --children: count sample rv into the row of every function of its call
 * chain once (inclusive), and into its leaf's as its own.  The rows are
 * keyed by the chain's frames: each function by its name and DSO, an
 * inlined one a frame of its own.
 */
static int account_chain(struct report *r, const struct resolved *rv, struct row_key *k)
{
	const struct cframe *f;
	unsigned int n, i, flags;
	struct frame_memo *fm;
	struct row *row;
	u32 nfids;
	int e;

	e = chainer__build(r->chains, rv, &f, &n, &flags);
	if (e)
		return e;
	r->seq++;
	if (!r->chain_gen || memcmp(k, &r->chain_ctx, sizeof(*k))) {
		r->chain_ctx = *k;
		r->chain_gen++;
	}
	nfids = chainer__nr_fids(r->chains);
	if (nfids >= r->fmemo_cap) {
		size_t had = r->fmemo_cap;

		while (nfids >= r->fmemo_cap)
			if (ebs_grow((void **)&r->fmemo, &r->fmemo_cap, r->fmemo_cap,
				     sizeof(*r->fmemo), 1024))
				return -ENOMEM;
		memset(r->fmemo + had, 0, (r->fmemo_cap - had) * sizeof(*r->fmemo));
	}
	for (i = 0; i < n; i++) {
		fm = &r->fmemo[f[i].fid];
		if (fm->gen == r->chain_gen) {
			row = fm->row;
		} else {
			k->function = f[i].name;
			k->dso_id = f[i].dso;
			HASH_FIND_BYHASHVALUE(hh, r->rows, k, sizeof(*k),
					      ebs_hash_words(k, sizeof(*k)), row);
		}
		if (row && row->mark == r->seq)
			continue; /* recursion: counted once */
		if (row) {
			row->samples[rv->event]++;
			row->all++;
		} else {
			e = add_row(r, k, f[i].dso, (u16)rv->event, &row);
			if (e)
				return e;
		}
		fm->row = row;
		fm->gen = r->chain_gen;
		row->mark = r->seq;
		if (f[i].mangled)
			row->mangled = f[i].mangled;
		if (i == 0) {
			row->self[rv->event]++;
			row->self_all++;
		}
	}
	return 0;
}

/*
 * r->memo[id], grown (with empty entries) to hold it; NULL when out of
 * memory.
 */
static struct row_memo *memo_of(struct report *r, u32 id)
{
	size_t had = r->memo_cap;

	while (id >= r->memo_cap)
		if (ebs_grow((void **)&r->memo, &r->memo_cap, r->memo_cap, sizeof(*r->memo), 1024))
			return NULL;
	if (r->memo_cap != had)
		memset(r->memo + had, 0, (r->memo_cap - had) * sizeof(*r->memo));
	return &r->memo[id];
}

static int account(void *ctx, const struct resolved *rv)
{
	struct report *r = ctx;
	const struct sym_result *res = &rv->res;
	const struct ebs_rec_sample *s = rv->s;
	const char *dso = res->dso ? res->dso : "[unknown]";
	const char *code, *code_into;
	struct row_memo *memo = NULL;
	struct row *row;
	struct row_key k;
	u32 at = NO_CALLER;
	int e;

	u16 ev = (u16)rv->event; /* the session's, not the file's s->event */

	memset(&k, 0, sizeof(k));
	r->total[ev]++;
	r->total_all++;
	r->period_sum[ev] += s->period;
	if (rv->ns) {
		r->ns_total[ev]++;
		r->ns_total_all++;
	}
	/* by the DSO's own path (one file seen under two paths is one DSO) */
	if (r->o->stats && dsostats__add(&r->stats,
					 res->info && res->info->path ? res->info->path
					 : res->dso_path	      ? res->dso_path
								      : dso,
					 res))
		return -ENOMEM;
	if (r->chains && !r->o->children) { /* --stats: how the chains came out */
		const struct cframe *f;
		unsigned int n, flags;
		int e2 = chainer__build(r->chains, rv, &f, &n, &flags);

		if (e2)
			return e2;
	}
	/* the task and event columns key every row, of a chain's frames too */
	if (r->col[KEY_PID])
		k.pid = s->pid;
	if (r->col[KEY_TID])
		k.tid = s->tid;
	if (r->col[KEY_COMM])
		k.comm = rv->comm;
	if (r->col[KEY_EVENT])
		k.event = ev;
	if (r->col[KEY_HOST])
		k.host = r->rs.in[rv->input].host;
	if (r->col[KEY_PID] || r->col[KEY_TID]) /* two recordings' pid 123 are two */
		k.input = rv->input;
	if (r->chains && r->o->children)
		return account_chain(r, rv, &k);
	/* the key is a function of the address's result and those: where it went last time */
	if (res->id && !r->rs.no_memo) {
		memo = memo_of(r, res->id);
		if (!memo)
			return -ENOMEM;
		if (memo->row && memo->pid == k.pid && memo->tid == k.tid && memo->comm == k.comm &&
		    memo->event == k.event && memo->host == k.host && memo->input == k.input) {
			memo->row->samples[ev]++;
			memo->row->all++;
			if (memo->caller != NO_CALLER) {
				memo->row->callers[memo->caller].samples[ev]++;
				memo->row->callers[memo->caller].all++;
			}
			return 0;
		}
	}
	if (r->col[KEY_FUNC]) {
		const struct sym_frame *loc = NULL;

		loc = session__inline_key(res, r->o->view.no_inline, &k.function, &k.inlined_into);
		/*
		 * One row per name: the symbol table's and DWARF's copies of a
		 * name (an inlined function's caller named by either) are two
		 * pointers; interned, they are one key (a memo miss pays it).
		 */
		if ((k.function && !(k.function = ebs_strset__intern(&r->rs.names, k.function))) ||
		    (k.inlined_into &&
		     !(k.inlined_into = ebs_strset__intern(&r->rs.names, k.inlined_into))))
			return -ENOMEM;
		if (!k.function) { /* no symbol: one row per function, as its FDE bounds it */
			e = session__unknown_at(&r->rs, res, rv->map, s->ip, s->ip, &k.addr);
			if (e)
				return e;
		}
		/* line 0 (code the compiler made up) in a known file: FILE:0, as perf */
		if (r->col[KEY_LINE] && loc && (loc->line || loc->file)) {
			k.file = loc->file;
			k.line = loc->line;
		}
	}
	if (r->col[KEY_DSO] || r->col[KEY_FUNC])
		k.dso_id = res->info ? (const void *)res->info : (const void *)dso;
	if (!r->by_line || (!k.line && !k.file)) {
		e = add_row(r, &k, dso, ev, &row);
		if (!e && k.function && session__same_name(k.function, res->function))
			row->mangled = res->mangled;
	} else {
		/* the line is the row: its function shown, its callers counted */
		code = k.function;
		code_into = k.inlined_into;
		k.function = k.inlined_into = NULL;
		e = add_row(r, &k, dso, ev, &row);
		if (!e)
			e = add_caller(row, code, code_into, ev, &at);
	}
	if (e || !memo)
		return e;
	memo->row = row;
	memo->caller = at;
	memo->comm = k.comm;
	memo->pid = k.pid;
	memo->tid = k.tid;
	memo->event = k.event;
	memo->host = k.host;
	memo->input = k.input;
	return 0;
}

/* The line's own samples (function NULL) last, then most samples first. */
static int caller_cmp(const void *pa, const void *pb)
{
	const struct caller *a = pa, *b = pb;

	if (!a->function != !b->function)
		return a->function ? -1 : 1;
	if (a->all != b->all)
		return a->all > b->all ? -1 : 1;
	return strcmp(a->function ? a->function : "", b->function ? b->function : "");
}

/*
 * After the pass: whose line it is, and where its code went.  The line's
 * function is the one inlined code names (where DWARF has an inline scope
 * it is exact), else the one with most samples.  Code of another function
 * at this line without an inline scope (gcc -O2 leaves such rows) counts
 * as inlined into the function it was compiled into; a function inlined
 * into itself (recursion, an alias) is its own.  Callers of one name are
 * merged, the own samples kept as the entry of no function, sorted last.
 */
static void settle_line(struct row *row)
{
	const struct caller *best = NULL;
	size_t i, j, n = 0;

	for (i = 0; i < row->ncallers; i++) {
		const struct caller *c = &row->callers[i];

		if (!best || (!best->into && c->into) ||
		    (!best->into == !c->into && c->all > best->all))
			best = c;
	}
	row->function = best ? best->code : NULL;
	for (i = 0; i < row->ncallers; i++) {
		struct caller *c = &row->callers[i];

		c->function = c->into && !session__same_name(c->into, row->function) ? c->into
			      : !session__same_name(c->code, row->function)	     ? c->code
										     : NULL;
	}
	/* merge callers of one name (and the own entries) */
	for (i = 0; i < row->ncallers; i++) {
		struct caller *c = &row->callers[i];

		for (j = 0; j < n; j++)
			if (session__same_name(row->callers[j].function, c->function))
				break;
		if (j == n) {
			row->callers[n++] = *c;
			continue;
		}
		for (unsigned int ev = 0; ev < EBS_MAX_EVENTS; ev++)
			row->callers[j].samples[ev] += c->samples[ev];
		row->callers[j].all += c->all;
	}
	row->ncallers = n;
	qsort(row->callers, n, sizeof(*row->callers), caller_cmp);
	/* nothing but its own: no breakdown */
	if (n == 1 && !row->callers[0].function)
		row->ncallers = 0;
}

struct sort_ctx {
	const struct report *r;
	int ev;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *sc = arg;

	return table__row_cmp(sc->r, sc->ev, *(const struct row *const *)a,
			      *(const struct row *const *)b);
}

struct row **report_sorted_rows(struct report *r, int ev, size_t *n)
{
	struct row *row, *tmp, **v = malloc((HASH_COUNT(r->rows) + 1) * sizeof(*v));
	struct sort_ctx sc = {r, ev};
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, r->rows, row, tmp)
		if (row__count(row, ev))
			v[i++] = row;
	qsort_r(v, i, sizeof(*v), row_cmp, &sc);
	*n = i;
	return v;
}

int report_collect(struct report *r, const struct report_opts *opts, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct row *row, *tmp;
	int e;

	memset(r, 0, sizeof(*r));
	r->o = opts;
	table__plan(r);
	if (opts->children && r->col[KEY_LINE])
		return ebs_error__set(err, EINVAL,
				      "--children counts functions: it goes with --sort func (and "
				      "dso, pid, tid, comm, event), not with line");
	if (opts->children && !r->col[KEY_FUNC])
		return ebs_error__set(
			err, EINVAL,
			"--children counts functions: its --sort must hold func (e.g. "
			"--sort dso,func)");
	e = table__check_fields(r, err);
	if (e)
		return e;
	r->color = !opts->json && present_color_on(opts->view.out, opts->view.color);
	r->width = opts->json ? 0 : present_width(opts->view.out, opts->view.width);
	session__symbolize_opts(&so, &opts->view);
	/* DWARF where lines or inline chains are shown, counted or filtered on */
	so.no_dwarf = !r->col[KEY_LINE] && !opts->stats && !opts->view.filter.funcs &&
		      (opts->view.no_inline || !r->col[KEY_FUNC]);
	/*
	 * a table of functions, of --children's too (no lines shown; a chain's
	 * rows are keyed by function and DSO): units without their line tables
	 */
	so.no_lines = !r->col[KEY_LINE] && !opts->stats && !opts->tree && !opts->callers &&
		      !opts->callees;
	e = session__open_view(&r->rs, &opts->view, &so, err);
	if (e)
		return e;
	if (opts->children || (opts->stats && session__call_graph(&r->rs))) {
		r->chains = chainer__new(&r->rs, session__call_graph(&r->rs), opts->view.no_inline);
		if (!r->chains)
			return ebs_error__set(err, ENOMEM, "out of memory");
	}
	e = session__each(&r->rs, account, r, err);
	if (e)
		return e;
	HASH_ITER(hh, r->rows, row, tmp)
		if (row->ncallers)
			settle_line(row);
	return 0;
}

void report_release(struct report *r)
{
	struct row *row, *tmp;

	HASH_ITER(hh, r->rows, row, tmp) {
		HASH_DEL(r->rows, row);
		free(row->callers);
		free(row);
	}
	dsostats__free(&r->stats);
	free(r->memo);
	free(r->fmemo);
	chainer__free(r->chains);
	session__close(&r->rs);
	memset(r, 0, sizeof(*r));
}

int ebs_report(const struct report_opts *opts, struct ebs_error *err)
{
	struct report r;
	int ev, first = 0, last, e;

	e = report_collect(&r, opts, err);
	if (e)
		goto out;
	last = (int)session__nr_events(&r.rs) - 1;
	if (r.rs.event >= 0)
		first = last = r.rs.event;
	else if (opts->json)
		last = 0;
	if (r.by_event)
		first = last = -1;
	for (ev = first; ev <= last; ev++) {
		size_t n;
		struct row **rows = report_sorted_rows(&r, ev, &n);

		if (!rows) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (opts->json)
			table__print_json(&r, ev, rows, n);
		else
			table__print_text(&r, ev, rows, n);
		free(rows);
	}
	if (opts->stats && !opts->json)
		dsostats__print_text(r.stats, opts->view.out);
	if (opts->stats && !opts->json && r.chains && session__call_graph(&r.rs)) {
		chain_stats__print_text(chainer__stats(r.chains), session__call_graph(&r.rs),
					opts->view.out);
		if (!opts->children) /* else the header said it */
			chain_stats__print_hint(chainer__stats(r.chains),
						session__call_graph(&r.rs), opts->view.out);
	}
	fflush(opts->view.out);
out:
	report_release(&r);
	return e;
}
