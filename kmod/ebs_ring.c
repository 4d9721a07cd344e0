// SPDX-License-Identifier: GPL-2.0
/* The per-CPU sample ring (see ebs_ring.h for the protocol). */
#include "ebs_ring.h"

void ebs_ring_init(struct ebs_ring *r, void *base, __u32 pages, __u32 cpu, unsigned long page_size)
{
	__u64 size = (__u64)pages * page_size;

	memset(r, 0, sizeof(*r));
	r->hdr = base;
	r->data = (__u8 *)base + page_size;
	r->mask = size - 1;
	r->watermark = size / 4 ? size / 4 : sizeof(struct ebs_krecord);
	r->hdr->data_size = size;
	r->hdr->cpu = cpu;
	r->hdr->record_size = sizeof(struct ebs_krecord);
}

/* Append rec: 1 to wake the reader, 0, or -ENOSPC when full (nothing written). */
static int ebs_ring_put(struct ebs_ring *r, const struct ebs_krecord *rec)
{
	__u64 head = READ_ONCE(r->hdr->head);
	/* pairs with the release in ebs_ring_set_tail: the reader is done there */
	__u64 tail = smp_load_acquire(&r->hdr->tail);
	__u64 used = head - tail;

	if (used + sizeof(*rec) > r->mask + 1)
		return -ENOSPC;
	/* records are 32 bytes and the ring a power of two: never split */
	memcpy(r->data + (head & r->mask), rec, sizeof(*rec));
	/* the record before the head that publishes it; the reader acquires head */
	smp_store_release(&r->hdr->head, head + sizeof(*rec));
	return used < r->watermark && used + sizeof(*rec) >= r->watermark;
}

int ebs_ring_write(struct ebs_ring *r, const struct ebs_krecord *rec)
{
	int ret = ebs_ring_put(r, rec);

	if (ret < 0) {
		r->dropped++;
		WRITE_ONCE(r->hdr->dropped, r->dropped);
		return ret;
	}
	r->samples++;
	return ret;
}

int ebs_ring_mark(struct ebs_ring *r, const struct ebs_krecord *rec)
{
	return ebs_ring_put(r, rec);
}

int ebs_ring_set_tail(struct ebs_ring *r, __u64 tail)
{
	/* pairs with the writer's release of head */
	__u64 head = smp_load_acquire(&r->hdr->head);
	__u64 old = READ_ONCE(r->hdr->tail);

	if (tail < old || tail > head || tail % sizeof(struct ebs_krecord))
		return -EINVAL;
	/* the reader's copies are done before the writer may reuse the space */
	smp_store_release(&r->hdr->tail, tail);
	return 0;
}

__u64 ebs_ring_unread(const struct ebs_ring *r)
{
	/* pairs with the writer's release of head */
	return smp_load_acquire(&r->hdr->head) - READ_ONCE(r->hdr->tail);
}

void ebs_ring_reset(struct ebs_ring *r)
{
	WRITE_ONCE(r->hdr->head, 0);
	WRITE_ONCE(r->hdr->tail, 0);
	WRITE_ONCE(r->hdr->dropped, 0);
	r->samples = 0;
	r->dropped = 0;
	r->overflows = 0;
	r->spurious = 0;
	r->throttled = 0;
}
