#!/bin/bash
# Boot the podjail test VM on a payload and report.
#
#   bash hack/testvm/run.sh PAYLOAD_DIR
#
# PAYLOAD_DIR: bin/podjail, tests/*.test, progs/*, testflags, guest.sh (see README.md).
# Gets the image from build.sh (building it if needed), boots it under qemu (TCG,
# snapshot=on: every boot starts from the same image) with a fresh 9p share holding
# payload/ and out/, and guest-run.sh as the runner. Prints the boot time, the guest log
# and the summary; copies out/ to $PODJAIL_TESTVM_OUT. Exit status 0 only if the runner
# ran to the end and every test passed.
#
# env: PODJAIL_TESTVM_TIMEOUT  seconds before qemu is killed (default 4800)
#      PODJAIL_TESTVM_OUT      where out/ is copied (default PAYLOAD_DIR/../testvm-out)
#      PODJAIL_TESTVM_KEEP=1   keep the temporary share directory
#      PODJAIL_TESTVM_APPEND   extra kernel command line
#      PODJAIL_TESTVM_CPU      qemu's -cpu model (default max)
#      PODJAIL_TESTVM_SMP      the guest's processors (default 2)
#      PODJAIL_TESTVM_ICOUNT   boot with qemu's -icount VALUE (e.g. shift=2,sleep=on): the
#                              guest's clock counts instructions, so its processor times do
#                              not drift with the host's speed (single-threaded TCG)
#      PODJAIL_TESTVM_TB_SIZE  qemu's translation cache in MiB (-accel tcg,tb-size=N; qemu's
#                              default otherwise)
#      PODJAIL_TESTVM_JIT=1    ask qemu's monitor "info jit" every 2 minutes into out/jit.txt
#                              (its "TB flush count" says whether the cache is too small)
#      PODJAIL_TESTVM_IMAGE    boot this image directory (disk.img, vmlinuz, initrd.img)
#                              instead of build.sh's, e.g. build-fedora-selinux.sh's
#      PODJAIL_TESTVM_CACHE, PODJAIL_TESTVM_MIRROR: see build.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
payload=${1:?usage: run.sh PAYLOAD_DIR}
[ -d "$payload" ] || {
	echo "run.sh: $payload is not a directory" >&2
	exit 2
}
payload=$(cd "$payload" && pwd)
timeout=${PODJAIL_TESTVM_TIMEOUT:-4800}
outdir=${PODJAIL_TESTVM_OUT:-$payload/../testvm-out}

# A fresh machine: install qemu and the image builder's tools (as root), or
# say the command that does.
bash "$here/host-deps.sh"
if [ -n "${PODJAIL_TESTVM_IMAGE:-}" ]; then
	img=$PODJAIL_TESTVM_IMAGE
	[ -f "$img/ready" ] && [ -s "$img/disk.img" ] || {
		echo "run.sh: PODJAIL_TESTVM_IMAGE=$img is not a ready image directory" >&2
		exit 2
	}
else
	img=$(bash "$here/build.sh" | tail -n1)
	[ -f "$img/ready" ] || {
		echo "run.sh: build.sh gave no image" >&2
		exit 2
	}
fi

# ask_jit SOCKET PID: qemu's "info jit" every 2 minutes while PID lives, each
# answer under the seconds since the boot.
ask_jit() {
	local t0=$SECONDS
	while kill -0 "$2" 2>/dev/null; do
		sleep 120
		echo "== $((SECONDS - t0)) s"
		python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5)
s.sendall(b"info jit\n"); time.sleep(2); out = b""
try:
    while True:
        b = s.recv(65536)
        if not b: break
        out += b
except socket.timeout: pass
print(out.decode(errors="replace"))' "$1" || true
	done
}

