#!/bin/bash
# The test runner inside the VM. run.sh puts it in the share as runner.sh; the boot unit
# (podjail-testvm.service) runs it as root with stdout+stderr in /mnt/host/out/guest.log,
# then powers off. Not part of the image, so editing it does not trigger a rebuild.
#
# Payload (/mnt/host/payload, see README.md): bin/podjail, tests/*.test, progs/*, testflags,
# guest.sh. Results: /mnt/host/out/{summary.txt,<name>.<root|rootless>.log,versions.txt,done}.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8

share=/mnt/host
out=$share/out
payload=/var/tmp/payload
test_image=localhost/podjail-test:latest
user=tester uid=1000
socket_wait=120

log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
finish() {
	log "done rc=$1"
	[ -z "${versions_pid:-}" ] || wait "$versions_pid"
	journalctl -b --no-pager >"$out/journal.txt" 2>&1
	echo "END uptime=$(cut -d' ' -f1 /proc/uptime)" >"$out/end.txt"
	echo "$1" >"$out/done"
	sync
	exit "$1"
}

log "RUNNER_START uptime=$(cut -d' ' -f1 /proc/uptime)"
stat_start=$(grep '^cpu ' /proc/stat)

# Without an audit daemon, audit records (AVC denials, seccomp kills) reach
# the kernel log through printk_ratelimit: 10 per 5 s by default, the rest
# dropped. The tests read them all.
sysctl -qw kernel.printk_ratelimit=0

# The SELinux pass: run.sh booted with security=selinux (the image has the
# refpolicy with its container module). Only the SELinux tests run, as root
# and as tester; the AVC messages are kept for the record.
selinux=0
[ -e /sys/fs/selinux/enforce ] && selinux=1
# The Fedora SELinux pass (make test-vm-selinux-fedora): the image of
# build-fedora-selinux.sh, whose policy is Fedora 41's targeted with
# container-selinux, booted enforcing=1. It must be enforcing, contrib/selinux's
# module goes on before both runs, and every AVC denial of the boot must be in
# the allowlist run.sh put in the share (avc-allow-fedora.txt).
fedora=0
if [ $selinux = 1 ] && grep -qx 'SELINUXTYPE=targeted' /etc/selinux/config; then
	fedora=1
	enforce=$(getenforce 2>&1)
	log "SELinux: getenforce: $enforce; policy $(sed -n 's/^SELINUXTYPE=//p' /etc/selinux/config)" \
		"($(cat /sys/fs/selinux/policyvers 2>/dev/null)), runner $(tr -d '\0' </proc/self/attr/current)"
	if grep -qw 'enforcing=1' /proc/cmdline && [ "$enforce" != Enforcing ]; then
		log "FATAL: booted with enforcing=1, but getenforce says $enforce"
		echo "FAIL getenforce - rc=1 seconds=0" >>"$out/summary.txt"
		finish 1
	fi
fi

# Under TCG, patching kernel text while other vCPUs run it can crash the
# guest (seen: "Oops: int3" in dequeue_entities). The CFS bandwidth static
# key flips each time the first or last cgroup with a CPU quota comes or
# goes, which every test run does; one cgroup holding a quota for the whole
# boot keeps the key on, so it flips once, here, while little runs.
keep=/sys/fs/cgroup/podjail-testvm-cpu-quota
echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
mkdir -p "$keep" && echo "1000000 100000" >"$keep/cpu.max" ||
	log "warning: could not pin the CFS bandwidth static key on"

# as-tester CMD...: run CMD as tester in a rootless Podman session environment (guest.sh may use it)
cat >/usr/local/bin/as-tester <<EOF
#!/bin/sh
exec runuser -u $user -- env HOME=/home/$user USER=$user LOGNAME=$user PATH=$PATH \\
	XDG_RUNTIME_DIR=/run/user/$uid DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus "\$@"
EOF
chmod 755 /usr/local/bin/as-tester

# --- payload, copied off the 9p share; the test image's import starts at
# once (the podman command needs no API service), beside the waits below
rm -rf "$payload"
cp -rL "$share/payload" "$payload" || {
	log "FATAL: cannot copy the payload"
	finish 1
}
chmod -R a+rX "$payload"

