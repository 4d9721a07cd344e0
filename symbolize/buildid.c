// SPDX-License-Identifier: MIT
/* STUB of helper cache's build-id cache (no verification): dropped at the merge of main. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/symbolize.h"

struct buildid_cache {
	char dir[4096];
};

struct buildid_cache *buildid_cache__new(const char *dir, ebs_warn_fn *warn, void *warn_ctx)
{
	struct buildid_cache *c = calloc(1, sizeof(*c));
	const char *x = getenv("XDG_CACHE_HOME");

	(void)warn;
	(void)warn_ctx;
	if (!c)
		return NULL;
	if (dir)
		snprintf(c->dir, sizeof(c->dir), "%s", dir);
	else if (x && *x)
		snprintf(c->dir, sizeof(c->dir), "%s/ebs/buildid", x);
	else
		snprintf(c->dir, sizeof(c->dir), "%s/.cache/ebs/buildid", getenv("HOME"));
	return c;
}

void buildid_cache__free(struct buildid_cache *c)
{
	free(c);
}

const char *buildid_cache__dir(const struct buildid_cache *c)
{
	return c->dir;
}

s64 buildid_cache__add(struct buildid_cache *c, const char *path, const u8 *id, u8 id_size,
		       struct ebs_error *err)
{
	char dst[4200], cmd[8800];
	size_t n;
	int i;

	n = (size_t)snprintf(dst, sizeof(dst), "%s/.build-id/%02x/", c->dir, id[0]);
	for (i = 1; i < id_size; i++)
		n += (size_t)snprintf(dst + n, sizeof(dst) - n, "%02x", id[i]);
	int fdn = -1;

	if (sscanf(path, "/proc/self/fd/%d", &fdn) == 1)
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp /proc/%d/fd/%d '%s'",
			 dst, (int)getpid(), fdn, dst);
	else
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", dst,
			 path, dst);
	if (system(cmd))
		return ebs_error__set(err, EIO, "stub copy failed");
	return 1;
}
