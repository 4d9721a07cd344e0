// SPDX-License-Identifier: MIT
/*
 * record.c - one `ebs record` session: targets, the launched command,
 * signals, the file header, the collection loop and the finish.
 *
 * The command is forked first and waits on a pipe; the counters are opened
 * on it (enable_on_exec: nothing of ebs is sampled), the header is written,
 * and only then may it exec.  A second, close-on-exec pipe reports a failed
 * exec back.  The command dies with ebs (PR_SET_PDEATHSIG): killed ebs
 * leaves no command running unprofiled.
 *
 * Signals that would end ebs (handled[]) stop collection instead: the
 * signal is passed on to the command, collection goes on until it exits,
 * and the file is finished; a second one kills the command.  SIGPIPE and
 * SIGXFSZ that ebs's own writes raise are not requests to stop: the failed
 * write says what happened (and the part recorded is kept, writer.c).
 * SIGINT, SIGQUIT and SIGTERM are always caught and the command gets them
 * at their default, as before (a non-interactive shell starts background
 * commands with SIGINT and SIGQUIT ignored: `kill -INT` of such an ebs
 * still stops it); any other of them ignored when ebs started (nohup)
 * stays ignored, by ebs and by the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <ebs/ebs_abi.h>
#include "sampler/backend.h"

/* SIGCHLD first, then the signals that stop a recording. */
static const int handled[] = {SIGCHLD, SIGINT,	SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
			      SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ, SIGXCPU};
#define NR_HANDLED (sizeof(handled) / sizeof(handled[0]))

static volatile sig_atomic_t got_signal; /* the first stop signal */
static volatile sig_atomic_t nr_signals;
static volatile sig_atomic_t got_child;
static pid_t self_pid;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGCHLD) {
		got_child = 1;
		return;
	}
	/* raised by a write of ours: the write fails too, and says why */
	if ((sig == SIGPIPE || sig == SIGXFSZ) && si && si->si_code == SI_USER &&
	    si->si_pid == self_pid)
		return;
	if (!got_signal)
		got_signal = sig;
	nr_signals++;
}

/* caught by ebs whatever they were, default in the command */
static bool always_caught(int sig)
{
	return sig == SIGCHLD || sig == SIGINT || sig == SIGQUIT || sig == SIGTERM;
}

static bool was_ignored(const struct sigaction *old)
{
	return !(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_IGN;
}

static void install_handlers(struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	self_pid = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal; /* no SA_RESTART: poll returns EINTR */
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_HANDLED; i++) {
		sigaction(handled[i], NULL, &old[i]);
		if (always_caught(handled[i]) || !was_ignored(&old[i]))
			sigaction(handled[i], &sa, NULL);
	}
}

static void restore_handlers(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < NR_HANDLED; i++)
		sigaction(handled[i], &old[i], NULL);
}

/* In the command, before exec: what it would have got without ebs (see above). */
static void child_handlers(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < NR_HANDLED; i++)
		if (always_caught(handled[i]) || !was_ignored(&old[i]))
			signal(handled[i], SIG_DFL);
}

/* "SIGHUP" */
static const char *sig_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* Online CPUs from /sys; falls back to 0..nprocs-1. */
static int online_cpus(int **out)
{
	char *buf = NULL, *p;
	int *cpus, n = 0, cap = (int)sysconf(_SC_NPROCESSORS_CONF);

	if (cap < 1)
		cap = 1;
	if (cap > SAMPLER_MAX_CPUS)
		cap = SAMPLER_MAX_CPUS;
	cpus = calloc((size_t)cap, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	if (ebs_read_file("/sys/devices/system/cpu/online", &buf) > 0) {
		for (p = buf; *p && n < cap;) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (; a <= b && n < cap; a++)
				cpus[n++] = (int)a;
			p = *end == ',' ? end + 1 : end;
			if (*p == '\n')
				break;
		}
	}
	free(buf);
	if (n == 0)
		for (n = 0; n < cap; n++)
			cpus[n] = n;
	*out = cpus;
	return n;
}

