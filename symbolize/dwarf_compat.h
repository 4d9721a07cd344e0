/* SPDX-License-Identifier: MIT */
/*
 * dwarf_compat.h - libdwarf, with the current API on either of the two
 * that distributions ship.  symbolize/dwarf.c includes this, never
 * <libdwarf.h> itself, and is written to the current API (libdwarf 0.1.0
 * of July 2021 and later: Fedora, Arch, Debian 13, the 2.x line).  On
 * the API before it (dated versions, such as Debian 12's 20210528) the
 * calls that changed are mapped here to their old forms:
 *
 *   dwarf_init_b(fd, group, handler, arg, &dbg, &err)
 *                                 old: an access argument, DW_DLC_READ
 *   dwarf_finish(dbg)             old: a Dwarf_Error * too (ebs never read it)
 *   dwarf_dealloc_ranges          old: dwarf_ranges_dealloc
 *   dwarf_dealloc_fde_cie_list    old: dwarf_fde_cie_list_dealloc
 *   Ebs_Dwarf_Bytes               the byte pointers of dwarf_get_cie_info_b,
 *                                 dwarf_get_fde_range and
 *                                 dwarf_get_fde_instr_bytes: Dwarf_Small *,
 *                                 old: Dwarf_Ptr
 *
 * Everything else symbolize/ calls is the same in both, and so is what
 * each frees.  Which API is chosen at build time from the header: the old
 * one defines DW_DLC_READ, which 0.1.0 removed with the access argument
 * it was for.  Where the two differ in behaviour rather than in
 * declarations (the DWARF 5 line program's file register, fixed in
 * 0.5.0), dwarf.c asks the library it runs with: see
 * libdwarf_file_register_starts_at_0().
 *
 * The headers are found by the -I the Makefile gives (LIBDWARF_CFLAGS:
 * pkg-config's, or Debian 12's /usr/include/libdwarf), never by a
 * directory named here, so that a libdwarf given through PKG_CONFIG_PATH
 * wins over one installed in /usr/include.
 */
#ifndef EBS_SYMBOLIZE_DWARF_COMPAT_H
#define EBS_SYMBOLIZE_DWARF_COMPAT_H

#include <dwarf.h>
#include <libdwarf.h>

#ifdef DW_DLC_READ /* the API before libdwarf 0.1.0 */

static inline int ebs_dwarf_init_b(int fd, unsigned int group, Dwarf_Handler handler, Dwarf_Ptr arg,
				   Dwarf_Debug *dbg, Dwarf_Error *err)
{
	return dwarf_init_b(fd, DW_DLC_READ, group, handler, arg, dbg, err);
}

static inline int ebs_dwarf_finish(Dwarf_Debug dbg)
{
	Dwarf_Error err = NULL;

	return dwarf_finish(dbg, &err);
}

#define dwarf_init_b(fd, group, handler, arg, dbg, err)                                            \
	ebs_dwarf_init_b(fd, group, handler, arg, dbg, err)
#define dwarf_finish(dbg)	   ebs_dwarf_finish(dbg)
#define dwarf_dealloc_ranges	   dwarf_ranges_dealloc
#define dwarf_dealloc_fde_cie_list dwarf_fde_cie_list_dealloc
typedef Dwarf_Ptr Ebs_Dwarf_Bytes;
#else
typedef Dwarf_Small *Ebs_Dwarf_Bytes;
#endif

#endif
