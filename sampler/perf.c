// SPDX-License-Identifier: MIT
/*
 * perf.c - the perf_event_open backend (the default), and the tracking
 * session that the kmod backend runs beside ebs.ko (backend.h).
 *
 * One counter per (event, target thread, CPU); counters on one CPU form a
 * group per thread (the first event leads) and all of them write into one
 * mmap'd ring per CPU (PERF_EVENT_IOC_SET_OUTPUT).  A counting session
 * has no rings (it takes no samples and asks for no side-band), and on a
 * command or processes its one "CPU" is -1 (record.c's per_task_count):
 * one counter per event and thread, wherever it runs.  Only event 0 asks for
 * the side-band records (MMAP2, COMM with comm_exec, FORK/EXIT through
 * task), so they come once; kernel threads' names come from /proc.
 *
 * Beside them a watch (a tracking session of MMAP2 records only, whose
 * ring wakes the reader at each) is polled when a mapping of a process in
 * another mount namespace is to be read while the process runs (ns.c).
 *
 * The rings are read by ring.c, which reassembles records that wrap; each
 * kind of record is converted by its own function, the kernel's layouts
 * named in perf_rec.h.
 *
 * Why one file of ~1,220 lines: the kernel's interface (perf_event_attr,
 * the groups, the rings, the records) is one state machine per session;
 * what is shared with the kmod backend is its tracking session here.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampler/backend.h"
#include "sampler/perf_rec.h"
#include "sampler/ring.h"
#include "util/hash.h"

/*
 * kthreadd, the parent of every kernel thread, in the initial pid namespace.
 * The kernel names a kernel thread inside fork (copy_process() copies the
 * name that kthread_create() gave; Linux 6.4 and later) and reports that
 * name in no COMM record: a FORK from kthreadd is all the ring says.  So
 * the name is read from /proc when the FORK is read, usually well within a
 * second of it, and written as a COMM record with the FORK's time.
 */
#define KTHREADD_PID 2

struct id_entry {
	u64 id;
	u16 event;
	UT_hash_handle hh;
};

struct ring {
	int fd; /* the counter whose ring it is */
	int cpu;
	void *base; /* header page + data */
	size_t data_size;
	bool hup;
};

/*
 * One perf_event_open session: counters for events[] on every target and
 * CPU, their rings, and the way of their records into the writer.  The
 * perf backend runs one for the sampler's events (s->priv), the tracking
 * session one for a dummy event.  The fields down to output say what to
 * open, where, and where the records go; they are set when the session is
 * made and borrow the owner's targets, writer and events[], which outlive
 * it (the perf backend's fallbacks rewrite events[] while it opens).
 */
struct perf_session {
	struct event_spec *events; /* [nr_events]; event 0 asks for the side-band */
	unsigned int nr_events;
	const u64 *periods; /* [nr_events] sample-after values; NULL: frequency mode */
	u64 freq;	    /* frequency mode: samples per second */
	bool count_only;    /* counting events: no sample_period, no freq */
	bool tracking_only; /* side-band records only: no samples */
	bool watch_only;    /* with tracking_only: MMAP2 records only, each one waking the
			     * reader, for ns.c and never written (struct perf_watch) */
	const pid_t *tids;  /* threads (inherit follows them), or -1 with system_wide */
	unsigned int nr_tids;
	const int *cpus;
	unsigned int nr_cpus;
	bool system_wide;
	bool enable_on_exec;	 /* a launched command: counting starts at its exec */
	unsigned int mmap_pages; /* data pages per ring */
	struct ebs_writer *w;
	const char *output; /* w's file, for messages */
	/* the sampler's processes whose exit wakes the reader (backend.h); NULL: none */
	struct sampler_exit *exits;
	unsigned int nr_exits;

	int *fds; /* [event][tid][cpu], -1 when not open */
	size_t nr_fds;
	struct ring *rings; /* one per CPU; none mapped (fd -1) in a counting session */
	struct id_entry *ids;
	u8 *bounce;		    /* for records that wrap */
	struct pollfd *pfd;	    /* one per ring, a watch's ring and exit */
	enum call_graph call_graph; /* what samples carry beyond their IP */
	u32 stack_user;
	u64 regs_user;		     /* the user registers they carry (their mask) */
	bool build_id;		     /* kernel supports attr.build_id */
	struct ns_tracker *ns;	     /* the sampler's (ns.c), or NULL */
	struct perf_tracking *watch; /* the perf backend's watch of mappings, or NULL */
	/*
	 * Last, and not zeroed with the rest (session_new): each converter
	 * zeroes what it writes, and a counting session, which converts
	 * nothing, would pay a page fault for each of its 17 pages (a copy
	 * on write, with ebs stat's command forked just before).
	 */
	union {
		struct ebs_rec_sample sample;
		u8 bytes[65536 + 512]; /* a SAMPLE with its parts: the kernel's are < 64 KiB */
	} out;
};

static size_t fd_index(const struct perf_session *p, unsigned int ev, unsigned int t,
		       unsigned int c)
{
	return ((size_t)ev * p->nr_tids + t) * p->nr_cpus + c;
}

