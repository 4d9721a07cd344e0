// SPDX-License-Identifier: MIT
/*
 * session.c - the data file, the mapping history and the symbolizer, and
 * the pass over the samples that report and annotate both make.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/present.h"
#include "report/session/session.h"

static int keep_count(struct session_input *in, const struct ebs_rec *rec)
{
	struct ebs_rec_count *v = realloc(in->counts, (in->ncounts + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	in->counts = v;
	memcpy(&v[in->ncounts++], rec, sizeof(*v));
	return 0;
}

/*
 * The recording's own kernel symbols (KSYMS), when it has them, for the
 * symbolizer: each recording's own, so that two hosts' kernels (two boots'
 * KASLR) each resolve their own addresses.
 */
static int use_kernel_symbols(struct session *rs, struct session_input *in)
{
	const struct ebs_rec_ksyms *k = ebs_data__ksyms(in->d);
	const struct ebs_ksym *sy;
	const char *str;
	struct sym_ksym *v;
	u32 i;
	int e;

	if (!k)
		return 0;
	sy = (const void *)(k + 1);
	str = (const char *)(sy + k->nr); /* the reader checked every offset */
	v = calloc(k->nr ? k->nr : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < k->nr; i++) {
		v[i].start = sy[i].start;
		v[i].end = sy[i].end;
		v[i].name = str + sy[i].name;
		v[i].dso = sy[i].module ? str + sy[i].module : "[kernel]";
		v[i].global = sy[i].flags & EBS_KSYM_GLOBAL;
	}
	e = symbolizer__add_kernel_symbols(rs->sym, v, k->nr, k->stext, &in->kernel);
	free(v);
	return e;
}

/*
 * Some of the user-space samples, for symbolizer__prefetch: every stride-th
 * of them, the stride doubling (and every other hint kept) whenever
 * MAX_HINTS are held, so that a file of any size gives a spread of them.
 */
#define MAX_HINTS 32768

struct hint {
	u64 map; /* the machine_map's address, once found: the sort key */
	u64 ip, time;
	u32 pid;
	u32 input; /* the recording's index */
};

struct hints {
	struct hint *v;
	size_t n;
	u64 seen, stride;
};

static int hint_add(struct hints *h, const struct ebs_rec *rec, u32 input)
{
	const struct ebs_rec_sample *s = (const void *)rec;
	u16 mode = rec->misc & EBS_CPUMODE_MASK;
	size_t i;

	if (mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL || h->seen++ % h->stride)
		return 0;
	if (!h->v) {
		h->v = malloc(MAX_HINTS * sizeof(*h->v));
		if (!h->v)
			return -ENOMEM;
	}
	if (h->n == MAX_HINTS) {
		for (i = 0; i < MAX_HINTS / 2; i++)
			h->v[i] = h->v[2 * i];
		h->n = MAX_HINTS / 2;
		h->stride *= 2;
	}
	h->v[h->n++] = (struct hint){0, s->ip, s->time, s->pid, input};
	return 0;
}

static int hint_cmp(const void *pa, const void *pb)
{
	const struct hint *a = pa, *b = pb;

	return a->map < b->map ? -1 : a->map > b->map;
}

/* Read the DWARF the pass will want, on all CPUs, before it (symbolizer__prefetch). */
static int prefetch(struct session *rs, struct hints *h)
{
	struct sym_prefetch *v;
	size_t i, j, n = 0;
	u64 *addrs;
	int e;

	for (i = 0; i < h->n; i++) {
		struct machine_map *map = machine__find_map(rs->in[h->v[i].input].m, h->v[i].pid,
							    h->v[i].ip, h->v[i].time);

		h->v[i].map = (uintptr_t)map;
	}
	qsort(h->v, h->n, sizeof(*h->v), hint_cmp);
	addrs = malloc((h->n ? h->n : 1) * sizeof(*addrs));
	v = malloc((h->n ? h->n : 1) * sizeof(*v));
	if (!addrs || !v) {
		free(addrs);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < h->n; i = j) {
		struct machine_map *map = (void *)(uintptr_t)h->v[i].map;

		for (j = i; j < h->n && h->v[j].map == h->v[i].map; j++)
			addrs[j] = h->v[j].ip;
		if (map)
			v[n++] = (struct sym_prefetch){&map->sym, &map->ent, addrs + i, j - i};
	}
	e = symbolizer__prefetch(rs->sym, v, n);
	free(addrs);
	free(v);
	return e;
}

