// SPDX-License-Identifier: MIT
/* cmd-annotate.c - ebs annotate: options, then report's ebs_annotate(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs annotate [-i FILE] [FUNC | FILE[:LINE]] [--asm] [--skid-adjust]\n"
	"                    [--context N] [--top N] [--min-percent P] [--html OUT.html]\n"
	"                    [--source-dir DIR|OLD=NEW]... [--event NAME] [--pid PID]\n"
	"                    [--tid TID] [--comm NAME] [--dso NAME] [--func NAMES]\n"
	"                    [--no-inline] [--color=auto|always|never] [--debug-dir DIR]...\n"
	"                    [--kallsyms FILE] [--kcore FILE]\n"
	"                    [--[no-]demangle] [--no-cache] [--force] [--no-pager]\n"
	"\n"
	"  FUNC             the function's whole source, each line with its samples (a\n"
	"                   function that was only inlined: its lines wherever inlined)\n"
	"  FILE[:LINE]      every sampled line of a source file (around LINE)\n"
	"  (nothing)        the hottest functions, their hot lines with context\n"
	"  -i, --input F    data file, ebs.data or perf.data (default ebs.data; '-' stdin)\n"
	"      --asm        the instructions under their source lines, samples each\n"
	"      --skid-adjust  count each sample for the instruction before its IP\n"
	"  -C, --context N  lines around hot lines (default 3)\n"
	"  -n, --top N      with no FUNC: how many functions (default 5; 0: all)\n"
	"      --min-percent P  with no FUNC: leave out functions below P percent\n"
	"      --html F     write one self-contained HTML page to F instead\n"
	"      --source-dir D  where sources are: DIR (tried under it and by file name) or\n"
	"                   OLD=NEW (a path prefix replaced); may be repeated\n"
	"  -e, --event E    annotate event E (default: the file's first)\n"
	"      --pid, --tid, --comm, --dso, --func   only those samples (as for ebs report)\n"
	"      --no-inline  inlined code counts at its call site in the function\n"
	"      --color WHEN auto (on a terminal), always, never\n"
	"      --debug-dir D  look for separate debug files under D too\n"
	"      --kallsyms F kernel symbols from F instead of /proc/kallsyms\n"
	"      --kcore F    kernel functions' instructions from F (an ELF core of the\n"
	"                   kernel's memory) instead of /proc/kcore\n"
	"      --demangle   C++, Rust names demangled (the default); --no-demangle: as in the files\n"
	"      --no-cache   decode DWARF afresh, without the cache ($XDG_CACHE_HOME/ebs)\n"
	"      --force      read the data file whoever owns it, in a directory others can\n"
	"                   write too\n"
	"      --no-pager   on a terminal too, no pager ($EBS_PAGER, $PAGER or less)\n";

int cmd_annotate(int argc, char **argv)
{
	enum { OPT_ASM = CLI_OPT_CMD, OPT_SKID, OPT_HTML, OPT_SRCDIR, OPT_KCORE };
	static const struct option longopts[] = {
		CLI_VIEW_OPTIONS,
		{"asm", no_argument, NULL, OPT_ASM},
		{"skid-adjust", no_argument, NULL, OPT_SKID},
		{"context", required_argument, NULL, 'C'},
		{"html", required_argument, NULL, OPT_HTML},
		{"source-dir", required_argument, NULL, OPT_SRCDIR},
		{"kcore", required_argument, NULL, OPT_KCORE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct annotate_opts o = {0};
	struct ebs_error err = {0};
	struct cli_view cv;
	const char **srcs = NULL;
	unsigned int nsrcs = 0;
	int c, e, ret = 2;

	cli_view_init(&cv, "annotate", &o.view);
	o.view.top = 5;
	o.context = 3;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CLI_VIEW_SHORT "C:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ASM:
			o.asm_ = true;
			break;
		case OPT_SKID:
			o.skid_adjust = true;
			break;
		case 'C':
			if (cli_u32("annotate", "--context", optarg, 0, &o.context))
				goto out;
			break;
		case OPT_HTML:
			o.html = optarg;
			break;
		case OPT_SRCDIR:
			if (cli_push_str(&srcs, &nsrcs, optarg)) {
				fprintf(stderr, "ebs annotate: out of memory\n");
				ret = 1;
				goto out;
			}
			break;
		case OPT_KCORE:
			o.kcore = optarg;
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
	if (optind < argc)
		o.target = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "ebs annotate: one FUNC or FILE[:LINE], not also '%s'\n",
			argv[optind]);
		goto out;
	}
	o.source_dirs = srcs;
	cli_view_done(&cv, o.html != NULL);
	ret = cli_view_result(&cv, ebs_annotate(&o, &err), &err);
out:
	cli_view_free(&cv);
	free(srcs);
	return ret;
}
