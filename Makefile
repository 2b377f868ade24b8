# The build flags are written here once: every target uses them.
export CGO_ENABLED := 0
export GOFLAGS := -tags=remote,containers_image_openpgp -trimpath
GO ?= go
CC ?= gcc

OUT := _out
PAYLOAD := $(OUT)/payload
# Packages whose tests need a real Podman host; their test binaries go into
# the test VM.
VM_TEST_PKGS := ./cmd/podjail

.PHONY: all build man completions image test unit cover vet fuzz rpm vm-image vm-payload test-vm test-vm-selinux test-vm-selinux-fedora bench-vm fedora-policy sample clean

all: build

# podjail finds podjail-shim beside itself.
build:
	$(GO) build -o $(OUT)/bin/podjail ./cmd/podjail
	$(GO) build -o $(OUT)/bin/podjail-shim ./cmd/podjail-shim
	$(GO) build -o $(OUT)/bin/podjail-plugin ./cmd/podjail-plugin

# Man pages (podjail.1, podjail-COMMAND.1) and bash, zsh and fish completions,
# from the commands' own definitions: podjail's hidden __gen-docs writes them,
# as the RPM's build does (contrib/rpm/podjail.spec).
man: build
	$(OUT)/bin/podjail __gen-docs man $(OUT)/man

completions: build
	$(OUT)/bin/podjail __gen-docs completions $(OUT)/completions

# podjail's own image (Containerfile), from build's static binaries; it runs
# podjail serve in a container (contrib/quadlet, docs/service.md).
image: build
	podman build -t localhost/podjail:latest -f Containerfile $(OUT)/bin

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1; }

# Unit tests run here; tests that need Podman skip on this host with a reason
# and run for real in test-vm.
unit:
	$(GO) test -count=1 ./...

# Each package's unit coverage, one line a package (the whole output in
# $(OUT)/cover.txt). It fails when a test fails, or when a package of
# plugin/... or shim/ is under COVER_MIN percent: all but test support
# (runnertest) and generated code (proto). A test binary's helper processes
# count when they write to the GOCOVERDIR go test gives it. Run it as root,
# as CI does: the shim's tests of its privilege drop skip for another user.
COVER_MIN ?= 70
cover:
	@mkdir -p $(OUT); mod=$$($(GO) list -m); rc=0; \
	$(GO) test -count=1 -cover ./... >$(OUT)/cover.txt 2>&1 || { cat $(OUT)/cover.txt; rc=1; }; \
	awk -v mod="$$mod/" -v min=$(COVER_MIN) ' \
		$$1 != "coverage:" && match($$0, /coverage: [0-9.]+% of statements/) { \
			pkg = ($$1 == "ok" || $$1 == "FAIL") ? $$2 : $$1; pct = substr($$0, RSTART + 10, RLENGTH - 25) + 0; \
			rel = substr(pkg, length(mod) + 1); note = ""; \
			if (rel ~ /^(plugin|shim)(\/|$$)/ && rel !~ /(^|\/)(runnertest|proto)(\/|$$)/) { \
				note = "  (gated)"; if (pct < min) { note = sprintf("  BELOW %d%% by %.1f", min, min - pct); low++ } } \
			printf "%6.1f%%  %s%s\n", pct, rel, note } \
		$$1 == "FAIL" && NF >= 2 { printf "  FAIL   %s\n", substr($$2, length(mod) + 1) } \
		END { if (low) printf "cover: %d package(s) of plugin/... or shim/ under %d%%\n", low, min; exit low > 0 }' \
		$(OUT)/cover.txt || rc=1; \
	exit $$rc

# Every fuzz target for FUZZTIME each, one after the other (hack/fuzz.sh).
# A crasher is kept in the package's testdata/fuzz, where unit runs it from
# then on.
FUZZTIME ?= 15s
FUZZ_TARGETS := \
	FuzzParseArgs:./plugin/isolate \
	FuzzParseArgs:./plugin/omegajail \
	FuzzMeta:./plugin/omegajail \
	FuzzLoad:./plugin/problem \
	FuzzParse:./plugin/lang \
	FuzzParseReport:./shim \
	FuzzExecRequest:./plugin/sandbox/engine \
	FuzzCompare:./plugin/compare

