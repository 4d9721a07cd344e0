// SPDX-License-Identifier: MIT
/*
 * cmd-top.c - ebs top: live hotspots of all CPUs, of running processes or
 * of a command, as perf top shows them: on a terminal a full screen
 * (ncurses) redrawn every interval, else one table per interval.
 *
 * It is an ebs record session (sampler.h) into a temporary recording, a
 * file of 0600 in a private directory (mkdtemp, 0700) removed at the end,
 * with two hooks: the writer's tap (record_opts.tap) hands every record
 * to report/top/top.c as it is written, which copies it; the session's
 * tick (record_opts.on_interval, every TICK_MS) resolves what was copied
 * (top__drain), ends an interval when one is due, reads the keys and
 * draws.  `a` (or Enter) runs `ebs annotate` of the selected function on
 * the recording so far (the reader takes an unfinished recording up to
 * its last whole record) on the normal screen, in its own process group
 * in the terminal's foreground (its pager gets the keys and Ctrl-C), while
 * the ticks go on collecting; the screen comes back when it exits.
 *
 * Every ncurses call is in the tty_* functions.  The screen is restored
 * however it ends (q, Ctrl-C as a key: the screen is in raw mode, the
 * command's end then q, SIGTERM, an error).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "report/top/top.h"
#include "sampler/sampler.h"
#include "symbolize/symbolize.h"

/* after report.h (through builtin.h): curses.h #defines its KEY_MAX */
#include <curses.h>

#define TICK_MS	     100 /* how often records are resolved and the keys read */
#define DEFAULT_ROWS 25	 /* rows of a table without a terminal */

struct top_args {
	pid_t *pids;
	unsigned int nr_pids;
	bool system_wide;
	double delay; /* s */
	u64 freq;
	unsigned int iterations; /* 0: until stopped */
	unsigned int rows;
	char *const *argv;
};

/* What the ticks share. */
struct topc {
	const struct top_args *a;
	struct top *t;
	struct top_view v;
	struct top_table table;
	SCREEN *scr;
	bool tty, tty_gone;
	bool frozen;
	size_t sel, first; /* the selected row, the first shown */
	size_t body;	   /* rows of the table on the screen */
	/* the selected function (interned: top's pointers), kept across tables */
	const char *sel_name, *sel_dso;
	u64 interval_ns, next_ns, last_ns;
	unsigned int printed;
	bool stop_sent, quit, ended;
	int err; /* top__drain's */
	char event[160];
	char target[200];
	char status[256];
	const char *data; /* the temporary recording */
	const char *errfile;
	const char *self; /* ebs itself, for annotate */
	pid_t ann;	  /* annotate running; 0: none */
	char ann_func[256];
	int exit_status;    /* of the command, once ended */
	char fallback[256]; /* the event's fallback, said on stderr if no screen comes */
};

#define TA(ctx) ((struct top_args *)(ctx))

static int add_pids(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_parse_pids("top", arg, &TA(ctx)->pids, &TA(ctx)->nr_pids) ? 2 : 0;
}

static int set_delay(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (cli_real("top", "-d", arg, true, 3600, &TA(ctx)->delay))
		return 2;
	if (TA(ctx)->delay < 0.1) {
		fprintf(stderr, "ebs top: -d wants 0.1 seconds or more, not '%s'\n", arg);
		return 2;
	}
	return 0;
}

static int set_freq(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_number("top", "-F", arg, 1, 1000000, false, &TA(ctx)->freq) ? 2 : 0;
}

static int set_iterations(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_u32("top", "-n", arg, 1, &TA(ctx)->iterations) ? 2 : 0;
}

static int set_rows(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_u32("top", "--rows", arg, 1, &TA(ctx)->rows) ? 2 : 0;
}

static const struct cli_opt top_opts[] = {
	{"all-cpus", 'a', NULL, "every CPU (the default without -p or a command)", CLI_SET,
	 .off = CLI_BOOL_AT(struct top_args, system_wide)},
	{"pid", 'p', "P[,P...]", "running processes (and their threads), until q", CLI_CALL,
	 .fn = add_pids},
	{"delay", 'd', "SECONDS", "the interval, 0.1 or more (default 1)", CLI_CALL,
	 .fn = set_delay},
	{"freq", 'F', "HZ", "samples a second per CPU (default 1000)", CLI_CALL, .fn = set_freq},
	{"iterations", 'n', "N", "stop after N intervals", CLI_CALL, .fn = set_iterations},
	{"rows", 0, "N", "rows of each table without a terminal (default 25)", CLI_CALL,
	 .fn = set_rows},
	{0},
};

