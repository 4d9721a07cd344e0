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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "symbolize/symbolize.h"

static const char usage_text[] =
	"usage: ebs addr2line -e FILE [--debug-dir DIR]... [--no-demangle] [--no-cache] [ADDR...]\n"
	"\n"
	"  -e, --exe FILE     the ELF file whose (link-time, hex) addresses these are\n"
	"      --debug-dir D  look for separate debug files under D too\n"
	"      --no-demangle  print C++ and Rust names as they are in the file\n"
	"      --no-cache     decode DWARF afresh, without the cache ($XDG_CACHE_HOME/ebs)\n"
	"Without ADDR, addresses are read from standard input, one a line.\n";

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

int cmd_addr2line(int argc, char **argv)
{
	enum { OPT_DEBUG_DIR = 256, OPT_NO_DEMANGLE, OPT_NO_CACHE };
	static const struct option longopts[] = {
		{"exe", required_argument, NULL, 'e'},
		{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
		{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
		{"no-cache", no_argument, NULL, OPT_NO_CACHE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct warn_hold hold = {.holding = true};
	struct symbolize_opts so = {
		.demangle = true, .cache = true, .warn = warn_cb, .warn_ctx = &hold};
	const char **dirs = NULL;
	struct symbolizer *s;
	struct sym_result probe;
	const char *exe = NULL;
	unsigned int ndirs = 0;
	int c, i, ret = 0;
	char *line = NULL;
	size_t line_cap = 0;
	ssize_t len;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			exe = optarg;
			break;
		case OPT_DEBUG_DIR:
			if (cli_push_str(&dirs, &ndirs, optarg)) {
				fprintf(stderr, "ebs addr2line: out of memory\n");
				free(dirs);
				return 1;
			}
			break;
		case OPT_NO_DEMANGLE:
			so.demangle = false;
			break;
		case OPT_NO_CACHE:
			so.cache = false;
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(dirs);
			return 0;
		default:
			free(dirs);
			return cli_bad_option("addr2line", c, argv);
		}
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
