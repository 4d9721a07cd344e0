// SPDX-License-Identifier: MIT
/*
 * debug.c - find a DSO's separate debug file, where gdb and perf look:
 *
 *   DIR/.build-id/xx/yyyy.debug      for each debug directory (--debug-dir
 *                                    ones first, then /usr/lib/debug)
 *   FILEDIR/LINK                     LINK from .gnu_debuglink, beside the file
 *   FILEDIR/.debug/LINK
 *   then for each debug directory:
 *   DIR/FILEDIR/LINK                 FILEDIR absolute, links resolved
 *   DIR/LINK                         directly in a --debug-dir
 *
 *   debuginfod                       last, for a file with a build-id: the debug
 *                                    file a server of $DEBUGINFOD_URLS sends
 *                                    (debuginfod.c)
 *
 * A candidate counts only when it carries DWARF and is the right one: the
 * same build-id when both have one, else the debuglink's CRC-32 of its
 * bytes.  Every place tried is remembered for `report --stats`.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symbolize/internal.h"

struct looked {
	char *buf;
	size_t len, cap;
	int err;
};

static void looked_add(struct looked *l, const char *path, const char *verdict)
{
	size_t need = strlen(path) + strlen(verdict) + 8;

	if (l->err)
		return;
	if (l->len + need > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		char *n;

		while (cap < l->len + need)
			cap *= 2;
		n = realloc(l->buf, cap);
		if (!n) {
			l->err = -ENOMEM;
			return;
		}
		l->buf = n;
		l->cap = cap;
	}
	l->len += (size_t)snprintf(l->buf + l->len, l->cap - l->len, "%s%s%s%s", l->len ? ", " : "",
				   path, verdict[0] ? " " : "", verdict);
}

/* CRC-32 (the zlib polynomial, as .gnu_debuglink uses) of a whole file. */
static int file_crc(int fd, u32 *out)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	if (n < 0)
		return -errno;
	*out = (u32)crc;
	return 0;
}

/*
 * Is path d's debug file?  A verdict for the looked list goes to verdict
 * ("" when the file is simply absent).
 */
/* 1: path is d's debug file; 0: it is not (verdict says why); -ENOMEM. */
static int try_candidate(struct dso *d, const char *path, bool by_link, const char **verdict)
{
	u8 id[20];
	u8 id_size = 0;
	bool has_dwarf = false, ok;
	struct stat st, self;
	u32 crc;
	int fd, e;

	*verdict = "";
	if (d->path && stat(path, &st) == 0 && stat(d->path, &self) == 0 &&
	    self.st_ino == st.st_ino && self.st_dev == st.st_dev)
		return false; /* the file itself (a debuglink naming its own file) */
	fd = ebs_open_input(path, NULL, &st, NULL);
	if (fd == -EBS_ENOTREG || fd == -EISDIR)
		*verdict = "(not a regular file)";
	if (fd < 0)
		return false;
	e = elf_fd__debug_facts(fd, id, &id_size, &has_dwarf);
	if (e == -ENOMEM) {
		close(fd);
		return e; /* not a verdict on the file */
	} else if (e) {
		*verdict = "(not ELF)";
		ok = false;
	} else if (!has_dwarf) {
		*verdict = "(no DWARF)";
		ok = false;
	} else if (d->build_id_size && id_size) {
		ok = id_size == d->build_id_size && !memcmp(id, d->build_id, id_size);
		if (!ok)
			*verdict = "(other build-id)";
	} else if (by_link) {
		ok = !file_crc(fd, &crc) && crc == d->debuglink_crc;
		if (!ok)
			*verdict = "(CRC mismatch)";
	} else {
		ok = false;
		*verdict = "(no build-id to check)";
	}
	close(fd);
	if (ok) { /* the debug file's own build-id keys its DWARF in the cache */
		d->debug_build_id_size = id_size;
		memcpy(d->debug_build_id, id, id_size);
	}
	return ok;
}

/* The absolute directory of path (its real one, links resolved), or NULL. */
static char *dir_of(const char *path)
{
	char *real = realpath(path, NULL), *slash;

	if (!real)
		return NULL;
	slash = strrchr(real, '/');
	if (slash && slash != real)
		*slash = '\0';
	else if (slash)
		slash[1] = '\0'; /* a file in / */
	return real;
}

