// SPDX-License-Identifier: MIT
/*
 * sqlwork - a short SQLite workload for tests/integration/sqlite.sh: a real
 * program no one here wrote (the SQLite amalgamation, built by
 * tests/real/build-sqlite.sh) under a small driver.
 *
 * An in-memory database gets N rows (one transaction, one prepared INSERT),
 * two indexes, then three rounds of GROUP BY, LIKE, JOIN, ORDER BY and
 * UPDATE queries.  The profile is SQLite's usual one: B-tree searches
 * (sqlite3BtreeTableMoveto), the bytecode interpreter (sqlite3VdbeExec),
 * the page cache, record decoding and comparison.
 *
 *   sqlwork [N]	N rows (default 100000); 400000 take about 1.4 s here
 */
#include <stdio.h>
#include <stdlib.h>

#include "sqlite3.h"

static const char *const queries[] = {
	"SELECT b, count(*), sum(d), avg(length(c)) FROM t GROUP BY b ORDER BY 2 DESC",
	"SELECT count(*) FROM t WHERE c LIKE '%-7%'",
	"SELECT count(*) FROM t x JOIN t y ON x.b = y.b WHERE x.a < 2000",
	"SELECT c FROM t ORDER BY d DESC LIMIT 10",
	"UPDATE t SET d = d + 1 WHERE b % 3 = 0",
};

/* Run sql; 0, or 1 after saying what failed. */
static int run(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	fprintf(stderr, "sqlwork: %s: %s\n", sql, err ? err : sqlite3_errmsg(db));
	sqlite3_free(err);
	return 1;
}

/* n rows of (b, c, d) through one prepared statement; 0 or 1. */
static int fill(sqlite3 *db, int n)
{
	sqlite3_stmt *st = NULL;
	int i, rc = 1;

	if (sqlite3_prepare_v2(db, "INSERT INTO t(b, c, d) VALUES(?, ?, ?)", -1, &st, NULL))
		goto out;
	for (i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "name-%08lld-%d", (long long)i * 7919 % n, i % 13);
		sqlite3_bind_int(st, 1, (int)((long long)i * 31337 % 1000));
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 3, i * 0.5);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_reset(st);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "sqlwork: insert: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	sqlite3 *db = NULL;
	int rc = 1;
	size_t q;

	if (n < 1) {
		fprintf(stderr, "usage: sqlwork [ROWS]\n");
		return 2;
	}
	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		fprintf(stderr, "sqlwork: cannot open an in-memory database\n");
		goto out;
	}
	if (run(db, "CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT, d REAL)") ||
	    run(db, "BEGIN") || fill(db, n) || run(db, "COMMIT") ||
	    run(db, "CREATE INDEX tb ON t(b)") || run(db, "CREATE INDEX tc ON t(c)"))
		goto out;
	for (int round = 0; round < 3; round++)
		for (q = 0; q < sizeof(queries) / sizeof(queries[0]); q++)
			if (run(db, queries[q]))
				goto out;
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}
