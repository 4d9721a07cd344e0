// SPDX-License-Identifier: MIT
/*
 * machine.c - per-process mapping history.
 *
 * Records arrive per CPU ring, so across CPUs they are only roughly in time
 * order: maps and names are kept in arrival order with their time, and a
 * lookup picks by time rather than by order.  Strings are interned per
 * machine, or in the first of several (one session's recordings), so that
 * one command name is one pointer in all of them.
 *
 * One entry per task id: a process's entry (pid) holds its maps and the
 * names of its main thread, which are the process's names; a thread's
 * entry (its tid, which no process shares while the thread lives) holds
 * only that thread's names and where it was forked.
 *
 * Lookups are logarithmic, so that a file of many mappings, names or
 * execs costs no more per sample than a small one: the first lookup after
 * records were added sorts a task's names and execs by time and indexes
 * its maps (struct map_index).  And the samples of a task come in runs:
 * the last answers are kept with the spans of time and addresses over
 * which they hold (struct map_memo, struct comm_memo), and a lookup inside
 * them searches nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/machine.h"
#include "util/hash.h"

/* A task's name from a time on (its COMM record's). */
struct name_at {
	u64 time;
	const char *name; /* interned: one pointer per distinct name */
	unsigned int seq; /* arrival order, which breaks ties of time */
};

/*
 * Which map covered an address at a time.  A lookup wants, of the maps
 * covering addr, the newest that appeared at or before t: the maps ranked
 * by (time, arrival), the largest rank below K(t), the number of maps of
 * time <= t.  (Ties of time go to the later arrival, as when mappings
 * replace each other in file order.)  The maps' starts and ends cut the
 * address space into segments, each covered by a map entirely or not at
 * all; a segment tree over them keeps in each node the ranks, ascending,
 * of the maps that cover that node's segments and not its parent's, so a
 * map sits in at most 2 log2(segments) nodes.  A lookup walks from its
 * segment's leaf to the root and binary-searches each node: O(log^2 n).
 */
struct map_index {
	u32 *order;  /* map numbers by rank: (time, arrival) ascending */
	u64 *times;  /* times[k] = maps[order[k]].time */
	u64 *bounds; /* segment boundaries, ascending, distinct */
	size_t nbounds;
	size_t leaves; /* a power of two >= nbounds - 1 */
	size_t *first; /* node i's ranks: ranks[first[i] .. first[i + 1]) */
	u32 *ranks;
};

struct proc {
	u32 pid;     /* the task id: a pid, or a thread's tid */
	u32 ppid;    /* from FORK of a process, 0 when unknown */
	u32 ptid;    /* from FORK: the thread that forked this task */
	bool forked; /* fork_time and ptid are known */
	u64 fork_time;
	u64 *execs; /* times of exec; sorted when sorted is set */
	size_t nr_execs, cap_execs;
	struct machine_map *maps;
	unsigned int nr_maps;
	size_t cap_maps;
	struct name_at *names; /* from the COMM records of this tid; sorted by
				* (time, seq) when sorted is set */
	size_t nr_names, cap_names;
	bool sorted;	      /* execs and names sorted, the map index built */
	struct map_index *ix; /* NULL when few maps (or no memory): scanned */
	struct ns_at *ns;     /* from its PROCNS records, in arrival order */
	size_t nr_ns, cap_ns;
	UT_hash_handle hh;
};

/* Where a process ran from a time on (its PROCNS record's): EBS_PROCNS_* */
struct ns_at {
	u64 time;
	u32 flags;
};

/* A span of time [lo, hi), or of addresses. */
struct span {
	u64 lo, hi;
};

/*
 * The answers of recent lookups, each with the spans of time (and of
 * addresses) over which the same question has the same answer, so that a
 * run of samples of one task costs no search.  A record added, or an
 * image attached, empties them (memo_clear).
 */
struct map_memo {
	struct machine_map *map; /* NULL: empty */
	u32 pid;
	struct span t, addr;
};

struct comm_memo {
	const char *name; /* NULL: empty */
	u32 pid, tid;
	struct span t;
};

#define MAP_MEMOS 4

