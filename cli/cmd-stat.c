// SPDX-License-Identifier: MIT
/*
 * cmd-stat.c - ebs stat: its options, into count/stat.h's struct
 * count_stat; the counting, the derived figures and the printing are
 * count/'s (count_stat_run).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "count/stat.h"

#define MAX_RUNS 1000

static const char usage_text[] =
	"usage: ebs stat [-e EVENT[,EVENT...] | --all-events] [-r N | -I MS]\n"
	"                [-x SEP | --csv] [--json] [-o FILE] [--plot OUT.svg]\n"
	"                [--backend perf|kmod] [--] CMD [ARGS...]\n"
	"       ebs stat [OPTIONS] -p PID[,PID...]       (until they exit, or Ctrl-C)\n"
	"       ebs stat [OPTIONS] -a [[--] CMD [ARGS...]] (while CMD runs, or until Ctrl-C)\n"
	"\n"
	"Count events over CMD's run, without sampling.\n"
	"\n"
	"  -e, --event E      events (default: task-clock, context-switches, cpu-migrations,\n"
	"                     page-faults, cycles, instructions, branches, branch-misses);\n"
	"                     'ebs list' shows them; :u and :k as for record\n"
	"  -r, --repeat N     run CMD N times (1-1000): mean, standard deviation, min, max,\n"
	"                     mode and a 95% interval of the mean, outlying runs culled\n"
	"      --all-events   every event 'ebs list' offers, CMD run again for each group of\n"
	"                     hardware events the PMU holds at once (after a warm-up run)\n"
	"  -I, --interval MS  also the counts of every MS milliseconds (10 or more) while\n"
	"                     CMD runs, each with its time since CMD started\n"
	"  -x, --field-separator SEP   one line per event, fields separated by SEP\n"
	"      --csv          the same with SEP ','\n"
	"      --json         one JSON object (docs/ebs-stat.1)\n"
	"  -o, --output F     write the counts to F instead of standard error\n"
	"      --plot OUT.svg the intervals (-I, else every 100 ms) as a line chart, one\n"
	"                     panel per event (docs/ebs-stat.1)\n"
	"  -p, --pid P        count running processes (and their threads) instead\n"
	"      --backend B    perf (perf_event_open, the default) or kmod (ebs.ko's\n"
	"                     counting session: one event a run, CMD run once for each)\n"
	"  -a, --all-cpus     count every CPU, whatever runs there (root, CAP_PERFMON or\n"
	"                     perf_event_paranoid 0 or less); -r only with a command\n"
	"\n"
	"The exit status is CMD's (of its last run).  An event this machine cannot\n"
	"count (a hardware one without a PMU) says so on its row.\n";

enum { OPT_CSV = 0x2000, OPT_JSON, OPT_ALL, OPT_BACKEND, OPT_PLOT };

#define MIN_INTERVAL_MS	 10  /* below it, reading the counters is most of what is measured */
#define PLOT_INTERVAL_MS 100 /* --plot's intervals without -I */

static const struct option longopts[] = {
	{"event", required_argument, NULL, 'e'},
	{"repeat", required_argument, NULL, 'r'},
	{"interval", required_argument, NULL, 'I'},
	{"all-events", no_argument, NULL, OPT_ALL},
	{"field-separator", required_argument, NULL, 'x'},
	{"csv", no_argument, NULL, OPT_CSV},
	{"json", no_argument, NULL, OPT_JSON},
	{"output", required_argument, NULL, 'o'},
	{"pid", required_argument, NULL, 'p'},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"all-cpus", no_argument, NULL, 'a'},
	{"plot", required_argument, NULL, OPT_PLOT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const char default_events[] =
	"task-clock,context-switches,cpu-migrations,page-faults,cycles,"
	"instructions,branches,branch-misses";

static int parse(int argc, char **argv, struct count_stat *so)
{
	struct event_spec evs[EBS_MAX_EVENTS];
	const char *events = default_events;
	struct ebs_error err = {0};
	u64 n;
	int c, k;

	so->runs = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ae:r:I:x:o:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			break;
		case 'r':
			if (cli_number("stat", "-r", optarg, 1, MAX_RUNS, false, &n))
				return 2;
			so->runs = (unsigned long)n;
			break;
		case 'I':
			if (cli_number("stat", "-I", optarg, 1, 3600000, false, &n))
				return 2;
			if (n < MIN_INTERVAL_MS) {
				fprintf(stderr,
					"ebs stat: -I %s: below the floor of %d ms (reading the "
					"counters would be most of what is measured)\n",
					optarg, MIN_INTERVAL_MS);
				return 2;
			}
			so->interval_ms = (unsigned int)n;
			break;
		case 'x':
			so->sep = optarg;
			break;
		case OPT_CSV:
			so->sep = ",";
			break;
		case OPT_JSON:
			so->json = true;
			break;
		case OPT_ALL:
			so->all_events = true;
			break;
		case OPT_BACKEND: {
			unsigned int u;

			if (cli_choice("stat", "--backend", optarg, cli_backend_words, &u))
				return 2;
			so->backend = (enum record_backend)u;
			break;
		}
		case 'o':
			so->output = optarg;
			break;
		case OPT_PLOT:
			so->plot = optarg;
			break;
		case 'p':
			if (cli_parse_pids("stat", optarg, &so->pids, &so->nr_pids))
				return 2;
			break;
		case 'a':
			so->system_wide = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_bad_option("stat", c, argv);
		}
	}
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
		fprintf(stderr, "ebs stat: %s\n", err.msg);
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

	if (rc < 0)
		rc = count_stat_run(&so);
	free(so.pids); /* -p may have come before what was refused */
	return rc;
}
