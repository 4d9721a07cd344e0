// SPDX-License-Identifier: MIT
/*
 * names.c - C++-aware function names: shortened to a width (names_fit),
 * matched to what a user typed (names_resolve).  See names.h.
 *
 * A name is parsed once into its bracket regions (pre-order: by where
 * they open) and the positions that matter: where the qualified name
 * starts (after a template function's return type), where its own,
 * unqualified name starts and ends, the parameter list, the "::" between
 * scopes.  Shortening only marks regions collapsed and moves the start;
 * the text is rendered from those marks.
 *
 * Why one file of ~1,170 lines: shortening and matching use the one
 * parse of a name (its bracket regions, its own name's bounds); the
 * sections (parse, cells, matching, columns, a recording's names) share
 * it and nothing else.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "report/present.h"
#include "util/hash.h"

#define MAXR 256 /* bracket regions of a name; more stay as they are */
#define MAXC 64	 /* scopes a name may lose */
#define MAXG 3	 /* names in an "inlined into" part */

struct region {
	unsigned int open, close; /* close 0: never closed, left alone */
	unsigned char depth;
	char kind; /* the opening bracket */
};

struct pname {
	const char *s;
	size_t len;
	struct region r[MAXR];
	unsigned int nr;
	int params;	     /* the parameter list's region, -1 */
	size_t qual;	     /* the qualified name's start, after a return type */
	size_t unq, unq_end; /* the unqualified name */
	size_t name_end;     /* where the parameters (or the text) start */
	size_t clone_at;     /* " [clone .isra.0]" after them, else len */
	size_t cuts[MAXC];   /* scope cuts: qual, then each "::" before unq */
	unsigned int ncuts;
	unsigned int order[MAXR]; /* the template lists, innermost, then longest, first */
	unsigned int norder;
	/* the shortening so far */
	bool col[MAXR];
	unsigned int next_t; /* in order[] */
	unsigned int cut;    /* cuts[cut - 1] is the start; 0: the whole */
	int own;	     /* 1: unq to the clone suffix; 2: unq to name_end; 3: to unq_end */
	bool no_clone;	     /* the clone suffix left out */
	const char *pre;     /* shown before an own name: a part of the scope */
	size_t pre_len;
	const char *post; /* ...and after it: a part of the parameters */
	size_t post_len;
};

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* Operators whose names hold brackets or look like them, longest first. */
static const char *const ops[] = {
	"->*", "<=>", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=",
	"&&",  "||",  "++",  "--",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<",
	">",   "+",   "-",   "*",   "/",  "%",	"^",  "&",  "|",  "~",	"!",  "=",  ",",
};

/*
 * At s[i], "operator..." as one token: its length, 0 when there is none.
 * "operator new[]", "operator<<", "operator()"; a conversion operator
 * ("operator unsigned long") runs to its parameters.
 */
static size_t operator_len(const char *s, size_t i, size_t len)
{
	size_t j = i + 8, k;

	if (len - i < 9 || strncmp(s + i, "operator", 8) || (i && ident_char(s[i - 1])) ||
	    ident_char(s[j]))
		return 0;
	for (k = 0; k < ARRAY_SIZE(ops); k++)
		if (!strncmp(s + j, ops[k], strlen(ops[k])))
			return 8 + strlen(ops[k]);
	if (s[j] != ' ')
		return 0;
	if (!strncmp(s + j, " new", 4) || !strncmp(s + j, " delete", 7)) {
		j += s[j + 1] == 'n' ? 4 : 7;
		if (!strncmp(s + j, "[]", 2))
			j += 2;
		return j - i;
	}
	while (j < len && s[j] != '(') /* a conversion: operator TYPE() */
		j++;
	return j - i;
}

static int order_cmp(const void *a, const void *b, void *ctx)
{
	const struct pname *p = ctx;
	const struct region *x = &p->r[*(const unsigned int *)a],
			    *y = &p->r[*(const unsigned int *)b];

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	if (x->close - x->open != y->close - y->open)
		return x->close - x->open > y->close - y->open ? -1 : 1;
	return x->open < y->open ? -1 : 1;
}

