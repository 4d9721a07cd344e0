// SPDX-License-Identifier: MIT
/*
 * print-text.c - an ebs report table as text: the header's facts as '#'
 * lines, then one row per line, the name columns narrowed to fit the
 * terminal (names elided in the middle; numbers never are).
 */
#include <string.h>

#include "report/session/callchain.h"
#include "report/facts.h"
#include "report/names.h"
#include "report/present.h"
#include "report/table.h"

/* Is field f shown?  ci_dropped: the interval was left out to fit the width. */
static bool shows(const struct report *r, enum report_field f, bool ci_dropped)
{
	if (f == FIELD_CI && (r->o->no_ci || ci_dropped))
		return false;
	return !r->o->fields || (r->o->fields & (1u << f));
}

/*
 * How N was chosen, when ebs calibrate chose it: the rate asked, the rate
 * this recording achieved (its samples per second of the counters' running
 * time: per CPU-second of the target), the overhead measured in calibration.
 */
static void calibration_words(const struct facts *fa, FILE *f)
{
	if (fa->cal) {
		fprintf(f, " (calibrated: %u/s asked", fa->cal->rate_hz);
		if (fa->has_achieved)
			fprintf(f, ", %.0f/s achieved", fa->achieved_hz);
		fprintf(f, ", %.1f%% overhead)", (double)fa->cal->overhead_ppm / 1e4);
	}
	fputc('\n', f);
}

static void print_header(const struct report *r, const struct facts *fa, FILE *f)
{
	unsigned int i, nev = session__nr_events(&r->rs);
	char inputs[2048];

	session__inputs_line(&r->rs, inputs, sizeof(inputs));
	if (inputs[0])
		fprintf(f, "# %s\n", inputs);
	if (fa->ev < 0) {
		fprintf(f, "# event: all (");
		for (i = 0; i < nev; i++)
			fprintf(f, "%s%s", i ? ", " : "", session__event(&r->rs, i)->used);
		fprintf(f, "; one table: percent of the samples of all events)\n");
	} else {
		const struct ebs_event_info *info = fa->info;
		const struct ebs_rec_event *e = info->rec;
		const struct count_total *c = &fa->counted;

		fprintf(f, "# event: %s", info->used);
		if (info->why[0])
			fprintf(f, " (asked for %s: %s)", info->asked, info->why);
		fprintf(f, "\n");
		if (e->flags & EBS_EVF_FREQ)
			fprintf(f, "# sampling: frequency %llu Hz per CPU\n",
				(unsigned long long)e->sample_freq);
		else
			fprintf(f, "# sampling: one sample after every %llu events",
				(unsigned long long)e->sample_period);
		if (!(e->flags & EBS_EVF_FREQ))
			calibration_words(fa, f);
		if (fa->samples) {
			fprintf(f, "# events: about %llu (%s)%s%s\n",
				(unsigned long long)fa->events,
				e->flags & EBS_EVF_FREQ ? "the sum of the samples' periods"
							: "samples x the sample-after value",
				fa->why[0] ? "; approximate: " : "", fa->why);
		}
		/* the count is of everything: beside a filtered table it would mislead */
		if (c->value && !fa->filtered && c->multiplexed)
			fprintf(f,
				"# counted: about %.0f (%llu while the counters ran, %.1f%% of the "
				"time, scaled to all of it)\n",
				c->scaled, (unsigned long long)c->value,
				100.0 * (double)c->running / (double)c->enabled);
		else if (c->value && !fa->filtered)
			fprintf(f, "# counted: %llu (the counters' own total)\n",
				(unsigned long long)c->value);
	}
	fprintf(f, "# samples: %llu, lost: %llu%s, throttled: %llu\n",
		(unsigned long long)fa->samples, (unsigned long long)fa->lost,
		fa->lost_shared ? " (of all events: they share the rings)" : "",
		(unsigned long long)fa->throttled);
	if (fa->only[0])
		fprintf(f, "# only: %s\n", fa->only);
	/* only where the recording noted processes elsewhere (PROCNS records) */
	if (session__ns_procs(&r->rs)) {
		u64 ns = fa->ev < 0 ? r->ns_total_all : r->ns_total[fa->ev];

		fprintf(f,
			"# other mount namespaces: %llu of the samples (%.1f%%) from %u process%s "
			"in another mount namespace or root than ebs record (a container, a "
			"chroot)\n",
			(unsigned long long)ns,
			fa->samples ? 100.0 * (double)ns / (double)fa->samples : 0.0,
			session__ns_procs(&r->rs), session__ns_procs(&r->rs) == 1 ? "" : "es");
	}
	if (r->o->children) { /* --stats alone builds chains for its counts, not this table */
		const char *mode = session__call_graph(&r->rs);
		const struct chain_stats *cs = chainer__stats(r->chains);

		if (!mode && r->o->view.no_inline)
			fprintf(f,
				"# call graph: none recorded (ebs record -g): each sample counts "
				"for its own function only\n");
		else if (!mode)
			fprintf(f,
				"# call graph: none recorded (ebs record -g): each sample counts "
				"in its own function and in those it is inlined into\n");
		else
			fprintf(f,
				"# call graph: %s; the samples column counts each sample once in every "
				"function of its chain, self in its own\n",
				mode);
		if (cs->truncated || cs->broken)
			fprintf(f,
				"# chains: %llu of %llu cut short by the stack copy, %llu stopped at "
				"code without CFI\n",
				(unsigned long long)cs->truncated, (unsigned long long)cs->samples,
				(unsigned long long)cs->broken);
		if (cs->fp_recovered)
			fprintf(f,
				"# chains: the caller of a frameless function put back (from its CFI) "
				"in %llu of %llu\n",
				(unsigned long long)cs->fp_recovered,
				(unsigned long long)cs->samples);
		chain_stats__print_hint(cs, mode, f);
	}
}

