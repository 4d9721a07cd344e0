// SPDX-License-Identifier: MIT
/*
 * perfdata.c - convert a perf.data file into ebs.data records.
 *
 * The input is the file perf record wrote (file mode: the "PERFILE2"
 * header, the attribute section, the data section, the feature sections
 * after it) or the copy of a pipe-mode stream (a 16-byte header, then
 * records only, the attributes and features among them as HEADER_ATTR and
 * HEADER_FEATURE records).  Two passes over the data: the first checks
 * every record's size and collects what is known only from records
 * (pipe-mode attributes and features, HEADER_BUILD_ID records, event
 * names from EVENT_UPDATE), so that the header records and every MMAP's
 * build-id are known before the first data record is written; the second
 * converts.  docs/perfdata.md says how each perf record maps.
 *
 * Nothing is trusted: every size and offset is checked against the file
 * and against its record before it is used, a record ebs does not keep is
 * skipped by its size (and by the payload HEADER_TRACING_DATA and AUXTRACE
 * carry after themselves), and a record ebs does keep that is too short
 * for what its attribute puts in it is an error, never a guess.  Every
 * error is one line "FILE: offset N: what is wrong", N an offset in the
 * perf.data file.  The input is read with pread through a window, as
 * reader.c reads: records are copied out of it into an aligned buffer
 * (pipe-mode records need not be 8-aligned in the stream).
 *
 * perf.data's records are not in time order across CPUs.  perf record
 * promises that none is reordered across two FINISHED_ROUND records, and
 * perf orders them by keeping them back until the round after the next:
 * at each FINISHED_ROUND, the records up to the largest time seen before
 * the previous one are written, sorted by time (stable).  The conversion
 * does the same, so that its records come in the order perf's tools see
 * them; records of time 0 (synthesized at the start) go out at once, as
 * perf delivers them.
 *
 * Why one file of ~1,900 lines: every part reads or fills the one
 * conversion state (struct conv: the attributes by id, the names, the
 * build-ids, the ordering queue, the writer), and the parts run as one
 * pipeline in file order (input, attributes, features, headers, records,
 * ordering, converting); the section lines mark them.  Splitting would
 * publish struct conv to a second file for no caller's benefit.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <ebs/ebs_events.h>

#include "data/perfdata.h"

#define PERF_MAGIC2 0x32454c4946524550ull /* "PERFILE2" as perf writes it: a u64 */
#define PERF_MAGIC1 0x454c494646524550ull /* "PERFFILE" */

#define WINDOW_SIZE (1u << 20)	 /* what one read of the input asks for */
#define MAX_ATTRS   256		 /* attributes a file may describe (dummies included) */
#define MAX_FEATURE (64u << 20)	 /* a feature section larger than this is not read */
#define QUEUE_MAX   (256u << 20) /* records held back for ordering, at most */
#define MAX_NAME    4096	 /* an MMAP file name, at most (as ebs record keeps) */
#define OUT_SIZE    (128u << 10) /* one converted record, at most */
#define NAME_SIZE   128

/* perf's file header (tools/perf/util/header.h), 104 bytes */
struct pf_section {
	u64 offset, size;
};

struct pf_file_header {
	u64 magic;
	u64 size; /* of this header: 104, or 72 before feature bits */
	u64 attr_size;
	struct pf_section attrs, data, event_types;
	u64 features[4]; /* bit N: feature N's section is in the table after the data */
};

_Static_assert(sizeof(struct pf_file_header) == 104, "perf_file_header");

/* The offsets of the header's fields, for messages. */
#define OFF_ATTR_SIZE 16
#define OFF_ATTRS     24
#define OFF_DATA      40
#define OFF_DATA_SIZE 48

/* The feature sections read (tools/perf/util/header.h's HEADER_*). */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_SAMPLE_TIME = 21,
	FEAT_CLOCK_DATA = 29,
};

/* header.misc of a build-id record: its size byte is valid (else 20 bytes) */
#define PERF_MISC_BUILD_ID_SIZE (1u << 15)
#define PERF_EVENT_UPDATE_NAME	2 /* (0 is UNIT, 1 SCALE, 3 CPUS) */

/* The kernel's record layouts: offsets of their fields, and their fixed sizes. */
#define MMAP_FIXED	   40 /* header, pid, tid, addr, len, pgoff; then the name */
#define MMAP2_FIXED	   72 /* ... maj, min, ino, ino_generation (or build-id), prot, flags */
#define COMM_FIXED	   16 /* header, pid, tid; then the name */
#define TASK_FIXED	   32 /* header, pid, ppid, tid, ptid, time */
#define LOST_FIXED	   24 /* header, id, lost */
#define LOST_SAMPLES_FIXED 16 /* header, lost */
#define THROTTLE_FIXED	   32 /* header, time, id, stream_id */
#define BUILD_ID_FIXED	   36 /* header, pid, build_id[24]; then the name */

/* One perf_event_attr of the file. */
struct pattr {
	struct perf_event_attr attr; /* zero past what the file held */
	int event;		     /* its EVENT's index; -1 for none (a dummy event) */
	u32 trailer;		     /* bytes of its sample_id_all trailer, 0 without */
	char name[NAME_SIZE];	     /* "" until known */
};

struct idmap {
	u64 id;
	u32 attr;
};

/* An event's name from HEADER_EVENT_DESC or EVENT_UPDATE, matched to its attribute by id. */
struct named_id {
	u64 id;
	bool has_id;
	u32 type;
	u64 config;
	char name[NAME_SIZE];
};

struct build_id {
	char *name;
	u8 id[20];
	u8 size;
};

struct qent {
	u64 time, seq;
	size_t off;
	u32 size;
};

/* Records held back until their round (see the top). */
struct queue {
	u8 *buf, *spare;
	size_t len, cap, spare_cap;
	struct qent *v;
	size_t n, cap_v;
	u64 seq;
	u64 limit; /* written at the next FINISHED_ROUND: the records up to this time */
	u64 max;   /* the largest time queued so far */
};

/* A bounded cursor over bytes. */
struct cur {
	const u8 *p, *end;
};

struct conv {
	struct perf_convert *pc;
	struct ebs_writer *w;
	/* the input window */
	u8 *win;
	u64 win_off;
	size_t win_len, win_cap;
	u64 data_off, data_end;
	bool data_cut; /* the data end inside a record (an unfinished recording) */
	struct pattr attrs[MAX_ATTRS];
	unsigned int nr_attrs, nr_events;
	struct idmap *ids;
	size_t nr_ids, cap_ids;
	struct named_id *names;
	size_t nr_names, cap_names;
	struct build_id *bids;
	size_t nr_bids, cap_bids;
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cmdline;
	u32 nr_cpus;
	u64 first_time, last_time; /* HEADER_SAMPLE_TIME */
	bool clock_data;
	u64 tod_ns, clock_ns; /* HEADER_CLOCK_DATA: the wall clock at that perf clock time */
	struct queue q;
	int werr;	   /* the writer's error, -errno */
	bool counted_lost; /* perf record wrote LOST_SAMPLES of the counters' lost counts */
	u64 rec[(1u << 16) / 8 + 1]; /* the record being read, 8-aligned */
	u64 out[OUT_SIZE / 8];	     /* the record being written */
};

enum perf_magic perf_data__magic(const void *first8)
{
	u64 m;

	memcpy(&m, first8, 8);
	if (m == PERF_MAGIC2)
		return PERF_MAGIC_NATIVE;
	if (m == __builtin_bswap64(PERF_MAGIC2))
		return PERF_MAGIC_SWAPPED;
	if (m == PERF_MAGIC1 || m == __builtin_bswap64(PERF_MAGIC1))
		return PERF_MAGIC_V1;
	return PERF_MAGIC_NONE;
}

u64 perf_data__payload(u32 type, const u8 *first8)
{
	u64 v = 0;

	if (type == PERF_REC_HEADER_TRACING_DATA) {
		u32 size;

		memcpy(&size, first8, 4);
		v = ALIGN8((u64)size);
	} else if (type == PERF_REC_AUXTRACE) {
		memcpy(&v, first8, 8);
	}
	return v;
}

__attribute__((format(printf, 4, 5))) static int bad(const struct conv *c, struct ebs_error *err,
						     u64 off, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return ebs_error__set(err, EBADMSG, "%s: offset %llu: %s", c->pc->path,
			      (unsigned long long)off, why);
}

static int no_memory(const struct conv *c, struct ebs_error *err)
{
	return ebs_error__set(err, ENOMEM, "%s: out of memory", c->pc->path);
}

