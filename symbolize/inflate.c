// SPDX-License-Identifier: MIT
/*
 * inflate.c - a debug file's compressed sections, inflated once and kept
 * in the cache directory (cache.c) beside the decoded units
 * (dwarf_cache.c).
 *
 * Debian's separate debug files (libc6-dbg, the -dbgsym packages) have
 * their DWARF compressed (SHF_COMPRESSED, zlib).  libdwarf inflates a
 * section whole when it first reads it, so a report that must decode one
 * unit the cache lacks (samples in a part of libc no earlier report met)
 * inflated libc's 9 MB of DWARF again: 60 ms here, most of such a report.
 * So the first time, the file is copied into the cache with its sections
 * inflated (libelf's elf_compress, as eu-elfcompress -t none does), and
 * libdwarf reads that copy from then on.
 *
 * Entry HEX.v2.inflated, HEX the DWARF file's build-id: the copy, then a
 * trailer of 56 bytes: magic, the DWARF file's size and digest (the
 * SHA-256 of what decoding reads of it, sym_dwarf_digest, taken when the
 * DWARF was opened: a copy of another file with the same build-id is not
 * used), and the XXH64 of the copy's own bytes (a fault's check: the copy
 * is the caller's own file).  A copy that does not hold is not used, and
 * made again.  Only the file's ELF extent is copied (its headers and
 * sections: not a sparse tail of 16 GiB), and no copy is made of one whose
 * copy would be larger than a quarter of the cache or 1 GiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libdeflate.h>

#include "symbolize/dwarf_int.h"

#define INFL_MAGIC   "EBSINFL\n"
#define INFL_VERSION 2		  /* 2: the source's SHA-256 in the trailer */
#define INFL_MAX_DIV 4		  /* a copy may take a quarter of the cache at most */
#define INFL_MAX     (1ull << 30) /* and 1 GiB */
#define MAX_INFLATED 64		  /* sections libdeflate inflates; libelf the rest */

struct infl_trailer {
	char magic[8];
	u64 src_size;
	u8 src_digest[SYM_DIGEST_LEN];
	u64 body_hash; /* of the bytes before the trailer */
};
_Static_assert(sizeof(struct infl_trailer) == 56, "no padding in the trailer");

/*
 * Take [off, off + n * len) into *extent: where it ends, when later; size
 * + 1 when it does not lie inside the file's size bytes (n 0: nothing).
 */
static void extend(u64 *extent, u64 off, u64 n, u64 len, u64 size)
{
	u64 bytes, end;

	if (!n)
		return;
	if (__builtin_mul_overflow(n, len, &bytes) || off > size || bytes > size - off)
		end = size + 1;
	else
		end = off + bytes;
	if (end > *extent)
		*extent = end;
}

/* An unsigned integer of len bytes at p, in the file's byte order. */
static u64 get_n(const unsigned char *p, unsigned int len, bool msb)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v |= (u64)p[i] << (8 * (msb ? len - 1 - i : i));
	return v;
}

/*
 * Section sh's compression header, from the file on fd (its ELF header
 * eh), as gelf_getchdr gives it: gelf_getchdr reads the whole section for
 * it, which for libc's debug file was most of a warm report's first look
 * at it (4 MB read to learn the sizes).
 */
static bool read_chdr(int fd, const GElf_Ehdr *eh, const GElf_Shdr *sh, GElf_Chdr *ch)
{
	unsigned char b[sizeof(Elf64_Chdr)];
	bool c64 = eh->e_ident[EI_CLASS] == ELFCLASS64;
	bool msb = eh->e_ident[EI_DATA] == ELFDATA2MSB;
	size_t len = c64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);

	if (sh->sh_size < len || pread(fd, b, len, (off_t)sh->sh_offset) != (ssize_t)len)
		return false;
	/* Elf64_Chdr: type, reserved, size, addralign; Elf32_Chdr: type, size, addralign */
	ch->ch_type = (Elf64_Word)get_n(b, 4, msb);
	ch->ch_size = c64 ? get_n(b + 8, 8, msb) : get_n(b + 4, 4, msb);
	ch->ch_addralign = c64 ? get_n(b + 16, 8, msb) : get_n(b + 8, 4, msb);
	return true;
}

/*
 * Has the ELF file on fd (size bytes) a compressed .debug_ section?
 * *extent: where its last header or section ends (what a copy needs of
 * it); *inflated: the copy's size at most, with them inflated (the
 * compression headers' sizes).  False too for a file whose sections do
 * not all lie inside it.
 */
