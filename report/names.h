/* SPDX-License-Identifier: MIT */
/*
 * names.h - function names as people read and type them: C++ (and Rust)
 * names shortened to a width without losing the function's own name, and
 * a name typed on the command line matched to the functions it may mean.
 * The one routine of each that every listing and every command uses.
 * Private to report/.
 *
 * Both parse a demangled name into its brackets (<> () [] {}), knowing
 * the operator names that hold brackets (operator<, operator<<,
 * operator(), operator->, operator new[]...), "(anonymous namespace)",
 * lambdas ("{lambda(int)#1}"), clones ("[clone .constprop.0]"), a
 * template function's return type ("void f<int>(int)"), the parameter
 * list and the scope ("ns::cls<T>::").
 */
#ifndef EBS_REPORT_NAMES_H
#define EBS_REPORT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/util.h"

/*
 * What a shortened name must keep to stay apart from others: a bracket
 * collapsed, a parameter list or a scope dropped only where the other
 * names (full texts, as given to names_fit) hold the same text there.
 */
struct name_keep {
	const char *const *others;
	size_t n;
};

/*
 * A function column's text in at most width bytes into out (of size):
 * NAME, or NAME followed by " (inlined)", " (inlined into G, H, +N more)"
 * or " (and inlined into ...)".  Whole when it fits; else shortened in
 * this order, until it fits: template argument lists collapsed to <...>
 * (the innermost first, then the longest), the parameter lists to (...),
 * the inlined-into part to the callers' own names and then to
 * " (inlined)", the scope ("...::destroy(...)"), and last the name cut.
 * The function's own unqualified name stays until nothing else is left.
 * keep: NULL, or the texts it must stay distinct from.  Returns the
 * length written.  width 0: no limit.
 */
size_t names_fit(char *out, size_t size, const char *text, size_t width,
		 const struct name_keep *keep);

/*
 * cut[i] (malloc'd, the caller frees each): full[i] as names_fit cuts it
 * to width, and where two different texts would print alike, cut again
 * each kept apart from the others.  0 or -ENOMEM (cut[] all NULL).
 */
int names_fit_column(char **cut, const char *const *full, size_t n, size_t width);

/*
 * The width text needs to show its function's own name: its length
 * shortened as far as names_fit goes before it cuts the name itself
 * (what a table narrows a function column to before it cuts the DSOs).
 */
size_t names_floor(const char *text);

/*
 * The function's own name in name, without its scope, template arguments
 * or parameters ("destroy" of "ns::basic_json<...>::json_value::destroy(
 * value_t)"): [*start, *end).  The whole name when it has no parts.
 */
void names_unqualified(const char *name, size_t *start, size_t *end);

/*
 * How a name typed names a function, in the order they are tried:
 * NAME_EXACT, the name itself (or without its parameters or gcc's clone
 * suffix: "ns::f" is "ns::f(int)", "f" is "f.constprop.0"); then the
 * unqualified name; then a "::"-suffix ("json_value::destroy", template
 * arguments left out or given); then a part of the name.
 */
enum name_tier { NAME_NONE, NAME_EXACT, NAME_UNQUALIFIED, NAME_SUFFIX, NAME_SUBSTRING };

/* A function that may be meant: its name and its samples. */
struct name_cand {
	const char *name;
	u64 samples;
	bool match; /* set by names_resolve */
};

/*
 * Which of c[0..n) want (len bytes) names: the candidates of the first
 * tier with any, their match set; returns that tier, NAME_NONE when none
 * matches.  *funcs gets how many functions they are (names that differ
 * only by a clone suffix are one): more than one past NAME_EXACT is
 * ambiguous.
 */
enum name_tier names_resolve(const char *want, size_t len, struct name_cand *c, size_t n,
			     size_t *funcs);

/*
 * A typed name resolved among the functions of a recording: NAME_EXACT
 * (or NAME_NONE) matches as session__name_is does, the others match the
 * names resolved.
 */
struct name_query {
	const char *want;
	size_t len;
	enum name_tier tier;
	const char **names; /* tier past NAME_EXACT: the names meant */
	size_t n;
	enum name_tier max_tier; /* 0, or the last tier to look in (a name of a DSO too) */
};

bool name_query__match(const struct name_query *q, const char *name);
void name_query__free(struct name_query *q); /* accepts NULL */

/*
 * Resolve q (want and len set) among c[0..n): 0; -ENOMEM; or, when it is
 * ambiguous, -EINVAL with err saying so in one line, after the candidates
 * (most samples first, their share of total, names shortened to width, at
 * most 10) were printed to list (when not NULL).  what: "--func",
 * "annotate"... for the message; input the recording's name.
 */
int name_query__resolve(struct name_query *q, struct name_cand *c, size_t n, u64 total, FILE *list,
			int width, const char *input, struct ebs_error *err);

/*
 * The functions a recording names, with their samples: names added (the
 * pointers the symbolizer gives, kept: they must outlive the tally), then
 * the candidates, one per text, to resolve a typed name among.
 */
struct name_tally;
int name_tally__add(struct name_tally **t, const char *name, u64 n);  /* 0 or -ENOMEM */
struct name_cand *name_tally__cands(struct name_tally *t, size_t *n); /* NULL: no memory */
void name_tally__free(struct name_tally **t);			      /* accepts NULL */

/*
 * The next item of a comma-separated list of names at *p: its length,
 * the commas inside brackets ("f<int, long>", "g(int, int)") kept in it.
 */
size_t names_item(const char *p);

#endif /* EBS_REPORT_NAMES_H */
