// SPDX-License-Identifier: MIT
/*
 * test-machine.c - report/session/machine.c's lookups against the plain rules.
 *
 * machine__find_map and machine__comm answer from sorted arrays and a
 * segment tree over each process's maps.  Here random histories (a few
 * processes forked from each other, up to 400 maps each on a small grid
 * of addresses so that they overlap and replace each other, times that
 * repeat and arrive out of order, execs, names, empty names) are fed to a
 * machine and to a reference that applies the rules of machine.h the way
 * ebs first did, by scanning every map and name; every lookup must give
 * the same map (by its number, kept in pgoff) and the same name.
 *
 *   test_fixed    a few histories written out by hand (replacement,
 *                 exec, fork, equal times)
 *   test_random   40 random histories, 20,000 lookups each
 *   test_walks    the same histories' kind, looked up in runs as samples
 *                 are (one task, times creeping forward, addresses close),
 *                 which machine.c answers from its last answers while they
 *                 hold; records arriving between the runs
 *   test_rules    the rules of machine.h one by one, each answer written
 *                 out by hand (not by the reference): a child inherits its
 *                 parent's maps as they were at the fork, and through two
 *                 forks; an exec hides the maps from before it from samples
 *                 at or after it, but not from earlier ones nor from
 *                 children forked before it; a later mmap replaces what it
 *                 covers and only that; threads map into their process.
 *                 Each history is looked up twice: with few maps (scanned)
 *                 and with more than SCAN_MAPS (indexed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/machine.h"
#include "test.h"

/* ---- the reference: every map and name scanned ------------------------ */

#define MAX_TASKS 8
#define MAX_MAPS  2000
#define MAX_NAMES 400
#define MAX_EXECS 64

struct ref_map {
	u64 time, start, len, id;
};

struct ref_name {
	u64 time;
	char name[16];
};

struct ref_task {
	u32 tid, ppid, ptid;
	bool forked;
	u64 fork_time;
	struct ref_map maps[MAX_MAPS];
	unsigned int nr_maps;
	struct ref_name names[MAX_NAMES];
	unsigned int nr_names;
	u64 execs[MAX_EXECS];
	unsigned int nr_execs;
};

static struct ref_task ref[MAX_TASKS];
static unsigned int nr_ref;

static struct ref_task *ref_get(u32 tid)
{
	unsigned int i;

	for (i = 0; i < nr_ref; i++)
		if (ref[i].tid == tid)
			return &ref[i];
	if (nr_ref == MAX_TASKS)
		abort();
	memset(&ref[nr_ref], 0, sizeof(ref[0]));
	ref[nr_ref].tid = tid;
	return &ref[nr_ref++];
}

static u64 ref_last_exec(const struct ref_task *p, u64 t)
{
	u64 best = 0;
	unsigned int i;

	for (i = 0; i < p->nr_execs; i++)
		if (p->execs[i] <= t && p->execs[i] > best)
			best = p->execs[i];
	return best;
}

static const struct ref_map *ref_find_in(const struct ref_task *p, u64 addr, u64 t, bool strict)
{
	const struct ref_map *best = NULL;
	u64 since = ref_last_exec(p, t);
	unsigned int i;

	for (i = 0; i < p->nr_maps; i++) {
		const struct ref_map *mm = &p->maps[i];

		if (addr < mm->start || addr - mm->start >= mm->len)
			continue;
		if (strict && (mm->time > t || mm->time < since))
			continue;
		if (!best || mm->time >= best->time)
			best = mm;
	}
	return best;
}

static const struct ref_task *ref_task(u32 tid)
{
	unsigned int i;

	for (i = 0; i < nr_ref; i++)
		if (ref[i].tid == tid)
			return &ref[i];
	return NULL;
}

/* machine.h's rule for machine__find_map, map by map. */
static const struct ref_map *ref_find_map(u32 pid, u64 addr, u64 t)
{
	const struct ref_task *p, *start = ref_task(pid);
	const struct ref_map *mm;
	u64 t0 = t;
	int depth;

	for (p = start, depth = 0; p && depth < 16; depth++) {
		mm = ref_find_in(p, addr, t, true);
		if (mm)
			return mm;
		if (p->nr_execs && ref_last_exec(p, t))
			break;
		t = p->fork_time;
		p = ref_task(p->ppid);
	}
	return start ? ref_find_in(start, addr, t0, false) : NULL;
}

