// SPDX-License-Identifier: MIT
/*
 * kallsyms.c - the kernel's text symbols from /proc/kallsyms (or a copy of
 * it).  Lines look like
 *
 *	ffffffff81000000 T _stext
 *	ffffffffc0a01000 t helper	[mymod]
 *
 * Only text symbols (t T w W) are kept.  A symbol covers addresses up to the
 * next symbol; the last one covers KALLSYMS_LAST_SPAN bytes.  The file is
 * untrusted input: a line that does not parse is skipped, and it is read
 * within bounds: a line is at most 16 hex digits, a type, a name of at most
 * 511 bytes (KSYM_NAME_LEN) and a module name of at most 55, about 600
 * bytes; the whole file of a kernel with every module loaded, some 20 MB.
 *
 * The kernel shows every address as 0 to a reader it does not trust
 * (kernel.kptr_restrict; without CAP_SYSLOG, unless perf_event_paranoid
 * allows): no text symbol is really at 0, so those entries are dropped, and
 * a file made mostly of them is refused as hidden rather than letting
 * every kernel address fall to the one symbol that is not.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/internal.h"

#define KALLSYMS_LAST_SPAN  4096
#define KALLSYMS_MAX_SIZE   (256u << 20) /* bytes */
#define KALLSYMS_MAX_LINE   4096	 /* bytes */
#define KALLSYMS_MAX_MODULE 55		 /* MODULE_NAME_LEN - 1 */

static const char kernel_dso[] = "[kernel]";

struct ksym_vec {
	struct ksym *v;
	size_t n, cap;
};

static int ksym_vec__push(struct ksym_vec *kv, const struct ksym *k)
{
	if (ebs_grow((void **)&kv->v, &kv->cap, kv->n, sizeof(*kv->v), 4096))
		return -ENOMEM;
	kv->v[kv->n++] = *k;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* "[name]" interned in k->mods; NULL when out of memory. */
static const char *kallsyms__module(struct kallsyms *k, const char *name, size_t len)
{
	char bracketed[256];

	snprintf(bracketed, sizeof(bracketed), "[%.*s]", (int)len, name);
	return ebs_strset__intern(&k->mods, sym_clean_text(bracketed));
}

/*
 * Parse one line [p, eol) in place: the name (and the module name) are
 * NUL-terminated inside the buffer.  Returns 1 and fills out for a text
 * symbol, 0 for a line to skip, -ENOMEM.
 */
static int parse_line(struct kallsyms *k, char *p, char *eol, struct ksym *out)
{
	char *name, *name_end, *mod = NULL, *mod_end = NULL;
	u64 addr = 0;
	size_t digits;
	char type;

	if (memchr(p, '\0', (size_t)(eol - p)))
		return 0; /* no kallsyms line holds a NUL */
	digits = ebs_parse_hex(p, (size_t)(eol - p), &addr);
	p += digits;
	if (!digits || p >= eol || !is_blank(*p))
		return 0;
	p++;
	if (p >= eol)
		return 0;
	type = *p++;
	if (p >= eol || !is_blank(*p))
		return 0;
	while (p < eol && is_blank(*p))
		p++;
	name = p;
	while (p < eol && !is_blank(*p))
		p++;
	name_end = p;
	if (name == name_end)
		return 0;
	while (p < eol && is_blank(*p))
		p++;
	if (p < eol && *p == '[') {
		mod = p + 1;
		mod_end = memchr(mod, ']', (size_t)(eol - mod));
		if (!mod_end || mod_end == mod || mod_end - mod > KALLSYMS_MAX_MODULE)
			return 0;
	}
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;

	*name_end = '\0';
	out->addr = addr;
	out->name = sym_clean_text(name);
	out->global = type == 'T' || type == 'W';
	out->dso = kernel_dso;
	if (mod) {
		out->dso = kallsyms__module(k, mod, (size_t)(mod_end - mod));
		if (!out->dso)
			return -ENOMEM;
	}
	return 1;
}

/* By address; among aliases global first, then shortest, then strcmp. */
static int ksym__cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;
	size_t la, lb;
	int c;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->global != b->global)
		return a->global ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c < 0 ? -1 : c > 0;
}