/* The name of a perf record type, for messages. */
static const char *type_name(u32 type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
		return "MMAP";
	case PERF_RECORD_LOST:
		return "LOST";
	case PERF_RECORD_COMM:
		return "COMM";
	case PERF_RECORD_EXIT:
		return "EXIT";
	case PERF_RECORD_THROTTLE:
		return "THROTTLE";
	case PERF_RECORD_UNTHROTTLE:
		return "UNTHROTTLE";
	case PERF_RECORD_FORK:
		return "FORK";
	case PERF_RECORD_SAMPLE:
		return "SAMPLE";
	case PERF_RECORD_MMAP2:
		return "MMAP2";
	case PERF_RECORD_LOST_SAMPLES:
		return "LOST_SAMPLES";
	case PERF_REC_HEADER_ATTR:
		return "HEADER_ATTR";
	case PERF_REC_HEADER_TRACING_DATA:
		return "HEADER_TRACING_DATA";
	case PERF_REC_HEADER_BUILD_ID:
		return "HEADER_BUILD_ID";
	case PERF_REC_AUXTRACE:
		return "AUXTRACE";
	case PERF_REC_EVENT_UPDATE:
		return "EVENT_UPDATE";
	case PERF_REC_HEADER_FEATURE:
		return "HEADER_FEATURE";
	default:
		return "perf";
	}
}

/* ---- input ------------------------------------------------------------- */

/*
 * The len bytes at off, which the caller has checked lie within the file:
 * through the window, moved to off when it does not hold them.  Valid until
 * the next call.
 */
static int input_at(struct conv *c, u64 off, size_t len, const u8 **p, struct ebs_error *err)
{
	size_t want, got = 0;

	if (c->win_len && off >= c->win_off && off - c->win_off <= c->win_len &&
	    len <= c->win_len - (off - c->win_off)) {
		*p = c->win + (off - c->win_off);
		return 0;
	}
	want = len > WINDOW_SIZE ? len : WINDOW_SIZE;
	if (want > c->pc->size - off)
		want = (size_t)(c->pc->size - off);
	if (want > c->win_cap) {
		u8 *n = malloc(want ? want : 1);

		if (!n)
			return no_memory(c, err);
		free(c->win);
		c->win = n;
		c->win_cap = want;
	}
	c->win_len = 0;
	while (got < want) {
		ssize_t n = pread(c->pc->fd, c->win + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return ebs_error__set(err, errno, "%s: offset %llu: read failed: %s",
					      c->pc->path, (unsigned long long)(off + got),
					      strerror(errno));
		if (n == 0)
			return bad(c, err, off + got, "the file shrank while it was read");
		got += (size_t)n;
	}
	c->win_off = off;
	c->win_len = want;
	*p = c->win;
	return 0;
}

/* A malloc'd copy of the len bytes at off (within the file), or NULL with err set. */
static u8 *input_copy(struct conv *c, u64 off, size_t len, struct ebs_error *err)
{
	const u8 *p;
	u8 *copy;

	if (input_at(c, off, len, &p, err))
		return NULL;
	copy = malloc(len ? len : 1);
	if (!copy) {
		no_memory(c, err);
		return NULL;
	}
	memcpy(copy, p, len);
	return copy;
}

/* Do [off, off + len) lie within [0, size)? (Without overflow.) */
static bool inside(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

static bool take(struct cur *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	if (dst)
		memcpy(dst, c->p, n);
	c->p += n;
	return true;
}

static bool take_u64(struct cur *c, u64 *v)
{
	return take(c, v, 8);
}

/* A u32 pair (pid and tid, cpu and its padding) from one u64 slot. */
static bool take_u32s(struct cur *c, u32 *a, u32 *b)
{
	u32 two[2];

	if (!take(c, two, 8))
		return false;
	if (a)
		*a = two[0];
	if (b)
		*b = two[1];
	return true;
}

/* ---- attributes and names ------------------------------------------------ */

/* The attribute whose event has id id, or NULL. */
static struct pattr *attr_of_id(struct conv *c, u64 id)
{
	size_t lo = 0, hi = c->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ids[mid].id < id)
			lo = mid + 1;
		else if (c->ids[mid].id > id)
			hi = mid;
		else
			return &c->attrs[c->ids[mid].attr];
	}
	return NULL;
}

