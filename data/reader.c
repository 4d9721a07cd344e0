// SPDX-License-Identifier: MIT
/*
 * reader.c - read and validate ebs.data files.
 *
 * The whole file is mapped (or, from a pipe, read into memory).  Nothing is
 * trusted: before a field is used, the bytes it lies in are known to be
 * inside the file and inside its record.  Every problem becomes one line
 * "FILE: offset N: what is wrong" and -EBADMSG (or the errno of a failed
 * system call); main turns that into exit status 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/ebsdata.h"

struct ebs_data {
	char *path;
	const u8 *base;
	u64 size;
	bool mapped;
	const struct ebs_file_header *hdr;
	unsigned int nr_events;
	struct ebs_event_info events[EBS_MAX_EVENTS];
	const struct ebs_rec_meta *meta[64];
	const struct ebs_rec_calibration *calib[EBS_MAX_EVENTS];	/* by event */
	unsigned int nr_meta;
	const struct ebs_rec_trailer *trailer;
	const struct ebs_event_counts *counts;
	u64 pos;		/* iteration offset */
	u64 nr_seen;		/* data records iterated, to check against the trailer */
	bool done;
};

#define BAD(d, err, off, ...) bad(d, err, off, __VA_ARGS__)

__attribute__((format(printf, 4, 5))) static int bad(const struct ebs_data *d,
						      struct ebs_error *err, u64 off,
						      const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return ebs_error__set(err, EBADMSG, "%s: offset %llu: %s", d->path,
			      (unsigned long long)off, why);
}

const char *ebs_rec__type_name(u16 type)
{
	switch (type) {
	case EBS_REC_META: return "META";
	case EBS_REC_EVENT: return "EVENT";
	case EBS_REC_DSO_IMAGE: return "DSO_IMAGE";
	case EBS_REC_CALIBRATION: return "CALIBRATION";
	case EBS_REC_SAMPLE: return "SAMPLE";
	case EBS_REC_MMAP: return "MMAP";
	case EBS_REC_COMM: return "COMM";
	case EBS_REC_FORK: return "FORK";
	case EBS_REC_EXIT: return "EXIT";
	case EBS_REC_LOST: return "LOST";
	case EBS_REC_THROTTLE: return "THROTTLE";
	case EBS_REC_COUNT: return "COUNT";
	case EBS_REC_TRAILER: return "TRAILER";
	default: return "?";
	}
}

static bool is_header_type(u16 type)
{
	return type >= EBS_REC_META && type < EBS_REC_SAMPLE;
}

