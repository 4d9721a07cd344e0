/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classic counting path: counter 0 programmed through its
 * MSRs, preloaded with -N so that it overflows after N events, the
 * overflow delivered as an NMI through the local APIC's LVTPC; throttled
 * as perf throttles its events when it overflows too often.
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
	/* CPUID with ECX (the subleaf) 0 */
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

/*
 * Read CPUID: 0, or -ENODEV when msr mode cannot use this machine: not
 * Intel (leaf 0; AMD's counters are other MSRs, and its leaf 0xA reads
 * 0), a hybrid part (leaf 7 EDX bit 15: its core types differ in leaf
 * 0xA, which is read on one CPU only), or no usable architectural perfmon
 * in leaf 0xA (most VMs).
 */
int ebs_msr_probe(const struct ebs_hw_ops *hw, struct ebs_msr_pmu *pmu);

/*
 * The IA32_PERFEVTSEL0 value for cfg (with EN, and INT unless cfg counts,
 * EBS_CFG_COUNT), or 0 with *err set:
 * -EINVAL for a software event or a bad encoding, -EOPNOTSUPP for an
 * architectural event this CPU lacks, -ERANGE for a sample-after value the
 * counter cannot be preloaded with or below EBS_MSR_SAMPLE_AFTER_MIN.
 */
__u64 ebs_msr_evtsel(const struct ebs_msr_pmu *pmu, const struct ebs_config *cfg, int *err);

/* The value that makes a width-bit counter overflow after n events: -n. */
__u64 ebs_msr_preload(const struct ebs_msr_pmu *pmu, __u64 n);

/*
 * The throttle's limits, shared by every CPU of a session: perf's
 * max_samples_per_tick and perf_sample_allowed_ns (kernel/events/core.c).
 * Any CPU's handler may lower them (ebs_msr_took()), so they are read
 * with READ_ONCE and written with WRITE_ONCE.
 */
struct ebs_msr_limits {
	__u32 per_tick;	  /* overflows a CPU takes per tick before counter 0 is left off */
	__u32 tick_ns;	  /* the tick: NSEC_PER_SEC / HZ */
	__u32 percent;	  /* perf_cpu_time_max_percent; 0: per_tick is never lowered */
	__u32 allowed_ns; /* the handler's average time above which per_tick is lowered */
};

/*
 * Limits for at most max_rate overflows a second per CPU (at least 1; perf's
 * kernel.perf_event_max_sample_rate) in ticks of hz, and at most percent of
 * a CPU's time in the handler (perf_cpu_time_max_percent; 0 or 100: no
 * such limit), as perf computes its own from those sysctls.
 */
void ebs_msr_limits_init(struct ebs_msr_limits *lim, __u32 max_rate, __u32 percent, __u32 hz);

/*
 * A session's limits: the module's parameters max_rate and percent (as
 * for ebs_msr_limits_init()), each made stricter by what its CONFIG gave
 * in limits (ebs_config.limits: the caller's perf sysctls; 0, or 0 in a
 * part, not given), never looser; then ebs_msr_limits_init() for hz.
 */
void ebs_msr_limits_config(struct ebs_msr_limits *lim, __u32 limits, __u32 max_rate, __u32 percent,
			   __u32 hz);

/* What every CPU of a session shares. */
struct ebs_msr_run {
	struct ebs_msr_pmu pmu;
	__u64 evtsel;		   /* from ebs_msr_evtsel() */
	__u64 n;		   /* sample after; 0 counting */
	struct ebs_msr_limits lim; /* sampling only */
};

/* One CPU's counter 0, as its NMI handler sees it. */
enum ebs_msr_cpu_state {
	EBS_MSR_OFF,	   /* not counting: before START, after STOP, offline */
	EBS_MSR_ON,	   /* counting; an overflow is ours */
	EBS_MSR_THROTTLED, /* left off until ebs_msr_unthrottle() */
	EBS_MSR_STOPPING,  /* in ebs_msr_cpu_stop(): an overflow is acknowledged, not re-armed */
};

