// SPDX-License-Identifier: MIT
/*
 * run.c - ebs annotate from end to end: the model (annotate.c) built, then
 * printed as text (annotate-text.c) or as one HTML page (html.c).  The
 * only file that knows both the model and its printers.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "report/annotate/annotate.h"
#include "report/present.h"

/* A page of set's listings made private when it must (annotate.h). */
int ann_set__page_mode(const struct ann_set *set, struct ebs_out *html, ebs_warn_fn *warn,
		       void *warn_ctx, struct ebs_error *err)
{
	const char *src;
	struct stat st;
	int fd;

	if (!html->path || html->file.in_place || !(src = ann_set__private_source(set)))
		return 0;
	fd = fileno(html->f);
	if (fstat(fd, &st))
		return ebs_error__output(err, errno, html->path, "cannot make it private");
	if (!(st.st_mode & 077))
		return 0; /* the umask made it private already */
	if (fchmod(fd, 0600))
		return ebs_error__output(err, errno, html->path, "cannot make it private");
	ebs_warn(warn, warn_ctx, EBS_E_OK,
		 "%s: written 0600: it shows %s, which not everyone may read", html->path, src);
	return 0;
}

int ebs_annotate(const struct annotate_opts *o, struct ebs_error *err)
{
	struct ann_set set;
	struct ebs_out html = {0};
	int e;

	e = ann_set__open(&set, o, err);
	/* the page's file opened (aside) before the work, so that it fails first */
	if (!e && o->html)
		e = ebs_out_open(&html, o->html, stdout, err);
	if (!e)
		e = ann_set__build(&set, err);
	if (e)
		goto out;
	if (o->html) {
		e = ann_set__page_mode(&set, &html, o->view.warn, o->view.warn_ctx, err);
		if (e)
			goto out;
		annotate_html(html.f, (const struct ann_func *const *)set.models, set.n,
			      o->view.input);
		e = ebs_out_close(&html, true, err);
		html.f = NULL;
	} else {
		annotate_text(o->view.out, present_color_on(o->view.out, o->view.color),
			      (const struct ann_func *const *)set.models, set.n,
			      o->target ? NULL : &set.rest);
	}
out:
	if (html.f) /* not written: removed, or the caller's stream left */
		ebs_out_close(&html, false, NULL);
	ann_set__free(&set);
	return e;
}
