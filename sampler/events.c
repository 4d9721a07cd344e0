// SPDX-License-Identifier: MIT
/*
 * events.c - event names and their perf_event_attr encodings; the named
 * events are include/ebs/ebs_events.h's table, which ebs.ko reads too.
 *
 * Raw events follow the IA32_PERFEVTSELx layout: "rUUEE" is unit mask UU and
 * event select EE (hex); ":cmask=N", ":inv" and ":edge" set those fields.
 * ":u" and ":k" are the USR/OS flags, i.e. exclude_kernel/exclude_user.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ebs/ebs_abi.h>
#include "sampler/sampler.h"

/* The modifiers, as bits of the set already given (each at most once). */
enum {
	MOD_U = 1u << 0,
	MOD_K = 1u << 1,
	MOD_INV = 1u << 2,
	MOD_EDGE = 1u << 3,
	MOD_CMASK = 1u << 4,
};

/* Note modifier bit in *seen; an error naming the event when it was given before. */
static int once(const char *text, unsigned int bit, const char *mod, size_t len, unsigned int *seen,
		struct ebs_error *err)
{
	if (*seen & bit)
		return ebs_error__set(err, EINVAL, "event '%s': modifier ':%.*s' given twice", text,
				      (int)len, mod);
	*seen |= bit;
	return 0;
}

/*
 * One ":modifier" of an event; raw-only fields need a raw event.  Each
 * modifier may appear once (*seen: those given so far): ":inv:inv" does not
 * cancel out, and a second ":cmask=" would silently replace the first.
 */
static int parse_modifier(const char *text, const char *mod, size_t len, struct event_spec *ev,
			  unsigned int *seen, struct ebs_error *err)
{
	bool raw = ev->type == PERF_TYPE_RAW;
	char *end = NULL;
	int e;

	if (len == 1 && mod[0] == 'u') {
		ev->exclude_kernel = true;
		return once(text, MOD_U, mod, len, seen, err);
	}
	if (len == 1 && mod[0] == 'k') {
		ev->exclude_user = true;
		return once(text, MOD_K, mod, len, seen, err);
	}
	if (raw && len == 3 && memcmp(mod, "inv", 3) == 0) {
		ev->config |= EBS_EVTSEL_INV;
		return once(text, MOD_INV, mod, len, seen, err);
	}
	if (raw && len == 4 && memcmp(mod, "edge", 4) == 0) {
		ev->config |= EBS_EVTSEL_EDGE;
		return once(text, MOD_EDGE, mod, len, seen, err);
	}
	if (raw && len > 6 && memcmp(mod, "cmask=", 6) == 0) {
		unsigned long v = 256;

		const char *num = mod + 6;
		size_t nlen = len - 6;

		/* decimal or 0x hex: no sign, no space, no octal surprise */
		if (nlen > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X')) {
			if (strspn(num + 2, "0123456789abcdefABCDEF") == nlen - 2 && nlen <= 4)
				v = strtoul(num + 2, &end, 16);
		} else if (strspn(num, "0123456789") == nlen && nlen <= 3) {
			v = strtoul(num, &end, 10);
		}
		if (v > 255)
			return ebs_error__set(
				err, EINVAL, "event '%s': cmask must be 0..255 (decimal or 0x hex)",
				text);
		e = once(text, MOD_CMASK, "cmask", 5, seen, err);
		if (e)
			return e;
		ev->config = (ev->config & ~EBS_EVTSEL_CMASK(0xff)) | EBS_EVTSEL_CMASK(v);
		return 0;
	}
	return ebs_error__set(err, EINVAL, "event '%s': unknown modifier ':%.*s'%s", text, (int)len,
			      mod, raw ? " (known: u, k, inv, edge, cmask=N)" : " (known: u, k)");
}

