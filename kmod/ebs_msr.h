/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classic counting path: counter 0 programmed through its
 * MSRs, preloaded with -N so that it overflows after N events, the
 * overflow delivered as an NMI through the local APIC's LVTPC.
 *
 * The logic here reaches the hardware only through struct ebs_hw_ops, so
 * the same file is compiled into the module (ebs_msr_hw.c supplies the real
 * CPUID, RDMSR/WRMSR and APIC) and into a user-space test against a
 * simulated PMU.  Intel SDM Vol. 3B chapter 18 (architectural performance
 * monitoring) is the reference for every number below.
 */
#ifndef EBS_MSR_H
#define EBS_MSR_H

#include <ebs_compat.h>

#define EBS_MSR_PERFCTR0	0x0c1 /* IA32_PMC0 */
#define EBS_MSR_EVNTSEL0	0x186 /* IA32_PERFEVTSEL0 */
#define EBS_MSR_GLOBAL_STATUS	0x38e /* IA32_PERF_GLOBAL_STATUS (v2+) */
#define EBS_MSR_GLOBAL_CTRL	0x38f /* IA32_PERF_GLOBAL_CTRL (v2+) */
#define EBS_MSR_GLOBAL_OVF_CTRL 0x390 /* IA32_PERF_GLOBAL_OVF_CTRL (v2+) */

struct ebs_hw_ops {
	void (*cpuid)(__u32 leaf, __u32 *eax, __u32 *ebx, __u32 *ecx, __u32 *edx);
	__u64 (*rdmsr)(__u32 msr);
	void (*wrmsr)(__u32 msr, __u64 val);
	void (*lvtpc_nmi)(void); /* LVTPC delivers NMI, unmasked */
};

/* What CPUID leaf 0xA says of the PMU. */
struct ebs_msr_pmu {
	__u32 version;	   /* architectural perfmon version; 0: none */
	__u32 counters;	   /* general-purpose counters per logical CPU */
	__u32 width;	   /* their width in bits */
	__u32 unavailable; /* EBX: bit i set = architectural event i absent */
	__u32 nr_events;   /* how many bits of EBX mean something */
	__u64 mask;	   /* (1 << width) - 1 */
};

/* Read CPUID leaf 0xA.  0, or -ENODEV without architectural perfmon (most VMs). */
int ebs_msr_probe(const struct ebs_hw_ops *hw, struct ebs_msr_pmu *pmu);

/*
 * The IA32_PERFEVTSEL0 value for cfg (with EN, and INT unless cfg counts,
 * EBS_CFG_COUNT), or 0 with *err set:
 * -EINVAL for a software event or a bad encoding, -EOPNOTSUPP for an
 * architectural event this CPU lacks, -ERANGE for a sample-after value the
 * counter cannot be preloaded with.
 */
__u64 ebs_msr_evtsel(const struct ebs_msr_pmu *pmu, const struct ebs_config *cfg, int *err);

/* The value that makes a width-bit counter overflow after n events: -n. */
__u64 ebs_msr_preload(const struct ebs_msr_pmu *pmu, __u64 n);

/* On this CPU: program counter 0 with -n and evtsel, enable it. */
void ebs_msr_cpu_start(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 evtsel,
		       __u64 n);

/*
 * On this CPU, counting (EBS_CFG_COUNT: started from 0, no interrupt): what
 * counter 0 counted.  *wraps, this CPU's and 0 at the start, counts the
 * wraps IA32_PERF_GLOBAL_STATUS reports (v2+; the status is cleared), each
 * 2^width events; two wraps between reads (2^48 cycles: hours) count as
 * one, and version 1 reports none.
 */
__u64 ebs_msr_cpu_read(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 *wraps);

/* On this CPU: stop counter 0 and leave it cleared. */
void ebs_msr_cpu_stop(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu);

/*
 * On this CPU, in the NMI handler: did counter 0 overflow?  If so, reload
 * it with -n, clear its overflow status, unmask LVTPC (the APIC masks it on
 * delivery) and return true; the caller records the interrupted IP.
 * false: the NMI was not ours.
 */
bool ebs_msr_nmi(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 evtsel, __u64 n);

#endif /* EBS_MSR_H */
