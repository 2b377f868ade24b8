package runner

import (
	"os"
	"testing"
)

func TestForeignOwned(t *testing.T) {
	box := t.TempDir()
	if err := os.WriteFile(box+"/f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if foreign, err := foreignOwned([]string{box}, os.Geteuid()); err != nil || foreign {
		t.Fatalf("a fresh box: foreign %t, %v", foreign, err)
	}
	if foreign, err := foreignOwned([]string{box}, os.Geteuid()+1); err != nil || !foreign {
		t.Fatalf("a box of another uid: foreign %t, %v", foreign, err)
	}
}
