// SPDX-License-Identifier: MIT
/* cmd-flamegraph.c - ebs flamegraph: options, then report's ebs_flamegraph(). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

struct flamegraph_args {
	struct flamegraph_opts o;
	struct cli_view cv;
};

static int set_width(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_u32("flamegraph", "--width", arg, 200, &((struct flamegraph_args *)ctx)->o.width)
		       ? 2
		       : 0;
}

static const struct cli_opt flamegraph_opts[] = {
	{"output", 'o', "OUT.svg", "the SVG to write (whole or not at all)", CLI_FILE,
	 .off = CLI_STR_AT(struct flamegraph_args, o.output)},
	{"reverse", 0, NULL,
	 "an icicle of callers: the sampled functions at the top, callers below", CLI_SET,
	 .off = CLI_BOOL_AT(struct flamegraph_args, o.reverse)},
	{"title", 0, "TITLE", "the title (default: the file and the event)", CLI_STR,
	 .off = CLI_STR_AT(struct flamegraph_args, o.title)},
	{"width", 0, "PX", "the picture's width in pixels (default 1200)", CLI_CALL,
	 .fn = set_width},
	{"", 0, NULL, "Input options:", CLI_INCLUDE, .off = offsetof(struct flamegraph_args, cv),
	 .sub = cli_view_options,
	 /* taken, as ever, but to no effect here */
	 .hide = "top min-percent color no-pager"},
	{0},
};

const struct cli_cmd cli_flamegraph_cmd = {
	.name = "flamegraph",
	.usage = "usage: ebs flamegraph [-i FILE]... -o OUT.svg [OPTIONS]\n",
	.opts = flamegraph_opts,
};

int cmd_flamegraph(int argc, char **argv)
{
	struct flamegraph_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "flamegraph", &a.o.view);
	e = cli_parse(&cli_flamegraph_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (cli_operands_left("flamegraph", argc, argv))
		goto out;
	if (!a.o.output) {
		fprintf(stderr, "ebs flamegraph: where to? -o OUT.svg\n");
		goto out;
	}
	cli_view_done(&a.cv, true);
	ret = cli_view_result(&a.cv, ebs_flamegraph(&a.o, &err), &err);
out:
	cli_view_free(&a.cv);
	return ret;
}
