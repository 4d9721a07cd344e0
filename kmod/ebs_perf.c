// SPDX-License-Identifier: GPL-2.0
/*
 * The perf-kernel mode: kernel perf counters (one per thread
 * of the target, inherited by its new threads and children, or one per
 * CPU) with sample_period = N and an overflow handler that records the
 * interrupted IP.  The kernel's perf subsystem owns the counter: this works
 * wherever it has the event, software clocks in a guest without a PMU too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/printk.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <ebs/ebs_events.h>

#include "ebs_kmod.h"

/*
 * The mode's part of a session.  nr and events change at CONFIG, at
 * release (after the bound's work is cancelled), and when that work cuts
 * the session (under s->lock, which START, STOP and READ hold); the work
 * reads them without it, as nothing else changes them while it may run.
 */
struct ebs_perf {
	struct ebs_session *s;
	unsigned int nr;
	struct perf_event **events;
	unsigned int *owner;	   /* [nr]: the thread (or, all CPUs, the CPU) each counts for */
	bool started;		   /* once started, START enables even with ON_EXEC */
	bool cut;		   /* released for having too many copies: READ is -E2BIG */
	struct delayed_work bound; /* a pid target: counts the inherited copies */
};

/*
 * The most counters a session may have: those CONFIG creates (a counting
 * session of a pid has one per thread and online CPU, so that READ can say
 * what each CPU counted), and the copies the kernel makes of them for the
 * threads and processes that the target creates afterwards (inherit).  No
 * hook tells the module of a fork, so the copies are counted every
 * EBS_PERF_BOUND_MS (ebs_perf_bound_fn()); counters, read-only, is what
 * the last count found.  Both in /sys/module/ebs/parameters/.
 */
static unsigned int ebs_max_counters = 65536;
module_param_named(max_counters, ebs_max_counters, uint, 0644);
MODULE_PARM_DESC(max_counters, "the most counters a session may have, inherited copies included");
static unsigned int ebs_counters;
module_param_named(counters, ebs_counters, uint, 0444);
MODULE_PARM_DESC(counters, "the session's counters, inherited copies included, as last counted");

#define EBS_PERF_BOUND_MS 100

static void ebs_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	ebs_session_sample(event->overflow_handler_context, regs);
}

static int ebs_perf_attr(const struct ebs_config *cfg, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (cfg->event_kind == EBS_EVENT_RAW) {
		if (cfg->event_id & ~EBS_EVTSEL_RAW)
			return -EINVAL;
		attr->type = PERF_TYPE_RAW;
		attr->config = cfg->event_id;
	} else {
		const struct ebs_event *e = ebs_event_generic(cfg->event_id);

		if (!e)
			return -EINVAL;
		attr->type = e->type;
		attr->config = e->config;
	}
	attr->sample_period = cfg->sample_after; /* 0 with EBS_CFG_COUNT: counting */
	attr->disabled = 1;
	attr->exclude_user = !(cfg->flags & EBS_CFG_USER);
	attr->exclude_kernel = !(cfg->flags & EBS_CFG_KERNEL);
	attr->exclude_hv = 1;
	attr->inherit = !(cfg->flags & EBS_CFG_ALL_CPUS);
	attr->enable_on_exec = !!(cfg->flags & EBS_CFG_ON_EXEC);
	return 0;
}

static int ebs_perf_add(struct ebs_session *s, struct ebs_perf *p, struct perf_event_attr *attr,
			int cpu, struct task_struct *task, unsigned int owner)
{
	bool count = s->cfg.flags & EBS_CFG_COUNT;
	struct perf_event *ev;

	/* a counting counter has no overflow handler: it never interrupts */
	ev = perf_event_create_kernel_counter(attr, cpu, task, count ? NULL : ebs_perf_overflow,
					      count ? NULL : s);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	p->owner[p->nr] = owner;
	p->events[p->nr++] = ev;
	return 0;
}

