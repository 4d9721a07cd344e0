// SPDX-License-Identifier: MIT
/*
 * digest.c - what the cache's entries (dwarf_cache.c, inflate.c) are of:
 * the SHA-256 of the parts of an ELF file that decoding its DWARF reads.
 *
 * An entry is found by the DWARF file's build-id, which anyone can copy
 * into a file of theirs; what says the entry is of these very bytes is
 * this digest.  It must be collision-resistant: XXH64, which keyed the
 * entries before, is not (one 32-byte stripe, solved, repairs any change:
 * tests/tools/xxforge.py), so another user could have root's report of
 * their program leave names of their choosing in the entry of root's.
 * SHA-256 from Nettle: libnettle is on every Debian system (apt's TLS
 * needs it), its sha256 allocates nothing and has no state outside the
 * caller's context, and it uses the CPU's SHA instructions where it has
 * them (as fast as OpenSSL's here).  OpenSSL's libcrypto, used before,
 * initialises itself on first use and crashed there (a NULL lock) when one
 * of its allocations failed: tests/integration/oom.sh found it.
 *
 * What is hashed is what the decoded DWARF depends on, not the file: the
 * ELF header, the section headers, and the bytes of the sections that
 * libdwarf reads when it opens the file or decodes a unit and that ebs
 * reads beside it (want_section); never the rest (code, data, a sparse
 * tail of 16 GiB).  Each part is hashed with its place and size.  There
 * are caps (DIGEST_SHDRS_MAX, DIGEST_MAX): a file over them is not kept
 * in the cache, only decoded.
 *
 * A file that someone other than the caller (or root) may write while it
 * is read could show the digest one content and libdwarf another.  So for
 * such a file (another user's, or writable by group or others, or on a
 * FUSE file system) the bytes hashed are also copied, at their places,
 * into a sparse memfd of the file's size, and libdwarf reads that: what
 * is decoded and kept is what was hashed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gelf.h>
#include <nettle/sha2.h>

#include "symbolize/internal.h"

#define DIGEST_MAX	 (1ull << 30) /* section bytes hashed, in all */
#define DIGEST_SHDRS_MAX (16u << 20)  /* the section header table */
#define DIGEST_CHUNK	 (1u << 20)
#define FUSE_MAGIC	 0x65735546 /* statfs's f_type of a FUSE file system */

/*
 * Does decoding the DWARF read this section?  The DWARF (.debug_*, and
 * .zdebug_* compressed the GNU way), and what libdwarf's ELF reader loads
 * when it opens a file: the section names (a STRTAB), the symbol tables
 * and their strings, every relocation section (by type, or by a .rel.
 * or .rela. name: libdwarf applies those that target DWARF, and one it
 * cannot read fails the file), groups (which sections go together), the
 * dynamic section.  A section whose name does not read is taken too.
 */
static bool want_section(const char *name, const GElf_Shdr *sh)
{
	switch (sh->sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_STRTAB:
	case SHT_REL:
	case SHT_RELA:
	case SHT_GROUP:
	case SHT_SYMTAB_SHNDX:
	case SHT_DYNAMIC:
		return true;
	default:
		break;
	}
	return !name || !strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8) ||
	       !strncmp(name, ".rel", 4);
}

struct digest {
	int fd, copy; /* the file; the memfd the parts are copied into, or -1 */
	u64 size;     /* of the file */
	struct sha256_ctx ctx;
	unsigned char *buf;
};

