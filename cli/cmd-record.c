// SPDX-License-Identifier: MIT
/* cmd-record.c - ebs record: options, then sampler's ebs_record(). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ebs/ebs_abi.h>
#include "cli/builtin.h"
#include "data/data.h"
#include "report/buildids.h"
#include "sampler/sampler.h"
#include "symbolize/symbolize.h"

/*
 * At the end of the recording: the kernel symbols its samples hit, from
 * /proc/kallsyms now, into the file (KSYMS), so that its reports need not
 * read kallsyms and stay right after a reboot or elsewhere.  Without them
 * (kallsyms hidden from this user) reports read /proc/kallsyms as before.
 */
static void keep_kernel_symbols(void *ctx, struct ebs_writer *w)
{
	FILE *msg = ctx;
	struct symbolize_opts so = {0};
	struct ebs_ksym_text *t = NULL;
	struct symbolizer *sym = NULL;
	struct sym_ksym *v = NULL;
	const u64 *addrs;
	size_t n, nv = 0, i;
	struct ebs_error why = {0};
	u64 stext;
	int e;

	ebs_writer__kernel_addrs(w, &addrs, &n);
	if (!n)
		return;
	sym = symbolizer__new(&so);
	e = sym ? symbolizer__kernel_symbols(sym, addrs, n, &v, &nv, &stext, &why) : -ENOMEM;
	if (!e && !(t = calloc(nv ? nv : 1, sizeof(*t))))
		e = -ENOMEM;
	for (i = 0; !e && i < nv; i++) {
		t[i].start = v[i].start;
		t[i].end = v[i].end;
		t[i].name = v[i].name;
		t[i].dso = v[i].dso;
		t[i].global = v[i].global;
	}
	if (!e)
		e = ebs_writer__ksyms(w, stext, t, nv);
	if (e && msg)
		fprintf(msg,
			"ebs record: warning: the kernel's symbols are not kept in the file (%s): "
			"its reports will read /proc/kallsyms\n",
			why.msg[0] ? why.msg : strerror(-e));
	free(t);
	free(v);
	symbolizer__free(sym);
}

/*
 * The files that processes in other mount namespaces or roots (containers,
 * chroot) map, kept in the build-id cache while they run (sampler/ns.c
 * finds and opens them): after they exit nothing else could read them.
 */
struct ns_keep {
	struct buildid_cache *cache;
	bool quiet;
	unsigned int files, failed;
	u64 bytes, ns, max_ns; /* bytes added, the time it took in all and at most */
};

static s64 keep_ns_file(void *ctx, pid_t pid, const char *path, int fd, const char *how,
			const u8 *id, u8 id_size)
{
	struct ns_keep *k = ctx;
	struct ebs_error err = {0};
	char at[64];
	u64 t0 = ebs_clock_ns(), dt;
	s64 n;

	/* the file open already, found inside the process's root: never looked up again */
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	n = buildid_cache__add(k->cache, at, id, id_size, &err);
	dt = ebs_clock_ns() - t0;
	k->ns += dt;
	if (dt > k->max_ns)
		k->max_ns = dt;
	if (n < 0) {
		k->failed++;
		if (!k->quiet)
			fprintf(stderr,
				"ebs record: warning: %s (pid %d, found through %s): not kept in the "
				"build-id cache: %s%s\n",
				path, (int)pid, how, err.msg, cli_code_tag(err.code));
		return n;
	}
	k->files++;
	k->bytes += (u64)n;
	return n;
}

/*
 * After the recording: each file its samples hit, with its debug file, into
 * the build-id cache c (docs/symbolize.md), so that its reports resolve once
 * the file is rebuilt or gone, as perf record fills ~/.debug.  Quiet as
 * perf is; the cache's own warnings (a directory that may not be used)
 * are one line, none with -q.  A recording written to standard output, a
 * FIFO or a device is not read again: nothing is kept.
 */
static void keep_buildids(const char *output, struct buildid_cache *c, bool quiet)
{
	struct keep_stats st;
	struct stat st_out;
	struct ebs_error err = {0};

	/*
	 * A FIFO, /dev/stdout, /dev/null: what was written cannot be read again
	 * (a FIFO's open would wait for a writer that never comes)
	 */
	if (!strcmp(output, "-") || stat(output, &st_out) || !S_ISREG(st_out.st_mode))
		return;
	if (report_keep_buildids(output, c, &st, &err) && !quiet)
		fprintf(stderr, "ebs record: warning: nothing kept in the build-id cache: %s\n",
			err.msg);
}

