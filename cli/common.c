// SPDX-License-Identifier: MIT
/*
 * common.c - what every command shares after its options (builtin.h): the
 * checks of a command to run and of operands left, and the one-line errors
 * of an input or an output.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/builtin.h"

bool cli_binary_to_tty(const char *cmd, const char *output)
{
	if (strcmp(output, "-") || !isatty(STDOUT_FILENO))
		return false;
	fprintf(stderr,
		"ebs %s: -o -: standard output is a terminal, and an ebs.data is binary: "
		"redirect it (> FILE, or | ebs report -i -)\n",
		cmd);
	return true;
}

/* 0 when path is a file this user may execute, else the errno exec gives */
static int runnable(const char *path)
{
	struct stat st;

	if (access(path, X_OK))
		return errno;
	if (stat(path, &st))
		return errno;
	return S_ISDIR(st.st_mode) ? EACCES : 0;
}

int cli_command_runnable(const char *cmd, const char *prog)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];
	int e = ENOENT;

	if (strchr(prog, '/')) {
		e = runnable(prog);
	} else if (*prog) { /* "" is never found (ENOENT) */
		if (!path)
			path = "/bin:/usr/bin"; /* execvp's default */
		for (p = path; e; p = strchr(p, ':') + 1) {
			size_t n = strcspn(p, ":");
			int r;

			/* an empty entry is the current directory */
			if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, p, n ? "/" : "", prog) <
			    (int)sizeof(buf)) {
				r = runnable(buf);
				if (r != ENOENT && r != ENOTDIR)
					e = r; /* found: runnable (0), or not for this user */
			}
			if (!p[n])
				break;
		}
	}
	if (!e)
		return 0;
	fprintf(stderr, "ebs %s: cannot run '%s': %s\n", cmd, prog, strerror(e));
	return 127;
}

bool cli_operands_left(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return false;
	fprintf(stderr, "ebs %s: unexpected argument '%s' (the file goes after -i)\n", cmd,
		argv[optind]);
	return true;
}

int cli_symfs_dir(const char *cmd, const char *dir)
{
	struct stat st;
	int e = 0;

	if (stat(dir, &st))
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	if (!e)
		return 0;
	fprintf(stderr, "ebs %s: --symfs %s: %s\n", cmd, dir, strerror(e));
	return 2;
}

int cli_input_error(const char *cmd, const char *input, int e, const struct ebs_error *err)
{
	struct stat st;
	/* -ENOENT is also an unknown event or function: the file must be missing */
	bool missing = e == -ENOENT && !err->output && strcmp(input, "-") && stat(input, &st) &&
		       errno == ENOENT;

	/* the default name: no recording here yet; a name given: a recording elsewhere? */
	bool dflt = !strcmp(input, "ebs.data") && strcmp(cmd, "diff"); /* diff has no -i */

	/* a perf.data name: a recording perf writes */
	bool perf = strstr(input, "perf.data") != NULL;

	/* one line, whatever the path given holds (a glob's expansion of any name) */
	ebs_fprint_line(stderr, "ebs %s: %s%s%s%s%s%s", cmd, err->msg,
			missing && dflt ? " (run 'ebs record' first, or give -i FILE)"
			: missing	? (perf ? " (write it with 'perf record -o "
						: " (write it with 'ebs record -o ")
					: "",
			missing && !dflt ? input : "", missing && !dflt ? "')" : "",
			cli_force_hint(e), cli_code_tag(err->code));
	/* an output that cannot be written is the system's; a bad or missing file, an
	   unknown event: the input's fault */
	return err->output || e == -ENOMEM || e == -EIO ? 1 : 2;
}

const char *cli_force_hint(int e)
{
	return e == -EBS_EUNTRUSTED ? " (use --force to read it anyway)" : "";
}

int cli_output_error(const char *cmd, const char *opt, const struct ebs_error *err)
{
	fprintf(stderr, "ebs %s: %s%s%s%s\n", cmd, opt ? opt : "", opt ? " " : "", err->msg,
		cli_code_tag(err->code));
	return 1;
}

const char *cli_code_tag(enum ebs_code code)
{
	static char tag[64];
	const char *on = getenv("EBS_ERROR_CODES");

	if (code == EBS_E_OK || !on || strcmp(on, "1"))
		return "";
	snprintf(tag, sizeof(tag), " [%s]", ebs_error_code_name(code));
	return tag;
}

void cli_warn(void *ctx, enum ebs_code code, const char *line)
{
	fprintf(stderr, "ebs %s: %s%s\n", (const char *)ctx, line, cli_code_tag(code));
}

void cli_progress(void *ctx, enum ebs_code code, const char *line)
{
	(void)code;
	/*
	 * Past stderr's cleaning stream (cli/ebs.c), whose "\r" and escape
	 * would be '?': line is one the library cleaned (ebs_format_line).
	 */
	fflush(stderr);
	if (line[0]) /* over the last one, the rest of the terminal's line erased */
		dprintf(STDERR_FILENO, "\rebs %s: %s\033[K", (const char *)ctx, line);
	else
		dprintf(STDERR_FILENO, "\r\033[K");
}
