// SPDX-License-Identifier: MIT
/*
 * columns.c - the --sort keys and --fields of ebs report: one descriptor
 * per key (report_columns[]: names, title, how rows compare, text cell,
 * JSON members), the parsing of both options, and which columns a table
 * shows.
 *
 * Rows compare by their keys, never by built strings: numbers as numbers,
 * names through the pieces their cell is made of (struct cell), in the
 * order strcmp would give the cells' texts, so that rows of equal counts
 * keep the order the table always had.  ("a.c:10" sorts before "a.c:9":
 * the order of the text, as before the descriptors.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/present.h"
#include "report/table.h"

/* ---- cells ------------------------------------------------------------------------------ */

static void put(struct cell *c, const char *s)
{
	if (c->n < ARRAY_SIZE(c->piece))
		c->piece[c->n++] = s ? s : "(null)"; /* as printf's %s would */
}

/* v in decimal, into the cell's i-th number. */
static void put_num(struct cell *c, unsigned int i, u64 v)
{
	char *end = c->num[i] + sizeof(c->num[i]) - 1, *p = end;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(c, p);
}

int cell_cmp(const struct cell *a, const struct cell *b)
{
	const char *pa = a->n ? a->piece[0] : "", *pb = b->n ? b->piece[0] : "";
	size_t la = strlen(pa), lb = strlen(pb), left = CELL_MAX - 1, m;
	unsigned int ia = 0, ib = 0;
	int c;

	/* the overlap of the pieces at hand, then on into the next piece of either */
	for (;;) {
		while (!la && ia + 1 < a->n)
			la = strlen(pa = a->piece[++ia]);
		while (!lb && ib + 1 < b->n)
			lb = strlen(pb = b->piece[++ib]);
		if (!left)
			return 0;
		if (!la || !lb)
			return (la > 0) - (lb > 0); /* the one that ended is less */
		m = la < lb ? la : lb;
		if (m > left)
			m = left;
		/* one interned name (one file, one function) is one pointer */
		if (pa != pb) {
			c = memcmp(pa, pb, m);
			if (c)
				return c;
		}
		pa += m, la -= m;
		pb += m, lb -= m;
		left -= m;
	}
}

void cell_join(const struct cell *c, char *buf, size_t len)
{
	size_t n = 0, l;
	unsigned int i;

	if (!len)
		return;
	for (i = 0; i < c->n && n < len - 1; i++) {
		l = strlen(c->piece[i]);
		if (l > len - 1 - n)
			l = len - 1 - n;
		memcpy(buf + n, c->piece[i], l);
		n += l;
	}
	buf[n] = '\0';
}

/* ---- the columns ------------------------------------------------------------------------ */

const char *row__function(const struct row *row)
{
	if (row->function)
		return row->function;
	if (row->key.function)
		return row->key.function;
	return row->text[0] ? row->text : "??";
}

bool row__share(const struct report *r, const struct row *row, int ev, u64 total,
		struct row__share *sh)
{
	sh->count = row__count(row, ev);
	sh->percent = present_percent(sh->count, total);
	if (sh->percent < r->o->view.min_percent)
		return false;
	present_wilson95(sh->count, total, &sh->lo, &sh->hi);
	return true;
}

u64 row__own_samples(const struct row *row, int ev)
{
	u64 n = row__count(row, ev);
	size_t i;

	for (i = 0; i < row->ncallers; i++)
		if (row->callers[i].function)
			n -= ev < 0 ? row->callers[i].all : row->callers[i].samples[ev];
	return n;
}

/*
 * A source line's function and where its code was inlined, the callers
 * with most samples first: "f", "f (inlined into g)", "f (inlined into
 * g, h, +3 more)", "f (and inlined into g)" when some of it is f's own.
 */
static void line_function(const struct row *row, struct cell *c)
{
	size_t i, nc = row->ncallers;

	put(c, row__function(row));
	if (nc && !row->callers[nc - 1].function)
		nc--; /* the own samples' entry */
	if (!nc)
		return;
	put(c, row__own_samples(row, -1) ? " (and inlined into " : " (inlined into ");
	for (i = 0; i < nc && i < 2; i++) {
		if (i)
			put(c, ", ");
		put(c, row->callers[i].function);
	}
	if (nc > 2) {
		put(c, ", +");
		put_num(c, 0, nc - 2);
		put(c, " more");
	}
	put(c, ")");
}

static void func_text(const struct report *r, const struct row *row, struct cell *c)
{
	const struct row_key *k = &row->key;

	if (r->by_line && (k->line || k->file)) {
		line_function(row, c);
	} else if (k->inlined_into) {
		put(c, row__function(row));
		put(c, " (inlined into ");
		put(c, k->inlined_into);
		put(c, ")");
	} else {
		put(c, row__function(row));
	}
}

