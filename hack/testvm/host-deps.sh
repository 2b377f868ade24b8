#!/bin/bash
# Installs what the test VM needs on the host (qemu to boot it; debootstrap,
# e2fsprogs and flock to build its image) when something is missing: with
# apt-get on Debian/Ubuntu, dnf on Fedora/RHEL. As root it installs; as
# anyone else it prints the one command that does, and fails if qemu itself
# is missing.
#
#   bash hack/testvm/host-deps.sh
set -euo pipefail

tools=(qemu-system-x86_64 debootstrap mkfs.ext4 e2fsck flock)
packages=(qemu-system-x86 debootstrap e2fsprogs util-linux)

missing=()
for t in "${tools[@]}"; do
	command -v "$t" >/dev/null || missing+=("$t")
done
[ ${#missing[@]} = 0 ] && exit 0

if command -v apt-get >/dev/null; then
	install=(apt-get install -y --no-install-recommends "${packages[@]}")
elif command -v dnf >/dev/null; then
	install=(dnf install -y "${packages[@]}")
else
	echo "testvm: missing ${missing[*]}; install the packages ${packages[*]} with this system's package manager" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "testvm: missing ${missing[*]}; install them with: sudo ${install[*]}" >&2
	# Only qemu is needed to boot a cached image; build.sh says when it
	# must build (as root).
	command -v qemu-system-x86_64 >/dev/null || exit 1
	exit 0
fi
echo "testvm: installing ${packages[*]} (missing ${missing[*]})"
if [ "${install[0]}" = apt-get ]; then
	DEBIAN_FRONTEND=noninteractive apt-get update -q
fi
"${install[@]}"
