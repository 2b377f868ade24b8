package runner

import (
	"testing"
	"time"
)

// TestDefaultLimits: a request's zero deadlines come from its time limit,
// its zero limits get their defaults; a writable run gets no rlimits.
func TestDefaultLimits(t *testing.T) {
	r := RunRequest{Limits: Limits{Time: time.Second}, Wait: Wait{Deadlines: Deadlines{Idle: time.Minute}}}
	defaultLimits(&r)
	if w, l := r.Wait, r.Limits; w.CPU != 3*time.Second || w.Idle != time.Minute || w.Wall != 15*time.Second || l.Memory != DefaultMemory || l.Pids != DefaultPids || l.CPUs != DefaultCPUs || l.Output != DefaultOutputLimit {
		t.Errorf("defaults: %+v", r)
	}
	if rlimits(RunRequest{Writable: true}, 1) != nil {
		t.Error("a writable run got rlimits")
	}
}