static int resolve_funcs(struct session *rs, const char *list, FILE *out, struct ebs_error *err);

/*
 * The symbolizer of so, its build-id directories (symbolize.h) led by the
 * directories the recordings read from archives were extracted into (the
 * files of the machines that recorded them: ebs archive), and followed by
 * --symfs DIR's: an archive extracted by tar is read with --symfs DIR.
 */
static struct symbolizer *new_symbolizer(const struct session_input *in, size_t nin,
					 const struct symbolize_opts *so)
{
	struct symbolize_opts o = *so;
	struct symbolizer *s;
	const char **v;
	size_t n = 0, i, k = 0;

	for (i = 0; i < nin; i++)
		if (ebs_data__archive_notice(in[i].d))
			ebs_warn(so->warn, so->warn_ctx, EBS_E_OK, "%s",
				 ebs_data__archive_notice(in[i].d));
	while (so->buildid_dirs && so->buildid_dirs[n])
		n++;
	v = calloc(nin + n + 2, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < nin; i++)
		if (ebs_data__buildid_dir(in[i].d))
			v[k++] = ebs_data__buildid_dir(in[i].d);
	for (i = 0; i < n; i++)
		v[k++] = so->buildid_dirs[i];
	if (so->symfs)
		v[k++] = so->symfs;
	o.buildid_dirs = k ? v : so->buildid_dirs;
	s = symbolizer__new(&o); /* which copies them */
	free(v);
	return s;
}

/* The session's index of event i of in's file, a new one when its name is new. */
static int merge_event(struct session *rs, struct session_input *in, unsigned int i,
		       struct ebs_error *err)
{
	const struct ebs_event_info *info = ebs_data__event(in->d, i);
	unsigned int j;

	for (j = 0; j < rs->nevents && strcmp(rs->events[j]->used, info->used); j++)
		;
	if (j == rs->nevents) {
		if (rs->nevents == EBS_MAX_EVENTS)
			return ebs_error__set(err, E2BIG,
					      "%s: more than %d events in these recordings",
					      ebs_data__path(in->d), EBS_MAX_EVENTS);
		rs->events[rs->nevents++] = info;
	}
	in->evmap[i] = (u16)j;
	return 0;
}

/* in's start and span (session__span) of its samples' first and last times. */
static void set_span(struct session_input *in, u64 first, u64 last)
{
	const struct ebs_rec_trailer *t = ebs_data__trailer(in->d);
	u64 hs = ebs_data__header(in->d)->start_clock_ns, end = t ? t->end_clock_ns : 0;

	in->start = hs && (!in->samples || hs <= first) ? hs : first;
	if (in->samples && last > end)
		end = last;
	if (end < in->start)
		end = in->start;
	in->span = end - in->start + (end - in->start < UINT64_MAX); /* a hostile file's 2^64 */
}

/* Open the idx-th recording and read its processes, mappings and counts (the first pass). */
static int open_one(struct session *rs, size_t idx, size_t n, const char *input, bool any_owner,
		    const struct symbolize_opts *so, struct hints *hints, bool hinted,
		    struct ebs_error *err)
{
	struct session_input *in = &rs->in[idx];
	const struct ebs_rec_dso_image *vdso;
	const struct ebs_rec *rec;
	const char *host;
	u64 first = 0, last = 0; /* the samples' earliest and latest times */
	unsigned int i;
	int e;

