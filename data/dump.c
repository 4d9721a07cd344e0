// SPDX-License-Identifier: MIT
/*
 * dump.c - every record of an ebs.data file, one line each, with its byte
 * offset (ebs report --dump).  For debugging ebs and for tests that look
 * at records rather than at a listing.  Beside the reader: it prints the
 * file format's own fields, and changes when the format does.  The file's
 * names (MMAP, COMM, KSYMS; the header's are the reader's) are printed
 * with their control characters as '?' (util/text.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "data/data.h"

#define ULL(x) ((unsigned long long)(x))

static void dump_header(struct ebs_data *d, FILE *out)
{
	const struct ebs_file_header *h = ebs_data__header(d);
	static const char *const meta_names[] = {
		[EBS_META_HOSTNAME] = "hostname",
		[EBS_META_OS_RELEASE] = "os-release",
		[EBS_META_ARCH] = "arch",
		[EBS_META_CMDLINE] = "cmdline",
		[EBS_META_CPU_DESC] = "cpu",
		[EBS_META_NR_CPUS] = "nr-cpus",
		[EBS_META_EBS_VERSION] = "ebs-version",
		[EBS_META_TARGET] = "target",
		[EBS_META_BACKEND] = "backend",
		[EBS_META_PAGE_SIZE] = "page-size",
		[EBS_META_KERNEL_STEXT] = "kernel-stext",
		[EBS_META_CALL_GRAPH] = "call-graph",
	};
	unsigned int i;

	fprintf(out,
		"# ebs.data version %u.%u, flags 0x%x, data at %llu (%llu bytes), trailer at %llu\n",
		h->version_major, h->version_minor, h->flags, ULL(h->data_offset),
		ULL(h->data_size), ULL(h->trailer_offset));
	for (i = 1; i < ARRAY_SIZE(meta_names); i++) {
		const char *v = ebs_data__meta(d, i);

		if (v && meta_names[i])
			fprintf(out, "# %s: %s\n", meta_names[i], v);
	}
	for (i = 0; i < ebs_data__nr_events(d); i++) {
		const struct ebs_event_info *e = ebs_data__event(d, i);

		fprintf(out,
			"# event %u: %s (asked %s%s%s) type %u config 0x%llx %s %llu flags 0x%x\n",
			i, e->used, e->asked, e->why[0] ? "; " : "", e->why, e->rec->type,
			ULL(e->rec->config), e->rec->flags & EBS_EVF_FREQ ? "freq" : "period",
			ULL(e->rec->flags & EBS_EVF_FREQ ? e->rec->sample_freq
							 : e->rec->sample_period),
			e->rec->flags);
	}
	for (i = 0; i < ebs_data__nr_events(d); i++) {
		const struct ebs_rec_calibration *c = ebs_data__calibration(d, i);

		if (c)
			fprintf(out,
				"# calibration of event %u: sample_after %llu rate_hz %u "
				"events_per_sec %llu target_samples %llu overhead_ppm %llu "
				"budget_ppm %llu\n",
				i, ULL(c->sample_after), c->rate_hz, ULL(c->events_per_sec),
				ULL(c->target_samples), ULL(c->overhead_ppm), ULL(c->budget_ppm));
	}
}

/* A sample's optional parts: " chain [user] 0x... regs ip 0x... stack 4096 of 8192". */
static void dump_parts(const struct ebs_rec_sample *s, FILE *out)
{
	struct ebs_sample_parts p;
	unsigned int i, bit;

	ebs_sample__parts(s, &p);
	if (s->hdr.misc & EBS_SAMPLE_CALLCHAIN) {
		fprintf(out, " chain %llu:", ULL(p.nr_callchain));
		for (i = 0; i < p.nr_callchain; i++)
			if (p.callchain[i] == EBS_CHAIN_KERNEL)
				fputs(" [kernel]", out);
			else if (p.callchain[i] == EBS_CHAIN_USER)
				fputs(" [user]", out);
			else
				fprintf(out, " 0x%llx", ULL(p.callchain[i]));
	}
	if (p.regs) {
		fprintf(out, " regs abi %llu mask 0x%llx:", ULL(p.regs_abi), ULL(p.regs_mask));
		for (i = 0, bit = 0; bit < 64; bit++)
			if (p.regs_mask & (1ull << bit))
				fprintf(out, " r%u 0x%llx", bit, ULL(p.regs[i++]));
	}
	if (s->hdr.misc & EBS_SAMPLE_STACK_USER)
		fprintf(out, " stack %llu used %llu", ULL(p.stack_size), ULL(p.stack_dyn_size));
}