static int idmap_cmp(const void *pa, const void *pb)
{
	const struct idmap *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * An attribute: attr_len bytes of perf_event_attr at a, its nr_ids ids at
 * ids (unaligned).  off names where it is, for messages.
 */
static int add_attr(struct conv *c, const u8 *a, size_t attr_len, const u8 *ids, u64 nr_ids,
		    u64 off, struct ebs_error *err)
{
	struct pattr *pa;
	u64 i, st;

	if (c->nr_attrs >= MAX_ATTRS)
		return bad(c, err, off, "more than %u event attributes", MAX_ATTRS);
	if (attr_len < PERF_ATTR_SIZE_VER0)
		return bad(c, err, off, "event attribute of %zu bytes (at least %u)", attr_len,
			   PERF_ATTR_SIZE_VER0);
	pa = &c->attrs[c->nr_attrs];
	memset(pa, 0, sizeof(*pa));
	memcpy(&pa->attr, a, attr_len < sizeof(pa->attr) ? attr_len : sizeof(pa->attr));
	pa->event = -1;
	st = pa->attr.sample_type;
	if (pa->attr.sample_id_all)
		pa->trailer = 8 * (u32)__builtin_popcountll(
					  st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
	for (i = 0; i < nr_ids; i++) {
		if (ebs_grow((void **)&c->ids, &c->cap_ids, c->nr_ids, sizeof(*c->ids), 64))
			return no_memory(c, err);
		memcpy(&c->ids[c->nr_ids].id, ids + i * 8, 8);
		c->ids[c->nr_ids++].attr = c->nr_attrs;
	}
	c->nr_attrs++;
	return 0;
}

/* A name for attribute a's event from its type and config: ebs's table, else perf's style. */
static void fallback_name(const struct pattr *a, char *buf, size_t len)
{
	const struct ebs_event *e;
	const char *mod = a->attr.exclude_kernel && !a->attr.exclude_user   ? ":u"
			  : a->attr.exclude_user && !a->attr.exclude_kernel ? ":k"
									    : "";

	for (e = ebs_events; e->name; e++)
		if (e->type == a->attr.type && e->config == a->attr.config) {
			snprintf(buf, len, "%s%s", e->name, mod);
			return;
		}
	if (a->attr.type == PERF_TYPE_RAW)
		snprintf(buf, len, "r%llx%s", (unsigned long long)a->attr.config, mod);
	else
		snprintf(buf, len, "%u:0x%llx%s", a->attr.type, (unsigned long long)a->attr.config,
			 mod);
}

static bool is_dummy(const struct pattr *a)
{
	return a->attr.type == PERF_TYPE_SOFTWARE && a->attr.config == PERF_COUNT_SW_DUMMY;
}

/* Names and EVENT indexes for the attributes, once all are known. */
static int name_events(struct conv *c, struct ebs_error *err)
{
	unsigned int i;
	size_t k;

	if (c->nr_ids)
		qsort(c->ids, c->nr_ids, sizeof(*c->ids), idmap_cmp);
	/* by id first: EVENT_DESC lists the events in the attributes' order, but ids are surer */
	for (k = 0; k < c->nr_names; k++) {
		struct pattr *a = c->names[k].has_id ? attr_of_id(c, c->names[k].id) : NULL;

		if (!a && !c->names[k].has_id && k < c->nr_attrs &&
		    c->attrs[k].attr.type == c->names[k].type &&
		    c->attrs[k].attr.config == c->names[k].config)
			a = &c->attrs[k];
		if (a && !a->name[0])
			ebs_strlcpy(a->name, c->names[k].name, sizeof(a->name));
	}
	for (i = 0; i < c->nr_attrs; i++) {
		struct pattr *a = &c->attrs[i];

		if (!a->name[0])
			fallback_name(a, a->name, sizeof(a->name));
		if (is_dummy(a))
			continue;
		if (c->nr_events == EBS_MAX_EVENTS)
			return bad(c, err, c->pc->pipe ? 16 : OFF_ATTRS,
				   "more than %u events: more than ebs reads", EBS_MAX_EVENTS);
		a->event = (int)c->nr_events++;
	}
	return 0;
}

static int add_name(struct conv *c, const struct named_id *n, struct ebs_error *err)
{
	if (!n->name[0])
		return 0;
	if (ebs_grow((void **)&c->names, &c->cap_names, c->nr_names, sizeof(*c->names), 8))
		return no_memory(c, err);
	c->names[c->nr_names++] = *n;
	return 0;
}

/* ---- features ------------------------------------------------------------ */

/* A perf_header_string (u32 len; char s[len]) at cur: a malloc'd copy, NULL at its end. */
static char *take_string(struct cur *cur)
{
	u32 len;
	const char *s;

	if (!take(cur, &len, 4) || (size_t)(cur->end - cur->p) < len)
		return NULL;
	s = (const char *)cur->p;
	cur->p += len;
	return strndup(s, len);
}

/* A build-id record (HEADER_BUILD_ID, or one of the build-id feature's) of size bytes at r. */
static int add_build_id(struct conv *c, const u8 *r, u16 misc, size_t size, u64 off,
			struct ebs_error *err)
{
	struct build_id *b;
	size_t len;

	if (size < BUILD_ID_FIXED)
		return bad(c, err, off, "build-id record of %zu bytes (at least %u)", size,
			   BUILD_ID_FIXED);
	len = strnlen((const char *)r + BUILD_ID_FIXED, size - BUILD_ID_FIXED);
	if (len == size - BUILD_ID_FIXED)
		return bad(c, err, off, "build-id record's file name is not terminated");
	if (ebs_grow((void **)&c->bids, &c->cap_bids, c->nr_bids, sizeof(*c->bids), 32))
		return no_memory(c, err);
	b = &c->bids[c->nr_bids];
	memcpy(b->id, r + 12, 20);
	b->size = misc & PERF_MISC_BUILD_ID_SIZE ? r[32] : 20;
	if (b->size > 20)
		b->size = 20;
	b->name = strndup((const char *)r + BUILD_ID_FIXED, len);
	if (!b->name)
		return no_memory(c, err);
	c->nr_bids++;
	return 0;
}

/* The build-id feature: build-id records, one after another. */
static int feat_build_ids(struct conv *c, const u8 *p, size_t len, u64 off, struct ebs_error *err)
{
	size_t at = 0;

	while (len - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		int e;

		memcpy(&h, p + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - at)
			return bad(c, err, off + at,
				   "build-id record of %u bytes in a section of %zu", h.size,
				   len - at);
		e = add_build_id(c, p + at, h.misc, h.size, off + at, err);
		if (e)
			return e;
		at += h.size;
	}
	return 0;
}

/* HEADER_EVENT_DESC: u32 nr, u32 attr_size; each: attr, u32 nr_ids, string, u64 ids[nr_ids]. */
static int feat_event_desc(struct conv *c, const u8 *p, size_t len, u64 off, struct ebs_error *err)
{
	struct cur cur = {p, p + len};
	u32 nr, attr_size, i;

	if (!take(&cur, &nr, 4) || !take(&cur, &attr_size, 4))
		return bad(c, err, off, "event description of %zu bytes", len);
	if (attr_size < 16)
		return bad(c, err, off, "event description's attribute size %u", attr_size);
	for (i = 0; i < nr; i++) {
		struct named_id n = {0};
		const u8 *a = cur.p;
		u32 nr_ids;
		char *s;
		int e;

		if (!take(&cur, NULL, attr_size) || !take(&cur, &nr_ids, 4) ||
		    !(s = take_string(&cur)))
			return bad(c, err, off + (u64)(cur.p - p),
				   "event description %u is cut short", i);
		memcpy(&n.type, a, 4);
		memcpy(&n.config, a + 8, 8);
		ebs_strlcpy(n.name, s, sizeof(n.name));
		free(s);
		if (nr_ids && (size_t)(cur.end - cur.p) >= 8) {
			memcpy(&n.id, cur.p, 8);
			n.has_id = true;
		}
		if ((u64)nr_ids * 8 > (u64)(cur.end - cur.p))
			return bad(c, err, off + (u64)(cur.p - p),
				   "event description %u's %u ids overrun it", i, nr_ids);
		cur.p += (size_t)nr_ids * 8;
		e = add_name(c, &n, err);
		if (e)
			return e;
	}
	return 0;
}

/* Replace *dst by the string of a feature that is one string. */
static void set_string(char **dst, struct cur *cur)
{
	char *s = take_string(cur);

	if (s) {
		free(*dst);
		*dst = s;
	}
}

/* perf's name of feature bit (HEADER_*, perf's util/header.h), "?" past those known. */
static const char *feature_name(unsigned int bit)
{
	static const char *const names[] = {
		"RESERVED",	   "TRACING_DATA", "BUILD_ID",	   "HOSTNAME",	   "OSRELEASE",
		"VERSION",	   "ARCH",	   "NRCPUS",	   "CPUDESC",	   "CPUID",
		"TOTAL_MEM",	   "CMDLINE",	   "EVENT_DESC",   "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
		"BRANCH_STACK",	   "PMU_MAPPINGS", "GROUP_DESC",   "AUXTRACE",	   "STAT",
		"CACHE",	   "SAMPLE_TIME",  "MEM_TOPOLOGY", "CLOCKID",	   "DIR_FORMAT",
		"BPF_PROG_INFO",   "BPF_BTF",	   "COMPRESSED",   "CPU_PMU_CAPS", "CLOCK_DATA",
		"HYBRID_TOPOLOGY", "PMU_CAPS",
	};

	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : "?";
}

/* One feature's data, len bytes at p, from offset off of the file. */
static int feature(struct conv *c, u64 id, const u8 *p, size_t len, u64 off, struct ebs_error *err)
{
	struct cur cur = {p, p + len};
	u32 nr, i;
	size_t at = 0;

	switch (id) {
	case FEAT_BUILD_ID:
		return feat_build_ids(c, p, len, off, err);
	case FEAT_EVENT_DESC:
		return feat_event_desc(c, p, len, off, err);
	case FEAT_HOSTNAME:
		set_string(&c->hostname, &cur);
		break;
	case FEAT_OSRELEASE:
		set_string(&c->osrelease, &cur);
		break;
	case FEAT_VERSION:
		set_string(&c->version, &cur);
		break;
	case FEAT_ARCH:
		set_string(&c->arch, &cur);
		break;
	case FEAT_CPUDESC:
		set_string(&c->cpudesc, &cur);
		break;
	case FEAT_NRCPUS: /* u32 available, u32 online */
		if (len >= 8)
			memcpy(&c->nr_cpus, p + 4, 4);
		break;
	case FEAT_CMDLINE: /* a string list: u32 nr, then the words */
		if (!take(&cur, &nr, 4))
			break;
		free(c->cmdline);
		c->cmdline = calloc(1, len + 1); /* the words joined are shorter than the list */
		if (!c->cmdline)
			return no_memory(c, err);
		for (i = 0; i < nr; i++) {
			char *s = take_string(&cur);

			if (!s)
				break;
			at += (size_t)snprintf(c->cmdline + at, len + 1 - at, "%s%s", i ? " " : "",
					       s);
			free(s);
			if (at >= len)
				break;
		}
		break;
	case FEAT_SAMPLE_TIME: /* u64 first, u64 last */
		if (len >= 16) {
			memcpy(&c->first_time, p, 8);
			memcpy(&c->last_time, p + 8, 8);
		}
		break;
	case FEAT_CLOCK_DATA: /* u32 version, u32 clockid, u64 wall-clock ns, u64 clockid ns */
		if (len >= 24) {
			u32 clockid;

			memcpy(&clockid, p + 4, 4);
			memcpy(&c->tod_ns, p + 8, 8);
			memcpy(&c->clock_ns, p + 16, 8);
			c->clock_data =
				clockid == 1; /* CLOCK_MONOTONIC: the perf clock ebs keeps */
		}
		break;
	default:
		break;
	}
	return 0;
}

/* ---- file mode header ----------------------------------------------------- */

static int read_attrs(struct conv *c, const struct pf_file_header *h, struct ebs_error *err)
{
	u64 n = h->attrs.size / h->attr_size, i;
	size_t alen = (size_t)(h->attr_size - sizeof(struct pf_section));

	for (i = 0; i < n; i++) {
		u64 off = h->attrs.offset + i * h->attr_size;
		struct pf_section ids;
		u8 attr[4096];
		u8 *idv = NULL;
		const u8 *p;
		int e;

		e = input_at(c, off, (size_t)h->attr_size, &p, err);
		if (e)
			return e;
		memcpy(attr, p, alen < sizeof(attr) ? alen : sizeof(attr));
		memcpy(&ids, p + alen, sizeof(ids));
		if (ids.size % 8 || !inside(ids.offset, ids.size, c->pc->size))
			return bad(
				c, err, off + alen,
				"event %llu's ids [%llu, +%llu) lie outside the file (%llu bytes)",
				(unsigned long long)i, (unsigned long long)ids.offset,
				(unsigned long long)ids.size, (unsigned long long)c->pc->size);
		if (ids.size > (64u << 20))
			return bad(c, err, off + alen, "event %llu has %llu ids",
				   (unsigned long long)i, (unsigned long long)(ids.size / 8));
		if (ids.size && !(idv = input_copy(c, ids.offset, (size_t)ids.size, err)))
			return err->err;
		e = add_attr(c, attr, alen < sizeof(attr) ? alen : sizeof(attr), idv, ids.size / 8,
			     off, err);
		free(idv);
		if (e)
			return e;
	}
	return 0;
}

static int read_features(struct conv *c, const struct pf_file_header *h, struct ebs_error *err)
{
	u64 table = h->data.offset + h->data.size, nfeat = 0;
	unsigned int bit, k = 0;

	for (bit = 1; bit < 256; bit++)
		nfeat += (h->features[bit / 64] >> (bit % 64)) & 1;
	if (!nfeat)
		return 0;
	if (!inside(table, nfeat * sizeof(struct pf_section), c->pc->size))
		return bad(c, err, c->pc->size,
			   "truncated: the table of %llu feature sections at offset %llu lies past "
			   "the end of the file",
			   (unsigned long long)nfeat, (unsigned long long)table);
	for (bit = 1; bit < 256; bit++) {
		struct pf_section s;
		const u8 *p;
		u8 *copy;
		u64 at = table + k * sizeof(s);
		int e;

		if (!((h->features[bit / 64] >> (bit % 64)) & 1))
			continue;
		k++;
		e = input_at(c, at, sizeof(s), &p, err);
		if (e)
			return e;
		memcpy(&s, p, sizeof(s));
		/* every section is checked, read or not: a cut file is cut */
		if (!inside(s.offset, s.size, c->pc->size))
			return bad(
				c, err, at,
				"truncated: feature %u (%s)'s section [%llu, +%llu) lies past the end "
				"of the file (%llu bytes)",
				bit, feature_name(bit), (unsigned long long)s.offset,
				(unsigned long long)s.size, (unsigned long long)c->pc->size);
		if (s.size > MAX_FEATURE)
			continue;
		switch (bit) {
		case FEAT_BUILD_ID:
		case FEAT_HOSTNAME:
		case FEAT_OSRELEASE:
		case FEAT_VERSION:
		case FEAT_ARCH:
		case FEAT_NRCPUS:
		case FEAT_CPUDESC:
		case FEAT_CMDLINE:
		case FEAT_EVENT_DESC:
		case FEAT_SAMPLE_TIME:
		case FEAT_CLOCK_DATA:
			copy = input_copy(c, s.offset, (size_t)s.size, err);
			if (!copy)
				return err->err;
			e = feature(c, bit, copy, (size_t)s.size, s.offset, err);
			free(copy);
			if (e)
				return e;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int read_file_header(struct conv *c, struct ebs_error *err)
{
	struct pf_file_header h = {0};
	u64 size = c->pc->size;
	const u8 *p;
	int e;

	if (size < 72)
		return bad(c, err, size,
			   "truncated inside the perf.data header (%llu of %zu bytes)",
			   (unsigned long long)size, sizeof(h));
	e = input_at(c, 0, size < sizeof(h) ? (size_t)size : sizeof(h), &p, err);
	if (e)
		return e;
	memcpy(&h, p, size < sizeof(h) ? (size_t)size : sizeof(h));
	if (h.size == 72) /* before feature bits */
		memset(h.features, 0, sizeof(h.features));
	else if (h.size != sizeof(h))
		return bad(c, err, 8, "perf.data header of %llu bytes (104 expected)",
			   (unsigned long long)h.size);
	if (size < h.size)
		return bad(c, err, size,
			   "truncated inside the perf.data header (%llu of %llu bytes)",
			   (unsigned long long)size, (unsigned long long)h.size);
	if (h.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct pf_section) || h.attr_size > 4096)
		return bad(c, err, OFF_ATTR_SIZE, "bad event attribute size %llu",
			   (unsigned long long)h.attr_size);
	if (!inside(h.attrs.offset, h.attrs.size, size))
		return bad(
			c, err, OFF_ATTRS,
			"truncated: the attribute section [%llu, +%llu) lies past the end of the "
			"file (%llu bytes)",
			(unsigned long long)h.attrs.offset, (unsigned long long)h.attrs.size,
			(unsigned long long)size);
	if (h.attrs.size % h.attr_size)
		return bad(c, err, OFF_ATTRS + 8,
			   "attribute section of %llu bytes holds no whole number of %llu-byte "
			   "attributes",
			   (unsigned long long)h.attrs.size, (unsigned long long)h.attr_size);
	if (h.data.offset > size)
		return bad(c, err, OFF_DATA,
			   "data offset %llu is past the end of the file (%llu bytes)",
			   (unsigned long long)h.data.offset, (unsigned long long)size);
	c->data_off = h.data.offset;
	if (h.data.size == 0 && size > h.data.offset) {
		/* the header perf record writes first: killed before it wrote the final one */
		if (!c->pc->unfinished_ok)
			return bad(
				c, err, OFF_DATA_SIZE,
				"data size 0: the recording never finished (perf record killed?)");
		c->data_end = size;
		c->data_cut = true;
		memset(h.features, 0, sizeof(h.features)); /* not written yet */
	} else if (!inside(h.data.offset, h.data.size, size)) {
		return bad(
			c, err, size,
			"truncated: the data section [%llu, +%llu) ends past the end of the file "
			"(%llu bytes)",
			(unsigned long long)h.data.offset, (unsigned long long)h.data.size,
			(unsigned long long)size);
	} else {
		c->data_end = h.data.offset + h.data.size;
	}
	e = read_attrs(c, &h, err);
	if (!e)
		e = read_features(c, &h, err);
	return e;
}

static int read_pipe_header(struct conv *c, struct ebs_error *err)
{
	const u8 *p;
	u64 hsize;
	int e;

	if (c->pc->size < 16)
		return bad(c, err, c->pc->size, "truncated inside the perf.data pipe header");
	e = input_at(c, 0, 16, &p, err);
	if (e)
		return e;
	memcpy(&hsize, p + 8, 8);
	if (hsize != 16)
		return bad(c, err, 8, "pipe header of %llu bytes (16 expected)",
			   (unsigned long long)hsize);
	c->data_off = 16;
	c->data_end = c->pc->size;
	c->data_cut = true; /* a stream has no end of its own: it may have been cut */
	return 0;
}

/* The fields of a sample_id_all trailer. */
struct sid {
	u32 pid, tid, cpu;
	u64 time, id;
};

/* The attribute of a record other than SAMPLE, from the id in its trailer. */
static struct pattr *attr_of_trailer(struct conv *c, const u8 *r, u32 n)
{
	struct pattr *a0 = &c->attrs[0], *a;
	u64 st = a0->attr.sample_type, id;
	u32 back;

	if (c->nr_attrs == 1 || !a0->attr.sample_id_all)
		return a0;
	if (st & PERF_SAMPLE_IDENTIFIER)
		back = 8;
	else if (st & PERF_SAMPLE_ID) /* then STREAM_ID, CPU after it */
		back = 8 * (1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU));
	else
		return a0;
	if (n < sizeof(struct perf_event_header) + back)
		return a0;
	memcpy(&id, r + n - back, 8);
	a = attr_of_id(c, id);
	return a ? a : a0;
}

/*
 * The trailer of record r (n bytes, fixed of them the record's own fixed
 * part), by its attribute a; false when r is too short for both.
 */
static bool trailer_of(const struct pattr *a, const u8 *r, u32 n, u32 fixed, struct sid *s)
{
	u64 st = a->attr.sample_type;
	struct cur cur;

	memset(s, 0, sizeof(*s));
	if (n < fixed || n - fixed < a->trailer)
		return false;
	if (!a->trailer)
		return true;
	cur.p = r + n - a->trailer;
	cur.end = r + n;
	if (st & PERF_SAMPLE_TID)
		take_u32s(&cur, &s->pid, &s->tid);
	if (st & PERF_SAMPLE_TIME)
		take_u64(&cur, &s->time);
	if (st & PERF_SAMPLE_ID)
		take_u64(&cur, &s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		take(&cur, NULL, 8);
	if (st & PERF_SAMPLE_CPU)
		take_u32s(&cur, &s->cpu, NULL);
	if (st & PERF_SAMPLE_IDENTIFIER)
		take_u64(&cur, &s->id);
	return true;
}

/* ---- records -------------------------------------------------------------- */

/*
 * The record at pos, before end: header checked, the record copied into
 * c->rec, *next the offset after it and its payload.  1, or 0 when end
 * comes before the record does (the caller decides), or -errno.
 */
static int next_record(struct conv *c, u64 pos, u64 end, u64 *next, struct ebs_error *err)
{
	struct perf_event_header h;
	const u8 *p;
	u64 extra;
	int e;

	if (end - pos < sizeof(h))
		return 0;
	e = input_at(c, pos, sizeof(h), &p, err);
	if (e)
		return e;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h))
		return bad(c, err, pos, "bad record size %u (type %u)", h.size, h.type);
	if (h.size > end - pos)
		return 0;
	e = input_at(c, pos, h.size, &p, err);
	if (e)
		return e;
	memcpy(c->rec, p, h.size);
	extra = 0;
	if (h.type == PERF_REC_HEADER_TRACING_DATA || h.type == PERF_REC_AUXTRACE) {
		if (h.size < 16)
			return bad(c, err, pos, "%s record of %u bytes (16 at least)",
				   type_name(h.type), h.size);
		extra = perf_data__payload(h.type, (const u8 *)c->rec + 8);
		if (extra > end - pos - h.size)
			return 0;
	}
	*next = pos + h.size + extra;
	return 1;
}

/*
 * The first pass: every record's size checked (and where the data end, for
 * a recording cut short), and what records say about the whole file:
 * pipe-mode attributes and features, build-ids, event names.
 */
static int scan(struct conv *c, struct ebs_error *err)
{
	u64 pos = c->data_off, next;
	int e;

	while (pos < c->data_end) {
		const struct perf_event_header *h = (const void *)c->rec;
		const u8 *r = (const u8 *)c->rec;

		e = next_record(c, pos, c->data_end, &next, err);
		if (e < 0)
			return e;
		if (e == 0) {
			struct perf_event_header hh = {0};
			const u8 *p;

			if (c->data_end - pos >= sizeof(hh) &&
			    !input_at(c, pos, sizeof(hh), &p, err))
				memcpy(&hh, p, sizeof(hh));
			if (!c->data_cut)
				return bad(c, err, pos,
					   "%s record of %u bytes runs past the end of the data "
					   "section (offset %llu)",
					   type_name(hh.type), hh.size,
					   (unsigned long long)c->data_end);
			if (!c->pc->unfinished_ok)
				return bad(c, err, pos,
					   "truncated: the file ends inside a record (%llu of its "
					   "bytes are there)",
					   (unsigned long long)(c->data_end - pos));
			c->data_end = pos; /* the incomplete record is left out */
			c->pc->left_out = true;
			break;
		}
		e = 0;
		switch (h->type) {
		case PERF_REC_HEADER_ATTR: {
			u32 asize;

			if (h->size < 8 + PERF_ATTR_SIZE_VER0)
				return bad(c, err, pos, "HEADER_ATTR record of %u bytes", h->size);
			memcpy(&asize, r + 12, 4);
			if (!asize)
				asize = PERF_ATTR_SIZE_VER0;
			if (asize > h->size - 8u)
				return bad(c, err, pos,
					   "HEADER_ATTR's attribute of %u bytes overruns it",
					   asize);
			e = add_attr(c, r + 8, asize, r + 8 + asize, (h->size - 8u - asize) / 8,
				     pos, err);
			break;
		}
		case PERF_REC_HEADER_FEATURE: {
			u64 id;

			if (h->size < 16)
				return bad(c, err, pos, "HEADER_FEATURE record of %u bytes",
					   h->size);
			memcpy(&id, r + 8, 8);
			e = feature(c, id, r + 16, h->size - 16u, pos + 16, err);
			break;
		}
		case PERF_REC_HEADER_BUILD_ID:
			e = add_build_id(c, r, h->misc, h->size, pos, err);
			break;
		case PERF_REC_EVENT_UPDATE: {
			struct named_id n = {0};
			u64 type;

			if (h->size < 24)
				break;
			memcpy(&type, r + 8, 8);
			if (type != PERF_EVENT_UPDATE_NAME)
				break;
			memcpy(&n.id, r + 16, 8);
			n.has_id = true;
			memcpy(n.name, r + 24,
			       h->size - 24u < sizeof(n.name) - 1 ? h->size - 24u
								  : sizeof(n.name) - 1);
			e = add_name(c, &n, err);
			break;
		}
		case PERF_RECORD_LOST_SAMPLES: {
			struct sid sd;

			/* perf record's own, from the counters at the end: no time */
			if (c->nr_attrs && trailer_of(&c->attrs[0], r, h->size, 16, &sd) &&
			    !sd.time)
				c->counted_lost = true;
			break;
		}
		case PERF_REC_COMPRESSED:
		case PERF_REC_COMPRESSED2:
			return bad(c, err, pos,
				   "compressed records (perf record -z): ebs reads uncompressed "
				   "perf.data only (record without -z)");
		default:
			break;
		}
		if (e)
			return e;
		pos = next;
	}
	return 0;
}

static int bid_cmp(const void *pa, const void *pb)
{
	const struct build_id *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

/* The build-id the file lists for the file name, or NULL. */
static const struct build_id *build_id_of(const struct conv *c, const char *name)
{
	size_t lo = 0, hi = c->nr_bids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->bids[mid].name, name);

		if (d < 0)
			lo = mid + 1;
		else if (d > 0)
			hi = mid;
		else
			return &c->bids[mid];
	}
	return NULL;
}

/* ---- ordering ---------------------------------------------------------------- */

/* Hand r to the writer; a failure is the output's (c->werr). */
static int emit(struct conv *c, const struct ebs_rec *r)
{
	int e = ebs_writer__add(c->w, r);

	if (e)
		c->werr = e;
	return e;
}

static int qent_cmp(const void *pa, const void *pb)
{
	const struct qent *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Write the queued records of time <= limit, in time order; keep the others. */
static int queue_flush(struct conv *c, u64 limit)
{
	struct queue *q = &c->q;
	size_t i, k, len = 0;
	u8 *t;
	int e;

	if (!q->n)
		return 0;
	qsort(q->v, q->n, sizeof(*q->v), qent_cmp);
	for (i = 0; i < q->n && q->v[i].time <= limit; i++) {
		e = emit(c, (const void *)(q->buf + q->v[i].off));
		if (e)
			return e;
	}
	if (i == q->n) {
		q->n = q->len = 0;
		return 0;
	}
	/* the rest, packed at the start of the spare buffer, which becomes the buffer */
	if (q->spare_cap < q->cap) {
		t = realloc(q->spare, q->cap);
		if (!t)
			return -ENOMEM;
		q->spare = t;
		q->spare_cap = q->cap;
	}
	for (k = 0; i < q->n; i++, k++) {
		memcpy(q->spare + len, q->buf + q->v[i].off, q->v[i].size);
		q->v[k] = q->v[i];
		q->v[k].off = len;
		len += q->v[i].size;
	}
	t = q->buf;
	q->buf = q->spare;
	q->spare = t;
	i = q->cap;
	q->cap = q->spare_cap;
	q->spare_cap = i;
	q->n = k;
	q->len = len;
	return 0;
}

/* A converted record of time t, into the queue (time 0: written now, as perf does). */
static int queue_add(struct conv *c, const struct ebs_rec *r, u64 t)
{
	struct queue *q = &c->q;
	int e;

	if (!t)
		return emit(c, r);
	if (q->len + r->size > QUEUE_MAX) {
		e = queue_flush(c, UINT64_MAX); /* too many held back: order what is held */
		if (e)
			return e;
	}
	if (q->len + r->size > q->cap) {
		size_t cap = q->cap ? q->cap : (1u << 20);
		u8 *n;

		while (cap < q->len + r->size)
			cap *= 2;
		n = realloc(q->buf, cap);
		if (!n)
			return -ENOMEM;
		q->buf = n;
		q->cap = cap;
	}
	if (ebs_grow((void **)&q->v, &q->cap_v, q->n, sizeof(*q->v), 1024))
		return -ENOMEM;
	memcpy(q->buf + q->len, r, r->size);
	q->v[q->n++] = (struct qent){t, q->seq++, q->len, r->size};
	q->len += r->size;
	if (t > q->max)
		q->max = t;
	return 0;
}

/* FINISHED_ROUND: what came before the previous round can be put in order now. */
static int queue_round(struct conv *c)
{
	int e = queue_flush(c, c->q.limit);

	c->q.limit = c->q.max;
	return e;
}

/* ---- converting ------------------------------------------------------------ */

/* The bytes of a sample's read_format values, at cur (GROUP: how many from the sample). */
static bool skip_read(struct cur *cur, u64 rf)
{
	u64 each = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST)), nr = 1;
	u64 times = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));

	if ((rf & PERF_FORMAT_GROUP) && !take_u64(cur, &nr))
		return false;
	if (nr > (u64)(cur->end - cur->p) / each)
		return false;
	return take(cur, NULL, (size_t)(times + nr * each));
}

