// SPDX-License-Identifier: MIT
/* cmd-diff.c - ebs diff: options, then report's ebs_diff(). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "report/report.h"

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

struct diff_args {
	struct diff_opts o;
	struct cli_view cv;
};

static int set_key(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return parse_key(arg, &((struct diff_args *)ctx)->o.key) ? 2 : 0;
}

static int set_alpha(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return parse_alpha(arg, &((struct diff_args *)ctx)->o.alpha) ? 2 : 0;
}

static int set_width(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_view_width("diff", arg, &((struct diff_args *)ctx)->o.view);
}

static int no_input(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)ctx, (void)opt, (void)arg;
	fprintf(stderr, "ebs diff: the files are BASE and NEW, without -i\n");
	return 2;
}

static const struct cli_opt diff_opts[] = {
	{"sort", 's', "func|line|dso",
	 "rows by func (default; with its DSO), line (file:line) or dso", CLI_CALL, .fn = set_key},
	{"alpha", 0, "A",
	 "the family-wise error rate of the tests, above 0 and below 1 (default 0.05)", CLI_CALL,
	 .fn = set_alpha},
	{"significant", 0, NULL, "only the rows whose change is significant", CLI_SET,
	 .off = CLI_BOOL_AT(struct diff_args, o.significant)},
	{"json", 0, NULL, "one JSON object", CLI_SET, .off = CLI_BOOL_AT(struct diff_args, o.json)},
	{"width", 0, "N", "fit rows in N columns (default: the terminal's); 0: whole names",
	 CLI_CALL, .fn = set_width},
	{"input", 'i', "FILE", "(the files are BASE and NEW)", CLI_CALL, CLI_HIDDEN,
	 .fn = no_input},
	{"", 0, NULL, "Input options, of both files:", CLI_INCLUDE,
	 .off = offsetof(struct diff_args, cv), .sub = cli_view_options},
	{0},
};

const struct cli_cmd cli_diff_cmd = {
	.name = "diff",
	.usage = "usage: ebs diff [OPTIONS] BASE NEW\n",
	.about = "Each row's share of the samples in BASE and in NEW (two data files; '-'\n"
		 "reads one of them from stdin), the difference in points with its 95%\n"
		 "interval (Newcombe's), and whether it is significant: a pooled\n"
		 "two-proportion z-test per row, Holm-corrected over all the rows compared.\n"
		 "Significant changes first, the largest first; on a terminal the others\n"
		 "are grey.\n",
	.notes = "(ebs-diff(1) states the statistics)\n",
	.opts = diff_opts,
};

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = {0};
	struct ebs_error err = {0};
	int e, ret = 2;

	cli_view_init(&a.cv, "diff", &a.o.view);
	a.o.key = KEY_FUNC;
	a.o.alpha = 0.05;
	e = cli_parse(&cli_diff_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
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
	a.o.base = argv[optind];
	a.o.new_ = argv[optind + 1];
	if (!strcmp(a.o.base, "-") && !strcmp(a.o.new_, "-")) {
		fprintf(stderr,
			"ebs diff: one of BASE and NEW can be '-' (standard input), not both\n");
		goto out;
	}
	cli_view_done(&a.cv, false);
	e = ebs_diff(&a.o, &err);
	/* the hint to record names the file that is missing */
	a.o.view.input = strcmp(a.o.base, "-") && access(a.o.base, F_OK) ? a.o.base : a.o.new_;
	ret = cli_view_result(&a.cv, e, &err);
out:
	cli_view_free(&a.cv);
	return ret;
}
