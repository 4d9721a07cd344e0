// SPDX-License-Identifier: GPL-2.0
/*
 * test-kmod.c - the kernel module's portable parts, compiled unchanged from
 * kmod/ (ebs_msr.c: the msr mode's logic; ebs_ring.c: the per-CPU ring),
 * against a simulated PMU: CPUID leaf 0xA, counter 0 with its event
 * select, the version 2 global status/control/overflow registers, 32-bit
 * sign-extended counter writes, and a local APIC LVTPC that masks itself
 * when it delivers the NMI.  Events are "counted" in steps; an overflow
 * with INT set and LVTPC unmasked calls the NMI path the module's handler
 * takes.
 *
 * Checked: the preload value and the counter width, overflow detection
 * (version 1 by the counter's top bit, version 2 by the status register),
 * reload, the record written, spurious NMIs, dropped-on-full, and teardown.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "ebs_msr.h"
#include "ebs_ring.h"
#include "test.h"

struct fake_pmu {
	__u32 version, counters, width, ebx;
	__u64 ctr, evtsel, status, ctrl;
	bool lvtpc_nmi, lvtpc_masked;
	unsigned int nmis, ctr_writes;
};

static struct fake_pmu F;

static __u64 fmask(void)
{
	return F.width == 64 ? ~0ull : (1ull << F.width) - 1;
}

static void f_cpuid(__u32 leaf, __u32 *a, __u32 *b, __u32 *c, __u32 *d)
{
	*a = *b = *c = *d = 0;
	if (leaf == 0)
		*a = 0xd;
	else if (leaf == 0xa)
		*a = F.version | F.counters << 8 | F.width << 16 | 7u << 24, *b = F.ebx;
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
}

static void f_lvtpc_nmi(void)
{
	F.lvtpc_nmi = true;
	F.lvtpc_masked = false;
}

static const struct ebs_hw_ops hw = {f_cpuid, f_rdmsr, f_wrmsr, f_lvtpc_nmi};

/* The module's handler, minus pt_regs: ours -> a record in the ring. */
struct sim {
	struct ebs_msr_pmu pmu;
	__u64 evtsel, n;
	struct ebs_ring ring;
	void *mem;
	unsigned int handled, spurious, wakes;
	__u64 next_ip;
};

static void nmi(struct sim *s)
{
	struct ebs_krecord rec = {.ip = s->next_ip, .pid = 42, .tid = 43};

	F.nmis++;
	if (!ebs_msr_nmi(&hw, &s->pmu, s->evtsel, s->n)) {
		s->spurious++;
		return;
	}
	s->handled++;
	if (ebs_ring_write(&s->ring, &rec) > 0)
		s->wakes++;
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
	if (F.ctr < before) {	/* wrapped: overflow */
		if (F.version >= 2)
			F.status |= 1;
		if ((F.evtsel & EBS_EVTSEL_INT) && F.lvtpc_nmi && !F.lvtpc_masked) {
			F.lvtpc_masked = true;	/* the APIC masks LVTPC on delivery */
			s->next_ip = ip;
			nmi(s);
		}
	}
}

static void sim_init(struct sim *s, __u32 ring_pages, __u64 n)
{
	struct ebs_config cfg = {.event_kind = EBS_EVENT_GENERIC, .event_id = EBS_GEN_CYCLES,
				 .sample_after = n, .flags = EBS_CFG_USER | EBS_CFG_KERNEL};
	int err;

	memset(s, 0, sizeof(*s));
	s->mem = calloc(1 + ring_pages, 4096);
	ebs_ring_init(&s->ring, s->mem, ring_pages, 0, 4096);
	ebs_msr_probe(&hw, &s->pmu);
	s->n = n;
	s->evtsel = ebs_msr_evtsel(&s->pmu, &cfg, &err);
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
	TEST_CHECK("msr: counter mask from the width", pmu.mask == 0xffffffffffffull &&
						       pmu.counters == 4 && pmu.version == 2);
}

