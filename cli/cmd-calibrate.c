// SPDX-License-Identifier: MIT
/*
 * cmd-calibrate.c - ebs calibrate: options, then sampler's ebs_calibrate(),
 * then the table (or JSON).  ebs record --calibrate shares the options and
 * the table (cli_calibrate below).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ebs/ebs_abi.h>
#include "cli/builtin.h"
#include "sampler/calibrate.h"
#include "symbolize/symbolize.h"
#include "util/json.h"

void cli_calibrate_defaults(struct cli_calibrate *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->o.rate = 1000;
	cc->o.min_samples = 10000;
	cc->o.overhead = 0.02;
	cc->o.retries = 2;
	cc->events = "cycles";
	cc->cmd = "calibrate";
}

#define CC(ctx) ((struct cli_calibrate *)(ctx))

static int set_rate(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_real(CC(ctx)->cmd, "--rate", arg, true, 1e300, &CC(ctx)->o.rate) ? 2 : 0;
}

static int set_min_samples(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_number(CC(ctx)->cmd, "--min-samples", arg, 1, INT64_MAX, false,
			  &CC(ctx)->o.min_samples)
		       ? 2
		       : 0;
}

static int set_focus(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (!*arg || arg[0] == ',' || strstr(arg, ",,") || arg[strlen(arg) - 1] == ',') {
		fprintf(stderr,
			"ebs %s: --focus wants function or DSO names, comma-separated, not '%s'\n",
			CC(ctx)->cmd, arg);
		return 2;
	}
	CC(ctx)->o.focus = arg;
	return 0;
}

static int set_overhead(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (cli_real(CC(ctx)->cmd, "--overhead", arg, true, 100, &CC(ctx)->o.overhead))
		return 2;
	CC(ctx)->o.overhead /= 100;
	return 0;
}

static int set_retries(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 v;

	(void)opt;
	if (cli_number(CC(ctx)->cmd, "--retries", arg, 0, 20, false, &v))
		return 2;
	CC(ctx)->o.retries = (unsigned int)v;
	return 0;
}

static const char *const probe_words[] = {"cmd", "loop", NULL};

static int set_probe(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice(CC(ctx)->cmd, "--cost-probe", arg, probe_words, &u))
		return 2;
	CC(ctx)->o.probe_loop = u == 1;
	return 0;
}

/* The targets: calibrate's, and record --calibrate's in one argument. */
static const struct cli_opt target_opts[] = {
	{"rate", 0, "HZ", "at most HZ samples per second per CPU (default 1000)", CLI_CALL,
	 .fn = set_rate},
	{"min-samples", 0, "N", "at least N samples in the run, or in the focus (default 10000)",
	 CLI_CALL, .fn = set_min_samples},
	{"focus", 0, "NAME[,NAME...]",
	 "the area of interest: functions or DSOs, as ebs report names them", CLI_CALL,
	 .fn = set_focus},
	{"overhead", 0, "PCT", "the sampling may cost at most PCT percent (default 2)", CLI_CALL,
	 .fn = set_overhead},
	{"retries", 0, "K", "verifying runs after the first, when a target is missed (default 2)",
	 CLI_CALL, .fn = set_retries},
	{"cost-probe", 0, "cmd|loop",
	 "cmd (default): the cost of a sample measured on CMD; loop: on ebs's own fixed loop, "
	 "which is quicker for a long CMD",
	 CLI_CALL, .fn = set_probe},
	{"exact", 0, NULL, "N as solved, not rounded to 1, 2 or 5 times a power of ten", CLI_SET,
	 .off = CLI_BOOL_AT(struct cli_calibrate, o.exact)},
	{"quiet", 'q', NULL, "no line per run", CLI_SET,
	 .off = CLI_BOOL_AT(struct cli_calibrate, quiet)},
	{0},
};

static int set_count(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 v;

	(void)opt;
	if (cli_number("calibrate", "-c", arg, 1, INT64_MAX, true, &v))
		return 2;
	CC(ctx)->o.start_n = v;
	return 0;
}

static int set_backend(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice("calibrate", "--backend", arg, cli_backend_words, &u))
		return 2;
	CC(ctx)->o.rec.backend = (enum record_backend)u;
	return 0;
}