struct machine {
	struct proc *procs;
	struct ebs_strset **strings; /* command names and paths: own, or another machine's */
	struct ebs_strset *own;
	struct map_memo maps[MAP_MEMOS];
	unsigned int next_map; /* the entry of maps[] to replace next */
	struct comm_memo comm;
	unsigned int ns_procs; /* processes some PROCNS record puts elsewhere */
};

/*
 * kthreadd, the parent of every kernel thread, in the initial pid
 * namespace.  The kernel names a kernel thread inside fork (Linux 6.4 and
 * later): the child never runs under kthreadd's name, so it does not
 * inherit it.
 */
#define KTHREADD_PID 2

/* Up to this many maps a process's maps are scanned rather than indexed. */
#define SCAN_MAPS 8

struct machine *machine__new(void)
{
	return machine__new_sharing(NULL);
}

struct machine *machine__new_sharing(struct machine *with)
{
	struct machine *m = calloc(1, sizeof(struct machine));

	if (m)
		m->strings = with ? with->strings : &m->own;
	return m;
}

static void index_free(struct map_index *ix)
{
	if (!ix)
		return;
	free(ix->order);
	free(ix->times);
	free(ix->bounds);
	free(ix->first);
	free(ix->ranks);
	free(ix);
}

void machine__free(struct machine *m)
{
	struct proc *p, *tp;

	if (!m)
		return;
	HASH_ITER(hh, m->procs, p, tp) {
		HASH_DEL(m->procs, p);
		index_free(p->ix);
		free(p->maps);
		free(p->execs);
		free(p->names);
		free(p->ns);
		free(p);
	}
	ebs_strset__free(&m->own);
	free(m);
}

static struct proc *proc_get(struct machine *m, u32 pid)
{
	struct proc *p;

	HASH_FIND(hh, m->procs, &pid, sizeof(pid), p);
	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	HASH_ADD(hh, m->procs, pid, sizeof(p->pid), p);
	if (!p->hh.tbl) {
		free(p);
		return NULL;
	}
	return p;
}

static int add_map(struct machine *m, const struct ebs_rec_mmap *r)
{
	struct proc *p = proc_get(m, r->pid);
	struct machine_map *mm;

	if (!p)
		return -ENOMEM;
	if (ebs_grow((void **)&p->maps, &p->cap_maps, p->nr_maps, sizeof(*p->maps), 16))
		return -ENOMEM;
	mm = &p->maps[p->nr_maps];
	memset(mm, 0, sizeof(*mm));
	mm->time = r->time;
	mm->sym.start = r->start;
	mm->sym.len = r->len;
	mm->sym.pgoff = r->pgoff;
	mm->sym.ino = r->ino;
	mm->sym.maj = r->maj;
	mm->sym.min = r->min;
	mm->sym.pid = r->pid;
	if (r->hdr.misc & EBS_MMAP_BUILD_ID) {
		mm->sym.build_id_size = r->build_id_size;
		memcpy(mm->sym.build_id, r->build_id, r->build_id_size);
	}
	mm->sym.filename = ebs_strset__intern(m->strings, r->filename);
	if (!mm->sym.filename)
		return -ENOMEM;
	p->nr_maps++;
	p->sorted = false;
	return 0;
}

static int add_exec(struct proc *p, u64 time)
{
	if (ebs_grow((void **)&p->execs, &p->cap_execs, p->nr_execs, sizeof(*p->execs), 4))
		return -ENOMEM;
	p->execs[p->nr_execs++] = time;
	p->sorted = false;
	return 0;
}

/* A COMM record: the name of task tid from its time on. */
static int add_name(struct machine *m, const struct ebs_rec_comm *c)
{
	struct proc *p = proc_get(m, c->tid);
	struct name_at *n;

	if (!p)
		return -ENOMEM;
	if (!c->comm[0])
		goto exec; /* no name: nothing to look up */
	if (ebs_grow((void **)&p->names, &p->cap_names, p->nr_names, sizeof(*p->names), 4))
		return -ENOMEM;
	n = &p->names[p->nr_names];
	n->time = c->time;
	n->seq = (unsigned int)p->nr_names;
	n->name =
		ebs_strset__intern_clean(m->strings, c->comm); /* shown, and compared with --comm */
	if (!n->name)
		return -ENOMEM;
	p->nr_names++;
	p->sorted = false;
exec:
	if (!(c->hdr.misc & EBS_COMM_EXEC))
		return 0;
	p = proc_get(m, c->pid);
	return p ? add_exec(p, c->time) : -ENOMEM;
}