/* Room for n counters (up to 512 KB of pointers); 0 or -ENOMEM. */
static int ebs_perf_alloc(struct ebs_perf *p, size_t n)
{
	p->events = kvcalloc(n, sizeof(*p->events), GFP_KERNEL);
	p->owner = kvcalloc(n, sizeof(*p->owner), GFP_KERNEL);
	return p->events && p->owner ? 0 : -ENOMEM;
}

/*
 * Thread task's counters: one on any CPU, or, counting, one per CPU of
 * cpus.  The caller may sample it (the ptrace rule: credentials are the
 * thread's own), else -EACCES.  A thread that exits meanwhile (-ESRCH) is
 * no loss: 0.  A task counter may be bound to a CPU that went offline
 * since cpus was taken: it counts when the thread runs there again.
 */
static int ebs_perf_add_thread(struct ebs_session *s, struct ebs_perf *p,
			       struct perf_event_attr *attr, struct task_struct *task,
			       unsigned int owner, const struct cpumask *cpus)
{
	int cpu, err = 0;

	if (!ebs_may_trace(task))
		return -EACCES;
	if (!(s->cfg.flags & EBS_CFG_COUNT))
		err = ebs_perf_add(s, p, attr, -1, task, owner);
	else
		for_each_cpu(cpu, cpus) {
			err = ebs_perf_add(s, p, attr, cpu, task, owner);
			if (err)
				break;
		}
	return err == -ESRCH ? 0 : err;
}

/* All CPUs: a counter on each CPU of cpus, but one that went offline since (-ENODEV). */
static int ebs_perf_add_cpus(struct ebs_session *s, struct ebs_perf *p,
			     struct perf_event_attr *attr, const struct cpumask *cpus)
{
	int cpu, err;

	for_each_cpu(cpu, cpus) {
		err = ebs_perf_add(s, p, attr, cpu, NULL, cpu);
		if (err && err != -ENODEV)
			return err;
	}
	return p->nr ? 0 : -ENODEV;
}

/* The threads of the target, each with a reference; at most EBS_MAX_THREADS. */
static int ebs_perf_threads(struct ebs_session *s, struct task_struct ***out)
{
	struct task_struct *leader, *t, **v;
	int n = 0;

	leader = get_pid_task(s->target, PIDTYPE_PID);
	if (!leader)
		return -ESRCH;
	v = kvcalloc(EBS_MAX_THREADS, sizeof(*v), GFP_KERNEL);
	if (!v) {
		put_task_struct(leader);
		return -ENOMEM;
	}
	rcu_read_lock();
	for_each_thread(leader, t) {
		if (n == EBS_MAX_THREADS)
			break;
		get_task_struct(t);
		v[n++] = t;
	}
	rcu_read_unlock();
	put_task_struct(leader);
	*out = v;
	return n;
}

/* Release the counters, and with them every copy the target's children inherited. */
static void ebs_perf_put_all(struct ebs_perf *p)
{
	unsigned int i;

	/* waits for running handlers: none runs after this */
	for (i = 0; i < p->nr; i++)
		perf_event_release_kernel(p->events[i]);
	p->nr = 0;
}

static void ebs_perf_release(struct ebs_session *s)
{
	struct ebs_perf *p = s->mode_data;

	if (!p)
		return;
	/* the work does not wait for s->lock, which is held here: it tries it */
	cancel_delayed_work_sync(&p->bound);
	ebs_perf_put_all(p);
	WRITE_ONCE(ebs_counters, 0);
	kvfree(p->events);
	kvfree(p->owner);
	kfree(p);
	s->mode_data = NULL;
}

