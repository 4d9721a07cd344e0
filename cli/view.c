// SPDX-License-Identifier: MIT
/*
 * view.c - the options of every command that reads a data file, parsed
 * once into a struct view_opts (builtin.h says which).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "symbolize/symbolize.h"

void cli_view_init(struct cli_view *cv, const char *cmd, struct view_opts *v)
{
	memset(cv, 0, sizeof(*cv));
	cv->cmd = cmd;
	cv->v = v;
	v->input = "ebs.data";
	v->out = stdout;
	v->warn = cli_warn;
	v->warn_ctx = (void *)cmd;
	v->progress = isatty(STDERR_FILENO) ? cli_progress : NULL;
	v->progress_ctx = (void *)cmd;
	v->filter.candidates = stderr;
}

/* in enum report_color's order */
static const char *const color_words[] = {"auto", "always", "never", NULL};

#define CV(ctx) ((struct cli_view *)(ctx))

/* -i, once or more: the first is v->input, all of them v->inputs (cli_view_done) */
static int set_input(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (cli_push_str(&CV(ctx)->inputs, &CV(ctx)->ninputs, arg)) {
		fprintf(stderr, "ebs %s: out of memory\n", CV(ctx)->cmd);
		return 1;
	}
	CV(ctx)->v->input = CV(ctx)->inputs[0];
	return 0;
}

static int set_top(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_u32(CV(ctx)->cmd, "--top", arg, 0, &CV(ctx)->v->top) ? 2 : 0;
}

static int set_min_percent(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_real(CV(ctx)->cmd, "--min-percent", arg, false, 100, &CV(ctx)->v->min_percent)
		       ? 2
		       : 0;
}

/* --event, --comm, --dso, --func, --kallsyms: a string of the filter or the view */
static int set_word(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct view_opts *v = CV(ctx)->v;

	switch (opt->letter ? opt->letter : opt->name[0]) {
	case 'e':
		v->filter.event = arg;
		break;
	case 'c':
		v->filter.comm = arg;
		break;
	case 'd':
		v->filter.dso = arg;
		break;
	case 'f':
		v->filter.funcs = arg;
		break;
	case 'k':
		v->kallsyms = arg;
		break;
	case 's':
		if (cli_symfs_dir(CV(ctx)->cmd, arg))
			return 2;
		v->symfs = arg;
		break;
	}
	return 0;
}

/* --pid, --tid: comma lists; --time: a range, or percent ranges; the last of each counts */
static int set_list(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct report_filter *f = &CV(ctx)->v->filter;
	struct ebs_error err = {0};
	struct report_time *times;
	size_t n;
	u32 *ids;
	int e;

	if (!strcmp(opt->name, "time")) {
		e = report_parse_time(arg, &times, &n, &err);
		if (!e) {
			free((void *)f->times);
			f->times = times;
			f->ntimes = n;
		}
	} else {
		e = report_parse_ids(arg, &ids, &n, &err);
		if (!e && opt->name[0] == 'p') {
			free((void *)f->pids);
			f->pids = ids;
			f->npids = n;
		} else if (!e) {
			free((void *)f->tids);
			f->tids = ids;
			f->ntids = n;
		}
	}
	if (!e)
		return 0;
	fprintf(stderr, "ebs %s: --%s '%s': %s\n", CV(ctx)->cmd, opt->name, arg, err.msg);
	return e == -ENOMEM ? 1 : 2;
}

/* --no-inline, --[no-]demangle, --no-cache, --offline, --force: a bool of the view */
static int set_flag(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct view_opts *v = CV(ctx)->v;

	(void)arg;
	if (!strcmp(opt->name, "no-inline"))
		v->no_inline = true;
	else if (!strcmp(opt->name, "demangle") || !strcmp(opt->name, "no-demangle"))
		v->no_demangle = opt->name[0] == 'n';
	else if (!strcmp(opt->name, "no-cache"))
		v->no_cache = true;
	else if (!strcmp(opt->name, "offline"))
		v->offline = true;
	else if (!strcmp(opt->name, "force"))
		v->force = true;
	return 0;
}

static int set_color(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice(CV(ctx)->cmd, "--color", arg, color_words, &u))
		return 2;
	CV(ctx)->v->color = (enum report_color)u;
	return 0;
}

static int add_debug_dir(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (cli_push_str(&CV(ctx)->dirs, &CV(ctx)->ndirs, arg)) {
		fprintf(stderr, "ebs %s: out of memory\n", CV(ctx)->cmd);
		return 1;
	}
	return 0;
}

