// SPDX-License-Identifier: MIT
/*
 * test-lookup.c - what symbolize.c keeps so that a report's samples cost
 * little, through the public API on the workloads the Makefile builds
 * (hotline, inlmany): every answer must be the one a lookup without it
 * gives.
 *
 *   test_memo   symbolizer__lookup_memo: two files mapped, looked up in turn
 *               every few bytes, each through its own memo, answer as
 *               symbolizer__lookup does, field by field; a kernel mapping
 *               leaves the memo empty; two images of one name and size
 *               share the symbolizer's entry, each still its own DSO
 *   test_ids    sym_result.id: a file mapped under its path and under a
 *               symbolic link to it (one DSO) looked up at the same offsets:
 *               one id per DSO and address, the same through either path
 *               (whose dso_path differ), from 1 up with none skipped; 0 for
 *               the kernel
 *   test_cache  the per-DSO address cache and its slots in front: every few
 *               bytes of two files looked up again and again in random
 *               order, each answer the same entry as the first time, and
 *               the symbol table's for that address
 *   test_jit    anonymous memory of several processes, each named from its
 *               own perf-PID.map (two at one address, one elsewhere), in
 *               either order; a process without a map, a [heap] and a
 *               pid-less mapping named by none; two maps of another user
 *               in a world-writable directory refused, each warned about
 *               once and counted under its own path
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/symbolize.h"
#include "test.h"

static char tmpdir[64], kpath[128];

/* A mapping of the whole of file path at start, as ebs record writes one. */
static bool map_file(struct sym_map *map, const char *path, u64 start)
{
	struct stat st;

	memset(map, 0, sizeof(*map));
	if (stat(path, &st))
		return false;
	map->start = start;
	map->len = ((u64)st.st_size + 4095) & ~4095ull;
	map->ino = st.st_ino; /* vouches for the file: opened without SYM_OPEN_OWNED */
	map->pid = 1;
	map->filename = path;
	return true;
}

/* The workload's path in buf; false with a SKIP line when it is not built. */
static bool workload(char *buf, size_t len, const char *name, const char *label)
{
	const char *dir = test_workloads_dir();

	snprintf(buf, len, "%.3000s/%s", dir ? dir : ".", name);
	if (access(buf, R_OK) == 0)
		return true;
	TEST_SKIP(label, "%s: %s (make workloads)", buf, strerror(errno));
	return false;
}

static bool same_frames(const struct sym_result *a, const struct sym_result *b)
{
	unsigned int i;

	if (a->nr_frames != b->nr_frames)
		return false;
	for (i = 0; i < a->nr_frames; i++)
		if (a->frames[i].function != b->frames[i].function ||
		    a->frames[i].file != b->frames[i].file ||
		    a->frames[i].line != b->frames[i].line ||
		    a->frames[i].column != b->frames[i].column)
			return false;
	return true;
}

/* Are a and b the same answer, field by field (strings by pointer: both are s's)? */
static bool same_result(const struct sym_result *a, const struct sym_result *b)
{
	return a->function == b->function && a->dso == b->dso && a->dso_path == b->dso_path &&
	       a->sym_offset == b->sym_offset && a->dso_addr == b->dso_addr && a->file == b->file &&
	       a->line == b->line && a->column == b->column && a->info == b->info &&
	       same_frames(a, b);
}

/* The file offset of the last byte of section name of the ELF image, or 0. */
static size_t section_end(const unsigned char *img, size_t len, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *strs;
	unsigned int i;

	if (len < sizeof(*eh) || eh->e_shoff + (u64)eh->e_shnum * sizeof(*sh) > len ||
	    eh->e_shstrndx >= eh->e_shnum)
		return 0;
	sh = (const void *)(img + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_name < strs->sh_size && sh[i].sh_size &&
		    sh[i].sh_offset + sh[i].sh_size <= len &&
		    !strcmp((const char *)img + strs->sh_offset + sh[i].sh_name, name))
			return sh[i].sh_offset + sh[i].sh_size - 1;
	return 0;
}

