#!/bin/bash
# Builds podjail's RPMs from the checkout (contrib/rpm/podjail.spec) into OUT/rpm, checks
# their file lists and scriptlets, and unpacks the main package's payload into
# OUT/rpm/root (the VM suite judges from that installed layout: TestInstalledFromRPM).
#
#   bash hack/rpm.sh [OUT]        (OUT defaults to _out)
#
# Needs rpmbuild, rpm2cpio and cpio, and a policy's development Makefile for the SELinux
# module (/usr/share/selinux/devel/Makefile: Fedora's selinux-policy-devel, Debian's
# selinux-policy-dev); as root on Debian it installs them. rpmbuild runs with --nodeps:
# on a host that is not Fedora the BuildRequires name Fedora's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mkdir -p "${1:-_out}" && cd "${1:-_out}" && pwd)/rpm
need=()
command -v rpmbuild >/dev/null || need+=(rpm)
command -v rpm2cpio >/dev/null || need+=(rpm2cpio)
command -v cpio >/dev/null || need+=(cpio)
command -v bzip2 >/dev/null || need+=(bzip2)
command -v man >/dev/null || need+=(man-db)
[ -f /usr/share/selinux/devel/Makefile ] || need+=(selinux-policy-dev)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
	else
		echo "rpm.sh: missing ${need[*]}: install them (Fedora: dnf install rpm-build selinux-policy-devel)" >&2
		exit 2
	fi
fi

