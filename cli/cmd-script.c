// SPDX-License-Identifier: MIT
/* cmd-script.c - ebs script: options, then report's ebs_script(). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

struct script_args {
	struct script_opts o;
	struct cli_view cv;
};

static int set_fields(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct ebs_error err = {0};

	(void)opt;
	if (!script_parse_fields(arg, &((struct script_args *)ctx)->o.fields, &err))
		return 0;
	fprintf(stderr, "ebs script: %s%s\n", err.msg, cli_code_tag(err.code));
	return 2;
}

/* --top and --min-percent, report's: refused */
static int not_here(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)ctx, (void)arg;
	fprintf(stderr, "ebs script: --%s is ebs report's: ebs script prints every sample\n",
		opt->name);
	return 2;
}

#define SA(field) CLI_BOOL_AT(struct script_args, field)

static const struct cli_opt script_opts[] = {
	{"fields", 'F', "LIST",
	 "what a line shows, comma-separated (shown in this order): comm, pid, tid, cpu, time, "
	 "period, event, ip, sym, symoff, dso, srcline (default: all); or +NAME,-NAME: added to "
	 "or taken from them",
	 CLI_CALL, .fn = set_fields},
	{"json", 0, NULL,
	 "one JSON object per sample and line (JSON Lines): the fields as members, the chain as "
	 "an array \"callchain\"",
	 CLI_SET, .off = SA(o.json)},
	{"hide-call-graph", 'G', NULL, "no chains: each sample's own address on its line", CLI_SET,
	 .off = SA(o.hide_chain)},
	{"ns", 0, NULL, "times to the nanosecond (default: the microsecond, as perf's)", CLI_SET,
	 .off = SA(o.ns)},
	{"full-source-path", 0, NULL, "source files with their directories (default: file names)",
	 CLI_SET, .off = SA(o.full_source_path)},
	/* the last of the two wins */
	{"inline", 0, NULL,
	 "in chains, a frame for each function inlined at an address, marked (inlined), before "
	 "the one compiled there",
	 CLI_SET, .off = SA(o.inline_frames)},
	{"no-inline", 0, NULL, "the function compiled there only (the default, as perf script's)",
	 CLI_CLEAR, .off = SA(o.inline_frames)},
	{"top", 'n', "N", "(report's)", CLI_CALL, CLI_HIDDEN, .fn = not_here},
	{"min-percent", 0, "P", "(report's)", CLI_CALL, CLI_HIDDEN, .fn = not_here},
	{"", 0, NULL, "Input options:", CLI_INCLUDE, .off = offsetof(struct script_args, cv),
	 .sub = cli_view_options,
	 /* taken, as ever, but to no effect here */
	 .hide = "color"},
	{0},
};

const struct cli_cmd cli_script_cmd = {
	.name = "script",
	.usage = "usage: ebs script [-i FILE]... [OPTIONS]\n",
	.about = "Every sample, one line each, in time order, as perf script prints them; with\n"
		 "call chains (ebs record -g), one more line per frame, leaf first, and an empty\n"
		 "line.\n",
	.opts = script_opts,
};

int cmd_script(int argc, char **argv)
{
	struct script_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "script", &a.o.view);
	e = cli_parse(&cli_script_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (cli_operands_left("script", argc, argv))
		goto out;
	cli_view_done(&a.cv, false);
	/* several -i: each recording's samples, one recording after another */
	for (unsigned int i = 0; i < (a.cv.ninputs > 1 ? a.cv.ninputs : 1); i++) {
		if (a.cv.ninputs > 1) {
			a.o.view.input = a.cv.inputs[i];
			a.o.recording = a.cv.inputs[i];
		}
		e = ebs_script(&a.o, &err);
		if (e)
			break;
	}
	if (e == -EPIPE) {
		/* ebs script | head: quietly, as the SIGPIPE this process ignored would have */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
		ret = 128 + SIGPIPE;
		goto out;
	}
	ret = cli_view_result(&a.cv, e, &err);
out:
	cli_view_free(&a.cv);
	return ret;
}
