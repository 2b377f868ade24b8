package runner

import (
	"os"
	"testing"
)

func TestSelfRoundTripsThroughLabels(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if self.PID != os.Getpid() || self.Start == 0 || self.BootID == "" {
		t.Fatalf("Self() = %+v", self)
	}
	got, ok := parseInstance(self.Labels("run"))
	if !ok || got != self {
		t.Fatalf("parsed %+v (%v), want %+v", got, ok, self)
	}
	if !processAlive(self.PID, self.Start) || processAlive(self.PID, self.Start+1) {
		t.Fatal("processAlive does not tell this process from a reused pid")
	}
}

func TestOrphaned(t *testing.T) {
	self := Instance{BootID: "boot-a", PID: 100, Start: 5000, Host: "judge1"}
	alive := func(pid int, start uint64) bool { return pid == 200 && start == 7000 }
	cases := []struct {
		name  string
		owner Instance
		want  bool
	}{
		{"ourselves", self, false},
		{"live sibling", Instance{BootID: "boot-a", PID: 200, Start: 7000, Host: "judge1"}, false},
		{"dead sibling", Instance{BootID: "boot-a", PID: 300, Start: 9000, Host: "judge1"}, true},
		{"reused pid", Instance{BootID: "boot-a", PID: 200, Start: 6999, Host: "judge1"}, true},
		{"previous boot", Instance{BootID: "boot-0", PID: 200, Start: 7000, Host: "judge1"}, true},
		{"other host", Instance{BootID: "boot-0", PID: 1, Start: 1, Host: "judge2"}, false},
	}
	for _, c := range cases {
		if got := orphaned(c.owner.Labels("run"), self, alive); got != c.want {
			t.Errorf("%s: orphaned = %v, want %v", c.name, got, c.want)
		}
	}
	for _, bad := range []map[string]string{
		{},
		{LabelInstance: "garbage", LabelHost: "judge1"},
		{LabelInstance: "boot-a/x/1", LabelHost: "judge1"},
		{LabelInstance: "/1/1", LabelHost: "judge1"},
	} {
		if orphaned(bad, self, alive) {
			t.Errorf("unparsable labels %v treated as orphaned", bad)
		}
	}
}