# --- the scratch test image from progs/, for root and for tester: in the
# background, beside the API waits, podman info and the SELinux module's
# build below (each a minute or so under emulation, none needs the other)
import_test_image() {
	if [ ! -d "$payload/progs" ]; then
		log "no progs/: $test_image not made"
		return 0
	fi
	find "$payload/progs" -type f -exec chmod 0755 {} +
	log "import $test_image from progs/: $(cd "$payload/progs" && find . -type f | sed 's|^\./||' | sort | xargs)"
	mk_tar() { tar -C "$payload/progs" --numeric-owner --owner=0 --group=0 -c .; }
	# root's and tester's at once: each is mostly one process's work
	local root_pid rc=0 i
	mk_tar | podman import -q - "$test_image" >/dev/null &
	root_pid=$!
	# tester's session (lingering) may still be starting
	for i in $(seq 120); do
		[ -S /run/user/$uid/bus ] && break
		sleep 0.5
	done
	mk_tar | as-tester podman import -q - "$test_image" >/dev/null || rc=1
	wait "$root_pid" || rc=1
	if [ $rc != 0 ]; then
		log "FATAL: podman import of $test_image failed"
		echo "FAIL import-test-image - rc=1 seconds=0" >>"$out/summary.txt"
		return 1
	fi
	log "imported $test_image"
}
import_pid=
if [ ! -e "$payload/guest.sh" ]; then
	import_test_image &
	import_pid=$!
fi

# --- the Podman services' settings, for hack/testvm/ab-podman.sh, which
# measures them against Debian's in one boot: "tuned" is no event log
# (podjail reads no events), warnings only in the log and GOGC=400;
# "events" and "service" set one part each (the event log; the log level
# and GOGC); "stock" takes them away. A running service is restarted. The
# suite itself runs Debian's own: a whole boot with "tuned" took as long as
# one without (docs/performance.md, "Podman's own settings").
podman_settings() { # stock|tuned|events|service
	local conf=/etc/containers/containers.conf.d/podjail-testvm.conf i
	local units=(/etc/systemd/system/podman.service.d /etc/systemd/user/podman.service.d)
	rm -f "$conf" "${units[0]}/tuned.conf" "${units[1]}/tuned.conf"
	mkdir -p "$(dirname "$conf")" "${units[@]}"
	if [ "$1" = tuned ] || [ "$1" = events ]; then
		printf '[engine]\nevents_logger = "none"\n' >"$conf"
	fi
	if [ "$1" = tuned ] || [ "$1" = service ]; then
		for i in "${units[@]}"; do
			printf '[Service]\nEnvironment=LOGGING=--log-level=warn GOGC=400\n' >"$i/tuned.conf"
		done
	fi
	for i in $(seq 120); do # tester's manager (lingering) may still be starting
		[ -S /run/user/$uid/bus ] && break
		sleep 0.5
	done
	systemctl daemon-reload && as-tester systemctl --user daemon-reload &&
		systemctl try-restart podman.service && as-tester systemctl --user try-restart podman.service
}
export -f podman_settings
export uid

# --- both Podman API services must answer
ping_ok() { # ping_ok SOCKET [RUN-AS...]
	local sock=$1
	shift
	[ "$("$@" curl -s --max-time 20 --unix-socket "$sock" http://d/_ping)" = OK ]
}
t0=$SECONDS
root_ok=0 rootless_ok=0
while [ $((SECONDS - t0)) -lt $socket_wait ]; do
	[ $root_ok = 1 ] || { ping_ok /run/podman/podman.sock && root_ok=1; }
	[ $rootless_ok = 1 ] || { ping_ok /run/user/$uid/podman/podman.sock as-tester && rootless_ok=1; }
	[ $root_ok = 1 ] && [ $rootless_ok = 1 ] && break
	sleep 1
done
if [ $root_ok != 1 ] || [ $rootless_ok != 1 ]; then
	log "FATAL: Podman API not answering after ${socket_wait}s: rootful ok=$root_ok rootless ok=$rootless_ok"
	systemctl --no-pager status podman.socket podman.service "user@$uid.service" 2>&1 | tail -n 40
	echo "FAIL podman-api - rc=1 seconds=$((SECONDS - t0))" >>"$out/summary.txt"
	finish 1
fi
log "podman API up (rootful and rootless) after $((SECONDS - t0))s"

