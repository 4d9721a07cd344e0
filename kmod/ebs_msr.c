// SPDX-License-Identifier: GPL-2.0
/* Counter 0 through its MSRs: the logic (see ebs_msr.h). */
#include <ebs/ebs_events.h>

#include "ebs_msr.h"

int ebs_msr_probe(const struct ebs_hw_ops *hw, struct ebs_msr_pmu *pmu)
{
	__u32 eax = 0, ebx = 0, ecx = 0, edx = 0, max_leaf = 0;

	memset(pmu, 0, sizeof(*pmu));
	hw->cpuid(0, &max_leaf, &ebx, &ecx, &edx);
	if (max_leaf < 0xa)
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
	 * value, and the counter must be wide enough to hold n.  A counting
	 * session starts it from 0 and takes no interrupt.
	 */
	if (!(cfg->flags & EBS_CFG_COUNT) &&
	    (cfg->sample_after < EBS_SAMPLE_AFTER_MIN || cfg->sample_after > 0x7fffffffull ||
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

void ebs_msr_cpu_start(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 evtsel,
		       __u64 n)
{
	hw->wrmsr(EBS_MSR_EVNTSEL0, 0); /* stop while programming */
	hw->wrmsr(EBS_MSR_PERFCTR0, ebs_msr_preload(pmu, n));
	if (pmu->version >= 2) {
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1); /* a stale overflow of counter 0 */
		hw->wrmsr(EBS_MSR_GLOBAL_CTRL, hw->rdmsr(EBS_MSR_GLOBAL_CTRL) | 1);
	}
	hw->lvtpc_nmi();
	hw->wrmsr(EBS_MSR_EVNTSEL0, evtsel);
}

void ebs_msr_cpu_stop(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu)
{
	hw->wrmsr(EBS_MSR_EVNTSEL0, 0);
	if (pmu->version >= 2) {
		hw->wrmsr(EBS_MSR_GLOBAL_CTRL, hw->rdmsr(EBS_MSR_GLOBAL_CTRL) & ~1ull);
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1);
	}
	hw->wrmsr(EBS_MSR_PERFCTR0, 0);
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

bool ebs_msr_nmi(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 evtsel, __u64 n)
{
	bool ours;

	if (pmu->version >= 2) {
		ours = hw->rdmsr(EBS_MSR_GLOBAL_STATUS) & 1;
	} else {
		/*
		 * Version 1 has no status register: the counter was preloaded
		 * with its top bit set (-n, n < 2^(width-1)); a clear top bit
		 * means it wrapped.
		 */
		ours = !(hw->rdmsr(EBS_MSR_PERFCTR0) & (1ull << (pmu->width - 1)));
	}
	if (!ours)
		return false;
	hw->wrmsr(EBS_MSR_EVNTSEL0, 0);
	hw->wrmsr(EBS_MSR_PERFCTR0, ebs_msr_preload(pmu, n));
	if (pmu->version >= 2)
		hw->wrmsr(EBS_MSR_GLOBAL_OVF_CTRL, 1);
	hw->lvtpc_nmi();
	hw->wrmsr(EBS_MSR_EVNTSEL0, evtsel);
	return true;
}
