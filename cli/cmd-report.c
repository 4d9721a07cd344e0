// SPDX-License-Identifier: MIT
/* cmd-report.c - ebs report: options, then report's ebs_report(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "data/ebsdata.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs report [-i FILE] [--sort KEYS] [--event NAME] [--pid PID] [--tid TID]\n"
	"                  [--comm NAME] [--dso NAME] [--func NAMES] [--top N]\n"
	"                  [--min-percent P] [--json] [--stats] [--no-inline]\n"
	"                  [--children | --tree | --callers FUNC | --callees FUNC]\n"
	"                  [--color=auto|always|never] [--width N] [--fields LIST] [--no-ci]\n"
	"                  [--debug-dir DIR]...\n"
	"                  [--[no-]demangle] [--kallsyms FILE] [--no-cache] [--force] [--dump]\n"
	"                  [--no-pager]\n"
	"\n"
	"  -i, --input F      data file, ebs.data or perf.data (default ebs.data; '-' stdin)\n"
	"  -s, --sort KEYS    rows keyed by, comma-separated, in column order: func (default;\n"
	"                     with its DSO), line (file:line with its function), dso, pid,\n"
	"                     tid, comm, event (one table for all events)\n"
	"  -e, --event E      only event E (as asked or as used)\n"
	"      --pid P, --tid T, --comm NAME, --dso NAME   only those samples\n"
	"      --func F,G     only samples whose function, or one inlined there, is F or G;\n"
	"                     percentages are then shares of their samples\n"
	"  -n, --top N        the N hottest rows per table (default 0: all)\n"
	"      --min-percent P  leave out rows below P percent\n"
	"      --json         one JSON object (the first event, or --event's)\n"
	"      --stats        per DSO: the share of samples with a function and with a line,\n"
	"                     and where its debug information came from or was looked for\n"
	"      --children     with call chains (ebs record -g): each function's samples\n"
	"                     and its callees' (inclusive), sorted so, and its own (self)\n"
	"      --tree         the top-down call tree, each function's samples on its path\n"
	"                     and its own; pruned at --min-percent (default 1 with --tree)\n"
	"      --callers F    who calls F (the frame outside F on each stack), with shares\n"
	"      --callees F    what F calls (the frame inside it), with shares\n"
	"      --no-inline    inlined code counts for the function it was inlined into, at\n"
	"                     the call site (default: for the inlined function, at its line)\n"
	"      --color WHEN   auto (on a terminal, the default), always, never\n"
	"      --width N      fit rows in N columns (default: the terminal's; none in a pipe);\n"
	"                     0: no limit, whole names\n"
	"      --fields LIST  the text columns to show, comma-separated: samples, percent,\n"
	"                     ci (the 95% interval), and the table's keys (func, dso, line...)\n"
	"      --no-ci        no 95% interval column\n"
	"      --debug-dir D  look for separate debug files under D too (before /usr/lib/debug)\n"
	"      --demangle     C++, Rust names demangled (the default); --no-demangle: as in the files\n"
	"      --kallsyms F   kernel symbols from F instead of /proc/kallsyms\n"
	"      --no-cache     decode DWARF afresh, neither reading nor writing the cache of\n"
	"                     decoded DWARF ($XDG_CACHE_HOME/ebs, ~/.cache/ebs; its size: EBS_CACHE_MAX,\n"
	"                     default 512M)\n"
	"      --force        read F whoever owns it, in a directory others can write too\n"
	"  -D, --dump         print every record of the file, one line each\n"
	"      --no-pager     on a terminal too, no pager ($EBS_PAGER, $PAGER or less)\n";

int cmd_report(int argc, char **argv)
{
	enum {
		OPT_JSON = CLI_OPT_CMD,
		OPT_STATS,
		OPT_WIDTH,
		OPT_FIELDS,
		OPT_NO_CI,
		OPT_CHILDREN,
		OPT_TREE,
		OPT_CALLERS,
		OPT_CALLEES
	};
	static const struct option longopts[] = {
		CLI_VIEW_OPTIONS,
		{"sort", required_argument, NULL, 's'},
		{"json", no_argument, NULL, OPT_JSON},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"fields", required_argument, NULL, OPT_FIELDS},
		{"no-ci", no_argument, NULL, OPT_NO_CI},
		{"stats", no_argument, NULL, OPT_STATS},
		{"children", no_argument, NULL, OPT_CHILDREN},
		{"tree", no_argument, NULL, OPT_TREE},
		{"callers", required_argument, NULL, OPT_CALLERS},
		{"callees", required_argument, NULL, OPT_CALLEES},
		{"dump", no_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct report_opts o = {0};
	struct ebs_error err = {0};
	struct cli_view cv;
	unsigned int u;
	bool dump = false;
	int c, e, ret = 2;

	cli_view_init(&cv, "report", &o.view);
	o.view.min_percent = -1; /* not given */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CLI_VIEW_SHORT "s:Dh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (report_parse_keys(optarg, &o, &err)) {
				fprintf(stderr, "ebs report: %s\n", err.msg);
				goto out;
			}
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_FIELDS:
			if (report_parse_fields(optarg, &o, &err)) {
				fprintf(stderr, "ebs report: %s\n", err.msg);
				goto out;
			}
			break;
		case OPT_NO_CI:
			o.no_ci = true;
			break;
		case OPT_WIDTH:
			/* 0: no limit, whole names (in a terminal too) */
			if (strcmp(optarg, "0") && cli_u32("report", "--width", optarg, 20, &u))
				goto out;
			o.view.width = strcmp(optarg, "0") ? (int)u : -1;
			break;
		case OPT_STATS:
			o.stats = true;
			break;
		case OPT_CHILDREN:
			o.children = true;
			break;
		case OPT_TREE:
			o.tree = true;
			break;
		case OPT_CALLERS:
			o.callers = optarg;
			break;
		case OPT_CALLEES:
			o.callees = optarg;
			break;
		case 'D':
			dump = true;
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
	if (cli_operands_left("report", argc, argv))
		goto out;
	if (o.children + o.tree + !!o.callers + !!o.callees > 1) {
		fprintf(stderr, "ebs report: --children, --tree, --callers and --callees exclude "
				"each other\n");
		goto out;
	}
	if ((o.tree || o.callers || o.callees) && o.nr_keys) {
		fprintf(stderr,
			"ebs report: --sort orders the table; --tree, --callers and --callees "
			"order by samples (--top and --min-percent cut them short)\n");
		goto out;
	}
	if ((o.callers && !*o.callers) || (o.callees && !*o.callees)) {
		fprintf(stderr, "ebs report: --callers and --callees want a function name\n");
		goto out;
	}
	if (o.view.min_percent < 0) /* a whole tree is too much to read */
		o.view.min_percent = o.tree ? 1 : 0;
	cli_view_done(&cv, false);
	e = dump ? ebs_data_dump(o.view.input, o.view.force ? EBS_DATA_ANY_OWNER : 0, o.view.out,
				 o.view.warn, &err)
	    : o.tree || o.callers || o.callees ? ebs_report_graph(&o, &err)
					       : ebs_report(&o, &err);
	ret = cli_view_result(&cv, e, &err);
out:
	cli_view_free(&cv);
	return ret;
}
