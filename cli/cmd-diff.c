// SPDX-License-Identifier: MIT
/* cmd-diff.c - ebs diff: options, then report's ebs_diff(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs diff BASE NEW [--sort func|line|dso] [--alpha A] [--json]\n"
	"                [--significant] [--event NAME] [--top N] [--min-percent P]\n"
	"                [--pid PID] [--tid TID] [--comm NAME] [--dso NAME]\n"
	"                [--func NAMES] [--no-inline] [--color=auto|always|never]\n"
	"                [--width N] [--debug-dir DIR]... [--[no-]demangle]\n"
	"                [--kallsyms FILE] [--no-cache] [--force] [--no-pager]\n"
	"\n"
	"Each row's share of the samples in BASE and in NEW (two data files; '-'\n"
	"reads one of them from stdin), the difference in points with its 95%\n"
	"interval (Newcombe's), and whether it is significant: a pooled\n"
	"two-proportion z-test per row, Holm-corrected over all the rows compared.\n"
	"Significant changes first, the largest first; on a terminal the others\n"
	"are grey.\n"
	"\n"
	"  -s, --sort KEY     rows by func (default; with its DSO), line (file:line)\n"
	"                     or dso\n"
	"      --alpha A      the family-wise error rate of the tests, above 0 and\n"
	"                     below 1 (default 0.05)\n"
	"      --significant  only the rows whose change is significant\n"
	"      --json         one JSON object\n"
	"  -e, --event E      event E of both files (default: each file's first)\n"
	"  -n, --top N        the first N rows (default 0: all)\n"
	"      --min-percent P  leave out rows below P percent in both files (still\n"
	"                     compared)\n"
	"      --pid, --tid, --comm, --dso   only those samples, in both files\n"
	"      --func F,G     only samples whose function, or one inlined there, is F\n"
	"                     or G\n"
	"      --no-inline    inlined code counts for the function it was inlined into\n"
	"      --color WHEN   auto (on a terminal, the default), always, never\n"
	"      --width N      fit rows in N columns (default: the terminal's); 0: whole names\n"
	"      --debug-dir D  look for separate debug files under D too\n"
	"      --demangle     C++, Rust names demangled (the default); --no-demangle: not\n"
	"      --kallsyms F   kernel symbols from F instead of /proc/kallsyms\n"
	"      --no-cache     decode DWARF afresh, neither reading nor writing its cache\n"
	"      --force        read BASE and NEW whoever owns them, in a directory others\n"
	"                     can write too\n"
	"      --no-pager     on a terminal too, no pager ($EBS_PAGER, $PAGER or less)\n"
	"(docs/ebs-diff.1 states the statistics)\n";

/* --sort: one key, func, line or dso (or their aliases). */
static int parse_key(const char *s, enum report_key *key)
{
	struct report_opts o = {0};
	struct ebs_error err = {0};

	if (!report_parse_keys(s, &o, &err) && o.nr_keys == 1 &&
	    (o.keys[0] == KEY_FUNC || o.keys[0] == KEY_LINE || o.keys[0] == KEY_DSO)) {
		*key = o.keys[0];
		return 0;
	}
	fprintf(stderr, "ebs diff: --sort '%s': one of func, line or dso\n", s);
	return -EINVAL;
}

static int parse_alpha(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0 && v < 1)) {
		fprintf(stderr, "ebs diff: --alpha wants a number above 0 and below 1, not '%s'\n",
			s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	enum { OPT_JSON = CLI_OPT_CMD, OPT_ALPHA, OPT_SIGNIFICANT, OPT_WIDTH };
	static const struct option longopts[] = {
		CLI_VIEW_OPTIONS,
		{"sort", required_argument, NULL, 's'},
		{"alpha", required_argument, NULL, OPT_ALPHA},
		{"json", no_argument, NULL, OPT_JSON},
		{"significant", no_argument, NULL, OPT_SIGNIFICANT},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct diff_opts o = {0};
	struct ebs_error err = {0};
	struct cli_view cv;
	unsigned int u;
	int c, e, ret = 2;

	cli_view_init(&cv, "diff", &o.view);
	o.key = KEY_FUNC;
	o.alpha = 0.05;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CLI_VIEW_SHORT "s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_key(optarg, &o.key))
				goto out;
			break;
		case OPT_ALPHA:
			if (parse_alpha(optarg, &o.alpha))
				goto out;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_SIGNIFICANT:
			o.significant = true;
			break;
		case OPT_WIDTH:
			/* 0: no limit, whole names (in a terminal too) */
			if (strcmp(optarg, "0") && cli_u32("diff", "--width", optarg, 20, &u))
				goto out;
			o.view.width = strcmp(optarg, "0") ? (int)u : -1;
			break;
		case 'i':
			fprintf(stderr, "ebs diff: the files are BASE and NEW, without -i\n");
			goto out;
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
	if (argc - optind != 2) {
		if (argc - optind < 2)
			fprintf(stderr, "ebs diff: two data files wanted, BASE and NEW (see 'ebs "
					"diff --help')\n");
		else
			fprintf(stderr, "ebs diff: unexpected argument '%s' after BASE and NEW\n",
				argv[optind + 2]);
		goto out;
	}
	o.base = argv[optind];
	o.new_ = argv[optind + 1];
	if (!strcmp(o.base, "-") && !strcmp(o.new_, "-")) {
		fprintf(stderr,
			"ebs diff: one of BASE and NEW can be '-' (standard input), not both\n");
		goto out;
	}
	cli_view_done(&cv, false);
	e = ebs_diff(&o, &err);
	/* the hint to record names the file that is missing */
	o.view.input = strcmp(o.base, "-") && access(o.base, F_OK) ? o.base : o.new_;
	ret = cli_view_result(&cv, e, &err);
out:
	cli_view_free(&cv);
	return ret;
}
