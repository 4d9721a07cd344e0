// SPDX-License-Identifier: GPL-2.0
/* Counter 0 through its MSRs: the logic (see ebs_msr.h). */
#include <ebs/ebs_events.h>

#include "ebs_msr.h"

/* CPUID leaf 0's vendor: "GenuineIntel" in EBX, EDX, ECX */
#define EBS_INTEL_EBX	      0x756e6547 /* "Genu" */
#define EBS_INTEL_EDX	      0x49656e69 /* "ineI" */
#define EBS_INTEL_ECX	      0x6c65746e /* "ntel" */
#define EBS_CPUID7_EDX_HYBRID 0x8000	 /* bit 15 */

int ebs_msr_probe(const struct ebs_hw_ops *hw, struct ebs_msr_pmu *pmu)
{
	__u32 eax = 0, ebx = 0, ecx = 0, edx = 0, max_leaf = 0;

	memset(pmu, 0, sizeof(*pmu));
	hw->cpuid(0, &max_leaf, &ebx, &ecx, &edx);
	/*
	 * Intel's architectural perfmon only: AMD's counters are other MSRs
	 * (0xc0010000 on), which the reservations of ebs_msr_hw.c do not
	 * cover there, and its leaf 0xA is reserved.
	 */
	if (ebx != EBS_INTEL_EBX || edx != EBS_INTEL_EDX || ecx != EBS_INTEL_ECX || max_leaf < 0xa)
		return -ENODEV;
	/* hybrid: P- and E-cores differ in leaf 0xA, read here on one CPU only */
	hw->cpuid(7, &eax, &ebx, &ecx, &edx);
	if (edx & EBS_CPUID7_EDX_HYBRID)
		return -ENODEV;
	hw->cpuid(0xa, &eax, &ebx, &ecx, &edx);
	pmu->version = eax & 0xff;
	pmu->counters = (eax >> 8) & 0xff;
	pmu->width = (eax >> 16) & 0xff;
	pmu->nr_events = (eax >> 24) & 0xff;
	pmu->unavailable = ebx;
	if (!pmu->version || !pmu->counters || pmu->width < 32 || pmu->width > 64)
		return -ENODEV;
	pmu->mask = pmu->width == 64 ? ~0ull : (1ull << pmu->width) - 1;
	return 0;
}

__u64 ebs_msr_evtsel(const struct ebs_msr_pmu *pmu, const struct ebs_config *cfg, int *err)
{
	const struct ebs_event *ev = NULL;
	__u64 sel;

	*err = 0;
	if (cfg->event_kind == EBS_EVENT_GENERIC)
		ev = ebs_event_generic(cfg->event_id);
	if (cfg->event_kind == EBS_EVENT_RAW) {
		if (cfg->event_id & ~EBS_EVTSEL_RAW) {
			*err = -EINVAL; /* USR, OS, INT, EN and the like are not raw fields */
			return 0;
		}
		sel = cfg->event_id;
	} else if (ev && ev->arch_bit != EBS_NOT_ARCH) {
		/* an architectural event (ebs_events.h), unless CPUID says it is absent */
		if (ev->arch_bit >= pmu->nr_events || (pmu->unavailable & (1u << ev->arch_bit))) {
			*err = -EOPNOTSUPP;
			return 0;
		}
		sel = EBS_EVTSEL_EVENT(ev->evtsel) | EBS_EVTSEL_UMASK(ev->umask);
	} else {
		*err = -EINVAL; /* a software event: no counter counts it */
		return 0;
	}
	/*
	 * The counter is written through IA32_PMC0's legacy address, which
	 * takes 32 bits and sign-extends them: -n must fit in a signed 32-bit
	 * value, and the counter must be wide enough to hold n; and n at least
	 * EBS_MSR_SAMPLE_AFTER_MIN (ebs_abi.h).  A counting session starts it
	 * from 0 and takes no interrupt.
	 */
	if (!(cfg->flags & EBS_CFG_COUNT) &&
	    (cfg->sample_after < EBS_MSR_SAMPLE_AFTER_MIN || cfg->sample_after > 0x7fffffffull ||
	     cfg->sample_after > (pmu->mask >> 1))) {
		*err = -ERANGE;
		return 0;
	}
	if (cfg->flags & EBS_CFG_USER)
		sel |= EBS_EVTSEL_USR;
	if (cfg->flags & EBS_CFG_KERNEL)
		sel |= EBS_EVTSEL_OS;
	if (!(sel & (EBS_EVTSEL_USR | EBS_EVTSEL_OS))) {
		*err = -EINVAL;
		return 0;
	}
	return sel | EBS_EVTSEL_EN | (cfg->flags & EBS_CFG_COUNT ? 0 : EBS_EVTSEL_INT);
}