/* The largest sample period the kernel takes (bit 63 must be clear). */
#define MAX_PERIOD 0x7fffffffffffffffull

/* -c N or -c N1,N2,...: one per event, matched to -e after the options. */
static int parse_periods(const char *s, struct record_opts *o, unsigned int *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	*n = 0;
	if (!*s || s[0] == ',' || strstr(s, ",,") || s[strlen(s) - 1] == ',') {
		fprintf(stderr,
			"ebs record: -c wants positive numbers, comma-separated, not '%s'\n", s);
		free(copy);
		return -EINVAL;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= EBS_MAX_EVENTS) {
			fprintf(stderr, "ebs record: -c: more than %d values\n", EBS_MAX_EVENTS);
			err = -EINVAL;
			break;
		}
		err = cli_number("record", "-c", tok, 1, MAX_PERIOD, true, &o->periods[(*n)++]);
	}
	free(copy);
	return err;
}

struct leftovers {
	const char *output;
	bool clean, quiet;
	int failed;
};

/* One line per leftover of an unfinished recording: what it is and what to do. */
static void say_leftover(void *ctx, const struct ebs_leftover *lo)
{
	struct leftovers *l = ctx;
	char when[32] = "?";
	struct tm tm;

	if (localtime_r(&lo->mtime, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	if (!l->clean)
		fprintf(stderr,
			"ebs record: %s: left by a recording that did not finish (%llu bytes, "
			"last written %s): read it with 'ebs report -i %s', remove it with "
			"'ebs record --clean -o %s'\n",
			lo->path, (unsigned long long)lo->size, when, lo->path, l->output);
	else if (lo->removed && !l->quiet)
		fprintf(stderr,
			"ebs record: removed %s, left by a recording that did not finish "
			"(%llu bytes, last written %s)\n",
			lo->path, (unsigned long long)lo->size, when);
	else if (!lo->removed) {
		fprintf(stderr, "ebs record: cannot remove %s: %s\n", lo->path, strerror(-lo->err));
		l->failed++;
	}
}

/* "fp", "dwarf", "dwarf,4096"...: a --call-graph mode, given to -g by mistake? */
static bool mode_word(const char *w)
{
	size_t n = strcspn(w, ",");

	return (n == 2 && !strncmp(w, "fp", 2)) || (n == 5 && !strncmp(w, "dwarf", 5));
}

/* Is there a program of that name to run (as execvp would find it)? */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), end == p ? "." : p,
			     name) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

/* What record's options set, beside the module's options */
struct record_args {
	struct record_opts o;
	const char *events, *calibrate;
	bool quiet, kmod_mode_given, freq_given, clean;
	bool no_buildid_cache;
	bool dash_g; /* the last of -g and --call-graph was -g */
	unsigned int nperiods;
	u64 pages;
};

#define RA(ctx) ((struct record_args *)(ctx))

static int set_count(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (parse_periods(arg, &RA(ctx)->o, &RA(ctx)->nperiods))
		return 2;
	RA(ctx)->o.period = RA(ctx)->o.periods[0];
	return 0;
}

static int set_calibrate(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	RA(ctx)->calibrate = arg ? arg : "";
	return 0;
}

static int set_freq(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	if (cli_number("record", "-F", arg, 1, MAX_PERIOD, false, &RA(ctx)->o.freq))
		return 2;
	RA(ctx)->freq_given = true;
	return 0;
}

static int set_output(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	RA(ctx)->o.output = arg;
	if (!*arg || arg[strlen(arg) - 1] == '/') {
		fprintf(stderr, "ebs record: -o wants a file name, not '%s'\n", arg);
		return 2;
	}
	return 0;
}

static int add_pids(void *ctx, const struct cli_opt *opt, const char *arg)
{
	(void)opt;
	return cli_parse_pids("record", arg, &RA(ctx)->o.pids, &RA(ctx)->o.nr_pids) ? 2 : 0;
}

/* -g and --call-graph MODE */
static int set_call_graph(void *ctx, const struct cli_opt *opt, const char *arg)
{
	struct record_opts *o = &RA(ctx)->o;
	struct ebs_error err = {0};

	RA(ctx)->dash_g = !opt->name;
	if (!call_graph__parse(opt->name ? arg : "fp", &o->call_graph, &o->stack_user, &err))
		return 0;
	fprintf(stderr, "ebs record: %s%s\n", err.msg, cli_code_tag(err.code));
	return 2;
}

