/* SPDX-License-Identifier: MIT */
/*
 * builtin.h - the ebs subcommands.  Each parses its options and calls the
 * modules; it returns the process exit status:
 *   0 success (record: the command's own status), 1 a failure of the system
 *   or the environment, 2 bad input (usage, unknown event, bad data file),
 *   127 the command to record could not be run.
 */
#ifndef EBS_CLI_BUILTIN_H
#define EBS_CLI_BUILTIN_H

#include "report/report.h"
#include "cli/options.h"
#include "sampler/calibrate.h"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_addr2line(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* Their option tables (options.h), for --help and ebs --dump-options. */
extern const struct cli_cmd cli_record_cmd, cli_report_cmd, cli_list_cmd, cli_addr2line_cmd,
	cli_annotate_cmd, cli_calibrate_cmd, cli_flamegraph_cmd, cli_export_cmd, cli_script_cmd,
	cli_stat_cmd, cli_monitor_cmd, cli_top_cmd, cli_diff_cmd, cli_convert_cmd, cli_archive_cmd,
	cli_view_cmd;

/*
 * A binary file (an ebs.data) asked onto a terminal (-o - with standard
 * output a terminal): one line saying so, and true; the command exits 2.
 */
bool cli_binary_to_tty(const char *cmd, const char *output);

/*
 * Can prog be run as execvp(3) would find it (a path, or a name searched
 * for in $PATH)?  0, or one line "ebs CMD: cannot run 'prog': reason", as
 * the command's exec failure says it, and 127: so that it comes before any
 * notice about the events, not after.
 */
int cli_command_runnable(const char *cmd, const char *prog);

/*
 * Operands left after the options (optind < argc) of a command that takes
 * its file with -i: one line naming the first, and true; the command exits 2.
 */
bool cli_operands_left(const char *cmd, int argc, char **argv);

/*
 * --symfs DIR, checked as it is given: 0, or one line "ebs CMD: --symfs
 * DIR: reason" (missing, not a directory) and 2, so that a wrong DIR is
 * said once, not as a file missing under it for every DSO.
 */
int cli_symfs_dir(const char *cmd, const char *dir);

/*
 * The options of every command that reads a data file (report, annotate,
 * flamegraph, export, script and diff), parsed once into a struct view_opts
 * (report/report.h) by view.c: cli_view_options, a table a command's
 * includes (CLI_INCLUDE, its ctx the command's struct cli_view):
 *   -i/--input, -n/--top, --min-percent, -e/--event, --pid, --tid, --comm,
 *   --dso, --func, --no-inline, --color/--colour, --debug-dir, --kallsyms,
 *   --[no-]demangle, --no-cache, --force, --no-pager.
 * A command's own entry of the same name takes its place.  cli_view_init()
 * sets the defaults (ebs.data, stdout, warnings to stderr).  cli_view_done(),
 * after the options, hands the debug directories to v and (unless the
 * output is a file) starts the pager stream at the first line.
 * cli_view_result() takes the module's return e: 0, or the exit status
 * after one line (cli_input_error).  cli_view_free() after the command.
 */
extern const struct cli_opt cli_view_options[];
struct cli_view {
	const char *cmd; /* "report": error lines start "ebs report: " */
	struct view_opts *v;
	const char **dirs; /* --debug-dir, NULL-terminated */
	unsigned int ndirs;
	const char **inputs; /* every -i, NULL-terminated: several are read as one */
	unsigned int ninputs;
	bool no_pager;
	struct buildid_cache *buildid_cache; /* the build-id cache read, or NULL */
	const char **buildid_dirs;	     /* v's buildid_dirs and the cache's, or NULL */
};
void cli_view_init(struct cli_view *cv, const char *cmd, struct view_opts *v);
void cli_view_done(struct cli_view *cv, bool to_file);
/* --width N of report and diff: 20 or more, 0: no limit (-1 in v); 0, or 2 after one line */
int cli_view_width(const char *cmd, const char *arg, struct view_opts *v);
int cli_view_result(struct cli_view *cv, int e, const struct ebs_error *err);
void cli_view_free(struct cli_view *cv);

/*
 * report's or annotate's failure e (-errno, err from the module) on input:
 * one line, with a hint to record first when the data file does not exist,
 * and cli_force_hint's when it is another user's.
 * Returns the exit status: 1 out of memory, I/O or an output that cannot be
 * written (err->output), else 2.
 */
