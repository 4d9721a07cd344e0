// SPDX-License-Identifier: MIT
/*
 * flame.c - ebs flamegraph: the call stacks of a file as one self-contained
 * interactive SVG (inline CSS and script, nothing fetched), as Brendan
 * Gregg's flamegraph.pl draws them.  The stacks are merged into a tree
 * (children merged by function name, sorted by name), each frame as wide
 * as its samples; frames narrower than 0.1% of the total are left out and
 * the SVG says how many samples they held.  --reverse inverts the stacks:
 * the leaves at the root, at the top, their callers below (an icicle).
 *
 * Each frame is a <g class="f"> holding a <title>, a <rect> and a <text>,
 * with data-name, data-dso, data-kind, data-n (samples), data-x (samples
 * left of it) and data-d (depth: the root 0), which the script zooms and
 * searches by, and which tests read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/present.h"
#include "report/session/stacks.h"
#include "util/hash.h"

enum fkind { FK_ROOT, FK_USER, FK_KERNEL, FK_INLINE, FK_PSEUDO, FK_MAX };

static const char *const kind_names[FK_MAX] = {
	[FK_ROOT] = "root",	 [FK_USER] = "user",	 [FK_KERNEL] = "kernel",
	[FK_INLINE] = "inlined", [FK_PSEUDO] = "pseudo",
};

#define NONE UINT32_MAX

/* the DSO of a frame merged from functions of one name in several DSOs */
static const char SEVERAL_DSOS[] = "several DSOs";

/* One frame of the merged tree; links are indices into flame.v. */
struct fnode {
	const char *name, *dso; /* borrowed from the stacks */
	u64 n;			/* samples of stacks through it */
	u64 x;			/* samples left of it, from the root's left edge */
	u32 parent, first, next;
	u32 depth;
	u32 hash; /* of name: its shade */
	enum fkind kind;
};

/*
 * A node found by its parent and its name.  The stacks' names are interned
 * (callchain.c), so one name is one pointer.
 */
struct fkey {
	u32 parent;
	const char *name;
};

struct fslot {
	UT_hash_handle hh;
	struct fkey key; /* zeroed whole: its padding is hashed too */
	u32 node;
};

/*
 * The tree.  A node's parent always has a smaller index (it is created
 * first), so walking v in order visits parents before their children.
 */
struct flame {
	struct fnode *v;
	u32 n;
	size_t cap;
	struct fslot *index; /* every node but the root, by (parent, name) */
	/* what is drawn (flame_prune) */
	bool *keep;  /* [n] */
	u32 maxd;    /* the deepest frame drawn */
	u32 dropped; /* frames left out, not counting those above them */
	u64 hidden;  /* their samples */
};

/* Geometry, in pixels. */
#define PAD	 10
#define FRAME_H	 16
#define TOP	 78
#define CHAR_W	 7.2 /* 12px monospace */
#define SEARCH_W 220

