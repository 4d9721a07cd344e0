// SPDX-License-Identifier: MIT
/*
 * focus.c - how many of one event's samples fall in an area of interest
 * (functions or DSOs): the share ebs calibrate's --focus solves for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/session.h"

struct focus {
	struct name_query *q; /* the list's items, functions resolved (names.h) */
	size_t n;
	u64 matched, total;
};

/* Is the sample in one of the list's functions (compiled or inlined) or DSOs? */
static bool in_focus(const struct focus *f, const struct sym_result *res)
{
	size_t k;

	for (k = 0; k < f->n; k++) {
		const struct name_query *q = &f->q[k];
		unsigned int i;

		if (name_query__match(q, res->function) ||
		    (res->dso && strlen(res->dso) == q->len &&
		     !strncmp(q->want, res->dso, q->len)) ||
		    (res->dso_path && strlen(res->dso_path) == q->len &&
		     !strncmp(q->want, res->dso_path, q->len)))
			return true;
		for (i = 0; i < res->nr_frames; i++)
			if (name_query__match(q, res->frames[i].function))
				return true;
	}
	return false;
}

static int count(void *ctx, const struct resolved *r)
{
	struct focus *f = ctx;

	f->total++;
	f->matched += in_focus(f, &r->res);
	return 0;
}

int ebs_report_focus(const char *input, unsigned int event, const char *list,
		     const char *const *debug_dirs, u64 *matched, u64 *total, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct focus f = {0};
	struct session rs;
	const char *p;
	size_t items = 0, k;
	int e;

	so.debug_dirs = debug_dirs;
	so.demangle = true;
	e = session__open(&rs, input, false, &so, NULL, err); /* calibrate's own run */
	if (e)
		return e;
	rs.event = (int)event;
	/* each item a function as report's --func names one (a name no function has: a DSO) */
	for (p = list; *p; p += names_item(p) + (p[names_item(p)] == ','))
		items++;
	f.q = calloc(items + 1, sizeof(*f.q));
	e = f.q ? 0 : ebs_error__set(err, ENOMEM, "out of memory");
	for (p = list; !e && *p; p += names_item(p) + (p[names_item(p)] == ',')) {
		/* no parts of names: "sqlite3" is a DSO, not every sqlite3* function */
		f.q[f.n].max_tier = NAME_SUFFIX;
		e = session__resolve(&rs, p, names_item(p), &f.q[f.n++], NULL, err);
	}
	if (!e)
		e = session__each(&rs, count, &f, err);
	for (k = 0; k < f.n; k++)
		name_query__free(&f.q[k]);
	free(f.q);
	session__close(&rs);
	*matched = f.matched;
	*total = f.total;
	return e < 0 ? e : 0;
}
