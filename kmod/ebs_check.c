// SPDX-License-Identifier: GPL-2.0
/* The module's rules as pure functions (see ebs_check.h). */
#include "ebs_check.h"

int ebs_check_state(unsigned int cmd, enum ebs_state state)
{
	bool opened = state == EBS_OPEN, running = state == EBS_RUNNING;

	if (state != EBS_OPEN && state != EBS_CONFIGURED && state != EBS_RUNNING &&
	    state != EBS_STOPPED)
		return -EINVAL;
	switch (cmd) {
	case EBS_IOC_VERSION:
		return 0;
	case EBS_IOC_CONFIG:
		return running ? -EBUSY : opened ? 0 : -EINVAL;
	case EBS_IOC_START:
	case EBS_IOC_RESET:
		return running ? -EBUSY : opened ? -EINVAL : 0;
	case EBS_IOC_STOP:
		return running ? 0 : -EINVAL;
	case EBS_IOC_STATS:
	case EBS_IOC_TAIL:
	case EBS_IOC_READ:
		return opened ? -EINVAL : 0;
	default:
		return -ENOTTY;
	}
}

static bool power_of_two(__u32 x)
{
	return x && !(x & (x - 1));
}

int ebs_check_config(const struct ebs_config *cfg)
{
	if (cfg->mode > EBS_MODE_MSR || (cfg->flags & ~EBS_CFG_KNOWN) ||
	    !(cfg->flags & (EBS_CFG_USER | EBS_CFG_KERNEL)))
		return -EINVAL;
	/* msr mode's throttle only: perf throttles perf-kernel's counters by its sysctls */
	if (cfg->limits && (cfg->mode != EBS_MODE_MSR || (cfg->flags & EBS_CFG_COUNT) ||
			    EBS_LIMITS_PERCENT(cfg->limits) > 100))
		return -EINVAL;
	if ((cfg->flags & EBS_CFG_ALL_CPUS) && (cfg->flags & EBS_CFG_ON_EXEC))
		return -EINVAL;
	switch (cfg->event_kind) {
	case EBS_EVENT_GENERIC:
		if (cfg->event_id >= EBS_GEN_MAX)
			return -EINVAL;
		break;
	case EBS_EVENT_RAW:
		/* USR, OS, INT, EN and the like come from flags and the module */
		if (cfg->event_id & ~EBS_EVTSEL_RAW)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (cfg->flags & EBS_CFG_COUNT) {
		/* no interrupt, no rings; msr mode cannot tell one process's events */
		if (cfg->sample_after || cfg->ring_pages ||
		    (cfg->mode == EBS_MODE_MSR && !(cfg->flags & EBS_CFG_ALL_CPUS)))
			return -EINVAL;
	} else if (cfg->sample_after < EBS_SAMPLE_AFTER_MIN ||
		   cfg->sample_after > EBS_SAMPLE_AFTER_MAX ||
		   cfg->ring_pages < EBS_RING_MIN_PAGES || cfg->ring_pages > EBS_RING_MAX_PAGES ||
		   !power_of_two(cfg->ring_pages)) {
		return -EINVAL;
	}
	/* pid is looked up by the caller: 0 or less names nobody */
	if (!(cfg->flags & EBS_CFG_ALL_CPUS) && cfg->pid <= 0)
		return -EINVAL;
	return 0;
}

/* STATS' entry_size: 0 is version 1's struct ebs_cpu_stats, which does not grow */
static bool ebs_check_entry_size(__u32 size)
{
	return !size || size == sizeof(struct ebs_cpu_stats) ||
	       size == sizeof(struct ebs_cpu_stats3);
}

int ebs_check_ioctl(unsigned int cmd, enum ebs_state state, unsigned int nr_rings,
		    const union ebs_ioctl_arg *arg)
{
	int err = ebs_check_state(cmd, state);

	if (err)
		return err;
	switch (cmd) {
	case EBS_IOC_CONFIG:
		return ebs_check_config(&arg->cfg);
	case EBS_IOC_STATS:
		return ebs_check_entry_size(arg->stats.entry_size) ? 0 : -EINVAL;
	case EBS_IOC_TAIL:
		return arg->tail.reserved || arg->tail.cpu >= nr_rings ? -EINVAL : 0;
	case EBS_IOC_READ:
		return arg->read.reserved || (arg->read.nr_cpus && !arg->read.cpu_ptr) ? -EINVAL
										       : 0;
	default:
		return 0; /* no argument, or (VERSION) one only written */
	}
}

int ebs_check_mmap(unsigned long pgoff, unsigned long len, bool writable, enum ebs_state state,
		   __u32 ring_pages, unsigned int nr_rings, unsigned long page_size,
		   unsigned int *cpu)
{
	unsigned long pages = 1 + (unsigned long)ring_pages;

	if (writable)
		return -EPERM;
	if (state != EBS_CONFIGURED && state != EBS_RUNNING && state != EBS_STOPPED)
		return -EINVAL;
	if (!ring_pages || pgoff % pages || pgoff / pages >= nr_rings || len / page_size != pages ||
	    len % page_size)
		return -EINVAL;
	*cpu = (unsigned int)(pgoff / pages);
	return 0;
}

int ebs_check_charge(__u64 pages, __u64 user_locked, __u64 user_limit, __u64 pinned,
		     __u64 rlimit_pages, bool ipc_lock, __u64 *user_pages, __u64 *pinned_pages)
{
	__u64 room, extra = 0;

	/* the limit may have been lowered below what the user holds */
	if (user_locked > user_limit)
		user_locked = user_limit;
	room = user_limit - user_locked;
	if (pages > room)
		extra = pages - room;
	/* perf_mmap()'s test: pinned_vm + extra against RLIMIT_MEMLOCK */
	if ((extra > rlimit_pages || pinned > rlimit_pages - extra) && !ipc_lock)
		return -EPERM;
	*user_pages = pages - extra;
	*pinned_pages = extra;
	return 0;
}

bool ebs_check_sample(__u32 flags, bool user_mode)
{
	return user_mode || (flags & EBS_CFG_KERNEL);
}

bool ebs_check_perfmon(const struct ebs_config *cfg)
{
	/* msr mode: counter 0 counts every task on every CPU, whatever the target */
	return (cfg->flags & EBS_CFG_ALL_CPUS) || cfg->mode == EBS_MODE_MSR;
}

void ebs_check_count_since(struct ebs_count *c, const struct ebs_count *base)
{
	c->value = c->value > base->value ? c->value - base->value : 0;
	c->time_enabled =
		c->time_enabled > base->time_enabled ? c->time_enabled - base->time_enabled : 0;
	c->time_running =
		c->time_running > base->time_running ? c->time_running - base->time_running : 0;
}
