// SPDX-License-Identifier: MIT
/*
 * report.c - aggregate samples by function or DSO and print the table.
 *
 * Two passes over the (mapped) file: the first builds the process/mapping
 * history, the second resolves each sample and counts it into a row keyed
 * by (function, dso) or dso.  Unresolved addresses keep their own rows as
 * "[unknown] DSO+0xOFFSET": nothing is dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "report/machine.h"
#include "report/report.h"

struct row {
	UT_hash_handle hh;
	u64 samples[EBS_MAX_EVENTS];
	const char *function;	/* interned in key */
	const char *dso;
	char key[];		/* "function\0dso\0" */
};

struct report {
	const struct report_opts *opts;
	struct ebs_data *d;
	struct machine *m;
	struct symbolizer *sym;
	struct row *rows;
	u64 total[EBS_MAX_EVENTS];
};

static int add_row(struct report *r, const char *function, const char *dso, u16 event)
{
	size_t flen = strlen(function), dlen = strlen(dso), klen = flen + 1 + dlen;
	char stack_key[512], *key = stack_key;
	struct row *row;

	if (klen + 1 > sizeof(stack_key)) {
		key = malloc(klen + 1);
		if (!key)
			return -ENOMEM;
	}
	memcpy(key, function, flen + 1);
	memcpy(key + flen + 1, dso, dlen + 1);
	HASH_FIND(hh, r->rows, key, klen, row);
	if (!row) {
		row = calloc(1, sizeof(*row) + klen + 1);
		if (!row) {
			if (key != stack_key)
				free(key);
			return -ENOMEM;
		}
		memcpy(row->key, key, klen + 1);
		row->function = row->key;
		row->dso = row->key + flen + 1;
		HASH_ADD(hh, r->rows, key[0], klen, row);
	}
	if (key != stack_key)
		free(key);
	row->samples[event]++;
	r->total[event]++;
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
	char unknown[512];
	const char *dso;

	if (mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL) {
		symbolizer__lookup_kernel(r->sym, s->ip, &res);
	} else {
		map = machine__find_map(r->m, s->pid, s->ip, s->time);
		if (map)
			symbolizer__lookup(r->sym, &map->sym, s->ip, &res);
	}
	if (r->opts->sort == SORT_DSO) {
		dso = res.dso ? res.dso : "[unknown]";
		return add_row(r, "", dso, s->event);
	}
	if (res.function)
		return add_row(r, res.function, res.dso, s->event);
	if (res.dso) {
		snprintf(unknown, sizeof(unknown), "[unknown] %s+0x%llx", res.dso,
			 (unsigned long long)res.dso_addr);
		return add_row(r, unknown, res.dso, s->event);
	}
	snprintf(unknown, sizeof(unknown), "[unknown] 0x%llx", (unsigned long long)s->ip);
	return add_row(r, unknown, "[unknown]", s->event);
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
	return c ? c : strcmp(x->dso, y->dso);
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
	fprintf(f, ",\"sort\":\"%s\"", r->opts->sort == SORT_DSO ? "dso" : "func");
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
		fprintf(f, ",\"samples\":%llu,\"percent\":%.4f}",
			(unsigned long long)row->samples[ev],
			100.0 * (double)row->samples[ev] / (double)r->total[ev]);
	}
	fprintf(f, "]}\n");
}

static void print_text(struct report *r, u16 ev, struct row **rows, size_t n)
{
	const struct ebs_event_info *info = ebs_data__event(r->d, ev);
	const struct ebs_event_counts *c = ebs_data__counts(r->d, ev);
	const struct ebs_rec_event *e = info->rec;
	FILE *f = r->opts->out;
	size_t k, limit = r->opts->top && r->opts->top < n ? r->opts->top : n;
	int w = 8;

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
	}
	if (w > 60)
		w = 60;
	fprintf(f, "#\n");
	if (r->opts->sort == SORT_DSO)
		fprintf(f, "# %8s %8s  %s\n", "samples", "percent", "dso");
	else
		fprintf(f, "# %8s %8s  %-*s  %s\n", "samples", "percent", w, "function", "dso");
	for (k = 0; k < limit; k++) {
		const struct row *row = rows[k];
		double pct = 100.0 * (double)row->samples[ev] / (double)r->total[ev];

		if (r->opts->sort == SORT_DSO)
			fprintf(f, "  %8llu %7.2f%%  %s\n", (unsigned long long)row->samples[ev],
				pct, row->dso);
		else
			fprintf(f, "  %8llu %7.2f%%  %-*s  %s\n",
				(unsigned long long)row->samples[ev], pct, w, row->function,
				row->dso);
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
	so.demangle = true;
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
	fflush(opts->out);
out:
	HASH_ITER(hh, r.rows, row, tmp) {
		HASH_DEL(r.rows, row);
		free(row);
	}
	symbolizer__free(r.sym);
	machine__free(r.m);
	ebs_data__close(r.d);
	return e;
}