/* Parse s[0..len) into p (its state reset). */
static void parse(struct pname *p, const char *s, size_t len)
{
	static const char closer[] = {['<'] = '>', ['('] = ')', ['['] = ']', ['{'] = '}'};
	unsigned int stack[64], sp = 0, i;
	size_t k, space = 0;
	bool has_space = false;

	memset(p, 0, sizeof(*p));
	p->s = s;
	p->len = len;
	p->params = -1;
	for (k = 0; k < len; k++) {
		char c = s[k];
		size_t op = c == 'o' ? operator_len(s, k, len) : 0;

		if (op) {
			k += op - 1;
		} else if (c == '(' && !strncmp(s + k, "(anonymous namespace)", 21)) {
			k += 20;
		} else if (c == '<' || c == '(' || c == '[' || c == '{') {
			if (sp < ARRAY_SIZE(stack) && p->nr < MAXR) {
				p->r[p->nr] = (struct region){.open = (unsigned int)k,
							      .depth = (unsigned char)sp,
							      .kind = c};
				stack[sp++] = p->nr++;
			}
		} else if (c == '>' || c == ')' || c == ']' || c == '}') {
			if (c == '>' && k && s[k - 1] == '-')
				continue; /* an arrow, as in decltype(a->b) */
			if (sp && closer[(unsigned char)p->r[stack[sp - 1]].kind] == c)
				p->r[stack[--sp]].close = (unsigned int)k;
		}
	}
	/* the parameters: the last top-level (...) with no "::" after it */
	for (i = p->nr; i-- > 0;) {
		const struct region *r = &p->r[i];

		if (r->depth || !r->close)
			continue;
		if (r->kind == '(') {
			/* "f()::{lambda()#1}" is a scope, not f's parameters; nor is
			 * Go's receiver, "sort.(*IntSlice).Less" */
			if (!memmem(s + r->close + 1, len - r->close - 1, "::", 2) &&
			    s[r->close + 1] != '.')
				p->params = (int)i;
			break;
		}
	}
	p->name_end = p->params >= 0 ? p->r[p->params].open : len;
	p->clone_at = len;
	if (p->params >= 0) {
		const char *cl = memmem(s + p->r[p->params].close, len - p->r[p->params].close,
					" [clone ", 8);

		if (cl)
			p->clone_at = (size_t)(cl - s);
	}
	/* top-level "::" and spaces before the name's end */
	for (k = 0, i = 0; k < p->name_end; k++) {
		size_t op = s[k] == 'o' ? operator_len(s, k, len) : 0;

		while (i < p->nr && p->r[i].open < k)
			i++;
		if (op) {
			k += op - 1;
			if (s[k + 1] == ' ' && s[k + 2] == '<')
				k++; /* "operator< <char>": the demangler's space, not a return
					type's */
		} else if (s[k] == '(' && !strncmp(s + k, "(anonymous namespace)", 21)) {
			k += 20;
		} else if (i < p->nr && p->r[i].open == k && !p->r[i].close) {
			break; /* never closed (a name cut short): the rest is inside it */
		} else if (i < p->nr && p->r[i].open == k) {
			k = p->r[i].close; /* over the region */
		} else if (s[k] == ':' && s[k + 1] == ':') {
			if (p->ncuts < MAXC)
				p->cuts[p->ncuts++] = k;
			p->unq = k + 2;
			k++;
		} else if (s[k] == ' ') {
			space = k;
			has_space = true;
			p->ncuts = 0; /* a return type's own scopes */
			p->unq = k + 1;
		}
	}
	if (has_space)
		p->qual = space + 1;
	/*
	 * Rust's turbofish, "std::panicking::catch_unwind::<i32, F>": the last
	 * "::" opens the generic arguments of the name before it, which is the
	 * own name; the arguments are its template list.
	 */
	if (p->ncuts && p->unq < p->name_end && s[p->unq] == '<') {
		p->ncuts--;
		p->unq = p->ncuts ? p->cuts[p->ncuts - 1] + 2 : p->qual;
	}
	/* the cuts: the return type first, then each "::" */
	if (p->qual) {
		if (p->ncuts == MAXC)
			p->ncuts--;
		memmove(p->cuts + 1, p->cuts, p->ncuts * sizeof(p->cuts[0]));
		p->cuts[0] = p->qual;
		p->ncuts++;
	}
	p->unq_end = p->name_end;
	for (i = 0; i < p->nr; i++)
		if ((p->r[i].kind == '<' || p->r[i].kind == '[') && p->r[i].open > p->unq &&
		    p->r[i].open < p->name_end) {
			p->unq_end = p->r[i].open;
			if (p->unq_end >= p->unq + 2 && s[p->unq_end - 1] == ':' &&
			    s[p->unq_end - 2] == ':')
				p->unq_end -= 2; /* a turbofish's "::<" */
			break;
		}
	while (p->unq_end > p->unq && s[p->unq_end - 1] == ' ')
		p->unq_end--; /* "operator< <char>" */
	for (i = 0; i < p->nr; i++)
		if (p->r[i].kind == '<' && p->r[i].close)
			p->order[p->norder++] = i;
	qsort_r(p->order, p->norder, sizeof(p->order[0]), order_cmp, p);
}

/* The text of s[a..b) as the state renders it, into out at *n (when out); its length. */
static size_t span(const struct pname *p, size_t a, size_t b, char *out, size_t size, size_t *n)
{
	size_t i = a, len = 0;
	unsigned int k = 0;

	while (i < b) {
		while (k < p->nr && p->r[k].open < i)
			k++;
		if (k < p->nr && p->r[k].open == i && p->col[k] && p->r[k].close < b) {
			char t[5] = {p->s[i], '.', '.', '.', p->s[p->r[k].close]};

			if (out)
				for (unsigned int j = 0; j < 5; j++)
					if (*n + 1 < size)
						out[(*n)++] = t[j];
			len += 5;
			i = p->r[k].close + 1;
			continue;
		}
		if (out && *n + 1 < size)
			out[(*n)++] = p->s[i];
		len++;
		i++;
	}
	return len;
}

