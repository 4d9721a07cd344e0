// SPDX-License-Identifier: MIT
/*
 * report.c - aggregate samples into rows keyed by the --sort keys (function,
 * source line, DSO, pid, tid, command, event) and print the tables.
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
#include "util/hash.h"
#include "util/json.h"

#include "report/present.h"
#include "report/session.h"
#include "report/stats.h"

/* The columns a table prints, from the keys. */
enum column {
	COL_LINE,
	COL_FUNC,
	COL_DSO,
	COL_PID,
	COL_TID,
	COL_COMM,
	COL_EVENT,
	COL_MAX,
};

static const char *const key_names[KEY_MAX] = {
	[KEY_FUNC] = "func", [KEY_LINE] = "line", [KEY_DSO] = "dso",	[KEY_PID] = "pid",
	[KEY_TID] = "tid",   [KEY_COMM] = "comm", [KEY_EVENT] = "event",
};

static const char *const col_titles[COL_MAX] = {
	[COL_LINE] = "source line", [COL_FUNC] = "function", [COL_DSO] = "dso",
	[COL_PID] = "pid",	    [COL_TID] = "tid",	     [COL_COMM] = "command",
	[COL_EVENT] = "event",
};

/* Elided to fit the terminal: names; numbers never are. */
static const bool col_elidable[COL_MAX] = {
	[COL_LINE] = true, [COL_FUNC] = true, [COL_DSO] = true, [COL_COMM] = true,
};

/*
 * What a row is keyed by.  The strings are the symbolizer's and the
 * machine's, which keep them until they are freed: one symbol, DWARF
 * function, file or command name is one pointer, so comparing pointers is
 * exact and costs no strlen per sample.  Two different functions of one
 * name (static ones in two files) are two rows.  Fields of columns not
 * shown stay zero.
 */
struct row_key {
	const char *function;	/* NULL: no symbol, see addr */
	const char *inlined_into;
	/*
	 * The DSO: the symbolizer's object for it (one per file, whatever
	 * mappings or paths showed it), or for the kernel and what has none
	 * its name.  Its name is row.dso.
	 */
	const void *dso_id;
	const char *file;
	const char *comm;
	u64 addr;		/* function NULL: the address in the DSO (or the ip) */
	u32 line, pid, tid, event;
};

/*
 * Of a source line's samples, those of one function's code compiled into
 * another: code is the innermost frame's function, into the function it
 * was inlined into (NULL: code's own, not inlined).  After the pass
 * (settle_line) function is the caller to show, NULL for the line's own.
 */
struct caller {
	const char *code, *into;
	const char *function;
	u64 samples[EBS_MAX_EVENTS];
	u64 all;
};

struct row {
	UT_hash_handle hh;
	struct row_key key;
	u64 samples[EBS_MAX_EVENTS];
	u64 all;		/* over every event */
	/*
	 * --sort line alone: rows are source lines, whatever they were
	 * inlined into; function is the line's own (key.function is NULL),
	 * callers the functions its code was inlined into.
	 */
	const char *function;
	struct caller *callers;
	size_t ncallers;
	const char *dso;	/* its name, when the DSO is a column */
	char text[];		/* "[unknown] DSO+0xADDR" for an unknown function */
};

struct report {
	const struct report_opts *o;
	struct rsession rs;
	bool col[COL_MAX];
	enum column cols[COL_MAX];	/* shown, in order */
	unsigned int nr_cols;
	bool by_event;		/* one table of all events */
	struct row *rows;
	bool by_line;		/* --sort line without func: one row per source line */
	bool ci_dropped;	/* this table left the interval out to fit the width */
	u64 total[EBS_MAX_EVENTS], total_all;
	u64 period_sum[EBS_MAX_EVENTS];
	struct dso_stat *stats;
	bool color;
	int width;
};

/* A --sort key's or --fields field's other names: perf's, and plain words. */
static const char *canonical_name(const char *tok)
{
	static const char *const aliases[][2] = {
		{"function", "func"}, {"sym", "func"}, {"srcline", "line"}, {"interval", "ci"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcmp(tok, aliases[i][0]))
			return aliases[i][1];
	return tok;
}

/* The index of tok (or its alias) in names[0..n), or n when it is none of them. */
static unsigned int name_index(const char *tok, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(canonical_name(tok), names[i]))
			break;
	return i;
}

int report_parse_keys(const char *text, struct report_opts *o, struct ebs_error *err)
{
	char *copy = strdup(text), *tok, *next;
	unsigned int i;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	o->nr_keys = 0;
	for (next = copy; next && !e;) {
		tok = strsep(&next, ",");
		i = name_index(tok, key_names, KEY_MAX);
		if (i == KEY_MAX) {
			e = ebs_error__set(err, EINVAL, "--sort '%s': known keys are func, line, dso, "
					   "pid, tid, comm, event", tok);
		} else {
			unsigned int j;

			for (j = 0; j < o->nr_keys; j++)
				if (o->keys[j] == (enum report_key)i)
					e = ebs_error__set(err, EINVAL, "--sort: '%s' twice", tok);
			if (!e)
				o->keys[o->nr_keys++] = (enum report_key)i;
		}
	}
	free(copy);
	return e;
}

static const char *const field_names[FIELD_MAX] = {
	[FIELD_SAMPLES] = "samples", [FIELD_PERCENT] = "percent", [FIELD_CI] = "ci",
	[FIELD_LINE] = "line",	     [FIELD_FUNC] = "func",	  [FIELD_DSO] = "dso",
	[FIELD_PID] = "pid",	     [FIELD_TID] = "tid",	  [FIELD_COMM] = "comm",
	[FIELD_EVENT] = "event",
};

