// SPDX-License-Identifier: GPL-2.0
/*
 * test-kmod.c - the kernel module's portable parts, compiled unchanged from
 * kmod/ (ebs_check.c: the rules for requests, arguments, mappings, memory
 * and samples; ebs_msr.c: the msr mode's logic; ebs_ring.c: the per-CPU
 * ring).  The msr logic runs against a simulated PMU: CPUID leaves 0, 7
 * and 0xA, counter 0 with its event select, the version 2 global
 * status/control/overflow registers, 32-bit sign-extended counter writes,
 * and a local APIC LVTPC that masks itself when it delivers the NMI.
 * Events are "counted" in steps, in simulated time; an overflow with INT
 * set and LVTPC unmasked calls the NMI path the module's handler takes,
 * at once or, held back, after a chosen MSR write; the throttle's timer
 * fires when the time passes its end of tick.
 *
 * Checked: the state machine, every CONFIG, STATS and TAIL argument rule
 * and the mmap rule, the memory charge against perf_mmap()'s arithmetic,
 * the kernel-sample and CAP_PERFMON rules; the probe (vendor, hybrid), the
 * preload value and the counter width, overflow detection (the counter's
 * top bit, version 2's status register, and the status cleared by perf's
 * handler first), reload, the record written, spurious NMIs,
 * dropped-on-full, and teardown; the throttle at the smallest N (budget,
 * re-arm at the tick's end, counts, records, the handler's time); STOP
 * against an overflow NMI at every step; RESET's counts; the user side's
 * translation of ring records.  And that user space and the module read
 * the one event table (include/ebs/ebs_events.h) alike.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ebs/ebs_events.h>

#include "ebs_check.h"
#include "ebs_msr.h"
#include "ebs_ring.h"
#include "sampler/backend.h"
#include "test.h"

struct fake_pmu {
	__u32 version, counters, width, ebx;
	bool amd, hybrid; /* CPUID leaf 0's vendor, leaf 7's hybrid bit */
	__u64 ctr, evtsel, status, ctrl;
	bool lvtpc_nmi, lvtpc_masked;
	unsigned int nmis, ctr_writes;
	/*
	 * An overflow NMI held back (hold), then delivered right after the
	 * deliver_after-th MSR write from then on: an NMI in the middle of
	 * what that write belongs to.
	 */
	bool hold, pending;
	unsigned int writes, deliver_after;
	bool perf_first; /* perf's PMI handler runs first and acknowledges every status bit */
	__u64 now;	 /* simulated time, ns */
};

static struct fake_pmu F;
static struct sim *S; /* what a delivered NMI runs against */
static void nmi(struct sim *s);

static __u64 fmask(void)
{
	return F.width == 64 ? ~0ull : (1ull << F.width) - 1;
}

static void f_cpuid(__u32 leaf, __u32 *a, __u32 *b, __u32 *c, __u32 *d)
{
	*a = *b = *c = *d = 0;
	if (leaf == 0) {
		*a = 0xd;
		/* "GenuineIntel" or "AuthenticAMD" */
		*b = F.amd ? 0x68747541 : 0x756e6547;
		*d = F.amd ? 0x69746e65 : 0x49656e69;
		*c = F.amd ? 0x444d4163 : 0x6c65746e;
	} else if (leaf == 7) {
		*d = F.hybrid ? 1u << 15 : 0;
	} else if (leaf == 0xa) {
		*a = F.version | F.counters << 8 | F.width << 16 | 7u << 24, *b = F.ebx;
	}
}

static __u64 f_rdmsr(__u32 msr)
{
	switch (msr) {
	case EBS_MSR_PERFCTR0:
		return F.ctr;
	case EBS_MSR_EVNTSEL0:
		return F.evtsel;
	case EBS_MSR_GLOBAL_STATUS:
		return F.status;
	case EBS_MSR_GLOBAL_CTRL:
		return F.ctrl;
	default:
		return 0;
	}
}

static void f_wrmsr(__u32 msr, __u64 v)
{
	switch (msr) {
	case EBS_MSR_PERFCTR0:
		/* the legacy address takes 32 bits and sign-extends them */
		F.ctr = (__u64)(__s64)(__s32)(__u32)v & fmask();
		F.ctr_writes++;
		break;
	case EBS_MSR_EVNTSEL0:
		F.evtsel = v;
		break;
	case EBS_MSR_GLOBAL_CTRL:
		F.ctrl = v;
		break;
	case EBS_MSR_GLOBAL_OVF_CTRL:
		F.status &= ~v;
		break;
	default:
		break;
	}
	if (F.pending && ++F.writes == F.deliver_after) {
		F.pending = false;
		nmi(S);
	}
}

static void f_lvtpc_nmi(void)
{
	F.lvtpc_nmi = true;
	F.lvtpc_masked = false;
}

static const struct ebs_hw_ops hw = {f_cpuid, f_rdmsr, f_wrmsr, f_lvtpc_nmi};

/*
 * The module's handler and throttle timer (ebs_msr_hw.c), minus pt_regs:
 * ours -> a record in the ring; throttled -> a THROTTLE record and the
 * timer armed for the end of the tick, where an UNTHROTTLE record and
 * counter 0 on again.
 */
struct sim {
	struct ebs_msr_run run;
	struct ebs_msr_cpu c;
	struct ebs_ring ring;
	void *mem;
	unsigned int handled, spurious, wakes, acked, unthrottles, lowered;
	__u64 next_ip;
	__u64 timer_at; /* 0: not armed */
	__u64 cost_ns;	/* what each handler takes, for ebs_msr_took() */
};

static void mark(struct sim *s, __u32 flag)
{
	struct ebs_krecord rec = {.time_ns = F.now, .flags = flag};

	if (flag == EBS_KREC_THROTTLE)
		s->ring.throttled++;
	ebs_ring_mark(&s->ring, &rec);
}

static void nmi(struct sim *s)
{
	struct ebs_krecord rec = {.ip = s->next_ip, .time_ns = F.now, .pid = 42, .tid = 43};
	enum ebs_msr_nmi_result res;

	F.nmis++;
	if (F.perf_first)
		F.status = 0; /* intel_pmu_handle_irq(): intel_pmu_ack_status(status) */
	res = ebs_msr_nmi(&hw, &s->run, &s->c, F.now);
	if (res == EBS_MSR_NOT_OURS) {
		s->spurious++;
		return;
	}
	if (res == EBS_MSR_ACKED) {
		s->acked++;
		return;
	}
	s->handled++;
	if (ebs_ring_write(&s->ring, &rec) > 0)
		s->wakes++;
	if (res == EBS_MSR_THROTTLE) {
		mark(s, EBS_KREC_THROTTLE);
		s->timer_at = ebs_msr_rearm_at(&s->run, &s->c);
	}
	if (s->cost_ns && ebs_msr_took(&s->run.lim, &s->c, s->cost_ns))
		s->lowered++;
}

/* Time moves to now: the throttle timer fires if it is due. */
static void advance(struct sim *s, __u64 now)
{
	F.now = now;
	if (s->timer_at && now >= s->timer_at) {
		s->timer_at = 0;
		if (READ_ONCE(s->c.state) == EBS_MSR_THROTTLED) {
			mark(s, EBS_KREC_UNTHROTTLE);
			if (ebs_msr_unthrottle(&hw, &s->run, &s->c, now))
				s->unthrottles++;
		}
	}
}

/* k events happen (the instruction at ip retires): count, overflow, NMI. */
static void count(struct sim *s, __u64 k, __u64 ip)
{
	bool usr_os = F.evtsel & (EBS_EVTSEL_USR | EBS_EVTSEL_OS);
	bool enabled = (F.evtsel & EBS_EVTSEL_EN) && usr_os && (F.version < 2 || (F.ctrl & 1));
	__u64 before = F.ctr;

	if (!enabled)
		return;
	F.ctr = (F.ctr + k) & fmask();
	if (F.ctr < before) { /* wrapped: overflow */
		if (F.version >= 2)
			F.status |= 1;
		if ((F.evtsel & EBS_EVTSEL_INT) && F.lvtpc_nmi && !F.lvtpc_masked) {
			F.lvtpc_masked = true; /* the APIC masks LVTPC on delivery */
			s->next_ip = ip;
			if (F.hold) {
				F.pending = true;
				F.writes = 0;
			} else {
				nmi(s);
			}
		}
	}
}

/* CONFIG's limits (ebs_config.limits) for the sessions sim_init() sets up; 0: none given */
static __u32 sim_limits;

static void sim_init(struct sim *s, __u32 ring_pages, __u64 n)
{
	struct ebs_config cfg = {.event_kind = EBS_EVENT_GENERIC,
				 .event_id = EBS_GEN_CYCLES,
				 .sample_after = n,
				 .flags = EBS_CFG_USER | EBS_CFG_KERNEL};
	int err;

	memset(s, 0, sizeof(*s));
	S = s;
	s->mem = calloc(1 + ring_pages, 4096);
	ebs_ring_init(&s->ring, s->mem, ring_pages, 0, 4096);
	ebs_msr_probe(&hw, &s->run.pmu);
	s->run.n = n;
	s->run.evtsel = ebs_msr_evtsel(&s->run.pmu, &cfg, &err);
	/* the parameters at perf's defaults, and Debian's HZ: 400 overflows a 4 ms tick */
	ebs_msr_limits_config(&s->run.lim, sim_limits, 100000, 25, 250);
}

