// SPDX-License-Identifier: MIT
/*
 * facts.c - the numbers an ebs report table's header gives (facts.h): lost
 * and throttled samples, the counters' count, the estimate of the event's
 * total and why it is approximate.
 */
#include <stdlib.h>
#include <string.h>

#include "report/facts.h"
#include "util/hash.h"

/*
 * Samples of event ev (d's own index) the kernel dropped: its own, plus the
 * losses of full rings, which all the events of a CPU share (LOST records
 * of no event).
 */
static u64 lost_in(const struct ebs_data *d, int ev)
{
	const struct ebs_rec_trailer *t = ebs_data__totals(d);
	u64 attributed = 0;
	unsigned int i, nev = ebs_data__nr_events(d);

	if (!t)
		return 0;
	if (ev < 0)
		return t->lost;
	for (i = 0; i < nev; i++)
		attributed += ebs_data__counts(d, i)->lost;
	return ebs_data__counts(d, ev)->lost + (t->lost > attributed ? t->lost - attributed : 0);
}

static u64 throttled_in(const struct ebs_data *d, int ev)
{
	const struct ebs_rec_trailer *t = ebs_data__totals(d);

	if (!t)
		return 0;
	return ev < 0 ? t->throttled : ebs_data__counts(d, ev)->throttled;
}

/* The session's event ev (-1: all), summed over its recordings by fn of each one's own. */
static u64 sum_of(const struct session *rs, int ev, u64 (*fn)(const struct ebs_data *, int))
{
	u64 sum = 0;
	unsigned int k;
	size_t i;

	for (i = 0; i < rs->nin; i++) {
		const struct session_input *in = &rs->in[i];

		if (ev < 0)
			sum += fn(in->d, -1);
		for (k = 0; ev >= 0 && k < ebs_data__nr_events(in->d); k++)
			if (in->evmap[k] == ev)
				sum += fn(in->d, (int)k);
	}
	return sum;
}

/* The counters of one target thread, one per CPU. */
struct cnt_thread {
	UT_hash_handle hh;
	u32 tid;
	struct count_thread th;
};

/* Does event ev's group (the events of its EVENT record's group) hold a PMU event? */
static bool group_on_pmu(const struct ebs_data *d, unsigned int ev)
{
	u16 group = ebs_data__event(d, ev)->rec->group;
	unsigned int i;

	for (i = 0; i < ebs_data__nr_events(d); i++) {
		const struct ebs_rec_event *e = ebs_data__event(d, i)->rec;

		if (e->group == group && count_event_on_pmu(e->type, e->config, e->config1))
			return true;
	}
	return false;
}

/*
 * The event's COUNT records, one per counter, as count/rule.h counts them:
 * a target thread's counters (one per CPU) as one, a system-wide counter
 * (tid 0) alone; each recording's threads apart.
 */
static struct count_total counted_of(const struct session *rs, int ev)
{
	struct cnt_thread *threads = NULL, *t, *tmp;
	struct count_total c = {0};
	unsigned int k;
	bool pmu, has, partial = false;
	size_t i, n;

	if (ev < 0)
		return c;
	for (n = 0; n < rs->nin; n++) {
		const struct session_input *in = &rs->in[n];

		for (k = 0; k < ebs_data__nr_events(in->d) && in->evmap[k] != ev; k++)
			;
		if (k == ebs_data__nr_events(in->d))
			continue; /* not in this recording */
		pmu = group_on_pmu(in->d, k);
		for (i = 0, has = false; i < in->ncounts; i++) {
			const struct ebs_rec_count *cr = &in->counts[i];

			if (cr->event >= ebs_data__nr_events(in->d) || in->evmap[cr->event] != ev)
				continue;
			has = true;
			if (cr->tid) {
				HASH_FIND(hh, threads, &cr->tid, sizeof(cr->tid), t);
				if (!t && (t = calloc(1, sizeof(*t)))) {
					t->tid = cr->tid;
					HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
					if (!t->hh.tbl) { /* out of memory: counted alone */
						free(t);
						t = NULL;
					}
				}
				if (t) {
					count_thread_add(&t->th, cr->value, cr->time_enabled,
							 cr->time_running);
					continue;
				}
			}
			count_total__add(&c, pmu, cr->value, cr->time_enabled, cr->time_running);
		}
		HASH_ITER(hh, threads, t, tmp) {
			count_thread_end(&c, pmu, &t->th);
			HASH_DEL(threads, t);
			free(t);
		}
		partial = partial || !has;
	}
	if (partial) /* a sum of some of the recordings is no total: none */
		memset(&c, 0, sizeof(c));
	return c;
}