static void put(const char *t, size_t tl, char *out, size_t size, size_t *n)
{
	while (tl--) {
		if (out && *n + 1 < size)
			out[(*n)++] = *t;
		t++;
	}
}

/* The name as the state renders it (appended at *n of out when out); its length. */
static size_t render(const struct pname *p, char *out, size_t size, size_t *n)
{
	size_t a = 0, b = p->no_clone ? p->clone_at : p->len, len = 0;

	if (p->own && p->pre) {
		put(p->pre, p->pre_len, out, size, n);
		len = p->pre_len;
	}
	if (p->own == 1) { /* "f(int) const": without a clone suffix */
		a = p->unq;
		b = p->params >= 0 ? p->clone_at : p->name_end;
	} else if (p->own == 2) {
		a = p->unq;
		b = p->name_end;
	} else if (p->own == 3) {
		a = p->unq;
		b = p->unq_end;
	} else if (p->cut) {
		a = p->cuts[p->cut - 1];
		if (p->no_clone)
			b = p->clone_at;
		if (a != p->qual) { /* at a "::": say that a scope was left out */
			put("...", 3, out, size, n);
			len = 3;
		}
	}
	len += span(p, a, b, out, size, n);
	if (p->own && p->post) {
		put(p->post, p->post_len, out, size, n);
		len += p->post_len;
	}
	return len;
}

/* Is s[a..b) in every other name (a bracket whose text the others share)? */
static bool shared(const struct name_keep *keep, const char *s, size_t a, size_t b)
{
	size_t i;

	for (i = 0; keep && i < keep->n; i++)
		if (!memmem(keep->others[i], strlen(keep->others[i]), s + a, b - a))
			return false;
	return true;
}

enum stage { STAGE_TEMPLATES, STAGE_PARAMS, STAGE_SCOPE };

/* One more step of stage on p: true when it shortened the name. */
static bool step(struct pname *p, enum stage st, const struct name_keep *keep)
{
	switch (st) {
	case STAGE_TEMPLATES:
		while (p->next_t < p->norder) {
			unsigned int r = p->order[p->next_t++];
			const struct region *g = &p->r[r];

			if (span(p, g->open + 1, g->close, NULL, 0, NULL) <= 3 ||
			    !shared(keep, p->s, g->open, g->close + 1))
				continue;
			p->col[r] = true;
			return true;
		}
		return false;
	case STAGE_PARAMS:
		if (p->params >= 0 && !p->col[p->params]) {
			const struct region *g = &p->r[p->params];

			if (span(p, g->open + 1, g->close, NULL, 0, NULL) > 3 &&
			    shared(keep, p->s, g->open, g->close + 1)) {
				p->col[p->params] = true;
				return true;
			}
		}
		/* then gcc's " [clone .constprop.0]" */
		if (p->clone_at < p->len && !p->no_clone &&
		    shared(keep, p->s, p->clone_at, p->len)) {
			p->no_clone = true;
			return true;
		}
		return false;
	case STAGE_SCOPE:
		if (p->cut >= p->ncuts)
			return false;
		/* what is left out must begin every other name */
		for (size_t i = 0; keep && i < keep->n; i++)
			if (strncmp(keep->others[i], p->s, p->cuts[p->cut]))
				return false;
		p->cut++;
		return true;
	}
	return false;
}

/* ---- cells: a name and its "inlined into" part ---------------------------------------- */

enum sfx { SFX_NONE, SFX_INLINED, SFX_INTO, SFX_AND_INTO };

struct pcell {
	struct pname f;
	const char *text;
	size_t len, sfx_at; /* the suffix's start: len for none */
	enum sfx sfx;
	struct pname g[MAXG];
	unsigned int ng;
	const char *more; /* ", +3 more", up to the last ')' */
	size_t more_len;
	int istage;    /* 0 whole, 1 the callers' own names, 2 " (inlined)", 3 none */
	char win[512]; /* a part of a scope that tells the name apart (apart) */
};

static const char *const sfx_text[] = {"", " (inlined)", " (inlined into ", " (and inlined into "};

/* Where text's " (inlined...)" part starts (outside its name's parentheses), and which. */
static size_t find_sfx(const char *text, size_t len, enum sfx *kind)
{
	size_t k;
	int depth = 0;

	for (k = 0; k < len; k++) {
		if (text[k] == '(')
			depth++;
		else if (text[k] == ')')
			depth -= depth > 0;
		else if (!depth && text[k] == ' ' && text[len - 1] == ')') {
			enum sfx s;

			for (s = SFX_INLINED; s <= SFX_AND_INTO; s++)
				if (!strncmp(text + k, sfx_text[s], strlen(sfx_text[s])) &&
				    (s != SFX_INLINED || k + 10 == len)) {
					*kind = s;
					return k;
				}
		}
	}
	*kind = SFX_NONE;
	return len;
}