static void fake_reset(__u32 version, __u32 width)
{
	memset(&F, 0, sizeof(F));
	F.version = version;
	F.counters = 4;
	F.width = width;
}

static void test_probe(void)
{
	struct ebs_msr_pmu pmu;

	fake_reset(0, 48);
	TEST_EQ("msr: no architectural perfmon (QEMU, most VMs) is -ENODEV",
		ebs_msr_probe(&hw, &pmu), -ENODEV);
	fake_reset(2, 48);
	TEST_EQ("msr: version 2, 48-bit counters", ebs_msr_probe(&hw, &pmu), 0);
	TEST_CHECK("msr: counter mask from the width",
		   pmu.mask == 0xffffffffffffull && pmu.counters == 4 && pmu.version == 2);
	/* leaf 0xA as an Intel part's: only the vendor (or the hybrid bit) differs */
	F.amd = true;
	TEST_EQ("msr: an AMD CPU is -ENODEV whatever leaf 0xA says (its counters are other MSRs)",
		ebs_msr_probe(&hw, &pmu), -ENODEV);
	F.amd = false;
	F.hybrid = true;
	TEST_EQ("msr: a hybrid Intel part is -ENODEV (leaf 0xA differs by core type)",
		ebs_msr_probe(&hw, &pmu), -ENODEV);
}

static void test_evtsel(void)
{
	struct ebs_config cfg = {.event_kind = EBS_EVENT_GENERIC,
				 .event_id = EBS_GEN_CYCLES,
				 .sample_after = 100000,
				 .flags = EBS_CFG_USER | EBS_CFG_KERNEL};
	struct ebs_msr_pmu pmu;
	__u64 sel;
	int err;

	fake_reset(2, 48);
	ebs_msr_probe(&hw, &pmu);
	sel = ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_CHECK("msr: cycles is event 0x3c with USR, OS, INT and EN",
		   !err && sel == (0x3c | EBS_EVTSEL_USR | EBS_EVTSEL_OS | EBS_EVTSEL_INT |
				   EBS_EVTSEL_EN));
	cfg.flags = EBS_CFG_USER;
	sel = ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_CHECK("msr: :u sets USR only",
		   !err && (sel & EBS_EVTSEL_USR) && !(sel & EBS_EVTSEL_OS));
	cfg.event_kind = EBS_EVENT_RAW;
	cfg.event_id = EBS_EVTSEL_EVENT(0xc2) | EBS_EVTSEL_UMASK(0x01) | EBS_EVTSEL_CMASK(1) |
		       EBS_EVTSEL_INV;
	sel = ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_CHECK("msr: a raw event keeps event, umask, cmask and inv",
		   !err && sel == (cfg.event_id | EBS_EVTSEL_USR | EBS_EVTSEL_INT | EBS_EVTSEL_EN));
	cfg.event_id |= EBS_EVTSEL_OS;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: a raw event may not set OS itself", err, -EINVAL);
	cfg.event_kind = EBS_EVENT_GENERIC;
	cfg.event_id = EBS_GEN_CPU_CLOCK;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: cpu-clock has no counter", err, -EINVAL);
	F.ebx = 1u << 6; /* branch mispredicts not available */
	ebs_msr_probe(&hw, &pmu);
	cfg.event_id = EBS_GEN_BRANCH_MISSES;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: an architectural event CPUID says is absent", err, -EOPNOTSUPP);
	cfg.event_id = EBS_GEN_CYCLES;
	cfg.sample_after = 1ull << 31;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: N beyond a 32-bit signed preload", err, -ERANGE);
	cfg.sample_after = EBS_MSR_SAMPLE_AFTER_MIN - 1;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: N of 9999, below EBS_MSR_SAMPLE_AFTER_MIN", err, -ERANGE);
	cfg.sample_after = EBS_MSR_SAMPLE_AFTER_MIN;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: N of EBS_MSR_SAMPLE_AFTER_MIN (10000)", err, 0);
	cfg.sample_after = 0;
	cfg.flags = EBS_CFG_USER | EBS_CFG_KERNEL | EBS_CFG_COUNT;
	sel = ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_CHECK("msr: counting cycles is 0x3c with USR, OS and EN, no INT (N 0)",
		   !err && sel == (0x3c | EBS_EVTSEL_USR | EBS_EVTSEL_OS | EBS_EVTSEL_EN));
}

/*
 * A counting session on the simulated PMU: counter 0 from 0, no interrupt,
 * read as it runs; a wrap that the v2 status reports adds 2^width, and
 * none is lost between reads.
 */
static void counting_run(__u32 version)
{
	struct ebs_config cfg = {.event_kind = EBS_EVENT_GENERIC,
				 .event_id = EBS_GEN_INSTRUCTIONS,
				 .flags = EBS_CFG_USER | EBS_CFG_COUNT | EBS_CFG_ALL_CPUS};
	__u64 wraps = 0, total = 0, got, width = 1ull << 48;
	char name[128];
	struct sim s;
	int err, i;

	fake_reset(version, 48);
	sim_init(&s, 1, 0);
	s.run.evtsel = ebs_msr_evtsel(&s.run.pmu, &cfg, &err);
	ebs_msr_cpu_start(&hw, &s.run, &s.c);
	snprintf(name, sizeof(name), "msr v%u counting: started from 0, no interrupt bit", version);
	TEST_CHECK(name, !err && F.ctr == 0 && !(F.evtsel & EBS_EVTSEL_INT));
	for (i = 0; i < 1000; i++) {
		count(&s, 12345, 0x1000);
		total += 12345;
	}
	got = ebs_msr_cpu_read(&hw, &s.run.pmu, &wraps);
	snprintf(name, sizeof(name), "msr v%u counting: 1000 x 12345 events read as %llu", version,
		 (unsigned long long)got);
	TEST_CHECK(name, got == total);
	/* to 100 events before the wrap, then past it */
	count(&s, width - total - 100, 0x1000);
	count(&s, 300, 0x1000);
	got = ebs_msr_cpu_read(&hw, &s.run.pmu, &wraps);
	snprintf(name, sizeof(name), "msr v%u counting: past a wrap of 2^48, %s", version,
		 version >= 2 ? "2^48 + 200 (the status says so)" : "200 (version 1 cannot tell)");
	TEST_CHECK(name, got == (version >= 2 ? width + 200 : 200));
	count(&s, 50, 0x1000);
	got = ebs_msr_cpu_read(&hw, &s.run.pmu, &wraps);
	snprintf(name, sizeof(name), "msr v%u counting: the wrap is kept by the next read (%llu)",
		 version, (unsigned long long)got);
	TEST_CHECK(name, got == (version >= 2 ? width + 250 : 250));
	snprintf(name, sizeof(name), "msr v%u counting: no NMI, no sample", version);
	TEST_CHECK(name, F.nmis == 0 && s.handled == 0);
	ebs_msr_cpu_stop(&hw, &s.run.pmu, &s.c);
	free(s.mem);
}

static void test_preload(void)
{
	struct ebs_msr_pmu pmu;

	fake_reset(2, 48);
	ebs_msr_probe(&hw, &pmu);
	TEST_CHECK("msr: preload of a 48-bit counter is 2^48 - N",
		   ebs_msr_preload(&pmu, 100000) == (1ull << 48) - 100000);
	f_wrmsr(EBS_MSR_PERFCTR0, ebs_msr_preload(&pmu, 100000));
	TEST_CHECK("msr: the 32-bit sign-extended write lands the same value",
		   F.ctr == (1ull << 48) - 100000);
	fake_reset(2, 40);
	ebs_msr_probe(&hw, &pmu);
	TEST_CHECK("msr: preload of a 40-bit counter is 2^40 - N",
		   ebs_msr_preload(&pmu, 1000) == (1ull << 40) - 1000);
}

