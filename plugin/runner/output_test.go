package runner

import (
	"bytes"
	"errors"
	"testing"
)

func TestCappedWriterKeepsTheCapAndStops(t *testing.T) {
	var dst bytes.Buffer
	calls := 0
	w := &cappedWriter{dst: &dst, limit: 10, exceeded: func() { calls++ }}
	if n, err := w.Write([]byte("12345678")); n != 8 || err != nil {
		t.Fatalf("first write: %d %v", n, err)
	}
	// Writes past the cap succeed (the stream must be drained) but are dropped.
	if n, err := w.Write([]byte("abcd")); n != 4 || err != nil {
		t.Fatalf("write past the cap: %d %v", n, err)
	}
	if n, err := w.Write([]byte("more")); n != 4 || err != nil {
		t.Fatalf("write after the cap: %d %v", n, err)
	}
	n, over, dstErr := w.result()
	if dst.String() != "12345678ab" || n != 16 || !over || calls != 1 || dstErr != nil {
		t.Fatalf("kept %q, counted %d, over %v, exceeded called %d times, dst error %v", dst.String(), n, over, calls, dstErr)
	}
}

func TestCappedWriterExactlyAtCapIsNotOver(t *testing.T) {
	var dst bytes.Buffer
	w := &cappedWriter{dst: &dst, limit: 4, exceeded: func() { t.Fatal("exceeded at exactly the cap") }}
	if _, err := w.Write([]byte("abcd")); err != nil {
		t.Fatal(err)
	}
	if _, over, _ := w.result(); over {
		t.Fatal("over at exactly the cap")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestCappedWriterCountsOnWhenDestinationFails(t *testing.T) {
	w := &cappedWriter{dst: failingWriter{}, limit: 100, exceeded: func() {}}
	for range 3 {
		if _, err := w.Write([]byte("0123456789")); err != nil {
			t.Fatal(err)
		}
	}
	n, _, dstErr := w.result()
	if n != 30 || dstErr == nil {
		t.Fatalf("counted %d, dst error %v", n, dstErr)
	}
}
