// SPDX-License-Identifier: MIT
/* ring.c - drain a perf_event mmap ring (see ring.h for the protocol). */
#include <errno.h>
#include <string.h>

#include "sampler/ring.h"

int perf_ring__drain(struct perf_event_mmap_page *meta, const u8 *data, size_t data_size,
		     u8 *bounce, perf_ring_fn fn, void *ctx)
{
	size_t mask = data_size - 1;
	u64 head, tail = meta->data_tail;
	int err = 0;

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE); /* read barrier */
	while (tail < head) {
		const struct perf_event_header *h;
		struct perf_event_header hcopy;
		size_t off = tail & mask, first = data_size - off;

		/* Records are 8-byte multiples, but do not rely on it for the header. */
		if (first < sizeof(hcopy)) {
			memcpy(&hcopy, data + off, first);
			memcpy((u8 *)&hcopy + first, data, sizeof(hcopy) - first);
			h = &hcopy;
		} else {
			h = (const void *)(data + off);
		}
		if (h->size < sizeof(*h) || h->size > head - tail) {
			/* cannot happen with a sane kernel; never spin on it */
			tail = head;
			err = -EBADMSG;
			break;
		}
		if (h->size > first) {
			memcpy(bounce, data + off, first);
			memcpy(bounce + first, data, h->size - first);
			h = (const void *)bounce;
		}
		tail += h->size;
		err = fn(ctx, h);
		if (err)
			break;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* full barrier before giving space back */
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}
