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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/annotate/source.h"
#include "util/hash.h"

/*
 * A file's text is not kept whole: SQLite's 9 MB amalgamation is 270,000
 * lines of which a listing shows a few hundred.  On first use the file is
 * read once through a small buffer (scan): its lines counted (as many as
 * a split of its text up to its first NUL byte gives) and where every
 * BLOCK_LINES-th line starts noted.  A line's text is read when first
 * asked for, with its block of BLOCK_LINES lines (load_block), from the
 * file still open, and kept until the cache is freed: cleaned as a whole
 * text would be (no UTF-8 sequence spans a newline).  At most MAX_OPEN
 * files are kept open; a file past that has all its blocks read at once
 * and is closed.
 */
#define BLOCK_LINES 128u
#define MAX_OPEN    64u
#define SCAN_BYTES  (128u << 10)

struct block {
	size_t len; /* of text */
	u32 n;	    /* lines */
	char *text; /* its lines, each NUL-terminated, cleaned */
	char *lines[BLOCK_LINES];
};

struct source_ent {
	UT_hash_handle hh;
	struct source s; /* s.path is the path part of the key */
	char *key;	 /* owner, then the path and its NUL */
	size_t key_len;
	bool found;	/* its text was read: s.nlines lines */
	int fd;		/* the file, kept open for its blocks; -1 when not */
	size_t *starts; /* where lines 1, BLOCK_LINES + 1, ... start; then the end */
	u32 nblocks;
	struct block **blocks; /* nblocks of them, NULL until read */
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
	char *scan_buf;	    /* SCAN_BYTES, for scan */
	unsigned int nopen; /* files kept open */
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
	u32 i;

	for (i = 0; e->blocks && i < e->nblocks; i++)
		free(e->blocks[i]);
	free(e->blocks);
	free(e->starts);
	if (e->fd >= 0)
		close(e->fd);
	free(e->key);
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
	free(sc->scan_buf);
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
 * Read fd's text through sc's buffer: count its lines, as a split of it up
 * to its first NUL byte gives them, into e->s.nlines, and note where every
 * BLOCK_LINES-th line starts (e->starts, e->nblocks).  Read to its end,
 * NUL or not: 0, or -EFBIG past SOURCE_MAX_BYTES, -errno of a read,
 * -ENOMEM.
 */
static int scan(struct source_cache *sc, struct source_ent *e, int fd)
{
	size_t off = 0, end = 0, nstarts = 1, cap = 64;
	u64 newlines = 0;
	bool nul = false;
	char last = '\n';
	ssize_t n;

	if (!sc->scan_buf && !(sc->scan_buf = malloc(SCAN_BYTES)))
		return -ENOMEM;
	e->starts = malloc(cap * sizeof(*e->starts));
	if (!e->starts)
		return -ENOMEM;
	e->starts[0] = 0;
	for (;;) {
		const char *p = sc->scan_buf, *z, *q, *stop;

		n = read(fd, sc->scan_buf, SCAN_BYTES);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		if (!nul) {
			z = memchr(p, '\0', (size_t)n);
			stop = z ? z : p + n;
			for (; (q = memchr(p, '\n', (size_t)(stop - p))); p = q + 1) {
				if (++newlines % BLOCK_LINES)
					continue;
				if (nstarts == cap && ebs_grow((void **)&e->starts, &cap, nstarts,
							       sizeof(*e->starts), 64))
					return -ENOMEM;
				e->starts[nstarts++] = off + (size_t)(q + 1 - sc->scan_buf);
			}
			if (stop > sc->scan_buf)
				last = stop[-1];
			nul = z != NULL;
			end = off + (size_t)(stop - sc->scan_buf);
		}
		off += (size_t)n;
		if (off > SOURCE_MAX_BYTES)
			return -EFBIG;
	}
	/* the last line needs no newline; an empty one after the last newline is none */
	e->s.nlines = (u32)(newlines + (end && last != '\n'));
	e->nblocks = (e->s.nlines + BLOCK_LINES - 1) / BLOCK_LINES;
	if (nstarts == cap && ebs_grow((void **)&e->starts, &cap, nstarts, sizeof(*e->starts), 1))
		return -ENOMEM;
	e->starts[e->nblocks] = end; /* (a start noted at the very end is no line's) */
	e->blocks = calloc(e->nblocks ? e->nblocks : 1, sizeof(*e->blocks));
	return e->blocks ? 0 : -ENOMEM;
}

/*
 * Block i of e's lines, read from e->fd when first asked for; NULL when
 * out of memory.  The file may have changed since scan: a block is what
 * is there now, its lines cleaned and no more than BLOCK_LINES of them,
 * fewer when it has shrunk.
 */
static struct block *load_block(struct source_ent *e, u32 i)
{
	size_t want = e->starts[i + 1] - e->starts[i], got = 0;
	struct block *b;
	char *p, *end, *nl;

