// SPDX-License-Identifier: MIT
/* cmd-script.c - ebs script: options, then report's ebs_script(). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs script [-i FILE] [-F FIELDS] [--json] [-G] [--inline] [--ns]\n"
	"                  [--full-source-path] [--event NAME] [--pid PID] [--tid TID]\n"
	"                  [--comm NAME] [--dso NAME] [--func NAMES] [--debug-dir DIR]...\n"
	"                  [--[no-]demangle] [--kallsyms FILE] [--no-cache] [--force] [--no-pager]\n"
	"\n"
	"Every sample, one line each, in time order, as perf script prints them; with call\n"
	"chains (ebs record -g), one more line per frame, leaf first, and an empty line.\n"
	"\n"
	"  -i, --input F      data file (default ebs.data; '-' reads stdin)\n"
	"  -F, --fields LIST  what a line shows, comma-separated (shown in this order): comm,\n"
	"                     pid, tid, cpu, time, period, event, ip, sym, symoff, dso, srcline\n"
	"                     (default: all); or +NAME,-NAME: added to or taken from them\n"
	"      --json         one JSON object per sample and line (JSON Lines): the fields as\n"
	"                     members, the chain as an array \"callchain\"\n"
	"  -G, --hide-call-graph  no chains: each sample's own address on its line\n"
	"      --ns           times to the nanosecond (default: the microsecond, as perf's)\n"
	"      --full-source-path  source files with their directories (default: file names)\n"
	"  -e, --event E      only event E (as asked or as used; default: all)\n"
	"      --pid P, --tid T, --comm NAME, --dso NAME   only those samples\n"
	"      --func F,G     only samples whose function, or one inlined there, is F or G\n"
	"      --inline       in chains, a frame for each function inlined at an address,\n"
	"                     marked (inlined), before the one compiled there (--no-inline:\n"
	"                     the function compiled there only, as perf script's default)\n"
	"      --debug-dir D  look for separate debug files under D too (before /usr/lib/debug)\n"
	"      --demangle     C++, Rust names demangled (the default); --no-demangle: as in the files\n"
	"      --kallsyms F   kernel symbols from F instead of /proc/kallsyms\n"
	"      --no-cache     decode DWARF afresh, without the cache ($XDG_CACHE_HOME/ebs)\n"
	"      --force        read F whoever owns it, in a directory others can write too\n"
	"      --no-pager     on a terminal too, no pager ($EBS_PAGER, $PAGER or less)\n";

int cmd_script(int argc, char **argv)
{
	enum { OPT_JSON = CLI_OPT_CMD, OPT_NS, OPT_FULL_PATH, OPT_INLINE };
	static const struct option longopts[] = {
		CLI_VIEW_OPTIONS,
		{"fields", required_argument, NULL, 'F'},
		{"json", no_argument, NULL, OPT_JSON},
		{"hide-call-graph", no_argument, NULL, 'G'},
		{"ns", no_argument, NULL, OPT_NS},
		{"full-source-path", no_argument, NULL, OPT_FULL_PATH},
		{"inline", no_argument, NULL, OPT_INLINE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct script_opts o = {0};
	struct ebs_error err = {0};
	struct cli_view cv;
	int c, e, ret = 2;

	cli_view_init(&cv, "script", &o.view);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CLI_VIEW_SHORT "F:Gh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (script_parse_fields(optarg, &o.fields, &err)) {
				fprintf(stderr, "ebs script: %s%s\n", err.msg,
					cli_code_tag(err.code));
				goto out;
			}
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case 'G':
			o.hide_chain = true;
			break;
		case OPT_NS:
			o.ns = true;
			break;
		case OPT_FULL_PATH:
			o.full_source_path = true;
			break;
		case OPT_INLINE:
		case CLI_OPT_NO_INLINE: /* the default; the last of the two wins */
			o.inline_frames = c == OPT_INLINE;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = 0;
			goto out;
		case 'n':
		case CLI_OPT_MIN:
			fprintf(stderr,
				"ebs script: %s is ebs report's: ebs script prints every "
				"sample\n",
				c == 'n' ? "--top" : "--min-percent");
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
	if (cli_operands_left("script", argc, argv))
		goto out;
	cli_view_done(&cv, false);
	e = ebs_script(&o, &err);
	if (e == -EPIPE) {
		/* ebs script | head: quietly, as the SIGPIPE this process ignored would have */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
		ret = 128 + SIGPIPE;
		goto out;
	}
	ret = cli_view_result(&cv, e, &err);
out:
	cli_view_free(&cv);
	return ret;
}
