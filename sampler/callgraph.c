// SPDX-License-Identifier: MIT
/*
 * callgraph.c - -g / --call-graph: its argument, and the perf_event_attr
 * fields it sets (perf.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "sampler/backend.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* fp: what the leaf's caller is recovered from */
#define REGS_FP ((1ull << PERF_REG_X86_IP) | (1ull << PERF_REG_X86_SP) | (1ull << PERF_REG_X86_BP))
/* dwarf: every register CFI may name (the segment registers the kernel refuses) */
#define REGS_DWARF                                                                                 \
	(((1ull << PERF_REG_X86_64_MAX) - 1) &                                                     \
	 ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | (1ull << PERF_REG_X86_FS) |     \
	   (1ull << PERF_REG_X86_GS)))
_Static_assert(PERF_REG_X86_BP == EBS_REG_X86_BP && PERF_REG_X86_SP == EBS_REG_X86_SP &&
		       PERF_REG_X86_IP == EBS_REG_X86_IP,
	       "ebs_data.h's register numbers");
#else
#define REGS_FP	   0
#define REGS_DWARF 0
#endif

int call_graph__parse(const char *text, enum call_graph *mode, u32 *stack_user,
		      struct ebs_error *err)
{
	const char *comma = strchr(text, ',');
	size_t len = comma ? (size_t)(comma - text) : strlen(text);
	unsigned long long size;
	char *end;

	if (len == 2 && !strncmp(text, "fp", 2)) {
		*mode = CALL_GRAPH_FP;
		*stack_user = CALL_GRAPH_FP_STACK;
	} else if (len == 5 && !strncmp(text, "dwarf", 5)) {
		*mode = CALL_GRAPH_DWARF;
		*stack_user = CALL_GRAPH_DWARF_STACK;
	} else {
		return ebs_error__set(err, EINVAL,
				      "--call-graph wants fp[,SIZE] or dwarf[,SIZE], not '%s'",
				      text);
	}
	if (!comma)
		return 0;
	errno = 0;
	size = strtoull(comma + 1, &end, 10);
	if (!comma[1] || *end || errno || comma[1] == '-' || comma[1] == '+')
		return ebs_error__set(err, EINVAL,
				      "--call-graph %.*s,SIZE: SIZE is a number of bytes, not '%s'",
				      (int)len, text, comma + 1);
	if (size % 8 || size > CALL_GRAPH_MAX_STACK || (size == 0 && *mode == CALL_GRAPH_DWARF))
		return ebs_error__set(
			err, EINVAL,
			"--call-graph %.*s,%s: SIZE must be a multiple of 8 from %u to "
			"%u bytes (the kernel's limit)",
			(int)len, text, comma + 1, *mode == CALL_GRAPH_DWARF ? 8 : 0,
			CALL_GRAPH_MAX_STACK);
	*stack_user = (u32)size;
	return 0;
}

void call_graph__format(enum call_graph mode, u32 stack_user, char *buf, size_t len)
{
	switch (mode) {
	case CALL_GRAPH_FP:
		snprintf(buf, len, "fp,%u", stack_user);
		break;
	case CALL_GRAPH_DWARF:
		snprintf(buf, len, "dwarf,%u", stack_user);
		break;
	default:
		snprintf(buf, len, "%s", "");
		break;
	}
}

u64 call_graph__regs(enum call_graph mode)
{
	return mode == CALL_GRAPH_DWARF ? REGS_DWARF : mode == CALL_GRAPH_FP ? REGS_FP : 0;
}

void call_graph__attr(enum call_graph mode, u32 stack_user, struct perf_event_attr *attr)
{
	if (mode == CALL_GRAPH_NONE)
		return;
	attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	/* kernel code is walked only where the event may sample it */
	attr->exclude_callchain_kernel = attr->exclude_kernel;
	/* dwarf: the user part comes from unwinding the stack copy */
	attr->exclude_callchain_user = mode == CALL_GRAPH_DWARF;
	if (attr->exclude_user || !REGS_FP)
		return; /* no user registers or stack to copy */
	attr->sample_type |= PERF_SAMPLE_REGS_USER;
	attr->sample_regs_user = call_graph__regs(mode);
	if (stack_user) {
		attr->sample_type |= PERF_SAMPLE_STACK_USER;
		attr->sample_stack_user = stack_user;
	}
}
