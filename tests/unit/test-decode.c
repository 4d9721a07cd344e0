// SPDX-License-Identifier: MIT
/*
 * test-decode.c - report/annotate/decode.c on x86-64 bytes whose decoding is known
 * (the Intel SDM's encodings): each instruction's address, length, bytes
 * and text, the targets of a direct call, jmp and jcc (none for an
 * indirect call), and a partial decode: a byte that begins no instruction
 * in 64-bit mode, in the middle, is handed on as a bad one and the
 * instructions after it are still decoded.  In an ebs built without a
 * disassembler, decode_each says so (-EOPNOTSUPP), ebs_annotate refuses
 * --asm with one line, and the rest SKIPs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/annotate/decode.h"
#include "report/report.h"
#include "test.h"

#ifndef EBS_HAVE_ZYDIS
#define EBS_HAVE_ZYDIS 0
#endif

#define BASE 0x401000ull

struct got {
	struct decode_insn v[32];
	size_t n;
	size_t stop_after; /* fn returns -EIO at this many, 0: never */
};

static int collect(void *ctx, const struct decode_insn *in)
{
	struct got *g = ctx;

	if (g->n == sizeof(g->v) / sizeof(g->v[0]))
		return -E2BIG;
	g->v[g->n++] = *in;
	return g->stop_after && g->n == g->stop_after ? -EIO : 0;
}

/* Does text begin with word (the mnemonic: "call" or capstone 4's "callq")? */
static bool starts(const char *text, const char *word)
{
	return !strncmp(text, word, strlen(word));
}

static void test_known(void)
{
	static const u8 code[] = {
		0x55,			      /* 401000: push %rbp */
		0x48, 0x89, 0xe5,	      /* 401001: mov %rsp,%rbp */
		0xe8, 0x0b, 0x00, 0x00, 0x00, /* 401004: call 401014 */
		0x74, 0x02,		      /* 401009: je 40100d */
		0xeb, 0xfe,		      /* 40100b: jmp 40100b (itself) */
		0xff, 0xd0,		      /* 40100d: call *%rax: no target */
		0x0f, 0x0b,		      /* 40100f: ud2 */
		0x5d,			      /* 401011: pop %rbp */
		0xc3,			      /* 401012: ret */
		0x90,			      /* 401013: nop */
	};
	static const struct {
		u64 addr;
		u8 len;
		const char *mnem;
		bool has_target;
		u64 target;
	} want[] = {
		{0x401000, 1, "push", false, 0},       {0x401001, 3, "mov", false, 0},
		{0x401004, 5, "call", true, 0x401014}, {0x401009, 2, "je", true, 0x40100d},
		{0x40100b, 2, "jmp", true, 0x40100b},  {0x40100d, 2, "call", false, 0},
		{0x40100f, 2, "ud2", false, 0},	       {0x401011, 1, "pop", false, 0},
		{0x401012, 1, "ret", false, 0},	       {0x401013, 1, "nop", false, 0},
	};
	struct got g = {0};
	size_t i, bad_fields = 0;
	int e = decode_each(SYM_ARCH_X86_64, code, sizeof(code), BASE, collect, &g);

	TEST_EQ("decode: known bytes: 0", e, 0);
	TEST_EQ("decode: known bytes: 10 instructions", g.n, ARRAY_SIZE(want));
	for (i = 0; i < g.n && i < ARRAY_SIZE(want); i++) {
		const struct decode_insn *in = &g.v[i];

		if (in->addr != want[i].addr || in->len != want[i].len || in->bad ||
		    memcmp(in->bytes, code + (in->addr - BASE), in->len) ||
		    !starts(in->text, want[i].mnem) || in->has_target != want[i].has_target ||
		    (want[i].has_target && in->target != want[i].target)) {
			TEST_FAIL("decode: known bytes",
				  "#%zu at %#llx: len %u, text '%s', "
				  "target %d %#llx; want %#llx, len %u, '%s...', target %d %#llx",
				  i, (unsigned long long)in->addr, in->len, in->text,
				  in->has_target, (unsigned long long)in->target,
				  (unsigned long long)want[i].addr, want[i].len, want[i].mnem,
				  want[i].has_target, (unsigned long long)want[i].target);
			bad_fields++;
		}
	}
	TEST_EQ("decode: known bytes: address, length, bytes, mnemonic and target of each",
		bad_fields, 0);
	/* AT&T syntax, as objdump shows it: source before destination, registers with % */
	TEST_CHECK("decode: mov's text in AT&T syntax (%rsp before %rbp)",
		   g.n > 1 && strstr(g.v[1].text, "%rsp") &&
			   strstr(g.v[1].text, "%rsp") < strstr(g.v[1].text, "%rbp"));
	TEST_CHECK("decode: the direct call's text names its target",
		   g.n > 2 && strstr(g.v[2].text, "0x401014"));
	TEST_CHECK("decode: the indirect call's text names its register",
		   g.n > 5 && strstr(g.v[5].text, "*%rax"));
}

