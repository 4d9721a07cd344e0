// SPDX-License-Identifier: MIT
/* cmd-convert.c - ebs convert: options, then data's ebs_data__convert(). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "data/data.h"

struct convert_args {
	const char *input, *output;
	bool quiet, force;
};

static const struct cli_opt convert_opts[] = {
	{"input", 'i', "FILE",
	 "a perf.data file, file or pipe mode (default perf.data; '-' reads stdin: perf record "
	 "-o - | ebs convert -i -)",
	 CLI_FILE, .off = CLI_STR_AT(struct convert_args, input)},
	{"output", 'o', "OUT",
	 "the ebs.data file to write, whole or not at all (default ebs.data; an existing one is "
	 "kept as OUT.old; '-' stdout)",
	 CLI_FILE, .off = CLI_STR_AT(struct convert_args, output)},
	{"quiet", 'q', NULL, "no summary line", CLI_SET,
	 .off = CLI_BOOL_AT(struct convert_args, quiet)},
	{"force", 0, NULL, "read FILE whoever owns it, in a directory others can write too",
	 CLI_SET, .off = CLI_BOOL_AT(struct convert_args, force)},
	{0},
};

const struct cli_cmd cli_convert_cmd = {
	.name = "convert",
	.usage = "usage: ebs convert [-i FILE] [-o OUT] [-q] [--force]\n",
	.notes =
		"Keeps the samples (with call chains, user registers and stack) and the side-band\n"
		"records (mappings with build-ids, names, forks, exits, losses, throttling);\n"
		"docs/perfdata.md says what is read and what is skipped.\n",
	.opts = convert_opts,
};

int cmd_convert(int argc, char **argv)
{
	struct convert_args a = {.input = "perf.data", .output = "ebs.data"};
	struct ebs_convert_stats st;
	struct ebs_error err = {0};
	int e;

	e = cli_parse(&cli_convert_cmd, argc, argv, &a);
	if (e)
		return cli_exit(e);
	if (cli_operands_left("convert", argc, argv))
		return 2;
	if (cli_binary_to_tty("convert", a.output))
		return 2;
	e = ebs_data__convert(a.input, a.output, a.force ? EBS_DATA_ANY_OWNER : 0, &st, &err);
	if (e) {
		/* the output's failure, or no memory: the system's; else the input's */
		fprintf(stderr, "ebs convert: %s%s%s\n", err.msg,
			st.output_failed ? "" : cli_force_hint(e), cli_code_tag(err.code));
		return st.output_failed || e == -ENOMEM ? 1 : 2;
	}
	if (!a.quiet)
		fprintf(stderr,
			"ebs convert: %s (%s mode, %llu bytes) -> %s (%llu bytes, %.1f%% of it): "
			"%llu samples\n",
			strcmp(a.input, "-") ? a.input : "stdin", st.pipe ? "pipe" : "file",
			(unsigned long long)st.in_bytes, ebs_output_name(a.output),
			(unsigned long long)st.out_bytes,
			st.in_bytes ? 100.0 * (double)st.out_bytes / (double)st.in_bytes : 0.0,
			(unsigned long long)st.samples);
	return 0;
}
