#!/bin/bash
# Provisioning boot (run once by build.sh, in the guest as root, on the writable image):
# import the toolchain images /mnt/host/images/NAME.tar as localhost/podjail-NAME:latest
# into root's and tester's Podman storage, check them, and write /mnt/host/out/provisioned.
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
out=/mnt/host/out
log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
rl() {
	(cd /home/tester && runuser -u tester -- env HOME=/home/tester USER=tester PATH="$PATH" \
		XDG_RUNTIME_DIR=/run/user/1000 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus "$@")
}

log "provisioning: waiting for tester's user manager"
for _ in $(seq 240); do
	systemctl is-active --quiet user@1000.service && [ -S /run/user/1000/bus ] && break
	sleep 0.5
done
systemctl is-active user@1000.service

names=()
for tar in /mnt/host/images/*.tar; do
	name=$(basename "$tar" .tar)
	names+=("$name")
	ref=localhost/podjail-$name:latest
	log "import $ref (root)"
	podman import -q --change 'CMD ["/bin/bash"]' "$tar" "$ref"
	log "import $ref (tester)"
	rl podman import -q --change 'CMD ["/bin/bash"]' "$tar" "$ref"
done
[ ${#names[@]} -gt 0 ] || { log "no images in /mnt/host/images"; exit 1; }

log "check"
for name in "${names[@]}"; do
	ref=localhost/podjail-$name:latest
	podman image exists "$ref"
	rl podman image exists "$ref"
done
# default network too: netavark (rootful) and pasta (rootless) need the dummy0 default route
podman run --rm localhost/podjail-gcc:latest gcc --version | sed -n 1p
rl podman run --rm localhost/podjail-gcc:latest gcc --version | sed -n 1p
podman run --rm --network=none localhost/podjail-python3:latest python3 --version
rl podman run --rm --network=none localhost/podjail-python3:latest python3 --version
{
	echo "## root"
	podman images
	echo "## tester"
	rl podman images
} | tee "$out/images.txt"

# give the freed blocks (temporary files of the imports) back to the sparse image file
rm -rf /var/tmp/* /tmp/*
fstrim -v /
sync
log "provisioned"
printf '%s\n' "${names[@]}" >"$out/provisioned"
