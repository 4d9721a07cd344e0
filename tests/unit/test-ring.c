// SPDX-License-Identifier: MIT
/*
 * test-ring.c - perf_ring__drain() on a ring built by hand: records in order,
 * a record that wraps the end of the ring reassembled byte for byte,
 * data_tail advanced to data_head, a stopping callback, and an impossible
 * record size skipped rather than spun on.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sampler/ring.h"
#include "test.h"

#define DATA_SIZE 256u

struct fake_ring {
	struct perf_event_mmap_page meta;
	u8 data[DATA_SIZE];
	u8 bounce[PERF_RING_BOUNCE_SIZE];
};

/* Write a record of size bytes at absolute position pos, payload bytes = seq. */
static void put(struct fake_ring *r, u64 pos, u16 size, u8 seq)
{
	u8 rec[512];
	struct perf_event_header h = {.type = PERF_RECORD_SAMPLE, .misc = seq, .size = size};
	u16 i;

	memcpy(rec, &h, sizeof(h));
	for (i = sizeof(h); i < size; i++)
		rec[i] = (u8)(seq + i);
	for (i = 0; i < size; i++)
		r->data[(pos + i) % DATA_SIZE] = rec[i];
}

struct seen {
	unsigned int n;
	u8 seq[64];
	bool intact[64];
	unsigned int stop_after;
};

static int collect(void *ctx, const struct perf_event_header *h)
{
	struct seen *s = ctx;
	const u8 *b = (const u8 *)h;
	bool ok = true;
	u16 i;

	for (i = sizeof(*h); i < h->size; i++)
		if (b[i] != (u8)(h->misc + i))
			ok = false;
	s->seq[s->n] = (u8)h->misc;
	s->intact[s->n] = ok;
	s->n++;
	return s->stop_after && s->n == s->stop_after ? -EIO : 0;
}

static void test_wrap(void)
{
	struct fake_ring *r = calloc(1, sizeof(*r));
	struct seen s = {0};
	u64 pos = 200; /* tail starts near the end: the second record wraps */
	int err;

	r->meta.data_tail = pos;
	put(r, pos, 40, 1);
	put(r, pos + 40, 48, 2); /* bytes 240..287: wraps at 256 */
	put(r, pos + 88, 16, 3);
	r->meta.data_head = pos + 104;
	err = perf_ring__drain(&r->meta, r->data, DATA_SIZE, r->bounce, collect, &s);
	TEST_EQ("ring: drain returns 0", err, 0);
	TEST_EQ("ring: three records", s.n, 3);
	TEST_CHECK("ring: records in order", s.seq[0] == 1 && s.seq[1] == 2 && s.seq[2] == 3);
	TEST_CHECK("ring: wrapped record reassembled", s.intact[0] && s.intact[1] && s.intact[2]);
	TEST_EQ("ring: data_tail reaches data_head", r->meta.data_tail, pos + 104);

	/* nothing new: nothing delivered, tail unchanged */
	s.n = 0;
	err = perf_ring__drain(&r->meta, r->data, DATA_SIZE, r->bounce, collect, &s);
	TEST_CHECK("ring: empty ring delivers nothing", err == 0 && s.n == 0);
	free(r);
}

static void test_stop(void)
{
	struct fake_ring *r = calloc(1, sizeof(*r));
	struct seen s = {.stop_after = 2};
	int err;

	put(r, 0, 32, 1);
	put(r, 32, 32, 2);
	put(r, 64, 32, 3);
	r->meta.data_head = 96;
	err = perf_ring__drain(&r->meta, r->data, DATA_SIZE, r->bounce, collect, &s);
	TEST_EQ("ring: callback error is returned", err, -EIO);
	TEST_EQ("ring: stops at the failing record", s.n, 2);
	TEST_EQ("ring: tail after the failing record", r->meta.data_tail, 64);
	free(r);
}

static void test_bad_size(void)
{
	struct fake_ring *r = calloc(1, sizeof(*r));
	struct seen s = {0};
	int err;

	put(r, 0, 32, 1);
	put(r, 32, 8, 2);
	r->data[32 + 6] = 0; /* size 0 */
	r->data[32 + 7] = 0;
	r->meta.data_head = 96;
	err = perf_ring__drain(&r->meta, r->data, DATA_SIZE, r->bounce, collect, &s);
	TEST_EQ("ring: size 0 is -EBADMSG", err, -EBADMSG);
	TEST_EQ("ring: records before it delivered", s.n, 1);
	TEST_EQ("ring: bad ring skipped to head", r->meta.data_tail, 96);

	/* a size running past data_head (a half-written record) */
	memset(r, 0, sizeof(*r));
	s.n = 0;
	put(r, 0, 64, 1);
	r->meta.data_head = 40;
	err = perf_ring__drain(&r->meta, r->data, DATA_SIZE, r->bounce, collect, &s);
	TEST_CHECK("ring: record past head is -EBADMSG", err == -EBADMSG && s.n == 0);
	free(r);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_wrap), TEST_CASE(test_stop), TEST_CASE(test_bad_size))
