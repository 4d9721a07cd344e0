// SPDX-License-Identifier: MIT
/*
 * cache.c - the user's cache directory, where what is costly to work out
 * from a file and the same on every run (today: a DSO's decoded DWARF,
 * dwarf_cache.c) is kept between runs, by the file's build-id.
 *
 * Where: $XDG_CACHE_HOME/ebs, else $HOME/.cache/ebs (no HOME: no cache).
 * The directory is made 0700 and used only while it is a directory of the
 * caller's own that no one else may write to; its entries are opened with
 * O_NOFOLLOW and must be regular files of the caller's.  An entry is
 * written whole into a temporary file beside it (.NAME.tmp.XXXXXX) and
 * renamed into place, so readers see the old entry or the new one, never
 * a torn one, and two writers at once leave one of theirs.  After each
 * write the entries are held to a total size (EBS_CACHE_MAX, default
 * 512 MiB; 0 turns the cache off): the least recently used go first
 * (a read refreshes an entry's mtime).  Nothing here is fatal: a
 * directory that cannot be made or used, a full disk, a read-only home,
 * each is said once (one warning line) and the caller goes on without.
 *
 * What an entry holds is its writer's business, and untrusted: the
 * reader checks every byte it uses (sym_hash64 for the checksums, which
 * guard against faults: the entries are the caller's own files, and what
 * says which file an entry is of is digest.c's SHA-256, not these).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/internal.h"

#define STALE_TMP_SECONDS 3600 /* a temporary file this old was left by a killed run */

struct sym_cache {
	const struct sym_cache_kind *kind;
	char *dir;     /* the directory's path, for warnings */
	int dfd;       /* open on it; -1 until first used */
	bool unusable; /* tried, and it cannot be used: no more tries */
	bool warned;   /* one warning line per run at most */
	u64 max;       /* the total size the entries are held to */
	uid_t uid;
	ebs_warn_fn *warn; /* for warnings, as symbolize_opts.warn */
	void *warn_ctx;
	/*
	 * The warning and the eviction, which symbolizer__prefetch's threads
	 * may reach at once (writing an inflated copy); the rest of c changes
	 * only before they start (sym_cache__ready).
	 */
	pthread_mutex_t lock;
};

/* The cache of decoded DWARF: entries NAME.SUFFIX in the directory itself. */
const struct sym_cache_kind sym_cache_dwarf = {
	.what = "cache",
	.env = "EBS_CACHE_MAX",
	.max = 512ull << 20,
	.max_text = "512M",
	.sub = "",
	.hint = "reports go on without it; --no-cache or EBS_CACHE_MAX=0 goes without a word",
};

/* ---- XXH64 (Yann Collet's xxHash, 64-bit; the published algorithm) ---- */

#define XXP1 0x9E3779B185EBCA87ull
#define XXP2 0xC2B2AE3D27D4EB4Full
#define XXP3 0x165667B19E3779F9ull
#define XXP4 0x85EBCA77C2B2AE63ull
#define XXP5 0x27D4EB2F165667C5ull

