// SPDX-License-Identifier: MIT
/*
 * debugframe.c - a DSO's .debug_frame, made into the .eh_frame form that
 * libunwind searches (unwind.c).
 *
 * Debian's libunwind for x86-64 is built without .debug_frame support, and
 * code compiled with -fno-asynchronous-unwind-tables has its CFI there
 * only.  libdwarf decodes the section (the CIEs' alignment factors, return
 * address register and initial instructions; each FDE's range and
 * instructions); here they are written out again as .eh_frame entries
 * (version 1 CIEs, augmentation "zR", addresses pc-relative 4-byte), after
 * a search table in .eh_frame_hdr's layout, the whole placed at a
 * link-time address of the DSO's that no segment uses.  The CFA
 * instructions are copied as they are: they do not depend on the format,
 * except DW_CFA_set_loc, whose operand's encoding changes; an FDE that
 * uses it (gcc and clang do not emit it) would be misread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/dwarf_compat.h"
#include "symbolize/internal.h"

struct out {
	u8 *b;
	size_t len, cap;
	bool nomem;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->nomem)
		return;
	if (o->len + n > o->cap) {
		size_t cap = (o->len + n) * 2 + 256;
		u8 *nb = realloc(o->b, cap);

		if (!nb) {
			o->nomem = true;
			return;
		}
		o->b = nb;
		o->cap = cap;
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void put_u8(struct out *o, u8 v)
{
	put(o, &v, 1);
}

static void put_u32(struct out *o, u32 v)
{
	put(o, &v, 4);
}

static void put_uleb(struct out *o, u64 v)
{
	do {
		u8 b = v & 0x7f;

		v >>= 7;
		put_u8(o, b | (v ? 0x80 : 0));
	} while (v);
}

static void put_sleb(struct out *o, s64 v)
{
	bool more;

	do {
		u8 b = v & 0x7f;

		v >>= 7; /* arithmetic on gcc and clang */
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		put_u8(o, b | (more ? 0x80 : 0));
	} while (more);
}

/* Patch the length word of the entry that starts at start, padding it to 4 with DW_CFA_nop. */
static void end_entry(struct out *o, size_t start)
{
	u32 len;

	while ((o->len - start) % 4)
		put_u8(o, DW_CFA_nop);
	if (o->nomem)
		return;
	len = (u32)(o->len - start - 4);
	memcpy(o->b + start, &len, 4);
}