static void line_text(const struct report *r, const struct row *row, struct cell *c)
{
	(void)r;
	if (row->key.line || row->key.file) { /* line 0 in a known file: FILE:0 */
		put(c, row->key.file ? row->key.file : "??");
		put(c, ":");
		put_num(c, 0, row->key.line);
	} else {
		put(c, "??");
	}
}

static void dso_text(const struct report *r, const struct row *row, struct cell *c)
{
	(void)r;
	put(c, row->dso ? row->dso : "??");
}

/* Several recordings: a pid is "HOST:PID", the recording's label (session.h) before it. */
static void task_text(const struct report *r, const struct row *row, u32 id, struct cell *c)
{
	if (r->rs.nin > 1) {
		put(c, r->rs.in[row->key.input].label);
		put(c, ":");
	}
	put_num(c, 0, id);
}

static void pid_text(const struct report *r, const struct row *row, struct cell *c)
{
	task_text(r, row, row->key.pid, c);
}

static void tid_text(const struct report *r, const struct row *row, struct cell *c)
{
	task_text(r, row, row->key.tid, c);
}

static void host_text(const struct report *r, const struct row *row, struct cell *c)
{
	(void)r;
	put(c, row->key.host ? row->key.host : "??");
}

static void comm_text(const struct report *r, const struct row *row, struct cell *c)
{
	(void)r;
	put(c, row->key.comm ? row->key.comm : "??");
}

static void event_text(const struct report *r, const struct row *row, struct cell *c)
{
	put(c, session__event(&r->rs, row->key.event)->used);
}

/* By the cells' texts, as the table shows them. */
static int by_text(const struct report *r,
		   void (*text)(const struct report *, const struct row *, struct cell *),
		   const struct row *x, const struct row *y)
{
	struct cell cx, cy;

	cx.n = cy.n = 0;
	text(r, x, &cx);
	text(r, y, &cy);
	return cell_cmp(&cx, &cy);
}

static int by_u32(u32 x, u32 y)
{
	return x < y ? -1 : x > y;
}

static int func_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	return by_text(r, func_text, x, y);
}

static int line_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	int c = by_text(r, line_text, x, y);

	return c ? c : by_u32(x->key.line, y->key.line);
}

static int dso_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	return by_text(r, dso_text, x, y);
}

/* by recording (in the order given), then by number */
static int pid_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	(void)r;
	return x->key.input != y->key.input ? by_u32(x->key.input, y->key.input)
					    : by_u32(x->key.pid, y->key.pid);
}

static int tid_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	(void)r;
	return x->key.input != y->key.input ? by_u32(x->key.input, y->key.input)
					    : by_u32(x->key.tid, y->key.tid);
}

static int host_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	return by_text(r, host_text, x, y);
}

static int comm_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	return by_text(r, comm_text, x, y);
}

/* Events in the file's order. */
static int event_cmp(const struct report *r, const struct row *x, const struct row *y)
{
	(void)r;
	return by_u32(x->key.event, y->key.event);
}

static void func_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	const struct caller *cl;

	(void)r;
	ebs_json__key_str(j, "function", row__function(row));
	if (row->mangled && row->key.function)
		ebs_json__key_str(j, "mangled", row->mangled);
	if (row->key.inlined_into) {
		ebs_json__key_str(j, "inlined_into", row->key.inlined_into);
		return;
	}
	if (!row->ncallers)
		return;
	/* a source line: every function its code was inlined into */
	ebs_json__key_u64(j, "own", row__own_samples(row, ev));
	ebs_json__key(j, "inlined_into");
	ebs_json__arr(j);
	for (cl = row->callers; cl < row->callers + row->ncallers; cl++) {
		if (!cl->function)
			continue; /* the own entry, sorted last */
		ebs_json__obj(j);
		ebs_json__key_str(j, "function", cl->function);
		ebs_json__key_u64(j, "samples", ev < 0 ? cl->all : cl->samples[ev]);
		ebs_json__obj_end(j);
	}
	ebs_json__arr_end(j);
}

static void line_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)r, (void)ev;
	ebs_json__key_str(j, "file", row->key.file);
	ebs_json__key(j, "line");
	if (row->key.line || row->key.file)
		ebs_json__u64(j, row->key.line);
	else
		ebs_json__null(j);
}

static void dso_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)r, (void)ev;
	ebs_json__key_str(j, "dso", row->dso ? row->dso : "??");
}

