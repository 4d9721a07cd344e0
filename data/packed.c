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
 */
#include <errno.h>
#include <string.h>

#include "data/packed.h"

#define MISC_BITS 0xfu /* cpu mode and EBS_SAMPLE_EXACT_IP */

static bool kernel_space(u16 misc)
{
	u16 mode = misc & EBS_CPUMODE_MASK;

	return mode == EBS_CPUMODE_KERNEL || mode == EBS_CPUMODE_GUEST_KERNEL;
}

bool ebs_pack__fits(const struct ebs_rec_sample *s)
{
	return s->hdr.type == EBS_REC_SAMPLE && s->hdr.size == sizeof(*s) &&
	       !(s->hdr.misc & ~MISC_BITS) && !s->reserved;
}

void ebs_pack__reset(struct ebs_pack *p)
{
	memset(&p->st, 0, sizeof(p->st));
	p->count = 0;
	p->len = 0;
}

bool ebs_pack__room(const struct ebs_pack *p)
{
	return p->count < EBS_SAMPLES_MAX && p->len + EBS_PACK_MAX_SAMPLE <= EBS_SAMPLES_MAX_BYTES;
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

void ebs_pack__add(struct ebs_pack *p, const struct ebs_rec_sample *s)
{
	struct ebs_pack_state *st = &p->st;
	u8 *q = p->buf + sizeof(struct ebs_rec_samples) + p->len, *flags = q++;
	bool k = kernel_space(s->hdr.misc);

	*flags = (u8)(s->hdr.misc & MISC_BITS);
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
	p->len = (size_t)(q - (p->buf + sizeof(struct ebs_rec_samples)));
	p->count++;
}

const struct ebs_rec *ebs_pack__record(struct ebs_pack *p)
{
	struct ebs_rec_samples *r = (void *)p->buf;
	size_t size = sizeof(*r) + p->len, padded = (size + 7) & ~(size_t)7;

	if (!p->count)
		return NULL;
	memset(p->buf + size, 0, padded - size);
	memset(r, 0, sizeof(*r));
	r->hdr.type = EBS_REC_SAMPLES;
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
	struct cursor c = {p + 1, p + r->bytes, p, &at, &why}; /* after the flags */
	u64 t = 0;

	get_d(&c, 0, &t); /* the difference from 0; a record this writer made holds it */
	return t;
}

int ebs_unpack(const u8 *data, size_t len, u32 count, struct ebs_rec_sample *out, size_t *bad_at,
	       const char **why)
{
	struct cursor c = {data, data + len, data, bad_at, why};
	struct ebs_pack_state st = {0};
	u32 i, v;
	int e;

	for (i = 0; i < count; i++) {
		struct ebs_rec_sample *s = &out[i];
		u8 flags;
		bool k;

		if (c.p >= c.end)
			return fail(&c, "fewer packed samples than the record counts");
		flags = *c.p++;
		k = kernel_space(flags);
		if ((e = get_d(&c, st.time, &st.time)) || (e = get_d(&c, st.ip[k], &st.ip[k])))
			return e;
		if (flags & EBS_SAMPLES_F_TASK) {
			if ((e = get_u32(&c, UINT32_MAX, &st.pid, "a pid beyond 32 bits")) ||
			    (e = get_u32(&c, UINT32_MAX, &st.tid, "a tid beyond 32 bits")))
				return e;
		} else if (!i) {
			return fail(&c, "the first packed sample has no pid");
		}
		if (flags & EBS_SAMPLES_F_CPU) {
			if ((e = get_u32(&c, UINT32_MAX, &st.cpu, "a cpu beyond 32 bits")))
				return e;
		} else if (!i) {
			return fail(&c, "the first packed sample has no cpu");
		}
		if (flags & EBS_SAMPLES_F_EVENT) {
			if ((e = get_u32(&c, 0xffff, &v, "an event index beyond 16 bits")))
				return e;
			st.event = (u16)v;
		} else if (!i) {
			return fail(&c, "the first packed sample has no event");
		}
		if (flags & EBS_SAMPLES_F_PERIOD) {
			if ((e = get_d(&c, st.period, &st.period)))
				return e;
		} else if (!i) {
			return fail(&c, "the first packed sample has no period");
		}
		memset(s, 0, sizeof(*s));
		s->hdr.type = EBS_REC_SAMPLE;
		s->hdr.misc = flags & MISC_BITS;
		s->hdr.size = sizeof(*s);
		s->time = st.time;
		s->ip = st.ip[k];
		s->period = st.period;
		s->pid = st.pid;
		s->tid = st.tid;
		s->cpu = st.cpu;
		s->event = st.event;
	}
	if (c.p != c.end)
		return fail(&c, "bytes left after the packed samples");
	return 0;
}
