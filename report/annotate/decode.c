// SPDX-License-Identifier: MIT
/*
 * decode.c - machine code to instructions (decode.h), through capstone
 * when ebs is built with it; the only file that includes capstone.h.
 * Where capstone stops, Zydis (when built with it: EBS_HAVE_ZYDIS) decodes
 * that one instruction: Debian 12's capstone 4.0.2 knows no AVX-512 mask
 * instruction (kmovd) and few EVEX ones, of which glibc's *_evex string
 * functions, often the hottest code, are made.  capstone stays first, so
 * that what it decodes is listed as before.  Both are loaded at the first
 * decode (util/dynlib.h), not linked: most commands never decode.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/annotate/decode.h"
#include "util/dynlib.h"

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

#ifndef EBS_CAPSTONE_SONAME
#define EBS_CAPSTONE_SONAME ""
#endif
#ifndef EBS_ZYDIS_SONAME
#define EBS_ZYDIS_SONAME ""
#endif

/* capstone's entry points */
static struct capstone {
	__typeof__(cs_open) *cs_open;
	__typeof__(cs_option) *cs_option;
	__typeof__(cs_malloc) *cs_malloc;
	__typeof__(cs_disasm_iter) *cs_disasm_iter;
	__typeof__(cs_insn_group) *cs_insn_group;
	__typeof__(cs_free) *cs_free;
	__typeof__(cs_close) *cs_close;
} capstone;
static const struct dynlib_entry capstone_entries[] = {
	DYNLIB_ENTRY(struct capstone, cs_open) DYNLIB_ENTRY(struct capstone, cs_option)
		DYNLIB_ENTRY(struct capstone, cs_malloc)
			DYNLIB_ENTRY(struct capstone, cs_disasm_iter)
				DYNLIB_ENTRY(struct capstone, cs_insn_group)
					DYNLIB_ENTRY(struct capstone, cs_free)
						DYNLIB_ENTRY(struct capstone, cs_close)};
static int capstone_loaded = -ENOENT;
static char capstone_why[320];

#if EBS_HAVE_ZYDIS
/* Zydis's (zydis_loaded false: what capstone cannot decode is listed as .byte) */
static struct zydis_lib {
	__typeof__(ZydisDecoderInit) *ZydisDecoderInit;
	__typeof__(ZydisFormatterInit) *ZydisFormatterInit;
	__typeof__(ZydisDecoderDecodeFull) *ZydisDecoderDecodeFull;
	__typeof__(ZydisFormatterFormatInstruction) *ZydisFormatterFormatInstruction;
} zydis_lib;
static const struct dynlib_entry zydis_entries[] = {
	DYNLIB_ENTRY(struct zydis_lib, ZydisDecoderInit)
		DYNLIB_ENTRY(struct zydis_lib, ZydisFormatterInit)
			DYNLIB_ENTRY(struct zydis_lib, ZydisDecoderDecodeFull)
				DYNLIB_ENTRY(struct zydis_lib, ZydisFormatterFormatInstruction)};
static bool zydis_loaded;
#endif
static pthread_once_t decoders_once = PTHREAD_ONCE_INIT;

static void decoders_load(void)
{
	const char *cs = EBS_CAPSTONE_SONAME[0] ? EBS_CAPSTONE_SONAME : "libcapstone.so";
	char why[256];

	capstone_loaded = dynlib_load(cs, capstone_entries, ARRAY_SIZE(capstone_entries), &capstone,
				      why, sizeof(why));
	if (capstone_loaded)
		snprintf(capstone_why, sizeof(capstone_why),
			 "this ebs cannot load its disassembler: %s", why);
#if EBS_HAVE_ZYDIS
	zydis_loaded =
		!dynlib_load(EBS_ZYDIS_SONAME[0] ? EBS_ZYDIS_SONAME : "libZydis.so", zydis_entries,
			     ARRAY_SIZE(zydis_entries), &zydis_lib, why, sizeof(why));
#endif
}

bool decode_available(void)
{
	pthread_once(&decoders_once, decoders_load);
	return !capstone_loaded;
}

const char *decode_none_why(void)
{
	return decode_available() ? "" : capstone_why;
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
	if (d &&
	    (capstone.cs_insn_group(cs, ci, CS_GRP_JUMP) ||
	     capstone.cs_insn_group(cs, ci, CS_GRP_CALL)) &&
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
	z->ok = zydis_loaded &&
		ZYAN_SUCCESS(zydis_lib.ZydisDecoderInit(&z->dec, ZYDIS_MACHINE_MODE_LONG_64,
							ZYDIS_STACK_WIDTH_64)) &&
		ZYAN_SUCCESS(zydis_lib.ZydisFormatterInit(&z->fmt, ZYDIS_FORMATTER_STYLE_ATT));
}

/* The one instruction at code (len bytes, at addr) as Zydis decodes it; false: none. */
static bool zydis_take(const struct zydis *z, const u8 *code, size_t len, u64 addr,
		       struct decode_insn *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (!z->ok ||
	    !ZYAN_SUCCESS(zydis_lib.ZydisDecoderDecodeFull(&z->dec, code, len, &in, ops)) ||
	    !in.length || in.length > len || in.length > DECODE_MAX_BYTES)
		return false;
	memset(out, 0, sizeof(*out));
	if (!ZYAN_SUCCESS(zydis_lib.ZydisFormatterFormatInstruction(
		    &z->fmt, &in, ops, in.operand_count_visible, out->text, sizeof(out->text), addr,
		    NULL)))
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
	if (!decode_available())
		return -EOPNOTSUPP;
	ce = capstone.cs_open(CS_ARCH_X86, CS_MODE_64, &cs);
	if (ce != CS_ERR_OK)
		return ce == CS_ERR_MEM ? -ENOMEM : -ENOEXEC;
	capstone.cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT); /* as objdump and perf show it */
	capstone.cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);	  /* branch targets */
	insn = capstone.cs_malloc(cs);
	if (!insn) {
		capstone.cs_close(&cs);
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

		if (capstone.cs_disasm_iter(cs, &at, &left, &a, insn)) {
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
	capstone.cs_free(insn, 1);
	capstone.cs_close(&cs);
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

const char *decode_none_why(void)
{
	return DECODE_NONE_WHY;
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
