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

/*
 * A page made to be shown (0644) must not show others a source they could
 * not read (another user's private file, under root's record -a and
 * annotate): when it shows one, it is written 0600, said in one line.
 * Standard output, a device or a FIFO given as the page is the caller's
 * business.  0, or -errno with err filled.
 */
static int page_mode(const struct annotate_opts *o, const struct ann_set *set, struct ebs_out *html,
		     struct ebs_error *err)
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
	if (o->view.warn)
		ebs_fprint_line(
			o->view.warn,
			"ebs %s: %s: written 0600: it shows %s, which not everyone may read",
			o->view.cmd ? o->view.cmd : "annotate", html->path, src);
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
		e = page_mode(o, &set, &html, err);
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
