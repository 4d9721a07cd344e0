/* SPDX-License-Identifier: MIT */
/*
 * ring.h - reading a perf_event mmap ring buffer, private to sampler/.
 *
 * The protocol of perf_event_open(2): read data_head, read barrier, copy the
 * records between data_tail and data_head out, full barrier, write
 * data_tail.  A record that wraps the end of the ring is reassembled in a
 * bounce buffer, so the callback always sees one contiguous record.
 */
#ifndef EBS_SAMPLER_RING_H
#define EBS_SAMPLER_RING_H

#include <linux/perf_event.h>
#include <stddef.h>

#include "util/util.h"

/* The largest record the kernel writes: perf_event_header.size is a u16. */
#define PERF_RING_BOUNCE_SIZE 65536

/* Called once per record, in ring order; a nonzero return stops the drain. */
typedef int (*perf_ring_fn)(void *ctx, const struct perf_event_header *h);

/*
 * Hand every complete record in the ring to fn, then give the space back
 * (data_tail).  meta is the ring's first page, data its data_size bytes (a
 * power of two); bounce has PERF_RING_BOUNCE_SIZE bytes.  Returns 0, fn's
 * nonzero value (the records before it are consumed, the failing one too),
 * or -EBADMSG when a record header is impossible (size 0 or past
 * data_head): the ring is then skipped up to data_head.
 */
int perf_ring__drain(struct perf_event_mmap_page *meta, const u8 *data, size_t data_size,
		     u8 *bounce, perf_ring_fn fn, void *ctx);

#endif /* EBS_SAMPLER_RING_H */
