// SPDX-License-Identifier: MIT
/*
 * mkdata.c - write an ebs.data file from a text script, for tests whose
 * expected output must not depend on a real recording (golden reports,
 * annotations, later diffs and exports).
 *
 * usage: mkdata OUT < SCRIPT
 *
 * One statement a line; '#' starts a comment.  Header statements first:
 *
 *   meta KEY VALUE...              EBS_META_* number, the rest of the line
 *   event ASKED USED PERIOD [WHY...]  an EVENT with a fixed sample period, the
 *                                  perf type and config of USED (ebs_events.h)
 *
 * then data statements (the first one ends the header):
 *
 *   comm PID TID NAME
 *   fork PID PPID TID PTID         a new process (PID != PPID) or thread
 *   mmap PID START LEN PGOFF FILE  an executable mapping (hex START LEN PGOFF)
 *   procns PID FLAGS MNTNS ROOT    PID runs in mount namespace MNTNS (decimal)
 *                                  with root ROOT from now on; FLAGS EBS_PROCNS_*
 *   sample EVENT PID TID IP N [k]  N samples at hex IP, period from the event;
 *                                  k: kernel mode (else user)
 *   lost EVENT N
 *   count EVENT VALUE ENABLED RUNNING [CPU TID]  one counter's total
 *   clock NS                       the next record's timestamp is NS (decimal)
 *   cpu N                          the samples that follow are of cpu N
 *
 * Every record gets the next timestamp (1000 ns apart; clock sets it back or
 * forth, as records of several CPUs interleave in a recording) and cpu 0
 * unless cpu says otherwise, so the output is the same byte for byte on
 * every run.  Exits 1 with one line naming the script line on any error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ebs/ebs_events.h>

#include "data/data.h"

#define MAX_EVENTS 8

static u64 periods[MAX_EVENTS];
static unsigned int nr_events;
static u64 now = 1000000;
static u32 sample_cpu;

static u64 tick(void)
{
	return now += 1000;
}

/* A record with fixed part `fixed` and one string, NUL-padded to 8, in buf. */
static struct ebs_rec *str_rec(u64 *buf, const void *fixed, size_t fixed_size, const char *s)
{
	size_t size = ALIGN8(fixed_size + strlen(s) + 1);

	memset(buf, 0, size);
	memcpy(buf, fixed, fixed_size);
	memcpy((char *)buf + fixed_size, s, strlen(s) + 1);
	((struct ebs_rec *)buf)->size = (u32)size;
	return (struct ebs_rec *)buf;
}

static int event_index(const char *s, unsigned int *ev)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || v >= nr_events)
		return -EINVAL;
	*ev = (unsigned int)v;
	return 0;
}

static int data_statement(struct ebs_writer *w, char *words[], int n)
{
	u64 buf[(sizeof(struct ebs_rec_mmap) + 4096 + 8) / 8];
	const char *op = words[0];
	unsigned int ev;
	int e = 0;

	if (!strcmp(op, "comm") && n == 4) {
		struct ebs_rec_comm c = {
			.hdr.type = EBS_REC_COMM,
			.time = tick(),
			.pid = (u32)strtoul(words[1], NULL, 10),
			.tid = (u32)strtoul(words[2], NULL, 10),
		};
		return ebs_writer__add(w, str_rec(buf, &c, sizeof(c), words[3]));
	}
	if (!strcmp(op, "fork") && n == 5) {
		struct ebs_rec_task t = {
			.hdr.type = EBS_REC_FORK,
			.hdr.size = sizeof(t),
			.time = tick(),
			.pid = (u32)strtoul(words[1], NULL, 10),
			.ppid = (u32)strtoul(words[2], NULL, 10),
			.tid = (u32)strtoul(words[3], NULL, 10),
			.ptid = (u32)strtoul(words[4], NULL, 10),
		};
		return ebs_writer__add(w, &t.hdr);
	}
	if (!strcmp(op, "mmap") && n == 6) {
		struct ebs_rec_mmap m = {
			.hdr.type = EBS_REC_MMAP,
			.hdr.misc = EBS_CPUMODE_USER,
			.time = tick(),
			.start = strtoull(words[2], NULL, 16),
			.len = strtoull(words[3], NULL, 16),
			.pgoff = strtoull(words[4], NULL, 16),
			.pid = (u32)strtoul(words[1], NULL, 10),
			.tid = (u32)strtoul(words[1], NULL, 10),
			.prot = 5 /* r-x */,
			.flags = 2 /* MAP_PRIVATE */,
		};
		if (strlen(words[5]) > 4000)
			return -ENAMETOOLONG;
		return ebs_writer__add(w, str_rec(buf, &m, sizeof(m), words[5]));
	}
	if (!strcmp(op, "procns") && n == 5) {
		struct ebs_rec_procns r = {
			.hdr.type = EBS_REC_PROCNS,
			.time = tick(),
			.pid = (u32)strtoul(words[1], NULL, 10),
			.flags = (u32)strtoul(words[2], NULL, 10),
			.mnt_ns = strtoull(words[3], NULL, 10),
			.root_dev = 2049,
			.root_ino = 2,
		};
		if (strlen(words[4]) > 4000)
			return -ENAMETOOLONG;
		return ebs_writer__add(w, str_rec(buf, &r, sizeof(r), words[4]));
	}
	if (!strcmp(op, "sample") && (n == 6 || n == 7) && !event_index(words[1], &ev)) {
		struct ebs_rec_sample s = {
			.hdr.type = EBS_REC_SAMPLE,
			.hdr.size = sizeof(s),
			.hdr.misc = n == 7 && !strcmp(words[6], "k") ? EBS_CPUMODE_KERNEL
								     : EBS_CPUMODE_USER,
			.ip = strtoull(words[4], NULL, 16),
			.period = periods[ev],
			.pid = (u32)strtoul(words[2], NULL, 10),
			.tid = (u32)strtoul(words[3], NULL, 10),
			.cpu = sample_cpu,
			.event = (u16)ev,
		};
		unsigned long count = strtoul(words[5], NULL, 10);

		if (n == 7 && strcmp(words[6], "k"))
			return -EINVAL;
		while (count-- && !e) {
			s.time = tick();
			e = ebs_writer__add(w, &s.hdr);
		}
		return e;
	}
	if (!strcmp(op, "clock") && n == 2) {
		now = strtoull(words[1], NULL, 10) - 1000; /* tick() adds it back */
		return 0;
	}
	if (!strcmp(op, "cpu") && n == 2) {
		sample_cpu = (u32)strtoul(words[1], NULL, 10);
		return 0;
	}
	if (!strcmp(op, "lost") && n == 3 && !event_index(words[1], &ev)) {
		struct ebs_rec_lost l = {
			.hdr.type = EBS_REC_LOST,
			.hdr.size = sizeof(l),
			.time = tick(),
			.lost = strtoull(words[2], NULL, 10),
			.event = (u16)ev,
		};
		return ebs_writer__add(w, &l.hdr);
	}
	if (!strcmp(op, "count") && (n == 5 || n == 7) && !event_index(words[1], &ev)) {
		struct ebs_rec_count c = {
			.hdr.type = EBS_REC_COUNT,
			.hdr.size = sizeof(c),
			.time = tick(),
			.value = strtoull(words[2], NULL, 10),
			.time_enabled = strtoull(words[3], NULL, 10),
			.time_running = strtoull(words[4], NULL, 10),
			.cpu = n == 7 ? (u32)strtoul(words[5], NULL, 10) : 0xffffffff,
			.tid = n == 7 ? (u32)strtoul(words[6], NULL, 10) : 0,
			.event = (u16)ev,
		};
		return ebs_writer__add(w, &c.hdr);
	}
	return -EINVAL;
}

