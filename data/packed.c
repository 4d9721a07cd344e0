// SPDX-License-Identifier: MIT
/*
 * packed.c - samples packed into SAMPLES records and back.
 *
 * A sample of a cpu-clock recording is 48 bytes as a SAMPLE record; packed
 * it is a flag byte, the time and the ip as differences from the previous
 * sample's (a few bytes each: samples come a period apart, and mostly from
 * the same code), and the period's difference where it varies (frequency
 * mode): 7 to 10 bytes.  pid, tid, cpu and event are written only when they
 * change.  Everything the reader decodes is checked: varints end inside
 * the bytes and within 64 bits, values fit their fields, nothing is left.
 *
 * A recording with call graphs packs its samples into SAMPLES_CG records:
 * the same fields, then the parts.  A chain mostly repeats the callers of
 * one of the few chains before it, so it is written as a reference to that
 * chain, how many of its outermost frames it shares, and the frames before
 * them as differences.  A copied user stack mostly repeats the caller
 * frames of the stack before it, word for word at the same addresses, so it
 * is written as runs of repeated words and of new words.  A fp sample of
 * SQLite drops from about 400 bytes to about 25.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"
#include "data/packed.h"

#define MISC_BITS 0xfu /* cpu mode and EBS_SAMPLE_EXACT_IP */

static bool kernel_space(u16 misc)
{
	u16 mode = misc & EBS_CPUMODE_MASK;

	return mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL;
}

#define PART_BITS  (EBS_SAMPLE_CALLCHAIN | EBS_SAMPLE_REGS_USER | EBS_SAMPLE_STACK_USER)
#define PART_SHIFT 4 /* misc bit 4 is the parts byte's bit 0 */

struct ebs_pack *ebs_pack__new(u16 type)
{
	struct ebs_pack *p = calloc(1, sizeof(*p));
	size_t max = type == EBS_REC_SAMPLES_CG ? EBS_SAMPLES_CG_MAX_BYTES : EBS_SAMPLES_MAX_BYTES;

	if (!p)
		return NULL;
	p->type = type;
	p->max_len = max;
	p->buf = malloc(sizeof(struct ebs_rec_samples) + max + 8);
	if (!p->buf) {
		free(p);
		return NULL;
	}
	return p;
}

void ebs_pack__free(struct ebs_pack *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < EBS_CG_HISTORY; i++)
		free(p->hist[i].ips);
	free(p->stack);
	free(p->buf);
	free(p);
}

/*
 * The parts of s, when they end exactly at its size: the bytes they take
 * after the fixed part; else (size_t)-1.
 */
static size_t parts_size(const struct ebs_rec_sample *s, struct ebs_sample_parts *pt)
{
	size_t n = 0;

	ebs_sample__parts(s, pt);
	if (s->hdr.misc & EBS_SAMPLE_CALLCHAIN)
		n += 8 + 8 * pt->nr_callchain;
	if (s->hdr.misc & EBS_SAMPLE_REGS_USER)
		n += 16 + 8 * (size_t)__builtin_popcountll(pt->regs_mask);
	if (s->hdr.misc & EBS_SAMPLE_STACK_USER)
		n += 16 + ALIGN8(pt->stack_size);
	return sizeof(*s) + n == s->hdr.size ? n : (size_t)-1;
}

/*
 * The most packed bytes a sample with parts pt can take in a SAMPLES_CG
 * record: the fixed fields and the parts byte; ref, keep, fresh and 11 a
 * frame (an escape and a raw value); abi, mask and 10 a register; size,
 * dyn_size and 13 a stack word (a word of its own between two runs).
 */
static size_t cg_bound(const struct ebs_sample_parts *pt)
{
	return EBS_PACK_MAX_SAMPLE + 1 + 30 + 11 * pt->nr_callchain + 20 +
	       10 * (size_t)__builtin_popcountll(pt->regs_mask) + 20 +
	       13 * (ALIGN8(pt->stack_size) / 8);
}

