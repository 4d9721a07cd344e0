// SPDX-License-Identifier: MIT
/*
 * diff.c - ebs diff: did a change move the profile?  Each file's samples
 * are counted into rows as ebs report counts them (report_collect: the
 * same symbolization, inlining and aggregation), the rows of the two files
 * matched by what the table shows of them (function and DSO, source line
 * and DSO, or DSO), and each row's two shares compared (util/stats.h): a
 * pooled two-proportion z-test, Holm-corrected over every row compared,
 * and Newcombe's 95% interval of the difference.  docs/ebs-diff.1 states
 * the statistics and why Holm.
 *
 * The files are read one after the other, and their rows kept as text, so
 * that one session (symbolizer, mappings, the file) is held at a time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/facts.h"
#include "report/names.h"
#include "report/present.h"
#include "report/table.h"
#include "util/stats.h"

enum { BASE, NEW, SIDES };

static const char *const side_name[SIDES] = {"base", "new"};

/* What the header says of one file. */
struct side {
	const char *path;
	char *event; /* the event used; NULL: the file has none */
	bool freq;
	u64 hz, period;
	u64 samples, lost;
};

/*
 * One row of both files.  key: the texts that identify it, one after the
 * other, each with its NUL: the shown columns' but a source line's
 * function, which its samples decide (report's by_line rows: "f (inlined
 * into g, h)").  cell[]: the shown columns' texts, of the first file that
 * has the row.  k[]: its samples in each file.
 */
struct drow {
	UT_hash_handle hh;
	u64 k[SIDES];
	struct ebs_two_prop t;
	double p_adj;
	bool sig;
	char *cell[KEY_MAX];
	char key[];
};

struct diff {
	const struct diff_opts *o;
	struct side side[SIDES];
	enum report_key cols[KEY_MAX]; /* the shown columns, in order (report's plan) */
	unsigned int nc;
	struct drow *rows;
	size_t m;    /* rows compared (tested); 0 when a file has no samples */
	size_t nsig; /* ...whose change is significant */
};

/* Add count samples of side s to the row of r's row. */
static int take_row(struct diff *d, int s, const struct report *r, const struct row *row, u64 count)
{
	char text[KEY_MAX][CELL_MAX], key[sizeof(text)];
	size_t len = 0, l;
	struct drow *dr;
	unsigned int i;

	for (i = 0; i < r->nr_cols; i++) {
		table__cell_text(r, row, r->cols[i], text[i], sizeof(text[i]));
		if (r->cols[i] == KEY_FUNC && r->by_line && (row->key.line || row->key.file))
			continue;
		l = strlen(text[i]) + 1;
		memcpy(key + len, text[i], l);
		len += l;
	}
	HASH_FIND(hh, d->rows, key, len, dr);
	if (!dr) {
		dr = calloc(1, sizeof(*dr) + len);
		if (!dr)
			return -ENOMEM;
		memcpy(dr->key, key, len);
		for (i = 0; i < r->nr_cols; i++)
			if (!(dr->cell[i] = strdup(text[i])))
				goto fail;
		HASH_ADD(hh, d->rows, key[0], len, dr);
		if (!dr->hh.tbl)
			goto fail;
	}
	dr->k[s] += count;
	return 0;

fail:
	for (i = 0; i < r->nr_cols; i++)
		free(dr->cell[i]);
	free(dr);
	return -ENOMEM;
}