const struct cli_cmd cli_top_cmd = {
	.name = "top",
	.usage = "usage: ebs top [-a | -p PID[,PID...]] [-d SECONDS] [-F HZ] [-n N] [--rows N]\n"
		 "               [-- CMD [ARGS...]]\n",
	.about = "Live hotspots: the functions of the last interval, with their share and its\n"
		 "95% interval, on a terminal a screen redrawn every interval (keys: s sort,\n"
		 "k kernel/user, c cumulative, f freeze, a or Enter annotate, arrows select,\n"
		 "q quit), else one table per interval.\n",
	.notes = "With a command, the exit status is its own; q passes it SIGINT.\n"
		 "See ebs-top(1).\n",
	.opts = top_opts,
	.in_order = true,
};

/* ---- the terminal: every ncurses call --------------------------------------- */

/* The screen, at the first tick: raw keys, so that Ctrl-C is a key (q).  0, or -1: none. */
static int tty_start(struct topc *tc)
{
	tc->scr = cli_tty_start(true);
	return tc->scr ? 0 : -1;
}

/*
 * The screen left for a while (annotate), then tty_resume: annotate and its
 * pager draw on a cleared alternate screen, the normal one left as it was.
 */
static void tty_suspend(void)
{
	cli_tty_suspend();
}

static void tty_resume(void)
{
	reset_prog_mode();
	clearok(curscr, TRUE);
}

