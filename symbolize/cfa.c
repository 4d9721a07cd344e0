// SPDX-License-Identifier: MIT
/*
 * cfa.c - unwinding a sample's stack copy through the CFI rules nearly all
 * code has, without libunwind: the CFA a register (rsp, rbp, ...) plus an
 * offset, registers saved at offsets from it, the return address at
 * CFA-8.  A step is what libunwind 1.6's unw_step does on x86-64 with
 * unwind.c's accessors (src/dwarf/Gparser.c: run_cfi_program,
 * apply_reg_state; src/x86_64/Gstep.c), so the frames found are
 * libunwind's; where a step meets anything else (a CIE but "zR", a signal
 * frame, an expression, DW_CFA_set_loc, an address with no FDE in the
 * DSO's .eh_frame, an unchanged frame) cfa_unwind gives up and unwind.c has
 * libunwind unwind the sample from its start.  Each libunwind step reads
 * the CIE and FDE a byte at a time through access_mem; here they are read
 * from unwind.c's copy of the DSO's .eh_frame.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/cfa.h"

#define NREG   17 /* DWARF_NUM_PRESERVED_REGS: rax..r15, rip */
#define RSP    7
#define RBP    6
#define RIP    16
#define STATES 16 /* DW_CFA_remember_state depth taken */

enum where { W_SAME, W_UNDEF, W_CFAREL, W_REG };

struct rules {
	u8 where[NREG];
	u64 val[NREG];
	bool cfa_set; /* the CFA is a register plus an offset */
	u64 cfa_reg, cfa_off;
};

struct cie {
	u64 code_align, data_align, ra;
	const u8 *instr, *instr_end;
};

/* A register's location, as libunwind's dwarf_loc_t: the sample's register, memory, none. */
enum loc_kind { L_REG, L_MEM, L_NULL };

struct loc {
	enum loc_kind kind;
	u64 v; /* the register (DWARF number) or the address */
};

/* PERF_REG_X86_* of the DWARF register numbers (unwind.c's perf_reg_of). */
static const signed char perf_reg[NREG] = {0,  3,  2,  1,  4,  5,  6,  7, 16,
					   17, 18, 19, 20, 21, 22, 23, 8};

