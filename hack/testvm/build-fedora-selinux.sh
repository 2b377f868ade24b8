#!/bin/bash
# Print the directory of a test-VM image with Fedora 41's targeted SELinux policy (and
# container-selinux's container module) in place of Debian's, set to boot ENFORCING,
# deriving it from build.sh's image first if it is not cached.
#
#   dir=$(bash hack/testvm/build-fedora-selinux.sh)   # progress on stderr; stdout: the directory
#   bash hack/testvm/build-fedora-selinux.sh --policy  # only the policy (cached), which needs
#                                                     # no base image: make test builds it
#                                                     # while build.sh builds that image
#
# The directory ($PODJAIL_TESTVM_CACHE/fedora-selinux-<hash>) holds disk.img, vmlinuz,
# initrd.img (run.sh boots it with PODJAIL_TESTVM_IMAGE=<dir>) and build records. <hash>
# covers the base image's hash, the two source tarballs (their SHA256SUMS), this script and
# fedora-selinux/ (the policy build and the local fixes). The policy build (~10 min) is cached
# on its own, $PODJAIL_TESTVM_CACHE/fedora-policy-<hash of SHA256SUMS + policy.sh>, so a
# changed fix only re-derives the image (~1-2 min). Both are built in a temporary directory
# and renamed into place when complete. See README.md, "The Fedora SELinux pass".
#
# env: PODJAIL_TESTVM_CACHE          cache root (default /var/cache/podjail-testvm)
#      PODJAIL_SELINUX_FEDORA_SRC    the tarballs and SHA256SUMS (default ../shared/selinux-fedora
#                                    beside the repository)
# Building needs root (losetup, mount, chroot) and checkpolicy, semodule-utils, m4, python3
# (installed with apt-get when missing); a cached lookup does not.
set -euo pipefail
exec 3>&1 1>&2

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache_root=${PODJAIL_TESTVM_CACHE:-/var/cache/podjail-testvm}
src=${PODJAIL_SELINUX_FEDORA_SRC:-$repo/../shared/selinux-fedora}
fs=$here/fedora-selinux

step() { echo "== fedora-selinux build $(date +%T) $*"; }
die() {
	echo "fedora-selinux build: $*"
	exit 1
}
is_ready() { [ -f "$1/ready" ] && [ -s "$1/disk.img" ] && [ -s "$1/vmlinuz" ] && [ -s "$1/initrd.img" ]; }
[ -f "$src/SHA256SUMS" ] || die "no $src/SHA256SUMS: set PODJAIL_SELINUX_FEDORA_SRC to the directory of Fedora's policy tarballs"
src=$(cd "$src" && pwd)

policy_only=0 base_hash=
[ "${1:-}" = --policy ] && policy_only=1
hash16() { sha256sum | cut -c1-16; }
policy_key=$( (cat "$src/SHA256SUMS" "$fs/policy.sh") | hash16)
policy=$cache_root/fedora-policy-$policy_key
if [ $policy_only = 1 ] && [ -f "$policy/ready" ]; then
	echo "$policy" >&3
	exit 0
fi
if [ $policy_only = 0 ]; then
	base=$(bash "$here/build.sh" | tail -n1)
	is_ready "$base" || die "build.sh gave no image"
	base_hash=$(basename "$base")
fi
image_key=$( (echo "base $base_hash" && cat "$src/SHA256SUMS" "$here/build-fedora-selinux.sh" &&
	cd "$fs" && sha256sum $(ls | sort)) | hash16)
dir=$cache_root/fedora-selinux-$image_key
if [ $policy_only = 0 ] && is_ready "$dir"; then
	echo "$dir" >&3
	exit 0
fi
[ "$(id -u)" = 0 ] || die "fedora-policy-$policy_key or fedora-selinux-$image_key is not in $cache_root; building it needs root: sudo bash $0"

# --- host deps: the policy build's tools
missing=()
for t in checkpolicy:checkpolicy checkmodule:checkpolicy semodule_package:semodule-utils \
	semodule_link:semodule-utils semodule_expand:semodule-utils m4:m4 /usr/bin/python3:python3 gawk:gawk; do
	command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
	if command -v apt-get >/dev/null; then
		step "apt-get install ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install ${missing[*]} failed"
	else
		die "missing ${missing[*]}: install checkpolicy, semodule-utils, m4, python3, gawk"
	fi
fi

# --- the policy, cached on its own
exec 9>"$cache_root/.lock-fedora-policy-$policy_key"
flock 9
if [ ! -f "$policy/ready" ]; then
	for stale in "$cache_root/.build-fedora-policy-$policy_key".*; do rm -rf "$stale"; done
	ptmp=$(mktemp -d "$cache_root/.build-fedora-policy-$policy_key.XXXXXX")
	step "building the policy in $ptmp (base ~3 min, modules ~6 min)"
	bash "$fs/policy.sh" "$src" "$ptmp" || {
		rm -rf "$ptmp"
		die "the policy build failed"
	}
	touch "$ptmp/ready"
	chmod 755 "$ptmp"
	rm -rf "$policy"
	mv -T "$ptmp" "$policy"
