// SPDX-License-Identifier: MIT
/*
 * fuzz-reader.c - the ebs.data reader (data/reader.c): open a file made of
 * the input, read its header records, walk every data record to the
 * trailer, twice, and look at every part the reader hands out.  Each input
 * is read three ways: as a file, as a file that may be an unfinished
 * recording (EBS_DATA_UNFINISHED), and as a stream (a pipe, which the
 * reader first copies into a temporary file, stopping at the first bytes
 * that cannot continue an ebs.data file).
 *
 * Promises checked (data/data.h): every record handed out lies inside
 * the file (a sample unpacked from a SAMPLES_CG record: at an offset inside
 * it, at most EBS_SAMPLES_CG_MAX_UNPACKED bytes), is a multiple of 8 bytes
 * and at least its type's fixed size;
 * its strings end inside it; its event index is in range; a sample's
 * optional parts lie inside it; the trailer's counts and index lie inside
 * the trailer; two walks agree; an unfinished recording says so in one
 * line; a refusal is -errno with one line naming the file.  An input that
 * begins as perf.data ("PERFILE2") is converted first (data/perfdata.c):
 * the same promises hold of the converted records.
 */
#include <fcntl.h>

#include "data/data.h"
#include "tests/fuzz/fuzz.h"

/* Is the NUL-terminated string s inside [rec, rec + size)? */
static int string_inside(const char *s, const void *rec, size_t size)
{
	if (!fuzz_inside(s, 1, rec, size))
		return 0;
	return memchr(s, '\0', size - (size_t)(s - (const char *)rec)) != NULL;
}

static void check_record(const struct ebs_data *d, const struct ebs_rec *r, size_t file_size)
{
	u64 off = ebs_data__offset(d, r);
	u32 fixed = ebs_rec__fixed_size(r->type);
	unsigned int nev = ebs_data__nr_events(d);

	FUZZ_CHECK(off <= file_size &&
			   (r->size <= file_size - off ||
			    (r->type == EBS_REC_SAMPLE && r->size <= EBS_SAMPLES_CG_MAX_UNPACKED)),
		   "record at %llu: size %u", (unsigned long long)off, r->size);
	FUZZ_CHECK(r->size % 8 == 0 && r->size >= fixed, "record at %llu: size %u, fixed %u",
		   (unsigned long long)off, r->size, fixed);
	switch (r->type) {
	case EBS_REC_SAMPLE: {
		const struct ebs_rec_sample *s = (const void *)r;
		struct ebs_sample_parts p;

		FUZZ_CHECK(s->event < nev, "SAMPLE of event %u of %u", s->event, nev);
		ebs_sample__parts(s, &p);
		FUZZ_CHECK(
			!p.nr_callchain || fuzz_inside(p.callchain, p.nr_callchain * 8, r, r->size),
			"callchain of %llu outside the SAMPLE", (unsigned long long)p.nr_callchain);
		FUZZ_CHECK(!p.regs || fuzz_inside(p.regs,
						  8 * (size_t)__builtin_popcountll(p.regs_mask), r,
						  r->size),
			   "registers outside the SAMPLE");
		FUZZ_CHECK(!p.stack || fuzz_inside(p.stack, p.stack_size, r, r->size),
			   "stack outside the SAMPLE");
		FUZZ_CHECK(p.stack_dyn_size <= p.stack_size, "dyn_size above size");
		break;
	}
	case EBS_REC_MMAP: {
		const struct ebs_rec_mmap *m = (const void *)r;

		FUZZ_CHECK(string_inside(m->filename, r, r->size), "MMAP name not terminated");
		FUZZ_CHECK(m->build_id_size <= sizeof(m->build_id), "MMAP build-id size");
		break;
	}
	case EBS_REC_COMM:
		FUZZ_CHECK(string_inside(((const struct ebs_rec_comm *)r)->comm, r, r->size),
			   "COMM name not terminated");
		break;
	case EBS_REC_PROCNS:
		FUZZ_CHECK(string_inside(((const struct ebs_rec_procns *)r)->root, r, r->size),
			   "PROCNS root not terminated");
		break;
	case EBS_REC_LOST: {
		const struct ebs_rec_lost *l = (const void *)r;

		FUZZ_CHECK(l->event == 0xffff || l->event < nev, "LOST of event %u", l->event);
		break;
	}
	case EBS_REC_THROTTLE:
		FUZZ_CHECK(((const struct ebs_rec_throttle *)r)->event < nev, "THROTTLE event");
		break;
	case EBS_REC_COUNT:
		FUZZ_CHECK(((const struct ebs_rec_count *)r)->event < nev, "COUNT event");
		break;
	default:
		break;
	}
}

/* Walk the data records; the count, or -1 after a refusal. */
static long walk(struct ebs_data *d, size_t file_size)
{
	struct ebs_error err = {0};
	const struct ebs_rec *r;
	long n = 0;
	int e;

	while ((e = ebs_data__next(d, &r, &err)) == 1) {
		check_record(d, r, file_size);
		n++;
	}
	if (e < 0) {
		FUZZ_CHECK(err.err == e && strstr(err.msg, ebs_data__path(d)) &&
				   !strchr(err.msg, '\n'),
			   "refusal %d: '%s'", e, err.msg);
		return -1;
	}
	return n;
}