int event_spec__parse(const char *text, struct event_spec *out, struct ebs_error *err)
{
	const char *colon = strchr(text, ':');
	size_t base_len = colon ? (size_t)(colon - text) : strlen(text);
	const struct ebs_event *n;
	unsigned int seen = 0;
	const char *mod;
	int e;

	memset(out, 0, sizeof(*out));
	if (ebs_strlcpy(out->name, text, sizeof(out->name)) >= sizeof(out->name))
		return ebs_error__set(err, EINVAL, "event '%.40s...': name too long", text);
	for (n = ebs_events; n->name; n++) {
		if (strlen(n->name) == base_len && memcmp(n->name, text, base_len) == 0) {
			out->type = n->type;
			out->config = n->config;
			out->hardware = n->hardware;
			break;
		}
	}
	if (!n->name) {
		u64 v;

		if (base_len < 2 || text[0] != 'r' ||
		    ebs_parse_hex(text + 1, base_len - 1, &v) != base_len - 1)
			return ebs_error__fail(err, EBS_E_UNKNOWN_EVENT,
					       "unknown event '%.*s' (see 'ebs list'; raw events "
					       "are rUUEE in hex)",
					       (int)base_len, text);
		if (v & 0xffff0000ull)
			return ebs_error__set(
				err, EINVAL,
				"event '%.*s': bits 16-31 of a raw event (USR, OS, "
				"EDGE, INT, EN, INV, CMASK) are set with :u, :k, :edge, "
				":inv and :cmask=N",
				(int)base_len, text);
		out->type = PERF_TYPE_RAW;
		out->config = v;
		out->hardware = true;
	}
	for (mod = colon; mod; mod = strchr(mod + 1, ':')) {
		const char *next = strchr(mod + 1, ':');
		size_t len = next ? (size_t)(next - mod - 1) : strlen(mod + 1);

		e = parse_modifier(text, mod + 1, len, out, &seen, err);
		if (e)
			return e;
	}
	if (out->exclude_user && out->exclude_kernel)
		return ebs_error__set(err, EINVAL, "event '%s': :u and :k exclude each other",
				      text);
	return 0;
}

int event_spec__parse_list(const char *text, struct event_spec *out, unsigned int max,
			   struct ebs_error *err)
{
	char *copy = strdup(text), *tok, *next;
	unsigned int n = 0;
	int e = 0;

	if (!copy)
		return -ENOMEM;
	/* strsep, not strtok: an empty item ("a,,b", a trailing comma) is an error */
	for (next = copy; next && !e;) {
		tok = strsep(&next, ",");
		if (!*tok)
			e = ebs_error__set(err, EINVAL, "event list '%s' has an empty item", text);
		else if (n == max)
			e = ebs_error__set(err, E2BIG, "too many events (at most %u)", max);
		else if (!(e = event_spec__parse(tok, &out[n], err)))
			n++;
	}
	free(copy);
	return e ? e : (int)n;
}

int event_spec__probe(const struct event_spec *ev)
{
	struct perf_event_attr attr = {0};
	int fd;

	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.disabled = 1;
	attr.exclude_kernel = ev->exclude_kernel;
	attr.exclude_user = ev->exclude_user;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int event_spec__hold(const struct event_spec *ev)
{
	struct perf_event_attr attr = {0};
	int fd;

	/* the clocks are PMUs of their own, with no static key */
	if (ev->type != PERF_TYPE_SOFTWARE || event_spec__is_clock(ev))
		return -EOPNOTSUPP;
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.disabled = 1;
	attr.exclude_kernel = 1; /* whatever ev's: the key is the event's, and :u is allowed more */
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

bool event_spec__is_clock(const struct event_spec *ev)
{
	return count_event_is_clock(ev->type, ev->config, 0);
}

bool event_spec__kernel_only(const struct event_spec *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
						  ev->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

const char *event_open_reason(int err)
{
	switch (-err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "this machine has no hardware counter for it (virtual machines usually have no PMU)";
	case EACCES:
	case EPERM:
		return "not permitted (see /proc/sys/kernel/perf_event_paranoid)";
	case EINVAL:
		return "the kernel rejected its encoding";
	case EMFILE:
		return "too many open files (raise ulimit -n)";
	case ENOSYS:
		return "perf_event_open is not available in this kernel";
	default:
		return strerror(-err);
	}
}