/*
 * 0x06 (push %es) and 0x27 (daa) are invalid in 64-bit mode: capstone's
 * cs_disasm stops at each, having decoded what came before.
 */
static void test_partial(void)
{
	static const u8 code[] = {
		0x55,		  /* push %rbp */
		0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
		0x06,		  /* invalid */
		0x27,		  /* invalid */
		0x5d,		  /* pop %rbp */
		0xc3,		  /* ret */
	};
	struct got g = {0};
	int e = decode_each(SYM_ARCH_X86_64, code, sizeof(code), BASE, collect, &g);
	size_t i, nbad = 0, bytes = 0;

	TEST_EQ("decode: partial: 0", e, 0);
	for (i = 0; i < g.n; i++) {
		nbad += g.v[i].bad;
		bytes += g.v[i].len;
	}
	TEST_EQ("decode: partial: 6 instructions, the 2 bad bytes among them", g.n, 6);
	TEST_EQ("decode: partial: the 2 invalid bytes are bad, nothing else", nbad, 2);
	TEST_CHECK("decode: partial: the first bad one is at 0x401004, one byte, '.byte 0x06'",
		   g.n > 2 && g.v[2].bad && g.v[2].addr == BASE + 4 && g.v[2].len == 1 &&
			   g.v[2].bytes[0] == 0x06 && !strcmp(g.v[2].text, ".byte 0x06"));
	TEST_CHECK("decode: partial: '.byte 0x27' at 0x401005",
		   g.n > 3 && g.v[3].bad && g.v[3].addr == BASE + 5 &&
			   !strcmp(g.v[3].text, ".byte 0x27"));
	TEST_CHECK("decode: partial: pop and ret decoded after them, at 0x401006 and 0x401007",
		   g.n > 5 && !g.v[4].bad && g.v[4].addr == BASE + 6 &&
			   starts(g.v[4].text, "pop") && !g.v[5].bad && g.v[5].addr == BASE + 7 &&
			   starts(g.v[5].text, "ret"));
	TEST_EQ("decode: partial: every byte accounted for", bytes, sizeof(code));
}

static void test_edges(void)
{
	static const u8 code[] = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3};
	static const u8 cut[] = {0x55, 0xe8, 0x0b}; /* a call cut short */
	struct got g = {0};
	int e;

	g.stop_after = 2;
	e = decode_each(SYM_ARCH_X86_64, code, sizeof(code), BASE, collect, &g);
	TEST_CHECK("decode: fn's nonzero return stops it and is returned", e == -EIO && g.n == 2);
	memset(&g, 0, sizeof(g));
	e = decode_each(SYM_ARCH_UNKNOWN, code, sizeof(code), BASE, collect, &g);
	TEST_CHECK("decode: an architecture it does not decode: -ENOEXEC, nothing",
		   e == -ENOEXEC && g.n == 0);
	memset(&g, 0, sizeof(g));
	e = decode_each(SYM_ARCH_X86_64, cut, sizeof(cut), BASE, collect, &g);
	TEST_CHECK("decode: an instruction cut short at the end: its bytes are bad ones",
		   e == 0 && g.n == 3 && !g.v[0].bad && g.v[1].bad && g.v[2].bad &&
			   g.v[2].addr == BASE + 2);
	memset(&g, 0, sizeof(g));
	e = decode_each(SYM_ARCH_X86_64, code, 0, BASE, collect, &g);
	TEST_CHECK("decode: no bytes, no instructions", e == 0 && g.n == 0);
}

/*
 * ebs annotate --asm: refused at once, before the input is opened, in an
 * ebs built without a disassembler; otherwise the input is opened (and
 * here is missing).
 */
static void test_annotate_asm(void)
{
	struct annotate_opts o = {0};
	struct ebs_error err = {0};
	int e;

	o.view.input = "/nonexistent/ebs.data";
	o.asm_ = true;
	o.view.out = stdout;
	e = ebs_annotate(&o, &err);
	if (decode_available())
		TEST_CHECK("decode: annotate --asm with a disassembler: the input is opened",
			   e == -ENOENT && !strstr(err.msg, "disassembler"));
	else
		TEST_CHECK("decode: annotate --asm without a disassembler: one line, -EOPNOTSUPP",
			   e == -EOPNOTSUPP &&
				   !strcmp(err.msg,
					   "--asm: this ebs was built without a "
					   "disassembler (install libcapstone-dev and rebuild)"));
}

