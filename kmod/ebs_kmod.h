/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of ebs.ko share: the session and the
 * collection modes' ops table.
 */
#ifndef EBS_KMOD_H
#define EBS_KMOD_H

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/wait.h>

#include "ebs_check.h"
#include "ebs_ring.h"

struct ebs_session;

/* Per CPU: wakes the reader from the sample handler's context, via irq_work. */
struct ebs_waker {
	struct irq_work work;
	struct ebs_session *session;
};

/*
 * A collection mode.  config() claims what the mode needs (counters,
 * reservations) for s->cfg, start()/stop() switch counting on and off,
 * release() gives everything back.  read() fills cpu[nr_cpu_ids] (zeroed)
 * and *sum with the counters' values (EBS_IOC_READ) and returns how many
 * entries of cpu[] mean something (nr_cpu_ids, or 0 when the counters are
 * not per CPU), or -errno; NULL where the mode cannot.  config() and
 * release() may sleep; start(), stop() and read() too.  All are called
 * with s->lock held; perf-kernel's config() of a pid target also with the
 * target's signal->exec_update_lock held for reading (ebs_config_locked()).
 */
struct ebs_mode_ops {
	const char *name;
	int (*config)(struct ebs_session *s);
	void (*start)(struct ebs_session *s);
	void (*stop)(struct ebs_session *s);
	void (*release)(struct ebs_session *s);
	int (*read)(struct ebs_session *s, struct ebs_count *cpu, struct ebs_count *sum);
};

/*
 * One open of /dev/ebs; at most one exists (ebs_busy).
 *
 * State machine: OPEN -CONFIG-> CONFIGURED -START-> RUNNING -STOP-> STOPPED
 * -START-> RUNNING ...; RESET takes CONFIGURED or STOPPED back to
 * CONFIGURED with empty rings, zero statistics and READ's counts from 0
 * (read_base).  Anything else is -EINVAL, or -EBUSY while RUNNING.  close
 * (the last reference to the file, so also after every mapping is gone)
 * stops and releases everything.
 *
 * The handlers count and keep nothing unless counting is set (from START
 * to STOP): counters that the target's exec enables early
 * (EBS_CFG_ON_EXEC) write nothing before START, and counters that the
 * target's children inherited, which STOP leaves armed (ebs_perf_stop()),
 * nothing after STOP, which waits for a handler that saw counting set to
 * return.  So STATS is final once STOPPED, and RESET never races a writer.
 *
 * Memory: the rings are charged at CONFIG to the caller, as perf charges
 * its rings (ebs_charge() in ebs_main.c), and uncharged when they are freed.
 *
 * Locking: lock (a mutex) protects state, cfg, the mode and the ring array
 * itself against ioctl, poll and release.  The modes call perf under it,
 * so it comes before perf's own locks: lock -> the target's
 * exec_update_lock (perf-kernel CONFIG) -> a perf context's mutex ->
 * mmap_lock (perf copies from user memory under its context mutex).  So
 * mmap(), which the kernel calls under mmap_lock, does not take lock:
 * mmap_lock -> lock would close that cycle.  It reads configured instead,
 * which CONFIG sets last, with release, once it succeeded: from then to
 * release the ring array, ring_mem, nr_rings and cfg.ring_pages do not
 * change, and release cannot run while a mapping is being made (the
 * mapping holds the file).  Nor is lock held while user memory is touched
 * (ebs_ioctl()), so that no fault ever runs under it.  lock and
 * exec_update_lock also come before cpu_hotplug_lock (msr START, STOP,
 * READ and its hotplug state; perf's static keys when counters are
 * created and freed): the hotplug callbacks take no lock of the module's
 * (docs/kmod.md section 4.11).  Inside a ring, head and the statistics
 * belong to the sample handler of the ring's CPU (no lock: see
 * ebs_ring.h); tail is set under lock.  The handlers reach the session
 * only through the counters' context pointer (perf-kernel) or
 * ebs_msr_active (msr), both cleared, with the handlers quiesced, before
 * the session is freed.
 */
struct ebs_session {
	struct mutex lock; /* see Locking above */
	enum ebs_state state;
	bool configured; /* CONFIG succeeded: set once, with release; what mmap() reads */
	bool counting;	 /* RUNNING, as the sample handlers read it */
	struct ebs_config cfg;
	const struct ebs_mode_ops *mode;
	unsigned int nr_rings;	/* nr_cpu_ids */
	struct ebs_ring *rings; /* [nr_rings], by CPU */
	void **ring_mem;	/* [nr_rings]: vmalloc_user()ed buffers */
	struct ebs_waker *wake; /* [nr_rings]: wakes wq from any context */
	wait_queue_head_t wq;
	struct pid *target;		/* pid target (a reference), NULL for all CPUs */
	struct user_struct *mlock_user; /* charged user_pages of its locked_vm (a reference) */
	struct mm_struct *mlock_mm;	/* charged pinned_pages of its pinned_vm (mmgrab()) */
	u64 user_pages, pinned_pages;
	/* READ at the last RESET, which later READs subtract: [nr_cpu_ids + 1], the sum last */
	struct ebs_count *read_base;
	void *mode_data; /* the mode's own */
};

extern const struct ebs_mode_ops ebs_perf_mode;
extern const struct ebs_mode_ops ebs_msr_mode;

/* Record the interrupted context (regs) as a sample in this CPU's ring. */
void ebs_session_sample(struct ebs_session *s, struct pt_regs *regs);

/* May the caller sample task (the ptrace rule of perf_event_open)? */
bool ebs_may_trace(struct task_struct *task);

#endif /* EBS_KMOD_H */
