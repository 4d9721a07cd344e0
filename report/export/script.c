// SPDX-License-Identifier: MIT
/*
 * script.c - ebs script: every sample as one line of text, or one JSON
 * object, in time order, laid out as perf script lays them out: with a
 * call chain, the sample's line and then one line per frame, leaf first.
 *
 * Time order.  A file's records of one CPU are in time order, those of
 * different CPUs interleaved in batches (docs/format.md, section 7).  A
 * first pass keeps every sample's time, and then, from the end, the
 * earliest time of the samples from each one on (min_from): when the pass
 * that resolves the samples is at sample i, no sample still to come is
 * earlier than min_from[i], so what waits with a time up to it can go
 * out.  A sample that must wait for a later one has its output made into
 * memory and kept in a heap; in a file ebs record wrote, that is about one
 * read of another CPU's ring.  Ties keep the file's order.
 *
 * Resolution is the session's: each sample's address as report resolves
 * it (the symbolizer keeps every address it resolved, by address, in a
 * uthash), each chain as the chainer builds it for report's call graph.
 * What a line shows of an address (its "SYM+OFF (DSO) FILE:LINE") is
 * made once per address the symbolizer numbered (sym_result.id) and kept.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/callchain.h"
#include "util/json.h"

#define ULL(x) ((unsigned long long)(x))

/* in enum script_field's order */
static const char *const field_names[SCRIPT_MAX] = {
	"comm",	 "pid", "tid", "cpu",	 "time", "period",
	"event", "ip",	"sym", "symoff", "dso",	 "srcline",
};

/* The fields that show an address: with a call chain, on each frame's line. */
#define LOC_FIELDS                                                                                 \
	(1u << SCRIPT_IP | 1u << SCRIPT_SYM | 1u << SCRIPT_SYMOFF | 1u << SCRIPT_DSO |             \
	 1u << SCRIPT_SRCLINE)

int script_parse_fields(const char *text, unsigned int *fields, struct ebs_error *err)
{
	bool relative = *text == '+' || *text == '-';
	unsigned int set = relative ? SCRIPT_DEFAULT_FIELDS : 0, i;
	const char *p = text;

	for (;;) {
		char sign = *p == '+' || *p == '-' ? *p++ : 0;
		size_t len = strcspn(p, ",");

		if (!sign != !relative)
			return ebs_error__set(err, EINVAL,
					      "--fields '%s': either names, or +NAME and -NAME "
					      "(added to or taken from the default), not both",
					      text);
		for (i = 0; i < SCRIPT_MAX; i++)
			if (strlen(field_names[i]) == len && !strncmp(p, field_names[i], len))
				break;
		if (i == SCRIPT_MAX)
			return ebs_error__set(
				err, EINVAL,
				"--fields: unknown field '%.*s' (known: comm, pid, tid, "
				"cpu, time, period, event, ip, sym, symoff, dso, srcline)",
				(int)(len > 64 ? 64 : len), p);
		if (sign == '-')
			set &= ~(1u << i);
		else
			set |= 1u << i;
		p += len;
		if (!*p++)
			break;
	}
	if (!set)
		return ebs_error__set(err, EINVAL, "--fields '%s' leaves no field to show", text);
	*fields = set;
	return 0;
}

/* What a line shows of one address. */
struct loc {
	u64 ip;
	const char *sym; /* NULL: no function names the code */
	u64 off;	 /* ip less the symbol's start, when has_off */
	bool has_off;
	const char *dso;  /* path as mapped, or "[kernel]", "[vdso]"...; NULL: outside any */
	const char *file; /* the source file, as compiled; NULL: no line */
	u32 line;
	bool inlined; /* a chain's frame inlined into the next one */
};

/* A sample's output that waits for an earlier sample: its time, its number. */
struct pending {
	u64 time, seq;
	char *text;
	size_t len;
};

/*
 * What a text line shows of an address the symbolizer numbered, but its
 * ip: " SYM+OFF (DSO) FILE:LINE", as the fields ask.
 */
struct loc_memo {
	const char *dso_path; /* the result's: one id may be mapped under two paths */
	char *text;	      /* NULL: not made yet */
};

struct script {
	const struct script_opts *o;
	unsigned int fields;
	struct session rs;
	struct chainer *chains; /* NULL: no chains shown */
	FILE *out;
	int name_width;	 /* the longest event name's */
	u64 *min_from;	 /* [nsamples + 1]: the earliest time of the samples from i on */
	size_t nsamples; /* SAMPLE records in the file */
	struct pending *heap;
	size_t nheap, heap_cap;
	FILE *mem; /* output that must wait is made here first */
	char *mem_buf;
	size_t mem_size;
	struct loc_memo *memo; /* by sym_result.id */
	size_t memo_cap;
	int write_err; /* -errno of the output, once it failed */
};

