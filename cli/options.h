/* SPDX-License-Identifier: MIT */
/*
 * options.h - the command line, declared: one table per command.
 *
 * Each command states its options once, as a table of struct cli_opt:
 * the long name, the short letter, the argument's name, one line of help,
 * and what the option does (set a bool, keep a string, or call a handler).
 * cli_parse() builds getopt_long(3)'s short string and struct option array
 * from the table, runs the loop, calls the handlers, and answers --help and
 * -h (every command has them) with the usage printed from the same table;
 * `ebs --dump-options CMD` prints it for the test that holds the man pages
 * to it (tests/integration/options-doc.sh).  A table can include another
 * (the options every reader of a data file takes, view.c's
 * cli_view_options): the including table's own entries win over an
 * included one of the same name or letter.
 *
 * The number, word and pid parsers every handler uses are here too: their
 * error lines ("ebs CMD: OPT wants ...") are the house's.
 */
#ifndef EBS_CLI_OPTIONS_H
#define EBS_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/util.h"

enum cli_kind {
	CLI_END = 0, /* the table's last entry */
	CLI_SET,     /* bool at off: true */
	CLI_CLEAR,   /* bool at off: false */
	CLI_STR,     /* const char * at off: the argument */
	CLI_FILE,    /* the same, not "" ("ebs CMD: -o wants a file name") */
	CLI_CALL,    /* fn(ctx, opt, arg) */
	CLI_INCLUDE, /* the entries of sub, with ctx + off as their ctx */
};

enum {
	CLI_HIDDEN = 1 << 0,   /* not in --help nor docs: an alias, or one refused */
	CLI_OPTIONAL = 1 << 1, /* the argument may be left out (--calibrate[=T]) */
};

struct cli_opt;
/* 0, or after one line naming the command and the option, the exit status */
typedef int (*cli_handler)(void *ctx, const struct cli_opt *opt, const char *arg);

struct cli_opt {
	const char *name; /* without the "--"; NULL: a short option only */
	char letter;	  /* the short option, or 0 */
	const char *arg;  /* its argument as help and man page name it; NULL: none */
	const char *help; /* one sentence (wrapped when printed); for CLI_INCLUDE, a heading */
	enum cli_kind kind;
	unsigned int flags;	   /* CLI_HIDDEN, CLI_OPTIONAL */
	size_t off;		   /* CLI_SET, CLI_CLEAR, CLI_STR: the target's offset in ctx */
	cli_handler fn;		   /* CLI_CALL */
	const struct cli_opt *sub; /* CLI_INCLUDE */
	/*
	 * CLI_INCLUDE: long names of sub's, space-separated, that this command
	 * takes as before but that do nothing here (flamegraph's --top): not
	 * in its --help nor its man page.
	 */
	const char *hide;
};

/*
 * The target of CLI_SET, CLI_CLEAR and CLI_STR, checked to be a bool (a
 * const char *) at compile time: a table's offsetof that names a field of
 * another type is a warning, so an error under CI.
 */
#define CLI_BOOL_AT(type, field)                                                                   \
	(offsetof(type, field) + 0 * sizeof(&((type *)0)->field == (bool *)0))
#define CLI_STR_AT(type, field)                                                                    \
	(offsetof(type, field) + 0 * sizeof(&((type *)0)->field == (const char **)0))

struct cli_cmd {
	const char *name;  /* "report": error lines "ebs report: ..." */
	const char *usage; /* the synopsis: "usage: ebs report [OPTIONS]\n" ... */
	const char *about; /* after it, before the options; or NULL */
	const char *notes; /* after the options; or NULL */
	const struct cli_opt *opts;
	bool in_order; /* options end at the first operand (getopt's "+") */
	bool no_help;  /* no --help, -h (a table parsed inside another's option) */
	/*
	 * getopt said '?' or ':' (argv[optind - 1] the word): one line, the
	 * exit status; NULL: cli_bad_option's line.
	 */
	int (*bad)(const struct cli_cmd *cmd, int c, char **argv);
	/* --help's text, when not cli_usage()'s (ebs's own, a table of commands) */
	void (*usage_fn)(FILE *f, const struct cli_cmd *cmd);
};

/*
 * Parse argv's options with cmd's table, ctx the handlers' and the
 * targets' base.  0: parsed, optind at the first operand; else the command
 * stops: CLI_EXIT_HELP after --help (exit 0), or the exit status after one
 * line (2: bad usage, 1: no memory).  cli_exit() turns it into the status.
 */
#define CLI_EXIT_HELP (-1)
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *ctx);
static inline int cli_exit(int e)
{
	return e == CLI_EXIT_HELP ? 0 : e;
}

/* cmd's --help text: synopsis, about, each option with its help, notes. */
void cli_usage(FILE *f, const struct cli_cmd *cmd);

/*
 * One line per option, tab-separated: "-i", "--input", "FILE", and
 * "hidden" for one --help does not show ("" where there is none); for
 * tests/integration/options-doc.sh.
 */
void cli_dump_options(FILE *f, const struct cli_cmd *cmd);

/*
 * The option of cmd's table that word (an argument: "--rate=5", "-q")
 * names, or NULL; long names as getopt_long takes them (a unique prefix).
 */
const struct cli_opt *cli_find_option(const struct cli_cmd *cmd, const char *word);

/*
 * getopt_long returned '?' or ':': print one line naming the option and
 * return the exit status 2.
 */
int cli_bad_option(const char *cmd, int c, char **argv);

/*
 * The one number parser of the command line.  s is decimal digits only: no
 * sign, no space, no other base (a leading 0 does not make it octal); with
 * hex_ok, where an option documents it, also 0x and hexadecimal digits.
 * cli_parse_number() returns 0 with *out in min..max, -ERANGE outside it,
 * -EINVAL for anything else, and prints nothing; cli_number() prints one
 * line naming the command, the option, the range and the value on error
 * and returns -EINVAL.
 */
int cli_parse_number(const char *s, u64 min, u64 max, bool hex_ok, u64 *out);
int cli_number(const char *cmd, const char *opt, const char *s, u64 min, u64 max, bool hex_ok,
	       u64 *out);

/*
 * A whole decimal number from min to INT_MAX (callers keep some in an
 * int), with one line naming the command and the option on error
 * (returning -EINVAL).
 */
int cli_u32(const char *cmd, const char *opt, const char *s, unsigned int min, unsigned int *out);

/*
 * A real number: from 0 (above 0 with above_zero) to max (max >= 1e300: no
 * limit), in *out; else one line naming the command, the option, the range
 * and the value, and -EINVAL.
 */
int cli_real(const char *cmd, const char *opt, const char *s, bool above_zero, double max,
	     double *out);

/*
 * One word of a NULL-terminated list: *out its index; else one line
 * "ebs CMD: OPT 'S': a, b or c" and -EINVAL.
 */
int cli_choice(const char *cmd, const char *opt, const char *s, const char *const *words,
	       unsigned int *out);
extern const char *const cli_backend_words[]; /* --backend: enum record_backend's order */

/*
 * -p P[,P...]: each a pid that exists, appended to *pids (a pid given twice
 * counts once).  0, or -errno after one line naming cmd and the pid.
 */
int cli_parse_pids(const char *cmd, const char *s, pid_t **pids, unsigned int *nr);

/* Append s to the NULL-terminated vector *v of *n strings; 0 or -ENOMEM. */
int cli_push_str(const char ***v, unsigned int *n, const char *s);

#endif
