// SPDX-License-Identifier: MIT
/*
 * report.c - aggregate samples by function, source line or DSO and print
 * the table.
 *
 * Two passes over the (mapped) file: the first builds the process/mapping
 * history, the second resolves each sample and counts it into a row keyed
 * by (function, dso), (file, line, function, dso) or dso.  Unresolved
 * addresses keep their own rows as "[unknown] DSO+0xOFFSET", and samples
 * without a source line a row of their function at "??": nothing is
 * dropped.  Per DSO, how many samples got a function and a line is kept
 * for --stats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "report/machine.h"
#include "report/report.h"

/*
 * What a row is keyed by.  The strings are the symbolizer's, which keeps
 * them until it is freed: one symbol (or one DWARF function, or one file)
 * is one pointer, so comparing pointers is exact and needs no strlen per
 * sample.  Two different functions of the same name (static ones in two
 * files) are two rows.  An address no symbol covers has function NULL and
 * its address.
 */
struct row_key {
	const char *function;	/* NULL: unknown, see addr; "" when sorting by dso */
	const char *dso;
	const char *file;	/* sorting by line: NULL when unknown */
	u64 addr;		/* function NULL: the address in the DSO (or the ip) */
	u32 line;
	u32 pad;
};

struct row {
	UT_hash_handle hh;
	struct row_key key;
	u64 samples[EBS_MAX_EVENTS];
	const char *function;	/* as shown: key.function, or text below */
	const char *dso;
	const char *file;	/* NULL unless sorting by line; "" when unknown */
	u32 line;
	char text[];		/* "[unknown] DSO+0xADDR" for an unknown function */
};

/* Per DSO: what symbolization found, for --stats. */
struct dso_stat {
	UT_hash_handle hh;
	u64 samples, with_function, with_line;
	const struct sym_dso_info *info;	/* NULL for the kernel */
	char name[];		/* the path as mapped */
};

struct report {
	const struct report_opts *opts;
	struct ebs_data *d;
	struct machine *m;
	struct symbolizer *sym;
	struct row *rows;
	struct dso_stat *stats;
	u64 total[EBS_MAX_EVENTS];
};

/* Count one sample of event into the row of k (zero-filled but for its fields). */
static int add_row(struct report *r, const struct row_key *k, u16 event)
{
	char text[512] = "";
	struct row *row;

	HASH_FIND(hh, r->rows, k, sizeof(*k), row);
	if (!row) {
		if (!k->function) {
			if (strcmp(k->dso, "[unknown]"))
				snprintf(text, sizeof(text), "[unknown] %s+0x%llx", k->dso,
					 (unsigned long long)k->addr);
			else
				snprintf(text, sizeof(text), "[unknown] 0x%llx",
					 (unsigned long long)k->addr);
		}
		row = calloc(1, sizeof(*row) + strlen(text) + 1);
		if (!row)
			return -ENOMEM;
		row->key = *k;
		strcpy(row->text, text);
		row->function = k->function ? k->function : row->text;
		row->dso = k->dso;
		row->file = r->opts->sort == SORT_LINE ? (k->file ? k->file : "") : NULL;
		row->line = k->line;
		HASH_ADD(hh, r->rows, key, sizeof(row->key), row);
	}
	row->samples[event]++;
	r->total[event]++;
	return 0;
}

static int add_stat(struct report *r, const char *dso, const struct sym_result *res)
{
	size_t len = strlen(dso);
	struct dso_stat *st;

	HASH_FIND(hh, r->stats, dso, len, st);
	if (!st) {
		st = calloc(1, sizeof(*st) + len + 1);
		if (!st)
			return -ENOMEM;
		memcpy(st->name, dso, len + 1);
		st->info = res->info;
		HASH_ADD(hh, r->stats, name[0], len, st);
	}
	st->samples++;
	st->with_function += res->function != NULL;
	st->with_line += res->line != 0;
	return 0;
}

static void warn_cb(void *ctx, const char *msg)
{
	FILE *f = ctx;

	if (f)
		fprintf(f, "ebs report: warning: %s\n", msg);
}