/* A PROCNS record: where process pid ran from its time on. */
static int add_ns(struct machine *m, const struct ebs_rec_procns *r)
{
	struct proc *p = proc_get(m, r->pid);
	bool elsewhere = false;
	size_t i;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < p->nr_ns; i++)
		elsewhere |= p->ns[i].flags != 0;
	if (ebs_grow((void **)&p->ns, &p->cap_ns, p->nr_ns, sizeof(*p->ns), 2))
		return -ENOMEM;
	p->ns[p->nr_ns].time = r->time;
	p->ns[p->nr_ns].flags = r->flags & (EBS_PROCNS_MNT | EBS_PROCNS_ROOT);
	if (!elsewhere && p->ns[p->nr_ns].flags)
		m->ns_procs++;
	p->nr_ns++;
	return 0;
}

u32 machine__ns(struct machine *m, u32 pid, u64 t)
{
	unsigned int depth;
	struct proc *p;

	if (!m->ns_procs)
		return 0; /* all in the recorder's own (no PROCNS record elsewhere) */
	HASH_FIND(hh, m->procs, &pid, sizeof(pid), p);
	/* a process forked and not yet noted runs where its parent did */
	for (depth = 0; p && depth < 64; depth++) {
		const struct ns_at *best = NULL;
		size_t i;

		for (i = 0; i < p->nr_ns; i++) /* few: one per change */
			if (p->ns[i].time <= t && (!best || p->ns[i].time >= best->time))
				best = &p->ns[i];
		if (best)
			return best->flags;
		if (p->nr_ns || !p->forked || !p->ppid)
			return 0;
		if (p->fork_time < t)
			t = p->fork_time;
		pid = p->ppid;
		HASH_FIND(hh, m->procs, &pid, sizeof(pid), p);
	}
	return 0;
}

unsigned int machine__ns_procs(const struct machine *m)
{
	return m->ns_procs;
}

/* Forget the memos: a record changes what lookups answer. */
static void memo_clear(struct machine *m)
{
	memset(m->maps, 0, sizeof(m->maps));
	memset(&m->comm, 0, sizeof(m->comm));
}

int machine__add(struct machine *m, const struct ebs_rec *rec)
{
	if (rec->type == EBS_REC_MMAP || rec->type == EBS_REC_COMM || rec->type == EBS_REC_FORK)
		memo_clear(m);
	switch (rec->type) {
	case EBS_REC_MMAP:
		return add_map(m, (const void *)rec);
	case EBS_REC_COMM:
		return add_name(m, (const void *)rec);
	case EBS_REC_PROCNS:
		return add_ns(m, (const void *)rec);
	case EBS_REC_FORK: {
		const struct ebs_rec_task *t = (const void *)rec;
		struct proc *p = proc_get(m, t->tid);

		if (!p)
			return -ENOMEM;
		/* a new process (tid == pid) inherits maps; any new task its name */
		if (t->pid != t->ppid)
			p->ppid = t->ppid;
		p->ptid = t->ptid;
		p->fork_time = t->time;
		p->forked = true;
		return 0;
	}
	default:
		return 0;
	}
}

void machine__set_image(struct machine *m, const char *name, const void *image, size_t size)
{
	struct proc *p, *tp;
	unsigned int i;

	HASH_ITER(hh, m->procs, p, tp)
		for (i = 0; i < p->nr_maps; i++)
			if (strcmp(p->maps[i].sym.filename, name) == 0) {
				p->maps[i].sym.image = image;
				p->maps[i].sym.image_size = size;
				p->maps[i].ent = NULL; /* another mapping now */
			}
	memo_clear(m);
}