fi
step "policy: $policy ($(sed -n 's/^total //p' "$policy/build-times.txt") to build)"
exec 9>&-
if [ $policy_only = 1 ]; then
	echo "$policy" >&3
	exit 0
fi

# --- the image: a sparse copy of the base image, the policy installed and the files labelled
exec 9>"$cache_root/.lock-fedora-selinux-$image_key"
flock 9
if is_ready "$dir"; then
	echo "$dir" >&3
	exit 0
fi
for stale in "$cache_root/.build-fedora-selinux-$image_key".*; do rm -rf "$stale"; done
tmp=$(mktemp -d "$cache_root/.build-fedora-selinux-$image_key.XXXXXX")
M=$tmp/mnt
L=
cleanup() {
	for d in dev/pts dev sys proc; do mountpoint -q "$M/$d" && umount "$M/$d"; done
	mountpoint -q "$M" && umount "$M"
	[ -z "$L" ] || losetup -d "$L" 2>/dev/null || true
	L=
}
trap 'cleanup; rm -rf "$tmp"' EXIT
t0=$(date +%s)
step "deriving fedora-selinux-$image_key from $base_hash in $tmp"
cp --sparse=always "$base/disk.img" "$tmp/disk.img"
cp "$base/vmlinuz" "$base/initrd.img" "$base/kernel-version" "$tmp/"
mkdir -p "$M"
L=$(losetup -f --show "$tmp/disk.img")
mount "$L" "$M"
for d in proc sys dev; do mount --bind "/$d" "$M/$d"; done
in_image() { chroot "$M" "$@"; }

step "install the staged policy as /etc/selinux/targeted"
rm -rf "$M/etc/selinux/targeted" "$M/usr/share/selinux/targeted"
cp -a "$policy/stage/etc/selinux/targeted" "$M/etc/selinux/"
mkdir -p "$M/usr/share/selinux"
cp -a "$policy/stage/usr/share/selinux/targeted" "$M/usr/share/selinux/"
cp "$policy/extra/booleans.subs_dist" "$M/etc/selinux/targeted/booleans.subs_dist"
mkdir -p "$M/etc/selinux/targeted/contexts/files"
cp "$policy/extra/file_contexts.subs_dist" "$M/etc/selinux/targeted/contexts/files/"
# Fedora's mcstrans names (setrans.conf from its package; no mcstransd runs here)
printf 's0=SystemLow\ns0-s0:c0.c1023=SystemLow-SystemHigh\ns0:c0.c1023=SystemHigh\n' >"$M/etc/selinux/targeted/setrans.conf"
# container-selinux's package installs these: the container_u user's contexts, and the
# contexts file Podman reads (containers/selinux: /usr/share/containers/selinux/contexts)
mkdir -p "$M/etc/selinux/targeted/contexts/users" "$M/usr/share/containers/selinux"
cp "$policy/extra/container_u" "$M/etc/selinux/targeted/contexts/users/container_u"
cp "$policy/extra/container_contexts" "$M/usr/share/containers/selinux/contexts"

step "semodule -s targeted -n -X 100 -i (all modules; trixie's libsemanage, in a chroot)"
in_image sh -c 'semodule -s targeted -n -X 100 -i /usr/share/selinux/targeted/*.pp'
# container-selinux's %post turns these on; container_manage_cgroup is the one
# contrib/selinux needs (the guest sets it again as its README tells an operator).
for b in container_manage_cgroup virt_sandbox_use_all_caps virt_use_nfs; do
	in_image semanage boolean -S targeted -N -m --on "$b"
done
# container-selinux's %post: a relabel keeps container_file_t where Podman put it
grep -qx container_file_t "$M/etc/selinux/targeted/contexts/customizable_types" ||
	echo container_file_t >>"$M/etc/selinux/targeted/contexts/customizable_types"

step "local fixes: local_trixie.cil, file-context equivalences (README.md lists them)"
cp "$fs/local_trixie.cil" "$M/tmp/local_trixie.cil"
in_image semodule -s targeted -n -i /tmp/local_trixie.cil
rm -f "$M/tmp/local_trixie.cil"
# Debian keeps netavark, aardvark-dns and netavark-dhcp-proxy-client in /usr/lib/podman
# (lib_t here), Fedora in /usr/libexec/podman (bin_t): label them as Fedora's. Without it
# netavark-dhcp-proxy.service runs as init_t instead of unconfined_service_t. conmon
# (/usr/bin/conmon), crun (/usr/bin/crun), podman, rootlessport and quadlet
# (/usr/libexec/podman) are where Fedora has them; catatonit is /usr/bin/catatonit (bin_t,
# as Fedora's /usr/libexec/catatonit/catatonit), linked from /usr/libexec/podman/catatonit.
in_image semanage fcontext -S targeted -N -a -e /usr/libexec/podman /usr/lib/podman
in_image semodule -s targeted -l | grep -qx container || die "the container module is not installed"
in_image semodule -s targeted -l | grep -qx local_trixie || die "local_trixie is not installed"

