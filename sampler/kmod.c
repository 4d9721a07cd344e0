// SPDX-License-Identifier: MIT
/*
 * kmod.c - the kernel module backend: samples from ebs.ko's /dev/ebs
 * (include/ebs/ebs_abi.h), one ring per CPU mapped read-only and given back
 * with EBS_IOC_TAIL.
 *
 * ebs.ko records instruction pointers, nothing else.  So that samples
 * resolve, the side-band records (MMAP, COMM, FORK, EXIT) come from a
 * tracking-only perf_event_open session (one software dummy event) run
 * beside it (perf.c's struct perf_tracking), as perf does for its own tracking;
 * where that cannot be opened, ebs says so and goes on with what /proc gave
 * at the start (for -p and -a; a launched command's samples then do not
 * resolve).  Both clocks are CLOCK_MONOTONIC.  Named events reach the
 * module as their generic event of include/ebs/ebs_events.h, the table the
 * module reads too.
 *
 * Counting (record_opts.count_only, ebs stat --backend=kmod) is a session
 * with EBS_CFG_COUNT (ABI version 2): no rings, no side band; EBS_IOC_READ
 * gives the counts while it runs (peek) and at the end, written as one
 * COUNT record per CPU, as the perf backend writes them.
 */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ebs/ebs_abi.h>
#include <ebs/ebs_events.h>
#include "sampler/backend.h"

struct kmod_priv {
	int fd;
	u32 mode;
	u32 version;		  /* the module's EBS_IOC_VERSION */
	struct ebs_count *counts; /* [SAMPLER_MAX_CPUS], counting: EBS_IOC_READ's */
	unsigned int nr_rings;
	size_t ring_len; /* header page + data */
	void **rings;
	struct ebs_cpu_stats3 *stats; /* [SAMPLER_MAX_CPUS], for EBS_IOC_STATS (read_stats()) */
	u64 *throttles;		      /* [nr_rings]: THROTTLE records the rings gave */
	struct ebs_config cfg;
	struct perf_tracking *track; /* the side-band session; NULL without one */
};

static const char *const mode_names[] = {
	[EBS_MODE_PERF_KERNEL] = "perf-kernel",
	[EBS_MODE_MSR] = "msr",
};

int event_spec__kmod_encode(const struct event_spec *ev, u32 *kind, u64 *id)
{
	const struct ebs_event *n;

	if (ev->type == PERF_TYPE_RAW) {
		*kind = EBS_EVENT_RAW;
		*id = ev->config;
		return 0;
	}
	for (n = ebs_events; n->name; n++)
		if (n->gen != EBS_GEN_NONE && n->type == ev->type && n->config == ev->config) {
			*kind = EBS_EVENT_GENERIC;
			*id = n->gen;
			return 0;
		}
	return -EINVAL;
}

/*
 * The module counts with a sample-after value only.  Without -c: for a
 * clock, the period that gives -F's frequency exactly (nanoseconds); for
 * other events KMOD_DEFAULT_N, said in a notice.
 */
#define KMOD_DEFAULT_N 2000000ull

static void set_period(struct sampler *s)
{
	if (s->opts->periods[0])
		s->period = s->opts->periods[0];
	else if (s->opts->period)
		s->period = s->opts->period;
	else if (event_spec__is_clock(&s->used[0]))
		s->period = 1000000000ull / (s->opts->freq ? s->opts->freq : 1000);
	else
		s->period = KMOD_DEFAULT_N;
	s->periods[0] = s->period;
}

#define KMOD_MLOCK_KB	"/sys/module/ebs/parameters/mlock_kb"
#define KMOD_SYSCTL_DIR "/proc/sys/kernel"

/*
 * One line for CONFIG's -EPERM: the rings are over the locked-memory
 * limit, which ebs.ko applies as perf applies perf_event_mlock_kb and
 * RLIMIT_MEMLOCK (docs/kmod.md section 3): the numbers, and what to do.
 */
