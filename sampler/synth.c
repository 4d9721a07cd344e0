// SPDX-License-Identifier: MIT
/*
 * synth.c - records for what was already running when collection began:
 * the thread names and executable mappings of a process, read from /proc,
 * so that samples of already-running code (-p, -a) resolve.  Also the
 * names of kernel threads started meanwhile, which the kernel reports no
 * COMM record for (perf.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler/backend.h"

int synth_comm(struct ebs_writer *w, pid_t pid, pid_t tid, u64 time)
{
	union {
		struct ebs_rec_comm c;
		u8 bytes[sizeof(struct ebs_rec_comm) + 64];
	} u;
	char path[64], *name = NULL;
	ssize_t len;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	len = ebs_read_file(path, &name);
	if (len < 0)
		return 0; /* gone meanwhile */
	while (len > 0 && name[len - 1] == '\n')
		name[--len] = '\0';
	if (len > 32)
		len = 32;
	memset(&u, 0, sizeof(u));
	u.c.hdr.type = EBS_REC_COMM;
	u.c.time = time;
	u.c.pid = (u32)pid;
	u.c.tid = (u32)tid;
	memcpy(u.c.comm, name, (size_t)len);
	u.c.hdr.size = (u32)ALIGN8(sizeof(u.c) + (size_t)len + 1);
	free(name);
	err = ebs_writer__add(w, &u.c.hdr);
	return err;
}

/* One line of /proc/PID/maps; only executable mappings are kept. */
static int add_map_line(struct ebs_writer *w, struct ns_tracker *ns, pid_t pid, const char *line,
			u64 time)
{
	union {
		struct ebs_rec_mmap m;
		u8 bytes[sizeof(struct ebs_rec_mmap) + PATH_MAX + 8];
	} u;
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8];
	int name_at = 0, err;
	const char *name;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
		   &min, &ino, &name_at) < 7)
		return 0;
	if (strlen(perms) < 3 || perms[2] != 'x')
		return 0;
	name = name_at ? line + name_at : "";
	len = strcspn(name, "\n");
	if (len == 0) {
		name = "//anon";
		len = strlen(name);
	}
	if (len >= PATH_MAX)
		return 0;
	memset(&u.m, 0, sizeof(u.m));
	u.m.hdr.type = EBS_REC_MMAP;
	u.m.hdr.misc = EBS_CPUMODE_USER | EBS_MMAP_SYNTHESIZED;
	u.m.time = time;
	u.m.start = start;
	u.m.len = end - start;
	u.m.pgoff = pgoff;
	u.m.pid = (u32)pid;
	u.m.tid = (u32)pid;
	u.m.maj = maj;
	u.m.min = min;
	u.m.ino = ino;
	u.m.prot = 4 | (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0);
	memcpy(u.m.filename, name, len);
	memset(u.m.filename + len, 0, 8);
	u.m.hdr.size = (u32)ALIGN8(sizeof(u.m) + len + 1);
	err = ns_tracker__mmap(ns, &u.m);
	return err ? err : ebs_writer__add(w, &u.m.hdr);
}

int synth_process(struct ebs_writer *w, struct ns_tracker *ns, pid_t pid, u64 time)
{
	char path[64], *maps = NULL, *line, *save = NULL;
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0; /* exited meanwhile */
	while (!err && (de = readdir(dir)))
		if (isdigit((unsigned char)de->d_name[0]))
			err = synth_comm(w, pid, (pid_t)atoi(de->d_name), time);
	closedir(dir);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (ebs_read_file(path, &maps) < 0)
		return 0;
	for (line = strtok_r(maps, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = add_map_line(w, ns, pid, line, time);
	free(maps);
	return err;
}

int synth_all_processes(struct ebs_writer *w, struct ns_tracker *ns, u64 time)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");
	int err = 0;

	if (!dir)
		return -errno;
	while (!err && (de = readdir(dir)))
		if (isdigit((unsigned char)de->d_name[0]))
			err = synth_process(w, ns, (pid_t)atoi(de->d_name), time);
	closedir(dir);
	return err;
}