# Under TCG the guest kernel can crash patching its own text while the other
# vCPU runs it (README, "Known emulation hazard"): a boot whose kernel panicked
# early is tried once more, from the same clean image.
retry_window=${PODJAIL_TESTVM_RETRY_WINDOW:-1200}
for attempt in 1 2; do
	share=$(mktemp -d "${TMPDIR:-/tmp}/podjail-testvm.XXXXXX")
	[ "${PODJAIL_TESTVM_KEEP:-0}" = 1 ] || trap 'rm -rf "$share"' EXIT
	cp -rL "$payload" "$share/payload"
	mkdir -p "$share/out"
	cp "$here/guest-run.sh" "$share/runner.sh"
	cp "$here"/avc-allow-*.txt "$here/avc-canary.sh" "$share/" # the SELinux passes' allowlists of AVC denials, their control
	chmod -R a+rX "$share"
	chmod 1777 "$share/out" # tests running as tester may leave files in $PODJAIL_OUT
	out=$share/out

	accel=(-accel "tcg,thread=multi${PODJAIL_TESTVM_TB_SIZE:+,tb-size=$PODJAIL_TESTVM_TB_SIZE}")
	if [ -n "${PODJAIL_TESTVM_ICOUNT:-}" ]; then
		accel=(-accel "tcg${PODJAIL_TESTVM_TB_SIZE:+,tb-size=$PODJAIL_TESTVM_TB_SIZE}" -icount "$PODJAIL_TESTVM_ICOUNT")
		[ "${PODJAIL_TESTVM_SMP:-2}" = 1 ] ||
			echo "== testvm: warning: with -icount the processors take turns on one clock; each is charged the others' turns (PODJAIL_TESTVM_SMP=1 for processor times)"
	fi
	echo "== testvm: image $img"
	echo "== testvm: qemu ${accel[*]}, ${PODJAIL_TESTVM_SMP:-2} processors"
	echo "== testvm: share $share, timeout ${timeout}s"
	monitor=(-monitor none)
	[ "${PODJAIL_TESTVM_JIT:-0}" = 1 ] && monitor=(-monitor "unix:$share/monitor.sock,server=on,wait=off")
	t0=$(date +%s.%N)
	# timeout(1) runs qemu in its own process group, which a Ctrl-C or a kill of this script's
	# group does not reach: forward those by hand.
	timeout -k 10 "$timeout" qemu-system-x86_64 "${accel[@]}" \
		-cpu "${PODJAIL_TESTVM_CPU:-max}" -smp "${PODJAIL_TESTVM_SMP:-2}" -m 6144 \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 mitigations=off quiet loglevel=3 systemd.show_status=error panic=-1 ${PODJAIL_TESTVM_APPEND:-}" \
		-drive "file=$img/disk.img,format=raw,if=virtio,snapshot=on,cache=unsafe,discard=unmap" \
		-virtfs "local,path=$share,mount_tag=hostshare,security_model=none,id=hs" \
		-nic none -display none "${monitor[@]}" -serial "file:$out/console.log" -no-reboot </dev/null &
	qemu_pid=$!
	[ "${PODJAIL_TESTVM_JIT:-0}" = 1 ] && ask_jit "$share/monitor.sock" $qemu_pid >"$out/jit.txt" 2>&1 &
	interrupted=0
	trap 'interrupted=1; kill -TERM $qemu_pid 2>/dev/null' INT TERM HUP
	qemu_rc=0
	wait $qemu_pid || qemu_rc=$?
	if [ $interrupted = 1 ]; then
		wait $qemu_pid 2>/dev/null || qemu_rc=$?
	fi
	trap - INT TERM HUP
	wall=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
	if [ $interrupted = 0 ] && [ ! -s "$out/done" ] && grep -q 'Kernel panic' "$out/console.log" 2>/dev/null &&
		[ $attempt = 1 ] && awk -v w="$wall" -v r="$retry_window" 'BEGIN { exit !(w < r) }'; then
		echo "== testvm: the guest kernel panicked after ${wall}s; booting again. Its oops:"
		grep -m1 -B2 -A8 'Oops\|BUG\|Kernel panic' "$out/console.log" | tail -n 12 || true
		[ "${PODJAIL_TESTVM_KEEP:-0}" = 1 ] || rm -rf "$share"
		continue
	fi
	break
done

problems=()
briefs=() # a line per failing test, printed last
if [ $interrupted = 1 ]; then
	problems+=("interrupted")
elif [ $qemu_rc = 124 ] || [ $qemu_rc = 137 ]; then
	problems+=("qemu timed out after ${timeout}s")
elif [ $qemu_rc != 0 ]; then
	problems+=("qemu exited rc=$qemu_rc")
fi

echo "== testvm: qemu rc=$qemu_rc, round trip ${wall}s"
if [ -s "$out/boot.txt" ]; then
	echo "== testvm: boot: $(cat "$out/boot.txt")"
else
	problems+=("the guest runner never started (see console.log)")
	echo "== testvm: console (tail):"
	tail -n 40 "$out/console.log" 2>/dev/null || true
fi
# The guest clock follows the host's raw TSC; if the host itself is a VM that gets
# snapshotted/restored, that can jump (seen: +5.6 days), and so do the guest's clocks.
if [ -s "$out/end.txt" ]; then
	end_uptime=$(sed -n 's/^END uptime=//p' "$out/end.txt")
	if awk -v u="$end_uptime" -v w="$wall" 'BEGIN { exit !(u > w + 60) }'; then
		echo "== testvm: WARNING: guest uptime ${end_uptime}s > round trip ${wall}s: the guest clock jumped" \
			"(host VM snapshot/restore?); timing results of this run are unreliable." \
			"PODJAIL_TESTVM_APPEND=tsc=unstable avoids it at some speed cost."
	fi
