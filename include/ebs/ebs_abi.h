/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ebs_abi.h - the interface between ebs.ko (/dev/ebs) and user space.
 *
 * kmod/ and sampler/ share it and ebs_events.h (the named events' table)
 * only.  Fixed-width types only; every struct is padded to 8 bytes so 32-
 * and 64-bit user space agree.
 *
 * Session: open /dev/ebs -> EBS_IOC_CONFIG -> mmap one ring per CPU ->
 * EBS_IOC_START -> read records, advance tail -> EBS_IOC_STOP -> close.
 * A counting session (EBS_CFG_COUNT) has no rings: open -> CONFIG -> START
 * -> EBS_IOC_READ ... -> STOP -> READ -> close.  Anything out of that
 * order fails with -EINVAL (or -EBUSY while running).
 *
 * Versions: every request of an older version means the same in a newer
 * one, so user space accepts any EBS_IOC_VERSION at least the one it needs.
 *   1  sampling sessions.
 *   2  counting sessions (EBS_CFG_COUNT, EBS_IOC_READ); the generic
 *      software events from EBS_GEN_PAGE_FAULTS on.
 *   3  msr mode throttles counter 0 as perf throttles its events, and
 *      says so: struct ebs_cpu_stats3 (STATS with entry_size), throttle
 *      records in the rings (EBS_CFG_MARKS); CONFIG's limits (once
 *      reserved) pass the caller's perf sysctls to it.  Two requests of older
 *      versions are refused now, as they should always have been: msr
 *      mode without CAP_PERFMON or CAP_SYS_ADMIN (-EACCES), and with N
 *      below EBS_MSR_SAMPLE_AFTER_MIN (-ERANGE).
 */
#ifndef EBS_ABI_H
#define EBS_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define EBS_ABI_VERSION 3
#define EBS_DEVICE	"/dev/ebs"
#define EBS_IOC_MAGIC	0xeb

/* ebs_config.mode */
#define EBS_MODE_PERF_KERNEL 0 /* perf_event_create_kernel_counter (default) */
#define EBS_MODE_MSR	     1 /* counter 0 through the MSRs, NMI on overflow */

/* ebs_config.event_kind */
#define EBS_EVENT_GENERIC 0 /* event_id is an EBS_GEN_* */
#define EBS_EVENT_RAW	  1 /* raw PerfEvtSel fields below */

/* generic events, EBS_EVENT_GENERIC */
#define EBS_GEN_CYCLES		 0
#define EBS_GEN_INSTRUCTIONS	 1
#define EBS_GEN_BRANCHES	 2
#define EBS_GEN_BRANCH_MISSES	 3
#define EBS_GEN_CACHE_REFS	 4
#define EBS_GEN_CACHE_MISSES	 5
#define EBS_GEN_CPU_CLOCK	 6 /* software: nanoseconds of CPU time */
#define EBS_GEN_TASK_CLOCK	 7
#define EBS_GEN_PAGE_FAULTS	 8 /* software, from version 2 on */
#define EBS_GEN_CONTEXT_SWITCHES 9
#define EBS_GEN_CPU_MIGRATIONS	 10
#define EBS_GEN_MINOR_FAULTS	 11
#define EBS_GEN_MAJOR_FAULTS	 12
#define EBS_GEN_MAX		 13

/*
 * The IA32_PERFEVTSELx layout (Intel SDM Vol. 3B 18.2.1), which raw events
 * use: event select 0-7, unit mask 8-15, USR 16, OS 17, E(dge) 18, PC 19,
 * INT 20, ANY 21, EN 22, INV 23, CMASK 24-31.
 */
#define EBS_EVTSEL_EVENT(x) (((__u64)(x)) & 0xff)
#define EBS_EVTSEL_UMASK(x) ((((__u64)(x)) & 0xff) << 8)
#define EBS_EVTSEL_USR	    (1ull << 16)
#define EBS_EVTSEL_OS	    (1ull << 17)
#define EBS_EVTSEL_EDGE	    (1ull << 18)
#define EBS_EVTSEL_PC	    (1ull << 19)
#define EBS_EVTSEL_INT	    (1ull << 20)
#define EBS_EVTSEL_ANY	    (1ull << 21)
#define EBS_EVTSEL_EN	    (1ull << 22)
#define EBS_EVTSEL_INV	    (1ull << 23)
#define EBS_EVTSEL_CMASK(x) ((((__u64)(x)) & 0xff) << 24)
/* The fields a raw event (ebs_config.event_id) may set; the rest come from flags. */
#define EBS_EVTSEL_RAW                                                                             \
	(EBS_EVTSEL_EVENT(0xff) | EBS_EVTSEL_UMASK(0xff) | EBS_EVTSEL_EDGE | EBS_EVTSEL_INV |      \
	 EBS_EVTSEL_CMASK(0xff))

