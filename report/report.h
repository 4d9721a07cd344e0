/* SPDX-License-Identifier: MIT */
/*
 * report.h - hotspot listings and annotated source of an ebs.data file.
 * report/ aggregates and prints; symbolize/ does every ELF and DWARF
 * lookup; report/ never touches ELF.
 */
#ifndef EBS_REPORT_H
#define EBS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/util.h"

/* What rows are keyed by; --sort takes several, in column order. */
enum report_key {
	KEY_FUNC, /* the function (and its DSO) */
	KEY_LINE, /* file:line (with its function and DSO) */
	KEY_DSO,
	KEY_PID,
	KEY_TID,
	KEY_COMM,
	KEY_EVENT, /* one table of all events instead of one per event */
	KEY_HOST,  /* the recording's host (several -i) */
	KEY_MAX,
};

/*
 * The columns a text table can show (--fields): the counts, then one per
 * key column.  Bit 1 << FIELD_x of report_opts.fields.
 */
enum report_field {
	FIELD_SAMPLES,
	FIELD_PERCENT,
	FIELD_CI, /* the 95% interval */
	FIELD_LINE,
	FIELD_FUNC,
	FIELD_DSO,
	FIELD_PID,
	FIELD_TID,
	FIELD_COMM,
	FIELD_EVENT,
	FIELD_HOST,
	FIELD_MAX,
};

/*
 * One range of --time: the samples whose time from their recording's
 * start (session__rel_time) is at least start and below end; in ns, or
 * with percent, in billionths of a percent of the recording's span (a
 * percent p is floor(span * p / 100) ns).  end UINT64_MAX: to the end.
 */
struct report_time {
	u64 start, end;
	bool percent;
};

#define REPORT_PERCENT 1000000000ull /* one percent in a percent report_time */

/* Which samples count.  Zero/NULL fields do not filter. */
struct report_filter {
	const char *event; /* as asked or as used */
	/* --pid, --tid: a sample passes when its pid is one of pids (if any) and its tid
	 * one of tids (if any); each sorted, without repeats */
	const u32 *pids, *tids;
	size_t npids, ntids;
	const struct report_time *times; /* --time: a sample in one of them passes */
	size_t ntimes;
	const char *comm;
	const char *dso;   /* short name or path as mapped */
	const char *funcs; /* comma-separated function names (compiled or inlined) */
	FILE *candidates;  /* where a name of --func that names several functions lists them */
};

enum report_color {
	COLOR_AUTO, /* on a terminal only */
	COLOR_ALWAYS,
	COLOR_NEVER,
};

/*
 * What every command that reads a data file shares (report, annotate,
 * flamegraph, export, script, diff): the file, the samples
 * that count, how names are resolved, how much is shown and where.  The
 * command line parses it once (cli/view.c).
 */
struct view_opts {
	const char *input; /* "ebs.data"; "-" reads stdin */
	/* -i given more than once: all of them (input is the first), read as one (report,
	 * annotate, flamegraph, export); NULL: input alone */
	const char *const *inputs;
	size_t ninputs;
	struct report_filter filter;
	unsigned int top;   /* rows (functions, for annotate) shown, 0 = all */
	double min_percent; /* rows below this share are left out */
	bool no_inline;	    /* inlined code counts for the function it was inlined into */
	bool no_demangle;
	bool no_cache;	      /* decoded DWARF neither read from nor kept in the cache */
	bool force;	      /* input read whoever owns it, in a directory others can write too */
	const char *kallsyms; /* NULL: /proc/kallsyms */
	const char *const *debug_dirs;	 /* NULL-terminated; more places for debug files */
	const char *symfs;		 /* --symfs: the recorded paths under DIR; NULL: / */
	const char *const *buildid_dirs; /* NULL-terminated build-id directories (symbolize.h),
					  * or NULL */
	bool offline;			 /* never ask debuginfod */
	enum report_color color;
	int width; /* columns; 0: the terminal's when out is one, else no limit; -1: no limit */
	FILE *out;
	ebs_warn_fn *warn;     /* warnings and notices ("warning: FILE: ..."); NULL: none */
	void *warn_ctx;	       /* warn's */
	ebs_warn_fn *progress; /* a line redrawn in place ("" clears it): a debuginfod
				* download's progress; NULL: none (not a terminal) */
	void *progress_ctx;
};

struct report_opts {
	struct view_opts view;
	enum report_key keys[KEY_MAX];
	unsigned int nr_keys; /* 0: func */
	unsigned int fields;  /* text columns shown, 1 << FIELD_x; 0: all of the table's */
	bool no_ci;	      /* no 95% interval column */
	bool json;	      /* one object: the first event's table, or --event's */
	bool stats;	      /* per-DSO symbol and line coverage after the table */
	bool children;	      /* rows count the samples in their function and its callees */
	bool tree;	      /* the top-down call tree instead of a table */
	const char *callers;  /* who calls this function, instead of a table */
	const char *callees;  /* what it calls */
};

