#!/usr/bin/env bash
# containers.sh - a process in a chroot or in another mount namespace maps
# files at paths that exist only inside it (/app/hot); ebs record reads them
# through /proc/PID/root while the process runs, into the build-id cache
# (sampler/ns.c, docs/symbolize.md "Containers"), so that after it exits,
# its tree removed, the report still names its functions:
#  a. chroot: `ebs record -- chroot ROOT /app/hot`, ROOT removed, the
#     report names hot's functions (with a fresh XDG_CACHE_HOME, and not
#     with the cache off), also of a program that runs for 20 ms only;
#     perf's report of the same, for information;
#  b. `unshare --mount --pid --fork` with a bind mount that makes the
#     program's directory exist only inside: the same checks, and again
#     with the file found by a child that entered the namespace (setns);
#  c. the recording notes the namespaces: PROCNS records in --dump, the
#     report's header line, the file's minor version; none (and version
#     x.0) for a program of ebs's own namespace;
#  d. a hostile program (nobody, in its chroot) that turns its file into a
#     FIFO or a link to a file of the host: ebs record neither hangs nor
#     reads through the link (unit test-ns covers each way of opening);
#  e. the report's count, on a file mkdata writes: samples of a process
#     after its PROCNS, of a child it forked (which runs where it did), not
#     those before it, nor of a process back in ebs's own namespace.
. "$(dirname "$0")/../lib.sh"

export XDG_CACHE_HOME=$TMP/xdg HOME=$TMP/home # never the real one's cache
mkdir -p "$HOME"
unset EBS_BUILDID_CACHE_MAX

# ---- e. the report's count, on a scripted file ---------------------------------------
# pid 10 in a container from its PROCNS on (3 samples before it do not
# count, 5 after do), its child 11 (forked after, no PROCNS of its own: 4
# count), pid 12 back home (flags 0 after 1: its 2 later ones do not
# count, its 6 earlier ones do), pid 13 never elsewhere (7): 5+4+6 of 27.
MKDATA=$(dirname "$EBS")/tests/tools/mkdata
printf '%s\n' 'event cpu-clock cpu-clock 1000' 'comm 10 10 app' 'sample 0 10 10 400000 3' \
	'procns 10 3 4026532001 /' 'sample 0 10 10 400000 5' 'fork 11 10 11 10' \
	'sample 0 11 11 400000 4' 'procns 12 1 4026532002 /' 'sample 0 12 12 400000 6' \
	'procns 12 0 4026531841 /' 'sample 0 12 12 400000 2' 'sample 0 13 13 400000 7' |
	"$MKDATA" scripted.data
"$EBS" report -i scripted.data >scripted.txt 2>&1
check "scripted: the header counts 15 of 27 samples, of 2 processes" \
	grep -qxF "# other mount namespaces: 15 of the samples (55.6%) from 2 processes in another mount namespace or root than ebs record (a container, a chroot)" scripted.txt
"$EBS" report -i scripted.data --json >scripted.json 2>&1
check "scripted: --json's other_mount_ns_samples is 15" jtrue scripted.json "j['other_mount_ns_samples'] == 15"
"$EBS" report -i scripted.data --dump >scripted.dump
check "scripted: --dump shows the three PROCNS records" \
	[ "$(grep -c ' PROCNS ' scripted.dump)" -eq 3 ]

if [ "$(id -u)" -ne 0 ]; then
	skip "all" "needs root (chroot, unshare --mount)"
	exit 0
fi

