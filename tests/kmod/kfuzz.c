// SPDX-License-Identifier: MIT
/*
 * kfuzz - random calls into ebs.ko, in the QEMU guest: ioctls with random
 * commands (the module's, others of its magic, anyone's) and arguments
 * (well formed, mutated, random; at NULL, wild, kernel, read-only and
 * page-straddling addresses), mmap/mremap/mprotect/madvise/munmap of the
 * rings, poll, close and reopen, forks that use the descriptor, and CONFIG
 * against processes that are exiting, from two threads at once.  Statically
 * linked at test time.
 *
 *   kfuzz CALLS SEED root|handed|perfmon
 *
 * root: as root.  handed: root opens /dev/ebs, then the process becomes
 * uid 65534 without capabilities and goes on with that descriptor (and
 * its reopens fail).  perfmon: uid 65534 with CAP_PERFMON only, which
 * opens the device itself (its node must be 0666).
 *
 * Checks that every call returns 0 or an errno the module may give and
 * that VERSION says EBS_ABI_VERSION; prints the call count, the time and the results
 * by errno, and a PASS or FAIL line.  What the kernel thought of it
 * (oops, WARN, BUG, leaks) the caller reads from dmesg and the slab
 * statistics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ebs/ebs_abi.h>

#include "guest.h"

#define MAX_MAPS  32
#define MAX_ERRNO 150
#define NELEM(a)  (sizeof(a) / sizeof((a)[0]))

static long page_size;
static long limit;		    /* calls to make, both threads together */
static long calls;		    /* made so far (atomic) */
static long results[MAX_ERRNO + 1]; /* by errno, 0 for success (atomic) */
static long unexpected;		    /* (atomic) */
static int dev_fd = -1;		    /* the descriptor both threads use (atomic) */
static bool may_open = true;	    /* handed: reopening is expected to fail */
static pid_t sleeper;		    /* a process to sample that sleeps */
static char *guard;		    /* a page, then a PROT_NONE page */
static char *ro_page;		    /* a read-only page */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ull;
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

/* The errnos the module may return, from docs/kmod.md section 4.5, and the kernel's own around it.
 */
static bool expected(int e)
{
	switch (e) {
	case 0:
	case EINVAL: /* state, argument; mmap flags the kernel refuses */
	case EBUSY:  /* RUNNING; the device in use */
	case ENOTTY: /* not a request of the module's */
	case EFAULT: /* a bad pointer */
	case EACCES: /* permission at open or CONFIG */
	case EPERM:  /* ring memory over the limits; a writable mapping */
	case ESRCH:  /* no such pid */
	case ENOENT: /* perf has no such event here (hardware, without a PMU) */
	case ENODEV: /* msr mode without architectural perfmon; mmap of another kind */
	case ERANGE: /* msr mode: N outside what counter 0 takes */
	case EOPNOTSUPP:
	case ENOMEM:	/* rings; mmap/mremap */
	case EBADF:	/* the other thread closed the descriptor meanwhile */
	case EAGAIN:	/* mmap/mremap */
	case EOVERFLOW: /* mmap offset */
		return true;
	default:
		return false;
	}
}

static void note(const char *what, long ret, int err)
{
	int e = ret < 0 ? err : 0;

	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&results[e > 0 && e <= MAX_ERRNO ? e : 0], 1, __ATOMIC_RELAXED);
	if (!expected(e)) {
		if (__atomic_add_fetch(&unexpected, 1, __ATOMIC_RELAXED) <= 5)
			printf("    kfuzz: %s: unexpected %s (%d)\n", what, strerror(e), e);
	}
}

static bool done(void)
{
	return __atomic_load_n(&calls, __ATOMIC_RELAXED) >= limit;
}

static int fd_now(void)
{
	return __atomic_load_n(&dev_fd, __ATOMIC_RELAXED);
}

