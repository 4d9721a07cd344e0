// SPDX-License-Identifier: MIT
/*
 * symbolize.c - the symbolizer object: the DSO cache, the per-mapping
 * shortcut into it, the per-address result cache, and the lookups.
 *
 * Two hash tables of the symbolizer:
 *   dsos  one struct dso per distinct file or image, keyed by build-id, by
 *         (dev, inode, mtime, path), or by (name, size, hash of the bytes).
 *         Each is loaded once, failures included.
 *   maps  one struct map_ent per distinct (filename, inode, device,
 *         build-id, image size, and for anonymous memory the pid) seen in a
 *         struct sym_map, pointing at its dso.  It saves a stat() and a key
 *         build per lookup, and owns the path and short-name strings that
 *         results borrow.
 * and one per DSO: the results by link-time address (addr_ent), so that the
 * symbol table, the line table and the inline chain are searched once per
 * distinct address however many samples land there.
 * Nothing is removed from any table before symbolizer__free(), which is
 * what keeps every returned string valid.
 *
 * Why one file of ~1,500 lines: the symbolizer object's three caches and
 * its lookups are one state with one set of invariants (which DSO a
 * mapping points to, which results a DSO owns); the DSO loading itself is
 * in file.c, elf.c and dwarf.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "symbolize/internal.h"

#define MAX_FRAMES 64 /* inline depth kept; deeper chains are cut */

struct map_ent {
	UT_hash_handle hh;
	struct dso *dso;
	char *path;	  /* copy of sym_map.filename: out->dso_path */
	const char *name; /* its short name, inside path or jit_name: out->dso */
	char *jit_name;	  /* "perf-PID.map" for JIT code, else NULL */
	/*
	 * An image's: the bytes dso was last checked against (map_ent__get),
	 * as a sym_map pointed at them.  Two images of one name and size share
	 * the entry, its dso that of the last checked.
	 */
	const void *checked;
	size_t key_len;
	unsigned char key[]; /* struct map_key, then the filename bytes */
};

/* Fixed part of a map_ent key; zeroed first so that padding compares equal. */
struct map_key {
	u64 ino;
	u64 image_size;
	u32 maj, min;
	u32 pid; /* anonymous memory only: whose perf-PID.map */
	u8 build_id_size;
	u8 build_id[20];
	u8 has_image;
	u8 pad[6];
};

_Static_assert(sizeof(struct map_key) == 56, "struct map_key has holes");

/* One resolved address of a DSO: what a lookup returns, kept. */
struct addr_ent {
	UT_hash_handle hh;
	u64 vaddr;
	u32 id;		      /* sym_result.id */
	const char *function; /* the symbol table's, or NULL */
	const char *mangled;  /* sym_result.mangled */
	u64 sym_offset;
	unsigned int nr_frames;
	bool bare;	       /* resolved without DWARF: symbolizer.frames_for said no */
	struct addr_ent *next; /* in dso.bare, once replaced */
	struct sym_frame frames[];
};

/* A slot of dso.front. */
struct addr_slot {
	u64 vaddr;
	struct addr_ent *a; /* NULL: empty */
};

/* Kinds of dso keys: the first byte of dso.key. */
enum {
	DSO_KEY_BUILD_ID = 'B',
	DSO_KEY_FILE = 'F',
	DSO_KEY_IMAGE = 'I',
	DSO_KEY_PSEUDO = 'P',
	DSO_KEY_JIT = 'J',
};

struct file_key {
	u64 dev, ino;
	s64 mtime_sec, mtime_nsec;
	u64 recorded_ino; /* the mapping's, which the file must match; 0: none */
};

struct image_key {
	u64 size;
	u64 hash;
};

void symbolizer__warn(struct symbolizer *s, enum ebs_code code, const char *fmt, ...)
{
	static const char head[] = "warning: ";
	char msg[sizeof(head) - 1 + 1024];
	va_list ap;

	if (!s->warn)
		return;
	/* One line, no escape, whatever a file name or libelf message contains. */
	memcpy(msg, head, sizeof(head) - 1);
	va_start(ap, fmt);
	ebs_vformat_line(msg + sizeof(head) - 1, 1024, fmt, ap);
	va_end(ap);
	s->warn(s->warn_ctx, code, msg);
}

/*
 * d cannot be used: say why, once, and keep the reason for
 * sym_dso_info.unusable.
 */
