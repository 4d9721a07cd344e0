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
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ebs_kmod.h"

/*
 * Ring memory a user may lock without RLIMIT_MEMLOCK, in KB per online
 * CPU: perf's kernel.perf_event_mlock_kb and its default (that sysctl is
 * not exported to modules).  Beyond it, rings count against the caller's
 * RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK.
 */
static unsigned int ebs_mlock_kb = 512 + (PAGE_SIZE / 1024);
module_param_named(mlock_kb, ebs_mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb, "ring memory (KB per online CPU) a user may lock beyond RLIMIT_MEMLOCK");

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

	/*
	 * Nothing is counted or kept outside START..STOP: counters that an
	 * exec enabled before START, and those the target's children
	 * inherited, which STOP cannot disable (ebs_perf_stop()), write
	 * nothing, so STATS is final after STOP and RESET never races a writer.
	 */
	if (!READ_ONCE(s->counting) || cpu >= s->nr_rings)
		return;
	r = &s->rings[cpu];
	r->overflows++;
	if (!ebs_check_sample(s->cfg.flags, user_mode(regs)))
		return; /* a user-only counter's overflow that skid into the kernel */
	rec.ip = instruction_pointer(regs);
	rec.time_ns = ktime_get_mono_fast_ns();
	rec.pid = task_tgid_nr(current);
	rec.tid = task_pid_nr(current);
	rec.cpu = cpu;
	rec.flags = user_mode(regs) ? EBS_KREC_USER : EBS_KREC_KERNEL;
	if (ebs_ring_write(r, &rec) > 0)
		irq_work_queue(&s->wake[cpu].work); /* never wake directly from NMI */
}

/* irq_work: runs soon after the handler, in a context that may wake. */
static void ebs_wake_fn(struct irq_work *w)
{
	struct ebs_waker *wk = container_of(w, struct ebs_waker, work);

	wake_up_interruptible(&wk->session->wq);
}

/* ---- ring memory: charged as perf charges its rings ----------------------- */

/*
 * Charge pages of ring memory to the caller, as perf_mmap() charges a
 * ring: the user's locked_vm (shared with perf, io_uring and the like) up
 * to mlock_kb per online CPU, the rest the process's pinned_vm within
 * RLIMIT_MEMLOCK, unless CAP_IPC_LOCK.  Unlike perf, the check asks for
 * CAP_IPC_LOCK whatever kernel.perf_event_paranoid says (not exported).
 * 0 or -EPERM.
 */
static int ebs_charge(struct ebs_session *s, u64 pages)
{
	struct user_struct *user = current_user();
	struct mm_struct *mm = current->mm;
	u64 limit = (u64)(READ_ONCE(ebs_mlock_kb) >> (PAGE_SHIFT - 10)) * num_online_cpus();
	u64 locked, pinned, rlim = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 user_pages, pinned_pages;
	int err;

	if (!mm)
		return -EINVAL; /* no process to charge */
	locked = atomic_long_read(&user->locked_vm);
	pinned = atomic64_read(&mm->pinned_vm);
	err = ebs_check_charge(pages, locked, limit, pinned, rlim, false, &user_pages,
			       &pinned_pages);
	/* asked only when it matters: capable() is audited */
	if (err == -EPERM && capable(CAP_IPC_LOCK))
		err = ebs_check_charge(pages, locked, limit, pinned, rlim, true, &user_pages,
				       &pinned_pages);
	if (err)
		return err;
	atomic_long_add(user_pages, &user->locked_vm);
	atomic64_add(pinned_pages, &mm->pinned_vm);
	s->mlock_user = get_uid(user);
	mmgrab(mm);
	s->mlock_mm = mm;
	s->user_pages = user_pages;
	s->pinned_pages = pinned_pages;
	return 0;
}

static void ebs_uncharge(struct ebs_session *s)
{
	if (s->mlock_user) {
		atomic_long_sub(s->user_pages, &s->mlock_user->locked_vm);
		free_uid(s->mlock_user);
	}
	if (s->mlock_mm) {
		atomic64_sub(s->pinned_pages, &s->mlock_mm->pinned_vm);
		mmdrop(s->mlock_mm);
	}
	s->mlock_user = NULL;
	s->mlock_mm = NULL;
	s->user_pages = 0;
	s->pinned_pages = 0;
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
	kvfree(s->ring_mem);
	kvfree(s->rings);
	kvfree(s->wake);
	s->ring_mem = NULL;
	s->rings = NULL;
	s->wake = NULL;
	s->nr_rings = 0;
	ebs_uncharge(s);
}

