#!/bin/bash
# Build Fedora 41's targeted policy with container-selinux's container module, from the
# two upstream tarballs, the way Fedora's selinux-policy package does, and stage what its
# package would install.
#
#   bash policy.sh SRC_DIR OUT_DIR
#
# SRC_DIR holds selinux-policy-41.24.tar.gz, container-selinux-2.234.2.tar.gz and their
# SHA256SUMS (../shared/selinux-fedora). OUT_DIR gets:
#   stage/   make install install-appconfig install-headers DESTDIR=stage
#            (/etc/selinux/targeted, /usr/share/selinux/targeted/{*.pp,include/})
#   extra/   what Fedora's packages install beside it: booleans.subs_dist,
#            file_contexts.subs_dist (selinux-policy), container_u, container_contexts
#            (container-selinux)
#   *.log    the build's logs; build-times.txt
# Needs checkpolicy (checkmodule), semodule-utils (semodule_package, semodule_link,
# semodule_expand), m4, python3, gawk. build-fedora-selinux.sh calls it and caches OUT_DIR.
set -euo pipefail
# The system's tools (Debian's checkpolicy, python3), not a user's (a pyenv shim costs
# ~1 s per call, and the build calls python hundreds of times).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
src=${1:?usage: policy.sh SRC_DIR OUT_DIR}
out=${2:?usage: policy.sh SRC_DIR OUT_DIR}
pv=41.24 cv=2.234.2
step() { echo "== fedora policy $(date +%T) $*"; }
timed() { # timed LABEL CMD...
	local label=$1 t0 rc=0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	echo "$label $(($(date +%s) - t0))s" | tee -a "$out/build-times.txt"
	return $rc
}
mk() { # mk LOG TARGET...: make in the policy tree, its output in LOG (tail shown on failure)
	local log=$out/$1
	shift
	make -C "$P" "$@" >"$log" 2>&1 || {
		tail -n 40 "$log"
		echo "fedora policy: make $* failed (log: $log)"
		return 1
	}
}

(cd "$src" && sha256sum -c --quiet SHA256SUMS) || {
	echo "fedora policy: the tarballs in $src do not match their SHA256SUMS"
	exit 1
}
mkdir -p "$out"
: >"$out/build-times.txt"
t_all=$(date +%s)
step "unpack into $out/src"
rm -rf "$out/src" "$out/stage" "$out/extra"
mkdir -p "$out/src"
tar -xzf "$src/selinux-policy-$pv.tar.gz" -C "$out/src"
tar -xzf "$src/container-selinux-$cv.tar.gz" -C "$out/src"
P=$out/src/selinux-policy-$pv
C=$out/src/container-selinux-$cv

# As Fedora's package: container-selinux's module goes into the policy's contrib layer
# (domain.te calls container_spc_stream_connect: the base does not compile without
# container.if).
cp "$C"/container.{te,if,fc} "$P/policy/modules/contrib/"
# Fedora's spec builds targeted with NAME=targeted TYPE=mcs DISTRO=redhat UBAC=n
# UNK_PERMS=allow DIRECT_INITRC=n MONOLITHIC=n, MLS_CATS=MCS_CATS=1024. Set in build.conf,
# so install-headers writes the same into the headers' build.conf.
sed -i -e 's/^TYPE = .*/TYPE = mcs/' -e 's/^NAME = .*/NAME = targeted/' \
	-e 's/^DISTRO = .*/DISTRO = redhat/' -e 's/^MONOLITHIC = .*/MONOLITHIC = n/' \
	-e 's/^UBAC = .*/UBAC = n/' -e 's/^DIRECT_INITRC = .*/DIRECT_INITRC = n/' \
	-e 's/^QUIET = .*/QUIET = y/' "$P/build.conf"
echo 'UNK_PERMS = allow' >>"$P/build.conf"
for kv in 'TYPE = mcs' 'NAME = targeted' 'DISTRO = redhat' 'MONOLITHIC = n' 'UBAC = n'; do
	grep -qx "$kv" "$P/build.conf" || {
		echo "fedora policy: build.conf lacks '$kv'"
		exit 1
	}
done

step "make conf; Fedora's targeted modules.conf, booleans.conf, users"
mk conf.log conf
# Fedora's spec copies its targeted lists over the generated ones after make conf.
for f in modules.conf booleans.conf users; do # (the tree's policy/users is a link to it)
	[ "$P/dist/targeted/$f" -ef "$P/policy/$f" ] || cp "$P/dist/targeted/$f" "$P/policy/$f"
done
# The tree's list predates container being carried in it: Fedora's spec adds it.
grep -q '^container ' "$P/policy/modules.conf" || echo 'container = module' >>"$P/policy/modules.conf"

step "make base.pp (~3 min)"
timed base.pp mk base.log base.pp
step "make modules (~6 min)"
timed modules mk modules.log -j2 modules
[ -s "$P/container.pp" ] || {
	echo "fedora policy: no container.pp built"
	exit 1
}
step "make install install-appconfig install-headers DESTDIR=stage"
timed install mk install.log install install-appconfig install-headers DESTDIR="$out/stage"
[ -s "$out/stage/usr/share/selinux/targeted/include/Makefile" ] || {
	echo "fedora policy: install-headers left no devel Makefile"
	exit 1
}
mkdir -p "$out/extra"
cp "$P/dist/booleans.subs_dist" "$P/config/file_contexts.subs_dist" "$out/extra/"
cp "$C/container_u" "$C/container_contexts" "$out/extra/"
ls "$out/stage/usr/share/selinux/targeted/" | grep -c '\.pp$' | sed 's/^/modules staged: /' | tee "$out/modules.txt"
rm -rf "$out/src"
echo "total $(($(date +%s) - t_all))s" | tee -a "$out/build-times.txt"
