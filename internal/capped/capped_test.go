package capped

import (
	"bytes"
	"errors"
	"testing"
)

func TestWriterKeepsTheCapAndStops(t *testing.T) {
	var dst bytes.Buffer
	calls := 0
	w := &Writer{Dst: &dst, Limit: 10, Exceeded: func() { calls++ }}
	if n, err := w.Write([]byte("12345678")); n != 8 || err != nil {
		t.Fatalf("first write: %d %v", n, err)
	}
	if w.FirstByte().IsZero() {
		t.Fatal("no first byte after a write")
	}
	// Writes past the cap succeed (the stream must be drained) but are dropped.
	if n, err := w.Write([]byte("abcd")); n != 4 || err != nil {
		t.Fatalf("write past the cap: %d %v", n, err)
	}
	if n, err := w.Write([]byte("more")); n != 4 || err != nil {
		t.Fatalf("write after the cap: %d %v", n, err)
	}
	n, over, dstErr := w.Result()
	if dst.String() != "12345678ab" || n != 16 || !over || calls != 1 || dstErr != nil {
		t.Fatalf("kept %q, counted %d, over %v, exceeded called %d times, dst error %v", dst.String(), n, over, calls, dstErr)
	}
}

func TestWriterExactlyAtCapIsNotOver(t *testing.T) {
	var dst bytes.Buffer
	w := &Writer{Dst: &dst, Limit: 4, Exceeded: func() { t.Fatal("exceeded at exactly the cap") }}
	if _, err := w.Write([]byte("abcd")); err != nil {
		t.Fatal(err)
	}
	if w.Over() {
		t.Fatal("over at exactly the cap")
	}
}

func TestWriterWithoutExceededNeverFails(t *testing.T) {
	var dst bytes.Buffer
	w := &Writer{Dst: &dst, Limit: 5}
	for _, s := range []string{"abc", "def", "ghi"} {
		if n, err := w.Write([]byte(s)); n != 3 || err != nil {
			t.Fatalf("Write = %d, %v; a capped writer never fails", n, err)
		}
	}
	if dst.String() != "abcde" || !w.Over() {
		t.Errorf("kept %q (over %t), want \"abcde\" and over", dst.String(), w.Over())
	}
	if !(&Writer{}).FirstByte().IsZero() {
		t.Error("a first byte before any write")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriterCountsOnWhenDestinationFails(t *testing.T) {
	w := &Writer{Dst: failingWriter{}, Limit: 100, Exceeded: func() {}}
	for range 3 {
		if _, err := w.Write([]byte("0123456789")); err != nil {
			t.Fatal(err)
		}
	}
	n, _, dstErr := w.Result()
	if n != 30 || dstErr == nil {
		t.Fatalf("counted %d, dst error %v", n, dstErr)
	}
}

func TestRefuseFailsTheWritePastTheCap(t *testing.T) {
	var dst bytes.Buffer
	w := &Writer{Dst: &dst, Limit: 6, Refuse: true}
	if n, err := w.Write([]byte("abcd")); n != 4 || err != nil {
		t.Fatalf("write within the cap: %d %v", n, err)
	}
	if n, err := w.Write([]byte("efg")); n != 0 || !errors.Is(err, ErrOver) {
		t.Fatalf("write past the cap: %d %v, want 0 and ErrOver", n, err)
	}
	if !w.Over() || dst.String() != "abcd" {
		t.Fatalf("over %t, kept %q; want over and \"abcd\"", w.Over(), dst.String())
	}
	if n, err := w.Write([]byte("ef")); n != 2 || err != nil {
		t.Fatalf("write up to the cap: %d %v", n, err)
	}
	if n, _, _ := w.Result(); n != 6 || dst.String() != "abcdef" {
		t.Fatalf("counted %d, kept %q", n, dst.String())
	}
}

func TestRefuseReturnsTheDestinationsError(t *testing.T) {
	w := &Writer{Dst: failingWriter{}, Limit: 100, Refuse: true}
	if _, err := w.Write([]byte("x")); err == nil || errors.Is(err, ErrOver) {
		t.Fatalf("Write = %v, want the destination's error", err)
	}
	if w.Over() {
		t.Fatal("over after a failed write within the cap")
	}
}