/* Overflow, reload, record: N events per sample, whatever the step size. */
static void overflow_run(__u32 version)
{
	char name[96];
	struct sim s;
	__u64 i, total = 0;

	fake_reset(version, 48);
	sim_init(&s, 4, 10000);
	ebs_msr_cpu_start(&hw, &s.run, &s.c);
	snprintf(name, sizeof(name), "msr v%u: start arms LVTPC as NMI and enables counter 0",
		 version);
	TEST_CHECK(name, F.lvtpc_nmi && !F.lvtpc_masked && (F.evtsel & EBS_EVTSEL_EN) &&
				 F.ctr == (1ull << 48) - 10000 && (version < 2 || (F.ctrl & 1)) &&
				 s.c.state == EBS_MSR_ON);
	for (i = 0; total + 7 <= 105000; i++) {
		count(&s, 7, 0x400000 + i);
		total += 7;
	}
	/* 105000 events, N = 10000: 10 overflows, each reloaded with -N */
	snprintf(name, sizeof(name), "msr v%u: 10 samples for 105000 events at N = 10000 (got %u)",
		 version, s.handled);
	TEST_CHECK(name, s.handled == 10 && s.spurious == 0);
	snprintf(name, sizeof(name), "msr v%u: LVTPC unmasked again after each NMI", version);
	TEST_CHECK(name, !F.lvtpc_masked);
	snprintf(name, sizeof(name), "msr v%u: overflow status cleared", version);
	TEST_CHECK(name, F.status == 0);
	snprintf(name, sizeof(name), "msr v%u: 10 records in the ring", version);
	TEST_EQ(name, ebs_ring_unread(&s.ring), 10 * sizeof(struct ebs_krecord));
	if (s.handled) {
		const struct ebs_krecord *r = (const void *)s.ring.data;

		snprintf(name, sizeof(name), "msr v%u: the record holds the interrupted IP",
			 version);
		/* the 1429th step of 7 events (events 9997..10003) made the first overflow */
		TEST_CHECK(name, r[0].ip == 0x400000 + 1428 && r[0].pid == 42 && r[0].tid == 43);
	}
	/* an NMI that is someone else's */
	nmi(&s);
	snprintf(name, sizeof(name), "msr v%u: an NMI without overflow is not ours", version);
	TEST_CHECK(name, s.spurious == 1 && s.handled == 10);
	ebs_msr_cpu_stop(&hw, &s.run.pmu, &s.c);
	count(&s, 50000, 0);
	snprintf(name, sizeof(name), "msr v%u: stop clears counter 0; nothing counts after",
		 version);
	TEST_CHECK(name, F.evtsel == 0 && F.ctr == 0 && s.handled == 10 &&
				 (version < 2 || !(F.ctrl & 1)) && s.c.state == EBS_MSR_OFF);
	nmi(&s);
	snprintf(name, sizeof(name), "msr v%u: after stop an NMI is not ours (counter 0 reads 0)",
		 version);
	TEST_CHECK(name, s.spurious == 2 && s.acked == 0);
	free(s.mem);
}

static void test_dropped(void)
{
	struct sim s;
	int i;

	fake_reset(2, 48);
	sim_init(&s, 1, 10000); /* one data page: 128 records */
	ebs_msr_cpu_start(&hw, &s.run, &s.c);
	for (i = 0; i < 200; i++)
		count(&s, 10000, 0x1000 + i);
	TEST_CHECK("ring: 200 overflows, one page: 128 kept, 72 dropped",
		   s.handled == 200 && s.ring.samples == 128 && s.ring.dropped == 72 &&
			   s.ring.hdr->dropped == 72);
	TEST_CHECK("ring: the kept ones are the first 128, none overwritten",
		   ((const struct ebs_krecord *)s.ring.data)[127].ip == 0x1000 + 127 &&
			   ((const struct ebs_krecord *)s.ring.data)[0].ip == 0x1000);
	TEST_EQ("ring: woken once, crossing the watermark", s.wakes, 1);
	TEST_EQ("ring: giving it all back", ebs_ring_set_tail(&s.ring, s.ring.hdr->head), 0);
	count(&s, 10000, 0x9999);
	TEST_CHECK("ring: written again after the tail moved",
		   s.ring.samples == 129 &&
			   ((const struct ebs_krecord *)s.ring.data)[0].ip == 0x9999);
	free(s.mem);
}

static void test_tail(void)
{
	struct sim s;

	fake_reset(2, 48);
	sim_init(&s, 1, 10000);
	ebs_msr_cpu_start(&hw, &s.run, &s.c);
	count(&s, 10000, 1); /* three samples: 96 bytes */
	count(&s, 10000, 2);
	count(&s, 10000, 3);
	TEST_EQ("ring: tail beyond head", ebs_ring_set_tail(&s.ring, 4 * 32), -EINVAL);
	TEST_EQ("ring: tail inside a record", ebs_ring_set_tail(&s.ring, 16), -EINVAL);
	TEST_EQ("ring: tail forward", ebs_ring_set_tail(&s.ring, 64), 0);
	TEST_EQ("ring: tail backwards", ebs_ring_set_tail(&s.ring, 32), -EINVAL);
	ebs_ring_reset(&s.ring);
	TEST_CHECK("ring: reset empties it and zeroes the counts",
		   !ebs_ring_unread(&s.ring) && !s.ring.samples && !s.ring.hdr->head);
	free(s.mem);
}

/*
 * The throttle at msr mode's smallest N, on the simulated PMU: ghz
 * events a nanosecond (cycles at that clock) for one simulated second in
 * steps of 1000 events, perf's default limits (100,000 a second, 25%) and
 * HZ 250: 400 overflows per 4 ms tick.  Measured: samples, throttles and
 * re-arms, the samples of each budget window, the most in any 4 ms
 * aligned to the ticks, and how late the timer re-armed.  The numbers
 * are printed for docs/kmod.md section 6.7.
 */
struct throttle_numbers {
	unsigned int samples, throttles, unthrottles, spurious;
	unsigned int window_max, window_min, tick_max; /* window_min: full windows only */
	__u64 counted_off;			       /* events counted while throttled */
	__u64 late_max;				       /* re-arm after the tick's end, ns */
};

static void throttle_run(double ghz, __u64 cost_ns, struct sim *s, struct throttle_numbers *t)
{
	__u64 step = 1000, dt = (__u64)(step / ghz), now = 0, tick = 4000000;
	unsigned int in_window = 0, in_tick = 0, throttles = 0;
	__u64 tick_start = 0, due = 0;

	memset(t, 0, sizeof(*t));
	t->window_min = ~0u;
	fake_reset(2, 48);
	sim_init(s, 4096, EBS_MSR_SAMPLE_AFTER_MIN);
	s->cost_ns = cost_ns;
	ebs_msr_cpu_start(&hw, &s->run, &s->c);
	while (now < 1000000000ull) {
		unsigned int before = s->handled, unthr = s->unthrottles;
		__u64 ctr = F.ctr;
		bool off = s->c.state == EBS_MSR_THROTTLED;

		now += dt;
		advance(s, now);
		if (s->unthrottles != unthr && now - due > t->late_max)
			t->late_max = now - due;
		if (now - tick_start >= tick) {
			t->tick_max = in_tick > t->tick_max ? in_tick : t->tick_max;
			in_tick = 0;
			tick_start += tick;
		}
		count(s, step, now);
		if (off && s->c.state == EBS_MSR_THROTTLED)
			t->counted_off += F.ctr - ctr;
		in_window += s->handled - before;
		in_tick += s->handled - before;
		if (s->ring.throttled != throttles) {
			throttles = (unsigned int)s->ring.throttled;
			due = s->timer_at;
			t->window_max = in_window > t->window_max ? in_window : t->window_max;
			t->window_min = in_window < t->window_min ? in_window : t->window_min;
			in_window = 0;
		}
		/* the reader keeps up: every record given back */
		ebs_ring_set_tail(&s->ring, s->ring.hdr->head);
	}
	t->samples = s->handled;
	t->throttles = throttles;
	t->unthrottles = s->unthrottles;
	t->spurious = s->spurious;
	if (!throttles)
		t->window_max = t->window_min = 0;
}

