// SPDX-License-Identifier: MIT
/*
 * count.c - libebs (include/ebs/count.h, ebs-count(3)): a thread's
 * counters opened as one perf_event group, read with rdpmc through the
 * mmap pages where the kernel allows it and with one read(2) of the group
 * elsewhere, and statistics per section id.
 *
 * Statistics: count, mean, sd, min and max are running sums (Welford's
 * update), exact over every section recorded and constant in memory; the
 * mode needs the values themselves, so the first EBS_COUNT_MODE_SAMPLES of
 * each section are kept and summarized by util/stats.c's ebs_summarize
 * (compiled into the library: it neither prints nor exits), so that the
 * mode is ebs stat's (3 significant digits, the smaller on a tie).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ebs/count.h>
#include <ebs/ebs_events.h>
#include "libebs/count_int.h"
#include "count/rule.h"
#include "libebs/mmap_read.h"
#include "util/stats.h"
#include "util/text.h"

#define EXPORT __attribute__((visibility("default")))

/* One section's running sums, event by event; kept[] holds the first values for the mode. */
struct section {
	uint64_t n;
	double mean[EBS_COUNT_MAX_EVENTS], m2[EBS_COUNT_MAX_EVENTS];
	double min[EBS_COUNT_MAX_EVENTS], max[EBS_COUNT_MAX_EVENTS];
	double *kept; /* kept[k * nev + i]: section k's value of event i */
	size_t nkept, cap;
};

/*
 * The set.  Owned by the thread that opened it (the counters count that
 * thread): no lock.  fd[0] is the group leader; page[i] is event i's mmap
 * page, NULL where it could not be mapped.
 */
struct ebs_count_set {
	int nev;
	int fd[EBS_COUNT_MAX_EVENTS];
	struct perf_event_mmap_page *page[EBS_COUNT_MAX_EVENTS];
	char name[EBS_COUNT_MAX_EVENTS][EBS_COUNT_NAME_MAX];
	bool pmu; /* a PMU event among them: the group may be multiplexed (count/rule.h) */
	enum ebs_count_path path;
	size_t page_size;
	double overhead[EBS_COUNT_MAX_EVENTS], overhead_tsc, tsc_hz;
	struct section *sec[EBS_COUNT_MAX_SECTIONS];
};

EXPORT const char *ebs_count_version(void)
{
	return EBS_COUNT_VERSION;
}

/*
 * One line into err[0..len) when err is not NULL, its control characters
 * as '?' (an event name as given may hold a newline or an escape: util/text.h);
 * returns -e, for `return fail(...)`.
 */
static int fail(char *err, size_t len, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		ebs_vformat_line(err, len, fmt, ap);
		va_end(ap);
	}
	return -e;
}

/*
 * A NULL set or out-pointer (count.h): errno EINVAL, and -EINVAL for those
 * that return -errno.  The set itself cannot be checked further: one that
 * was closed is freed memory (ebs-count(3)).
 */
static int null_arg(void)
{
	errno = EINVAL;
	return -EINVAL;
}

/*
 * The refusal of an event not in ebs_events (text[0..base)): one line that
 * says which events libebs takes, by the table itself (a raw event, rUUEE,
 * which `ebs list` offers ebs's commands, said not taken).  Returns -EINVAL.
 */
static int unknown_event(const char *text, size_t base, char *err, size_t errlen)
{
	bool raw = base > 1 && text[0] == 'r' &&
		   strspn(text + 1, "0123456789abcdefABCDEF") >= base - 1;
	const struct ebs_event *n;
	size_t at;

	if (!err || !errlen)
		return -EINVAL;
	at = (size_t)snprintf(err, errlen,
			      raw ? "event '%.*s': raw events (rUUEE) are not taken by libebs; "
				    "it takes "
				  : "unknown event '%.*s'; libebs takes ",
			      (int)base, text);
	for (n = ebs_events; n->name && at < errlen; n++)
		at += (size_t)snprintf(err + at, errlen - at, "%s%s", n == ebs_events ? "" : ",",
				       n->name);
	if (at < errlen)
		snprintf(err + at, errlen - at, " (:u, :k)");
	ebs_clean_text(err, false); /* the name as given */
	return -EINVAL;
}