struct fde_ent {
	u64 lo, len;
	size_t off; /* in the .eh_frame part */
};

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_ent *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int debug_frame__synth(const char *path, u64 base, struct cfi_table *t)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Cie *cies = NULL;
	Dwarf_Fde *fdes = NULL;
	Dwarf_Signed ncies = 0, nfdes = 0, i;
	struct out eh = {0}, hdr = {0};
	struct fde_ent *ents = NULL;
	size_t *cie_off = NULL, n = 0, k;
	struct stat st;
	int fd, r = -ENOENT;

	memset(t, 0, sizeof(*t));
	fd = ebs_open_input(path, NULL, &st, NULL);
	if (fd < 0)
		return fd;
	dwarf_set_de_alloc_flag(1); /* as eh_frame__fde_around: free what a failure leaves */
	if (dwarf_init_b(fd, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &err) != DW_DLV_OK ||
	    dwarf_get_fde_list(dbg, &cies, &ncies, &fdes, &nfdes, &err) != DW_DLV_OK)
		goto out;
	r = -ENOMEM;
	cie_off = calloc((size_t)ncies + 1, sizeof(*cie_off));
	ents = calloc((size_t)nfdes + 1, sizeof(*ents));
	if (!cie_off || !ents)
		goto out;
	/* the CIEs first, each as version 1 "zR" with pc-relative sdata4 addresses */
	for (i = 0; i < ncies; i++) {
		Dwarf_Unsigned bytes, code_align, ilen;
		Dwarf_Signed data_align;
		Dwarf_Half ra, offset_size;
		Dwarf_Small version;
		Ebs_Dwarf_Bytes insns;
		char *aug;
		size_t start = eh.len;

		cie_off[i] = SIZE_MAX;
		if (dwarf_get_cie_info_b(cies[i], &bytes, &version, &aug, &code_align, &data_align,
					 &ra, &insns, &ilen, &offset_size, &err) != DW_DLV_OK) {
			dwarf_dealloc_error(dbg, err);
			err = NULL;
			continue;
		}
		if ((aug && *aug) || ra > 255)
			continue; /* an augmentation .debug_frame does not define: not ours to copy
				   */
		cie_off[i] = start;
		put_u32(&eh, 0); /* length, patched */
		put_u32(&eh, 0); /* CIE id */
		put_u8(&eh, 1);	 /* version */
		put(&eh, "zR", 3);
		put_uleb(&eh, code_align);
		put_sleb(&eh, data_align);
		put_u8(&eh, (u8)ra);
		put_uleb(&eh, 1);
		put_u8(&eh, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
		put(&eh, insns, ilen);
		end_entry(&eh, start);
	}
	for (i = 0; i < nfdes; i++) {
		Dwarf_Addr lo;
		Dwarf_Unsigned flen, blen, ilen;
		Ebs_Dwarf_Bytes bytes, insns;
		Dwarf_Off coff, foff;
		Dwarf_Signed cidx;
		size_t start = eh.len;

		if (dwarf_get_fde_range(fdes[i], &lo, &flen, &bytes, &blen, &coff, &cidx, &foff,
					&err) != DW_DLV_OK ||
		    dwarf_get_fde_instr_bytes(fdes[i], &insns, &ilen, &err) != DW_DLV_OK) {
			dwarf_dealloc_error(dbg, err);
			err = NULL;
			continue;
		}
		/* pc-relative 4-byte addresses: the function must lie within 2 GiB of base */
		if (cidx < 0 || cidx >= ncies || cie_off[cidx] == SIZE_MAX || !flen ||
		    flen > UINT32_MAX || lo + (1ull << 30) < base || lo > base)
			continue;
		put_u32(&eh, 0);
		put_u32(&eh, (u32)(start + 4 - cie_off[cidx])); /* back to its CIE */
		ents[n].lo = lo;
		ents[n].len = flen;
		ents[n].off = start;
		n++;
		put_u32(&eh, 0); /* pc_begin, pc-relative: patched when the place is known */
		put_u32(&eh, (u32)flen);
		put_uleb(&eh, 0); /* no augmentation data */
		put(&eh, insns, ilen);
		end_entry(&eh, start);
	}
	if (eh.nomem)
		goto out;
	if (!n) {
		r = -ENOENT;
		goto out;
	}
	/* .eh_frame_hdr: version, encodings, eh_frame_ptr, fde_count, the table */
	qsort(ents, n, sizeof(*ents), fde_cmp);
	put_u8(&hdr, 1);
	put_u8(&hdr, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
	put_u8(&hdr, DW_EH_PE_udata4);
	put_u8(&hdr, DW_EH_PE_datarel | DW_EH_PE_sdata4);
	put_u32(&hdr, 0); /* eh_frame_ptr, below */
	put_u32(&hdr, (u32)n);
	for (k = 0; k < n; k++) {
		put_u32(&hdr, 0);
		put_u32(&hdr, 0);
	}
	if (hdr.nomem)
		goto out;
	/* one buffer: the header and table, then .eh_frame, at base */
	t->hdr_size = hdr.len;
	t->eh_size = eh.len;
	t->buf = malloc(hdr.len + eh.len);
	if (!t->buf)
		goto out;
	t->hdr_vaddr = base;
	t->eh_vaddr = base + hdr.len;
	t->table_vaddr = base + 12;
	t->fde_count = n;
	{
		u8 *h = t->buf, *e = t->buf + hdr.len;
		s32 v;

		memcpy(h, hdr.b, hdr.len);
		memcpy(e, eh.b, eh.len);
		v = (s32)(t->eh_vaddr - (base + 4));
		memcpy(h + 4, &v, 4);
		for (k = 0; k < n; k++) {
			u64 fde = t->eh_vaddr + ents[k].off;
			s32 pc = (s32)((s64)ents[k].lo - (s64)(fde + 8));

			memcpy(e + ents[k].off + 8, &pc, 4); /* pc_begin, relative to itself */
			v = (s32)((s64)ents[k].lo - (s64)base);
			memcpy(h + 12 + 8 * k, &v, 4);
			v = (s32)(fde - base);
			memcpy(h + 12 + 8 * k + 4, &v, 4);
		}
	}
	t->hdr = t->buf;
	t->eh = t->buf + hdr.len;
	r = 0;
out:
	if (err)
		dwarf_dealloc_error(dbg, err);
	if (cies || fdes)
		dwarf_dealloc_fde_cie_list(dbg, cies, ncies, fdes, nfdes);
	if (dbg)
		dwarf_finish(dbg);
	dwarf_set_de_alloc_flag(0);
	close(fd);
	free(cie_off);
	free(ents);
	free(eh.b);
	free(hdr.b);
	return r;
}
