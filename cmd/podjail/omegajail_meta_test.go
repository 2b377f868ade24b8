package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/omegajail"
)

// An RFE reaches omegaUp's Runner as omegajail writes it: signal SIGSYS,
// and the call's name when the kernel log gave it.
func TestOmegajailMetaNamesTheSyscall(t *testing.T) {
	for _, c := range []struct {
		name, want string
	}{
		{"getpid", "signal:SIGSYS\nsyscall:getpid\n"},
		{"", "signal:SIGSYS\n"},
	} {
		m := omegajailMeta(plugin.RunResult{Verdict: plugin.RFE, Signal: "SIGSYS", SyscallName: c.name}, 64<<20)
		var b bytes.Buffer
		if err := omegajail.WriteMeta(&b, m); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), c.want) {
			t.Errorf("syscall %q: meta\n%s\nwant it to end %q", c.name, b.String(), c.want)
		}
	}
}

// A run's working directory is the home directory at /home, with
// HOME=/home, as omegajail's: omegaUp's validators open data.in there.
func TestOmegajailRunIsInHome(t *testing.T) {
	l, err := lang.Default().Lookup("cpp17")
	if err != nil {
		t.Fatal(err)
	}
	run := omegajailRunRequest(omegajail.Request{}, l, "/var/grade/1/Main/bin")
	home := false
	for _, b := range run.Binds {
		home = home || (b.Source == "/var/grade/1/Main/bin" && b.Destination == "/home" && !b.Writable)
	}
	if !home || run.WorkDir != "/home" || !slices.Contains(run.Env, "HOME=/home") {
		t.Errorf("binds %+v, work dir %q, env %q: want the home directory read-only at /home, the working directory, HOME", run.Binds, run.WorkDir, run.Env)
	}
}

// libinteractive's --bind pipes are mounted where omegaUp says.
func TestOmegajailRunMountsBinds(t *testing.T) {
	l, err := lang.Default().Lookup("cpp17")
	if err != nil {
		t.Fatal(err)
	}
	req := omegajail.Request{Binds: []omegajail.Bind{{Source: "/var/grade/1/Main_pipes", Target: "/home/Main_pipes"}}}
	run := omegajailRunRequest(req, l, "/var/grade/1/Main/bin")
	if !slices.Contains(run.Binds, bindings.Bind{Source: "/var/grade/1/Main_pipes", Destination: "/home/Main_pipes"}) {
		t.Errorf("binds %+v: want /var/grade/1/Main_pipes read-only at /home/Main_pipes", run.Binds)
	}
}
