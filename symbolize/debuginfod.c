// SPDX-License-Identifier: MIT
/*
 * debuginfod.c - ask the debuginfod servers of $DEBUGINFOD_URLS, by build-id,
 * for what is not found on this machine: a DSO's debug file (debug.c), the
 * file itself for a recording made elsewhere (locate.c), a source file for
 * annotate (symbolizer__fetch_source).
 *
 * Through elfutils' libdebuginfod, loaded with dlopen at the first question
 * so that ebs runs where it is not installed (one notice then, when
 * DEBUGINFOD_URLS asks for servers).  Nothing is asked with --offline
 * (symbolize_opts.offline) or when DEBUGINFOD_URLS is unset or empty.  The
 * files live in libdebuginfod's own client cache ($DEBUGINFOD_CACHE_PATH,
 * default ~/.cache/debuginfod_client); ebs keeps no copy of its own.  With
 * --offline, or no server asked any more, that cache is read as a local
 * place (cache_find).  A client that cannot make its cache asks nothing
 * and says -ENOENT as for not found: said once, from its verbose log.
 *
 * A server is untrusted input: a file it sends is opened as every other
 * file a recording leads to (ebs_open_input: regular, not another user's
 * link where others write) and must be an ELF file of the build-id asked,
 * else it is refused in one line naming the server and both build-ids.
 * Each file has EBS_DEBUGINFOD_TIMEOUT seconds in all (default 30: the
 * library's DEBUGINFOD_TIMEOUT only bounds a stall), enforced by the
 * progress callback, which also draws a progress line on a terminal
 * (symbolize_opts.progress) once a download takes more than half a
 * second.  A server that fails (no connection, a timeout, an HTTP error
 * other than 404) is named in one line, and none is asked again by this
 * symbolizer: libdebuginfod asks all the servers at once and reports one
 * failure.  Not found is silent (report --stats lists "debuginfod" among
 * the places looked in).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "symbolize/internal.h"

#define DEBUGINFOD_LIB	  "libdebuginfod.so.1"
#define DEFAULT_TIMEOUT_S 30
#define PROGRESS_AFTER_S  0.5
#define PROGRESS_EVERY_S  0.1

struct debuginfod {
	void *lib;
	debuginfod_client *client;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_find_source) *find_source;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
	__typeof__(debuginfod_set_verbose_fd) *set_verbose_fd;
	bool off;     /* not asked (again): no library, no client, a server failed */
	char *urls;   /* $DEBUGINFOD_URLS as it was, for lines naming the servers */
	int log_fd;   /* libdebuginfod's verbose log of one question (a memfd), or -1 */
	double limit; /* seconds a file may take in all; 0: no limit */

	/* the question being asked */
	struct symbolizer *s;
	const char *what; /* its name in the progress line */
	struct timespec start;
	double shown_at; /* when the progress line was last drawn, 0: not drawn */
	bool timed_out;
	/* from its verbose log: the client cache and the file's suffix there (a source's) */
	bool logged; /* the log said something */
	char cache_dir[PATH_MAX];
	char suffix[PATH_MAX];
};

/*
 * How progress_fn, which libdebuginfod gives only the client, finds its
 * struct debuginfod: the library's debuginfod_get_user_data.  Set at each
 * load to the same entry point of the one library a process maps (dlopen
 * counts references), so never changed while in use.
 */