/* The field of a key column: they follow the counts in column order. */
static enum report_field col_field(enum column c)
{
	return (enum report_field)(FIELD_LINE + (int)c);
}

int report_parse_fields(const char *text, struct report_opts *o, struct ebs_error *err)
{
	char *copy = strdup(text), *tok, *next;
	unsigned int i;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	o->fields = 0;
	for (next = copy; next && !e;) {
		tok = strsep(&next, ",");
		i = name_index(tok, field_names, FIELD_MAX);
		if (i == FIELD_MAX)
			e = ebs_error__set(err, EINVAL, "--fields '%s': known fields are samples, "
					   "percent, ci, line, func, dso, pid, tid, comm, event", tok);
		else
			o->fields |= 1u << i;
	}
	free(copy);
	return e;
}

/* Is field f shown in the text table? */
static bool shows(const struct report *r, enum report_field f)
{
	if (f == FIELD_CI && (r->o->no_ci || r->ci_dropped))
		return false;
	return !r->o->fields || (r->o->fields & (1u << f));
}

/* Every --fields field is a column of the table: 0, or -EINVAL naming the first that is not. */
static int check_fields(const struct report *r, struct ebs_error *err)
{
	/* the column that tells a --sort key's rows apart */
	static const enum column key_col[KEY_MAX] = {
		[KEY_FUNC] = COL_FUNC, [KEY_LINE] = COL_LINE, [KEY_DSO] = COL_DSO,
		[KEY_PID] = COL_PID,   [KEY_TID] = COL_TID,	  [KEY_COMM] = COL_COMM,
		[KEY_EVENT] = COL_EVENT,
	};
	unsigned int f, i;

	if (!r->o->fields)
		return 0;
	for (f = FIELD_LINE; f < FIELD_MAX; f++)
		if ((r->o->fields & (1u << f)) && !r->col[f - FIELD_LINE])
			return ebs_error__set(err, EINVAL, "--fields %s: not a column of this table "
					      "(add it to --sort)", field_names[f]);
	for (i = 0; i < (r->o->nr_keys ? r->o->nr_keys : 1); i++) {
		enum column c = key_col[r->o->nr_keys ? r->o->keys[i] : KEY_FUNC];

		if (!(r->o->fields & (1u << col_field(c))))
			return ebs_error__set(err, EINVAL, "--fields: the rows are keyed by %s: "
					      "without it they cannot be told apart (add %s)",
					      key_names[r->o->nr_keys ? r->o->keys[i] : KEY_FUNC],
					      field_names[col_field(c)]);
	}
	return 0;
}

static void add_col(struct report *r, enum column c)
{
	if (!r->col[c]) {
		r->col[c] = true;
		r->cols[r->nr_cols++] = c;
	}
}

static void plan_columns(struct report *r)
{
	static const enum report_key dflt = KEY_FUNC;
	const enum report_key *keys = r->o->nr_keys ? r->o->keys : &dflt;
	unsigned int i, n = r->o->nr_keys ? r->o->nr_keys : 1;
	bool line = false, func = false;

	for (i = 0; i < n; i++) {
		line |= keys[i] == KEY_LINE;
		func |= keys[i] == KEY_FUNC;
	}
	/* "which lines are hot": a line inlined into many functions is one row */
	r->by_line = line && !func && !r->o->no_inline;

	for (i = 0; i < n; i++) {
		switch (keys[i]) {
		case KEY_FUNC:
			add_col(r, COL_FUNC);
			add_col(r, COL_DSO);
			break;
		case KEY_LINE:
			add_col(r, COL_LINE);
			add_col(r, COL_FUNC);
			add_col(r, COL_DSO);
			break;
		case KEY_DSO:
			add_col(r, COL_DSO);
			break;
		case KEY_PID:
			add_col(r, COL_PID);
			break;
		case KEY_TID:
			add_col(r, COL_TID);
			break;
		case KEY_COMM:
			add_col(r, COL_COMM);
			break;
		case KEY_EVENT:
			add_col(r, COL_EVENT);
			r->by_event = true;
			break;
		default:
			break;
		}
	}
}

