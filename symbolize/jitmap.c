// SPDX-License-Identifier: MIT
/*
 * jitmap.c - symbols of JIT-compiled code from /tmp/perf-PID.map, the
 * convention perf defined and V8, LuaJIT and the Java agents write: one
 * line per function, "START SIZE NAME", START and SIZE in hex (0x
 * optional), NAME to the end of the line.  Addresses are the process's
 * own: a lookup uses the runtime address as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/internal.h"

static bool parse_hex(char **p, u64 *out)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!**p || **p == '-')
		return false;
	errno = 0;
	*out = strtoull(*p, &end, 16);
	if (errno || end == *p || (*end != ' ' && *end != '\t'))
		return false;
	*p = end;
	return true;
}

int jitmap__load(const char *path, struct symtab *t, bool demangle)
{
	struct raw_vec rv = {0};
	char *buf = NULL, *line, *next;
	ssize_t len;
	int err = 0;

	len = ebs_read_file(path, &buf);
	if (len < 0)
		return (int)len;
	for (line = buf; line && *line && !err; line = next) {
		struct raw_sym rs = {0};
		char *p = line;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_hex(&p, &rs.addr) || !parse_hex(&p, &rs.size))
			continue;	/* not a map line: skip, as perf does */
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || !rs.size)
			continue;
		rs.name = p;
		rs.name_len = strlen(p);
		rs.rank = RANK_GLOBAL;
		err = raw_vec__push(&rv, &rs);
	}
	if (!err)
		err = symtab__build(t, &rv, demangle);
	free(rv.v);
	free(buf);
	return err;
}