	(void)any_owner; /* in->d opened by session__open_many, before the symbolizer */
	in->m = machine__new_sharing(idx ? rs->in[0].m : NULL);
	host = ebs_data__meta(in->d, EBS_META_HOSTNAME);
	in->has_host = host && *host;
	in->host = ebs_strset__intern_clean(&rs->names, in->has_host ? host : "unknown");
	if (!in->m || !in->host)
		return ebs_error__set(err, ENOMEM, "out of memory");
	for (i = 0; i < ebs_data__nr_events(in->d); i++) {
		e = merge_event(rs, in, i, err);
		if (e)
			return e;
	}
	/* --event: the first recording that has it names it (one alone must have it) */
	if (rs->filter && rs->filter->event && rs->event < 0) {
		int ev = ebs_data__find_event(in->d, rs->filter->event);

		if (ev >= 0)
			rs->event = in->evmap[ev];
		else if (n == 1)
			return ebs_error__set(err, ENOENT, "%s: no event '%s' in this file", input,
					      rs->filter->event);
	}
	while ((e = ebs_data__next(in->d, &rec, err)) > 0) {
		if (rec->type == EBS_REC_SAMPLE) {
			u64 t = ((const struct ebs_rec_sample *)(const void *)rec)->time;

			first = in->samples++ && first < t ? first : t;
			last = last > t ? last : t;
		}
		if (machine__add(in->m, rec) ||
		    (rec->type == EBS_REC_COUNT && keep_count(in, rec)) ||
		    (hinted && rec->type == EBS_REC_SAMPLE && hint_add(hints, rec, (u32)idx)))
			return ebs_error__set(err, ENOMEM, "out of memory");
	}
	if (e < 0)
		return e;
	set_span(in, first, last);
	if (rs->filter && rs->filter->ntimes) {
		in->times = malloc(2 * rs->filter->ntimes * sizeof(*in->times));
		if (!in->times)
			return ebs_error__set(err, ENOMEM, "out of memory");
		in->ntimes = rs->filter->ntimes;
		session__time_ranges(rs->filter->times, in->ntimes, in->span, in->times);
	}
	rs->samples += in->samples;
	if (use_kernel_symbols(rs, in))
		return ebs_error__set(err, ENOMEM, "out of memory");
	/* read up to its last whole record: say that the profile is partial */
	if (ebs_data__unfinished(in->d))
		ebs_warn(so->warn, so->warn_ctx, EBS_E_TRUNCATED, "warning: %s",
			 ebs_data__unfinished(in->d));
	vdso = ebs_data__dso_image(in->d, "[vdso]");
	if (vdso)
		machine__set_image(in->m, "[vdso]", vdso->image, vdso->image_size);
	return 0;
}

/* Make the idx-th recording the one read (its processes, its kernel). */
static void select_input(struct session *rs, size_t idx)
{
	struct session_input *in = &rs->in[idx];

	rs->in[rs->cur].stext = rs->stext;
	rs->in[rs->cur].stext_known = rs->stext_known;
	rs->cur = idx;
	rs->d = in->d;
	rs->m = in->m;
	rs->stext = in->stext;
	rs->stext_known = in->stext_known;
	symbolizer__use_kernel(rs->sym, in->kernel);
}

/* How recording in samples event ev (its own index), in words. */
static void rate_words(const struct ebs_event_info *info, char *buf, size_t len)
{
	const struct ebs_rec_event *e = info->rec;

	if (e->flags & EBS_EVF_FREQ)
		snprintf(buf, len, "%llu Hz", (unsigned long long)e->sample_freq);
	else
		snprintf(buf, len, "every %llu events", (unsigned long long)e->sample_period);
}

/*
 * Several recordings: each one's name beside a pid (its host, or "host#N"
 * when another shares it), how many hosts, and a warning for an event
 * sampled at different rates (rows count samples: a recording at a higher
 * rate weighs more, as it would in one recording).
 */