static u32 fnv(const char *s)
{
	u32 h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static enum fkind frame_kind(const struct cframe *cf)
{
	if (!strncmp(cf->name, "[unknown]", 9) || !strncmp(cf->name, "[truncated]", 11))
		return FK_PSEUDO;
	if (cf->inlined)
		return FK_INLINE;
	if (cf->kernel || (cf->dso && !strcmp(cf->dso, "[kernel]")))
		return FK_KERNEL;
	return FK_USER;
}

static u32 flame_node(struct flame *fl, u32 parent, const char *name, const char *dso,
		      enum fkind kind)
{
	struct fnode *nd;

	if (fl->n == NONE - 1 || ebs_grow((void **)&fl->v, &fl->cap, fl->n, sizeof(*fl->v), 256))
		return NONE;
	nd = &fl->v[fl->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = name;
	nd->dso = dso;
	nd->hash = fnv(name);
	nd->kind = kind;
	nd->parent = parent;
	nd->first = nd->next = NONE;
	if (parent != NONE) {
		nd->depth = fl->v[parent].depth + 1;
		nd->next = fl->v[parent].first;
		fl->v[parent].first = fl->n;
	}
	return fl->n++;
}

/* The child of parent named cf->name, made when missing; NONE: no memory. */
static u32 flame_child(struct flame *fl, u32 parent, const struct cframe *cf)
{
	struct fslot *e;
	struct fkey k;

	memset(&k, 0, sizeof(k));
	k.parent = parent;
	k.name = cf->name;
	HASH_FIND(hh, fl->index, &k, sizeof(k), e);
	if (e) {
		/* one name in two DSOs (ld.so's _start and the program's): merged, said */
		if (fl->v[e->node].dso != cf->dso)
			fl->v[e->node].dso = SEVERAL_DSOS;
		return e->node;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NONE;
	memcpy(&e->key, &k, sizeof(k)); /* with its zeroed padding */
	e->node = flame_node(fl, parent, cf->name, cf->dso, frame_kind(cf));
	if (e->node != NONE)
		HASH_ADD(hh, fl->index, key, sizeof(e->key), e);
	if (e->node == NONE || !e->hh.tbl) {
		free(e);
		return NONE;
	}
	return e->node;
}

static int flame_add(struct flame *fl, const struct stack *st, bool reverse)
{
	u32 cur = 0;
	unsigned int k;

	fl->v[0].n += st->count;
	for (k = 0; k < st->n; k++) {
		cur = flame_child(fl, cur, &st->frames[reverse ? k : st->n - 1 - k]);
		if (cur == NONE)
			return -ENOMEM;
		fl->v[cur].n += st->count;
	}
	return 0;
}

struct kid {
	const char *name;
	u32 i;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kid *)a)->name, ((const struct kid *)b)->name);
}

/*
 * Sort each node's children by name and place them left to right from
 * their parent's left edge.  Parents come before children in v, so one
 * pass in order places every node.
 */
static int flame_layout(struct flame *fl)
{
	struct kid *kids = NULL;
	size_t cap = 0, nk, c;
	u32 i, j;
	u64 x;

	for (i = 0; i < fl->n; i++) {
		nk = 0;
		for (j = fl->v[i].first; j != NONE; j = fl->v[j].next) {
			if (ebs_grow((void **)&kids, &cap, nk, sizeof(*kids), 64)) {
				free(kids);
				return -ENOMEM;
			}
			kids[nk].name = fl->v[j].name;
			kids[nk++].i = j;
		}
		if (!nk)
			continue;
		qsort(kids, nk, sizeof(*kids), by_name);
		x = fl->v[i].x;
		fl->v[i].first = kids[0].i;
		for (c = 0; c < nk; c++) {
			struct fnode *nd = &fl->v[kids[c].i];

			nd->x = x;
			x += nd->n;
			nd->next = c + 1 < nk ? kids[c + 1].i : NONE;
		}
	}
	free(kids);
	return 0;
}

/*
 * Leave out the frames narrower than 0.1% of the total, and all above
 * them; count what they held.
 */
static int flame_prune(struct flame *fl)
{
	u64 total = fl->v[0].n;
	u32 i;

	fl->keep = calloc(fl->n, sizeof(*fl->keep));
	if (!fl->keep)
		return -ENOMEM;
	for (i = 0; i < fl->n; i++) {
		const struct fnode *nd = &fl->v[i];

		if (i && !fl->keep[nd->parent])
			continue;
		if (i && nd->n * 1000 < total) {
			fl->hidden += nd->n;
			fl->dropped++;
			continue;
		}
		fl->keep[i] = true;
		if (nd->depth > fl->maxd)
			fl->maxd = nd->depth;
	}
	return 0;
}