size_t names_item(const char *p)
{
	size_t k;
	int depth = 0;

	for (k = 0; p[k]; k++) {
		size_t op = p[k] == 'o' ? operator_len(p, k, strlen(p)) : 0;

		if (op)
			k += op - 1;
		else if (strchr("<([{", p[k]))
			depth++;
		else if (strchr(">)]}", p[k]) && !(p[k] == '>' && k && p[k - 1] == '-'))
			depth -= depth > 0;
		else if (p[k] == ',' && !depth)
			break;
	}
	return k;
}

static void parse_cell(struct pcell *c, const char *text)
{
	size_t len = strlen(text), a, k;

	c->text = text;
	c->len = len;
	c->sfx_at = find_sfx(text, len, &c->sfx);
	parse(&c->f, text, c->sfx_at);
	c->ng = 0;
	c->more = NULL;
	c->more_len = 0;
	c->istage = 0;
	if (c->sfx != SFX_INTO && c->sfx != SFX_AND_INTO)
		return;
	a = c->sfx_at + strlen(sfx_text[c->sfx]);
	while (a < len - 1) {
		k = names_item(text + a);
		if (a + k > len - 1)
			k = len - 1 - a;
		if (text[a] == '+' || c->ng == MAXG) { /* "+3 more": the rest as it is */
			c->more = text + a - 2;
			c->more_len = len - 1 - (a - 2);
			return;
		}
		parse(&c->g[c->ng++], text + a, k);
		a += k + 2; /* ", " */
	}
}

/* The cell as its state renders it; its length. */
static size_t render_cell(const struct pcell *c, char *out, size_t size)
{
	size_t n = 0, len;
	unsigned int i;

	len = render(&c->f, out, size, &n);
	if (c->istage == 3 || c->sfx == SFX_NONE)
		goto out;
	if (c->sfx == SFX_INLINED || c->istage == 2) {
		const char *t = c->sfx == SFX_AND_INTO ? " (and inlined)" : " (inlined)";

		put(t, strlen(t), out, size, &n);
		len += strlen(t);
		goto out;
	}
	put(sfx_text[c->sfx], strlen(sfx_text[c->sfx]), out, size, &n);
	len += strlen(sfx_text[c->sfx]);
	for (i = 0; i < c->ng; i++) {
		if (i) {
			put(", ", 2, out, size, &n);
			len += 2;
		}
		len += render(&c->g[i], out, size, &n);
	}
	if (c->more) {
		put(c->more, c->more_len, out, size, &n);
		len += c->more_len;
	}
	put(")", 1, out, size, &n);
	len++;
out:
	if (out && size)
		out[n] = '\0';
	return len;
}

/* Does every other text's suffix equal c's (so that shortening it loses nothing)? */
static bool same_suffix(const struct pcell *c, const struct name_keep *keep)
{
	size_t i;

	for (i = 0; keep && i < keep->n; i++) {
		const char *o = keep->others[i];
		size_t ol = strlen(o), at;
		enum sfx k;

		at = find_sfx(o, ol, &k);
		if (ol - at != c->len - c->sfx_at || strcmp(o + at, c->text + c->sfx_at))
			return false;
	}
	return true;
}

/*
 * Shorten c until it is at most width, or as far as it goes before the
 * name itself is cut (hard false); its length.
 */
static size_t shorten_hard(struct pcell *c, size_t width, const struct name_keep *keep);

/* The longest start c's text shares with one of the others. */
static size_t common_start(const struct pcell *c, const struct name_keep *keep)
{
	size_t l = 0, i;

	for (i = 0; i < keep->n; i++) {
		size_t k = 0;

		while (c->text[k] && c->text[k] == keep->others[i][k])
			k++;
		if (k > l)
			l = k;
	}
	return l;
}

/* Does c differ from the other most like it only past a caller's own name (its parameters)? */
static bool in_caller_params(const struct pcell *c, const struct name_keep *keep)
{
	size_t l = common_start(c, keep), i, at;

	for (i = 0; l >= c->sfx_at && i < c->ng; i++) {
		at = (size_t)(c->g[i].s - c->text);
		if (l >= at && l < at + c->g[i].len)
			return l - at >=
			       c->g[i].name_end; /* own names with their templates differ */
	}
	return false;
}

static size_t shorten(struct pcell *c, size_t width, const struct name_keep *keep, bool hard)
{
	size_t len = render_cell(c, NULL, 0);
	enum stage st;
	unsigned int i;

	for (st = STAGE_TEMPLATES; st <= STAGE_PARAMS; st++) {
		for (i = 0; i <= c->ng; i++) {
			struct pname *p = i < c->ng ? &c->g[i] : &c->f;

			while (len > width && step(p, st, keep))
				len = render_cell(c, NULL, 0);
		}
	}
	/* the callers by their own names: apart still, unless they differ past those */
	if (len > width && c->ng && !(keep && in_caller_params(c, keep))) {
		for (i = 0; i < c->ng; i++)
			c->g[i].own = 2;
		c->istage = 1;
		len = render_cell(c, NULL, 0);
	}
	if (len > width && c->sfx >= SFX_INTO && same_suffix(c, keep)) {
		c->istage = 2;
		len = render_cell(c, NULL, 0);
	}
	while (len > width && step(&c->f, STAGE_SCOPE, keep))
		len = render_cell(c, NULL, 0);
	if (!hard || len <= width)
		return len;
	return shorten_hard(c, width, keep);
}