static int add_tid(struct sampler *s, pid_t tid)
{
	pid_t *n = realloc(s->tids, (s->nr_tids + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->tids = n;
	s->tids[s->nr_tids++] = tid;
	return 0;
}

int sampler__gone(pid_t pid, struct ebs_error *err)
{
	return ebs_error__set(err, ESRCH,
			      "pid %d: no such process (it exited before ebs could attach to it)",
			      (int)pid);
}

/* Every thread of pid, from /proc/PID/task. */
static int add_threads(struct sampler *s, pid_t pid, struct ebs_error *err)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int e = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return sampler__gone(pid, err);
	while (!e && (de = readdir(dir)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			e = add_tid(s, (pid_t)atoi(de->d_name));
	closedir(dir);
	if (e)
		return ebs_error__set(err, -e, "out of memory");
	return 0;
}

static void write_meta(struct sampler *s)
{
	const struct record_opts *o = s->opts;
	struct utsname u;
	char buf[256], *cpuinfo = NULL, *model;
	unsigned int i;
	size_t len;

	if (uname(&u) == 0) {
		ebs_writer__meta(s->w, EBS_META_HOSTNAME, u.nodename);
		ebs_writer__meta(s->w, EBS_META_OS_RELEASE, u.release);
		ebs_writer__meta(s->w, EBS_META_ARCH, u.machine);
	}
	if (o->kernel_stext && *o->kernel_stext)
		ebs_writer__meta(s->w, EBS_META_KERNEL_STEXT, o->kernel_stext);
	ebs_writer__meta(s->w, EBS_META_CMDLINE, o->cmdline ? o->cmdline : "");
	if (ebs_read_file("/proc/cpuinfo", &cpuinfo) > 0 &&
	    (model = strstr(cpuinfo, "model name"))) {
		model = strchr(model, ':');
		if (model) {
			model += 2;
			model[strcspn(model, "\n")] = '\0';
			ebs_writer__meta(s->w, EBS_META_CPU_DESC, model);
		}
	}
	free(cpuinfo);
	snprintf(buf, sizeof(buf), "%u", s->nr_cpus);
	ebs_writer__meta(s->w, EBS_META_NR_CPUS, buf);
	ebs_writer__meta(s->w, EBS_META_EBS_VERSION, EBS_VERSION);
	if (o->system_wide) {
		ebs_writer__meta(s->w, EBS_META_TARGET, "system-wide");
	} else if (o->nr_pids) {
		len = (size_t)snprintf(buf, sizeof(buf), "pid");
		for (i = 0; i < o->nr_pids && len < sizeof(buf); i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? "," : " ",
						(int)o->pids[i]);
		ebs_writer__meta(s->w, EBS_META_TARGET, buf);
	} else {
		ebs_writer__meta(s->w, EBS_META_TARGET, "cmd");
	}
	if (s->backend == &kmod_backend) {
		snprintf(buf, sizeof(buf), "kmod (%s)",
			 o->kmod_mode == EBS_MODE_MSR ? "msr" : "perf-kernel");
		ebs_writer__meta(s->w, EBS_META_BACKEND, buf);
	} else {
		ebs_writer__meta(s->w, EBS_META_BACKEND, s->backend->name);
	}
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_PAGESIZE));
	ebs_writer__meta(s->w, EBS_META_PAGE_SIZE, buf);
	if (o->call_graph != CALL_GRAPH_NONE && !o->count_only) {
		call_graph__format(o->call_graph, o->stack_user, buf, sizeof(buf));
		ebs_writer__meta(s->w, EBS_META_CALL_GRAPH, buf);
	}
}

void sampler__fall_back(struct sampler *s, unsigned int ev, int why)
{
	struct event_spec *e = &s->used[ev];
	const char *mod = e->exclude_kernel ? ":u" : e->exclude_user ? ":k" : "";
	char user_only[sizeof(s->why[ev])];

	/* the paranoid level's part, where :u came from it (fall_back_user) */
	ebs_strlcpy(user_only, s->why[ev], sizeof(user_only));
	/* the file's reason in the notice's order: why not the event, then why :u */
	ebs_strlcpy(s->why[ev], event_open_reason(why), sizeof(s->why[ev]));
	if (user_only[0]) {
		size_t len = strlen(s->why[ev]);

		snprintf(s->why[ev] + len, sizeof(s->why[ev]) - len, "; %s", user_only);
	}
	snprintf(e->name, sizeof(e->name), "cpu-clock%s", mod);
	e->type = PERF_TYPE_SOFTWARE;
	e->config = PERF_COUNT_SW_CPU_CLOCK;
	e->hardware = false;
	/* the event as asked (not the :u retried), why it cannot be, then the :u's reason */
	ebs_warn(s->notice, s->notice_ctx, EBS_E_OK,
		 "event '%s' cannot be opened: %s; sampling '%s' instead%s%s%s",
		 s->opts->events[ev].name, event_open_reason(why), e->name,
		 user_only[0] ? " (" : "", user_only, user_only[0] ? ")" : "");
}

int sampler__write_events(struct sampler *s)
{
	const struct record_opts *o = s->opts;
	unsigned int i;
	int err;

	for (i = 0; i < s->nr_events; i++) {
		const struct event_spec *u = &s->used[i];
		struct ebs_rec_event ev = {0};

		ev.group = 0;
		ev.type = s->enc[i].type;
		ev.config = s->enc[i].config;
		ev.config1 = s->enc[i].config1;
		ev.flags = (s->period || o->count_only ? 0 : EBS_EVF_FREQ) |
			   (s->why[i][0] ? EBS_EVF_FALLBACK : 0) |
			   (u->exclude_user ? EBS_EVF_EXCLUDE_USER : 0) |
			   (u->exclude_kernel ? EBS_EVF_EXCLUDE_KERNEL : 0) |
			   (i == 0 ? EBS_EVF_GROUP_LEADER : 0) |
			   (u->hardware ? EBS_EVF_HARDWARE : 0);
		ev.sample_period = s->period ? s->periods[i] : 0;
		ev.sample_freq = s->period || o->count_only ? 0 : o->freq;
		err = ebs_writer__event(s->w, &ev, o->events[i].name, u->name, s->why[i]);
		if (err)
			return err;
	}
	return 0;
}

/* A copy of our own vdso: the same kernel gives every process the same one. */
static void write_vdso(struct sampler *s)
{
	const void *image;
	size_t size;

	if (!ebs_own_vdso(&image, &size))
		ebs_writer__dso_image(s->w, "[vdso]", image, size, NULL, 0);
}

/*
 * Fork the command, stopped before exec until go_fd is written.  err_fd
 * (close-on-exec) receives errno if exec fails.
 */
static pid_t spawn(const struct record_opts *o, const struct sigaction *old, int *go_fd,
		   int *err_fd, struct ebs_error *err)
{
	int go[2], ex[2];
	pid_t pid, parent = getpid();

	if (pipe2(go, O_CLOEXEC) < 0)
		return ebs_error__set(err, errno, "pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return ebs_error__set(err, errno, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return ebs_error__set(err, errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		ssize_t n;
		char c;
		int e;

		close(go[1]);
		close(ex[0]);
		child_handlers(old);
		/*
		 * Die with ebs: kill -9 of ebs must not leave the command running
		 * unprofiled.  (Set-user-ID programs lose this at exec; a parent
		 * already gone before prctl is caught by getppid.)
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		while ((n = read(go[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(127); /* ebs gave up before exec */
		if ((o->child_stdout > 0 && dup2(o->child_stdout, STDOUT_FILENO) < 0) ||
		    (o->child_stdin > 0 && dup2(o->child_stdin, STDIN_FILENO) < 0) ||
		    (o->child_stderr > 0 && dup2(o->child_stderr, STDERR_FILENO) < 0))
			_exit(127);
		execvp(o->argv[0], o->argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	*go_fd = go[1];
	*err_fd = ex[0];
	return pid;
}

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* A process that exited but was not reaped yet (a zombie) counts as gone. */
static bool pid_alive(pid_t pid)
{
	char path[64], *stat = NULL, *paren;
	bool alive;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ebs_read_file(path, &stat) < 0)
		return false;
	paren = strrchr(stat, ')'); /* the name may contain anything */
	alive = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
	free(stat);
	return alive;
}

static bool any_pid_alive(const struct record_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_pids; i++)
		if (pid_alive(o->pids[i]))
			return true;
	return false;
}

/*
 * cpu-clock and task-clock sample from an hrtimer, which fires late by the
 * interrupt latency, so they deliver fewer samples than count / period even
 * when nothing is lost: no "undelivered" estimate for them.
 */
static bool any_clock_event(const struct sampler *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		if (event_spec__is_clock(&s->used[i]))
			return true;
	return false;
}

/*
 * The kernel refuses a frequency above kernel.perf_event_max_sample_rate
 * (EINVAL).  Like perf, lower it to the limit and say so.
 */
static void cap_frequency(struct record_opts *o)
{
	char *val = NULL;
	long max = 0;

	if (!o->freq || ebs_read_file("/proc/sys/kernel/perf_event_max_sample_rate", &val) < 0)
		return;
	max = atol(val);
	free(val);
	if (max > 0 && o->freq > (u64)max) {
		ebs_warn(o->notice, o->notice_ctx, EBS_E_OK,
			 "-F %llu is above kernel.perf_event_max_sample_rate; "
			 "sampling at %ld Hz instead",
			 (unsigned long long)o->freq, max);
		o->freq = (u64)max;
	}
}

/*
 * A counting session read in memory (count/session.c: ebs stat, monitor,
 * calibrate's counting passes) on a command or processes, through
 * perf_event_open: its counters are the tasks', one per event and thread
 * on "CPU" -1 (inherited by their children, read at the end and at -I's
 * ticks), as perf stat opens them, not one per CPU as a recording's,
 * whose rings a counting session has no use for.  The counts are the same
 * sums (a thread's per-CPU counters add up to what its one counter
 * counts); there are fewer counters to open, enable, read and close.
 */
static bool per_task_count(const struct record_opts *o, bool sink)
{
	return sink && o->count_only && !o->system_wide && o->backend == BACKEND_PERF;
}

/*
 * s's exits (backend.h): a pidfd of the command, or of each of -p's
 * processes.  One that cannot be had (no pidfd_open before Linux 5.3, a
 * thread's id given to -p, no memory) is left out: its exit is seen at
 * the reader's next timeout or signal, as before.
 */
static void open_exits(struct sampler *s, const struct record_opts *o, pid_t child)
{
	unsigned int n = child > 0 ? 1 : o->nr_pids, i;

	s->exits = n ? calloc(n, sizeof(*s->exits)) : NULL;
	for (i = 0; s->exits && i < n; i++) {
		int fd = (int)syscall(SYS_pidfd_open, child > 0 ? child : o->pids[i], 0);

		if (fd >= 0)
			s->exits[s->nr_exits++].fd = fd;
	}
}

static void close_exits(struct sampler *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_exits; i++)
		close(s->exits[i].fd);
	free(s->exits);
	s->exits = NULL;
	s->nr_exits = 0;
}