# --- versions, in the background (podman info takes seconds: Debian's
# Podman queries dpkg)
{
	fmt='cgroups={{.Host.CgroupsVersion}} manager={{.Host.CgroupManager}} runtime={{.Host.OCIRuntime.Name}} storage={{.Store.GraphDriverName}} controllers={{.Host.CgroupControllers}}'
	echo "kernel: $(uname -r)"
	echo "systemd: $(systemctl --version | head -n1)"
	echo "crun: $(crun --version | head -n1)"
	echo "cgroup.controllers (root): $(cat /sys/fs/cgroup/cgroup.controllers)"
	echo "cgroup.controllers (user@$uid.service): $(cat /sys/fs/cgroup/user.slice/user-$uid.slice/user@$uid.service/cgroup.controllers)"
	echo "podman info (root): $(podman info --format "$fmt")"
	echo "podman info (tester): $(as-tester podman info --format "$fmt")"
	if [ $selinux = 1 ]; then
		echo "SELinux: $(getenforce), policy $(sed -n 's/^SELINUXTYPE=//p' /etc/selinux/config), runner $(cat /proc/self/attr/current | tr -d '\0')"
		echo "podman info SELinux (root): $(podman info --format '{{.Host.Security.SELinuxEnabled}}')"
		echo "podman info SELinux (tester): $(as-tester podman info --format '{{.Host.Security.SELinuxEnabled}}')"
	fi
	echo "--- podman version"
	podman version
} >"$out/versions.txt" 2>&1 &
versions_pid=$!

# SELinux: containers execute the shim from the host, so it needs a label
# container_t may execute: contrib/selinux/README.md's way without the module.
fedora_shim=/usr/libexec/podjail/podjail-shim
if [ $fedora = 1 ]; then
	# As contrib/selinux/README.md tells an operator: the module built with the
	# policy's devel Makefile (Fedora's headers here), installed, the boolean on
	# for good, the shim installed where podjail.fc labels it and restorecon'd.
	# Every test then uses that shim ($PODJAIL_SHIM).
	restorecon -R "$payload"
	# The payload's binaries as a package labels them where it installs
	# them (podjail.fc): a unit of contrib/systemd may start podjail (not
	# tmp_t, which init_t may not execute), and the service's own shim,
	# found beside it (no $PODJAIL_SHIM in a unit), is one containers may
	# run. chcon, not semanage: no policy rebuild (minutes here).
	chcon -t bin_t "$payload/bin/podjail" "$payload/bin/podjail-plugin"
	chcon -t container_ro_file_t "$payload/bin/podjail-shim"
	t=$SECONDS
	if d=$(mktemp -d) && cp "$payload"/contrib-selinux/podjail.te "$payload"/contrib-selinux/podjail.fc "$d"/ &&
		(cd "$d" && make -f /usr/share/selinux/devel/Makefile podjail.pp && semodule -i podjail.pp) &&
		setsebool -P container_manage_cgroup on &&
		install -D -m 0755 "$payload/bin/podjail-shim" "$fedora_shim" && restorecon -v "$fedora_shim" &&
		ls -Z "$fedora_shim" | grep -q ':container_ro_file_t:' && semodule -l | grep -qx podjail &&
		[ "$(getsebool container_manage_cgroup)" = "container_manage_cgroup --> on" ]; then
		for f in /usr/bin/podjail /usr/libexec/podjail/podjail-plugin; do
			log "SELinux: $f would be labelled $(matchpathcon -n "$f" 2>&1)"
		done
		log "SELinux: contrib/selinux's module built against $(readlink -f /usr/share/selinux/devel/include)" \
			"and installed, container_manage_cgroup on, shim $(ls -Z "$fedora_shim") ($((SECONDS - t)) s)"
	else
		log "FAIL: contrib/selinux's module, boolean or shim as its README says ($((SECONDS - t)) s)"
		echo "FAIL contrib-selinux - rc=1 seconds=$((SECONDS - t))" >>"$out/summary.txt"
	fi
elif [ $selinux = 1 ]; then
	restorecon -R "$payload"
	if semanage fcontext -a -t container_ro_file_t "$payload/bin/podjail-shim" &&
		restorecon -v "$payload/bin/podjail-shim"; then
		log "shim labelled: $(ls -Z "$payload/bin/podjail-shim")"
	else
		log "FAIL: could not label the shim"
		echo "FAIL label-shim - rc=1 seconds=0" >>"$out/summary.txt"
	fi
