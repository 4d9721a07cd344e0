// SPDX-License-Identifier: MIT
/*
 * fix_stb.c - symbolization fixture from code no one here wrote: the
 * implementation of stb_image.h (Debian's libstb-dev), built with
 * STBI_ONLY_PNG to keep it small.  The header comes first, so the first
 * function of this unit's line program is the header's: gcc's DWARF 5 rows
 * before the program's first DW_LNS_set_file name file 1 (stb_image.h) by
 * the register's default, while file entry 0 is this file.  A reader that
 * starts the register at 0 names the wrong file (stbi__zhuffman_decode "in"
 * fix_stb.c).  Decodes the PNG given as argument; never run by the tests.
 */
#define STB_IMAGE_IMPLEMENTATION
#include "stb_image.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	int w, h, n;
	unsigned char *img;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.png\n", argv[0]);
		return 2;
	}
	img = stbi_load(argv[1], &w, &h, &n, 0);
	if (!img) {
		fprintf(stderr, "%s: %s\n", argv[1], stbi_failure_reason());
		return 1;
	}
	printf("%dx%d, %d channels\n", w, h, n);
	stbi_image_free(img);
	return 0;
}