/*
 * Read and index kallsyms.  Returns NULL with errno set and err filled
 * when the file cannot be read, is too large or not kallsyms, holds no text
 * symbol, or shows zeroed addresses (see above).
 */
struct kallsyms *kallsyms__load(const char *path, struct ebs_error *why)
{
	struct ksym_vec kv = {0};
	struct kallsyms *k;
	char *buf = NULL, *p, *end, *eol, *q;
	size_t i, n, arena_len = 0, zeros = 0, bad_line = 0;
	ssize_t len;
	int fd, err;

	k = calloc(1, sizeof(*k));
	if (!k) {
		ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
		return NULL;
	}
	/* /proc/kallsyms, or a file the user named: it may be a pipe, let it block */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		ebs_error__set(why, -err, "%s", strerror(-err));
		goto out_free;
	}
	len = ebs_read_fd(fd, KALLSYMS_MAX_SIZE, KALLSYMS_MAX_LINE, &buf, &bad_line);
	close(fd);
	if (len < 0) {
		err = (int)len;
		if (err == -EFBIG)
			ebs_error__fail(why, EBS_E_TOO_LARGE, "larger than %u MiB: not read",
					KALLSYMS_MAX_SIZE >> 20);
		else if (err == -E2BIG)
			ebs_error__fail(why, EBS_E_LINE_TOO_LONG,
					"line %zu is %d bytes long or more: not a kallsyms file",
					bad_line, KALLSYMS_MAX_LINE);
		else
			ebs_error__set(why, -err, "%s", strerror(-err));
		goto out_free;
	}
	end = buf + len;
	for (p = buf; p < end; p = eol + 1) {
		struct ksym ks;
		int r;

		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		r = parse_line(k, p, eol, &ks);
		if (r < 0) {
			err = r;
			ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
			goto out_free;
		}
		if (!r)
			continue;
		if (!ks.addr) {
			zeros++; /* hidden from us, never real text */
			continue;
		}
		if (ks.dso == kernel_dso && !strcmp(ks.name, "_stext"))
			k->stext = ks.addr;
		err = ksym_vec__push(&kv, &ks);
		if (err) {
			ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
			goto out_free;
		}
	}
	if (zeros && zeros >= kv.n) {
		err = -EPERM;
		ebs_error__fail(
			why, EBS_E_ADDRESSES_HIDDEN,
			"addresses are hidden from this user (shown as 0: kernel.kptr_restrict, or no CAP_SYSLOG): kernel symbols unavailable");
		goto out_free;
	}
	if (!kv.n) {
		err = -ENOENT;
		ebs_error__fail(why, EBS_E_NO_SYMBOLS, "no text symbols");
		goto out_free;
	}

	qsort(kv.v, kv.n, sizeof(*kv.v), ksym__cmp);
	for (i = 0, n = 0; i < kv.n; i++) {
		if (n && kv.v[n - 1].addr == kv.v[i].addr)
			continue;
		kv.v[n++] = kv.v[i];
		arena_len += strlen(kv.v[i].name) + 1;
	}

	/* Keep only the names, not the whole file. */
	k->arena = malloc(arena_len);
	if (!k->arena) {
		err = -ENOMEM;
		ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0, q = k->arena; i < n; i++) {
		size_t l = strlen(kv.v[i].name) + 1;

		memcpy(q, kv.v[i].name, l);
		kv.v[i].name = q;
		kv.v[i].end = i + 1 < n ? kv.v[i + 1].addr : kv.v[i].addr + KALLSYMS_LAST_SPAN;
		q += l;
	}
	free(buf);
	k->syms = kv.v;
	k->nsyms = n;
	return k;

out_free:
	free(kv.v);
	free(buf);
	kallsyms__free(k);
	errno = -err;
	return NULL;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	ebs_strset__free(&k->mods);
	free(k->syms);
	free(k->arena);
	free(k);
}

