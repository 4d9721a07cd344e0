// SPDX-License-Identifier: MIT
/*
 * annotate-text.c - ebs annotate's listings (annotate.h's model) as text:
 * a header per function, then its source lines, or with --asm its
 * instructions under their source lines, each with samples, %func (or
 * %file) and %total, the hottest in bold red on a terminal.
 */
#include <stdio.h>
#include <string.h>

#include "report/annotate/annotate.h"
#include "report/present.h"

/* samples, %func (or %file), %total; blank without samples; the hottest in bold red. */
static void print_counts(FILE *out, bool color, u64 n, u64 fn_total, u64 total, bool hottest)
{
	double pf = present_percent(n, fn_total), pt = present_percent(n, total);

	if (!n) {
		fprintf(out, "  %8s %6s %6s", "", "", "");
		return;
	}
	fprintf(out, "  %s%8llu %6.1f %6.1f%s",
		hottest && color ? "\033[1;31m" : present_heat_color(color, pf),
		(unsigned long long)n, pf, pt, present_color_end(color));
}

/*
 * The lines before a listing: what it is, its samples, its source, and
 * notes.  They name paths given on the command line (--kallsyms, a FILE,
 * --source-dir's): each is a line of ebs_fprint_line, control characters
 * as '?'.
 */
static void print_header(FILE *out, const struct ann_func *af)
{
	char at[32] = "";

	if (af->show_start)
		snprintf(at, sizeof(at), " at 0x%llx", (unsigned long long)af->start);
	ebs_fprint_line(out, "# annotate: %s (%s, %s)%s", af->name, af->dso, af->dso_path, at);
	ebs_fprint_line(out, "# event: %s: %llu sample%s in it, %.1f%% of %llu", af->event,
			(unsigned long long)af->samples, af->samples == 1 ? "" : "s",
			present_percent(af->samples, af->total), (unsigned long long)af->total);
	if (af->main_file) {
		bool elsewhere = af->read_from && strcmp(af->read_from, af->main_file);

		ebs_fprint_line(out, "# source: %s%s%s%s", af->main_file,
				elsewhere ? " (read from " : "", elsewhere ? af->read_from : "",
				elsewhere ? ")" : "");
		if (!af->read_from && af->source_why)
			ebs_fprint_line(out, "# note: %s is not shown: it %s%s", af->main_file,
					af->source_why,
					af->asm_for_source ? "; its instructions instead" : "");
		else if (!af->read_from)
			ebs_fprint_line(out,
					"# note: %s is not there to read (give --source-dir)%s",
					af->main_file,
					af->asm_for_source ? "; its instructions instead" : "");
	}
	if (af->addr_from)
		ebs_fprint_line(out,
				"# note: kernel addresses are shown as offsets from %s (not the "
				"running kernel's addresses)",
				af->addr_from);
	if (af->show_asm || af->skid_adjusted)
		fprintf(out,
			"# skid: the sampled IP is usually the instruction after the one that "
			"caused the event, so the cost lies just before where samples land%s\n",
			af->skid_adjusted ? "; --skid-adjust moved each sample back one instruction"
					  : " (--skid-adjust moves each back one instruction)");
	if (af->note[0])
		ebs_fprint_line(out, "# note: %s", af->note);
}

/*
 * With no source text (asm_for_source): one instruction, the line number
 * beside the first of each line, and whose line it is when not the
 * function's own.
 */
static void print_bare_insn(FILE *out, bool color, const struct ann_func *af,
			    const struct ann_insn *in, bool new_line)
{
	print_counts(out, color, in->samples, af->samples, af->total,
		     in->samples && in->samples == af->hottest_insn);
	if (new_line)
		fprintf(out, "  %6u", in->line);
	else
		fprintf(out, "  %6s", "");
	fprintf(out, "      %llx:  %s", (unsigned long long)in->addr, in->text);
	if (in->target_name[0])
		fprintf(out, " <%s>", in->target_name);
	if (new_line && (in->owner || in->file != af->main_file))
		fprintf(out, "   [%s%s%s]", in->owner ? in->owner : "",
			in->owner && in->file != af->main_file ? ", " : "",
			in->file != af->main_file ? ann_base_name(in->file) : "");
	fputc('\n', out);
}