__u64 ebs_msr_preload(const struct ebs_msr_pmu *pmu, __u64 n)
{
	return (0 - n) & pmu->mask;
}

#define EBS_NS_PER_S 1000000000u

void ebs_msr_limits_init(struct ebs_msr_limits *lim, __u32 max_rate, __u32 percent, __u32 hz)
{
	__u32 period_ns;

	if (!max_rate)
		max_rate = 1;
	if (!hz)
		hz = 1;
	lim->tick_ns = EBS_NS_PER_S / hz;
	lim->per_tick = max_rate / hz + (max_rate % hz != 0); /* DIV_ROUND_UP */
	lim->percent = percent >= 100 ? 0 : percent;
	/* perf_sample_period_ns and update_perf_cpu_limits() */
	period_ns = EBS_NS_PER_S / max_rate;
	lim->allowed_ns = period_ns / 100 * lim->percent;
	if (lim->percent && !lim->allowed_ns)
		lim->allowed_ns = 1;
}

void ebs_msr_limits_config(struct ebs_msr_limits *lim, __u32 limits, __u32 max_rate, __u32 percent,
			   __u32 hz)
{
	__u32 rate = EBS_LIMITS_RATE(limits), pct = EBS_LIMITS_PERCENT(limits);

	/* percent 0 and 100 mean no limit on the handler's time, as for perf */
	if (percent >= 100)
		percent = 0;
	if (rate && rate < max_rate)
		max_rate = rate;
	if (pct && pct < 100 && (!percent || pct < percent))
		percent = pct;
	ebs_msr_limits_init(lim, max_rate, percent, hz);
}

void ebs_msr_cpu_start(const struct ebs_hw_ops *hw, const struct ebs_msr_run *run,
		       struct ebs_msr_cpu *c)
{
	hw->wrmsr(EBS_MSR_EVNTSEL0, 0); /* stop while programming */
	hw->wrmsr(EBS_MSR_PERFCTR0, ebs_msr_preload(&run->pmu, run->n));
	if (run->pmu.version >= 2) {
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1); /* a stale overflow of counter 0 */
		hw->wrmsr(EBS_MSR_GLOBAL_CTRL, hw->rdmsr(EBS_MSR_GLOBAL_CTRL) | 1);
	}
	hw->lvtpc_nmi();
	c->interrupts = 0;
	c->window = 0;
	/* from here an overflow is ours: the counter holds -n, nothing pending */
	WRITE_ONCE(c->state, EBS_MSR_ON);
	hw->wrmsr(EBS_MSR_EVNTSEL0, run->evtsel);
}

/*
 * The order matters against an overflow NMI that arrives in the middle
 * (ebs_msr_nmi() may run between any two steps): counter 0 stops counting
 * first (v2+: GLOBAL_CTRL; v1 has only its event select), then the CPU is
 * STOPPING, so that a handler acknowledges an overflow without re-arming
 * it; before that, a re-arm is undone by the steps that follow.
 */
void ebs_msr_cpu_stop(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu,
		      struct ebs_msr_cpu *c)
{
	if (pmu->version >= 2)
		hw->wrmsr(EBS_MSR_GLOBAL_CTRL, hw->rdmsr(EBS_MSR_GLOBAL_CTRL) & ~1ull);
	/* the handler runs on this CPU: each store is ordered by the MSR calls around it */
	WRITE_ONCE(c->state, EBS_MSR_STOPPING);
	hw->wrmsr(EBS_MSR_EVNTSEL0, 0);
	if (pmu->version >= 2)
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1);
	hw->wrmsr(EBS_MSR_PERFCTR0, 0);
	WRITE_ONCE(c->state, EBS_MSR_OFF);
}

__u64 ebs_msr_cpu_read(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 *wraps)
{
	__u64 v = hw->rdmsr(EBS_MSR_PERFCTR0) & pmu->mask;

	/*
	 * A wrap since the last read (v2+ says so; v1 cannot): counted, its
	 * status cleared, and the counter read again, as it may have wrapped
	 * after the first read.
	 */
	if (pmu->version >= 2 && (hw->rdmsr(EBS_MSR_GLOBAL_STATUS) & 1)) {
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1);
		(*wraps)++;
		v = hw->rdmsr(EBS_MSR_PERFCTR0) & pmu->mask;
	}
	return v + *wraps * (pmu->mask + 1);
}