static bool want(const struct script *sc, enum script_field f)
{
	return sc->fields & (1u << f);
}

/* s, its control characters as '?': a crafted name or path stays on its line. */
static void put_text(FILE *f, const char *s)
{
	ebs_fputs_clean(s, f);
}

static const char *src_name(const struct script *sc, const char *file)
{
	const char *base = strrchr(file, '/');

	return sc->o->full_source_path || !base ? file : base + 1;
}

static void loc_of_result(struct loc *l, const struct sym_result *res, u64 ip)
{
	memset(l, 0, sizeof(*l));
	l->ip = ip;
	l->sym = res->function;
	l->has_off = res->function != NULL;
	l->off = res->sym_offset;
	if (!l->sym && res->nr_frames) /* DWARF names code that no symbol covers */
		l->sym = res->frames[res->nr_frames - 1].function;
	l->dso = res->dso_path ? res->dso_path : res->dso;
	l->file = res->file;
	l->line = res->line;
}

/*
 * A frame's: with inlined frames, each at its own line (the compiled
 * function's at the call of the inlined code); else, as perf script's, at
 * the line of the code there.
 */
static void loc_of_frame(const struct script *sc, struct loc *l, const struct cframe *f)
{
	memset(l, 0, sizeof(*l));
	l->ip = f->addr;
	l->sym = f->unknown ? NULL : f->name;
	l->has_off = f->has_offset;
	l->off = f->sym_offset;
	l->dso = f->map ? f->map->filename : strcmp(f->dso, "[unknown]") ? f->dso : NULL;
	l->file = sc->o->inline_frames ? f->file : f->code_file;
	l->line = sc->o->inline_frames ? f->line : f->code_line;
	l->inlined = f->inlined;
}

/*
 * After the ip, as perf script prints a symbol: " SYM+OFF (DSO)", an
 * inlined function without its DSO and with " (inlined)" after it; then
 * ebs's " FILE:LINE" on the same line (perf's goes on a line of its own).
 */
static void loc_text(const struct script *sc, FILE *f, const struct loc *l)
{
	if (want(sc, SCRIPT_SYM)) {
		fputc(' ', f);
		put_text(f, l->sym ? l->sym : "[unknown]");
		if (want(sc, SCRIPT_SYMOFF) && l->sym && l->has_off)
			fprintf(f, "+0x%llx", ULL(l->off));
	}
	if (want(sc, SCRIPT_DSO) && !l->inlined) {
		fputs(" (", f);
		put_text(f, l->dso ? l->dso : "[unknown]");
		fputc(')', f);
	}
	if (want(sc, SCRIPT_SRCLINE) && l->file && l->line) {
		fputc(' ', f);
		put_text(f, src_name(sc, l->file));
		fprintf(f, ":%u", l->line);
	}
	if (l->inlined)
		fputs(" (inlined)", f);
}

/* loc_text of the sample's own address, made once per address: NULL when not kept. */
static const char *memo_text(struct script *sc, const struct resolved *r)
{
	const struct sym_result *res = &r->res;
	size_t had = sc->memo_cap, size;
	struct loc_memo *m;
	struct loc l;
	FILE *f;

	if (!res->id || sc->rs.no_memo)
		return NULL;
	while (res->id >= sc->memo_cap)
		if (ebs_grow((void **)&sc->memo, &sc->memo_cap, sc->memo_cap, sizeof(*sc->memo),
			     1024))
			return NULL; /* only slower */
	if (sc->memo_cap != had)
		memset(sc->memo + had, 0, (sc->memo_cap - had) * sizeof(*sc->memo));
	m = &sc->memo[res->id];
	if (m->text && m->dso_path == res->dso_path)
		return m->text;
	free(m->text);
	m->text = NULL;
	f = open_memstream(&m->text, &size);
	if (!f)
		return NULL;
	loc_of_result(&l, res, r->s->ip);
	loc_text(sc, f, &l);
	if (fclose(f)) {
		free(m->text);
		m->text = NULL;
		return NULL;
	}
	m->dso_path = res->dso_path;
	return m->text;
}