static int set_keep(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (!strcmp(arg, "-")) {
		fprintf(stderr, "ebs calibrate: -o wants a file, not standard output\n");
		return 2;
	}
	CC(ctx)->o.keep = arg;
	return 0;
}

static const struct cli_opt calibrate_opts[] = {
	{"event", 'e', "EVENT[,EVENT...]", "events (default cycles; 'ebs list' shows them)",
	 CLI_STR, .off = CLI_STR_AT(struct cli_calibrate, events)},
	{"", 0, NULL, NULL, CLI_INCLUDE, .off = 0, .sub = target_opts},
	{"count", 'c', "N", "verify this N first instead of the solved one", CLI_CALL,
	 .fn = set_count},
	{"backend", 0, "perf|kmod", "perf (perf_event_open, the default) or kmod (ebs.ko)",
	 CLI_CALL, .fn = set_backend},
	{"json", 0, NULL, "the result as one JSON object (ebs-calibrate(1))", CLI_SET,
	 .off = CLI_BOOL_AT(struct cli_calibrate, json)},
	{"output", 'o', "FILE", "keep the verifying run's recording, its calibration in it",
	 CLI_CALL, .fn = set_keep},
	{0},
};

const struct cli_cmd cli_calibrate_cmd = {
	.name = "calibrate",
	.usage = "usage: ebs calibrate [OPTIONS] -- CMD [ARGS...]\n",
	.about =
		"Choose each event's sample-after value N for CMD: count the events, measure what\n"
		"a sample costs here, solve N for the targets, verify with a sampled run and\n"
		"retry.\n",
	.notes = "CMD runs several times (about five, and once per retry); its standard output\n"
		 "is discarded, its standard error kept.\n",
	.opts = calibrate_opts,
	.in_order = true,
};

/*
 * A word of --calibrate's that getopt did not take: one of calibrate's
 * options that is no target, or as any command's unknown option.
 */
static int inline_bad(const struct cli_cmd *cmd, int c, char **argv)
{
	const char *word = argv[optind - 1];

	(void)cmd;
	if (c == '?' && !strncmp(word, "--", 2) && cli_find_option(&cli_calibrate_cmd, word)) {
		fprintf(stderr,
			"ebs %s: --calibrate: '%s' is not a calibration target "
			"(--rate, --min-samples, --focus, --overhead, --retries, "
			"--cost-probe, --exact, -q)\n",
			argv[0], word);
		return 2;
	}
	return cli_bad_option(argv[0], c, argv);
}

static const struct cli_cmd inline_cmd = {
	.name = "record",
	.usage = "",
	.opts = target_opts,
	.bad = inline_bad,
	.no_help = true,
};

int cli_calibrate_inline(const char *cmd, const char *text, struct cli_calibrate *cc)
{
	char *copy = strdup(text), *args[64], *tok, *save = NULL;
	int argc = 1, ret;

	if (!copy)
		return -ENOMEM;
	args[0] = (char *)cmd;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (argc >= 63) {
			fprintf(stderr, "ebs %s: --calibrate: too many options\n", cmd);
			free(copy);
			return -EINVAL;
		}
		args[argc++] = tok;
	}
	args[argc] = NULL;
	cc->cmd = cmd;
	ret = cli_parse(&inline_cmd, argc, args, cc) ? -EINVAL : 0;
	if (!ret && optind < argc) {
		fprintf(stderr, "ebs %s: --calibrate: '%s' is not an option\n", cmd, args[optind]);
		ret = -EINVAL;
	}
	/* --focus points into copy */
	if (ret)
		free(copy);
	else
		cc->buf = copy;
	return ret;
}

/* ebs report's focus count, for sampler/ which does not symbolize. */
static int focus_share(void *ctx, const char *path, unsigned int ev, u64 *matched, u64 *total,
		       struct ebs_error *err)
{
	const struct cli_calibrate *cc = ctx;

	return ebs_report_focus(path, ev, cc->o.focus, NULL, matched, total, err);
}

static const char *bound_words(enum calib_bound b)
{
	switch (b) {
	case CALIB_BY_RATE:
		return "the rate cap";
	case CALIB_BY_OVERHEAD:
		return "the overhead budget";
	case CALIB_BY_EVENTS:
		return "the event's own rate (N = 1)";
	}
	return "?";
}

