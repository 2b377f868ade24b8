package bindings

import (
	"strings"
	"testing"
)

func TestRelabelHint(t *testing.T) {
	denied := "preparing container c for attach: lsetxattr(label=system_u:object_r:container_file_t:s0) /p/tests/1.in: operation not permitted"
	if h := relabelHint(denied); !strings.Contains(h, "chcon -R -t container_file_t -l s0") {
		t.Errorf("relabel refused: hint %q", h)
	}
	if h := relabelHint("lsetxattr(label=x) /p: no space left on device"); h != "" {
		t.Errorf("another failure: hint %q", h)
	}
}
