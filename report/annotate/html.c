// SPDX-License-Identifier: MIT
/*
 * html.c - ebs annotate --html: the annotated functions as one
 * self-contained page (inline CSS, no script, nothing fetched): each
 * source line with its samples and a heat colour, and at the top the
 * hottest lines, each linked to its place.
 */
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/annotate/annotate.h"
#include "report/names.h"
#include "report/present.h"

static void esc(FILE *f, const char *s)
{
	present_markup(f, s, SIZE_MAX, PRESENT_HTML);
}

/* A background for a share of the function: white to red. */
static void heat(FILE *f, double pct)
{
	int a = pct <= 0 ? 0 : pct >= 50 ? 60 : (int)(pct + 8);

	if (a)
		fprintf(f, " style=\"background: rgba(230, 60, 30, %.2f)\"", a / 100.0);
}

struct hot {
	size_t fn, line;
	u64 n;
};

static int hot_cmp(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	return x->n != y->n
		       ? (x->n > y->n ? -1 : 1)
		       : (x->fn != y->fn ? (x->fn < y->fn ? -1 : 1) : (x->line < y->line ? -1 : 1));
}

/*
 * A function's name in a list: shortened as report's rows are (names.c:
 * its own name kept), the whole name its title, shown on hovering.
 */
static void short_name(FILE *f, const char *name)
{
	char cut[96];

	if (strlen(name) < sizeof(cut) - 16) {
		esc(f, name);
		return;
	}
	names_fit(cut, sizeof(cut), name, sizeof(cut) - 16, NULL);
	fputs("<span title=\"", f);
	esc(f, name);
	fputs("\">", f);
	esc(f, cut);
	fputs("</span>", f);
}

static void hottest(FILE *f, const struct ann_func *const *funcs, size_t n)
{
	struct hot *h;
	size_t i, j, k = 0, total = 0;

	for (i = 0; i < n; i++)
		total += funcs[i]->nlines;
	h = calloc(total + 1, sizeof(*h));
	if (!h)
		return;
	for (i = 0; i < n; i++)
		for (j = 0; j < funcs[i]->nlines; j++)
			if (funcs[i]->lines[j].self)
				h[k++] = (struct hot){i, j, funcs[i]->lines[j].self};
	qsort(h, k, sizeof(*h), hot_cmp);
	if (!k) { /* no line has samples (instructions only) */
		free(h);
		return;
	}
	fputs("<h2>Hottest lines</h2>\n<ol class=\"hot\">\n", f);
	for (i = 0; i < k && i < 10; i++) {
		const struct ann_func *af = funcs[h[i].fn];
		const struct ann_line *l = &af->lines[h[i].line];

		double pt = present_percent(l->self, af->total);

		fprintf(f, "<li><a href=\"#f%zu-l%zu\">%s:%u</a>", h[i].fn, h[i].line,
			ann_base_name(l->file), l->line);
		/* a file's listing knows the function only of inlined code */
		if (l->function || strcmp(af->per, "%file")) {
			fputs(" in ", f);
			short_name(f, l->function ? l->function : af->name);
		}
		fprintf(f, ": <b>%.*f%%</b> (%llu sample%s)</li>\n", pt < 1 ? 2 : 1, pt,
			(unsigned long long)l->self, l->self == 1 ? "" : "s");
	}
	fputs("</ol>\n", f);
	free(h);
}

/* One row of counts: samples, %func, %total (empty cells without samples). */
static void counts(FILE *f, u64 n, const struct ann_func *af)
{
	if (n)
		fprintf(f, "<td>%llu</td><td>%.1f</td><td>%.1f</td>", (unsigned long long)n,
			present_percent(n, af->samples), present_percent(n, af->total));
	else
		fputs("<td></td><td></td><td></td>", f);
}

/* A function's name after a line, in brackets: whose code or text the line is. */
static void bracketed(FILE *f, const char *name)
{
	fputs("<span class=\"inl\">[", f);
	esc(f, name);
	fputs("]</span>", f);
}

/* An instruction's text, its branch target named and, inside the function, linked. */
static void insn_text(FILE *f, const struct ann_insn *in, size_t fi)
{
	esc(f, in->text);
	if (!in->target_name[0])
		return;
	if (in->target_local)
		fprintf(f, " <a href=\"#f%zu-a%llx\">", fi, (unsigned long long)in->target);
	else
		fputc(' ', f);
	fputs("&lt;", f);
	esc(f, in->target_name);
	fputs("&gt;", f);
	if (in->target_local)
		fputs("</a>", f);
}

