/* SPDX-License-Identifier: MIT */
/*
 * packed.h - the packing of the SAMPLES and SAMPLES_CG records (ebs_data.h,
 * docs/format.md 7.8 and 7.10), shared by the writer and the reader.
 * Internal to data/.
 */
#ifndef EBS_DATA_PACKED_H
#define EBS_DATA_PACKED_H

#include <stdbool.h>

#include <ebs/ebs_data.h>
#include "util/util.h"

/* What the previous samples of a record left: all zeros at its start. */
struct ebs_pack_state {
	u64 time, ip[2], period;
	u32 pid, tid, cpu;
	u16 event;
	u64 base[2];  /* SAMPLES_CG: the last chain address of each context (user, kernel) */
	u64 regs[64]; /* SAMPLES_CG: the last value of each user register */
};

/* A chain the writer keeps for the ones after it. */
struct ebs_pack_chain {
	u64 *ips;
	u64 nr;
	size_t cap;
};

/* A SAMPLES or SAMPLES_CG record being filled: its header, then the packed bytes. */
struct ebs_pack {
	u16 type; /* EBS_REC_SAMPLES or EBS_REC_SAMPLES_CG */
	struct ebs_pack_state st;
	u32 count;
	size_t len;	 /* bytes in buf after the record header */
	size_t unpacked; /* SAMPLES_CG: the bytes its samples unpack to */
	size_t max_len;	 /* the most packed bytes of this type */
	u8 *buf;
	/* SAMPLES_CG: the record's latest chains, hist[(hist_at - k) % EBS_CG_HISTORY] the k-th */
	struct ebs_pack_chain hist[EBS_CG_HISTORY];
	unsigned int nr_hist, hist_at;
	/* SAMPLES_CG: the latest stack that came with an SP register */
	u8 *stack;
	size_t stack_words, stack_cap;
	u64 stack_sp;
};

/* The most bytes one packed sample without parts takes. */
#define EBS_PACK_MAX_SAMPLE 64

/* A record being filled of type EBS_REC_SAMPLES or EBS_REC_SAMPLES_CG; NULL: no memory. */
struct ebs_pack *ebs_pack__new(u16 type);
void ebs_pack__free(struct ebs_pack *p); /* accepts NULL */

/*
 * Can s go into a record of p's type?  SAMPLES: no optional part, nothing
 * reserved set.  SAMPLES_CG: its parts whole and nothing after them, no
 * misc bit beyond them, and small enough for a record of its own.
 */
bool ebs_pack__fits(const struct ebs_pack *p, const struct ebs_rec_sample *s);

/* Start an empty record. */
void ebs_pack__reset(struct ebs_pack *p);

/* Is there room for s (which fits)? */
bool ebs_pack__room(const struct ebs_pack *p, const struct ebs_rec_sample *s);

/* Pack s (which fits, and there is room): 0, or -ENOMEM with nothing packed. */
int ebs_pack__add(struct ebs_pack *p, const struct ebs_rec_sample *s);

/* The record: header filled, padded to 8; NULL when it holds no sample. */
const struct ebs_rec *ebs_pack__record(struct ebs_pack *p);

/* The time of the first sample of a SAMPLES or SAMPLES_CG record made by ebs_pack__record. */
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

/*
 * Unpack the count samples of a SAMPLES_CG record's bytes [data, data +
 * len) into out, at most cap bytes, as consecutive SAMPLE records with
 * their parts; *out_len gets the bytes written.  0, or -EBADMSG as
 * ebs_unpack, also for samples that would unpack to more than cap bytes, a
 * chain that names a chain the record does not have, a stack run past the
 * stack or past the stack it repeats.
 */
int ebs_unpack_cg(const u8 *data, size_t len, u32 count, u8 *out, size_t cap, size_t *out_len,
		  size_t *bad_at, const char **why);

#endif /* EBS_DATA_PACKED_H */
