package omegajail

import (
	"strings"
	"testing"
)

// TestUsageNamesEveryFlag: --help lists every flag ParseArgs knows, with
// omegajail's words, and every language --compile and --run take.
func TestUsageNamesEveryFlag(t *testing.T) {
	u := Usage()
	for _, f := range flags {
		if flagHelp[f.long] == "" {
			t.Errorf("--%s has no help", f.long)
		}
		if !strings.Contains(u, "--"+f.long+" ") && !strings.Contains(u, "--"+f.long+"\n") {
			t.Errorf("the usage does not list --%s", f.long)
		}
		if f.short != 0 && !strings.Contains(u, "-"+string(f.short)+", --"+f.long) {
			t.Errorf("the usage does not give --%s's -%c", f.long, f.short)
		}
	}
	if len(flagHelp) != len(flags) {
		t.Errorf("%d helps for %d flags", len(flagHelp), len(flags))
	}
	for _, l := range languages {
		if !strings.Contains(u, " "+l+",") && !strings.Contains(u, " "+l+"]") {
			t.Errorf("the usage does not list the language %s", l)
		}
	}
	for _, want := range []string{"USAGE:\n    omegajail [OPTIONS] --homedir <PATH>", "    -t, --time-limit <MSEC>    ", "--compile-source <PATH>...", "podjail runs c, c11-gcc"} {
		if !strings.Contains(u, want) {
			t.Errorf("the usage lacks %q:\n%s", want, u)
		}
	}
}
