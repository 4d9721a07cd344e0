// SPDX-License-Identifier: GPL-2.0
/*
 * ebs.ko: /dev/ebs, a char device through which one session
 * at a time samples the interrupted instruction pointer every N events of
 * one counter into per-CPU rings that user space maps read-only.
 *
 * The ABI is include/ebs/ebs_abi.h and nothing else.  The collection itself
 * is a mode behind struct ebs_mode_ops: perf-kernel (ebs_perf.c, a kernel
 * perf counter with an overflow handler, the default) or msr (ebs_msr_hw.c,
 * counter 0 programmed directly, an NMI handler).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/sched/coredump.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "ebs_kmod.h"

static atomic_t ebs_busy = ATOMIC_INIT(0);

static const struct ebs_mode_ops *const ebs_modes[] = {
	[EBS_MODE_PERF_KERNEL] = &ebs_perf_mode,
	[EBS_MODE_MSR] = &ebs_msr_mode,
};

void ebs_session_sample(struct ebs_session *s, struct pt_regs *regs)
{
	unsigned int cpu = smp_processor_id();
	struct ebs_krecord rec;
	struct ebs_ring *r;

	if (cpu >= s->nr_rings)
		return;
	r = &s->rings[cpu];
	r->overflows++;
	if (!READ_ONCE(s->counting))
		return;	/* enabled by an exec before START: not ours to keep yet */
	rec.ip = instruction_pointer(regs);
	rec.time_ns = ktime_get_mono_fast_ns();
	rec.pid = task_tgid_nr(current);
	rec.tid = task_pid_nr(current);
	rec.cpu = cpu;
	rec.flags = user_mode(regs) ? EBS_KREC_USER : EBS_KREC_KERNEL;
	if (ebs_ring_write(r, &rec) > 0)
		irq_work_queue(&s->wake[cpu].work);	/* never wake directly from NMI */
}

/* irq_work: runs soon after the handler, in a context that may wake. */
static void ebs_wake_fn(struct irq_work *w)
{
	struct ebs_waker *wk = container_of(w, struct ebs_waker, work);

	wake_up_interruptible(&wk->session->wq);
}

/* ---- rings ---------------------------------------------------------------- */

static void ebs_free_rings(struct ebs_session *s)
{
	unsigned int i;

	if (s->wake)
		for (i = 0; i < s->nr_rings; i++)
			irq_work_sync(&s->wake[i].work);
	if (s->ring_mem)
		for (i = 0; i < s->nr_rings; i++)
			vfree(s->ring_mem[i]);
	kfree(s->ring_mem);
	kfree(s->rings);
	kfree(s->wake);
	s->ring_mem = NULL;
	s->rings = NULL;
	s->wake = NULL;
	s->nr_rings = 0;
}

static int ebs_alloc_rings(struct ebs_session *s, u32 pages)
{
	unsigned int i, n = nr_cpu_ids;

	s->rings = kcalloc(n, sizeof(*s->rings), GFP_KERNEL);
	s->ring_mem = kcalloc(n, sizeof(*s->ring_mem), GFP_KERNEL);
	s->wake = kcalloc(n, sizeof(*s->wake), GFP_KERNEL);
	if (!s->rings || !s->ring_mem || !s->wake)
		goto out_nomem;
	s->nr_rings = n;
	for (i = 0; i < n; i++) {
		/* zeroed, and allowed to be mapped to user space */
		s->ring_mem[i] = vmalloc_user((1 + (size_t)pages) * PAGE_SIZE);
		if (!s->ring_mem[i])
			goto out_nomem;
		ebs_ring_init(&s->rings[i], s->ring_mem[i], pages, i, PAGE_SIZE);
		init_irq_work(&s->wake[i].work, ebs_wake_fn);
		s->wake[i].session = s;
	}
	return 0;

out_nomem:
	ebs_free_rings(s);
	return -ENOMEM;
}

/* ---- permission ------------------------------------------------------------ */

/*
 * May the caller sample task?  The ptrace rule for reading another process
 * (ptrace_may_access() is not exported to modules): same real, effective
 * and saved ids and a dumpable task, or CAP_SYS_PTRACE in the task's user
 * namespace.  LSM hooks (Yama's ptrace_scope) are not consulted.
 */
