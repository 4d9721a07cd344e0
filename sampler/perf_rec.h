/* SPDX-License-Identifier: MIT */
/*
 * perf_rec.h - the perf_event ring records that perf.c reads, laid out as
 * the kernel writes them for the attributes perf.c sets (enum
 * perf_event_type in <linux/perf_event.h>), private to sampler/.  As
 * tools/lib/perf's struct perf_record_*, each starts with its header.
 *
 * The layouts that depend on attr.sample_type are those of
 * PERF_REC_SAMPLE_TYPE: a SAMPLE's body, and the sample_id_all trailer
 * (struct perf_rec_sample_id) that ends every other record perf.c reads
 * except FORK and EXIT, whose time is their own.
 */
#ifndef EBS_SAMPLER_PERF_REC_H
#define EBS_SAMPLER_PERF_REC_H

#include <linux/perf_event.h>

#include "util/util.h"

/*
 * PERF_SAMPLE_PERIOD only in frequency mode, where periods vary: with a fixed
 * period it would make the kernel sample software events (page-faults,
 * context-switches) on every event, whatever the period (perf_swevent_event).
 */
#define PERF_REC_SAMPLE_TYPE                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU)

/* The sample_id_all trailer of the records below but SAMPLE, FORK and EXIT. */
struct perf_rec_sample_id {
	u32 pid, tid; /* PERF_SAMPLE_TID */
	u64 time;     /* PERF_SAMPLE_TIME */
	u32 cpu, res; /* PERF_SAMPLE_CPU */
	u64 id;	      /* PERF_SAMPLE_IDENTIFIER */
};

/* PERF_RECORD_SAMPLE, PERF_REC_SAMPLE_TYPE's fields in the kernel's order. */
struct perf_rec_sample {
	struct perf_event_header header;
	u64 id;	      /* PERF_SAMPLE_IDENTIFIER */
	u64 ip;	      /* PERF_SAMPLE_IP */
	u32 pid, tid; /* PERF_SAMPLE_TID */
	u64 time;     /* PERF_SAMPLE_TIME */
	u32 cpu, res; /* PERF_SAMPLE_CPU */
	u64 period;   /* PERF_SAMPLE_PERIOD: in frequency mode only, else absent */
};

/* PERF_RECORD_MMAP2 (attr.mmap2; the build-id form with attr.build_id). */
struct perf_rec_mmap2 {
	struct perf_event_header header;
	u32 pid, tid;
	u64 addr, len, pgoff;
	union {
		struct {
			u32 maj, min;
			u64 ino, ino_generation;
		};
		struct { /* header.misc has PERF_RECORD_MISC_MMAP_BUILD_ID */
			u8 build_id_size, r1;
			u16 r2;
			u8 build_id[20];
		};
	};
	u32 prot, flags;
	char filename[]; /* NUL-terminated, padded to 8 bytes; the trailer follows */
};

/* PERF_RECORD_COMM (attr.comm; PERF_RECORD_MISC_COMM_EXEC with attr.comm_exec). */
struct perf_rec_comm {
	struct perf_event_header header;
	u32 pid, tid;
	char comm[]; /* NUL-terminated, padded to 8 bytes; the trailer follows */
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT (attr.task). */
struct perf_rec_task {
	struct perf_event_header header;
	u32 pid, ppid;
	u32 tid, ptid;
	u64 time;
};

/* PERF_RECORD_LOST: a full ring dropped records. */
struct perf_rec_lost {
	struct perf_event_header header;
	u64 id;
	u64 lost;
};

/* PERF_RECORD_LOST_SAMPLES: samples a PMU could not deliver. */
struct perf_rec_lost_samples {
	struct perf_event_header header;
	u64 lost;
};

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE. */
struct perf_rec_throttle {
	struct perf_event_header header;
	u64 time;
	u64 id;
	u64 stream_id;
};

/* The kernel's sizes, before the trailer and the strings. */
_Static_assert(sizeof(struct perf_rec_sample_id) == 32, "sample_id_all trailer");
_Static_assert(sizeof(struct perf_rec_sample) == 8 + 48, "SAMPLE");
_Static_assert(sizeof(struct perf_rec_mmap2) == 8 + 64, "MMAP2");
_Static_assert(sizeof(struct perf_rec_comm) == 8 + 8, "COMM");
_Static_assert(sizeof(struct perf_rec_task) == 8 + 24, "FORK, EXIT");
_Static_assert(sizeof(struct perf_rec_lost) == 8 + 16, "LOST");
_Static_assert(sizeof(struct perf_rec_lost_samples) == 8 + 8, "LOST_SAMPLES");
_Static_assert(sizeof(struct perf_rec_throttle) == 8 + 24, "THROTTLE");

#endif /* EBS_SAMPLER_PERF_REC_H */