/* Append to buf (of len bytes, n of them used) as snprintf would, never past its end. */
#define ADD(buf, len, n, ...)                                                                      \
	do {                                                                                       \
		if ((n) < (len))                                                                   \
			(n) += (size_t)snprintf((buf) + (n), (len) - (n), __VA_ARGS__);            \
	} while (0)

/*
 * Why the estimate (the sum of the table's samples' periods: samples x N
 * with -c) is only approximate; "" when it is not.
 */
static void estimate_why(const struct facts *fa, char *why, size_t len)
{
	const struct count_total *c = &fa->counted;
	size_t n = 0;

	why[0] = '\0';
	if (fa->lost)
		ADD(why, len, n, "%llu lost samples are not in it", (unsigned long long)fa->lost);
	if (fa->throttled)
		ADD(why, len, n, "%s%llu throttle events: samples were withheld", n ? "; " : "",
		    (unsigned long long)fa->throttled);
	if (c->multiplexed)
		ADD(why, len, n,
		    "%smultiplexed: the counters ran %.1f%% of the time, and samples "
		    "only then",
		    n ? "; " : "", 100.0 * (double)c->running / (double)c->enabled);
	/*
	 * The counters' own total says how many events there were; samples
	 * standing for much less mean the kernel took fewer samples than the
	 * rate asks: throttling (kernel.perf_event_max_sample_rate,
	 * perf_cpu_time_max_percent), or a clock event's timer falling
	 * behind when an interrupt costs more than the period.  A timer's
	 * latency alone loses a few percent, hence a tenth; and each thread's
	 * last period is cut short, unsampled, which in a run of a few
	 * samples is more than a tenth: hence also ten periods at least.
	 */
	if (c->value && !fa->filtered && fa->events < c->scaled * 0.9 &&
	    (!fa->samples || c->scaled - fa->events > 10.0 * fa->events / fa->samples))
		ADD(why, len, n,
		    "%sthe samples stand for %.0f%% of the counted events: the kernel "
		    "took fewer samples than asked (throttled, or the interrupts cost more than the "
		    "period: a lower rate samples more evenly)",
		    n ? "; " : "", 100.0 * (double)fa->events / c->scaled);
}

static void filter_words(const struct report_filter *f, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return;
	n = session__filter_words(f, buf, len, n);
	if (f->comm)
		ADD(buf, len, n, "%scommand %s", n ? ", " : "", f->comm);
	if (f->dso)
		ADD(buf, len, n, "%sdso %s", n ? ", " : "", f->dso);
	if (f->funcs)
		ADD(buf, len, n, "%sfunction %s", n ? ", " : "", f->funcs);
	ebs_clean_text(buf, false); /* the command line's words, shown */
}

void facts_of(struct facts *fa, const struct session *rs, const struct report_filter *filter,
	      int ev, u64 samples, u64 period_sum)
{
	u64 own_lost = 0, sampled = 0;
	bool counted = false, several = false;
	unsigned int k;
	size_t i;

	memset(fa, 0, sizeof(*fa));
	fa->ev = ev;
	fa->samples = samples;
	fa->lost = sum_of(rs, ev, lost_in);
	fa->throttled = sum_of(rs, ev, throttled_in);
	fa->filtered = filter && (filter->npids || filter->ntids || filter->ntimes ||
				  filter->comm || filter->dso || filter->funcs);
	filter_words(filter, fa->only, sizeof(fa->only));
	if (ev < 0)
		return;
	for (i = 0; i < rs->nin; i++) {
		const struct session_input *in = &rs->in[i];

		several = several || ebs_data__nr_events(in->d) > 1;
		for (k = 0; k < ebs_data__nr_events(in->d); k++) {
			const struct ebs_event_counts *c = ebs_data__counts(in->d, k);

			if (in->evmap[k] != ev)
				continue;
			if (c) {
				counted = true;
				own_lost += c->lost;
				sampled += c->samples;
			}
			if (!fa->cal) /* how the first recording that has one chose N */
				fa->cal = ebs_data__calibration(in->d, k);
		}
	}
	fa->lost_shared = several && counted && fa->lost > own_lost;
	fa->info = session__event(rs, (unsigned int)ev);
	fa->counted = counted_of(rs, ev);
	fa->events = period_sum;
	estimate_why(fa, fa->why, sizeof(fa->why));
	/* the rate this recording achieved: samples per second of the counters' running time */
	if (fa->counted.running && counted) {
		fa->has_achieved = true;
		fa->achieved_hz = (double)sampled / ((double)fa->counted.running * 1e-9);
	}
}