static int settle_inputs(struct session *rs, const struct symbolize_opts *so)
{
	size_t i, j;
	unsigned int ev, k;

	for (i = 0; i < rs->nin; i++) {
		bool shared = false, first = true;
		char buf[600];

		for (j = 0; j < rs->nin; j++)
			if (j != i && rs->in[j].host == rs->in[i].host) {
				shared = true;
				first = first && j > i;
			}
		rs->nhosts += first;
		snprintf(buf, sizeof(buf), "%s#%zu", rs->in[i].host, i + 1);
		rs->in[i].label = shared ? ebs_strset__intern(&rs->names, buf) : rs->in[i].host;
		if (!rs->in[i].label)
			return -ENOMEM;
	}
	for (ev = 0; ev < rs->nevents && rs->nin > 1; ev++) {
		const struct ebs_event_info *one = NULL;
		char a[64], b[64];

		for (i = 0; i < rs->nin; i++)
			for (k = 0; k < ebs_data__nr_events(rs->in[i].d); k++) {
				const struct ebs_event_info *info = ebs_data__event(rs->in[i].d, k);

				if (rs->in[i].evmap[k] != ev)
					continue;
				if (!one) {
					one = info;
					j = i;
					continue;
				}
				rate_words(one, a, sizeof(a));
				rate_words(info, b, sizeof(b));
				if (strcmp(a, b)) {
					ebs_warn(so->warn, so->warn_ctx, EBS_E_OK,
						 "warning: %s is sampled at %s in %s but at %s in "
						 "%s: rows count samples, so each recording weighs "
						 "by its rate",
						 info->used, a, ebs_data__path(rs->in[j].d), b,
						 ebs_data__path(rs->in[i].d));
					i = rs->nin - 1; /* one warning per event */
					break;
				}
			}
	}
	return 0;
}

int session__open(struct session *rs, const char *input, bool any_owner,
		  const struct symbolize_opts *so, const struct report_filter *filter,
		  struct ebs_error *err)
{
	return session__open_many(rs, &input, 1, any_owner, so, filter, err);
}

int session__open_view(struct session *rs, const struct view_opts *v,
		       const struct symbolize_opts *so, struct ebs_error *err)
{
	if (v->inputs && v->ninputs > 1)
		return session__open_many(rs, v->inputs, v->ninputs, v->force, so, &v->filter, err);
	return session__open(rs, v->input, v->force, so, &v->filter, err);
}

/*
 * One file given twice (by one name or two: one device and inode): its
 * samples would count twice, and the intervals narrow as if it were twice
 * the evidence.  A copy is another recording (compare a run with itself).
 */
static int one_file_twice(const char *const *inputs, size_t n, struct ebs_error *err)
{
	struct stat a, b;
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(inputs[i], "-") && strcmp(inputs[j], "-") &&
			    !stat(inputs[i], &a) && !stat(inputs[j], &b) && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino)
				return ebs_error__set(
					err, EINVAL,
					"%s%s%s: one file given twice: its samples "
					"would count twice (a copy would not)",
					inputs[j], strcmp(inputs[i], inputs[j]) ? " and " : "",
					strcmp(inputs[i], inputs[j]) ? inputs[i] : "");
	return 0;
}

int session__open_many(struct session *rs, const char *const *inputs, size_t n, bool any_owner,
		       const struct symbolize_opts *so, const struct report_filter *filter,
		       struct ebs_error *err)
{
	struct hints hints = {.stride = 16};
	struct kallsyms_preload *kpre = NULL;
	bool hinted;
	size_t i, stdin_n = 0;
	int e;