/*
 * The bound on inherited copies (see ebs_max_counters).  Every thread and
 * process the target creates gets a copy of each counter of the thread
 * that created it (attr.inherit), in perf's code (inherit_event()), which
 * tells no module and which a module cannot refuse.  Each copy holds a
 * reference on its original counter (always the one the module created,
 * whatever the depth), so the live counters are the sum of the originals'
 * reference counts: read every EBS_PERF_BOUND_MS (or later: a deferrable
 * work waits for its CPU to wake), from CONFIG to release.
 * Above max_counters the session is cut: its counters are released, which
 * frees every copy and ends their inheritance (inherit_event() refuses an
 * orphaned parent), the kernel log says so, and READ is -E2BIG from then
 * on; START and STOP find no counter.  The count overshoots by what is
 * forked in one period.  The cut needs s->lock, which release holds while
 * it cancels this work: so it only tries it, and tries again after 1 ms.
 */
static void ebs_perf_bound_fn(struct work_struct *work)
{
	struct ebs_perf *p = container_of(to_delayed_work(work), struct ebs_perf, bound);
	unsigned int max = READ_ONCE(ebs_max_counters), i;
	unsigned long n = 0;

	for (i = 0; i < p->nr; i++)
		n += atomic_long_read(&p->events[i]->refcount);
	WRITE_ONCE(ebs_counters, (unsigned int)min_t(unsigned long, n, UINT_MAX));
	if (n <= max) {
		schedule_delayed_work(&p->bound, msecs_to_jiffies(EBS_PERF_BOUND_MS));
		return;
	}
	if (!mutex_trylock(&p->s->lock)) {
		schedule_delayed_work(&p->bound, 1);
		return;
	}
	pr_warn("pid %d: its threads and children carry %lu counters, above max_counters %u: session cut\n",
		pid_nr(p->s->target), n, max);
	ebs_perf_put_all(p);
	p->cut = true;
	WRITE_ONCE(ebs_counters, 0);
	mutex_unlock(&p->s->lock);
}

/*
 * The CPUs online now.  Copied under the hotplug lock, which is dropped
 * before any counter is created: perf_event_create_kernel_counter() can
 * take it again (a software event's static key, perf_swevent_init() ->
 * static_key_slow_inc(); the first task counter's, account_event() ->
 * static_branch_enable()), and a read lock taken again while a CPU going
 * offline waits for the first one waits for ever (percpu_rw_semaphore:
 * a waiting writer blocks new readers), and with it every later user of
 * the hotplug lock.  A CPU that goes offline before its counter is
 * created is skipped (-ENODEV, ebs_perf_config()); one that comes online
 * later is not counted.
 */
static int ebs_perf_online(cpumask_var_t *cpus)
{
	if (!zalloc_cpumask_var(cpus, GFP_KERNEL))
		return -ENOMEM;
	cpus_read_lock();
	cpumask_copy(*cpus, cpu_online_mask);
	cpus_read_unlock();
	return 0;
}

static int ebs_perf_config(struct ebs_session *s)
{
	unsigned int max = READ_ONCE(ebs_max_counters);
	struct task_struct **threads = NULL;
	struct perf_event_attr attr;
	struct ebs_perf *p;
	cpumask_var_t cpus;
	unsigned int per;
	int err, i, n = 0;

	err = ebs_perf_attr(&s->cfg, &attr);
	if (err)
		return err;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->s = s;
	/* deferrable: an idle CPU is not woken every 100 ms for it (nothing forks there) */
	INIT_DEFERRABLE_WORK(&p->bound, ebs_perf_bound_fn);
	s->mode_data = p;
	err = ebs_perf_online(&cpus);
	if (err)
		goto fail;
	if (s->cfg.flags & EBS_CFG_ALL_CPUS) {
		err = ebs_perf_alloc(p, nr_cpu_ids);
		if (!err)
			err = ebs_perf_add_cpus(s, p, &attr, cpus);
	} else {
		n = ebs_perf_threads(s, &threads);
		if (n < 0) {
			err = n;
			goto out_free_cpus;
		}
		per = s->cfg.flags & EBS_CFG_COUNT ? cpumask_weight(cpus) : 1;
		err = (size_t)n * per > max ? -E2BIG : ebs_perf_alloc(p, (size_t)n * per);
		/* a thread that exits meanwhile is no loss, unless all do */
		for (i = 0; i < n && !err; i++)
			err = ebs_perf_add_thread(s, p, &attr, threads[i], i, cpus);
		for (i = 0; i < n; i++)
			put_task_struct(threads[i]);
		kvfree(threads);
		if (!err && !p->nr)
			err = -ESRCH;
	}
out_free_cpus:
	free_cpumask_var(cpus);
	if (err)
		goto fail;
	WRITE_ONCE(ebs_counters, p->nr);
	if (attr.inherit)
		schedule_delayed_work(&p->bound, msecs_to_jiffies(EBS_PERF_BOUND_MS));
	return 0;

fail:
	ebs_perf_release(s);
	return err;
}

