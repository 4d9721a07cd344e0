// SPDX-License-Identifier: MIT
/*
 * cmd-addr2line.c - ebs addr2line: resolve link-time addresses of an ELF
 * file with ebs's symbolizer, printing what elfutils' `eu-addr2line -f -i
 * -C --pretty-print` prints: per address, "FUNCTION at FILE:LINE:COLUMN",
 * then " (inlined by) CALLER at FILE:LINE:COLUMN" for each function the code
 * was inlined into.  For checking ebs against elfutils, and for scripts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "symbolize/symbolize.h"

/*
 * Warnings go to stderr, except while the file is first loaded: then they
 * are held, so that a file that cannot be used at all is one error line,
 * not a warning and an error.
 */
struct warn_hold {
	bool holding;
	const char **msgs; /* strdup'd */
	unsigned int n;
};

static void warn_cb(void *ctx, enum ebs_code code, const char *line)
{
	struct warn_hold *h = ctx;
	char *copy = NULL;

	if (h->holding && asprintf(&copy, "%s%s", line, cli_code_tag(code)) < 0)
		copy = NULL;
	if (copy && !cli_push_str(&h->msgs, &h->n, copy))
		return;
	free(copy);
	cli_warn((void *)"addr2line", code, line);
}

/* Stop holding: print the held warnings (or drop them), free them. */
static void warn_release(struct warn_hold *h, bool print)
{
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		if (print)
			fprintf(stderr, "ebs addr2line: %s\n", h->msgs[i]);
		free((char *)h->msgs[i]);
	}
	free(h->msgs);
	h->msgs = NULL;
	h->n = 0;
	h->holding = false;
}

/* "FILE:LINE:COLUMN", as elfutils' addr2line writes it; "??:0" when unknown. */
static void print_loc(const char *file, u32 line, u32 column)
{
	if (!file && !line)
		printf("??:0\n");
	else if (column)
		printf("%s:%u:%u\n", file ? file : "??", line, column);
	else
		printf("%s:%u\n", file ? file : "??", line);
}

static int resolve(struct symbolizer *s, const char *exe, const char *text)
{
	struct sym_result r;
	unsigned int i;
	char *end;
	u64 addr;

	errno = 0;
	addr = strtoull(text, &end, 16);
	if (errno || end == text || *end || text[0] == '-') {
		/* keep one answer per address, so output lines up with input */
		fprintf(stderr, "ebs addr2line: '%.64s%s' is not a hex address\n", text,
			strlen(text) > 64 ? "..." : "");
		printf("?? at ??:0\n");
		return 2;
	}
	if (symbolizer__lookup_file(s, exe, addr, &r)) {
		fprintf(stderr, "ebs addr2line: %s: out of memory\n", exe);
		return 1;
	}
	if (!r.nr_frames) {
		printf("%s at ", r.function ? r.function : "??");
		print_loc(NULL, 0, 0);
		return 0;
	}
	for (i = 0; i < r.nr_frames; i++) {
		const struct sym_frame *f = &r.frames[i];

		/* a frame DWARF leaves unnamed: the symbol table's name */
		printf("%s%s at ", i ? " (inlined by) " : "",
		       f->function ? f->function : (r.function ? r.function : "??"));
		print_loc(f->file, f->line, f->column);
	}
	return 0;
}

struct addr2line_args {
	const char *exe;
	const char **dirs; /* --debug-dir, NULL-terminated */
	unsigned int ndirs;
	bool no_demangle, no_cache;
	bool habit; /* -f, -i, -C: what ebs addr2line always does */
};

static int add_debug_dir(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct addr2line_args *a = ctx;

	(void)opt;
	if (!cli_push_str(&a->dirs, &a->ndirs, arg))
		return 0;
	fprintf(stderr, "ebs addr2line: out of memory\n");
	return 1;
}

#define AA(field) CLI_BOOL_AT(struct addr2line_args, field)