static void test_throttle(void)
{
	struct throttle_numbers t;
	struct sim s;
	char name[200];

	TEST_CHECK("throttle: perf's defaults at HZ 250 are 400 overflows per 4 ms tick, 2500 ns "
		   "of handler on average",
		   (sim_init(&s, 1, EBS_MSR_SAMPLE_AFTER_MIN),
		    s.run.lim.per_tick == 400 && s.run.lim.tick_ns == 4000000 &&
			    s.run.lim.allowed_ns == 2500));
	free(s.mem);

	/* 0.5 GHz at N 10000: 50,000 a second, 200 a tick: under the budget */
	throttle_run(0.5, 0, &s, &t);
	printf("    throttle: 0.5 GHz, N 10000: %u samples, %u throttles, at most %u in a tick\n",
	       t.samples, t.throttles, t.tick_max);
	TEST_CHECK("throttle: 0.5 GHz at N 10000 (200 a tick) is never throttled",
		   t.throttles == 0 && t.samples >= 49990 && t.samples <= 50000);
	free(s.mem);

	/* 1 GHz: 400 a tick, the budget exactly: the 400th of each window throttles */
	throttle_run(1.0, 0, &s, &t);
	printf("    throttle: 1 GHz, N 10000: %u samples, %u throttles, %u re-arms, windows of "
	       "%u..%u samples, at most %u in a tick\n",
	       t.samples, t.throttles, t.unthrottles, t.window_min, t.window_max, t.tick_max);
	TEST_CHECK("throttle: 1 GHz at N 10000 stays within 100,000 a second",
		   t.samples <= 100000 + 400 && t.tick_max <= 400);
	free(s.mem);

	/* 4 GHz: 1600 a tick asked for, 400 taken */
	throttle_run(4.0, 0, &s, &t);
	printf("    throttle: 4 GHz, N 10000: %u samples, %u throttles, %u re-arms, windows of "
	       "%u..%u samples, at most %u in a 4 ms tick, re-armed at most %llu ns after the "
	       "tick's end, %llu events counted while throttled\n",
	       t.samples, t.throttles, t.unthrottles, t.window_min, t.window_max, t.tick_max,
	       (unsigned long long)t.late_max, (unsigned long long)t.counted_off);
	snprintf(name, sizeof(name),
		 "throttle: 4 GHz at N 10000 (1600 a tick asked): %u samples in 1 s, at most "
		 "100,000 + one tick's 400",
		 t.samples);
	TEST_CHECK(name, t.samples >= 100000 - 400 && t.samples <= 100000 + 400);
	snprintf(name, sizeof(name), "throttle: every budget window holds exactly 400 (%u..%u)",
		 t.window_min, t.window_max);
	TEST_CHECK(name, t.window_min == 400 && t.window_max == 400);
	snprintf(name, sizeof(name),
		 "throttle: one throttle a tick (%u in 1 s), each re-armed at the next (%u)",
		 t.throttles, t.unthrottles);
	TEST_CHECK(name, t.throttles >= 249 && t.throttles <= 251 &&
				 t.unthrottles + 1 >= t.throttles && t.unthrottles <= t.throttles);
	snprintf(name, sizeof(name),
		 "throttle: re-armed within one step (250 ns) of the tick's end (%llu ns)",
		 (unsigned long long)t.late_max);
	TEST_CHECK(name, t.late_max <= 250);
	TEST_CHECK("throttle: counter 0 counts nothing while throttled", t.counted_off == 0);
	TEST_CHECK("throttle: at most 400 in any 4 ms tick", t.tick_max <= 400);
	TEST_CHECK("throttle: STATS' throttled counts each, a THROTTLE record each",
		   s.ring.throttled == t.throttles && s.ring.samples == t.samples);
	{
		/* the last records: a sample, THROTTLE, UNTHROTTLE, sample..., in order */
		const struct ebs_krecord *r = (const void *)s.ring.data;
		__u64 n = s.ring.hdr->head / sizeof(*r), i, thr = 0, unthr = 0, bad = 0;
		__u64 mask = s.ring.mask / sizeof(*r);
		bool throttled = false;

		for (i = n > 4096 ? n - 4096 : 0; i < n; i++) {
			const struct ebs_krecord *k = &r[i & mask];

			if (k->flags & EBS_KREC_THROTTLE) {
				bad += throttled;
				throttled = true;
				thr++;
			} else if (k->flags & EBS_KREC_UNTHROTTLE) {
				bad += !throttled && thr;
				throttled = false;
				unthr++;
			} else {
				bad += throttled;
			}
		}
		snprintf(name, sizeof(name),
			 "throttle: in the ring, THROTTLE and UNTHROTTLE alternate and no sample "
			 "falls between them (%llu and %llu seen)",
			 (unsigned long long)thr, (unsigned long long)unthr);
		TEST_CHECK(name, thr > 0 && unthr > 0 && !bad);
	}
	free(s.mem);

	/* a slow handler: perf_cpu_time_max_percent lowers the budget */
	throttle_run(4.0, 5000, &s, &t);
	printf("    throttle: 4 GHz, N 10000, 5 us a handler: budget lowered %u times to %u a "
	       "tick, %u samples\n",
	       s.lowered, s.run.lim.per_tick, t.samples);
	snprintf(name, sizeof(name),
		 "throttle: a 5 us handler lowers the budget to %u a tick (%u us of the 4 ms tick: "
		 "at most 25%%)",
		 s.run.lim.per_tick, s.run.lim.per_tick * 5);
	TEST_CHECK(name, s.lowered > 0 && s.run.lim.per_tick * 5000ull <= 1000000 &&
				 s.run.lim.per_tick >= 100 && t.window_min == s.run.lim.per_tick);
	free(s.mem);
	throttle_run(4.0, 2000, &s, &t);
	TEST_CHECK("throttle: a 2 us handler (under 2500 ns) leaves the budget at 400",
		   s.lowered == 0 && s.run.lim.per_tick == 400 && t.window_max == 400);
	free(s.mem);
	sim_init(&s, 1, EBS_MSR_SAMPLE_AFTER_MIN);
	ebs_msr_limits_init(&s.run.lim, 100000, 0, 250);
	s.c.running_ns = 128ull * 100000;
	TEST_CHECK("throttle: perf_cpu_time_max_percent 0 never lowers it",
		   !ebs_msr_took(&s.run.lim, &s.c, 100000) && s.run.lim.per_tick == 400);
	ebs_msr_limits_init(&s.run.lim, 1000, 25, 250);
	TEST_CHECK("throttle: kernel.perf_event_max_sample_rate 1000 at HZ 250: 4 a tick",
		   s.run.lim.per_tick == 4);
	ebs_msr_limits_init(&s.run.lim, 1, 25, 1000);
	TEST_CHECK("throttle: the smallest rate still lets 1 a tick through",
		   s.run.lim.per_tick == 1);
	free(s.mem);
}

/*
 * CONFIG's limits (ebs_msr_limits_config()): what the caller says its perf
 * sysctls are makes the module's parameters stricter, never looser; a
 * part not given (0) leaves the parameter.  The parameters at perf's
 * defaults (100,000 a second, 25%), HZ 250.
 */
static void test_limits(void)
{
	struct throttle_numbers t;
	struct ebs_msr_limits l;
	struct sim s;
	char name[200];

	ebs_msr_limits_config(&l, 0, 100000, 25, 250);
	TEST_CHECK("limits: none given: the parameters' (400 a tick, 25%, 2500 ns)",
		   l.per_tick == 400 && l.percent == 25 && l.allowed_ns == 2500);
	ebs_msr_limits_config(&l, EBS_LIMITS(50000, 0), 100000, 25, 250);
	TEST_CHECK("limits: a rate of 50,000 given, below the parameter's, is used (200 a tick, "
		   "5000 ns)",
		   l.per_tick == 200 && l.percent == 25 && l.allowed_ns == 5000);
	ebs_msr_limits_config(&l, EBS_LIMITS(200000, 0), 100000, 25, 250);
	TEST_CHECK("limits: a rate of 200,000 given is clamped to the parameter's 100,000",
		   l.per_tick == 400 && l.allowed_ns == 2500);
	ebs_msr_limits_config(&l, EBS_LIMITS(EBS_LIMITS_RATE_MAX, 100), 100000, 25, 250);
	TEST_CHECK("limits: the largest rate and 100% (no limit) given: the parameters'",
		   l.per_tick == 400 && l.percent == 25 && l.allowed_ns == 2500);
	ebs_msr_limits_config(&l, EBS_LIMITS(1, 0), 100000, 25, 250);
	TEST_CHECK("limits: a rate of 1 given: 1 a tick", l.per_tick == 1);
	ebs_msr_limits_config(&l, EBS_LIMITS(0, 10), 100000, 25, 250);
	TEST_CHECK("limits: 10% given, below the parameter's 25%, is used (1000 ns)",
		   l.per_tick == 400 && l.percent == 10 && l.allowed_ns == 1000);
	ebs_msr_limits_config(&l, EBS_LIMITS(0, 50), 100000, 25, 250);
	TEST_CHECK("limits: 50% given is clamped to the parameter's 25%",
		   l.percent == 25 && l.allowed_ns == 2500);
	ebs_msr_limits_config(&l, EBS_LIMITS(0, 10), 100000, 0, 250);
	TEST_CHECK("limits: 10% given against a parameter of 0 (no limit): 10%", l.percent == 10);
	ebs_msr_limits_config(&l, EBS_LIMITS(0, 100), 100000, 100, 250);
	TEST_CHECK("limits: 100% given against a parameter of 100: no limit",
		   l.percent == 0 && l.allowed_ns == 0);

	/* and the throttle keeps to them: 4 GHz asks for 400,000 a second */
	sim_limits = EBS_LIMITS(50000, 0);
	throttle_run(4.0, 0, &s, &t);
	snprintf(name, sizeof(name),
		 "limits: 4 GHz at N 10000 with a rate of 50,000 given: %u samples in 1 s, windows "
		 "of %u..%u",
		 t.samples, t.window_min, t.window_max);
	TEST_CHECK(name, t.samples >= 50000 - 200 && t.samples <= 50000 + 200 &&
				 t.window_min == 200 && t.window_max == 200);
	free(s.mem);
	sim_limits = EBS_LIMITS(400000, 0);
	throttle_run(4.0, 0, &s, &t);
	snprintf(name, sizeof(name),
		 "limits: ... with 400,000 given: %u samples, the parameter's 100,000 (400 a tick)",
		 t.samples);
	TEST_CHECK(name,
		   t.samples >= 100000 - 400 && t.samples <= 100000 + 400 && t.window_max == 400);
	free(s.mem);
	sim_limits = 0;
}