static int cmp_name(const void *a, const void *b)
{
	const struct name_at *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Rank order of maps: by time, then by arrival (the map's number). */
static int cmp_rank(const void *a, const void *b, void *ctx)
{
	const struct machine_map *maps = ctx;
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	if (maps[x].time != maps[y].time)
		return maps[x].time < maps[y].time ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The index of bound b in ix->bounds, where it is. */
static size_t bound_at(const struct map_index *ix, u64 b)
{
	return ebs_upper_bound(ix->bounds, ix->nbounds, sizeof(u64), 0, b) - 1;
}

/*
 * The nodes of the segment tree that between them cover segments
 * [lo, hi), each segment once, into node[] (node 1 is the root, leaf j is
 * leaves + j; at most two a level, so 128 will do); their number.
 */
static size_t cover(const struct map_index *ix, size_t lo, size_t hi, size_t *node)
{
	size_t l = lo + ix->leaves, r = hi + ix->leaves, n = 0;

	for (; l < r; l >>= 1, r >>= 1) {
		if (l & 1)
			node[n++] = l++;
		if (r & 1)
			node[n++] = --r;
	}
	return n;
}

/* cover() of the map of rank k (none for an empty one). */
static size_t cover_rank(const struct map_index *ix, const struct proc *p, size_t k, size_t *node)
{
	const struct sym_map *s = &p->maps[ix->order[k]].sym;

	if (!s->len)
		return 0;
	return cover(ix, bound_at(ix, s->start), bound_at(ix, s->start + s->len), node);
}

/* Index p's maps (struct map_index); NULL when out of memory. */
static struct map_index *index_build(const struct proc *p)
{
	struct map_index *ix = calloc(1, sizeof(*ix));
	size_t n = p->nr_maps, nb = 0, k, i, j, nodes, nn, node[128];
	size_t *fill = NULL;

	if (!ix)
		return NULL;
	ix->order = malloc(n * sizeof(*ix->order));
	ix->times = malloc(n * sizeof(*ix->times));
	ix->bounds = malloc(2 * n * sizeof(*ix->bounds));
	if (!ix->order || !ix->times || !ix->bounds)
		goto fail;
	for (k = 0; k < n; k++)
		ix->order[k] = (u32)k;
	qsort_r(ix->order, n, sizeof(*ix->order), cmp_rank, p->maps);
	for (k = 0; k < n; k++) {
		const struct sym_map *s = &p->maps[ix->order[k]].sym;

		ix->times[k] = p->maps[ix->order[k]].time;
		if (s->len) { /* start + len does not wrap: the reader checked */
			ix->bounds[nb++] = s->start;
			ix->bounds[nb++] = s->start + s->len;
		}
	}
	qsort(ix->bounds, nb, sizeof(*ix->bounds), ebs_u64_cmp);
	for (i = 0, k = 0; k < nb; k++)
		if (!i || ix->bounds[k] != ix->bounds[i - 1])
			ix->bounds[i++] = ix->bounds[k];
	ix->nbounds = i;
	for (ix->leaves = 1; ix->leaves + 1 < ix->nbounds; ix->leaves <<= 1)
		;
	nodes = 2 * ix->leaves;
	ix->first = calloc(nodes + 1, sizeof(*ix->first));
	fill = calloc(nodes, sizeof(*fill));
	if (!ix->first || !fill)
		goto fail;
	/* count each node's ranks, then place them: in rank order, so ascending */
	for (k = 0; k < n; k++) {
		nn = cover_rank(ix, p, k, node);
		for (j = 0; j < nn; j++)
			ix->first[node[j] + 1]++;
	}
	for (i = 0; i < nodes; i++)
		ix->first[i + 1] += ix->first[i];
	ix->ranks = malloc((ix->first[nodes] ? ix->first[nodes] : 1) * sizeof(*ix->ranks));
	if (!ix->ranks)
		goto fail;
	for (k = 0; k < n; k++) {
		nn = cover_rank(ix, p, k, node);
		for (j = 0; j < nn; j++)
			ix->ranks[ix->first[node[j]] + fill[node[j]]++] = (u32)k;
	}
	free(fill);
	return ix;

fail:
	free(fill);
	index_free(ix);
	return NULL;
}

/*
 * Before a lookup in p: names and execs sorted, maps indexed, once after
 * records were added.  Without memory for the index, maps are scanned.
 */
static void prepare(struct proc *p)
{
	if (p->sorted)
		return;
	if (p->nr_names)
		qsort(p->names, p->nr_names, sizeof(*p->names), cmp_name);
	if (p->nr_execs)
		qsort(p->execs, p->nr_execs, sizeof(*p->execs), ebs_u64_cmp);
	index_free(p->ix);
	p->ix = p->nr_maps > SCAN_MAPS ? index_build(p) : NULL;
	p->sorted = true;
}

/* Narrow sp to the side of boundary b that x is on: [b, ...) when b <= x, else [..., b). */
static void span_cut(struct span *sp, u64 b, u64 x)
{
	if (b <= x) {
		if (b > sp->lo)
			sp->lo = b;
	} else if (b < sp->hi) {
		sp->hi = b;
	}
}

/*
 * Narrow sp to where upper_bound(v, x) (v sorted, n long, the u64 at
 * offset off of each size-byte element) is i, as it is for x.
 */
static void span_bound(struct span *sp, const void *v, size_t n, size_t size, size_t off, size_t i,
		       u64 x)
{
	if (i)
		span_cut(sp, *(const u64 *)((const char *)v + (i - 1) * size + off), x);
	if (i < n)
		span_cut(sp, *(const u64 *)((const char *)v + i * size + off), x);
}

static bool span_has(const struct span *sp, u64 x)
{
	return x >= sp->lo && x < sp->hi;
}

/* The time of pid's last exec at or before t, or 0; tsp (may be NULL) narrowed to where it is. */
static u64 last_exec(const struct proc *p, u64 t, struct span *tsp)
{
	size_t i = ebs_upper_bound(p->execs, p->nr_execs, sizeof(u64), 0, t);

	if (tsp)
		span_bound(tsp, p->execs, p->nr_execs, sizeof(u64), 0, i, t);
	return i ? p->execs[i - 1] : 0;
}

/*
 * Of p's maps covering addr, the one of the largest rank below k; NULL if
 * none.  asp narrowed to addr's segment, where the answer is the same.
 */
static struct machine_map *index_find(const struct proc *p, u64 addr, size_t k, struct span *asp)
{
	const struct map_index *ix = p->ix;
	size_t node, best = SIZE_MAX, seg;

	if (ix->nbounds < 2 || addr < ix->bounds[0] || addr >= ix->bounds[ix->nbounds - 1])
		return NULL;
	seg = bound_at(ix, addr);
	span_cut(asp, ix->bounds[seg], addr);
	span_cut(asp, ix->bounds[seg + 1], addr);
	for (node = seg + ix->leaves; node; node >>= 1) {
		const u32 *r = ix->ranks + ix->first[node];
		size_t lo = 0, hi = ix->first[node + 1] - ix->first[node];

		while (lo < hi) { /* how many of the node's ranks are below k */
			size_t mid = lo + (hi - lo) / 2;

			if (r[mid] < k)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && (best == SIZE_MAX || r[lo - 1] > best))
			best = r[lo - 1];
	}
	return best == SIZE_MAX ? NULL : &p->maps[ix->order[best]];
}

/*
 * The newest of p's maps covering addr (of equal times the last to
 * arrive); strict: only those that appeared at or before t and not before
 * p's last exec at or before t.  p is prepared.  sp (strict only; may be
 * NULL) is narrowed to the times and the addresses around t and addr
 * where the answer is the same: between the times of p's maps and execs,
 * between the starts and ends of its maps.
 */
static struct machine_map *find_in(const struct proc *p, u64 addr, u64 t, bool strict,
				   struct span sp[2])
{
	struct machine_map *best = NULL;
	struct span dummy[2];
	u64 since;
	unsigned int i;

	if (!sp)
		sp = dummy;
	since = strict ? last_exec(p, t, &sp[0]) : 0;
	if (p->ix) {
		size_t k = p->nr_maps;

		if (strict) {
			k = ebs_upper_bound(p->ix->times, p->nr_maps, sizeof(u64), 0, t);
			span_bound(&sp[0], p->ix->times, p->nr_maps, sizeof(u64), 0, k, t);
		}
		best = index_find(p, addr, k, &sp[1]);
		/* the newest map at or before t is from before the exec: so are all others */
		return best && best->time >= since ? best : NULL;
	}
	for (i = 0; i < p->nr_maps; i++) {
		struct machine_map *mm = &p->maps[i];

		span_cut(&sp[0], mm->time, t);
		span_cut(&sp[1], mm->sym.start, addr);
		span_cut(&sp[1], mm->sym.start + mm->sym.len, addr);
		if (addr < mm->sym.start || addr - mm->sym.start >= mm->sym.len)
			continue;
		if (strict && (mm->time > t || mm->time < since))
			continue;
		if (!best || mm->time >= best->time)
			best = mm;
	}
	return best;
}

struct machine_map *machine__find_map(struct machine *m, u32 pid, u64 addr, u64 t)
{
	struct proc *p, *start;
	struct machine_map *mm;
	struct span sp[2] = {{0, UINT64_MAX}, {0, UINT64_MAX}};
	u64 t0 = t;
	int depth, i;

	for (i = 0; i < MAP_MEMOS; i++) {
		const struct map_memo *mo = &m->maps[i];

		if (mo->map && mo->pid == pid && span_has(&mo->t, t) && span_has(&mo->addr, addr))
			return mo->map;
	}
	HASH_FIND(hh, m->procs, &pid, sizeof(pid), start);
	/* own maps, then the ancestors' as they were at fork time */
	for (p = start, depth = 0; p && depth < 16; depth++) {
		u32 ppid = p->ppid;

		prepare(p);
		mm = find_in(p, addr, t, true, depth ? NULL : sp);
		if (mm && !depth) { /* its own: the same for those times and addresses */
			struct map_memo *mo = &m->maps[m->next_map++ % MAP_MEMOS];

			mo->map = mm;
			mo->pid = pid;
			mo->t = sp[0];
			mo->addr = sp[1];
		}
		if (mm)
			return mm;
		if (p->nr_execs && last_exec(p, t, NULL))
			break; /* exec'd: the parent's maps are gone */
		t = p->fork_time;
		HASH_FIND(hh, m->procs, &ppid, sizeof(ppid), p);
	}
	return start ? find_in(start, addr, t0, false, NULL) : NULL;
}

/*
 * The name task tid had at time t: its newest name from t or before, unless
 * it was forked after that name (a reused id) and by t: then the name its
 * forking thread had at the fork, which fork copies.  kthreadd's name is
 * not inherited (a kernel thread is named inside fork); a task without a
 * name from before t takes its first one after t.  NULL when none is known.
 */
static const char *task_name(struct machine *m, u32 tid, u64 t, int depth, struct span *tsp)
{
	const struct name_at *best = NULL, *after = NULL;
	struct proc *p;
	size_t i;

	HASH_FIND(hh, m->procs, &tid, sizeof(tid), p);
	if (!p)
		return NULL;
	prepare(p);
	/* the newest name from t or before (of equal times the last to arrive), the first after */
	i = ebs_upper_bound(p->names, p->nr_names, sizeof(*p->names),
			    offsetof(struct name_at, time), t);
	/* (the same name from that name's time to the next's, on one side of the fork) */
	if (tsp) {
		span_bound(tsp, p->names, p->nr_names, sizeof(*p->names),
			   offsetof(struct name_at, time), i, t);
		if (p->forked)
			span_cut(tsp, p->fork_time, t);
	}
	if (i)
		best = &p->names[i - 1];
	if (i < p->nr_names)
		after = &p->names[i];
	if (p->forked && p->fork_time <= t && (!best || best->time < p->fork_time)) {
		/* (at the fork's time, whatever t) */
		const char *n =
			depth < 16 ? task_name(m, p->ptid, p->fork_time, depth + 1, NULL) : NULL;

		if (n && !(p->ptid == KTHREADD_PID && !strcmp(n, "kthreadd")))
			return n;
		best = NULL; /* names before the fork were another task's */
	}
	return best ? best->name : after ? after->name : NULL;
}

const char *machine__comm(struct machine *m, u32 pid, u32 tid, u64 t)
{
	struct comm_memo *mo = &m->comm;
	struct span sp = {0, UINT64_MAX};
	const char *name;
	char buf[16];

	if (mo->name && mo->pid == pid && mo->tid == tid && span_has(&mo->t, t))
		return mo->name;
	name = task_name(m, pid, t, 0, &sp);
	if (!name && tid != pid)
		name = task_name(m, tid, t, 0, &sp);
	if (!name && pid == 0)
		name = ebs_strset__intern(m->strings, "swapper");
	if (!name) {
		snprintf(buf, sizeof(buf), ":%u", pid);
		name = ebs_strset__intern(m->strings, buf);
	}
	/* the same name for pid and tid over sp */
	mo->name = name;
	mo->pid = pid;
	mo->tid = tid;
	mo->t = sp;
	return name;
}
