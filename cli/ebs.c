// SPDX-License-Identifier: MIT
/* ebs.c - the ebs command: dispatch to a subcommand. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ebs/count.h>

#include "cli/builtin.h"

static char cmdline[4096];

const char *ebs_cmdline(void)
{
	return cmdline;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cli_cmd *opts; /* its options, for ebs --dump-options */
	const char *help;
} cmds[] = {
	{"record", cmd_record, &cli_record_cmd,
	 "sample a command, processes (-p) or the whole system (-a)"},
	{"report", cmd_report, &cli_report_cmd,
	 "hotspots of an ebs.data file, by function, source line or DSO"},
	{"stat", cmd_stat, &cli_stat_cmd,
	 "count events over a command's run (-r N: its statistics)"},
	{"monitor", cmd_monitor, &cli_monitor_cmd,
	 "event rates live: a scrolling terminal graph, or lines"},
	{"top", cmd_top, &cli_top_cmd,
	 "live hotspots of the system, processes or a command, as perf top"},
	{"calibrate", cmd_calibrate, &cli_calibrate_cmd,
	 "choose sample-after values for a command: measured, verified"},
	{"diff", cmd_diff, &cli_diff_cmd,
	 "two recordings compared: each row's change, and whether it is real"},
	{"annotate", cmd_annotate, &cli_annotate_cmd,
	 "source (and instructions) of hot functions, with their samples"},
	{"view", cmd_view, &cli_view_cmd,
	 "one HTML page to explore a recording: timeline, tables, flame graph, source"},
	{"flamegraph", cmd_flamegraph, &cli_flamegraph_cmd,
	 "an interactive SVG flame graph of the call stacks"},
	{"export", cmd_export, &cli_export_cmd,
	 "the call stacks as folded stacks, pprof or speedscope"},
	{"script", cmd_script, &cli_script_cmd,
	 "every sample as a line of text or JSON, as perf script"},
	{"convert", cmd_convert, &cli_convert_cmd,
	 "a perf.data file (perf record's) into ebs.data, smaller"},
	{"archive", cmd_archive, &cli_archive_cmd,
	 "a recording and the files it needs, by build-id, in one file to carry"},
	{"list", cmd_list, &cli_list_cmd, "events this machine can sample"},
	{"addr2line", cmd_addr2line, &cli_addr2line_cmd,
	 "resolve addresses of an ELF file to function, file and line"},
};

static void usage(FILE *f, const struct cli_cmd *cmd)
{
	size_t i;

	(void)cmd;
	fprintf(f, "usage: ebs [--version] [--help] [--no-pager] COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "   %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'ebs help COMMAND', 'ebs COMMAND --help' and 'man ebs-COMMAND' tell more\n"
		   "(before 'make install': 'man -l docs/ebs-COMMAND.1' in the source tree).\n");
}

static int find_cmd(const char *name)
{
	int i;

	for (i = 0; i < (int)(sizeof(cmds) / sizeof(cmds[0])); i++)
		if (!strcmp(name, cmds[i].name))
			return i;
	return -1;
}

/* ebs help [COMMAND]: the general usage, or COMMAND's (its --help). */
static int help(int argc, char **argv)
{
	char *args[] = {argv[1], (char *)"--help", NULL};
	int i;

	if (argc < 2) {
		usage(stdout, NULL);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "ebs help: one COMMAND, not also '%s'\n", argv[2]);
		return 2;
	}
	i = find_cmd(argv[1]);
	if (i < 0) {
		fprintf(stderr, "ebs help: '%s' is not an ebs command (see 'ebs --help')\n",
			argv[1]);
		return 2;
	}
	return cmds[i].fn(2, args);
}

static int version(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)ctx, (void)opt, (void)arg;
	/* two numbers: ebs's, and libebs's API (ebs.pc, ebs-count(3)) */
	printf("ebs %s (libebs %s)\n", EBS_VERSION, ebs_count_version());
	return CLI_EXIT_HELP; /* done: exit 0 */
}

static int no_pager(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)ctx, (void)opt, (void)arg;
	cli_pager_disable();
	return 0;
}

static const struct cli_cmd top_cmd;

/* ebs --dump-options CMD (or ebs): CMD's table, for tests/integration/options-doc.sh */
static int dump_options(void *ctx, const struct cli_opt *opt, const char *arg)
{
	int i = find_cmd(arg);

	(void)ctx, (void)opt;
	if (i < 0 && strcmp(arg, "ebs")) {
		fprintf(stderr, "ebs: '%s' is not an ebs command (see 'ebs --help')\n", arg);
		return 2;
	}
	cli_dump_options(stdout, i < 0 ? &top_cmd : cmds[i].opts);
	return CLI_EXIT_HELP;
}

/* ebs's own options, before the command: unknown ones named as ebs's */
static int top_bad(const struct cli_cmd *cmd, int c, char **argv)
{
	(void)cmd, (void)c;
	fprintf(stderr, "ebs: unknown option '%s' (see 'ebs --help')\n", argv[optind - 1]);
	return 2;
}

static const struct cli_opt top_opts[] = {
	{"version", 0, NULL, "print ebs's version", CLI_CALL, .fn = version},
	{"no-pager", 0, NULL, "no pager for the command's listing, on a terminal too", CLI_CALL,
	 .fn = no_pager},
	{"dump-options", 0, "CMD", "CMD's options, one a line", CLI_CALL, CLI_HIDDEN,
	 .fn = dump_options},
	{0},
};

static const struct cli_cmd top_cmd = {
	.name = "ebs",
	.usage = "usage: ebs [--version] [--help] [--no-pager] COMMAND [ARGS]\n",
	.opts = top_opts,
	.in_order = true,
	.bad = top_bad,
	.usage_fn = usage,
};

int main(int argc, char **argv)
{
	FILE *guard = ebs_clean_stream(stderr);
	size_t len = 0;
	int a, i, ret, e;

	/*
	 * Every line ebs writes on standard error goes through this stream:
	 * names in messages (an argument echoed, a path from a recording or a
	 * directory, a library's warning) can send the terminal no escape
	 * sequence, whoever formatted them (util/text.h).
	 */
	if (guard)
		stderr = guard;
	for (a = 0; a < argc && len < sizeof(cmdline) - 1; a++)
		len += (size_t)snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s", a ? " " : "",
					argv[a]);
	e = cli_parse(&top_cmd, argc, argv, NULL);
	if (e)
		return cli_exit(e);
	a = optind;
	if (a == argc) {
		usage(stderr, NULL);
		return 2;
	}
	if (!strcmp(argv[a], "help"))
		return help(argc - a, argv + a);
	if (!strcmp(argv[a], "__cost-probe")) { /* ebs calibrate --cost-probe=loop */
		calibrate_probe_loop();
		return 0;
	}
	i = find_cmd(argv[a]);
	if (i < 0) {
		fprintf(stderr, "ebs: '%s' is not an ebs command (see 'ebs --help')\n", argv[a]);
		return 2;
	}
	ret = cmds[i].fn(argc - a, argv + a);
	/* a listing that did not reach its reader (a full disk, a closed pipe) */
	e = cli_pager_finish();
	errno = 0;
	if ((e || fflush(stdout) || ferror(stdout)) && !ret) { /* else said already */
		/* errno is only known when the last flush failed */
		if (e)
			errno = -e;
		fprintf(stderr, "ebs %s: standard output: write failed%s%s\n", cmds[i].name,
			errno ? ": " : "", errno ? strerror(errno) : "");
		return 1;
	}
	return ret;
}