static int memory_error(const struct kmod_priv *p, struct ebs_error *err)
{
	unsigned long long kb = (1 + (unsigned long long)p->cfg.ring_pages) *
				(unsigned long long)sysconf(_SC_PAGESIZE) / 1024;
	char mlock[32] = "?", memlock[32] = "unlimited";
	char *val = NULL;
	struct rlimit rl;

	if (ebs_read_file(KMOD_MLOCK_KB, &val) > 0)
		snprintf(mlock, sizeof(mlock), "%ld", strtol(val, NULL, 10));
	free(val);
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(memlock, sizeof(memlock), "%llu KB",
			 (unsigned long long)rl.rlim_cur / 1024);
	return ebs_error__set(err, EPERM,
			      "%s: the rings (-m %u: %llu KB per CPU) exceed the locked-memory "
			      "limit, ebs.ko's mlock_kb (%s KB per online CPU, %s) plus "
			      "RLIMIT_MEMLOCK (%s): use a smaller -m, raise 'ulimit -l', or have "
			      "root raise mlock_kb",
			      EBS_DEVICE, p->cfg.ring_pages, kb, mlock, KMOD_MLOCK_KB, memlock);
}

/*
 * Why msr mode found no counter 0 to use (CONFIG's -ENODEV), as ebs.ko's
 * probe decides it (kmod/ebs_msr.c): the vendor, a hybrid part, or
 * CPUID leaf 0xA; user space can ask CPUID too.  (The last line is also
 * perf-kernel mode's for its -ENODEV, as it was.)
 */
static int no_msr_error(const char *mode, bool msr, struct ebs_error *err)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int max, b, c, d, a7 = 0, b7 = 0, c7 = 0, d7 = 0;
	char vendor[13];

	if (msr && __get_cpuid(0, &max, &b, &c, &d)) {
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
		vendor[12] = '\0';
		if (strcmp(vendor, "GenuineIntel"))
			return ebs_error__set(
				err, ENODEV,
				"%s: %s mode programs Intel's architectural performance "
				"counters (CPUID leaf 0xA), and this CPU is %s's; use "
				"the default perf-kernel mode",
				EBS_DEVICE, mode, vendor);
		if (max >= 7)
			__cpuid_count(7, 0, a7, b7, c7, d7);
		if (d7 & (1u << 15))
			return ebs_error__set(
				err, ENODEV,
				"%s: %s mode does not run on a hybrid CPU (its core "
				"types differ in CPUID leaf 0xA, which ebs.ko reads on "
				"one CPU); use the default perf-kernel mode",
				EBS_DEVICE, mode);
	}
#else
	(void)msr;
#endif
	return ebs_error__set(err, ENODEV,
			      "%s: %s mode needs architectural performance monitoring "
			      "(CPUID leaf 0xA), which this CPU reports none of (a virtual "
			      "machine?); use the default perf-kernel mode",
			      EBS_DEVICE, mode);
}

/* One line saying why CONFIG failed, for event ev of mode. */
static int config_error(struct sampler *s, struct kmod_priv *p, int e, struct ebs_error *err)
{
	const char *what = s->used[0].name, *mode = mode_names[p->mode];
	bool msr = p->mode == EBS_MODE_MSR;

	switch (-e) {
	case ENODEV:
		return no_msr_error(mode, msr, err);
	case EBUSY:
		return ebs_error__set(err, EBUSY,
				      "%s: counter 0 is in use by perf or the NMI watchdog "
				      "(sysctl kernel.nmi_watchdog=0, and no other perf user)",
				      EBS_DEVICE);
	case ERANGE:
		return ebs_error__set(
			err, ERANGE,
			"%s: -c %llu cannot be preloaded into counter 0 (%s mode takes "
			"%llu to 2147483647)",
			EBS_DEVICE, (unsigned long long)p->cfg.sample_after, mode,
			(unsigned long long)(msr ? EBS_MSR_SAMPLE_AFTER_MIN
						 : EBS_SAMPLE_AFTER_MIN));
	case ESRCH:
		return sampler__gone((pid_t)p->cfg.pid, err);
	case EPERM:
		return memory_error(p, err);
	case EACCES:
		if (msr)
			return ebs_error__set(
				err, EACCES,
				"%s: event '%s' in msr mode: %s: counter 0 counts every process on "
				"every CPU, so msr mode needs CAP_PERFMON (or CAP_SYS_ADMIN) whatever "
				"the target, kernel addresses allowed by kernel.kptr_restrict for the "
				"kernel, and ptrace access to a pid",
				EBS_DEVICE, what, strerror(EACCES));
		return ebs_error__set(err, EACCES,
				      "%s: event '%s' on %s: %s: needs CAP_PERFMON (or "
				      "CAP_SYS_ADMIN) for all CPUs or the kernel, kernel addresses "
				      "allowed by kernel.kptr_restrict for the kernel, and ptrace "
				      "access to a pid",
				      EBS_DEVICE, what,
				      p->cfg.flags & EBS_CFG_ALL_CPUS ? "all CPUs" : "the target",
				      strerror(EACCES));
	default:
		return ebs_error__set(err, -e, "%s: cannot configure event '%s' (%s mode): %s",
				      EBS_DEVICE, what, mode, strerror(-e));
	}
}