/*
 * Did counter 0 overflow?  It was preloaded with -n, n < 2^31, so with
 * every bit from 31 to its top set: a clear top bit means it wrapped (the
 * only test version 1 has).  Version 2 and later also say so in
 * IA32_PERF_GLOBAL_STATUS bit 0, unless a handler that ran before this
 * one cleared it: perf's intel_pmu_handle_irq() acknowledges every bit it
 * reads, counter 0's included, whenever it has an event of its own that
 * interrupts without a counter (Intel PT) and so runs first.
 */
static bool ebs_msr_overflowed(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu)
{
	if (!(hw->rdmsr(EBS_MSR_PERFCTR0) & (1ull << (pmu->width - 1))))
		return true;
	return pmu->version >= 2 && (hw->rdmsr(EBS_MSR_GLOBAL_STATUS) & 1);
}

enum ebs_msr_nmi_result ebs_msr_nmi(const struct ebs_hw_ops *hw, const struct ebs_msr_run *run,
				    struct ebs_msr_cpu *c, __u64 now)
{
	__u32 state = READ_ONCE(c->state);

	/* OFF or THROTTLED: counter 0 is off, no overflow of ours is pending */
	if ((state != EBS_MSR_ON && state != EBS_MSR_STOPPING) ||
	    !ebs_msr_overflowed(hw, &run->pmu))
		return EBS_MSR_NOT_OURS;
	hw->wrmsr(EBS_MSR_EVNTSEL0, 0);
	if (state == EBS_MSR_STOPPING) {
		/* acknowledged; ebs_msr_cpu_stop() clears the rest */
		if (run->pmu.version >= 2)
			hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1);
		hw->lvtpc_nmi();
		return EBS_MSR_ACKED;
	}
	hw->wrmsr(EBS_MSR_PERFCTR0, ebs_msr_preload(&run->pmu, run->n));
	if (run->pmu.version >= 2)
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1);
	hw->lvtpc_nmi();
	/*
	 * The tick's budget, as __perf_event_account_interrupt() keeps it:
	 * the first overflow of a tick counts 1, and the one that reaches
	 * per_tick is still sampled but leaves the counter off.  A tick here
	 * is tick_ns from the first overflow after the last one ended (the
	 * module cannot hook the scheduler tick, which perf's counting follows).
	 */
	if (now - c->window >= run->lim.tick_ns) {
		c->window = now;
		c->interrupts = 0;
	}
	if (++c->interrupts >= READ_ONCE(run->lim.per_tick)) {
		WRITE_ONCE(c->state, EBS_MSR_THROTTLED);
		return EBS_MSR_THROTTLE;
	}
	hw->wrmsr(EBS_MSR_EVNTSEL0, run->evtsel);
	return EBS_MSR_SAMPLE;
}

__u64 ebs_msr_rearm_at(const struct ebs_msr_run *run, const struct ebs_msr_cpu *c)
{
	return c->window + run->lim.tick_ns;
}

bool ebs_msr_unthrottle(const struct ebs_hw_ops *hw, const struct ebs_msr_run *run,
			struct ebs_msr_cpu *c, __u64 now)
{
	if (READ_ONCE(c->state) != EBS_MSR_THROTTLED)
		return false;
	/* the counter holds -n and its status is clear since the throttling NMI */
	c->window = now;
	c->interrupts = 0;
	WRITE_ONCE(c->state, EBS_MSR_ON);
	hw->wrmsr(EBS_MSR_EVNTSEL0, run->evtsel);
	return true;
}

#define EBS_MSR_NR_ACCUMULATED 128 /* perf's NR_ACCUMULATED_SAMPLES */

bool ebs_msr_took(struct ebs_msr_limits *lim, struct ebs_msr_cpu *c, __u64 ns)
{
	__u32 allowed = READ_ONCE(lim->allowed_ns), max;
	__u64 avg;

	if (!allowed)
		return false;
	c->running_ns -= c->running_ns / EBS_MSR_NR_ACCUMULATED;
	c->running_ns += ns;
	/* low until 128 have been seen, as perf's: no count to keep */
	avg = c->running_ns / EBS_MSR_NR_ACCUMULATED;
	if (avg <= allowed)
		return false;
	/* a quarter above the average, and per_tick of those within percent of a tick */
	avg += avg / 4;
	max = lim->tick_ns / 100 * lim->percent;
	if (avg < max)
		max /= (__u32)avg;
	else
		max = 1;
	WRITE_ONCE(lim->allowed_ns, avg > 0xffffffffull ? 0xffffffffu : (__u32)avg);
	if (max < READ_ONCE(lim->per_tick))
		WRITE_ONCE(lim->per_tick, max);
	return true;
}
