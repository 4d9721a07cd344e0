// SPDX-License-Identifier: MIT
/*
 * options.c - the command line from each command's table (options.h):
 * getopt_long's arrays, the loop, --help, and the number and word parsers
 * every option's handler shares.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

/* a command's options, its own and included, --help too (report has 32) */
#define MAX_OPTS 64

/* One option of a command, its table's entries and included ones flattened. */
struct flat {
	const struct cli_opt *o;
	void *ctx;
	bool hidden; /* CLI_HIDDEN, or named by its include's hide */
};

/* Is o one of the long names in the space-separated list hide? */
static bool hidden_by(const char *hide, const struct cli_opt *o)
{
	size_t n = o->name ? strlen(o->name) : 0;
	const char *p;

	for (p = hide; n && p && (p = strstr(p, o->name)); p += n)
		if ((p == hide || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

static const struct cli_opt help_opt = {"help", 'h', NULL, "this text", CLI_CALL, .flags = 0};

/* Does table t (not the tables it includes) name o's long name or letter? */
static bool shadowed(const struct cli_opt *t, const struct cli_opt *o)
{
	for (; t && t->kind != CLI_END; t++)
		if (t->kind != CLI_INCLUDE && ((o->name && t->name && !strcmp(o->name, t->name)) ||
					       (o->letter && t->letter == o->letter)))
			return true;
	return false;
}

/* t's entries into f (from *n), included tables in place; help last */
static void flatten(const struct cli_opt *t, void *ctx, struct flat *f, unsigned int *n)
{
	const struct cli_opt *o;

	for (o = t; o->kind != CLI_END && *n < MAX_OPTS - 1; o++) {
		if (o->kind == CLI_INCLUDE) {
			const struct cli_opt *s;
			void *sctx = ctx ? (char *)ctx + o->off : NULL;

			for (s = o->sub; s->kind != CLI_END && *n < MAX_OPTS - 1; s++)
				if (!shadowed(t, s))
					f[(*n)++] = (struct flat){s, sctx,
								  s->flags & CLI_HIDDEN ||
									  hidden_by(o->hide, s)};
		} else {
			f[(*n)++] = (struct flat){o, ctx, o->flags & CLI_HIDDEN};
		}
	}
}

static unsigned int flat_opts(const struct cli_cmd *cmd, void *ctx, struct flat *f)
{
	unsigned int n = 0;

	flatten(cmd->opts, ctx, f, &n);
	if (!cmd->no_help)
		f[n++] = (struct flat){&help_opt, NULL, false};
	return n;
}

/*
 * A long option abbreviated to a prefix of several ("--c": --children,
 * --callers...): one line naming them; getopt_long says only '?'.  True
 * when it was one.
 */
static bool ambiguous(const char *cmd, const char *arg, const struct option *longopts)
{
	size_t len, i, hits = 0;
	char list[512] = "";
	size_t at = 0;

	if (strncmp(arg, "--", 2) != 0)
		return false;
	arg += 2;
	len = strcspn(arg, "=");
	for (i = 0; longopts[i].name; i++) {
		if (strncmp(longopts[i].name, arg, len) != 0)
			continue;
		if (strlen(longopts[i].name) == len)
			return false; /* an exact name is never ambiguous */
		if (at < sizeof(list))
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s--%s",
					       hits ? ", " : "", longopts[i].name);
		hits++;
	}
	if (hits < 2)
		return false;
	fprintf(stderr, "ebs %s: ambiguous option '--%.*s': %s (see 'ebs %s --help')\n", cmd,
		(int)len, arg, list, cmd);
	return true;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *ctx)
{
	struct option longopts[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 3];
	struct flat f[MAX_OPTS];
	unsigned int n = flat_opts(cmd, ctx, f), i, nl = 0;
	size_t ns = 0;
	int c, e;

	if (cmd->in_order)
		shorts[ns++] = '+';
	shorts[ns++] = ':';
	for (i = 0; i < n; i++) {
		const struct cli_opt *o = f[i].o;
		int has = !o->arg		    ? no_argument
			  : o->flags & CLI_OPTIONAL ? optional_argument
						    : required_argument;

		if (o->letter) {
			shorts[ns++] = o->letter;
			if (has != no_argument)
				shorts[ns++] = ':';
			if (has == optional_argument)
				shorts[ns++] = ':';
		}
		if (o->name)
			longopts[nl++] = (struct option){o->name, has, NULL,
							 o->letter ? o->letter : 0x100 + (int)i};
	}
	shorts[ns] = '\0';
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
	optind = 0; /* not 1: glibc then reads shorts' '+' afresh, after ebs's own parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct cli_opt *o = NULL;
		void *octx = NULL;

		if (c >= 0x100 && c < 0x100 + (int)n) {
			o = f[c - 0x100].o;
			octx = f[c - 0x100].ctx;
		}
		for (i = 0; !o && c != '?' && c != ':' && i < n; i++)
			if (f[i].o->letter == c) {
				o = f[i].o;
				octx = f[i].ctx;
			}
		if (!o && c == '?' && !optopt && ambiguous(cmd->name, argv[optind - 1], longopts))
			return 2;
		if (!o)
			return cmd->bad ? cmd->bad(cmd, c, argv)
					: cli_bad_option(cmd->name, c, argv);
		if (o == &help_opt) {
			if (cmd->usage_fn)
				cmd->usage_fn(stdout, cmd);
			else
				cli_usage(stdout, cmd);
			return CLI_EXIT_HELP;
		}
		switch (o->kind) {
		case CLI_SET:
		case CLI_CLEAR:
			*(bool *)((char *)octx + o->off) = o->kind == CLI_SET;
			break;
		case CLI_FILE:
			if (!*optarg) {
				if (o->letter)
					fprintf(stderr, "ebs %s: -%c wants a file name\n",
						cmd->name, o->letter);
				else
					fprintf(stderr, "ebs %s: --%s wants a file name\n",
						cmd->name, o->name);
				return 2;
			}
			/* fall through */
		case CLI_STR:
			*(const char **)((char *)octx + o->off) = optarg;
			break;
		case CLI_CALL:
			e = o->fn(octx, o, optarg);
			if (e)
				return e;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* "-i, --input FILE", "    --calibrate[=TARGETS]", "-g" */
static void option_words(char *buf, size_t size, const struct cli_opt *o)
{
	const char *arg = o->arg ? o->arg : "";
	const char *sep = !o->arg ? "" : o->flags & CLI_OPTIONAL ? "[=" : " ";
	const char *end = o->arg && o->flags & CLI_OPTIONAL ? "]" : "";

	if (!o->name)
		snprintf(buf, size, "-%c%s%s", o->letter, o->arg ? " " : "", arg);
	else if (o->letter)
		snprintf(buf, size, "-%c, --%s%s%s%s", o->letter, o->name, sep, arg, end);
	else
		snprintf(buf, size, "    --%s%s%s%s", o->name, sep, arg, end);
}

#define HELP_COL   24 /* where help starts */
#define HELP_WIDTH 79

/* text word-wrapped from column col (where the caller is) to HELP_WIDTH */
static void wrap(FILE *f, const char *text, int col)
{
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > HELP_COL && col + 1 + (int)w > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, p);
		col += (int)w;
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

static void usage_table(FILE *f, const struct cli_opt *t, const struct cli_opt *outer,
			const char *hide)
{
	const struct cli_opt *o;
	char words[128];

	for (o = t; o->kind != CLI_END; o++) {
		int w;

		if (o->kind == CLI_INCLUDE) {
			if (o->help)
				fprintf(f, "%s\n", o->help);
			usage_table(f, o->sub, t, o->hide);
			if (o->help && (o + 1)->kind != CLI_END)
				fputc('\n', f);
			continue;
		}
		if (o->flags & CLI_HIDDEN || (outer && shadowed(outer, o)) || hidden_by(hide, o))
			continue;
		option_words(words, sizeof(words), o);
		w = fprintf(f, "  %s", words);
		if (w >= HELP_COL - 1) {
			fprintf(f, "\n%*s", HELP_COL, "");
			w = HELP_COL;
		} else {
			w += fprintf(f, "%*s", HELP_COL - w, "");
		}
		wrap(f, o->help ? o->help : "", w);
	}
}

void cli_usage(FILE *f, const struct cli_cmd *cmd)
{
	fputs(cmd->usage, f);
	if (cmd->about)
		fprintf(f, "\n%s", cmd->about);
	fputc('\n', f);
	usage_table(f, cmd->opts, NULL, NULL);
	fprintf(f, "  -h, --help%*s%s\n", HELP_COL - 12, "", help_opt.help);
	if (cmd->notes)
		fprintf(f, "\n%s", cmd->notes);
}

void cli_dump_options(FILE *f, const struct cli_cmd *cmd)
{
	struct flat fl[MAX_OPTS];
	unsigned int n = flat_opts(cmd, NULL, fl), i;

	for (i = 0; i < n; i++) {
		const struct cli_opt *o = fl[i].o;
		bool opt = o->flags & CLI_OPTIONAL;

		char letter[3] = {'-', o->letter, '\0'};

		fprintf(f, "%s\t%s%s\t%s%s%s\t%s\n", o->letter ? letter : "", o->name ? "--" : "",
			o->name ? o->name : "", opt ? "[=" : "", o->arg ? o->arg : "",
			opt ? "]" : "", fl[i].hidden ? "hidden" : "");
	}
}

const struct cli_opt *cli_find_option(const struct cli_cmd *cmd, const char *word)
{
	struct flat fl[MAX_OPTS];
	unsigned int n = flat_opts(cmd, NULL, fl), i, hits = 0;
	const struct cli_opt *hit = NULL;
	size_t len;

	if (word[0] != '-' || !word[1])
		return NULL;
	if (word[1] != '-') {
		for (i = 0; i < n; i++)
			if (fl[i].o->letter == word[1])
				return fl[i].o;
		return NULL;
	}
	len = strcspn(word + 2, "=");
	for (i = 0; i < n; i++) {
		const char *name = fl[i].o->name;

		if (!name || strncmp(name, word + 2, len))
			continue;
		if (!name[len])
			return fl[i].o; /* exact */
		hit = fl[i].o;
		hits++;
	}
	return hits == 1 ? hit : NULL;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "ebs %s: option '%s' wants an argument (see 'ebs %s --help')\n",
			cmd, opt, cmd);
	else if (optopt)
		fprintf(stderr, "ebs %s: unknown option '-%c' (see 'ebs %s --help')\n", cmd, optopt,
			cmd);
	else
		fprintf(stderr, "ebs %s: unknown option '%s' (see 'ebs %s --help')\n", cmd, opt,
			cmd);
	return 2;
}

int cli_parse_number(const char *s, u64 min, u64 max, bool hex_ok, u64 *out)
{
	bool hex = hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *p = hex ? s + 2 : s;
	unsigned int base = hex ? 16 : 10, d;
	u64 v = 0;

	if (!*p)
		return -EINVAL;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (hex && *p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_pids(const char *cmd, const char *s, pid_t **pids, unsigned int *nr)
{
	char *copy = strdup(s), *tok, *next;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = copy; tok && !err; tok = next) {
		unsigned int i;
		pid_t *n;
		u64 v;

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!*tok) {
			fprintf(stderr, "ebs %s: -p wants pids, comma-separated, not '%s'\n", cmd,
				s);
			err = -EINVAL;
			break;
		}
		if (cli_parse_number(tok, 1, INT_MAX, false, &v)) {
			fprintf(stderr, "ebs %s: -p: '%s' is not a pid\n", cmd, tok);
			err = -EINVAL;
			break;
		}
		if (kill((pid_t)v, 0) < 0 && errno == ESRCH) {
			fprintf(stderr, "ebs %s: pid %llu: no such process\n", cmd,
				(unsigned long long)v);
			err = -ESRCH;
			break;
		}
		for (i = 0; i < *nr && (*pids)[i] != (pid_t)v; i++)
			;
		if (i < *nr)
			continue; /* given before: one set of counters per thread */
		n = realloc(*pids, (*nr + 1) * sizeof(*n));
		if (!n) {
			err = -ENOMEM;
			break;
		}
		*pids = n;
		(*pids)[(*nr)++] = (pid_t)v;
	}
	free(copy);
	return err;
}

int cli_number(const char *cmd, const char *opt, const char *s, u64 min, u64 max, bool hex_ok,
	       u64 *out)
{
	if (!cli_parse_number(s, min, max, hex_ok, out))
		return 0;
	if (min == 1)
		fprintf(stderr, "ebs %s: %s wants a positive number up to %llu%s, not '%s'\n", cmd,
			opt, (unsigned long long)max,
			hex_ok ? " (decimal, or hexadecimal with 0x)" : "", s);
	else
		fprintf(stderr, "ebs %s: %s wants a whole number from %llu to %llu%s, not '%s'\n",
			cmd, opt, (unsigned long long)min, (unsigned long long)max,
			hex_ok ? " (decimal, or hexadecimal with 0x)" : "", s);
	return -EINVAL;
}

int cli_u32(const char *cmd, const char *opt, const char *s, unsigned int min, unsigned int *out)
{
	u64 v;

	if (cli_number(cmd, opt, s, min, INT_MAX, false, &v))
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

int cli_real(const char *cmd, const char *opt, const char *s, bool above_zero, double max,
	     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(above_zero ? v > 0 : v >= 0) || !(v <= max)) {
		if (!above_zero)
			fprintf(stderr, "ebs %s: %s wants 0 to %g, not '%s'\n", cmd, opt, max, s);
		else if (max < 1e300)
			fprintf(stderr,
				"ebs %s: %s wants a number above 0 and at most %g, not '%s'\n", cmd,
				opt, max, s);
		else
			fprintf(stderr, "ebs %s: %s wants a number above 0, not '%s'\n", cmd, opt,
				s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

const char *const cli_backend_words[] = {"perf", "kmod", NULL};

int cli_choice(const char *cmd, const char *opt, const char *s, const char *const *words,
	       unsigned int *out)
{
	char list[256] = "";
	size_t n = 0;
	unsigned int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(s, words[i])) {
			*out = i;
			return 0;
		}
	for (i = 0; words[i] && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
				      !i	     ? ""
				      : words[i + 1] ? ", "
						     : " or ",
				      words[i]);
	fprintf(stderr, "ebs %s: %s '%s': %s\n", cmd, opt, s, list);
	return -EINVAL;
}

int cli_push_str(const char ***v, unsigned int *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}
