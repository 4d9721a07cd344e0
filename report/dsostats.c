// SPDX-License-Identifier: MIT
/*
 * stats.c - report --stats: per DSO, how many samples got a function and a
 * line, and where its debug information came from or was looked for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/present.h"
#include "report/dsostats.h"

int dsostats__add(struct dso_stat **stats, const char *dso, const struct sym_result *res)
{
	size_t len = strlen(dso);
	struct dso_stat *st;

	HASH_FIND(hh, *stats, dso, len, st);
	if (!st) {
		st = calloc(1, sizeof(*st) + len + 1);
		if (!st)
			return -ENOMEM;
		memcpy(st->name, dso, len + 1);
		st->info = res->info;
		HASH_ADD(hh, *stats, name[0], len, st);
		if (!st->hh.tbl) {
			free(st);
			return -ENOMEM;
		}
	}
	st->samples++;
	st->with_function += res->function != NULL;
	st->with_line += res->line != 0;
	return 0;
}

void dsostats__free(struct dso_stat **stats)
{
	struct dso_stat *st, *tmp;

	if (!stats)
		return;
	HASH_ITER(hh, *stats, st, tmp) {
		HASH_DEL(*stats, st);
		free(st);
	}
}

static int stat_cmp(const void *a, const void *b)
{
	const struct dso_stat *x = *(const struct dso_stat *const *)a;
	const struct dso_stat *y = *(const struct dso_stat *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The DSO statistics, most samples first; NULL when out of memory. */
static struct dso_stat **sorted_stats(struct dso_stat *stats, size_t *n)
{
	struct dso_stat *st, *tmp, **v = malloc((HASH_COUNT(stats) + 1) * sizeof(*v));
	size_t i = 0;

	if (!v)
		return NULL;
	HASH_ITER(hh, stats, st, tmp)
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
	else if (in->unusable)
		snprintf(buf, len, "%s", in->unusable);
	else if (in->debug_path && !in->problem)
		snprintf(buf, len, "DWARF from %s%s", in->debug_path,
			 in->debug_fetched ? " (from debuginfod)" : "");
	else if (in->problem)
		snprintf(buf, len, "%s", in->problem);
	else if (!in->looked || !in->looked[0])
		snprintf(buf, len, "no debug information");
	else
		snprintf(buf, len, "no debug information; looked in %s", in->looked);
}

void dsostats__print_text(struct dso_stat *stats, FILE *f)
{
	struct dso_stat **v;
	char words[2048];
	size_t n, i;

	v = sorted_stats(stats, &n);
	if (!v)
		return;
	fprintf(f, "# symbolization, per DSO (all events):\n");
	fprintf(f, "# %8s %9s %9s  %s\n", "samples", "function", "line", "dso");
	for (i = 0; i < n; i++) {
		debug_words(v[i], words, sizeof(words));
		fprintf(f, "  %8llu %8.1f%% %8.1f%%  %s\n", (unsigned long long)v[i]->samples,
			present_percent(v[i]->with_function, v[i]->samples),
			present_percent(v[i]->with_line, v[i]->samples), v[i]->name);
		fprintf(f, "  %28s%s\n", "", words);
		if (v[i]->info && v[i]->info->fetched)
			fprintf(f, "  %28sfile from %s (from debuginfod)\n", "",
				v[i]->info->fetched);
		if (v[i]->info && v[i]->info->symbols_from && v[i]->info->debug_path &&
		    strcmp(v[i]->info->symbols_from, v[i]->info->path))
			fprintf(f, "  %28ssymbols from %s\n", "", v[i]->info->symbols_from);
	}
	fprintf(f, "\n");
	free(v);
}

void dsostats__print_json(struct dso_stat *stats, struct ebs_json *j)
{
	struct dso_stat **v;
	char words[2048];
	size_t n, i;

	v = sorted_stats(stats, &n);
	if (!v)
		return;
	ebs_json__key(j, "stats");
	ebs_json__arr(j);
	for (i = 0; i < n; i++) {
		const struct sym_dso_info *in = v[i]->info;

		debug_words(v[i], words, sizeof(words));
		ebs_json__obj(j);
		ebs_json__key_str(j, "dso", v[i]->name);
		ebs_json__key_u64(j, "samples", v[i]->samples);
		ebs_json__key_u64(j, "with_function", v[i]->with_function);
		ebs_json__key_u64(j, "with_line", v[i]->with_line);
		ebs_json__key_str(j, "debug",
				  in && in->debug_path && !in->problem ? in->debug_path : NULL);
		ebs_json__key_str(j, "looked", in && in->looked ? in->looked : "");
		ebs_json__key_str(j, "note", words);
		ebs_json__obj_end(j);
	}
	ebs_json__arr_end(j);
	free(v);
}