	memset(rs, 0, sizeof(*rs));
	e = one_file_twice(inputs, n, err);
	if (e)
		return e;
	rs->filter = filter;
	rs->event = -1;
	rs->no_memo = getenv("EBS_DEBUG_NO_MEMO") != NULL;
	for (i = 0; i < n; i++)
		stdin_n += !strcmp(inputs[i], "-");
	if (stdin_n > 1)
		return ebs_error__set(err, EINVAL, "-: standard input can be read only once");
	rs->in = calloc(n, sizeof(*rs->in));
	if (!rs->in) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	/*
	 * A perf.data holds no kernel symbols: /proc/kallsyms is read on
	 * another thread meanwhile (unless --kallsyms names a file).
	 */
	for (i = 0; !so->kallsyms && !kpre && i < n; i++)
		if (strcmp(inputs[i], "-") && ebs_data__looks_perf(inputs[i]))
			kpre = kallsyms_preload__start();
	/* the files first: the symbolizer searches what archives among them hold */
	for (i = 0; i < n; i++) {
		rs->in[i].d = ebs_data__open_flags(
			inputs[i], EBS_DATA_UNFINISHED | (any_owner ? EBS_DATA_ANY_OWNER : 0), err);
		rs->nin = i + 1;
		if (!rs->in[i].d) {
			e = err->err;
			goto fail;
		}
	}
	rs->sym = new_symbolizer(rs->in, n, so);
	if (rs->sym && kpre) {
		symbolizer__adopt_kernel(rs->sym, kpre);
		kpre = NULL;
	}
	if (!rs->sym || (n > 1 && symbolizer__share_kernel_names(rs->sym))) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	/* EBS_DEBUG_NO_PREFETCH: every file read as the pass meets it, for tests */
	hinted = !so->no_dwarf && !getenv("EBS_DEBUG_NO_PREFETCH");
	for (i = 0; i < n; i++) {
		e = open_one(rs, i, n, inputs[i], any_owner, so, &hints, hinted, err);
		if (e)
			goto fail;
	}
	rs->d = rs->in[0].d;
	rs->m = rs->in[0].m;
	rs->counts = rs->in[0].counts;
	rs->ncounts = rs->in[0].ncounts;
	if (filter && filter->event && rs->event < 0) {
		e = ebs_error__set(err, ENOENT, "no event '%s' in any of the %zu recordings",
				   filter->event, n);
		goto fail;
	}
	if (settle_inputs(rs, so)) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	select_input(rs, 0);
	if (hints.n && prefetch(rs, &hints)) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	free(hints.v);
	hints.v = NULL;
	/* what --func names, among the functions the samples have */
	if (filter && filter->funcs) {
		e = resolve_funcs(rs, filter->funcs, filter->candidates, err);
		if (e)
			goto fail;
	}
	return 0;

fail:
	kallsyms_preload__free(kpre);
	free(hints.v);
	session__close(rs);
	return e;
}

unsigned int session__nr_events(const struct session *rs)
{
	return rs->nevents;
}

const struct ebs_event_info *session__event(const struct session *rs, unsigned int i)
{
	return i < rs->nevents ? rs->events[i] : NULL;
}

const char *session__call_graph(const struct session *rs)
{
	const char *mode = NULL;
	size_t i;

	for (i = 0; i < rs->nin && !mode; i++)
		mode = ebs_data__meta(rs->in[i].d, EBS_META_CALL_GRAPH);
	return mode;
}

