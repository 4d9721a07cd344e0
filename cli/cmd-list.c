// SPDX-License-Identifier: MIT
/* cmd-list.c - ebs list: the events this machine can open, probed one by one. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "sampler/sampler.h"

int cmd_list(int argc, char **argv)
{
	const struct event_name *n;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: ebs list\n\nProbes every named event with perf_event_open and "
			       "says whether it can be sampled here.\n");
			return 0;
		}
		fprintf(stderr, "ebs list: unknown argument '%s'\n", argv[i]);
		return 2;
	}
	printf("%-18s %-9s %-12s %s\n", "event", "kind", "status", "description");
	for (n = event_names; n->name; n++) {
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
			printf("%-18s %-9s %-12s %s\n", n->name, n->hardware ? "hardware" : "software",
			       "available", n->desc);
		else if (!err_u)
			printf("%-18s %-9s %-12s %s (user space only here: %s)\n", n->name,
			       n->hardware ? "hardware" : "software", "available:u", n->desc,
			       event_open_reason(err));
		else
			printf("%-18s %-9s %-12s %s: %s\n", n->name,
			       n->hardware ? "hardware" : "software", "unavailable", n->desc,
			       event_open_reason(err));
	}
	printf("%-18s %-9s %-12s %s\n", "rUUEE[:cmask=N][:inv][:edge]", "raw", "", "");
	printf("\nModifiers: :u user space only (USR), :k kernel only (OS).\n"
	       "Raw events use the PerfEvtSel layout: unit mask UU, event select EE, in hex.\n"
	       "Unavailable hardware events fall back to cpu-clock in 'ebs record' (with a "
	       "notice), unless --no-fallback.\n");
	return 0;
}