/*
 * First the function names, down to what they need to show their own
 * names (soft_w); then in the columns' narrow order: the DSO, then the
 * command, then the widest of the others.
 */
bool table__fit(int *w, const enum report_key *cols, const int *min_w, const int *soft_w, int nc,
		int fixed, int width)
{
	for (;;) {
		int pick = -1, sum = fixed, i;
		unsigned int order;

		for (i = 0; i < nc; i++)
			sum += 2 + w[i];
		if (!width || sum <= width)
			return true;
		for (i = 0; soft_w && i < nc && pick < 0; i++)
			if (report_columns[cols[i]].name_first && w[i] > soft_w[i] &&
			    w[i] > min_w[i])
				pick = i;
		for (order = 1; order < 3 && pick < 0; order++)
			for (i = 0; i < nc && pick < 0; i++)
				if (report_columns[cols[i]].narrow == order && w[i] > min_w[i])
					pick = i;
		if (pick < 0)
			for (i = 0; i < nc; i++)
				if (report_columns[cols[i]].narrow && w[i] > min_w[i] &&
				    (pick < 0 || w[i] > w[pick]))
					pick = i;
		if (pick < 0)
			return false; /* nothing left to narrow */
		w[pick]--;
	}
}

int table__min_width(const struct column *col, const char *text)
{
	const char *b = col->file_name ? strrchr(text, '/') : NULL;
	int want = b ? (int)strlen(b) + 3 : 0;

	/* a source line keeps its file name and line, ".../file.c:123", up to 30 */
	return want > 12 ? (want < 30 ? want : 30) : 12;
}

/*
 * A cell cut to width: a function's name as names_fit shortens it (its
 * own name kept: templates, parameters, the inlined-into part and the
 * scope shortened first); other names are elided in the middle (a path
 * keeps its file name).
 */
void table__elide_cell(const struct column *col, char *out, size_t size, const char *s,
		       size_t width)
{
	if (col->name_first)
		names_fit(out, size, s, width, NULL);
	else
		present_elide(out, size, s, width);
}