/* machine.h's rule for a task's name, name by name. */
static const char *ref_task_name(u32 tid, u64 t, int depth)
{
	const struct ref_name *best = NULL, *after = NULL;
	const struct ref_task *p = ref_task(tid);
	unsigned int i;

	if (!p)
		return NULL;
	for (i = 0; i < p->nr_names; i++) {
		const struct ref_name *n = &p->names[i];

		if (!n->name[0])
			continue;
		if (n->time <= t && (!best || n->time >= best->time))
			best = n;
		if (n->time > t && (!after || n->time < after->time))
			after = n;
	}
	if (p->forked && p->fork_time <= t && (!best || best->time < p->fork_time)) {
		const char *n = depth < 16 ? ref_task_name(p->ptid, p->fork_time, depth + 1) : NULL;

		if (n && !(p->ptid == 2 && !strcmp(n, "kthreadd")))
			return n;
		best = NULL;
	}
	return best ? best->name : after ? after->name : NULL;
}

/* ---- feeding both ------------------------------------------------------ */

static struct machine *m;

static int feed_map_tid(u32 pid, u32 tid, u64 time, u64 start, u64 len, u64 id);

static int feed_map(u32 pid, u64 time, u64 start, u64 len, u64 id)
{
	return feed_map_tid(pid, pid, time, start, len, id);
}

/* An MMAP record of thread tid of process pid. */
static int feed_map_tid(u32 pid, u32 tid, u64 time, u64 start, u64 len, u64 id)
{
	u64 buf[(sizeof(struct ebs_rec_mmap) + 16) / 8] = {0};
	struct ebs_rec_mmap *r = (void *)buf;
	struct ref_task *p = ref_get(pid);

	r->hdr.type = EBS_REC_MMAP;
	r->hdr.size = sizeof(buf);
	r->time = time;
	r->start = start;
	r->len = len;
	r->pgoff = id;
	r->pid = pid;
	r->tid = tid;
	strcpy(r->filename, "/x");
	if (p->nr_maps == MAX_MAPS)
		abort();
	p->maps[p->nr_maps++] = (struct ref_map){time, start, len, id};
	return machine__add(m, &r->hdr);
}

static int feed_comm(u32 pid, u32 tid, u64 time, const char *name, bool exec)
{
	u64 buf[(sizeof(struct ebs_rec_comm) + 16) / 8] = {0};
	struct ebs_rec_comm *c = (void *)buf;
	struct ref_task *t = ref_get(tid);

	c->hdr.type = EBS_REC_COMM;
	c->hdr.misc = exec ? EBS_COMM_EXEC : 0;
	c->hdr.size = sizeof(buf);
	c->time = time;
	c->pid = pid;
	c->tid = tid;
	snprintf(c->comm, 16, "%s", name);
	if (t->nr_names == MAX_NAMES)
		abort();
	t->names[t->nr_names].time = time;
	snprintf(t->names[t->nr_names++].name, 16, "%s", name);
	if (exec) {
		struct ref_task *p = ref_get(pid);

		if (p->nr_execs == MAX_EXECS)
			abort();
		p->execs[p->nr_execs++] = time;
	}
	return machine__add(m, &c->hdr);
}

static int feed_fork(u32 pid, u32 ppid, u32 tid, u32 ptid, u64 time)
{
	struct ebs_rec_task t = {
		.hdr.type = EBS_REC_FORK,
		.hdr.size = sizeof(t),
		.time = time,
		.pid = pid,
		.ppid = ppid,
		.tid = tid,
		.ptid = ptid,
	};
	struct ref_task *r = ref_get(tid);

	if (pid != ppid)
		r->ppid = ppid;
	r->ptid = ptid;
	r->fork_time = time;
	r->forked = true;
	return machine__add(m, &t.hdr);
}

static void begin(void)
{
	machine__free(m);
	m = machine__new();
	nr_ref = 0;
	if (!m)
		abort();
}

/* ---- checks ------------------------------------------------------------ */

struct tally {
	unsigned long lookups, wrong;
	char first[256];
};

static void check_map(struct tally *g, u32 pid, u64 addr, u64 t)
{
	const struct machine_map *got = machine__find_map(m, pid, addr, t);
	const struct ref_map *want = ref_find_map(pid, addr, t);
	long long gid = got ? (long long)got->sym.pgoff : -1;
	long long wid = want ? (long long)want->id : -1;

	g->lookups++;
	if (gid == wid)
		return;
	if (!g->wrong++)
		snprintf(g->first, sizeof(g->first),
			 "pid %u addr 0x%llx t %llu: map %lld, want %lld", pid,
			 (unsigned long long)addr, (unsigned long long)t, gid, wid);
}