/* One of dir's sysctl files as a number from 1 to max, or 0 (unreadable, or out of range). */
static u32 sysctl_value(const char *dir, const char *name, long max)
{
	char path[512], *val = NULL, *end = NULL;
	long v = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (ebs_read_file(path, &val) > 0) {
		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || end == val || v < 1)
			v = 0;
	}
	free(val);
	return (u32)(v > max ? max : v);
}

u32 kmod_limits(const char *dir)
{
	u32 rate = sysctl_value(dir, "perf_event_max_sample_rate", EBS_LIMITS_RATE_MAX);
	u32 percent = sysctl_value(dir, "perf_cpu_time_max_percent", 100);

	return EBS_LIMITS(rate, percent);
}

/* CONFIG for event 0 as s->used[0] now is; 0 or -errno (no message). */
static int kmod_config(struct sampler *s, struct kmod_priv *p)
{
	const struct event_spec *ev = &s->used[0];

	memset(&p->cfg, 0, sizeof(p->cfg));
	p->cfg.mode = p->mode;
	if (event_spec__kmod_encode(ev, &p->cfg.event_kind, &p->cfg.event_id))
		return -EOPNOTSUPP;
	p->cfg.sample_after = s->opts->count_only ? 0 : s->period;
	p->cfg.flags =
		(ev->exclude_user ? 0 : EBS_CFG_USER) | (ev->exclude_kernel ? 0 : EBS_CFG_KERNEL);
	if (s->opts->count_only)
		p->cfg.flags |= EBS_CFG_COUNT;
	else if (p->version >= 3)
		p->cfg.flags |= EBS_CFG_MARKS; /* throttle records (msr mode) */
	if (s->system_wide) {
		p->cfg.flags |= EBS_CFG_ALL_CPUS;
	} else {
		/* the process: the module follows all its threads itself */
		p->cfg.pid = s->opts->nr_pids ? s->opts->pids[0] : s->tids[0];
		if (s->enable_on_exec)
			p->cfg.flags |= EBS_CFG_ON_EXEC;
	}
	p->cfg.ring_pages = s->opts->count_only ? 0 : s->opts->mmap_pages;
	/* the module cannot read perf's sysctls: its throttle follows them so */
	if (p->mode == EBS_MODE_MSR && !s->opts->count_only && p->version >= 3)
		p->cfg.limits = kmod_limits(KMOD_SYSCTL_DIR);
	return ioctl(p->fd, EBS_IOC_CONFIG, &p->cfg) < 0 ? -errno : 0;
}

/*
 * After CONFIG's -EACCES for an event that counts the kernel too: try it
 * user-mode only, as the perf backend does.  ebs.ko refuses the kernel to
 * a caller that may not see kernel addresses (kernel.kptr_restrict, or no
 * CAP_PERFMON); when user mode is allowed, that was the reason: say so.
 * Returns CONFIG's result.
 */