const struct ksym *kallsyms__find(const struct kallsyms *k, u64 addr)
{
	size_t lo = ebs_upper_bound(k->syms, k->nsyms, sizeof(k->syms[0]),
				    offsetof(struct ksym, addr), addr);
	/* modular: the last symbol's end may wrap past 2^64 (end - addr is its span) */
	if (!lo || addr - k->syms[lo - 1].addr >= k->syms[lo - 1].end - k->syms[lo - 1].addr)
		return NULL;
	return &k->syms[lo - 1];
}

struct kallsyms *kallsyms__from_table(const struct sym_ksym *v, size_t n, u64 stext)
{
	struct kallsyms *k = calloc(1, sizeof(*k));
	size_t i, arena_len = 0;
	char *q;

	if (!k)
		return NULL;
	for (i = 0; i < n; i++)
		arena_len += strlen(v[i].name) + 1;
	k->syms = calloc(n ? n : 1, sizeof(*k->syms));
	k->arena = malloc(arena_len ? arena_len : 1);
	if (!k->syms || !k->arena)
		goto fail;
	k->stext = stext;
	for (i = 0, q = k->arena; i < n; i++) {
		struct ksym *ks = &k->syms[k->nsyms];
		size_t l = strlen(v[i].name) + 1;

		if (v[i].start >= v[i].end || (k->nsyms && v[i].start < ks[-1].end))
			continue; /* not as a table must be: left out */
		ks->addr = v[i].start;
		ks->end = v[i].end;
		ks->global = v[i].global;
		ks->dso = kernel_dso;
		if (v[i].dso && strcmp(v[i].dso, kernel_dso)) {
			char mod[256];

			ebs_strlcpy(mod, v[i].dso, sizeof(mod));
			ks->dso = ebs_strset__intern(&k->mods, sym_clean_text(mod));
			if (!ks->dso)
				goto fail;
		}
		memcpy(q, v[i].name, l);
		ks->name = sym_clean_text(q);
		q += l;
		k->nsyms++;
	}
	return k;
fail:
	kallsyms__free(k);
	return NULL;
}

/*
 * The kernel's _stext from /proc/kallsyms, as hex, into buf (for a
 * recording's header, ebs record and calibrate): where KASLR put
 * the kernel this boot, so that a reader can tell whether the running
 * kernel's memory (/proc/kcore) is the recorded one.  _stext is one of the
 * first lines; the search stops there.  0, or -ENOENT when it is hidden
 * (kptr_restrict shows zeros) or not found.
 */
int kallsyms__stext(char *buf, size_t len)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/kallsyms", "re");
	int e = -ENOENT;

	if (!f)
		return -errno;
	while (n++ < 10000 && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_stext")) {
			if (addr) {
				snprintf(buf, len, "%llx", addr);
				e = 0;
			}
			break;
		}
	}
	fclose(f);
	return e;
}

/*
 * /proc/kallsyms read on a thread of its own (symbolize.h): the kernel
 * writes the file out line by line, some 50 ms of system time here.
 */
struct kallsyms_preload {
	pthread_t tid;
	struct kallsyms *k;
	struct ebs_error why;
	int errnum;
};

static void *preload_run(void *arg)
{
	struct kallsyms_preload *p = arg;

	p->k = kallsyms__load("/proc/kallsyms", &p->why);
	p->errnum = p->k ? 0 : errno;
	return NULL;
}

struct kallsyms_preload *kallsyms_preload__start(void)
{
	struct kallsyms_preload *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (sym_thread_create(&p->tid, preload_run, p)) {
		free(p);
		return NULL;
	}
	return p;
}

struct kallsyms *kallsyms_preload__take(struct kallsyms_preload *p, struct ebs_error *why)
{
	struct kallsyms *k;

	pthread_join(p->tid, NULL);
	k = p->k;
	if (!k) {
		*why = p->why;
		errno = p->errnum;
	}
	free(p);
	return k;
}

void kallsyms_preload__free(struct kallsyms_preload *p)
{
	struct ebs_error why;

	if (p)
		kallsyms__free(kallsyms_preload__take(p, &why));
}
