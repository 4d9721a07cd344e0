// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-kmod.c - the kernel module's argument validation, compiled in user
 * space: the pure rules of kmod/ebs_check.c (which request a state allows,
 * CONFIG/STATS/TAIL arguments, mappings, ring-memory charging, which
 * samples are kept), the ring (kmod/ebs_ring.c) and the msr mode's event
 * encoding (kmod/ebs_msr.c), driven by a little program read from the
 * input against a model session.  The module's own ioctl code around these
 * is fuzzed in the QEMU guest (tests/kmod/); here a wrong answer of a rule
 * shows in seconds, under ASan and UBSan.
 *
 * The input, one operation after another (missing bytes read as 0):
 *
 *    0 setup   u8 cpus: a session of 1 + cpus % 8 rings (at the next CONFIG)
 *    1 ioctl   u8 which (< 7: a known request, else cmd), u32 cmd, then the
 *              argument: 40 bytes, read as union ebs_ioctl_arg
 *    2 sample  u8 cpu, u8 user: a counter overflows on that CPU
 *    3 mmap    u32 pgoff, u32 len (bytes), u8 writable
 *    4 charge  u64 pages, locked, limit, pinned, rlimit, u8 ipc_lock
 *    5 evtsel  u32 CPUID.0AH:EAX, u32 EBX, then a struct ebs_config (40)
 *    6 read    u8 cpu: the reader consumes that ring up to its head
 *
 * Promises checked: an unknown request is -ENOTTY and a known one in the
 * wrong state -EBUSY (RUNNING) or -EINVAL, as ebs_kmod.h's state machine
 * says; a CONFIG accepted satisfies every rule ebs_abi.h states; a TAIL
 * accepted names a ring and ebs_ring_set_tail() keeps tail within [old
 * tail, head] on record boundaries; a kernel-mode sample is kept only with
 * EBS_CFG_KERNEL; a mapping accepted is one whole, read-only ring; a charge
 * accepted splits the pages exactly and stays within RLIMIT_MEMLOCK unless
 * CAP_IPC_LOCK; an event selector has INT and EN, USR/OS as asked and only
 * raw fields otherwise.  The model session acts on every accepted request,
 * so a rule that lets through what it should not ends in a crash too.
 */
#include "kmod/ebs_check.c"
#include "kmod/ebs_msr.c"
#include "kmod/ebs_ring.c"

#include "tests/fuzz/fuzz.h"

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;

#define PAGE	  64ul /* small pages: a 4,096-page ring stays cheap; only ratios matter */
#define MAX_RINGS 8

static const unsigned int known[] = {EBS_IOC_VERSION, EBS_IOC_CONFIG, EBS_IOC_START, EBS_IOC_STOP,
				     EBS_IOC_STATS,   EBS_IOC_RESET,  EBS_IOC_TAIL,  EBS_IOC_READ};

/* The model session: what the module keeps, acting on what the rules accept. */
static struct {
	enum ebs_state state;
	unsigned int cpus; /* rings the next CONFIG makes */
	unsigned int nr_rings;
	struct ebs_config cfg;
	struct ebs_ring rings[MAX_RINGS];
	void *mem[MAX_RINGS];
} m;

static void free_rings(void)
{
	unsigned int i;

	for (i = 0; i < m.nr_rings; i++)
		free(m.mem[i]);
	memset(m.mem, 0, sizeof(m.mem));
	memset(m.rings, 0, sizeof(m.rings));
	m.nr_rings = 0;
}

struct prog {
	const u8 *p;
	size_t n;
};

static void take(struct prog *pr, void *out, size_t len)
{
	size_t k = len < pr->n ? len : pr->n;

	memset(out, 0, len);
	memcpy(out, pr->p, k);
	pr->p += k;
	pr->n -= k;
}

static u8 take8(struct prog *pr)
{
	u8 v;

	take(pr, &v, 1);
	return v;
}

static u32 take32(struct prog *pr)
{
	u32 v;

	take(pr, &v, 4);
	return v;
}

static u64 take64(struct prog *pr)
{
	u64 v;

	take(pr, &v, 8);
	return v;
}