/*
 * Parse "--sort" text ("func", "dso,func", "line,pid"...) into o->keys.
 * Returns 0, or -EINVAL with err naming the unknown or repeated key.
 */
int report_parse_keys(const char *text, struct report_opts *o, struct ebs_error *err)
	__attribute__((nonnull(1, 2)));

/*
 * Parse --time's text into *v (malloc'd, *n ranges; free() it): "S,E",
 * seconds from the recording's start (decimals, up to 9 of them: exact
 * ns), either side empty (from the start, to the end); or percent ranges
 * as perf's --time, comma-separated (their union): "A%-B%", and "P%/N",
 * the N-th slice of width P.  0; -EINVAL with err saying why (a line
 * without the option's name: "the start is not before the end"); -ENOMEM.
 */
int report_parse_time(const char *text, struct report_time **v, size_t *n, struct ebs_error *err)
	__attribute__((nonnull(1, 2, 3, 4)));

/*
 * Parse --pid's or --tid's comma-separated list ("12,13") of numbers from
 * 1 to INT_MAX into *v (malloc'd, sorted, without repeats; *n of them).
 * 0; -EINVAL with err saying why; -ENOMEM.
 */
int report_parse_ids(const char *text, u32 **v, size_t *n, struct ebs_error *err)
	__attribute__((nonnull(1, 2, 3, 4)));

/*
 * Parse "--fields" text ("samples,percent,func"...) into o->fields.
 * Returns 0, or -EINVAL with err naming the unknown field.  Whether each is
 * a column of the table is checked by ebs_report.
 */
int report_parse_fields(const char *text, struct report_opts *o, struct ebs_error *err)
	__attribute__((nonnull(1, 2)));

/*
 * Read the file and print the listing.  Returns 0, -EBADMSG for a bad file
 * (err: file and byte offset), -ENOENT for an unknown --event, or -errno.
 */
int ebs_report(const struct report_opts *opts, struct ebs_error *err) __attribute__((nonnull(1)));

/*
 * ebs report --tree, --callers, --callees (report/callgraph/graph.c): the
 * call graph's listings rather than the table; as ebs_report.
 */
int ebs_report_graph(const struct report_opts *opts, struct ebs_error *err)
	__attribute__((nonnull(1)));

/*
 * Of event's samples in input, how many fall in list (comma-separated
 * function names, compiled or inlined, or DSO names or paths): *matched of
 * *total.  0 or -errno with err filled.
 */
int ebs_report_focus(const char *input, unsigned int event, const char *list,
		     const char *const *debug_dirs, u64 *matched, u64 *total, struct ebs_error *err)
	__attribute__((nonnull(1, 6, 7)));

struct annotate_opts {
	struct view_opts view;		/* top and min_percent: functions, with no target */
	const char *target;		/* FUNC, FILE or FILE:LINE; NULL: the hottest functions */
	bool asm_;			/* instructions under their source lines */
	bool skid_adjust;		/* a sample counts for the instruction before its IP */
	unsigned int context;		/* lines shown around hot lines with no target */
	const char *html;		/* write this self-contained HTML file instead of text */
	const char *const *source_dirs; /* "OLD=NEW" prefix maps, or directories to try */
	const char *kcore; /* the kernel's memory for its instructions; NULL: /proc/kcore */
};

/*
 * Print annotated source (and with asm_, instructions).  Returns 0, -ENOENT
 * with err naming it when the function or file has no samples, -EOPNOTSUPP
 * for asm_ in a build without a disassembler, or as ebs_report.
 */
int ebs_annotate(const struct annotate_opts *opts, struct ebs_error *err)
	__attribute__((nonnull(1)));

/* ---- call stacks: flame graphs and exports (stacks.c, flame.c, export*.c) ---- */

enum export_format {
	EXPORT_FOLDED,	   /* "a;b;c COUNT" per distinct stack, root first */
	EXPORT_PPROF,	   /* profile.proto, gzipped */
	EXPORT_SPEEDSCOPE, /* speedscope's JSON file format */
};

struct export_opts {
	struct view_opts view;
	enum export_format format;
	const char *output; /* NULL or "-": view.out (not for pprof, which is binary) */
};

/*
 * Write the call stacks of the samples of one event (view.filter.event,
 * else the file's first) in format: a file written whole or not at all.
 * A file without call chains exports one-frame stacks.  0, or -errno with
 * err filled (as ebs_report).
 */
int ebs_export(const struct export_opts *o, struct ebs_error *err) __attribute__((nonnull(1)));

