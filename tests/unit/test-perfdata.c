// SPDX-License-Identifier: MIT
/*
 * test-perfdata.c - reading perf.data (data/perfdata.c) through
 * ebs_data__open, on perf.data files made here byte by byte, so that every
 * rule is held in isolation whatever the installed perf writes:
 *
 *   test_pipe       pipe mode: HEADER_ATTR records of two events (ids,
 *                   IDENTIFIER), a HEADER_BUILD_ID record after the MMAP2
 *                   it names, records out of time order across
 *                   FINISHED_ROUNDs (perf's order comes out), a record of an
 *                   unknown type and an AUXTRACE with its payload skipped
 *                   by their sizes, LOST, THROTTLE, a call chain.
 *   test_file       the same records in file mode: the attribute section
 *                   with its ids, the data section, the feature sections
 *                   (build-ids, hostname, event names from EVENT_DESC).
 *   test_bad        hand-made corruptions, each refused in one line naming
 *                   the file and the offset: the other byte order, a record
 *                   size of 4, a SAMPLE too short for its sample_type, an
 *                   MMAP2 whose name is not terminated.
 *   test_prefixes   every prefix of the file-mode file is refused (or read
 *                   as unfinished when its data size is 0), every prefix of
 *                   the pipe-mode one read whole records or refused; random
 *                   corruptions: no crash, a full read or an offset.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "data/data.h"
#include "test.h"

static char tmpdir[64];

/* A growing byte buffer. */
struct buf {
	unsigned char *b;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->b = realloc(b->b, b->cap);
		if (!b->b)
			abort();
	}
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void put64(struct buf *b, u64 v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, u32 v)
{
	put(b, &v, 4);
}

/* A record header; the record's size is patched by end_rec. */
static size_t begin_rec(struct buf *b, u32 type, u16 misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};
	size_t at = b->len;

	put(b, &h, sizeof(h));
	return at;
}

static void end_rec(struct buf *b, size_t at)
{
	u16 size = (u16)(b->len - at);

	memcpy(b->b + at + 6, &size, 2);
}

/* A string padded with NULs to 8 bytes. */
static void put_name(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	static const char zeros[8];

	put(b, s, n);
	put(b, zeros, (8 - n % 8) % 8);
}

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ID_CPU	 100
#define ID_TASK	 200
#define PID	 4242
#define BUILD_ID "\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff\x01\x02\x03\x04\x05"

static struct perf_event_attr attr_of(u64 config)
{
	struct perf_event_attr a = {0};

	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = config;
	a.sample_freq = 1000;
	a.freq = 1;
	a.sample_type = ST;
	a.sample_id_all = 1;
	return a;
}

/* The sample_id_all trailer of ST: pid/tid, time, cpu, identifier. */
static void put_trailer(struct buf *b, u64 time, u32 cpu, u64 id)
{
	put32(b, PID);
	put32(b, PID);
	put64(b, time);
	put32(b, cpu);
	put32(b, 0);
	put64(b, id);
}