static void test_evtsel(void)
{
	struct ebs_config cfg = {.event_kind = EBS_EVENT_GENERIC, .event_id = EBS_GEN_CYCLES,
				 .sample_after = 100000, .flags = EBS_CFG_USER | EBS_CFG_KERNEL};
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
	TEST_CHECK("msr: :u sets USR only", !err && (sel & EBS_EVTSEL_USR) && !(sel & EBS_EVTSEL_OS));
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
	F.ebx = 1u << 6;	/* branch mispredicts not available */
	ebs_msr_probe(&hw, &pmu);
	cfg.event_id = EBS_GEN_BRANCH_MISSES;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: an architectural event CPUID says is absent", err, -EOPNOTSUPP);
	cfg.event_id = EBS_GEN_CYCLES;
	cfg.sample_after = 1ull << 31;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: N beyond a 32-bit signed preload", err, -ERANGE);
	cfg.sample_after = 999;
	ebs_msr_evtsel(&pmu, &cfg, &err);
	TEST_EQ("msr: N below EBS_SAMPLE_AFTER_MIN", err, -ERANGE);
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
	sim_init(&s, 4, 1000);
	ebs_msr_cpu_start(&hw, &s.pmu, s.evtsel, s.n);
	snprintf(name, sizeof(name), "msr v%u: start arms LVTPC as NMI and enables counter 0",
		 version);
	TEST_CHECK(name, F.lvtpc_nmi && !F.lvtpc_masked && (F.evtsel & EBS_EVTSEL_EN) &&
				 F.ctr == (1ull << 48) - 1000 && (version < 2 || (F.ctrl & 1)));
	for (i = 0; total + 7 <= 10500; i++) {
		count(&s, 7, 0x400000 + i);
		total += 7;
	}
	/* 10500 events, N = 1000: 10 overflows, each reloaded with -N */
	snprintf(name, sizeof(name), "msr v%u: 10 samples for 10500 events at N = 1000 (got %u)",
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
		/* the 143rd step of 7 events (events 995..1001) made the first overflow */
		TEST_CHECK(name, r[0].ip == 0x400000 + 142 && r[0].pid == 42 && r[0].tid == 43);
	}
	/* an NMI that is someone else's */
	nmi(&s);
	snprintf(name, sizeof(name), "msr v%u: an NMI without overflow is not ours", version);
	TEST_CHECK(name, s.spurious == 1 && s.handled == 10);
	ebs_msr_cpu_stop(&hw, &s.pmu);
	count(&s, 5000, 0);
	snprintf(name, sizeof(name), "msr v%u: stop clears counter 0; nothing counts after",
		 version);
	TEST_CHECK(name, F.evtsel == 0 && F.ctr == 0 && s.handled == 10 &&
				 (version < 2 || !(F.ctrl & 1)));
	free(s.mem);
}

static void test_dropped(void)
{
	struct sim s;
	int i;

	fake_reset(2, 48);
	sim_init(&s, 1, 1000);	/* one data page: 128 records */
	ebs_msr_cpu_start(&hw, &s.pmu, s.evtsel, s.n);
	for (i = 0; i < 200; i++)
		count(&s, 1000, 0x1000 + i);
	TEST_CHECK("ring: 200 overflows, one page: 128 kept, 72 dropped",
		   s.handled == 200 && s.ring.samples == 128 && s.ring.dropped == 72 &&
			   s.ring.hdr->dropped == 72);
	TEST_CHECK("ring: the kept ones are the first 128, none overwritten",
		   ((const struct ebs_krecord *)s.ring.data)[127].ip == 0x1000 + 127 &&
			   ((const struct ebs_krecord *)s.ring.data)[0].ip == 0x1000);
	TEST_EQ("ring: woken once, crossing the watermark", s.wakes, 1);
	TEST_EQ("ring: giving it all back", ebs_ring_set_tail(&s.ring, s.ring.hdr->head), 0);
	count(&s, 1000, 0x9999);
	TEST_CHECK("ring: written again after the tail moved",
		   s.ring.samples == 129 &&
			   ((const struct ebs_krecord *)s.ring.data)[0].ip == 0x9999);
	free(s.mem);
}

static void test_tail(void)
{
	struct sim s;

	fake_reset(2, 48);
	sim_init(&s, 1, 1000);
	ebs_msr_cpu_start(&hw, &s.pmu, s.evtsel, s.n);
	count(&s, 1000, 1);	/* three samples: 96 bytes */
	count(&s, 1000, 2);
	count(&s, 1000, 3);
	TEST_EQ("ring: tail beyond head", ebs_ring_set_tail(&s.ring, 4 * 32), -EINVAL);
	TEST_EQ("ring: tail inside a record", ebs_ring_set_tail(&s.ring, 16), -EINVAL);
	TEST_EQ("ring: tail forward", ebs_ring_set_tail(&s.ring, 64), 0);
	TEST_EQ("ring: tail backwards", ebs_ring_set_tail(&s.ring, 32), -EINVAL);
	ebs_ring_reset(&s.ring);
	TEST_CHECK("ring: reset empties it and zeroes the counts",
		   !ebs_ring_unread(&s.ring) && !s.ring.samples && !s.ring.hdr->head);
	free(s.mem);
}

int main(void)
{
	test_probe();
	test_evtsel();
	test_preload();
	overflow_run(1);
	overflow_run(2);
	test_dropped();
	test_tail();
	return test_done();
}
