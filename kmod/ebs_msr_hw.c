// SPDX-License-Identifier: GPL-2.0
/*
 * The msr mode in the kernel: counter 0 of every CPU, claimed through the
 * NMI watchdog's bookkeeping, programmed through ebs_msr.c with the real
 * CPUID, MSRs and local APIC, an NMI_LOCAL handler, and per CPU a timer
 * that ends the throttle.  CPUs coming and going are programmed and
 * cleared by CPU hotplug callbacks.
 *
 * The claim: perf reserves its counters in the same bookkeeping while it
 * has hardware events (reserve_pmc_hardware()), counters and event
 * selects.  Where the CPU takes full-width counter writes
 * (IA32_PERF_CAPABILITIES bit 13) perf addresses counter 0 as IA32_A_PMC0
 * (0x4c1), which the bookkeeping does not manage (reserve_perfctr_nmi()
 * succeeds without taking a bit): there only the event select's bit keeps
 * perf and ebs apart.  That suffices, as each takes both or neither.
 * perf's own PMI handler still runs, first, for Intel PT, whose events
 * take no counter and no reservation (x86_add_exclusive() only), and
 * acknowledges counter 0's overflow with its own (ebs_msr_nmi() copes).
 * BTS takes the reservation (bts_event_init() -> x86_reserve_hardware()):
 * it cannot be used while msr mode holds counter 0, nor msr mode with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <asm/apic.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "ebs_kmod.h"
#include "ebs_msr.h"

static void hw_cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	cpuid(leaf, a, b, c, d);
}

static u64 hw_rdmsr(u32 msr)
{
	u64 v;

	ebs_rdmsrq(msr, v);
	return v;
}

static void hw_wrmsr(u32 msr, u64 v)
{
	ebs_wrmsrq(msr, v);
}

static void hw_lvtpc_nmi(void)
{
	ebs_apic_write(APIC_LVTPC, APIC_DM_NMI);
}

static const struct ebs_hw_ops hw = {
	.cpuid = hw_cpuid,
	.rdmsr = hw_rdmsr,
	.wrmsr = hw_wrmsr,
	.lvtpc_nmi = hw_lvtpc_nmi,
};

/*
 * The throttle's limits (docs/kmod.md section 6.7), perf's defaults for
 * kernel.perf_event_max_sample_rate and kernel.perf_cpu_time_max_percent,
 * whose variables are not exported to modules.  The caller of CONFIG may
 * pass what those sysctls say (ebs_config.limits; ebs record does), and
 * the stricter of each and its parameter holds: root's parameters bound
 * every session.
 */
static unsigned int ebs_max_sample_rate = 100000;
module_param_named(max_sample_rate, ebs_max_sample_rate, uint, 0644);
MODULE_PARM_DESC(max_sample_rate,
		 "msr mode: most overflows a second per CPU (perf's default; CONFIG may ask less)");
static unsigned int ebs_cpu_time_max_percent = 25;
module_param_named(cpu_time_max_percent, ebs_cpu_time_max_percent, uint, 0644);
MODULE_PARM_DESC(cpu_time_max_percent,
		 "msr mode: most % of a CPU in the NMI handler; 0, 100: none (perf's default)");

/*
 * A counting session's counts (EBS_CFG_COUNT, all CPUs only): per CPU,
 * what counter 0 counted in the runs before this one (kept at STOP and
 * when the CPU goes offline) and its wraps in this run; and the time
 * counted, START to STOP summed.
 */
struct ebs_msr_counts {
	u64 *kept, *wraps; /* [nr_cpu_ids] */
	u64 *now;	   /* [nr_cpu_ids]: READ's scratch, each CPU writing its own */
	u64 ns, started;   /* ktime_get_ns() */
};

/*
 * One CPU's counter 0 (its state, the tick's budget) and what ends its
 * throttle: the NMI handler cannot arm a timer, so it queues arm, which
 * starts timer, pinned to the CPU, for the end of the tick.  All three run
 * on that CPU only; STOP and release wait for them (ebs_msr_quiesce()).
 * In per-CPU memory (alloc_percpu()), as perf keeps its per-CPU contexts
 * and their hrtimers: each CPU's hot NMI state on lines of its own.
 */