static bool is_known(unsigned int cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (cmd == known[i])
			return true;
	return false;
}

/* What ebs_abi.h says a configuration must be. */
static void check_config(const struct ebs_config *c)
{
	const u64 raw = EBS_EVTSEL_EVENT(0xff) | EBS_EVTSEL_UMASK(0xff) | EBS_EVTSEL_EDGE |
			EBS_EVTSEL_INV | EBS_EVTSEL_CMASK(0xff);

	FUZZ_CHECK(c->mode == EBS_MODE_PERF_KERNEL || c->mode == EBS_MODE_MSR, "mode %u", c->mode);
	FUZZ_CHECK(!(c->flags & ~EBS_CFG_KNOWN), "flags %#x", c->flags);
	/* limits: msr mode's sampling sessions only, a percent up to 100 */
	FUZZ_CHECK(!c->limits || (c->mode == EBS_MODE_MSR && !(c->flags & EBS_CFG_COUNT) &&
				  EBS_LIMITS_PERCENT(c->limits) <= 100),
		   "limits %#x in mode %u, flags %#x", c->limits, c->mode, c->flags);
	FUZZ_CHECK(c->flags & (EBS_CFG_USER | EBS_CFG_KERNEL), "neither user nor kernel");
	FUZZ_CHECK(!((c->flags & EBS_CFG_ALL_CPUS) && (c->flags & EBS_CFG_ON_EXEC)),
		   "ALL_CPUS with ON_EXEC");
	FUZZ_CHECK((c->event_kind == EBS_EVENT_GENERIC && c->event_id < EBS_GEN_MAX) ||
			   (c->event_kind == EBS_EVENT_RAW && !(c->event_id & ~raw)),
		   "event %u/%#llx", c->event_kind, (unsigned long long)c->event_id);
	if (c->flags & EBS_CFG_COUNT) { /* no interrupt, no rings; msr: all CPUs */
		FUZZ_CHECK(!c->sample_after && !c->ring_pages &&
				   (c->mode != EBS_MODE_MSR || (c->flags & EBS_CFG_ALL_CPUS)),
			   "counting: sample_after %llu, %u ring pages, mode %u",
			   (unsigned long long)c->sample_after, c->ring_pages, c->mode);
		return;
	}
	FUZZ_CHECK(c->sample_after >= EBS_SAMPLE_AFTER_MIN && !(c->sample_after >> 63),
		   "sample_after %llu", (unsigned long long)c->sample_after);
	FUZZ_CHECK(c->ring_pages >= EBS_RING_MIN_PAGES && c->ring_pages <= EBS_RING_MAX_PAGES &&
			   !(c->ring_pages & (c->ring_pages - 1)),
		   "%u ring pages", c->ring_pages);
	FUZZ_CHECK((c->flags & EBS_CFG_ALL_CPUS) || c->pid > 0, "pid %d", c->pid);
}