/* The attribute of a SAMPLE record, or NULL when its id names none. */
static struct pattr *attr_of_sample(struct conv *c, const u8 *r, u32 n)
{
	u64 st = c->attrs[0].attr.sample_type, id;
	u32 pos;

	if (c->nr_attrs == 1)
		return &c->attrs[0];
	if (st & PERF_SAMPLE_IDENTIFIER)
		pos = 8;
	else if (st & PERF_SAMPLE_ID) /* after IP, TID, TIME and ADDR */
		pos = 8 + 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			       !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
	else
		return &c->attrs[0];
	if (n < pos + 8)
		return &c->attrs[0]; /* too short: its own checks say so */
	memcpy(&id, r + pos, 8);
	return attr_of_id(c, id);
}

/*
 * A SAMPLE, by its attribute's sample_type (the field order of
 * <linux/perf_event.h>): the fixed part, the call chain, and with user
 * registers the registers and the part of the user stack in use, as ebs
 * record writes them.  After RAW or BRANCH_STACK no part is read.
 */
static int conv_sample(struct conv *c, u64 off, struct ebs_error *err)
{
	const struct perf_event_header *h = (const void *)c->rec;
	const u8 *r = (const u8 *)c->rec;
	struct ebs_rec_sample *o = (void *)c->out;
	struct pattr *a = attr_of_sample(c, r, h->size);
	struct cur cur = {r + sizeof(*h), r + h->size};
	const u8 *chain = NULL, *regs = NULL, *stack = NULL;
	struct ebs_sample_parts parts = {0};
	u64 st, nr = 0, abi = 0, size, dyn = 0;
	unsigned int nregs = 0;

	if (!a) {
		c->pc->unknown_ids++;
		return 0;
	}
	if (a->event < 0) {
		c->pc->skipped++;
		return 0;
	}
	st = a->attr.sample_type;
	memset(o, 0, sizeof(*o));
	o->period = a->attr.freq ? 0 : a->attr.sample_period;
	if (((st & PERF_SAMPLE_IDENTIFIER) && !take(&cur, NULL, 8)) ||
	    ((st & PERF_SAMPLE_IP) && !take_u64(&cur, &o->ip)) ||
	    ((st & PERF_SAMPLE_TID) && !take_u32s(&cur, &o->pid, &o->tid)) ||
	    ((st & PERF_SAMPLE_TIME) && !take_u64(&cur, &o->time)) ||
	    ((st & PERF_SAMPLE_ADDR) && !take(&cur, NULL, 8)) ||
	    ((st & PERF_SAMPLE_ID) && !take(&cur, NULL, 8)) ||
	    ((st & PERF_SAMPLE_STREAM_ID) && !take(&cur, NULL, 8)) ||
	    ((st & PERF_SAMPLE_CPU) && !take_u32s(&cur, &o->cpu, NULL)) ||
	    ((st & PERF_SAMPLE_PERIOD) && !take_u64(&cur, &o->period)) ||
	    ((st & PERF_SAMPLE_READ) && !skip_read(&cur, a->attr.read_format)))
		goto short_sample;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!take_u64(&cur, &nr) || nr > (u64)(cur.end - cur.p) / 8)
			goto short_sample;
		chain = cur.p;
		cur.p += nr * 8;
	}
	if (!(st & (PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK))) {
		if (st & PERF_SAMPLE_REGS_USER) {
			if (!take_u64(&cur, &abi))
				goto short_sample;
			nregs = abi ? (unsigned int)__builtin_popcountll(a->attr.sample_regs_user)
				    : 0;
			if (nregs > (u64)(cur.end - cur.p) / 8)
				goto short_sample;
			regs = cur.p;
			cur.p += nregs * 8;
		}
		if (st & PERF_SAMPLE_STACK_USER) {
			if (!take_u64(&cur, &size) || size > (u64)(cur.end - cur.p))
				goto short_sample;
			stack = cur.p;
			cur.p += size;
			if (size && (!take_u64(&cur, &dyn) || dyn > size))
				goto short_sample;
		}
	}
	o->hdr.type = EBS_REC_SAMPLE;
	o->hdr.misc = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) |
		      (h->misc & PERF_RECORD_MISC_EXACT_IP ? EBS_SAMPLE_EXACT_IP : 0);
	o->event = (u16)a->event;
	parts.nr_callchain = nr;
	parts.callchain = (const u64 *)(const void *)chain;
	if (nregs) { /* the stack only with them, as ebs record keeps it */
		parts.regs_abi = abi;
		parts.regs_mask = a->attr.sample_regs_user;
		parts.regs = (const u64 *)(const void *)regs;
		parts.stack = stack;
		parts.stack_dyn_size = dyn;
	}
	ebs_sample__set_parts(o, &parts);
	c->pc->samples++;
	return queue_add(c, &o->hdr, o->time);

