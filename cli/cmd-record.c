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
#include "data/ebsdata.h"
#include "sampler/sampler.h"
#include "symbolize/symbolize.h"

static const char usage_text[] =
	"usage: ebs record [-e EVENT[,EVENT...]] [-c N | -F HZ] [-o FILE] [-p PID[,PID] | -a]\n"
	"                  [-g | --call-graph fp[,SIZE]|dwarf[,SIZE]] [-m PAGES] [--backend perf|kmod] [--kmod-mode perf-kernel|msr]\n"
	"                  [--no-fallback] [--calibrate[=OPTIONS]] [--clean] [-q] [--]\n"
	"                  [CMD [ARGS...]]\n"
	"\n"
	"  -e, --event E    events to sample (default cycles; 'ebs list' shows them)\n"
	"  -c, --count N[,N...]  sample after N events (the counter is preloaded with -N);\n"
	"                   one N for every event, or one per event in -e's order;\n"
	"                   decimal, or hexadecimal with 0x\n"
	"  -F, --freq HZ    sample about HZ times a second per CPU (default 1000)\n"
	"  -o, --output F   data file (default ebs.data; '-' for stdout)\n"
	"  -p, --pid P      attach to running processes (all their threads)\n"
	"  -a, --all-cpus   sample every CPU; CMD, if given, only bounds the duration\n"
	"  -g               call chains by frame pointers: --call-graph fp (the last of\n"
	"                   -g and --call-graph given counts)\n"
	"      --call-graph fp[,SIZE]  the kernel's frame-pointer chain, and SIZE bytes\n"
	"                   (default 512, 0: none) of user stack to find the caller of a\n"
	"                   leaf function that built no frame\n"
	"      --call-graph dwarf[,SIZE]  SIZE bytes (default 8192, a multiple of 8, at\n"
	"                   most 65528) of user stack and the user registers, unwound\n"
	"                   through the programs' CFI by ebs report: for code built\n"
	"                   without frame pointers\n"
	"  -m, --mmap-pages N  data pages per CPU ring buffer, power of two (default 128)\n"
	"      --backend B  perf (perf_event_open, the default) or kmod (ebs.ko's /dev/ebs)\n"
	"      --kmod-mode M  with --backend=kmod: perf-kernel (default) or msr (counter 0\n"
	"                   programmed directly, NMI on overflow; bare metal only)\n"
	"      --no-fallback   fail instead of sampling cpu-clock for a hardware event that\n"
	"                      cannot be opened, or user space only where kernel code may\n"
	"                      not be sampled\n"
	"      --calibrate[=OPTIONS]  choose each event's N first, as 'ebs calibrate' does\n"
	"                   (OPTIONS: its targets in one argument, e.g. \"--rate 500 --focus f\")\n"
	"      --clean      remove what killed recordings into the -o file left behind\n"
	"                   (.FILE.tmp.XXXXXX); alone, only that\n"
	"  -q, --quiet      no summary line\n";

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
	char why[256] = "";
	u64 stext;
	int e;

	ebs_writer__kernel_addrs(w, &addrs, &n);
	if (!n)
		return;
	sym = symbolizer__new(&so);
	e = sym ? symbolizer__kernel_symbols(sym, addrs, n, &v, &nv, &stext, why, sizeof(why))
		: -ENOMEM;
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
			why[0] ? why : strerror(-e));
	free(t);
	free(v);
	symbolizer__free(sym);
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

/* in EBS_MODE_* order */
static const char *const kmod_mode_words[] = {"perf-kernel", "msr", NULL};

