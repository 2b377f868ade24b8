#!/bin/bash
# Import the toolchain images into root's and tester's Podman storage of a configured
# rootfs, at the build machine's own speed (under the VM's emulation one import of the
# gcc image took 8 minutes; here it takes seconds). The guest's own podman does the work,
# run inside the rootfs with the rootfs as its root: a mount and pid namespace whose root
# is the rootfs by pivot_root, not chroot, because rootless podman needs a user namespace
# and a chrooted process may not make one. Paths are the guest's (/run/user/1000 as the
# rootless runtime directory), so the stores are exactly what the guest's podman expects.
#
# usage: import-native.sh ROOTFS NAME[+TAG...]=TAR...
#   (as root; imports localhost/podjail-NAME:latest and tags it localhost/podjail-TAG:latest)
set -euo pipefail
rootfs=$(cd "${1:?usage: import-native.sh ROOTFS NAME=TAR...}" && pwd)
shift
[ $# -gt 0 ] || { echo "import-native: no images given" >&2; exit 2; }

mkdir -p "$rootfs/var/tmp/podjail-images"
names=()
for spec in "$@"; do
	names+=("${spec%%=*}")
	name=${spec%%[+=]*}
	ln -f "${spec#*=}" "$rootfs/var/tmp/podjail-images/$name.tar" 2>/dev/null ||
		cp "${spec#*=}" "$rootfs/var/tmp/podjail-images/$name.tar"
done

# Inside: the new root gets its own /proc, /dev, /run and /tmp; the old root is dropped.
# The pid namespace ends every process left (rootless podman's pause process) with it.
unshare --mount --pid --fork --propagation private bash -s "$rootfs" "${names[@]}" <<'INSIDE'
set -euo pipefail
rootfs=$1
shift
mount --bind "$rootfs" "$rootfs"
mount -t proc proc "$rootfs/proc"
mount --rbind /dev "$rootfs/dev"
mount -t sysfs sysfs "$rootfs/sys"
mount -t tmpfs -o mode=755 tmpfs "$rootfs/run"
mount -t tmpfs -o mode=1777 tmpfs "$rootfs/tmp"
cd "$rootfs"
mkdir -p .oldroot
pivot_root . .oldroot
cd /
umount -l /.oldroot
rmdir /.oldroot
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mkdir -p -m 700 /run/user/1000
chown 1000:1000 /run/user/1000
# No systemd here: cgroupfs and no events; neither is recorded in the stores.
opts=(--cgroup-manager=cgroupfs --events-backend=none)
as_tester() {
	(cd /home/tester && runuser -u tester -- env HOME=/home/tester USER=tester XDG_RUNTIME_DIR=/run/user/1000 "$@")
}
for spec in "$@"; do
	IFS=+ read -r name tags <<<"$spec"
	tar=/var/tmp/podjail-images/$name.tar
	ref=localhost/podjail-$name:latest
	extra=()
	for tag in ${tags//+/ }; do extra+=("localhost/podjail-$tag:latest"); done
	echo "import-native: $ref ${extra[*]} (root)"
	podman "${opts[@]}" import -q --change 'CMD ["/bin/bash"]' "$tar" "$ref" >/dev/null
	[ ${#extra[@]} = 0 ] || podman "${opts[@]}" tag "$ref" "${extra[@]}"
	echo "import-native: $ref ${extra[*]} (tester)"
	as_tester podman "${opts[@]}" import -q --change 'CMD ["/bin/bash"]' "$tar" "$ref" >/dev/null
	[ ${#extra[@]} = 0 ] || as_tester podman "${opts[@]}" tag "$ref" "${extra[@]}"
done
podman "${opts[@]}" images
as_tester podman "${opts[@]}" images
INSIDE
rm -rf "$rootfs/var/tmp/podjail-images"
