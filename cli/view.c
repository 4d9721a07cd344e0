// SPDX-License-Identifier: MIT
/*
 * view.c - the options of every command that reads a data file, parsed
 * once into a struct view_opts (builtin.h says which).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"

void cli_view_init(struct cli_view *cv, const char *cmd, struct view_opts *v)
{
	memset(cv, 0, sizeof(*cv));
	cv->cmd = cmd;
	cv->v = v;
	v->input = "ebs.data";
	v->out = stdout;
	v->warn = cli_warn;
	v->warn_ctx = (void *)cmd;
	v->filter.candidates = stderr;
}

/* in enum report_color's order */
static const char *const color_words[] = {"auto", "always", "never", NULL};

static int view_option(struct cli_view *cv, int c, const char *arg)
{
	struct view_opts *v = cv->v;
	struct report_filter *f = &v->filter;
	unsigned int u;

	switch (c) {
	case 'i':
		v->input = arg;
		return 1;
	case 'n':
		return cli_u32(cv->cmd, "--top", arg, 0, &v->top) ? -EINVAL : 1;
	case CLI_OPT_MIN:
		return cli_real(cv->cmd, "--min-percent", arg, false, 100, &v->min_percent)
			       ? -EINVAL
			       : 1;
	case 'e':
		f->event = arg;
		return 1;
	case CLI_OPT_PID:
	case CLI_OPT_TID:
		if (cli_u32(cv->cmd, c == CLI_OPT_PID ? "--pid" : "--tid", arg, 1, &u))
			return -EINVAL;
		*(c == CLI_OPT_PID ? &f->pid : &f->tid) = u;
		return 1;
	case CLI_OPT_COMM:
		f->comm = arg;
		return 1;
	case CLI_OPT_DSO:
		f->dso = arg;
		return 1;
	case CLI_OPT_FUNC:
		f->funcs = arg;
		return 1;
	case CLI_OPT_NO_INLINE:
		v->no_inline = true;
		return 1;
	case CLI_OPT_COLOR:
		if (cli_choice(cv->cmd, "--color", arg, color_words, &u))
			return -EINVAL;
		v->color = (enum report_color)u;
		return 1;
	case CLI_OPT_DEBUG_DIR:
		if (cli_push_str(&cv->dirs, &cv->ndirs, arg)) {
			fprintf(stderr, "ebs %s: out of memory\n", cv->cmd);
			return -ENOMEM;
		}
		return 1;
	case CLI_OPT_KALLSYMS:
		v->kallsyms = arg;
		return 1;
	case CLI_OPT_DEMANGLE:
	case CLI_OPT_NO_DEMANGLE:
		v->no_demangle = c == CLI_OPT_NO_DEMANGLE;
		return 1;
	case CLI_OPT_NO_PAGER:
		cv->no_pager = true;
		return 1;
	case CLI_OPT_NO_CACHE:
		v->no_cache = true;
		return 1;
	case CLI_OPT_FORCE:
		v->force = true;
		return 1;
	}
	return 0;
}

int cli_view_option(struct cli_view *cv, int c, const char *arg, char **argv)
{
	int e = view_option(cv, c, arg);

	if (e < 0)
		return e == -ENOMEM ? 1 : 2;
	return e ? 0 : cli_bad_option(cv->cmd, c, argv);
}

void cli_view_done(struct cli_view *cv, bool to_file)
{
	cv->v->debug_dirs = cv->dirs;
	if (!to_file) /* started at the first line */
		cv->v->out = cli_pager_stream(cv->no_pager, &cv->v->color, &cv->v->width);
}

int cli_view_result(struct cli_view *cv, int e, const struct ebs_error *err)
{
	if (!e)
		return 0;
	fflush(cv->v->out);
	return cli_input_error(cv->cmd, cv->v->input, e, err);
}

void cli_view_free(struct cli_view *cv)
{
	free(cv->dirs);
	cv->dirs = NULL;
	cv->ndirs = 0;
}
