#!/bin/bash
# A payload's guest.sh (hack/testvm/README.md) that measures the guest's
# Podman settings against Debian's, in one boot: rounds of the same tests,
# root and rootless at once, alternating stock and tuned Podman services
# (stock, tuned, stock, tuned: a drift of the host shows as a difference
# between the two rounds of one setting). Each round's line in out/ab.txt:
# its seconds, the VM's busy share, and the processor seconds of the two
# podman.service cgroups and of the whole guest.
#
#   cp hack/testvm/ab-podman.sh _out/payload/guest.sh
#   echo '-test.run=^(TestA|TestB)$' >_out/payload/testflags
#   PODJAIL_TESTVM_OUT=_out/ab bash hack/testvm/run.sh _out/payload
#
# The settings are guest-run.sh's podman_settings (exported). Nothing else
# may run on the host meanwhile: a busy host slows the emulated processors,
# and the guest charges that time to whatever ran.
set -u
out=/mnt/host/out
payload=/var/tmp/payload
rounds=${AB_ROUNDS:-stock tuned stock tuned}
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }

# podman_settings (guest-run.sh's, exported) sets them; then both services
# are up again before the round.
podman_config() { # stock|tuned|events|service
	local s
	podman_settings "$1" || return 1
	for s in /run/podman/podman.sock /run/user/1000/podman/podman.sock; do
		for _ in $(seq 60); do
			[ "$(curl -s --max-time 20 --unix-socket "$s" http://d/_ping)" = OK ] && break
			sleep 1
		done
	done
}

usec() { sed -n 's/^usage_usec //p' "/sys/fs/cgroup/$1/cpu.stat"; }
root_svc=system.slice/podman.service
user_svc=user.slice/user-1000.slice/user@1000.service/app.slice/podman.service

mk_tar() { tar -C "$payload/progs" --numeric-owner --owner=0 --group=0 -c .; }
find "$payload/progs" -type f -exec chmod 0755 {} +
mk_tar | podman import -q - "$PODJAIL_TEST_IMAGE" >/dev/null &&
	mk_tar | as-tester podman import -q - "$PODJAIL_TEST_IMAGE" >/dev/null || {
	log "FATAL: import"
	exit 1
}
read -r -a flags <"$payload/testflags"
envs=()
for v in PODJAIL_BIN PODJAIL_TEST_IMAGE PODJAIL_INTEGRATION PODJAIL_TESTVM PODJAIL_PAYLOAD PODJAIL_OUT; do
	envs+=("$v=${!v}")
done
rc=0 n=0
for r in $rounds; do
	n=$((n + 1))
	podman_config "$r" || { log "FATAL: podman_config $r"; exit 1; }
	log "round $n: $r: $(systemctl show -p Environment podman.service), $(cat /etc/containers/containers.conf.d/podjail-testvm.conf 2>/dev/null | tr "\n" " ")"
	stat0=$(grep '^cpu ' /proc/stat)
	a0=$(usec "$root_svc") b0=$(usec "$user_svc") all0=$(usec .)
	t=$SECONDS
	mkdir -p /var/tmp/ab/$n/root /var/tmp/ab/$n/rootless
	chown tester: /var/tmp/ab/$n/rootless
	(cd /var/tmp/ab/$n/root && env HOME=/root "$payload/tests/podjail.test" -test.count=1 "${flags[@]}") \
		>"$out/ab-$n-$r-root.log" 2>&1 &
	p=$!
	(cd /var/tmp/ab/$n/rootless && as-tester "${envs[@]}" "$payload/tests/podjail.test" -test.count=1 "${flags[@]}") \
		>"$out/ab-$n-$r-rootless.log" 2>&1 || rc=1
	wait $p || rc=1
	secs=$((SECONDS - t))
	busy=$(awk -v a="$stat0" 'BEGIN { split(a, x) } /^cpu / { for (i = 2; i <= NF; i++) { d = $i - x[i]; t += d; if (i == 5 || i == 6) idle += d } }
		END { printf "%d", 100 * (t - idle) / t }' /proc/stat)
	printf '%-6s round %d: %4d s, busy %3d%%, podman.service root %6.1f s, rootless %6.1f s, guest %7.1f s\n' \
		"$r" $n $secs "$busy" "$(( $(usec "$root_svc") - a0 ))e-6" "$(( $(usec "$user_svc") - b0 ))e-6" \
		"$(( $(usec .) - all0 ))e-6" | tee -a "$out/ab.txt"
	grep -h '^--- FAIL\|^FAIL\|^ok\|^PASS' "$out/ab-$n-$r-root.log" "$out/ab-$n-$r-rootless.log" | head -5
done
echo "PASS ab-podman all rc=$rc seconds=$SECONDS" >>"$out/summary.txt"
[ $rc = 0 ] || sed -i 's/^PASS ab-podman/FAIL ab-podman/' "$out/summary.txt"
exit $rc
