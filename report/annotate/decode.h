/* SPDX-License-Identifier: MIT */
/*
 * decode.h - machine code to instructions for ebs annotate --asm, the same
 * few facts whatever the architecture: address, bytes, text, and a direct
 * call's or jump's target.  capstone does the work when ebs is built with
 * it (EBS_HAVE_CAPSTONE); without it, nothing is decoded and callers say
 * so.  Private to report/.
 */
#ifndef EBS_REPORT_DECODE_H
#define EBS_REPORT_DECODE_H

#include <stdbool.h>
#include <stddef.h>

#include "symbolize/symbolize.h"
#include "util/util.h"

#define DECODE_MAX_BYTES 16 /* x86 instructions are at most 15 */

/* Why nothing is decoded in an ebs built without a disassembler, as one phrase. */
#define DECODE_NONE_WHY                                                                            \
	"this ebs was built without a disassembler (install libcapstone-dev and rebuild)"

/* One instruction. */
struct decode_insn {
	u64 addr;
	u64 target; /* a direct call's or jump's target, when has_target */
	bool has_target;
	bool bad; /* no instruction: one byte the decoder could not
		   * decode (data in the code), text ".byte 0xNN" */
	u8 len;	  /* its bytes: 1 to DECODE_MAX_BYTES */
	u8 bytes[DECODE_MAX_BYTES];
	char text[96]; /* "mnemonic operands"; x86 in AT&T syntax, as objdump
			* and perf show it */
};

/* Was this ebs built with a disassembler, and can it load it (at the first call)? */
bool decode_available(void);
/* Why not, as one phrase (DECODE_NONE_WHY, or the library that cannot be loaded); "" when it can.
 */
const char *decode_none_why(void);

/*
 * Decode len bytes of arch's code, the first at address addr, calling fn
 * for each instruction in address order.  A decoder stops short at a
 * byte that begins no instruction (capstone does; perf's util/capstone.c
 * checks how far it got and falls back): what it decoded is kept, that
 * byte is handed on as a bad one, and decoding goes on after it, as
 * objdump does, so that every byte is accounted for and where decoding
 * stopped is seen.
 *
 * Returns 0; -EOPNOTSUPP without a disassembler (decode_none_why);
 * -ENOEXEC for an architecture it does not decode (x86-64 only today);
 * -ENOMEM; or fn's nonzero return, which stops it.
 */
int decode_each(enum sym_arch arch, const void *code, size_t len, u64 addr,
		int (*fn)(void *ctx, const struct decode_insn *in), void *ctx);

/*
 * decode_each, where instructions are known to begin at the byte offsets
 * stops[0..nstops) (ascending; the line table's rows, sampled addresses):
 * no instruction is decoded across one.  A decoder that lost the
 * instruction boundaries (an encoding it does not know, as capstone 4 and
 * some AVX-512 instructions) lists bytes up to the next known start and
 * takes up the right instructions there, so that a sample is listed at
 * its own instruction and line.
 */
int decode_each_at(enum sym_arch arch, const void *code, size_t len, u64 addr, const u64 *stops,
		   size_t nstops, int (*fn)(void *ctx, const struct decode_insn *in), void *ctx);

#endif /* EBS_REPORT_DECODE_H */
