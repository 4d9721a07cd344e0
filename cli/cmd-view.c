// SPDX-License-Identifier: MIT
/* cmd-view.c - ebs view: options, then report's ebs_view() (report/view/). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

struct view_args {
	struct view_page_opts o;
	struct cli_view cv;
};

static const struct cli_opt view_page_opts[] = {
	{"output", 'o', "FILE",
	 "the page to write (default ebs.html; '-': standard output), whole or not at all",
	 CLI_FILE, .off = CLI_STR_AT(struct view_args, o.output)},
	{"", 0, NULL, "Input options:", CLI_INCLUDE, .off = offsetof(struct view_args, cv),
	 .sub = cli_view_options,
	 /* taken, as ever, but to no effect here: the page shows everything */
	 .hide = "top min-percent color no-pager"},
	{0},
};

const struct cli_cmd cli_view_cmd = {
	.name = "view",
	.usage = "usage: ebs view [-i FILE]... [OPTIONS] [-o FILE]\n",
	.about = "One self-contained HTML page to explore a recording: a timeline to select\n"
		 "time and threads, and summary, bottom-up, top-down, callers/callees, flame\n"
		 "graph and source views of the selected samples.\n",
	.notes = "Two -i: the views show both recordings as one, and the Diff view compares\n"
		 "them as 'ebs diff A B' does (the first is the base, the second the new).\n"
		 "More than two: shown as one, without a diff.\n",
	.opts = view_page_opts,
};

int cmd_view(int argc, char **argv)
{
	struct view_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "view", &a.o.view);
	e = cli_parse(&cli_view_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (cli_operands_left("view", argc, argv))
		goto out;
	cli_view_done(&a.cv, true);
	e = ebs_view(&a.o, &err);
	if (e == -ENODATA) { /* nothing to show: no page, as report says it */
		fprintf(stderr, "ebs view: %s%s\n", err.msg, cli_code_tag(err.code));
		ret = 1;
	} else {
		ret = cli_view_result(&a.cv, e, &err);
	}
out:
	cli_view_free(&a.cv);
	return ret;
}
