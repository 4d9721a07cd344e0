// SPDX-License-Identifier: MIT
/* cmd-export.c - ebs export: options, then report's ebs_export(). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

/* in enum export_format's order */
static const char *const format_words[] = {"folded", "pprof", "speedscope", NULL};

struct export_args {
	struct export_opts o;
	struct cli_view cv;
	bool have_format;
};

static int set_format(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct export_args *a = ctx;
	unsigned int u;

	(void)opt;
	if (cli_choice("export", "--format", arg, format_words, &u))
		return 2;
	a->o.format = (enum export_format)u;
	a->have_format = true;
	return 0;
}

static const struct cli_opt export_opts[] = {
	{"format", 'f', "FORMAT",
	 "folded: 'a;b;c COUNT' per distinct stack, root first (FlameGraph, inferno, "
	 "speedscope read it); pprof: profile.proto, gzipped (go tool pprof, pprof); "
	 "speedscope: speedscope's JSON, stacks weighed by their periods (nanoseconds for the "
	 "clock events)",
	 CLI_CALL, .fn = set_format},
	{"output", 'o', "OUT",
	 "write OUT (whole or not at all); default: standard output (pprof wants a file)", CLI_FILE,
	 .off = CLI_STR_AT(struct export_args, o.output)},
	{"", 0, NULL, "Input options:", CLI_INCLUDE, .off = offsetof(struct export_args, cv),
	 .sub = cli_view_options,
	 /* taken, as ever, but to no effect here */
	 .hide = "top min-percent color no-pager"},
	{0},
};

const struct cli_cmd cli_export_cmd = {
	.name = "export",
	.usage =
		"usage: ebs export [-i FILE]... --format folded|pprof|speedscope [-o OUT] [OPTIONS]\n",
	.notes = "A file recorded without -g exports one-frame stacks.\n",
	.opts = export_opts,
};

int cmd_export(int argc, char **argv)
{
	struct export_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "export", &a.o.view);
	e = cli_parse(&cli_export_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (cli_operands_left("export", argc, argv))
		goto out;
	if (!a.have_format) {
		fprintf(stderr, "ebs export: which format? --format folded, pprof or speedscope\n");
		goto out;
	}
	if (a.o.format == EXPORT_PPROF && (!a.o.output || !strcmp(a.o.output, "-"))) {
		fprintf(stderr, "ebs export: --format pprof writes a file: give -o FILE.pb.gz\n");
		goto out;
	}
	/* the export is data: never through a pager */
	cli_view_done(&a.cv, true);
	ret = cli_view_result(&a.cv, ebs_export(&a.o, &err), &err);
out:
	cli_view_free(&a.cv);
	return ret;
}