short_sample:
	return bad(c, err, off,
		   "SAMPLE record of %u bytes is too short for its fields (sample_type 0x%llx)",
		   h->size, (unsigned long long)st);
}

/*
 * Does MMAP2 record r carry a build-id (rather than device and inode)?  Its
 * misc bit says so, but the kernel (6.18 seen) sets that bit in a record
 * it shares among the events an mmap is reported to, so an event without
 * attr.build_id may get the bit with the inode form when another event on
 * the system (any other perf or ebs record) asked for build-ids.  So the
 * form is checked too: a size of 1 to 20, the reserved bytes zero, and the
 * bytes after the build-id zero (device numbers and inodes seldom are: a
 * major number of 20 or less with a small inode and no generation would
 * pass).  The build-id the file lists for the file wins over this one.
 */
static bool mmap2_has_build_id(u16 misc, const u8 *r)
{
	unsigned int i, size = r[40];

	if (!(misc & PERF_RECORD_MISC_MMAP_BUILD_ID) || !size || size > 20 || r[41] || r[42] ||
	    r[43])
		return false;
	for (i = 44 + size; i < 64; i++)
		if (r[i])
			return false;
	return true;
}

/* MMAP and MMAP2: an ebs MMAP, with the build-id the file lists for its file, else its own. */
static int conv_mmap(struct conv *c, u64 off, struct ebs_error *err)
{
	const struct perf_event_header *h = (const void *)c->rec;
	const u8 *r = (const u8 *)c->rec;
	bool two = h->type == PERF_RECORD_MMAP2;
	u32 fixed = two ? MMAP2_FIXED : MMAP_FIXED;
	struct pattr *a = attr_of_trailer(c, r, h->size);
	struct ebs_rec_mmap *o = (void *)c->out;
	const struct build_id *b;
	struct sid s;
	size_t len, room;

	if (!trailer_of(a, r, h->size, fixed + 1, &s))
		return bad(c, err, off, "%s record of %u bytes is too short", type_name(h->type),
			   h->size);
	room = h->size - a->trailer - fixed;
	len = strnlen((const char *)r + fixed, room);
	if (len == room)
		return bad(c, err, off, "%s file name is not terminated", type_name(h->type));
	if (h->misc & PERF_RECORD_MISC_MMAP_DATA) { /* not code: ebs keeps code mappings */
		c->pc->skipped++;
		return 0;
	}
	if (len > MAX_NAME - 1)
		len = MAX_NAME - 1;
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_MMAP;
	o->hdr.misc = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	o->time = s.time;
	memcpy(&o->pid, r + 8, 4);
	memcpy(&o->tid, r + 12, 4);
	memcpy(&o->start, r + 16, 8);
	memcpy(&o->len, r + 24, 8);
	memcpy(&o->pgoff, r + 32, 8);
	if (o->start + o->len < o->start)
		return bad(c, err, off, "%s range wraps around", type_name(h->type));
	if (two && mmap2_has_build_id(h->misc, r)) {
		o->build_id_size = r[40];
		memcpy(o->build_id, r + 44, o->build_id_size);
		o->hdr.misc |= EBS_MMAP_BUILD_ID;
	} else if (two) {
		memcpy(&o->maj, r + 40, 4);
		memcpy(&o->min, r + 44, 4);
		memcpy(&o->ino, r + 48, 8);
		memcpy(&o->ino_generation, r + 56, 8);
	}
	if (two) {
		memcpy(&o->prot, r + 64, 4);
		memcpy(&o->flags, r + 68, 4);
	}
	memcpy(o->filename, r + fixed, len);
	memset(o->filename + len, 0, 8);
	/* the file's list first: perf made it from the files themselves */
	if ((b = build_id_of(c, o->filename)) && b->size) {
		/* device and inode are 0 beside a build-id (docs/format.md 7.2) */
		o->maj = o->min = 0;
		o->ino = o->ino_generation = 0;
		memset(o->build_id, 0, sizeof(o->build_id));
		o->build_id_size = b->size;
		memcpy(o->build_id, b->id, b->size);
		o->hdr.misc |= EBS_MMAP_BUILD_ID;
	}
	o->hdr.size = (u32)ALIGN8(sizeof(*o) + len + 1);
	return queue_add(c, &o->hdr, o->time);
}

