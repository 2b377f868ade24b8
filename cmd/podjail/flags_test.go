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

// TestGroupID: serve's --group takes a name or, where the name is not
// known (podjail's image), the number.
func TestGroupID(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"", -1, true}, {"1001", 1001, true}, {"root", 0, true}, {"podjail-no-such-group", -1, false}, {"-5", -1, false}} {
		got, err := groupID(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("groupID(%q) = %d, %v; want %d, ok %t", c.in, got, err, c.want, c.ok)
		}
	}
}