struct flamegraph_opts {
	struct view_opts view;
	const char *output; /* the SVG file */
	bool reverse;	    /* icicle of callers: the leaves at the root */
	const char *title;  /* NULL: "Flame graph of FILE (EVENT)" */
	unsigned int width; /* pixels; 0: 1200 */
};

/* Write the flame graph of one event's call stacks as a self-contained SVG. */
int ebs_flamegraph(const struct flamegraph_opts *o, struct ebs_error *err)
	__attribute__((nonnull(1)));

/* ---- two recordings compared (diff.c) ---- */

struct diff_opts {
	struct view_opts view;	 /* view.input is not read: base and new are */
	const char *base, *new_; /* the data files; at most one of them "-" */
	enum report_key key;	 /* rows by KEY_FUNC, KEY_LINE or KEY_DSO */
	double alpha;		 /* the family-wise error of the tests, in (0, 1) */
	bool json;
	bool significant; /* only the rows whose change is significant */
};

/*
 * Count base's and new's samples into rows as ebs report does, match the
 * rows by the names they show, and print each row's share in both, the
 * difference with its 95% interval, and whether it is significant
 * (docs/ebs-diff.1 states the statistics).  Returns 0, or as ebs_report:
 * -errno with err naming the file.
 */
int ebs_diff(const struct diff_opts *o, struct ebs_error *err) __attribute__((nonnull(1)));

/* ---- ebs script: every sample, one line each (script.c) ---- */

/* What a line shows (--fields), in the order it shows them: bit 1 << SCRIPT_x. */
enum script_field {
	SCRIPT_COMM,
	SCRIPT_PID,
	SCRIPT_TID,
	SCRIPT_CPU,
	SCRIPT_TIME,
	SCRIPT_PERIOD,
	SCRIPT_EVENT,
	SCRIPT_IP,
	SCRIPT_SYM,
	SCRIPT_SYMOFF,
	SCRIPT_DSO,
	SCRIPT_SRCLINE,
	SCRIPT_MAX,
};

#define SCRIPT_DEFAULT_FIELDS ((1u << SCRIPT_MAX) - 1)

struct script_opts {
	struct view_opts view; /* top, min_percent and no_inline unused */
	unsigned int fields;   /* 1 << SCRIPT_x; 0: SCRIPT_DEFAULT_FIELDS */
	bool json;	       /* one JSON object per sample and line (JSON Lines) */
	bool hide_chain;       /* no call chains: each sample's own address on its line */
	bool inline_frames;    /* chains: a frame for each function inlined at an address,
				* before the one compiled there (perf script --inline) */
	bool ns;	       /* times to the nanosecond, not the microsecond */
	bool full_source_path; /* source files with their directories */
	const char *recording; /* several -i: this one's file, said in a line before its
				* samples (text) or in each (JSON); NULL: one */
};

/*
 * Parse "--fields" text into *fields: a comma-separated list of field
 * names (comm, pid, tid, cpu, time, period, event, ip, sym, symoff, dso,
 * srcline), or, when every item starts with '+' or '-', those added to or
 * taken from the default.  0, or -EINVAL with err naming the unknown field.
 */
int script_parse_fields(const char *text, unsigned int *fields, struct ebs_error *err)
	__attribute__((nonnull(1, 2)));

/*
 * Print every sample of the file that the filters let through, in time
 * order: one line each (with its call chain when the file has them and
 * hide_chain is not set), or one JSON object each.  0; -EPIPE when the
 * output's reader went away (the rest is not printed); or as ebs_report.
 */
int ebs_script(const struct script_opts *o, struct ebs_error *err) __attribute__((nonnull(1)));

/*
 * ebs archive (report/archive.c): the recording view.input and, by
 * build-id, every DSO its samples and their call chains fall in, with its
 * separate debug file, found as a report finds them (view's symfs, debug
 * and build-id directories), written into output as one archive (tar +
 * zstd: data.h's ebs_archive__write), whole or not at all.  Each DSO with
 * samples that is not archived (no file found, no build-id recorded, a JIT
 * map) is said in one line through view.warn.  res gets what was written.
 * 0, or -errno with err filled (output set when writing failed).
 */
struct archive_opts {
	struct view_opts view; /* input, force, symfs, debug_dirs, buildid_dirs, warn */
	const char *output;
};
struct archive_result {
	u64 files;	      /* members, ebs.data included */
	u64 bytes;	      /* their bytes */
	u64 out_bytes;	      /* the archive's size (0 to a pipe) */
	unsigned int dsos;    /* DSOs archived */
	unsigned int debugs;  /* separate debug files archived */
	unsigned int missing; /* DSOs with samples not archived */
};
int ebs_archive(const struct archive_opts *o, struct archive_result *res, struct ebs_error *err)
	__attribute__((nonnull(1, 2)));

#endif /* EBS_REPORT_H */