int ebs_count__parse_one(const char *text, size_t len, struct ebs_count_event *out, char *err,
			 size_t errlen)
{
	const char *colon = memchr(text, ':', len);
	size_t base = colon ? (size_t)(colon - text) : len;
	const struct ebs_event *n;
	const char *mod;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return fail(err, errlen, EINVAL, "empty event name in the list");
	if (len >= sizeof(out->name))
		return fail(err, errlen, EINVAL, "event '%.*s...': name too long", 40, text);
	memcpy(out->name, text, len);
	for (n = ebs_events; n->name; n++)
		if (strlen(n->name) == base && memcmp(n->name, text, base) == 0)
			break;
	if (!n->name)
		return unknown_event(text, base, err, errlen);
	out->type = n->type;
	out->config = n->config;
	out->hardware = n->hardware;
	/* modifiers: ":u" and ":k", each at most once, not both */
	for (mod = colon; mod; mod = memchr(mod + 1, ':', (size_t)(text + len - mod - 1))) {
		const char *end = memchr(mod + 1, ':', (size_t)(text + len - mod - 1));
		size_t mlen = (size_t)((end ? end : text + len) - mod - 1);

		if (mlen == 1 && mod[1] == 'u' && !out->exclude_kernel)
			out->exclude_kernel = 1;
		else if (mlen == 1 && mod[1] == 'k' && !out->exclude_user)
			out->exclude_user = 1;
		else
			return fail(err, errlen, EINVAL,
				    "event '%s': bad modifier ':%.*s' (known: u, k, once each)",
				    out->name, (int)mlen, mod + 1);
	}
	if (out->exclude_kernel && out->exclude_user)
		return fail(err, errlen, EINVAL, "event '%s': :u and :k exclude each other",
			    out->name);
	return 0;
}