static void check_comm(struct tally *g, u32 pid, u32 tid, u64 t)
{
	const char *got = machine__comm(m, pid, tid, t);
	const char *want = ref_task_name(pid, t, 0);
	char buf[16];

	if (!want && tid != pid)
		want = ref_task_name(tid, t, 0);
	if (!want) {
		snprintf(buf, sizeof(buf), pid ? ":%u" : "swapper", pid);
		want = buf;
	}
	g->lookups++;
	if (got && !strcmp(got, want))
		return;
	if (!g->wrong++)
		snprintf(g->first, sizeof(g->first), "pid %u tid %u t %llu: '%s', want '%s'", pid,
			 tid, (unsigned long long)t, got ? got : "(null)", want);
}

static void report(const char *name, const struct tally *g)
{
	if (g->wrong)
		TEST_FAIL(name, "%lu of %lu lookups differ; first: %s", g->wrong, g->lookups,
			  g->first);
	else if (!g->lookups)
		TEST_FAIL(name, "no lookup made");
	else
		TEST_OK(name);
}

/* Every address of the grid and its edges, at every time of interest. */
static void check_all(struct tally *g, const u32 *pids, unsigned int np, u64 amax, u64 tmax)
{
	unsigned int i;
	u64 a, t;

	for (i = 0; i < np; i++)
		for (t = 0; t <= tmax; t++)
			for (a = 0; a <= amax; a++)
				check_map(g, pids[i], a, t);
}

static void test_fixed(void)
{
	static const u32 pids[] = {10, 11};
	struct tally g = {0};
	int e = 0;

	begin();
	/* 10 maps [0x10,0x20) at 1, replaced at 3, [0x18,0x30) at 2; ties at 5 */
	e |= feed_map(10, 1, 0x10, 0x10, 1);
	e |= feed_map(10, 3, 0x10, 0x10, 2);
	e |= feed_map(10, 2, 0x18, 0x18, 3);
	e |= feed_map(10, 5, 0x00, 0x40, 4);
	e |= feed_map(10, 5, 0x08, 0x08, 5); /* same time, later: wins */
	e |= feed_map(10, 4, 0x30, 0x00, 6); /* empty: never found */
	for (u64 i = 0; i < 12; i++)	     /* enough to be indexed */
		e |= feed_map(10, 6 + i, 0x40 + 4 * i, 4, 7 + i);
	/* 11 forked from 10 at 4, execs at 7, then maps of its own */
	e |= feed_fork(11, 10, 11, 10, 4);
	e |= feed_map(11, 5, 0x20, 0x08, 100);
	e |= feed_comm(11, 11, 7, "child", true);
	e |= feed_map(11, 8, 0x00, 0x10, 101);
	/* names: equal times (the later arrival wins), an empty one, inherited by 11 */
	e |= feed_comm(10, 10, 3, "x", false);
	e |= feed_comm(10, 10, 3, "y", false);
	e |= feed_comm(10, 10, 2, "w", false);
	e |= feed_comm(10, 10, 5, "", false);
	TEST_CHECK("machine: fixed: records taken", e == 0);
	check_all(&g, pids, 2, 0x80, 20);
	report("machine: fixed: maps by time, replacement, exec, fork, equal times", &g);
	memset(&g, 0, sizeof(g));
	for (u64 t = 0; t <= 20; t++) {
		check_comm(&g, 10, 10, t);
		check_comm(&g, 11, 11, t);
	}
	report("machine: fixed: names by time, equal times, inherited at fork", &g);
}

static const u32 rand_pids[4] = {2, 100, 101, 102};

