// SPDX-License-Identifier: MIT
/*
 * export-speedscope.c - ebs export --format speedscope: speedscope's JSON
 * file format (https://www.speedscope.app/file-format-schema.json).
 *
 * shared.frames holds one frame per function (name and DSO, inlined ones
 * included): its name, its source file and the lowest line a sample saw
 * in it, when known.  One profile of type "sampled" (with several hosts'
 * recordings, one per host, "EVENT (MODE) on HOST"): each distinct stack
 * is a sample (frame indexes, root first) weighed by its period, the
 * events it stands for: nanoseconds for cpu-clock and task-clock (unit
 * "nanoseconds"), events otherwise (unit "none").  startValue is 0,
 * endValue the sum of the weights.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/export/export.h"
#include "util/hash.h"
#include "util/json.h"

#ifndef EBS_VERSION
#define EBS_VERSION "unknown"
#endif

struct sframe {
	UT_hash_handle hh;
	const char *id; /* the key: cframe.id, interned, compared by pointer */
	size_t idx;
	const struct cframe *first;
	const char *file; /* the first known */
	u32 line;	  /* the lowest known, 0: none */
};

/* One profile of s: the stacks of host (all: all of them), weighing end in all. */
static void profile(struct ebs_json *j, const struct stacks *s, struct sframe *hash,
		    const char *name, bool all, const char *host, u64 end)
{
	char title[600];
	struct sframe *e;
	unsigned int k;
	size_t i;

	snprintf(title, sizeof(title), "%s%s%s", name, all ? "" : " on ",
		 all	? ""
		 : host ? host
			: "unknown");
	ebs_json__obj(j);
	ebs_json__key_str(j, "type", "sampled");
	ebs_json__key_str(j, "name", title);
	ebs_json__key_str(j, "unit", s->clock ? "nanoseconds" : "none");
	ebs_json__key_u64(j, "startValue", 0);
	ebs_json__key_u64(j, "endValue", end);
	ebs_json__key(j, "samples");
	ebs_json__arr(j);
	for (i = 0; i < s->n; i++) {
		const struct stack *st = &s->v[i];

		if (!all && st->host != host)
			continue;
		ebs_json__arr(j);
		for (k = st->n; k-- > 0;) {
			HASH_FIND_PTR(hash, &st->frames[k].id, e);
			ebs_json__u64(j, e->idx);
		}
		ebs_json__arr_end(j);
	}
	ebs_json__arr_end(j);
	ebs_json__key(j, "weights");
	ebs_json__arr(j);
	for (i = 0; i < s->n; i++)
		if (all || s->v[i].host == host)
			ebs_json__u64(j, s->v[i].period);
	ebs_json__arr_end(j);
	ebs_json__obj_end(j);
}

int export_speedscope(const struct stacks *s, FILE *f, struct ebs_error *err)
{
	const char *event = s->event ? s->event : "events";
	struct sframe *hash = NULL, *e, *tmp, **v = NULL;
	size_t i, n = 0, cap = 0;
	const char **hosts = calloc(s->nhosts + 1, sizeof(*hosts));
	struct ebs_json j;
	char name[256];
	unsigned int k, h, nh = 0;
	int r = hosts ? 0 : -ENOMEM;

	for (i = 0; i < s->n && !r; i++) {
		for (k = 0; k < s->v[i].n; k++) {
			const struct cframe *c = &s->v[i].frames[k];

			HASH_FIND_PTR(hash, &c->id, e);
			if (!e) {
				if (ebs_grow((void **)&v, &cap, n, sizeof(*v), 256) ||
				    !(e = calloc(1, sizeof(*e)))) {
					r = -ENOMEM;
					break;
				}
				e->id = c->id;
				e->idx = n;
				e->first = c;
				HASH_ADD_PTR(hash, id, e);
				if (!e->hh.tbl) {
					free(e);
					r = -ENOMEM;
					break;
				}
				v[n++] = e;
			}
			if (!e->file && c->file)
				e->file = c->file;
			if (c->line && (!e->line || c->line < e->line))
				e->line = c->line;
		}
	}
	if (r)
		goto out;
	ebs_json__begin(&j, f);
	ebs_json__obj(&j);
	ebs_json__key_str(&j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	ebs_json__key_str(&j, "exporter", "ebs " EBS_VERSION);
	snprintf(name, sizeof(name), "%s (%s)", event,
		 s->call_graph ? s->call_graph : "no call graph");
	ebs_json__key_str(&j, "name", name);
	ebs_json__key_u64(&j, "activeProfileIndex", 0);
	ebs_json__key(&j, "shared");
	ebs_json__obj(&j);
	ebs_json__key(&j, "frames");
	ebs_json__arr(&j);
	for (i = 0; i < n; i++) {
		ebs_json__obj(&j);
		ebs_json__key_str(&j, "name", v[i]->first->name);
		if (v[i]->file)
			ebs_json__key_str(&j, "file", v[i]->file);
		if (v[i]->line)
			ebs_json__key_u64(&j, "line", v[i]->line);
		ebs_json__obj_end(&j);
	}
	ebs_json__arr_end(&j);
	ebs_json__obj_end(&j);
	ebs_json__key(&j, "profiles");
	ebs_json__arr(&j);
	/* several hosts' recordings: a profile each, in the order first seen */
	for (i = 0; i < s->n && s->nhosts > 1 && nh < s->nhosts; i++) {
		for (h = 0; h < nh && hosts[h] != s->v[i].host; h++)
			;
		if (h == nh)
			hosts[nh++] = s->v[i].host;
	}
	for (h = 0; h < (nh ? nh : 1); h++) {
		u64 end = 0;

		for (i = 0; i < s->n; i++)
			if (!nh || s->v[i].host == hosts[h])
				end += s->v[i].period;
		profile(&j, s, hash, name, !nh, nh ? hosts[h] : NULL, end);
	}
	ebs_json__arr_end(&j);
	ebs_json__obj_end(&j);
	/* a write error is ebs_export's to name (ferror); misuse is a bug here */
	r = ebs_json__end(&j);
out:
	HASH_ITER(hh, hash, e, tmp) {
		HASH_DEL(hash, e);
		free(e);
	}
	free(v);
	free(hosts);
	if (r == -EINVAL)
		return ebs_error__set(err, EINVAL, "--format speedscope: unbalanced JSON (a bug)");
	return r ? ebs_error__set(err, -r, "out of memory") : 0;
}
