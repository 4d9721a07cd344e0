// SPDX-License-Identifier: MIT
/* export-pprof.c - ebs export --format pprof: profile.proto, gzipped. */
#include <errno.h>

#include "report/export.h"

int export_pprof(const struct stacks *s, FILE *f, struct ebs_error *err)
{
	(void)s;
	(void)f;
	return ebs_error__set(err, EOPNOTSUPP, "--format pprof: not written yet");
}