struct ebs_msr_percpu {
	struct ebs_msr_cpu c;
	struct irq_work arm;
	struct hrtimer timer;
	struct ebs_session *s;
	unsigned int cpu;
};

struct ebs_msr_state {
	struct ebs_msr_run run;
	struct ebs_msr_percpu __percpu *cpus;
	struct irq_work slow; /* says that ebs_msr_took() lowered the budget */
	int hp_state;	      /* the dynamic hotplug state, > 0 when set up */
	bool reserved, nmi_registered;
	struct ebs_msr_counts *count; /* counting sessions only */
};

/*
 * The session the NMI handler serves, NULL when none.  Set before the
 * handler is registered and counting starts, cleared after counting stops
 * on every CPU and the handler is unregistered (which waits for running
 * handlers): a handler never sees a freed session.
 */
static struct ebs_session *ebs_msr_active;
static bool ebs_msr_counting;

/*
 * A throttle record of this CPU at now: STATS counts a THROTTLE, and with
 * EBS_CFG_MARKS the ring gets the record unless it is full.  Only while
 * counting, as samples.
 */
static void ebs_msr_mark(struct ebs_session *s, unsigned int cpu, u32 flag, u64 now)
{
	struct ebs_krecord rec = {.time_ns = now, .cpu = cpu, .flags = flag};
	struct ebs_ring *r;

	if (!READ_ONCE(s->counting) || cpu >= s->nr_rings)
		return;
	r = &s->rings[cpu];
	if (flag == EBS_KREC_THROTTLE)
		r->throttled++;
	if ((s->cfg.flags & EBS_CFG_MARKS) && ebs_ring_mark(r, &rec) > 0)
		irq_work_queue(&s->wake[cpu].work); /* never wake directly from NMI */
}

static int ebs_msr_handler(unsigned int cmd, struct pt_regs *regs)
{
	struct ebs_session *s = READ_ONCE(ebs_msr_active);
	unsigned int cpu = smp_processor_id();
	u64 t0 = ktime_get_mono_fast_ns();
	enum ebs_msr_nmi_result res;
	struct ebs_msr_percpu *pc;
	struct ebs_msr_state *st;

	if (!s || !READ_ONCE(ebs_msr_counting))
		return NMI_DONE;
	st = s->mode_data;
	pc = this_cpu_ptr(st->cpus);
	res = ebs_msr_nmi(&hw, &st->run, &pc->c, t0);
	if (res == EBS_MSR_NOT_OURS) {
		if (cpu < s->nr_rings)
			s->rings[cpu].spurious++;
		return NMI_DONE;
	}
	if (res == EBS_MSR_ACKED)
		return NMI_HANDLED; /* STOP is under way on this CPU */
	/* a pid target: counter 0 counts every task; keep the target's samples */
	if (s->target && task_tgid(current) != s->target) {
		if (cpu < s->nr_rings && READ_ONCE(s->counting))
			s->rings[cpu].overflows++;
	} else {
		ebs_session_sample(s, regs);
	}
	if (res == EBS_MSR_THROTTLE) {
		ebs_msr_mark(s, cpu, EBS_KREC_THROTTLE, t0);
		irq_work_queue(&pc->arm);
	}
	/* perf_event_nmi_handler() measures its handler so, for perf_sample_event_took() */
	if (ebs_msr_took(&st->run.lim, &pc->c, ktime_get_mono_fast_ns() - t0))
		irq_work_queue(&st->slow);
	return NMI_HANDLED;
}

/*
 * No kprobe in the NMI handler, as perf marks perf_event_nmi_handler():
 * ebs_msr_nmi() too, from here, as ebs_msr.c is portable (and
 * <linux/kprobes.h> brings asm/msr.h's rdmsr() and wrmsr() macros, which
 * its hw->rdmsr() calls would expand).
 */
