// SPDX-License-Identifier: MIT
/*
 * cmd-monitor.c - ebs monitor: the per-second rates of two or more events,
 * live, as a scrolling full-screen graph (ncurses) when standard output is
 * a terminal, else as one line of numbers per interval; --csv logs every
 * interval to a file either way.
 *
 * The counting is ebs stat's: an in-process counting session
 * (count/session.h) that calls back every TICK_MS (without a terminal: every interval, tick_ms())
 * with the totals so far.  The monitor's interval
 * (-i, changed by + and -) is made of those ticks: a rate is the totals' change over the time
 * between the two ticks that bound it.  The keys are read at every tick, so they answer within
 * TICK_MS whatever the interval.  The drawing is count/monitor.c's, into a
 * canvas that tty_show() copies to the screen: every ncurses call of monitor
 * is in this file and cli/tty.c (the screen started and ended, keys).  The screen is
 * restored however the session ends (q, --duration, the command's end,
 * SIGINT, SIGTERM, an error): the session catches those signals during it
 * and returns, and the screen starts only at its first tick.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "count/monitor.h"
#include "count/session.h"
#include "sampler/sampler.h"

/* after report.h (through builtin.h): curses.h #defines its KEY_MAX */
#include <curses.h>

#define TICK_MS		    25 /* how often the counters are read and the keys looked at */
#define MIN_INTERVAL_MS	    50
#define MAX_INTERVAL_MS	    2000
#define DEFAULT_INTERVAL_MS 100
#define HISTORY		    4096 /* intervals kept: wider than any terminal */

/* The default pair, and what stands in for it on a machine without a PMU. */
static const char default_events[] = "cycles,instructions";
static const char fallback_events[] = "task-clock,page-faults";

/* + and - step through these */

struct mon_opts {
	struct event_spec ev[MONITOR_MAX_EVENTS];
	unsigned int nr_ev;
	bool asked;	       /* -e given */
	const char *events;    /* -e's */
	unsigned int interval; /* ms */
	bool ratio;
	double duration; /* s; 0: none */
	const char *csv;
	pid_t *pids;
	unsigned int nr_pids;
	bool system_wide;
	char *const *argv;
};

/* What the ticks share: the model, the previous reading, the outputs, the keys' state. */
struct mon {
	const struct mon_opts *o;
	struct monitor *m;
	struct monitor_canvas *c;
	SCREEN *scr;   /* the terminal's screen once started; NULL: none (yet) */
	bool tty;      /* draw (standard output is a terminal), else lines */
	bool tty_gone; /* the screen could not start: lines instead */
	FILE *csv;
	double last[EBS_MAX_EVENTS]; /* the totals at the last tick, at last_ns */
	u64 last_ns;
	bool headed; /* the lines' header printed (at the first tick: after any error) */
	unsigned int interval;
	bool stop_sent;
	char said[400]; /* choose_events' line, "" once printed */
};

/* The fallback's line, once, before the screen starts */
static void say_fallback(struct mon *mo)
{
	if (!mo->said[0])
		return;
	fprintf(stderr, "%s\n", mo->said);
	mo->said[0] = '\0';
}

#define MO(ctx) ((struct mon_opts *)(ctx))

static int set_interval(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 n;

	(void)opt;
	if (cli_number("monitor", "-i", arg, MIN_INTERVAL_MS, MAX_INTERVAL_MS, false, &n))
		return 2;
	MO(ctx)->interval = (unsigned int)n;
	return 0;
}

static int add_pids(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_parse_pids("monitor", arg, &MO(ctx)->pids, &MO(ctx)->nr_pids) ? 2 : 0;
}

static int set_duration(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_real("monitor", "--duration", arg, true, 1e9, &MO(ctx)->duration) ? 2 : 0;
}

static const struct cli_opt monitor_opts[] = {
	{"event", 'e', "E1,E2[,...]",
	 "1 to 4 events (default: cycles,instructions; where this machine cannot count them, "
	 "task-clock,page-faults, said)",
	 CLI_STR, .off = CLI_STR_AT(struct mon_opts, events)},
	{"interval", 'i', "MS", "50 to 2000 (default 100)", CLI_CALL, .fn = set_interval},
	{"ratio", 0, NULL, "also EVENT1/EVENT2 as a trace of its own", CLI_SET,
	 .off = CLI_BOOL_AT(struct mon_opts, ratio)},
	{"duration", 0, "S", "stop after S seconds", CLI_CALL, .fn = set_duration},
	{"csv", 0, "FILE", "every interval's rates to FILE", CLI_STR,
	 .off = CLI_STR_AT(struct mon_opts, csv)},
	{"pid", 'p', "P[,P...]", "running processes (and their threads), until q", CLI_CALL,
	 .fn = add_pids},
	{"all-cpus", 'a', NULL, "every CPU, until q (or while CMD runs)", CLI_SET,
	 .off = CLI_BOOL_AT(struct mon_opts, system_wide)},
	{0},
};