/* Count one sample of a line's code (code's, inlined into into) into row. */
static int add_caller(struct row *row, const char *code, const char *into, u16 event)
{
	size_t i;

	for (i = 0; i < row->ncallers; i++)	/* a line has few callers */
		if (row->callers[i].code == code && row->callers[i].into == into)
			break;
	if (i == row->ncallers) {
		struct caller *n = realloc(row->callers, (i + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		row->callers = n;
		memset(&n[i], 0, sizeof(n[i]));
		n[i].code = code;
		n[i].into = into;
		row->ncallers++;
	}
	row->callers[i].samples[event]++;
	row->callers[i].all++;
	return 0;
}

/* Count one sample into the row of k (of DSO dso); *out gets the row. */
static int add_row(struct report *r, const struct row_key *k, const char *dso, u16 event,
		   struct row **out)
{
	char text[512] = "";
	struct row *row;

	HASH_FIND(hh, r->rows, k, sizeof(*k), row);
	if (!row) {
		/* (a source line's row: its function is row->function) */
		if (r->col[COL_FUNC] && !k->function && !(r->by_line && k->line)) {
			if (strcmp(dso, "[unknown]"))
				snprintf(text, sizeof(text), "[unknown] %s+0x%llx", dso,
					 (unsigned long long)k->addr);
			else
				snprintf(text, sizeof(text), "[unknown] 0x%llx",
					 (unsigned long long)k->addr);
		}
		row = calloc(1, sizeof(*row) + strlen(text) + 1);
		if (!row)
			return -ENOMEM;
		row->key = *k;
		row->dso = k->dso_id ? dso : NULL;
		strcpy(row->text, text);
		HASH_ADD(hh, r->rows, key, sizeof(row->key), row);
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

static int account(void *ctx, const struct resolved *rv)
{
	struct report *r = ctx;
	const struct sym_result *res = &rv->res;
	const struct ebs_rec_sample *s = rv->s;
	const char *dso = res->dso ? res->dso : "[unknown]";
	const char *code, *code_into;
	struct row *row;
	struct row_key k;
	int e;

	memset(&k, 0, sizeof(k));
	r->total[s->event]++;
	r->total_all++;
	r->period_sum[s->event] += s->period;
	/* by the DSO's own path (one file seen under two paths is one DSO) */
	if (r->o->stats && dso_stats__add(&r->stats, res->info && res->info->path ? res->info->path :
						      res->dso_path ? res->dso_path : dso, res))
		return -ENOMEM;
	if (r->col[COL_FUNC]) {
		const struct sym_frame *loc = NULL;

		if (res->nr_frames > 1 && !r->o->no_inline) {
			unsigned int into = 1, last = res->nr_frames - 1, j;

			/* a function inlined into itself (a recursive call, an alias): one function */
			while (into <= last && rsession_same_name(res->frames[into].function,
								  res->frames[0].function))
				into++;
			/* ...and one repeated out to the compiled function is that one */
			for (j = into; j < last && rsession_same_name(res->frames[j].function,
								     res->frames[j + 1].function); j++)
				;
			if (into < last && j == last)
				into = last;
			/* inlined code: the inlined function, at its own line */
			k.function = res->frames[0].function ? res->frames[0].function : res->function;
			/*
			 * ...inlined into the next function out; the compiled one
			 * named as its own code's rows name it, by the symbol table
			 * (DWARF may name it by an alias: glibc's __GI_ names)
			 */
			if (into < last)
				k.inlined_into = res->frames[into].function;
			else if (into == last)
				k.inlined_into = res->function ? res->function
							       : res->frames[last].function;
			else if (res->function)	/* itself all the way out: its own code */
				k.function = res->function;
			if (rsession_same_name(k.function, k.inlined_into))
				k.inlined_into = NULL;
			loc = &res->frames[0];
		} else {
			k.function = res->function;
			if (!k.function && res->nr_frames)
				k.function = res->frames[res->nr_frames - 1].function;
			if (res->nr_frames)	/* the compiled function's own line */
				loc = &res->frames[res->nr_frames - 1];
		}
		if (!k.function)
			k.addr = res->dso ? res->dso_addr : s->ip;
		if (r->col[COL_LINE] && loc && loc->line) {
			k.file = loc->file;
			k.line = loc->line;
		}
	}
	if (r->col[COL_DSO] || r->col[COL_FUNC])
		k.dso_id = res->info ? (const void *)res->info : (const void *)dso;
	if (r->col[COL_PID])
		k.pid = s->pid;
	if (r->col[COL_TID])
		k.tid = s->tid;
	if (r->col[COL_COMM])
		k.comm = rv->comm;
	if (r->col[COL_EVENT])
		k.event = s->event;
	if (!r->by_line || !k.line)
		return add_row(r, &k, dso, s->event, &row);
	/* the line is the row: its function shown, its callers counted */
	code = k.function;
	code_into = k.inlined_into;
	k.function = k.inlined_into = NULL;
	e = add_row(r, &k, dso, s->event, &row);
	return e ? e : add_caller(row, code, code_into, s->event);
}

/* A row's count in the table of ev (-1: the table of all events). */
static u64 count(const struct row *row, int ev)
{
	return ev < 0 ? row->all : row->samples[ev];
}

static const char *function_text(const struct row *row)
{
	if (row->function)
		return row->function;
	if (row->key.function)
		return row->key.function;
	return row->text[0] ? row->text : "??";
}

/* A source line's samples that are its function's own code, not inlined. */
static u64 own_samples(const struct row *row, int ev)
{
	u64 n = ev < 0 ? row->all : row->samples[ev];
	size_t i;

	for (i = 0; i < row->ncallers; i++)
		if (row->callers[i].function)
			n -= ev < 0 ? row->callers[i].all : row->callers[i].samples[ev];
	return n;
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

		c->function = c->into && !rsession_same_name(c->into, row->function) ? c->into
			      : !rsession_same_name(c->code, row->function) ? c->code : NULL;
	}
	/* merge callers of one name (and the own entries) */
	for (i = 0; i < row->ncallers; i++) {
		struct caller *c = &row->callers[i];

		for (j = 0; j < n; j++)
			if (rsession_same_name(row->callers[j].function, c->function))
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

/*
 * A source line's function and where its code was inlined, the callers
 * with most samples first: "f", "f (inlined into g)", "f (inlined into
 * g, h, +3 more)", "f (and inlined into g)" when some of it is f's own.
 */
static void line_function(const struct row *row, char *buf, size_t len)
{
	size_t n = 0, i, nc = row->ncallers;

	n += (size_t)snprintf(buf, len, "%s", function_text(row));
	if (nc && !row->callers[nc - 1].function)
		nc--;	/* the own samples' entry */
	if (!nc || n >= len)
		return;
	n += (size_t)snprintf(buf + n, len - n, " (%sinlined into ",
			      own_samples(row, -1) ? "and " : "");
	for (i = 0; i < nc && i < 2 && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      row->callers[i].function);
	if (nc > 2 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", +%zu more", nc - 2);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

/* The text of column c of row. */
static void cell(const struct report *r, const struct row *row, enum column c, char *buf,
		 size_t len)
{
	const struct row_key *k = &row->key;

	switch (c) {
	case COL_LINE:
		if (k->line)
			snprintf(buf, len, "%s:%u", k->file ? k->file : "??", k->line);
		else
			snprintf(buf, len, "??");
		break;
	case COL_FUNC:
		if (r->by_line && k->line)
			line_function(row, buf, len);
		else if (k->inlined_into)
			snprintf(buf, len, "%s (inlined into %s)", function_text(row), k->inlined_into);
		else
			snprintf(buf, len, "%s", function_text(row));
		break;
	case COL_DSO:
		snprintf(buf, len, "%s", row->dso ? row->dso : "??");
		break;
	case COL_PID:
		snprintf(buf, len, "%u", k->pid);
		break;
	case COL_TID:
		snprintf(buf, len, "%u", k->tid);
		break;
	case COL_COMM:
		snprintf(buf, len, "%s", k->comm ? k->comm : "??");
		break;
	case COL_EVENT:
		snprintf(buf, len, "%s", ebs_data__event(r->rs.d, k->event)->used);
		break;
	default:
		buf[0] = '\0';
	}
}

struct sort_ctx {
	const struct report *r;
	int ev;
};

/* Most samples first; ties by the columns' text, so output is stable. */
static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	const struct sort_ctx *sc = arg;
	char bx[4200], by[4200];
	unsigned int i;
	int c;

	if (count(x, sc->ev) != count(y, sc->ev))
		return count(x, sc->ev) > count(y, sc->ev) ? -1 : 1;
	for (i = 0; i < sc->r->nr_cols; i++) {
		enum column col = sc->r->cols[i];

		if (col == COL_PID || col == COL_TID || col == COL_EVENT) {
			u32 vx = col == COL_PID ? x->key.pid : col == COL_TID ? x->key.tid : x->key.event;
			u32 vy = col == COL_PID ? y->key.pid : col == COL_TID ? y->key.tid : y->key.event;

			if (vx != vy)
				return vx < vy ? -1 : 1;
			continue;
		}
		cell(sc->r, x, col, bx, sizeof(bx));
		cell(sc->r, y, col, by, sizeof(by));
		c = strcmp(bx, by);
		if (c)
			return c;
		if (col == COL_LINE && x->key.line != y->key.line)
			return x->key.line < y->key.line ? -1 : 1;
	}
	return 0;
}

/* Rows with samples in table ev, sorted; *n gets the count. */
static struct row **sorted_rows(struct report *r, int ev, size_t *n)
{
	struct row *row, *tmp, **v = malloc((HASH_COUNT(r->rows) + 1) * sizeof(*v));
	struct sort_ctx sc = {r, ev};
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, r->rows, row, tmp)
		if (count(row, ev))
			v[i++] = row;
	qsort_r(v, i, sizeof(*v), row_cmp, &sc);
	*n = i;
	return v;
}

/*
 * Samples of event ev the kernel dropped: its own, plus the losses of full
 * rings, which all the events of a CPU share (LOST records of no event).
 */
static u64 lost_of(const struct report *r, int ev)
{
	const struct ebs_rec_trailer *t = ebs_data__totals(r->rs.d);
	u64 attributed = 0;
	unsigned int i, nev = ebs_data__nr_events(r->rs.d);

	if (!t)
		return 0;
	if (ev < 0)
		return t->lost;
	for (i = 0; i < nev; i++)
		attributed += ebs_data__counts(r->rs.d, i)->lost;
	return ebs_data__counts(r->rs.d, ev)->lost + (t->lost > attributed ? t->lost - attributed : 0);
}

static u64 throttled_of(const struct report *r, int ev)
{
	const struct ebs_rec_trailer *t = ebs_data__totals(r->rs.d);

	if (!t)
		return 0;
	return ev < 0 ? t->throttled : ebs_data__counts(r->rs.d, ev)->throttled;
}

static bool filtered(const struct report *r)
{
	const struct report_filter *f = &r->o->filter;

	return f->pid || f->tid || f->comm || f->dso || f->funcs;
}

/* What an event's COUNT records say: its counters' totals, and for how long they ran. */
struct counted {
	u64 value;		/* 0 when the file has no COUNT record of the event */
	double scaled;		/* value scaled to the whole enabled time */
	u64 enabled, running;	/* ns, as a multiplexing ratio: see counted_of */
	bool multiplexed;
};

/* The counters of one target thread, one per CPU. */
struct cnt_thread {
	UT_hash_handle hh;
	u32 tid;
	u64 value, running, enabled;	/* enabled: the largest of its counters' */
};

/* One counter's share of c: scaled as perf stat scales it. */
static void add_counter(struct counted *c, u64 value, u64 enabled, u64 running)
{
	if (running && running < enabled - enabled / 1000) {
		c->multiplexed = true;
		c->scaled += (double)value * (double)enabled / (double)running;
	} else {
		c->scaled += (double)value;
	}
	c->enabled += enabled;
	c->running += running < enabled ? running : enabled;
}

/*
 * The event's COUNT records, one per counter.  A counter of a target
 * thread on one CPU is enabled whenever the thread runs on any CPU, but
 * runs only while it is on that CPU: the thread's counters together ran
 * for all of that time unless the kernel multiplexed them, so for a thread
 * the sum of its counters' running times is set against its largest
 * enabled time.  A system-wide counter (tid 0) stands alone.
 */
static struct counted counted_of(const struct report *r, int ev)
{
	struct cnt_thread *threads = NULL, *t, *tmp;
	struct counted c = {0};
	size_t i;

	if (ev < 0)
		return c;
	for (i = 0; i < r->rs.ncounts; i++) {
		const struct ebs_rec_count *cr = &r->rs.counts[i];

		if (cr->event != ev)
			continue;
		c.value += cr->value;
		if (!cr->tid) {
			add_counter(&c, cr->value, cr->time_enabled, cr->time_running);
			continue;
		}
		HASH_FIND(hh, threads, &cr->tid, sizeof(cr->tid), t);
		if (!t) {
			t = calloc(1, sizeof(*t));
			if (!t) {	/* out of memory: count it alone */
				add_counter(&c, cr->value, cr->time_enabled, cr->time_running);
				continue;
			}
			t->tid = cr->tid;
			HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
			if (!t->hh.tbl) {	/* the same */
				free(t);
				add_counter(&c, cr->value, cr->time_enabled, cr->time_running);
				continue;
			}
		}
		t->value += cr->value;
		t->running += cr->time_running;
		if (cr->time_enabled > t->enabled)
			t->enabled = cr->time_enabled;
	}
	HASH_ITER(hh, threads, t, tmp) {
		add_counter(&c, t->value, t->enabled, t->running);
		HASH_DEL(threads, t);
		free(t);
	}
	return c;
}

/*
 * What the table's samples say of the event's total: the sum of their
 * periods (samples x N with -c), and why it is only approximate.
 */
static void estimate(const struct report *r, int ev, const struct counted *c, u64 *events,
		     char *why, size_t len)
{
	u64 lost = lost_of(r, ev), thr = throttled_of(r, ev);
	size_t n = 0;

	*events = r->period_sum[ev];
	why[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n < len)                                                                       \
			n += (size_t)snprintf(why + n, len - n, __VA_ARGS__);                      \
	} while (0)
	if (lost)
		ADD("%llu lost samples are not in it", (unsigned long long)lost);
	if (thr)
		ADD("%s%llu throttle events: samples were withheld", n ? "; " : "",
		    (unsigned long long)thr);
	if (c->multiplexed)
		ADD("%smultiplexed: the counters ran %.1f%% of the time, and samples only then",
		    n ? "; " : "", 100.0 * (double)c->running / (double)c->enabled);
	/*
	 * The counters' own total says how many events there were; samples
	 * standing for much less mean the kernel took fewer samples than the
	 * rate asks: throttling (kernel.perf_event_max_sample_rate,
	 * perf_cpu_time_max_percent), or a clock event's timer falling
	 * behind when an interrupt costs more than the period.  A timer's
	 * latency alone loses a few percent, hence a tenth.
	 */
	if (c->value && !filtered(r) && *events < c->scaled * 0.9)
		ADD("%sthe samples stand for %.0f%% of the counted events: the kernel took fewer "
		    "samples than asked (throttled, or the interrupts cost more than the period: "
		    "a lower rate samples more evenly)", n ? "; " : "",
		    100.0 * (double)*events / c->scaled);
#undef ADD
}

static void filter_words(const struct report *r, char *buf, size_t len)
{
	const struct report_filter *f = &r->o->filter;
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n < len)                                                                       \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                      \
	} while (0)
	if (f->pid)
		ADD("%spid %u", n ? ", " : "", f->pid);
	if (f->tid)
		ADD("%stid %u", n ? ", " : "", f->tid);
	if (f->comm)
		ADD("%scommand %s", n ? ", " : "", f->comm);
	if (f->dso)
		ADD("%sdso %s", n ? ", " : "", f->dso);
	if (f->funcs)
		ADD("%sfunction %s", n ? ", " : "", f->funcs);
#undef ADD
}

/*
 * How N was chosen, when ebs calibrate chose it: the rate asked, the rate
 * this recording achieved (its samples per second of the counters' running
 * time: per CPU-second of the target), the overhead measured in calibration.
 */
static void calibration_words(const struct report *r, int ev, const struct counted *c, FILE *f)
{
	const struct ebs_rec_calibration *cal = ebs_data__calibration(r->rs.d, (unsigned int)ev);
	const struct ebs_event_counts *k = ebs_data__counts(r->rs.d, (unsigned int)ev);

	if (cal) {
		fprintf(f, " (calibrated: %u/s asked", cal->rate_hz);
		if (c->running && k)
			fprintf(f, ", %.0f/s achieved",
				(double)k->samples / ((double)c->running * 1e-9));
		fprintf(f, ", %.1f%% overhead)", (double)cal->overhead_ppm / 1e4);
	}
	fputc('\n', f);
}

static void print_header(struct report *r, int ev, FILE *f)
{
	u64 total = ev < 0 ? r->total_all : r->total[ev];
	char why[256], fw[512];
	unsigned int i, nev = ebs_data__nr_events(r->rs.d);

	if (ev < 0) {
		fprintf(f, "# event: all (");
		for (i = 0; i < nev; i++)
			fprintf(f, "%s%s", i ? ", " : "", ebs_data__event(r->rs.d, i)->used);
		fprintf(f, "; one table: percent of the samples of all events)\n");
	} else {
		const struct ebs_event_info *info = ebs_data__event(r->rs.d, ev);
		const struct ebs_rec_event *e = info->rec;
		struct counted c = counted_of(r, ev);
		u64 events;

		fprintf(f, "# event: %s", info->used);
		if (info->why[0])
			fprintf(f, " (asked for %s: %s)", info->asked, info->why);
		fprintf(f, "\n");
		if (e->flags & EBS_EVF_FREQ)
			fprintf(f, "# sampling: frequency %llu Hz per CPU\n",
				(unsigned long long)e->sample_freq);
		else
			fprintf(f, "# sampling: one sample after every %llu events",
				(unsigned long long)e->sample_period);
		if (!(e->flags & EBS_EVF_FREQ))
			calibration_words(r, ev, &c, f);
		estimate(r, ev, &c, &events, why, sizeof(why));
		if (total) {
			fprintf(f, "# events: about %llu (%s)%s%s\n", (unsigned long long)events,
				e->flags & EBS_EVF_FREQ ? "the sum of the samples' periods"
							: "samples x the sample-after value",
				why[0] ? "; approximate: " : "", why);
		}
		/* the count is of everything: beside a filtered table it would mislead */
		if (c.value && !filtered(r) && c.multiplexed)
			fprintf(f, "# counted: about %.0f (%llu while the counters ran, %.1f%% of the "
				"time, scaled to all of it)\n", c.scaled,
				(unsigned long long)c.value, 100.0 * (double)c.running / (double)c.enabled);
		else if (c.value && !filtered(r))
			fprintf(f, "# counted: %llu (the counters' own total)\n",
				(unsigned long long)c.value);
	}
	fprintf(f, "# samples: %llu, lost: %llu%s, throttled: %llu\n", (unsigned long long)total,
		(unsigned long long)lost_of(r, ev),
		ev >= 0 && nev > 1 && lost_of(r, ev) > ebs_data__counts(r->rs.d, ev)->lost
			? " (of all events: they share the rings)" : "",
		(unsigned long long)throttled_of(r, ev));
	filter_words(r, fw, sizeof(fw));
	if (fw[0])
		fprintf(f, "# only: %s\n", fw);
}

/*
 * Narrow the name columns w[] (natural widths) until a row fits width:
 * the DSO first (its name tells least), then the command, then the widest
 * of the others; none below min_w[].  True when the rows fit.
 */
static bool fit(int *w, const enum column *cols, const int *min_w, int nc, int fixed, int width)
{
	for (;;) {
		int pick = -1, sum = fixed, i;

		for (i = 0; i < nc; i++)
			sum += 2 + w[i];
		if (!width || sum <= width)
			return true;
		for (i = 0; i < nc && pick < 0; i++)
			if (cols[i] == COL_DSO && w[i] > min_w[i])
				pick = i;
		for (i = 0; i < nc && pick < 0; i++)
			if (cols[i] == COL_COMM && w[i] > min_w[i])
				pick = i;
		if (pick < 0)
			for (i = 0; i < nc; i++)
				if (col_elidable[cols[i]] && w[i] > min_w[i] &&
				    (pick < 0 || w[i] > w[pick]))
					pick = i;
		if (pick < 0)
			return false;	/* nothing left to narrow */
		w[pick]--;
	}
}

/*
 * A cell cut to width: a function's own name is kept before what follows
 * it ("f (inlined into g, ...)" loses the parenthesis first); other names
 * are elided in the middle (a path keeps its file name).
 */
static void elide_cell(enum column c, char *out, size_t size, const char *s, size_t width)
{
	const char *paren = c == COL_FUNC ? strstr(s, " (") : NULL;
	size_t name = paren ? (size_t)(paren - s) : 0;

	if (paren && strlen(s) > width && name + 6 <= width && width < size) {
		/* "name (inlined i...)" */
		snprintf(out, size, "%.*s...)", (int)(width - 4), s);
		return;
	}
	if (paren && strlen(s) > width && name <= width) {
		snprintf(out, size, "%.*s", (int)name, s);	/* the name alone */
		return;
	}
	present_elide(out, size, s, width);
}

static void print_text(struct report *r, int ev, struct row **rows, size_t n)
{
	FILE *f = r->o->out;
	u64 total = ev < 0 ? r->total_all : r->total[ev];
	size_t k, shown = 0, limit = r->o->top && r->o->top < n ? r->o->top : n;
	int w[COL_MAX] = {0}, natural[COL_MAX], min_w[COL_MAX], line_min = 12, fixed, i, nc;
	enum column cols[COL_MAX];
	char buf[4200], cut[4200], head[1024] = " ";
	size_t hn;

	print_header(r, ev, f);
	if (!total) {
		fprintf(f, "# no samples\n\n");
		return;
	}
	/* the key columns shown, in order */
	for (i = 0, nc = 0; i < (int)r->nr_cols; i++)
		if (shows(r, col_field(r->cols[i])))
			cols[nc++] = r->cols[i];
	/* natural widths, then elide name columns to fit */
	for (i = 0; i < nc; i++)
		w[i] = (int)strlen(col_titles[cols[i]]);
	for (k = 0; k < limit; k++)
		for (i = 0; i < nc; i++) {
			if (present_percent(count(rows[k], ev), total) < r->o->min_percent)
				break;	/* not shown */
			cell(r, rows[k], cols[i], buf, sizeof(buf));
			if ((int)strlen(buf) > w[i])
				w[i] = (int)strlen(buf);
			if (cols[i] == COL_LINE) {	/* ".../file.c:123": at most 30 */
				const char *b = strrchr(buf, '/');
				int want = b ? (int)strlen(b) + 3 : 0;

				if (want > line_min)
					line_min = want < 30 ? want : 30;
			}
		}
	for (i = 0; i < nc; i++)	/* a source line keeps its file name and line */
		min_w[i] = cols[i] == COL_LINE ? line_min : 12;
	memcpy(natural, w, sizeof(w));
	r->ci_dropped = false;
	fixed = (shows(r, FIELD_SAMPLES) ? 10 : 0) + (shows(r, FIELD_PERCENT) ? 9 : 0) +
		(shows(r, FIELD_CI) ? 16 : 0);
	if (!fit(w, cols, min_w, nc, fixed, r->width) && shows(r, FIELD_CI) && !r->o->fields) {
		/* the names matter more than the interval on a narrow terminal: say so */
		r->ci_dropped = true;
		memcpy(w, natural, sizeof(w));
		fit(w, cols, min_w, nc, fixed - 16, r->width);
		fprintf(f, "# (no 95%% interval column: %d columns are too few for it; --no-ci, "
			"--fields or --width choose)\n", r->width);
	}
	/* the titles as wide as the fields below them, a '#' for the first space */
	hn = 0;
	if (shows(r, FIELD_SAMPLES))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %8s", "samples");
	if (shows(r, FIELD_PERCENT) && hn < sizeof(head))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, " %8s", "percent");
	if (shows(r, FIELD_CI) && hn < sizeof(head))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %-14s", "95% interval");
	for (i = 0; i < nc && hn < sizeof(head); i++)
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %-*s", i + 1 < nc ? w[i] : 0,
				       col_titles[cols[i]]);
	head[0] = '#';
	fprintf(f, "#\n%s\n", head);
	for (k = 0; k < limit; k++) {
		u64 c = count(rows[k], ev);
		double p = present_percent(c, total), lo, hi;

		if (p < r->o->min_percent)
			continue;
		present_wilson95(c, total, &lo, &hi);
		if (shows(r, FIELD_SAMPLES))
			fprintf(f, "  %8llu", (unsigned long long)c);
		if (shows(r, FIELD_PERCENT))
			fprintf(f, " %s%7.2f%%%s", present_heat_color(r->color, p), p, present_color_end(r->color));
		if (shows(r, FIELD_CI))
			fprintf(f, "  [%5.1f, %5.1f]", lo, hi);
		for (i = 0; i < nc; i++) {
			cell(r, rows[k], cols[i], buf, sizeof(buf));
			elide_cell(cols[i], cut, sizeof(cut), buf, (size_t)w[i]);
			fprintf(f, "  %-*s", i + 1 < nc ? w[i] : 0, cut);
		}
		fprintf(f, "\n");
		shown++;
	}
	if (shown < n) {
		/* which option left rows out: --top (rows past the limit), --min-percent, both */
		bool by_top = limit < n, by_min = shown < limit;

		fprintf(f, "  (%zu more row%s; %s shows all)\n", n - shown, n - shown == 1 ? "" : "s",
			by_top && by_min ? "--top 0 --min-percent 0"
			: by_min ? "--min-percent 0" : "--top 0");
	}
	fprintf(f, "\n");
}