static void test_memo(void)
{
	struct symbolize_opts so = {.demangle = true};
	struct sym_map maps[2], kmap = {0}, img[2];
	struct map_ent *memo[2] = {NULL, NULL}, *kmemo = NULL, *imemo[2] = {NULL, NULL};
	struct sym_result want, got, iwant[2];
	char path[2][PATH_MAX];
	unsigned char *bytes[2] = {NULL, NULL};
	unsigned long looked = 0, wrong = 0;
	struct symbolizer *s = NULL;
	size_t len, at;
	u64 off;
	int i;

	if (!workload(path[0], sizeof(path[0]), "hotline", "lookup: memo") ||
	    !workload(path[1], sizeof(path[1]), "inlmany", "lookup: memo"))
		return;
	so.kallsyms = kpath;
	s = symbolizer__new(&so);
	if (!s || !map_file(&maps[0], path[0], 0x10000000) ||
	    !map_file(&maps[1], path[1], 0x20000000)) {
		TEST_FAIL("lookup: memo: set up", "no symbolizer, or %s unreadable", path[0]);
		goto out;
	}

	/* two files in turn, each through its memo, as a report's samples go */
	for (off = 0; off < maps[0].len || off < maps[1].len; off += 3) {
		for (i = 0; i < 2; i++) {
			u64 addr = maps[i].start + off;

			if (off >= maps[i].len)
				continue;
			looked++;
			if (symbolizer__lookup(s, &maps[i], addr, &want) ||
			    symbolizer__lookup_memo(s, &maps[i], &memo[i], addr, &got) ||
			    !same_result(&want, &got))
				wrong++;
		}
	}
	if (wrong)
		TEST_FAIL("lookup: memo: two files in turn, each answer symbolizer__lookup's",
			  "%lu of %lu differ", wrong, looked);
	else
		TEST_CHECK("lookup: memo: two files in turn, each answer symbolizer__lookup's",
			   looked > 1000 && memo[0] && memo[1] && memo[0] != memo[1]);

	/* the kernel: nothing to remember */
	kmap.start = 0xffffffff80000000ull;
	kmap.len = 0x40000000;
	kmap.filename = "[kernel.kallsyms]_text";
	TEST_CHECK("lookup: memo: a kernel mapping leaves it empty",
		   !symbolizer__lookup_memo(s, &kmap, &kmemo, 0xffffffff81000104ull, &got) &&
			   !kmemo && got.function && !strcmp(got.function, "kfunc") &&
			   got.sym_offset == 4);

	/*
	 * Two images of one name and size, their build-ids a byte apart (two
	 * DSOs): one entry of the symbolizer's serves both, its DSO that of the
	 * image last checked.  Looked up in turn, each must stay its own DSO.
	 */
	bytes[0] = test_slurp(path[0], &len);
	bytes[1] = bytes[0] ? malloc(len) : NULL;
	at = bytes[0] ? section_end(bytes[0], len, ".note.gnu.build-id") : 0;
	if (!bytes[1] || !at) {
		TEST_FAIL("lookup: memo: images", "%s: no build-id note to change", path[0]);
		goto out;
	}
	memcpy(bytes[1], bytes[0], len);
	bytes[1][at] ^= 0x5a;
	for (i = 0; i < 2; i++) {
		img[i] = maps[0];
		img[i].filename = "[vdso]";
		img[i].ino = 0;
		img[i].image = bytes[i];
		img[i].image_size = len;
	}
	wrong = 0;
	for (i = 0; i < 2; i++)
		if (symbolizer__lookup(s, &img[i], img[i].start + 0x40, &iwant[i]))
			wrong++;
	/* in runs of three: the memo serves a run, the other image's lookup comes between */
	for (off = 0; off < 64 && !wrong; off++) {
		i = (int)(off / 3 % 2);
		if (symbolizer__lookup_memo(s, &img[i], &imemo[i], img[i].start + 0x40 + off,
					    &got) ||
		    got.info != iwant[i].info || !imemo[i])
			wrong++;
	}
	TEST_CHECK("lookup: memo: two images of one name and size in runs, each its own DSO",
		   !wrong && iwant[0].info != iwant[1].info && imemo[0] == imemo[1]);
out:
	free(bytes[0]);
	free(bytes[1]);
	symbolizer__free(s);
}