static void flame_free(struct flame *fl)
{
	struct fslot *e, *tmp;

	HASH_ITER(hh, fl->index, e, tmp) {
		HASH_DEL(fl->index, e);
		free(e);
	}
	free(fl->keep);
	free(fl->v);
	memset(fl, 0, sizeof(*fl));
}

/* s escaped for XML, at most max characters of it (present_markup). */
static void xml_put(FILE *f, const char *s, size_t max)
{
	present_markup(f, s, max, PRESENT_XML);
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The label of a frame w pixels wide: the name, cut with ".." when it does not fit. */
static void label(FILE *f, const char *name, double w)
{
	double fit = (w - 6) / CHAR_W;
	size_t max = fit < 3 ? 0 : (size_t)fit;

	if (!max)
		return;
	if (utf8_chars(name) <= max) {
		xml_put(f, name, SIZE_MAX);
	} else {
		xml_put(f, name, max - 2);
		fputs("..", f);
	}
}

/*
 * A fill for a frame: its kind picks the hue family, a hash of its name the
 * shade, so a function has one colour in every graph.
 */
static void fill(FILE *f, enum fkind kind, u32 h)
{
	unsigned int a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;
	unsigned int r, g, bl;

	switch (kind) {
	case FK_USER: /* red to yellow */
		r = 205 + 50 * a / 255, g = 60 + 160 * b / 255, bl = 40 * c / 255;
		break;
	case FK_KERNEL: /* blues */
		r = 70 + 70 * a / 255, g = 140 + 60 * a / 255, bl = 210 + 45 * b / 255;
		break;
	case FK_INLINE: /* greens */
		r = 80 + 80 * a / 255, g = 185 + 55 * b / 255, bl = 70 + 60 * a / 255;
		break;
	case FK_PSEUDO: /* greys */
		r = g = bl = 165 + 45 * a / 255;
		break;
	default:
		r = 215, g = 210, bl = 200;
	}
	fprintf(f, "rgb(%u,%u,%u)", r, g, bl);
}

/* "name (dso): N samples, P%", the frame's title and its status line. */
static void frame_info(FILE *f, const struct fnode *nd, u64 total)
{
	xml_put(f, nd->name, SIZE_MAX);
	if (nd->dso && *nd->dso) {
		fputs(" (", f);
		xml_put(f, nd->dso, SIZE_MAX);
		fputc(')', f);
	}
	fprintf(f, ": %llu sample%s, %.2f%%", (unsigned long long)nd->n, nd->n == 1 ? "" : "s",
		total ? 100.0 * (double)nd->n / (double)total : 0.0);
}

static const char css[] =
	"text { font-family: \"DejaVu Sans Mono\", Menlo, Consolas, monospace; font-size: 12px; "
	"fill: #000; }\n"
	"#title { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: 17px; "
	"text-anchor: middle; }\n"
	"#subtitle { fill: #444; text-anchor: middle; }\n"
	"#matched { text-anchor: end; }\n"
	"#reset { cursor: pointer; fill: #225; text-decoration: underline; }\n"
	"#reset.off { opacity: 0.35; cursor: default; text-decoration: none; }\n"
	".legend { fill: #333; }\n"
	".f { cursor: pointer; }\n"
	".f text { pointer-events: none; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
	".f.parent { opacity: 0.55; }\n"
	".f.hide { display: none; }\n"
	".f.match rect { fill: rgb(230,0,230); }\n"
	"input { font: 12px monospace; width: 100%; box-sizing: border-box; padding: 2px 4px; }\n";

/*
 * The script: hover shows a frame in the status line; a click zooms into it
 * (its subtree spread over the width, its ancestors kept at full width and
 * dimmed, everything else hidden); the search box highlights the frames
 * whose name matches a regular expression and shows the share of samples
 * under them, each sample counted once (a match inside another, as in
 * recursion, adds nothing: the union of their intervals).
 */
static const char script[] =
	"\"use strict\";\n"
	"(function () {\n"
	"var svg = document.documentElement;\n"
	"var total = +svg.getAttribute(\"data-total\"), pad = +svg.getAttribute(\"data-pad\");\n"
	"var fw = +svg.getAttribute(\"data-fw\"), cw = +svg.getAttribute(\"data-cw\");\n"
	"var details = document.getElementById(\"details\");\n"
	"var matched = document.getElementById(\"matched\");\n"
	"var reset = document.getElementById(\"reset\");\n"
	"var input = document.getElementById(\"search\");\n"
	"var hint = details.textContent, frames = [], gs = document.querySelectorAll(\"g.f\");\n"
	"function label(f, w) {\n"
	"  var max = Math.floor((w - 6) / cw), s = f.name;\n"
	"  f.t.textContent = max < 3 ? \"\" : s.length <= max ? s : s.substring(0, max - 2) + "
	"\"..\";\n"
	"}\n"
	"function zoom(z) {\n"
	"  if (z && z.d === 0) z = null;\n"
	"  var x0 = z ? z.x : 0, n0 = z ? z.n : total, d0 = z ? z.d : 0, k = n0 > 0 ? fw / n0 : 0;\n"
	"  frames.forEach(function (e) {\n"
	"    var x, w, up = false;\n"
	"    if (e.d >= d0 && e.x >= x0 && e.x + e.n <= x0 + n0) {\n"
	"      x = pad + (e.x - x0) * k; w = e.n * k;\n"
	"    } else if (e.d < d0 && e.x <= x0 && e.x + e.n >= x0 + n0) {\n"
	"      x = pad; w = fw; up = true;\n"
	"    } else {\n"
	"      e.g.classList.add(\"hide\");\n"
	"      return;\n"
	"    }\n"
	"    e.g.classList.remove(\"hide\");\n"
	"    e.g.classList.toggle(\"parent\", up);\n"
	"    e.r.setAttribute(\"x\", x.toFixed(2));\n"
	"    e.r.setAttribute(\"width\", w.toFixed(2));\n"
	"    e.t.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"    label(e, w);\n"
	"  });\n"
	"  reset.classList.toggle(\"off\", !z);\n"
	"}\n"
	"function search(text) {\n"
	"  var re, iv = [], sum = 0, end = 0;\n"
	"  frames.forEach(function (e) { e.g.classList.remove(\"match\"); });\n"
	"  if (!text) { matched.textContent = \"\"; return; }\n"
	"  try { re = new RegExp(text); } catch (err) {\n"
	"    matched.textContent = \"Not a regular expression\"; return;\n"
	"  }\n"
	"  frames.forEach(function (e) {\n"
	"    if (e.d > 0 && re.test(e.name)) { e.g.classList.add(\"match\"); iv.push([e.x, e.x + "
	"e.n]); }\n"
	"  });\n"
	"  iv.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  iv.forEach(function (v) {\n"
	"    if (v[1] > end) { sum += v[1] - Math.max(v[0], end); end = v[1]; }\n"
	"  });\n"
	"  matched.textContent = \"Matched: \" + (total ? 100 * sum / total : 0).toFixed(2) + "
	"\"%\";\n"
	"}\n"
	"for (var i = 0; i < gs.length; i++) {\n"
	"  var g = gs[i], f = {\n"
	"    g: g, r: g.querySelector(\"rect\"), t: g.querySelector(\"text\"),\n"
	"    x: +g.getAttribute(\"data-x\"), n: +g.getAttribute(\"data-n\"),\n"
	"    d: +g.getAttribute(\"data-d\"), name: g.getAttribute(\"data-name\"),\n"
	"    info: g.querySelector(\"title\").textContent\n"
	"  };\n"
	"  frames.push(f);\n"
	"  g.addEventListener(\"mouseover\", function () { details.textContent = this.info; }.bind(f));\n"
	"  g.addEventListener(\"mouseout\", function () { details.textContent = hint; });\n"
	"  g.addEventListener(\"click\", zoom.bind(null, f));\n"
	"}\n"
	"reset.addEventListener(\"click\", function () { zoom(null); });\n"
	"if (input) input.addEventListener(\"input\", function () { search(input.value); });\n"
	"document.addEventListener(\"keydown\", function (ev) {\n"
	"  if ((ev.ctrlKey || ev.metaKey) && ev.key === \"f\" && input) {\n"
	"    ev.preventDefault(); input.focus();\n"
	"  } else if (ev.key === \"Escape\") {\n"
	"    zoom(null);\n"
	"  }\n"
	"});\n"
	"window.ebsFlame = { zoom: zoom, search: search, frames: frames };\n"
	"})();\n";

/* The legend of the colours, from x, on the controls' line. */
static void legend(FILE *f, double x, double y)
{
	static const struct {
		enum fkind kind;
		const char *text;
	} keys[] = {
		{FK_USER, "user"},
		{FK_KERNEL, "kernel"},
		{FK_INLINE, "inlined"},
		{FK_PSEUDO, "[unknown] [truncated]"},
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"", x,
			y - 10);
		fill(f, keys[i].kind, 0x7f7f7f);
		fprintf(f, "\"/><text class=\"legend\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 16,
			y, keys[i].text);
		x += 16 + CHAR_W * (double)strlen(keys[i].text) + 18;
	}
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"rgb(230,0,230)\"/>"
		"<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">search match</text>\n",
		x, y - 10, x + 16, y);
}

