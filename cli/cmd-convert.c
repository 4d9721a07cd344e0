// SPDX-License-Identifier: MIT
/* cmd-convert.c - ebs convert: options, then data's ebs_data_convert(). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "data/ebsdata.h"

static const char usage_text[] =
	"usage: ebs convert [-i FILE] [-o OUT] [-q] [--force]\n"
	"\n"
	"  -i, --input F      a perf.data file, file or pipe mode (default perf.data; '-'\n"
	"                     reads stdin: perf record -o - | ebs convert -i -)\n"
	"  -o, --output F     the ebs.data file to write, whole or not at all (default\n"
	"                     ebs.data; an existing one is kept as F.old; '-' stdout)\n"
	"  -q, --quiet        no summary line\n"
	"      --force        read F whoever owns it, in a directory others can write too\n"
	"Keeps the samples (with call chains, user registers and stack) and the side-band\n"
	"records (mappings with build-ids, names, forks, exits, losses, throttling);\n"
	"docs/perfdata.md says what is read and what is skipped.\n";

int cmd_convert(int argc, char **argv)
{
	enum { OPT_FORCE = CLI_OPT_CMD };
	static const struct option longopts[] = {
		{"input", required_argument, NULL, 'i'}, {"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},	 {"force", no_argument, NULL, OPT_FORCE},
		{"help", no_argument, NULL, 'h'},	 {NULL, 0, NULL, 0},
	};
	const char *input = "perf.data", *output = "ebs.data";
	struct ebs_convert_stats st;
	struct ebs_error err = {0};
	bool quiet = false, force = false;
	int c, e;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "ebs convert: -%c wants a file name\n", c);
				return 2;
			}
			*(c == 'i' ? &input : &output) = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_bad_option("convert", c, argv);
		}
	}
	if (cli_operands_left("convert", argc, argv))
		return 2;
	if (cli_binary_to_tty("convert", output))
		return 2;
	e = ebs_data_convert(input, output, force ? EBS_DATA_ANY_OWNER : 0, &st, &err);
	if (e) {
		/* the output's failure, or no memory: the system's; else the input's */
		fprintf(stderr, "ebs convert: %s%s%s\n", err.msg,
			st.output_failed ? "" : cli_force_hint(e), cli_code_tag(err.code));
		return st.output_failed || e == -ENOMEM ? 1 : 2;
	}
	if (!quiet)
		fprintf(stderr,
			"ebs convert: %s (%s mode, %llu bytes) -> %s (%llu bytes, %.1f%% of it): "
			"%llu samples\n",
			strcmp(input, "-") ? input : "stdin", st.pipe ? "pipe" : "file",
			(unsigned long long)st.in_bytes, ebs_output_name(output),
			(unsigned long long)st.out_bytes,
			st.in_bytes ? 100.0 * (double)st.out_bytes / (double)st.in_bytes : 0.0,
			(unsigned long long)st.samples);
	return 0;
}