static int set_pages(void *ctx, const struct cli_opt *opt, const char *arg)
{
	u64 *pages = &RA(ctx)->pages;

	(void)opt;
	if (!cli_parse_number(arg, 1, 65536, false, pages) && !(*pages & (*pages - 1)))
		return 0;
	fprintf(stderr, "ebs record: -m wants a power of two up to 65536, not '%s'\n", arg);
	return 2;
}

static int set_backend(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice("record", "--backend", arg, cli_backend_words, &u))
		return 2;
	RA(ctx)->o.backend = (enum record_backend)u;
	return 0;
}

/* in EBS_MODE_* order */
static const char *const kmod_mode_words[] = {"perf-kernel", "msr", NULL};

static int set_kmod_mode(void *ctx, const struct cli_opt *opt, const char *arg)
{
	unsigned int u;

	(void)opt;
	if (cli_choice("record", "--kmod-mode", arg, kmod_mode_words, &u))
		return 2;
	RA(ctx)->o.kmod_mode = u; /* EBS_MODE_PERF_KERNEL 0, EBS_MODE_MSR 1 */
	RA(ctx)->kmod_mode_given = true;
	return 0;
}

static const struct cli_opt record_opts[] = {
	{"event", 'e', "EVENT[,EVENT...]",
	 "events to sample (default cycles; 'ebs list' shows them)", CLI_STR,
	 .off = CLI_STR_AT(struct record_args, events)},
	{"count", 'c', "N[,N...]",
	 "sample after N events (the counter is preloaded with -N); one N for every event, or one "
	 "per event in -e's order; decimal, or hexadecimal with 0x",
	 CLI_CALL, .fn = set_count},
	{"freq", 'F', "HZ", "sample about HZ times a second per CPU (default 1000)", CLI_CALL,
	 .fn = set_freq},
	{"output", 'o', "FILE", "data file (default ebs.data; '-' for stdout)", CLI_CALL,
	 .fn = set_output},
	{"pid", 'p', "PID[,PID...]",
	 "attach to running processes (all their threads); CMD, if given, only bounds the duration",
	 CLI_CALL, .fn = add_pids},
	{"all-cpus", 'a', NULL, "sample every CPU; CMD, if given, only bounds the duration",
	 CLI_SET, .off = CLI_BOOL_AT(struct record_args, o.system_wide)},
	{NULL, 'g', NULL,
	 "call chains by frame pointers: --call-graph fp (the last of -g and --call-graph given "
	 "counts)",
	 CLI_CALL, .fn = set_call_graph},
	{"call-graph", 0, "fp[,SIZE]|dwarf[,SIZE]",
	 "fp: the kernel's frame-pointer chain, and SIZE bytes (default 512, 0: none) of user "
	 "stack to find the caller of a leaf function that built no frame; dwarf: SIZE bytes "
	 "(default 8192, a multiple of 8, at most 65528) of user stack and the user registers, "
	 "unwound through the programs' CFI by ebs report: for code built without frame pointers",
	 CLI_CALL, .fn = set_call_graph},
	{"mmap-pages", 'm', "PAGES", "data pages per CPU ring buffer, power of two (default 128)",
	 CLI_CALL, .fn = set_pages},
	{"backend", 0, "perf|kmod",
	 "perf (perf_event_open, the default) or kmod (ebs.ko's /dev/ebs)", CLI_CALL,
	 .fn = set_backend},
	{"kmod-mode", 0, "perf-kernel|msr",
	 "with --backend=kmod: perf-kernel (default) or msr (counter 0 programmed directly, NMI "
	 "on overflow; bare metal only)",
	 CLI_CALL, .fn = set_kmod_mode},
	{"no-fallback", 0, NULL,
	 "fail instead of sampling cpu-clock for a hardware event that cannot be opened, or user "
	 "space only where kernel code may not be sampled",
	 CLI_SET, .off = CLI_BOOL_AT(struct record_args, o.no_fallback)},
	{"calibrate", 0, "TARGETS",
	 "choose each event's N first, as 'ebs calibrate' does (TARGETS: its targets in one "
	 "argument, e.g. \"--rate 500 --focus f\")",
	 CLI_CALL, CLI_OPTIONAL, .fn = set_calibrate},
	{"clean", 0, NULL,
	 "remove what killed recordings into the -o file left behind (.FILE.tmp.XXXXXX); alone, "
	 "only that",
	 CLI_SET, .off = CLI_BOOL_AT(struct record_args, clean)},
	{"quiet", 'q', NULL, "no summary line", CLI_SET,
	 .off = CLI_BOOL_AT(struct record_args, quiet)},
	{"no-buildid-cache", 0, NULL,
	 "keep no copy of the files sampled in the build-id cache ($XDG_CACHE_HOME/ebs/buildid), "
	 "where reports find them once rebuilt or gone",
	 CLI_SET, .off = CLI_BOOL_AT(struct record_args, no_buildid_cache)},
	{0},
};