/* Past names_floor's: the name itself shortened; its length. */
static size_t shorten_hard(struct pcell *c, size_t width, const struct name_keep *keep)
{
	size_t len = render_cell(c, NULL, 0);

	/* nothing else to leave out: the inlined part (unless it tells c apart), the scope */
	if (same_suffix(c, keep)) {
		c->istage = 3;
		len = render_cell(c, NULL, 0);
	} else if (c->istage == 1 && keep && in_caller_params(c, keep)) {
		unsigned int i;

		for (i = 0; i < c->ng; i++) /* the callers' own names with their parameters */
			c->g[i].own = 1;
		len = render_cell(c, NULL, 0);
	}
	if (len > width && (c->f.params >= 0 || c->f.cut)) {
		c->f.own = 1;
		len = render_cell(c, NULL, 0);
	}
	if (len > width && c->f.own) {
		c->f.own = 2;
		len = render_cell(c, NULL, 0);
	}
	return len;
}

/*
 * Where two names differ only deep in a scope ("__new_allocator<
 * basic_json<...> >::allocate" and "__new_allocator<vector<...> >::
 * allocate"), of the function or of a caller it was inlined into: the
 * own names, and before the one whose scope differs that scope around
 * the first byte that tells c from the other most like it:
 * "...allocator<std::vec...::allocate (inlined)".  True when that fits
 * width (in buf).
 */
static bool apart(struct pcell *c, const struct name_keep *keep, size_t width, char *buf,
		  size_t size)
{
	size_t l = common_start(c, keep), i, tail, room, lp, a, b;
	const char *lead = "", *trail = "::";
	struct pname *p = NULL;

	if (l < c->sfx_at)
		p = &c->f;
	for (i = 0; !p && l >= c->sfx_at && i < c->ng; i++)
		if (l >= (size_t)(c->g[i].s - c->text) &&
		    l < (size_t)(c->g[i].s - c->text) + c->g[i].len)
			p = &c->g[i];
	if (!p || p->unq < 2)
		return false;
	lp = l - (size_t)(p->s - c->text);
	c->f.own = 2;
	for (i = 0; i < c->ng; i++)
		c->g[i].own = 2;
	if (c->ng)
		c->istage = p == &c->f ? 2 : 1;
	if (lp < p->unq) { /* in the scope: "...allocator<std::vec...::" before the name */
		a = 0;
		b = p->unq - 2;
	} else if (lp >= p->unq_end && lp < p->name_end) {
		/* in its own template arguments: "f<...piecewise_co...>" */
		bool fish = p->s[p->unq_end] == ':'; /* Rust's "f::<T>" */

		p->own = 3;
		a = p->unq_end + (fish ? 3 : 1);
		b = p->name_end - 1;
		lead = fish ? "::<" : "<";
		trail = ">";
	} else if (p->params >= 0 && lp >= p->name_end && lp <= p->r[p->params].close) {
		/* in the parameters (overloads): those, "f(...char const*, char...)" if need be */
		p->own = 1;
		if (render_cell(c, buf, size) <= width)
			return true;
		p->own = 2;
		a = p->name_end + 1;
		b = p->r[p->params].close;
		lead = "(";
		trail = ")";
	} else {
		return false; /* in an own name: shown already */
	}
	if (b < a || lp < a)
		return false;
	tail = render_cell(c, NULL, 0);
	if (tail + strlen(lead) + strlen(trail) + 6 + 8 > width)
		return false; /* no room for 8 bytes of it */
	room = width - tail - strlen(lead) - strlen(trail) - 6;
	if (room > sizeof(c->win) - 16)
		room = sizeof(c->win) - 16;
	/* from a little past where they differ, back as far as there is room */
	{
		size_t s1 = lp + 6 < b ? lp + 6 : b, s0 = s1 - a > room ? s1 - room : a, n = 0;

		put(lead, strlen(lead), c->win, sizeof(c->win), &n);
		put("...", s0 > a ? 3 : 0, c->win, sizeof(c->win), &n);
		put(p->s + s0, s1 - s0, c->win, sizeof(c->win), &n);
		put("...", s1 < b ? 3 : 0, c->win, sizeof(c->win), &n);
		put(trail, strlen(trail), c->win, sizeof(c->win), &n);
		if (lead[0]) {
			p->post = c->win;
			p->post_len = n;
		} else {
			p->pre = c->win;
			p->pre_len = n;
		}
	}
	return render_cell(c, buf, size) <= width;
}