int dso__find_debug(struct symbolizer *s, struct dso *d)
{
	char cand[PATH_MAX], hex[41];
	struct looked l = {0};
	const char *verdict;
	char *dir = NULL;
	bool found = false;
	size_t i, k;
	int r;

	/* by build-id: exact, whatever the file was called */
	ebs_format_hex(hex, sizeof(hex), d->build_id, d->build_id_size);
	for (k = 0; d->build_id_size > 1 && s->debug_dirs[k] && !found; k++) {
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", s->debug_dirs[k], hex,
			 hex + 2);
		found = (r = try_candidate(d, cand, false, &verdict)) > 0;
		looked_add(&l, cand, verdict);
		if (r < 0)
			goto oom;
	}
	/* by .gnu_debuglink: a name, in the usual places */
	if (!found && d->has_debuglink && d->path && (dir = dir_of(d->path))) {
		const char *const sub[] = {"", "/.debug"};

		for (i = 0; i < ARRAY_SIZE(sub) && !found; i++) {
			snprintf(cand, sizeof(cand), "%s%s/%s", dir, sub[i], d->debuglink);
			found = (r = try_candidate(d, cand, true, &verdict)) > 0;
			looked_add(&l, cand, verdict);
			if (r < 0)
				goto oom;
		}
		for (k = 0; s->debug_dirs[k] && !found; k++) {
			snprintf(cand, sizeof(cand), "%s%s/%s", s->debug_dirs[k], dir,
				 d->debuglink);
			found = (r = try_candidate(d, cand, true, &verdict)) > 0;
			looked_add(&l, cand, verdict);
			if (r < 0)
				goto oom;
			if (!found && s->debug_dirs[k + 1]) { /* a --debug-dir, not the default */
				snprintf(cand, sizeof(cand), "%s/%s", s->debug_dirs[k],
					 d->debuglink);
				found = (r = try_candidate(d, cand, true, &verdict)) > 0;
				looked_add(&l, cand, verdict);
				if (r < 0)
					goto oom;
			}
		}
	}
	free(dir);
	/* last, a debuginfod server (for a file without DWARF: dso__locate_debug) */
	if (!found && d->build_id_size > 1) {
		const char *name = d->path	     ? d->path
				   : d->symbols_from ? d->symbols_from
						     : "an image";
		const char *base = strrchr(name, '/');
		char what[300];

		snprintf(what, sizeof(what), "the debug file of %s", base ? base + 1 : name);
		r = debuginfod__find(s, DEBUGINFOD_DEBUGINFO, d->build_id, d->build_id_size, NULL,
				     what, cand, sizeof(cand), &verdict);
		if (r < 0)
			goto oom;
		if (r > 0 && (r = try_candidate(d, cand, false, &verdict)) < 0)
			goto oom;
		found = d->debug_fetched = r > 0;
		if (verdict)
			looked_add(&l, found ? cand : "debuginfod",
				   found ? "(from debuginfod)" : verdict);
	}
	if (l.err) {
		free(l.buf);
		return l.err;
	}
	d->looked = l.buf ? l.buf : strdup("");
	if (found && !(d->debug_path = strdup(cand)))
		return -ENOMEM;
	return d->looked ? 0 : -ENOMEM;
oom:
	free(dir);
	free(l.buf);
	return -ENOMEM;
}

/*
 * 1: path is the supplementary file with build-id id (id_size 0: any), or
 * with that checksum in its own .debug_sup (dwz -5); 0: not; -ENOMEM.
 */
static int try_alt(const char *path, const u8 *id, u8 id_size, const char **verdict)
{
	u8 got[20];
	u8 got_size = 0;
	bool has_dwarf = false;
	struct stat st;
	int fd, e;

	*verdict = "";
	fd = ebs_open_input(path, NULL, &st, NULL);
	if (fd == -EBS_ENOTREG || fd == -EISDIR)
		*verdict = "(not a regular file)";
	if (fd < 0)
		return 0;
	e = elf_fd__debug_facts(fd, got, &got_size, &has_dwarf);
	if (!e && !got_size) { /* dwz -5's file: its .debug_sup checksum */
		char none[2];

		if (elf_fd__altlink(fd, none, sizeof(none), got, &got_size) != 2)
			got_size = 0;
	}
	close(fd);
	if (e == -ENOMEM)
		return e;
	if (e)
		*verdict = "(not ELF)";
	else if (!has_dwarf)
		*verdict = "(no DWARF)";
	else if (id_size && (got_size != id_size || memcmp(got, id, id_size)))
		*verdict = "(other build-id)";
	else
		return 1;
	return 0;
}

int dwarf_alt_find(const char *dwarf_path, const char *name, const u8 *id, u8 id_size,
		   const char *const *debug_dirs, char *out, size_t out_len, struct ebs_error *err)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	struct looked l = {0};
	const char *verdict;
	char hex[41];
	int r = 0;
	size_t k;

	if (name[0] == '/') {
		snprintf(out, out_len, "%s", name);
	} else {
		const char *slash = strrchr(dwarf_path, '/');

		snprintf(out, out_len, "%.*s%s", slash ? (int)(slash - dwarf_path + 1) : 0,
			 dwarf_path, name);
	}
	r = try_alt(out, id, id_size, &verdict);
	looked_add(&l, out, verdict);
	for (k = 0; r == 0 && debug_dirs && debug_dirs[k]; k++) {
		/* a --debug-dir as a root for an absolute name (not /usr/lib/debug) */
		if (name[0] == '/' && debug_dirs[k + 1]) {
			snprintf(out, out_len, "%s%s", debug_dirs[k], name);
			r = try_alt(out, id, id_size, &verdict);
			looked_add(&l, out, verdict);
			if (r)
				break;
		}
		snprintf(out, out_len, "%s/.dwz/%s", debug_dirs[k], base);
		r = try_alt(out, id, id_size, &verdict);
		looked_add(&l, out, verdict);
		if (r || id_size < 2)
			continue;
		ebs_format_hex(hex, sizeof(hex), id, id_size);
		snprintf(out, out_len, "%s/.build-id/%.2s/%s.debug", debug_dirs[k], hex, hex + 2);
		r = try_alt(out, id, id_size, &verdict);
		looked_add(&l, out, verdict);
	}
	if (r == 0)
		ebs_error__fail(err, EBS_E_NO_DEBUG_INFO, "%s", l.buf ? l.buf : "");
	free(l.buf);
	return l.err && r == 0 ? l.err : r;
}
