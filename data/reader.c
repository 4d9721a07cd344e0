// SPDX-License-Identifier: MIT
/*
 * reader.c - read and validate ebs.data files.
 *
 * A SAMPLES or SAMPLES_CG record's packed samples are unpacked whole when
 * it is read (every byte checked), and handed out one by one as SAMPLE
 * records (a SAMPLES_CGZ record is decompressed into the SAMPLES_CG it
 * holds first): a reader's user sees the same records whichever way a
 * sample was stored.
 *
 * Nothing is trusted: before a field is used, the bytes it lies in are
 * known to be inside the file and inside its record.  Every problem becomes
 * one line "FILE: offset N: what is wrong" and -EBADMSG (or the errno of a
 * failed system call); main turns that into exit status 2.
 *
 * The file is read with pread(2), never mapped: a file that shrinks while
 * it is read (truncated, rewritten, still being written) is an error
 * rather than SIGBUS, and memory does not grow with the file.  In memory
 * are the fixed header with the header records (at most
 * EBS_DATA_MAX_HEADER bytes), a copy of the TRAILER, and a window over the
 * data records holding at least the current one (at most
 * EBS_DATA_MAX_RECORD bytes).  Nothing past the size the file had at open
 * is read.  A stream (a pipe, standard input, a device) is first copied
 * into an unlinked temporary file, and the copy stops at the first bytes
 * that cannot continue an ebs.data file (a bad magic, an impossible header
 * or record size) and after the TRAILER: endless input ends at once.
 *
 * A perf.data file is converted first (data/open.c chooses the format;
 * data/perfdata.c converts), and the conversion is read in its place.
 *
 * Why one file of ~1,350 lines: the checks of every record type and the
 * window over the data are one validator; its state (struct ebs_data) is
 * private to it, and the steps open.c puts together are in internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <zstd.h>

#include "data/data.h"
#include "data/packed.h"
#include "data/internal.h"
#include "data/perfdata.h" /* a perf.data stream's framing, to spool it */

#define WINDOW_SIZE (1u << 20) /* what one read of the data records asks for */
#define SPOOL_CHUNK (256u * 1024)

struct ebs_data {
	char *path;
	int fd;		    /* the file, or the copy of a stream */
	bool own_fd;	    /* not standard input */
	unsigned int flags; /* EBS_DATA_* */
	u64 size;	    /* at open: nothing past it is read */
	u8 *head;	    /* bytes [0, data_offset): fixed header, header records */
	u64 head_len;
	u8 *win; /* bytes [win_off, win_off + win_len) of the file */
	u64 win_off;
	size_t win_len, win_cap;
	u8 *tbuf; /* a copy of the TRAILER record, which is at tbuf_off */
	u64 tbuf_off;
	const struct ebs_file_header *hdr;
	unsigned int nr_events;
	struct ebs_event_info events[EBS_MAX_EVENTS];
	const struct ebs_rec_meta *meta[64];
	const struct ebs_rec_calibration *calib[EBS_MAX_EVENTS]; /* by event */
	unsigned int nr_meta;
	const struct ebs_rec_trailer *trailer;
	const struct ebs_event_counts *counts;
	u64 pos;     /* iteration offset */
	u64 nr_seen; /* data records iterated, to check against the trailer */
	bool done;
	/* what this pass handed out, counted as the writer counts for its trailer */
	struct ebs_rec_trailer tally;
	struct ebs_event_counts tally_counts[EBS_MAX_EVENTS];
	/* an unfinished recording read to its end (EBS_DATA_UNFINISHED) says so here */
	char unfinished[384];
	/*
	 * The samples of the SAMPLES or SAMPLES_CG record at unpacked_off, as
	 * SAMPLE records: unpacked[unpacked_next, unpacked_len) still to hand out.
	 */
	u8 *unpacked;
	size_t unpacked_cap, unpacked_len, unpacked_next;
	u64 unpacked_off;
	/* a SAMPLES_CGZ record's SAMPLES_CG record, decompressed, and the decompressor */
	struct ebs_rec_samples *inflated;
	ZSTD_DCtx *zd;
	const struct ebs_rec_ksyms *ksyms; /* a copy of the KSYMS record */
	/* converted from a perf.data that did not finish: the line for unfinished, at the end */
	char perf_unfinished[384];
	/* read from an archive: where it was extracted (removed at close), what was left out */
	char *archive_dir;
	char archive_notice[384];
};

/*
 * "FILE: offset N: what" with code code (util/error.h: its errno is
 * EBADMSG): the file is not one, or not whole (EBS_E_NOT_EBS_DATA,
 * EBS_E_TRUNCATED...).  Returns -EBADMSG.
 */
__attribute__((format(printf, 5, 6))) static int bad_as(const struct ebs_data *d,
							struct ebs_error *err, enum ebs_code code,
							u64 off, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return ebs_error__fail(err, code, "%s: offset %llu: %s", d->path, (unsigned long long)off,
			       why);
}

/* A malformed record (EBS_E_BAD_RECORD). */
#define bad(d, err, off, ...) bad_as(d, err, EBS_E_BAD_RECORD, off, __VA_ARGS__)

const char *ebs_rec__type_name(u16 type)
{
	switch (type) {
	case EBS_REC_META:
		return "META";
	case EBS_REC_EVENT:
		return "EVENT";
	case EBS_REC_DSO_IMAGE:
		return "DSO_IMAGE";
	case EBS_REC_CALIBRATION:
		return "CALIBRATION";
	case EBS_REC_SAMPLE:
		return "SAMPLE";
	case EBS_REC_MMAP:
		return "MMAP";
	case EBS_REC_COMM:
		return "COMM";
	case EBS_REC_FORK:
		return "FORK";
	case EBS_REC_EXIT:
		return "EXIT";
	case EBS_REC_LOST:
		return "LOST";
	case EBS_REC_THROTTLE:
		return "THROTTLE";
	case EBS_REC_COUNT:
		return "COUNT";
	case EBS_REC_TRAILER:
		return "TRAILER";
	case EBS_REC_SAMPLES:
		return "SAMPLES";
	case EBS_REC_SAMPLES_CG:
		return "SAMPLES_CG";
	case EBS_REC_SAMPLES_CGZ:
		return "SAMPLES_CGZ";
	case EBS_REC_KSYMS:
		return "KSYMS";
	case EBS_REC_PROCNS:
		return "PROCNS";
	default:
		return "?";
	}
}

static bool is_header_type(u16 type)
{
	return type >= EBS_REC_META && type < EBS_REC_SAMPLE;
}