/* n with a comma every three digits, as the header shows counts */
static void grouped(char *buf, size_t len, u64 n)
{
	char digits[32];
	size_t nd, i, o = 0;

	nd = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

void session__inputs_line(const struct session *rs, char *buf, size_t len)
{
	char num[40];
	size_t i, o;

	buf[0] = '\0';
	if (rs->nin < 2)
		return;
	o = (size_t)snprintf(buf, len, "%zu recordings from %u host%s (", rs->nin, rs->nhosts,
			     rs->nhosts == 1 ? "" : "s");
	for (i = 0; i < rs->nin && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s: %s", i ? ", " : "",
				      ebs_data__path(rs->in[i].d), rs->in[i].label);
	grouped(num, sizeof(num), rs->samples);
	if (o < len)
		snprintf(buf + o, len - o, "), %s samples", num);
	ebs_clean_text(buf, false); /* the paths given, shown */
}

void session__symbolize_opts(struct symbolize_opts *so, const struct view_opts *v)
{
	so->kallsyms = v->kallsyms;
	so->debug_dirs = v->debug_dirs;
	so->symfs = v->symfs;
	so->buildid_dirs = v->buildid_dirs;
	so->offline = v->offline;
	so->demangle = !v->no_demangle;
	so->cache = !v->no_cache;
	so->warn = v->warn;
	so->warn_ctx = v->warn_ctx;
	so->progress = v->progress;
	so->progress_ctx = v->progress_ctx;
}

void session__close(struct session *rs)
{
	size_t i;

	if (!rs)
		return;
	for (i = 0; i < rs->nfuncs; i++)
		name_query__free(&rs->funcs[i]);
	free(rs->funcs);
	symbolizer__free(rs->sym);
	for (i = rs->nin; i-- > 0;) { /* the first holds the others' strings */
		machine__free(rs->in[i].m);
		ebs_data__close(rs->in[i].d);
		free(rs->in[i].counts);
		free(rs->in[i].times);
	}
	free(rs->in);
	ebs_strset__free(&rs->names);
	memset(rs, 0, sizeof(*rs));
}

/* Does name match a DSO filter: its short name or its path as mapped? */
static bool dso_match(const char *want, const struct sym_result *res)
{
	return (res->dso && !strcmp(want, res->dso)) ||
	       (res->dso_path && !strcmp(want, res->dso_path));
}

/*
 * A name without parameters matches the demangled C++ names that add
 * them ("ns::f" is "ns::f(int)"), and a C function's name matches gcc's
 * clones of it ("f" is "f.constprop.0", "f.isra.0", "f.part.0", "f.cold").
 */
bool session__name_is(const char *want, size_t len, const char *name)
{
	return name && !strncmp(want, name, len) &&
	       (name[len] == '\0' || name[len] == '(' || name[len] == '.');
}

/* Is name one that --func names (rs->funcs, resolved)? */
static bool name_in(const struct session *rs, const char *name)
{
	size_t i;

	for (i = 0; name && i < rs->nfuncs; i++)
		if (name_query__match(&rs->funcs[i], name))
			return true;
	return false;
}

/* Does the sample's function, or a function inlined at it, match the --func list? */
static bool func_match(const struct session *rs, const struct sym_result *res)
{
	unsigned int i;

	if (name_in(rs, res->function))
		return true;
	for (i = 0; i < res->nr_frames; i++)
		if (name_in(rs, res->frames[i].function))
			return true;
	return false;
}

/* --func's names (comma-separated, brackets kept whole) resolved into rs->funcs. */
static int resolve_funcs(struct session *rs, const char *list, FILE *out, struct ebs_error *err)
{
	struct name_cand *c;
	const char *p;
	size_t n, items = 0;
	u64 samples;
	int e;

	for (p = list; *p; p += names_item(p) + (p[names_item(p)] == ','))
		items++;
	rs->funcs = calloc(items + 1, sizeof(*rs->funcs));
	if (!rs->funcs)
		return ebs_error__set(err, ENOMEM, "out of memory");
	e = session__tally_names(rs, &c, &n, &samples, err);
	for (p = list; !e && *p; p += names_item(p) + (p[names_item(p)] == ',')) {
		struct name_query *q = &rs->funcs[rs->nfuncs++];

		q->want = p;
		q->len = names_item(p);
		e = name_query__resolve(q, c, n, samples, out, out ? present_width(out, 0) : 0,
					ebs_data__path(rs->d), err);
	}
	free(c);
	return e;
}

/* Is time t in one of in's --time ranges? */
static bool in_time(const struct session_input *in, u64 t)
{
	u64 rel = t < in->start ? 0 : t - in->start;
	size_t i;

	for (i = 0; i < in->ntimes; i++)
		if (rel >= in->times[2 * i] && rel < in->times[2 * i + 1])
			return true;
	return false;
}

/* session__each's pass over one recording. */
static int each_of(struct session *rs, int (*fn)(void *ctx, const struct resolved *r), void *ctx,
		   u64 *seq, struct ebs_error *err)
{
	const struct report_filter *f = rs->filter;
	const struct session_input *in = &rs->in[rs->cur];
	const struct ebs_rec *rec;
	int e;

	ebs_data__rewind(rs->d);
	while ((e = ebs_data__next(rs->d, &rec, err)) > 0) {
		const struct ebs_rec_sample *s = (const void *)rec;
		u16 mode = rec->misc & EBS_CPUMODE_MASK;
		struct resolved r;

		if (rec->type != EBS_REC_SAMPLE)
			continue;
		(*seq)++;
		if (rs->event >= 0 && in->evmap[s->event] != rs->event)
			continue;
		if ((f && (f->npids || f->ntids) && !session__ids_pass(f, s->pid, s->tid)) ||
		    (in->ntimes && !in_time(in, s->time)))
			continue;
		memset(&r, 0, sizeof(r));
		r.s = s;
		r.seq = *seq - 1;
		r.input = (unsigned int)rs->cur;
		r.event = in->evmap[s->event];
		r.comm = machine__comm(rs->m, s->pid, s->tid, s->time);
		if (!r.comm)
			return ebs_error__set(err, ENOMEM, "out of memory");
		r.ns = machine__ns(rs->m, s->pid, s->time);
		/* the very text a report shows: every shown name selects its samples */
		if (f && f->comm && strcmp(r.comm, f->comm))
			continue;
		if (mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL) {
			symbolizer__lookup_kernel(rs->sym, s->ip, &r.res);
		} else {
			struct machine_map *map = machine__find_map(rs->m, s->pid, s->ip, s->time);

			r.map = map;
			if (map && symbolizer__lookup_memo(rs->sym, &map->sym, &map->ent, s->ip,
							   &r.res) == -ENOMEM)
				return ebs_error__set(err, ENOMEM, "out of memory");
		}
		if (f && f->dso && !dso_match(f->dso, &r.res))
			continue;
		if (f && f->funcs && !rs->tallying && !func_match(rs, &r.res))
			continue;
		e = fn(ctx, &r);
		if (e)
			return e < 0 ? ebs_error__set(err, -e, "%s", strerror(-e)) : e;
	}
	return e;
}

int session__each(struct session *rs, int (*fn)(void *ctx, const struct resolved *r), void *ctx,
		  struct ebs_error *err)
{
	u64 seq = 0;
	size_t i;
	int e = 0;

	/* the recordings in the order given, as one: seq counts on across them */
	for (i = 0; i < rs->nin && !e; i++) {
		select_input(rs, i);
		e = each_of(rs, fn, ctx, &seq, err);
	}
	select_input(rs, 0);
	/* files that are not the ones recorded: how many samples they left unresolved */
	if (!rs->tallying && !e)
		symbolizer__warn_unresolved(rs->sym);
	return e;
}

unsigned int session__ns_procs(const struct session *rs)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < rs->nin; i++)
		n += machine__ns_procs(rs->in[i].m);
	return n;
}

