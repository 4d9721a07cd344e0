// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/util.h"

static const struct {
	const char *name, *text;
	int errnum;
} codes[] = {
#define EBS_ERROR_ROW(name, errnum, text) {"EBS_E_" #name, text, errnum},
	EBS_ERRORS(EBS_ERROR_ROW)
#undef EBS_ERROR_ROW
};

const char *ebs_error_code_name(enum ebs_code code)
{
	return (unsigned int)code < ARRAY_SIZE(codes) ? codes[code].name : "EBS_E_?";
}

const char *ebs_error_code_text(enum ebs_code code)
{
	return (unsigned int)code < ARRAY_SIZE(codes) ? codes[code].text : "";
}

int ebs_error_code_errno(enum ebs_code code)
{
	return (unsigned int)code < ARRAY_SIZE(codes) ? codes[code].errnum : 0;
}

/* The one row whose errno is errnum, else EBS_E_ERRNO. */
enum ebs_code ebs_error_code_of_errno(int errnum)
{
	enum ebs_code c = EBS_E_ERRNO;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i].errnum == errnum) {
			if (c != EBS_E_ERRNO)
				return EBS_E_ERRNO; /* two rows: none says which */
			c = (enum ebs_code)i;
		}
	return c;
}

__attribute__((format(printf, 4, 0))) static int error_vset(struct ebs_error *e, enum ebs_code code,
							    int errnum, const char *fmt, va_list ap)
{
	if (e) {
		/* one line, whatever a name holds */
		ebs_vformat_line(e->msg, sizeof(e->msg), fmt, ap);
		e->code = code;
		e->err = -errnum;
		e->output = false;
		e->kept = false;
	}
	return -errnum;
}

int ebs_error__fail(struct ebs_error *e, enum ebs_code code, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_vset(e, code, ebs_error_code_errno(code), fmt, ap);
	va_end(ap);
	return r;
}

int ebs_error__set(struct ebs_error *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_vset(e, ebs_error_code_of_errno(errnum), errnum, fmt, ap);
	va_end(ap);
	return r;
}

int ebs_error__output(struct ebs_error *e, int errnum, const char *path, const char *what)
{
	ebs_error__set(e, errnum, "%s: %s: %s", ebs_output_name(path), what, strerror(errnum));
	if (e) {
		e->code = EBS_E_OUTPUT;
		e->output = true;
	}
	return -errnum;
}

void ebs_warn(ebs_warn_fn *fn, void *ctx, enum ebs_code code, const char *fmt, ...)
{
	char small[512], *line = NULL;
	va_list ap;
	int n;

	if (!fn)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) { /* no memory: what fits */
		line = NULL;
		va_start(ap, fmt);
		vsnprintf(small, sizeof(small), fmt, ap);
		va_end(ap);
	}
	fn(ctx, code, ebs_clean_text(line ? line : small, false));
	free(line);
}

void ebs_error__clear(struct ebs_error *e)
{
	if (e) {
		e->code = EBS_E_OK;
		e->err = 0;
		e->output = false;
		e->kept = false;
		e->msg[0] = '\0';
	}
}

size_t ebs_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

static u64 clock_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

u64 ebs_clock_ns(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

u64 ebs_realtime_ns(void)
{
	return clock_of(CLOCK_REALTIME);
}

int ebs_grow(void **v, size_t *cap, size_t n, size_t size, size_t min)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : min;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int ebs_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

size_t ebs_upper_bound(const void *base, size_t n, size_t size, size_t key_off, u64 key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		u64 k;

		memcpy(&k, (const char *)base + mid * size + key_off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct ebs_strset {
	UT_hash_handle hh;
	char s[];
};

const char *ebs_strset__intern(struct ebs_strset **set, const char *s)
{
	struct ebs_strset *e;
	size_t len = strlen(s);

	HASH_FIND(hh, *set, s, len, e);
	if (e)
		return e->s;
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, len + 1);
	HASH_ADD_KEYPTR(hh, *set, e->s, len, e);
	if (!e->hh.tbl) { /* uthash could not allocate its table */
		free(e);
		return NULL;
	}
	return e->s;
}

const char *ebs_strset__intern_clean(struct ebs_strset **set, const char *s)
{
	const char *r;
	char *c;

	if (ebs_text_is_clean(s))
		return ebs_strset__intern(set, s);
	c = strdup(s);
	if (!c)
		return NULL;
	r = ebs_strset__intern(set, ebs_clean_text(c, false));
	free(c);
	return r;
}

const char *ebs_strset__find(const struct ebs_strset *set, const char *s)
{
	struct ebs_strset *e;

	HASH_FIND(hh, set, s, strlen(s), e);
	return e ? e->s : NULL;
}

void ebs_strset__free(struct ebs_strset **set)
{
	struct ebs_strset *e, *tmp;

	if (!set)
		return;
	HASH_ITER(hh, *set, e, tmp) {
		HASH_DEL(*set, e);
		free(e);
	}
}

int ebs_tmp_prefix(const char *path, char *out, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX];

	if (ebs_strlcpy(dir, path, sizeof(dir)) >= sizeof(dir))
		return -ENAMETOOLONG;
	ebs_strlcpy(base, path, sizeof(base));
	if ((size_t)snprintf(out, len, "%s/.%s.tmp.", dirname(dir), basename(base)) >= len)
		return -ENAMETOOLONG;
	return 0;
}

void ebs_format_hex(char *out, size_t out_len, const u8 *b, size_t len)
{
	size_t i;

	if (!out_len)
		return;
	out[0] = '\0';
	for (i = 0; i < len && 2 * i + 2 < out_len; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

size_t ebs_parse_hex(const char *s, size_t len, u64 *out)
{
	u64 v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			break;
		if (i == 16)
			return 0;
		v = v << 4 | d;
	}
	*out = v;
	return i;
}

int ebs_own_vdso(const void **image, size_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR), start, end;
	char *maps = NULL, *line;
	int e = -ENOENT;

	if (!base || ebs_read_file("/proc/self/maps", &maps) < 0) {
		free(maps);
		return -ENOENT;
	}
	for (line = maps; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start == base) {
			*image = (const void *)start;
			*size = end - start;
			e = 0;
			break;
		}
	free(maps);
	return e;
}

void ebs_user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (uid == (uid_t)-1)
		snprintf(buf, len, "whoever that is");
	else if (!getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, len, "%.64s (uid %u)", ebs_clean_text(res->pw_name, false),
			 (unsigned int)uid);
	else
		snprintf(buf, len, "uid %u", (unsigned int)uid);
}

bool ebs_dir_others_write(const struct stat *dir)
{
	uid_t me = geteuid();

	return (dir->st_mode & (S_IWGRP | S_IWOTH)) || (dir->st_uid != 0 && dir->st_uid != me);
}
