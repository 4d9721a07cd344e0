// SPDX-License-Identifier: MIT
/*
 * test-data.c - the ebs.data writer (data/writer.c) and reader (data/reader.c).
 *
 * One function per group of checks:
 *
 *   test_round_trip   every header record (META, EVENT, DSO_IMAGE) and data
 *                     record type (SAMPLE with and without a callchain, MMAP,
 *                     COMM, FORK, EXIT, LOST, THROTTLE, UNTHROTTLE, COUNT)
 *                     written and read back field by field and byte for byte;
 *                     the lookups; record order; the trailer's totals and
 *                     per-event counts.
 *   test_index        more than 2 MiB of samples: the trailer's index has one
 *                     entry per EBS_INDEX_STRIDE, each on a record boundary.
 *   test_writer_misuse  calls out of order or with bad records are refused.
 *   test_rename       the file appears under its name only at finish; abort
 *                     leaves nothing behind; an existing file is kept as .old.
 *   test_streamed     "-" to a pipe in a child: EBS_FILE_STREAMED, and the
 *                     reader scans to the trailer (from a file and from stdin).
 *   test_bad_files    hand-made corruptions, each refused with a negative errno
 *                     and a message naming the file and the byte offset.
 *   test_truncation   every proper prefix of a valid file (seekable and
 *                     streamed) is refused cleanly.
 *   test_corruption   3000 random 1-4 byte corruptions: no crash, no hang,
 *                     either a full read or a message naming an offset, and
 *                     every record handed out keeps the reader's promises.
 *   test_tap          the writer's tap (ebs top's): each record taken, once,
 *                     as given; a refused one never.
 *
 * Everything happens in a mkdtemp() directory under /tmp, removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/data.h"
#include "data/packed.h"
#include "test.h"

static char tmpdir[64];

/* ---- grouped checks: one PASS/FAIL line for many comparisons ---------- */

struct group {
	char name[160];
	unsigned int checks, failed;
	char first[320]; /* the first failed comparison */
};

__attribute__((format(printf, 2, 3))) static void group_begin(struct group *g, const char *fmt, ...)
{
	va_list ap;

	memset(g, 0, sizeof(*g));
	va_start(ap, fmt);
	vsnprintf(g->name, sizeof(g->name), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5))) static void group_check(struct group *g, bool ok, int line,
							      const char *fmt, ...)
{
	va_list ap;
	int n;

	g->checks++;
	if (ok)
		return;
	if (g->failed++)
		return;
	n = snprintf(g->first, sizeof(g->first), "line %d: ", line);
	va_start(ap, fmt);
	vsnprintf(g->first + n, sizeof(g->first) - (size_t)n, fmt, ap);
	va_end(ap);
}

#define G_TRUE(g, cond) group_check(g, (cond), __LINE__, "%s", #cond)
#define G_EQ(g, got, want)                                                                         \
	do {                                                                                       \
		uintmax_t got_ = (uintmax_t)(got), want_ = (uintmax_t)(want);                      \
		group_check(g, got_ == want_, __LINE__, "%s = %#jx, want %#jx", #got, got_,        \
			    want_);                                                                \
	} while (0)
#define G_STREQ(g, got, want)                                                                      \
	do {                                                                                       \
		const char *gs_ = (got), *ws_ = (want);                                            \
		group_check(g, gs_ != NULL && strcmp(gs_, ws_) == 0, __LINE__,                     \
			    "%s = \"%s\", want \"%s\"", #got, gs_ ? gs_ : "(null)", ws_);          \
	} while (0)

static void group_end(struct group *g)
{
	if (g->checks == 0)
		TEST_FAIL(g->name, "no comparison was made");
	else if (g->failed)
		TEST_FAIL(g->name, "%u of %u comparisons failed; first: %s", g->failed, g->checks,
			  g->first);
	else
		TEST_OK(g->name);
}

/* ---- files ------------------------------------------------------------ */

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static u64 file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (u64)st.st_size : 0;
}