/* Several recordings: which one a pid or tid is of, by its label (task_text). */
static void task_json(const struct report *r, const struct row *row, struct ebs_json *j)
{
	if (r->rs.nin > 1)
		ebs_json__key_str(j, "recording", r->rs.in[row->key.input].label);
}

static void pid_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)ev;
	ebs_json__key_u64(j, "pid", row->key.pid);
	task_json(r, row, j);
}

static void tid_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)ev;
	ebs_json__key_u64(j, "tid", row->key.tid);
	if (!r->col[KEY_PID]) /* else the pid's member says it */
		task_json(r, row, j);
}

static void host_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)r, (void)ev;
	ebs_json__key_str(j, "host", row->key.host);
}

static void comm_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)r, (void)ev;
	ebs_json__key_str(j, "comm", row->key.comm);
}

static void event_json(const struct report *r, const struct row *row, int ev, struct ebs_json *j)
{
	(void)ev;
	ebs_json__key_str(j, "event", session__event(&r->rs, row->key.event)->used);
}

const struct column report_columns[KEY_MAX] = {
	[KEY_FUNC] =
		{
			.name = "func",
			.title = "function",
			.field = FIELD_FUNC,
			.brings = 1u << KEY_DSO, /* a function is of its DSO */
			.narrow = 3,
			.name_first = true,
			.text = func_text,
			.cmp = func_cmp,
			.json = func_json,
		},
	[KEY_LINE] =
		{
			.name = "line",
			.title = "source line",
			.field = FIELD_LINE,
			.brings = 1u << KEY_FUNC | 1u << KEY_DSO,
			.narrow = 3,
			.file_name = true,
			.text = line_text,
			.cmp = line_cmp,
			.json = line_json,
		},
	[KEY_DSO] =
		{
			.name = "dso",
			.title = "dso",
			.field = FIELD_DSO,
			.narrow = 1, /* its name tells least */
			.text = dso_text,
			.cmp = dso_cmp,
			.json = dso_json,
		},
	[KEY_PID] =
		{
			.name = "pid",
			.title = "pid",
			.field = FIELD_PID,
			.text = pid_text,
			.cmp = pid_cmp,
			.json = pid_json,
		},
	[KEY_TID] =
		{
			.name = "tid",
			.title = "tid",
			.field = FIELD_TID,
			.text = tid_text,
			.cmp = tid_cmp,
			.json = tid_json,
		},
	[KEY_COMM] =
		{
			.name = "comm",
			.title = "command",
			.field = FIELD_COMM,
			.narrow = 2,
			.text = comm_text,
			.cmp = comm_cmp,
			.json = comm_json,
		},
	[KEY_EVENT] =
		{
			/* one table of all events */
			.name = "event",
			.title = "event",
			.field = FIELD_EVENT,
			.text = event_text,
			.cmp = event_cmp,
			.json = event_json,
		},
	[KEY_HOST] =
		{
			/* the recording's host name (META hostname) */
			.name = "host",
			.title = "host",
			.field = FIELD_HOST,
			.narrow = 2,
			.text = host_text,
			.cmp = host_cmp,
			.json = host_json,
		},
};

char *table__cell_dup(const struct report *r, const struct row *row, enum report_key k)
{
	struct cell c;
	size_t len = 1;
	unsigned int i;
	char *buf;

	c.n = 0;
	report_columns[k].text(r, row, &c);
	for (i = 0; i < c.n; i++)
		len += strlen(c.piece[i]);
	buf = malloc(len);
	if (buf)
		cell_join(&c, buf, len);
	return buf;
}

void table__cell_text(const struct report *r, const struct row *row, enum report_key k, char *buf,
		      size_t len)
{
	struct cell c;

	c.n = 0;
	report_columns[k].text(r, row, &c);
	cell_join(&c, buf, len);
}

int table__row_cmp(const struct report *r, int ev, const struct row *x, const struct row *y)
{
	unsigned int i;
	int c;

	if (row__count(x, ev) != row__count(y, ev))
		return row__count(x, ev) > row__count(y, ev) ? -1 : 1;
	for (i = 0; i < r->nr_cols; i++) {
		c = report_columns[r->cols[i]].cmp(r, x, y);
		if (c)
			return c;
	}
	return 0;
}

/* ---- options ---------------------------------------------------------------------------- */

/* A --sort key's or --fields field's other names: perf's, and plain words. */
static const char *canonical_name(const char *tok)
{
	static const char *const aliases[][2] = {
		{"function", "func"},
		{"sym", "func"},
		{"srcline", "line"},
		{"interval", "ci"},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcmp(tok, aliases[i][0]))
			return aliases[i][1];
	return tok;
}