int ebs_record(const struct record_opts *opts, struct record_result *res, struct ebs_error *err)
{
	struct record_opts copy = *opts;
	const struct record_opts *o = &copy;
	struct sampler s = {0};
	struct sigaction old[NR_HANDLED];
	int go_fd = -1, exec_fd = -1, e, n, status = 0, exit_status = -1;
	pid_t child = -1;
	bool child_done = false, stopping = false, collecting = false, killed = false;
	char sn[32];
	struct rusage ru;
	unsigned int i;
	u64 t0, t_start, t_exec = 0, t_base, next_tick;
	bool ticking, sink;

	memset(res, 0, sizeof(*res));
	if (!copy.output)
		copy.output = "(the counts)";
	cap_frequency(&copy);
	s.opts = o;
	s.notice = o->notice;
	s.notice_ctx = o->notice_ctx;
	s.backend = o->backend == BACKEND_KMOD ? &kmod_backend : &perf_backend;
	s.period = o->count_only ? 0 : o->periods[0] ? o->periods[0] : o->period;
	for (i = 0; s.period && i < o->nr_events; i++)
		s.periods[i] = o->periods[i] ? o->periods[i] : s.period;
	s.nr_events = o->nr_events;
	memcpy(s.used, o->events, sizeof(s.used[0]) * o->nr_events);
	s.system_wide = o->system_wide;
	/* no output: a counting session read in memory (count/session.c), no file */
	sink = !(o->output_fd > 0 || opts->output) && !o->tap;
	if (per_task_count(o, sink)) {
		n = (s.cpus = malloc(sizeof(*s.cpus))) ? 1 : -ENOMEM;
		if (n > 0)
			s.cpus[0] = -1;
	} else {
		n = online_cpus(&s.cpus);
	}
	if (n < 0)
		return ebs_error__set(err, -n, "out of memory");
	s.nr_cpus = (unsigned int)n;

	ticking = o->interval_ms && o->on_interval && s.backend->peek;
	got_signal = nr_signals = got_child = 0;
	install_handlers(old);

	if (o->system_wide) {
		e = add_tid(&s, -1);
	} else if (o->nr_pids) {
		for (i = 0, e = 0; i < o->nr_pids && !e; i++)
			e = add_threads(&s, o->pids[i], err);
	} else {
		child = spawn(o, old, &go_fd, &exec_fd, err);
		e = child < 0 ? child : add_tid(&s, child);
		s.enable_on_exec = true;
	}
	if (e) {
		if (e == -ENOMEM)
			ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (o->system_wide && o->argv) {
		child = spawn(o, old, &go_fd, &exec_fd, err);
		if (child < 0) {
			e = child;
			goto out;
		}
	}
	open_exits(&s, o, child);

	s.w = o->output_fd > 0 ? ebs_writer__create_fd(o->output_fd, o->output, err)
	      : opts->output   ? ebs_writer__create(o->output, err)
			       : ebs_writer__create_sink(o->output, err);
	if (!s.w) {
		e = err->err;
		goto out;
	}
	if (o->tap)
		ebs_writer__set_tap(s.w, o->tap, o->tap_ctx);
	/* counting sessions read no mappings; no_ns: no namespaces asked */
	if (!o->count_only && !o->no_ns && !(s.ns = ns_tracker__new(o, s.w))) {
		e = ebs_error__set(err, ENOMEM, "out of memory");
		goto out;
	}
	e = s.backend->open(&s, err);
	if (e)
		goto out;
	/*
	 * A sink (a counting session's: ebs stat, monitor) keeps nothing, and
	 * no tap reads it: no header metadata (/proc/cpuinfo), no vdso image
	 * (/proc/self/maps), no walk of /proc (-a, -p) for it to throw away,
	 * which ebs stat -r paid on every run and ebs monitor -a at its start.
	 */
	if (!sink) {
		write_meta(&s);
		write_vdso(&s);
	}
	e = sampler__write_events(&s);
	for (i = 0; !e && i < o->nr_calib; i++)
		e = ebs_writer__calibration(s.w, &o->calib[i]);
	if (e) {
		ebs_error__set(err, -e, "%s: cannot write the header: %s", o->output, strerror(-e));
		goto out;
	}
	t0 = ebs_clock_ns();
	e = ebs_writer__begin_data(s.w, ebs_realtime_ns(), t0);
	if (!e && o->system_wide && !sink)
		e = synth_all_processes(s.w, s.ns, t0);
	for (i = 0; !e && !sink && i < o->nr_pids; i++)
		e = synth_process(s.w, s.ns, o->pids[i], t0);
	if (e) {
		ebs_error__set(err, -e, "%s: write failed: %s", ebs_output_name(o->output),
			       strerror(-e));
		goto out;
	}
	e = s.backend->start(&s, err);
	if (e)
		goto out;
	t_start = ebs_clock_ns(); /* after the walk of /proc (-a, -p), which no counter saw */

	if (child > 0) {
		int exec_errno = 0;

		/*
		 * let it exec, then learn whether exec worked; the clock read
		 * first, as the command may run (and end) before this thread
		 * runs again
		 */
		t_exec = ebs_clock_ns();
		if (write(go_fd, "g", 1) != 1) {
			e = ebs_error__set(err, errno, "cannot start '%s': %s", o->argv[0],
					   strerror(errno));
			goto out;
		}
		close(go_fd);
		go_fd = -1;
		if (read(exec_fd, &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno)) {
			e = ebs_error__set(err, exec_errno, "cannot run '%s': %s", o->argv[0],
					   strerror(exec_errno));
			res->exec_failed = true;
			goto out;
		}
		close(exec_fd);
		exec_fd = -1;
		res->have_child = true;
	}

	/* collect; from here on a failure keeps what was recorded */
	collecting = true;
	t_base = t_exec ? t_exec : t_start; /* the intervals count from exec, or from the start */
	next_tick = t_base + (u64)o->interval_ms * 1000000ull;
	for (;;) {
		int wait_ms = 200;

		if (got_signal && !stopping) {
			stopping = true;
			sig_name(got_signal, sn, sizeof(sn));
			if (child > 0 && !child_done) {
				kill(child, got_signal);
				ebs_warn(o->notice, o->notice_ctx, EBS_E_OK,
					 "%s: passed on to the command (pid %d); "
					 "the recording ends when it exits",
					 sn, (int)child);
			} else {
				ebs_warn(o->notice, o->notice_ctx, EBS_E_OK,
					 "%s: recording stopped", sn);
			}
		}
		if (nr_signals > 1 && child > 0 && !child_done && !killed) {
			killed = true;
			kill(child, SIGKILL);
			ebs_warn(o->notice, o->notice_ctx, EBS_E_OK,
				 "a second signal: the command (pid %d) "
				 "killed",
				 (int)child);
		}
		if (child > 0 && !child_done && wait4(child, &status, WNOHANG, &ru) == child) {
			child_done = true;
			exit_status = status_code(status);
			res->wall_ns = t_exec ? ebs_clock_ns() - t_exec : 0;
			res->cpu_ns =
				(u64)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
				(u64)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
		}
		if (child > 0 ? child_done : (stopping || (o->nr_pids && !any_pid_alive(o))))
			break;
		if (ticking) {
			u64 now = ebs_clock_ns();

			if (now >= next_tick) {
				/*
				 * Late by whole intervals (ebs was not run in time): the
				 * reading is of the last tick passed, the interval before it
				 * longer, so that no count is put at a time before it was read
				 */
				while (now - next_tick >= (u64)o->interval_ms * 1000000ull)
					next_tick += (u64)o->interval_ms * 1000000ull;
				/* asked to stop: as a SIGINT (sampler.h) */
				if (!s.backend->peek(&s) &&
				    o->on_interval(o->interval_ctx, next_tick - t_base, s.scaled,
						   s.nr_events)) {
					if (!got_signal)
						got_signal = SIGINT;
					nr_signals++;
					wait_ms = 0;
				}
				next_tick += (u64)o->interval_ms * 1000000ull;
				now = ebs_clock_ns();
			}
			/* a tick already due (the peek took long): at once, not after 200 ms */
			if (next_tick <= now)
				wait_ms = 0;
			else if ((next_tick - now) / 1000000ull < (u64)wait_ms)
				wait_ms = (int)((next_tick - now) / 1000000ull) + 1;
		}
		e = s.backend->read(&s, wait_ms, err);
		if (!e && (e = ebs_writer__flush(s.w)))
			ebs_error__set(err, -e, "%s: write failed: %s", ebs_output_name(o->output),
				       strerror(-e));
		if (e)
			goto out;
	}
	/*
	 * The recording's end is when the command exited (or the stop came),
	 * not when its file is finished: reading /proc/kallsyms and the rest
	 * take 0.2-0.4 s after, which --time's percentages and ebs view's
	 * timeline would count as time without samples.
	 */
	ebs_writer__set_end(s.w, ebs_realtime_ns(), ebs_clock_ns());
	e = s.backend->stop(&s, err);
	if (e)
		goto out;
	res->collect_ns = ebs_clock_ns() - t_base;
	if (ticking) /* the last, partial interval: up to the end */
		o->on_interval(o->interval_ctx, ebs_clock_ns() - t_base, s.scaled, s.nr_events);
	s.backend->close(&s);
	ebs_writer__totals(s.w, &res->samples, &res->lost, &res->throttled);
	res->have_counts = s.have_counts;
	res->multiplexed = s.multiplexed;
	for (i = 0; s.have_counts && i < s.nr_events; i++) {
		res->counted[i] = (u64)(s.scaled[i] + 0.5);
		res->running_ns[i] = s.running[i];
		res->totals[i] = s.totals[i];
	}
	memcpy(res->used, s.used, sizeof(s.used[0]) * s.nr_events);
	for (i = 0; i < s.nr_events; i++)
		res->fell_back[i] = s.why[i][0] != '\0';
	if (s.have_counts && s.period && !any_clock_event(&s)) {
		u64 expected = 0;

		for (i = 0; i < s.nr_events; i++)
			expected += s.counted[i] / s.periods[i];
		/* allow one sample per event for where a period was cut */
		if (expected > res->samples + res->lost + s.nr_events)
			res->undelivered = expected - res->samples - res->lost;
	}
	if (o->at_end)
		o->at_end(o->at_end_ctx, s.w); /* a failed write shows in finish */
	e = ebs_writer__finish(s.w, exit_status, &res->bytes, err);
	s.w = NULL;
	res->exit_status = exit_status < 0 ? 0 : exit_status;
	res->stop_signal = got_signal;
	goto out_free;

out:
	if (s.backend->close)
		s.backend->close(&s);
	if (collecting)
		ebs_writer__abort_keep(s.w, err);
	else
		ebs_writer__abort(s.w);
	s.w = NULL;
	if (child > 0 && !child_done) {
		/* never leave the command stopped or running on its own */
		if (go_fd >= 0)
			close(go_fd);
		go_fd = -1;
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		if (collecting && err) {
			size_t len = strlen(err->msg);

			snprintf(err->msg + len, sizeof(err->msg) - len,
				 "; the command (pid %d) was killed", (int)child);
		}
	}
out_free:
	if (go_fd >= 0)
		close(go_fd);
	if (exec_fd >= 0)
		close(exec_fd);
	restore_handlers(old);
	close_exits(&s);
	ns_tracker__free(s.ns);
	free(s.tids);
	free(s.cpus);
	return e;
}
