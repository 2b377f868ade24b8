#!/bin/bash
# Where CI's minutes went: the budget table `make test` prints at its end.
#
#   bash hack/budget.sh phase FILE NAME CMD...   run CMD, add "phase SECONDS RC NAME" to FILE
#   bash hack/budget.sh report FILE OUTDIR...     print the table
#
# report prints each phase of FILE (make test's: its first line is
# "start EPOCH"), then for each OUTDIR (a copy of a boot's out/, run.sh's
# PODJAIL_TESTVM_OUT) the guest's phases with their seconds and the VM's
# busy share where guest-run.sh logged one, and the 20 slowest top-level
# tests of each pass (the "--- PASS: TestX (12.34s)" and FAIL lines of its
# -test.v log). An OUTDIR older than FILE's start is an earlier run's, and
# is named but not read.
set -uo pipefail

slowest=20

# phase FILE NAME CMD...: CMD's own exit status, its time recorded.
phase() {
	local file=$1 name=$2 t0 rc
	shift 2
	t0=$(date +%s)
	"$@"
	rc=$?
	echo "phase $(($(date +%s) - t0)) $rc $name" >>"$file"
	return $rc
}

# phases FILE: make test's phases and their sum.
phases() {
	echo "== budget: the phases of make test"
	awk '$1 == "phase" { name = $0; sub(/^phase [0-9]+ [0-9]+ /, "", name)
			printf "  %6d s  %-4s  %s\n", $2, ($3 == 0 ? "ok" : "FAIL"), name; all += $2 }
		END { printf "  %6d s        in all\n", all }' "$1"
}

# guest_phases DIR: the boot's phases from its guest log, boot.txt and end.txt.
guest_phases() {
	local dir=$1
	echo "   seconds   busy  phase"
	sed -n 's/^BOOT_TO_RUNNER uptime=\([0-9.]*\).*/\1/p' "$dir/boot.txt" 2>/dev/null |
		awk '{ printf "  %8.1f      -  the boot, up to the runner\n", $1 }'
	awk -f - "$dir/guest.log" <<'EOF'
function at(line) { return substr(line, 2, index(line, "]") - 2) + 0 }
function row(s, busy, what) { printf "  %8.1f  %5s  %s\n", s, busy, what }
/^\[[0-9.]+\] RUNNER_START / { start = at($0) }
/^\[[0-9.]+\] podman API up / { n = $0; sub(/.* after /, "", n); row(n + 0, "-", "the wait for both Podman APIs") }
/^\[[0-9.]+\] import .* from progs\// { imp = at($0) }
/^\[[0-9.]+\] imported / && imp != "" { row(at($0) - imp, "-", "the test image's import") }
/^\[[0-9.]+\] run [^ ]+ \(/ && !ran && start != "" { ran = 1; row(at($0) - start, "-", "the runner, up to its first pass of tests") }
/^\[[0-9.]+\] SELinux: contrib\/selinux.s module built .*\([0-9]+ s\)$/ {
	n = $0; sub(/.*\(/, "", n); row(n + 0, "-", "contrib/selinux's module built and installed") }
# guest-run.sh's "WHAT: N s, the VM busy P%" after each phase of tests
/^\[[0-9.]+\] .*: [0-9]+ s, the VM busy [0-9?]+%$/ {
	what = $0; sub(/^\[[0-9.]+\] /, "", what); sub(/: [0-9]+ s, the VM busy .*/, "", what)
	n = $0; sub(/.*: /, "", n); busy = $0; sub(/.* the VM busy /, "", busy)
	row(n + 0, busy, what) }
/^\[[0-9.]+\] done rc=/ && start != "" { row(at($0) - start, "-", "the runner in all (" substr($0, index($0, "done ")) ")") }
EOF
	sed -n 's/^END uptime=\([0-9.]*\).*/\1/p' "$dir/end.txt" 2>/dev/null |
		awk '{ printf "  %8.1f      -  the guest in all (its uptime at the end)\n", $1 }'
}

# slowest_tests DIR: each pass of summary.txt, its slowest top-level tests.
slowest_tests() {
	local dir=$1 res name tag secs log
	while read -r res name tag _ secs _; do
		log=$dir/$name.$tag.log
		[ -f "$log" ] || continue
		echo "  $name $tag: $res, ${secs#seconds=} s; its $slowest slowest tests (s):"
		sed -n 's/^--- \(PASS\|FAIL\): \(Test[^ ]*\) (\([0-9.]*\)s)$/\3 \2 \1/p' "$log" |
			sort -rn |
			awk -v n="$slowest" 'NR <= n { printf "  %8.1f  %s%s\n", $1, $2, ($3 == "FAIL" ? "  FAIL" : "") }'
	done <"$dir/summary.txt"
}

# outdir DIR START: one boot's part of the table.
outdir() {
	local dir=$1 start=$2
	if [ ! -s "$dir/guest.log" ]; then
		echo "== budget: $dir: no guest log (the boot did not run, or did not start its runner)"
		return
	fi
	if [ -n "$start" ] && [ "$(stat -c %Y "$dir/guest.log")" -lt "$start" ]; then
		echo "== budget: $dir: an earlier run's (this make test did not get that far)"
		return
	fi
	echo "== budget: $dir, the guest's phases"
	guest_phases "$dir"
	[ -s "$dir/summary.txt" ] || return
	echo "== budget: $dir, the slowest tests of each pass"
	slowest_tests "$dir"
}

report() {
	local file=$1 start dir
	shift
	start=$(sed -n 's/^start \([0-9]*\)$/\1/p' "$file" 2>/dev/null | head -n1)
	[ -s "$file" ] && phases "$file"
	for dir in "$@"; do
		outdir "$dir" "$start"
	done
}

case ${1:-} in
phase)
	[ $# -ge 4 ] || { echo "usage: budget.sh phase FILE NAME CMD..." >&2; exit 2; }
	shift
	phase "$@"
	;;
report)
	[ $# -ge 2 ] || { echo "usage: budget.sh report FILE OUTDIR..." >&2; exit 2; }
	shift
	report "$@"
	;;
*)
	echo "usage: budget.sh phase FILE NAME CMD... | report FILE OUTDIR..." >&2
	exit 2
	;;
esac
