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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/internal.h"

#define CACHE_MAX_DEFAULT (512ull << 20)
#define STALE_TMP_SECONDS 3600 /* a temporary file this old was left by a killed run */

struct sym_cache {
	char *dir;     /* the directory's path, for warnings */
	int dfd;       /* open on it; -1 until first used */
	bool unusable; /* tried, and it cannot be used: no more tries */
	bool warned;   /* one warning line per run at most */
	u64 max;       /* the total size the entries are held to */
	uid_t uid;
	struct symbolizer *s; /* for warnings */
	/*
	 * The warning and the eviction, which symbolizer__prefetch's threads
	 * may reach at once (writing an inflated copy); the rest of c changes
	 * only before they start (sym_cache__ready).
	 */
	pthread_mutex_t lock;
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

/* The directory: $XDG_CACHE_HOME/ebs when that is absolute, else $HOME/.cache/ebs. */
static char *default_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (xdg && xdg[0] == '/') {
		if (asprintf(&p, "%s/ebs", xdg) < 0)
			p = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&p, "%s/.cache/ebs", home) < 0)
			p = NULL;
	}
	return p;
}

struct sym_cache *sym_cache__new(struct symbolizer *s, const char *dir)
{
	const char *max = getenv("EBS_CACHE_MAX");
	struct sym_cache *c;
	u64 cap = CACHE_MAX_DEFAULT;

	if (max && sym_cache_parse_size(max, &cap)) {
		symbolizer__warn(s, EBS_E_OK,
				 "EBS_CACHE_MAX='%.40s' is not a size (bytes, or with K, M or G): "
				 "the cache holds up to 512M",
				 max);
		cap = CACHE_MAX_DEFAULT;
	}
	if (!cap)
		return NULL; /* EBS_CACHE_MAX=0: no cache */
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->dir = dir ? strdup(dir) : default_dir();
	if (!c->dir) { /* no HOME (or no memory): no cache, nothing to say */
		free(c);
		return NULL;
	}
	c->dfd = -1;
	c->max = cap;
	c->uid = geteuid();
	c->s = s;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

u64 sym_cache__max(const struct sym_cache *c)
{
	return c->max;
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
		symbolizer__warn(c->s, err ? ebs_error_code_of_errno(err) : EBS_E_OK,
				 "cache %s: %s%s%s (reports go on without it; --no-cache or "
				 "EBS_CACHE_MAX=0 goes without a word)",
				 c->dir, what, err ? ": " : "", err ? strerror(err) : "");
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

/* The directory's descriptor, made and checked on first use; -1 when it cannot be used. */
static int cache_dir(struct sym_cache *c)
{
	struct stat st;
	int fd, e;

	if (c->dfd >= 0 || c->unusable)
		return c->dfd;
	c->unusable = true;
	fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		char what[2 * PATH_MAX + 96];
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
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		cache_warn(c, "cannot be opened", e);
		return -1;
	}
	if (st.st_uid != c->uid || (st.st_mode & 022)) {
		char what[96];

		if (st.st_uid != c->uid)
			snprintf(what, sizeof(what), "not yours (its owner is uid %u)",
				 (unsigned int)st.st_uid);
		else
			snprintf(what, sizeof(what), "others may write to it (mode %03o)",
				 (unsigned int)(st.st_mode & 0777));
		close(fd);
		cache_warn(c, what, 0);
		return -1;
	}
	c->dfd = fd;
	c->unusable = false;
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

int sym_cache__create(struct sym_cache *c, const char *name, char *tmp, size_t tmp_len)
{
	int dfd = cache_dir(c), fd = -1, i;

	if (dfd < 0)
		return -ENOENT;
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

void sym_cache__abort(struct sym_cache *c, int fd, const char *tmp, int err)
{
	close(fd);
	if (c->dfd >= 0)
		unlinkat(c->dfd, tmp, 0);
	if (err)
		cache_warn(c, "cannot write an entry", err);
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

/* Is name an entry (NAME.SUFFIX, as entries are named) or a temporary file of one? */
static bool is_entry(const char *name, bool *tmp)
{
	*tmp = name[0] == '.' && strstr(name, ".tmp.");
	return *tmp || (name[0] != '.' && strrchr(name, '.'));
}

/*
 * Hold the entries to c->max: oldest first (by mtime), out until the rest
 * fit.  Temporary files count too, and one left by a run that died (older
 * than STALE_TMP_SECONDS) goes whatever the size.
 */
static void evict(struct sym_cache *c)
{
	struct cache_file *files = NULL;
	size_t n = 0, cap = 0, i;
	u64 total = 0;
	struct dirent *de;
	DIR *dir;
	int fd;

	if (c->dfd < 0)
		return;
	fd = openat(c->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		bool tmp;

		if (!is_entry(de->d_name, &tmp) ||
		    fstatat(c->dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != c->uid)
			continue;
		if (tmp && st.st_mtim.tv_sec + STALE_TMP_SECONDS < time(NULL)) {
			unlinkat(c->dfd, de->d_name, 0);
			continue;
		}
		total += (u64)st.st_size;
		if (tmp)
			continue; /* a writer's, still being written: counted, not removed */
		if (ebs_grow((void **)&files, &cap, n, sizeof(*files), 16))
			break;
		files[n].name = strdup(de->d_name);
		if (!files[n].name)
			break;
		files[n].size = (u64)st.st_size;
		files[n].mtime = st.st_mtim;
		n++;
	}
	closedir(dir);
	if (total > c->max && n) {
		qsort(files, n, sizeof(*files), file_cmp);
		for (i = 0; i < n && total > c->max; i++)
			if (!unlinkat(c->dfd, files[i].name, 0) || errno == ENOENT)
				total -= files[i].size;
	}
	for (i = 0; i < n; i++)
		free(files[i].name);
	free(files);
}

void sym_cache__evict(struct sym_cache *c)
{
	pthread_mutex_lock(&c->lock);
	evict(c);
	pthread_mutex_unlock(&c->lock);
}

int sym_cache__commit(struct sym_cache *c, int fd, const char *tmp, const char *name)
{
	int e = 0;
	struct stat st;

	/* larger than the cap: not kept, and nothing else evicted for it */
	if (!fstat(fd, &st) && (u64)st.st_size > c->max) {
		close(fd);
		unlinkat(c->dfd, tmp, 0);
		return -EFBIG;
	}

	if (close(fd))
		e = errno;
	else if (renameat(c->dfd, tmp, c->dfd, name))
		e = errno;
	if (e) {
		unlinkat(c->dfd, tmp, 0);
		cache_warn(c, "cannot write an entry", e);
		return -e;
	}
	sym_cache__evict(c);
	return 0;
}
