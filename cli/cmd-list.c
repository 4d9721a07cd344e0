// SPDX-License-Identifier: MIT
/* cmd-list.c - ebs list: the events this machine can open, probed one by one. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <ebs/count.h>

#include "cli/builtin.h"
#include "sampler/sampler.h"

/* The raw-event row: its name, then its description. */
#define RAW_NAME "rUUEE"
#define RAW_DESC "a raw PMU event (see below); modifiers :cmask=N, :inv, :edge too; not probed"

/* ebs list takes no operand, and names any word it does not know so */
static int list_bad(const struct cli_cmd *cmd, int c, char **argv)
{
	(void)cmd, (void)c;
	fprintf(stderr, "ebs list: unknown argument '%s'\n", argv[optind - 1]);
	return 2;
}

static const struct cli_opt list_opts[] = {
	{"no-pager", 0, NULL, "on a terminal too, no pager ($EBS_PAGER, $PAGER or less)", CLI_SET,
	 .off = 0},
	{0},
};

const struct cli_cmd cli_list_cmd = {
	.name = "list",
	.usage = "usage: ebs list [--no-pager]\n",
	.about =
		"Probes every named event with perf_event_open and says whether it can be sampled\n"
		"here.\n",
	.opts = list_opts,
	.in_order = true,
	.bad = list_bad,
};

int cmd_list(int argc, char **argv)
{
	const struct ebs_event *n;
	enum ebs_count_path path;
	char why[256];
	bool no_pager = false;
	int w = (int)strlen(RAW_NAME), e;
	FILE *out;

	e = cli_parse(&cli_list_cmd, argc, argv, &no_pager);
	if (e)
		return cli_exit(e);
	if (optind < argc) {
		fprintf(stderr, "ebs list: unknown argument '%s'\n", argv[optind]);
		return 2;
	}
	/* every row's columns where the header's are: the event column fits all names */
	for (n = ebs_events; n->name; n++)
		if ((int)strlen(n->name) > w)
			w = (int)strlen(n->name);
	w += 2;
	out = cli_pager_stream(no_pager, NULL, NULL);
	fprintf(out, "%-*s %-9s %-12s %s\n", w, "event", "kind", "status", "description");
	for (n = ebs_events; n->name; n++) {
		struct event_spec ev = {0};
		int err, err_u;

		ebs_strlcpy(ev.name, n->name, sizeof(ev.name));
		ev.type = n->type;
		ev.config = n->config;
		ev.hardware = n->hardware;
		err = event_spec__probe(&ev);
		ev.exclude_kernel = true;
		err_u = err ? event_spec__probe(&ev) : 0;
		if (!err)
			fprintf(out, "%-*s %-9s %-12s %s\n", w, n->name,
				n->hardware ? "hardware" : "software", "available", n->desc);
		else if (!err_u && event_spec__kernel_only(&ev))
			/* opens with :u, and counts nothing: it happens in the kernel */
			fprintf(out,
				"%-*s %-9s %-12s %s: only in the kernel, and this user may count "
				"user space only (:u counts 0): %s\n",
				w, n->name, "software", "unavailable", n->desc,
				event_open_reason(err));
		else if (!err_u)
			fprintf(out, "%-*s %-9s %-12s %s (user space only here: %s)\n", w, n->name,
				n->hardware ? "hardware" : "software", "available:u", n->desc,
				event_open_reason(err));
		else /* not permitted, and not there in user space either: the latter is why */
			fprintf(out, "%-*s %-9s %-12s %s: %s\n", w, n->name,
				n->hardware ? "hardware" : "software", "unavailable", n->desc,
				event_open_reason((err == -EACCES || err == -EPERM) ? err_u : err));
	}
	fprintf(out, "%-*s %-9s %-12s %s\n", w, RAW_NAME, "raw", "-", RAW_DESC);
	fprintf(out,
		"\nModifiers: :u user space only (USR), :k kernel only (OS).\n"
		"Raw events use the PerfEvtSel layout: unit mask UU, event select EE, in hex.\n"
		"Unavailable hardware events fall back to cpu-clock in 'ebs record' (with a "
		"notice), unless --no-fallback.\n");
	/* libebs's counting read path on this machine (ebs-count(3)) */
	path = ebs_count_probe_path(why, sizeof(why));
	fprintf(out, "\nlibebs read path: %s (%s; software events are always read with read(2))\n",
		ebs_count_path_name(path), why);
	return 0;
}