/* Read a whole file into a malloc'd buffer; NULL on error. */
static u8 *file_load(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	u8 *buf;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	if (read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static int file_save(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = len ? write(fd, buf, len) : 0;
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* Temporary files the writer left for final name `name` (".name.tmp.XXXXXX"). */
static unsigned int count_tmp_files(const char *name)
{
	char prefix[PATH_MAX];
	unsigned int n = 0;
	struct dirent *de;
	DIR *dir = opendir(tmpdir);

	if (!dir)
		return 0;
	snprintf(prefix, sizeof(prefix), ".%s.tmp.", name);
	while ((de = readdir(dir)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(dir);
	return n;
}

static void remove_tmpdir(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir = opendir(tmpdir);

	if (dir) {
		while ((de = readdir(dir))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			tmp_path(path, sizeof(path), de->d_name);
			unlink(path);
		}
		closedir(dir);
	}
	if (rmdir(tmpdir) < 0)
		TEST_FAIL("data: cleanup", "rmdir %s: %s", tmpdir, strerror(errno));
}

/* ---- the standard file ------------------------------------------------- */

/*
 * The standard content: 4 META, 2 EVENT, 1 DSO_IMAGE, then STD_NR_FIXED data
 * records of every type, then nr_extra samples of varying shape, exit status
 * STD_EXIT_STATUS.  Record i of the data is built by std_build(i), so a
 * reader-side check can rebuild what was written.
 */
#define STD_REALTIME	1700000000123456789ull
#define STD_CLOCK	424242000000ull
#define T0		(STD_CLOCK + 1000)
#define STD_EXIT_STATUS 3
#define STD_NR_FIXED	11
#define STD_MAX_RECORDS 160
#define STD_DSO_SIZE	1001u /* not a multiple of 8: the record is padded */

#define STD_HOSTNAME	"host-under-test"
#define STD_ARCH	"x86_64" /* 7 bytes with the NUL */
#define STD_CMDLINE	"ebs record -e cycles,instructions:u -- ./leafloop 3"
#define STD_KEY_UNKNOWN 99
#define STD_EV1_WHY	"no hardware PMU for it on this machine (virtual machine?)"
#define STD_MMAP_FILE	"/usr/lib/x86_64-linux-gnu/libebstest.so.1"
#define STD_COMM	"worker-1" /* 9 bytes with the NUL */

static const u64 std_callchain[3] = {0xffffffff81000010ull, 0x401234, 0x401000};

static u8 std_build_id(unsigned int i)
{
	return (u8)(0xb0 + i);
}

static u8 std_dso_byte(unsigned int i)
{
	return (u8)(i * 7 + 3);
}

/* What the trailer of the standard file must say. */
struct expect {
	unsigned int nr_records;
	u64 samples, lost, throttled;
	struct ebs_event_counts counts[2];
};

static void std_expect(unsigned int nr_extra, struct expect *x)
{
	unsigned int i;

	memset(x, 0, sizeof(*x));
	x->nr_records = STD_NR_FIXED + nr_extra;
	/* the fixed part: two samples, LOST 17 (event 0) + 5 (unknown), one THROTTLE */
	x->samples = 2;
	x->counts[0].samples = 1;
	x->counts[0].period_sum = 4001;
	x->counts[1].samples = 1;
	x->counts[1].period_sum = 1000003;
	x->lost = 22;
	x->counts[0].lost = 17;
	x->throttled = 1;
	x->counts[0].throttled = 1;
	for (i = 0; i < nr_extra; i++) {
		x->samples++;
		x->counts[i % 2].samples++;
		x->counts[i % 2].period_sum += 1000 + i;
	}
}

/* A record with fixed part `fixed` and one string, NUL-padded to 8. */
static u32 build_str_rec(u64 *buf, const void *fixed, size_t fixed_size, const char *s)
{
	size_t size = ALIGN8(fixed_size + strlen(s) + 1);

	memset(buf, 0, size);
	memcpy(buf, fixed, fixed_size);
	memcpy((char *)buf + fixed_size, s, strlen(s) + 1);
	((struct ebs_rec *)buf)->size = (u32)size;
	return (u32)size;
}

/* A SAMPLE, with a callchain part when cc is not NULL. */
static u32 build_sample(u64 *buf, const struct ebs_rec_sample *tmpl, const u64 *cc, u64 nr_cc)
{
	struct ebs_rec_sample *s = (void *)buf;
	u64 *p = (u64 *)(s + 1);

	*s = *tmpl;
	s->hdr.type = EBS_REC_SAMPLE;
	if (cc) {
		s->hdr.misc |= EBS_SAMPLE_CALLCHAIN;
		*p++ = nr_cc;
		memcpy(p, cc, nr_cc * sizeof(*p));
		p += nr_cc;
	}
	s->hdr.size = (u32)((u8 *)p - (u8 *)buf);
	return s->hdr.size;
}

/* Data record i of the standard file into buf (at least 512 bytes); its size. */
static u32 std_build(unsigned int i, u64 *buf)
{
	memset(buf, 0, 512);
	switch (i) {
	case 0: {
		struct ebs_rec_sample s = {
			.hdr.misc = EBS_CPUMODE_USER | EBS_SAMPLE_EXACT_IP,
			.ip = 0x401000,
			.time = T0 + 1,
			.period = 4001,
			.pid = 100,
			.tid = 101,
			.cpu = 0,
			.event = 0,
		};

		return build_sample(buf, &s, NULL, 0);
	}
	case 1: {
		struct ebs_rec_sample s = {
			.hdr.misc = EBS_CPUMODE_KERNEL,
			.ip = 0xffffffff81000010ull,
			.time = T0 + 2,
			.period = 1000003,
			.pid = 100,
			.tid = 102,
			.cpu = 5,
			.event = 1,
		};

		return build_sample(buf, &s, std_callchain, 3);
	}
	case 2: {
		struct ebs_rec_mmap m = {
			.hdr = {.type = EBS_REC_MMAP, .misc = EBS_CPUMODE_USER | EBS_MMAP_BUILD_ID},
			.time = T0 + 3,
			.start = 0x7f0000400000ull,
			.len = 0x2000,
			.pgoff = 0x1000,
			.pid = 100,
			.tid = 100,
			.maj = 8,
			.min = 1,
			.ino = 123456,
			.ino_generation = 7,
			.prot = 5,
			.flags = 2,
			.build_id_size = 20,
		};
		unsigned int k;

		for (k = 0; k < 20; k++)
			m.build_id[k] = std_build_id(k);
		return build_str_rec(buf, &m, sizeof(m), STD_MMAP_FILE);
	}
	case 3: {
		struct ebs_rec_comm c = {
			.hdr = {.type = EBS_REC_COMM, .misc = EBS_COMM_EXEC},
			.time = T0 + 4,
			.pid = 100,
			.tid = 101,
		};

		return build_str_rec(buf, &c, sizeof(c), STD_COMM);
	}
	case 4:
	case 5: {
		struct ebs_rec_task *t = (void *)buf;

		t->hdr.type = i == 4 ? EBS_REC_FORK : EBS_REC_EXIT;
		t->hdr.size = sizeof(*t);
		t->time = T0 + 1 + i;
		t->pid = 100;
		t->ppid = 1;
		t->tid = 103;
		t->ptid = 101;
		return t->hdr.size;
	}
	case 6:
	case 7: {
		struct ebs_rec_lost *l = (void *)buf;

		l->hdr.type = EBS_REC_LOST;
		l->hdr.size = sizeof(*l);
		l->time = T0 + 1 + i;
		l->lost = i == 6 ? 17 : 5;
		l->cpu = i == 6 ? 2 : 3;
		l->event = i == 6 ? 0 : 0xffff;
		return l->hdr.size;
	}
	case 8:
	case 9: {
		struct ebs_rec_throttle *t = (void *)buf;

		t->hdr.type = EBS_REC_THROTTLE;
		t->hdr.misc = i == 9 ? EBS_THROTTLE_END : 0;
		t->hdr.size = sizeof(*t);
		t->time = T0 + 1 + i;
		t->cpu = 1;
		t->event = 0;
		return t->hdr.size;
	}
	case 10: {
		struct ebs_rec_count *c = (void *)buf;

		c->hdr.type = EBS_REC_COUNT;
		c->hdr.size = sizeof(*c);
		c->time = T0 + 11;
		c->value = 987654321;
		c->time_enabled = 2000;
		c->time_running = 1500;
		c->cpu = 0xffffffff;
		c->tid = 101;
		c->event = 1;
		return c->hdr.size;
	}
	default: {
		unsigned int e = i - STD_NR_FIXED;
		struct ebs_rec_sample s = {
			.hdr.misc = EBS_CPUMODE_USER,
			.ip = 0x500000 + e * 16,
			.time = T0 + 100 + e,
			.period = 1000 + e,
			.pid = 200,
			.tid = 200 + e % 4,
			.cpu = e % 8,
			.event = (u16)(e % 2),
		};
		u64 cc[5];
		unsigned int k;

		for (k = 0; k < 5; k++)
			cc[k] = 0x600000 + e * 256 + k;
		return build_sample(buf, &s, e % 3 == 0 ? cc : NULL, e % 5);
	}
	}
}

/* event 1's CALIBRATION (hdr is the writer's) */
static const struct ebs_rec_calibration std_calib = {
	.event = 1,
	.rate_hz = 500,
	.sample_after = 2000000,
	.events_per_sec = 999000000,
	.target_samples = 10000,
	.overhead_ppm = 13000,
	.budget_ppm = 20000,
};

static int std_header(struct ebs_writer *w)
{
	struct ebs_rec_event ev0 = {
		.group = 0,
		.flags = EBS_EVF_HARDWARE | EBS_EVF_FREQ | EBS_EVF_GROUP_LEADER,
		.type = 0,
		.config = 0,
		.sample_freq = 4000,
	};
	struct ebs_rec_event ev1 = {
		.group = 0,
		.flags = EBS_EVF_FALLBACK | EBS_EVF_EXCLUDE_KERNEL,
		.type = 1,
		.config = 1,
		.config1 = 0x55,
		.sample_period = 1000003,
	};
	u8 image[STD_DSO_SIZE], bid[20];
	unsigned int i;
	int e = 0;

	for (i = 0; i < sizeof(image); i++)
		image[i] = std_dso_byte(i);
	for (i = 0; i < sizeof(bid); i++)
		bid[i] = std_build_id(i);
	e = e ?: ebs_writer__meta(w, EBS_META_HOSTNAME, STD_HOSTNAME);
	e = e ?: ebs_writer__meta(w, EBS_META_ARCH, STD_ARCH);
	e = e ?: ebs_writer__event(w, &ev0, "cycles", "cycles", NULL);
	e = e ?: ebs_writer__meta(w, EBS_META_CMDLINE, STD_CMDLINE);
	e = e ?: ebs_writer__event(w, &ev1, "instructions:u", "task-clock:u", STD_EV1_WHY);
	e = e ?: ebs_writer__dso_image(w, "[vdso]", image, sizeof(image), bid, sizeof(bid));
	e = e ?: ebs_writer__calibration(w, &std_calib);
	e = e ?: ebs_writer__meta(w, STD_KEY_UNKNOWN, "");
	if (!e && (ev0.index != 0 || ev1.index != 1))
		e = -EPROTO; /* the writer assigns the indexes */
	return e;
}

/* Header, data records, no finish.  Returns 0 or -errno. */
static int std_write(struct ebs_writer *w, unsigned int nr_extra)
{
	u64 buf[64];
	unsigned int i;
	int e = std_header(w);

	if (!e)
		e = ebs_writer__begin_data(w, STD_REALTIME, STD_CLOCK);
	for (i = 0; !e && i < STD_NR_FIXED + nr_extra; i++) {
		std_build(i, buf);
		e = ebs_writer__add(w, (const struct ebs_rec *)buf);
	}
	return e;
}

/* Write the standard file to path (not "-"); 0 or -errno, why in err. */
static int std_file(const char *path, unsigned int nr_extra, struct ebs_error *err)
{
	struct ebs_writer *w = ebs_writer__create(path, err);
	int e;

	if (!w)
		return err->err;
	e = std_write(w, nr_extra);
	if (e) {
		ebs_error__set(err, -e, "%s: writing the standard content: %s", path, strerror(-e));
		ebs_writer__abort(w);
		return e;
	}
	return ebs_writer__finish(w, STD_EXIT_STATUS, NULL, err);
}

/*
 * Run fn in a child whose stdout is a pipe, and save what it writes there
 * as path.  Returns the child's exit status (0 when it succeeded) or -errno.
 */
static int capture_stdout(const char *path, int (*fn)(void *), void *arg)
{
	size_t cap = 1 << 16, len = 0;
	u8 *buf = malloc(cap);
	int p[2], status, e;
	pid_t pid;

	if (!buf || pipe(p) < 0) {
		free(buf);
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		e = -errno;
		close(p[0]);
		close(p[1]);
		free(buf);
		return e;
	}
	if (pid == 0) {
		close(p[0]);
		if (dup2(p[1], STDOUT_FILENO) < 0)
			_exit(126);
		close(p[1]);
		_exit(fn(arg) ? 1 : 0);
	}
	close(p[1]);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			u8 *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(p[0], buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		status = -1;
	e = file_save(path, buf, len);
	free(buf);
	if (e)
		return e;
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* In the child: the standard content to "-". */
static int std_stream_child(void *arg)
{
	unsigned int nr_extra = *(const unsigned int *)arg;
	struct ebs_error err = {0};
	struct ebs_writer *w = ebs_writer__create("-", &err);

	if (!w)
		return 1;
	if (std_write(w, nr_extra)) {
		ebs_writer__abort(w);
		return 1;
	}
	return ebs_writer__finish(w, STD_EXIT_STATUS, NULL, &err) ? 1 : 0;
}

/* The standard content written to a pipe, saved as path. */
static int std_streamed_file(const char *path, unsigned int nr_extra)
{
	return capture_stdout(path, std_stream_child, &nr_extra);
}

/* ---- reading: the reader's promises ------------------------------------ */

/* Fixed sizes of the data record types, restated here (not taken from reader.c). */
static u32 data_fixed_size(u16 type)
{
	switch (type) {
	case EBS_REC_SAMPLE:
		return 48;
	case EBS_REC_MMAP:
		return 104;
	case EBS_REC_COMM:
		return 24;
	case EBS_REC_FORK:
	case EBS_REC_EXIT:
		return 32;
	case EBS_REC_LOST:
		return 32;
	case EBS_REC_THROTTLE:
		return 24;
	case EBS_REC_COUNT:
		return 56;
	default:
		return 0;
	}
}

/*
 * Does rec, handed out by ebs_data__next, keep what ebs_data__next promises:
 * inside the file, on 8 bytes, its type's fixed part and announced optional
 * parts covered, strings terminated within it, event index in range?
 */
static bool rec_keeps_promises(const struct ebs_data *d, const struct ebs_rec *rec, u64 size)
{
	u64 off = ebs_data__offset(d, rec);
	unsigned int nr_events = ebs_data__nr_events(d);
	u32 fixed = data_fixed_size(rec->type);
	const char *tail = (const char *)rec + fixed;
	struct ebs_sample_parts parts;

	/* a packed sample is handed out as a SAMPLE at its SAMPLES record's offset */
	bool packed = rec->type == EBS_REC_SAMPLE && rec->size == sizeof(struct ebs_rec_sample) &&
		      !(rec->misc & ~0xfu);

	if (off % 8 || off < ebs_data__header(d)->data_offset || off >= size ||
	    rec->size < sizeof(*rec) || rec->size % 8 ||
	    (packed ? sizeof(struct ebs_rec_samples) + 1 > size - off : rec->size > size - off))
		return false;
	if (rec->type == EBS_REC_TRAILER ||
	    (rec->type >= EBS_REC_META && rec->type < EBS_REC_SAMPLE))
		return false;
	if (!fixed)
		return false; /* ebs_data__next skips unknown types */
	if (rec->size < fixed)
		return false;
	switch (rec->type) {
	case EBS_REC_SAMPLE: {
		const struct ebs_rec_sample *s = (const void *)rec;
		const u8 *end = (const u8 *)rec + rec->size;

		if (s->event >= nr_events)
			return false;
		ebs_sample__parts(s, &parts);
		if (s->hdr.misc & EBS_SAMPLE_CALLCHAIN) {
			if (!parts.callchain || (const u8 *)parts.callchain < (const u8 *)(s + 1) ||
			    parts.nr_callchain > (u64)(end - (const u8 *)parts.callchain) / 8)
				return false;
		} else if (parts.callchain || parts.nr_callchain) {
			return false;
		}
		break;
	}
	case EBS_REC_MMAP:
		if (!memchr(tail, '\0', rec->size - fixed) ||
		    ((const struct ebs_rec_mmap *)rec)->build_id_size > 20)
			return false;
		break;
	case EBS_REC_COMM:
		if (!memchr(tail, '\0', rec->size - fixed))
			return false;
		break;
	case EBS_REC_LOST: {
		u16 ev = ((const struct ebs_rec_lost *)rec)->event;

		if (ev != 0xffff && ev >= nr_events)
			return false;
		break;
	}
	case EBS_REC_THROTTLE:
		if (((const struct ebs_rec_throttle *)rec)->event >= nr_events)
			return false;
		break;
	case EBS_REC_COUNT:
		if (((const struct ebs_rec_count *)rec)->event >= nr_events)
			return false;
		break;
	default:
		break;
	}
	return true;
}

/* The event strings and the trailer of an open file lie inside it. */
static bool file_keeps_promises(const struct ebs_data *d, u64 size)
{
	const struct ebs_rec_trailer *t = ebs_data__trailer(d);
	unsigned int i;

	if (ebs_data__nr_events(d) == 0 || ebs_data__nr_events(d) > EBS_MAX_EVENTS)
		return false;
	for (i = 0; i < ebs_data__nr_events(d); i++) {
		const struct ebs_event_info *ev = ebs_data__event(d, i);

		if (!ev || ebs_data__offset(d, ev->why) >= size ||
		    ebs_data__offset(d, ev->why) + strlen(ev->why) >= size)
			return false;
	}
	if (t) {
		u64 off = ebs_data__offset(d, t);

		if (off >= size || t->hdr.size > size - off ||
		    t->nr_events != ebs_data__nr_events(d) ||
		    sizeof(*t) + (u64)t->nr_events * sizeof(struct ebs_event_counts) +
				    (u64)t->nr_index * sizeof(struct ebs_index_entry) >
			    t->hdr.size)
			return false;
	}
	return true;
}

/* Outcome of reading a file all the way through. */
struct read_result {
	int rc;		     /* 0: trailer reached; else the negative errno */
	bool at_open;	     /* failed in ebs_data__open */
	bool hung;	     /* more records than the file could hold */
	bool broken_promise; /* a record or string outside what was promised */
	bool bad_err;	     /* err.err disagrees with the return value */
	unsigned int nr_records;
	struct ebs_error err;
};

static void read_through(const char *path, u64 size, struct read_result *res)
{
	const struct ebs_rec *rec;
	struct ebs_data *d;
	u64 limit = size / 8 + 2;
	int r;

	memset(res, 0, sizeof(*res));
	d = ebs_data__open(path, &res->err);
	if (!d) {
		res->rc = res->err.err ? res->err.err : -EPROTO;
		res->at_open = true;
		res->bad_err = res->err.err >= 0;
		return;
	}
	if (!file_keeps_promises(d, size))
		res->broken_promise = true;
	while ((r = ebs_data__next(d, &rec, &res->err)) == 1) {
		if (++res->nr_records > limit) {
			res->hung = true;
			r = -ELOOP;
			break;
		}
		if (!rec_keeps_promises(d, rec, size))
			res->broken_promise = true;
	}
	res->rc = r;
	if (r < 0 && !res->hung && res->err.err != r)
		res->bad_err = true;
	if (r == 0 && (!ebs_data__trailer(d) || !file_keeps_promises(d, size)))
		res->broken_promise = true;
	ebs_data__close(d);
}

/* Does the message name path and a byte offset ("offset N")? */
static bool names_path_and_offset(const char *msg, const char *path)
{
	const char *o = strstr(msg, "offset ");

	return strstr(msg, path) && o && o[7] >= '0' && o[7] <= '9';
}

/* ---- round trip -------------------------------------------------------- */

static void check_std_header(struct ebs_data *d, const char *path, const char *what, bool streamed)
{
	const struct ebs_file_header *h = ebs_data__header(d);
	u64 header_recs, size = file_size(path);
	struct group g;

	/* META (16 + value), EVENT (56 + three strings), DSO_IMAGE (72 + image) */
	header_recs = ALIGN8(16 + sizeof(STD_HOSTNAME)) + ALIGN8(16 + sizeof(STD_ARCH)) +
		      ALIGN8(16 + sizeof(STD_CMDLINE)) + ALIGN8(16 + 1) +
		      ALIGN8(56 + sizeof("cycles") + sizeof("cycles") + 1) +
		      ALIGN8(56 + sizeof("instructions:u") + sizeof("task-clock:u") +
			     sizeof(STD_EV1_WHY)) +
		      ALIGN8(72 + STD_DSO_SIZE) + 56;
	group_begin(&g, "data: %s: file header", what);
	G_STREQ(&g, ebs_data__path(d), path);
	G_TRUE(&g, memcmp(h->magic, "EBSDATA", 8) == 0);
	G_EQ(&g, h->endian, 0x01020304);
	G_EQ(&g, h->version_major, 2);
	G_EQ(&g, h->version_minor, 0); /* 2.0: SAMPLES, KSYMS */
	G_EQ(&g, h->header_size, 96);
	G_EQ(&g, h->flags, streamed ? EBS_FILE_STREAMED : 0);
	G_EQ(&g, h->data_offset, 96 + header_recs);
	G_EQ(&g, h->start_realtime_ns, STD_REALTIME);
	G_EQ(&g, h->start_clock_ns, STD_CLOCK);
	G_EQ(&g, h->reserved[0] | h->reserved[1] | h->reserved[2] | h->reserved[3], 0);
	if (streamed) {
		G_EQ(&g, h->trailer_offset, 0);
		G_EQ(&g, h->data_size, 0);
		G_TRUE(&g, ebs_data__trailer(d) == NULL); /* not before the scan */
	} else {
		const struct ebs_rec_trailer *t = ebs_data__trailer(d);

		G_EQ(&g, h->data_size, size - h->data_offset);
		G_TRUE(&g, t != NULL);
		if (t) {
			G_EQ(&g, h->trailer_offset, ebs_data__offset(d, t));
			G_EQ(&g, h->trailer_offset + t->hdr.size, size);
		}
	}
	group_end(&g);
}

static void check_std_meta(struct ebs_data *d, const char *what)
{
	struct group g;

	group_begin(&g, "data: %s: META", what);
	G_STREQ(&g, ebs_data__meta(d, EBS_META_HOSTNAME), STD_HOSTNAME);
	G_STREQ(&g, ebs_data__meta(d, EBS_META_ARCH), STD_ARCH);
	G_STREQ(&g, ebs_data__meta(d, EBS_META_CMDLINE), STD_CMDLINE);
	G_STREQ(&g, ebs_data__meta(d, STD_KEY_UNKNOWN), "");
	G_TRUE(&g, ebs_data__meta(d, EBS_META_TARGET) == NULL);
	group_end(&g);
}

static void check_std_events(struct ebs_data *d, const char *what)
{
	const struct ebs_event_info *e0 = ebs_data__event(d, 0), *e1 = ebs_data__event(d, 1);
	struct group g;

	group_begin(&g, "data: %s: EVENT records", what);
	G_EQ(&g, ebs_data__nr_events(d), 2);
	G_TRUE(&g, ebs_data__event(d, 2) == NULL);
	G_TRUE(&g, e0 && e1);
	if (e0 && e1) {
		G_EQ(&g, e0->rec->index, 0);
		G_EQ(&g, e0->rec->group, 0);
		G_EQ(&g, e0->rec->flags, EBS_EVF_HARDWARE | EBS_EVF_FREQ | EBS_EVF_GROUP_LEADER);
		G_EQ(&g, e0->rec->type, 0);
		G_EQ(&g, e0->rec->config, 0);
		G_EQ(&g, e0->rec->config1, 0);
		G_EQ(&g, e0->rec->sample_period, 0);
		G_EQ(&g, e0->rec->sample_freq, 4000);
		G_STREQ(&g, e0->asked, "cycles");
		G_STREQ(&g, e0->used, "cycles");
		G_STREQ(&g, e0->why, "");
		G_EQ(&g, e1->rec->index, 1);
		G_EQ(&g, e1->rec->group, 0);
		G_EQ(&g, e1->rec->flags, EBS_EVF_FALLBACK | EBS_EVF_EXCLUDE_KERNEL);
		G_EQ(&g, e1->rec->type, 1);
		G_EQ(&g, e1->rec->config, 1);
		G_EQ(&g, e1->rec->config1, 0x55);
		G_EQ(&g, e1->rec->sample_period, 1000003);
		G_EQ(&g, e1->rec->sample_freq, 0);
		G_STREQ(&g, e1->asked, "instructions:u");
		G_STREQ(&g, e1->used, "task-clock:u");
		G_STREQ(&g, e1->why, STD_EV1_WHY);
	}
	group_end(&g);

	group_begin(&g, "data: %s: find_event", what);
	G_EQ(&g, ebs_data__find_event(d, "cycles"), 0);
	G_EQ(&g, ebs_data__find_event(d, "instructions:u"), 1);
	G_EQ(&g, ebs_data__find_event(d, "task-clock:u"), 1);
	G_EQ(&g, ebs_data__find_event(d, "instructions"), -ENOENT);
	G_EQ(&g, ebs_data__find_event(d, ""), -ENOENT);
	group_end(&g);
}

static void check_std_dso(struct ebs_data *d, const char *what)
{
	const struct ebs_rec_dso_image *im = ebs_data__dso_image(d, "[vdso]");
	struct group g;
	unsigned int i, bad = 0;

	group_begin(&g, "data: %s: DSO_IMAGE", what);
	G_TRUE(&g, ebs_data__dso_image(d, "[vdso32]") == NULL);
	G_TRUE(&g, im != NULL);
	if (im) {
		G_EQ(&g, im->hdr.type, EBS_REC_DSO_IMAGE);
		G_EQ(&g, im->hdr.size, ALIGN8(sizeof(*im) + STD_DSO_SIZE));
		G_EQ(&g, im->image_size, STD_DSO_SIZE);
		G_EQ(&g, im->build_id_size, 20);
		for (i = 0; i < 20; i++)
			bad += im->build_id[i] != std_build_id(i);
		G_EQ(&g, bad, 0);
		G_STREQ(&g, im->name, "[vdso]");
		for (i = bad = 0; i < STD_DSO_SIZE; i++)
			bad += im->image[i] != std_dso_byte(i);
		G_EQ(&g, bad, 0);
		for (i = STD_DSO_SIZE; i < im->hdr.size - sizeof(*im); i++)
			bad += im->image[i] != 0;
		G_EQ(&g, bad, 0); /* padding is zero */
	}
	group_end(&g);
}

static void check_std_calibration(struct ebs_data *d, const char *what)
{
	const struct ebs_rec_calibration *c = ebs_data__calibration(d, 1);
	struct group g;

	group_begin(&g, "data: %s: CALIBRATION", what);
	G_TRUE(&g, ebs_data__calibration(d, 0) == NULL);
	G_TRUE(&g, ebs_data__calibration(d, 64) == NULL);
	G_TRUE(&g, c != NULL);
	if (c) {
		G_EQ(&g, c->hdr.type, EBS_REC_CALIBRATION);
		G_EQ(&g, c->hdr.size, 56);
		G_EQ(&g, c->event, 1);
		G_EQ(&g, c->rate_hz, 500);
		G_EQ(&g, c->sample_after, 2000000);
		G_EQ(&g, c->events_per_sec, 999000000);
		G_EQ(&g, c->target_samples, 10000);
		G_EQ(&g, c->overhead_ppm, 13000);
		G_EQ(&g, c->budget_ppm, 20000);
	}
	group_end(&g);
}

/* Field checks of the fixed data records 0..10 (see std_build). */
static void check_std_fixed_records(const struct ebs_rec *const *recs, const char *what)
{
	const struct ebs_rec_sample *s0 = (const void *)recs[0], *s1 = (const void *)recs[1];
	const struct ebs_rec_mmap *m = (const void *)recs[2];
	const struct ebs_rec_comm *c = (const void *)recs[3];
	const struct ebs_rec_lost *l0 = (const void *)recs[6], *l1 = (const void *)recs[7];
	const struct ebs_rec_throttle *t0 = (const void *)recs[8], *t1 = (const void *)recs[9];
	const struct ebs_rec_count *n = (const void *)recs[10];
	struct ebs_sample_parts p;
	struct group g;
	unsigned int i, bad = 0;

	group_begin(&g, "data: %s: SAMPLE fields", what);
	G_EQ(&g, s0->hdr.misc, EBS_CPUMODE_USER | EBS_SAMPLE_EXACT_IP);
	G_EQ(&g, s0->hdr.size, 48);
	G_EQ(&g, s0->ip, 0x401000);
	G_EQ(&g, s0->time, T0 + 1);
	G_EQ(&g, s0->period, 4001);
	G_EQ(&g, s0->pid, 100);
	G_EQ(&g, s0->tid, 101);
	G_EQ(&g, s0->cpu, 0);
	G_EQ(&g, s0->event, 0);
	G_EQ(&g, s1->hdr.misc, EBS_CPUMODE_KERNEL | EBS_SAMPLE_CALLCHAIN);
	G_EQ(&g, s1->ip, 0xffffffff81000010ull);
	G_EQ(&g, s1->time, T0 + 2);
	G_EQ(&g, s1->period, 1000003);
	G_EQ(&g, s1->pid, 100);
	G_EQ(&g, s1->tid, 102);
	G_EQ(&g, s1->cpu, 5);
	G_EQ(&g, s1->event, 1);
	group_end(&g);

	group_begin(&g, "data: %s: SAMPLE optional parts", what);
	ebs_sample__parts(s0, &p);
	G_EQ(&g, p.nr_callchain, 0);
	G_TRUE(&g, p.callchain == NULL && p.regs == NULL && p.stack == NULL);
	ebs_sample__parts(s1, &p);
	G_EQ(&g, s1->hdr.size, 48 + 8 + 3 * 8);
	G_EQ(&g, p.nr_callchain, 3);
	G_TRUE(&g, p.callchain == (const u64 *)(const void *)(s1 + 1) + 1);
	for (i = 0; p.callchain && i < 3; i++)
		G_EQ(&g, p.callchain[i], std_callchain[i]);
	G_TRUE(&g, p.regs == NULL && p.stack == NULL && p.stack_size == 0);
	group_end(&g);

	group_begin(&g, "data: %s: MMAP fields", what);
	G_EQ(&g, m->hdr.misc, EBS_CPUMODE_USER | EBS_MMAP_BUILD_ID);
	G_EQ(&g, m->hdr.size, ALIGN8(104 + sizeof(STD_MMAP_FILE)));
	G_EQ(&g, m->time, T0 + 3);
	G_EQ(&g, m->start, 0x7f0000400000ull);
	G_EQ(&g, m->len, 0x2000);
	G_EQ(&g, m->pgoff, 0x1000);
	G_EQ(&g, m->pid, 100);
	G_EQ(&g, m->tid, 100);
	G_EQ(&g, m->maj, 8);
	G_EQ(&g, m->min, 1);
	G_EQ(&g, m->ino, 123456);
	G_EQ(&g, m->ino_generation, 7);
	G_EQ(&g, m->prot, 5);
	G_EQ(&g, m->flags, 2);
	G_EQ(&g, m->build_id_size, 20);
	for (i = 0; i < 20; i++)
		bad += m->build_id[i] != std_build_id(i);
	G_EQ(&g, bad, 0);
	G_STREQ(&g, m->filename, STD_MMAP_FILE);
	group_end(&g);

	group_begin(&g, "data: %s: COMM fields", what);
	G_EQ(&g, c->hdr.misc, EBS_COMM_EXEC);
	G_EQ(&g, c->hdr.size, 24 + 16);
	G_EQ(&g, c->time, T0 + 4);
	G_EQ(&g, c->pid, 100);
	G_EQ(&g, c->tid, 101);
	G_STREQ(&g, c->comm, STD_COMM);
	group_end(&g);

	group_begin(&g, "data: %s: FORK and EXIT fields", what);
	for (i = 4; i <= 5; i++) {
		const struct ebs_rec_task *t = (const void *)recs[i];

		G_EQ(&g, t->hdr.size, 32);
		G_EQ(&g, t->time, T0 + 1 + i);
		G_EQ(&g, t->pid, 100);
		G_EQ(&g, t->ppid, 1);
		G_EQ(&g, t->tid, 103);
		G_EQ(&g, t->ptid, 101);
	}
	group_end(&g);

	group_begin(&g, "data: %s: LOST fields", what);
	G_EQ(&g, l0->time, T0 + 7);
	G_EQ(&g, l0->lost, 17);
	G_EQ(&g, l0->cpu, 2);
	G_EQ(&g, l0->event, 0);
	G_EQ(&g, l1->time, T0 + 8);
	G_EQ(&g, l1->lost, 5);
	G_EQ(&g, l1->cpu, 3);
	G_EQ(&g, l1->event, 0xffff);
	group_end(&g);

	group_begin(&g, "data: %s: THROTTLE and UNTHROTTLE fields", what);
	G_EQ(&g, t0->hdr.misc, 0);
	G_EQ(&g, t0->time, T0 + 9);
	G_EQ(&g, t0->cpu, 1);
	G_EQ(&g, t0->event, 0);
	G_EQ(&g, t1->hdr.misc, EBS_THROTTLE_END);
	G_EQ(&g, t1->time, T0 + 10);
	G_EQ(&g, t1->event, 0);
	group_end(&g);

	group_begin(&g, "data: %s: COUNT fields", what);
	G_EQ(&g, n->hdr.size, 56);
	G_EQ(&g, n->time, T0 + 11);
	G_EQ(&g, n->value, 987654321);
	G_EQ(&g, n->time_enabled, 2000);
	G_EQ(&g, n->time_running, 1500);
	G_EQ(&g, n->cpu, 0xffffffff);
	G_EQ(&g, n->tid, 101);
	G_EQ(&g, n->event, 1);
	group_end(&g);
}

/* Iterate, then check order, contents and the trailer against x. */
static void check_std_data(struct ebs_data *d, const char *what, const struct expect *x)
{
	static const u16 fixed_types[STD_NR_FIXED] = {
		EBS_REC_SAMPLE,	  EBS_REC_SAMPLE,   EBS_REC_MMAP,  EBS_REC_COMM,
		EBS_REC_FORK,	  EBS_REC_EXIT,	    EBS_REC_LOST,  EBS_REC_LOST,
		EBS_REC_THROTTLE, EBS_REC_THROTTLE, EBS_REC_COUNT,
	};
	const struct ebs_rec *recs[STD_MAX_RECORDS + 1], *rec;
	struct ebs_error err = {0};
	unsigned int n = 0, i, bad, records;
	struct group g;
	u64 buf[64];
	int r;

	/* copies: a packed sample lives only until the next SAMPLES record is read */
	static u64 copies[STD_MAX_RECORDS + 1][64];
	u64 offs[STD_MAX_RECORDS + 1];

	while ((r = ebs_data__next(d, &rec, &err)) == 1 && n <= STD_MAX_RECORDS) {
		offs[n] = ebs_data__offset(d, rec);
		memcpy(copies[n], rec,
		       rec->size <= sizeof(copies[n]) ? rec->size : sizeof(copies[n]));
		recs[n] = (const void *)copies[n];
		n++;
	}
	group_begin(&g, "data: %s: iteration reaches the trailer", what);
	G_EQ(&g, r, 0);
	group_check(&g, r >= 0, __LINE__, "%s", err.msg);
	G_TRUE(&g, ebs_data__trailer(d) != NULL);
	G_EQ(&g, ebs_data__next(d, &rec, &err), 0); /* and stays there */
	group_end(&g);

	group_begin(&g, "data: %s: record order and count", what);
	G_EQ(&g, n, x->nr_records);
	for (i = 0; i < n && i < STD_NR_FIXED; i++)
		G_EQ(&g, recs[i]->type, fixed_types[i]);
	for (; i < n; i++)
		G_EQ(&g, recs[i]->type, EBS_REC_SAMPLE);
	/*
	 * in file order, back to back, except that packed samples share their
	 * SAMPLES record's offset: the file's records are the distinct offsets
	 */
	for (i = 1, records = n ? 1 : 0; i < n; i++) {
		u64 off = offs[i], prev = offs[i - 1];

		if (off == prev && recs[i]->type == EBS_REC_SAMPLE &&
		    recs[i - 1]->type == EBS_REC_SAMPLE)
			continue;
		records++;
		if (recs[i - 1]->type == EBS_REC_SAMPLE &&
		    recs[i - 1]->size == sizeof(struct ebs_rec_sample))
			G_TRUE(&g, off > prev); /* after a SAMPLES record of unknown size */
		else
			G_EQ(&g, off, prev + recs[i - 1]->size);
	}
	G_TRUE(&g, ebs_data__trailer(d) && ebs_data__trailer(d)->nr_records == records);
	G_TRUE(&g, records < n); /* the samples were packed */
	if (n)
		G_EQ(&g, offs[0], ebs_data__header(d)->data_offset);
	bad = g.failed;
	group_end(&g);
	if (bad)
		return; /* the checks below cast records by position */

	group_begin(&g, "data: %s: every record byte for byte", what);
	for (i = bad = 0; i < n; i++) {
		u32 size = std_build(i, buf);

		bad += recs[i]->size != size || memcmp(recs[i], buf, size) != 0;
	}
	G_EQ(&g, bad, 0);
	group_end(&g);

	check_std_fixed_records(recs, what);

	group_begin(&g, "data: %s: rewind starts over", what);
	G_EQ(&g, ebs_data__rewind(d), 0);
	G_EQ(&g, ebs_data__next(d, &rec, &err), 1);
	G_TRUE(&g, rec->size == recs[0]->size && !memcmp(rec, recs[0], rec->size));
	group_end(&g);
}

static void check_std_trailer(struct ebs_data *d, const char *what, const struct expect *x)
{
	const struct ebs_rec_trailer *t = ebs_data__trailer(d);
	const struct ebs_index_entry *idx;
	struct group g;
	unsigned int i;

	group_begin(&g, "data: %s: trailer totals", what);
	G_TRUE(&g, t != NULL);
	if (t) {
		G_EQ(&g, t->hdr.type, EBS_REC_TRAILER);
		G_TRUE(&g, t->nr_records && t->nr_records < x->nr_records); /* samples packed */
		G_EQ(&g, t->samples, x->samples);
		G_EQ(&g, t->lost, x->lost);
		G_EQ(&g, t->throttled, x->throttled); /* the UNTHROTTLE is not counted */
		G_EQ(&g, t->exit_status, STD_EXIT_STATUS);
		G_EQ(&g, t->nr_events, 2);
		G_TRUE(&g, t->end_realtime_ns > STD_REALTIME && t->end_clock_ns != 0);
	}
	group_end(&g);

	group_begin(&g, "data: %s: trailer counts per event", what);
	G_TRUE(&g, ebs_data__counts(d, 2) == NULL);
	for (i = 0; i < 2; i++) {
		const struct ebs_event_counts *c = ebs_data__counts(d, i);

		G_TRUE(&g, c != NULL);
		if (!c)
			continue;
		G_EQ(&g, c->samples, x->counts[i].samples);
		G_EQ(&g, c->lost, x->counts[i].lost);
		G_EQ(&g, c->throttled, x->counts[i].throttled);
		G_EQ(&g, c->period_sum, x->counts[i].period_sum);
	}
	group_end(&g);

	group_begin(&g, "data: %s: trailer index", what);
	if (t) {
		idx = (const void *)((const struct ebs_event_counts *)(t + 1) + t->nr_events);
		G_EQ(&g, t->hdr.size,
		     sizeof(*t) + 2 * sizeof(struct ebs_event_counts) + t->nr_index * sizeof(*idx));
		G_EQ(&g, t->nr_index, 1);
		if (t->nr_index >= 1) {
			G_EQ(&g, idx[0].offset, ebs_data__header(d)->data_offset);
			G_EQ(&g, idx[0].time, T0 + 1);
		}
	}
	group_end(&g);
}

/* Open path and run every check of the standard content on it. */
static void check_std_file(const char *path, const char *what, bool streamed, unsigned int nr_extra)
{
	struct ebs_error err = {0};
	struct ebs_data *d = ebs_data__open(path, &err);
	char name[128];
	struct expect x;

	snprintf(name, sizeof(name), "data: %s: open", what);
	if (!d) {
		TEST_FAIL(name, "%s", err.msg);
		return;
	}
	TEST_OK(name);
	std_expect(nr_extra, &x);
	check_std_header(d, path, what, streamed);
	check_std_meta(d, what);
	check_std_events(d, what);
	check_std_dso(d, what);
	check_std_calibration(d, what);
	check_std_data(d, what, &x);
	check_std_trailer(d, what, &x);
	ebs_data__close(d);
}

static void test_round_trip(void)
{
	const unsigned int nr_extra = 20;
	struct ebs_error err = {0};
	char path[PATH_MAX];
	struct ebs_writer *w;
	struct expect x;
	struct group g;
	u64 size = 0, written = 0;
	int e;

	tmp_path(path, sizeof(path), "roundtrip.data");
	std_expect(nr_extra, &x);
	group_begin(&g, "data: round trip: write");
	w = ebs_writer__create(path, &err);
	group_check(&g, w != NULL, __LINE__, "create: %s", err.msg);
	if (!w) {
		group_end(&g);
		return;
	}
	e = std_write(w, nr_extra);
	G_EQ(&g, e, 0);
	G_TRUE(&g, ebs_writer__counts(w, 2) == NULL);
	G_TRUE(&g, ebs_writer__counts(w, 0) &&
			   ebs_writer__counts(w, 0)->samples == x.counts[0].samples);
	G_TRUE(&g, ebs_writer__counts(w, 1) &&
			   ebs_writer__counts(w, 1)->period_sum == x.counts[1].period_sum);
	written = ebs_writer__size(w);
	e = ebs_writer__finish(w, STD_EXIT_STATUS, &size, &err);
	group_check(&g, e == 0, __LINE__, "finish: %d %s", e, err.msg);
	G_EQ(&g, size, file_size(path));
	G_TRUE(&g, size > written); /* the trailer came after */
	group_end(&g);
	if (e == 0)
		check_std_file(path, "round trip", false, nr_extra);
}

/* ---- the trailer's index ----------------------------------------------- */

/*
 * More than 2 MiB of samples of varying sizes, so the index has at least
 * three entries at offsets that are not multiples of the stride.  Each entry
 * must sit on the first record boundary at or after the previous entry plus
 * EBS_INDEX_STRIDE and carry that record's time.
 */
static void test_index(void)
{
	const struct ebs_rec_trailer *t;
	const struct ebs_index_entry *idx;
	const struct ebs_rec *rec;
	struct ebs_error err = {0};
	struct ebs_rec_event ev = {.sample_period = 1000};
	struct ebs_writer *w;
	struct ebs_data *d;
	struct group g;
	char path[PATH_MAX];
	u64 buf[64], period_sum = 0, want_off = 0;
	unsigned int nr = 0, k = 0, i;
	int e, r;

	tmp_path(path, sizeof(path), "index.data");
	w = ebs_writer__create(path, &err);
	if (!w) {
		TEST_FAIL("data: index: write", "%s", err.msg);
		return;
	}
	e = ebs_writer__event(w, &ev, "cycles", "cycles", NULL);
	e = e ?: ebs_writer__begin_data(w, STD_REALTIME, STD_CLOCK);
	while (!e && ebs_writer__size(w) < (5u << 20) / 2) {
		struct ebs_rec_sample s = {
			.ip = 0x400000 + nr,
			.time = T0 + nr,
			.period = 1000 + nr % 7,
			.pid = 1,
			.tid = 1,
		};
		u64 cc[7] = {1, 2, 3, 4, 5, 6, 7};

		build_sample(buf, &s, nr % 7 ? cc : NULL, nr % 7);
		period_sum += s.period;
		e = ebs_writer__add(w, (const struct ebs_rec *)buf);
		nr++;
	}
	e = e ?: ebs_writer__finish(w, 0, NULL, &err);
	if (e) {
		TEST_FAIL("data: index: write", "%d %s", e, err.msg);
		return;
	}
	d = ebs_data__open(path, &err);
	if (!d) {
		TEST_FAIL("data: index: open", "%s", err.msg);
		return;
	}
	t = ebs_data__trailer(d);
	if (!t) {
		TEST_FAIL("data: index: open", "no trailer");
		ebs_data__close(d);
		return;
	}
	idx = (const void *)((const struct ebs_event_counts *)(t + 1) + t->nr_events);
	group_begin(&g, "data: index: more than one entry, each on a record boundary");
	G_TRUE(&g, file_size(path) > (2u << 20));
	G_TRUE(&g, t->nr_index >= 3);
	/* walk the records; entry k must be the first boundary >= want_off */
	while ((r = ebs_data__next(d, &rec, &err)) == 1) {
		u64 off = ebs_data__offset(d, rec);

		if (k < t->nr_index && off >= want_off) {
			G_EQ(&g, idx[k].offset, off);
			G_EQ(&g, idx[k].time, ((const struct ebs_rec_sample *)rec)->time);
			want_off = off + EBS_INDEX_STRIDE;
			k++;
		} else if (k == t->nr_index && off >= want_off) {
			group_check(&g, false, __LINE__, "offset %llu: a stride without an entry",
				    (unsigned long long)off);
			want_off = UINT64_MAX;
		}
	}
	group_check(&g, r == 0, __LINE__, "iteration: %s", err.msg);
	G_EQ(&g, k, t->nr_index);
	for (i = 1; i < t->nr_index; i++)
		G_TRUE(&g, idx[i].offset >= idx[i - 1].offset + EBS_INDEX_STRIDE);
	group_end(&g);

	group_begin(&g, "data: index: trailer counts of the big file");
	G_EQ(&g, t->nr_records, nr);
	G_EQ(&g, t->samples, nr);
	G_EQ(&g, ebs_data__counts(d, 0)->samples, nr);
	G_EQ(&g, ebs_data__counts(d, 0)->period_sum, period_sum);
	group_end(&g);
	ebs_data__close(d);
}

/* ---- writer misuse ----------------------------------------------------- */

static void test_writer_misuse(void)
{
	struct ebs_error err = {0};
	struct ebs_rec_event ev = {0};
	struct ebs_writer *w;
	struct group g;
	char path[PATH_MAX];
	u64 buf[64];
	struct ebs_rec *rec = (void *)buf;
	unsigned int i;
	int e = 0;

	group_begin(&g, "data: writer: calls out of order and bad records are refused");
	tmp_path(path, sizeof(path), "no-such-dir/x.data");
	G_TRUE(&g, ebs_writer__create(path, &err) == NULL);
	G_TRUE(&g, err.err < 0 && strstr(err.msg, path) != NULL);

	tmp_path(path, sizeof(path), "misuse.data");
	w = ebs_writer__create(path, &err); /* the event limit */
	G_TRUE(&g, w != NULL);
	if (w) {
		std_build(0, buf);
		G_EQ(&g, ebs_writer__add(w, rec), -EINVAL); /* before begin_data */
		for (i = 0; i < EBS_MAX_EVENTS && !e; i++)
			e = ebs_writer__event(w, &ev, "cpu-clock", "cpu-clock", NULL);
		G_EQ(&g, e, 0);
		G_EQ(&g, ebs_writer__event(w, &ev, "one-too-many", "x", NULL), -E2BIG);
		ebs_writer__abort(w);
	}
	w = ebs_writer__create(path, &err); /* header calls after begin_data */
	G_TRUE(&g, w != NULL);
	if (w) {
		G_EQ(&g, ebs_writer__event(w, &ev, "cpu-clock", "cpu-clock", NULL), 0);
		G_EQ(&g, ebs_writer__begin_data(w, 1, 2), 0);
		G_EQ(&g, ebs_writer__begin_data(w, 1, 2), -EINVAL);
		G_EQ(&g, ebs_writer__meta(w, EBS_META_HOSTNAME, "late"), -EINVAL);
		G_EQ(&g, ebs_writer__event(w, &ev, "late", "late", NULL), -EINVAL);
		std_build(0, buf);
		rec->size = 52; /* not a multiple of 8 */
		G_EQ(&g, ebs_writer__add(w, rec), -EINVAL);
		rec->size = 0;
		G_EQ(&g, ebs_writer__add(w, rec), -EINVAL);
		rec->type = EBS_REC_TRAILER; /* the writer's own */
		rec->size = sizeof(struct ebs_rec_trailer);
		G_EQ(&g, ebs_writer__add(w, rec), -EINVAL);
		rec->type = EBS_REC_SAMPLE; /* shorter than its fixed part */
		rec->size = 24;
		G_EQ(&g, ebs_writer__add(w, rec), -EINVAL);
		rec->type = EBS_REC_META; /* a header type among data records */
		rec->size = sizeof(struct ebs_rec_meta) + 8;
		G_EQ(&g, ebs_writer__add(w, rec), -EINVAL);
		ebs_writer__abort(w);
	}
	ebs_writer__abort(NULL);
	G_TRUE(&g, !file_exists(path));
	group_end(&g);
}

/* ---- temporary name, abort, NAME.old ----------------------------------- */

static int trailer_exit_status(const char *path)
{
	struct ebs_error err = {0};
	struct ebs_data *d = ebs_data__open(path, &err);
	int status;

	if (!d)
		return INT_MIN;
	status = ebs_data__trailer(d)->exit_status;
	ebs_data__close(d);
	return status;
}

static void test_rename(void)
{
	struct ebs_error err = {0};
	struct ebs_writer *w;
	struct group g;
	char path[PATH_MAX], old[PATH_MAX + 8];
	int e;

	group_begin(&g, "data: rename: the final name appears only at finish");
	tmp_path(path, sizeof(path), "renamed.data");
	w = ebs_writer__create(path, &err);
	G_TRUE(&g, w != NULL);
	if (w) {
		G_EQ(&g, std_write(w, 0), 0);
		G_TRUE(&g, !file_exists(path));
		G_EQ(&g, count_tmp_files("renamed.data"), 1);
		e = ebs_writer__finish(w, 0, NULL, &err);
		group_check(&g, e == 0, __LINE__, "finish: %s", err.msg);
		G_TRUE(&g, file_exists(path));
		G_EQ(&g, count_tmp_files("renamed.data"), 0);
		G_EQ(&g, trailer_exit_status(path), 0);
	}
	group_end(&g);

	group_begin(&g, "data: rename: abort leaves no file at all");
	tmp_path(path, sizeof(path), "aborted.data");
	w = ebs_writer__create(path, &err); /* aborted with data */
	G_TRUE(&g, w != NULL);
	if (w) {
		G_EQ(&g, std_write(w, 5), 0);
		G_EQ(&g, count_tmp_files("aborted.data"), 1);
		ebs_writer__abort(w);
	}
	w = ebs_writer__create(path, &err); /* aborted before begin_data */
	G_TRUE(&g, w != NULL);
	if (w) {
		G_EQ(&g, ebs_writer__meta(w, EBS_META_HOSTNAME, "h"), 0);
		ebs_writer__abort(w);
	}
	G_TRUE(&g, !file_exists(path));
	G_EQ(&g, count_tmp_files("aborted.data"), 0);
	group_end(&g);

	group_begin(&g, "data: rename: an existing file is kept as NAME.old");
	tmp_path(path, sizeof(path), "over.data");
	snprintf(old, sizeof(old), "%s.old", path);
	for (e = 1; e <= 3; e++) {
		w = ebs_writer__create(path, &err);
		G_TRUE(&g, w != NULL);
		if (!w)
			break;
		G_EQ(&g, std_write(w, 0), 0);
		G_EQ(&g, ebs_writer__finish(w, e, NULL, &err), 0);
		G_EQ(&g, trailer_exit_status(path), e);
		if (e == 1)
			G_TRUE(&g, !file_exists(old));
		else
			G_EQ(&g, trailer_exit_status(old), e - 1);
	}
	G_EQ(&g, count_tmp_files("over.data"), 0);
	group_end(&g);
}

/* ---- streamed output --------------------------------------------------- */

/* In the child: copy the file named by arg to stdout, a pipe. */
static int cat_child(void *arg)
{
	size_t len;
	u8 *buf = file_load(arg, &len);
	size_t off = 0;

	if (!buf)
		return 1;
	while (off < len) {
		ssize_t n = write(STDOUT_FILENO, buf + off, len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(buf);
	return off == len ? 0 : 1;
}

/* The reader given "-" with stdin a pipe (the slurp path). */
static void check_stdin_read(const char *file, const struct expect *x)
{
	const struct ebs_rec *rec;
	struct ebs_error err = {0};
	struct ebs_data *d = NULL;
	struct group g;
	unsigned int n = 0;
	int p[2], saved, status = -1, r = -1;
	pid_t pid;

	group_begin(&g, "data: streamed: read from a pipe on stdin (\"-\")");
	if (pipe(p) < 0) {
		group_check(&g, false, __LINE__, "pipe: %s", strerror(errno));
		group_end(&g);
		return;
	}
	saved = dup(STDIN_FILENO);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], STDOUT_FILENO);
		close(p[1]);
		_exit(cat_child((void *)file));
	}
	close(p[1]);
	dup2(p[0], STDIN_FILENO);
	close(p[0]);
	if (pid > 0) {
		d = ebs_data__open("-", &err);
		waitpid(pid, &status, 0);
	}
	dup2(saved, STDIN_FILENO);
	close(saved);
	G_TRUE(&g, pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	group_check(&g, d != NULL, __LINE__, "open: %s", err.msg);
	if (d) {
		G_STREQ(&g, ebs_data__path(d), "-");
		G_TRUE(&g, ebs_data__header(d)->flags & EBS_FILE_STREAMED);
		while ((r = ebs_data__next(d, &rec, &err)) == 1)
			n++;
		group_check(&g, r == 0, __LINE__, "iteration: %s", err.msg);
		G_EQ(&g, n, x->nr_records);
		G_TRUE(&g, ebs_data__trailer(d) && ebs_data__trailer(d)->samples == x->samples);
		ebs_data__close(d);
	}
	group_end(&g);
}

static void test_streamed(void)
{
	const unsigned int nr_extra = 20;
	char path[PATH_MAX];
	struct expect x;
	int status;

	tmp_path(path, sizeof(path), "streamed.data");
	status = std_streamed_file(path, nr_extra);
	if (status != 0) {
		TEST_FAIL("data: streamed: write to a pipe in a child", "status %d", status);
		return;
	}
	TEST_OK("data: streamed: write to a pipe in a child");
	check_std_file(path, "streamed", true, nr_extra);
	std_expect(nr_extra, &x);
	check_stdin_read(path, &x);
}

/* ---- bad files --------------------------------------------------------- */

/* Offset of the nth (0-based) record of type at or after from; 0 when none. */
static u64 find_rec(const u8 *buf, size_t len, u64 from, u16 type, unsigned int nth)
{
	u64 off = from;

	while (off + sizeof(struct ebs_rec) <= len) {
		const struct ebs_rec *r = (const void *)(buf + off);

		if (r->type == type && nth-- == 0)
			return off;
		if (r->size < 8)
			return 0;
		off += r->size;
	}
	return 0;
}

/*
 * Write buf as a file and read it through: it must be refused, by open or
 * by ebs_data__next, with a negative errno and a message naming the file
 * and "offset <want_off>" (want_off UINT64_MAX: any offset).
 */
/* As expect_bad, and the error's code code (util/error.h; EBS_E_NR: any). */
static void expect_bad_code(const char *label, const void *buf, size_t len, u64 want_off,
			    enum ebs_code code)
{
	char name[160], path[PATH_MAX], want[48];
	struct read_result res;

	snprintf(name, sizeof(name), "data: bad file: %s", label);
	tmp_path(path, sizeof(path), "bad.data");
	if (file_save(path, buf, len)) {
		TEST_FAIL(name, "cannot write %s", path);
		return;
	}
	read_through(path, len, &res);
	snprintf(want, sizeof(want), "offset %llu:", (unsigned long long)want_off);
	if (res.rc >= 0)
		TEST_FAIL(name, "read without error (%u records)", res.nr_records);
	else if (res.bad_err)
		TEST_FAIL(name, "returned %d but err.err is %d", res.rc, res.err.err);
	else if (!names_path_and_offset(res.err.msg, path))
		TEST_FAIL(name, "message does not name the file and an offset: %s", res.err.msg);
	else if (want_off != UINT64_MAX && !strstr(res.err.msg, want))
		TEST_FAIL(name, "message does not name %s: %s", want, res.err.msg);
	else if (code != EBS_E_NR && res.err.code != code)
		TEST_FAIL(name, "code %s, want %s: %s", ebs_error_code_name(res.err.code),
			  ebs_error_code_name(code), res.err.msg);
	else
		TEST_OK(name);
	if (res.rc < 0)
		printf("  # %s -> %s [%s]\n", label, res.err.msg,
		       ebs_error_code_name(res.err.code));
}

static void expect_bad(const char *label, const void *buf, size_t len, u64 want_off)
{
	expect_bad_code(label, buf, len, want_off, EBS_E_NR);
}

static void test_bad_files(void)
{
	static const char text[] = "This is a text file, not a recording.\nSecond line.\n"
				   "Third line, long enough to cover a whole file header.\n";
	char path[PATH_MAX];
	struct ebs_error err = {0};
	struct ebs_file_header *h;
	size_t len;
	u8 *base, *b;
	u64 off, data;

	tmp_path(path, sizeof(path), "base.data");
	if (std_file(path, 4, &err) || !(base = file_load(path, &len))) {
		TEST_FAIL("data: bad file: base file", "%s", err.msg);
		return;
	}
	b = malloc(len + 64);
	if (!b) {
		free(base);
		return;
	}
	h = (void *)b;
	data = ((const struct ebs_file_header *)(const void *)base)->data_offset;
#define RESET() memcpy(b, base, len)

	expect_bad_code("empty file", b, 0, 0, EBS_E_NOT_EBS_DATA);
	expect_bad_code("a text file", text, sizeof(text) - 1, 0, EBS_E_NOT_EBS_DATA);
	RESET();
	h->magic[3] = 'X';
	expect_bad_code("wrong magic", b, len, 0, EBS_E_NOT_EBS_DATA);
	RESET();
	h->endian = __builtin_bswap32(EBS_DATA_ENDIAN);
	expect_bad_code("the other byte order", b, len, 8, EBS_E_BYTE_ORDER);
	RESET();
	h->version_major = EBS_DATA_VERSION_MAJOR + 1;
	expect_bad_code("a future major version", b, len, 12, EBS_E_BAD_VERSION);
	RESET();
	h->header_size = 64;
	expect_bad("header_size too small", b, len, 16);
	RESET();
	h->data_offset = len + 8;
	expect_bad("data_offset past the end", b, len, 24);

	RESET();
	off = find_rec(b, len, data, EBS_REC_SAMPLES, 0);
	((struct ebs_rec_samples *)(b + off))->count = 0;
	expect_bad("a SAMPLES record of no sample", b, len, off);
	RESET();
	((struct ebs_rec_samples *)(b + off))->count = EBS_SAMPLES_MAX + 1;
	expect_bad("a SAMPLES record of too many samples", b, len, off);
	RESET();
	((struct ebs_rec_samples *)(b + off))->bytes = ((struct ebs_rec *)(b + off))->size;
	expect_bad("a SAMPLES record packing more bytes than it holds", b, len, off);
	RESET();
	((struct ebs_rec_samples *)(b + off))->count++;
	expect_bad("a SAMPLES record counting one sample more than it packs", b, len, UINT64_MAX);
	RESET();
	((struct ebs_rec_samples *)(b + off))->count--;
	expect_bad("a SAMPLES record counting one sample less than it packs", b, len, UINT64_MAX);
	RESET();
	/* the first sample's event (after flags, time, ip, pid, tid, cpu): out of range */
	{
		u8 *q = b + off + sizeof(struct ebs_rec_samples), *qe;
		int k;

		for (k = 0, qe = q + 1; k < 5; k++) /* skip the five varints */
			while (*qe++ & 0x80)
				;
		*qe = 9;
	}
	expect_bad("a packed sample naming an event the file lacks", b, len, off);
	RESET();
	off = find_rec(b, len, data, EBS_REC_COMM, 0);
	((struct ebs_rec *)(b + off))->size += 4;
	expect_bad_code("a record size not a multiple of 8", b, len, off, EBS_E_BAD_RECORD);
	RESET();
	off = find_rec(b, len, data, EBS_REC_COUNT, 0);
	((struct ebs_rec *)(b + off))->size = 1u << 20;
	expect_bad_code("a data record running past the end", b, len, off, EBS_E_TRUNCATED);
	RESET();
	off = find_rec(b, len, 96, EBS_REC_EVENT, 1);
	((struct ebs_rec *)(b + off))->size = (u32)len;
	expect_bad("a header record running past the end", b, len, off);
	RESET();
	off = find_rec(b, len, data, EBS_REC_SAMPLE, 0);
	((struct ebs_rec_sample *)(b + off))->event = 2;
	expect_bad("a SAMPLE naming event 2 of 2", b, len, off);
	RESET();
	off = find_rec(b, len, data, EBS_REC_SAMPLE, 1); /* the one with a callchain */
	((u64 *)(b + off + sizeof(struct ebs_rec_sample)))[0] = 4;
	expect_bad("a SAMPLE callchain overrunning the record", b, len, off);
	RESET();
	off = find_rec(b, len, data, EBS_REC_MMAP, 0);
	memset(b + off + sizeof(struct ebs_rec_mmap), 'A',
	       ((struct ebs_rec *)(b + off))->size - sizeof(struct ebs_rec_mmap));
	expect_bad("an MMAP file name not NUL-terminated", b, len, off);
	RESET();
	off = h->trailer_offset;
	((struct ebs_rec_trailer *)(b + off))->nr_events = 3;
	expect_bad("a trailer whose nr_events differs from the header", b, len, off);
	RESET();
	h->trailer_offset = 0;
	expect_bad_code("no trailer (trailer_offset 0)", b, len, 40, EBS_E_TRUNCATED);
	RESET();
	h->trailer_offset = len + 64;
	expect_bad("trailer_offset past the end", b, len, 40);
	RESET();
	h->trailer_offset = UINT64_MAX - 7; /* off + 8 wraps to 0 */
	expect_bad("trailer_offset near 2^64", b, len, 40);
	RESET();
	h->trailer_offset = find_rec(b, len, data, EBS_REC_SAMPLE, 0);
	expect_bad("trailer_offset at a SAMPLE", b, len, h->trailer_offset);
	RESET();
	off = h->trailer_offset;
	((struct ebs_rec_trailer *)(b + off))->nr_records--;
	expect_bad("a trailer counting one record less than the file has", b, len, off);
	RESET();
	off = find_rec(b, len, data, EBS_REC_COMM, 0);
	((struct ebs_rec *)(b + off))->type = 15; /* a header type, unknown or not */
	expect_bad("a header-type record among the data records", b, len, off);
	RESET();
	off = find_rec(b, len, 96, EBS_REC_EVENT, 0);
	((struct ebs_rec *)(b + off))->type = 200; /* a data type */
	expect_bad("a data-type record in the file header", b, len, off);
#undef RESET
	free(b);
	free(base);
}

/* ---- truncation -------------------------------------------------------- */

/* Every proper prefix of path must be refused with the file and an offset named. */
static void truncate_all(const char *path, const char *what)
{
	char name[160], cut[PATH_MAX], first[600] = "";
	unsigned int succeeded = 0, unnamed = 0, promises = 0;
	struct read_result res;
	size_t len, l;
	u8 *buf = file_load(path, &len);

	snprintf(name, sizeof(name), "data: truncation: %s file", what);
	if (!buf || len < 1024) {
		TEST_FAIL(name, "no valid file to cut (%zu bytes)", buf ? len : 0);
		free(buf);
		return;
	}
	tmp_path(cut, sizeof(cut), "cut.data");
	for (l = 0; l < len; l++) {
		if (file_save(cut, buf, l)) {
			TEST_FAIL(name, "cannot write %s", cut);
			break;
		}
		read_through(cut, l, &res);
		if (res.rc >= 0) {
			succeeded++;
			if (!first[0])
				snprintf(first, sizeof(first), "%zu bytes read without error", l);
		} else if (res.bad_err || !names_path_and_offset(res.err.msg, cut)) {
			unnamed++;
			if (!first[0])
				snprintf(first, sizeof(first), "%zu bytes: %s", l, res.err.msg);
		}
		promises += res.broken_promise;
	}
	snprintf(name, sizeof(name), "data: truncation: all %zu prefixes of the %s file refused",
		 len, what);
	if (succeeded)
		TEST_FAIL(name, "%u prefixes read without error; first: %s", succeeded, first);
	else
		TEST_OK(name);
	snprintf(name, sizeof(name),
		 "data: truncation: %s file: every message names it and an "
		 "offset",
		 what);
	if (unnamed)
		TEST_FAIL(name, "%u messages do not; first: %s", unnamed, first);
	else
		TEST_OK(name);
	snprintf(name, sizeof(name),
		 "data: truncation: %s file: records handed out before the "
		 "cut keep the reader's promises",
		 what);
	if (promises)
		TEST_FAIL(name, "%u prefixes broke one", promises);
	else
		TEST_OK(name);
	free(buf);
}

static void test_truncation(void)
{
	struct ebs_error err = {0};
	char path[PATH_MAX];

	tmp_path(path, sizeof(path), "trunc-src.data");
	if (std_file(path, 40, &err)) {
		TEST_FAIL("data: truncation: seekable file", "%s", err.msg);
		return;
	}
	truncate_all(path, "seekable");
	tmp_path(path, sizeof(path), "trunc-src-streamed.data");
	if (std_streamed_file(path, 40)) {
		TEST_FAIL("data: truncation: streamed file", "could not write it");
		return;
	}
	truncate_all(path, "streamed");
}

/* ---- random corruption ------------------------------------------------- */

static u64 xorshift64(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/*
 * 3000 copies of a valid file, each with 1-4 bytes XORed with a random
 * nonzero value.  Half of the flips land anywhere; the other half in the
 * file header or the trailer, where a single byte changes the most.
 */
static void corrupt_many(const char *path, const char *what, u64 seed)
{
	const unsigned int rounds = 3000;
	unsigned int i, ok = 0, at_open = 0, later = 0, hung = 0, unnamed = 0, promises = 0;
	char name[160], fuzz[PATH_MAX], first[600] = "";
	struct read_result res;
	size_t len;
	u8 *base = file_load(path, &len), *b;
	u64 trailer;

	b = base ? malloc(len) : NULL;
	snprintf(name, sizeof(name), "data: corruption: %s file", what);
	if (!b || len < 1024) {
		TEST_FAIL(name, "no valid file to corrupt");
		free(base);
		free(b);
		return;
	}
	/* the trailer: the last record, found by walking the data */
	trailer = ((const struct ebs_file_header *)(const void *)base)->data_offset;
	while (trailer + ((const struct ebs_rec *)(base + trailer))->size < len)
		trailer += ((const struct ebs_rec *)(base + trailer))->size;
	tmp_path(fuzz, sizeof(fuzz), "fuzz.data");
	for (i = 0; i < rounds; i++) {
		unsigned int nflips = 1 + (unsigned int)(xorshift64(&seed) % 4), k;

		memcpy(b, base, len);
		for (k = 0; k < nflips; k++) {
			u64 r = xorshift64(&seed);
			size_t pos;

			switch (r & 3) {
			case 0:
				pos = (r >> 8) % sizeof(struct ebs_file_header);
				break;
			case 1:
				pos = trailer + (r >> 8) % (len - trailer);
				break;
			default:
				pos = (r >> 8) % len;
				break;
			}
			b[pos] ^= (u8)(1 + (r >> 40) % 255);
		}
		if (file_save(fuzz, b, len)) {
			TEST_FAIL(name, "cannot write %s", fuzz);
			break;
		}
		read_through(fuzz, len, &res);
		hung += res.hung;
		promises += res.broken_promise;
		if (res.rc == 0) {
			ok++;
			continue;
		}
		if (res.at_open)
			at_open++;
		else
			later++;
		if (!res.hung && (res.bad_err || !names_path_and_offset(res.err.msg, fuzz))) {
			unnamed++;
			if (!first[0])
				snprintf(first, sizeof(first), "round %u: %s", i, res.err.msg);
		}
	}
	printf("  # corruption of the %s file: %u read fully, %u refused at open, "
	       "%u refused while iterating\n",
	       what, ok, at_open, later);
	snprintf(name, sizeof(name), "data: corruption: %s file: %u rounds, no crash, no hang",
		 what, rounds);
	if (hung || ok + at_open + later != rounds)
		TEST_FAIL(name, "%u iterations did not end; %u rounds ran", hung,
			  ok + at_open + later);
	else
		TEST_OK(name);
	snprintf(name, sizeof(name),
		 "data: corruption: %s file: every refusal names the file and "
		 "an offset",
		 what);
	if (unnamed)
		TEST_FAIL(name, "%u do not; first: %s", unnamed, first);
	else
		TEST_OK(name);
	snprintf(name, sizeof(name),
		 "data: corruption: %s file: records handed out keep the "
		 "reader's promises",
		 what);
	if (promises)
		TEST_FAIL(name, "%u rounds broke one", promises);
	else
		TEST_OK(name);
	free(b);
	free(base);
}

static void test_corruption(void)
{
	struct ebs_error err = {0};
	char path[PATH_MAX];

	tmp_path(path, sizeof(path), "fuzz-src.data");
	if (std_file(path, 40, &err)) {
		TEST_FAIL("data: corruption: seekable file", "%s", err.msg);
		return;
	}
	corrupt_many(path, "seekable", 0x9e3779b97f4a7c15ull);
	tmp_path(path, sizeof(path), "fuzz-src-streamed.data");
	if (std_streamed_file(path, 40)) {
		TEST_FAIL("data: corruption: streamed file", "could not write it");
		return;
	}
	corrupt_many(path, "streamed", 0x2545f4914f6cdd1dull);
}

/* A finished file's CALIBRATION updated in place (ebs calibrate -o). */
static void test_set_calibration(void)
{
	struct ebs_rec_calibration c = std_calib;
	struct ebs_error err = {0};
	char path[PATH_MAX];
	struct ebs_data *d;
	struct group g;
	u8 *before, *after;
	size_t len_before = 0, len_after = 0, i, diff = 0;
	int e;

	tmp_path(path, sizeof(path), "setcal.data");
	group_begin(&g, "data: CALIBRATION updated in a finished file");
	e = std_file(path, 0, &err);
	group_check(&g, e == 0, __LINE__, "write: %s", err.msg);
	before = file_load(path, &len_before);
	c.overhead_ppm = 4242;
	c.sample_after = 5000000;
	e = ebs_data__set_calibration(path, &c, &err);
	group_check(&g, e == 0, __LINE__, "set: %s", err.msg);
	after = file_load(path, &len_after);
	G_EQ(&g, len_after, len_before);
	for (i = 0; before && after && i < len_before && i < len_after; i++)
		diff += before[i] != after[i];
	G_TRUE(&g, diff > 0 && diff <= 16); /* two fields, nothing else */
	d = ebs_data__open(path, &err);
	group_check(&g, d != NULL, __LINE__, "open: %s", err.msg);
	if (d) {
		G_EQ(&g, ebs_data__calibration(d, 1)->overhead_ppm, 4242);
		G_EQ(&g, ebs_data__calibration(d, 1)->sample_after, 5000000);
		G_EQ(&g, ebs_data__calibration(d, 1)->hdr.type, EBS_REC_CALIBRATION);
		ebs_data__close(d);
	}
	c.event = 0; /* no CALIBRATION of event 0: said, nothing written */
	e = ebs_data__set_calibration(path, &c, &err);
	G_EQ(&g, e, -ENOENT);
	group_check(&g, strstr(err.msg, path) && strstr(err.msg, "event 0"), __LINE__, "%s",
		    err.msg);
	free(before);
	free(after);
	group_end(&g);
}

/*
 * A SAMPLE with all three optional parts (-g fp and dwarf write them): each
 * found where docs/format.md 7.1 puts it, and a record whose parts do not
 * fit its size gives none.
 */
static void test_sample_parts(void)
{
	u64 buf[64] = {0};
	struct ebs_rec_sample *s = (void *)buf;
	const u64 regs[3] = {0x7ffc0010, 0x7ffc0000, 0x401234}; /* BP, SP, IP */
	struct ebs_sample_parts p;
	u64 *w = (u64 *)(s + 1);
	struct group g;

	s->hdr.type = EBS_REC_SAMPLE;
	s->hdr.misc = EBS_CPUMODE_USER | EBS_SAMPLE_CALLCHAIN | EBS_SAMPLE_REGS_USER |
		      EBS_SAMPLE_STACK_USER;
	*w++ = 3; /* chain: [user] ip ra */
	*w++ = EBS_CHAIN_USER;
	*w++ = 0x401234;
	*w++ = 0x401000;
	*w++ = 2;     /* abi 64 */
	*w++ = 0x1c0; /* BP, SP, IP */
	memcpy(w, regs, sizeof(regs));
	w += 3;
	*w++ = 16; /* stack: 16 bytes, 12 in use */
	memset(w, 0xab, 12);
	w += 2;
	*w++ = 12;
	s->hdr.size = (u32)((u8 *)w - (u8 *)buf);

	group_begin(&g, "data: SAMPLE with chain, registers and stack");
	ebs_sample__parts(s, &p);
	G_EQ(&g, p.nr_callchain, 3);
	G_TRUE(&g, p.callchain && p.callchain[0] == EBS_CHAIN_USER && p.callchain[2] == 0x401000);
	G_EQ(&g, p.regs_abi, 2);
	G_EQ(&g, p.regs_mask, 0x1c0);
	G_TRUE(&g, p.regs && p.regs[1] == 0x7ffc0000 && p.regs[2] == 0x401234);
	G_EQ(&g, p.stack_size, 16);
	G_EQ(&g, p.stack_dyn_size, 12);
	G_TRUE(&g, p.stack == (const u8 *)(buf + 6 + 4 + 5 + 1));
	/* one byte short of the dyn_size word: no parts at all */
	s->hdr.size -= 8;
	ebs_sample__parts(s, &p);
	G_TRUE(&g, !p.callchain && !p.regs && !p.stack);
	s->hdr.size += 8;
	/* dyn_size above size */
	w[-1] = 17;
	ebs_sample__parts(s, &p);
	G_TRUE(&g, !p.stack && !p.regs);
	w[-1] = 12;
	/* a register mask with more registers than the record holds */
	buf[6 + 4 + 1] = ~0ull;
	ebs_sample__parts(s, &p);
	G_TRUE(&g, !p.regs && !p.callchain);
	group_end(&g);
}

/* ---- packed samples ----------------------------------------------------- */

/* A random sample of odd shape: modes, times that jump back, extreme values. */
static void random_sample(u64 *seed, const struct ebs_rec_sample *prev, struct ebs_rec_sample *s)
{
	static const u16 modes[] = {EBS_CPUMODE_USER, EBS_CPUMODE_KERNEL, EBS_CPUMODE_GUEST_USER,
				    EBS_CPUMODE_GUEST_KERNEL, EBS_CPUMODE_UNKNOWN};
	u64 r = xorshift64(seed);

	*s = *prev;
	s->hdr.type = EBS_REC_SAMPLE;
	s->hdr.size = sizeof(*s);
	s->hdr.misc = modes[r % 5] | (r & 0x100 ? EBS_SAMPLE_EXACT_IP : 0);
	switch ((r >> 9) % 4) {
	case 0:
		s->ip = xorshift64(seed);
		break;
	case 1:
		s->ip += (r >> 20) % 4096;
		break;
	case 2:
		s->ip -= (r >> 20) % 64;
		break;
	default:
		s->ip = (r & 0x10000) ? UINT64_MAX : 0;
		break;
	}
	s->time += (r >> 12) % 8 == 0 ? -(u64)((r >> 30) % 100000) : (r >> 32) % 1000000;
	if ((r >> 40) % 16 == 0) {
		s->pid = (u32)xorshift64(seed);
		s->tid = (r >> 44) % 2 ? s->pid : UINT32_MAX;
	}
	if ((r >> 45) % 8 == 0)
		s->cpu = (r >> 48) % 2 ? (u32)(r >> 50) % 4 : UINT32_MAX;
	if ((r >> 51) % 8 == 0)
		s->event = (u16)(r >> 52);
	if ((r >> 54) % 4 == 0)
		s->period = (r >> 56) % 2 ? xorshift64(seed) : s->period + (r >> 57) % 300 - 150;
}

static void test_packed(void)
{
	struct ebs_pack *pack = ebs_pack__new(EBS_REC_SAMPLES);
	static struct ebs_rec_sample in[EBS_SAMPLES_MAX], out[EBS_SAMPLES_MAX];
	struct ebs_rec_sample prev = {0};
	const struct ebs_rec_samples *r;
	unsigned int round, n, bad = 0, len_ok = 0, flips_bad = 0, flips_ok = 0;
	u64 seed = 0x9e3779b97f4a7c15ull, bytes = 0, samples = 0;
	const char *why;
	size_t at;
	struct group g;

	group_begin(&g, "data: packed samples: 200 records of random samples unpack as they were");
	for (round = 0; round < 200; round++) {
		ebs_pack__reset(pack);
		for (n = 0; ebs_pack__room(pack, &prev); n++) {
			random_sample(&seed, &prev, &in[n]);
			prev = in[n];
			G_TRUE(&g, ebs_pack__fits(pack, &in[n]));
			ebs_pack__add(pack, &in[n]);
			if (round % 2 && n == round)
				break; /* short records too */
		}
		n += round % 2 && n == round;
		r = (const void *)ebs_pack__record(pack);
		if (!r || r->count != n || r->hdr.size % 8 || r->bytes + sizeof(*r) > r->hdr.size) {
			bad++;
			continue;
		}
		len_ok += r->bytes <= n * EBS_PACK_MAX_SAMPLE;
		bytes += r->bytes;
		samples += n;
		if (ebs_unpack((const u8 *)(r + 1), r->bytes, r->count, out, &at, &why) ||
		    memcmp(in, out, n * sizeof(*in)))
			bad++;
		else if (ebs_pack__first_time(r) != in[0].time)
			bad++;
	}
	G_EQ(&g, bad, 0);
	G_EQ(&g, len_ok, 200);
	printf("  # %llu random samples in %llu bytes\n", (unsigned long long)samples,
	       (unsigned long long)bytes);
	group_end(&g);

	group_begin(&g, "data: packed samples: what cannot be packed is refused by fits");
	prev.hdr.misc = EBS_CPUMODE_USER | EBS_SAMPLE_CALLCHAIN;
	G_TRUE(&g, !ebs_pack__fits(pack, &prev));
	prev.hdr.misc = EBS_CPUMODE_USER;
	prev.reserved = 1;
	G_TRUE(&g, !ebs_pack__fits(pack, &prev));
	prev.reserved = 0;
	prev.hdr.size = sizeof(prev) + 8;
	G_TRUE(&g, !ebs_pack__fits(pack, &prev));
	group_end(&g);

	/* a typical stream: one thread, one CPU, 100 us apart, ips nearby */
	group_begin(&g,
		    "data: packed samples: a cpu-clock stream packs in at most 10 bytes a sample");
	ebs_pack__reset(pack);
	memset(&prev, 0, sizeof(prev));
	prev.hdr.type = EBS_REC_SAMPLE;
	prev.hdr.size = sizeof(prev);
	prev.hdr.misc = EBS_CPUMODE_USER;
	prev.pid = prev.tid = 4242;
	prev.time = 1234567890123ull;
	prev.ip = 0x55555555a000ull;
	for (n = 0; ebs_pack__room(pack, &prev); n++) {
		u64 rr = xorshift64(&seed);

		prev.time += 100000 + rr % 2000;
		prev.period = 100000 + (rr >> 16) % 2000;
		prev.ip = 0x55555555a000ull + (rr >> 32) % 200000;
		ebs_pack__add(pack, &prev);
	}
	r = (const void *)ebs_pack__record(pack);
	G_TRUE(&g, r && r->bytes <= 10 * r->count);
	if (r)
		printf("  # %u samples in %u bytes\n", r->count, r->bytes);
	group_end(&g);

	/* hostile bytes: never a crash, every failure placed inside the bytes */
	group_begin(
		&g,
		"data: packed samples: 20,000 corrupted records: refused or read, never beyond");
	{
		static u8 copy[EBS_SAMPLES_MAX_BYTES];
		const u8 *orig = (const u8 *)(r + 1);
		unsigned int k;

		for (k = 0; k < 20000; k++) {
			u64 rr = xorshift64(&seed);
			size_t len = r->bytes - (k % 3 == 0 ? rr % 17 : 0);
			u32 count = r->count + (k % 5 == 0 ? (u32)(rr >> 8) % 3 - 1 : 0);

			memcpy(copy, orig, r->bytes);
			copy[(rr >> 16) % len] ^= (u8)(1u << ((rr >> 40) % 8));
			if (count > EBS_SAMPLES_MAX || !count)
				count = 1;
			if (ebs_unpack(copy, len, count, out, &at, &why)) {
				flips_bad++;
				G_TRUE(&g, at <= len && why && why[0]);
			} else {
				flips_ok++;
			}
		}
	}
	G_TRUE(&g, flips_bad > 0);
	printf("  # %u refused, %u read\n", flips_bad, flips_ok);
	group_end(&g);

	group_begin(&g, "data: packed samples: each malformation is named");
	{
		u8 b[16];

		memset(b, 0x80, sizeof(b)); /* a varint that never ends */
		b[0] = EBS_CPUMODE_USER | EBS_SAMPLES_F_TASK;
		G_EQ(&g, ebs_unpack(b, sizeof(b), 1, out, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "more than 64 bits") != NULL);
		G_EQ(&g, ebs_unpack(b, 5, 1, out, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "runs past") != NULL && at == 5);
		/* flags, time 0, ip 0, and no pid in the first sample */
		memset(b, 0, sizeof(b));
		b[0] = EBS_CPUMODE_USER;
		G_EQ(&g, ebs_unpack(b, 3, 1, out, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "no pid") != NULL);
		/* a whole first sample, then a byte too many */
		b[0] = EBS_CPUMODE_USER | EBS_SAMPLES_F_TASK | EBS_SAMPLES_F_CPU |
		       EBS_SAMPLES_F_EVENT | EBS_SAMPLES_F_PERIOD;
		G_EQ(&g, ebs_unpack(b, 8, 1, out, &at, &why), 0);
		G_EQ(&g, ebs_unpack(b, 9, 1, out, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "left") != NULL && at == 8);
		G_EQ(&g, ebs_unpack(b, 8, 2, out, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "fewer") != NULL);
		/* an event index of 65536 */
		b[6] = 0x80, b[7] = 0x80, b[8] = 0x04;
		G_EQ(&g, ebs_unpack(b, 10, 1, out, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "event") != NULL);
	}
	group_end(&g);
	ebs_pack__free(pack);
}

/* ---- samples with parts packed (SAMPLES_CG) ------------------------------ */

/*
 * What random samples with parts are drawn from: callers that chains share,
 * a stack whose words come from memory that changes a little between
 * samples, registers that wander.
 */
struct cg_gen {
	u64 seed;
	u64 callers[8][24];
	u64 mem[4096]; /* the stack's words, by (address - CG_STACK) / 8 */
	u64 sp, regs[64];
	struct ebs_rec_sample prev;
	bool odd; /* also markers, raw values, odd masks and sizes, misaligned stacks */
};

#define CG_STACK 0x7ffc00000000ull

static void cg_gen_init(struct cg_gen *g, u64 seed, bool odd)
{
	unsigned int i, j;

	memset(g, 0, sizeof(*g));
	g->seed = seed;
	g->odd = odd;
	for (i = 0; i < 8; i++)
		for (j = 0; j < 24; j++)
			g->callers[i][j] = 0x555555554000ull + xorshift64(&g->seed) % 0x200000;
	for (i = 0; i < 4096; i++)
		g->mem[i] = i % 3 ? xorshift64(&g->seed) : 0x555555554000ull + i;
	g->sp = CG_STACK + 8 * 2048;
}

/* The next sample into buf (room for 48 + 8 * 4200 bytes); its size. */
static u32 cg_sample(struct cg_gen *g, u64 *buf)
{
	struct ebs_rec_sample *s = (void *)buf;
	u64 r = xorshift64(&g->seed), *w = (u64 *)(s + 1), mask, i, n;
	bool odd = g->odd && r % 4 == 0;

	if (g->odd)
		random_sample(&g->seed, &g->prev, s);
	else {
		*s = g->prev;
		s->hdr.type = EBS_REC_SAMPLE;
		s->hdr.misc = r % 16 ? EBS_CPUMODE_USER : EBS_CPUMODE_KERNEL;
		s->ip = (r % 16 ? 0x555555554000ull : 0xffffffff81000000ull) + (r >> 8) % 0x200000;
		s->time += 250000 + (r >> 32) % 1000;
		s->pid = s->tid = 4242;
		s->period = 250000;
	}
	g->prev = *s;
	s->hdr.misc &= EBS_CPUMODE_MASK | EBS_SAMPLE_EXACT_IP;
	if (!odd || r & 0x10) { /* a chain: [kernel ...] [user] ip callers */
		u64 *nr = w++, pool = (r >> 5) % 8, depth = (r >> 8) % 24;

		s->hdr.misc |= EBS_SAMPLE_CALLCHAIN;
		if ((s->hdr.misc & EBS_CPUMODE_MASK) == EBS_CPUMODE_KERNEL) {
			*w++ = EBS_CHAIN_KERNEL;
			*w++ = s->ip;
			*w++ = 0xffffffff81000000ull + (r >> 13) % 4096;
		}
		*w++ = EBS_CHAIN_USER;
		*w++ = s->hdr.misc == EBS_CPUMODE_USER ? s->ip : 0x555555560000ull;
		for (i = 0; i < depth; i++)
			*w++ = g->callers[pool][i];
		if (odd && r & 0x20)
			*w++ = (u64)-2048; /* another marker */
		if (odd && r & 0x40)
			*w++ = xorshift64(&g->seed); /* anywhere: an escape */
		if (odd && r & 0x80)
			w = nr + 1; /* no frame at all */
		*nr = (u64)(w - nr - 1);
	}
	if (!odd || r & 0x100) { /* registers: fp's BP, SP, IP, or dwarf's, or any */
		mask = !odd ? ((r >> 9) % 2 ? 0x1c0 : 0xff0fff) : (r >> 9) % 3 ? 0x140 : r >> 20;
		s->hdr.misc |= EBS_SAMPLE_REGS_USER;
		*w++ = 2;
		*w++ = mask;
		/* the depth of the stack changes by up to 2 KiB */
		g->sp = CG_STACK + 8 * (3200 + (r >> 40) % 256) + (odd && r & 0x200 ? 4 : 0);
		for (i = 0; mask; mask &= mask - 1, i++) {
			unsigned int b = (unsigned int)__builtin_ctzll(mask);

			g->regs[b] += b == EBS_REG_X86_SP ? 0 : xorshift64(&g->seed) % 64;
			*w++ = b == EBS_REG_X86_SP ? g->sp : g->regs[b];
		}
	}
	if ((!odd || r & 0x400) && s->hdr.misc & EBS_SAMPLE_REGS_USER) {
		/* the copy runs to the top of the stack (the kernel's dyn_size), or is cut at 7 KiB
		 */
		u64 at = (g->sp - CG_STACK) / 8, size = odd ? (r >> 11) % 900 : 8 * (4096 - at);

		s->hdr.misc |= EBS_SAMPLE_STACK_USER;
		*w++ = size;
		n = ALIGN8(size) / 8;
		for (i = 0; i < n; i++)
			*w++ = at + i < 4096 ? g->mem[at + i] : 0;
		*w++ = size - (r >> 50) % (size + 1);
		for (i = 0; i < 6; i++) /* the leaf frames change */
			g->mem[(at + xorshift64(&g->seed) % 32) % 4096] = xorshift64(&g->seed);
	}
	s->hdr.size = (u32)((u8 *)w - (u8 *)buf);
	return s->hdr.size;
}

static void test_packed_cg(void)
{
	static u64 in[(EBS_SAMPLES_CG_MAX_UNPACKED + 65536) / 8],
		out[EBS_SAMPLES_CG_MAX_UNPACKED / 8];
	struct ebs_pack *pack = ebs_pack__new(EBS_REC_SAMPLES_CG);
	static struct cg_gen gen;
	const struct ebs_rec_samples *r = NULL;
	unsigned int round, bad = 0, unfit = 0, flips_bad = 0, flips_ok = 0, k;
	u64 bytes = 0, unpacked = 0, samples = 0;
	const char *why;
	size_t at, len, off;
	struct group g;

	group_begin(
		&g,
		"data: SAMPLES_CG: 60 records of random samples with parts unpack as they were");
	for (round = 0; pack && round < 60; round++) {
		ebs_pack__reset(pack);
		if (round % 20 == 0)
			cg_gen_init(&gen, 0x1234567ull + round, round % 40 == 20);
		for (off = 0; off + 48 + 8 * 4200 <= sizeof(in) - 65536;) {
			struct ebs_rec_sample *s = (void *)((u8 *)in + off);

			cg_sample(&gen, (u64 *)s);
			if (!ebs_pack__fits(pack, s)) {
				unfit++;
				continue;
			}
			if (!ebs_pack__room(pack, s) || (round % 3 == 1 && pack->count == round))
				break;
			if (ebs_pack__add(pack, s))
				bad++;
			off += s->hdr.size;
		}
		r = (const void *)ebs_pack__record(pack);
		if (!r || r->hdr.type != EBS_REC_SAMPLES_CG ||
		    r->bytes + sizeof(*r) > r->hdr.size) {
			bad++;
			continue;
		}
		bytes += r->bytes;
		unpacked += off;
		samples += r->count;
		if (ebs_unpack_cg((const u8 *)(r + 1), r->bytes, r->count, (u8 *)out, sizeof(out),
				  &len, &at, &why) ||
		    len != off || memcmp(in, out, off))
			bad++;
		else if (ebs_pack__first_time(r) != ((struct ebs_rec_sample *)in)->time)
			bad++;
	}
	G_TRUE(&g, pack != NULL);
	G_EQ(&g, bad, 0);
	G_EQ(&g, unfit, 0);
	printf("  # %llu samples, %llu bytes unpacked, %llu packed\n", (unsigned long long)samples,
	       (unsigned long long)unpacked, (unsigned long long)bytes);
	group_end(&g);

	/* frame-pointer chains and dwarf stacks of one thread: the repeats go */
	group_begin(&g,
		    "data: SAMPLES_CG: a -g stream packs to at most a sixth of its SAMPLE records");
	if (pack) {
		ebs_pack__reset(pack);
		cg_gen_init(&gen, 42, false);
		for (off = 0; off + 48 + 8 * 4200 <= sizeof(in) - 65536;) {
			struct ebs_rec_sample *s = (void *)((u8 *)in + off);

			cg_sample(&gen, (u64 *)s);
			if (!ebs_pack__room(pack, s))
				break;
			ebs_pack__add(pack, s);
			off += s->hdr.size;
		}
		r = (const void *)ebs_pack__record(pack);
		G_TRUE(&g, r && r->bytes * 6 <= off);
		if (r)
			printf("  # %u samples: %zu bytes as SAMPLE records, %u packed\n", r->count,
			       off, r->bytes);
	}
	group_end(&g);

	group_begin(&g,
		    "data: SAMPLES_CG: 20,000 corrupted records: refused or read, never beyond");
	if (r) {
		static u8 copy[EBS_SAMPLES_CG_MAX_BYTES];
		const u8 *orig = (const u8 *)(r + 1);
		u64 seed = 99;

		for (k = 0; k < 20000; k++) {
			u64 rr = xorshift64(&seed);
			size_t clen = r->bytes - (k % 3 == 0 ? rr % 17 : 0);
			u32 count = r->count + (k % 5 == 0 ? (u32)(rr >> 8) % 3 - 1 : 0);
			size_t cap = k % 7 == 0 ? (rr >> 24) % sizeof(out) : sizeof(out);

			memcpy(copy, orig, r->bytes);
			copy[(rr >> 16) % clen] ^= (u8)(1u << ((rr >> 40) % 8));
			if (count > EBS_SAMPLES_MAX || !count)
				count = 1;
			if (ebs_unpack_cg(copy, clen, count, (u8 *)out, cap, &len, &at, &why)) {
				flips_bad++;
				G_TRUE(&g, at <= clen && why && why[0]);
			} else {
				flips_ok++;
				G_TRUE(&g, len <= cap);
			}
		}
	}
	G_TRUE(&g, flips_bad > 0);
	printf("  # %u refused, %u read\n", flips_bad, flips_ok);
	group_end(&g);

	group_begin(&g, "data: SAMPLES_CG: each malformation is named");
	{
		/* flags (all fields), parts, time, ip, pid, tid, cpu, event, period, then the part
		 */
		u8 b[32] = {EBS_CPUMODE_USER | 0xf0, EBS_CG_PART_CHAIN, 0, 0, 1, 1, 0, 0, 0};

		b[9] = 1; /* ref 1: no chain before */
		G_EQ(&g, ebs_unpack_cg(b, 10, 1, (u8 *)out, sizeof(out), &len, &at, &why),
		     -EBADMSG);
		G_TRUE(&g, strstr(why, "does not have") != NULL && at == 10);
		b[9] = 0, b[10] = 1, b[11] = 7; /* ref 0, one fresh frame, code 7 */
		G_EQ(&g, ebs_unpack_cg(b, 12, 1, (u8 *)out, sizeof(out), &len, &at, &why),
		     -EBADMSG);
		G_TRUE(&g, strstr(why, "unknown chain frame code") != NULL);
		b[11] = 3; /* [user]: a whole sample */
		G_EQ(&g, ebs_unpack_cg(b, 12, 1, (u8 *)out, sizeof(out), &len, &at, &why), 0);
		G_EQ(&g, len, 48 + 16);
		G_EQ(&g, ebs_unpack_cg(b, 12, 1, (u8 *)out, 60, &len, &at, &why), -EBADMSG);
		G_TRUE(&g, strstr(why, "more than their record may") != NULL);
		b[1] = 8; /* a parts bit unknown */
		G_EQ(&g, ebs_unpack_cg(b, 12, 1, (u8 *)out, sizeof(out), &len, &at, &why),
		     -EBADMSG);
		G_TRUE(&g, strstr(why, "unknown bits") != NULL);
		/* a stack of 16 bytes that repeats a word no stack before has */
		b[1] = EBS_CG_PART_STACK, b[9] = 16, b[10] = 16, b[11] = 1, b[12] = 1, b[13] = 0;
		G_EQ(&g, ebs_unpack_cg(b, 14, 1, (u8 *)out, sizeof(out), &len, &at, &why),
		     -EBADMSG);
		G_TRUE(&g, strstr(why, "repeats words") != NULL);
		b[11] = 0, b[12] = 3; /* three new words in a stack of two */
		G_EQ(&g, ebs_unpack_cg(b, 14, 1, (u8 *)out, sizeof(out), &len, &at, &why),
		     -EBADMSG);
		G_TRUE(&g, strstr(why, "past the stack") != NULL);
		b[12] = 2, b[13] = 0, b[14] = 0; /* two new words, both 0 */
		G_EQ(&g, ebs_unpack_cg(b, 15, 1, (u8 *)out, sizeof(out), &len, &at, &why), 0);
		G_EQ(&g, len, 48 + 8 + 16 + 8);
		b[10] = 17; /* dyn_size beyond size */
		G_EQ(&g, ebs_unpack_cg(b, 15, 1, (u8 *)out, sizeof(out), &len, &at, &why),
		     -EBADMSG);
		G_TRUE(&g, strstr(why, "dyn_size") != NULL);
	}
	group_end(&g);

	group_begin(&g, "data: SAMPLES_CG: what cannot be packed is refused by fits");
	{
		u64 buf[16] = {0};
		struct ebs_rec_sample *s = (void *)buf;

		s->hdr.type = EBS_REC_SAMPLE;
		s->hdr.misc = EBS_CPUMODE_USER | EBS_SAMPLE_CALLCHAIN;
		buf[6] = 1, buf[7] = 0x401000; /* chain of one */
		s->hdr.size = 64;
		G_TRUE(&g, pack && ebs_pack__fits(pack, s));
		s->hdr.size = 72; /* a word after the parts */
		G_TRUE(&g, pack && !ebs_pack__fits(pack, s));
		s->hdr.size = 64;
		s->hdr.misc |= 1u << 7; /* a misc bit beyond the parts */
		G_TRUE(&g, pack && !ebs_pack__fits(pack, s));
		s->hdr.misc &= (u16) ~(1u << 7);
		s->reserved = 1;
		G_TRUE(&g, pack && !ebs_pack__fits(pack, s));
	}
	group_end(&g);
	ebs_pack__free(pack);
}

/* The records of type type in the data of the file at path. */
static unsigned int count_type(const char *path, u16 type)
{
	size_t len;
	u8 *b = file_load(path, &len);
	unsigned int n = 0;
	u64 off;

	if (!b || len < sizeof(struct ebs_file_header))
		goto out;
	for (off = ((const struct ebs_file_header *)(const void *)b)->data_offset;
	     off + sizeof(struct ebs_rec) <= len;) {
		const struct ebs_rec *r = (const void *)(b + off);

		if (r->size < 8)
			break;
		n += r->type == type;
		off += r->size;
	}
out:
	free(b);
	return n;
}

/*
 * A recording with META CALL_GRAPH is written as 4.0, its samples in
 * SAMPLES_CGZ records, and they read back as they went in.
 */
static void test_cg_file(void)
{
	static u64 in[(2u << 20) / 8];
	struct ebs_error err = {0};
	struct ebs_rec_event ev = {.hdr = {.type = EBS_REC_EVENT}, .sample_period = 250000};
	static struct cg_gen gen;
	const struct ebs_rec *rec;
	char path[PATH_MAX];
	struct ebs_writer *w;
	struct ebs_data *d;
	size_t off = 0, n = 0, i, got = 0, bad = 0;
	struct group g;
	int e;

	group_begin(&g, "data: a -g recording: written as 4.0 (SAMPLES_CGZ), read back sample for "
			"sample");
	tmp_path(path, sizeof(path), "cg.data");
	w = ebs_writer__create(path, &err);
	group_check(&g, w != NULL, __LINE__, "create: %s", err.msg);
	if (!w) {
		group_end(&g);
		return;
	}
	e = ebs_writer__meta(w, EBS_META_CALL_GRAPH, "dwarf,8192");
	e = e ?: ebs_writer__event(w, &ev, "cpu-clock", "cpu-clock", "");
	e = e ?: ebs_writer__begin_data(w, STD_REALTIME, STD_CLOCK);
	cg_gen_init(&gen, 7, false);
	while (!e && off + 48 + 8 * 4200 <= sizeof(in)) {
		struct ebs_rec_sample *s = (void *)((u8 *)in + off);

		cg_sample(&gen, (u64 *)s);
		s->event = 0;
		if (n % 50 == 49) /* not packable: stays a SAMPLE record */
			s->reserved = 1;
		e = ebs_writer__add(w, &s->hdr);
		off += s->hdr.size;
		n++;
	}
	G_EQ(&g, e, 0);
	e = ebs_writer__finish(w, 0, NULL, &err);
	group_check(&g, e == 0, __LINE__, "finish: %d %s", e, err.msg);
	d = ebs_data__open(path, &err);
	group_check(&g, d != NULL, __LINE__, "open: %s", err.msg);
	if (d) {
		G_EQ(&g, ebs_data__header(d)->version_major, 4);
		G_TRUE(&g, count_type(path, EBS_REC_SAMPLES_CGZ) > 0);
		for (off = 0, i = 0; (e = ebs_data__next(d, &rec, &err)) == 1;) {
			const struct ebs_rec *want = (const void *)((u8 *)in + off);

			if (rec->type != EBS_REC_SAMPLE)
				continue;
			got++;
			if (i < n && memcmp(rec, want, want->size))
				bad++;
			off += want->size;
			i++;
		}
		G_EQ(&g, e, 0);
		G_EQ(&g, got, n);
		G_EQ(&g, bad, 0);
		printf("  # %zu samples, %zu bytes as SAMPLE records, a %llu-byte file: %u "
		       "SAMPLES_CGZ, %u SAMPLES_CG records\n",
		       n, off, (unsigned long long)file_size(path),
		       count_type(path, EBS_REC_SAMPLES_CGZ), count_type(path, EBS_REC_SAMPLES_CG));
		ebs_data__close(d);
	}
	group_end(&g);
}

/*
 * A SAMPLES_CGZ record that lies is refused, naming the record's offset
 * (or its frame's): a count, bytes or packed out of range, a frame that is
 * not zstd, one cut short, bytes after the frame, a frame of other than
 * packed bytes, and decompressed samples that do not unpack.
 */
static void test_cgz_bad(void)
{
	static u64 buf[(48 + 8 * 4200) / 8];
	struct ebs_error err = {0};
	struct ebs_rec_event ev = {.hdr = {.type = EBS_REC_EVENT}, .sample_period = 250000};
	struct ebs_rec_samples_z *z;
	static struct cg_gen gen;
	char path[PATH_MAX];
	struct ebs_writer *w;
	size_t len;
	u8 *b, *c;
	u64 at;
	int e, i;

	tmp_path(path, sizeof(path), "cgz.data");
	w = ebs_writer__create(path, &err);
	if (!w) {
		TEST_FAIL("data: SAMPLES_CGZ: bad records", "create: %s", err.msg);
		return;
	}
	e = ebs_writer__meta(w, EBS_META_CALL_GRAPH, "fp,512");
	e = e ?: ebs_writer__event(w, &ev, "cpu-clock", "cpu-clock", "");
	e = e ?: ebs_writer__begin_data(w, STD_REALTIME, STD_CLOCK);
	cg_gen_init(&gen, 11, false);
	for (i = 0; !e && i < 200; i++) {
		cg_sample(&gen, buf);
		e = ebs_writer__add(w, (const void *)buf);
	}
	e = e ?: ebs_writer__finish(w, 0, NULL, &err);
	b = e ? NULL : file_load(path, &len);
	at = b ? find_rec(b, len, ((struct ebs_file_header *)(void *)b)->data_offset,
			  EBS_REC_SAMPLES_CGZ, 0)
	       : 0;
	if (!at) {
		TEST_FAIL("data: SAMPLES_CGZ: bad records", "no SAMPLES_CGZ record written (%d)",
			  e);
		free(b);
		return;
	}
	c = malloc(len);
	if (!c) {
		free(b);
		return;
	}
	z = (void *)(c + at);
#define BAD_CGZ(label, edit, off)                                                                  \
	do {                                                                                       \
		memcpy(c, b, len);                                                                 \
		edit;                                                                              \
		expect_bad("SAMPLES_CGZ: " label, c, len, off);                                    \
	} while (0)
	BAD_CGZ("a count of 0", z->count = 0, at);
	BAD_CGZ("a count beyond 4096", z->count = EBS_SAMPLES_MAX + 1, at);
	BAD_CGZ("a frame beyond the record", z->bytes = z->hdr.size, at);
	BAD_CGZ("packed bytes of 0", z->packed = 0, at);
	BAD_CGZ("packed bytes beyond 1 MiB", z->packed = EBS_SAMPLES_CG_MAX_BYTES + 1, at);
	BAD_CGZ("not a zstd frame", memset(z + 1, 0x5a, 8), at + sizeof(*z));
	BAD_CGZ("a frame cut short", z->bytes -= 3, at + sizeof(*z));
	if (((struct ebs_rec_samples_z *)(void *)(b + at))->bytes % 8) /* padding follows */
		BAD_CGZ("a byte after the frame", z->bytes += 1, at + sizeof(*z));
	BAD_CGZ("a frame of more bytes than packed", z->packed -= 1, at + sizeof(*z));
	BAD_CGZ("a frame of fewer bytes than packed", z->packed += 1, at + sizeof(*z));
	BAD_CGZ("samples that do not unpack", z->count += 1, at);
#undef BAD_CGZ
	free(c);
	free(b);
}

/*
 * ebs_writer__kernel_addrs, whose symbols the recorder keeps (KSYMS): the
 * addresses a report will look up.  A caller's return address is looked up
 * one byte back (report/session/callchain.c): a noreturn call that ends a function
 * returns to the next one's first byte, and the function to keep is the
 * one before it.  User addresses, markers and 0 are none of them.
 */
static void test_kernel_addrs(void)
{
	static const u64 k1[] = {
		EBS_CHAIN_KERNEL,
		0xffffffff81000150ull, /* the sampled address */
		0xffffffff81000200ull, /* a return to a function's first byte */
		0xffffffff81000305ull,
		0, /* the end of a frame-pointer walk */
		EBS_CHAIN_USER,
		0x401000,
		0x401234,
	};
	static const u64 k2[] = {EBS_CHAIN_USER, 0x401100, 0x401200};
	static const u64 want[] = {0xffffffff81000150ull, 0xffffffff810001ffull,
				   0xffffffff81000304ull, 0xffffffff81000400ull};
	struct ebs_rec_sample tmpl = {
		.hdr = {.misc = EBS_CPUMODE_KERNEL}, .pid = 1, .tid = 1, .period = 1};
	struct ebs_error err = {0};
	char path[PATH_MAX];
	struct ebs_writer *w;
	const u64 *addrs = NULL;
	size_t n = 0, i;
	u64 buf[32];
	struct group g;
	int e;

	group_begin(&g, "data: kernel addresses kept: callers one byte back, into their call");
	tmp_path(path, sizeof(path), "kaddrs.data");
	w = ebs_writer__create(path, &err);
	e = w ? std_header(w) : -EIO;
	e = e ?: ebs_writer__begin_data(w, STD_REALTIME, STD_CLOCK);
	tmpl.ip = 0xffffffff81000150ull;
	build_sample(buf, &tmpl, k1, ARRAY_SIZE(k1));
	e = e ?: ebs_writer__add(w, (const struct ebs_rec *)buf);
	tmpl.ip = 0xffffffff81000400ull; /* no chain: its own address */
	build_sample(buf, &tmpl, NULL, 0);
	e = e ?: ebs_writer__add(w, (const struct ebs_rec *)buf);
	tmpl.hdr.misc = EBS_CPUMODE_USER;
	tmpl.ip = 0x401100;
	build_sample(buf, &tmpl, k2, ARRAY_SIZE(k2));
	e = e ?: ebs_writer__add(w, (const struct ebs_rec *)buf);
	e = e ?: ebs_writer__kernel_addrs(w, &addrs, &n);
	G_EQ(&g, e, 0);
	G_EQ(&g, n, ARRAY_SIZE(want));
	for (i = 0; i < n && i < ARRAY_SIZE(want); i++)
		G_EQ(&g, addrs[i], want[i]);
	if (w)
		ebs_writer__abort(w);
	group_end(&g);
}

/* What ebs_writer__set_tap's callback saw. */
struct tap_seen {
	unsigned int n, samples;
	u64 ips[4];
	u32 sizes[4];
};

static void tap_note(void *ctx, const struct ebs_rec *rec)
{
	struct tap_seen *t = ctx;

	if (t->n < 4) {
		t->sizes[t->n] = rec->size;
		t->ips[t->n] =
			rec->type == EBS_REC_SAMPLE ? ((const struct ebs_rec_sample *)rec)->ip : 0;
	}
	t->n++;
	t->samples += rec->type == EBS_REC_SAMPLE;
}

/*
 * The writer's tap (ebs top's): each data record taken, once, as given (a
 * SAMPLE whole, before it is packed), in order; a refused one never.
 */
static void test_tap(void)
{
	struct ebs_rec_sample tmpl = {
		.hdr = {.misc = EBS_CPUMODE_USER}, .pid = 1, .tid = 1, .period = 1};
	struct tap_seen seen = {0};
	struct ebs_error err = {0};
	char path[PATH_MAX];
	struct ebs_writer *w;
	u64 buf[32];
	struct group g;
	int e;

	group_begin(&g, "data: the tap sees each record taken, as given, once");
	tmp_path(path, sizeof(path), "tap.data");
	w = ebs_writer__create(path, &err);
	e = w ? std_header(w) : -EIO;
	if (w)
		ebs_writer__set_tap(w, tap_note, &seen);
	tmpl.ip = 0x401000;
	build_sample(buf, &tmpl, NULL, 0);
	/* before begin_data: refused, not tapped */
	G_EQ(&g, w ? ebs_writer__add(w, (const struct ebs_rec *)buf) : -EINVAL, -EINVAL);
	e = e ?: ebs_writer__begin_data(w, STD_REALTIME, STD_CLOCK);
	e = e ?: ebs_writer__add(w, (const struct ebs_rec *)buf);
	tmpl.ip = 0x401008;
	build_sample(buf, &tmpl, NULL, 0);
	e = e ?: ebs_writer__add(w, (const struct ebs_rec *)buf);
	G_EQ(&g, e, 0);
	G_EQ(&g, seen.n, 2);
	G_EQ(&g, seen.samples, 2);
	G_EQ(&g, seen.ips[0], 0x401000);
	G_EQ(&g, seen.ips[1], 0x401008);
	G_EQ(&g, seen.sizes[0], sizeof(struct ebs_rec_sample));
	if (w)
		ebs_writer__abort(w);
	group_end(&g);
}

/* KSYMS: written by ebs_writer__ksyms, read back through ebs_data__ksyms. */
static void test_ksyms(void)
{
	static const struct ebs_ksym_text syms[] = {
		{0xffffffff81000000ull, 0xffffffff81000040ull, "_stext", "[kernel]", true},
		{0xffffffff81000100ull, 0xffffffff81000180ull, "do_work", "[kernel]", false},
		{0xffffffffc0001000ull, 0xffffffffc0001100ull, "ext4_thing", "[ext4]", true},
		{0xffffffffc0001100ull, 0xffffffffc0001200ull, "ext4_other", "[ext4]", false},
		{0xffffffffc0002000ull, 0xffffffffc0003000ull, "nf_x", "[nf_tables]", true},
	};
	char path[PATH_MAX];
	struct ebs_error err = {0};
	struct ebs_writer *w;
	struct ebs_data *d;
	const struct ebs_rec *rec;
	const struct ebs_rec_ksyms *k = NULL;
	struct group g;
	size_t len;
	u8 *b;
	u64 off;
	int e;

	tmp_path(path, sizeof(path), "ksyms.data");
	w = ebs_writer__create(path, &err);
	e = w ? std_write(w, 3) : -EIO;
	e = e ?: ebs_writer__ksyms(w, 0xffffffff81000000ull, syms, ARRAY_SIZE(syms));
	e = e ?: ebs_writer__finish(w, 0, NULL, &err);
	group_begin(&g, "data: KSYMS: written and read back");
	G_EQ(&g, e, 0);
	d = e ? NULL : ebs_data__open(path, &err);
	G_TRUE(&g, d && !ebs_data__ksyms(d)); /* not before it is read */
	while (d && ebs_data__next(d, &rec, &err) == 1)
		;
	if (d)
		k = ebs_data__ksyms(d);
	G_TRUE(&g, k != NULL);
	if (k) {
		const struct ebs_ksym *sy = (const void *)(k + 1);
		const char *str = (const char *)(sy + k->nr);

		G_EQ(&g, k->nr, 5);
		G_EQ(&g, k->stext, 0xffffffff81000000ull);
		G_STREQ(&g, str + sy[1].name, "do_work");
		G_EQ(&g, sy[1].module, 0);
		G_STREQ(&g, str + sy[2].module, "[ext4]");
		G_EQ(&g, sy[2].module, sy[3].module); /* a module's name once */
		G_STREQ(&g, str + sy[4].module, "[nf_tables]");
		G_EQ(&g, sy[0].flags, EBS_KSYM_GLOBAL);
		G_EQ(&g, sy[1].flags, 0);
		G_EQ(&g, sy[4].end, 0xffffffffc0003000ull);
	}
	ebs_data__close(d);
	group_end(&g);

	if (!(b = file_load(path, &len)))
		return;
	off = find_rec(b, len, ((struct ebs_file_header *)(void *)b)->data_offset, EBS_REC_KSYMS,
		       0);
	{
		u8 *keep = malloc(len);
		struct ebs_rec_ksyms *kr = (void *)(b + off);
		struct ebs_ksym *sy = (void *)(kr + 1);

		if (!keep || !off) {
			TEST_FAIL("data: KSYMS: bad records", "no KSYMS record found");
			free(keep);
			free(b);
			return;
		}
		memcpy(keep, b, len);
		kr->nr = 1000;
		expect_bad("KSYMS: symbols overrunning the record", b, len, off);
		memcpy(b, keep, len);
		sy[2].name = kr->strings_size;
		expect_bad("KSYMS: a name outside its strings", b, len, off);
		memcpy(b, keep, len);
		sy[2].start = sy[1].start;
		expect_bad("KSYMS: symbols out of order", b, len, off);
		memcpy(b, keep, len);
		sy[0].end = sy[0].start;
		expect_bad("KSYMS: an empty symbol", b, len, off);
		memcpy(b, keep, len);
		((char *)(sy + kr->nr))[kr->strings_size - 1] = 'x';
		expect_bad("KSYMS: strings not terminated", b, len, off);
		free(keep);
	}
	free(b);
}

static int setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ebs-test-data.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		TEST_FAIL("data: temporary directory", "mkdtemp: %s", strerror(errno));
		return -1;
	}
	alarm(300); /* a hang ends as a crash that run.sh reports */
	return 0;
}

/*
 * PROCNS (x.1): written only where a process ran elsewhere, it makes the
 * file version 2.1, reads back whole, shows in the dump, and a root that
 * is not terminated is refused at its offset.
 */
static void test_procns(void)
{
	union {
		struct ebs_rec_procns r;
		u8 bytes[sizeof(struct ebs_rec_procns) + 16];
	} u;
	char path[PATH_MAX], dump[PATH_MAX];
	struct ebs_error err = {0};
	const struct ebs_rec_procns *got = NULL;
	const struct ebs_rec *rec;
	struct ebs_writer *w;
	struct ebs_data *d;
	struct group g;
	char *text = NULL;
	FILE *f;
	size_t len;
	u8 *b;
	u64 off;
	int e;

	memset(&u, 0, sizeof(u));
	u.r.hdr.type = EBS_REC_PROCNS;
	u.r.hdr.size = sizeof(u.r) + 16;
	u.r.time = 5;
	u.r.pid = 4242;
	u.r.flags = EBS_PROCNS_MNT | EBS_PROCNS_ROOT;
	u.r.mnt_ns = 4026532000ull;
	u.r.root_dev = 2049;
	u.r.root_ino = 77;
	strcpy(u.r.root, "/srv/jail");
	tmp_path(path, sizeof(path), "procns.data");
	w = ebs_writer__create(path, &err);
	e = w ? std_write(w, 0) : -EIO;
	e = e ?: ebs_writer__add(w, &u.r.hdr);
	e = e ?: ebs_writer__finish(w, 0, NULL, &err);
	group_begin(&g, "data: PROCNS: written and read back");
	G_EQ(&g, e, 0);
	d = e ? NULL : ebs_data__open(path, &err);
	G_TRUE(&g, d != NULL);
	if (d) {
		G_EQ(&g, ebs_data__header(d)->version_major, 2);
		G_EQ(&g, ebs_data__header(d)->version_minor, 1); /* 2.1: a PROCNS */
	}
	while (d && ebs_data__next(d, &rec, &err) == 1)
		if (rec->type == EBS_REC_PROCNS)
			got = (const void *)rec;
	G_TRUE(&g, got != NULL);
	if (got) {
		G_EQ(&g, got->pid, 4242);
		G_EQ(&g, got->mnt_ns, 4026532000ull);
		G_EQ(&g, got->root_ino, 77);
		G_STREQ(&g, got->root, "/srv/jail");
	}
	ebs_data__close(d);
	tmp_path(dump, sizeof(dump), "procns.dump");
	f = fopen(dump, "w");
	G_TRUE(&g, f && ebs_data__dump(path, 0, f, NULL, NULL, &err) == 0);
	if (f)
		fclose(f);
	G_TRUE(&g, ebs_read_file(dump, &text) > 0 &&
			   strstr(text, " PROCNS time 5 pid 4242 mnt-ns 4026532000 root 2049:77 "
					"/srv/jail (other mount namespace) (other root)\n"));
	free(text);
	unlink(dump);
	group_end(&g);

	if (!(b = file_load(path, &len)))
		return;
	off = find_rec(b, len, ((struct ebs_file_header *)(void *)b)->data_offset, EBS_REC_PROCNS,
		       0);
	if (!off) {
		TEST_FAIL("data: PROCNS: bad records", "no PROCNS record found");
	} else {
		struct ebs_rec_procns *r = (void *)(b + off);

		memset(r->root, 'x', r->hdr.size - sizeof(*r));
		expect_bad("PROCNS: a root not terminated", b, len, off);
	}
	free(b);
}

TEST_MAIN(setup, remove_tmpdir, TEST_CASE(test_round_trip), TEST_CASE(test_sample_parts),
	  TEST_CASE(test_packed), TEST_CASE(test_packed_cg), TEST_CASE(test_cg_file),
	  TEST_CASE(test_cgz_bad), TEST_CASE(test_kernel_addrs), TEST_CASE(test_ksyms),
	  TEST_CASE(test_set_calibration), TEST_CASE(test_index), TEST_CASE(test_writer_misuse),
	  TEST_CASE(test_rename), TEST_CASE(test_streamed), TEST_CASE(test_bad_files),
	  TEST_CASE(test_truncation), TEST_CASE(test_corruption), TEST_CASE(test_procns),
	  TEST_CASE(test_tap))