/* Count side s's file into d's rows, and keep what its header says. */
static int take_side(struct diff *d, int s, struct ebs_error *err)
{
	struct report_opts ro = {0};
	struct side *sd = &d->side[s];
	struct row *row, *tmp;
	struct report r;
	struct facts fa;
	int ev, e;

	ro.view = d->o->view;
	ro.view.input = sd->path;
	ro.view.inputs = NULL; /* diff's two are base and new */
	ro.view.ninputs = 0;
	ro.keys[0] = d->o->key;
	ro.nr_keys = 1;
	e = report_collect(&r, &ro, err);
	if (e)
		goto out;
	d->nc = r.nr_cols;
	memcpy(d->cols, r.cols, sizeof(d->cols));
	if (!session__nr_events(&r.rs))
		goto out;		       /* no event, no samples */
	ev = r.rs.event >= 0 ? r.rs.event : 0; /* --event's, else the file's first */
	facts_of(&fa, &r.rs, &ro.view.filter, ev, r.total[ev], r.period_sum[ev]);
	sd->event = strdup(fa.info->used);
	if (!sd->event) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	sd->freq = fa.info->rec->flags & EBS_EVF_FREQ;
	sd->hz = fa.info->rec->sample_freq;
	sd->period = fa.info->rec->sample_period;
	sd->samples = fa.samples;
	sd->lost = fa.lost;
	HASH_ITER(hh, r.rows, row, tmp) {
		if (!row__count(row, ev))
			continue;
		e = take_row(d, s, &r, row, row__count(row, ev));
		if (e) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	report_release(&r);
	return e;
}

/* Every row's test, then Holm's correction over them all. */
static int test_rows(struct diff *d)
{
	u64 n1 = d->side[BASE].samples, n2 = d->side[NEW].samples;
	struct drow *dr, *tmp;
	double *p, *adj;
	size_t i = 0;
	int e = -ENOMEM;

	if (!n1 || !n2)
		return 0; /* nothing to compare */
	d->m = HASH_COUNT(d->rows);
	p = malloc((d->m + 1) * sizeof(*p));
	adj = malloc((d->m + 1) * sizeof(*adj));
	if (!p || !adj)
		goto out;
	HASH_ITER(hh, d->rows, dr, tmp) {
		ebs_two_prop(dr->k[BASE], n1, dr->k[NEW], n2, 0.95, &dr->t);
		p[i++] = dr->t.p;
	}
	e = ebs_holm(p, d->m, adj);
	if (e)
		goto out;
	i = 0;
	HASH_ITER(hh, d->rows, dr, tmp) {
		dr->p_adj = adj[i++];
		dr->sig = dr->p_adj <= d->o->alpha;
		d->nsig += dr->sig;
	}
out:
	free(p);
	free(adj);
	return e;
}

/* The cells' texts, in column order. */
static int cells_cmp(const struct drow *a, const struct drow *b, unsigned int nc)
{
	unsigned int i;
	int c;

	for (i = 0; i < nc; i++) {
		c = strcmp(a->cell[i], b->cell[i]);
		if (c)
			return c;
	}
	return 0;
}

/*
 * Significant changes first, each part by the size of the change, then by
 * the larger of the two shares, then by name.
 */
static int drow_cmp(const void *pa, const void *pb, void *arg)
{
	const struct drow *a = *(const struct drow *const *)pa,
			  *b = *(const struct drow *const *)pb;
	const struct diff *d = arg;
	double da = fabs(a->t.diff), db = fabs(b->t.diff);
	double ma = fmax(a->t.p1, a->t.p2), mb = fmax(b->t.p1, b->t.p2);

	if (a->sig != b->sig)
		return a->sig ? -1 : 1;
	if (da != db)
		return da > db ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return cells_cmp(a, b, d->nc);
}

/* Is the row shown (--significant, --min-percent)? */
static bool shown(const struct diff *d, const struct drow *dr)
{
	double mp = d->o->view.min_percent;

	if (d->o->significant && !dr->sig)
		return false;
	return !(100 * dr->t.p1 < mp && 100 * dr->t.p2 < mp);
}

/* The rows shown, sorted; *n their count, *more the rows --top left out.  NULL: no memory. */
static struct drow **sorted(struct diff *d, size_t *n, size_t *more)
{
	struct drow *dr, *tmp, **v = malloc((HASH_COUNT(d->rows) + 1) * sizeof(*v));
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, d->rows, dr, tmp)
		if (shown(d, dr))
			v[i++] = dr;
	qsort_r(v, i, sizeof(*v), drow_cmp, d);
	*more = d->o->view.top && d->o->view.top < i ? i - d->o->view.top : 0;
	*n = i - *more;
	return v;
}