/*
 * --asm: the instructions in address order under their source lines, each
 * source line with its own total; without source (the file is missing),
 * the line numbers beside the instructions.
 */
static void instructions(FILE *f, const struct ann_func *af, size_t fi)
{
	bool *anchored = calloc(af->nlines + 1, sizeof(*anchored));
	const char *cur_file = NULL;
	u32 cur_line = 0;
	size_t i;

	for (i = 0; i < af->ninsns; i++) {
		const struct ann_insn *in = &af->insns[i];
		bool new_line = in->line && (in->line != cur_line || in->file != cur_file);
		size_t j = in->src ? (size_t)(in->src - af->lines) : af->nlines;

		cur_line = in->line ? in->line : cur_line;
		cur_file = in->line ? in->file : cur_file;
		if (new_line && !af->asm_for_source) {
			u64 n = in->src ? in->src->self : 0;

			fputs("<tr class=\"srcline\"", f);
			/* the hottest-lines list links to a line's first place */
			if (j < af->nlines && anchored && !anchored[j]) {
				anchored[j] = true;
				fprintf(f, " id=\"f%zu-l%zu\"", fi, j);
			}
			fputc('>', f);
			counts(f, n, af);
			fprintf(f, "<td class=\"ln\">%u</td><td class=\"src\"", in->line);
			heat(f, present_percent(n, af->samples));
			fputs("><pre>", f);
			if (in->file != af->main_file) {
				esc(f, ann_base_name(in->file));
				fputs(": ", f);
			}
			esc(f, in->line_text ? in->line_text : "<source not found>");
			fputs("</pre>", f);
			if (in->owner)
				bracketed(f, in->owner);
			fputs("</td></tr>\n", f);
		}
		fprintf(f, "<tr id=\"f%zu-a%llx\"%s>", fi, (unsigned long long)in->addr,
			in->samples && in->samples == af->hottest_insn ? " class=\"hottest\"" : "");
		counts(f, in->samples, af);
		if (af->asm_for_source && new_line) {
			fputs("<td class=\"ln\">", f);
			if (j < af->nlines && anchored && !anchored[j]) {
				anchored[j] = true;
				fprintf(f, "<a id=\"f%zu-l%zu\"></a>", fi, j);
			}
			fprintf(f, "%u</td>", in->line);
		} else if (af->asm_for_source)
			fputs("<td></td>", f);
		fprintf(f, "<td class=\"addr\">%llx</td><td class=\"src\"",
			(unsigned long long)in->addr);
		heat(f, present_percent(in->samples, af->samples));
		fputs("><pre>    ", f);
		insn_text(f, in, fi);
		fputs("</pre>", f);
		if (af->asm_for_source && new_line && (in->owner || in->file != af->main_file)) {
			fputs("<span class=\"inl\">[", f);
			esc(f, in->owner ? in->owner : "");
			if (in->file != af->main_file) {
				fputs(in->owner ? ", " : "", f);
				esc(f, ann_base_name(in->file));
			}
			fputs("]</span>", f);
		}
		fputs("</td></tr>\n", f);
	}
	free(anchored);
}