# A version RPM accepts: the last tag if any, else 0.0.0, with the commit after a caret
# (sorts after the tag, before the next one).
tag=$(git describe --tags --abbrev=0 2>/dev/null || echo 0.0.0)
version="${tag#v}^g$(git rev-parse --short HEAD)"
version=${version//-/_}
rm -rf "$out" && mkdir -p "$out/SOURCES"
# The tracked files as they are now (uncommitted changes included), as git archive gives them.
tree=$(git stash create 2>/dev/null || true)
git archive --format=tar.gz --prefix="podjail-$version/" -o "$out/SOURCES/podjail-$version.tar.gz" "${tree:-HEAD}"
# systemd's scriptlet macros, or stand-ins where rpm has none (Debian's).
load=()
[ -n "$(rpm --eval '%{?systemd_post:1}')" ] || load=(--load contrib/rpm/macros.systemd-standin)
t0=$(date +%s)
rpmbuild "${load[@]}" -bb --nodeps --define "_topdir $out" --define "podjail_version $version" \
	contrib/rpm/podjail.spec >"$out/rpmbuild.log" 2>&1 || {
	tail -n 40 "$out/rpmbuild.log" >&2
	echo "rpm.sh: rpmbuild failed (whole log: $out/rpmbuild.log)" >&2
	exit 1
}
main=$(ls "$out"/RPMS/x86_64/podjail-[0-9]*.rpm)
selinux=$(ls "$out"/RPMS/noarch/podjail-selinux-*.rpm)
echo "rpm.sh: built $(basename "$main") and $(basename "$selinux") in $(($(date +%s) - t0)) s"

# What each package must hold, and what its scriptlets must do.
fail=0
want() { # PACKAGE PATH...
	local pkg=$1 list
	shift
	list=$(rpm -qlp "$pkg" 2>/dev/null)
	for p in "$@"; do
		grep -qx "$p" <<<"$list" || {
			echo "rpm.sh: $(basename "$pkg") lacks $p" >&2
			fail=1
		}
	done
}
want "$main" /usr/bin/podjail /usr/libexec/podjail/podjail-shim /usr/libexec/podjail/podjail-plugin \
	/usr/lib/systemd/system/podjail.service /usr/lib/systemd/system/podjail.socket \
	/usr/lib/systemd/user/podjail.service /usr/lib/systemd/user/podjail.socket \
	/usr/share/podjail/quadlet/podjail.container /usr/share/podjail/images/gcc.Containerfile \
	/usr/share/bash-completion/completions/podjail /usr/share/zsh/site-functions/_podjail \
	/usr/share/fish/vendor_completions.d/podjail.fish
# A man page per command, compressed or not as the host's rpm does.
for page in podjail podjail-run podjail-judge podjail-verify podjail-omegajail podjail-isolate podjail-doctor podjail-bench \
	podjail-serve podjail-health podjail-version podjail-completion; do
	rpm -qlp "$main" 2>/dev/null | grep -E "^/usr/share/man/man1/$page\.1(\.gz)?\$" >/dev/null || {
		echo "rpm.sh: $(basename "$main") lacks the man page $page.1" >&2
		fail=1
	}
done
# Fedora's docdir is unversioned, Debian's rpm versions it.
for pkg in "$main" "$selinux"; do
	rpm -qlp "$pkg" 2>/dev/null | grep -E '^/usr/share/licenses/podjail(-[^/]+)?/LICENSE$' >/dev/null || {
		echo "rpm.sh: $(basename "$pkg") lacks the LICENSE in its licensedir" >&2
		fail=1
	}
done
rpm -qlp "$main" 2>/dev/null | grep -E '^/usr/share/doc/podjail(-[^/]+)?/README.md$' >/dev/null || {
	echo "rpm.sh: $(basename "$main") lacks the README in its docdir" >&2
	fail=1
}
want "$selinux" /usr/share/selinux/packages/targeted/podjail.pp.bz2
scripts=$(rpm -qp --scripts "$selinux" 2>/dev/null)
for w in "semodule -s targeted -X 200 -i /usr/share/selinux/packages/targeted/podjail.pp.bz2" \
	"setsebool -P container_manage_cgroup on" "restorecon -F /usr/bin/podjail /usr/libexec/podjail/podjail-shim /usr/libexec/podjail/podjail-plugin" \
	"semodule -s targeted -X 200 -r podjail"; do
	grep -qF "$w" <<<"$scripts" || {
		echo "rpm.sh: podjail-selinux's scriptlets lack: $w" >&2
		fail=1
	}
done
# Its units' scriptlets (systemd's macros or rpm.sh's stand-ins): each step
# names the units.
scripts=$(rpm -qp --scripts "$main" 2>/dev/null)
for step in postinstall preuninstall postuninstall; do
	awk -v s="$step" '/^[a-z]+ (scriptlet|program)/ { on = ($1 == s) } on' <<<"$scripts" | grep -q 'podjail\.service' || {
		echo "rpm.sh: podjail's $step scriptlet does not name its units" >&2
		fail=1
	}
done
if grep -q '/usr/local' <(rpm2cpio "$main" | cpio -i --to-stdout --quiet './usr/lib/systemd/system/podjail.service'); then
	echo "rpm.sh: the packaged podjail.service still runs /usr/local/bin/podjail" >&2
	fail=1
fi
[ $fail = 0 ] || exit 1

rm -rf "$out/root" "$out/selinux-root"
mkdir -p "$out/root" "$out/selinux-root"
(cd "$out/root" && rpm2cpio "$main" | cpio -idm --quiet)
# podjail-selinux's payload and scriptlets, for the Fedora SELinux pass
# (TestSELinuxRPMScriptlets runs them there as rpm would).
(cd "$out/selinux-root" && rpm2cpio "$selinux" | cpio -idm --quiet)
rpm -qp --scripts "$selinux" >"$out/selinux.scripts" 2>/dev/null
# man finds and renders a command's page where the package put it.
MANPATH=$out/root/usr/share/man man -P cat podjail-judge 2>&1 | grep -q 'podjail judge \[flags\] PROBLEM_DIR SOURCE' || {
	echo "rpm.sh: man podjail-judge does not show judge's usage from the package's man pages" >&2
	exit 1
}
echo "rpm.sh: file lists and scriptlets as expected; payloads unpacked in $out/root and $out/selinux-root"