/* A source line above its instructions, with the line's own total, as in the source view. */
static void print_insn_line(FILE *out, bool color, const struct ann_func *af,
			    const struct ann_insn *in)
{
	u64 n = in->src ? in->src->self : 0;

	print_counts(out, color, n, af->samples, af->total, n && n == af->hottest);
	fprintf(out, "  %6u  ", in->line);
	if (in->file != af->main_file)
		fprintf(out, "%s: ", ann_base_name(in->file));
	if (in->line_text)
		fputs(in->line_text, out);
	else
		fprintf(out, "<%s:%u>", ann_base_name(in->file), in->line);
	if (in->owner)
		fprintf(out, "   [%s]", in->owner);
	fputc('\n', out);
}

/* --asm (or no source): the shown instructions in address order under their lines. */
static void print_insns(FILE *out, bool color, const struct ann_func *af)
{
	const char *cur_file = NULL;
	u32 cur_line = 0;
	size_t i;

	for (i = 0; i < af->ninsns; i++) {
		const struct ann_insn *in = &af->insns[i];
		bool new_line;

		if (!in->shown)
			continue;
		if (in->gap_before) {
			fprintf(out, "  %8s %6s %6s  %6s\n", "", "", "", "...");
			cur_line = 0; /* say the line again after a gap */
		}
		new_line = in->line && (in->line != cur_line || in->file != cur_file);
		cur_line = in->line ? in->line : cur_line;
		cur_file = in->line ? in->file : cur_file;
		if (af->asm_for_source) {
			print_bare_insn(out, color, af, in, new_line);
			continue;
		}
		if (new_line)
			print_insn_line(out, color, af, in);
		print_counts(out, color, in->samples, af->samples, af->total,
			     in->samples && in->samples == af->hottest_insn);
		fprintf(out, "  %6s      %llx:  %s", "", (unsigned long long)in->addr, in->text);
		if (in->target_name[0])
			fprintf(out, " <%s>", in->target_name);
		fputc('\n', out);
	}
}

/* The shown source lines, groups outside the function's own range headed apart. */
static void print_lines(FILE *out, bool color, const struct ann_func *af)
{
	size_t i;

	for (i = 0; i < af->nlines; i++) {
		const struct ann_line *l = &af->lines[i];

		if (!l->shown)
			continue;
		if (l->section_before)
			fprintf(out, "#\n# %s, %s:\n", l->function ? "inlined code" : "other lines",
				l->file ? l->file : "??");
		else if (l->gap_before)
			fprintf(out, "  %8s %6s %6s  %6s\n", "", "", "", "...");
		print_counts(out, color, l->self, af->samples, af->total,
			     l->self && l->self == af->hottest);
		fprintf(out, "  %6u  %s", l->line, l->text ? l->text : "<source not found>");
		if (l->function || l->owner)
			fprintf(out, "   [%s]", l->function ? l->function : l->owner);
		if (l->inlined)
			fprintf(out, "   <- %llu sample%s (%.1f%%) of %s inlined here",
				(unsigned long long)l->inlined, l->inlined == 1 ? "" : "s",
				present_percent(l->inlined, af->samples),
				l->callee ? l->callee : "inlined code");
		fputc('\n', out);
	}
}

static void print_func(FILE *out, bool color, const struct ann_func *af)
{
	print_header(out, af);
	if (!af->ninsns && !af->main_file) {
		fputc('\n', out); /* nothing to list */
		return;
	}
	/* kernel code: whence its addresses are offsets */
	fputs("#\n", out);
	ebs_fprint_line(out, "#  %8s %6s %6s  %6s  %s%s%s", "samples", af->per, "%total", "line",
			af->asm_for_source ? "    " : "",
			af->asm_for_source && af->addr_from ? af->addr_from : "",
			!af->asm_for_source ? "source"
			: af->addr_from	    ? "+offset:  instruction"
					    : "instruction");
	if (af->show_asm)
		print_insns(out, color, af);
	else
		print_lines(out, color, af);
	fputc('\n', out);
}

void annotate_text(FILE *out, bool color, const struct ann_func *const *funcs, size_t n,
		   const struct ann_rest *rest)
{
	size_t i;

	for (i = 0; i < n; i++)
		print_func(out, color, funcs[i]);
	if (rest && rest->kernel)
		fprintf(out,
			"# not annotated: %llu sample%s (%.1f%%) in the kernel, "
			"without kernel symbols\n",
			(unsigned long long)rest->kernel, rest->kernel == 1 ? "" : "s",
			present_percent(rest->kernel, rest->total));
	if (rest && rest->nofunc)
		fprintf(out,
			"# not annotated: %llu sample%s (%.1f%%) outside any known "
			"function\n",
			(unsigned long long)rest->nofunc, rest->nofunc == 1 ? "" : "s",
			present_percent(rest->nofunc, rest->total));
	fflush(out);
}