static __typeof__(debuginfod_get_user_data) *user_data_of;

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* n bytes as a short figure: "812 B", "3.4 KiB", "12.0 MiB". */
static void bytes_text(char *buf, size_t len, double n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
	size_t u = 0;

	while (n >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		n /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", n, unit[u]);
}

/*
 * libdebuginfod's progress callback, called while a question waits: a
 * (after a server began to send) the bytes so far, b the size when known.
 * Nonzero cancels the question: past the file's time limit.
 */
static int progress_fn(debuginfod_client *c, long a, long b)
{
	struct debuginfod *d;
	char line[512], got[32], all[32], rate[32];
	double t;

	d = user_data_of ? user_data_of(c) : NULL;
	if (!d)
		return 0;
	t = since(&d->start);
	if (d->limit > 0 && t > d->limit) {
		d->timed_out = true;
		return 1;
	}
	if (!d->s->progress || t < PROGRESS_AFTER_S ||
	    (d->shown_at && t - d->shown_at < PROGRESS_EVERY_S))
		return 0;
	d->shown_at = t;
	if (!d->get_url(c)) { /* no server sends yet: a count of polls */
		ebs_format_line(line, sizeof(line), "debuginfod: %s: waiting (%.0f s)", d->what, t);
	} else {
		bytes_text(got, sizeof(got), (double)a);
		bytes_text(all, sizeof(all), (double)b);
		bytes_text(rate, sizeof(rate), (double)a / t);
		ebs_format_line(line, sizeof(line), "debuginfod: %s: %s%s%s, %s/s", d->what, got,
				b > 0 ? " of " : "", b > 0 ? all : "", rate);
	}
	d->s->progress(d->s->progress_ctx, EBS_E_OK, line);
	return 0;
}

/* EBS_DEBUGINFOD_TIMEOUT: seconds, 0 for no limit; a value that is not one is said. */
static double timeout_of(struct symbolizer *s)
{
	const char *v = getenv("EBS_DEBUGINFOD_TIMEOUT");
	char *end;
	double t;

	if (!v || !v[0])
		return DEFAULT_TIMEOUT_S;
	errno = 0;
	t = strtod(v, &end);
	if (errno || *end || !(t >= 0)) {
		symbolizer__warn(
			s, EBS_E_DEBUGINFOD_FAILED,
			"EBS_DEBUGINFOD_TIMEOUT=%s is not a number of seconds: %d s instead", v,
			DEFAULT_TIMEOUT_S);
		return DEFAULT_TIMEOUT_S;
	}
	return t;
}

/* $DEBUGINFOD_URLS names a server: something but blanks. */
static bool urls_set(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/* The library's entry points ebs calls, and where each goes in a struct debuginfod. */
#define ENTRY(field)                                                                               \
	{                                                                                          \
		"debuginfod_" #field, offsetof(struct debuginfod, field)                           \
	}
static const struct {
	const char *name;
	size_t off;
} entries[] = {
	ENTRY(begin),		ENTRY(end),	      ENTRY(find_debuginfo),
	ENTRY(find_executable), ENTRY(find_source),   ENTRY(set_progressfn),
	ENTRY(set_user_data),	ENTRY(get_user_data), ENTRY(get_url),
	ENTRY(set_verbose_fd),
};

/*
 * The library and a client, loaded at the first question.  Without them
 * (or their entry points) d is off, said once.  NULL: out of memory.
 */
static struct debuginfod *debuginfod__load(struct symbolizer *s)
{
	struct debuginfod *d = calloc(1, sizeof(*d));
	const char *missing = NULL;
	size_t i;

	if (!d)
		return NULL;
	d->log_fd = -1;
	d->s = s;
	d->urls = strdup(getenv("DEBUGINFOD_URLS") ? getenv("DEBUGINFOD_URLS") : "");
	if (!d->urls) {
		free(d);
		return NULL;
	}
	d->urls[strcspn(d->urls, "\n")] = '\0';
	d->lib = dlopen(DEBUGINFOD_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!d->lib) {
		d->off = true;
		ebs_warn(s->warn, s->warn_ctx, EBS_E_NO_DEBUGINFOD,
			 "debuginfod: %s not found: not asked", DEBUGINFOD_LIB);
		return d;
	}
	for (i = 0; i < ARRAY_SIZE(entries) && !missing; i++) {
		void *fn = dlsym(d->lib, entries[i].name);

		if (!fn) /* (POSIX: a function's address fits a void *, as dlsym gives it) */
			missing = entries[i].name;
		else
			memcpy((char *)d + entries[i].off, &fn, sizeof(fn));
	}
	if (missing) {
		d->off = true;
		ebs_warn(s->warn, s->warn_ctx, EBS_E_NO_DEBUGINFOD,
			 "debuginfod: %s has no %s (too old an elfutils): not asked",
			 DEBUGINFOD_LIB, missing);
		return d;
	}
	user_data_of = d->get_user_data;
	d->client = d->begin();
	if (!d->client) {
		d->off = true;
		symbolizer__warn(s, EBS_E_DEBUGINFOD_FAILED, "debuginfod: no client: %s: not asked",
				 strerror(errno));
		return d;
	}
	d->set_user_data(d->client, d);
	d->set_progressfn(d->client, progress_fn);
	/* its verbose log says which server failed and why, where its codes do not */
	d->log_fd = memfd_create("ebs-debuginfod-log", MFD_CLOEXEC);
	d->set_verbose_fd(d->client, d->log_fd);
	d->limit = timeout_of(s);
	return d;
}

void debuginfod__free(struct debuginfod *d)
{
	if (!d)
		return;
	if (d->client)
		d->end(d->client);
	if (d->log_fd >= 0)
		close(d->log_fd);
	/*
	 * The library stays mapped: it brought libcurl and its TLS library,
	 * whose exit handlers must find them there.
	 */
	free(d->urls);
	free(d);
}

/*
 * What the verbose log of the last question says: the server (the URL of
 * the first handle that failed, up to "/buildid/") and why it failed, for
 * a failure other than not found (404).  libdebuginfod writes "url N URL"
 * for each server asked, then "url N ERROR" for each that failed; and
 * where the file goes, kept in d.  The log is emptied for the next
 * question.  false when it names no failure.
 */
static bool log_failure(struct debuginfod *d, char *server, size_t server_len, char *why,
			size_t why_len)
{
	char buf[16384], *line, *next, urls[8][256] = {{0}};
	ssize_t n = -1;
	bool found = false;

	if (d->log_fd >= 0) {
		n = pread(d->log_fd, buf, sizeof(buf) - 1, 0);
		if (ftruncate(d->log_fd, 0) == 0)
			lseek(d->log_fd, 0, SEEK_SET);
	}
	d->cache_dir[0] = d->suffix[0] = '\0';
	d->logged = n > 0;
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (line = buf; line && *line && !found; line = next) {
		unsigned int k;
		int at = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "checking cache dir ", 19))
			snprintf(d->cache_dir, sizeof(d->cache_dir), "%s", line + 19);
		else if (!strncmp(line, "suffix ", 7))
			snprintf(d->suffix, sizeof(d->suffix), "%s", line + 7);
		if (sscanf(line, "url %u %n", &k, &at) != 1 || !at || k >= ARRAY_SIZE(urls))
			continue;
		line += at;
		if (!strncmp(line, "http://", 7) || !strncmp(line, "https://", 8) ||
		    !strncmp(line, "file://", 7)) {
			if (!urls[k][0])
				snprintf(urls[k], sizeof(urls[k]), "%s", line);
			continue;
		}
		if (strstr(line, "returned error: 404") || !line[0])
			continue; /* not found: no failure */
		snprintf(server, server_len, "%s", urls[k]);
		snprintf(why, why_len, "%s", line);
		found = true;
	}
	if (found && server[0] && strstr(server, "/buildid/"))
		*strstr(server, "/buildid/") = '\0';
	return found;
}