static void op_ioctl(struct prog *pr)
{
	union ebs_ioctl_arg arg;
	u8 which = take8(pr);
	unsigned int cmd = take32(pr), i;
	enum ebs_state before = m.state;
	int e;

	if (which < ARRAY_SIZE(known))
		cmd = known[which];
	take(pr, &arg, sizeof(arg));
	e = ebs_check_ioctl(cmd, m.state, m.nr_rings, &arg);
	FUZZ_CHECK(e == 0 || e == -EINVAL || e == -EBUSY || e == -ENOTTY, "%#x: %d", cmd, e);
	if (!is_known(cmd)) {
		FUZZ_CHECK(e == -ENOTTY, "request %#x is not the module's, but %d", cmd, e);
		return;
	}
	e = ebs_check_state(cmd, m.state);
	FUZZ_CHECK(e != -EBUSY || m.state == EBS_RUNNING, "-EBUSY in state %d", m.state);
	if (e)
		return;
	if (ebs_check_ioctl(cmd, m.state, m.nr_rings, &arg))
		return;
	/* accepted: the module acts on it */
	switch (cmd) {
	case EBS_IOC_CONFIG:
		FUZZ_CHECK(before == EBS_OPEN, "CONFIG in state %d", before);
		check_config(&arg.cfg);
		m.cfg = arg.cfg;
		m.nr_rings = m.cfg.flags & EBS_CFG_COUNT ? 0 : m.cpus; /* counting: no rings */
		for (i = 0; i < m.nr_rings; i++) {
			m.mem[i] = calloc(1 + (size_t)m.cfg.ring_pages, PAGE);
			FUZZ_CHECK(m.mem[i], "out of memory");
			ebs_ring_init(&m.rings[i], m.mem[i], m.cfg.ring_pages, i, PAGE);
		}
		m.state = EBS_CONFIGURED;
		break;
	case EBS_IOC_START:
		FUZZ_CHECK(before == EBS_CONFIGURED || before == EBS_STOPPED, "START in %d",
			   before);
		m.state = EBS_RUNNING;
		break;
	case EBS_IOC_STOP:
		FUZZ_CHECK(before == EBS_RUNNING, "STOP in %d", before);
		m.state = EBS_STOPPED;
		break;
	case EBS_IOC_RESET:
		FUZZ_CHECK(before == EBS_CONFIGURED || before == EBS_STOPPED, "RESET in %d",
			   before);
		for (i = 0; i < m.nr_rings; i++)
			ebs_ring_reset(&m.rings[i]);
		m.state = EBS_CONFIGURED;
		break;
	case EBS_IOC_STATS: {
		unsigned int n = arg.stats.nr_cpus < m.nr_rings ? arg.stats.nr_cpus : m.nr_rings;
		u64 sum = 0;

		FUZZ_CHECK(before != EBS_OPEN &&
				   (!arg.stats.entry_size ||
				    arg.stats.entry_size == sizeof(struct ebs_cpu_stats) ||
				    arg.stats.entry_size == sizeof(struct ebs_cpu_stats3)),
			   "STATS of entry size %u accepted", arg.stats.entry_size);
		for (i = 0; i < n; i++) /* what the module copies out */
			sum += m.rings[i].samples + m.rings[i].dropped + m.rings[i].overflows +
			       m.rings[i].throttled;
		(void)sum;
		break;
	}
	case EBS_IOC_READ:
		FUZZ_CHECK(before != EBS_OPEN && !arg.read.reserved &&
				   (!arg.read.nr_cpus || arg.read.cpu_ptr),
			   "READ of %u CPUs into %#llx accepted", arg.read.nr_cpus,
			   (unsigned long long)arg.read.cpu_ptr);
		break;
	case EBS_IOC_TAIL: {
		struct ebs_ring *r;
		u64 old, head;

		FUZZ_CHECK(before != EBS_OPEN && arg.tail.cpu < m.nr_rings && !arg.tail.reserved,
			   "TAIL of CPU %u of %u accepted", arg.tail.cpu, m.nr_rings);
		r = &m.rings[arg.tail.cpu];
		old = r->hdr->tail;
		head = r->hdr->head;
		if (ebs_ring_set_tail(r, arg.tail.tail) == 0)
			FUZZ_CHECK(arg.tail.tail >= old && arg.tail.tail <= head &&
					   arg.tail.tail % sizeof(struct ebs_krecord) == 0 &&
					   r->hdr->tail == arg.tail.tail,
				   "tail %llu accepted: old %llu, head %llu",
				   (unsigned long long)arg.tail.tail, (unsigned long long)old,
				   (unsigned long long)head);
		else
			FUZZ_CHECK(r->hdr->tail == old, "a refused TAIL moved the tail");
		break;
	}
	default:
		break;
	}
}

