// SPDX-License-Identifier: MIT
/*
 * machine.c - per-process mapping history.
 *
 * Records arrive per CPU ring, so across CPUs they are only roughly in time
 * order: maps and names are kept in arrival order with their time, and a
 * lookup picks by time rather than by order.  Strings are interned per
 * machine.
 *
 * One entry per task id: a process's entry (pid) holds its maps and the
 * names of its main thread, which are the process's names; a thread's
 * entry (its tid, which no process shares while the thread lives) holds
 * only that thread's names and where it was forked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "report/machine.h"

/* A task's name from a time on (its COMM record's). */
struct name_at {
	u64 time;
	const char *name;	/* interned: one pointer per distinct name */
};

struct proc {
	u32 pid;		/* the task id: a pid, or a thread's tid */
	u32 ppid;		/* from FORK of a process, 0 when unknown */
	u32 ptid;		/* from FORK: the thread that forked this task */
	bool forked;		/* fork_time and ptid are known */
	u64 fork_time;
	u64 *execs;		/* times of exec, ascending as they arrive */
	unsigned int nr_execs;
	struct machine_map *maps;
	unsigned int nr_maps, cap_maps;
	struct name_at *names;	/* from the COMM records of this tid, any order */
	unsigned int nr_names;
	UT_hash_handle hh;
};

struct machine {
	struct proc *procs;
	struct ebs_strset *strings;	/* command names and paths */
};

/*
 * kthreadd, the parent of every kernel thread, in the initial pid
 * namespace.  The kernel names a kernel thread inside fork (Linux 6.4 and
 * later): the child never runs under kthreadd's name, so it does not
 * inherit it.
 */
#define KTHREADD_PID 2

struct machine *machine__new(void)
{
	return calloc(1, sizeof(struct machine));
}

void machine__free(struct machine *m)
{
	struct proc *p, *tp;

	if (!m)
		return;
	HASH_ITER(hh, m->procs, p, tp) {
		HASH_DEL(m->procs, p);
		free(p->maps);
		free(p->execs);
		free(p->names);
		free(p);
	}
	ebs_strset__free(&m->strings);
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
	return p;
}

static int add_map(struct machine *m, const struct ebs_rec_mmap *r)
{
	struct proc *p = proc_get(m, r->pid);
	struct machine_map *mm;

	if (!p)
		return -ENOMEM;
	if (p->nr_maps == p->cap_maps) {
		unsigned int cap = p->cap_maps ? p->cap_maps * 2 : 16;
		struct machine_map *n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap_maps = cap;
	}
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
	mm->sym.filename = ebs_strset__intern(&m->strings, r->filename);
	if (!mm->sym.filename)
		return -ENOMEM;
	p->nr_maps++;
	return 0;
}

static int add_exec(struct proc *p, u64 time)
{
	u64 *n = realloc(p->execs, (p->nr_execs + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	p->execs = n;
	p->execs[p->nr_execs++] = time;
	return 0;
}

/* A COMM record: the name of task tid from its time on. */
static int add_name(struct machine *m, const struct ebs_rec_comm *c)
{
	struct proc *p = proc_get(m, c->tid);
	struct name_at *n;

	if (!p)
		return -ENOMEM;
	n = realloc(p->names, (p->nr_names + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->names = n;
	n = &p->names[p->nr_names];
	n->time = c->time;
	n->name = ebs_strset__intern(&m->strings, c->comm);
	if (!n->name)
		return -ENOMEM;
	p->nr_names++;
	if (!(c->hdr.misc & EBS_COMM_EXEC))
		return 0;
	p = proc_get(m, c->pid);
	return p ? add_exec(p, c->time) : -ENOMEM;
}

int machine__add(struct machine *m, const struct ebs_rec *rec)
{
	switch (rec->type) {
	case EBS_REC_MMAP:
		return add_map(m, (const void *)rec);
	case EBS_REC_COMM:
		return add_name(m, (const void *)rec);
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
			}
}

/* The time of pid's last exec at or before t, or 0. */
static u64 last_exec(const struct proc *p, u64 t)
{
	u64 best = 0;
	unsigned int i;

	for (i = 0; i < p->nr_execs; i++)
		if (p->execs[i] <= t && p->execs[i] > best)
			best = p->execs[i];
	return best;
}

static const struct machine_map *find_in(const struct proc *p, u64 addr, u64 t, bool strict)
{
	const struct machine_map *best = NULL;
	u64 since = last_exec(p, t);
	unsigned int i;

	for (i = 0; i < p->nr_maps; i++) {
		const struct machine_map *mm = &p->maps[i];

		if (addr < mm->sym.start || addr - mm->sym.start >= mm->sym.len)
			continue;
		if (strict && (mm->time > t || mm->time < since))
			continue;
		if (!best || mm->time >= best->time)
			best = mm;
	}
	return best;
}

const struct machine_map *machine__find_map(struct machine *m, u32 pid, u64 addr, u64 t)
{
	const struct proc *p, *start;
	const struct machine_map *mm;
	u64 t0 = t;
	int depth;

	HASH_FIND(hh, m->procs, &pid, sizeof(pid), start);
	/* own maps, then the ancestors' as they were at fork time */
	for (p = start, depth = 0; p && depth < 16; depth++) {
		u32 ppid = p->ppid;

		mm = find_in(p, addr, t, true);
		if (mm)
			return mm;
		if (p->nr_execs && last_exec(p, t))
			break;	/* exec'd: the parent's maps are gone */
		t = p->fork_time;
		HASH_FIND(hh, m->procs, &ppid, sizeof(ppid), p);
	}
	return start ? find_in(start, addr, t0, false) : NULL;
}

/*
 * The name task tid had at time t: its newest name from t or before, unless
 * it was forked after that name (a reused id) and by t: then the name its
 * forking thread had at the fork, which fork copies.  kthreadd's name is
 * not inherited (a kernel thread is named inside fork); a task without a
 * name from before t takes its first one after t.  NULL when none is known.
 */
static const char *task_name(struct machine *m, u32 tid, u64 t, int depth)
{
	const struct name_at *best = NULL, *after = NULL;
	const struct proc *p;
	unsigned int i;

	HASH_FIND(hh, m->procs, &tid, sizeof(tid), p);
	if (!p)
		return NULL;
	for (i = 0; i < p->nr_names; i++) {
		const struct name_at *n = &p->names[i];

		if (!n->name[0])
			continue;
		if (n->time <= t && (!best || n->time >= best->time))
			best = n;
		if (n->time > t && (!after || n->time < after->time))
			after = n;
	}
	if (p->forked && p->fork_time <= t && (!best || best->time < p->fork_time)) {
		const char *n = depth < 16 ? task_name(m, p->ptid, p->fork_time, depth + 1) : NULL;

		if (n && !(p->ptid == KTHREADD_PID && !strcmp(n, "kthreadd")))
			return n;
		best = NULL;	/* names before the fork were another task's */
	}
	return best ? best->name : after ? after->name : NULL;
}

const char *machine__comm(struct machine *m, u32 pid, u32 tid, u64 t)
{
	const char *name = task_name(m, pid, t, 0);
	char buf[16];

	if (!name && tid != pid)
		name = task_name(m, tid, t, 0);
	if (name)
		return name;
	if (pid == 0)
		return ebs_strset__intern(&m->strings, "swapper");
	snprintf(buf, sizeof(buf), ":%u", pid);
	return ebs_strset__intern(&m->strings, buf);
}