static void ebs_perf_start(struct ebs_session *s)
{
	struct ebs_perf *p = s->mode_data;
	unsigned int i;

	/* the first time, with EBS_CFG_ON_EXEC, the target's exec enables them */
	if ((s->cfg.flags & EBS_CFG_ON_EXEC) && !p->started) {
		p->started = true;
		return;
	}
	for (i = 0; i < p->nr; i++)
		perf_event_enable(p->events[i]);
}

/*
 * Disables the counters the module created, not those that the target's
 * children forked before STOP inherited from them: the kernel walks those
 * (perf_event_for_each_child()) holding the parent's context mutex and
 * then child_mutex, and neither that walk nor _perf_event_disable() is
 * exported.  perf_event_disable() on a child takes the child's context
 * mutex, which under child_mutex inverts the order an exiting child takes
 * them in (its context mutex, then the parent's child_mutex): a deadlock.
 * So the inherited counters stay armed until release, and their handlers
 * find counting cleared and write nothing (ebs_session_sample()); STOP
 * waits for those that did not (ebs_stop_locked()).  A START after STOP
 * has them counting again with the rest.
 */
static void ebs_perf_stop(struct ebs_session *s)
{
	struct ebs_perf *p = s->mode_data;
	unsigned int i;

	for (i = 0; i < p->nr; i++)
		perf_event_disable(p->events[i]);
}

/*
 * READ: each counter's value and times, its children's included
 * (perf_event_read_value()), added into its CPU's entry; the sum's
 * time_enabled adds each owner's longest (a thread's counters on the
 * CPUs are each enabled for all its time, and run while it is on theirs).
 * Counters on any CPU (a sampling session of a pid) have no entry: 0.
 */
static int ebs_perf_read(struct ebs_session *s, struct ebs_count *cpu, struct ebs_count *sum)
{
	struct ebs_perf *p = s->mode_data;
	u64 enabled, running, longest = 0;
	bool per_cpu = true;
	unsigned int i;

	if (p->cut)
		return -E2BIG; /* the counts ended at the cut, short of the children's */
	for (i = 0; i < p->nr; i++) {
		struct perf_event *ev = p->events[i];
		u64 v = perf_event_read_value(ev, &enabled, &running);

		if (ev->cpu >= 0 && ev->cpu < nr_cpu_ids) {
			cpu[ev->cpu].value += v;
			cpu[ev->cpu].time_enabled += enabled;
			cpu[ev->cpu].time_running += running;
		} else {
			per_cpu = false;
		}
		sum->value += v;
		sum->time_running += running;
		longest = max(longest, enabled);
		if (i + 1 == p->nr || p->owner[i + 1] != p->owner[i]) {
			sum->time_enabled += longest;
			longest = 0;
		}
	}
	return per_cpu ? nr_cpu_ids : 0;
}

const struct ebs_mode_ops ebs_perf_mode = {
	.name = "perf-kernel",
	.config = ebs_perf_config,
	.start = ebs_perf_start,
	.stop = ebs_perf_stop,
	.release = ebs_perf_release,
	.read = ebs_perf_read,
};