/* Resolve one sample and count it. */
static int account(struct report *r, const struct ebs_rec_sample *s)
{
	struct sym_result res = {0};
	const struct machine_map *map = NULL;
	u16 mode = s->hdr.misc & EBS_CPUMODE_MASK;
	struct row_key k;

	if (mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL) {
		symbolizer__lookup_kernel(r->sym, s->ip, &res);
	} else {
		map = machine__find_map(r->m, s->pid, s->ip, s->time);
		if (map && symbolizer__lookup(r->sym, &map->sym, s->ip, &res) == -ENOMEM)
			return -ENOMEM;
	}
	memset(&k, 0, sizeof(k));
	k.dso = res.dso ? res.dso : "[unknown]";
	if (r->opts->stats && add_stat(r, res.dso_path ? res.dso_path : k.dso, &res))
		return -ENOMEM;
	if (r->opts->sort == SORT_DSO) {
		k.function = "";
		return add_row(r, &k, s->event);
	}
	k.function = res.function;
	if (!res.function)
		k.addr = res.dso ? res.dso_addr : s->ip;
	if (r->opts->sort == SORT_LINE) {
		/* the innermost source line, in the function whose line it is */
		if (res.nr_frames && res.frames[0].function) {
			k.function = res.frames[0].function;
			k.addr = 0;
		}
		k.file = res.file;
		k.line = res.line;
	}
	return add_row(r, &k, s->event);
}

static int load(struct report *r, struct ebs_error *err)
{
	const struct ebs_rec_dso_image *vdso;
	const struct ebs_rec *rec;
	int e;

	/* pass 1: processes and mappings */
	while ((e = ebs_data__next(r->d, &rec, err)) > 0) {
		if (machine__add(r->m, rec))
			return ebs_error__set(err, ENOMEM, "out of memory");
	}
	if (e < 0)
		return e;
	vdso = ebs_data__dso_image(r->d, "[vdso]");
	if (vdso)
		machine__set_image(r->m, "[vdso]", vdso->image, vdso->image_size);
	/* pass 2: samples */
	ebs_data__rewind(r->d);
	while ((e = ebs_data__next(r->d, &rec, err)) > 0) {
		if (rec->type != EBS_REC_SAMPLE)
			continue;
		if (account(r, (const void *)rec))
			return ebs_error__set(err, ENOMEM, "out of memory");
	}
	return e;
}

/* Most samples of event *ctx first; ties in key order, so output is stable. */
static int row_cmp(const void *a, const void *b, void *ctx)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	u16 ev = *(const u16 *)ctx;
	int c;

	if (x->samples[ev] != y->samples[ev])
		return x->samples[ev] > y->samples[ev] ? -1 : 1;
	c = strcmp(x->function, y->function);
	if (!c)
		c = strcmp(x->dso, y->dso);
	if (!c && x->file && y->file)
		c = strcmp(x->file, y->file);
	if (!c)
		c = x->line < y->line ? -1 : x->line > y->line;
	return c;
}

/* Rows with samples of event ev, sorted by them; *n gets the count. */
static struct row **sorted_rows(struct report *r, u16 ev, size_t *n)
{
	struct row *row, *tmp, **v;
	size_t i = 0;

	v = malloc((HASH_COUNT(r->rows) + 1) * sizeof(*v));
	if (!v)
		return NULL;
	HASH_ITER(hh, r->rows, row, tmp)
		if (row->samples[ev])
			v[i++] = row;
	qsort_r(v, i, sizeof(*v), row_cmp, &ev);
	*n = i;
	return v;
}

/*
 * Samples of event ev the kernel dropped: its own, plus the losses of full
 * rings, which all the events of a CPU share (LOST records of no event).
 */