/* An LEB128 number at *p (signed: its last byte's bit 6 extended). */
static bool leb(const u8 **p, const u8 *end, u64 *v, bool is_signed)
{
	unsigned int shift = 0;
	u64 r = 0;
	u8 b;

	do {
		if (*p >= end || shift >= 64)
			return false;
		b = *(*p)++;
		r |= (u64)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		r |= ~(u64)0 << shift;
	*v = r;
	return true;
}

static bool uleb(const u8 **p, const u8 *end, u64 *v)
{
	return leb(p, end, v, false);
}

static bool sleb(const u8 **p, const u8 *end, u64 *v)
{
	return leb(p, end, v, true);
}

static bool fixed(const u8 **p, const u8 *end, void *v, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(v, *p, n);
	*p += n;
	return true;
}

/* A register number of an instruction: < NREG, as libunwind's read_regnum takes. */
static bool regnum(const u8 **p, const u8 *end, u64 *r)
{
	return uleb(p, end, r) && *r < NREG;
}

static void set(struct rules *r, u64 reg, enum where w, u64 val)
{
	r->where[reg] = (u8)w;
	r->val[reg] = val;
}

/*
 * run_cfi_program: the instructions [p, end) from location *ip while it
 * is at most end_ip.  false at one not taken.
 */
static bool run(const struct cie *ci, struct rules *cur, const struct rules *init, u64 *ip,
		u64 end_ip, const u8 *p, const u8 *end)
{
	struct rules saved[STATES];
	unsigned int depth = 0;

	while (*ip <= end_ip && p < end) {
		u8 op = *p++, u1;
		u16 u2;
		u32 u4;
		u64 operand = 0, reg, val;

		if (op & 0xc0) {
			operand = op & 0x3f;
			op &= 0xc0;
		}
		switch (op) {
		case DW_CFA_advance_loc:
			*ip += operand * ci->code_align;
			break;
		case DW_CFA_advance_loc1:
			if (!fixed(&p, end, &u1, 1))
				return false;
			*ip += u1 * ci->code_align;
			break;
		case DW_CFA_advance_loc2:
			if (!fixed(&p, end, &u2, 2))
				return false;
			*ip += u2 * ci->code_align;
			break;
		case DW_CFA_advance_loc4:
			if (!fixed(&p, end, &u4, 4))
				return false;
			*ip += u4 * ci->code_align;
			break;
		case DW_CFA_offset:
			if (operand >= NREG || !uleb(&p, end, &val))
				return false;
			set(cur, operand, W_CFAREL, val * ci->data_align);
			break;
		case DW_CFA_offset_extended:
			if (!regnum(&p, end, &reg) || !uleb(&p, end, &val))
				return false;
			set(cur, reg, W_CFAREL, val * ci->data_align);
			break;
		case DW_CFA_offset_extended_sf:
			if (!regnum(&p, end, &reg) || !sleb(&p, end, &val))
				return false;
			set(cur, reg, W_CFAREL, val * ci->data_align);
			break;
		case DW_CFA_GNU_negative_offset_extended:
			if (!regnum(&p, end, &reg) || !uleb(&p, end, &val))
				return false;
			set(cur, reg, W_CFAREL, -(val * ci->data_align));
			break;
		case DW_CFA_restore:
			if (operand >= NREG)
				return false;
			set(cur, operand, init->where[operand], init->val[operand]);
			break;
		case DW_CFA_restore_extended:
			if (!regnum(&p, end, &reg))
				return false;
			set(cur, reg, init->where[reg], init->val[reg]);
			break;
		case DW_CFA_nop:
			break;
		case DW_CFA_undefined:
			if (!regnum(&p, end, &reg))
				return false;
			set(cur, reg, W_UNDEF, 0);
			break;
		case DW_CFA_same_value:
			if (!regnum(&p, end, &reg))
				return false;
			set(cur, reg, W_SAME, 0);
			break;
		case DW_CFA_register:
			if (!regnum(&p, end, &reg) || !uleb(&p, end, &val) || val >= NREG)
				return false;
			set(cur, reg, W_REG, val);
			break;
		case DW_CFA_remember_state:
			if (depth == STATES)
				return false;
			saved[depth++] = *cur;
			break;
		case DW_CFA_restore_state:
			if (!depth)
				return false;
			*cur = saved[--depth];
			break;
		case DW_CFA_def_cfa:
			if (!regnum(&p, end, &reg) || !uleb(&p, end, &val))
				return false;
			cur->cfa_set = true;
			cur->cfa_reg = reg;
			cur->cfa_off = val;
			break;
		case DW_CFA_def_cfa_sf:
			if (!regnum(&p, end, &reg) || !sleb(&p, end, &val))
				return false;
			cur->cfa_set = true;
			cur->cfa_reg = reg;
			cur->cfa_off = val * ci->data_align;
			break;
		case DW_CFA_def_cfa_register:
			if (!regnum(&p, end, &reg))
				return false;
			cur->cfa_set = true;
			cur->cfa_reg = reg;
			break;
		case DW_CFA_def_cfa_offset:
			if (!uleb(&p, end, &val))
				return false;
			cur->cfa_off = val;
			break;
		case DW_CFA_def_cfa_offset_sf:
			if (!sleb(&p, end, &val))
				return false;
			cur->cfa_off = val * ci->data_align;
			break;
		case DW_CFA_GNU_args_size:
			if (!uleb(&p, end, &val))
				return false;
			break;
		default: /* set_loc, the expressions, and what libunwind skips or refuses */
			return false;
		}
	}
	return true;
}

/* The bytes [v, v + n) of t's .eh_frame (link-time addresses), or NULL. */
static const u8 *eh_at(const struct cfi_table *t, u64 v, u64 n)
{
	if (!t->eh || v < t->eh_vaddr || v - t->eh_vaddr > t->eh_size ||
	    n > t->eh_size - (v - t->eh_vaddr))
		return NULL;
	return t->eh + (v - t->eh_vaddr);
}

/*
 * The entry of t's search table (sorted by start, each a pair of int32
 * relative to hdr_vaddr) that libunwind's binary search for rel finds: the
 * last one starting at or before it.  Its index, or -1 when none does or
 * the table is not within the header's bytes.
 */
s64 cfi_table__entry(const struct cfi_table *t, s32 rel)
{
	u64 off = t->table_vaddr - t->hdr_vaddr, lo = 0, hi = t->fde_count;

	if (!t->hdr || t->table_vaddr < t->hdr_vaddr || off > t->hdr_size ||
	    t->fde_count > (t->hdr_size - off) / 8)
		return -1;
	while (lo < hi) {
		u64 mid = (lo + hi) / 2;
		s32 start;

		memcpy(&start, t->hdr + off + mid * 8, 4);
		if (rel < start)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi ? (s64)hi - 1 : -1;
}

/* A "zR" CIE at link-time address v, version 1, FDE addresses pc-relative sdata4. */
static bool parse_cie(const struct cfi_table *t, u64 v, struct cie *ci)
{
	const u8 *p = eh_at(t, v, 4), *end;
	u32 len, id;
	u64 aug;
	u8 ra;

	if (!p)
		return false;
	memcpy(&len, p, 4);
	if (!len || len == 0xffffffff || !(p = eh_at(t, v + 4, len)))
		return false;
	end = p + len;
	if (!fixed(&p, end, &id, 4) || id || end - p < 4 || memcmp(p, "\1zR", 4))
		return false;
	p += 4;
	if (!uleb(&p, end, &ci->code_align) || !sleb(&p, end, &ci->data_align) ||
	    !fixed(&p, end, &ra, 1) || !uleb(&p, end, &aug) || p >= end ||
	    *p++ != (DW_EH_PE_pcrel | DW_EH_PE_sdata4))
		return false;
	ci->ra = ra;
	ci->instr = p;
	ci->instr_end = end;
	return true;
}

/*
 * The rules at ip (of a runtime address lookup, end_ip the last location
 * whose instructions apply) from t's FDE (t of a DSO loaded at bias).
 */
static bool rules_at(const struct cfi_table *t, u64 bias, u64 lookup, u64 end_ip, struct rules *r,
		     u64 *ra)
{
	u64 segbase = t->hdr_vaddr + bias, fde, field, start, aug;
	s64 k = cfi_table__entry(t, (s32)(lookup - segbase));
	const u8 *p, *end;
	struct rules init;
	struct cie ci;
	s32 off, cie_off, range;
	u32 len;
	u64 ip = 0;
	unsigned int i;

	if (k < 0)
		return false;
	memcpy(&off, t->hdr + (t->table_vaddr - t->hdr_vaddr) + (u64)k * 8 + 4, 4);
	fde = t->hdr_vaddr + (u64)(s64)off; /* link-time */
	if (!(p = eh_at(t, fde, 4)))
		return false;
	memcpy(&len, p, 4);
	if (!len || len == 0xffffffff || !(p = eh_at(t, fde + 4, len)))
		return false;
	end = p + len;
	field = fde + 4;
	if (!fixed(&p, end, &cie_off, 4) || !cie_off ||
	    !parse_cie(t, field - (u64)(s64)cie_off, &ci))
		return false;
	field = fde + 8;
	if (!fixed(&p, end, &off, 4) || !fixed(&p, end, &range, 4) || !uleb(&p, end, &aug) ||
	    aug > (u64)(end - p))
		return false;
	start = field + bias + (u64)(s64)off;
	if (lookup < start || lookup >= start + (u64)(s64)range)
		return false;
	memset(r, 0, sizeof(*r));
	for (i = 0; i < NREG; i++)
		r->where[i] = W_SAME;
	if (!run(&ci, r, r, &ip, ~(u64)0, ci.instr, ci.instr_end))
		return false;
	init = *r;
	ip = start;
	*ra = ci.ra;
	return run(&ci, r, &init, &ip, end_ip, p + aug, end);
}

/*
 * A memo of rules_at: what it found at an address of a DSO loaded at a
 * bias, by the address.  The rules are a function of the FDE's bytes and
 * the address alone, and a chain's return addresses recur.
 */
#define MEMO 1024

struct cfa_memo {
	struct {
		u64 lookup, bias; /* lookup 0: empty (no code at 0) */
		u64 ra;
		bool ok;
		struct rules r;
	} e[MEMO];
};

void cfa_memo__free(struct cfa_memo *m)
{
	free(m);
}

/* rules_at through *memo (made here at the first; without it when out of memory). */
static bool rules_memo(const struct cfi_table *t, u64 bias, u64 lookup, struct cfa_memo **memo,
		       struct rules *r, u64 *ra)
{
	u64 h = ((lookup ^ bias) * 0x9e3779b97f4a7c15ull) >> 54; /* < MEMO */
	__typeof__((*memo)->e[0]) *e;

	if (!*memo)
		*memo = calloc(1, sizeof(**memo));
	if (!*memo || !lookup)
		return rules_at(t, bias, lookup, lookup, r, ra);
	e = &(*memo)->e[h];
	if (e->lookup != lookup || e->bias != bias) {
		e->ok = rules_at(t, bias, lookup, lookup, &e->r, &e->ra);
		e->lookup = lookup;
		e->bias = bias;
	}
	*r = e->r;
	*ra = e->ra;
	return e->ok;
}

/*
 * The value at a location: the sample's register, or memory as libunwind's
 * access_mem reads it (env->mem).  1, 0 when it cannot be read (libunwind
 * fails the step), -1 for a location libunwind's reading is not copied
 * for (none).
 */
static int get(const struct cfa_env *env, struct loc l, u64 *v)
{
	const struct sym_stack *st = env->st;
	unsigned int reg;

	if (l.kind == L_REG) {
		reg = (unsigned int)perf_reg[l.v];
		if (!(st->regs_mask & (1ull << reg)))
			return 0;
		*v = st->regs[__builtin_popcountll(st->regs_mask & ((1ull << reg) - 1))];
		return 1;
	}
	if (l.kind == L_MEM && l.v >= env->sp && st->stack_size >= 8 &&
	    l.v - env->sp <= st->stack_size - 8) {
		memcpy(v, st->stack + (l.v - env->sp), 8);
		return 1;
	}
	if (l.kind == L_MEM)
		return env->mem(env->arg, l.v, v) ? 1 : 0;
	return -1;
}

enum cfa_result cfa_unwind(const struct cfa_env *env, u64 *ips, unsigned int max, unsigned int *nr,
			   enum sym_unwind_end *end)
{
	struct loc loc[NREG], nl[NREG];
	u64 ip = ips[0], cfa = env->sp, prev_ip, prev_cfa, ra, bias, lookup;
	const struct cfi_table *t;
	struct cfa_memo **memo;
	bool prev_instr = false;
	struct rules r;
	unsigned int i;
	int got;

	for (i = 0; i < NREG; i++)
		loc[i] = (struct loc){L_REG, i};
	*nr = 1;
	for (;;) {
		if (*nr >= max) {
			*end = SYM_UNWIND_MAX;
			return CFA_DONE;
		}
		lookup = ip - prev_instr;
		if (!env->table(env->arg, lookup, &t, &bias, &memo) ||
		    !rules_memo(t, bias, lookup, memo, &r, &ra) || !r.cfa_set || ra >= NREG ||
		    r.cfa_reg == RIP)
			return CFA_GAVE_UP;
		/* apply_reg_state */
		prev_ip = ip;
		prev_cfa = cfa;
		if (r.cfa_reg == RSP) { /* unw_get_reg's rsp is the CFA */
			cfa += r.cfa_off;
		} else {
			u64 base;

			got = get(env, loc[r.cfa_reg], &base);
			if (got <= 0)
				return got ? CFA_GAVE_UP : CFA_READ_FAILED;
			cfa = base + r.cfa_off;
		}
		memcpy(nl, loc, sizeof(nl));
		for (i = 0; i < NREG; i++) {
			if (r.where[i] == W_UNDEF)
				nl[i] = (struct loc){L_NULL, 0};
			else if (r.where[i] == W_CFAREL)
				nl[i] = (struct loc){L_MEM, cfa + r.val[i]};
			else if (r.where[i] == W_REG)
				nl[i] = nl[r.val[i]];
		}
		memcpy(loc, nl, sizeof(loc));
		if (loc[ra].kind == L_NULL) {
			ip = 0;
		} else if ((got = get(env, loc[ra], &ip)) <= 0) {
			return got ? CFA_GAVE_UP : CFA_READ_FAILED;
		} else if (ip == prev_ip && cfa == prev_cfa) {
			return CFA_GAVE_UP; /* libunwind's -UNW_EBADFRAME */
		}
		/* Gstep.c: the x86-64 ABI ends the chain where rbp is undefined */
		if (loc[RBP].kind == L_NULL)
			ip = 0;
		prev_instr = true; /* no signal frames here: "zR" CIEs only */
		if (!ip) {
			*end = SYM_UNWIND_OUTERMOST;
			return CFA_DONE;
		}
		if (ip > 1 && env->mapped(env->arg, ip - 1)) {
			ips[(*nr)++] = ip;
			continue;
		}
		*end = SYM_UNWIND_BAD;
		return CFA_DONE;
	}
}
