// SPDX-License-Identifier: MIT
/*
 * kmodtest - run inside the QEMU guest against the loaded ebs.ko: the
 * ioctl ABI directly, where ebs record would never go.  Prints PASS/FAIL
 * lines like every ebs test.  Statically linked at test time.
 *
 *   kmodtest	all checks (as root)
 *
 * Checked: the version ioctl; a second open is -EBUSY; calls out of order
 * are -EINVAL; bad CONFIG arguments are -EINVAL; an unknown ioctl is
 * -ENOTTY; a writable mapping is refused; a real session on a busy child
 * (cpu-clock, N = 1 ms) fills the rings, STATS agrees with the records,
 * a one-page ring drops instead of overwriting; RESET empties; the msr mode
 * is -ENODEV without architectural perfmon; an unprivileged open is -EACCES.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ebs/ebs_abi.h>

static int failures;

#define CHECK(name, cond)                                                                          \
	do {                                                                                       \
		if (cond) {                                                                        \
			printf("PASS: kmod: %s\n", name);                                           \
		} else {                                                                           \
			printf("FAIL: kmod: %s: %s (errno %d %s)\n", name, #cond, errno,           \
			       strerror(errno));                                                   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static long page_size;

static int ioc(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static struct ebs_config base_config(pid_t pid, __u32 pages)
{
	struct ebs_config c = {
		.mode = EBS_MODE_PERF_KERNEL,
		.event_kind = EBS_EVENT_GENERIC,
		.event_id = EBS_GEN_CPU_CLOCK,
		.sample_after = 1000000,	/* 1 ms of CPU time */
		.flags = EBS_CFG_USER | EBS_CFG_KERNEL,
		.pid = pid,
		.ring_pages = pages,
	};

	return c;
}

/* A child that spins until killed. */
static pid_t spinner(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		volatile unsigned long x = 0;

		for (;;)
			x++;
	}
	return pid;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_abi(void)
{
	struct ebs_config c;
	__u32 version = 0;
	int fd, fd2;
	void *m;

	fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	CHECK("open /dev/ebs as root", fd >= 0);
	if (fd < 0)
		return;
	CHECK("EBS_IOC_VERSION", ioc(fd, EBS_IOC_VERSION, &version) == 0 &&
					 version == EBS_ABI_VERSION);
	fd2 = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	CHECK("a second open is -EBUSY", fd2 < 0 && errno == EBUSY);
	if (fd2 >= 0)
		close(fd2);
	CHECK("START before CONFIG is -EINVAL", ioc(fd, EBS_IOC_START, NULL) == -EINVAL);
	CHECK("STOP before CONFIG is -EINVAL", ioc(fd, EBS_IOC_STOP, NULL) == -EINVAL);
	CHECK("an unknown ioctl is -ENOTTY", ioc(fd, _IO(EBS_IOC_MAGIC, 0x7f), NULL) == -ENOTTY);
	CHECK("another driver's ioctl is -ENOTTY", ioc(fd, _IO('T', 1), NULL) == -ENOTTY);
	m = mmap(NULL, 2 * page_size, PROT_READ, MAP_SHARED, fd, 0);
	CHECK("mmap before CONFIG is refused", m == MAP_FAILED);

	c = base_config(getpid(), 3);	/* not a power of two */
	CHECK("CONFIG with 3 ring pages is -EINVAL", ioc(fd, EBS_IOC_CONFIG, &c) == -EINVAL);
	c = base_config(getpid(), 1);
	c.sample_after = 10;
	CHECK("CONFIG below EBS_SAMPLE_AFTER_MIN is -EINVAL", ioc(fd, EBS_IOC_CONFIG, &c) == -EINVAL);
	c = base_config(getpid(), 1);
	c.event_id = EBS_GEN_MAX;
	CHECK("CONFIG with an unknown event is -EINVAL", ioc(fd, EBS_IOC_CONFIG, &c) == -EINVAL);
	c = base_config(getpid(), 1);
	c.reserved = 1;
	CHECK("CONFIG with reserved bits is -EINVAL", ioc(fd, EBS_IOC_CONFIG, &c) == -EINVAL);
	c = base_config(getpid(), 1);
	c.flags = 0;
	CHECK("CONFIG counting neither user nor kernel is -EINVAL",
	      ioc(fd, EBS_IOC_CONFIG, &c) == -EINVAL);
	c = base_config(999999, 1);
	CHECK("CONFIG of a pid that does not exist is -ESRCH", ioc(fd, EBS_IOC_CONFIG, &c) == -ESRCH);
	c = base_config(getpid(), 1);
	c.mode = EBS_MODE_MSR;
	c.event_id = EBS_GEN_CYCLES;
	CHECK("msr mode without architectural perfmon is -ENODEV",
	      ioc(fd, EBS_IOC_CONFIG, &c) == -ENODEV);
	c = base_config(getpid(), 1);
	c.event_id = EBS_GEN_CYCLES;
	CHECK("perf-kernel cycles without a PMU is -ENOENT", ioc(fd, EBS_IOC_CONFIG, &c) == -ENOENT);
	close(fd);
}

