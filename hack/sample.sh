#!/bin/bash
# Runs a sample end to end: a Python program that adds two numbers, in a fresh
# container under the full podjail profile. On a host that passes
# `podjail doctor` it runs here; on one that does not (like a hybrid-cgroup
# development machine) it runs inside the project's test VM.
set -euo pipefail
cd "$(dirname "$0")/.."
podjail=_out/bin/podjail
image=localhost/podjail-python3:latest
program='import sys; a, b = map(int, sys.stdin.read().split()); print(a + b)'

if "$podjail" doctor >/dev/null 2>&1; then
  if ! podman image exists "$image"; then
    podman build -t "$image" -f contrib/images/python3.Containerfile .
  fi
  "$podjail" doctor
  exec "$podjail" run --image "$image" --input examples/sample/input.txt -- /usr/bin/python3 -c "$program"
fi

echo "this host is not fit for podjail (see \`$podjail doctor\`): running the sample in the test VM"
payload=$(mktemp -d)
trap 'rm -rf "$payload"' EXIT
mkdir -p "$payload/bin"
cp "$podjail" _out/bin/podjail-shim "$payload/bin/"
cp examples/sample/input.txt "$payload/input.txt"
cat > "$payload/guest.sh" <<GUEST
#!/bin/bash
set -e
cd "\$(dirname "\$0")"
echo '== podjail doctor (root)'; bin/podjail doctor
echo '== podjail run (root)'
bin/podjail run --image $image --input input.txt -- /usr/bin/python3 -c '$program'
echo '== podjail run (rootless, user tester)'
as-tester bin/podjail run --image $image --input input.txt -- /usr/bin/python3 -c '$program'
GUEST
bash hack/testvm/run.sh "$payload"