/* One random record: mostly a map, else a name, an exec, a fork or a thread. */
static int feed_random(u64 *seed, u64 tmax, u64 amax, u64 id)
{
	static const char *const names[] = {"a", "b", "", "kthreadd", "c"};
	u32 pid = rand_pids[test_rand(seed) % 4];
	u64 t = test_rand(seed) % tmax, k = test_rand(seed) % 100;

	if (k < 80) {
		u64 start = test_rand(seed) % amax, len = test_rand(seed) % (amax / 2 + 1);

		return feed_map(pid, t, start, len, id);
	}
	if (k < 88)
		return feed_comm(pid, pid, t, names[test_rand(seed) % 5], test_rand(seed) % 3 == 0);
	if (k < 92)
		return feed_comm(pid, 1000 + pid, t, names[test_rand(seed) % 5], false);
	if (k < 94 && pid != 2) {
		u32 parent = pid == 100 ? 2 : pid - 1;

		return feed_fork(pid, parent, pid, parent, t);
	}
	if (k < 96)
		return feed_fork(pid, pid, 1000 + pid, pid, t);
	return 0;
}

/* A random history (101 forked from 100, 102 a thread of 101 ... in any order of records). */
static int random_history(u64 *seed, u64 *tmax, u64 *amax)
{
	unsigned int nmaps = (unsigned int)(test_rand(seed) % 400), i;
	int e = 0;

	*tmax = 50 + test_rand(seed) % 400;
	*amax = 16 + test_rand(seed) % 200;
	begin();
	for (i = 0; i < nmaps + 60; i++)
		e |= feed_random(seed, *tmax, *amax, i);
	return e;
}

static void test_random(void)
{
	struct tally maps = {0}, comms = {0};
	u64 seed = 0x9e3779b97f4a7c15ull, tmax, amax;
	unsigned int round, i;
	int e = 0;

	for (round = 0; round < 40; round++) {
		e |= random_history(&seed, &tmax, &amax);
		for (i = 0; i < 20000; i++) {
			u32 pid = rand_pids[test_rand(&seed) % 4];

			check_map(&maps, pid, test_rand(&seed) % (amax + 8),
				  test_rand(&seed) % (tmax + 4));
			if (i % 8 == 0)
				check_comm(&comms, pid, test_rand(&seed) % 2 ? pid : 1000 + pid,
					   test_rand(&seed) % (tmax + 4));
		}
	}
	TEST_CHECK("machine: random: records taken", e == 0);
	report("machine: random: 40 histories, the map of every lookup as by scanning", &maps);
	report("machine: random: the command name of every lookup as by scanning", &comms);
}

/*
 * Lookups as samples make them: runs of one task (now and then two in
 * turn) whose time creeps forward (now and then back: records of two
 * CPUs) and whose addresses stay close, across the times and addresses
 * where the answers change.  machine.c answers such runs from what it
 * found last, for as long as that holds: every answer must still be the
 * scan's.  Now and then a record arrives after a run, one that changes
 * its answers (a map, a name, an exec of its task, amid its times and
 * addresses), and the run is looked up again.
 */
#define WALK 60

static void test_walks(void)
{
	static const char *const names[] = {"a", "b", "c"};
	struct tally maps = {0}, comms = {0};
	u64 seed = 0x2545f4914f6cdd1dull, tmax, amax;
	unsigned int round, w, i, again;
	int e = 0;

	for (round = 0; round < 40; round++) {
		e |= random_history(&seed, &tmax, &amax);
		for (w = 0; w < 300; w++) {
			u32 pid[2], tid[2];
			u64 ts[WALK], as[WALK];
			u64 t = test_rand(&seed) % (tmax + 4), a = test_rand(&seed) % (amax + 8);
			bool two = test_rand(&seed) % 4 == 0;

			for (i = 0; i < 2; i++) {
				pid[i] = rand_pids[test_rand(&seed) % 4];
				tid[i] = test_rand(&seed) % 2 ? pid[i] : 1000 + pid[i];
			}
			for (i = 0; i < WALK; i++) {
				u64 r = test_rand(&seed) % 16;

				if (r < 5)
					t++;
				else if (r == 5 && t)
					t--;
				a += test_rand(&seed) % 5;
				ts[i] = t;
				as[i] = a = a >= 2 ? a - 2 : 0;
			}
			for (again = 0; again < 2; again++) {
				u64 r = test_rand(&seed) % 8, mid = ts[WALK / 2];

				for (i = 0; i < WALK; i++) {
					unsigned int k = two ? i % 2 : 0;

					check_map(&maps, pid[k], as[i], ts[i]);
					check_comm(&comms, pid[k], tid[k], ts[i]);
				}
				if (again || r > 2)
					break;
				if (r == 0)
					e |= feed_map(pid[0], mid, as[WALK / 2] - as[WALK / 2] % 4,
						      4, 10000 + w);
				else
					e |= feed_comm(pid[0], tid[0], mid, names[w % 3], r == 2);
			}
		}
	}
	TEST_CHECK("machine: walks: records taken", e == 0);
	report("machine: walks: runs of lookups of one task, as by scanning, records between",
	       &maps);
	report("machine: walks: runs of name lookups, as by scanning, records between", &comms);
}