static void function(FILE *f, const struct ann_func *af, size_t fi)
{
	size_t i;

	fprintf(f, "<h2 id=\"f%zu\">", fi);
	esc(f, af->name);
	fputs(" <small>(", f);
	esc(f, af->dso);
	if (af->show_start)
		fprintf(f, ", at 0x%llx", (unsigned long long)af->start);
	fprintf(f, ")</small></h2>\n<p>%s: %llu samples, %.1f%% of %llu. Source: <code>", af->event,
		(unsigned long long)af->samples, present_percent(af->samples, af->total),
		(unsigned long long)af->total);
	esc(f, af->main_file ? af->main_file : "(no line information)");
	fputs("</code></p>\n", f);
	if (af->addr_from) {
		fputs("<p class=\"note\">Kernel addresses are shown as offsets from ", f);
		esc(f, af->addr_from);
		fputs(" (not the running kernel&#39;s addresses).</p>\n", f);
	}
	if (af->show_asm || af->skid_adjusted)
		fprintf(f,
			"<p class=\"note\">Skid: the sampled IP is usually the instruction after "
			"the one that caused the event, so the cost lies just before where samples "
			"land%s.</p>\n",
			af->skid_adjusted ? "; each sample was moved back one "
					    "instruction (--skid-adjust)"
					  : "");
	if (af->source_missing) {
		fputs("<p class=\"note\">", f);
		esc(f, af->main_file);
		if (af->source_why) {
			fputs(" is not shown: it ", f);
			esc(f, af->source_why);
		} else {
			fputs(" is not there to read (give --source-dir)", f);
		}
		fprintf(f, "%s.</p>\n", af->asm_for_source ? "; its instructions instead" : "");
	}
	if (af->note[0]) {
		fputs("<p class=\"note\">", f);
		esc(f, af->note);
		fputs("</p>\n", f);
	}
	if (!af->ninsns && !af->nlines)
		return; /* nothing to list: the notes say why */
	if (af->asm_for_source) {
		fprintf(f,
			"<table>\n<tr><th>samples</th><th>%s</th><th>%%total</th><th>line</th><th>",
			af->per);
		/* kernel code: whence its addresses are offsets */
		esc(f, af->addr_from ? af->addr_from : "address");
		fprintf(f, "%s</th><th class=\"src\">instruction</th></tr>\n",
			af->addr_from ? "+offset" : "");
	} else {
		fprintf(f,
			"<table>\n<tr><th>samples</th><th>%s</th><th>%%total</th><th>%s</th>"
			"<th class=\"src\">source</th></tr>\n",
			af->per, af->show_asm ? "line / address" : "line");
	}
	if (af->show_asm) {
		instructions(f, af, fi);
		fputs("</table>\n", f);
		return;
	}
	for (i = 0; i < af->nlines; i++) {
		const struct ann_line *l = &af->lines[i];
		double pf = present_percent(l->self, af->samples);

		if (!l->shown)
			continue;
		if (l->section_before) {
			fprintf(f, "<tr class=\"gap\"><td colspan=\"5\">%s, ",
				l->function ? "inlined code" : "other lines");
			esc(f, l->file ? l->file : "??");
			fputs(":</td></tr>\n", f);
		} else if (l->gap_before) {
			fputs("<tr class=\"gap\"><td colspan=\"5\">&#8942;</td></tr>\n", f);
		}
		fprintf(f, "<tr id=\"f%zu-l%zu\"%s>", fi, i,
			l->self && l->self == af->hottest ? " class=\"hottest\"" : "");
		counts(f, l->self, af);
		fprintf(f, "<td class=\"ln\">%u</td><td class=\"src\"", l->line);
		heat(f, pf);
		fputs("><pre>", f);
		esc(f, l->text ? l->text : "<source not found>");
		fputs("</pre>", f);
		if (l->function || l->owner)
			bracketed(f, l->function ? l->function : l->owner);
		if (l->inlined) {
			fprintf(f, "<span class=\"inl\">&larr; %llu sample%s (%.1f%%) of ",
				(unsigned long long)l->inlined, l->inlined == 1 ? "" : "s",
				present_percent(l->inlined, af->samples));
			esc(f, l->callee ? l->callee : "inlined code");
			fputs(" inlined here</span>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

void annotate_html(FILE *f, const struct ann_func *const *funcs, size_t n, const char *input)
{
	size_t i;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>ebs annotate: ", f);
	if (n) { /* the first function listed, and how many more */
		esc(f, funcs[0]->name);
		if (n > 1)
			fprintf(f, " and %zu more", n - 1);
		fputs(" \xe2\x80\x94 ", f);
	}
	esc(f, input);
	fputs("</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 1.5em; }\n"
	      "table { border-collapse: collapse; font-size: 0.9em; }\n"
	      "td, th { padding: 0 0.5em; text-align: right; vertical-align: baseline; }\n"
	      "td.src, th.src { text-align: left; }\n"
	      "td.ln { color: #888; }\n"
	      "td.addr { color: #555; font-family: monospace, monospace; }\n"
	      "pre { margin: 0; display: inline; font-family: monospace, monospace; }\n"
	      "tr.hottest td { font-weight: bold; }\n"
	      "tr.gap td { text-align: left; color: #aaa; }\n"
	      ".inl { color: #36c; margin-left: 1em; font-size: 0.9em; }\n"
	      ".note { color: #a60; }\n"
	      "</style></head><body>\n<h1>ebs annotate</h1>\n<p>",
	      f);
	esc(f, input);
	fputs("</p>\n", f);
	hottest(f, funcs, n);
	for (i = 0; i < n; i++)
		function(f, funcs[i], i);
	fputs("</body></html>\n", f);
}