/* The key named tok (or its alias), KEY_MAX when none is. */
static enum report_key key_of_name(const char *tok)
{
	unsigned int k;

	for (k = 0; k < KEY_MAX; k++)
		if (!strcmp(canonical_name(tok), report_columns[k].name))
			break;
	return (enum report_key)k;
}

/* The counts' fields; the others are the key columns'. */
static const char *const count_fields[] = {
	[FIELD_SAMPLES] = "samples",
	[FIELD_PERCENT] = "percent",
	[FIELD_CI] = "ci",
};

/* The key whose column field f is, KEY_MAX for the counts' fields. */
static enum report_key key_of_field(enum report_field f)
{
	unsigned int k;

	for (k = 0; k < KEY_MAX; k++)
		if (report_columns[k].field == f)
			break;
	return (enum report_key)k;
}

int report_parse_keys(const char *text, struct report_opts *o, struct ebs_error *err)
{
	char *copy = strdup(text), *tok, *next;
	enum report_key k;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	o->nr_keys = 0;
	for (next = copy; next && !e;) {
		tok = strsep(&next, ",");
		k = key_of_name(tok);
		if (k == KEY_MAX) {
			e = ebs_error__set(err, EINVAL,
					   "--sort '%s': known keys are func, line, dso, "
					   "pid, tid, comm, event, host",
					   tok);
		} else {
			unsigned int j;

			for (j = 0; j < o->nr_keys; j++)
				if (o->keys[j] == k)
					e = ebs_error__set(err, EINVAL, "--sort: '%s' twice", tok);
			if (!e)
				o->keys[o->nr_keys++] = k;
		}
	}
	free(copy);
	return e;
}

int report_parse_fields(const char *text, struct report_opts *o, struct ebs_error *err)
{
	char *copy = strdup(text), *tok, *next;
	unsigned int f;
	enum report_key k;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	o->fields = 0;
	for (next = copy; next && !e;) {
		tok = strsep(&next, ",");
		for (f = 0; f < ARRAY_SIZE(count_fields); f++)
			if (!strcmp(canonical_name(tok), count_fields[f]))
				break;
		k = key_of_name(tok);
		if (f < ARRAY_SIZE(count_fields))
			o->fields |= 1u << f;
		else if (k < KEY_MAX)
			o->fields |= 1u << report_columns[k].field;
		else
			e = ebs_error__set(
				err, EINVAL,
				"--fields '%s': known fields are samples, "
				"percent, ci, line, func, dso, pid, tid, comm, event, host",
				tok);
	}
	free(copy);
	return e;
}

int table__check_fields(const struct report *r, struct ebs_error *err)
{
	unsigned int f, i, n = r->o->nr_keys ? r->o->nr_keys : 1;

	if (!r->o->fields)
		return 0;
	for (f = 0; f < FIELD_MAX; f++) {
		enum report_key k = key_of_field((enum report_field)f);

		if (k < KEY_MAX && (r->o->fields & (1u << f)) && !r->col[k])
			return ebs_error__set(err, EINVAL,
					      "--fields %s: not a column of this table "
					      "(add it to --sort)",
					      report_columns[k].name);
	}
	/* the column that tells a key's rows apart is its own */
	for (i = 0; i < n; i++) {
		const struct column *c = &report_columns[r->o->nr_keys ? r->o->keys[i] : KEY_FUNC];

		if (!(r->o->fields & (1u << c->field)))
			return ebs_error__set(err, EINVAL,
					      "--fields: the rows are keyed by %s: "
					      "without it they cannot be told apart (add %s)",
					      c->name, c->name);
	}
	return 0;
}

static void add_col(struct report *r, enum report_key k)
{
	if (!r->col[k]) {
		r->col[k] = true;
		r->cols[r->nr_cols++] = k;
	}
}

void table__plan(struct report *r)
{
	static const enum report_key dflt = KEY_FUNC;
	const enum report_key *keys = r->o->nr_keys ? r->o->keys : &dflt;
	unsigned int i, k, n = r->o->nr_keys ? r->o->nr_keys : 1;
	bool line = false, func = false;

	for (i = 0; i < n; i++) {
		line |= keys[i] == KEY_LINE;
		func |= keys[i] == KEY_FUNC;
	}
	/* "which lines are hot": a line inlined into many functions is one row */
	r->by_line = line && !func && !r->o->view.no_inline;
	for (i = 0; i < n; i++) {
		add_col(r, keys[i]);
		for (k = 0; k < KEY_MAX; k++)
			if (report_columns[keys[i]].brings & (1u << k))
				add_col(r, (enum report_key)k);
	}
	r->by_event = r->col[KEY_EVENT];
}
