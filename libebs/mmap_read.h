/* SPDX-License-Identifier: MIT */
/*
 * mmap_read.h - reading a counter in user space through its perf mmap
 * page (struct perf_event_mmap_page), the kernel's seqlock protocol of
 * include/uapi/linux/perf_event.h:
 *
 *	do {
 *		seq = pc->lock; barrier();
 *		idx = pc->index; count = pc->offset;
 *		if (pc->cap_user_rdpmc && idx)
 *			count += sign_extend(rdpmc(idx - 1), pc->pmc_width);
 *		barrier();
 *	} while (pc->lock != seq);
 *
 * The kernel bumps lock around every update of the page (the counter
 * scheduled in or out, moved to another register): a reader that saw lock
 * change reads again.  rdpmc is a parameter, so that tests run the
 * protocol against a simulated page and counter (tests/unit/test-count.c).
 * Internal to libebs: not installed.
 */
#ifndef EBS_LIBEBS_MMAP_READ_H
#define EBS_LIBEBS_MMAP_READ_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>

/* Reads after which a lock that keeps changing sends the caller to read(2). */
#define EBS_MMAP_RETRIES 64

typedef uint64_t (*ebs_rdpmc_fn)(unsigned int counter);

#if defined(__x86_64__) || defined(__i386__)
#define EBS_HAVE_RDPMC 1
/* rdpmc: the performance counter in ECX, 40 to 64 bits of it in EDX:EAX. */
static inline uint64_t ebs_rdpmc(unsigned int counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (uint64_t)hi << 32;
}
#else
#define EBS_HAVE_RDPMC 0
static inline uint64_t ebs_rdpmc(unsigned int counter)
{
	(void)counter;
	return 0;
}
#endif

#define ebs_barrier() __asm__ __volatile__("" ::: "memory")

/* The low width bits of v, sign-extended (width 0 or above 64: all 64). */
static inline int64_t ebs_sign_extend(uint64_t v, unsigned int width)
{
	if (width == 0 || width >= 64)
		return (int64_t)v;
	return (int64_t)(v << (64 - width)) >> (64 - width);
}

/*
 * The count of pc's counter into *val: 0; -EAGAIN when the page gives no
 * user-space read now (no cap_user_rdpmc, or index 0: the counter is not
 * on a PMU register) or the count would need scaling (the kernel has
 * multiplexed the counter: its time enabled exceeds its time running, and
 * read(2) gives both at the moment of the read); -EBUSY when lock changed
 * on EBS_MMAP_RETRIES reads in a row.  *tries, when not NULL, is the number of reads made.
 */
static inline int ebs_mmap_read(const volatile struct perf_event_mmap_page *pc, ebs_rdpmc_fn rdpmc,
				uint64_t *val, unsigned int *tries)
{
	unsigned int n;

	for (n = 1; n <= EBS_MMAP_RETRIES; n++) {
		uint32_t seq, idx;
		int64_t count;

		seq = pc->lock;
		ebs_barrier();
		idx = pc->index;
		count = (int64_t)pc->offset;
		/* multiplexed (enabled time > running time): read(2) gives the times to scale by */
		if (!pc->cap_user_rdpmc || !idx || pc->time_enabled != pc->time_running) {
			if (tries)
				*tries = n;
			return -EAGAIN;
		}
		count += ebs_sign_extend(rdpmc(idx - 1), pc->pmc_width);
		ebs_barrier();
		if (pc->lock == seq) {
			*val = (uint64_t)count;
			if (tries)
				*tries = n;
			return 0;
		}
	}
	if (tries)
		*tries = EBS_MMAP_RETRIES;
	return -EBUSY;
}

/*
 * A set's counters through their pages[0..n) into v[0..n): 0, or the
 * first counter's -EAGAIN or -EBUSY (ebs_mmap_read) that cannot be read
 * so: the caller then reads the whole group with read(2), so that one
 * snapshot never mixes the two paths.
 */
static inline int ebs_mmap_read_all(struct perf_event_mmap_page *const *pages, int n,
				    ebs_rdpmc_fn rdpmc, uint64_t *v)
{
	int i, e;

	for (i = 0; i < n; i++) {
		e = ebs_mmap_read(pages[i], rdpmc, &v[i], NULL);
		if (e)
			return e;
	}
	return 0;
}

/*
 * The time-stamp counter's frequency that pc gives (cap_user_time: a
 * cycle is time_mult / 2^time_shift ns), or 0 when it gives none.
 */
static inline double ebs_mmap_tsc_hz(const volatile struct perf_event_mmap_page *pc)
{
	unsigned int n;

	for (n = 0; n < EBS_MMAP_RETRIES; n++) {
		uint32_t seq = pc->lock, mult;
		uint16_t shift;
		int cap;

		ebs_barrier();
		cap = pc->cap_user_time;
		mult = pc->time_mult;
		shift = pc->time_shift;
		ebs_barrier();
		if (pc->lock != seq)
			continue;
		if (!cap || !mult || shift >= 64)
			return 0;
		return 1e9 * (double)((uint64_t)1 << shift) / (double)mult;
	}
	return 0;
}

/*
 * Whether counters whose pages are pages[0..n) can all be read with
 * rdpmc: a machine with the instruction, every page mapped, giving
 * cap_user_rdpmc and a register index.
 */
static inline int ebs_mmap_can_rdpmc(struct perf_event_mmap_page *const *pages, int n)
{
	int i;

	if (!EBS_HAVE_RDPMC || n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!pages[i] || !pages[i]->cap_user_rdpmc || !pages[i]->index)
			return 0;
	return 1;
}

#endif /* EBS_LIBEBS_MMAP_READ_H */