static void check_open(struct ebs_data *d, size_t file_size)
{
	const struct ebs_file_header *h = ebs_data__header(d);
	const struct ebs_rec_trailer *t;
	const struct ebs_rec_dso_image *im;
	unsigned int i, n = ebs_data__nr_events(d);
	long first, second;
	u32 key;

	FUZZ_CHECK(h && h->header_size >= sizeof(*h) && h->data_offset <= file_size,
		   "header of %u bytes, data at %llu", h ? h->header_size : 0,
		   h ? (unsigned long long)h->data_offset : 0);
	FUZZ_CHECK(n >= 1 && n <= EBS_MAX_EVENTS, "%u events", n);
	for (i = 0; i < n; i++) {
		const struct ebs_event_info *ev = ebs_data__event(d, i);
		const struct ebs_rec *r = &ev->rec->hdr;
		const struct ebs_rec_calibration *c = ebs_data__calibration(d, i);

		FUZZ_CHECK(ev->rec->index == i, "event %u has index %u", i, ev->rec->index);
		FUZZ_CHECK(string_inside(ev->asked, r, r->size) &&
				   string_inside(ev->used, r, r->size) &&
				   string_inside(ev->why, r, r->size),
			   "event %u names outside its record", i);
		FUZZ_CHECK(ebs_data__find_event(d, ev->asked) <= (int)i, "find_event");
		FUZZ_CHECK(!c || c->event == i, "calibration of event %u is event %u's", c->event,
			   i);
	}
	FUZZ_CHECK(!ebs_data__event(d, n), "event past the last");
	for (key = 0; key < 16; key++) {
		const char *v = ebs_data__meta(d, key);

		FUZZ_CHECK(!v || strlen(v) < file_size, "META %u", key);
	}
	im = ebs_data__dso_image(d, "[vdso]");
	FUZZ_CHECK(!im || (im->image_size <= im->hdr.size &&
			   fuzz_inside(im->image, (size_t)im->image_size, im, im->hdr.size)),
		   "DSO_IMAGE bytes outside its record");

	first = walk(d, file_size);
	ebs_data__rewind(d);
	second = walk(d, file_size);
	FUZZ_CHECK(first == second, "two walks: %ld and %ld records", first, second);
	t = ebs_data__trailer(d);
	if (first < 0)
		return;
	if (ebs_data__unfinished(d)) { /* EBS_DATA_UNFINISHED only */
		const char *u = ebs_data__unfinished(d);

		FUZZ_CHECK(!t && ebs_data__totals(d), "unfinished, with a trailer or no totals");
		FUZZ_CHECK(!strchr(u, '\n') && strstr(u, "did not finish"), "unfinished: '%s'", u);
		for (i = 0; i < n; i++)
			FUZZ_CHECK(ebs_data__counts(d, i), "no counts of event %u", i);
		return;
	}
	FUZZ_CHECK(t && ebs_data__totals(d) == t, "walked to the end without a trailer");
	FUZZ_CHECK(t->nr_events == n, "trailer of %u events, header %u", t->nr_events, n);
	FUZZ_CHECK(sizeof(*t) + (u64)t->nr_events * sizeof(struct ebs_event_counts) +
				   (u64)t->nr_index * sizeof(struct ebs_index_entry) <=
			   t->hdr.size,
		   "trailer parts outside it");
	for (i = 0; i < n; i++)
		FUZZ_CHECK(fuzz_inside(ebs_data__counts(d, i), sizeof(struct ebs_event_counts), t,
				       t->hdr.size),
			   "counts of event %u outside the trailer", i);
}

/* Open path (flags), check everything, close. */
static void read_one(const char *path, unsigned int flags, size_t file_size)
{
	struct ebs_error err = {0};
	struct ebs_data *d = ebs_data__open_flags(path, flags, &err);

	if (!d) {
		FUZZ_CHECK(err.err < 0 && strstr(err.msg, path) && !strchr(err.msg, '\n'),
			   "refusal %d: '%s'", err.err, err.msg);
		return;
	}
	/* a perf.data input is read through its conversion: offsets are the converted file's */
	check_open(d, ebs_data__size(d) > file_size ? (size_t)ebs_data__size(d) : file_size);
	ebs_data__close(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd, p[2];

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	read_one(path, 0, size);
	read_one(path, EBS_DATA_UNFINISHED, size);
	close(fd);

	/* a stream: the whole input fits in the pipe, then its end is closed */
	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	if (fcntl(p[1], F_SETPIPE_SZ, (int)(size < 4096 ? 4096 : size)) >= (int)size &&
	    write(p[1], data, size) == (ssize_t)size) {
		close(p[1]);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
		read_one(path, EBS_DATA_UNFINISHED, size);
	} else {
		close(p[1]);
	}
	close(p[0]);
	return 0;
}
