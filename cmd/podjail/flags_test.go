package main

import "testing"

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"1048576": 1 << 20, "512K": 512 << 10, "256M": 256 << 20, "256MiB": 256 << 20,
		"1G": 1 << 30, "1gb": 1 << 30, "0": 0,
	} {
		got, err := parseBytes(in)
		if err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "1T", "M", "12.5M", "99999999999G"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("parseBytes(%q) accepted", bad)
		}
	}
}
