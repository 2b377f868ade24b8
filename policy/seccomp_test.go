package policy

import (
	"bytes"
	"encoding/json"
	"runtime"
	"slices"
	"testing"

	"github.com/containers/common/pkg/seccomp"
)

// names lists the syscalls a rule names.
func names(s *seccomp.Syscall) []string {
	if s.Name != "" {
		return append([]string{s.Name}, s.Names...)
	}
	return s.Names
}

func TestSeccompRefusesGroupEscapes(t *testing.T) {
	p := Seccomp()
	if p.DefaultAction != seccomp.ActErrno || p.DefaultErrnoRet == nil || *p.DefaultErrnoRet != 38 {
		t.Fatalf("default action %s %v, want ERRNO(ENOSYS): crun drops rules equal to it", p.DefaultAction, p.DefaultErrnoRet)
	}
	for _, call := range []string{"setsid", "setpgid"} {
		var refusing int
		for _, s := range p.Syscalls {
			if !slices.Contains(names(s), call) {
				continue
			}
			if s.Action != seccomp.ActErrno || s.Errno != "ENOSYS" || s.ErrnoRet == nil || *s.ErrnoRet != 38 || len(s.Args) != 0 {
				t.Errorf("%s named by a rule %s %s %v args %d", call, s.Action, s.Errno, s.ErrnoRet, len(s.Args))
				continue
			}
			refusing++
		}
		if refusing != 1 {
			t.Errorf("%s: %d refusing rules, want 1", call, refusing)
		}
	}
	// The default profile does allow them: the removal is what matters.
	allowed := false
	for _, s := range seccomp.DefaultProfile().Syscalls {
		allowed = allowed || (s.Action == seccomp.ActAllow && slices.Contains(names(s), "setsid"))
	}
	if !allowed {
		t.Error("default profile no longer allows setsid; revisit refuse")
	}
}

// TestSeccompKeepsDefault checks that nothing but the refused calls left
// the default profile's rules.
func TestSeccompKeepsDefault(t *testing.T) {
	type rule struct {
		name string
		act  seccomp.Action
	}
	set := func(p *seccomp.Seccomp) map[rule]int {
		m := map[rule]int{}
		for _, s := range p.Syscalls {
			for _, n := range names(s) {
				m[rule{n, s.Action}]++
			}
		}
		return m
	}
	refused := map[string]bool{}
	for _, r := range refusals {
		for _, n := range r.names {
			refused[n] = true
		}
	}
	ours, def := set(Seccomp()), set(seccomp.DefaultProfile())
	for r, n := range def {
		if refused[r.name] {
			continue
		}
		if ours[r] != n {
			t.Errorf("%s %s: %d rules, default has %d", r.name, r.act, ours[r], n)
		}
	}
}

func TestSeccompNativeArchOnly(t *testing.T) {
	p := Seccomp()
	if len(p.Architectures) != 0 {
		t.Errorf("architectures %v, want none (archMap only)", p.Architectures)
	}
	for _, a := range p.ArchMap {
		if len(a.SubArches) != 0 {
			t.Errorf("%s keeps sub-architectures %v", a.Arch, a.SubArches)
		}
	}
	native, err := seccomp.GoArchToSeccompArch(runtime.GOARCH)
	if err != nil {
		t.Skip(err)
	}
	// What Podman's loader puts in the OCI spec: the native entry, flattened.
	var got []seccomp.Arch
	for _, a := range p.ArchMap {
		if a.Arch == native {
			got = append(append(got, a.Arch), a.SubArches...)
		}
	}
	switch runtime.GOARCH {
	case "amd64", "arm64", "s390x":
		if !slices.Equal(got, []seccomp.Arch{native}) {
			t.Errorf("architectures %v, want [%s]", got, native)
		}
	}
}

func TestSeccompJSONDeterministic(t *testing.T) {
	a, err := SeccompJSON()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SeccompJSON()
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings differ")
	}
	var back seccomp.Seccomp
	if err := json.Unmarshal(a, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.MarshalIndent(&back, "", "\t")
	if !bytes.Equal(append(again, '\n'), a) {
		t.Error("round trip changes the profile")
	}
	for _, want := range []string{`"setsid"`, `"errno": "ENOSYS"`, `"errnoRet": 38`, `"subArchitectures": []`} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if bytes.Contains(a, []byte(`SCMP_ARCH_X32`)) || bytes.Contains(a, []byte(`"SCMP_ARCH_X86"`)) {
		t.Error("JSON still names a 32-bit x86 ABI")
	}
}
