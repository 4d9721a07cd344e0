// SPDX-License-Identifier: MIT
/*
 * source.c - the source-file cache of ebs annotate (source.h).
 *
 * A source file is text ebs did not write, at a path a binary named: it is
 * read only if it is a regular file (a FIFO at its path must not hang
 * annotate) of at most SOURCE_MAX_BYTES (nor a link to /dev/zero fill
 * memory), its control characters but tab and newline shown as '?' (nor
 * its text send the terminal escape sequences).  A file there but refused
 * is said once, in a warning; a file not there is not.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/source.h"
#include "util/hash.h"

struct source_ent {
	UT_hash_handle hh;
	struct source s; /* s.path is the key */
	char *path;
	char *buf;    /* the file's text, NULL when not read */
	char **lines; /* into buf */
	char *read_from;
};

struct source_cache {
	const char *const *dirs;
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	struct source_ent *ents;
};

struct source_cache *source_cache__new(const char *const *dirs,
				       void (*warn)(void *ctx, const char *msg), void *warn_ctx)
{
	struct source_cache *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->dirs = dirs;
	sc->warn = warn;
	sc->warn_ctx = warn_ctx;
	return sc;
}

static void ent_free(struct source_ent *e)
{
	free(e->path);
	free(e->buf);
	free(e->lines);
	free(e->read_from);
	free(e);
}

void source_cache__free(struct source_cache *sc)
{
	struct source_ent *e, *tmp;

	if (!sc)
		return;
	HASH_ITER(hh, sc->ents, e, tmp) {
		HASH_DEL(sc->ents, e);
		ent_free(e);
	}
	free(sc);
}

/* The text at path, cleaned; NULL when not there or refused (warned). */
static char *try_read(struct source_cache *sc, const char *path)
{
	char *buf = NULL, msg[PATH_MAX + 128];
	ssize_t n = ebs_read_file_max(path, SOURCE_MAX_BYTES, &buf);

	if (n >= 0)
		return ebs_clean_text(buf, true);
	if (n != -ENOENT && n != -ENOTDIR && sc->warn) {
		snprintf(msg, sizeof(msg), "%s: %s: its source lines are not shown", path,
			 n == -EFBIG ? "larger than 256 MiB" : ebs_read_strerror((int)n));
		sc->warn(sc->warn_ctx, ebs_clean_text(msg, false));
	}
	return NULL;
}

/*
 * Find e->path's text: through each of dirs, then as named.  0 (found or
 * not), or -ENOMEM.
 */
static int find(struct source_cache *sc, struct source_ent *e)
{
	const char *path = e->path, *at = NULL;
	const char *const *d = sc->dirs;
	char cand[8192];

	for (; d && *d && !e->buf; d++) {
		const char *eq = strchr(*d, '=');
		const char *base = strrchr(path, '/');

		if (eq) {
			size_t olen = (size_t)(eq - *d);

			if (!strncmp(path, *d, olen)) {
				snprintf(cand, sizeof(cand), "%s%s", eq + 1, path + olen);
				e->buf = try_read(sc, cand);
			}
		} else {
			snprintf(cand, sizeof(cand), "%s/%s", *d, path[0] == '/' ? path + 1 : path);
			e->buf = try_read(sc, cand);
			if (!e->buf && base) {
				snprintf(cand, sizeof(cand), "%s%s", *d, base);
				e->buf = try_read(sc, cand);
			}
		}
	}
	if (e->buf)
		at = cand;
	else if ((e->buf = try_read(sc, path)))
		at = path;
	if (at && !(e->read_from = strdup(at)))
		return -ENOMEM;
	return 0;
}

/* Split e->buf into its lines, in place; 0 or -ENOMEM. */
static int split(struct source_ent *e)
{
	char *p, *line = e->buf;
	u32 n = 0;

	for (p = e->buf; p && *p; p++)
		n += *p == '\n';
	if (!e->buf)
		return 0;
	e->lines = calloc((size_t)n + 2, sizeof(*e->lines));
	if (!e->lines)
		return -ENOMEM;
	while (line && *line) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		e->lines[e->s.nlines++] = line;
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int source_cache__get(struct source_cache *sc, const char *path, const struct source **out)
{
	struct source_ent *e;

	HASH_FIND_STR(sc->ents, path, e);
	if (e) {
		*out = &e->s;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path)))
		goto nomem;
	if (find(sc, e) || split(e))
		goto nomem;
	e->s.path = e->path;
	e->s.read_from = e->read_from;
	e->s.lines = (const char *const *)e->lines;
	HASH_ADD_KEYPTR(hh, sc->ents, e->path, strlen(e->path), e);
	if (!e->hh.tbl)
		goto nomem;
	*out = &e->s;
	return 0;

nomem:
	if (e)
		ent_free(e);
	return -ENOMEM;
}

int source_cache__line(struct source_cache *sc, const char *file, u32 line, const char **text)
{
	const struct source *s;
	int e;

	*text = NULL;
	if (!file)
		return 0;
	e = source_cache__get(sc, file, &s);
	if (e)
		return e;
	if (line && line <= s->nlines)
		*text = s->lines[line - 1];
	return 0;
}