static int conv_comm(struct conv *c, u64 off, struct ebs_error *err)
{
	const struct perf_event_header *h = (const void *)c->rec;
	const u8 *r = (const u8 *)c->rec;
	struct pattr *a = attr_of_trailer(c, r, h->size);
	struct ebs_rec_comm *o = (void *)c->out;
	struct sid s;
	size_t len, room;

	if (!trailer_of(a, r, h->size, COMM_FIXED + 1, &s))
		return bad(c, err, off, "COMM record of %u bytes is too short", h->size);
	room = h->size - a->trailer - COMM_FIXED;
	len = strnlen((const char *)r + COMM_FIXED, room);
	if (len == room)
		return bad(c, err, off, "COMM name is not terminated");
	if (len > 255)
		len = 255;
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_COMM;
	o->hdr.misc = h->misc & PERF_RECORD_MISC_COMM_EXEC ? EBS_COMM_EXEC : 0;
	o->time = s.time;
	memcpy(&o->pid, r + 8, 4);
	memcpy(&o->tid, r + 12, 4);
	memcpy(o->comm, r + COMM_FIXED, len);
	memset(o->comm + len, 0, 8);
	o->hdr.size = (u32)ALIGN8(sizeof(*o) + len + 1);
	return queue_add(c, &o->hdr, o->time);
}