static bool ebs_may_trace(struct task_struct *task)
{
	const struct cred *me = current_cred(), *them;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	rcu_read_lock();
	them = __task_cred(task);
	ok = uid_eq(me->uid, them->euid) && uid_eq(me->uid, them->suid) &&
	     uid_eq(me->uid, them->uid) && gid_eq(me->gid, them->egid) &&
	     gid_eq(me->gid, them->sgid) && gid_eq(me->gid, them->gid);
	if (ok && task->mm && get_dumpable(task->mm) != SUID_DUMP_USER)
		ok = false;
	if (!ok)
		ok = ns_capable(them->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	return ok;
}

/* ---- ioctls ---------------------------------------------------------------- */

static int ebs_config_locked(struct ebs_session *s, const struct ebs_config __user *arg)
{
	struct ebs_config cfg;
	struct task_struct *task;
	struct pid *pid;
	int err;

	if (s->state != EBS_OPEN)
		return s->state == EBS_RUNNING ? -EBUSY : -EINVAL;
	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	if (cfg.mode >= ARRAY_SIZE(ebs_modes) || cfg.reserved || (cfg.flags & ~EBS_CFG_KNOWN) ||
	    !(cfg.flags & (EBS_CFG_USER | EBS_CFG_KERNEL)) ||
	    (cfg.event_kind != EBS_EVENT_GENERIC && cfg.event_kind != EBS_EVENT_RAW) ||
	    (cfg.event_kind == EBS_EVENT_GENERIC && cfg.event_id >= EBS_GEN_MAX) ||
	    cfg.sample_after < EBS_SAMPLE_AFTER_MIN ||
	    cfg.ring_pages < EBS_RING_MIN_PAGES || cfg.ring_pages > EBS_RING_MAX_PAGES ||
	    (cfg.ring_pages & (cfg.ring_pages - 1)) ||
	    ((cfg.flags & EBS_CFG_ALL_CPUS) && (cfg.flags & EBS_CFG_ON_EXEC)))
		return -EINVAL;
	/*
	 * Kernel code is sampled only with CAP_PERFMON (as perf at paranoid
	 * level 2).  open already asked for it; this is for a descriptor that
	 * was handed to a less privileged process.
	 */
	if ((cfg.flags & EBS_CFG_KERNEL) && !perfmon_capable())
		return -EACCES;
	if (!(cfg.flags & EBS_CFG_ALL_CPUS)) {
		if (cfg.pid <= 0)
			return -EINVAL;
		pid = find_get_pid(cfg.pid);
		task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
		put_pid(pid);
		if (!task)
			return -ESRCH;
		/* the process, whichever of its threads was named */
		s->target = get_task_pid(task, PIDTYPE_TGID);
		err = ebs_may_trace(task) ? 0 : -EACCES;
		put_task_struct(task);
		if (err)
			goto out_put;
	}
	err = ebs_alloc_rings(s, cfg.ring_pages);
	if (err)
		goto out_put;
	s->cfg = cfg;
	s->mode = ebs_modes[cfg.mode];
	err = s->mode->config(s);
	if (err) {
		s->mode = NULL;
		ebs_free_rings(s);
		goto out_put;
	}
	s->state = EBS_CONFIGURED;
	return 0;

out_put:
	put_pid(s->target);
	s->target = NULL;
	return err;
}

static int ebs_stats_locked(struct ebs_session *s, struct ebs_stats __user *arg)
{
	struct ebs_cpu_stats __user *out;
	struct ebs_stats st;
	unsigned int i, n;

	if (s->state == EBS_OPEN)
		return -EINVAL;
	if (copy_from_user(&st, arg, sizeof(st)))
		return -EFAULT;
	if (st.reserved)
		return -EINVAL;
	n = min_t(unsigned int, st.nr_cpus, s->nr_rings);
	out = u64_to_user_ptr(st.cpu_ptr);
	for (i = 0; i < n; i++) {
		const struct ebs_ring *r = &s->rings[i];
		struct ebs_cpu_stats c = {
			.samples = READ_ONCE(r->samples),
			.dropped = READ_ONCE(r->dropped),
			.overflows = READ_ONCE(r->overflows),
			.spurious = READ_ONCE(r->spurious),
		};

		if (copy_to_user(&out[i], &c, sizeof(c)))
			return -EFAULT;
	}
	st.nr_cpus = n;
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static int ebs_tail_locked(struct ebs_session *s, const struct ebs_tail __user *arg)
{
	struct ebs_tail t;

	if (s->state == EBS_OPEN)
		return -EINVAL;
	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	if (t.reserved || t.cpu >= s->nr_rings)
		return -EINVAL;
	return ebs_ring_set_tail(&s->rings[t.cpu], t.tail);
}

static long ebs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ebs_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned int i;
	long err = 0;

	if (cmd == EBS_IOC_VERSION)
		return put_user((__u32)EBS_ABI_VERSION, (__u32 __user *)uarg);

	mutex_lock(&s->lock);
	switch (cmd) {
	case EBS_IOC_CONFIG:
		err = ebs_config_locked(s, uarg);
		break;
	case EBS_IOC_START:
		if (s->state != EBS_CONFIGURED && s->state != EBS_STOPPED) {
			err = s->state == EBS_RUNNING ? -EBUSY : -EINVAL;
			break;
		}
		WRITE_ONCE(s->counting, true);
		s->mode->start(s);
		s->state = EBS_RUNNING;
		break;
	case EBS_IOC_STOP:
		if (s->state != EBS_RUNNING) {
			err = -EINVAL;
			break;
		}
		s->mode->stop(s);	/* no handler runs after this */
		WRITE_ONCE(s->counting, false);
		s->state = EBS_STOPPED;
		wake_up_interruptible(&s->wq);
		break;
	case EBS_IOC_STATS:
		err = ebs_stats_locked(s, uarg);
		break;
	case EBS_IOC_RESET:
		if (s->state != EBS_CONFIGURED && s->state != EBS_STOPPED) {
			err = s->state == EBS_RUNNING ? -EBUSY : -EINVAL;
			break;
		}
		for (i = 0; i < s->nr_rings; i++)
			ebs_ring_reset(&s->rings[i]);
		s->state = EBS_CONFIGURED;
		break;
	case EBS_IOC_TAIL:
		err = ebs_tail_locked(s, uarg);
		break;
	default:
		err = -ENOTTY;
		break;
	}
	mutex_unlock(&s->lock);
	return err;
}

/* ---- file operations ---------------------------------------------------- */

static int ebs_open(struct inode *inode, struct file *file)
{
	struct ebs_session *s;

	if (!perfmon_capable())
		return -EACCES;
	if (atomic_cmpxchg(&ebs_busy, 0, 1))
		return -EBUSY;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		atomic_set(&ebs_busy, 0);
		return -ENOMEM;
	}
	mutex_init(&s->lock);
	init_waitqueue_head(&s->wq);
	s->state = EBS_OPEN;
	file->private_data = s;
	return 0;
}