static int fall_back_user(struct sampler *s, struct kmod_priv *p)
{
	struct event_spec *e = &s->used[0];
	char *val = NULL;
	int kptr = -1, rc;

	e->exclude_kernel = true;
	if (strlen(e->name) + 2 < sizeof(e->name))
		strcat(e->name, ":u");
	rc = kmod_config(s, p);
	if (rc)
		return rc;
	if (ebs_read_file("/proc/sys/kernel/kptr_restrict", &val) > 0)
		kptr = atoi(val);
	free(val);
	if (kptr > 0)
		snprintf(
			s->why[0], sizeof(s->why[0]),
			"kernel.kptr_restrict is %d: ebs.ko hides kernel addresses from this user, "
			"kernel code is not sampled",
			kptr);
	else
		snprintf(s->why[0], sizeof(s->why[0]),
			 "ebs.ko allows kernel addresses with CAP_PERFMON only: kernel code is not "
			 "sampled");
	if (s->msg)
		fprintf(s->msg,
			"ebs %s: event '%s' may not sample kernel code here (%s); sampling "
			"'%s' instead\n",
			record_opts__cmd(s->opts), s->opts->events[0].name, s->why[0], e->name);
	return 0;
}

static void kmod_close(struct sampler *s)
{
	struct kmod_priv *p = s->priv;
	unsigned int i;

	if (!p)
		return;
	perf_tracking__close(p->track);
	for (i = 0; p->rings && i < p->nr_rings; i++)
		if (p->rings[i] && p->rings[i] != MAP_FAILED)
			munmap(p->rings[i], p->ring_len);
	if (p->fd >= 0)
		close(p->fd); /* the module stops and frees the session */
	free(p->rings);
	free(p->stats);
	free(p->throttles);
	free(p->counts);
	free(p);
	s->priv = NULL;
}

/* The side-band session; a failure is a notice, not an error. */
static void open_tracking(struct sampler *s, struct kmod_priv *p)
{
	struct ebs_error err = {0};

	p->track = perf_tracking__open(s, &err);
	if (!p->track && s->msg)
		fprintf(s->msg,
			"ebs %s: no mapping tracking through perf_event_open (%s); code "
			"mapped after the start will not resolve\n",
			record_opts__cmd(s->opts), err.msg);
}

/*
 * After CONFIG gave e: the :u fallback for -EACCES, then 0, or -errno with
 * one line in err.
 */
static int config_done(struct sampler *s, struct kmod_priv *p, int e, struct ebs_error *err)
{
	if (e == -EACCES && !s->used[0].exclude_kernel && !s->used[0].exclude_user &&
	    !s->opts->no_fallback)
		e = fall_back_user(s, p);
	if (e == -EOPNOTSUPP && !s->used[0].hardware)
		return ebs_error__set(err, EINVAL,
				      "event '%s' is not available with --backend=kmod",
				      s->used[0].name);
	return e ? config_error(s, p, e, err) : 0;
}

/*
 * /dev/ebs opened, its ABI at least version need (a newer module takes an
 * older version's requests alike: ebs_abi.h), which *version gets (may
 * be NULL); what needs it names what needs that version.  The descriptor,
 * or -errno with err filled.
 */
static int open_device(u32 need, const char *what_needs, u32 *got, struct ebs_error *err)
{
	int fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC), e;
	u32 version = 0;

	if (fd < 0) {
		e = errno;
		if (e == ENOENT || e == ENODEV || e == ENXIO)
			return ebs_error__set(err, e,
					      "%s: %s: the ebs.ko module is not loaded "
					      "(make kmod, then insmod kmod/ebs.ko)",
					      EBS_DEVICE, strerror(e));
		if (e == EBUSY)
			return ebs_error__set(err, EBUSY, "%s: another ebs session is using it",
					      EBS_DEVICE);
		return ebs_error__set(
			err, e, "%s: %s%s", EBS_DEVICE, strerror(e),
			e == EACCES || e == EPERM ? " (needs CAP_PERFMON or CAP_SYS_ADMIN)" : "");
	}
	if (ioctl(fd, EBS_IOC_VERSION, &version) < 0 || version < need) {
		close(fd);
		return ebs_error__set(err, EPROTO,
				      "%s: ebs.ko speaks ABI version %u; %s needs %u (rebuild and "
				      "reload ebs.ko: make kmod)",
				      EBS_DEVICE, version, what_needs, need);
	}
	if (got)
		*got = version;
	return fd;
}

