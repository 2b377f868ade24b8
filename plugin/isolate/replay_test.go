package isolate

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// readMeta reads a meta file as CMS's Sandbox.get_meta does: key to the
// list of its values, split at the first colon.
func readMeta(t *testing.T, m Meta) map[string][]string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteMeta(&b, m); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	sc := bufio.NewScanner(&b)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			t.Fatalf("line %q has no colon", sc.Text())
		}
		out[k] = append(out[k], v)
	}
	return out
}

// cmsExitStatus is Sandbox.get_exit_status (cms/grading/Sandbox.py).
func cmsExitStatus(meta map[string][]string) string {
	has := func(s string) bool {
		for _, v := range meta["status"] {
			if v == s {
				return true
			}
		}
		return false
	}
	switch {
	case has("XX"):
		return "sandbox error"
	case has("TO"):
		if len(meta["message"]) > 0 && strings.Contains(meta["message"][0], "wall") {
			return "wall timeout"
		}
		return "timeout"
	case has("SG"):
		if _, ok := meta["cg-oom-killed"]; ok {
			return "memory limit exceeded"
		}
		return "signal"
	case has("RE"):
		return "nonzero return"
	}
	return "ok"
}

// judge0Status is IsolateJob#determine_status (app/jobs/isolate_job.rb)
// up to the output comparison.
func judge0Status(meta map[string][]string) string {
	status := ""
	if v := meta["status"]; len(v) > 0 {
		status = v[0]
	}
	switch status {
	case "TO":
		return "tle"
	case "SG":
		return "runtime error (signal " + meta["exitsig"][0] + ")"
	case "RE":
		return "nzec"
	case "XX":
		return "boxerr"
	}
	return "compare output"
}

// The meta files podjail writes must read as isolate's do to CMS and
// Judge0.
func TestJudgesReadMeta(t *testing.T) {
	oom := stats(true)
	oom.CgOOMKilled = true
	cases := []struct {
		m          Meta
		cms, judge string
	}{
		{Exited(stats(true), 0), "ok", "compare output"},
		{Exited(stats(true), 1), "nonzero return", "nzec"},
		{Signaled(stats(true), 11), "signal", "runtime error (signal 11)"},
		{Signaled(oom, 9), "memory limit exceeded", "runtime error (signal 9)"},
		{TimedOut(stats(true), false, true), "timeout", "tle"},
		{TimedOut(stats(true), true, true), "wall timeout", "tle"},
		{TimedOut(stats(true), false, false), "timeout", "tle"},
		{Failed("Cannot run proxy"), "sandbox error", "boxerr"},
	}
	for _, c := range cases {
		meta := readMeta(t, c.m)
		if got := cmsExitStatus(meta); got != c.cms {
			t.Errorf("%+v: CMS reads %q, want %q", c.m, got, c.cms)
		}
		if got := judge0Status(meta); got != c.judge {
			t.Errorf("%+v: Judge0 reads %q, want %q", c.m, got, c.judge)
		}
	}
	// CMS reads memory from cg-mem in KiB; Judge0 reads cg-mem with --cg.
	if meta := readMeta(t, Exited(stats(true), 0)); meta["cg-mem"][0] != "6000" || meta["time"][0] != "1.234" {
		t.Errorf("figures %v", meta)
	}
}
