// SPDX-License-Identifier: MIT
/*
 * source.c - the source-file cache of ebs annotate (source.h).
 *
 * A source file is text ebs did not write, at a path a binary named: it is
 * read only if it is a regular file (a FIFO at its path must not hang
 * annotate, a device must not be opened at all) of at most
 * SOURCE_MAX_BYTES (nor a link to /dev/zero fill memory), its control
 * characters but tab and newline shown as '?' (nor its text send the
 * terminal escape sequences).  Whose binary named it matters too: a
 * program of nobody's built with `#line 1 "/etc/shadow"` and sampled by
 * root's `record -a` must not have root's annotate print /etc/shadow.  So
 * when the file whose DWARF names a source belongs to another user than
 * root or the caller, the source (wherever --source-dir leads) is read
 * only if it is owned by root or by that user, and that user may read it
 * (ebs_open_input's EBS_IN_OWNER).  A source found nowhere here may come
 * from a debuginfod server (source_cache__set_fetch), read by the same
 * rules from where the server's file was put.  Whoever's binary names it, a source
 * on a kernel file system (/proc, /sys, debugfs...) is not read either:
 * `#line 1 "/proc/kallsyms"` would show root's view of it, kernel
 * addresses and all, and /proc/self/maps root's own memory map
 * (EBS_IN_DISK).  A file there but refused is said once, in a warning,
 * and why is kept for the listing; a file not there is not said.  A file
 * read is marked private when not everyone may read it: annotate's page,
 * made to be shown, is then written 0600.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/annotate/source.h"
#include "util/hash.h"

struct source_ent {
	UT_hash_handle hh;
	struct source s; /* s.path is the path part of the key */
	char *key;	 /* owner, then the path and its NUL */
	size_t key_len;
	char *buf;    /* the file's text, NULL when not read */
	size_t len;   /* of buf */
	char **lines; /* into buf */
	char *read_from;
	char *why;
};

struct source_cache {
	const char *const *dirs;
	ebs_warn_fn *warn;
	void *warn_ctx;
	const char *(*open_name)(void *ctx, const char *path); /* NULL: path itself */
	void *names_ctx;
	int (*fetch)(void *ctx, const char *path, char *out, size_t len); /* NULL: none */
	void *fetch_ctx;
	struct source_ent *ents;
};

struct source_cache *source_cache__new(const char *const *dirs, ebs_warn_fn *warn, void *warn_ctx)
{
	struct source_cache *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->dirs = dirs;
	sc->warn = warn;
	sc->warn_ctx = warn_ctx;
	return sc;
}

void source_cache__set_names(struct source_cache *sc,
			     const char *(*open_name)(void *ctx, const char *path), void *ctx)
{
	sc->open_name = open_name;
	sc->names_ctx = ctx;
}

void source_cache__set_fetch(struct source_cache *sc,
			     int (*fetch)(void *ctx, const char *path, char *out, size_t len),
			     void *ctx)
{
	sc->fetch = fetch;
	sc->fetch_ctx = ctx;
}

