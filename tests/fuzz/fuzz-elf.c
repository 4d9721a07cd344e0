// SPDX-License-Identifier: MIT
/*
 * fuzz-elf.c - the symbolizer's ELF and DWARF loading (symbolize/): a
 * hostile binary at a recorded path, as `ebs report`, `annotate` and
 * `addr2line` meet it.  The input is written to a memfd and resolved by its
 * /proc/self/fd/N path: symbols, PT_LOAD segments, the DWARF line table and
 * inline chains (libdwarf), separate-debug-file search, .eh_frame; and once
 * more as an in-memory image (as the vdso is), through libelf's elf_memory.
 *
 * Addresses looked up: the ELF entry point, the start, middle and last
 * byte of the first symbols the loader kept, every line-table row of the
 * first ones, 0 and the top of the address space.  For each the source
 * span and the owner of its line are asked too, and for a few its code
 * bytes and the .eh_frame entry around it.
 *
 * Promises checked (symbolize.h): a lookup of a loaded file returns 0; its
 * strings are terminated; frames[0] is the file and line reported; the
 * function found covers the address; rows come within [lo, hi) in address
 * order within a unit; an FDE found covers its address.
 */
#include <elf.h>

#include "symbolize/internal.h"
#include "tests/fuzz/fuzz.h"

#define MAX_SYMS 8  /* symbols probed per input */
#define MAX_ROWS 16 /* line rows probed per input */

struct rows {
	u64 addr[MAX_ROWS];
	unsigned int n;
	u64 lo, hi, last;
};

static void check_result(const struct sym_result *r, u64 vaddr)
{
	unsigned int i;

	FUZZ_CHECK(r->dso && strlen(r->dso) < 4096, "no dso name");
	FUZZ_CHECK(r->nr_frames <= 64 && (r->nr_frames == 0) == (r->frames == NULL), "%u frames",
		   r->nr_frames);
	for (i = 0; i < r->nr_frames; i++) {
		const struct sym_frame *f = &r->frames[i];

		FUZZ_CHECK(!f->function || strlen(f->function) < (1u << 20), "frame %u", i);
		FUZZ_CHECK(!f->file || strlen(f->file) < (1u << 20), "frame %u", i);
	}
	if (r->nr_frames)
		FUZZ_CHECK(r->file == r->frames[0].file && r->line == r->frames[0].line,
			   "file:line is not frames[0]'s");
	if (r->function)
		FUZZ_CHECK(strlen(r->function) < (1u << 20) && r->sym_offset <= vaddr,
			   "function at offset %llu of %#llx", (unsigned long long)r->sym_offset,
			   (unsigned long long)vaddr);
}

static int take_row(void *ctx, const struct sym_row *row)
{
	struct rows *rs = ctx;

	FUZZ_CHECK(row->addr >= rs->lo && row->addr < rs->hi, "row %#llx outside [%#llx, %#llx)",
		   (unsigned long long)row->addr, (unsigned long long)rs->lo,
		   (unsigned long long)rs->hi);
	FUZZ_CHECK(!row->file || strlen(row->file) < (1u << 20), "row file");
	if (rs->n < MAX_ROWS)
		rs->addr[rs->n++] = row->addr;
	rs->last = row->addr;
	return 0;
}

/* Everything annotate and report ask of one address of a loaded DSO. */
static void probe(struct symbolizer *s, const struct sym_dso_info *info, const char *path,
		  u64 vaddr, bool few)
{
	struct sym_result r;
	struct sym_func f;
	struct sym_span span;
	unsigned char code[16];
	u64 lo, hi, next;
	enum sym_arch arch;
	int e;

	FUZZ_CHECK(symbolizer__lookup_in(s, info, vaddr, &r) == 0, "lookup_in %#llx",
		   (unsigned long long)vaddr);
	check_result(&r, vaddr);
	if (symbolizer__function(s, info, vaddr, &f) == 0)
		FUZZ_CHECK(f.name && f.start <= vaddr && vaddr < f.end,
			   "function [%#llx, %#llx) for %#llx", (unsigned long long)f.start,
			   (unsigned long long)f.end, (unsigned long long)vaddr);
	if (symbolizer__source_span(s, info, vaddr, &span) == 0)
		FUZZ_CHECK(span.first <= span.limit, "span %u..%u", span.first, span.limit);
	if (r.file && r.line)
		(void)symbolizer__line_owner(s, info, vaddr, r.file, r.line);
	if (!few) /* these open the file each time: a few per input */
		return;
	(void)symbolizer__code(s, info, vaddr, code, sizeof(code), &arch);
	e = eh_frame__fde_around(path, vaddr, &lo, &hi, &next);
	if (e == 1)
		FUZZ_CHECK(lo <= vaddr && vaddr < hi, "FDE [%#llx, %#llx) for %#llx",
			   (unsigned long long)lo, (unsigned long long)hi,
			   (unsigned long long)vaddr);
	else if (e == 0)
		FUZZ_CHECK(next > vaddr || next == UINT64_MAX, "next FDE %#llx at or below %#llx",
			   (unsigned long long)next, (unsigned long long)vaddr);
}