static void op_sample(struct prog *pr)
{
	struct ebs_krecord rec = {.ip = 0x401000};
	u8 cpu = take8(pr);
	bool user = take8(pr) & 1;
	struct ebs_ring *r;
	u64 unread;

	if (m.state != EBS_RUNNING || !m.nr_rings) /* nothing is kept outside START..STOP */
		return;
	r = &m.rings[cpu % m.nr_rings];
	r->overflows++;
	if (!ebs_check_sample(m.cfg.flags, user))
		return;
	FUZZ_CHECK(user || (m.cfg.flags & EBS_CFG_KERNEL), "kernel sample kept for user-only");
	rec.flags = user ? EBS_KREC_USER : EBS_KREC_KERNEL;
	unread = ebs_ring_unread(r);
	if (ebs_ring_write(r, &rec) < 0)
		FUZZ_CHECK(unread + sizeof(rec) > r->hdr->data_size, "dropped with room");
	FUZZ_CHECK(ebs_ring_unread(r) <= r->hdr->data_size, "ring overfilled");
}

static void op_mmap(struct prog *pr)
{
	unsigned long pgoff = take32(pr), len = take32(pr), pages;
	bool writable = take8(pr) & 1;
	unsigned int cpu = UINT32_MAX;
	int e;

	e = ebs_check_mmap(pgoff, len, writable, m.state, m.cfg.ring_pages, m.nr_rings, PAGE, &cpu);
	FUZZ_CHECK(e == 0 || e == -EINVAL || e == -EPERM, "mmap: %d", e);
	FUZZ_CHECK(e != -EPERM || writable, "-EPERM for a read-only mapping");
	if (e)
		return;
	pages = 1 + (unsigned long)m.cfg.ring_pages;
	FUZZ_CHECK(!writable && m.state != EBS_OPEN && cpu < m.nr_rings && len == pages * PAGE &&
			   pgoff == cpu * pages,
		   "mapping of %lu bytes at page %lu accepted as ring %u", len, pgoff, cpu);
	/* user space reads all of it */
	{
		const volatile u8 *p = m.mem[cpu];
		u8 x = 0;
		unsigned long i;

		for (i = 0; i < len; i += PAGE / 2)
			x ^= p[i];
		x ^= p[len - 1];
		(void)x;
	}
}

static void op_charge(struct prog *pr)
{
	u64 pages = take64(pr), locked = take64(pr), limit = take64(pr), pinned = take64(pr);
	u64 rlim = take64(pr), user_pages = 0, pinned_pages = 0, room;
	bool ipc_lock = take8(pr) & 1;
	int e;

	e = ebs_check_charge(pages, locked, limit, pinned, rlim, ipc_lock, &user_pages,
			     &pinned_pages);
	FUZZ_CHECK(e == 0 || (e == -EPERM && !ipc_lock), "charge: %d (ipc_lock %d)", e, ipc_lock);
	if (e)
		return;
	room = locked < limit ? limit - locked : 0;
	FUZZ_CHECK(user_pages + pinned_pages == pages && user_pages <= pages && user_pages <= room,
		   "charge of %llu: %llu to the user (room %llu), %llu pinned",
		   (unsigned long long)pages, (unsigned long long)user_pages,
		   (unsigned long long)room, (unsigned long long)pinned_pages);
	FUZZ_CHECK(pinned_pages == pages - user_pages && (user_pages == room || !pinned_pages),
		   "pinned %llu while the user had room", (unsigned long long)pinned_pages);
	FUZZ_CHECK(ipc_lock || (pinned_pages <= rlim && pinned <= rlim - pinned_pages),
		   "pinned %llu + %llu past RLIMIT_MEMLOCK %llu", (unsigned long long)pinned,
		   (unsigned long long)pinned_pages, (unsigned long long)rlim);
}

static u32 cpuid_a[2];

static void fake_cpuid(u32 leaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	*a = *b = *c = *d = 0;
	if (leaf == 0)
		*a = 0xd;
	else if (leaf == 0xa)
		*a = cpuid_a[0], *b = cpuid_a[1];
}