static inline u64 rotl64(u64 x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline u64 read64(const unsigned char *p)
{
	u64 v;

	memcpy(&v, p, 8); /* native order: an entry is read where it was written */
	return v;
}

static inline u64 xx_round(u64 acc, u64 in)
{
	acc += in * XXP2;
	acc = rotl64(acc, 31);
	return acc * XXP1;
}

static inline u64 xx_merge(u64 acc, u64 v)
{
	acc ^= xx_round(0, v);
	return acc * XXP1 + XXP4;
}

u64 sym_hash64(const void *data, size_t len, u64 seed)
{
	const unsigned char *p = data, *end = len ? p + len : p; /* no offset to NULL */
	u64 h;

	if (len >= 32) {
		u64 v1 = seed + XXP1 + XXP2, v2 = seed + XXP2, v3 = seed, v4 = seed - XXP1;

		do {
			v1 = xx_round(v1, read64(p));
			v2 = xx_round(v2, read64(p + 8));
			v3 = xx_round(v3, read64(p + 16));
			v4 = xx_round(v4, read64(p + 24));
			p += 32;
		} while (end - p >= 32);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xx_merge(h, v1);
		h = xx_merge(h, v2);
		h = xx_merge(h, v3);
		h = xx_merge(h, v4);
	} else {
		h = seed + XXP5;
	}
	h += (u64)len;
	for (; end - p >= 8; p += 8)
		h = rotl64(h ^ xx_round(0, read64(p)), 27) * XXP1 + XXP4;
	if (end - p >= 4) {
		u32 w;

		memcpy(&w, p, 4);
		h = rotl64(h ^ ((u64)w * XXP1), 23) * XXP2 + XXP3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl64(h ^ (*p * XXP5), 11) * XXP1;
	h ^= h >> 33;
	h *= XXP2;
	h ^= h >> 29;
	h *= XXP3;
	h ^= h >> 32;
	return h;
}

int sym_hash_range(int fd, u64 len, u64 *out)
{
	size_t cap = 1 << 20;
	unsigned char *buf = malloc(cap);
	off_t off = 0;
	u64 h = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while ((u64)off < len &&
	       (n = pread(fd, buf, len - (u64)off < cap ? (size_t)(len - (u64)off) : cap, off)) !=
		       0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		h = sym_hash64(buf, (size_t)n, h);
		off += n;
	}
	free(buf);
	*out = h;
	return 0;
}

/* ---- configuration ---------------------------------------------------- */

int sym_cache_parse_size(const char *text, u64 *out)
{
	unsigned long long v;
	char *end;
	unsigned int shift = 0;

	if (!text || text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (u64)v << shift;
	return 0;
}

/*
 * The directory: $XDG_CACHE_HOME/ebs when that is absolute, else
 * $HOME/.cache/ebs; then the kind's sub-directory.
 */
static char *default_dir(const struct sym_cache_kind *k)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (xdg && xdg[0] == '/') {
		if (asprintf(&p, "%s/ebs%s", xdg, k->sub) < 0)
			p = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&p, "%s/.cache/ebs%s", home, k->sub) < 0)
			p = NULL;
	}
	return p;
}