static u64 lost_of(const struct report *r, u16 ev)
{
	const struct ebs_rec_trailer *t = ebs_data__trailer(r->d);
	u64 attributed = 0;
	unsigned int i;

	if (!t)
		return 0;
	for (i = 0; i < ebs_data__nr_events(r->d); i++)
		attributed += ebs_data__counts(r->d, i)->lost;
	return ebs_data__counts(r->d, ev)->lost + (t->lost > attributed ? t->lost - attributed : 0);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *const sort_names[] = {
	[SORT_FUNC] = "func",
	[SORT_DSO] = "dso",
	[SORT_LINE] = "line",
};

static int stat_cmp(const void *a, const void *b)
{
	const struct dso_stat *x = *(const struct dso_stat *const *)a;
	const struct dso_stat *y = *(const struct dso_stat *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The DSO statistics, most samples first; NULL when out of memory. */
static struct dso_stat **sorted_stats(struct report *r, size_t *n)
{
	struct dso_stat *st, *tmp, **v = malloc((HASH_COUNT(r->stats) + 1) * sizeof(*v));
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, r->stats, st, tmp)
		v[i++] = st;
	qsort(v, i, sizeof(*v), stat_cmp);
	*n = i;
	return v;
}

/* Where a DSO's debug information came from, or why there is none, in words. */
static void debug_words(const struct dso_stat *st, char *buf, size_t len)
{
	const struct sym_dso_info *in = st->info;

	if (!in && !strcmp(st->name, "[unknown]"))
		snprintf(buf, len, "no mapping covers these addresses");
	else if (!in && !st->with_function)
		snprintf(buf, len, "kernel: no symbols (kallsyms unreadable or restricted)");
	else if (!in)
		snprintf(buf, len, "kernel symbols from kallsyms; no line information");
	else if (in->debug_path && !in->problem)
		snprintf(buf, len, "DWARF from %s", in->debug_path);
	else if (in->problem)
		snprintf(buf, len, "%s", in->problem);
	else if (!in->looked || !in->looked[0])
		snprintf(buf, len, "no debug information");
	else
		snprintf(buf, len, "no debug information; looked in %s", in->looked);
}

static double pct(u64 part, u64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_stats_text(struct report *r, FILE *f)
{
	struct dso_stat **v;
	char words[2048];
	size_t n, i;

	v = sorted_stats(r, &n);
	if (!v)
		return;
	fprintf(f, "# symbolization, per DSO (all events):\n");
	fprintf(f, "# %8s %9s %9s  %s\n", "samples", "function", "line", "dso");
	for (i = 0; i < n; i++) {
		debug_words(v[i], words, sizeof(words));
		fprintf(f, "  %8llu %8.1f%% %8.1f%%  %s\n", (unsigned long long)v[i]->samples,
			pct(v[i]->with_function, v[i]->samples), pct(v[i]->with_line, v[i]->samples),
			v[i]->name);
		fprintf(f, "  %28s%s\n", "", words);
		if (v[i]->info && v[i]->info->symbols_from && v[i]->info->debug_path &&
		    strcmp(v[i]->info->symbols_from, v[i]->info->path))
			fprintf(f, "  %28ssymbols from %s\n", "", v[i]->info->symbols_from);
	}
	fprintf(f, "\n");
	free(v);
}

static void print_stats_json(struct report *r, FILE *f)
{
	struct dso_stat **v;
	char words[2048];
	size_t n, i;

	v = sorted_stats(r, &n);
	if (!v)
		return;
	fprintf(f, ",\"stats\":[");
	for (i = 0; i < n; i++) {
		const struct sym_dso_info *in = v[i]->info;

		debug_words(v[i], words, sizeof(words));
		fprintf(f, "%s{\"dso\":", i ? "," : "");
		json_string(f, v[i]->name);
		fprintf(f, ",\"samples\":%llu,\"with_function\":%llu,\"with_line\":%llu,"
			   "\"debug\":",
			(unsigned long long)v[i]->samples, (unsigned long long)v[i]->with_function,
			(unsigned long long)v[i]->with_line);
		if (in && in->debug_path && !in->problem)
			json_string(f, in->debug_path);
		else
			fprintf(f, "null");
		fprintf(f, ",\"looked\":");
		json_string(f, in && in->looked ? in->looked : "");
		fprintf(f, ",\"note\":");
		json_string(f, words);
		fprintf(f, "}");
	}
	fprintf(f, "]");
	free(v);
}

static void print_json(struct report *r, u16 ev, struct row **rows, size_t n)
{
	const struct ebs_event_info *info = ebs_data__event(r->d, ev);
	const struct ebs_event_counts *c = ebs_data__counts(r->d, ev);
	const struct ebs_rec_event *e = info->rec;
	FILE *f = r->opts->out;
	unsigned int i, nev = ebs_data__nr_events(r->d);
	size_t k, limit = r->opts->top && r->opts->top < n ? r->opts->top : n;

	fprintf(f, "{\"event\":");
	json_string(f, info->used);
	fprintf(f, ",\"asked\":");
	json_string(f, info->asked);
	if (info->why[0]) {
		fprintf(f, ",\"fallback\":");
		json_string(f, info->why);
	}
	if (e->flags & EBS_EVF_FREQ)
		fprintf(f, ",\"period\":null,\"freq\":%llu", (unsigned long long)e->sample_freq);
	else
		fprintf(f, ",\"period\":%llu", (unsigned long long)e->sample_period);
	fprintf(f, ",\"samples\":%llu,\"lost\":%llu,\"throttled\":%llu",
		(unsigned long long)r->total[ev], (unsigned long long)lost_of(r, ev),
		(unsigned long long)(c ? c->throttled : 0));
	fprintf(f, ",\"sort\":\"%s\"", sort_names[r->opts->sort]);
	if (nev > 1) {
		fprintf(f, ",\"events\":[");
		for (i = 0; i < nev; i++) {
			fprintf(f, i ? "," : "");
			json_string(f, ebs_data__event(r->d, i)->used);
		}
		fprintf(f, "]");
	}
	fprintf(f, ",\"rows\":[");
	for (k = 0; k < limit; k++) {
		const struct row *row = rows[k];

		fprintf(f, "%s{", k ? "," : "");
		if (r->opts->sort != SORT_DSO) {
			fprintf(f, "\"function\":");
			json_string(f, row->function);
			fprintf(f, ",");
		}
		fprintf(f, "\"dso\":");
		json_string(f, row->dso);
		if (row->file) {
			fprintf(f, ",\"file\":");
			if (row->file[0])
				json_string(f, row->file);
			else
				fprintf(f, "null");
			fprintf(f, row->line ? ",\"line\":%u" : ",\"line\":null", row->line);
		}
		fprintf(f, ",\"samples\":%llu,\"percent\":%.4f}",
			(unsigned long long)row->samples[ev],
			100.0 * (double)row->samples[ev] / (double)r->total[ev]);
	}
	fprintf(f, "]");
	if (r->opts->stats)
		print_stats_json(r, f);
	fprintf(f, "}\n");
}

static void print_text(struct report *r, u16 ev, struct row **rows, size_t n)
{
	const struct ebs_event_info *info = ebs_data__event(r->d, ev);
	const struct ebs_event_counts *c = ebs_data__counts(r->d, ev);
	const struct ebs_rec_event *e = info->rec;
	FILE *f = r->opts->out;
	size_t k, limit = r->opts->top && r->opts->top < n ? r->opts->top : n;
	int w = 8, lw = 11;

	fprintf(f, "# event: %s", info->used);
	if (info->why[0])
		fprintf(f, " (asked for %s: %s)", info->asked, info->why);
	fprintf(f, "\n");
	if (e->flags & EBS_EVF_FREQ)
		fprintf(f, "# sampling: frequency %llu Hz per CPU\n",
			(unsigned long long)e->sample_freq);
	else
		fprintf(f, "# sampling: one sample after every %llu events\n",
			(unsigned long long)e->sample_period);
	fprintf(f, "# samples: %llu, lost: %llu%s, throttled: %llu\n",
		(unsigned long long)r->total[ev], (unsigned long long)lost_of(r, ev),
		lost_of(r, ev) > (c ? c->lost : 0) ? " (of all events: they share the rings)" : "",
		(unsigned long long)(c ? c->throttled : 0));
	if (r->total[ev] == 0) {
		fprintf(f, "# no samples\n\n");
		return;
	}
	for (k = 0; k < limit; k++) {
		int len = (int)strlen(rows[k]->function);

		if (len > w)
			w = len;
		if (rows[k]->file) {
			len = (int)strlen(rows[k]->file[0] ? rows[k]->file : "??") + 11;
			if (len > lw)
				lw = len;
		}
	}
	if (w > 60)
		w = 60;
	if (lw > 70)
		lw = 70;
	fprintf(f, "#\n");
	if (r->opts->sort == SORT_DSO)
		fprintf(f, "# %8s %8s  %s\n", "samples", "percent", "dso");
	else if (r->opts->sort == SORT_LINE)
		fprintf(f, "# %8s %8s  %-*s  %-*s  %s\n", "samples", "percent", lw, "source line",
			w, "function", "dso");
	else
		fprintf(f, "# %8s %8s  %-*s  %s\n", "samples", "percent", w, "function", "dso");
	for (k = 0; k < limit; k++) {
		const struct row *row = rows[k];
		double p = pct(row->samples[ev], r->total[ev]);

		if (r->opts->sort == SORT_DSO) {
			fprintf(f, "  %8llu %7.2f%%  %s\n", (unsigned long long)row->samples[ev], p,
				row->dso);
		} else if (r->opts->sort == SORT_LINE) {
			char loc[4200];

			if (row->line)
				snprintf(loc, sizeof(loc), "%s:%u", row->file[0] ? row->file : "??",
					 row->line);
			else
				snprintf(loc, sizeof(loc), "??");
			fprintf(f, "  %8llu %7.2f%%  %-*s  %-*s  %s\n",
				(unsigned long long)row->samples[ev], p, lw, loc, w, row->function,
				row->dso);
		} else {
			fprintf(f, "  %8llu %7.2f%%  %-*s  %s\n", (unsigned long long)row->samples[ev],
				p, w, row->function, row->dso);
		}
	}
	if (limit < n)
		fprintf(f, "  (%zu more rows; --top 0 shows all)\n", n - limit);
	fprintf(f, "\n");
}

int ebs_report(const struct report_opts *opts, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct report r = {0};
	struct row *row, *tmp;
	struct dso_stat *st, *stmp;
	unsigned int ev, first = 0, last;
	int e;

	r.opts = opts;
	r.d = ebs_data__open(opts->input, err);
	if (!r.d)
		return err->err;
	last = ebs_data__nr_events(r.d) - 1;
	if (opts->event) {
		e = ebs_data__find_event(r.d, opts->event);
		if (e < 0) {
			e = ebs_error__set(err, ENOENT, "%s: no event '%s' in this file",
					   opts->input, opts->event);
			goto out;
		}
		first = last = (unsigned int)e;
	} else if (opts->json) {
		last = 0;
	}
	so.kallsyms = opts->kallsyms;
	so.debug_dirs = opts->debug_dirs;
	so.demangle = !opts->no_demangle;
	/* DWARF only where lines are shown or counted */
	so.no_dwarf = opts->sort != SORT_LINE && !opts->stats;
	so.warn = warn_cb;
	so.warn_ctx = opts->warn;
	r.m = machine__new();
	r.sym = symbolizer__new(&so);
	if (!r.m || !r.sym) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	e = load(&r, err);
	if (e)
		goto out;
	for (ev = first; ev <= last; ev++) {
		size_t n;
		struct row **rows = sorted_rows(&r, (u16)ev, &n);

		if (!rows) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
		if (opts->json)
			print_json(&r, (u16)ev, rows, n);
		else
			print_text(&r, (u16)ev, rows, n);
		free(rows);
	}
	if (opts->stats && !opts->json)
		print_stats_text(&r, opts->out);
	fflush(opts->out);
out:
	HASH_ITER(hh, r.rows, row, tmp) {
		HASH_DEL(r.rows, row);
		free(row);
	}
	HASH_ITER(hh, r.stats, st, stmp) {
		HASH_DEL(r.stats, st);
		free(st);
	}
	symbolizer__free(r.sym);
	machine__free(r.m);
	ebs_data__close(r.d);
	return e;
}