/*
 * Known instruction starts (decode_each_at): the bytes b8 c3 c3 c3 c3 are
 * one mov $0xc3c3c3c3,%eax from offset 0; when an instruction is known to
 * begin at offset 1 (a sampled address, a line-table row: the decoder lost
 * the boundaries before it), byte 0 is listed alone and the rets from 1.
 */
static void test_stops(void)
{
	static const u8 code[] = {0xb8, 0xc3, 0xc3, 0xc3, 0xc3};
	static const u64 at1[] = {1}, past[] = {0, 5, 9};
	struct got g = {0};
	int e;

	e = decode_each_at(SYM_ARCH_X86_64, code, sizeof(code), BASE, NULL, 0, collect, &g);
	TEST_CHECK("decode: no stops: one 5-byte mov", !e && g.n == 1 && g.v[0].len == 5);
	memset(&g, 0, sizeof(g));
	e = decode_each_at(SYM_ARCH_X86_64, code, sizeof(code), BASE, at1, 1, collect, &g);
	TEST_CHECK("decode: a stop at 1: byte 0 bad, then 4 rets from BASE + 1",
		   !e && g.n == 5 && g.v[0].bad && g.v[0].len == 1 && g.v[1].addr == BASE + 1 &&
			   starts(g.v[1].text, "ret") && starts(g.v[4].text, "ret"));
	memset(&g, 0, sizeof(g));
	e = decode_each_at(SYM_ARCH_X86_64, code, sizeof(code), BASE, past, 3, collect, &g);
	TEST_CHECK("decode: stops at 0 and at or past the end change nothing",
		   !e && g.n == 1 && g.v[0].len == 5);
}

/*
 * AVX-512, as glibc's __memcmp_evex_movbe has it (objdump -d): kmovd
 * %ecx,%k2; vmovdqu8 (%rsi),%ymm18{%k2}; vpcmpnequb (%rdi),%ymm18,%k1{%k2};
 * kmovd %k1,%eax; test %eax,%eax; ret.  capstone 4.0.2 knows neither kmovd
 * nor the EVEX compare; with Zydis (EBS_HAVE_ZYDIS) each is one instruction
 * of its own length, no byte bad, and the test and ret after them are found.
 */
static void test_avx512(void)
{
	static const u8 code[] = {0xc5, 0xfb, 0x92, 0xd1, 0x62, 0xe1, 0x7f, 0x2a,
				  0x6f, 0x16, 0x62, 0xf3, 0x6d, 0x22, 0x3e, 0x0f,
				  0x04, 0xc5, 0xfb, 0x93, 0xc1, 0x85, 0xc0, 0xc3};
	static const u8 lens[] = {4, 6, 7, 4, 2, 1};
	static const char *const names[] = {"kmovd", "vmovdqu8", "vpcmp", "kmovd", "test", "ret"};
	struct got g = {0};
	size_t i, same = 0;
	int e;

	e = decode_each(SYM_ARCH_X86_64, code, sizeof(code), BASE, collect, &g);
	if (!EBS_HAVE_ZYDIS) {
		TEST_SKIP("decode: AVX-512 (kmovd, EVEX compares) decoded whole",
			  "this ebs was built without Zydis (libzydis-dev)");
		return;
	}
	for (i = 0; i < g.n && i < 6; i++)
		same += !g.v[i].bad && g.v[i].len == lens[i] && starts(g.v[i].text, names[i]);
	TEST_CHECK("decode: AVX-512: kmovd, vmovdqu8, vpcmp, kmovd, test, ret, each whole",
		   !e && g.n == 6 && same == 6);
	TEST_CHECK("decode: AVX-512: kmovd's operands in AT&T order (%ecx, %k2)",
		   g.n > 0 && strstr(g.v[0].text, "%ecx, %k2") != NULL);
}

/* Without a disassembler, the one thing to check is that decoding says so. */
static void test_instructions(void)
{
	static const u8 ret = 0xc3;
	struct got g = {0};

	if (!decode_available()) {
		TEST_EQ("decode: without a disassembler: -EOPNOTSUPP",
			decode_each(SYM_ARCH_X86_64, &ret, 1, BASE, collect, &g), -EOPNOTSUPP);
		TEST_SKIP("decode: instructions", "this ebs was built without capstone");
		return;
	}
	test_known();
	test_partial();
	test_edges();
	test_stops();
	test_avx512();
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_annotate_asm), TEST_CASE(test_instructions))
