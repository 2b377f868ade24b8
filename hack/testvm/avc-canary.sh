#!/bin/bash
# The Fedora SELinux pass's positive control (guest-run.sh runs it after the AVC check):
# a container_t run reads a host file that is not container-labelled, /etc/shadow
# (shadow_t), bind-mounted without relabelling. The policy must deny it, and the denial
# must reach the kernel log where the check reads it; else "0 denials" would prove nothing.
# Prints what it saw; exit 0 only if the read failed and its AVC record was logged.
set -u
level=s0:c1,c2
want="scontext=system_u:system_r:container_t:$level tcontext=system_u:object_r:shadow_t:s0 tclass=file"
out=$(podman run --rm --network=none --security-opt label=level:$level \
	-v /etc/shadow:/canary:ro localhost/podjail-gcc:latest cat /canary 2>&1)
rc=$?
sleep 2
rec=$(dmesg | grep 'avc:  denied' | grep -F "$want" | tail -n1)
echo "canary: cat of /etc/shadow from container_t:$level: rc=$rc, $(echo "$out" | tail -n1 | cut -c1-120)"
echo "canary: its AVC record: ${rec:-none}"
[ $rc != 0 ] && [ -n "$rec" ]