/* One ring of (1 + pages) pages per possible CPU, charged first: 0, -EPERM or -ENOMEM. */
static int ebs_alloc_rings(struct ebs_session *s, u32 pages)
{
	unsigned int i, n = nr_cpu_ids;
	int err;

	err = ebs_charge(s, (u64)n * (1 + (u64)pages));
	if (err)
		return err;
	/* nr_cpu_ids of each: up to 8192 on a distribution kernel */
	s->rings = kvcalloc(n, sizeof(*s->rings), GFP_KERNEL);
	s->ring_mem = kvcalloc(n, sizeof(*s->ring_mem), GFP_KERNEL);
	s->wake = kvcalloc(n, sizeof(*s->wake), GFP_KERNEL);
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
 * May the caller sample task?  __ptrace_may_access()'s rule for
 * PTRACE_MODE_READ_REALCREDS, what perf_event_open asks (ptrace_may_access()
 * is not exported to modules): the caller's own thread group; or its real
 * uid and gid equal the target's real, effective and saved ones, or it has
 * CAP_SYS_PTRACE in the user namespace of the target's credentials; and
 * then the target's memory is dumpable, or it has CAP_SYS_PTRACE in the
 * user namespace of that memory.  task_lock() keeps task->mm from being
 * freed under us (exit_mm() clears it under that lock), as
 * ptrace_may_access() holds it.  LSM hooks (Yama's ptrace_scope) are not
 * consulted: security_ptrace_access_check() is not exported either.
 * Credentials are a thread's own: perf-kernel asks it of every thread it
 * attaches a counter to, under the target's exec_update_lock, as
 * perf_event_open() asks it (ebs_config_locked()).
 */
bool ebs_may_trace(struct task_struct *task)
{
	const struct cred *me = current_cred(), *them;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	task_lock(task);
	rcu_read_lock();
	them = __task_cred(task);
	ok = (uid_eq(me->uid, them->euid) && uid_eq(me->uid, them->suid) &&
	      uid_eq(me->uid, them->uid) && gid_eq(me->gid, them->egid) &&
	      gid_eq(me->gid, them->sgid) && gid_eq(me->gid, them->gid)) ||
	     ns_capable(them->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (ok) {
		/* dumpability after the credentials: pairs with commit_creds()' barrier */
		smp_rmb();
		mm = task->mm;
		if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
		    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
			ok = false;
	}
	task_unlock(task);
	return ok;
}

/*
 * May the caller see kernel addresses in samples?  perf's rule for
 * sampling the kernel (perf_allow_kernel(): CAP_PERFMON or CAP_SYS_ADMIN,
 * as at perf_event_paranoid 2 and up), and kernel.kptr_restrict's, as the
 * kernel applies it to %pK (restricted_pointer() in lib/vsprintf.c): 0
 * shows them, 1 only to a caller with CAP_SYSLOG whose effective ids are
 * its real ones, 2 to no one.  Neither kptr_restrict nor
 * kallsyms_show_value() is exported to modules, so the kernel is asked
 * through %pK itself: for a pointer that is not NULL it prints zeros
 * exactly when the rule hides it.  Process context only (%pK refuses
 * interrupts).
 */
static bool ebs_may_see_kernel(void)
{
	char buf[32];
	const char *p;

	if (!perfmon_capable())
		return false;
	snprintf(buf, sizeof(buf), "%pK", &ebs_busy);
	for (p = buf; *p == '0'; p++)
		;
	return *p != '\0';
}

/* ---- ioctls ---------------------------------------------------------------- */

/*
 * CONFIG of cfg, which ebs_check_ioctl() found well formed.  For a pid
 * target in perf-kernel mode the permission check and the mode's config()
 * (its counters' creation) run under the target's exec_update_lock, held
 * for reading, as perf_event_open() holds it across its check and the
 * counter's installation: an exec, which takes it for writing around
 * installing its new credentials and removing the counters of a process
 * it makes undumpable (perf_event_exit_task()), then comes wholly before
 * the check, which sees the new credentials, or wholly after the counters
 * are attached, and removes them.  Otherwise a setuid exec between the
 * check and the attach would be sampled.  The threads share the lock (it
 * is in signal_struct); each is checked (ebs_perf_config()).  msr mode
 * does not take it: it attaches nothing to a task, so an exec has nothing
 * to remove, and its caller is perfmon_capable(), which may sample every
 * process on every CPU anyway (its ptrace check is perf's rule for a pid,
 * not a barrier against an exec).
 */
static int ebs_config_locked(struct ebs_session *s, const struct ebs_config *cfg)
{
	const struct ebs_mode_ops *mode;
	struct task_struct *task = NULL;
	bool exec_locked = false;
	struct pid *pid;
	int err;

	/*
	 * Checked here, against the caller of CONFIG, and not only at open:
	 * the descriptor may have been handed to a less privileged process.
	 * Counting the kernel shows no kernel address: perf's rule for it
	 * (perf_allow_kernel()) only.
	 */
	if ((cfg->flags & EBS_CFG_KERNEL) &&
	    !(cfg->flags & EBS_CFG_COUNT ? perfmon_capable() : ebs_may_see_kernel()))
		return -EACCES;
	if (ebs_check_perfmon(cfg) && !perfmon_capable())
		return -EACCES; /* all CPUs, or msr mode: perf_allow_cpu()'s rule */
	if (!(cfg->flags & EBS_CFG_ALL_CPUS)) {
		pid = find_get_pid(cfg->pid);
		task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
		put_pid(pid);
		if (!task)
			return -ESRCH;
		/* the task reference keeps task->signal */
		if (cfg->mode == EBS_MODE_PERF_KERNEL) {
			err = down_read_interruptible(&task->signal->exec_update_lock);
			if (err) {
				put_task_struct(task);
				return err;
			}
			exec_locked = true;
		}
		/* the process, whichever of its threads was named */
		s->target = get_task_pid(task, PIDTYPE_TGID);
		err = ebs_may_trace(task) ? 0 : -EACCES;
		if (err)
			goto out_put;
	}
	/* a counting session has no rings */
	err = cfg->flags & EBS_CFG_COUNT ? 0 : ebs_alloc_rings(s, cfg->ring_pages);
	if (err)
		goto out_put;
	s->cfg = *cfg;
	/* mode is below ARRAY_SIZE(ebs_modes) (ebs_check_config()), speculatively too */
	mode = ebs_modes[array_index_nospec(cfg->mode, ARRAY_SIZE(ebs_modes))];
	s->mode = mode;
	err = mode->config(s);
	if (err) {
		s->mode = NULL;
		ebs_free_rings(s);
		goto out_put;
	}
	s->state = EBS_CONFIGURED;
	/* last: ebs_mmap() reads the rings once it sees this, without the lock */
	smp_store_release(&s->configured, true);
	goto out_unlock;

out_put:
	put_pid(s->target);
	s->target = NULL;
out_unlock:
	if (exec_locked)
		up_read(&task->signal->exec_update_lock);
	if (task)
		put_task_struct(task);
	return err;
}

/*
 * STATS' copy out, made without the lock (see ebs_ioctl()): the rings and
 * their number do not change from CONFIG to release, and the statistics
 * are read as the handlers write them, without a lock anyway.
 */
static int ebs_stats_copy_out(struct ebs_session *s, struct ebs_stats *st,
			      struct ebs_stats __user *arg)
{
	/* entry_size is 0, or one of the two sizes (ebs_check_ioctl()), at most sizeof(c) */
	size_t size = st->entry_size ? st->entry_size : sizeof(struct ebs_cpu_stats);
	u8 __user *out = u64_to_user_ptr(st->cpu_ptr);
	unsigned int i, n = min_t(unsigned int, st->nr_cpus, s->nr_rings);

	for (i = 0; i < n; i++) {
		const struct ebs_ring *r = &s->rings[i];
		struct ebs_cpu_stats3 c = {
			.s.samples = READ_ONCE(r->samples),
			.s.dropped = READ_ONCE(r->dropped),
			.s.overflows = READ_ONCE(r->overflows),
			.s.spurious = READ_ONCE(r->spurious),
			.throttled = READ_ONCE(r->throttled),
		};

		if (copy_to_user(out + i * size, &c, min(size, sizeof(c))))
			return -EFAULT;
	}
	st->nr_cpus = n;
	return copy_to_user(arg, st, sizeof(*st)) ? -EFAULT : 0;
}

/*
 * RESET: the rings emptied, the statistics zeroed, and READ's counts from
 * 0.  A module cannot reset the kernel's perf counters (_perf_event_reset()
 * is not exported), and msr mode's are the same kind of sums, so what
 * READ gives now becomes the base that later READs subtract.  A session
 * READ cannot read has no base: msr mode's sampling (-EOPNOTSUPP), and a
 * perf-kernel session cut for its inherited counters (-E2BIG, which READ
 * keeps returning).  0, or an error with the session as it was.
 */
static int ebs_reset_locked(struct ebs_session *s)
{
	struct ebs_count *base = NULL;
	unsigned int i;
	int n;

	if (s->mode->read) {
		base = kvcalloc(nr_cpu_ids + 1, sizeof(*base), GFP_KERNEL);
		if (!base)
			return -ENOMEM;
		n = s->mode->read(s, base, &base[nr_cpu_ids]);
		if (n < 0) {
			kvfree(base);
			base = NULL;
			/* not a session READ can read (any more): nothing to base */
			if (n != -EOPNOTSUPP && n != -E2BIG)
				return n;
		}
	}
	kvfree(s->read_base);
	s->read_base = base;
	for (i = 0; i < s->nr_rings; i++)
		ebs_ring_reset(&s->rings[i]);
	s->state = EBS_CONFIGURED;
	return 0;
}

/* READ's counts, cpu[nr_cpu_ids] and *sum, less what they were at RESET. */
static void ebs_count_since_reset(struct ebs_session *s, struct ebs_count *cpu,
				  struct ebs_count *sum)
{
	unsigned int i;

	if (!s->read_base)
		return;
	for (i = 0; i < nr_cpu_ids; i++)
		ebs_check_count_since(&cpu[i], &s->read_base[i]);
	ebs_check_count_since(sum, &s->read_base[nr_cpu_ids]);
}

/*
 * READ's counts, into cpu[nr_cpu_ids] (zeroed, allocated by the caller
 * without the lock) and r->sum; r->nr_cpus becomes what the caller's array
 * will get.  Copied out by ebs_read_copy_out(), without the lock.
 */
static int ebs_read_locked(struct ebs_session *s, struct ebs_read *r, struct ebs_count *cpu)
{
	int n;

	if (!s->mode->read)
		return -EOPNOTSUPP;
	memset(&r->sum, 0, sizeof(r->sum));
	n = s->mode->read(s, cpu, &r->sum);
	if (n < 0)
		return n;
	ebs_count_since_reset(s, cpu, &r->sum);
	r->nr_cpus = min_t(u32, r->nr_cpus, (u32)n);
	return 0;
}

static int ebs_read_copy_out(const struct ebs_read *r, const struct ebs_count *cpu,
			     struct ebs_read __user *arg)
{
	if (r->nr_cpus && copy_to_user(u64_to_user_ptr(r->cpu_ptr), cpu, r->nr_cpus * sizeof(*cpu)))
		return -EFAULT;
	return copy_to_user(arg, r, sizeof(*r)) ? -EFAULT : 0;
}

/* STOP: after it, no handler writes a sample or a statistic. */
static void ebs_stop_locked(struct ebs_session *s)
{
	WRITE_ONCE(s->counting, false);
	s->mode->stop(s);
	/*
	 * Counters the target's children inherited are not stopped (see
	 * ebs_perf_stop()); their handlers, and any other that read counting
	 * before it was cleared, run in interrupt or NMI context: each is an
	 * RCU read-side critical section, so a grace period outlasts them.
	 */
	synchronize_rcu();
}

/*
 * The lock is never held while user memory is touched, so that no fault
 * (which takes mmap_lock) runs under it: the argument is copied in first,
 * STATS and READ copy out after the lock is dropped.  (Before ebs_mmap()
 * stopped taking the lock, a copy under it in one thread and an mmap() in
 * another deadlocked.)  The state decides first all the same, so a
 * request in the wrong state fails alike whatever its pointer.
 */
static long ebs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ebs_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	union ebs_ioctl_arg a;
	struct ebs_count *cpu = NULL;
	bool fault = false;
	unsigned int i;
	long err;

	if (cmd == EBS_IOC_VERSION)
		return put_user((__u32)EBS_ABI_VERSION, (__u32 __user *)uarg);
	/* a request of ours (known in some state) has the size of a member of a */
	if (ebs_check_state(cmd, EBS_OPEN) != -ENOTTY && (_IOC_DIR(cmd) & _IOC_WRITE))
		fault = copy_from_user(&a, uarg, _IOC_SIZE(cmd)) != 0;
	/* READ's per-CPU counts (24 bytes x up to 8192), allocated before the lock is taken */
	if (cmd == EBS_IOC_READ) {
		cpu = kvcalloc(nr_cpu_ids, sizeof(*cpu), GFP_KERNEL);
		if (!cpu)
			return -ENOMEM;
	}

	mutex_lock(&s->lock);
	err = ebs_check_state(cmd, s->state);
	if (!err && fault)
		err = -EFAULT;
	if (!err)
		err = ebs_check_ioctl(cmd, s->state, s->nr_rings, &a);
	if (err)
		goto out;
	switch (cmd) {
	case EBS_IOC_CONFIG:
		err = ebs_config_locked(s, &a.cfg);
		break;
	case EBS_IOC_START:
		WRITE_ONCE(s->counting, true);
		s->mode->start(s);
		s->state = EBS_RUNNING;
		break;
	case EBS_IOC_STOP:
		ebs_stop_locked(s);
		s->state = EBS_STOPPED;
		wake_up_interruptible(&s->wq);
		break;
	case EBS_IOC_STATS:
		break; /* below, without the lock */
	case EBS_IOC_RESET:
		err = ebs_reset_locked(s);
		break;
	case EBS_IOC_TAIL:
		/* cpu is below nr_rings (ebs_check_ioctl()), speculatively too */
		i = array_index_nospec(a.tail.cpu, s->nr_rings);
		err = ebs_ring_set_tail(&s->rings[i], a.tail.tail);
		break;
	case EBS_IOC_READ:
		err = ebs_read_locked(s, &a.read, cpu);
		break;
	default:
		err = -ENOTTY; /* not reached: ebs_check_state() knows the requests */
		break;
	}
out:
	mutex_unlock(&s->lock);
	if (!err && cmd == EBS_IOC_STATS)
		err = ebs_stats_copy_out(s, &a.stats, uarg);
	if (!err && cmd == EBS_IOC_READ)
		err = ebs_read_copy_out(&a.read, cpu, uarg);
	kvfree(cpu);
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
		ebs_stop_locked(s);
	if (s->mode)
		s->mode->release(s); /* no handler runs after this */
	ebs_free_rings(s);	     /* and uncharges them */
	kvfree(s->read_base);
	put_pid(s->target);
	mutex_unlock(&s->lock);
	mutex_destroy(&s->lock);
	kfree(s);
	atomic_set(&ebs_busy, 0);
	return 0;
}

/*
 * One CPU's ring: (1 + ring_pages) pages at offset cpu * (1 + ring_pages)
 * pages.  Called under mmap_lock, so without the session's lock (see
 * struct ebs_session): what it reads is fixed once configured is set.
 */
static int ebs_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ebs_session *s = file->private_data;
	/* pairs with ebs_config_locked()'s smp_store_release() */
	bool configured = smp_load_acquire(&s->configured);
	unsigned int cpu, nr_rings = configured ? s->nr_rings : 0;
	u32 ring_pages = configured ? s->cfg.ring_pages : 0;
	int err;

	err = ebs_check_mmap(vma->vm_pgoff, vma->vm_end - vma->vm_start, vma->vm_flags & VM_WRITE,
			     configured ? EBS_CONFIGURED : EBS_OPEN, ring_pages, nr_rings,
			     PAGE_SIZE, &cpu);
	if (!err) {
		/*
		 * perf_mmap()'s flags: never writable (no mprotect() later),
		 * not copied into a forked child (which would hold the session
		 * open after its owner closed it), never grown by mremap(),
		 * not in core dumps.
		 */
		ebs_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
		/* cpu is below nr_rings (ebs_check_mmap()), speculatively too */
		cpu = array_index_nospec(cpu, nr_rings);
		err = remap_vmalloc_range(vma, s->ring_mem[cpu], 0);
	}
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
MODULE_LICENSE("GPL"); /* the kernel perf-counter API is exported GPL-only */
MODULE_AUTHOR("ebs maintainers");
MODULE_DESCRIPTION("ebs: event-based sampling, counter preloaded with -N, IP recorded on overflow");
