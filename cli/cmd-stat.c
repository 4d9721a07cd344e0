// SPDX-License-Identifier: MIT
/*
 * cmd-stat.c - ebs stat: its options, into count/stat.h's struct
 * count_stat; the counting, the derived figures and the printing are
 * count/'s (count_stat_run).
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "count/stat.h"

#define MAX_RUNS 1000

#define MIN_INTERVAL_MS	 10  /* below it, reading the counters is most of what is measured */
#define PLOT_INTERVAL_MS 100 /* --plot's intervals without -I */

static const char default_events[] =
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,"
	"instructions,branches,branch-misses";

/* What stat's options set: the session's options, and -e */
struct stat_args {
	struct count_stat *so;
	const char *events;
};

#define SO(ctx) (((struct stat_args *)(ctx))->so)

static int set_repeat(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 n;

	(void)opt;
	if (cli_number("stat", "-r", arg, 1, MAX_RUNS, false, &n))
		return 2;
	SO(ctx)->runs = (unsigned long)n;
	return 0;
}

static int set_interval(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 n;

	(void)opt;
	if (cli_number("stat", "-I", arg, 1, 3600000, false, &n))
		return 2;
	if (n < MIN_INTERVAL_MS) {
		fprintf(stderr,
			"ebs stat: -I %s: below the floor of %d ms (reading the counters would be "
			"most of what is measured)\n",
			arg, MIN_INTERVAL_MS);
		return 2;
	}
	SO(ctx)->interval_ms = (unsigned int)n;
	return 0;
}

/* -x SEP, --csv, --json, -o, --plot, --all-events, -a: a word or a flag of the session */
static int set_word(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct count_stat *so = SO(ctx);

	if (opt->letter == 'x')
		so->sep = arg;
	else if (!strcmp(opt->name, "csv"))
		so->sep = ",";
	else if (!strcmp(opt->name, "json"))
		so->json = true;
	else if (opt->letter == 'o')
		so->output = arg;
	else if (!strcmp(opt->name, "plot"))
		so->plot = arg;
	else if (!strcmp(opt->name, "all-events"))
		so->all_events = true;
	else if (opt->letter == 'a')
		so->system_wide = true;
	return 0;
}

static int set_backend(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice("stat", "--backend", arg, cli_backend_words, &u))
		return 2;
	SO(ctx)->backend = (enum record_backend)u;
	return 0;
}

static int add_pids(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_parse_pids("stat", arg, &SO(ctx)->pids, &SO(ctx)->nr_pids) ? 2 : 0;
}

static const struct cli_opt stat_opts[] = {
	{"event", 'e', "EVENTS",
	 "events (default: task-clock, context-switches, cpu-migrations, page-faults, cycles, "
	 "instructions, branches, branch-misses); 'ebs list' shows them; :u and :k as for record",
	 CLI_STR, .off = CLI_STR_AT(struct stat_args, events)},
	{"repeat", 'r', "N",
	 "run CMD N times (1-1000): mean, standard deviation, min, max, mode and a 95% interval "
	 "of the mean, outlying runs culled",
	 CLI_CALL, .fn = set_repeat},
	{"all-events", 0, NULL,
	 "every event 'ebs list' offers, CMD run again for each group of hardware events the PMU "
	 "holds at once (after a warm-up run)",
	 CLI_CALL, .fn = set_word},
	{"interval", 'I', "MS",
	 "also the counts of every MS milliseconds (10 or more) while CMD runs, each with its "
	 "time since CMD started",
	 CLI_CALL, .fn = set_interval},
	{"field-separator", 'x', "SEP", "one line per event, fields separated by SEP", CLI_CALL,
	 .fn = set_word},
	{"csv", 0, NULL, "the same with SEP ','", CLI_CALL, .fn = set_word},
	{"json", 0, NULL, "one JSON object (ebs-stat(1))", CLI_CALL, .fn = set_word},
	{"output", 'o', "FILE", "write the counts to FILE instead of standard error", CLI_CALL,
	 .fn = set_word},
	{"plot", 0, "OUT.svg",
	 "the intervals (-I, else every 100 ms) as a line chart, one panel per event "
	 "(ebs-stat(1))",
	 CLI_CALL, .fn = set_word},
	{"pid", 'p', "PID[,PID...]", "count running processes (and their threads) instead",
	 CLI_CALL, .fn = add_pids},
	{"backend", 0, "perf|kmod",
	 "perf (perf_event_open, the default) or kmod (ebs.ko's counting session: one event a "
	 "run, CMD run once for each)",
	 CLI_CALL, .fn = set_backend},
	{"all-cpus", 'a', NULL,
	 "count every CPU, whatever runs there (root, CAP_PERFMON or perf_event_paranoid 0 or "
	 "less); -r only with a command",
	 CLI_CALL, .fn = set_word},
	{0},
};

