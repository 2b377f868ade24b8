package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// TestHonestTime: every process of the program is charged, the children
// it never waits for too, and a run over its limit is TLE whatever it did
// after; in this process and through a service. A program that waits for
// its children is charged what their rusage says, no more.
func TestHonestTime(t *testing.T) {
	env := hosttest.Podman(t)
	sock, stop := startService(t, env)
	for _, c := range []struct {
		name    string
		argv    []string
		atLeast time.Duration
		note    string
		orphans bool // CPU that only the program cgroup counts
	}{
		// The parent reads the child's answer on a pipe and exits: the
		// child's 1.6 s reach no wait4 (it was 1 s under 2 s before).
		{"a child never waited for", []string{tprog, "orphan", "1600", "1"}, 1600 * time.Millisecond, "over the limit", true},
		{"four children never waited for", []string{tprog, "orphan", "400", "4"}, 1600 * time.Millisecond, "over the limit", true},
		{"over the limit, then SIGSEGV", []string{tprog, "burnsig", "1500", "11"}, 1500 * time.Millisecond, "then killed by SIGSEGV", false},
	} {
		for _, via := range []string{"in process", "through the service"} {
			flags := []string{"--time-limit", "1s"}
			if via != "in process" {
				flags = append(flags, "--service", sock)
			}
			res, out := runArgvJSON(t, env, flags, c.argv...)
			logMeasure(t, res)
			m := res.Measure
			if res.Verdict != plugin.TLE || !strings.Contains(res.VerdictNote, c.note) || m.Time < c.atLeast {
				t.Errorf("%s, %s: %s %q, time %v (%s), output %q; want TLE with %q, charged at least %v",
					c.name, via, res.Verdict, res.VerdictNote, m.Time, m.TimeFrom, out, c.note, c.atLeast)
			}
			if c.orphans {
				if !strings.Contains(m.TimeFrom, "every process") || m.ProgramCPU < c.atLeast {
					t.Errorf("%s, %s: time from %q, program cgroup %v; want the program cgroup's cpu.stat", c.name, via, m.TimeFrom, m.ProgramCPU)
				}
			}
		}
	}
	// Children waited for: wait4's rusage has them, and the charge is it.
	res, out := runArgvJSON(t, env, []string{"--time-limit", "5s"}, tprog, "kids", "400", "2")
	logMeasure(t, res)
	own := parseRusage(t, out)
	if d := math.Abs(float64(res.Measure.Time - own)); res.Verdict != plugin.AC || d > 0.02*float64(own)+float64(5*time.Millisecond) {
		t.Errorf("children waited for: %s, charged %v against their own rusage %v; want AC within 2%%", res.Verdict, res.Measure.Time, own)
	}
	// Registered last, run first: the service's armed containers go before
	// each run's check that nothing is left.
	t.Cleanup(func() { stop() })
}