const struct cli_cmd cli_monitor_cmd = {
	.name = "monitor",
	.usage = "usage: ebs monitor [-e EVENT1,EVENT2[,...]] [-i MS] [-p PID | -a] [--ratio]\n"
		 "                   [--duration S] [--csv FILE] [-- CMD [ARGS...]]\n",
	.about = "The per-second rates of events, live: a scrolling graph on a terminal (keys:\n"
		 "space pause, + and - the interval, r rescale, e equal scales, g grid, q quit),\n"
		 "else one line of numbers per interval.\n",
	.notes = "With a command, the exit status is its own; q passes it SIGINT (a second q\n"
		 "kills it).  See ebs-monitor(1).\n",
	.opts = monitor_opts,
	.in_order = true,
};

static int parse(int argc, char **argv, struct mon_opts *o)
{
	const char *events;
	struct ebs_error err = {0};
	int c, k;

	o->interval = DEFAULT_INTERVAL_MS;
	c = cli_parse(&cli_monitor_cmd, argc, argv, o);
	if (c)
		return cli_exit(c);
	o->asked = o->events != NULL;
	events = o->asked ? o->events : default_events;
	if (o->nr_pids && o->system_wide) {
		fprintf(stderr, "ebs monitor: -p and -a exclude each other\n");
		return 2;
	}
	if (o->nr_pids && optind < argc) {
		fprintf(stderr, "ebs monitor: -p monitors running processes; no command wanted\n");
		return 2;
	}
	if (optind >= argc && !o->nr_pids && !o->system_wide) {
		fprintf(stderr, "ebs monitor: nothing to monitor (give -- CMD [ARGS...], -p PID "
				"or -a)\n");
		return 2;
	}
	if (o->csv && (!*o->csv || !strcmp(o->csv, "-"))) {
		fprintf(stderr, "ebs monitor: --csv wants a file name, not '%s'\n", o->csv);
		return 2;
	}
	o->argv = optind < argc ? argv + optind : NULL;
	k = event_spec__parse_list(events, o->ev, MONITOR_MAX_EVENTS, &err);
	if (k < 0) {
		fprintf(stderr, "ebs monitor: %s%s\n", err.msg, cli_code_tag(err.code));
		return 2;
	}
	o->nr_ev = (unsigned int)k;
	if (o->ratio && o->nr_ev < 2) {
		fprintf(stderr, "ebs monitor: --ratio divides the first event by the second: "
				"give two events with -e\n");
		return 2;
	}
	return -1;
}

/* Can ev be counted here (count_event_probe)?  0, or the -errno of the open. */
static int countable(struct event_spec *ev, bool system_wide)
{
	struct ebs_error err = {0};
	bool user_only = false;
	int why = 0;

	(void)count_event_probe(ev, BACKEND_PERF, system_wide, &why, &user_only, &err);
	return why;
}

/*
 * The events as they will be counted: the default pair replaced by
 * fallback_events when either cannot be counted (the line that says so in
 * said, a short form in note: both printed once the command runs, so that
 * a command that cannot run, or a --csv that cannot be written, gets its
 * one line alone); an event asked with -e that cannot be counted is
 * refused.  0, or the exit status after one line.
 */
static int choose_events(struct mon_opts *o, char *said, size_t said_len, char *note, size_t len)
{
	struct ebs_error err = {0};
	unsigned int i;
	int e;

	note[0] = said[0] = '\0';
	for (i = 0; i < o->nr_ev; i++) {
		e = countable(&o->ev[i], o->system_wide);
		if (!e)
			continue;
		if (o->asked) {
			fprintf(stderr, "ebs monitor: event '%s' cannot be counted here: %s\n",
				o->ev[i].name, event_open_reason(e));
			return 2;
		}
		snprintf(said, said_len,
			 "ebs monitor: %s asked (the default), but '%s' cannot be counted here: "
			 "%s; monitoring %s instead",
			 default_events, o->ev[i].name, event_open_reason(e), fallback_events);
		snprintf(note, len, "%s cannot be counted here: %s instead", default_events,
			 fallback_events);
		if (event_spec__parse_list(fallback_events, o->ev, MONITOR_MAX_EVENTS, &err) != 2)
			return 1;
		for (i = 0; i < 2; i++)
			if ((e = countable(&o->ev[i], o->system_wide))) {
				fprintf(stderr, "ebs monitor: %s cannot be counted either: %s\n",
					o->ev[i].name, event_open_reason(e));
				return 1;
			}
		return 0;
	}
	return 0;
}

/* ---- the terminal: every ncurses call --------------------------------------- */

