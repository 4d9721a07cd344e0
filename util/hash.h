/* SPDX-License-Identifier: MIT */
#ifndef EBS_UTIL_HASH_H
#define EBS_UTIL_HASH_H

/*
 * uthash, the one way ebs includes it.  uthash's default on a failed
 * allocation is exit(-1), which library code must never do; in its
 * non-fatal mode a failed HASH_ADD leaves the table as it was and sets
 * the element's hh.tbl to NULL.  Every HASH_ADD in ebs is followed by
 *
 *	if (!elt->hh.tbl) { free(elt); return -ENOMEM; }
 *
 * (or the equivalent), and tests/integration/oom.sh fails allocations one
 * by one to hold the tree to it, and checks that no other file includes
 * <uthash.h> itself.
 */
#ifdef HASH_NONFATAL_OOM
#error "include util/hash.h, not <uthash.h>: it sets the out-of-memory policy"
#endif
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#endif