static void op_evtsel(struct prog *pr)
{
	const u64 raw = EBS_EVTSEL_EVENT(0xff) | EBS_EVTSEL_UMASK(0xff) | EBS_EVTSEL_EDGE |
			EBS_EVTSEL_INV | EBS_EVTSEL_CMASK(0xff);
	const struct ebs_hw_ops hw = {.cpuid = fake_cpuid};
	struct ebs_msr_pmu pmu;
	struct ebs_config cfg;
	u64 sel, pre;
	int e;

	cpuid_a[0] = take32(pr);
	cpuid_a[1] = take32(pr);
	take(pr, &cfg, sizeof(cfg));
	if (ebs_msr_probe(&hw, &pmu))
		return;
	FUZZ_CHECK(pmu.width >= 32 && pmu.width <= 64, "width %u", pmu.width);
	sel = ebs_msr_evtsel(&pmu, &cfg, &e);
	if (e) {
		FUZZ_CHECK(!sel && (e == -EINVAL || e == -EOPNOTSUPP || e == -ERANGE), "evtsel: %d",
			   e);
		return;
	}
	/* counting (EBS_CFG_COUNT) takes no interrupt */
	FUZZ_CHECK((sel & (EBS_EVTSEL_INT | EBS_EVTSEL_EN)) ==
			   (cfg.flags & EBS_CFG_COUNT ? EBS_EVTSEL_EN
						      : EBS_EVTSEL_INT | EBS_EVTSEL_EN),
		   "selector %#llx for flags %#x: INT and EN wrong", (unsigned long long)sel,
		   cfg.flags);
	FUZZ_CHECK(!!(sel & EBS_EVTSEL_USR) == !!(cfg.flags & EBS_CFG_USER) &&
			   !!(sel & EBS_EVTSEL_OS) == !!(cfg.flags & EBS_CFG_KERNEL),
		   "selector %#llx for flags %#x", (unsigned long long)sel, cfg.flags);
	FUZZ_CHECK(
		!(sel & ~(raw | EBS_EVTSEL_USR | EBS_EVTSEL_OS | EBS_EVTSEL_INT | EBS_EVTSEL_EN)),
		"selector %#llx sets PC, ANY or bits above 31", (unsigned long long)sel);
	if (cfg.flags & EBS_CFG_COUNT)
		return; /* no N: counted from 0 */
	/* preloaded with -N, the counter overflows after exactly N events */
	pre = ebs_msr_preload(&pmu, cfg.sample_after);
	FUZZ_CHECK(((pre + cfg.sample_after) & pmu.mask) == 0 && pre <= pmu.mask &&
			   (pre >> (pmu.width - 1)) & 1,
		   "preload %#llx for %llu in %u bits", (unsigned long long)pre,
		   (unsigned long long)cfg.sample_after, pmu.width);
	/* and the legacy counter address sign-extends 32 bits: -N must survive that */
	FUZZ_CHECK((((u64)(s64)(s32)(u32)pre) & pmu.mask) == pre, "preload %#llx truncated",
		   (unsigned long long)pre);
}

static void op_read(struct prog *pr)
{
	struct ebs_ring *r;
	u64 tail, head;
	u8 cpu = take8(pr);

	if (m.state == EBS_OPEN || !m.nr_rings)
		return;
	r = &m.rings[cpu % m.nr_rings];
	head = r->hdr->head;
	for (tail = r->hdr->tail; tail < head; tail += sizeof(struct ebs_krecord)) {
		const struct ebs_krecord *rec = (const void *)(r->data + (tail & r->mask));

		FUZZ_CHECK(rec->flags == EBS_KREC_USER || rec->flags == EBS_KREC_KERNEL,
			   "record flags %#x", rec->flags);
	}
	FUZZ_CHECK(ebs_ring_set_tail(r, head) == 0, "giving back everything read refused");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog pr = {data, size};

	memset(&m, 0, sizeof(m));
	m.state = EBS_OPEN;
	m.cpus = 2;
	while (pr.n) {
		switch (take8(&pr) % 7) {
		case 0:
			m.cpus = 1 + take8(&pr) % MAX_RINGS;
			break;
		case 1:
			op_ioctl(&pr);
			break;
		case 2:
			op_sample(&pr);
			break;
		case 3:
			op_mmap(&pr);
			break;
		case 4:
			op_charge(&pr);
			break;
		case 5:
			op_evtsel(&pr);
			break;
		default:
			op_read(&pr);
			break;
		}
	}
	free_rings();
	return 0;
}