/* A pointer to hand the kernel for size bytes, with buf (filled) as the good choice. */
static void *pointer(struct rng *r, void *buf, size_t size)
{
	switch (below(r, 20)) {
	case 0:
		return NULL;
	case 1:
		return (void *)1;
	case 2:
		return (void *)0xffffffff81000000ul; /* the kernel's */
	case 3:
		/* straddling the end of a page followed by PROT_NONE */
		memcpy(guard + page_size - size / 2, buf, size / 2);
		return guard + page_size - size / 2;
	case 4:
		return ro_page; /* readable; written to, EFAULT */
	case 5:
		return (void *)(uintptr_t)rnd(r);
	default:
		return buf;
	}
}

static pid_t exiting_child(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return pid; /* reaped by the caller after it used the pid */
}

static void random_config(struct rng *r, struct ebs_config *c, pid_t *reap)
{
	static const __u32 flag_sets[] = {
		EBS_CFG_USER,
		EBS_CFG_USER | EBS_CFG_KERNEL,
		EBS_CFG_KERNEL,
		EBS_CFG_USER | EBS_CFG_ON_EXEC,
		EBS_CFG_USER | EBS_CFG_ALL_CPUS,
		EBS_CFG_USER | EBS_CFG_KERNEL | EBS_CFG_ALL_CPUS,
		EBS_CFG_ALL_CPUS | EBS_CFG_ON_EXEC | EBS_CFG_USER,
		EBS_CFG_USER | EBS_CFG_COUNT | EBS_CFG_ON_EXEC,
		EBS_CFG_USER | EBS_CFG_KERNEL | EBS_CFG_COUNT | EBS_CFG_ALL_CPUS,
	};
	unsigned int i, flips;

	memset(c, 0, sizeof(*c));
	c->mode = chance(r, 90) ? EBS_MODE_PERF_KERNEL : below(r, 3);
	c->event_kind = chance(r, 85) ? EBS_EVENT_GENERIC : below(r, 3);
	if (c->event_kind == EBS_EVENT_GENERIC)
		c->event_id = chance(r, 70) ? EBS_GEN_CPU_CLOCK + below(r, 2) : below(r, 10);
	else
		c->event_id = chance(r, 50) ? (rnd(r) & 0xff00ffffull) : rnd(r);
	/* mostly 0.1 to 100 ms of CPU time: a fast clock floods TCG with interrupts */
	if (chance(r, 90))
		c->sample_after = 100000ull << below(r, 10);
	else
		c->sample_after = (const __u64[]){
			0, 999, 1000, 10000, 1ull << 62, 1ull << 63, ~0ull, rnd(r)}[below(r, 8)];
	c->flags = chance(r, 90) ? flag_sets[below(r, NELEM(flag_sets))] : (__u32)rnd(r);
	switch (below(r, 8)) {
	case 0:
	case 1:
	case 2:
		c->pid = getpid();
		break;
	case 3:
		c->pid = sleeper;
		break;
	case 4:
		c->pid = 1;
		break;
	case 5:
		c->pid = *reap = exiting_child();
		break;
	case 6:
		c->pid = (__s32)below(r, 40000);
		break;
	default:
		c->pid = (__s32)rnd(r);
		break;
	}
	/* mostly small rings: each CONFIG allocates one for every CPU */
	c->ring_pages = chance(r, 95)	? 1u << below(r, 5)
			: chance(r, 50) ? 1u << below(r, 13)
					: (__u32)rnd(r);
	/* a counting session: no N, no rings (mostly) */
	if ((c->flags & EBS_CFG_COUNT) && chance(r, 80))
		c->sample_after = c->ring_pages = 0;
	/* msr mode's throttle limits (refused elsewhere), mostly none, now and then garbage */
	c->limits = chance(r, 80)   ? 0
		    : chance(r, 80) ? EBS_LIMITS(below(r, 200000), below(r, 101))
				    : (__u32)rnd(r);
	flips = chance(r, 20) ? 1 + below(r, 3) : 0;
	for (i = 0; i < flips; i++)
		((unsigned char *)c)[below(r, sizeof(*c))] ^= 1u << below(r, 8);
}

