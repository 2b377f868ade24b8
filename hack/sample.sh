#!/bin/bash
# Runs the samples end to end through a podjail service: starts `podjail
# serve` on a private socket, judges the A+B example (C, with a checker) and
# the interactive guessing game with `podjail judge --service`, then stops
# the service (SIGTERM: it drains and removes everything it made). On a host
# that passes `podjail doctor` it runs here; on one that does not (like a
# hybrid-cgroup development machine) it runs inside the project's test VM,
# rootful and rootless.
set -euo pipefail
cd "$(dirname "$0")/.."
podjail=_out/bin/podjail
image=localhost/podjail-gcc:latest
samples=(
  "examples/problems/aplusb examples/problems/aplusb/solutions/accepted.c"
  "examples/problems/guess examples/problems/guess/solutions/accepted.c"
)

# judge_through_service PODJAIL: the whole sample with one service. Printed
# as a function so that the VM's guest script can run the same text.
judge_through_service() {
  local podjail=$1 dir sock pid rc=0
  dir=$(mktemp -d)
  sock=$dir/podjail.sock
  "$podjail" serve --listen "$sock" 2>"$dir/serve.log" &
  pid=$!
  for _ in $(seq 600); do
    [ -S "$sock" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$dir/serve.log" >&2; return 1; }
    sleep 0.1
  done
  [ -S "$sock" ] || { echo "podjail serve did not listen within 60 s" >&2; kill "$pid"; return 1; }
  echo "== podjail serve --listen $sock (pid $pid)"
  for s in "${samples[@]}"; do
    echo "== podjail judge --service $sock $s"
    # shellcheck disable=SC2086 # two words: problem and source
    "$podjail" judge --service "$sock" $s || rc=$?
  done
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  echo "== the service stopped; its log:"
  cat "$dir/serve.log"
  rm -rf "$dir"
  return "$rc"
}

if "$podjail" doctor >/dev/null 2>&1; then
  if ! podman image exists "$image"; then
    podman build -t "$image" -f contrib/images/gcc.Containerfile .
  fi
  "$podjail" doctor
  judge_through_service "$podjail"
  exit 0
fi

echo "this host is not fit for podjail (see \`$podjail doctor\`): running the samples in the test VM"
echo "(the first run builds the VM image: about 7 minutes, needs root; then each run boots the VM, about 2-3 minutes)"
payload=$(mktemp -d)
trap 'rm -rf "$payload"' EXIT
mkdir -p "$payload/bin"
cp "$podjail" _out/bin/podjail-shim "$payload/bin/"
cp -r examples "$payload/examples"
{
  echo '#!/bin/bash'
  echo 'set -e'
  echo 'cd "$(dirname "$0")"'
  declare -p samples
  declare -f judge_through_service
  echo "echo '== podjail doctor (root)'; bin/podjail doctor"
  echo "echo '== root'; judge_through_service bin/podjail"
  echo "echo '== rootless (user tester)'; as-tester bash -c \"\$(declare -p samples; declare -f judge_through_service); judge_through_service bin/podjail\""
} > "$payload/guest.sh"
bash hack/testvm/run.sh "$payload"