static void sampling_words(const struct side *sd, char *buf, size_t len)
{
	if (sd->freq)
		snprintf(buf, len, "frequency %llu Hz", (unsigned long long)sd->hz);
	else
		snprintf(buf, len, "one sample after every %llu events",
			 (unsigned long long)sd->period);
}

/* The column of a row's name: the one its --sort key shows. */
static unsigned int name_col(const struct diff *d)
{
	unsigned int i;

	for (i = 0; i < d->nc && d->cols[i] != d->o->key; i++)
		;
	return i < d->nc ? i : 0;
}

/* The text of column k of dr, NULL when it is not shown. */
static const char *cell_of(const struct diff *d, const struct drow *dr, enum report_key k)
{
	unsigned int i;

	for (i = 0; i < d->nc; i++)
		if (d->cols[i] == k)
			return dr->cell[i];
	return NULL;
}

/* p as the text table gives it: 4 decimals, "<0.0001" below. */
static void p_words(double p, char *buf, size_t len)
{
	if (p < 0.0001)
		snprintf(buf, len, "<0.0001");
	else
		snprintf(buf, len, "%.4f", p);
}

/* The length of an event's name without a modifier of precise levels only (":ppp"). */
static size_t event_len(const char *e)
{
	const char *c = strrchr(e, ':');

	return c && c[1] && strspn(c + 1, "p") == strlen(c + 1) ? (size_t)(c - e) : strlen(e);
}

/*
 * Do the two recordings name different events?  perf names its default
 * cpu-clock "cpu-clock:ppp": precision asked of a software event, which
 * has no skid; a precise level does not make another event.
 */
static bool events_differ(const char *a, const char *b)
{
	size_t la = event_len(a), lb = event_len(b);

	return la != lb || memcmp(a, b, la);
}

static void print_header(const struct diff *d, FILE *f)
{
	const struct side *b = &d->side[BASE], *n = &d->side[NEW];
	char wb[64], wn[64];
	int s;

	for (s = 0; s < SIDES; s++) {
		const struct side *sd = &d->side[s];

		sampling_words(sd, wb, sizeof(wb));
		fprintf(f, "# %s:%s ", side_name[s], s == BASE ? "" : " ");
		ebs_fputs_clean(sd->path, f); /* the command line's, as typed (or globbed) */
		fprintf(f, ": %s, %s: %llu samples", sd->event ? sd->event : "no event", wb,
			(unsigned long long)sd->samples);
		if (sd->lost)
			fprintf(f, " (%llu lost)", (unsigned long long)sd->lost);
		fputc('\n', f);
	}
	if (b->event && n->event && events_differ(b->event, n->event))
		fprintf(f, "# events differ: base %s, new %s; the shares are still comparable\n",
			b->event, n->event);
	sampling_words(b, wb, sizeof(wb));
	sampling_words(n, wn, sizeof(wn));
	if (strcmp(wb, wn))
		fprintf(f, "# sampling differs: base %s, new %s; the shares are still comparable\n",
			wb, wn);
	if (!d->m)
		return;
	fprintf(f,
		"# test: pooled two-proportion z-test per row, Holm-corrected over the %zu rows: "
		"%zu significant (*) at family-wise alpha %g\n",
		d->m, d->nsig, d->o->alpha);
	fprintf(f, "# interval: Newcombe's 95%% interval of the difference, in points "
		   "(not corrected)\n");
}

/* The text columns of numbers: base, new, diff, interval, p and its mark. */
#define NUM_WIDTH 60