fi
test_env=(PODJAIL_BIN="$payload/bin/podjail" PODJAIL_TEST_IMAGE="$test_image"
	PODJAIL_INTEGRATION=1 PODJAIL_TESTVM=1 PODJAIL_PAYLOAD="$payload" PODJAIL_OUT="$out")
[ $selinux = 1 ] && test_env+=(PODJAIL_SELINUX=1)
[ $fedora = 1 ] && test_env+=(PODJAIL_SHIM="$fedora_shim")
# payload/testenv: NAME=VALUE lines for the tests (a targeted run's knobs,
# e.g. PODJAIL_SOAK=10m).
if [ -s "$payload/testenv" ]; then
	while read -r kv; do [ -n "$kv" ] && test_env+=("$kv"); done <"$payload/testenv"
fi
export "${test_env[@]}"

if [ -e "$payload/guest.sh" ]; then
	log "running payload guest.sh"
	(cd "$payload" && bash ./guest.sh)
	finish $?
fi

# --- the scratch test image, imported while the SELinux module builds
if [ -n "${import_pid:-}" ]; then
	wait "$import_pid" || finish 1
fi

# --- a second rootful Podman service on the cgroupfs manager, for the cgroupfs driver
modes=(root cgroupfs rootless)
cgroupfs_sock=/run/podjail-cgroupfs.sock
if [ $selinux = 1 ]; then
	modes=(root rootless)
else
	podman --cgroup-manager=cgroupfs system service --time=0 "unix://$cgroupfs_sock" >"$out/podman-cgroupfs.log" 2>&1 &
	t0=$SECONDS
	until ping_ok "$cgroupfs_sock"; do
		[ $((SECONDS - t0)) -lt 60 ] || break
		sleep 1
	done
fi
# Only the tests of measurement and cleanup run there: the rest does not
# depend on the cgroup manager.
cgroupfs_flags=(-test.run='Measure|Sweep|Interrupt' -test.bench=Measure)

# --- the tests: as root (systemd manager), as root on the cgroupfs manager, as tester
flags=(-test.v -test.count=1 -test.timeout=75m)
if [ -s "$payload/testflags" ]; then
	read -r -a extra <"$payload/testflags"
	flags+=("${extra[@]}")
fi
# The Fedora pass runs, enforcing, the SELinux tests and what else SELinux
# touches: the hostile suite, the fronts through the service, the native
# service, an isolate box handed back and its pipes.
# make test boots it with podjail.tests=selinux on the kernel command line:
# the SELinux tests alone, as the refpolicy boot ran them, for CI's budget.
fedora_tests='SELinux|^TestHostile|^TestIsolate(ThroughService|HandsTheBoxBack|CommunicationPipes)$|^TestOmegajailThroughService$|^TestServiceUnitsStartBySocket$'
grep -qw 'podjail.tests=selinux' /proc/cmdline && fedora_tests=SELinux
if [ $fedora = 1 ]; then
	# (a payload's testflags naming -test.run runs just those)
	[[ " ${flags[*]} " == *" -test.run="* ]] || flags+=(-test.run="$fedora_tests")
	flags+=(-test.bench='^$')
elif [ $selinux = 1 ]; then
	flags+=(-test.run=SELinux -test.bench='^$')
fi
# SELinux pass, before the rootless run: contrib/selinux's module and boolean,
# as its README says (the rootful TestSELinuxContribModule installs and removes
# them itself); afterwards every container_t denial is a failure, since tester
# cannot read the kernel log to check its own runs, but one the README gives
# as known: the refpolicy's MCS constraints deny container_t the stdio pipes
# the user's conmon made (unconfined_t, s0-s0:c0.c1023).
selinux_module_on() {
	local d
	d=$(mktemp -d) && cp "$payload"/contrib-selinux/podjail.te "$payload"/contrib-selinux/podjail.fc "$d"/ &&
		(cd "$d" && make -s -f /usr/share/selinux/devel/Makefile podjail.pp && semodule -i podjail.pp) &&
		setsebool container_manage_cgroup on
}
container_denials_since() { # UPTIME: container_t denials logged after it
	dmesg | awk -v t="$1" -F'[][]' '$2+0 > t+0' | grep 'avc:  denied' | grep 'scontext=system_u:system_r:container_t:'
}