static void ent_free(struct source_ent *e)
{
	free(e->key);
	free(e->buf);
	free(e->lines);
	free(e->read_from);
	free(e->why);
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

/*
 * The rule for a source named by the DWARF of a file of owner's: never on
 * a kernel file system; a file in a directory others can write must be
 * owned by root, us or owner and not be a link; when owner is another
 * user than root and us (or is not known), the file must be owned by root
 * or owner, who may read it.
 */
static void rule_for(uid_t owner, struct ebs_input_rule *r)
{
	r->flags = EBS_IN_SHARED | EBS_IN_DISK;
	r->owner = owner;
	r->owner_is = "the binary's owner";
	if (owner != 0 && owner != geteuid())
		r->flags |= EBS_IN_OWNER;
}

/*
 * The text at path, cleaned, its length in e->len and whether everyone may
 * read it in e->s.private; NULL when not there or refused (warned, and the
 * first reason kept in e->why).
 */
static char *try_read(struct source_cache *sc, struct source_ent *e, const char *path,
		      const struct ebs_input_rule *rule)
{
	char *buf = NULL, msg[sizeof("warning: ") - 1 + 2 * PATH_MAX + 256];
	struct ebs_error why = {0};
	struct stat st;
	ssize_t n;
	int fd;

	fd = ebs_open_input(path, rule, &st, &why);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return NULL;
	n = fd < 0 ? fd : ebs_read_fd(fd, SOURCE_MAX_BYTES, 0, &buf, NULL);
	if (n >= 0)
		e->s.private = ebs_everyone_may_read(fd, path, &st, NULL) != 0;
	if (fd >= 0)
		close(fd);
	if (n >= 0) {
		e->len = (size_t)n;
		return ebs_clean_text(buf, true);
	}
	if (fd >= 0)
		ebs_error__set(&why, (int)-n, "%s",
			       n == -EFBIG ? "is larger than 256 MiB" : strerror((int)-n));
	if (!e->why)
		e->why = strdup(why.msg); /* (out of memory: the warning still says why) */
	if (sc->warn) {
		snprintf(msg, sizeof(msg), "warning: %s: %s: its source lines are not shown", path,
			 why.msg);
		sc->warn(sc->warn_ctx, why.code, ebs_clean_text(msg, false));
	}
	return NULL;
}

/*
 * Find e's text (its path named by the DWARF of a file of owner's):
 * through each of dirs, then as named.  A path is shown with its control
 * characters as '?', and opened by its real name (open_name).  0 (found
 * or not), or -ENOMEM.
 */
static int find(struct source_cache *sc, struct source_ent *e, uid_t owner)
{
	const char *path = sc->open_name ? sc->open_name(sc->names_ctx, e->s.path) : e->s.path;
	const char *at = NULL;
	const char *const *d = sc->dirs;
	struct ebs_input_rule rule;
	char cand[8192];

	if (!path) { /* the names of two files come to this one: which is meant? */
		e->why = strdup("names one of several files whose names hold control characters "
				"(shown as '?'): not read");
		return e->why ? 0 : -ENOMEM;
	}
	rule_for(owner, &rule);
	for (; d && *d && !e->buf; d++) {
		const char *eq = strchr(*d, '=');
		const char *base = strrchr(path, '/');

		if (eq) {
			size_t olen = (size_t)(eq - *d);

			if (!strncmp(path, *d, olen)) {
				snprintf(cand, sizeof(cand), "%s%s", eq + 1, path + olen);
				e->buf = try_read(sc, e, cand, &rule);
			}
		} else {
			snprintf(cand, sizeof(cand), "%s/%s", *d, path[0] == '/' ? path + 1 : path);
			e->buf = try_read(sc, e, cand, &rule);
			if (!e->buf && base) {
				snprintf(cand, sizeof(cand), "%s%s", *d, base);
				e->buf = try_read(sc, e, cand, &rule);
			}
		}
	}
	if (e->buf)
		at = cand;
	else if ((e->buf = try_read(sc, e, path, &rule)))
		at = path;
	/* nowhere here (nor refused): from a debuginfod server, read by the same rule */
	if (!e->buf && !e->why && sc->fetch) {
		int r = sc->fetch(sc->fetch_ctx, e->s.path, cand, sizeof(cand));

		if (r < 0)
			return r;
		if (r > 0 && (e->buf = try_read(sc, e, cand, &rule)))
			at = cand;
	}
	if (at && !(e->read_from = strdup(at)))
		return -ENOMEM;
	if (e->read_from) /* as the path is shown */
		ebs_clean_text(e->read_from, false);
	if (e->buf) { /* a refusal before it was found is not why it is not shown */
		free(e->why);
		e->why = NULL;
	}
	return 0;
}

/* Split e->buf into its lines, in place; 0 or -ENOMEM. */
static int split(struct source_ent *e)
{
	char *p, *end, *line = e->buf;
	u32 n = 0;

	if (!e->buf)
		return 0;
	/* its newlines, up to its end (a NUL ends it) */
	for (p = e->buf, end = p + strlen(p); (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
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

int source_cache__get(struct source_cache *sc, const char *path, uid_t owner,
		      const struct source **out)
{
	size_t len = strlen(path), key_len = sizeof(owner) + len + 1;
	char stack[sizeof(owner) + PATH_MAX], *key = stack;
	struct source_ent *e = NULL;

	/* the key: whose DWARF named the file, then its name */
	if (key_len > sizeof(stack) && !(key = malloc(key_len)))
		return -ENOMEM;
	memcpy(key, &owner, sizeof(owner));
	memcpy(key + sizeof(owner), path, len + 1);
	HASH_FIND(hh, sc->ents, key, key_len, e);
	if (e) {
		if (key != stack)
			free(key);
		*out = &e->s;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto nomem;
	if (key == stack) {
		e->key = malloc(key_len);
		if (!e->key)
			goto nomem;
		memcpy(e->key, stack, key_len);
	} else {
		e->key = key; /* e's now */
		key = stack;
	}
	e->key_len = key_len;
	e->s.path = e->key + sizeof(owner);
	if (find(sc, e, owner) || split(e))
		goto nomem;
	e->s.read_from = e->read_from;
	e->s.why = e->why;
	e->s.lines = (const char *const *)e->lines;
	HASH_ADD_KEYPTR(hh, sc->ents, e->key, e->key_len, e);
	if (!e->hh.tbl)
		goto nomem;
	*out = &e->s;
	return 0;

nomem:
	if (key != stack)
		free(key);
	if (e)
		ent_free(e);
	return -ENOMEM;
}

int source_cache__line(struct source_cache *sc, const char *file, uid_t owner, u32 line,
		       const char **text)
{
	const struct source *s;
	int e;

	*text = NULL;
	if (!file)
		return 0;
	e = source_cache__get(sc, file, owner, &s);
	if (e)
		return e;
	if (line && line <= s->nlines)
		*text = s->lines[line - 1];
	return 0;
}

const struct source *source_cache__of_text(const struct source_cache *sc, const char *text)
{
	const struct source_ent *e, *tmp;
	uintptr_t t = (uintptr_t)text;

	if (!sc || !text)
		return NULL;
	HASH_ITER(hh, sc->ents, e, tmp)
		if (e->buf && t >= (uintptr_t)e->buf && t <= (uintptr_t)e->buf + e->len)
			return &e->s;
	return NULL;
}