# hot: a static program (it runs in an empty tree) whose leaf dominates;
# with "fifo" or "link:TARGET" it first replaces its own file by a FIFO or
# by a symbolic link to TARGET (as a hostile container could).
cat >hot.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long hot_container_leaf(unsigned long x)
{
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

int main(int argc, char **argv)
{
	double end = cpu() + (argc > 1 ? atof(argv[1]) : 0.3);
	unsigned long x = 1;

	if (argc > 2 && rename("/app/hot", "/app/hot.gone") == 0) {
		if (!strcmp(argv[2], "fifo"))
			mkfifo("/app/hot", 0644);
		else if (!strncmp(argv[2], "link:", 5))
			symlink(argv[2] + 5, "/app/hot");
		close(creat("/app/swapped", 0644));
	}
	/* hostile: on until the test says so (/app/done) */
	while (cpu() < end || (argc > 2 && access("/app/done", F_OK)))
		x = hot_container_leaf(x);
	printf("%lu\n", x & 1);
	return 0;
}
EOF
if ! gcc -O1 -static -Wl,--build-id -o hot hot.c 2>gcc.err; then
	skip "all" "cannot link a static program: $(head -n 1 gcc.err)"
	exit 0
fi

# tree DIR: DIR/app/hot, the whole tree nobody's to write (a hostile container's)
tree() {
	rm -rf "$1"
	mkdir -p "$1/app" && cp hot "$1/app/hot" && chown -R 65534:65534 "$1"
}

# leaf REPORT_JSON: "samples user_total" of hot_container_leaf
leaf() { ushare "$1" hot_container_leaf; }

# report_leaf NAME DATA [CACHE]: k and n of DATA's report
# (XDG_CACHE_HOME=CACHE) as leaf gives them; false (after a FAIL) when the
# report fails
report_leaf() {
	XDG_CACHE_HOME=${3:-$XDG_CACHE_HOME} "$EBS" report -i "$2" --json >"$2.json" 2>"$2.rep.err" ||
		{ fail "$1" "report failed: $(head -c 300 "$2.rep.err")"; return 1; }
	read -r k n < <(leaf "$2.json")
}
# resolves NAME DATA [CACHE [MIN]]: the report of DATA (XDG_CACHE_HOME=CACHE)
# names hot's leaf for most user-space samples (at least MIN of them, 30 by
# default, else a skip); unresolves: for none
resolves() {
	local k n
	report_leaf "$1" "$2" "${3:-}" || return
	enough "$1" "$n" "${4:-30}" || return
	check "$1: hot_container_leaf has $k of $n user-space samples (want >= 50%)" \
		at_least "$k" "$((n / 2))"
}
unresolves() {
	local k n
	report_leaf "$1" "$2" "${3:-}" || return
	check "$1: hot_container_leaf has $k of $n samples (want 0: nothing kept)" [ "$k" -eq 0 ]
}

# ---- a. chroot ------------------------------------------------------------------
tree root
if ! chroot root /app/hot 0.01 >/dev/null 2>chroot.err; then
	skip "chroot" "chroot is not allowed here: $(head -n 1 chroot.err)"
else
	"$EBS" record -e cpu-clock -F 500 -o chroot.data -- chroot root /app/hot 0.4 \
		>/dev/null 2>chroot.rec.err
	check "chroot: record" [ $? -eq 0 ]
	sed 's/^/    /' chroot.rec.err
	check "chroot: record says it kept a file of another namespace" \
		grep -q "1 file of processes in other mount namespaces kept in $XDG_CACHE_HOME/ebs/buildid" \
		chroot.rec.err
	rm -rf root
	resolves "chroot: report after the tree is gone" chroot.data
	# the same with the cache off: nothing resolves it
	tree root
	EBS_BUILDID_CACHE_MAX=0 XDG_CACHE_HOME=$TMP/xdg-off "$EBS" record -q -e cpu-clock -F 500 \
		-o chroot-off.data -- chroot root /app/hot 0.2 >/dev/null 2>&1
	rm -rf root
	unresolves "chroot: without the build-id cache" chroot-off.data "$TMP/xdg-off"
	# short-lived: 20 ms of CPU, started once the recording runs, read at
	# once (the watch of mappings wakes ebs at each), not at the next
	# reading of the rings, up to 200 ms later (without the watch, 0 of 10
	# runs of a 5 ms one resolved, 10 of 10 with it)
	tree root
	XDG_CACHE_HOME=$TMP/xdg-short "$EBS" record -e cpu-clock -F 1000 -o short.data -- \
		sh -c 'sleep 0.3; chroot root /app/hot 0.02' >/dev/null 2>short.err
	sed 's/^/    /' short.err
	rm -rf root
	resolves "chroot, 20 ms: report" short.data "$TMP/xdg-short" 8
	"$EBS" report -i chroot.data --dump >chroot.dump
	check "chroot: --dump shows the process's PROCNS record (other root)" \
		grep -qE "PROCNS .* \(other root\)" chroot.dump
	check "chroot: the file is version x.1" grep -qE "^# ebs.data version [23]\.1," chroot.dump
	"$EBS" report -i chroot.data >chroot.txt 2>&1
	check "chroot: the header counts the samples of other namespaces" \
		grep -qE "^# other mount namespaces: [1-9][0-9]* of the samples .* from 1 process in" chroot.txt
	head -n 12 chroot.txt | sed 's/^/    /'
	# perf, for information: its report of the same once the tree is gone
	if command -v perf >/dev/null; then
		tree root
		HOME=$TMP/perfhome perf record -q -e cpu-clock -F 500 -o perf.data -- \
			chroot root /app/hot 0.4 >/dev/null 2>perf.err
		rm -rf root
		echo "    perf report of the same, the tree removed (for information):"
		HOME=$TMP/perfhome perf report -i perf.data --stdio --sort dso,sym 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 5 | sed 's/^/    /'
	fi
fi

# ---- b. unshare: a bind mount only inside ------------------------------------------
# $TMP/app is empty outside; inside, $TMP/inside is bound onto it.
mkdir -p app
run_unshared() { # OUT [ENV=VALUE...]: record hot in a mount and pid namespace of its own
	local out=$1
	shift
	tree inside
	env "$@" "$EBS" record -e cpu-clock -F 500 -o "$out" -- \
		unshare --mount --pid --fork sh -c "mount --bind '$TMP/inside' '$TMP/app' && exec '$TMP/app/app/hot' 0.4" \
		>/dev/null 2>"$out.err"
	local rc=$?
	sed 's/^/    /' "$out.err"
	rm -rf inside
	return $rc
}
if ! unshare --mount --pid --fork sh -c "mount --bind '$TMP' '$TMP/app'" 2>unshare.err; then
	skip "unshare" "unshare --mount --pid --fork with a bind mount is not allowed here: $(head -n 1 unshare.err)"
else
	# the file is at $TMP/app/app/hot inside, and that path is empty outside
	check "unshare: record" run_unshared ns.data
	check "unshare: record says it kept a file" grep -q "1 file of processes in other" ns.data.err
	check "unshare: the program's path is empty outside" not test -e "$TMP/app/app/hot"
	resolves "unshare: report after it exited" ns.data
	"$EBS" report -i ns.data --dump >ns.dump
	check "unshare: --dump shows PROCNS (other mount namespace)" \
		grep -qE "PROCNS .* \(other mount namespace\)" ns.dump
	# found by a child that entered the namespace (setns), in a fresh cache
	check "unshare, setns: record" run_unshared setns.data EBS_DEBUG_NS_SETNS=1 \
		XDG_CACHE_HOME="$TMP/xdg-setns"
	check "unshare, setns: record says it kept a file" grep -q "1 file of processes in other" \
		setns.data.err
	resolves "unshare, setns: report" setns.data "$TMP/xdg-setns"
fi

# ---- c. a program of ebs's own namespace: no PROCNS, version x.0 ------------------------
"$EBS" record -q -e cpu-clock -F 500 -o own.data -- ./hot 0.05 >/dev/null 2>own.err
"$EBS" report -i own.data --dump >own.dump
check "own namespace: no PROCNS record" not grep -q PROCNS own.dump
check "own namespace: version x.0" grep -qE "^# ebs.data version [23]\.0," own.dump
"$EBS" report -i own.data >own.txt 2>&1
check "own namespace: no header line about namespaces" not grep -q "other mount namespaces" own.txt

# ---- d. a hostile program ---------------------------------------------------------------
# nobody's program in its chroot turns its file into a FIFO, or into a link
# to a host file with its very build-id (decoy: a copy of hot at an absolute
# path that exists outside only), before ebs reads its mapping: ebs record
# -a is stopped (SIGSTOP) until the program says it did (/app/swapped), and
# the program runs until ebs has read its rings since (its wchar grew).
# ebs must not hang on the FIFO, nor read the decoy: a link resolves inside
# the program's root, where the decoy's path is nothing.
cp hot decoy
id=$(readelf -n hot | awk '/Build ID/ { print $3 }')
wchar() { awk '/^wchar/ { print $2 }' "/proc/$1/io"; }
grew() { [ "$(wchar "$1")" -gt "$2" ]; }
for how in fifo "link:$TMP/decoy"; do
	n=${how%%:*}
	tree root
	export XDG_CACHE_HOME=$TMP/xdg-$n
	"$EBS" record -a -e cpu-clock -F 100 -o "hostile-$n.data" >/dev/null 2>"hostile-$n.err" &
	ebs=$!
	if ! wait_polling $ebs; then
		fail "hostile $n" "ebs record -a did not start: $(head -c 300 "hostile-$n.err")"
		continue
	fi
	kill -STOP $ebs
	chroot --userspec=65534:65534 root /app/hot 0.05 "$how" >/dev/null &
	hot=$!
	wait_until 300 test -e root/app/swapped
	w0=$(wchar $ebs)
	kill -CONT $ebs
	check "hostile $n: ebs record goes on after its mapping (no hang)" wait_until 120 grew $ebs "$w0"
	touch root/app/done
	wait $hot
	kill -INT $ebs
	check "hostile $n: ebs record ends" wait_until 120 not test -d "/proc/$ebs"
	wait $ebs
	sed 's/^/    /' "hostile-$n.err"
	check "hostile $n: hot's build-id is not in the cache" \
		not test -e "$XDG_CACHE_HOME/ebs/buildid/.build-id/${id:0:2}/${id:2}"
	rm -rf root
done

exit 0
