package isolate

import (
	"strings"
	"testing"
)

// TestUsageNamesEveryOption: isolate's usage and the front's notes name
// every option ParseArgs takes, each short one beside its long name.
func TestUsageNamesEveryOption(t *testing.T) {
	text := Usage + FrontNotes
	for _, o := range longOpts {
		if !strings.Contains(text, "--"+o.name) {
			t.Errorf("the usage does not name --%s", o.name)
		}
		if o.code < 256 && !strings.Contains(Usage, "-"+string(rune(o.code))+", --"+o.name) {
			t.Errorf("the usage does not give --%s's -%c", o.name, o.code)
		}
	}
	if !strings.HasPrefix(Usage, "Usage: isolate [<options>] <command>\n\nOptions:\n") || !strings.HasSuffix(Usage, "    --version\t\tDisplay program version and configuration\n") {
		t.Errorf("Usage is not isolate's:\n%s", Usage)
	}
}