/*
 * The name columns' cells of the rows shown, cut to their widths: each
 * function's own name kept, and two functions never alike (names.c).
 * cut[i * nc + c]; NULL where the column is not a function's (or no
 * memory: table__elide_cell then cuts each alone).
 */
static char **cut_names(const struct report *r, int ev, struct row **rows, size_t limit,
			u64 samples, const enum report_key *cols, const int *w, int nc)
{
	char **cut = calloc(limit * (size_t)nc + 1, sizeof(*cut)), **one = NULL;
	char **full = calloc(limit + 1, sizeof(*full));
	size_t k, m;
	int i;

	for (i = 0; cut && full && i < nc; i++) {
		if (!report_columns[cols[i]].name_first)
			continue;
		for (k = 0, m = 0; k < limit; k++) {
			if (present_percent(row__count(rows[k], ev), samples) <
			    r->o->view.min_percent)
				break;
			full[m] =
				table__cell_dup(r, rows[k], cols[i]); /* whole: its own name last */
			if (!full[m])
				break;
			m++;
		}
		one = calloc(m + 1, sizeof(*one));
		if (one && !names_fit_column(one, (const char *const *)full, m, (size_t)w[i]))
			for (k = 0; k < m; k++)
				cut[k * (size_t)nc + (size_t)i] = one[k];
		free(one);
		for (k = 0; k < m; k++)
			free(full[k]);
	}
	free(full);
	return cut;
}

