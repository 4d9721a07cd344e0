// SPDX-License-Identifier: MIT
/*
 * file.c - text from the files a recording names, made safe to print.
 * (The files themselves are opened through util's ebs_open_input.)
 */
#include "symbolize/internal.h"

bool sym_text_is_clean(const char *s)
{
	return ebs_text_is_clean(s);
}

char *sym_clean_text(char *s)
{
	return ebs_clean_text(s, false);
}