/* One warning line through c's warn, as symbolizer__warn says it ("warning: ..."). */
static void cache_say(ebs_warn_fn *warn, void *ctx, enum ebs_code code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cache_say(ebs_warn_fn *warn, void *ctx, enum ebs_code code, const char *fmt, ...)
{
	static const char head[] = "warning: ";
	char msg[sizeof(head) - 1 + 1024];
	va_list ap;

	if (!warn)
		return;
	memcpy(msg, head, sizeof(head) - 1);
	va_start(ap, fmt);
	ebs_vformat_line(msg + sizeof(head) - 1, 1024, fmt, ap);
	va_end(ap);
	warn(ctx, code, msg);
}

struct sym_cache *sym_cache__new_kind(const struct sym_cache_kind *k, const char *dir,
				      ebs_warn_fn *warn, void *warn_ctx)
{
	const char *max = getenv(k->env);
	struct sym_cache *c;
	u64 cap = k->max;

	if (max && sym_cache_parse_size(max, &cap)) {
		cache_say(warn, warn_ctx, EBS_E_OK,
			  "%s='%.40s' is not a size (bytes, or with K, M or G): the %s holds up "
			  "to %s",
			  k->env, max, k->what, k->max_text);
		cap = k->max;
	}
	errno = 0;
	if (!cap)
		return NULL; /* EBS_CACHE_MAX=0: no cache */
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->dir = dir ? strdup(dir) : default_dir(k);
	if (!c->dir) { /* no HOME (or no memory): no cache, nothing to say */
		free(c);
		errno = dir ? ENOMEM : 0;
		return NULL;
	}
	c->kind = k;
	c->dfd = -1;
	c->max = cap;
	c->uid = geteuid();
	c->warn = warn;
	c->warn_ctx = warn_ctx;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

struct sym_cache *sym_cache__new(struct symbolizer *s, const char *dir)
{
	return sym_cache__new_kind(&sym_cache_dwarf, dir, s->warn, s->warn_ctx);
}

u64 sym_cache__max(const struct sym_cache *c)
{
	return c->max;
}

const char *sym_cache__dir(const struct sym_cache *c)
{
	return c->dir;
}

void sym_cache__free(struct sym_cache *c)
{
	if (!c)
		return;
	if (c->dfd >= 0)
		close(c->dfd);
	pthread_mutex_destroy(&c->lock);
	free(c->dir);
	free(c);
}

/*
 * One warning line per run, whatever goes wrong after the first: what (and
 * err's words, unless 0), and how to go on without a word.
 */
static void cache_warn(struct sym_cache *c, const char *what, int err)
{
	pthread_mutex_lock(&c->lock);
	if (!c->warned)
		cache_say(c->warn, c->warn_ctx, err ? ebs_error_code_of_errno(err) : EBS_E_OK,
			  "%s %s: %s%s%s (%s)", c->kind->what, c->dir, what, err ? ": " : "",
			  err ? strerror(err) : "", c->kind->hint);
	c->warned = true;
	pthread_mutex_unlock(&c->lock);
}

/* Where make_dirs stopped: path[0..len) (and its parent, path[0..parent)). */
struct dirs_failed {
	int len, parent;
	bool not_yours; /* it does not exist, and the parent is not the caller's */
};

/*
 * mkdir -p of path's directories, each made 0700, and only inside a
 * directory of uid's own: root under sudo, with the user's HOME, must not
 * leave directories of root's in the user's home.
 */
static int make_dirs(char *path, uid_t uid, struct dirs_failed *f)
{
	char *slash = path;
	struct stat st;

	for (;;) {
		char *next = strchr(slash + 1, '/');

		if (next)
			*next = '\0';
		if (stat(path, &st)) {
			char *last = strrchr(path, '/'); /* path is absolute: there is one */
			int e = errno == ENOENT ? 0 : -errno;

			if (!e && last == path) {
				e = stat("/", &st) ? -errno : 0;
			} else if (!e) {
				*last = '\0';
				e = stat(path, &st) ? -errno : 0;
				*last = '/';
			}
			if (!e && st.st_uid != uid) {
				/* the missing directory, then its parent, not the caller's */
				e = -EPERM;
				f->not_yours = true;
				f->parent = last == path ? 1 : (int)(last - path);
			} else if (!e && mkdir(path, 0700) && errno != EEXIST) {
				e = -errno;
			}
			if (e) {
				f->len = (int)strlen(path);
				if (next)
					*next = '/';
				return e;
			}
		}
		if (!next)
			return 0;
		*next = '/';
		slash = next;
	}
}

/*
 * May the directory open on fd be used: one of the caller's that no one else
 * may write to?  0, or -1 with what says why (err its errno, or 0).
 */
static int dir_refused(const struct sym_cache *c, int fd, char *what, size_t len, int *err)
{
	struct stat st;

	*err = 0;
	if (fstat(fd, &st)) {
		*err = errno;
		snprintf(what, len, "cannot be opened");
		return -1;
	}
	if (st.st_uid != c->uid)
		snprintf(what, len, "not yours (its owner is uid %u)", (unsigned int)st.st_uid);
	else if (st.st_mode & 022)
		snprintf(what, len, "others may write to it (mode %03o)",
			 (unsigned int)(st.st_mode & 0777));
	else
		return 0;
	return -1;
}

/*
 * The directory's descriptor, checked (and when make, made) on first use;
 * -1 when it cannot be used, or (not make) does not exist.
 */
static int cache_dir_at(struct sym_cache *c, bool make)
{
	char what[2 * PATH_MAX + 96];
	int fd, e;

	if (c->dfd >= 0 || c->unusable)
		return c->dfd;
	c->unusable = true;
	fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == EACCES) && !make) {
		/* nothing there, or out of reach: nothing to read, nothing to say */
		c->unusable = errno == EACCES;
		return -1;
	}
	if (fd < 0 && errno == ENOENT) {
		struct dirs_failed f = {0};

		e = make_dirs(c->dir, c->uid, &f);
		if (e) {
			if (f.not_yours)
				snprintf(
					what, sizeof(what),
					"cannot be made: %.*s does not exist, and %.*s is not yours "
					"to make it in",
					f.len, c->dir, f.parent, c->dir);
			else
				snprintf(what, sizeof(what), "cannot be made: %.*s: %s", f.len,
					 c->dir, strerror(-e));
			cache_warn(c, what, 0);
			return -1;
		}
		fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		cache_warn(c,
			   errno == ELOOP || errno == ENOTDIR ? "not a directory"
							      : "cannot be opened",
			   errno == ELOOP ? ENOTDIR : errno);
		return -1;
	}
	if (dir_refused(c, fd, what, sizeof(what), &e)) {
		close(fd);
		cache_warn(c, what, e);
		return -1;
	}
	c->dfd = fd;
	c->unusable = false;
	return fd;
}

