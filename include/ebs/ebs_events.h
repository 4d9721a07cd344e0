/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ebs_events.h - the named events: one table, read by ebs.ko and by user
 * space (sampler/events.c parses names with it, `ebs list` prints it,
 * sampler/kmod.c encodes events for the module with it).
 *
 * A row is one event: its name and description; its perf_event_attr type
 * and config, which the perf backend and ebs.ko's perf-kernel mode open;
 * its number among the module's generic events (ebs_config.event_id, an
 * EBS_GEN_* of ebs_abi.h), if the module takes it; and for an
 * architectural event the IA32_PERFEVTSELx encoding that ebs.ko's msr mode
 * programs (Intel SDM Vol. 3B 18.2.1.2, table 18-1), with the CPUID.0AH:EBX
 * bit that says a CPU lacks it.  The rows are in `ebs list` order; a NULL
 * name ends the table.
 *
 * The table is static: each object that reads it holds its own copy (a few
 * hundred bytes), so the module and user space need no shared object file.
 */
#ifndef EBS_EVENTS_H
#define EBS_EVENTS_H

#include <linux/types.h>
#ifdef __KERNEL__
/* the uapi part only: the module's portable files take no heavy kernel header */
#include <uapi/linux/perf_event.h>
#include <linux/stddef.h>
#else
#include <linux/perf_event.h>
#include <stddef.h>
#endif

#include <ebs/ebs_abi.h>

#define EBS_GEN_NONE 0xff /* ebs_event.gen: ebs.ko does not take the event */
#define EBS_NOT_ARCH 0xff /* ebs_event.arch_bit: not an architectural event */

struct ebs_event {
	const char *name; /* as typed: "cycles" */
	__u32 type;	  /* perf_event_attr.type: PERF_TYPE_HARDWARE or _SOFTWARE */
	__u64 config;	  /* perf_event_attr.config: a PERF_COUNT_HW_* or _SW_* */
	__u8 hardware;	  /* 1: needs a hardware PMU (PERF_TYPE_HARDWARE) */
	const char *desc; /* for `ebs list` */
	__u8 gen;	  /* EBS_GEN_*, or EBS_GEN_NONE */
	__u8 evtsel;	  /* msr mode: event select ... */
	__u8 umask;	  /* ... and unit mask */
	__u8 arch_bit;	  /* CPUID.0AH:EBX bit set when the CPU lacks it; EBS_NOT_ARCH */
};

static const struct ebs_event ebs_events[] = {
	/*
	 * name, perf type and config, hardware;
	 * description, generic event of ebs.ko, msr event select and unit mask, CPUID bit
	 */
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, "CPU cycles", EBS_GEN_CYCLES,
	 0x3c, 0x00, 0},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, "instructions retired",
	 EBS_GEN_INSTRUCTIONS, 0xc0, 0x00, 1},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1,
	 "branch instructions retired", EBS_GEN_BRANCHES, 0xc4, 0x00, 5},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1,
	 "mispredicted branches", EBS_GEN_BRANCH_MISSES, 0xc5, 0x00, 6},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1,
	 "last-level cache references", EBS_GEN_CACHE_REFS, 0x2e, 0x4f, 3},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1,
	 "last-level cache misses", EBS_GEN_CACHE_MISSES, 0x2e, 0x41, 4},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0,
	 "CPU time, nanoseconds (hrtimer)", EBS_GEN_CPU_CLOCK, 0, 0, EBS_NOT_ARCH},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0,
	 "task CPU time, nanoseconds", EBS_GEN_TASK_CLOCK, 0, 0, EBS_NOT_ARCH},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, "page faults",
	 EBS_GEN_PAGE_FAULTS, 0, 0, EBS_NOT_ARCH},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0,
	 "context switches", EBS_GEN_CONTEXT_SWITCHES, 0, 0, EBS_NOT_ARCH},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0,
	 "moves of a thread to another CPU", EBS_GEN_CPU_MIGRATIONS, 0, 0, EBS_NOT_ARCH},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0,
	 "page faults served without I/O", EBS_GEN_MINOR_FAULTS, 0, 0, EBS_NOT_ARCH},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0,
	 "page faults that waited for I/O", EBS_GEN_MAJOR_FAULTS, 0, 0, EBS_NOT_ARCH},
	{}};

/* The row of the module's generic event gen (an EBS_GEN_*), or NULL. */
static inline const struct ebs_event *ebs_event_generic(__u64 gen)
{
	const struct ebs_event *e;

	for (e = ebs_events; e->name; e++)
		if (e->gen != EBS_GEN_NONE && e->gen == gen)
			return e;
	return NULL;
}

#endif /* EBS_EVENTS_H */