# podjail's RPMs (contrib/rpm/podjail.spec) into $(OUT)/rpm, their file lists and
# scriptlets checked, the main package's payload unpacked in $(OUT)/rpm/root, which the
# VM payload carries (TestInstalledFromRPM judges from it).
rpm:
	bash hack/rpm.sh $(OUT)

fuzz:
	@GO="$(GO)" FUZZTIME=$(FUZZTIME) bash hack/fuzz.sh $(FUZZ_TARGETS)

# The payload for the test VM: podjail and its shim, the test binaries, and
# the programs of the scratch test image (the test binary plays most of them
# through TestMain; the measurement tests need small static C programs).
vm-payload: build
	rm -rf $(PAYLOAD) && mkdir -p $(PAYLOAD)/bin $(PAYLOAD)/tests $(PAYLOAD)/progs
	cp $(OUT)/bin/podjail $(OUT)/bin/podjail-shim $(OUT)/bin/podjail-plugin $(PAYLOAD)/bin/
	$(GO) test -c -o $(PAYLOAD)/tests/podjail.test ./cmd/podjail
	cp $(PAYLOAD)/tests/podjail.test $(PAYLOAD)/progs/podjail.test
	mkdir -p $(PAYLOAD)/judge && cp -r examples/problems $(PAYLOAD)/judge/problems && cp -r cmd/podjail/testdata/judge $(PAYLOAD)/judge/src
	cp -r contrib/selinux $(PAYLOAD)/contrib-selinux
	if [ -d $(OUT)/rpm/root ]; then cp -a $(OUT)/rpm/root $(PAYLOAD)/rpmroot; fi
	if [ -d $(OUT)/rpm/selinux-root ]; then cp -a $(OUT)/rpm/selinux-root $(PAYLOAD)/rpmselinux && \
		cp $(OUT)/rpm/selinux.scripts $(PAYLOAD)/rpmselinux.scripts; fi
	cp -r contrib/systemd $(PAYLOAD)/contrib-systemd
	cp -r contrib/quadlet $(PAYLOAD)/contrib-quadlet && cp Containerfile $(PAYLOAD)/Containerfile
	for p in tprog trivial; do \
		$(CC) -static -O2 -Wall -o $(PAYLOAD)/progs/$$p cmd/podjail/testdata/progs/$$p.c || exit 1; done
	mkdir -p $(PAYLOAD)/progs/hostile
	for f in cmd/podjail/testdata/hostile/*.c; do [ -e "$$f" ] || continue; \
		$(CC) -static -O2 -pthread -o $(PAYLOAD)/progs/hostile/$$(basename $$f .c) $$f || exit 1; done
	echo "-test.bench=. -test.benchtime=$${BENCHTIME:-3x}" > $(PAYLOAD)/testflags

# Boots the test VM (building its image once, cached) and runs the
# integration tests there as root and as an unprivileged user.
test-vm: vm-payload
	bash hack/testvm/run.sh $(PAYLOAD)

# Boots the test VM again with SELinux (refpolicy, permissive) and runs the
# SELinux tests there, rootful and rootless. systemd.unit keeps the boot
# on multi-user.target should the disk ever be marked for relabelling
# (/.autorelabel's generator would make the boot relabel and reboot).
test-vm-selinux: vm-payload
	PODJAIL_TESTVM_APPEND="security=selinux selinux=1 enforcing=0 systemd.unit=multi-user.target" \
		PODJAIL_TESTVM_OUT=$(OUT)/testvm-out-selinux bash hack/testvm/run.sh $(PAYLOAD)

# Boots the test VM with Fedora 41's own targeted policy and container-selinux,
# ENFORCING (build-fedora-selinux.sh derives that image once, cached), and runs
# the SELinux tests there rootful and rootless, contrib/selinux's module
# installed as its README says; any AVC denial not in
# hack/testvm/avc-allow-fedora.txt fails it. FEDORA_TESTS=selinux (what
# `make test` runs) keeps to the SELinux tests; the default adds the hostile
# suite, the fronts through the service and the native service.
test-vm-selinux-fedora: vm-payload
	img=$$(bash hack/testvm/build-fedora-selinux.sh) && \
	PODJAIL_TESTVM_IMAGE=$$img \
	PODJAIL_TESTVM_APPEND="security=selinux selinux=1 enforcing=1 systemd.unit=multi-user.target sysctl.kernel.printk_ratelimit=0 $(if $(FEDORA_TESTS),podjail.tests=$(FEDORA_TESTS))" \
		PODJAIL_TESTVM_OUT=$(OUT)/testvm-out-selinux-fedora bash hack/testvm/run.sh $(PAYLOAD)

# podjail's own share of a test against Podman's bare lifecycle (podjail
# bench, docs/performance.md): TestPodjailBench alone in the VM, rootful then
# rootless, on one processor whose clock counts instructions (qemu -icount).
# There the figures neither drift with this host's speed nor charge one
# emulated processor for the other's turn; P = 1 is every core. BENCH_ARGS
# are the bench's flags, over the smoke test's counts that test-vm runs
# (benchSmokeArgs in cmd/podjail/bench_test.go).
BENCH_ARGS ?= --tests 12 --spec-steps 12 --rounds 3
bench-vm: vm-payload
	echo '-test.run=^TestPodjailBench$$ -test.bench=^$$' > $(PAYLOAD)/testflags
	echo 'PODJAIL_BENCH_ARGS=$(BENCH_ARGS)' > $(PAYLOAD)/testenv
	touch $(PAYLOAD)/sequential
	PODJAIL_TESTVM_SMP=1 PODJAIL_TESTVM_ICOUNT=shift=2,sleep=on PODJAIL_TESTVM_TIMEOUT=$${PODJAIL_TESTVM_TIMEOUT:-3600} \
		PODJAIL_TESTVM_OUT=$(OUT)/testvm-out-bench bash hack/testvm/run.sh $(PAYLOAD)

# Fedora's policy alone (cached, ~10 min cold): it needs no VM image, so
# `make test` builds it while build.sh builds the image.
fedora-policy:
	bash hack/testvm/build-fedora-selinux.sh --policy >/dev/null

# The test VM's image (built once, cached; see hack/testvm/README.md).
vm-image:
	bash hack/testvm/build.sh >/dev/null

# Everything: vet, unit tests and the fuzz targets here, integration tests
# in the VM. The image and Fedora's policy build (mostly downloads, dpkg and
# checkpolicy) while vet, the unit tests and the fuzzing run; the VM suites
# take both cores after: the main boot, then Fedora's policy enforcing with
# the SELinux tests (the refpolicy boot, test-vm-selinux, is not run: the
# Fedora boot is the stronger proof of the same tests, and both do not fit
# CI's time). It stops at the first phase that fails and, either way, ends
# with the budget (hack/budget.sh): each phase's seconds, the boots' own
# phases with the VM's busy share, the slowest tests of each pass.
BUDGET := $(OUT)/budget-phases.txt
test:
	@mkdir -p $(OUT) && echo "start $$(date +%s)" >$(BUDGET); \
	bash hack/budget.sh phase $(BUDGET) "vet unit fuzz rpm vm-image fedora-policy" \
		$(MAKE) -j4 --output-sync=target vet unit fuzz rpm vm-image fedora-policy && \
	bash hack/budget.sh phase $(BUDGET) test-vm $(MAKE) test-vm && \
	bash hack/budget.sh phase $(BUDGET) test-vm-selinux-fedora $(MAKE) test-vm-selinux-fedora FEDORA_TESTS=selinux; \
	rc=$$?; bash hack/budget.sh report $(BUDGET) $(OUT)/testvm-out $(OUT)/testvm-out-selinux-fedora; exit $$rc

# Runs a sample end to end: directly when this host passes `podjail doctor`,
# otherwise inside the test VM.
sample: build
	bash hack/sample.sh

clean:
	rm -rf $(OUT)