static void print_text(const struct diff *d, struct drow **v, size_t n, size_t more)
{
	FILE *f = d->o->view.out;
	bool color = present_color_on(f, d->o->view.color);
	int width = present_width(f, d->o->view.width), w[KEY_MAX], min_w[KEY_MAX];
	int soft_w[KEY_MAX] = {0};
	char cut[CELL_MAX], p[16], head[1024], **cuts[KEY_MAX] = {NULL};
	const char **full;
	unsigned int i;
	size_t k, hn;

	print_header(d, f);
	if (!d->m) {
		fputs("# no samples in ", f);
		ebs_fputs_clean(d->side[BASE].samples ? d->side[NEW].path : d->side[BASE].path, f);
		fputs(": nothing to compare\n\n", f);
		return;
	}
	full = calloc(n + 1, sizeof(*full));
	for (i = 0; i < d->nc; i++) {
		w[i] = (int)strlen(report_columns[d->cols[i]].title);
		min_w[i] = 12;
		for (k = 0; k < n; k++) {
			int m = table__min_width(&report_columns[d->cols[i]], v[k]->cell[i]);

			if ((int)strlen(v[k]->cell[i]) > w[i])
				w[i] = (int)strlen(v[k]->cell[i]);
			if (m > min_w[i])
				min_w[i] = m;
			m = report_columns[d->cols[i]].name_first && width
				    ? (int)names_floor(v[k]->cell[i])
				    : 0;
			if (m > soft_w[i])
				soft_w[i] = m;
		}
	}
	table__fit(w, d->cols, min_w, soft_w, (int)d->nc, NUM_WIDTH, width);
	/* function names: each its own name kept, no two alike (names.c) */
	for (i = 0; width && full && i < d->nc; i++) {
		if (!report_columns[d->cols[i]].name_first)
			continue;
		cuts[i] = calloc(n + 1, sizeof(*cuts[i]));
		for (k = 0; cuts[i] && k < n; k++)
			full[k] = v[k]->cell[i];
		if (cuts[i] && names_fit_column(cuts[i], full, n, (size_t)w[i])) {
			free(cuts[i]);
			cuts[i] = NULL;
		}
	}
	hn = (size_t)snprintf(head, sizeof(head), "  %8s  %8s  %7s  %-18s  %-9s", "base", "new",
			      "diff", "95% interval", "p (Holm)");
	for (i = 0; i < d->nc && hn < sizeof(head); i++)
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %-*s",
				       i + 1 < d->nc ? w[i] : 0, report_columns[d->cols[i]].title);
	head[0] = '#';
	fprintf(f, "#\n%s\n", head);
	for (k = 0; k < n; k++) {
		const struct drow *dr = v[k];

		p_words(dr->p_adj, p, sizeof(p));
		fprintf(f, "%s  %7.2f%%  %7.2f%%  %+7.2f  [%7.2f, %7.2f]  %7s %c",
			dr->sig ? "" : present_dim_color(color), 100 * dr->t.p1, 100 * dr->t.p2,
			100 * dr->t.diff, 100 * dr->t.lo, 100 * dr->t.hi, p, dr->sig ? '*' : ' ');
		for (i = 0; i < d->nc; i++) {
			if (cuts[i])
				snprintf(cut, sizeof(cut), "%s", cuts[i][k]);
			else
				table__elide_cell(&report_columns[d->cols[i]], cut, sizeof(cut),
						  dr->cell[i], (size_t)w[i]);
			fprintf(f, "  %-*s", i + 1 < d->nc ? w[i] : 0, cut);
		}
		fprintf(f, "%s\n", dr->sig ? "" : present_color_end(color));
	}
	if (!n && d->o->significant)
		fprintf(f, "  (no significant change at family-wise alpha %g)\n", d->o->alpha);
	if (more)
		fprintf(f, "  (%zu more row%s; --top 0 shows all)\n", more, more == 1 ? "" : "s");
	fprintf(f, "\n");
	for (i = 0; i < d->nc; i++) {
		for (k = 0; cuts[i] && k < n; k++)
			free(cuts[i][k]);
		free(cuts[i]);
	}
	free(full);
}