/* Hash (and copy) len bytes of the file at off, after their place and size. */
static int digest_part(struct digest *d, u64 off, u64 len)
{
	u64 head[2] = {off, len}, done = 0;

	if (off > d->size || len > d->size - off)
		return -EINVAL; /* not inside the file */
	sha256_update(&d->ctx, sizeof(head), (const uint8_t *)head);
	while (done < len) {
		size_t want = len - done < DIGEST_CHUNK ? (size_t)(len - done) : DIGEST_CHUNK;
		ssize_t n = pread(d->fd, d->buf, want, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO; /* cut short since it was opened */
		sha256_update(&d->ctx, (size_t)n, d->buf);
		if (d->copy >= 0 &&
		    pwrite(d->copy, d->buf, (size_t)n, (off_t)(off + done)) != (ssize_t)n)
			return errno ? -errno : -EIO;
		done += (u64)n;
	}
	return 0;
}

/*
 * The parts of the ELF file that d reads: its header, its section headers,
 * then each section want_section takes, in order.  Over the caps: -EFBIG
 * before a byte of the sections is read.
 */
static int digest_elf(struct digest *d, Elf *e)
{
	size_t shnum, shstrndx, i;
	GElf_Shdr sh, names;
	GElf_Ehdr eh;
	u64 total = 0;
	int e2;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getshdrnum(e, &shnum) ||
	    elf_getshdrstrndx(e, &shstrndx))
		return -ENOEXEC;
	if (shnum && eh.e_shentsize && (u64)shnum > DIGEST_SHDRS_MAX / eh.e_shentsize)
		return -EFBIG;
	/* elf_strptr reads the whole table of names: checked against the cap first */
	if (shstrndx) {
		if (!gelf_getshdr(elf_getscn(e, shstrndx), &names))
			return -ENOEXEC;
		if (names.sh_type != SHT_NOBITS && names.sh_size > DIGEST_MAX)
			return -EFBIG;
	}
	for (i = 1; i < shnum; i++) {
		if (!gelf_getshdr(elf_getscn(e, i), &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_NOBITS ||
		    !want_section(elf_strptr(e, shstrndx, sh.sh_name), &sh))
			continue;
		if (sh.sh_size > DIGEST_MAX - total)
			return -EFBIG;
		total += sh.sh_size;
	}
	e2 = digest_part(d, 0,
			 gelf_getclass(e) == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));
	if (!e2 && shnum)
		e2 = digest_part(d, eh.e_shoff, (u64)shnum * eh.e_shentsize);
	for (i = 1; i < shnum && !e2; i++) {
		if (!gelf_getshdr(elf_getscn(e, i), &sh))
			return -ENOEXEC;
		if (sh.sh_type != SHT_NOBITS && sh.sh_size &&
		    want_section(elf_strptr(e, shstrndx, sh.sh_name), &sh))
			e2 = digest_part(d, sh.sh_offset, sh.sh_size);
	}
	return e2;
}

/* May someone other than the caller and root change the file while it is read? */
static bool others_may_write(int fd, const struct stat *st)
{
	struct statfs fs;

	return (st->st_uid != 0 && st->st_uid != geteuid()) ||
	       (st->st_mode & (S_IWGRP | S_IWOTH)) || fstatfs(fd, &fs) || fs.f_type == FUSE_MAGIC;
}

int sym_dwarf_digest(int fd, int *copy, u8 out[SYM_DIGEST_LEN])
{
	struct digest d = {.fd = fd, .copy = -1};
	struct stat st;
	Elf *e = NULL;
	int err;

	*copy = -1;
	if (fstat(fd, &st))
		return -errno;
	d.size = (u64)st.st_size;
	sha256_init(&d.ctx);
	d.buf = malloc(DIGEST_CHUNK);
	if (!d.buf) {
		err = -ENOMEM;
		goto out;
	}
	if (others_may_write(fd, &st)) {
		d.copy = memfd_create("ebs-dwarf", MFD_CLOEXEC);
		if (d.copy < 0 || ftruncate(d.copy, st.st_size)) {
			err = -errno;
			goto out;
		}
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	err = e ? digest_elf(&d, e) : -ENOEXEC;
	if (!err)
		sha256_digest(&d.ctx, SYM_DIGEST_LEN, out);
out:
	elf_end(e);
	free(d.buf);
	if (d.copy >= 0 && err)
		close(d.copy);
	else if (d.copy >= 0)
		*copy = d.copy;
	return err;
}