static u64 entry_point(const uint8_t *data, size_t size)
{
	Elf64_Ehdr eh;

	if (size < sizeof(eh))
		return 0;
	memcpy(&eh, data, sizeof(eh));
	return eh.e_entry;
}

static void by_path(const char *path, u64 entry)
{
	const char *dirs[] = {"/nonexistent", NULL}; /* no separate debug files of ours */
	struct symbolize_opts opts = {.debug_dirs = dirs,
				      .demangle = true,
				      .kallsyms = "/nonexistent",
				      .kcore = "/nonexistent"};
	struct symbolizer *s = symbolizer__new(&opts);
	struct rows rows = {.lo = 0, .hi = UINT64_MAX};
	const struct sym_dso_info *info;
	const struct dso *d;
	struct sym_result r;
	size_t i;
	int e;

	if (!s)
		return;
	e = symbolizer__lookup_file(s, path, entry, &r);
	FUZZ_CHECK(e == 0, "lookup_file returned %d", e);
	check_result(&r, entry);
	info = r.info;
	FUZZ_CHECK(info && info->path, "no DSO info");
	d = (const struct dso *)(const void *)((const char *)info - offsetof(struct dso, info));
	for (i = 0; i < d->symtab.nsyms && i < MAX_SYMS; i++) {
		const struct sym *sy = &d->symtab.syms[i];

		probe(s, info, path, sy->addr, i < 2);
		probe(s, info, path, sy->addr + (sy->end - sy->addr) / 2, false);
		probe(s, info, path, sy->end - 1, false);
	}
	if (symbolizer__rows(s, info, rows.lo, rows.hi, take_row, &rows) == 0)
		for (i = 0; i < rows.n; i++)
			probe(s, info, path, rows.addr[i], false);
	if (rows.n > 1) { /* a window: only rows inside it */
		rows.lo = rows.addr[0];
		rows.hi = rows.addr[rows.n / 2] + 1;
		rows.n = 0;
		(void)symbolizer__rows(s, info, rows.lo, rows.hi, take_row, &rows);
	}
	probe(s, info, path, 0, false);
	probe(s, info, path, UINT64_MAX, true);
	symbolizer__free(s);
}

/* The bytes as an in-memory image, the way a recorded vdso is read. */
static void by_image(const uint8_t *data, size_t size, u64 entry)
{
	struct symbolize_opts opts = {
		.demangle = true, .kallsyms = "/nonexistent", .kcore = "/nonexistent"};
	struct sym_map map = {.start = 0x7fff0000000, .len = 0x10000, .filename = "[vdso]"};
	struct symbolizer *s = symbolizer__new(&opts);
	struct sym_result r;
	void *image = malloc(size ? size : 1);
	int e;

	if (!s || !image || !size) { /* an empty image is a caller's error */
		free(image);
		symbolizer__free(s);
		return;
	}
	memcpy(image, data, size);
	map.image = image;
	map.image_size = size;
	e = symbolizer__lookup(s, &map, map.start + (entry & 0xffff), &r);
	FUZZ_CHECK(e == 0, "image lookup returned %d", e);
	check_result(&r, r.dso_addr); /* the link-time address it became */
	e = symbolizer__lookup(s, &map, map.start + map.len - 1, &r);
	FUZZ_CHECK(e == 0, "image lookup returned %d", e);
	check_result(&r, r.dso_addr);
	symbolizer__free(s);
	free(image);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	u64 entry = entry_point(data, size);
	int fd;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	by_path(path, entry);
	close(fd);
	by_image(data, size, entry);
	return 0;
}