static void json_side(const struct side *sd, struct ebs_json *j)
{
	ebs_json__obj(j);
	ebs_json__key_str(j, "file", sd->path);
	ebs_json__key_str(j, "event", sd->event);
	if (sd->freq) {
		ebs_json__key_u64(j, "freq", sd->hz);
		ebs_json__key_null(j, "period");
	} else {
		ebs_json__key_null(j, "freq");
		ebs_json__key_u64(j, "period", sd->period);
	}
	ebs_json__key_u64(j, "samples", sd->samples);
	ebs_json__key_u64(j, "lost", sd->lost);
	ebs_json__obj_end(j);
}

static void print_json(const struct diff *d, struct drow **v, size_t n)
{
	unsigned int nc = name_col(d);
	struct ebs_json j;
	size_t k;
	int s;

	ebs_json__begin(&j, d->o->view.out);
	ebs_json__obj(&j);
	for (s = 0; s < SIDES; s++) {
		ebs_json__key(&j, side_name[s]);
		json_side(&d->side[s], &j);
	}
	ebs_json__key_str(&j, "sort", report_columns[d->o->key].name);
	ebs_json__key_num(&j, "alpha", "%g", d->o->alpha);
	ebs_json__key_str(&j, "test", "two-proportion z-test, pooled");
	ebs_json__key_str(&j, "correction", "holm");
	ebs_json__key_str(&j, "interval", "newcombe");
	ebs_json__key_u64(&j, "rows_compared", d->m);
	ebs_json__key(&j, "rows");
	ebs_json__arr(&j);
	for (k = 0; k < n && d->m; k++) {
		const struct drow *dr = v[k];

		ebs_json__obj(&j);
		ebs_json__key_str(&j, "name", dr->cell[nc]);
		if (d->o->key == KEY_LINE)
			ebs_json__key_str(&j, "function", cell_of(d, dr, KEY_FUNC));
		ebs_json__key_str(&j, "dso", cell_of(d, dr, KEY_DSO));
		ebs_json__key_u64(&j, "base_samples", dr->k[BASE]);
		ebs_json__key_u64(&j, "new_samples", dr->k[NEW]);
		ebs_json__key_num(&j, "base_share", "%.4f", 100 * dr->t.p1);
		ebs_json__key_num(&j, "new_share", "%.4f", 100 * dr->t.p2);
		ebs_json__key_num(&j, "diff_points", "%.4f", 100 * dr->t.diff);
		ebs_json__key(&j, "ci95");
		ebs_json__arr(&j);
		ebs_json__num(&j, "%.4f", 100 * dr->t.lo);
		ebs_json__num(&j, "%.4f", 100 * dr->t.hi);
		ebs_json__arr_end(&j);
		ebs_json__key_num(&j, "p", "%.9g", dr->t.p);
		ebs_json__key_num(&j, "p_adjusted", "%.9g", dr->p_adj);
		ebs_json__key_bool(&j, "significant", dr->sig);
		ebs_json__obj_end(&j);
	}
	ebs_json__arr_end(&j);
	ebs_json__obj_end(&j);
	ebs_json__end(&j);
}

int ebs_diff(const struct diff_opts *o, struct ebs_error *err)
{
	struct diff d;
	struct drow *dr, *tmp, **v = NULL;
	size_t n = 0, more = 0;
	unsigned int i;
	int s, e = 0;

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.side[BASE].path = o->base;
	d.side[NEW].path = o->new_;
	for (s = 0; s < SIDES && !e; s++)
		e = take_side(&d, s, err);
	if (!e && test_rows(&d))
		e = ebs_error__set(err, ENOMEM, "out of memory");
	if (!e && !(v = sorted(&d, &n, &more)))
		e = ebs_error__set(err, ENOMEM, "out of memory");
	if (!e && o->json)
		print_json(&d, v, n);
	else if (!e)
		print_text(&d, v, n, more);
	if (!e)
		fflush(o->view.out);
	free(v);
	HASH_ITER(hh, d.rows, dr, tmp) {
		HASH_DEL(d.rows, dr);
		for (i = 0; i < d.nc; i++)
			free(dr->cell[i]);
		free(dr);
	}
	for (s = 0; s < SIDES; s++)
		free(d.side[s].event);
	return e;
}