/* The table, then the notes, each line "# ...". */
static void print_table(FILE *f, const struct cli_calibrate *cc, const struct calibrate_result *r)
{
	const char *basis = r->wall_time ? "wall" : "CPU";
	unsigned int i;
	bool same = true;

	fprintf(f, "# calibrated '%s': %u runs; times are %s time; counting pass %.3f s\n",
		cc->o.rec.argv[0], r->runs, basis, r->base_seconds);
	fprintf(f,
		"# targets: at most %.0f samples/s per CPU, at least %llu samples%s%s, "
		"overhead at most %.1f%%\n",
		cc->o.rate, (unsigned long long)cc->o.min_samples, cc->o.focus ? " in " : "",
		cc->o.focus ? cc->o.focus : "", 100 * cc->o.overhead);
	fprintf(f, "%-16s %10s %12s %9s %9s %8s %9s %14s %7s %7s\n", "event", "events/s", "N",
		"expected", "achieved", "rate/s", "overhead", "us/sample", "10%+-", "1%+-");
	for (i = 0; i < r->nr_events; i++) {
		const struct calibrate_event *e = &r->ev[i];
		char cost[32];

		snprintf(cost, sizeof(cost), "%.1f+-%.1f", e->fit.cost * 1e6, e->fit.cost_ci * 1e6);
		fprintf(f, "%-16s %10.3g %12llu %9.0f %9llu %8.0f %8.1f%% %14s %7.2f %7.2f\n",
			e->name, e->events_per_sec, (unsigned long long)e->n, e->sol.samples,
			(unsigned long long)e->achieved_samples, e->achieved_rate,
			100 * e->overhead, cost,
			100 * calib_halfwidth(0.10, (double)e->achieved_samples),
			100 * calib_halfwidth(0.01, (double)e->achieved_samples));
		if (e->n != r->ev[0].n)
			same = false;
	}
	for (i = 0; i < r->nr_events; i++) {
		const struct calibrate_event *e = &r->ev[i];

		/* A short run cannot reach --min-samples under the caps: the verifying
		 * run is then held to the rate and overhead only, and says so. */
		fprintf(f, "# %s: N set by %s; %s%s", e->name, bound_words(e->sol.bound),
			!e->met ? "targets missed (below)"
			: e->sol.short_run
				? "the verifying run met the rate and overhead "
				  "targets; the samples target cannot be had (note below)"
				: "the verifying run met every target",
			e->retries ? "" : "\n");
		if (e->retries)
			fprintf(f, " after %u retr%s\n", e->retries, e->retries == 1 ? "y" : "ies");
		if (cc->o.focus)
			fprintf(f,
				"# %s: %.1f%% of the pilot's samples in %s; %llu of the verifying "
				"run's\n",
				e->name, 100 * e->share, cc->o.focus,
				(unsigned long long)e->focus_samples);
	}
	fprintf(f, "# overhead measured: %.1f%% (+-%.1f) in %.3f s against %.3f s unsampled%s\n",
		100 * r->overhead, 200 * r->overhead_se, r->verify_seconds, r->base_seconds,
		r->overhead < 0 ? " (below 0: noise; the recording keeps 0%)" : "");
	fprintf(f, "# precision: the 95%% interval, in points, of a function holding 10%% and 1%% "
		   "of the samples\n");
	for (i = 0; i < r->nr_notes; i++)
		fprintf(f, "# note: %s\n", r->notes[i]);
	if (same) {
		fprintf(f, "# to record: ebs record -e ");
		for (i = 0; i < r->nr_events; i++)
			fprintf(f, "%s%s", i ? "," : "", r->ev[i].name);
		fprintf(f, " -c %llu -- %s ...\n", (unsigned long long)r->ev[0].n,
			cc->o.rec.argv[0]);
	} else {
		fprintf(f, "# to record: ebs record -e ");
		for (i = 0; i < r->nr_events; i++)
			fprintf(f, "%s%s", i ? "," : "", r->ev[i].name);
		fprintf(f, " -c ");
		for (i = 0; i < r->nr_events; i++)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)r->ev[i].n);
		fprintf(f, " -- %s ...\n", cc->o.rec.argv[0]);
	}
}