/* The sample's line, as perf script's: the fields that do not show an address. */
static void head_text(const struct script *sc, FILE *f, const struct resolved *r)
{
	const struct ebs_rec_sample *s = r->s;

	if (want(sc, SCRIPT_COMM)) {
		size_t len = strlen(r->comm);

		/* perf pads it to 16 columns, but not before a chain */
		if (!sc->chains && len < 16)
			fprintf(f, "%*s", (int)(16 - len), "");
		put_text(f, r->comm);
		fputc(' ', f);
	}
	if (want(sc, SCRIPT_PID) && want(sc, SCRIPT_TID))
		fprintf(f, "%5u/%-5u ", s->pid, s->tid);
	else if (want(sc, SCRIPT_PID) || want(sc, SCRIPT_TID))
		fprintf(f, "%5u ", want(sc, SCRIPT_PID) ? s->pid : s->tid);
	if (want(sc, SCRIPT_CPU))
		fprintf(f, "[%03u] ", s->cpu);
	if (want(sc, SCRIPT_TIME)) {
		if (sc->o->ns)
			fprintf(f, "%5llu.%09llu: ", ULL(s->time / 1000000000),
				ULL(s->time % 1000000000));
		else
			fprintf(f, "%5llu.%06llu: ", ULL(s->time / 1000000000),
				ULL(s->time % 1000000000 / 1000));
	}
	if (want(sc, SCRIPT_PERIOD))
		fprintf(f, "%10llu ", ULL(s->period));
	if (want(sc, SCRIPT_EVENT)) { /* right-aligned to the longest name, as perf's */
		const char *name = ebs_data__event(sc->rs.d, s->event)->used;
		size_t len = strlen(name);

		if (len < (size_t)sc->name_width)
			fprintf(f, "%*s", (int)((size_t)sc->name_width - len), "");
		put_text(f, name);
		fputs(": ", f);
	}
}

/* A sample as text: its line, and with a chain one line per frame and an empty line. */
static int sample_text(struct script *sc, FILE *f, const struct resolved *r)
{
	const struct cframe *fr;
	unsigned int n, i, flags;
	const char *memo;
	struct loc l;
	int e;

	head_text(sc, f, r);
	if (!sc->chains) {
		if (sc->fields & LOC_FIELDS) {
			if (want(sc, SCRIPT_IP)) /* (a space after the event, as perf's) */
				fprintf(f, " %16llx", ULL(r->s->ip));
			memo = memo_text(sc, r);
			if (memo) {
				fputs(memo, f);
			} else {
				loc_of_result(&l, &r->res, r->s->ip);
				loc_text(sc, f, &l);
			}
		}
		fputc('\n', f);
		return 0;
	}
	e = chainer__build(sc->chains, r, &fr, &n, &flags);
	if (e)
		return e;
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		fputc('\t', f);
		if (want(sc, SCRIPT_IP))
			fprintf(f, "%16llx", ULL(fr[i].addr));
		if ((flags & CHAIN_TRUNCATED) && i == n - 1) { /* its callers are not known */
			fputs(" [truncated]\n", f);
			continue;
		}
		loc_of_frame(sc, &l, &fr[i]);
		loc_text(sc, f, &l);
		fputc('\n', f);
	}
	fputc('\n', f);
	return 0;
}

/* The fields of an address that the line asks for, as JSON members. */
static void loc_json(const struct script *sc, struct ebs_json *j, const struct loc *l)
{
	char buf[4200];

	if (want(sc, SCRIPT_IP)) {
		snprintf(buf, sizeof(buf), "0x%llx", ULL(l->ip));
		ebs_json__key_str(j, "ip", buf);
	}
	if (want(sc, SCRIPT_SYM))
		ebs_json__key_str(j, "sym", l->sym);
	if (want(sc, SCRIPT_SYMOFF)) {
		if (l->sym && l->has_off)
			ebs_json__key_u64(j, "symoff", l->off);
		else
			ebs_json__key_null(j, "symoff");
	}
	if (want(sc, SCRIPT_DSO))
		ebs_json__key_str(j, "dso", l->dso);
	if (want(sc, SCRIPT_SRCLINE)) {
		if (l->file && l->line) {
			snprintf(buf, sizeof(buf), "%s:%u", src_name(sc, l->file), l->line);
			ebs_json__key_str(j, "srcline", buf);
		} else {
			ebs_json__key_null(j, "srcline");
		}
	}
}