size_t names_fit(char *out, size_t size, const char *text, size_t width,
		 const struct name_keep *keep)
{
	struct pcell *c;
	size_t len = strlen(text), flen, n = 0;
	char *buf;

	if (!size)
		return 0;
	if (!width || len <= width) {
		snprintf(out, size, "%s", text);
		return len < size ? len : size - 1;
	}
	if (!strncmp(text, "[unknown]", 9)) { /* an address, no C++ in it: both its ends */
		present_elide(out, size, text, width);
		return strlen(out);
	}
	c = malloc(sizeof(*c));
	buf = malloc(len + 16);
	if (!c || !buf) { /* no memory for the parse: cut in the middle */
		free(c);
		free(buf);
		present_elide(out, size, text, width);
		return strlen(out);
	}
	parse_cell(c, text);
	len = shorten(c, width, keep, false);
	if (len > width && keep) {
		if (apart(c, keep, width, buf, strlen(text) + 16)) {
			snprintf(out, size, "%s", buf);
			goto done;
		}
		parse_cell(c, text); /* as it was before apart tried */
		len = shorten(c, width, keep, false);
	}
	if (len > width)
		len = shorten_hard(c, width, keep);
	render_cell(c, buf, strlen(text) + 16);
	flen = render(&c->f, NULL, 0, &n);
	if (len > width && flen + 12 > width && c->f.own == 2 && c->f.unq_end < c->f.name_end) {
		c->f.own = 3; /* its own template arguments too: the bare name */
		len = render_cell(c, buf, strlen(text) + 16);
		n = 0;
		flen = render(&c->f, NULL, 0, &n);
	}
	if (len <= width) {
		snprintf(out, size, "%s", buf);
	} else if (flen + 6 <= width && width < size) {
		/* the name whole, what tells it apart cut in its middle */
		memcpy(out, buf, flen);
		present_elide(out + flen, size - flen, buf + flen, width - flen);
	} else if (flen <= width && width < size) {
		snprintf(out, size, "%.*s", (int)flen, buf); /* the name alone */
	} else {
		present_elide(out, size, buf,
			      width); /* a name longer than the width: its middle out */
	}
done:
	free(buf);
	free(c);
	return strlen(out);
}

size_t names_floor(const char *text)
{
	struct pcell *c = malloc(sizeof(*c));
	size_t len;

	if (!c || !strncmp(text, "[unknown]", 9)) {
		free(c);
		return strlen(text);
	}
	parse_cell(c, text);
	len = shorten(c, 0, NULL, true);
	free(c);
	return len;
}

void names_unqualified(const char *name, size_t *start, size_t *end)
{
	struct pname *p = malloc(sizeof(*p));

	if (!p) {
		*start = 0;
		*end = strlen(name);
		return;
	}
	parse(p, name, strlen(name));
	*start = p->unq;
	*end = p->unq_end;
	free(p);
}

/* ---- matching ------------------------------------------------------------------------- */

/* session__name_is's rule: want, then the end, parameters or a clone suffix. */
static bool exact(const char *want, size_t len, const char *name)
{
	return !strncmp(want, name, len) &&
	       (name[len] == '\0' || name[len] == '(' || name[len] == '.');
}

/* s[p->qual..n) with its template argument lists left out, into out (of n + 1 bytes). */
static size_t strip_templates(const struct pname *p, size_t n, char *out)
{
	size_t i = p->qual, o = 0;
	unsigned int k = 0;

	while (i < n) {
		while (k < p->nr && p->r[k].open < i)
			k++;
		if (k < p->nr && p->r[k].open == i && p->r[k].kind == '<' && p->r[k].close &&
		    p->r[k].close < n) {
			i = p->r[k].close + 1;
			continue;
		}
		out[o++] = p->s[i++];
	}
	out[o] = '\0';
	return o;
}

/* Does s (n bytes) end in "::" + want, or is it want? */
static bool scope_suffix(const char *s, size_t n, const char *want, size_t len)
{
	return n >= len && !memcmp(s + n - len, want, len) &&
	       (n == len || (n >= len + 2 && !memcmp(s + n - len - 2, "::", 2)));
}

/* The tier at which want names name (NAME_NONE: none). */
static enum name_tier tier_of(const char *want, size_t len, const char *name, struct pname *p,
			      char *tmp)
{
	size_t n;

	if (exact(want, len, name))
		return NAME_EXACT;
	parse(p, name, strlen(name));
	if ((p->unq_end - p->unq == len || p->name_end - p->unq == len) &&
	    !memcmp(name + p->unq, want, len))
		return NAME_UNQUALIFIED;
	if (scope_suffix(name + p->qual, p->name_end - p->qual, want, len) ||
	    scope_suffix(name + p->qual, p->len - p->qual, want, len))
		return NAME_SUFFIX;
	n = strip_templates(p, p->name_end, tmp);
	if (scope_suffix(tmp, n, want, len))
		return NAME_SUFFIX;
	n = strip_templates(p, p->len, tmp);
	if (scope_suffix(tmp, n, want, len))
		return NAME_SUFFIX;
	if (memmem(name, p->len, want, len))
		return NAME_SUBSTRING;
	return NAME_NONE;
}

