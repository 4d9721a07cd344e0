// SPDX-License-Identifier: MIT
/* cmd-export.c - ebs export: options, then report's ebs_export(). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs export [-i FILE] --format folded|pprof|speedscope [-o OUT] [--event NAME]\n"
	"                  [--pid PID] [--tid TID] [--comm NAME] [--dso NAME] [--func NAMES]\n"
	"                  [--no-inline] [--debug-dir DIR]... [--[no-]demangle] [--kallsyms FILE]\n"
	"                  [--no-cache] [--force]\n"
	"\n"
	"  -i, --input F      data file, ebs.data or perf.data (default ebs.data; '-' stdin)\n"
	"  -f, --format F     folded: 'a;b;c COUNT' per distinct stack, root first (FlameGraph,\n"
	"                     inferno, speedscope read it); pprof: profile.proto, gzipped\n"
	"                     (go tool pprof, pprof); speedscope: speedscope's JSON, stacks\n"
	"                     weighed by their periods (nanoseconds for the clock events)\n"
	"  -o, --output F     write F (whole or not at all); default: standard output\n"
	"                     (pprof wants a file)\n"
	"  -e, --event E      the samples of event E (default: the file's first)\n"
	"      --pid P, --tid T, --comm NAME, --dso NAME, --func F   only those samples\n"
	"      --no-inline    inlined functions are not frames of their own\n"
	"      --debug-dir D  look for separate debug files under D too\n"
	"      --demangle     C++, Rust names demangled (the default); --no-demangle\n"
	"      --kallsyms F   kernel symbols from F instead of /proc/kallsyms\n"
	"      --no-cache     decode DWARF afresh, without the cache ($XDG_CACHE_HOME/ebs)\n"
	"      --force        read F whoever owns it, in a directory others can write too\n"
	"A file recorded without -g exports one-frame stacks.\n";

/* in enum export_format's order */
static const char *const format_words[] = {"folded", "pprof", "speedscope", NULL};

int cmd_export(int argc, char **argv)
{
	enum { OPT_FORMAT = CLI_OPT_CMD };
	static const struct option longopts[] = {
		CLI_VIEW_OPTIONS,
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct export_opts o = {0};
	struct ebs_error err = {0};
	struct cli_view cv;
	bool have_format = false;
	unsigned int u;
	int c, e, ret = 2;

	cli_view_init(&cv, "export", &o.view);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CLI_VIEW_SHORT "f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (cli_choice("export", "--format", optarg, format_words, &u))
				goto out;
			o.format = (enum export_format)u;
			have_format = true;
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "ebs export: -o wants a file name\n");
				goto out;
			}
			o.output = optarg;
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
	if (cli_operands_left("export", argc, argv))
		goto out;
	if (!have_format) {
		fprintf(stderr, "ebs export: which format? --format folded, pprof or speedscope\n");
		goto out;
	}
	if (o.format == EXPORT_PPROF && (!o.output || !strcmp(o.output, "-"))) {
		fprintf(stderr, "ebs export: --format pprof writes a file: give -o FILE.pb.gz\n");
		goto out;
	}
	/* the export is data: never through a pager */
	cli_view_done(&cv, true);
	ret = cli_view_result(&cv, ebs_export(&o, &err), &err);
out:
	cli_view_free(&cv);
	return ret;
}
