// SPDX-License-Identifier: MIT
/* cmd-report.c - ebs report: options, then report's ebs_report(). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "data/data.h"
#include "report/report.h"

/* What report's options set: the module's options, the shared ones', --dump. */
struct report_args {
	struct report_opts o;
	struct cli_view cv;
	bool dump;
};

static int set_sort(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct report_args *a = ctx;
	struct ebs_error err = {0};

	(void)opt;
	if (!report_parse_keys(arg, &a->o, &err))
		return 0;
	fprintf(stderr, "ebs report: %s%s\n", err.msg, cli_code_tag(err.code));
	return 2;
}

static int set_fields(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct report_args *a = ctx;
	struct ebs_error err = {0};

	(void)opt;
	if (!report_parse_fields(arg, &a->o, &err))
		return 0;
	fprintf(stderr, "ebs report: %s%s\n", err.msg, cli_code_tag(err.code));
	return 2;
}

static int set_width(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_view_width("report", arg, &((struct report_args *)ctx)->o.view);
}

#define RA(field) CLI_BOOL_AT(struct report_args, field)
#define RS(field) CLI_STR_AT(struct report_args, field)

static const struct cli_opt report_opts[] = {
	{"", 0, NULL, NULL, CLI_INCLUDE, .off = offsetof(struct report_args, cv),
	 .sub = cli_view_options},
	{"sort", 's', "KEY[,KEY...]",
	 "rows keyed by, in column order: func (the default; with its DSO), line (file:line "
	 "with its function), dso, pid, tid, comm, event (one table for all events), host (the "
	 "recording's)",
	 CLI_CALL, .fn = set_sort},
	{"json", 0, NULL, "one JSON object (the first event, or --event's)", CLI_SET,
	 .off = RA(o.json)},
	{"stats", 0, NULL,
	 "per DSO: the share of samples with a function and with a line, and where its debug "
	 "information came from or was looked for",
	 CLI_SET, .off = RA(o.stats)},
	{"children", 0, NULL,
	 "with call chains (ebs record -g): each function's samples and its callees' "
	 "(inclusive), sorted so, and its own (self)",
	 CLI_SET, .off = RA(o.children)},
	{"tree", 0, NULL,
	 "the top-down call tree, each function's samples on its path and its own; pruned at "
	 "--min-percent (default 1 with --tree)",
	 CLI_SET, .off = RA(o.tree)},
	{"callers", 0, "FUNC", "who calls FUNC (the frame outside it on each stack), with shares",
	 CLI_STR, .off = RS(o.callers)},
	{"callees", 0, "FUNC", "what FUNC calls (the frame inside it), with shares", CLI_STR,
	 .off = RS(o.callees)},
	{"width", 0, "N",
	 "fit rows in N columns (default: the terminal's; none in a pipe); 0: no limit, whole "
	 "names",
	 CLI_CALL, .fn = set_width},
	{"fields", 0, "LIST",
	 "the text columns to show, comma-separated: samples, percent, ci (the 95% interval), "
	 "and the table's keys (func, dso, line, pid, tid, comm, event, host)",
	 CLI_CALL, .fn = set_fields},
	{"no-ci", 0, NULL, "no 95% interval column", CLI_SET, .off = RA(o.no_ci)},
	{"dump", 'D', NULL, "print every record of the file, one line each", CLI_SET,
	 .off = RA(dump)},
	{0},
};

const struct cli_cmd cli_report_cmd = {
	.name = "report",
	.usage = "usage: ebs report [-i FILE]... [OPTIONS]\n"
		 "       ebs report [-i FILE]... --dump [--force] [--no-pager]\n",
	.opts = report_opts,
};

int cmd_report(int argc, char **argv)
{
	struct report_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "report", &a.o.view);
	a.o.view.min_percent = -1; /* not given */
	e = cli_parse(&cli_report_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (cli_operands_left("report", argc, argv))
		goto out;
	if (a.o.children + a.o.tree + !!a.o.callers + !!a.o.callees > 1) {
		fprintf(stderr, "ebs report: --children, --tree, --callers and --callees exclude "
				"each other\n");
		goto out;
	}
	if ((a.o.tree || a.o.callers || a.o.callees) && a.o.nr_keys) {
		fprintf(stderr,
			"ebs report: --sort orders the table; --tree, --callers and --callees "
			"order by samples (--top and --min-percent cut them short)\n");
		goto out;
	}
	if ((a.o.callers && !*a.o.callers) || (a.o.callees && !*a.o.callees)) {
		fprintf(stderr, "ebs report: --callers and --callees want a function name\n");
		goto out;
	}
	if (a.o.view.min_percent < 0) /* a whole tree is too much to read */
		a.o.view.min_percent = a.o.tree ? 1 : 0;
	cli_view_done(&a.cv, false);
	if (a.dump) { /* several -i: each file's records, one file after another */
		unsigned int i, n = a.cv.ninputs > 1 ? a.cv.ninputs : 1;

		for (i = 0, e = 0; i < n && !e; i++) {
			a.o.view.input = a.cv.ninputs > 1 ? a.cv.inputs[i] : a.o.view.input;
			e = ebs_data__dump(a.o.view.input, a.o.view.force ? EBS_DATA_ANY_OWNER : 0,
					   a.o.view.out, a.o.view.warn, a.o.view.warn_ctx, &err);
		}
	} else {
		e = a.o.tree || a.o.callers || a.o.callees ? ebs_report_graph(&a.o, &err)
							   : ebs_report(&a.o, &err);
	}
	ret = cli_view_result(&a.cv, e, &err);
out:
	cli_view_free(&a.cv);
	return ret;
}