/* The length of name that says which function it is: without a clone suffix. */
static size_t func_len(const char *name)
{
	const char *clone = strstr(name, " [clone ");
	size_t n = clone ? (size_t)(clone - name) : strlen(name);
	const char *dot = memchr(name, '.', n);

	if (dot && !memchr(name, '(', n)) /* a C function's clone: f.constprop.0 */
		n = (size_t)(dot - name);
	return n;
}

enum name_tier names_resolve(const char *want, size_t len, struct name_cand *c, size_t n,
			     size_t *funcs)
{
	enum name_tier best = NAME_NONE, t;
	struct pname *p = malloc(sizeof(*p));
	size_t i, j, cap = 0;
	char *tmp = NULL;
	enum name_tier *tiers = calloc(n + 1, sizeof(*tiers));

	*funcs = 0;
	for (i = 0; i < n; i++)
		if (strlen(c[i].name) + 1 > cap)
			cap = strlen(c[i].name) + 1;
	tmp = malloc(cap + 1);
	if (!p || !tmp || !tiers)
		goto out;
	for (i = 0; i < n; i++) {
		t = tier_of(want, len, c[i].name, p, tmp);
		tiers[i] = t;
		if (t != NAME_NONE && (best == NAME_NONE || t < best))
			best = t;
	}
	for (i = 0; i < n; i++) {
		c[i].match = best != NAME_NONE && tiers[i] == best;
		if (!c[i].match)
			continue;
		for (j = 0; j < i; j++) /* one function already counted? */
			if (c[j].match && func_len(c[j].name) == func_len(c[i].name) &&
			    !strncmp(c[j].name, c[i].name, func_len(c[i].name)))
				break;
		*funcs += j == i;
	}
out:
	free(tiers);
	free(tmp);
	free(p);
	return best;
}

bool name_query__match(const struct name_query *q, const char *name)
{
	size_t i;

	if (!name)
		return false;
	if (q->tier <= NAME_EXACT)
		return exact(q->want, q->len, name);
	for (i = 0; i < q->n; i++)
		if (!strcmp(q->names[i], name))
			return true;
	return false;
}