/*
 * STOP racing an overflow: the NMI arrives after each of ebs_msr_cpu_stop()'s
 * MSR writes in turn (and once after it returned).  Whenever it comes,
 * counter 0 ends disabled and cleared, its status clear, LVTPC unmasked;
 * inside STOP the NMI is ours (NMI_HANDLED).
 */
static void stop_race(__u32 version)
{
	unsigned int k, writes = version >= 2 ? 4 : 2, bad = 0, lost = 0;
	char name[160];
	struct sim s;

	for (k = 1; k <= writes + 1; k++) {
		fake_reset(version, 48);
		sim_init(&s, 1, EBS_MSR_SAMPLE_AFTER_MIN);
		ebs_msr_cpu_start(&hw, &s.run, &s.c);
		F.hold = true;
		count(&s, EBS_MSR_SAMPLE_AFTER_MIN + 5, 0x1000); /* overflowed, NMI on its way */
		F.deliver_after = k;
		ebs_msr_cpu_stop(&hw, &s.run.pmu, &s.c);
		if (F.pending) { /* after STOP returned */
			F.pending = false;
			nmi(&s);
		}
		F.hold = false;
		count(&s, 1ull << 40, 0x2000);
		if (F.evtsel || F.ctr || (version >= 2 && ((F.ctrl & 1) || F.status)) ||
		    s.c.state != EBS_MSR_OFF) {
			printf("    stop race v%u, NMI after write %u: evtsel %#llx ctr %#llx ctrl "
			       "%#llx status %#llx state %u\n",
			       version, k, (unsigned long long)F.evtsel, (unsigned long long)F.ctr,
			       (unsigned long long)F.ctrl, (unsigned long long)F.status, s.c.state);
			bad++;
		}
		if (k <= writes && (s.handled + s.acked != 1 || F.lvtpc_masked))
			lost++;
		free(s.mem);
	}
	snprintf(name, sizeof(name),
		 "msr v%u: an overflow NMI after any of STOP's %u MSR writes leaves counter 0 "
		 "off and cleared",
		 version, writes);
	TEST_CHECK(name, bad == 0);
	snprintf(name, sizeof(name),
		 "msr v%u: ... and is handled as ours (acknowledged, LVTPC unmasked)", version);
	TEST_CHECK(name, lost == 0);
}

/*
 * perf's PMI handler, run before ebs's, acknowledges counter 0's status
 * bit with its own: the overflow is still ours (the counter's top bit),
 * sampled and re-armed.
 */
static void test_perf_first(void)
{
	struct sim s;
	int i;

	fake_reset(2, 48);
	sim_init(&s, 4, EBS_MSR_SAMPLE_AFTER_MIN);
	ebs_msr_cpu_start(&hw, &s.run, &s.c);
	F.perf_first = true;
	count(&s, EBS_MSR_SAMPLE_AFTER_MIN + 3, 0x1000);
	TEST_CHECK("msr v2: status cleared by perf's handler first: still ours, re-armed",
		   s.handled == 1 && s.spurious == 0 && (F.evtsel & EBS_EVTSEL_EN) &&
			   F.ctr == (1ull << 48) - EBS_MSR_SAMPLE_AFTER_MIN && F.status == 0);
	for (i = 0; i < 9; i++)
		count(&s, EBS_MSR_SAMPLE_AFTER_MIN, 0x2000 + i);
	TEST_EQ("msr v2: ... and every later overflow sampled too (10 of 10)", s.handled, 10);
	F.perf_first = false;
	nmi(&s);
	TEST_EQ("msr v2: an NMI that is perf's alone (top bit set, status clear) is not ours",
		s.spurious, 1);
	free(s.mem);
}

/*
 * RESET of a counting session: READ's counts start again from 0
 * (ebs_check_count_since() against what READ gave at RESET), on the
 * simulated PMU's counter.
 */
static void test_reset_counts(void)
{
	struct ebs_config cfg = {.event_kind = EBS_EVENT_GENERIC,
				 .event_id = EBS_GEN_INSTRUCTIONS,
				 .flags = EBS_CFG_USER | EBS_CFG_COUNT | EBS_CFG_ALL_CPUS};
	struct ebs_count base, now;
	__u64 wraps = 0;
	struct sim s;
	int err;

	fake_reset(2, 48);
	sim_init(&s, 1, 0);
	s.run.evtsel = ebs_msr_evtsel(&s.run.pmu, &cfg, &err);
	ebs_msr_cpu_start(&hw, &s.run, &s.c);
	count(&s, 123456, 0);
	base.value = ebs_msr_cpu_read(&hw, &s.run.pmu, &wraps);
	base.time_enabled = base.time_running = 5000;
	count(&s, 1000, 0); /* after RESET */
	now.value = ebs_msr_cpu_read(&hw, &s.run.pmu, &wraps);
	now.time_enabled = now.time_running = 7000;
	ebs_check_count_since(&now, &base);
	TEST_CHECK("reset: READ after RESET counts from 0 (1000 events, 2000 ns)",
		   now.value == 1000 && now.time_enabled == 2000 && now.time_running == 2000);
	now = base;
	now.value -= 5; /* a version 1 counter that wrapped unseen */
	ebs_check_count_since(&now, &base);
	TEST_CHECK("reset: a count below its base reads 0", now.value == 0 && !now.time_enabled);
	free(s.mem);
}

/* ---- ebs_check.c ---------------------------------------------------------- */

/* The state machine of ebs_kmod.h, as docs/kmod.md section 4.2 tables it. */
static void test_check_state(void)
{
	static const struct {
		unsigned int cmd;
		const char *name;
		int want[4]; /* OPEN, CONFIGURED, RUNNING, STOPPED */
	} table[] = {
		{EBS_IOC_VERSION, "VERSION", {0, 0, 0, 0}},
		{EBS_IOC_CONFIG, "CONFIG", {0, -EINVAL, -EBUSY, -EINVAL}},
		{EBS_IOC_START, "START", {-EINVAL, 0, -EBUSY, 0}},
		{EBS_IOC_STOP, "STOP", {-EINVAL, -EINVAL, 0, -EINVAL}},
		{EBS_IOC_STATS, "STATS", {-EINVAL, 0, 0, 0}},
		{EBS_IOC_RESET, "RESET", {-EINVAL, 0, -EBUSY, 0}},
		{EBS_IOC_TAIL, "TAIL", {-EINVAL, 0, 0, 0}},
		{EBS_IOC_READ, "READ", {-EINVAL, 0, 0, 0}},
	};
	static const enum ebs_state states[] = {EBS_OPEN, EBS_CONFIGURED, EBS_RUNNING, EBS_STOPPED};
	unsigned int i, j, bad = 0;
	char name[96];

	for (i = 0; i < ARRAY_SIZE(table); i++)
		for (j = 0; j < 4; j++) {
			int got = ebs_check_state(table[i].cmd, states[j]);

			if (got != table[i].want[j]) {
				snprintf(name, sizeof(name), "check: %s in state %u", table[i].name,
					 j);
				TEST_EQ(name, got, table[i].want[j]);
				bad++;
			}
		}
	TEST_CHECK("check: the state machine, 8 requests x 4 states", bad == 0);
	TEST_EQ("check: an unknown number is -ENOTTY", ebs_check_state(_IO(EBS_IOC_MAGIC, 0x7f), 0),
		-ENOTTY);
	TEST_EQ("check: CONFIG's number with another size is -ENOTTY",
		ebs_check_state(_IOW(EBS_IOC_MAGIC, 0x01, __u32), EBS_OPEN), -ENOTTY);
	TEST_EQ("check: STATS's number as _IOW is -ENOTTY",
		ebs_check_state(_IOW(EBS_IOC_MAGIC, 0x04, struct ebs_stats), EBS_CONFIGURED),
		-ENOTTY);
	TEST_EQ("check: another driver's request is -ENOTTY", ebs_check_state(_IO('T', 1), 0),
		-ENOTTY);
	TEST_EQ("check: a state that does not exist is -EINVAL",
		ebs_check_state(EBS_IOC_VERSION, (enum ebs_state)7), -EINVAL);
}

static struct ebs_config good_config(void)
{
	struct ebs_config c = {
		.mode = EBS_MODE_PERF_KERNEL,
		.event_kind = EBS_EVENT_GENERIC,
		.event_id = EBS_GEN_CPU_CLOCK,
		.sample_after = 1000000,
		.flags = EBS_CFG_USER | EBS_CFG_KERNEL,
		.pid = 42,
		.ring_pages = 128,
	};

	return c;
}

/* CONFIG with good_config() spoilt by stmt (on c) is -EINVAL. */
#define BAD_CONFIG(what, stmt)                                                                     \
	do {                                                                                       \
		c = good_config();                                                                 \
		stmt;                                                                              \
		TEST_EQ("check: CONFIG with " what " is -EINVAL", ebs_check_config(&c), -EINVAL);  \
	} while (0)