/* One ioctl: a request of the module's (mostly), with an argument to suit. */
static void random_ioctl(struct rng *r, int fd, struct ebs_cpu_stats3 *stats)
{
	static const unsigned long known[] = {EBS_IOC_VERSION, EBS_IOC_CONFIG, EBS_IOC_START,
					      EBS_IOC_STOP,    EBS_IOC_STATS,  EBS_IOC_RESET,
					      EBS_IOC_TAIL,    EBS_IOC_READ};
	union {
		struct ebs_config cfg;
		struct ebs_stats st;
		struct ebs_tail t;
		struct ebs_read rd;
		__u32 v;
		unsigned char raw[64];
	} a;
	unsigned long cmd;
	pid_t reap = 0;
	void *p;
	long ret;
	int err;

	memset(&a, 0, sizeof(a));
	switch (below(r, 10)) {
	case 0: /* another number, direction or size of the module's magic */
		cmd = _IOC(below(r, 4), EBS_IOC_MAGIC, below(r, 12), below(r, 80));
		break;
	case 1: /* anyone's */
		cmd = (unsigned long)(__u32)rnd(r);
		break;
	default:
		cmd = known[below(r, NELEM(known))];
		break;
	}
	if (cmd == EBS_IOC_CONFIG || chance(r, 5)) {
		random_config(r, &a.cfg, &reap);
	} else if (cmd == EBS_IOC_STATS) {
		a.st.nr_cpus = chance(r, 80) ? (__u32)below(r, 8) : (__u32)rnd(r);
		/* version 1's entries, version 3's, or another size */
		a.st.entry_size = chance(r, 60)	  ? 0
				  : chance(r, 90) ? (__u32)sizeof(*stats)
						  : (__u32)rnd(r);
		a.st.cpu_ptr = (__u64)(uintptr_t)pointer(r, stats, sizeof(*stats) * 8);
		if (a.st.cpu_ptr == (__u64)(uintptr_t)guard + page_size - sizeof(*stats) * 4)
			a.st.nr_cpus = 8; /* straddles the guard page */
	} else if (cmd == EBS_IOC_READ) {
		/* struct ebs_count is the size of three statistics: the same buffer */
		a.rd.nr_cpus = chance(r, 80) ? (__u32)below(r, 8) : (__u32)rnd(r);
		a.rd.reserved = chance(r, 95) ? 0 : (__u32)rnd(r);
		a.rd.cpu_ptr = (__u64)(uintptr_t)pointer(r, stats, sizeof(*stats) * 6);
	} else if (cmd == EBS_IOC_TAIL) {
		a.t.cpu = chance(r, 80) ? (__u32)below(r, 3) : (__u32)rnd(r);
		a.t.reserved = chance(r, 95) ? 0 : (__u32)rnd(r);
		a.t.tail = chance(r, 50) ? 32 * below(r, 4096) : rnd(r);
	} else {
		unsigned int i;

		for (i = 0; i < sizeof(a.raw); i++)
			a.raw[i] = (unsigned char)rnd(r);
	}
	p = pointer(r, &a, sizeof(a.cfg));
	ret = ioctl(fd, cmd, p);
	err = errno;
	note("ioctl", ret, err);
	if (cmd == EBS_IOC_VERSION && p == &a && ret == 0 && a.v != EBS_ABI_VERSION) {
		printf("    kfuzz: VERSION said %u\n", a.v);
		__atomic_add_fetch(&unexpected, 1, __ATOMIC_RELAXED);
	}
	if (reap > 0)
		waitpid(reap, NULL, 0);
}

struct maps {
	void *addr[MAX_MAPS];
	size_t len[MAX_MAPS];
};