static void dump_record(struct ebs_data *d, const struct ebs_rec *r, FILE *out)
{
	fprintf(out, "%llu %s", ULL(ebs_data__offset(d, r)), ebs_rec__type_name(r->type));
	switch (r->type) {
	case EBS_REC_SAMPLE: {
		const struct ebs_rec_sample *s = (const void *)r;

		fprintf(out,
			" time %llu pid %u tid %u cpu %u ip 0x%llx period %llu event %u mode %u",
			ULL(s->time), s->pid, s->tid, s->cpu, ULL(s->ip), ULL(s->period), s->event,
			s->hdr.misc & EBS_CPUMODE_MASK);
		dump_parts(s, out);
		break;
	}
	case EBS_REC_MMAP: {
		const struct ebs_rec_mmap *m = (const void *)r;

		fprintf(out, " time %llu pid %u [0x%llx+0x%llx] pgoff 0x%llx ", ULL(m->time),
			m->pid, ULL(m->start), ULL(m->len), ULL(m->pgoff));
		ebs_fputs_clean(m->filename, out);
		if (m->hdr.misc & EBS_MMAP_SYNTHESIZED)
			fputs(" (synthesized)", out);
		break;
	}
	case EBS_REC_COMM: {
		const struct ebs_rec_comm *c = (const void *)r;

		fprintf(out, " time %llu pid %u tid %u ", ULL(c->time), c->pid, c->tid);
		ebs_fputs_clean(c->comm, out);
		if (c->hdr.misc & EBS_COMM_EXEC)
			fputs(" (exec)", out);
		break;
	}
	case EBS_REC_PROCNS: {
		const struct ebs_rec_procns *n = (const void *)r;

		fprintf(out, " time %llu pid %u mnt-ns %llu root %llu:%llu ", ULL(n->time), n->pid,
			ULL(n->mnt_ns), ULL(n->root_dev), ULL(n->root_ino));
		ebs_fputs_clean(n->root, out);
		fprintf(out, "%s%s%s", n->flags & EBS_PROCNS_MNT ? " (other mount namespace)" : "",
			n->flags & EBS_PROCNS_ROOT ? " (other root)" : "",
			n->flags ? "" : " (ebs's own)");
		break;
	}
	case EBS_REC_FORK:
	case EBS_REC_EXIT: {
		const struct ebs_rec_task *t = (const void *)r;

		fprintf(out, " time %llu pid %u ppid %u tid %u ptid %u", ULL(t->time), t->pid,
			t->ppid, t->tid, t->ptid);
		break;
	}
	case EBS_REC_LOST: {
		const struct ebs_rec_lost *l = (const void *)r;

		fprintf(out, " time %llu lost %llu cpu %u event %u", ULL(l->time), ULL(l->lost),
			l->cpu, l->event);
		break;
	}
	case EBS_REC_THROTTLE: {
		const struct ebs_rec_throttle *t = (const void *)r;

		fprintf(out, " time %llu cpu %u event %u%s", ULL(t->time), t->cpu, t->event,
			t->hdr.misc & EBS_THROTTLE_END ? " (unthrottle)" : "");
		break;
	}
	case EBS_REC_COUNT: {
		const struct ebs_rec_count *c = (const void *)r;

		fprintf(out, " time %llu event %u value %llu enabled %llu running %llu",
			ULL(c->time), c->event, ULL(c->value), ULL(c->time_enabled),
			ULL(c->time_running));
		if (c->cpu != 0xffffffff)
			fprintf(out, " cpu %u", c->cpu);
		if (c->tid)
			fprintf(out, " tid %u", c->tid);
		break;
	}
	case EBS_REC_KSYMS: {
		const struct ebs_rec_ksyms *k = (const void *)r;
		const struct ebs_ksym *sy = (const void *)(k + 1);
		const char *str = (const char *)(sy + k->nr);
		u32 i;

		fprintf(out, " symbols %u stext 0x%llx", k->nr, ULL(k->stext));
		for (i = 0; i < k->nr; i++) { /* checked by the reader: inside the record */
			fprintf(out, "\n    %llx-%llx ", ULL(sy[i].start), ULL(sy[i].end));
			ebs_fputs_clean(str + sy[i].name, out);
			if (sy[i].module) {
				fputc(' ', out);
				ebs_fputs_clean(str + sy[i].module, out);
			}
		}
		break;
	}
	default:
		break;
	}
	fputc('\n', out);
}

int ebs_data__dump(const char *input, unsigned int flags, FILE *out, ebs_warn_fn *warn,
		   void *warn_ctx, struct ebs_error *err)
{
	const struct ebs_rec_trailer *t;
	const struct ebs_rec *r;
	struct ebs_data *d;
	unsigned int i;
	int e;

	d = ebs_data__open_flags(input, EBS_DATA_UNFINISHED | (flags & EBS_DATA_ANY_OWNER), err);
	if (!d)
		return err->err;
	dump_header(d, out);
	while ((e = ebs_data__next(d, &r, err)) > 0)
		dump_record(d, r, out);
	if (e == 0 && ebs_data__unfinished(d)) {
		/* no TRAILER: where the records stop instead */
		fprintf(out, "# no TRAILER: %s\n", ebs_data__unfinished(d));
		ebs_warn(warn, warn_ctx, EBS_E_TRUNCATED, "warning: %s", ebs_data__unfinished(d));
	} else if (e == 0) {
		t = ebs_data__trailer(d);
		fprintf(out,
			"%llu TRAILER records %llu samples %llu lost %llu throttled %llu exit %d\n",
			ULL(ebs_data__offset(d, t)), ULL(t->nr_records), ULL(t->samples),
			ULL(t->lost), ULL(t->throttled), t->exit_status);
		for (i = 0; i < t->nr_events; i++) {
			const struct ebs_event_counts *c = ebs_data__counts(d, i);

			fprintf(out,
				"# event %u: samples %llu lost %llu throttled %llu period-sum %llu\n",
				i, ULL(c->samples), ULL(c->lost), ULL(c->throttled),
				ULL(c->period_sum));
		}
	}
	ebs_data__close(d);
	return e < 0 ? e : 0;
}
