// SPDX-License-Identifier: MIT
/* cmd-flamegraph.c - ebs flamegraph: options, then report's ebs_flamegraph(). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs flamegraph [-i FILE] -o OUT.svg [--reverse] [--title T] [--width PX]\n"
	"                      [--event NAME] [--pid PID] [--tid TID] [--comm NAME] [--dso NAME]\n"
	"                      [--func NAMES] [--no-inline] [--debug-dir DIR]... [--no-cache]\n"
	"                      [--force]\n"
	"\n"
	"  -i, --input F      data file, ebs.data or perf.data (default ebs.data; '-' stdin)\n"
	"  -o, --output F     the SVG to write (whole or not at all)\n"
	"      --reverse      an icicle of callers: the sampled functions at the top, callers below\n"
	"      --title T      the title (default: the file and the event)\n"
	"      --width PX     the picture's width in pixels (default 1200)\n"
	"  -e, --event E      the samples of event E (default: the file's first)\n"
	"      --pid P, --tid T, --comm NAME, --dso NAME, --func F   only those samples\n"
	"      --no-inline    inlined functions are not frames of their own\n"
	"      --debug-dir D  look for separate debug files under D too\n"
	"      --no-cache     decode DWARF afresh, without the cache ($XDG_CACHE_HOME/ebs)\n"
	"      --force        read F whoever owns it, in a directory others can write too\n";

int cmd_flamegraph(int argc, char **argv)
{
	enum { OPT_REVERSE = CLI_OPT_CMD, OPT_TITLE, OPT_WIDTH };
	static const struct option longopts[] = {
		CLI_VIEW_OPTIONS,
		{"output", required_argument, NULL, 'o'},
		{"reverse", no_argument, NULL, OPT_REVERSE},
		{"title", required_argument, NULL, OPT_TITLE},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct flamegraph_opts o = {0};
	struct ebs_error err = {0};
	struct cli_view cv;
	int c, e, ret = 2;

	cli_view_init(&cv, "flamegraph", &o.view);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CLI_VIEW_SHORT "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "ebs flamegraph: -o wants a file name\n");
				goto out;
			}
			o.output = optarg;
			break;
		case OPT_REVERSE:
			o.reverse = true;
			break;
		case OPT_TITLE:
			o.title = optarg;
			break;
		case OPT_WIDTH:
			if (cli_u32("flamegraph", "--width", optarg, 200, &o.width))
				goto out;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = 0;
			goto out;
		default:
			e = cli_view_option(&cv, c, optarg, argv);
			if (e) {
				ret = e;
				goto out;
			}
			break;
		}
	}
	if (cli_operands_left("flamegraph", argc, argv))
		goto out;
	if (!o.output) {
		fprintf(stderr, "ebs flamegraph: where to? -o OUT.svg\n");
		goto out;
	}
	cli_view_done(&cv, true);
	ret = cli_view_result(&cv, ebs_flamegraph(&o, &err), &err);
out:
	cli_view_free(&cv);
	return ret;
}