void table__print_text(const struct report *r, int ev, struct row **rows, size_t n)
{
	FILE *f = r->o->view.out;
	struct facts fa;
	size_t k, shown = 0, limit = r->o->view.top && r->o->view.top < n ? r->o->view.top : n;
	int w[KEY_MAX] = {0}, natural[KEY_MAX], min_w[KEY_MAX], soft_w[KEY_MAX] = {0}, fixed, i, nc;
	enum report_key cols[KEY_MAX];
	char buf[CELL_MAX], one[CELL_MAX], head[1024] = " ", **cut;
	bool ci_dropped = false;
	size_t hn;

	facts_of(&fa, &r->rs, &r->o->view.filter, ev, ev < 0 ? r->total_all : r->total[ev],
		 ev < 0 ? 0 : r->period_sum[ev]);
	print_header(r, &fa, f);
	if (!fa.samples) {
		char why[256];

		fprintf(f, "# no samples\n");
		if (session__empty_why(&r->rs, why, sizeof(why)))
			fprintf(f, "# (%s)\n", why);
		fputc('\n', f);
		return;
	}
	/* the key columns shown, in order */
	for (i = 0, nc = 0; i < (int)r->nr_cols; i++)
		if (shows(r, report_columns[r->cols[i]].field, false))
			cols[nc++] = r->cols[i];
	/* natural widths, then elide name columns to fit */
	for (i = 0; i < nc; i++) {
		w[i] = (int)strlen(report_columns[cols[i]].title);
		min_w[i] = 12;
	}
	for (k = 0; k < limit; k++)
		for (i = 0; i < nc; i++) {
			int m;

			if (present_percent(row__count(rows[k], ev), fa.samples) <
			    r->o->view.min_percent)
				break; /* not shown */
			table__cell_text(r, rows[k], cols[i], buf, sizeof(buf));
			if ((int)strlen(buf) > w[i])
				w[i] = (int)strlen(buf);
			m = table__min_width(&report_columns[cols[i]], buf);
			if (m > min_w[i])
				min_w[i] = m;
			/* what a function's name needs to show its own name */
			if (report_columns[cols[i]].name_first && r->width) {
				char *whole = table__cell_dup(r, rows[k], cols[i]);

				m = (int)names_floor(whole ? whole : buf);
				free(whole);
				if (m > soft_w[i])
					soft_w[i] = m;
			}
		}
	memcpy(natural, w, sizeof(w));
	fixed = (r->o->children ? 9 : 0) + (shows(r, FIELD_SAMPLES, false) ? 10 : 0) +
		(shows(r, FIELD_PERCENT, false) ? 9 : 0) + (shows(r, FIELD_CI, false) ? 16 : 0);
	if (!table__fit(w, cols, min_w, soft_w, nc, fixed, r->width) && shows(r, FIELD_CI, false) &&
	    !r->o->fields) {
		/* the names matter more than the interval on a narrow terminal: say so */
		ci_dropped = true;
		memcpy(w, natural, sizeof(w));
		table__fit(w, cols, min_w, soft_w, nc, fixed - 16, r->width);
		fprintf(f,
			"# (no 95%% interval column: %d columns are too few for it; --no-ci, "
			"--fields or --width choose)\n",
			r->width);
	}
	/* the titles as wide as the fields below them, a '#' for the first space */
	hn = 0;
	if (shows(r, FIELD_SAMPLES, ci_dropped))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %8s", "samples");
	if (shows(r, FIELD_PERCENT, ci_dropped) && hn < sizeof(head))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, " %8s", "percent");
	if (shows(r, FIELD_CI, ci_dropped) && hn < sizeof(head))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %-14s", "95% interval");
	if (r->o->children && hn < sizeof(head))
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, " %8s", "self");
	for (i = 0; i < nc && hn < sizeof(head); i++)
		hn += (size_t)snprintf(head + hn, sizeof(head) - hn, "  %-*s",
				       i + 1 < nc ? w[i] : 0, report_columns[cols[i]].title);
	head[0] = '#';
	fprintf(f, "#\n%s\n", head);
	cut = r->width ? cut_names(r, ev, rows, limit, fa.samples, cols, w, nc) : NULL;
	for (k = 0; k < limit; k++) {
		struct row__share sh;

		if (!row__share(r, rows[k], ev, fa.samples, &sh))
			continue;
		if (shows(r, FIELD_SAMPLES, ci_dropped))
			fprintf(f, "  %8llu", (unsigned long long)sh.count);
		if (shows(r, FIELD_PERCENT, ci_dropped))
			fprintf(f, " %s%7.2f%%%s", present_heat_color(r->color, sh.percent),
				sh.percent, present_color_end(r->color));
		if (shows(r, FIELD_CI, ci_dropped))
			fprintf(f, "  [%5.1f, %5.1f]", sh.lo, sh.hi);
		if (r->o->children)
			fprintf(f, " %7.2f%%", present_percent(row__self(rows[k], ev), fa.samples));
		for (i = 0; i < nc; i++) {
			const char *text = cut ? cut[k * (size_t)nc + (size_t)i] : NULL;

			if (!text) {
				table__cell_text(r, rows[k], cols[i], buf, sizeof(buf));
				table__elide_cell(&report_columns[cols[i]], one, sizeof(one), buf,
						  (size_t)w[i]);
				text = one;
			}
			fprintf(f, "  %-*s", i + 1 < nc ? w[i] : 0, text);
		}
		fprintf(f, "\n");
		shown++;
	}
	for (k = 0; cut && k < limit * (size_t)nc; k++)
		free(cut[k]);
	free(cut);
	if (shown < n) {
		/*
		 * What shows them all: --top 0 when no row is under --min-percent,
		 * --min-percent 0 when --top cut none, else both (a row under
		 * --min-percent past the limit is hidden by each option alone).
		 */
		bool by_top = limit < n, by_min = false;

		for (k = 0; k < n && !by_min; k++)
			by_min = present_percent(row__count(rows[k], ev), fa.samples) <
				 r->o->view.min_percent;

		fprintf(f, "  (%zu more row%s; %s shows all)\n", n - shown,
			n - shown == 1 ? "" : "s",
			by_top && by_min ? "--top 0 --min-percent 0"
			: by_min	 ? "--min-percent 0"
					 : "--top 0");
	}
	fprintf(f, "\n");
}