static void fill_attr(const struct perf_session *p, unsigned int idx, bool build_id,
		      struct perf_event_attr *attr)
{
	const struct event_spec *ev = &p->events[idx];
	size_t ring_bytes = (size_t)p->mmap_pages * (size_t)sysconf(_SC_PAGESIZE);

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	if (p->count_only) {
		/* a counting event: no sample_period, no freq */
	} else if (p->periods) {
		attr->sample_period = p->periods[idx];
	} else {
		attr->freq = 1;
		attr->sample_freq = p->freq;
	}
	attr->sample_type = PERF_REC_SAMPLE_TYPE | (p->periods ? 0 : PERF_SAMPLE_PERIOD);
	attr->disabled = 1;
	attr->inherit = !p->system_wide;
	attr->enable_on_exec = p->enable_on_exec;
	attr->exclude_kernel = ev->exclude_kernel;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_hv = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (!p->count_only && !p->tracking_only)
		call_graph__attr(p->call_graph, p->stack_user, attr);
	attr->sample_id_all = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->watermark = 1;
	attr->wakeup_watermark = (u32)(ring_bytes / 4);
	if (p->watch_only) {
		/* each mapping wakes the reader at once: its process may soon be gone */
		attr->wakeup_watermark = 1;
		attr->mmap = 1;
		attr->mmap2 = 1;
		attr->build_id = build_id;
	} else if (idx == 0 && !p->count_only) {
		/*
		 * the tracking event: side-band records come once (a counting
		 * session keeps no recording to put them in: with -a, every
		 * process's mmap, exec and fork would wake it for nothing)
		 */
		attr->mmap = 1;
		attr->mmap2 = 1;
		attr->comm = 1;
		attr->comm_exec = 1;
		attr->task = 1;
		attr->build_id = build_id;
	}
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static bool is_no_pmu(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

static int paranoid_level(void)
{
	char *val = NULL;
	int paranoid = 2;

	if (ebs_read_file("/proc/sys/kernel/perf_event_paranoid", &val) > 0)
		paranoid = atoi(val);
	free(val);
	return paranoid;
}

/*
 * A permission failure explained, with the setting to change.  The levels
 * (Documentation/admin-guide/sysctl/kernel.rst): >= 1 forbids CPU-wide
 * events (-a), >= 2 forbids kernel profiling, 3 (a Debian patch) forbids
 * perf_event_open for users without CAP_SYS_ADMIN (the patch predates
 * CAP_PERFMON and does not accept it).
 */
static void permission_hint(char *buf, size_t len, const struct perf_session *p,
			    const struct event_spec *ev)
{
	bool system_wide = p->system_wide;
	int paranoid = paranoid_level(), need;
	const char *what;

	if (system_wide) {
		what = p->count_only ? "counting all CPUs (-a)" : "sampling all CPUs (-a)";
		need = 0;
	} else if (ev->exclude_user) {
		what = "sampling kernel code";
		need = 1;
	} else if (!ev->exclude_kernel) {
		what = "sampling kernel code (add :u to sample user space only)";
		need = 1;
	} else {
		what = "sampling user space";
		need = 2;
	}
	if (paranoid <= need && !system_wide)
		snprintf(buf, len,
			 "no permission to trace that process (another user's?): run as "
			 "its user, as root, or with CAP_PERFMON");
	else if (paranoid <= need)
		snprintf(buf, len, "run as root or with CAP_PERFMON");
	else
		snprintf(buf, len,
			 "kernel.perf_event_paranoid is %d and %s needs %d or less: run 'sysctl "
			 "kernel.perf_event_paranoid=%d', or run as root or with %s",
			 paranoid, what, need, need,
			 paranoid >= 3 ? "CAP_SYS_ADMIN (level 3 ignores CAP_PERFMON)"
				       : "CAP_PERFMON");
}

static const char *target_name(const struct perf_session *p, unsigned int t, char *buf, size_t len)
{
	if (p->system_wide)
		snprintf(buf, len, "all CPUs");
	else
		snprintf(buf, len, "pid %d", (int)p->tids[t]);
	return buf;
}

/* Open event ev on every target and CPU; returns 0, or -errno with err filled. */
static int open_event(struct perf_session *p, unsigned int ev, struct ebs_error *err)
{
	struct perf_event_attr attr;
	unsigned int t, c;
	char tn[32];
	int fd, opened = 0;

	for (t = 0; t < p->nr_tids; t++) {
		for (c = 0; c < p->nr_cpus; c++) {
			int group = ev ? p->fds[fd_index(p, 0, t, c)] : -1;
			pid_t pid = p->system_wide ? -1 : p->tids[t];

			if (ev && group < 0)
				continue; /* the leader's thread went away */
			fill_attr(p, ev, p->build_id, &attr);
			fd = sys_perf_event_open(&attr, pid, p->cpus[c], group);
			if (fd == -EINVAL && ev == 0 && p->build_id) {
				/* kernels before 5.12 have no build_id bit */
				p->build_id = false;
				fill_attr(p, ev, false, &attr);
				fd = sys_perf_event_open(&attr, pid, p->cpus[c], group);
			}
			if (fd == -ESRCH && !p->system_wide && opened + t > 0)
				break; /* a thread of -p exited meanwhile: skip it */
			if (fd == -ESRCH && !p->system_wide)
				return sampler__gone(pid, err); /* the target exited: a zombie */
			if (fd < 0) {
				const char *reason = event_open_reason(fd);
				char hint[256] = "";

				if (fd == -EACCES || fd == -EPERM)
					permission_hint(hint, sizeof(hint), p, &p->events[ev]);
				if (!hint[0] && strcmp(reason, strerror(-fd)))
					ebs_strlcpy(hint, reason, sizeof(hint));
				if (p->cpus[c] < 0) /* a task's counter, on any CPU */
					return ebs_error__set(
						err, -fd, "cannot open event '%s' on %s: %s%s%s",
						p->events[ev].name,
						target_name(p, t, tn, sizeof(tn)), strerror(-fd),
						hint[0] ? ": " : "", hint);
				return ebs_error__set(
					err, -fd, "cannot open event '%s' on %s, cpu %d: %s%s%s",
					p->events[ev].name, target_name(p, t, tn, sizeof(tn)),
					p->cpus[c], strerror(-fd), hint[0] ? ": " : "", hint);
			}
			p->fds[fd_index(p, ev, t, c)] = fd;
			opened++;
		}
	}
	if (!opened)
		return ebs_error__set(err, ESRCH, "event '%s': no target left to open it on",
				      p->events[ev].name);
	return 0;
}

static void close_event(struct perf_session *p, unsigned int ev)
{
	unsigned int t, c;

	for (t = 0; t < p->nr_tids; t++)
		for (c = 0; c < p->nr_cpus; c++) {
			int *fd = &p->fds[fd_index(p, ev, t, c)];

			if (*fd >= 0)
				close(*fd);
			*fd = -1;
		}
}

/*
 * After a permission failure, try event ev user-space only, as perf does.
 * Only when that opens was the paranoid level the reason: then say so and
 * keep the reason for the EVENT record.  When it fails too, its error is the
 * more telling one (another user's process, say).  Returns 0 or -errno.
 */
static int fall_back_user(struct sampler *s, struct perf_session *p, unsigned int ev,
			  struct ebs_error *err)
{
	struct event_spec *e = &s->used[ev];
	int e2;

	close_event(p, ev);
	e->exclude_kernel = true;
	if (strlen(e->name) + 2 < sizeof(e->name))
		strcat(e->name, ":u");
	snprintf(s->why[ev], sizeof(s->why[ev]),
		 "kernel.perf_event_paranoid is %d: kernel code is not sampled", paranoid_level());
	e2 = open_event(p, ev, err);
	if (e2 && !(e->hardware && is_no_pmu(e2)))
		s->why[ev][0] = '\0';
	if (e2) /* no PMU either: the fall-back to cpu-clock:u says both reasons */
		return e2;
	ebs_warn(s->notice, s->notice_ctx, EBS_E_OK,
		 "event '%s' may not sample kernel code here (%s); sampling "
		 "'%s' instead",
		 s->opts->events[ev].name, s->why[ev], e->name);
	return 0;
}

static int setup_rings(struct perf_session *p, struct ebs_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (1 + (size_t)p->mmap_pages) * page;
	unsigned int ev, t, c;

	for (c = 0; c < p->nr_cpus; c++) {
		struct ring *r = &p->rings[c];

		r->fd = -1;
		r->cpu = p->cpus[c];
		for (ev = 0; ev < p->nr_events; ev++) {
			for (t = 0; t < p->nr_tids; t++) {
				int fd = p->fds[fd_index(p, ev, t, c)];
				u64 id;

				if (fd < 0)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0) {
					struct id_entry *e = calloc(1, sizeof(*e));

					if (!e)
						return ebs_error__set(err, ENOMEM, "out of memory");
					e->id = id;
					e->event = (u16)ev;
					HASH_ADD(hh, p->ids, id, sizeof(e->id), e);
					if (!e->hh.tbl) {
						free(e);
						return ebs_error__set(err, ENOMEM, "out of memory");
					}
				}
				if (r->fd < 0) {
					r->base = mmap(NULL, len, PROT_READ | PROT_WRITE,
						       MAP_SHARED, fd, 0);
					if (r->base == MAP_FAILED) {
						r->base = NULL;
						return ebs_error__set(
							err, errno,
							"cannot map a %zu KiB ring buffer for cpu %d: "
							"%s (see -m and "
							"/proc/sys/kernel/perf_event_mlock_kb)",
							len / 1024, r->cpu, strerror(errno));
					}
					r->fd = fd;
					r->data_size = len - page;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
					return ebs_error__set(err, errno,
							      "cannot share the ring of cpu %d: %s",
							      r->cpu, strerror(errno));
				}
			}
		}
	}
	return 0;
}

static void session_free(struct perf_session *p)
{
	struct id_entry *e, *tmp;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t i;

	if (!p)
		return;
	if (p->rings)
		for (i = 0; i < p->nr_cpus; i++)
			if (p->rings[i].base)
				munmap(p->rings[i].base, p->rings[i].data_size + page);
	if (p->fds)
		for (i = 0; i < p->nr_fds; i++)
			if (p->fds[i] >= 0)
				close(p->fds[i]);
	HASH_ITER(hh, p->ids, e, tmp) {
		HASH_DEL(p->ids, e);
		free(e);
	}
	free(p->fds);
	free(p->rings);
	free(p->bounce);
	free(p->pfd);
	free(p);
}

/*
 * A session for events[nr_events] (sampled every periods[i] events, or at
 * the options' frequency when periods is NULL) on s's targets, into s's
 * writer; nothing opened yet.  NULL when out of memory.
 */
static struct perf_session *session_new(const struct sampler *s, struct event_spec *events,
					unsigned int nr_events, const u64 *periods)
{
	struct perf_session *p = malloc(sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	memset(p, 0, offsetof(struct perf_session, out)); /* out: the converters' */
	p->events = events;
	p->nr_events = nr_events;
	p->periods = periods;
	p->freq = s->opts->freq;
	p->count_only = s->opts->count_only;
	p->call_graph = s->opts->call_graph;
	p->stack_user = s->opts->stack_user;
	p->regs_user = call_graph__regs(p->call_graph);
	p->tids = s->tids;
	p->nr_tids = s->nr_tids;
	p->cpus = s->cpus;
	p->nr_cpus = s->nr_cpus;
	p->system_wide = s->system_wide;
	p->enable_on_exec = s->enable_on_exec;
	p->mmap_pages = s->opts->mmap_pages;
	p->w = s->w;
	p->output = s->opts->output;
	p->build_id = true;
	p->ns = s->ns;
	p->nr_fds = (size_t)nr_events * p->nr_tids * p->nr_cpus;
	p->fds = malloc(p->nr_fds * sizeof(*p->fds));
	p->rings = calloc(p->nr_cpus, sizeof(*p->rings));
	p->bounce = malloc(PERF_RING_BOUNCE_SIZE);
	/* its rings, a watch's and the exits (perf_open sets them: the tracking has none) */
	p->pfd = calloc(2 * (size_t)p->nr_cpus + s->nr_exits, sizeof(*p->pfd));
	if (!p->fds || !p->rings || !p->bounce || !p->pfd) {
		free(p->fds);
		p->fds = NULL; /* nothing to close */
		session_free(p);
		return NULL;
	}
	if (ebs_debug_poison() >= 0) { /* tests: show bytes left unwritten */
		memset(p->out.bytes, ebs_debug_poison(), sizeof(p->out.bytes));
		memset(p->bounce, ebs_debug_poison(), PERF_RING_BOUNCE_SIZE);
	}
	for (i = 0; i < p->nr_fds; i++)
		p->fds[i] = -1;
	for (i = 0; i < p->nr_cpus; i++)
		p->rings[i].fd = -1; /* none mapped (setup_rings maps them) */
	return p;
}

static void perf_close(struct sampler *s)
{
	struct perf_session *p = s->priv;

	if (p)
		perf_tracking__close(p->watch);
	session_free(p);
	s->priv = NULL;
}

static struct perf_tracking *watch_open(const struct sampler *s);

static int perf_open(struct sampler *s, struct ebs_error *err)
{
	struct perf_session *p;
	unsigned int ev;
	int e;

	p = session_new(s, s->used, s->nr_events, s->period ? s->periods : NULL);
	if (!p)
		return ebs_error__set(err, ENOMEM, "out of memory");
	s->priv = p;
	p->exits = s->exits;
	p->nr_exits = s->nr_exits;
	for (ev = 0; ev < s->nr_events; ev++) {
		e = open_event(p, ev, err);
		if ((e == -EACCES || e == -EPERM) && !s->used[ev].exclude_kernel &&
		    !s->used[ev].exclude_user && !s->system_wide && !s->opts->no_fallback)
			e = fall_back_user(s, p, ev, err);
		if (e && s->used[ev].hardware && is_no_pmu(e) && !s->opts->no_fallback) {
			close_event(p, ev);
			sampler__fall_back(s, ev, e);
			e = open_event(p, ev, err);
		} else if (e && s->used[ev].hardware && is_no_pmu(e)) {
			ebs_error__set(
				err, -e,
				"event '%s' cannot be opened: %s (and --no-fallback was given)",
				s->used[ev].name, event_open_reason(e));
		}
		if (e)
			goto fail;
	}
	/* a counting session's counters write nothing: no rings */
	e = s->opts->count_only ? 0 : setup_rings(p, err);
	if (e)
		goto fail;
	for (ev = 0; ev < s->nr_events; ev++) {
		s->enc[ev].type = s->used[ev].type;
		s->enc[ev].config = s->used[ev].config;
	}
	/*
	 * The mappings of processes in other mount namespaces want reading
	 * while those run (their namespace, their files): a watch wakes the
	 * reader at each one.  Without it (it could not be opened) they are
	 * read with the rest, later.
	 */
	if (s->ns && !s->opts->count_only)
		p->watch = watch_open(s);
	return 0;

fail:
	perf_close(s);
	return e;
}

static void ioctl_all(struct perf_session *p, unsigned long req)
{
	size_t i;

	/* per counter: group ioctls would skip counters whose leader is gone */
	for (i = 0; i < p->nr_fds; i++)
		if (p->fds[i] >= 0)
			ioctl(p->fds[i], req, 0);
}

/*
 * Enable the counters, each group's members before its leader.  A member
 * enabled while its leader already runs is put on only when its group is
 * next scheduled in, and the kernel (6.18 seen) reschedules then only the
 * member's own PMU: task-clock or cpu-clock under a context-switches leader
 * (two software PMUs) would wait for the next context switch, which a
 * CPU's counters (-a) never have, and count nothing.  Enabled first, a
 * member goes on with its leader.  Per group, not per event, so that a
 * member's enabled time is ahead of its leader's by a few ioctls only.
 */
static void session_start(struct perf_session *p)
{
	unsigned int ev, t, c;

	if (p->enable_on_exec)
		return; /* exec enables them all at once */
	for (t = 0; t < p->nr_tids; t++)
		for (c = 0; c < p->nr_cpus; c++)
			for (ev = p->nr_events; ev-- > 0;) {
				int fd = p->fds[fd_index(p, ev, t, c)];

				if (fd >= 0)
					ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			}
}

static int perf_start(struct sampler *s, struct ebs_error *err)
{
	struct perf_session *p = s->priv;

	(void)err;
	if (p->watch)
		perf_tracking__start(p->watch);
	session_start(p);
	return 0;
}

static u16 event_of(struct perf_session *p, u64 id)
{
	struct id_entry *e;

	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	return e ? e->event : 0xffff;
}

/* The sample_id_all trailer of record h, which is at least that long. */
static const struct perf_rec_sample_id *trailer(const struct perf_event_header *h)
{
	return (const void *)((const u8 *)h + h->size - sizeof(struct perf_rec_sample_id));
}

/*
 * The record converters: one perf record into an ebs record in p->out,
 * handed to the writer; 0 without writing anything when the record is too
 * short for its layout.  Each zeroes its whole fixed part first, and
 * strings are followed by 8 zero bytes: no byte of an earlier record in
 * p->out (a COMM name, a build-id) may reach the file through a reserved
 * or unused field or the padding.
 */

/*
 * The optional parts of perf sample r, from its byte cur on, copied after
 * o's fixed part in ebs's layout (docs/format.md 7.1): the call chain as
 * it is; the user registers with their mask (none when the sample has no
 * user context); of the user stack only the dyn_size bytes in use.  false
 * when r is too short for what its attributes put in it.
 */
static bool convert_parts(struct perf_session *p, const struct perf_rec_sample *r, const u8 *cur,
			  struct ebs_rec_sample *o)
{
	const u8 *end = (const u8 *)r + r->header.size;
	struct ebs_sample_parts parts = {0};
	u64 nr, abi, size, dyn;
	unsigned int nregs;

	if (p->call_graph == CALL_GRAPH_NONE)
		return true;
#define TAKE(v)                                                                                    \
	do {                                                                                       \
		if (end - cur < 8)                                                                 \
			return false;                                                              \
		memcpy(&(v), cur, 8);                                                              \
		cur += 8;                                                                          \
	} while (0)
	TAKE(nr); /* PERF_SAMPLE_CALLCHAIN: u64 nr, u64 ips[nr] */
	if (nr > (u64)(end - cur) / 8 || nr > 8192)
		return false;
	parts.nr_callchain = nr; /* none with dwarf in user mode: no part */
	parts.callchain = (const u64 *)(const void *)cur;
	cur += nr * 8;
	if (p->events[o->event].exclude_user || !p->regs_user)
		goto done;
	TAKE(abi); /* PERF_SAMPLE_REGS_USER: u64 abi, u64 regs[weight(mask)] unless abi NONE */
	nregs = abi == PERF_SAMPLE_REGS_ABI_NONE ? 0
						 : (unsigned int)__builtin_popcountll(p->regs_user);
	if (nregs > (u64)(end - cur) / 8)
		return false;
	if (nregs) {
		parts.regs_abi = abi;
		parts.regs_mask = p->regs_user;
		parts.regs = (const u64 *)(const void *)cur;
	}
	cur += nregs * 8;
	if (!p->stack_user)
		goto done;
	TAKE(size); /* PERF_SAMPLE_STACK_USER: u64 size, data[size], u64 dyn_size if size */
	if (size > (u64)(end - cur) || (size && (u64)(end - cur) - size < 8))
		return false;
	dyn = 0;
	if (size)
		memcpy(&dyn, cur + size, 8);
	if (dyn > size)
		return false;
	parts.stack = cur; /* kept only with its registers: a stack without them is no use */
	parts.stack_dyn_size = dyn;
done:
#undef TAKE
	ebs_sample__set_parts(o, &parts);
	return true;
}

static int convert_sample(struct perf_session *p, const struct perf_rec_sample *r)
{
	struct ebs_rec_sample *o = &p->out.sample;
	size_t fixed = sizeof(*r) - (p->periods ? sizeof(r->period) : 0);
	u16 ev;

	/* PERF_SAMPLE_PERIOD only in frequency mode */
	if (r->header.size < fixed)
		return 0;
	ev = event_of(p, r->id);
	if (ev == 0xffff)
		return 0; /* not ours: cannot happen with one fd set */
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_SAMPLE;
	o->hdr.misc = (r->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) |
		      ((r->header.misc & PERF_RECORD_MISC_EXACT_IP) ? EBS_SAMPLE_EXACT_IP : 0);
	o->hdr.size = sizeof(*o);
	o->ip = r->ip;
	o->time = r->time;
	o->period = p->periods ? p->periods[ev] : r->period;
	o->pid = r->pid;
	o->tid = r->tid;
	o->cpu = r->cpu;
	o->event = ev;
	if (!convert_parts(p, r, (const u8 *)r + fixed, o))
		return 0;
	return ebs_writer__add(p->w, &o->hdr);
}

static int convert_mmap2(struct perf_session *p, const struct perf_rec_mmap2 *r)
{
	struct ebs_rec_mmap *o = (void *)p->out.bytes;
	const struct perf_rec_sample_id *sid;
	size_t name_len;
	int e;

	if (r->header.size < sizeof(*r) + sizeof(*sid))
		return 0;
	sid = trailer(&r->header);
	name_len = strnlen(r->filename, r->header.size - sizeof(*r) - sizeof(*sid));
	if (name_len > 4096 - 1)
		name_len = 4096 - 1;
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_MMAP;
	o->hdr.misc = r->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	o->time = sid->time;
	o->start = r->addr;
	o->len = r->len;
	o->pgoff = r->pgoff;
	o->pid = r->pid;
	o->tid = r->tid;
	if (r->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		o->build_id_size = r->build_id_size > 20 ? 20 : r->build_id_size;
		memcpy(o->build_id, r->build_id, o->build_id_size);
		o->hdr.misc |= EBS_MMAP_BUILD_ID;
	} else {
		o->maj = r->maj;
		o->min = r->min;
		o->ino = r->ino;
		o->ino_generation = r->ino_generation;
	}
	o->prot = r->prot;
	o->flags = r->flags;
	memcpy(o->filename, r->filename, name_len);
	memset(o->filename + name_len, 0, 8);
	o->hdr.size = (u32)ALIGN8(sizeof(*o) + name_len + 1);
	/* a process elsewhere: now, while it runs (by the watch's copy, when there is one) */
	e = p->watch ? 0 : ns_tracker__mmap(p->ns, o);
	return e || p->watch_only ? e : ebs_writer__add(p->w, &o->hdr);
}

static int convert_comm(struct perf_session *p, const struct perf_rec_comm *r)
{
	struct ebs_rec_comm *o = (void *)p->out.bytes;
	const struct perf_rec_sample_id *sid;
	size_t len;

	if (r->header.size < sizeof(*r) + sizeof(*sid))
		return 0;
	sid = trailer(&r->header);
	len = strnlen(r->comm, r->header.size - sizeof(*r) - sizeof(*sid));
	if (len > 255)
		len = 255;
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_COMM;
	o->hdr.misc = (r->header.misc & PERF_RECORD_MISC_COMM_EXEC) ? EBS_COMM_EXEC : 0;
	o->time = sid->time;
	o->pid = r->pid;
	o->tid = r->tid;
	memcpy(o->comm, r->comm, len);
	memset(o->comm + len, 0, 8);
	o->hdr.size = (u32)ALIGN8(sizeof(*o) + len + 1);
	return ebs_writer__add(p->w, &o->hdr);
}

/* FORK and EXIT; a kernel thread's FORK brings its name from /proc (KTHREADD_PID). */
static int convert_task(struct perf_session *p, const struct perf_rec_task *r)
{
	struct ebs_rec_task *o = (void *)p->out.bytes;
	bool fork = r->header.type == PERF_RECORD_FORK;
	int e;

	if (r->header.size < sizeof(*r))
		return 0;
	memset(o, 0, sizeof(*o));
	o->hdr.type = fork ? EBS_REC_FORK : EBS_REC_EXIT;
	o->hdr.size = sizeof(*o);
	o->time = r->time;
	o->pid = r->pid;
	o->ppid = r->ppid;
	o->tid = r->tid;
	o->ptid = r->ptid;
	e = ebs_writer__add(p->w, &o->hdr);
	if (e || !fork || r->pid == r->ppid || r->ppid != KTHREADD_PID)
		return e;
	return synth_comm(p->w, (pid_t)r->pid, (pid_t)r->tid, r->time);
}

/* A LOST record of lost records of event ev (0xffff: the ring's, any event). */
static int write_lost(struct perf_session *p, const struct perf_rec_sample_id *sid, u64 lost,
		      u16 ev)
{
	struct ebs_rec_lost *o = (void *)p->out.bytes;

	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_LOST;
	o->hdr.size = sizeof(*o);
	o->time = sid->time;
	o->cpu = sid->cpu;
	o->event = ev;
	o->lost = lost;
	return ebs_writer__add(p->w, &o->hdr);
}

/* A full ring: its count covers every event sharing the ring. */
static int convert_lost(struct perf_session *p, const struct perf_rec_lost *r)
{
	if (r->header.size < sizeof(*r) + sizeof(struct perf_rec_sample_id))
		return 0;
	return write_lost(p, trailer(&r->header), r->lost,
			  p->nr_events == 1 && !p->tracking_only ? 0 : 0xffff);
}

/* Samples one event's PMU could not deliver. */
static int convert_lost_samples(struct perf_session *p, const struct perf_rec_lost_samples *r)
{
	const struct perf_rec_sample_id *sid;

	if (r->header.size < sizeof(*r) + sizeof(*sid))
		return 0;
	sid = trailer(&r->header);
	return write_lost(p, sid, r->lost, event_of(p, sid->id));
}

static int convert_throttle(struct perf_session *p, const struct perf_rec_throttle *r)
{
	struct ebs_rec_throttle *o = (void *)p->out.bytes;
	const struct perf_rec_sample_id *sid;
	u16 ev;

	if (r->header.size < sizeof(*r) + sizeof(*sid))
		return 0;
	sid = trailer(&r->header);
	ev = event_of(p, r->id);
	if (ev == 0xffff)
		ev = 0;
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_THROTTLE;
	o->hdr.misc = r->header.type == PERF_RECORD_UNTHROTTLE ? EBS_THROTTLE_END : 0;
	o->hdr.size = sizeof(*o);
	o->time = r->time;
	o->cpu = sid->cpu;
	o->event = ev;
	return ebs_writer__add(p->w, &o->hdr);
}

/* Convert one perf record, by its type; the records ebs does not keep are skipped. */
static int convert(void *ctx, const struct perf_event_header *h)
{
	struct perf_session *p = ctx;
	const void *r = h;

	if (p->watch_only)
		return h->type == PERF_RECORD_MMAP2 ? convert_mmap2(p, r) : 0;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return convert_sample(p, r);
	case PERF_RECORD_MMAP2:
		return convert_mmap2(p, r);
	case PERF_RECORD_COMM:
		return convert_comm(p, r);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return convert_task(p, r);
	case PERF_RECORD_LOST:
		return convert_lost(p, r);
	case PERF_RECORD_LOST_SAMPLES:
		return convert_lost_samples(p, r);
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		return convert_throttle(p, r);
	default:
		return 0;
	}
}

static int drain_all(struct perf_session *p, struct ebs_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int c;
	int e;

	for (c = 0; c < p->nr_cpus; c++) {
		struct ring *r = &p->rings[c];

		if (!r->base)
			continue;
		e = perf_ring__drain(r->base, (const u8 *)r->base + page, r->data_size, p->bounce,
				     convert, p);
		if (e == -EBADMSG)
			return ebs_error__set(err, EBADMSG,
					      "cpu %d: corrupt record in the ring buffer", r->cpu);
		if (e)
			return ebs_error__set(err, -e, "%s: write failed: %s",
					      ebs_output_name(p->output), strerror(-e));
	}
	return 0;
}

/* The rings of q still open into pfd from n on; the new n. */
static unsigned int poll_set(const struct perf_session *q, struct pollfd *pfd, unsigned int n)
{
	unsigned int c;

	for (c = 0; c < q->nr_cpus; c++) {
		if (q->rings[c].fd < 0 || q->rings[c].hup)
			continue;
		pfd[n].fd = q->rings[c].fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	return n;
}

/* The rings of q that poll found hung up (their targets gone): no more polled. */
static void poll_hup(struct perf_session *q, const struct pollfd *pfd, unsigned int n)
{
	unsigned int c, i;

	for (c = 0; c < n; c++) {
		if (!(pfd[c].revents & (POLLHUP | POLLERR)))
			continue;
		for (i = 0; i < q->nr_cpus; i++)
			if (q->rings[i].fd == pfd[c].fd)
				q->rings[i].hup = true;
	}
}

/* The exits of p not yet seen into pfd from n on; the new n. */
static unsigned int poll_exits(const struct perf_session *p, struct pollfd *pfd, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < p->nr_exits; i++) {
		if (p->exits[i].gone)
			continue;
		pfd[n].fd = p->exits[i].fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	return n;
}

/* The exits that poll found readable (their processes exited): no more polled. */
static void poll_gone(struct perf_session *p, const struct pollfd *pfd, unsigned int n)
{
	unsigned int c, i;

	for (c = 0; c < n; c++) {
		if (!pfd[c].revents)
			continue;
		for (i = 0; i < p->nr_exits; i++)
			if (p->exits[i].fd == pfd[c].fd)
				p->exits[i].gone = true;
	}
}

static struct perf_session *watch_session(const struct perf_session *p);

/*
 * Wait up to timeout_ms for data (or for a mapping, in p's watch, or for
 * an exit), then move it into the writer, the watch's mappings first: 0
 * or -errno.
 */
static int session_read(struct perf_session *p, int timeout_ms, struct ebs_error *err)
{
	struct perf_session *w = watch_session(p);
	struct pollfd *pfd = p->pfd;
	unsigned int n = poll_set(p, pfd, 0), nw = n, nx;
	int e;

	if (w)
		nw = poll_set(w, pfd, n);
	nx = poll_exits(p, pfd, nw);
	if (nx) {
		/* signals (SIGINT, SIGCHLD) interrupt this: the caller checks its flags */
		poll(pfd, nx, timeout_ms);
		poll_hup(p, pfd, n);
		if (w)
			poll_hup(w, pfd + n, nw - n);
		poll_gone(p, pfd + nw, nx - nw);
	} else if (timeout_ms > 0) {
		/*
		 * nothing to wait for (a counting session of every CPU, or its
		 * targets gone): a sleep, in poll all the same (the tests' sign
		 * that the counters are open: tests/lib.sh's wait_polling)
		 */
		poll(NULL, 0, timeout_ms);
	}
	if (w && (e = drain_all(w, err)))
		return e;
	return drain_all(p, err);
}

static int perf_read(struct sampler *s, int timeout_ms, struct ebs_error *err)
{
	return session_read(s->priv, timeout_ms, err);
}

/*
 * Add a counter's reading to event ev's total, by counting's one rule
 * (count/rule.h); pmu: the session's group (all its events, per thread
 * and CPU) holds a PMU event.
 */
static void add_scaled(struct sampler *s, unsigned int ev, bool pmu, u64 value, u64 enabled,
		       u64 running)
{
	struct count_total *t = &s->totals[ev];

	count_total__add(t, pmu, value, enabled, running);
	s->scaled[ev] = t->scaled;
	s->multiplexed |= t->multiplexed;
}

/*
 * The counters' own totals: what each counter counted over the run, exited
 * children included (the kernel folds an inherited counter into its parent
 * when the child exits).  With write, one COUNT record per counter, with
 * its CPU and target thread, so that a report can set the samples against
 * what was counted and tell multiplexing from a thread that ran on another
 * CPU; without, the totals so far only (a running child's counts join when
 * it exits).
 */
static int sum_counts(struct sampler *s, struct perf_session *p, bool write)
{
	unsigned int ev, t, c;
	bool pmu = false;
	int err;

	for (ev = 0; ev < s->nr_events; ev++)
		pmu |= count_event_on_pmu(s->used[ev].type, s->used[ev].config, 0);
	for (ev = 0; ev < s->nr_events; ev++) {
		s->counted[ev] = 0;
		s->scaled[ev] = 0;
		s->running[ev] = 0;
		memset(&s->totals[ev], 0, sizeof(s->totals[ev]));
		for (t = 0; t < s->nr_tids; t++) {
			/*
			 * A thread's counters, one per CPU, are each enabled for
			 * all of its time and run while it is on their CPU: the
			 * thread was multiplexed only when their running times add
			 * up to less than that (count/rule.h's count_thread).
			 */
			struct count_thread th = {0};

			for (c = 0; c < s->nr_cpus; c++) {
				int fd = p->fds[fd_index(p, ev, t, c)];
				struct ebs_rec_count rec = {0};
				u64 v[3];

				if (fd < 0 || read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
					continue;
				rec.hdr.type = EBS_REC_COUNT;
				rec.hdr.size = sizeof(rec);
				rec.time = ebs_clock_ns();
				rec.value = v[0];
				rec.time_enabled = v[1];
				rec.time_running = v[2];
				rec.cpu = s->cpus[c] < 0 ? 0xffffffff : (u32)s->cpus[c];
				rec.tid = s->system_wide ? 0 : (u32)s->tids[t];
				rec.event = (u16)ev;
				s->counted[ev] += rec.value;
				s->running[ev] += v[2];
				if (s->system_wide) { /* one counter per CPU, each its own */
					add_scaled(s, ev, pmu, v[0], v[1], v[2]);
				} else {
					count_thread_add(&th, v[0], v[1], v[2]);
				}
				err = write ? ebs_writer__add(s->w, &rec.hdr) : 0;
				if (err)
					return err;
			}
			if (!s->system_wide)
				add_scaled(s, ev, pmu, th.value, th.enabled, th.running);
		}
	}
	s->have_counts = true;
	return 0;
}

/* Disable the counters and drain what is left in the rings. */
static int session_stop(struct perf_session *p, struct ebs_error *err)
{
	ioctl_all(p, PERF_EVENT_IOC_DISABLE);
	return drain_all(p, err);
}

static int perf_stop(struct sampler *s, struct ebs_error *err)
{
	struct perf_session *p = s->priv;
	int e = 0;

	if (p->watch)
		e = perf_tracking__stop(p->watch, err);
	if (!e)
		e = session_stop(p, err);
	if (!e && (e = sum_counts(s, p, true)))
		ebs_error__set(err, -e, "%s: write failed: %s", ebs_output_name(s->opts->output),
			       strerror(-e));
	return e;
}

/* The counters' totals so far, into s->counted, scaled and running; no record written. */
static int perf_peek(struct sampler *s)
{
	return sum_counts(s, s->priv, false);
}

const struct sampler_backend perf_backend = {
	.name = "perf",
	.open = perf_open,
	.start = perf_start,
	.read = perf_read,
	.peek = perf_peek,
	.stop = perf_stop,
	.close = perf_close,
};

/* The tracking session: a perf session of one dummy event, which never samples. */
struct perf_tracking {
	struct event_spec dummy;
	u64 period; /* 1: a dummy never samples */
	struct perf_session *p;
};

/* A tracking session, or (watch) a watch of mappings: backend.h, perf_session.watch_only. */
static struct perf_tracking *tracking_open(const struct sampler *s, bool watch,
					   struct ebs_error *err)
{
	struct perf_tracking *t = calloc(1, sizeof(*t));
	int e;

	if (!t || !(t->p = session_new(s, &t->dummy, 1, &t->period))) {
		free(t);
		ebs_error__set(err, ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	ebs_strlcpy(t->dummy.name, "dummy", sizeof(t->dummy.name));
	t->dummy.type = PERF_TYPE_SOFTWARE;
	t->dummy.config = PERF_COUNT_SW_DUMMY;
	t->period = 1;
	t->p->count_only = false;
	t->p->tracking_only = true;
	t->p->watch_only = watch;
	e = open_event(t->p, 0, err);
	if (!e)
		e = setup_rings(t->p, err);
	if (e) {
		perf_tracking__close(t);
		errno = -e;
		return NULL;
	}
	return t;
}

struct perf_tracking *perf_tracking__open(const struct sampler *s, struct ebs_error *err)
{
	return tracking_open(s, false, err);
}

/* The watch of the perf backend's session, or NULL: its failure costs only promptness. */
static struct perf_tracking *watch_open(const struct sampler *s)
{
	struct ebs_error why = {0};

	return tracking_open(s, true, &why);
}

static struct perf_session *watch_session(const struct perf_session *p)
{
	return p->watch ? p->watch->p : NULL;
}

void perf_tracking__start(struct perf_tracking *t)
{
	session_start(t->p);
}

int perf_tracking__read(struct perf_tracking *t, struct ebs_error *err)
{
	return session_read(t->p, 0, err);
}

int perf_tracking__stop(struct perf_tracking *t, struct ebs_error *err)
{
	return session_stop(t->p, err);
}

void perf_tracking__close(struct perf_tracking *t)
{
	if (!t)
		return;
	session_free(t->p);
	free(t);
}
