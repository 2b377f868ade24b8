package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podjail/podjail/plugin"
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
