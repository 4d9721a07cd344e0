/* SPDX-License-Identifier: MIT */
/*
 * buildids.h - the files a recording sampled, for the build-id cache that
 * ebs record fills as it ends (report/buildids.c; symbolize/'s
 * buildid_cache__add copies them).
 */
#ifndef EBS_REPORT_BUILDIDS_H
#define EBS_REPORT_BUILDIDS_H

#include "util/util.h"

struct buildid_cache;

/* What report_keep_buildids did. */
struct keep_stats {
	u64 files;  /* files sampled that have a build-id */
	u64 added;  /* of them, newly kept (or their debug file) */
	u64 failed; /* of them, not kept: gone, another build now, not readable */
	u64 bytes;  /* bytes added to the cache */
};

/*
 * Keep in c each file that the recording input maps with a build-id and
 * that its samples hit: their instruction pointers and the user-space
 * addresses of their call chains (perf marks the IPs only).  A file that
 * cannot be kept is counted, not a failure; warn (may be NULL) hears the
 * cache's warnings only.  0, or -errno with err filled when the recording
 * cannot be read.
 */
int report_keep_buildids(const char *input, struct buildid_cache *c, struct keep_stats *st,
			 struct ebs_error *err) __attribute__((nonnull(1, 2, 3)));

#endif /* EBS_REPORT_BUILDIDS_H */