static void test_check_config(void)
{
	struct ebs_config c = good_config();
	union ebs_ioctl_arg a;

	TEST_EQ("check: a good CONFIG", ebs_check_config(&c), 0);
	BAD_CONFIG("mode 2", c.mode = 2);
	/* limits: msr mode's throttle only, a percent up to 100 */
	BAD_CONFIG("limits in perf-kernel mode", c.limits = EBS_LIMITS(50000, 10));
	BAD_CONFIG("msr mode, limits of 101%", c.mode = EBS_MODE_MSR;
		   c.limits = EBS_LIMITS(0, 101));
	BAD_CONFIG("msr mode, limits with bits 24-31 all set", c.mode = EBS_MODE_MSR;
		   c.limits = 0xff000000u);
	BAD_CONFIG("msr mode counting, with limits", c.mode = EBS_MODE_MSR;
		   c.flags |= EBS_CFG_COUNT | EBS_CFG_ALL_CPUS; c.sample_after = 0;
		   c.ring_pages = 0; c.limits = EBS_LIMITS(1000, 0));
	BAD_CONFIG("an unknown flag", c.flags |= 1u << 6);
	BAD_CONFIG("neither user nor kernel", c.flags = 0);
	BAD_CONFIG("ALL_CPUS and ON_EXEC", c.flags |= EBS_CFG_ALL_CPUS | EBS_CFG_ON_EXEC);
	BAD_CONFIG("event kind 2", c.event_kind = 2);
	BAD_CONFIG("generic event 13", c.event_id = EBS_GEN_MAX);
	/* counting: no interrupt, so no N and no rings; msr mode all CPUs only */
	BAD_CONFIG("COUNT and a sample_after", c.flags |= EBS_CFG_COUNT; c.ring_pages = 0);
	BAD_CONFIG("COUNT and ring pages", c.flags |= EBS_CFG_COUNT; c.sample_after = 0);
	BAD_CONFIG("COUNT in msr mode for a pid", c.flags |= EBS_CFG_COUNT; c.sample_after = 0;
		   c.ring_pages = 0; c.mode = EBS_MODE_MSR);
	BAD_CONFIG("a raw event setting OS", c.event_kind = EBS_EVENT_RAW;
		   c.event_id = EBS_EVTSEL_OS | 0x3c);
	BAD_CONFIG("a raw event setting EN", c.event_kind = EBS_EVENT_RAW;
		   c.event_id = EBS_EVTSEL_EN | 0x3c);
	BAD_CONFIG("a raw event setting bit 32", c.event_kind = EBS_EVENT_RAW;
		   c.event_id = 1ull << 32 | 0x3c);
	BAD_CONFIG("sample_after 999", c.sample_after = 999);
	BAD_CONFIG("sample_after 2^63", c.sample_after = 1ull << 63);
	BAD_CONFIG("sample_after 2^64 - 1", c.sample_after = ~0ull);
	BAD_CONFIG("0 ring pages", c.ring_pages = 0);
	BAD_CONFIG("3 ring pages", c.ring_pages = 3);
	BAD_CONFIG("8192 ring pages", c.ring_pages = 8192);
	BAD_CONFIG("2^31 ring pages", c.ring_pages = 1u << 31);
	BAD_CONFIG("pid 0", c.pid = 0);
	BAD_CONFIG("pid -1", c.pid = -1);
	c = good_config();
	c.event_kind = EBS_EVENT_RAW;
	c.event_id = EBS_EVTSEL_EVENT(0xc2) | EBS_EVTSEL_UMASK(1) | EBS_EVTSEL_EDGE |
		     EBS_EVTSEL_INV | EBS_EVTSEL_CMASK(0xff);
	TEST_EQ("check: a raw event of every allowed field", ebs_check_config(&c), 0);
	c = good_config();
	c.sample_after = (1ull << 63) - 1;
	c.ring_pages = EBS_RING_MAX_PAGES;
	c.flags = EBS_CFG_KERNEL | EBS_CFG_ALL_CPUS;
	c.pid = 0;
	TEST_EQ("check: the largest N and ring, kernel only, all CPUs (pid unused)",
		ebs_check_config(&c), 0);
	c = good_config();
	c.ring_pages = 1;
	c.sample_after = EBS_SAMPLE_AFTER_MIN;
	c.flags = EBS_CFG_USER | EBS_CFG_ON_EXEC;
	TEST_EQ("check: the smallest N and ring, user only, on exec", ebs_check_config(&c), 0);
	c = good_config();
	c.event_id = EBS_GEN_PAGE_FAULTS;
	c.flags |= EBS_CFG_COUNT | EBS_CFG_ON_EXEC;
	c.sample_after = 0;
	c.ring_pages = 0;
	TEST_EQ("check: counting page faults of a pid from its exec (N 0, no rings)",
		ebs_check_config(&c), 0);
	c.mode = EBS_MODE_MSR;
	c.flags = EBS_CFG_USER | EBS_CFG_COUNT | EBS_CFG_ALL_CPUS;
	c.event_id = EBS_GEN_CYCLES;
	TEST_EQ("check: counting in msr mode on all CPUs", ebs_check_config(&c), 0);
	c = good_config();
	c.mode = EBS_MODE_MSR;
	c.limits = EBS_LIMITS(EBS_LIMITS_RATE_MAX, 100);
	TEST_EQ("check: msr mode with the largest limits (rate 2^24 - 1, 100%)",
		ebs_check_config(&c), 0);
	c.limits = EBS_LIMITS(50000, 0);
	TEST_EQ("check: msr mode with a rate given, no percent", ebs_check_config(&c), 0);
	c.limits = EBS_LIMITS(0, 1);
	TEST_EQ("check: msr mode with 1% given, no rate", ebs_check_config(&c), 0);

	/* the whole ioctl: state first, then the argument */
	memset(&a, 0, sizeof(a));
	a.cfg = good_config();
	TEST_EQ("check: ioctl CONFIG in OPEN", ebs_check_ioctl(EBS_IOC_CONFIG, EBS_OPEN, 0, &a), 0);
	a.cfg.limits = EBS_LIMITS(0, 101);
	TEST_EQ("check: ioctl CONFIG while RUNNING is -EBUSY before its argument",
		ebs_check_ioctl(EBS_IOC_CONFIG, EBS_RUNNING, 2, &a), -EBUSY);
	memset(&a, 0, sizeof(a));
	TEST_EQ("check: ioctl STATS (entry_size 0: version 1's entries)",
		ebs_check_ioctl(EBS_IOC_STATS, EBS_STOPPED, 2, &a), 0);
	a.stats.entry_size = 1;
	TEST_EQ("check: ioctl STATS with entry_size 1 (once reserved, must be 0)",
		ebs_check_ioctl(EBS_IOC_STATS, EBS_STOPPED, 2, &a), -EINVAL);
	a.stats.entry_size = sizeof(struct ebs_cpu_stats3);
	TEST_EQ("check: ioctl STATS with entry_size 40 (struct ebs_cpu_stats3, version 3)",
		ebs_check_ioctl(EBS_IOC_STATS, EBS_STOPPED, 2, &a), 0);
	a.stats.entry_size = sizeof(struct ebs_cpu_stats);
	TEST_EQ("check: ioctl STATS with entry_size 32 (struct ebs_cpu_stats)",
		ebs_check_ioctl(EBS_IOC_STATS, EBS_STOPPED, 2, &a), 0);
	a.stats.entry_size = 48;
	TEST_EQ("check: ioctl STATS with entry_size 48 (a later version's)",
		ebs_check_ioctl(EBS_IOC_STATS, EBS_STOPPED, 2, &a), -EINVAL);
	TEST_CHECK("check: the entries' sizes: 32 bytes frozen, 40 with throttled",
		   sizeof(struct ebs_cpu_stats) == 32 && sizeof(struct ebs_cpu_stats3) == 40);
	memset(&a, 0, sizeof(a));
	a.tail.cpu = 1;
	a.tail.tail = 1ull << 60; /* the ring checks the position */
	TEST_EQ("check: ioctl TAIL of the last ring",
		ebs_check_ioctl(EBS_IOC_TAIL, EBS_RUNNING, 2, &a), 0);
	a.tail.cpu = 2;
	TEST_EQ("check: ioctl TAIL of a ring beyond the last",
		ebs_check_ioctl(EBS_IOC_TAIL, EBS_RUNNING, 2, &a), -EINVAL);
	a.tail.cpu = 0;
	a.tail.reserved = 1;
	TEST_EQ("check: ioctl TAIL with reserved set",
		ebs_check_ioctl(EBS_IOC_TAIL, EBS_RUNNING, 2, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	TEST_EQ("check: ioctl READ of the sum only (no array), no rings",
		ebs_check_ioctl(EBS_IOC_READ, EBS_RUNNING, 0, &a), 0);
	a.read.nr_cpus = 4;
	TEST_EQ("check: ioctl READ of 4 CPUs into NULL",
		ebs_check_ioctl(EBS_IOC_READ, EBS_STOPPED, 0, &a), -EINVAL);
	a.read.cpu_ptr = 0x1000; /* copy_to_user checks the pointer */
	TEST_EQ("check: ioctl READ of 4 CPUs", ebs_check_ioctl(EBS_IOC_READ, EBS_STOPPED, 0, &a),
		0);
	a.read.reserved = 1;
	TEST_EQ("check: ioctl READ with reserved set",
		ebs_check_ioctl(EBS_IOC_READ, EBS_CONFIGURED, 0, &a), -EINVAL);
	TEST_EQ("check: ioctl START needs no argument",
		ebs_check_ioctl(EBS_IOC_START, EBS_CONFIGURED, 2, NULL), 0);
}

static void test_check_mmap(void)
{
	const unsigned long ps = 4096;
	unsigned int cpu = 99;

	TEST_CHECK("check: mmap of ring 1 (4 data pages)",
		   ebs_check_mmap(5, 5 * ps, false, EBS_RUNNING, 4, 2, ps, &cpu) == 0 && cpu == 1);
	TEST_EQ("check: a writable mmap is -EPERM",
		ebs_check_mmap(0, 5 * ps, true, EBS_RUNNING, 4, 2, ps, &cpu), -EPERM);
	TEST_EQ("check: mmap before CONFIG",
		ebs_check_mmap(0, 5 * ps, false, EBS_OPEN, 4, 2, ps, &cpu), -EINVAL);
	TEST_EQ("check: mmap of the ring after the last",
		ebs_check_mmap(10, 5 * ps, false, EBS_STOPPED, 4, 2, ps, &cpu), -EINVAL);
	TEST_EQ("check: mmap inside a ring",
		ebs_check_mmap(1, 5 * ps, false, EBS_CONFIGURED, 4, 2, ps, &cpu), -EINVAL);
	TEST_EQ("check: mmap one page short",
		ebs_check_mmap(0, 4 * ps, false, EBS_CONFIGURED, 4, 2, ps, &cpu), -EINVAL);
	TEST_EQ("check: mmap one page long",
		ebs_check_mmap(0, 6 * ps, false, EBS_CONFIGURED, 4, 2, ps, &cpu), -EINVAL);
	TEST_EQ("check: mmap of two rings at once",
		ebs_check_mmap(0, 10 * ps, false, EBS_CONFIGURED, 4, 2, ps, &cpu), -EINVAL);
	TEST_EQ("check: mmap at the largest offset",
		ebs_check_mmap(~0ul, 5 * ps, false, EBS_CONFIGURED, 4, 2, ps, &cpu), -EINVAL);
}

/* perf_mmap()'s arithmetic (kernel/events/core.c), page counts throughout. */
static void test_check_charge(void)
{
	__u64 u = 0, p = 0;

	/* 2 CPUs at the default 516 KB: 258 pages for the user */
	TEST_CHECK("charge: 258 pages within the user's 258: all to locked_vm",
		   ebs_check_charge(258, 0, 258, 0, 0, false, &u, &p) == 0 && u == 258 && p == 0);
	TEST_CHECK("charge: 260 pages: 2 beyond go to pinned_vm, within RLIMIT_MEMLOCK",
		   ebs_check_charge(260, 0, 258, 0, 2, false, &u, &p) == 0 && u == 258 && p == 2);
	TEST_EQ("charge: 261 pages: 3 beyond RLIMIT_MEMLOCK's 2 is -EPERM",
		ebs_check_charge(261, 0, 258, 0, 2, false, &u, &p), -EPERM);
	TEST_CHECK("charge: ... unless CAP_IPC_LOCK (charged all the same)",
		   ebs_check_charge(261, 0, 258, 0, 2, true, &u, &p) == 0 && u == 258 && p == 3);
	TEST_CHECK("charge: what the user holds already (perf's rings) counts",
		   ebs_check_charge(10, 250, 258, 0, 2, false, &u, &p) == 0 && u == 8 && p == 2);
	TEST_EQ("charge: what the process pinned already counts",
		ebs_check_charge(10, 250, 258, 1, 2, false, &u, &p), -EPERM);
	TEST_CHECK("charge: a user above a lowered limit is taken to be at it",
		   ebs_check_charge(4, 1000, 258, 0, 8, false, &u, &p) == 0 && u == 0 && p == 4);
	TEST_EQ("charge: a limit of 0 and RLIMIT_MEMLOCK 0 refuse a page",
		ebs_check_charge(1, 0, 0, 0, 0, false, &u, &p), -EPERM);
	TEST_CHECK("charge: RLIMIT_MEMLOCK unlimited (no overflow)",
		   ebs_check_charge(1ull << 40, 0, 258, 1ull << 50, ~0ull >> 12, false, &u, &p) ==
				   0 &&
			   u == 258 && p == (1ull << 40) - 258);
	TEST_EQ("charge: pinned near 2^64 does not wrap past the limit",
		ebs_check_charge(300, 0, 258, ~0ull - 10, 100, false, &u, &p), -EPERM);
}

/* Who needs perfmon_capable() at CONFIG: all CPUs, and msr mode whatever the target. */
static void test_check_perfmon(void)
{
	struct ebs_config c = good_config();

	TEST_CHECK("perfmon: perf-kernel mode for a pid: the ptrace rule only",
		   !ebs_check_perfmon(&c));
	c.flags |= EBS_CFG_ALL_CPUS;
	TEST_CHECK("perfmon: all CPUs needs it", ebs_check_perfmon(&c));
	c = good_config();
	c.mode = EBS_MODE_MSR;
	TEST_CHECK("perfmon: msr mode for a pid needs it (counter 0 counts every task)",
		   ebs_check_perfmon(&c));
	c.flags = EBS_CFG_USER;
	TEST_CHECK("perfmon: ... user mode only too", ebs_check_perfmon(&c));
}

static void test_check_sample(void)
{
	TEST_CHECK("sample: user mode, user-only session: kept",
		   ebs_check_sample(EBS_CFG_USER, true));
	TEST_CHECK("sample: kernel mode, user-only session (skid): not kept",
		   !ebs_check_sample(EBS_CFG_USER, false));
	TEST_CHECK("sample: kernel mode, session allowed the kernel: kept",
		   ebs_check_sample(EBS_CFG_USER | EBS_CFG_KERNEL, false));
}

/*
 * The module's generic events by name, restated independently of
 * include/ebs/ebs_events.h: their numbers (ebs_abi.h's EBS_GEN_*, which an
 * ebs.ko built earlier reads alike) and, for the architectural ones, the
 * event select and unit mask of Intel SDM Vol. 3B 18.2.1.2, table 18-1.
 */
static const struct {
	const char *name;
	__u32 gen;
	bool arch;
	__u8 evtsel, umask;
} abi_events[] = {
	{"cycles", EBS_GEN_CYCLES, true, 0x3c, 0x00},
	{"instructions", EBS_GEN_INSTRUCTIONS, true, 0xc0, 0x00},
	{"branches", EBS_GEN_BRANCHES, true, 0xc4, 0x00},
	{"branch-misses", EBS_GEN_BRANCH_MISSES, true, 0xc5, 0x00},
	{"cache-references", EBS_GEN_CACHE_REFS, true, 0x2e, 0x4f},
	{"cache-misses", EBS_GEN_CACHE_MISSES, true, 0x2e, 0x41},
	{"cpu-clock", EBS_GEN_CPU_CLOCK, false, 0, 0},
	{"task-clock", EBS_GEN_TASK_CLOCK, false, 0, 0},
	{"page-faults", EBS_GEN_PAGE_FAULTS, false, 0, 0}, /* from ABI version 2 on */
	{"context-switches", EBS_GEN_CONTEXT_SWITCHES, false, 0, 0},
	{"cpu-migrations", EBS_GEN_CPU_MIGRATIONS, false, 0, 0},
	{"minor-faults", EBS_GEN_MINOR_FAULTS, false, 0, 0},
	{"major-faults", EBS_GEN_MAJOR_FAULTS, false, 0, 0},
};

/*
 * Named event text as user space sends it to ebs.ko (parsed by
 * sampler/events.c, encoded for CONFIG by sampler/kmod.c) and as the
 * module takes it: the number abi_events[] gives it (none for an event
 * not listed there); the module's checks accept it; its perf-kernel mode
 * opens the perf type and config that the perf backend opens for the name;
 * its msr mode programs the SDM's event select and unit mask for an
 * architectural event and refuses a software one.  One PASS or FAIL line.
 */
static void check_kmod_event(const char *text, const struct ebs_msr_pmu *pmu)
{
	struct ebs_config cfg = good_config();
	const struct ebs_event *row;
	struct ebs_error e = {0};
	struct event_spec ev;
	char name[160];
	unsigned int i;
	__u64 id = 0, sel;
	__u32 kind = 0;
	int err, r;

	snprintf(name, sizeof(name), "event table: %s: user space and ebs.ko agree", text);
	for (i = 0; i < ARRAY_SIZE(abi_events) && strcmp(abi_events[i].name, text); i++)
		;
	if (event_spec__parse(text, &ev, &e)) {
		TEST_FAIL(name, "does not parse: %s", e.msg);
		return;
	}
	r = event_spec__kmod_encode(&ev, &kind, &id);
	if (i == ARRAY_SIZE(abi_events)) {
		/* not one of the module's generic events: sent raw, or not at all */
		if (ev.type == PERF_TYPE_RAW ? r || kind != EBS_EVENT_RAW || id != ev.config : !r) {
			TEST_FAIL(name, "sent as kind %u id %#llx (%d), want %s", kind,
				  (unsigned long long)id, r,
				  ev.type == PERF_TYPE_RAW ? "raw, as it is" : "not sent");
			return;
		}
		if (r) {
			TEST_OK(name);
			return;
		}
	} else if (r || kind != EBS_EVENT_GENERIC || id != abi_events[i].gen) {
		TEST_FAIL(name, "sent as kind %u id %llu (%d), want generic event %u", kind,
			  (unsigned long long)id, r, abi_events[i].gen);
		return;
	}
	cfg.event_kind = kind;
	cfg.event_id = id;
	if (ebs_check_config(&cfg)) {
		TEST_FAIL(name, "the module refuses kind %u id %#llx", kind,
			  (unsigned long long)id);
		return;
	}
	row = ebs_event_generic(id);
	if (kind == EBS_EVENT_GENERIC &&
	    (!row || row->type != ev.type || row->config != ev.config)) {
		TEST_FAIL(name, "perf-kernel mode opens %s, not type %u config %#llx",
			  row ? row->name : "nothing", ev.type, (unsigned long long)ev.config);
		return;
	}
	cfg.mode = EBS_MODE_MSR;
	sel = ebs_msr_evtsel(pmu, &cfg, &err);
	if (kind == EBS_EVENT_RAW) {
		if (err || (sel & EBS_EVTSEL_RAW) != id)
			TEST_FAIL(name, "msr mode: %d, raw fields %#llx, want %#llx", err,
				  (unsigned long long)(sel & EBS_EVTSEL_RAW),
				  (unsigned long long)id);
		else
			TEST_OK(name);
	} else if (abi_events[i].arch) {
		__u64 want = EBS_EVTSEL_EVENT(abi_events[i].evtsel) |
			     EBS_EVTSEL_UMASK(abi_events[i].umask);

		if (err || (sel & EBS_EVTSEL_RAW) != want)
			TEST_FAIL(name, "msr mode: %d, event and unit mask %#llx, want %#llx", err,
				  (unsigned long long)(sel & EBS_EVTSEL_RAW),
				  (unsigned long long)want);
		else
			TEST_OK(name);
	} else if (err != -EINVAL) {
		TEST_FAIL(name, "msr mode: %d for a software event, want -EINVAL", err);
	} else {
		TEST_OK(name);
	}
}

static void test_event_table(void)
{
	const struct ebs_event *n;
	struct ebs_msr_pmu pmu;
	unsigned int gen, rows;
	char name[96];

	fake_reset(2, 48); /* every architectural event present */
	ebs_msr_probe(&hw, &pmu);
	for (n = ebs_events; n->name; n++)
		check_kmod_event(n->name, &pmu);
	check_kmod_event("r01c2:cmask=1:inv:edge:u", &pmu);
	/* every generic event the module's checks accept is one row's */
	for (gen = 0; gen < EBS_GEN_MAX; gen++) {
		for (rows = 0, n = ebs_events; n->name; n++)
			rows += n->gen == gen;
		snprintf(name, sizeof(name), "event table: generic event %u has one row", gen);
		TEST_EQ(name, rows, 1);
	}
}

/*
 * ebs record --backend=kmod's translation of ring records (sampler/kmod.c
 * kmod_record()): a sample as a SAMPLE of the period, a THROTTLE and an
 * UNTHROTTLE as the THROTTLE records the perf backend writes for perf's,
 * which the file's trailer counts (report's "throttled: N"); PAD skipped.
 */
static void test_user_records(void)
{
	struct ebs_krecord k = {.ip = 0x401000,
				.time_ns = 777,
				.pid = 5,
				.tid = 6,
				.cpu = 3,
				.flags = EBS_KREC_USER};
	struct ebs_rec_throttle thr;
	struct ebs_rec_sample smp;
	const struct ebs_rec *r;

	r = kmod_record(&k, 10000, &smp, &thr);
	TEST_CHECK("user side: a ring's sample is a SAMPLE of period N",
		   r == &smp.hdr && smp.hdr.type == EBS_REC_SAMPLE && smp.ip == 0x401000 &&
			   smp.period == 10000 && smp.cpu == 3 && smp.tid == 6 && smp.time == 777);
	k.flags = EBS_KREC_THROTTLE;
	k.ip = k.pid = k.tid = 0;
	r = kmod_record(&k, 10000, &smp, &thr);
	TEST_CHECK("user side: EBS_KREC_THROTTLE is a THROTTLE record of event 0, its time and CPU",
		   r == &thr.hdr && thr.hdr.type == EBS_REC_THROTTLE && thr.hdr.misc == 0 &&
			   thr.hdr.size == sizeof(thr) && thr.time == 777 && thr.cpu == 3 &&
			   thr.event == 0);
	k.flags = EBS_KREC_UNTHROTTLE;
	r = kmod_record(&k, 10000, &smp, &thr);
	TEST_CHECK("user side: EBS_KREC_UNTHROTTLE is a THROTTLE with EBS_THROTTLE_END",
		   r == &thr.hdr && thr.hdr.type == EBS_REC_THROTTLE &&
			   thr.hdr.misc == EBS_THROTTLE_END);
	k.flags = EBS_KREC_PAD;
	TEST_CHECK("user side: a PAD record is skipped", !kmod_record(&k, 1, &smp, &thr));
}

/* Write text to dir/name (or remove it, text NULL); 0 or -1. */
static int put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!text)
		return unlink(path) && errno != ENOENT ? -1 : 0;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f) ? -1 : 0;
}

