package runner

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// readingStatus makes a run's pipes, closed at the test's end, and reads
// their status pipe into got until done.
func readingStatus(t *testing.T) (p *pipes, got *bytes.Buffer, done chan error) {
	t.Helper()
	p, err := newPipes()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	got, done = &bytes.Buffer{}, make(chan error, 1)
	go func() { done <- p.readStatus(got) }()
	return p, got, done
}

// TestReadStatusWaitsForTheShim: the status pipe is read from before the
// shim opens it; the read waits for it (no writer yet is not an end),
// takes what it writes, and ends when it closes.
func TestReadStatusWaitsForTheShim(t *testing.T) {
	p, got, done := readingStatus(t)
	select {
	case err := <-done:
		t.Fatalf("the read ended before any writer came: %v, %q", err, got.String())
	case <-time.After(200 * time.Millisecond):
	}
	w, err := os.OpenFile(p.statusPath, os.O_WRONLY, 0) // the shim's open
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"podjail-armed n\n", "podjail-report n {}\n"} {
		if _, err := w.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.String() != "podjail-armed n\npodjail-report n {}\n" {
		t.Errorf("read %q", got.String())
	}
}

// TestReadStatusShimNeverCame: a shim that never opens the pipe leaves the
// read waiting until the pipes are closed, which ends it without error.
func TestReadStatusShimNeverCame(t *testing.T) {
	p, err := newPipes()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.readStatus(&bytes.Buffer{}) }()
	p.close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("closed under the read: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not end when the pipes were closed")
	}
}

// TestReadStatusWriterCameAndWent: another process opens the status pipe
// for writing and closes it before the shim comes, writing nothing. The
// read is not ended by that hang-up: it goes on, and takes the shim's
// lines when it comes.
func TestReadStatusWriterCameAndWent(t *testing.T) {
	p, got, done := readingStatus(t)
	passer, err := os.OpenFile(p.statusPath, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	passer.Close()
	select {
	case err := <-done:
		t.Fatalf("the read ended when a writer came and went before any byte: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	w, err := os.OpenFile(p.statusPath, os.O_WRONLY, 0) // the shim's open
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("podjail-armed n\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got.String() != "podjail-armed n\n" {
		t.Errorf("read %q", got.String())
	}
}
