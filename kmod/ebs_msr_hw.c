// SPDX-License-Identifier: GPL-2.0
/*
 * The msr mode in the kernel: counter 0 of every CPU
 * reserved through the NMI watchdog's bookkeeping (the same reservation
 * perf takes for all counters while it has events: so neither can take the
 * counter from the other), programmed through ebs_msr.c with the real
 * CPUID, MSRs and local APIC, and an NMI_LOCAL handler.  CPUs coming and
 * going are programmed and cleared by CPU hotplug callbacks.
 */
#include <linux/cpuhotplug.h>
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

struct ebs_msr_state {
	struct ebs_msr_pmu pmu;
	u64 evtsel;
	int hp_state; /* the dynamic hotplug state, > 0 when set up */
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

static int ebs_msr_handler(unsigned int cmd, struct pt_regs *regs)
{
	struct ebs_session *s = READ_ONCE(ebs_msr_active);
	struct ebs_msr_state *st;
	unsigned int cpu = smp_processor_id();

	if (!s || !READ_ONCE(ebs_msr_counting))
		return NMI_DONE;
	st = s->mode_data;
	if (!ebs_msr_nmi(&hw, &st->pmu, st->evtsel, s->cfg.sample_after)) {
		if (cpu < s->nr_rings)
			s->rings[cpu].spurious++;
		return NMI_DONE;
	}
	/* a pid target: counter 0 counts every task; keep the target's samples */
	if (s->target && task_tgid(current) != s->target) {
		if (cpu < s->nr_rings && READ_ONCE(s->counting))
			s->rings[cpu].overflows++;
		return NMI_HANDLED;
	}
	ebs_session_sample(s, regs);
	return NMI_HANDLED;
}

static int ebs_msr_cpu_online(unsigned int cpu)
{
	struct ebs_session *s = READ_ONCE(ebs_msr_active);
	struct ebs_msr_state *st;

	if (s && READ_ONCE(ebs_msr_counting)) {
		st = s->mode_data;
		ebs_msr_cpu_start(&hw, &st->pmu, st->evtsel, s->cfg.sample_after);
	}
	return 0;
}

/* On this CPU, counting: keep what counter 0 counted (before it is stopped). */
static void ebs_msr_keep(struct ebs_msr_state *st, unsigned int cpu)
{
	if (st->count && cpu < nr_cpu_ids) {
		st->count->kept[cpu] += ebs_msr_cpu_read(&hw, &st->pmu, &st->count->wraps[cpu]);
		st->count->wraps[cpu] = 0;
	}
}

static int ebs_msr_cpu_offline(unsigned int cpu)
{
	struct ebs_session *s = READ_ONCE(ebs_msr_active);
	struct ebs_msr_state *st;

	if (s) {
		st = s->mode_data;
		if (READ_ONCE(ebs_msr_counting))
			ebs_msr_keep(st, cpu);
		ebs_msr_cpu_stop(&hw, &st->pmu);
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
	WRITE_ONCE(ebs_msr_active, NULL);
	if (st->reserved) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0);
	}
	if (st->count) {
		kfree(st->count->kept);
		kfree(st->count->wraps);
		kfree(st->count->now);
		kfree(st->count);
	}
	kfree(st);
	s->mode_data = NULL;
}

static int ebs_msr_config(struct ebs_session *s)
{
	struct ebs_msr_state *st;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	s->mode_data = st;
	/* QEMU (TCG) and most hypervisors report no architectural perfmon */
	err = ebs_msr_probe(&hw, &st->pmu);
	if (err)
		goto fail;
	st->evtsel = ebs_msr_evtsel(&st->pmu, &s->cfg, &err);
	if (err)
		goto fail;
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
		st->count->kept = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
		st->count->wraps = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
		st->count->now = kcalloc(nr_cpu_ids, sizeof(u64), GFP_KERNEL);
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

	ebs_msr_cpu_start(&hw, &st->pmu, st->evtsel, s->cfg.sample_after);
}

static void ebs_msr_cpu_stop_fn(void *arg)
{
	struct ebs_session *s = arg;
	struct ebs_msr_state *st = s->mode_data;

	ebs_msr_keep(st, smp_processor_id());
	ebs_msr_cpu_stop(&hw, &st->pmu);
}

static void ebs_msr_cpu_read_fn(void *arg)
{
	struct ebs_msr_state *st = arg;
	unsigned int cpu = smp_processor_id();

	if (cpu < nr_cpu_ids)
		st->count->now[cpu] = ebs_msr_cpu_read(&hw, &st->pmu, &st->count->wraps[cpu]);
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