/* ---- the rules of machine.h, answers written out by hand ----------------- */

#define NONE (-1)

struct expect {
	u32 pid;
	u64 addr, t;
	long long id; /* the map's number (pgoff), NONE: no map */
	const char *what;
};

/*
 * Histories (times in the second column of each comment):
 *
 *   100  maps 1 [0x1000,0x2000) at 1; 2 [0x5000,0x6000) at 10
 *   101  forked from 100 at 5; its own 3 [0x1000,0x2000) at 8
 *   102  forked from 101 at 7
 *   200  forked from 100 at 5; 4 [0x3000,0x4000) at 6; 7 [0x7000,0x8000) at 6;
 *        exec at 20; 5 [0x1000,0x1800) and 6 [0x3000,0x3800) at 21;
 *        8 [0x7000,0x8000) at 25, recorded before the exec's records
 *   201  forked from 200 at 23 (after the exec)
 *   202  forked from 200 at 15 (before the exec)
 *   300  12 [0x10000,0x14000) at 9 recorded first, then 10 [0x10000,0x14000)
 *        at 1 and 11 [0x11000,0x12000) at 5; 13 then 14 [0x20000,0x21000) at 12
 *   400  forked from 100 at 1 (which maps 22 [0x40000,0x41000) at 2); thread 401
 *        created at 3 maps 20 [0x30000,0x31000) at 3; the main thread 21
 *        [0x32000,0x33000) at 4
 */
static int feed_rules(bool padded)
{
	static const u32 pids[] = {100, 101, 102, 200, 201, 202, 300, 400};
	struct ebs_rec_task thread = {
		.hdr.type = EBS_REC_FORK,
		.hdr.size = sizeof(thread),
		.time = 3,
		.pid = 400,
		.ppid = 400,
		.tid = 401,
		.ptid = 400,
	};
	unsigned int i, j;
	int e = 0;

	begin();
	e |= feed_map(200, 25, 0x7000, 0x1000, 8);
	e |= feed_map(100, 1, 0x1000, 0x1000, 1);
	e |= feed_map(100, 10, 0x5000, 0x1000, 2);
	e |= feed_fork(101, 100, 101, 100, 5);
	e |= feed_map(101, 8, 0x1000, 0x1000, 3);
	e |= feed_fork(102, 101, 102, 101, 7);
	e |= feed_fork(200, 100, 200, 100, 5);
	e |= feed_map(200, 6, 0x3000, 0x1000, 4);
	e |= feed_map(200, 6, 0x7000, 0x1000, 7);
	e |= feed_fork(202, 200, 202, 200, 15);
	e |= feed_comm(200, 200, 20, "new", true);
	e |= feed_map(200, 21, 0x1000, 0x800, 5);
	e |= feed_map(200, 21, 0x3000, 0x800, 6);
	e |= feed_fork(201, 200, 201, 200, 23);
	e |= feed_map(300, 9, 0x10000, 0x4000, 12);
	e |= feed_map(300, 1, 0x10000, 0x4000, 10);
	e |= feed_map(300, 5, 0x11000, 0x1000, 11);
	e |= feed_map(300, 12, 0x20000, 0x1000, 13);
	e |= feed_map(300, 12, 0x20000, 0x1000, 14);
	e |= feed_fork(400, 100, 400, 100, 1);
	e |= feed_map(100, 2, 0x40000, 0x1000, 22);
	e |= machine__add(m, &thread.hdr);
	e |= feed_map_tid(400, 401, 3, 0x30000, 0x1000, 20);
	e |= feed_map(400, 4, 0x32000, 0x1000, 21);
	/* more than SCAN_MAPS maps each, far from the others: the indexed lookup */
	for (i = 0; padded && i < ARRAY_SIZE(pids); i++)
		for (j = 0; j < 10; j++)
			e |= feed_map(pids[i], 0, 0xf0000000 + 0x1000 * j, 0x1000, 1000 + j);
	return e;
}