static void put_sample(struct buf *b, u64 id, u64 ip, u64 time, u64 period, int chain)
{
	size_t at = begin_rec(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	put64(b, id);
	put64(b, ip);
	put32(b, PID);
	put32(b, PID);
	put64(b, time);
	put32(b, 1); /* cpu */
	put32(b, 0);
	put64(b, period);
	put64(b, chain ? 3 : 0);
	if (chain) {
		put64(b, PERF_CONTEXT_USER);
		put64(b, ip);
		put64(b, 0x401234);
	}
	end_rec(b, at);
}

/*
 * The data records both modes share, build_id_after: where the pipe's
 * HEADER_BUILD_ID goes (after the MMAP2 it names: it must still count).
 */
static void put_data(struct buf *b, bool pipe)
{
	size_t at;

	at = begin_rec(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(b, PID);
	put32(b, PID);
	put_name(b, "prog");
	put_trailer(b, 5, 1, ID_CPU);
	end_rec(b, at);
	/*
	 * the build-id bit with the inode form, as the kernel sends it when
	 * another event asked for build-ids: device 254:1, inode 777
	 */
	at = begin_rec(b, PERF_RECORD_MMAP2,
		       PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put32(b, PID);
	put32(b, PID);
	put64(b, 0x400000);
	put64(b, 0x10000);
	put64(b, 0);
	put32(b, 254); /* maj, min, ino, ino_generation */
	put32(b, 1);
	put64(b, 777);
	put64(b, 0);
	put32(b, 5); /* PROT_READ | PROT_EXEC */
	put32(b, 2);
	put_name(b, "/bin/prog");
	put_trailer(b, 6, 1, ID_CPU);
	end_rec(b, at);
	at = begin_rec(b, 78, 0); /* EVENT_UPDATE of a scale (1): not a name (2) */
	put64(b, 1);
	put64(b, ID_CPU);
	put64(b, 0x3eb0c6f7a0b5ed8dull); /* 1e-6 */
	end_rec(b, at);
	put_sample(b, ID_TASK, 0x401000, 30, 1000000, 0);
	put_sample(b, ID_CPU, 0x401010, 10, 1000001, 0);
	at = begin_rec(b, 99, 0); /* a type no perf has: skipped by its size */
	put64(b, 0xdeadbeef);
	put64(b, 0xdeadbeef);
	end_rec(b, at);
	at = begin_rec(b, 68, 0); /* FINISHED_ROUND */
	end_rec(b, at);
	put_sample(b, ID_CPU, 0x401020, 20, 1000002, 0);
	if (pipe) {
		at = begin_rec(b, 67, PERF_RECORD_MISC_USER); /* HEADER_BUILD_ID */
		put32(b, (u32)-1);
		put(b, BUILD_ID, 20);
		put(b, "\x14\0\0\0", 4);
		put_name(b, "/bin/prog");
		end_rec(b, at);
	}
	at = begin_rec(b, 68, 0);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_LOST, 0);
	put64(b, ID_CPU);
	put64(b, 7);
	put_trailer(b, 40, 1, ID_CPU);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_THROTTLE, 0);
	put64(b, 50);
	put64(b, ID_TASK);
	put64(b, ID_TASK);
	put_trailer(b, 50, 1, ID_TASK);
	end_rec(b, at);
	at = begin_rec(b, 71, 0); /* AUXTRACE: its 16 bytes of payload follow it */
	put64(b, 16);
	put64(b, 0);
	put64(b, 0);
	put32(b, 0);
	put32(b, 0);
	put32(b, 0);
	put32(b, 0);
	end_rec(b, at);
	put64(b, 0xffffffffffffffffull); /* the payload: would be a record size of 65535 */
	put64(b, 0xffffffffffffffffull);
	put_sample(b, ID_CPU, 0x401030, 60, 1000003, 1);
}

static void make_pipe(struct buf *b)
{
	struct perf_event_attr a;
	size_t at;

	put(b, "PERFILE2", 8);
	put64(b, 16);
	a = attr_of(PERF_COUNT_SW_CPU_CLOCK);
	at = begin_rec(b, 64, 0); /* HEADER_ATTR */
	put(b, &a, sizeof(a));
	put64(b, ID_CPU);
	end_rec(b, at);
	a = attr_of(PERF_COUNT_SW_TASK_CLOCK);
	at = begin_rec(b, 64, 0);
	put(b, &a, sizeof(a));
	put64(b, ID_TASK);
	end_rec(b, at);
	put_data(b, true);
}

/* A feature string: u32 len, the string padded to 8. */
static void put_fstring(struct buf *b, const char *s)
{
	size_t n = (strlen(s) + 1 + 7) / 8 * 8;
	char pad[64] = {0};

	put32(b, (u32)n);
	strcpy(pad, s);
	put(b, pad, n);
}

/* *end_out: where the data section ends */
static void make_file(struct buf *b, u64 *end_out)
{
	struct perf_event_attr a[2] = {attr_of(PERF_COUNT_SW_CPU_CLOCK),
				       attr_of(PERF_COUNT_SW_TASK_CLOCK)};
	u64 ids[2] = {ID_CPU, ID_TASK};
	u64 hdr[13] = {0}, ids_off, attrs_off, data_off, data_end, f_off[3], f_len[3];
	unsigned int i;
	size_t at;

	put(b, hdr, sizeof(hdr)); /* patched at the end */
	ids_off = b->len;
	put(b, ids, sizeof(ids));
	attrs_off = b->len;
	for (i = 0; i < 2; i++) {
		put(b, &a[i], sizeof(a[i]));
		put64(b, ids_off + 8 * i);
		put64(b, 8);
	}
	data_off = b->len;
	put_data(b, false);
	data_end = b->len;
	/* the feature table (build-id, hostname, event desc), then the sections */
	at = b->len;
	put(b, hdr, 3 * 16);
	f_off[0] = b->len;
	{
		size_t r = begin_rec(b, 67, PERF_RECORD_MISC_USER | (1u << 15));

		put32(b, (u32)-1);
		put(b, BUILD_ID, 20);
		put(b, "\x14\0\0\0", 4);
		put_name(b, "/bin/prog");
		end_rec(b, r);
	}
	f_len[0] = b->len - f_off[0];
	f_off[1] = b->len;
	put_fstring(b, "testhost");
	f_len[1] = b->len - f_off[1];
	f_off[2] = b->len;
	put32(b, 2);
	put32(b, sizeof(a[0]));
	for (i = 0; i < 2; i++) {
		put(b, &a[i], sizeof(a[i]));
		put32(b, 1);
		put_fstring(b, i ? "task-clock:u" : "cpu-clock:u");
		put64(b, ids[i]);
	}
	f_len[2] = b->len - f_off[2];
	for (i = 0; i < 3; i++) {
		memcpy(b->b + at + 16 * i, &f_off[i], 8);
		memcpy(b->b + at + 16 * i + 8, &f_len[i], 8);
	}
	memcpy(hdr, "PERFILE2", 8);
	hdr[1] = 104;
	hdr[2] = sizeof(a[0]) + 16;
	hdr[3] = attrs_off;
	hdr[4] = 2 * (sizeof(a[0]) + 16);
	hdr[5] = data_off;
	hdr[6] = data_end - data_off;
	hdr[9] = (1u << 2) | (1u << 3) | (1u << 12); /* BUILD_ID, HOSTNAME, EVENT_DESC */
	memcpy(b->b, hdr, sizeof(hdr));
	*end_out = data_end;
}

static const char *write_file(const char *name, const void *p, size_t n)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
	return path;
}