/* A sample as one JSON object on one line: the fields as members, the chain as an array. */
static int sample_json(struct script *sc, FILE *f, const struct resolved *r)
{
	const struct ebs_rec_sample *s = r->s;
	const struct cframe *fr;
	unsigned int n, i, flags = 0;
	struct ebs_json j;
	struct loc l;
	int e;

	ebs_json__begin(&j, f);
	ebs_json__obj(&j);
	if (sc->o->recording) {
		ebs_json__key_str(&j, "recording", sc->o->recording);
		ebs_json__key_str(&j, "host", sc->rs.in[0].host);
	}
	if (want(sc, SCRIPT_COMM))
		ebs_json__key_str(&j, "comm", r->comm);
	if (want(sc, SCRIPT_PID))
		ebs_json__key_u64(&j, "pid", s->pid);
	if (want(sc, SCRIPT_TID))
		ebs_json__key_u64(&j, "tid", s->tid);
	if (want(sc, SCRIPT_CPU))
		ebs_json__key_u64(&j, "cpu", s->cpu);
	if (want(sc, SCRIPT_TIME))
		ebs_json__key_u64(&j, "time", s->time);
	if (want(sc, SCRIPT_PERIOD))
		ebs_json__key_u64(&j, "period", s->period);
	if (want(sc, SCRIPT_EVENT))
		ebs_json__key_str(&j, "event", ebs_data__event(sc->rs.d, s->event)->used);
	loc_of_result(&l, &r->res, s->ip);
	loc_json(sc, &j, &l);
	if (sc->chains) {
		e = chainer__build(sc->chains, r, &fr, &n, &flags);
		if (e)
			return e;
		if (flags & CHAIN_TRUNCATED) /* its last frame says so in text */
			n--;
		ebs_json__key(&j, "callchain");
		ebs_json__arr(&j);
		for (i = 0; i < n; i++) {
			ebs_json__obj(&j);
			loc_of_frame(sc, &l, &fr[i]);
			loc_json(sc, &j, &l);
			ebs_json__key_bool(&j, "inlined", l.inlined);
			ebs_json__obj_end(&j);
		}
		ebs_json__arr_end(&j);
		ebs_json__key_bool(&j, "truncated", flags & CHAIN_TRUNCATED);
	}
	ebs_json__obj_end(&j);
	return ebs_json__end(&j);
}

static int sample_out(struct script *sc, FILE *f, const struct resolved *r)
{
	return sc->o->json ? sample_json(sc, f, r) : sample_text(sc, f, r);
}

/* ---- time order ---- */

/* The first pass: every sample's time, then min_from from the end. */
static int read_times(struct script *sc, struct ebs_error *err)
{
	const struct ebs_rec *rec;
	size_t cap = 0, n = 0, i;
	int e;

	ebs_data__rewind(sc->rs.d);
	while ((e = ebs_data__next(sc->rs.d, &rec, err)) > 0) {
		if (rec->type != EBS_REC_SAMPLE)
			continue;
		if (ebs_grow((void **)&sc->min_from, &cap, n, sizeof(u64), 4096))
			return ebs_error__set(err, ENOMEM, "out of memory");
		sc->min_from[n++] = ((const struct ebs_rec_sample *)(const void *)rec)->time;
	}
	if (e < 0)
		return e;
	if (ebs_grow((void **)&sc->min_from, &cap, n, sizeof(u64), 1))
		return ebs_error__set(err, ENOMEM, "out of memory");
	sc->min_from[n] = UINT64_MAX;
	for (i = n; i-- > 0;)
		if (sc->min_from[i + 1] < sc->min_from[i])
			sc->min_from[i] = sc->min_from[i + 1];
	sc->nsamples = n;
	return 0;
}

