// SPDX-License-Identifier: MIT
/*
 * jitmap.c - symbols of JIT-compiled code from /tmp/perf-PID.map, the
 * convention perf defined and V8, LuaJIT and the Java agents write: one
 * line per function, "START SIZE NAME", START and SIZE in hex (0x
 * optional), NAME to the end of the line.  Addresses are the process's
 * own: a lookup uses the runtime address as it is.
 *
 * The file lies in /tmp, where any user can put one: it must be a regular
 * file, not a link, owned by root or by us (ebs_open_input's EBS_IN_SHARED
 * rule), and it is read
 * within bounds no JIT's map comes near (a line holds one name; V8's and
 * the Java agents' are at most a few kilobytes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/internal.h"

#define JITMAP_MAX_SIZE (1ull << 30) /* bytes */
#define JITMAP_MAX_LINE 65536	     /* bytes */

static bool parse_hex(char **p, u64 *out)
{
	size_t n;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if ((*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	n = ebs_parse_hex(*p, strlen(*p), out);
	if (!n || ((*p)[n] != ' ' && (*p)[n] != '\t'))
		return false;
	*p += n;
	return true;
}

int jitmap__load_err(const char *path, struct symtab *t, bool demangle, struct ebs_error *why)
{
	const struct ebs_input_rule rule = {.flags = EBS_IN_SHARED, .owner = (uid_t)-1};
	struct raw_vec rv = {0};
	char *buf = NULL, *line, *next;
	size_t bad_line = 0;
	ssize_t len;
	int fd, err = 0;

	fd = ebs_open_input(path, &rule, NULL, why);
	if (fd < 0)
		return fd;
	len = ebs_read_fd(fd, JITMAP_MAX_SIZE, JITMAP_MAX_LINE, &buf, &bad_line);
	close(fd);
	if (len == -EFBIG)
		ebs_error__fail(why, EBS_E_TOO_LARGE, "larger than %llu MiB: not read",
				JITMAP_MAX_SIZE >> 20);
	else if (len == -E2BIG)
		ebs_error__fail(why, EBS_E_LINE_TOO_LONG,
				"line %zu is %d bytes long or more: not a perf map", bad_line,
				JITMAP_MAX_LINE);
	else if (len < 0)
		ebs_error__set(why, (int)-len, "%s", strerror((int)-len));
	if (len < 0)
		return (int)len;
	for (line = buf; line && *line && !err; line = next) {
		struct raw_sym rs = {0};
		char *p = line;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_hex(&p, &rs.addr) || !parse_hex(&p, &rs.size))
			continue; /* not a map line: skip, as perf does */
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
	if (err)
		ebs_error__fail(why, EBS_E_NOMEM, "out of memory");
	free(rv.v);
	free(buf);
	return err;
}

int jitmap__load(const char *path, struct symtab *t, bool demangle)
{
	return jitmap__load_err(path, t, demangle, NULL);
}
