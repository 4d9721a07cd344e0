// SPDX-License-Identifier: MIT
/* export-speedscope.c - ebs export --format speedscope: speedscope's JSON file format. */
#include <errno.h>

#include "report/export.h"

int export_speedscope(const struct stacks *s, FILE *f, struct ebs_error *err)
{
	(void)s;
	(void)f;
	return ebs_error__set(err, EOPNOTSUPP, "--format speedscope: not written yet");
}