int cmd_record(int argc, char **argv)
{
	static const char default_output[] = "ebs.data";
	static const struct option longopts[] = {
		{"event", required_argument, NULL, 'e'},
		{"count", required_argument, NULL, 'c'},
		{"freq", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"pid", required_argument, NULL, 'p'},
		{"all-cpus", no_argument, NULL, 'a'},
		{"call-graph", required_argument, NULL, 'G'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"no-fallback", no_argument, NULL, 'N'},
		{"backend", required_argument, NULL, 'B'},
		{"kmod-mode", required_argument, NULL, 'K'},
		{"quiet", no_argument, NULL, 'q'},
		{"calibrate", optional_argument, NULL, 'C'},
		{"clean", no_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct calibrate_result cr;
	struct ebs_rec_calibration calib[EBS_MAX_EVENTS];
	struct record_opts o = {0};
	char stext[32];
	struct record_result res;
	struct ebs_error err = {0};
	struct cli_calibrate cc;
	const char *events = "cycles", *calibrate = NULL;
	bool quiet = false, kmod_mode_given = false, freq_given = false, clean = false;
	bool dash_g = false; /* the last of -g and --call-graph was -g */
	struct leftovers lo = {0};
	unsigned int nperiods = 0, i, u;
	u64 pages = 128;
	int c, n, ret = 2;

	cli_calibrate_defaults(&cc);

	o.output = default_output;
	o.freq = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:c:F:o:p:agm:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = optarg;
			break;
		case 'c':
			if (parse_periods(optarg, &o, &nperiods))
				goto out;
			o.period = o.periods[0];
			break;
		case 'C':
			calibrate = optarg ? optarg : "";
			break;
		case 'F':
			if (cli_number("record", "-F", optarg, 1, MAX_PERIOD, false, &o.freq))
				goto out;
			freq_given = true;
			break;
		case 'o':
			o.output = optarg;
			if (!*optarg || optarg[strlen(optarg) - 1] == '/') {
				fprintf(stderr, "ebs record: -o wants a file name, not '%s'\n",
					optarg);
				goto out;
			}
			break;
		case 'p':
			if (cli_parse_pids("record", optarg, &o.pids, &o.nr_pids))
				goto out;
			break;
		case 'a':
			o.system_wide = true;
			break;
		case 'g':
		case 'G':
			dash_g = c == 'g';
			if (call_graph__parse(c == 'g' ? "fp" : optarg, &o.call_graph,
					      &o.stack_user, &err)) {
				fprintf(stderr, "ebs record: %s\n", err.msg);
				goto out;
			}
			break;
		case 'm':
			if (cli_parse_number(optarg, 1, 65536, false, &pages) ||
			    pages & (pages - 1)) {
				fprintf(stderr,
					"ebs record: -m wants a power of two up to 65536, "
					"not '%s'\n",
					optarg);
				goto out;
			}
			break;
		case 'N':
			o.no_fallback = true;
			break;
		case 'B':
			if (cli_choice("record", "--backend", optarg, cli_backend_words, &u))
				goto out;
			o.backend = (enum record_backend)u;
			break;
		case 'K':
			if (cli_choice("record", "--kmod-mode", optarg, kmod_mode_words, &u))
				goto out;
			o.kmod_mode = u; /* EBS_MODE_PERF_KERNEL 0, EBS_MODE_MSR 1 */
			kmod_mode_given = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'L':
			clean = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = 0;
			goto out;
		default:
			ret = cli_bad_option("record", c, argv);
			goto out;
		}
	}
	if (dash_g && optind < argc && mode_word(argv[optind]) && !on_path(argv[optind])) {
		fprintf(stderr,
			"ebs record: -g takes no mode, so '%s' would be the command to run: "
			"--call-graph %s\n",
			argv[optind], argv[optind]);
		goto out;
	}
	if (kmod_mode_given && o.backend != BACKEND_KMOD) {
		fprintf(stderr, "ebs record: --kmod-mode goes with --backend=kmod\n");
		goto out;
	}
	if (o.call_graph != CALL_GRAPH_NONE && o.backend == BACKEND_KMOD) {
		fprintf(stderr,
			"ebs record: --call-graph: ebs.ko records instruction pointers only, "
			"no call chains; record call graphs with --backend=perf\n");
		goto out;
	}
	if (o.period && o.freq) {
		fprintf(stderr, "ebs record: -c and -F exclude each other\n");
		goto out;
	}
	if (!o.period && !o.freq)
		o.freq = 1000;
	if (o.nr_pids && o.system_wide) {
		fprintf(stderr, "ebs record: -p and -a exclude each other\n");
		goto out;
	}
	if (o.nr_pids && optind < argc) {
		fprintf(stderr,
			"ebs record: -p attaches to running processes; no command wanted\n");
		goto out;
	}
	if (!clean && !o.nr_pids && !o.system_wide && optind >= argc) {
		fprintf(stderr, "ebs record: nothing to record: give a command, -p PID or -a "
				"(see 'ebs record --help')\n");
		goto out;
	}
	n = event_spec__parse_list(events, o.events, EBS_MAX_EVENTS, &err);
	if (n < 0) {
		fprintf(stderr, "ebs record: %s\n", err.msg);
		goto out;
	}
	o.nr_events = (unsigned int)n;
	if (nperiods > 1 && nperiods != o.nr_events) {
		fprintf(stderr,
			"ebs record: -c gives %u values for %u events: one, or one per "
			"event\n",
			nperiods, o.nr_events);
		goto out;
	}
	if (nperiods == 1)
		memset(o.periods, 0, sizeof(o.periods));
	if (cli_binary_to_tty("record", o.output))
		goto out;
	/* what killed recordings into the same file left: named, or removed */
	lo.output = o.output;
	lo.clean = clean;
	lo.quiet = quiet;
	/*
	 * --clean without -o: the leftovers of every output here, since the
	 * killed recording may have had an -o of its own (record -o x.data)
	 */
	if (ebs_writer__leftovers(clean && o.output == default_output ? NULL : o.output, clean,
				  say_leftover, &lo) >= 0 &&
	    lo.failed) {
		ret = 1;
		goto out;
	}
	if (clean && !o.nr_pids && !o.system_wide && optind >= argc) {
		ret = 0; /* --clean alone */
		goto out;
	}
	o.argv = optind < argc ? argv + optind : NULL;
	if (o.argv && cli_command_runnable("record", o.argv[0])) {
		ret = 127;
		goto out;
	}
	o.mmap_pages = (unsigned int)pages;
	o.cmdline = ebs_cmdline();
	if (kallsyms__stext(stext, sizeof(stext)) == 0)
		o.kernel_stext = stext;
	o.msg = stderr;
	if (calibrate) {
		if (o.period || freq_given || o.nr_pids || o.system_wide || !o.argv) {
			fprintf(stderr,
				"ebs record: --calibrate chooses -c itself and wants a command "
				"(not -c, -F, -p or -a)\n");
			goto out;
		}
		if (*calibrate && cli_calibrate_inline("record", calibrate, &cc))
			goto out;
		cc.events = events;
		cc.quiet = cc.quiet || quiet;
		cc.o.rec = o;
		ret = cli_calibrate("record", &cc, &cr);
		if (ret)
			goto out;
		ret = 2;
		if (!quiet)
			cli_calibrate_print(stderr, &cc, &cr);
		for (i = 0; i < o.nr_events; i++) {
			o.periods[i] = cr.ev[i].n;
			calibrate_record(&cc.o, &cr, i, &calib[i]);
		}
		o.freq = 0;
		o.period = o.periods[0];
		o.calib = calib;
		o.nr_calib = o.nr_events;
	}

	o.at_end = keep_kernel_symbols;
	o.at_end_ctx = quiet ? NULL : stderr;
	if (ebs_record(&o, &res, &err)) {
		if (err.kept) /* whole, under another name: what it holds, as the summary says */
			fprintf(stderr, "ebs record: %s (%llu samples, %llu lost)\n", err.msg,
				(unsigned long long)res.samples, (unsigned long long)res.lost);
		else
			fprintf(stderr, "ebs record: %s\n", err.msg);
		if (res.exec_failed)
			ret = 127;
		else
			ret = err.err == -ESRCH || err.err == -EINVAL || err.err == -ERANGE ? 2 : 1;
		goto out;
	}
	if (!quiet) {
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
			strcmp(o.output, "-") ? o.output : "stdout", (unsigned long long)res.bytes);
	}
	ret = res.have_child ? res.exit_status : 0;
out:
	free(cc.buf);
	free(o.pids);
	return ret;
}