/*
 * After a question ebs cancelled (its time limit), or one a server
 * failed with an HTTP error (500...): libdebuginfod 0.188 takes it for
 * not found and leaves an empty file where the file goes,
 * which answers "not found" without asking for its cache_miss_s (10
 * minutes).  That file is removed (an empty regular file of ours, never
 * followed if a link), so that the next run asks again.  Where it is comes
 * from the verbose log (d->cache_dir, d->suffix); without it, nothing.
 */
static void forget_miss(const struct debuginfod *d, enum debuginfod_kind kind, const u8 *id,
			u8 id_size)
{
	static const char *const type[] = {"debuginfo", "executable", "source"};
	char hex[41], dir[PATH_MAX + 48], name[PATH_MAX + 16];
	struct stat st;
	int dfd;

	if (!d->cache_dir[0])
		return;
	ebs_format_hex(hex, sizeof(hex), id, id_size);
	if (snprintf(dir, sizeof(dir), "%s/%s", d->cache_dir, hex) >= (int)sizeof(dir) ||
	    snprintf(name, sizeof(name), "%s%s", type[kind], d->suffix) >= (int)sizeof(name))
		return;
	dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) && !st.st_size &&
	    st.st_uid == geteuid())
		unlinkat(dfd, name, 0);
	close(dfd);
}

/* The server that sent the last file (its URL up to "/buildid/"), else every one. */
static void server_of(const struct debuginfod *d, char *buf, size_t len)
{
	const char *url = d->get_url(d->client);
	const char *cut = url ? strstr(url, "/buildid/") : NULL;

	if (url)
		snprintf(buf, len, "%.*s", cut ? (int)(cut - url) : (int)strlen(url), url);
	else
		snprintf(buf, len, "%s", d->urls);
}

