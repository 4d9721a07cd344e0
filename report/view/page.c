// SPDX-License-Identifier: MIT
/*
 * page.c - ebs view's page: the template (assets/view.html, built into
 * ebs by assets.S) with assets/view.css and assets/view.js inlined where
 * it says, and the model's data (model.c) as
 * <script id="ebs-data" type="application/json">, its strings escaped so
 * that no recorded name can close the element.  Written as every page of
 * ebs is: under a temporary name beside the output, renamed whole, 0644
 * (0600 when it shows a source not everyone may read), never through
 * another user's link (util/output.c).
 */
#include <errno.h>
#include <string.h>

#include "report/annotate/annotate.h"
#include "report/view/view.h"

/* assets.S */
extern const char ebs_view_html[], ebs_view_html_end[];
extern const char ebs_view_css[], ebs_view_css_end[];
extern const char ebs_view_js[], ebs_view_js_end[];

/* The places in the template where the rest goes (docs/view.md). */
static const char *const markers[] = {"<!-- ebs:style -->", "<!-- ebs:data -->",
				      "<!-- ebs:script -->"};

static void put(FILE *f, const char *a, const char *b)
{
	fwrite(a, 1, (size_t)(b - a), f);
}

/* The first of the markers at or after p (before end): its index, *at where; -1 none. */
static int next_marker(const char *p, const char *end, const char **at)
{
	int best = -1;
	size_t k;

	*at = end;
	for (k = 0; k < sizeof(markers) / sizeof(markers[0]); k++) {
		const char *m = memmem(p, (size_t)(end - p), markers[k], strlen(markers[k]));

		if (m && m < *at) {
			*at = m;
			best = (int)k;
		}
	}
	return best;
}

static int write_page(struct view_model *vm, FILE *f)
{
	const char *p = ebs_view_html, *end = ebs_view_html_end, *at;
	int k, e = 0;

	while ((k = next_marker(p, end, &at)) >= 0) {
		put(f, p, at);
		p = at + strlen(markers[k]);
		switch (k) {
		case 0:
			fputs("<style>\n", f);
			put(f, ebs_view_css, ebs_view_css_end);
			fputs("</style>", f);
			break;
		case 1:
			fputs("<script id=\"ebs-data\" type=\"application/json\">", f);
			e = view_model__json(vm, f);
			fputs("</script>", f);
			break;
		case 2:
			fputs("<script>\n", f);
			put(f, ebs_view_js, ebs_view_js_end);
			fputs("</script>", f);
			break;
		}
	}
	put(f, p, end);
	return e;
}

int ebs_view(const struct view_page_opts *o, struct ebs_error *err)
{
	struct view_model vm = {0};
	struct ebs_out out = {0};
	const char *path = o->output ? o->output : "ebs.html";
	int e;

	/* the page's file opened (aside) before the work, so that it fails first */
	e = ebs_out_open(&out, path, stdout, err);
	if (!e)
		e = view_model__collect(&vm, &o->view, err);
	if (!e && vm.ann)
		e = ann_set__page_mode(vm.ann, &out, o->view.warn, o->view.warn_ctx, err);
	if (!e) {
		e = write_page(&vm, out.f);
		if (e)
			ebs_error__set(err, -e, "%s",
				       e == -ENOMEM ? "out of memory"
						    : "the page's data is not well-formed JSON");
		else {
			e = ebs_out_close(&out, true, err);
			out.f = NULL; /* closed either way */
		}
	}
	if (out.f) /* not written: removed, or the caller's stream left */
		ebs_out_close(&out, false, NULL);
	view_model__free(&vm);
	return e;
}