NOKPROBE_SYMBOL(ebs_msr_handler);
NOKPROBE_SYMBOL(ebs_msr_nmi);

/* irq_work, on the throttled CPU: the timer for the end of its tick. */
static void ebs_msr_arm(struct irq_work *w)
{
	struct ebs_msr_percpu *pc = container_of(w, struct ebs_msr_percpu, arm);
	struct ebs_msr_state *st = pc->s->mode_data;

	if (READ_ONCE(pc->c.state) == EBS_MSR_THROTTLED)
		hrtimer_start(&pc->timer, ns_to_ktime(ebs_msr_rearm_at(&st->run, &pc->c)),
			      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * The end of a throttled CPU's tick, in hard interrupt context on that
 * CPU (pinned, and cancelled before the CPU goes offline, when it would
 * migrate): the UNTHROTTLE record, then counter 0 on again.  Only an NMI
 * can run meanwhile, and finds counter 0 off: it writes no record.
 */
static enum hrtimer_restart ebs_msr_rearm(struct hrtimer *t)
{
	struct ebs_msr_percpu *pc = container_of(t, struct ebs_msr_percpu, timer);
	struct ebs_msr_state *st = pc->s->mode_data;
	u64 now = ktime_get_mono_fast_ns();

	if (pc->cpu == smp_processor_id() && READ_ONCE(pc->c.state) == EBS_MSR_THROTTLED) {
		ebs_msr_mark(pc->s, pc->cpu, EBS_KREC_UNTHROTTLE, now);
		ebs_msr_unthrottle(&hw, &st->run, &pc->c, now);
	}
	return HRTIMER_NORESTART;
}

/* irq_work: the handler's time lowered the budget (perf_duration_warn()) */
static void ebs_msr_slow(struct irq_work *w)
{
	struct ebs_msr_state *st = container_of(w, struct ebs_msr_state, slow);

	pr_info_ratelimited("msr mode: NMI handler %u ns (>%u%% of a CPU): %u overflows a tick\n",
			    READ_ONCE(st->run.lim.allowed_ns), st->run.lim.percent,
			    READ_ONCE(st->run.lim.per_tick));
}

/* No throttle timer of st runs or will run (process context, counter 0 off everywhere). */
static void ebs_msr_quiesce(struct ebs_msr_state *st)
{
	struct ebs_msr_percpu *pc;
	unsigned int i;

	if (!st->cpus)
		return;
	for_each_possible_cpu(i) {
		pc = per_cpu_ptr(st->cpus, i);
		irq_work_sync(&pc->arm); /* it finds the CPU no longer THROTTLED */
		hrtimer_cancel(&pc->timer);
	}
}

static int ebs_msr_cpu_online(unsigned int cpu)
{
	struct ebs_session *s = READ_ONCE(ebs_msr_active);
	struct ebs_msr_state *st;

	if (s && READ_ONCE(ebs_msr_counting)) {
		st = s->mode_data;
		ebs_msr_cpu_start(&hw, &st->run, &per_cpu_ptr(st->cpus, cpu)->c);
	}
	return 0;
}

/* On this CPU, counting: keep what counter 0 counted (before it is stopped). */
static void ebs_msr_keep(struct ebs_msr_state *st, unsigned int cpu)
{
	if (st->count && cpu < nr_cpu_ids) {
		st->count->kept[cpu] += ebs_msr_cpu_read(&hw, &st->run.pmu, &st->count->wraps[cpu]);
		st->count->wraps[cpu] = 0;
	}
}

/*
 * The CPU going offline, in its hotplug thread: counter 0 stopped with
 * interrupts off, as STOP stops it (an interrupt), and its throttle timer
 * cancelled, which would otherwise migrate to another CPU.
 */
static int ebs_msr_cpu_offline(unsigned int cpu)
{
	struct ebs_session *s = READ_ONCE(ebs_msr_active);
	struct ebs_msr_percpu *pc;
	struct ebs_msr_state *st;
	unsigned long flags;

	if (s) {
		st = s->mode_data;
		pc = per_cpu_ptr(st->cpus, cpu);
		local_irq_save(flags);
		if (READ_ONCE(ebs_msr_counting))
			ebs_msr_keep(st, cpu);
		ebs_msr_cpu_stop(&hw, &st->run.pmu, &pc->c);
		local_irq_restore(flags);
		hrtimer_cancel(&pc->timer);
	}
	return 0;
}

static void ebs_msr_release(struct ebs_session *s)
{
	struct ebs_msr_state *st = s->mode_data;

	if (!st)
		return;
	if (st->hp_state > 0)
		cpuhp_remove_state(st->hp_state); /* clears every online CPU */
	if (st->nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "ebs"); /* waits for handlers */
	ebs_msr_quiesce(st);
	irq_work_sync(&st->slow);
	WRITE_ONCE(ebs_msr_active, NULL);
	if (st->reserved) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0);
	}
	if (st->count) {
		kvfree(st->count->kept);
		kvfree(st->count->wraps);
		kvfree(st->count->now);
		kfree(st->count);
	}
	free_percpu(st->cpus);
	kfree(st);
	s->mode_data = NULL;
}