static void random_mapping(struct rng *r, int fd, struct maps *m)
{
	unsigned int i = (unsigned int)below(r, MAX_MAPS);
	size_t ring = (size_t)(1 + (1u << below(r, 5))) * page_size;
	void *a;
	long ret;
	int err;

	if (m->addr[i]) {
		switch (below(r, 6)) {
		case 0: { /* grow, shrink or move it: VM_DONTEXPAND refuses growing */
			size_t len = m->len[i] + page_size * below(r, 3) -
				     (m->len[i] > (size_t)page_size ? page_size * below(r, 2) : 0);

			a = mremap(m->addr[i], m->len[i], len, MREMAP_MAYMOVE);
			err = errno;
			note("mremap", a == MAP_FAILED ? -1 : 0, err);
			if (a != MAP_FAILED) {
				m->addr[i] = a;
				m->len[i] = len;
			}
			return;
		}
		case 1: /* no write access, ever */
			ret = mprotect(m->addr[i], m->len[i], PROT_READ | PROT_WRITE);
			err = errno;
			note("mprotect", ret, err);
			return;
		case 2: /* undo VM_DONTCOPY: allowed, as for perf's rings */
			ret = madvise(m->addr[i], m->len[i], MADV_DOFORK);
			err = errno;
			note("madvise", ret, err);
			return;
		case 3: /* drop the pages: the mapping has no fault handler, so forget it */
			ret = madvise(m->addr[i], m->len[i], MADV_DONTNEED);
			err = errno;
			note("madvise", ret, err);
			munmap(m->addr[i], m->len[i]);
			m->addr[i] = NULL;
			return;
		default:
			munmap(m->addr[i], m->len[i]);
			m->addr[i] = NULL;
			return;
		}
	}
	m->len[i] = chance(r, 80) ? ring : page_size * below(r, 40);
	a = mmap(NULL, m->len[i], chance(r, 90) ? PROT_READ : PROT_READ | PROT_WRITE,
		 chance(r, 90) ? MAP_SHARED : MAP_PRIVATE, fd,
		 (off_t)(chance(r, 80) ? ring * below(r, 3) : page_size * below(r, 200)));
	err = errno;
	note("mmap", a == MAP_FAILED ? -1 : 0, err);
	m->addr[i] = a == MAP_FAILED ? NULL : a;
	if (m->addr[i]) {
		/* read what the module shows */
		volatile const unsigned char *b = m->addr[i];

		(void)b[below(r, m->len[i])];
	}
}

/* A forked child uses (its copy of) the descriptor, then leaves. */
static void random_fork(struct rng *r, int fd)
{
	uint64_t seed = rnd(r);
	pid_t pid = fork();

	if (pid == 0) {
		struct rng cr = {seed | 1};
		struct ebs_cpu_stats3 st[8];
		long before = unexpected;
		int i;

		for (i = 0; i < 20; i++)
			random_ioctl(&cr, fd, st);
		_exit(unexpected > before ? 1 : 0);
	}
	if (pid > 0) {
		int status = 0;

		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			__atomic_add_fetch(&unexpected, 1, __ATOMIC_RELAXED);
	}
}

static void reopen(struct rng *r)
{
	int fd = fd_now(), nfd;

	if (fd >= 0 && chance(r, 70)) {
		__atomic_store_n(&dev_fd, -1, __ATOMIC_RELAXED);
		note("close", close(fd), errno);
		fd = -1;
	}
	nfd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	note("open", nfd, errno);
	if (nfd < 0 && errno == EBUSY && fd < 0)
		usleep(5000); /* a child that inherited the descriptor is releasing it */
	if (nfd >= 0) {
		if (fd >= 0)
			close(fd);
		__atomic_store_n(&dev_fd, nfd, __ATOMIC_RELAXED);
	}
}