/* What both modes must give: the records in time order, every field kept. */
static void check_records(const char *mode, const char *path, const char *names)
{
	struct ebs_error err = {0};
	struct ebs_data *d = ebs_data__open(path, &err);
	const struct ebs_rec *r;
	char name[128], got[512] = "";
	u64 last = 0;
	bool ordered = true, mmap_ok = false, chain_ok = false, comm_ok = false;
	int e, n = 0;

	snprintf(name, sizeof(name), "perfdata: %s: opens", mode);
	if (!d) {
		TEST_FAIL(name, "%s", err.msg);
		return;
	}
	TEST_OK(name);
	snprintf(name, sizeof(name), "perfdata: %s: two events, named %s", mode, names);
	snprintf(got, sizeof(got), "%s,%s", ebs_data__event(d, 0)->used,
		 ebs_data__nr_events(d) > 1 ? ebs_data__event(d, 1)->used : "-");
	TEST_CHECK(name, ebs_data__nr_events(d) == 2 && !strcmp(got, names));
	got[0] = '\0';
	while ((e = ebs_data__next(d, &r, &err)) == 1) {
		u64 t = *(const u64 *)(const void *)(r + 1);
		size_t len = strlen(got);

		if (r->type == EBS_REC_SAMPLE) {
			const struct ebs_rec_sample *s = (const void *)r;
			struct ebs_sample_parts p;

			t = s->time;
			snprintf(got + len, sizeof(got) - len, "S%llu/%u ", (unsigned long long)t,
				 s->event);
			ebs_sample__parts(s, &p);
			if (t == 60)
				chain_ok = p.nr_callchain == 3 &&
					   p.callchain[0] == PERF_CONTEXT_USER &&
					   p.callchain[2] == 0x401234 && s->pid == PID &&
					   s->cpu == 1 && s->period == 1000003 && s->ip == 0x401030;
		} else if (r->type == EBS_REC_MMAP) {
			const struct ebs_rec_mmap *m = (const void *)r;

			snprintf(got + len, sizeof(got) - len, "M%llu ", (unsigned long long)t);
			mmap_ok = !strcmp(m->filename, "/bin/prog") && m->start == 0x400000 &&
				  m->len == 0x10000 && m->pid == PID &&
				  /* device and inode 0 beside the build-id (format.md 7.2) */
				  !m->maj && !m->min && !m->ino && !m->ino_generation &&
				  (m->hdr.misc & EBS_MMAP_BUILD_ID) && m->build_id_size == 20 &&
				  !memcmp(m->build_id, BUILD_ID, 20);
		} else if (r->type == EBS_REC_COMM) {
			const struct ebs_rec_comm *c = (const void *)r;

			snprintf(got + len, sizeof(got) - len, "C%llu ", (unsigned long long)t);
			comm_ok = !strcmp(c->comm, "prog") && (c->hdr.misc & EBS_COMM_EXEC);
		} else if (r->type == EBS_REC_LOST) {
			const struct ebs_rec_lost *l = (const void *)r;

			snprintf(got + len, sizeof(got) - len, "L%llu/%llu/%x ",
				 (unsigned long long)t, (unsigned long long)l->lost, l->event);
		} else if (r->type == EBS_REC_THROTTLE) {
			snprintf(got + len, sizeof(got) - len, "T%llu/%u ", (unsigned long long)t,
				 ((const struct ebs_rec_throttle *)r)->event);
		} else {
			snprintf(got + len, sizeof(got) - len, "?%u ", r->type);
		}
		if (t < last)
			ordered = false;
		last = t;
		n++;
	}
	snprintf(name, sizeof(name), "perfdata: %s: read to the end", mode);
	if (e < 0)
		TEST_FAIL(name, "%s", err.msg);
	else
		TEST_OK(name);
	snprintf(name, sizeof(name), "perfdata: %s: records in time order, skipped ones skipped",
		 mode);
	if (ordered && !strcmp(got, "C5 M6 S10/0 S20/0 S30/1 L40/7/ffff T50/1 S60/0 "))
		TEST_OK(name);
	else
		TEST_FAIL(name, "got '%s'", got);
	snprintf(name, sizeof(name), "perfdata: %s: MMAP2 fields and the listed build-id", mode);
	TEST_CHECK(name, mmap_ok);
	snprintf(name, sizeof(name), "perfdata: %s: COMM with its exec bit", mode);
	TEST_CHECK(name, comm_ok);
	snprintf(name, sizeof(name), "perfdata: %s: a sample's fields and call chain", mode);
	TEST_CHECK(name, chain_ok);
	snprintf(name, sizeof(name), "perfdata: %s: the trailer counts 4 samples, 7 lost", mode);
	TEST_CHECK(name, ebs_data__totals(d) && ebs_data__totals(d)->samples == 4 &&
				 ebs_data__totals(d)->lost == 7 && !ebs_data__unfinished(d));
	ebs_data__close(d);
}