int kmod_probe_count(const struct event_spec *ev, bool system_wide, int *why, struct ebs_error *err)
{
	struct ebs_config cfg = {.mode = EBS_MODE_PERF_KERNEL};
	int fd = open_device(2, "counting", NULL, err);

	if (fd < 0)
		return fd;
	cfg.flags = EBS_CFG_COUNT | (ev->exclude_user ? 0 : EBS_CFG_USER) |
		    (ev->exclude_kernel ? 0 : EBS_CFG_KERNEL) |
		    (system_wide ? EBS_CFG_ALL_CPUS : 0);
	cfg.pid = system_wide ? 0 : getpid();
	if (event_spec__kmod_encode(ev, &cfg.event_kind, &cfg.event_id))
		*why = -EOPNOTSUPP;
	else
		*why = ioctl(fd, EBS_IOC_CONFIG, &cfg) < 0 ? -errno : 0;
	close(fd);
	return 0;
}

/*
 * The ABI version a session of s needs: 2 to count, or for the events the
 * module took from version 2 on; else 1.
 */
static u32 needed_version(const struct sampler *s)
{
	u32 kind;
	u64 id;

	if (s->opts->count_only)
		return 2;
	if (!event_spec__kmod_encode(&s->used[0], &kind, &id) && kind == EBS_EVENT_GENERIC &&
	    id > EBS_GEN_TASK_CLOCK)
		return 2;
	return 1;
}

/*
 * The rest of open for a counting session: CONFIG (a hardware event the
 * module cannot count says so on its row, as with the perf backend: no
 * fallback), nothing to map.
 */
static int open_counting(struct sampler *s, struct kmod_priv *p, struct ebs_error *err)
{
	int e;

	s->period = 0;
	p->counts = calloc(SAMPLER_MAX_CPUS, sizeof(*p->counts));
	if (!p->counts) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	e = config_done(s, p, kmod_config(s, p), err);
	if (e)
		goto fail;
	s->enc[0].type = EBS_EVENT_TYPE_KMOD;
	s->enc[0].config = p->cfg.event_id;
	s->enc[0].config1 = p->cfg.event_kind;
	return 0;

fail:
	kmod_close(s);
	return e;
}

/*
 * STATS into p->stats[0..nr): struct ebs_cpu_stats3 entries, from a module
 * before version 3 with throttled 0.  The number of entries filled (one
 * per ring), or -errno.
 */
static int read_stats(struct kmod_priv *p, unsigned int nr)
{
	struct ebs_stats st = {.nr_cpus = nr, .cpu_ptr = (u64)(uintptr_t)p->stats};
	struct ebs_cpu_stats v1;
	unsigned int i;

	if (p->version >= 3)
		st.entry_size = sizeof(*p->stats);
	if (ioctl(p->fd, EBS_IOC_STATS, &st) < 0)
		return -errno;
	if (p->version < 3)
		/* version 1's packed 32-byte entries, spread out from the last */
		for (i = st.nr_cpus; i-- > 0;) {
			memcpy(&v1, (const u8 *)p->stats + (size_t)i * sizeof(v1), sizeof(v1));
			p->stats[i].s = v1;
			p->stats[i].throttled = 0;
		}
	return (int)st.nr_cpus;
}