u32 ebs_rec__fixed_size(u16 type)
{
	switch (type) {
	case EBS_REC_META:
		return sizeof(struct ebs_rec_meta);
	case EBS_REC_EVENT:
		return sizeof(struct ebs_rec_event);
	case EBS_REC_DSO_IMAGE:
		return sizeof(struct ebs_rec_dso_image);
	case EBS_REC_CALIBRATION:
		return sizeof(struct ebs_rec_calibration);
	case EBS_REC_SAMPLE:
		return sizeof(struct ebs_rec_sample);
	case EBS_REC_MMAP:
		return sizeof(struct ebs_rec_mmap);
	case EBS_REC_COMM:
		return sizeof(struct ebs_rec_comm);
	case EBS_REC_FORK:
	case EBS_REC_EXIT:
		return sizeof(struct ebs_rec_task);
	case EBS_REC_LOST:
		return sizeof(struct ebs_rec_lost);
	case EBS_REC_THROTTLE:
		return sizeof(struct ebs_rec_throttle);
	case EBS_REC_COUNT:
		return sizeof(struct ebs_rec_count);
	case EBS_REC_TRAILER:
		return sizeof(struct ebs_rec_trailer);
	case EBS_REC_SAMPLES:
	case EBS_REC_SAMPLES_CG:
		return sizeof(struct ebs_rec_samples);
	case EBS_REC_SAMPLES_CGZ:
		return sizeof(struct ebs_rec_samples_z);
	case EBS_REC_KSYMS:
		return sizeof(struct ebs_rec_ksyms);
	case EBS_REC_PROCNS:
		return sizeof(struct ebs_rec_procns);
	default:
		return 0;
	}
}

/* Count the NUL-terminated strings in [p, p+len); the last one must be terminated. */
static bool has_strings(const char *p, size_t len, unsigned int n)
{
	while (n--) {
		const char *nul = memchr(p, '\0', len);

		if (!nul)
			return false;
		len -= (size_t)(nul - p) + 1;
		p = nul + 1;
	}
	return true;
}

/* The optional parts of a sample, each bounds-checked against the record. */
static int sample_parts(const struct ebs_rec_sample *s, struct ebs_sample_parts *p)
{
	const u8 *cur = (const u8 *)(s + 1), *end = (const u8 *)s + s->hdr.size;
	u64 v;

	memset(p, 0, sizeof(*p));
#define TAKE_U64(dst)                                                                              \
	do {                                                                                       \
		if ((size_t)(end - cur) < 8)                                                       \
			return -1;                                                                 \
		memcpy(&(dst), cur, 8);                                                            \
		cur += 8;                                                                          \
	} while (0)
	if (s->hdr.misc & EBS_SAMPLE_CALLCHAIN) {
		TAKE_U64(v);
		if (v > (u64)(end - cur) / 8)
			return -1;
		p->nr_callchain = v;
		p->callchain = (const u64 *)(const void *)cur;
		cur += v * 8;
	}
	if (s->hdr.misc & EBS_SAMPLE_REGS_USER) {
		TAKE_U64(p->regs_abi);
		TAKE_U64(p->regs_mask);
		v = (u64)__builtin_popcountll(p->regs_mask);
		if (v > (u64)(end - cur) / 8)
			return -1;
		p->regs = (const u64 *)(const void *)cur;
		cur += v * 8;
	}
	if (s->hdr.misc & EBS_SAMPLE_STACK_USER) {
		TAKE_U64(v);
		if (v > (u64)(end - cur) || ALIGN8(v) > (u64)(end - cur))
			return -1;
		p->stack_size = v;
		p->stack = cur;
		cur += ALIGN8(v);
		TAKE_U64(p->stack_dyn_size);
		if (p->stack_dyn_size > p->stack_size)
			return -1;
	}
#undef TAKE_U64
	return 0;
}

void ebs_sample__parts(const struct ebs_rec_sample *s, struct ebs_sample_parts *p)
{
	if (sample_parts(s, p))
		memset(p, 0, sizeof(*p));
}

