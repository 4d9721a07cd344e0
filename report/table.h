/* SPDX-License-Identifier: MIT */
/*
 * table.h - ebs report's tables: the rows samples are counted into
 * (report.c), the columns, one descriptor per --sort key (columns.c), and
 * the two printers (print-text.c, print-json.c).  Private to report/.
 *
 * A new --sort key is one enum report_key value, one report_columns[]
 * entry and its functions in columns.c, and its field in struct row_key.
 */
#ifndef EBS_REPORT_TABLE_H
#define EBS_REPORT_TABLE_H

#include "report/session/session.h"
#include "report/dsostats.h"
#include "util/hash.h"
#include "util/json.h"

/*
 * What a row is keyed by.  The strings are the symbolizer's and the
 * machine's, which keep them until they are freed: one symbol, DWARF
 * function, file or command name is one pointer, so comparing pointers is
 * exact and costs no strlen per sample.  Two different functions of one
 * name (static ones in two files) are two rows.  Fields of columns not
 * shown stay zero.
 */
struct row_key {
	const char *function; /* NULL: no symbol, see addr */
	const char *inlined_into;
	/*
	 * The DSO: the symbolizer's object for it (one per file, whatever
	 * mappings or paths showed it), or for the kernel and what has none
	 * its name.  Its name is row.dso.
	 */
	const void *dso_id;
	const char *file;
	const char *comm;
	const char *host; /* the recording's host (session_input.host), a column */
	u64 addr;	  /* function NULL: the address in the DSO (or the ip) */
	u32 line, pid, tid, event;
	u32 input; /* the recording of pid and tid (several -i), when they are columns */
	u32 spare;
};

/* (hashed as words: ebs_hash_words) */
_Static_assert(sizeof(struct row_key) % 8 == 0, "struct row_key is not whole words");

/*
 * Of a source line's samples, those of one function's code compiled into
 * another: code is the innermost frame's function, into the function it
 * was inlined into (NULL: code's own, not inlined).  After the pass
 * (settle_line) function is the caller to show, NULL for the line's own.
 */
struct caller {
	const char *code, *into;
	const char *function;
	u64 samples[EBS_MAX_EVENTS];
	u64 all;
};

struct row {
	UT_hash_handle hh;
	struct row_key key;
	u64 samples[EBS_MAX_EVENTS];
	u64 all; /* over every event */
	/*
	 * --children: samples[] and all count the samples whose call chain
	 * holds the function (inclusive), these the samples in its own code.
	 */
	u64 self[EBS_MAX_EVENTS];
	u64 self_all;
	u64 mark; /* --children: the last sample counted, to count one once */
	/*
	 * --sort line alone: rows are source lines, whatever they were
	 * inlined into; function is the line's own (key.function is NULL),
	 * callers the functions its code was inlined into, with most
	 * samples first and the line's own entry (function NULL) last.
	 */
	const char *function;
	const char *mangled; /* key.function as the symbol table has it, when that is
			      * demangled (sym_result.mangled); else NULL */
	struct caller *callers;
	size_t ncallers, callers_cap;
	const char *dso; /* its name, when the DSO is a column */
	char text[];	 /* "[unknown] DSO+0xADDR" for an unknown function */
};

struct chainer;

/*
 * Where the last sample of one resolved address (sym_result.id) was
 * counted: its row, and in a source line's row its entry of callers, for
 * the key's pid, tid, comm and event (0 and NULL where they are not
 * columns).  A row's key is a function of the address's result and those,
 * so another sample of that address and those counts there, unhashed.
 */
struct row_memo {
	struct row *row; /* NULL: none yet */
	const char *comm, *host;
	u32 pid, tid, event, input;
	u32 caller; /* index in row->callers, or NO_CALLER */
};

#define NO_CALLER UINT32_MAX

/*
 * --children: where a frame (cframe.fid) was counted last, while the
 * sample's own part of the key (task, event columns: chain_ctx) is the one
 * of generation gen.
 */
struct frame_memo {
	struct row *row;
	u64 gen;
};

/* One table's worth of rows, and how they are shown. */
struct report {
	const struct report_opts *o;
	struct session rs;
	bool col[KEY_MAX];	       /* the columns shown, each named by its key */
	enum report_key cols[KEY_MAX]; /* ...in the order shown */
	unsigned int nr_cols;
	bool by_event; /* one table of all events */
	bool by_line;  /* --sort line without func: one row per source line */
	struct row *rows;
	struct row_memo *memo; /* by sym_result.id */
	size_t memo_cap;
	u64 total[EBS_MAX_EVENTS], total_all;
	u64 period_sum[EBS_MAX_EVENTS];
	/* of them, from processes in another mount namespace or root (resolved.ns) */
	u64 ns_total[EBS_MAX_EVENTS], ns_total_all;
	struct dso_stat *stats;
	struct chainer *chains;	  /* --children */
	u64 seq;		  /* samples counted so far */
	struct frame_memo *fmemo; /* by cframe.fid */
	size_t fmemo_cap;
	struct row_key chain_ctx; /* the latest chain's key, but for its frames */
	u64 chain_gen;		  /* changes with chain_ctx */
	bool color;
	int width;
};

/* --children: a row's own samples in the table of ev. */
static inline u64 row__self(const struct row *row, int ev)
{
	return ev < 0 ? row->self_all : row->self[ev];
}

