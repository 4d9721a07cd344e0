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
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uthash.h>

/*
 * A hash of a key made of 64-bit words (pointers and integers, len a
 * multiple of 8), for the tables a report looks up once per sample or per
 * frame: with HASH_FIND_BYHASHVALUE and HASH_ADD_BYHASHVALUE in place of
 * HASH_FIND and HASH_ADD, a few multiplications per word instead of
 * uthash's default (Jenkins), a dozen steps per 12 bytes.  Every find and
 * add of one table must use the same hash.
 */
static inline unsigned int ebs_hash_words(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = len * 0x9e3779b97f4a7c15ull, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53ull;
	return (unsigned int)(h ^ (h >> 29));
}

#endif