int ebs_count__parse(const char *events, struct ebs_count_event *out, char *err, size_t errlen)
{
	const char *p = events;
	int n = 0, e;

	if (!events || !*events)
		return fail(err, errlen, EINVAL, "no events given");
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (n == EBS_COUNT_MAX_EVENTS)
			return fail(err, errlen, EINVAL, "more than %d events in '%s'",
				    EBS_COUNT_MAX_EVENTS, events);
		e = ebs_count__parse_one(p, len, &out[n], err, errlen);
		if (e)
			return e;
		n++;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

/* Why perf_event_open failed with e for ev, as the end of a sentence. */
static const char *open_hint(const struct ebs_count_event *ev, int e)
{
	if (ev->hardware && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
		return ": a hardware event, and this machine gives no hardware PMU";
	if (ev->hardware && e == EINVAL) /* x86's validate_group: never fits */
		return ": a group needing more counters than the PMU has? (fewer hardware events "
		       "in one set)";
	if (e == EACCES || e == EPERM)
		return ": not allowed (kernel.perf_event_paranoid; try ':u')";
	return "";
}

static int open_event(const struct ebs_count_event *ev, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ev->type;
	a.config = ev->config;
	a.exclude_kernel = ev->exclude_kernel;
	a.exclude_user = ev->exclude_user;
	a.read_format =
		PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = group < 0; /* the leader, enabled with its group below */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/*
 * One read(2) of the whole group: { nr, time_enabled, time_running,
 * values[nr] }, each value scaled by the group's enabled / running time
 * (one group: its counters are on the PMU together, or none is); the two
 * times into times[0..2) when times is not NULL.
 */
static int read_group(struct ebs_count_set *c, struct ebs_count_snap *s, uint64_t *times)
{
	uint64_t buf[3 + EBS_COUNT_MAX_EVENTS];
	ssize_t want = (ssize_t)((3 + (size_t)c->nev) * sizeof(uint64_t));
	ssize_t got = read(c->fd[0], buf, sizeof(buf));
	int i;

	if (got < 0)
		return -errno;
	if (got != want || buf[0] != (uint64_t)c->nev)
		return -EIO;
	for (i = 0; i < c->nev; i++)
		s->v[i] = count_scale_u64(c->pmu, buf[3 + i], buf[1], buf[2]);
	if (times) {
		times[0] = buf[1];
		times[1] = buf[2];
	}
	return 0;
}

EXPORT int ebs_count_read(struct ebs_count_set *c, struct ebs_count_snap *s)
{
	if (!c || !s)
		return null_arg();
	if (c->path == EBS_COUNT_PATH_RDPMC && !ebs_mmap_read_all(c->page, c->nev, ebs_rdpmc, s->v))
		return 0;
	return read_group(c, s, NULL);
}

EXPORT void ebs_count_sub(const struct ebs_count_snap *b, const struct ebs_count_snap *a,
			  struct ebs_count_snap *d, int n)
{
	int i;

	if (!b || !a || !d) {
		null_arg();
		return;
	}
	for (i = 0; i < n && i < EBS_COUNT_MAX_EVENTS; i++)
		d->v[i] = b->v[i] - a->v[i];
}

#if defined(__x86_64__) || defined(__i386__)
EXPORT uint64_t ebs_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}
#define TSC_IS_NS 0
#else
EXPORT uint64_t ebs_tsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define TSC_IS_NS 1
#endif

static int dbl_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/*
 * The empty read pair's cost, event by event and in TSC cycles: the
 * median over EBS_COUNT_CALIB pairs (the median, not the mean: a pair
 * that an interrupt or a page fault fell into is an outlier to leave out).
 */
static int calibrate(struct ebs_count_set *c)
{
	double *d = malloc(sizeof(double) * EBS_COUNT_CALIB * (size_t)(c->nev + 1));
	struct ebs_count_snap a, b;
	int k, i, e = 0;

	if (!d)
		return -ENOMEM;
	for (k = 0; k < 8 && !e; k++) /* warm the code and the pages */
		e = ebs_count_read(c, &a);
	for (k = 0; k < EBS_COUNT_CALIB && !e; k++) {
		uint64_t t0, t1;

		t0 = ebs_tsc();
		e = ebs_count_read(c, &a);
		if (!e)
			e = ebs_count_read(c, &b);
		t1 = ebs_tsc();
		for (i = 0; i < c->nev && !e; i++)
			d[i * EBS_COUNT_CALIB + k] = (double)(b.v[i] - a.v[i]);
		d[c->nev * EBS_COUNT_CALIB + k] = (double)(t1 - t0);
	}
	for (i = 0; i <= c->nev && !e; i++) {
		double *s = d + i * EBS_COUNT_CALIB;

		qsort(s, EBS_COUNT_CALIB, sizeof(*s), dbl_cmp);
		if (i < c->nev)
			c->overhead[i] = s[EBS_COUNT_CALIB / 2];
		else
			c->overhead_tsc = s[EBS_COUNT_CALIB / 2];
	}
	free(d);
	return e;
}

EXPORT struct ebs_count_set *ebs_count_open(const char *events, char *err, size_t errlen)
{
	struct ebs_count_event ev[EBS_COUNT_MAX_EVENTS];
	struct ebs_count_set *c;
	int n, i, e;

	if (err && errlen)
		err[0] = '\0';
	n = ebs_count__parse(events, ev, err, errlen);
	if (n < 0) {
		errno = -n;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		fail(err, errlen, ENOMEM, "out of memory");
		return NULL;
	}
	c->page_size = (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < EBS_COUNT_MAX_EVENTS; i++)
		c->fd[i] = -1;
	for (i = 0; i < n; i++) {
		void *p;

		c->fd[i] = open_event(&ev[i], i ? c->fd[0] : -1);
		if (c->fd[i] < 0) {
			e = errno;
			fail(err, errlen, e, "event '%s': perf_event_open: %s%s", ev[i].name,
			     strerror(e), open_hint(&ev[i], e));
			goto out_close;
		}
		c->nev = i + 1;
		memcpy(c->name[i], ev[i].name, sizeof(c->name[i]));
		c->pmu |= count_event_on_pmu(ev[i].type, ev[i].config, 0);
		/* the page gives rdpmc's register and the TSC's rate; without it, read(2) */
		p = mmap(NULL, c->page_size, PROT_READ, MAP_SHARED, c->fd[i], 0);
		c->page[i] = p == MAP_FAILED ? NULL : p;
	}
	if (ioctl(c->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
		e = errno;
		fail(err, errlen, e, "event '%s': enabling the group: %s", ev[0].name, strerror(e));
		goto out_close;
	}
	c->path = ebs_mmap_can_rdpmc(c->page, c->nev) ? EBS_COUNT_PATH_RDPMC : EBS_COUNT_PATH_READ;
	c->tsc_hz = TSC_IS_NS ? 1e9 : c->page[0] ? ebs_mmap_tsc_hz(c->page[0]) : 0;
	e = -calibrate(c);
	if (e) {
		fail(err, errlen, e, "event '%s': reading the group: %s", ev[0].name, strerror(e));
		goto out_close;
	}
	return c;

out_close:
	ebs_count_close(c);
	errno = e;
	return NULL;
}

EXPORT void ebs_count_close(struct ebs_count_set *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < EBS_COUNT_MAX_EVENTS; i++) {
		if (c->page[i])
			munmap(c->page[i], c->page_size);
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	}
	ebs_count_reset(c);
	free(c);
}

EXPORT void ebs_count_reset(struct ebs_count_set *c)
{
	int i;

	if (!c) {
		null_arg();
		return;
	}
	for (i = 0; i < EBS_COUNT_MAX_SECTIONS; i++) {
		if (c->sec[i])
			free(c->sec[i]->kept);
		free(c->sec[i]);
		c->sec[i] = NULL;
	}
}

EXPORT int ebs_count_nevents(const struct ebs_count_set *c)
{
	if (!c) {
		null_arg();
		return -1;
	}
	return c->nev;
}

EXPORT const char *ebs_count_event_name(const struct ebs_count_set *c, int i)
{
	if (!c) {
		null_arg();
		return NULL;
	}
	return i >= 0 && i < c->nev ? c->name[i] : NULL;
}

EXPORT double ebs_count_overhead(const struct ebs_count_set *c, int i)
{
	if (!c) {
		null_arg();
		return 0;
	}
	return i >= 0 && i < c->nev ? c->overhead[i] : 0;
}

EXPORT double ebs_count_overhead_tsc(const struct ebs_count_set *c)
{
	if (!c) {
		null_arg();
		return 0;
	}
	return c->overhead_tsc;
}

EXPORT int ebs_count_running(struct ebs_count_set *c, double *share)
{
	struct ebs_count_snap s;
	uint64_t t[2]; /* enabled, running */
	int e;

	if (!c || !share)
		return null_arg();
	e = read_group(c, &s, t);
	if (e)
		return e;
	*share = t[0] ? (double)t[1] / (double)t[0] : 1;
	if (*share > 1)
		*share = 1;
	return 0;
}

EXPORT double ebs_tsc_hz(const struct ebs_count_set *c)
{
	if (!c) {
		null_arg();
		return 0;
	}
	return c->tsc_hz;
}

EXPORT enum ebs_count_path ebs_count_read_path(const struct ebs_count_set *c)
{
	if (!c) {
		null_arg();
		return EBS_COUNT_PATH_READ;
	}
	return c->path;
}

EXPORT const char *ebs_count_path_name(enum ebs_count_path p)
{
	return p == EBS_COUNT_PATH_RDPMC ? "rdpmc" : "read";
}

/* Room in s->kept for one more section's values of nev events, while the mode takes more. */
static int make_room(struct section *s, int nev)
{
	size_t cap;
	double *k;

	if (s->nkept >= EBS_COUNT_MODE_SAMPLES || s->nkept < s->cap)
		return 0;
	cap = s->cap ? 2 * s->cap : 16;
	k = realloc(s->kept, sizeof(double) * cap * (size_t)nev);
	if (!k)
		return -ENOMEM;
	s->kept = k;
	s->cap = cap;
	return 0;
}

EXPORT int ebs_count_record(struct ebs_count_set *c, unsigned int id,
			    const struct ebs_count_snap *a, const struct ebs_count_snap *b)
{
	struct section *s;
	int i, e;

	if (!c || !a || !b)
		return null_arg();
	if (id >= EBS_COUNT_MAX_SECTIONS)
		return -EINVAL;
	s = c->sec[id];
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->sec[id] = s;
	}
	e = make_room(s, c->nev);
	if (e)
		return e;
	s->n++;
	for (i = 0; i < c->nev; i++) {
		double x = (double)(b->v[i] - a->v[i]) - c->overhead[i], d = x - s->mean[i];

		if (s->nkept < EBS_COUNT_MODE_SAMPLES)
			s->kept[s->nkept * (size_t)c->nev + (size_t)i] = x;
		/* Welford: the mean and the sum of squared deviations, one value at a time */
		s->mean[i] += d / (double)s->n;
		s->m2[i] += d * (x - s->mean[i]);
		if (s->n == 1 || x < s->min[i])
			s->min[i] = x;
		if (s->n == 1 || x > s->max[i])
			s->max[i] = x;
	}
	if (s->nkept < EBS_COUNT_MODE_SAMPLES)
		s->nkept++;
	return 0;
}

EXPORT int ebs_count_stat(const struct ebs_count_set *c, unsigned int id, int i,
			  struct ebs_count_stat *st)
{
	const struct section *s;
	struct ebs_summary sum;
	double *v;
	size_t k;
	int e;

	if (!c || !st)
		return null_arg();
	if (id >= EBS_COUNT_MAX_SECTIONS || i < 0 || i >= c->nev)
		return -EINVAL;
	s = c->sec[id];
	if (!s || !s->n)
		return -ENOENT;
	v = malloc(sizeof(double) * s->nkept);
	if (!v)
		return -ENOMEM;
	for (k = 0; k < s->nkept; k++)
		v[k] = s->kept[k * (size_t)c->nev + (size_t)i];
	e = ebs_summarize(v, s->nkept, false, &sum, NULL);
	free(v);
	if (e)
		return e;
	st->n = s->n;
	st->mean = s->mean[i];
	st->sd = s->n > 1 ? sqrt(s->m2[i] / (double)(s->n - 1)) : 0;
	st->min = s->min[i];
	st->max = s->max[i];
	st->mode = sum.mode;
	return 0;
}

EXPORT enum ebs_count_path ebs_count_probe_path(char *why, size_t whylen)
{
	struct ebs_count_event ev;
	struct perf_event_mmap_page *pg;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	enum ebs_count_path p = EBS_COUNT_PATH_READ;
	void *m;
	int fd, e;

	ebs_count__parse_one("cycles", 6, &ev, NULL, 0);
	ev.exclude_kernel = 1; /* as a user-space reader counts, and as paranoid 2 allows */
	fd = open_event(&ev, -1);
	if (fd < 0) {
		e = errno;
		fail(why, whylen, e, "cycles cannot be opened: %s%s", strerror(e),
		     open_hint(&ev, e));
		return p;
	}
	m = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		e = errno;
		fail(why, whylen, e, "the perf mmap page cannot be mapped: %s", strerror(e));
		close(fd);
		return p;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	pg = m;
	if (!EBS_HAVE_RDPMC)
		fail(why, whylen, 0, "no rdpmc instruction on this architecture");
	else if (!pg->cap_user_rdpmc)
		fail(why, whylen, 0,
		     "the kernel does not allow rdpmc (cap_user_rdpmc 0: "
		     "/sys/bus/event_source/devices/cpu/rdpmc)");
	else {
		p = EBS_COUNT_PATH_RDPMC;
		fail(why, whylen, 0, "the kernel allows rdpmc (cap_user_rdpmc 1)");
	}
	munmap(m, psz);
	close(fd);
	return p;
}