static int conv_task(struct conv *c, u64 off, struct ebs_error *err)
{
	const struct perf_event_header *h = (const void *)c->rec;
	const u8 *r = (const u8 *)c->rec;
	struct ebs_rec_task *o = (void *)c->out;

	if (h->size < TASK_FIXED)
		return bad(c, err, off, "%s record of %u bytes is too short", type_name(h->type),
			   h->size);
	memset(o, 0, sizeof(*o));
	o->hdr.type = h->type == PERF_RECORD_FORK ? EBS_REC_FORK : EBS_REC_EXIT;
	o->hdr.size = sizeof(*o);
	memcpy(&o->pid, r + 8, 4);
	memcpy(&o->ppid, r + 12, 4);
	memcpy(&o->tid, r + 16, 4);
	memcpy(&o->ptid, r + 20, 4);
	memcpy(&o->time, r + 24, 8);
	return queue_add(c, &o->hdr, o->time);
}

/* LOST (a ring's: every event sharing it) and LOST_SAMPLES (one event's). */
static int conv_lost(struct conv *c, u64 off, struct ebs_error *err)
{
	const struct perf_event_header *h = (const void *)c->rec;
	const u8 *r = (const u8 *)c->rec;
	bool ring = h->type == PERF_RECORD_LOST;
	struct pattr *a = attr_of_trailer(c, r, h->size);
	struct ebs_rec_lost *o = (void *)c->out;
	struct sid s;

	if (!trailer_of(a, r, h->size, ring ? LOST_FIXED : LOST_SAMPLES_FIXED, &s))
		return bad(c, err, off, "%s record of %u bytes is too short", type_name(h->type),
			   h->size);
	if (ring && c->counted_lost) { /* the same losses, counted again at the end */
		c->pc->skipped++;
		return 0;
	}
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_LOST;
	o->hdr.size = sizeof(*o);
	o->time = s.time;
	o->cpu = s.cpu;
	memcpy(&o->lost, r + (ring ? 16 : 8), 8);
	if (ring)
		o->event = c->nr_events == 1 ? 0 : 0xffff;
	else
		o->event = a->event >= 0 ? (u16)a->event : 0xffff;
	return queue_add(c, &o->hdr, o->time);
}

static int conv_throttle(struct conv *c, u64 off, struct ebs_error *err)
{
	const struct perf_event_header *h = (const void *)c->rec;
	const u8 *r = (const u8 *)c->rec;
	struct pattr *a = attr_of_trailer(c, r, h->size), *ev;
	struct ebs_rec_throttle *o = (void *)c->out;
	struct sid s;
	u64 id;

	if (!trailer_of(a, r, h->size, THROTTLE_FIXED, &s))
		return bad(c, err, off, "%s record of %u bytes is too short", type_name(h->type),
			   h->size);
	memcpy(&id, r + 16, 8);
	ev = c->nr_attrs == 1 ? &c->attrs[0] : attr_of_id(c, id);
	memset(o, 0, sizeof(*o));
	o->hdr.type = EBS_REC_THROTTLE;
	o->hdr.misc = h->type == PERF_RECORD_UNTHROTTLE ? EBS_THROTTLE_END : 0;
	o->hdr.size = sizeof(*o);
	memcpy(&o->time, r + 8, 8);
	o->cpu = s.cpu;
	o->event = ev && ev->event >= 0 ? (u16)ev->event : 0;
	return queue_add(c, &o->hdr, o->time);
}

/*
 * e, an error of a conversion: those of the output (the writer's, or no
 * memory to hold records back) are named here, the input's are already.
 */
static int out_error(struct conv *c, int e, struct ebs_error *err)
{
	if (!e || (!c->werr && e != -ENOMEM))
		return e;
	if (!c->werr)
		return no_memory(c, err);
	return ebs_error__set(err, -e, "%s: write failed: %s", c->pc->out_name, strerror(-e));
}

/* The second pass: each record converted, or skipped by its size. */
static int convert_data(struct conv *c, struct ebs_error *err)
{
	u64 pos = c->data_off, next;
	int e;

	while (pos < c->data_end) {
		const struct perf_event_header *h = (const void *)c->rec;

		e = next_record(c, pos, c->data_end, &next, err);
		if (e <= 0) /* the first pass found where the data end */
			return e < 0 ? e : bad(c, err, pos, "the file changed while it was read");
		c->pc->records++;
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			e = conv_sample(c, pos, err);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			e = conv_mmap(c, pos, err);
			break;
		case PERF_RECORD_COMM:
			e = conv_comm(c, pos, err);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			e = conv_task(c, pos, err);
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			e = conv_lost(c, pos, err);
			break;
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			e = conv_throttle(c, pos, err);
			break;
		case PERF_REC_FINISHED_ROUND:
			e = queue_round(c);
			break;
		default:
			c->pc->skipped++;
			e = 0;
			break;
		}
		if (e)
			return out_error(c, e, err);
		pos = next;
	}
	return out_error(c, queue_flush(c, UINT64_MAX), err);
}

/* ---- header records ---------------------------------------------------------- */

/* The GNU build-id note of an ELF image in memory (a vdso) into id: its size, 0 when none. */
static u8 image_build_id(const u8 *img, size_t size, u8 *id)
{
	Elf64_Ehdr eh;
	unsigned int i;

	if (size < sizeof(eh))
		return 0;
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
	    (u64)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff)
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		size_t at, end;

		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		for (at = ph.p_offset, end = ph.p_offset + ph.p_filesz;
		     end - at >= sizeof(Elf64_Nhdr);) {
			Elf64_Nhdr nh;
			size_t name, desc;

			memcpy(&nh, img + at, sizeof(nh));
			name = (nh.n_namesz + 3u) & ~3u;
			desc = (nh.n_descsz + 3u) & ~3u;
			if (name > end - at - sizeof(nh) || desc > end - at - sizeof(nh) - name)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(img + at + sizeof(nh), "GNU", 4)) {
				u8 n = nh.n_descsz > 20 ? 20 : (u8)nh.n_descsz;

				memcpy(id, img + at + sizeof(nh) + name, n);
				return n;
			}
			at += sizeof(nh) + name + desc;
		}
	}
	return 0;
}