static int cache_dir(struct sym_cache *c)
{
	return cache_dir_at(c, true);
}

int sym_cache__check(struct sym_cache *c)
{
	return cache_dir_at(c, false) < 0 ? -1 : 0;
}

/*
 * The build-id layout's DIR/.build-id/XX (hex2: XX), made 0700 when make,
 * each a directory of the caller's that no one else may write, not
 * followed if a link.  The descriptor (the caller's to close), or -errno
 * (said once, but -ENOENT when not make).
 */
int sym_cache__subdir(struct sym_cache *c, const char *hex2, bool make)
{
	const char *names[2] = {".build-id", hex2};
	char what[PATH_MAX + 96], why[96];
	int dfd = cache_dir_at(c, make), fd = -1, i, e;

	if (dfd < 0)
		return -ENOENT;
	for (i = 0; i < 2; i++) {
		fd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && make &&
		    (!mkdirat(dfd, names[i], 0700) || errno == EEXIST))
			fd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		if (i)
			close(dfd);
		if (fd < 0) {
			if (e == ENOENT && !make)
				return -ENOENT;
			snprintf(what, sizeof(what), "%s%s%s: %s", names[0], i ? "/" : "",
				 i ? hex2 : "",
				 e == ELOOP || e == ENOTDIR ? "not a directory" : strerror(e));
			cache_warn(c, what, 0);
			return -(e == ELOOP ? ENOTDIR : e);
		}
		if (dir_refused(c, fd, why, sizeof(why), &e)) {
			snprintf(what, sizeof(what), "%s%s%s: %s", names[0], i ? "/" : "",
				 i ? hex2 : "", why);
			close(fd);
			cache_warn(c, what, e);
			return -EPERM;
		}
		dfd = fd;
	}
	return fd;
}

void sym_cache__ready(struct sym_cache *c)
{
	if (c)
		(void)cache_dir(c);
}

int sym_cache__open(struct sym_cache *c, const char *name, struct stat *st)
{
	int dfd = cache_dir(c), fd;

	if (dfd < 0)
		return -ENOENT;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != c->uid) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

void sym_cache__used(int fd)
{
	/* the entry's mtime says when it was last used, for eviction */
	(void)futimens(fd, NULL);
}

int sym_cache__create_at(struct sym_cache *c, int dfd, const char *name, char *tmp, size_t tmp_len)
{
	int fd = -1, i;

	for (i = 0; i < 16 && fd < 0; i++) {
		u64 r = 0;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (u64)getpid() << 32 ^ (u64)time(NULL) ^ (u64)i << 20 ^ (uintptr_t)&r;
		snprintf(tmp, tmp_len, ".%s.tmp.%012llx", name,
			 (unsigned long long)(r & 0xffffffffffffull));
		fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;

		cache_warn(c, "cannot write an entry", e);
		return -e;
	}
	return fd;
}

int sym_cache__create(struct sym_cache *c, const char *name, char *tmp, size_t tmp_len)
{
	int dfd = cache_dir(c);

	if (dfd < 0)
		return -ENOENT;
	return sym_cache__create_at(c, dfd, name, tmp, tmp_len);
}

void sym_cache__abort_at(struct sym_cache *c, int dfd, int fd, const char *tmp, int err)
{
	close(fd);
	if (dfd >= 0)
		unlinkat(dfd, tmp, 0);
	if (err)
		cache_warn(c, "cannot write an entry", err);
}

void sym_cache__abort(struct sym_cache *c, int fd, const char *tmp, int err)
{
	sym_cache__abort_at(c, c->dfd, fd, tmp, err);
}

struct cache_file {
	char *name;
	u64 size;
	struct timespec mtime;
};

