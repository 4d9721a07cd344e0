// SPDX-License-Identifier: MIT
/*
 * locate.c - where the file a mapping names is, in the order tried:
 *
 *   PATH                         the recorded path (SYMFS/PATH with --symfs)
 *   DIR/.build-id/xx/REST        by the recorded build-id, for each build-id
 *                                directory: the build-id cache, an archive's
 *                                files (the layout of /usr/lib/debug, whose
 *                                REST.debug beside it is the debug file)
 *   debuginfod                   the file a server of $DEBUGINFOD_URLS sends
 *                                for the build-id (debuginfod.c), in its
 *                                client cache
 *
 * A place counts only when its file is the one recorded: the same
 * build-id, else (at the recorded path only) the same inode.  A recording
 * without build-ids is looked up at its path alone.
 */
#include <errno.h>
#include <stdio.h>

#include "symbolize/internal.h"

int locate__next(struct symbolizer *s, const char *path, const struct sym_map *map,
		 struct locate_iter *it, char *out, size_t len)
{
	const char *base, *verdict;
	char hex[41];
	size_t k;
	int n;

	it->recorded_path = false;
	it->fetched = false;
	if (it->step == 0) {
		it->step++;
		it->recorded_path = !s->symfs;
		n = s->symfs ? snprintf(out, len, "%s%s", s->symfs, path)
			     : snprintf(out, len, "%s", path);
		return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 1;
	}
	if (!map || map->build_id_size < 2)
		return 0;
	ebs_format_hex(hex, sizeof(hex), map->build_id,
		       map->build_id_size < 20 ? map->build_id_size : 20);
	for (k = it->step - 1; s->buildid_dirs && s->buildid_dirs[k]; k++) {
		it->step = (unsigned int)k + 2;
		n = snprintf(out, len, "%s/.build-id/%.2s/%s", s->buildid_dirs[k], hex, hex + 2);
		if (n < 0 || (size_t)n >= len)
			continue; /* too long a directory: not there */
		return 1;
	}
	if (it->asked)
		return 0;
	it->asked = true;
	base = strrchr(path, '/');
	n = debuginfod__find(s, DEBUGINFOD_EXECUTABLE, map->build_id,
			     map->build_id_size < 20 ? map->build_id_size : 20, NULL,
			     base ? base + 1 : path, out, len, &verdict);
	it->fetched = n > 0;
	return n;
}
