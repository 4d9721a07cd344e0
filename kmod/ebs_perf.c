// SPDX-License-Identifier: GPL-2.0
/*
 * The perf-kernel mode: kernel perf counters (one per thread
 * of the target, inherited by its new threads and children, or one per
 * CPU) with sample_period = N and an overflow handler that records the
 * interrupted IP.  The kernel's perf subsystem owns the counter: this works
 * wherever it has the event, software clocks in a guest without a PMU too.
 */
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <ebs/ebs_events.h>

#include "ebs_kmod.h"

struct ebs_perf {
	unsigned int nr;
	struct perf_event **events;
	unsigned int *owner; /* [nr]: the thread (or, all CPUs, the CPU) each counts for */
	bool started;	     /* once started, START enables even with ON_EXEC */
};

/*
 * A counting session of a pid has a counter per thread and online CPU, so
 * that READ can say what each CPU counted: at most this many in all.
 */
#define EBS_PERF_MAX_COUNTERS 65536

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

/* Room for n counters; 0 or -ENOMEM. */
static int ebs_perf_alloc(struct ebs_perf *p, size_t n)
{
	p->events = kcalloc(n, sizeof(*p->events), GFP_KERNEL);
	p->owner = kcalloc(n, sizeof(*p->owner), GFP_KERNEL);
	return p->events && p->owner ? 0 : -ENOMEM;
}

/*
 * Thread task's counters: one on any CPU, or, counting, one per online CPU
 * (cpus_read_lock() held).  A thread that exits meanwhile (-ESRCH) is no
 * loss: 0.
 */
static int ebs_perf_add_thread(struct ebs_session *s, struct ebs_perf *p,
			       struct perf_event_attr *attr, struct task_struct *task,
			       unsigned int owner)
{
	int cpu, err = 0;

	if (!(s->cfg.flags & EBS_CFG_COUNT))
		err = ebs_perf_add(s, p, attr, -1, task, owner);
	else
		for_each_online_cpu(cpu) {
			err = ebs_perf_add(s, p, attr, cpu, task, owner);
			if (err)
				break;
		}
	return err == -ESRCH ? 0 : err;
}

/* The threads of the target, each with a reference; at most EBS_MAX_THREADS. */
static int ebs_perf_threads(struct ebs_session *s, struct task_struct ***out)
{
	struct task_struct *leader, *t, **v;
	int n = 0;

	leader = get_pid_task(s->target, PIDTYPE_PID);
	if (!leader)
		return -ESRCH;
	v = kcalloc(EBS_MAX_THREADS, sizeof(*v), GFP_KERNEL);
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

static void ebs_perf_release(struct ebs_session *s)
{
	struct ebs_perf *p = s->mode_data;
	unsigned int i;

	if (!p)
		return;
	/* waits for running handlers: none runs after this */
	for (i = 0; i < p->nr; i++)
		perf_event_release_kernel(p->events[i]);
	kfree(p->events);
	kfree(p->owner);
	kfree(p);
	s->mode_data = NULL;
}

static int ebs_perf_config(struct ebs_session *s)
{
	struct task_struct **threads = NULL;
	struct perf_event_attr attr;
	struct ebs_perf *p;
	unsigned int per;
	int err, cpu, i, n = 0;

	err = ebs_perf_attr(&s->cfg, &attr);
	if (err)
		return err;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	s->mode_data = p;
	if (s->cfg.flags & EBS_CFG_ALL_CPUS) {
		err = ebs_perf_alloc(p, nr_cpu_ids);
		if (err)
			goto fail;
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			err = ebs_perf_add(s, p, &attr, cpu, NULL, cpu);
			if (err)
				break;
		}
		cpus_read_unlock();
	} else {
		n = ebs_perf_threads(s, &threads);
		if (n < 0) {
			err = n;
			goto fail;
		}
		cpus_read_lock();
		per = s->cfg.flags & EBS_CFG_COUNT ? num_online_cpus() : 1;
		err = (size_t)n * per > EBS_PERF_MAX_COUNTERS ? -E2BIG
							      : ebs_perf_alloc(p, (size_t)n * per);
		/* a thread that exits meanwhile is no loss, unless all do */
		for (i = 0; i < n && !err; i++)
			err = ebs_perf_add_thread(s, p, &attr, threads[i], i);
		cpus_read_unlock();
		for (i = 0; i < n; i++)
			put_task_struct(threads[i]);
		kfree(threads);
		if (!err && !p->nr)
			err = -ESRCH;
	}
	if (err)
		goto fail;
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