struct seen {
	u64 addr;
	u32 id;
};

static int seen_cmp(const void *pa, const void *pb)
{
	const struct seen *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void test_ids(void)
{
	struct symbolize_opts so = {.kallsyms = kpath};
	char path[PATH_MAX], link[192];
	struct sym_map maps[2], kmap = {0};
	struct sym_result r[2], kr;
	struct seen *seen = NULL;
	size_t n = 0, i, addrs = 0;
	u32 max = 0, ids = 0;
	unsigned long wrong = 0;
	struct symbolizer *s = NULL;
	u64 off;

	if (!workload(path, sizeof(path), "hotline", "lookup: ids"))
		return;
	snprintf(link, sizeof(link), "%s/hotline-link", tmpdir);
	s = symbolizer__new(&so);
	if (!s || symlink(path, link) || !map_file(&maps[0], path, 0x10000000) ||
	    !map_file(&maps[1], link, 0x30000000) || !(seen = calloc(maps[0].len, sizeof(*seen)))) {
		TEST_FAIL("lookup: ids: set up", "%s: %s", link, strerror(errno));
		goto out;
	}
	for (off = 0; off < maps[0].len; off += 5) {
		for (i = 0; i < 2; i++)
			if (symbolizer__lookup(s, &maps[i], maps[i].start + off, &r[i]))
				wrong++;
		/* one DSO, two names for it */
		if (!r[0].id || r[0].id != r[1].id || r[0].info != r[1].info ||
		    r[0].dso_addr != r[1].dso_addr || !strcmp(r[0].dso_path, r[1].dso_path))
			wrong++;
		seen[n].addr = r[0].dso_addr;
		seen[n++].id = r[0].id;
		if (r[0].id > max)
			max = r[0].id;
	}
	/* sorted by address: equal addresses, equal ids */
	qsort(seen, n, sizeof(*seen), seen_cmp);
	for (i = 0; i < n; i++) {
		if (i && seen[i].addr == seen[i - 1].addr && seen[i].id != seen[i - 1].id)
			wrong++;
		addrs += !i || seen[i].addr != seen[i - 1].addr;
	}
	/* ...and as many distinct ids as addresses, the largest their number: 1 to max, each once
	 */
	for (i = 0; i < n; i++) {
		seen[i].addr = seen[i].id;
		seen[i].id = 0;
	}
	qsort(seen, n, sizeof(*seen), seen_cmp);
	for (i = 0; i < n; i++)
		ids += !i || seen[i].addr != seen[i - 1].addr;
	if (wrong)
		TEST_FAIL("lookup: ids: one per DSO and address, through either path",
			  "%lu of %zu lookups wrong", wrong, n);
	else
		TEST_CHECK("lookup: ids: one per DSO and address, through either path",
			   n > 1000 && ids == addrs && max == ids && seen[0].addr == 1);
	kmap.start = 0xffffffff80000000ull;
	kmap.len = 0x40000000;
	kmap.filename = "[kernel.kallsyms]_text";
	TEST_CHECK("lookup: ids: none for the kernel",
		   !symbolizer__lookup(s, &kmap, 0xffffffff81000104ull, &kr) && kr.function &&
			   !kr.id);
out:
	free(seen);
	symbolizer__free(s);
	unlink(link);
}

static void test_cache(void)
{
	struct symbolize_opts so = {.demangle = true};
	char path[2][PATH_MAX];
	struct sym_map maps[2];
	struct sym_result *first = NULL, r;
	struct symbolizer *s = NULL;
	u64 seed = 0x853c49e6748fea9bull, *addr = NULL, off;
	unsigned long looked = 0, wrong = 0, named = 0;
	size_t n = 0, k, all;
	int i;

	if (!workload(path[0], sizeof(path[0]), "hotline", "lookup: cache") ||
	    !workload(path[1], sizeof(path[1]), "inlmany", "lookup: cache"))
		return;
	s = symbolizer__new(&so);
	if (!s || !map_file(&maps[0], path[0], 0x10000000) ||
	    !map_file(&maps[1], path[1], 0x20000000) ||
	    !(addr = calloc(maps[0].len + maps[1].len, sizeof(*addr))) ||
	    !(first = calloc(maps[0].len + maps[1].len, sizeof(*first)))) {
		TEST_FAIL("lookup: cache: set up", "no symbolizer, or %s unreadable", path[0]);
		goto out;
	}
	/*
	 * Every byte, first seen in random order (in address order, hashes
	 * of addresses would never meet), kept: those in functions, and a
	 * few others
	 */
	for (i = 0; i < 2; i++)
		for (off = 0; off < maps[i].len; off++)
			addr[n++] = maps[i].start + off;
	for (k = n; k > 1; k--) {
		size_t j = test_rand(&seed) % k;
		u64 a = addr[j];

		addr[j] = addr[k - 1];
		addr[k - 1] = a;
	}
	for (k = 0, all = n, n = 0; k < all; k++) {
		addr[n] = addr[k];
		if (symbolizer__lookup(s, &maps[addr[n] >= maps[1].start], addr[n], &first[n]))
			wrong++;
		if (first[n].function || addr[n] % 64 == 0)
			n++;
	}
	for (k = 0; k < 10 * n; k++) {
		size_t j = test_rand(&seed) % n;
		const struct sym_map *map = &maps[addr[j] >= maps[1].start];
		struct sym_func fn;
		int e;

		looked++;
		if (symbolizer__lookup(s, map, addr[j], &r)) {
			wrong++;
			continue;
		}
		/* the entry made the first time (its frames are its own array) */
		if (r.id != first[j].id || r.frames != first[j].frames ||
		    !same_result(&r, &first[j]))
			wrong++;
		e = symbolizer__function(s, r.info, r.dso_addr, &fn);
		if (e ? r.function != NULL
		      : r.function != fn.name || r.sym_offset != r.dso_addr - fn.start)
			wrong++;
		named += !e;
	}
	if (wrong)
		TEST_FAIL("lookup: cache: every address again and again, its own entry",
			  "%lu of %lu lookups wrong", wrong, looked);
	else
		TEST_CHECK("lookup: cache: every address again and again, its own entry",
			   n > 2000 && named > looked / 2);
out:
	free(first);
	free(addr);
	symbolizer__free(s);
}

/* Write text into DIR/NAME; false on failure. */
static bool put_map(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	return f && fputs(text, f) >= 0 && !fclose(f);
}

/* The warnings a symbolizer gave, each line once per call. */
struct warned {
	char lines[8][512];
	enum ebs_code codes[8];
	int n;
};

static void keep_warning(void *ctx, enum ebs_code code, const char *msg)
{
	struct warned *w = ctx;

	if (w->n < 8) {
		snprintf(w->lines[w->n], sizeof(w->lines[0]), "%s", msg);
		w->codes[w->n] = code;
	}
	w->n++;
}

/* How many of w's warnings hold needle. */
static int warned_about(const struct warned *w, const char *needle)
{
	int i, k = 0;

	for (i = 0; i < w->n && i < 8; i++)
		k += strstr(w->lines[i], needle) != NULL;
	return k;
}

/* anon maps[i] of pid at start, named name ("//anon", "[heap]"). */
static void map_anon(struct sym_map *map, u32 pid, u64 start, const char *name)
{
	memset(map, 0, sizeof(*map));
	map->start = start;
	map->len = 0x1000;
	map->pgoff = start; /* as the kernel says of anonymous memory */
	map->pid = pid;
	map->filename = name;
}

static void test_jit(void)
{
	struct symbolize_opts so = {.perf_map_dir = tmpdir};
	struct sym_map m[6];
	struct sym_result r[6];
	struct symbolizer *s = NULL;
	struct warned w = {0};
	char shared[128], want[160];
	int i, round, wrong = 0;

	/* 201 and 202 at one address, 203 elsewhere; 204 has no map */
	if (!put_map(tmpdir, "perf-201.map", "200000000 a alpha_fn\n") ||
	    !put_map(tmpdir, "perf-202.map", "200000000 a beta_fn\n") ||
	    !put_map(tmpdir, "perf-203.map", "7f0000001000 40 gamma_fn\n")) {
		TEST_FAIL("lookup: jit: set up", "%s: %s", tmpdir, strerror(errno));
		goto out;
	}
	map_anon(&m[0], 201, 0x200000000, "//anon");
	map_anon(&m[1], 202, 0x200000000, "//anon");
	map_anon(&m[2], 203, 0x7f0000001000, "//anon");
	map_anon(&m[3], 204, 0x200000000, "//anon");
	map_anon(&m[4], 205, 0x200000000, "[heap]");
	map_anon(&m[5], 0, 0x200000000, "//anon");
	/* two symbolizers: the later pid first, then the earlier (the map loaded first won) */
	for (round = 0; round < 2; round++) {
		s = symbolizer__new(&so);
		if (!s) {
			TEST_FAIL("lookup: jit: set up", "no symbolizer");
			goto out;
		}
		for (i = 0; i < 6; i++) {
			int k = round ? 5 - i : i;

			if (symbolizer__lookup(s, &m[k], m[k].start + 7, &r[k]))
				wrong++;
		}
		if (wrong || !r[0].function || strcmp(r[0].function, "alpha_fn") ||
		    !r[1].function || strcmp(r[1].function, "beta_fn") || !r[2].function ||
		    strcmp(r[2].function, "gamma_fn") || strcmp(r[0].dso, "perf-201.map") ||
		    strcmp(r[1].dso, "perf-202.map") || strcmp(r[2].dso, "perf-203.map") ||
		    r[0].info == r[1].info || r[0].info == r[2].info || r[1].info == r[2].info)
			wrong++;
		/* no map, a heap, no pid: nobody's names, the mapping's own */
		for (i = 3; i < 6; i++)
			if (r[i].function || strcmp(r[i].dso, m[i].filename) ||
			    r[i].info == r[0].info || r[i].info == r[1].info ||
			    r[i].info == r[2].info)
				wrong++;
		symbolizer__free(s);
		s = NULL;
	}
	TEST_CHECK("lookup: jit: each process's anonymous memory named from its own perf-PID.map, "
		   "the others by none",
		   !wrong);

	/* nobody's maps in a world-writable directory: refused, each on its own */
	snprintf(shared, sizeof(shared), "%s/shared", tmpdir);
	if (geteuid() != 0) {
		TEST_SKIP("lookup: jit: another user's maps warned about each once",
			  "not root: cannot give a file away");
		goto out;
	}
	if (mkdir(shared, 0700) || chmod(shared, 01777) ||
	    !put_map(shared, "perf-201.map", "200000000 a nobodys_a\n") ||
	    !put_map(shared, "perf-202.map", "200000000 a nobodys_b\n") ||
	    !put_map(shared, "perf-203.map", "7f0000001000 40 roots_fn\n")) {
		TEST_FAIL("lookup: jit: set up the shared directory", "%s", strerror(errno));
		goto out;
	}
	for (i = 201; i <= 202; i++) {
		snprintf(want, sizeof(want), "%s/perf-%d.map", shared, i);
		if (chown(want, 65534, 65534)) {
			TEST_FAIL("lookup: jit: set up the shared directory", "chown: %s",
				  strerror(errno));
			goto out;
		}
	}
	so.perf_map_dir = shared;
	so.warn = keep_warning;
	so.warn_ctx = &w;
	s = symbolizer__new(&so);
	for (round = 0; s && round < 3; round++)
		for (i = 0; i < 3; i++)
			if (symbolizer__lookup(s, &m[i], m[i].start + 7, &r[i]))
				wrong++;
	snprintf(want, sizeof(want), "%s/perf-201.map", shared);
	TEST_CHECK("lookup: jit: another user's map refused: no name, counted under its path",
		   s && !wrong && !r[0].function && !r[1].function && r[0].info &&
			   !strcmp(r[0].info->path, want) && r[0].info->unusable &&
			   r[0].info != r[1].info);
	TEST_CHECK("lookup: jit: ... a map of ours beside them is used",
		   r[2].function && !strcmp(r[2].function, "roots_fn"));
	TEST_CHECK("lookup: jit: ... each of the two warned about once, nothing else",
		   w.n == 2 && warned_about(&w, "/perf-201.map: is owned by") == 1 &&
			   warned_about(&w, "/perf-202.map: is owned by") == 1 &&
			   warned_about(&w, "not trusted") == 2);
	TEST_CHECK("lookup: jit: ... as warnings of code EBS_E_UNTRUSTED",
		   w.n == 2 && w.codes[0] == EBS_E_UNTRUSTED && w.codes[1] == EBS_E_UNTRUSTED &&
			   r[0].info && r[0].info->unusable_code == EBS_E_UNTRUSTED &&
			   warned_about(&w, "warning: ") == 2);
out:
	symbolizer__free(s);
	for (i = 201; i <= 203; i++) {
		snprintf(want, sizeof(want), "%s/perf-%d.map", tmpdir, i);
		unlink(want);
		snprintf(want, sizeof(want), "%s/shared/perf-%d.map", tmpdir, i);
		unlink(want);
	}
	snprintf(shared, sizeof(shared), "%s/shared", tmpdir);
	rmdir(shared);
}

/*
 * symbolize/unwind.c defines sigprocmask (a no-op only inside libunwind):
 * everywhere else it is the libc's, blocking and unblocking for real.
 */
static void test_sigprocmask(void)
{
	sigset_t usr1, old, now;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	TEST_CHECK("sigprocmask blocks", sigprocmask(SIG_BLOCK, &usr1, &old) == 0 &&
						 pthread_sigmask(SIG_SETMASK, NULL, &now) == 0 &&
						 sigismember(&now, SIGUSR1) == 1);
	TEST_CHECK("sigprocmask gives the old mask back", sigismember(&old, SIGUSR1) == 0);
	TEST_CHECK("sigprocmask restores", sigprocmask(SIG_SETMASK, &old, NULL) == 0 &&
						   pthread_sigmask(SIG_SETMASK, NULL, &now) == 0 &&
						   sigismember(&now, SIGUSR1) == 0);
	TEST_CHECK("sigprocmask refuses a bad how",
		   sigprocmask(12345, &usr1, NULL) == -1 && errno == EINVAL);
}

static int setup(void)
{
	FILE *f;

	strcpy(tmpdir, "/tmp/ebs-test-lookup.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		TEST_FAIL("lookup: set up", "mkdtemp: %s", strerror(errno));
		return -1;
	}
	/* a kernel that kallsyms describes */
	snprintf(kpath, sizeof(kpath), "%s/kallsyms", tmpdir);
	f = fopen(kpath, "w");
	if (!f || fputs("ffffffff81000000 T _stext\nffffffff81000100 T kfunc\n", f) < 0 ||
	    fclose(f)) {
		TEST_FAIL("lookup: set up", "%s: %s", kpath, strerror(errno));
		rmdir(tmpdir);
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	unlink(kpath);
	rmdir(tmpdir);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_memo), TEST_CASE(test_ids), TEST_CASE(test_cache),
	  TEST_CASE(test_jit), TEST_CASE(test_sigprocmask))