/* s at row y, at most cols bytes; what is not ASCII text as '?'; attr A_REVERSE or 0 */
static void tty_line(int y, const char *s, int cols, bool reverse)
{
	char buf[1024];
	int i;

	for (i = 0; s[i] && i < cols && i < (int)sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	for (; reverse && i < cols && i < (int)sizeof(buf) - 1; i++)
		buf[i] = ' ';
	buf[i] = '\0';
	if (reverse)
		attron(A_REVERSE);
	mvaddstr(y, 0, buf);
	if (reverse)
		attroff(A_REVERSE);
}

static void tty_show(struct topc *tc)
{
	char line[1024];
	int rows, cols, y, body;
	size_t i;

	getmaxyx(stdscr, rows, cols);
	erase();
	snprintf(line, sizeof(line), "ebs top   every %.1f s   %s%s%s   %s",
		 (double)tc->interval_ns / 1e9, tc->frozen ? "FROZEN   " : "",
		 tc->ended ? "ENDED   " : "", tc->event, tc->target);
	tty_line(0, line, cols, false);
	snprintf(line, sizeof(line),
		 "%s %.1f-%.1f s: %llu samples (%llu kernel), %llu lost   sort: %s   "
		 "show: %s",
		 tc->v.cumulative ? "since the start," : "interval",
		 (double)tc->table.start_ns / 1e9, (double)tc->table.end_ns / 1e9,
		 (unsigned long long)tc->table.all, (unsigned long long)tc->table.kernel,
		 (unsigned long long)tc->table.lost, top_sort_name(tc->v.sort),
		 top_mode_name(tc->v.mode));
	tty_line(1, line, cols, false);
	tty_line(2, tc->status, cols, false);
	body = rows - 5;
	if (body < 1)
		body = 1;
	tc->body = (size_t)body;
	if (tc->sel >= tc->table.n)
		tc->sel = tc->table.n ? tc->table.n - 1 : 0;
	if (tc->sel < tc->first)
		tc->first = tc->sel;
	if (tc->sel >= tc->first + (size_t)body)
		tc->first = tc->sel - (size_t)body + 1;
	if (tc->first + (size_t)body > tc->table.n)
		tc->first = tc->table.n > (size_t)body ? tc->table.n - (size_t)body : 0;
	/* the columns of the rows shown; DSOs whole */
	top_table__fit(&tc->table, tc->first, (size_t)body, cols);
	top_table__heading(&tc->table, line, sizeof(line), cols);
	tty_line(3, line, cols, true);
	for (y = 0, i = tc->first; y < body && i < tc->table.n; y++, i++) {
		top_table__line(&tc->table, i, line, sizeof(line), cols);
		tty_line(4 + y, line, cols, i == tc->sel);
	}
	tty_line(rows - 1,
		 "s sort  k kernel/user  c cumulative  f freeze  a/Enter annotate  "
		 "arrows/PgUp/PgDn/Home/End select  q quit",
		 cols, false);
	refresh();
}

/* ---- annotate ------------------------------------------------------------------ */

/*
 * Give the terminal's foreground to process group pg (SIGTTOU held off:
 * ebs may be in the background when it takes the terminal back).
 */
static void foreground(pid_t pg)
{
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGTTOU);
	sigprocmask(SIG_BLOCK, &set, &old);
	tcsetpgrp(STDIN_FILENO, pg);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * `ebs annotate -i DATA --dso DSO -- FUNC` on the normal screen, in a
 * process group of its own in the foreground; its errors into errfile,
 * shown on the status line when it fails.  The pager keeps the listing
 * on the screen even when it is short (no -F).
 */
static void annotate_start(struct topc *tc)
{
	const struct top_row *r = tc->sel < tc->table.n ? &tc->table.rows[tc->sel] : NULL;
	bool same_name = false;
	pid_t pid;
	size_t i;
	int fd;

	if (!r) {
		snprintf(tc->status, sizeof(tc->status), "no function selected");
		return;
	}
	if (r->unknown) {
		snprintf(tc->status, sizeof(tc->status), "%s: no symbol, nothing to annotate",
			 r->name);
		return;
	}
	ebs_strlcpy(tc->ann_func, r->name, sizeof(tc->ann_func));
	/*
	 * --dso only where another DSO has a function of that name: it filters
	 * the samples, so annotate's "of N" is then the DSO's, not the header's
	 */
	for (i = 0; i < tc->table.n; i++)
		same_name |= i != tc->sel && !strcmp(tc->table.rows[i].name, r->name);
	tty_suspend();
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tty_resume();
		snprintf(tc->status, sizeof(tc->status), "annotate: fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		signal(SIGTTOU, SIG_IGN);
		setpgid(0, 0);
		tcsetpgrp(STDIN_FILENO, getpid());
		signal(SIGTTOU, SIG_DFL);
		fd = open(tc->errfile, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		/* less without -F: a short listing stays until q too */
		if (!getenv("EBS_PAGER") && !getenv("PAGER"))
			setenv("EBS_PAGER", "less -RX", 1);
		setenv("LESS", "RX", 0);
		if (same_name)
			execl(tc->self, "ebs", "annotate", "-i", tc->data, "--dso", r->dso, "--",
			      r->name, (char *)NULL);
		else
			execl(tc->self, "ebs", "annotate", "-i", tc->data, "--", r->name,
			      (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	foreground(pid);
	tc->ann = pid;
	tc->status[0] = '\0';
}

/* Is annotate done?  Then the terminal and the screen back, and its failure said. */
static void annotate_poll(struct topc *tc, bool block)
{
	int st = 0;
	pid_t w;
	FILE *f;

	if (!tc->ann)
		return;
	while ((w = waitpid(tc->ann, &st, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
		;
	if (w == 0)
		return;
	tc->ann = 0;
	foreground(getpgrp());
	tty_resume();
	if (w > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	snprintf(tc->status, sizeof(tc->status), "annotate %.200s failed", tc->ann_func);
	f = fopen(tc->errfile, "re");
	if (f) {
		char line[200];

		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "ebs annotate: warning", 21)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(tc->status, sizeof(tc->status), "%s", line);
				break;
			}
		fclose(f);
	}
}

/* ---- the ticks --------------------------------------------------------------- */

/* The selection is its row's function (name and DSO), not its position. */
static void select_row(struct topc *tc, size_t i)
{
	tc->sel = i;
	tc->sel_name = i < tc->table.n ? tc->table.rows[i].name : NULL;
	tc->sel_dso = i < tc->table.n ? tc->table.rows[i].dso : NULL;
}

/*
 * A new table (a new interval, another sort or view): the selection stays
 * on its function, wherever it is now; where it is gone, on its position.
 */
static void new_table(struct topc *tc)
{
	size_t i;

	if (top__table(tc->t, &tc->v, &tc->table) && !tc->err)
		tc->err = -ENOMEM;
	for (i = 0; tc->sel_name && i < tc->table.n; i++)
		if (tc->table.rows[i].name == tc->sel_name &&
		    tc->table.rows[i].dso == tc->sel_dso) {
			tc->sel = i;
			return;
		}
	if (tc->sel >= tc->table.n)
		tc->sel = tc->table.n ? tc->table.n - 1 : 0;
	select_row(tc, tc->sel);
}

/* The keys typed since the last tick. */
static void keys(struct topc *tc)
{
	bool redraw = false, rebuild = false;
	size_t page;
	int ch;

	while (!tc->ann && (ch = cli_tty_key()) >= 0) {
		switch (ch) {
		case 's':
			tc->v.sort = (tc->v.sort + 1) % TOP_SORT_MAX;
			rebuild = true;
			break;
		case 'k':
			tc->v.mode = (tc->v.mode + 1) % TOP_MODE_MAX;
			rebuild = true;
			break;
		case 'c':
			tc->v.cumulative = !tc->v.cumulative;
			rebuild = true;
			break;
		case 'f':
		case ' ':
			tc->frozen = !tc->frozen;
			rebuild = !tc->frozen;
			redraw = true;
			break;
		case KEY_UP:
			select_row(tc, tc->sel - (tc->sel > 0));
			redraw = true;
			break;
		case KEY_DOWN:
			select_row(tc, tc->sel + (tc->sel + 1 < tc->table.n));
			redraw = true;
			break;
		case KEY_PPAGE:
			page = tc->body > 1 ? tc->body - 1 : 1;
			select_row(tc, tc->sel > page ? tc->sel - page : 0);
			redraw = true;
			break;
		case KEY_NPAGE:
			page = tc->body > 1 ? tc->body - 1 : 1;
			select_row(tc, tc->sel + page < tc->table.n ? tc->sel + page
				       : tc->table.n		    ? tc->table.n - 1
								    : 0);
			redraw = true;
			break;
		case KEY_HOME:
			select_row(tc, 0);
			redraw = true;
			break;
		case KEY_END:
			select_row(tc, tc->table.n ? tc->table.n - 1 : 0);
			redraw = true;
			break;
		case 'a':
		case '\n':
		case '\r':
		case KEY_ENTER:
			annotate_start(tc);
			redraw = !tc->ann;
			break;
		case 'q':
		case 'Q':
		case 3: /* Ctrl-C, in raw mode */
			tc->quit = true;
			break;
		case KEY_RESIZE:
			redraw = true;
			break;
		default:
			break;
		}
	}
	/* frozen: the view's keys take effect when it thaws */
	if (rebuild && !tc->frozen)
		new_table(tc);
	if ((redraw || (rebuild && !tc->frozen)) && !tc->ann)
		tty_show(tc);
}

/* One interval ended: the table, printed or drawn. */
static void interval_done(struct topc *tc, u64 ns)
{
	top__interval(tc->t, ns);
	if (!tc->tty) {
		if (tc->a->iterations && tc->printed >= tc->a->iterations)
			return;
		new_table(tc);
		top_table__print(&tc->table, &tc->v, tc->a->rows, stdout);
		fflush(stdout);
		tc->printed++;
		return;
	}
	tc->printed++;
	if (!tc->frozen) {
		new_table(tc);
		if (!tc->ann && tc->scr)
			tty_show(tc);
	}
}

/* record's tick (every TICK_MS, and once at the end): nonzero asks it to stop */
static int on_tick(void *ctx, u64 ns, const double *totals, unsigned int nr)
{
	struct topc *tc = ctx;
	int e;

	(void)totals;
	(void)nr;
	tc->last_ns = ns;
	if (tc->tty && !tc->scr && !tc->tty_gone) {
		if (tty_start(tc)) {
			tc->tty_gone = true;
			tc->tty = false;
			fprintf(stderr,
				"ebs top: the terminal '%s' cannot be drawn on (TERM?): tables "
				"instead\n",
				getenv("TERM") ? getenv("TERM") : "");
			if (tc->fallback[0])
				fprintf(stderr, "ebs top: %s\n", tc->fallback);
			tc->status[0] = '\0';
		} else {
			tty_show(tc);
		}
	}
	e = top__drain(tc->t);
	if (e && !tc->err)
		tc->err = e;
	annotate_poll(tc, false);
	if (ns >= tc->next_ns) {
		interval_done(tc, ns);
		while (tc->next_ns <= ns)
			tc->next_ns += tc->interval_ns;
	}
	if (tc->scr)
		keys(tc);
	if (tc->a->iterations && tc->printed >= tc->a->iterations)
		tc->quit = true;
	if ((tc->quit || tc->err) && !tc->stop_sent) {
		tc->stop_sent = true;
		return 1;
	}
	return 0;
}

/* Notices of the session (a fallback, a signal): said, unless they would tear the screen. */
static void notice(void *ctx, enum ebs_code code, const char *line)
{
	struct topc *tc = ctx;

	if (strstr(line, "sampling 'cpu-clock") && strstr(line, "cannot be opened")) {
		snprintf(tc->event, sizeof(tc->event), "cpu-clock %llu Hz (no cycles here)",
			 (unsigned long long)tc->a->freq);
		/*
		 * A screen to come: said in its header (the event, and the status
		 * line), not on the terminal under it; on stderr if none comes.
		 */
		if (tc->tty && !tc->scr) {
			snprintf(tc->fallback, sizeof(tc->fallback), "%s%s", line,
				 cli_code_tag(code));
			snprintf(tc->status, sizeof(tc->status), "%s", line);
			return;
		}
	}
	if (tc->stop_sent) /* our own stop (q, -n) */
		return;
	if (tc->scr)
		snprintf(tc->status, sizeof(tc->status), "%s", line);
	else
		cli_warn((void *)"top", code, line);
}

static volatile sig_atomic_t got_stop;

static void on_stop(int sig)
{
	got_stop = sig;
}

/*
 * The command has ended: the screen stays, the last intervals counted,
 * until q (or a signal); the keys still work.
 */
static void after_end(struct topc *tc)
{
	struct sigaction sa = {.sa_handler = on_stop}, old[3];
	static const int sigs[] = {SIGTERM, SIGHUP, SIGINT};
	size_t i;

	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	if (tc->a->argv)
		snprintf(tc->status, sizeof(tc->status), "the command exited (status %d): q quits",
			 tc->exit_status);
	else
		snprintf(tc->status, sizeof(tc->status), "the processes exited: q quits");
	tc->ended = true;
	tc->frozen = false;
	new_table(tc);
	tty_show(tc);
	while (!tc->quit && !got_stop) {
		struct timespec ts = {0, TICK_MS * 1000000L};

		annotate_poll(tc, false);
		keys(tc);
		if (!tc->quit)
			nanosleep(&ts, NULL);
	}
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

/* ---- the command ---------------------------------------------------------------- */

static void describe(const struct top_args *a, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	if (a->nr_pids) {
		at = (size_t)snprintf(buf, len, "pid");
		for (i = 0; i < a->nr_pids && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? "," : " ",
					       (int)a->pids[i]);
		return;
	}
	if (a->system_wide && !a->argv) {
		snprintf(buf, len, "all CPUs");
		return;
	}
	at = (size_t)snprintf(buf, len, "%scommand '", a->system_wide ? "all CPUs, " : "");
	for (i = 0; a->argv[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", a->argv[i]);
	if (at < len)
		snprintf(buf + at, len - at, "'");
	ebs_clean_text(buf, false);
}

static int parse(int argc, char **argv, struct top_args *a)
{
	int c = cli_parse(&cli_top_cmd, argc, argv, a);

	if (c)
		return cli_exit(c);
	if (a->nr_pids && a->system_wide) {
		fprintf(stderr, "ebs top: -p and -a exclude each other\n");
		return 2;
	}
	if (a->nr_pids && optind < argc) {
		fprintf(stderr, "ebs top: -p watches running processes; no command wanted\n");
		return 2;
	}
	a->argv = optind < argc ? argv + optind : NULL;
	if (!a->nr_pids && !a->argv)
		a->system_wide = true; /* perf top's default */
	if (a->argv && cli_command_runnable("top", a->argv[0]))
		return 127;
	return -1;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a = {.delay = 1.0, .freq = 1000, .rows = DEFAULT_ROWS};
	struct topc tc = {0};
	struct record_opts o = {0};
	struct record_result res;
	struct symbolize_opts so = {0};
	struct ebs_error err = {0};
	char dir[PATH_MAX], data[PATH_MAX + 16], errfile[PATH_MAX + 16], self[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	int rc = parse(argc, argv, &a), fd = -1, devnull = -1, e;
	ssize_t n;

	if (rc >= 0)
		goto out_pids;
	rc = 1;
	dir[0] = '\0';
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "ebs top: /proc/self/exe: %s\n", strerror(errno));
		goto out_pids;
	}
	self[n] = '\0';
	/* the recording: 0600 in a directory of ours, 0700 (mkdtemp) */
	snprintf(dir, sizeof(dir), "%s/ebs-top.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "ebs top: cannot make a directory for the recording (%s): %s\n",
			dir, strerror(errno));
		dir[0] = '\0';
		goto out_pids;
	}
	snprintf(data, sizeof(data), "%s/top.data", dir);
	snprintf(errfile, sizeof(errfile), "%s/annotate.err", dir);
	fd = open(data, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	e = open(errfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || e < 0) {
		fprintf(stderr, "ebs top: %s: %s\n", fd < 0 ? data : errfile, strerror(errno));
		if (e >= 0)
			close(e);
		goto out_dir;
	}
	close(e);
	so.demangle = true;
	tc.t = top__new(&so);
	if (!tc.t) {
		fprintf(stderr, "ebs top: out of memory\n");
		goto out_dir;
	}
	tc.a = &a;
	tc.tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	tc.interval_ns = (u64)(a.delay * 1e9 + 0.5);
	tc.next_ns = tc.interval_ns;
	tc.data = data;
	tc.errfile = errfile;
	tc.self = self;
	snprintf(tc.event, sizeof(tc.event), "cycles %llu Hz", (unsigned long long)a.freq);
	describe(&a, tc.target, sizeof(tc.target));

	/* the event as record asks it: cycles, else cpu-clock, said in one line */
	if (event_spec__parse("cycles", &o.events[0], &err)) {
		fprintf(stderr, "ebs top: %s\n", err.msg);
		goto out_top;
	}
	o.nr_events = 1;
	o.freq = a.freq;
	o.output = data;
	o.output_fd = fd;
	o.pids = a.pids;
	o.nr_pids = a.nr_pids;
	o.system_wide = a.system_wide;
	o.argv = a.argv;
	o.mmap_pages = 128; /* record's default */
	o.cmdline = ebs_cmdline();
	o.notice = notice;
	o.notice_ctx = &tc;
	o.no_ns = true; /* top reads no container's files: their namespaces unasked */
	o.tap = top__tap;
	o.tap_ctx = tc.t;
	o.interval_ms = TICK_MS;
	o.on_interval = on_tick;
	o.interval_ctx = &tc;
	/* the command's output: never on the screen, never in the tables */
	if (a.argv) {
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (tc.tty && devnull >= 0)
			o.child_stdin = o.child_stdout = o.child_stderr = devnull;
		else
			o.child_stdout = STDERR_FILENO;
	}
	e = ebs_record(&o, &res, &err);
	if (e) {
		cli_tty_end(&tc.scr);
		fprintf(stderr, "ebs top: %s%s\n", err.msg, cli_code_tag(err.code));
		rc = res.exec_failed ? 127
		     : err.err == -ESRCH || err.err == -EACCES || err.err == -EPERM ||
				     err.err == -EINVAL
			     ? 2 /* -p gone, not allowed, or a rate the kernel refuses */
			     : 1;
		goto out_top;
	}
	/* what the end drained from the rings, and the last part of an interval */
	if (!tc.err)
		tc.err = top__drain(tc.t);
	if (!tc.tty && (!a.iterations || tc.printed < a.iterations) && top__pending(tc.t))
		interval_done(&tc, tc.last_ns);
	tc.exit_status = res.exit_status;
	/* the command's or the processes' end (not q, -n, an error or a signal): the screen stays
	 */
	if (tc.scr && !tc.quit && !tc.err && !res.stop_signal) {
		interval_done(&tc, tc.last_ns);
		after_end(&tc);
	}
	annotate_poll(&tc, true);
	cli_tty_end(&tc.scr);
	if (tc.err) {
		fprintf(stderr, "ebs top: %s\n", strerror(-tc.err));
		rc = 1;
		goto out_top;
	}
	/* a command's status; without one, q, -n or Ctrl-C is how it ends: 0 */
	rc = a.argv ? res.exit_status : 0;
out_top:
	top_table__free(&tc.table);
	top__free(tc.t);
out_dir:
	if (devnull >= 0)
		close(devnull);
	if (fd >= 0)
		close(fd);
	if (dir[0]) {
		unlink(data);
		unlink(errfile);
		rmdir(dir);
	}
out_pids:
	free(a.pids);
	return rc;
}