void name_query__free(struct name_query *q)
{
	size_t i;

	if (!q)
		return;
	for (i = 0; i < q->n; i++)
		free((char *)q->names[i]);
	free(q->names);
	q->names = NULL;
	q->n = 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct name_cand *x = a, *y = b;

	if (x->match != y->match)
		return x->match ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The candidates of an ambiguous name, most samples first, shortened to stay apart. */
static void list_candidates(const struct name_cand *c, size_t m, u64 total, FILE *f, int width)
{
	size_t i, shown = m < 10 ? m : 10;
	const char **full = calloc(shown + 1, sizeof(*full));
	char **cut = calloc(shown + 1, sizeof(*cut));

	for (i = 0; full && i < shown; i++)
		full[i] = c[i].name;
	if (!full || !cut ||
	    names_fit_column(cut, full, shown, width > 12 ? (size_t)width - 12 : 0)) {
		free(full);
		free(cut);
		return;
	}
	for (i = 0; i < shown; i++) {
		fprintf(f, "  %8.2f%%  %s\n", present_percent(c[i].samples, total), cut[i]);
		free(cut[i]);
	}
	if (m > shown)
		fprintf(f, "  (%zu more)\n", m - shown);
	free(full);
	free(cut);
}

int name_query__resolve(struct name_query *q, struct name_cand *c, size_t n, u64 total, FILE *list,
			int width, const char *input, struct ebs_error *err)
{
	size_t funcs, i, m = 0;

	q->tier = names_resolve(q->want, q->len, c, n, &funcs);
	q->names = NULL;
	q->n = 0;
	if (q->max_tier && q->tier > q->max_tier)
		q->tier = NAME_NONE; /* not looked for that far: as the name itself */
	if (q->tier <= NAME_EXACT)
		return 0;
	qsort(c, n, sizeof(*c), by_samples);
	while (m < n && c[m].match)
		m++;
	if (funcs > 1) {
		if (list) {
			fprintf(list,
				"'%.*s' may name any of %zu functions (percent of the samples):\n",
				(int)q->len, q->want, funcs);
			/* shortened, as a terminal's report shows them; 100 columns elsewhere */
			list_candidates(c, m, total, list, width > 0 ? width : 100);
			fflush(list);
		}
		if (!list) { /* nowhere to list them: the two with the most samples */
			char a[64], b[64];

			names_fit(a, sizeof(a), c[0].name, sizeof(a) - 1, NULL);
			names_fit(b, sizeof(b), c[1].name, sizeof(b) - 1, NULL);
			return ebs_error__set(err, EINVAL,
					      "%s: '%.*s' names %zu functions (%s, %s%s): give "
					      "more of its name, or all of it",
					      input, (int)q->len, q->want, funcs, a, b,
					      m > 2 ? ", ..." : "");
		}
		return ebs_error__set(err, EINVAL,
				      "%s: '%.*s' names %zu functions (listed above): give more of "
				      "its name, or all of it",
				      input, (int)q->len, q->want, funcs);
	}
	q->names = calloc(m, sizeof(*q->names));
	if (!q->names)
		return ebs_error__set(err, ENOMEM, "out of memory");
	for (i = 0; i < m; i++) {
		q->names[i] = strdup(c[i].name);
		if (!q->names[i]) {
			name_query__free(q);
			return ebs_error__set(err, ENOMEM, "out of memory");
		}
		q->n++;
	}
	return 0;
}

/* ---- a column of names ---------------------------------------------------------------- */

struct cut_ref {
	const char *cut, *full;
	size_t i;
};

static int cut_cmp(const void *a, const void *b)
{
	const struct cut_ref *x = a, *y = b;
	int c = strcmp(x->cut, y->cut);

	return c ? c : strcmp(x->full, y->full);
}

int names_fit_column(char **cut, const char *const *full, size_t n, size_t width)
{
	struct cut_ref *v = calloc(n + 1, sizeof(*v));
	const char **others = calloc(n + 1, sizeof(*others));
	size_t i, j, k, size, numbered = 1;
	int e = 0;

	for (i = 0; i < n; i++)
		cut[i] = NULL;
	if (!v || !others)
		goto nomem;
	for (i = 0; i < n; i++) {
		size = strlen(full[i]) + 16;
		cut[i] = malloc(size);
		if (!cut[i])
			goto nomem;
		names_fit(cut[i], size, full[i], width, NULL);
		v[i] = (struct cut_ref){cut[i], full[i], i};
	}
	/* rows that print alike but are not: shortened again, each kept apart from the others */
	qsort(v, n, sizeof(*v), cut_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(v[j].cut, v[i].cut); j++)
			;
		if (!strcmp(v[i].full, v[j - 1].full))
			continue; /* one text: one function */
		for (k = i; k < j; k++) {
			struct name_keep keep = {others, 0};
			size_t m;

			for (m = i; m < j; m++)
				if (strcmp(v[m].full, v[k].full) &&
				    (m == i || strcmp(v[m].full, v[m - 1].full)))
					others[keep.n++] = v[m].full;
			size = strlen(full[v[k].i]) + 16;
			names_fit(cut[v[k].i], size, full[v[k].i], width, &keep);
		}
	}
	/* alike still (two differences, neither with room to show): numbered, " #2", " #3"... */
	for (i = 0; i < n; i++)
		v[i] = (struct cut_ref){cut[i], full[i], i};
	qsort(v, n, sizeof(*v), cut_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(v[j].cut, v[i].cut); j++)
			;
		for (k = i + 1; k < j; k++) {
			size_t m;

			if (!strcmp(v[i].full, v[j - 1].full))
				break;
			for (m = i; m < k && strcmp(v[m].full, v[k].full); m++)
				;
			if (m < k) { /* the text of one before it: printed as that one is */
				strcpy(cut[v[k].i], cut[v[m].i]);
				continue;
			}
			size = strlen(full[v[k].i]) + 16;
			names_fit(cut[v[k].i], size, full[v[k].i], width > 8 ? width - 4 : width,
				  NULL);
			snprintf(cut[v[k].i] + strlen(cut[v[k].i]), 8, " #%zu", ++numbered);
		}
	}
	free(v);
	free(others);
	return e;
nomem:
	for (i = 0; i < n; i++) {
		free(cut[i]);
		cut[i] = NULL;
	}
	free(v);
	free(others);
	return -ENOMEM;
}

/* ---- the names of a recording --------------------------------------------------------- */

struct name_tally {
	UT_hash_handle hh;
	const char *name; /* the key: one pointer per name as the symbolizer gives it */
	u64 n;
};

int name_tally__add(struct name_tally **t, const char *name, u64 n)
{
	struct name_tally *e;

	if (!name)
		return 0;
	HASH_FIND_PTR(*t, &name, e);
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->name = name;
		HASH_ADD_PTR(*t, name, e);
		if (!e->hh.tbl) {
			free(e);
			return -ENOMEM;
		}
	}
	e->n += n;
	return 0;
}

static int cand_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_cand *)a)->name, ((const struct name_cand *)b)->name);
}

struct name_cand *name_tally__cands(struct name_tally *t, size_t *n)
{
	struct name_cand *c = calloc(HASH_COUNT(t) + 1, sizeof(*c));
	struct name_tally *e, *tmp;
	size_t i = 0, j;

	*n = 0;
	if (!c)
		return NULL;
	HASH_ITER(hh, t, e, tmp)
		c[i++] = (struct name_cand){.name = e->name, .samples = e->n};
	/* one text under two pointers (two DSOs' copies) is one name */
	qsort(c, i, sizeof(*c), cand_name_cmp);
	for (j = 0, *n = 0; j < i; j++) {
		if (*n && !strcmp(c[*n - 1].name, c[j].name))
			c[*n - 1].samples += c[j].samples;
		else
			c[(*n)++] = c[j];
	}
	return c;
}

void name_tally__free(struct name_tally **t)
{
	struct name_tally *e, *tmp;

	if (!t)
		return;
	HASH_ITER(hh, *t, e, tmp) {
		HASH_DEL(*t, e);
		free(e);
	}
}
