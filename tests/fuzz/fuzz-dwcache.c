// SPDX-License-Identifier: MIT
/*
 * fuzz-dwcache.c - the cache of decoded DWARF (symbolize/dwarf_cache.c): a
 * crafted or corrupt entry in the cache directory, as a report meets it.
 * The input is an entry; before it is put in place its key and its hashes
 * are made right (dwarf_cache_seal), so that the checks behind them are
 * what is tried, not the hashes.  The DWARF file it stands for is an ELF
 * header alone (no sections: no DWARF), with its digest: a unit the entry
 * cannot give fails, as a unit that does not decode.
 *
 * Each input is read as a report reads it: the index at open, then every
 * unit, through lookups at each span's start, middle and last byte, the
 * rows of each span, and the source span and line owner of each address
 * found; then the symbolizer is freed, which writes the entry again when a
 * part of it did not hold, and that entry is read back.
 *
 * Promises checked (dwarf_int.h, internal.h): a lookup returns at most the
 * frames asked for, with terminated strings free of control characters;
 * rows come within [lo, hi); an entry ebs writes is one it reads back whole
 * (every unit it kept loads).
 */
#include <elf.h>
#include <fcntl.h>

#include "symbolize/dwarf_int.h"
#include "tests/fuzz/fuzz.h"

#define MAX_FRAMES_ASKED 8
#define MAX_PROBES	 256 /* addresses probed per input */

static char dir[64], cache[96], empty[128];
static u8 empty_digest[SYM_DIGEST_LEN];
static struct sym_cache *cache_h;
static struct symbolizer *sym; /* for warnings only */
static const u8 key[20] = {0xeb, 0x5c, 0xac, 0x4e, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static void quiet(void *ctx, enum ebs_code code, const char *msg)
{
	(void)ctx;
	(void)code;
	(void)msg;
}

static void setup(void)
{
	struct symbolize_opts so = {.warn = quiet};
	Elf64_Ehdr eh = {
		.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
			    EV_CURRENT},
		.e_type = ET_DYN,
		.e_machine = EM_X86_64,
		.e_version = EV_CURRENT,
		.e_ehsize = sizeof(Elf64_Ehdr),
	};
	int fd, copy;

	snprintf(dir, sizeof(dir), "/tmp/ebs-fuzz-dwcache.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(cache, sizeof(cache), "%s/ebs", dir);
	snprintf(empty, sizeof(empty), "%s/dwarf", dir);
	sym = symbolizer__new(&so); /* libelf's version set */
	cache_h = sym ? sym_cache__new(sym, cache) : NULL;
	fd = open(empty, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (!cache_h || fd < 0 || write(fd, &eh, sizeof(eh)) != sizeof(eh) ||
	    sym_dwarf_digest(fd, &copy, empty_digest) || copy >= 0)
		abort();
	close(fd);
}

static void check_text(const char *s, const char *what)
{
	FUZZ_CHECK(!s || (strlen(s) < (1u << 20) && sym_text_is_clean(s)), "%s", what);
}

struct rows {
	u64 lo, hi;
	u64 found[16];
	unsigned int n;
};

static int take_row(void *ctx, const struct sym_row *row)
{
	struct rows *rs = ctx;

	FUZZ_CHECK(row->addr >= rs->lo && row->addr < rs->hi, "row %#llx outside [%#llx, %#llx)",
		   (unsigned long long)row->addr, (unsigned long long)rs->lo,
		   (unsigned long long)rs->hi);
	check_text(row->file, "row file");
	if (rs->n < 16)
		rs->found[rs->n++] = row->addr;
	return 0;
}

static void probe(struct dwarf_info *di, u64 addr)
{
	struct sym_frame frames[MAX_FRAMES_ASKED];
	struct sym_span span;
	int n, i;

	n = dwarf_info__lookup(di, addr, frames, MAX_FRAMES_ASKED);
	FUZZ_CHECK(n >= 0 && n <= MAX_FRAMES_ASKED, "%d frames", n);
	for (i = 0; i < n; i++) {
		check_text(frames[i].function, "frame function");
		check_text(frames[i].file, "frame file");
	}
	if (!dwarf_info__source_span(di, addr, &span)) {
		check_text(span.function, "span function");
		check_text(span.file, "span file");
		FUZZ_CHECK(span.file && span.first, "a span without a place");
	}
	if (n > 0 && frames[0].file)
		check_text(dwarf_info__line_owner(di, addr, frames[0].file, frames[0].line),
			   "line owner");
}

/* Read the entry in place as a report would; *probes counts the addresses asked. */
static struct dwarf_info *read_entry(unsigned int *probes)
{
	struct dwarf_cache_key k = {cache_h, key, sizeof(key), NULL};
	struct dwarf_info *di;
	struct ebs_error err = {0};
	size_t i;

	di = dwarf_info__open(empty, true, true, &k, &err);
	if (!di)
		return NULL; /* the entry did not hold, and the ELF header alone has no DWARF */
	for (i = 0; i < di->nspans && *probes < MAX_PROBES; i++) {
		const struct cu_span *sp = &di->spans[i];
		struct rows rs = {.lo = sp->lo, .hi = sp->hi};
		unsigned int j;

		probe(di, sp->lo);
		probe(di, sp->lo + (sp->hi - sp->lo) / 2);
		probe(di, sp->hi - 1);
		dwarf_info__rows(di, sp->lo, sp->hi, take_row, &rs);
		for (j = 0; j < rs.n; j++)
			probe(di, rs.found[j]);
		*probes += 3 + rs.n;
	}
	probe(di, 0);
	probe(di, UINT64_MAX);
	return di;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[128], path[256];
	unsigned int probes = 0;
	struct dwarf_info *di;
	unsigned char *buf;
	size_t i;
	int fd;

	if (!cache_h)
		setup();
	if (mkdir(cache, 0700) && errno != EEXIST)
		abort();
	dwarf_cache_entry_name(name, sizeof(name), key, sizeof(key), true);
	snprintf(path, sizeof(path), "%s/%s", cache, name);
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	dwarf_cache_seal(buf, size, key, sizeof(key), sizeof(Elf64_Ehdr), empty_digest, true);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
		abort();
	close(fd);
	free(buf);

	di = read_entry(&probes);
	dwarf_info__free(di); /* writes the entry anew where a part did not hold */

	/* what was written is read back whole: every unit it kept loads */
	di = read_entry(&probes);
	if (di) {
		for (i = 0; i < di->ncus; i++)
			FUZZ_CHECK(!di->cus[i].bad_block,
				   "unit %zu of an entry ebs wrote does not load", i);
		dwarf_info__free(di);
	}
	unlink(path);
	return 0;
}
