#!/bin/bash
# Print the directory of a ready podjail test-VM image, building it first if it is not cached.
#
#   dir=$(bash hack/testvm/build.sh)     # progress goes to stderr; stdout is only the directory
#
# The directory ($PODJAIL_TESTVM_CACHE/<hash>, see README.md) holds disk.img (raw ext4, boot
# it with snapshot=on), vmlinuz, initrd.img, and build records. <hash> covers every file the
# image is made from (IMAGE_INPUTS below); a build runs in a temporary directory that is
# renamed into place only when complete, so a directory with that name is always ready.
#
# env: PODJAIL_TESTVM_CACHE   cache root (default /var/cache/podjail-testvm)
#      PODJAIL_TESTVM_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#      PODJAIL_TESTVM_REBUILD=1  build again even if the cache is ready (new package versions)
# Building needs root (debootstrap, chroot); a cached lookup does not.
set -euo pipefail
exec 3>&1 1>&2 4>&2 # only the result goes to stdout; fd 4: progress even when 1, 2 are redirected

here=$(cd "$(dirname "$0")" && pwd)
cache_root=${PODJAIL_TESTVM_CACHE:-/var/cache/podjail-testvm}
mirror=${PODJAIL_TESTVM_MIRROR:-http://deb.debian.org/debian}
suite=trixie
# sparse; podjail-cms adds about 2 GB to each of the two stores (root, tester)
disk_size=16384M

# Everything the image is made from. run.sh and guest-run.sh are not: they are used at run time.
IMAGE_INPUTS=(build.sh configure-rootfs.sh import-native.sh toolchain-rootfs.sh
	packages-vm.txt packages-gcc.txt packages-python3.txt packages-langs.txt prepare-langs.sh
	packages-cms.txt prepare-cms.sh fetch-cms.txt)
# Toolchain images localhost/podjail-NAME:latest, each from packages-NAME.txt (and
# prepare-NAME.sh when there is one).
TOOLCHAINS=(gcc python3 langs cms)
# Other names an image is tagged with: one image, one import, for several languages.
declare -A TAGS=([langs]="java go rust node" [cms]="judge0")

step() { echo "== testvm build $(date +%T) $*"; }
die() {
	echo "testvm build: $*"
	exit 1
}
inputs_hash() { (cd "$here" && sha256sum "$@") | sha256sum | cut -c1-16; }
pkg_list() { sed 's/#.*//' "$here/$1" | xargs | tr ' ' ','; }
is_ready() { [ -f "$1/ready" ] && [ -s "$1/disk.img" ] && [ -s "$1/vmlinuz" ] && [ -s "$1/initrd.img" ]; }
# Remove a work directory that may still have debootstrap's mounts (proc, sys, maybe /dev) in it.
remove_tree() {
	[ -e "$1" ] || return 0
	findmnt -rn -o TARGET | awk -v p="$1/" 'index($0, p) == 1' | sort -r |
		while read -r m; do umount -l "$m" || true; done
	rm -rf --one-file-system "$1"
}
# prune_old removes, after a new image is built, what only older images used: images of
# other hashes, the Fedora images derived from them (build-fedora-selinux.sh derives anew
# from this one), and toolchain tars this image was not made from and no build holds. Each
# image is 5-9 GB: a machine that builds after every change of the inputs (CI) would fill
# its disk. PODJAIL_TESTVM_KEEP_OLD=1 keeps them.
prune_old() {
	local d keep=" ${tc_tar[*]} "
	[ "${PODJAIL_TESTVM_KEEP_OLD:-0}" = 1 ] && return 0
	for d in "$cache_root"/*; do
		case $(basename "$d") in
		"$hash") ;;
		fedora-selinux-*) step "removing $d (derived from an older image)" && remove_tree "$d" ;;
		*) [[ $(basename "$d") =~ ^[0-9a-f]{16}$ ]] && step "removing older image $d" && remove_tree "$d" ;;
		esac
	done
	for d in "$cache_root"/toolchains/*.tar; do
		[ -f "$d" ] && [[ $keep != *" $d "* ]] || continue
		local lock="$cache_root/toolchains/.lock-$(basename "$d" .tar)"
		# A toolchain another build is making or reading is held under its lock.
		if [ ! -e "$lock" ] || flock -n "$lock" true; then
			step "removing unused toolchain $d" && rm -f "$d" "$lock"
		fi
	done
}
finish() {
	local d others=()
	for d in "$cache_root"/*; do
		[ -d "$d" ] && [ "$d" != "$1" ] && [[ $(basename "$d") =~ ^[0-9a-f]{16}$ ]] && others+=("$d")
	done
	if [ ${#others[@]} -gt 0 ]; then
		echo "testvm build: note: older images are still cached (remove them if unused):"
		du -sh "${others[@]}" | sed 's/^/  /'
	fi
	echo "$1" >&3
	exit 0
}

hash=$(inputs_hash "${IMAGE_INPUTS[@]}")
dir=$cache_root/$hash
if is_ready "$dir" && [ "${PODJAIL_TESTVM_REBUILD:-0}" != 1 ]; then
	finish "$dir"
fi

[ "$(id -u)" = 0 ] || die "image $hash is not in $cache_root; building it needs root: sudo bash $0"
for t in debootstrap mkfs.ext4 e2fsck qemu-system-x86_64 flock; do
	command -v "$t" >/dev/null || die "missing $t (apt-get install debootstrap e2fsprogs qemu-system-x86 util-linux)"
done
mkdir -p "$cache_root/toolchains"
chmod 755 "$cache_root" "$cache_root/toolchains"

exec 9>"$cache_root/.lock-$hash"
if ! flock -n 9; then
	step "waiting for another build of $hash"
	flock 9
	if is_ready "$dir"; then finish "$dir"; fi
fi
for stale in "$cache_root/.build-$hash".*; do remove_tree "$stale"; done

t_start=$(date +%s)
tmp=$(mktemp -d "$cache_root/.build-$hash.XXXXXX")
trap 'remove_tree "$tmp"' EXIT
times=$tmp/build-times.txt
: >"$times"
timed() { # timed LABEL CMD... : run CMD, record its wall time
	local label=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	echo "$label $(($(date +%s) - t0))s" | tee -a "$times" >&4
	return $rc
}
step "building image $hash in $tmp"

# --- toolchain image tars, cached on their own, built in the background meanwhile
declare -A tc_tar tc_pid
for name in "${TOOLCHAINS[@]}"; do
	key=$(inputs_hash toolchain-rootfs.sh "packages-$name.txt" $(for f in prepare-$name.sh fetch-$name.txt; do [ -f "$here/$f" ] && echo "$f"; done))
	tc_tar[$name]=$cache_root/toolchains/$name-$key.tar
	if [ -s "${tc_tar[$name]}" ]; then
		step "toolchain $name: cached ${tc_tar[$name]}"
		continue
	fi
	step "toolchain $name: debootstrap in the background"
	(
		exec 8>"$cache_root/toolchains/.lock-$name-$key"
		flock 8
		[ -s "${tc_tar[$name]}" ] || timed "toolchain-$name" bash "$here/toolchain-rootfs.sh" "$name" "${tc_tar[$name]}"
	) >"$tmp/toolchain-$name.log" 2>&1 3>&- 9>&- &
	tc_pid[$name]=$!
done

# --- the VM's root file system
rootfs=$tmp/rootfs
step "debootstrap $suite (log: $tmp/debootstrap.log)"
timed debootstrap-vm debootstrap --variant=minbase --include="$(pkg_list packages-vm.txt)" \
	"$suite" "$rootfs" "$mirror" >"$tmp/debootstrap.log" 2>&1 || {
	tail -n 30 "$tmp/debootstrap.log"
	die "debootstrap failed"
}
step "configure"
timed configure bash "$here/configure-rootfs.sh" "$rootfs"
# shellcheck disable=SC2016 # dpkg-query's own ${...} fields
chroot "$rootfs" dpkg-query -W -f '${Package} ${Version}\n' >"$tmp/packages-vm.list"

kernels=("$rootfs"/boot/vmlinuz-*)
if [ ${#kernels[@]} != 1 ] || [ ! -e "${kernels[0]}" ]; then die "expected one kernel in $rootfs/boot"; fi
kver=${kernels[0]#"$rootfs"/boot/vmlinuz-}
cp -L "$rootfs/boot/vmlinuz-$kver" "$tmp/vmlinuz"
cp -L "$rootfs/boot/initrd.img-$kver" "$tmp/initrd.img"
echo "$kver" >"$tmp/kernel-version"

# --- wait for the toolchain tars, then import them into root's and tester's storage at
# native speed (import-native.sh; in the emulated guest the imports took ~20 minutes)
specs=()
for name in "${TOOLCHAINS[@]}"; do
	tags=${TAGS[$name]:-}
	specs+=("$name${tags:++${tags// /+}}=${tc_tar[$name]}")
	[ -n "${tc_pid[$name]:-}" ] || continue
	step "waiting for toolchain $name"
	if ! wait "${tc_pid[$name]}" || [ ! -s "${tc_tar[$name]}" ]; then
		tail -n 30 "$tmp/toolchain-$name.log"
		die "toolchain $name failed"
	fi
done
step "import the toolchain images (${TOOLCHAINS[*]})"
timed import bash "$here/import-native.sh" "$rootfs" "${specs[@]}" >"$tmp/images.txt" 2>"$tmp/import.log" || {
	tail -n 30 "$tmp/import.log"
	die "importing the toolchain images failed"
}

step "mkfs.ext4 -d ($disk_size sparse)"
timed mkfs mkfs.ext4 -q -F -L podjail-testvm -E root_owner=0:0 -d "$rootfs" "$tmp/disk.img" "$disk_size"
remove_tree "$rootfs"

# --- records, then publish atomically
(cd "$here" && sha256sum "${IMAGE_INPUTS[@]}") >"$tmp/inputs.sha256"
for name in "${TOOLCHAINS[@]}"; do echo "$name ${tc_tar[$name]}"; done >"$tmp/toolchains.txt"
echo "total $(($(date +%s) - t_start))s" | tee -a "$times" >&4
du -h --apparent-size "$tmp/disk.img" | sed 's/\t.*/ apparent/' >"$tmp/disk-usage.txt"
du -h "$tmp/disk.img" | sed 's/\t.*/ allocated/' >>"$tmp/disk-usage.txt"
chmod 755 "$tmp"
chmod 644 "$tmp"/*
touch "$tmp/ready"
if [ -e "$dir" ]; then
	old=$(mktemp -d "$cache_root/.old-$hash.XXXXXX")
	mv -T "$dir" "$old/img"
	mv -T "$tmp" "$dir"
	rm -rf --one-file-system "$old"
else
	mv -T "$tmp" "$dir"
fi
trap - EXIT
step "image ready: $dir ($(tr '\n' ' ' <"$dir/disk-usage.txt"))"
prune_old
finish "$dir"