static void print_json(struct report *r, int ev, struct row **rows, size_t n)
{
	u64 total = ev < 0 ? r->total_all : r->total[ev];
	unsigned int i, nev = ebs_data__nr_events(r->rs.d);
	size_t k, limit = r->o->top && r->o->top < n ? r->o->top : n;
	char sort[256] = "";
	struct ebs_json j;

	ebs_json__begin(&j, r->o->out);
	ebs_json__obj(&j);
	if (ev < 0) {
		ebs_json__key_null(&j, "event");
	} else {
		const struct ebs_event_info *info = ebs_data__event(r->rs.d, ev);
		const struct ebs_rec_event *e = info->rec;
		struct counted cn = counted_of(r, ev);
		u64 events;
		char why[256];

		ebs_json__key_str(&j, "event", info->used);
		ebs_json__key_str(&j, "asked", info->asked);
		if (info->why[0])
			ebs_json__key_str(&j, "fallback", info->why);
		if (e->flags & EBS_EVF_FREQ) {
			ebs_json__key_null(&j, "period");
			ebs_json__key_u64(&j, "freq", e->sample_freq);
		} else {
			ebs_json__key_u64(&j, "period", e->sample_period);
		}
		estimate(r, ev, &cn, &events, why, sizeof(why));
		ebs_json__key(&j, "estimate");
		ebs_json__obj(&j);
		ebs_json__key_u64(&j, "events", events);
		ebs_json__key_bool(&j, "approximate", why[0]);
		if (why[0])
			ebs_json__key_str(&j, "why", why);
		ebs_json__obj_end(&j);
		if (cn.value && !filtered(r)) {
			ebs_json__key_u64(&j, "counted", cn.value);
			if (cn.multiplexed) {
				ebs_json__key_num(&j, "counted_scaled", "%.0f", cn.scaled);
				ebs_json__key_num(&j, "running_fraction", "%.4f",
						  (double)cn.running / (double)cn.enabled);
			}
		}
	}
	ebs_json__key_u64(&j, "samples", total);
	ebs_json__key_u64(&j, "lost", lost_of(r, ev));
	ebs_json__key_u64(&j, "throttled", throttled_of(r, ev));
	for (i = 0; i < (r->o->nr_keys ? r->o->nr_keys : 1); i++)
		snprintf(sort + strlen(sort), sizeof(sort) - strlen(sort), "%s%s", i ? "," : "",
			 key_names[r->o->nr_keys ? r->o->keys[i] : KEY_FUNC]);
	ebs_json__key_str(&j, "sort", sort);
	if (nev > 1) {
		ebs_json__key(&j, "events");
		ebs_json__arr(&j);
		for (i = 0; i < nev; i++)
			ebs_json__str(&j, ebs_data__event(r->rs.d, i)->used);
		ebs_json__arr_end(&j);
	}
	ebs_json__key(&j, "rows");
	ebs_json__arr(&j);
	for (k = 0; k < limit; k++) {
		const struct row *row = rows[k];
		const struct row_key *key = &row->key;
		u64 c = count(row, ev);
		double p = present_percent(c, total), lo, hi;

		if (p < r->o->min_percent)
			continue;
		present_wilson95(c, total, &lo, &hi);
		ebs_json__obj(&j);
		if (r->col[COL_FUNC]) {
			ebs_json__key_str(&j, "function", function_text(row));
			if (key->inlined_into) {
				ebs_json__key_str(&j, "inlined_into", key->inlined_into);
			} else if (row->ncallers) {
				/* a source line: every function its code was inlined into */
				const struct caller *cl;

				ebs_json__key_u64(&j, "own", own_samples(row, ev));
				ebs_json__key(&j, "inlined_into");
				ebs_json__arr(&j);
				for (cl = row->callers; cl < row->callers + row->ncallers; cl++) {
					if (!cl->function)
						continue;	/* the own entry, sorted last */
					ebs_json__obj(&j);
					ebs_json__key_str(&j, "function", cl->function);
					ebs_json__key_u64(&j, "samples",
							  ev < 0 ? cl->all : cl->samples[ev]);
					ebs_json__obj_end(&j);
				}
				ebs_json__arr_end(&j);
			}
		}
		if (r->col[COL_LINE]) {
			ebs_json__key_str(&j, "file", key->line ? key->file : NULL);
			ebs_json__key(&j, "line");
			if (key->line)
				ebs_json__u64(&j, key->line);
			else
				ebs_json__null(&j);
		}
		if (r->col[COL_DSO])
			ebs_json__key_str(&j, "dso", row->dso ? row->dso : "??");
		if (r->col[COL_PID])
			ebs_json__key_u64(&j, "pid", key->pid);
		if (r->col[COL_TID])
			ebs_json__key_u64(&j, "tid", key->tid);
		if (r->col[COL_COMM])
			ebs_json__key_str(&j, "comm", key->comm);
		if (r->col[COL_EVENT])
			ebs_json__key_str(&j, "event", ebs_data__event(r->rs.d, key->event)->used);
		ebs_json__key_u64(&j, "samples", c);
		ebs_json__key_num(&j, "percent", "%.4f", p);
		ebs_json__key(&j, "ci95");
		ebs_json__arr(&j);
		ebs_json__num(&j, "%.4f", lo);
		ebs_json__num(&j, "%.4f", hi);
		ebs_json__arr_end(&j);
		ebs_json__obj_end(&j);
	}
	ebs_json__arr_end(&j);
	if (r->o->stats)
		dso_stats__print_json(r->stats, &j);
	ebs_json__obj_end(&j);
	ebs_json__end(&j);
}