/*
 * The client cache as libdebuginfod 0.188 finds it: $DEBUGINFOD_CACHE_PATH;
 * else $HOME/.debuginfod_client_cache when it is there (an older client's);
 * else $XDG_CACHE_HOME/debuginfod_client, else $HOME/.cache/debuginfod_client
 * ($HOME unset: /).  false when the name does not fit.
 */
static bool client_cache_dir(char *buf, size_t len)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME") ? getenv("HOME") : "/";
	struct stat st;
	int n;

	if (env && env[0])
		n = snprintf(buf, len, "%s", env);
	else if ((n = snprintf(buf, len, "%s/.debuginfod_client_cache", home)) < (int)len &&
		 !stat(buf, &st))
		;
	else if (xdg && xdg[0])
		n = snprintf(buf, len, "%s/debuginfod_client", xdg);
	else
		n = snprintf(buf, len, "%s/.cache/debuginfod_client", home);
	return n >= 0 && n < (int)len;
}

/*
 * Is path an ELF file of build-id id?  Opened as every file a recording
 * leads to.  0; -1, e said (it cannot be opened); 1 not ELF; 2 another
 * build-id, in got_hex ("(none)" without one).
 */
static int elf_of_id(const char *path, const u8 *id, u8 id_size, char *got_hex, struct ebs_error *e)
{
	const struct ebs_input_rule shared = {.flags = EBS_IN_SHARED, .owner = (uid_t)-1};
	bool has_dwarf = false;
	u8 got[20];
	u8 got_size = 0;
	struct stat st;
	int fd, r;

	fd = ebs_open_input(path, &shared, &st, e);
	if (fd < 0)
		return -1;
	r = elf_fd__debug_facts(fd, got, &got_size, &has_dwarf);
	close(fd);
	if (r)
		return 1;
	if (got_size != id_size || memcmp(got, id, id_size)) {
		if (got_size)
			ebs_format_hex(got_hex, 41, got, got_size);
		else
			snprintf(got_hex, 41, "(none)");
		return 2;
	}
	return 0;
}

/*
 * With --offline, or no server asked (a failure, no library): the file of
 * build-id id a server sent before, in the client cache (client_cache_dir;
 * CACHE/BUILDID/debuginfo or executable), checked as every file.  1 and
 * its path in out, or 0 (a file there not of that build-id said).
 */
static int cache_find(struct symbolizer *s, enum debuginfod_kind kind, const u8 *id, u8 id_size,
		      char *out, size_t len, const char **verdict)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], hex[41], got[41];
	struct ebs_error e;
	struct stat st;

	if (kind == DEBUGINFOD_SOURCE || !client_cache_dir(dir, sizeof(dir)))
		return 0;
	ebs_format_hex(hex, sizeof(hex), id, id_size);
	if (snprintf(path, sizeof(path), "%s/%s/%s", dir, hex,
		     kind == DEBUGINFOD_DEBUGINFO ? "debuginfo" : "executable") >=
		    (int)sizeof(path) ||
	    lstat(path, &st) || (S_ISREG(st.st_mode) && !st.st_size))
		return 0; /* not there, or a miss kept (an empty file) */
	switch (elf_of_id(path, id, id_size, got, &e)) {
	case 0:
		if (snprintf(out, len, "%s", path) >= (int)len)
			return 0;
		*verdict = "";
		return 1;
	case -1:
		symbolizer__warn(s, e.code, "debuginfod: client cache: %s: %s: not used", path,
				 e.msg);
		break;
	case 1:
		symbolizer__warn(s, EBS_E_NOT_ELF,
				 "debuginfod: client cache: %s: not an ELF file: not used", path);
		break;
	default:
		symbolizer__warn(s, EBS_E_NO_BUILD_ID_MATCH,
				 "debuginfod: client cache: %s has build-id %s, not %s: not used",
				 path, got, hex);
	}
	*verdict = "(refused)";
	return 0;
}

/*
 * Is the file at path, which a server sent for build-id id, that ELF file?
 * Opened as every file a recording leads to.  true, or false with one
 * line said.
 */
