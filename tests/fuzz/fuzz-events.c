// SPDX-License-Identifier: MIT
/*
 * fuzz-events.c - the event-spec parser (sampler/events.c), as `ebs record
 * -e LIST` calls it: event_spec__parse_list() on any text.
 *
 * Promises checked besides memory safety:
 *   - a refusal is -errno with err set to it and one line of message;
 *   - an accepted event keeps its text as its name, never both :u and :k,
 *     a raw one sets no bit of 16-31 but EDGE, INV and CMASK, and no
 *     modifier appears twice;
 *   - an accepted event printed back in canonical form parses to the same
 *     encoding (so nothing the parser accepted was half understood).
 */
#include <linux/perf_event.h>

#include <ebs/ebs_abi.h>
#include "sampler/sampler.h"
#include "tests/fuzz/fuzz.h"

#define MAX 4 /* small, so that "too many events" is reached too */

static const char *named(const struct event_spec *ev)
{
	const struct ebs_event *n;

	for (n = ebs_events; n->name; n++)
		if (n->type == ev->type && n->config == ev->config)
			return n->name;
	return NULL;
}

/* How many times ":mod" (followed by ':', '=' or the end) occurs in name. */
static unsigned int count_mod(const char *name, const char *mod)
{
	size_t len = strlen(mod);
	unsigned int n = 0;
	const char *p;

	for (p = strchr(name, ':'); p; p = strchr(p + 1, ':'))
		if (strncmp(p + 1, mod, len) == 0 &&
		    (p[1 + len] == ':' || p[1 + len] == '=' || p[1 + len] == '\0'))
			n++;
	return n;
}

static void check_event(const struct event_spec *ev)
{
	const u64 raw_mods = EBS_EVTSEL_EDGE | EBS_EVTSEL_INV | EBS_EVTSEL_CMASK(0xff);
	static const char *const mods[] = {"u", "k", "inv", "edge", "cmask"};
	struct ebs_error err = {0};
	struct event_spec again;
	char canon[128];
	int len, e;
	size_t i;

	FUZZ_CHECK(memchr(ev->name, '\0', sizeof(ev->name)), "name not terminated");
	FUZZ_CHECK(!(ev->exclude_user && ev->exclude_kernel), "'%s': both :u and :k", ev->name);
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		FUZZ_CHECK(count_mod(ev->name, mods[i]) <= 1, "'%s': :%s twice", ev->name, mods[i]);
	if (ev->type == PERF_TYPE_RAW) {
		FUZZ_CHECK(ev->hardware, "'%s': raw but not hardware", ev->name);
		FUZZ_CHECK(!(ev->config & 0xffff0000ull & ~raw_mods),
			   "'%s': config %#llx sets USR/OS/INT/EN/PC/ANY", ev->name,
			   (unsigned long long)ev->config);
		len = snprintf(canon, sizeof(canon), "r%llx",
			       (unsigned long long)(ev->config & ~0xffff0000ull));
		if (ev->config & EBS_EVTSEL_CMASK(0xff))
			len += snprintf(canon + len, sizeof(canon) - (size_t)len, ":cmask=%llu",
					(unsigned long long)(ev->config >> 24 & 0xff));
		if (ev->config & EBS_EVTSEL_INV)
			len += snprintf(canon + len, sizeof(canon) - (size_t)len, ":inv");
		if (ev->config & EBS_EVTSEL_EDGE)
			len += snprintf(canon + len, sizeof(canon) - (size_t)len, ":edge");
	} else {
		const char *n = named(ev);

		FUZZ_CHECK(n, "'%s': type %u config %#llx is no named event", ev->name, ev->type,
			   (unsigned long long)ev->config);
		len = snprintf(canon, sizeof(canon), "%s", n);
	}
	if (ev->exclude_kernel)
		len += snprintf(canon + len, sizeof(canon) - (size_t)len, ":u");
	if (ev->exclude_user)
		len += snprintf(canon + len, sizeof(canon) - (size_t)len, ":k");
	e = event_spec__parse(canon, &again, &err);
	FUZZ_CHECK(e == 0, "'%s' printed back as '%s' is refused: %s", ev->name, canon, err.msg);
	FUZZ_CHECK(again.type == ev->type && again.config == ev->config &&
			   again.exclude_user == ev->exclude_user &&
			   again.exclude_kernel == ev->exclude_kernel &&
			   again.hardware == ev->hardware,
		   "'%s' and its canonical form '%s' differ", ev->name, canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_spec ev[MAX];
	struct ebs_error err = {0};
	char *text = fuzz_string(data, size), *item, *next;
	int n, i;

	if (!text)
		return 0;
	n = event_spec__parse_list(text, ev, MAX, &err);
	if (n < 0) {
		FUZZ_CHECK(err.err == n, "returned %d, err.err %d", n, err.err);
		FUZZ_CHECK(err.msg[0], "refused with no message");
		FUZZ_CHECK(strchr(text, '\n') || !strchr(err.msg, '\n'), "message of two lines");
		free(text);
		return 0;
	}
	FUZZ_CHECK(n >= 1 && n <= MAX, "%d events", n);
	/* the items, in order, are the events' names */
	for (i = 0, next = text; i < n; i++) {
		item = strsep(&next, ",");
		FUZZ_CHECK(item && strcmp(item, ev[i].name) == 0, "event %d named '%s', item '%s'",
			   i, ev[i].name, item ? item : "(none)");
		check_event(&ev[i]);
	}
	FUZZ_CHECK(!next, "accepted %d events of a longer list", n);
	free(text);
	return 0;
}