static int kmod_open(struct sampler *s, struct ebs_error *err)
{
	struct kmod_priv *p = calloc(1, sizeof(*p));
	unsigned int i;
	int e;

	if (!p)
		return ebs_error__set(err, ENOMEM, "out of memory");
	p->fd = -1;
	p->mode = s->opts->kmod_mode;
	s->priv = p;
	if (s->nr_events != 1) {
		e = ebs_error__set(err, EINVAL, "--backend=kmod samples one event (got %u)",
				   s->nr_events);
		goto fail;
	}
	if (s->opts->mmap_pages > EBS_RING_MAX_PAGES) {
		e = ebs_error__set(err, EINVAL, "--backend=kmod takes -m up to %u pages",
				   EBS_RING_MAX_PAGES);
		goto fail;
	}
	if (s->opts->nr_pids > 1) {
		e = ebs_error__set(err, EINVAL,
				   "--backend=kmod samples one process (or -a); -p named %u",
				   s->opts->nr_pids);
		goto fail;
	}
	p->fd = open_device(needed_version(s), s->opts->count_only ? "counting" : "this event",
			    &p->version, err);
	if (p->fd < 0) {
		e = p->fd;
		goto fail;
	}
	if (s->opts->count_only)
		return open_counting(s, p, err);
	set_period(s);
	e = kmod_config(s, p);
	if ((e == -ENOENT || e == -EOPNOTSUPP || e == -ENODEV) && s->used[0].hardware &&
	    p->mode == EBS_MODE_PERF_KERNEL && !s->opts->no_fallback) {
		sampler__fall_back(s, 0, e);
		set_period(s);
		e = kmod_config(s, p);
	}
	e = config_done(s, p, e, err);
	if (e)
		goto fail;
	if (!s->opts->period && !s->opts->periods[0] && !event_spec__is_clock(&s->used[0]) &&
	    s->msg)
		fprintf(s->msg,
			"ebs %s: --backend=kmod samples after N events, not at a frequency: "
			"using -c %llu for '%s'\n",
			record_opts__cmd(s->opts), (unsigned long long)KMOD_DEFAULT_N,
			s->used[0].name);
	/* how many rings: STATS fills one entry per ring */
	p->stats = calloc(SAMPLER_MAX_CPUS, sizeof(*p->stats));
	if (!p->stats) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	e = read_stats(p, SAMPLER_MAX_CPUS);
	if (e <= 0) {
		e = ebs_error__set(err, e ? -e : EIO, "%s: statistics: %s", EBS_DEVICE,
				   strerror(e ? -e : EIO));
		goto fail;
	}
	p->nr_rings = (unsigned int)e;
	p->ring_len = (1 + (size_t)s->opts->mmap_pages) * (size_t)sysconf(_SC_PAGESIZE);
	p->rings = calloc(p->nr_rings, sizeof(*p->rings));
	p->throttles = calloc(p->nr_rings, sizeof(*p->throttles));
	if (!p->rings || !p->throttles) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < p->nr_rings; i++) {
		p->rings[i] = mmap(NULL, p->ring_len, PROT_READ, MAP_SHARED, p->fd,
				   (off_t)(i * p->ring_len));
		if (p->rings[i] == MAP_FAILED) {
			e = ebs_error__set(err, errno, "%s: cannot map the ring of cpu %u: %s",
					   EBS_DEVICE, i, strerror(errno));
			goto fail;
		}
	}
	s->enc[0].type = EBS_EVENT_TYPE_KMOD;
	s->enc[0].config = p->cfg.event_id;
	s->enc[0].config1 = p->cfg.event_kind;
	open_tracking(s, p);
	return 0;

fail:
	kmod_close(s);
	return e;
}

static int kmod_start(struct sampler *s, struct ebs_error *err)
{
	struct kmod_priv *p = s->priv;

	if (p->track)
		perf_tracking__start(p->track);
	if (ioctl(p->fd, EBS_IOC_START) < 0)
		return ebs_error__set(err, errno, "%s: start: %s", EBS_DEVICE, strerror(errno));
	return 0;
}

const struct ebs_rec *kmod_record(const struct ebs_krecord *k, u64 period,
				  struct ebs_rec_sample *sample, struct ebs_rec_throttle *thr)
{
	if (k->flags & EBS_KREC_PAD)
		return NULL;
	if (k->flags & (EBS_KREC_THROTTLE | EBS_KREC_UNTHROTTLE)) {
		/* as the perf backend writes perf's THROTTLE and UNTHROTTLE */
		memset(thr, 0, sizeof(*thr));
		thr->hdr.type = EBS_REC_THROTTLE;
		thr->hdr.misc = (k->flags & EBS_KREC_UNTHROTTLE) ? EBS_THROTTLE_END : 0;
		thr->hdr.size = sizeof(*thr);
		thr->time = k->time_ns;
		thr->cpu = k->cpu;
		thr->event = 0;
		return &thr->hdr;
	}
	memset(sample, 0, sizeof(*sample));
	sample->hdr.type = EBS_REC_SAMPLE;
	sample->hdr.size = sizeof(*sample);
	sample->hdr.misc = (k->flags & EBS_KREC_KERNEL) ? EBS_CPUMODE_KERNEL : EBS_CPUMODE_USER;
	if (k->flags & EBS_KREC_PRECISE)
		sample->hdr.misc |= EBS_SAMPLE_EXACT_IP;
	sample->ip = k->ip;
	sample->time = k->time_ns;
	sample->period = period;
	sample->pid = k->pid;
	sample->tid = k->tid;
	sample->cpu = k->cpu;
	return &sample->hdr;
}

