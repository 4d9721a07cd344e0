// SPDX-License-Identifier: MIT
/*
 * tally.c - FUNC resolved: the names the samples show, tallied in the
 * session's pass (annotate's one pass counts them while it collects), and
 * the query that picks one of them (session__resolve).
 */
#include <stdlib.h>
#include <string.h>

#include "report/present.h"
#include "report/session/session.h"

/*
 * The names' tally.  A result's names are a function of its number
 * (sym_result.id: equal ids, equal names), so the samples of a numbered
 * address are counted by number in the pass and their names tallied once
 * each after it (none of it with EBS_DEBUG_NO_MEMO): no name looked up
 * per sample.
 */
struct session_tally_id {
	u64 n;			/* samples of this number */
	struct sym_result copy; /* its first result: names and frames borrowed */
};

/* The names of a result (n samples): its function and those inlined at it, once each. */
static int tally_names_of(struct session_tally *ta, const struct sym_result *res, u64 n)
{
	unsigned int i, j;
	int e = 0;

	if (res->function)
		e = name_tally__add(&ta->t, res->function, n);
	for (i = 0; i < res->nr_frames && !e; i++) {
		const char *fn = res->frames[i].function;

		/* by text: the symbol table's name and DWARF's are different copies */
		for (j = 0; j < i && !session__same_name(res->frames[j].function, fn); j++)
			;
		if (fn && !session__same_name(fn, res->function) && j == i)
			e = name_tally__add(&ta->t, fn, n);
	}
	return e;
}

int session__tally(struct session_tally *ta, const struct resolved *r)
{
	const struct sym_result *res = &r->res;

	ta->samples++;
	if (!ta->memo || !res->id)
		return tally_names_of(ta, res, 1);
	if (res->id >= ta->nids) {
		size_t had = ta->nids;

		while (res->id >= ta->nids)
			if (ebs_grow((void **)&ta->ids, &ta->nids, ta->nids, sizeof(*ta->ids),
				     1024))
				return -ENOMEM;
		memset(ta->ids + had, 0, (ta->nids - had) * sizeof(*ta->ids));
	}
	if (!ta->ids[res->id].n++)
		ta->ids[res->id].copy = *res; /* the symbolizer's, until it is freed */
	return 0;
}

static int tally_one(void *ctx, const struct resolved *r)
{
	return session__tally(ctx, r);
}

/* After the pass: each number's names, with its samples.  0 or -ENOMEM. */
static int tally_ids(struct session_tally *ta)
{
	size_t i;
	int e = 0;

	for (i = 0; i < ta->nids && !e; i++)
		if (ta->ids[i].n)
			e = tally_names_of(ta, &ta->ids[i].copy, ta->ids[i].n);
	return e;
}

/* ta's names as candidates (*c, *n), ta freed.  0, or -ENOMEM with err filled. */
static int tally_cands(struct session_tally *ta, struct name_cand **c, size_t *n,
		       struct ebs_error *err)
{
	int e = 0;

	if (tally_ids(ta))
		e = ebs_error__set(err, ENOMEM, "out of memory");
	free(ta->ids);
	ta->ids = NULL;
	ta->nids = 0;
	*c = NULL;
	if (!e && !(*c = name_tally__cands(ta->t, n)))
		e = ebs_error__set(err, ENOMEM, "out of memory");
	name_tally__free(&ta->t);
	return e;
}

void session__tally_free(struct session_tally *ta)
{
	free(ta->ids);
	ta->ids = NULL;
	ta->nids = 0;
	name_tally__free(&ta->t);
}

/* The functions of the samples the filters let through (not --func's), by their samples. */
int session__tally_names(struct session *rs, struct name_cand **c, size_t *n, u64 *samples,
		       struct ebs_error *err)
{
	struct session_tally ta = {.memo = !rs->no_memo};
	int e;

	rs->tallying = true;
	e = session__each(rs, tally_one, &ta, err);
	rs->tallying = false;
	*c = NULL;
	if (e)
		session__tally_free(&ta);
	else
		e = tally_cands(&ta, c, n, err);
	*samples = ta.samples;
	return e < 0 ? e : 0;
}

int session__resolve_tally(struct session *rs, struct session_tally *ta, const char *want,
			   size_t len, struct name_query *q, FILE *list, struct ebs_error *err)
{
	enum name_tier max = q->max_tier;
	struct name_cand *c;
	size_t n;
	int e;

	memset(q, 0, sizeof(*q));
	q->want = want;
	q->len = len;
	q->max_tier = max;
	e = tally_cands(ta, &c, &n, err);
	if (!e)
		e = name_query__resolve(q, c, n, ta->samples, list,
					list ? present_width(list, 0) : 0, ebs_data__path(rs->d),
					err);
	free(c);
	return e;
}

int session__resolve(struct session *rs, const char *want, size_t len, struct name_query *q,
		     FILE *list, struct ebs_error *err)
{
	struct session_tally ta = {.memo = !rs->no_memo};
	int e;

	rs->tallying = true;
	e = session__each(rs, tally_one, &ta, err);
	rs->tallying = false;
	if (e) {
		session__tally_free(&ta);
		return e < 0 ? e : 0;
	}
	return session__resolve_tally(rs, &ta, want, len, q, list, err);
}
