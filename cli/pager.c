// SPDX-License-Identifier: MIT
/*
 * pager.c - a long listing on a terminal goes through a pager, as git's and
 * perf's do.
 *
 * The pager is $EBS_PAGER, else $PAGER, else "less -FRX" (none when TERM is
 * dumb); an empty value or "cat" means none.  It runs through sh -c with its
 * standard input a pipe from ebs and LESS=FRX in its environment when LESS is
 * unset; stdout and stderr stay on the terminal.
 *
 * cli_pager_stream() does not start it: it returns a stream that starts the
 * pager at its first write.  report and annotate read and check their whole
 * input before they print, so a bad option, a missing or bad file, an unknown
 * event reach the terminal's stderr with no pager started.
 * cli_pager_finish(), called by main after the command, flushes the stream,
 * closes the pipe and waits for the pager.  Its exit status is not ebs's.
 *
 * A pager that quits before the end (the user pressed q) is not an error:
 * SIGPIPE is ignored while it runs, and what it did not take is thrown away.
 * A signal that ends ebs meanwhile (Ctrl-C reaches ebs and the pager, which
 * ignores it) closes the pipe and waits for the pager first, so the shell
 * does not take the terminal back from a running pager.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/builtin.h"

static struct {
	bool disabled;	 /* ebs --no-pager */
	const char *cmd; /* the pager's command line, once a stream was made */
	FILE *stream;	 /* cli_pager_stream()'s, until cli_pager_finish() */
	int fd;		 /* where the stream writes: the pipe, or stdout; -1: not yet */
	pid_t pid;	 /* the pager; 0: none started */
	bool gone;	 /* the pager closed its end: output is thrown away */
	int err;	 /* -errno of a failed write */
} pg = {.fd = -1};

void cli_pager_disable(void)
{
	pg.disabled = true;
}

/* The pager's command line, NULL for none. */
static const char *pager_command(void)
{
	const char *p = getenv("EBS_PAGER"), *term = getenv("TERM");

	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = term && !strcmp(term, "dumb") ? "" : "less -FRX";
	return *p && strcmp(p, "cat") ? p : NULL;
}

/* Close the pipe and wait for the pager (async-signal-safe). */
static void pager_wait(void)
{
	if (pg.fd >= 0 && pg.pid > 0)
		close(pg.fd);
	pg.fd = -1;
	while (pg.pid > 0 && waitpid(pg.pid, NULL, 0) < 0 && errno == EINTR)
		;
	pg.pid = 0;
}

static void pager_signal(int sig)
{
	pager_wait();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Fork the pager on a pipe; pg.fd is its write end.  When that cannot be
 * done, pg.fd is stdout: the listing goes to the terminal unpaged.
 */
static void pager_start(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	struct sigaction sa = {.sa_handler = pager_signal};
	int fds[2];
	size_t i;

	pg.fd = STDOUT_FILENO;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	pg.pid = fork();
	if (pg.pid < 0) {
		pg.pid = 0;
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pg.pid == 0) {
		/* dup2 clears FD_CLOEXEC on 0; the write end closes at exec */
		if (dup2(fds[0], STDIN_FILENO) < 0)
			_exit(127);
		setenv("LESS", "FRX", 0);
		execl("/bin/sh", "sh", "-c", pg.cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	pg.fd = fds[1];
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* fopencookie's write: all of buf, or 0 with errno set. */
static ssize_t pager_write(void *cookie, const char *buf, size_t size)
{
	size_t done = 0;
	ssize_t n;

	(void)cookie;
	if (pg.fd < 0 && !pg.gone)
		pager_start();
	while (!pg.gone && done < size) {
		n = write(pg.fd, buf + done, size - done);
		if (n >= 0) {
			done += (size_t)n;
		} else if (errno == EPIPE && pg.pid > 0) {
			pg.gone = true; /* the user quit the pager: not an error */
		} else if (errno != EINTR) {
			pg.err = -errno;
			return 0;
		}
	}
	return (ssize_t)size;
}

FILE *cli_pager_stream(bool no_pager, enum report_color *color, int *width)
{
	cookie_io_functions_t io = {.write = pager_write};
	struct winsize ws;

	if (pg.stream)
		return pg.stream;
	if (no_pager || pg.disabled || !isatty(STDOUT_FILENO) || !(pg.cmd = pager_command()))
		return stdout;
	pg.stream = fopencookie(NULL, "w", io);
	if (!pg.stream)
		return stdout;
	fflush(stdout); /* nothing of ebs's own stdout after the pager's output */
	/* the pager shows color (less -R) and the terminal is as wide as before */
	if (color && *color == COLOR_AUTO)
		*color = COLOR_ALWAYS;
	if (width && !*width && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		*width = ws.ws_col;
	return pg.stream;
}

int cli_pager_finish(void)
{
	if (!pg.stream)
		return 0;
	fclose(pg.stream); /* its last write's failure is in pg.err, as the others' */
	pg.stream = NULL;
	pager_wait();
	return pg.err;
}