	if (e->blocks[i])
		return e->blocks[i];
	b = malloc(sizeof(*b) + want + 1);
	if (!b)
		return NULL;
	b->text = (char *)(b + 1);
	while (got < want) {
		ssize_t n = pread(e->fd, b->text + got, want - got, (off_t)(e->starts[i] + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	b->text[got] = '\0';
	b->len = got;
	ebs_clean_mem(b->text, got, true); /* a NUL there now is a '?' */
	b->n = 0;
	for (p = b->text, end = p + got; p < end && b->n < BLOCK_LINES; p = nl ? nl + 1 : end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl)
			*nl = '\0';
		b->lines[b->n++] = p;
	}
	e->blocks[i] = b;
	return b;
}

/*
 * Read e's text at path (scan), whether everyone may read it into
 * e->s.private: true; false when not there or refused (warned, and the
 * first reason kept in e->why).
 */
static bool try_read(struct source_cache *sc, struct source_ent *e, const char *path,
		     const struct ebs_input_rule *rule)
{
	char msg[sizeof("warning: ") - 1 + 2 * PATH_MAX + 256];
	struct ebs_error why = {0};
	struct stat st;
	int n, fd;
	u32 i;

	fd = ebs_open_input(path, rule, &st, &why);
	if (fd == -ENOENT || fd == -ENOTDIR)
		return false;
	n = fd < 0 ? fd : scan(sc, e, fd);
	if (n >= 0)
		e->s.private = ebs_everyone_may_read(fd, path, &st, NULL) != 0;
	if (n >= 0 && sc->nopen < MAX_OPEN) {
		e->fd = fd; /* for its blocks */
		sc->nopen++;
		return true;
	}
	e->fd = fd;
	for (i = 0; n >= 0 && i < e->nblocks; i++) /* no more kept open: all of it now */
		if (!load_block(e, i))
			n = -ENOMEM;
	e->fd = -1;
	if (fd >= 0)
		close(fd);
	if (n >= 0)
		return true;
	free(e->starts); /* as not read */
	e->starts = NULL;
	for (i = 0; e->blocks && i < e->nblocks; i++)
		free(e->blocks[i]);
	free(e->blocks);
	e->blocks = NULL;
	e->nblocks = 0;
	e->s.nlines = 0;
	if (fd >= 0)
		ebs_error__set(&why, -n, "%s",
			       n == -EFBIG ? "is larger than 256 MiB" : strerror(-n));
	if (!e->why)
		e->why = strdup(why.msg); /* (out of memory: the warning still says why) */
	if (sc->warn) {
		snprintf(msg, sizeof(msg), "warning: %s: %s: its source lines are not shown", path,
			 why.msg);
		sc->warn(sc->warn_ctx, why.code, ebs_clean_text(msg, false));
	}
	return false;
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
	for (; d && *d && !e->found; d++) {
		const char *eq = strchr(*d, '=');
		const char *base = strrchr(path, '/');

		if (eq) {
			size_t olen = (size_t)(eq - *d);

			if (!strncmp(path, *d, olen)) {
				snprintf(cand, sizeof(cand), "%s%s", eq + 1, path + olen);
				e->found = try_read(sc, e, cand, &rule);
			}
		} else {
			snprintf(cand, sizeof(cand), "%s/%s", *d, path[0] == '/' ? path + 1 : path);
			e->found = try_read(sc, e, cand, &rule);
			if (!e->found && base) {
				snprintf(cand, sizeof(cand), "%s%s", *d, base);
				e->found = try_read(sc, e, cand, &rule);
			}
		}
	}
	if (e->found)
		at = cand;
	else if ((e->found = try_read(sc, e, path, &rule)))
		at = path;
	/* nowhere here (nor refused): from a debuginfod server, read by the same rule */
	if (!e->found && !e->why && sc->fetch) {
		int r = sc->fetch(sc->fetch_ctx, e->s.path, cand, sizeof(cand));

		if (r < 0)
			return r;
		if (r > 0 && (e->found = try_read(sc, e, cand, &rule)))
			at = cand;
	}
	if (at && !(e->read_from = strdup(at)))
		return -ENOMEM;
	if (e->read_from) /* as the path is shown */
		ebs_clean_text(e->read_from, false);
	if (e->found) { /* a refusal before it was found is not why it is not shown */
		free(e->why);
		e->why = NULL;
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
	e->fd = -1;
	if (find(sc, e, owner))
		goto nomem;
	e->s.read_from = e->read_from;
	e->s.why = e->why;
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

int source_cache__text(struct source_cache *sc, const struct source *s, u32 line, const char **text)
{
	struct source_ent *e = (struct source_ent *)((char *)s - offsetof(struct source_ent, s));
	const struct block *b;
	u32 i;

	(void)sc;
	*text = NULL;
	if (!e->found || !line || line > s->nlines)
		return 0;
	i = (line - 1) / BLOCK_LINES;
	b = e->blocks[i] ? e->blocks[i] : e->fd >= 0 ? load_block(e, i) : NULL;
	if (!b && e->fd >= 0)
		return -ENOMEM;
	if (b && (line - 1) % BLOCK_LINES < b->n)
		*text = b->lines[(line - 1) % BLOCK_LINES];
	return 0;
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
	return source_cache__text(sc, s, line, text);
}

const struct source *source_cache__of_text(const struct source_cache *sc, const char *text)
{
	const struct source_ent *e, *tmp;
	uintptr_t t = (uintptr_t)text;
	u32 i;

	if (!sc || !text)
		return NULL;
	HASH_ITER(hh, sc->ents, e, tmp)
		for (i = 0; e->found && i < e->nblocks; i++)
			if (e->blocks[i] && t >= (uintptr_t)e->blocks[i]->text &&
			    t <= (uintptr_t)e->blocks[i]->text + e->blocks[i]->len)
				return &e->s;
	return NULL;
}