/* Open path (flags): NULL and a message naming it and an offset, or a reader. */
static struct ebs_data *open_checked(const char *what, const char *path, unsigned int flags,
				     bool *msg_ok)
{
	struct ebs_error err = {0};
	struct ebs_data *d = ebs_data__open_flags(path, flags, &err);

	*msg_ok = d || (err.err < 0 && strstr(err.msg, path) && strstr(err.msg, ": offset ") &&
			!strchr(err.msg, '\n'));
	if (!*msg_ok)
		printf("# %s: '%s'\n", what, err.msg);
	return d;
}

/* Read d to its end: 1 whole, 0 refused in one line with an offset, -1 a bad refusal. */
static int read_all(struct ebs_data *d, const char *path)
{
	struct ebs_error err = {0};
	const struct ebs_rec *r;
	int e;

	while ((e = ebs_data__next(d, &r, &err)) == 1)
		;
	if (!e)
		return 1;
	return strstr(err.msg, path) && strstr(err.msg, ": offset ") ? 0 : -1;
}

static void test_pipe(void)
{
	struct buf b = {0};

	make_pipe(&b);
	check_records("pipe mode", write_file("pipe.data", b.b, b.len), "cpu-clock,task-clock");
	free(b.b);
}

static void test_file(void)
{
	struct buf b = {0};
	u64 at;

	make_file(&b, &at);
	check_records("file mode", write_file("file.data", b.b, b.len), "cpu-clock:u,task-clock:u");
	free(b.b);
}