static bool has_compressed(int fd, u64 size, u64 *extent, u64 *inflated)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, shnum;
	bool any = false;
	GElf_Ehdr eh;
	Elf *e;

	*extent = *inflated = 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    elf_getshdrstrndx(e, &shstrndx) || elf_getshdrnum(e, &shnum)) {
		elf_end(e);
		return false;
	}
	/* the extent: every header and section; one outside the file: no copy */
	extend(extent, 0, 1, eh.e_ehsize, size);
	extend(extent, eh.e_phoff, eh.e_phnum, eh.e_phentsize, size);
	extend(extent, eh.e_shoff, shnum, eh.e_shentsize, size);
	while (*extent <= size && (scn = elf_nextscn(e, scn))) {
		const char *name;
		GElf_Chdr ch;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		extend(extent, sh.sh_offset, 1, sh.sh_size, size);
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_COMPRESSED) && name && !strncmp(name, ".debug_", 7) &&
		    read_chdr(fd, &eh, &sh, &ch)) {
			any = true;
			if (__builtin_add_overflow(*inflated, ch.ch_size, inflated))
				*inflated = UINT64_MAX;
		}
	}
	elf_end(e);
	if (__builtin_add_overflow(*inflated, *extent, inflated))
		*inflated = UINT64_MAX;
	return any && *extent <= size;
}

/*
 * Is the copy open on fd of the DWARF file di read, and (whole) are its
 * bytes those its trailer hashed?
 */
static bool copy_holds(const struct dwarf_info *di, int fd, u64 size, bool whole)
{
	struct infl_trailer t;
	u64 h;

	return size > sizeof(t) &&
	       pread(fd, &t, sizeof(t), (off_t)(size - sizeof(t))) == (ssize_t)sizeof(t) &&
	       !memcmp(t.magic, INFL_MAGIC, 8) && t.src_size == di->file_size &&
	       !memcmp(t.src_digest, di->digest, SYM_DIGEST_LEN) &&
	       (!whole || (!sym_hash_range(fd, size - sizeof(t), &h) && h == t.body_hash));
}

/*
 * The zlib streams of the compressed section scn (its data, Elf_Chdr
 * first) inflated by libdeflate into a new buffer of ch->ch_size bytes, its
 * address in *out: 1; 0 when libdeflate does not take them (another
 * compression, a ratio libelf refuses, data that does not inflate to
 * exactly ch_size bytes), which elf_compress is then left to judge; or
 * -ENOMEM.  libelf's own inflate (elf_compress, zlib) was most of a first
 * report's critical path: libdeflate inflates the same streams 2-3 times
 * faster when the size is known, as the header gives it.  What libelf
 * accepts is kept: one zlib stream or more, one after another, that fill
 * ch_size bytes exactly, at a ratio of 1032:1 at most (zlib's).
 */
static int inflate_fast(struct libdeflate_decompressor *z, Elf_Scn *scn, const GElf_Chdr *ch,
			size_t chdr_len, void **out)
{
	size_t in_len, at = 0, used, made;
	const unsigned char *in;
	Elf_Data *data;
	void *buf;

	*out = NULL;
	if (ch->ch_type != ELFCOMPRESS_ZLIB || !(data = elf_rawdata(scn, NULL)) || !data->d_buf ||
	    data->d_size < chdr_len || ch->ch_size > SIZE_MAX)
		return 0;
	in = (const unsigned char *)data->d_buf + chdr_len;
	in_len = data->d_size - chdr_len;
	if (ch->ch_size / 1032 > in_len)
		return 0;
	if (!(buf = malloc(ch->ch_size ? (size_t)ch->ch_size : 1)))
		return -ENOMEM;
	/* stream after stream, as libelf reads them, until the input ends */
	while (in_len) {
		if (libdeflate_zlib_decompress_ex(z, in, in_len, (char *)buf + at,
						  (size_t)ch->ch_size - at, &used,
						  &made) != LIBDEFLATE_SUCCESS) {
			free(buf);
			return 0;
		}
		in += used;
		in_len -= used;
		at += made;
	}
	if (at != ch->ch_size) {
		free(buf);
		return 0;
	}
	*out = buf;
	return 1;
}

/*
 * Section scn's data replaced by its inflated bytes (buf, ch->ch_size of
 * them), its header no longer compressed: what elf_compress(scn, 0, 0)
 * leaves, for elf_update to lay out and write.
 */
static int set_inflated(Elf_Scn *scn, GElf_Shdr *sh, const GElf_Chdr *ch, void *buf)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!data || elf_getdata(scn, data)) /* one data block, as read */
		return -EINVAL;
	data->d_buf = buf;
	data->d_size = ch->ch_size;
	data->d_type = ELF_T_BYTE;
	data->d_align = ch->ch_addralign;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch->ch_size;
	sh->sh_addralign = ch->ch_addralign;
	if (!gelf_update_shdr(scn, sh) || !elf_flagdata(data, ELF_C_SET, ELF_F_DIRTY) ||
	    !elf_flagshdr(scn, ELF_C_SET, ELF_F_DIRTY))
		return -EINVAL;
	return 0;
}

