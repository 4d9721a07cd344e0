/* SPDX-License-Identifier: MIT */
/*
 * perfdata.h - read a perf.data file, as perf record writes it (file mode
 * and pipe mode), into ebs.data records (data/perfdata.c; what is read and
 * how each record maps: docs/perfdata.md).  Internal to data/: readers get
 * perf.data through ebs_data__open, which converts it first.
 */
#ifndef EBS_DATA_PERFDATA_H
#define EBS_DATA_PERFDATA_H

#include "data/data.h"

/* What the first 8 bytes of a file say about it. */
enum perf_magic {
	PERF_MAGIC_NONE = 0, /* not perf.data */
	PERF_MAGIC_NATIVE,   /* "PERFILE2" in this machine's byte order */
	PERF_MAGIC_SWAPPED,  /* "PERFILE2" in the other byte order */
	PERF_MAGIC_V1,	     /* "PERFFILE": the first format, before Linux 2.6.37 */
};
enum perf_magic perf_data__magic(const void *first8);

/* perf's own record types (after the kernel's, which end below 64) */
#define PERF_REC_HEADER_ATTR	     64
#define PERF_REC_HEADER_TRACING_DATA 66 /* u32 size: that many bytes (padded to 8) follow */
#define PERF_REC_HEADER_BUILD_ID     67
#define PERF_REC_FINISHED_ROUND	     68
#define PERF_REC_AUXTRACE	     71 /* u64 size: that many bytes follow */
#define PERF_REC_EVENT_UPDATE	     78
#define PERF_REC_HEADER_FEATURE	     80
#define PERF_REC_COMPRESSED	     81
#define PERF_REC_COMPRESSED2	     83

/*
 * The bytes that follow a record of type beyond its size (HEADER_TRACING_DATA
 * and AUXTRACE carry their payload after themselves): 0 for other types.
 * first8 holds the 8 bytes after the record's header.
 */
u64 perf_data__payload(u32 type, const u8 *first8);

/* One conversion: the input, what it may be, and what was found. */
struct perf_convert {
	int fd;		      /* the perf.data file (or the copy of a stream), read with pread */
	u64 size;	      /* its size: nothing past it is read */
	const char *path;     /* for messages: "FILE: offset N: ..." */
	const char *out_name; /* the output, for messages ("FILE: write failed: ...") */
	bool unfinished_ok;   /* EBS_DATA_UNFINISHED: a recording cut short is read to its last
			       * whole record */
	/* out */
	bool unfinished; /* it did not finish (data size 0; a stream cut in a record) ... */
	bool left_out;	 /* ... and an incomplete record at its end was left out */
	u64 data_end;	 /* the offset where its data ended */
	u64 samples;	 /* SAMPLE records converted */
	u64 records;	 /* perf records read in the data */
	u64 skipped;	 /* of them, skipped by their size: types ebs does not keep */
	u64 unknown_ids; /* samples of no event the file describes (dropped, as perf does) */
	bool pipe;	 /* pipe mode */
	bool out_failed; /* the error was the output's (writing failed) */
	bool converted;	 /* all was read and converted (what is left is the writer's) */
};

/*
 * Read the perf.data file pc describes and write it into w (which has no
 * record yet): header records, then the data records in time order as far
 * as perf's rounds allow (docs/perfdata.md).  The caller finishes or
 * aborts w.  0, or -errno with err "PATH: offset N: what is wrong".
 */
int perf_data__convert(struct perf_convert *pc, struct ebs_writer *w, struct ebs_error *err);

#endif /* EBS_DATA_PERFDATA_H */