/* path's one-line refusal names the offset want and says what (a substring). */
static void expect_bad(const char *name, const char *path, u64 want, const char *what)
{
	struct ebs_error err = {0};
	struct ebs_data *d = ebs_data__open(path, &err);
	char off[64];

	snprintf(off, sizeof(off), ": offset %llu: ", (unsigned long long)want);
	if (d) {
		TEST_FAIL(name, "opened");
		ebs_data__close(d);
	} else if (!strstr(err.msg, path) || !strstr(err.msg, off) || !strstr(err.msg, what)) {
		TEST_FAIL(name, "'%s' (want offset %llu, '%s')", err.msg, (unsigned long long)want,
			  what);
	} else {
		TEST_OK(name);
	}
}

/* The offset of the n-th record (0: the first) of a pipe-mode buffer. */
static size_t pipe_record(const struct buf *b, int n)
{
	size_t off = 16;
	u16 size;

	while (n-- > 0) {
		memcpy(&size, b->b + off + 6, 2);
		off += size;
	}
	return off;
}

static void test_bad(void)
{
	struct buf b = {0};
	unsigned char *c;
	size_t off;
	u16 v;

	make_pipe(&b);
	c = malloc(b.len);
	memcpy(c, b.b, b.len);
	for (off = 0; off < 8; off++)
		c[off] = b.b[7 - off];
	expect_bad("perfdata: the other byte order", write_file("swapped.data", c, b.len), 0,
		   "other byte order");
	memcpy(c, b.b, b.len);
	off = pipe_record(&b,
			  5); /* the first SAMPLE (after two attributes, COMM, MMAP2, an update) */
	v = 4;
	memcpy(c + off + 6, &v, 2);
	expect_bad("perfdata: a record size of 4", write_file("size4.data", c, b.len), off,
		   "bad record size 4");
	memcpy(c, b.b, b.len);
	v = 8 + 16; /* identifier and ip only: its sample_type wants more */
	memcpy(c + off + 6, &v, 2);
	/* the rest of its 64 bytes a record of type 99 (unknown), 40 bytes */
	memcpy(c + off + 24, "\x63\0\0\0\0\0\x28\0", 8);
	expect_bad("perfdata: a SAMPLE too short for its sample_type",
		   write_file("short.data", c, b.len), off, "too short for its fields");
	memcpy(c, b.b, b.len);
	off = pipe_record(&b, 3); /* the MMAP2's name, 16 bytes after its 72: no NUL left */
	memset(c + off + 72, 'x', 16);
	expect_bad("perfdata: an MMAP2 name not terminated", write_file("noname.data", c, b.len),
		   off, "not terminated");
	free(c);
	free(b.b);
}