/* Move every ring's records to the writer and give the space back. */
static int drain(struct sampler *s, struct kmod_priv *p, struct ebs_error *err)
{
	unsigned int i;

	for (i = 0; i < p->nr_rings; i++) {
		const struct ebs_ring_header *h = p->rings[i];
		const u8 *data = (const u8 *)p->rings[i] + sysconf(_SC_PAGESIZE);
		u64 head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		u64 tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED), mask = h->data_size - 1;
		struct ebs_tail t = {.cpu = i};
		int e;

		if (head == tail)
			continue;
		for (; tail < head; tail += sizeof(struct ebs_krecord)) {
			const struct ebs_krecord *k = (const void *)(data + (tail & mask));
			struct ebs_rec_throttle thr;
			struct ebs_rec_sample smp;
			const struct ebs_rec *rec = kmod_record(k, s->period, &smp, &thr);

			if (!rec)
				continue;
			if (rec == &thr.hdr && !(thr.hdr.misc & EBS_THROTTLE_END))
				p->throttles[i]++;
			e = ebs_writer__add(s->w, rec);
			if (e)
				return ebs_error__set(err, -e, "%s: write failed: %s",
						      ebs_output_name(s->opts->output),
						      strerror(-e));
		}
		t.tail = head;
		if (ioctl(p->fd, EBS_IOC_TAIL, &t) < 0)
			return ebs_error__set(err, errno, "%s: cpu %u: giving back the ring: %s",
					      EBS_DEVICE, i, strerror(errno));
	}
	return 0;
}

static int kmod_read(struct sampler *s, int timeout_ms, struct ebs_error *err)
{
	struct kmod_priv *p = s->priv;
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	int e;

	/* signals interrupt this: the caller checks its flags */
	poll(&pfd, 1, timeout_ms);
	e = drain(s, p, err);
	if (!e && p->track)
		e = perf_tracking__read(p->track, err);
	return e;
}

/*
 * A counting session's counts: EBS_IOC_READ into s->counted[0] and the
 * like (scaled when a hardware counter was multiplexed) and, with write,
 * one COUNT record per CPU that counted, as the perf backend writes its
 * per-CPU counters.  0 or -errno with err filled.
 */
static int read_counts(struct sampler *s, struct kmod_priv *p, bool write, struct ebs_error *err)
{
	struct ebs_read r = {.nr_cpus = SAMPLER_MAX_CPUS, .cpu_ptr = (u64)(uintptr_t)p->counts};
	u32 tid = s->system_wide ? 0 : (u32)p->cfg.pid;
	unsigned int i;
	int e;

	if (ioctl(p->fd, EBS_IOC_READ, &r) < 0)
		return ebs_error__set(err, errno, "%s: reading the counts: %s", EBS_DEVICE,
				      strerror(errno));
	s->counted[0] = r.sum.value;
	s->running[0] = r.sum.time_running;
	/*
	 * scaled by counting's one rule (count/rule.h), CPU by CPU as the
	 * perf backend's: one counter a CPU for all CPUs (-a), else the
	 * thread's counters on every CPU as one
	 */
	memset(&s->totals[0], 0, sizeof(s->totals[0]));
	{
		struct count_thread th = {0};
		const struct event_spec *ev = &s->used[0];
		bool pmu = count_event_on_pmu(ev->type, ev->config, 0); /* one event a session */

		for (i = 0; i < r.nr_cpus; i++) {
			if (!p->counts[i].time_enabled && !p->counts[i].value)
				continue; /* no counter on that CPU */
			if (s->system_wide)
				count_total__add(&s->totals[0], pmu, p->counts[i].value,
						 p->counts[i].time_enabled,
						 p->counts[i].time_running);
			else
				count_thread_add(&th, p->counts[i].value, p->counts[i].time_enabled,
						 p->counts[i].time_running);
		}
		if (!s->system_wide)
			count_thread_end(&s->totals[0], pmu, &th);
	}
	s->scaled[0] = s->totals[0].scaled;
	s->multiplexed |= s->totals[0].multiplexed;
	s->have_counts = true;
	for (i = 0; write && i < r.nr_cpus; i++) {
		struct ebs_rec_count rec = {0};

		if (!p->counts[i].time_enabled && !p->counts[i].value)
			continue; /* no counter on that CPU */
		rec.hdr.type = EBS_REC_COUNT;
		rec.hdr.size = sizeof(rec);
		rec.time = ebs_clock_ns();
		rec.value = p->counts[i].value;
		rec.time_enabled = p->counts[i].time_enabled;
		rec.time_running = p->counts[i].time_running;
		rec.cpu = i;
		rec.tid = tid;
		e = ebs_writer__add(s->w, &rec.hdr);
		if (e)
			return ebs_error__set(err, -e, "%s: write failed: %s",
					      ebs_output_name(s->opts->output), strerror(-e));
	}
	return 0;
}