static void *worker(void *arg)
{
	struct rng r = {*(uint64_t *)arg};
	struct ebs_cpu_stats3 stats[8];
	struct maps m;
	bool main_thread = *((uint64_t *)arg + 1);
	unsigned int i;

	memset(&m, 0, sizeof(m));
	while (!done()) {
		int fd = fd_now();
		unsigned int op = (unsigned int)below(&r, 1000);

		if (fd < 0) {
			/* the mappings hold the closed session: let it go */
			for (i = 0; i < MAX_MAPS; i++)
				if (m.addr[i]) {
					munmap(m.addr[i], m.len[i]);
					m.addr[i] = NULL;
				}
			if (main_thread && may_open)
				reopen(&r);
			else if (!main_thread)
				usleep(1000);
			else
				break; /* handed, and the descriptor is gone */
			continue;
		}
		if (op < 700) {
			random_ioctl(&r, fd, stats);
		} else if (op < 850) {
			random_mapping(&r, fd, &m);
		} else if (op < 950) {
			struct pollfd pfd = {.fd = fd, .events = POLLIN};

			note("poll", poll(&pfd, 1, 0), errno);
		} else if (op < 990 || !main_thread) {
			/* read the mapped rings' headers and give back what they hold */
			for (i = 0; i < MAX_MAPS; i++)
				if (m.addr[i] && m.len[i] > (size_t)page_size) {
					const struct ebs_ring_header *h = m.addr[i];
					struct ebs_tail t = {.cpu = h->cpu, .tail = h->head};

					note("ioctl", ioctl(fd, EBS_IOC_TAIL, &t), errno);
					break;
				}
		} else if (op < 996) {
			random_fork(&r, fd);
		} else if (may_open) {
			reopen(&r);
		}
	}
	for (i = 0; i < MAX_MAPS; i++)
		if (m.addr[i])
			munmap(m.addr[i], m.len[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t a0[2], a1[2];
	struct timespec t0, t1;
	pthread_t th;
	const char *who;
	long i, seen;
	double secs;
	int e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4) {
		fprintf(stderr, "usage: kfuzz CALLS SEED root|handed|perfmon\n");
		return 2;
	}
	limit = atol(argv[1]);
	who = argv[3];
	page_size = sysconf(_SC_PAGESIZE);
	guard = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	ro_page = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || ro_page == MAP_FAILED ||
	    mprotect(guard + page_size, page_size, PROT_NONE))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(who, "handed")) {
		dev_fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
		may_open = false;
		if (dev_fd < 0 || guest_become(GUEST_NOBODY, 0, -1)) {
			printf("FAIL: kmod: fuzz %s: cannot open or drop privileges: %s\n", who,
			       strerror(errno));
			return 1;
		}
	} else if (!strcmp(who, "perfmon")) {
		if (guest_become(GUEST_NOBODY, CAPBIT(CAP_PERFMON), -1)) {
			printf("FAIL: kmod: fuzz %s: cannot take the identity: %s\n", who,
			       strerror(errno));
			return 1;
		}
	} else if (strcmp(who, "root")) {
		fprintf(stderr, "kfuzz: who is '%s'?\n", who);
		return 2;
	}
	/* a process of the same user, to sample (and to kill at the end) */
	sleeper = fork();
	if (sleeper == 0) {
		for (;;)
			pause();
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	a0[0] = strtoull(argv[2], NULL, 0) * 2 + 1;
	a0[1] = 1;
	a1[0] = a0[0] * 3 + 2;
	a1[1] = 0;
	if ((e = pthread_create(&th, NULL, worker, a1))) {
		printf("FAIL: kmod: fuzz %s: pthread_create: %s\n", who, strerror(e));
		return 1;
	}
	worker(a0);
	__atomic_store_n(&limit, 0, __ATOMIC_RELAXED); /* the other thread stops too */
	pthread_join(th, NULL);
	if (fd_now() >= 0)
		close(fd_now());
	kill(sleeper, SIGKILL);
	waitpid(sleeper, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("    kfuzz %s: %ld calls in %.1f s; results:", who, calls, secs);
	for (i = 0, seen = 0; i <= MAX_ERRNO; i++)
		if (results[i]) {
			printf(" %s %ld", i ? strerrorname_np((int)i) : "ok", results[i]);
			seen += results[i];
		}
	printf("\n");
	if (unexpected)
		printf("FAIL: kmod: fuzz %s: %ld calls, %ld with an unexpected result\n", who,
		       calls, unexpected);
	else
		printf("PASS: kmod: fuzz %s: %ld calls, each 0 or an expected errno\n", who, calls);
	return unexpected ? 1 : 0;
}
