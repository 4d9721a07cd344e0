// SPDX-License-Identifier: MIT
/*
 * decode.c - machine code to instructions (decode.h), through capstone
 * when ebs is built with it; the only file that includes capstone.h.
 * Where capstone stops, Zydis (when built with it: EBS_HAVE_ZYDIS) decodes
 * that one instruction: Debian 12's capstone 4.0.2 knows no AVX-512 mask
 * instruction (kmovd) and few EVEX ones, of which glibc's *_evex string
 * functions, often the hottest code, are made.  capstone stays first, so
 * that what it decodes is listed as before.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/annotate/decode.h"

#ifndef EBS_HAVE_CAPSTONE
#define EBS_HAVE_CAPSTONE 1 /* until the Makefile says */
#endif

#ifndef EBS_HAVE_ZYDIS
#define EBS_HAVE_ZYDIS 0
#endif

#if EBS_HAVE_CAPSTONE
#include <capstone/capstone.h>
#if EBS_HAVE_ZYDIS
#include <Zydis/Zydis.h>
#endif

bool decode_available(void)
{
	return true;
}

/* What capstone decoded, as decode.h says it. */
static void take(csh cs, const cs_insn *ci, struct decode_insn *out)
{
	const cs_detail *d = ci->detail;

	memset(out, 0, sizeof(*out));
	out->addr = ci->address;
	out->len = (u8)(ci->size < DECODE_MAX_BYTES ? ci->size : DECODE_MAX_BYTES);
	memcpy(out->bytes, ci->bytes, out->len);
	snprintf(out->text, sizeof(out->text), "%.31s%s%.63s", ci->mnemonic,
		 ci->op_str[0] ? " " : "", ci->op_str);
	/* a direct branch: one immediate operand, the target address */
	if (d && (cs_insn_group(cs, ci, CS_GRP_JUMP) || cs_insn_group(cs, ci, CS_GRP_CALL)) &&
	    d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
		out->target = (u64)d->x86.operands[0].imm;
		out->has_target = true;
	}
}

#if EBS_HAVE_ZYDIS
struct zydis {
	ZydisDecoder dec;
	ZydisFormatter fmt;
	bool ok;
};

static void zydis_init(struct zydis *z)
{
	z->ok = ZYAN_SUCCESS(ZydisDecoderInit(&z->dec, ZYDIS_MACHINE_MODE_LONG_64,
					      ZYDIS_STACK_WIDTH_64)) &&
		ZYAN_SUCCESS(ZydisFormatterInit(&z->fmt, ZYDIS_FORMATTER_STYLE_ATT));
}

/* The one instruction at code (len bytes, at addr) as Zydis decodes it; false: none. */
static bool zydis_take(const struct zydis *z, const u8 *code, size_t len, u64 addr,
		       struct decode_insn *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!z->ok || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&z->dec, code, len, &in, ops)) ||
	    !in.length || in.length > len || in.length > DECODE_MAX_BYTES)
		return false;
	memset(out, 0, sizeof(*out));
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&z->fmt, &in, ops,
							  in.operand_count_visible, out->text,
							  sizeof(out->text), addr, NULL)))
		return false;
	out->addr = addr;
	out->len = in.length;
	memcpy(out->bytes, code, in.length);
	return true;
}
#endif

/*
 * One instruction at a time (cs_disasm_iter) into one cs_insn of our own
 * (cs_malloc): cs_disasm would allocate each instruction's detail without
 * checking, and crash when that allocation fails.  Where capstone stops,
 * the byte there is handed on as a bad one and decoding goes on after it.
 */
int decode_each_at(enum sym_arch arch, const void *code, size_t len, u64 addr, const u64 *stops,
		   size_t nstops, int (*fn)(void *ctx, const struct decode_insn *in), void *ctx)
{
	const u8 *p = code;
	size_t s = 0;
	struct decode_insn di;
	cs_insn *insn;
	size_t off = 0;
	cs_err ce;
	csh cs;
	int e = 0;
#if EBS_HAVE_ZYDIS
	struct zydis zy;
#endif

	if (arch != SYM_ARCH_X86_64)
		return -ENOEXEC;
	ce = cs_open(CS_ARCH_X86, CS_MODE_64, &cs);
	if (ce != CS_ERR_OK)
		return ce == CS_ERR_MEM ? -ENOMEM : -ENOEXEC;
	cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT); /* as objdump and perf show it */
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);	 /* branch targets */
	insn = cs_malloc(cs);
	if (!insn) {
		cs_close(&cs);
		return -ENOMEM;
	}
#if EBS_HAVE_ZYDIS
	zydis_init(&zy);
#endif
	while (off < len && !e) {
		const u8 *at = p + off;
		size_t left = len - off;
		uint64_t a = addr + off;

		/* no instruction across the next place one is known to begin */
		while (s < nstops && stops[s] <= off)
			s++;
		if (s < nstops && stops[s] - off < left)
			left = (size_t)(stops[s] - off);

		if (cs_disasm_iter(cs, &at, &left, &a, insn)) {
			take(cs, insn, &di);
			off = (size_t)(at - p);
#if EBS_HAVE_ZYDIS
		} else if (zydis_take(&zy, p + off, left, addr + off, &di)) {
			off += di.len; /* what capstone does not know */
#endif
		} else {
			/* it stopped here: this byte, and on after it */
			memset(&di, 0, sizeof(di));
			di.addr = addr + off;
			di.bad = true;
			di.len = 1;
			di.bytes[0] = p[off];
			snprintf(di.text, sizeof(di.text), ".byte 0x%02x", p[off]);
			off++;
		}
		e = fn(ctx, &di);
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return e;
}

int decode_each(enum sym_arch arch, const void *code, size_t len, u64 addr,
		int (*fn)(void *ctx, const struct decode_insn *in), void *ctx)
{
	return decode_each_at(arch, code, len, addr, NULL, 0, fn, ctx);
}

#else /* !EBS_HAVE_CAPSTONE */

bool decode_available(void)
{
	return false;
}

int decode_each(enum sym_arch arch, const void *code, size_t len, u64 addr,
		int (*fn)(void *ctx, const struct decode_insn *in), void *ctx)
{
	(void)arch;
	(void)code;
	(void)len;
	(void)addr;
	(void)fn;
	(void)ctx;
	return -EOPNOTSUPP;
}

int decode_each_at(enum sym_arch arch, const void *code, size_t len, u64 addr, const u64 *stops,
		   size_t nstops, int (*fn)(void *ctx, const struct decode_insn *in), void *ctx)
{
	(void)stops;
	(void)nstops;
	return decode_each(arch, code, len, addr, fn, ctx);
}

#endif
