// SPDX-License-Identifier: MIT
/* cmd-report.c - ebs report: options, then report's ebs_report(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

static const char usage_text[] =
	"usage: ebs report [-i FILE] [--sort func|line|dso] [--top N] [--json] [--event NAME]\n"
	"                  [--stats] [--debug-dir DIR]... [--[no-]demangle] [--kallsyms FILE] [--dump]\n"
	"\n"
	"  -i, --input F    data file (default ebs.data; '-' reads stdin)\n"
	"  -s, --sort K     rows by function (func, default), by source line (line: file:line\n"
	"                   with its function), or by DSO (dso)\n"
	"  -n, --top N      print the N hottest rows per event (default 0: all)\n"
	"      --json       one JSON object (the first event, or --event's)\n"
	"  -e, --event E    only event E (as asked or as used)\n"
	"      --stats      per DSO: the share of samples with a function and with a line,\n"
	"                   and where its debug information came from or was looked for\n"
	"      --debug-dir D  look for separate debug files under D too (before /usr/lib/debug)\n"
	"      --demangle     C++ names demangled (the default); --no-demangle: as in the files\n"
	"      --kallsyms F kernel symbols from F instead of /proc/kallsyms\n"
	"  -D, --dump       print every record of the file, one line each\n";

int cmd_report(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_KALLSYMS, OPT_STATS, OPT_DEBUG_DIR, OPT_NO_DEMANGLE, OPT_DEMANGLE };
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'},
		{"sort", required_argument, NULL, 's'},
		{"top", required_argument, NULL, 'n'},
		{"json", no_argument, NULL, OPT_JSON},
		{"event", required_argument, NULL, 'e'},
		{"kallsyms", required_argument, NULL, OPT_KALLSYMS},
		{"stats", no_argument, NULL, OPT_STATS},
		{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
		{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
		{"demangle", no_argument, NULL, OPT_DEMANGLE},
		{"dump", no_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct report_opts o = {0};
	struct ebs_error err = {0};
	const char **dirs = NULL;
	unsigned int ndirs = 0;
	bool dump = false;
	int c, e, ret = 2;
	char *end;
	long v;

	o.input = "ebs.data";
	o.sort = SORT_FUNC;
	o.out = stdout;
	o.warn = stderr;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:s:n:e:Dh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 's':
			if (!strcmp(optarg, "func") || !strcmp(optarg, "function")) {
				o.sort = SORT_FUNC;
			} else if (!strcmp(optarg, "dso")) {
				o.sort = SORT_DSO;
			} else if (!strcmp(optarg, "line") || !strcmp(optarg, "srcline")) {
				o.sort = SORT_LINE;
			} else {
				fprintf(stderr, "ebs report: --sort '%s': known keys are func, line, dso\n",
					optarg);
				goto out;
			}
			break;
		case 'n':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 1000000000) {
				fprintf(stderr, "ebs report: --top wants a number >= 0, not '%s'\n",
					optarg);
				goto out;
			}
			o.top = (unsigned int)v;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case 'e':
			o.event = optarg;
			break;
		case OPT_KALLSYMS:
			o.kallsyms = optarg;
			break;
		case OPT_STATS:
			o.stats = true;
			break;
		case OPT_DEBUG_DIR:
			if (cli_push_str(&dirs, &ndirs, optarg)) {
				fprintf(stderr, "ebs report: out of memory\n");
				ret = 1;
				goto out;
			}
			break;
		case OPT_NO_DEMANGLE:
			o.no_demangle = true;
			break;
		case OPT_DEMANGLE:
			o.no_demangle = false;
			break;
		case 'D':
			dump = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = 0;
			goto out;
		default:
			ret = cli_bad_option("report", c, argv);
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ebs report: unexpected argument '%s' (the file goes after -i)\n",
			argv[optind]);
		goto out;
	}
	o.debug_dirs = dirs;
	e = dump ? ebs_report_dump(o.input, stdout, &err) : ebs_report(&o, &err);
	if (e) {
		fflush(stdout);
		fprintf(stderr, "ebs report: %s\n", err.msg);
		/* a bad or missing file, an unknown event: the input's fault */
		ret = e == -ENOMEM || e == -EIO ? 1 : 2;
		goto out;
	}
	ret = 0;
out:
	free(dirs);
	return ret;
}
