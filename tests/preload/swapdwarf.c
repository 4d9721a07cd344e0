// SPDX-License-Identifier: MIT
/*
 * swapdwarf.c - preloaded into ebs by tests/integration/neighbours.sh: the
 * moment another user picks to change a file ebs reads, played on time.
 * At the first dwarf_init_b (libdwarf starts reading a file's DWARF) on a
 * file of SWAP_SIZE bytes, run SWAP_CMD (the other user rewriting that
 * file in place), once, then let libdwarf read.  ebs has hashed the file
 * by then, to find its entry in the DWARF cache: what libdwarf reads must
 * be what was hashed.
 *
 *   cc -shared -fPIC -I/usr/include/libdwarf -o swapdwarf.so swapdwarf.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <libdwarf.h>

static int done;

static void maybe_swap(int fd)
{
	const char *size = getenv("SWAP_SIZE"), *cmd = getenv("SWAP_CMD");
	struct stat st;

	if (done || !size || !cmd || fstat(fd, &st) || st.st_size != atoll(size))
		return;
	/* the test sees whether the file changed */
	done = system(cmd) == 0 ? 1 : 2;
}

#ifdef DW_DLC_READ /* libdwarf before 0.1: an access mode */
int dwarf_init_b(int fd, Dwarf_Unsigned access, unsigned int group, Dwarf_Handler h, Dwarf_Ptr arg,
		 Dwarf_Debug *dbg, Dwarf_Error *err)
{
	int (*real)(int, Dwarf_Unsigned, unsigned int, Dwarf_Handler, Dwarf_Ptr, Dwarf_Debug *,
		    Dwarf_Error *) = (int (*)())dlsym(RTLD_NEXT, "dwarf_init_b");

	maybe_swap(fd);
	return real(fd, access, group, h, arg, dbg, err);
}
#else
int dwarf_init_b(int fd, unsigned int group, Dwarf_Handler h, Dwarf_Ptr arg, Dwarf_Debug *dbg,
		 Dwarf_Error *err)
{
	int (*real)(int, unsigned int, Dwarf_Handler, Dwarf_Ptr, Dwarf_Debug *, Dwarf_Error *) =
		(int (*)())dlsym(RTLD_NEXT, "dwarf_init_b");

	maybe_swap(fd);
	return real(fd, group, h, arg, dbg, err);
}
#endif