static void print_json(FILE *f, const struct cli_calibrate *cc, const struct calibrate_result *r)
{
	struct ebs_json j;
	unsigned int i, k;

	ebs_json__begin(&j, f);
	ebs_json__obj(&j);
	ebs_json__key_str(&j, "command", cc->o.rec.argv[0]);
	ebs_json__key_str(&j, "time", r->wall_time ? "wall" : "cpu");
	ebs_json__key_u64(&j, "runs", r->runs);
	ebs_json__key_num(&j, "base_seconds", "%.6f", r->base_seconds);
	ebs_json__key_num(&j, "verify_seconds", "%.6f", r->verify_seconds);
	ebs_json__key_num(&j, "overhead_pct", "%.4f", 100 * r->overhead);
	ebs_json__key_num(&j, "overhead_pct_spread", "%.4f", 200 * r->overhead_se);
	ebs_json__key(&j, "targets");
	ebs_json__obj(&j);
	ebs_json__key_num(&j, "rate", "%.6g", cc->o.rate);
	ebs_json__key_u64(&j, "min_samples", cc->o.min_samples);
	ebs_json__key_num(&j, "overhead_pct", "%.6g", 100 * cc->o.overhead);
	ebs_json__key_u64(&j, "retries", cc->o.retries);
	ebs_json__key_str(&j, "focus", cc->o.focus);
	ebs_json__obj_end(&j);
	ebs_json__key(&j, "events");
	ebs_json__arr(&j);
	for (i = 0; i < r->nr_events; i++) {
		const struct calibrate_event *e = &r->ev[i];

		ebs_json__obj(&j);
		ebs_json__key_str(&j, "name", e->name);
		ebs_json__key_num(&j, "events", "%.0f", e->counted);
		ebs_json__key_num(&j, "events_per_sec", "%.6g", e->events_per_sec);
		ebs_json__key_u64(&j, "sample_after", e->n);
		ebs_json__key_str(&j, "bound",
				  e->sol.bound == CALIB_BY_RATE	      ? "rate"
				  : e->sol.bound == CALIB_BY_OVERHEAD ? "overhead"
								      : "events");
		ebs_json__key_num(&j, "expected_samples", "%.3f", e->sol.samples);
		ebs_json__key_u64(&j, "achieved_samples", e->achieved_samples);
		ebs_json__key_num(&j, "achieved_rate", "%.3f", e->achieved_rate);
		ebs_json__key_u64(&j, "lost", e->lost);
		ebs_json__key_u64(&j, "throttled", e->throttled);
		ebs_json__key_num(&j, "overhead_pct", "%.4f", 100 * e->overhead);
		ebs_json__key_num(&j, "cost_us_per_sample", "%.4f", e->fit.cost * 1e6);
		ebs_json__key_num(&j, "cost_us_spread", "%.4f", e->fit.cost_ci * 1e6);
		ebs_json__key_bool(&j, "cost_measured", e->cost_measured);
		ebs_json__key_num(&j, "cost_us_used", "%.4f", e->cost * 1e6);
		ebs_json__key_u64(&j, "retries", e->retries);
		ebs_json__key_bool(&j, "met", e->met);
		ebs_json__key_num(&j, "precision_10pct", "%.4f",
				  100 * calib_halfwidth(0.10, (double)e->achieved_samples));
		ebs_json__key_num(&j, "precision_1pct", "%.4f",
				  100 * calib_halfwidth(0.01, (double)e->achieved_samples));
		ebs_json__key_bool(&j, "short_run", e->sol.short_run);
		ebs_json__key_num(&j, "longer", "%.6f", e->sol.longer);
		if (cc->o.focus) {
			ebs_json__key_num(&j, "focus_share", "%.6f", e->share);
			ebs_json__key_u64(&j, "focus_samples", e->focus_samples);
		}
		ebs_json__key(&j, "fit");
		ebs_json__obj(&j);
		ebs_json__key_num(&j, "base_seconds", "%.6f", e->fit.base);
		ebs_json__key_num(&j, "rms_seconds", "%.6f", e->fit.rms);
		ebs_json__key(&j, "points");
		ebs_json__arr(&j);
		for (k = 0; k < e->nr_points; k++) {
			ebs_json__arr(&j);
			ebs_json__num(&j, "%.0f", e->points[k].samples);
			ebs_json__num(&j, "%.6f", e->points[k].seconds);
			ebs_json__arr_end(&j);
		}
		ebs_json__arr_end(&j);
		ebs_json__key(&j, "residuals");
		ebs_json__arr(&j);
		for (k = 0; k < e->nr_points; k++)
			ebs_json__num(&j, "%.6f", e->fit.resid[k]);
		ebs_json__arr_end(&j);
		ebs_json__obj_end(&j);
		ebs_json__obj_end(&j);
	}
	ebs_json__arr_end(&j);
	ebs_json__key(&j, "notes");
	ebs_json__arr(&j);
	for (i = 0; i < r->nr_notes; i++)
		ebs_json__str(&j, r->notes[i]);
	ebs_json__arr_end(&j);
	ebs_json__obj_end(&j);
	ebs_json__end(&j);
}

