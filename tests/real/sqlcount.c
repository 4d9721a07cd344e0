// SPDX-License-Identifier: MIT
/*
 * sqlcount - libebs (ebs-count(3)) around sections of a real program no one
 * here wrote, for tests/integration/sqlite-count.sh: the SQLite
 * amalgamation (built by tests/real/build-sqlite.sh) in an in-memory
 * database, RUNS times each of two sections:
 *
 *   section 1: a batch of ROWS INSERTs through one prepared statement, in a
 *              transaction (the table, its pages and the heap grow);
 *   section 2: a scan of the whole table (a LIKE on every row, no index).
 *
 * Prints the read path, the empty read pair's cost of each event, each
 * section's statistics (as docs/examples/count-example.c does, the means at
 * three decimals), and the process's CPU time at the end
 * (CLOCK_PROCESS_CPUTIME_ID) for the test to hold the sections against.
 *
 *   sqlcount [RUNS [EVENTS]]	RUNS default 100; EVENTS task-clock,page-faults
 *
 * Exit status 0; 2 for bad arguments or events (one line); 1 when SQLite fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ebs/count.h>
#include "sqlite3.h"

#define ROWS 500 /* INSERTs in section 1 */

/* ROWS rows into t through st (INSERT, prepared), in a transaction; 0 or 1. */
static int insert_batch(sqlite3 *db, sqlite3_stmt *st, int run)
{
	int i;

	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return 1;
	for (i = 0; i < ROWS; i++) {
		long long k = (long long)run * ROWS + i;
		char name[64];

		snprintf(name, sizeof(name), "name-%08lld-%d", k * 7919 % 100003, i % 13);
		sqlite3_bind_int(st, 1, (int)(k * 31337 % 1000));
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 3, (double)k * 0.5);
		if (sqlite3_step(st) != SQLITE_DONE)
			return 1;
		sqlite3_reset(st);
	}
	return sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK;
}

/* One scan of t through st (SELECT, prepared); 0 or 1. */
static int scan(sqlite3_stmt *st, long long *sink)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*sink += sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc != SQLITE_DONE;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 100;
	const char *events = argc > 2 ? argv[2] : "task-clock,page-faults";
	sqlite3_stmt *ins = NULL, *sel = NULL;
	struct ebs_count_set *c = NULL;
	struct ebs_count_snap a, b;
	struct timespec cpu;
	long long sink = 0;
	sqlite3 *db = NULL;
	char err[256];
	int run, i, rc = 1;
	unsigned int id;

	if (runs < 1) {
		fprintf(stderr, "usage: sqlcount [RUNS [EVENTS]]\n");
		return 2;
	}
	c = ebs_count_open(events, err, sizeof(err));
	if (!c) {
		fprintf(stderr, "sqlcount: %s\n", err);
		return 2;
	}
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sqlite3_exec(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT, d REAL)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO t(b, c, d) VALUES(?, ?, ?)", -1, &ins, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM t WHERE c LIKE '%-7%'", -1, &sel, NULL))
		goto out;
	printf("libebs %s, read path: %s\n", ebs_count_version(),
	       ebs_count_path_name(ebs_count_read_path(c)));
	for (i = 0; i < ebs_count_nevents(c); i++)
		printf("empty read pair: %s %.0f\n", ebs_count_event_name(c, i),
		       ebs_count_overhead(c, i));
	for (run = 0; run < runs; run++) {
		ebs_count_read(c, &a);
		if (insert_batch(db, ins, run))
			goto out;
		ebs_count_read(c, &b);
		ebs_count_record(c, 1, &a, &b);

		ebs_count_read(c, &a);
		if (scan(sel, &sink))
			goto out;
		ebs_count_read(c, &b);
		ebs_count_record(c, 2, &a, &b);
	}
	for (id = 1; id <= 2; id++) {
		for (i = 0; i < ebs_count_nevents(c); i++) {
			struct ebs_count_stat st;

			if (ebs_count_stat(c, id, i, &st))
				continue;
			printf("section %u %s: n %llu mean %.3f sd %.3f min %.0f max %.0f mode %.0f\n",
			       id, ebs_count_event_name(c, i), (unsigned long long)st.n, st.mean,
			       st.sd, st.min, st.max, st.mode);
		}
	}
	printf("rows matched: %lld\n", sink);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "sqlcount: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	sqlite3_close(db);
	ebs_count_close(c);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	if (!rc)
		printf("process cpu_ns %lld\n", (long long)cpu.tv_sec * 1000000000ll + cpu.tv_nsec);
	return rc;
}