int cli_input_error(const char *cmd, const char *input, int e, const struct ebs_error *err);

/*
 * " (use --force to read it anyway)" when e is a recording refused as
 * another user's (-EBS_EUNTRUSTED: ebs_data__open's rule), else "".
 */
const char *cli_force_hint(int e);

/*
 * An output file that cannot be created or written (a missing directory, no
 * permission, a full disk, an I/O error) is a failure of the environment:
 * cli_output_error() prints err's one line ("PATH: cannot write: REASON",
 * or why a name another user holds is not written: util/output.c) as
 * "ebs CMD: [OPT ]LINE" (opt, e.g. "--plot", may be NULL) and returns the
 * exit status, 1.  (A module's output failure reaches cli_input_error with
 * err->output set, and gets 1 there.)
 */
int cli_output_error(const char *cmd, const char *opt, const struct ebs_error *err);

/*
 * " [EBS_E_NAME]", the code of the line it ends (util/error.h's table),
 * when the environment has EBS_ERROR_CODES=1, else "": tests match codes,
 * not wording.  Every line that says an ebs_error or a warning ends with
 * it.  (A static buffer: one call per line printed.)
 */
const char *cli_code_tag(enum ebs_code code);

/*
 * The live screens' terminal (cli/tty.c): ncurses started on standard
 * output, keys read without waiting (nodelay, keypad), no echo, no
 * cursor; raw_keys: Ctrl-C a key, not a signal (else cbreak).  The
 * screen (ncurses's SCREEN), or NULL when this terminal has none: one
 * terminfo does not know, or one that cannot move its cursor (dumb).
 * cli_tty_end ends it (and sets *scr NULL; NULL: nothing to end);
 * cli_tty_key gives the next key typed, -1 when none.
 */
struct screen;
struct screen *cli_tty_start(bool raw_keys);
void cli_tty_end(struct screen **scr);
/* Leave the screen for a while (a pager runs on a cleared alternate screen); back: refresh. */
void cli_tty_suspend(void);
int cli_tty_key(void);

/* The commands' ebs_warn_fn: "ebs CMD: LINE" (and its code tag) on stderr; ctx is CMD. */
void cli_warn(void *ctx, enum ebs_code code, const char *line);
/*
 * The commands' progress lines (a debuginfod download's), for a terminal:
 * "ebs CMD: LINE" drawn over the last one with "\r"; LINE "" clears it.
 */
void cli_progress(void *ctx, enum ebs_code code, const char *line);

/*
 * The pager (pager.c).  cli_pager_stream(): where a listing goes: stdout,
 * or, when stdout is a terminal, a pager is set and neither no_pager (the
 * command's --no-pager) nor cli_pager_disable() (ebs --no-pager) turned it
 * off, a stream that starts the pager at its first write; *color (if auto)
 * and *width (if 0) are then set as for the terminal (either may be NULL).
 * cli_pager_finish(), by main after the command: flush that stream, wait for
 * the pager; 0, or -errno when the listing could not be written (a pager that
 * quit early is not a failure).
 */
void cli_pager_disable(void);
FILE *cli_pager_stream(bool no_pager, enum report_color *color, int *width);
int cli_pager_finish(void);

/*
 * Calibration, shared by ebs calibrate and ebs record --calibrate
 * (cmd-calibrate.c).  cli_calibrate_inline() parses record's OPTIONS (the
 * targets only: --rate, --min-samples, --focus, --overhead, --retries,
 * --cost-probe, --exact, -q), after record's own options.  cli_calibrate()
 * runs it: 0, or the exit status after one line.
 */
struct cli_calibrate {
	struct calibrate_opts o;
	const char *events;
	bool json, quiet;
	const char *cmd; /* "calibrate", or "record" (--calibrate): error lines name it */
	char *buf;	 /* cli_calibrate_inline's words: free() when done */
	char stext[32];	 /* the kernel's _stext (kallsyms__stext), for o.rec */
};
void cli_calibrate_defaults(struct cli_calibrate *cc);
int cli_calibrate_inline(const char *cmd, const char *text, struct cli_calibrate *cc);
int cli_calibrate(const char *cmd, struct cli_calibrate *cc, struct calibrate_result *r);
void cli_calibrate_print(FILE *f, const struct cli_calibrate *cc, const struct calibrate_result *r);

/* ebs's own command line as one string (for the data file header). */
const char *ebs_cmdline(void);

#endif