fi
if [ -e "$out/guest.log" ]; then
	echo "== testvm: guest log:"
	cat "$out/guest.log"
fi
if [ -s "$out/boot.txt" ] && [ ! -s "$out/done" ]; then
	problems+=("the guest runner did not finish")
elif [ -s "$out/done" ] && [ "$(cat "$out/done")" != 0 ]; then
	problems+=("the guest runner reported rc=$(cat "$out/done")")
fi
if [ -s "$out/summary.txt" ]; then
	while read -r res name mode _; do
		[ "$res" = FAIL ] || continue
		problems+=("FAIL $name $mode")
		if [ -f "$out/$name.$mode.log" ]; then
			echo "== testvm: $name.$mode.log (last 200 lines):"
			tail -n 200 "$out/$name.$mode.log"
		fi
	done <"$out/summary.txt"
	echo "== testvm: summary:"
	cat "$out/summary.txt"
	# Where a pass's time went (CI's budget): its slowest top-level tests.
	while read -r _ name mode _; do
		[ -f "$out/$name.$mode.log" ] || continue
		echo "== testvm: $name $mode, slowest tests (s):"
		sed -n 's/^--- [A-Z]*: \(Test[^ ]*\) (\([0-9.]*\)s)$/\2 \1/p' "$out/$name.$mode.log" |
			sort -rn | awk 'NR <= 12 { printf "  %8.1f %s\n", $1, $2 }'
	done <"$out/summary.txt"
fi

# copy out/ (never over a directory that is not ours)
if [ -e "$outdir" ] && [ ! -e "$outdir/.podjail-testvm-out" ] && [ -n "$(ls -A "$outdir")" ]; then
	echo "== testvm: $outdir exists and is not a testvm output directory; results left in $share" >&2
	trap - EXIT
else
	rm -rf "$outdir"
	mkdir -p "$outdir"
	cp -r "$out/." "$outdir/"
	touch "$outdir/.podjail-testvm-out"
	echo "== testvm: results in $(cd "$outdir" && pwd)"
fi

# The failing tests' own output last, where a truncated CI log still shows it:
# for each failure that has no failing subtest of its own (a subtest's Fatalf
# is in its block, not at the end of its parent's), the last 30 lines of its
# output: the lines after its "=== RUN", "=== CONT" or "=== NAME" header up to
# the next header or result line, to its "--- FAIL" line.
if [ -s "$out/summary.txt" ]; then
	while read -r res name mode _; do
		[ "$res" = FAIL ] && [ -f "$out/$name.$mode.log" ] || continue
		failed=$(sed -n 's/^ *--- FAIL: \([^ ]*\) .*/\1/p' "$out/$name.$mode.log")
		for t in $failed; do
			awk -v t="$t" 'index($0, t "/") == 1 {f = 1} END {exit !f}' <<<"$failed" && continue
			echo "== testvm: $name $mode: $t failed:"
			block=$(awk -v t="$t" '
				function header(l) { return l ~ /^=== (RUN|CONT|NAME|PAUSE) / }
				header($0) { on = ($0 == "=== RUN   " t || $0 == "=== CONT  " t || $0 == "=== NAME  " t); next }
				$0 ~ /^ *--- (PASS|FAIL|SKIP): / {
					if (index($0, "--- FAIL: " t " ") > 0) { buf[n++ % 30] = $0; exit }
					on = 0; next }
				on { buf[n++ % 30] = $0 }
				END { for (i = (n > 30 ? n - 30 : 0); i < n; i++) print buf[i % 30] }' \
				"$out/$name.$mode.log")
			printf '%s\n' "$block"
			# one line per failure for the very end: the last message of
			# the test's own (file.go:N: ...), a CI log's cut-off spares it
			said=$(grep -E '^ +[A-Za-z0-9_]+\.go:[0-9]+: ' <<<"$block" | tail -n 1 | sed 's/^ *//' | cut -c1-300)
			briefs+=("$name $mode $t: ${said:-(no message; see its block above)}")
		done
		grep -m5 '^panic:\|test timed out' "$out/$name.$mode.log" || true
	done <"$out/summary.txt"
fi

if [ ${#briefs[@]} -gt 0 ]; then
	printf '== testvm: failed: %s\n' "${briefs[@]}"
fi
if [ ${#problems[@]} -gt 0 ]; then
	printf '== testvm: FAILED: %s\n' "${problems[@]}"
	exit 1
fi
echo "== testvm: OK"