/* ebs_config.flags */
#define EBS_CFG_USER	 (1u << 0) /* count in user mode (USR) */
#define EBS_CFG_KERNEL	 (1u << 1) /* count in kernel mode (OS) */
#define EBS_CFG_ALL_CPUS (1u << 2) /* system-wide; pid is ignored */
#define EBS_CFG_ON_EXEC                                                                            \
	(1u << 3) /* pid target, perf-kernel mode: counters are                                    \
		   * enabled by the target's next exec (samples                                    \
		   * are kept only while RUNNING); msr mode counts                                 \
		   * from START */
#define EBS_CFG_COUNT                                                                              \
	(1u << 4) /* count, without the overflow interrupt: no rings                               \
		   * (ring_pages and sample_after 0), no samples;                                  \
		   * EBS_IOC_READ gives the counts (version 2) */
#define EBS_CFG_MARKS                                                                              \
	(1u << 5) /* the rings also get throttle records,                                          \
		   * EBS_KREC_THROTTLE and _UNTHROTTLE                                             \
		   * (version 3; msr mode writes them) */
#define EBS_CFG_KNOWN 0x3fu

#define EBS_RING_MIN_PAGES   1
#define EBS_RING_MAX_PAGES   4096    /* data pages per CPU, power of two */
#define EBS_SAMPLE_AFTER_MIN 1000ull /* below this the NMI rate is a denial of service */
/*
 * msr mode's smallest N (version 3): several times what one overflow costs
 * in cycles (the NMI, six serialising MSR and APIC accesses, the record:
 * 2,000 to 4,000), so that even within the throttle's budget the
 * interrupted code keeps most of the CPU.  Below it CONFIG is -ERANGE.
 */
#define EBS_MSR_SAMPLE_AFTER_MIN 10000ull
#define EBS_MAX_THREADS		 4096 /* threads of a pid target counted at CONFIG */

struct ebs_config {
	__u32 mode;	  /* EBS_MODE_* */
	__u32 event_kind; /* EBS_EVENT_* */
	/*
	 * EBS_GEN_* or, raw, the PerfEvtSel bits (event, umask, edge, inv,
	 * cmask; USR/OS/INT/EN are set by the module from flags)
	 */
	__u64 event_id;
	__u64 sample_after; /* N: the counter is preloaded with -N; 0 with EBS_CFG_COUNT */
	__u32 flags;	    /* EBS_CFG_* */
	__s32 pid;	    /* target process (with its threads), unless ALL_CPUS */
	__u32 ring_pages;   /* data pages per CPU ring, power of two; 0 with EBS_CFG_COUNT */
	__u32 limits;	    /* msr mode's throttle, optional: EBS_LIMITS() (version 3; before, 0) */
};

/*
 * ebs_config.limits (version 3): what the caller's perf sysctls say, for
 * msr mode's throttle (docs/kmod.md section 6.7), as the module cannot
 * read them: kernel.perf_event_max_sample_rate in bits 0-23 (a larger
 * value given as EBS_LIMITS_RATE_MAX, more than N >= 10,000 allows at any
 * clock) and kernel.perf_cpu_time_max_percent in bits 24-31 (1 to 100);
 * either 0: not given.  The module takes the stricter of each and its own
 * parameter (max_sample_rate, cpu_time_max_percent): a caller can make
 * the throttle stricter, never looser.  Anything but 0 outside msr mode's
 * sampling sessions, or a percent above 100, is -EINVAL.
 */
#define EBS_LIMITS_RATE_MAX	  0xffffffu
#define EBS_LIMITS_RATE(l)	  (((__u32)(l)) & EBS_LIMITS_RATE_MAX)
#define EBS_LIMITS_PERCENT(l)	  (((__u32)(l)) >> 24)
#define EBS_LIMITS(rate, percent) ((((__u32)(percent)) << 24) | EBS_LIMITS_RATE(rate))

/*
 * The ring: per CPU, one mmap of (1 + ring_pages) pages at offset
 * cpu * (1 + ring_pages) * PAGE_SIZE.  Page 0 is this header, read-only
 * to user space; the records follow.  head and tail count bytes and only
 * grow; the position of a byte is (count & (data_size - 1)).  The sample
 * handler on that CPU (the NMI handler in msr mode; perf's overflow
 * handler, an NMI or a timer interrupt, in perf-kernel mode) is the only
 * writer of head, with, in msr mode, the throttle's timer on that CPU,
 * which writes only while counter 0 is off there; the reader gives
 * records back with EBS_IOC_TAIL.  Records are 32 bytes and data_size a
 * power of two: a record never straddles the end.  EBS_KREC_PAD marks a
 * record to skip; no mode writes one today.
 */
