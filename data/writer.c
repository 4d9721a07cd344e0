// SPDX-License-Identifier: MIT
/*
 * writer.c - stream records into an ebs.data file.
 *
 * Header records are kept in memory until ebs_writer__begin_data(), so the
 * fixed header can be written once with data_offset known, even to a pipe.
 * Data records go through a 256 KiB buffer.  Samples without optional
 * parts are packed into SAMPLES records (packed.c) as they come, and in a
 * recording with call graphs (META CALL_GRAPH) every sample, parts and
 * all, into SAMPLES_CG records, each compressed with zstd into a
 * SAMPLES_CGZ record where that is smaller (format 4.0); the record being
 * filled goes into the buffer before any other record, so records stay in
 * the order they came, and at every flush.  For a regular file the header's
 * trailer_offset and data_size are patched at finish; output that cannot be
 * patched at offset 0 (a pipe; standard output not at offset 0 or in append
 * mode) gets EBS_FILE_STREAMED and readers scan to the TRAILER record.
 *
 * Only whole records reach the file, in order: the buffer is written in
 * whole-record units, so a recording that never finishes (ebs killed, a
 * full disk) is whole records up to its last one, or up to a record cut by
 * the kill.  The writer tracks how far the file holds whole records; after
 * a write failure, ebs_writer__abort_keep() cuts the file back there and
 * keeps it as NAME.partial.  A writer holds an flock(2) on its temporary
 * file until it is done, so that ebs_writer__leftovers() tells the
 * temporary files of killed runs from those of running ones.
 *
 * Why one file of ~960 lines: one object (struct ebs_writer) with one
 * buffer, one index and one rename at finish; every record type's add
 * function is a few lines over the same private state.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "data/data.h"
#include "data/packed.h"

#define WBUF_SIZE (256u * 1024)
/*
 * zstd's level for SAMPLES_CGZ: 3 (its default) takes SQLite's -g samples
 * to 45 bytes where 1 leaves 48 and 6 gets 43 at twice the time; a
 * record of 200 samples (30 KB) takes some 0.2 ms.
 */
#define CGZ_LEVEL 3

struct ebs_writer {
	int fd;
	bool keep_fd;  /* the caller's descriptor (ebs_writer__create_fd): not closed here */
	bool streamed; /* the header cannot be patched at the end */
	bool data_started;
	char path[PATH_MAX];	/* final name, "-" for stdout */
	struct ebs_outfile out; /* its file (util/output.c); out.tmp "" when written in place */
	char *hbuf;		/* header records until begin_data */
	size_t hlen, hcap;
	char *wbuf; /* data buffer */
	size_t wlen;
	u64 offset; /* bytes written or buffered */
	u64 whole;  /* the file holds whole records up to here */
	struct ebs_file_header hdr;
	unsigned int nr_events;
	struct ebs_event_counts counts[EBS_MAX_EVENTS];
	u64 nr_records, samples, lost, throttled;
	struct ebs_index_entry *index;
	u32 nr_index;
	size_t cap_index;
	u64 next_index_at;     /* offset at or after which the next index entry goes */
	int err;	       /* first write error, sticky */
	struct ebs_pack *pack; /* the SAMPLES or SAMPLES_CG record being filled */
	bool pack_parts;       /* SAMPLES_CG (format 4.0): the recording has call graphs */
	ZSTD_CCtx *zc;	       /* SAMPLES_CGZ (4.0): the compressor, made at the first */
	u8 *zbuf;	       /* ...and its record */
	size_t zcap;
	u64 *kaddrs; /* kernel addresses of the samples (ebs_writer__kernel_addrs) */
	size_t nr_kaddrs, cap_kaddrs;
	u64 end_realtime_ns, end_clock_ns; /* for the trailer; 0: the time of finish */
	ebs_writer_tap_fn *tap;		   /* ebs_writer__set_tap's, or NULL */
	void *tap_ctx;
};

int ebs_debug_poison(void)
{
	static int poison = -2;
	const char *s;
	char *end;
	long v;

	if (poison != -2)
		return poison;
	poison = -1;
	s = getenv("EBS_DEBUG_POISON");
	if (s && *s >= '0' && *s <= '9') {
		errno = 0;
		v = strtol(s, &end, strncmp(s, "0x", 2) ? 10 : 16);
		if (!errno && !*end && v >= 0 && v <= 255)
			poison = (int)v;
	}
	return poison;
}

/* Fill a new buffer with the debug poison byte, if one is set. */
static void poison_buf(void *buf, size_t len)
{
	int poison = ebs_debug_poison();

	if (poison >= 0)
		memset(buf, poison, len);
}