static int ebs_msr_config(struct ebs_session *s)
{
	struct ebs_msr_percpu *pc;
	struct ebs_msr_state *st;
	unsigned int i;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	s->mode_data = st;
	st->slow = IRQ_WORK_INIT_HARD(ebs_msr_slow);
	st->cpus = alloc_percpu(struct ebs_msr_percpu); /* zeroed */
	err = -ENOMEM;
	if (!st->cpus)
		goto fail;
	for_each_possible_cpu(i) {
		pc = per_cpu_ptr(st->cpus, i);
		pc->arm = IRQ_WORK_INIT_HARD(ebs_msr_arm);
		ebs_hrtimer_setup(&pc->timer, ebs_msr_rearm, CLOCK_MONOTONIC,
				  HRTIMER_MODE_ABS_PINNED_HARD);
		pc->s = s;
		pc->cpu = i;
	}
	/* Intel, not hybrid, architectural perfmon: not QEMU (TCG) or most hypervisors */
	err = ebs_msr_probe(&hw, &st->run.pmu);
	/* and the kernel's verdict: clearcpuid= removes it; the reservations rely on it */
	if (!err && !boot_cpu_has(X86_FEATURE_ARCH_PERFMON))
		err = -ENODEV;
	if (err)
		goto fail;
	st->run.evtsel = ebs_msr_evtsel(&st->run.pmu, &s->cfg, &err);
	if (err)
		goto fail;
	st->run.n = s->cfg.sample_after;
	/* the caller's perf sysctls, when given, only make the parameters stricter */
	ebs_msr_limits_config(&st->run.lim, s->cfg.limits, READ_ONCE(ebs_max_sample_rate),
			      READ_ONCE(ebs_cpu_time_max_percent), HZ);
	if (!reserve_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0)) {
		err = -EBUSY; /* perf (or its NMI watchdog) owns the counters */
		goto fail;
	}
	if (!reserve_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0)) {
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0);
		err = -EBUSY;
		goto fail;
	}
	st->reserved = true;
	WRITE_ONCE(ebs_msr_active, s);
	if (s->cfg.flags & EBS_CFG_COUNT) {
		/* no interrupt: no handler, but somewhere to keep the counts */
		st->count = kzalloc(sizeof(*st->count), GFP_KERNEL);
		err = -ENOMEM;
		if (!st->count)
			goto fail;
		/* nr_cpu_ids of each: up to 8192 on a distribution kernel */
		st->count->kept = kvcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
		st->count->wraps = kvcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
		st->count->now = kvcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
		if (!st->count->kept || !st->count->wraps || !st->count->now)
			goto fail;
	} else {
		err = register_nmi_handler(NMI_LOCAL, ebs_msr_handler, 0, "ebs");
		if (err)
			goto fail;
		st->nmi_registered = true;
	}
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "ebs/msr:online", ebs_msr_cpu_online,
				ebs_msr_cpu_offline);
	if (err < 0)
		goto fail;
	st->hp_state = err;
	return 0;