/* Sum of unread records over every ring of a session. */
static __u64 records(void **rings, unsigned int n)
{
	__u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct ebs_ring_header *h = rings[i];

		sum += (h->head - h->tail) / sizeof(struct ebs_krecord);
	}
	return sum;
}

/* The CPU time pid has used, in ms (utime + stime of /proc/PID/stat), or -1. */
static double cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return -1;
	return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static void session(__u32 pages, double seconds, const char *tag)
{
	struct ebs_cpu_stats st[64];
	struct ebs_stats s = {.nr_cpus = 64, .cpu_ptr = (__u64)(unsigned long)st};
	struct timespec ts = {(time_t)seconds, (long)((seconds - (long)seconds) * 1e9)};
	struct ebs_config c;
	void *rings[64];
	__u64 samples = 0, dropped = 0, overflows = 0, in_rings;
	double cpu0, cpu1, bound;
	unsigned int i, n;
	size_t len = (1 + pages) * page_size;
	char name[160];
	pid_t child;
	int fd;

	fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	child = spinner();
	c = base_config(child, pages);
	snprintf(name, sizeof(name), "%s: CONFIG cpu-clock N=1ms on a busy child", tag);
	CHECK(name, ioc(fd, EBS_IOC_CONFIG, &c) == 0);
	snprintf(name, sizeof(name), "%s: a second CONFIG is -EINVAL", tag);
	CHECK(name, ioc(fd, EBS_IOC_CONFIG, &c) == -EINVAL);
	CHECK("STATS says how many rings", ioc(fd, EBS_IOC_STATS, &s) == 0 && s.nr_cpus >= 1);
	n = s.nr_cpus;
	for (i = 0; i < n; i++)
		rings[i] = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)(i * len));
	snprintf(name, sizeof(name), "%s: every CPU's ring maps read-only", tag);
	CHECK(name, rings[0] != MAP_FAILED && rings[n - 1] != MAP_FAILED);
	CHECK("a writable mapping is refused",
	      mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED);
	CHECK("a mapping of the wrong size is refused",
	      mmap(NULL, len + page_size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	cpu0 = cpu_ms(child);
	CHECK("START", ioc(fd, EBS_IOC_START, NULL) == 0);
	CHECK("START while running is -EBUSY", ioc(fd, EBS_IOC_START, NULL) == -EBUSY);
	CHECK("RESET while running is -EBUSY", ioc(fd, EBS_IOC_RESET, NULL) == -EBUSY);
	nanosleep(&ts, NULL);
	CHECK("STOP", ioc(fd, EBS_IOC_STOP, NULL) == 0);
	cpu1 = cpu_ms(child);
	s.nr_cpus = n;
	CHECK("STATS after the run", ioc(fd, EBS_IOC_STATS, &s) == 0);
	for (i = 0; i < s.nr_cpus; i++) {
		samples += st[i].samples;
		dropped += st[i].dropped;
		overflows += st[i].overflows;
	}
	in_rings = records(rings, n);
	printf("    %s: %llu overflows, %llu samples, %llu dropped, %llu records\n", tag,
	       (unsigned long long)overflows, (unsigned long long)samples,
	       (unsigned long long)dropped, (unsigned long long)in_rings);
	/*
	 * One overflow per 1 ms of the busy child's CPU time, at most: the
	 * kernel's hrtimer fires only after a whole period, and skips the
	 * periods it was late for (under TCG on a loaded host it is late a
	 * lot: 330..1013 of a second's 1000 seen), so no lower bound but one
	 * overflow holds on every host.  The child's CPU time is read in clock
	 * ticks: a tick of error in each of its two fields, and one period per
	 * CPU at the edges.
	 */
	bound = cpu1 - cpu0 + 2 * 1000.0 / (double)sysconf(_SC_CLK_TCK) + n;
	snprintf(name, sizeof(name), "%s: overflows %llu in 1..%.0f (the child's %.0f ms of CPU)",
		 tag, (unsigned long long)overflows, bound, cpu1 - cpu0);
	CHECK(name, cpu0 >= 0 && cpu1 >= cpu0 && overflows >= 1 && (double)overflows <= bound);
	snprintf(name, sizeof(name), "%s: STATS samples = records in the rings", tag);
	CHECK(name, samples == in_rings);
	snprintf(name, sizeof(name), "%s: overflows = samples + dropped", tag);
	CHECK(name, overflows == samples + dropped);
	if (pages == 1) {
		/* one page holds 128 records: the rest is dropped, nothing overwritten */
		snprintf(name, sizeof(name), "%s: a full one-page ring drops (%llu dropped)", tag,
			 (unsigned long long)dropped);
		CHECK(name, dropped > 0 && in_rings <= (__u64)n * 128);
		snprintf(name, sizeof(name), "%s: the ring header shows the drops", tag);
		CHECK(name, ((const struct ebs_ring_header *)rings[0])->dropped +
					((const struct ebs_ring_header *)rings[n - 1])->dropped > 0);
	} else {
		snprintf(name, sizeof(name), "%s: nothing dropped", tag);
		CHECK(name, dropped == 0);
	}
	if (in_rings) {
		const struct ebs_ring_header *h = rings[0];
		unsigned int cpu = 0;

		while (h->head == 0 && cpu + 1 < n)
			h = rings[++cpu];
		{
			const struct ebs_krecord *r = (const void *)((const char *)h + page_size);
			struct ebs_tail t = {.cpu = cpu, .tail = h->head + 32};

			snprintf(name, sizeof(name), "%s: a record names the child", tag);
			CHECK(name, r->pid == (__u32)child && r->tid == (__u32)child &&
					   (r->flags & (EBS_KREC_USER | EBS_KREC_KERNEL)));
			CHECK("a tail beyond head is -EINVAL", ioc(fd, EBS_IOC_TAIL, &t) == -EINVAL);
			t.tail = h->head;
			CHECK("giving a ring back", ioc(fd, EBS_IOC_TAIL, &t) == 0 && h->tail == h->head);
		}
	}
	CHECK("RESET after STOP empties the rings",
	      ioc(fd, EBS_IOC_RESET, NULL) == 0 && records(rings, n) == 0);
	for (i = 0; i < n; i++)
		munmap(rings[i], len);
	stop_child(child);
	close(fd);
	fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	snprintf(name, sizeof(name), "%s: closing frees the device for the next session", tag);
	CHECK(name, fd >= 0);
	if (fd >= 0)
		close(fd);
}

/* A session whose process dies mid-run: the device must come free. */
static void test_death(void)
{
	int sync[2], fd, status = 0;
	pid_t child, spin;
	char c;

	if (pipe(sync))
		return;
	spin = spinner();
	child = fork();
	if (child == 0) {
		struct ebs_config cfg = base_config(spin, 4);
		int f = open(EBS_DEVICE, O_RDWR);

		if (f < 0 || ioc(f, EBS_IOC_CONFIG, &cfg) || ioc(f, EBS_IOC_START, NULL))
			_exit(1);
		if (write(sync[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	CHECK("a session starts in a child", read(sync[0], &c, 1) == 1);
	fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	CHECK("the child's running session keeps the device busy", fd < 0 && errno == EBUSY);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	fd = open(EBS_DEVICE, O_RDWR | O_CLOEXEC);
	CHECK("killing the process tears the session down: the device is free", fd >= 0);
	if (fd >= 0)
		close(fd);
	close(sync[0]);
	stop_child(spin);
}

static void test_unprivileged(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		fd = open(EBS_DEVICE, O_RDWR);
		/* the node is 0600 root: the permission check or the mode refuses */
		_exit(fd < 0 && (errno == EACCES || errno == EPERM) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK("an unprivileged open is refused", WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	test_abi();
	session(16, 1.0, "session");	/* 2048 records a CPU: room for 1 s at 1 kHz */
	session(1, 1.0, "small ring");	/* 128 records: must drop */
	test_death();
	test_unprivileged();
	return failures ? 1 : 0;
}
