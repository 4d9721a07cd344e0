// SPDX-License-Identifier: MIT
/* ebs.c - the ebs command: dispatch to a subcommand. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ebs/count.h>

#include "cli/builtin.h"

static char cmdline[4096];

const char *ebs_cmdline(void)
{
	return cmdline;
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

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{"record", cmd_record, "sample a command, processes (-p) or the whole system (-a)"},
	{"report", cmd_report, "hotspots of an ebs.data file, by function, source line or DSO"},
	{"stat", cmd_stat, "count events over a command's run (-r N: its statistics)"},
	{"monitor", cmd_monitor, "event rates live: a scrolling terminal graph, or lines"},
	{"calibrate", cmd_calibrate,
	 "choose sample-after values for a command: measured, verified"},
	{"diff", cmd_diff, "two recordings compared: each row's change, and whether it is real"},
	{"annotate", cmd_annotate,
	 "source (and instructions) of hot functions, with their samples"},
	{"flamegraph", cmd_flamegraph, "an interactive SVG flame graph of the call stacks"},
	{"export", cmd_export, "the call stacks as folded stacks, pprof or speedscope"},
	{"script", cmd_script, "every sample as a line of text or JSON, as perf script"},
	{"convert", cmd_convert, "a perf.data file (perf record's) into ebs.data, smaller"},
	{"list", cmd_list, "events this machine can sample"},
	{"addr2line", cmd_addr2line, "resolve addresses of an ELF file to function, file and line"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ebs [--version] [--help] [--no-pager] COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "   %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'ebs help COMMAND', 'ebs COMMAND --help' and 'man ebs-COMMAND' tell more\n"
		   "(before 'make install': 'man -l docs/ebs-COMMAND.1' in the source tree).\n");
}

static int find_cmd(const char *name)
{
	int i;

	for (i = 0; i < (int)(sizeof(cmds) / sizeof(cmds[0])); i++)
		if (!strcmp(name, cmds[i].name))
			return i;
	return -1;
}

/* ebs help [COMMAND]: the general usage, or COMMAND's (its --help). */
static int help(int argc, char **argv)
{
	char *args[] = {argv[1], (char *)"--help", NULL};
	int i;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "ebs help: one COMMAND, not also '%s'\n", argv[2]);
		return 2;
	}
	i = find_cmd(argv[1]);
	if (i < 0) {
		fprintf(stderr, "ebs help: '%s' is not an ebs command (see 'ebs --help')\n",
			argv[1]);
		return 2;
	}
	return cmds[i].fn(2, args);
}

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
	ebs_fprint_line(stderr, "ebs %s: %s%s%s%s%s", cmd, err->msg,
			missing && dflt ? " (run 'ebs record' first, or give -i FILE)"
			: missing	? (perf ? " (write it with 'perf record -o "
						: " (write it with 'ebs record -o ")
					: "",
			missing && !dflt ? input : "", missing && !dflt ? "')" : "",
			cli_force_hint(e));
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
	fprintf(stderr, "ebs %s: %s%s%s\n", cmd, opt ? opt : "", opt ? " " : "", err->msg);
	return 1;
}

int main(int argc, char **argv)
{
	FILE *guard = ebs_clean_stream(stderr);
	size_t len = 0;
	int a, i, ret, e;

	/*
	 * Every line ebs writes on standard error goes through this stream:
	 * names in messages (an argument echoed, a path from a recording or a
	 * directory, a library's warning) can send the terminal no escape
	 * sequence, whoever formatted them (util/text.h).
	 */
	if (guard)
		stderr = guard;
	for (a = 0; a < argc && len < sizeof(cmdline) - 1; a++)
		len += (size_t)snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s", a ? " " : "",
					argv[a]);
	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "--version")) {
			/* two numbers: ebs's, and libebs's API (ebs.pc, ebs-count(3)) */
			printf("ebs %s (libebs %s)\n", EBS_VERSION, ebs_count_version());
			return 0;
		} else if (!strcmp(argv[a], "--no-pager")) {
			cli_pager_disable();
		} else {
			fprintf(stderr, "ebs: unknown option '%s' (see 'ebs --help')\n", argv[a]);
			return 2;
		}
	}
	if (a == argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[a], "help"))
		return help(argc - a, argv + a);
	if (!strcmp(argv[a], "__cost-probe")) { /* ebs calibrate --cost-probe=loop */
		calibrate_probe_loop();
		return 0;
	}
	i = find_cmd(argv[a]);
	if (i < 0) {
		fprintf(stderr, "ebs: '%s' is not an ebs command (see 'ebs --help')\n", argv[a]);
		return 2;
	}
	ret = cmds[i].fn(argc - a, argv + a);
	/* a listing that did not reach its reader (a full disk, a closed pipe) */
	e = cli_pager_finish();
	errno = 0;
	if ((e || fflush(stdout) || ferror(stdout)) && !ret) { /* else said already */
		/* errno is only known when the last flush failed */
		if (e)
			errno = -e;
		fprintf(stderr, "ebs %s: standard output: write failed%s%s\n", cmds[i].name,
			errno ? ": " : "", errno ? strerror(errno) : "");
		return 1;
	}
	return ret;
}
