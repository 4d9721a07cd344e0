// SPDX-License-Identifier: MIT
/* cmd-archive.c - ebs archive: options, then report's ebs_archive(). */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "report/report.h"

struct archive_args {
	struct archive_opts o;
	const char **dirs; /* --debug-dir, NULL-terminated */
	unsigned int ndirs;
	bool quiet;
};

static int add_debug_dir(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct archive_args *a = ctx;

	(void)opt;
	if (cli_push_str(&a->dirs, &a->ndirs, arg)) {
		fprintf(stderr, "ebs archive: out of memory\n");
		return 1;
	}
	return 0;
}

static int set_symfs(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (cli_symfs_dir("archive", arg))
		return 2;
	((struct archive_args *)ctx)->o.view.symfs = arg;
	return 0;
}

#define AA(field) CLI_BOOL_AT(struct archive_args, field)
#define AS(field) CLI_STR_AT(struct archive_args, field)

static const struct cli_opt archive_opts[] = {
	{"input", 'i', "FILE", "the recording, ebs.data or perf.data (default ebs.data)", CLI_FILE,
	 .off = AS(o.view.input)},
	{"output", 'o', "OUT",
	 "the archive to write, whole or not at all, mode 0600 (default FILE.tar.zst; '-' "
	 "stdout)",
	 CLI_FILE, .off = AS(o.output)},
	{"symfs", 0, "DIR",
	 "look for the recorded files under DIR (a copy of the recording machine's tree) instead "
	 "of /",
	 CLI_CALL, .fn = set_symfs},
	{"debug-dir", 0, "DIR", "look for separate debug files under DIR too; may be repeated",
	 CLI_CALL, .fn = add_debug_dir},
	{"quiet", 'q', NULL, "no summary line (the DSOs not archived are still said)", CLI_SET,
	 .off = AA(quiet)},
	{"force", 0, NULL, "read FILE whoever owns it, in a directory others can write too",
	 CLI_SET, .off = AA(o.view.force)},
	{0},
};

const struct cli_cmd cli_archive_cmd = {
	.name = "archive",
	.usage = "usage: ebs archive [-i FILE] [-o OUT] [--symfs DIR] [--debug-dir DIR] [-q] "
		 "[--force]\n",
	.about = "One file to carry a recording to another machine: the recording and, by\n"
		 "build-id, every DSO its samples fall in with its separate debug file (a tar\n"
		 "compressed with zstd).  'ebs report -i OUT' reads it there as it is.\n",
	.notes = "Each DSO with samples that is not archived (no file found, no build-id\n"
		 "recorded) is said in one line; the kernel's symbols are in the recording.\n",
	.opts = archive_opts,
};

int cmd_archive(int argc, char **argv)
{
	struct archive_args a = {0};
	struct archive_result res;
	struct ebs_error err = {0};
	char *dflt = NULL;
	int e, ret = 2;

	a.o.view.input = "ebs.data";
	a.o.view.warn = cli_warn;
	a.o.view.warn_ctx = (void *)"archive";
	e = cli_parse(&cli_archive_cmd, argc, argv, &a);
	if (e) {
		ret = cli_exit(e);
		goto out;
	}
	if (cli_operands_left("archive", argc, argv))
		goto out;
	if (!a.o.output) {
		if (asprintf(&dflt, "%s.tar.zst",
			     strcmp(a.o.view.input, "-") ? a.o.view.input : "ebs.data") < 0) {
			dflt = NULL;
			fprintf(stderr, "ebs archive: out of memory\n");
			ret = 1;
			goto out;
		}
		a.o.output = dflt;
	}
	if (cli_binary_to_tty("archive", a.o.output))
		goto out;
	a.o.view.debug_dirs = a.dirs;
	e = ebs_archive(&a.o, &res, &err);
	if (e) {
		ret = cli_input_error("archive", a.o.view.input, e, &err);
		goto out;
	}
	ret = 0;
	if (a.quiet)
		goto out;
	/* words that do not change with the counts: scripts and README match the line */
	fprintf(stderr, "ebs archive: %s: ebs.data, DSOs: %u, debug files: %u; %llu bytes",
		ebs_output_name(a.o.output), res.dsos, res.debugs, (unsigned long long)res.bytes);
	if (res.out_bytes)
		fprintf(stderr, ", compressed to %llu (%.1f%%)", (unsigned long long)res.out_bytes,
			res.bytes ? 100.0 * (double)res.out_bytes / (double)res.bytes : 0.0);
	if (res.missing)
		fprintf(stderr, "; DSOs with samples not in it: %u (above)", res.missing);
	fprintf(stderr, "\n");
out:
	free(dflt);
	free(a.dirs);
	return ret;
}
