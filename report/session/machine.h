/* SPDX-License-Identifier: MIT */
/*
 * machine.h - the processes of a recording as the data file describes them:
 * for every pid its mappings over time (MMAP, exec through COMM, inherited
 * through FORK) and its command names over time.  Pure bookkeeping: no ELF
 * here.
 */
#ifndef EBS_REPORT_MACHINE_H
#define EBS_REPORT_MACHINE_H

#include "data/data.h"
#include "symbolize/symbolize.h"

struct machine;

/* One mapping; sym is what symbolize/ gets.  Valid until machine__free. */
struct machine_map {
	struct sym_map sym;
	u64 time;	     /* when it appeared */
	struct map_ent *ent; /* the session's symbolizer's, for symbolizer__lookup_memo */
};

struct machine *machine__new(void);
/*
 * A machine whose strings (command names, paths) are with's: one name is
 * one pointer in both.  with must outlive it.
 */
struct machine *machine__new_sharing(struct machine *with);
void machine__free(struct machine *m); /* accepts NULL */

/* Feed MMAP, COMM, FORK, EXIT and PROCNS records (others are ignored); 0 or -ENOMEM. */
int machine__add(struct machine *m, const struct ebs_rec *rec);

/* Attach an in-memory image to every map of that name ("[vdso]"). */
void machine__set_image(struct machine *m, const char *name, const void *image, size_t size);

/*
 * The mapping of pid that covered addr at time t: the newest one that
 * appeared before t and after pid's last exec before t, else the parent's
 * (through FORK), else any mapping of pid covering addr.  NULL if none.
 */
struct machine_map *machine__find_map(struct machine *m, u32 pid, u64 addr, u64 t);

/*
 * The command name of a sample of thread tid of process pid at time t: the
 * name pid's main thread had then (from COMM records, or inherited through
 * FORK from the thread that forked it); when unknown, thread tid's name;
 * then "swapper" for pid 0 (the idle tasks), else ":PID".  Never NULL but
 * out of memory.  Interned: the same name is the same pointer, valid until
 * machine__free, so that what a report shows and what --comm compares are
 * one string; its control characters (a process names itself) are '?'.
 */
const char *machine__comm(struct machine *m, u32 pid, u32 tid, u64 t);

/*
 * Where process pid ran at time t, by its PROCNS records (or its parent's
 * at its fork, when it has none): EBS_PROCNS_MNT and _ROOT when in another
 * mount namespace or root than the recorder (a container, a chroot), 0 in
 * the recorder's own.
 */
u32 machine__ns(struct machine *m, u32 pid, u64 t);

/* How many processes PROCNS records put in another mount namespace or root. */
unsigned int machine__ns_procs(const struct machine *m);

#endif /* EBS_REPORT_MACHINE_H */
