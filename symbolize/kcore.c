// SPDX-License-Identifier: MIT
/*
 * kcore.c - kernel code for annotation: a kernel function's bounds from
 * kallsyms (it runs to the next symbol) and its bytes from /proc/kcore,
 * the running kernel's memory as an ELF core file whose PT_LOAD segments
 * map kernel virtual addresses to file offsets.  Readable by root only
 * (CAP_SYS_RAWIO), and absent from kernels built without CONFIG_PROC_KCORE.
 *
 * The file claims a size of the whole address space: only its ELF header
 * and program headers are read (into a buffer libelf parses), then the
 * bytes asked for, with pread.  Its contents are untrusted like any file's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "symbolize/internal.h"

#define KCORE_MAX_HEADERS (1u << 20) /* ehdr and phdrs; a real kcore has tens */

int symbolizer__kernel_function(struct symbolizer *s, u64 addr, struct sym_func *out)
{
	struct sym_result res;
	const struct ksym *ks;

	memset(out, 0, sizeof(*out));
	symbolizer__lookup_kernel(s, addr, &res); /* reads kallsyms once */
	if (!s->kernel || !(ks = kallsyms__find(s->kernel, addr)))
		return -ENOENT;
	out->name = ks->name;
	out->start = ks->addr;
	out->end = ks->end;
	return 0;
}

int symbolizer__kernel_stext(struct symbolizer *s, u64 *addr)
{
	struct sym_result res;

	symbolizer__lookup_kernel(s, 0, &res); /* loads kallsyms once */
	if (!s->kernel || !s->kernel->stext)
		return -ENOENT;
	*addr = s->kernel->stext;
	return 0;
}

/* Read exactly len bytes at off; 0 or -errno (-EIO at a short read). */
static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

int symbolizer__kernel_code(struct symbolizer *s, u64 addr, void *buf, size_t len)
{
	const char *path = s->kcore_path ? s->kcore_path : "/proc/kcore";
	Elf64_Ehdr eh;
	GElf_Phdr ph;
	size_t hlen, i, phnum = 0;
	char *hdr = NULL;
	Elf *elf = NULL;
	int fd, e = -ENOENT;

	if (!len || addr + len < addr)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the ELF header first: where the program headers are, and how many */
	e = pread_all(fd, &eh, sizeof(eh), 0);
	if (e)
		goto out;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > KCORE_MAX_HEADERS ||
	    (size_t)eh.e_phnum * sizeof(Elf64_Phdr) > KCORE_MAX_HEADERS) {
		e = -EINVAL; /* not a 64-bit core with sane headers */
		goto out;
	}
	hlen = (size_t)eh.e_phoff + (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
	hdr = malloc(hlen > sizeof(eh) ? hlen : sizeof(eh));
	if (!hdr) {
		e = -ENOMEM;
		goto out;
	}
	e = pread_all(fd, hdr, hlen, 0);
	if (e)
		goto out;
	elf = elf_memory(hdr, hlen);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum)) {
		e = -EINVAL;
		goto out;
	}
	e = -ENXIO; /* until a segment holds [addr, addr + len) */
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr < ph.p_vaddr || addr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (addr - ph.p_vaddr))
			continue;
		e = pread_all(fd, buf, len, (off_t)(ph.p_offset + (addr - ph.p_vaddr)));
		break;
	}
out:
	elf_end(elf);
	free(hdr);
	close(fd);
	return e;
}