static int file_cmp(const void *pa, const void *pb)
{
	const struct cache_file *a = pa, *b = pb;

	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Is name an entry (NAME.SUFFIX in the DWARF cache; any name not starting
 * with '.' in the build-id layout) or a temporary file of one?
 */
static bool is_entry(const struct sym_cache *c, const char *name, bool *tmp)
{
	*tmp = name[0] == '.' && strstr(name, ".tmp.");
	return *tmp || (name[0] != '.' && (c->kind->buildid || strrchr(name, '.')));
}

struct cache_files {
	struct cache_file *v;
	size_t n, cap;
	u64 total; /* of every entry and temporary file seen */
};

/*
 * The entries of the directory base/prefix (prefix "" or "XX/") into l,
 * named from base.  A temporary file left by a run that died (older than
 * STALE_TMP_SECONDS) goes at once.  -ENOMEM, else 0.
 */
static int collect(struct sym_cache *c, int base, const char *prefix, struct cache_files *l)
{
	char name[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int fd, e = 0;

	fd = openat(base, prefix[0] ? prefix : ".",
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		bool tmp;

		if (!is_entry(c, de->d_name, &tmp) ||
		    snprintf(name, sizeof(name), "%s%s", prefix, de->d_name) >= (int)sizeof(name) ||
		    fstatat(base, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != c->uid)
			continue;
		if (tmp && st.st_mtim.tv_sec + STALE_TMP_SECONDS < time(NULL)) {
			unlinkat(base, name, 0);
			continue;
		}
		l->total += (u64)st.st_size;
		if (tmp)
			continue; /* a writer's, still being written: counted, not removed */
		if (ebs_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 16) ||
		    !(l->v[l->n].name = strdup(name))) {
			e = -ENOMEM;
			break;
		}
		l->v[l->n].size = (u64)st.st_size;
		l->v[l->n].mtime = st.st_mtim;
		l->n++;
	}
	closedir(dir);
	return e;
}

/* Is name a two-digit lower-case hex name, as the build-id layout's directories are? */
static bool is_hex2(const char *name)
{
	return strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2;
}

/*
 * Hold the entries to c->max: oldest first (by mtime), out until the rest
 * fit.  Temporary files count too.  The build-id layout's entries are
 * those of each .build-id/XX.
 */
static void evict(struct sym_cache *c)
{
	struct cache_files l = {0};
	int base = c->dfd, own = -1;
	size_t i;

	if (c->dfd < 0)
		return;
	if (!c->kind->buildid) {
		collect(c, base, "", &l);
	} else {
		struct dirent *de;
		char prefix[4];
		DIR *dir;

		int rfd;

		own = openat(c->dfd, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		base = own;
		/* a second descriptor to read it: closedir closes its own */
		rfd = own < 0 ? -1 : openat(own, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		dir = rfd < 0 ? NULL : fdopendir(rfd);
		if (!dir && rfd >= 0)
			close(rfd);
		while (dir && (de = readdir(dir))) {
			if (!is_hex2(de->d_name))
				continue;
			snprintf(prefix, sizeof(prefix), "%.2s/", de->d_name); /* is_hex2: 2 */
			if (collect(c, base, prefix, &l))
				break;
		}
		if (dir)
			closedir(dir);
	}
	if (l.total > c->max && l.n) {
		qsort(l.v, l.n, sizeof(*l.v), file_cmp);
		for (i = 0; i < l.n && l.total > c->max; i++)
			if (!unlinkat(base, l.v[i].name, 0) || errno == ENOENT)
				l.total -= l.v[i].size;
	}
	for (i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	if (own >= 0)
		close(own);
}

void sym_cache__evict(struct sym_cache *c)
{
	pthread_mutex_lock(&c->lock);
	evict(c);
	pthread_mutex_unlock(&c->lock);
}

int sym_cache__commit_at(struct sym_cache *c, int dfd, int fd, const char *tmp, const char *name)
{
	int e = 0;
	struct stat st;

	/* larger than the cap: not kept, and nothing else evicted for it */
	if (!fstat(fd, &st) && (u64)st.st_size > c->max) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		return -EFBIG;
	}

	if (close(fd))
		e = errno;
	else if (renameat(dfd, tmp, dfd, name))
		e = errno;
	if (e) {
		unlinkat(dfd, tmp, 0);
		cache_warn(c, "cannot write an entry", e);
		return -e;
	}
	return 0;
}

int sym_cache__commit(struct sym_cache *c, int fd, const char *tmp, const char *name)
{
	int e = sym_cache__commit_at(c, c->dfd, fd, tmp, name);

	if (!e)
		sym_cache__evict(c);
	return e;
}