bool ebs_pack__fits(const struct ebs_pack *p, const struct ebs_rec_sample *s)
{
	struct ebs_sample_parts pt;

	if (s->hdr.type != EBS_REC_SAMPLE || s->reserved)
		return false;
	if (p->type == EBS_REC_SAMPLES)
		return s->hdr.size == sizeof(*s) && !(s->hdr.misc & ~MISC_BITS);
	if (s->hdr.misc & ~(MISC_BITS | PART_BITS) || parts_size(s, &pt) == (size_t)-1)
		return false;
	/* in a record of its own at least */
	return s->hdr.size <= EBS_SAMPLES_CG_MAX_UNPACKED &&
	       cg_bound(&pt) <= EBS_SAMPLES_CG_MAX_BYTES;
}

void ebs_pack__reset(struct ebs_pack *p)
{
	memset(&p->st, 0, sizeof(p->st));
	p->count = 0;
	p->len = 0;
	p->unpacked = 0;
	p->nr_hist = p->hist_at = 0;
	p->stack_words = 0;
	p->stack_sp = 0;
}

bool ebs_pack__room(const struct ebs_pack *p, const struct ebs_rec_sample *s)
{
	struct ebs_sample_parts pt;

	if (p->count >= EBS_SAMPLES_MAX)
		return false;
	if (p->type == EBS_REC_SAMPLES)
		return p->len + EBS_PACK_MAX_SAMPLE <= p->max_len;
	ebs_sample__parts(s, &pt);
	return p->len + cg_bound(&pt) <= p->max_len &&
	       p->unpacked + s->hdr.size <= EBS_SAMPLES_CG_MAX_UNPACKED;
}

static u8 *put_u(u8 *q, u64 v)
{
	while (v >= 0x80) {
		*q++ = (u8)(v | 0x80);
		v >>= 7;
	}
	*q++ = (u8)v;
	return q;
}

/* the difference now - before, zigzag-coded: small either way is short */
static u8 *put_d(u8 *q, u64 now, u64 before)
{
	u64 d = now - before;

	return put_u(q, (d << 1) ^ (u64) - (d >> 63));
}

static u8 *zig_or_escape(u8 *q, u64 v, u64 base);

/* The k-th latest chain of the record (1 <= k <= nr_hist). */
static struct ebs_pack_chain *hist(struct ebs_pack *p, unsigned int k)
{
	return &p->hist[(p->hist_at + EBS_CG_HISTORY - k) % EBS_CG_HISTORY];
}

/* How many of the outermost frames of a[na] and b[nb] are equal. */
static u64 common_tail(const u64 *a, u64 na, const u64 *b, u64 nb)
{
	u64 n = 0;

	while (n < na && n < nb && a[na - 1 - n] == b[nb - 1 - n])
		n++;
	return n;
}

/* Keep the chain for the ones after it (grow made room). */
static void hist_push(struct ebs_pack *p, const u64 *ips, u64 nr)
{
	struct ebs_pack_chain *c = &p->hist[p->hist_at];

	if (nr)
		memcpy(c->ips, ips, nr * sizeof(*ips));
	c->nr = nr;
	p->hist_at = (p->hist_at + 1) % EBS_CG_HISTORY;
	if (p->nr_hist < EBS_CG_HISTORY)
		p->nr_hist++;
}

static u8 *put_frame(struct ebs_pack_state *st, u8 *q, u64 v, unsigned int *ctx)
{
	if (v == EBS_CHAIN_USER || v == EBS_CHAIN_KERNEL) {
		*ctx = v == EBS_CHAIN_KERNEL;
		return put_u(q, v == EBS_CHAIN_USER ? 3 : 5);
	}
	if (v >= EBS_CHAIN_MAX) /* another marker: the context stays */
		return put_u(put_u(q, 1), v);
	q = zig_or_escape(q, v, st->base[*ctx]);
	st->base[*ctx] = v;
	return q;
}

/* An address as code 2 * zigzag(v - base), or escaped (1, then v) when that needs 65 bits. */
static u8 *zig_or_escape(u8 *q, u64 v, u64 base)
{
	u64 d = v - base, z = (d << 1) ^ (u64) - (d >> 63);

	if (z >> 63)
		return put_u(put_u(q, 1), v);
	return put_u(q, z << 1);
}

