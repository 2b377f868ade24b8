#!/bin/bash
# Runs the samples end to end: judges the A+B example (C, with a checker) and
# the interactive guessing game with podjail judge. On a host that passes
# `podjail doctor` it runs here; on one that does not (like a hybrid-cgroup
# development machine) it runs inside the project's test VM.
set -euo pipefail
cd "$(dirname "$0")/.."
podjail=_out/bin/podjail
image=localhost/podjail-gcc:latest
samples=(
  "examples/problems/aplusb examples/problems/aplusb/solutions/accepted.c"
  "examples/problems/guess examples/problems/guess/solutions/accepted.c"
)

if "$podjail" doctor >/dev/null 2>&1; then
  if ! podman image exists "$image"; then
    podman build -t "$image" -f contrib/images/gcc.Containerfile .
  fi
  "$podjail" doctor
  for s in "${samples[@]}"; do
    # shellcheck disable=SC2086 # two words: problem and source
    "$podjail" judge $s
  done
  exit 0
fi

echo "this host is not fit for podjail (see \`$podjail doctor\`): running the samples in the test VM"
payload=$(mktemp -d)
trap 'rm -rf "$payload"' EXIT
mkdir -p "$payload/bin"
cp "$podjail" _out/bin/podjail-shim "$payload/bin/"
cp -r examples "$payload/examples"
{
  echo '#!/bin/bash'
  echo 'set -e'
  echo 'cd "$(dirname "$0")"'
  echo "echo '== podjail doctor (root)'; bin/podjail doctor"
  for s in "${samples[@]}"; do
    echo "echo '== podjail judge $s (root)'; bin/podjail judge $s"
    echo "echo '== podjail judge $s (rootless, user tester)'; as-tester bin/podjail judge $s"
  done
} > "$payload/guest.sh"
bash hack/testvm/run.sh "$payload"