/*
 * Per CPU, written on that CPU only: by its NMI handler and by what the
 * handler may interrupt there (start, stop, the throttle's timer).  state
 * is read by the handler with READ_ONCE.
 */
struct ebs_msr_cpu {
	__u32 state;	  /* enum ebs_msr_cpu_state */
	__u32 interrupts; /* overflows since window */
	__u64 window;	  /* when this tick's budget began, ns */
	__u64 running_ns; /* perf's running_sample_length: 128 handler times, decaying */
};

/* On this CPU: program counter 0 with -n and evtsel, enable it; c is ON. */
void ebs_msr_cpu_start(const struct ebs_hw_ops *hw, const struct ebs_msr_run *run,
		       struct ebs_msr_cpu *c);

/*
 * On this CPU, counting (EBS_CFG_COUNT: started from 0, no interrupt): what
 * counter 0 counted.  *wraps, this CPU's and 0 at the start, counts the
 * wraps IA32_PERF_GLOBAL_STATUS reports (v2+; the status is cleared), each
 * 2^width events; two wraps between reads (2^48 cycles: hours) count as
 * one, and version 1 reports none.
 */
__u64 ebs_msr_cpu_read(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu, __u64 *wraps);

/*
 * On this CPU: stop counter 0 and leave it cleared, c OFF.  An overflow
 * NMI that arrives meanwhile is acknowledged and not re-armed.
 */
void ebs_msr_cpu_stop(const struct ebs_hw_ops *hw, const struct ebs_msr_pmu *pmu,
		      struct ebs_msr_cpu *c);

/* What ebs_msr_nmi() found. */
enum ebs_msr_nmi_result {
	/* not counter 0's: NMI_DONE */
	EBS_MSR_NOT_OURS,
	/* counter 0 overflowed and is armed again: record the IP */
	EBS_MSR_SAMPLE,
	/*
	 * the same, but the tick's budget is spent and counter 0 stays off:
	 * record the IP, and have ebs_msr_unthrottle() run at
	 * ebs_msr_rearm_at()
	 */
	EBS_MSR_THROTTLE,
	/* ours while stopping: acknowledged, not re-armed, no sample; NMI_HANDLED */
	EBS_MSR_ACKED,
};

/*
 * On this CPU, in the NMI handler, at time now (ns): was it counter 0's
 * overflow?  If so, reload it with -n, clear its overflow status, unmask
 * LVTPC (the APIC masks it on delivery), count it against the tick's
 * budget, and enable counter 0 again unless the budget is spent or the
 * CPU is stopping.  Counter 0 overflowed when IA32_PERF_GLOBAL_STATUS
 * bit 0 says so (v2+) or when its top bit is clear: it was preloaded with
 * that bit set, and another PMI handler that ran first (perf's) may have
 * cleared the status.
 */
enum ebs_msr_nmi_result ebs_msr_nmi(const struct ebs_hw_ops *hw, const struct ebs_msr_run *run,
				    struct ebs_msr_cpu *c, __u64 now);

/* When a CPU that ebs_msr_nmi() throttled is to count again: the end of its tick. */
__u64 ebs_msr_rearm_at(const struct ebs_msr_run *run, const struct ebs_msr_cpu *c);

/*
 * On this CPU at time now, from the throttle's timer: if c is THROTTLED,
 * enable counter 0 again, with a new tick's budget, and return true
 * (the caller writes its UNTHROTTLE record before: counter 0 is off until
 * this returns, so no NMI of ours writes meanwhile); else false.
 */
bool ebs_msr_unthrottle(const struct ebs_hw_ops *hw, const struct ebs_msr_run *run,
			struct ebs_msr_cpu *c, __u64 now);

/*
 * On this CPU, after a handler that took ns: perf_sample_event_took().
 * When the average of the last 128 goes above lim->allowed_ns, lower
 * lim->per_tick so that the handler's time stays within lim->percent of
 * the tick (with a quarter to spare) and return true; else false.
 */
bool ebs_msr_took(struct ebs_msr_limits *lim, struct ebs_msr_cpu *c, __u64 ns);

#endif /* EBS_MSR_H */