static u8 *put_chain(struct ebs_pack *p, u8 *q, const struct ebs_rec_sample *s, const u64 *ips,
		     u64 nr)
{
	unsigned int k, ref = 0, ctx = kernel_space(s->hdr.misc);
	u64 keep = 0, i;

	for (k = 1; k <= p->nr_hist; k++) {
		const struct ebs_pack_chain *c = hist(p, k);
		u64 n = common_tail(ips, nr, c->ips, c->nr);

		if (n > keep) {
			keep = n;
			ref = k;
		}
	}
	q = put_u(q, ref);
	if (ref)
		q = put_u(q, keep);
	q = put_u(q, nr - keep);
	p->st.base[ctx] = s->ip;
	for (i = 0; i < nr - keep; i++)
		q = put_frame(&p->st, q, ips[i], &ctx);
	hist_push(p, ips, nr);
	return q;
}

static u8 *put_regs(struct ebs_pack_state *st, u8 *q, const struct ebs_sample_parts *pt)
{
	u64 m = pt->regs_mask;
	unsigned int i = 0;

	q = put_u(q, pt->regs_abi);
	q = put_u(q, m);
	for (; m; m &= m - 1, i++) {
		unsigned int b = (unsigned int)__builtin_ctzll(m);

		q = put_d(q, pt->regs[i], st->regs[b]);
		st->regs[b] = pt->regs[i];
	}
	return q;
}

/* The SP register of pt, if it has one. */
static bool regs_sp(const struct ebs_sample_parts *pt, u64 *sp)
{
	if (!pt->regs || !(pt->regs_mask & (1ull << EBS_REG_X86_SP)))
		return false;
	*sp = pt->regs[__builtin_popcountll(pt->regs_mask & ((1ull << EBS_REG_X86_SP) - 1))];
	return true;
}

/* The previous stack's word at the address of word i of a stack at sp, if it has one. */
static bool stack_ref(const u8 *prev, size_t prev_words, u64 prev_sp, bool have_sp, u64 sp,
		      size_t i, u64 *word)
{
	u64 at = sp + 8 * (u64)i - prev_sp;

	*word = 0;
	if (!have_sp || !prev || at % 8 || at / 8 >= prev_words)
		return false;
	memcpy(word, prev + at, 8);
	return true;
}

static bool stack_same(const struct ebs_pack *p, const u8 *data, bool have_sp, u64 sp, size_t i)
{
	u64 ref, w;

	if (!stack_ref(p->stack, p->stack_words, p->stack_sp, have_sp, sp, i, &ref))
		return false;
	memcpy(&w, data + 8 * i, 8);
	return w == ref;
}

static u8 *put_stack(struct ebs_pack *p, u8 *q, const struct ebs_sample_parts *pt)
{
	size_t words = ALIGN8(pt->stack_size) / 8, i = 0, j;
	bool have_sp;
	u64 sp = 0;

	have_sp = regs_sp(pt, &sp);
	q = put_u(q, pt->stack_size);
	q = put_u(q, pt->stack_dyn_size);
	while (i < words) {
		size_t same = 0, lit = 0;

		while (i + same < words && stack_same(p, pt->stack, have_sp, sp, i + same))
			same++;
		/* new words up to the next run of two repeated ones */
		j = i + same;
		while (j + lit < words && !(stack_same(p, pt->stack, have_sp, sp, j + lit) &&
					    (j + lit + 1 == words ||
					     stack_same(p, pt->stack, have_sp, sp, j + lit + 1))))
			lit++;
		q = put_u(q, same);
		q = put_u(q, lit);
		for (; lit; lit--, j++) {
			u64 ref, w;

			stack_ref(p->stack, p->stack_words, p->stack_sp, have_sp, sp, j, &ref);
			memcpy(&w, pt->stack + 8 * j, 8);
			q = put_d(q, w, ref);
		}
		i = j;
	}
	if (have_sp) { /* the stack the next ones repeat (grow made room) */
		if (words)
			memcpy(p->stack, pt->stack, words * 8);
		p->stack_words = words;
		p->stack_sp = sp;
	}
	return q;
}