const struct cli_cmd cli_record_cmd = {
	.name = "record",
	.usage = "usage: ebs record [OPTIONS] [--] CMD [ARGS...]\n"
		 "       ebs record [OPTIONS] -p PID[,PID...]\n"
		 "       ebs record [OPTIONS] -a [CMD [ARGS...]]\n"
		 "       ebs record --clean [-o FILE]\n",
	.opts = record_opts,
	.in_order = true,
};

int cmd_record(int argc, char **argv)
{
	static const char default_output[] = "ebs.data";
	static struct calibrate_result cr;
	struct ebs_rec_calibration calib[EBS_MAX_EVENTS];
	struct record_args a = {.events = "cycles", .pages = 128};
	char stext[32];
	struct record_result res;
	struct ebs_error err = {0};
	struct cli_calibrate cc;
	struct leftovers lo = {0};
	struct ns_keep nk = {0};
	unsigned int i;
	int n, ret = 2;

	cli_calibrate_defaults(&cc);

	a.o.output = default_output;
	a.o.freq = 0;
	n = cli_parse(&cli_record_cmd, argc, argv, &a);
	if (n) {
		ret = cli_exit(n);
		goto out;
	}
	if (a.dash_g && optind < argc && mode_word(argv[optind]) && !on_path(argv[optind])) {
		fprintf(stderr,
			"ebs record: -g takes no mode, so '%s' would be the command to run: "
			"--call-graph %s\n",
			argv[optind], argv[optind]);
		goto out;
	}
	if (a.kmod_mode_given && a.o.backend != BACKEND_KMOD) {
		fprintf(stderr, "ebs record: --kmod-mode goes with --backend=kmod\n");
		goto out;
	}
	if (a.o.call_graph != CALL_GRAPH_NONE && a.o.backend == BACKEND_KMOD) {
		fprintf(stderr,
			"ebs record: --call-graph: ebs.ko records instruction pointers only, "
			"no call chains; record call graphs with --backend=perf\n");
		goto out;
	}
	if (a.o.period && a.o.freq) {
		fprintf(stderr, "ebs record: -c and -F exclude each other\n");
		goto out;
	}
	if (!a.o.period && !a.o.freq)
		a.o.freq = 1000;
	if (a.o.nr_pids && a.o.system_wide) {
		fprintf(stderr, "ebs record: -p and -a exclude each other\n");
		goto out;
	}
	if (!a.clean && !a.o.nr_pids && !a.o.system_wide && optind >= argc) {
		fprintf(stderr, "ebs record: nothing to record: give a command, -p PID or -a "
				"(see 'ebs record --help')\n");
		goto out;
	}
	n = event_spec__parse_list(a.events, a.o.events, EBS_MAX_EVENTS, &err);
	if (n < 0) {
		fprintf(stderr, "ebs record: %s%s\n", err.msg, cli_code_tag(err.code));
		goto out;
	}
	a.o.nr_events = (unsigned int)n;
	if (a.nperiods > 1 && a.nperiods != a.o.nr_events) {
		fprintf(stderr,
			"ebs record: -c gives %u values for %u events: one, or one per "
			"event\n",
			a.nperiods, a.o.nr_events);
		goto out;
	}
	if (a.nperiods == 1)
		memset(a.o.periods, 0, sizeof(a.o.periods));
	if (cli_binary_to_tty("record", a.o.output))
		goto out;
	/* what killed recordings into the same file left: named, or removed */
	lo.output = a.o.output;
	lo.clean = a.clean;
	lo.quiet = a.quiet;
	/*
	 * --clean without -o: the leftovers of every output here, since the
	 * killed recording may have had an -o of its own (record -o x.data)
	 */
	if (ebs_writer__leftovers(a.clean && a.o.output == default_output ? NULL : a.o.output,
				  a.clean, say_leftover, &lo) >= 0 &&
	    lo.failed) {
		ret = 1;
		goto out;
	}
	if (a.clean && !a.o.nr_pids && !a.o.system_wide && optind >= argc) {
		ret = 0; /* --clean alone */
		goto out;
	}
	a.o.argv = optind < argc ? argv + optind : NULL;
	if (a.o.argv && cli_command_runnable("record", a.o.argv[0])) {
		ret = 127;
		goto out;
	}
	a.o.mmap_pages = (unsigned int)a.pages;
	a.o.cmdline = ebs_cmdline();
	if (kallsyms__stext(stext, sizeof(stext)) == 0)
		a.o.kernel_stext = stext;
	a.o.notice = cli_warn;
	a.o.notice_ctx = (void *)"record";
	if (a.calibrate) {
		if (a.o.period || a.freq_given || a.o.nr_pids || a.o.system_wide || !a.o.argv) {
			fprintf(stderr,
				"ebs record: --calibrate chooses -c itself and wants a command "
				"(not -c, -F, -p or -a)\n");
			goto out;
		}
		if (*a.calibrate && cli_calibrate_inline("record", a.calibrate, &cc))
			goto out;
		cc.events = a.events;
		cc.quiet = cc.quiet || a.quiet;
		cc.o.rec = a.o;
		ret = cli_calibrate("record", &cc, &cr);
		if (ret)
			goto out;
		ret = 2;
		if (!a.quiet)
			cli_calibrate_print(stderr, &cc, &cr);
		for (i = 0; i < a.o.nr_events; i++) {
			a.o.periods[i] = cr.ev[i].n;
			calibrate_record(&cc.o, &cr, i, &calib[i]);
		}
		a.o.freq = 0;
		a.o.period = a.o.periods[0];
		a.o.calib = calib;
		a.o.nr_calib = a.o.nr_events;
	}

	a.o.at_end = keep_kernel_symbols;
	a.o.at_end_ctx = a.quiet ? NULL : stderr;
	nk.quiet = a.quiet;
	nk.cache = a.no_buildid_cache
			   ? NULL
			   : buildid_cache__new(NULL, a.quiet ? NULL : cli_warn, (void *)"record");
	if (nk.cache) {
		a.o.on_mapping = keep_ns_file;
		a.o.on_mapping_ctx = &nk;
	}
	if (ebs_record(&a.o, &res, &err)) {
		if (err.kept) /* whole, under another name: what it holds, as the summary says */
			fprintf(stderr, "ebs record: %s (%llu samples, %llu lost)%s\n", err.msg,
				(unsigned long long)res.samples, (unsigned long long)res.lost,
				cli_code_tag(err.code));
		else
			fprintf(stderr, "ebs record: %s%s\n", err.msg, cli_code_tag(err.code));
		if (res.exec_failed)
			ret = 127;
		else
			ret = err.err == -ESRCH || err.err == -EINVAL || err.err == -ERANGE ? 2 : 1;
		goto out;
	}
	if (!a.quiet) {
		char extra[96] = "";

		if (res.undelivered)
			snprintf(extra, sizeof(extra),
				 " (and %llu more the counters counted but never delivered)",
				 (unsigned long long)res.undelivered);
		fprintf(stderr,
			"ebs record: %llu samples written, %llu lost%s, %llu throttle events, "
			"%s (%llu bytes)\n",
			(unsigned long long)res.samples, (unsigned long long)res.lost, extra,
			(unsigned long long)res.throttled,
			strcmp(a.o.output, "-") ? a.o.output : "stdout",
			(unsigned long long)res.bytes);
		if (nk.files)
			fprintf(stderr,
				"ebs record: %u file%s of processes in other mount namespaces kept "
				"in %s (%llu bytes added, %.1f ms while recording, at most %.1f "
				"ms at once)\n",
				nk.files, nk.files == 1 ? "" : "s", buildid_cache__dir(nk.cache),
				(unsigned long long)nk.bytes, (double)nk.ns / 1e6,
				(double)nk.max_ns / 1e6);
	}
	if (nk.cache)
		keep_buildids(a.o.output, nk.cache, a.quiet);
	ret = res.have_child ? res.exit_status : 0;
out:
	buildid_cache__free(nk.cache);
	free(cc.buf);
	free(a.o.pids);
	return ret;
}
