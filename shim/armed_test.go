package shim

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

func TestAwaitGo(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
		rest     string
	}{
		{"go", "g", true, ""},
		{"go then the program's stdin", "gabc", true, "abc"},
		{"closed", "", false, ""},
		{"other byte", "x", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, _ = w.WriteString(tc.in)
			w.Close()
			var out bytes.Buffer
			err = AwaitGo(&out, r, "n0nce")
			if out.String() != "podjail-armed n0nce\n" {
				t.Errorf("armed line %q", out.String())
			}
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if err != nil {
				var se *SetupError
				if !errors.As(err, &se) || se.Step != StepGo {
					t.Errorf("error %v is not of step go", err)
				}
				return
			}
			rest, _ := io.ReadAll(r)
			if string(rest) != tc.rest {
				t.Errorf("left for the program %q, want %q", rest, tc.rest)
			}
		})
	}
}
