// SPDX-License-Identifier: MIT
/*
 * recopy.c - read an ebs.data file through ebs's reader and write it again
 * through ebs's writer, in the format this ebs writes; print a digest of
 * the records the reader handed out.  For the tests of the format's
 * versions (tests/integration/datafile.sh): a file of an older version is
 * written again as the current one, and the same samples must come back,
 * byte for byte (equal digests), and give the same reports.
 *
 * usage: recopy IN [OUT]
 *
 * Prints "records N digest HEX": N the data records read (packed samples
 * one by one, as the reader hands them out), HEX the FNV-1a hash of their
 * bytes in order.  The header records kept: META (keys 1 to 63), EVENT,
 * the [vdso] DSO_IMAGE, CALIBRATION; the trailer's end times and exit
 * status.  Exits 1 with one line on any error.
 */
#include <stdio.h>
#include <string.h>

#include "data/data.h"

static int fail(const char *what, const struct ebs_error *err)
{
	fprintf(stderr, "recopy: %s: %s\n", what, err->msg);
	return 1;
}

static int header(struct ebs_data *d, struct ebs_writer *w, struct ebs_error *err)
{
	const struct ebs_rec_dso_image *img = ebs_data__dso_image(d, "[vdso]");
	unsigned int i;
	u32 key;

	for (key = 1; key < 64; key++) {
		const char *v = ebs_data__meta(d, key);

		if (v && ebs_writer__meta(w, key, v))
			return fail("META", err);
	}
	for (i = 0; i < ebs_data__nr_events(d); i++) {
		const struct ebs_event_info *e = ebs_data__event(d, i);
		struct ebs_rec_event ev = *e->rec;

		if (ebs_writer__event(w, &ev, e->asked, e->used, e->why))
			return fail("EVENT", err);
	}
	if (img && ebs_writer__dso_image(w, img->name, img->image, img->image_size, img->build_id,
					 img->build_id_size))
		return fail("DSO_IMAGE", err);
	for (i = 0; i < ebs_data__nr_events(d); i++) {
		const struct ebs_rec_calibration *c = ebs_data__calibration(d, i);

		if (c && ebs_writer__calibration(w, c))
			return fail("CALIBRATION", err);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ebs_error err = {0};
	struct ebs_writer *w = NULL;
	const struct ebs_rec_trailer *t;
	const struct ebs_rec *rec;
	struct ebs_data *d;
	u64 h = 0xcbf29ce484222325ull, n = 0;
	size_t i;
	int e;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: recopy IN [OUT]\n");
		return 2;
	}
	d = ebs_data__open(argv[1], &err);
	if (!d)
		return fail(argv[1], &err);
	if (argc == 3) {
		const struct ebs_file_header *fh = ebs_data__header(d);

		w = ebs_writer__create(argv[2], &err);
		if (!w)
			return fail(argv[2], &err);
		if (header(d, w, &err) ||
		    ebs_writer__begin_data(w, fh->start_realtime_ns, fh->start_clock_ns))
			return fail("header", &err);
	}
	while ((e = ebs_data__next(d, &rec, &err)) > 0) {
		const u8 *b = (const void *)rec;

		for (i = 0; i < rec->size; i++)
			h = (h ^ b[i]) * 0x100000001b3ull;
		n++;
		if (w && ebs_writer__add(w, rec))
			return fail("a data record", &err);
	}
	if (e < 0)
		return fail(argv[1], &err);
	t = ebs_data__trailer(d);
	if (w) {
		if (t)
			ebs_writer__set_end(w, t->end_realtime_ns, t->end_clock_ns);
		if (ebs_writer__finish(w, t ? t->exit_status : -1, NULL, &err))
			return fail(argv[2], &err);
	}
	printf("records %llu digest %016llx\n", (unsigned long long)n, (unsigned long long)h);
	ebs_data__close(d);
	return 0;
}