/*
 * The DWARF file's first extent bytes (its headers and sections) copied
 * onto fd (at 0), its compressed .debug_ sections inflated.
 */
static int write_copy(const struct dwarf_info *di, int fd, u64 extent, u64 *len)
{
	struct libdeflate_decompressor *z;
	void *bufs[MAX_INFLATED];
	unsigned int nbufs = 0, i;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	off_t in = 0, out = 0;
	struct stat st;
	ssize_t n;
	int r = 0;
	Elf *e;

	while ((u64)in < extent &&
	       (n = copy_file_range(di->fd, &in, fd, &out, extent - (u64)in, 0)) > 0)
		;
	if ((u64)in != extent) { /* no copy_file_range between these two: by hand */
		char buf[1 << 16];

		for (in = out; (u64)in < extent; in += n) {
			n = pread(di->fd, buf,
				  extent - (u64)in < sizeof(buf) ? (size_t)(extent - (u64)in)
								 : sizeof(buf),
				  in);
			if (n <= 0 || pwrite(fd, buf, (size_t)n, in) != n)
				return n < 0 || errno ? -errno : -EIO;
		}
	}
	if (!(z = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	e = elf_begin(fd, ELF_C_RDWR, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		r = -EINVAL;
	while (!r && (scn = elf_nextscn(e, scn))) {
		const char *name;
		GElf_Chdr ch;
		GElf_Shdr sh;
		void *buf;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7))
			continue;
		/* libdeflate where it takes the section, else libelf's elf_compress */
		r = nbufs < MAX_INFLATED && gelf_getchdr(scn, &ch)
			    ? inflate_fast(z, scn, &ch,
					   gelf_getclass(e) == ELFCLASS32 ? sizeof(Elf32_Chdr)
									  : sizeof(Elf64_Chdr),
					   &buf)
			    : 0;
		if (r > 0) {
			bufs[nbufs++] = buf;
			r = set_inflated(scn, &sh, &ch, buf);
		} else if (!r && elf_compress(scn, 0, 0) < 0) {
			r = -EINVAL;
		}
	}
	if (!r && elf_update(e, ELF_C_WRITE) < 0)
		r = -EINVAL;
	elf_end(e);
	for (i = 0; i < nbufs; i++)
		free(bufs[i]);
	libdeflate_free_decompressor(z);
	if (r)
		return r;
	if (fstat(fd, &st))
		return -errno;
	*len = (u64)st.st_size;
	return 0;
}

int dwarf_inflated(struct dwarf_info *di)
{
	char hex[41], name[80], tmp[160];
	struct infl_trailer t = {INFL_MAGIC, di->file_size, {0}, 0};
	u64 extent, inflated, len = 0;
	struct stat st;
	int fd, e;

	if (!di->cache || !di->build_id_size ||
	    !has_compressed(di->fd, di->file_size, &extent, &inflated) || inflated > INFL_MAX ||
	    inflated > sym_cache__max(di->cache) / INFL_MAX_DIV)
		return -ENOENT;
	memcpy(t.src_digest, di->digest, SYM_DIGEST_LEN);
	ebs_format_hex(hex, sizeof(hex), di->build_id, di->build_id_size);
	snprintf(name, sizeof(name), "%s.v%d.inflated", hex, INFL_VERSION);
	fd = sym_cache__open(di->cache, name, &st);
	if (fd >= 0 && copy_holds(di, fd, (u64)st.st_size, true)) {
		sym_cache__used(fd);
		goto use;
	}
	if (fd >= 0)
		close(fd);
	/* none, or one that does not hold: made (again) */
	fd = sym_cache__create(di->cache, name, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	e = write_copy(di, fd, extent, &len);
	if (!e)
		e = sym_hash_range(fd, len, &t.body_hash);
	if (!e && pwrite(fd, &t, sizeof(t), (off_t)len) != (ssize_t)sizeof(t))
		e = errno ? -errno : -EIO;
	if (e) {
		/* a file libelf could not rewrite is not a failure of the cache's */
		sym_cache__abort(di->cache, fd, tmp, e == -EINVAL ? 0 : -e);
		return e;
	}
	/* the descriptor goes with the commit: the copy is opened again, as any reader would */
	e = sym_cache__commit(di->cache, fd, tmp, name);
	if (e)
		return e;
	fd = sym_cache__open(di->cache, name, &st);
	if (fd < 0)
		return fd;
	/* just hashed as written; another run's, renamed over it since, is whole too */
	if (!copy_holds(di, fd, (u64)st.st_size, false)) {
		close(fd);
		return -EBADMSG;
	}
use:
	close(di->fd);
	di->fd = fd;
	return 0;
}