/* A row's count in the table of ev (-1: the table of all events). */
static inline u64 row__count(const struct row *row, int ev)
{
	return ev < 0 ? row->all : row->samples[ev];
}

/*
 * What a printer shows of a row in the table of ev with total samples: its
 * count, its percent and the 95% interval of that.  False when the row is
 * below --min-percent and not shown.
 */
struct row__share {
	u64 count;
	double percent, lo, hi;
};
bool row__share(const struct report *r, const struct row *row, int ev, u64 total,
		struct row__share *sh);

/* The function a row shows: its own, else "[unknown] DSO+0xADDR", else "??". */
const char *row__function(const struct row *row);

/* A source line's samples that are its function's own code, not inlined. */
u64 row__own_samples(const struct row *row, int ev);

/*
 * Count the samples of opts->view.input into r's rows (report.c): the
 * table's plan, the pass over the samples, the source lines settled.  0,
 * or -errno with err filled; report_release(r) after either.  ebs report
 * prints the rows, ebs diff compares two files' rows.
 */
int report_collect(struct report *r, const struct report_opts *opts, struct ebs_error *err);
void report_release(struct report *r);

/* The rows with samples in table ev, sorted (table__row_cmp); *n gets the count.  NULL: no memory.
 */
struct row **report_sorted_rows(struct report *r, int ev, size_t *n);

/* ---- columns (columns.c) --------------------------------------------------------------- */

/* The longest cell text a table prints; rows sort by what it shows of them. */
#define CELL_MAX 4200

/*
 * A cell's text as the pieces it is made of, not yet joined: rows are
 * compared by the pieces (cell_cmp) without the text being built, and the
 * text is built only to be printed (cell_join).
 */
struct cell {
	const char *piece[12];
	unsigned int n;
	char num[2][24]; /* numbers spelled for the cell */
};

/* Order of the joined texts as strcmp's of their first CELL_MAX - 1 bytes. */
int cell_cmp(const struct cell *a, const struct cell *b);
/* The joined text in buf, cut to len - 1 bytes as snprintf cuts it. */
void cell_join(const struct cell *c, char *buf, size_t len);

/*
 * One descriptor per --sort key, as perf's struct sort_entry: the column
 * the key shows, its names, how rows compare by it, its text cell and its
 * JSON members.  report_columns[] is indexed by enum report_key; its order
 * is the order of the members of a JSON row.
 */
struct column {
	const char *name;  /* --sort and --fields: "func" */
	const char *title; /* the text table's heading: "function" */
	enum report_field field;
	unsigned int brings; /* 1 << KEY_x: the columns its key shows after its own */
	/*
	 * Text: the order name columns are narrowed in to fit a width (1
	 * first, then 2, then the widest of the 3s); 0: never (numbers).
	 */
	unsigned int narrow;
	bool name_first; /* narrowed, "f (inlined into g)" keeps f whole */
	bool file_name;	 /* narrowed, ".../file.c:123" stays (up to 30 wide) */
	void (*text)(const struct report *r, const struct row *row, struct cell *c);
	/* <0: x first, >0: y first, 0: the next column decides */
	int (*cmp)(const struct report *r, const struct row *x, const struct row *y);
	void (*json)(const struct report *r, const struct row *row, int ev, struct ebs_json *j);
};

extern const struct column report_columns[KEY_MAX];

/* The text of column k of row, cut to len - 1 bytes. */
void table__cell_text(const struct report *r, const struct row *row, enum report_key k, char *buf,
		      size_t len);

/* The whole text of column k of row, however long (malloc'd); NULL: no memory. */
char *table__cell_dup(const struct report *r, const struct row *row, enum report_key k);

/* The columns of o->keys (func when none) into r->col, r->cols, r->by_line, r->by_event. */
void table__plan(struct report *r);

/* Every --fields field is a column of the table: 0, or -EINVAL naming the first that is not. */
int table__check_fields(const struct report *r, struct ebs_error *err);

/* Most samples in table ev first; ties by the columns in the order shown. */
int table__row_cmp(const struct report *r, int ev, const struct row *x, const struct row *y);

/* ---- printers -------------------------------------------------------------------------- */

/*
 * Narrow the name columns w[] (natural widths) of the key columns cols[]
 * until a row fits width with fixed more columns of numbers: the function
 * names first, down to soft_w[] (what they need to show their own names;
 * soft_w may be NULL), then in their columns' narrow order, then the
 * widest; none below min_w[].  True when the rows fit.
 */
bool table__fit(int *w, const enum report_key *cols, const int *min_w, const int *soft_w, int nc,
		int fixed, int width);

/* The narrowest a cell of col holding text may be narrowed to: 12; a source line's ".../file.c:123"
 * (up to 30). */
int table__min_width(const struct column *col, const char *text);

/* Cell text s of column col cut to width into out (of size bytes), as the text table cuts it. */
void table__elide_cell(const struct column *col, char *out, size_t size, const char *s,
		       size_t width);

/* Table ev (-1: all events) of rows[0..n), sorted: text (print-text.c) or JSON (print-json.c). */
void table__print_text(const struct report *r, int ev, struct row **rows, size_t n);
void table__print_json(const struct report *r, int ev, struct row **rows, size_t n);

#endif /* EBS_REPORT_TABLE_H */