/* ebs's own executable, for the cost loop. */
static const char *self_exe(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return "ebs";
	path[n] = '\0';
	return path;
}

int cli_calibrate(const char *cmd, struct cli_calibrate *cc, struct calibrate_result *r)
{
	struct ebs_error err = {0};
	int n, e;

	if (cc->o.rec.backend == BACKEND_KMOD && strchr(cc->events, ',')) {
		fprintf(stderr, "ebs %s: --backend=kmod samples one event, not '%s'\n", cmd,
			cc->events);
		return 2;
	}
	n = event_spec__parse_list(cc->events, cc->o.rec.events, EBS_MAX_EVENTS, &err);
	if (n < 0) {
		fprintf(stderr, "ebs %s: %s%s\n", cmd, err.msg, cli_code_tag(err.code));
		return 2;
	}
	cc->o.rec.nr_events = (unsigned int)n;
	if (!cc->o.rec.mmap_pages)
		cc->o.rec.mmap_pages = 128;
	cc->o.rec.cmdline = ebs_cmdline();
	if (kallsyms__stext(cc->stext, sizeof(cc->stext)) == 0)
		cc->o.rec.kernel_stext = cc->stext;
	cc->o.rec.notice = cli_warn;
	cc->o.rec.notice_ctx = (void *)"calibrate";
	cc->o.focus_fn = focus_share;
	cc->o.focus_ctx = cc;
	cc->o.self = self_exe();
	if (!cc->quiet) {
		cc->o.progress = cli_warn;
		cc->o.progress_ctx = (void *)"calibrate";
	}
	e = ebs_calibrate(&cc->o, r, &err);
	if (e) {
		fprintf(stderr, "ebs %s: %s%s\n", cmd, err.msg, cli_code_tag(err.code));
		/* -o's file that cannot be written: the environment's (README) */
		return err.output || e == -ENOMEM || e == -EIO || e == -ENOSPC ? 1 : 2;
	}
	return 0;
}

void cli_calibrate_print(FILE *f, const struct cli_calibrate *cc, const struct calibrate_result *r)
{
	if (cc->json)
		print_json(f, cc, r);
	else
		print_table(f, cc, r);
}

int cmd_calibrate(int argc, char **argv)
{
	static struct calibrate_result r;
	struct cli_calibrate cc;
	int ret;

	cli_calibrate_defaults(&cc);
	ret = cli_parse(&cli_calibrate_cmd, argc, argv, &cc);
	if (ret)
		return cli_exit(ret);
	if (optind >= argc) {
		fprintf(stderr,
			"ebs calibrate: no command: give one after '--' (see 'ebs calibrate "
			"--help')\n");
		return 2;
	}
	cc.o.rec.argv = argv + optind;
	if (cli_command_runnable("calibrate", cc.o.rec.argv[0]))
		return 2; /* before any notice about the events; calibrate's status for it */
	ret = cli_calibrate("calibrate", &cc, &r);
	if (ret)
		return ret;
	cli_calibrate_print(stdout, &cc, &r);
	if (cc.o.keep && !cc.json)
		fprintf(stdout, "# the verifying run's recording: %s\n", cc.o.keep);
	return 0;
}