const struct cli_cmd cli_stat_cmd = {
	.name = "stat",
	.usage =
		"usage: ebs stat [OPTIONS] [--] CMD [ARGS...]\n"
		"       ebs stat [OPTIONS] -p PID[,PID...]       (until they exit, or Ctrl-C)\n"
		"       ebs stat [OPTIONS] -a [[--] CMD [ARGS...]] (while CMD runs, or until Ctrl-C)\n",
	.about = "Count events over CMD's run, without sampling.\n",
	.notes = "The exit status is CMD's (of its last run).  An event this machine cannot\n"
		 "count (a hardware one without a PMU) says so on its row.\n",
	.opts = stat_opts,
	.in_order = true,
};

static int parse(int argc, char **argv, struct count_stat *so)
{
	struct stat_args a = {so, default_events};
	struct event_spec evs[EBS_MAX_EVENTS];
	const char *events;
	struct ebs_error err = {0};
	int c, k;

	so->runs = 1;
	c = cli_parse(&cli_stat_cmd, argc, argv, &a);
	if (c)
		return cli_exit(c);
	events = a.events;
	if (so->nr_pids && so->system_wide) {
		fprintf(stderr, "ebs stat: -p and -a exclude each other\n");
		return 2;
	}
	if (so->nr_pids && optind < argc) {
		fprintf(stderr, "ebs stat: -p counts running processes; no command wanted\n");
		return 2;
	}
	if (optind >= argc && !so->nr_pids && !so->system_wide) {
		fprintf(stderr,
			"ebs stat: no command to run (ebs stat [OPTIONS] -- CMD [ARGS...])\n");
		return 2;
	}
	if ((so->nr_pids || (so->system_wide && optind >= argc)) && so->runs > 1) {
		fprintf(stderr,
			"ebs stat: -r repeats a command's run: not with -p, nor -a alone\n");
		return 2;
	}
	if (so->all_events && (so->interval_ms || events != default_events)) {
		fprintf(stderr, "ebs stat: --all-events counts every event in runs of its own: "
				"not with -e or -I\n");
		return 2;
	}
	if (so->interval_ms && so->runs > 1) {
		fprintf(stderr, "ebs stat: -I and -r go one at a time: intervals are of one run\n");
		return 2;
	}
	if (so->sep && so->json) {
		fprintf(stderr, "ebs stat: -x/--csv and --json go one at a time\n");
		return 2;
	}
	/* -x takes its next word: an option there was meant as one */
	if (so->sep && so->sep[0] == '-' && so->sep[1]) {
		fprintf(stderr,
			"ebs stat: -x '%s': a separator that looks like an option (give -x SEP, "
			"e.g. -x ';')\n",
			so->sep);
		return 2;
	}
	if (so->plot && (so->runs > 1 || so->all_events)) {
		fprintf(stderr, "ebs stat: --plot draws the intervals of one run: not with %s\n",
			so->all_events ? "--all-events" : "-r");
		return 2;
	}
	if (so->plot && (!*so->plot || !strcmp(so->plot, "-"))) {
		fprintf(stderr,
			"ebs stat: --plot wants a file name ('%s' is none: the command "
			"writes to standard output)\n",
			so->plot);
		return 2;
	}
	if (so->plot && so->output && !strcmp(so->plot, so->output)) {
		fprintf(stderr, "ebs stat: --plot %s: the file -o writes the counts to\n",
			so->plot);
		return 2;
	}
	so->tick_ms = so->interval_ms ? so->interval_ms : so->plot ? PLOT_INTERVAL_MS : 0;
	so->argv = optind < argc ? argv + optind : NULL;
	if (so->all_events && !so->argv) {
		fprintf(stderr,
			"ebs stat: --all-events runs a command again and again: give one\n");
		return 2;
	}
	if (so->all_events) {
		static char all[EBS_MAX_EVENTS * 24];
		size_t at = 0, i;

		for (i = 0; i < sizeof(ebs_events) / sizeof(ebs_events[0]) && i < EBS_MAX_EVENTS &&
			    ebs_events[i].name;
		     i++)
			at += (size_t)snprintf(all + at, sizeof(all) - at, "%s%s", i ? "," : "",
					       ebs_events[i].name);
		events = all;
	}
	k = event_spec__parse_list(events, evs, EBS_MAX_EVENTS, &err);
	if (k < 0) {
		fprintf(stderr, "ebs stat: %s%s\n", err.msg, cli_code_tag(err.code));
		return 2;
	}
	so->nr_ev = (unsigned int)k;
	for (c = 0; c < k; c++)
		so->ev[c].spec = evs[c];
	return -1;
}

int cmd_stat(int argc, char **argv)
{
	struct count_stat so = {0};
	int rc = parse(argc, argv, &so);

	so.warn = cli_warn;
	so.warn_ctx = (void *)"stat";
	if (rc < 0)
		rc = count_stat_run(&so);
	free(so.pids); /* -p may have come before what was refused */
	return rc;
}
