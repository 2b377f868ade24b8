#!/bin/bash
# Configure the debootstrap'd trixie rootfs of the test VM (run by build.sh as root).
# usage: configure-rootfs.sh ROOTFS
set -euo pipefail

R=${1:?usage: configure-rootfs.sh ROOTFS}
[ -x "$R/usr/bin/podman" ] || { echo "configure-rootfs: $R has no podman" >&2; exit 1; }

etc=$R/etc
sys=$etc/systemd/system

# --- identity, mounts, login
echo podjail-testvm >"$etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 podjail-testvm\n' >"$etc/hosts"
cat >"$etc/fstab" <<'EOF'
/dev/vda  /          ext4  rw,noatime,errors=remount-ro 0 1
hostshare /mnt/host  9p    trans=virtio,version=9p2000.L,msize=1048576,cache=none,nofail,x-systemd.device-timeout=10s 0 0
EOF
mkdir -p "$R/mnt/host"
printf '9p\n9pnet_virtio\n' >"$etc/modules-load.d/9p.conf"
chroot "$R" passwd -d root >/dev/null

# --- SELinux: the policy is there for boots with security=selinux on the kernel command
# line (run.sh's SELinux pass); the mode comes from that command line (enforcing=0|1).
# Other boots do not load it.
ls "$etc"/selinux/default/policy/policy.* >/dev/null 2>&1 || {
	echo "configure-rootfs: selinux-policy-default built no policy" >&2
	exit 1
}
chroot "$R" semodule -s default -l | grep -qx container || {
	echo "configure-rootfs: the SELinux policy has no container module" >&2
	exit 1
}
printf 'SELINUX=permissive\nSELINUXTYPE=default\n' >"$etc/selinux/config"
# Label the files now, so the SELinux pass runs on labelled files without
# relabelling at every boot (the disk is a snapshot). setfiles writes the
# security.selinux attributes whatever the build host's LSM; files made later
# (the provisioning boot's image stores) stay unlabelled. A boot without
# SELinux would mark the disk for relabelling (/.autorelabel, whose generator
# turns the next SELinux boot into a relabel and a reboot): no marking.
rm -f "$R/.autorelabel"
ln -sfn /dev/null "$sys/selinux-autorelabel-mark.service"
chroot "$R" setfiles -F -e /proc -e /sys -e /dev -e /mnt /etc/selinux/default/contexts/files/file_contexts / || {
	echo "configure-rootfs: setfiles could not label the rootfs" >&2
	exit 1
}

# --- boot speed: nothing periodic, no gettys, no network waits
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer dpkg-db-backup.timer man-db.timer systemd-timesyncd.service \
	podman-auto-update.timer podman-restart.service \
	systemd-networkd-wait-online.service getty@tty1.service serial-getty@ttyS0.service; do
	ln -sfn /dev/null "$sys/$u"
done
mkdir -p "$etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\nRuntimeMaxUse=64M\n' >"$etc/systemd/journald.conf.d/podjail-testvm.conf"

# --- rootless user: uid/gid 1000, subordinate ids, lingering user manager
chroot "$R" id tester >/dev/null 2>&1 || chroot "$R" useradd -m -u 1000 -U -s /bin/bash tester
[ "$(chroot "$R" id -u tester):$(chroot "$R" id -g tester)" = 1000:1000 ] || {
	echo "configure-rootfs: tester is not uid/gid 1000" >&2
	exit 1
}
for f in subuid subgid; do
	sed -i '/^tester:/d' "$etc/$f"
	echo 'tester:100000:65536' >>"$etc/$f"
done
mkdir -p "$R/var/lib/systemd/linger"
touch "$R/var/lib/systemd/linger/tester"

# user@.service delegates only cpu memory pids by default; podjail wants cpuset and io too
mkdir -p "$sys/user@.service.d"
printf '[Service]\nDelegate=cpu cpuset io memory pids\n' >"$sys/user@.service.d/delegate.conf"

# --- Podman API: socket-activated at boot, rootful and (for every user) rootless.
# Debian's podman.service exits after 5 s idle; keep it running once started.
for u in "$R/usr/lib/systemd/system/podman.socket" "$R/usr/lib/systemd/user/podman.socket"; do
	[ -e "$u" ] || { echo "configure-rootfs: missing $u" >&2; exit 1; }
done
mkdir -p "$sys/sockets.target.wants" "$etc/systemd/user/sockets.target.wants"
ln -sfn /usr/lib/systemd/system/podman.socket "$sys/sockets.target.wants/podman.socket"
ln -sfn /usr/lib/systemd/user/podman.socket "$etc/systemd/user/sockets.target.wants/podman.socket"
for d in "$sys/podman.service.d" "$etc/systemd/user/podman.service.d"; do
	mkdir -p "$d"
	cat >"$d/podjail-testvm.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=/usr/bin/podman $LOGGING system service --time=0
EOF
done

# --- no real network (qemu -nic none), but a default route on a dummy interface, so that
# pasta (rootless) and netavark (rootful) can set up a container's default network
cat >"$sys/podjail-testvm-net.service" <<'EOF'
[Unit]
Description=podjail test VM: dummy0 with a default route (no real network)
Before=network.target podjail-testvm.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/ip link add dummy0 type dummy
ExecStart=/usr/sbin/ip addr add 10.0.2.15/24 dev dummy0
ExecStart=/usr/sbin/ip link set dummy0 up
ExecStart=/usr/sbin/ip route add default via 10.0.2.2 dev dummy0

[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$sys/multi-user.target.wants"
ln -sfn /etc/systemd/system/podjail-testvm-net.service "$sys/multi-user.target.wants/podjail-testvm-net.service"

# --- the boot runner: runs /mnt/host/runner.sh once, then powers off whatever happens
cat >"$R/usr/local/sbin/podjail-testvm-boot" <<'EOF'
#!/bin/bash
# Started by podjail-testvm.service. The host puts the script to run at /mnt/host/runner.sh.
mountpoint -q /mnt/host || mount /mnt/host || {
	echo "podjail-testvm: the 9p share /mnt/host is not there" >/dev/console
	exit 1
}
mkdir -p /mnt/host/out
echo "BOOT_TO_RUNNER uptime=$(cut -d' ' -f1 /proc/uptime)" >/mnt/host/out/boot.txt
echo "podjail-testvm: runner starting at uptime $(cut -d' ' -f1 /proc/uptime)" >/dev/console
cd /
/bin/bash /mnt/host/runner.sh >/mnt/host/out/guest.log 2>&1
rc=$?
echo "podjail-testvm: runner exited rc=$rc at uptime $(cut -d' ' -f1 /proc/uptime)" >/dev/console
sync
exit $rc
EOF
chmod 755 "$R/usr/local/sbin/podjail-testvm-boot"
cat >"$sys/podjail-testvm.service" <<'EOF'
[Unit]
Description=podjail test VM: run /mnt/host/runner.sh, then power off
Wants=mnt-host.mount
After=multi-user.target dbus.service systemd-logind.service mnt-host.mount
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/podjail-testvm-boot
TimeoutStartSec=infinity
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$sys/multi-user.target.wants"
ln -sfn /etc/systemd/system/podjail-testvm.service "$sys/multi-user.target.wants/podjail-testvm.service"

# --- smaller image
rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/cache/apt/*.bin "$R"/var/lib/apt/lists/* "$R/debootstrap"