int ebs_report(const struct report_opts *opts, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct report r;
	struct row *row, *tmp;
	int ev, first = 0, last, e;

	memset(&r, 0, sizeof(r));
	r.o = opts;
	plan_columns(&r);
	e = check_fields(&r, err);
	if (e)
		return e;
	r.color = !opts->json && present_color_on(opts->out, opts->color);
	r.width = opts->json ? 0 : present_width(opts->out, opts->width);
	so.kallsyms = opts->kallsyms;
	so.debug_dirs = opts->debug_dirs;
	so.demangle = !opts->no_demangle;
	so.warn = rsession_warn;
	so.warn_ctx = opts->warn;
	/* DWARF where lines or inline chains are shown, counted or filtered on */
	so.no_dwarf = !r.col[COL_LINE] && !opts->stats && !opts->filter.funcs &&
		      (opts->no_inline || !r.col[COL_FUNC]);
	e = rsession__open(&r.rs, opts->input, &so, &opts->filter, err);
	if (e)
		return e;
	e = rsession__each(&r.rs, account, &r, err);
	if (e)
		goto out;
	HASH_ITER(hh, r.rows, row, tmp)
		if (row->ncallers)
			settle_line(row);
	last = (int)ebs_data__nr_events(r.rs.d) - 1;
	if (r.rs.event >= 0)
		first = last = r.rs.event;
	else if (opts->json)
		last = 0;
	if (r.by_event)
		first = last = -1;
	for (ev = first; ev <= last; ev++) {
		size_t n;
		struct row **rows = sorted_rows(&r, ev, &n);

		if (!rows) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (opts->json)
			print_json(&r, ev, rows, n);
		else
			print_text(&r, ev, rows, n);
		free(rows);
	}
	if (opts->stats && !opts->json)
		dso_stats__print_text(r.stats, opts->out);
	fflush(opts->out);
out:
	HASH_ITER(hh, r.rows, row, tmp) {
		HASH_DEL(r.rows, row);
		free(row->callers);
		free(row);
	}
	dso_stats__free(&r.stats);
	rsession__close(&r.rs);
	return e;
}
