// SPDX-License-Identifier: MIT
/* flame.c - ebs flamegraph: a self-contained interactive SVG of the call stacks. */
#include <errno.h>

#include "report/stacks.h"

int ebs_flamegraph(const struct flamegraph_opts *o, struct ebs_error *err)
{
	(void)o;
	return ebs_error__set(err, EOPNOTSUPP, "not written yet");
}
