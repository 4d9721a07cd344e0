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

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_addr2line(int argc, char **argv);

/*
 * getopt_long returned '?' or ':' (optstrings start with ':', opterr is 0):
 * print one line naming the option and return the exit status 2.
 */
int cli_bad_option(const char *cmd, int c, char **argv);

/* Append s to the NULL-terminated vector *v of *n strings; 0 or -ENOMEM. */
int cli_push_str(const char ***v, unsigned int *n, const char *s);

/* ebs's own command line as one string (for the data file header). */
const char *ebs_cmdline(void);

#endif