static const short colours[MONITOR_MAX_TRACES] = {COLOR_GREEN, COLOR_YELLOW, COLOR_CYAN,
						  COLOR_MAGENTA, COLOR_RED};

/* The screen, at the first tick (cli_tty_start), and the traces' colours.  0, or -1: none. */
static int tty_start(struct mon *mo)
{
	short k;

	mo->scr = cli_tty_start(false);
	if (!mo->scr)
		return -1;
	if (has_colors()) {
		start_color();
		use_default_colors();
		for (k = 0; k < MONITOR_MAX_TRACES; k++)
			init_pair((short)(k + 1), colours[k], -1);
		init_pair(MONITOR_GRID, COLOR_BLUE, -1);
	}
	return 0;
}

/* Draw the model at the terminal's size (a new canvas when it changed) and show it. */
static void tty_show(struct mon *mo)
{
	int rows, cols, r, col;

	getmaxyx(stdscr, rows, cols);
	if (!mo->c || mo->c->rows != rows || mo->c->cols != cols) {
		monitor_canvas__free(mo->c);
		mo->c = monitor_canvas__new(rows, cols);
		if (!mo->c)
			return;
	}
	monitor__draw(mo->m, mo->c);
	for (r = 0; r < rows; r++)
		for (col = 0; col < cols; col++) {
			unsigned char k = mo->c->colour[r * cols + col];
			chtype ch = (chtype)(unsigned char)mo->c->ch[r * cols + col];

			if (k && has_colors())
				ch |= COLOR_PAIR(k);
			if (k && k < MONITOR_GRID)
				ch |= A_BOLD;
			mvaddch(r, col, ch);
		}
	refresh();
}

/* ---- the ticks --------------------------------------------------------------- */

/* The keys typed since the last tick: true to quit.  *redraw when the screen changes. */
static bool keys(struct mon *mo, bool *redraw)
{
	struct monitor *m = mo->m;
	bool quit = false;
	int ch;

	while ((ch = cli_tty_key()) >= 0) {
		switch (ch) {
		case ' ':
			m->paused = !m->paused;
			break;
		case '+':
		case '=':
			mo->interval = monitor_step_interval(mo->interval, true);
			break;
		case '-':
		case '_':
			mo->interval = monitor_step_interval(mo->interval, false);
			break;
		case 'r':
			monitor__rescale(m, monitor_graph_width(mo->c ? mo->c->cols : 0));
			break;
		case 'e':
			m->equal = !m->equal;
			break;
		case 'g':
			m->grid = !m->grid;
			break;
		case 'q':
		case 'Q':
			quit = true;
			break;
		case KEY_RESIZE:
			break;
		default:
			continue; /* any other key: nothing */
		}
		m->interval_ms = mo->interval;
		*redraw = true;
	}
	return quit;
}

/* One interval: to the CSV file, as a line without a terminal, into the model. */
static void interval_done(struct mon *mo, u64 ns, const double *totals, bool partial)
{
	monitor__interval(mo->m, ns, totals, partial, mo->csv, mo->tty ? NULL : stdout);
}

/*
 * How often record ticks: every TICK_MS on the screen, where the keys are
 * read at each tick; without one (lines), there are no keys and a tick per
 * interval is enough (the counters read 10 times a second at -i 100, not
 * 40: issue 34's monitor_cpu), unless --duration does not end on an
 * interval's end, which the ticks must then find within TICK_MS as before.
 */
static int tick_ms(const struct mon_opts *o, bool tty)
{
	double ticks = o->duration * 1000.0 / o->interval;

	if (tty || (o->duration > 0 && fabs(ticks - round(ticks)) > 1e-6))
		return TICK_MS;
	return o->interval;
}

/* record's tick (every tick_ms(), and once at the end): nonzero asks it to stop */
static int on_tick(void *ctx, u64 ns, const double *totals, unsigned int nr)
{
	struct mon *mo = ctx;
	bool redraw = false, quit = false;
	u64 want = (u64)mo->interval * 1000000ull;

	(void)nr;
	say_fallback(mo);
	if (mo->tty && !mo->scr && !mo->tty_gone && tty_start(mo)) {
		mo->tty_gone = true;
		mo->tty = false;
		fprintf(stderr,
			"ebs monitor: the terminal '%s' cannot be drawn on (TERM?): lines instead\n",
			getenv("TERM") ? getenv("TERM") : "");
	}
	if (!mo->tty && !mo->headed) {
		/* once counting has started: after any error */
		mo->headed = true;
		monitor__lines_header(mo->m, stdout);
	}
	memcpy(mo->last, totals, sizeof(mo->last[0]) * mo->o->nr_ev);
	mo->last_ns = ns;
	if (mo->scr)
		quit = keys(mo, &redraw);
	/* an interval is whole at the tick nearest its end */
	if (ns > mo->m->prev_ns && ns - mo->m->prev_ns + TICK_MS * 500000ull >= want) {
		interval_done(mo, ns, totals, false);
		redraw |= !mo->m->paused;
	}
	if (mo->scr && redraw)
		tty_show(mo);
	if (mo->o->duration > 0 && (double)ns * 1e-9 >= mo->o->duration && !mo->stop_sent) {
		mo->stop_sent = true;
		return 1;
	}
	return quit;
}