struct ebs_ring_header {
	__u64 head;	 /* stored by the kernel after the record (release): load it
			  * with acquire before reading the records */
	__u64 tail;	 /* written by the kernel from EBS_IOC_TAIL */
	__u64 data_size; /* bytes of data, power of two */
	__u32 cpu;
	__u32 record_size; /* sizeof(struct ebs_krecord) */
	__u64 dropped;	   /* samples not written because the ring was full */
};

#define EBS_KREC_USER	 (1u << 0) /* interrupted in user mode */
#define EBS_KREC_KERNEL	 (1u << 1)
#define EBS_KREC_PRECISE (1u << 2) /* IP is exact (PEBS); no mode sets it yet */
/*
 * Throttle records (EBS_CFG_MARKS, version 3): not samples.  ip, pid and
 * tid are 0; time_ns and cpu say when and where counter 0 was left off
 * for the rest of the tick (THROTTLE) or counted again (UNTHROTTLE).
 */
#define EBS_KREC_THROTTLE   (1u << 3)
#define EBS_KREC_UNTHROTTLE (1u << 4)
#define EBS_KREC_PAD	    (1u << 15) /* skip to the end of the ring */

struct ebs_krecord {
	__u64 ip;
	__u64 time_ns; /* CLOCK_MONOTONIC (ktime_get_mono_fast_ns), as perf's clock */
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 flags; /* EBS_KREC_* */
};		     /* 32 bytes: rings hold a whole number of them */

struct ebs_tail {
	__u32 cpu;
	__u32 reserved;
	__u64 tail; /* new tail: not beyond head, not backwards */
};

struct ebs_cpu_stats {
	__u64 samples;	 /* records written */
	__u64 dropped;	 /* ring full */
	__u64 overflows; /* overflows handled from START to STOP: samples +
			  * dropped, plus those not kept (another process's
			  * in msr mode with a pid target; a user-only
			  * session's that landed in the kernel) */
	__u64 spurious;	 /* NMIs that were not ours */
};

/*
 * STATS' entry from version 3 on, with entry_size = sizeof(struct
 * ebs_cpu_stats3).  struct ebs_cpu_stats does not grow: a program built
 * against a newer header that leaves entry_size 0 still gets the entries
 * its array is made of.
 */
struct ebs_cpu_stats3 {
	struct ebs_cpu_stats s;
	__u64 throttled; /* msr mode: times the throttle left counter 0 off
			  * until the next tick (docs/kmod.md section 6.7);
			  * with EBS_CFG_MARKS, one THROTTLE record each,
			  * unless the ring was full */
};

struct ebs_stats {
	__u32 nr_cpus;	  /* in: entries cpu[] can hold; out: entries filled */
	__u32 entry_size; /* in: 0 (versions 1, 2: struct ebs_cpu_stats) or
			   * sizeof(struct ebs_cpu_stats3) (version 3);
			   * another size is -EINVAL */
	__u64 cpu_ptr;	  /* user pointer to nr_cpus entries of that size */
};

/*
 * READ: the session's counter values, as perf's read() gives them: value,
 * and the nanoseconds each counter was enabled and running (less than
 * enabled: multiplexed with other users of the PMU, or, for a thread's
 * counter bound to one CPU, the time the thread ran elsewhere).  A value
 * includes what the target's exited children counted.
 */
struct ebs_count {
	__u64 value;
	__u64 time_enabled;
	__u64 time_running;
};

struct ebs_read {
	__u32 nr_cpus;	/* in: entries cpu_ptr holds; out: entries filled
			 * (nr_cpu_ids), or 0 when the counters are not
			 * per CPU (a sampling session of a pid) */
	__u32 reserved; /* must be zero */
	__u64 cpu_ptr;	/* user pointer to struct ebs_count[nr_cpus], by CPU id; 0 with nr_cpus 0 */
	struct ebs_count sum; /* out: every counter; time_enabled summed over the
			       * threads, each thread's the longest of its CPUs' */
};

#define EBS_IOC_VERSION _IOR(EBS_IOC_MAGIC, 0x00, __u32)
#define EBS_IOC_CONFIG	_IOW(EBS_IOC_MAGIC, 0x01, struct ebs_config)
#define EBS_IOC_START	_IO(EBS_IOC_MAGIC, 0x02)
#define EBS_IOC_STOP	_IO(EBS_IOC_MAGIC, 0x03)
#define EBS_IOC_STATS	_IOWR(EBS_IOC_MAGIC, 0x04, struct ebs_stats)
/* RESET: empty rings, STATS zero, READ's counts from 0 (before version 3 READ kept the old) */
#define EBS_IOC_RESET _IO(EBS_IOC_MAGIC, 0x05)
#define EBS_IOC_TAIL  _IOW(EBS_IOC_MAGIC, 0x06, struct ebs_tail)
#define EBS_IOC_READ  _IOWR(EBS_IOC_MAGIC, 0x07, struct ebs_read) /* version 2 */

#endif /* EBS_ABI_H */