step "development headers: Fedora's devel Makefile at /usr/share/selinux/devel, as on Fedora"
# install-headers put the headers and their Makefile in /usr/share/selinux/targeted/include.
# Fedora's selinux-policy-devel gives operators /usr/share/selinux/devel/Makefile, which
# contrib/selinux/README.md uses; here that path held Debian's refpolicy headers
# (selinux-policy-dev), which do not build against this policy: moved aside.
if [ -e "$M/usr/share/selinux/devel" ]; then
	rm -rf "$M/usr/share/selinux/devel.refpolicy"
	mv "$M/usr/share/selinux/devel" "$M/usr/share/selinux/devel.refpolicy"
fi
mkdir -p "$M/usr/share/selinux/devel"
ln -s ../targeted/include "$M/usr/share/selinux/devel/include"
# the headers' own Makefile, its HEADERDIR made this directory's include/ (it would find
# /usr/share/selinux/targeted/include from SELINUXTYPE anyway)
sed 's|^HEADERDIR ?= .*|HEADERDIR ?= $(SHAREDIR)/devel/include|' \
	"$M/usr/share/selinux/targeted/include/Makefile" >"$M/usr/share/selinux/devel/Makefile"
grep -q 'HEADERDIR ?= $(SHAREDIR)/devel/include' "$M/usr/share/selinux/devel/Makefile" ||
	die "the devel Makefile has no HEADERDIR line to set"

step "config: SELINUX=enforcing SELINUXTYPE=targeted; setfiles with targeted's file_contexts"
printf 'SELINUX=enforcing\nSELINUXTYPE=targeted\n' >"$M/etc/selinux/config"
rm -f "$M/.autorelabel"
in_image setfiles -F -e /proc -e /sys -e /dev -e /mnt /etc/selinux/targeted/contexts/files/file_contexts /
labels=$(cd "$M" && for f in usr/bin/podman usr/bin/conmon usr/bin/crun usr/lib/systemd/systemd usr/lib/podman/netavark usr/bin/catatonit; do
	printf '%s %s\n' "/$f" "$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "security.selinux").rstrip(b"\0").decode())' "$f" 2>&1)"
done)
echo "$labels" | tee "$tmp/labels.txt"
for want in '/usr/bin/podman system_u:object_r:container_runtime_exec_t:s0' \
	'/usr/bin/conmon system_u:object_r:conmon_exec_t:s0' \
	'/usr/bin/crun system_u:object_r:container_runtime_exec_t:s0' \
	'/usr/lib/systemd/systemd system_u:object_r:init_exec_t:s0' \
	'/usr/lib/podman/netavark system_u:object_r:bin_t:s0'; do
	grep -qx "$want" <<<"$labels" || die "after setfiles, want $want"
done
in_image semodule -s targeted -l >"$tmp/modules.txt"
in_image semanage fcontext -S targeted -l -C >"$tmp/fcontext-local.txt" 2>&1 || true
in_image semanage boolean -S targeted -l -C >"$tmp/booleans-local.txt" 2>&1 || true
cleanup
trap 'rm -rf "$tmp"' EXIT

echo "derive $(($(date +%s) - t0))s" >"$tmp/build-times.txt"
cat "$policy/build-times.txt" | sed 's/^/policy /' >>"$tmp/build-times.txt"
echo "base $base_hash" >"$tmp/base.txt"
echo "$policy" >"$tmp/policy.txt"
chmod 755 "$tmp"
chmod 644 "$tmp"/*.txt "$tmp/disk.img" "$tmp/vmlinuz" "$tmp/initrd.img" "$tmp/kernel-version"
rmdir "$M"
touch "$tmp/ready"
rm -rf "$dir"
mv -T "$tmp" "$dir"
trap - EXIT
step "image ready: $dir (derived in $(($(date +%s) - t0))s)"
# Fedora images of other inputs are stale (8-9 GB each): removed, as build.sh removes older
# images, unless PODJAIL_TESTVM_KEEP_OLD=1.
if [ "${PODJAIL_TESTVM_KEEP_OLD:-0}" != 1 ]; then
	for old in "$cache_root"/fedora-selinux-*; do
		[ -d "$old" ] && [ "$old" != "$dir" ] && step "removing $old" && rm -rf --one-file-system "$old"
	done
fi
echo "$dir" >&3
