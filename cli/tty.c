// SPDX-License-Identifier: MIT
/*
 * tty.c - the live screens' terminal (ebs monitor's graph, ebs top's
 * table): starting ncurses on it, reading a key, ending it.  The drawing
 * is each command's own (its tty_* functions).
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/builtin.h"

/* after report.h (through builtin.h): curses.h #defines its KEY_MAX */
#include <curses.h>
#include <term.h>

/*
 * Asked of setupterm() first, as newterm() of an unknown terminal leaks
 * what it allocated (ncurses 6.4).
 */
struct screen *cli_tty_start(bool raw_keys)
{
	const char *cup;
	SCREEN *scr;
	int err = 0;
	bool can;

	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		return NULL;
	cup = tigetstr("cup");
	can = cup && cup != (const char *)-1;
	del_curterm(cur_term);
	if (!can)
		return NULL;
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return NULL;
	if (raw_keys)
		raw();
	else
		cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	return scr;
}

void cli_tty_end(struct screen **scr)
{
	if (!*scr)
		return;
	endwin();
	delscreen(*scr);
	*scr = NULL;
}

/*
 * The screen's program mode kept, its end drawn (endwin), then a cleared
 * alternate screen again for what runs meanwhile (a pager): the terminal's
 * normal screen is left as it was before the screen started, for the end.
 */
void cli_tty_suspend(void)
{
	const char *smcup, *clear;

	def_prog_mode();
	endwin();
	smcup = tigetstr("smcup");
	clear = tigetstr("clear");
	if (smcup && smcup != (const char *)-1)
		putp(smcup);
	if (clear && clear != (const char *)-1)
		putp(clear);
	fflush(stdout);
}

int cli_tty_key(void)
{
	int ch = getch();

	return ch == ERR ? -1 : ch;
}