static bool check_elf(struct debuginfod *d, const char *path, const u8 *id, u8 id_size)
{
	char server[512], want[41], got_hex[41];
	struct ebs_error e;

	server_of(d, server, sizeof(server));
	ebs_format_hex(want, sizeof(want), id, id_size);
	switch (elf_of_id(path, id, id_size, got_hex, &e)) {
	case 0:
		return true;
	case -1:
		symbolizer__warn(d->s, e.code, "debuginfod: %s: %s: %s: refused", server, path,
				 e.msg);
		break;
	case 1:
		symbolizer__warn(d->s, EBS_E_NOT_ELF,
				 "debuginfod: %s sent %s for build-id %s: not an ELF file: refused",
				 server, path, want);
		break;
	default:
		symbolizer__warn(d->s, EBS_E_NO_BUILD_ID_MATCH,
				 "debuginfod: %s sent %s with build-id %s for build-id %s: refused",
				 server, path, got_hex, want);
	}
	return false;
}

int debuginfod__find(struct symbolizer *s, enum debuginfod_kind kind, const u8 *id, u8 id_size,
		     const char *source, const char *what, char *out, size_t len,
		     const char **verdict)
{
	struct debuginfod *d;
	bool failed;
	char *path = NULL, server[512] = "", why[512] = "";
	int rc;

	*verdict = NULL;
	if (id_size < 2 || (!s->debuginfod && !urls_set()))
		return 0;
	if (s->offline)
		return cache_find(s, kind, id, id_size, out, len, verdict);
	if (!s->debuginfod && !(s->debuginfod = debuginfod__load(s)))
		return -ENOMEM;
	d = s->debuginfod;
	if (d->off)
		return cache_find(s, kind, id, id_size, out, len, verdict);
	d->what = what;
	d->shown_at = 0;
	d->timed_out = false;
	clock_gettime(CLOCK_MONOTONIC, &d->start);
	if (kind == DEBUGINFOD_DEBUGINFO)
		rc = d->find_debuginfo(d->client, id, id_size, &path);
	else if (kind == DEBUGINFOD_EXECUTABLE)
		rc = d->find_executable(d->client, id, id_size, &path);
	else
		rc = d->find_source(d->client, id, id_size, source, &path);
	if (d->shown_at && s->progress)
		s->progress(s->progress_ctx, EBS_E_OK, ""); /* the line cleared */
	if (rc >= 0) {
		bool ok;

		close(rc);
		log_failure(d, server, sizeof(server), why, sizeof(why)); /* emptied */
		ok = path && (kind == DEBUGINFOD_SOURCE || check_elf(d, path, id, id_size));
		if (ok && snprintf(out, len, "%s", path) >= (int)len)
			ok = false;
		free(path);
		*verdict = ok ? "" : "(refused)";
		return ok;
	}
	free(path);
	failed = log_failure(d, server, sizeof(server), why, sizeof(why));
	if (rc == -ENOMEM)
		return -ENOMEM;
	if (d->logged && !d->cache_dir[0]) {
		/* it stopped before its cache (its log names none): no server was asked */
		char dir[PATH_MAX];

		if (!client_cache_dir(dir, sizeof(dir)))
			snprintf(dir, sizeof(dir), "(too long a name)");
		symbolizer__warn(s, EBS_E_DEBUGINFOD_FAILED,
				 "debuginfod: no cache directory for the client (%s: %s; set "
				 "DEBUGINFOD_CACHE_PATH): not asked",
				 dir, strerror(-rc));
		d->off = true;
		*verdict = "(failed)";
		return 0;
	}
	if (d->timed_out || (failed && rc == -ENOENT)) /* a failure, not a miss */
		forget_miss(d, kind, id, id_size);
	if (d->timed_out) {
		server_of(d, server, sizeof(server));
		snprintf(why, sizeof(why), "no answer for %s within %g s (EBS_DEBUGINFOD_TIMEOUT)",
			 what, d->limit);
	} else if (!failed) {
		if (rc == -ENOENT) {
			*verdict = "(not found)";
			return 0;
		}
		snprintf(why, sizeof(why), "%s", strerror(-rc));
	}
	if (!server[0])
		snprintf(server, sizeof(server), "%s", d->urls);
	symbolizer__warn(s, EBS_E_DEBUGINFOD_FAILED,
			 "debuginfod: %s: %s: no server asked again in this run", server, why);
	d->off = true;
	*verdict = "(failed)";
	return 0;
}