/* The file's size now, for a message about a file that changed. */
static unsigned long long size_now(const struct ebs_data *d)
{
	struct stat st;

	return fstat(d->fd, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

/* Read len bytes at off into buf; off + len is within the size at open. */
static int read_at(struct ebs_data *d, u64 off, void *buf, size_t len, struct ebs_error *err)
{
	u8 *p = buf;

	while (len) {
		ssize_t n = pread(d->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ebs_error__set(err, errno, "%s: offset %llu: read failed: %s",
					      d->path, (unsigned long long)off, strerror(errno));
		if (n == 0)
			return bad(d, err, off,
				   "the file shrank while it was read (%llu bytes "
				   "when opened, %llu now)",
				   (unsigned long long)d->size, size_now(d));
		p += n;
		off += (u64)n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The len bytes at off, with off + len <= d->size: from the header area,
 * else through the window, which moves to off when it does not hold them
 * (off is a record boundary, so records stay 8-aligned in memory).  Valid
 * until the next call.
 */
static int bytes_at(struct ebs_data *d, u64 off, size_t len, const u8 **p, struct ebs_error *err)
{
	size_t want;
	int e;

	if (off + len <= d->head_len) {
		*p = d->head + off;
		return 0;
	}
	if (d->win_len && off >= d->win_off && off - d->win_off <= d->win_len &&
	    len <= d->win_len - (off - d->win_off)) {
		*p = d->win + (off - d->win_off);
		return 0;
	}
	want = len > WINDOW_SIZE ? len : WINDOW_SIZE;
	if (want > d->size - off)
		want = (size_t)(d->size - off);
	if (want > d->win_cap) {
		u8 *n = malloc(want);

		if (!n)
			return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
		free(d->win);
		d->win = n;
		d->win_cap = want;
	}
	d->win_len = 0;
	e = read_at(d, off, d->win, want, err);
	if (e)
		return e;
	d->win_off = off;
	d->win_len = want;
	*p = d->win;
	return 0;
}

/*
 * A KSYMS record's parts, tail_len bytes after its fixed part: 0 when
 * sound, else what is wrong (1 overrun, 2 strings, 3 a name, 4 order).
 */
static int check_ksyms(const struct ebs_rec_ksyms *k, size_t tail_len)
{
	const struct ebs_ksym *sy = (const void *)(k + 1);
	const char *str = (const char *)(sy + k->nr);
	u32 i;

	if ((u64)k->nr * sizeof(*sy) + k->strings_size > tail_len)
		return 1;
	if (!k->strings_size || str[0] || str[k->strings_size - 1])
		return 2;
	for (i = 0; i < k->nr; i++) {
		if (sy[i].name >= k->strings_size || !sy[i].name || sy[i].module >= k->strings_size)
			return 3;
		if (sy[i].start >= sy[i].end || (i && sy[i].start < sy[i - 1].end))
			return 4;
	}
	return 0;
}

/*
 * Check the record at off (end is where records must stop).  On success
 * *out points to it, valid until the reader reads again.  Type-specific
 * checks need d->nr_events known.
 */
static int check_record(struct ebs_data *d, u64 off, u64 end, const struct ebs_rec **out,
			struct ebs_error *err)
{
	const struct ebs_rec *r;
	const u8 *p;
	u32 fixed, size;
	const char *tail;
	size_t tail_len;
	int e;

	if (off > end || end - off < sizeof(*r))
		return bad_as(d, err, EBS_E_TRUNCATED, off,
			      "truncated: %llu bytes left where a record header needs %zu",
			      (unsigned long long)(end - off), sizeof(*r));
	e = bytes_at(d, off, sizeof(*r), &p, err);
	if (e)
		return e;
	r = (const void *)p;
	size = r->size;
	if (size < sizeof(*r) || size % 8)
		return bad(d, err, off, "bad record size %u (type %u)", size, r->type);
	if (size > EBS_DATA_MAX_RECORD && off >= d->head_len)
		return bad(d, err, off,
			   "%s record of %u bytes: more than the %u this reader "
			   "accepts",
			   ebs_rec__type_name(r->type), size, EBS_DATA_MAX_RECORD);
	if (size > end - off)
		return bad_as(d, err, EBS_E_TRUNCATED, off,
			      "truncated %s record: size %u, %llu bytes left",
			      ebs_rec__type_name(r->type), size, (unsigned long long)(end - off));
	e = bytes_at(d, off, size, &p, err);
	if (e)
		return e;
	r = (const void *)p;
	fixed = ebs_rec__fixed_size(r->type);
	if (fixed && size < fixed)
		return bad(d, err, off, "%s record of %u bytes is shorter than its %u fixed bytes",
			   ebs_rec__type_name(r->type), size, fixed);
	tail = (const char *)r + fixed;
	tail_len = size - fixed;

	switch (r->type) {
	case EBS_REC_META:
		if (!has_strings(tail, tail_len, 1))
			return bad(d, err, off, "META value is not terminated");
		break;
	case EBS_REC_EVENT:
		if (!has_strings(tail, tail_len, 3))
			return bad(d, err, off, "EVENT names are not terminated");
		break;
	case EBS_REC_DSO_IMAGE: {
		const struct ebs_rec_dso_image *im = (const void *)r;

		if (im->image_size > tail_len)
			return bad(d, err, off, "DSO_IMAGE of %llu bytes in a record of %u",
				   (unsigned long long)im->image_size, size);
		if (!memchr(im->name, '\0', sizeof(im->name)) || im->build_id_size > 20)
			return bad(d, err, off, "DSO_IMAGE name or build-id is malformed");
		break;
	}
	case EBS_REC_SAMPLE: {
		const struct ebs_rec_sample *s = (const void *)r;
		struct ebs_sample_parts parts;

		if (s->event >= d->nr_events)
			return bad(d, err, off, "SAMPLE names event %u; the file has %u", s->event,
				   d->nr_events);
		if (sample_parts(s, &parts))
			return bad(d, err, off, "SAMPLE's optional parts overrun its %u bytes",
				   size);
		break;
	}
	case EBS_REC_MMAP: {
		const struct ebs_rec_mmap *m = (const void *)r;

		if (!has_strings(tail, tail_len, 1))
			return bad(d, err, off, "MMAP file name is not terminated");
		if (m->build_id_size > sizeof(m->build_id))
			return bad(d, err, off, "MMAP build-id size %u", m->build_id_size);
		if (m->start + m->len < m->start)
			return bad(d, err, off, "MMAP range wraps around");
		break;
	}
	case EBS_REC_COMM:
		if (!has_strings(tail, tail_len, 1))
			return bad(d, err, off, "COMM name is not terminated");
		break;
	case EBS_REC_PROCNS:
		if (!has_strings(tail, tail_len, 1))
			return bad(d, err, off, "PROCNS root is not terminated");
		break;
	case EBS_REC_LOST: {
		const struct ebs_rec_lost *l = (const void *)r;

		if (l->event != 0xffff && l->event >= d->nr_events)
			return bad(d, err, off, "LOST names event %u; the file has %u", l->event,
				   d->nr_events);
		break;
	}
	case EBS_REC_THROTTLE: {
		const struct ebs_rec_throttle *t = (const void *)r;

		if (t->event >= d->nr_events)
			return bad(d, err, off, "THROTTLE names event %u; the file has %u",
				   t->event, d->nr_events);
		break;
	}
	case EBS_REC_COUNT: {
		const struct ebs_rec_count *c = (const void *)r;

		if (c->event >= d->nr_events)
			return bad(d, err, off, "COUNT names event %u; the file has %u", c->event,
				   d->nr_events);
		break;
	}
	case EBS_REC_SAMPLES:
	case EBS_REC_SAMPLES_CG: {
		const struct ebs_rec_samples *sp = (const void *)r;
		const char *name = ebs_rec__type_name(r->type);

		if (!sp->count || sp->count > EBS_SAMPLES_MAX)
			return bad(d, err, off, "%s record of %u samples (1 to %u)", name,
				   sp->count, EBS_SAMPLES_MAX);
		if (sp->bytes > tail_len)
			return bad(d, err, off, "%s record of %u bytes packs %u", name, size,
				   sp->bytes);
		break;
	}
	case EBS_REC_SAMPLES_CGZ: {
		const struct ebs_rec_samples_z *z = (const void *)r;

		if (!z->count || z->count > EBS_SAMPLES_MAX)
			return bad(d, err, off, "SAMPLES_CGZ record of %u samples (1 to %u)",
				   z->count, EBS_SAMPLES_MAX);
		if (z->bytes > size - sizeof(*z))
			return bad(d, err, off, "SAMPLES_CGZ record of %u bytes holds %u", size,
				   z->bytes);
		if (!z->packed || z->packed > EBS_SAMPLES_CG_MAX_BYTES)
			return bad(d, err, off, "SAMPLES_CGZ record of %u packed bytes (1 to %u)",
				   z->packed, EBS_SAMPLES_CG_MAX_BYTES);
		break;
	}
	case EBS_REC_KSYMS: {
		const struct ebs_rec_ksyms *k = (const void *)r;

		e = check_ksyms(k, tail_len);
		if (e)
			return bad(d, err, off, "KSYMS record: %s",
				   e == 1   ? "its symbols overrun the record"
				   : e == 2 ? "its strings are not terminated"
				   : e == 3 ? "a name lies outside its strings"
					    : "its symbols are not sorted, or overlap");
		break;
	}
	case EBS_REC_TRAILER: {
		const struct ebs_rec_trailer *t = (const void *)r;
		u64 need = sizeof(*t) + (u64)t->nr_events * sizeof(struct ebs_event_counts) +
			   (u64)t->nr_index * sizeof(struct ebs_index_entry);

		if (t->nr_events != d->nr_events)
			return bad(d, err, off, "trailer counts %u events; the header has %u",
				   t->nr_events, d->nr_events);
		if (need > size)
			return bad(d, err, off, "trailer of %u bytes needs %llu", size,
				   (unsigned long long)need);
		break;
	}
	default:
		break; /* unknown: a newer minor version; skipped */
	}
	*out = r;
	return 0;
}

/* ---- streams ----------------------------------------------------------- */

/* An unlinked temporary file in $TMPDIR (else /tmp), or -errno. */
int reader__temp_fd(const char **dir)
{
	char path[PATH_MAX];
	int fd;

	*dir = getenv("TMPDIR");
	if (!*dir || !**dir)
		*dir = "/tmp";
	fd = open(*dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/.ebs-stream.XXXXXX", *dir) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC); /* no O_TMPFILE here: the name goes at once */
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

struct spool {
	int in, out;
	u8 *buf;	 /* SPOOL_CHUNK bytes of input */
	size_t at, have; /* buf[0, at) taken, buf[at, have) not yet */
	u64 len;	 /* bytes taken in all: the copy's size */
};

/* Write what was taken of buf into the copy.  0 or -errno. */
static int put(struct spool *s)
{
	size_t done = 0;

	while (done < s->at) {
		ssize_t w = write(s->out, s->buf + done, s->at - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		done += (size_t)w;
	}
	return 0;
}

/*
 * Take up to n bytes of the stream into the copy, the first keep_len of
 * them also into keep.  0 when all n came, 1 at the end of the stream
 * before that, or -errno (of a read or a write).
 */
static int take(struct spool *s, u64 n, void *keep, size_t keep_len)
{
	u64 done = 0;

	while (done < n) {
		size_t c;

		if (s->at == s->have) {
			ssize_t r;
			int e = put(s);

			if (e)
				return e;
			s->at = s->have = 0;
			do
				r = read(s->in, s->buf, SPOOL_CHUNK);
			while (r < 0 && errno == EINTR);
			if (r < 0)
				return -errno;
			if (r == 0)
				return 1;
			s->have = (size_t)r;
		}
		c = n - done < s->have - s->at ? (size_t)(n - done) : s->have - s->at;
		if (keep && done < keep_len)
			memcpy((u8 *)keep + done, s->buf + s->at,
			       keep_len - done < c ? (size_t)(keep_len - done) : c);
		s->at += c;
		s->len += c;
		done += c;
	}
	return 0;
}

/*
 * A perf.data stream, its magic taken: a pipe-mode one record by record to
 * its end (it has no end mark), stopping at a record size below 8; a
 * file-mode one (cat perf.data |) to the end of its data section and of
 * the feature sections its table lists, or to its end when the data size
 * is 0 (perf record killed).
 */
static int spool_perf(struct spool *s)
{
	u64 h[13], table[255 * 2], end, nfeat = 0, i;
	unsigned int bit;
	int e;

	e = take(s, 8, &h[1], 8);
	if (e)
		return e < 0 ? e : 0;
	if (h[1] == 16) {
		for (;;) {
			struct perf_event_header ph;
			u8 first8[8];
			u64 extra = 0;

			e = take(s, sizeof(ph), &ph, sizeof(ph));
			if (e || ph.size < sizeof(ph))
				break;
			e = take(s, ph.size - sizeof(ph), first8, ph.size >= 16 ? 8 : 0);
			if (!e && ph.size >= 16)
				extra = perf_data__payload(ph.type, first8);
			if (!e && extra)
				e = take(s, extra, NULL, 0);
			if (e)
				break;
		}
		return e < 0 ? e : 0;
	}
	e = take(s, sizeof(h) - 16, &h[2], sizeof(h) - 16); /* h[5], h[6]: the data section */
	if (e)
		return e < 0 ? e : 0;
	if (!h[6] || h[5] + h[6] < h[5])
		return (e = take(s, UINT64_MAX, NULL, 0)) < 0 ? e : 0;
	end = h[5] + h[6];
	e = end > s->len ? take(s, end - s->len, NULL, 0) : 0;
	for (bit = 1; bit < 256 && h[1] == sizeof(h); bit++)
		nfeat += (h[9 + bit / 64] >> (bit % 64)) & 1;
	if (!e && nfeat && end == s->len)
		e = take(s, nfeat * 16, table, nfeat * 16);
	for (i = 0, end = 0; !e && i < nfeat; i++)
		if (table[2 * i] + table[2 * i + 1] >= table[2 * i] &&
		    table[2 * i] + table[2 * i + 1] > end)
			end = table[2 * i] + table[2 * i + 1];
	if (!e && end > s->len)
		e = take(s, end - s->len, NULL, 0);
	return e < 0 ? e : 0;
}

/*
 * Copy the stream: the fixed header, the header records, then record by
 * record up to and including the TRAILER.  It stops early, leaving the
 * checks at open to name what is wrong, where what came cannot continue
 * an ebs.data file: a bad magic, an impossible header size or data offset,
 * header records of more than EBS_DATA_MAX_HEADER bytes, a record size
 * below 8, not a multiple of 8 or above EBS_DATA_MAX_RECORD.  So no input
 * is read further than the format and these limits allow.
 */
static int spool_records(struct spool *s)
{
	struct ebs_file_header h;
	struct ebs_rec r;
	int e;

	e = take(s, 8, &h, 8);
	if (!e && perf_data__magic(h.magic) == PERF_MAGIC_NATIVE)
		return spool_perf(s);
	if (!e && archive__stream_magic((const u8 *)h.magic, 8)) /* an archive: whole, to its end */
		return (e = take(s, UINT64_MAX, NULL, 0)) < 0 ? e : 0;
	if (e || memcmp(h.magic, EBS_DATA_MAGIC, sizeof(EBS_DATA_MAGIC)) != 0)
		return e < 0 ? e : 0;
	e = take(s, sizeof(h) - 8, (u8 *)&h + 8, sizeof(h) - 8);
	if (e || h.header_size < sizeof(h) || h.header_size % 8 || h.data_offset < h.header_size ||
	    h.data_offset % 8 || h.data_offset - h.header_size > EBS_DATA_MAX_HEADER)
		return e < 0 ? e : 0;
	e = take(s, h.data_offset - sizeof(h), NULL, 0);
	while (!e) {
		e = take(s, sizeof(r), &r, sizeof(r));
		if (e || r.size < sizeof(r) || r.size % 8 || r.size > EBS_DATA_MAX_RECORD)
			break;
		e = take(s, r.size - sizeof(r), NULL, 0);
		if (r.type == EBS_REC_TRAILER)
			break;
	}
	return e < 0 ? e : 0;
}

static int spool(struct ebs_data *d, int in, struct ebs_error *err)
{
	struct spool s = {.in = in};
	const char *dir;
	int e;

	s.out = reader__temp_fd(&dir);
	if (s.out < 0)
		return ebs_error__set(err, -s.out,
				      "%s: cannot keep the stream in a temporary file "
				      "in %s: %s",
				      d->path, dir, strerror(-s.out));
	s.buf = malloc(SPOOL_CHUNK);
	if (!s.buf) {
		close(s.out);
		return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
	}
	e = spool_records(&s);
	if (!e)
		e = put(&s); /* what was taken: not what came after the TRAILER */
	free(s.buf);
	if (e) {
		close(s.out);
		return ebs_error__set(err, -e,
				      "%s: offset %llu: cannot copy the stream into a "
				      "temporary file in %s: %s",
				      d->path, (unsigned long long)s.len, dir, strerror(-e));
	}
	d->fd = s.out;
	d->own_fd = true;
	d->size = s.len;
	return 0;
}

/* ---- open -------------------------------------------------------------- */

/*
 * Open the recording at path ("-": standard input) as the user's own
 * input (ebs_open_input's EBS_IN_NAMED): a FIFO, a device or a pipe may be
 * given, but in a directory others can write what is at the name must be
 * the caller's or root's, unless EBS_DATA_ANY_OWNER (--force): another
 * user's recording planted at ebs.data in /tmp is not shown as the
 * caller's, nor a FIFO of theirs hangs the report, nor a link of theirs
 * leads to a device.  A regular file is read in place, anything else
 * copied (spool).
 */
static int load(struct ebs_data *d, const char *path, struct ebs_error *err)
{
	struct ebs_input_rule rule = {
		.flags = EBS_IN_NAMED | (d->flags & EBS_DATA_ANY_OWNER ? EBS_IN_FORCE : 0),
		.owner = (uid_t)-1,
	};
	struct ebs_error why;
	struct stat st;
	int fd, e = 0;

	if (strcmp(path, "-") == 0) {
		fd = STDIN_FILENO;
	} else {
		fd = ebs_open_input(path, &rule, &st, &why);
		if (fd < 0)
			return ebs_error__set(err, -fd, "%s: %s", path, why.msg);
	}
	if (fstat(fd, &st) < 0) {
		e = ebs_error__set(err, errno, "%s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		e = ebs_error__set(err, EISDIR, "%s: is a directory", path);
	} else if (S_ISREG(st.st_mode)) {
		d->fd = fd;
		d->own_fd = fd != STDIN_FILENO;
		d->size = (u64)st.st_size;
		return 0;
	} else {
		e = spool(d, fd, err);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return e;
}

static int check_header(struct ebs_data *d, struct ebs_error *err)
{
	struct ebs_file_header fh = {0}, *h = &fh;
	int e;

	if (d->size == 0)
		return bad_as(d, err, EBS_E_NOT_EBS_DATA, 0, "empty file, not an ebs.data file");
	e = read_at(d, 0, h, d->size < sizeof(*h) ? (size_t)d->size : sizeof(*h), err);
	if (e)
		return e;
	if (d->size < 8 || memcmp(h->magic, EBS_DATA_MAGIC, sizeof(EBS_DATA_MAGIC)) != 0)
		return bad_as(d, err, EBS_E_NOT_EBS_DATA, 0,
			      "not an ebs.data file, nor a perf.data (bad magic)");
	if (d->size < offsetof(struct ebs_file_header, header_size) + 4)
		return bad_as(d, err, EBS_E_TRUNCATED, d->size, "truncated inside the file header");
	if (h->endian != EBS_DATA_ENDIAN) {
		if (h->endian == __builtin_bswap32(EBS_DATA_ENDIAN))
			return bad_as(d, err, EBS_E_BYTE_ORDER, 8,
				      "written with the other byte order; "
				      "this ebs reads its own byte order only");
		return bad_as(d, err, EBS_E_BYTE_ORDER, 8, "bad byte-order mark 0x%08x", h->endian);
	}
	if (h->version_major < EBS_DATA_VERSION_OLDEST_MAJOR ||
	    h->version_major > EBS_DATA_VERSION_MAJOR)
		return bad_as(d, err, EBS_E_BAD_VERSION, 12,
			      "format version %u.%u; this ebs reads versions %u.x to %u.x",
			      h->version_major, h->version_minor, EBS_DATA_VERSION_OLDEST_MAJOR,
			      EBS_DATA_VERSION_MAJOR);
	if (h->header_size < sizeof(*h) || h->header_size % 8)
		return bad(d, err, 16, "bad header size %u", h->header_size);
	if (d->size < h->header_size)
		return bad_as(d, err, EBS_E_TRUNCATED, d->size,
			      "truncated inside the file header (%llu of %u bytes)",
			      (unsigned long long)d->size, h->header_size);
	if (h->data_offset >= h->header_size && h->data_offset % 8 == 0 &&
	    h->data_offset - h->header_size > EBS_DATA_MAX_HEADER)
		return bad(d, err, 24,
			   "data offset %llu: header records of more than the %u "
			   "bytes this reader accepts",
			   (unsigned long long)h->data_offset, EBS_DATA_MAX_HEADER);
	if (h->data_offset < h->header_size || h->data_offset > d->size || h->data_offset % 8)
		/* in its place, but past the end: the file was cut */
		return bad_as(d, err,
			      h->data_offset >= h->header_size && h->data_offset % 8 == 0
				      ? EBS_E_TRUNCATED
				      : EBS_E_BAD_RECORD,
			      24,
			      h->data_offset > d->size && h->data_offset % 8 == 0
				      ? "truncated: data offset %llu is past the file's end (%llu "
					"bytes): the file was cut short"
				      : "data offset %llu is outside the file (%llu bytes)",
			      (unsigned long long)h->data_offset, (unsigned long long)d->size);
	d->head = malloc(h->data_offset);
	if (!d->head)
		return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
	e = read_at(d, 0, d->head, h->data_offset, err);
	if (e)
		return e;
	memcpy(d->head, h, sizeof(*h)); /* what was checked, should it have changed */
	d->head_len = h->data_offset;
	d->hdr = (const void *)d->head;
	return 0;
}

/*
 * The first n strings after the fixed part of header record r, at off in
 * d->head (checked: terminated inside it), as every reader shows them:
 * control characters as '?' (ebs_clean_text).  Event names and META values
 * (hostname, command line...) are only ever printed and compared.
 */
static void clean_strings(struct ebs_data *d, u64 off, const struct ebs_rec *r, unsigned int n)
{
	char *p = (char *)d->head + off + ebs_rec__fixed_size(r->type);

	for (; n; n--, p += strlen(p) + 1)
		ebs_clean_text(p, false);
}

/* Walk the header records between header_size and data_offset. */
static int read_header_records(struct ebs_data *d, struct ebs_error *err)
{
	u64 off = d->hdr->header_size, end = d->hdr->data_offset;
	const struct ebs_rec *r;
	int e;

	while (off < end) {
		e = check_record(d, off, end, &r, err);
		if (e)
			return e;
		if (!is_header_type(r->type)) /* unknown header types (< 16) are skipped */
			return bad(d, err, off, "%s record (type %u) inside the file header",
				   ebs_rec__type_name(r->type), r->type);
		if (r->type == EBS_REC_EVENT) {
			const struct ebs_rec_event *ev = (const void *)r;
			struct ebs_event_info *info;

			if (d->nr_events >= EBS_MAX_EVENTS)
				return bad(d, err, off, "more than %d events", EBS_MAX_EVENTS);
			if (ev->index != d->nr_events)
				return bad(d, err, off, "EVENT index %u out of order (expected %u)",
					   ev->index, d->nr_events);
			clean_strings(d, off, r, 3);
			info = &d->events[d->nr_events++];
			info->rec = ev;
			info->asked = ev->names;
			info->used = info->asked + strlen(info->asked) + 1;
			info->why = info->used + strlen(info->used) + 1;
		} else if (r->type == EBS_REC_META && d->nr_meta < ARRAY_SIZE(d->meta)) {
			clean_strings(d, off, r, 1);
			d->meta[d->nr_meta++] = (const void *)r;
		} else if (r->type == EBS_REC_CALIBRATION) {
			const struct ebs_rec_calibration *c = (const void *)r;

			/* after the EVENT it calibrates */
			if (c->event >= d->nr_events)
				return bad(d, err, off,
					   "CALIBRATION of event %u, which is not "
					   "described before it",
					   c->event);
			d->calib[c->event] = c;
		}
		off += r->size;
	}
	if (d->nr_events == 0)
		return bad(d, err, d->hdr->header_size, "the file describes no event");
	return 0;
}

/* Keep a copy of the TRAILER record r, which is at off. */
static int keep_trailer(struct ebs_data *d, const struct ebs_rec *r, u64 off, struct ebs_error *err)
{
	u8 *t = malloc(r->size);

	if (!t)
		return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
	memcpy(t, r, r->size);
	free(d->tbuf);
	d->tbuf = t;
	d->tbuf_off = off;
	d->trailer = (const void *)t;
	d->counts = (const void *)(d->trailer + 1);
	return 0;
}

static int read_trailer(struct ebs_data *d, u64 off, struct ebs_error *err)
{
	const struct ebs_rec *r;
	int e;

	if (off < d->hdr->data_offset || off % 8)
		return bad(d, err, 40, "trailer offset %llu is outside the data",
			   (unsigned long long)off);
	/* check_record wants off <= end: off + 8 would wrap for offsets near 2^64 */
	if (off > d->size)
		return bad_as(d, err, EBS_E_TRUNCATED, 40,
			      "trailer offset %llu is past the end of the file "
			      "(%llu bytes; truncated?)",
			      (unsigned long long)off, (unsigned long long)d->size);
	e = check_record(d, off, d->size, &r, err);
	if (e)
		return e;
	if (r->type != EBS_REC_TRAILER)
		return bad(d, err, off, "expected the TRAILER record, found %s",
			   ebs_rec__type_name(r->type));
	return keep_trailer(d, r, off, err);
}

struct ebs_data *reader__new(const char *path, unsigned int flags, struct ebs_error *err)
{
	struct ebs_data *d = calloc(1, sizeof(*d));

	if (!d || !(d->path = strdup(path))) {
		free(d);
		ebs_error__set(err, ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	d->fd = -1;
	d->flags = flags;
	return d;
}

int reader__load(struct ebs_data *d, struct ebs_error *err)
{
	return load(d, d->path, err);
}

int reader__fd(const struct ebs_data *d, u64 *size)
{
	*size = d->size;
	return d->fd;
}

void reader__replace(struct ebs_data *d, int fd, u64 size, const char *unfinished)
{
	if (d->own_fd)
		close(d->fd);
	d->fd = fd;
	d->own_fd = true;
	d->size = size;
	if (unfinished)
		ebs_strlcpy(d->perf_unfinished, unfinished, sizeof(d->perf_unfinished));
}

int reader__parse(struct ebs_data *d, struct ebs_error *err)
{
	int e = check_header(d, err);

	if (!e)
		e = read_header_records(d, err);
	/* streamed, or never finished (when that is asked for): found by scanning */
	if (!e && !(d->hdr->flags & EBS_FILE_STREAMED)) {
		if (d->hdr->trailer_offset != 0)
			e = read_trailer(d, d->hdr->trailer_offset, err);
		else if (!(d->flags & EBS_DATA_UNFINISHED))
			e = bad_as(d, err, EBS_E_TRUNCATED, 40,
				   "no trailer: the recording never finished");
	}
	if (!e)
		ebs_data__rewind(d);
	return e;
}

int reader__bad(struct ebs_data *d, struct ebs_error *err, enum ebs_code code, u64 off,
		const char *what)
{
	return bad_as(d, err, code, off, "%s", what);
}

void ebs_data__close(struct ebs_data *d)
{
	if (!d)
		return;
	if (d->own_fd)
		close(d->fd);
	free(d->head);
	free(d->win);
	free(d->tbuf);
	free(d->unpacked);
	free(d->inflated);
	ZSTD_freeDCtx(d->zd);
	free((void *)d->ksyms);
	archive__remove(d->archive_dir);
	free(d->archive_dir);
	free(d->path);
	free(d);
}

void reader__set_archive(struct ebs_data *d, char *dir, const char *notice)
{
	free(d->archive_dir);
	d->archive_dir = dir;
	ebs_strlcpy(d->archive_notice, notice, sizeof(d->archive_notice));
}

const char *ebs_data__buildid_dir(const struct ebs_data *d)
{
	return d->archive_dir;
}

const char *ebs_data__archive_notice(const struct ebs_data *d)
{
	return d->archive_notice[0] ? d->archive_notice : NULL;
}

const char *ebs_data__path(const struct ebs_data *d)
{
	return d->path;
}

u64 ebs_data__size(const struct ebs_data *d)
{
	return d->size;
}

const struct ebs_file_header *ebs_data__header(const struct ebs_data *d)
{
	return d->hdr;
}

unsigned int ebs_data__nr_events(const struct ebs_data *d)
{
	return d->nr_events;
}

const struct ebs_event_info *ebs_data__event(const struct ebs_data *d, unsigned int i)
{
	return i < d->nr_events ? &d->events[i] : NULL;
}

int ebs_data__find_event(const struct ebs_data *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->nr_events; i++)
		if (strcmp(d->events[i].asked, name) == 0 || strcmp(d->events[i].used, name) == 0)
			return (int)i;
	return -ENOENT;
}

const char *ebs_data__meta(const struct ebs_data *d, u32 key)
{
	unsigned int i;

	for (i = 0; i < d->nr_meta; i++)
		if (d->meta[i]->key == key)
			return d->meta[i]->value;
	return NULL;
}

const struct ebs_rec_calibration *ebs_data__calibration(const struct ebs_data *d, unsigned int ev)
{
	return ev < d->nr_events ? d->calib[ev] : NULL;
}

const struct ebs_rec_dso_image *ebs_data__dso_image(const struct ebs_data *d, const char *name)
{
	u64 off = d->hdr->header_size;

	/* validated at open, and kept in memory */
	while (off < d->hdr->data_offset) {
		const struct ebs_rec *r = (const void *)(d->head + off);

		if (r->type == EBS_REC_DSO_IMAGE &&
		    strcmp(((const struct ebs_rec_dso_image *)r)->name, name) == 0)
			return (const void *)r;
		off += r->size;
	}
	return NULL;
}

int ebs_data__rewind(struct ebs_data *d)
{
	d->unpacked_len = d->unpacked_next = 0;
	d->pos = d->hdr->data_offset;
	d->nr_seen = 0;
	d->done = false;
	d->unfinished[0] = '\0';
	memset(&d->tally, 0, sizeof(d->tally));
	memset(d->tally_counts, 0, sizeof(d->tally_counts));
	if (!d->trailer)
		d->counts = NULL;
	return 0;
}

/* Count a record handed out, as the writer counts it for the trailer. */
static void tally(struct ebs_data *d, const struct ebs_rec *r)
{
	switch (r->type) {
	case EBS_REC_SAMPLE: {
		const struct ebs_rec_sample *s = (const void *)r;

		d->tally.samples++;
		d->tally_counts[s->event].samples++;
		d->tally_counts[s->event].period_sum += s->period;
		break;
	}
	case EBS_REC_LOST: {
		const struct ebs_rec_lost *l = (const void *)r;

		d->tally.lost += l->lost;
		if (l->event < d->nr_events)
			d->tally_counts[l->event].lost += l->lost;
		break;
	}
	case EBS_REC_THROTTLE: {
		const struct ebs_rec_throttle *t = (const void *)r;

		if (t->hdr.misc & EBS_THROTTLE_END)
			break;
		d->tally.throttled++;
		d->tally_counts[t->event].throttled++;
		break;
	}
	default:
		break;
	}
}

const char *reader__grouped(u64 n, char *buf, size_t size)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n), i;
	size_t o = 0;

	for (i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/*
 * Does a whole record start at d->pos, before end?  1 yes (or a record
 * whose size is wrong, which check_record names), 0 when the data stop
 * there: at end, or in a record header or a record (of a size this reader
 * accepts) that end cuts short.
 */
static int whole_record_at(struct ebs_data *d, u64 end, struct ebs_error *err)
{
	const u8 *p;
	u32 size;
	int e;

	if (d->pos >= end || end - d->pos < sizeof(struct ebs_rec))
		return 0;
	e = bytes_at(d, d->pos, sizeof(struct ebs_rec), &p, err);
	if (e)
		return e;
	size = ((const struct ebs_rec *)(const void *)p)->size;
	return !(size >= sizeof(struct ebs_rec) && size % 8 == 0 && size <= EBS_DATA_MAX_RECORD &&
		 size > end - d->pos);
}

/* An unfinished recording's data end at d->pos: keep the totals counted, and say so. */
static int end_unfinished(struct ebs_data *d, u64 end)
{
	char n[32];

	d->done = true;
	d->tally.hdr.type = EBS_REC_TRAILER;
	d->tally.hdr.size = (u32)(sizeof(d->tally) + d->nr_events * sizeof(d->tally_counts[0]));
	d->tally.nr_records = d->nr_seen;
	d->tally.exit_status = -1;
	d->tally.nr_events = d->nr_events;
	d->counts = d->tally_counts;
	if (d->perf_unfinished[0]) /* a perf.data's: where it stopped in the perf.data */
		ebs_strlcpy(d->unfinished, d->perf_unfinished, sizeof(d->unfinished));
	else
		ebs_format_line(d->unfinished, sizeof(d->unfinished),
				"%s: recording did not finish: %s samples up to offset %llu%s",
				d->path, reader__grouped(d->tally.samples, n, sizeof(n)),
				(unsigned long long)d->pos,
				end > d->pos ? " (an incomplete record after it left out)" : "");
	return 0;
}

/*
 * Unpack the SAMPLES or SAMPLES_CG record sp, at off, into d->unpacked.
 * z: sp is the SAMPLES_CGZ record at off decompressed (its errors name the
 * byte of the decompressed samples).
 */
static int unpack(struct ebs_data *d, const struct ebs_rec_samples *sp, u64 off, bool z,
		  struct ebs_error *err)
{
	bool cg = sp->hdr.type == EBS_REC_SAMPLES_CG;
	size_t cap =
		cg ? EBS_SAMPLES_CG_MAX_UNPACKED : EBS_SAMPLES_MAX * sizeof(struct ebs_rec_sample);
	const char *name = ebs_rec__type_name(sp->hdr.type), *why;
	const u8 *data = (const u8 *)(sp + 1);
	const struct ebs_rec_sample *s;
	size_t at, len, i;
	u32 n;
	int e;

	if (d->unpacked_cap < cap) { /* a SAMPLES_CG record unpacks to more */
		u8 *b = realloc(d->unpacked, cap);

		if (!b)
			return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
		d->unpacked = b;
		d->unpacked_cap = cap;
	}
	len = (size_t)sp->count * sizeof(*s);
	e = cg ? ebs_unpack_cg(data, sp->bytes, sp->count, d->unpacked, cap, &len, &at, &why)
	       : ebs_unpack(data, sp->bytes, sp->count, (void *)d->unpacked, &at, &why);
	if (e && z)
		return bad(d, err, off, "SAMPLES_CGZ record: byte %zu of its samples: %s", at, why);
	if (e)
		return bad(d, err, off + sizeof(*sp) + at, "%s record: %s", name, why);
	for (i = 0, n = 0; i < len; i += s->hdr.size, n++) {
		s = (const void *)(d->unpacked + i);
		if (s->event >= d->nr_events)
			return bad(d, err, off,
				   "%s record: sample %u names event %u; the file has %u",
				   z ? "SAMPLES_CGZ" : name, n, s->event, d->nr_events);
	}
	d->unpacked_len = len;
	d->unpacked_next = 0;
	d->unpacked_off = off;
	return 0;
}

/*
 * The SAMPLES_CGZ record z, at off: its zstd frame decompressed, exactly
 * one frame of exactly z->packed bytes, into the SAMPLES_CG record
 * *out (d->inflated, valid until the next).
 */
static int inflate_cgz(struct ebs_data *d, const struct ebs_rec_samples_z *z, u64 off,
		       const struct ebs_rec_samples **out, struct ebs_error *err)
{
	const u8 *frame = (const u8 *)(z + 1);
	size_t n;

	if (!d->inflated &&
	    !(d->inflated = malloc(sizeof(*d->inflated) + EBS_SAMPLES_CG_MAX_BYTES)))
		return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
	if (!d->zd && !(d->zd = ZSTD_createDCtx()))
		return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
	n = ZSTD_findFrameCompressedSize(frame, z->bytes);
	if (ZSTD_isError(n) || n != z->bytes)
		return bad(d, err, off + sizeof(*z), "SAMPLES_CGZ record: %s",
			   ZSTD_isError(n) ? ZSTD_getErrorName(n)
					   : "bytes left after its zstd frame");
	n = ZSTD_decompressDCtx(d->zd, d->inflated + 1, z->packed, frame, z->bytes);
	if (ZSTD_isError(n) || n != z->packed)
		return bad(d, err, off + sizeof(*z),
			   "SAMPLES_CGZ record: %s (%u packed bytes announced)",
			   ZSTD_isError(n) ? ZSTD_getErrorName(n) : "the frame holds fewer",
			   z->packed);
	memset(d->inflated, 0, sizeof(*d->inflated));
	d->inflated->hdr.type = EBS_REC_SAMPLES_CG;
	d->inflated->count = z->count;
	d->inflated->bytes = z->packed;
	*out = d->inflated;
	return 0;
}

/* The next sample of the record unpacked. */
static const struct ebs_rec *next_unpacked(struct ebs_data *d)
{
	const struct ebs_rec *r = (const void *)(d->unpacked + d->unpacked_next);

	d->unpacked_next += r->size;
	return r;
}

/* Keep a copy of the (first) KSYMS record. */
static int keep_ksyms(struct ebs_data *d, const struct ebs_rec_ksyms *k, struct ebs_error *err)
{
	void *copy;

	if (d->ksyms)
		return 0;
	copy = malloc(k->hdr.size);
	if (!copy)
		return ebs_error__set(err, ENOMEM, "%s: out of memory", d->path);
	memcpy(copy, k, k->hdr.size);
	d->ksyms = copy;
	return 0;
}

const struct ebs_rec_ksyms *ebs_data__ksyms(const struct ebs_data *d)
{
	return d->ksyms;
}

int ebs_data__next(struct ebs_data *d, const struct ebs_rec **rec, struct ebs_error *err)
{
	const struct ebs_rec *r;
	u64 end = d->trailer ? d->tbuf_off + d->trailer->hdr.size : d->size;
	/* no trailer known: scanning for it, or to the end of an unfinished recording */
	bool to_end = !d->trailer && (d->flags & EBS_DATA_UNFINISHED);
	int e;

	if (d->unpacked_next < d->unpacked_len) {
		r = next_unpacked(d);
		tally(d, r);
		*rec = r;
		return 1;
	}
	if (d->done)
		return 0;
	for (;;) {
		if (to_end) {
			e = whole_record_at(d, end, err);
			if (e <= 0)
				return e < 0 ? e : end_unfinished(d, end);
		}
		if (d->pos >= end)
			return bad_as(d, err, EBS_E_TRUNCATED, d->pos,
				      "the file ends before its trailer (truncated?)");
		e = check_record(d, d->pos, end, &r, err);
		if (e)
			return e;
		if (r->type == EBS_REC_TRAILER) {
			const struct ebs_rec_trailer *t = (const void *)r;

			if (d->trailer && d->pos != d->tbuf_off)
				return bad(d, err, d->pos, "a second TRAILER record");
			if (t->nr_records != d->nr_seen)
				return bad(d, err, d->pos,
					   "the trailer counts %llu records, the file has %llu",
					   (unsigned long long)t->nr_records,
					   (unsigned long long)d->nr_seen);
			if (!d->trailer) {
				e = keep_trailer(d, r, d->pos, err);
				if (e)
					return e;
			}
			d->done = true;
			return 0;
		}
		if (d->trailer && d->pos + r->size > d->tbuf_off)
			return bad(d, err, d->pos, "%s record overlaps the trailer",
				   ebs_rec__type_name(r->type));
		d->pos += r->size;
		d->nr_seen++;
		if (r->type < EBS_REC_SAMPLE) /* unknown data types (>= 16) are skipped */
			return bad(d, err, d->pos - r->size,
				   "%s record (type %u) after the file header",
				   ebs_rec__type_name(r->type), r->type);
		if (!ebs_rec__fixed_size(r->type))
			continue; /* unknown type */
		if (r->type == EBS_REC_SAMPLES || r->type == EBS_REC_SAMPLES_CG) {
			e = unpack(d, (const void *)r, d->pos - r->size, false, err);
			if (e)
				return e;
			r = next_unpacked(d);
		} else if (r->type == EBS_REC_SAMPLES_CGZ) {
			const struct ebs_rec_samples *sp = NULL;
			u64 off = d->pos - r->size;

			e = inflate_cgz(d, (const void *)r, off, &sp, err);
			if (!e)
				e = unpack(d, sp, off, true, err);
			if (e)
				return e;
			r = next_unpacked(d);
		} else if (r->type == EBS_REC_KSYMS) {
			e = keep_ksyms(d, (const void *)r, err);
			if (e)
				return e;
		}
		tally(d, r);
		*rec = r;
		return 1;
	}
}

const struct ebs_rec_trailer *ebs_data__trailer(const struct ebs_data *d)
{
	return d->trailer;
}

const char *ebs_data__unfinished(const struct ebs_data *d)
{
	return d->unfinished[0] ? d->unfinished : NULL;
}

const struct ebs_rec_trailer *ebs_data__totals(const struct ebs_data *d)
{
	return d->trailer ? d->trailer : d->unfinished[0] ? &d->tally : NULL;
}

const struct ebs_event_counts *ebs_data__counts(const struct ebs_data *d, unsigned int event)
{
	if (!d->counts || event >= d->nr_events)
		return NULL;
	return &d->counts[event];
}

u64 ebs_data__offset(const struct ebs_data *d, const void *rec)
{
	uintptr_t p = (uintptr_t)rec, b;

	b = (uintptr_t)d->unpacked;
	if (d->unpacked && p >= b && p - b < d->unpacked_len)
		return d->unpacked_off; /* a packed sample: its SAMPLES, SAMPLES_CG(Z) record's */
	b = (uintptr_t)d->head;
	if (d->head && p >= b && p - b < d->head_len)
		return p - b;
	b = (uintptr_t)d->tbuf;
	if (d->tbuf && p >= b && p - b < d->trailer->hdr.size)
		return d->tbuf_off + (p - b);
	b = (uintptr_t)d->win;
	if (d->win && p >= b && p - b < d->win_len)
		return d->win_off + (p - b);
	return UINT64_MAX;
}
