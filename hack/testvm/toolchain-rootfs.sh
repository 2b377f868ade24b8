#!/bin/bash
# Make the rootfs tar of a toolchain container image: debootstrap --variant=minbase of
# Debian trixie plus the packages in packages-NAME.txt, as a plain tar that
# `podman import` takes. Run as root by build.sh (which caches the result).
#
# If fetch-NAME.txt exists, each of its lines (URL SHA256 PATH) is downloaded on the host,
# checked and put at PATH in the rootfs: what Debian does not package.
# If prepare-NAME.sh exists, it then runs in the rootfs (chroot, /proc mounted), for work
# the packages do not do, like compiling a standard library ahead.
#
# usage: toolchain-rootfs.sh NAME OUT.tar
# env:   PODJAIL_TESTVM_MIRROR (default http://deb.debian.org/debian)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: toolchain-rootfs.sh NAME OUT.tar}
out=${2:?usage: toolchain-rootfs.sh NAME OUT.tar}
mirror=${PODJAIL_TESTVM_MIRROR:-http://deb.debian.org/debian}
suite=trixie

pkgs=$(sed 's/#.*//' "$here/packages-$name.txt" | xargs | tr ' ' ',')
[ -n "$pkgs" ] || { echo "toolchain-rootfs: no packages in packages-$name.txt" >&2; exit 1; }

work=$(mktemp -d "$(dirname "$out")/.build-$name.XXXXXX")
cleanup() {
	# debootstrap mounts proc/sys (and may bind /dev) inside the target: never rm across them
	findmnt -rn -o TARGET | awk -v p="$work/" 'index($0, p) == 1' | sort -r |
		while read -r m; do umount -l "$m" || true; done
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT

root=$work/rootfs
debootstrap --variant=minbase --include="$pkgs" "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
	tail -n 30 "$work/debootstrap.log" >&2
	echo "toolchain-rootfs: debootstrap of $name failed" >&2
	exit 1
}

if [ -f "$here/fetch-$name.txt" ]; then
	sed 's/#.*//' "$here/fetch-$name.txt" | while read -r url sum dest; do
		[ -n "$url" ] || continue
		mkdir -p "$root$(dirname "$dest")"
		curl -fsSL --retry 3 -o "$root$dest" "$url" || { echo "toolchain-rootfs: cannot fetch $url" >&2; exit 1; }
		echo "$sum  $root$dest" | sha256sum -c --quiet - || { echo "toolchain-rootfs: $url: not the sha256 fetch-$name.txt names" >&2; exit 1; }
	done
fi

if [ -f "$here/prepare-$name.sh" ]; then
	mount -t proc proc "$root/proc"
	chroot "$root" /bin/sh -s <"$here/prepare-$name.sh" >"$work/prepare.log" 2>&1 || {
		tail -n 30 "$work/prepare.log" >&2
		echo "toolchain-rootfs: prepare-$name.sh failed" >&2
		exit 1
	}
	umount "$root/proc"
fi

# A container gets /dev, /proc, /sys from the runtime; apt's lists and caches, documentation
# (but the copyright files) and translations are dead weight, and every MB costs import time
# in the provisioning boot.
rm -rf "${root:?}"/dev/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
	"$root"/var/cache/apt/archives/*.deb "$root"/var/log/* "$root"/tmp/* "$root"/var/tmp/* \
	"$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
find "$root/usr/share/doc" -type f ! -name copyright -delete
rm -rf "$root/debootstrap"

tar --numeric-owner -C "$root" -cf "$work/image.tar" .
chmod 644 "$work/image.tar"
mv -f "$work/image.tar" "$out"
