// SPDX-License-Identifier: MIT
/* cmd-annotate.c - ebs annotate: options, then report's ebs_annotate(). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

struct annotate_args {
	struct annotate_opts o;
	struct cli_view cv;
	const char **srcs; /* --source-dir, NULL-terminated */
	unsigned int nsrcs;
};

static int set_context(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_u32("annotate", "--context", arg, 0, &((struct annotate_args *)ctx)->o.context)
		       ? 2
		       : 0;
}

static int add_source_dir(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct annotate_args *a = ctx;

	(void)opt;
	if (!cli_push_str(&a->srcs, &a->nsrcs, arg))
		return 0;
	fprintf(stderr, "ebs annotate: out of memory\n");
	return 1;
}

static const struct cli_opt annotate_opts[] = {
	{"", 0, NULL, NULL, CLI_INCLUDE, .off = offsetof(struct annotate_args, cv),
	 .sub = cli_view_options},
	{"asm", 0, NULL, "the instructions under their source lines, samples each", CLI_SET,
	 .off = CLI_BOOL_AT(struct annotate_args, o.asm_)},
	{"skid-adjust", 0, NULL, "count each sample for the instruction before its IP", CLI_SET,
	 .off = CLI_BOOL_AT(struct annotate_args, o.skid_adjust)},
	{"context", 'C', "N", "lines around hot lines (default 3)", CLI_CALL, .fn = set_context},
	{"html", 0, "OUT.html", "write one self-contained HTML page to OUT.html instead", CLI_STR,
	 .off = CLI_STR_AT(struct annotate_args, o.html)},
	{"source-dir", 0, "DIR|OLD=NEW",
	 "where sources are: DIR (tried under it and by file name) or OLD=NEW (a path prefix "
	 "replaced); may be repeated",
	 CLI_CALL, .fn = add_source_dir},
	{"kcore", 0, "FILE",
	 "kernel functions' instructions from FILE (an ELF core of the kernel's memory) "
	 "instead of /proc/kcore",
	 CLI_STR, .off = CLI_STR_AT(struct annotate_args, o.kcore)},
	{0},
};

const struct cli_cmd cli_annotate_cmd = {
	.name = "annotate",
	.usage = "usage: ebs annotate [-i FILE]... [OPTIONS] [FUNC | FILE[:LINE]]\n",
	.about = "  FUNC                  the function's whole source, each line with its samples\n"
		 "                        (a function that was only inlined: its lines wherever\n"
		 "                        inlined)\n"
		 "  FILE[:LINE]           every sampled line of a source file (around LINE)\n"
		 "  (nothing)             the hottest functions (--top, default 5), their hot\n"
		 "                        lines with context\n",
	.opts = annotate_opts,
};

int cmd_annotate(int argc, char **argv)
{
	struct annotate_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "annotate", &a.o.view);
	a.o.view.top = 5;
	a.o.context = 3;
	e = cli_parse(&cli_annotate_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (optind < argc)
		a.o.target = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "ebs annotate: one FUNC or FILE[:LINE], not also '%s'\n",
			argv[optind]);
		goto out;
	}
	a.o.source_dirs = a.srcs;
	cli_view_done(&a.cv, a.o.html != NULL);
	ret = cli_view_result(&a.cv, ebs_annotate(&a.o, &err), &err);
out:
	cli_view_free(&a.cv);
	free(a.srcs);
	return ret;
}