/* Room for what s leaves for the samples after it: its chain, its stack. */
static int grow(struct ebs_pack *p, const struct ebs_rec_sample *s,
		const struct ebs_sample_parts *pt)
{
	struct ebs_pack_chain *c = &p->hist[p->hist_at];
	size_t bytes = ALIGN8(pt->stack_size);
	u64 sp;

	if ((s->hdr.misc & EBS_SAMPLE_CALLCHAIN) && pt->nr_callchain > c->cap) {
		u64 *n = realloc(c->ips, pt->nr_callchain * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->ips = n;
		c->cap = pt->nr_callchain;
	}
	if ((s->hdr.misc & EBS_SAMPLE_STACK_USER) && regs_sp(pt, &sp) && bytes > p->stack_cap) {
		u8 *n = realloc(p->stack, bytes);

		if (!n)
			return -ENOMEM;
		p->stack = n;
		p->stack_cap = bytes;
	}
	return 0;
}

int ebs_pack__add(struct ebs_pack *p, const struct ebs_rec_sample *s)
{
	struct ebs_pack_state *st = &p->st;
	u8 *q = p->buf + sizeof(struct ebs_rec_samples) + p->len, *flags = q;
	bool k = kernel_space(s->hdr.misc);
	struct ebs_sample_parts pt;

	if (p->type == EBS_REC_SAMPLES_CG) {
		ebs_sample__parts(s, &pt);
		if (grow(p, s, &pt))
			return -ENOMEM;
	}
	q++;

	*flags = (u8)(s->hdr.misc & MISC_BITS);
	if (p->type == EBS_REC_SAMPLES_CG)
		*q++ = (u8)((s->hdr.misc & PART_BITS) >> PART_SHIFT);
	q = put_d(q, s->time, st->time);
	q = put_d(q, s->ip, st->ip[k]);
	if (!p->count || s->pid != st->pid || s->tid != st->tid) {
		*flags |= EBS_SAMPLES_F_TASK;
		q = put_u(q, s->pid);
		q = put_u(q, s->tid);
	}
	if (!p->count || s->cpu != st->cpu) {
		*flags |= EBS_SAMPLES_F_CPU;
		q = put_u(q, s->cpu);
	}
	if (!p->count || s->event != st->event) {
		*flags |= EBS_SAMPLES_F_EVENT;
		q = put_u(q, s->event);
	}
	if (!p->count || s->period != st->period) {
		*flags |= EBS_SAMPLES_F_PERIOD;
		q = put_d(q, s->period, st->period);
	}
	st->time = s->time;
	st->ip[k] = s->ip;
	st->pid = s->pid;
	st->tid = s->tid;
	st->cpu = s->cpu;
	st->event = s->event;
	st->period = s->period;
	if (p->type == EBS_REC_SAMPLES_CG) {
		if (s->hdr.misc & EBS_SAMPLE_CALLCHAIN)
			q = put_chain(p, q, s, pt.callchain, pt.nr_callchain);
		if (s->hdr.misc & EBS_SAMPLE_REGS_USER)
			q = put_regs(st, q, &pt);
		if (s->hdr.misc & EBS_SAMPLE_STACK_USER)
			q = put_stack(p, q, &pt);
		p->unpacked += s->hdr.size;
	}
	p->len = (size_t)(q - (p->buf + sizeof(struct ebs_rec_samples)));
	p->count++;
	return 0;
}

const struct ebs_rec *ebs_pack__record(struct ebs_pack *p)
{
	struct ebs_rec_samples *r = (void *)p->buf;
	size_t size = sizeof(*r) + p->len, padded = (size + 7) & ~(size_t)7;

	if (!p->count)
		return NULL;
	memset(p->buf + size, 0, padded - size);
	memset(r, 0, sizeof(*r));
	r->hdr.type = p->type;
	r->hdr.size = (u32)padded;
	r->count = p->count;
	r->bytes = (u32)p->len;
	return &r->hdr;
}

struct cursor {
	const u8 *p, *end, *start;
	size_t *bad_at;
	const char **why;
};

static int fail(struct cursor *c, const char *why)
{
	*c->bad_at = (size_t)(c->p - c->start);
	*c->why = why;
	return -EBADMSG;
}

static int get_u(struct cursor *c, u64 *out)
{
	u64 v = 0;
	unsigned int shift;

	if (c->p < c->end && !(*c->p & 0x80)) { /* most are one byte */
		*out = *c->p++;
		return 0;
	}
	for (shift = 0; shift < 64; shift += 7) {
		u8 b;

		if (c->p >= c->end)
			return fail(c, "a number runs past the packed bytes");
		b = *c->p++;
		if (shift == 63 && b > 1)
			return fail(c, "a number of more than 64 bits");
		v |= (u64)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return fail(c, "a number of more than 64 bits");
}

static int get_d(struct cursor *c, u64 before, u64 *out)
{
	u64 z;
	int e = get_u(c, &z);

	if (!e)
		*out = before + ((z >> 1) ^ (u64) - (z & 1));
	return e;
}

static int get_u32(struct cursor *c, u64 max, u32 *out, const char *what)
{
	u64 v;
	int e = get_u(c, &v);

	if (e)
		return e;
	if (v > max)
		return fail(c, what);
	*out = (u32)v;
	return 0;
}

u64 ebs_pack__first_time(const struct ebs_rec_samples *r)
{
	const u8 *p = (const u8 *)(r + 1);
	const char *why;
	size_t at;
	/* after the flags, and the parts byte of a SAMPLES_CG */
	struct cursor c = {p + 1 + (r->hdr.type == EBS_REC_SAMPLES_CG), p + r->bytes, p, &at, &why};
	u64 t = 0;

	get_d(&c, 0, &t); /* the difference from 0; a record this writer made holds it */
	return t;
}

/*
 * The fields of a packed sample after its flags (and parts byte) into s,
 * from and into st: the i-th sample of its record.
 */
static int get_fixed(struct cursor *c, struct ebs_pack_state *st, u8 flags, u32 i,
		     struct ebs_rec_sample *s)
{
	bool k = kernel_space(flags);
	u32 v;
	int e;

	if ((e = get_d(c, st->time, &st->time)) || (e = get_d(c, st->ip[k], &st->ip[k])))
		return e;
	if (flags & EBS_SAMPLES_F_TASK) {
		if ((e = get_u32(c, UINT32_MAX, &st->pid, "a pid beyond 32 bits")) ||
		    (e = get_u32(c, UINT32_MAX, &st->tid, "a tid beyond 32 bits")))
			return e;
	} else if (!i) {
		return fail(c, "the first packed sample has no pid");
	}
	if (flags & EBS_SAMPLES_F_CPU) {
		if ((e = get_u32(c, UINT32_MAX, &st->cpu, "a cpu beyond 32 bits")))
			return e;
	} else if (!i) {
		return fail(c, "the first packed sample has no cpu");
	}
	if (flags & EBS_SAMPLES_F_EVENT) {
		if ((e = get_u32(c, 0xffff, &v, "an event index beyond 16 bits")))
			return e;
		st->event = (u16)v;
	} else if (!i) {
		return fail(c, "the first packed sample has no event");
	}
	if (flags & EBS_SAMPLES_F_PERIOD) {
		if ((e = get_d(c, st->period, &st->period)))
			return e;
	} else if (!i) {
		return fail(c, "the first packed sample has no period");
	}
	memset(s, 0, sizeof(*s));
	s->hdr.type = EBS_REC_SAMPLE;
	s->hdr.misc = flags & MISC_BITS;
	s->hdr.size = sizeof(*s);
	s->time = st->time;
	s->ip = st->ip[k];
	s->period = st->period;
	s->pid = st->pid;
	s->tid = st->tid;
	s->cpu = st->cpu;
	s->event = st->event;
	return 0;
}

int ebs_unpack(const u8 *data, size_t len, u32 count, struct ebs_rec_sample *out, size_t *bad_at,
	       const char **why)
{
	struct cursor c = {data, data + len, data, bad_at, why};
	struct ebs_pack_state st = {0};
	u32 i;
	int e;

	for (i = 0; i < count; i++) {
		if (c.p >= c.end)
			return fail(&c, "fewer packed samples than the record counts");
		if ((e = get_fixed(&c, &st, *c.p++, i, &out[i])))
			return e;
	}
	if (c.p != c.end)
		return fail(&c, "bytes left after the packed samples");
	return 0;
}

/* What a SAMPLES_CG record's earlier samples left for the reader. */
struct cg_read {
	struct ebs_pack_state st;
	const u64 *hist[EBS_CG_HISTORY]; /* the latest chains, as in struct ebs_pack */
	u64 hist_nr[EBS_CG_HISTORY];
	unsigned int nr_hist, hist_at;
	const u8 *stack; /* the latest stack with an SP register */
	size_t stack_words;
	u64 stack_sp;
};

/* Room for n more bytes of output? */
static int room(struct cursor *c, size_t used, size_t cap, u64 n)
{
	return n <= cap - used ? 0 : fail(c, "the samples unpack to more than their record may");
}

static int get_chain(struct cursor *c, struct cg_read *r, const struct ebs_rec_sample *s, u8 *out,
		     size_t *used, size_t cap)
{
	u64 ref, keep = 0, fresh, nr, i, code, v;
	unsigned int ctx = kernel_space(s->hdr.misc);
	const u64 *from = NULL;
	u64 *ips;
	int e;

	if ((e = get_u(c, &ref)))
		return e;
	if (ref > r->nr_hist)
		return fail(c, "a chain repeats one the record does not have");
	if (ref) {
		unsigned int at =
			(r->hist_at + EBS_CG_HISTORY - (unsigned int)ref) % EBS_CG_HISTORY;

		if ((e = get_u(c, &keep)))
			return e;
		if (!keep || keep > r->hist_nr[at])
			return fail(c, "a chain repeats more frames than the one it names has");
		from = r->hist[at] + (r->hist_nr[at] - keep);
	}
	if ((e = get_u(c, &fresh)))
		return e;
	if (fresh > (u64)(cap - *used) / 8 || (e = room(c, *used, cap, 8 + 8 * (fresh + keep))))
		return e ? e : fail(c, "the samples unpack to more than their record may");
	nr = fresh + keep;
	memcpy(out + *used, &nr, 8);
	ips = (u64 *)(void *)(out + *used + 8);
	r->st.base[ctx] = s->ip;
	for (i = 0; i < fresh; i++) {
		if ((e = get_u(c, &code)))
			return e;
		if (!(code & 1)) {
			v = r->st.base[ctx] + ((code >> 2) ^ (u64) - ((code >> 1) & 1));
			r->st.base[ctx] = v;
		} else if (code == 3 || code == 5) {
			v = code == 3 ? EBS_CHAIN_USER : EBS_CHAIN_KERNEL;
			ctx = code == 5;
		} else if (code == 1) {
			if ((e = get_u(c, &v)))
				return e;
			if (v == EBS_CHAIN_USER || v == EBS_CHAIN_KERNEL)
				ctx = v == EBS_CHAIN_KERNEL;
			else if (v < EBS_CHAIN_MAX)
				r->st.base[ctx] = v;
		} else {
			return fail(c, "an unknown chain frame code");
		}
		ips[i] = v;
	}
	if (keep)
		memcpy(ips + fresh, from, keep * 8);
	r->hist[r->hist_at] = ips;
	r->hist_nr[r->hist_at] = nr;
	r->hist_at = (r->hist_at + 1) % EBS_CG_HISTORY;
	if (r->nr_hist < EBS_CG_HISTORY)
		r->nr_hist++;
	*used += 8 + 8 * nr;
	return 0;
}

static int get_regs(struct cursor *c, struct cg_read *r, u8 *out, size_t *used, size_t cap,
		    struct ebs_sample_parts *pt)
{
	u64 abi, m, *regs;
	unsigned int i = 0;
	int e;

	if ((e = get_u(c, &abi)) || (e = get_u(c, &m)) ||
	    (e = room(c, *used, cap, 16 + 8 * (u64)__builtin_popcountll(m))))
		return e;
	memcpy(out + *used, &abi, 8);
	memcpy(out + *used + 8, &m, 8);
	regs = (u64 *)(void *)(out + *used + 16);
	pt->regs_mask = m;
	pt->regs = regs;
	for (; m; m &= m - 1, i++) {
		unsigned int b = (unsigned int)__builtin_ctzll(m);

		if ((e = get_d(c, r->st.regs[b], &r->st.regs[b])))
			return e;
		regs[i] = r->st.regs[b];
	}
	*used += 16 + 8 * (size_t)i;
	return 0;
}

static int get_stack(struct cursor *c, struct cg_read *r, u8 *out, size_t *used, size_t cap,
		     const struct ebs_sample_parts *pt)
{
	u64 size, dyn, same, lit, sp = 0, ref;
	size_t words, i = 0;
	bool have_sp = regs_sp(pt, &sp);
	u8 *data;
	int e;

	if ((e = get_u(c, &size)) || (e = get_u(c, &dyn)))
		return e;
	if (dyn > size)
		return fail(c, "a stack's dyn_size beyond its size");
	if (size > cap || (e = room(c, *used, cap, 16 + ALIGN8(size))))
		return e ? e : fail(c, "the samples unpack to more than their record may");
	words = ALIGN8(size) / 8;
	memcpy(out + *used, &size, 8);
	data = out + *used + 8;
	while (i < words) {
		if ((e = get_u(c, &same)) || (e = get_u(c, &lit)))
			return e;
		if (!same && !lit)
			return fail(c, "a stack run of no word");
		if (same > words - i || lit > words - i - same)
			return fail(c, "a stack run past the stack");
		if (same && have_sp && r->stack) {
			/* the words the previous stack has, in one piece */
			u64 at = sp + 8 * (u64)i - r->stack_sp;

			if (!(at % 8) && at / 8 < r->stack_words &&
			    same <= r->stack_words - at / 8) {
				memcpy(data + 8 * i, r->stack + at, 8 * same);
				i += same;
				same = 0;
			}
		}
		for (; same; same--, i++) {
			if (!stack_ref(r->stack, r->stack_words, r->stack_sp, have_sp, sp, i, &ref))
				return fail(c,
					    "a stack run repeats words the stack before has not");
			memcpy(data + 8 * i, &ref, 8);
		}
		for (; lit; lit--, i++) {
			u64 w;

			stack_ref(r->stack, r->stack_words, r->stack_sp, have_sp, sp, i, &ref);
			if ((e = get_d(c, ref, &w)))
				return e;
			memcpy(data + 8 * i, &w, 8);
		}
	}
	memcpy(data + 8 * words, &dyn, 8);
	if (have_sp) {
		r->stack = data;
		r->stack_words = words;
		r->stack_sp = sp;
	}
	*used += 16 + 8 * words;
	return 0;
}

int ebs_unpack_cg(const u8 *data, size_t len, u32 count, u8 *out, size_t cap, size_t *out_len,
		  size_t *bad_at, const char **why)
{
	struct cursor c = {data, data + len, data, bad_at, why};
	struct cg_read r;
	size_t used = 0;
	u32 i;
	int e;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < count; i++) {
		struct ebs_rec_sample *s;
		struct ebs_sample_parts pt = {0};
		size_t start = used;
		u8 flags, parts;

		if (room(&c, used, cap, sizeof(*s)))
			return -EBADMSG;
		if (c.end - c.p < 2)
			return fail(&c, "fewer packed samples than the record counts");
		flags = *c.p++;
		parts = *c.p++;
		if (parts & ~(PART_BITS >> PART_SHIFT))
			return fail(&c, "a parts byte with unknown bits");
		s = (struct ebs_rec_sample *)(void *)(out + used);
		if ((e = get_fixed(&c, &r.st, flags, i, s)))
			return e;
		s->hdr.misc |= (u16)(parts << PART_SHIFT);
		used += sizeof(*s);
		if ((parts & EBS_CG_PART_CHAIN) && (e = get_chain(&c, &r, s, out, &used, cap)))
			return e;
		if ((parts & EBS_CG_PART_REGS) && (e = get_regs(&c, &r, out, &used, cap, &pt)))
			return e;
		if ((parts & EBS_CG_PART_STACK) && (e = get_stack(&c, &r, out, &used, cap, &pt)))
			return e;
		s->hdr.size = (u32)(used - start);
	}
	if (c.p != c.end)
		return fail(&c, "bytes left after the packed samples");
	*out_len = used;
	return 0;
}