static const struct cli_opt addr2line_opts[] = {
	{"exe", 'e', "FILE", "the ELF file whose (link-time, hex) addresses these are", CLI_STR,
	 .off = CLI_STR_AT(struct addr2line_args, exe)},
	{"debug-dir", 0, "DIR", "look for separate debug files under DIR too", CLI_CALL,
	 .fn = add_debug_dir},
	{"no-demangle", 0, NULL, "print C++ and Rust names as they are in the file", CLI_SET,
	 .off = AA(no_demangle)},
	{"no-cache", 0, NULL, "decode DWARF afresh, without the cache ($XDG_CACHE_HOME/ebs)",
	 CLI_SET, .off = AA(no_cache)},
	{"functions", 'f', NULL, "taken, as binutils' addr2line's: functions are always shown",
	 CLI_SET, .off = AA(habit)},
	{"inlines", 'i', NULL, "taken, as binutils' addr2line's: inline chains are always shown",
	 CLI_SET, .off = AA(habit)},
	{"demangle", 'C', NULL,
	 "taken, as binutils' addr2line's: names are demangled unless "
	 "--no-demangle",
	 CLI_SET, .off = AA(habit)},
	{0},
};

const struct cli_cmd cli_addr2line_cmd = {
	.name = "addr2line",
	.usage = "usage: ebs addr2line -e FILE [--debug-dir DIR]... [--no-demangle] [--no-cache] "
		 "[-f] [-i] [-C] [ADDR...]\n",
	.notes = "Without ADDR, addresses are read from standard input, one a line.\n",
	.opts = addr2line_opts,
};

int cmd_addr2line(int argc, char **argv)
{
	struct warn_hold hold = {.holding = true};
	struct addr2line_args a = {0};
	struct symbolize_opts so = {.warn = warn_cb, .warn_ctx = &hold};
	const char **dirs, *exe;
	struct symbolizer *s;
	struct sym_result probe;
	int c, i, ret = 0;
	char *line = NULL;
	size_t line_cap = 0;
	ssize_t len;

	c = cli_parse(&cli_addr2line_cmd, argc, argv, &a);
	dirs = a.dirs;
	exe = a.exe;
	so.demangle = !a.no_demangle;
	so.cache = !a.no_cache;
	if (c) {
		free(dirs);
		return cli_exit(c);
	}
	if (!exe) {
		fprintf(stderr, "ebs addr2line: which file? (-e FILE)\n");
		free(dirs);
		return 2;
	}
	so.debug_dirs = dirs;
	s = symbolizer__new(&so);
	if (!s) {
		fprintf(stderr, "ebs addr2line: %s\n", strerror(errno));
		free(dirs);
		return 1;
	}
	/* the file first: one that cannot be used at all is an error, not ?? for each */
	if (symbolizer__lookup_file(s, exe, 0, &probe)) {
		fprintf(stderr, "ebs addr2line: %s: out of memory\n", exe);
		ret = 1;
	} else if (probe.info && probe.info->unusable) {
		fprintf(stderr, "ebs addr2line: %s%s\n", probe.info->unusable,
			cli_code_tag(probe.info->unusable_code));
		ret = 2;
	}
	warn_release(&hold, !ret);
	/* a bad address is answered "??" and makes the exit status 2; no memory stops */
	if (ret) {
		/* nothing more to do */
	} else if (optind < argc) {
		for (i = optind; i < argc && ret != 1; i++)
			ret |= resolve(s, exe, argv[i]);
	} else {
		/* one answer per line, however long: getline */
		while (ret != 1 && (len = getline(&line, &line_cap, stdin)) >= 0) {
			line[strcspn(line, "\r\n")] = '\0';
			if (line[strspn(line, " \t")])
				ret |= resolve(s, exe, line + strspn(line, " \t"));
		}
		free(line);
	}
	ret = ret & 1 ? 1 : ret;
	symbolizer__free(s);
	free(dirs);
	return ret;
}
