// SPDX-License-Identifier: MIT
/*
 * focus.c - how many of one event's samples fall in an area of interest
 * (functions or DSOs): the share ebs calibrate's --focus solves for.
 */
#include <string.h>

#include "report/session.h"

struct focus {
	const char *list;
	u64 matched, total;
};

/* Is the sample in one of the list's functions (compiled or inlined) or DSOs? */
static bool in_focus(const char *list, const struct sym_result *res)
{
	const char *p = list;

	while (*p) {
		size_t len = rsession_name_len(p);
		unsigned int i;

		if (rsession_name_is(p, len, res->function) ||
		    (res->dso && strlen(res->dso) == len && !strncmp(p, res->dso, len)) ||
		    (res->dso_path && strlen(res->dso_path) == len &&
		     !strncmp(p, res->dso_path, len)))
			return true;
		for (i = 0; i < res->nr_frames; i++)
			if (rsession_name_is(p, len, res->frames[i].function))
				return true;
		p += len + (p[len] == ',');
	}
	return false;
}

static int count(void *ctx, const struct resolved *r)
{
	struct focus *f = ctx;

	f->total++;
	f->matched += in_focus(f->list, &r->res);
	return 0;
}

int ebs_report_focus(const char *input, unsigned int event, const char *list,
		     const char *const *debug_dirs, u64 *matched, u64 *total, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct focus f = {.list = list};
	struct rsession rs;
	int e;

	so.debug_dirs = debug_dirs;
	so.demangle = true;
	e = rsession__open(&rs, input, false, &so, NULL, err); /* calibrate's own run */
	if (e)
		return e;
	rs.event = (int)event;
	e = rsession__each(&rs, count, &f, err);
	rsession__close(&rs);
	*matched = f.matched;
	*total = f.total;
	return e < 0 ? e : 0;
}