static const struct expect rules[] = {
	/* fork */
	{101, 0x1800, 6, 1, "a child finds its parent's map after the fork"},
	{101, 0x5800, 11, NONE, "a child does not get a map its parent made after the fork"},
	{100, 0x5800, 11, 2, "the parent keeps its map made after the fork"},
	{102, 0x1800, 7, 1, "a grandchild inherits through two forks"},
	{101, 0x1800, 9, 3, "the child's own map replaces the inherited one"},
	{101, 0x1800, 7, 1, "before its own map, the child still has the inherited one"},
	{100, 0x1800, 9, 1, "the child's map is not the parent's"},
	{102, 0x1800, 9, 1, "a grandchild forked before its parent's map does not get it"},
	/* exec */
	{200, 0x1900, 19, 1, "before an exec, the inherited maps"},
	{200, 0x1900, 20, NONE, "at the exec's time, the inherited maps are gone"},
	{200, 0x1900, 22, NONE, "after an exec, the inherited maps are gone"},
	{200, 0x1100, 22, 5, "after an exec, the new map"},
	{200, 0x3100, 19, 4, "before an exec, its own map"},
	{200, 0x3100, 22, 6, "after an exec, the new map over its own old one"},
	{200, 0x7100, 19, 7, "before an exec, its own map, though a later one is recorded first"},
	{200, 0x7100, 22, 8,
	 "after an exec, not the map from before it, even for a later one recorded after the sample"},
	{200, 0x7100, 26, 8, "after an exec and the later map, the later map"},
	{200, 0x3900, 22, 4, "machine.h's last resort: any map of the pid covering the address"},
	{201, 0x1100, 24, 5, "a child forked after the exec inherits the new maps"},
	{201, 0x1900, 24, NONE, "a child forked after the exec does not inherit the old ones"},
	{202, 0x1900, 30, 1, "a child forked before the exec keeps the old maps"},
	{202, 0x3900, 30, 4, "a child forked before the exec keeps its parent's map from before"},
	/* replacement */
	{300, 0x11800, 3, 10, "before a replacing mmap, the old map"},
	{300, 0x11800, 6, 11, "after a replacing mmap, the new map where it covers"},
	{300, 0x13000, 6, 10, "after a replacing mmap, the old map where it does not"},
	{300, 0x10800, 5, 10, "a replacing mmap covers only its own range"},
	{300, 0x11800, 10, 12, "a replacement recorded before the maps it replaces"},
	{300, 0x13fff, 10, 12, "the replacement's last byte"},
	{300, 0x14000, 10, NONE, "past every map's end"},
	{300, 0x20800, 12, 14, "two maps at one time: the later record"},
	{300, 0x11800, 0, 12, "before every map: the last resort, the newest"},
	/* threads */
	{400, 0x30800, 5, 20, "a map made by a thread is its process's"},
	{400, 0x32800, 5, 21, "a map made by the main thread"},
	{400, 0x1800, 5, 1, "a thread's creation leaves its process's parent"},
	{400, 0x40800, 5, NONE,
	 "a thread's creation is not its process's fork: the parent's later maps stay out"},
	{401, 0x30800, 5, NONE, "a thread id is not a process: no maps of its own"},
};

static void test_rules(void)
{
	unsigned int pass;
	size_t i;

	for (pass = 0; pass < 2; pass++) {
		const char *how = pass ? "indexed" : "scanned";
		char name[200];

		snprintf(name, sizeof(name), "machine: rules (%s): records taken", how);
		TEST_CHECK(name, feed_rules(pass) == 0);
		for (i = 0; i < ARRAY_SIZE(rules); i++) {
			const struct expect *x = &rules[i];
			const struct machine_map *got = machine__find_map(m, x->pid, x->addr, x->t);
			long long gid = got ? (long long)got->sym.pgoff : NONE;

			snprintf(name, sizeof(name), "machine: rules (%s): %s", how, x->what);
			if (gid == x->id)
				TEST_OK(name);
			else
				TEST_FAIL(name, "pid %u addr 0x%llx t %llu: map %lld, want %lld",
					  x->pid, (unsigned long long)x->addr,
					  (unsigned long long)x->t, gid, x->id);
		}
	}
}

static void teardown(void)
{
	machine__free(m);
}

TEST_MAIN(NULL, teardown, TEST_CASE(test_fixed), TEST_CASE(test_random), TEST_CASE(test_walks),
	  TEST_CASE(test_rules))