static void test_prefixes(void)
{
	struct buf b = {0};
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	unsigned int bad_msg = 0, whole = 0, refused = 0, crashes_none = 0, i;
	const char *path;
	u64 at;
	size_t n;

	make_file(&b, &at);
	for (n = 0; n < b.len; n++) {
		bool ok;
		struct ebs_data *d;

		path = write_file("prefix.data", b.b, n);
		d = open_checked("file prefix", path, 0, &ok);
		bad_msg += !ok;
		if (d) { /* no prefix is a whole file */
			whole++;
			ebs_data__close(d);
		}
	}
	TEST_CHECK("perfdata: every prefix of a file-mode file refused, naming an offset",
		   !bad_msg && !whole);
	/* the header perf writes first: data size 0, no features, the last record cut */
	memset(b.b + 48, 0, 8);
	memset(b.b + 72, 0, 32);
	path = write_file("killed.data", b.b, at - 10);
	{
		struct ebs_error err = {0};
		struct ebs_data *d = ebs_data__open_flags(path, EBS_DATA_UNFINISHED, &err);
		int r = d ? read_all(d, path) : -1;

		TEST_CHECK(
			"perfdata: data size 0 (perf killed): read as an unfinished recording, "
			"events named by their type (no EVENT_DESC; EVENT_UPDATE's scale no name)",
			r == 1 && ebs_data__unfinished(d) &&
				!strcmp(ebs_data__event(d, 0)->used, "cpu-clock") &&
				strstr(ebs_data__unfinished(d),
				       "recording did not finish: 3 samples up to offset") &&
				strstr(ebs_data__unfinished(d), "left out"));
		ebs_data__close(d);
		d = ebs_data__open(path, &err);
		TEST_CHECK("perfdata: data size 0: refused without EBS_DATA_UNFINISHED",
			   !d && strstr(err.msg, "never finished"));
		ebs_data__close(d);
	}
	free(b.b);
	memset(&b, 0, sizeof(b));
	make_pipe(&b);
	bad_msg = 0;
	for (n = 0; n < b.len; n++) {
		bool ok;
		struct ebs_data *d;

		path = write_file("prefix.data", b.b, n);
		d = open_checked("pipe prefix", path, EBS_DATA_UNFINISHED, &ok);
		bad_msg += !ok;
		if (d) {
			bad_msg += read_all(d, path) < 0;
			ebs_data__close(d);
		}
	}
	TEST_CHECK("perfdata: every prefix of a pipe-mode file: whole records read, or refused "
		   "naming an offset",
		   !bad_msg);
	/* random corruptions of 1 to 4 bytes of either: no crash, a read or an offset */
	bad_msg = 0;
	for (i = 0; i < 3000; i++) {
		unsigned char *c = malloc(b.len);
		unsigned int k, nb = 1 + (unsigned int)(test_rand(&seed) % 4);
		struct ebs_data *d;
		bool ok;

		memcpy(c, b.b, b.len);
		for (k = 0; k < nb; k++)
			c[test_rand(&seed) % b.len] = (unsigned char)test_rand(&seed);
		path = write_file("corrupt.data", c, b.len);
		d = open_checked("corruption", path, i % 2 ? EBS_DATA_UNFINISHED : 0, &ok);
		bad_msg += !ok;
		if (d) {
			int r = read_all(d, path);

			bad_msg += r < 0;
			refused += r == 0;
			crashes_none++;
			ebs_data__close(d);
		}
		free(c);
	}
	printf("# corruptions: %u opened (%u of them refused later), the rest refused at open\n",
	       crashes_none, refused);
	TEST_CHECK("perfdata: 3000 random corruptions: no crash, every refusal names an offset",
		   !bad_msg);
	free(b.b);
}

static int setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ebs-test-perfdata.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		TEST_FAIL("perfdata: temporary directory", "mkdtemp: %s", strerror(errno));
		return -1;
	}
	alarm(300);
	return 0;
}

static void teardown(void)
{
	const char *names[] = {"pipe.data",   "file.data",   "swapped.data",
			       "size4.data",  "short.data",  "noname.data",
			       "prefix.data", "killed.data", "corrupt.data"};
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		if (!getenv("KEEP"))
			unlink(path);
	}
	rmdir(tmpdir);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_pipe), TEST_CASE(test_file), TEST_CASE(test_bad),
	  TEST_CASE(test_prefixes))
