package verdict

import "testing"

func TestWorse(t *testing.T) {
	all := All()
	if len(all) != len(severity) {
		t.Fatalf("%d verdicts listed, %d ranked", len(all), len(severity))
	}
	for _, c := range []struct {
		a, b Verdict
		want bool
	}{{IE, CF, true}, {CF, IE, false}, {TLE, OLE, true}, {WA, AC, true}, {AC, AC, false}, {PA, PE, false}} {
		if got := Worse(c.a, c.b); got != c.want {
			t.Errorf("Worse(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
