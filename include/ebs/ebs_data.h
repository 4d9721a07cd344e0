/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ebs_data.h - the on-disk layout of an ebs.data file (format version 2).
 *
 * docs/format.md is the prose description of this header; the two must agree.
 *
 * A file is:
 *
 *   struct ebs_file_header      fixed, at offset 0
 *   header records              META, EVENT, DSO_IMAGE, CALIBRATION ...
 *                               (everything known before collection starts)
 *   data records                at header.data_offset: SAMPLE, MMAP, COMM, ...
 *   TRAILER record              the last record: counts and an index
 *
 * Every record starts with struct ebs_rec and is a multiple of 8 bytes long.
 * Header record types are 1..15, data record types 16 and up; a reader skips
 * a type it does not know within the right range, so a minor version may add
 * record types.  It never changes the layout of an existing record: that,
 * like any change old readers would misread, bumps EBS_DATA_VERSION_MAJOR.
 *
 * All fields are in the byte order of the machine that wrote the file;
 * header.endian tells which (it reads 0x01020304 in the writer's order).
 * Times are nanoseconds of the perf clock (CLOCK_MONOTONIC); the header
 * pairs one such time with wall-clock time.
 */
#ifndef EBS_DATA_H
#define EBS_DATA_H

#include <linux/types.h>

#define EBS_DATA_MAGIC	       "EBSDATA" /* 8 bytes with the NUL */
#define EBS_DATA_ENDIAN	       0x01020304u
#define EBS_DATA_VERSION_MAJOR 4
/*
 * 1.1: CALIBRATION written, its rate_hz.  1.2: SAMPLE's optional parts
 * written (call chains, user registers and stack), META CALL_GRAPH.
 * 2.0: samples without optional parts packed into SAMPLES records, the
 * kernel symbols the samples hit in a KSYMS record.  A 1.x reader would
 * skip both as unknown types and lose the samples: hence the major.
 * 3.0: in a recording with call graphs (META CALL_GRAPH), samples with
 * their optional parts packed into SAMPLES_CG records; a 2.0 reader would
 * skip them.  Files without call graphs are still written as 2.0, so that
 * a 2.0 reader reads them.  A reader reads every version from 1.0
 * (EBS_DATA_VERSION_OLDEST_MAJOR) to its own.
 * 2.1 and 3.1: PROCNS records (processes in another mount namespace or
 * root), written only in files that have one; an older reader skips them.
 * 4.0: in a recording with call graphs, SAMPLES_CG records compressed with
 * zstd into SAMPLES_CGZ records (4.1 with PROCNS); a 3.x reader would skip
 * them.
 */
#define EBS_DATA_VERSION_MINOR	      1
#define EBS_DATA_VERSION_OLDEST_MAJOR 1

/* header.flags */
/*
 * Written where the header could not be patched at the end (a pipe, or
 * standard output that is a regular file not at offset 0 or in append
 * mode): data_size and trailer_offset are 0 and a reader scans to the
 * TRAILER record.
 */
#define EBS_FILE_STREAMED (1u << 0)

struct ebs_file_header {
	char magic[8];		 /*  0: EBS_DATA_MAGIC */
	__u32 endian;		 /*  8: EBS_DATA_ENDIAN in the writer's byte order */
	__u16 version_major;	 /* 12: a reader refuses a major it does not know */
	__u16 version_minor;	 /* 14: any minor is read */
	__u32 header_size;	 /* 16: sizeof(struct ebs_file_header) as written */
	__u32 flags;		 /* 20: EBS_FILE_* */
	__u64 data_offset;	 /* 24: first data record; header records lie before it */
	__u64 data_size;	 /* 32: bytes from data_offset to the end of the trailer */
	__u64 trailer_offset;	 /* 40: offset of the TRAILER record; 0 when streamed */
	__u64 start_realtime_ns; /* 48: CLOCK_REALTIME when collection started */
	__u64 start_clock_ns;	 /* 56: the perf clock at that same moment */
	__u64 reserved[4];	 /* 64: zero */
};				 /* 96 bytes */

/* Every record begins with this. */
struct ebs_rec {
	__u16 type; /* EBS_REC_* */
	__u16 misc; /* per-type flags; cpumode for SAMPLE and MMAP */
	__u32 size; /* whole record, this header included, multiple of 8 */
};

enum ebs_rec_type {
	/* header records */
	EBS_REC_META = 1,	 /* struct ebs_rec_meta */
	EBS_REC_EVENT = 2,	 /* struct ebs_rec_event */
	EBS_REC_DSO_IMAGE = 3,	 /* struct ebs_rec_dso_image: a copy of the vdso */
	EBS_REC_CALIBRATION = 4, /* struct ebs_rec_calibration */
	/* data records */
	EBS_REC_SAMPLE = 16,	 /* struct ebs_rec_sample */
	EBS_REC_MMAP = 17,	 /* struct ebs_rec_mmap */
	EBS_REC_COMM = 18,	 /* struct ebs_rec_comm */
	EBS_REC_FORK = 19,	 /* struct ebs_rec_task */
	EBS_REC_EXIT = 20,	 /* struct ebs_rec_task */
	EBS_REC_LOST = 21,	 /* struct ebs_rec_lost */
	EBS_REC_THROTTLE = 22,	 /* struct ebs_rec_throttle; misc EBS_THROTTLE_END = unthrottle */
	EBS_REC_COUNT = 23,	 /* struct ebs_rec_count: a counter's value */
	EBS_REC_SAMPLES = 24,	 /* struct ebs_rec_samples: samples packed (2.0) */
	EBS_REC_KSYMS = 25,	 /* struct ebs_rec_ksyms: kernel symbols of the samples (2.0) */
	EBS_REC_SAMPLES_CG = 26, /* struct ebs_rec_samples: samples with their parts packed (3.0) */
	EBS_REC_PROCNS = 27,	 /* struct ebs_rec_procns: a process's mount namespace (x.1) */
	EBS_REC_SAMPLES_CGZ = 28, /* struct ebs_rec_samples_z: a SAMPLES_CG's bytes, zstd (4.0) */
	EBS_REC_TRAILER = 31,	  /* struct ebs_rec_trailer: always the last record */
};

/* misc of SAMPLE and MMAP: the cpu mode in the low 3 bits */
#define EBS_CPUMODE_MASK	 0x7
#define EBS_CPUMODE_UNKNOWN	 0
#define EBS_CPUMODE_KERNEL	 1
#define EBS_CPUMODE_USER	 2
#define EBS_CPUMODE_HYPERVISOR	 3
#define EBS_CPUMODE_GUEST_KERNEL 4
#define EBS_CPUMODE_GUEST_USER	 5

/* META: one string of the recording's context */
enum ebs_meta_key {
	EBS_META_HOSTNAME = 1,
	EBS_META_OS_RELEASE = 2, /* uname -r */
	EBS_META_ARCH = 3,	 /* uname -m */
	EBS_META_CMDLINE = 4,	 /* ebs's own command line, words joined by spaces */
	EBS_META_CPU_DESC = 5,	 /* "model name" of /proc/cpuinfo */
	EBS_META_NR_CPUS = 6,	 /* decimal */
	EBS_META_EBS_VERSION = 7,
	EBS_META_TARGET = 8,	    /* "cmd", "pid 12,13" or "system-wide" */
	EBS_META_BACKEND = 9,	    /* "perf", "kmod (perf-kernel)" or "kmod (msr)" */
	EBS_META_PAGE_SIZE = 10,    /* decimal */
	EBS_META_KERNEL_STEXT = 11, /* hex address of _stext at record time, when readable */
	EBS_META_CALL_GRAPH = 12,   /* "fp,512" or "dwarf,8192": -g's mode and stack copy size */
};

struct ebs_rec_meta {
	struct ebs_rec hdr;
	__u32 key; /* enum ebs_meta_key; unknown keys are kept and ignored */
	__u32 reserved;
	char value[]; /* NUL-terminated, padded with NULs to 8 */
};

/* EVENT flags */
#define EBS_EVF_FREQ	       (1u << 0) /* sample_freq is in force, periods vary */
#define EBS_EVF_FALLBACK       (1u << 1) /* what was asked could not be opened */
#define EBS_EVF_EXCLUDE_USER   (1u << 2) /* :k */
#define EBS_EVF_EXCLUDE_KERNEL (1u << 3) /* :u */
#define EBS_EVF_GROUP_LEADER   (1u << 4)
#define EBS_EVF_HARDWARE       (1u << 5) /* the event used counts in a hardware PMU */

/*
 * EVENT: one sampled event.  Samples name it by index.  type/config are the
 * perf_event_attr values actually used (PERF_TYPE_*); for the kernel module
 * backend type is EBS_EVENT_TYPE_KMOD, config1 the ebs_config.event_kind
 * (EBS_EVENT_GENERIC or EBS_EVENT_RAW) and config its event_id.
 */
struct ebs_rec_event {
	struct ebs_rec hdr;
	__u16 index; /* 0..nr_events-1, in file order */
	__u16 group; /* index of the group leader */
	__u32 flags; /* EBS_EVF_* */
	__u32 type;  /* perf type used */
	__u32 reserved;
	__u64 config; /* perf config used */
	__u64 config1;
	__u64 sample_period; /* N ("sample after") when not EBS_EVF_FREQ */
	__u64 sample_freq;   /* Hz when EBS_EVF_FREQ */
	/* three NUL-terminated strings, padded to 8:
	 * the event as asked ("cycles:u"), the event used ("cpu-clock:u"),
	 * and why they differ ("" when they do not) */
	char names[];
};

#define EBS_EVENT_TYPE_KMOD 0x4b4d4f44u /* 'KMOD' */

/* DSO_IMAGE: the bytes of a DSO that exists only in memory (the vdso). */
struct ebs_rec_dso_image {
	struct ebs_rec hdr;
	__u64 image_size;
	__u8 build_id_size;
	__u8 reserved[3];
	__u8 build_id[20];
	char name[32]; /* "[vdso]", NUL-terminated */
	__u8 image[];  /* image_size bytes, then padding to 8 */
};

/*
 * CALIBRATION: the outcome of a sample-after calibration (ebs calibrate,
 * ebs record --calibrate), one per calibrated event.  rate_hz was reserved1
 * in 1.0, when no ebs wrote this record (1.1).
 */
struct ebs_rec_calibration {
	struct ebs_rec hdr;
	__u16 event; /* index of the calibrated event */
	__u16 reserved0;
	__u32 rate_hz;	      /* the rate asked: samples per second per CPU */
	__u64 sample_after;   /* chosen N */
	__u64 events_per_sec; /* measured event rate */
	__u64 target_samples; /* samples the run was calibrated to reach */
	__u64 overhead_ppm;   /* measured overhead, parts per million */
	__u64 budget_ppm;     /* the overhead budget it was calibrated against */
};

/* SAMPLE misc flags, above the cpumode bits */
#define EBS_SAMPLE_EXACT_IP   (1u << 3) /* precise (PEBS) IP */
#define EBS_SAMPLE_CALLCHAIN  (1u << 4) /* u64 nr; u64 ips[nr] follows */
#define EBS_SAMPLE_REGS_USER  (1u << 5) /* u64 abi; u64 mask; u64 regs[popcount(mask)] */
#define EBS_SAMPLE_STACK_USER (1u << 6) /* u64 size; u8 data[size] (padded to 8); u64 dyn_size */

/*
 * Markers in a call chain, as the kernel writes them (PERF_CONTEXT_* of
 * <linux/perf_event.h>): the addresses after one are of that context.
 */
#define EBS_CHAIN_KERNEL ((__u64)-128)
#define EBS_CHAIN_USER	 ((__u64)-512)
#define EBS_CHAIN_MAX	 ((__u64)-4095) /* this value and above are markers */

/* The user register numbers of the regs part on x86-64 (PERF_REG_X86_*). */
#define EBS_REG_X86_BP 6
#define EBS_REG_X86_SP 7
#define EBS_REG_X86_IP 8

/*
 * SAMPLE: one interrupted instruction pointer.  Optional parts follow the
 * fixed part in the order of the misc bits above.
 */
struct ebs_rec_sample {
	struct ebs_rec hdr;
	__u64 ip;
	__u64 time;
	__u64 period; /* events this sample stands for */
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u16 event; /* index of its EVENT record */
	__u16 reserved;
}; /* 48 bytes */

/* MMAP misc flags, above the cpumode bits */
#define EBS_MMAP_SYNTHESIZED (1u << 3) /* read from /proc at start, not seen happen */
#define EBS_MMAP_BUILD_ID    (1u << 4) /* build_id is valid */
#define EBS_MMAP_DATA	     (1u << 5) /* not executable */

/* MMAP: an executable mapping of a file (or [vdso], [kernel.kallsyms]). */
struct ebs_rec_mmap {
	struct ebs_rec hdr;
	__u64 time;
	__u64 start;
	__u64 len;
	__u64 pgoff; /* file offset of start */
	__u32 pid;
	__u32 tid;
	__u32 maj;
	__u32 min;
	__u64 ino;
	__u64 ino_generation;
	__u32 prot;
	__u32 flags;
	__u8 build_id_size;
	__u8 reserved[3];
	__u8 build_id[20];
	char filename[]; /* NUL-terminated, padded to 8 */
};

#define EBS_COMM_EXEC (1u << 3) /* the name changed through execve */

struct ebs_rec_comm {
	struct ebs_rec hdr;
	__u64 time;
	__u32 pid;
	__u32 tid;
	char comm[]; /* NUL-terminated, padded to 8 */
};

/* FORK and EXIT */
struct ebs_rec_task {
	struct ebs_rec hdr;
	__u64 time;
	__u32 pid;
	__u32 ppid;
	__u32 tid;
	__u32 ptid;
};

/*
 * LOST: the kernel dropped this many samples because a ring was full.  The
 * events of a CPU share its ring, so with several events the count is the
 * ring's and event is 0xffff.
 */
struct ebs_rec_lost {
	struct ebs_rec hdr;
	__u64 time;
	__u64 lost;
	__u32 cpu;
	__u16 event; /* index, or 0xffff when unknown */
	__u16 reserved;
};

#define EBS_THROTTLE_END (1u << 3) /* misc: this is an UNTHROTTLE */

struct ebs_rec_throttle {
	struct ebs_rec hdr;
	__u64 time;
	__u32 cpu;
	__u16 event;
	__u16 reserved;
};

/*
 * COUNT: a counter value.  ebs record writes one per event at the end: the
 * event's total over the run and all its targets, with the enabled and
 * running times summed over its counters (one per CPU and thread; a
 * thread's counter on one CPU is enabled while the thread runs anywhere, so
 * for threads the sums are not a multiplexing ratio).  Planned: ebs stat
 * and interval logs, one counter each.
 */
struct ebs_rec_count {
	struct ebs_rec hdr;
	__u64 time;
	__u64 value;
	__u64 time_enabled;
	__u64 time_running; /* < time_enabled: multiplexed (for one counter) */
	__u32 cpu;	    /* or 0xffffffff */
	__u32 tid;	    /* or 0 */
	__u16 event;
	__u16 reserved[3];
};

/* PROCNS flags */
#define EBS_PROCNS_MNT	(1u << 0) /* its mount namespace is not ebs record's */
#define EBS_PROCNS_ROOT (1u << 1) /* its root directory is not ebs record's (chroot) */

/*
 * PROCNS (2.1, 3.1): from time on, process pid runs in the mount namespace
 * mnt_ns (the inode of /proc/PID/ns/mnt) with the root directory root_dev,
 * root_ino; flags say which of them differ from ebs record's own.  Written
 * when a process first maps a file while it runs in another mount namespace
 * or root than ebs record (a container, a chroot), and again when that
 * changes (flags 0: back in ebs's own); a process with none ran in ebs's.
 * root is its root as ebs saw it, /proc/PID/root's link ("/" for another
 * namespace's root).  The files it mapped were read through /proc/PID/root
 * while it ran (docs/symbolize.md, "Containers").
 */
struct ebs_rec_procns {
	struct ebs_rec hdr;
	__u64 time;
	__u32 pid;
	__u32 flags; /* EBS_PROCNS_* */
	__u64 mnt_ns;
	__u64 root_dev; /* st_dev of its root directory, as stat(2) gives it */
	__u64 root_ino;
	char root[]; /* NUL-terminated, padded to 8 */
};

struct ebs_event_counts {
	__u64 samples;
	__u64 lost;
	__u64 throttled;  /* THROTTLE records */
	__u64 period_sum; /* sum of sample periods: the events the samples stand for */
};

/* A resynchronisation point: a record boundary every EBS_INDEX_STRIDE bytes. */
/*
 * SAMPLES: up to EBS_SAMPLES_MAX consecutive samples that have no optional
 * part (misc holds only the cpu mode and EBS_SAMPLE_EXACT_IP, reserved is
 * 0), packed into bytes bytes, the record padded to 8 after them.  Each
 * sample is a flag byte, then varints (LEB128; signed ones zigzag-coded)
 * relative to the previous sample of the record, which starts from all
 * zeros (docs/format.md, section 7.8):
 *
 *   flags      bits 0-3: the sample's misc; bit 4 pid and tid follow,
 *              bit 5 cpu follows, bit 6 event follows, bit 7 period follows
 *   time       signed difference from the previous time
 *   ip         signed difference from the previous ip of the same space
 *              (kernel modes 1 and 4, or any other)
 *   pid, tid   unsigned, when bit 4; else the previous ones
 *   cpu        unsigned, when bit 5
 *   event      unsigned, when bit 6
 *   period     signed difference from the previous period, when bit 7
 */
struct ebs_rec_samples {
	struct ebs_rec hdr;
	__u32 count; /* samples packed: 1..EBS_SAMPLES_MAX */
	__u32 bytes; /* bytes of packed samples after this */
		     /* __u8 data[bytes], then padding to 8 */
};

#define EBS_SAMPLES_MAX	      4096
#define EBS_SAMPLES_MAX_BYTES (64u << 10)

#define EBS_SAMPLES_F_TASK   (1u << 4)
#define EBS_SAMPLES_F_CPU    (1u << 5)
#define EBS_SAMPLES_F_EVENT  (1u << 6)
#define EBS_SAMPLES_F_PERIOD (1u << 7)

/*
 * SAMPLES_CG (3.0): up to EBS_SAMPLES_MAX consecutive samples of a
 * recording with call graphs, with their optional parts, packed into bytes
 * bytes (docs/format.md, section 7.10).  Each sample is SAMPLES' flag byte,
 * a parts byte (bit 0 call chain, bit 1 user registers, bit 2 user stack:
 * the sample's misc bits 4 to 6), SAMPLES' fields, then the parts it has:
 *
 *   chain      ref (0: none; k: the k-th latest chain of the record, at
 *              most EBS_CG_HISTORY back), keep (with ref: how many of its
 *              outermost frames end this chain), fresh (frames before them),
 *              then each fresh frame as a code: even, an address as a
 *              zigzag difference (code >> 1) from the previous address of
 *              its context (user or kernel; the sample's ip at the start of
 *              each chain); 1, a raw value follows; 3, EBS_CHAIN_USER; 5,
 *              EBS_CHAIN_KERNEL
 *   registers  abi, mask, then each register as a signed difference from
 *              the same register of the previous sample that had it
 *   stack      size, dyn_size, then its ALIGN8(size) / 8 words as runs:
 *              same (words equal to those at the same addresses of the
 *              previous stack of the record that came with an SP register),
 *              literal, and the literal words, each a signed difference
 *              from the word at its address in that stack (else from 0)
 *
 * A record unpacks to at most EBS_SAMPLES_CG_MAX_UNPACKED bytes of SAMPLE
 * records, from at most EBS_SAMPLES_CG_MAX_BYTES packed bytes.
 */
#define EBS_SAMPLES_CG_MAX_BYTES    (1u << 20)
#define EBS_SAMPLES_CG_MAX_UNPACKED (1u << 20)
#define EBS_CG_HISTORY		    16

/*
 * SAMPLES_CGZ (4.0): a SAMPLES_CG record's packed bytes compressed: one
 * zstd frame (RFC 8878) of bytes bytes, which decompresses to exactly
 * packed bytes (at most EBS_SAMPLES_CG_MAX_BYTES), the bytes of a
 * SAMPLES_CG record of count samples; the record padded to 8 after it.
 * The copied stacks of -g repeat words of other samples at other places
 * (return addresses, heap pointers), which the SAMPLES_CG coding alone
 * does not find: a fp sample of SQLite drops from 145 bytes to about 45.
 */
struct ebs_rec_samples_z {
	struct ebs_rec hdr;
	__u32 count;  /* samples: 1..EBS_SAMPLES_MAX */
	__u32 bytes;  /* bytes of the zstd frame after this */
	__u32 packed; /* bytes it decompresses to: 1..EBS_SAMPLES_CG_MAX_BYTES */
	__u32 reserved;
	/* __u8 frame[bytes], then padding to 8 */
};

#define EBS_CG_PART_CHAIN 1u
#define EBS_CG_PART_REGS  2u
#define EBS_CG_PART_STACK 4u

/*
 * KSYMS: written at the end of a recording with kernel samples, the kernel
 * symbols (from /proc/kallsyms at that moment) that cover the kernel
 * addresses of its samples and call chains, so that a report needs no
 * /proc/kallsyms and stays right after a reboot or on another machine.
 * nr entries sorted by start, not overlapping, each [start, end); then
 * strings_size bytes of NUL-terminated names, the first of them "" (so
 * that module 0 is the kernel itself).
 */
struct ebs_ksym {
	__u64 start;
	__u64 end;    /* the next symbol's start in the kernel's table */
	__u32 name;   /* offset of its name in the strings */
	__u32 module; /* offset of its module's name ("[ext4]"), 0 for the kernel */
	__u32 flags;  /* EBS_KSYM_* */
	__u32 reserved;
};

#define EBS_KSYM_GLOBAL (1u << 0) /* an upper-case type letter in kallsyms */

struct ebs_rec_ksyms {
	struct ebs_rec hdr;
	__u32 nr;
	__u32 strings_size;
	__u64 stext; /* _stext's address then, 0 when not listed */
		     /* struct ebs_ksym syms[nr]; char strings[strings_size]; padding to 8 */
};

struct ebs_index_entry {
	__u64 offset;
	__u64 time; /* time of the record at offset, 0 when it has none */
};

#define EBS_INDEX_STRIDE (1u << 20)

/*
 * TRAILER: written last, after collection stopped (also after Ctrl-C).
 * Followed by nr_events struct ebs_event_counts, then nr_index entries.
 */
struct ebs_rec_trailer {
	struct ebs_rec hdr;
	__u64 end_realtime_ns;
	__u64 end_clock_ns;
	__u64 nr_records; /* data records before this one */
	__u64 samples;	  /* totals over all events */
	__u64 lost;
	__u64 throttled;
	__s32 exit_status; /* of the launched command, -1 when none */
	__u32 nr_events;
	__u32 nr_index;
	__u32 reserved;
	/* struct ebs_event_counts counts[nr_events]; */
	/* struct ebs_index_entry index[nr_index]; */
};

#endif /* EBS_DATA_H */