static void dso__fail(struct symbolizer *s, struct dso *d, enum ebs_code code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void dso__fail(struct symbolizer *s, struct dso *d, enum ebs_code code, const char *fmt, ...)
{
	va_list ap;

	d->failed = true;
	d->unusable_code = code;
	va_start(ap, fmt);
	ebs_vformat_line(d->unusable, sizeof(d->unusable), fmt, ap);
	va_end(ap);
	symbolizer__warn(s, code, "%s", d->unusable);
}

/* strdup, or NULL with a warning naming what was being copied. */
static char *dso_strdup(struct symbolizer *s, const char *str)
{
	char *r = strdup(str);

	if (!r)
		symbolizer__warn(s, EBS_E_NOMEM, "%s: out of memory", str);
	return r;
}

/*
 * A NULL-terminated copy of dirs, then of more, then symfs's /usr/lib/debug
 * (symfs not NULL), then /usr/lib/debug (more not NULL: a list of debug
 * directories, whose last is the default); NULL when out of memory.
 */
static char **copy_dirs(const char *const *dirs, const char *const *more, const char *symfs)
{
	size_t n = 0, m = 0, i = 0, k;
	bool debug = more || symfs;
	char **v;

	while (dirs && dirs[n])
		n++;
	while (more && more[m])
		m++;
	v = calloc(n + m + 3, sizeof(*v));
	if (!v)
		return NULL;
	for (k = 0; k < n; k++)
		if (!(v[i++] = strdup(dirs[k])))
			goto fail;
	for (k = 0; k < m; k++)
		if (!(v[i++] = strdup(more[k])))
			goto fail;
	if (symfs) {
		if (asprintf(&v[i], "%s/usr/lib/debug", symfs) < 0) {
			v[i] = NULL;
			goto fail;
		}
		i++;
	}
	if (debug && !(v[i++] = strdup("/usr/lib/debug")))
		goto fail;
	return v;
fail:
	while (i--)
		free(v[i]);
	free(v);
	return NULL;
}

/* The debug directories: the options' (--debug-dir), the build-id ones, then the default. */
static char **copy_debug_dirs(const char *const *dirs, const char *const *buildid_dirs,
			      const char *symfs)
{
	static const char *const none[] = {NULL};

	return copy_dirs(dirs, buildid_dirs ? buildid_dirs : none, symfs);
}

/*
 * Decoding a large unit's DWARF fills tens of MiB of fresh heap with small
 * blocks (libdwarf callocs each line-table row), and on a VM each first
 * touch of a 4 KiB page is a costly fault: of a cold annotate of SQLite,
 * a quarter of the CPU time was page faults under libdwarf's callocs, and
 * as much again malloc's TLB misses.  So before the first DWARF is read,
 * the main arena (glibc's brk heap) is grown by HEAP_PAD of address space,
 * kept (M_TOP_PAD: not trimmed below it, grown by it; a trim threshold
 * instead lets the first large free give it back) and advised to be
 * backed by transparent huge pages (which THP's default "madvise" mode
 * honours): -25 % CPU for a cold report of SQLite, the peak RSS a few
 * MiB more.  Address space only, a page is memory once touched; so not
 * under a limit of address space (RLIMIT_AS) or of commit (overcommit
 * mode 2), which it could make ebs reach sooner.  Best effort: nothing
 * changes when malloc is not glibc's brk heap (a sanitizer's), on a
 * kernel without THP, or when the main thread does not read the DWARF
 * first (other threads allocate from their arenas).
 */
#define HEAP_PAD  (256ul << 20)
#define HUGE_PAGE (2ul << 20) /* x86-64's and arm64's (4 KiB pages) PMD size */

/* Does the kernel refuse to commit more than it has (vm.overcommit_memory 2)? */
static bool strict_commit(void)
{
	char c = 0;
	int fd = open("/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '2';
}

static void heap_for_dwarf(void)
{
	struct rlimit rl;
	void *blk[32];
	char *lo, *hi;
	uintptr_t a, b;
	size_t n = 0, i;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur != RLIM_INFINITY || strict_commit() ||
	    !mallopt(M_TOP_PAD, (int)HEAP_PAD))
		return;
	/* take blocks of the top chunk until malloc extends it, by HEAP_PAD */
	lo = sbrk(0);
	while (n < ARRAY_SIZE(blk) && (char *)sbrk(0) == lo && (blk[n] = malloc(64 << 10)))
		n++;
	for (i = 0; i < n; i++)
		free(blk[i]);
	hi = sbrk(0);
	a = ((uintptr_t)lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	b = (uintptr_t)hi & ~(HUGE_PAGE - 1);
	if (lo != (char *)-1 && b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

static pthread_once_t heap_once = PTHREAD_ONCE_INIT;

/* heap_for_dwarf once, from the main thread (whose arena is the brk heap) */
static void heap_ready(void)
{
	if (gettid() == getpid())
		pthread_once(&heap_once, heap_for_dwarf);
}

struct symbolizer *symbolizer__new(const struct symbolize_opts *opts)
{
	static const struct symbolize_opts none;
	struct symbolizer *s;

	/* Sets libelf's expected version; harmless to repeat. */
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOTSUP;
		return NULL;
	}
	if (!opts)
		opts = &none;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->demangle = opts->demangle;
	s->no_dwarf = opts->no_dwarf;
	s->no_lines = opts->no_lines;
	s->frames_for = opts->frames_for;
	s->frames_ctx = opts->frames_ctx;
	s->warn = opts->warn;
	s->warn_ctx = opts->warn_ctx;
	s->offline = opts->offline;
	s->progress = opts->progress;
	s->progress_ctx = opts->progress_ctx;
	if ((opts->symfs && !(s->symfs = strdup(opts->symfs))) ||
	    !(s->buildid_dirs = copy_dirs(opts->buildid_dirs, NULL, NULL)) ||
	    (opts->kallsyms && !(s->kallsyms_path = strdup(opts->kallsyms))) ||
	    (opts->kcore && !(s->kcore_path = strdup(opts->kcore))) ||
	    !(s->perf_map_dir = strdup(opts->perf_map_dir ? opts->perf_map_dir : "/tmp")) ||
	    !(s->debug_dirs = copy_debug_dirs(opts->debug_dirs, opts->buildid_dirs, opts->symfs))) {
		symbolizer__free(s);
		errno = ENOMEM;
		return NULL;
	}
	/* none (EBS_CACHE_MAX=0, no HOME, no memory): as without it */
	if (opts->cache && !opts->no_dwarf)
		s->cache = sym_cache__new(s, opts->cache_dir);
	return s;
}

static void dso__free(struct dso *d)
{
	struct addr_ent *a, *tmp;

	if (!d)
		return;
	HASH_ITER(hh, d->cache, a, tmp) {
		HASH_DEL(d->cache, a);
		free(a);
	}
	while ((a = d->bare)) {
		d->bare = a->next;
		free(a);
	}
	free(d->front);
	dwarf_info__free(d->dwarf);
	dso_cfi__free(d->cfi);
	symtab__exit(&d->symtab);
	gopcln__free(d->gopcln);
	free(d->segs);
	free(d->image);
	free(d->path);
	free(d->debug_path);
	free(d->symbols_from);
	free(d->looked);
	ebs_strset__free(&d->shown);
	free(d->key);
	free(d->id_key);
	free(d);
}

static void prefetch_drop(struct prefetch *p);

void symbolizer__free(struct symbolizer *s)
{
	struct map_ent *m, *mtmp;
	struct dso *d, *dtmp;
	size_t i;

	if (!s)
		return;
	prefetch_drop(s->deferred);
	HASH_ITER(hh, s->maps, m, mtmp) {
		HASH_DEL(s->maps, m);
		free(m->path);
		free(m->jit_name);
		free(m);
	}
	HASH_CLEAR(hh_id, s->dsos_by_id); /* the same dsos, freed below */
	HASH_ITER(hh, s->dsos, d, dtmp) {
		HASH_DEL(s->dsos, d);
		dso__free(d);
	}
	symbolizer__unwind_exit(s);
	debuginfod__free(s->debuginfod);
	sym_cache__free(s->cache); /* after the DSOs: their DWARF is written back there */
	symbolizer__use_kernel(s, NULL);
	kallsyms_preload__free(s->kpre);
	kallsyms__free(s->kernel);
	for (i = 0; i < s->nktables; i++)
		kallsyms__free(s->ktables[i]);
	free(s->ktables);
	ebs_strset__free(&s->knames);
	free(s->keybuf);
	free(s->kallsyms_path);
	free(s->kcore_path);
	free(s->perf_map_dir);
	for (i = 0; s->debug_dirs && s->debug_dirs[i]; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	for (i = 0; s->buildid_dirs && s->buildid_dirs[i]; i++)
		free(s->buildid_dirs[i]);
	free(s->buildid_dirs);
	free(s->symfs);
	free(s);
}

/*
 * Names the kernel gives memory that no file holds, though they start with
 * '/': a memfd ("/memfd:NAME (deleted)"), shared anonymous memory
 * ("/dev/zero (deleted)"), huge pages, SysV shared memory ("/SYSV%08x").
 * Nothing at that path is the mapping's: it is not looked for.
 */
static bool is_fileless(const char *filename)
{
	return !strncmp(filename, "/memfd:", 7) || !strncmp(filename, "/dev/zero", 9) ||
	       !strncmp(filename, "/anon_hugepage", 14) || !strncmp(filename, "/SYSV", 5);
}

/* "[vdso]", "//anon", "[heap]", "/memfd:x (deleted)", "" ...: names that are not paths. */
static bool is_pseudo(const char *filename)
{
	return filename[0] != '/' || filename[1] == '/' || is_fileless(filename);
}

static bool is_kernel(const char *filename)
{
	return !strncmp(filename, "[kernel.kallsyms]", sizeof("[kernel.kallsyms]") - 1);
}

/* Basename of a path; a pseudo-name is its own short name. */
static const char *short_name(const char *path)
{
	const char *slash;

	if (is_pseudo(path))
		return path;
	slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

static u64 fnv1a64(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	u64 h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* A malloc'd dso key: kind, fixed part, then str (without its NUL). */
static void *dso_key_new(int kind, const void *fixed, size_t fixed_len, const char *str,
			 size_t *key_len)
{
	size_t slen = str ? strlen(str) : 0;
	unsigned char *k;

	k = malloc(1 + fixed_len + slen);
	if (!k)
		return NULL;
	k[0] = (unsigned char)kind;
	if (fixed_len)
		memcpy(k + 1, fixed, fixed_len);
	if (slen)
		memcpy(k + 1 + fixed_len, str, slen);
	*key_len = 1 + fixed_len + slen;
	return k;
}

/*
 * Find the dso for key, or insert a new, not yet loaded one (*fresh set).
 * Takes ownership of key.  NULL when out of memory.
 */
static struct dso *dso_cache__get(struct symbolizer *s, void *key, size_t key_len, bool *fresh)
{
	struct dso *d;

	*fresh = false;
	if (!key)
		return NULL;
	HASH_FIND(hh, s->dsos, key, key_len, d);
	if (d) {
		free(key);
		return d;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		free(key);
		return NULL;
	}
	d->key = key;
	d->key_len = key_len;
	HASH_ADD_KEYPTR(hh, s->dsos, d->key, d->key_len, d);
	if (!d->hh.tbl) {
		dso__free(d);
		return NULL;
	}
	*fresh = true;
	return d;
}

/*
 * Is the file d was loaded from the one map recorded?  By build-id when the
 * recording has one (then a file without one is another file); else by
 * inode, when the recording has that (the format records no size or mtime).
 * Nothing recorded: taken on trust.  True, or false with the reason in why.
 */
static bool dso__is_recorded(const struct dso *d, const struct sym_map *map, struct ebs_error *why)
{
	char want[41], got[41];
	u8 len = map->build_id_size < 20 ? map->build_id_size : 20;

	if (len) {
		ebs_format_hex(want, sizeof(want), map->build_id, len);
		if (!d->build_id_size) {
			ebs_error__fail(why, EBS_E_NO_BUILD_ID_MATCH,
					"no build-id, the recorded file had %s", want);
			return false;
		}
		if (d->build_id_size != len || memcmp(map->build_id, d->build_id, len)) {
			ebs_format_hex(got, sizeof(got), d->build_id, d->build_id_size);
			ebs_error__fail(why, EBS_E_NO_BUILD_ID_MATCH,
					"build-id %s differs from the recorded %s", got, want);
			return false;
		}
		return true;
	}
	if (map->ino && d->st_ino && d->st_ino != map->ino) {
		ebs_error__fail(why, EBS_E_NO_INODE_MATCH,
				"inode %llu differs from the recorded %llu",
				(unsigned long long)d->st_ino, (unsigned long long)map->ino);
		return false;
	}
	return true;
}

/* After a successful load: the notes worth one line each. */
static void dso__check(struct symbolizer *s, const struct dso *d, const struct sym_map *map,
		       const char *what, const struct ebs_error *why)
{
	if (map->build_id_size && d->build_id_size &&
	    (map->build_id_size != d->build_id_size ||
	     memcmp(map->build_id, d->build_id, d->build_id_size))) {
		char want[41], got[41];

		ebs_format_hex(want, sizeof(want), map->build_id,
			       map->build_id_size < 20 ? map->build_id_size : 20);
		ebs_format_hex(got, sizeof(got), d->build_id, d->build_id_size);
		symbolizer__warn(
			s, EBS_E_NO_BUILD_ID_MATCH,
			"%s: build-id %s differs from the recorded %s: symbols may be wrong", what,
			got, want);
	}
	if (!d->symtab.nsyms)
		symbolizer__warn(s, EBS_E_NO_SYMBOLS, "%s: no symbols (%s)", what,
				 why->msg[0] ? why->msg : "empty symbol table");
}

/*
 * A path as info shows it: itself, or (when it holds a control character)
 * its copy with them as '?', which lives as long as d.  d's own paths stay
 * as they are: they are opened.
 */
static const char *dso__shown(struct dso *d, const char *path)
{
	const char *c;

	if (!path || ebs_text_is_clean(path))
		return path;
	c = ebs_strset__intern_clean(&d->shown, path);
	return c ? c : "?"; /* out of memory: nothing of it */
}

/*
 * The path a DSO was mapped at, as info shows it: d's own copy when it was
 * read there, else a copy of path that lives as long as d (path may be the
 * caller's buffer).
 */
static const char *dso__mapped(struct dso *d, const char *path)
{
	const char *c;

	if (d->path && !strcmp(d->path, path))
		return dso__shown(d, d->path);
	c = ebs_strset__intern_clean(&d->shown, path);
	return c ? c : "?"; /* out of memory: nothing of it */
}

/* The views handed out in sym_result.info, from what d knows. */
static void dso__fill_info(struct dso *d, const char *path)
{
	/* as mapped, not where it was found: --symfs, a build-id directory */
	d->info.path = dso__mapped(d, path);
	d->info.has_symbols = d->symtab.nsyms > 0;
	d->info.symbols_from = dso__shown(d, d->symbols_from);
	d->info.debug_path = dso__shown(d, d->debug_path);
	d->info.looked = d->looked ? dso__shown(d, d->looked) : "";
	d->info.debug_fetched = d->debug_fetched;
	d->info.fetched = d->file_fetched && !d->failed ? dso__shown(d, d->path) : NULL;
	d->info.problem = d->dwarf_problem[0] ? d->dwarf_problem : NULL;
	d->info.unusable = d->unusable[0] ? d->unusable : NULL;
	d->info.unusable_code = d->unusable[0] ? d->unusable_code : EBS_E_OK;
	d->info.dwarf_owner = d->dwarf ? dwarf_info__owner(d->dwarf) : (uid_t)-1;
	d->info.file = d->failed || d->is_jit ? NULL : d->path;
	d->info.file_dev = d->st_dev;
	d->info.file_ino = d->st_ino;
	d->info.debug_file = d->debug_path;
}

/*
 * Where d's DWARF is: in the file itself, or in a separate debug file,
 * whose fuller symbol table then replaces a stripped file's .dynsym.
 * fd is the file (-1 for an image).
 */
static void dso__locate_debug(struct symbolizer *s, struct dso *d, int fd, bool demangle)
{
	struct stat st;
	int dbg_fd;

	/* even without lines: a stripped file's debug file has its full symbol table */
	if (d->has_dwarf && d->path) {
		d->debug_path = dso_strdup(s, d->path);
		d->debug_build_id_size = d->build_id_size;
		memcpy(d->debug_build_id, d->build_id, d->build_id_size);
		return;
	}
	if (dso__find_debug(s, d) == -ENOMEM) {
		symbolizer__warn(s, EBS_E_NOMEM,
				 "%s: out of memory looking for its debug file (its symbols "
				 "and lines may be missing)",
				 d->path ? d->path : "an image");
		return;
	}
	if (!d->debug_path)
		return; /* d->looked says where */
	if (d->has_symtab || fd < 0)
		return;
	dbg_fd = ebs_open_input(d->debug_path, NULL, &st, NULL);
	if (dbg_fd >= 0) {
		int err = dso__load_debug_symtab(d, fd, dbg_fd, demangle);

		if (!err) {
			free(d->symbols_from);
			d->symbols_from = dso_strdup(s, d->debug_path);
		} else if (err == -ENOMEM) {
			symbolizer__warn(s, EBS_E_NOMEM, "%s: out of memory reading its symbols",
					 d->debug_path);
		}
		close(dbg_fd);
	}
}

/* The dso of an in-memory image (the vdso), loaded from our own copy. */
static struct dso *dso_for_image(struct symbolizer *s, const struct sym_map *map)
{
	struct ebs_error why;
	struct dso *d;
	void *key;
	size_t key_len = 0;
	bool fresh;
	int err;

	if (map->build_id_size) {
		key = dso_key_new(DSO_KEY_BUILD_ID, map->build_id,
				  map->build_id_size < 20 ? map->build_id_size : 20, NULL,
				  &key_len);
	} else {
		struct image_key ik = {
			.size = map->image_size,
			.hash = fnv1a64(map->image, map->image_size),
		};

		key = dso_key_new(DSO_KEY_IMAGE, &ik, sizeof(ik), map->filename, &key_len);
	}
	d = dso_cache__get(s, key, key_len, &fresh);
	if (!d || !fresh)
		return d;

	/* libelf wants a char *: give it a private, writable copy. */
	d->image = malloc(map->image_size);
	if (!d->image) {
		dso__fail(s, d, EBS_E_NOMEM, "%s: out of memory", map->filename);
		return d;
	}
	memcpy(d->image, map->image, map->image_size);
	d->image_size = map->image_size;
	err = dso__load_elf(d, -1, d->image, d->image_size, s->demangle, &why);
	if (err) {
		dso__fail(s, d, why.code, "%s: %s", map->filename, why.msg);
		return d;
	}
	dso__check(s, d, map, map->filename, &why);
	d->symbols_from = dso_strdup(s, map->filename);
	dso__locate_debug(s, d, -1, s->demangle); /* by build-id only */
	dso__fill_info(d, map->filename);
	return d;
}

/*
 * d back to what dso_cache__get made, for another file to be tried: what
 * dso__try_file loaded of a file that was not the one.
 */
static void dso__unload(struct dso *d)
{
	symtab__exit(&d->symtab);
	gopcln__free(d->gopcln);
	d->gopcln = NULL;
	d->gopcln_problem[0] = '\0';
	free(d->segs);
	d->segs = NULL;
	d->nsegs = 0;
	free(d->path);
	d->path = NULL;
	d->build_id_size = 0;
	d->has_symtab = d->has_dwarf = d->has_debuglink = false;
	d->st_dev = d->st_ino = 0;
	d->refused = false;
}

/*
 * Load d from the file at path: for a mapping (map), a file that must be
 * the one recorded (dso__is_recorded; by inode only when check_ino: a
 * copy elsewhere has its own), or for ebs addr2line, the file it is
 * given.  Opened only if regular (ebs_open_input: no device or FIFO is
 * ever opened); when the recording vouches for nothing (no build-id, no
 * inode), a file in a directory others can write is not followed if a
 * link and must be owned by root or by us.  0; or -1 with d unloaded and
 * why (code, "PATH: reason") filled, d->refused set when the file is
 * there but is not the one recorded.
 */
static int dso__try_file(struct symbolizer *s, struct dso *d, const char *path,
			 const struct sym_map *map, bool check_ino, struct ebs_error *why)
{
	const struct ebs_input_rule shared = {.flags = EBS_IN_SHARED, .owner = (uid_t)-1};
	struct sym_map recorded;
	struct ebs_error e, nomatch;
	struct stat st;
	int fd, err;

	d->refused = false; /* what an earlier place said: this one may be the file */
	d->path = strdup(path);
	if (!d->path) {
		ebs_error__fail(why, EBS_E_NOMEM, "%s: out of memory", path);
		return -1;
	}
	fd = ebs_open_input(path, map && !map->build_id_size && !map->ino ? &shared : NULL, &st,
			    &e);
	if (fd < 0) {
		ebs_error__fail(why, e.code, "%s: %s", path, e.msg);
		goto fail;
	}
	d->st_dev = st.st_dev;
	d->st_ino = st.st_ino;
	d->st_mtime_sec = st.st_mtim.tv_sec;
	d->st_mtime_nsec = st.st_mtim.tv_nsec;
	if (!st.st_size) {
		ebs_error__fail(why, EBS_E_EMPTY_FILE, "%s: empty file", path);
		goto fail_close;
	}
	err = dso__load_elf(d, fd, NULL, 0, s->demangle, &e);
	if (err) {
		ebs_error__fail(why, e.code, "%s: %s", path, e.msg);
		goto fail_close;
	}
	if (map) {
		recorded = *map;
		if (!check_ino)
			recorded.ino = 0;
	}
	if (map && !dso__is_recorded(d, &recorded, &nomatch)) {
		/* its names and lines would be another program's: none rather than wrong ones */
		ebs_error__fail(why, nomatch.code,
				"%s: not the file recorded (%s): its samples are left unresolved",
				path, nomatch.msg);
		close(fd);
		dso__unload(d);
		d->refused = true;
		return -1;
	}
	d->symbols_from = dso_strdup(s, path);
	if (d->gopcln_problem[0])
		symbolizer__warn(s, EBS_E_BAD_GOPCLNTAB, "%s: %s", path, d->gopcln_problem);
	dso__locate_debug(s, d, fd, s->demangle);
	if (!d->symtab.nsyms && !d->gopcln_problem[0]) /* (that said why already) */
		symbolizer__warn(s, EBS_E_NO_SYMBOLS, "%s: no symbols (%s)", path,
				 e.msg[0] ? e.msg : "empty symbol table");
	close(fd);
	return 0;

fail_close:
	close(fd);
fail:
	dso__unload(d);
	return -1;
}

/*
 * Load d for the file a mapping names (map NULL: the file at path, for
 * addr2line): from the first of the places locate__next gives that holds
 * the file recorded (the recorded path, or under --symfs; then by the
 * recorded build-id, in the build-id directories; last from a debuginfod
 * server).  When none does, d
 * fails with what the first place said, refused when a file was there but
 * not the one recorded.
 */
static void dso__load_file(struct symbolizer *s, struct dso *d, const char *path,
			   const struct sym_map *map)
{
	struct ebs_error first = {0}, why;
	struct locate_iter it = {0};
	char cand[PATH_MAX];
	bool refused = false;
	int r;

	while ((r = locate__next(s, path, map, &it, cand, sizeof(cand))) > 0) {
		if (!dso__try_file(s, d, cand, map, it.recorded_path, &why)) {
			d->file_fetched = it.fetched;
			return;
		}
		if (!first.msg[0]) {
			first = why;
			refused = d->refused;
		}
		if (why.code == EBS_E_NOMEM)
			break;
	}
	if (r < 0 && !first.msg[0])
		ebs_error__fail(&first, EBS_E_NOMEM, "%s: out of memory", path);
	d->path = strdup(path);
	d->refused = refused;
	dso__fail(s, d, first.code, "%s", first.msg);
}

int dso__open_again(const struct dso *d)
{
	struct stat st;
	int fd;

	if (!d->path)
		return -ENOENT;
	fd = ebs_open_input(d->path, NULL, &st, NULL);
	if (fd >= 0 && ((u64)st.st_dev != d->st_dev || (u64)st.st_ino != d->st_ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* The dso of a file: by build-id when known, else by what stat says. */
static struct dso *dso_for_path(struct symbolizer *s, const char *path, const struct sym_map *map)
{
	struct file_key fk = {0};
	struct stat st;
	struct dso *d;
	void *key;
	size_t key_len = 0;
	bool fresh;
	int stat_err = 0;

	if (map && map->build_id_size) {
		key = dso_key_new(DSO_KEY_BUILD_ID, map->build_id,
				  map->build_id_size < 20 ? map->build_id_size : 20, NULL,
				  &key_len);
	} else {
		if (stat(path, &st)) {
			/* All-zero identity: the failure itself is cached by path. */
			stat_err = errno;
		} else {
			fk.dev = st.st_dev;
			fk.ino = st.st_ino;
			fk.mtime_sec = st.st_mtim.tv_sec;
			fk.mtime_nsec = st.st_mtim.tv_nsec;
		}
		/* mappings recorded with other inodes are checked each against its own */
		fk.recorded_ino = map ? map->ino : 0;
		key = dso_key_new(DSO_KEY_FILE, &fk, sizeof(fk), path, &key_len);
	}
	d = dso_cache__get(s, key, key_len, &fresh);
	if (!d || !fresh)
		return d;
	if (stat_err && !s->symfs) {
		d->path = strdup(path);
		dso__fail(s, d, ebs_error_code_of_errno(stat_err), "%s: %s", path,
			  strerror(stat_err));
	} else {
		dso__load_file(s, d, path, map);
	}
	dso__fill_info(d, path);
	return d;
}

/* "//anon" and its kin: memory that JIT compilers fill. */
static bool is_anon(const char *filename)
{
	return !strcmp(filename, "//anon") || !strncmp(filename, "[anon", 5) ||
	       !strncmp(filename, "/dev/zero", 9) || !strncmp(filename, "/anon_hugepage", 14) ||
	       !strncmp(filename, "/memfd:", 7) || !filename[0];
}

/* JIT code of pid, if it wrote a perf-PID.map. */
static struct dso *dso_for_jit(struct symbolizer *s, const struct sym_map *map)
{
	char path[PATH_MAX];
	struct ebs_error why;
	struct dso *d;
	size_t key_len = 0;
	void *key;
	bool fresh;
	int err;

	snprintf(path, sizeof(path), "%s/perf-%u.map", s->perf_map_dir, map->pid);
	/* the key first: it sets key_len, which an argument beside it would read unset */
	key = dso_key_new(DSO_KEY_JIT, NULL, 0, path, &key_len);
	d = dso_cache__get(s, key, key_len, &fresh);
	if (!d || !fresh)
		return d;
	d->path = strdup(path);
	err = d->path ? jitmap__load_err(path, &d->symtab, s->demangle, &why) : -ENOMEM;
	if (!d->path) {
		dso__fail(s, d, EBS_E_NOMEM, "%s: out of memory", path);
	} else if (err == -ENOENT) {
		d->failed = true; /* no map: not worth a word */
	} else if (err) {
		dso__fail(s, d, why.code, "%s: %s", path, why.msg);
	} else {
		d->is_jit = true;
		d->symbols_from = dso_strdup(s, path);
	}
	dso__fill_info(d, path);
	return d;
}

/*
 * Anonymous memory and the like: nothing to load, but for a process's
 * JIT code its own perf-PID.map.  A map that is there but refused (another
 * user's, a FIFO...) keeps its samples, so that --stats names each map and
 * why; without a map they are the pseudo-name's.
 */
static struct dso *dso_for_pseudo(struct symbolizer *s, const struct sym_map *map)
{
	struct dso *d;
	size_t key_len = 0;
	void *key;
	bool fresh;

	if (map->pid && is_anon(map->filename)) {
		d = dso_for_jit(s, map);
		if (!d || !d->failed || d->unusable[0])
			return d;
	}
	key = dso_key_new(DSO_KEY_PSEUDO, NULL, 0, map->filename, &key_len);
	d = dso_cache__get(s, key, key_len, &fresh);
	if (d && fresh) {
		if (!strcmp(map->filename, "[vdso]"))
			dso__fail(s, d, EBS_E_NO_SYMBOLS,
				  "[vdso]: no image recorded: cannot symbolize");
		else
			d->failed = true;
		dso__fill_info(d, map->filename);
	}
	return d;
}

/*
 * The DSO that d is: itself, or the one loaded earlier from the same file
 * under another key (see struct dso).  A fresh d is registered by its
 * identity: the file's own build-id, else its device, inode and mtime; a
 * DSO that failed to load, or an image without a build-id, has none.
 */
static struct dso *dso__canonical(struct symbolizer *s, struct dso *d)
{
	struct file_key fk = {0};
	struct dso *c;

	if (!d || d->canon)
		return d ? d->canon : NULL;
	if (d->id_key || d->failed)
		return d;
	if (d->build_id_size)
		d->id_key = dso_key_new(DSO_KEY_BUILD_ID, d->build_id, d->build_id_size, NULL,
					&d->id_len);
	else if (d->st_ino) {
		fk.dev = d->st_dev;
		fk.ino = d->st_ino;
		fk.mtime_sec = d->st_mtime_sec;
		fk.mtime_nsec = d->st_mtime_nsec;
		d->id_key = dso_key_new(DSO_KEY_FILE, &fk, sizeof(fk), NULL, &d->id_len);
	}
	if (!d->id_key)
		return d; /* no identity (or no memory for it): stands alone */
	HASH_FIND(hh_id, s->dsos_by_id, d->id_key, d->id_len, c);
	if (c && c != d) {
		d->canon = c;
		/* its symbols were loaded for nothing: the canonical one answers */
		symtab__exit(&d->symtab);
		return c;
	}
	HASH_ADD_KEYPTR(hh_id, s->dsos_by_id, d->id_key, d->id_len, d);
	if (!d->hh_id.tbl) {
		free(d->id_key);
		d->id_key = NULL;
	}
	return d;
}

static struct dso *dso_for_map(struct symbolizer *s, const struct sym_map *map)
{
	if (map->image)
		return dso__canonical(s, dso_for_image(s, map));
	if (is_pseudo(map->filename))
		return dso_for_pseudo(s, map);
	return dso__canonical(s, dso_for_path(s, map->filename, map));
}

/* Build the map_ent key of map in s->keybuf. */
static int map_key__build(struct symbolizer *s, const struct sym_map *map, size_t *key_len)
{
	size_t flen = strlen(map->filename), len;
	struct map_key mk;

	if (flen > SIZE_MAX - sizeof(mk))
		return -ENAMETOOLONG;
	len = sizeof(mk) + flen;
	if (len > s->keybuf_cap) {
		void *nb = realloc(s->keybuf, len);

		if (!nb)
			return -ENOMEM;
		s->keybuf = nb;
		s->keybuf_cap = len;
	}
	memset(&mk, 0, sizeof(mk));
	mk.ino = map->ino;
	mk.maj = map->maj;
	mk.min = map->min;
	if (!map->image && is_pseudo(map->filename) && is_anon(map->filename))
		mk.pid = map->pid;
	mk.build_id_size = map->build_id_size < 20 ? map->build_id_size : 20;
	memcpy(mk.build_id, map->build_id, mk.build_id_size);
	if (map->image) {
		mk.has_image = 1;
		mk.image_size = map->image_size;
	}
	memcpy(s->keybuf, &mk, sizeof(mk));
	memcpy((char *)s->keybuf + sizeof(mk), map->filename, flen);
	*key_len = len;
	return 0;
}

/*
 * The map_ent for map, created on first sight.  For an image the key holds
 * only its size, so the bytes are compared with the dso's copy each time: a
 * different image under the same name gets (and keeps) its own dso.
 */
static int map_ent__get(struct symbolizer *s, const struct sym_map *map, struct map_ent **out)
{
	struct map_ent *m;
	size_t key_len = 0;
	struct dso *d;
	int err;

	err = map_key__build(s, map, &key_len);
	if (err)
		return err;
	HASH_FIND(hh, s->maps, s->keybuf, key_len, m);
	if (m) {
		if (map->image && (!m->dso->image || m->dso->image_size != map->image_size ||
				   memcmp(m->dso->image, map->image, map->image_size))) {
			d = dso__canonical(s, dso_for_image(s, map));
			if (!d)
				return -ENOMEM;
			m->dso = d;
		}
		m->checked = map->image;
		*out = m;
		return 0;
	}

	m = calloc(1, sizeof(*m) + key_len);
	if (!m)
		return -ENOMEM;
	memcpy(m->key, s->keybuf, key_len);
	m->key_len = key_len;
	m->path = strdup(map->filename);
	if (!m->path)
		goto out_free;
	sym_clean_text(m->path); /* the data file's name, printed as one line */
	m->name = short_name(m->path);
	m->dso = dso_for_map(s, map);
	if (!m->dso)
		goto out_free;
	m->checked = map->image;
	if (m->dso->is_jit) {
		m->jit_name = strdup(short_name(m->dso->path));
		if (!m->jit_name)
			goto out_free;
		sym_clean_text(m->jit_name); /* shown, as m->path is */
		m->name = m->jit_name;
	}
	HASH_ADD_KEYPTR(hh, s->maps, m->key, m->key_len, m);
	if (!m->hh.tbl)
		goto out_free;
	*out = m;
	return 0;

out_free:
	free(m->jit_name);
	free(m->path);
	free(m);
	return -ENOMEM;
}

/*
 * d's DWARF, opened on first use; NULL when it has none.  Touches d alone
 * (and reads s): symbolizer__prefetch's threads call it, each for its own
 * DSOs.  Why it failed is left in d for dso__dwarf to say.
 */
static struct dwarf_info *dso__dwarf_open(struct symbolizer *s, struct dso *d)
{
	struct dwarf_cache_key key = {
		.cache = s->cache,
		.build_id = d->debug_build_id,
		.build_id_size = d->debug_build_id_size,
		.debug_dirs = (const char *const *)s->debug_dirs,
	};
	struct ebs_error why;

	if (d->dwarf_tried)
		return d->dwarf;
	d->dwarf_tried = true;
	if (!d->debug_path)
		return NULL;
	heap_ready();
	d->dwarf = dwarf_info__open(d->debug_path, s->demangle, !s->no_lines, &key, &why);
	if (d->dwarf) {
		d->info.dwarf_owner = dwarf_info__owner(d->dwarf);
	} else {
		ebs_format_line(d->dwarf_problem, sizeof(d->dwarf_problem), "%.360s: %.250s",
				d->debug_path, why.msg);
		d->dwarf_code = why.code;
		d->dwarf_warn = true;
		dso__fill_info(d, d->info.path); /* as mapped still */
	}
	return d->dwarf;
}

/* d's DWARF, as dso__dwarf_open; its failure said on the first use, whoever opened it. */
static struct dwarf_info *dso__dwarf(struct symbolizer *s, struct dso *d)
{
	struct dwarf_info *di = dso__dwarf_open(s, d);

	if (d->dwarf_warn) {
		d->dwarf_warn = false;
		symbolizer__warn(s, d->dwarf_code, "%s", d->dwarf_problem);
	}
	return di;
}

/* vaddr's slot of d->front (Fibonacci hashing: the product's top bits). */
static struct addr_slot *front_slot(const struct dso *d, u64 vaddr)
{
	return &d->front[(vaddr * 0x9e3779b97f4a7c15ull) >> (64 - d->front_bits)];
}

static void front_put(struct dso *d, struct addr_ent *a)
{
	struct addr_slot *f;

	if (!d->front)
		return;
	f = front_slot(d, a->vaddr);
	f->vaddr = a->vaddr;
	f->a = a;
}

/* After an entry was added: twice as many slots when the entries reach half. */
static void front_grow(struct dso *d)
{
	unsigned int bits = d->front ? d->front_bits : 6;
	struct addr_ent *a, *tmp;
	struct addr_slot *nf;

	if (d->front && d->nr_cache * 2 <= ((size_t)1 << bits))
		return;
	if (d->front)
		bits++;
	if (bits > 30)
		return;
	nf = calloc((size_t)1 << bits, sizeof(*nf));
	if (!nf)
		return; /* only slower */
	free(d->front);
	d->front = nf;
	d->front_bits = bits;
	HASH_ITER(hh, d->cache, a, tmp)
		front_put(d, a);
}

/* Does vaddr of d want its frames (symbolizer.frames_for)? */
static bool frames_wanted(struct symbolizer *s, struct dso *d, u64 vaddr)
{
	const struct sym *sym;

	if (!s->frames_for)
		return true;
	sym = symtab__find(&d->symtab, vaddr);
	return s->frames_for(s->frames_ctx, sym ? symtab__name(&d->symtab, sym, NULL) : NULL);
}

/* Resolve link-time address vaddr of d, once; later calls hit the cache. */
static const struct addr_ent *dso__resolve(struct symbolizer *s, struct dso *d, u64 vaddr)
{
	struct sym_frame frames[MAX_FRAMES];
	struct dwarf_info *di;
	const struct sym *sym;
	struct addr_ent *a;
	bool bare = false;
	int n = 0;

	if (d->front) {
		const struct addr_slot *f = front_slot(d, vaddr);

		if (f->a && f->vaddr == vaddr && (!f->a->bare || s->frames_for))
			return f->a;
	}
	HASH_FIND(hh, d->cache, &vaddr, sizeof(vaddr), a);
	if (a && (!a->bare || s->frames_for)) {
		front_put(d, a);
		return a;
	}
	if (a) { /* without frames, which are wanted now: resolved again */
		HASH_DEL(d->cache, a);
		d->nr_cache--;
		a->next = d->bare;
		d->bare = a;
	}
	bare = s->all_bare || !frames_wanted(s, d, vaddr);
	di = s->no_dwarf || bare ? NULL : dso__dwarf(s, d);
	if (di) {
		n = dwarf_info__lookup(di, vaddr, frames, MAX_FRAMES);
		/* a unit that failed to decode says why, once, and for --stats */
		if (!d->dwarf_problem[0] && dwarf_info__problem(di)) {
			ebs_format_line(d->dwarf_problem, sizeof(d->dwarf_problem),
					"%.360s: %.250s", d->debug_path, dwarf_info__problem(di));
			d->info.problem = d->dwarf_problem;
			d->dwarf_code = EBS_E_BAD_DWARF;
			symbolizer__warn(s, d->dwarf_code, "%s (lines may be missing)",
					 d->dwarf_problem);
		}
	}
	if (!n && d->gopcln && !s->no_dwarf && !s->no_lines && !bare) {
		/* a Go binary without DWARF: its own table's line (one frame) */
		struct gopcln_hit hit;

		if (gopcln__lookup(d->gopcln, vaddr, &hit) == -ENOMEM)
			return NULL;
		if (hit.name && (hit.file || hit.line)) {
			/* the name as the symbol table shows it (cleaned) */
			sym = symtab__find(&d->symtab, vaddr);
			frames[0] = (struct sym_frame){.function = sym ? sym->name : NULL,
						       .file = hit.file,
						       .line = hit.line};
			n = 1;
		}
	}
	a = calloc(1, sizeof(*a) + (size_t)n * sizeof(a->frames[0]));
	if (!a)
		return NULL;
	a->vaddr = vaddr;
	a->id = s->nr_ids < UINT32_MAX ? s->nr_ids + 1 : 0; /* (0: no number left) */
	a->nr_frames = (unsigned int)n;
	a->bare = bare;
	memcpy(a->frames, frames, (size_t)n * sizeof(frames[0]));
	sym = symtab__find(&d->symtab, vaddr);
	if (sym) {
		a->function = symtab__name(&d->symtab, sym, &a->mangled);
		a->sym_offset = vaddr - sym->addr;
	}
	HASH_ADD(hh, d->cache, vaddr, sizeof(a->vaddr), a);
	if (!a->hh.tbl) {
		free(a);
		return NULL;
	}
	if (a->id)
		s->nr_ids++;
	d->nr_cache++;
	front_grow(d);
	front_put(d, a);
	return a;
}

static int fill_result(struct symbolizer *s, struct dso *d, u64 vaddr, struct sym_result *out)
{
	const struct addr_ent *a = dso__resolve(s, d, vaddr);

	if (!a)
		return -ENOMEM;
	out->dso_addr = vaddr;
	out->id = a->id;
	out->function = a->function;
	out->mangled = a->mangled;
	out->sym_offset = a->sym_offset;
	out->nr_frames = a->nr_frames;
	out->frames = a->nr_frames ? a->frames : NULL;
	if (a->nr_frames) {
		out->file = a->frames[0].file;
		out->line = a->frames[0].line;
		out->column = a->frames[0].column;
	}
	return 0;
}

int symbolizer__lookup_memo(struct symbolizer *s, const struct sym_map *map, struct map_ent **memo,
			    u64 addr, struct sym_result *out)
{
	struct map_ent *m = memo ? *memo : NULL;
	u64 file_off;
	int err;

	if (!map->filename || (map->image && !map->image_size))
		return -EINVAL;
	if (addr < map->start || (map->len && addr - map->start >= map->len))
		return -ERANGE;
	/*
	 * An image's entry may be another image's too: unless its dso was
	 * last checked against these very bytes (which map, as the memo's,
	 * has kept unchanged since), map_ent__get checks it again.
	 */
	if (!m || (map->image && m->checked != map->image)) {
		if (!map->image && is_kernel(map->filename))
			return symbolizer__lookup_kernel(s, addr, out);
		err = map_ent__get(s, map, &m);
		if (err)
			return err;
		if (memo)
			*memo = m;
	}
	file_off = addr - map->start + map->pgoff;
	memset(out, 0, sizeof(*out));
	out->dso = m->name;
	out->dso_path = m->path;
	out->dso_addr = file_off;
	out->info = &m->dso->info;
	if (m->dso->refused)
		m->dso->unresolved++;
	if (m->dso->failed)
		return 0;
	/* a JIT map holds runtime addresses; a file, link-time ones */
	return fill_result(s, m->dso, m->dso->is_jit ? addr : dso__file_to_vaddr(m->dso, file_off),
			   out);
}

int symbolizer__lookup(struct symbolizer *s, const struct sym_map *map, u64 addr,
		       struct sym_result *out)
{
	return symbolizer__lookup_memo(s, map, NULL, addr, out);
}

struct dso *symbolizer__map_dso(struct symbolizer *s, const struct sym_map *map, u64 *bias)
{
	struct map_ent *m;

	if (!map->filename || (map->image && !map->image_size) ||
	    (!map->image && (is_kernel(map->filename) || is_pseudo(map->filename))))
		return NULL;
	if (map_ent__get(s, map, &m) || m->dso->failed || m->dso->is_jit)
		return NULL;
	*bias = dso__map_bias(m->dso, map->start, map->len, map->pgoff);
	return m->dso;
}

/* ---- reading DWARF on several threads before a pass ---------------------- */

#define PREFETCH_THREADS 8 /* at most, the caller's included */

struct prefetch_job {
	struct dso *d;
	u64 *vaddrs; /* link-time addresses, sorted */
	size_t n, cap;
	u64 cost; /* the size of its debug file: the largest is begun first */
};

struct prefetch {
	struct symbolizer *s;
	struct prefetch_job *jobs;
	size_t njobs, cap;
	size_t next; /* the next job to take (atomic) */
};

static int job_cmp(const void *pa, const void *pb)
{
	const struct prefetch_job *a = pa, *b = pb;

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return strcmp(a->d->debug_path, b->d->debug_path);
}

/* Take jobs until none is left: open each DSO's DWARF and decode the units of its addresses. */
static void *prefetch_work(void *arg)
{
	struct prefetch *p = arg;
	size_t i, k;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->njobs) {
		struct prefetch_job *j = &p->jobs[i];
		struct dwarf_info *di = dso__dwarf_open(p->s, j->d);

		for (k = 0; di && k < j->n; k++)
			if (!k || j->vaddrs[k] != j->vaddrs[k - 1])
				dwarf_info__prefetch(di, j->vaddrs[k]);
	}
	return NULL;
}

/* The CPUs this process may run on, at most PREFETCH_THREADS. */
static unsigned int prefetch_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > PREFETCH_THREADS ? PREFETCH_THREADS : (unsigned int)n;
}

static int job_add(struct prefetch *p, struct dso *d, u64 vaddr)
{
	struct prefetch_job *j = NULL;
	struct stat st;
	size_t i;

	for (i = 0; i < p->njobs && !j; i++)
		if (p->jobs[i].d == d)
			j = &p->jobs[i];
	if (!j) {
		if (ebs_grow((void **)&p->jobs, &p->cap, p->njobs, sizeof(*p->jobs), 4))
			return -ENOMEM;
		j = &p->jobs[p->njobs++];
		memset(j, 0, sizeof(*j));
		j->d = d;
		j->cost = stat(d->debug_path, &st) ? 0 : (u64)st.st_size;
	}
	if (ebs_grow((void **)&j->vaddrs, &j->cap, j->n, sizeof(*j->vaddrs), 64))
		return -ENOMEM;
	j->vaddrs[j->n++] = vaddr;
	return 0;
}

void symbolizer__frames_for(struct symbolizer *s, bool (*fn)(void *ctx, const char *function),
			    void *ctx)
{
	s->frames_for = fn;
	s->frames_ctx = ctx;
}

/* p's jobs freed. */
static void prefetch_free_jobs(struct prefetch *p)
{
	size_t i;

	for (i = 0; i < p->njobs; i++)
		free(p->jobs[i].vaddrs);
	free(p->jobs);
}

/* p's jobs freed, and p (may be NULL). */
static void prefetch_drop(struct prefetch *p)
{
	if (!p)
		return;
	prefetch_free_jobs(p);
	free(p);
}

struct while_run {
	int (*fn)(void *ctx);
	void *ctx;
	int ret;
};

static void *while_run(void *arg)
{
	struct while_run *w = arg;

	w->ret = w->fn(w->ctx);
	return NULL;
}

int symbolizer__prefetch(struct symbolizer *s, const struct sym_prefetch *v, size_t n)
{
	struct prefetch p = {.s = s};
	pthread_t tid[PREFETCH_THREADS];
	unsigned int nthreads = prefetch_threads(), started = 0, t;
	size_t i, k;
	int e = 0;

	if (s->no_dwarf || nthreads < 2)
		return 0;
	for (i = 0; i < n && !e; i++) {
		const struct sym_map *map = v[i].map;
		struct map_ent *m = v[i].memo ? *v[i].memo : NULL;

		if (!map->filename || map->image || is_kernel(map->filename) ||
		    is_pseudo(map->filename))
			continue;
		if (!m) {
			e = map_ent__get(s, map, &m);
			if (e)
				break;
			if (v[i].memo)
				*v[i].memo = m;
		}
		if (m->dso->failed || m->dso->is_jit || m->dso->dwarf_tried || !m->dso->debug_path)
			continue;
		for (k = 0; k < v[i].naddrs && !e; k++) {
			u64 a = v[i].addrs[k], vaddr;

			if (a < map->start || (map->len && a - map->start >= map->len))
				continue;
			vaddr = dso__file_to_vaddr(m->dso, a - map->start + map->pgoff);
			if (!frames_wanted(s, m->dso, vaddr))
				continue;
			e = job_add(&p, m->dso, vaddr);
		}
	}
	if (!e && p.njobs && s->frames_for) { /* for symbolizer__prefetch_while */
		for (i = 0; i < p.njobs; i++)
			qsort(p.jobs[i].vaddrs, p.jobs[i].n, sizeof(u64), ebs_u64_cmp);
		qsort(p.jobs, p.njobs, sizeof(*p.jobs), job_cmp);
		prefetch_drop(s->deferred);
		if ((s->deferred = malloc(sizeof(p)))) {
			*s->deferred = p;
			/* now, as below: later the heap's top may be too large to find its end */
			heap_ready();
			return 0;
		}
	}
	/* a thread for each file, while there are CPUs: one file is read as well without */
	if (!e && p.njobs > 1) {
		qsort(p.jobs, p.njobs, sizeof(*p.jobs), job_cmp);
		for (i = 0; i < p.njobs; i++)
			qsort(p.jobs[i].vaddrs, p.jobs[i].n, sizeof(u64), ebs_u64_cmp);
		sym_cache__ready(s->cache);
		heap_ready(); /* before the threads: the caller's thread reads a file too */
		for (t = 1; t < nthreads && t < p.njobs; t++)
			if (!sym_thread_create(&tid[started], prefetch_work, &p))
				started++;
		prefetch_work(&p);
		for (t = 0; t < started; t++)
			pthread_join(tid[t], NULL);
	}
	prefetch_free_jobs(&p);
	return e;
}

int sym_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

int symbolizer__prefetch_while(struct symbolizer *s, int (*fn)(void *ctx), void *ctx)
{
	struct prefetch *p = s->deferred;
	struct while_run w = {fn, ctx, 0};
	pthread_t tid[PREFETCH_THREADS];
	unsigned int nthreads = prefetch_threads(), started = 0, t;

	s->deferred = NULL;
	if (!p || nthreads < 2) {
		prefetch_drop(p);
		return fn(ctx);
	}
	sym_cache__ready(s->cache);
	heap_ready(); /* this thread reads the largest file, from the brk heap */
	s->all_bare = true;
	p->s = s;
	if (!sym_thread_create(&tid[0], while_run, &w))
		started++;
	for (t = 2; started && t < nthreads && t <= p->njobs; t++)
		if (!sym_thread_create(&tid[started], prefetch_work, p))
			started++;
	if (!started) {
		s->all_bare = false;
		prefetch_drop(p);
		return fn(ctx);
	}
	prefetch_work(p);
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	s->all_bare = false;
	prefetch_drop(p);
	return w.ret;
}

/* Link-time address vaddr of d into out; 0 or -ENOMEM. */
static int resolve_in(struct symbolizer *s, struct dso *d, u64 vaddr, struct sym_result *out)
{
	memset(out, 0, sizeof(*out));
	out->dso = short_name(d->info.path);
	out->dso_path = d->info.path;
	out->dso_addr = vaddr;
	out->info = &d->info;
	if (d->failed)
		return 0;
	return fill_result(s, d, vaddr, out);
}

int symbolizer__lookup_file(struct symbolizer *s, const char *path, u64 vaddr,
			    struct sym_result *out)
{
	struct dso *d;

	d = dso__canonical(s, dso_for_path(s, path, NULL));
	if (!d)
		return -ENOMEM;
	return resolve_in(s, d, vaddr, out);
}

void symbolizer__warn_unresolved(struct symbolizer *s)
{
	struct dso *d, *tmp;

	if (!s)
		return;
	HASH_ITER(hh, s->dsos, d, tmp) {
		if (d->refused && d->unresolved)
			symbolizer__warn(s, d->unusable_code,
					 "%s: %llu sample%s left unresolved: not the file recorded",
					 d->path ? d->path : "?", (unsigned long long)d->unresolved,
					 d->unresolved == 1 ? "" : "s");
		d->unresolved = 0;
	}
}

/* k's symbol and module names as s->knames holds them. 0 or -ENOMEM. */
static int kernel_intern(struct symbolizer *s, struct kallsyms *k)
{
	size_t i;

	for (i = 0; i < k->nsyms; i++) {
		struct ksym *ks = &k->syms[i];

		ks->name = ebs_strset__intern(&s->knames, ks->name);
		if (ks->dso && strcmp(ks->dso, "[kernel]"))
			ks->dso = ebs_strset__intern(&s->knames, ks->dso);
		if (!ks->name || !ks->dso)
			return -ENOMEM;
	}
	return 0;
}

void symbolizer__adopt_kernel(struct symbolizer *s, struct kallsyms_preload *p)
{
	if (s->kallsyms_path || s->kpre || s->kernel_tried) { /* read elsewhere, or already */
		kallsyms_preload__free(p);
		return;
	}
	s->kpre = p;
}

/* kallsyms at path: the adopted read ahead's table (of /proc/kallsyms), else read now */
static struct kallsyms *kernel_load(struct symbolizer *s, const char *path, struct ebs_error *err)
{
	struct kallsyms_preload *p = s->kpre;

	s->kpre = NULL;
	return p ? kallsyms_preload__take(p, err) : kallsyms__load(path, err);
}

/*
 * A function's padding: __pfx_ (CONFIG_CALL_PADDING) or __cfi_ (kCFI's
 * preamble), the bytes before it.  No call is ever made from there.
 */
static bool kernel_padding(const char *name)
{
	return !strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6);
}

static void ksym_put(struct sym_ksym *v, const struct ksym *ks)
{
	v->start = ks->addr;
	v->end = ks->end > ks->addr ? ks->end : UINT64_MAX; /* a span that wraps */
	v->name = ks->name;
	v->dso = ks->dso;
	v->global = ks->global;
}

int symbolizer__kernel_symbols(struct symbolizer *s, const u64 *addrs, size_t n,
			       struct sym_ksym **out, size_t *nout, u64 *stext,
			       struct ebs_error *err)
{
	const char *path = s->kallsyms_path ? s->kallsyms_path : "/proc/kallsyms";
	const struct ksym *last = NULL;
	struct sym_ksym *v;
	size_t i, k = 0;

	*out = NULL;
	*nout = 0;
	*stext = 0;
	if (!s->kernel_tried) {
		s->kernel_tried = true;
		s->kernel = kernel_load(s, path, err);
		if (!s->kernel)
			return errno ? -errno : -ENOENT;
		if (s->kshared && kernel_intern(s, s->kernel))
			return -ENOMEM;
	}
	if (!s->kernel) {
		ebs_error__fail(err, EBS_E_NO_SYMBOLS, "%s: unreadable", path);
		return -ENOENT;
	}
	*stext = s->kernel->stext;
	v = calloc(n ? 2 * n : 1, sizeof(*v));
	if (!v)
		return ebs_error__fail(err, EBS_E_NOMEM, "out of memory");
	for (i = 0; i < n; i++) { /* addrs sorted: a symbol's addresses come together */
		const struct ksym *ks = kallsyms__find(s->kernel, addrs[i]), *fn;

		if (!ks || ks == last)
			continue;
		last = ks;
		ksym_put(&v[k++], ks);
		/* padding: its function too (symbolizer__lookup_kernel_caller) */
		if (kernel_padding(ks->name) && ks->end > ks->addr &&
		    (fn = kallsyms__find(s->kernel, ks->end)) && fn != ks) {
			last = fn;
			ksym_put(&v[k++], fn);
		}
	}
	*out = v;
	*nout = k;
	return 0;
}

int symbolizer__set_kernel_symbols(struct symbolizer *s, const struct sym_ksym *v, size_t n,
				   u64 stext)
{
	if (s->kallsyms_path)
		return 0; /* the user's own file wins */
	kallsyms__free(s->kernel);
	s->kernel = kallsyms__from_table(v, n, stext);
	s->kernel_tried = true;
	return s->kernel ? 0 : -ENOMEM;
}

int symbolizer__add_kernel_symbols(struct symbolizer *s, const struct sym_ksym *v, size_t n,
				   u64 stext, const struct sym_kernel **out)
{
	struct kallsyms *k, **grown;

	*out = NULL;
	if (s->kallsyms_path)
		return 0; /* the user's own file wins */
	grown = realloc(s->ktables, (s->nktables + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	s->ktables = grown;
	k = kallsyms__from_table(v, n, stext);
	if (!k)
		return -ENOMEM;
	s->ktables[s->nktables++] = k;
	if (s->kshared && kernel_intern(s, k))
		return -ENOMEM;
	*out = (const struct sym_kernel *)k;
	return 0;
}

int symbolizer__share_kernel_names(struct symbolizer *s)
{
	struct kallsyms *home = s->kernel_swapped ? s->kernel_home : s->kernel;
	size_t i;

	s->kshared = true;
	for (i = 0; i < s->nktables; i++)
		if (kernel_intern(s, s->ktables[i]))
			return -ENOMEM;
	return home ? kernel_intern(s, home) : 0;
}

void symbolizer__use_kernel(struct symbolizer *s, const struct sym_kernel *k)
{
	if (k && !s->kernel_swapped) {
		s->kernel_home = s->kernel;
		s->home_tried = s->kernel_tried;
		s->kernel_swapped = true;
	}
	if (k) {
		s->kernel = (struct kallsyms *)k; /* one of s->ktables */
		s->kernel_tried = true;
	} else if (s->kernel_swapped) {
		s->kernel = s->kernel_home;
		s->kernel_tried = s->home_tried;
		s->kernel_swapped = false;
	}
}

int symbolizer__lookup_kernel(struct symbolizer *s, u64 addr, struct sym_result *out)
{
	const char *path;
	const struct ksym *ks;

	path = s->kallsyms_path ? s->kallsyms_path : "/proc/kallsyms";
	if (!s->kernel_tried) {
		struct ebs_error why;

		s->kernel_tried = true;
		s->kernel = kernel_load(s, path, &why);
		if (!s->kernel)
			symbolizer__warn(s, why.code, "%s: %s", path, why.msg);
		else if (s->kshared && kernel_intern(s, s->kernel))
			return -ENOMEM;
	}
	memset(out, 0, sizeof(*out));
	out->dso = "[kernel]";
	out->dso_path = "[kernel]";
	out->dso_addr = addr;
	if (!s->kernel)
		return 0;
	ks = kallsyms__find(s->kernel, addr);
	if (ks) {
		out->function = ks->name;
		out->dso = ks->dso;
		out->dso_path = ks->dso;
		out->sym_offset = addr - ks->addr;
	}
	return 0;
}

int symbolizer__lookup_kernel_caller(struct symbolizer *s, u64 ret, struct sym_result *out,
				     u64 *look)
{
	struct sym_result at;
	int e;

	*look = ret - 1;
	e = symbolizer__lookup_kernel(s, ret - 1, out);
	if (e || !out->function || !kernel_padding(out->function))
		return e;
	e = symbolizer__lookup_kernel(s, ret, &at);
	if (!e && at.function) {
		*out = at;
		*look = ret;
	}
	return e;
}

/* The dso behind a sym_dso_info handed out by a lookup. */
static struct dso *dso_of(const struct sym_dso_info *info)
{
	return (struct dso *)((const char *)info - offsetof(struct dso, info));
}

int symbolizer__lookup_in(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
			  struct sym_result *out)
{
	if (!info)
		return -EINVAL;
	return resolve_in(s, dso_of(info), vaddr, out);
}

int symbolizer__function(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
			 struct sym_func *out)
{
	(void)s; /* the info is the symbolizer's */
	struct dso *d;
	const struct sym *sym;

	if (!info)
		return -EINVAL;
	d = dso_of(info);
	sym = d->failed ? NULL : symtab__find(&d->symtab, vaddr);
	if (!sym)
		return -ENOENT;
	out->name = symtab__name(&d->symtab, sym, NULL);
	out->start = sym->addr;
	out->end = sym->end;
	return 0;
}

/* The DWARF of the DSO info names, or NULL. */
static struct dwarf_info *dwarf_of(struct symbolizer *s, const struct sym_dso_info *info)
{
	struct dso *d;

	if (!s || !info)
		return NULL;
	d = dso_of(info);
	return d->failed ? NULL : dso__dwarf(s, d);
}

int symbolizer__source_span(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
			    struct sym_span *out)
{
	struct dwarf_info *di = dwarf_of(s, info);

	memset(out, 0, sizeof(*out));
	return di ? dwarf_info__source_span(di, vaddr, out) : -ENOENT;
}

const char *symbolizer__line_owner(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr,
				   const char *file, u32 line)
{
	struct dwarf_info *di = dwarf_of(s, info);

	return di ? dwarf_info__line_owner(di, vaddr, file, line) : NULL;
}

int symbolizer__rows(struct symbolizer *s, const struct sym_dso_info *info, u64 lo, u64 hi,
		     int (*fn)(void *ctx, const struct sym_row *row), void *ctx)
{
	struct dwarf_info *di;
	struct dso *d;

	if (!info)
		return -EINVAL;
	d = dso_of(info);
	di = d->failed ? NULL : dso__dwarf(s, d);
	if (!di)
		return -ENOENT;
	return dwarf_info__rows(di, lo, hi, fn, ctx);
}

const char *symbolizer__source_name(struct symbolizer *s, const char *file)
{
	const char *found = NULL, *raw;
	struct dso *d, *tmp;
	bool ambiguous;

	if (!file)
		return file;
	/* every DSO whose DWARF is open: one name may come from several */
	HASH_ITER(hh, s->dsos, d, tmp) {
		raw = dwarf_info__raw_name(d->dwarf, file, &ambiguous);
		if (!raw)
			continue;
		if (ambiguous || (found && strcmp(found, raw)))
			return NULL;
		found = raw;
	}
	return found ? found : file;
}

int symbolizer__fetch_source(struct symbolizer *s, const char *file, char *out, size_t len)
{
	const char *raw = file ? symbolizer__source_name(s, file) : NULL, *verdict, *base;
	struct dso *d, *tmp;
	int r;

	if (!raw || raw[0] != '/')
		return 0; /* libdebuginfod asks for absolute names only */
	base = strrchr(file, '/') + 1;
	/* the DSOs whose DWARF, open so far, names it: asked by their build-ids */
	HASH_ITER(hh, s->dsos, d, tmp) {
		if (d->canon || !d->dwarf || d->build_id_size < 2 ||
		    !dwarf_info__names_file(d->dwarf, file))
			continue;
		r = debuginfod__find(s, DEBUGINFOD_SOURCE, d->build_id, d->build_id_size, raw, base,
				     out, len, &verdict);
		if (r)
			return r;
		if (!verdict || !strcmp(verdict, "(failed)"))
			return 0; /* not asked, or no more */
	}
	return 0;
}

int symbolizer__code(struct symbolizer *s, const struct sym_dso_info *info, u64 vaddr, void *buf,
		     size_t len, enum sym_arch *arch)
{
	(void)s; /* the info is the symbolizer's */
	struct dso *d;
	u64 room = 0;
	s64 off;
	ssize_t n;
	int fd;

	if (!info)
		return -EINVAL;
	d = dso_of(info);
	if (d->failed || d->is_jit)
		return -ENOENT;
	off = dso__vaddr_to_file(d, vaddr, &room);
	if (off < 0 || room < len)
		return -ENOENT;
	*arch = d->machine == EM_X86_64 ? SYM_ARCH_X86_64 : SYM_ARCH_UNKNOWN;
	if (d->image) {
		if ((u64)off + len > d->image_size)
			return -ENOENT;
		memcpy(buf, (const char *)d->image + off, len);
		return 0;
	}
	fd = dso__open_again(d);
	if (fd < 0)
		return fd == -EBS_ENOTREG || fd == -ESTALE ? -ENOENT : fd;
	n = pread(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}
