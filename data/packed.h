/* SPDX-License-Identifier: MIT */
/*
 * packed.h - the SAMPLES record's packing (ebs_data.h, docs/format.md 7.2),
 * shared by the writer and the reader.  Internal to data/.
 */
#ifndef EBS_DATA_PACKED_H
#define EBS_DATA_PACKED_H

#include <stdbool.h>

#include <ebs/ebs_data.h>
#include "util/util.h"

/* What the previous sample of a SAMPLES record left: all zeros at its start. */
struct ebs_pack_state {
	u64 time, ip[2], period;
	u32 pid, tid, cpu;
	u16 event;
};

/* A SAMPLES record being filled: its header, then the packed bytes. */
struct ebs_pack {
	struct ebs_pack_state st;
	u32 count;
	size_t len; /* bytes in buf after the record header */
	u8 buf[sizeof(struct ebs_rec_samples) + EBS_SAMPLES_MAX_BYTES + 8];
};

/* The most bytes one packed sample takes. */
#define EBS_PACK_MAX_SAMPLE 64

/* Can s go into a SAMPLES record (no optional part, nothing reserved set)? */
bool ebs_pack__fits(const struct ebs_rec_sample *s);

/* Start an empty record. */
void ebs_pack__reset(struct ebs_pack *p);

/* Is there room for another sample? */
bool ebs_pack__room(const struct ebs_pack *p);

/* Pack s (which fits, and there is room). */
void ebs_pack__add(struct ebs_pack *p, const struct ebs_rec_sample *s);

/* The record: header filled, padded to 8; NULL when it holds no sample. */
const struct ebs_rec *ebs_pack__record(struct ebs_pack *p);

/* The time of the first sample of a SAMPLES record made by ebs_pack__record. */
u64 ebs_pack__first_time(const struct ebs_rec_samples *r);

/*
 * Unpack the count samples of a SAMPLES record's bytes [data, data + len)
 * into out[count] as SAMPLE records.  0, or -EBADMSG with *bad_at the
 * offset in data where it went wrong and why set to what: a varint that
 * runs past the bytes or beyond 64 bits, a value beyond its field, bytes
 * left over.
 */
int ebs_unpack(const u8 *data, size_t len, u32 count, struct ebs_rec_sample *out, size_t *bad_at,
	       const char **why);

#endif /* EBS_DATA_PACKED_H */
