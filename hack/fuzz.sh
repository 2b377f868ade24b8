#!/bin/bash
# Fuzz each NAME:PACKAGE given for FUZZTIME (default 15s), one after the
# other (go test fuzzes one target per call). A crasher is kept in the
# package's testdata/fuzz/NAME, where the unit tests run it from then on.
#
# Go 1.26's fuzzing coordinator can fail a target with a bare "context
# deadline exceeded" at the end of a -fuzztime given as a duration, when a
# worker is still busy as the time runs out (a loaded host: golang/go#75804,
# fixed in Go 1.27). Such a failure wrote no crasher; that target is fuzzed
# once more, and the retry says why. A failure that wrote a crasher, or a
# second failure, fails the run.
set -uo pipefail
: "${GO:=go}" "${FUZZTIME:=15s}"
for t in "$@"; do
	name=${t%%:*} pkg=${t#*:}
	corpus=$pkg/testdata/fuzz/$name
	for try in 1 2; do
		echo "fuzz $name in $pkg for $FUZZTIME"
		before=$(ls "$corpus" 2>/dev/null)
		out=$("$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		[ $rc = 0 ] && break
		if [ $try = 1 ] && [ "$(ls "$corpus" 2>/dev/null)" = "$before" ] &&
			grep -q '^    context deadline exceeded$' <<<"$out"; then
			echo "fuzz: $name ended with Go's own deadline race (golang/go#75804), no crasher written: once more"
			continue
		fi
		echo "fuzz: $name failed (see above; a crasher it found is kept in $corpus)" >&2
		exit 1
	done
done