/*
 * msr mode's limits as ebs record passes them in CONFIG (sampler/kmod.c
 * kmod_limits()): /proc/sys/kernel's two files, here a directory of the
 * test's, into EBS_LIMITS(); a file that is missing, unreadable as a
 * number or below 1 is not given; a rate above 2^24 - 1 is that.
 */
static void test_user_limits(void)
{
	static const struct {
		const char *rate, *percent;
		__u32 want;
		const char *what;
	} cases[] = {
		{"50000\n", "10\n", EBS_LIMITS(50000, 10), "50000 and 10%"},
		{"100000\n", "25\n", EBS_LIMITS(100000, 25), "perf's defaults"},
		{"2147483647\n", "100\n", EBS_LIMITS(EBS_LIMITS_RATE_MAX, 100),
		 "the largest rate, as 2^24 - 1; 100%"},
		{"12345\n", "0\n", EBS_LIMITS(12345, 0), "a percent of 0 (no limit): not given"},
		{NULL, "7\n", EBS_LIMITS(0, 7), "no rate file: the rate not given"},
		{"x\n", "-3\n", 0, "garbage and a negative percent: neither given"},
		{NULL, NULL, 0, "neither file: nothing given"},
	};
	char dir[] = "/tmp/ebs-test-kmod.XXXXXX", name[160];
	unsigned int i;
	__u32 got;

	if (!mkdtemp(dir)) {
		TEST_FAIL("user side: limits", "mkdtemp: %s", strerror(errno));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (put_file(dir, "perf_event_max_sample_rate", cases[i].rate) ||
		    put_file(dir, "perf_cpu_time_max_percent", cases[i].percent)) {
			TEST_FAIL("user side: limits", "cannot write into %s", dir);
			break;
		}
		got = kmod_limits(dir);
		snprintf(name, sizeof(name),
			 "user side: CONFIG's limits from the sysctls: %s (%#x)", cases[i].what,
			 got);
		TEST_EQ(name, got, cases[i].want);
	}
	put_file(dir, "perf_event_max_sample_rate", NULL);
	put_file(dir, "perf_cpu_time_max_percent", NULL);
	rmdir(dir);
}