/* ---- the command ---------------------------------------------------------------- */

/* "command 'x y'", "pid 12, 13", "all CPUs" */
static void describe(const struct mon_opts *o, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	if (o->system_wide) {
		at = (size_t)snprintf(buf, len, "all CPUs");
	} else if (o->nr_pids) {
		at = (size_t)snprintf(buf, len, "pid");
		for (i = 0; i < o->nr_pids && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? ", " : " ",
					       (int)o->pids[i]);
		return;
	}
	if (!o->argv)
		return;
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "%scommand '", at ? ", " : "");
	for (i = 0; o->argv[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", o->argv[i]);
	if (at < len)
		snprintf(buf + at, len - at, "'");
}

int cmd_monitor(int argc, char **argv)
{
	struct mon_opts o = {0};
	struct mon mo = {0};
	struct count_session cs = {0};
	struct record_result res;
	struct ebs_error err = {0};
	struct ebs_out csv = {0};
	const char *names[MONITOR_MAX_EVENTS];
	char note[200];
	int rc = parse(argc, argv, &o), e, devnull = -1;
	unsigned int i;

	if (rc >= 0)
		goto out_pids;
	rc = choose_events(&o, mo.said, sizeof(mo.said), note, sizeof(note));
	if (rc)
		goto out_pids;
	for (i = 0; i < o.nr_ev; i++)
		names[i] = o.ev[i].name;
	mo.o = &o;
	mo.interval = o.interval;
	mo.tty = isatty(STDOUT_FILENO);
	mo.m = monitor__new(names, o.nr_ev, o.ratio, HISTORY);
	if (!mo.m) {
		fprintf(stderr, "ebs monitor: out of memory\n");
		rc = 1;
		goto out_pids;
	}
	mo.m->interval_ms = o.interval;
	for (i = 0; i < o.nr_ev; i++)
		if (event_spec__is_clock(&o.ev[i]))
			monitor__set_cpus(mo.m, i); /* shown in CPUs, as perf's CPUs utilized */
	describe(&o, mo.m->target, sizeof(mo.m->target));
	ebs_strlcpy(mo.m->note, note, sizeof(mo.m->note));
	/* aside its name until it is whole (util/output.c) */
	if (o.csv && ebs_out_open(&csv, o.csv, NULL, &err)) {
		rc = cli_output_error("monitor", "--csv", &err); /* the system's: 1 (README) */
		goto out_model;
	}
	mo.csv = o.csv ? csv.f : NULL;
	if (mo.csv)
		monitor__csv_header(mo.m, mo.csv);
	/* on the screen, the command's terminal I/O would tear the graph and take the keys */
	if (mo.tty && o.argv && (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0)
		cs.child_stdin = cs.child_stdout = cs.child_stderr = devnull;
	cs.events = o.ev;
	cs.nr_events = o.nr_ev;
	cs.argv = o.argv;
	cs.pids = o.pids;
	cs.nr_pids = o.nr_pids;
	cs.system_wide = o.system_wide;
	cs.interval_ms = tick_ms(&o, mo.tty);
	cs.on_interval = on_tick;
	cs.interval_ctx = &mo;
	e = count_session_run(&cs, &res, &err);
	cli_tty_end(&mo.scr);
	if (devnull >= 0)
		close(devnull);
	if (e) {
		fprintf(stderr, "ebs monitor: %s%s\n", err.msg, cli_code_tag(err.code));
		rc = res.exec_failed ? 127
		     : err.err == -ESRCH || ((o.system_wide || o.nr_pids) &&
					     (err.err == -EACCES || err.err == -EPERM))
			     ? 2 /* -p gone, or not allowed */
			     : 1;
		goto out_csv;
	}
	say_fallback(&mo); /* a command that ended before the first tick */
	/* the last interval, cut short by the end: kept, as ebs stat -I keeps it */
	if (mo.last_ns > mo.m->prev_ns)
		interval_done(&mo, mo.last_ns, mo.last, true);
	/* a command's status; without one, q, --duration or Ctrl-C is how it ends: 0 */
	rc = o.argv ? res.exit_status : 0;
out_csv:
	/* what was counted is the file, whatever the command's status */
	if (mo.csv && ebs_out_close(&csv, true, &err) && !rc)
		rc = cli_output_error("monitor", "--csv", &err);
out_model:
	monitor_canvas__free(mo.c);
	monitor__free(mo.m);
out_pids:
	free(o.pids);
	return rc;
}