const struct cli_opt cli_view_options[] = {
	{"input", 'i', "FILE",
	 "the data file, ebs.data or perf.data (default ebs.data; '-': stdin); several -i: "
	 "their recordings as one",
	 CLI_CALL, .fn = set_input},
	{"event", 'e', "NAME", "only the samples of event NAME", CLI_CALL, .fn = set_word},
	{"top", 'n', "N", "the first N rows (0: all)", CLI_CALL, .fn = set_top},
	{"min-percent", 0, "P", "leave out rows below P percent", CLI_CALL, .fn = set_min_percent},
	{"time", 0, "START,END",
	 "only the samples from START to before END, seconds from the recording's start (either "
	 "may be empty); or percent ranges of its span, as 10%-20%,30%-40% or 25%/2",
	 CLI_CALL, .fn = set_list},
	{"pid", 0, "PIDS", "only the samples of these processes (comma-separated)", CLI_CALL,
	 .fn = set_list},
	{"tid", 0, "TIDS", "only the samples of these threads (comma-separated)", CLI_CALL,
	 .fn = set_list},
	{"comm", 0, "NAME", "only the samples of commands named NAME", CLI_CALL, .fn = set_word},
	{"dso", 0, "NAME", "only the samples in DSO NAME", CLI_CALL, .fn = set_word},
	{"func", 0, "NAMES",
	 "only the samples whose function, or one inlined there, is one of NAMES "
	 "(comma-separated)",
	 CLI_CALL, .fn = set_word},
	{"no-inline", 0, NULL,
	 "inlined code counts for the function it was inlined into, at the call site", CLI_CALL,
	 .fn = set_flag},
	{"color", 0, "WHEN", "auto (on a terminal, the default), always or never", CLI_CALL,
	 .fn = set_color},
	{"colour", 0, "WHEN", "--color", CLI_CALL, CLI_HIDDEN, .fn = set_color},
	{"debug-dir", 0, "DIR", "look for separate debug files under DIR too; may be repeated",
	 CLI_CALL, .fn = add_debug_dir},
	{"symfs", 0, "DIR",
	 "look for the recorded files under DIR (a copy of the recording machine's tree) "
	 "instead of /",
	 CLI_CALL, .fn = set_word},
	{"offline", 0, NULL, "never ask a debuginfod server ($DEBUGINFOD_URLS) for files", CLI_CALL,
	 .fn = set_flag},
	{"demangle", 0, NULL, "C++ and Rust names demangled (the default)", CLI_CALL,
	 .fn = set_flag},
	{"no-demangle", 0, NULL, "names as the files have them", CLI_CALL, .fn = set_flag},
	{"kallsyms", 0, "FILE", "kernel symbols from FILE instead of /proc/kallsyms", CLI_CALL,
	 .fn = set_word},
	{"no-cache", 0, NULL,
	 "decode DWARF afresh, neither reading nor writing the cache ($XDG_CACHE_HOME/ebs)",
	 CLI_CALL, .fn = set_flag},
	{"force", 0, NULL,
	 "read the data file whoever owns it, in a directory others can write too", CLI_CALL,
	 .fn = set_flag},
	{"no-pager", 0, NULL, "on a terminal too, no pager ($EBS_PAGER, $PAGER or less)", CLI_SET,
	 .off = CLI_BOOL_AT(struct cli_view, no_pager)},
	{0},
};

int cli_view_width(const char *cmd, const char *arg, struct view_opts *v)
{
	unsigned int u = 0;

	if (strcmp(arg, "0") && cli_u32(cmd, "--width", arg, 20, &u))
		return 2;
	v->width = strcmp(arg, "0") ? (int)u : -1;
	return 0;
}

/*
 * The build-id cache (docs/symbolize.md) as the last of v's build-id
 * directories, when it is there and may be used (else one warning line,
 * or none when it is not there): a file gone or rebuilt since the
 * recording is found there by its build-id.
 */
static void use_buildid_cache(struct cli_view *cv)
{
	struct view_opts *v = cv->v;
	size_t n = 0;

	cv->buildid_cache = buildid_cache__new(NULL, v->warn, v->warn_ctx);
	if (!cv->buildid_cache || buildid_cache__readable(cv->buildid_cache))
		return;
	while (v->buildid_dirs && v->buildid_dirs[n])
		n++;
	cv->buildid_dirs = calloc(n + 2, sizeof(*cv->buildid_dirs));
	if (!cv->buildid_dirs)
		return; /* no memory: without it */
	if (n)
		memcpy(cv->buildid_dirs, v->buildid_dirs, n * sizeof(*cv->buildid_dirs));
	cv->buildid_dirs[n] = buildid_cache__dir(cv->buildid_cache);
	v->buildid_dirs = cv->buildid_dirs;
}

void cli_view_done(struct cli_view *cv, bool to_file)
{
	cv->v->debug_dirs = cv->dirs;
	use_buildid_cache(cv);
	if (cv->ninputs > 1) {
		cv->v->inputs = cv->inputs;
		cv->v->ninputs = cv->ninputs;
	}
	if (!to_file) /* started at the first line */
		cv->v->out = cli_pager_stream(cv->no_pager, &cv->v->color, &cv->v->width);
}

int cli_view_result(struct cli_view *cv, int e, const struct ebs_error *err)
{
	const char *input = cv->v->input;
	unsigned int i;
	struct stat st;

	if (!e)
		return 0;
	fflush(cv->v->out);
	/* several: the hint is for the one that is missing */
	for (i = 0; i < cv->ninputs && cv->ninputs > 1; i++)
		if (strcmp(cv->inputs[i], "-") && stat(cv->inputs[i], &st) && errno == ENOENT) {
			input = cv->inputs[i];
			break;
		}
	return cli_input_error(cv->cmd, input, e, err);
}

void cli_view_free(struct cli_view *cv)
{
	if (cv->v) {
		free((void *)cv->v->filter.times);
		free((void *)cv->v->filter.pids);
		free((void *)cv->v->filter.tids);
		cv->v->filter.times = NULL;
		cv->v->filter.pids = cv->v->filter.tids = NULL;
		cv->v->filter.ntimes = cv->v->filter.npids = cv->v->filter.ntids = 0;
	}
	free(cv->dirs);
	cv->dirs = NULL;
	cv->ndirs = 0;
	free(cv->buildid_dirs);
	cv->buildid_dirs = NULL;
	buildid_cache__free(cv->buildid_cache);
	cv->buildid_cache = NULL;
	free(cv->inputs);
	cv->inputs = NULL;
	cv->ninputs = 0;
}