/* --title, else "Flame graph of FILE (EVENT)", escaped. */
static void put_title(FILE *f, const struct flamegraph_opts *o, const struct stacks *s)
{
	size_t i;

	if (o->title) {
		xml_put(f, o->title, SIZE_MAX);
		return;
	}
	fputs("Flame graph of ", f);
	for (i = 0; i < (o->view.ninputs > 1 ? o->view.ninputs : 1); i++) {
		const char *in = o->view.ninputs > 1 ? o->view.inputs[i] : o->view.input;

		if (i)
			fputs(i + 1 < o->view.ninputs ? ", " : " and ", f);
		xml_put(f, strcmp(in, "-") ? in : "standard input", SIZE_MAX);
	}
	fputs(" (", f);
	xml_put(f, s->event ? s->event : "?", SIZE_MAX);
	fputc(')', f);
}

static void flame_svg(const struct flame *fl, const struct stacks *s,
		      const struct flamegraph_opts *o, FILE *f)
{
	unsigned int width = o->width ? o->width : 1200;
	double fw = (double)width - 2 * PAD, k;
	u64 total = fl->v[0].n;
	const bool *keep = fl->keep;
	u32 maxd = fl->maxd, i;
	unsigned int height;

	height = TOP + (maxd + 1) * FRAME_H + 34;
	k = total ? fw / (double)total : 0;

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-total=\"%llu\" data-pad=\"%d\" "
		"data-fw=\"%.0f\" data-cw=\"%.1f\" data-reverse=\"%d\" data-hidden=\"%llu\">\n",
		width, height, width, height, (unsigned long long)total, PAD, fw, CHAR_W,
		o->reverse ? 1 : 0, (unsigned long long)fl->hidden);
	fputs("<title>", f);
	put_title(f, o, s);
	fputs("</title>\n", f);
	fprintf(f, "<style><![CDATA[\n%s]]></style>\n", css);
	fputs("<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n",
	      f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#bg)\"/>\n", width,
		height);

	/* the title, what the graph is of, and what it leaves out */
	fprintf(f, "<text id=\"title\" x=\"%.1f\" y=\"24\">", width / 2.0);
	put_title(f, o, s);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"subtitle\" x=\"%.1f\" y=\"42\">%llu samples of ", width / 2.0,
		(unsigned long long)total);
	xml_put(f, s->event ? s->event : "?", SIZE_MAX);
	fputs(s->call_graph ? ", call graph " : ", no call graph recorded", f);
	if (s->call_graph)
		xml_put(f, s->call_graph, SIZE_MAX);
	if (o->reverse)
		fputs(", reversed: callers below", f);
	if (fl->dropped)
		fprintf(f,
			"<tspan id=\"hidden\">; %u frames under 0.1%% not drawn, holding %llu "
			"samples (%.2f%%)</tspan>",
			fl->dropped, (unsigned long long)fl->hidden,
			100.0 * (double)fl->hidden / (double)total);
	fputs("</text>\n", f);

	/* the controls: reset, the colours' legend, the search box */
	fputs("<text id=\"reset\" class=\"off\" x=\"10\" y=\"66\">Reset zoom</text>\n", f);
	if (width >= 900)
		legend(f, 110, 66);
	fprintf(f,
		"<foreignObject x=\"%d\" y=\"50\" width=\"%d\" height=\"24\">"
		"<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
		"placeholder=\"Search (regex), Ctrl-F\" title=\"Highlight the frames whose name "
		"matches\"/></foreignObject>\n",
		(int)width - PAD - SEARCH_W, SEARCH_W);

	/* the frames, the root first (a parent always before its children) */
	fputs("<g id=\"frames\">\n", f);
	for (i = 0; i < fl->n; i++) {
		const struct fnode *nd = &fl->v[i];
		double x = PAD + (double)nd->x * k, w = (double)nd->n * k;
		u32 row = o->reverse ? nd->depth : maxd - nd->depth;
		unsigned int y = TOP + row * FRAME_H;

		if (!keep[i])
			continue;
		if (!i)
			w = fw;
		fputs("<g class=\"f\" data-name=\"", f);
		xml_put(f, nd->name, SIZE_MAX);
		fputs("\" data-dso=\"", f);
		xml_put(f, nd->dso ? nd->dso : "", SIZE_MAX);
		fprintf(f,
			"\" data-kind=\"%s\" data-n=\"%llu\" data-x=\"%llu\" data-d=\"%u\"><title>",
			kind_names[nd->kind], (unsigned long long)nd->n, (unsigned long long)nd->x,
			nd->depth);
		frame_info(f, nd, total);
		fprintf(f,
			"</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
			"fill=\"",
			x, y, w, FRAME_H - 1);
		fill(f, nd->kind, nd->hash);
		fprintf(f, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 11.5);
		label(f, nd->name, w);
		fputs("</text></g>\n", f);
	}
	fputs("</g>\n", f);

	/* the status line and the search's result */
	fprintf(f,
		"<text id=\"details\" x=\"%d\" y=\"%u\">Hover over a frame for its samples; "
		"click to zoom in</text>\n",
		PAD, height - 10);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%u\"></text>\n", (int)width - PAD,
		height - 10);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n", script);
}

int ebs_flamegraph(const struct flamegraph_opts *o, struct ebs_error *err)
{
	struct flame fl = {0};
	struct ebs_out out;
	struct stacks s;
	int e;
	size_t i;

	e = stacks_collect(&o->view, false, &s, err); /* names alone: no lines */
	if (e)
		goto out;
	e = flame_node(&fl, NONE, "all", "", FK_ROOT) == NONE ? -ENOMEM : 0;
	for (i = 0; i < s.n && !e; i++)
		e = flame_add(&fl, &s.v[i], o->reverse);
	if (!e)
		e = flame_layout(&fl);
	if (!e)
		e = flame_prune(&fl);
	if (e) {
		e = ebs_error__set(err, -e, "out of memory");
		goto out;
	}
	e = ebs_out_open(&out, o->output, o->view.out, err);
	if (e)
		goto out;
	flame_svg(&fl, &s, o, out.f);
	e = ebs_out_close(&out, true, err);
out:
	flame_free(&fl);
	stacks_free(&s);
	return e;
}
