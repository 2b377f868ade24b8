package main

import "testing"

// The level patterns read what hclog writes, quoted or not: a pattern that
// kept the quotes made the denial check look for a level no line holds.
func TestLevelLogPatterns(t *testing.T) {
	for _, line := range []string{
		`2026-12-03T06:30:58.277Z [DEBUG] podjail: SELinux level reserved: level="s0:c611,c846" held=1`,
		`2026-12-03T06:30:58.277Z [DEBUG] podjail: SELinux level reserved: level=s0:c611,c846 held=1`,
	} {
		m := reservedRe.FindStringSubmatch(line)
		if m == nil || m[1] != "s0:c611,c846" || m[2] != "1" {
			t.Errorf("%s: %q", line, m)
		}
	}
	m := releasedRe.FindStringSubmatch(`podjail: SELinux level released: level="s0:c611,c846" held=0`)
	if m == nil || m[1] != "s0:c611,c846" || m[2] != "0" {
		t.Errorf("released: %q", m)
	}
	m = adoptedRe.FindStringSubmatch(`podjail: SELinux levels adopted: labels="system_u:system_r:container_t:s0:c719,c905 system_u:system_r:container_t:s0:c1,c2" held=2`)
	if m == nil || m[1] != "system_u:system_r:container_t:s0:c719,c905 system_u:system_r:container_t:s0:c1,c2" || m[2] != "2" {
		t.Errorf("adopted: %q", m)
	}
	if got := levelOf("system_u:system_r:container_t:s0:c719,c905"); got != "s0:c719,c905" {
		t.Errorf("levelOf: %q", got)
	}
}