u64 session__kernel_at(struct session *rs, u64 addr)
{
	if (!rs->stext_known)
		rs->stext_known =
			symbolizer__kernel_stext(rs->sym, &rs->stext) == 0 && rs->stext ? 1 : -1;
	return rs->stext_known > 0 ? addr - rs->stext : 0;
}

/* Is res (of addr) the kernel's?  x86-64's kernel is the upper half. */
static bool is_kernel(const struct sym_result *res, u64 addr)
{
	return (!res->info && res->dso && !strcmp(res->dso, "[kernel]")) || addr >> 63;
}

int session__unknown_at(struct session *rs, const struct sym_result *res,
			const struct machine_map *map, u64 addr, u64 look, u64 *at)
{
	u64 start, end;
	int e = -ENOENT;

	if (is_kernel(res, addr)) {
		*at = session__kernel_at(rs, addr);
		return 0;
	}
	/* res is look's; a caller's return address is shown as recorded, as perf does */
	*at = res->dso ? res->dso_addr + (addr - look) : addr;
	/* one name per function, as its CFI (an FDE) bounds it */
	if (res->dso && map)
		e = symbolizer__cfi_function(rs->sym, &map->sym, look, &start, &end);
	if (e == -ENOMEM)
		return e;
	if (!e)
		*at -= addr - start;
	return 0;
}

void session__unknown_name(char *buf, size_t len, const char *dso, u64 at)
{
	if (dso && !strcmp(dso, "[kernel]") && !at)
		snprintf(buf, len, "[unknown] [kernel]");
	else if (dso && !strcmp(dso, "[kernel]") && at >> 63)
		snprintf(buf, len, "[unknown] [kernel]-0x%llx", (unsigned long long)-at);
	else if (dso)
		snprintf(buf, len, "[unknown] %s+0x%llx", dso, (unsigned long long)at);
	else
		snprintf(buf, len, "[unknown] 0x%llx", (unsigned long long)at);
}