/*
 * The vdso's code, which perf.data does not hold (perf keeps it in its
 * build-id cache): this process's own, when it is the one recorded: the
 * file lists the vdso's build-id and it is ours, or (pipe mode: no list)
 * the file was recorded on this machine, under this kernel (its hostname
 * and release are ours).  0 or -errno.
 */
static int write_vdso(struct conv *c)
{
	const struct build_id *b = build_id_of(c, "[vdso]");
	const void *image;
	struct utsname u;
	size_t size;
	u8 id[20], n;

	if (ebs_own_vdso(&image, &size))
		return 0;
	n = image_build_id(image, size, id);
	if (b && b->size && (n != b->size || memcmp(id, b->id, n)))
		return 0;
	if ((!b || !b->size) &&
	    (uname(&u) || !c->hostname || !c->osrelease || strcmp(c->hostname, u.nodename) ||
	     strcmp(c->osrelease, u.release)))
		return 0;
	return ebs_writer__dso_image(c->w, "[vdso]", image, size, id, n);
}

/* A META record, unless an earlier one failed (*e). */
static void meta(struct conv *c, u32 key, const char *value, int *e)
{
	if (value && !*e)
		*e = ebs_writer__meta(c->w, key, value);
}

static int write_header(struct conv *c, struct ebs_error *err)
{
	const char *call_graph = NULL;
	char cg[64], buf[256];
	unsigned int i;
	int e = 0;

	meta(c, EBS_META_HOSTNAME, c->hostname, &e);
	meta(c, EBS_META_OS_RELEASE, c->osrelease, &e);
	meta(c, EBS_META_ARCH, c->arch, &e);
	meta(c, EBS_META_CMDLINE, c->cmdline, &e);
	meta(c, EBS_META_CPU_DESC, c->cpudesc, &e);
	if (c->nr_cpus) {
		snprintf(buf, sizeof(buf), "%u", c->nr_cpus);
		meta(c, EBS_META_NR_CPUS, buf, &e);
	}
	snprintf(buf, sizeof(buf), "perf.data%s%s%s", c->version ? " (perf " : "",
		 c->version ? c->version : "", c->version ? ")" : "");
	meta(c, EBS_META_BACKEND, buf, &e);
	meta(c, EBS_META_EBS_VERSION, EBS_VERSION, &e);
	for (i = 0; i < c->nr_attrs; i++) {
		const struct perf_event_attr *at = &c->attrs[i].attr;

		if (c->attrs[i].event < 0 || !(at->sample_type & PERF_SAMPLE_CALLCHAIN))
			continue;
		if ((at->sample_type & PERF_SAMPLE_REGS_USER) &&
		    (at->sample_type & PERF_SAMPLE_STACK_USER) && at->sample_stack_user) {
			snprintf(cg, sizeof(cg), "dwarf,%u", at->sample_stack_user);
			call_graph = cg;
		} else if (!call_graph) {
			call_graph = "fp";
		}
	}
	meta(c, EBS_META_CALL_GRAPH, call_graph, &e);
	if (!e)
		e = write_vdso(c);
	for (i = 0; i < c->nr_attrs && !e; i++) {
		const struct pattr *a = &c->attrs[i];
		struct ebs_rec_event ev = {0};
		u32 t = a->attr.type;

		if (a->event < 0)
			continue;
		ev.group = (u16)a->event;
		ev.type = t;
		ev.config = a->attr.config;
		ev.config1 = a->attr.config1;
		ev.flags = (a->attr.freq ? EBS_EVF_FREQ : 0) |
			   (a->attr.exclude_user ? EBS_EVF_EXCLUDE_USER : 0) |
			   (a->attr.exclude_kernel ? EBS_EVF_EXCLUDE_KERNEL : 0) |
			   EBS_EVF_GROUP_LEADER |
			   (t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE || t == PERF_TYPE_RAW
				    ? EBS_EVF_HARDWARE
				    : 0);
		if (a->attr.freq)
			ev.sample_freq = a->attr.sample_freq;
		else
			ev.sample_period = a->attr.sample_period;
		e = ebs_writer__event(c->w, &ev, a->name, a->name, "");
	}
	if (e) {
		c->werr = e;
		return ebs_error__set(err, -e, "%s: write failed: %s", c->pc->out_name,
				      strerror(-e));
	}
	return 0;
}

/* The two clocks at the first sample, when the file says (HEADER_SAMPLE_TIME, HEADER_CLOCK_DATA).
 */
static void clocks_at(const struct conv *c, u64 t, u64 *realtime, u64 *clock)
{
	*clock = t;
	*realtime = c->clock_data && t ? c->tod_ns + (t - c->clock_ns) : 0;
}

static void conv_free(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->nr_bids; i++)
		free(c->bids[i].name);
	free(c->bids);
	free(c->ids);
	free(c->names);
	free(c->hostname);
	free(c->osrelease);
	free(c->version);
	free(c->arch);
	free(c->cpudesc);
	free(c->cmdline);
	free(c->q.buf);
	free(c->q.spare);
	free(c->q.v);
	free(c->win);
	free(c);
}

int perf_data__convert(struct perf_convert *pc, struct ebs_writer *w, struct ebs_error *err)
{
	struct conv *c = calloc(1, sizeof(*c));
	u64 realtime, clock, hsize;
	const u8 *p;
	int e;

	pc->samples = pc->records = pc->skipped = pc->unknown_ids = pc->data_end = 0;
	pc->unfinished = pc->left_out = pc->pipe = pc->out_failed = pc->converted = false;
	if (!c)
		return ebs_error__set(err, ENOMEM, "%s: out of memory", pc->path);
	c->pc = pc;
	c->w = w;
	if (pc->size < 8) {
		e = bad(c, err, pc->size, "truncated inside the perf.data magic");
		goto out;
	}
	e = input_at(c, 0, 8, &p, err);
	if (e)
		goto out;
	switch (perf_data__magic(p)) {
	case PERF_MAGIC_NATIVE:
		break;
	case PERF_MAGIC_SWAPPED:
		e = bad(c, err, 0,
			"perf.data written with the other byte order; this ebs reads its own byte "
			"order only");
		goto out;
	case PERF_MAGIC_V1:
		e = bad(c, err, 0, "perf.data of the first format (PERFFILE): not read");
		goto out;
	default:
		e = bad(c, err, 0, "not a perf.data file (bad magic)");
		goto out;
	}
	/* the header's size: 16 for a pipe's, 104 (or 72) for a file's */
	if (pc->size >= 16 && !input_at(c, 8, 8, &p, err)) {
		memcpy(&hsize, p, 8);
		pc->pipe = hsize == 16;
	}
	e = pc->pipe ? read_pipe_header(c, err) : read_file_header(c, err);
	if (!e)
		e = scan(c, err);
	if (e)
		goto out;
	if (!c->nr_attrs) {
		e = bad(c, err, pc->pipe ? 16 : OFF_ATTRS, "the file describes no event");
		goto out;
	}
	e = name_events(c, err);
	if (e)
		goto out;
	if (!c->nr_events) {
		e = bad(c, err, pc->pipe ? 16 : OFF_ATTRS, "the file describes only dummy events");
		goto out;
	}
	if (c->nr_bids)
		qsort(c->bids, c->nr_bids, sizeof(*c->bids), bid_cmp);
	e = write_header(c, err);
	if (e)
		goto out;
	clocks_at(c, c->first_time, &realtime, &clock);
	e = ebs_writer__begin_data(w, realtime, clock);
	if (e) {
		c->werr = e;
		e = out_error(c, e, err);
		goto out;
	}
	e = convert_data(c, err);
	if (e)
		goto out;
	clocks_at(c, c->last_time, &realtime, &clock);
	if (clock)
		ebs_writer__set_end(w, realtime, clock);
	pc->data_end = c->data_end;
	pc->converted = true;
	pc->unfinished = c->data_cut && (pc->left_out || !pc->pipe);
out:
	pc->out_failed = c->werr != 0;
	conv_free(c);
	return e;
}