fail:
	ebs_msr_release(s);
	return err;
}

static void ebs_msr_cpu_start_fn(void *arg)
{
	struct ebs_session *s = arg;
	struct ebs_msr_state *st = s->mode_data;

	ebs_msr_cpu_start(&hw, &st->run, &this_cpu_ptr(st->cpus)->c);
}

static void ebs_msr_cpu_stop_fn(void *arg)
{
	struct ebs_session *s = arg;
	struct ebs_msr_state *st = s->mode_data;

	ebs_msr_keep(st, smp_processor_id());
	ebs_msr_cpu_stop(&hw, &st->run.pmu, &this_cpu_ptr(st->cpus)->c);
}

static void ebs_msr_cpu_read_fn(void *arg)
{
	struct ebs_msr_state *st = arg;
	unsigned int cpu = smp_processor_id();

	if (cpu < nr_cpu_ids)
		st->count->now[cpu] = ebs_msr_cpu_read(&hw, &st->run.pmu, &st->count->wraps[cpu]);
}

static void ebs_msr_start(struct ebs_session *s)
{
	struct ebs_msr_state *st = s->mode_data;

	cpus_read_lock();
	if (st->count)
		st->count->started = ktime_get_ns();
	WRITE_ONCE(ebs_msr_counting, true);
	on_each_cpu(ebs_msr_cpu_start_fn, s, 1);
	cpus_read_unlock();
}

static void ebs_msr_stop(struct ebs_session *s)
{
	struct ebs_msr_state *st = s->mode_data;

	cpus_read_lock();
	on_each_cpu(ebs_msr_cpu_stop_fn, s, 1);
	WRITE_ONCE(ebs_msr_counting, false);
	ebs_msr_quiesce(st); /* a throttle ended after STOP would find the CPU OFF */
	if (st->count)
		st->count->ns += ktime_get_ns() - st->count->started;
	cpus_read_unlock();
}

/*
 * READ of a counting session: per CPU, what was kept plus, while running,
 * what counter 0 holds now (read on each CPU); each CPU's counter was
 * enabled and running for all the time counted (it is never multiplexed:
 * counter 0 is reserved).  A sampling session's counter holds -N plus the
 * events since its last overflow: -EOPNOTSUPP (STATS' overflows x N).
 */
static int ebs_msr_read(struct ebs_session *s, struct ebs_count *cpu, struct ebs_count *sum)
{
	struct ebs_msr_state *st = s->mode_data;
	struct ebs_msr_counts *c = st->count;
	bool running = s->state == EBS_RUNNING;
	unsigned int i;
	u64 ns;

	if (!c)
		return -EOPNOTSUPP;
	cpus_read_lock();
	memset(c->now, 0, nr_cpu_ids * sizeof(*c->now));
	if (running)
		on_each_cpu(ebs_msr_cpu_read_fn, st, 1);
	ns = c->ns + (running ? ktime_get_ns() - c->started : 0);
	for (i = 0; i < nr_cpu_ids; i++) {
		cpu[i].value = c->kept[i] + c->now[i];
		if (cpu_online(i) || cpu[i].value) {
			cpu[i].time_enabled = ns;
			cpu[i].time_running = ns;
		}
		sum->value += cpu[i].value;
		sum->time_enabled += cpu[i].time_enabled;
		sum->time_running += cpu[i].time_running;
	}
	cpus_read_unlock();
	return nr_cpu_ids;
}

const struct ebs_mode_ops ebs_msr_mode = {
	.name = "msr",
	.config = ebs_msr_config,
	.start = ebs_msr_start,
	.stop = ebs_msr_stop,
	.release = ebs_msr_release,
	.read = ebs_msr_read,
};