/* The descriptor of a writer that writes nothing (ebs_writer__create_sink). */
#define SINK_FD (-2)

/* Write len bytes; *done (may be NULL) gets how many were written. */
static int write_all_done(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	int err = 0;

	if (fd == SINK_FD) { /* ebs_writer__create_sink's */
		if (done)
			*done = len;
		return 0;
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (done)
		*done = (size_t)(p - (const char *)buf);
	return err;
}

static int write_all(int fd, const void *buf, size_t len)
{
	return write_all_done(fd, buf, len, NULL);
}

/*
 * Write the buffer out.  It holds whole records; when the write fails part
 * way, the file still holds whole records up to the last one written in full.
 */
static int flush_buf(struct ebs_writer *w)
{
	size_t done, at = 0;
	int err;

	if (w->err)
		return w->err;
	err = write_all_done(w->fd, w->wbuf, w->wlen, &done);
	if (err) {
		while (at + sizeof(struct ebs_rec) <= done) {
			u32 size = ((const struct ebs_rec *)(const void *)(w->wbuf + at))->size;

			if (size > done - at)
				break;
			at += size;
		}
		w->whole += at;
		w->err = err;
	} else {
		w->whole += w->wlen;
	}
	w->wlen = 0;
	return err;
}

/*
 * Open the output (ebs_outfile: a new file beside the name, or a device in
 * place), its temporary file locked (flock, held until the writer is
 * freed) before its name appears, so that ebs_writer__leftovers(), which
 * takes only files it can lock, tells a killed run's from a running one's.
 * 0600, as perf.data: a recording holds samples of other processes (-a),
 * stack copies, kernel addresses.
 */
static int open_output(struct ebs_writer *w, struct ebs_error *err)
{
	int e = ebs_outfile__open(&w->out, w->path, 0600, EBS_OUT_KEEP_OLD | EBS_OUT_LOCK, err);

	w->fd = w->out.fd;
	return e;
}

/* The fixed header's fields known at the start. */
static void header_init(struct ebs_writer *w)
{
	memcpy(w->hdr.magic, EBS_DATA_MAGIC, sizeof(EBS_DATA_MAGIC));
	w->hdr.endian = EBS_DATA_ENDIAN;
	/*
	 * 2.0 until a META CALL_GRAPH calls for 4.0 (SAMPLES_CG, SAMPLES_CGZ), so
	 * that 2.0 readers read the rest
	 */
	w->hdr.version_major = 2;
	w->hdr.version_minor = 0;
	w->hdr.header_size = sizeof(w->hdr);
	w->hdr.flags = w->streamed ? EBS_FILE_STREAMED : 0;
}

struct ebs_writer *ebs_writer__create(const char *path, struct ebs_error *err)
{
	struct ebs_writer *w;
	struct stat st;

	w = calloc(1, sizeof(*w));
	if (!w) {
		ebs_error__set(err, ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	w->fd = -1;
	w->out.fd = w->out.dfd = -1;
	w->wbuf = malloc(WBUF_SIZE);
	if (!w->wbuf) {
		ebs_error__set(err, ENOMEM, "%s: out of memory", path);
		goto out_free;
	}
	poison_buf(w->wbuf, WBUF_SIZE);
	if (ebs_strlcpy(w->path, path, sizeof(w->path)) >= sizeof(w->path)) {
		ebs_error__set(err, ENAMETOOLONG, "%s: file name too long", path);
		goto out_free;
	}
	if (open_output(w, err))
		goto out_free;
	if (w->out.in_place) {
		/*
		 * A device, a FIFO or standard output: written as a stream.  The
		 * header is patched at offset 0 at the end only in a regular file
		 * that starts there and is not in append mode (where pwrite
		 * appends): standard output may be one.
		 */
		w->streamed = fstat(w->fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			      lseek(w->fd, 0, SEEK_CUR) != 0 || (fcntl(w->fd, F_GETFL) & O_APPEND);
	}
	header_init(w);
	return w;

out_free:
	free(w->wbuf);
	free(w);
	return NULL;
}

struct ebs_writer *ebs_writer__create_fd(int fd, const char *name, struct ebs_error *err)
{
	struct ebs_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->wbuf = malloc(WBUF_SIZE))) {
		free(w);
		ebs_error__set(err, ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	poison_buf(w->wbuf, WBUF_SIZE);
	ebs_strlcpy(w->path, name, sizeof(w->path));
	w->fd = fd;
	w->out.fd = w->out.dfd = -1;
	w->keep_fd = true;
	header_init(w);
	return w;
}

struct ebs_writer *ebs_writer__create_sink(const char *name, struct ebs_error *err)
{
	struct ebs_writer *w = ebs_writer__create_fd(SINK_FD, name, err);

	if (w) {
		w->streamed = true; /* no header to patch at the end */
		header_init(w);
	}
	return w;
}

void ebs_writer__set_end(struct ebs_writer *w, u64 end_realtime_ns, u64 end_clock_ns)
{
	w->end_realtime_ns = end_realtime_ns;
	w->end_clock_ns = end_clock_ns;
}

/* Append to the in-memory header area. */
static int header_add(struct ebs_writer *w, const void *rec, size_t size)
{
	if (w->data_started)
		return -EINVAL;
	if (w->hlen + size > w->hcap) {
		size_t cap = w->hcap ? w->hcap : 4096;
		char *n;

		while (cap < w->hlen + size)
			cap *= 2;
		n = realloc(w->hbuf, cap);
		if (!n)
			return -ENOMEM;
		poison_buf(n + w->hcap, cap - w->hcap);
		w->hbuf = n;
		w->hcap = cap;
	}
	memcpy(w->hbuf + w->hlen, rec, size);
	w->hlen += size;
	return 0;
}

/* A record of fixed part `fixed` followed by n strings, NUL-padded to 8. */
static int header_add_strings(struct ebs_writer *w, void *fixed, size_t fixed_size,
			      const char *const *strs, unsigned int n)
{
	size_t size = fixed_size, off;
	unsigned int i;
	char *rec;
	int err;

	for (i = 0; i < n; i++)
		size += strlen(strs[i]) + 1;
	size = ALIGN8(size);
	if (size > UINT32_MAX)
		return -E2BIG;
	rec = calloc(1, size);
	if (!rec)
		return -ENOMEM;
	memcpy(rec, fixed, fixed_size);
	((struct ebs_rec *)rec)->size = (u32)size;
	off = fixed_size;
	for (i = 0; i < n; i++) {
		size_t len = strlen(strs[i]) + 1;

		memcpy(rec + off, strs[i], len);
		off += len;
	}
	err = header_add(w, rec, size);
	free(rec);
	return err;
}

int ebs_writer__meta(struct ebs_writer *w, u32 key, const char *value)
{
	struct ebs_rec_meta m = {.hdr = {.type = EBS_REC_META}, .key = key};
	int err = header_add_strings(w, &m, sizeof(m), &value, 1);

	if (!err && key == EBS_META_CALL_GRAPH && !w->data_started) {
		w->pack_parts = true;
		w->hdr.version_major = EBS_DATA_VERSION_MAJOR;
		w->hdr.version_minor = 0; /* 1 once a PROCNS record is added */
	}
	return err;
}

int ebs_writer__event(struct ebs_writer *w, struct ebs_rec_event *ev, const char *asked,
		      const char *used, const char *why)
{
	const char *strs[3] = {asked, used, why ? why : ""};

	if (w->nr_events >= EBS_MAX_EVENTS)
		return -E2BIG;
	ev->hdr.type = EBS_REC_EVENT;
	ev->hdr.misc = 0;
	ev->index = (u16)w->nr_events++;
	return header_add_strings(w, ev, sizeof(*ev), strs, 3);
}

int ebs_writer__dso_image(struct ebs_writer *w, const char *name, const void *image, size_t size,
			  const u8 *build_id, u8 build_id_size)
{
	struct ebs_rec_dso_image *rec;
	size_t total = ALIGN8(sizeof(*rec) + size);
	int err;

	if (total > UINT32_MAX || build_id_size > sizeof(rec->build_id))
		return -E2BIG;
	rec = calloc(1, total);
	if (!rec)
		return -ENOMEM;
	rec->hdr.type = EBS_REC_DSO_IMAGE;
	rec->hdr.size = (u32)total;
	rec->image_size = size;
	rec->build_id_size = build_id_size;
	if (build_id_size)
		memcpy(rec->build_id, build_id, build_id_size);
	ebs_strlcpy(rec->name, name, sizeof(rec->name));
	memcpy(rec->image, image, size);
	err = header_add(w, rec, total);
	free(rec);
	return err;
}

int ebs_writer__calibration(struct ebs_writer *w, const struct ebs_rec_calibration *c)
{
	struct ebs_rec_calibration rec = *c;

	rec.hdr.type = EBS_REC_CALIBRATION;
	rec.hdr.misc = 0;
	rec.hdr.size = sizeof(rec);
	rec.reserved0 = 0;
	return header_add(w, &rec, sizeof(rec));
}

int ebs_writer__begin_data(struct ebs_writer *w, u64 start_realtime_ns, u64 start_clock_ns)
{
	int err;

	if (w->data_started)
		return -EINVAL;
	w->hdr.start_realtime_ns = start_realtime_ns;
	w->hdr.start_clock_ns = start_clock_ns;
	w->hdr.data_offset = sizeof(w->hdr) + w->hlen;
	err = write_all(w->fd, &w->hdr, sizeof(w->hdr));
	if (!err && w->hlen)
		err = write_all(w->fd, w->hbuf, w->hlen);
	free(w->hbuf);
	w->hbuf = NULL;
	w->data_started = true;
	w->offset = w->hdr.data_offset;
	w->next_index_at = w->offset;
	if (err)
		w->err = err;
	else
		w->whole = w->offset;
	return err;
}

void ebs_sample__set_parts(struct ebs_rec_sample *o, const struct ebs_sample_parts *p)
{
	u8 *out = (u8 *)(o + 1);
	u64 n;

	if (p->nr_callchain) {
		o->hdr.misc |= EBS_SAMPLE_CALLCHAIN;
		memcpy(out, &p->nr_callchain, 8);
		memcpy(out + 8, p->callchain, p->nr_callchain * 8);
		out += 8 + p->nr_callchain * 8;
	}
	if (p->regs) {
		n = (u64)__builtin_popcountll(p->regs_mask);
		o->hdr.misc |= EBS_SAMPLE_REGS_USER;
		memcpy(out, &p->regs_abi, 8);
		memcpy(out + 8, &p->regs_mask, 8);
		memcpy(out + 16, p->regs, n * 8);
		out += 16 + n * 8;
		if (p->stack) { /* the bytes in use, padded to 8 */
			n = ALIGN8(p->stack_dyn_size);
			o->hdr.misc |= EBS_SAMPLE_STACK_USER;
			memcpy(out, &n, 8);
			memcpy(out + 8, p->stack, p->stack_dyn_size);
			memset(out + 8 + p->stack_dyn_size, 0, n - p->stack_dyn_size);
			memcpy(out + 8 + n, &p->stack_dyn_size, 8);
			out += 16 + n;
		}
	}
	o->hdr.size = (u32)(out - (u8 *)o);
}

/* The time field of a data record, 0 when it has none. */
static u64 rec_time(const struct ebs_rec *rec)
{
	switch (rec->type) {
	case EBS_REC_SAMPLE:
		return ((const struct ebs_rec_sample *)rec)->time;
	case EBS_REC_MMAP:
	case EBS_REC_COMM:
	case EBS_REC_FORK:
	case EBS_REC_EXIT:
	case EBS_REC_LOST:
	case EBS_REC_THROTTLE:
	case EBS_REC_COUNT:
	case EBS_REC_PROCNS:
		/* all of these have u64 time right after the header */
		return *(const u64 *)(const void *)(rec + 1);
	case EBS_REC_SAMPLES:
	case EBS_REC_SAMPLES_CG:
		return ebs_pack__first_time((const void *)rec);
	default:
		return 0;
	}
}

static int index_add(struct ebs_writer *w, u64 time)
{
	if (ebs_grow((void **)&w->index, &w->cap_index, w->nr_index, sizeof(*w->index), 64))
		return -ENOMEM;
	w->index[w->nr_index].offset = w->offset;
	w->index[w->nr_index].time = time;
	w->nr_index++;
	return 0;
}

static void count_rec(struct ebs_writer *w, const struct ebs_rec *rec)
{
	const struct ebs_rec_sample *s;
	const struct ebs_rec_lost *l;
	const struct ebs_rec_throttle *t;

	switch (rec->type) {
	case EBS_REC_SAMPLE:
		s = (const void *)rec;
		w->samples++;
		if (s->event < w->nr_events) {
			w->counts[s->event].samples++;
			w->counts[s->event].period_sum += s->period;
		}
		break;
	case EBS_REC_LOST:
		l = (const void *)rec;
		w->lost += l->lost;
		if (l->event < w->nr_events)
			w->counts[l->event].lost += l->lost;
		break;
	case EBS_REC_THROTTLE:
		t = (const void *)rec;
		if (rec->misc & EBS_THROTTLE_END)
			break;
		w->throttled++;
		if (t->event < w->nr_events)
			w->counts[t->event].throttled++;
		break;
	default:
		break;
	}
}

/*
 * Put rec into the buffer (or straight into the file when it is larger);
 * timed is the record whose time an index entry takes (rec but for a
 * SAMPLES_CGZ: its SAMPLES_CG).
 */
static int add_record_timed(struct ebs_writer *w, const struct ebs_rec *rec,
			    const struct ebs_rec *timed)
{
	u32 size = rec->size;
	int err;

	if (w->offset >= w->next_index_at) {
		err = index_add(w, rec_time(timed));
		if (err)
			return err;
		w->next_index_at = w->offset + EBS_INDEX_STRIDE;
	}
	if (w->wlen + size > WBUF_SIZE) {
		err = flush_buf(w);
		if (err)
			return err;
	}
	if (size > WBUF_SIZE) {
		err = write_all(w->fd, rec, size);
		if (err)
			return w->err = err;
		w->whole += size;
	} else {
		memcpy(w->wbuf + w->wlen, rec, size);
		w->wlen += size;
	}
	w->offset += size;
	w->nr_records++;
	return 0;
}

static int add_record(struct ebs_writer *w, const struct ebs_rec *rec)
{
	return add_record_timed(w, rec, rec);
}

/*
 * The SAMPLES_CG record r as a SAMPLES_CGZ record, when that is smaller:
 * NULL when not (or out of memory: r is whole as it is).
 */
static const struct ebs_rec *compress_cg(struct ebs_writer *w, const struct ebs_rec_samples *r)
{
	struct ebs_rec_samples_z *z;
	size_t n, size;

	if (!w->zc && !(w->zc = ZSTD_createCCtx()))
		return NULL;
	if (!w->zbuf) {
		w->zcap = ZSTD_compressBound(EBS_SAMPLES_CG_MAX_BYTES);
		if (!(w->zbuf = malloc(sizeof(*z) + w->zcap + 8)))
			return NULL;
	}
	z = (void *)w->zbuf;
	n = ZSTD_compressCCtx(w->zc, z + 1, w->zcap, r + 1, r->bytes, CGZ_LEVEL);
	if (ZSTD_isError(n))
		return NULL;
	size = ALIGN8(sizeof(*z) + n);
	if (size >= r->hdr.size)
		return NULL;
	memset(z, 0, sizeof(*z));
	memset(w->zbuf + sizeof(*z) + n, 0, size - sizeof(*z) - n);
	z->hdr.type = EBS_REC_SAMPLES_CGZ;
	z->hdr.size = (u32)size;
	z->count = r->count;
	z->bytes = (u32)n;
	z->packed = r->bytes;
	return &z->hdr;
}

/* The SAMPLES record being filled, into the buffer. */
static int add_pack(struct ebs_writer *w)
{
	const struct ebs_rec *r = w->pack ? ebs_pack__record(w->pack) : NULL;
	const struct ebs_rec *z;
	int err;

	if (!r)
		return 0;
	z = r->type == EBS_REC_SAMPLES_CG ? compress_cg(w, (const void *)r) : NULL;
	err = add_record_timed(w, z ? z : r, r);
	if (!err)
		ebs_pack__reset(w->pack);
	return err;
}

/* Sort and unique the kernel addresses kept so far. */
static void kaddrs_compact(struct ebs_writer *w)
{
	size_t i, n = 0;

	if (!w->nr_kaddrs)
		return; /* kaddrs may be NULL */
	qsort(w->kaddrs, w->nr_kaddrs, sizeof(*w->kaddrs), ebs_u64_cmp);
	for (i = 0; i < w->nr_kaddrs; i++)
		if (!n || w->kaddrs[n - 1] != w->kaddrs[i])
			w->kaddrs[n++] = w->kaddrs[i];
	w->nr_kaddrs = n;
}

static int kaddr_add(struct ebs_writer *w, u64 addr)
{
	if (w->nr_kaddrs && w->kaddrs[w->nr_kaddrs - 1] == addr)
		return 0; /* the likeliest repeat */
	/* full: drop the repeats first, and grow only when that left it half full */
	if (w->nr_kaddrs == w->cap_kaddrs) {
		kaddrs_compact(w);
		if (w->nr_kaddrs >= w->cap_kaddrs / 2 &&
		    ebs_grow((void **)&w->kaddrs, &w->cap_kaddrs, w->nr_kaddrs, sizeof(*w->kaddrs),
			     4096))
			return -ENOMEM;
	}
	w->kaddrs[w->nr_kaddrs++] = addr;
	return 0;
}

/*
 * Keep the kernel addresses of sample s as a report looks them up: its ip,
 * and its chain's kernel part, where a caller's return address is looked
 * up one byte back, inside its call (report/session/callchain.c), which is another
 * function's when the call is the last instruction of its own (a noreturn
 * call: x86_64_start_reservations ends in one), or the function's padding
 * before it (a retpoline's jump: the recorder keeps the function after
 * padding too).  The chain's first address is the sampled one, taken as it
 * is.
 */
static int keep_kernel_addrs(struct ebs_writer *w, const struct ebs_rec_sample *s)
{
	u16 mode = s->hdr.misc & EBS_CPUMODE_MASK;
	struct ebs_sample_parts parts;
	bool kernel = false, first = true;
	u64 i;
	int err;

	if (mode == EBS_CPUMODE_KERNEL && (err = kaddr_add(w, s->ip)))
		return err;
	if (!(s->hdr.misc & EBS_SAMPLE_CALLCHAIN))
		return 0;
	ebs_sample__parts(s, &parts);
	for (i = 0; i < parts.nr_callchain; i++) {
		u64 ip = parts.callchain[i];

		if (ip >= EBS_CHAIN_MAX) {
			kernel = ip == EBS_CHAIN_KERNEL;
			continue;
		}
		if (!ip)
			continue; /* the end of a frame-pointer chain: no frame */
		if (kernel && (err = kaddr_add(w, first ? ip : ip - 1)))
			return err;
		first = false;
	}
	return 0;
}

int ebs_writer__add(struct ebs_writer *w, const struct ebs_rec *rec)
{
	const struct ebs_rec_sample *s = (const void *)rec;
	u32 size = rec->size;
	int err;

	if (!w->data_started || size < sizeof(*rec) || size % 8 || rec->type < EBS_REC_SAMPLE ||
	    rec->type == EBS_REC_TRAILER || size < ebs_rec__fixed_size(rec->type))
		return -EINVAL;
	if (w->err)
		return w->err;
	if (rec->type == EBS_REC_SAMPLE && (err = keep_kernel_addrs(w, s)))
		return err;
	if (rec->type == EBS_REC_SAMPLE && !w->pack &&
	    !(w->pack = ebs_pack__new(w->pack_parts ? EBS_REC_SAMPLES_CG : EBS_REC_SAMPLES)))
		return -ENOMEM;
	if (rec->type == EBS_REC_SAMPLE && ebs_pack__fits(w->pack, s)) {
		if (!ebs_pack__room(w->pack, s) && (err = add_pack(w)))
			return err;
		err = ebs_pack__add(w->pack, s);
		if (err)
			return err;
	} else {
		err = add_pack(w);
		if (!err)
			err = add_record(w, rec);
		if (err)
			return err;
	}
	count_rec(w, rec);
	/* x.1: the file has PROCNS records (the header is patched at the end) */
	if (rec->type == EBS_REC_PROCNS)
		w->hdr.version_minor = 1;
	if (w->tap)
		w->tap(w->tap_ctx, rec);
	return 0;
}

void ebs_writer__set_tap(struct ebs_writer *w, ebs_writer_tap_fn *fn, void *ctx)
{
	w->tap = fn;
	w->tap_ctx = ctx;
}

/* The offset of s in the strings [0, *len) of buf, added when not there. */
static u32 ksym_string(char *buf, size_t *len, const char *s)
{
	size_t l = strlen(s) + 1, i;

	for (i = 0; i + l <= *len; i += strlen(buf + i) + 1) /* modules: few, repeated */
		if (!strcmp(buf + i, s))
			return (u32)i;
	memcpy(buf + *len, s, l);
	*len += l;
	return (u32)(*len - l);
}

int ebs_writer__ksyms(struct ebs_writer *w, u64 stext, const struct ebs_ksym_text *v, size_t n)
{
	struct ebs_rec_ksyms *r;
	struct ebs_ksym *sy;
	size_t i, strings = 1, mods = 1, size;
	char *str;
	int err;

	for (i = 0; i < n; i++)
		strings += strlen(v[i].name) + 1 + strlen(v[i].dso) + 1;
	size = sizeof(*r) + n * sizeof(*sy) + strings;
	size = (size + 7) & ~(size_t)7;
	if (size > EBS_DATA_MAX_RECORD)
		return -E2BIG;
	r = calloc(1, size);
	if (!r)
		return -ENOMEM;
	sy = (void *)(r + 1);
	str = (char *)(sy + n);
	/* the modules' names first (few), each once, so that names need no search */
	for (i = 0; i < n; i++)
		sy[i].module = strcmp(v[i].dso, "[kernel]") ? ksym_string(str, &mods, v[i].dso) : 0;
	strings = mods;
	for (i = 0; i < n; i++) {
		size_t l = strlen(v[i].name) + 1;

		sy[i].start = v[i].start;
		sy[i].end = v[i].end;
		sy[i].flags = v[i].global ? EBS_KSYM_GLOBAL : 0;
		sy[i].name = (u32)strings;
		memcpy(str + strings, v[i].name, l);
		strings += l;
	}
	r->hdr.type = EBS_REC_KSYMS;
	r->hdr.size = (u32)((sizeof(*r) + n * sizeof(*sy) + strings + 7) & ~(size_t)7);
	r->nr = (u32)n;
	r->strings_size = (u32)strings;
	r->stext = stext;
	err = ebs_writer__add(w, &r->hdr);
	free(r);
	return err;
}

int ebs_writer__kernel_addrs(struct ebs_writer *w, const u64 **addrs, size_t *n)
{
	kaddrs_compact(w);
	*addrs = w->kaddrs;
	*n = w->nr_kaddrs;
	return 0;
}

u64 ebs_writer__size(const struct ebs_writer *w)
{
	return w->data_started ? w->offset : sizeof(w->hdr) + w->hlen;
}

const struct ebs_event_counts *ebs_writer__counts(const struct ebs_writer *w, unsigned int i)
{
	return i < w->nr_events ? &w->counts[i] : NULL;
}

void ebs_writer__totals(const struct ebs_writer *w, u64 *samples, u64 *lost, u64 *throttled)
{
	*samples = w->samples;
	*lost = w->lost;
	*throttled = w->throttled;
}

/* Free w; its output's temporary file, if any is left, removed. */
static void writer_free(struct ebs_writer *w)
{
	ebs_outfile__abort(&w->out); /* closes w->fd, unless the caller's */
	free(w->hbuf);
	free(w->wbuf);
	free(w->index);
	ebs_pack__free(w->pack);
	ZSTD_freeCCtx(w->zc);
	free(w->zbuf);
	free(w->kaddrs);
	free(w);
}

static int write_trailer(struct ebs_writer *w, int exit_status)
{
	struct ebs_rec_trailer t = {0};
	size_t counts_size = w->nr_events * sizeof(struct ebs_event_counts);
	size_t index_size;
	int err = add_pack(w); /* before the totals are taken */

	if (err)
		return err;
	index_size = w->nr_index * sizeof(struct ebs_index_entry);
	t.hdr.type = EBS_REC_TRAILER;
	t.hdr.size = (u32)(sizeof(t) + counts_size + index_size);
	t.end_realtime_ns = w->end_clock_ns ? w->end_realtime_ns : ebs_realtime_ns();
	t.end_clock_ns = w->end_clock_ns ? w->end_clock_ns : ebs_clock_ns();
	t.nr_records = w->nr_records;
	t.samples = w->samples;
	t.lost = w->lost;
	t.throttled = w->throttled;
	t.exit_status = exit_status;
	t.nr_events = w->nr_events;
	t.nr_index = w->nr_index;
	w->hdr.trailer_offset = w->offset;
	err = flush_buf(w);
	if (!err)
		err = write_all(w->fd, &t, sizeof(t));
	if (!err && counts_size)
		err = write_all(w->fd, w->counts, counts_size);
	if (!err && index_size)
		err = write_all(w->fd, w->index, index_size);
	if (!err)
		w->offset += t.hdr.size;
	return err;
}

/*
 * After a failure: cut the temporary file back to its last whole record and
 * keep it as NAME.partial, never over an existing file (it then keeps its
 * temporary name).  kept gets the name; "" when nothing was kept (no
 * temporary file, or no data record in it).  Best effort: what cannot be
 * done leaves the file as it is.
 */
static void keep_partial(struct ebs_writer *w, char *kept, size_t len)
{
	char partial[NAME_MAX + 16];

	kept[0] = '\0';
	if (!w->out.tmp[0] || !w->data_started)
		return;
	if (!w->err && !add_pack(w))
		flush_buf(w); /* whole records still in memory, if they can go out */
	if (w->whole <= w->hdr.data_offset)
		return; /* no data record: nothing worth keeping */
	/* the header as begin_data wrote it: no trailer (finish may have patched it) */
	w->hdr.data_size = 0;
	w->hdr.trailer_offset = 0;
	if (ftruncate(w->fd, (off_t)w->whole) == 0 &&
	    pwrite(w->fd, &w->hdr, sizeof(w->hdr), 0) == (ssize_t)sizeof(w->hdr))
		fsync(w->fd);
	snprintf(partial, sizeof(partial), "%s.partial", w->out.base);
	if (renameat2(w->out.dfd, w->out.tmp, w->out.dfd, partial, RENAME_NOREPLACE) == 0)
		ebs_outfile__tmp_path(&w->out, partial, kept, len);
	else
		ebs_outfile__tmp_path(&w->out, w->out.tmp, kept, len);
	w->out.tmp[0] = '\0'; /* kept: not to be removed */
}

int ebs_writer__abort_keep(struct ebs_writer *w, struct ebs_error *err)
{
	char kept[PATH_MAX + 16];
	u64 bytes;
	size_t n;

	if (!w)
		return 0;
	keep_partial(w, kept, sizeof(kept));
	bytes = w->whole;
	ebs_writer__abort(w);
	if (!kept[0])
		return 0;
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n,
		 "; the %llu bytes recorded so far are in %s, unfinished (read it with 'ebs report "
		 "-i %s')",
		 (unsigned long long)bytes, kept, kept);
	return 1;
}

int ebs_writer__flush(struct ebs_writer *w)
{
	int err;

	if (!w->data_started)
		return w->err;
	err = add_pack(w);
	return err ? err : w->wlen ? flush_buf(w) : w->err;
}

int ebs_writer__finish(struct ebs_writer *w, int exit_status, u64 *size, struct ebs_error *err)
{
	int e;

	if (!w->data_started) {
		e = ebs_writer__begin_data(w, ebs_realtime_ns(), ebs_clock_ns());
		if (e)
			goto fail;
	}
	e = write_trailer(w, exit_status);
	if (e)
		goto fail;
	if (!w->streamed) {
		w->hdr.data_size = w->offset - w->hdr.data_offset;
		if (pwrite(w->fd, &w->hdr, sizeof(w->hdr), 0) != (ssize_t)sizeof(w->hdr)) {
			e = -errno;
			goto fail;
		}
	}
	if (!w->keep_fd) {
		if (!w->out.in_place && fsync(w->fd) < 0) {
			e = -errno;
			goto fail;
		}
		w->fd = -1; /* the commit closes it */
		e = ebs_outfile__commit(&w->out, err);
		if (e) {
			writer_free(w); /* what was written is kept, under a name err says */
			return e;
		}
	}
	if (size)
		*size = w->offset;
	writer_free(w);
	return 0;

fail:
	ebs_error__set(err, -e, "%s: write failed: %s", ebs_output_name(w->path), strerror(-e));
	ebs_writer__abort_keep(w, err);
	return e;
}

void ebs_writer__abort(struct ebs_writer *w)
{
	if (!w)
		return;
	writer_free(w);
}

/*
 * Is name DIR/.BASE.tmp.XXXXXX for the prefix (".BASE.tmp.")?  With no
 * prefix, for any BASE.
 */
static bool is_tmp_name(const char *name, const char *prefix)
{
	size_t len = strlen(name), n, i;

	if (prefix) {
		n = strlen(prefix);
		if (strncmp(name, prefix, n) || len != n + 6)
			return false;
	} else {
		n = len - 6;
		if (len < sizeof(".X.tmp.XXXXXX") - 1 || name[0] != '.' ||
		    strncmp(name + n - 5, ".tmp.", 5))
			return false;
	}
	for (i = n; name[i]; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return false;
	return true;
}

/* Is the regular file fd empty, or does it begin with EBS_DATA_MAGIC? */
static bool begins_as_ebs_data(int fd, const struct stat *st)
{
	char magic[sizeof(EBS_DATA_MAGIC)];

	if (st->st_size == 0)
		return true;
	return pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	       !memcmp(magic, EBS_DATA_MAGIC, sizeof(magic));
}

int ebs_writer__leftovers(const char *path, bool remove, ebs_leftover_fn fn, void *ctx)
{
	char prefix[PATH_MAX], file[PATH_MAX * 2], dir[PATH_MAX], *base;
	struct dirent *de;
	DIR *d;
	int found = 0, e;

	if (!path) {
		base = NULL; /* every output's, in the current directory */
		ebs_strlcpy(dir, ".", sizeof(dir));
	} else if (!strcmp(path, "-")) {
		return 0; /* written in place: no temporary files */
	} else {
		e = ebs_tmp_prefix(path, prefix, sizeof(prefix));
		if (e)
			return e;
		base = strrchr(prefix, '/');
		*base++ = '\0';
		ebs_strlcpy(dir, prefix, sizeof(dir));
	}
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct ebs_leftover lo = {0};
		struct stat st;
		int fd;

		if (!is_tmp_name(de->d_name, base))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		/*
		 * A regular file of ours, that no running writer holds, and an
		 * ebs.data file: empty (killed before its header), or beginning
		 * with the magic.  Anything else of that name is not ours to
		 * name or remove, nor to open: a FIFO's open would be seen by
		 * its writer.
		 */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    !begins_as_ebs_data(fd, &st) || flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue;
		}
		lo.path = file;
		lo.size = (u64)st.st_size;
		lo.mtime = st.st_mtime;
		if (remove) {
			lo.removed = unlinkat(dirfd(d), de->d_name, 0) == 0;
			lo.err = lo.removed ? 0 : -errno;
		}
		close(fd);
		found++;
		if (fn)
			fn(ctx, &lo);
	}
	closedir(d);
	return found;
}