static void test_overflow_run_1(void)
{
	overflow_run(1);
}

static void test_overflow_run_2(void)
{
	overflow_run(2);
}

static void test_stop_race_1(void)
{
	stop_race(1);
}

static void test_stop_race_2(void)
{
	stop_race(2);
}

static void test_counting_run_1(void)
{
	counting_run(1);
}

static void test_counting_run_2(void)
{
	counting_run(2);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_check_state), TEST_CASE(test_check_config),
	  TEST_CASE(test_check_mmap), TEST_CASE(test_check_charge), TEST_CASE(test_check_sample),
	  TEST_CASE(test_check_perfmon), TEST_CASE(test_event_table), TEST_CASE(test_probe),
	  TEST_CASE(test_evtsel), TEST_CASE(test_preload), TEST_CASE(test_overflow_run_1),
	  TEST_CASE(test_overflow_run_2), TEST_CASE(test_throttle), TEST_CASE(test_limits),
	  TEST_CASE(test_stop_race_1), TEST_CASE(test_stop_race_2), TEST_CASE(test_perf_first),
	  TEST_CASE(test_reset_counts), TEST_CASE(test_user_records), TEST_CASE(test_user_limits),
	  TEST_CASE(test_counting_run_1), TEST_CASE(test_counting_run_2), TEST_CASE(test_dropped),
	  TEST_CASE(test_tail))