# busy_since STAT: the share of processor time the guest spent busy since
# STAT (a "cpu" line of /proc/stat), in percent: how much a phase used the VM.
busy_since() {
	awk -v a="$1" 'BEGIN { n = split(a, x) }
		/^cpu / { for (i = 2; i <= NF; i++) { d = $i - x[i]; t += d; if (i == 5 || i == 6) idle += d } }
		END { if (t > 0) printf "%d", 100 * (t - idle) / t; else print "?" }' /proc/stat
}

# cg_cpu: every cgroup down to the user's services (user@UID.service/
# app.slice/podman.service) and its processor time so far (usage_usec
# counts its descendants, also removed ones), "PATH USEC"; the root's own
# is "(all)".
cg_cpu() {
	find /sys/fs/cgroup -mindepth 2 -maxdepth 6 -name cpu.stat 2>/dev/null | while read -r f; do
		echo "${f#/sys/fs/cgroup/}" "$(sed -n 's/^usage_usec //p' "$f" 2>/dev/null)"
	done | sed 's|/cpu.stat | |'
	echo "(all)" "$(sed -n 's/^usage_usec //p' /sys/fs/cgroup/cpu.stat)"
}

# cg_cpu_since FILE: where the processor time went since cg_cpu wrote FILE:
# the cgroups that used the most, in seconds and as a share of the whole
# guest's busy time, a parent beside its children (CI's budget: what the
# suite's time is spent on).
cg_cpu_since() {
	local busy
	busy=$(awk -v a="$2" 'BEGIN { n = split(a, x) }
		/^cpu / { for (i = 2; i <= NF; i++) if (i != 5 && i != 6) t += $i - x[i] }
		END { print t / 100 }' /proc/stat)
	cg_cpu | awk -v busy="$busy" 'NR == FNR { was[$1] = $2; next }
		$2 != "" { d = ($2 - was[$1]) / 1e6; if (d > busy / 100) printf "%10.1f s %5.1f%%  %s\n", d, 100 * d / busy, $1 }' "$1" - |
		sort -rn | head -n 25
}

# run_pass BIN MODE TAG FLAGS...: one pass of a test binary; its result is a
# line of summary.txt and its output out/NAME.TAG.log.
rc=0 ran=0
run_pass() {
	local bin=$1 mode=$2 tag=$3 name work logf t trc res mark
	shift 3
	name=$(basename "$bin" .test)
	work=/var/tmp/work/$tag/$name
	mkdir -p "$work"
	logf=$out/$name.$tag.log
	log "run $name ($tag) $*"
	[ $fedora = 1 ] && echo "$tag start uptime=$(cut -d' ' -f1 /proc/uptime)" >>"$out/pass-marks.txt"
	t=$SECONDS
	if [ $mode = root ]; then
		(cd "$work" && env HOME=/root "${test_env[@]}" "$bin" "$@") >"$logf" 2>&1
	elif [ $mode = cgroupfs ]; then
		(cd "$work" && env HOME=/root CONTAINER_HOST="unix://$cgroupfs_sock" "${test_env[@]}" \
			"$bin" "$@" "${cgroupfs_flags[@]}") >"$logf" 2>&1
	else
		if [ $selinux = 1 ] && [ $fedora = 0 ]; then
			selinux_module_on >"$out/selinux-module.log" 2>&1 || log "FAIL: contrib/selinux module (selinux-module.log)"
			mark=$(cut -d' ' -f1 /proc/uptime)
		fi
		chown "$user:$user" "$work"
		(cd "$work" && as-tester "${test_env[@]}" "$bin" "$@") >"$logf" 2>&1
	fi
	trc=$?
	if [ $selinux = 1 ] && [ $fedora = 0 ] && [ $mode = rootless ]; then
		container_denials_since "$mark" >"$out/selinux-rootless-denials.txt"
		pipes='tcontext=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023 tclass=fifo_file '
		n=$(wc -l <"$out/selinux-rootless-denials.txt")
		other=$(grep -vc "$pipes" "$out/selinux-rootless-denials.txt")
		log "SELinux: $n container_t denials during the rootless run, with the module, $other of them" \
			"not of the user's stdio pipes (selinux-rootless-denials.txt)"
		[ "$other" = 0 ] || trc=1
	fi
	[ $fedora = 1 ] && echo "$tag end uptime=$(cut -d' ' -f1 /proc/uptime)" >>"$out/pass-marks.txt"
	res=PASS
	[ $trc = 0 ] || res=FAIL
	echo "$res $name $tag rc=$trc seconds=$((SECONDS - t))" | tee -a "$out/summary.txt"
	[ $trc = 0 ]
}

# The rootful and rootless passes run at once: most of a test waits on
# Podman, conmon and crun, and one pass keeps the VM's two processors half
# idle. Each pass looks only at its own containers, processes and cgroups
# (cmd/podjail's inThisPass). What is timed (the bench, the measurement
# tests) then runs alone, a mode after the other, so its figures are not
# the other pass's load. A targeted run (testflags naming -test.run) runs
# just its tests, both modes at once; the SELinux boot runs its modes one
# after the other (the module goes on before the rootless run).
timed='^(TestPodjailBench|TestMeasure.*)$'
log "the runner before its tests: $SECONDS s, the VM busy $(busy_since "$stat_start")%"
targeted=0
[[ " ${flags[*]} " == *" -test.run="* ]] && targeted=1
# A payload with a file "sequential" runs its targeted tests a mode after
# the other, each alone in the VM: a quiet bench (hack/testvm/README.md).
sequential=0
[ $targeted = 1 ] && [ -e "$payload/sequential" ] && sequential=1
for bin in "$payload"/tests/*.test; do
	[ -f "$bin" ] || continue
	if [ $selinux = 1 ] && [ $fedora = 0 ]; then
		for mode in "${modes[@]}"; do
			run_pass "$bin" $mode $mode "${flags[@]}" || rc=1
			ran=$((ran + 1))
		done
		continue
	fi
	stat0=$(grep '^cpu ' /proc/stat)
	cg_cpu >/var/tmp/cg-cpu-at-once.txt
	t=$SECONDS
	pids=()
	for mode in root rootless; do
		if [ $sequential = 1 ]; then
			run_pass "$bin" $mode $mode "${flags[@]}" || rc=1
			log "$mode alone: $((SECONDS - t)) s, the VM busy $(busy_since "$stat0")%"
			stat0=$(grep '^cpu ' /proc/stat)
			t=$SECONDS
			ran=$((ran + 1))
			continue
		elif [ $targeted = 1 ] || [ $fedora = 1 ]; then
			run_pass "$bin" $mode $mode "${flags[@]}" &
		else
			run_pass "$bin" $mode $mode "${flags[@]}" -test.skip="$timed" &
		fi
		pids+=($!)
		ran=$((ran + 1))
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	if [ $sequential = 0 ]; then
		log "root and rootless at once: $((SECONDS - t)) s, the VM busy $(busy_since "$stat0")%"
		log "where the processor time went (cgroups over 1% of it, a parent beside its children):"
		cg_cpu_since /var/tmp/cg-cpu-at-once.txt "$stat0"
	fi
	[ $targeted = 1 ] || [ $fedora = 1 ] && continue
	for mode in "${modes[@]}"; do
		stat0=$(grep '^cpu ' /proc/stat)
		t=$SECONDS
		if [ $mode = cgroupfs ]; then
			run_pass "$bin" cgroupfs cgroupfs "${flags[@]}" || rc=1
		else
			run_pass "$bin" $mode $mode-timed "${flags[@]}" -test.run="$timed" || rc=1
		fi
		log "$mode timed alone: $((SECONDS - t)) s, the VM busy $(busy_since "$stat0")%"
		ran=$((ran + 1))
	done
done
if [ $selinux = 1 ]; then
	dmesg | grep 'avc:' >"$out/avc.txt"
	log "SELinux: $(wc -l <"$out/avc.txt") AVC messages (avc.txt)"
fi
# The Fedora pass: no denial unexplained. Every AVC denial the kernel logged
# since boot (the boot, the module's install, both runs; no auditd here, so
# they are kernel log records: dmesg, and the journal's copy of the kernel log
# in case the ring buffer wrapped, merged by audit serial) must match a line of
# avc-allow-fedora.txt ("STYPE TTYPE TCLASS PERM  # why"; a line without its why matches nothing).
if [ $fedora = 1 ]; then
	allow=$share/avc-allow-fedora.txt
	{ dmesg; journalctl -k -b -o cat --no-pager; } 2>/dev/null |
		grep -o 'audit([0-9.]*:[0-9]*): avc:  denied .*' | sort -u >"$out/avc-all-denied.txt"
	# The denials a test provoked on purpose (TestSELinuxAttacks): its
	# avc-provoked-UID.txt lines (a file per pass), gathered in
	# avc-expected.txt, "LEVEL|TCONTEXT|why", name the attacking run's
	# level and the target; those are explained, and set apart.
	# (With no such line, awk's NR == FNR would take the denials themselves
	# for the expected: they are then all copied as they are.)
	cat "$out"/avc-provoked-*.txt >"$out/avc-expected.txt" 2>/dev/null
	if ! [ -s "$out/avc-expected.txt" ] || ! awk -F'|' 'NR == FNR { if ($3 != "") want[NR] = "scontext=system_u:system_r:container_t:" $1 " .*tcontext=" $2 " "; next }
		{ for (k in want) if ($0 ~ want[k]) { print > expected; next } print }' expected="$out/avc-expected-seen.txt" \
		"$out/avc-expected.txt" "$out/avc-all-denied.txt" >"$out/avc-denied.txt" 2>/dev/null; then
		cp "$out/avc-all-denied.txt" "$out/avc-denied.txt"
	fi
	touch "$out/avc-expected-seen.txt"
	log "SELinux: $(wc -l <"$out/avc-expected-seen.txt") denials provoked on purpose (avc-expected-seen.txt)"
	# one line per denied permission: STYPE TTYPE TCLASS PERM permissive=N comm=...
	sed -E 's/.*denied  \{ ([^}]*) \}.*scontext=([^ ]*) tcontext=([^ ]*) tclass=([^ ]*) permissive=([01]).*/\1|\2|\3|\4|\5/' "$out/avc-denied.txt" |
		awk -F'|' '{ split($2, s, ":"); split($3, t, ":"); n = split($1, p, " ");
			for (i = 1; i <= n; i++) print s[3], t[3], $4, p[i], "permissive=" $5 }' >"$out/avc-perms.txt"
	sort "$out/avc-perms.txt" | uniq -c | sort -rn >"$out/avc-summary.txt"
	if [ -s "$allow" ]; then
		awk 'NR == FNR { if ($0 !~ /#[ \t]*[^ \t]/) next; sub(/[ \t]*#.*/, ""); if (NF == 4) ok[$1 " " $2 " " $3 " " $4] = 1; next }
			!(($1 " " $2 " " $3 " " $4) in ok)' "$allow" "$out/avc-perms.txt" | sort | uniq -c | sort -rn >"$out/avc-unexplained.txt"
	else
		log "FAIL: no avc-allow-fedora.txt in the share"
		cp "$out/avc-summary.txt" "$out/avc-unexplained.txt"
	fi
	lost=$(dmesg | grep -cE 'audit: audit_lost|audit: backlog limit exceeded|kauditd hold queue overflow')
	n=$(wc -l <"$out/avc-denied.txt")
	u=$(awk '{ s += $1 } END { print s + 0 }' "$out/avc-unexplained.txt")
	log "SELinux: $n AVC denials since boot ($(wc -l <"$out/avc-summary.txt") distinct permissions," \
		"avc-summary.txt), $u not in avc-allow-fedora.txt (avc-unexplained.txt); audit records lost: $lost"
	sed 's/^/  /' "$out/avc-summary.txt"
	res=PASS
	if [ "$u" != 0 ] || [ "$lost" != 0 ]; then
		res=FAIL
		rc=1
		sed 's/^/  unexplained: /' "$out/avc-unexplained.txt"
	fi
	echo "$res avc-denials all rc=$u seconds=0 denials=$n unexplained=$u lost=$lost" | tee -a "$out/summary.txt"
	# ...and a denial does reach the kernel log this way (after the count: not in it)
	if bash "$share/avc-canary.sh"; then
		echo "PASS avc-canary all rc=0 seconds=0" >>"$out/summary.txt"
	else
		log "FAIL: the canary's denial was not seen: the AVC check above proves nothing"
		echo "FAIL avc-canary all rc=1 seconds=0" >>"$out/summary.txt"
		rc=1
	fi
fi
if [ $ran = 0 ]; then
	log "FAIL: no tests/*.test in the payload"
	echo "FAIL no-tests - rc=1 seconds=0" >>"$out/summary.txt"
	rc=1
fi
finish $rc