/* The last reference to the file (so every mapping too) is gone. */
static int ebs_release(struct inode *inode, struct file *file)
{
	struct ebs_session *s = file->private_data;

	mutex_lock(&s->lock);
	if (s->state == EBS_RUNNING)
		s->mode->stop(s);
	if (s->mode)
		s->mode->release(s);	/* no handler runs after this */
	ebs_free_rings(s);
	put_pid(s->target);
	mutex_unlock(&s->lock);
	mutex_destroy(&s->lock);
	kfree(s);
	atomic_set(&ebs_busy, 0);
	return 0;
}

/* One CPU's ring: (1 + ring_pages) pages at offset cpu * (1 + ring_pages) pages. */
static int ebs_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ebs_session *s = file->private_data;
	unsigned long pages, cpu;
	int err = -EINVAL;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	mutex_lock(&s->lock);
	if (s->state == EBS_OPEN)
		goto out;
	pages = 1 + (unsigned long)s->cfg.ring_pages;
	cpu = vma->vm_pgoff / pages;
	if (vma->vm_pgoff % pages || cpu >= s->nr_rings ||
	    vma->vm_end - vma->vm_start != pages * PAGE_SIZE)
		goto out;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
	err = remap_vmalloc_range(vma, s->ring_mem[cpu], 0);
out:
	mutex_unlock(&s->lock);
	return err;
}

static __poll_t ebs_poll(struct file *file, poll_table *wait)
{
	struct ebs_session *s = file->private_data;
	__poll_t mask = 0;
	unsigned int i;

	poll_wait(file, &s->wq, wait);
	mutex_lock(&s->lock);
	for (i = 0; i < s->nr_rings; i++) {
		u64 unread = ebs_ring_unread(&s->rings[i]);

		if (unread >= s->rings[i].watermark || (s->state == EBS_STOPPED && unread))
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	if (s->state == EBS_STOPPED)
		mask |= EPOLLHUP;
	mutex_unlock(&s->lock);
	return mask;
}

static const struct file_operations ebs_fops = {
	.owner = THIS_MODULE,
	.open = ebs_open,
	.release = ebs_release,
	.unlocked_ioctl = ebs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ebs_mmap,
	.poll = ebs_poll,
	.llseek = noop_llseek,
};

static struct miscdevice ebs_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ebs",
	.fops = &ebs_fops,
	.mode = 0600,
};

static int __init ebs_init(void)
{
	return misc_register(&ebs_dev);
}

static void __exit ebs_exit(void)
{
	misc_deregister(&ebs_dev);
}

module_init(ebs_init);
module_exit(ebs_exit);
MODULE_LICENSE("GPL");	/* the kernel perf-counter API is exported GPL-only */
MODULE_AUTHOR("ebs maintainers");
MODULE_DESCRIPTION("ebs: event-based sampling, counter preloaded with -N, IP recorded on overflow");
