/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One CPU's ring of samples, shared with user space.
 *
 * The buffer is one header page (struct ebs_ring_header, read-only to user
 * space) and data_size bytes of struct ebs_krecord.  The sample handler of
 * the ring's CPU is its only writer: it never runs nested with itself (one
 * counter per CPU, or task counters of which one runs on a CPU at a time),
 * so head needs no atomic update.  msr mode's throttle timer writes too,
 * on the ring's CPU, only while counter 0 is off there: never nested with
 * the handler either.  The reader gives space back with
 * ebs_ring_set_tail() from process context.  Ordering: the writer stores the
 * record, then head with release; the reader loads head with acquire, reads
 * the records, then asks for the tail, stored with release and loaded by
 * the writer with acquire before it reuses the space.
 *
 * Portable: compiled into the module and into tests/unit/test-kmod.c.
 */
#ifndef EBS_RING_H
#define EBS_RING_H

#include <ebs_compat.h>

struct ebs_ring {
	struct ebs_ring_header *hdr; /* shared with user space */
	__u8 *data;
	__u64 mask;	 /* data_size - 1 */
	__u64 watermark; /* unread bytes at which the reader is woken */
	/* statistics, written only by the ring's CPU */
	__u64 samples;
	__u64 dropped;
	__u64 overflows;
	__u64 spurious;
	__u64 throttled; /* msr mode: times the throttle left counter 0 off */
};

/*
 * Set up r over base: (1 + pages) zeroed pages of page_size bytes, pages a
 * power of two.
 */
void ebs_ring_init(struct ebs_ring *r, void *base, __u32 pages, __u32 cpu, unsigned long page_size);

/*
 * Append rec (any context, on the ring's CPU).  Returns 1 when the record
 * made the unread part reach the watermark (wake the reader), 0 when
 * written, -ENOSPC when the ring was full: the sample is counted as
 * dropped and nothing unread is overwritten.
 */
int ebs_ring_write(struct ebs_ring *r, const struct ebs_krecord *rec);

/*
 * Append a record that is not a sample (a throttle record): as
 * ebs_ring_write(), but counted neither in samples nor, when the ring is
 * full, in dropped (which counts samples); STATS' throttled says how many
 * there were.
 */
int ebs_ring_mark(struct ebs_ring *r, const struct ebs_krecord *rec);

/* Give space back: tail must lie between the current tail and head. 0 or -EINVAL. */
int ebs_ring_set_tail(struct ebs_ring *r, __u64 tail);

/* Bytes written and not yet given back. */
__u64 ebs_ring_unread(const struct ebs_ring *r);

/* Empty the ring and zero its statistics (no writer may be running). */
void ebs_ring_reset(struct ebs_ring *r);

#endif /* EBS_RING_H */