/*
 * The ids of the event used, as a recording has them: its row of
 * include/ebs/ebs_events.h (its :u or :k aside), a raw one's rHEX, else
 * PERF_TYPE_RAW 0 (what a report takes for an event it cannot name).
 */
static void event_ids(const char *used, struct ebs_rec_event *ev)
{
	size_t n = strcspn(used, ":");
	const struct ebs_event *e;

	ev->type = PERF_TYPE_RAW;
	ev->config = 0;
	for (e = ebs_events; e->name; e++)
		if (strlen(e->name) == n && !strncmp(e->name, used, n)) {
			ev->type = e->type;
			ev->config = e->config;
			return;
		}
	if (used[0] == 'r' && n > 1)
		ev->config = strtoull(used + 1, NULL, 16);
}

static int header_statement(struct ebs_writer *w, char *words[], int n, char *rest)
{
	if (!strcmp(words[0], "meta") && n >= 3)
		return ebs_writer__meta(w, (u32)strtoul(words[1], NULL, 10), rest);
	if (!strcmp(words[0], "event") && n >= 4 && nr_events < MAX_EVENTS) {
		struct ebs_rec_event ev = {
			.sample_period = strtoull(words[3], NULL, 10),
		};

		event_ids(words[2], &ev);

		periods[nr_events++] = ev.sample_period;
		return ebs_writer__event(w, &ev, words[1], words[2], n > 4 ? rest : NULL);
	}
	return -EINVAL;
}

int main(int argc, char **argv)
{
	struct ebs_error err = {0};
	struct ebs_writer *w;
	char line[8192];
	unsigned int lineno = 0;
	int in_data = 0, e = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkdata OUT < SCRIPT\n");
		return 2;
	}
	w = ebs_writer__create(argv[1], &err);
	if (!w) {
		fprintf(stderr, "mkdata: %s\n", err.msg);
		return 1;
	}
	while (!e && fgets(line, sizeof(line), stdin)) {
		char copy[sizeof(line)], *words[8], *rest = NULL, *p = line;
		int n = 0;

		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		memcpy(copy, line, sizeof(line));
		for (size_t len = strlen(copy);
		     len && (copy[len - 1] == ' ' || copy[len - 1] == '\t');)
			copy[--len] = '\0';
		while (n < 8 && (p += strspn(p, " \t"), *p)) {
			words[n++] = p;
			p += strcspn(p, " \t");
			if (*p)
				*p++ = '\0';
		}
		/* meta's value and event's why are the rest of the line, spaces kept */
		if (n > 2 && !strcmp(words[0], "meta"))
			rest = copy + (words[2] - line);
		if (n > 4 && !strcmp(words[0], "event"))
			rest = copy + (words[4] - line);
		if (!n)
			continue;
		if (!in_data && (strcmp(words[0], "meta") && strcmp(words[0], "event"))) {
			in_data = 1;
			e = ebs_writer__begin_data(w, 1700000000000000000ull, now);
			if (e)
				break;
		}
		e = in_data ? data_statement(w, words, n) : header_statement(w, words, n, rest);
	}
	if (e) {
		fprintf(stderr, "mkdata: script line %u: %s\n", lineno, strerror(-e));
		ebs_writer__abort(w);
		return 1;
	}
	if (!in_data && ebs_writer__begin_data(w, 1700000000000000000ull, now)) {
		ebs_writer__abort(w);
		return 1;
	}
	if (ebs_writer__finish(w, 0, NULL, &err)) {
		fprintf(stderr, "mkdata: %s\n", err.msg);
		return 1;
	}
	return 0;
}