u32 ebs_rec__fixed_size(u16 type)
{
	switch (type) {
	case EBS_REC_META: return sizeof(struct ebs_rec_meta);
	case EBS_REC_EVENT: return sizeof(struct ebs_rec_event);
	case EBS_REC_DSO_IMAGE: return sizeof(struct ebs_rec_dso_image);
	case EBS_REC_CALIBRATION: return sizeof(struct ebs_rec_calibration);
	case EBS_REC_SAMPLE: return sizeof(struct ebs_rec_sample);
	case EBS_REC_MMAP: return sizeof(struct ebs_rec_mmap);
	case EBS_REC_COMM: return sizeof(struct ebs_rec_comm);
	case EBS_REC_FORK:
	case EBS_REC_EXIT: return sizeof(struct ebs_rec_task);
	case EBS_REC_LOST: return sizeof(struct ebs_rec_lost);
	case EBS_REC_THROTTLE: return sizeof(struct ebs_rec_throttle);
	case EBS_REC_COUNT: return sizeof(struct ebs_rec_count);
	case EBS_REC_TRAILER: return sizeof(struct ebs_rec_trailer);
	default: return 0;
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

/*
 * Check the record at off (end is where records must stop).  On success
 * *out points to it.  Type-specific checks need d->nr_events known.
 */
static int check_record(struct ebs_data *d, u64 off, u64 end, const struct ebs_rec **out,
			struct ebs_error *err)
{
	const struct ebs_rec *r;
	u32 fixed, size;
	const char *tail;
	size_t tail_len;

	if (off > end || end - off < sizeof(*r))
		return BAD(d, err, off, "truncated: %llu bytes left where a record header needs %zu",
			   (unsigned long long)(end - off), sizeof(*r));
	r = (const void *)(d->base + off);
	size = r->size;
	if (size < sizeof(*r) || size % 8)
		return BAD(d, err, off, "bad record size %u (type %u)", size, r->type);
	if (size > end - off)
		return BAD(d, err, off, "truncated %s record: size %u, %llu bytes left",
			   ebs_rec__type_name(r->type), size, (unsigned long long)(end - off));
	fixed = ebs_rec__fixed_size(r->type);
	if (fixed && size < fixed)
		return BAD(d, err, off, "%s record of %u bytes is shorter than its %u fixed bytes",
			   ebs_rec__type_name(r->type), size, fixed);
	tail = (const char *)r + fixed;
	tail_len = size - fixed;

	switch (r->type) {
	case EBS_REC_META:
		if (!has_strings(tail, tail_len, 1))
			return BAD(d, err, off, "META value is not terminated");
		break;
	case EBS_REC_EVENT:
		if (!has_strings(tail, tail_len, 3))
			return BAD(d, err, off, "EVENT names are not terminated");
		break;
	case EBS_REC_DSO_IMAGE: {
		const struct ebs_rec_dso_image *im = (const void *)r;

		if (im->image_size > tail_len)
			return BAD(d, err, off, "DSO_IMAGE of %llu bytes in a record of %u",
				   (unsigned long long)im->image_size, size);
		if (!memchr(im->name, '\0', sizeof(im->name)) || im->build_id_size > 20)
			return BAD(d, err, off, "DSO_IMAGE name or build-id is malformed");
		break;
	}
	case EBS_REC_SAMPLE: {
		const struct ebs_rec_sample *s = (const void *)r;
		struct ebs_sample_parts parts;

		if (s->event >= d->nr_events)
			return BAD(d, err, off, "SAMPLE names event %u; the file has %u", s->event,
				   d->nr_events);
		if (sample_parts(s, &parts))
			return BAD(d, err, off, "SAMPLE's optional parts overrun its %u bytes", size);
		break;
	}
	case EBS_REC_MMAP: {
		const struct ebs_rec_mmap *m = (const void *)r;

		if (!has_strings(tail, tail_len, 1))
			return BAD(d, err, off, "MMAP file name is not terminated");
		if (m->build_id_size > sizeof(m->build_id))
			return BAD(d, err, off, "MMAP build-id size %u", m->build_id_size);
		if (m->start + m->len < m->start)
			return BAD(d, err, off, "MMAP range wraps around");
		break;
	}
	case EBS_REC_COMM:
		if (!has_strings(tail, tail_len, 1))
			return BAD(d, err, off, "COMM name is not terminated");
		break;
	case EBS_REC_LOST: {
		const struct ebs_rec_lost *l = (const void *)r;

		if (l->event != 0xffff && l->event >= d->nr_events)
			return BAD(d, err, off, "LOST names event %u; the file has %u", l->event,
				   d->nr_events);
		break;
	}
	case EBS_REC_THROTTLE: {
		const struct ebs_rec_throttle *t = (const void *)r;

		if (t->event >= d->nr_events)
			return BAD(d, err, off, "THROTTLE names event %u; the file has %u",
				   t->event, d->nr_events);
		break;
	}
	case EBS_REC_COUNT: {
		const struct ebs_rec_count *c = (const void *)r;

		if (c->event >= d->nr_events)
			return BAD(d, err, off, "COUNT names event %u; the file has %u", c->event,
				   d->nr_events);
		break;
	}
	case EBS_REC_TRAILER: {
		const struct ebs_rec_trailer *t = (const void *)r;
		u64 need = sizeof(*t) + (u64)t->nr_events * sizeof(struct ebs_event_counts) +
			   (u64)t->nr_index * sizeof(struct ebs_index_entry);

		if (t->nr_events != d->nr_events)
			return BAD(d, err, off, "trailer counts %u events; the header has %u",
				   t->nr_events, d->nr_events);
		if (need > size)
			return BAD(d, err, off, "trailer of %u bytes needs %llu", size,
				   (unsigned long long)need);
		break;
	}
	default:
		break;	/* unknown: a newer minor version; skipped */
	}
	*out = r;
	return 0;
}

/* Read a non-regular file (pipe, stdin) into memory. */
static int slurp(int fd, struct ebs_data *d)
{
	size_t cap = 1 << 20, len = 0;
	u8 *buf = malloc(cap), *n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (len == cap) {
			n = realloc(buf, cap * 2);
			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	d->base = buf;
	d->size = len;
	return 0;
}

static int load(struct ebs_data *d, const char *path, struct ebs_error *err)
{
	struct stat st;
	int fd, e = 0;

	fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ebs_error__set(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		e = ebs_error__set(err, errno, "%s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		e = ebs_error__set(err, EISDIR, "%s: is a directory", path);
	} else if (S_ISREG(st.st_mode)) {
		d->size = (u64)st.st_size;
		if (d->size) {
			void *p = mmap(NULL, d->size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (p == MAP_FAILED)
				e = ebs_error__set(err, errno, "%s: cannot map: %s", path,
						   strerror(errno));
			else {
				d->base = p;
				d->mapped = true;
			}
		}
	} else {
		e = slurp(fd, d);
		if (e)
			ebs_error__set(err, -e, "%s: read failed: %s", path, strerror(-e));
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return e;
}

static int check_header(struct ebs_data *d, struct ebs_error *err)
{
	const struct ebs_file_header *h = (const void *)d->base;

	if (d->size == 0)
		return BAD(d, err, 0, "empty file, not an ebs.data file");
	if (d->size < 8 || memcmp(h->magic, EBS_DATA_MAGIC, sizeof(EBS_DATA_MAGIC)) != 0)
		return BAD(d, err, 0, "not an ebs.data file (bad magic)");
	if (d->size < offsetof(struct ebs_file_header, header_size) + 4)
		return BAD(d, err, d->size, "truncated inside the file header");
	if (h->endian != EBS_DATA_ENDIAN) {
		if (h->endian == __builtin_bswap32(EBS_DATA_ENDIAN))
			return BAD(d, err, 8, "written with the other byte order; "
					      "this ebs reads its own byte order only");
		return BAD(d, err, 8, "bad byte-order mark 0x%08x", h->endian);
	}
	if (h->version_major != EBS_DATA_VERSION_MAJOR)
		return BAD(d, err, 12, "format version %u.%u; this ebs reads version %u.x",
			   h->version_major, h->version_minor, EBS_DATA_VERSION_MAJOR);
	if (h->header_size < sizeof(*h) || h->header_size % 8)
		return BAD(d, err, 16, "bad header size %u", h->header_size);
	if (d->size < h->header_size)
		return BAD(d, err, d->size, "truncated inside the file header (%llu of %u bytes)",
			   (unsigned long long)d->size, h->header_size);
	if (h->data_offset < h->header_size || h->data_offset > d->size || h->data_offset % 8)
		return BAD(d, err, 24, "data offset %llu is outside the file (%llu bytes)",
			   (unsigned long long)h->data_offset, (unsigned long long)d->size);
	d->hdr = h;
	return 0;
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
		if (!is_header_type(r->type))	/* unknown header types (< 16) are skipped */
			return BAD(d, err, off, "%s record (type %u) inside the file header",
				   ebs_rec__type_name(r->type), r->type);
		if (r->type == EBS_REC_EVENT) {
			const struct ebs_rec_event *ev = (const void *)r;
			struct ebs_event_info *info;

			if (d->nr_events >= EBS_MAX_EVENTS)
				return BAD(d, err, off, "more than %d events", EBS_MAX_EVENTS);
			if (ev->index != d->nr_events)
				return BAD(d, err, off, "EVENT index %u out of order (expected %u)",
					   ev->index, d->nr_events);
			info = &d->events[d->nr_events++];
			info->rec = ev;
			info->asked = ev->names;
			info->used = info->asked + strlen(info->asked) + 1;
			info->why = info->used + strlen(info->used) + 1;
		} else if (r->type == EBS_REC_META && d->nr_meta < ARRAY_SIZE(d->meta)) {
			d->meta[d->nr_meta++] = (const void *)r;
		} else if (r->type == EBS_REC_CALIBRATION) {
			const struct ebs_rec_calibration *c = (const void *)r;

			/* after the EVENT it calibrates */
			if (c->event >= d->nr_events)
				return BAD(d, err, off, "CALIBRATION of event %u, which is not "
					   "described before it", c->event);
			d->calib[c->event] = c;
		}
		off += r->size;
	}
	if (d->nr_events == 0)
		return BAD(d, err, d->hdr->header_size, "the file describes no event");
	return 0;
}

static int read_trailer(struct ebs_data *d, u64 off, struct ebs_error *err)
{
	const struct ebs_rec *r;
	int e;

	if (off < d->hdr->data_offset || off % 8)
		return BAD(d, err, 40, "trailer offset %llu is outside the data",
			   (unsigned long long)off);
	/* check_record wants off <= end: off + 8 would wrap for offsets near 2^64 */
	if (off > d->size)
		return BAD(d, err, 40, "trailer offset %llu is past the end of the file "
				       "(%llu bytes; truncated?)",
			   (unsigned long long)off, (unsigned long long)d->size);
	e = check_record(d, off, d->size, &r, err);
	if (e)
		return e;
	if (r->type != EBS_REC_TRAILER)
		return BAD(d, err, off, "expected the TRAILER record, found %s",
			   ebs_rec__type_name(r->type));
	d->trailer = (const void *)r;
	d->counts = (const void *)(d->trailer + 1);
	return 0;
}

struct ebs_data *ebs_data__open(const char *path, struct ebs_error *err)
{
	struct ebs_data *d = calloc(1, sizeof(*d));
	int e;

	if (!d || !(d->path = strdup(path))) {
		free(d);
		ebs_error__set(err, ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	e = load(d, path, err);
	if (!e)
		e = check_header(d, err);
	if (!e)
		e = read_header_records(d, err);
	if (!e && !(d->hdr->flags & EBS_FILE_STREAMED)) {
		if (d->hdr->trailer_offset == 0)
			e = BAD(d, err, 40, "no trailer: the recording never finished");
		else
			e = read_trailer(d, d->hdr->trailer_offset, err);
	}
	if (e) {
		ebs_data__close(d);
		return NULL;
	}
	d->pos = d->hdr->data_offset;
	return d;
}

void ebs_data__close(struct ebs_data *d)
{
	if (!d)
		return;
	if (d->mapped)
		munmap((void *)d->base, d->size);
	else
		free((void *)d->base);
	free(d->path);
	free(d);
}

const char *ebs_data__path(const struct ebs_data *d)
{
	return d->path;
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

	/* already validated at open */
	while (off < d->hdr->data_offset) {
		const struct ebs_rec *r = (const void *)(d->base + off);

		if (r->type == EBS_REC_DSO_IMAGE &&
		    strcmp(((const struct ebs_rec_dso_image *)r)->name, name) == 0)
			return (const void *)r;
		off += r->size;
	}
	return NULL;
}

int ebs_data__rewind(struct ebs_data *d)
{
	d->pos = d->hdr->data_offset;
	d->nr_seen = 0;
	d->done = false;
	return 0;
}

int ebs_data__next(struct ebs_data *d, const struct ebs_rec **rec, struct ebs_error *err)
{
	const struct ebs_rec *r;
	u64 end = d->trailer ? ebs_data__offset(d, d->trailer) + d->trailer->hdr.size : d->size;
	int e;

	if (d->done)
		return 0;
	for (;;) {
		if (d->pos >= end)
			return BAD(d, err, d->pos, "the file ends before its trailer (truncated?)");
		e = check_record(d, d->pos, end, &r, err);
		if (e)
			return e;
		if (r->type == EBS_REC_TRAILER) {
			const struct ebs_rec_trailer *t = (const void *)r;

			if (d->trailer && (const void *)r != (const void *)d->trailer)
				return BAD(d, err, d->pos, "a second TRAILER record");
			if (t->nr_records != d->nr_seen)
				return BAD(d, err, d->pos,
					   "the trailer counts %llu records, the file has %llu",
					   (unsigned long long)t->nr_records,
					   (unsigned long long)d->nr_seen);
			d->trailer = (const void *)r;
			d->counts = (const void *)(d->trailer + 1);
			d->done = true;
			return 0;
		}
		if (d->trailer && d->pos + r->size > ebs_data__offset(d, d->trailer))
			return BAD(d, err, d->pos, "%s record overlaps the trailer",
				   ebs_rec__type_name(r->type));
		d->pos += r->size;
		d->nr_seen++;
		if (r->type < EBS_REC_SAMPLE)	/* unknown data types (>= 16) are skipped */
			return BAD(d, err, d->pos - r->size, "%s record (type %u) after the file header",
				   ebs_rec__type_name(r->type), r->type);
		if (!ebs_rec__fixed_size(r->type))
			continue;	/* unknown type */
		*rec = r;
		return 1;
	}
}

const struct ebs_rec_trailer *ebs_data__trailer(const struct ebs_data *d)
{
	return d->trailer;
}

const struct ebs_event_counts *ebs_data__counts(const struct ebs_data *d, unsigned int event)
{
	if (!d->trailer || event >= d->nr_events)
		return NULL;
	return &d->counts[event];
}

u64 ebs_data__offset(const struct ebs_data *d, const void *rec)
{
	return (u64)((const u8 *)rec - d->base);
}
