package shim

import (
	"reflect"
	"testing"
)

func TestParseProcCgroup(t *testing.T) {
	for in, want := range map[string]string{
		"0::/\n": "/",
		"12:pids:/x\n1:name=systemd:/y\n0::/machine.slice/libpod-1.scope/container\n": "/machine.slice/libpod-1.scope/container",
	} {
		if got, err := parseProcCgroup([]byte(in)); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1:name=systemd:/\n", "0::relative\n", "0::/a/../b\n"} {
		if got, err := parseProcCgroup([]byte(in)); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}

func TestParseKeyed(t *testing.T) {
	got := parseKeyed([]byte("low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 0\n"))
	want := map[string]int64{"low": 0, "high": 0, "max": 12, "oom": 1, "oom_kill": 2, "oom_group_kill": 0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}