static bool before(const struct pending *a, const struct pending *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

/* Keep what sc->mem holds as the output of the sample of time and seq; 0 or -ENOMEM. */
static int keep(struct script *sc, u64 time, u64 seq)
{
	struct pending p = {time, seq, NULL, 0}, tmp;
	off_t len = fflush(sc->mem) || ferror(sc->mem) ? -1 : ftello(sc->mem);
	size_t i;

	if (len < 0)
		return -ENOMEM;
	p.len = (size_t)len;
	p.text = malloc(p.len ? p.len : 1);
	if (!p.text ||
	    ebs_grow((void **)&sc->heap, &sc->heap_cap, sc->nheap, sizeof(*sc->heap), 256)) {
		free(p.text);
		return -ENOMEM;
	}
	memcpy(p.text, sc->mem_buf, p.len);
	/* a binary heap, the earliest at the top */
	i = sc->nheap++;
	sc->heap[i] = p;
	for (; i && before(&sc->heap[i], &sc->heap[(i - 1) / 2]); i = (i - 1) / 2) {
		tmp = sc->heap[i];
		sc->heap[i] = sc->heap[(i - 1) / 2];
		sc->heap[(i - 1) / 2] = tmp;
	}
	return 0;
}

/* Write out, in order, what waits with a time up to until. */
static void flush_due(struct script *sc, u64 until)
{
	struct pending tmp;
	size_t i, c;

	while (sc->nheap && sc->heap[0].time <= until) {
		fwrite(sc->heap[0].text, 1, sc->heap[0].len, sc->out);
		free(sc->heap[0].text);
		sc->heap[0] = sc->heap[--sc->nheap];
		for (i = 0; (c = 2 * i + 1) < sc->nheap; i = c) {
			if (c + 1 < sc->nheap && before(&sc->heap[c + 1], &sc->heap[c]))
				c++;
			if (!before(&sc->heap[c], &sc->heap[i]))
				break;
			tmp = sc->heap[i];
			sc->heap[i] = sc->heap[c];
			sc->heap[c] = tmp;
		}
	}
}

/* Did the output fail?  Then the pass stops (1) with sc->write_err set. */
static int out_failed(struct script *sc)
{
	if (!ferror(sc->out))
		return 0;
	if (!sc->write_err) /* errno: the failed write's, the last call that set it */
		sc->write_err = errno ? -errno : -EIO;
	return 1;
}

/* The second pass's: one sample, out now or when the earlier ones are. */
static int script_one(void *ctx, const struct resolved *r)
{
	struct script *sc = ctx;
	u64 seq = r->seq;
	int e;

	if (seq >= sc->nsamples) { /* (a file that grew under us): in the file's order */
		flush_due(sc, UINT64_MAX);
		e = sample_out(sc, sc->out, r);
	} else {
		flush_due(sc, sc->min_from[seq]);
		if (!sc->nheap && r->s->time <= sc->min_from[seq + 1]) {
			e = sample_out(sc, sc->out, r);
		} else {
			rewind(sc->mem);
			e = sample_out(sc, sc->mem, r);
			if (!e)
				e = keep(sc, r->s->time, seq);
		}
	}
	return e ? e : out_failed(sc);
}

int ebs_script(const struct script_opts *o, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct script sc;
	const char *mode;
	unsigned int i;
	size_t k;
	int e;

	memset(&sc, 0, sizeof(sc));
	sc.o = o;
	sc.fields = o->fields ? o->fields : SCRIPT_DEFAULT_FIELDS;
	sc.out = o->view.out;
	session__symbolize_opts(&so, &o->view);
	/* DWARF for lines, for chains' inlined frames, for --func's inlined functions */
	so.no_dwarf = !want(&sc, SCRIPT_SRCLINE) && !o->view.filter.funcs &&
		      (o->hide_chain || !o->inline_frames || !(sc.fields & LOC_FIELDS));
	so.no_lines = !want(&sc, SCRIPT_SRCLINE);
	e = session__open(&sc.rs, o->view.input, o->view.force, &so, &o->view.filter, err);
	if (e)
		return e;
	mode = ebs_data__meta(sc.rs.d, EBS_META_CALL_GRAPH);
	if (mode && !o->hide_chain && (sc.fields & LOC_FIELDS)) {
		sc.chains = chainer__new(&sc.rs, mode, !o->inline_frames);
		if (!sc.chains) {
			e = ebs_error__set(err, ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < ebs_data__nr_events(sc.rs.d); i++) {
		size_t len = strlen(ebs_data__event(sc.rs.d, i)->used);

		if (len > (size_t)sc.name_width && len < 256)
			sc.name_width = (int)len;
	}
	sc.mem = open_memstream(&sc.mem_buf, &sc.mem_size);
	if (!sc.mem) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	/* several -i: which recording the samples below are */
	if (o->recording && !o->json)
		fprintf(sc.out, "# %s (host %s)\n", o->recording, sc.rs.in[0].host);
	e = read_times(&sc, err);
	if (!e)
		e = session__each(&sc.rs, script_one, &sc, err);
	if (!e) {
		errno = 0;
		flush_due(&sc, UINT64_MAX);
		fflush(sc.out);
		out_failed(&sc);
	}
	/* the reader went away (ebs script | head): the caller stops quietly */
	if ((e > 0 || !e) && sc.write_err == -EPIPE)
		e = ebs_error__set(err, EPIPE, "standard output: the reader went away");
	else if ((e > 0 || !e) && sc.write_err) /* (-EIO: a failure of the system, status 1) */
		e = ebs_error__set(err, EIO, "standard output: write failed: %s",
				   strerror(-sc.write_err));
out:
	for (k = 0; k < sc.nheap; k++)
		free(sc.heap[k].text);
	free(sc.heap);
	for (k = 0; k < sc.memo_cap; k++)
		free(sc.memo[k].text);
	free(sc.memo);
	free(sc.min_from);
	if (sc.mem)
		fclose(sc.mem);
	free(sc.mem_buf);
	chainer__free(sc.chains);
	session__close(&sc.rs);
	return e;
}