static int kmod_peek(struct sampler *s)
{
	struct ebs_error err = {0};
	struct kmod_priv *p = s->priv;

	return p->counts ? read_counts(s, p, false, &err) : -EOPNOTSUPP;
}

/*
 * A record at the end for what the rings could not hold: lost samples
 * (one LOST of the CPU's drops), or a THROTTLE and its UNTHROTTLE for a
 * throttle whose records a full ring dropped.
 */
static int add_end(struct sampler *s, struct ebs_rec *rec, struct ebs_error *err)
{
	int e = ebs_writer__add(s->w, rec);

	return e ? ebs_error__set(err, -e, "%s: write failed: %s", ebs_output_name(s->opts->output),
				  strerror(-e))
		 : 0;
}

static int kmod_stop(struct sampler *s, struct ebs_error *err)
{
	struct kmod_priv *p = s->priv;
	unsigned int i;
	u64 t;
	int e, n;

	if (ioctl(p->fd, EBS_IOC_STOP) < 0)
		return ebs_error__set(err, errno, "%s: stop: %s", EBS_DEVICE, strerror(errno));
	if (p->counts)
		return read_counts(s, p, true, err);
	e = drain(s, p, err);
	if (!e && p->track)
		e = perf_tracking__stop(p->track, err);
	if (e)
		return e;
	n = read_stats(p, p->nr_rings);
	if (n < 0)
		return ebs_error__set(err, -n, "%s: statistics: %s", EBS_DEVICE, strerror(-n));
	for (i = 0; i < (unsigned int)n; i++) {
		struct ebs_rec_lost lost = {0};
		struct ebs_rec_throttle thr = {0};

		if (p->stats[i].s.dropped) {
			lost.hdr.type = EBS_REC_LOST;
			lost.hdr.size = sizeof(lost);
			lost.time = ebs_clock_ns();
			lost.lost = p->stats[i].s.dropped;
			lost.cpu = i;
			lost.event = 0;
			e = add_end(s, &lost.hdr, err);
			if (e)
				return e;
		}
		/* STATS counts every throttle; a full ring dropped the records of some */
		for (t = p->throttles[i]; t < p->stats[i].throttled; t++) {
			thr.hdr.type = EBS_REC_THROTTLE;
			thr.hdr.size = sizeof(thr);
			thr.time = ebs_clock_ns();
			thr.cpu = i;
			thr.hdr.misc = 0;
			e = add_end(s, &thr.hdr, err);
			thr.hdr.misc = EBS_THROTTLE_END;
			if (!e)
				e = add_end(s, &thr.hdr, err);
			if (e)
				return e;
		}
	}
	return 0;
}

const struct sampler_backend kmod_backend = {
	.name = "kmod",
	.open = kmod_open,
	.start = kmod_start,
	.read = kmod_read,
	.peek = kmod_peek,
	.stop = kmod_stop,
	.close = kmod_close,
};
