// SPDX-License-Identifier: MIT
/*
 * print-json.c - an ebs report table as one JSON object (the schema is in
 * docs/ebs-report.1): the header's facts, the rows with their columns'
 * members in report_columns[] order, and with --stats the DSOs'.
 */
#include <string.h>

#include "report/session/callchain.h"
#include "report/facts.h"
#include "report/present.h"
#include "report/table.h"

/* The facts of an event's table: its event, sampling, estimate and count. */
static void print_event(const struct facts *fa, struct ebs_json *j)
{
	const struct ebs_event_info *info = fa->info;
	const struct ebs_rec_event *e = info->rec;
	const struct count_total *cn = &fa->counted;

	ebs_json__key_str(j, "event", info->used);
	ebs_json__key_str(j, "asked", info->asked);
	if (info->why[0])
		ebs_json__key_str(j, "fallback", info->why);
	if (e->flags & EBS_EVF_FREQ) {
		ebs_json__key_null(j, "period");
		ebs_json__key_u64(j, "freq", e->sample_freq);
	} else {
		ebs_json__key_u64(j, "period", e->sample_period);
	}
	ebs_json__key(j, "estimate");
	ebs_json__obj(j);
	ebs_json__key_u64(j, "events", fa->events);
	ebs_json__key_bool(j, "approximate", fa->why[0]);
	if (fa->why[0])
		ebs_json__key_str(j, "why", fa->why);
	ebs_json__obj_end(j);
	if (cn->value && !fa->filtered) {
		ebs_json__key_u64(j, "counted", cn->value);
		if (cn->multiplexed) {
			ebs_json__key_num(j, "counted_scaled", "%.0f", cn->scaled);
			ebs_json__key_num(j, "running_fraction", "%.4f",
					  (double)cn->running / (double)cn->enabled);
		}
	}
}

void table__print_json(const struct report *r, int ev, struct row **rows, size_t n)
{
	unsigned int i, nev = session__nr_events(&r->rs);
	size_t k, limit = r->o->view.top && r->o->view.top < n ? r->o->view.top : n;
	char sort[256] = "";
	struct facts fa;
	struct ebs_json j;

	facts_of(&fa, &r->rs, &r->o->view.filter, ev, ev < 0 ? r->total_all : r->total[ev],
		 ev < 0 ? 0 : r->period_sum[ev]);
	ebs_json__begin(&j, r->o->view.out);
	ebs_json__obj(&j);
	if (ev < 0)
		ebs_json__key_null(&j, "event");
	else
		print_event(&fa, &j);
	ebs_json__key_u64(&j, "samples", fa.samples);
	ebs_json__key_u64(&j, "lost", fa.lost);
	ebs_json__key_u64(&j, "throttled", fa.throttled);
	if (session__ns_procs(&r->rs)) /* where the recording noted any (PROCNS) */
		ebs_json__key_u64(&j, "other_mount_ns_samples",
				  ev < 0 ? r->ns_total_all : r->ns_total[ev]);
	for (i = 0; i < (r->o->nr_keys ? r->o->nr_keys : 1); i++)
		snprintf(sort + strlen(sort), sizeof(sort) - strlen(sort), "%s%s", i ? "," : "",
			 report_columns[r->o->nr_keys ? r->o->keys[i] : KEY_FUNC].name);
	ebs_json__key_str(&j, "sort", sort);
	if (r->rs.nin > 1) { /* several recordings: which, from where */
		ebs_json__key_u64(&j, "hosts", r->rs.nhosts);
		ebs_json__key(&j, "recordings");
		ebs_json__arr(&j);
		for (k = 0; k < r->rs.nin; k++) {
			ebs_json__obj(&j);
			ebs_json__key_str(&j, "file", ebs_data__path(r->rs.in[k].d));
			ebs_json__key_str(&j, "host", r->rs.in[k].host);
			ebs_json__key_str(&j, "label", r->rs.in[k].label);
			ebs_json__key_u64(&j, "samples", r->rs.in[k].samples);
			ebs_json__obj_end(&j);
		}
		ebs_json__arr_end(&j);
	}
	if (r->o->children) {
		const char *mode = session__call_graph(&r->rs);

		if (mode)
			ebs_json__key_str(&j, "call_graph", mode);
		else
			ebs_json__key_null(&j, "call_graph");
	}
	if (nev > 1) {
		ebs_json__key(&j, "events");
		ebs_json__arr(&j);
		for (i = 0; i < nev; i++)
			ebs_json__str(&j, session__event(&r->rs, i)->used);
		ebs_json__arr_end(&j);
	}
	ebs_json__key(&j, "rows");
	ebs_json__arr(&j);
	for (k = 0; k < limit; k++) {
		struct row__share sh;

		if (!row__share(r, rows[k], ev, fa.samples, &sh))
			continue;
		ebs_json__obj(&j);
		for (i = 0; i < KEY_MAX; i++)
			if (r->col[i])
				report_columns[i].json(r, rows[k], ev, &j);
		ebs_json__key_u64(&j, "samples", sh.count);
		if (r->o->children) {
			ebs_json__key_u64(&j, "self", row__self(rows[k], ev));
			ebs_json__key_u64(&j, "children", sh.count);
		}
		ebs_json__key_num(&j, "percent", "%.4f", sh.percent);
		ebs_json__key(&j, "ci95");
		ebs_json__arr(&j);
		ebs_json__num(&j, "%.4f", sh.lo);
		ebs_json__num(&j, "%.4f", sh.hi);
		ebs_json__arr_end(&j);
		ebs_json__obj_end(&j);
	}
	ebs_json__arr_end(&j);
	if (r->o->stats)
		dsostats__print_json(r->stats, &j);
	if (r->o->stats && r->chains && session__call_graph(&r->rs))
		chain_stats__print_json(chainer__stats(r->chains), session__call_graph(&r->rs), &j);
	ebs_json__obj_end(&j);
	ebs_json__end(&j);
}
